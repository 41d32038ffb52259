/* onnx_ops_misc.c: handlers for ONNX ops that map onto one graft op or a
 * short chain of them, kept apart from onnx_ops.c's table.
 *
 * Mod: fmod=1 is C's fmod (the result takes the dividend's sign), graft's
 * fmod; fmod=0 is Python's % (the divisor's sign), graft's mod. ONNX allows
 * fmod=0 only for integers, where both are exact.
 */
#include "detmath.h"
#include "onnx_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool h_mod(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
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
    (void)nin;
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
    (void)nin;
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
    (void)nin;
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
    (void)nin;
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
    (void)nin;
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

/* A literal of type t and lens holding v (doubles, row-major). */
static ins *literal_of(onnx_ctx *c, graft_type t, int rank, const int64_t *lens, const double *v)
{
    shape sh = shape_standard(t, rank, lens);
    char *buf = calloc(1, shape_bytes(&sh) + 1);
    if (!buf)
        return onnx_fail(c, "out of memory"), NULL;
    tensor tt = {sh, buf};
    for (int64_t i = 0; i < shape_elements(&sh); i++)
        tensor_set_f64(&tt, i, v[i]);
    ins *r = onnx_literal(c, &sh, buf);
    free(buf);
    return r;
}

/* output_datatype (default float) */
static bool output_type(onnx_ctx *c, graft_type *t)
{
    *t = GRAFT_FLOAT;
    const Onnx__AttributeProto *dt = onnx_attr(c, "output_datatype");
    if (dt && !onnx_type_to_graft((int32_t)dt->i, t))
        return onnx_unsupported(c, "output_datatype %s", onnx_type_name((int32_t)dt->i));
    return true;
}

/* HannWindow, HammingWindow, BlackmanWindow: a constant of `size` values
 * (periodic: the period is size, else size - 1). The cosines are libm's,
 * evaluated once at import. */
static bool h_window(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    int64_t *sz;
    int n;
    graft_type t;
    if (!onnx_const_ints(c, in[0], "size", &sz, &n) || !output_type(c, &t))
        return false;
    if (n != 1 || sz[0] < 1 || sz[0] > (1 << 24))
        return onnx_fail(c, "size must be one positive value");
    int64_t size = sz[0];
    bool periodic = onnx_attr_int(c, "periodic", 1) != 0;
    double period = periodic ? (double)size : (double)(size - 1);
    double *v = arena_alloc(&c->scratch, (size_t)size * sizeof *v);
    if (!v)
        return onnx_fail(c, "out of memory");
    const char *op = c->node->op_type;
    const double pi = 3.14159265358979323846;
    for (int64_t i = 0; i < size; i++) {
        double a = period > 0 ? 2 * pi * (double)i / period : 0;
        if (strcmp(op, "HannWindow") == 0)
            v[i] = 0.5 - 0.5 * det_cos(a);
        else if (strcmp(op, "HammingWindow") == 0)
            v[i] = 25.0 / 46 - (1 - 25.0 / 46) * det_cos(a);
        else
            v[i] = 0.42 - 0.5 * det_cos(a) + 0.08 * det_cos(2 * a);
    }
    return (out[0] = literal_of(c, t, 1, &size, v)) != NULL;
}

/* MelWeightMatrix: the constant [dft_length / 2 + 1, num_mel_bins] matrix
 * of triangular filters, as ONNX's definition builds it. */
