/* region_merge.c: growing fused regions by merging parts (see region_merge.h).
 *
 * The sets handled here are a region's worth of instructions (tens, at most
 * a few hundred), so membership is a linear search; the cycle walk, which
 * may cover a long stretch of the module, keeps its visited set in a hash.
 */
#include "region_merge.h"

#include "ptr_set.h"
#include "region.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int index_of(ins *const *list, int n, const ins *x)
{
    for (int k = 0; k < n; k++)
        if (list[k] == x)
            return k;
    return -1;
}

static bool is_region(const ins *i) { return (i->op->classes & OPC_REGION) && i->nmods == 1; }

static bool is_tuple_read(const ins *i)
{
    return ins_is(i, "get_tuple_elem") && i->nargs == 1 && is_region(i->args[0]);
}

static bool part_ok(const ins *i, const module *m)
{
    if (!i || i->mod != m || (i->flags & INS_REMOVED))
        return false;
    if (is_region(i)) {
        for (int u = 0; shape_is_tuple(&i->sh) && u < i->nusers; u++)
            if (!ins_is(i->users[u], "get_tuple_elem"))
                return false;
        return true;
    }
    if (i->nmods || shape_is_tuple(&i->sh) || (i->op->classes & OPC_OPAQUE))
        return false;
    if (i->op->classes & OPC_BUILTIN)
        return ins_is(i, "@literal");
    return true;
}

/* Inserts x into the program-ordered list (n entries) unless present. */
static void add_ordered(ins **list, int *n, ins *x)
{
    if (index_of(list, *n, x) >= 0)
        return;
    int at = (*n)++;
    while (at > 0 && ins_before(x, list[at - 1])) {
        list[at] = list[at - 1];
        at--;
    }
    list[at] = x;
}

void region_merge_plan_free(region_merge_plan *p)
{
    free(p->parts);
    free(p->inside);
    free(p->inputs);
    free(p->outputs);
    memset(p, 0, sizeof *p);
}

const char *region_merge_status_name(region_merge_status s)
{
    switch (s) {
    case MERGE_OK: return "ok";
    case MERGE_BAD_PART: return "a part cannot be fused";
    case MERGE_NO_OUTPUT: return "nothing outside reads the parts";
    case MERGE_CYCLE: return "the merge would create a cycle";
    case MERGE_NO_POSITION: return "no position after every input and before every outside user";
    case MERGE_ONE_PART: return "the parts are one instruction: nothing to merge";
    case MERGE_NO_MEMORY: return "out of memory";
    }
    return "?";
}

/* ---- the cycle check ---- */

typedef struct walk {
    ins *const *inside;
    int ninside;
    const ins *last;  /* the last input: nothing after it can reach one */
    ptr_set seen;
    ins **stack;
    size_t n, cap;
    bool oom;
} walk;

/* Queues the users of x that lie outside the inside, not after the last
 * input, and were not queued before. */
static void push_users(walk *w, const ins *x)
{
    for (int u = 0; u < x->nusers && !w->oom; u++) {
        ins *user = x->users[u];
        if (index_of(w->inside, w->ninside, user) >= 0 || ins_before(w->last, user) ||
            !ptr_set_add(&w->seen, user)) {
            w->oom = w->seen.failed;
            continue;
        }
        if (w->n == w->cap) {
            size_t cap = w->cap ? 2 * w->cap : 64;
            ins **more = realloc(w->stack, cap * sizeof *more);
            if (!more) {
                w->oom = true;
                return;
            }
            w->stack = more;
            w->cap = cap;
        }
        w->stack[w->n++] = user;
    }
}

