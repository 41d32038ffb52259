/* ops_signal.c: dft, the discrete Fourier transform along one axis (ONNX
 * DFT; MIGraphX has no such op).
 *
 * dft[axis, inverse, onesided, length](x [..., 1 or 2]): the last axis holds
 * a real value, or a (real, imaginary) pair; the transform runs along
 * `axis` (not the last), over `length` points (0: the axis' own length;
 * shorter truncates, longer pads with zeros). The result's last axis is 2
 * (complex); with onesided only the first length / 2 + 1 frequencies are
 * kept. inverse computes the inverse transform, scaled by 1 / length.
 */
#include "ops_util.h"

static bool dft_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    char buf[200];
    int r = in->rank, axis;
    if (r < 2 || (in->lens[r - 1] != 1 && in->lens[r - 1] != 2))
        return error_set(err, "dft: operand %s must end in an axis of 1 (real) or 2 (complex)",
                         ops_lens_text(in, buf, sizeof buf));
    if (!type_is_float(in->type))
        return error_set(err, "dft: operand must be floating point, not %s", type_name(in->type));
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), r, &axis, err))
        return false;
    if (axis == r - 1)
        return error_set(err, "dft: axis %d is the real/imaginary axis", axis);
    int64_t length = op_attr_int(call, "length");
    /* the reference kernel is a direct O(length^2) transform */
    if (length < 0 || length > (1 << 16))
        return error_set(err, "dft: length %lld is out of range (at most 65536)",
                         (long long)length);
    if (length == 0)
        length = in->lens[axis];
    if (length > (1 << 16))
        return error_set(err, "dft: %lld points are too many (at most 65536)", (long long)length);
    int64_t lens[SHAPE_MAX_RANK];
    for (int a = 0; a < r; a++)
        lens[a] = in->lens[a];
    lens[axis] = op_attr_int(call, "onesided") ? length / 2 + 1 : length;
    lens[r - 1] = 2;
    if (!ops_check_result_lens(call, lens, r, err))
        return false;
    *out = shape_standard(in->type, r, lens);
    return true;
}

static const attr_spec dft_attrs[] = {
    {"axis", ATTR_INT, OPS_DFLT_INT(1), false, NULL},
    {"inverse", ATTR_BOOL, OPS_DFLT_BOOL(0), false, NULL},
    {"onesided", ATTR_BOOL, OPS_DFLT_BOOL(0), false, NULL},
    {"length", ATTR_INT, OPS_DFLT_INT(0), false, NULL},
};

op_def ops_signal_table[] = {
    {.name = "dft", .classes = OPC_COMPUTE, .min_args = 1, .max_args = 1, .attrs = dft_attrs,
     .nattrs = 4, .compute_shape = dft_shape},
};
const int ops_signal_count = (int)(sizeof ops_signal_table / sizeof ops_signal_table[0]);
