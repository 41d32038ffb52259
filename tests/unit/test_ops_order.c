/* test_ops_order.c: prefix_scan_sum and topk_indices (ops/ops_order.c,
 * ops/kernels_order.c), det (ops/ops_linalg.c), dft (ops/ops_signal.c) and
 * the shift_left / shift_right pointwise ops, on cases worked out by hand in
 * the comments.
 */
#include "kernel_call.h"

static void test_prefix_scan_sum(void)
{
    kcall c;
    /* [1, 2, 3, 4]: inclusive [1, 3, 6, 10]; exclusive [0, 1, 3, 6];
     * reverse [10, 9, 7, 4]; reverse exclusive [9, 7, 4, 0] */
    const double want[4][4] = {{1, 3, 6, 10}, {0, 1, 3, 6}, {10, 9, 7, 4}, {9, 7, 4, 0}};
    for (int m = 0; m < 4; m++) {
        kc_init(&c, "prefix_scan_sum");
        kc_set(&c, "exclusive", attr_bool(m & 1));
        kc_set(&c, "reverse", attr_bool(m >> 1));
        kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(4), KC_VALS(1, 2, 3, 4));
        KC_RUN_OK(&c);
        kc_check(&c, 1, KC_LENS(4), want[m], 0);
        kc_free(&c);
    }
    /* axis 1 of int32 [[1, 2, 3], [4, 5, 6]]: [[1, 3, 6], [4, 9, 15]] */
    kc_init(&c, "prefix_scan_sum");
    kc_set(&c, "axis", attr_int(-1));
    kc_input(&c, GRAFT_INT32, 2, KC_LENS(2, 3), KC_VALS(1, 2, 3, 4, 5, 6));
    KC_RUN_OK(&c);
    CHECK_INT(c.out.sh.type, GRAFT_INT32);
    kc_check(&c, 2, KC_LENS(2, 3), KC_VALS(1, 3, 6, 4, 9, 15), 0);
    kc_free(&c);

    kc_init(&c, "prefix_scan_sum");
    kc_set(&c, "axis", attr_int(2));
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(2, 3), KC_VALS(1, 2, 3, 4, 5, 6));
    KC_RUN_FAILS(&c, "prefix_scan_sum: axis 2 is out of range for rank 2");
    kc_free(&c);
}

static void test_topk_indices(void)
{
    kcall c;
    /* [3, 1, 3, 2]: the two largest are the 3s, the lower position first:
     * [0, 2]; the two smallest: [1, 3] */
    kc_init(&c, "topk_indices");
    kc_set(&c, "k", attr_int(2));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(4), KC_VALS(3, 1, 3, 2));
    KC_RUN_OK(&c);
    CHECK_INT(c.out.sh.type, GRAFT_INT64);
    kc_check(&c, 1, KC_LENS(2), KC_VALS(0, 2), 0);
    kc_free(&c);

    kc_init(&c, "topk_indices");
    kc_set(&c, "k", attr_int(2));
    kc_set(&c, "largest", attr_bool(false));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(4), KC_VALS(3, 1, 3, 2));
    KC_RUN_OK(&c);
    kc_check(&c, 1, KC_LENS(2), KC_VALS(1, 3), 0);
    kc_free(&c);

    /* axis 0 of [[1, 5], [4, 2], [3, 6]], k 1: [[1, 2]] */
    kc_init(&c, "topk_indices");
    kc_set(&c, "axis", attr_int(0));
    kc_input(&c, GRAFT_INT32, 2, KC_LENS(3, 2), KC_VALS(1, 5, 4, 2, 3, 6));
    KC_RUN_OK(&c);
    kc_check(&c, 2, KC_LENS(1, 2), KC_VALS(1, 2), 0);
    kc_free(&c);

    kc_init(&c, "topk_indices");
    kc_set(&c, "k", attr_int(5));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(4), KC_VALS(3, 1, 3, 2));
    KC_RUN_FAILS(&c, "topk_indices: k 5 is not in 1..4, the length of axis 0");
    kc_free(&c);
}