static bool h_mel_weight_matrix(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    double *v[5];
    int n[5];
    static const char *const what[] = {"num_mel_bins", "dft_length", "sample_rate",
                                       "lower_edge_hertz", "upper_edge_hertz"};
    graft_type t;
    for (int k = 0; k < 5; k++) {
        if (!onnx_const_doubles(c, in[k], what[k], &v[k], &n[k]))
            return false;
        if (n[k] != 1)
            return onnx_fail(c, "%s must have one value", what[k]);
    }
    if (!output_type(c, &t))
        return false;
    int64_t mels, dft, rate;
    if (!double_to_int64(v[0][0], &mels) || !double_to_int64(v[1][0], &dft) || !double_to_int64(v[2][0], &rate) ||
        mels < 1 || dft < 1 || rate < 1 || mels > 4096 || dft > (1 << 20))
        return onnx_fail(c, "num_mel_bins, dft_length and sample_rate must be positive");
    int64_t bins = dft / 2 + 1;
    if (bins * mels > (1 << 24))
        return onnx_fail(c, "a %lld x %lld matrix is too large", (long long)bins, (long long)mels);
    double lo = 2595 * (det_log(1 + v[3][0] / 700) / det_log(10)), hi = 2595 * (det_log(1 + v[4][0] / 700) / det_log(10));
    double step = (hi - lo) / (double)(mels + 2);
    int64_t *f = arena_alloc(&c->scratch, (size_t)(mels + 2) * sizeof *f);
    double *m = calloc((size_t)(bins * mels), sizeof *m);
    if (!f || !m) {
        free(m);
        return onnx_fail(c, "out of memory");
    }
    bool ok = true;
    for (int64_t i = 0; i < mels + 2 && ok; i++) {
        double hz = 700 * (det_pow(10, ((double)i * step + lo) / 2595) - 1);
        ok = double_to_int64(floor((double)(dft + 1) * hz / (double)rate), &f[i]);
    }
    for (int64_t i = 0; i < mels && ok; i++) {
        int64_t left = f[i], center = f[i + 1], right = f[i + 2];
        ok = left >= 0 && right < bins && left <= center && center <= right;
        if (!ok)
            break;
        if (center == left)
            m[center * mels + i] = 1;
        else
            for (int64_t j = left; j <= center; j++)
                m[j * mels + i] = (double)(j - left) / (double)(center - left);
        for (int64_t j = center; j < right; j++)
            m[j * mels + i] = (double)(right - j) / (double)(right - center);
    }
    int64_t lens[2] = {bins, mels};
    out[0] = ok ? literal_of(c, t, 2, lens, m) : NULL;
    free(m);
    if (!ok)
        return onnx_fail(c, "the edges do not fit the spectrogram's %lld bins", (long long)bins);
    return out[0] != NULL;
}

/* Compress with a constant condition: gather at the positions it selects
 * (of the flattened input without an axis). */
static bool h_compress(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *x = in[0];
    int64_t *cond;
    int n, axis = 0;
    if (!onnx_const_ints(c, in[1], "condition", &cond, &n))
        return false;
    const Onnx__AttributeProto *a = onnx_attr(c, "axis");
    if (a) {
        if (!onnx_normalize_axis(c, a->i, x->sh.rank, &axis))
            return false;
    } else {
        int64_t all = shape_elements(&x->sh);
        x = onnx_reshape(c, x, 1, &all);
        if (!x)
            return false;
    }
    int64_t len = x->sh.lens[axis], count = 0;
    int64_t *pos = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof *pos);
    if (!pos)
        return onnx_fail(c, "out of memory");
    for (int i = 0; i < n && i < len; i++)
        if (cond[i])
            pos[count++] = i;
    if (count == 0)
        return onnx_unsupported(c, "nothing selected (an empty result)");
    attr g = {"axis", attr_int(axis)};
    ins *args[2] = {x, onnx_int64_literal(c, pos, (int)count)};
    return (out[0] = onnx_emit(c, "gather", &g, 1, args, 2)) != NULL;
}

/* MaxUnpool: the values scattered into zeros at their (flattened) indices
 * in the shape the pooling attributes give; an output_shape larger than that
 * pads zeros after it, as ONNX's reference does. */
static bool h_max_unpool(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    ins *x = in[0], *idx = in[1];
    int k = x->sh.rank - 2;
    if (k < 1 || !shape_same_lens(&x->sh, &idx->sh))
        return onnx_fail(c, "X and I must have the same lens, rank 3 or more");
    int64_t lens[SHAPE_MAX_RANK], want[SHAPE_MAX_RANK];
    bool given = nin > 2 && in[2];
    if (given) {
        int64_t *os;
        int n;
        if (!onnx_const_ints(c, in[2], "output_shape", &os, &n))
            return false;
        if (n != x->sh.rank)
            return onnx_fail(c, "output_shape has %d values for rank %d", n, x->sh.rank);
        memcpy(want, os, (size_t)n * sizeof *want);
    }
    {
        int nk = 0, np = 0, ns = 0;
        const int64_t *ks = onnx_attr_ints(c, "kernel_shape", &nk);
        const int64_t *pads = onnx_attr_ints(c, "pads", &np);
        const int64_t *st = onnx_attr_ints(c, "strides", &ns);
        if (nk != k || (np > 0 && np != 2 * k) || (ns > 0 && ns != k))
            return onnx_fail(c, "kernel_shape, pads or strides do not fit %d spatial axes", k);
        lens[0] = x->sh.lens[0];
        lens[1] = x->sh.lens[1];
        for (int i = 0; i < k; i++)
            lens[2 + i] = (x->sh.lens[2 + i] - 1) * (ns > 0 ? st[i] : 1) -
                          (np > 0 ? pads[i] + pads[i + k] : 0) + ks[i];
    }
    int64_t total = 1;
    for (int i = 0; i < x->sh.rank; i++) {
        if (lens[i] < 1)
            return onnx_fail(c, "the output has an empty axis");
        if (__builtin_mul_overflow(total, lens[i], &total) || total > ((int64_t)1 << 40))
            return onnx_fail(c, "the output is too large");
    }
    int64_t nx = shape_elements(&x->sh);
    ins *zeros = onnx_broadcast_to(c, onnx_scalar(c, x->sh.type, 0), 1, &total);
    ins *args[3] = {onnx_emit1(c, "contiguous", zeros), onnx_reshape(c, idx, 1, &nx),
                    onnx_reshape(c, x, 1, &nx)};
    attr a = {"axis", attr_int(0)};
    ins *y = onnx_reshape(c, onnx_emit(c, "scatter_none", &a, 1, args, 3), x->sh.rank, lens);
    if (y && given) {
        int64_t pads[2 * SHAPE_MAX_RANK] = {0};
        bool grow = false;
        for (int i = 0; i < x->sh.rank; i++) {
            if (want[i] < lens[i])
                return onnx_unsupported(c, "an output_shape smaller than the unpooled %lld on "
                                           "axis %d",
                                        (long long)lens[i], i);
            pads[x->sh.rank + i] = want[i] - lens[i];
            grow = grow || want[i] != lens[i];
        }
        attr p[2] = {{"pads", attr_ints(pads, 2 * x->sh.rank)}, {"mode", attr_string("constant")}};
        if (grow)
            y = onnx_emit(c, "pad", p, 2, &y, 1);
    }
    return (out[0] = y) != NULL;
}

