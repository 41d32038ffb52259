/* test_ops_index.c: gather_elements, gathernd, scatter_* and scatternd_*
 * (ops/ops_index.c, ops/kernels_index.c): shape rules, their errors, and the
 * kernels on small cases worked out by hand in the comments.
 */
#include "kernel_call.h"

/* data {3, 2} = [[1, 2], [3, 4], [5, 6]]; indices along axis 0 */
static void test_gather_elements(void)
{
    kcall c;
    kc_init(&c, "gather_elements");
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(3, 2), KC_VALS(1, 2, 3, 4, 5, 6));
    /* out[i][j] = data[idx[i][j]][j]: idx [[2, 0], [-1, 1]] -> [[5, 2], [5, 4]] */
    kc_input(&c, GRAFT_INT64, 2, KC_LENS(2, 2), KC_VALS(2, 0, -1, 1));
    KC_RUN_OK(&c);
    kc_check(&c, 2, KC_LENS(2, 2), KC_VALS(5, 2, 5, 4), 0);
    kc_free(&c);

    /* axis 1, int32 data, indices narrower than data on axis 0 */
    kc_init(&c, "gather_elements");
    kc_set(&c, "axis", attr_int(-1));
    kc_input(&c, GRAFT_INT32, 2, KC_LENS(3, 2), KC_VALS(1, 2, 3, 4, 5, 6));
    kc_input(&c, GRAFT_INT32, 2, KC_LENS(1, 3), KC_VALS(1, 1, 0));
    KC_RUN_OK(&c);
    CHECK_INT(c.out.sh.type, GRAFT_INT32);
    kc_check(&c, 2, KC_LENS(1, 3), KC_VALS(2, 2, 1), 0);
    kc_free(&c);
}

static void test_gather_elements_errors(void)
{
    kcall c;
    kc_init(&c, "gather_elements");
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(3, 2), KC_VALS(1, 2, 3, 4, 5, 6));
    kc_input(&c, GRAFT_INT64, 1, KC_LENS(2), KC_VALS(0, 1));
    KC_RUN_FAILS(&c, "gather_elements: indices {2} and data {3, 2} differ in rank");
    kc_free(&c);

    kc_init(&c, "gather_elements");
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(3, 2), KC_VALS(1, 2, 3, 4, 5, 6));
    kc_input(&c, GRAFT_INT64, 2, KC_LENS(1, 3), KC_VALS(0, 1, 2));
    KC_RUN_FAILS(&c, "indices {1, 3} are longer than data {3, 2} on axis 1");
    kc_free(&c);

    kc_init(&c, "gather_elements");
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(3, 2), KC_VALS(1, 2, 3, 4, 5, 6));
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(1, 2), KC_VALS(0, 1));
    KC_RUN_FAILS(&c, "indices must be integers, not float_type");
    kc_free(&c);

    kc_init(&c, "gather_elements");
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(3, 2), KC_VALS(1, 2, 3, 4, 5, 6));
    kc_input(&c, GRAFT_INT64, 2, KC_LENS(1, 2), KC_VALS(0, 3));
    KC_RUN_FAILS(&c, "gather_elements: index 3 is out of range for axis 0 of length 3");
    kc_free(&c);
}

