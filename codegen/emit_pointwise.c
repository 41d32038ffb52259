/* emit_pointwise.c: kernels with one thread-loop iteration per output
 * element: single pointwise ops, copies (contiguous, layout, reshape that
 * must move data), convert, where, clip, fused regions whose body is
 * pointwise, and the data-movement ops concat, pad and gather.
 *
 * Every such kernel is a grid-stride loop over the row-major linear index i
 * of its output. A value is produced "at a linear index": an operand is
 * loaded through its access (codegen/cg_emit.c turns the index into an
 * offset), an op combines its operands at the same index, and inside a
 * region a reshape keeps the index while other views map it through their
 * strides into the index of the value they view. Each value gets one C
 * variable per index it is needed at (a small memo), so a value used twice
 * is computed once.
 *
 * Before emitting, the strided maps from the output index to each buffer
 * load (its chain) choose one of three loops: vectors of 2 to 8 elements
 * when every load is contiguous and aligned or uniform over the group,
 * a shared 32x32 tile when a load is transposed relative to the outputs,
 * else one element per iteration. The first two replace a load's scalar
 * reads by a vector's or a tile's elements (overrides) and leave the rest of
 * the evaluator unchanged.
 */
#include "cg_emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PW_MAX_CHAIN = 16, PW_MAX_CHAINS = 32, PW_MAX_LANES = 8 };

typedef enum { LANES_CONTIGUOUS, LANES_UNIFORM, LANES_OTHER } lane_kind;

/* A leaf load and how the output index reaches it (see collect_chains). */
typedef struct pw_chain {
    const ins *leaf;
    int npath;
    const ins *path[PW_MAX_CHAIN]; /* the body's views passed on the way */
    int nlv;
    cg_level lv[PW_MAX_CHAIN];     /* the views' levels, then the access's */
    cg_access acc;
    lane_kind lanes;
    char var[PW_MAX_LANES][24];    /* its value per lane when overridden, else "" */
    const char *ctype;
} pw_chain;

typedef struct pw_memo {
    const ins *v;
    char j[160];
    char var[24];
    const char *ctype;
    int depth;             /* the scope it was declared in; -1: any index, any scope */
} pw_memo;

struct cg_pw {
    cg_kgen *g;
    const ins *root;       /* the instruction being lowered */
    const module *body;    /* the region's body, or NULL for a single op */
    const cg_access *in;   /* accesses of root's operands */
    int nmemo;
    pw_memo memo[512];
    int indent;
    int depth;
    int nchains;
    pw_chain chains[PW_MAX_CHAINS];
    int npath;
    const ins *path[PW_MAX_CHAIN]; /* views passed by value_at so far */
    int fixed;                     /* inside a value read at a constant index */
    int lane;                      /* which lane's overrides apply */
    bool overriding;
};
typedef struct cg_pw pw_ctx;

static void open_loop(cg_kgen *g, int64_t n)
{
    const char *u = strcmp(g->idx, "unsigned") == 0 ? "u" : "ull";
    g->block = 256;
    g->grid = cg_grid_for(n, g->block);
    cg_printf(&g->body,
              "    for (%s i = (%s)blockIdx.x * blockDim.x + threadIdx.x; i < %lld%s;\n"
              "         i += (%s)gridDim.x * blockDim.x) {\n",
              g->idx, g->idx, (long long)n, u, g->idx);
}

static void close_loop(cg_kgen *g) { cg_puts(&g->body, "    }\n"); }

/* Stores var (of compute type ct) as output element i, closes the loop. */
static bool store_and_close(cg_kgen *g, const ins *i, const cg_access *out, const char *ct,
                            const char *var)
{
    char off[1100], conv[1400];
    cg_offset_linear(g, out, "i", 8, off, sizeof off);
    cg_store_conversion(i->sh.type, ct, var, conv, sizeof conv);
    cg_printf(&g->body, "        p%d[%s] = %s;\n", cg_param(g, out->buffer, true), off, conv);
    close_loop(g);
    return !g->failed;
}

/* The compute type an op works in: the widest float among its operands
 * (those that carry data: not where's condition), else integers. */
static const char *op_ctype(const ins *v)
{
    bool any_float = false, any_double = false;
    int first = ins_is(v, "where") ? 1 : 0;
    for (int k = first; k < v->nargs; k++) {
        graft_type t = v->args[k]->sh.type;
        any_float |= type_is_float(t);
        any_double |= t == GRAFT_DOUBLE;
    }
    if (ins_is(v, "convert"))
        return cg_compute_type(v->args[0]->sh.type);
    return any_double ? "double" : any_float ? "float" : "long long";
}

static bool value_at(pw_ctx *c, const ins *v, const char *j, char *var, size_t size,
                     const char **ctype);

/* The operand index of region parameter x<k>. */
static int param_index(const ins *p)
{
    return p->param && p->param[0] == 'x' ? atoi(p->param + 1) : -1;
}
/* ---- leaf chains: how each loaded element follows from the output index ---- */

/* A leaf is a load of a buffer: an operand of the instruction (a region
 * parameter) or a literal of the body. Its chain is the list of strided
 * maps the output's linear index goes through to become the leaf's element
 * offset: the views of the body on the way (each takes a linear index over
 * its lens), then the leaf's access levels. The vector and tile paths decide
 * from the chains, at generation time, and then replace the leaf's scalar
 * loads by elements of a vector or of a shared tile (an override). */

static bool chain_add(pw_ctx *c, const ins *leaf, const cg_access *a, const cg_level *lv, int nlv,
                      const ins *const *path, int npath)
{
    if (shape_elements(&leaf->sh) == 1)
        return true; /* one element: a scalar load, never overridden */
    for (int q = 0; q < c->nchains; q++) {
        pw_chain *h = &c->chains[q];
        if (h->leaf == leaf && h->npath == npath &&
            memcmp(h->path, path, (size_t)npath * sizeof *path) == 0)
            return true;
    }
    if (c->nchains == PW_MAX_CHAINS || nlv + a->nlevels > PW_MAX_CHAIN || npath > PW_MAX_CHAIN)
        return false;
    pw_chain *h = &c->chains[c->nchains++];
    memset(h, 0, sizeof *h);
    h->leaf = leaf;
    h->acc = *a;
    h->npath = npath;
    memcpy(h->path, path, (size_t)npath * sizeof *path);
    memcpy(h->lv, lv, (size_t)nlv * sizeof *lv);
    memcpy(h->lv + nlv, a->lv, (size_t)a->nlevels * sizeof *lv);
    h->nlv = nlv + a->nlevels;
    return true;
}

/* Collects the chains of every leaf v depends on; false when some value is
 * not a strided map of the output index (a pad) or there are too many. */