bool onnx_batch_norm_training(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    if (!onnx_need_inputs(c, in, nin, 5))
        return false;
    ins *x = in[0];
    int r = x->sh.rank;
    if (r < 2)
        return onnx_fail(c, "X must have rank 2 or more");
    double eps = onnx_attr_float(c, "epsilon", 1e-5), momentum = onnx_attr_float(c, "momentum", 0.9);
    int64_t axes[SHAPE_MAX_RANK], n = 0, ch = x->sh.lens[1];
    for (int a = 0; a < r; a++)
        if (a != 1)
            axes[n++] = a;
    const int64_t *l = x->sh.lens;
    /* the batch's mean and (population) variance, per channel */
    ins *mean = onnx_emit_ints(c, "reduce_mean", "axes", axes, (int)n, x);
    ins *mean_b = onnx_broadcast_to(c, mean, r, l);
    ins *var = onnx_emit_ints(c, "reduce_mean", "axes", axes, (int)n, onnx_emit2(c, "sqdiff", x, mean_b));
    ins *inv = onnx_emit1(c, "rsqrt", onnx_binary(c, "add", var, onnx_scalar(c, x->sh.type, eps)));
    ins *y = onnx_emit2(c, "mul", onnx_emit2(c, "sub", x, mean_b), onnx_broadcast_to(c, inv, r, l));
    y = onnx_emit2(c, "mul", y, onnx_broadcast_axis(c, in[1], 1, r, l));
    out[0] = onnx_emit2(c, "add", y, onnx_broadcast_axis(c, in[2], 1, r, l));
    ins *mean1 = onnx_reshape(c, mean, 1, &ch), *var1 = onnx_reshape(c, var, 1, &ch);
    for (int k = 1; k < nout && k < 3; k++) {
        ins *running = in[k + 2], *batch = k == 1 ? mean1 : var1;
        out[k] = onnx_binary(c, "add", onnx_binary(c, "mul", running, onnx_scalar(c, x->sh.type, momentum)),
                             onnx_binary(c, "mul", batch, onnx_scalar(c, x->sh.type, 1 - momentum)));
        if (!out[k])
            return false;
    }
    return out[0] != NULL;
}

static bool h_det(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    return (out[0] = onnx_emit1(c, "det", in[0])) != NULL;
}

/* one constant integer operand, or dflt when absent */
static bool optional_int(onnx_ctx *c, ins **in, int nin, int k, const char *what, int64_t dflt,
                         int64_t *v)
{
    *v = dflt;
    if (k >= nin || !in[k])
        return true;
    int64_t *vals;
    int n;
    if (!onnx_const_ints(c, in[k], what, &vals, &n))
        return false;
    if (n != 1)
        return onnx_fail(c, "%s must have one value", what);
    *v = vals[0];
    return true;
}

