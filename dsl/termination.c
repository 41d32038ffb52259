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
 *   4. then fewer commutative ops with a literal first and a non-literal
 *      second operand (canonical operand order: constants last).
 * Each side is measured as a tree: a pattern node counts where it is written,
 * a replacement that returns a capture counts that capture's matched subtree
 * (so `=> x` always decreases the instruction count), a rebuilt op counts as
 * a new one. Operand captures are variables that appear on both sides, so
 * they cancel. Counting the unfolded tree is what makes the order sound on a
 * DAG: a rewrite at a shared node shrinks every user's unfolded tree.
 * The order component is counted conservatively: the pattern side only counts
 * an operand as a non-literal when a pattern says so (!@literal or an op), the
 * replacement side counts anything that might be a literal as one.
 * A rule that ties or grows must be marked `nonterminating`; the driver bounds
 * how often such rules fire.
 */
#include "compile.h"

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

static void count_op(const op_def *op, unsigned classes, int m[DSL_MEASURE_COUNT])
{
    if (op && strcmp(op->name, "pending_shape_change") == 0)
        m[DSL_MEASURE_PENDING]++;
    if (op ? is_view_like(op) : (classes & (OPC_VIEW | OPC_SHAPE)) != 0)
        m[DSL_MEASURE_VIEWS]++;
    m[DSL_MEASURE_INSTRUCTIONS]++;
}

static void measure_pattern(const dsl_pattern *p, int m[DSL_MEASURE_COUNT])
{
    if (p->kind == PAT_CAPTURE || p->kind == PAT_WILDCARD || p->negated)
        return;
    count_op(p->op, p->classes, m);
    if (p->op && p->op->commutative && p->nargs == 2 && is_literal_pattern(p->args[0]) &&
        is_non_literal_pattern(p->args[1]))
        m[DSL_MEASURE_ORDER]++;
    for (int i = 0; i < p->nargs; i++)
        measure_pattern(p->args[i], m);
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

static void measure_repl(const dsl_rule *r, const dsl_repl *x, int m[DSL_MEASURE_COUNT])
{
    switch (x->kind) {
    case RP_CAPTURE: {
        const dsl_pattern *p = capture_pattern(r, x->capture);
        if (p)
            measure_pattern(p, m);
        return;
    }
    case RP_REST:
        return;
    case RP_REGION:
    case RP_GROW:
        /* One region; the growing forms turn two matched instructions
         * (plain ops or regions) into it. */
        m[DSL_MEASURE_INSTRUCTIONS]++;
        return;
    case RP_FOLD:
        /* One new literal: an instruction, never a view. */
        m[DSL_MEASURE_INSTRUCTIONS]++;
        return;
    case RP_BUILD:
    case RP_REUSE:
        break;
    }
    count_op(x->op, x->classes, m);
    if (x->op && x->op->commutative && x->nargs == 2 && maybe_literal(r, x->args[0]) &&
        maybe_non_literal(r, x->args[1]))
        m[DSL_MEASURE_ORDER]++;
    if (x->kind == RP_REUSE && !x->has_args) {
        /* c[attr=...]: keeps c's operands as matched. */
        const dsl_pattern *p = capture_pattern(r, x->capture);
        for (int i = 0; p && i < p->nargs; i++)
            measure_pattern(p->args[i], m);
        return;
    }
    for (int i = 0; i < x->nargs; i++)
        measure_repl(r, x->args[i], m);
}

void dsl_rule_measure(const dsl_rule *r, int lhs[DSL_MEASURE_COUNT], int rhs[DSL_MEASURE_COUNT])
{
    memset(lhs, 0, sizeof(int) * DSL_MEASURE_COUNT);
    memset(rhs, 0, sizeof(int) * DSL_MEASURE_COUNT);
    measure_pattern(r->pattern, lhs);
    measure_repl(r, r->repl, rhs);
}

bool dsl_check_termination(dsl_file *f, graft_error *err)
{
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
        if (!decreases)
            return dsl_error(err, f, r->loc,
                             "rule '%s' does not decrease the termination measure (pending_shape_change "
                             "%d -> %d, pads and views %d -> %d, instructions %d -> %d, misordered "
                             "operands %d -> %d); mark it 'rule %s nonterminating' to let the engine "
                             "bound it",
                             r->name, lhs[0], rhs[0], lhs[1], rhs[1], lhs[2], rhs[2], lhs[3], rhs[3],
                             r->name);
    }
    return true;
}
