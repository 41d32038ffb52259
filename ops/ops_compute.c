/* ops_compute.c: the ops with a kernel of their own: convolution,
 * quant_convolution, dot, quant_dot, pooling, max_pooling_indices,
 * batch_norm_inference, lrn.
 *
 * Convolution and pooling windows follow MIGraphX: padding holds k entries
 * (the same before and after each spatial axis) or 2k (all befores, then all
 * afters); a spatial axis of length L gives
 *     (L + pad_before + pad_after - (dilation * (kernel - 1) + 1)) / stride + 1
 * (pooling with ceil_mode rounds the division up). The result keeps the
 * input's stride order (NHWC stays NHWC). padding_mode is carried for
 * MIGraphX compatibility; for static shapes the explicit padding decides, as
 * in MIGraphX's static shape rule. dot needs equal batch axes (no implicit
 * broadcast) and gives a standard result.
 *
 * max_pooling_indices[padding, stride, lengths, dilations, ceil_mode,
 * storage_order](x) is graft's (MIGraphX has no such op): for each window of
 * max pooling with the same attributes, the flat index into x of the
 * element max pooling picks (ONNX MaxPool's second output): plane * H * W +
 * h * W + w, row-major within the plane, or with storage_order 1
 * plane * H * W + h + w * H (column-major; likewise for other ranks).
 */
#include "ops_util.h"

/* Window attributes beyond this are rejected, which keeps the arithmetic below
 * far from overflow. */
#define OPS_WINDOW_LIMIT ((int64_t)1 << 31)

static bool check_padding(const op_call *call, const int64_t *padding, int n, graft_error *err)
{
    for (int i = 0; i < n; i++)
        if (padding[i] < 0 || padding[i] > OPS_WINDOW_LIMIT) {
            char buf[200];
            return error_set(err, "%s: padding %s has an entry out of range", call->op->name,
                             ops_ints_text(padding, n, buf, sizeof buf));
        }
    return true;
}

static const char *const padding_mode_names[] = {"default", "same", "valid", NULL};
static const char *const pooling_mode_names[] = {"average", "max", "lpnorm", NULL};
static const char *const bn_mode_names[] = {"per_activation", "spatial", NULL};

/* Checks a window op's per-axis attributes against k spatial axes. */
static bool check_window_attr(const op_call *call, const char *what, int n, int k,
                              bool allow_double, graft_error *err)
{
    if (n == k || (allow_double && n == 2 * k))
        return true;
    if (allow_double)
        return error_set(err, "%s: %s has %d entries; %d spatial axes need %d or %d",
                         call->op->name, what, n, k, k, 2 * k);
    return error_set(err, "%s: %s has %d entries; %d spatial axes need %d", call->op->name, what,
                     n, k, k);
}

static bool check_positive(const op_call *call, const char *what, const int64_t *v, int n,
                           graft_error *err)
{
    char buf[200];
    for (int i = 0; i < n; i++) {
        if (v[i] < 1)
            return error_set(err, "%s: %s %s must be positive", call->op->name, what,
                             ops_ints_text(v, n, buf, sizeof buf));
        if (v[i] > OPS_WINDOW_LIMIT)
            return error_set(err, "%s: %s %s is too large", call->op->name, what,
                             ops_ints_text(v, n, buf, sizeof buf));
    }
    return true;
}

/* One spatial output length; false (with err) when the window does not fit. */
static bool window_output(const op_call *call, int axis, int64_t len, int64_t pad, int64_t kernel,
                          int64_t stride, int64_t dilation, bool ceil_mode, int64_t *out,
                          graft_error *err)
{
    int64_t span, padded;
    if (__builtin_mul_overflow(dilation, kernel - 1, &span) || __builtin_add_overflow(span, 1, &span) ||
        __builtin_add_overflow(len, pad, &padded))
        return error_set(err, "%s: window on spatial axis %d overflows", call->op->name, axis);
    if (padded < span)
        return error_set(err,
                         "%s: window of %lld (kernel %lld, dilation %lld) is larger than the padded "
                         "length %lld on spatial axis %d",
                         call->op->name, (long long)span, (long long)kernel, (long long)dilation,
                         (long long)padded, axis);
    int64_t room = padded - span;
    *out = (ceil_mode ? (room + stride - 1) / stride : room / stride) + 1;
    return true;
}

