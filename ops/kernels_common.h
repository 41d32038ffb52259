/* kernels_common.h: what the reference kernel files share.
 *
 * The kernels are split by family (pointwise, reductions, dot and
 * convolution, windows, data movement), each in its own kernels_*.c; this
 * header declares every kernel so that kernels.c can map op names to them,
 * plus the few helpers more than one family needs. Internal to ops/.
 */
#ifndef GRAFT_KERNELS_COMMON_H
#define GRAFT_KERNELS_COMMON_H

#include "kernels.h"
#include "ops_util.h"
#include "tensor_walk.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- helpers (kernels.c) ---- */
/* "<op>: out of memory for working copies of N elements (type lens: at
 * least B bytes)", N and the shape those of the largest operand; returns
 * false. */
bool kernel_out_of_memory(const op_call *call, graft_error *err);
/* The name of an enum attribute's value ("spatial"), whatever form it was
 * kept in; NULL if the value has no name. Kernels compare names, so the
 * numbering of an enum lives only in the op table. */
const char *kernel_attr_enum_name(const op_call *call, const char *name);
/* True if op declares the attribute. */
bool kernel_has_attr(const op_call *call, const char *name);
/* Offsets (lens/strides walked in row-major order) of every element of a
 * sub-space: malloc'd, *count elements. NULL on allocation failure. */
int64_t *kernel_offsets(int rank, const int64_t *lens, const int64_t *strides, int64_t *count);
/* Row-major strides of s's lens (standard strides, whatever s's layout). */
void kernel_dense_strides(const shape *s, int64_t *strides);
/* A float32 view of t in row-major order: t's own data when t is a standard
 * float tensor, else a dense copy stored in *owned (freed by the caller).
 * NULL on allocation failure. */
const float *kernel_f32_input(const tensor *t, float **owned);

/* ---- pointwise (kernels_pointwise.c) ---- */
bool kernel_pointwise(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_convert(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_where(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_clip(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
/* True if kernel_pointwise knows the op's function. */
bool kernel_pointwise_known(const char *name);

/* ---- reductions and normalisations (kernels_reduce.c) ---- */
bool kernel_reduce(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_softmax(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_arg_reduce(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_batch_norm(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_lrn(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);

/* ---- dot and convolution (kernels_gemm.c) ---- */
bool kernel_dot(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_convolution(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);

/* ---- pooling (kernels_pool.c) ---- */
bool kernel_pooling(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_max_pooling_indices(const op_call *call, const tensor *inputs, tensor *out,
                                graft_error *err);

/* ---- data movement (kernels_move.c) ---- */
bool kernel_view(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_slice(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_copy(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_concat(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_pad(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_gather(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_get_tuple_elem(const op_call *call, const tensor *inputs, tensor *out,
                           graft_error *err);

/* ---- gather/scatter family (kernels_index.c) ---- */
bool kernel_gather_elements(const op_call *call, const tensor *inputs, tensor *out,
                            graft_error *err);
bool kernel_gathernd(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_scatter(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_scatternd(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);

/* ---- resize (kernels_resize.c) ---- */
bool kernel_resize(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);

/* ---- transposed convolution (kernels_deconv.c) ---- */
bool kernel_convolution_backwards(const op_call *call, const tensor *inputs, tensor *out,
                                  graft_error *err);

/* ---- along one axis in order (kernels_order.c) ---- */
bool kernel_prefix_scan_sum(const op_call *call, const tensor *inputs, tensor *out,
                            graft_error *err);
bool kernel_topk_indices(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);

/* ---- sampling and detection (kernels_vision.c) ---- */
bool kernel_grid_sample(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_roialign(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_nonmaxsuppression(const op_call *call, const tensor *inputs, tensor *out,
                              graft_error *err);

/* ---- linear algebra (kernels_linalg.c) ---- */
bool kernel_det(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);

/* ---- signal processing (kernels_signal.c) ---- */
bool kernel_dft(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);

/* ---- results whose length depends on the values (kernels_data_dependent.c) ---- */
bool kernel_unique(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_nonzero(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);

/* ---- control flow (kernels_control.c): run their submodules ---- */
bool kernel_if(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);
bool kernel_loop(const op_call *call, const tensor *inputs, tensor *out, graft_error *err);

#endif
