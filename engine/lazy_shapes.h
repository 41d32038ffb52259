/* lazy_shapes.h: pending_shape_change and the one pass that settles it.
 *
 * Seed 001 (MIGraphX issue #3233): a rewrite that changes one value's shape
 * must not set off compute_shape through every user downstream. Instead the
 * rewrite leaves
 *     p = pending_shape_change[lens=L, strides=S, permutation=P](x)
 * whose own shape is the old one (L, S), so x's users see nothing change.
 * Its value is x, transposed by P when P is given, read in row-major order
 * as lens L when L differs from x's lens, presented with strides S. A
 * pending op whose lens and type equal its operand's and whose permutation
 * is empty or the identity only changes the layout: it is "transparent",
 * because every op computes on logical values and may read x directly.
 *
 * Rules (rules/pending.rules) fold pending ops into their users. What is
 * left is settled by shapes_resolve, one pass per module in program order
 * (which is topological):
 *   - an instruction none of whose operands is a transparent pending op or
 *     an instruction whose shape the pass changed is never looked at again;
 *   - any other instruction runs its shape rule once, on its operands' new
 *     shapes (reading through transparent pending ops). When the rule
 *     accepts, it reads them directly; if its own shape changed, the pass
 *     remembers the old one (in a side table, no new instruction) and its
 *     users are looked at in turn; if its shape did not change, propagation
 *     stops there;
 *   - when the rule rejects the new shapes, or the instruction is @return,
 *     an opaque op or a fused region (the program's outputs keep their
 *     shapes), each changed operand is read through a pending op with its old
 *     shape instead;
 *   - at the end, pending ops nobody reads are erased and the rest become
 *     concrete ops: transpose (P), reshape (lens), then contiguous or layout
 *     (strides).
 * So each instruction costs at most one compute_shape call, and only where a
 * shape really changed upstream.
 * Calls to compute_shape are counted in the graph (graph.shape_calls, ir.h).
 */
#ifndef GRAFT_LAZY_SHAPES_H
#define GRAFT_LAZY_SHAPES_H

#include "ir.h"

#include <stdbool.h>
#include <stdint.h>

#define PENDING_OP_NAME "pending_shape_change"

/* The op (registered in the op table by ops/ops_pending.c). */
const op_def *op_pending(void);
bool ins_is_pending(const ins *i);

/* Inserts pending_shape_change(x) before pos presenting x with shape *target
 * (the type must be x's; the element count must match). perm (nperm
 * entries, may be 0) is applied to x first. NULL with err set on failure. */
ins *pending_insert(ins *pos, ins *x, const shape *target, const int64_t *perm, int nperm,
                    graft_error *err);

/* A pending op that only changes the layout (see above). */
bool pending_is_transparent(const ins *p);

typedef struct shapes_stats {
    uint64_t recomputed;   /* instructions whose shape rule ran during the pass */
    uint64_t changed;      /* of those, how many changed shape */
    uint64_t looked_through; /* reads of a pending op replaced by its operand */
    uint64_t erased;       /* pending ops nobody read any more */
    uint64_t materialised; /* pending ops turned into concrete ops */
} shapes_stats;

/* The propagation pass described above, over every module of g. st may be
 * NULL. */
bool shapes_resolve(graph *g, shapes_stats *st, graft_error *err);

/* Counts the live pending_shape_change ops in g. */
size_t shapes_pending_count(const graph *g);

#endif