static bool collect_chains(pw_ctx *c, const ins *v, cg_level *lv, int nlv, const ins **path,
                           int npath)
{
    if (!c->body && v != c->root) {
        int k = 0;
        while (k < c->root->nargs && c->root->args[k] != v)
            k++;
        return k < c->root->nargs && chain_add(c, v, &c->in[k], lv, nlv, path, npath);
    }
    if (c->body && v->param) {
        int k = param_index(v);
        return k >= 0 && k < c->root->nargs && chain_add(c, v, &c->in[k], lv, nlv, path, npath);
    }
    if (c->body && ins_is(v, "@literal")) {
        int b = cg_literal_buffer(c->g->p, v, c->g->err);
        if (b < 0)
            return false;
        cg_access a = cg_access_of_buffer(c->g->p, b);
        return chain_add(c, v, &a, lv, nlv, path, npath);
    }
    if (c->body && (ins_is(v, "reshape") || ins_is(v, "contiguous") || ins_is(v, "identity") ||
                    ins_is(v, "layout")))
        return collect_chains(c, v->args[0], lv, nlv, path, npath);
    if (c->body && (v->op->classes & OPC_VIEW) && !ins_is(v, "get_tuple_elem") && v->nargs > 0) {
        if (nlv == PW_MAX_CHAIN || npath == PW_MAX_CHAIN)
            return false;
        cg_level *l = &lv[nlv];
        memset(l, 0, sizeof *l);
        l->rank = v->sh.rank;
        memcpy(l->lens, v->sh.lens, sizeof l->lens);
        memcpy(l->strides, v->sh.strides, sizeof l->strides);
        const ins *r = v;
        while (r->op->classes & OPC_VIEW && !ins_is(r, "get_tuple_elem") && r->nargs > 0) {
            if (ins_is(r, "slice"))
                l->offset += cg_slice_offset(r);
            r = r->args[0];
        }
        if (!shape_standard_p(&r->sh) && shape_elements(&r->sh) > 1)
            return false;
        path[npath] = v;
        return collect_chains(c, r, lv, nlv + 1, path, npath + 1);
    }
    if (v->op->classes & OPC_POINTWISE || (!c->body && (v->op->classes & OPC_MOVE))) {
        for (int k = 0; k < v->nargs; k++) {
            if (ins_is(v, "where") && k == 0 && shape_elements(&v->args[0]->sh) == 1)
                continue; /* read at index 0: never overridden (c->fixed) */
            if (!collect_chains(c, v->args[k], lv, nlv, path, npath))
                return false;
        }
        return true;
    }
    return false;
}

/* The innermost run of contiguous non-unit dimensions of a level, merged as
 * cg_level_linear merges them: its length and stride; false when every
 * dimension has length 1. */
static bool innermost_run(const cg_level *l, int64_t *len, int64_t *stride, int *first)
{
    int d = l->rank - 1;
    while (d >= 0 && l->lens[d] == 1)
        d--;
    if (d < 0)
        return false;
    *len = l->lens[d];
    *stride = l->strides[d];
    int prev = d;
    for (int a = d - 1; a >= 0; a--) {
        if (l->lens[a] == 1)
            continue;
        if (l->strides[a] != l->strides[prev] * l->lens[prev])
            break;
        *len *= l->lens[a];
        prev = a;
    }
    *first = prev;
    return true;
}


/* How W consecutive output indices i0 .. i0+W-1 (i0 a multiple of W, all
 * below the output's element count) map through the levels: to W
 * consecutive offsets starting at a multiple of W (contiguous), to one
 * offset (uniform), or otherwise. */
static lane_kind chain_lanes(const cg_level *lv, int nlv, int64_t w)
{
    for (int k = 0; k < nlv; k++) {
        const cg_level *l = &lv[k];
        int64_t len, stride;
        int first;
        if (!innermost_run(l, &len, &stride, &first))
            return LANES_UNIFORM; /* one element: the same offset for every lane */
        int64_t n = cg_product(l->lens, 0, l->rank);
        if (len % w != 0 && len != n)
            return LANES_OTHER; /* a group of lanes would cross a row */
        if (stride == 0)
            return LANES_UNIFORM;
        if (stride != 1 || l->offset % w != 0)
            return LANES_OTHER;
        for (int d = 0; d < first; d++)
            if (l->lens[d] != 1 && l->strides[d] % w != 0)
                return LANES_OTHER;
    }
    return LANES_CONTIGUOUS;
}

/* The override of leaf reached along the current path, if any. */
static bool leaf_override(pw_ctx *c, const ins *leaf, char *var, size_t size, const char **ctype)
{
    if (!c->overriding || c->fixed)
        return false;
    for (int q = 0; q < c->nchains; q++) {
        const pw_chain *h = &c->chains[q];
        if (h->leaf == leaf && h->npath == c->npath && h->var[c->lane][0] &&
            memcmp(h->path, c->path, (size_t)c->npath * sizeof *c->path) == 0) {
            snprintf(var, size, "%s", h->var[c->lane]);
            *ctype = h->ctype;
            return true;
        }
    }
    return false;
}

static bool load_operand(pw_ctx *c, int k, const char *j, const ins *as, char *var, size_t size,
                         const char **ctype)
{
    *ctype = cg_compute_type(as->sh.type);
    cg_load_linear(c->g, &c->in[k], j, *ctype, c->indent, var, size);
    return true;
}

/* A view inside a region: the linear index of the value it views. */
static bool view_index(pw_ctx *c, const ins *v, const char *j, const ins **root, char *out,
                       size_t size)
{
    cg_level lv;
    memset(&lv, 0, sizeof lv);
    lv.rank = v->sh.rank;
    memcpy(lv.lens, v->sh.lens, sizeof lv.lens);
    memcpy(lv.strides, v->sh.strides, sizeof lv.strides);
    const ins *r = v;
    while (r->op->classes & OPC_VIEW && !ins_is(r, "get_tuple_elem") && r->nargs > 0) {
        if (ins_is(r, "slice"))
            lv.offset += cg_slice_offset(r);
        r = r->args[0];
    }
    if (!shape_standard_p(&r->sh) && shape_elements(&r->sh) > 1)
        return cg_fail(c->g, "not lowered yet: a view of %s inside region %s, whose layout is "
                             "not standard",
                       r->name ? r->name : "?", c->body->name);
    *root = r;
    cg_level_linear(&lv, j, c->g->idx, out, size);
    return true;
}

/* Whether view v of the standard value r maps each linear index over v's
 * lens to the same linear index over r's (no offset, as many elements,
 * v's strides row-major on every axis longer than 1): a slice of a whole
 * axis, an unsqueeze, a squeeze. */
static bool view_keeps_index(const ins *v, const ins *r)
{
    int64_t offset = 0;
    for (const ins *q = v; q != r; q = q->args[0])
        if (ins_is(q, "slice"))
            offset += cg_slice_offset(q);
    if (offset != 0 || shape_elements(&v->sh) != shape_elements(&r->sh))
        return false;
    int64_t strides[SHAPE_MAX_RANK];
    cg_standard_strides(v->sh.rank, v->sh.lens, strides);
    for (int d = 0; d < v->sh.rank; d++)
        if (v->sh.lens[d] > 1 && v->sh.strides[d] != strides[d])
            return false;
    return true;
}

