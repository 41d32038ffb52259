/* lower.c: a graph's main module becomes kernels, buffers and bindings.
 *
 * One walk in module order, reading the IR without changing it. Each value
 * gets an access (cg_access: which buffer, and the index arithmetic that
 * reads it):
 *  - @param and @literal values live in input and weight buffers;
 *  - a view (transpose, broadcast, multibroadcast, slice, squeeze,
 *    unsqueeze, flatten, reshape_lazy, identity) keeps its operand's buffer:
 *    its shape already holds the strides relative to that buffer, so only a
 *    slice's start offset is added; get_tuple_elem picks one output buffer of
 *    a multi-output region;
 *  - a reshape of a standard value is a view too; of any other value it adds
 *    a level (the consumer's index, linearised over the reshape's lens, is
 *    unravelled over the operand's lens), so it still moves no data;
 *  - every other instruction becomes one kernel writing one buffer per
 *    output, chosen by op: pointwise ops, copies and `fused` regions with a
 *    pointwise body (emit_pointwise.c), reductions, softmax and regions
 *    with reductions (emit_reduce.c), dot, convolution and regions around
 *    one of them (emit_gemm.c), pooling and lrn
 *    (emit_window.c), concat, pad and gather; an `if` lowers both branches
 *    and selects (lower_if), a `loop` lowers its body once between its own
 *    kernels and adds a cg_loop entry the runtimes repeat (lower_loop).
 *    Anything else is "not lowered yet: op X".
 * An emitter may ask for several kernels for one instruction (a split
 * reduction: g->npasses); each is emitted and finished in turn.
 * A kernel's name is its ops joined by '_' and "_k<launch index>"; its
 * source starts with a comment citing the instructions it came from. Live
 * ranges (first writer, last reader) are recorded for the memory plan.
 */
#include "cg_emit.h"

#include "concat_in_place.h"
#include "ops_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct value_info {
    bool known;
    cg_access acc;
    int tuple_first;  /* multi-output region: its first element's buffer */
    int ntuple;
    int root_buffer;  /* an in-place concat's root: its buffer + 1 once made */
} value_info;

typedef struct lower_state {
    cg_program *p;
    const graph *g;
    value_info *info;  /* by main-module position + 1; info[0] stays unknown */
    uint32_t *slot;    /* by instruction id: its index into info, 0 for none */
    uint32_t ninfo;    /* ids covered by slot */
    int kernels_cap;
    const char *idx;
    concat_plan *homes; /* where in-place concats put values (ops/concat_in_place.h) */
    graft_error *err;
} lower_state;

/* The value_info of i, a main-module instruction (an unknown one for any
 * other): dense by position, so a graph whose ids are spread by rewriting
 * and region bodies costs memory for its main module only. */
static value_info *info_of(const lower_state *s, const ins *i)
{
    return &s->info[i->id < s->ninfo ? s->slot[i->id] : 0];
}

/* ---- buffers ---- */

static int add_buffer(cg_program *p, int *cap, cg_buffer_kind kind, const shape *sh, const ins *i,
                      int tuple_index)
{
    if (p->nbuffers == *cap) {
        int n = *cap ? *cap * 2 : 64;
        cg_buffer *b = realloc(p->buffers, (size_t)n * sizeof *b);
        if (!b)
            return -1;
        p->buffers = b;
        *cap = n;
    }
    cg_buffer *b = &p->buffers[p->nbuffers];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->sh = *sh;
    b->bytes = shape_bytes(sh);
    if (b->bytes == 0)
        b->bytes = 1;
    b->first = b->last = -1;
    b->ins = i;
    b->tuple_index = tuple_index;
    return p->nbuffers++;
}

int cg_literal_buffer(cg_program *p, const ins *lit, graft_error *err)
{
    for (int b = 0; b < p->nbuffers; b++)
        if (p->buffers[b].ins == lit && p->buffers[b].kind == CG_WEIGHT)
            return b;
    if (!lit->data && shape_bytes(&lit->sh) > 0) {
        error_set(err, "literal %s has no data", lit->name ? lit->name : "?");
        return -1;
    }
    int b = add_buffer(p, &p->buffers_cap, CG_WEIGHT, &lit->sh, lit, -1);
    if (b < 0)
        error_set(err, "out of memory");
    return b;
}

int cg_scratch_buffer(cg_kgen *g, const ins *i, int k, graft_type t, int64_t n)
{
    cg_program *p = g->p;
    for (int b = 0; b < p->nbuffers; b++)
        if (p->buffers[b].ins == i && p->buffers[b].scratch == k + 1)
            return b;
    shape sh = shape_standard(t, 1, &n);
    int b = add_buffer(p, &p->buffers_cap, CG_TEMP, &sh, i, -1);
    if (b < 0)
        return cg_fail(g, "out of memory"), -1;
    p->buffers[b].scratch = k + 1;
    return b;
}

int64_t cg_slice_offset(const ins *s)
{
    const ins *a = s->args[0];
    int64_t starts[SHAPE_MAX_RANK], counts[SHAPE_MAX_RANK];
    shape inputs[1] = {a->sh};
    op_call call;
    ins_op_call(s, &call, inputs);
    if (!ops_slice_bounds(&call, &a->sh, starts, counts, NULL))
        return 0;
    int64_t offset = 0;
    for (int d = 0; d < a->sh.rank; d++)
        if (counts[d] > 0)
            offset += starts[d] * a->sh.strides[d];
    return offset;
}

/* ---- accesses of views ---- */

