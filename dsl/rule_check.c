/* rule_check.c: `graft rules --check`: each rule tested on graphs of its own pattern.
 *
 * This file owns turning a rule's pattern into small random graphs that the
 * rule can fire on, and judging the rule by running each graph before and
 * after on the reference executor (dsl/rule_check.h says what a verdict means).
 *
 * A candidate is built from one seed, top down with a wanted length per
 * value: the root gets random lens, and each op pattern decides its
 * operands' lens from its own so that its shape rule accepts them (a
 * pointwise op passes its lens down, a transpose the inverse permutation of
 * them, a reshape a regrouping of the same element count, a broadcast the
 * lens it stretches, a reduction the lens before reducing, a pad the lens
 * before padding, ...). Captures and wildcards become parameters (some with
 * transposed strides) or literals; a literal holds random values or one of
 * the numbers the rule's guards and attribute patterns name, so that
 * `all_equal(k, 0.0)` has a chance. Attributes are the pattern's literals,
 * a bound name's earlier value (`attr=a` twice), a value the lens plan
 * chose, or a random value or the default. Class patterns pick an op of the
 * class with the right operand count; `<fused>` builds a region of a
 * pointwise chain (two outputs under get_tuple_elem). Whatever the ops'
 * shape rules reject is discarded and counted, and so is every candidate on
 * which the rule does not fire (guards, :once): the fraction that fired is
 * reported.
 *
 * The same seed builds the same graph, so the graph before is built twice
 * rather than copied: once to run as it is, once for the driver to rewrite
 * with every other rule of the set disabled. Both have their pending shape
 * changes settled (engine/lazy_shapes.h) before they run.
 */
#include "rule_check.h"

#include "driver.h"
#include "dump.h"
#include "exec.h"
#include "hash.h"
#include "ir.h"
#include "lazy_shapes.h"
#include "random.h"
#include "region.h"
#include "strbuf.h"
#include "tensor.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#define CHECK_MAX_ARGS 8
#define CHECK_MAX_ATTRS 16
#define CHECK_MAX_EXTRA 8
#define CHECK_MAX_CONSTS 32
#define CHECK_MORE_CANDIDATES 200 /* tried after the first counterexample */
/* A rule that has fired on no graph after its candidates gets this many
 * times as many before it is reported not checked: rules whose guards ask
 * for a structure beside the pattern (a sibling reshape of the right lens)
 * fire on few random graphs, and a rule that fires is checked within the
 * first budget and never pays for this. */
#define CHECK_UNFIRED_FACTOR 5

typedef struct lens_want {
    int rank;
    int64_t d[SHAPE_MAX_RANK];
} lens_want;

typedef struct build_ctx {
    const dsl_rule *rule;
    graph *g;
    module *m;
    uint64_t rng;
    graft_type type;
    ins **caps;            /* per capture: the instruction bound to it */
    attr_value *cattr;     /* per capture: the attribute value bound to it */
    bool *cattr_set;
    double consts[CHECK_MAX_CONSTS];
    int nconsts;
    ins *extra[CHECK_MAX_EXTRA]; /* values returned besides the root */
    int nextra;
    int nparams;
    int region_index;
    int depth;             /* computed leaves being built */
    lens_want last_regroup; /* reused half the time: sibling reshapes agree */
    int64_t last_perm[SHAPE_MAX_RANK]; /* likewise for permutations */
    int last_perm_rank;
    char why[300];         /* why the build failed */
} build_ctx;

/* ---- random choices ---- */

static int pick(build_ctx *c, int n)
{
    return n <= 1 ? 0 : (int)(random_next(&c->rng) % (uint64_t)n);
}

static bool chance(build_ctx *c, int percent)
{
    return pick(c, 100) < percent;
}

static int64_t random_len(build_ctx *c)
{
    int r = pick(c, 200);
    return r == 0 ? 0 : r < 60 ? 1 : 2 + pick(c, 3); /* now and then an empty axis */
}

static lens_want random_lens(build_ctx *c)
{
    lens_want l = {.rank = 1 + pick(c, 4)};
    for (int k = 0; k < l.rank; k++)
        l.d[k] = random_len(c);
    return l;
}

static void random_permutation(build_ctx *c, int n, int64_t *perm)
{
    if (n == c->last_perm_rank && pick(c, 2)) {
        memcpy(perm, c->last_perm, (size_t)n * sizeof *perm);
        return;
    }
    for (int k = 0; k < n; k++)
        perm[k] = k;
    for (int k = n - 1; k > 0; k--) {
        int j = pick(c, k + 1);
        int64_t t = perm[k];
        perm[k] = perm[j];
        perm[j] = t;
    }
    memcpy(c->last_perm, perm, (size_t)n * sizeof *perm);
    c->last_perm_rank = n;
}

static int64_t lens_elements(const lens_want *l)
{
    int64_t n = 1;
    for (int k = 0; k < l->rank; k++)
        n *= l->d[k];
    return n;
}

/* Random lens holding exactly `elements` values, with some length-1 axes. */
static lens_want regroup(build_ctx *c, int64_t elements)
{
    if (c->last_regroup.rank > 0 && lens_elements(&c->last_regroup) == elements && pick(c, 2))
        return c->last_regroup;
    int64_t f[64];
    int nf = 0;
    for (int64_t p = 2, n = elements; n > 1 && nf < 64; p++) {
        while (n % p == 0 && nf < 64) {
            f[nf++] = p;
            n /= p;
        }
    }
    lens_want l = {.rank = 1 + pick(c, 4)};
    for (int k = 0; k < l.rank; k++)
        l.d[k] = 1;
    for (int k = 0; k < nf; k++)
        l.d[pick(c, l.rank)] *= f[k];
    c->last_regroup = l;
    return l;
}

/* ---- the rule's constants: numbers its guards and attribute patterns name ---- */

static void add_const(build_ctx *c, double v)
{
    for (int k = 0; k < c->nconsts; k++)
        if (c->consts[k] == v)
            return;
    if (c->nconsts < CHECK_MAX_CONSTS)
        c->consts[c->nconsts++] = v;
}

static void collect_expr_consts(build_ctx *c, const dsl_expr *e)
{
    if (!e)
        return;
    if (e->kind == EX_INT)
        add_const(c, (double)e->i);
    else if (e->kind == EX_FLOAT)
        add_const(c, e->f);
    collect_expr_consts(c, e->a);
    collect_expr_consts(c, e->b);
    for (int k = 0; k < e->nargs; k++)
        collect_expr_consts(c, e->args[k]);
}

static void collect_pattern_consts(build_ctx *c, const dsl_pattern *p)
{
    for (const dsl_attr_pat *a = p->attrs; a; a = a->next)
        if (!a->bind && a->lit.kind == ATTR_FLOAT)
            add_const(c, a->lit.u.f);
    for (int k = 0; k < p->nargs; k++)
        collect_pattern_consts(c, p->args[k]);
}

static double random_const(build_ctx *c)
{
    return c->nconsts ? c->consts[pick(c, c->nconsts)] : 0.0;
}

/* ---- leaves: parameters and literals ---- */

enum leaf_kind { LEAF_ANY, LEAF_PARAM, LEAF_LITERAL };

static ins *make_leaf(build_ctx *c, const lens_want *l, int kind);

/* A leaf computed from a parameter or literal, so that guards about what
 * produced a value (never_negative, is_constant, settled, clusters) see
 * more than parameters: a unary op, a binary op, a broadcast, a transpose,
 * a reshape or a matrix product (for guards about contractions:
 * after_contraction, one_kernel) whose value has lens l. */
