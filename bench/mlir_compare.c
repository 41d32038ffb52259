/* mlir_compare.c: graft's fold rules against MLIR's canonicalizer on the
 * same 100k-op workloads.
 *
 * MLIR's greedy canonicalizer is the peer a compiler engineer knows. This
 * benchmark writes two equivalent workloads, once as a graft graph and once
 * as TOSA in MLIR's textual form, and compares graft's rewrite time with
 * the Canonicalizer line of `mlir-opt --canonicalize --mlir-timing`
 * (parsing excluded on both sides). The canonicalizer is a greedy rewrite
 * driver that folds and erases dead ops, and runs no CSE (that is MLIR's
 * separate -cse pass), so graft's side is its counterpart: the worklist
 * driver with the built-in fold set (dead code erased as it goes) plus the
 * lazy-shape resolution pass. The whole of `graft opt` (optimize_run, which
 * adds CSE rounds and a final DCE) is printed beside it for information:
 *   identity: blocks of {identity transpose, reshape to the same shape, exp};
 *   chain:    blocks of {transpose p, transpose p (its own inverse), reshape
 *             to {6, 4}, reshape back to {2, 3, 4}, exp}.
 * Both sides must end with only the exp ops; the benchmark checks graft's
 * count. Target: graft at least 3x faster. Without mlir-opt (package
 * mlir-19-tools) it says so and skips.
 */
#include "driver.h"
#include "lazy_shapes.h"
#include "load.h"
#include "pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { TARGET_OPS = 100000 };

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char *find_mlir_opt(void)
{
    static const char *const candidates[] = {"/usr/lib/llvm-19/bin/mlir-opt", "/usr/bin/mlir-opt-19",
                                             "/usr/bin/mlir-opt", NULL};
    for (int i = 0; candidates[i]; i++)
        if (access(candidates[i], X_OK) == 0)
            return candidates[i];
    return NULL;
}

typedef struct workload {
    const char *name;
    int block;          /* ops per block, exp included */
} workload;

static const int64_t lens234[3] = {2, 3, 4};

static ins *add_transpose(module *m, ins *x, const int64_t *perm)
{
    attr a = {"permutation", attr_ints(perm, 3)};
    return module_add_op(m, "transpose", &a, 1, &x, 1, NULL);
}

static ins *add_reshape(module *m, ins *x, const int64_t *dims, int n)
{
    attr a = {"dims", attr_ints(dims, n)};
    return module_add_op(m, "reshape", &a, 1, &x, 1, NULL);
}

static graph *build_graph(const workload *w, int blocks)
{
    static const int64_t id[3] = {0, 1, 2}, swap[3] = {1, 0, 2}, flat[2] = {6, 4};
    graph *g = graph_new();
    module *m = graph_add_module(g, "main", NULL);
    shape sh = shape_standard(GRAFT_FLOAT, 3, lens234);
    ins *x = module_add_param(m, "x", &sh);
    for (int b = 0; b < blocks; b++) {
        if (w->block == 3) {
            x = add_transpose(m, x, id);
            x = add_reshape(m, x, lens234, 3);
        } else {
            x = add_transpose(m, x, swap);
            x = add_transpose(m, x, swap);
            x = add_reshape(m, x, flat, 2);
            x = add_reshape(m, x, lens234, 3);
        }
        x = module_add_op(m, "exp", NULL, 0, &x, 1, NULL);
    }
    module_add_return(m, &x, 1);
    return g;
}

static bool write_mlir(const char *path, const workload *w, int blocks)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        return false;
    const char *t = "tensor<2x3x4xf32>";
    fprintf(fp, "func.func @main(%%v0: %s) -> %s {\n", t, t);
    fprintf(fp, "  %%pid = \"tosa.const\"() {value = dense<[0, 1, 2]> : tensor<3xi32>} : () -> tensor<3xi32>\n");
    fprintf(fp, "  %%pswap = \"tosa.const\"() {value = dense<[1, 0, 2]> : tensor<3xi32>} : () -> tensor<3xi32>\n");
    int v = 0;
    for (int b = 0; b < blocks; b++) {
        if (w->block == 3) {
            fprintf(fp, "  %%v%d = tosa.transpose %%v%d, %%pid : (%s, tensor<3xi32>) -> %s\n", v + 1, v, t, t);
            v++;
            fprintf(fp, "  %%v%d = tosa.reshape %%v%d {new_shape = array<i64: 2, 3, 4>} : (%s) -> %s\n", v + 1,
                    v, t, t);
            v++;
        } else {
            fprintf(fp, "  %%v%d = tosa.transpose %%v%d, %%pswap : (%s, tensor<3xi32>) -> tensor<3x2x4xf32>\n",
                    v + 1, v, t);
            v++;
            fprintf(fp, "  %%v%d = tosa.transpose %%v%d, %%pswap : (tensor<3x2x4xf32>, tensor<3xi32>) -> %s\n",
                    v + 1, v, t);
            v++;
            fprintf(fp, "  %%v%d = tosa.reshape %%v%d {new_shape = array<i64: 6, 4>} : (%s) -> tensor<6x4xf32>\n",
                    v + 1, v, t);
            v++;
            fprintf(fp, "  %%v%d = tosa.reshape %%v%d {new_shape = array<i64: 2, 3, 4>} : (tensor<6x4xf32>) -> %s\n",
                    v + 1, v, t);
            v++;
        }
        fprintf(fp, "  %%v%d = tosa.exp %%v%d : (%s) -> %s\n", v + 1, v, t, t);
        v++;
    }
    fprintf(fp, "  return %%v%d : %s\n}\n", v, t);
    return fclose(fp) == 0;
}