static void set_level0(cg_access *a, const shape *sh, int64_t offset)
{
    a->lv[0].rank = sh->rank;
    memcpy(a->lv[0].lens, sh->lens, sizeof sh->lens);
    memcpy(a->lv[0].strides, sh->strides, sizeof sh->strides);
    a->lv[0].offset = offset;
    a->type = sh->type;
}

static bool view_access(lower_state *s, const ins *i, cg_access *out)
{
    const value_info *src = info_of(s, i->args[0]);
    if (ins_is(i, "get_tuple_elem")) {
        int64_t k = ins_attr(i, "index")->u.i;
        if (src->ntuple == 0 || k < 0 || k >= src->ntuple)
            return error_set(s->err, "%s: get_tuple_elem of a value that is not a region's tuple",
                             i->name ? i->name : "?");
        *out = cg_access_of_buffer(s->p, src->tuple_first + (int)k);
        return true;
    }
    *out = src->acc;
    int64_t offset = out->lv[0].offset;
    if (ins_is(i, "slice"))
        offset += cg_slice_offset(i);
    set_level0(out, &i->sh, offset);
    return true;
}

static bool reshape_access(lower_state *s, const ins *i, cg_access *out)
{
    const ins *a = i->args[0];
    *out = info_of(s, a)->acc;
    if (out->nlevels == 1 && shape_standard_p(&a->sh)) {
        set_level0(out, &i->sh, out->lv[0].offset);
        return true;
    }
    if (out->nlevels == CG_MAX_LEVELS)
        return error_set(s->err, "not lowered yet: more than %d reshapes of non-standard values "
                                 "in a row (%s)",
                         CG_MAX_LEVELS - 1, i->name ? i->name : "?");
    memmove(&out->lv[1], &out->lv[0], (size_t)out->nlevels * sizeof out->lv[0]);
    out->nlevels++;
    shape st = shape_standard(i->sh.type, i->sh.rank, i->sh.lens);
    set_level0(out, &st, 0);
    return true;
}

/* ---- values that live in an in-place concat's buffer ---- */

/* When v lives in an in-place concat's buffer (its own, if it is that
 * concat): that buffer, made at the first value written there, and v's
 * access in it (v's own strides, which equal the root's on every axis
 * longer than 1, from its offset). Returns -1 when v has no such home, -2
 * when out of memory. */
static int home_access(lower_state *s, const ins *v, cg_access *out)
{
    const ins *root;
    int64_t offset;
    if (!concat_plan_home(s->homes, v, &root, &offset))
        return -1;
    value_info *ri = info_of(s, root);
    if (!ri->root_buffer) {
        int b = add_buffer(s->p, &s->p->buffers_cap, CG_TEMP, &root->sh, root, -1);
        if (b < 0)
            return -2;
        ri->root_buffer = b + 1;
    }
    *out = cg_access_of_buffer(s->p, ri->root_buffer - 1);
    set_level0(out, &v->sh, offset);
    return ri->root_buffer - 1;
}

/* ---- kernels ---- */

/* Whether a region's body is pointwise ops, views and reshapes, pads (read
 * predicates, emit_pad.c),
 * reductions (counted in *nreds) and dots or convolutions (counted in
 * *nproducts). */
static bool body_is_lowerable(const module *body, const char **bad, int *nreds, int *nproducts)
{
    *nreds = *nproducts = 0;
    for (const ins *b = body->first; b; b = b->next) {
        if (b->param || ins_is(b, "@literal") || ins_is(b, "@return"))
            continue;
        if (ins_is(b, "convolution") || ins_is(b, "dot")) {
            (*nproducts)++;
            continue;
        }
        if (b->op->classes & OPC_REDUCE) {
            (*nreds)++;
            continue;
        }
        if ((b->op->classes & (OPC_POINTWISE | OPC_VIEW)) || ins_is(b, "reshape") ||
            ins_is(b, "contiguous") || ins_is(b, "layout") || ins_is(b, "pad")) {
            if (ins_is(b, "get_tuple_elem")) {
                *bad = b->opname;
                return false;
            }
            continue;
        }
        *bad = b->opname;
        return false;
    }
    return true;
}

/* A kernel's name: its ops joined by '_' (views and reshapes left out,
 * repeats in a row once), at most five of them; a region around a dot or
 * convolution shows the two ops before it (its prologue's end) and what
 * follows, so the product is always in the name. */
static void kernel_name(const ins *i, int index, char *out, size_t size)
{
    char names[112] = "";
    const char *ops[64];
    int n = 0, anchor = -1;
    if (i->op->classes & OPC_REGION) {
        for (const ins *b = i->mods[0]->first; b && n < 64; b = b->next) {
            if (b->param || ins_is(b, "@literal") || ins_is(b, "@return") ||
                (b->op->classes & OPC_VIEW) || ins_is(b, "reshape"))
                continue;
            if (n && strcmp(ops[n - 1], b->opname) == 0)
                continue;
            if (anchor < 0 && (ins_is(b, "convolution") || ins_is(b, "dot")))
                anchor = n;
            ops[n++] = b->opname;
        }
    }
    if (!(i->op->classes & OPC_REGION)) {
        snprintf(names, sizeof names, "%s", i->opname);
    } else if (!n) {
        snprintf(names, sizeof names, "fused");
    } else {
        int start = anchor > 2 ? anchor - 2 : 0, end = start + 5 < n ? start + 5 : n;
        size_t used = 0;
        if (start > 0)
            used += (size_t)snprintf(names, sizeof names, "%s_etc_", ops[0]);
        for (int k = start; k < end && used + strlen(ops[k]) + 6 < sizeof names; k++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
                                     k > start ? "_" : "", ops[k]);
        if (end < n)
            snprintf(names + used, sizeof names - used, "_etc");
    }
    snprintf(out, size, "%s_k%d", names, index);
}

