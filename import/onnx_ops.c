/* onnx_ops.c: one handler per ONNX op type, emitting graft (MIGraphX) ops.
 *
 * The mapping follows what MIGraphX's ONNX parser produces: numpy
 * broadcasting becomes explicit multibroadcast; Gemm becomes (transpose) dot,
 * mul by alpha, add of beta*C; BatchNormalization, InstanceNormalization,
 * LayerNormalization and GroupNormalization become reductions and pointwise
 * ops; Conv and pooling get explicit padding computed from auto_pad; ops whose
 * operands became inputs in later opsets (Reshape, Slice, Pad, Clip, Squeeze,
 * Unsqueeze, Reduce*, Split) read either form; Softmax before opset 13 keeps its
 * flatten-to-2-D meaning. Operands that must be constant (shapes, axes, pads)
 * are read from literals; onnx_import.c folds constant subgraphs into literals
 * first. The table at the end says which graft ops each handler needs, so
 * that a model using an op graft lacks is refused before anything is built.
 */
#include "onnx_private.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small builders ---- */

static attr attr_of(const char *key, attr_value v)
{
    attr a = {key, v};
    return a;
}

static ins *emit_ints(onnx_ctx *c, const char *op, const char *key, const int64_t *v, int n, ins *x)
{
    attr a = attr_of(key, attr_ints(v, n));
    return onnx_emit(c, op, &a, 1, &x, 1);
}

static ins *emit_int(onnx_ctx *c, const char *op, const char *key, int64_t v, ins *x)
{
    attr a = attr_of(key, attr_int(v));
    return onnx_emit(c, op, &a, 1, &x, 1);
}

static bool same_lens(const shape *s, int rank, const int64_t *lens)
{
    if (s->rank != rank)
        return false;
    for (int i = 0; i < rank; i++)
        if (s->lens[i] != lens[i])
            return false;
    return true;
}

/* multibroadcast x to lens, unless it has them already. */
static ins *broadcast_to(onnx_ctx *c, ins *x, int rank, const int64_t *lens)
{
    if (!x)
        return NULL;
    if (same_lens(&x->sh, rank, lens))
        return x;
    return emit_ints(c, "multibroadcast", "out_lens", lens, rank, x);
}

/* Places a 1-D x (length lens[axis]) along axis of lens. */
static ins *broadcast_axis(onnx_ctx *c, ins *x, int axis, int rank, const int64_t *lens)
{
    if (!x)
        return NULL;
    if (x->sh.rank != 1 || x->sh.lens[0] != lens[axis]) {
        onnx_fail(c, "operand of %lld elements cannot be broadcast along axis %d of length %lld",
                  (long long)shape_elements(&x->sh), axis, (long long)lens[axis]);
        return NULL;
    }
    attr a[2] = {attr_of("axis", attr_int(axis)), attr_of("out_lens", attr_ints(lens, rank))};
    return onnx_emit(c, "broadcast", a, 2, &x, 1);
}

/* numpy broadcasting of two lens lists. */
static bool numpy_lens(onnx_ctx *c, const shape *a, const shape *b, int *rank, int64_t *lens)
{
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int64_t la = ia >= 0 ? a->lens[ia] : 1, lb = ib >= 0 ? b->lens[ib] : 1;
        if (la != lb && la != 1 && lb != 1)
            return onnx_fail(c, "shapes do not broadcast: dimension %d is %lld and %lld", i,
                             (long long)la, (long long)lb);
        lens[i] = la == 1 ? lb : la;
    }
    *rank = r;
    return true;
}

static ins *convert_to(onnx_ctx *c, ins *x, graft_type t)
{
    if (!x || x->sh.type == t)
        return x;
    attr a = attr_of("target_type", attr_type(t));
    return onnx_emit(c, "convert", &a, 1, &x, 1);
}

/* A binary pointwise op with numpy broadcasting made explicit. */
static ins *binary(onnx_ctx *c, const char *op, ins *a, ins *b)
{
    if (!a || !b)
        return NULL;
    int rank;
    int64_t lens[SHAPE_MAX_RANK];
    if (!numpy_lens(c, &a->sh, &b->sh, &rank, lens))
        return NULL;
    return onnx_emit2(c, op, broadcast_to(c, a, rank, lens), broadcast_to(c, b, rank, lens));
}

static bool normalize_axis(onnx_ctx *c, int64_t axis, int rank, int *out)
{
    *out = 0;
    if (axis < -rank || axis >= rank)
        return onnx_fail(c, "axis %lld is out of range for rank %d", (long long)axis, rank);
    *out = (int)(axis < 0 ? axis + rank : axis);
    return true;
}

/* Axes from the attribute (before `input_from`) or from input k. *n = -1:
 * none given. */
static bool read_axes(onnx_ctx *c, ins **in, int nin, int k, int64_t input_from, int64_t **axes,
                      int *n)
{
    if (c->opset >= input_from) {
        *n = -1;
        if (k < nin && in[k])
            return onnx_const_ints(c, in[k], "axes", axes, n);
        return true;
    }
    const int64_t *a = onnx_attr_ints(c, "axes", n);
    if (*n < 0)
        return true;
    int64_t *copy = arena_alloc(&c->scratch, (size_t)(*n + 1) * sizeof *copy);
    if (!copy)
        return onnx_fail(c, "out of memory");
    memcpy(copy, a, (size_t)*n * sizeof *copy);
    *axes = copy;
    return true;
}

static bool normalize_axes(onnx_ctx *c, int64_t *axes, int n, int rank)
{
    for (int i = 0; i < n; i++) {
        int a;
        if (!normalize_axis(c, axes[i], rank, &a))
            return false;
        axes[i] = a;
        for (int j = 0; j < i; j++)
            if (axes[j] == a)
                return onnx_fail(c, "axis %d appears twice", a);
    }
    /* sort ascending */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && axes[j - 1] > axes[j]; j--) {
            int64_t t = axes[j];
            axes[j] = axes[j - 1];
            axes[j - 1] = t;
        }
    return true;
}

static ins *reshape_to(onnx_ctx *c, ins *x, int rank, const int64_t *lens)
{
    if (!x)
        return NULL;
    if (same_lens(&x->sh, rank, lens))
        return x;
    if (!shape_standard_p(&x->sh) && op_find("contiguous"))
        x = onnx_emit1(c, "contiguous", x);
    return emit_ints(c, "reshape", "dims", lens, rank, x);
}

static bool need_inputs(onnx_ctx *c, ins **in, int nin, int count)
{
    if (nin < count)
        return onnx_fail(c, "needs %d inputs, has %d", count, nin);
    for (int i = 0; i < count; i++)
        if (!in[i])
            return onnx_fail(c, "input %d is missing", i);
    return true;
}

/* ---- elementwise ---- */

static ins *scale_by(onnx_ctx *c, ins *x, double k);
static ins *add_constant(onnx_ctx *c, ins *x, double k);
static bool yields_bool(const char *graft_op);

static bool h_identity(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    if (!need_inputs(c, in, nin, 1))
        return false;
    out[0] = in[0];
    return true;
}

static bool h_unary(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *y = onnx_emit1(c, c->entry->graft_op, in[0]);
    if (yields_bool(c->entry->graft_op))
        y = convert_to(c, y, GRAFT_BOOL);
    return (out[0] = y) != NULL;
}

/* Hyperbolic functions graft has no op for, through exp, log and sqrt. */
static bool h_hyperbolic(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *x = in[0];
    const char *op = c->node->op_type;
    graft_type t = x->sh.type;
    ins *y = NULL;
    if (strcmp(op, "Sinh") == 0 || strcmp(op, "Cosh") == 0) {
        ins *ep = onnx_emit1(c, "exp", x), *en = onnx_emit1(c, "exp", onnx_emit1(c, "neg", x));
        y = scale_by(c, onnx_emit2(c, op[0] == 'S' ? "sub" : "add", ep, en), 0.5);
    } else if (strcmp(op, "Asinh") == 0 || strcmp(op, "Acosh") == 0) {
        ins *sq = add_constant(c, onnx_emit2(c, "mul", x, x), op[1] == 's' ? 1.0 : -1.0);
        y = onnx_emit1(c, "log", onnx_emit2(c, "add", x, onnx_emit1(c, "sqrt", sq)));
    } else {
        ins *one = broadcast_to(c, onnx_scalar(c, t, 1.0), x->sh.rank, x->sh.lens);
        ins *q = onnx_emit2(c, "div", onnx_emit2(c, "add", one, x), onnx_emit2(c, "sub", one, x));
        y = scale_by(c, onnx_emit1(c, "log", q), 0.5);
    }
    return (out[0] = y) != NULL;
}

/* IsInf: x == +inf or x == -inf, as the attributes ask. */
static bool h_isinf(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *x = in[0], *y = NULL;
    if (!type_is_float(x->sh.type))
        return onnx_unsupported(c, "non-float input");
    bool pos = onnx_attr_int(c, "detect_positive", 1) != 0;
    bool neg = onnx_attr_int(c, "detect_negative", 1) != 0;
    if (pos)
        y = convert_to(c, binary(c, "equal", x, onnx_scalar(c, x->sh.type, INFINITY)), GRAFT_BOOL);
    if (neg) {
        ins *n = convert_to(c, binary(c, "equal", x, onnx_scalar(c, x->sh.type, -INFINITY)),
                            GRAFT_BOOL);
        y = y ? onnx_emit2(c, "logical_or", y, n) : n;
    }
    if (!pos && !neg)
        y = broadcast_to(c, onnx_scalar(c, GRAFT_BOOL, 0), x->sh.rank, x->sh.lens);
    return (out[0] = convert_to(c, y, GRAFT_BOOL)) != NULL;
}

/* Shrink: x + bias below -lambd, x - bias above lambd, else 0. */
static bool h_shrink(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *x = in[0];
    double lambd = onnx_attr_float(c, "lambd", 0.5), bias = onnx_attr_float(c, "bias", 0.0);
    graft_type t = x->sh.type;
    ins *zero = broadcast_to(c, onnx_scalar(c, t, 0), x->sh.rank, x->sh.lens);
    ins *above = convert_to(c, binary(c, "greater", x, onnx_scalar(c, t, lambd)), GRAFT_BOOL);
    ins *below = convert_to(c, binary(c, "less", x, onnx_scalar(c, t, -lambd)), GRAFT_BOOL);
    ins *a1[3] = {above, add_constant(c, x, -bias), zero};
    ins *inner = onnx_emit(c, "where", NULL, 0, a1, 3);
    ins *a2[3] = {below, add_constant(c, x, bias), inner};
    return (out[0] = onnx_emit(c, "where", NULL, 0, a2, 3)) != NULL;
}

