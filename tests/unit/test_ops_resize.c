/* test_ops_resize.c: resize (ops/ops_resize.c, ops/kernels_resize.c) and
 * convolution_backwards (ops/ops_deconv.c, ops/kernels_deconv.c): shape
 * rules, their errors, and the kernels on cases worked out by hand in the
 * comments.
 */
#include "kernel_call.h"

static void resize_call(kcall *c, const char *mode, const char *ctm, const double *scales, int n)
{
    kc_init(c, "resize");
    kc_set(c, "mode", attr_string(mode));
    kc_set(c, "coordinate_transformation_mode", attr_string(ctm));
    if (scales)
        kc_set(c, "scales", attr_floats(scales, n));
}

/* scales {1, 2}, asymmetric, floor: [[1, 2]] -> [[1, 1, 2, 2]] */
static void test_resize_nearest(void)
{
    kcall c;
    resize_call(&c, "nearest", "asymmetric", KC_VALS(1, 2), 2);
    kc_set(&c, "nearest_mode", attr_string("floor"));
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(1, 2), KC_VALS(1, 2));
    KC_RUN_OK(&c);
    kc_check(&c, 2, KC_LENS(1, 4), KC_VALS(1, 1, 2, 2), 0);
    kc_free(&c);

    /* half_pixel, round_prefer_ceil, 3 -> 2 (scale 2/3 from sizes):
     * x(0) = 0.5 * 1.5 - 0.5 = 0.25 -> 0; x(1) = 1.5 * 1.5 - 0.5 = 1.75 -> 2 */
    kc_init(&c, "resize");
    kc_set(&c, "sizes", attr_ints(KC_LENS(2), 1));
    kc_set(&c, "nearest_mode", attr_string("round_prefer_ceil"));
    kc_input(&c, GRAFT_INT32, 1, KC_LENS(3), KC_VALS(7, 8, 9));
    KC_RUN_OK(&c);
    kc_check(&c, 1, KC_LENS(2), KC_VALS(7, 9), 0);
    kc_free(&c);
}

static void test_resize_linear(void)
{
    kcall c;
    /* half_pixel, [0, 4] x2: sources -0.25, 0.25, 0.75, 1.25 (edges repeat)
     * -> [0, 1, 3, 4] */
    resize_call(&c, "linear", "half_pixel", KC_VALS(2), 1);
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(2), KC_VALS(0, 4));
    KC_RUN_OK(&c);
    kc_check(&c, 1, KC_LENS(4), KC_VALS(0, 1, 3, 4), 1e-6);
    kc_free(&c);

    /* align_corners, [0, 3] x2: x * 1 / 3 -> [0, 1, 2, 3] */
    resize_call(&c, "linear", "align_corners", KC_VALS(2), 1);
    kc_input(&c, GRAFT_DOUBLE, 1, KC_LENS(2), KC_VALS(0, 3));
    KC_RUN_OK(&c);
    kc_check(&c, 1, KC_LENS(4), KC_VALS(0, 1, 2, 3), 1e-12);
    kc_free(&c);

    /* tf_crop_and_resize, [0, 10, 20, 30] to 3 with roi [0.5, 1.5]:
     * sources 1.5 + 1.5 x = 1.5, 3, 4.5 (outside: extrapolation -1) */
    kc_init(&c, "resize");
    kc_set(&c, "mode", attr_string("linear"));
    kc_set(&c, "coordinate_transformation_mode", attr_string("tf_crop_and_resize"));
    kc_set(&c, "sizes", attr_ints(KC_LENS(3), 1));
    kc_set(&c, "roi", attr_floats(KC_VALS(0.5, 1.5), 2));
    kc_set(&c, "extrapolation_value", attr_float(-1));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(4), KC_VALS(0, 10, 20, 30));
    KC_RUN_OK(&c);
    kc_check(&c, 1, KC_LENS(3), KC_VALS(15, 30, -1), 1e-5);
    kc_free(&c);

    /* antialias, [0, 1, 2, 3] x0.5, half_pixel: sources 0.5 and 2.5, the
     * kernel widened to 4 taps (0.125, 0.375, 0.375, 0.125) over positions
     * -1..2 and 1..4: 0.375 * 1 + 0.125 * 2 = 0.625 and
     * 0.125 * 1 + 0.375 * 2 + 0.375 * 3 + 0.125 * 3 = 2.375 */
    resize_call(&c, "linear", "half_pixel", KC_VALS(0.5), 1);
    kc_set(&c, "antialias", attr_bool(true));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(4), KC_VALS(0, 1, 2, 3));
    KC_RUN_OK(&c);
    kc_check(&c, 1, KC_LENS(2), KC_VALS(0.625, 2.375), 1e-6);
    kc_free(&c);
}

/* Keys' coefficients at ratio 0.5, a = -0.75: W(1.5) = -0.09375,
 * W(0.5) = 0.59375. asymmetric x2 over [0, 1, 2, 3]: source 0.5 reads
 * positions -1..2 (values 0, 0, 1, 2): 0.59375 - 0.1875 = 0.40625; source 1.5
 * reads 0..3: 1.5 (a line is reproduced). With exclude_outside position -1
 * drops out and the rest is divided by 1.09375. */
static void test_resize_cubic(void)
{
    kcall c;
    resize_call(&c, "cubic", "asymmetric", KC_VALS(2), 1);
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(4), KC_VALS(0, 1, 2, 3));
    KC_RUN_OK(&c);
    CHECK_NEAR(tensor_get_f64(&c.out, 0), 0, 1e-6);
    CHECK_NEAR(tensor_get_f64(&c.out, 1), 0.40625, 1e-6);
    CHECK_NEAR(tensor_get_f64(&c.out, 2), 1, 1e-6);
    CHECK_NEAR(tensor_get_f64(&c.out, 3), 1.5, 1e-6);
    kc_free(&c);

    resize_call(&c, "cubic", "asymmetric", KC_VALS(2), 1);
    kc_set(&c, "exclude_outside", attr_bool(true));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(4), KC_VALS(0, 1, 2, 3));
    KC_RUN_OK(&c);
    CHECK_NEAR(tensor_get_f64(&c.out, 1), 0.40625 / 1.09375, 1e-6);
    kc_free(&c);
}

