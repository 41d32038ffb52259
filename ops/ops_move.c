/* ops_move.c: ops that copy data into a new buffer: contiguous, layout, pad,
 * concat and gather.
 *
 * These are the fills and copies the fusion rules try to remove (seed 002),
 * so their rules say exactly which layout the copy produces: contiguous gives
 * a standard result, layout the memory order its permutation names, pad and
 * concat keep the stride order of their inputs (MIGraphX's with_lens and
 * find_permutation), gather a standard result.
 */
#include "ops_util.h"

static bool contiguous_shape(const op_call *call, shape *out, graft_error *err)
{
    (void)err;
    *out = shape_as_standard(&call->inputs[0]);
    return true;
}

static bool layout_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    int n = 0;
    const int64_t *perm = op_attr_ints(call, "permutation", &n);
    if (!ops_is_permutation(perm, n, in->rank)) {
        char buf[200];
        return error_set(err, "layout: permutation %s is not a permutation of %d axes",
                         ops_ints_text(perm, n, buf, sizeof buf), in->rank);
    }
    int order[SHAPE_MAX_RANK];
    for (int i = 0; i < n; i++)
        order[i] = (int)perm[i];
    *out = shape_from_permutation(in->type, in->rank, in->lens, order);
    return true;
}

/* pads is ONNX's [begin_0 .. begin_n-1, end_0 .. end_n-1]. */
static bool pad_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    int n = 0;
    const int64_t *pads = op_attr_ints(call, "pads", &n);
    char buf[200];
    if (n != 2 * in->rank)
        return error_set(err, "pad: pads %s has %d entries; an operand of rank %d needs %d",
                         ops_ints_text(pads, n, buf, sizeof buf), n, in->rank, 2 * in->rank);
    int64_t mode = op_attr_int(call, "mode");
    if (mode < 0 || mode > 2)
        return error_set(err, "pad: mode %lld is not constant (0), reflect (1) or edge (2)",
                         (long long)mode);
    int64_t lens[SHAPE_MAX_RANK];
    for (int a = 0; a < in->rank; a++) {
        int64_t b = pads[a], e = pads[a + in->rank];
        if (b < 0 || e < 0)
            return error_set(err, "pad: pads %s has a negative entry",
                             ops_ints_text(pads, n, buf, sizeof buf));
        if (__builtin_add_overflow(in->lens[a], b, &lens[a]) ||
            __builtin_add_overflow(lens[a], e, &lens[a]))
            return error_set(err, "pad: pads %s are too large",
                             ops_ints_text(pads, n, buf, sizeof buf));
    }
    if (!ops_check_result_lens(call, lens, in->rank, err))
        return false;
    *out = shape_with_lens(in, in->rank, lens);
    return true;
}

static bool concat_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *first = &call->inputs[0];
    int axis;
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), first->rank, &axis, err) ||
        !ops_check_same_type(call, 0, call->ninputs, err))
        return false;
    int64_t lens[SHAPE_MAX_RANK];
    for (int a = 0; a < first->rank; a++)
        lens[a] = first->lens[a];
    lens[axis] = 0;
    for (int k = 0; k < call->ninputs; k++) {
        const shape *s = &call->inputs[k];
        bool fits = s->rank == first->rank;
        for (int a = 0; fits && a < s->rank; a++)
            fits = a == axis || s->lens[a] == first->lens[a];
        if (!fits) {
            char x[200], y[200];
            return error_set(err, "concat: operand %d %s does not match %s outside axis %d", k,
                             ops_lens_text(s, x, sizeof x), ops_lens_text(first, y, sizeof y),
                             axis);
        }
        if (__builtin_add_overflow(lens[axis], s->lens[axis], &lens[axis]))
            return error_set(err, "concat: the result is too large");
    }
    if (!ops_check_result_lens(call, lens, first->rank, err))
        return false;
    int perm[SHAPE_MAX_RANK];
    ops_common_permutation(call->inputs, call->ninputs, perm);
    *out = shape_from_permutation(first->type, first->rank, lens, perm);
    return true;
}

/* gather(data, indices): data's axis is replaced by the indices' axes; a
 * scalar index removes the axis. */
static bool gather_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *data = &call->inputs[0], *idx = &call->inputs[1];
    int axis;
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), data->rank, &axis, err))
        return false;
    if (!type_is_integer(idx->type) || idx->type == GRAFT_BOOL)
        return error_set(err, "gather: indices must be integers, not %s", type_name(idx->type));
    int idx_rank = shape_scalar_p(idx) ? 0 : idx->rank;
    int rank = data->rank - 1 + idx_rank;
    if (rank > SHAPE_MAX_RANK)
        return error_set(err, "gather: the result would have rank %d; at most %d is supported",
                         rank, SHAPE_MAX_RANK);
    if (rank == 0) {
        *out = shape_scalar(data->type);
        return true;
    }
    int64_t lens[SHAPE_MAX_RANK];
    int r = 0;
    for (int a = 0; a < axis; a++)
        lens[r++] = data->lens[a];
    for (int a = 0; a < idx_rank; a++)
        lens[r++] = idx->lens[a];
    for (int a = axis + 1; a < data->rank; a++)
        lens[r++] = data->lens[a];
    if (!ops_check_result_lens(call, lens, rank, err))
        return false;
    *out = shape_standard(data->type, rank, lens);
    return true;
}

static const char *const pad_mode_names[] = {"constant", "reflect", "edge", NULL};
static const attr_spec layout_attrs[] = {
    {"permutation", ATTR_INTS, OPS_DFLT_NO_INTS, true, NULL},
};
static const attr_spec pad_attrs[] = {
    {"mode", ATTR_INT, OPS_DFLT_INT(0), false, pad_mode_names},
    {"pads", ATTR_INTS, OPS_DFLT_NO_INTS, true, NULL},
    {"value", ATTR_FLOAT, OPS_DFLT_FLOAT(0.0), false, NULL},
};
static const attr_spec axis0_attrs[] = {
    {"axis", ATTR_INT, OPS_DFLT_INT(0), false, NULL},
};
/* in_place (graft extension, ops/concat_in_place.h): the operands are
 * written into slices of the output by their producers; no copy kernel. */
static const attr_spec concat_attrs[] = {
    {"axis", ATTR_INT, OPS_DFLT_INT(0), false, NULL},
    {"in_place", ATTR_BOOL, OPS_DFLT_BOOL(0), false, NULL},
};

op_def ops_move_table[] = {
    {.name = "contiguous", .classes = OPC_MOVE | OPC_COPY, .min_args = 1, .max_args = 1,
     .compute_shape = contiguous_shape},
    {.name = "layout", .classes = OPC_MOVE | OPC_COPY, .min_args = 1, .max_args = 1, .attrs = layout_attrs,
     .nattrs = 1, .compute_shape = layout_shape},
    {.name = "pad", .classes = OPC_MOVE | OPC_FILL, .min_args = 1, .max_args = 1, .attrs = pad_attrs,
     .nattrs = 3, .compute_shape = pad_shape},
    {.name = "concat", .classes = OPC_MOVE | OPC_COPY, .min_args = 1, .max_args = -1, .attrs = concat_attrs,
     .nattrs = 2, .compute_shape = concat_shape},
    {.name = "gather", .classes = OPC_MOVE, .min_args = 2, .max_args = 2, .attrs = axis0_attrs,
     .nattrs = 1, .compute_shape = gather_shape},
};
const int ops_move_count = (int)(sizeof ops_move_table / sizeof ops_move_table[0]);
