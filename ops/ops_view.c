/* ops_view.c: ops that change how data is seen, not the data itself.
 *
 * transpose, broadcast, multibroadcast, slice, squeeze, unsqueeze, flatten and
 * reshape_lazy are views (OPC_VIEW): their result aliases operand 0, so their
 * rules compute strides over the operand's memory, as MIGraphX does: a
 * transpose permutes lens and strides, a broadcast gives stride 0 to the axes
 * it adds, a slice keeps the strides (the kernel adds the data offset, see
 * ops_slice_bounds). reshape is MIGraphX's copying reshape: its result is
 * always standard. reshape_lazy, flatten and the squeezes are views only
 * where the new lens can be expressed on the old strides; reshape_lazy and
 * flatten fail where they cannot (MIGraphX then needs a contiguous first).
 */
#include "ops_util.h"

#include <string.h>

/* ---- shared: lens lists from attributes ---- */

static bool check_out_lens(const op_call *call, const char *what, const int64_t *lens, int n,
                           graft_error *err)
{
    char buf[200];
    if (n < 1 || n > SHAPE_MAX_RANK)
        return error_set(err, "%s: %s %s has %d entries; 1 to %d are supported", call->op->name,
                         what, ops_ints_text(lens, n, buf, sizeof buf), n, SHAPE_MAX_RANK);
    for (int i = 0; i < n; i++)
        if (lens[i] < 0)
            return error_set(err, "%s: %s %s has a negative length", call->op->name, what,
                             ops_ints_text(lens, n, buf, sizeof buf));
    return ops_check_result_lens(call, lens, n, err);
}

static bool check_no_dyn_dims(const op_call *call, graft_error *err)
{
    int n = 0;
    op_attr_ints(call, "out_dyn_dims", &n);
    if (n != 0)
        return error_set(err, "%s: out_dyn_dims (dynamic shapes) are not supported",
                         call->op->name);
    return true;
}

/* Strides that let `in`'s memory be read with the new lens, without a copy;
 * false when no such strides exist. Groups of old axes whose product equals a
 * group of new axes must be contiguous among themselves; the new axes of the
 * group then split the innermost old stride. Length-1 axes are free. */
static bool view_strides(const shape *in, int rank, const int64_t *lens, int64_t *strides)
{
    if (shape_standard_p(in) || shape_elements(in) == 0) {
        shape_compute_strides(rank, lens, strides);
        return true;
    }
    if (!shape_regroup_strides(in, rank, lens, strides))
        return false;
    /* A length-1 axis takes the stride a row-major layout would give it. */
    int64_t inner = 1;
    for (int a = rank - 1; a >= 0; a--) {
        if (lens[a] == 1)
            strides[a] = inner;
        else
            inner = strides[a] * lens[a];
    }
    return true;
}

/* Resolves reshape dims: 0 copies the operand's length at that index, one -1
 * takes what is left. */