static void test_shifts(void)
{
    kcall c;
    /* uint8 [1, 255, 16] << [1, 1, 4] = [2, 254 (wraps), 0 (wraps)] */
    kc_init(&c, "shift_left");
    kc_input(&c, GRAFT_UINT8, 1, KC_LENS(3), KC_VALS(1, 255, 16));
    kc_input(&c, GRAFT_UINT8, 1, KC_LENS(3), KC_VALS(1, 1, 4));
    KC_RUN_OK(&c);
    kc_check(&c, 1, KC_LENS(3), KC_VALS(2, 254, 0), 0);
    kc_free(&c);

    /* uint64 2^63 >> 63 = 1 (logical); by 64 or more: 0 */
    uint64_t x[2] = {(uint64_t)1 << 63, 5}, y[2] = {63, 64};
    kc_init(&c, "shift_right");
    kc_input_raw(&c, GRAFT_UINT64, 1, KC_LENS(2), NULL, x, sizeof x);
    kc_input_raw(&c, GRAFT_UINT64, 1, KC_LENS(2), NULL, y, sizeof y);
    KC_RUN_OK(&c);
    kc_check(&c, 1, KC_LENS(2), KC_VALS(1, 0), 0);
    kc_free(&c);

    kc_init(&c, "shift_left");
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(1), KC_VALS(1));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(1), KC_VALS(1));
    KC_RUN_FAILS(&c, "shift_left: not defined for float_type operands");
    kc_free(&c);
}

/* det: [[1, 2], [3, 4]] = -2; a stack of a permutation-like matrix
 * (one row swap: -1 times 2 = -2) and a singular one (0) */
static void test_det(void)
{
    kcall c;
    kc_init(&c, "det");
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(2, 2), KC_VALS(1, 2, 3, 4));
    KC_RUN_OK(&c);
    kc_check(&c, 1, KC_LENS(1), KC_VALS(-2), 1e-6);
    kc_free(&c);

    kc_init(&c, "det");
    kc_input(&c, GRAFT_DOUBLE, 3, KC_LENS(2, 3, 3),
             KC_VALS(0, 1, 0, 1, 0, 0, 0, 0, 2, 1, 2, 3, 2, 4, 6, 0, 1, 1));
    KC_RUN_OK(&c);
    kc_check(&c, 1, KC_LENS(2), KC_VALS(-2, 0), 1e-12);
    kc_free(&c);

    kc_init(&c, "det");
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(2, 3), KC_VALS(1, 2, 3, 4, 5, 6));
    KC_RUN_FAILS(&c, "det: operand {2, 3} is not a stack of square matrices");
    kc_free(&c);
}

/* dft of the real [0, 1, 0, 0] (lens {1, 4, 1}): X[k] = e^(-2 pi i k / 4) =
 * 1, -i, -1, i; onesided keeps k = 0..2; the inverse of the complex result
 * gives the signal back */
static void test_dft(void)
{
    kcall c;
    kc_init(&c, "dft");
    kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(1, 4, 1), KC_VALS(0, 1, 0, 0));
    KC_RUN_OK(&c);
    kc_check(&c, 3, KC_LENS(1, 4, 2), KC_VALS(1, 0, 0, -1, -1, 0, 0, 1), 1e-6);
    kc_free(&c);

    kc_init(&c, "dft");
    kc_set(&c, "onesided", attr_bool(true));
    kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(1, 4, 1), KC_VALS(0, 1, 0, 0));
    KC_RUN_OK(&c);
    kc_check(&c, 3, KC_LENS(1, 3, 2), KC_VALS(1, 0, 0, -1, -1, 0), 1e-6);
    kc_free(&c);

    kc_init(&c, "dft");
    kc_set(&c, "inverse", attr_bool(true));
    kc_input(&c, GRAFT_DOUBLE, 3, KC_LENS(1, 4, 2), KC_VALS(1, 0, 0, -1, -1, 0, 0, 1));
    KC_RUN_OK(&c);
    kc_check(&c, 3, KC_LENS(1, 4, 2), KC_VALS(0, 0, 1, 0, 0, 0, 0, 0), 1e-12);
    kc_free(&c);

    kc_init(&c, "dft");
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(4, 3), KC_VALS(0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    KC_RUN_FAILS(&c, "dft: operand {4, 3} must end in an axis of 1 (real) or 2 (complex)");
    kc_free(&c);
}

int main(void)
{
    RUN(test_prefix_scan_sum);
    RUN(test_topk_indices);
    RUN(test_shifts);
    RUN(test_det);
    RUN(test_dft);
    return tests_finish();
}
