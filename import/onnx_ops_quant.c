/* onnx_ops_quant.c: the quantization ops as graphs of existing ops, the way
 * MIGraphX's rewrite_quantization lowers them:
 *
 *   DequantizeLinear   (x - zero_point) * scale, in scale's type
 *   QuantizeLinear     clip(round(x / scale) + zero_point) to the zero
 *                      point's type (uint8 without one); round is to
 *                      nearest even
 *   DynamicQuantizeLinear  scale = (max(x, 0) - min(x, 0)) / 255 and
 *                      zero_point = clip(round(-min / scale)), then as above
 *   MatMulInteger, ConvInteger   the operands widened to int32 less their
 *                      zero points, one int32 dot or convolution (exact)
 *   QLinearMatMul, QLinearConv   the same product (plus QLinearConv's int32
 *                      bias), then requantized: the product times
 *                      a_scale * b_scale / y_scale, plus y_zero_point,
 *                      rounded and clipped; the multiplier is formed in the
 *                      scales' type, the requantization in double, as in
 *                      ONNX's reference
 *
 * A scale or zero point is one value, or one per element of `axis`
 * (QuantizeLinear, DequantizeLinear; per output channel for the weights of
 * QLinearConv and ConvInteger, per row or column for MatMulInteger).
 * int8 and uint8 (and int32 for DequantizeLinear) as ONNX allows.
 */
#include "onnx_private.h"

#include <string.h>

/* p (one value, or a 1-D tensor along `axis`) broadcast to x's lens. */
static ins *along(onnx_ctx *c, ins *p, int axis, const shape *x)
{
    if (!p)
        return NULL;
    if (shape_elements(&p->sh) == 1)
        return onnx_broadcast_to(c, onnx_reshape(c, p, 1, (int64_t[]){1}), x->rank, x->lens);
    if (p->sh.rank == 1 && axis >= 0 && axis < x->rank && p->sh.lens[0] == x->lens[axis])
        return onnx_broadcast_axis(c, p, axis, x->rank, x->lens);
    return onnx_fail(c, "a scale or zero point of %lld elements does not fit axis %d of %lld",
                     (long long)shape_elements(&p->sh), axis,
                     axis >= 0 && axis < x->rank ? (long long)x->lens[axis] : 0LL),
           NULL;
}

static bool quantized_type(onnx_ctx *c, graft_type t)
{
    if (t != GRAFT_INT8 && t != GRAFT_UINT8)
        return onnx_unsupported(c, "quantized type %s (int8 and uint8 are supported)",
                                type_name(t));
    return true;
}

/* round(v) + zero_point, clipped to t's range and converted to t; v and
 * zero_point (NULL: 0) have v's lens. */
static ins *requantize(onnx_ctx *c, ins *v, ins *zero_point, graft_type t)
{
    graft_type ft = v ? v->sh.type : GRAFT_FLOAT;
    ins *y = onnx_emit1(c, "round", v);
    if (zero_point)
        y = onnx_emit2(c, "add", y, onnx_convert(c, zero_point, ft));
    double lo = t == GRAFT_INT8 ? -128 : 0, hi = t == GRAFT_INT8 ? 127 : 255;
    if (!y)
        return NULL;
    ins *args[3] = {y, onnx_broadcast_to(c, onnx_scalar(c, ft, lo), y->sh.rank, y->sh.lens),
                    onnx_broadcast_to(c, onnx_scalar(c, ft, hi), y->sh.rank, y->sh.lens)};
    return onnx_convert(c, onnx_emit(c, "clip", NULL, 0, args, 3), t);
}

/* axis attribute (default 1), normalized against x; -1 when it names no
 * axis of x (then only one-value scales fit) */
static bool quant_axis(onnx_ctx *c, const ins *x, int *axis)
{
    if (onnx_attr_int(c, "block_size", 0) != 0)
        return onnx_unsupported(c, "block quantization");
    int64_t a = onnx_attr_int(c, "axis", 1), r = x->sh.rank;
    *axis = a >= -r && a < r ? (int)(a < 0 ? a + r : a) : -1;
    return true;
}

static bool h_dequantize(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    ins *x = in[0], *zp = nin > 2 ? in[2] : NULL;
    graft_type t = in[1]->sh.type;
    int axis;
    if (x->sh.type != GRAFT_INT32 && !quantized_type(c, x->sh.type))
        return false;
    if (!quant_axis(c, x, &axis))
        return false;
    ins *v = onnx_convert(c, x, t);
    if (zp)
        v = onnx_emit2(c, "sub", v, onnx_convert(c, along(c, zp, axis, &x->sh), t));
    return (out[0] = onnx_emit2(c, "mul", v, along(c, in[1], axis, &x->sh))) != NULL;
}

