/* emit_reduce.c: reductions (reduce_sum, reduce_mean, reduce_max,
 * reduce_min, reduce_prod over any axes) and softmax / logsoftmax.
 *
 * The input's axes split into kept ones (one output each, linear index o)
 * and reduced ones (linear index r). An element's offset is a part from o,
 * computed once per output, plus a part from r; runs of reduced axes that
 * are contiguous merge, so a row reduction walks memory with one index.
 *
 * Two strategies, chosen by the reduced length and the strides (as
 * MIGraphX's reduce lowering does):
 *  - lane: one thread per output walks its reduced elements serially. For
 *    short reductions (fewer than 32 elements) and for column reductions
 *    (every reduced stride above 2, many outputs), where neighbouring
 *    threads then read neighbouring memory.
 *  - block: one block per output (grid-stride over outputs). Each thread
 *    folds a strided share, a wave folds its lanes with __shfl_down over the
 *    wave size the hardware has (warpSize: 64 on gfx90a, 32 on gfx1030),
 *    the first lane of each wave writes shared memory, and after
 *    __syncthreads thread 0 folds the waves' partial results.
 * Accumulation is in float for half and float, double for double, and
 * 64-bit integers for integers. max/min propagate NaN as the reference does.
 *
 * Fused regions of pointwise ops and reductions (cg_emit_reduce_region)
 * keep the row's inputs in registers when it fits, and split rows longer
 * than CG_SPLIT_ROW over several kernels that pass partial results through
 * scratch buffers.
 */
#include "cg_emit.h"

#include "ops_util.h"

#include <stdio.h>
#include <string.h>

typedef struct row {
    int64_t nout, nred;
    cg_level kept, red;        /* over the input's strides */
    cg_level kept_std, red_std; /* over standard strides (multi-level inputs) */
    int64_t min_red_stride;
} row;

static void split(const cg_level *lv, const bool *reduced, row *r)
{
    int64_t std[SHAPE_MAX_RANK];
    cg_standard_strides(lv->rank, lv->lens, std);
    memset(r, 0, sizeof *r);
    r->nout = r->nred = 1;
    r->min_red_stride = -1;
    r->kept.offset = lv->offset;
    for (int d = 0; d < lv->rank; d++) {
        cg_level *a = reduced[d] ? &r->red : &r->kept;
        cg_level *b = reduced[d] ? &r->red_std : &r->kept_std;
        a->lens[a->rank] = b->lens[b->rank] = lv->lens[d];
        a->strides[a->rank++] = lv->strides[d];
        b->strides[b->rank++] = std[d];
        if (reduced[d]) {
            r->nred *= lv->lens[d];
            if (lv->lens[d] > 1 && (r->min_red_stride < 0 || lv->strides[d] < r->min_red_stride))
                r->min_red_stride = lv->strides[d];
        } else {
            r->nout *= lv->lens[d];
        }
    }
}

/* Declares `name` = the part of a's offset from output index o (single-level
 * accesses), or the part of its linear index (multi-level ones). */
static void emit_base(cg_kgen *g, const cg_access *a, const row *r, const char *name, int indent)
{
    char e[1024];
    cg_level_linear(a->nlevels == 1 ? &r->kept : &r->kept_std, "o", g->idx, e, sizeof e);
    cg_printf(&g->body, "%*sconst %s %s = %s;\n", indent, "", g->idx, name, e);
}

/* The offset expression of a at reduced index rv given base. */
static void offset_at(cg_kgen *g, const cg_access *a, const row *r, const char *base,
                      const char *rv, int indent, char *out, size_t size)
{
    char e[1024];
    cg_level_linear(a->nlevels == 1 ? &r->red : &r->red_std, rv, g->idx, e, sizeof e);
    if (a->nlevels == 1) {
        snprintf(out, size, "%s + %s", base, e);
    } else {
        char j[1200], name[32];
        snprintf(j, sizeof j, "%s + %s", base, e);
        cg_fresh(g, name, sizeof name);
        cg_printf(&g->body, "%*sconst %s %s = %s;\n", indent, "", g->idx, name, j);
        cg_offset_linear(g, a, name, indent, out, size);
    }
}

static void element_at(cg_kgen *g, const cg_access *a, const row *r, const char *base,
                       const char *rv, int indent, char *out, size_t size)
{
    char off[1400];
    offset_at(g, a, r, base, rv, indent, off, sizeof off);
    cg_element(g, a, off, out, size);
}

typedef cg_combine_kind combine_kind;

void cg_combine(combine_kind k, const char *ct, const char *a, const char *b, char *out,
                    size_t size)
{
    bool ints = strcmp(ct, "long long") == 0;
    switch (k) {
    case C_SUM:
        if (ints)
            snprintf(out, size, "(long long)((unsigned long long)%s + (unsigned long long)%s)", a, b);
        else
            snprintf(out, size, "%s + %s", a, b);
        break;
    case C_PROD:
        if (ints)
            snprintf(out, size, "(long long)((unsigned long long)%s * (unsigned long long)%s)", a, b);
        else
            snprintf(out, size, "%s * %s", a, b);
        break;
    case C_MAX:
        if (ints)
            snprintf(out, size, "(%s > %s ? %s : %s)", b, a, b, a);
        else
            snprintf(out, size, "(%s != %s ? %s : (%s > %s || %s != %s) ? %s : %s)", a, a, a, b, a,
                     b, b, b, a);
        break;
    case C_MIN:
        if (ints)
            snprintf(out, size, "(%s < %s ? %s : %s)", b, a, b, a);
        else
            snprintf(out, size, "(%s != %s ? %s : (%s < %s || %s != %s) ? %s : %s)", a, a, a, b, a,
                     b, b, b, a);
        break;
    }
}

