/* helpers.c: the typed C helpers rules call, and their registry.
 *
 * Rules stay declarative by pushing the arithmetic of attributes (adding a
 * pad to a convolution's padding, composing permutations) and the questions
 * about values (is this literal all ones?) into small C functions with a
 * declared signature. Each helper takes and returns rule_values (dsl/api.h);
 * lists it returns are allocated from the graph's arena. A helper that cannot
 * answer returns false and the rule does not fire. The table at the bottom is
 * what the rule compiler checks calls against.
 */
#include "helpers.h"
#include "helpers_fuse.h"
#include "helpers_layout.h"
#include "helpers_reshape.h"
#include "helpers_views.h"

#include "ir.h"
#include "lazy_shapes.h"
#include "ops_util.h"
#include "shape.h"

#include <math.h>
#include <string.h>

static int64_t *new_ints(arena *mem, int n)
{
    return arena_alloc(mem, sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
}

static rule_value ints_value(const int64_t *v, int n)
{
    rule_value r = {RV_INTS, n, {.ints = v}};
    return r;
}

/* ---- permutations ---- */

static bool is_permutation(const int64_t *p, int n)
{
    if (n > SHAPE_MAX_RANK * 4)
        return false;
    bool seen[SHAPE_MAX_RANK * 4] = {false};
    for (int i = 0; i < n; i++) {
        if (p[i] < 0 || p[i] >= n || seen[p[i]])
            return false;
        seen[p[i]] = true;
    }
    return true;
}

/* is_identity(p): p is {0, 1, ..., n-1}. */
static bool helper_is_identity(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(ops_is_identity_permutation(a[0].u.ints, a[0].n));
    return true;
}

/* compose(inner, outer): the permutation of transpose(transpose(x, inner), outer). */
static bool helper_compose(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    const int64_t *inner = a[0].u.ints, *outer = a[1].u.ints;
    int k = a[0].n;
    if (a[1].n != k || !is_permutation(inner, k) || !is_permutation(outer, k))
        return false;
    int64_t *p = new_ints(mem, k);
    if (!p)
        return false;
    for (int i = 0; i < k; i++)
        p[i] = inner[outer[i]];
    *out = ints_value(p, k);
    return true;
}

/* invert(p): the permutation q with q[p[i]] = i. */
static bool helper_invert(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    int k = a[0].n;
    if (!is_permutation(a[0].u.ints, k))
        return false;
    int64_t *q = new_ints(mem, k);
    if (!q)
        return false;
    for (int i = 0; i < k; i++)
        q[a[0].u.ints[i]] = i;
    *out = ints_value(q, k);
    return true;
}

/* ---- padding ---- */

/* spatial_only(pads): a pad's pads ({begin per axis..., end per axis...})
 * touch no batch or channel axis (axes 0 and 1). */
static bool helper_spatial_only(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    int total = a[0].n;
    if (total % 2 != 0 || total < 6) {
        *out = rule_bool(false);
        return true;
    }
    int rank = total / 2;
    const int64_t *p = a[0].u.ints;
    *out = rule_bool(p[0] == 0 && p[1] == 0 && p[rank] == 0 && p[rank + 1] == 0);
    return true;
}

/* add_padding(padding, pads): a convolution's or pooling's padding (k
 * symmetric values or 2k {begins..., ends...}) plus the spatial part of a
 * pad's pads, as 2k values. Fails when the pad touches batch or channel axes
 * or the sizes disagree. */
static bool helper_add_padding(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    const int64_t *padding = a[0].u.ints, *pads = a[1].u.ints;
    int npadding = a[0].n, npads = a[1].n;
    if (npads % 2 != 0 || npads < 6)
        return false;
    int rank = npads / 2, k = rank - 2;
    if (pads[0] || pads[1] || pads[rank] || pads[rank + 1])
        return false;
    if (npadding != k && npadding != 2 * k)
        return false;
    int64_t *r = new_ints(mem, 2 * k);
    if (!r)
        return false;
    for (int i = 0; i < k; i++) {
        int64_t begin = padding[i];
        int64_t end = npadding == k ? padding[i] : padding[k + i];
        r[i] = begin + pads[2 + i];
        r[k + i] = end + pads[rank + 2 + i];
    }
    *out = ints_value(r, 2 * k);
    return true;
}

/* ---- lists ---- */

static bool helper_has_zero(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(ints_have_zero(a[0].u.ints, a[0].n));
    return true;
}

static bool helper_all_zero(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    bool z = true;
    for (int i = 0; i < a[0].n; i++)
        z = z && a[0].u.ints[i] == 0;
    *out = rule_bool(z);
    return true;
}

/* pads_within(pads, lengths): every spatial pad is smaller than the window
 * length on its axis, so no pooling window lies entirely in the padding.
 * pads is a pad's pads (2 * (k + 2) values: batch and channel axes first) or
 * a window padding of 2k values ({begins, ends}, as add_padding gives). */
static bool helper_pads_within(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    int total = a[0].n, k = a[1].n;
    if (total % 2 != 0 || (total / 2 != k + 2 && total / 2 != k))
        return false;
    int rank = total / 2, skip = rank - k;
    bool ok = true;
    for (int i = 0; i < k; i++)
        ok = ok && a[0].u.ints[skip + i] < a[1].u.ints[i] && a[0].u.ints[rank + skip + i] < a[1].u.ints[i];
    *out = rule_bool(ok);
    return true;
}

static bool helper_len(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_int(a[0].n);
    return true;
}

/* ---- instructions ---- */

/* Element i (in row-major order) of a literal, as a double. */
static bool literal_element(const ins *lit, int64_t i, double *out)
{
    const unsigned char *base = lit->data;
    int64_t off = shape_index_of_linear(&lit->sh, i);
    switch (lit->sh.type) {
    case GRAFT_FLOAT: { float v; memcpy(&v, base + off * 4, 4); *out = v; return true; }
    case GRAFT_DOUBLE: { double v; memcpy(&v, base + off * 8, 8); *out = v; return true; }
    case GRAFT_INT8: { int8_t v; memcpy(&v, base + off, 1); *out = v; return true; }
    case GRAFT_UINT8: { uint8_t v; memcpy(&v, base + off, 1); *out = v; return true; }
    case GRAFT_BOOL: { uint8_t v; memcpy(&v, base + off, 1); *out = v != 0; return true; }
    case GRAFT_INT16: { int16_t v; memcpy(&v, base + off * 2, 2); *out = v; return true; }
    case GRAFT_UINT16: { uint16_t v; memcpy(&v, base + off * 2, 2); *out = v; return true; }
    case GRAFT_INT32: { int32_t v; memcpy(&v, base + off * 4, 4); *out = v; return true; }
    case GRAFT_UINT32: { uint32_t v; memcpy(&v, base + off * 4, 4); *out = v; return true; }
    case GRAFT_INT64: { int64_t v; memcpy(&v, base + off * 8, 8); *out = (double)v; return true; }
    case GRAFT_UINT64: { uint64_t v; memcpy(&v, base + off * 8, 8); *out = (double)v; return true; }
    case GRAFT_HALF: {
        uint16_t h;
        memcpy(&h, base + off * 2, 2);
        int e = (h >> 10) & 0x1f, m = h & 0x3ff;
        double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
        *out = (h & 0x8000) ? -v : v;
        return true;
    }
    case GRAFT_BF16: {
        uint16_t h;
        memcpy(&h, base + off * 2, 2);
        uint32_t bits = (uint32_t)h << 16;
        float v;
        memcpy(&v, &bits, 4);
        *out = v;
        return true;
    }
    default:
        return false;
    }
}

/* all_equal(k, v): k is a literal whose every element equals v. */
static bool helper_all_equal(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *k = a[0].u.in;
    if (!k || !k->data || strcmp(k->op->name, "@literal") != 0) {
        *out = rule_bool(false);
        return true;
    }
    int64_t count = shape_elements(&k->sh);
    bool eq = count > 0;
    double first;
    if (eq && !literal_element(k, 0, &first))
        return false;
    eq = eq && first == a[1].u.f;
    /* Every element lies in the literal's memory, element_space elements:
     * memory whose bytes all repeat the first element's holds only that
     * value, so one memcmp of the data against itself shifted by one
     * element answers instead of a walk through shape_index_of_linear,
     * where that memory is no bigger than the elements (no holes; a
     * broadcast literal, stride 0, has less). Different bytes may still be
     * equal values (0 and -0): then the walk decides. */
    size_t size = type_size(k->sh.type);
    int64_t space = shape_element_space(&k->sh);
    if (eq && size && space >= 1 && space <= count) {
        const unsigned char *d = k->data;
        const unsigned char *at0 = d + (size_t)shape_index_of_linear(&k->sh, 0) * size;
        size_t bytes = (size_t)space * size;
        if (at0 == d && memcmp(d, d + size, bytes - size) == 0) {
            *out = rule_bool(true);
            return true;
        }
    }
    for (int64_t i = 1; eq && i < count; i++) {
        double v;
        if (!literal_element(k, i, &v))
            return false;
        eq = v == a[1].u.f;
    }
    *out = rule_bool(eq);
    return true;
}

static bool helper_is_literal(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(strcmp(a[0].u.in->op->name, "@literal") == 0);
    return true;
}

static bool helper_is_standard(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(shape_standard_p(&a[0].u.in->sh));
    return true;
}

static bool helper_is_broadcast(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(shape_broadcasted_p(&a[0].u.in->sh));
    return true;
}

static bool helper_is_scalar(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(shape_scalar_p(&a[0].u.in->sh));
    return true;
}

static bool helper_is_float(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(type_is_float(a[0].u.in->sh.type));
    return true;
}

static bool helper_same_shape(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(shape_equal(&a[0].u.in->sh, &a[1].u.in->sh));
    return true;
}

/* same_but_unit_strides(a, b): equal type and lens, and equal strides on
 * every axis longer than 1. The stride of a length-1 axis addresses no
 * second element, so two such shapes lay out the same elements at the same
 * offsets (squeeze(unsqueeze(x)) and its like may leave another stride
 * there than x's). */
static bool helper_same_but_unit_strides(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const shape *x = &a[0].u.in->sh, *y = &a[1].u.in->sh;
    bool same = x->type == y->type && x->type != GRAFT_TUPLE && shape_same_lens(x, y);
    for (int i = 0; same && i < x->rank; i++)
        if (x->lens[i] != 1 && x->strides[i] != y->strides[i])
            same = false;
    *out = rule_bool(same);
    return true;
}

static bool helper_same_lens(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(shape_same_lens(&a[0].u.in->sh, &a[1].u.in->sh));
    return true;
}

static bool helper_uses(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_int(a[0].u.in->nusers);
    return true;
}

/* never_negative(x): x's values cannot be negative because of the op that
 * computes it (relu, abs, exp, sigmoid, sqrt, ...: OPC_NEVER_NEGATIVE). */
static bool helper_never_negative(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool((a[0].u.in->op->classes & OPC_NEVER_NEGATIVE) != 0);
    return true;
}

/* ---- lazy shapes (rules/pending.rules) ---- */

/* transparent(p): p is a pending_shape_change that only changes the layout
 * (same type and lens as its operand, no permutation): every op computing on
 * logical values may read its operand directly. */
static bool helper_transparent(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(pending_is_transparent(a[0].u.in));
    return true;
}

/* permuted(v, p): {v[p[0]], v[p[1]], ...}: the lens of a transposed value
 * (permuted(x.lens, perm)) or where a transpose's axes come from
 * (permuted(perm, axes)). Fails when an index of p is outside v. */
static bool helper_permuted(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    const int64_t *v = a[0].u.ints, *p = a[1].u.ints;
    int k = a[1].n;
    int64_t *r = new_ints(mem, k);
    if (!r)
        return false;
    for (int i = 0; i < k; i++) {
        if (p[i] < 0 || p[i] >= a[0].n)
            return false;
        r[i] = v[p[i]];
    }
    *out = ints_value(r, k);
    return true;
}

/* ---- pointwise ops and zeros (rules/pad.rules) ---- */

/* zero_preserving(u): u is a one-operand pointwise op with u(0) = 0 for
 * every value of its attributes (OPC_ZERO_PRESERVING), so
 * u(pad(x, 0)) = pad(u(x), 0). convert counts: converting 0 to any element
 * type, bool included, gives that type's zero. */
static bool helper_zero_preserving(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *u = a[0].u.in;
    *out = rule_bool((u->op->classes & OPC_ZERO_PRESERVING) && u->nargs == 1);
    return true;
}

/* ---- reshapes and reductions (rules/reshape.rules) ---- */

/* reduced_lens(lens, axes): lens with every axis of axes set to 1 (the
 * shape a reduce_* op keeps). Fails on an axis out of range. */
static bool helper_reduced_lens(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    int rank = a[0].n;
    int64_t *r = new_ints(mem, rank);
    if (!r)
        return false;
    memcpy(r, a[0].u.ints, sizeof(int64_t) * (size_t)rank);
    for (int i = 0; i < a[1].n; i++) {
        int64_t ax = a[1].u.ints[i] < 0 ? a[1].u.ints[i] + rank : a[1].u.ints[i];
        if (ax < 0 || ax >= rank)
            return false;
        r[ax] = 1;
    }
    *out = ints_value(r, rank);
    return true;
}

/* reduce_axes_through(in_lens, out_lens, axes): see reduce_axes_map
 * (helpers_reshape.h). */
static bool helper_reduce_axes_through(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    int64_t r[SHAPE_MAX_RANK];
    int nr;
    if (!reduce_axes_map(a[0].u.ints, a[0].n, a[1].u.ints, a[1].n, a[2].u.ints, a[2].n, r, &nr))
        return false;
    int64_t *v = new_ints(mem, nr);
    if (!v)
        return false;
    memcpy(v, r, sizeof(int64_t) * (size_t)nr);
    *out = ints_value(v, nr);
    return true;
}

static const rule_helper helper_table[] = {
    {"is_identity", RV_BOOL, 1, {RV_INTS}, false, helper_is_identity,
     "is_identity(p): p is the identity permutation {0, 1, ..., n-1}"},
    {"compose", RV_INTS, 2, {RV_INTS, RV_INTS}, true, helper_compose,
     "compose(inner, outer): the permutation of transpose(transpose(x, inner), outer)"},
    {"invert", RV_INTS, 1, {RV_INTS}, true, helper_invert,
     "invert(p): the inverse permutation"},
    {"spatial_only", RV_BOOL, 1, {RV_INTS}, false, helper_spatial_only,
     "spatial_only(pads): a pad's pads leave batch and channel axes alone"},
    {"add_padding", RV_INTS, 2, {RV_INTS, RV_INTS}, true, helper_add_padding,
     "add_padding(padding, pads): window padding plus a pad's spatial pads, as {begins, ends}"},
    {"has_zero", RV_BOOL, 1, {RV_INTS}, false, helper_has_zero,
     "has_zero(v): some element of v is 0"},
    {"all_zero", RV_BOOL, 1, {RV_INTS}, false, helper_all_zero,
     "all_zero(v): every element of v is 0"},
    {"pads_within", RV_BOOL, 2, {RV_INTS, RV_INTS}, true, helper_pads_within,
     "pads_within(pads, lengths): each spatial pad (a pad's pads or a window padding) is shorter than the window on its axis"},
    {"len", RV_INT, 1, {RV_INTS}, false, helper_len, "len(v): number of elements of v"},
    {"all_equal", RV_BOOL, 2, {RV_INS, RV_FLOAT}, true, helper_all_equal,
     "all_equal(k, v): k is a literal whose every element equals v"},
    {"is_literal", RV_BOOL, 1, {RV_INS}, false, helper_is_literal, "is_literal(x): x is a @literal"},
    {"is_standard", RV_BOOL, 1, {RV_INS}, false, helper_is_standard,
     "is_standard(x): x's shape is standard (row-major, packed)"},
    {"is_broadcast", RV_BOOL, 1, {RV_INS}, false, helper_is_broadcast,
     "is_broadcast(x): x's shape has a stride-0 axis longer than 1 (a broadcast view)"},
    {"is_scalar", RV_BOOL, 1, {RV_INS}, false, helper_is_scalar,
     "is_scalar(x): x's shape is MIGraphX's scalar"},
    {"is_float", RV_BOOL, 1, {RV_INS}, false, helper_is_float,
     "is_float(x): x's type is a floating type (half, bf16, float, double)"},
    {"same_shape", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_same_shape,
     "same_shape(a, b): equal type, lens and strides"},
    {"same_lens", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_same_lens,
     "same_lens(a, b): equal lens"},
    {"same_but_unit_strides", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_same_but_unit_strides,
     "same_but_unit_strides(a, b): equal type and lens, equal strides on every axis longer than 1"},
    {"uses", RV_INT, 1, {RV_INS}, false, helper_uses, "uses(x): number of uses of x"},
    /* dsl/helpers_fuse.c: cost and policy of the fusion rules */
    {"pointwise_kernel", RV_BOOL, 1, {RV_INS}, false, helper_pointwise_kernel,
     "pointwise_kernel(x): x is a pointwise op, or a region of pointwise ops and literals"},
    {"one_kernel", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_one_kernel,
     "one_kernel(p, c): c reads p and both fit one pointwise, reduction or contraction kernel"},
    {"recomputed_in_kernel", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_recomputed_in_kernel,
     "recomputed_in_kernel(p, r): p joins contraction kernel r as a prologue computed again per read"},
    {"recompute_cost", RV_INT, 2, {RV_INS, RV_INS}, false, helper_recompute_cost,
     "recompute_cost(p, r): element operations recomputing p wherever r's contraction reads it costs"},
    {"contraction_flops", RV_INT, 1, {RV_INS}, false, helper_contraction_flops,
     "contraction_flops(x): operations of the convolutions and dots x is or holds"},
    {"after_contraction", RV_BOOL, 1, {RV_INS}, false, helper_after_contraction,
     "after_contraction(x): x is computed from a convolution or dot by pointwise ops and views"},
    {"tail_into_prologue", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_tail_into_prologue,
     "tail_into_prologue(p, c): region p's tail over its reductions, read only by c, fits c's contraction as a prologue"},
    {"split_bytes_saved", RV_INT, 2, {RV_INS, RV_INS}, false, helper_split_bytes_saved,
     "split_bytes_saved(p, c): memory traffic saved by computing p's tail again as c's prologue"},
    {"bytes_saved", RV_INT, 2, {RV_INS, RV_INS}, false, helper_bytes_saved,
     "bytes_saved(p, c): memory traffic saved by computing c in p's kernel"},
    {"recompute_flops", RV_INT, 1, {RV_INS}, false, helper_recompute_flops,
     "recompute_flops(p): element operations computing p again would cost"},
    {"broadcast_factor", RV_INT, 1, {RV_INS}, false, helper_broadcast_factor,
     "broadcast_factor(x): how many times a broadcast view reads each element of its operand"},
    /* dsl/helpers_layout.c: concats in place, pads as read predicates */
    {"concat_in_place_possible", RV_BOOL, 1, {RV_INS}, false, helper_concat_in_place_possible,
     "concat_in_place_possible(c): c's operands can be written into slices of its buffer"},
    {"read_predicate", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_read_predicate,
     "read_predicate(p, c): pad p, read only by c, can be a predicate on c's element reads"},
    {"never_negative", RV_BOOL, 1, {RV_INS}, false, helper_never_negative,
     "never_negative(x): x is computed by an op whose results are >= 0 (relu, abs, exp, ...)"},
    {"transparent", RV_BOOL, 1, {RV_INS}, false, helper_transparent,
     "transparent(p): p is a pending_shape_change that only changes the layout"},
    {"permuted", RV_INTS, 2, {RV_INTS, RV_INTS}, true, helper_permuted,
     "permuted(v, p): {v[p[0]], v[p[1]], ...}"},
    {"zero_preserving", RV_BOOL, 1, {RV_INS}, false, helper_zero_preserving,
     "zero_preserving(u): u is a one-operand pointwise op with u(0) = 0 (relu, leaky_relu, neg, ...)"},
    {"reduced_lens", RV_INTS, 2, {RV_INTS, RV_INTS}, true, helper_reduced_lens,
     "reduced_lens(lens, axes): lens with the reduced axes set to 1"},
    {"reduce_axes_through", RV_INTS, 3, {RV_INTS, RV_INTS, RV_INTS}, true, helper_reduce_axes_through,
     "reduce_axes_through(in_lens, out_lens, axes): the axes of in_lens a reduction over axes of the reshaped out_lens covers; fails when not expressible"},
    /* dsl/helpers_reshape.c: the common dims of a reshape's two sides */
    {"common_dims", RV_INTS, 2, {RV_INTS, RV_INTS}, true, helper_common_dims,
     "common_dims(a, b): the coarsest lens refining both a and b; fails when there are none"},
    {"view_in_common", RV_INTS, 2, {RV_INS, RV_INTS}, true, helper_view_in_common,
     "view_in_common(m, c): for a (multi)broadcast m of k, the lens kc with multibroadcast[c](reshape[kc](k)) = m in dims c"},
    {"own_view_in_common", RV_INTS, 2, {RV_INS, RV_INTS}, true, helper_own_view_in_common,
     "own_view_in_common(m, c): view_in_common(m, c), where a broadcast of one element keeps the lens of k, or of the value of c's rank below k's shape ops of one element, when they fit c's rank"},
    {"axes_in_common", RV_INTS, 3, {RV_INTS, RV_INTS, RV_INTS}, true, helper_axes_in_common,
     "axes_in_common(lens, axes, c): the axes of c that the axes of lens split into"},
    {"splits_reduced_axes", RV_BOOL, 3, {RV_INTS, RV_INTS, RV_INTS}, true, helper_splits_reduced_axes,
     "splits_reduced_axes(in_lens, out_lens, axes): a reduction over axes of out_lens covers part of an axis of in_lens"},
    /* dsl/helpers_views.c: the view normal form */
    {"absorbs_transpose", RV_BOOL, 2, {RV_INS, RV_INTS}, false, helper_absorbs_transpose,
     "absorbs_transpose(x, p): transpose[p] of x moves into x and disappears (into a dot, a transpose it cancels, a constant; through single-reader pointwise ops and reductions, or ops all of whose readers lead to transposes of p)"},
    {"absorbs_transpose_beside", RV_BOOL, 2, {RV_INS, RV_INTS}, false, helper_absorbs_transpose_beside,
     "absorbs_transpose_beside(x, p): absorbs_transpose(x, p) for an operand of a two-operand op that transpose[p] rises through: a chain of transposes below x's one-operand ops is asked composed"},
    {"axes_of", RV_INTS, 2, {RV_INTS, RV_INTS}, true, helper_axes_of,
     "axes_of(p, a): {p[a0], p[a1], ...} sorted: the axes a reduction over axes a of transpose[p](x) covers in x"},
    {"splits_axes", RV_BOOL, 2, {RV_INTS, RV_INTS}, false, helper_splits_axes,
     "splits_axes(c, lens): c refines lens and splits an axis into several longer than 1 (adding or removing 1s is no split)"},
    {"unit_axes_only", RV_BOOL, 2, {RV_INTS, RV_INTS}, false, helper_unit_axes_only,
     "unit_axes_only(a, b): a and b are equal but for length-1 axes"},
    {"copies_at_output", RV_BOOL, 3, {RV_INS, RV_INS, RV_INS}, false, helper_copies_at_output,
     "copies_at_output(b, x, y): b(mb(x), mb(y)) with its broadcasts merged below it would have other strides, which reach an output"},
    {"regroups_to_broadcast", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_regroups_to_broadcast,
     "regroups_to_broadcast(r, v): r = reshape(u(m)) or a shape op of m, m = multibroadcast(v) or multibroadcast(reshape(v)): m read in r's lens is v multibroadcast to r's lens"},
    {"broadcast_stays", RV_BOOL, 1, {RV_INS}, false, helper_broadcast_stays,
     "broadcast_stays(m): every reader of broadcast m is a dot or an output (nothing moves m further down)"},
    {"beside_broadcast_readers", RV_BOOL, 1, {RV_INS}, false, helper_beside_broadcast_readers,
     "beside_broadcast_readers(r): every reader of r is a dot, an output, or a two-operand op whose other operand is or becomes a stretching broadcast"},
    {"unary_of_stretching_broadcast", RV_BOOL, 1, {RV_INS}, false, helper_unary_of_stretching_broadcast,
     "unary_of_stretching_broadcast(x): x is a one-operand op (or a chain of them) of a stretching broadcast, which sinks below it by order"},
    {"folds_beside_values", RV_BOOL, 1, {RV_INS}, false, helper_folds_beside_values,
     "folds_beside_values(s): every reader of s is a two-operand op beside a full value, or a one-operand op or b(s, s) whose readers are, or the diamond b(u'(s), s)"},
    {"broadcast_twin_in", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_broadcast_twin_in,
     "broadcast_twin_in(m, x): m = multibroadcast(k), and another reader of k is a multibroadcast to x's lens"},
    {"unit_fold_readers", RV_BOOL, 1, {RV_INS}, false, helper_unit_fold_readers,
     "unit_fold_readers(r): every reader of r is a dot, a transpose read by dots, a pointwise op its cluster runs in r's lens, or a two-operand op beside a full value"},
    {"reshape_fold_fits", RV_BOOL, 1, {RV_INS}, false, helper_reshape_fold_fits,
     "reshape_fold_fits(r): r = reshape(u(mb(x))) folds into the multibroadcast on the fold's own terms (x, its rank), the readers not asked"},
    {"hoist_keeps_strides", RV_BOOL, 1, {RV_INS}, false, helper_hoist_keeps_strides,
     "hoist_keeps_strides(m): m = multibroadcast(b(..)): b on its operands multibroadcast to m's lens has m's strides (length-1 axes aside)"},
    {"reshape_copies_at_output", RV_BOOL, 1, {RV_INS}, false, helper_reshape_copies_at_output,
     "reshape_copies_at_output(m): m, a broadcast that stretches nothing, made a reshape would give a two-operand reader other strides, which reach an output"},
    {"folds_to_reshape", RV_BOOL, 1, {RV_INS}, false, helper_folds_to_reshape,
     "folds_to_reshape(m): broadcast or multibroadcast m stretches nothing over a standard value, composes with no broadcast below and copies at no output: multibroadcast_to_reshape and broadcast_to_reshape make it a reshape"},
    {"broadcast_merge_copies", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_broadcast_merge_copies,
     "broadcast_merge_copies(b, m): b with broadcast m (and the other operand's broadcast or broadcast literal) merged below it would have other strides, which reach an output"},
    {"copy_kept_beside", RV_BOOL, 1, {RV_INS}, false, helper_copy_kept_beside,
     "copy_kept_beside(r): r is a shape op of a value that is not standard, and r has another reader or another shape op reads that value"},
    {"read_by_dots_through_unary", RV_BOOL, 1, {RV_INS}, false, helper_read_by_dots_through_unary,
     "read_by_dots_through_unary(r): every reader of r is a dot, or a one-operand op whose readers are (through such ops)"},
    {"read_by_dots", RV_BOOL, 1, {RV_INS}, false, helper_read_by_dots,
     "read_by_dots(m): m has readers and every one is a dot"},
    {"dot_reads", RV_BOOL, 1, {RV_INS}, false, helper_dot_reads,
     "dot_reads(r): a dot reads r"},
    {"shares_reshape", RV_BOOL, 1, {RV_INS}, false, helper_shares_reshape,
     "shares_reshape(r): another shape op reads r's (standard) operand too"},
    {"shape_op_reads", RV_BOOL, 1, {RV_INS}, false, helper_shape_op_reads,
     "shape_op_reads(x): a shape op reads x"},
    {"beside_sinking_unary", RV_BOOL, 1, {RV_INS}, false, helper_beside_sinking_unary,
     "beside_sinking_unary(u): every reader of u is a two-operand op beside a one-operand op of a stretching broadcast read once"},
    {"split_strides_reach_output", RV_BOOL, 4, {RV_INS, RV_INS, RV_INTS, RV_INTS}, false, helper_split_strides_reach_output,
     "split_strides_reach_output(b, t, r, q): b(t[p](x), s[q](y)) written as s[q](b(t[r](x), y)) has other strides on an axis longer than 1, and b's strides reach an output"},
    {"computes_one_element", RV_BOOL, 1, {RV_INS}, false, helper_computes_one_element,
     "computes_one_element(x): x has one element, or is a view or pointwise op of such values"},
    {"has_no_lens_of_its_own", RV_BOOL, 1, {RV_INS}, false, helper_has_no_lens_of_its_own,
     "has_no_lens_of_its_own(x): x has more than one element and one reader, and computes one element"},
    {"literal_merges", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_literal_merges,
     "literal_merges(k, m): the literal merge (binary_above_*broadcast_literal_*) takes literal k beside broadcast m"},
    {"rises_above_reader", RV_BOOL, 1, {RV_INS}, false, helper_rises_above_reader,
     "rises_above_reader(r): r's one reader is a one-operand op that unary_above_reshape moves above r in every order"},
    {"reader_cluster_unsettled", RV_BOOL, 1, {RV_INS}, false, helper_reader_cluster_unsettled,
     "reader_cluster_unsettled(r): a reader of r is a cluster op whose cluster's sink or leaves still change: an aligned broadcast[axis] or a broadcast that merges reads the sink, or a leaf becomes a broadcast"},
    {"feeds_output", RV_BOOL, 1, {RV_INS}, false, helper_feeds_output,
     "feeds_output(x): x is read by the @return, an opaque op or a region (which keep the shapes they read)"},
    {"unit_reshape_lens", RV_INTS, 4, {RV_INTS, RV_INTS, RV_INTS, RV_INTS}, true, helper_unit_reshape_lens,
     "unit_reshape_lens(z, dl, w, axes): for reshape[w](reduce[axes](reshape[z](y))) with dl and w equal but for 1s, the lens z2 of reduce[a2](reshape[z2](y))"},
    {"unit_reshape_axes", RV_INTS, 4, {RV_INTS, RV_INTS, RV_INTS, RV_INTS}, true, helper_unit_reshape_axes,
     "unit_reshape_axes(z, dl, w, axes): the reduced axes a2 of the same"},
    {"unit_reshape_absorbs", RV_BOOL, 4, {RV_INTS, RV_INTS, RV_INTS, RV_INTS}, false, helper_unit_reshape_absorbs,
     "unit_reshape_absorbs(z, dl, w, axes): unit_reshape_lens succeeds (the reshape from dl to w keeps the reduced axes)"},
    {"lens_without_unit_axes", RV_INTS, 2, {RV_INTS, RV_INTS}, true, helper_lens_without_unit_axes,
     "lens_without_unit_axes(z, axes): z without the length-1 axes a reduction over axes does not reduce; fails when there are none"},
    {"axes_without_unit_axes", RV_INTS, 2, {RV_INTS, RV_INTS}, true, helper_axes_without_unit_axes,
     "axes_without_unit_axes(z, axes): the reduced axes renumbered for lens_without_unit_axes(z, axes)"},
    {"long_axes", RV_INTS, 2, {RV_INTS, RV_INTS}, true, helper_long_axes,
     "long_axes(lens, axes): the axes whose length in lens is not 1"},
    {"has_unit_axes", RV_BOOL, 2, {RV_INTS, RV_INTS}, false, helper_has_unit_axes,
     "has_unit_axes(z, axes): z has a length-1 axis that a reduction over axes does not reduce (lens_without_unit_axes(z, axes) succeeds)"},
    {"pointwise_read_past", RV_BOOL, 1, {RV_INS}, false, helper_pointwise_read_past,
     "pointwise_read_past(q): q is read once by a one-operand pointwise op (or a two-operand one reading it twice) whose one reader is no shape op"},
    {"pointwise_reshape_taken", RV_BOOL, 1, {RV_INS}, false, helper_pointwise_reshape_taken,
     "pointwise_reshape_taken(d): the reduction d is read by a one-operand pointwise op (or a two-operand one reading it twice) read by a reshape that only moves 1s and keeps the reduced axes"},
    {"waits_for_read_back", RV_BOOL, 1, {RV_INS}, false, helper_waits_for_read_back,
     "waits_for_read_back(r): r, a reshape of a broadcast m, is read back to m's lens through single-reader pointwise ops, and made a broadcast first it would keep a view (m a broadcast[axis], or kc not k's lens but for leading 1s); or r only adds 1s to m's lens and each reader, a pointwise op of r (and of a reshape of a value of m's lens), is reshaped back to m's lens"},
    {"reshaped_to", RV_INTS, 1, {RV_INS}, true, helper_reshaped_to,
     "reshaped_to(b): the lens of the reshape b's value reaches through single-reader one-operand pointwise ops; fails otherwise"},
    {"multibroadcast_below", RV_BOOL, 2, {RV_INS, RV_INT}, false, helper_multibroadcast_below,
     "multibroadcast_below(b, rank): b's value reaches a multibroadcast of at least rank through single-reader one-operand ops, b(v, v) and a first reader w(v, s) of b's own reshape operand s"},
    {"reshaped_back_outside", RV_BOOL, 2, {RV_INS, RV_INTS}, false, helper_reshaped_back_outside,
     "reshaped_back_outside(b, lens): the run of shape ops reshaped_to(b) finds ends in lens (or, read by no view or reduction, in other lens equal to lens but for 1s, b's broadcast operand needing no respelling; or no run, b itself in such lens, its broadcast operand shape ops of one element that the move drops), and no pointwise op reads its end (or b) but one already in its cluster's lens, and no reduction moves a one-op run below itself"},
    {"strictly_standard", RV_BOOL, 1, {RV_INS}, false, helper_strictly_standard,
     "strictly_standard(x): x's shape is exactly a reshape's (row-major strides, length-1 axes included)"},
    {"reshaped_back_for_keepers", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_reshaped_back_for_keepers,
     "reshaped_back_for_keepers(b, x): only ops that keep a broadcast as it is (dots, outputs), or pointwise ops already running in their cluster's lens that read no stretching broadcast and reach no reduction through shape ops, read the end of the run reshaped_to(b) finds (with the latter, x is no op beside a constant still to fold into a literal), and x is no one-operand op (or chain of them) of a stretching broadcast"},
    {"settled", RV_BOOL, 1, {RV_INS}, false, helper_settled,
     "settled(x): no reshape can still come out of x (it is not a shape op, a unary op of one, or a binary op of two)"},
    {"moves_unit_axes_only", RV_BOOL, 2, {RV_INTS, RV_INTS}, false, helper_moves_unit_axes_only,
     "moves_unit_axes_only(p, lens): transpose[p] keeps the order of the axes of lens longer than 1"},
    {"moves_beside", RV_BOOL, 2, {RV_INS, RV_INTS}, false, helper_moves_beside,
     "moves_beside(b, p): transpose[p] of b moves only length-1 axes to b's operand beside its inverse"},
    {"moves_beside_below", RV_BOOL, 3, {RV_INS, RV_INS, RV_INTS}, false, helper_moves_beside_below,
     "moves_beside_below(top, b, p): moves_beside, or with any permutation where top's layout reaches nothing"},
    {"layout_settles", RV_BOOL, 1, {RV_INS}, false, helper_layout_settles,
     "layout_settles(top): every reader of top is a dot or a two-operand op whose other operand is standard: top's layout reaches nothing"},
    {"moves_beside_now", RV_BOOL, 3, {RV_INS, RV_INS, RV_INTS}, false, helper_moves_beside_now,
     "moves_beside_now(top, b, p): moves_beside_below, with the beside rules' waits for a transpose of length-1 axes: top not taken as an inverse above, its reader not a transpose"},
    {"has_transpose", RV_BOOL, 2, {RV_INS, RV_INTS}, false, helper_has_transpose,
     "has_transpose(x, p): x is already read by a transpose with permutation p"},
    {"transposed_at_output", RV_BOOL, 2, {RV_INS, RV_INTS}, false, helper_transposed_at_output,
     "transposed_at_output(u, p): u reaches the @return through layout-only pending changes asking for transpose[p] of a standard value"},
    {"same_layout", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_same_layout,
     "same_layout(a, b): a and b have the same lens and the same strides on every axis longer than 1"},
    {"has_other_transpose", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_has_other_transpose,
     "has_other_transpose(x, t): x is read by a transpose of t's permutation other than t"},
    {"unary_read_back", RV_BOOL, 2, {RV_INS, RV_INTS}, false, helper_unary_read_back,
     "unary_read_back(x, p): x is read by a one-operand op read only by transpose[p]"},
    {"chain_read_back", RV_BOOL, 2, {RV_INS, RV_INTS}, false, helper_chain_read_back,
     "chain_read_back(x, p): x's single one-operand readers lead to a value read more than once, one reader transpose[p]"},
    {"transposed_sibling", RV_BOOL, 3, {RV_INS, RV_INS, RV_INTS}, false, helper_transposed_sibling,
     "transposed_sibling(x, u, p): x has a one-operand reader other than u, read only by one transpose with permutation p"},
    {"canonical_unit_permutation", RV_INTS, 2, {RV_INTS, RV_INTS}, true, helper_canonical_unit_permutation,
     "canonical_unit_permutation(p, lens): the permutation with transpose[p]'s lens and order of longer axes that keeps the length-1 axes in order"},
    {"cluster_lens", RV_INTS, 1, {RV_INS}, true, helper_cluster_lens,
     "cluster_lens(v): the lens pointwise op v's cluster runs in (fewest reshapes at its boundary); fails for clusters reading a broadcast"},
    {"reshapes_merge_at_reader", RV_BOOL, 1, {RV_INS}, false, helper_reshapes_merge_at_reader,
     "reshapes_merge_at_reader(r): r's only reader is a binary op whose other operand is a reshape (or a squeeze, unsqueeze or broadcast that becomes one) of a value of r's operand's lens (binary_above_reshapes merges them)"},
    {"in_reshape_cluster", RV_BOOL, 1, {RV_INS}, false, helper_in_reshape_cluster,
     "in_reshape_cluster(v): v is a pointwise op of a cluster with a lens (cluster_lens), or of one that reads a pending op (not known yet)"},
    {"broadcast_sinks_below", RV_BOOL, 1, {RV_INS}, false, helper_broadcast_sinks_below,
     "broadcast_sinks_below(u): u is a one-operand op of a stretching broadcast read once of a computed value, and u's readers take the layout (unary_above_*broadcast sinks it)"},
    {"reshape_to_one_broadcast", RV_BOOL, 1, {RV_INS}, false, helper_reshape_to_one_broadcast,
     "reshape_to_one_broadcast(r): r reshapes a broadcast[axis] that does not put its value's axes last (past a layout-only pending op read once) to lens that only add or drop length-1 axes outside its value's axes"},
    {"read_twice_only", RV_BOOL, 1, {RV_INS}, false, helper_read_twice_only,
     "read_twice_only(v): every reader of v (it has one) is a two-operand op b(v, v)"},
    {"broadcast_past_pending", RV_BOOL, 1, {RV_INS}, false, helper_broadcast_past_pending,
     "broadcast_past_pending(x): x is a broadcast, or a layout-only pending shape change read once of one (view_through_pending takes it away), or a two-operand op whose multibroadcasts merge into one"},
    {"standard_between_pending", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_standard_between_pending,
     "standard_between_pending(x, r): r, a view of x read by a layout-only pending op, is standard only until x, a pending op over a value that is not standard or a two-operand op whose multibroadcasts merge, goes"},
    {"is_plain_transpose", RV_BOOL, 1, {RV_INS}, false, helper_is_plain_transpose,
     "is_plain_transpose(x): x is a transpose of one operand (a transpose reading it composes with it in every order)"},
    {"transpose_read_once", RV_BOOL, 1, {RV_INS}, false, helper_transpose_read_once,
     "transpose_read_once(x): x is a transpose with one reader (a transpose moved onto it composes with it)"},
    {"transposes_settle_below", RV_BOOL, 1, {RV_INS}, false, helper_transposes_settle_below,
     "transposes_settle_below(u): u flows through single-reader transposes (composing to no identity), unary ops and layout-only pending shape changes to an end that reaches no output"},
    {"broadcast_view_computed", RV_BOOL, 2, {RV_INS, RV_INTS}, false, helper_broadcast_view_computed,
     "broadcast_view_computed(m, lens): the reshape of broadcast m to lens is a view, and a pointwise op of it is standard"},
    {"broadcast_view_lens", RV_INTS, 2, {RV_INS, RV_INTS}, true, helper_broadcast_view_lens,
     "broadcast_view_lens(m, lens): for a broadcast m of k that reshapes to lens as a view, kc with multibroadcast[lens](reshape[kc](k)) that view"},
    {"takes_broadcast_layout", RV_BOOL, 1, {RV_INS}, false, helper_takes_broadcast_layout,
     "takes_broadcast_layout(u): u's readers are pointwise ops whose result layout does not change if u's value is broadcast"},
    {"shape_chain_composes", RV_BOOL, 1, {RV_INS}, false, helper_shape_chain_composes,
     "shape_chain_composes(u): a reader of u begins a chain of shape ops read once (and b(w, w) ops the clusters run in u's lens) that composes away to u's lens through other lens"},
    {"shared_broadcast_splits", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_shared_broadcast_splits,
     "shared_broadcast_splits(m, b): m's readers other than b each take m away on their own"},
    {"shared_broadcast_rejoins", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_shared_broadcast_rejoins,
     "shared_broadcast_rejoins(m, b): m's readers other than b read m beside b's value, a diamond closing below b"},
    {"broadcast_cone_closes", RV_BOOL, 1, {RV_INS}, false, helper_broadcast_cone_closes,
     "broadcast_cone_closes(m): m's readers, one-operand ops, and the pointwise ops of m's lens that read only them and m are read outside at one op alone"},
    {"unary_chain_rejoins", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_unary_chain_rejoins,
     "unary_chain_rejoins(m, u): m's other reader is a two-operand op reading m beside u's value through one-operand ops"},
    {"twin_of", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_twin_of,
     "twin_of(x, m): x has a reader other than m of m's op and attributes, or a reader v(x), b(x, k) or b(x, unit reshape) read once by such a broadcast that may be hoisted"},
    {"twin_at", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_twin_at,
     "twin_at(x, m): x has a reader other than m of m's op and attributes"},
    {"twin_below", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_twin_below,
     "twin_below(x, m): x is a one-operand op, or a two-operand op of one value twice, read once, over a value broadcast as m elsewhere"},
    {"squeeze_read_by_binary", RV_BOOL, 1, {RV_INS}, false, helper_squeeze_read_by_binary,
     "squeeze_read_by_binary(r): r only drops length-1 axes and its one reader is a two-operand op beside a value that is no constant and no shape op or transpose that stays (other_operand_is_view), not read once by a broadcast, its value not reshaped back to r's operand's lens for a reader that keeps them (or a two-operand reader whose cluster nothing else takes to the squeezed lens)"},
    {"readers_in_cluster_lens", RV_BOOL, 1, {RV_INS}, false, helper_readers_in_cluster_lens,
     "readers_in_cluster_lens(r): r's readers keep a broadcast as it is, or are pointwise ops in r's lens that their cluster runs there"},
    {"standard_readers", RV_BOOL, 1, {RV_INS}, false, helper_standard_readers,
     "standard_readers(m): m's readers are two-operand ops whose other operand is standard and cannot become a broadcast"},
    {"hoist_readers", RV_BOOL, 1, {RV_INS}, false, helper_hoist_readers,
     "hoist_readers(m): standard_readers(m), or a reader's other operand is a multibroadcast whose lens never merge with m's operand's; a one-operand reader only where outputs and dots alone read it"},
    {"composes_into_reshape", RV_BOOL, 1, {RV_INS}, false, helper_composes_into_reshape,
     "composes_into_reshape(r): r is a reshape of a squeeze or unsqueeze of a broadcast, perhaps below a pending op reshape_of_pending takes (reshape_of_squeeze and reshape_of_unsqueeze compose them), or a reshape to y's own lens of a reshape of a standard y read by r alone (reshape_of_reshape composes them and reshape_to_same_shape removes the result)"},
    {"drops_to_shape", RV_BOOL, 1, {RV_INS}, false, helper_drops_to_shape,
     "drops_to_shape(x): x is a broadcast, multibroadcast or transpose to its operand's own shape (or a chain of them) over a shape op, which the fold rules leave"},
    {"becomes_broadcast", RV_BOOL, 1, {RV_INS}, false, helper_becomes_broadcast,
     "becomes_broadcast(r): r is a reshape of a broadcast that reshape_of_multibroadcast or reshape_of_broadcast turns into a broadcast"},
    {"reshaped_below", RV_BOOL, 1, {RV_INS}, false, helper_reshaped_below,
     "reshaped_below(b): b's value flows through single-reader pointwise ops into a shape op or a reduction"},
    {"reshaped_below_free", RV_BOOL, 1, {RV_INS}, false, helper_reshaped_below_free,
     "reshaped_below_free(b): reshaped_below(b), not past a two-operand op whose other operand is a computed value in the lens there"},
    {"regrouped_below", RV_BOOL, 2, {RV_INS, RV_INTS}, false, helper_regrouped_below,
     "regrouped_below(b, c): reshaped_below(b), where a shape chain that only inserts and removes 1s does not count, nor a reshape or op in lens that c does not refine"},
    {"reshaped_or_broadcast_below", RV_BOOL, 3, {RV_INS, RV_INTS, RV_INTS}, false, helper_reshaped_or_broadcast_below,
     "reshaped_or_broadcast_below(d, cd, c): d's value flows, through single-reader pointwise ops, into a shape op (to lens cd refines), a reduction or a broadcast (to lens c refines, which not only outputs read)"},
    {"transposes_merge", RV_BOOL, 4, {RV_INS, RV_INS, RV_INS, RV_INTS}, false, helper_transposes_merge,
     "transposes_merge(b, x, y, p): b(transpose[p](x), transpose[p](y)) merges into one transpose below b (neither absorbs it, or one only by rising to a dot)"},
    {"vanishes_past_reader", RV_BOOL, 1, {RV_INS}, false, helper_vanishes_past_reader,
     "vanishes_past_reader(t): transpose t, read once by a two-operand op of its lens, would vanish below (vanishes_below's walk) were it moved below that op"},
    {"settles_past_reader", RV_BOOL, 1, {RV_INS}, false, helper_settles_past_reader,
     "settles_past_reader(t): vanishes_past_reader(t), or the merged transpose would move only length-1 axes past the reduction further down"},
    {"settles_below", RV_BOOL, 1, {RV_INS}, false, helper_settles_below,
     "settles_below(t): vanishes_below(t), or t reaches a reduction by the same walk after which it moves only length-1 axes into other lens"},
    {"vanishes_below", RV_BOOL, 1, {RV_INS}, false, helper_vanishes_below,
     "vanishes_below(t): transpose t reaches, through single-reader unary ops (and binary ops whose other operand is the same, a constant, a transpose or a dot cone that gives the sinking transpose a transpose of its permutation to merge with: a dot whose output_permutation is it or that the cone rules rewrite to one, or a transpose of it), a reduction after which it moves only length-1 axes"},
    {"vanishes_composed_below", RV_BOOL, 1, {RV_INS}, false, helper_vanishes_composed_below,
     "vanishes_composed_below(t): vanishes_below(t), or past a reduction (or from a t that reads one) t meets a chain of transposes (and one-operand pointwise ops) it composes with into a permutation of length-1 axes of the reduced lens"},
    {"folds_into_operand", RV_BOOL, 1, {RV_INS}, false, helper_folds_into_operand,
     "folds_into_operand(t): transpose t composes with a transpose below it, or goes into a permuted dot read once (the fold and pending rules' guards)"},
    {"dot_permutation_vanishes", RV_BOOL, 1, {RV_INS}, false, helper_dot_permutation_vanishes,
     "dot_permutation_vanishes(d): d's output_permutation, as a transpose of the plain product, would vanish below a reduction (vanishes_below)"},
    {"beside_twins_sibling", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_beside_twins_sibling,
     "beside_twins_sibling(t, x): t's binary reader reads beside t a transpose of t's permutation of x, a reduction whose operand absorbs it"},
    {"beside_twins_move", RV_BOOL, 1, {RV_INS}, false, helper_beside_twins_move,
     "beside_twins_move(t): t moves beside onto the operand its sibling transpose at its reader transposes"},
    {"transpose_composes_below", RV_BOOL, 1, {RV_INS}, false, helper_transpose_composes_below,
     "transpose_composes_below(t): transpose t reads a transpose, or a binary op whose transposed operands merge into one (binary_above_transposes), and composes with it"},
    {"merges_at_reader", RV_BOOL, 1, {RV_INS}, false, helper_merges_at_reader,
     "merges_at_reader(t): transpose t meets one of the same permutation at a binary reader, and binary_above_transposes merges them"},
    {"transposed_back_below", RV_BOOL, 1, {RV_INS}, false, helper_transposed_back_below,
     "transposed_back_below(t): t has several readers, each a transpose that undoes t or reaching one through single-reader pointwise ops and transposes that compose"},
    {"cone_reduced_permutation", RV_INTS, 1, {RV_INS}, false, helper_cone_reduced_permutation,
     "cone_reduced_permutation(d): dot d's output_permutation made canonical (reduced_canonical_permutation) for a reduction it reaches through single-reader pointwise ops"},
    {"reduced_canonical_permutation", RV_INTS, 3, {RV_INTS, RV_INTS, RV_INTS}, true, helper_reduced_canonical_permutation,
     "reduced_canonical_permutation(q, lens, axes): q with the sources of the positions of length 1 after the reduction (reduced or of length-1 axes) in increasing order"},
    {"composes_at_reader", RV_BOOL, 1, {RV_INS}, false, helper_composes_at_reader,
     "composes_at_reader(t): t is a transpose whose only reader is a transpose (transpose_of_transpose composes them)"},
    {"cancels_at_reader", RV_BOOL, 1, {RV_INS}, false, helper_cancels_at_reader,
     "cancels_at_reader(t): t and the transposes above it (read once; through unary ops) compose into the identity"},
    {"risen_into", RV_BOOL, 1, {RV_INS}, false, helper_risen_into,
     "risen_into(t): t's only reader is a pointwise op read once by a transpose that rises back through it"},
    {"reader_risen_into", RV_BOOL, 1, {RV_INS}, false, helper_reader_risen_into,
     "reader_risen_into(u): u's only reader is a transpose t with risen_into(t)"},
    {"transposed_readers", RV_BOOL, 1, {RV_INS}, false, helper_transposed_readers,
     "transposed_readers(u): u has several readers, all transposes"},
    {"into_transposed_readers", RV_BOOL, 1, {RV_INS}, false, helper_into_transposed_readers,
     "into_transposed_readers(t): t's only reader is a one-operand pointwise op whose several readers are all transposes"},
    {"rejoins_below", RV_BOOL, 1, {RV_INS}, false, helper_rejoins_below,
     "rejoins_below(t): the readers of the shared transpose t meet again at one pointwise op of transposed values"},
    {"rejoins_shared", RV_BOOL, 1, {RV_INS}, false, helper_rejoins_shared,
     "rejoins_shared(t2): t2 = transpose(u(x)) (or transpose(b(x, x))) is a copy of x's shared transpose sunk below u, whose readers rejoin"},
    {"reader_reads", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_reader_reads,
     "reader_reads(u, t): u's only reader reads t too"},
    {"composes_through_readers", RV_BOOL, 2, {RV_INS, RV_INS}, false, helper_composes_through_readers,
     "composes_through_readers(v, t): v is read once, through one-operand ops each read once, by a transpose, and the transposes met on up (past reductions and ops where they merge) compose with it into one that does something; t moves longer axes and reads no transpose"},
    {"rises_to_shared_through", RV_BOOL, 1, {RV_INS}, false, helper_rises_to_shared_through,
     "rises_to_shared_through(t): t = transpose[p](u(x)) rises op by op through one-operand ops read once to a transpose of p the graph already has"},
    {"read_once_by_twins", RV_BOOL, 1, {RV_INS}, false, helper_read_once_by_twins,
     "read_once_by_twins(v): v has one reader, or its readers are all transposes of one permutation (twins that CSE makes one)"},
    {"rises_to_shared_at", RV_BOOL, 1, {RV_INS}, false, helper_rises_to_shared_at,
     "rises_to_shared_at(t): t rises through one-operand ops (rises_to_shared_through) or above b(x, x) to a transpose of its permutation the graph already has"},
    {"meets_transpose_past_operand", RV_BOOL, 1, {RV_INS}, false, helper_meets_transpose_past_operand,
     "meets_transpose_past_operand(t): t transposes a one-operand op read by t alone, and either the op reads a transpose read once that unary_above_transpose sinks below it (the two compose), or transpose_above_unary_shared raises t above it to a transpose the graph already has"},
    {"shared_by_rising", RV_BOOL, 1, {RV_INS}, false, helper_shared_by_rising,
     "shared_by_rising(t): a sibling reduction's transpose of t's permutation rises to t's transpose"},
    {"duplicated_transpose", RV_BOOL, 1, {RV_INS}, false, helper_duplicated_transpose,
     "duplicated_transpose(t): t's operand has another transpose reader with t's permutation"},
    {"broadcast_axis_after", RV_INT, 2, {RV_INS, RV_INTS}, true, helper_broadcast_axis_after,
     "broadcast_axis_after(b, lens): the axis of one broadcast[axis, lens] equal to multibroadcast[lens](b) for b a broadcast; fails when none"},
    {"broadcast_axis_reshaped", RV_INT, 2, {RV_INS, RV_INTS}, true, helper_broadcast_axis_reshaped,
     "broadcast_axis_reshaped(m, lens): the axis of one broadcast[axis, lens](k) equal to reshape[lens](m) for m = broadcast[axis](k); fails when none"},
    {"broadcast_axis_within", RV_INT, 1, {RV_INS}, true, helper_broadcast_axis_within,
     "broadcast_axis_within(o): the axis of one broadcast[axis, o.lens] equal to o = broadcast[axis](broadcast[axis](x)); fails when none"},
    {"reduce_moves_below", RV_BOOL, 3, {RV_INTS, RV_INTS, RV_INTS}, false, helper_reduce_moves_below,
     "reduce_moves_below(x_lens, r_lens, axes): reduce_below_reshape moves a reshape from x_lens to r_lens below a reduction over axes"},
    {"in_cluster_lens", RV_BOOL, 1, {RV_INS}, false, helper_in_cluster_lens,
     "in_cluster_lens(x): x is no cluster op, or already runs in the lens cluster_lens gives it; and no binary op whose two reshapes binary_above_reshapes* moves above it"},
    {"unit_drop_taken_into_reduction", RV_BOOL, 1, {RV_INS}, false, helper_unit_drop_taken_into_reduction,
     "unit_drop_taken_into_reduction(q): q only drops 1s of a reduction of a reshape that reshape_of_reduce_of_reshape composes it into"},
    {"reshape_moves_below_reader", RV_BOOL, 1, {RV_INS}, false, helper_reshape_moves_below_reader,
     "reshape_moves_below_reader(q): q's only reader is a reduction that moves q below itself"},
    {"unit_binary_run_above", RV_BOOL, 1, {RV_INS}, false, helper_unit_binary_run_above,
     "unit_binary_run_above(r): r's operand is reached from a two-operand op of a one-element value and a reshape of a value of r's lens"},
    {"result_reshape_moves", RV_BOOL, 1, {RV_INS}, false, helper_result_reshape_moves,
     "result_reshape_moves(d): d is read only by a reshape read by a pointwise op not yet in its cluster's lens"},
    {"composes_below", RV_BOOL, 1, {RV_INS}, false, helper_composes_below,
     "composes_below(r): shape op r (of standard result) is read by a shape op it composes with, a transpose, or a pointwise op its cluster moves into other lens"},
    {"same_but_leading_ones", RV_BOOL, 2, {RV_INTS, RV_INTS}, false, helper_same_but_leading_ones,
     "same_but_leading_ones(a, b): lens a and b are equal once their leading 1s are dropped"},
    {"without_leading_ones", RV_INTS, 1, {RV_INTS}, false, helper_without_leading_ones,
     "without_leading_ones(a): lens a without its leading 1s"},
    {"has_reshape_to", RV_BOOL, 2, {RV_INS, RV_INTS}, false, helper_has_reshape_to,
     "has_reshape_to(y, l): a reshape of y to lens l reads y already"},
    {"with_leading_ones", RV_INTS, 2, {RV_INTS, RV_INT}, false, helper_with_leading_ones,
     "with_leading_ones(a, n): lens a with 1s put in front up to rank n"},
    {"unit_reshape_below", RV_BOOL, 1, {RV_INS}, false, helper_unit_reshape_below,
     "unit_reshape_below(m): multibroadcast m reads a reshape that only adds or drops leading 1s beyond what m does itself, or a reduction with leading 1s that reduce_below_reshape makes such a reshape"},
    {"reduction_of_reshape", RV_BOOL, 1, {RV_INS}, false, helper_reduction_of_reshape,
     "reduction_of_reshape(x): x is a reduction of a shape op, a one-operand pointwise op of one, or a two-operand one reading one twice"},
    {"reduction_takes_reshape", RV_BOOL, 1, {RV_INS}, false, helper_reduction_takes_reshape,
     "reduction_takes_reshape(x): reduction_of_reshape(x), except a reduction itself whose view has other readers"},
    {"chain_read_beside_values", RV_BOOL, 1, {RV_INS}, false, helper_chain_read_beside_values,
     "chain_read_beside_values(r): every reader of the last reshape of the chain from r is a two-operand op beside a value that is no constant"},
    {"dropped_below", RV_BOOL, 1, {RV_INS}, false, helper_dropped_below,
     "dropped_below(r): every reader of r is a multibroadcast (or a broadcast[axis] that aligned_broadcast_to_multibroadcast makes one) for which unit_reshape_below holds"},
    {"composes_with_broadcast", RV_BOOL, 1, {RV_INS}, false, helper_composes_with_broadcast,
     "composes_with_broadcast(m): m is a multibroadcast of a broadcast that multibroadcast_of_broadcast composes with it, or of a binary op whose broadcasts merge into one first, or of a unary op whose broadcast sinks below it (through a layout-only pending op)"},
    {"pointwise_below_views", RV_BOOL, 1, {RV_INS}, false, helper_pointwise_below_views,
     "pointwise_below_views(x): x, through shape views, transposes and pending ops, is a pointwise op of one or two operands"},
    {"read_once_by_broadcast", RV_BOOL, 1, {RV_INS}, false, helper_read_once_by_broadcast,
     "read_once_by_broadcast(v): v's one reader is a broadcast or multibroadcast"},
    {"broadcast_composes_below", RV_BOOL, 1, {RV_INS}, false, helper_broadcast_composes_below,
     "broadcast_composes_below(m): broadcast or multibroadcast m is read by a multibroadcast that composes with it, or m is a multibroadcast of a unary op whose broadcast sinks below it"},
    {"broadcasts_to", RV_BOOL, 2, {RV_INTS, RV_INTS}, false, helper_broadcasts_to,
     "broadcasts_to(a, b): a multibroadcast takes lens a to lens b (aligned to the last axes, each axis equal or 1)"},
    {"is_constant", RV_BOOL, 1, {RV_INS}, false, helper_is_constant,
     "is_constant(x): x is a literal or an op of at most 4096 elements computed from literals only (constant folding turns it into one literal)"},
    {"broadcast_axes", RV_INTS, 3, {RV_INS, RV_INTS, RV_INT}, true, helper_broadcast_axes,
     "broadcast_axes(k, lens, axis): the axes of k holding stride-0 copies of a value of lens placed at axis (-1: aligned last); fails unless there are some and k holds one value along each (stride 0, or a literal's repeated elements)"},
};

const rule_helper *rule_helpers(int *count)
{
    *count = (int)(sizeof helper_table / sizeof helper_table[0]);
    return helper_table;
}

const rule_helper *rule_helper_find(const char *name)
{
    int n;
    const rule_helper *h = rule_helpers(&n);
    for (int i = 0; i < n; i++)
        if (strcmp(h[i].name, name) == 0)
            return &h[i];
    return NULL;
}
