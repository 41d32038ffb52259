/* test_common_dims.c: the common dims of a reshape's two sides
 * (dsl/helpers_reshape.c) and the rule helpers built on them, which
 * rules/reshape.rules uses to move pointwise ops and reductions across
 * reshapes. The computation is tested directly, the helpers through the
 * registry as generated rule code reaches them.
 */
#include "check.h"
#include "helpers.h"
#include "rule_helper_calls.h"
#include "helpers_reshape.h"
#include "ir.h"

#include <string.h>

static bool lens_are(const common_dims *cd, const int64_t *want, int n)
{
    if (cd->rank != n)
        return false;
    for (int i = 0; i < n; i++)
        if (cd->lens[i] != want[i])
            return false;
    return true;
}

static bool axes_are(const int *got, const int *want, int n)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i])
            return false;
    return true;
}

/* GroupNorm's reshape: {2, 32, 40960} and {2, 320, 64, 64} meet in
 * {2, 32, 10, 64, 64}; each common axis knows the axis it came from. */
static void test_groupnorm(void)
{
    static const int64_t a[] = {2, 32, 40960}, b[] = {2, 320, 64, 64},
                         want[] = {2, 32, 10, 64, 64};
    static const int from_a[] = {0, 1, 2, 2, 2}, from_b[] = {0, 1, 1, 2, 3};
    common_dims cd;
    CHECK(common_dims_of(a, 3, b, 4, &cd));
    CHECK(lens_are(&cd, want, 5));
    CHECK(axes_are(cd.from_a, from_a, 5));
    CHECK(axes_are(cd.from_b, from_b, 5));
    /* symmetric */
    CHECK(common_dims_of(b, 4, a, 3, &cd));
    CHECK(lens_are(&cd, want, 5));
    CHECK(axes_are(cd.from_a, from_b, 5));
    /* through the registry */
    rule_value args[2] = {ints(a, 3), ints(b, 4)}, out;
    CHECK(call("common_dims", args, 2, &out));
    CHECK(ints_are(out, want, 5));
    CHECK(refines(want, 5, a, 3) && refines(want, 5, b, 4));
    CHECK(!refines(b, 4, a, 3) && !refines(a, 3, b, 4));
}

/* Pure splits and merges: the finer side is the common dims. */
static void test_splits_and_merges(void)
{
    static const int64_t a[] = {2, 12}, b[] = {2, 3, 4};
    common_dims cd;
    CHECK(common_dims_of(a, 2, b, 3, &cd));
    CHECK(lens_are(&cd, b, 3));
    CHECK(refines(b, 3, a, 2));
    CHECK(common_dims_of(b, 3, a, 2, &cd));
    CHECK(lens_are(&cd, b, 3));
    /* the same lens */
    CHECK(common_dims_of(b, 3, b, 3, &cd));
    CHECK(lens_are(&cd, b, 3));
    /* {6, 4} and {4, 6} have none: neither 4 nor 6 divides the other */
    static const int64_t c[] = {6, 4}, d[] = {4, 6};
    CHECK(!common_dims_of(c, 2, d, 2, &cd));
    rule_value args[2] = {ints(c, 2), ints(d, 2)}, out;
    CHECK(!call("common_dims", args, 2, &out));
    /* {4, 6} and {2, 12}: 2 | 4, then 2 | 6 ... {2, 2, 6} */
    static const int64_t e[] = {2, 12}, e_want[] = {2, 2, 6};
    CHECK(common_dims_of(d, 2, e, 2, &cd));
    CHECK(lens_are(&cd, e_want, 3));
    /* element counts that differ; a zero length */
    static const int64_t f[] = {2, 3}, g[] = {7}, z[] = {0, 3};
    CHECK(!common_dims_of(f, 2, g, 1, &cd));
    CHECK(!common_dims_of(z, 2, f, 2, &cd));
    /* more than SHAPE_MAX_RANK axes */
    static const int64_t many[] = {2, 2, 2, 2, 2, 2, 2, 2, 2}, one[] = {512};
    CHECK(!common_dims_of(many, 9, one, 1, &cd));
}

/* Length-1 axes: shared ones become one axis, one-sided ones their own. */
static void test_length_one_axes(void)
{
    common_dims cd;
    static const int64_t a[] = {2, 32, 1}, b[] = {2, 32, 1, 1, 1};
    CHECK(common_dims_of(a, 3, b, 5, &cd));
    CHECK(lens_are(&cd, b, 5));
    static const int from_a[] = {0, 1, 2, -1, -1};
    CHECK(axes_are(cd.from_a, from_a, 5));
    /* a 1 inside a split axis belongs to that axis */
    static const int64_t c[] = {6}, d[] = {2, 1, 3};
    CHECK(common_dims_of(c, 1, d, 3, &cd));
    CHECK(lens_are(&cd, d, 3));
    static const int c_from[] = {0, 0, 0};
    CHECK(axes_are(cd.from_a, c_from, 3));
    /* {2, 1, 32} and {2, 32, 1}: {2, 1, 32, 1}, which refines neither */
    static const int64_t e[] = {2, 1, 32}, f[] = {2, 32, 1}, ef[] = {2, 1, 32, 1};
    CHECK(common_dims_of(e, 3, f, 3, &cd));
    CHECK(lens_are(&cd, ef, 4));
    CHECK(!refines(f, 3, e, 3));
    /* a scalar-like {1} and {1, 1} */
    static const int64_t g[] = {1}, h[] = {1, 1};
    CHECK(common_dims_of(g, 1, h, 2, &cd));
    CHECK(lens_are(&cd, h, 2));
}

