/* test_gemm.c: dot and convolution give the same bits on every CPU.
 *
 * The reference executor's matrix product (ops/gemm.c) promises one fixed
 * summation order for every output element: acc = +0, then acc += a*b for
 * k = 0, 1, ... in the element type, no fused multiply-add. These tests
 * hold it to that, bit for bit:
 *   - gemm_f32 / gemm_f64 against the naive loop over many shapes (odd
 *     sizes, every tail of a register tile and of a cache block, row
 *     strides wider than the rows), in every variant this CPU can run;
 *   - dot through its kernel (batched) against the naive loop;
 *   - convolutions whose output channels all have the same weights give
 *     bit-identical channels (what OpenBLAS's Haswell/Zen kernels broke:
 *     the squeezenet failure of issue 7), and channel 0 equals a direct
 *     convolution summed in the documented order (input channel, then
 *     kernel position), for many shapes.
 * The inputs span 2^-12 .. 2^12 in magnitude, so that any other order of
 * summation would round differently somewhere.
 */
#include "check.h"
#include "gemm.h"
#include "kernels.h"
#include "tensor.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A value in +-[1, 2) * 2^e, e in [-12, 12]. */
static double spread_value(void)
{
    uint64_t r = next_u64();
    double mant = 1.0 + (double)(r >> 40) / (double)(1ull << 24);
    int e = (int)((r >> 8) % 25) - 12;
    return (r & 1 ? -1 : 1) * ldexp(mant, e);
}

static void fill_f32(float *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = (float)spread_value();
}

static void fill_f64(double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = spread_value();
}

static float naive_f32(int64_t k, const float *a, const float *b, int64_t ldb)
{
    float acc = 0.0f;
    for (int64_t p = 0; p < k; p++) {
        float prod = a[p] * b[p * ldb];
        acc = acc + prod;
    }
    return acc;
}

static double naive_f64(int64_t k, const double *a, const double *b, int64_t ldb)
{
    double acc = 0.0;
    for (int64_t p = 0; p < k; p++) {
        double prod = a[p] * b[p * ldb];
        acc = acc + prod;
    }
    return acc;
}

typedef struct mnk {
    int64_t m, n, k;
} mnk;

/* Around the tile (6 x 8/16), block (k 256, rows 120, columns 1024/2048)
 * and vector (2/4/8) sizes. */
static const mnk shapes[] = {
    {1, 1, 1},    {1, 1, 7},     {2, 3, 5},     {5, 15, 3},     {6, 16, 1},   {7, 17, 9},
    {6, 8, 255},  {13, 33, 256}, {11, 9, 257},  {3, 40, 513},   {119, 5, 31}, {120, 23, 2},
    {121, 31, 64}, {250, 3, 17}, {4, 1023, 9},  {5, 2049, 11},  {2, 4100, 3}, {37, 49, 300},
    {64, 1, 1000}, {1, 100, 70}, {17, 7, 0},    {0, 5, 5},      {5, 0, 5},
};

