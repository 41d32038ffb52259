/* test_exec.c: the reference executor end to end on small graphs built with
 * the ir.h builder, with results worked out by hand, and its errors:
 * missing input, wrong input shape or type, opaque op, region op. Also the
 * seeded random inputs (same seed, same values; values in their ranges).
 */
#include "check.h"
#include "exec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static graft_error err;

static tensor make_f32(int rank, const int64_t *lens, const int64_t *strides, const float *mem,
                       size_t count)
{
    tensor t;
    t.sh = strides ? shape_with_strides(GRAFT_FLOAT, rank, lens, strides)
                   : shape_standard(GRAFT_FLOAT, rank, lens);
    t.data = (char *)mem;
    (void)count;
    return t;
}

static void add_input(tensor_list *l, const char *name, tensor t)
{
    CHECK(tensor_list_add(l, name, &t, &err));
}

static float out_f32(const tensor_list *l, int k, int i)
{
    return ((const float *)(const void *)l->items[k].t.data)[i];
}

/* x: @param {2,3}; row {1,2,3} literal broadcast over x; relu(x + row);
 * returns the relu and its transpose. */
static graph *build_add_relu(bool transposed_param)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", &err);
    const int64_t lens[] = {2, 3}, tr[] = {1, 2}, three = 3;
    shape sx = transposed_param ? shape_with_strides(GRAFT_FLOAT, 2, lens, tr)
                                : shape_standard(GRAFT_FLOAT, 2, lens);
    ins *x = module_add_param(m, "x", &sx);
    const float row[] = {1, 2, 3};
    shape sl = shape_standard(GRAFT_FLOAT, 1, &three);
    ins *lit = module_add_literal(m, &sl, row);
    attr bc[] = {{"out_lens", attr_ints(lens, 2)}};
    ins *b = module_add_op(m, "multibroadcast", bc, 1, &lit, 1, &err);
    ins *sum_args[] = {x, b};
    ins *sum = module_add_op(m, "add", NULL, 0, sum_args, 2, &err);
    ins *r = module_add_op(m, "relu", NULL, 0, &sum, 1, &err);
    const int64_t perm[] = {1, 0};
    attr pa[] = {{"permutation", attr_ints(perm, 2)}};
    ins *t = module_add_op(m, "transpose", pa, 1, &r, 1, &err);
    CHECK(x && lit && b && sum && r && t);
    ins *outs[] = {r, t};
    module_add_return(m, outs, 2);
    return g;
}

static void check_add_relu_outputs(const tensor_list *out)
{
    /* x + row = {-4, 2, 4, 3, -1, 7}; relu = {0, 2, 4, 3, 0, 7};
     * transposed (standard {3,2}): {0, 3, 2, 0, 4, 7} */
    CHECK_INT(out->n, 2);
    if (out->n != 2)
        return;
    CHECK_STR(out->items[0].name, "output0");
    CHECK_STR(out->items[1].name, "output1");
    const float relu[] = {0, 2, 4, 3, 0, 7}, tr[] = {0, 3, 2, 0, 4, 7};
    for (int i = 0; i < 6; i++) {
        CHECK_NEAR(out_f32(out, 0, i), relu[i], 0);
        CHECK_NEAR(out_f32(out, 1, i), tr[i], 0);
    }
    CHECK(shape_standard_p(&out->items[1].t.sh));
    CHECK_INT(out->items[1].t.sh.lens[0], 3);
    CHECK_INT(out->items[1].t.sh.lens[1], 2);
}

static void test_graph_end_to_end(void)
{
    graph *g = build_add_relu(false);
    const int64_t lens[] = {2, 3};
    const float x[] = {-5, 0, 1, 2, -3, 4};
    tensor_list in = {0, NULL}, out = {0, NULL};
    add_input(&in, "x", make_f32(2, lens, NULL, x, 6));
    bool ok = exec_run(graph_main(g), &in, &out, &err);
    if (!ok)
        check_fail(__FILE__, __LINE__, err.message);
    check_add_relu_outputs(&out);
    tensor_list_free(&in);
    tensor_list_free(&out);
    graph_free(g);
}

