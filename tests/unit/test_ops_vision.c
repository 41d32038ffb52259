/* test_ops_vision.c: grid_sample, roialign and nonmaxsuppression
 * (ops/ops_vision.c, ops/kernels_vision.c) on cases worked out by hand in
 * the comments, and their shape errors.
 */
#include "kernel_call.h"

/* x = [[1, 2], [3, 4]]; one grid point (gx, gy) per call */
static double sample(const char *mode, const char *pad, bool align, double gx, double gy)
{
    kcall c;
    kc_init(&c, "grid_sample");
    kc_set(&c, "mode", attr_string(mode));
    kc_set(&c, "padding_mode", attr_string(pad));
    kc_set(&c, "align_corners", attr_bool(align));
    kc_input(&c, GRAFT_FLOAT, 4, KC_LENS(1, 1, 2, 2), KC_VALS(1, 2, 3, 4));
    kc_input(&c, GRAFT_FLOAT, 4, KC_LENS(1, 1, 1, 2), (double[]){gx, gy});
    double v = kc_run(&c) ? tensor_get_f64(&c.out, 0) : -999;
    kc_free(&c);
    return v;
}

static void test_grid_sample(void)
{
    /* the centre maps to 0.5 on both axes either way: the mean, 2.5 */
    CHECK_NEAR(sample("linear", "zeros", false, 0, 0), 2.5, 1e-6);
    CHECK_NEAR(sample("linear", "zeros", true, 0, 0), 2.5, 1e-6);
    /* (-1, -1) without align_corners is -0.5: a quarter of pixel (0, 0)
     * with zeros outside, all of it with the border repeated */
    CHECK_NEAR(sample("linear", "zeros", false, -1, -1), 0.25, 1e-6);
    CHECK_NEAR(sample("linear", "border", false, -1, -1), 1, 1e-6);
    /* nearest: x 0.5 -> 1.0 (column 1), y -1 -> -0.5 rounds to 0 (row 0) */
    CHECK_NEAR(sample("nearest", "zeros", false, 0.5, -1), 2, 0);
    /* reflection: x 2 -> 2.5, reflected off 1.5 to 0.5: between columns */
    CHECK_NEAR(sample("linear", "reflection", false, 2, -0.5), 1.5, 1e-6);

    kcall c;
    kc_init(&c, "grid_sample");
    kc_input(&c, GRAFT_FLOAT, 4, KC_LENS(1, 1, 2, 2), KC_VALS(1, 2, 3, 4));
    kc_input(&c, GRAFT_FLOAT, 4, KC_LENS(1, 1, 1, 3), KC_VALS(0, 0, 0));
    KC_RUN_FAILS(&c, "grid_sample: grid {1, 1, 1, 3} does not fit input {1, 1, 2, 2}");
    kc_free(&c);
}

static double align(const char *ctm, const char *mode)
{
    kcall c;
    kc_init(&c, "roialign");
    kc_set(&c, "coordinate_transformation_mode", attr_string(ctm));
    kc_set(&c, "mode", attr_string(mode));
    kc_set(&c, "sampling_ratio", attr_int(1));
    kc_input(&c, GRAFT_FLOAT, 4, KC_LENS(1, 1, 2, 2), KC_VALS(1, 2, 3, 4));
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(1, 4), KC_VALS(0, 0, 1, 1));
    kc_input(&c, GRAFT_INT64, 1, KC_LENS(1), KC_VALS(0));
    double v = kc_run(&c) ? tensor_get_f64(&c.out, 0) : -999;
    kc_free(&c);
    return v;
}

/* roi [0, 0, 1, 1], one bin, one sample: at (0.5, 0.5) without the
 * half-pixel shift (2.5; max mode: the largest weighted corner, 0.25 * 4),
 * at (0, 0) with it (1) */
static void test_roialign(void)
{
    CHECK_NEAR(align("output_half_pixel", "avg"), 2.5, 1e-6);
    CHECK_NEAR(align("half_pixel", "avg"), 1, 1e-6);
    CHECK_NEAR(align("output_half_pixel", "max"), 1, 1e-6);

    kcall c;
    kc_init(&c, "roialign");
    kc_input(&c, GRAFT_FLOAT, 4, KC_LENS(1, 1, 2, 2), KC_VALS(1, 2, 3, 4));
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(1, 3), KC_VALS(0, 0, 1));
    kc_input(&c, GRAFT_INT64, 1, KC_LENS(1), KC_VALS(0));
    KC_RUN_FAILS(&c, "roialign: rois {1, 3} must be {R, 4}");
    kc_free(&c);
}

/* boxes 0 [0, 0, 1, 1], 1 [0, 0.1, 1, 1.1] (IoU with 0: 0.9 / 1.1), 2 far
 * away; scores 0.9, 0.95, 0.5: box 1 first, box 0 suppressed, box 2 kept;
 * the third row is unused: -1 */
static void test_nonmaxsuppression(void)
{
    kcall c;
    kc_init(&c, "nonmaxsuppression");
    kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(1, 3, 4), KC_VALS(0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, 2, 1, 3));
    kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(1, 1, 3), KC_VALS(0.9, 0.95, 0.5));
    kc_input(&c, GRAFT_INT64, 1, KC_LENS(1), KC_VALS(3));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(1), KC_VALS(0.5));
    KC_RUN_OK(&c);
    kc_check(&c, 2, KC_LENS(3, 3), KC_VALS(0, 0, 1, 0, 0, 2, -1, -1, -1), 0);
    kc_free(&c);

    /* a score threshold of 0.6 leaves box 2 out; max 1 per class keeps one */
    kc_init(&c, "nonmaxsuppression");
    kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(1, 3, 4), KC_VALS(0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, 2, 1, 3));
    kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(1, 1, 3), KC_VALS(0.9, 0.95, 0.5));
    kc_input(&c, GRAFT_INT64, 1, KC_LENS(1), KC_VALS(1));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(1), KC_VALS(0.95));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(1), KC_VALS(0.6));
    KC_RUN_OK(&c);
    kc_check(&c, 2, KC_LENS(3, 3), KC_VALS(0, 0, 1, -1, -1, -1, -1, -1, -1), 0);
    kc_free(&c);

    kc_init(&c, "nonmaxsuppression");
    kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(1, 3, 4), KC_VALS(0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1));
    kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(1, 1, 2), KC_VALS(0.9, 0.95));
    KC_RUN_FAILS(&c, "nonmaxsuppression: scores {1, 1, 2} must be {1, classes, 3}");
    kc_free(&c);
}

int main(void)
{
    RUN(test_grid_sample);
    RUN(test_roialign);
    RUN(test_nonmaxsuppression);
    return tests_finish();
}