bool region_merge_cycle(ins *const *inside, int ninside, ins *const *inputs, int ninputs,
                        ins *const *outputs, int noutputs)
{
    if (ninputs == 0)
        return false;
    walk w = {.inside = inside, .ninside = ninside, .last = inputs[0]};
    for (int k = 1; k < ninputs; k++)
        if (ins_before(w.last, inputs[k]))
            w.last = inputs[k];
    for (int k = 0; k < noutputs; k++)
        push_users(&w, outputs[k]);
    bool cycle = false;
    while (w.n && !cycle && !w.oom) {
        ins *x = w.stack[--w.n];
        cycle = index_of(inputs, ninputs, x) >= 0;
        push_users(&w, x);
    }
    free(w.stack);
    ptr_set_free(&w.seen);
    return cycle || w.oom; /* out of memory: refuse rather than guess */
}

/* ---- planning ---- */

/* A view (or reshape) that moves no data: one operand, not a tuple read. */
static bool is_bridge_view(const ins *v)
{
    return (v->op->classes & (OPC_VIEW | OPC_SHAPE)) && !(v->op->classes & OPC_BUILTIN) && v->nargs == 1 &&
           !v->nmods && !ins_is(v, "get_tuple_elem") && !shape_is_tuple(&v->sh);
}

/* Whether x is a part or reads one (a get_tuple_elem of a region part). */
static bool is_of_parts(const region_merge_plan *q, const ins *x)
{
    if (is_tuple_read(x))
        x = x->args[0];
    return index_of(q->parts, q->nparts, x) >= 0;
}

/* Views between two parts join the parts: when a part reads a chain of
 * views whose bottom is a part (or one of its outputs), the chain's views
 * become parts too. Left outside, such a view would read an output of the
 * region and feed one of its inputs: a cycle. A view costs nothing inside a
 * kernel (index arithmetic); one that something outside still reads becomes
 * an output like any member. q->parts has room for nparts entries; it grows
 * here as needed. */
static bool add_bridging_views(region_merge_plan *q, int nparts)
{
    int cap = nparts;
    for (bool grew = true; grew;) {
        grew = false;
        for (int k = 0; k < q->nparts; k++) {
            ins *x = q->parts[k];
            for (int a = 0; a < x->nargs; a++) {
                ins *chain[16];
                int n = 0;
                ins *v = x->args[a];
                while (n < 16 && is_bridge_view(v) && !is_of_parts(q, v)) {
                    chain[n++] = v;
                    v = v->args[0];
                }
                if (!n || !is_of_parts(q, v))
                    continue;
                for (int j = 0; j < n; j++) {
                    if (q->nparts == cap) {
                        cap = 2 * cap + 4;
                        ins **more = realloc(q->parts, (size_t)cap * sizeof *more);
                        if (!more)
                            return false;
                        q->parts = more;
                    }
                    add_ordered(q->parts, &q->nparts, chain[j]);
                }
                grew = true;
                break;
            }
            if (grew)
                break;
        }
    }
    return true;
}

