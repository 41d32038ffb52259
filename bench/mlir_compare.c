/* mlir_compare.c: graft's fold rules against MLIR's canonicalizer, as
 * rewrite engines and as whole processes, on the same 100k-op workloads.
 *
 * MLIR's greedy canonicalizer is the peer a compiler engineer knows. This
 * benchmark builds three workloads of about 100k ops, writes each once as
 * a graft dump and once as TOSA in MLIR's textual form (both generated here,
 * deterministically, into a temporary directory), and compares:
 *   identity: blocks of {identity transpose, reshape to the same shape, exp};
 *   chain:    blocks of {transpose p, transpose p (its own inverse), reshape
 *             to {6, 4}, reshape back to {2, 3, 4}, exp};
 *   fold100k: blocks of {transpose p, transpose p, contiguous (tosa.cast to
 *             the same type in MLIR), add of a zero constant, reshape to
 *             {6, 4}, reshape back, exp}: issue 7's workload.
 * Both sides must end with only the exp ops. For each workload it prints:
 *   - engine: graft's driver + shape resolution in this process against
 *     the Canonicalizer line of `mlir-opt --canonicalize --mlir-timing`
 *     (parsing excluded on both sides);
 *   - rewrite: the rewrite time `graft opt -p fold --stats json` reports
 *     (CSE rounds and the final DCE included; the first CSE is skipped when
 *     CSE's probe, offered each instruction as the reader built it, found
 *     no twins (tools/cli_util.c, cli_load_graph_probed),
 *     as on these workloads) against the same line (the
 *     process figures below come from runs without --stats, whose kernel
 *     counts walk the graph twice more);
 *   - process: the wall time of `graft opt W.dump -p fold -o OUT` (read,
 *     rewrite, verify, write) against `mlir-opt --canonicalize W.mlir -o
 *     OUT`, and the peak memory (max RSS, from wait4) of each;
 * then the read rate of `graft check` (read and verify, the whole process)
 * on the fold100k dump and of dump_read_file alone in this process, and the
 * cost per fire of the rules that fired most. Times are the best of a few runs, the
 * two sides taken in turn, so a burst of load on a shared machine hurts
 * both; they still depend on the machine and its load. Targets are judged
 * on wall time; each process's cpu time (user + system, from wait4) is
 * printed beside it, as the figure load disturbs least. Targets: >= 3x on
 * each speed ratio, memory at most mlir-opt's, reading >= 50 MB/s. Without
 * mlir-opt (package mlir-19-tools) the MLIR side is skipped.
 * The graft command is $GRAFT (bench/run.sh sets it) or build/graft.
 */
#include "driver.h"
#include "dump.h"
#include "lazy_shapes.h"
#include "load.h"
#include "pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

enum { TARGET_OPS = 100000, RUNS = 5 };

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

typedef enum { W_IDENTITY, W_CHAIN, W_FOLD } workload_kind;

