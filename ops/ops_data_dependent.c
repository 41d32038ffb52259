/* ops_data_dependent.c: ops whose true result length depends on the values
 * of their operand, not only its shape: unique and nonzero.
 *
 * graft's shapes are static, so each op has the static form of its result,
 * as long as the longest result could be, with the rows or columns past the
 * real result marked. Whoever needs the real length (the ONNX importer, from
 * an operand whose values it knows) runs the op once and slices the marked
 * part off; nonmaxsuppression (ops_vision.c) works the same way.
 *
 *   unique[axis, sorted](x): the distinct slices of x along axis (each slice
 *     is x with axis fixed at one position; slices compare element by
 *     element in row-major order, a NaN equal to a NaN and above every
 *     number). int64 [3, N], N = x's length on axis; with U distinct slices:
 *     row 0: for u < U, the position of the first occurrence of the u-th
 *       distinct slice, then -1;
 *     row 1: for each position j < N, the u of the slice at j;
 *     row 2: for u < U, how many positions hold the u-th slice, then 0.
 *     The u order is ascending (lexicographic) with sorted, else the order
 *     of first occurrence. ONNX's Unique is a gather of x at row 0's first U
 *     entries, and rows 0, 1 and 2 (indices, inverse_indices, counts).
 *   nonzero(x): the indices of x's nonzero elements in row-major order, one
 *     column per element: int64 [rank, elements]; column j < Z (Z nonzero
 *     elements) holds the j-th one's index on each axis, the columns after
 *     hold -1. MIGraphX's nonzero has this static shape too (it fills the
 *     rest with 0, which reads as element 0).
 */
#include "ops_util.h"

static bool unique_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *x = &call->inputs[0];
    int axis;
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), x->rank, &axis, err))
        return false;
    int64_t lens[2] = {3, x->lens[axis]};
    if (!ops_check_result_lens(call, lens, 2, err))
        return false;
    *out = shape_standard(GRAFT_INT64, 2, lens);
    return true;
}

static bool nonzero_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *x = &call->inputs[0];
    if (!ops_check_operand(call, 0, err))
        return false;
    int64_t lens[2] = {x->rank, shape_elements(x)};
    if (!ops_check_result_lens(call, lens, 2, err))
        return false;
    *out = shape_standard(GRAFT_INT64, 2, lens);
    return true;
}

static const attr_spec unique_attrs[] = {
    {"axis", ATTR_INT, OPS_DFLT_INT(0), false, NULL},
    {"sorted", ATTR_BOOL, OPS_DFLT_BOOL(1), false, NULL},
};

op_def ops_data_dependent_table[] = {
    {.name = "unique", .classes = OPC_COMPUTE, .min_args = 1, .max_args = 1,
     .attrs = unique_attrs, .nattrs = 2, .compute_shape = unique_shape},
    {.name = "nonzero", .classes = OPC_COMPUTE, .min_args = 1, .max_args = 1,
     .compute_shape = nonzero_shape},
};
const int ops_data_dependent_count =
    (int)(sizeof ops_data_dependent_table / sizeof ops_data_dependent_table[0]);