static bool compute_op(pw_ctx *c, const ins *v, const char *const *argv, const char *const *argt,
                       char *var, size_t size, const char **ctype)
{
    const char *opt = op_ctype(v);
    char conv[8][200];
    const char *args[8];
    if (v->nargs > 8)
        return cg_fail(c->g, "not lowered yet: op %s with %d operands", v->opname, v->nargs);
    bool int_op = strcmp(opt, "long long") == 0;
    char expr[4096];
    bool ok = false;
    for (int pass = 0; pass < 2 && !ok; pass++) {
        const char *want = pass == 0 ? opt : "double";
        if (pass == 1 && !int_op)
            break;
        for (int k = 0; k < v->nargs; k++) {
            bool cond = ins_is(v, "where") && k == 0;
            if (cond || strcmp(argt[k], want) == 0)
                snprintf(conv[k], sizeof conv[k], "%s", argv[k]);
            else
                snprintf(conv[k], sizeof conv[k], "(%s)%s", want, argv[k]);
            args[k] = conv[k];
        }
        ok = cg_pointwise_expr(v, want, args, v->nargs, expr, sizeof expr);
        if (ok)
            opt = want;
    }
    if (!ok)
        return cg_fail(c->g, "not lowered yet: op %s on %s", v->opname,
                       type_name(v->args[0]->sh.type));
    *ctype = cg_compute_type(v->sh.type);
    cg_fresh(c->g, var, size);
    if (strcmp(*ctype, "long long") == 0 && strcmp(opt, "long long") != 0) {
        char st[4200];
        if (v->sh.type == GRAFT_BOOL)
            snprintf(st, sizeof st, "(long long)((%s) != 0)", expr);
        else
            cg_store_conversion(v->sh.type, opt, expr, st, sizeof st);
        cg_printf(&c->g->body, "%*sconst long long %s = (long long)%s;\n", c->indent, "", var,
                  st);
    } else if (v->sh.type == GRAFT_HALF && strcmp(opt, "float") == 0) {
        /* round to half between ops, as the reference stores each op's result */
        cg_printf(&c->g->body, "%*sconst float %s = (float)(__half)(%s);\n", c->indent, "", var,
                  expr);
    } else if (v->sh.type == GRAFT_BF16) {
        cg_printf(&c->g->body, "%*sconst float %s = graft_bf16_to_f(graft_f_to_bf16((float)(%s)));\n",
                  c->indent, "", var, expr);
    } else if (strcmp(*ctype, opt) == 0) {
        cg_printf(&c->g->body, "%*sconst %s %s = %s;\n", c->indent, "", *ctype, var, expr);
    } else {
        cg_printf(&c->g->body, "%*sconst %s %s = (%s)(%s);\n", c->indent, "", *ctype, var,
                  *ctype, expr);
    }
    return true;
}

static bool value_at(pw_ctx *c, const ins *v, const char *j, char *var, size_t size,
                     const char **ctype)
{
    for (int m = 0; m < c->nmemo; m++)
        if (c->memo[m].v == v && (c->memo[m].depth < 0 || strcmp(c->memo[m].j, j) == 0)) {
            snprintf(var, size, "%s", c->memo[m].var);
            *ctype = c->memo[m].ctype;
            return true;
        }
    if (!cg_type_supported(v->sh.type))
        return cg_fail(c->g, "not lowered yet: type %s (%s)", type_name(v->sh.type),
                       v->name ? v->name : v->opname);
    bool ok;
    bool leaf = (!c->body && v != c->root) || (c->body && (v->param || ins_is(v, "@literal")));
    if (leaf && leaf_override(c, v, var, size, ctype))
        return true;
    if (!c->body && v != c->root) {
        int k = 0;
        while (k < c->root->nargs && c->root->args[k] != v)
            k++;
        ok = load_operand(c, k, j, v, var, size, ctype);
    } else if (c->body && v->param) {
        int k = param_index(v);
        if (k < 0 || k >= c->root->nargs)
            return cg_fail(c->g, "region %s: parameter %s binds no operand", c->body->name,
                           v->param);
        ok = load_operand(c, k, j, v, var, size, ctype);
    } else if (c->body && ins_is(v, "@literal")) {
        int b = cg_literal_buffer(c->g->p, v, c->g->err);
        if (b < 0)
            return cg_fail(c->g, "%s", c->g->err ? c->g->err->message : "literal");
        cg_access a = cg_access_of_buffer(c->g->p, b);
        *ctype = cg_compute_type(v->sh.type);
        cg_load_linear(c->g, &a, j, *ctype, c->indent, var, size);
        ok = true;
    } else if (c->body && (ins_is(v, "reshape") || ins_is(v, "contiguous") ||
                           ins_is(v, "identity") || ins_is(v, "layout"))) {
        ok = value_at(c, v->args[0], j, var, size, ctype);
    } else if (c->body && ins_is(v, "pad")) {
        ok = cg_pad_value(c, c->g, c->indent, v, j, var, size, ctype);
    } else if (c->body && (v->op->classes & OPC_VIEW) && !ins_is(v, "get_tuple_elem")) {
        const ins *r = NULL;
        char jj[1024];
        if (!view_index(c, v, j, &r, jj, sizeof jj))
            return false;
        for (int m = 0; m < c->nmemo; m++)
            if (c->memo[m].v == r && c->memo[m].depth < 0) {
                /* a per-row value (a reduction): the same at every index */
                snprintf(var, size, "%s", c->memo[m].var);
                *ctype = c->memo[m].ctype;
                return true;
            }
        if (c->npath == PW_MAX_CHAIN)
            return cg_fail(c->g, "region %s: views nested too deep", c->body->name);
        c->path[c->npath++] = v;
        if ((r->param || ins_is(r, "@literal")) && leaf_override(c, r, var, size, ctype)) {
            c->npath--;
            return true;
        }
        if (view_keeps_index(v, r)) {
            /* the same linear index: a value bound at j (a product's
             * element in its epilogue) is found again through the view */
            ok = value_at(c, r, j, var, size, ctype);
            c->npath--;
            return ok;
        }
        char name[32];
        cg_fresh(c->g, name, sizeof name);
        cg_printf(&c->g->body, "%*sconst %s %s = %s;\n", c->indent, "", c->g->idx, name, jj);
        ok = value_at(c, r, name, var, size, ctype);
        c->npath--;
    } else if (v->op->classes & OPC_POINTWISE || (!c->body && (v->op->classes & OPC_MOVE))) {
        bool copy = !(v->op->classes & OPC_POINTWISE);
        char argv[8][24];
        const char *av[8], *at[8];
        if (v->nargs > 8)
            return cg_fail(c->g, "not lowered yet: op %s with %d operands", v->opname, v->nargs);
        for (int k = 0; k < v->nargs; k++) {
            bool one = ins_is(v, "where") && k == 0 && shape_elements(&v->args[0]->sh) == 1;
            c->fixed += one;
            bool got = value_at(c, v->args[k], one ? "0" : j, argv[k], sizeof argv[k], &at[k]);
            c->fixed -= one;
            if (!got)
                return false;
            av[k] = argv[k];
        }
        if (copy) {
            snprintf(var, size, "%s", av[0]);
            *ctype = at[0];
            ok = true;
        } else {
            ok = compute_op(c, v, av, at, var, size, ctype);
        }
    } else if (v->op->classes & OPC_REDUCE) {
        return cg_fail(c->g, "region %s: reduction %s used before it is computed",
                       c->body ? c->body->name : "?", v->name ? v->name : v->opname);
    } else {
        return cg_fail(c->g, "not lowered yet: op %s inside region %s", v->opname,
                       c->body ? c->body->name : "?");
    }
    if (ok && c->nmemo < (int)(sizeof c->memo / sizeof c->memo[0]) && strlen(j) < 160) {
        pw_memo *m = &c->memo[c->nmemo++];
        m->v = v;
        snprintf(m->j, sizeof m->j, "%s", j);
        snprintf(m->var, sizeof m->var, "%s", var);
        m->ctype = *ctype;
        m->depth = c->depth;
    }
    return ok;
}