cg_combine_kind cg_combine_of(const ins *r)
{
    const char *name = r->op->name;
    return strcmp(name, "reduce_prod") == 0  ? C_PROD
           : strcmp(name, "reduce_max") == 0 ? C_MAX
           : strcmp(name, "reduce_min") == 0 ? C_MIN
                                             : C_SUM;
}

const char *cg_combine_init(combine_kind k, const char *ct)
{
    bool ints = strcmp(ct, "long long") == 0, dbl = strcmp(ct, "double") == 0;
    switch (k) {
    case C_SUM: return "0";
    case C_PROD: return "1";
    case C_MAX: return ints ? "(-9223372036854775807LL - 1)" : dbl ? "-GRAFT_INF_D" : "-GRAFT_INF";
    default: return ints ? "9223372036854775807LL" : dbl ? "GRAFT_INF_D" : "GRAFT_INF";
    }
}

/* Folds `acc` over the block: waves with __shfl_down, then shared memory.
 * With broadcast, every thread ends with the result in acc; otherwise only
 * thread 0 has it. */
void cg_block_fold(cg_kgen *g, const char *ct, combine_kind k, const char *part, bool broadcast,
                   int indent)
{
    char c[512];
    cg_combine(k, ct, "acc", "other", c, sizeof c);
    cg_printf(&g->body,
              "%*sfor (int s = GRAFT_WAVE / 2; s > 0; s /= 2) {\n"
              "%*s    const %s other = __shfl_down(acc, s, GRAFT_WAVE);\n"
              "%*s    acc = %s;\n"
              "%*s}\n"
              "%*sif (threadIdx.x %% GRAFT_WAVE == 0)\n"
              "%*s    %s[threadIdx.x / GRAFT_WAVE] = acc;\n"
              "%*s__syncthreads();\n",
              indent, "", indent, "", ct, indent, "", c, indent, "", indent, "", indent, "", part,
              indent, "");
    cg_printf(&g->body,
              "%*sif (threadIdx.x == 0) {\n"
              "%*s    acc = %s[0];\n"
              "%*s    for (unsigned w = 1; w < blockDim.x / GRAFT_WAVE; w++) {\n"
              "%*s        const %s other = %s[w];\n"
              "%*s        acc = %s;\n"
              "%*s    }\n",
              indent, "", indent, "", part, indent, "", indent, "", ct, part, indent, "", c,
              indent, "");
    if (broadcast)
        cg_printf(&g->body,
                  "%*s    %s[0] = acc;\n"
                  "%*s}\n"
                  "%*s__syncthreads();\n"
                  "%*sacc = %s[0];\n"
                  "%*s__syncthreads();\n",
                  indent, "", part, indent, "", indent, "", indent, "", part, indent, "");
    /* else: thread 0's block stays open for the caller's store */
}

int cg_partial_index(const char *ct)
{
    return strcmp(ct, "float") == 0 ? 0 : strcmp(ct, "double") == 0 ? 1 : 2;
}

const char *cg_partial_array(const char *ct)
{
    static const char *const names[CG_PARTIAL_TYPES] = {"part_f", "part_d", "part_i"};
    return names[cg_partial_index(ct)];
}

void cg_declare_partials(cg_kgen *g, const bool need[CG_PARTIAL_TYPES])
{
    static const char *const types[CG_PARTIAL_TYPES] = {"float", "double", "long long"};
    for (int k = 0; k < CG_PARTIAL_TYPES; k++)
        if (need[k])
            cg_printf(&g->body, "    __shared__ %s %s[32];\n", types[k], cg_partial_array(types[k]));
}

static unsigned block_size_for(int64_t nred)
{
    int64_t b = (nred + 63) / 64 * 64;
    return b < 64 ? 64 : b > 256 ? 256 : (unsigned)b;
}

static void open_outputs(cg_kgen *g, const row *r, bool lane)
{
    const char *u = strcmp(g->idx, "unsigned") == 0 ? "u" : "ull";
    if (lane) {
        g->block = 256;
        g->grid = cg_grid_for(r->nout, g->block);
        cg_printf(&g->body,
                  "    for (%s o = (%s)blockIdx.x * blockDim.x + threadIdx.x; o < %lld%s;\n"
                  "         o += (%s)gridDim.x * blockDim.x) {\n",
                  g->idx, g->idx, (long long)r->nout, u, g->idx);
    } else {
        g->block = block_size_for(r->nred);
        g->grid = r->nout < CG_MAX_GRID ? (unsigned)(r->nout > 0 ? r->nout : 1) : CG_MAX_GRID;
        g->barriers = true;
        cg_printf(&g->body, "    for (%s o = blockIdx.x; o < %lld%s; o += gridDim.x) {\n", g->idx,
                  (long long)r->nout, u);
    }
}