static void check_gemm_shapes(gemm_variant v)
{
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int64_t m = shapes[s].m, n = shapes[s].n, k = shapes[s].k;
        /* row strides wider than the rows: lda = k + 3, ldb = n + 5, ldc = n + 2 */
        int64_t lda = k + 3, ldb = n + 5, ldc = n + 2;
        float *a = malloc(sizeof(float) * (size_t)(m * lda + 1));
        float *b = malloc(sizeof(float) * (size_t)(k * ldb + 1));
        float *c = malloc(sizeof(float) * (size_t)(m * ldc + 1));
        double *ad = malloc(sizeof(double) * (size_t)(m * lda + 1));
        double *bd = malloc(sizeof(double) * (size_t)(k * ldb + 1));
        double *cd = malloc(sizeof(double) * (size_t)(m * ldc + 1));
        fill_f32(a, m * lda);
        fill_f32(b, k * ldb);
        fill_f64(ad, m * lda);
        fill_f64(bd, k * ldb);
        for (int64_t i = 0; i < m * ldc; i++) {
            c[i] = NAN; /* the result must not depend on what C held */
            cd[i] = NAN;
        }
        CHECK(gemm_f32_with(v, m, n, k, a, lda, b, ldb, c, ldc));
        CHECK(gemm_f64_with(v, m, n, k, ad, lda, bd, ldb, cd, ldc));
        int64_t bad = 0, badd = 0;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                float want = naive_f32(k, a + i * lda, b + j, ldb);
                double wantd = naive_f64(k, ad + i * lda, bd + j, ldb);
                bad += memcmp(&want, &c[i * ldc + j], sizeof want) != 0;
                badd += memcmp(&wantd, &cd[i * ldc + j], sizeof wantd) != 0;
            }
        if (bad || badd) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "variant %d, m %lld n %lld k %lld: %lld float and %lld double elements "
                     "differ from the naive loop",
                     (int)v, (long long)m, (long long)n, (long long)k, (long long)bad,
                     (long long)badd);
            check_fail(__FILE__, __LINE__, msg);
        }
        free(a);
        free(b);
        free(c);
        free(ad);
        free(bd);
        free(cd);
    }
}

static void test_gemm_generic_matches_naive(void)
{
    check_gemm_shapes(GEMM_GENERIC);
}

static void test_gemm_avx2_matches_naive(void)
{
    if (!gemm_variant_available(GEMM_AVX2)) {
        printf("(no AVX2 on this CPU: the generic variant is the only one)\n");
        return;
    }
    check_gemm_shapes(GEMM_AVX2);
}

static void test_gemm_auto_matches_naive(void)
{
    check_gemm_shapes(GEMM_AUTO);
}

/* Zeros, infinities and NaN go through the same arithmetic: -0 products
 * add to +0, inf * 0 is NaN. */
static void test_gemm_special_values(void)
{
    enum { K = 4 };
    const float a[2 * K] = {-0.0f, -0.0f, 1, 2, 1, 1, INFINITY, 1};
    const float b[K * 1] = {1, 2, 0, 0};
    float c[2] = {5, 5};
    CHECK(gemm_f32(2, 1, K, a, K, b, 1, c, 1));
    float want0 = naive_f32(K, a, b, 1);
    CHECK(memcmp(&c[0], &want0, sizeof want0) == 0);
    CHECK(c[0] == 0 && !signbit(c[0])); /* +0: -0 + -0 never happens from acc = +0 */
    CHECK(isnan(c[1]));
}

/* ---- dot through its kernel ---- */

static void test_dot_kernel_matches_naive(void)
{
    const op_def *op = op_find("dot");
    CHECK(op != NULL);
    if (!op)
        return;
    enum { B = 3, M = 7, K = 45, N = 19 };
    int64_t la[] = {B, M, K}, lb[] = {B, K, N};
    shape shapes2[2] = {shape_standard(GRAFT_FLOAT, 3, la), shape_standard(GRAFT_FLOAT, 3, lb)};
    float *a = malloc(sizeof(float) * B * M * K), *b = malloc(sizeof(float) * B * K * N);
    fill_f32(a, B * M * K);
    fill_f32(b, B * K * N);
    tensor in[2] = {{shapes2[0], (char *)a}, {shapes2[1], (char *)b}};
    attr attrs[16];
    for (int i = 0; i < op->nattrs && i < 16; i++) {
        attrs[i].key = op->attrs[i].name;
        attrs[i].v = op->attrs[i].dflt;
    }
    op_call call = {op, attrs, shapes2, 2, NULL, 0};
    graft_error err = {0};
    tensor out = {{0}, NULL};
    CHECK(op_compute_shape(&call, &out.sh, &err));
    out.data = calloc(1, shape_bytes(&out.sh) + 1);
    CHECK(kernel_for(op)(&call, in, &out, &err));
    const float *c = (const float *)(const void *)out.data;
    int64_t bad = 0;
    for (int t = 0; t < B; t++)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                float want = naive_f32(K, a + (t * M + i) * K, b + t * K * N + j, N);
                bad += memcmp(&want, &c[(t * M + i) * N + j], sizeof want) != 0;
            }
    CHECK_INT(bad, 0);
    free(a);
    free(b);
    free(out.data);
}