static void test_gathernd(void)
{
    kcall c;
    /* data {2, 2} = [[0, 1], [2, 3]]; indices [[0, 0], [1, 1]] -> [0, 3] */
    kc_init(&c, "gathernd");
    kc_input(&c, GRAFT_INT32, 2, KC_LENS(2, 2), KC_VALS(0, 1, 2, 3));
    kc_input(&c, GRAFT_INT64, 2, KC_LENS(2, 2), KC_VALS(0, 0, 1, 1));
    KC_RUN_OK(&c);
    kc_check(&c, 1, KC_LENS(2), KC_VALS(0, 3), 0);
    kc_free(&c);

    /* rows: indices [[1], [-2]] -> [[2, 3], [0, 1]] */
    kc_init(&c, "gathernd");
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(2, 2), KC_VALS(0, 1, 2, 3));
    kc_input(&c, GRAFT_INT64, 2, KC_LENS(2, 1), KC_VALS(1, -2));
    KC_RUN_OK(&c);
    kc_check(&c, 2, KC_LENS(2, 2), KC_VALS(2, 3, 0, 1), 0);
    kc_free(&c);

    /* batch_dims 1: data {2, 2, 2} = 0..7, indices {2, 1} = [[1], [0]]:
     * batch 0 takes data[0][1] = [2, 3], batch 1 data[1][0] = [4, 5] */
    kc_init(&c, "gathernd");
    kc_set(&c, "batch_dims", attr_int(1));
    kc_input(&c, GRAFT_FLOAT, 3, KC_LENS(2, 2, 2), KC_VALS(0, 1, 2, 3, 4, 5, 6, 7));
    kc_input(&c, GRAFT_INT64, 2, KC_LENS(2, 1), KC_VALS(1, 0));
    KC_RUN_OK(&c);
    kc_check(&c, 2, KC_LENS(2, 2), KC_VALS(2, 3, 4, 5), 0);
    kc_free(&c);

    kc_init(&c, "gathernd");
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(2, 2), KC_VALS(0, 1, 2, 3));
    kc_input(&c, GRAFT_INT64, 2, KC_LENS(1, 3), KC_VALS(0, 0, 0));
    KC_RUN_FAILS(&c, "gathernd: indices {1, 3} index 3 axes; data {2, 2} has 2");
    kc_free(&c);
}

static void test_scatter(void)
{
    kcall c;
    /* data zeros {3, 3}, axis 0, indices [[1, 0, 2], [0, 2, 1]],
     * updates [[1, 2, 3], [4, 5, 6]] -> [[4, 2, 0], [1, 0, 6], [0, 5, 3]] */
    kc_init(&c, "scatter_none");
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(3, 3), KC_VALS(0, 0, 0, 0, 0, 0, 0, 0, 0));
    kc_input(&c, GRAFT_INT64, 2, KC_LENS(2, 3), KC_VALS(1, 0, 2, 0, 2, 1));
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(2, 3), KC_VALS(1, 2, 3, 4, 5, 6));
    KC_RUN_OK(&c);
    kc_check(&c, 2, KC_LENS(3, 3), KC_VALS(4, 2, 0, 1, 0, 6, 0, 5, 3), 0);
    kc_free(&c);

    /* axis 1 with a duplicate index: add sums, max keeps the larger, none
     * keeps the last: data [[1, 2, 3]], indices [[1, 1]], updates [[5, 7]] */
    const char *ops[] = {"scatter_add", "scatter_max", "scatter_none", "scatter_mul"};
    const double want[][3] = {{1, 14, 3}, {1, 7, 3}, {1, 7, 3}, {1, 70, 3}};
    for (int k = 0; k < 4; k++) {
        kc_init(&c, ops[k]);
        kc_set(&c, "axis", attr_int(1));
        kc_input(&c, GRAFT_INT32, 2, KC_LENS(1, 3), KC_VALS(1, 2, 3));
        kc_input(&c, GRAFT_INT64, 2, KC_LENS(1, 2), KC_VALS(1, -2));
        kc_input(&c, GRAFT_INT32, 2, KC_LENS(1, 2), KC_VALS(5, 7));
        KC_RUN_OK(&c);
        kc_check(&c, 2, KC_LENS(1, 3), want[k], 0);
        kc_free(&c);
    }

    kc_init(&c, "scatter_none");
    kc_set(&c, "skip_out_of_bounds", attr_bool(true));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(3), KC_VALS(1, 2, 3));
    kc_input(&c, GRAFT_INT64, 1, KC_LENS(2), KC_VALS(5, 0));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(2), KC_VALS(8, 9));
    KC_RUN_OK(&c);
    kc_check(&c, 1, KC_LENS(3), KC_VALS(9, 2, 3), 0);
    kc_free(&c);

    kc_init(&c, "scatter_none");
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(3), KC_VALS(1, 2, 3));
    kc_input(&c, GRAFT_INT64, 1, KC_LENS(2), KC_VALS(5, 0));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(2), KC_VALS(8, 9));
    KC_RUN_FAILS(&c, "scatter_none: index 5 is out of range for axis 0 of length 3");
    kc_free(&c);

    kc_init(&c, "scatter_add");
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(3), KC_VALS(1, 2, 3));
    kc_input(&c, GRAFT_INT64, 1, KC_LENS(2), KC_VALS(1, 0));
    kc_input(&c, GRAFT_HALF, 1, KC_LENS(2), KC_VALS(8, 9));
    KC_RUN_FAILS(&c, "scatter_add: updates are half_type, data float_type");
    kc_free(&c);

    kc_init(&c, "scatter_add");
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(3), KC_VALS(1, 2, 3));
    kc_input(&c, GRAFT_INT64, 1, KC_LENS(2), KC_VALS(1, 0));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(1), KC_VALS(8));
    KC_RUN_FAILS(&c, "scatter_add: indices {2} and updates {1} differ");
    kc_free(&c);
}

