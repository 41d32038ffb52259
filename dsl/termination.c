/* termination.c: the check that every rule decreases the engine's measure.
 *
 * A worklist driver applying rules to fixpoint terminates when every rewrite
 * makes the graph smaller in a well-founded order. Like Halide's
 * valid_reduction_order, the order is lexicographic and written down here so
 * anyone can audit it; it is adapted to graphs:
 *   1. fewer pending_shape_change ops;
 *   2. then fewer unabsorbed pads and view/shape ops (transpose, reshape,
 *      broadcast, ... : everything the folding sets exist to remove);
 *   3. then fewer instructions;
 *   4. then a smaller sum of op ranks (ops/op_rank.h: the canonical order of
 *      ops, by cost class and then op-family order), so that replacing an op
 *      by a lower-ranked one (mul by add, an op by a region of one) decreases
 *      it. A class node (<unary>) has an unknown op: the same node on both
 *      sides cancels; otherwise the pattern side counts the class's lowest
 *      rank and the replacement side its highest;
 *   5. then fewer commutative ops with a literal first and a non-literal
 *      second operand (canonical operand order: constants last).
 * Each side is measured as a tree: a pattern node counts where it is written,
 * a replacement that returns a capture counts that capture's matched subtree
 * (so `=> x` always decreases the instruction count), a rebuilt op counts as
 * a new one. Operand captures are variables that appear on both sides, so
 * they cancel. Counting the unfolded tree is what makes the order sound on a
 * DAG: a rewrite at a shared node shrinks every user's unfolded tree.
 * The rank and order components are bounds: the pattern side's is never more,
 * the replacement side's never less than in any match, so equal bounds mean
 * "no increase" and the next component can decide. The order component is
 * counted conservatively: the pattern side only counts
 * an operand as a non-literal when a pattern says so (!@literal or an op), the
 * replacement side counts anything that might be a literal as one.
 * A rule that ties or grows must be marked `nonterminating`; the driver bounds
 * how often such rules fire.
 */
#include "compile.h"
#include "op_rank.h"

#include <stdio.h>
#include <string.h>

static bool is_view_like(const op_def *op)
{
    return (op->classes & (OPC_VIEW | OPC_SHAPE)) != 0 || strcmp(op->name, "pad") == 0;
}

static bool is_literal_pattern(const dsl_pattern *p)
{
    return p->kind == PAT_OP && !p->negated && strcmp(p->op->name, "@literal") == 0;
}

static bool is_non_literal_pattern(const dsl_pattern *p)
{
    if (p->kind == PAT_OP && p->negated)
        return strcmp(p->op->name, "@literal") == 0;
    if (p->kind == PAT_OP)
        return strcmp(p->op->name, "@literal") != 0;
    return p->kind == PAT_CLASS && !p->negated;
}

/* One side's measure: the counts, and the ranks as a known sum plus the
 * class nodes whose op is unknown (each pattern node with its count), which
 * dsl_rule_measure cancels between the sides before bounding them. */
enum { MAX_CLASS_NODES = 64 };
typedef struct side {
    int m[DSL_MEASURE_COUNT];
    const dsl_pattern *class_node[MAX_CLASS_NODES];
    int class_count[MAX_CLASS_NODES];
    int nclass;
    bool overflow; /* more class nodes than room: the rank component is not proved */
} side;

static void count_class_node(side *s, const dsl_pattern *node)
{
    for (int k = 0; k < s->nclass; k++)
        if (s->class_node[k] == node) {
            s->class_count[k]++;
            return;
        }
    if (s->nclass == MAX_CLASS_NODES) {
        s->overflow = true;
        return;
    }
    s->class_node[s->nclass] = node;
    s->class_count[s->nclass++] = 1;
}

/* node: the pattern node of a class whose op is not known (NULL for a known
 * op). */