/* EyeLike: ones on the k-th diagonal of a 2-D input's shape, a literal. */
static bool h_eye_like(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *x = in[0];
    if (x->sh.rank != 2)
        return onnx_fail(c, "input must be 2-D");
    graft_type t = x->sh.type;
    const Onnx__AttributeProto *dt = onnx_attr(c, "dtype");
    if (dt && !onnx_type_to_graft((int32_t)dt->i, &t))
        return onnx_unsupported(c, "dtype %s", onnx_type_name((int32_t)dt->i));
    int64_t k = onnx_attr_int(c, "k", 0), rows = x->sh.lens[0], cols = x->sh.lens[1];
    if (rows * cols > (1 << 24))
        return onnx_fail(c, "too large");
    shape sh = shape_standard(t, 2, x->sh.lens);
    char *buf = calloc((size_t)(rows * cols), type_size(t));
    if (!buf)
        return onnx_fail(c, "out of memory");
    tensor tt = {sh, buf};
    for (int64_t i = 0; i < rows; i++)
        if (i + k >= 0 && i + k < cols)
            tensor_set_f64(&tt, i * cols + i + k, 1.0);
    out[0] = onnx_literal(c, &sh, buf);
    free(buf);
    return out[0] != NULL;
}

/* IsNaN: x != x. */
static bool h_isnan(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *y = onnx_emit1(c, "not", convert_to(c, onnx_emit2(c, "equal", in[0], in[0]), GRAFT_BOOL));
    return (out[0] = convert_to(c, y, GRAFT_BOOL)) != NULL;
}

/* Trilu with a constant k: a constant mask selects x or zero. */
static bool h_trilu(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    ins *x = in[0];
    int r = x->sh.rank;
    if (r < 2)
        return onnx_fail(c, "input must have rank 2 or more");
    int64_t k = 0;
    if (nin > 1 && in[1]) {
        int64_t *v;
        int n;
        if (!onnx_const_ints(c, in[1], "k", &v, &n))
            return false;
        if (n != 1)
            return onnx_fail(c, "k must have one element");
        k = v[0];
    }
    bool upper = onnx_attr_int(c, "upper", 1) != 0;
    int64_t rows = x->sh.lens[r - 2], cols = x->sh.lens[r - 1];
    if (rows * cols > (1 << 24))
        return onnx_fail(c, "matrix too large");
    unsigned char *mask = malloc((size_t)(rows * cols));
    if (!mask)
        return onnx_fail(c, "out of memory");
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            mask[i * cols + j] = upper ? j - i >= k : j - i <= k;
    int64_t ml[2] = {rows, cols};
    shape msh = shape_standard(GRAFT_BOOL, 2, ml);
    ins *m = onnx_literal(c, &msh, mask);
    free(mask);
    ins *args[3] = {broadcast_to(c, m, r, x->sh.lens), x,
                    broadcast_to(c, onnx_scalar(c, x->sh.type, 0), r, x->sh.lens)};
    return (out[0] = onnx_emit(c, "where", NULL, 0, args, 3)) != NULL;
}

/* ONNX comparisons and logical ops yield bool whatever graft's op yields. */
static bool yields_bool(const char *graft_op)
{
    static const char *const ops[] = {"equal", "greater", "less", "logical_and", "logical_or",
                                      "logical_xor", "not", NULL};
    for (int i = 0; ops[i]; i++)
        if (strcmp(ops[i], graft_op) == 0)
            return true;
    return false;
}

static bool h_binary(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *b = in[1];
    const char *op = c->entry->graft_op;
    if (strcmp(op, "pow") == 0)
        b = convert_to(c, b, in[0]->sh.type);
    ins *y = binary(c, op, in[0], b);
    if (yields_bool(op))
        y = convert_to(c, y, GRAFT_BOOL);
    return (out[0] = y) != NULL;
}

/* GreaterOrEqual, LessOrEqual: not of the opposite comparison. */
static bool h_compare_or_equal(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *y = onnx_emit1(c, "not", binary(c, c->entry->graft_op, in[0], in[1]));
    return (out[0] = convert_to(c, y, GRAFT_BOOL)) != NULL;
}

/* Max, Min, Sum, Mean: variadic, broadcasting. */
static bool h_variadic(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    if (nin < 1 || !in[0])
        return onnx_fail(c, "needs at least one input");
    bool mean = strcmp(c->node->op_type, "Mean") == 0;
    const char *op = mean ? "add" : c->entry->graft_op;
    ins *acc = in[0];
    for (int i = 1; i < nin && acc; i++) {
        if (!in[i])
            return onnx_fail(c, "input %d is missing", i);
        acc = binary(c, op, acc, in[i]);
    }
    if (mean && acc && nin > 1)
        acc = binary(c, "div", acc, onnx_scalar(c, acc->sh.type, nin));
    return (out[0] = acc) != NULL;
}

static bool h_prelu(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *x = in[0], *slope = in[1];
    /* Before opset 7 a 1-D slope runs along the channel axis. */
    if (c->opset < 7 && slope->sh.rank == 1 && x->sh.rank >= 2 &&
        slope->sh.lens[0] == x->sh.lens[1] && slope->sh.lens[0] != x->sh.lens[x->sh.rank - 1])
        return (out[0] = onnx_emit2(c, "prelu", x,
                                    broadcast_axis(c, slope, 1, x->sh.rank, x->sh.lens))) != NULL;
    return (out[0] = binary(c, "prelu", in[0], in[1])) != NULL;
}

static bool h_leaky_relu(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    attr a = attr_of("alpha", attr_float(onnx_attr_float(c, "alpha", 0.01)));
    return (out[0] = onnx_emit(c, "leaky_relu", &a, 1, in, 1)) != NULL;
}

static bool h_elu(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    attr a = attr_of("alpha", attr_float(onnx_attr_float(c, "alpha", 1.0)));
    return (out[0] = onnx_emit(c, "elu", &a, 1, in, 1)) != NULL;
}

static bool h_hard_sigmoid(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    bool swish = strcmp(c->node->op_type, "HardSwish") == 0;
    attr a[2] = {attr_of("alpha", attr_float(swish ? 1.0 / 6 : onnx_attr_float(c, "alpha", 0.2))),
                 attr_of("beta", attr_float(swish ? 0.5 : onnx_attr_float(c, "beta", 0.5)))};
    ins *h = onnx_emit(c, "hard_sigmoid", a, 2, in, 1);
    out[0] = swish ? onnx_emit2(c, "mul", in[0], h) : h;
    return out[0] != NULL;
}

/* x * k for a constant k, broadcast. */
static ins *scale_by(onnx_ctx *c, ins *x, double k)
{
    if (!x)
        return NULL;
    return binary(c, "mul", x, onnx_scalar(c, x->sh.type, k));
}

static ins *add_constant(onnx_ctx *c, ins *x, double k)
{
    if (!x)
        return NULL;
    return binary(c, "add", x, onnx_scalar(c, x->sh.type, k));
}

static bool h_selu(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    double alpha = onnx_attr_float(c, "alpha", 1.67326319217681884765625);
    double gamma = onnx_attr_float(c, "gamma", 1.05070102214813232421875);
    ins *x = in[0];
    ins *neg = scale_by(c, add_constant(c, onnx_emit1(c, "exp", x), -1.0), alpha);
    ins *pos = binary(c, "greater", x, onnx_scalar(c, x->sh.type, 0));
    ins *args[3] = {pos, x, neg};
    ins *w = args[0] && args[2] ? onnx_emit(c, "where", NULL, 0, args, 3) : NULL;
    return (out[0] = scale_by(c, w, gamma)) != NULL;
}

static bool h_celu(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    double alpha = onnx_attr_float(c, "alpha", 1.0);
    ins *x = in[0];
    ins *e = scale_by(c, add_constant(c, onnx_emit1(c, "exp", scale_by(c, x, 1.0 / alpha)), -1.0),
                      alpha);
    ins *zero = onnx_scalar(c, x->sh.type, 0);
    out[0] = binary(c, "add", binary(c, "max", x, zero), binary(c, "min", e, zero));
    return out[0] != NULL;
}

static bool h_softplus(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    out[0] = onnx_emit1(c, "log", add_constant(c, onnx_emit1(c, "exp", in[0]), 1.0));
    return out[0] != NULL;
}

static bool h_softsign(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    out[0] = binary(c, "div", in[0], add_constant(c, onnx_emit1(c, "abs", in[0]), 1.0));
    return out[0] != NULL;
}

static bool h_thresholded_relu(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *x = in[0];
    ins *cond = binary(c, "greater", x, onnx_scalar(c, x->sh.type, onnx_attr_float(c, "alpha", 1.0)));
    ins *zero = broadcast_to(c, onnx_scalar(c, x->sh.type, 0), x->sh.rank, x->sh.lens);
    ins *args[3] = {cond, x, zero};
    return (out[0] = onnx_emit(c, "where", NULL, 0, args, 3)) != NULL;
}

/* The lowest and highest finite values of a type. */
static double type_lowest(graft_type t)
{
    switch (t) {
    case GRAFT_HALF: return -65504.0;
    case GRAFT_FLOAT: case GRAFT_BF16: return -FLT_MAX;
    case GRAFT_DOUBLE: return -DBL_MAX;
    case GRAFT_INT8: return -128;
    case GRAFT_INT16: return -32768;
    case GRAFT_INT32: return -2147483648.0;
    case GRAFT_INT64: return -9223372036854775807.0;
    default: return 0;
    }
}

