/* test_control.c: the control-flow ops `if` and `loop` (ops/ops_control.c,
 * ops/kernels_control.c) below the ONNX importer: graphs read from dumps,
 * the shape rules' checks on branches and bodies, and the reference
 * executor choosing a branch and running a body, on values worked out by
 * hand in the comments.
 */
#include "check.h"

#include "dump.h"
#include "exec.h"

#include <stdlib.h>

static graph *read_text(const char *text)
{
    graft_error err = {0};
    graph *g = dump_read(text, strlen(text), "test", &err);
    if (!g)
        printf("read: %s\n", err.message);
    CHECK(g != NULL);
    return g;
}

static void expect_read_error(const char *text, const char *expected)
{
    graft_error err = {0};
    graph *g = dump_read(text, strlen(text), "test", &err);
    CHECK(g == NULL);
    CHECK_CONTAINS(err.message, expected);
    graph_free(g);
}

/* Runs g's main module with the float input x = values[0..n); the outputs
 * in *outs. */
static bool run_with(const graph *g, const char *name, graft_type type, const double *values,
                     int64_t n, tensor_list *outs)
{
    graft_error err = {0};
    tensor_list in = {0, NULL};
    char buf[64] = {0};
    tensor t = {shape_standard(type, 1, &n), buf};
    for (int64_t k = 0; k < n; k++)
        tensor_set_f64(&t, k, values[k]);
    bool ok = tensor_list_add(&in, name, &t, &err) && exec_run(graph_main(g), &in, outs, &err);
    if (!ok)
        printf("run: %s\n", err.message);
    tensor_list_free(&in);
    return ok;
}

static void check_values(const tensor *t, const double *want, int64_t n)
{
    CHECK_INT(shape_elements(&t->sh), n);
    for (int64_t k = 0; k < n && k < shape_elements(&t->sh); k++)
        CHECK_NEAR(tensor_get_f64(t, k), want[k], 1e-6);
}

/* if(x > 0 summed, x, y): then returns (x * 2, y), else (x - y, y) */
static const char if_text[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2}, {1}\n"
    "y = @literal{10, 20} -> float_type, {2}, {1}\n"
    "z = @literal{0} -> float_type, {1}, {1}\n"
    "s = reduce_sum[axes={0}](x) -> float_type, {1}, {1}\n"
    "c = greater(s,z) -> float_type, {1}, {1}\n"
    "b = convert[target_type=0](c) -> bool_type, {1}, {1}\n"
    "r = if(b,x,y), [then, else] -> [float_type, {2}, {1}, float_type, {2}, {1}]\n"
    "r0 = get_tuple_elem[index=0](r) -> float_type, {2}, {1}\n"
    "r1 = get_tuple_elem[index=1](r) -> float_type, {2}, {1}\n"
    "@9 = @return(r0,r1)\n"
    "\n"
    "module: \"then\"\n"
    "x1 = @param:x1 -> float_type, {2}, {1}\n"
    "x2 = @param:x2 -> float_type, {2}, {1}\n"
    "d = add(x1,x1) -> float_type, {2}, {1}\n"
    "@3 = @return(d,x2)\n"
    "\n"
    "module: \"else\"\n"
    "x1 = @param:x1 -> float_type, {2}, {1}\n"
    "x2 = @param:x2 -> float_type, {2}, {1}\n"
    "d = sub(x1,x2) -> float_type, {2}, {1}\n"
    "@3 = @return(d,x2)\n";

static void test_if_runs_one_branch(void)
{
    graph *g = read_text(if_text);
    if (!g)
        return;
    tensor_list outs = {0, NULL};
    /* x = [1, 2]: sum 3 > 0, then: [2, 4] and y */
    CHECK(run_with(g, "x", GRAFT_FLOAT, (const double[]){1, 2}, 2, &outs));
    if (outs.n == 2) {
        check_values(&outs.items[0].t, (const double[]){2, 4}, 2);
        check_values(&outs.items[1].t, (const double[]){10, 20}, 2);
    }
    tensor_list_free(&outs);
    /* x = [1, -4]: sum -3, else: [1 - 10, -4 - 20] = [-9, -24] */
    CHECK(run_with(g, "x", GRAFT_FLOAT, (const double[]){1, -4}, 2, &outs));
    if (outs.n == 2)
        check_values(&outs.items[0].t, (const double[]){-9, -24}, 2);
    tensor_list_free(&outs);
    /* the dump writes both branches, and reads back */
    graft_error err = {0};
    size_t len;
    char *text = dump_write(g, &len, &err);
    CHECK(text && strstr(text, "r = if(b,x,y), [then, else] -> [float_type, {2}, {1}, "
                               "float_type, {2}, {1}]"));
    graph *again = text ? dump_read(text, len, "again", &err) : NULL;
    CHECK(again != NULL);
    free(text);
    graph_free(again);
    graph_free(g);
}