region_merge_status region_merge_plan_make(region_merge_plan *p, ins *const *parts, int nparts)
{
    memset(p, 0, sizeof *p);
    if (!parts || nparts < 1 || !parts[0])
        return MERGE_BAD_PART;
    module *mod = parts[0]->mod;
    region_merge_plan q = {.mod = mod};
    int cap_inside = nparts, total_args = 0;
    for (int k = 0; k < nparts; k++) {
        ins *x = parts[k] && is_tuple_read(parts[k]) ? parts[k]->args[0] : parts[k];
        if (!part_ok(x, mod))
            return MERGE_BAD_PART;
        if (is_region(x) && shape_is_tuple(&x->sh))
            cap_inside += x->nusers;
    }
    q.parts = malloc((size_t)nparts * sizeof *q.parts);
    q.inside = malloc((size_t)cap_inside * sizeof *q.inside);
    if (!q.parts || !q.inside) {
        region_merge_plan_free(&q);
        return MERGE_NO_MEMORY;
    }
    for (int k = 0; k < nparts; k++) {
        ins *x = is_tuple_read(parts[k]) ? parts[k]->args[0] : parts[k];
        add_ordered(q.parts, &q.nparts, x);
    }
    if (!add_bridging_views(&q, nparts)) {
        region_merge_plan_free(&q);
        return MERGE_NO_MEMORY;
    }
    /* Parts that are all one instruction (a binary op reading one region
     * twice, `mul(r, r)`) merge nothing: rebuilding the region would change
     * nothing and the rule would fire again on its own result. */
    if (nparts > 1 && q.nparts < 2) {
        region_merge_plan_free(&q);
        return MERGE_ONE_PART;
    }
    cap_inside += q.nparts;
    ins **inside = realloc(q.inside, (size_t)cap_inside * sizeof *inside);
    if (!inside) {
        region_merge_plan_free(&q);
        return MERGE_NO_MEMORY;
    }
    q.inside = inside;
    for (int k = 0; k < q.nparts; k++) {
        ins *x = q.parts[k];
        add_ordered(q.inside, &q.ninside, x);
        for (int u = 0; is_region(x) && shape_is_tuple(&x->sh) && u < x->nusers; u++)
            add_ordered(q.inside, &q.ninside, x->users[u]);
    }
    for (int k = 0; k < q.ninside; k++)
        total_args += q.inside[k]->nargs;
    q.inputs = malloc((size_t)(total_args ? total_args : 1) * sizeof *q.inputs);
    q.outputs = malloc((size_t)q.ninside * sizeof *q.outputs);
    if (!q.inputs || !q.outputs) {
        region_merge_plan_free(&q);
        return MERGE_NO_MEMORY;
    }
    for (int k = 0; k < q.ninside; k++) {
        ins *x = q.inside[k];
        for (int a = 0; a < x->nargs; a++)
            if (index_of(q.inside, q.ninside, x->args[a]) < 0 &&
                index_of(q.inputs, q.ninputs, x->args[a]) < 0)
                q.inputs[q.ninputs++] = x->args[a];
        if (is_region(x) && shape_is_tuple(&x->sh))
            continue; /* its values are its get_tuple_elem readers */
        for (int u = 0; u < x->nusers; u++)
            if (index_of(q.inside, q.ninside, x->users[u]) < 0) {
                q.outputs[q.noutputs++] = x;
                break;
            }
    }
    region_merge_status st = MERGE_OK;
    if (q.noutputs == 0)
        st = MERGE_NO_OUTPUT;
    else if (region_merge_cycle(q.inside, q.ninside, q.inputs, q.ninputs, q.outputs, q.noutputs))
        st = MERGE_CYCLE;
    if (st == MERGE_OK) {
        q.pos = q.inside[q.ninside - 1];
        for (int k = 0; k < q.noutputs; k++)
            for (int u = 0; u < q.outputs[k]->nusers; u++) {
                ins *user = q.outputs[k]->users[u];
                if (index_of(q.inside, q.ninside, user) < 0 && ins_before(user, q.pos))
                    q.pos = user;
            }
        for (int k = 0; k < q.ninputs && st == MERGE_OK; k++)
            if (!ins_before(q.inputs[k], q.pos))
                st = MERGE_NO_POSITION;
    }
    if (st != MERGE_OK) {
        region_merge_plan_free(&q);
        return st;
    }
    *p = q;
    return MERGE_OK;
}

/* ---- outlining ---- */

/* Outer value -> its copy in the body. */
typedef struct value_map {
    const ins **from;
    ins **to;
    int n;
} value_map;

static ins *lookup(const value_map *m, const ins *x)
{
    for (int k = 0; k < m->n; k++)
        if (m->from[k] == x)
            return m->to[k];
    return NULL;
}

/* The operand index of a region body's parameter "x<k>", or -1. */
static int param_index(const char *name)
{
    if (!name || name[0] != 'x' || !name[1])
        return -1;
    int k = 0;
    for (const char *c = name + 1; *c; c++) {
        if (*c < '0' || *c > '9' || k > 100000)
            return -1;
        k = 10 * k + (*c - '0');
    }
    return k;
}