static bool h_clip(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    ins *x = in[0], *lo = NULL, *hi = NULL;
    if (c->opset < 11) {
        lo = onnx_scalar(c, x->sh.type, onnx_attr_float(c, "min", type_lowest(x->sh.type)));
        hi = onnx_scalar(c, x->sh.type, onnx_attr_float(c, "max", -type_lowest(x->sh.type)));
    } else {
        lo = nin > 1 ? in[1] : NULL;
        hi = nin > 2 ? in[2] : NULL;
    }
    ins *r = x;
    if (lo)
        r = binary(c, "max", r, lo);
    if (hi)
        r = binary(c, "min", r, hi);
    return (out[0] = r) != NULL;
}

static bool h_where(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    int r1, r2;
    int64_t l1[SHAPE_MAX_RANK], l2[SHAPE_MAX_RANK];
    if (!numpy_lens(c, &in[0]->sh, &in[1]->sh, &r1, l1))
        return false;
    shape tmp = shape_standard(in[1]->sh.type, r1, l1);
    if (!numpy_lens(c, &tmp, &in[2]->sh, &r2, l2))
        return false;
    ins *args[3] = {broadcast_to(c, in[0], r2, l2), broadcast_to(c, in[1], r2, l2),
                    broadcast_to(c, in[2], r2, l2)};
    return (out[0] = onnx_emit(c, "where", NULL, 0, args, 3)) != NULL;
}

static bool h_cast(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    graft_type t;
    if (strcmp(c->node->op_type, "CastLike") == 0) {
        if (!need_inputs(c, in, nin, 2))
            return false;
        t = in[1]->sh.type;
    } else {
        int64_t to = onnx_attr_int(c, "to", 0);
        if (!onnx_type_to_graft((int32_t)to, &t))
            return onnx_unsupported(c, "cast to %s", onnx_type_name((int32_t)to));
    }
    return (out[0] = convert_to(c, in[0], t)) != NULL;
}

static bool h_dropout(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    if (nin > 2 && in[2]) {
        int64_t *mode;
        int n;
        if (!onnx_const_ints(c, in[2], "training_mode", &mode, &n))
            return false;
        if (n > 0 && mode[0]) {
            /* training mode drops at random, unless the ratio is 0 */
            double *ratio = NULL;
            int nr = 0;
            if (nin > 1 && in[1] && !onnx_const_doubles(c, in[1], "ratio", &ratio, &nr))
                return false;
            if (!(nr == 1 && ratio[0] == 0))
                return onnx_unsupported(c, "training mode (a random mask)");
        }
    }
    out[0] = in[0];
    if (nout > 1) {
        ins *one = onnx_scalar(c, GRAFT_BOOL, 1);
        out[1] = broadcast_to(c, one, in[0]->sh.rank, in[0]->sh.lens);
        if (!out[1])
            return false;
    }
    return true;
}

/* ---- matrix products ---- */

static ins *transpose_last2(onnx_ctx *c, ins *x)
{
    if (!x)
        return NULL;
    int64_t perm[SHAPE_MAX_RANK];
    int r = x->sh.rank;
    for (int i = 0; i < r; i++)
        perm[i] = i;
    perm[r - 2] = r - 1;
    perm[r - 1] = r - 2;
    return emit_ints(c, "transpose", "permutation", perm, r, x);
}

static bool h_gemm(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    ins *a = in[0], *b = in[1], *cc = nin > 2 ? in[2] : NULL;
    if (a->sh.rank != 2 || b->sh.rank != 2)
        return onnx_fail(c, "A and B must be 2-D");
    double alpha = onnx_attr_float(c, "alpha", 1.0), beta = onnx_attr_float(c, "beta", 1.0);
    if (onnx_attr_int(c, "transA", 0))
        a = transpose_last2(c, a);
    if (onnx_attr_int(c, "transB", 0))
        b = transpose_last2(c, b);
    ins *d = onnx_emit2(c, "dot", a, b);
    if (d && alpha != 1.0)
        d = scale_by(c, d, alpha);
    if (d && cc && beta != 0.0) {
        ins *cb = broadcast_to(c, cc, 2, d->sh.lens);
        if (beta != 1.0)
            cb = scale_by(c, cb, beta);
        d = onnx_emit2(c, "add", d, cb);
    }
    return (out[0] = d) != NULL;
}

static bool h_matmul(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *a = in[0], *b = in[1];
    bool a_vec = a->sh.rank == 1, b_vec = b->sh.rank == 1;
    int64_t first = 0, second = 1;
    if (a_vec)
        a = emit_ints(c, "unsqueeze", "axes", &first, 1, a);
    if (b_vec)
        b = emit_ints(c, "unsqueeze", "axes", &second, 1, b);
    if (!a || !b)
        return false;
    int ra = a->sh.rank, rb = b->sh.rank;
    if (a->sh.lens[ra - 1] != b->sh.lens[rb - 2])
        return onnx_fail(c, "inner dimensions differ: %lld and %lld", (long long)a->sh.lens[ra - 1],
                         (long long)b->sh.lens[rb - 2]);
    if (ra > 2 || rb > 2) {
        shape ba = shape_standard(a->sh.type, ra - 2 > 0 ? ra - 2 : 1, a->sh.lens);
        shape bb = shape_standard(b->sh.type, rb - 2 > 0 ? rb - 2 : 1, b->sh.lens);
        if (ra == 2)
            ba.lens[0] = 1;
        if (rb == 2)
            bb.lens[0] = 1;
        int r;
        int64_t lens[SHAPE_MAX_RANK];
        if (!numpy_lens(c, &ba, &bb, &r, lens))
            return false;
        if (r + 2 > SHAPE_MAX_RANK)
            return onnx_fail(c, "rank too large");
        int64_t la[SHAPE_MAX_RANK], lb[SHAPE_MAX_RANK];
        memcpy(la, lens, sizeof lens);
        memcpy(lb, lens, sizeof lens);
        la[r] = a->sh.lens[ra - 2];
        la[r + 1] = a->sh.lens[ra - 1];
        lb[r] = b->sh.lens[rb - 2];
        lb[r + 1] = b->sh.lens[rb - 1];
        a = broadcast_to(c, a, r + 2, la);
        b = broadcast_to(c, b, r + 2, lb);
    }
    ins *d = onnx_emit2(c, "dot", a, b);
    if (d && (a_vec || b_vec)) {
        int64_t axes[2];
        int n = 0, r = d->sh.rank;
        if (a_vec)
            axes[n++] = r - 2;
        if (b_vec)
            axes[n++] = r - 1;
        d = emit_ints(c, "squeeze", "axes", axes, n, d);
    }
    return (out[0] = d) != NULL;
}

/* ---- convolution and pooling ---- */

/* Explicit padding [begin..., end...] for k spatial dims from pads or
 * auto_pad. */
static bool window_padding(onnx_ctx *c, const shape *x, int k, const int64_t *kernel,
                           const int64_t *strides, const int64_t *dilations, bool ceil_mode,
                           int64_t *padding)
{
    char mode[32];
    onnx_attr_string(c, "auto_pad", "NOTSET", mode, sizeof mode);
    for (int i = 0; i < 2 * k; i++)
        padding[i] = 0;
    if (strcmp(mode, "NOTSET") == 0) {
        int n;
        const int64_t *pads = onnx_attr_ints(c, "pads", &n);
        if (n >= 0 && n != 2 * k)
            return onnx_fail(c, "pads has %d values, expected %d", n, 2 * k);
        for (int i = 0; n > 0 && i < 2 * k; i++) {
            if (pads[i] < 0)
                return onnx_unsupported(c, "negative pads");
            padding[i] = pads[i];
        }
        return true;
    }
    if (strcmp(mode, "VALID") == 0)
        return true;
    bool upper = strcmp(mode, "SAME_UPPER") == 0;
    if (!upper && strcmp(mode, "SAME_LOWER") != 0)
        return onnx_fail(c, "unknown auto_pad '%s'", mode);
    (void)ceil_mode;
    for (int i = 0; i < k; i++) {
        int64_t len = x->lens[2 + i], s = strides[i];
        int64_t out_len = (len + s - 1) / s;
        int64_t extent = (kernel[i] - 1) * dilations[i] + 1;
        int64_t total = (out_len - 1) * s + extent - len;
        if (total < 0)
            total = 0;
        int64_t small = total / 2, big = total - small;
        padding[i] = upper ? small : big;
        padding[k + i] = upper ? big : small;
    }
    return true;
}

static bool window_attrs(onnx_ctx *c, int k, const char *name, int64_t dflt, int64_t *out)
{
    int n;
    const int64_t *v = onnx_attr_ints(c, name, &n);
    if (n >= 0 && n != k)
        return onnx_fail(c, "%s has %d values, expected %d", name, n, k);
    for (int i = 0; i < k; i++) {
        out[i] = n > 0 ? v[i] : dflt;
        if (out[i] < 1)
            return onnx_fail(c, "%s must be positive", name);
    }
    return true;
}

static bool h_conv(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    ins *x = in[0], *w = in[1], *bias = nin > 2 ? in[2] : NULL;
    int k = x->sh.rank - 2;
    if (k < 1 || w->sh.rank != x->sh.rank)
        return onnx_fail(c, "X and W must have the same rank, at least 3");
    int64_t kernel[SHAPE_MAX_RANK], strides[SHAPE_MAX_RANK], dil[SHAPE_MAX_RANK];
    int64_t padding[2 * SHAPE_MAX_RANK];
    for (int i = 0; i < k; i++)
        kernel[i] = w->sh.lens[2 + i];
    if (!window_attrs(c, k, "strides", 1, strides) || !window_attrs(c, k, "dilations", 1, dil) ||
        !window_padding(c, &x->sh, k, kernel, strides, dil, false, padding))
        return false;
    attr a[4] = {attr_of("padding", attr_ints(padding, 2 * k)),
                 attr_of("stride", attr_ints(strides, k)),
                 attr_of("dilation", attr_ints(dil, k)),
                 attr_of("group", attr_int(onnx_attr_int(c, "group", 1)))};
    ins *args[2] = {x, w};
    ins *y = onnx_emit(c, "convolution", a, 4, args, 2);
    if (y && bias)
        y = onnx_emit2(c, "add", y, broadcast_axis(c, bias, 1, y->sh.rank, y->sh.lens));
    return (out[0] = y) != NULL;
}

