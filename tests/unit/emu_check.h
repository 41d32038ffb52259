/* emu_check.h: the check the codegen tests share: lower a graph written in
 * the dump format, make sure the kernel kind and source text a case means
 * to exercise are really there, plan it, and run it on the emu device at
 * both wave sizes (64 as on gfx90a, 32 as on gfx1030) against the
 * reference executor. Included by tests/unit/test_codegen*.c after check.h,
 * codegen.h, exec.h and graph_test_helpers.h.
 */
#ifndef GRAFT_TEST_EMU_CHECK_H
#define GRAFT_TEST_EMU_CHECK_H

#include "check.h"
#include "codegen.h"
#include "exec.h"
#include "graph_test_helpers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Runs the planned program p on emu at waves 64 and 32 with inputs in and
 * checks every output against want, the reference executor's, to a relative
 * error of tol (|got - want| / (1 + |want|); 0: bit-equal but for NaN
 * against NaN), printing the worst element of an output that is off. */
static inline void check_emu_outputs(cg_program *p, const tensor_list *in, const tensor_list *want,
                                     double tol)
{
    graft_error err = {0};
    for (unsigned wave = 32; wave <= 64; wave *= 2) {
        tensor_list got = {0, NULL};
        cg_emu_options o = {wave, NULL, 0, 0};
        bool ran = cg_run_emu(p, &o, in, &got, &err);
        if (!ran)
            printf("emu (wave %u): %s\n", wave, err.message);
        CHECK(ran);
        CHECK_INT(got.n, want->n);
        for (int k = 0; ran && k < got.n && k < want->n; k++) {
            const tensor *a = &got.items[k].t, *b = &want->items[k].t;
            CHECK(shape_same_lens(&a->sh, &b->sh));
            double worst = 0;
            int64_t at = -1;
            for (int64_t e = 0; e < shape_elements(&b->sh); e++) {
                double x = tensor_get_f64(a, e), y = tensor_get_f64(b, e);
                double d = fabs(x - y) / (1 + fabs(y));
                if (isnan(x) != isnan(y) || d > worst) {
                    worst = isnan(x) != isnan(y) ? INFINITY : d;
                    at = e;
                }
            }
            if (worst > tol)
                printf("wave %u output %d: error %.3g at element %lld\n", wave, k, worst,
                       (long long)at);
            CHECK(worst <= tol);
        }
        tensor_list_free(&got);
    }
}

/* Lowers text, checks that some kernel has kind `kind` (NULL: any) and that
 * the source of some kernel contains `needle` (NULL: any), then runs it on
 * emu at waves 64 and 32 against the reference. */
static inline void check_emu(const char *text, const char *kind, const char *needle, double tol)
{
    graph *g = parse(text);
    CHECK(g != NULL);
    if (!g)
        return;
    graft_error err = {0};
    cg_program *p = cg_lower(g, &err);
    if (!p)
        printf("lower: %s\n", err.message);
    CHECK(p != NULL);
    if (!p) {
        graph_free(g);
        return;
    }
    bool has_kind = kind == NULL, has_needle = needle == NULL;
    for (int k = 0; k < p->nkernels; k++) {
        has_kind = has_kind || strcmp(p->kernels[k].kind, kind) == 0;
        has_needle = has_needle || strstr(p->kernels[k].source, needle) != NULL;
    }
    CHECK(has_kind);
    CHECK(has_needle);
    CHECK(cg_plan(p, &err));
    CHECK(cg_plan_check(p, &err));
    tensor_list in = {0, NULL}, want = {0, NULL};
    CHECK(exec_random_inputs(graph_main(g), 3, &in, &err));
    CHECK(exec_run(graph_main(g), &in, &want, &err));
    check_emu_outputs(p, &in, &want, tol);
    tensor_list_free(&in);
    tensor_list_free(&want);
    cg_program_free(p);
    graph_free(g);
}

/* Lowers and plans each of the n texts and compiles its kernels with hiprtc
 * for gfx90a (wave 64) and gfx1030 (wave 32), printing the hiprtc log of a
 * failure. Without hiprtc on the machine it prints a note naming test and
 * returns: the emu checks above still run everywhere. */
static inline void check_hiprtc_compiles(const char *test, const char *const *texts, size_t n)
{
    graft_error err = {0};
    if (!cg_hiprtc_available(&err)) {
        printf("note: %s skipped: hiprtc: %s\n", test, err.message);
        return;
    }
    for (size_t t = 0; t < n; t++) {
        graph *g = parse(texts[t]);
        cg_program *p = g ? cg_lower(g, &err) : NULL;
        CHECK(p != NULL && cg_plan(p, &err));
        const char *archs[2] = {"gfx90a", "gfx1030"};
        cg_compile_options o = {archs, 2, NULL, NULL, 2};
        bool ok = p && cg_compile(p, &o, NULL, &err);
        if (!ok)
            printf("hiprtc: %s\n", err.message);
        CHECK(ok);
        cg_program_free(p);
        graph_free(g);
    }
}

#endif