static bool resolve_dims(const op_call *call, const shape *in, int64_t *lens, int *rank,
                         graft_error *err)
{
    const char *name = call->op->name;
    int n = 0;
    const int64_t *dims = op_attr_ints(call, "dims", &n);
    char buf[200], buf2[200];
    if (n < 1 || n > SHAPE_MAX_RANK)
        return error_set(err, "%s: dims %s has %d entries; 1 to %d are supported", name,
                         ops_ints_text(dims, n, buf, sizeof buf), n, SHAPE_MAX_RANK);
    int infer = -1;
    int64_t known = 1;
    for (int i = 0; i < n; i++) {
        int64_t d = dims[i];
        if (d == -1) {
            if (infer >= 0)
                return error_set(err, "%s: dims %s has more than one -1", name,
                                 ops_ints_text(dims, n, buf, sizeof buf));
            infer = i;
            lens[i] = 1;
            continue;
        }
        if (d == 0) {
            if (i >= in->rank)
                return error_set(err, "%s: dims %s copies axis %d with 0 but the operand has rank %d",
                                 name, ops_ints_text(dims, n, buf, sizeof buf), i, in->rank);
            d = in->lens[i];
        } else if (d < 0) {
            return error_set(err, "%s: dims %s has the negative length %lld", name,
                             ops_ints_text(dims, n, buf, sizeof buf), (long long)d);
        }
        lens[i] = d;
        if (__builtin_mul_overflow(known, d, &known))
            return error_set(err, "%s: dims %s has too many elements", name,
                             ops_ints_text(dims, n, buf, sizeof buf));
    }
    int64_t elements = shape_elements(in);
    if (infer >= 0) {
        if (known == 0 || elements % known != 0)
            return error_set(err, "%s: cannot infer the -1 in dims %s for an operand of %lld elements %s",
                             name, ops_ints_text(dims, n, buf, sizeof buf), (long long)elements,
                             ops_lens_text(in, buf2, sizeof buf2));
        lens[infer] = elements / known;
        known = elements;
    }
    if (known != elements)
        return error_set(err, "%s: dims %s give %lld elements but the operand %s has %lld", name,
                         ops_ints_text(dims, n, buf, sizeof buf), (long long)known,
                         ops_lens_text(in, buf2, sizeof buf2), (long long)elements);
    *rank = n;
    return ops_check_result_lens(call, lens, n, err);
}

/* ---- rules ---- */

static bool transpose_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    int n = 0;
    const int64_t *perm = op_attr_ints(call, "permutation", &n);
    if (!ops_is_permutation(perm, n, in->rank)) {
        char buf[200];
        return error_set(err, "%s: permutation %s is not a permutation of %d axes",
                         call->op->name, ops_ints_text(perm, n, buf, sizeof buf), in->rank);
    }
    int64_t lens[SHAPE_MAX_RANK], strides[SHAPE_MAX_RANK];
    for (int i = 0; i < n; i++) {
        lens[i] = in->lens[perm[i]];
        strides[i] = in->strides[perm[i]];
    }
    *out = shape_with_strides(in->type, n, lens, strides);
    return true;
}

/* broadcast: the operand's axes land at `axis` of the target lens; every
 * other axis gets stride 0. The target is out_lens, or operand 1's lens. */
static bool broadcast_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    int n = 0;
    const int64_t *target;
    if (call->ninputs == 2) {
        target = call->inputs[1].lens;
        n = call->inputs[1].rank;
    } else {
        target = op_attr_ints(call, "out_lens", &n);
        if (!check_no_dyn_dims(call, err) || !check_out_lens(call, "out_lens", target, n, err))
            return false;
    }
    int64_t axis = op_attr_int(call, "axis");
    char a[200], b[200];
    if (axis < 0 || axis >= n)
        return error_set(err, "broadcast: axis %lld is out of range for out_lens %s",
                         (long long)axis, ops_ints_text(target, n, a, sizeof a));
    if (n - axis < in->rank)
        return error_set(err, "broadcast: operand %s does not fit in out_lens %s at axis %lld",
                         ops_lens_text(in, a, sizeof a), ops_ints_text(target, n, b, sizeof b),
                         (long long)axis);
    int64_t strides[SHAPE_MAX_RANK] = {0};
    for (int i = 0; i < in->rank; i++) {
        if (target[axis + i] != in->lens[i])
            return error_set(err, "broadcast: operand %s does not match out_lens %s at axis %lld",
                             ops_lens_text(in, a, sizeof a), ops_ints_text(target, n, b, sizeof b),
                             (long long)axis);
        strides[axis + i] = in->strides[i];
    }
    *out = shape_with_strides(in->type, n, target, strides);
    return true;
}

/* numpy-style: the operand is aligned to the right of the target; an axis of
 * length 1 stretches with stride 0, and new leading axes get stride 0. */
