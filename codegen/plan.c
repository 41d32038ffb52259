/* plan.c: memory planning, plan.json, and writing a compiled program out.
 *
 * Memory: the program runs out of one allocation. Its start is the arena,
 * where every buffer a kernel writes is placed; the graph's inputs and then
 * its weights (weights.bin) follow. Two arena buffers may share bytes when
 * their live ranges, from the kernel that writes them to the last kernel
 * that reads them (to the end for outputs), do not overlap. Placement is
 * best fit over that interval graph, in the manner of XLA's
 * GlobalDecreasingSizeBestFitHeap: buffers in decreasing size, each put in
 * the smallest gap left between the buffers already placed that are live
 * at the same time, or on top of them when no gap fits. Offsets are
 * 256-byte aligned. The report has three numbers: the arena, the sum of all
 * buffers (no reuse at all), and the peak of live bytes over the launch
 * order (no placement can do better than that); efficiency is peak / arena,
 * as glow's allocator reports it.
 */
#include "cg_emit.h"

#include "fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { ALIGN = 256 };

static size_t aligned(size_t n) { return (n + ALIGN - 1) / ALIGN * ALIGN; }

static int live_end(const cg_program *p, const cg_buffer *b)
{
    int last = b->output ? p->nkernels : b->last;
    return last < b->first ? b->first : last;
}

static bool overlap(const cg_program *p, const cg_buffer *a, const cg_buffer *b)
{
    return a->first <= live_end(p, b) && b->first <= live_end(p, a);
}

typedef struct order_item {
    int b;
    size_t size;
    int first;
} order_item;

static int by_size(const void *x, const void *y)
{
    const order_item *a = x, *b = y;
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1;
    if (a->first != b->first)
        return a->first < b->first ? -1 : 1;
    return a->b - b->b;
}

typedef struct range {
    int64_t lo, hi;
} range;