static ins *copy_ins(module *body, const ins *x, ins **args)
{
    if (ins_is(x, "@literal"))
        return module_add_literal(body, &x->sh, x->data);
    graft_error e;
    ins *c = module_add(body, x->op, x->attrs, x->nattrs, args, x->nargs, &e);
    if (c && !shape_equal(&c->sh, &x->sh)) {
        module_remove(c); /* the body is left as it was */
        c = NULL;
    }
    return c;
}

/* Inlines region part r's body, its parameters reading what r's operands
 * map to; sets the map for r (one output) or its get_tuple_elem readers. */
static bool inline_region(module *body, const ins *r, value_map *m)
{
    const module *b = r->mods[0];
    int n = 0;
    for (const ins *i = b->first; i; i = i->next)
        n++;
    value_map local = {malloc((size_t)(n ? n : 1) * sizeof *local.from),
                       malloc((size_t)(n ? n : 1) * sizeof *local.to), 0};
    int max_args = 1;
    for (const ins *i = b->first; i; i = i->next)
        max_args = i->nargs > max_args ? i->nargs : max_args;
    ins **args = malloc((size_t)max_args * sizeof *args);
    const ins *ret = NULL;
    bool ok = local.from && local.to && args;
    for (const ins *i = b->first; ok && i; i = i->next) {
        if (i->flags & INS_REMOVED)
            continue;
        ins *c = NULL;
        if (i->param) {
            int k = param_index(i->param);
            c = k >= 0 && k < r->nargs ? lookup(m, r->args[k]) : NULL;
        } else if (ins_is(i, "@return")) {
            ret = i;
            continue;
        } else {
            for (int a = 0; ok && a < i->nargs; a++)
                ok = (args[a] = lookup(&local, i->args[a])) != NULL;
            c = ok ? copy_ins(body, i, args) : NULL;
        }
        ok = c != NULL;
        if (ok) {
            local.from[local.n] = i;
            local.to[local.n++] = c;
        }
    }
    ok = ok && ret && ret->nargs >= 1;
    if (ok && !shape_is_tuple(&r->sh)) {
        ins *v = lookup(&local, ret->args[0]);
        ok = v != NULL;
        if (ok) {
            m->from[m->n] = r;
            m->to[m->n++] = v;
        }
    }
    for (int u = 0; ok && shape_is_tuple(&r->sh) && u < r->nusers; u++) {
        const ins *g = r->users[u];
        const attr_value *idx = ins_attr(g, "index");
        ok = idx && idx->kind == ATTR_INT && idx->u.i >= 0 && idx->u.i < ret->nargs;
        ins *v = ok ? lookup(&local, ret->args[idx->u.i]) : NULL;
        ok = v != NULL;
        if (ok && !lookup(m, g)) {
            m->from[m->n] = g;
            m->to[m->n++] = v;
        }
    }
    free(args);
    free(local.from);
    free(local.to);
    return ok;
}

static bool fill_body(const region_merge_plan *p, module *body)
{
    int n = p->ninputs + p->ninside, max_args = 1;
    for (int k = 0; k < p->nparts; k++)
        max_args = p->parts[k]->nargs > max_args ? p->parts[k]->nargs : max_args;
    value_map m = {malloc((size_t)n * sizeof *m.from), malloc((size_t)n * sizeof *m.to), 0};
    ins **args = malloc((size_t)max_args * sizeof *args);
    ins **rets = malloc((size_t)p->noutputs * sizeof *rets);
    bool ok = m.from && m.to && args && rets;
    for (int k = 0; ok && k < p->ninputs; k++) {
        char name[32];
        snprintf(name, sizeof name, "x%d", k);
        m.from[m.n] = p->inputs[k];
        ok = (m.to[m.n++] = module_add_param(body, name, &p->inputs[k]->sh)) != NULL;
    }
    for (int k = 0; ok && k < p->nparts; k++) {
        const ins *x = p->parts[k];
        if (is_region(x)) {
            ok = inline_region(body, x, &m);
            continue;
        }
        for (int a = 0; ok && a < x->nargs; a++)
            ok = (args[a] = lookup(&m, x->args[a])) != NULL;
        ins *c = ok ? copy_ins(body, x, args) : NULL;
        ok = c != NULL;
        if (ok) {
            m.from[m.n] = x;
            m.to[m.n++] = c;
        }
    }
    for (int k = 0; ok && k < p->noutputs; k++)
        ok = (rets[k] = lookup(&m, p->outputs[k])) != NULL;
    ok = ok && module_add_return(body, rets, p->noutputs);
    free(rets);
    free(args);
    free(m.from);
    free(m.to);
    return ok;
}