static int64_t padding_sum(const int64_t *padding, int npad, int k, int axis)
{
    if (npad == 2 * k)
        return padding[axis] + padding[axis + k];
    return 2 * padding[axis];
}

static bool convolution_shape(const op_call *call, shape *out, graft_error *err)
{
    const char *name = call->op->name;
    const shape *x = &call->inputs[0], *w = &call->inputs[1];
    bool quant = call->op->name[0] == 'q';
    char a[200], b[200];
    if (!ops_check_rank_at_least(call, 0, 3, err))
        return false;
    if (w->rank != x->rank)
        return error_set(err, "%s: input %s and weights %s differ in rank", name,
                         ops_lens_text(x, a, sizeof a), ops_lens_text(w, b, sizeof b));
    if (!ops_check_same_type(call, 0, 2, err))
        return false;
    graft_type out_type = x->type;
    if (quant) {
        if (x->type != GRAFT_INT8 && x->type != GRAFT_UINT8)
            return error_set(err, "%s: operands must be int8_type or uint8_type, not %s", name,
                             type_name(x->type));
        out_type = GRAFT_INT32;
    }
    int k = x->rank - 2, npad = 0, nstride = 0, ndil = 0;
    const int64_t *padding = op_attr_ints(call, "padding", &npad);
    const int64_t *stride = op_attr_ints(call, "stride", &nstride);
    const int64_t *dilation = op_attr_ints(call, "dilation", &ndil);
    int64_t group = op_attr_int(call, "group");
    if (!check_window_attr(call, "padding", npad, k, true, err) ||
        !check_window_attr(call, "stride", nstride, k, false, err) ||
        !check_window_attr(call, "dilation", ndil, k, false, err) ||
        !check_positive(call, "stride", stride, nstride, err) ||
        !check_positive(call, "dilation", dilation, ndil, err))
        return false;
    if (!check_padding(call, padding, npad, err))
        return false;
    if (group < 1 || group > OPS_WINDOW_LIMIT)
        return error_set(err, "%s: group %lld must be positive", name, (long long)group);
    int64_t expected;
    if (__builtin_mul_overflow(w->lens[1], group, &expected))
        return error_set(err, "%s: weights %s with group %lld have too many channels", name,
                         ops_lens_text(w, b, sizeof b), (long long)group);
    if (x->lens[1] != expected)
        return error_set(err, "%s: input has %lld channels but weights expect %lld (group %lld)",
                         name, (long long)x->lens[1], (long long)expected, (long long)group);
    for (int i = 2; i < w->rank; i++)
        if (w->lens[i] < 1)
            return error_set(err, "%s: weights %s have an empty spatial axis", name,
                             ops_lens_text(w, b, sizeof b));
    if (w->lens[0] % group != 0)
        return error_set(err, "%s: %lld output channels are not divisible by group %lld", name,
                         (long long)w->lens[0], (long long)group);
    int64_t lens[SHAPE_MAX_RANK];
    lens[0] = x->lens[0];
    lens[1] = w->lens[0];
    for (int i = 0; i < k; i++)
        if (!window_output(call, i, x->lens[i + 2], padding_sum(padding, npad, k, i),
                           w->lens[i + 2], stride[i], dilation[i], false, &lens[i + 2], err))
            return false;
    if (!ops_check_result_lens(call, lens, x->rank, err))
        return false;
    *out = shape_with_lens(x, x->rank, lens);
    out->type = out_type;
    return true;
}