/* The parameter writing buffer b: one per output buffer, however many loops
 * store into it. */
static int output_param(cg_kgen *g, int b)
{
    for (int k = 0; k < g->nparams; k++)
        if (g->param_buffer[k] == b && g->param_writes[k])
            return k;
    return cg_param(g, b, true);
}

static bool store(pw_ctx *c, const cg_access *out, const char *var, const char *ctype,
                  graft_type t)
{
    char off[1100], el[1200], conv[1400];
    cg_offset_linear(c->g, out, "i", c->indent, off, sizeof off);
    int k = output_param(c->g, out->buffer);
    snprintf(el, sizeof el, "p%d[%s]", k, off);
    cg_store_conversion(t, ctype, var, conv, sizeof conv);
    cg_printf(&c->g->body, "%*s%s = %s;\n", c->indent, "", el, conv);
    return true;
}

/* ---- the vector path ---- */

static const char *index_suffix(const cg_kgen *g)
{
    return strcmp(g->idx, "unsigned") == 0 ? "u" : "ull";
}

/* The offset expression of chain levels lv[0..nlv) at linear index j; the
 * intermediate levels become statements at indent. */
static void chain_offset(cg_kgen *g, const cg_level *lv, int nlv, const char *j, int indent,
                         char *out, size_t size)
{
    char cur[1100];
    snprintf(cur, sizeof cur, "%s", j);
    for (int k = 0; k < nlv; k++) {
        char expr[1100];
        cg_level_linear(&lv[k], cur, g->idx, expr, sizeof expr);
        if (k == nlv - 1) {
            snprintf(out, size, "%s", expr);
            return;
        }
        cg_fresh(g, cur, sizeof cur);
        cg_printf(&g->body, "%*sconst %s %s = %s;\n", indent, "", g->idx, cur, expr);
    }
    snprintf(out, size, "%s", j);
}

/* The name of a vector of w elements of t: a struct aligned to its size, so
 * one load or store moves it (declared in the kernel body on first use). */
static void vector_type(cg_kgen *g, graft_type t, int w, char *name, size_t size)
{
    const char *st = cg_storage_type(t);
    char clean[32];
    size_t n = 0;
    for (const char *s = st; *s && n + 1 < sizeof clean; s++)
        clean[n++] = *s == ' ' ? '_' : *s;
    clean[n] = 0;
    snprintf(name, size, "graft_v%d_%s", w, clean);
    char decl[200];
    snprintf(decl, sizeof decl, "typedef struct __attribute__((aligned(%zu))) { %s e[%d]; } %s;",
             (size_t)w * type_size(t), st, w, name);
    if (!g->body.text || !strstr(g->body.text, decl))
        cg_printf(&g->body, "    %s\n", decl);
}

/* The widest vector (in elements, 2 to 8, 16 bytes at most) every chain and
 * output allows, or 0: each leaf contiguous and aligned or uniform over a
 * group of lanes, each output contiguous and aligned. */
static int vector_width(pw_ctx *c, const cg_access *out, int nout, int64_t n)
{
    size_t widest = 1;
    for (int k = 0; k < nout; k++)
        widest = type_size(out[k].type) > widest ? type_size(out[k].type) : widest;
    for (int q = 0; q < c->nchains; q++)
        widest = type_size(c->chains[q].acc.type) > widest ? type_size(c->chains[q].acc.type)
                                                          : widest;
    int w = (int)(16 / widest);
    if (w > PW_MAX_LANES)
        w = PW_MAX_LANES;
    for (; w >= 2; w /= 2) {
        bool fits = n >= w;
        for (int k = 0; fits && k < nout; k++)
            fits = chain_lanes(out[k].lv, out[k].nlevels, w) == LANES_CONTIGUOUS;
        for (int q = 0; fits && q < c->nchains; q++) {
            c->chains[q].lanes = chain_lanes(c->chains[q].lv, c->chains[q].nlv, w);
            fits = c->chains[q].lanes != LANES_OTHER;
        }
        if (fits)
            return w;
    }
    return 0;
}

/* Scalar values of every output at linear index "i", stored (the loop is
 * open at indent 8). */
static bool values_stored(pw_ctx *c, const ins *const *values, int nout, const cg_access *out)
{
    bool ok = true;
    for (int k = 0; ok && k < nout; k++) {
        char var[32];
        const char *ctype;
        ok = value_at(c, values[k], "i", var, sizeof var, &ctype) &&
             store(c, &out[k], var, ctype, values[k]->sh.type);
    }
    return ok;
}

/* Each thread takes w consecutive outputs: contiguous leaves are loaded as
 * one vector each, uniform ones once, the values are computed per lane and
 * every output is stored as one vector; the last n % w elements are a
 * scalar tail. */