/* ---- growing in place ----
 *
 * A region that absorbs the instructions that read it (absorb_consumer, the
 * common step of a growing chain) would be rebuilt from scratch above: every
 * absorb copies the whole body, so a region grown one instruction at a time
 * to n instructions costs O(n^2) copies (each with its shape computed
 * again). When the region comes first and everything else merged is a plain
 * instruction, the merged body is the region's body, its parameters
 * followed by the new inputs' and the new instructions before a new return:
 * so the body's instructions move into the new body module as they are and
 * only the new parts are copied. The result is the body fill_body would
 * build, instruction for instruction (same order, parameters, shapes and
 * positional names); whatever could make it differ takes the copying path. */

/* Whether region r's body can move as it is: it starts with r's parameters
 * x0, x1, ... in order, reading the plan's first inputs (r's operands, each
 * of its parameter's shape); the rest is plain (no parameter, no stable
 * name, no flag such as an elided literal's, nothing opaque or with
 * submodules), ending with its one @return. */
static bool body_moves_as_is(const region_merge_plan *p, const ins *r)
{
    const module *b = r->mods[0];
    const ins *ret = module_return(b);
    if (!ret || ret->nargs < 1 || p->ninputs < r->nargs)
        return false;
    const ins *i = b->first;
    for (int k = 0; k < r->nargs; k++, i = i->next) {
        /* named "x<k>" as fill_body names it: no leading zero */
        if (!i || !i->param || param_index(i->param) != k || (i->param[1] == '0' && i->param[2]) ||
            i->name != i->param || p->inputs[k] != r->args[k] || !shape_equal(&i->sh, &r->args[k]->sh))
            return false;
    }
    for (; i != ret; i = i->next)
        if (i->param || i->name || i->flags || i->nmods || (i->op->classes & OPC_OPAQUE) ||
            (ins_is(i, "@return")))
            return false;
    return true;
}

static bool grows_in_place(const region_merge_plan *p)
{
    if (p->nparts < 2 || !is_region(p->parts[0]))
        return false;
    for (int k = 1; k < p->nparts; k++)
        if (is_region(p->parts[k]))
            return false;
    return body_moves_as_is(p, p->parts[0]);
}

/* What grow_in_place changed, to put the region's body back. */
typedef struct growth {
    module *from;        /* the region's body, emptied */
    ins **old_rets;      /* its @return's operands */
    int nold_rets;
    ins **added;         /* instructions made in the new body, in order */
    int nadded;
} growth;

static void growth_free(growth *gr)
{
    free(gr->old_rets);
    free(gr->added);
}

/* Puts the region's body back as it was: the new instructions go (last
 * first: each reads only earlier ones), the rest moves back, and a return
 * of the old operands closes it. */
static void growth_undo(growth *gr, module *body)
{
    for (int k = gr->nadded - 1; k >= 0; k--)
        module_remove(gr->added[k]);
    module_move_all(gr->from, body);
    module_add_return(gr->from, gr->old_rets, gr->nold_rets);
}