static void count_op(const op_def *op, unsigned classes, const dsl_pattern *node, side *s)
{
    int *m = s->m;
    if (op && strcmp(op->name, "pending_shape_change") == 0)
        m[DSL_MEASURE_PENDING]++;
    if (op ? is_view_like(op) : (classes & (OPC_VIEW | OPC_SHAPE)) != 0)
        m[DSL_MEASURE_VIEWS]++;
    m[DSL_MEASURE_INSTRUCTIONS]++;
    if (op)
        m[DSL_MEASURE_RANK] += op_rank(op);
    else if (node)
        count_class_node(s, node);
    else
        s->overflow = true; /* no op and no node to cancel against */
}

static void measure_pattern(const dsl_pattern *p, side *s)
{
    if (p->kind == PAT_CAPTURE || p->kind == PAT_WILDCARD || p->negated)
        return;
    int *m = s->m;
    count_op(p->op, p->classes, p->op ? NULL : p, s);
    if (p->op && p->op->commutative && p->nargs == 2 && is_literal_pattern(p->args[0]) &&
        is_non_literal_pattern(p->args[1]))
        m[DSL_MEASURE_ORDER]++;
    for (int i = 0; i < p->nargs; i++)
        measure_pattern(p->args[i], s);
}

static const dsl_pattern *capture_pattern(const dsl_rule *r, int k)
{
    return r->captures[k].kind == SYM_INS ? r->captures[k].pat : NULL;
}

static bool maybe_literal(const dsl_rule *r, const dsl_repl *a)
{
    if (a->kind == RP_FOLD)
        return true;
    if (a->kind != RP_CAPTURE)
        return false;
    const dsl_pattern *p = capture_pattern(r, a->capture);
    return !p || !is_non_literal_pattern(p);
}

static bool maybe_non_literal(const dsl_rule *r, const dsl_repl *a)
{
    if (a->kind == RP_FOLD)
        return false;
    if (a->kind != RP_CAPTURE)
        return true;
    const dsl_pattern *p = capture_pattern(r, a->capture);
    return !p || !is_literal_pattern(p);
}

static void measure_repl(const dsl_rule *r, const dsl_repl *x, side *s)
{
    int *m = s->m;
    switch (x->kind) {
    case RP_CAPTURE: {
        const dsl_pattern *p = capture_pattern(r, x->capture);
        if (p)
            measure_pattern(p, s);
        return;
    }
    case RP_REST:
        return;
    case RP_REGION:
    case RP_GROW:
        /* One region; the growing forms turn two matched instructions
         * (plain ops or regions) into it. split_tail_into leaves two
         * regions (the reductions, the reader with the tail): no fewer
         * than it matched, so such a rule is `nonterminating`. */
        m[DSL_MEASURE_INSTRUCTIONS] += x->grow == GROW_SPLIT ? 2 : 1;
        m[DSL_MEASURE_RANK] += (x->grow == GROW_SPLIT ? 2 : 1) * op_rank(op_find("fused"));
        return;
    case RP_FOLD:
        /* One new literal: an instruction, never a view. */
        m[DSL_MEASURE_INSTRUCTIONS]++;
        m[DSL_MEASURE_RANK] += op_rank(op_find("@literal"));
        return;
    case RP_BUILD:
    case RP_REUSE:
        break;
    }
    /* A rebuilt class capture (c(...) of c = <unary>(...)) runs the matched
     * op: the same unknown op as the capture's pattern node. */
    const dsl_pattern *node = NULL;
    if (!x->op && x->kind == RP_REUSE)
        node = capture_pattern(r, x->capture);
    count_op(x->op, x->classes, node, s);
    if (x->op && x->op->commutative && x->nargs == 2 && maybe_literal(r, x->args[0]) &&
        maybe_non_literal(r, x->args[1]))
        m[DSL_MEASURE_ORDER]++;
    if (x->kind == RP_REUSE && !x->has_args) {
        /* c[attr=...]: keeps c's operands as matched. */
        const dsl_pattern *p = capture_pattern(r, x->capture);
        for (int i = 0; p && i < p->nargs; i++)
            measure_pattern(p->args[i], s);
        return;
    }
    for (int i = 0; i < x->nargs; i++)
        measure_repl(r, x->args[i], s);
}