static bool h_dft(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    int64_t length, axis = onnx_attr_int(c, "axis", 1);
    if (!optional_int(c, in, nin, 1, "dft_length", 0, &length) ||
        (c->opset >= 20 && !optional_int(c, in, nin, 2, "axis", -2, &axis)))
        return false;
    int a;
    if (!onnx_normalize_axis(c, axis, in[0]->sh.rank, &a))
        return false;
    attr at[4] = {{"axis", attr_int(a)},
                  {"inverse", attr_bool(onnx_attr_int(c, "inverse", 0) != 0)},
                  {"onesided", attr_bool(onnx_attr_int(c, "onesided", 0) != 0)},
                  {"length", attr_int(length)}};
    return (out[0] = onnx_emit(c, "dft", at, 4, in, 1)) != NULL;
}

/* STFT: frames gathered at constant positions, times the window, then a
 * dft of each frame. */
static bool h_stft(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    ins *x = in[0], *window = nin > 2 ? in[2] : NULL;
    if (x->sh.rank != 3)
        return onnx_fail(c, "signal must be [batch, length, 1 or 2]");
    int64_t step, flen;
    if (!optional_int(c, in, nin, 1, "frame_step", 0, &step) ||
        !optional_int(c, in, nin, 3, "frame_length", window ? shape_elements(&window->sh) : 0, &flen))
        return false;
    int64_t len = x->sh.lens[1];
    if (step < 1 || flen < 1 || flen > len)
        return onnx_fail(c, "frame_step %lld and frame_length %lld do not fit %lld samples",
                         (long long)step, (long long)flen, (long long)len);
    int64_t frames = 1 + (len - flen) / step;
    if (frames * flen > (1 << 24))
        return onnx_fail(c, "too many frames");
    int64_t *pos = arena_alloc(&c->scratch, (size_t)(frames * flen) * sizeof *pos);
    if (!pos)
        return onnx_fail(c, "out of memory");
    for (int64_t f = 0; f < frames; f++)
        for (int64_t i = 0; i < flen; i++)
            pos[f * flen + i] = f * step + i;
    int64_t fl[2] = {frames, flen};
    shape ps = shape_standard(GRAFT_INT64, 2, fl);
    attr g = {"axis", attr_int(1)};
    ins *gargs[2] = {x, onnx_literal(c, &ps, pos)};
    ins *y = onnx_emit(c, "gather", &g, 1, gargs, 2); /* [batch, frames, flen, parts] */
    if (y && window) {
        if (shape_elements(&window->sh) != flen)
            return onnx_fail(c, "window has %lld values for frames of %lld",
                             (long long)shape_elements(&window->sh), (long long)flen);
        ins *w = onnx_reshape(c, window, 1, &flen);
        y = onnx_emit2(c, "mul", y, onnx_broadcast_axis(c, onnx_convert(c, w, y->sh.type), 2,
                                                         y->sh.rank, y->sh.lens));
    }
    attr at[4] = {{"axis", attr_int(2)},
                  {"inverse", attr_bool(false)},
                  {"onesided", attr_bool(onnx_attr_int(c, "onesided", 1) != 0)},
                  {"length", attr_int(flen)}};
    return (out[0] = y ? onnx_emit(c, "dft", at, 4, &y, 1) : NULL) != NULL;
}

static const onnx_op_entry entries[] = {
    {"DFT", h_dft, "dft", {NULL}, 1},
    {"STFT", h_stft, "dft", {"gather", "mul", "broadcast"}, 2},
    {"Det", h_det, "det", {NULL}, 1},
    {"HannWindow", h_window, NULL, {NULL}, 1},
    {"HammingWindow", h_window, NULL, {NULL}, 1},
    {"BlackmanWindow", h_window, NULL, {NULL}, 1},
    {"MelWeightMatrix", h_mel_weight_matrix, NULL, {NULL}, 5},
    {"Compress", h_compress, "gather", {"reshape"}, 2},
    {"MaxUnpool", h_max_unpool, "scatter_none", {"reshape", "contiguous", "pad"}, 2},
    {"BitShift", h_bitshift, "shift_left", {"shift_right", "multibroadcast"}, 2},
    {"Hardmax", h_hardmax, "argmax", {"equal", "convert", "broadcast"}, 1},
    {"CumSum", h_cumsum, "prefix_scan_sum", {NULL}, 2},
    {"OneHot", h_onehot, "where", {"equal", "slice", "unsqueeze"}, 3},
    {"TopK", h_topk, "topk_indices", {"gather_elements"}, 1},
    {"ReverseSequence", h_reverse_sequence, "gather_elements", {"multibroadcast"}, 2},
    {"Mod", h_mod, "mod", {"fmod", "multibroadcast"}, 2},
    {"ConvTranspose", h_conv_transpose, "convolution_backwards", {"pad", "add", "broadcast"}, 2},
};

const onnx_op_table onnx_ops_misc = {entries, (int)(sizeof entries / sizeof entries[0])};