static bool dot_shape(const op_call *call, shape *out, graft_error *err)
{
    const char *name = call->op->name;
    const shape *a = &call->inputs[0], *b = &call->inputs[1];
    bool quant = name[0] == 'q';
    char ta[200], tb[200];
    if (!ops_check_rank_at_least(call, 0, 2, err) || !ops_check_rank_at_least(call, 1, 2, err))
        return false;
    if (a->rank != b->rank)
        return error_set(err, "%s: operands differ in rank: %s x %s", name,
                         ops_lens_text(a, ta, sizeof ta), ops_lens_text(b, tb, sizeof tb));
    if (!ops_check_same_type(call, 0, 2, err))
        return false;
    graft_type out_type = a->type;
    if (quant) {
        if (a->type != GRAFT_INT8 && a->type != GRAFT_UINT8)
            return error_set(err, "%s: operands must be int8_type or uint8_type, not %s", name,
                             type_name(a->type));
        out_type = GRAFT_INT32;
    }
    int r = a->rank;
    for (int i = 0; i < r - 2; i++)
        if (a->lens[i] != b->lens[i])
            return error_set(err, "%s: batch dimensions differ: %s x %s", name,
                             ops_lens_text(a, ta, sizeof ta), ops_lens_text(b, tb, sizeof tb));
    if (a->lens[r - 1] != b->lens[r - 2])
        return error_set(err, "%s: inner dimensions differ: %s x %s (%lld vs %lld)", name,
                         ops_lens_text(a, ta, sizeof ta), ops_lens_text(b, tb, sizeof tb),
                         (long long)a->lens[r - 1], (long long)b->lens[r - 2]);
    int64_t lens[SHAPE_MAX_RANK];
    for (int i = 0; i < r - 1; i++)
        lens[i] = a->lens[i];
    lens[r - 1] = b->lens[r - 1];
    if (!ops_check_result_lens(call, lens, r, err))
        return false;
    *out = shape_standard(out_type, r, lens);
    /* output_permutation (graft extension, lazy shapes / seed 001): the
     * product is presented transposed by it, i.e. written with permuted
     * strides, so a transpose of the result needs no op of its own. */
    int np = 0;
    const int64_t *perm = op_attr_ints(call, "output_permutation", &np);
    if (np) {
        if (!ops_is_permutation(perm, np, r))
            return error_set(err, "%s: output_permutation is not a permutation of %d axes", name, r);
        shape product = *out;
        for (int i = 0; i < r; i++) {
            out->lens[i] = product.lens[perm[i]];
            out->strides[i] = product.strides[perm[i]];
        }
    }
    return true;
}

static const attr_spec dot_attrs[] = {
    {"output_permutation", ATTR_INTS, OPS_DFLT_NO_INTS, false, NULL},
};

/* The result lens of a pooling window (padding, stride, lengths, dilations,
 * ceil_mode) over x, which has rank 3 or more. */
static bool pooling_window_lens(const op_call *call, const shape *x, int64_t *lens,
                                graft_error *err)
{
    int k = x->rank - 2;
    lens[0] = x->lens[0];
    lens[1] = x->lens[1];
    int npad = 0, nstride = 0, nlen = 0, ndil = 0;
    const int64_t *padding = op_attr_ints(call, "padding", &npad);
    const int64_t *stride = op_attr_ints(call, "stride", &nstride);
    const int64_t *lengths = op_attr_ints(call, "lengths", &nlen);
    const int64_t *dilations = op_attr_ints(call, "dilations", &ndil);
    bool ceil_mode = op_attr_int(call, "ceil_mode") != 0;
    if (!check_window_attr(call, "stride", nstride, k, false, err) ||
        !check_window_attr(call, "lengths", nlen, k, false, err) ||
        !check_window_attr(call, "dilations", ndil, k, false, err) ||
        !check_window_attr(call, "padding", npad, k, true, err) ||
        !check_positive(call, "stride", stride, nstride, err) ||
        !check_positive(call, "lengths", lengths, nlen, err) ||
        !check_positive(call, "dilations", dilations, ndil, err))
        return false;
    if (!check_padding(call, padding, npad, err))
        return false;
    for (int i = 0; i < k; i++)
        if (!window_output(call, i, x->lens[i + 2], padding_sum(padding, npad, k, i), lengths[i],
                           stride[i], dilations[i], ceil_mode, &lens[i + 2], err))
            return false;
    return ops_check_result_lens(call, lens, x->rank, err);
}