static bool grow_kernels(lower_state *s)
{
    cg_program *p = s->p;
    if (p->nkernels < s->kernels_cap)
        return true;
    int n = s->kernels_cap ? s->kernels_cap * 2 : 32;
    cg_kernel *k = realloc(p->kernels, (size_t)n * sizeof *k);
    if (!k)
        return false;
    p->kernels = k;
    s->kernels_cap = n;
    return true;
}

static bool finish_kernel(lower_state *s, cg_kgen *g)
{
    cg_program *p = s->p;
    if (!grow_kernels(s))
        return error_set(s->err, "out of memory");
    cg_text src = {0};
    if (p->sourceless)
        src.failed = true; /* no text at all: see lower_kernel */
    cg_printf(&src, "/* %s: a %s kernel generated by graft%s%s, from\n", g->name, g->kind,
              p->graph_name ? " for " : "", p->graph_name ? p->graph_name : "");
    cg_puts(&src, g->head.text ? g->head.text : "");
    cg_printf(&src, " * Launch: %u blocks of %u threads.", g->grid, g->block);
    for (int k = 0; k < g->nparams; k++) {
        const cg_buffer *b = &p->buffers[g->param_buffer[k]];
        char l[160];
        cg_printf(&src, "%s p%d = %s", k % 3 == 0 ? "\n *" : ";", k,
                  b->ins ? cg_label(p, b->ins, l, sizeof l) : "?");
        if (b->tuple_index >= 0)
            cg_printf(&src, ".%d", b->tuple_index);
        if (b->kind == CG_INPUT)
            cg_puts(&src, " (input)");
        else if (b->kind == CG_WEIGHT)
            cg_puts(&src, " (weight)");
    }
    cg_puts(&src, "\n */\n#include \"graft_kernel.h\"\n\n");
    cg_printf(&src, "GRAFT_KERNEL void __launch_bounds__(%u) %s(", g->block, g->name);
    for (int k = 0; k < g->nparams; k++) {
        const cg_buffer *b = &p->buffers[g->param_buffer[k]];
        cg_printf(&src, "%s%s%s *__restrict__ p%d", k ? ",\n    " : "",
                  g->param_writes[k] ? "" : "const ", cg_storage_type(b->sh.type), k);
    }
    cg_puts(&src, ")\n{\n");
    cg_puts(&src, g->body.text ? g->body.text : "");
    cg_puts(&src, "}\n");
    if (!p->sourceless && (src.failed || g->body.failed || g->head.failed || g->origin.failed)) {
        cg_text_free(&src);
        return error_set(s->err, "out of memory");
    }
    cg_kernel *k = &p->kernels[p->nkernels];
    memset(k, 0, sizeof *k);
    k->name = strdup(g->name);
    k->kind = g->kind;
    k->source = p->sourceless ? NULL : cg_text_take(&src);
    k->grid = g->grid;
    k->block = g->block;
    k->barriers = g->barriers;
    k->nargs = g->nparams;
    k->args = malloc((size_t)(g->nparams ? g->nparams : 1) * sizeof *k->args);
    k->writes = malloc((size_t)(g->nparams ? g->nparams : 1) * sizeof *k->writes);
    k->origin = cg_text_take(&g->origin);
    p->nkernels++;
    if (!k->name || !k->args || !k->writes)
        return error_set(s->err, "out of memory");
    int index = p->nkernels - 1;
    for (int a = 0; a < g->nparams; a++) {
        k->args[a] = g->param_buffer[a];
        k->writes[a] = g->param_writes[a];
        cg_buffer *b = &p->buffers[g->param_buffer[a]];
        if (g->param_writes[a] && b->first < 0)
            b->first = index;
        if (b->last < index)
            b->last = index;
    }
    return true;
}

/* The ops with an emitter of their own, by name (none of them is a
 * pointwise or reduce op, so the order against those classes is free). */