static void test_resize_errors(void)
{
    kcall c;
    kc_init(&c, "resize");
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(4), KC_VALS(0, 1, 2, 3));
    KC_RUN_FAILS(&c, "resize: needs scales or sizes");
    kc_free(&c);

    resize_call(&c, "linear", "half_pixel", KC_VALS(2, 2), 2);
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(4), KC_VALS(0, 1, 2, 3));
    KC_RUN_FAILS(&c, "resize: 2 scales for an operand of rank 1");
    kc_free(&c);

    resize_call(&c, "linear", "half_pixel", KC_VALS(0.2), 1);
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(4), KC_VALS(0, 1, 2, 3));
    KC_RUN_FAILS(&c, "resize: scale 0.2 gives axis 0 of length 4 0 elements");
    kc_free(&c);

    kc_init(&c, "resize");
    kc_set(&c, "sizes", attr_ints(KC_LENS(3, 0), 2));
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(1, 4), KC_VALS(0, 1, 2, 3));
    KC_RUN_FAILS(&c, "resize: sizes {3, 0} has an entry below 1");
    kc_free(&c);
}

static void deconv_call(kcall *c, const int64_t *stride, const int64_t *padding, int npad,
                        const int64_t *dilation, int k)
{
    kc_init(c, "convolution_backwards");
    kc_set(c, "stride", attr_ints(stride, k));
    kc_set(c, "dilation", attr_ints(dilation, k));
    kc_set(c, "padding", attr_ints(padding, npad));
}

static void test_convolution_backwards(void)
{
    kcall c;
    /* x [1, 2], w [1, 1]: stride 1 -> [1, 3, 2]; stride 2 -> [1, 1, 2, 2];
     * stride 2 cropped by 1 in front -> [1, 2, 2]; dilation 2 -> [1, 2, 1, 2] */
    const int64_t s1[] = {1}, s2[] = {2}, none[] = {0, 0}, front[] = {1, 0};
    struct {
        const int64_t *stride, *padding, *dilation;
        int64_t len;
        double want[4];
    } cases[] = {{s1, none, s1, 3, {1, 3, 2}},
                 {s2, none, s1, 4, {1, 1, 2, 2}},
                 {s2, front, s1, 3, {1, 2, 2}},
                 {s1, none, s2, 4, {1, 2, 1, 2}}};
    for (int i = 0; i < 4; i++) {
        deconv_call(&c, cases[i].stride, cases[i].padding, 2, cases[i].dilation, 1);
        kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(1, 1, 2), KC_VALS(1, 2));
        kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(1, 1, 2), KC_VALS(1, 1));
        KC_RUN_OK(&c);
        kc_check(&c, 3, KC_LENS(1, 1, cases[i].len), cases[i].want, 0);
        kc_free(&c);
    }

    /* 2-D, ones kernel 2x2 over [[1, 2], [3, 4]]: [[1, 3, 2], [4, 10, 6], [3, 7, 4]] */
    const int64_t ones2[] = {1, 1}, zeros4[] = {0, 0, 0, 0};
    deconv_call(&c, ones2, zeros4, 4, ones2, 2);
    kc_input(&c, GRAFT_FLOAT, 4, KC_LENS(1, 1, 2, 2), KC_VALS(1, 2, 3, 4));
    kc_input(&c, GRAFT_FLOAT, 4, KC_LENS(1, 1, 2, 2), KC_VALS(1, 1, 1, 1));
    KC_RUN_OK(&c);
    kc_check(&c, 4, KC_LENS(1, 1, 3, 3), KC_VALS(1, 3, 2, 4, 10, 6, 3, 7, 4), 0);
    kc_free(&c);

    /* group 2: channel 0 [1] through w[0] = 3, channel 1 [2] through w[1] = 4 */
    deconv_call(&c, s1, none, 2, s1, 1);
    kc_set(&c, "group", attr_int(2));
    kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(1, 2, 1), KC_VALS(1, 2));
    kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(2, 1, 1), KC_VALS(3, 4));
    KC_RUN_OK(&c);
    kc_check(&c, 3, KC_LENS(1, 2, 1), KC_VALS(3, 8), 0);
    kc_free(&c);
}

static void test_convolution_backwards_errors(void)
{
    kcall c;
    const int64_t s1[] = {1}, none[] = {0, 0}, big[] = {2, 2};
    deconv_call(&c, s1, none, 2, s1, 1);
    kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(1, 2, 2), KC_VALS(1, 2, 3, 4));
    kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(1, 1, 2), KC_VALS(1, 1));
    KC_RUN_FAILS(&c, "convolution_backwards: input has 2 channels but weights {1, 1, 2} expect 1");
    kc_free(&c);

    deconv_call(&c, s1, big, 2, s1, 1);
    kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(1, 1, 2), KC_VALS(1, 2));
    kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(1, 1, 2), KC_VALS(1, 1));
    KC_RUN_FAILS(&c, "padding 2 + 2 leaves nothing of the 3 outputs on spatial axis 0");
    kc_free(&c);
}

int main(void)
{
    RUN(test_resize_nearest);
    RUN(test_resize_linear);
    RUN(test_resize_cubic);
    RUN(test_resize_errors);
    RUN(test_convolution_backwards);
    RUN(test_convolution_backwards_errors);
    return tests_finish();
}
