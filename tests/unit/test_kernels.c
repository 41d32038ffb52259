/* test_kernels.c: the reference kernels and tensor helpers on small inputs
 * whose results were worked out by hand (the expected numbers in each test
 * come from the arithmetic in its comment, never from running the code).
 *
 * Inputs are laid out by hand in memory (including transposed and broadcast
 * layouts); each kernel is called through an op_call built from the op
 * table's declaration with some attributes overridden, and its result shape
 * comes from the op's shape rule, exactly as the executor does it.
 */
#include "kernel_call.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- building calls ---- */

static void kc_ints(kcall *c, const char *key, const int64_t *v, int n)
{
    kc_set(c, key, attr_ints(v, n));
}

static void kc_f32(kcall *c, int rank, const int64_t *lens, const int64_t *strides,
                   const float *mem, size_t count)
{
    kc_input_raw(c, GRAFT_FLOAT, rank, lens, strides, mem, count * sizeof(float));
}

static double out_at(const kcall *c, int64_t i)
{
    return tensor_get_f64(&c->out, i);
}

static void check_out(const kcall *c, const double *want, int64_t n, double tol)
{
    CHECK_INT(shape_elements(&c->out.sh), n);
    for (int64_t i = 0; i < n && i < shape_elements(&c->out.sh); i++)
        CHECK_NEAR(out_at(c, i), want[i], tol);
}

static void check_lens(const kcall *c, int rank, const int64_t *lens)
{
    CHECK_INT(c->out.sh.rank, rank);
    for (int i = 0; i < rank && i < c->out.sh.rank; i++)
        CHECK_INT(c->out.sh.lens[i], lens[i]);
}