static void test_scatternd(void)
{
    kcall c;
    /* data {4} = [1, 2, 3, 4], indices [[3], [1]], updates [9, 10] */
    kc_init(&c, "scatternd_none");
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(4), KC_VALS(1, 2, 3, 4));
    kc_input(&c, GRAFT_INT64, 2, KC_LENS(2, 1), KC_VALS(3, 1));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(2), KC_VALS(9, 10));
    KC_RUN_OK(&c);
    kc_check(&c, 1, KC_LENS(4), KC_VALS(1, 10, 3, 9), 0);
    kc_free(&c);

    /* rows of {2, 2} data [[1, 2], [3, 4]]: indices [[1], [1]] add [[1, 1], [2, 2]] */
    kc_init(&c, "scatternd_add");
    kc_input(&c, GRAFT_INT64, 2, KC_LENS(2, 2), KC_VALS(1, 2, 3, 4));
    kc_input(&c, GRAFT_INT64, 2, KC_LENS(2, 1), KC_VALS(1, 1));
    kc_input(&c, GRAFT_INT64, 2, KC_LENS(2, 2), KC_VALS(1, 1, 2, 2));
    KC_RUN_OK(&c);
    kc_check(&c, 2, KC_LENS(2, 2), KC_VALS(1, 2, 6, 7), 0);
    kc_free(&c);

    /* one element: indices {1, 2} = [[1, 0]], updates {1} */
    kc_init(&c, "scatternd_mul");
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(2, 2), KC_VALS(1, 2, 3, 4));
    kc_input(&c, GRAFT_INT64, 2, KC_LENS(1, 2), KC_VALS(1, 0));
    kc_input(&c, GRAFT_FLOAT, 1, KC_LENS(1), KC_VALS(5));
    KC_RUN_OK(&c);
    kc_check(&c, 2, KC_LENS(2, 2), KC_VALS(1, 2, 15, 4), 0);
    kc_free(&c);

    kc_init(&c, "scatternd_none");
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(2, 2), KC_VALS(1, 2, 3, 4));
    kc_input(&c, GRAFT_INT64, 2, KC_LENS(2, 1), KC_VALS(1, 0));
    kc_input(&c, GRAFT_FLOAT, 2, KC_LENS(2, 3), KC_VALS(1, 1, 1, 2, 2, 2));
    KC_RUN_FAILS(&c, "scatternd_none: updates {2, 3} do not match indices {2, 1} and data {2, 2} (want {2, 2})");
    kc_free(&c);
}

int main(void)
{
    RUN(test_gather_elements);
    RUN(test_gather_elements_errors);
    RUN(test_gathernd);
    RUN(test_scatter);
    RUN(test_scatternd);
    return tests_finish();
}
