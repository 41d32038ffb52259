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
} kernel_counts;

void graph_kernel_counts(const graph *g, kernel_counts *out);

#endif