/* Reduction axes in the common dims, and when a reduction needs them. */
static void test_reduction_axes(void)
{
    static const int64_t in[] = {2, 320, 64, 64}, o[] = {2, 32, 40960},
                         c[] = {2, 32, 10, 64, 64}, ax[] = {2}, want[] = {2, 3, 4};
    rule_value args[3] = {ints(o, 3), ints(ax, 1), ints(c, 5)}, out;
    CHECK(call("axes_in_common", args, 3, &out));
    CHECK(ints_are(out, want, 3));
    /* negative axes count from the end */
    static const int64_t neg[] = {-1};
    args[1] = ints(neg, 1);
    CHECK(call("axes_in_common", args, 3, &out));
    CHECK(ints_are(out, want, 3));
    /* c must refine the lens */
    args[0] = ints(in, 4), args[1] = ints(ax, 1), args[2] = ints(o, 3);
    CHECK(!call("axes_in_common", args, 3, &out));
    /* out of range */
    static const int64_t bad[] = {3};
    args[0] = ints(o, 3), args[1] = ints(bad, 1), args[2] = ints(c, 5);
    CHECK(!call("axes_in_common", args, 3, &out));

    /* GroupNorm's reduction covers 10 of the 320 channels: it splits */
    rule_value s[3] = {ints(in, 4), ints(o, 3), ints(ax, 1)};
    CHECK(call("splits_reduced_axes", s, 3, &out) && out.kind == RV_BOOL && out.u.i == 1);
    /* reducing whole groups does not: {2, 4, 3} -> {2, 12} over axis 1 */
    static const int64_t w_in[] = {2, 4, 3}, w_out[] = {2, 12}, w_ax[] = {1};
    s[0] = ints(w_in, 3), s[1] = ints(w_out, 2), s[2] = ints(w_ax, 1);
    CHECK(call("splits_reduced_axes", s, 3, &out) && out.u.i == 0);
    /* no common dims: false, not a failure */
    static const int64_t n_in[] = {6, 4}, n_out[] = {4, 6}, n_ax[] = {0};
    s[0] = ints(n_in, 2), s[1] = ints(n_out, 2), s[2] = ints(n_ax, 1);
    CHECK(call("splits_reduced_axes", s, 3, &out) && out.u.i == 0);
}

/* A broadcast in the op's lens is a reshape and a multibroadcast in the
 * common dims: GroupNorm's per-channel scale {320, 1, 1} broadcast to
 * {2, 320, 64, 64} is {32, 10, 1, 1} broadcast to {2, 32, 10, 64, 64}; the
 * per-group {2, 32, 1} broadcast to {2, 32, 40960} is {2, 32, 1, 1, 1}. */
static void test_view_in_common(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    graft_error err = {0};
    int64_t scale_lens[] = {320, 1, 1}, act_lens[] = {2, 320, 64, 64};
    shape scale_sh = shape_standard(GRAFT_FLOAT, 3, scale_lens);
    ins *scale = module_add_param(m, "scale", &scale_sh);
    attr mb_attrs[] = {{"out_lens", attr_ints(act_lens, 4)}};
    ins *mb = module_add_op(m, "multibroadcast", mb_attrs, 1, &scale, 1, &err);
    CHECK(mb != NULL);
    static const int64_t c[] = {2, 32, 10, 64, 64}, want_scale[] = {32, 10, 1, 1};
    rule_value args[2] = {{RV_INS, 0, {.in = mb}}, ints(c, 5)}, out;
    CHECK(call("view_in_common", args, 2, &out));
    CHECK(ints_are(out, want_scale, 4));

    int64_t bias_lens[] = {320};
    shape bias_sh = shape_standard(GRAFT_FLOAT, 1, bias_lens);
    ins *bias = module_add_param(m, "bias", &bias_sh);
    attr b_attrs[] = {{"axis", attr_int(1)}, {"out_lens", attr_ints(act_lens, 4)}};
    ins *b = module_add_op(m, "broadcast", b_attrs, 2, &bias, 1, &err);
    CHECK(b != NULL);
    args[0].u.in = b;
    CHECK(call("view_in_common", args, 2, &out));
    CHECK(ints_are(out, want_scale, 4));

    int64_t group_lens[] = {2, 32, 1}, wide[] = {2, 32, 40960};
    shape group_sh = shape_standard(GRAFT_FLOAT, 3, group_lens);
    ins *group = module_add_param(m, "group", &group_sh);
    attr g_attrs[] = {{"out_lens", attr_ints(wide, 3)}};
    ins *gb = module_add_op(m, "multibroadcast", g_attrs, 1, &group, 1, &err);
    CHECK(gb != NULL);
    static const int64_t want_group[] = {2, 32, 1, 1, 1};
    args[0].u.in = gb;
    CHECK(call("view_in_common", args, 2, &out));
    CHECK(ints_are(out, want_group, 5));

    /* dims that do not refine the broadcast's lens: refused */
    static const int64_t coarse[] = {2, 32, 40960};
    args[0].u.in = mb, args[1] = ints(coarse, 3);
    CHECK(!call("view_in_common", args, 2, &out));
    /* not a broadcast: refused */
    ins *neg = module_add_op(m, "neg", NULL, 0, &group, 1, &err);
    CHECK(neg != NULL);
    args[0].u.in = neg, args[1] = ints(group_lens, 3);
    CHECK(!call("view_in_common", args, 2, &out));
    graph_free(g);
}

int main(void)
{
    arena_init(&mem);
    RUN(test_groupnorm);
    RUN(test_splits_and_merges);
    RUN(test_length_one_axes);
    RUN(test_reduction_axes);
    RUN(test_view_in_common);
    arena_free(&mem);
    return tests_finish();
}
