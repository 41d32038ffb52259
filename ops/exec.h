/* exec.h: the reference executor.
 *
 * Runs a module instruction by instruction on the CPU with the op table's
 * reference kernels. It is the oracle every rewrite is checked against, so it
 * favours clarity and exactness over speed, except that dot and convolution
 * go through a blocked matrix product (ops/gemm.c) so that real models run
 * in seconds; like every kernel's, its results do not depend on the CPU.
 * Buffers are freed as soon as their last user has run.
 */
#ifndef GRAFT_EXEC_H
#define GRAFT_EXEC_H

#include "ir.h"
#include "tensor.h"

#include <stdint.h>

/* A tensor with a name: a parameter's value, or an output. */
typedef struct named_tensor {
    const char *name; /* malloc'd, owned */
    tensor t;         /* t.data malloc'd, owned; standard layout for outputs */
} named_tensor;

typedef struct tensor_list {
    int n;
    named_tensor *items;
} tensor_list;

void tensor_list_free(tensor_list *l);
/* Adds a copy of t (converted to a standard layout) under name. */
bool tensor_list_add(tensor_list *l, const char *name, const tensor *t, graft_error *err);
const named_tensor *tensor_list_find(const tensor_list *l, const char *name);

/* A buffer for a value of shape sh (tensor_tuple_bytes for a tuple; at least
 * one byte), zeroed when zero is true. NULL when it cannot be had, with err
 * naming the value (`what`: "input 'x'", "output 'output0'", ...), its type
 * and lens and the bytes it needed. A size beyond the machine's memory and
 * swap is refused without trying: under overcommit such a request can
 * succeed and the process be killed once it touches the pages. */
void *exec_alloc(const shape *sh, bool zero, const char *what, graft_error *err);

/* Seeded random values for every @param of module m: floats uniform in
 * [-1, 1), integers in [0, 4), bools 0/1. Same seed, same values. */
bool exec_random_inputs(const module *m, uint64_t seed, tensor_list *out, graft_error *err);

/* Runs module m with inputs (matched to @params by name; each must have the
 * param's lens and type; any layout). Outputs are the @return operands (or
 * the last instruction if there is no @return), named "output0", "output1",
 * ... in standard layout. Fails with a clear message on an opaque or
 * non-executable op, naming it. */
bool exec_run(const module *m, const tensor_list *inputs, tensor_list *outputs, graft_error *err);

/* Runs instruction i's op once with its reference kernel on `inputs` (one
 * tensor per operand of i, any layout). out->sh becomes i's shape. A view op
 * aliases inputs[0] (out->data points into it); any other op gets a fresh
 * zeroed buffer of i's shape's size in out->data, which the caller frees.
 * A fused region (op `fused`) runs its submodule, its value laid out as
 * ops/tensor.h's tuples when it has several outputs. False, with nothing to
 * free, when i's op has no kernel (builtins, opaque ops), has submodules and
 * is not `fused`, or its kernel fails. Shared by exec_run and
 * constant folding (dsl/const_fold.c). */
bool exec_eval_op(const ins *i, const tensor *inputs, tensor *out, graft_error *err);

#endif
