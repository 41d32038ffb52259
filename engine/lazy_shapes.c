/* lazy_shapes.c: pending_shape_change helpers and shapes_resolve, the one
 * pass that settles pending shape changes (see lazy_shapes.h for what the
 * op means and how the pass decides).
 */
#include "lazy_shapes.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const op_def *pending_def;
static pthread_once_t pending_once = PTHREAD_ONCE_INIT;

static void find_pending(void) { pending_def = op_find(PENDING_OP_NAME); }

const op_def *op_pending(void)
{
    pthread_once(&pending_once, find_pending);
    return pending_def;
}

bool ins_is_pending(const ins *i) { return i->op == op_pending(); }

ins *pending_insert(ins *pos, ins *x, const shape *target, const int64_t *perm, int nperm,
                    graft_error *err)
{
    if (x->sh.type != target->type || shape_is_tuple(target)) {
        error_set(err, "a pending shape change cannot change the type (%s to %s)",
                  type_name(x->sh.type), type_name(target->type));
        return NULL;
    }
    attr attrs[3] = {
        {"lens", attr_ints(target->lens, target->rank)},
        {"strides", attr_ints(target->strides, target->rank)},
        {"permutation", attr_ints(perm, nperm)},
    };
    return module_insert(x->mod, pos, op_pending(), attrs, nperm ? 3 : 2, &x, 1, err);
}

static bool is_identity(const int64_t *perm, int n)
{
    for (int k = 0; k < n; k++)
        if (perm[k] != k)
            return false;
    return true;
}

static const attr_value *pending_attr(const ins *p, int index) { return &p->attrs[index].v; }

bool pending_is_transparent(const ins *p)
{
    if (!ins_is_pending(p))
        return false;
    const attr_value *perm = pending_attr(p, 2);
    const shape *in = &p->args[0]->sh;
    return in->type == p->sh.type && shape_same_lens(in, &p->sh) &&
           is_identity(perm->u.ints, perm->n);
}

/* The value a transparent pending op stands for: its operand, through any
 * chain of transparent pending ops. */
static ins *look_through(ins *v)
{
    while (pending_is_transparent(v))
        v = v->args[0];
    return v;
}

size_t shapes_pending_count(const graph *g)
{
    size_t n = 0;
    for (module *m = g->first_module; m; m = m->next)
        for (ins *i = m->first; i; i = i->next)
            n += ins_is_pending(i);
    return n;
}

static bool may_look_through(const ins *u)
{
    return !(u->op->classes & (OPC_BUILTIN | OPC_OPAQUE)) && u->nmods == 0;
}

/* The pass's record of instructions whose shape it changed: by id, the
 * shape their users were computed against. */
typedef struct changes {
    uint32_t *slot;  /* by id: 1 + index into old, 0 when unchanged */
    uint32_t nslots;
    shape *old;
    size_t n, cap;
} changes;

static const shape *old_shape(const changes *c, const ins *i)
{
    return i->id < c->nslots && c->slot[i->id] ? &c->old[c->slot[i->id] - 1] : NULL;
}

static bool record_change(changes *c, const ins *i, const shape *old, graft_error *err)
{
    if (i->id >= c->nslots) {
        uint32_t n = c->nslots ? c->nslots : 1024;
        while (n <= i->id)
            n *= 2;
        uint32_t *s = realloc(c->slot, (size_t)n * sizeof *s);
        if (!s)
            return error_set(err, "out of memory");
        memset(s + c->nslots, 0, (size_t)(n - c->nslots) * sizeof *s);
        c->slot = s;
        c->nslots = n;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        shape *o = realloc(c->old, cap * sizeof *o);
        if (!o)
            return error_set(err, "out of memory");
        c->old = o;
        c->cap = cap;
    }
    c->old[c->n++] = *old;
    c->slot[i->id] = (uint32_t)c->n;
    return true;
}

/* i cannot take the new shapes of its changed operands: each of them is
 * read through a pending op that presents its old shape again. */
static bool keep_old_shapes(ins *i, const changes *c, graft_error *err)
{
    for (int k = 0; k < i->nargs; k++) {
        ins *a = i->args[k];
        const shape *old = old_shape(c, a);
        if (!old)
            continue;
        ins *p = pending_insert(a->next, a, old, NULL, 0, err);
        if (!p)
            return false;
        for (int j = k; j < i->nargs; j++)
            if (i->args[j] == a)
                ins_set_arg(i, j, p);
    }
    return true;
}

/* One instruction of the forward pass. */
static bool visit(ins *i, changes *c, shapes_stats *st, graft_error *err)
{
    bool pending = false, changed = false;
    for (int k = 0; k < i->nargs; k++) {
        pending |= pending_is_transparent(i->args[k]);
        changed |= old_shape(c, i->args[k]) != NULL;
    }
    if (!pending && !changed)
        return true;
    if (ins_is_pending(i)) {
        /* A pending op's shape does not depend on its operand's strides. */
        if (pending) {
            ins_set_arg(i, 0, look_through(i->args[0]));
            st->looked_through++;
        }
        return true;
    }
    if (!may_look_through(i))
        return keep_old_shapes(i, c, err);
    shape small[8];
    shape *inputs = i->nargs <= 8 ? small : malloc((size_t)i->nargs * sizeof *inputs);
    if (!inputs)
        return error_set(err, "out of memory");
    for (int k = 0; k < i->nargs; k++)
        inputs[k] = look_through(i->args[k])->sh;
    op_call call = {i->op, i->attrs, inputs, i->nargs, i->mods, i->nmods};
    shape sh;
    graft_error sub;
    st->recomputed++;
    i->mod->g->shape_calls++;
    bool accepted = op_compute_shape(&call, &sh, &sub);
    if (inputs != small)
        free(inputs);
    if (!accepted)
        return keep_old_shapes(i, c, err); /* pending operands get materialised */
    for (int k = 0; k < i->nargs; k++) {
        if (pending_is_transparent(i->args[k])) {
            ins_set_arg(i, k, look_through(i->args[k]));
            st->looked_through++;
        }
    }
    if (shape_equal(&sh, &i->sh))
        return true; /* propagation stops here */
    if (!record_change(c, i, &i->sh, err))
        return false;
    i->sh = sh;
    st->changed++;
    return true;
}

