/* concat_in_place.c: solving where values live when concats are written in
 * place (see concat_in_place.h). One small open-addressing map from a value
 * to its home; the concats are visited latest first, so a concat read by a
 * later one already knows its home when its own operands are placed. */
#include "concat_in_place.h"

#include <stdlib.h>
#include <string.h>

typedef struct home_entry {
    const ins *value; /* NULL: empty slot */
    const ins *root;
    int64_t offset;
    bool placed;      /* for a concat: it costs no kernel */
} home_entry;

struct concat_plan {
    home_entry *slot;
    size_t cap; /* a power of two */
};

bool concat_in_place_requested(const ins *c)
{
    if (!ins_is(c, "concat"))
        return false;
    const attr_value *a = ins_attr(c, "in_place");
    return a && a->u.i != 0;
}

/* The first slot to probe for v: its id, scrambled. */
static size_t slot_of(const ins *v) { return (size_t)((uint64_t)v->id * 0x9e3779b97f4a7c15ull >> 17); }

static home_entry *lookup(const concat_plan *p, const ins *v)
{
    if (!p || !p->cap)
        return NULL;
    size_t k = slot_of(v) & (p->cap - 1);
    while (p->slot[k].value) {
        if (p->slot[k].value == v)
            return &p->slot[k];
        k = (k + 1) & (p->cap - 1);
    }
    return NULL;
}

/* The entry for v, made empty-homed if new (root NULL). */
static home_entry *entry(concat_plan *p, const ins *v)
{
    size_t k = slot_of(v) & (p->cap - 1);
    while (p->slot[k].value && p->slot[k].value != v)
        k = (k + 1) & (p->cap - 1);
    if (!p->slot[k].value)
        p->slot[k] = (home_entry){v, NULL, 0, false};
    return &p->slot[k];
}

static bool plan_init(concat_plan *p, size_t values)
{
    p->cap = 16;
    while (p->cap < values * 2 + 16)
        p->cap *= 2;
    p->slot = calloc(p->cap, sizeof *p->slot);
    return p->slot != NULL;
}

static bool read_by_return(const ins *v)
{
    for (int u = 0; u < v->nusers; u++)
        if (ins_is(v->users[u], "@return"))
            return true;
    return false;
}

/* Whether v can be stored in root's buffer: a kernel writes it, nothing
 * returns it, and root's strides are its own on every axis longer than 1. */
static bool can_live_in(const ins *v, const ins *root)
{
    unsigned c = v->op->classes;
    if (v == root || v->op == op_opaque() || shape_is_tuple(&v->sh) || shape_is_tuple(&root->sh))
        return false;
    if (c & (OPC_BUILTIN | OPC_VIEW | OPC_SHAPE | OPC_OPAQUE))
        return false;
    if (!(c & (OPC_COMPUTE | OPC_POINTWISE | OPC_REDUCE | OPC_MOVE | OPC_REGION)))
        return false;
    if (read_by_return(v) || v->sh.type != root->sh.type || v->sh.rank != root->sh.rank)
        return false;
    for (int d = 0; d < v->sh.rank; d++)
        if (v->sh.lens[d] > 1 && v->sh.strides[d] != root->sh.strides[d])
            return false;
    return true;
}

static int concat_axis(const ins *c)
{
    int64_t a = ins_attr(c, "axis")->u.i;
    return (int)(a < 0 ? a + c->sh.rank : a);
}

/* Places concat c, given the homes decided so far: true when c costs no
 * kernel. Nothing is recorded when it fails, except that c keeps the home a
 * later concat gave it (it then copies into it). */
