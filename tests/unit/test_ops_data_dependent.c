/* test_ops_data_dependent.c: unique and nonzero (ops/ops_data_dependent.c,
 * ops/kernels_data_dependent.c), the ops whose real result length depends on
 * the values, in their static form, on cases worked out by hand in the
 * comments.
 */
#include "kernel_call.h"

#include <math.h>

static void test_unique_flat(void)
{
    kcall c;
    /* [2, 1, 1, 3, 4, 3] sorted: distinct 1, 2, 3, 4 first at 1, 0, 3, 4;
     * inverse [1, 0, 0, 2, 3, 2]; counts [2, 1, 2, 1]; two unused columns */
    kc_init(&c, "unique");
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(6), KC_VALS(2, 1, 1, 3, 4, 3));
    KC_RUN_OK(&c);
    CHECK_INT(c.out.sh.type, GRAFT_INT64);
    kc_check(&c, 2, KC_LENS(3, 6),
             KC_VALS(1, 0, 3, 4, -1, -1, 1, 0, 0, 2, 3, 2, 2, 1, 2, 1, 0, 0), 0);
    kc_free(&c);
    /* not sorted: first-occurrence order 2, 1, 3, 4 */
    kc_init(&c, "unique");
    kc_set(&c, "sorted", attr_bool(false));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(6), KC_VALS(2, 1, 1, 3, 4, 3));
    KC_RUN_OK(&c);
    kc_check(&c, 2, KC_LENS(3, 6),
             KC_VALS(0, 1, 3, 4, -1, -1, 0, 1, 1, 2, 3, 2, 1, 2, 2, 1, 0, 0), 0);
    kc_free(&c);
    /* a NaN equals a NaN and sorts last: [NaN, 0, NaN] -> 0, NaN first at
     * 1, 0; inverse [1, 0, 1]; counts [1, 2] */
    kc_init(&c, "unique");
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(3), KC_VALS(NAN, 0, NAN));
    KC_RUN_OK(&c);
    kc_check(&c, 2, KC_LENS(3, 3), KC_VALS(1, 0, -1, 1, 0, 1, 1, 2, 0), 0);
    kc_free(&c);
    /* int64 values beyond double's exact range stay distinct */
    kc_init(&c, "unique");
    kc_input(&c, GRAFT_INT64, 1, KC_LENS(2), KC_VALS(0, 0));
    tensor_set_i64(&c.in[0], 0, ((int64_t)1 << 60) + 1);
    tensor_set_i64(&c.in[0], 1, (int64_t)1 << 60);
    KC_RUN_OK(&c);
    kc_check(&c, 2, KC_LENS(3, 2), KC_VALS(1, 0, 1, 0, 1, 1), 0);
    kc_free(&c);
}

static void test_unique_axis(void)
{
    kcall c;
    /* rows of [[1, 0], [0, 2], [1, 0]] along axis 0: [0, 2] sorts before
     * [1, 0]; first at 1, 0; inverse [1, 0, 1]; counts [1, 2] */
    kc_init(&c, "unique");
    kc_input(&c, GRAFT_INT32, 2, KC_LENS(3, 2), KC_VALS(1, 0, 0, 2, 1, 0));
    KC_RUN_OK(&c);
    kc_check(&c, 2, KC_LENS(3, 3), KC_VALS(1, 0, -1, 1, 0, 1, 1, 2, 0), 0);
    kc_free(&c);
    /* columns of the same along axis -1: [1, 0, 1] and [0, 2, 0] differ */
    kc_init(&c, "unique");
    kc_set(&c, "axis", attr_int(-1));
    kc_input(&c, GRAFT_INT32, 2, KC_LENS(3, 2), KC_VALS(1, 0, 0, 2, 1, 0));
    KC_RUN_OK(&c);
    kc_check(&c, 2, KC_LENS(3, 2), KC_VALS(1, 0, 1, 0, 1, 1), 0);
    kc_free(&c);
    kc_init(&c, "unique");
    kc_set(&c, "axis", attr_int(2));
    kc_input(&c, GRAFT_INT32, 2, KC_LENS(3, 2), KC_VALS(1, 0, 0, 2, 1, 0));
    KC_RUN_FAILS(&c, "unique: axis 2 is out of range for rank 2");
    kc_free(&c);
}

static void test_nonzero(void)
{
    kcall c;
    /* [[1, 0], [1, 1]]: nonzero at (0, 0), (1, 0), (1, 1): rows [0, 1, 1]
     * and [0, 0, 1], one unused column */
    kc_init(&c, "nonzero");
    kc_input(&c, GRAFT_BOOL, 2, KC_LENS(2, 2), KC_VALS(1, 0, 1, 1));
    KC_RUN_OK(&c);
    CHECK_INT(c.out.sh.type, GRAFT_INT64);
    kc_check(&c, 2, KC_LENS(2, 4), KC_VALS(0, 1, 1, -1, 0, 0, 1, -1), 0);
    kc_free(&c);
    /* a NaN is not zero; -0 is */
    kc_init(&c, "nonzero");
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(3), KC_VALS(-0.0, NAN, 0));
    KC_RUN_OK(&c);
    kc_check(&c, 2, KC_LENS(1, 3), KC_VALS(1, -1, -1), 0);
    kc_free(&c);
}

int main(void)
{
    RUN(test_unique_flat);
    RUN(test_unique_axis);
    RUN(test_nonzero);
    return tests_finish();
}