static ins *make_computed_leaf(build_ctx *c, const lens_want *l)
{
    static const char *const unary[] = {"relu", "exp", "neg", "sigmoid", "abs", "tanh"};
    static const char *const binary[] = {"add", "mul", "sub", "max"};
    graft_error err = {0};
    lens_want in = *l;
    switch (pick(c, 6)) {
    case 0: {
        ins *x = make_leaf(c, l, LEAF_ANY);
        return x ? module_add_op(c->m, unary[pick(c, 6)], NULL, 0, &x, 1, &err) : NULL;
    }
    case 1: {
        ins *x[2] = {make_leaf(c, l, LEAF_ANY), make_leaf(c, l, LEAF_ANY)};
        return x[0] && x[1] ? module_add_op(c->m, binary[pick(c, 4)], NULL, 0, x, 2, &err) : NULL;
    }
    case 2: {
        for (int k = 0; k < in.rank; k++)
            if (chance(c, 50))
                in.d[k] = 1;
        ins *x = make_leaf(c, &in, LEAF_ANY);
        attr a = {"out_lens", attr_ints(l->d, l->rank)};
        return x ? module_add_op(c->m, "multibroadcast", &a, 1, &x, 1, &err) : NULL;
    }
    case 3: {
        int64_t perm[SHAPE_MAX_RANK];
        random_permutation(c, l->rank, perm);
        for (int k = 0; k < l->rank; k++)
            in.d[perm[k]] = l->d[k];
        ins *x = make_leaf(c, &in, LEAF_ANY);
        attr a = {"permutation", attr_ints(perm, l->rank)};
        return x ? module_add_op(c->m, "transpose", &a, 1, &x, 1, &err) : NULL;
    }
    case 4: {
        if (l->rank < 2) /* a vector is no product's result */
            return make_leaf(c, l, LEAF_ANY);
        lens_want a = *l, b = *l; /* dot of {..., M, K} and {..., K, N} */
        a.d[l->rank - 1] = b.d[l->rank - 2] = 1 + pick(c, 4);
        ins *x[2] = {make_leaf(c, &a, LEAF_ANY), make_leaf(c, &b, LEAF_ANY)};
        return x[0] && x[1] ? module_add_op(c->m, "dot", NULL, 0, x, 2, &err) : NULL;
    }
    default: {
        in = regroup(c, lens_elements(l));
        ins *x = make_leaf(c, &in, LEAF_ANY);
        attr a = {"dims", attr_ints(l->d, l->rank)};
        return x ? module_add_op(c->m, "reshape", &a, 1, &x, 1, &err) : NULL;
    }
    }
}

static ins *make_leaf(build_ctx *c, const lens_want *l, int kind)
{
    if (kind == LEAF_ANY) {
        int r = pick(c, 100);
        if (r < 20 && c->depth < 2) {
            c->depth++;
            ins *i = make_computed_leaf(c, l);
            c->depth--;
            return i;
        }
        kind = r < 45 ? LEAF_LITERAL : LEAF_PARAM;
    }
    shape sh = shape_standard(c->type, l->rank, l->d);
    if (kind == LEAF_LITERAL) {
        if (chance(c, 15)) { /* a broadcast literal: every value one element */
            int64_t zero[SHAPE_MAX_RANK] = {0};
            sh = shape_with_strides(c->type, l->rank, l->d, zero);
        }
        size_t bytes = shape_bytes(&sh);
        char *data = calloc(1, bytes ? bytes : 1);
        if (!data) {
            snprintf(c->why, sizeof c->why, "out of memory");
            return NULL;
        }
        tensor t = {sh, data};
        bool one_value = chance(c, 50);
        double v = random_const(c);
        int64_t n = shape_elements(&sh);
        for (int64_t k = 0; k < n; k++)
            tensor_set_f64(&t, k, one_value ? v : (double)pick(c, 17) / 8.0 - 1.0);
        ins *i = module_add_literal(c->m, &sh, data);
        free(data);
        return i;
    }
    if (l->rank >= 2 && chance(c, 20)) { /* a transposed layout */
        int perm[SHAPE_MAX_RANK];
        int64_t p64[SHAPE_MAX_RANK];
        random_permutation(c, l->rank, p64);
        for (int k = 0; k < l->rank; k++)
            perm[k] = (int)p64[k];
        sh = shape_from_permutation(c->type, l->rank, l->d, perm);
    }
    char name[16];
    snprintf(name, sizeof name, "x%d", c->nparams++);
    return module_add_param(c->m, name, &sh);
}

/* ---- attributes ---- */

typedef struct attr_plan {
    const op_def *op;
    attr a[CHECK_MAX_ATTRS];
    bool set[CHECK_MAX_ATTRS];
} attr_plan;

static int capture_index(const dsl_rule *r, const char *name)
{
    for (int k = 0; k < r->ncaptures; k++)
        if (strcmp(r->captures[k].name, name) == 0)
            return k;
    return -1;
}

static bool plan_has(const attr_plan *p, const char *name)
{
    int k = op_attr_index(p->op, name);
    return k >= 0 && p->set[k];
}

static const int64_t *plan_ints(const attr_plan *p, const char *name, int *n)
{
    int k = op_attr_index(p->op, name);
    if (k < 0 || !p->set[k] || p->a[k].v.kind != ATTR_INTS)
        return NULL;
    *n = p->a[k].v.n;
    return p->a[k].v.u.ints;
}

static void plan_set(build_ctx *c, attr_plan *p, const char *name, attr_value v)
{
    int k = op_attr_index(p->op, name);
    if (k < 0 || p->set[k])
        return;
    p->a[k].v = attr_value_copy(&c->g->mem, v);
    p->set[k] = true;
}

static void plan_set_ints(build_ctx *c, attr_plan *p, const char *name, const int64_t *v, int n)
{
    plan_set(c, p, name, attr_ints(v, n));
}

static void plan_set_int(build_ctx *c, attr_plan *p, const char *name, int64_t v)
{
    plan_set(c, p, name, attr_int(v));
}

/* The pattern's literal attributes and names bound before. */
static void plan_fixed(build_ctx *c, attr_plan *p, const dsl_pattern *pat)
{
    for (const dsl_attr_pat *a = pat->attrs; a; a = a->next) {
        int k = op_attr_index(p->op, a->key);
        if (k < 0 || k >= CHECK_MAX_ATTRS)
            continue;
        if (!a->bind) {
            p->a[k].v = a->lit;
            p->set[k] = true;
            continue;
        }
        int ci = capture_index(c->rule, a->bind);
        if (ci >= 0 && c->cattr_set[ci]) {
            p->a[k].v = c->cattr[ci];
            p->set[k] = true;
        }
    }
}

/* A value for an attribute neither the pattern nor the lens plan fixed:
 * often the default, else a random one of its kind. */
static void plan_rest(build_ctx *c, attr_plan *p)
{
    for (int k = 0; k < p->op->nattrs && k < CHECK_MAX_ATTRS; k++) {
        const attr_spec *s = &p->op->attrs[k];
        if (p->set[k] || (!s->required && chance(c, 60)))
            continue;
        attr_value v;
        switch (s->kind) {
        case ATTR_INT:
            if (s->enum_names) {
                int n = 0;
                while (s->enum_names[n])
                    n++;
                v = attr_int(pick(c, n));
            } else {
                v = attr_int(pick(c, 3));
            }
            break;
        case ATTR_FLOAT:
            v = attr_float(chance(c, 50) ? random_const(c) : (double)pick(c, 9) / 4.0);
            break;
        case ATTR_BOOL:
            v = attr_bool(chance(c, 50));
            break;
        case ATTR_TYPE: {
            static const graft_type types[] = {GRAFT_FLOAT, GRAFT_HALF, GRAFT_INT32, GRAFT_DOUBLE};
            v = attr_type(chance(c, 50) ? c->type : types[pick(c, 4)]);
            break;
        }
        default:
            continue; /* lists and strings: only the plan knows their meaning */
        }
        p->a[k].v = v;
        p->set[k] = true;
    }
    for (int k = 0; k < p->op->nattrs && k < CHECK_MAX_ATTRS; k++)
        p->a[k].key = p->op->attrs[k].name;
}

/* ---- operands' lens from the op's own (the lens plan) ---- */

static bool op_named(const op_def *op, const char *name)
{
    return strcmp(op->name, name) == 0;
}

/* Chooses the lens of each of n operands of op so that op's value gets the
 * lens `out` (where the op allows it), and the attributes that say how. */