static bool h_quantize(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    ins *x = in[0], *zp = nin > 2 ? in[2] : NULL;
    graft_type t = zp ? zp->sh.type : GRAFT_UINT8;
    const Onnx__AttributeProto *dt = onnx_attr(c, "output_dtype");
    if (!zp && dt && dt->i && !onnx_type_to_graft((int32_t)dt->i, &t))
        return onnx_unsupported(c, "output_dtype %s", onnx_type_name((int32_t)dt->i));
    int axis;
    if (!quantized_type(c, t) || !quant_axis(c, x, &axis))
        return false;
    graft_type ft = in[1]->sh.type;
    ins *v = onnx_emit2(c, "div", onnx_convert(c, x, ft), along(c, in[1], axis, &x->sh));
    return (out[0] = requantize(c, v, zp ? along(c, zp, axis, &x->sh) : NULL, t)) != NULL;
}

static bool h_dynamic_quantize(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nin;
    ins *x = in[0];
    graft_type ft = x->sh.type;
    if (!type_is_float(ft))
        return onnx_fail(c, "input must be floating point, not %s", type_name(ft));
    int r = x->sh.rank;
    int64_t all[SHAPE_MAX_RANK], one = 1;
    for (int a = 0; a < r; a++)
        all[a] = a;
    ins *zero = onnx_scalar(c, ft, 0);
    ins *lo = onnx_emit2(c, "min", onnx_reshape(c, onnx_emit_ints(c, "reduce_min", "axes", all, r, x), 1, &one), zero);
    ins *hi = onnx_emit2(c, "max", onnx_reshape(c, onnx_emit_ints(c, "reduce_max", "axes", all, r, x), 1, &one), zero);
    ins *scale = onnx_emit2(c, "div", onnx_emit2(c, "sub", hi, lo), onnx_scalar(c, ft, 255));
    ins *zp = requantize(c, onnx_emit2(c, "div", onnx_emit1(c, "neg", lo), scale), NULL, GRAFT_UINT8);
    ins *v = onnx_emit2(c, "div", x, onnx_broadcast_to(c, scale, r, x->sh.lens));
    out[0] = requantize(c, v, onnx_broadcast_to(c, zp, r, x->sh.lens), GRAFT_UINT8);
    if (nout > 1)
        out[1] = scale;
    if (nout > 2)
        out[2] = zp;
    return out[0] != NULL;
}

/* int32(x) - zero_point (broadcast along axis; NULL: none). */
static ins *widen(onnx_ctx *c, ins *x, ins *zp, int axis)
{
    if (!x || !quantized_type(c, x->sh.type))
        return NULL;
    ins *v = onnx_convert(c, x, GRAFT_INT32);
    if (zp && v)
        v = onnx_emit2(c, "sub", v, onnx_convert(c, along(c, zp, axis, &x->sh), GRAFT_INT32));
    return v;
}

/* The int32 product of a - a_zp and b - b_zp with numpy batching; a_zp
 * may be one per row of a, b_zp one per column of b. */
static ins *integer_matmul(onnx_ctx *c, ins *a, ins *a_zp, ins *b, ins *b_zp)
{
    if (a->sh.rank < 2 || b->sh.rank < 2)
        return onnx_unsupported(c, "1-D operands"), NULL;
    ins *aw = widen(c, a, a_zp, a->sh.rank - 2), *bw = widen(c, b, b_zp, b->sh.rank - 1);
    if (!aw || !bw)
        return NULL;
    int ra = aw->sh.rank, rb = bw->sh.rank;
    if (aw->sh.lens[ra - 1] != bw->sh.lens[rb - 2])
        return onnx_fail(c, "inner dimensions differ: %lld and %lld",
                         (long long)aw->sh.lens[ra - 1], (long long)bw->sh.lens[rb - 2]),
               NULL;
    int r = ra > rb ? ra : rb;
    int64_t la[SHAPE_MAX_RANK], lb[SHAPE_MAX_RANK];
    for (int i = 0; i < r - 2; i++) {
        int ia = i - (r - ra), ib = i - (r - rb);
        int64_t x = ia >= 0 ? aw->sh.lens[ia] : 1, y = ib >= 0 ? bw->sh.lens[ib] : 1;
        if (x != y && x != 1 && y != 1)
            return onnx_fail(c, "batch dimensions do not broadcast"), NULL;
        la[i] = lb[i] = x == 1 ? y : x;
    }
    la[r - 2] = aw->sh.lens[ra - 2];
    la[r - 1] = aw->sh.lens[ra - 1];
    lb[r - 2] = bw->sh.lens[rb - 2];
    lb[r - 1] = bw->sh.lens[rb - 1];
    return onnx_emit2(c, "dot", onnx_broadcast_to(c, aw, r, la), onnx_broadcast_to(c, bw, r, lb));
}

