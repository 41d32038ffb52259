/* test_rule_helpers.c: the C helpers that rules/pending.rules, pad.rules
 * and reshape.rules call (dsl/helpers.c), each on the inputs it must accept
 * and the ones it must refuse. They are reached through the registry, as
 * generated rule code reaches them.
 */
#include "check.h"
#include "helpers.h"
#include "rule_helper_calls.h"
#include "ir.h"
#include "lazy_shapes.h"

#include <string.h>

static void test_permuted(void)
{
    static const int64_t lens[] = {2, 3, 4}, perm[] = {2, 0, 1}, want[] = {4, 2, 3};
    rule_value a[2] = {ints(lens, 3), ints(perm, 3)}, out;
    CHECK(call("permuted", a, 2, &out));
    CHECK(ints_are(out, want, 3));
    /* a transpose's axes: permuted(p, axes) */
    static const int64_t axes[] = {0}, from[] = {2};
    a[0] = ints(perm, 3), a[1] = ints(axes, 1);
    CHECK(call("permuted", a, 2, &out));
    CHECK(ints_are(out, from, 1));
    static const int64_t bad[] = {0, 3};
    a[0] = ints(lens, 3), a[1] = ints(bad, 2);
    CHECK(!call("permuted", a, 2, &out));
}

static void test_reduced_lens(void)
{
    static const int64_t lens[] = {2, 3, 4}, axes[] = {1, -1}, want[] = {2, 1, 1};
    rule_value a[2] = {ints(lens, 3), ints(axes, 2)}, out;
    CHECK(call("reduced_lens", a, 2, &out));
    CHECK(ints_are(out, want, 3));
    static const int64_t out_of_range[] = {3};
    a[1] = ints(out_of_range, 1);
    CHECK(!call("reduced_lens", a, 2, &out));
}

static bool through(const int64_t *in, int nin, const int64_t *o, int nout, const int64_t *axes,
                    int naxes, rule_value *out)
{
    rule_value a[3] = {ints(in, nin), ints(o, nout), ints(axes, naxes)};
    return call("reduce_axes_through", a, 3, out);
}

static void test_reduce_axes_through(void)
{
    rule_value out;
    /* {2, 4, 3} -> {2, 12}: axis 1 of the result is axes {1, 2} of the operand */
    static const int64_t a_in[] = {2, 4, 3}, a_out[] = {2, 12}, a_ax[] = {1}, a_want[] = {1, 2};
    CHECK(through(a_in, 3, a_out, 2, a_ax, 1, &out));
    CHECK(ints_are(out, a_want, 2));
    /* {2, 12} -> {2, 3, 4}, reducing both split halves: axis 1 */
    static const int64_t b_in[] = {2, 12}, b_out[] = {2, 3, 4}, b_ax[] = {1, 2}, b_want[] = {1};
    CHECK(through(b_in, 2, b_out, 3, b_ax, 2, &out));
    CHECK(ints_are(out, b_want, 1));
    /* reducing half of a split axis is not expressible */
    static const int64_t c_ax[] = {2};
    CHECK(!through(b_in, 2, b_out, 3, c_ax, 1, &out));
    /* GroupNorm: {2, 320, 64, 64} -> {2, 32, 40960}, reduce axis 2: refused */
    static const int64_t g_in[] = {2, 320, 64, 64}, g_out[] = {2, 32, 40960}, g_ax[] = {2};
    CHECK(!through(g_in, 4, g_out, 3, g_ax, 1, &out));
    /* length-1 axes on either side do not disturb the groups */
    static const int64_t d_in[] = {6, 1, 4}, d_out[] = {2, 3, 4, 1}, d_ax[] = {2},
                         d_want[] = {2};
    CHECK(through(d_in, 3, d_out, 4, d_ax, 1, &out));
    CHECK(ints_are(out, d_want, 1));
    /* element counts that disagree */
    static const int64_t e_in[] = {2, 3}, e_out[] = {7}, e_ax[] = {0};
    CHECK(!through(e_in, 2, e_out, 1, e_ax, 1, &out));
}

