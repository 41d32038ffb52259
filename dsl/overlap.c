/* overlap.c: rejects duplicate rules and rules that can never fire.
 *
 * Rules are tried in file order and the first that matches wins. A rule whose
 * pattern matches everything an earlier, unguarded rule's pattern matches can
 * therefore never fire: a silent dead rule, which in MIGraphX and Halide
 * survived for years. This phase proves subsumption structurally (same op or
 * a narrower class, every attribute the earlier rule requires also required,
 * operand patterns subsumed pairwise, either operand order under :c) and
 * reports the later rule with the earlier one's location. Guarded rules and
 * rules with fallible helpers never shadow anything: their guard may fail.
 */
#include "compile.h"

#include <string.h>

static int capture_uses(const dsl_pattern *p, const char *name)
{
    int n = 0;
    if (p->kind == PAT_CAPTURE && strcmp(p->name, name) == 0)
        n++;
    if (p->bind && strcmp(p->bind, name) == 0)
        n++;
    for (const dsl_attr_pat *a = p->attrs; a; a = a->next)
        if (a->bind && strcmp(a->bind, name) == 0)
            n++;
    for (int i = 0; i < p->nargs; i++)
        n += capture_uses(p->args[i], name);
    return n;
}

/* A capture that appears twice in a pattern is an equality test. */
static bool constrains(const dsl_pattern *root, const char *name)
{
    return name && capture_uses(root, name) > 1;
}

static bool subsumes(const dsl_pattern *proot, const dsl_pattern *p, const dsl_pattern *q);

static bool operands_subsume(const dsl_pattern *proot, const dsl_pattern *p, const dsl_pattern *q,
                             bool swap_p, bool swap_q)
{
    for (int i = 0; i < p->nargs; i++) {
        int pi = swap_p && i < 2 ? 1 - i : i;
        int qi = swap_q && i < 2 ? 1 - i : i;
        if (!subsumes(proot, p->args[pi], q->args[qi]))
            return false;
    }
    return true;
}

static bool subsumes(const dsl_pattern *proot, const dsl_pattern *p, const dsl_pattern *q)
{
    if (p->once && !q->once)
        return false;
    if (p->kind == PAT_CAPTURE || p->kind == PAT_WILDCARD)
        return !constrains(proot, p->kind == PAT_CAPTURE ? p->name : NULL) && !constrains(proot, p->bind);
    if (q->kind == PAT_CAPTURE || q->kind == PAT_WILDCARD)
        return false;
    if (constrains(proot, p->bind))
        return false;
    if (p->negated) {
        if (q->negated)
            return p->kind == q->kind && p->op == q->op && p->classes == q->classes;
        if (p->kind == PAT_OP)
            return q->kind == PAT_OP && q->op != p->op;
        return q->kind == PAT_OP ? (q->op->classes & p->classes) == 0 : (q->classes & p->classes) == 0;
    }
    if (q->negated)
        return false;
    if (p->kind == PAT_OP) {
        if (q->kind != PAT_OP || q->op != p->op)
            return false;
    } else if (q->kind == PAT_OP) {
        if ((q->op->classes & p->classes) == 0)
            return false;
    } else if ((q->classes & ~p->classes) != 0) {
        return false;
    }
    for (const dsl_attr_pat *a = p->attrs; a; a = a->next) {
        if (a->bind) {
            if (constrains(proot, a->bind))
                return false;
            continue;
        }
        const dsl_attr_pat *b = q->attrs;
        while (b && !(strcmp(b->key, a->key) == 0 && !b->bind && attr_value_equal(a->lit, b->lit)))
            b = b->next;
        if (!b)
            return false;
    }
    if (!p->has_args)
        return !p->rest;
    if (!q->has_args)
        return false;
    if (p->rest ? q->nargs < p->nargs : (q->nargs != p->nargs || q->rest))
        return false;
    if (p->rest && constrains(proot, p->rest))
        return false;
    if (!q->commutative) {
        return operands_subsume(proot, p, q, false, false) ||
               (p->commutative && operands_subsume(proot, p, q, true, false));
    }
    /* q matches both operand orders: p must cover each. */
    for (int qs = 0; qs < 2; qs++) {
        bool covered = operands_subsume(proot, p, q, false, qs) ||
                       (p->commutative && operands_subsume(proot, p, q, true, qs));
        if (!covered)
            return false;
    }
    return true;
}

static bool roots_may_overlap(const dsl_pattern *a, const dsl_pattern *b)
{
    if (a->kind == PAT_OP && b->kind == PAT_OP)
        return a->op == b->op;
    return true;
}

bool dsl_check_overlap(dsl_file *f, dsl_diags *diags, graft_error *err)
{
    int nerrors = 0;
    for (int j = 0; j < f->nrules; j++) {
        const dsl_rule *later = f->rules[j];
        for (int i = 0; i < j; i++) {
            const dsl_rule *earlier = f->rules[i];
            if (earlier->fallible || !roots_may_overlap(earlier->pattern, later->pattern))
                continue;
            if (!subsumes(earlier->pattern, earlier->pattern, later->pattern))
                continue;
            bool same = !later->fallible && subsumes(later->pattern, later->pattern, earlier->pattern);
            graft_error e = {0};
            if (same)
                dsl_error(&e, f, later->loc, "rule '%s' duplicates rule '%s' (%s:%d:%d)",
                          later->name, earlier->name, f->path, earlier->loc.line, earlier->loc.col);
            else
                dsl_error(&e, f, later->loc,
                          "rule '%s' can never fire: rule '%s' (%s:%d:%d) comes first, matches "
                          "everything it matches and has no guard",
                          later->name, earlier->name, f->path, earlier->loc.line, earlier->loc.col);
            if (!dsl_diags_note(diags, &e, err, &nerrors))
                return false;
            break; /* one error per rule: the first rule it loses to */
        }
    }
    return nerrors == 0;
}