/* Recomputes the users of v, and theirs, until shapes stop changing; used
 * only when a materialised op could not reach the exact old shape. */
static bool recompute_users(ins *v, shapes_stats *st, graft_error *err)
{
    int n = 0, cap = 64;
    ins **stack = malloc((size_t)cap * sizeof *stack);
    if (!stack)
        return error_set(err, "out of memory");
    stack[n++] = v;
    bool ok = true;
    while (n && ok) {
        ins *x = stack[--n];
        for (int k = 0; k < x->nusers && ok; k++) {
            ins *u = x->users[k];
            shape before = u->sh;
            st->recomputed++;
            if (!ins_recompute_shape(u, err)) {
                ok = false;
                break;
            }
            if (!shape_equal(&before, &u->sh)) {
                st->changed++;
                if (n == cap) {
                    cap *= 2;
                    ins **s = realloc(stack, (size_t)cap * sizeof *s);
                    if (!s) {
                        ok = error_set(err, "out of memory");
                        break;
                    }
                    stack = s;
                }
                stack[n++] = u;
            }
        }
    }
    free(stack);
    return ok;
}

static ins *insert_op(ins *pos, const char *name, const attr *attrs, int nattrs, ins *x,
                      graft_error *err)
{
    const op_def *op = op_find(name);
    if (!op) {
        error_set(err, "materialising a pending shape change needs op '%s'", name);
        return NULL;
    }
    return module_insert(pos->mod, pos, op, attrs, nattrs, &x, 1, err);
}

static bool same_but_unit_strides(const shape *a, const shape *b)
{
    if (a->type != b->type || !shape_same_lens(a, b))
        return false;
    for (int k = 0; k < a->rank; k++)
        if (a->lens[k] != 1 && a->strides[k] != b->strides[k])
            return false;
    return true;
}

/* Replaces pending op p by concrete ops: transpose, reshape, then a copy
 * into the target layout. */
static bool materialise(ins *p, shapes_stats *st, graft_error *err)
{
    const shape *target = &p->sh;
    ins *cur = p->args[0];
    const attr_value *perm = pending_attr(p, 2);
    if (perm->n && !is_identity(perm->u.ints, perm->n)) {
        attr a = {"permutation", attr_ints(perm->u.ints, perm->n)};
        if (!(cur = insert_op(p, "transpose", &a, 1, cur, err)))
            return false;
    }
    if (!shape_same_lens(&cur->sh, target)) {
        attr a = {"dims", attr_ints(target->lens, target->rank)};
        if (!(cur = insert_op(p, "reshape", &a, 1, cur, err)))
            return false;
    }
    /* Strides of length-1 axes address nothing: a shape that differs from
     * the target only there needs no copy (users' shapes are recomputed). */
    if (!shape_equal(&cur->sh, target) && !same_but_unit_strides(&cur->sh, target)) {
        if (shape_packed_p(target) && !shape_broadcasted_p(target) &&
            !shape_standard_p(target)) {
            int order[SHAPE_MAX_RANK];
            int64_t p64[SHAPE_MAX_RANK];
            shape_find_permutation(target, order);
            for (int k = 0; k < target->rank; k++)
                p64[k] = order[k];
            attr a = {"permutation", attr_ints(p64, target->rank)};
            if (!(cur = insert_op(p, "layout", &a, 1, cur, err)))
                return false;
        } else if (!shape_standard_p(&cur->sh)) {
            if (!(cur = insert_op(p, "contiguous", NULL, 0, cur, err)))
                return false;
        }
    }
    bool exact = shape_equal(&cur->sh, target);
    ins_replace_all_uses(p, cur);
    module_remove(p);
    st->materialised++;
    return exact || recompute_users(cur, st, err);
}

static bool resolve_module(module *m, shapes_stats *st, graft_error *err)
{
    changes c = {0};
    bool ok = true;
    for (ins *i = m->first, *next; i && ok; i = next) {
        next = i->next;
        ins_prefetch_ahead(i);
        ok = visit(i, &c, st, err);
    }
    free(c.slot);
    free(c.old);
    if (!ok)
        return false;
    for (ins *i = m->last, *prev; i; i = prev) {
        prev = i->prev;
        ins_prefetch_behind(i);
        if (!ins_is_pending(i))
            continue;
        if (i->nusers == 0) {
            module_remove(i);
            st->erased++;
        } else if (!materialise(i, st, err)) {
            return false;
        }
    }
    return true;
}

static bool has_pending(const module *m)
{
    const op_def *p = op_pending();
    for (const ins *i = m->first; i; i = i->next)
        if (i->op == p)
            return true;
    return false;
}

bool shapes_resolve(graph *g, shapes_stats *st, graft_error *err)
{
    shapes_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    /* Nothing is pending, nothing changes: the pass costs one scan. */
    for (module *m = g->first_module; m; m = m->next)
        if (has_pending(m) && !resolve_module(m, st, err))
            return false;
    return true;
}