static bool h_matmul_integer(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    return (out[0] = integer_matmul(c, in[0], nin > 2 ? in[2] : NULL, in[1],
                                    nin > 3 ? in[3] : NULL)) != NULL;
}

/* product (int32) * (a_scale * b_scale / y_scale) + y_zp, requantized;
 * b_scale may be one per channel along `axis` of the product. */
static ins *requantize_product(onnx_ctx *c, ins *product, ins *a_scale, ins *b_scale, int axis,
                               ins *y_scale, ins *y_zp, graft_type t)
{
    if (!product)
        return NULL;
    const shape *ps = &product->sh;
    ins *m = onnx_binary(c, "div", onnx_binary(c, "mul", a_scale, b_scale), y_scale);
    if (!m)
        return NULL;
    ins *mb = along(c, m, axis, ps);
    ins *v = onnx_emit2(c, "mul", onnx_convert(c, product, GRAFT_DOUBLE),
                        onnx_convert(c, mb, GRAFT_DOUBLE));
    return requantize(c, v, y_zp ? along(c, y_zp, axis, ps) : NULL, t);
}

static bool h_qlinear_matmul(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *p = integer_matmul(c, in[0], in[2], in[3], in[5]);
    int axis = p ? p->sh.rank - 1 : 0;
    out[0] = requantize_product(c, p, in[1], in[4], axis, in[6], in[7], in[7]->sh.type);
    return out[0] != NULL;
}

/* Conv's attributes for x and w (as the Conv importer reads them). */
static ins *integer_conv(onnx_ctx *c, ins *x, ins *x_zp, ins *w, ins *w_zp)
{
    int k = x->sh.rank - 2;
    if (k < 1 || w->sh.rank != x->sh.rank)
        return onnx_fail(c, "X and W must have the same rank, at least 3"), NULL;
    ins *xw = widen(c, x, x_zp, 1), *ww = widen(c, w, w_zp, 0);
    if (!xw || !ww)
        return NULL;
    int64_t kernel[SHAPE_MAX_RANK], strides[SHAPE_MAX_RANK], dil[SHAPE_MAX_RANK];
    int64_t padding[2 * SHAPE_MAX_RANK];
    for (int i = 0; i < k; i++)
        kernel[i] = w->sh.lens[2 + i];
    if (!onnx_window_attrs(c, k, "strides", 1, strides) ||
        !onnx_window_attrs(c, k, "dilations", 1, dil) ||
        !onnx_window_padding(c, &x->sh, k, kernel, strides, dil, padding))
        return NULL;
    attr a[4] = {{"padding", attr_ints(padding, 2 * k)},
                 {"stride", attr_ints(strides, k)},
                 {"dilation", attr_ints(dil, k)},
                 {"group", attr_int(onnx_attr_int(c, "group", 1))}};
    ins *args[2] = {xw, ww};
    return onnx_emit(c, "convolution", a, 4, args, 2);
}

static bool h_conv_integer(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    return (out[0] = integer_conv(c, in[0], nin > 2 ? in[2] : NULL, in[1],
                                  nin > 3 ? in[3] : NULL)) != NULL;
}

static bool h_qlinear_conv(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    ins *p = integer_conv(c, in[0], in[2], in[3], in[5]);
    if (p && nin > 8 && in[8])
        p = onnx_emit2(c, "add", p, onnx_broadcast_axis(c, onnx_convert(c, in[8], GRAFT_INT32), 1,
                                                        p->sh.rank, p->sh.lens));
    out[0] = requantize_product(c, p, in[1], in[4], 1, in[6], in[7], in[7]->sh.type);
    return out[0] != NULL;
}

static const onnx_op_entry entries[] = {
    {"DequantizeLinear", h_dequantize, "mul", {"sub", "convert", "broadcast"}, 2},
    {"QuantizeLinear", h_quantize, "div", {"round", "clip", "convert"}, 2},
    {"DynamicQuantizeLinear", h_dynamic_quantize, "reduce_min", {"reduce_max", "round", "clip"}, 1},
    {"MatMulInteger", h_matmul_integer, "dot", {"sub", "convert", "multibroadcast"}, 2},
    {"ConvInteger", h_conv_integer, "convolution", {"sub", "convert", "broadcast"}, 2},
    {"QLinearMatMul", h_qlinear_matmul, "dot", {"round", "clip", "convert"}, 8},
    {"QLinearConv", h_qlinear_conv, "convolution", {"round", "clip", "convert"}, 8},
};

const onnx_op_table onnx_ops_quant = {entries, (int)(sizeof entries / sizeof entries[0])};
