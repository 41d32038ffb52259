/* ops_reduce.c: reductions and the ops that reduce along one axis.
 *
 * reduce_sum/mean/max/min/prod keep the rank: each reduced axis becomes 1 and
 * the result keeps the input's stride order (MIGraphX's with_lens), so a
 * reduction over an NHWC tensor stays NHWC. `axes` may be negative; an empty
 * list reduces every axis. softmax and logsoftmax keep the input's shape
 * (a non-packed input gives a standard result); argmax/argmin give int64
 * indices with the axis reduced to 1, in a standard layout.
 */
#include "ops_util.h"

static bool reduce_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    bool reduced[SHAPE_MAX_RANK];
    if (!ops_reduce_axes(call, in->rank, reduced, err))
        return false;
    int64_t lens[SHAPE_MAX_RANK];
    for (int a = 0; a < in->rank; a++)
        lens[a] = reduced[a] ? 1 : in->lens[a];
    *out = shape_with_lens(in, in->rank, lens);
    return true;
}

static bool softmax_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    int axis;
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), in->rank, &axis, err))
        return false;
    *out = shape_packed_p(in) ? *in : shape_as_standard(in);
    return true;
}

static bool arg_reduce_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    int axis;
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), in->rank, &axis, err))
        return false;
    if (in->lens[axis] == 0) /* no element, so no index to give */
        return error_set(err, "%s: axis %d has length 0", call->op->name, axis);
    int64_t lens[SHAPE_MAX_RANK];
    for (int a = 0; a < in->rank; a++)
        lens[a] = a == axis ? 1 : in->lens[a];
    *out = shape_standard(GRAFT_INT64, in->rank, lens);
    return true;
}

static const attr_spec reduce_attrs[] = {
    {"axes", ATTR_INTS, OPS_DFLT_NO_INTS, false, NULL},
};
static const attr_spec softmax_attrs[] = {
    {"axis", ATTR_INT, OPS_DFLT_INT(1), false, NULL},
};
static const attr_spec arg_reduce_attrs[] = {
    {"axis", ATTR_INT, OPS_DFLT_INT(0), false, NULL},
    {"select_last_index", ATTR_BOOL, OPS_DFLT_BOOL(0), false, NULL},
};

#define REDUCE_OP(nm)                                                                             \
    {.name = nm, .classes = OPC_REDUCE, .min_args = 1, .max_args = 1, .attrs = reduce_attrs,      \
     .nattrs = 1, .compute_shape = reduce_shape}

op_def ops_reduce_table[] = {
    REDUCE_OP("reduce_sum"),
    REDUCE_OP("reduce_mean"),
    REDUCE_OP("reduce_max"),
    REDUCE_OP("reduce_min"),
    REDUCE_OP("reduce_prod"),
    {.name = "softmax", .classes = OPC_COMPUTE, .min_args = 1, .max_args = 1,
     .attrs = softmax_attrs, .nattrs = 1, .compute_shape = softmax_shape},
    {.name = "logsoftmax", .classes = OPC_COMPUTE, .min_args = 1, .max_args = 1,
     .attrs = softmax_attrs, .nattrs = 1, .compute_shape = softmax_shape},
    {.name = "argmax", .classes = OPC_COMPUTE, .min_args = 1, .max_args = 1,
     .attrs = arg_reduce_attrs, .nattrs = 2, .compute_shape = arg_reduce_shape},
    {.name = "argmin", .classes = OPC_COMPUTE, .min_args = 1, .max_args = 1,
     .attrs = arg_reduce_attrs, .nattrs = 2, .compute_shape = arg_reduce_shape},
};
const int ops_reduce_count = (int)(sizeof ops_reduce_table / sizeof ops_reduce_table[0]);
