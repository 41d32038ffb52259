/* test_public_api.c: graft as a library user sees it: only graft.h. */
#include "graft.h"

#include "check.h"

#include <stdlib.h>

static const char *chain =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
    "@1 = transpose[permutation={1, 0}](x)\n"
    "@2 = transpose[permutation={1, 0}](@1)\n"
    "@3 = relu(@2)\n"
    "@4 = @return(@3)\n";

static graft_graph *read_chain(void)
{
    graft_error err;
    graft_graph *g = graft_graph_read_dump(chain, strlen(chain), "chain.txt", &err);
    CHECK(g != NULL);
    return g;
}

static void test_run_computes_relu(void)
{
    graft_graph *g = read_chain();
    float x[6] = {-1, 2, -3, 4, -5, 6};
    graft_tensor in = {.name = "x", .type = GRAFT_FLOAT, .rank = 2, .lens = {2, 3}, .data = x};
    graft_tensor *out = NULL;
    int n = 0;
    graft_error err;
    CHECK(graft_graph_run(g, &in, 1, &out, &n, &err));
    CHECK_INT(n, 1);
    if (n == 1) {
        const float *y = out[0].data;
        CHECK_INT(out[0].rank, 2);
        CHECK_INT(out[0].lens[0], 2);
        CHECK_INT(out[0].lens[1], 3);
        CHECK_NEAR(y[0], 0, 0);
        CHECK_NEAR(y[1], 2, 0);
        CHECK_NEAR(y[5], 6, 0);
    }
    graft_tensors_free(out, n);
    graft_graph_free(g);
}

static void test_optimize_removes_transposes(void)
{
    graft_graph *g = read_chain();
    graft_opt_stats stats;
    graft_error err;
    CHECK(graft_graph_optimize(g, "fold", &stats, &err));
    CHECK(stats.converged);
    CHECK(stats.rewrites >= 1);
    CHECK_INT(stats.instructions_before, 5);
    CHECK_INT(stats.instructions_after, 3);
    char *text = graft_graph_to_string(g, &err);
    CHECK(text && !strstr(text, "transpose"));
    free(text);
    CHECK(graft_graph_verify(g, &err));
    graft_graph_free(g);
}

static void test_params_are_described(void)
{
    graft_graph *g = read_chain();
    CHECK_INT(graft_graph_params(g, NULL, 0), 1);
    graft_tensor p[2];
    CHECK_INT(graft_graph_params(g, p, 2), 1);
    CHECK_STR(p[0].name, "x");
    CHECK_INT(p[0].type, GRAFT_FLOAT);
    CHECK_INT(p[0].rank, 2);
    CHECK_INT(p[0].lens[0], 2);
    CHECK_INT(p[0].lens[1], 3);
    CHECK(p[0].data == NULL);
    graft_graph_free(g);
}

static void test_errors_are_reported(void)
{
    graft_graph *g = read_chain();
    graft_error err;
    CHECK(!graft_graph_optimize(g, "no_such_pipeline", NULL, &err));
    CHECK_CONTAINS(err.message, "unknown pipeline 'no_such_pipeline'");
    graft_tensor *out = NULL;
    int n = 0;
    CHECK(!graft_graph_run(g, NULL, 0, &out, &n, &err));
    CHECK_CONTAINS(err.message, "x");
    CHECK(out == NULL && n == 0);
    graft_graph_free(g);
    CHECK(graft_graph_read_file("/nonexistent/graph.txt", &err) == NULL);
    char buf[1200];
    CHECK_CONTAINS(graft_error_format(&err, buf, sizeof buf), "/nonexistent/graph.txt");
}

/* A value too large for any machine: the error names it and its bytes. */
static void test_huge_value_is_named(void)
{
    const char *text = "module: \"main\"\n"
                       "x = @param:x -> float_type, {10000000, 1}, {1, 1}\n"
                       "@1 = multibroadcast[out_lens={10000000, 10000000}](x)\n"
                       "@2 = neg(@1)\n"
                       "@3 = contiguous(@2)\n"
                       "@4 = @return(@3)\n";
    graft_error err;
    graft_graph *g = graft_graph_read_dump(text, strlen(text), "huge.txt", &err);
    CHECK(g != NULL);
    if (!g)
        return;
    static float x[10000000];
    graft_tensor in = {.name = "x", .type = GRAFT_FLOAT, .rank = 2, .lens = {10000000, 1}, .data = x};
    graft_tensor *out = NULL;
    int n = 0;
    CHECK(!graft_graph_run(g, &in, 1, &out, &n, &err));
    CHECK_CONTAINS(err.message, "(float_type {10000000, 10000000}");
    CHECK_CONTAINS(err.message, "400000000000000 bytes");
    CHECK(out == NULL && n == 0);
    graft_graph_free(g);
}

/* The kernel count is the launch plan's: a variance over rows of 131072
 * elements is one fused region, which codegen splits into two partial
 * passes and a final kernel (docs/codegen.md), so 3 launches where the op
 * classes would count 1. The bytes are the same figures `graft opt --stats`
 * prints: the bound is x read once and v written once; the plan reads x
 * twice (mean, then variance) and moves the partial sums. */
static void test_kernels_are_the_plans(void)
{
    static const char var[] =
        "module: \"main\"\n"
        "x = @param:x -> float_type, {2, 131072}, {131072, 1}\n"
        "m = reduce_mean[axes={1}](x)\n"
        "mb = multibroadcast[out_lens={2, 131072}](m)\n"
        "d = sub(x,mb)\n"
        "sq = mul(d,d)\n"
        "v = reduce_mean[axes={1}](sq)\n"
        "@ret = @return(v)\n";
    graft_error err;
    graft_graph *g = graft_graph_read_dump(var, strlen(var), "var.txt", &err);
    CHECK(g != NULL);
    graft_opt_stats stats;
    CHECK(graft_graph_optimize(g, "default", &stats, &err));
    CHECK_INT(stats.kernels, 3);
    CHECK_INT(stats.fills, 0);
    CHECK_INT(stats.copies, 0);
    CHECK_INT(stats.bytes_lower_bound, 2 * 131072 * 4 + 2 * 4);
    CHECK_INT(stats.bytes_moved, 2097800);
    graft_graph_free(g);
}

int main(void)
{
    RUN(test_run_computes_relu);
    RUN(test_optimize_removes_transposes);
    RUN(test_params_are_described);
    RUN(test_errors_are_reported);
    RUN(test_huge_value_is_named);
    RUN(test_kernels_are_the_plans);
    return tests_finish();
}