/* ---- convolution: identical weights, identical channels ---- */

typedef struct conv_case {
    int64_t batch, channels, features, h, w, kh, kw, stride, pad, dilation;
} conv_case;

static const conv_case conv_cases[] = {
    /* batch, channels, features, h, w, kh, kw, stride, pad, dilation */
    {1, 3, 64, 17, 17, 3, 3, 1, 1, 1},   /* squeezenet-like: many channels, odd size */
    {1, 1, 7, 1, 1, 1, 1, 1, 0, 1},      /* one element */
    {2, 5, 13, 9, 11, 3, 3, 2, 1, 1},
    {1, 16, 1000, 13, 13, 1, 1, 1, 0, 1}, /* squeezenet's last conv: 1000 channels, 1x1 */
    {1, 4, 33, 23, 7, 5, 5, 1, 2, 1},
    {1, 2, 9, 15, 15, 3, 3, 1, 2, 2},    /* dilated */
    {3, 7, 6, 5, 5, 1, 3, 1, 0, 1},
    {1, 64, 17, 7, 7, 3, 3, 1, 1, 1},    /* k = 576: more than one k block */
    {1, 3, 31, 40, 61, 3, 3, 1, 1, 1},   /* 2440 positions: more than one column block */
    {1, 1, 121, 6, 6, 2, 2, 2, 0, 1},    /* features past one row block */
};

/* A direct convolution of output channel 0 at (batch, oy, ox), summed in the
 * documented order: input channel, then kernel row, then kernel column;
 * padding adds nothing (its +-0 products could not change a sum that
 * started at +0). */
static float direct_conv(const conv_case *cc, const float *x, const float *w, int64_t bt,
                         int64_t oy, int64_t ox)
{
    float acc = 0.0f;
    for (int64_t c = 0; c < cc->channels; c++)
        for (int64_t ky = 0; ky < cc->kh; ky++)
            for (int64_t kx = 0; kx < cc->kw; kx++) {
                int64_t iy = oy * cc->stride - cc->pad + ky * cc->dilation;
                int64_t ix = ox * cc->stride - cc->pad + kx * cc->dilation;
                if (iy < 0 || iy >= cc->h || ix < 0 || ix >= cc->w)
                    continue;
                float prod = x[((bt * cc->channels + c) * cc->h + iy) * cc->w + ix] *
                             w[(c * cc->kh + ky) * cc->kw + kx];
                acc = acc + prod;
            }
    return acc;
}

