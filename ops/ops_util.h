/* ops_util.h: helpers shared by the shape rules and the reference kernels.
 *
 * Shape rules and kernels must agree on how an attribute is read: a negative
 * axis counts from the back, a slice start past the end is clamped, an empty
 * `axes` list on a reduction means every axis. Those readings live here, once,
 * so that the kernel of an op never disagrees with its shape rule. The layout
 * rules (which strides a pointwise result gets) live here too, because fused
 * regions and the codegen need the same answer as the ops themselves.
 *
 * The table of each op family (ops_*.c) is declared at the bottom; op.c
 * gathers them into the one table op_find() searches.
 */
#ifndef GRAFT_OPS_UTIL_H
#define GRAFT_OPS_UTIL_H

#include "op.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- attribute defaults, for the op tables ---- */
#define OPS_DFLT_INT(v) {.kind = ATTR_INT, .u.i = (v)}
#define OPS_DFLT_BOOL(v) {.kind = ATTR_BOOL, .u.i = (v)}
#define OPS_DFLT_FLOAT(v) {.kind = ATTR_FLOAT, .u.f = (v)}
#define OPS_DFLT_TYPE(t) {.kind = ATTR_TYPE, .u.i = (t)}
#define OPS_DFLT_INTS(arr) {.kind = ATTR_INTS, .n = (int)(sizeof(arr) / sizeof((arr)[0])), .u.ints = (arr)}
#define OPS_DFLT_NO_INTS {.kind = ATTR_INTS, .n = 0, .u.ints = NULL}

/* ---- text for error messages ---- */
/* Writes "{2, 3}" into buf and returns buf. */
const char *ops_ints_text(const int64_t *v, int n, char *buf, size_t size);
/* The lens of s as "{2, 3}" (tuples: "tuple"). */
const char *ops_lens_text(const shape *s, char *buf, size_t size);

/* ---- axes ---- */
/* Maps axis (negative counts from the back) into [0, rank). On failure writes
 * "<op>: <what> <axis> is out of range for rank <rank>". */
bool ops_normalize_axis(const op_call *call, const char *what, int64_t axis, int rank, int *out,
                        graft_error *err);
/* Normalizes a list of axes against rank, rejecting duplicates. An empty list
 * stays empty (*nout = 0). out holds SHAPE_MAX_RANK entries. */
bool ops_normalize_axes(const op_call *call, const char *what, const int64_t *axes, int n, int rank,
                        int *out, int *nout, graft_error *err);
/* The reduced axes of a reduce_* call on an input of this rank, as a mask:
 * reduced[a] is true for each reduced axis. An empty `axes` reduces every
 * axis. */
bool ops_reduce_axes(const op_call *call, int rank, bool *reduced, graft_error *err);

/* A slice call on input `in`, per axis: the first element kept and the number
 * kept (axes not sliced: start 0, count = len). Starts and ends are read as
 * ONNX and MIGraphX do: negative counts from the back, then clamped to
 * [0, len]; an end before its start keeps nothing. The kernel's data offset is
 * sum(start[a] * in.strides[a]). */
bool ops_slice_bounds(const op_call *call, const shape *in, int64_t *starts, int64_t *counts,
                      graft_error *err);

/* The operand a submodule's parameter named "x<k>" binds to: k, or -1 for
 * any other name (x01 is not x1). fused, if and loop bind their bodies'
 * parameters this way (ops_region.c). */
int ops_param_operand(const char *name);

/* A permutation of rank axes: every value in [0, rank) exactly once. */
bool ops_is_permutation(const int64_t *perm, int n, int rank);
/* perm is {0, 1, ..., n-1}: a transpose by it does nothing. */
bool ops_is_identity_permutation(const int64_t *perm, int n);

/* ---- layout of pointwise results (MIGraphX's rules) ---- */
/* One operand: a scalar keeps its shape, a broadcast operand gives a standard
 * result, anything else keeps its stride order with packed strides. */
shape ops_unary_layout(const shape *s);
/* Two operands of equal lens: the layout MIGraphX's binary ops give. */
shape ops_binary_layout(const shape *a, const shape *b);
/* Any number of operands of equal lens: standard when every non-broadcast
 * operand is standard, else the most common stride order among the
 * non-broadcast operands (ties: the lexicographically smallest). Type and
 * lens come from inputs[0]. */
shape ops_common_layout(const shape *inputs, int n);
/* The most common stride order among non-broadcast shapes (identity if none). */
void ops_common_permutation(const shape *inputs, int n, int *perm);

/* ---- lens arithmetic ---- */
/* Product of n lens into *out; false on overflow or a negative length. */
bool ops_lens_product(const int64_t *lens, int n, int64_t *out);
/* A result's lens must not overflow when laid out (at most 2^62 elements);
 * writes "<op>: the result {..} has too many elements". */
bool ops_check_result_lens(const op_call *call, const int64_t *lens, int rank, graft_error *err);
/* An operand the rules can do arithmetic on: lens and strides non-negative,
 * its element count and element space within 2^62. */
bool ops_check_operand(const op_call *call, int k, graft_error *err);

/* ---- checks shared by many rules; each writes "<op>: ..." ---- */
/* Every input has the lens of inputs[first]. */
bool ops_check_same_lens(const op_call *call, int first, int count, graft_error *err);
/* Every input has the type of inputs[first]. */
bool ops_check_same_type(const op_call *call, int first, int count, graft_error *err);
bool ops_check_rank_at_least(const op_call *call, int input, int rank, graft_error *err);

/* ---- the op family tables, gathered by op.c ---- */
extern op_def ops_builtin_table[];
extern const int ops_builtin_count;
extern op_def ops_pointwise_table[];
extern const int ops_pointwise_count;
extern op_def ops_reduce_table[];
extern const int ops_reduce_count;
extern op_def ops_view_table[];
extern const int ops_view_count;
extern op_def ops_compute_table[];
extern const int ops_compute_count;
extern op_def ops_move_table[];
extern const int ops_move_count;
extern op_def ops_pending_table[]; /* pending_shape_change (engine/lazy_shapes.h) */
extern const int ops_pending_count;
extern op_def ops_region_table[]; /* fused (ops_region.c) */
extern const int ops_region_count;
extern op_def ops_index_table[]; /* gather/scatter family (ops_index.c) */
extern const int ops_index_count;
extern op_def ops_resize_table[]; /* resize (ops_resize.c) */
extern const int ops_resize_count;
extern op_def ops_deconv_table[]; /* convolution_backwards (ops_deconv.c) */
extern const int ops_deconv_count;
extern op_def ops_order_table[]; /* prefix_scan_sum, topk_indices (ops_order.c) */
extern const int ops_order_count;
extern op_def ops_vision_table[]; /* grid_sample, roialign, nonmaxsuppression */
extern const int ops_vision_count;
extern op_def ops_linalg_table[]; /* det (ops_linalg.c) */
extern const int ops_linalg_count;
extern op_def ops_signal_table[]; /* dft (ops_signal.c) */
extern const int ops_signal_count;
extern op_def ops_data_dependent_table[]; /* unique, nonzero (ops_data_dependent.c) */
extern const int ops_data_dependent_count;
extern op_def ops_control_table[]; /* if, loop (ops_control.c) */
extern const int ops_control_count;

#endif