static void reduced_loop(cg_kgen *g, const row *r, bool lane, int indent)
{
    const char *u = strcmp(g->idx, "unsigned") == 0 ? "u" : "ull";
    if (lane)
        cg_printf(&g->body, "%*sfor (%s r = 0; r < %lld%s; r++) {\n", indent, "", g->idx,
                  (long long)r->nred, u);
    else
        cg_printf(&g->body, "%*sfor (%s r = threadIdx.x; r < %lld%s; r += blockDim.x) {\n", indent,
                  "", g->idx, (long long)r->nred, u);
}

/* The loop over a row's elements when the row is kept in registers: each
 * thread's elements are slots u = 0 .. R-1 of per-thread arrays (a
 * constant bound, so the arrays live in registers). */
static void kept_loop(cg_kgen *g, const row *r, bool lane, int64_t R, int indent)
{
    const char *u = strcmp(g->idx, "unsigned") == 0 ? "u" : "ull";
    cg_printf(&g->body, "%*sfor (unsigned u = 0; u < %lldu; u++) {\n", indent, "", (long long)R);
    if (lane)
        cg_printf(&g->body, "%*s    const %s r = u;\n", indent, "", g->idx);
    else
        cg_printf(&g->body, "%*s    const %s r = threadIdx.x + u * blockDim.x;\n", indent, "",
                  g->idx);
    cg_printf(&g->body, "%*s    if (r >= %lld%s)\n%*s        break;\n", indent, "",
              (long long)r->nred, u, indent, "");
}

bool cg_emit_reduce(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    const char *name = i->op->name;
    combine_kind k = strcmp(name, "reduce_prod") == 0  ? C_PROD
                     : strcmp(name, "reduce_max") == 0 ? C_MAX
                     : strcmp(name, "reduce_min") == 0 ? C_MIN
                                                       : C_SUM;
    bool mean = strcmp(name, "reduce_mean") == 0;
    const shape *xs = &i->args[0]->sh;
    bool reduced[SHAPE_MAX_RANK];
    shape inputs[1] = {*xs};
    op_call call;
    ins_op_call(i, &call, inputs);
    if (!ops_reduce_axes(&call, xs->rank, reduced, g->err))
        return cg_fail(g, "%s", g->err ? g->err->message : "reduce axes");
    row r;
    split(&in[0].lv[0], reduced, &r);
    /* the output: same split over its own strides (reduced axes have length 1) */
    row ro;
    split(&out[0].lv[0], reduced, &ro);
    bool lane = r.nred < 32 || (r.min_red_stride > 2 && r.nout >= 256);
    g->kind = lane ? "reduce_lane" : "reduce_block";
    const char *ct = cg_compute_type(xs->type);
    char c[512], el[1600];
    cg_combine(k, ct, "acc", "v", c, sizeof c);
    if (!lane)
        cg_printf(&g->body, "    __shared__ %s part[32];\n", ct);
    open_outputs(g, &r, lane);
    emit_base(g, &in[0], &r, "base", 8);
    cg_printf(&g->body, "        %s acc = %s;\n", ct, cg_combine_init(k, ct));
    reduced_loop(g, &r, lane, 8);
    element_at(g, &in[0], &r, "base", "r", 12, el, sizeof el);
    cg_printf(&g->body, "            const %s v = (%s)%s;\n            acc = %s;\n        }\n", ct,
              ct, el, c);
    if (!lane)
        cg_block_fold(g, ct, k, "part", false, 8);
    char res[256], conv[1400], off[1100];
    if (mean)
        snprintf(res, sizeof res, "acc / (%s)%lld", ct, (long long)r.nred);
    else
        snprintf(res, sizeof res, "acc");
    cg_store_conversion(i->sh.type, ct, res, conv, sizeof conv);
    cg_level_linear(&ro.kept, "o", g->idx, off, sizeof off);
    int po = cg_param(g, out[0].buffer, true);
    if (lane)
        cg_printf(&g->body, "        p%d[%s] = %s;\n", po, off, conv);
    else
        cg_printf(&g->body, "            p%d[%s] = %s;\n        }\n        __syncthreads();\n", po,
                  off, conv);
    cg_puts(&g->body, "    }\n");
    return !g->failed;
}

/* Splits input and output at i's one reduced axis (attribute "axis",
 * negative counting from the end). */
static bool split_at_axis(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out,
                          row *r, row *ro)
{
    const shape *xs = &i->args[0]->sh;
    int64_t axis = ins_attr(i, "axis")->u.i;
    if (axis < 0)
        axis += xs->rank;
    if (axis < 0 || axis >= xs->rank)
        return cg_fail(g, "%s: axis out of range", i->opname);
    bool reduced[SHAPE_MAX_RANK] = {false};
    reduced[axis] = true;
    split(&in[0].lv[0], reduced, r);
    split(&out[0].lv[0], reduced, ro);
    return true;
}

