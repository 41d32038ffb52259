/* undo_pairs.c: finds nonterminating rules that undo each other.
 *
 * The termination measure (termination.c) accepts a rule marked
 * `nonterminating` without proof; the driver then bounds its fires. Two such
 * rules where each builds what the other matches (neg(transpose(x)) =>
 * transpose(neg(x)) and transpose(neg(x)) => neg(transpose(x))) ping-pong
 * until that bound runs out, and `graft opt` then fails to converge. This
 * file sees the plain case statically, so that `graft rules` can warn before
 * a model is rewritten: both rules unguarded (no `if` or `let`: a guard may
 * be exactly what keeps them apart, as in rules/reshape.rules), and the
 * replacement of each has the op structure the other's pattern matches
 * (same op, or an op of the pattern's class, at every node the pattern
 * names, with as many operands). Attribute values are not compared: a pair
 * that differs only in them is reported, as it may well ping-pong.
 */
#include "compile.h"

#include <string.h>

static const dsl_pattern *capture_pattern(const dsl_rule *r, int k)
{
    return k >= 0 && k < r->ncaptures && r->captures[k].kind == SYM_INS ? r->captures[k].pat
                                                                         : NULL;
}

/* Whether an instruction of op qop (or, when qop is NULL, of some op with
 * any of the qclasses bits) may be matched by pattern node p's head. */
static bool head_may_match(const dsl_pattern *p, const op_def *qop, unsigned qclasses)
{
    if (p->negated)
        return false;
    if (p->kind == PAT_OP)
        return qop ? qop == p->op : p->op && (p->op->classes & qclasses) != 0;
    return qop ? (qop->classes & p->classes) != 0 : (qclasses & p->classes) != 0;
}

static bool pattern_may_match_pattern(const dsl_pattern *p, const dsl_pattern *q);

/* Pattern p against the operand lists of q (a pattern), either order of two
 * operands under p's :c. */
static bool operands_match_pattern(const dsl_pattern *p, const dsl_pattern *q)
{
    if (!p->has_args || p->rest)
        return true;
    if (q->nargs != p->nargs || q->rest)
        return false;
    for (int swap = 0; swap <= (p->commutative && p->nargs == 2); swap++) {
        bool all = true;
        for (int i = 0; i < p->nargs && all; i++)
            all = pattern_may_match_pattern(p->args[swap ? 1 - i : i], q->args[i]);
        if (all)
            return true;
    }
    return false;
}

/* Whether p may match what pattern q matched (q's instance is the same
 * instruction again). A bare operand of q may be anything, but p must see the
 * structure it names, so an op node of p against a bare operand of q is no. */
static bool pattern_may_match_pattern(const dsl_pattern *p, const dsl_pattern *q)
{
    if (p->kind == PAT_CAPTURE || p->kind == PAT_WILDCARD)
        return true;
    if (q->kind == PAT_CAPTURE || q->kind == PAT_WILDCARD || q->negated)
        return false;
    if (!head_may_match(p, q->op, q->classes))
        return false;
    return operands_match_pattern(p, q);
}

static bool pattern_may_match_repl(const dsl_rule *r, const dsl_pattern *p, const dsl_repl *x);

static bool operands_match_repl(const dsl_rule *r, const dsl_pattern *p, const dsl_repl *x)
{
    if (!p->has_args || p->rest)
        return true;
    for (int i = 0; i < x->nargs; i++)
        if (x->args[i]->kind == RP_REST)
            return false;
    if (x->nargs != p->nargs)
        return false;
    for (int swap = 0; swap <= (p->commutative && p->nargs == 2); swap++) {
        bool all = true;
        for (int i = 0; i < p->nargs && all; i++)
            all = pattern_may_match_repl(r, p->args[swap ? 1 - i : i], x->args[i]);
        if (all)
            return true;
    }
    return false;
}

/* Whether pattern p may match what replacement node x of rule r builds. */
static bool pattern_may_match_repl(const dsl_rule *r, const dsl_pattern *p, const dsl_repl *x)
{
    if (p->kind == PAT_CAPTURE || p->kind == PAT_WILDCARD)
        return true;
    switch (x->kind) {
    case RP_CAPTURE: {
        const dsl_pattern *q = capture_pattern(r, x->capture);
        return q && pattern_may_match_pattern(p, q);
    }
    case RP_BUILD:
        return head_may_match(p, x->op, 0) && operands_match_repl(r, p, x);
    case RP_REUSE: {
        const dsl_pattern *q = capture_pattern(r, x->capture);
        if (!head_may_match(p, x->op, x->op ? 0 : (q ? q->classes : x->classes)))
            return false;
        /* c[attr = ...] keeps c's operands as matched */
        if (!x->has_args)
            return q ? operands_match_pattern(p, q) : true;
        return operands_match_repl(r, p, x);
    }
    default: /* regions, folds and rests: not an op-for-op swap */
        return false;
    }
}

static bool unguarded_nonterminating(const dsl_rule *r)
{
    return (r->flags & DSL_RULE_NONTERMINATING) && !r->clauses && !r->fallible;
}

int dsl_find_undo_pairs(const dsl_file *f, dsl_undo_pair *pairs, int max)
{
    int n = 0;
    for (int i = 0; i < f->nrules; i++) {
        const dsl_rule *a = f->rules[i];
        if (!unguarded_nonterminating(a))
            continue;
        for (int j = i + 1; j < f->nrules; j++) {
            const dsl_rule *b = f->rules[j];
            if (!unguarded_nonterminating(b) || !pattern_may_match_repl(a, b->pattern, a->repl) ||
                !pattern_may_match_repl(b, a->pattern, b->repl))
                continue;
            if (n < max)
                pairs[n] = (dsl_undo_pair){a, b};
            n++;
        }
    }
    return n;
}