static bool h_pool(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nin;
    ins *x = in[0];
    const char *op = c->node->op_type;
    bool global = strncmp(op, "Global", 6) == 0;
    const char *kind = global ? op + 6 : op;
    const char *mode = strncmp(kind, "Max", 3) == 0 ? "max"
                       : strncmp(kind, "Lp", 2) == 0 ? "lpnorm" : "average";
    int k = x->sh.rank - 2;
    if (k < 1)
        return onnx_fail(c, "input must have rank 3 or more");
    int64_t kernel[SHAPE_MAX_RANK], strides[SHAPE_MAX_RANK], dil[SHAPE_MAX_RANK];
    int64_t padding[2 * SHAPE_MAX_RANK];
    bool ceil_mode = false;
    if (global) {
        for (int i = 0; i < k; i++) {
            kernel[i] = x->sh.lens[2 + i];
            strides[i] = dil[i] = 1;
            padding[i] = padding[k + i] = 0;
        }
    } else {
        int n;
        const int64_t *ks = onnx_attr_ints(c, "kernel_shape", &n);
        if (n != k)
            return onnx_fail(c, "kernel_shape must have %d values", k);
        for (int i = 0; i < k; i++)
            kernel[i] = ks[i];
        ceil_mode = onnx_attr_int(c, "ceil_mode", 0) != 0;
        if (!window_attrs(c, k, "strides", 1, strides) || !window_attrs(c, k, "dilations", 1, dil) ||
            !window_padding(c, &x->sh, k, kernel, strides, dil, ceil_mode, padding))
            return false;
    }
    attr a[8];
    int na = 0;
    a[na++] = attr_of("mode", attr_string(mode));
    a[na++] = attr_of("padding", attr_ints(padding, 2 * k));
    a[na++] = attr_of("stride", attr_ints(strides, k));
    a[na++] = attr_of("lengths", attr_ints(kernel, k));
    a[na++] = attr_of("dilations", attr_ints(dil, k));
    a[na++] = attr_of("ceil_mode", attr_bool(ceil_mode));
    if (strcmp(mode, "average") == 0)
        a[na++] = attr_of("count_include_pad",
                          attr_bool(onnx_attr_int(c, "count_include_pad", 0) != 0));
    if (strcmp(mode, "lpnorm") == 0)
        a[na++] = attr_of("lp_order", attr_int(onnx_attr_int(c, "p", 2)));
    /* MaxPool's second output: where each window's maximum is, as a flat
     * index into X (the window attributes are pooling's, after the mode) */
    if (nout > 1 && strcmp(mode, "max") == 0 && !global) {
        attr ia[6];
        for (int i = 0; i < 5; i++)
            ia[i] = a[i + 1];
        ia[5] = attr_of("storage_order", attr_int(onnx_attr_int(c, "storage_order", 0)));
        if (!(out[1] = onnx_emit(c, "max_pooling_indices", ia, 6, &x, 1)))
            return false;
    }
    return (out[0] = onnx_emit(c, "pooling", a, na, &x, 1)) != NULL;
}

static bool h_lrn(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    attr a[4] = {attr_of("alpha", attr_float(onnx_attr_float(c, "alpha", 1e-4))),
                 attr_of("beta", attr_float(onnx_attr_float(c, "beta", 0.75))),
                 attr_of("bias", attr_float(onnx_attr_float(c, "bias", 1.0))),
                 attr_of("size", attr_int(onnx_attr_int(c, "size", 1)))};
    return (out[0] = onnx_emit(c, "lrn", a, 4, in, 1)) != NULL;
}

/* ---- normalizations ---- */

/* (x - mean) * rsqrt(var + eps) over axes, with mean and variance kept as
 * ins for callers that output them. */
static ins *normalize_over(onnx_ctx *c, ins *x, const int64_t *axes, int naxes, double eps,
                           ins **mean_out, ins **inv_std_out)
{
    if (!x)
        return NULL;
    ins *mean = emit_ints(c, "reduce_mean", "axes", axes, naxes, x);
    ins *mean_b = broadcast_to(c, mean, x->sh.rank, x->sh.lens);
    ins *centered = onnx_emit2(c, "sub", x, mean_b);
    ins *var = emit_ints(c, "reduce_mean", "axes", axes, naxes, onnx_emit2(c, "sqdiff", x, mean_b));
    ins *inv_std = onnx_emit1(c, "rsqrt", add_constant(c, var, eps));
    if (mean_out)
        *mean_out = mean;
    if (inv_std_out)
        *inv_std_out = inv_std;
    return onnx_emit2(c, "mul", centered, broadcast_to(c, inv_std, x->sh.rank, x->sh.lens));
}

static bool h_batch_norm(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    if (onnx_attr_int(c, "training_mode", 0))
        return onnx_batch_norm_training(c, in, nin, out, nout);
    for (int k = 1; k < nout; k++)
        if (c->node->output[k] && *c->node->output[k])
            return onnx_unsupported(c, "training outputs");
    ins *x = in[0];
    if (x->sh.rank < 2)
        return onnx_fail(c, "X must have rank 2 or more");
    double eps = onnx_attr_float(c, "epsilon", 1e-5);
    /* per-channel factors first: scale * rsqrt(var + eps) and bias - mean * that */
    ins *inv_std = onnx_emit1(c, "rsqrt", add_constant(c, in[4], eps));
    const int64_t *l = x->sh.lens;
    int r = x->sh.rank;
    ins *centered = onnx_emit2(c, "sub", x, broadcast_axis(c, in[3], 1, r, l));
    ins *scaled = onnx_emit2(c, "mul", centered,
                             broadcast_axis(c, onnx_emit2(c, "mul", in[1], inv_std), 1, r, l));
    out[0] = onnx_emit2(c, "add", scaled, broadcast_axis(c, in[2], 1, r, l));
    return out[0] != NULL;
}

static bool h_instance_norm(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *x = in[0];
    int r = x->sh.rank;
    if (r < 3)
        return onnx_fail(c, "X must have rank 3 or more");
    int64_t axes[SHAPE_MAX_RANK];
    for (int i = 2; i < r; i++)
        axes[i - 2] = i;
    ins *y = normalize_over(c, x, axes, r - 2, onnx_attr_float(c, "epsilon", 1e-5), NULL, NULL);
    y = onnx_emit2(c, "mul", y, broadcast_axis(c, in[1], 1, r, x->sh.lens));
    out[0] = onnx_emit2(c, "add", y, broadcast_axis(c, in[2], 1, r, x->sh.lens));
    return out[0] != NULL;
}

static bool h_layer_norm(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    ins *x = in[0];
    int r = x->sh.rank, axis;
    if (!normalize_axis(c, onnx_attr_int(c, "axis", -1), r, &axis))
        return false;
    int64_t axes[SHAPE_MAX_RANK];
    for (int i = axis; i < r; i++)
        axes[i - axis] = i;
    ins *mean = NULL, *inv_std = NULL;
    ins *y = normalize_over(c, x, axes, r - axis, onnx_attr_float(c, "epsilon", 1e-5), &mean,
                            &inv_std);
    y = binary(c, "mul", y, in[1]);
    if (nin > 2 && in[2])
        y = binary(c, "add", y, in[2]);
    out[0] = y;
    if (nout > 1)
        out[1] = mean;
    if (nout > 2)
        out[2] = inv_std;
    return y != NULL;
}

static bool h_group_norm(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *x = in[0];
    int r = x->sh.rank;
    int64_t groups = onnx_attr_int(c, "num_groups", 0);
    if (r < 3 || groups < 1 || x->sh.lens[1] % groups)
        return onnx_fail(c, "num_groups %lld does not divide the channels", (long long)groups);
    int64_t glens[SHAPE_MAX_RANK + 1];
    glens[0] = x->sh.lens[0];
    glens[1] = groups;
    glens[2] = x->sh.lens[1] / groups;
    for (int i = 2; i < r; i++)
        glens[i + 1] = x->sh.lens[i];
    if (r + 1 > SHAPE_MAX_RANK)
        return onnx_fail(c, "rank too large");
    int64_t axes[SHAPE_MAX_RANK];
    for (int i = 2; i < r + 1; i++)
        axes[i - 2] = i;
    ins *g = reshape_to(c, x, r + 1, glens);
    ins *y = normalize_over(c, g, axes, r - 1, onnx_attr_float(c, "epsilon", 1e-5), NULL, NULL);
    if (c->opset >= 21) {
        y = reshape_to(c, y, r, x->sh.lens);
        y = onnx_emit2(c, "mul", y, broadcast_axis(c, in[1], 1, r, x->sh.lens));
        y = onnx_emit2(c, "add", y, broadcast_axis(c, in[2], 1, r, x->sh.lens));
    } else {
        y = onnx_emit2(c, "mul", y, broadcast_axis(c, in[1], 1, r + 1, glens));
        y = onnx_emit2(c, "add", y, broadcast_axis(c, in[2], 1, r + 1, glens));
        y = reshape_to(c, y, r, x->sh.lens);
    }
    return (out[0] = y) != NULL;
}

static bool h_mvn(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    int n;
    const int64_t *a = onnx_attr_ints(c, "axes", &n);
    int64_t axes[SHAPE_MAX_RANK] = {0, 2, 3};
    if (n < 0)
        n = 3;
    else if (n > SHAPE_MAX_RANK)
        return onnx_fail(c, "too many axes");
    else
        memcpy(axes, a, (size_t)n * sizeof *axes);
    if (!normalize_axes(c, axes, n, in[0]->sh.rank))
        return false;
    return (out[0] = normalize_over(c, in[0], axes, n, 1e-9, NULL, NULL)) != NULL;
}

/* Softmax, LogSoftmax: one axis from opset 13; before, the input is seen as
 * 2-D [prod(dims < axis), prod(dims >= axis)]. */
static bool h_softmax(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *x = in[0];
    int r = x->sh.rank, axis;
    bool new_semantics = c->opset >= 13;
    if (!normalize_axis(c, onnx_attr_int(c, "axis", new_semantics ? -1 : 1), r, &axis))
        return false;
    const char *op = c->entry->graft_op;
    if (new_semantics || axis == r - 1)
        return (out[0] = emit_int(c, op, "axis", axis, x)) != NULL;
    int64_t flat[2] = {1, 1};
    for (int i = 0; i < r; i++)
        flat[i < axis ? 0 : 1] *= x->sh.lens[i];
    ins *y = emit_int(c, op, "axis", 1, reshape_to(c, x, 2, flat));
    return (out[0] = reshape_to(c, y, r, x->sh.lens)) != NULL;
}