static bool broadcast_to(const op_call *call, const shape *in, const int64_t *target, int n,
                         shape *out, graft_error *err)
{
    if (!shape_lens_broadcast_to(in->lens, in->rank, target, n)) {
        char a[200], b[200];
        return error_set(err, "%s: operand %s cannot be broadcast to %s", call->op->name,
                         ops_lens_text(in, a, sizeof a), ops_ints_text(target, n, b, sizeof b));
    }
    int off = n - in->rank;
    int64_t strides[SHAPE_MAX_RANK] = {0};
    for (int i = 0; i < in->rank; i++)
        strides[off + i] = in->lens[i] == target[off + i] ? in->strides[i] : 0;
    *out = shape_with_strides(in->type, n, target, strides);
    return true;
}

static bool multibroadcast_shape(const op_call *call, shape *out, graft_error *err)
{
    if (call->ninputs == 1) {
        int n = 0;
        const int64_t *target = op_attr_ints(call, "out_lens", &n);
        if (!check_no_dyn_dims(call, err) || !check_out_lens(call, "out_lens", target, n, err))
            return false;
        return broadcast_to(call, &call->inputs[0], target, n, out, err);
    }
    /* Several operands: the common lens of them all, operand 0 broadcast to it. */
    int rank = 0;
    for (int k = 0; k < call->ninputs; k++)
        if (call->inputs[k].rank > rank)
            rank = call->inputs[k].rank;
    int64_t common[SHAPE_MAX_RANK];
    for (int i = 0; i < rank; i++)
        common[i] = 1;
    for (int k = 0; k < call->ninputs; k++) {
        const shape *s = &call->inputs[k];
        int off = rank - s->rank;
        for (int i = 0; i < s->rank; i++) {
            int64_t len = s->lens[i], *c = &common[off + i];
            if (len == *c || len == 1)
                continue;
            if (*c != 1) {
                char a[200], b[200];
                return error_set(err, "multibroadcast: operand %s does not broadcast with %s",
                                 ops_lens_text(s, a, sizeof a),
                                 ops_ints_text(common, rank, b, sizeof b));
            }
            *c = len;
        }
    }
    if (!ops_check_result_lens(call, common, rank, err))
        return false;
    return broadcast_to(call, &call->inputs[0], common, rank, out, err);
}

static bool reshape_shape(const op_call *call, shape *out, graft_error *err)
{
    int64_t lens[SHAPE_MAX_RANK];
    int rank;
    if (!resolve_dims(call, &call->inputs[0], lens, &rank, err))
        return false;
    *out = shape_standard(call->inputs[0].type, rank, lens);
    return true;
}

static bool view_as(const op_call *call, const int64_t *lens, int rank, shape *out,
                    graft_error *err)
{
    const shape *in = &call->inputs[0];
    int64_t strides[SHAPE_MAX_RANK];
    if (!view_strides(in, rank, lens, strides)) {
        char a[200], b[200], c[200];
        return error_set(err, "%s: operand %s with strides %s cannot be viewed as %s without a copy",
                         call->op->name, ops_lens_text(in, a, sizeof a),
                         ops_ints_text(in->strides, in->rank, b, sizeof b),
                         ops_ints_text(lens, rank, c, sizeof c));
    }
    *out = shape_with_strides(in->type, rank, lens, strides);
    return true;
}

static bool reshape_lazy_shape(const op_call *call, shape *out, graft_error *err)
{
    int64_t lens[SHAPE_MAX_RANK];
    int rank;
    if (!resolve_dims(call, &call->inputs[0], lens, &rank, err))
        return false;
    return view_as(call, lens, rank, out, err);
}

static bool flatten_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    int64_t axis = op_attr_int(call, "axis");
    if (axis < -(int64_t)in->rank || axis > in->rank)
        return error_set(err, "flatten: axis %lld is out of range for rank %d", (long long)axis,
                         in->rank);
    if (axis < 0)
        axis += in->rank;
    int64_t lens[2];
    if (!ops_lens_product(in->lens, (int)axis, &lens[0]) ||
        !ops_lens_product(in->lens + axis, in->rank - (int)axis, &lens[1]))
        return error_set(err, "flatten: too many elements");
    return view_as(call, lens, 2, out, err);
}