static bool emit_vector(pw_ctx *c, const ins *const *values, int nout, const cg_access *out,
                        const cg_access *out_vec, const cg_level *logical, int64_t n, int w)
{
    cg_kgen *g = c->g;
    const char *u = index_suffix(g);
    int64_t nv = n / w;
    g->block = 256;
    g->grid = cg_grid_for(nv, g->block);
    char otype[64][48];
    for (int k = 0; k < nout; k++)
        vector_type(g, out[k].type, w, otype[k], sizeof otype[k]);
    for (int q = 0; q < c->nchains; q++)
        if (c->chains[q].lanes == LANES_CONTIGUOUS) {
            char vt[48];
            vector_type(g, c->chains[q].acc.type, w, vt, sizeof vt);
        }
    cg_printf(&g->body,
              "    for (%s v = (%s)blockIdx.x * blockDim.x + threadIdx.x; v < %lld%s;\n"
              "         v += (%s)gridDim.x * blockDim.x) {\n"
              "        const %s i0 = v * %d%s;\n",
              g->idx, g->idx, (long long)nv, u, g->idx, g->idx, w, u);
    for (int q = 0; q < c->nchains; q++) {
        pw_chain *h = &c->chains[q];
        char off[1100], el[1200], name[24], vt[48];
        const char *ct = cg_compute_type(h->acc.type);
        h->ctype = ct;
        chain_offset(g, h->lv, h->nlv, "i0", 8, off, sizeof off);
        int p = cg_param(g, h->acc.buffer, false);
        if (h->lanes == LANES_UNIFORM) {
            cg_element(g, &h->acc, off, el, sizeof el);
            cg_fresh(g, name, sizeof name);
            cg_printf(&g->body, "        const %s %s = (%s)%s;\n", ct, name, ct, el);
            for (int l = 0; l < w; l++)
                snprintf(h->var[l], sizeof h->var[l], "%s", name);
            continue;
        }
        vector_type(g, h->acc.type, w, vt, sizeof vt);
        cg_fresh(g, name, sizeof name);
        cg_printf(&g->body, "        const %s %s = *(const %s *)(p%d + (%s));\n", vt, name, vt, p,
                  off);
        for (int l = 0; l < w; l++) {
            cg_fresh(g, h->var[l], sizeof h->var[l]);
            if (h->acc.type == GRAFT_BF16)
                cg_printf(&g->body, "        const float %s = graft_bf16_to_f(%s.e[%d]);\n",
                          h->var[l], name, l);
            else
                cg_printf(&g->body, "        const %s %s = (%s)%s.e[%d];\n", ct, h->var[l], ct,
                          name, l);
        }
    }
    for (int k = 0; k < nout; k++)
        cg_printf(&g->body, "        %s o%d;\n", otype[k], k);
    bool ok = true;
    c->overriding = true;
    for (int l = 0; ok && l < w; l++) {
        cg_pw_enter(c, 12);
        char m[64], li[1100];
        snprintf(m, sizeof m, "i0 + %d%s", l, u);
        if (logical)
            cg_level_linear(logical, m, g->idx, li, sizeof li);
        else
            snprintf(li, sizeof li, "%s", m);
        cg_printf(&g->body, "        {\n            const %s i = %s;\n            (void)i;\n",
                  g->idx, li);
        c->lane = l;
        for (int k = 0; ok && k < nout; k++) {
            char var[32], conv[1400];
            const char *ctype;
            ok = value_at(c, values[k], "i", var, sizeof var, &ctype);
            cg_store_conversion(values[k]->sh.type, ctype, var, conv, sizeof conv);
            if (ok)
                cg_printf(&g->body, "            o%d.e[%d] = %s;\n", k, l, conv);
        }
        cg_puts(&g->body, "        }\n");
        cg_pw_leave(c, 8);
    }
    c->overriding = false;
    for (int k = 0; ok && k < nout; k++) {
        char off[1100];
        cg_offset_linear(g, &out_vec[k], "i0", 8, off, sizeof off);
        cg_printf(&g->body, "        *(%s *)(p%d + (%s)) = o%d;\n", otype[k],
                  output_param(g, out[k].buffer), off, k);
    }
    close_loop(g);
    if (ok && n % w != 0) {
        cg_pw_enter(c, 8);
        cg_printf(&g->body,
                  "    for (%s m = %lld%s + (%s)blockIdx.x * blockDim.x + threadIdx.x; m < %lld%s;\n"
                  "         m += (%s)gridDim.x * blockDim.x) {\n",
                  g->idx, (long long)(nv * w), u, g->idx, (long long)n, u, g->idx);
        char li[1100];
        if (logical)
            cg_level_linear(logical, "m", g->idx, li, sizeof li);
        else
            snprintf(li, sizeof li, "m");
        cg_printf(&g->body, "        const %s i = %s;\n", g->idx, li);
        ok = values_stored(c, values, nout, out);
        close_loop(g);
        cg_pw_leave(c, 8);
    }
    return ok;
}

/* ---- vectors in the outputs' memory order ---- */

static bool chain_affine(const cg_level *lv, int nlv, int rank, const int64_t *lens,
                         int64_t *strides, int64_t *offset);

/* When the outputs are not in standard layout but every load is a strided
 * map of the output's multi-index (chain_affine), the loop can walk the
 * output's memory order instead: each chain becomes one level over the
 * output's dimensions sorted by the first output's strides (outermost
 * first), and an output shared layout is linear again. Tries the vector
 * path that way; on success the kernel is emitted and *done is set; the
 * chains are left as they were otherwise. */
static bool vector_in_memory_order(pw_ctx *c, const ins *const *values, int nout,
                                   const cg_access *out, int64_t n, bool *done)
{
    *done = false;
    const shape *os = &values[0]->sh;
    int rank = os->rank;
    for (int k = 1; k < nout; k++)
        if (values[k]->sh.rank != rank ||
            memcmp(values[k]->sh.lens, os->lens, (size_t)rank * sizeof *os->lens) != 0)
            return true;
    int64_t ostr[SHAPE_MAX_RANK], oo;
    if (n == 0 || !chain_affine(out[0].lv, out[0].nlevels, rank, os->lens, ostr, &oo))
        return true;
    /* the order: decreasing output stride, ties in logical order */
    int perm[SHAPE_MAX_RANK];
    for (int d = 0; d < rank; d++)
        perm[d] = d;
    for (int a = 1; a < rank; a++)
        for (int b = a; b > 0 && ostr[perm[b]] > ostr[perm[b - 1]]; b--) {
            int t = perm[b];
            perm[b] = perm[b - 1];
            perm[b - 1] = t;
        }
    bool identity = true;
    for (int d = 0; d < rank; d++)
        identity = identity && (perm[d] == d || os->lens[perm[d]] == 1);
    if (identity)
        return true; /* already the logical order: nothing to gain */
    int64_t std[SHAPE_MAX_RANK];
    cg_standard_strides(rank, os->lens, std);
    cg_level logical;
    memset(&logical, 0, sizeof logical);
    logical.rank = rank;
    for (int p = 0; p < rank; p++) {
        logical.lens[p] = os->lens[perm[p]];
        logical.strides[p] = std[perm[p]];
    }
    cg_access ov[64];
    for (int k = 0; k < nout; k++) {
        int64_t st[SHAPE_MAX_RANK], o;
        if (!chain_affine(out[k].lv, out[k].nlevels, rank, os->lens, st, &o))
            return true;
        ov[k] = out[k];
        ov[k].nlevels = 1;
        ov[k].lv[0] = logical;
        ov[k].lv[0].offset = o;
        for (int p = 0; p < rank; p++)
            ov[k].lv[0].strides[p] = st[perm[p]];
    }
    pw_chain *saved = malloc((size_t)c->nchains * sizeof *saved + 1);
    if (!saved)
        return cg_fail(c->g, "out of memory");
    memcpy(saved, c->chains, (size_t)c->nchains * sizeof *saved);
    bool affine = true;
    for (int q = 0; affine && q < c->nchains; q++) {
        pw_chain *h = &c->chains[q];
        int64_t st[SHAPE_MAX_RANK], o;
        affine = chain_affine(h->lv, h->nlv, rank, os->lens, st, &o);
        h->nlv = 1;
        h->lv[0] = logical;
        h->lv[0].offset = o;
        for (int p = 0; p < rank; p++)
            h->lv[0].strides[p] = st[perm[p]];
    }
    int w = affine ? vector_width(c, ov, nout, n) : 0;
    if (w) {
        c->g->kind = w == 2 ? "pointwise_vec2" : w == 4 ? "pointwise_vec4" : "pointwise_vec8";
        *done = true;
        free(saved);
        return emit_vector(c, values, nout, out, ov, &logical, n, w);
    }
    memcpy(c->chains, saved, (size_t)c->nchains * sizeof *saved);
    free(saved);
    return true;
}

