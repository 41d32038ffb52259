/* ops_deconv.c: convolution_backwards, the transposed convolution (ONNX
 * ConvTranspose), with MIGraphX's name and attributes.
 *
 * convolution_backwards(x [N, C, L...], w [C, M/group, K...]) scatters every
 * input element through the kernel: input position i, kernel offset k land
 * on output position i * stride + k * dilation - pad_before. Padding crops
 * the full result, which on a spatial axis of length L has
 *     (L - 1) * stride + dilation * (K - 1) + 1 - pad_before - pad_after
 * elements; padding holds k entries (the same before and after) or 2k (all
 * befores, then all afters), as for convolution. The result has M output
 * channels (w's axis 1 times group) and keeps the input's stride order.
 * ONNX's output_padding and output_shape, which can grow the result past the
 * full size, are a zero pad the importer adds after this op.
 */
#include "ops_util.h"

static bool deconv_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *x = &call->inputs[0], *w = &call->inputs[1];
    char a[200], b[200];
    if (!ops_check_rank_at_least(call, 0, 3, err) || !ops_check_same_type(call, 0, 2, err))
        return false;
    if (w->rank != x->rank)
        return error_set(err, "convolution_backwards: input %s and weights %s differ in rank",
                         ops_lens_text(x, a, sizeof a), ops_lens_text(w, b, sizeof b));
    int k = x->rank - 2, npad = 0, nstride = 0, ndil = 0;
    const int64_t *padding = op_attr_ints(call, "padding", &npad);
    const int64_t *stride = op_attr_ints(call, "stride", &nstride);
    const int64_t *dilation = op_attr_ints(call, "dilation", &ndil);
    int64_t group = op_attr_int(call, "group");
    if (npad != k && npad != 2 * k)
        return error_set(err, "convolution_backwards: padding has %d entries; %d spatial axes "
                              "need %d or %d",
                         npad, k, k, 2 * k);
    if (nstride != k || ndil != k)
        return error_set(err, "convolution_backwards: stride and dilation need %d entries, have "
                              "%d and %d",
                         k, nstride, ndil);
    if (group < 1 || group > ((int64_t)1 << 31))
        return error_set(err, "convolution_backwards: group %lld must be positive",
                         (long long)group);
    if (w->lens[0] != x->lens[1])
        return error_set(err, "convolution_backwards: input has %lld channels but weights %s "
                              "expect %lld",
                         (long long)x->lens[1], ops_lens_text(w, b, sizeof b),
                         (long long)w->lens[0]);
    if (x->lens[1] % group != 0)
        return error_set(err, "convolution_backwards: %lld input channels are not divisible by "
                              "group %lld",
                         (long long)x->lens[1], (long long)group);
    int64_t lens[SHAPE_MAX_RANK];
    lens[0] = x->lens[0];
    if (__builtin_mul_overflow(w->lens[1], group, &lens[1]))
        return error_set(err, "convolution_backwards: too many output channels");
    for (int i = 0; i < k; i++) {
        int64_t s = stride[i], d = dilation[i], kl = w->lens[i + 2];
        int64_t pb = padding[i], pe = npad == 2 * k ? padding[i + k] : padding[i];
        if (s < 1 || d < 1 || s > ((int64_t)1 << 31) || d > ((int64_t)1 << 31))
            return error_set(err, "convolution_backwards: stride %lld and dilation %lld on "
                                  "spatial axis %d must be positive",
                             (long long)s, (long long)d, i);
        if (pb < 0 || pe < 0 || pb > ((int64_t)1 << 31) || pe > ((int64_t)1 << 31))
            return error_set(err, "convolution_backwards: padding %s has an entry out of range",
                             ops_ints_text(padding, npad, a, sizeof a));
        if (kl < 1 || x->lens[i + 2] < 1)
            return error_set(err, "convolution_backwards: spatial axis %d is empty", i);
        int64_t full = (x->lens[i + 2] - 1) * s + d * (kl - 1) + 1;
        if (full - pb - pe < 1)
            return error_set(err, "convolution_backwards: padding %lld + %lld leaves nothing of "
                                  "the %lld outputs on spatial axis %d",
                             (long long)pb, (long long)pe, (long long)full, i);
        lens[i + 2] = full - pb - pe;
    }
    if (!ops_check_result_lens(call, lens, x->rank, err))
        return false;
    *out = shape_with_lens(x, x->rank, lens);
    return true;
}

static const int64_t zeros2[] = {0, 0};
static const int64_t ones2[] = {1, 1};
static const char *const padding_mode_names[] = {"default", "same", "valid", NULL};

static const attr_spec deconv_attrs[] = {
    {"padding", ATTR_INTS, OPS_DFLT_INTS(zeros2), false, NULL},
    {"stride", ATTR_INTS, OPS_DFLT_INTS(ones2), false, NULL},
    {"dilation", ATTR_INTS, OPS_DFLT_INTS(ones2), false, NULL},
    {"group", ATTR_INT, OPS_DFLT_INT(1), false, NULL},
    {"padding_mode", ATTR_INT, OPS_DFLT_INT(0), false, padding_mode_names},
};

op_def ops_deconv_table[] = {
    {.name = "convolution_backwards", .classes = OPC_COMPUTE, .min_args = 2, .max_args = 2,
     .attrs = deconv_attrs, .nattrs = 5, .compute_shape = deconv_shape},
};
const int ops_deconv_count = (int)(sizeof ops_deconv_table / sizeof ops_deconv_table[0]);