static bool squeeze_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    int n = 0, axes[SHAPE_MAX_RANK], naxes = 0;
    const int64_t *given = op_attr_ints(call, "axes", &n);
    if (!ops_normalize_axes(call, "axes", given, n, in->rank, axes, &naxes, err))
        return false;
    bool drop[SHAPE_MAX_RANK] = {false};
    for (int i = 0; i < naxes; i++) {
        if (in->lens[axes[i]] != 1) {
            char buf[200];
            return error_set(err, "squeeze: axis %d of %s has length %lld, not 1", axes[i],
                             ops_lens_text(in, buf, sizeof buf), (long long)in->lens[axes[i]]);
        }
        drop[axes[i]] = true;
    }
    if (naxes == 0)
        for (int a = 0; a < in->rank; a++)
            drop[a] = in->lens[a] == 1;
    int64_t lens[SHAPE_MAX_RANK], strides[SHAPE_MAX_RANK];
    int rank = 0;
    for (int a = 0; a < in->rank; a++)
        if (!drop[a]) {
            lens[rank] = in->lens[a];
            strides[rank++] = in->strides[a];
        }
    *out = rank == 0 ? shape_scalar(in->type) : shape_with_strides(in->type, rank, lens, strides);
    return true;
}

/* unsqueeze inserts length-1 axes at `axes` (positions in the result). With
 * `steps`, the inserted axis instead takes `step` elements split off the
 * operand axis that follows it: {3, 4, 10} with axes {2}, steps {2} gives
 * {3, 4, 2, 5}. */
static bool unsqueeze_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    int n = 0, nsteps = 0, axes[SHAPE_MAX_RANK], naxes = 0;
    const int64_t *given = op_attr_ints(call, "axes", &n);
    const int64_t *steps = op_attr_ints(call, "steps", &nsteps);
    int rank = in->rank + n;
    if (rank > SHAPE_MAX_RANK)
        return error_set(err, "unsqueeze: the result would have rank %d; at most %d is supported",
                         rank, SHAPE_MAX_RANK);
    if (nsteps > n)
        return error_set(err, "unsqueeze: %d steps for %d axes", nsteps, n);
    if (!ops_normalize_axes(call, "axes", given, n, rank, axes, &naxes, err))
        return false;
    int64_t old_lens[SHAPE_MAX_RANK], lens[SHAPE_MAX_RANK], strides[SHAPE_MAX_RANK];
    memcpy(old_lens, in->lens, sizeof old_lens);
    int p = 0;
    for (int i = 0; i < rank; i++) {
        int which = -1;
        for (int k = 0; k < naxes; k++)
            if (axes[k] == i)
                which = k;
        if (which < 0) {
            lens[i] = old_lens[p];
            strides[i] = in->strides[p++];
            continue;
        }
        int64_t step = which < nsteps ? steps[which] : 1;
        if (step < 1)
            return error_set(err, "unsqueeze: step %lld must be positive", (long long)step);
        lens[i] = step;
        if (p < in->rank) {
            if (old_lens[p] % step != 0)
                return error_set(err, "unsqueeze: axis of length %lld is not divisible by step %lld",
                                 (long long)old_lens[p], (long long)step);
            old_lens[p] /= step;
            strides[i] = in->strides[p] * old_lens[p];
        } else {
            if (step != 1)
                return error_set(err, "unsqueeze: step %lld given for a trailing axis; it must be 1",
                                 (long long)step);
            strides[i] = 1;
        }
    }
    *out = shape_with_strides(in->type, rank, lens, strides);
    return true;
}

static bool slice_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    int64_t starts[SHAPE_MAX_RANK], counts[SHAPE_MAX_RANK];
    if (!ops_slice_bounds(call, in, starts, counts, err))
        return false;
    *out = shape_with_strides(in->type, in->rank, counts, in->strides);
    return true;
}