bool cg_emit_softmax(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    bool log_form = strcmp(i->op->name, "logsoftmax") == 0;
    const shape *xs = &i->args[0]->sh;
    row r, ro;
    if (!split_at_axis(g, i, in, out, &r, &ro))
        return false;
    bool lane = r.nred < 32 || (r.min_red_stride > 2 && r.nout >= 256);
    g->kind = lane ? "softmax_lane" : "softmax_block";
    const char *ct = cg_compute_type(xs->type);
    bool dbl = strcmp(ct, "double") == 0;
    if (strcmp(ct, "long long") == 0)
        return cg_fail(g, "not lowered yet: %s on %s", i->opname, type_name(xs->type));
    const char *ex = dbl ? "exp" : "expf", *lg = dbl ? "log" : "logf";
    char el[1600], c[512];
    if (!lane)
        cg_printf(&g->body, "    __shared__ %s part[32];\n", ct);
    open_outputs(g, &r, lane);
    emit_base(g, &in[0], &r, "base", 8);
    /* max */
    cg_combine(C_MAX, ct, "acc", "v", c, sizeof c);
    cg_printf(&g->body, "        %s acc = %s;\n", ct, cg_combine_init(C_MAX, ct));
    reduced_loop(g, &r, lane, 8);
    element_at(g, &in[0], &r, "base", "r", 12, el, sizeof el);
    cg_printf(&g->body, "            const %s v = (%s)%s;\n            acc = %s;\n        }\n", ct,
              ct, el, c);
    if (!lane)
        cg_block_fold(g, ct, C_MAX, "part", true, 8);
    cg_printf(&g->body, "        const %s m = acc;\n        acc = 0;\n", ct);
    /* sum of exponentials */
    reduced_loop(g, &r, lane, 8);
    element_at(g, &in[0], &r, "base", "r", 12, el, sizeof el);
    cg_printf(&g->body, "            acc += %s((%s)%s - m);\n        }\n", ex, ct, el);
    if (!lane)
        cg_block_fold(g, ct, C_SUM, "part", true, 8);
    cg_printf(&g->body, "        const %s s = acc;\n", ct);
    /* write */
    emit_base(g, &out[0], &ro, "obase", 8);
    reduced_loop(g, &r, lane, 8);
    element_at(g, &in[0], &r, "base", "r", 12, el, sizeof el);
    char ooff[1600], val[2048], conv[2400];
    offset_at(g, &out[0], &ro, "obase", "r", 12, ooff, sizeof ooff);
    int po = cg_param(g, out[0].buffer, true);
    if (log_form)
        snprintf(val, sizeof val, "(%s)%s - m - %s(s)", ct, el, lg);
    else
        snprintf(val, sizeof val, "%s((%s)%s - m) / s", ex, ct, el);
    cg_store_conversion(i->sh.type, ct, val, conv, sizeof conv);
    cg_printf(&g->body, "            p%d[%s] = %s;\n        }\n", po, ooff, conv);
    cg_puts(&g->body, "    }\n");
    return !g->failed;
}

/* ---- regions with reductions ---- */

/* A `fused` region whose body holds reductions (all over the same axes of
 * the same lens L) and pointwise ops, views and reshapes around them, as
 * fusion rules build for layernorm, groupnorm or softmax: one kernel, one
 * block (or lane) per row of kept indices. Each reduction in body order
 * folds its input, evaluated element by element from the region's
 * operands, over the row, and becomes a per-row value every later
 * expression reads (broadcasts of it back to L cost nothing). Outputs with
 * lens L are written by a final pass over the row; outputs with the
 * reduced lens by one thread. Values are recomputed, not kept in
 * registers or shared memory between passes: correct first. */
/* Whether user is the only user of v in body (the return included). */
static bool only_user(const module *body, const ins *v, const ins *user)
{
    for (const ins *b = body->first; b; b = b->next)
        for (int k = 0; k < b->nargs; k++)
            if (b->args[k] == v && b != user)
                return false;
    return true;
}

/* Whether v depends on a reduction of body (or is one). */
static bool depends_on_reduction(const module *body, const ins *v)
{
    const ins *dep[512];
    int n = 0;
    for (const ins *b = body->first; b; b = b->next) {
        bool d = (b->op->classes & OPC_REDUCE) != 0;
        for (int k = 0; !d && k < b->nargs; k++)
            for (int q = 0; !d && q < n; q++)
                d = dep[q] == b->args[k];
        if (d && n < 512)
            dep[n++] = b;
        if (b == v)
            return d || n == 512;
    }
    return true;
}

/* In a pass at element index j: the kept values already stored are read
 * from their arrays. */
static void bind_kept(cg_pw *c, const ins *const *kept, const char *const *type, const bool *set,
                      int n, const char *j)
{
    for (int q = 0; q < n; q++)
        if (set[q]) {
            char var[24];
            snprintf(var, sizeof var, "keep%d[u]", q);
            cg_pw_bind(c, kept[q], j, var, type[q]);
        }
}

/* After the pass computed its reduction's input at j: the kept values it
 * computed on the way are stored (each once, in its first pass). */
static bool store_kept(cg_kgen *g, cg_pw *c, const ins *const *kept, bool *set, int n,
                       const char *j, int indent)
{
    for (int q = 0; q < n; q++) {
        if (set[q])
            continue;
        char var[32];
        const char *vt;
        if (!cg_pw_value(c, kept[q], j, var, sizeof var, &vt))
            return false;
        cg_printf(&g->body, "%*skeep%d[u] = %s;\n", indent, "", q, var);
        set[q] = true;
    }
    return true;
}

