/* kernels.h: the reference CPU kernels, one per executable op.
 *
 * Kept apart from the op table so that shape rules and kernels can be read
 * (and grown) independently: the table says what an op is, the kernels say
 * what it computes. kernel_for returns NULL for ops with no kernel (builtins
 * and opaque ops); the executor then refuses the graph with a clear error.
 */
#ifndef GRAFT_KERNELS_H
#define GRAFT_KERNELS_H

#include "op.h"
#include "tensor.h"

kernel_fn kernel_for(const op_def *op);

#endif
