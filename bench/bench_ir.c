/* bench_ir.c: how fast the IR builds a big graph, and how much it holds.
 *
 * Builds a 1,000,000-instruction module through the public builder API
 * (ir/ir.h): parameters, small literals, and chains of add, mul, relu and
 * neg, every instruction's shape computed as it is added, exactly as an
 * importer or a rewrite would. Reports the build time against the 1 s target
 * and the process's peak resident memory (VmHWM) against the 1 GB target, as
 * ratios: below 1.0x meets the target. Not a test: nothing here fails on a
 * slow machine; it prints numbers for people.
 */
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TARGET_INSTRUCTIONS = 1000000 };
static const double TARGET_SECONDS = 1.0;
static const double TARGET_BYTES = 1024.0 * 1024.0 * 1024.0;

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Peak resident set size of this process in bytes (VmHWM), 0 if unknown. */
static double peak_resident_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    char line[256];
    double kb = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) {
            kb = strtod(line + 6, NULL);
            break;
        }
    fclose(f);
    return kb * 1024.0;
}

/* Appends instructions to m until the graph holds `target`. */
static bool build_chains(graph *g, module *m, size_t target, graft_error *err)
{
    const op_def *add = op_find("add"), *mul = op_find("mul"), *relu = op_find("relu"),
                 *neg = op_find("neg");
    if (!add || !mul || !relu || !neg)
        return error_set(err, "the op table lacks add, mul, relu or neg");
    int64_t lens[] = {4, 8};
    shape s = shape_standard(GRAFT_FLOAT, 2, lens);
    float values[32];
    for (int k = 0; k < 32; k++)
        values[k] = (float)k / 32.0f;
    ins *x = module_add_param(m, "x", &s);
    ins *prev = x, *side = x;
    size_t count = 1;
    int params = 1;
    while (count < target - 1) {
        ins *i;
        size_t step = count % 1000;
        if (step == 0) {
            /* A fresh chain now and then: a new param and a literal. */
            char name[32];
            snprintf(name, sizeof name, "x%d", params++);
            side = module_add_param(m, name, &s);
            i = module_add_literal(m, &s, values);
            count++;
        } else {
            ins *args[2] = {prev, side};
            switch (step % 4) {
            case 0: i = module_add(m, add, NULL, 0, args, 2, err); break;
            case 1: i = module_add(m, relu, NULL, 0, args, 1, err); break;
            case 2: i = module_add(m, mul, NULL, 0, args, 2, err); break;
            default: i = module_add(m, neg, NULL, 0, args, 1, err); break;
            }
        }
        if (!i)
            return false;
        prev = i;
        count++;
    }
    if (!module_add_return(m, &prev, 1))
        return error_set(err, "out of memory");
    (void)g;
    return true;
}

int main(void)
{
    graft_error err = {0};
    double start = seconds_now();
    graph *g = graph_new();
    module *m = g ? graph_add_module(g, "main", &err) : NULL;
    if (!m || !build_chains(g, m, TARGET_INSTRUCTIONS, &err)) {
        fprintf(stderr, "bench_ir: %s\n", err.message[0] ? err.message : "out of memory");
        graph_free(g);
        return 1;
    }
    double built = seconds_now() - start;
    size_t n = graph_count(g);
    double bytes = peak_resident_bytes();

    double verify_start = seconds_now();
    bool ok = graph_verify(g, &err);
    double verified = seconds_now() - verify_start;
    double sort_start = seconds_now();
    ok = ok && graph_sort(g, &err);
    double sorted = seconds_now() - sort_start;
    if (!ok) {
        fprintf(stderr, "bench_ir: %s\n", err.message);
        graph_free(g);
        return 1;
    }
    printf("ir build: %zu instructions built in %.2f s (%.2fx of the %.0f s target), "
           "%.0f MB peak (%.2fx of 1 GB)\n",
           n, built, built / TARGET_SECONDS, TARGET_SECONDS, bytes / (1024.0 * 1024.0),
           bytes / TARGET_BYTES);
    printf("ir verify: %.2f s; topological sort: %.2f s (for information, no target)\n",
           verified, sorted);
    graph_free(g);
    return 0;
}