static void test_zero_preserving_and_transparent(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    int64_t lens[] = {2, 3};
    shape sh = shape_standard(GRAFT_FLOAT, 2, lens);
    ins *x = module_add_param(m, "x", &sh);
    graft_error err = {0};
    ins *relu = module_add_op(m, "relu", NULL, 0, &x, 1, &err);
    ins *sig = module_add_op(m, "sigmoid", NULL, 0, &x, 1, &err);
    CHECK(relu && sig);
    rule_value out, a = {RV_INS, 0, {.in = relu}};
    CHECK(call("zero_preserving", &a, 1, &out) && out.u.i == 1);
    a.u.in = sig;
    CHECK(call("zero_preserving", &a, 1, &out) && out.u.i == 0);
    /* a pending op that only changes strides is transparent; one that
     * transposes is not */
    int64_t strides[] = {1, 2};
    shape col = sh;
    memcpy(col.strides, strides, sizeof strides);
    ins *layout = pending_insert(NULL, x, &col, NULL, 0, &err);
    CHECK(layout != NULL);
    a.u.in = layout;
    CHECK(call("transparent", &a, 1, &out) && out.u.i == 1);
    int64_t tl[] = {3, 2};
    shape t = shape_standard(GRAFT_FLOAT, 2, tl);
    int64_t perm[] = {1, 0};
    ins *tr = pending_insert(NULL, x, &t, perm, 2, &err);
    CHECK(tr != NULL);
    a.u.in = tr;
    CHECK(call("transparent", &a, 1, &out) && out.u.i == 0);
    a.u.in = relu;
    CHECK(call("transparent", &a, 1, &out) && out.u.i == 0);
    graph_free(g);
}

/* The view normal form's helpers (dsl/helpers_views.c). */
static void test_view_helpers(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    int64_t la[] = {2, 3}, lb[] = {3, 4};
    shape sa = shape_standard(GRAFT_FLOAT, 2, la), sb = shape_standard(GRAFT_FLOAT, 2, lb);
    ins *a = module_add_param(m, "a", &sa), *b = module_add_param(m, "b", &sb);
    graft_error err = {0};
    ins *ab[2] = {a, b};
    ins *d = module_add_op(m, "dot", NULL, 0, ab, 2, &err);
    ins *r = module_add_op(m, "relu", NULL, 0, &d, 1, &err);
    ins *n = module_add_op(m, "neg", NULL, 0, &a, 1, &err);
    CHECK(d && r && n);
    static const int64_t swap[] = {1, 0};
    attr pa = {"permutation", attr_ints(swap, 2)};
    ins *tr = module_add_op(m, "transpose", &pa, 1, &r, 1, &err);
    ins *t = module_add_op(m, "transpose", &pa, 1, &n, 1, &err);
    CHECK(tr && t);
    rule_value out, args[4] = {{RV_INS, 0, {.in = r}}, ints(swap, 2)};
    /* relu(dot), read by the transpose alone, absorbs it (into the dot);
     * neg(param) does not */
    CHECK(call("absorbs_transpose", args, 2, &out) && out.u.i == 1);
    args[0].u.in = n;
    CHECK(call("absorbs_transpose", args, 2, &out) && out.u.i == 0);
    /* a transpose the new one cancels absorbs it */
    args[0].u.in = t;
    CHECK(call("absorbs_transpose", args, 2, &out) && out.u.i == 1);
    /* axes_of: sorted {p[a]} */
    static const int64_t p3[] = {2, 0, 1}, a2[] = {0, 2}, want[] = {1, 2};
    args[0] = ints(p3, 3);
    args[1] = ints(a2, 2);
    CHECK(call("axes_of", args, 2, &out) && ints_are(out, want, 2));
    /* splits_axes: {2, 3, 4} splits {6, 4}; {1, 6, 4} only adds a 1 */
    static const int64_t c1[] = {2, 3, 4}, c2[] = {1, 6, 4}, l[] = {6, 4};
    args[0] = ints(c1, 3);
    args[1] = ints(l, 2);
    CHECK(call("splits_axes", args, 2, &out) && out.u.i == 1);
    args[0] = ints(c2, 3);
    CHECK(call("splits_axes", args, 2, &out) && out.u.i == 0);
    CHECK(call("unit_axes_only", args, 2, &out) && out.u.i == 1);
    /* broadcasts_to: {3} and {1, 3} go to {2, 1, 3}; {2, 1, 3} not to {1, 3},
     * {2, 3} not to {2, 1, 3} (aligned last: 2 against 1) */
    static const int64_t b3[] = {3}, b13[] = {1, 3}, b213[] = {2, 1, 3}, b23[] = {2, 3};
    args[0] = ints(b3, 1);
    args[1] = ints(b213, 3);
    CHECK(call("broadcasts_to", args, 2, &out) && out.u.i == 1);
    args[0] = ints(b13, 2);
    CHECK(call("broadcasts_to", args, 2, &out) && out.u.i == 1);
    args[0] = ints(b213, 3);
    args[1] = ints(b13, 2);
    CHECK(call("broadcasts_to", args, 2, &out) && out.u.i == 0);
    args[0] = ints(b23, 2);
    args[1] = ints(b213, 3);
    CHECK(call("broadcasts_to", args, 2, &out) && out.u.i == 0);
    /* reshape[w](reduce[2](reshape[z](y))) with w only adding a 1 */
    static const int64_t z[] = {2, 3, 4}, dl[] = {2, 3, 1}, w[] = {2, 1, 3, 1}, ax[] = {2};
    static const int64_t z2[] = {2, 1, 3, 4}, a3[] = {3};
    args[0] = ints(z, 3);
    args[1] = ints(dl, 3);
    args[2] = ints(w, 4);
    args[3] = ints(ax, 1);
    CHECK(call("unit_reshape_lens", args, 4, &out) && ints_are(out, z2, 4));
    CHECK(call("unit_reshape_axes", args, 4, &out) && ints_are(out, a3, 1));
    /* the cluster of neg(a), read by a transpose: a's lens */
    args[0].kind = RV_INS;
    args[0].u.in = n;
    CHECK(call("in_reshape_cluster", args, 1, &out) && out.u.i == 1);
    CHECK(call("cluster_lens", args, 1, &out) && ints_are(out, la, 2));
    graph_free(g);
}