static void plan_operands(build_ctx *c, attr_plan *p, lens_want out, int n, lens_want *in)
{
    const op_def *op = p->op;
    for (int k = 0; k < n; k++)
        in[k] = out;
    int np = 0;
    if (op_named(op, "transpose")) {
        const int64_t *perm = plan_ints(p, "permutation", &np);
        int64_t fresh[SHAPE_MAX_RANK];
        if (!perm || np != out.rank) {
            if (perm && np > 0 && np <= SHAPE_MAX_RANK) { /* the pattern's rank wins */
                out.rank = np;
                for (int k = 0; k < np; k++)
                    out.d[k] = random_len(c);
            } else {
                random_permutation(c, out.rank, fresh);
                plan_set_ints(c, p, "permutation", fresh, out.rank);
                perm = fresh;
            }
        }
        for (int k = 0; k < out.rank; k++)
            if (perm[k] >= 0 && perm[k] < out.rank)
                in[0].d[perm[k]] = out.d[k];
        in[0].rank = out.rank;
    } else if (op_named(op, "layout")) {
        int64_t fresh[SHAPE_MAX_RANK];
        random_permutation(c, out.rank, fresh);
        plan_set_ints(c, p, "permutation", fresh, out.rank);
    } else if (op_named(op, "reshape") || op_named(op, "reshape_lazy")) {
        const int64_t *dims = plan_ints(p, "dims", &np);
        if (dims && np > 0 && np <= SHAPE_MAX_RANK) {
            bool plain = true;
            for (int k = 0; k < np; k++)
                plain = plain && dims[k] > 0;
            if (plain) {
                out.rank = np;
                memcpy(out.d, dims, (size_t)np * sizeof *dims);
            }
        }
        plan_set_ints(c, p, "dims", out.d, out.rank);
        in[0] = regroup(c, lens_elements(&out));
    } else if (op_named(op, "squeeze")) {
        int extra = out.rank < SHAPE_MAX_RANK ? 1 + pick(c, 2) : 0;
        lens_want l = out;
        int64_t axes[SHAPE_MAX_RANK];
        int na = 0;
        for (int e = 0; e < extra && l.rank < SHAPE_MAX_RANK; e++) {
            int at = pick(c, l.rank + 1);
            memmove(&l.d[at + 1], &l.d[at], (size_t)(l.rank - at) * sizeof l.d[0]);
            l.d[at] = 1;
            l.rank++;
        }
        for (int k = 0; k < l.rank; k++) /* every length-1 axis, or some */
            if (l.d[k] == 1 && (chance(c, 70) || na == 0))
                axes[na++] = k;
        plan_set_ints(c, p, "axes", axes, na);
        in[0] = l;
    } else if (op_named(op, "unsqueeze")) {
        int64_t axes[SHAPE_MAX_RANK];
        int na = 0;
        for (int k = 0; k < out.rank; k++)
            if (out.d[k] == 1 && chance(c, 60))
                axes[na++] = k;
        if (na == 0 || na == out.rank) {
            if (out.rank < SHAPE_MAX_RANK) {
                na = 0;
                int at = pick(c, out.rank + 1);
                memmove(&out.d[at + 1], &out.d[at], (size_t)(out.rank - at) * sizeof out.d[0]);
                out.d[at] = 1;
                out.rank++;
                axes[na++] = at;
            }
        }
        plan_set_ints(c, p, "axes", axes, na);
        lens_want l = {0};
        for (int k = 0, a = 0; k < out.rank; k++) {
            if (a < na && axes[a] == k)
                a++;
            else
                l.d[l.rank++] = out.d[k];
        }
        in[0] = l;
    } else if (op_named(op, "multibroadcast")) {
        if (!plan_has(p, "out_lens"))
            plan_set_ints(c, p, "out_lens", out.d, out.rank);
        lens_want l = {0};
        int drop = pick(c, out.rank);
        for (int k = drop; k < out.rank; k++)
            l.d[l.rank++] = chance(c, 35) ? 1 : out.d[k];
        for (int k = 0; k < n; k++)
            in[k] = l;
    } else if (op_named(op, "broadcast")) {
        int keep = 1 + pick(c, out.rank);
        int axis = pick(c, out.rank - keep + 1);
        const int64_t *ol = plan_ints(p, "out_lens", &np);
        if (ol && np > 0 && np <= SHAPE_MAX_RANK) {
            out.rank = np;
            memcpy(out.d, ol, (size_t)np * sizeof *ol);
            keep = 1 + pick(c, out.rank);
            axis = pick(c, out.rank - keep + 1);
        }
        int k = op_attr_index(op, "axis");
        if (k >= 0 && p->set[k] && p->a[k].v.u.i >= 0 && p->a[k].v.u.i < out.rank) {
            axis = (int)p->a[k].v.u.i;
            keep = 1 + pick(c, out.rank - axis);
        }
        plan_set_int(c, p, "axis", axis);
        plan_set_ints(c, p, "out_lens", out.d, out.rank);
        lens_want l = {.rank = keep};
        for (int j = 0; j < keep; j++)
            l.d[j] = out.d[axis + j];
        in[0] = l;
    } else if (op->classes & OPC_REDUCE) {
        int64_t axes[SHAPE_MAX_RANK];
        int na = 0;
        for (int k = 0; k < out.rank; k++)
            if (out.d[k] == 1 && chance(c, 50))
                axes[na++] = k;
        if (na == 0) {
            int at = pick(c, out.rank);
            out.d[at] = 1;
            axes[na++] = at;
        }
        const int64_t *given = plan_ints(p, "axes", &np);
        if (given) {
            lens_want l = out;
            for (int k = 0; k < np; k++)
                if (given[k] >= 0 && given[k] < l.rank)
                    l.d[given[k]] = 1 + pick(c, 3);
            in[0] = l;
        } else {
            plan_set_ints(c, p, "axes", axes, na);
            lens_want l = out;
            for (int k = 0; k < na; k++)
                l.d[axes[k]] = 1 + pick(c, 3);
            in[0] = l;
        }
    } else if (op_named(op, "pad")) {
        int64_t pads[2 * SHAPE_MAX_RANK];
        bool spatial = chance(c, 60) && out.rank > 2;
        lens_want l = out;
        for (int k = 0; k < out.rank; k++) {
            int64_t b = (spatial && k < 2) ? 0 : pick(c, 2), e = (spatial && k < 2) ? 0 : pick(c, 2);
            if (l.d[k] - b - e < 1)
                b = e = 0;
            pads[k] = b;
            pads[out.rank + k] = e;
            l.d[k] -= b + e;
        }
        if (!plan_has(p, "pads")) {
            plan_set_ints(c, p, "pads", pads, 2 * out.rank);
            in[0] = l;
        }
    } else if (op_named(op, "concat")) {
        int axis = pick(c, out.rank);
        int k = op_attr_index(op, "axis");
        if (k >= 0 && p->set[k] && p->a[k].v.u.i >= 0 && p->a[k].v.u.i < out.rank)
            axis = (int)p->a[k].v.u.i;
        plan_set_int(c, p, "axis", axis);
        for (int j = 0; j < n; j++)
            in[j].d[axis] = 1 + pick(c, 3);
    } else if (op_named(op, "dot") || op_named(op, "quant_dot")) {
        if (out.rank < 2) {
            out.rank = 2;
            out.d[1] = random_len(c);
        }
        int64_t kk = 1 + pick(c, 4);
        in[0] = out;
        in[1] = out;
        in[0].d[out.rank - 1] = kk;
        in[1].d[out.rank - 2] = kk;
        if (!plan_has(p, "output_permutation") && chance(c, 30)) {
            int64_t perm[SHAPE_MAX_RANK];
            random_permutation(c, out.rank, perm);
            plan_set_ints(c, p, "output_permutation", perm, out.rank);
        }
    } else if (op_named(op, "convolution") || op_named(op, "quant_convolution") ||
               op_named(op, "pooling")) {
        int spatial = 1 + pick(c, 2);
        lens_want x = {.rank = 2 + spatial}, w = {.rank = 2 + spatial};
        x.d[0] = 1 + pick(c, 2);
        x.d[1] = 1 + pick(c, 3);
        w.d[0] = 1 + pick(c, 3);
        w.d[1] = x.d[1];
        int64_t lengths[SHAPE_MAX_RANK], ones[SHAPE_MAX_RANK], padding[2 * SHAPE_MAX_RANK];
        for (int k = 0; k < spatial; k++) {
            x.d[2 + k] = 2 + pick(c, 4);
            w.d[2 + k] = lengths[k] = 1 + pick(c, 3);
            ones[k] = 1;
        }
        for (int k = 0; k < 2 * spatial; k++)
            padding[k] = chance(c, 50) ? 0 : pick(c, 2);
        in[0] = x;
        if (n > 1)
            in[1] = w;
        plan_set_ints(c, p, "padding", padding, 2 * spatial);
        plan_set_ints(c, p, "stride", ones, spatial);
        plan_set_ints(c, p, "dilation", ones, spatial);
        plan_set_ints(c, p, "dilations", ones, spatial);
        plan_set_ints(c, p, "lengths", lengths, spatial);
    } else if (op_named(op, "slice")) {
        int axis = pick(c, out.rank);
        int64_t len = in[0].d[axis] + pick(c, 3);
        in[0].d[axis] = len;
        int64_t start = pick(c, (int)(len - out.d[axis] + 1));
        int64_t axes[1] = {axis}, starts[1] = {start}, ends[1] = {start + out.d[axis]};
        plan_set_ints(c, p, "axes", axes, 1);
        plan_set_ints(c, p, "starts", starts, 1);
        plan_set_ints(c, p, "ends", ends, 1);
    } else if (op_named(op, "flatten")) {
        plan_set_int(c, p, "axis", pick(c, in[0].rank + 1));
    } else if (op->classes & OPC_COMPUTE) {
        int k = op_attr_index(op, "axis");
        if (k >= 0 && !p->set[k])
            plan_set_int(c, p, "axis", pick(c, out.rank));
    } else if (op_named(op, "pending_shape_change")) {
        const int64_t *q = plan_ints(p, "permutation", &np);
        bool permuted = q ? np > 0 : chance(c, 40);
        int64_t perm[SHAPE_MAX_RANK], std[SHAPE_MAX_RANK], strides[SHAPE_MAX_RANK];
        if (permuted) {
            if (q && np == out.rank)
                memcpy(perm, q, (size_t)np * sizeof *q);
            else
                random_permutation(c, out.rank, perm);
            for (int k = 0; k < out.rank; k++)
                in[0].d[perm[k]] = out.d[k];
            shape_compute_strides(out.rank, in[0].d, std);
            for (int k = 0; k < out.rank; k++)
                strides[k] = std[perm[k]];
            plan_set_ints(c, p, "permutation", perm, out.rank);
        } else { /* layout only: the same lens in another memory order */
            int order[SHAPE_MAX_RANK];
            random_permutation(c, out.rank, perm);
            for (int k = 0; k < out.rank; k++)
                order[k] = (int)perm[k];
            shape s = shape_from_permutation(c->type, out.rank, out.d, order);
            memcpy(strides, s.strides, (size_t)out.rank * sizeof *strides);
            plan_set_ints(c, p, "permutation", NULL, 0);
        }
        plan_set_ints(c, p, "lens", out.d, out.rank);
        plan_set_ints(c, p, "strides", strides, out.rank);
    }
}