/* Whether v depends on instruction on (or is it). */
static bool depends_on(const module *body, const ins *v, const ins *on)
{
    const ins *dep[512];
    int n = 0;
    for (const ins *b = body->first; b; b = b->next) {
        bool d = b == on;
        for (int k = 0; !d && k < b->nargs; k++)
            for (int q = 0; !d && q < n; q++)
                d = dep[q] == b->args[k];
        if (d && n < 512)
            dep[n++] = b;
        if (b == v)
            return d || n == 512;
    }
    return false;
}

/* Stores, at index `idx`, every region output k whose full[k] equals
 * want_full: the outputs with one value per element of the reduced input
 * (full), or with one value per row. */
static bool store_outputs(cg_pw *c, const ins *ret, const cg_access *out, int nout,
                          const bool *full, bool want_full, const char *idx)
{
    bool ok = true;
    for (int k = 0; ok && k < nout; k++) {
        if (full[k] != want_full)
            continue;
        ok = cg_pw_store_value(c, ret->args[k], &out[k], idx);
    }
    return ok;
}

/* Rows longer than CG_SPLIT_ROW: each row splits into chunks of
 * CG_SPLIT_CHUNK elements, one block per (row, chunk), over several
 * kernels. A reduction's level is how many reductions its input waits for
 * (LayerNorm's variance waits for the mean: level 1). Kernel p (named
 * ..._part_k<n>) folds the level-p reductions of its chunk and stores one
 * partial per (row, chunk) in a scratch buffer: plain stores, so nothing
 * has to be zeroed first and no atomics are needed. Every later kernel's
 * blocks fold their row's partials (in the same order, so every block gets
 * the same value), and the last kernel writes the outputs: per element
 * over its chunk, per row from chunk 0. */