static bool pooling_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *x = &call->inputs[0];
    if (!ops_check_rank_at_least(call, 0, 3, err))
        return false;
    int64_t mode = op_attr_int(call, "mode");
    if (mode < 0 || mode > 2)
        return error_set(err, "pooling: mode %lld is not average (0), max (1) or lpnorm (2)",
                         (long long)mode);
    int64_t lens[SHAPE_MAX_RANK];
    if (op_attr_int(call, "dyn_global")) {
        lens[0] = x->lens[0];
        lens[1] = x->lens[1];
        for (int i = 2; i < x->rank; i++)
            lens[i] = 1;
        *out = shape_standard(x->type, x->rank, lens);
        return true;
    }
    if (!pooling_window_lens(call, x, lens, err))
        return false;
    *out = shape_with_lens(x, x->rank, lens);
    return true;
}

/* max_pooling_indices: where max pooling's windows find their maxima, int64,
 * standard; storage_order 0 or 1. */
static bool max_pooling_indices_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *x = &call->inputs[0];
    if (!ops_check_rank_at_least(call, 0, 3, err))
        return false;
    int64_t order = op_attr_int(call, "storage_order");
    if (order != 0 && order != 1)
        return error_set(err, "max_pooling_indices: storage_order %lld is not 0 (row-major) or "
                              "1 (column-major)",
                         (long long)order);
    int64_t lens[SHAPE_MAX_RANK];
    if (!pooling_window_lens(call, x, lens, err))
        return false;
    *out = shape_standard(GRAFT_INT64, x->rank, lens);
    return true;
}

/* batch_norm_inference(x, scale, bias, mean, variance): the four vectors
 * alike; spatial mode needs one value per channel, per_activation one per
 * element of x's non-batch axes. */
static bool batch_norm_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *x = &call->inputs[0];
    if (!ops_check_rank_at_least(call, 0, 2, err) || !ops_check_same_lens(call, 1, 4, err) ||
        !ops_check_same_type(call, 0, 5, err))
        return false;
    int64_t mode = op_attr_int(call, "bn_mode");
    int64_t want, have = shape_elements(&call->inputs[1]);
    char buf[200], buf2[200];
    if (mode == 1) {
        want = x->lens[1];
    } else if (mode == 0) {
        if (!ops_lens_product(x->lens + 1, x->rank - 1, &want))
            return error_set(err, "batch_norm_inference: too many elements");
    } else {
        return error_set(err, "batch_norm_inference: bn_mode %lld is not per_activation (0) or spatial (1)",
                         (long long)mode);
    }
    if (have != want)
        return error_set(err, "batch_norm_inference: scale %s has %lld values; input %s needs %lld",
                         ops_lens_text(&call->inputs[1], buf, sizeof buf), (long long)have,
                         ops_lens_text(x, buf2, sizeof buf2), (long long)want);
    *out = ops_unary_layout(x);
    return true;
}

static bool lrn_shape(const op_call *call, shape *out, graft_error *err)
{
    if (!ops_check_rank_at_least(call, 0, 2, err))
        return false;
    if (op_attr_int(call, "size") < 1)
        return error_set(err, "lrn: size %lld must be positive", (long long)op_attr_int(call, "size"));
    *out = ops_unary_layout(&call->inputs[0]);
    return true;
}

/* ---- the table ---- */

static const int64_t zeros2[] = {0, 0};
static const int64_t ones2[] = {1, 1};