/* ---- patterns ---- */

static ins *build(build_ctx *c, const dsl_pattern *p, const lens_want *want, bool want_tuple);

/* Keeps the first reason a candidate could not be built. */
__attribute__((format(printf, 2, 3))) static void fail_build(build_ctx *c, const char *fmt, ...)
{
    if (c->why[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
}

/* Does op fit a pattern with n operands (more when rest)? */
static bool arity_fits(const op_def *op, int n, bool rest)
{
    if (op->min_args > n && !rest)
        return false;
    return op->max_args < 0 || op->max_args >= n;
}

static const op_def *choose_op(build_ctx *c, const dsl_pattern *p, int n)
{
    if (p->kind == PAT_OP)
        return p->op;
    int count = 0;
    const op_def *const *all = op_all(&count);
    const op_def *fit[256];
    int nfit = 0;
    for (int k = 0; k < count && nfit < 256; k++) {
        const op_def *op = all[k];
        if ((op->classes & p->classes) != p->classes ||
            (op->classes & (OPC_BUILTIN | OPC_OPAQUE | OPC_REGION)))
            continue;
        if (p->has_args ? !arity_fits(op, n, p->rest != NULL) : op->min_args > 3)
            continue;
        if (op_named(op, "get_tuple_elem"))
            continue; /* reads a tuple: only where the pattern names it */
        /* A class with attribute patterns (<reduce>[axes=a]): sema checked
         * that every op of the class has them; the candidate is any such op,
         * and plan_fixed gives it the pattern's values as for a named op. */
        bool has_attrs = true;
        for (const dsl_attr_pat *a = p->attrs; a && has_attrs; a = a->next)
            has_attrs = op_attr_index(op, a->key) >= 0;
        if (!has_attrs)
            continue;
        fit[nfit++] = op;
    }
    return nfit ? fit[pick(c, nfit)] : NULL;
}

/* A value of the body computed from parameter x0 (lens l), by region
 * kind: x0 itself (a pointwise chain); a softmax over the last axis, max,
 * exp, sum and divide (a reduction's kernel with a tail); or a dot of x0
 * with the extra parameter xw, {..., K, K} (a contraction's kernel). */
enum { REGION_POINTWISE, REGION_SOFTMAX, REGION_DOT };

static ins *region_head(build_ctx *c, module *body, ins *x0, ins *xw, int kind, const lens_want *l)
{
    graft_error err = {0};
    if (kind == REGION_DOT)
        return module_add_op(body, "dot", NULL, 0, (ins *[]){x0, xw}, 2, &err);
    if (kind != REGION_SOFTMAX)
        return x0;
    int64_t axis = l->rank - 1;
    attr ax = {"axes", attr_ints(&axis, 1)};
    attr lens = {"out_lens", attr_ints(l->d, l->rank)};
    ins *m = module_add_op(body, "reduce_max", &ax, 1, &x0, 1, &err);
    ins *mb = m ? module_add_op(body, "multibroadcast", &lens, 1, &m, 1, &err) : NULL;
    ins *d = mb ? module_add_op(body, "sub", NULL, 0, (ins *[]){x0, mb}, 2, &err) : NULL;
    ins *e = d ? module_add_op(body, "exp", NULL, 0, &d, 1, &err) : NULL;
    ins *s = e ? module_add_op(body, "reduce_sum", &ax, 1, &e, 1, &err) : NULL;
    ins *sb = s ? module_add_op(body, "multibroadcast", &lens, 1, &s, 1, &err) : NULL;
    (void)c;
    return sb ? module_add_op(body, "div", NULL, 0, (ins *[]){e, sb}, 2, &err) : NULL;
}

/* A region over inputs in a new region body, a pointwise chain after a
 * head (region_head: none, a softmax or a dot, so that the rules about
 * reduction and contraction regions fire too); noutputs 1 or 2. */
static ins *build_region(build_ctx *c, const dsl_pattern *p, lens_want out, int noutputs,
                         ins **outputs)
{
    int n = p->has_args ? p->nargs : 1 + pick(c, 2);
    if (p->rest)
        n += pick(c, 2);
    if (n < 1 || n > CHECK_MAX_ARGS)
        return NULL;
    int kind = REGION_POINTWISE;
    if (out.rank >= 2 && type_is_float(c->type) && chance(c, 40))
        kind = chance(c, 50) ? REGION_SOFTMAX : REGION_DOT;
    /* a dot's weight is one more input: only where the pattern takes any */
    if (kind == REGION_DOT && (p->has_args && !p->rest))
        kind = REGION_SOFTMAX;
    if (kind == REGION_DOT && n + 1 > CHECK_MAX_ARGS)
        kind = REGION_POINTWISE;
    ins *in[CHECK_MAX_ARGS];
    for (int k = 0; k < n; k++) {
        in[k] = p->has_args && k < p->nargs ? build(c, p->args[k], &out, false)
                                           : make_leaf(c, &out, LEAF_ANY);
        if (!in[k])
            return NULL;
    }
    if (kind == REGION_DOT) {
        lens_want w = out;
        w.d[w.rank - 2] = w.d[w.rank - 1];
        if (!(in[n] = make_leaf(c, &w, LEAF_ANY)))
            return NULL;
    }
    int nin = n + (kind == REGION_DOT);
    module *body = region_add_body_module(c->g, c->m, &c->region_index);
    if (!body)
        return NULL;
    static const char *const binary[] = {"add", "mul", "sub", "max"};
    static const char *const unary[] = {"neg", "relu", "abs"};
    ins *acc = NULL, *first = NULL, *params[CHECK_MAX_ARGS];
    graft_error err = {0};
    for (int k = 0; k < nin; k++) {
        char name[16];
        snprintf(name, sizeof name, "x%d", k);
        if (!(params[k] = module_add_param(body, name, &in[k]->sh)))
            return NULL;
    }
    /* the head reads the first input, a dot any one of them */
    int head = kind == REGION_DOT ? pick(c, n) : 0;
    for (int k = 0; k < n; k++) {
        ins *x = k != head ? params[k]
                           : region_head(c, body, params[k], kind == REGION_DOT ? params[n] : NULL, kind, &out);
        if (!x)
            return NULL;
        acc = acc ? module_add_op(body, binary[pick(c, 4)], NULL, 0, (ins *[]){acc, x}, 2, &err) : x;
        if (!acc)
            return NULL;
        if (k > 0 && !first)
            first = acc;
    }
    if (!first) {
        first = module_add_op(body, unary[pick(c, 3)], NULL, 0, &acc, 1, &err);
        if (!first)
            return NULL;
        acc = first;
    }
    if (noutputs > 1 || chance(c, 50)) {
        acc = module_add_op(body, unary[pick(c, 3)], NULL, 0, &acc, 1, &err);
        if (!acc)
            return NULL;
    }
    ins *rets[2] = {first, acc};
    if (noutputs == 1)
        rets[0] = acc;
    if (!module_add_return(body, rets, noutputs))
        return NULL;
    ins *region = region_insert(c->m, NULL, in, nin, body, noutputs, outputs);
    if (!region)
        fail_build(c, "a region could not be built");
    return region;
}

/* Does i's op match p's op or class (ignoring p's negation)? */
static bool matches_head(const dsl_pattern *p, const ins *i)
{
    if (p->kind == PAT_OP)
        return p->op && i->op == p->op;
    return p->kind == PAT_CLASS && (i->op->classes & p->classes) == p->classes;
}

/* Removes i, which nothing reads, and what only it read. */
static void remove_dead(ins *i)
{
    if (i->nusers > 0 || i->op->classes & OPC_BUILTIN)
        return;
    int n = i->nargs;
    ins *args[CHECK_MAX_ARGS];
    for (int k = 0; k < n && k < CHECK_MAX_ARGS; k++)
        args[k] = i->args[k];
    module_remove(i);
    for (int k = 0; k < n && k < CHECK_MAX_ARGS; k++)
        if (!(args[k]->flags & INS_REMOVED))
            remove_dead(args[k]);
}

static void bind(build_ctx *c, const char *name, ins *i)
{
    int ci = name ? capture_index(c->rule, name) : -1;
    if (ci >= 0)
        c->caps[ci] = i;
}

/* The instruction pattern p stands for, with lens want where it can. */
static ins *build(build_ctx *c, const dsl_pattern *p, const lens_want *want, bool want_tuple)
{
    lens_want out = want ? *want : random_lens(c);
    if (p->kind == PAT_CAPTURE || p->kind == PAT_WILDCARD) {
        int ci = p->kind == PAT_CAPTURE ? capture_index(c->rule, p->name) : -1;
        if (ci >= 0 && c->caps[ci])
            return c->caps[ci];
        ins *i = make_leaf(c, &out, LEAF_ANY);
        if (i && ci >= 0)
            c->caps[ci] = i;
        return i;
    }
    if (p->bind) {
        int ci = capture_index(c->rule, p->bind);
        if (ci >= 0 && c->caps[ci])
            return c->caps[ci];
    }
    ins *made = NULL;
    if (p->negated) { /* anything but the op or class */
        made = make_leaf(c, &out, LEAF_ANY);
        if (made && matches_head(p, made)) {
            remove_dead(made);
            bool not_param = p->kind == PAT_OP && p->op && op_named(p->op, "@param");
            made = make_leaf(c, &out, not_param ? LEAF_LITERAL : LEAF_PARAM);
        }
    } else if (p->kind == PAT_OP && op_named(p->op, "@literal")) {
        made = make_leaf(c, &out, LEAF_LITERAL);
    } else if (p->kind == PAT_OP && op_named(p->op, "@param")) {
        made = make_leaf(c, &out, LEAF_PARAM);
    } else if (p->kind == PAT_CLASS && (p->classes & OPC_REGION)) {
        ins *outs[2];
        int noutputs = want_tuple ? 2 : 1;
        made = build_region(c, p, out, noutputs, outs);
        if (made && want_tuple) {
            bind(c, p->bind, made);
            return made;
        }
    } else {
        int n = p->has_args ? p->nargs : -1;
        const op_def *op = choose_op(c, p, n < 0 ? 1 : n);
        if (!op) {
            fail_build(c, "no op of class <%s> takes %d operands", p->name, n < 0 ? 1 : n);
            return NULL;
        }
        if (n < 0) {
            int hi = op->max_args < 0 ? 3 : (op->max_args < 3 ? op->max_args : 3);
            n = op->min_args + pick(c, hi - op->min_args + 1);
        }
        int nrest = 0;
        if (p->rest) {
            int room = op->max_args < 0 ? 2 : op->max_args - n;
            int need = op->min_args > n ? op->min_args - n : 0;
            nrest = need + pick(c, (room < 2 ? room : 2) - need + 1);
        }
        int total = n + nrest;
        if (total > CHECK_MAX_ARGS || total < op->min_args) {
            fail_build(c, "op '%s' cannot take %d operands", op->name, total);
            return NULL;
        }
        attr_plan plan = {.op = op};
        plan_fixed(c, &plan, p);
        lens_want in_lens[CHECK_MAX_ARGS];
        plan_operands(c, &plan, out, total, in_lens);
        plan_rest(c, &plan);
        ins *args[CHECK_MAX_ARGS];
        /* :c: the engine tries both orders, so either may be built */
        int order[CHECK_MAX_ARGS];
        for (int k = 0; k < total; k++)
            order[k] = k;
        if (p->commutative && n == 2 && chance(c, 50)) {
            order[0] = 1;
            order[1] = 0;
        }
        bool gte = op_named(op, "get_tuple_elem");
        for (int k = 0; k < total; k++) {
            int a = order[k];
            args[a] = a < p->nargs && p->has_args ? build(c, p->args[k], &in_lens[a], gte)
                                                 : make_leaf(c, &in_lens[a], LEAF_ANY);
            if (!args[a])
                return NULL;
        }
        if (gte && args[0]->op->classes & OPC_REGION) {
            /* region_insert made one get_tuple_elem per output: use those */
            int64_t index = pick(c, 2);
            int k = op_attr_index(op, "index");
            if (k >= 0 && plan.set[k])
                index = plan.a[k].v.u.i;
            ins *pick_out = NULL;
            for (int u = 0; u < args[0]->nusers; u++) {
                ins *g = args[0]->users[u];
                const attr_value *iv = ins_attr(g, "index");
                if (iv && iv->u.i == index)
                    pick_out = g;
                else if (c->nextra < CHECK_MAX_EXTRA)
                    c->extra[c->nextra++] = g;
            }
            if (!pick_out) {
                fail_build(c, "get_tuple_elem index out of range");
                return NULL;
            }
            made = pick_out;
        } else {
            int nattrs = op->nattrs < CHECK_MAX_ATTRS ? op->nattrs : CHECK_MAX_ATTRS;
            attr given[CHECK_MAX_ATTRS];
            int ngiven = 0;
            for (int k = 0; k < nattrs; k++)
                if (plan.set[k])
                    given[ngiven++] = plan.a[k];
            graft_error err = {0};
            made = module_add(c->m, op, given, ngiven, args, total, &err);
            if (!made) {
                fail_build(c, "%.250s", err.message);
                return NULL;
            }
        }
        /* names bound to attributes keep the value they got here */
        for (const dsl_attr_pat *a = p->attrs; a; a = a->next) {
            int ci = a->bind ? capture_index(c->rule, a->bind) : -1;
            int k = op_attr_index(made->op, a->key);
            if (ci >= 0 && !c->cattr_set[ci] && k >= 0 && k < made->nattrs) {
                c->cattr[ci] = made->attrs[k].v;
                c->cattr_set[ci] = true;
            }
        }
    }
    if (made)
        bind(c, p->bind, made);
    else if (!c->why[0])
        snprintf(c->why, sizeof c->why, "a value could not be built");
    return made;
}

/* Builds candidate `seed` of rule r into a new graph; NULL with why set. */
static graph *build_candidate(const dsl_rule *r, uint64_t seed, char *why, size_t whysize)
{
    build_ctx c = {.rule = r, .rng = seed};
    c.g = graph_new();
    int nc = r->ncaptures > 0 ? r->ncaptures : 1;
    c.caps = calloc((size_t)nc, sizeof *c.caps);
    c.cattr = calloc((size_t)nc, sizeof *c.cattr);
    c.cattr_set = calloc((size_t)nc, sizeof *c.cattr_set);
    graft_error err = {0};
    c.m = c.g && c.caps && c.cattr && c.cattr_set ? graph_add_module(c.g, "main", &err) : NULL;
    ins *root = NULL;
    if (c.m) {
        static const graft_type types[] = {GRAFT_FLOAT, GRAFT_FLOAT, GRAFT_FLOAT, GRAFT_FLOAT,
                                           GRAFT_FLOAT, GRAFT_FLOAT, GRAFT_HALF, GRAFT_INT32};
        c.type = types[pick(&c, 8)];
        add_const(&c, 0.0);
        add_const(&c, 1.0);
        add_const(&c, -1.0);
        add_const(&c, 2.0);
        for (const dsl_clause *cl = r->clauses; cl; cl = cl->next)
            collect_expr_consts(&c, cl->expr);
        collect_pattern_consts(&c, r->pattern);
        root = build(&c, r->pattern, NULL, false);
    } else {
        snprintf(c.why, sizeof c.why, "out of memory");
    }
    if (root) {
        ins *rets[2 + CHECK_MAX_EXTRA];
        int nrets = 0;
        rets[nrets++] = root;
        for (int k = 0; k < c.nextra; k++)
            if (c.extra[k] != root)
                rets[nrets++] = c.extra[k];
        /* the root's readers: the return, a pointwise op, a reduction over
         * every axis, a multibroadcast that puts new leading axes in front,
         * or both (guards such as takes_broadcast_layout, bytes_saved,
         * dot_permutation_vanishes and multibroadcast_below look at them) */
        /* now and then a one-operand op of a transpose read by another
         * transpose instead (a rotation of the axes, never the identity):
         * guards that ask whether the two compose across the op
         * (composes_through_readers: unary_above_shared_transpose_to_compose
         * fires only there) */
        bool read_by_transpose = false;
        if (root->nargs == 1 && (root->op->classes & OPC_UNARY) && root->sh.rank >= 2 &&
            strcmp(root->args[0]->op->name, "transpose") == 0 && chance(&c, 50)) {
            int n = root->sh.rank, k = 1 + pick(&c, n - 1);
            int64_t perm[SHAPE_MAX_RANK];
            for (int i = 0; i < n; i++)
                perm[i] = (i + k) % n;
            attr a = {"permutation", attr_ints(perm, n)};
            ins *tr = module_add_op(c.m, "transpose", &a, 1, &root, 1, &err);
            if (tr) {
                rets[0] = tr;
                read_by_transpose = true;
            }
        }
        int use = read_by_transpose ? 0 : pick(&c, 8);
        if (use > 0 && !shape_is_tuple(&root->sh)) {
            static const char *const unary[] = {"relu", "neg", "exp"};
            ins *u = NULL;
            if (use <= 2) {
                int which = pick(&c, 4);
                if (which < 3) {
                    u = module_add_op(c.m, unary[which], NULL, 0, &root, 1, &err);
                } else if (root->sh.rank >= 2 && chance(&c, 25)) {
                    /* now and then a dot of the root and a leaf {..., K, N}
                     * (guards that ask whether only dots read the root,
                     * broadcast_stays with !feeds_output: round s28I's
                     * reshape_of_unary_of_unit_multibroadcast) */
                    lens_want l = {.rank = root->sh.rank};
                    memcpy(l.d, root->sh.lens, (size_t)l.rank * sizeof l.d[0]);
                    l.d[l.rank - 2] = root->sh.lens[l.rank - 1];
                    l.d[l.rank - 1] = 1 + pick(&c, 4);
                    ins *y = make_leaf(&c, &l, LEAF_ANY);
                    ins *xy[2] = {root, y};
                    u = y ? module_add_op(c.m, "dot", NULL, 0, xy, 2, &err) : NULL;
                } else if (root->sh.rank > 0) {
                    int64_t every[SHAPE_MAX_RANK];
                    for (int i = 0; i < root->sh.rank; i++)
                        every[i] = i;
                    attr a = {"axes", attr_ints(every, root->sh.rank)};
                    u = module_add_op(c.m, "reduce_sum", &a, 1, &root, 1, &err);
                }
            } else if (use == 7) {
                int lead = 1 + pick(&c, 3);
                if (root->sh.rank + lead <= SHAPE_MAX_RANK) {
                    int64_t out[SHAPE_MAX_RANK];
                    for (int i = 0; i < lead; i++)
                        out[i] = 2 + pick(&c, 2);
                    memcpy(out + lead, root->sh.lens, (size_t)root->sh.rank * sizeof out[0]);
                    attr a = {"out_lens", attr_ints(out, root->sh.rank + lead)};
                    u = module_add_op(c.m, "multibroadcast", &a, 1, &root, 1, &err);
                }
            } else if (use >= 5) {
                lens_want l = regroup(&c, shape_elements(&root->sh));
                attr a = {"dims", attr_ints(l.d, l.rank)};
                u = module_add_op(c.m, "reshape", &a, 1, &root, 1, &err);
            } else {
                lens_want l = {.rank = root->sh.rank};
                memcpy(l.d, root->sh.lens, (size_t)l.rank * sizeof l.d[0]);
                /* sometimes a one-operand op of another captured value of
                 * the root's lens: its readers meet again at this op, a
                 * diamond (guards such as rejoins_below look for them) */
                ins *y = NULL;
                bool itself = false, nsame_seen = false;
                if (chance(&c, 30)) {
                    ins *same[64];
                    int nsame = 0;
                    for (int k = 0; k < r->ncaptures && nsame < 64; k++) {
                        ins *i = c.caps[k];
                        if (i && i != root && r->captures[k].kind == SYM_INS && !shape_is_tuple(&i->sh) &&
                            shape_same_lens(&i->sh, &root->sh))
                            same[nsame++] = i;
                    }
                    /* or that value itself: the root's reader then
                     * reads it beside the root, a diamond over a captured
                     * broadcast (shared_broadcast_rejoins looks for it),
                     * now and then read by a one-operand op (whose
                     * layout takes a broadcast, takes_broadcast_layout) */
                    if (nsame > 0) {
                        ins *s = same[pick(&c, nsame)];
                        itself = chance(&c, 50);
                        nsame_seen = true;
                        y = itself ? s : module_add_op(c.m, "neg", NULL, 0, &s, 1, &err);
                    }
                }
                if (!y)
                    y = make_leaf(&c, &l, LEAF_ANY);
                /* the root read through a one-operand op before it meets
                 * that value: a diamond over the captured broadcast that
                 * closes through a chain (unary_chain_rejoins) */
                ins *top = root;
                if (itself && root->nargs == 1 && chance(&c, 50))
                    top = module_add_op(c.m, "neg", NULL, 0, &root, 1, &err);
                ins *xy[2] = {top ? top : root, y};
                u = y ? module_add_op(c.m, pick(&c, 2) ? "add" : "mul", NULL, 0, xy, 2, &err) : NULL;
                if (u && itself && chance(&c, 50))
                    u = module_add_op(c.m, "neg", NULL, 0, &u, 1, &err);
                /* where the other side is a one-operand op of that value,
                 * now and then read beside a parameter of its lens: every
                 * reader of the captured broadcast is then a one-operand op
                 * and the cone over it closes at u, whose reader reads a
                 * standard value beside it (broadcast_cone_closes) */
                else if (u && y && !itself && nsame_seen && chance(&c, 50)) {
                    ins *p = make_leaf(&c, &l, LEAF_PARAM);
                    ins *up[2] = {u, p};
                    u = p ? module_add_op(c.m, "mul", NULL, 0, up, 2, &err) : u;
                }
            }
            if (u) {
                if (use % 2)
                    rets[0] = u;
                else
                    rets[nrets++] = u;
            }
        }
        /* a second reader of a captured value: one of the pattern's own
         * one-operand ops (guards such as has_transpose and uses look).
         * The value is a leaf of the pattern, or now and then one of its
         * one-operand ops (guards such as shared_broadcast_splits ask
         * what the other readers of a captured broadcast do with it) */
        if (chance(&c, 25) && nrets < 2 + CHECK_MAX_EXTRA) {
            ins *ops[64], *leaves[64];
            int nops = 0, nleaves = 0;
            for (int k = 0; k < r->ncaptures; k++) {
                ins *i = c.caps[k];
                if (!i || r->captures[k].kind != SYM_INS)
                    continue;
                if (i->nargs == 1 && !(i->op->classes & (OPC_BUILTIN | OPC_REGION)) && nops < 64)
                    ops[nops++] = i;
                if (r->captures[k].pat == NULL || r->captures[k].pat->kind == PAT_CAPTURE ||
                    r->captures[k].pat->kind == PAT_WILDCARD || (i != root && i->nargs == 1 && chance(&c, 50)))
                    if (nleaves < 64)
                        leaves[nleaves++] = i;
            }
            if (root->nargs == 1 && nops < 64)
                ops[nops++] = root;
            if (nops > 0 && nleaves > 0) {
                ins *op = ops[pick(&c, nops)], *x = leaves[pick(&c, nleaves)];
                /* a captured op's value now and then gets a one-operand
                 * pointwise reader instead (guards that ask what the other
                 * readers of a captured broadcast do with it) */
                bool is_leaf = false;
                for (int k = 0; k < r->ncaptures && !is_leaf; k++)
                    is_leaf = c.caps[k] == x && (r->captures[k].pat == NULL || r->captures[k].pat->kind == PAT_CAPTURE ||
                                                 r->captures[k].pat->kind == PAT_WILDCARD);
                ins *extra = !is_leaf && chance(&c, 50) ? module_add_op(c.m, "neg", NULL, 0, &x, 1, &err)
                                                        : module_add(c.m, op->op, op->attrs, op->nattrs, &x, 1, &err);
                if (extra)
                    rets[nrets++] = extra;
            }
        }
        /* now and then a captured multibroadcast's operand is also
         * broadcast to another captured value's lens, where it fits there
         * (guards that ask whether that broadcast already exists:
         * broadcast_twin_in). Drawn only where the pattern captures a
         * multibroadcast, so other rules' candidates stay as they were. */
        ins *twin_of = NULL, *twin_lens = NULL;
        for (int k = 0; k < r->ncaptures && !twin_of; k++) {
            ins *i = c.caps[k];
            if (i && r->captures[k].kind == SYM_INS && i->nargs == 1 && strcmp(i->op->name, "multibroadcast") == 0)
                twin_of = i;
        }
        if (twin_of && nrets < 2 + CHECK_MAX_EXTRA && chance(&c, 25)) {
            ins *fits[64];
            int nfits = 0;
            for (int k = 0; k < r->ncaptures && nfits < 64; k++) {
                ins *i = c.caps[k];
                if (i && r->captures[k].kind == SYM_INS && i != twin_of && !shape_is_tuple(&i->sh) &&
                    shape_lens_broadcast_to(twin_of->args[0]->sh.lens, twin_of->args[0]->sh.rank, i->sh.lens, i->sh.rank))
                    fits[nfits++] = i;
            }
            twin_lens = nfits > 0 ? fits[pick(&c, nfits)] : NULL;
        }
        if (twin_lens) {
            attr a = {"out_lens", attr_ints(twin_lens->sh.lens, twin_lens->sh.rank)};
            ins *k = twin_of->args[0];
            ins *twin = module_add_op(c.m, "multibroadcast", &a, 1, &k, 1, &err);
            if (twin)
                rets[nrets++] = twin;
        }
        /* now and then the root read back by the transpose that undoes a
         * captured dot's output_permutation q, directly or through a
         * one-operand op: the root's value is then wanted in the dot's
         * plain layout as well (guards has_transpose(d, invert(q)) and
         * unary_read_back: dot_permutation_out_of_shared and its _unary
         * twin, the read-back guards on transpose_into_dot) */
        if (!shape_is_tuple(&root->sh) && root->sh.rank >= 2 && nrets < 2 + CHECK_MAX_EXTRA && chance(&c, 25)) {
            const attr_value *q = NULL;
            for (int k = 0; k < r->ncaptures && !q; k++) {
                ins *i = c.caps[k];
                const attr_value *v = i && r->captures[k].kind == SYM_INS && strcmp(i->op->name, "dot") == 0
                                          ? ins_attr(i, "output_permutation") : NULL;
                if (v && v->n == root->sh.rank)
                    q = v;
            }
            if (q) {
                int64_t inv[SHAPE_MAX_RANK];
                for (int i = 0; i < q->n; i++)
                    inv[q->u.ints[i]] = i;
                ins *x = root;
                if (chance(&c, 50))
                    x = module_add_op(c.m, "neg", NULL, 0, &root, 1, &err);
                attr a = {"permutation", attr_ints(inv, q->n)};
                ins *back = x ? module_add_op(c.m, "transpose", &a, 1, &x, 1, &err) : NULL;
                if (back)
                    rets[nrets++] = back;
            }
        }
        if (shape_is_tuple(&root->sh) || !module_add_return(c.m, rets, nrets)) {
            snprintf(c.why, sizeof c.why, "the root's value is a tuple");
            root = NULL;
        }
    }
    free(c.caps);
    free(c.cattr);
    free(c.cattr_set);
    snprintf(why, whysize, "%s", c.why);
    if (!root) {
        graph_free(c.g);
        return NULL;
    }
    return c.g;
}

/* ---- running and comparing ---- */

static void append_values(strbuf *b, const tensor *t)
{
    int64_t n = shape_elements(&t->sh);
    strbuf_append_string(b, "{");
    for (int64_t k = 0; k < n && k < 48; k++)
        strbuf_appendf(b, "%s%.9g", k ? ", " : "", tensor_get_f64(t, k));
    strbuf_append_string(b, n > 48 ? ", ...}" : "}");
}

static void append_shape(strbuf *b, const shape *s)
{
    char buf[300];
    shape_print(s, buf, sizeof buf);
    strbuf_append_string(b, buf);
}

static void append_dump(strbuf *b, const char *title, const char *dump)
{
    strbuf_appendf(b, "  %s:\n", title);
    for (const char *line = dump; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        strbuf_appendf(b, "    %.*s\n", (int)len, line);
        line = end ? end + 1 : line + len;
    }
}

static bool values_close(double a, double b, double rtol, double atol)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (a == b)
        return true;
    if (isinf(a) || isinf(b)) /* atol + rtol * inf would pass anything */
        return false;
    return fabs(a - b) <= atol + rtol * fabs(b);
}

/* The first output and element where before and after differ: -1 if none. */
static int first_difference(const tensor_list *x, const tensor_list *y, double rtol, double atol,
                            int64_t *element)
{
    *element = -1;
    for (int k = 0; k < x->n && k < y->n; k++) {
        const tensor *a = &x->items[k].t, *b = &y->items[k].t;
        if (!shape_same_lens(&a->sh, &b->sh) || a->sh.type != b->sh.type)
            return k;
        /* 16-bit floats hold about 3 digits: a sound rule that computes in
         * another order may move the last one */
        bool narrow = a->sh.type == GRAFT_HALF || a->sh.type == GRAFT_BF16;
        double r = narrow && rtol < 8e-3 ? 8e-3 : rtol, t = narrow && atol < 1e-3 ? 1e-3 : atol;
        int64_t n = shape_elements(&a->sh);
        for (int64_t e = 0; e < n; e++)
            if (!values_close(tensor_get_f64(a, e), tensor_get_f64(b, e), r, t)) {
                *element = e;
                return k;
            }
    }
    return x->n != y->n ? 0 : -1;
}

typedef enum trial_outcome {
    TRIAL_NOT_BUILT,
    TRIAL_NOT_FIRED,
    TRIAL_NOT_RUN,   /* the graph before could not run */
    TRIAL_EQUAL,
    TRIAL_DIFFERENT, /* text holds the counterexample */
    TRIAL_NO_MEMORY,
} trial_outcome;

/* How big a graph is to read: the elements of all its values. One with an
 * empty value comes after every other (its outputs show no numbers). */
static int64_t graph_size(const graph *g)
{
    int64_t n = 0;
    bool empty = false;
    for (const ins *i = graph_main(g)->first; i; i = i->next) {
        int64_t e = shape_is_tuple(&i->sh) ? 1 : shape_elements(&i->sh);
        empty = empty || e == 0;
        n += e + 1;
    }
    return empty ? n + ((int64_t)1 << 40) : n;
}

static trial_outcome run_trial(const dsl_rule *r, const rule_set *set, uint64_t seed,
                               const dsl_check_options *o, char *why, size_t whysize, strbuf *text,
                               int64_t *size)
{
    graph *before = build_candidate(r, seed, why, whysize);
    if (!before)
        return TRIAL_NOT_BUILT;
    graph *after = build_candidate(r, seed, why, whysize);
    if (!after) {
        graph_free(before);
        return TRIAL_NO_MEMORY;
    }
    const char **disabled = malloc((size_t)(set->nrules ? set->nrules : 1) * sizeof *disabled);
    int ndisabled = 0;
    if (!disabled) {
        graph_free(before);
        graph_free(after);
        return TRIAL_NO_MEMORY;
    }
    for (int k = 0; k < set->nrules; k++)
        if (strcmp(set->rules[k].name, r->name) != 0)
            disabled[ndisabled++] = set->rules[k].name;
    driver_options dopt;
    driver_options_init(&dopt);
    dopt.disabled = disabled;
    dopt.ndisabled = ndisabled;
    driver_result res = {0};
    graft_error err = {0};
    trial_outcome outcome = TRIAL_NOT_FIRED;
    uint64_t fires = 0;
    bool ran = driver_run(after, &set, 1, &dopt, &res, &err);
    for (int k = 0; ran && k < res.nrules; k++)
        if (strcmp(res.rules[k].name, r->name) == 0)
            fires = res.rules[k].fires;
    char *dump_before = NULL, *dump_after = NULL;
    strbuf literals = {0};
    tensor_list inputs = {0}, out_before = {0}, out_after = {0};
    if (!ran) {
        snprintf(why, whysize, "the driver could not run: %.200s", err.message);
        outcome = TRIAL_NOT_RUN;
        goto done;
    }
    if (fires == 0 && res.stop != DRIVER_ERROR)
        goto done;
    size_t len;
    *size = graph_size(before);
    dump_before = dump_write(before, &len, &err);
    /* literals by the names the dump gives them (@position) */
    int position = 0;
    for (const ins *i = graph_main(before)->first; i; i = i->next, position++) {
        if (!i->data || !(i->op->classes & OPC_BUILTIN))
            continue;
        tensor lit = {i->sh, i->data};
        strbuf_appendf(&literals, "    @%d: ", position);
        append_shape(&literals, &i->sh);
        strbuf_append_string(&literals, " ");
        append_values(&literals, &lit);
        strbuf_append_string(&literals, "\n");
    }
    graft_error rerr = {0};
    if (!shapes_resolve(before, NULL, &rerr) || !graph_verify(before, &rerr) ||
        !exec_random_inputs(graph_main(before), seed, &inputs, &rerr) ||
        !exec_run(graph_main(before), &inputs, &out_before, &rerr)) {
        snprintf(why, whysize, "the graph before could not run: %.200s", rerr.message);
        outcome = TRIAL_NOT_RUN;
        goto done;
    }
    const char *problem = NULL;
    char pbuf[1200];
    if (res.stop == DRIVER_ERROR) {
        snprintf(pbuf, sizeof pbuf, "the rewrite failed: %s", res.error.message);
        problem = pbuf;
    } else if (!shapes_resolve(after, NULL, &rerr) || !graph_verify(after, &rerr)) {
        snprintf(pbuf, sizeof pbuf, "the graph after is invalid: %s", rerr.message);
        problem = pbuf;
    }
    dump_after = dump_write(after, &len, &err);
    if (!problem && !exec_run(graph_main(after), &inputs, &out_after, &rerr)) {
        snprintf(pbuf, sizeof pbuf, "the graph after could not run: %s", rerr.message);
        problem = pbuf;
    }
    int64_t element = -1;
    int which = problem ? -1 : first_difference(&out_before, &out_after, o->rtol, o->atol, &element);
    if (!problem && which < 0) {
        outcome = TRIAL_EQUAL;
        goto done;
    }
    outcome = TRIAL_DIFFERENT;
    strbuf_appendf(text, "  candidate %llu: the rule fired %llu time%s and ", (unsigned long long)seed,
                   (unsigned long long)fires, fires == 1 ? "" : "s");
    if (problem)
        strbuf_appendf(text, "%s\n", problem);
    else if (element < 0)
        strbuf_appendf(text, "output%d changed its lens or type\n", which);
    else
        strbuf_appendf(text, "output%d differs at element %lld\n", which, (long long)element);
    append_dump(text, "before", dump_before ? dump_before : "(no dump)");
    append_dump(text, "after", dump_after ? dump_after : "(no dump)");
    strbuf_append_string(text, "  inputs:\n");
    for (int k = 0; k < inputs.n; k++) {
        strbuf_appendf(text, "    %s: ", inputs.items[k].name);
        append_shape(text, &inputs.items[k].t.sh);
        strbuf_append_string(text, " ");
        append_values(text, &inputs.items[k].t);
        strbuf_append_string(text, "\n");
    }
    if (literals.len > 0) {
        strbuf_append_string(text, "  literals:\n");
        strbuf_append_string(text, literals.text);
    }
    for (int k = 0; k < out_before.n; k++) {
        strbuf_appendf(text, "  output%d before: ", k);
        append_shape(text, &out_before.items[k].t.sh);
        strbuf_append_string(text, " ");
        append_values(text, &out_before.items[k].t);
        strbuf_append_string(text, "\n");
        if (k < out_after.n) {
            strbuf_appendf(text, "  output%d after:  ", k);
            append_shape(text, &out_after.items[k].t.sh);
            strbuf_append_string(text, " ");
            append_values(text, &out_after.items[k].t);
            strbuf_append_string(text, "\n");
        }
    }
    if (element >= 0)
        strbuf_appendf(text, "  first difference: output%d element %lld: before %.9g, after %.9g\n", which,
                       (long long)element, tensor_get_f64(&out_before.items[which].t, element),
                       tensor_get_f64(&out_after.items[which].t, element));
done:
    strbuf_free(&literals);
    free(dump_before);
    free(dump_after);
    tensor_list_free(&inputs);
    tensor_list_free(&out_before);
    tensor_list_free(&out_after);
    if (ran)
        driver_result_free(&res);
    free(disabled);
    graph_free(before);
    graph_free(after);
    return outcome;
}

/* Whether candidate k is tried: the first stop_at candidates (after a
 * first difference, stop_at shrinks to a few more, to find the smallest
 * counterexample); a rule that has fired on none of them and has no
 * counterexample gets up to unfired_budget in all (CHECK_UNFIRED_FACTOR: a
 * rare pattern), stopping at its first firing. Either way the search ends
 * once the rule has fired `fires` times without a difference. */
static bool wants_another_candidate(const dsl_check_result *out, int k, int stop_at, int64_t unfired_budget,
                                    int fires)
{
    if (out->fired >= fires && !out->counterexample)
        return false;
    if (k < stop_at)
        return true;
    return out->fired == 0 && !out->counterexample && k < unfired_budget;
}

bool dsl_check_rule(const dsl_rule *r, const rule_set *set, const dsl_check_options *opt,
                    dsl_check_result *out, graft_error *err)
{
    memset(out, 0, sizeof *out);
    dsl_check_options o = *opt;
    if (o.candidates <= 0)
        o.candidates = 20000;
    if (o.fires <= 0)
        o.fires = 40;
    if (o.rtol <= 0)
        o.rtol = 1e-4;
    if (o.atol <= 0)
        o.atol = 1e-5;
    bool known = false;
    for (int k = 0; k < set->nrules; k++)
        known = known || strcmp(set->rules[k].name, r->name) == 0;
    if (!known) {
        out->verdict = CHECK_NOT_CHECKED;
        snprintf(out->reason, sizeof out->reason, "the compiled rule set has no rule '%s'", r->name);
        return true;
    }
    char first_build[300] = "", first_run[300] = "";
    int not_run = 0;
    uint64_t base = o.seed * 0x9e3779b97f4a7c15ull + (hash_string(HASH_FNV_OFFSET, r->name) & 0xffffffffu) * 1000;
    /* After the first difference, a few more candidates: the smallest
     * counterexample among them is the one reported. */
    int64_t best_size = 0;
    int stop_at = o.candidates;
    int64_t unfired_budget = (int64_t)o.candidates * CHECK_UNFIRED_FACTOR;
    if (unfired_budget > INT_MAX)
        unfired_budget = INT_MAX;
    for (int k = 0; wants_another_candidate(out, k, stop_at, unfired_budget, o.fires); k++) {
        char why[300] = "";
        strbuf text = {0};
        uint64_t seed = base + (uint64_t)k;
        int64_t size = 0;
        trial_outcome t = run_trial(r, set, seed, &o, why, sizeof why, &text, &size);
        out->candidates++;
        switch (t) {
        case TRIAL_NOT_BUILT:
            if (!first_build[0])
                snprintf(first_build, sizeof first_build, "%s", why);
            break;
        case TRIAL_NO_MEMORY:
            strbuf_free(&text);
            return error_set(err, "out of memory checking rule %s", r->name);
        case TRIAL_NOT_FIRED:
            out->built++;
            break;
        case TRIAL_NOT_RUN:
            out->built++;
            not_run++;
            if (!first_run[0])
                snprintf(first_run, sizeof first_run, "%s", why);
            break;
        case TRIAL_EQUAL:
            out->built++;
            out->fired++;
            break;
        case TRIAL_DIFFERENT:
            out->built++;
            out->fired++;
            out->differed++;
            out->verdict = CHECK_UNSOUND;
            if (!out->counterexample || size < best_size) {
                char *ce = strbuf_take(&text, NULL);
                if (!ce)
                    return error_set(err, "out of memory checking rule %s", r->name);
                free(out->counterexample);
                out->counterexample = ce;
                best_size = size;
            }
            if (out->differed == 1)
                stop_at = k + 1 + CHECK_MORE_CANDIDATES < o.candidates ? k + 1 + CHECK_MORE_CANDIDATES
                                                                       : o.candidates;
            break;
        }
        strbuf_free(&text);
    }
    if (out->counterexample)
        return true;
    if (out->fired > 0) {
        out->verdict = CHECK_SOUND;
        return true;
    }
    out->verdict = CHECK_NOT_CHECKED;
    if (out->built == 0)
        snprintf(out->reason, sizeof out->reason, "its pattern could not be built in %d candidates (%s)",
                 out->candidates, first_build[0] ? first_build : "no reason given");
    else if (not_run > 0)
        snprintf(out->reason, sizeof out->reason,
                 "it fired on no graph that runs: %d of %d built graphs could not run (%s)", not_run,
                 out->built, first_run);
    else
        snprintf(out->reason, sizeof out->reason,
                 "it fired on none of %d graphs built from %d candidates (its guards or :once said no)",
                 out->built, out->candidates);
    return true;
}

void dsl_check_result_free(dsl_check_result *r)
{
    free(r->counterexample);
    r->counterexample = NULL;
}
