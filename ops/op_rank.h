/* op_rank.h: the canonical order of ops, for the rule compiler's termination
 * measure.
 *
 * A rule that replaces one op by another without changing the number of
 * instructions (mul(x, k) => add(x, x), one op in a region of one) still
 * terminates when every such replacement goes down one fixed order. This is
 * that order, generated from the op table (ops/op.c) so that a new op gets a
 * rank without anyone writing one: ops are ranked by cost class first
 * (regions and builtins, views, pointwise, data movement, reductions,
 * compute, the rest) and, within a class, by their code (op_def.code: the
 * op-family order of the tables, which lists cheap arithmetic first).
 * docs/rules.md shows the table (`graft rules --ranks` prints it; a test
 * keeps the two equal).
 */
#ifndef GRAFT_OP_RANK_H
#define GRAFT_OP_RANK_H

#include "op.h"

typedef enum op_cost_class {
    OP_COST_FREE,      /* builtins (@param, @literal, @return) and regions (fused) */
    OP_COST_VIEW,      /* views and shape ops: no data moved */
    OP_COST_POINTWISE, /* one element out per element in */
    OP_COST_MOVE,      /* data movement: pad, concat, gather, copies, ... */
    OP_COST_REDUCE,    /* reductions */
    OP_COST_COMPUTE,   /* convolution, dot, pooling, ...: kernels of their own */
    OP_COST_OTHER,     /* everything else (pending_shape_change, opaque ops) */
    OP_COST_COUNT
} op_cost_class;

op_cost_class op_cost_class_of(const op_def *op);
/* "free", "view", "pointwise", "move", "reduce", "compute", "other". */
const char *op_cost_class_name(op_cost_class c);
/* The op's rank: 1 for the first op of the order, up to the number of ops;
 * an opaque op ranks last (one more than the number of ops). */
int op_rank(const op_def *op);
/* The lowest and highest rank among the known ops that have any of the
 * `classes` bits (a pattern's <class>); false when none has. */
bool op_rank_range(unsigned classes, int *lo, int *hi);
/* The ops in rank order (index k holds the op of rank k + 1). */
const op_def *const *op_ranked(int *count);
/* The order as a markdown table, one row per cost class (what docs/rules.md
 * shows and `graft rules --ranks` prints); malloc'd, NULL without memory. */
char *op_rank_table_markdown(void);

#endif