static void test_if_shape_rule(void)
{
    /* the branches disagree on a result's lens */
    expect_read_error(
        "module: \"main\"\n"
        "x = @param:x -> float_type, {2}, {1}\n"
        "b = @literal{1} -> bool_type, {1}, {1}\n"
        "r = if(b,x), [then, else] -> float_type, {2}, {1}\n"
        "@3 = @return(r)\n"
        "\n"
        "module: \"then\"\n"
        "x1 = @param:x1 -> float_type, {2}, {1}\n"
        "@1 = @return(x1)\n"
        "\n"
        "module: \"else\"\n"
        "x1 = @param:x1 -> float_type, {2}, {1}\n"
        "h = slice[axes={0},starts={0},ends={1}](x1) -> float_type, {1}, {1}\n"
        "@2 = @return(h)\n",
        "if: result 0 is float_type {2} in module \"then\" but float_type {1} in module \"else\"");
    /* a branch parameter of the wrong type */
    expect_read_error(
        "module: \"main\"\n"
        "x = @param:x -> float_type, {2}, {1}\n"
        "b = @literal{1} -> bool_type, {1}, {1}\n"
        "r = if(b,x), [then, else] -> float_type, {2}, {1}\n"
        "@3 = @return(r)\n"
        "\n"
        "module: \"then\"\n"
        "x1 = @param:x1 -> half_type, {2}, {1}\n"
        "@1 = @return(x1)\n"
        "\n"
        "module: \"else\"\n"
        "x1 = @param:x1 -> float_type, {2}, {1}\n"
        "@1 = @return(x1)\n",
        "if: operand 1 is float_type {2} but @param x1 of module \"then\" is half_type {2}");
    /* a condition of two elements */
    expect_read_error(
        "module: \"main\"\n"
        "x = @param:x -> float_type, {2}, {1}\n"
        "b = @literal{1, 0} -> bool_type, {2}, {1}\n"
        "r = if(b,x), [then, then] -> float_type, {2}, {1}\n"
        "@3 = @return(r)\n"
        "\n"
        "module: \"then\"\n"
        "x1 = @param:x1 -> float_type, {2}, {1}\n"
        "@1 = @return(x1)\n",
        "if: the condition (operand 0) must be one");
}

/* loop[states=2]: y doubles and n counts while sum(y) < 100; the scan-free
 * while loop. x = [1, 2]: y = [2, 4], [4, 8], [8, 16], [16, 32], [32, 64]
 * (sum 96, still below), [64, 128]: six iterations. */
static const char while_text[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2}, {1}\n"
    "trips = @literal{1000} -> int64_type, {1}, {1}\n"
    "go = @literal{1} -> bool_type, {1}, {1}\n"
    "n0 = @literal{0} -> int64_type, {1}, {1}\n"
    "limit = @literal{100} -> float_type, {1}, {1}\n"
    "r = loop[states=2,max_iterations=-1](trips,go,x,n0,limit), [body] -> "
    "[float_type, {2}, {1}, int64_type, {1}, {1}]\n"
    "y = get_tuple_elem[index=0](r) -> float_type, {2}, {1}\n"
    "n = get_tuple_elem[index=1](r) -> int64_type, {1}, {1}\n"
    "@8 = @return(y,n)\n"
    "\n"
    "module: \"body\"\n"
    "x2 = @param:x2 -> float_type, {2}, {1}\n"
    "x3 = @param:x3 -> int64_type, {1}, {1}\n"
    "x4 = @param:x4 -> float_type, {1}, {1}\n"
    "one = @literal{1} -> int64_type, {1}, {1}\n"
    "y = add(x2,x2) -> float_type, {2}, {1}\n"
    "s = reduce_sum[axes={0}](y) -> float_type, {1}, {1}\n"
    "c = less(s,x4) -> float_type, {1}, {1}\n"
    "n = add(x3,one) -> int64_type, {1}, {1}\n"
    "@8 = @return(c,y,n)\n";

/* loop[states=1,max_iterations=4] with a scan value: y += x, scanning
 * y * i (i the iteration number, x0); trips 3, so row 3 stays zero. x = [1,
 * 2]: y = [1, 2], [2, 4], [3, 6]; scans [0, 0], [2, 4], [6, 12], [0, 0]. */