typedef struct workload {
    const char *name;
    workload_kind kind;
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
    ins *zero = NULL;
    if (w->kind == W_FOLD) {
        static const float zeros[24];
        zero = module_add_literal(m, &sh, zeros);
    }
    for (int b = 0; b < blocks; b++) {
        if (w->kind == W_IDENTITY) {
            x = add_transpose(m, x, id);
            x = add_reshape(m, x, lens234, 3);
        } else {
            x = add_transpose(m, x, swap);
            x = add_transpose(m, x, swap);
            if (w->kind == W_FOLD) {
                x = module_add_op(m, "contiguous", NULL, 0, &x, 1, NULL);
                ins *args[2] = {x, zero};
                x = module_add_op(m, "add", NULL, 0, args, 2, NULL);
            }
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
    if (w->kind == W_FOLD)
        fprintf(fp, "  %%zero = \"tosa.const\"() {value = dense<0.0> : %s} : () -> %s\n", t, t);
    int v = 0;
    for (int b = 0; b < blocks; b++) {
        if (w->kind == W_IDENTITY) {
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
            if (w->kind == W_FOLD) {
                /* contiguous: a copy to the layout it already has, like a cast to its own type */
                fprintf(fp, "  %%v%d = tosa.cast %%v%d : (%s) -> %s\n", v + 1, v, t, t);
                v++;
                fprintf(fp, "  %%v%d = tosa.add %%v%d, %%zero : (%s, %s) -> %s\n", v + 1, v, t, t, t);
                v++;
            }
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

/* ---- child processes ---- */

typedef struct run_result {
    bool ok;
    double wall_ms, cpu_ms; /* cpu: user + system time of the child */
    long max_rss_kb;
    char *out;          /* what it printed (stdout and stderr), malloc'd */
} run_result;

/* Runs argv with stdout and stderr into a file; wall time and peak RSS of
 * the child (wait4). */
static run_result run_child(char *const argv[], const char *capture)
{
    run_result r = {0};
    double t0 = now_ms();
    pid_t pid = fork();
    if (pid < 0)
        return r;
    if (pid == 0) {
        int fd = open(capture, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid)
        return r;
    r.wall_ms = now_ms() - t0;
    r.max_rss_kb = ru.ru_maxrss;
    r.cpu_ms = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
               (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    size_t len;
    r.out = read_file_all(capture, &len, NULL);
    return r;
}

/* The number after the last `key` in text; < 0 when absent. */
static double number_after_last(const char *text, const char *key)
{
    const char *at = NULL;
    for (const char *p = text; p && (p = strstr(p, key)); p++)
        at = p;
    return at ? strtod(at + strlen(key), NULL) : -1;
}

/* The Canonicalizer line of --mlir-timing, in ms; < 0 when absent. */
static double canonicalizer_ms(const char *text)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        const char *eol = strchr(p, '\n');
        const char *c = strstr(p, "Canonicalizer");
        if (c && (!eol || c < eol))
            return strtod(p, NULL) * 1000.0;
    }
    return -1;
}

static long count_lines_with(const char *path, const char *needle)
{
    size_t len;
    char *text = read_file_all(path, &len, NULL);
    long n = 0;
    for (char *p = text; p && (p = strstr(p, needle)); p++)
        n++;
    free(text);
    return n;
}

static const char *verdict(bool met) { return met ? "pass" : "FAIL"; }

typedef struct side {
    double wall_ms, cpu_ms, rewrite_ms;
    long rss_kb;
    bool ok;
} side;

static void best(side *s, double wall, double cpu, double rewrite, long rss)
{
    if (!s->ok || wall < s->wall_ms)
        s->wall_ms = wall;
    if (!s->ok || cpu < s->cpu_ms)
        s->cpu_ms = cpu;
    if (!s->ok || rewrite < s->rewrite_ms)
        s->rewrite_ms = rewrite;
    if (rss > s->rss_kb)
        s->rss_kb = rss;
    s->ok = true;
}

/* The rules that fired most, with their cost per fire. */
static void print_per_fire(const char *name, const driver_result *d)
{
    int order[64], n = 0;
    for (int k = 0; k < d->nrules && n < 64; k++)
        if (d->rules[k].fires)
            order[n++] = k;
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && d->rules[order[b]].fires > d->rules[order[b - 1]].fires; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    printf("mlir_compare: %s: cost per fire (time in the rule's leaf / fires, fastest run):",
           name);
    for (int k = 0; k < n && k < 6; k++) {
        const rule_stat *s = &d->rules[order[k]];
        printf("%s %s %.2f us (%llu fires)", k ? "," : "", s->name,
               (double)s->ns / 1e3 / (double)s->fires, (unsigned long long)s->fires);
    }
    printf("\n");
}

int main(void)
{
    const rule_set *fold = builtin_rule_set("fold");
    if (!fold) {
        printf("mlir_compare: skipped: this graft was built without rules/fold.rules\n");
        return 0;
    }
    const char *graft_bin = getenv("GRAFT") ? getenv("GRAFT") : "build/graft";
    bool have_graft = access(graft_bin, X_OK) == 0;
    const char *mlir_opt = find_mlir_opt();
    static const workload workloads[] = {
        {"identity", W_IDENTITY, 3}, {"chain", W_CHAIN, 5}, {"fold100k", W_FOLD, 7}};
    char dir[] = "/tmp/graft_mlir_compare_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char fold_dump[128] = "";
    for (size_t k = 0; k < sizeof workloads / sizeof workloads[0]; k++) {
        const workload *w = &workloads[k];
        int blocks = TARGET_OPS / w->block;
        driver_options o;
        driver_options_init(&o);
        graft_error err = {0};
        /* In this process: the canonicalizer's counterpart, driver + shapes. */
        double engine_ms = -1;
        driver_result fastest = {0}; /* the per-rule counters of the fastest run */
        for (int run = 0; run < RUNS; run++) {
            graph *g = build_graph(w, blocks);
            double t0 = now_ms();
            driver_result dr;
            shapes_stats st;
            if (driver_run(g, &fold, 1, &o, &dr, &err)) {
                bool resolved = shapes_resolve(g, &st, &err);
                double ms = now_ms() - t0;
                bool best_run = engine_ms < 0 || ms < engine_ms;
                if (best_run)
                    engine_ms = ms;
                size_t left = graph_count(g);
                if (!resolved || !dr.converged ||
                    left != (size_t)blocks + 2) /* exps, param, return */
                    printf("mlir_compare: %s: graft left %zu instructions, expected %d\n", w->name,
                           left, blocks + 2);
                if (best_run) {
                    driver_result_free(&fastest);
                    fastest = dr;
                } else {
                    driver_result_free(&dr);
                }
            } else {
                printf("mlir_compare: %s: graft failed: %s\n", w->name, err.message);
            }
            graph_free(g);
        }
        if (w->kind == W_FOLD && fastest.rules)
            print_per_fire(w->name, &fastest);
        driver_result_free(&fastest);
        /* The inputs of the two processes. */
        char dump_path[128], mlir_path[128], out_path[160], cap_path[160];
        snprintf(dump_path, sizeof dump_path, "%s/%s.dump", dir, w->name);
        snprintf(mlir_path, sizeof mlir_path, "%s/%s.mlir", dir, w->name);
        snprintf(out_path, sizeof out_path, "%s/%s.out", dir, w->name);
        snprintf(cap_path, sizeof cap_path, "%s/%s.log", dir, w->name);
        graph *g = build_graph(w, blocks);
        bool wrote = dump_write_file(g, dump_path, &err);
        graph_free(g);
        if (w->kind == W_FOLD)
            snprintf(fold_dump, sizeof fold_dump, "%s", dump_path);
        if (!mlir_opt) {
            printf("mlir_compare: %s (%d ops): graft driver+shapes %.1f ms; MLIR skipped "
                   "(apt-get install mlir-19-tools)\n",
                   w->name, blocks * w->block, engine_ms);
            continue;
        }
        if (!wrote || !write_mlir(mlir_path, w, blocks) || !have_graft) {
            printf("mlir_compare: %s: could not write the inputs or find %s\n", w->name, graft_bin);
            continue;
        }
        side gs = {0}, ms = {0};
        long remaining = -1;
        for (int run = 0; run < RUNS; run++) {
            /* the rewrite time from --stats; the process as a user runs it */
            char *sargv[] = {(char *)graft_bin, "opt", dump_path, "-p", "fold", "-o", out_path,
                             "--stats", "json", NULL};
            run_result r = run_child(sargv, cap_path);
            double rewrite = r.ok && r.out ? number_after_last(r.out, "\"ms\":") : -1;
            free(r.out);
            char *gargv[] = {(char *)graft_bin, "opt", dump_path, "-p", "fold", "-o", out_path,
                             NULL};
            r = run_child(gargv, cap_path);
            if (r.ok && rewrite >= 0)
                best(&gs, r.wall_ms, r.cpu_ms, rewrite, r.max_rss_kb);
            free(r.out);
            char *margv[] = {(char *)mlir_opt, "--canonicalize", "--mlir-timing", mlir_path, "-o",
                             out_path, NULL};
            r = run_child(margv, cap_path);
            double canon = r.out ? canonicalizer_ms(r.out) : -1;
            if (r.ok && canon >= 0)
                best(&ms, r.wall_ms, r.cpu_ms, canon, r.max_rss_kb);
            free(r.out);
            if (run == 0)
                remaining = count_lines_with(out_path, " = tosa.");
        }
        if (!gs.ok || !ms.ok || engine_ms <= 0) {
            printf("mlir_compare: %s: could not time both sides\n", w->name);
            continue;
        }
        double engine = ms.rewrite_ms / engine_ms, rewrite = ms.rewrite_ms / gs.rewrite_ms;
        double process = ms.wall_ms / gs.wall_ms, memory = (double)gs.rss_kb / (double)ms.rss_kb;
        printf("mlir_compare: %s (%d ops; MLIR leaves %ld ops):\n", w->name, blocks * w->block,
               remaining);
        printf("  engine:  graft driver+shapes %.1f ms vs MLIR Canonicalizer %.1f ms: %.1fx "
               "(target >= 3x: %s)\n",
               engine_ms, ms.rewrite_ms, engine, verdict(engine >= 3.0));
        printf("  rewrite: graft opt -p fold %.1f ms (CSE, DCE included) vs Canonicalizer "
               "%.1f ms: %.1fx (target >= 3x: %s)\n",
               gs.rewrite_ms, ms.rewrite_ms, rewrite, verdict(rewrite >= 3.0));
        printf("  process: graft opt %.0f ms vs mlir-opt --canonicalize %.0f ms: %.1fx (target "
               ">= 3x: %s); cpu time %.0f ms vs %.0f ms: %.1fx\n",
               gs.wall_ms, ms.wall_ms, process, verdict(process >= 3.0), gs.cpu_ms, ms.cpu_ms,
               ms.cpu_ms / gs.cpu_ms);
        printf("  memory:  graft opt %.0f MB vs mlir-opt %.0f MB peak: %.2fx (target <= 1x: %s)\n",
               (double)gs.rss_kb / 1024.0, (double)ms.rss_kb / 1024.0, memory,
               verdict(memory <= 1.0));
    }
    /* Reading: `graft check` on the fold100k dump, the whole process. */
    struct stat sb;
    if (have_graft && fold_dump[0] && stat(fold_dump, &sb) == 0) {
        char cap_path[160];
        snprintf(cap_path, sizeof cap_path, "%s/check.log", dir);
        double best_ms = -1, best_cpu = -1;
        long rss = 0;
        for (int run = 0; run < RUNS; run++) {
            char *argv[] = {(char *)graft_bin, "check", fold_dump, NULL};
            run_result r = run_child(argv, cap_path);
            if (r.ok && (best_ms < 0 || r.wall_ms < best_ms))
                best_ms = r.wall_ms;
            if (r.ok && (best_cpu < 0 || r.cpu_ms < best_cpu))
                best_cpu = r.cpu_ms;
            if (r.max_rss_kb > rss)
                rss = r.max_rss_kb;
            free(r.out);
        }
        if (best_ms > 0) {
            double mb = (double)sb.st_size / 1e6, rate = mb / (best_ms / 1e3);
            printf("mlir_compare: read: graft check (read + verify) of a %.1f MB, %d-instruction "
                   "dump: %.0f ms, %.0f MB/s, %.0f MB peak (target >= 50 MB/s: %s); cpu time "
                   "%.0f ms, %.0f MB/s\n",
                   mb, TARGET_OPS + 3, best_ms, rate, (double)rss / 1024.0,
                   verdict(rate >= 50.0), best_cpu, mb / (best_cpu / 1e3));
        }
    }
    /* Reading alone, in this process: dump_read_file, no verify. */
    if (fold_dump[0] && stat(fold_dump, &sb) == 0) {
        double best_ms = -1;
        for (int run = 0; run < RUNS; run++) {
            graft_error err = {0};
            double t0 = now_ms();
            graph *g = dump_read_file(fold_dump, &err);
            double ms = now_ms() - t0;
            if (g && (best_ms < 0 || ms < best_ms))
                best_ms = ms;
            graph_free(g);
        }
        if (best_ms > 0) {
            double rate = (double)sb.st_size / 1e6 / (best_ms / 1e3);
            printf("mlir_compare: read: dump_read_file of the same dump in this process: %.0f ms, "
                   "%.0f MB/s (target >= 50 MB/s: %s)\n",
                   best_ms, rate, verdict(rate >= 50.0));
        }
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "mlir_compare: could not remove %s\n", dir);
    return 0;
}