static void test_input_in_other_layout(void)
{
    /* the same x given transposed in memory (strides {1, 2}) */
    graph *g = build_add_relu(false);
    const int64_t lens[] = {2, 3}, tr[] = {1, 2};
    const float xt[] = {-5, 2, 0, -3, 1, 4};
    tensor_list in = {0, NULL}, out = {0, NULL};
    tensor t = make_f32(2, lens, tr, xt, 6);
    named_tensor item = {"x", t};
    in.n = 1;
    in.items = &item; /* borrowed: not freed */
    CHECK(exec_run(graph_main(g), &in, &out, &err));
    check_add_relu_outputs(&out);
    tensor_list_free(&out);
    graph_free(g);
}

static void test_param_declared_transposed(void)
{
    /* the param itself is declared with strides {1, 2}; a standard input is
     * copied into that layout, so the transpose view downstream (whose
     * strides come from the declared ones) reads the right elements */
    graph *g = build_add_relu(true);
    const int64_t lens[] = {2, 3};
    const float x[] = {-5, 0, 1, 2, -3, 4};
    tensor_list in = {0, NULL}, out = {0, NULL};
    add_input(&in, "x", make_f32(2, lens, NULL, x, 6));
    CHECK(exec_run(graph_main(g), &in, &out, &err));
    check_add_relu_outputs(&out);
    tensor_list_free(&in);
    tensor_list_free(&out);
    graph_free(g);
}

static void test_missing_input(void)
{
    graph *g = build_add_relu(false);
    tensor_list in = {0, NULL}, out = {0, NULL};
    CHECK(!exec_run(graph_main(g), &in, &out, &err));
    CHECK_CONTAINS(err.message, "missing input 'x'");
    CHECK_CONTAINS(err.message, "float_type {2, 3}");
    tensor_list_free(&out);
    graph_free(g);
}

static void test_wrong_input_shape(void)
{
    graph *g = build_add_relu(false);
    const int64_t lens[] = {3, 2};
    const float x[6] = {0};
    tensor_list in = {0, NULL}, out = {0, NULL};
    add_input(&in, "x", make_f32(2, lens, NULL, x, 6));
    CHECK(!exec_run(graph_main(g), &in, &out, &err));
    CHECK_CONTAINS(err.message, "input 'x' is float_type {3, 2}");
    CHECK_CONTAINS(err.message, "needs float_type {2, 3}");
    tensor_list_free(&in);

    /* right lens, wrong type */
    const int64_t good[] = {2, 3};
    int32_t xi[6] = {0};
    tensor ti = {shape_standard(GRAFT_INT32, 2, good), (char *)xi};
    CHECK(tensor_list_add(&in, "x", &ti, &err));
    CHECK(!exec_run(graph_main(g), &in, &out, &err));
    CHECK_CONTAINS(err.message, "input 'x' is int32_type {2, 3}");
    tensor_list_free(&in);
    tensor_list_free(&out);
    graph_free(g);
}

static void test_opaque_op(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", &err);
    const int64_t lens[] = {2, 2};
    shape s = shape_standard(GRAFT_FLOAT, 2, lens);
    ins *a = module_add_param(m, "a", &s);
    ins *b = module_add_param(m, "b", &s);
    ins *args[] = {a, b};
    ins *op = module_add_opaque(m, "gpu::gemm", NULL, 0, args, 2, &s);
    module_add_return(m, &op, 1);
    tensor_list in = {0, NULL}, out = {0, NULL};
    CHECK(exec_random_inputs(m, 1, &in, &err));
    CHECK(!exec_run(m, &in, &out, &err));
    CHECK_CONTAINS(err.message, "ins @2: op 'gpu::gemm' cannot run on the reference executor");
    CHECK(strcmp(err.message, "ins @2: op 'gpu::gemm' cannot run on the reference executor") == 0);
    tensor_list_free(&in);
    tensor_list_free(&out);
    graph_free(g);
}