/* ---- the tile path ---- */

enum { PW_TILE = 32, PW_TILE_ROWS = 8 }; /* 32 x 32 tiles, 256 threads: 8 rows at a time */

/* The chain levels lv[0..nlv) as one strided map of the output's
 * multi-index over lens[0..rank): strides and offset. False when the
 * composition is not such a map: each level must take its index as digits
 * over its own lens (every stride of the index so far is the row-major
 * stride of one distinct dimension of the level, whose range holds the
 * digits), which views, slices, broadcasts and reshapes that only split or
 * merge unit dimensions satisfy. */
static bool chain_affine(const cg_level *lv, int nlv, int rank, const int64_t *lens,
                         int64_t *strides, int64_t *offset)
{
    int64_t a[SHAPE_MAX_RANK], a0 = 0;
    cg_standard_strides(rank, lens, a);
    for (int k = 0; k < nlv; k++) {
        const cg_level *l = &lv[k];
        int64_t sm[SHAPE_MAX_RANK], digit[SHAPE_MAX_RANK];
        cg_standard_strides(l->rank, l->lens, sm);
        int64_t rest = a0;
        for (int q = 0; q < l->rank; q++) {
            digit[q] = l->lens[q] > 0 ? rest / sm[q] : 0;
            rest -= digit[q] * sm[q];
        }
        bool used[SHAPE_MAX_RANK] = {false};
        int64_t na[SHAPE_MAX_RANK], na0 = l->offset;
        for (int d = 0; d < rank; d++) {
            na[d] = 0;
            if (lens[d] == 1 || a[d] == 0)
                continue;
            int q = 0;
            while (q < l->rank && !(l->lens[q] > 1 && sm[q] == a[d]))
                q++;
            if (q == l->rank || used[q] || digit[q] + lens[d] - 1 >= l->lens[q])
                return false;
            used[q] = true;
            na[d] = l->strides[q];
        }
        for (int q = 0; q < l->rank; q++)
            na0 += digit[q] * l->strides[q];
        memcpy(a, na, sizeof a);
        a0 = na0;
    }
    memcpy(strides, a, (size_t)rank * sizeof *strides);
    *offset = a0;
    return true;
}

/* A shared tile when some leaf is transposed relative to the outputs: the
 * outputs are contiguous along output dimension `fast`, the leaf along
 * `across`. Each 32 x 32 tile of (across, fast) is read from the leaf along
 * `across` (neighbouring threads, neighbouring addresses) into shared
 * memory (+1 column against bank conflicts), and after a barrier every
 * thread computes and stores along `fast`, reading the tile transposed.
 * Blocks loop over tiles, so every thread reaches every barrier. */
static bool emit_tiled(pw_ctx *c, const ins *const *values, int nout, const cg_access *out,
                       int64_t n)
{
    cg_kgen *g = c->g;
    const shape *os = &values[0]->sh;
    int rank = os->rank;
    if (n == 0)
        return false;
    for (int k = 1; k < nout; k++)
        if (values[k]->sh.rank != rank ||
            memcmp(values[k]->sh.lens, os->lens, (size_t)rank * sizeof *os->lens) != 0)
            return false;
    /* the outputs' fast dimension */
    int fast = -1;
    for (int d = rank - 1; d >= 0 && fast < 0; d--) {
        if (os->lens[d] == 1)
            continue;
        bool unit = true;
        for (int k = 0; unit && k < nout; k++) {
            int64_t st[SHAPE_MAX_RANK], o;
            unit = chain_affine(out[k].lv, out[k].nlevels, rank, os->lens, st, &o) && st[d] == 1;
        }
        fast = unit ? d : -2;
    }
    if (fast < 0)
        return false;
    /* the transposed leaves */
    int across = -1;
    int64_t cs[PW_MAX_CHAINS][SHAPE_MAX_RANK], co[PW_MAX_CHAINS];
    bool tiled[PW_MAX_CHAINS] = {false};
    for (int q = 0; q < c->nchains; q++) {
        if (!chain_affine(c->chains[q].lv, c->chains[q].nlv, rank, os->lens, cs[q], &co[q]) ||
            cs[q][fast] == 1 || cs[q][fast] == 0)
            continue;
        for (int d = 0; d < rank && across < 0; d++)
            if (d != fast && os->lens[d] > 1 && cs[q][d] == 1)
                across = d;
        tiled[q] = across >= 0 && cs[q][across] == 1;
    }
    if (across < 0)
        return false;
    const char *u = index_suffix(g);
    const char *ix = g->idx;
    int64_t lf = os->lens[fast], la = os->lens[across];
    int64_t tf = (lf + PW_TILE - 1) / PW_TILE, ta = (la + PW_TILE - 1) / PW_TILE;
    int64_t batches = n / (lf * la), ntiles = batches * tf * ta;
    int64_t ostd[SHAPE_MAX_RANK];
    cg_standard_strides(rank, os->lens, ostd);
    g->kind = "pointwise_tile";
    g->block = PW_TILE * PW_TILE_ROWS;
    g->grid = ntiles > CG_MAX_GRID ? CG_MAX_GRID : (unsigned)ntiles;
    g->barriers = true;
    for (int q = 0; q < c->nchains; q++)
        if (tiled[q])
            cg_printf(&g->body, "    __shared__ %s tile%d[%d][%d];\n",
                      cg_compute_type(c->chains[q].acc.type), q, PW_TILE, PW_TILE + 1);
    cg_printf(&g->body,
              "    const %s tx = threadIdx.x %% %d%s, ty = threadIdx.x / %d%s;\n"
              "    for (%s tile = blockIdx.x; tile < %lld%s; tile += gridDim.x) {\n"
              "        const %s f0 = tile %% %lld%s * %d%s, a0 = tile / %lld%s %% %lld%s * %d%s, "
              "bt = tile / %lld%s;\n        (void)bt;\n",
              ix, PW_TILE, u, PW_TILE, u, ix, (long long)ntiles, u, ix, (long long)tf, u,
              PW_TILE, u, (long long)tf, u, (long long)ta, u, PW_TILE, u,
              (long long)(tf * ta), u);
    /* the other dimensions come from bt: the output's index base, each
     * tiled leaf's offset base */
    char ib[1024];
    size_t used = (size_t)snprintf(ib, sizeof ib, "0%s", u);
    char qb[PW_MAX_CHAINS][1024];
    for (int q = 0; q < c->nchains; q++)
        if (tiled[q])
            snprintf(qb[q], sizeof qb[q], "%lld%s", (long long)co[q], u);
    int64_t inner = 1;
    for (int d = rank - 1; d >= 0; d--) {
        if (d == fast || d == across || os->lens[d] == 1)
            continue;
        char m[128];
        snprintf(m, sizeof m, "(bt / %lld%s %% %lld%s)", (long long)inner, u,
                 (long long)os->lens[d], u);
        used += (size_t)snprintf(ib + used, sizeof ib - used > used ? sizeof ib - used : 0,
                                 " + %s * %lld%s", m, (long long)ostd[d], u);
        for (int q = 0; q < c->nchains; q++)
            if (tiled[q] && cs[q][d] != 0) {
                size_t l = strlen(qb[q]);
                snprintf(qb[q] + l, sizeof qb[q] - l, " + %s * %lld%s", m, (long long)cs[q][d], u);
            }
        inner *= os->lens[d];
    }
    if (used >= sizeof ib)
        return cg_fail(g, "kernel %s: index expression too long", g->name);
    cg_printf(&g->body, "        const %s ib = %s;\n", ix, ib);
    /* load: along `across`, the leaf's contiguous dimension */
    cg_printf(&g->body,
              "        for (%s r = 0%s; r < %d%s; r += %d%s) {\n"
              "            const %s xa = a0 + tx, xf = f0 + ty + r;\n"
              "            if (xa < %lld%s && xf < %lld%s) {\n",
              ix, u, PW_TILE, u, PW_TILE_ROWS, u, ix, (long long)la, u, (long long)lf, u);
    for (int q = 0; q < c->nchains; q++) {
        if (!tiled[q])
            continue;
        const pw_chain *h = &c->chains[q];
        char off[1300], el[1400];
        snprintf(off, sizeof off, "%s + xa + xf * %lld%s", qb[q], (long long)cs[q][fast], u);
        cg_element(g, &h->acc, off, el, sizeof el);
        const char *ct = cg_compute_type(h->acc.type);
        cg_printf(&g->body, "                tile%d[ty + r][tx] = (%s)%s;\n", q, ct, el);
    }
    cg_puts(&g->body, "            }\n        }\n        __syncthreads();\n");
    /* compute and store: along `fast` */
    cg_printf(&g->body,
              "        for (%s r = 0%s; r < %d%s; r += %d%s) {\n"
              "            const %s xf = f0 + tx, xa = a0 + ty + r;\n"
              "            if (xa < %lld%s && xf < %lld%s) {\n"
              "                const %s i = ib + xa * %lld%s + xf * %lld%s;\n",
              ix, u, PW_TILE, u, PW_TILE_ROWS, u, ix, (long long)la, u, (long long)lf, u, ix,
              (long long)ostd[across], u, (long long)ostd[fast], u);
    for (int q = 0; q < c->nchains; q++) {
        pw_chain *h = &c->chains[q];
        memset(h->var, 0, sizeof h->var);
        if (!tiled[q])
            continue;
        h->ctype = cg_compute_type(h->acc.type);
        cg_fresh(g, h->var[0], sizeof h->var[0]);
        cg_printf(&g->body, "                const %s %s = tile%d[tx][ty + r];\n", h->ctype,
                  h->var[0], q);
    }
    cg_pw_enter(c, 16);
    c->overriding = true;
    c->lane = 0;
    bool ok = values_stored(c, values, nout, out);
    c->overriding = false;
    cg_pw_leave(c, 8);
    cg_puts(&g->body, "            }\n        }\n        __syncthreads();\n    }\n");
    return ok;
}

