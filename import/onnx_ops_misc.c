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

static bool h_bitshift(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    if (!onnx_need_inputs(c, in, nin, 2))
        return false;
    char dir[8];
    onnx_attr_string(c, "direction", "", dir, sizeof dir);
    bool left = strcmp(dir, "LEFT") == 0;
    if (!left && strcmp(dir, "RIGHT") != 0)
        return onnx_fail(c, "direction must be LEFT or RIGHT, not '%s'", dir);
    if (!type_is_integer(in[0]->sh.type) || type_is_signed(in[0]->sh.type) ||
        in[0]->sh.type == GRAFT_BOOL)
        return onnx_fail(c, "operands must be unsigned integers, not %s",
                         type_name(in[0]->sh.type));
    return (out[0] = onnx_binary(c, left ? "shift_left" : "shift_right", in[0], in[1])) != NULL;
}

/* [0, 1, ..., n - 1] of type t placed along axis of lens. */
static ins *iota_along(onnx_ctx *c, int64_t n, graft_type t, int axis, int rank,
                       const int64_t *lens)
{
    int64_t *v = arena_alloc(&c->scratch, (size_t)n * sizeof *v + 1);
    if (!v)
        return onnx_fail(c, "out of memory"), NULL;
    for (int64_t i = 0; i < n; i++)
        v[i] = i;
    return onnx_broadcast_axis(c, onnx_convert(c, onnx_int64_literal(c, v, (int)n), t), axis,
                               rank, lens);
}

/* Hardmax: 1 where argmax (the first largest) is along the axis, else 0.
 * Before opset 13 the input is seen as 2-D around the axis. */
static bool h_hardmax(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    if (!onnx_need_inputs(c, in, nin, 1))
        return false;
    ins *x = in[0];
    int r = x->sh.rank, axis;
    bool new_semantics = c->opset >= 13;
    if (!onnx_normalize_axis(c, onnx_attr_int(c, "axis", new_semantics ? -1 : 1), r, &axis))
        return false;
    ins *v = x;
    if (!new_semantics) {
        int64_t flat[2] = {1, 1};
        for (int i = 0; i < r; i++)
            flat[i < axis ? 0 : 1] *= x->sh.lens[i];
        v = onnx_reshape(c, x, 2, flat);
        axis = 1;
    }
    if (!v)
        return false;
    const shape *vs = &v->sh;
    ins *best = onnx_broadcast_to(c, onnx_emit_int(c, "argmax", "axis", axis, v), vs->rank,
                                  vs->lens);
    ins *ids = iota_along(c, vs->lens[axis], GRAFT_INT64, axis, vs->rank, vs->lens);
    ins *y = onnx_convert(c, onnx_emit2(c, "equal", best, ids), x->sh.type);
    return (out[0] = onnx_reshape(c, y, r, x->sh.lens)) != NULL;
}

static bool h_cumsum(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    if (!onnx_need_inputs(c, in, nin, 2))
        return false;
    int64_t *axisv;
    int n, axis;
    if (!onnx_const_ints(c, in[1], "axis", &axisv, &n))
        return false;
    if (n != 1)
        return onnx_fail(c, "axis must have one element, has %d", n);
    if (!onnx_normalize_axis(c, axisv[0], in[0]->sh.rank, &axis))
        return false;
    attr a[3] = {{"axis", attr_int(axis)},
                 {"exclusive", attr_bool(onnx_attr_int(c, "exclusive", 0) != 0)},
                 {"reverse", attr_bool(onnx_attr_int(c, "reverse", 0) != 0)}};
    return (out[0] = onnx_emit(c, "prefix_scan_sum", a, 3, in, 1)) != NULL;
}

/* values[k] as a one-element operand broadcast to lens. */
static ins *pick_value(onnx_ctx *c, ins *values, int64_t k, int rank, const int64_t *lens)
{
    int64_t axis = 0, start = k, end = k + 1;
    attr a[3] = {{"axes", attr_ints(&axis, 1)}, {"starts", attr_ints(&start, 1)},
                 {"ends", attr_ints(&end, 1)}};
    return onnx_broadcast_to(c, onnx_emit(c, "slice", a, 3, &values, 1), rank, lens);
}

/* OneHot: on_value where the (truncated, wrapped) index equals the position
 * along the new axis, off_value elsewhere (an index out of range matches
 * nothing). */
static bool h_onehot(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    if (!onnx_need_inputs(c, in, nin, 3))
        return false;
    ins *idx = in[0], *values = in[2];
    double *depthv;
    int n, axis;
    if (!onnx_const_doubles(c, in[1], "depth", &depthv, &n))
        return false;
    if (n != 1 || depthv[0] < 1 || depthv[0] > (1 << 24))
        return onnx_fail(c, "depth must be one positive value");
    int64_t depth = (int64_t)depthv[0];
    if (shape_elements(&values->sh) != 2)
        return onnx_fail(c, "values must have 2 elements, has %lld",
                         (long long)shape_elements(&values->sh));
    int r = idx->sh.rank + 1;
    if (r > SHAPE_MAX_RANK)
        return onnx_fail(c, "the result's rank %d is too large", r);
    if (!onnx_normalize_axis(c, onnx_attr_int(c, "axis", -1), r, &axis))
        return false;
    int64_t lens[SHAPE_MAX_RANK];
    for (int a = 0, j = 0; a < r; a++)
        lens[a] = a == axis ? depth : idx->sh.lens[j++];
    if (values->sh.rank != 1)
        values = onnx_reshape(c, values, 1, (int64_t[]){2});
    ins *i64 = onnx_convert(c, idx, GRAFT_INT64);
    ins *neg = onnx_convert(c, onnx_binary(c, "less", i64, onnx_scalar(c, GRAFT_INT64, 0)),
                            GRAFT_BOOL);
    ins *wrapped_args[3] = {neg, onnx_binary(c, "add", i64, onnx_scalar(c, GRAFT_INT64, (double)depth)),
                            i64};
    ins *wrapped = onnx_emit(c, "where", NULL, 0, wrapped_args, 3);
    int64_t ax = axis;
    ins *u = onnx_broadcast_to(c, onnx_emit_ints(c, "unsqueeze", "axes", &ax, 1, wrapped), r, lens);
    ins *mask = onnx_convert(c, onnx_emit2(c, "equal", u, iota_along(c, depth, GRAFT_INT64, axis, r, lens)),
                             GRAFT_BOOL);
    ins *args[3] = {mask, pick_value(c, values, 1, r, lens), pick_value(c, values, 0, r, lens)};
    return (out[0] = onnx_emit(c, "where", NULL, 0, args, 3)) != NULL;
}