static void test_region_op_fails_clearly(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", &err);
    module *sub = graph_add_module(g, "main:pointwise0", &err);
    const int64_t two = 2;
    shape s = shape_standard(GRAFT_FLOAT, 1, &two);
    ins *a = module_add_param(m, "a", &s);
    ins *r = module_add_opaque(m, "pointwise", NULL, 0, &a, 1, &s);
    ins_set_modules(r, &sub, 1);
    ins_set_name(r, "fused");
    tensor_list in = {0, NULL}, out = {0, NULL};
    CHECK(exec_random_inputs(m, 1, &in, &err));
    CHECK(!exec_run(m, &in, &out, &err));
    CHECK_CONTAINS(err.message, "ins fused: op 'pointwise' has submodules");
    tensor_list_free(&in);
    tensor_list_free(&out);
    graph_free(g);
}

static void test_no_return_uses_last(void)
{
    /* slice a view of an intermediate, with no @return: the last
     * instruction is the output. x = {1..6} as {2,3}; y = x * x;
     * slice y[:, 1:3] = {4, 9, 25, 36}; neg of it */
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", &err);
    const int64_t lens[] = {2, 3};
    shape s = shape_standard(GRAFT_FLOAT, 2, lens);
    ins *x = module_add_param(m, "x", &s);
    ins *sq_args[] = {x, x};
    ins *y = module_add_op(m, "mul", NULL, 0, sq_args, 2, &err);
    const int64_t axes[] = {1}, starts[] = {1}, ends[] = {3};
    attr sa[] = {{"axes", attr_ints(axes, 1)}, {"starts", attr_ints(starts, 1)},
                 {"ends", attr_ints(ends, 1)}};
    ins *sl = module_add_op(m, "slice", sa, 3, &y, 1, &err);
    ins *dead = module_add_op(m, "exp", NULL, 0, &y, 1, &err); /* unused */
    ins *n = module_add_op(m, "neg", NULL, 0, &sl, 1, &err);
    CHECK(y && sl && dead && n);
    const float xv[] = {1, 2, 3, 4, 5, 6};
    tensor_list in = {0, NULL}, out = {0, NULL};
    add_input(&in, "x", make_f32(2, lens, NULL, xv, 6));
    CHECK(exec_run(m, &in, &out, &err));
    CHECK_INT(out.n, 1);
    if (out.n == 1) {
        CHECK_STR(out.items[0].name, "output0");
        const float want[] = {-4, -9, -25, -36};
        for (int i = 0; i < 4; i++)
            CHECK_NEAR(out_f32(&out, 0, i), want[i], 0);
    }
    tensor_list_free(&in);
    tensor_list_free(&out);
    graph_free(g);
}

