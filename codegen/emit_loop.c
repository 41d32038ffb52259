/* emit_loop.c: the three small kernels a `loop` instruction adds around its
 * body's kernels (lower.c's lower_loop; the plan's cg_loop entry repeats
 * the body, codegen/loop_run.c).
 *
 *  - init, once before the loop: copies the initial loop-carried values
 *    into the loop's state buffers (which are also its results), writes the
 *    condition buffer (the operand's condition, as 0 or 1) and the
 *    iteration number 0, and zeroes the scan outputs (rows of iterations
 *    that do not run stay zero, as in the reference).
 *  - stage, the body's last kernel but one: copies the body's next
 *    condition and loop-carried values into staging buffers, and each scan
 *    value into its output's row at the current iteration.
 *  - commit, the body's last kernel: copies the staged values into the
 *    state and condition buffers and advances the iteration number.
 * Staging in between makes every body result safe to read while the state
 * is written, whatever it aliases (a state passed through unchanged, two
 * states swapped, a view of one): each kernel only reads buffers it does
 * not write. Every copy is a grid-stride loop over the value's elements.
 */
#include "cg_emit.h"

#include <stdio.h>

/* One grid-stride loop copying n elements from src (any access) to dst
 * (any access), both of type t. */
static void copy_loop(cg_kgen *g, const cg_access *src, const cg_access *dst, graft_type t,
                      int64_t n)
{
    cg_text *b = &g->body;
    const char *ct = cg_compute_type(t);
    char v[32], off[1400], conv[1600];
    cg_grid_stride_loop(g, n);
    cg_load_linear(g, src, "i", ct, 8, v, sizeof v);
    int op = cg_param(g, dst->buffer, true);
    cg_offset_linear(g, dst, "i", 8, off, sizeof off);
    cg_store_conversion(t, ct, v, conv, sizeof conv);
    cg_printf(b, "        p%d[%s] = %s;\n    }\n", op, off, conv);
}

static int64_t access_elements(const cg_access *a)
{
    return cg_product(a->lv[0].lens, 0, a->lv[0].rank);
}

/* Writes, from thread 0 only, buffer `to`'s element 0 = (element 0 of
 * access from) != 0. */
static void write_condition(cg_kgen *g, const cg_access *from, int to)
{
    char off[1400], el[1500];
    cg_puts(&g->body, "    if (blockIdx.x == 0 && threadIdx.x == 0) {\n");
    cg_offset_linear(g, from, "0u", 8, off, sizeof off);
    cg_element(g, from, off, el, sizeof el);
    int op = cg_param(g, to, true);
    cg_printf(&g->body, "        p%d[0] = (unsigned char)((%s)(%s) != 0);\n    }\n", op,
              cg_compute_type(from->type), el);
}

static void launch_for(cg_kgen *g, int64_t most)
{
    g->block = 256;
    g->grid = cg_grid_for(most, g->block);
}

bool cg_emit_loop_init(cg_kgen *g, const cg_loop_buffers *lb)
{
    g->kind = "loop_init";
    int64_t most = 1;
    for (int k = 0; k < lb->nstates; k++) {
        int64_t n = access_elements(&lb->state[k]);
        copy_loop(g, &lb->initial[k], &lb->state[k], lb->state[k].type, n);
        most = n > most ? n : most;
    }
    for (int k = 0; k < lb->nscans; k++) {
        int64_t n = access_elements(&lb->scan_out[k]);
        int op = cg_param(g, lb->scan_out[k].buffer, true);
        const char *ct = cg_compute_type(lb->scan_out[k].type);
        char zero[64], conv[200];
        snprintf(zero, sizeof zero, "(%s)0", ct);
        cg_store_conversion(lb->scan_out[k].type, ct, zero, conv, sizeof conv);
        cg_grid_stride_loop(g, n);
        cg_printf(&g->body, "        p%d[i] = %s;\n    }\n", op, conv);
        most = n > most ? n : most;
    }
    write_condition(g, &lb->initial_cond, lb->cond);
    int it = cg_param(g, lb->iteration, true);
    cg_printf(&g->body, "    if (blockIdx.x == 0 && threadIdx.x == 0)\n        p%d[0] = 0;\n", it);
    launch_for(g, most);
    return !g->failed;
}

bool cg_emit_loop_stage(cg_kgen *g, const cg_loop_buffers *lb)
{
    g->kind = "loop_stage";
    int64_t most = 1;
    for (int k = 0; k < lb->nstates; k++) {
        int64_t n = access_elements(&lb->staged[k]);
        copy_loop(g, &lb->next[k], &lb->staged[k], lb->staged[k].type, n);
        most = n > most ? n : most;
    }
    if (lb->nscans > 0) {
        int it = cg_param(g, lb->iteration, false);
        cg_printf(&g->body, "    const long long iteration = p%d[0];\n", it);
    }
    for (int k = 0; k < lb->nscans; k++) {
        const cg_access *row = &lb->scan_row[k];
        int64_t n = access_elements(row);
        graft_type t = lb->scan_out[k].type;
        const char *ct = cg_compute_type(t);
        char v[32], conv[1600];
        cg_grid_stride_loop(g, n);
        cg_load_linear(g, row, "i", ct, 8, v, sizeof v);
        int op = cg_param(g, lb->scan_out[k].buffer, true);
        cg_store_conversion(t, ct, v, conv, sizeof conv);
        cg_printf(&g->body, "        p%d[(unsigned long long)iteration * %lldull + i] = %s;\n    }\n",
                  op, (long long)n, conv);
        most = n > most ? n : most;
    }
    write_condition(g, &lb->next_cond, lb->staged_cond);
    launch_for(g, most);
    return !g->failed;
}

bool cg_emit_loop_commit(cg_kgen *g, const cg_loop_buffers *lb)
{
    g->kind = "loop_commit";
    int64_t most = 1;
    for (int k = 0; k < lb->nstates; k++) {
        int64_t n = access_elements(&lb->state[k]);
        copy_loop(g, &lb->staged[k], &lb->state[k], lb->state[k].type, n);
        most = n > most ? n : most;
    }
    int from = cg_param(g, lb->staged_cond, false), to = cg_param(g, lb->cond, true);
    int it = cg_param(g, lb->iteration, true);
    cg_printf(&g->body,
              "    if (blockIdx.x == 0 && threadIdx.x == 0) {\n"
              "        p%d[0] = p%d[0];\n"
              "        p%d[0] = p%d[0] + 1;\n"
              "    }\n",
              to, from, it, it);
    launch_for(g, most);
    return !g->failed;
}