/* ---- reductions ---- */

static bool h_reduce(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    const char *op = c->node->op_type;
    int64_t input_from = strcmp(op, "ReduceSum") == 0 ? 13 : 18;
    int64_t *axes = NULL;
    int n;
    if (!read_axes(c, in, nin, 1, input_from, &axes, &n))
        return false;
    ins *x = in[0];
    int r = x->sh.rank;
    if (n <= 0) {
        if (onnx_attr_int(c, "noop_with_empty_axes", 0))
            return (out[0] = x) != NULL;
        axes = arena_alloc(&c->scratch, sizeof *axes * SHAPE_MAX_RANK);
        if (!axes)
            return onnx_fail(c, "out of memory");
        for (int i = 0; i < r; i++)
            axes[i] = i;
        n = r;
    }
    if (!normalize_axes(c, axes, n, r))
        return false;
    const char *graft = c->entry->graft_op;
    ins *v = x;
    if (strcmp(op, "ReduceSumSquare") == 0 || strcmp(op, "ReduceL2") == 0)
        v = onnx_emit2(c, "mul", x, x);
    else if (strcmp(op, "ReduceL1") == 0)
        v = onnx_emit1(c, "abs", x);
    else if (strcmp(op, "ReduceLogSumExp") == 0)
        v = onnx_emit1(c, "exp", x);
    ins *y = emit_ints(c, graft, "axes", axes, n, v);
    if (strcmp(op, "ReduceL2") == 0)
        y = onnx_emit1(c, "sqrt", y);
    else if (strcmp(op, "ReduceLogSum") == 0 || strcmp(op, "ReduceLogSumExp") == 0)
        y = onnx_emit1(c, "log", y);
    if (y && !onnx_attr_int(c, "keepdims", 1)) {
        if (n == r) {
            int64_t one = 1;
            y = reshape_to(c, y, 1, &one);
        } else {
            y = emit_ints(c, "squeeze", "axes", axes, n, y);
        }
    }
    return (out[0] = y) != NULL;
}

static bool h_argminmax(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *x = in[0];
    int axis;
    if (!normalize_axis(c, onnx_attr_int(c, "axis", 0), x->sh.rank, &axis))
        return false;
    attr a[2] = {attr_of("axis", attr_int(axis)),
                 attr_of("select_last_index", attr_bool(onnx_attr_int(c, "select_last_index", 0)))};
    ins *y = onnx_emit(c, c->entry->graft_op, a, 2, &x, 1);
    if (y && !onnx_attr_int(c, "keepdims", 1)) {
        int64_t ax = axis;
        if (x->sh.rank == 1) {
            int64_t one = 1;
            y = reshape_to(c, y, 1, &one);
        } else {
            y = emit_ints(c, "squeeze", "axes", &ax, 1, y);
        }
    }
    return (out[0] = y) != NULL;
}

/* ---- shapes and data movement ---- */

static bool h_reshape(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    ins *x = in[0];
    int64_t *dims;
    int n;
    if (c->opset < 5) {
        const int64_t *s = onnx_attr_ints(c, "shape", &n);
        if (n < 0)
            return onnx_fail(c, "missing shape");
        dims = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof *dims);
        if (!dims)
            return onnx_fail(c, "out of memory");
        memcpy(dims, s, (size_t)n * sizeof *dims);
    } else if (!need_inputs(c, in, nin, 2) || !onnx_const_ints(c, in[1], "shape", &dims, &n)) {
        return false;
    }
    if (n < 1 || n > SHAPE_MAX_RANK)
        return onnx_unsupported(c, "target rank %d", n);
    bool allowzero = onnx_attr_int(c, "allowzero", 0) != 0;
    int64_t lens[SHAPE_MAX_RANK], known = 1;
    int infer = -1;
    for (int i = 0; i < n; i++) {
        lens[i] = dims[i];
        if (dims[i] == 0 && !allowzero) {
            if (i >= x->sh.rank)
                return onnx_fail(c, "shape copies dimension %d, the input has rank %d", i,
                                 x->sh.rank);
            lens[i] = x->sh.lens[i];
        }
        if (lens[i] == -1) {
            if (infer >= 0)
                return onnx_fail(c, "shape has two -1 entries");
            infer = i;
            continue;
        }
        if (lens[i] < 0)
            return onnx_fail(c, "negative dimension %lld", (long long)lens[i]);
        if (__builtin_mul_overflow(known, lens[i], &known))
            return onnx_fail(c, "shape has more elements than a 64-bit count holds");
    }
    int64_t total = shape_elements(&x->sh);
    if (infer >= 0) {
        if (known == 0 || total % known)
            return onnx_fail(c, "cannot infer -1: %lld elements into %lld", (long long)total,
                             (long long)known);
        lens[infer] = total / known;
        known = total;
    }
    if (known != total)
        return onnx_fail(c, "cannot reshape %lld elements into %lld", (long long)total,
                         (long long)known);
    /* graft's reshape (MIGraphX's) reads a 0 in dims as "copy that axis", so
     * it cannot name an empty target; a value without elements carries no
     * data and is the empty literal of its shape */
    if (total == 0 && !same_lens(&x->sh, n, lens)) {
        shape empty = shape_standard(x->sh.type, n, lens);
        return (out[0] = onnx_literal(c, &empty, NULL)) != NULL;
    }
    return (out[0] = reshape_to(c, x, n, lens)) != NULL;
}

static bool h_flatten(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *x = in[0];
    int r = x->sh.rank;
    int64_t axis = onnx_attr_int(c, "axis", 1);
    if (axis < -r || axis > r)
        return onnx_fail(c, "axis %lld out of range", (long long)axis);
    if (axis < 0)
        axis += r;
    int64_t flat[2] = {1, 1};
    for (int i = 0; i < r; i++)
        flat[i < axis ? 0 : 1] *= x->sh.lens[i];
    return (out[0] = reshape_to(c, x, 2, flat)) != NULL;
}

static bool h_transpose(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *x = in[0];
    int r = x->sh.rank, n;
    int64_t perm[SHAPE_MAX_RANK];
    const int64_t *p = onnx_attr_ints(c, "perm", &n);
    if (n >= 0 && n != r)
        return onnx_fail(c, "perm has %d entries for rank %d", n, r);
    for (int i = 0; i < r; i++)
        perm[i] = n > 0 ? p[i] : r - 1 - i;
    for (int i = 0; i < r; i++) {
        if (perm[i] < 0 || perm[i] >= r)
            return onnx_fail(c, "bad perm");
        for (int j = 0; j < i; j++)
            if (perm[j] == perm[i])
                return onnx_fail(c, "perm repeats %lld", (long long)perm[i]);
    }
    return (out[0] = emit_ints(c, "transpose", "permutation", perm, r, x)) != NULL;
}

static bool h_squeeze(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    ins *x = in[0];
    int64_t *axes = NULL;
    int n;
    if (!read_axes(c, in, nin, 1, 13, &axes, &n))
        return false;
    int64_t all[SHAPE_MAX_RANK];
    if (n < 0) {
        n = 0;
        for (int i = 0; i < x->sh.rank; i++)
            if (x->sh.lens[i] == 1)
                all[n++] = i;
        axes = all;
    }
    if (!normalize_axes(c, axes, n, x->sh.rank))
        return false;
    for (int i = 0; i < n; i++)
        if (x->sh.lens[axes[i]] != 1)
            return onnx_fail(c, "cannot squeeze axis %lld of length %lld", (long long)axes[i],
                             (long long)x->sh.lens[axes[i]]);
    if (n == x->sh.rank) {
        int64_t one = 1; /* a scalar stays {1} in graft */
        return (out[0] = reshape_to(c, x, 1, &one)) != NULL;
    }
    if (n == 0)
        return (out[0] = x) != NULL;
    return (out[0] = emit_ints(c, "squeeze", "axes", axes, n, x)) != NULL;
}

static bool h_unsqueeze(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    ins *x = in[0];
    int64_t *axes = NULL;
    int n;
    if (!read_axes(c, in, nin, 1, 13, &axes, &n))
        return false;
    if (n <= 0)
        return onnx_fail(c, "axes are required");
    if (x->sh.rank + n > SHAPE_MAX_RANK)
        return onnx_fail(c, "rank too large");
    if (!normalize_axes(c, axes, n, x->sh.rank + n))
        return false;
    return (out[0] = emit_ints(c, "unsqueeze", "axes", axes, n, x)) != NULL;
}

static bool h_concat(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    if (nin < 1 || !in[0])
        return onnx_fail(c, "needs inputs");
    int axis;
    if (!normalize_axis(c, onnx_attr_int(c, "axis", 0), in[0]->sh.rank, &axis))
        return false;
    if (nin == 1)
        return (out[0] = in[0]) != NULL;
    attr a = attr_of("axis", attr_int(axis));
    return (out[0] = onnx_emit(c, "concat", &a, 1, in, nin)) != NULL;
}

/* Clamps ONNX slice bounds for one axis of length len (step 1). */
static void clamp_bounds(int64_t len, int64_t *start, int64_t *end)
{
    if (*start < 0)
        *start += len;
    if (*end < 0)
        *end += len;
    if (*start < 0)
        *start = 0;
    if (*start > len)
        *start = len;
    if (*end < 0)
        *end = 0;
    if (*end > len)
        *end = len;
}

static ins *slice_axis(onnx_ctx *c, ins *x, int64_t axis, int64_t start, int64_t end)
{
    attr a[3] = {attr_of("axes", attr_ints(&axis, 1)), attr_of("starts", attr_ints(&start, 1)),
                 attr_of("ends", attr_ints(&end, 1))};
    return onnx_emit(c, "slice", a, 3, &x, 1);
}

/* A slice with a step other than 1 (negative runs backwards), as a gather
 * of the positions it keeps; bounds clamp as ONNX's Slice says. */