static bool reduce_region_split(cg_kgen *g, const ins *i, const cg_access *in,
                                const cg_access *out, int nout, const ins *const *reds,
                                const ins *const *rin, int nreds, const row *r)
{
    const module *body = i->mods[0];
    const ins *ret = module_return(body);
    int level[32], nlevels = 0;
    for (int k = 0; k < nreds; k++) {
        level[k] = 0;
        for (int q = 0; q < k; q++)
            if (level[q] + 1 > level[k] && depends_on(body, rin[k], reds[q]))
                level[k] = level[q] + 1;
        if (level[k] + 1 > nlevels)
            nlevels = level[k] + 1;
    }
    int pass = g->pass;
    bool final = pass == nlevels;
    g->npasses = nlevels + 1;
    int64_t chunks = (r->nred + CG_SPLIT_CHUNK - 1) / CG_SPLIT_CHUNK, nw = r->nout * chunks;
    const char *I = g->idx, *u = strcmp(I, "unsigned") == 0 ? "u" : "ull";
    g->kind = final ? "fused_reduce_split" : "fused_reduce_split_part";
    if (!final) {
        char *k = strrchr(g->name, 'k');
        char tail[32];
        if (k && k > g->name && k[-1] == '_' && strlen(g->name) + 6 < sizeof g->name) {
            snprintf(tail, sizeof tail, "%s", k - 1);
            snprintf(k - 1, sizeof g->name - (size_t)(k - 1 - g->name), "_part%s", tail);
        }
    }
    g->block = 256;
    g->grid = nw < CG_MAX_GRID ? (unsigned)nw : CG_MAX_GRID;
    g->barriers = true;
    int scratch[32];
    bool need[CG_PARTIAL_TYPES] = {false, false, false};
    for (int k = 0; k < nreds; k++) {
        const char *ct = cg_compute_type(rin[k]->sh.type);
        graft_type t = strcmp(ct, "float") == 0    ? GRAFT_FLOAT
                       : strcmp(ct, "double") == 0 ? GRAFT_DOUBLE
                                                   : GRAFT_INT64;
        if ((scratch[k] = cg_scratch_buffer(g, i, k, t, nw)) < 0)
            return false;
        if (level[k] == pass)
            need[cg_partial_index(ct)] = true;
    }
    cg_printf(&g->body, "    /* %lld rows of %lld elements, %lld chunks of %d per row: %s */\n",
              (long long)r->nout, (long long)r->nred, (long long)chunks, CG_SPLIT_CHUNK,
              final ? "the outputs" : "partial results");
    cg_declare_partials(g, need);
    cg_pw *c = cg_pw_new(g, i, in);
    if (!c)
        return cg_fail(g, "out of memory");
    cg_cite_body(g, body);
    cg_printf(&g->body, "    for (%s w = blockIdx.x; w < %lld%s; w += gridDim.x) {\n", I,
              (long long)nw, u);
    cg_printf(&g->body, "        const %s o = w / %lld%s, ch = w %% %lld%s;\n", I,
              (long long)chunks, u, (long long)chunks, u);
    cg_printf(&g->body, "        const %s rend = ch * %d%s + %d%s < %lld%s ? ch * %d%s + %d%s : "
                        "%lld%s;\n",
              I, CG_SPLIT_CHUNK, u, CG_SPLIT_CHUNK, u, (long long)r->nred, u, CG_SPLIT_CHUNK, u,
              CG_SPLIT_CHUNK, u, (long long)r->nred, u);
    cg_pw_enter(c, 8);
    char e[1024], jexpr[1100];
    cg_level_linear(&r->kept_std, "o", I, e, sizeof e);
    cg_printf(&g->body, "        const %s jb = %s;\n", I, e);
    cg_level_linear(&r->red_std, "r", I, e, sizeof e);
    snprintf(jexpr, sizeof jexpr, "jb + %s", e);
    bool ok = true;
    /* the row's results of earlier levels, from their partials */
    for (int k = 0; ok && k < nreds; k++) {
        if (level[k] >= pass)
            continue;
        const ins *rd = reds[k];
        const char *ct = cg_compute_type(rin[k]->sh.type);
        cg_combine_kind kind = cg_combine_of(rd);
        char cmb[512], red[16];
        snprintf(red, sizeof red, "red%d", k);
        cg_combine(kind, ct, "acc", "v", cmb, sizeof cmb);
        int ps = cg_param(g, scratch[k], false);
        cg_printf(&g->body,
                  "        %s %s;\n        {\n            %s acc = %s;\n"
                  "            for (%s q = 0; q < %lld%s; q++) {\n"
                  "                const %s v = p%d[o * %lld%s + q];\n"
                  "                acc = %s;\n            }\n",
                  ct, red, ct, cg_combine_init(kind, ct), I, (long long)chunks, u, ct, ps,
                  (long long)chunks, u, cmb);
        if (ins_is(rd, "reduce_mean"))
            cg_printf(&g->body, "            %s = acc / (%s)%lld;\n        }\n", red, ct,
                      (long long)r->nred);
        else
            cg_printf(&g->body, "            %s = acc;\n        }\n", red);
        if (rd->sh.type == GRAFT_HALF)
            cg_printf(&g->body, "        %s = (float)(__half)%s;\n", red, red);
        cg_pw_fix(c, rd, red, ct);
    }
    if (!final) {
        for (int k = 0; ok && k < nreds; k++) {
            if (level[k] != pass)
                continue;
            const ins *rd = reds[k];
            const char *ct = cg_compute_type(rin[k]->sh.type);
            cg_combine_kind kind = cg_combine_of(rd);
            char cmb[512], v[32], cv[64];
            const char *vt;
            cg_printf(&g->body, "        {\n            %s acc = %s;\n", ct,
                      cg_combine_init(kind, ct));
            cg_printf(&g->body, "            for (%s r = ch * %d%s + threadIdx.x; r < rend; r += "
                                "blockDim.x) {\n",
                      I, CG_SPLIT_CHUNK, u);
            cg_pw_enter(c, 16);
            cg_printf(&g->body, "                const %s j = %s;\n", I, jexpr);
            ok = cg_pw_value(c, rin[k], "j", v, sizeof v, &vt);
            snprintf(cv, sizeof cv, "(%s)%s", ct, v);
            cg_combine(kind, ct, "acc", cv, cmb, sizeof cmb);
            cg_printf(&g->body, "                acc = %s;\n            }\n", cmb);
            cg_pw_leave(c, 12);
            cg_block_fold(g, ct, kind, cg_partial_array(ct), true, 12);
            cg_printf(&g->body, "            if (threadIdx.x == 0)\n                p%d[w] = acc;\n"
                                "        }\n",
                      cg_param(g, scratch[k], true));
        }
    } else {
        bool any_row = false, any_full = false, full[64];
        for (int k = 0; k < nout; k++) {
            full[k] = shape_elements(&ret->args[k]->sh) == r->nout * r->nred;
            any_row |= !full[k];
            any_full |= full[k];
        }
        if (ok && any_full) {
            cg_printf(&g->body, "        for (%s r = ch * %d%s + threadIdx.x; r < rend; r += "
                                "blockDim.x) {\n",
                      I, CG_SPLIT_CHUNK, u);
            cg_pw_enter(c, 12);
            cg_printf(&g->body, "            const %s j = %s;\n", I, jexpr);
            ok = store_outputs(c, ret, out, nout, full, true, "j");
            cg_pw_leave(c, 8);
            cg_puts(&g->body, "        }\n");
        }
        if (ok && any_row) {
            cg_puts(&g->body, "        if (ch == 0 && threadIdx.x == 0) {\n");
            cg_pw_enter(c, 12);
            ok = store_outputs(c, ret, out, nout, full, false, "o");
            cg_pw_leave(c, 8);
            cg_puts(&g->body, "        }\n");
        }
    }
    cg_pw_leave(c, 4);
    cg_puts(&g->body, "    }\n");
    cg_pw_free(c);
    return ok && !g->failed;
}