/* The count of node on side s, 0 when absent. */
static int class_count_of(const side *s, const dsl_pattern *node)
{
    for (int k = 0; k < s->nclass; k++)
        if (s->class_node[k] == node)
            return s->class_count[k];
    return 0;
}

/* Bounds the rank sums: class nodes on both sides cancel; what is left
 * counts the class's lowest rank on the pattern side (lhs) and its highest
 * on the replacement side (rhs), so that rhs < lhs proves a decrease. */
static void bound_ranks(side *l, side *r)
{
    if (l->overflow || r->overflow) {
        l->m[DSL_MEASURE_RANK] = 0; /* not bounded: counts as an increase */
        r->m[DSL_MEASURE_RANK] = 1;
        return;
    }
    int lhs_extra = 0, rhs_extra = 0;
    for (int k = 0; k < l->nclass; k++) {
        int left = l->class_count[k] - class_count_of(r, l->class_node[k]);
        int lo, hi;
        if (left > 0 && op_rank_range(l->class_node[k]->classes, &lo, &hi))
            lhs_extra += left * lo;
    }
    for (int k = 0; k < r->nclass; k++) {
        int left = r->class_count[k] - class_count_of(l, r->class_node[k]);
        int lo, hi;
        if (left > 0) {
            if (!op_rank_range(r->class_node[k]->classes, &lo, &hi))
                hi = op_rank(NULL);
            rhs_extra += left * hi;
        }
    }
    l->m[DSL_MEASURE_RANK] += lhs_extra;
    r->m[DSL_MEASURE_RANK] += rhs_extra;
}

void dsl_rule_measure(const dsl_rule *r, int lhs[DSL_MEASURE_COUNT], int rhs[DSL_MEASURE_COUNT])
{
    side l, rs;
    memset(&l, 0, sizeof l);
    memset(&rs, 0, sizeof rs);
    measure_pattern(r->pattern, &l);
    measure_repl(r, r->repl, &rs);
    bound_ranks(&l, &rs);
    memcpy(lhs, l.m, sizeof l.m);
    memcpy(rhs, rs.m, sizeof rs.m);
}

bool dsl_check_termination(dsl_file *f, dsl_diags *diags, graft_error *err)
{
    int nerrors = 0;
    for (int i = 0; i < f->nrules; i++) {
        const dsl_rule *r = f->rules[i];
        if (r->flags & DSL_RULE_NONTERMINATING)
            continue;
        int lhs[DSL_MEASURE_COUNT], rhs[DSL_MEASURE_COUNT];
        dsl_rule_measure(r, lhs, rhs);
        bool decreases = false;
        for (int k = 0; k < DSL_MEASURE_COUNT; k++) {
            if (rhs[k] != lhs[k]) {
                decreases = rhs[k] < lhs[k];
                break;
            }
        }
        if (decreases)
            continue;
        graft_error e = {0};
        dsl_error(&e, f, r->loc,
                             "rule '%s' does not decrease the termination measure (pending_shape_change "
                             "%d -> %d, pads and views %d -> %d, instructions %d -> %d, op ranks %d -> %d, misordered "
                             "operands %d -> %d); mark it 'rule %s nonterminating' to let the engine bound it",
                             r->name, lhs[DSL_MEASURE_PENDING], rhs[DSL_MEASURE_PENDING],
                             lhs[DSL_MEASURE_VIEWS], rhs[DSL_MEASURE_VIEWS],
                             lhs[DSL_MEASURE_INSTRUCTIONS], rhs[DSL_MEASURE_INSTRUCTIONS],
                             lhs[DSL_MEASURE_RANK], rhs[DSL_MEASURE_RANK],
                             lhs[DSL_MEASURE_ORDER], rhs[DSL_MEASURE_ORDER], r->name);
        if (!dsl_diags_note(diags, &e, err, &nerrors))
            return false;
    }
    return nerrors == 0;
}