static ins *slice_with_step(onnx_ctx *c, ins *x, int axis, int64_t start, int64_t end,
                            int64_t step)
{
    if (step == 0)
        return onnx_fail(c, "a step of 0"), NULL;
    int64_t len = x->sh.lens[axis];
    if (start < 0)
        start += len;
    if (end < 0)
        end += len;
    /* forwards: start and end in [0, len]; backwards: start in [0, len - 1],
     * end in [-1, len - 1] */
    int64_t hi = step > 0 ? len : len - 1, end_lo = step > 0 ? 0 : -1;
    start = start < 0 ? 0 : start > hi ? hi : start;
    end = end < end_lo ? end_lo : end > hi ? hi : end;
    int64_t *pos = arena_alloc(&c->scratch, (size_t)(len + 1) * sizeof *pos);
    if (!pos)
        return onnx_fail(c, "out of memory"), NULL;
    int n = 0;
    for (int64_t i = start; step > 0 ? i < end : i > end; i += step)
        pos[n++] = i;
    if (n == 0)
        return slice_axis(c, x, axis, 0, 0);
    attr a = attr_of("axis", attr_int(axis));
    ins *args[2] = {x, onnx_int64_literal(c, pos, n)};
    return onnx_emit(c, "gather", &a, 1, args, 2);
}

static bool h_slice(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    ins *x = in[0];
    int r = x->sh.rank;
    int64_t *starts, *ends, *axes = NULL, *steps = NULL;
    int ns, ne, na = -1, nst = -1;
    if (c->opset < 10) {
        const int64_t *s = onnx_attr_ints(c, "starts", &ns), *e = onnx_attr_ints(c, "ends", &ne);
        const int64_t *a = onnx_attr_ints(c, "axes", &na);
        if (ns < 0 || ne < 0)
            return onnx_fail(c, "starts and ends are required");
        starts = arena_alloc(&c->scratch, (size_t)(ns + ne + (na > 0 ? na : 0) + 3) * 8);
        if (!starts)
            return onnx_fail(c, "out of memory");
        ends = starts + ns + 1;
        memcpy(starts, s, (size_t)ns * 8);
        memcpy(ends, e, (size_t)ne * 8);
        if (na >= 0) {
            axes = ends + ne + 1;
            memcpy(axes, a, (size_t)na * 8);
        }
    } else {
        if (!need_inputs(c, in, nin, 3) || !onnx_const_ints(c, in[1], "starts", &starts, &ns) ||
            !onnx_const_ints(c, in[2], "ends", &ends, &ne))
            return false;
        if (nin > 3 && in[3] && !onnx_const_ints(c, in[3], "axes", &axes, &na))
            return false;
        if (nin > 4 && in[4] && !onnx_const_ints(c, in[4], "steps", &steps, &nst))
            return false;
    }
    if (ns != ne || (na >= 0 && na != ns) || (nst >= 0 && nst != ns))
        return onnx_fail(c, "starts, ends, axes and steps differ in length");
    ins *y = x;
    bool seen[SHAPE_MAX_RANK] = {false};
    for (int i = 0; i < ns && y; i++) {
        int axis;
        if (!normalize_axis(c, na >= 0 ? axes[i] : i, r, &axis))
            return false;
        if (seen[axis])
            return onnx_fail(c, "axis %d repeats", axis);
        seen[axis] = true;
        int64_t step = nst >= 0 ? steps[i] : 1;
        if (step != 1) {
            y = slice_with_step(c, y, axis, starts[i], ends[i], step);
            continue;
        }
        int64_t len = x->sh.lens[axis];
        int64_t s = starts[i], e = ends[i];
        clamp_bounds(len, &s, &e);
        /* an empty slice is a tensor with a 0 on that axis */
        if (e <= s) {
            y = slice_axis(c, y, axis, s, s);
            continue;
        }
        if (s == 0 && e == len)
            continue;
        y = slice_axis(c, y, axis, s, e);
    }
    return (out[0] = y) != NULL;
}

static bool h_split(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    ins *x = in[0];
    int axis;
    if (!normalize_axis(c, onnx_attr_int(c, "axis", 0), x->sh.rank, &axis))
        return false;
    int64_t *sizes = NULL;
    int n = -1;
    if (c->opset >= 13) {
        if (nin > 1 && in[1] && !onnx_const_ints(c, in[1], "split", &sizes, &n))
            return false;
    } else {
        const int64_t *s = onnx_attr_ints(c, "split", &n);
        if (n >= 0) {
            sizes = arena_alloc(&c->scratch, (size_t)(n + 1) * 8);
            if (!sizes)
                return onnx_fail(c, "out of memory");
            memcpy(sizes, s, (size_t)n * 8);
        }
    }
    int64_t len = x->sh.lens[axis];
    if (n < 0) {
        int64_t parts = onnx_attr_int(c, "num_outputs", nout);
        if (parts < 1 || parts != nout)
            return onnx_fail(c, "bad number of outputs");
        sizes = arena_alloc(&c->scratch, (size_t)parts * 8);
        if (!sizes)
            return onnx_fail(c, "out of memory");
        int64_t each = (len + parts - 1) / parts;
        for (int i = 0; i < parts; i++) {
            int64_t rest = len - each * i;
            sizes[i] = rest < each ? (rest > 0 ? rest : 0) : each;
        }
        n = (int)parts;
    }
    if (n != nout)
        return onnx_fail(c, "split has %d sizes for %d outputs", n, nout);
    int64_t pos = 0;
    for (int i = 0; i < n; i++) {
        if (sizes[i] < 0 || pos + sizes[i] > len)
            return onnx_fail(c, "split size %lld of output %d is negative or past the axis's %lld",
                             (long long)sizes[i], i, (long long)len);
        out[i] = sizes[i] == len ? x : slice_axis(c, x, axis, pos, pos + sizes[i]);
        if (!out[i])
            return false;
        pos += sizes[i];
    }
    if (pos != len)
        return onnx_fail(c, "split sizes add to %lld, axis has %lld", (long long)pos,
                         (long long)len);
    return true;
}

static bool h_gather(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *x = in[0], *idx = in[1];
    int axis;
    if (!normalize_axis(c, onnx_attr_int(c, "axis", 0), x->sh.rank, &axis))
        return false;
    /* Constant negative indices count from the end: normalize them here. */
    if (onnx_is_const(idx)) {
        int64_t *v;
        int n;
        if (!onnx_const_ints(c, idx, "indices", &v, &n))
            return false;
        int64_t len = x->sh.lens[axis];
        bool changed = false;
        for (int i = 0; i < n; i++) {
            if (v[i] < -len || v[i] >= len)
                return onnx_fail(c, "index %lld out of range for length %lld", (long long)v[i],
                                 (long long)len);
            if (v[i] < 0) {
                v[i] += len;
                changed = true;
            }
        }
        if (changed) {
            shape sh = shape_standard(GRAFT_INT64, idx->sh.rank, idx->sh.lens);
            idx = onnx_literal(c, &sh, v);
        }
    }
    attr a = attr_of("axis", attr_int(axis));
    ins *args[2] = {x, idx};
    return (out[0] = onnx_emit(c, "gather", &a, 1, args, 2)) != NULL;
}

static bool h_pad(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    ins *x = in[0];
    int r = x->sh.rank;
    char mode[32];
    onnx_attr_string(c, "mode", "constant", mode, sizeof mode);
    int64_t *pads = NULL;
    int n;
    double value = 0;
    if (c->opset < 11) {
        const int64_t *p = onnx_attr_ints(c, c->opset < 2 ? "paddings" : "pads", &n);
        if (n < 0)
            return onnx_fail(c, "missing pads");
        pads = arena_alloc(&c->scratch, (size_t)(n + 1) * 8);
        if (!pads)
            return onnx_fail(c, "out of memory");
        memcpy(pads, p, (size_t)n * 8);
        value = onnx_attr_float(c, "value", 0);
    } else {
        if (!need_inputs(c, in, nin, 2) || !onnx_const_ints(c, in[1], "pads", &pads, &n))
            return false;
        if (nin > 2 && in[2]) {
            double *v;
            int nv;
            if (!onnx_const_doubles(c, in[2], "constant_value", &v, &nv))
                return false;
            if (nv > 0)
                value = v[0];
        }
    }
    int64_t full[2 * SHAPE_MAX_RANK] = {0};
    if (nin > 3 && in[3]) {
        int64_t *axes;
        int na;
        if (!onnx_const_ints(c, in[3], "axes", &axes, &na))
            return false;
        if (n != 2 * na)
            return onnx_fail(c, "pads has %d values for %d axes", n, na);
        for (int i = 0; i < na; i++) {
            int a;
            if (!normalize_axis(c, axes[i], r, &a))
                return false;
            full[a] = pads[i];
            full[r + a] = pads[na + i];
        }
    } else {
        if (n != 2 * r)
            return onnx_fail(c, "pads has %d values for rank %d", n, r);
        memcpy(full, pads, (size_t)n * 8);
    }
    bool any = false;
    for (int i = 0; i < 2 * r; i++) {
        if (full[i] < 0)
            return onnx_unsupported(c, "negative pads");
        any = any || full[i] != 0;
    }
    if (!any)
        return (out[0] = x) != NULL;
    if (strcmp(mode, "constant") != 0 && strcmp(mode, "reflect") != 0 &&
        strcmp(mode, "edge") != 0)
        return onnx_unsupported(c, "mode '%s'", mode);
    attr a[3] = {attr_of("pads", attr_ints(full, 2 * r)), attr_of("mode", attr_string(mode)),
                 attr_of("value", attr_float(value))};
    return (out[0] = onnx_emit(c, "pad", a, 3, &x, 1)) != NULL;
}

static bool h_expand(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    int64_t *dims;
    int n;
    if (!onnx_const_ints(c, in[1], "shape", &dims, &n))
        return false;
    if (n < 1 || n > SHAPE_MAX_RANK)
        return onnx_unsupported(c, "target rank %d", n);
    shape target = shape_standard(in[0]->sh.type, n, dims);
    int r;
    int64_t lens[SHAPE_MAX_RANK];
    if (!numpy_lens(c, &in[0]->sh, &target, &r, lens))
        return false;
    return (out[0] = broadcast_to(c, in[0], r, lens)) != NULL;
}