static void check_conv_case(const conv_case *cc, graft_type type)
{
    const op_def *op = op_find("convolution");
    CHECK(op != NULL);
    if (!op)
        return;
    int64_t lx[] = {cc->batch, cc->channels, cc->h, cc->w};
    int64_t lw[] = {cc->features, cc->channels, cc->kh, cc->kw};
    shape sh[2] = {shape_standard(type, 4, lx), shape_standard(type, 4, lw)};
    int64_t nx = shape_elements(&sh[0]), per_feature = cc->channels * cc->kh * cc->kw;
    float *x = malloc(sizeof(float) * (size_t)nx);
    float *w0 = malloc(sizeof(float) * (size_t)per_feature);
    fill_f32(x, nx);
    fill_f32(w0, per_feature);
    size_t es = type == GRAFT_DOUBLE ? 8 : 4;
    char *xm = malloc(es * (size_t)nx), *wm = malloc(es * (size_t)(per_feature * cc->features));
    for (int64_t i = 0; i < nx; i++)
        if (type == GRAFT_DOUBLE)
            ((double *)(void *)xm)[i] = x[i];
        else
            ((float *)(void *)xm)[i] = x[i];
    for (int64_t f = 0; f < cc->features; f++) /* every feature: the same weights */
        for (int64_t i = 0; i < per_feature; i++)
            if (type == GRAFT_DOUBLE)
                ((double *)(void *)wm)[f * per_feature + i] = w0[i];
            else
                ((float *)(void *)wm)[f * per_feature + i] = w0[i];

    attr attrs[16];
    for (int i = 0; i < op->nattrs && i < 16; i++) {
        attrs[i].key = op->attrs[i].name;
        attrs[i].v = op->attrs[i].dflt;
    }
    int64_t pad[] = {cc->pad, cc->pad, cc->pad, cc->pad}, stride[] = {cc->stride, cc->stride},
            dil[] = {cc->dilation, cc->dilation};
    attrs[op_attr_index(op, "padding")].v = attr_ints(pad, 4);
    attrs[op_attr_index(op, "stride")].v = attr_ints(stride, 2);
    attrs[op_attr_index(op, "dilation")].v = attr_ints(dil, 2);
    op_call call = {op, attrs, sh, 2, NULL, 0};
    graft_error err = {0};
    tensor in[2] = {{sh[0], xm}, {sh[1], wm}};
    tensor out = {{0}, NULL};
    CHECK(op_compute_shape(&call, &out.sh, &err));
    out.data = calloc(1, shape_bytes(&out.sh) + 1);
    CHECK(kernel_for(op)(&call, in, &out, &err));

    int64_t oh = out.sh.lens[2], ow = out.sh.lens[3], plane = oh * ow;
    int64_t unequal = 0, off_direct = 0;
    for (int64_t bt = 0; bt < cc->batch; bt++)
        for (int64_t pos = 0; pos < plane; pos++) {
            int64_t base = bt * cc->features * plane + pos;
            for (int64_t f = 1; f < cc->features; f++)
                unequal += memcmp(out.data + es * (size_t)base,
                                  out.data + es * (size_t)(base + f * plane), es) != 0;
            if (type == GRAFT_FLOAT) {
                float want = direct_conv(cc, x, w0, bt, pos / ow, pos % ow);
                off_direct += memcmp(&want, out.data + es * (size_t)base, es) != 0;
            }
        }
    if (unequal || off_direct) {
        char msg[240];
        snprintf(msg, sizeof msg,
                 "%s conv x {%lld, %lld, %lld, %lld} w {%lld, %lld, %lld, %lld} stride %lld pad "
                 "%lld: %lld elements differ from channel 0, %lld from the direct sum",
                 type == GRAFT_DOUBLE ? "double" : "float", (long long)cc->batch,
                 (long long)cc->channels, (long long)cc->h, (long long)cc->w,
                 (long long)cc->features, (long long)cc->channels, (long long)cc->kh,
                 (long long)cc->kw, (long long)cc->stride, (long long)cc->pad,
                 (long long)unequal, (long long)off_direct);
        check_fail(__FILE__, __LINE__, msg);
    }
    free(x);
    free(w0);
    free(xm);
    free(wm);
    free(out.data);
}

static void test_conv_identical_channels_float(void)
{
    for (size_t i = 0; i < sizeof conv_cases / sizeof conv_cases[0]; i++)
        check_conv_case(&conv_cases[i], GRAFT_FLOAT);
}

static void test_conv_identical_channels_double(void)
{
    for (size_t i = 0; i < sizeof conv_cases / sizeof conv_cases[0]; i++)
        check_conv_case(&conv_cases[i], GRAFT_DOUBLE);
}

int main(void)
{
    RUN(test_gemm_generic_matches_naive);
    RUN(test_gemm_avx2_matches_naive);
    RUN(test_gemm_auto_matches_naive);
    RUN(test_gemm_special_values);
    RUN(test_dot_kernel_matches_naive);
    RUN(test_conv_identical_channels_float);
    RUN(test_conv_identical_channels_double);
    return tests_finish();
}