static const char scan_text[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2}, {1}\n"
    "trips = @literal{3} -> int64_type, {1}, {1}\n"
    "go = @literal{1} -> bool_type, {1}, {1}\n"
    "y0 = @literal{0, 0} -> float_type, {2}, {1}\n"
    "r = loop[states=1,max_iterations=4](trips,go,y0,x), [body] -> "
    "[float_type, {2}, {1}, float_type, {4, 2}, {2, 1}]\n"
    "y = get_tuple_elem[index=0](r) -> float_type, {2}, {1}\n"
    "s = get_tuple_elem[index=1](r) -> float_type, {4, 2}, {2, 1}\n"
    "@7 = @return(y,s)\n"
    "\n"
    "module: \"body\"\n"
    "x0 = @param:x0 -> int64_type, {1}, {1}\n"
    "x1 = @param:x1 -> bool_type, {1}, {1}\n"
    "x2 = @param:x2 -> float_type, {2}, {1}\n"
    "x3 = @param:x3 -> float_type, {2}, {1}\n"
    "y = add(x2,x3) -> float_type, {2}, {1}\n"
    "i = convert[target_type=2](x0) -> float_type, {1}, {1}\n"
    "ib = multibroadcast[out_lens={2}](i) -> float_type, {2}, {0}\n"
    "s = mul(y,ib) -> float_type, {2}, {1}\n"
    "@8 = @return(x1,y,s)\n";

static void test_loop_runs_body(void)
{
    graph *g = read_text(while_text);
    tensor_list outs = {0, NULL};
    if (g && run_with(g, "x", GRAFT_FLOAT, (const double[]){1, 2}, 2, &outs) && outs.n == 2) {
        check_values(&outs.items[0].t, (const double[]){64, 128}, 2);
        check_values(&outs.items[1].t, (const double[]){6}, 1);
    } else {
        CHECK(false);
    }
    tensor_list_free(&outs);
    graph_free(g);

    g = read_text(scan_text);
    if (g && run_with(g, "x", GRAFT_FLOAT, (const double[]){1, 2}, 2, &outs) && outs.n == 2) {
        check_values(&outs.items[0].t, (const double[]){3, 6}, 2);
        check_values(&outs.items[1].t, (const double[]){0, 0, 2, 4, 6, 12, 0, 0}, 8);
    } else {
        CHECK(false);
    }
    tensor_list_free(&outs);
    graph_free(g);
}

static void test_loop_shape_rule(void)
{
    /* a loop-carried value that changes lens */
    expect_read_error(
        "module: \"main\"\n"
        "x = @param:x -> float_type, {2}, {1}\n"
        "t = @literal{3} -> int64_type, {1}, {1}\n"
        "c = @literal{1} -> bool_type, {1}, {1}\n"
        "r = loop[states=1](t,c,x), [body] -> float_type, {2}, {1}\n"
        "@4 = @return(r)\n"
        "\n"
        "module: \"body\"\n"
        "x1 = @param:x1 -> bool_type, {1}, {1}\n"
        "x2 = @param:x2 -> float_type, {2}, {1}\n"
        "h = slice[axes={0},starts={0},ends={1}](x2) -> float_type, {1}, {1}\n"
        "@3 = @return(x1,h)\n",
        "loop: loop-carried value 0 goes in as float_type {2} and comes out of module \"body\" "
        "as float_type {1}");
    /* scan values without max_iterations */
    expect_read_error(
        "module: \"main\"\n"
        "x = @param:x -> float_type, {2}, {1}\n"
        "t = @literal{3} -> int64_type, {1}, {1}\n"
        "c = @literal{1} -> bool_type, {1}, {1}\n"
        "r = loop[states=1](t,c,x), [body] -> float_type, {2}, {1}\n"
        "@4 = @return(r)\n"
        "\n"
        "module: \"body\"\n"
        "x1 = @param:x1 -> bool_type, {1}, {1}\n"
        "x2 = @param:x2 -> float_type, {2}, {1}\n"
        "@2 = @return(x1,x2,x2)\n",
        "loop: 1 scan value need max_iterations");
    /* the iteration number's parameter is int64 {1} whatever operand 0 is */
    expect_read_error(
        "module: \"main\"\n"
        "x = @param:x -> float_type, {2}, {1}\n"
        "t = @literal{3} -> int64_type, {1}, {1}\n"
        "c = @literal{1} -> bool_type, {1}, {1}\n"
        "r = loop[states=1](t,c,x), [body] -> float_type, {2}, {1}\n"
        "@4 = @return(r)\n"
        "\n"
        "module: \"body\"\n"
        "x0 = @param:x0 -> float_type, {1}, {1}\n"
        "x1 = @param:x1 -> bool_type, {1}, {1}\n"
        "x2 = @param:x2 -> float_type, {2}, {1}\n"
        "@3 = @return(x1,x2)\n",
        "loop: operand 0 is int64_type {1} but @param x0 of module \"body\" is float_type {1}");
}

int main(void)
{
    RUN(test_if_runs_one_branch);
    RUN(test_if_shape_rule);
    RUN(test_loop_runs_body);
    RUN(test_loop_shape_rule);
    return tests_finish();
}
