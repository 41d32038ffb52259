/* onnx_ops_misc.c: handlers for ONNX ops that map onto one graft op or a
 * short chain of them, kept apart from onnx_ops.c's table.
 *
 * Mod: fmod=1 is C's fmod (the result takes the dividend's sign), graft's
 * fmod; fmod=0 is Python's % (the divisor's sign), graft's mod. ONNX allows
 * fmod=0 only for integers, where both are exact.
 */
#include "onnx_private.h"

#include <string.h>

static bool h_mod(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    if (!onnx_need_inputs(c, in, nin, 2))
        return false;
    bool c_fmod = onnx_attr_int(c, "fmod", 0) != 0;
    if (!c_fmod && type_is_float(in[0]->sh.type))
        return onnx_fail(c, "fmod must be 1 for %s operands", type_name(in[0]->sh.type));
    return (out[0] = onnx_binary(c, c_fmod ? "fmod" : "mod", in[0], in[1])) != NULL;
}

/* ConvTranspose: convolution_backwards with the padding that is a crop of
 * the full result, then a zero pad where output_padding or output_shape ask
 * for more than the full result, then the bias along the channels. */
static bool h_conv_transpose(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    if (!onnx_need_inputs(c, in, nin, 2))
        return false;
    ins *x = in[0], *w = in[1], *bias = nin > 2 ? in[2] : NULL;
    int k = x->sh.rank - 2;
    if (k < 1 || w->sh.rank != x->sh.rank)
        return onnx_fail(c, "X and W must have the same rank, at least 3");
    int64_t kernel[SHAPE_MAX_RANK], strides[SHAPE_MAX_RANK], dil[SHAPE_MAX_RANK];
    int64_t opad[SHAPE_MAX_RANK], oshape[SHAPE_MAX_RANK], begin[SHAPE_MAX_RANK], end[SHAPE_MAX_RANK];
    for (int i = 0; i < k; i++)
        kernel[i] = w->sh.lens[2 + i];
    int n;
    const int64_t *ks = onnx_attr_ints(c, "kernel_shape", &n);
    for (int i = 0; i < n; i++)
        if (n != k || ks[i] != kernel[i])
            return onnx_fail(c, "kernel_shape does not match the weights");
    if (!onnx_window_attrs(c, k, "strides", 1, strides) ||
        !onnx_window_attrs(c, k, "dilations", 1, dil))
        return false;
    const int64_t *op = onnx_attr_ints(c, "output_padding", &n);
    if (n >= 0 && n != k)
        return onnx_fail(c, "output_padding has %d values, expected %d", n, k);
    for (int i = 0; i < k; i++) {
        opad[i] = n > 0 ? op[i] : 0;
        if (opad[i] < 0)
            return onnx_fail(c, "output_padding must not be negative");
    }
    const int64_t *os = onnx_attr_ints(c, "output_shape", &n);
    if (n > 0 && n != k && n != k + 2)
        return onnx_fail(c, "output_shape has %d values, expected %d", n, k);
    bool has_shape = n > 0;
    for (int i = 0; i < k && has_shape; i++)
        oshape[i] = os[n - k + i];
    char mode[32];
    onnx_attr_string(c, "auto_pad", "NOTSET", mode, sizeof mode);
    bool same = strcmp(mode, "SAME_UPPER") == 0 || strcmp(mode, "SAME_LOWER") == 0;
    if (!same && strcmp(mode, "NOTSET") != 0 && strcmp(mode, "VALID") != 0)
        return onnx_fail(c, "unknown auto_pad '%s'", mode);
    const int64_t *pads = onnx_attr_ints(c, "pads", &n);
    if (n >= 0 && n != 2 * k)
        return onnx_fail(c, "pads has %d values, expected %d", n, 2 * k);
    for (int i = 0; i < k; i++) {
        /* the result without any crop, and how much of it to crop at each end */
        int64_t full = strides[i] * (x->sh.lens[2 + i] - 1) + opad[i] + (kernel[i] - 1) * dil[i] + 1;
        if (has_shape || same) {
            int64_t want = has_shape ? oshape[i] : x->sh.lens[2 + i] * strides[i];
            int64_t total = full - want, half = total >= 0 ? total / 2 : -((-total + 1) / 2);
            bool upper = strcmp(mode, "SAME_UPPER") == 0;
            begin[i] = upper ? half : total - half;
            end[i] = upper ? total - half : half;
        } else {
            begin[i] = n > 0 && strcmp(mode, "VALID") != 0 ? pads[i] : 0;
            end[i] = n > 0 && strcmp(mode, "VALID") != 0 ? pads[i + k] : 0;
        }
        /* output_padding is part of `full`, beyond what the op computes */
        end[i] -= opad[i];
    }
    int64_t padding[2 * SHAPE_MAX_RANK], grow[2 * SHAPE_MAX_RANK];
    bool grows = false;
    for (int i = 0; i < 2 * (k + 2); i++)
        grow[i] = 0;
    for (int i = 0; i < k; i++) {
        padding[i] = begin[i] > 0 ? begin[i] : 0;
        padding[k + i] = end[i] > 0 ? end[i] : 0;
        grow[2 + i] = begin[i] < 0 ? -begin[i] : 0;
        grow[k + 2 + 2 + i] = end[i] < 0 ? -end[i] : 0;
        grows = grows || begin[i] < 0 || end[i] < 0;
    }
    attr a[4] = {{"padding", attr_ints(padding, 2 * k)},
                 {"stride", attr_ints(strides, k)},
                 {"dilation", attr_ints(dil, k)},
                 {"group", attr_int(onnx_attr_int(c, "group", 1))}};
    ins *args[2] = {x, w};
    ins *y = onnx_emit(c, "convolution_backwards", a, 4, args, 2);
    if (y && grows) {
        attr p[2] = {{"pads", attr_ints(grow, 2 * (k + 2))}, {"mode", attr_string("constant")}};
        y = onnx_emit(c, "pad", p, 2, &y, 1);
    }
    if (y && bias)
        y = onnx_emit2(c, "add", y, onnx_broadcast_axis(c, bias, 1, y->sh.rank, y->sh.lens));
    return (out[0] = y) != NULL;
}

static const onnx_op_entry entries[] = {
    {"Mod", h_mod, "mod", {"fmod", "multibroadcast"}},
    {"ConvTranspose", h_conv_transpose, "convolution_backwards", {"pad", "add", "broadcast"}},
};

const onnx_op_table onnx_ops_misc = {entries, (int)(sizeof entries / sizeof entries[0])};