static const float x9[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
static const int64_t l1133[] = {1, 1, 3, 3};
static const int64_t l1122[] = {1, 1, 2, 2};

/* ---- tensor helpers ---- */

static void test_half_bits(void)
{
    CHECK_INT(float_to_half(1.0f), 0x3C00);
    CHECK_INT(float_to_half(-2.0f), 0xC000);
    CHECK_INT(float_to_half(65504.0f), 0x7BFF);
    CHECK_INT(float_to_half(65520.0f), 0x7C00);      /* halfway to 65536: ties to even = inf */
    CHECK_INT(float_to_half(65519.0f), 0x7BFF);
    CHECK_INT(float_to_half(1.0f / 3.0f), 0x3555);   /* 0.0101010101|01.. -> 0x155 mantissa */
    CHECK_INT(float_to_half(ldexpf(1, -24)), 0x0001); /* smallest subnormal */
    CHECK_INT(float_to_half(ldexpf(1, -25)), 0x0000); /* exactly half of it: ties to even (0) */
    CHECK_INT(float_to_half(ldexpf(3, -26)), 0x0001); /* 0.75 of it: rounds up */
    CHECK_INT(float_to_half(ldexpf(3, -25)), 0x0002); /* 1.5 ulp: ties to even (2) */
    CHECK_INT(float_to_half(1.0f + ldexpf(1, -11)), 0x3C00);     /* tie, even stays */
    CHECK_INT(float_to_half(1.0f + ldexpf(3, -11)), 0x3C02);     /* tie, odd rounds up */
    CHECK_INT(float_to_half(ldexpf(1023, -24)), 0x03FF);         /* largest subnormal */
    CHECK_INT(float_to_half(ldexpf(1, -14)), 0x0400);            /* smallest normal */
    CHECK_INT(float_to_half(INFINITY), 0x7C00);
    CHECK((float_to_half(NAN) & 0x7C00) == 0x7C00 && (float_to_half(NAN) & 0x3FF) != 0);
    CHECK_NEAR(half_to_float(0x3555), 0.333251953125, 0);
    CHECK_NEAR(half_to_float(0x0001), ldexp(1, -24), 0);
    CHECK_NEAR(half_to_float(0x03FF), ldexp(1023, -24), 0);
    CHECK_NEAR(half_to_float(0xC000), -2.0, 0);
    CHECK_NEAR(half_to_float(0x7BFF), 65504.0, 0);
    CHECK(isinf(half_to_float(0x7C00)));
    CHECK(isnan(half_to_float(0x7E00)));
}

static void test_bf16_bits(void)
{
    CHECK_INT(float_to_bf16(1.0f), 0x3F80);
    CHECK_INT(float_to_bf16(1.0f / 3.0f), 0x3EAB); /* 0x3EAAAAAB: low half 0xAAAB rounds up */
    CHECK_NEAR(bf16_to_float(0x3EAB), 0.333984375, 0);
    CHECK_INT(float_to_bf16(1.0f + ldexpf(1, -8)), 0x3F80); /* 0x3F808000: tie, even stays */
    CHECK_INT(float_to_bf16(1.0f + ldexpf(3, -8)), 0x3F82); /* 0x3F818000: tie, odd rounds up */
    CHECK_INT(float_to_bf16(-2.0f), 0xC000);
    CHECK((float_to_bf16(NAN) & 0x7F80) == 0x7F80 && (float_to_bf16(NAN) & 0x7F) != 0);
}

/* Storing a double into half rounds once, not through float's rounding:
 * 1 + 2^-11 + 2^-40 is just above the tie between 0x3C00 and 0x3C01. */
static void test_half_store_no_double_rounding(void)
{
    uint16_t h = 0;
    int64_t one = 1;
    tensor t = {shape_standard(GRAFT_HALF, 1, &one), (char *)&h};
    tensor_set_f64(&t, 0, 1.0 + ldexp(1, -11) + ldexp(1, -40));
    CHECK_INT(h, 0x3C01);
    tensor_set_f64(&t, 0, 1.0 + ldexp(1, -11));
    CHECK_INT(h, 0x3C00);
    uint16_t b = 0;
    tensor tb = {shape_standard(GRAFT_BF16, 1, &one), (char *)&b};
    tensor_set_f64(&tb, 0, 1.0 + ldexp(1, -8) + ldexp(1, -40));
    CHECK_INT(b, 0x3F81);
}

static void test_dense_transposed(void)
{
    /* lens {2, 3}, strides {1, 2}: element (i, j) at memory i + 2j */
    float mem[] = {1, 2, 3, 4, 5, 6};
    int64_t lens[] = {2, 3}, strides[] = {1, 2};
    tensor t = {shape_with_strides(GRAFT_FLOAT, 2, lens, strides), (char *)mem};
    double *d = tensor_dense_f64(&t);
    const double want[] = {1, 3, 5, 2, 4, 6};
    for (int i = 0; i < 6; i++)
        CHECK_NEAR(d[i], want[i], 0);
    float *f = tensor_dense_f32(&t);
    for (int i = 0; i < 6; i++)
        CHECK_NEAR(f[i], want[i], 0);
    int64_t *n = tensor_dense_i64(&t);
    for (int i = 0; i < 6; i++)
        CHECK_INT(n[i], (int64_t)want[i]);
    /* store back in row-major order: memory gets {10, 20, 30, 40, 50, 60}
     * at (0,0) (1,0) (0,1) (1,1) (0,2) (1,2) */
    const double back[] = {10, 30, 50, 20, 40, 60};
    tensor_store_f64(&t, back);
    const float mem_want[] = {10, 20, 30, 40, 50, 60};
    for (int i = 0; i < 6; i++)
        CHECK_NEAR(mem[i], mem_want[i], 0);
    CHECK_NEAR(tensor_get_f64(&t, 1), 30, 0);
    free(d);
    free(f);
    free(n);
}

static void test_integer_conversions(void)
{
    int8_t v[4] = {0};
    int64_t four = 4;
    tensor t = {shape_standard(GRAFT_INT8, 1, &four), (char *)v};
    const double in[] = {300.7, -1.9, NAN, -1000};
    tensor_store_f64(&t, in);
    CHECK_INT(v[0], 127);
    CHECK_INT(v[1], -1);
    CHECK_INT(v[2], 0);
    CHECK_INT(v[3], -128);
    const int64_t wide[] = {200, -129, 5, 256};
    tensor_store_i64(&t, wide); /* wraps: 200-256, -129+256 */
    CHECK_INT(v[0], -56);
    CHECK_INT(v[1], 127);
    CHECK_INT(v[2], 5);
    CHECK_INT(v[3], 0);
    uint8_t flags[2];
    int64_t two = 2;
    tensor b = {shape_standard(GRAFT_BOOL, 1, &two), (char *)flags};
    const double bv[] = {0.0, -0.5};
    tensor_store_f64(&b, bv);
    CHECK_INT(flags[0], 0);
    CHECK_INT(flags[1], 1);
}

static void test_tensor_copy_layouts(void)
{
    /* transposed {2,3} (memory {1..6}, strides {1,2}) into a standard {3,2}:
     * row-major source order is 1 3 5 2 4 6 */
    float src_mem[] = {1, 2, 3, 4, 5, 6}, dst_mem[6] = {0};
    int64_t lens[] = {2, 3}, strides[] = {1, 2}, lens2[] = {3, 2};
    tensor src = {shape_with_strides(GRAFT_FLOAT, 2, lens, strides), (char *)src_mem};
    tensor dst = {shape_standard(GRAFT_FLOAT, 2, lens2), (char *)dst_mem};
    CHECK(tensor_copy(&dst, &src));
    const float want[] = {1, 3, 5, 2, 4, 6};
    for (int i = 0; i < 6; i++)
        CHECK_NEAR(dst_mem[i], want[i], 0);
    tensor wrong = {shape_standard(GRAFT_INT32, 2, lens2), (char *)dst_mem};
    CHECK(!tensor_copy(&wrong, &src));
}

/* ---- convolution ---- */

static void test_conv_plain(void)
{
    /* x = [[1,2,3],[4,5,6],[7,8,9]], w = [[1,0],[0,1]]: x[i][j] + x[i+1][j+1] */
    kcall c;
    kc_init(&c, "convolution");
    kc_f32(&c, 4, l1133, NULL, x9, 9);
    const float w[] = {1, 0, 0, 1};
    kc_f32(&c, 4, l1122, NULL, w, 4);
    KC_RUN_OK(&c);
    const int64_t lens[] = {1, 1, 2, 2};
    check_lens(&c, 4, lens);
    const double want[] = {6, 8, 12, 14};
    check_out(&c, want, 4, 0);
    kc_free(&c);
}

static void test_conv_padding_stride(void)
{
    /* padding 1, stride 2: windows start at -1 and 1 on both axes;
     * out(0,0) = x00 = 1, out(0,1) = x02 = 3, out(1,0) = x20 = 7,
     * out(1,1) = x11 + x22 = 5 + 9 */
    kcall c;
    kc_init(&c, "convolution");
    kc_f32(&c, 4, l1133, NULL, x9, 9);
    const float w[] = {1, 0, 0, 1};
    kc_f32(&c, 4, l1122, NULL, w, 4);
    const int64_t pad[] = {1, 1}, stride[] = {2, 2};
    kc_ints(&c, "padding", pad, 2);
    kc_ints(&c, "stride", stride, 2);
    KC_RUN_OK(&c);
    const double want[] = {1, 3, 7, 14};
    check_out(&c, want, 4, 0);
    kc_free(&c);
}

static void test_conv_dilation(void)
{
    /* dilation 2 makes the 2x2 kernel read the corners: 1*1 + 2*3 + 3*7 + 4*9 */
    kcall c;
    kc_init(&c, "convolution");
    kc_f32(&c, 4, l1133, NULL, x9, 9);
    const float w[] = {1, 2, 3, 4};
    kc_f32(&c, 4, l1122, NULL, w, 4);
    const int64_t dil[] = {2, 2};
    kc_ints(&c, "dilation", dil, 2);
    KC_RUN_OK(&c);
    const double want[] = {64};
    check_out(&c, want, 1, 0);
    kc_free(&c);
}

static void test_conv_asymmetric_padding(void)
{
    /* padding {0,0,1,1}: nothing before, one after. out(i,j) = x[i][j] +
     * 2x[i][j+1] + 3x[i+1][j] + 4x[i+1][j+1], zero outside:
     * (0,0) 1+4+12+20 = 37, (0,1) 2+6+15+24 = 47, (0,2) 3+0+18+0 = 21,
     * (1,0) 4+10+21+32 = 67, (1,1) 5+12+24+36 = 77, (1,2) 6+27 = 33,
     * (2,0) 7+16 = 23, (2,1) 8+18 = 26, (2,2) 9 */
    kcall c;
    kc_init(&c, "convolution");
    kc_f32(&c, 4, l1133, NULL, x9, 9);
    const float w[] = {1, 2, 3, 4};
    kc_f32(&c, 4, l1122, NULL, w, 4);
    const int64_t pad[] = {0, 0, 1, 1};
    kc_ints(&c, "padding", pad, 4);
    KC_RUN_OK(&c);
    const int64_t lens[] = {1, 1, 3, 3};
    check_lens(&c, 4, lens);
    const double want[] = {37, 47, 21, 67, 77, 33, 23, 26, 9};
    check_out(&c, want, 9, 0);
    kc_free(&c);
}

static void test_conv_groups_nhwc(void)
{
    /* input 1x2x2x2, channel 0 = {1,2,3,4}, channel 1 = {5,6,7,8}, stored
     * NHWC (strides {8,1,4,2}: memory interleaves the channels); group 2
     * with 1x1 weights {2, 3}: channel 0 doubled, channel 1 tripled. */
    kcall c;
    kc_init(&c, "convolution");
    const int64_t lens[] = {1, 2, 2, 2}, nhwc[] = {8, 1, 4, 2};
    const float mem[] = {1, 5, 2, 6, 3, 7, 4, 8};
    kc_f32(&c, 4, lens, nhwc, mem, 8);
    const int64_t wl[] = {2, 1, 1, 1};
    const float w[] = {2, 3};
    kc_f32(&c, 4, wl, NULL, w, 2);
    kc_set(&c, "group", attr_int(2));
    KC_RUN_OK(&c);
    const double want[] = {2, 4, 6, 8, 15, 18, 21, 24};
    check_out(&c, want, 8, 0);
    kc_free(&c);

    /* group 1, weights 1x2x1x1 {1, 1}: the channels summed */
    kc_init(&c, "convolution");
    kc_f32(&c, 4, lens, nhwc, mem, 8);
    const int64_t wl1[] = {1, 2, 1, 1};
    const float w1[] = {1, 1};
    kc_f32(&c, 4, wl1, NULL, w1, 2);
    KC_RUN_OK(&c);
    const double want1[] = {6, 8, 10, 12};
    check_out(&c, want1, 4, 0);
    kc_free(&c);
}

static void test_conv_batch_and_double(void)
{
    /* two images (x and 10x), same 2x2 identity-diagonal kernel, in double */
    kcall c;
    kc_init(&c, "convolution");
    double xs[18], w[] = {1, 0, 0, 1};
    for (int i = 0; i < 9; i++) {
        xs[i] = i + 1;
        xs[9 + i] = 10 * (i + 1);
    }
    const int64_t lens[] = {2, 1, 3, 3};
    kc_input_raw(&c, GRAFT_DOUBLE, 4, lens, NULL, xs, sizeof xs);
    kc_input_raw(&c, GRAFT_DOUBLE, 4, l1122, NULL, w, sizeof w);
    KC_RUN_OK(&c);
    const double want[] = {6, 8, 12, 14, 60, 80, 120, 140};
    check_out(&c, want, 8, 0);
    kc_free(&c);
}

static void test_conv_half(void)
{
    /* half operands: the same sums (exact in half) */
    kcall c;
    kc_init(&c, "convolution");
    uint16_t xs[9], w[4] = {0x3C00, 0, 0, 0x3C00};
    for (int i = 0; i < 9; i++)
        xs[i] = float_to_half((float)(i + 1));
    kc_input_raw(&c, GRAFT_HALF, 4, l1133, NULL, xs, sizeof xs);
    kc_input_raw(&c, GRAFT_HALF, 4, l1122, NULL, w, sizeof w);
    KC_RUN_OK(&c);
    CHECK_INT(c.out.sh.type, GRAFT_HALF);
    const uint16_t *o = (const uint16_t *)(void *)c.out.data;
    CHECK_INT(o[0], 0x4600); /* 6 = 1.5 * 2^2 */
    CHECK_INT(o[3], 0x4B00); /* 14 = 1.75 * 2^3 */
    kc_free(&c);
}

static void test_quant_convolution(void)
{
    /* int8 in, int32 out: 127 * -128 * 4 = -65024, exact */
    kcall c;
    kc_init(&c, "quant_convolution");
    int8_t xs[9], w[4] = {-128, -128, -128, -128};
    for (int i = 0; i < 9; i++)
        xs[i] = 127;
    kc_input_raw(&c, GRAFT_INT8, 4, l1133, NULL, xs, sizeof xs);
    kc_input_raw(&c, GRAFT_INT8, 4, l1122, NULL, w, sizeof w);
    KC_RUN_OK(&c);
    CHECK_INT(c.out.sh.type, GRAFT_INT32);
    const int32_t *o = (const int32_t *)(void *)c.out.data;
    for (int i = 0; i < 4; i++)
        CHECK_INT(o[i], -65024);
    kc_free(&c);

    /* the asymmetric-padding sums again, in integers */
    kc_init(&c, "quant_convolution");
    int8_t x2[9], w2[4] = {1, 2, 3, 4};
    for (int i = 0; i < 9; i++)
        x2[i] = (int8_t)(i + 1);
    kc_input_raw(&c, GRAFT_INT8, 4, l1133, NULL, x2, sizeof x2);
    kc_input_raw(&c, GRAFT_INT8, 4, l1122, NULL, w2, sizeof w2);
    const int64_t pad[] = {0, 0, 1, 1};
    kc_ints(&c, "padding", pad, 4);
    KC_RUN_OK(&c);
    const double want[] = {37, 47, 21, 67, 77, 33, 23, 26, 9};
    check_out(&c, want, 9, 0);
    kc_free(&c);
}

/* ---- dot ---- */

static void test_dot(void)
{
    /* [1 2 3; 4 5 6] x [7 8; 9 10; 11 12] = [58 64; 139 154] */
    kcall c;
    kc_init(&c, "dot");
    const int64_t la[] = {2, 3}, lb[] = {3, 2};
    const float a[] = {1, 2, 3, 4, 5, 6}, b[] = {7, 8, 9, 10, 11, 12};
    kc_f32(&c, 2, la, NULL, a, 6);
    kc_f32(&c, 2, lb, NULL, b, 6);
    KC_RUN_OK(&c);
    const double want[] = {58, 64, 139, 154};
    check_out(&c, want, 4, 0);
    kc_free(&c);

    /* the same A stored transposed (strides {1, 2}) */
    kc_init(&c, "dot");
    const int64_t ta[] = {1, 2};
    const float at[] = {1, 4, 2, 5, 3, 6};
    kc_f32(&c, 2, la, ta, at, 6);
    kc_f32(&c, 2, lb, NULL, b, 6);
    KC_RUN_OK(&c);
    check_out(&c, want, 4, 0);
    kc_free(&c);
}

static void test_dot_batched(void)
{
    /* batch 0: [1 2] x [3; 4] = 11; batch 1: [5 6] x [7; 8] = 83 */
    kcall c;
    kc_init(&c, "dot");
    const int64_t la[] = {2, 1, 2}, lb[] = {2, 2, 1};
    const float a[] = {1, 2, 5, 6}, b[] = {3, 4, 7, 8};
    kc_f32(&c, 3, la, NULL, a, 4);
    kc_f32(&c, 3, lb, NULL, b, 4);
    KC_RUN_OK(&c);
    const int64_t lens[] = {2, 1, 1};
    check_lens(&c, 3, lens);
    const double want[] = {11, 83};
    check_out(&c, want, 2, 0);
    kc_free(&c);
}

static void test_quant_dot_exact(void)
{
    /* [127 -128] x [127; -128] = 16129 + 16384 = 32513 (needs int32) */
    kcall c;
    kc_init(&c, "quant_dot");
    const int64_t la[] = {1, 2}, lb[] = {2, 1};
    const int8_t a[] = {127, -128}, b[] = {127, -128};
    kc_input_raw(&c, GRAFT_INT8, 2, la, NULL, a, 2);
    kc_input_raw(&c, GRAFT_INT8, 2, lb, NULL, b, 2);
    KC_RUN_OK(&c);
    CHECK_INT(c.out.sh.type, GRAFT_INT32);
    CHECK_INT(*(const int32_t *)(void *)c.out.data, 32513);
    kc_free(&c);

    /* int32 dot: 2^20 * 2^10 + 3 * 5 = 1073741839, exact */
    kc_init(&c, "dot");
    const int32_t ai[] = {1 << 20, 3}, bi[] = {1 << 10, 5};
    kc_input_raw(&c, GRAFT_INT32, 2, la, NULL, ai, sizeof ai);
    kc_input_raw(&c, GRAFT_INT32, 2, lb, NULL, bi, sizeof bi);
    KC_RUN_OK(&c);
    CHECK_INT(*(const int32_t *)(void *)c.out.data, 1073741839);
    kc_free(&c);
}

/* ---- pointwise ---- */

static void test_add_layouts(void)
{
    /* a standard {1..6}; b transposed: memory {10,40,20,50,30,60} with
     * strides {1,2} is row-major {10,20,30,40,50,60} */
    kcall c;
    kc_init(&c, "add");
    const int64_t lens[] = {2, 3}, tr[] = {1, 2};
    const float a[] = {1, 2, 3, 4, 5, 6}, b[] = {10, 40, 20, 50, 30, 60};
    kc_f32(&c, 2, lens, NULL, a, 6);
    kc_f32(&c, 2, lens, tr, b, 6);
    KC_RUN_OK(&c);
    const double want[] = {11, 22, 33, 44, 55, 66};
    check_out(&c, want, 6, 0);
    kc_free(&c);

    /* both transposed: the result keeps the transposed layout */
    kc_init(&c, "sub");
    const float a2[] = {1, 4, 2, 5, 3, 6};
    kc_f32(&c, 2, lens, tr, b, 6);
    kc_f32(&c, 2, lens, tr, a2, 6);
    KC_RUN_OK(&c);
    const double want2[] = {9, 18, 27, 36, 45, 54};
    check_out(&c, want2, 6, 0);
    kc_free(&c);

    /* broadcast row: strides {0, 1} over {10, 20, 30} */
    kc_init(&c, "mul");
    const int64_t bc[] = {0, 1};
    const float row[] = {10, 20, 30};
    kc_f32(&c, 2, lens, NULL, a, 6);
    kc_f32(&c, 2, lens, bc, row, 3);
    KC_RUN_OK(&c);
    const double want3[] = {10, 40, 90, 40, 100, 180};
    check_out(&c, want3, 6, 0);
    kc_free(&c);
}

static void test_half_add_rounds_on_store(void)
{
    /* 1 + 2^-11 is a tie between 0x3C00 and 0x3C01: even wins (0x3C00);
     * (1 + 2^-10) + 2^-11 is a tie between 0x3C01 and 0x3C02: 0x3C02 */
    kcall c;
    kc_init(&c, "add");
    const int64_t two = 2;
    const uint16_t a[] = {0x3C00, 0x3C01}, b[] = {0x1000, 0x1000}; /* 0x1000 = 2^-11 */
    kc_input_raw(&c, GRAFT_HALF, 1, &two, NULL, a, sizeof a);
    kc_input_raw(&c, GRAFT_HALF, 1, &two, NULL, b, sizeof b);
    KC_RUN_OK(&c);
    const uint16_t *o = (const uint16_t *)(void *)c.out.data;
    CHECK_INT(o[0], 0x3C00);
    CHECK_INT(o[1], 0x3C02);
    kc_free(&c);
}

static void test_integer_pointwise(void)
{
    const int64_t four = 4;
    kcall c;
    /* int8 add wraps: 100 + 100 = 200 - 256 */
    kc_init(&c, "add");
    const int8_t a[] = {100, -100, 1, 0}, b[] = {100, -100, 2, 0};
    kc_input_raw(&c, GRAFT_INT8, 1, &four, NULL, a, 4);
    kc_input_raw(&c, GRAFT_INT8, 1, &four, NULL, b, 4);
    KC_RUN_OK(&c);
    const double want[] = {-56, 56, 3, 0};
    check_out(&c, want, 4, 0);
    kc_free(&c);

    /* int32 div truncates; by zero gives 0 */
    kc_init(&c, "div");
    const int32_t n[] = {-7, 7, 5, 9}, d[] = {2, -2, 0, 3};
    kc_input_raw(&c, GRAFT_INT32, 1, &four, NULL, n, sizeof n);
    kc_input_raw(&c, GRAFT_INT32, 1, &four, NULL, d, sizeof d);
    KC_RUN_OK(&c);
    const double wantd[] = {-3, -3, 0, 3};
    check_out(&c, wantd, 4, 0);
    kc_free(&c);

    /* int64 pow is exact: 3^39 = 4052555153018976267 (not a double) */
    kc_init(&c, "pow");
    const int64_t one = 1, base[] = {3}, ex[] = {39};
    kc_input_raw(&c, GRAFT_INT64, 1, &one, NULL, base, 8);
    kc_input_raw(&c, GRAFT_INT64, 1, &one, NULL, ex, 8);
    KC_RUN_OK(&c);
    CHECK(*(const int64_t *)(void *)c.out.data == INT64_C(4052555153018976267));
    kc_free(&c);
}

static void run_unary(const char *op, const float *x, int n, const double *want, double tol)
{
    kcall c;
    kc_init(&c, op);
    int64_t len = n;
    kc_f32(&c, 1, &len, NULL, x, (size_t)n);
    KC_RUN_OK(&c);
    check_out(&c, want, n, tol);
    kc_free(&c);
}

static void test_unary_ops(void)
{
    const float x[] = {-1.5f, 0.0f, 2.5f, 4.0f};
    const double relu[] = {0, 0, 2.5, 4};
    run_unary("relu", x, 4, relu, 0);
    const double neg[] = {1.5, 0, -2.5, -4};
    run_unary("neg", x, 4, neg, 0);
    const double absv[] = {1.5, 0, 2.5, 4};
    run_unary("abs", x, 4, absv, 0);
    const double fl[] = {-2, 0, 2, 4};
    run_unary("floor", x, 4, fl, 0);
    const double ce[] = {-1, 0, 3, 4};
    run_unary("ceil", x, 4, ce, 0);
    const double ro[] = {-2, 0, 2, 4}; /* halves to even, as the op's rintf */
    run_unary("round", x, 4, ro, 0);
    const double sg[] = {-1, 0, 1, 1};
    run_unary("sign", x, 4, sg, 0);
    const float p[] = {1, 4, 0.25f, 16};
    const double sq[] = {1, 2, 0.5, 4};
    run_unary("sqrt", p, 4, sq, 0);
    const double rs[] = {1, 0.5, 2, 0.25};
    run_unary("rsqrt", p, 4, rs, 0);
    const double rc[] = {1, 0.25, 4, 0.0625};
    run_unary("recip", p, 4, rc, 0);
    const float z[] = {0};
    const double half_v[] = {0.5}, one[] = {1}, zero[] = {0};
    run_unary("sigmoid", z, 1, half_v, 0);
    run_unary("exp", z, 1, one, 0);
    run_unary("cos", z, 1, one, 0);
    run_unary("sin", z, 1, zero, 0);
    run_unary("tanh", z, 1, zero, 0);
    run_unary("erf", z, 1, zero, 0);
    run_unary("log", p, 1, zero, 0);
    const float e1[] = {1};
    const double sig1[] = {0.7310585786}, exp1[] = {2.7182818285}, erf1[] = {0.8427007929};
    run_unary("sigmoid", e1, 1, sig1, 1e-7);
    run_unary("exp", e1, 1, exp1, 1e-6);
    run_unary("erf", e1, 1, erf1, 1e-7);
}

static void test_alpha_ops(void)
{
    kcall c;
    kc_init(&c, "leaky_relu");
    const int64_t two = 2;
    const float x[] = {-10, 3};
    kc_f32(&c, 1, &two, NULL, x, 2);
    kc_set(&c, "alpha", attr_float(0.5));
    KC_RUN_OK(&c);
    const double want[] = {-5, 3};
    check_out(&c, want, 2, 0);
    kc_free(&c);

    /* hard_sigmoid defaults alpha 0.2, beta 0.5: 0.2*1+0.5 = 0.7; 5 -> 1.5 -> 1 */
    kc_init(&c, "hard_sigmoid");
    const float h[] = {1, 5};
    kc_f32(&c, 1, &two, NULL, h, 2);
    KC_RUN_OK(&c);
    const double wanth[] = {0.7, 1};
    check_out(&c, wanth, 2, 1e-7);
    kc_free(&c);

    /* elu alpha 2: x = ln(0.5) -> 2 * (0.5 - 1) = -1 */
    kc_init(&c, "elu");
    const float e[] = {(float)-0.69314718055994531, 2};
    kc_f32(&c, 1, &two, NULL, e, 2);
    kc_set(&c, "alpha", attr_float(2));
    KC_RUN_OK(&c);
    const double wante[] = {-1, 2};
    check_out(&c, wante, 2, 1e-6);
    kc_free(&c);

    /* prelu: x < 0 scaled by the slope */
    kc_init(&c, "prelu");
    const float s[] = {0.5f, 0.5f};
    kc_f32(&c, 1, &two, NULL, x, 2);
    kc_f32(&c, 1, &two, NULL, s, 2);
    KC_RUN_OK(&c);
    check_out(&c, want, 2, 0);
    kc_free(&c);
}

static void test_binary_misc(void)
{
    const int64_t three = 3;
    const float a[] = {3, -2, 5}, b[] = {5, -2, 1};
    const char *ops[] = {"sqdiff", "max", "min", "pow", "equal", "greater", "less"};
    const double want[][3] = {{4, 0, 16}, {5, -2, 5}, {3, -2, 1}, {243, 0.25, 5},
                              {0, 1, 0},  {0, 0, 1},  {1, 0, 0}};
    for (int k = 0; k < 7; k++) {
        kcall c;
        kc_init(&c, ops[k]);
        kc_f32(&c, 1, &three, NULL, a, 3);
        kc_f32(&c, 1, &three, NULL, b, 3);
        KC_RUN_OK(&c);
        check_out(&c, want[k], 3, 0);
        kc_free(&c);
    }
}

static void test_where_clip_convert(void)
{
    const int64_t three = 3;
    kcall c;
    kc_init(&c, "where");
    const uint8_t cond[] = {1, 0, 1};
    const float x[] = {1, 2, 3}, y[] = {10, 20, 30};
    const double y3[] = {10, 20, 30};
    kc_input_raw(&c, GRAFT_BOOL, 1, &three, NULL, cond, 3);
    kc_f32(&c, 1, &three, NULL, x, 3);
    kc_f32(&c, 1, &three, NULL, y, 3);
    KC_RUN_OK(&c);
    const double want[] = {1, 20, 3};
    check_out(&c, want, 3, 0);
    kc_free(&c);

    /* a one-element condition (0.0: false) picks y everywhere */
    kc_init(&c, "where");
    const int64_t one1 = 1;
    const float no[] = {0};
    kc_f32(&c, 1, &one1, NULL, no, 1);
    kc_f32(&c, 1, &three, NULL, x, 3);
    kc_f32(&c, 1, &three, NULL, y, 3);
    KC_RUN_OK(&c);
    check_out(&c, y3, 3, 0);
    kc_free(&c);

    kc_init(&c, "clip");
    const float v[] = {-2, 0.5f, 3}, lo[] = {0, 0, 0}, hi[] = {1, 1, 1};
    kc_f32(&c, 1, &three, NULL, v, 3);
    kc_f32(&c, 1, &three, NULL, lo, 3);
    kc_f32(&c, 1, &three, NULL, hi, 3);
    KC_RUN_OK(&c);
    const double wantc[] = {0, 0.5, 1};
    check_out(&c, wantc, 3, 0);
    kc_free(&c);

    /* float -> int8: truncation toward zero, saturating; NaN -> 0 */
    kc_init(&c, "convert");
    const int64_t four = 4;
    const float f[] = {1.9f, -1.9f, 300, NAN};
    kc_f32(&c, 1, &four, NULL, f, 4);
    kc_set(&c, "target_type", attr_type(GRAFT_INT8));
    KC_RUN_OK(&c);
    CHECK_INT(c.out.sh.type, GRAFT_INT8);
    const int8_t *o = (const int8_t *)c.out.data;
    CHECK_INT(o[0], 1);
    CHECK_INT(o[1], -1);
    CHECK_INT(o[2], 127);
    CHECK_INT(o[3], 0);
    kc_free(&c);

    /* float -> half bits */
    kc_init(&c, "convert");
    const float third[] = {1.0f / 3.0f};
    const int64_t one = 1;
    kc_f32(&c, 1, &one, NULL, third, 1);
    kc_set(&c, "target_type", attr_type(GRAFT_HALF));
    KC_RUN_OK(&c);
    CHECK_INT(*(const uint16_t *)(void *)c.out.data, 0x3555);
    kc_free(&c);
}

/* ---- reductions ---- */

static void run_reduce(const char *op, const int64_t *axes, int naxes, const int64_t *out_lens,
                       const double *want, int nwant)
{
    /* x: lens {2, 3, 2}, x[i][j][k] = 6i + 2j + k */
    float x[12];
    for (int i = 0; i < 12; i++)
        x[i] = (float)i;
    const int64_t lens[] = {2, 3, 2};
    kcall c;
    kc_init(&c, op);
    kc_f32(&c, 3, lens, NULL, x, 12);
    kc_ints(&c, "axes", axes, naxes);
    KC_RUN_OK(&c);
    check_lens(&c, 3, out_lens);
    check_out(&c, want, nwant, 1e-12);
    kc_free(&c);
}

static void test_reductions(void)
{
    /* over axes 0 and 2: j=0: 0+1+6+7, j=1: 2+3+8+9, j=2: 4+5+10+11 */
    const int64_t a02[] = {0, 2}, l131[] = {1, 3, 1};
    const double sum[] = {14, 22, 30}, mean[] = {3.5, 5.5, 7.5};
    run_reduce("reduce_sum", a02, 2, l131, sum, 3);
    run_reduce("reduce_mean", a02, 2, l131, mean, 3);
    /* over axis 1: max of {0,2,4} {1,3,5} {6,8,10} {7,9,11} */
    const int64_t a1[] = {1}, l212[] = {2, 1, 2};
    const double max[] = {4, 5, 10, 11}, min[] = {0, 1, 6, 7};
    run_reduce("reduce_max", a1, 1, l212, max, 4);
    run_reduce("reduce_min", a1, 1, l212, min, 4);
    /* last axis (-1): products of pairs 0*1, 2*3, 4*5, 6*7, 8*9, 10*11 */
    const int64_t am1[] = {-1}, l231[] = {2, 3, 1};
    const double prod[] = {0, 6, 20, 42, 72, 110};
    run_reduce("reduce_prod", am1, 1, l231, prod, 6);

    /* integer mean truncates: (1 + 2 + 4) / 3 = 2 */
    kcall c;
    kc_init(&c, "reduce_mean");
    const int64_t three = 3, a0[] = {0};
    const int32_t v[] = {1, 2, 4};
    kc_input_raw(&c, GRAFT_INT32, 1, &three, NULL, v, sizeof v);
    kc_ints(&c, "axes", a0, 1);
    KC_RUN_OK(&c);
    CHECK_INT(*(const int32_t *)(void *)c.out.data, 2);
    kc_free(&c);
}

static void test_reduce_transposed_input(void)
{
    /* {2, 3} stored transposed: memory {1,4,2,5,3,6} is rows {1,2,3} {4,5,6};
     * summing axis 1 gives {6, 15} */
    kcall c;
    kc_init(&c, "reduce_sum");
    const int64_t lens[] = {2, 3}, tr[] = {1, 2}, a1[] = {1};
    const float mem[] = {1, 4, 2, 5, 3, 6};
    kc_f32(&c, 2, lens, tr, mem, 6);
    kc_ints(&c, "axes", a1, 1);
    KC_RUN_OK(&c);
    const double want[] = {6, 15};
    check_out(&c, want, 2, 0);
    kc_free(&c);
}

static void test_softmax(void)
{
    /* softmax{1,2,3} = e^k / (e + e^2 + e^3) */
    kcall c;
    kc_init(&c, "softmax");
    const int64_t lens[] = {2, 3};
    const float x[] = {1, 2, 3, 1, 1, 1};
    kc_f32(&c, 2, lens, NULL, x, 6);
    kc_set(&c, "axis", attr_int(1));
    KC_RUN_OK(&c);
    const double want[] = {0.0900305732, 0.2447284711, 0.6652409558, 1.0 / 3, 1.0 / 3, 1.0 / 3};
    check_out(&c, want, 6, 1e-7);
    kc_free(&c);

    kc_init(&c, "logsoftmax");
    kc_f32(&c, 2, lens, NULL, x, 6);
    kc_set(&c, "axis", attr_int(-1));
    KC_RUN_OK(&c);
    const double wantl[] = {-2.4076059644, -1.4076059644, -0.4076059644,
                            -1.0986122887, -1.0986122887, -1.0986122887};
    check_out(&c, wantl, 6, 1e-6);
    kc_free(&c);
}

static void test_argmax_argmin(void)
{
    /* rows [1 5 5] [7 0 7] */
    const int64_t lens[] = {2, 3};
    const float x[] = {1, 5, 5, 7, 0, 7};
    kcall c;
    kc_init(&c, "argmax");
    kc_f32(&c, 2, lens, NULL, x, 6);
    kc_set(&c, "axis", attr_int(1));
    KC_RUN_OK(&c);
    CHECK_INT(c.out.sh.type, GRAFT_INT64);
    const double first[] = {1, 0};
    check_out(&c, first, 2, 0);
    kc_free(&c);

    kc_init(&c, "argmax");
    kc_f32(&c, 2, lens, NULL, x, 6);
    kc_set(&c, "axis", attr_int(1));
    kc_set(&c, "select_last_index", attr_bool(true));
    KC_RUN_OK(&c);
    const double last[] = {2, 2};
    check_out(&c, last, 2, 0);
    kc_free(&c);

    kc_init(&c, "argmin");
    kc_f32(&c, 2, lens, NULL, x, 6);
    KC_RUN_OK(&c);
    const double mins[] = {0, 1, 0};
    check_out(&c, mins, 3, 0);
    kc_free(&c);
}

static void test_batch_norm_and_lrn(void)
{
    /* x 1x2x1x2 = {1,2 | 3,4}; channel 0: (x-1)/sqrt(4) * 1 + 0 = 0, 0.5;
     * channel 1: (x-3)/sqrt(0.25) * 2 + 1 = 1, 5 */
    kcall c;
    kc_init(&c, "batch_norm_inference");
    const int64_t lx[] = {1, 2, 1, 2}, two = 2;
    const float x[] = {1, 2, 3, 4}, scale[] = {1, 2}, bias[] = {0, 1}, mean[] = {1, 3},
                var[] = {4, 0.25f};
    kc_f32(&c, 4, lx, NULL, x, 4);
    kc_f32(&c, 1, &two, NULL, scale, 2);
    kc_f32(&c, 1, &two, NULL, bias, 2);
    kc_f32(&c, 1, &two, NULL, mean, 2);
    kc_f32(&c, 1, &two, NULL, var, 2);
    kc_set(&c, "epsilon", attr_float(0));
    KC_RUN_OK(&c);
    const double want[] = {0, 0.5, 1, 5};
    check_out(&c, want, 4, 0);
    kc_free(&c);

    /* lrn size 3, alpha 3 (alpha/size = 1), beta 1, bias 1 on channels
     * {1,2,3}: 1/(1+1+4), 2/(1+1+4+9), 3/(1+4+9) */
    kc_init(&c, "lrn");
    const int64_t l[] = {1, 3, 1, 1};
    const float v[] = {1, 2, 3};
    kc_f32(&c, 4, l, NULL, v, 3);
    kc_set(&c, "size", attr_int(3));
    kc_set(&c, "alpha", attr_float(3));
    kc_set(&c, "beta", attr_float(1));
    kc_set(&c, "bias", attr_float(1));
    KC_RUN_OK(&c);
    const double wantl[] = {1.0 / 6, 2.0 / 15, 3.0 / 14};
    check_out(&c, wantl, 3, 1e-7);
    kc_free(&c);
}

/* ---- pooling ---- */

static void run_pool(const char *mode, const int64_t *pad, int npad, const int64_t *stride,
                     const int64_t *lengths, bool include_pad, bool ceil_mode, const double *want,
                     int nwant)
{
    kcall c;
    kc_init(&c, "pooling");
    kc_f32(&c, 4, l1133, NULL, x9, 9);
    int i = op_attr_index(c.op, "mode");
    c.attrs[i].v = attr_int(op_enum_value(&c.op->attrs[i], mode, strlen(mode)));
    if (npad)
        kc_ints(&c, "padding", pad, npad);
    kc_ints(&c, "stride", stride, 2);
    kc_ints(&c, "lengths", lengths, 2);
    kc_set(&c, "count_include_pad", attr_bool(include_pad));
    kc_set(&c, "ceil_mode", attr_bool(ceil_mode));
    KC_RUN_OK(&c);
    check_out(&c, want, nwant, 1e-12);
    kc_free(&c);
}

static void test_pooling_average(void)
{
    const int64_t s1[] = {1, 1}, s2[] = {2, 2}, k2[] = {2, 2}, p1[] = {1, 1};
    /* 2x2 windows, stride 1: (1+2+4+5)/4, (2+3+5+6)/4, (4+5+7+8)/4, (5+6+8+9)/4 */
    const double plain[] = {3, 4, 6, 7};
    run_pool("average", NULL, 0, s1, k2, false, false, plain, 4);
    /* padding 1, stride 2: windows hold {1}, {2,3}, {4,7}, {5,6,8,9} */
    const double exclude[] = {1, 2.5, 5.5, 7};
    run_pool("average", p1, 2, s2, k2, false, false, exclude, 4);
    /* count_include_pad: every window has 4 positions in the padded input */
    const double include[] = {0.25, 1.25, 2.75, 7};
    run_pool("average", p1, 2, s2, k2, true, false, include, 4);
    /* ceil_mode, no padding, stride 2: windows {1,2,4,5}, {3,6}, {7,8}, {9};
     * the overhang past the input is not padding, so never counted */
    const double ceil_ex[] = {3, 4.5, 7.5, 9};
    run_pool("average", NULL, 0, s2, k2, false, true, ceil_ex, 4);
    run_pool("average", NULL, 0, s2, k2, true, true, ceil_ex, 4);
}

static void test_pooling_max_lp_dilation(void)
{
    const int64_t s2[] = {2, 2}, k2[] = {2, 2}, s1[] = {1, 1};
    const double maxes[] = {5, 6, 8, 9};
    run_pool("max", NULL, 0, s2, k2, false, true, maxes, 4);

    /* lpnorm p=2 over {3,4,0,0}-like window: use the whole 2x2 corner of
     * x - not hand friendly; instead a 2x2 input {3, 4, 0, 0} */
    kcall c;
    kc_init(&c, "pooling");
    const float v[] = {3, 4, 0, 0};
    kc_f32(&c, 4, l1122, NULL, v, 4);
    int i = op_attr_index(c.op, "mode");
    c.attrs[i].v = attr_int(op_enum_value(&c.op->attrs[i], "lpnorm", 6));
    kc_ints(&c, "lengths", k2, 2);
    kc_ints(&c, "stride", s1, 2);
    KC_RUN_OK(&c);
    const double five[] = {5};
    check_out(&c, five, 1, 1e-12);
    kc_free(&c);

    /* dyn_global: one window over the whole input, whatever lengths say:
     * (1 + ... + 9) / 9 = 5, and max 9 */
    kc_init(&c, "pooling");
    kc_f32(&c, 4, l1133, NULL, x9, 9);
    kc_set(&c, "dyn_global", attr_bool(true));
    KC_RUN_OK(&c);
    const int64_t l1111[] = {1, 1, 1, 1};
    check_lens(&c, 4, l1111);
    check_out(&c, (const double[]){5}, 1, 0);
    kc_free(&c);

    /* dilation 2 over 3x3 reads the corners 1, 3, 7, 9 */
    kc_init(&c, "pooling");
    kc_f32(&c, 4, l1133, NULL, x9, 9);
    c.attrs[i].v = attr_int(op_enum_value(&c.op->attrs[i], "max", 3));
    const int64_t d2[] = {2, 2};
    kc_ints(&c, "lengths", k2, 2);
    kc_ints(&c, "stride", s1, 2);
    kc_ints(&c, "dilations", d2, 2);
    KC_RUN_OK(&c);
    const double nine[] = {9};
    check_out(&c, nine, 1, 0);
    c.attrs[i].v = attr_int(op_enum_value(&c.op->attrs[i], "average", 7));
    op_call call = {c.op, c.attrs, c.shapes, c.n, NULL, 0};
    CHECK(kernel_for(c.op)(&call, c.in, &c.out, &c.err));
    const double avg[] = {5}; /* (1+3+7+9)/4 */
    check_out(&c, avg, 1, 0);
    kc_free(&c);
}

/* max_pooling_indices: where the maxima of max pooling's windows are, as
 * flat indices into the input. */
static void test_max_pooling_indices(void)
{
    const int64_t s1[] = {1, 1}, k2[] = {2, 2}, p1[] = {1, 1, 0, 0};
    /* x = [[9, 2, 3], [4, 5, 6], [7, 8, 1]] (two planes, the second +10),
     * 2x2 windows, stride 1: maxima 9 (0), 6 (5), 8 (7), 8 (7); the second
     * plane's indices are 9 further on */
    const float x[] = {9, 2, 3, 4, 5, 6, 7, 8, 1, 19, 12, 13, 14, 15, 16, 17, 18, 11};
    const int64_t l1233[] = {1, 2, 3, 3};
    kcall c;
    kc_init(&c, "max_pooling_indices");
    kc_f32(&c, 4, l1233, NULL, x, 18);
    kc_ints(&c, "lengths", k2, 2);
    kc_ints(&c, "stride", s1, 2);
    KC_RUN_OK(&c);
    CHECK_INT(c.out.sh.type, GRAFT_INT64);
    const int64_t l1222[] = {1, 2, 2, 2};
    check_lens(&c, 4, l1222);
    check_out(&c, (const double[]){0, 5, 7, 7, 9, 14, 16, 16}, 8, 0);
    /* column-major within a plane: (h, w) is h + 3 w: 9 (0), 6 (1 + 6),
     * 8 (2 + 3) */
    kc_set(&c, "storage_order", attr_int(1));
    op_call call = {c.op, c.attrs, c.shapes, c.n, NULL, 0};
    CHECK(kernel_for(c.op)(&call, c.in, &c.out, &c.err));
    check_out(&c, (const double[]){0, 7, 5, 5, 9, 16, 14, 14}, 8, 0);
    kc_free(&c);
    /* padding above and left: the window at (-1, -1) sees only 9 */
    kc_init(&c, "max_pooling_indices");
    kc_f32(&c, 4, l1133, NULL, x, 9);
    kc_ints(&c, "lengths", k2, 2);
    kc_ints(&c, "stride", s1, 2);
    kc_ints(&c, "padding", p1, 4);
    KC_RUN_OK(&c);
    check_out(&c, (const double[]){0, 0, 2, 0, 0, 5, 6, 7, 7}, 9, 0);
    kc_free(&c);
    /* storage_order other than 0 or 1 is refused by the shape rule */
    kc_init(&c, "max_pooling_indices");
    kc_f32(&c, 4, l1133, NULL, x, 9);
    kc_set(&c, "storage_order", attr_int(2));
    graft_error err = {0};
    shape out;
    op_call bad = {c.op, c.attrs, c.shapes, c.n, NULL, 0};
    CHECK(!op_compute_shape(&bad, &out, &err));
    CHECK(strstr(err.message, "storage_order 2") != NULL);
    kc_free(&c);
}

/* ---- data movement ---- */

static void run_pad(const char *mode, double value, const double *want)
{
    kcall c;
    kc_init(&c, "pad");
    const int64_t lens[] = {1, 4}, pads[] = {0, 2, 0, 1};
    const float x[] = {1, 2, 3, 4};
    kc_f32(&c, 2, lens, NULL, x, 4);
    kc_ints(&c, "pads", pads, 4);
    int i = op_attr_index(c.op, "mode");
    c.attrs[i].v = attr_int(op_enum_value(&c.op->attrs[i], mode, strlen(mode)));
    kc_set(&c, "value", attr_float(value));
    KC_RUN_OK(&c);
    check_out(&c, want, 7, 0);
    kc_free(&c);
}

static void test_pad_modes(void)
{
    const double constant[] = {9.5, 9.5, 1, 2, 3, 4, 9.5};
    run_pad("constant", 9.5, constant);
    const double reflect[] = {3, 2, 1, 2, 3, 4, 3};
    run_pad("reflect", 0, reflect);
    const double edge[] = {1, 1, 1, 2, 3, 4, 4};
    run_pad("edge", 0, edge);
}

static void test_gather(void)
{
    /* data rows {1,2} {3,4} {5,6}; indices {-1, 0} on axis 0 -> rows 2 and 0 */
    kcall c;
    kc_init(&c, "gather");
    const int64_t lens[] = {3, 2}, two = 2;
    const float d[] = {1, 2, 3, 4, 5, 6};
    const int32_t idx[] = {-1, 0};
    kc_f32(&c, 2, lens, NULL, d, 6);
    kc_input_raw(&c, GRAFT_INT32, 1, &two, NULL, idx, sizeof idx);
    KC_RUN_OK(&c);
    const double want[] = {5, 6, 1, 2};
    check_out(&c, want, 4, 0);
    kc_free(&c);

    /* axis 1, index 1: the second column */
    kc_init(&c, "gather");
    const int64_t one = 1;
    const int64_t idx1[] = {1};
    kc_f32(&c, 2, lens, NULL, d, 6);
    kc_input_raw(&c, GRAFT_INT64, 1, &one, NULL, idx1, sizeof idx1);
    kc_set(&c, "axis", attr_int(1));
    KC_RUN_OK(&c);
    const double col[] = {2, 4, 6};
    check_out(&c, col, 3, 0);
    kc_free(&c);

    /* index 3 is out of range for 3 rows */
    kc_init(&c, "gather");
    const int32_t bad[] = {3};
    kc_f32(&c, 2, lens, NULL, d, 6);
    kc_input_raw(&c, GRAFT_INT32, 1, &one, NULL, bad, sizeof bad);
    CHECK(!kc_run(&c));
    CHECK_CONTAINS(c.err.message, "index 3 is out of range");
    kc_free(&c);
}

static void test_slice_view(void)
{
    /* 3x4 of 0..11; rows 1..2, columns 1..2: {5, 6, 9, 10}, offset 5 */
    float x[12];
    for (int i = 0; i < 12; i++)
        x[i] = (float)i;
    const int64_t lens[] = {3, 4};
    kcall c;
    kc_init(&c, "slice");
    kc_f32(&c, 2, lens, NULL, x, 12);
    const int64_t axes[] = {0, 1}, starts[] = {1, 1}, ends[] = {3, 3};
    kc_ints(&c, "axes", axes, 2);
    kc_ints(&c, "starts", starts, 2);
    kc_ints(&c, "ends", ends, 2);
    KC_RUN_OK(&c);
    CHECK(c.out.data == c.in[0].data + 5 * sizeof(float));
    const double want[] = {5, 6, 9, 10};
    check_out(&c, want, 4, 0);
    kc_free(&c);

    /* start -1 on axis 1: the last column {3, 7, 11} */
    kc_init(&c, "slice");
    kc_f32(&c, 2, lens, NULL, x, 12);
    const int64_t ax1[] = {1}, sm1[] = {-1}, e4[] = {4};
    kc_ints(&c, "axes", ax1, 1);
    kc_ints(&c, "starts", sm1, 1);
    kc_ints(&c, "ends", e4, 1);
    KC_RUN_OK(&c);
    const double last[] = {3, 7, 11};
    check_out(&c, last, 3, 0);
    kc_free(&c);
}

static void test_concat(void)
{
    /* axis 1: [1; 2] ++ [3 4; 5 6] = [1 3 4; 2 5 6] */
    kcall c;
    kc_init(&c, "concat");
    const int64_t la[] = {2, 1}, lb[] = {2, 2};
    const float a[] = {1, 2}, b[] = {3, 4, 5, 6};
    kc_f32(&c, 2, la, NULL, a, 2);
    kc_f32(&c, 2, lb, NULL, b, 4);
    kc_set(&c, "axis", attr_int(1));
    KC_RUN_OK(&c);
    const double want[] = {1, 3, 4, 2, 5, 6};
    check_out(&c, want, 6, 0);
    kc_free(&c);
}

static void test_views_and_copies(void)
{
    const int64_t lens[] = {2, 3};
    const float x[] = {0, 1, 2, 3, 4, 5};
    /* transpose: a view; row-major read of the {3,2} result is 0 3 1 4 2 5 */
    kcall c;
    kc_init(&c, "transpose");
    kc_f32(&c, 2, lens, NULL, x, 6);
    const int64_t perm[] = {1, 0};
    kc_ints(&c, "permutation", perm, 2);
    KC_RUN_OK(&c);
    CHECK(c.out.data == c.in[0].data);
    const double tr[] = {0, 3, 1, 4, 2, 5};
    check_out(&c, tr, 6, 0);
    tensor transposed = c.out;

    /* contiguous of the transposed view: same values, standard memory */
    kcall k;
    kc_init(&k, "contiguous");
    const int64_t lt[] = {3, 2}, st[] = {1, 3};
    kc_f32(&k, 2, lt, st, (const float *)(const void *)transposed.data, 6);
    KC_RUN_OK(&k);
    CHECK(shape_standard_p(&k.out.sh));
    const float *m = (const float *)(const void *)k.out.data;
    for (int i = 0; i < 6; i++)
        CHECK_NEAR(m[i], tr[i], 0);
    kc_free(&k);

    /* reshape (copy semantics) of the transposed view to {6}: row-major order */
    kc_init(&k, "reshape");
    kc_f32(&k, 2, lt, st, (const float *)(const void *)transposed.data, 6);
    const int64_t dims[] = {6};
    kc_ints(&k, "dims", dims, 1);
    KC_RUN_OK(&k);
    check_out(&k, tr, 6, 0);
    kc_free(&k);
    kc_free(&c);

    /* multibroadcast {3} -> {2, 3}: strides {0, 1}, aliasing the input */
    kc_init(&c, "multibroadcast");
    const int64_t three = 3;
    const float row[] = {7, 8, 9};
    kc_f32(&c, 1, &three, NULL, row, 3);
    kc_ints(&c, "out_lens", lens, 2);
    KC_RUN_OK(&c);
    CHECK(c.out.data == c.in[0].data);
    const double bc[] = {7, 8, 9, 7, 8, 9};
    check_out(&c, bc, 6, 0);
    kc_free(&c);

    /* layout {1, 0} of a standard {2,3}: same values, transposed memory */
    kc_init(&c, "layout");
    kc_f32(&c, 2, lens, NULL, x, 6);
    const int64_t p10[] = {1, 0};
    kc_ints(&c, "permutation", p10, 2);
    KC_RUN_OK(&c);
    CHECK_INT(c.out.sh.strides[0], 1);
    CHECK_INT(c.out.sh.strides[1], 2);
    const double same[] = {0, 1, 2, 3, 4, 5};
    check_out(&c, same, 6, 0);
    const float *lm = (const float *)(const void *)c.out.data;
    const float mem_want[] = {0, 3, 1, 4, 2, 5};
    for (int i = 0; i < 6; i++)
        CHECK_NEAR(lm[i], mem_want[i], 0);
    kc_free(&c);
}

static void test_get_tuple_elem(void)
{
    /* a tuple (float {2}, int32 {3}): element 1 starts 16 bytes in */
    const int64_t two = 2, three = 3;
    shape parts[2] = {shape_standard(GRAFT_FLOAT, 1, &two), shape_standard(GRAFT_INT32, 1, &three)};
    shape tuple;
    memset(&tuple, 0, sizeof tuple);
    tuple.type = GRAFT_TUPLE;
    tuple.ntuple = 2;
    tuple.tuple = parts;
    CHECK_INT(tensor_tuple_offset(&tuple, 1), 16);
    CHECK_INT(tensor_tuple_bytes(&tuple), 32);
    char mem[32] = {0};
    const int32_t ints[] = {4, 5, 6};
    memcpy(mem + 16, ints, sizeof ints);
    kcall c;
    kc_init(&c, "get_tuple_elem");
    c.in[0] = (tensor){tuple, malloc(32)};
    memcpy(c.in[0].data, mem, 32);
    c.shapes[0] = tuple;
    c.n = 1;
    kc_set(&c, "index", attr_int(1));
    KC_RUN_OK(&c);
    const double want[] = {4, 5, 6};
    check_out(&c, want, 3, 0);
    kc_free(&c);
}

static void test_kernel_for(void)
{
    CHECK(kernel_for(op_find("convolution")) != NULL);
    CHECK(kernel_for(op_find("@param")) == NULL);
    CHECK(kernel_for(op_opaque()) == NULL);
    /* every op the table classes as executable has a kernel (ops of no
     * class, like pending_shape_change, exist only between rewrites) */
    unsigned executable = OPC_POINTWISE | OPC_REDUCE | OPC_VIEW | OPC_COMPUTE | OPC_MOVE | OPC_SHAPE;
    int n;
    const op_def *const *all = op_all(&n);
    CHECK(n > 60);
    for (int i = 0; i < n; i++) {
        if (!(all[i]->classes & executable) || (all[i]->classes & (OPC_BUILTIN | OPC_OPAQUE)))
            continue;
        if (!kernel_for(all[i]))
            CHECK_STR(all[i]->name, "(an op with a kernel)");
    }
}

int main(void)
{
    RUN(test_half_bits);
    RUN(test_bf16_bits);
    RUN(test_half_store_no_double_rounding);
    RUN(test_dense_transposed);
    RUN(test_integer_conversions);
    RUN(test_tensor_copy_layouts);
    RUN(test_conv_plain);
    RUN(test_conv_padding_stride);
    RUN(test_conv_dilation);
    RUN(test_conv_asymmetric_padding);
    RUN(test_conv_groups_nhwc);
    RUN(test_conv_batch_and_double);
    RUN(test_conv_half);
    RUN(test_quant_convolution);
    RUN(test_dot);
    RUN(test_dot_batched);
    RUN(test_quant_dot_exact);
    RUN(test_add_layouts);
    RUN(test_half_add_rounds_on_store);
    RUN(test_integer_pointwise);
    RUN(test_unary_ops);
    RUN(test_alpha_ops);
    RUN(test_binary_misc);
    RUN(test_where_clip_convert);
    RUN(test_reductions);
    RUN(test_reduce_transposed_input);
    RUN(test_softmax);
    RUN(test_argmax_argmin);
    RUN(test_batch_norm_and_lrn);
    RUN(test_pooling_average);
    RUN(test_pooling_max_lp_dilation);
    RUN(test_max_pooling_indices);
    RUN(test_pad_modes);
    RUN(test_gather);
    RUN(test_slice_view);
    RUN(test_concat);
    RUN(test_views_and_copies);
    RUN(test_get_tuple_elem);
    RUN(test_kernel_for);
    return tests_finish();
}