static const attr_spec convolution_attrs[] = {
    {"padding", ATTR_INTS, OPS_DFLT_INTS(zeros2), false, NULL},
    {"stride", ATTR_INTS, OPS_DFLT_INTS(ones2), false, NULL},
    {"dilation", ATTR_INTS, OPS_DFLT_INTS(ones2), false, NULL},
    {"group", ATTR_INT, OPS_DFLT_INT(1), false, NULL},
    {"padding_mode", ATTR_INT, OPS_DFLT_INT(0), false, padding_mode_names},
};
static const attr_spec pooling_attrs[] = {
    {"mode", ATTR_INT, OPS_DFLT_INT(0), false, pooling_mode_names},
    {"padding", ATTR_INTS, OPS_DFLT_INTS(zeros2), false, NULL},
    {"padding_mode", ATTR_INT, OPS_DFLT_INT(0), false, padding_mode_names},
    {"stride", ATTR_INTS, OPS_DFLT_INTS(ones2), false, NULL},
    {"lengths", ATTR_INTS, OPS_DFLT_INTS(ones2), false, NULL},
    {"dilations", ATTR_INTS, OPS_DFLT_INTS(ones2), false, NULL},
    {"ceil_mode", ATTR_BOOL, OPS_DFLT_BOOL(0), false, NULL},
    {"count_include_pad", ATTR_BOOL, OPS_DFLT_BOOL(0), false, NULL},
    {"lp_order", ATTR_INT, OPS_DFLT_INT(2), false, NULL},
    {"dyn_global", ATTR_BOOL, OPS_DFLT_BOOL(0), false, NULL},
};
static const attr_spec max_pooling_indices_attrs[] = {
    {"padding", ATTR_INTS, OPS_DFLT_INTS(zeros2), false, NULL},
    {"stride", ATTR_INTS, OPS_DFLT_INTS(ones2), false, NULL},
    {"lengths", ATTR_INTS, OPS_DFLT_INTS(ones2), false, NULL},
    {"dilations", ATTR_INTS, OPS_DFLT_INTS(ones2), false, NULL},
    {"ceil_mode", ATTR_BOOL, OPS_DFLT_BOOL(0), false, NULL},
    {"storage_order", ATTR_INT, OPS_DFLT_INT(0), false, NULL},
};
static const attr_spec batch_norm_attrs[] = {
    {"epsilon", ATTR_FLOAT, OPS_DFLT_FLOAT(1e-6), false, NULL},
    {"momentum", ATTR_FLOAT, OPS_DFLT_FLOAT(0.9), false, NULL},
    {"bn_mode", ATTR_INT, OPS_DFLT_INT(1), false, bn_mode_names},
};
static const attr_spec lrn_attrs[] = {
    {"alpha", ATTR_FLOAT, OPS_DFLT_FLOAT(0.0001), false, NULL},
    {"beta", ATTR_FLOAT, OPS_DFLT_FLOAT(0.75), false, NULL},
    {"bias", ATTR_FLOAT, OPS_DFLT_FLOAT(1.0), false, NULL},
    {"size", ATTR_INT, OPS_DFLT_INT(1), false, NULL},
};

op_def ops_compute_table[] = {
    {.name = "convolution", .classes = OPC_COMPUTE, .min_args = 2, .max_args = 2,
     .attrs = convolution_attrs, .nattrs = 5, .compute_shape = convolution_shape},
    {.name = "quant_convolution", .classes = OPC_COMPUTE, .min_args = 2, .max_args = 2,
     .attrs = convolution_attrs, .nattrs = 5, .compute_shape = convolution_shape},
    {.name = "dot", .classes = OPC_COMPUTE, .min_args = 2, .max_args = 2,
     .attrs = dot_attrs, .nattrs = 1, .compute_shape = dot_shape},
    {.name = "quant_dot", .classes = OPC_COMPUTE, .min_args = 2, .max_args = 2,
     .attrs = dot_attrs, .nattrs = 1, .compute_shape = dot_shape},
    {.name = "pooling", .classes = OPC_COMPUTE, .min_args = 1, .max_args = 1,
     .attrs = pooling_attrs, .nattrs = 10, .compute_shape = pooling_shape},
    {.name = "max_pooling_indices", .classes = OPC_COMPUTE, .min_args = 1, .max_args = 1,
     .attrs = max_pooling_indices_attrs, .nattrs = 6, .compute_shape = max_pooling_indices_shape},
    {.name = "batch_norm_inference", .classes = OPC_COMPUTE, .min_args = 5, .max_args = 5,
     .attrs = batch_norm_attrs, .nattrs = 3, .compute_shape = batch_norm_shape},
    {.name = "lrn", .classes = OPC_COMPUTE, .min_args = 1, .max_args = 1, .attrs = lrn_attrs,
     .nattrs = 4, .compute_shape = lrn_shape},
};
const int ops_compute_count = (int)(sizeof ops_compute_table / sizeof ops_compute_table[0]);