/* ---- the evaluator, for other emitters (reduction regions) ---- */

cg_pw *cg_pw_new(cg_kgen *g, const ins *root, const cg_access *in)
{
    cg_pw *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->g = g;
    c->root = root;
    c->in = in;
    c->body = (root->op->classes & OPC_REGION) ? root->mods[0] : NULL;
    c->indent = 8;
    return c;
}

void cg_pw_free(cg_pw *c) { free(c); }

bool cg_pw_value(cg_pw *c, const ins *v, const char *j, char *var, size_t size,
                 const char **ctype)
{
    return value_at(c, v, j, var, size, ctype);
}

void cg_pw_fix(cg_pw *c, const ins *v, const char *var, const char *ctype)
{
    if (c->nmemo == (int)(sizeof c->memo / sizeof c->memo[0]))
        return;
    pw_memo *m = &c->memo[c->nmemo++];
    m->v = v;
    m->j[0] = 0;
    snprintf(m->var, sizeof m->var, "%s", var);
    m->ctype = ctype;
    m->depth = -1;
}

void cg_pw_bind(cg_pw *c, const ins *v, const char *j, const char *var, const char *ctype)
{
    if (c->nmemo == (int)(sizeof c->memo / sizeof c->memo[0]) || strlen(j) >= sizeof c->memo[0].j)
        return;
    pw_memo *m = &c->memo[c->nmemo++];
    m->v = v;
    snprintf(m->j, sizeof m->j, "%s", j);
    snprintf(m->var, sizeof m->var, "%s", var);
    m->ctype = ctype;
    m->depth = c->depth;
}

void cg_pw_enter(cg_pw *c, int indent)
{
    c->depth++;
    c->indent = indent;
}

void cg_pw_leave(cg_pw *c, int indent)
{
    int keep = 0;
    for (int m = 0; m < c->nmemo; m++)
        if (c->memo[m].depth < c->depth)
            c->memo[keep++] = c->memo[m];
    c->nmemo = keep;
    c->depth--;
    c->indent = indent;
}

bool cg_pw_store_value(cg_pw *c, const ins *v, const cg_access *out, const char *j)
{
    char var[32];
    const char *vt;
    return cg_pw_value(c, v, j, var, sizeof var, &vt) &&
           cg_pw_store(c, out, j, var, vt, v->sh.type);
}

bool cg_pw_store(cg_pw *c, const cg_access *out, const char *j, const char *var,
                 const char *ctype, graft_type t)
{
    char off[1100], conv[1400];
    cg_offset_linear(c->g, out, j, c->indent, off, sizeof off);
    int k = cg_param(c->g, out->buffer, true);
    cg_store_conversion(t, ctype, var, conv, sizeof conv);
    cg_printf(&c->g->body, "%*sp%d[%s] = %s;\n", c->indent, "", k, off, conv);
    return true;
}