static bool place(concat_plan *p, const ins *c)
{
    if (shape_is_tuple(&c->sh) || c->nargs == 0)
        return false;
    int axis = concat_axis(c);
    if (axis < 0 || axis >= c->sh.rank)
        return false;
    for (int j = 0; j < c->nargs; j++)
        for (int k = 0; k < j; k++)
            if (c->args[j] == c->args[k])
                return false;
    /* c's home: its own, one a later concat gave it, or the one its
     * operands' homes imply */
    const home_entry *mine = lookup(p, c);
    const ins *root = NULL;
    int64_t base = 0;
    if (mine && mine->root) {
        root = mine->root;
        base = mine->offset;
    } else {
        int64_t start = 0;
        for (int j = 0; j < c->nargs && !root; j++) {
            const home_entry *h = lookup(p, c->args[j]);
            if (h && h->root && h->root != c->args[j] && can_live_in(c, h->root)) {
                root = h->root;
                base = h->offset - start * root->sh.strides[axis];
            } else if (h && h->root) {
                return false; /* an operand that lives elsewhere, c cannot join it */
            }
            start += c->args[j]->sh.lens[axis];
        }
        if (!root) {
            root = c;
            base = 0;
        }
        if (base < 0)
            return false;
    }
    /* every operand must take its slice, or already be there */
    int64_t start = 0;
    for (int j = 0; j < c->nargs; j++) {
        const ins *x = c->args[j];
        int64_t at = base + start * root->sh.strides[axis];
        const home_entry *h = lookup(p, x);
        if (h && h->root) {
            if (h->root != root || h->offset != at)
                return false;
        } else if (!can_live_in(x, root)) {
            return false;
        }
        start += x->sh.lens[axis];
    }
    home_entry *e = entry(p, c);
    e->root = root;
    e->offset = base;
    e->placed = true;
    start = 0;
    for (int j = 0; j < c->nargs; j++) {
        home_entry *h = entry(p, c->args[j]);
        h->root = root;
        h->offset = base + start * root->sh.strides[axis];
        start += c->args[j]->sh.lens[axis];
    }
    return true;
}

static int by_order_descending(const void *x, const void *y)
{
    const ins *a = *(const ins *const *)x, *b = *(const ins *const *)y;
    return a->order > b->order ? -1 : a->order < b->order;
}

/* Solves the concats in list (any order); true when every one is placed. */
static bool solve(concat_plan *p, const ins **list, size_t n)
{
    qsort(list, n, sizeof *list, by_order_descending);
    bool all = true;
    for (size_t k = 0; k < n; k++)
        all = place(p, list[k]) && all;
    return all;
}

concat_plan *concat_plan_build(const module *m)
{
    concat_plan *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    size_t n = 0, values = 0;
    for (const ins *i = m ? m->first : NULL; i; i = i->next)
        if (concat_in_place_requested(i)) {
            n++;
            values += (size_t)i->nargs + 1;
        }
    if (!n)
        return p;
    const ins **list = malloc(n * sizeof *list);
    if (!list || !plan_init(p, values)) {
        free(list);
        concat_plan_free(p);
        return NULL;
    }
    n = 0;
    for (const ins *i = m->first; i; i = i->next)
        if (concat_in_place_requested(i))
            list[n++] = i;
    solve(p, list, n);
    free(list);
    return p;
}

void concat_plan_free(concat_plan *plan)
{
    if (!plan)
        return;
    free(plan->slot);
    free(plan);
}

bool concat_plan_placed(const concat_plan *plan, const ins *c)
{
    const home_entry *e = lookup(plan, c);
    return e && e->placed;
}

bool concat_plan_home(const concat_plan *plan, const ins *v, const ins **root, int64_t *offset)
{
    const home_entry *e = lookup(plan, v);
    if (!e || !e->root)
        return false;
    *root = e->root;
    *offset = e->offset;
    return true;
}

/* ---- the guard ---- */

typedef struct ins_list {
    const ins **at;
    size_t n, cap;
} ins_list;

static bool list_has(const ins_list *l, const ins *v)
{
    for (size_t k = 0; k < l->n; k++)
        if (l->at[k] == v)
            return true;
    return false;
}

static bool list_add(ins_list *l, const ins *v)
{
    if (list_has(l, v))
        return true;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        const ins **at = realloc(l->at, cap * sizeof *at);
        if (!at)
            return false;
        l->at = at;
        l->cap = cap;
    }
    l->at[l->n++] = v;
    return true;
}

static bool connected(const ins *v, const ins *c) { return v != c && concat_in_place_requested(v); }

bool concat_in_place_possible(const ins *c)
{
    if (!ins_is(c, "concat"))
        return false;
    ins_list comp = {0};
    bool ok = list_add(&comp, c);
    size_t values = 0;
    for (size_t k = 0; ok && k < comp.n; k++) {
        const ins *x = comp.at[k];
        values += (size_t)x->nargs + 1;
        for (int u = 0; ok && u < x->nusers; u++)
            if (connected(x->users[u], c))
                ok = list_add(&comp, x->users[u]);
        for (int j = 0; ok && j < x->nargs; j++) {
            const ins *a = x->args[j];
            if (connected(a, c))
                ok = list_add(&comp, a);
            for (int u = 0; ok && u < a->nusers; u++)
                if (connected(a->users[u], c))
                    ok = list_add(&comp, a->users[u]);
        }
    }
    concat_plan p = {0};
    ok = ok && plan_init(&p, values) && solve(&p, comp.at, comp.n);
    free(p.slot);
    free(comp.at);
    return ok;
}
