/* ops_linalg.c: det, the determinant of each square matrix in the last two
 * axes (ONNX Det; MIGraphX has no such op). [..., M, M] gives [...]; one
 * matrix gives a one-element result {1}. Float types only.
 */
#include "ops_util.h"

static bool det_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    char buf[200];
    if (in->rank < 2 || in->lens[in->rank - 1] != in->lens[in->rank - 2])
        return error_set(err, "det: operand %s is not a stack of square matrices",
                         ops_lens_text(in, buf, sizeof buf));
    if (!type_is_float(in->type))
        return error_set(err, "det: operand must be floating point, not %s", type_name(in->type));
    if (in->lens[in->rank - 1] > 4096)
        return error_set(err, "det: matrices of %lld rows are too large",
                         (long long)in->lens[in->rank - 1]);
    int64_t one = 1;
    *out = in->rank == 2 ? shape_standard(in->type, 1, &one)
                         : shape_standard(in->type, in->rank - 2, in->lens);
    return true;
}

op_def ops_linalg_table[] = {
    {.name = "det", .classes = OPC_COMPUTE, .min_args = 1, .max_args = 1,
     .compute_shape = det_shape},
};
const int ops_linalg_count = (int)(sizeof ops_linalg_table / sizeof ops_linalg_table[0]);