static void test_conv_pool_graph(void)
{
    /* conv (2x2 weights {1,0,0,1}, literal) on x = 1..9 as 1x1x3x3 gives
     * {6, 8, 12, 14}; max pooling 2x2 of that gives 14; reshape to {1}. */
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", &err);
    const int64_t lx[] = {1, 1, 3, 3}, lw[] = {1, 1, 2, 2};
    shape sx = shape_standard(GRAFT_FLOAT, 4, lx), sw = shape_standard(GRAFT_FLOAT, 4, lw);
    ins *x = module_add_param(m, "x", &sx);
    const float w[] = {1, 0, 0, 1};
    ins *wl = module_add_literal(m, &sw, w);
    ins *cargs[] = {x, wl};
    ins *c = module_add_op(m, "convolution", NULL, 0, cargs, 2, &err);
    const int64_t k2[] = {2, 2}, s1[] = {1, 1};
    attr pa[] = {{"mode", attr_string("max")}, {"lengths", attr_ints(k2, 2)},
                 {"stride", attr_ints(s1, 2)}};
    ins *p = module_add_op(m, "pooling", pa, 3, &c, 1, &err);
    const int64_t one[] = {1};
    attr ra[] = {{"dims", attr_ints(one, 1)}};
    ins *r = module_add_op(m, "reshape", ra, 1, &p, 1, &err);
    if (!c || !p || !r) {
        check_fail(__FILE__, __LINE__, err.message);
        graph_free(g);
        return;
    }
    module_add_return(m, &r, 1);
    const float xv[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    tensor_list in = {0, NULL}, out = {0, NULL};
    add_input(&in, "x", make_f32(4, lx, NULL, xv, 9));
    CHECK(exec_run(m, &in, &out, &err));
    CHECK_INT(out.n, 1);
    if (out.n == 1)
        CHECK_NEAR(out_f32(&out, 0, 0), 14, 0);
    tensor_list_free(&in);
    tensor_list_free(&out);
    graph_free(g);
}

static void test_random_inputs(void)
{
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", &err);
    const int64_t n = 1000;
    shape sf = shape_standard(GRAFT_FLOAT, 1, &n), sh = shape_standard(GRAFT_HALF, 1, &n),
          si = shape_standard(GRAFT_INT32, 1, &n), sb = shape_standard(GRAFT_BOOL, 1, &n);
    module_add_param(m, "f", &sf);
    module_add_param(m, "h", &sh);
    module_add_param(m, "i", &si);
    module_add_param(m, "b", &sb);
    tensor_list a = {0, NULL}, b = {0, NULL}, c = {0, NULL};
    CHECK(exec_random_inputs(m, 42, &a, &err));
    CHECK(exec_random_inputs(m, 42, &b, &err));
    CHECK(exec_random_inputs(m, 43, &c, &err));
    CHECK_INT(a.n, 4);
    if (a.n == 4 && b.n == 4 && c.n == 4) {
        CHECK_STR(a.items[1].name, "h");
        for (int k = 0; k < 4; k++)
            CHECK(memcmp(a.items[k].t.data, b.items[k].t.data, shape_bytes(&a.items[k].t.sh)) ==
                  0);
        CHECK(memcmp(a.items[0].t.data, c.items[0].t.data, 4000) != 0);
        /* the two float params draw from different streams */
        bool all_same = true;
        for (int e = 0; e < 1000; e++) {
            float f = out_f32(&a, 0, e);
            float h = half_to_float(((const uint16_t *)(const void *)a.items[1].t.data)[e]);
            int32_t iv = ((const int32_t *)(const void *)a.items[2].t.data)[e];
            uint8_t bv = ((const uint8_t *)a.items[3].t.data)[e];
            CHECK(f >= -1 && f < 1);
            CHECK(h >= -1 && h < 1);
            CHECK(iv >= 0 && iv < 4);
            CHECK(bv <= 1);
            all_same = all_same && f == h;
        }
        CHECK(!all_same);
    }
    tensor_list_free(&a);
    tensor_list_free(&b);
    tensor_list_free(&c);
    graph_free(g);
}

static void test_tensor_list(void)
{
    tensor_list l = {0, NULL};
    const int64_t lens[] = {2, 2}, tr[] = {1, 2};
    const float mem[] = {1, 2, 3, 4};
    tensor t = make_f32(2, lens, tr, mem, 4);
    CHECK(tensor_list_add(&l, "a", &t, &err));
    const named_tensor *a = tensor_list_find(&l, "a");
    CHECK(a != NULL);
    CHECK(tensor_list_find(&l, "b") == NULL);
    if (a) {
        /* copied to standard: row-major {1, 3, 2, 4} */
        CHECK(shape_standard_p(&a->t.sh));
        const float *d = (const float *)(const void *)a->t.data;
        CHECK_NEAR(d[1], 3, 0);
        CHECK_NEAR(d[2], 2, 0);
    }
    tensor_list_free(&l);
    CHECK_INT(l.n, 0);
}

int main(void)
{
    RUN(test_graph_end_to_end);
    RUN(test_input_in_other_layout);
    RUN(test_param_declared_transposed);
    RUN(test_missing_input);
    RUN(test_wrong_input_shape);
    RUN(test_opaque_op);
    RUN(test_region_op_fails_clearly);
    RUN(test_no_return_uses_last);
    RUN(test_conv_pool_graph);
    RUN(test_random_inputs);
    RUN(test_tensor_list);
    return tests_finish();
}
