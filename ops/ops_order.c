/* ops_order.c: ops that run along one axis in order: prefix_scan_sum
 * (MIGraphX's op for ONNX CumSum) and topk_indices.
 *
 *   prefix_scan_sum[axis, exclusive, reverse](x): running sums along axis;
 *     exclusive leaves the element itself out, reverse runs from the back.
 *     Same lens and type, standard.
 *   topk_indices[k, axis, largest](x): along axis, the positions of the k
 *     largest (or smallest) elements, best first; equal values keep their
 *     order (the lower position first), and a NaN counts as larger than
 *     any number. int64, x's lens with axis k long. MIGraphX's topk yields
 *     a (values, indices) tuple; graft's importer takes the values with
 *     gather_elements instead, so neither op needs a tuple.
 */
#include "ops_util.h"

static bool prefix_scan_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    int axis;
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), in->rank, &axis, err))
        return false;
    *out = shape_standard(in->type, in->rank, in->lens);
    return true;
}

static bool topk_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    int axis;
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), in->rank, &axis, err))
        return false;
    int64_t k = op_attr_int(call, "k");
    if (k < 1 || k > in->lens[axis])
        return error_set(err, "topk_indices: k %lld is not in 1..%lld, the length of axis %d",
                         (long long)k, (long long)in->lens[axis], axis);
    int64_t lens[SHAPE_MAX_RANK];
    for (int a = 0; a < in->rank; a++)
        lens[a] = a == axis ? k : in->lens[a];
    *out = shape_standard(GRAFT_INT64, in->rank, lens);
    return true;
}

static const attr_spec prefix_scan_attrs[] = {
    {"axis", ATTR_INT, OPS_DFLT_INT(0), false, NULL},
    {"exclusive", ATTR_BOOL, OPS_DFLT_BOOL(0), false, NULL},
    {"reverse", ATTR_BOOL, OPS_DFLT_BOOL(0), false, NULL},
};
static const attr_spec topk_attrs[] = {
    {"k", ATTR_INT, OPS_DFLT_INT(1), false, NULL},
    {"axis", ATTR_INT, OPS_DFLT_INT(-1), false, NULL},
    {"largest", ATTR_BOOL, OPS_DFLT_BOOL(1), false, NULL},
};

op_def ops_order_table[] = {
    {.name = "prefix_scan_sum", .classes = OPC_COMPUTE, .min_args = 1, .max_args = 1,
     .attrs = prefix_scan_attrs, .nattrs = 3, .compute_shape = prefix_scan_shape},
    {.name = "topk_indices", .classes = OPC_COMPUTE, .min_args = 1, .max_args = 1,
     .attrs = topk_attrs, .nattrs = 3, .compute_shape = topk_shape},
};
const int ops_order_count = (int)(sizeof ops_order_table / sizeof ops_order_table[0]);