bool cg_emit_pointwise(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out,
                       int nout)
{
    pw_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return cg_fail(g, "out of memory");
    c->g = g;
    c->root = i;
    c->in = in;
    c->indent = 8;
    g->kind = "pointwise";
    const ins *values[64];
    if (i->op->classes & OPC_REGION) {
        c->body = i->mods[0];
        const ins *ret = module_return(c->body);
        if (!ret || ret->nargs != nout || nout > 64) {
            const char *name = c->body->name;
            free(c);
            return cg_fail(g, "region %s: %d outputs expected", name, nout);
        }
        for (int k = 0; k < nout; k++)
            values[k] = ret->args[k];
        cg_cite_body(g, c->body);
    } else {
        values[0] = i;
    }
    int64_t n = shape_elements(&values[0]->sh);
    for (int k = 1; k < nout; k++)
        if (shape_elements(&values[k]->sh) != n) {
            const char *name = c->body->name;
            free(c);
            return cg_fail(g, "not lowered yet: region %s has outputs of different sizes", name);
        }
    /* the leaves' chains decide the path: vectors, or one scalar per thread */
    cg_level lv[PW_MAX_CHAIN];
    const ins *path[PW_MAX_CHAIN];
    bool chained = true;
    for (int k = 0; chained && k < nout; k++)
        chained = collect_chains(c, values[k], lv, 0, path, 0);
    if (g->failed) {
        free(c);
        return false;
    }
    int w = chained ? vector_width(c, out, nout, n) : 0;
    bool ok, done = false;
    if (w) {
        g->kind = w == 2 ? "pointwise_vec2" : w == 4 ? "pointwise_vec4" : "pointwise_vec8";
        ok = emit_vector(c, values, nout, out, out, NULL, n, w);
    } else if (chained && (!vector_in_memory_order(c, values, nout, out, n, &done) || done)) {
        ok = done && !g->failed;
    } else if (chained && emit_tiled(c, values, nout, out, n)) {
        ok = !g->failed;
    } else {
        open_loop(g, n);
        ok = values_stored(c, values, nout, out);
        close_loop(g);
    }
    free(c);
    return ok && !g->failed;
}

/* ---- concat ---- */

bool cg_emit_concat(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    g->kind = "concat";
    int rank = i->sh.rank;
    int64_t axis = ins_attr(i, "axis")->u.i;
    if (axis < 0)
        axis += rank;
    int64_t inner = cg_product(i->sh.lens, (int)axis + 1, rank), len = i->sh.lens[axis];
    const char *ct = cg_compute_type(i->sh.type);
    const char *u = strcmp(g->idx, "unsigned") == 0 ? "u" : "ull";
    open_loop(g, shape_elements(&i->sh));
    cg_printf(&g->body, "        const %s a = (i / %lld%s) %% %lld%s, outer = i / %lld%s, "
                        "inner = i %% %lld%s;\n",
              g->idx, (long long)inner, u, (long long)len, u, (long long)(inner * len), u,
              (long long)inner, u);
    cg_printf(&g->body, "        %s v;\n", ct);
    int64_t start = 0;
    for (int k = 0; k < i->nargs; k++) {
        int64_t lk = i->args[k]->sh.lens[axis];
        if (lk == 0)
            continue;
        cg_printf(&g->body, "        %sif (a < %lld%s) {\n", start ? "else " : "",
                  (long long)(start + lk), u);
        char j[256], var[32];
        snprintf(j, sizeof j, "(outer * %lld%s + (a - %lld%s)) * %lld%s + inner", (long long)lk,
                 u, (long long)start, u, (long long)inner, u);
        cg_load_linear(g, &in[k], j, ct, 12, var, sizeof var);
        cg_printf(&g->body, "            v = %s;\n        }\n", var);
        start += lk;
    }
    cg_printf(&g->body, "        else { v = 0; }\n");
    return store_and_close(g, i, out, ct, "v");
}

/* ---- pad ---- */

bool cg_emit_pad(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    g->kind = "pad";
    int rank = i->sh.rank;
    const attr_value *pads = ins_attr(i, "pads");
    int64_t mode = ins_attr(i, "mode")->u.i;
    double value = ins_attr(i, "value")->u.f;
    const shape *is = &i->args[0]->sh;
    const char *ct = cg_compute_type(i->sh.type);
    open_loop(g, shape_elements(&i->sh));
    const char *idx[SHAPE_MAX_RANK];
    char names[SHAPE_MAX_RANK][16];
    cg_puts(&g->body, "        int inside = 1;\n");
    for (int d = 0; d < rank; d++) {
        int64_t inner = cg_product(i->sh.lens, d + 1, rank);
        int64_t L = is->lens[d];
        snprintf(names[d], sizeof names[d], "c%d", d);
        idx[d] = names[d];
        cg_printf(&g->body, "        long long c%d = (long long)((i / %lldull) %% %lldull) - %lldLL;\n",
                  d, (long long)inner, (long long)i->sh.lens[d], (long long)pads->u.ints[d]);
        if (mode == 0 || L <= 0)
            cg_printf(&g->body, "        inside = inside && c%d >= 0 && c%d < %lldLL;\n", d, d,
                      (long long)L);
        else if (mode == 2)
            cg_printf(&g->body, "        c%d = c%d < 0 ? 0 : c%d >= %lldLL ? %lldLL : c%d;\n", d,
                      d, d, (long long)L, (long long)(L - 1), d);
        else if (L == 1)
            cg_printf(&g->body, "        c%d = 0;\n", d);
        else
            cg_printf(&g->body,
                      "        if (c%d < 0 || c%d >= %lldLL) { long long m = ((c%d %% %lldLL) + "
                      "%lldLL) %% %lldLL; c%d = m < %lldLL ? m : %lldLL - m; }\n",
                      d, d, (long long)L, d, (long long)(2 * (L - 1)), (long long)(2 * (L - 1)),
                      (long long)(2 * (L - 1)), d, (long long)L, (long long)(2 * (L - 1)));
    }
    char off[1100], el[1200];
    cg_printf(&g->body, "        %s v = (%s)(%.17g);\n", ct, ct, value);
    cg_puts(&g->body, "        if (inside) {\n");
    /* the multi-index must be non-negative here; cast into the index type */
    cg_offset_multi(g, &in[0], idx, 12, off, sizeof off);
    cg_element(g, &in[0], off, el, sizeof el);
    cg_printf(&g->body, "            v = (%s)%s;\n        }\n", ct, el);
    return store_and_close(g, i, out, ct, "v");
}

/* ---- gather ---- */

bool cg_emit_gather(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    g->kind = "gather";
    const shape *ds = &i->args[0]->sh, *is = &i->args[1]->sh;
    int64_t axis = ins_attr(i, "axis")->u.i;
    if (axis < 0)
        axis += ds->rank;
    int64_t inner = cg_product(ds->lens, (int)axis + 1, ds->rank), len = ds->lens[axis];
    int64_t nidx = shape_elements(is);
    const char *ct = cg_compute_type(i->sh.type);
    open_loop(g, shape_elements(&i->sh));
    cg_printf(&g->body, "        const unsigned long long inner = (unsigned long long)i %% %lldull, "
                        "k = ((unsigned long long)i / %lldull) %% %lldull, outer = "
                        "(unsigned long long)i / %lldull;\n",
              (long long)inner, (long long)inner, (long long)nidx, (long long)(inner * nidx));
    char var[32];
    cg_load_linear(g, &in[1], "k", "long long", 8, var, sizeof var);
    cg_printf(&g->body, "        long long at = %s < 0 ? %s + %lldLL : %s;\n", var, var,
              (long long)len, var);
    cg_printf(&g->body, "        at = at < 0 ? 0 : at >= %lldLL ? %lldLL : at;\n", (long long)len,
              (long long)(len - 1));
    char j[256], v[32];
    snprintf(j, sizeof j, "(outer * %lldull + (unsigned long long)at) * %lldull + inner",
             (long long)len, (long long)inner);
    cg_load_linear(g, &in[0], j, ct, 8, v, sizeof v);
    return store_and_close(g, i, out, ct, v);
}