static int by_lo(const void *x, const void *y)
{
    const range *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

bool cg_plan(cg_program *p, graft_error *err)
{
    int n = p->nbuffers;
    order_item *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    range *busy = malloc((size_t)(n ? n : 1) * sizeof *busy);
    bool *placed = calloc((size_t)(n ? n : 1), sizeof *placed);
    if (!order || !busy || !placed) {
        free(order);
        free(busy);
        free(placed);
        return error_set(err, "out of memory");
    }
    int nt = 0;
    cg_memory *m = &p->mem;
    memset(m, 0, sizeof *m);
    m->alignment = ALIGN;
    for (int b = 0; b < n; b++) {
        cg_buffer *buf = &p->buffers[b];
        if (buf->kind != CG_TEMP)
            continue;
        if (buf->first < 0) /* written by no kernel: cannot happen, but keep it sane */
            buf->first = buf->last < 0 ? 0 : buf->last;
        order[nt].b = b;
        order[nt].size = aligned(buf->bytes);
        order[nt].first = buf->first;
        m->sum += order[nt].size;
        nt++;
    }
    qsort(order, (size_t)nt, sizeof *order, by_size);
    for (int t = 0; t < nt; t++) {
        cg_buffer *buf = &p->buffers[order[t].b];
        int nb = 0;
        for (int u = 0; u < t; u++) {
            const cg_buffer *o = &p->buffers[order[u].b];
            if (overlap(p, buf, o))
                busy[nb++] = (range){o->offset, o->offset + (int64_t)order[u].size};
        }
        qsort(busy, (size_t)nb, sizeof *busy, by_lo);
        int64_t best = -1, best_gap = -1, cursor = 0, size = (int64_t)order[t].size;
        for (int r = 0; r < nb; r++) {
            if (busy[r].lo > cursor) {
                int64_t gap = busy[r].lo - cursor;
                if (gap >= size && (best_gap < 0 || gap < best_gap)) {
                    best = cursor;
                    best_gap = gap;
                }
            }
            if (busy[r].hi > cursor)
                cursor = busy[r].hi;
        }
        buf->offset = best >= 0 ? best : cursor;
        placed[order[t].b] = true;
        if ((size_t)buf->offset + order[t].size > m->arena)
            m->arena = (size_t)buf->offset + order[t].size;
    }
    /* the lower bound: most bytes live at one kernel */
    for (int k = 0; k <= p->nkernels; k++) {
        size_t live = 0;
        for (int t = 0; t < nt; t++) {
            const cg_buffer *buf = &p->buffers[order[t].b];
            if (buf->first <= k && k <= live_end(p, buf))
                live += order[t].size;
        }
        if (live > m->peak)
            m->peak = live;
    }
    size_t at = m->arena;
    for (int b = 0; b < n; b++)
        if (p->buffers[b].kind == CG_INPUT) {
            p->buffers[b].offset = (int64_t)at;
            at += aligned(p->buffers[b].bytes);
            m->inputs += aligned(p->buffers[b].bytes);
        }
    size_t wbase = at;
    for (int b = 0; b < n; b++)
        if (p->buffers[b].kind == CG_WEIGHT) {
            p->buffers[b].offset = (int64_t)at;
            p->buffers[b].weight_offset = (int64_t)(at - wbase);
            at += aligned(p->buffers[b].bytes);
            m->weights += aligned(p->buffers[b].bytes);
        }
    m->total = at;
    p->planned = true;
    free(order);
    free(busy);
    free(placed);
    return true;
}

bool cg_plan_check(const cg_program *p, graft_error *err)
{
    if (!p->planned)
        return error_set(err, "the program has no memory plan");
    for (int a = 0; a < p->nbuffers; a++) {
        const cg_buffer *x = &p->buffers[a];
        if (x->offset < 0 || (size_t)x->offset + x->bytes > p->mem.total)
            return error_set(err, "buffer %d [%lld, +%zu) lies outside the allocation of %zu", a,
                             (long long)x->offset, x->bytes, p->mem.total);
        if (x->kind == CG_TEMP && (size_t)x->offset + x->bytes > p->mem.arena)
            return error_set(err, "buffer %d lies outside the arena", a);
        if (x->offset % ALIGN)
            return error_set(err, "buffer %d is not %d-byte aligned", a, ALIGN);
        for (int b = a + 1; b < p->nbuffers; b++) {
            const cg_buffer *y = &p->buffers[b];
            bool both_live = x->kind != CG_TEMP || y->kind != CG_TEMP || overlap(p, x, y);
            bool share = x->offset < y->offset + (int64_t)y->bytes &&
                         y->offset < x->offset + (int64_t)x->bytes;
            if (both_live && share)
                return error_set(err, "buffers %d and %d are live together and overlap", a, b);
        }
    }
    if (p->mem.arena < p->mem.peak)
        return error_set(err, "arena %zu is below the peak of live bytes %zu", p->mem.arena,
                         p->mem.peak);
    return true;
}

/* ---- plan.json ---- */

static void json_string(cg_text *t, const char *s)
{
    cg_puts(t, "\"");
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            cg_printf(t, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            cg_printf(t, "\\u%04x", (unsigned char)*s);
        else
            cg_printf(t, "%c", *s);
    }
    cg_puts(t, "\"");
}

static void json_ints(cg_text *t, const int64_t *v, int n)
{
    cg_puts(t, "[");
    for (int k = 0; k < n; k++)
        cg_printf(t, "%s%lld", k ? ", " : "", (long long)v[k]);
    cg_puts(t, "]");
}

static const char *short_type(graft_type t)
{
    static const char *const names[] = {"bool", "half", "float", "double", "uint8", "int8",
                                        "uint16", "int16", "int32", "int64", "uint32", "uint64",
                                        "bf16", "tuple"};
    return (int)t >= 0 && t < GRAFT_TYPE_COUNT ? names[t] : "?";
}

static void json_access(cg_text *t, const cg_access *a)
{
    cg_printf(t, "\"buffer\": %d, \"levels\": [", a->buffer);
    for (int l = 0; l < a->nlevels; l++) {
        cg_printf(t, "%s{\"lens\": ", l ? ", " : "");
        json_ints(t, a->lv[l].lens, a->lv[l].rank);
        cg_puts(t, ", \"strides\": ");
        json_ints(t, a->lv[l].strides, a->lv[l].rank);
        cg_printf(t, ", \"offset\": %lld}", (long long)a->lv[l].offset);
    }
    cg_puts(t, "]");
}

char *cg_plan_json(const cg_program *p, const char *const *archs, int narchs)
{
    cg_text t = {0};
    const cg_memory *m = &p->mem;
    cg_puts(&t, "{\n  \"format\": \"graft-plan-1\",\n  \"graph\": ");
    json_string(&t, p->graph_name ? p->graph_name : "");
    cg_puts(&t, ",\n  \"archs\": [");
    for (int a = 0; a < narchs; a++) {
        cg_puts(&t, a ? ", " : "");
        json_string(&t, archs[a]);
    }
    cg_printf(&t, "],\n  \"memory\": {\"alignment\": %zu, \"arena_bytes\": %zu, \"sum_bytes\": %zu, "
                  "\"peak_live_bytes\": %zu, \"inputs_bytes\": %zu, \"weights_bytes\": %zu, "
                  "\"total_bytes\": %zu, \"arena_over_peak\": %.4f, \"arena_over_sum\": %.4f},\n",
              m->alignment, m->arena, m->sum, m->peak, m->inputs, m->weights, m->total,
              m->peak ? (double)m->arena / (double)m->peak : 1.0,
              m->sum ? (double)m->arena / (double)m->sum : 1.0);
    cg_puts(&t, "  \"kernels\": [\n");
    for (int k = 0; k < p->nkernels; k++) {
        const cg_kernel *kn = &p->kernels[k];
        cg_printf(&t, "    {\"launch\": %d, \"name\": ", k);
        json_string(&t, kn->name);
        cg_printf(&t, ", \"kind\": \"%s\", \"source\": ", kn->kind);
        char file[300];
        snprintf(file, sizeof file, "%s.hip", kn->name);
        json_string(&t, file);
        cg_printf(&t, ", \"grid\": [%u, 1, 1], \"block\": [%u, 1, 1], \"shared_bytes\": 0, "
                      "\"barriers\": %s, \"args\": [",
                  kn->grid, kn->block, kn->barriers ? "true" : "false");
        for (int a = 0; a < kn->nargs; a++)
            cg_printf(&t, "%s{\"buffer\": %d, \"written\": %s}", a ? ", " : "", kn->args[a],
                      kn->writes[a] ? "true" : "false");
        cg_puts(&t, "], \"instructions\": ");
        json_string(&t, kn->origin);
        cg_printf(&t, "}%s\n", k + 1 < p->nkernels ? "," : "");
    }
    cg_puts(&t, "  ],\n  \"loops\": [");
    for (int l = 0; l < p->nloops; l++) {
        const cg_loop *lp = &p->loops[l];
        char lab[160];
        cg_printf(&t, "%s\n    {\"ins\": ", l ? "," : "");
        json_string(&t, cg_label(p, lp->ins, lab, sizeof lab));
        cg_printf(&t, ", \"body\": [%d, %d], \"trip_count\": {\"buffer\": %d, \"element\": %lld}, "
                      "\"condition\": {\"buffer\": %d, \"element\": 0}, \"max_iterations\": %lld}",
                  lp->first, lp->end, lp->trips_buffer, (long long)lp->trips_offset,
                  lp->cond_buffer, (long long)lp->max_iterations);
    }
    cg_puts(&t, p->nloops ? "\n  ],\n  \"buffers\": [\n" : "],\n  \"buffers\": [\n");
    static const char *const kinds[] = {"temp", "input", "weight"};
    for (int b = 0; b < p->nbuffers; b++) {
        const cg_buffer *buf = &p->buffers[b];
        cg_printf(&t, "    {\"id\": %d, \"kind\": \"%s\", \"offset\": %lld, \"bytes\": %zu, "
                      "\"type\": \"%s\", \"lens\": ",
                  b, kinds[buf->kind], (long long)buf->offset, buf->bytes,
                  short_type(buf->sh.type));
        json_ints(&t, buf->sh.lens, buf->sh.rank);
        cg_puts(&t, ", \"strides\": ");
        json_ints(&t, buf->sh.strides, buf->sh.rank);
        if (buf->kind == CG_TEMP)
            cg_printf(&t, ", \"live\": [%d, %d]", buf->first, live_end(p, buf));
        if (buf->kind == CG_WEIGHT)
            cg_printf(&t, ", \"weights_offset\": %lld", (long long)buf->weight_offset);
        if (buf->output)
            cg_puts(&t, ", \"output\": true");
        cg_puts(&t, ", \"ins\": ");
        char l[160];
        json_string(&t, buf->ins ? cg_label(p, buf->ins, l, sizeof l) : "");
        if (buf->tuple_index >= 0)
            cg_printf(&t, ", \"tuple_index\": %d", buf->tuple_index);
        if (buf->scratch)
            cg_printf(&t, ", \"scratch\": %d", buf->scratch - 1);
        cg_printf(&t, "}%s\n", b + 1 < p->nbuffers ? "," : "");
    }
    cg_puts(&t, "  ],\n  \"bindings\": {\n    \"inputs\": [");
    int first = 1;
    for (int b = 0; b < p->nbuffers; b++) {
        const cg_buffer *buf = &p->buffers[b];
        if (buf->kind != CG_INPUT)
            continue;
        cg_printf(&t, "%s\n      {\"name\": ", first ? "" : ",");
        json_string(&t, buf->ins->param);
        cg_printf(&t, ", \"buffer\": %d, \"type\": \"%s\", \"lens\": ", b,
                  short_type(buf->sh.type));
        json_ints(&t, buf->sh.lens, buf->sh.rank);
        cg_puts(&t, ", \"strides\": ");
        json_ints(&t, buf->sh.strides, buf->sh.rank);
        cg_puts(&t, "}");
        first = 0;
    }
    cg_puts(&t, "\n    ],\n    \"weights\": {\"file\": \"weights.bin\", \"buffers\": [");
    first = 1;
    for (int b = 0; b < p->nbuffers; b++)
        if (p->buffers[b].kind == CG_WEIGHT) {
            cg_printf(&t, "%s%d", first ? "" : ", ", b);
            first = 0;
        }
    cg_puts(&t, "]},\n    \"outputs\": [");
    for (int o = 0; o < p->noutputs; o++) {
        cg_printf(&t, "%s\n      {\"name\": \"output%d\", \"type\": \"%s\", \"lens\": ",
                  o ? "," : "", o, short_type(p->outputs[o].sh.type));
        json_ints(&t, p->outputs[o].sh.lens, p->outputs[o].sh.rank);
        cg_puts(&t, ", ");
        json_access(&t, &p->outputs[o].acc);
        cg_puts(&t, "}");
    }
    cg_puts(&t, "\n    ]\n  }\n}\n");
    if (t.failed) {
        cg_text_free(&t);
        return NULL;
    }
    return cg_text_take(&t);
}

/* ---- writing DIR ---- */

static bool make_dir(const char *dir, graft_error *err)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return error_set(err, "cannot create directory %s: %s", dir, strerror(errno));
    return true;
}