/* TopK: the positions from topk_indices, the values gathered at them. */
static bool h_topk(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    if (!onnx_need_inputs(c, in, nin, 1))
        return false;
    ins *x = in[0];
    int64_t k;
    if (c->opset < 10) {
        k = onnx_attr_int(c, "k", -1);
    } else {
        int64_t *kv;
        int n;
        if (!onnx_need_inputs(c, in, nin, 2) || !onnx_const_ints(c, in[1], "K", &kv, &n))
            return false;
        if (n != 1)
            return onnx_fail(c, "K must have one element, has %d", n);
        k = kv[0];
    }
    int axis;
    if (!onnx_normalize_axis(c, onnx_attr_int(c, "axis", -1), x->sh.rank, &axis))
        return false;
    if (k < 1 || k > x->sh.lens[axis])
        return k == 0 ? onnx_unsupported(c, "K 0 (an empty result)")
                      : onnx_fail(c, "K %lld does not fit axis %d of length %lld", (long long)k,
                                  axis, (long long)x->sh.lens[axis]);
    attr a[3] = {{"k", attr_int(k)}, {"axis", attr_int(axis)},
                 {"largest", attr_bool(onnx_attr_int(c, "largest", 1) != 0)}};
    ins *indices = onnx_emit(c, "topk_indices", a, 3, &x, 1);
    if (!indices)
        return false;
    attr ga = {"axis", attr_int(axis)};
    ins *gargs[2] = {x, indices};
    out[0] = onnx_emit(c, "gather_elements", &ga, 1, gargs, 2);
    if (nout > 1)
        out[1] = indices;
    return out[0] != NULL;
}

/* ReverseSequence with constant sequence_lens: gather_elements along the
 * time axis with positions reversed within each batch entry's length. */
static bool h_reverse_sequence(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    if (!onnx_need_inputs(c, in, nin, 2))
        return false;
    ins *x = in[0];
    int r = x->sh.rank, bat, tim;
    if (r < 2)
        return onnx_fail(c, "input must have rank 2 or more");
    if (!onnx_normalize_axis(c, onnx_attr_int(c, "batch_axis", 1), r, &bat) ||
        !onnx_normalize_axis(c, onnx_attr_int(c, "time_axis", 0), r, &tim))
        return false;
    if (bat == tim)
        return onnx_fail(c, "batch_axis and time_axis are both %d", bat);
    int64_t *seq;
    int n;
    if (!onnx_const_ints(c, in[1], "sequence_lens", &seq, &n))
        return false;
    int64_t nb = x->sh.lens[bat], nt = x->sh.lens[tim];
    if (n != nb)
        return onnx_fail(c, "sequence_lens has %d entries for a batch of %lld", n, (long long)nb);
    int64_t lens[SHAPE_MAX_RANK];
    for (int a = 0; a < r; a++)
        lens[a] = a == bat ? nb : a == tim ? nt : 1;
    int64_t *idx = arena_alloc(&c->scratch, (size_t)(nb * nt) * sizeof *idx);
    if (!idx)
        return onnx_fail(c, "out of memory");
    for (int64_t b = 0; b < nb; b++) {
        if (seq[b] < 0 || seq[b] > nt)
            return onnx_fail(c, "sequence length %lld is outside 0..%lld", (long long)seq[b],
                             (long long)nt);
        for (int64_t t = 0; t < nt; t++) {
            int64_t v = t < seq[b] ? seq[b] - 1 - t : t;
            idx[tim < bat ? t * nb + b : b * nt + t] = v;
        }
    }
    shape sh = shape_standard(GRAFT_INT64, r, lens);
    ins *il = onnx_broadcast_to(c, onnx_literal(c, &sh, idx), r, x->sh.lens);
    attr ga = {"axis", attr_int(tim)};
    ins *gargs[2] = {x, il};
    return (out[0] = onnx_emit(c, "gather_elements", &ga, 1, gargs, 2)) != NULL;
}

static const onnx_op_entry entries[] = {
    {"BitShift", h_bitshift, "shift_left", {"shift_right", "multibroadcast"}},
    {"Hardmax", h_hardmax, "argmax", {"equal", "convert", "broadcast"}},
    {"CumSum", h_cumsum, "prefix_scan_sum", {NULL}},
    {"OneHot", h_onehot, "where", {"equal", "slice", "unsqueeze"}},
    {"TopK", h_topk, "topk_indices", {"gather_elements"}},
    {"ReverseSequence", h_reverse_sequence, "gather_elements", {"multibroadcast"}},
    {"Mod", h_mod, "mod", {"fmod", "multibroadcast"}},
    {"ConvTranspose", h_conv_transpose, "convolution_backwards", {"pad", "add", "broadcast"}},
};

const onnx_op_table onnx_ops_misc = {entries, (int)(sizeof entries / sizeof entries[0])};