static bool grow_in_place(const region_merge_plan *p, module *body, growth *gr)
{
    const ins *r = p->parts[0];
    module *from = r->mods[0];
    ins *ret = module_return(from);
    int n = p->ninputs + p->ninside, max_args = 1;
    for (int k = 0; k < p->nparts; k++)
        max_args = p->parts[k]->nargs > max_args ? p->parts[k]->nargs : max_args;
    *gr = (growth){from, malloc((size_t)ret->nargs * sizeof *gr->old_rets), ret->nargs,
                   malloc((size_t)(p->ninputs + p->nparts + 1) * sizeof *gr->added), 0};
    value_map m = {malloc((size_t)n * sizeof *m.from), malloc((size_t)n * sizeof *m.to), 0};
    ins **args = malloc((size_t)max_args * sizeof *args);
    ins **rets = malloc((size_t)p->noutputs * sizeof *rets);
    bool ok = gr->old_rets && gr->added && m.from && m.to && args && rets;
    if (ok)
        memcpy(gr->old_rets, ret->args, (size_t)ret->nargs * sizeof *gr->old_rets);
    /* the region's values: itself, or its get_tuple_elem readers */
    if (ok && !shape_is_tuple(&r->sh)) {
        m.from[m.n] = r;
        m.to[m.n++] = ret->args[0];
    }
    for (int u = 0; shape_is_tuple(&r->sh) && u < r->nusers; u++) {
        const ins *g = r->users[u];
        const attr_value *idx = ins_attr(g, "index");
        ok = ok && idx && idx->kind == ATTR_INT && idx->u.i >= 0 && idx->u.i < ret->nargs;
        if (ok && !lookup(&m, g)) {
            m.from[m.n] = g;
            m.to[m.n++] = ret->args[idx->u.i];
        }
    }
    ins *param = from->first;
    for (int k = 0; ok && k < r->nargs; k++, param = param->next) {
        m.from[m.n] = p->inputs[k];
        m.to[m.n++] = param;
    }
    if (!ok) {
        free(m.from);
        free(m.to);
        free(args);
        free(rets);
        growth_free(gr);
        return false;
    }
    ins *first_op = param; /* the first instruction after the parameters */
    module_remove(ret);
    module_move_all(body, from);
    if (first_op == ret)
        first_op = NULL;
    for (int k = r->nargs; ok && k < p->ninputs; k++) {
        char name[32];
        snprintf(name, sizeof name, "x%d", k);
        ins *x = module_add_param(body, name, &p->inputs[k]->sh);
        ok = x != NULL;
        if (ok) {
            gr->added[gr->nadded++] = x;
            if (first_op)
                module_move_before(x, first_op);
            m.from[m.n] = p->inputs[k];
            m.to[m.n++] = x;
        }
    }
    for (int k = 1; ok && k < p->nparts; k++) {
        const ins *x = p->parts[k];
        for (int a = 0; ok && a < x->nargs; a++)
            ok = (args[a] = lookup(&m, x->args[a])) != NULL;
        ins *c = ok ? copy_ins(body, x, args) : NULL;
        ok = c != NULL;
        if (ok) {
            gr->added[gr->nadded++] = c;
            m.from[m.n] = x;
            m.to[m.n++] = c;
        }
    }
    for (int k = 0; ok && k < p->noutputs; k++)
        ok = (rets[k] = lookup(&m, p->outputs[k])) != NULL;
    ins *new_ret = ok ? module_add_return(body, rets, p->noutputs) : NULL;
    ok = new_ret != NULL;
    if (ok)
        gr->added[gr->nadded++] = new_ret;
    else
        growth_undo(gr, body);
    free(m.from);
    free(m.to);
    free(args);
    free(rets);
    if (!ok)
        growth_free(gr);
    return ok;
}

ins *region_merge_outline(const region_merge_plan *p, module *body, ins **replacements)
{
    if (grows_in_place(p)) {
        growth gr;
        if (!grow_in_place(p, body, &gr))
            return NULL;
        ins *region = region_insert(p->mod, p->pos, p->inputs, p->ninputs, body, p->noutputs,
                                    replacements);
        if (!region)
            growth_undo(&gr, body);
        growth_free(&gr);
        return region;
    }
    if (!fill_body(p, body))
        return NULL;
    return region_insert(p->mod, p->pos, p->inputs, p->ninputs, body, p->noutputs, replacements);
}