bool cg_write_dir(const cg_program *p, const char *dir, const char *const *archs, int narchs,
                  graft_error *err)
{
    if (!make_dir(dir, err))
        return false;
    char path[4096];
    snprintf(path, sizeof path, "%s/graft_kernel.h", dir);
    if (!write_file_atomic(path, cg_kernel_header, strlen(cg_kernel_header), err))
        return false;
    for (int k = 0; k < p->nkernels; k++) {
        snprintf(path, sizeof path, "%s/%s.hip", dir, p->kernels[k].name);
        if (!write_file_atomic(path, p->kernels[k].source, strlen(p->kernels[k].source), err))
            return false;
    }
    size_t wbytes = p->mem.weights;
    char *w = calloc(1, wbytes ? wbytes : 1);
    if (!w)
        return error_set(err, "out of memory for weights.bin");
    for (int b = 0; b < p->nbuffers; b++) {
        const cg_buffer *buf = &p->buffers[b];
        if (buf->kind == CG_WEIGHT && buf->ins->data)
            memcpy(w + buf->weight_offset, buf->ins->data, shape_bytes(&buf->sh));
    }
    snprintf(path, sizeof path, "%s/weights.bin", dir);
    bool ok = write_file_atomic(path, w, wbytes, err);
    free(w);
    if (!ok)
        return false;
    char *json = cg_plan_json(p, archs, narchs);
    if (!json)
        return error_set(err, "out of memory for plan.json");
    snprintf(path, sizeof path, "%s/plan.json", dir);
    ok = write_file_atomic(path, json, strlen(json), err);
    free(json);
    return ok;
}