/* Runs mlir-opt and returns the Canonicalizer's wall time in ms (< 0 on
 * failure); *remaining gets the number of ops left in the output. */
static double mlir_canonicalize_ms(const char *mlir_opt, const char *path, long *remaining)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --canonicalize --mlir-timing %s 2>&1", mlir_opt, path);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char line[4096];
    double ms = -1;
    *remaining = 0;
    while (fgets(line, sizeof line, p)) {
        double s;
        if (strstr(line, "Canonicalizer") && sscanf(line, " %lf", &s) == 1)
            ms = s * 1000.0;
        if (strstr(line, " = tosa."))
            (*remaining)++;
    }
    if (pclose(p) != 0)
        return -1;
    return ms;
}

int main(void)
{
    const rule_set *fold = builtin_rule_set("fold");
    if (!fold) {
        printf("mlir_compare: skipped: this graft was built without rules/fold.rules\n");
        return 0;
    }
    const char *mlir_opt = find_mlir_opt();
    static const workload workloads[] = {{"identity", 3}, {"chain", 5}};
    char dir[] = "/tmp/graft_mlir_compare_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    for (size_t k = 0; k < sizeof workloads / sizeof workloads[0]; k++) {
        const workload *w = &workloads[k];
        int blocks = TARGET_OPS / w->block;
        driver_options o;
        driver_options_init(&o);
        graft_error err = {0};
        /* The canonicalizer's counterpart: driver + shape resolution. */
        double graft_ms = -1;
        graph *g = build_graph(w, blocks);
        double t0 = now_ms();
        driver_result dr;
        shapes_stats st;
        if (driver_run(g, &fold, 1, &o, &dr, &err)) {
            bool resolved = shapes_resolve(g, &st, &err);
            graft_ms = now_ms() - t0;
            size_t left = graph_count(g);
            if (!resolved || !dr.converged || left != (size_t)blocks + 2) /* exps, param, return */
                printf("mlir_compare: %s: graft left %zu instructions, expected %d\n", w->name, left,
                       blocks + 2);
            driver_result_free(&dr);
        } else {
            printf("mlir_compare: %s: graft failed: %s\n", w->name, err.message);
        }
        graph_free(g);
        /* The whole of `graft opt`, for information. */
        double opt_ms = -1;
        optimize_result res;
        g = build_graph(w, blocks);
        if (optimize_run(g, &fold, 1, &o, &res, &err)) {
            opt_ms = res.ms;
            optimize_result_free(&res);
        }
        graph_free(g);
        if (!mlir_opt) {
            printf("mlir_compare: %s (%d ops): graft %.1f ms; MLIR skipped (apt-get install "
                   "mlir-19-tools)\n",
                   w->name, blocks * w->block, graft_ms);
            continue;
        }
        char path[128];
        snprintf(path, sizeof path, "%s/%s.mlir", dir, w->name);
        long remaining = 0;
        double mlir_ms = write_mlir(path, w, blocks) ? mlir_canonicalize_ms(mlir_opt, path, &remaining) : -1;
        if (mlir_ms < 0 || graft_ms <= 0) {
            printf("mlir_compare: %s: could not time both sides\n", w->name);
            continue;
        }
        double speedup = mlir_ms / graft_ms;
        printf("mlir_compare: %s (%d ops): graft driver+shapes %.1f ms, MLIR canonicalizer %.1f ms "
               "(%ld ops left); graft %.1fx faster (target >= 3x: %s); whole graft opt with CSE "
               "%.1f ms\n",
               w->name, blocks * w->block, graft_ms, mlir_ms, remaining, speedup,
               speedup >= 3.0 ? "met" : "NOT met", opt_ms);
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "mlir_compare: could not remove %s\n", dir);
    return 0;
}