/* ---- the table ---- */

static const attr_spec transpose_attrs[] = {
    {"permutation", ATTR_INTS, OPS_DFLT_NO_INTS, true, NULL},
};
static const attr_spec broadcast_attrs[] = {
    {"axis", ATTR_INT, OPS_DFLT_INT(0), false, NULL},
    {"out_lens", ATTR_INTS, OPS_DFLT_NO_INTS, false, NULL},
    {"out_dyn_dims", ATTR_INTS, OPS_DFLT_NO_INTS, false, NULL},
};
static const attr_spec multibroadcast_attrs[] = {
    {"out_lens", ATTR_INTS, OPS_DFLT_NO_INTS, false, NULL},
    {"out_dyn_dims", ATTR_INTS, OPS_DFLT_NO_INTS, false, NULL},
};
static const attr_spec reshape_attrs[] = {
    {"dims", ATTR_INTS, OPS_DFLT_NO_INTS, true, NULL},
};
static const attr_spec axes_attrs[] = {
    {"axes", ATTR_INTS, OPS_DFLT_NO_INTS, false, NULL},
};
static const attr_spec unsqueeze_attrs[] = {
    {"axes", ATTR_INTS, OPS_DFLT_NO_INTS, false, NULL},
    {"steps", ATTR_INTS, OPS_DFLT_NO_INTS, false, NULL},
};
static const attr_spec flatten_attrs[] = {
    {"axis", ATTR_INT, OPS_DFLT_INT(1), false, NULL},
};
static const attr_spec slice_attrs[] = {
    {"axes", ATTR_INTS, OPS_DFLT_NO_INTS, false, NULL},
    {"starts", ATTR_INTS, OPS_DFLT_NO_INTS, true, NULL},
    {"ends", ATTR_INTS, OPS_DFLT_NO_INTS, true, NULL},
};

op_def ops_view_table[] = {
    {.name = "transpose", .classes = OPC_VIEW, .min_args = 1, .max_args = 1,
     .attrs = transpose_attrs, .nattrs = 1, .compute_shape = transpose_shape},
    {.name = "broadcast", .classes = OPC_VIEW, .min_args = 1, .max_args = 2,
     .attrs = broadcast_attrs, .nattrs = 3, .compute_shape = broadcast_shape},
    {.name = "multibroadcast", .classes = OPC_VIEW, .min_args = 1, .max_args = -1,
     .attrs = multibroadcast_attrs, .nattrs = 2, .compute_shape = multibroadcast_shape},
    {.name = "reshape", .classes = OPC_SHAPE, .min_args = 1, .max_args = 1,
     .attrs = reshape_attrs, .nattrs = 1, .compute_shape = reshape_shape},
    {.name = "reshape_lazy", .classes = OPC_VIEW | OPC_SHAPE, .min_args = 1, .max_args = 1,
     .attrs = reshape_attrs, .nattrs = 1, .compute_shape = reshape_lazy_shape},
    {.name = "squeeze", .classes = OPC_VIEW | OPC_SHAPE, .min_args = 1, .max_args = 1,
     .attrs = axes_attrs, .nattrs = 1, .compute_shape = squeeze_shape},
    {.name = "unsqueeze", .classes = OPC_VIEW | OPC_SHAPE, .min_args = 1, .max_args = 1,
     .attrs = unsqueeze_attrs, .nattrs = 2, .compute_shape = unsqueeze_shape},
    {.name = "flatten", .classes = OPC_VIEW | OPC_SHAPE, .min_args = 1, .max_args = 1,
     .attrs = flatten_attrs, .nattrs = 1, .compute_shape = flatten_shape},
    {.name = "slice", .classes = OPC_VIEW, .min_args = 1, .max_args = 1, .attrs = slice_attrs,
     .nattrs = 3, .compute_shape = slice_shape},
};
const int ops_view_count = (int)(sizeof ops_view_table / sizeof ops_view_table[0]);
