/* kernel_counts.h: how many device kernels a graph lowers to, and how many
 * of them only fill or copy memory (the `kernels`, `fills` and `copies` of
 * `graft opt --stats`).
 *
 * Counted from the op table's classes (ir/op.h), never from op names, on
 * the main module: a fused region or an opaque op is one kernel; a compute,
 * pointwise, reduce, move or fill op is one kernel of its own; a reshape-like
 * op (OPC_SHAPE) is a copying kernel only when its operand is not standard
 * (it must then copy); views, parameters, literals, the return, ops with
 * no class (pending_shape_change, which shape resolution removes) and
 * concats placed in place (ops/concat_in_place.h: their operands' kernels
 * write them) are none.
 *
 * pointwise_flops counts the element operations of pointwise ops and
 * reductions (an output element each, an input element each), region
 * bodies included: fusion that recomputes a producer shows as growth here
 * (`recomputed_flops` of --stats is how much it grew).
 *
 * bytes_moved and bytes_lower_bound (ops/kernel_traffic.c, which says
 * exactly what they count; docs/architecture.md has the same in prose) are
 * the memory traffic of those kernels and the least traffic any partition of
 * the graph into kernels needs: their ratio is how far fusion is from the
 * best it could do.
 *
 * These are the counts for a graph codegen cannot lower yet: `graft opt
 * --stats` takes kernels, fills, copies and bytes_moved from the launch
 * plan when the graph lowers (codegen/plan_counts.c), and falls back to
 * these otherwise, saying so.
 */
#ifndef GRAFT_KERNEL_COUNTS_H
#define GRAFT_KERNEL_COUNTS_H

#include "ir.h"

typedef struct kernel_counts {
    int kernels; /* device launches, as above */
    int fills;   /* standalone OPC_FILL kernels among them (pad) */
    int copies;  /* standalone OPC_COPY kernels (concat, contiguous, layout) and
                    copying reshapes among them */
    int64_t pointwise_flops; /* element operations of pointwise ops and reductions */
    int64_t bytes_moved;       /* bytes the kernels read and write */
    int64_t bytes_lower_bound; /* the least any kernel partition moves; -1: out of memory */
} kernel_counts;

void graph_kernel_counts(const graph *g, kernel_counts *out);

/* True when i, an instruction of the main module, is a device kernel of its
 * own by the rules above. */
bool instruction_is_kernel(const ins *i);

/* The two byte counts of kernel_counts (the bound -1 when memory ran out). */
void graph_kernel_traffic(const graph *g, int64_t *bytes_moved, int64_t *bytes_lower_bound);

#endif
