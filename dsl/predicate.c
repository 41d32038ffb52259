/* predicate.c: named guards, checked once and expanded where they are called.
 *
 * A guard that several rules share (a reader test with its waits, say) is
 * written once, as `predicate NAME(p, q) = EXPR`, and called as NAME(a, b)
 * in a rule's guard, let or computed attribute. This phase exists so that no
 * later phase ever sees a predicate: sema replaces each call by a copy of
 * EXPR with the call's arguments in place of the parameters and checks the
 * copy inside the calling rule, so types, termination, overlap, decision
 * trees and emitted code are exactly those of the guard written out.
 *
 * What can be said of a predicate without a caller is checked here, once:
 * its name is no helper's and no other predicate's, its parameters are
 * distinct and each is used, every name in its body is a parameter (or an
 * element type, or inf), every call in it names a helper or a predicate
 * declared above it (so expansion always ends), and some rule calls it (the
 * body's types are checked where it is called, so an uncalled one would be
 * checked nowhere).
 */
#include "compile.h"

#include "helpers.h"
#include "shape.h"

#include <string.h>

static int param_index(const dsl_predicate *p, const char *name)
{
    for (int i = 0; i < p->nparams; i++)
        if (strcmp(p->params[i]->name, name) == 0)
            return i;
    return -1;
}

/* Whether some node of e (e itself, its operands, its arguments) passes
 * test, which is given ctx. */
static bool expr_any(const dsl_expr *e, bool (*test)(const dsl_expr *, const void *), const void *ctx)
{
    if (!e)
        return false;
    if (test(e, ctx) || expr_any(e->a, test, ctx) || expr_any(e->b, test, ctx))
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (expr_any(e->args[i], test, ctx))
            return true;
    return false;
}

/* e reads the name ctx. */
static bool reads_name(const dsl_expr *e, const void *ctx)
{
    return e->kind == EX_NAME && strcmp(e->name, ctx) == 0;
}

/* e calls the predicate ctx. */
static bool calls_predicate(const dsl_expr *e, const void *ctx)
{
    const dsl_predicate *p = ctx;
    return e->kind == EX_CALL && strcmp(e->name, p->name) == 0;
}

static bool element_type_name(const char *name)
{
    graft_type t;
    return type_from_name(name, strlen(name), &t) || strcmp(name, "inf") == 0;
}

/* What body_error is given: the predicate whose body is walked, and
 * where the first error goes. */
typedef struct {
    const dsl_file *f;
    const dsl_predicate *p;
    graft_error *err;
} body_check;

/* e is a name or a call the body may not hold (see the top of the file);
 * the error is set in ctx's err (dsl_error returns false, so
 * `return !dsl_error(...)` records it and says that e is one). */
static bool body_error(const dsl_expr *e, const void *ctx)
{
    const body_check *b = ctx;
    const dsl_predicate *p = b->p;
    if (e->kind == EX_NAME && param_index(p, e->name) < 0 && !element_type_name(e->name))
        return !dsl_error(b->err, b->f, e->loc, "unknown name '%s' in predicate '%s' (not one of its parameters)",
                          e->name, p->name);
    if (e->kind != EX_CALL)
        return false;
    const dsl_predicate *q = dsl_find_predicate(b->f, e->name);
    if (q == p)
        return !dsl_error(b->err, b->f, e->loc, "predicate '%s' calls itself", p->name);
    if (q && q->index > p->index)
        return !dsl_error(b->err, b->f, e->loc,
                          "predicate '%s' calls '%s', declared after it at %d:%d (a predicate "
                          "calls only those above it)",
                          p->name, q->name, q->loc.line, q->loc.col);
    if (!q && !rule_helper_find(e->name))
        return !dsl_error(b->err, b->f, e->loc, "unknown helper or predicate '%s' in predicate '%s'", e->name,
                          p->name);
    return false;
}

static bool repl_calls(const dsl_repl *r, const dsl_predicate *p)
{
    if (!r)
        return false;
    for (const dsl_attr_set *a = r->sets; a; a = a->next)
        if (expr_any(a->expr, calls_predicate, p))
            return true;
    for (int i = 0; i < r->nargs; i++)
        if (repl_calls(r->args[i], p))
            return true;
    return false;
}

/* Whether some rule's expressions, or another predicate's, call p. */
static bool is_called(const dsl_file *f, const dsl_predicate *p)
{
    for (int i = 0; i < f->nrules; i++) {
        for (const dsl_clause *c = f->rules[i]->clauses; c; c = c->next)
            if (expr_any(c->expr, calls_predicate, p))
                return true;
        if (repl_calls(f->rules[i]->repl, p))
            return true;
    }
    for (int i = 0; i < f->npredicates; i++)
        if (i != p->index && expr_any(f->predicates[i]->body, calls_predicate, p))
            return true;
    return false;
}

bool dsl_check_predicate(const dsl_file *f, const dsl_predicate *p, graft_error *err)
{
    const dsl_predicate *first = dsl_find_predicate(f, p->name);
    if (first != p)
        return dsl_error(err, f, p->loc, "duplicate predicate name '%s' (first defined at %s:%d:%d)",
                         p->name, f->path, first->loc.line, first->loc.col);
    if (rule_helper_find(p->name))
        return dsl_error(err, f, p->loc, "predicate '%s' has the name of a helper", p->name);
    for (int i = 0; i < p->nparams; i++) {
        const dsl_expr *q = p->params[i];
        if (param_index(p, q->name) != i)
            return dsl_error(err, f, q->loc, "parameter '%s' of predicate '%s' is given twice", q->name,
                             p->name);
        if (!expr_any(p->body, reads_name, q->name))
            return dsl_error(err, f, q->loc, "parameter '%s' of predicate '%s' is not used", q->name,
                             p->name);
    }
    body_check check = {f, p, err};
    if (expr_any(p->body, body_error, &check))
        return false;
    if (!is_called(f, p))
        return dsl_error(err, f, p->loc, "predicate '%s' is never called", p->name);
    return true;
}

/* A copy of e in f's arena, with each parameter of p replaced by a copy of
 * the matching argument of the call (which is not searched again: the
 * argument's names are the caller's). Sema annotations are not copied: the
 * copy is checked afresh where it is placed. */
static dsl_expr *copy_expr(dsl_file *f, const dsl_expr *e, const dsl_predicate *p, const dsl_expr *call)
{
    if (!e)
        return NULL;
    int k = p && e->kind == EX_NAME ? param_index(p, e->name) : -1;
    if (k >= 0)
        return copy_expr(f, call->args[k], NULL, NULL);
    dsl_expr *c = dsl_alloc(f, sizeof *c);
    c->kind = e->kind;
    c->loc = e->loc;
    c->op = e->op;
    c->i = e->i;
    c->f = e->f;
    c->name = e->name;
    c->a = copy_expr(f, e->a, p, call);
    c->b = copy_expr(f, e->b, p, call);
    c->nargs = e->nargs;
    if (e->nargs) {
        c->args = dsl_alloc(f, sizeof *c->args * (size_t)e->nargs);
        for (int i = 0; i < e->nargs; i++)
            c->args[i] = copy_expr(f, e->args[i], p, call);
    }
    return c;
}

dsl_expr *dsl_expand_predicate(dsl_file *f, const dsl_predicate *p, const dsl_expr *call)
{
    return copy_expr(f, p->body, p, call);
}