int cg_region_reductions(cg_kgen *g, const module *body, const ins **reds, const ins **rin,
                         bool (*masks)[SHAPE_MAX_RANK], int max)
{
    int nreds = 0;
    for (const ins *b = body->first; b; b = b->next) {
        if (!(b->op->classes & OPC_REDUCE))
            continue;
        bool mask[SHAPE_MAX_RANK];
        shape inputs[1] = {b->args[0]->sh};
        op_call call;
        ins_op_call(b, &call, inputs);
        if (!ops_reduce_axes(&call, inputs[0].rank, mask, g->err))
            return cg_fail(g, "%s", g->err ? g->err->message : "reduce axes"), -1;
        int into = -1;
        for (int k = 0; k < nreds; k++)
            if (reds[k] == b->args[0] && strcmp(b->op->name, reds[k]->op->name) == 0 &&
                only_user(body, reds[k], b))
                into = k;
        if (into >= 0) {
            reds[into] = b;
            for (int d = 0; d < inputs[0].rank; d++)
                masks[into][d] = masks[into][d] || mask[d];
            continue;
        }
        if (nreds == max)
            return cg_fail(g, "not lowered yet: more than %d reductions in region %s", max,
                           body->name), -1;
        reds[nreds] = b;
        rin[nreds] = b->args[0];
        memcpy(masks[nreds], mask, sizeof mask);
        nreds++;
    }
    return nreds;
}

bool cg_emit_reduce_region(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out,
                           int nout)
{
    const module *body = i->mods[0];
    const ins *ret = module_return(body);
    const ins *reds[32], *rin[32];
    bool masks[32][SHAPE_MAX_RANK];
    int nreds = cg_region_reductions(g, body, reds, rin, masks, 32);
    if (nreds < 0)
        return false;
    if (!ret || ret->nargs != nout || nreds == 0)
        return cg_fail(g, "region %s: nothing to reduce", body->name);
    const shape *xs = &rin[0]->sh;
    bool reduced[SHAPE_MAX_RANK];
    memcpy(reduced, masks[0], sizeof reduced);
    for (int k = 1; k < nreds; k++) {
        bool same = shape_same_lens(&rin[k]->sh, xs);
        for (int d = 0; same && d < xs->rank; d++)
            same = masks[k][d] == reduced[d];
        if (!same)
            return cg_fail(g, "not lowered yet: region %s reduces different lens or axes",
                           body->name);
    }
    cg_level std;
    memset(&std, 0, sizeof std);
    std.rank = xs->rank;
    memcpy(std.lens, xs->lens, sizeof std.lens);
    cg_standard_strides(xs->rank, xs->lens, std.strides);
    row r;
    split(&std, reduced, &r);
    for (int k = 0; k < nout; k++) {
        int64_t n = shape_elements(&ret->args[k]->sh);
        if (n != r.nout && n != r.nout * r.nred)
            return cg_fail(g, "not lowered yet: output %d of region %s is neither per element "
                              "nor per row of its reductions",
                           k, body->name);
    }
    if (r.nred > CG_SPLIT_ROW)
        return reduce_region_split(g, i, in, out, nout, reds, rin, nreds, &r);
    bool lane = r.nred < 32;
    g->kind = lane ? "fused_reduce_lane" : "fused_reduce_block";
    bool need[CG_PARTIAL_TYPES] = {false, false, false}; /* float, double, long long partials */
    for (int k = 0; k < nreds; k++) {
        const char *ct = cg_compute_type(rin[k]->sh.type);
        need[cg_partial_index(ct)] = true;
    }
    if (!lane)
        cg_declare_partials(g, need);
    cg_pw *c = cg_pw_new(g, i, in);
    if (!c)
        return cg_fail(g, "out of memory");
    cg_cite_body(g, body);
    /* Keep the row in registers when it fits: the values the reductions
     * read that no reduction feeds (x of a LayerNorm or softmax) are
     * computed once, in the first pass that needs them, and later passes
     * and the outputs read them from per-thread arrays. */
    int64_t R = lane ? r.nred : (r.nred + block_size_for(r.nred) - 1) / block_size_for(r.nred);
    const ins *kept[16];
    const char *kept_type[16];
    bool kept_set[16] = {false};
    int nkept = 0;
    if (R <= CG_KEPT_SLOTS) {
        for (int k = 0; k < nreds && nkept < 16; k++) {
            const ins *x = rin[k];
            while (ins_is(x, "reshape") || ins_is(x, "contiguous") || ins_is(x, "identity") ||
                   ins_is(x, "layout"))
                x = x->args[0];
            bool dup = false;
            for (int q = 0; q < nkept; q++)
                dup |= kept[q] == x;
            if (!dup && shape_elements(&x->sh) == r.nout * r.nred &&
                !depends_on_reduction(body, x))
                kept[nkept++] = x;
        }
    }
    open_outputs(g, &r, lane);
    cg_pw_enter(c, 8);
    char e[1024];
    cg_level_linear(&r.kept_std, "o", g->idx, e, sizeof e);
    cg_printf(&g->body, "        const %s jb = %s;\n", g->idx, e);
    cg_level_linear(&r.red_std, "r", g->idx, e, sizeof e);
    char jexpr[1100];
    snprintf(jexpr, sizeof jexpr, "jb + %s", e);
    for (int q = 0; q < nkept; q++) {
        kept_type[q] = cg_compute_type(kept[q]->sh.type);
        cg_printf(&g->body, "        %s keep%d[%lld];\n", kept_type[q], q, (long long)R);
    }
    bool ok = true;
    for (int k = 0; ok && k < nreds; k++) {
        const ins *rd = reds[k];
        const char *name = rd->op->name;
        combine_kind kind = strcmp(name, "reduce_prod") == 0  ? C_PROD
                            : strcmp(name, "reduce_max") == 0 ? C_MAX
                            : strcmp(name, "reduce_min") == 0 ? C_MIN
                                                              : C_SUM;
        const char *ct = cg_compute_type(rin[k]->sh.type);
        const char *part = cg_partial_array(ct);
        char red[32], cmb[512];
        snprintf(red, sizeof red, "red%d", k);
        cg_printf(&g->body, "        %s %s;\n        {\n", ct, red);
        cg_printf(&g->body, "            %s acc = %s;\n", ct, cg_combine_init(kind, ct));
        if (nkept)
            kept_loop(g, &r, lane, R, 12);
        else
            reduced_loop(g, &r, lane, 12);
        cg_pw_enter(c, 16);
        char j[32], v[32];
        snprintf(j, sizeof j, "j%d", k);
        cg_printf(&g->body, "                const %s %s = %s;\n", g->idx, j, jexpr);
        bind_kept(c, kept, kept_type, kept_set, nkept, j);
        const char *vt;
        ok = cg_pw_value(c, rin[k], j, v, sizeof v, &vt);
        ok = ok && store_kept(g, c, kept, kept_set, nkept, j, 16);
        char cv[64];
        snprintf(cv, sizeof cv, "(%s)%s", ct, v);
        cg_combine(kind, ct, "acc", cv, cmb, sizeof cmb);
        cg_printf(&g->body, "                acc = %s;\n            }\n", cmb);
        cg_pw_leave(c, 8);
        if (!lane)
            cg_block_fold(g, ct, kind, part, true, 12);
        if (strcmp(name, "reduce_mean") == 0)
            cg_printf(&g->body, "            %s = acc / (%s)%lld;\n        }\n", red, ct,
                      (long long)r.nred);
        else
            cg_printf(&g->body, "            %s = acc;\n        }\n", red);
        /* the reduction's own type: round as the reference stores it */
        if (rd->sh.type == GRAFT_HALF)
            cg_printf(&g->body, "        %s = (float)(__half)%s;\n", red, red);
        cg_pw_fix(c, rd, red, ct);
    }
    /* per-row outputs */
    bool any_row = false, any_full = false, full[64];
    for (int k = 0; k < nout; k++) {
        full[k] = shape_elements(&ret->args[k]->sh) == r.nout * r.nred && r.nred > 1;
        any_row |= !full[k];
        any_full |= full[k];
    }
    if (ok && any_row) {
        cg_puts(&g->body, lane ? "        {\n" : "        if (threadIdx.x == 0) {\n");
        cg_pw_enter(c, 12);
        ok = store_outputs(c, ret, out, nout, full, false, "o");
        cg_pw_leave(c, 8);
        cg_puts(&g->body, "        }\n");
    }
    if (ok && any_full) {
        if (nkept)
            kept_loop(g, &r, lane, R, 8);
        else
            reduced_loop(g, &r, lane, 8);
        cg_pw_enter(c, 12);
        cg_printf(&g->body, "            const %s j = %s;\n", g->idx, jexpr);
        bind_kept(c, kept, kept_type, kept_set, nkept, "j");
        ok = store_outputs(c, ret, out, nout, full, true, "j");
        cg_pw_leave(c, 8);
        cg_puts(&g->body, "        }\n");
    }
    cg_pw_leave(c, 4);
    cg_puts(&g->body, "    }\n");
    cg_pw_free(c);
    return ok && !g->failed;
}