static bool h_tile(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *x = in[0];
    int r = x->sh.rank, n;
    int64_t *reps;
    if (!onnx_const_ints(c, in[1], "repeats", &reps, &n))
        return false;
    if (n != r)
        return onnx_fail(c, "repeats has %d values for rank %d", n, r);
    if (2 * r > SHAPE_MAX_RANK)
        return onnx_unsupported(c, "rank %d", r);
    /* [a, b] tiled [p, q]: unsqueeze to [1, a, 1, b], broadcast to
     * [p, a, q, b], reshape to [p*a, q*b]. */
    int64_t axes[SHAPE_MAX_RANK], wide[SHAPE_MAX_RANK], final[SHAPE_MAX_RANK];
    for (int i = 0; i < r; i++) {
        if (reps[i] < 1)
            return onnx_unsupported(c, "repeats below 1");
        axes[i] = 2 * i;
        wide[2 * i] = reps[i];
        wide[2 * i + 1] = x->sh.lens[i];
        final[i] = reps[i] * x->sh.lens[i];
    }
    ins *u = emit_ints(c, "unsqueeze", "axes", axes, r, x);
    ins *b = broadcast_to(c, u, 2 * r, wide);
    return (out[0] = reshape_to(c, b, r, final)) != NULL;
}

static bool h_depth_to_space(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    ins *x = in[0];
    if (x->sh.rank != 4)
        return onnx_fail(c, "input must be 4-D");
    int64_t b = onnx_attr_int(c, "blocksize", 0);
    const int64_t *l = x->sh.lens;
    bool to_space = strcmp(c->node->op_type, "DepthToSpace") == 0;
    if (b < 1)
        return onnx_fail(c, "bad blocksize");
    int64_t mid[6], perm[6], fin[4];
    if (to_space) {
        if (l[1] % (b * b))
            return onnx_fail(c, "channels not divisible by blocksize^2");
        char mode[8];
        onnx_attr_string(c, "mode", "DCR", mode, sizeof mode);
        int64_t cc = l[1] / (b * b);
        if (strcmp(mode, "CRD") == 0) {
            int64_t m[6] = {l[0], cc, b, b, l[2], l[3]}, p[6] = {0, 1, 4, 2, 5, 3};
            memcpy(mid, m, sizeof m);
            memcpy(perm, p, sizeof p);
        } else {
            int64_t m[6] = {l[0], b, b, cc, l[2], l[3]}, p[6] = {0, 3, 4, 1, 5, 2};
            memcpy(mid, m, sizeof m);
            memcpy(perm, p, sizeof p);
        }
        int64_t f[4] = {l[0], cc, l[2] * b, l[3] * b};
        memcpy(fin, f, sizeof f);
    } else {
        if (l[2] % b || l[3] % b)
            return onnx_fail(c, "spatial dims not divisible by blocksize");
        int64_t m[6] = {l[0], l[1], l[2] / b, b, l[3] / b, b}, p[6] = {0, 3, 5, 1, 2, 4};
        int64_t f[4] = {l[0], l[1] * b * b, l[2] / b, l[3] / b};
        memcpy(mid, m, sizeof m);
        memcpy(perm, p, sizeof p);
        memcpy(fin, f, sizeof f);
    }
    ins *t = emit_ints(c, "transpose", "permutation", perm, 6, reshape_to(c, x, 6, mid));
    return (out[0] = reshape_to(c, t, 4, fin)) != NULL;
}

/* ---- constants and shape arithmetic ---- */

static bool h_constant(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)in;
    (void)nin;
    (void)nout;
    const Onnx__AttributeProto *a;
    if ((a = onnx_attr(c, "value")) && a->t) {
        tensor t;
        if (!onnx_tensor_from_proto(a->t, c->model_dir, &t, c->err)) {
            if (strstr(c->err->message, "unsupported"))
                return onnx_unsupported(c, "%s", c->err->message);
            return onnx_fail(c, "%s", c->err->message);
        }
        out[0] = onnx_literal(c, &t.sh, t.data);
        free(t.data);
        return out[0] != NULL;
    }
    int n;
    if ((a = onnx_attr(c, "value_float")))
        return (out[0] = onnx_scalar(c, GRAFT_FLOAT, a->f)) != NULL;
    if ((a = onnx_attr(c, "value_int")))
        return (out[0] = onnx_scalar(c, GRAFT_INT64, (double)a->i)) != NULL;
    const float *fs = onnx_attr_floats(c, "value_floats", &n);
    if (n >= 1) {
        int64_t len = n;
        shape sh = shape_standard(GRAFT_FLOAT, 1, &len);
        return (out[0] = onnx_literal(c, &sh, fs)) != NULL;
    }
    const int64_t *is = onnx_attr_ints(c, "value_ints", &n);
    if (n >= 1) {
        int64_t len = n;
        shape sh = shape_standard(GRAFT_INT64, 1, &len);
        return (out[0] = onnx_literal(c, &sh, is)) != NULL;
    }
    return onnx_unsupported(c, "only tensor, float and int values");
}

static ins *int64_literal(onnx_ctx *c, const int64_t *v, int n)
{
    int64_t len = n;
    shape sh = shape_standard(GRAFT_INT64, 1, &len);
    return onnx_literal(c, &sh, v);
}

static bool h_shape(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    int r = in[0]->sh.rank;
    int64_t start = onnx_attr_int(c, "start", 0), end = onnx_attr_int(c, "end", r);
    clamp_bounds(r, &start, &end);
    if (end <= start)
        return onnx_unsupported(c, "an empty shape slice");
    return (out[0] = int64_literal(c, in[0]->sh.lens + start, (int)(end - start))) != NULL;
}

static bool h_size(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    int64_t n = shape_elements(&in[0]->sh);
    return (out[0] = int64_literal(c, &n, 1)) != NULL;
}

static bool h_constant_of_shape(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    int64_t *dims;
    int n;
    if (!onnx_const_ints(c, in[0], "shape", &dims, &n))
        return false;
    if (n > SHAPE_MAX_RANK)
        return onnx_fail(c, "rank %d too large", n);
    int64_t one = 1;
    if (n == 0) {
        dims = &one;
        n = 1;
    }
    for (int i = 0; i < n; i++)
        if (dims[i] < 0)
            return onnx_fail(c, "negative dimension %lld", (long long)dims[i]);
    ins *v;
    const Onnx__AttributeProto *a = onnx_attr(c, "value");
    if (a && a->t) {
        tensor t;
        if (!onnx_tensor_from_proto(a->t, c->model_dir, &t, c->err))
            return onnx_fail(c, "%s", c->err->message);
        if (shape_elements(&t.sh) != 1) {
            free(t.data);
            return onnx_fail(c, "value must have one element");
        }
        v = onnx_literal(c, &t.sh, t.data);
        free(t.data);
    } else {
        v = onnx_scalar(c, GRAFT_FLOAT, 0);
    }
    return (out[0] = broadcast_to(c, v, n, dims)) != NULL;
}

static bool h_range(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    double *s, *l, *d;
    int n1, n2, n3;
    if (!onnx_const_doubles(c, in[0], "start", &s, &n1) ||
        !onnx_const_doubles(c, in[1], "limit", &l, &n2) ||
        !onnx_const_doubles(c, in[2], "delta", &d, &n3))
        return false;
    if (n1 != 1 || n2 != 1 || n3 != 1 || d[0] == 0)
        return onnx_fail(c, "start, limit and delta must be nonzero scalars");
    double count = ceil((l[0] - s[0]) / d[0]);
    if (count < 1)
        return onnx_unsupported(c, "an empty range");
    if (count > (1 << 24))
        return onnx_fail(c, "range too long");
    int64_t len = (int64_t)count;
    shape sh = shape_standard(in[0]->sh.type, 1, &len);
    char *buf = calloc((size_t)len, type_size(sh.type));
    if (!buf)
        return onnx_fail(c, "out of memory");
    tensor t = {sh, buf};
    for (int64_t i = 0; i < len; i++)
        tensor_set_f64(&t, i, s[0] + (double)i * d[0]);
    out[0] = onnx_literal(c, &sh, buf);
    free(buf);
    return out[0] != NULL;
}

/* ---- the table ---- */

#define UNARY(onnx, graft) {onnx, h_unary, graft, {NULL}, 1}
#define BINARY(onnx, graft) {onnx, h_binary, graft, {NULL}, 2}