typedef bool (*cg_emitter)(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
static const struct {
    const char *op;
    cg_emitter emit;
} named_emitters[] = {
    {"concat", cg_emit_concat},   {"pad", cg_emit_pad},
    {"gather", cg_emit_gather},   {"argmax", cg_emit_arg_reduce},
    /* index and order ops (emit_index.c) */
    {"gather_elements", cg_emit_gather_elements}, {"gathernd", cg_emit_gathernd},
    {"scatter_none", cg_emit_scatter}, {"scatter_add", cg_emit_scatter},
    {"scatter_mul", cg_emit_scatter}, {"scatter_min", cg_emit_scatter},
    {"scatter_max", cg_emit_scatter}, {"scatternd_none", cg_emit_scatternd},
    {"scatternd_add", cg_emit_scatternd}, {"scatternd_mul", cg_emit_scatternd},
    {"scatternd_min", cg_emit_scatternd}, {"scatternd_max", cg_emit_scatternd},
    {"prefix_scan_sum", cg_emit_prefix_scan_sum}, {"topk_indices", cg_emit_topk_indices},
    {"unique", cg_emit_unique}, {"nonmaxsuppression", cg_emit_nonmaxsuppression},
    {"max_pooling_indices", cg_emit_max_pooling_indices},
    {"argmin", cg_emit_arg_reduce}, {"softmax", cg_emit_softmax},
    {"logsoftmax", cg_emit_softmax}, {"dot", cg_emit_dot},
    {"convolution", cg_emit_convolution},
    {"pooling", cg_emit_pooling}, {"lrn", cg_emit_lrn},
    {"resize", cg_emit_resize}, {"grid_sample", cg_emit_grid_sample},
    {"roialign", cg_emit_roialign},
    {"convolution_backwards", cg_emit_convolution_backwards},
    {"dft", cg_emit_dft}, {"det", cg_emit_det},
};

static cg_emitter named_emitter(const char *name)
{
    for (size_t k = 0; k < sizeof named_emitters / sizeof named_emitters[0]; k++)
        if (strcmp(named_emitters[k].op, name) == 0)
            return named_emitters[k].emit;
    return NULL;
}

/* Emits pass g->pass of instruction i's kernels into g (an emitter that
 * needs several kernels sets g->npasses). */
static bool emit_kernel(lower_state *s, const ins *i, cg_kgen *g, const cg_access *in,
                        const cg_access *out, int nout)
{
    (void)s;
    if (!(i->op->classes & OPC_REGION))
        cg_cite(g, i);
    const char *name = i->op->name;
    cg_emitter emit;
    if (i->op->classes & OPC_REGION) {
        const char *bad = NULL;
        int nreds = 0, nproducts = 0;
        if (i->nmods != 1 || !body_is_lowerable(i->mods[0], &bad, &nreds, &nproducts))
            return cg_fail(g, "not lowered yet: op %s inside fused region %s (regions of "
                              "pointwise ops, views, reductions and one dot or convolution are "
                              "lowered so far)",
                           bad ? bad : "?", i->nmods ? i->mods[0]->name : "?");
        if (nproducts)
            return cg_emit_gemm_region(g, i, in, out, nout);
        if (nreds)
            return cg_emit_reduce_region(g, i, in, out, nout);
        return cg_emit_pointwise(g, i, in, out, nout);
    }
    if (strcmp(name, "if") == 0)
        return cg_emit_select(g, i, in, out, nout);
    if ((emit = named_emitter(name)))
        return emit(g, i, in, out);
    if ((i->op->classes & OPC_POINTWISE) || strcmp(name, "contiguous") == 0 ||
        strcmp(name, "layout") == 0)
        return cg_emit_pointwise(g, i, in, out, 1);
    if (i->op->classes & OPC_REDUCE)
        return cg_emit_reduce(g, i, in, out);
    return cg_fail(g, "not lowered yet: op %s", i->opname);
}

/* One kernel for i. Its operands' accesses are `given` (ngiven of them)
 * when not NULL (an `if`: its condition and both branches' results), else
 * those of i's operands. */
static bool lower_kernel(lower_state *s, const ins *i, const cg_access *given, int ngiven)
{
    cg_program *p = s->p;
    value_info *vi = info_of(s, i);
    bool tuple = shape_is_tuple(&i->sh);
    int nout = tuple ? i->sh.ntuple : 1;
    if (nout > 64)
        return error_set(s->err, "not lowered yet: a region with %d outputs", nout);
    cg_access home;
    int home_buffer = tuple ? -1 : home_access(s, i, &home);
    if (home_buffer == -2)
        return error_set(s->err, "out of memory");
    if (home_buffer >= 0 && !cg_type_supported(i->sh.type))
        return error_set(s->err, "not lowered yet: type %s (%s, op %s)", type_name(i->sh.type),
                         i->name ? i->name : "?", i->opname);
    for (int k = 0; k < nout && home_buffer < 0; k++) {
        const shape *sh = tuple ? &i->sh.tuple[k] : &i->sh;
        if (!cg_type_supported(sh->type))
            return error_set(s->err, "not lowered yet: type %s (%s, op %s)", type_name(sh->type),
                             i->name ? i->name : "?", i->opname);
        int b = add_buffer(p, &p->buffers_cap, CG_TEMP, sh, i, tuple ? k : -1);
        if (b < 0)
            return error_set(s->err, "out of memory");
        if (k == 0)
            vi->tuple_first = b;
    }
    vi->ntuple = tuple ? nout : 0;
    vi->known = true;
    if (home_buffer >= 0) {
        vi->tuple_first = home_buffer;
        vi->acc = home;
    } else if (!tuple) {
        vi->acc = cg_access_of_buffer(p, vi->tuple_first);
    }
    cg_access in[CG_MAX_PARAMS * 2 + 1], out[64];
    if (i->nargs > 64)
        return error_set(s->err, "not lowered yet: op %s with %d operands", i->opname, i->nargs);
    for (int k = 0; given && k < ngiven; k++)
        in[k] = given[k];
    for (int k = 0; !given && k < i->nargs; k++) {
        const value_info *a = info_of(s, i->args[k]);
        if (!a->known || a->ntuple)
            return error_set(s->err, "%s: operand %d has no value a kernel can read",
                             i->name ? i->name : "?", k);
        if (!cg_type_supported(a->acc.type))
            return error_set(s->err, "not lowered yet: type %s (operand %d of %s)",
                             type_name(a->acc.type), k, i->name ? i->name : "?");
        in[k] = a->acc;
    }
    for (int k = 0; k < nout; k++)
        out[k] = home_buffer >= 0 ? home : cg_access_of_buffer(p, vi->tuple_first + k);
    bool ok = true;
    int npasses = 1;
    for (int pass = 0; ok && pass < npasses; pass++) {
        cg_kgen g;
        memset(&g, 0, sizeof g);
        g.p = p;
        g.idx = s->idx;
        g.err = s->err;
        g.kind = "pointwise";
        g.pass = pass;
        if (p->sourceless) {
            /* A failed text takes no more text (ir/strbuf.h): the emitters
             * run as usual, but the kernel's comment and body cost no
             * formatting. */
            g.head.failed = true;
            g.body.failed = true;
        }
        kernel_name(i, p->nkernels, g.name, sizeof g.name);
        ok = emit_kernel(s, i, &g, in, out, nout);
        if (ok && g.npasses > npasses)
            npasses = g.npasses;
        if (ok)
            ok = finish_kernel(s, &g);
        if (ok)
            p->kernels[p->nkernels - 1].ins = i;
        else if (!g.failed)
            error_set(s->err, "%s: kernel generation failed", g.name);
        if (!ok && i->name)
            error_prefix(s->err, "%s", i->name);
        cg_text_free(&g.head);
        cg_text_free(&g.body);
        cg_text_free(&g.origin);
    }
    return ok;
}

/* ---- the walk ---- */

static bool lower_ins(lower_state *s, const ins *i);

/* An `if` evaluates both branches and selects in a kernel: each branch's
 * instructions are lowered in turn (parameter x<k> is the if's operand k),
 * then one kernel copies the results of the branch the condition names
 * into the if's buffers. The plan stays a fixed launch list, with no read
 * of the condition on the host (a device-to-host wait on a GPU). */
static bool lower_if(lower_state *s, const ins *i)
{
    if (i->nmods != 2)
        return error_set(s->err, "if: needs two submodules, got %d", i->nmods);
    const ins *rets[2];
    for (int b = 0; b < 2; b++) {
        rets[b] = NULL;
        for (const ins *q = i->mods[b]->first; q; q = q->next) {
            if (ins_is(q, "@return")) {
                rets[b] = q;
                break;
            }
            if (q->param) {
                int k = q->param[0] == 'x' ? atoi(q->param + 1) : -1;
                if (k < 0 || k >= i->nargs)
                    return error_set(s->err, "if: parameter %s of module %s binds no operand",
                                     q->param, i->mods[b]->name);
                *info_of(s, q) = *info_of(s, i->args[k]);
                continue;
            }
            if (!lower_ins(s, q))
                return false;
        }
        if (!rets[b])
            return error_set(s->err, "if: module %s has no @return", i->mods[b]->name);
    }
    int n = rets[0]->nargs;
    if (rets[1]->nargs != n || n > CG_MAX_PARAMS)
        return error_set(s->err, "if: the branches return %d and %d values", n, rets[1]->nargs);
    cg_access given[CG_MAX_PARAMS * 2 + 1];
    given[0] = info_of(s, i->args[0])->acc;
    for (int b = 0; b < 2; b++)
        for (int k = 0; k < n; k++) {
            const value_info *v = info_of(s, rets[b]->args[k]);
            if (!v->known || v->ntuple)
                return error_set(s->err, "if: result %d of module %s has no value a kernel can "
                                         "read",
                                 k, i->mods[b]->name);
            given[1 + b * n + k] = v->acc;
        }
    return lower_kernel(s, i, given, 1 + 2 * n);
}

/* The buffer offset (elements) of an access's element 0. */
static int64_t first_element_offset(const cg_access *a)
{
    int64_t at = 0;
    for (int l = 0; l < a->nlevels; l++) {
        const cg_level *lv = &a->lv[l];
        int64_t off = lv->offset, rest = at;
        for (int d = lv->rank - 1; d >= 0; d--) {
            off += (rest % lv->lens[d]) * lv->strides[d];
            rest /= lv->lens[d];
        }
        at = off;
    }
    return at;
}

/* One of a loop's own kernels (emit_loop.c), named "<kind>_k<launch>". */
static bool loop_kernel(lower_state *s, const ins *i, const cg_loop_buffers *lb,
                        bool (*emit)(cg_kgen *g, const cg_loop_buffers *lb))
{
    cg_program *p = s->p;
    cg_kgen g;
    memset(&g, 0, sizeof g);
    g.p = p;
    g.idx = s->idx;
    g.err = s->err;
    if (p->sourceless) {
        g.head.failed = true;
        g.body.failed = true;
    }
    snprintf(g.name, sizeof g.name, "loop_k%d", p->nkernels);
    cg_cite(&g, i);
    bool ok = emit(&g, lb);
    if (ok) {
        snprintf(g.name, sizeof g.name, "%s_k%d", g.kind, p->nkernels);
        ok = finish_kernel(s, &g);
    }
    if (ok)
        p->kernels[p->nkernels - 1].ins = i;
    else if (!g.failed)
        error_set(s->err, "%s: kernel generation failed", g.name);
    cg_text_free(&g.head);
    cg_text_free(&g.body);
    cg_text_free(&g.origin);
    return ok;
}

/* A `loop` becomes an entry of the launch plan (cg_loop) around its body's
 * kernels, lowered once: an init kernel before it, then the body's
 * instructions (parameter x0 reads the iteration buffer, x1 the condition
 * buffer, which holds 1 while the body runs, x2..x<N+1> the state buffers,
 * the others the loop's operands), then the stage and commit kernels
 * (emit_loop.c). The state buffers hold the loop-carried values and are
 * the loop's first N results; the scan outputs follow. Buffers used inside
 * the body stay live over the whole loop (extend_loop_lives). */
static bool lower_loop(lower_state *s, const ins *i)
{
    cg_program *p = s->p;
    if (i->nmods != 1)
        return error_set(s->err, "loop: needs exactly one submodule, got %d", i->nmods);
    const module *body = i->mods[0];
    const attr_value *states = ins_attr(i, "states"), *most = ins_attr(i, "max_iterations");
    int nstates = states ? (int)states->u.i : 0;
    int nres = shape_is_tuple(&i->sh) ? i->sh.ntuple : 1, nscans = nres - nstates;
    if (nstates > CG_MAX_PARAMS / 4 || nscans > CG_MAX_PARAMS / 4 || nscans < 0 ||
        nstates + 2 > i->nargs)
        return error_set(s->err, "not lowered yet: loop with %d loop-carried and %d scan values "
                                 "(at most %d of each)",
                         nstates, nscans, CG_MAX_PARAMS / 4);
    for (int k = 0; k < i->nargs; k++) {
        const value_info *a = info_of(s, i->args[k]);
        if (!a->known || a->ntuple)
            return error_set(s->err, "loop: operand %d has no value a kernel can read", k);
    }
    cg_loop_buffers lb;
    memset(&lb, 0, sizeof lb);
    lb.nstates = nstates;
    lb.nscans = nscans;
    value_info *vi = info_of(s, i);
    for (int k = 0; k < nres; k++) {
        const shape *sh = shape_is_tuple(&i->sh) ? &i->sh.tuple[k] : &i->sh;
        if (!cg_type_supported(sh->type))
            return error_set(s->err, "not lowered yet: type %s (%s, op loop)",
                             type_name(sh->type), i->name ? i->name : "?");
        shape st = shape_as_standard(sh);
        int b = add_buffer(p, &p->buffers_cap, CG_TEMP, &st, i, shape_is_tuple(&i->sh) ? k : -1);
        if (b < 0)
            return error_set(s->err, "out of memory");
        if (k == 0)
            vi->tuple_first = b;
        if (k < nstates)
            lb.state[k] = cg_access_of_buffer(p, b);
        else
            lb.scan_out[k - nstates] = cg_access_of_buffer(p, b);
    }
    for (int k = 0; k < nstates; k++) {
        shape st = shape_as_standard(&i->args[2 + k]->sh);
        int b = add_buffer(p, &p->buffers_cap, CG_TEMP, &st, i, -1);
        if (b < 0)
            return error_set(s->err, "out of memory");
        lb.staged[k] = cg_access_of_buffer(p, b);
        lb.initial[k] = info_of(s, i->args[2 + k])->acc;
    }
    int64_t one = 1;
    shape flag = shape_standard(GRAFT_BOOL, 1, &one), count = shape_standard(GRAFT_INT64, 1, &one);
    lb.cond = add_buffer(p, &p->buffers_cap, CG_TEMP, &flag, i, -1);
    lb.staged_cond = add_buffer(p, &p->buffers_cap, CG_TEMP, &flag, i, -1);
    lb.iteration = add_buffer(p, &p->buffers_cap, CG_TEMP, &count, i, -1);
    if (lb.cond < 0 || lb.staged_cond < 0 || lb.iteration < 0)
        return error_set(s->err, "out of memory");
    lb.initial_cond = info_of(s, i->args[1])->acc;
    if (!loop_kernel(s, i, &lb, cg_emit_loop_init))
        return false;
    int first = p->nkernels;
    const ins *ret = NULL;
    for (const ins *q = body->first; q; q = q->next) {
        if (ins_is(q, "@return")) {
            ret = q;
            break;
        }
        if (q->param) {
            int k = q->param[0] == 'x' ? atoi(q->param + 1) : -1;
            if (k < 0 || k >= i->nargs)
                return error_set(s->err, "loop: parameter %s of module %s binds no operand",
                                 q->param, body->name);
            value_info *qi = info_of(s, q);
            memset(qi, 0, sizeof *qi);
            qi->known = true;
            if (k == 0)
                qi->acc = cg_access_of_buffer(p, lb.iteration);
            else if (k == 1)
                qi->acc = cg_access_of_buffer(p, lb.cond);
            else if (k < 2 + nstates)
                qi->acc = lb.state[k - 2];
            else
                *qi = *info_of(s, i->args[k]);
            continue;
        }
        if (!lower_ins(s, q))
            return false;
    }
    if (!ret || ret->nargs != 1 + nres)
        return error_set(s->err, "loop: module %s returns %d values, expected %d", body->name,
                         ret ? ret->nargs : 0, 1 + nres);
    for (int k = 0; k < ret->nargs; k++) {
        const value_info *v = info_of(s, ret->args[k]);
        if (!v->known || v->ntuple)
            return error_set(s->err, "loop: result %d of module %s has no value a kernel can read",
                             k, body->name);
        if (k == 0)
            lb.next_cond = v->acc;
        else if (k <= nstates)
            lb.next[k - 1] = v->acc;
        else
            lb.scan_row[k - 1 - nstates] = v->acc;
    }
    if (!loop_kernel(s, i, &lb, cg_emit_loop_stage) ||
        !loop_kernel(s, i, &lb, cg_emit_loop_commit))
        return false;
    cg_loop *grown = realloc(p->loops, (size_t)(p->nloops + 1) * sizeof *grown);
    if (!grown)
        return error_set(s->err, "out of memory");
    p->loops = grown;
    cg_loop *lp = &p->loops[p->nloops++];
    const cg_access *trips = &info_of(s, i->args[0])->acc;
    lp->ins = i;
    lp->first = first;
    lp->end = p->nkernels;
    lp->trips_buffer = trips->buffer;
    lp->trips_offset = first_element_offset(trips);
    lp->cond_buffer = lb.cond;
    lp->max_iterations = most ? most->u.i : -1;
    vi->ntuple = shape_is_tuple(&i->sh) ? nres : 0;
    vi->known = true;
    if (!vi->ntuple)
        vi->acc = cg_access_of_buffer(p, vi->tuple_first);
    return true;
}

/* A buffer a loop's body touches is live over the whole loop: its body
 * runs again, so a value written before the loop and read inside must
 * survive every iteration, and one written inside must not share space
 * with another of the body's. The trip count, which only the host reads,
 * stays live over the loop too. Inner loops come first in p->loops, so the
 * outer loops widen what they widened. */
static void extend_loop_lives(cg_program *p)
{
    for (int l = 0; l < p->nloops; l++) {
        const cg_loop *lp = &p->loops[l];
        for (int b = 0; b < p->nbuffers; b++) {
            cg_buffer *buf = &p->buffers[b];
            if (buf->first < 0 && buf->last < 0)
                continue;
            int first = buf->first < 0 ? buf->last : buf->first;
            /* the trip count is read by the host at the loop's start, by no
             * kernel of it: keep it until the loop ends too */
            bool trips = b == lp->trips_buffer && first < lp->first;
            if (trips || (first < lp->end && buf->last >= lp->first)) {
                if (buf->first < 0 || buf->first > lp->first)
                    buf->first = lp->first;
                if (buf->last < lp->end - 1)
                    buf->last = lp->end - 1;
            }
        }
    }
}

static bool lower_ins(lower_state *s, const ins *i)
{
    cg_program *p = s->p;
    value_info *vi = info_of(s, i);
    if (i->param || ins_is(i, "@literal")) {
        bool lit = !i->param;
        if (!cg_type_supported(i->sh.type))
            return error_set(s->err, "not lowered yet: type %s (%s)", type_name(i->sh.type),
                             i->name ? i->name : "?");
        if (lit && !i->data && shape_bytes(&i->sh) > 0)
            return error_set(s->err, "literal %s has no data", i->name ? i->name : "?");
        int b = add_buffer(p, &p->buffers_cap, lit ? CG_WEIGHT : CG_INPUT, &i->sh, i, -1);
        if (b < 0)
            return error_set(s->err, "out of memory");
        vi->acc = cg_access_of_buffer(p, b);
        vi->known = true;
        return true;
    }
    if (ins_is(i, "@return")) {
        p->outputs = calloc((size_t)(i->nargs ? i->nargs : 1), sizeof *p->outputs);
        if (!p->outputs)
            return error_set(s->err, "out of memory");
        for (int k = 0; k < i->nargs; k++) {
            const value_info *a = info_of(s, i->args[k]);
            if (!a->known || a->ntuple)
                return error_set(s->err, "output %d is a tuple; return its elements", k);
            p->outputs[k].acc = a->acc;
            p->outputs[k].sh = i->args[k]->sh;
        }
        p->noutputs = i->nargs;
        return true;
    }
    for (int k = 0; k < i->nargs; k++)
        if (!info_of(s, i->args[k])->known)
            return error_set(s->err, "%s: operand %d comes from an instruction that was not "
                                     "lowered",
                             i->name ? i->name : "?", k);
    if ((i->op->classes & OPC_VIEW) && i->nargs > 0) {
        if (!view_access(s, i, &vi->acc))
            return false;
        vi->known = true;
        return true;
    }
    if (ins_is(i, "reshape")) {
        if (!reshape_access(s, i, &vi->acc))
            return false;
        vi->known = true;
        return true;
    }
    if (concat_plan_placed(s->homes, i)) {
        /* an in-place concat: its operands' kernels wrote it */
        if (home_access(s, i, &vi->acc) < 0)
            return error_set(s->err, "out of memory");
        vi->known = true;
        return true;
    }
    if (i->op->classes & (OPC_OPAQUE | OPC_BUILTIN) || i->op == op_opaque())
        return error_set(s->err, "not lowered yet: op %s (%s)", i->opname,
                         i->name ? i->name : "?");
    if (ins_is(i, "if"))
        return lower_if(s, i);
    if (ins_is(i, "loop"))
        return lower_loop(s, i);
    return lower_kernel(s, i, NULL, 0);
}

/* Labels as the dump writer gives them: the name, or "@<position>", or
 * "@<position>_<k>" when a name already has that; "module:" before the
 * positional ones of a region's body. A module's labels go through an
 * open-addressing set, so labelling is linear in the graph's size. */
typedef struct label_set {
    const char **slot;
    size_t cap;
} label_set;

static uint64_t label_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* Adds s unless present; true when it was added. */
static bool label_claim(label_set *set, const char *s)
{
    size_t k = (size_t)label_hash(s) & (set->cap - 1);
    while (set->slot[k]) {
        if (strcmp(set->slot[k], s) == 0)
            return false;
        k = (k + 1) & (set->cap - 1);
    }
    set->slot[k] = s;
    return true;
}

static bool label_graph(cg_program *p, const graph *g, uint32_t n)
{
    p->labels = calloc(n, sizeof *p->labels);
    p->nlabels = n;
    if (!p->labels)
        return false;
    for (const module *m = g->first_module; m; m = m->next) {
        label_set set = {NULL, 16};
        while (set.cap < (size_t)m->count * 4 + 16)
            set.cap *= 2;
        set.slot = calloc(set.cap, sizeof *set.slot);
        if (!set.slot)
            return false;
        bool main_module = strcmp(m->name, "main") == 0, ok = true;
        for (const ins *i = m->first; ok && i; i = i->next)
            if (i->id < n && i->name) {
                ok = (p->labels[i->id] = strdup(i->name)) != NULL;
                if (ok)
                    label_claim(&set, p->labels[i->id]);
            }
        int pos = 0;
        for (const ins *i = m->first; ok && i; i = i->next, pos++) {
            if (i->id >= n || i->name)
                continue;
            char buf[300];
            const char *pre = main_module ? "" : m->name, *colon = main_module ? "" : ":";
            if (i->param)
                snprintf(buf, sizeof buf, "%s", i->param);
            else
                snprintf(buf, sizeof buf, "%s%s@%d", pre, colon, pos);
            char *label = strdup(buf);
            for (int k = 1; label && !label_claim(&set, label) && k < 1000; k++) {
                free(label);
                snprintf(buf, sizeof buf, "%s%s@%d_%d", pre, colon, pos, k);
                label = strdup(buf);
            }
            ok = (p->labels[i->id] = label) != NULL;
        }
        free(set.slot);
        if (!ok)
            return false;
    }
    return true;
}

/* The index type: 32 bits unless some value has 2^31 elements or more. */
static const char *index_type(const module *m)
{
    for (const ins *i = m->first; i; i = i->next) {
        int n = shape_is_tuple(&i->sh) ? i->sh.ntuple : 1;
        for (int k = 0; k < n; k++) {
            const shape *sh = shape_is_tuple(&i->sh) ? &i->sh.tuple[k] : &i->sh;
            if (shape_elements(sh) >= (1ll << 31) || shape_element_space(sh) >= (1ll << 31))
                return "unsigned long long";
        }
        for (int k = 0; k < i->nmods; k++)
            if (strcmp(index_type(i->mods[k]), "unsigned") != 0)
                return "unsigned long long";
    }
    return "unsigned";
}

/* Gives each instruction of m, and of the branches of its `if`s
 * (lowered in line, lower_if), a slot in the value table. */
static void number_values(lower_state *s, const module *m, uint32_t *n)
{
    for (const ins *i = m->first; i; i = i->next) {
        if (i->id < s->ninfo)
            s->slot[i->id] = ++*n;
        if (ins_is(i, "if") || ins_is(i, "loop"))
            for (int b = 0; b < i->nmods; b++)
                number_values(s, i->mods[b], n);
    }
}

static cg_program *lower_graph(const graph *g, bool sourceless, graft_error *err)
{
    const module *m = g ? graph_main(g) : NULL;
    if (!m || !m->first) {
        error_set(err, "the graph has no main module to lower");
        return NULL;
    }
    cg_program *p = calloc(1, sizeof *p);
    lower_state s;
    memset(&s, 0, sizeof s);
    s.p = p;
    s.g = g;
    s.err = err;
    s.ninfo = g->next_id + 1;
    s.slot = calloc(s.ninfo, sizeof *s.slot);
    uint32_t nmain = 0;
    if (s.slot)
        number_values(&s, m, &nmain);
    s.info = calloc((size_t)nmain + 1, sizeof *s.info);
    s.idx = index_type(m);
    if (!p || !s.info || !s.slot) {
        free(p);
        free(s.info);
        free(s.slot);
        error_set(err, "out of memory");
        return NULL;
    }
    p->graph_name = g->source;
    p->sourceless = sourceless;
    s.homes = concat_plan_build(m);
    /* labels name instructions in kernel comments and plan.json only */
    if (!s.homes || (!sourceless && !label_graph(p, g, s.ninfo))) {
        concat_plan_free(s.homes);
        free(s.info);
        free(s.slot);
        cg_program_free(p);
        error_set(err, "out of memory");
        return NULL;
    }
    bool ok = true;
    for (const ins *i = m->first; ok && i; i = i->next) {
        if (i->id >= s.ninfo) {
            ok = error_set(err, "instruction ids out of range");
            break;
        }
        ok = lower_ins(&s, i);
    }
    if (ok && !p->outputs) {
        /* no @return: the last instruction is the output, as in the executor */
        const value_info *a = info_of(&s, m->last);
        p->outputs = calloc(1, sizeof *p->outputs);
        if (!p->outputs || !a->known || a->ntuple) {
            ok = error_set(err, "the last instruction cannot be an output");
        } else {
            p->outputs[0].acc = a->acc;
            p->outputs[0].sh = m->last->sh;
            p->noutputs = 1;
        }
    }
    free(s.info);
    free(s.slot);
    concat_plan_free(s.homes);
    if (!ok) {
        cg_program_free(p);
        return NULL;
    }
    for (int k = 0; k < p->noutputs; k++)
        p->buffers[p->outputs[k].acc.buffer].output = true;
    extend_loop_lives(p);
    return p;
}

cg_program *cg_lower(const graph *g, graft_error *err)
{
    return lower_graph(g, false, err);
}

cg_program *cg_lower_sourceless(const graph *g, graft_error *err)
{
    return lower_graph(g, true, err);
}

void cg_program_free(cg_program *p)
{
    if (!p)
        return;
    for (int k = 0; k < p->nkernels; k++) {
        free(p->kernels[k].name);
        free(p->kernels[k].source);
        free(p->kernels[k].args);
        free(p->kernels[k].writes);
        free(p->kernels[k].origin);
    }
    free(p->kernels);
    free(p->loops);
    free(p->buffers);
    free(p->outputs);
    for (uint32_t k = 0; p->labels && k < p->nlabels; k++)
        free(p->labels[k]);
    free(p->labels);
    free(p);
}