/* all_equal(k, v) on literals of every layout: packed, broadcast (stride
 * 0: less memory than elements, answered from the memory), with holes
 * (more memory than elements: the walk), and 0 beside -0 (equal values,
 * different bytes). */
static void test_all_equal(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    int64_t lens[] = {4, 3}, bcast[] = {0, 1}, holes[] = {6, 2};
    shape packed = shape_standard(GRAFT_FLOAT, 2, lens);
    shape broadcast = shape_with_strides(GRAFT_FLOAT, 2, lens, bcast);
    shape gapped = shape_with_strides(GRAFT_FLOAT, 2, lens, holes);
    static const float zeros[12] = {0}, row[3] = {0, 1, 0}, signed_zeros[3] = {0, -0.0f, 0};
    static float gaps[24]; /* elements at even offsets, 5 between them */
    for (int k = 0; k < 24; k++)
        gaps[k] = k % 2 ? 5.0f : 2.0f;
    struct {
        const shape *sh;
        const float *data;
        double v;
        bool want;
    } cases[] = {
        {&packed, zeros, 0.0, true},       {&packed, zeros, 1.0, false},
        {&broadcast, zeros, 0.0, true},    {&broadcast, row, 0.0, false},
        {&broadcast, signed_zeros, 0.0, true}, {&gapped, gaps, 2.0, true},
        {&gapped, gaps, 5.0, false},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ins *k = module_add_literal(m, cases[c].sh, cases[c].data);
        CHECK(k != NULL);
        if (!k)
            continue;
        rule_value out, args[2] = {{RV_INS, 0, {.in = k}}, {RV_FLOAT, 0, {.f = cases[c].v}}};
        CHECK(call("all_equal", args, 2, &out));
        CHECK_INT(out.u.i, cases[c].want);
    }
    graph_free(g);
}

int main(void)
{
    arena_init(&mem);
    RUN(test_permuted);
    RUN(test_reduced_lens);
    RUN(test_reduce_axes_through);
    RUN(test_zero_preserving_and_transparent);
    RUN(test_view_helpers);
    RUN(test_all_equal);
    arena_free(&mem);
    return tests_finish();
}