static const onnx_op_entry onnx_ops[] = {
    UNARY("Relu", "relu"), UNARY("Sigmoid", "sigmoid"), UNARY("Tanh", "tanh"),
    UNARY("Exp", "exp"), UNARY("Log", "log"), UNARY("Sqrt", "sqrt"),
    UNARY("Reciprocal", "recip"), UNARY("Neg", "neg"), UNARY("Abs", "abs"),
    UNARY("Erf", "erf"), UNARY("Sin", "sin"), UNARY("Cos", "cos"), UNARY("Tan", "tan"),
    UNARY("Asin", "asin"), UNARY("Acos", "acos"), UNARY("Atan", "atan"),
    {"Sinh", h_hyperbolic, "exp", {"neg", "sub", "mul"}, 1},
    {"Cosh", h_hyperbolic, "exp", {"neg", "add", "mul"}, 1},
    {"Asinh", h_hyperbolic, "log", {"sqrt", "add", "mul"}, 1},
    {"Acosh", h_hyperbolic, "log", {"sqrt", "add", "mul"}, 1},
    {"Atanh", h_hyperbolic, "log", {"div", "add", "sub"}, 1},
    {"IsNaN", h_isnan, "equal", {"not", "convert"}, 1},
    {"Trilu", h_trilu, "where", {"multibroadcast"}, 1},
    {"IsInf", h_isinf, "equal", {"logical_or", "convert", "multibroadcast"}, 1},
    {"Shrink", h_shrink, "where", {"greater", "less", "add", "convert"}, 1},
    {"EyeLike", h_eye_like, NULL, {NULL}, 1},
    UNARY("Floor", "floor"),
    UNARY("Ceil", "ceil"), UNARY("Round", "round"), UNARY("Sign", "sign"), UNARY("Not", "not"),
    BINARY("Add", "add"), BINARY("Sub", "sub"), BINARY("Mul", "mul"), BINARY("Div", "div"),
    BINARY("Pow", "pow"), BINARY("Equal", "equal"), BINARY("Greater", "greater"),
    BINARY("Less", "less"), BINARY("And", "logical_and"), BINARY("Or", "logical_or"),
    BINARY("Xor", "logical_xor"),
    {"GreaterOrEqual", h_compare_or_equal, "less", {"not"}, 2},
    {"LessOrEqual", h_compare_or_equal, "greater", {"not"}, 2},
    {"Max", h_variadic, "max", {NULL}, 0},
    {"Min", h_variadic, "min", {NULL}, 0},
    {"Sum", h_variadic, "add", {NULL}, 0},
    {"Mean", h_variadic, "add", {"div"}, 0},
    {"PRelu", h_prelu, "prelu", {"multibroadcast", "broadcast"}, 2},
    {"LeakyRelu", h_leaky_relu, "leaky_relu", {NULL}, 1},
    {"Elu", h_elu, "elu", {NULL}, 1},
    {"HardSigmoid", h_hard_sigmoid, "hard_sigmoid", {NULL}, 1},
    {"HardSwish", h_hard_sigmoid, "hard_sigmoid", {"mul"}, 1},
    {"Selu", h_selu, "where", {"exp", "greater", "mul", "add"}, 1},
    {"Celu", h_celu, "exp", {"max", "min", "mul", "add"}, 1},
    {"Softplus", h_softplus, "exp", {"log", "add"}, 1},
    {"Softsign", h_softsign, "abs", {"div", "add"}, 1},
    {"ThresholdedRelu", h_thresholded_relu, "where", {"greater", "multibroadcast"}, 1},
    {"Clip", h_clip, "max", {"min", "multibroadcast"}, 1},
    {"Where", h_where, "where", {"multibroadcast"}, 3},
    {"Cast", h_cast, "convert", {NULL}, 1},
    {"CastLike", h_cast, "convert", {NULL}, 1},
    {"Identity", h_identity, NULL, {NULL}, 0},
    {"Dropout", h_dropout, NULL, {"multibroadcast"}, 1},
    {"Gemm", h_gemm, "dot", {"transpose", "mul", "add", "multibroadcast"}, 2},
    {"MatMul", h_matmul, "dot", {"multibroadcast", "unsqueeze", "squeeze"}, 2},
    {"Conv", h_conv, "convolution", {"add", "broadcast"}, 2},
    {"MaxPool", h_pool, "pooling", {NULL}, 1},
    {"AveragePool", h_pool, "pooling", {NULL}, 1},
    {"LpPool", h_pool, "pooling", {NULL}, 1},
    {"GlobalMaxPool", h_pool, "pooling", {NULL}, 1},
    {"GlobalAveragePool", h_pool, "pooling", {NULL}, 1},
    {"GlobalLpPool", h_pool, "pooling", {NULL}, 1},
    {"LRN", h_lrn, "lrn", {NULL}, 1},
    {"BatchNormalization", h_batch_norm, "rsqrt", {"add", "sub", "mul", "broadcast"}, 5},
    {"InstanceNormalization", h_instance_norm, "reduce_mean", {"sqdiff", "rsqrt", "broadcast"}, 3},
    {"LayerNormalization", h_layer_norm, "reduce_mean", {"sqdiff", "rsqrt", "multibroadcast"}, 2},
    {"GroupNormalization", h_group_norm, "reduce_mean", {"sqdiff", "rsqrt", "reshape"}, 3},
    {"MeanVarianceNormalization", h_mvn, "reduce_mean", {"sqdiff", "rsqrt", "multibroadcast"}, 1},
    {"Softmax", h_softmax, "softmax", {"reshape"}, 1},
    {"LogSoftmax", h_softmax, "logsoftmax", {"reshape"}, 1},
    {"ReduceSum", h_reduce, "reduce_sum", {"squeeze"}, 1},
    {"ReduceMean", h_reduce, "reduce_mean", {"squeeze"}, 1},
    {"ReduceMax", h_reduce, "reduce_max", {"squeeze"}, 1},
    {"ReduceMin", h_reduce, "reduce_min", {"squeeze"}, 1},
    {"ReduceProd", h_reduce, "reduce_prod", {"squeeze"}, 1},
    {"ReduceSumSquare", h_reduce, "reduce_sum", {"mul", "squeeze"}, 1},
    {"ReduceL1", h_reduce, "reduce_sum", {"abs", "squeeze"}, 1},
    {"ReduceL2", h_reduce, "reduce_sum", {"mul", "sqrt", "squeeze"}, 1},
    {"ReduceLogSum", h_reduce, "reduce_sum", {"log", "squeeze"}, 1},
    {"ReduceLogSumExp", h_reduce, "reduce_sum", {"exp", "log", "squeeze"}, 1},
    {"ArgMax", h_argminmax, "argmax", {"squeeze"}, 1},
    {"ArgMin", h_argminmax, "argmin", {"squeeze"}, 1},
    {"Reshape", h_reshape, "reshape", {NULL}, 1},
    {"Flatten", h_flatten, "reshape", {NULL}, 1},
    {"Transpose", h_transpose, "transpose", {NULL}, 1},
    {"Squeeze", h_squeeze, "squeeze", {"reshape"}, 1},
    {"Unsqueeze", h_unsqueeze, "unsqueeze", {NULL}, 1},
    {"Concat", h_concat, "concat", {NULL}, 0},
    {"Slice", h_slice, "slice", {NULL}, 1},
    {"Split", h_split, "slice", {NULL}, 1},
    {"Gather", h_gather, "gather", {NULL}, 2},
    {"Pad", h_pad, "pad", {NULL}, 1},
    {"Expand", h_expand, "multibroadcast", {NULL}, 2},
    {"Tile", h_tile, "multibroadcast", {"unsqueeze", "reshape"}, 2},
    {"DepthToSpace", h_depth_to_space, "transpose", {"reshape"}, 1},
    {"SpaceToDepth", h_depth_to_space, "transpose", {"reshape"}, 1},
    {"Constant", h_constant, NULL, {NULL}, 0},
    {"Shape", h_shape, NULL, {NULL}, 1},
    {"Size", h_size, NULL, {NULL}, 1},
    {"ConstantOfShape", h_constant_of_shape, "multibroadcast", {NULL}, 1},
    {"Range", h_range, NULL, {NULL}, 3},
};

static const onnx_op_table onnx_ops_main = {onnx_ops, (int)(sizeof onnx_ops / sizeof onnx_ops[0])};

/* this file's table, then the handlers kept in files of their own
 * (onnx_ops_*.c) */
static const onnx_op_table *const all_tables[] = {
    &onnx_ops_main, &onnx_ops_loss,  &onnx_ops_index, &onnx_ops_resize, &onnx_ops_misc,
    &onnx_ops_einsum, &onnx_ops_vision, &onnx_ops_quant, &onnx_ops_rnn, &onnx_ops_control,
    &onnx_ops_data_dependent};

const onnx_op_table *const *onnx_op_tables(int *count)
{
    *count = (int)(sizeof all_tables / sizeof all_tables[0]);
    return all_tables;
}

const onnx_op_entry *onnx_find_op(const char *op_type)
{
    if (!op_type)
        return NULL;
    for (size_t t = 0; t < sizeof all_tables / sizeof all_tables[0]; t++)
        for (int i = 0; i < all_tables[t]->count; i++)
            if (strcmp(all_tables[t]->entries[i].onnx_name, op_type) == 0)
                return &all_tables[t]->entries[i];
    return NULL;
}

bool onnx_op_available(const onnx_op_entry *e)
{
    if (e->graft_op && !op_find(e->graft_op))
        return false;
    for (int i = 0; i < 4 && e->needs[i]; i++)
        if (!op_find(e->needs[i]))
            return false;
    return true;
}

/* ---- the builders, for the handlers in onnx_ops_*.c (onnx_private.h) ---- */

ins *onnx_binary(onnx_ctx *c, const char *op, ins *a, ins *b) { return binary(c, op, a, b); }
ins *onnx_broadcast_to(onnx_ctx *c, ins *x, int rank, const int64_t *lens)
{
    return broadcast_to(c, x, rank, lens);
}
ins *onnx_broadcast_axis(onnx_ctx *c, ins *x, int axis, int rank, const int64_t *lens)
{
    return broadcast_axis(c, x, axis, rank, lens);
}
ins *onnx_convert(onnx_ctx *c, ins *x, graft_type t) { return convert_to(c, x, t); }
ins *onnx_emit_ints(onnx_ctx *c, const char *op, const char *key, const int64_t *v, int n, ins *x)
{
    return emit_ints(c, op, key, v, n, x);
}
ins *onnx_emit_int(onnx_ctx *c, const char *op, const char *key, int64_t v, ins *x)
{
    return emit_int(c, op, key, v, x);
}
ins *onnx_reshape(onnx_ctx *c, ins *x, int rank, const int64_t *lens)
{
    return reshape_to(c, x, rank, lens);
}
bool onnx_normalize_axis(onnx_ctx *c, int64_t axis, int rank, int *out)
{
    return normalize_axis(c, axis, rank, out);
}
bool onnx_need_inputs(onnx_ctx *c, ins **in, int nin, int count)
{
    return need_inputs(c, in, nin, count);
}
bool onnx_run_handler(onnx_ctx *c, const onnx_op_entry *e, ins **in, int nin, ins **out,
                      int nout)
{
    if (e->inputs && !need_inputs(c, in, nin, e->inputs))
        return false;
    return e->handler(c, in, nin, out, nout);
}
bool onnx_numpy_lens(onnx_ctx *c, const shape *a, const shape *b, int *rank, int64_t *lens)
{
    return numpy_lens(c, a, b, rank, lens);
}
ins *onnx_int64_literal(onnx_ctx *c, const int64_t *v, int n) { return int64_literal(c, v, n); }
bool onnx_window_padding(onnx_ctx *c, const shape *x, int k, const int64_t *kernel,
                         const int64_t *strides, const int64_t *dilations, int64_t *padding)
{
    return window_padding(c, x, k, kernel, strides, dilations, false, padding);
}
bool onnx_window_attrs(onnx_ctx *c, int k, const char *name, int64_t dflt, int64_t *out)
{
    return window_attrs(c, k, name, dflt, out);
}