/* ---- argmax / argmin: one thread per output walks its axis ---- */

bool cg_emit_arg_reduce(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    bool want_max = strcmp(i->op->name, "argmax") == 0;
    bool last = ins_attr(i, "select_last_index")->u.i != 0;
    const shape *xs = &i->args[0]->sh;
    row r, ro;
    if (!split_at_axis(g, i, in, out, &r, &ro))
        return false;
    g->kind = "arg_reduce_lane";
    const char *ct = cg_compute_type(xs->type);
    char el[1600], off[1100];
    open_outputs(g, &r, true);
    emit_base(g, &in[0], &r, "base", 8);
    element_at(g, &in[0], &r, "base", "0", 8, el, sizeof el);
    cg_printf(&g->body, "        %s best = (%s)%s;\n        long long at = 0;\n", ct, ct, el);
    cg_printf(&g->body, "        for (%s r = 1; r < %lld%s; r++) {\n", g->idx, (long long)r.nred,
              strcmp(g->idx, "unsigned") == 0 ? "u" : "ull");
    element_at(g, &in[0], &r, "base", "r", 12, el, sizeof el);
    cg_printf(&g->body,
              "            const %s v = (%s)%s;\n"
              "            if (v %s best%s) {\n"
              "                best = v;\n"
              "                at = (long long)r;\n"
              "            }\n        }\n",
              ct, ct, el, want_max ? ">" : "<", last ? " || v == best" : "");
    cg_level_linear(&ro.kept, "o", g->idx, off, sizeof off);
    char conv[256];
    cg_store_conversion(i->sh.type, "long long", "at", conv, sizeof conv);
    cg_printf(&g->body, "        p%d[%s] = %s;\n    }\n", cg_param(g, out[0].buffer, true), off,
              conv);
    return !g->failed;
}
