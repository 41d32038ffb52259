/* shape.h: element types and shapes, MIGraphX's model.
 *
 * A shape is an element type plus lens and strides counted in elements. The
 * predicates (standard, packed, transposed, broadcasted, scalar) follow
 * MIGraphX's definitions exactly, because rules and kernels key on them and
 * MIGraphX dumps must mean the same thing here. A tuple shape (multi-output
 * regions) holds sub-shapes instead of lens. Shapes are small values: they are
 * copied, not shared; only a tuple's sub-shape array points elsewhere (into
 * the owning graph's arena).
 */
#ifndef GRAFT_SHAPE_H
#define GRAFT_SHAPE_H

#include "graft.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define SHAPE_MAX_RANK 8

typedef struct shape {
    graft_type type;
    int rank;                          /* 0..SHAPE_MAX_RANK; tuples: 0 */
    int64_t lens[SHAPE_MAX_RANK];
    int64_t strides[SHAPE_MAX_RANK];
    int ntuple;                        /* tuples only */
    const struct shape *tuple;         /* tuples only: ntuple sub-shapes */
} shape;

/* ---- element types ---- */
/* "float_type", "half_type", ... as MIGraphX prints them. */
const char *type_name(graft_type t);
/* Accepts "float_type" and also the short "float"; returns false if unknown. */
bool type_from_name(const char *name, size_t len, graft_type *out);
size_t type_size(graft_type t);     /* bytes per element; tuple: 0 */
bool type_is_float(graft_type t);   /* half, bf16, float, double */
bool type_is_integer(graft_type t); /* bool and every int/uint type */
bool type_is_signed(graft_type t);

/* ---- construction ---- */
/* Sets every byte of *s to 0, as memset(s, 0, sizeof *s), through the C
 * library's memset: the size is hidden from the compiler, which would
 * otherwise inline a `rep stos` whose start-up cost was half the time of
 * building a shape (perf, the chain rewrite: shape_standard, op_compute_shape). */
static inline void shape_clear(shape *s)
{
    size_t n = sizeof *s;
    __asm__("" : "+r"(n));
    memset(s, 0, n);
}

/* Standard (row-major) shape from lens. Rank 0 is not used: MIGraphX's
 * scalar is shape_scalar(), lens {1} strides {0}. */
shape shape_standard(graft_type t, int rank, const int64_t *lens);
shape shape_with_strides(graft_type t, int rank, const int64_t *lens, const int64_t *strides);
/* MIGraphX's scalar: lens {1}, strides {0}. */
shape shape_scalar(graft_type t);
/* Same lens and type, standard strides. */
shape shape_as_standard(const shape *s);
/* New lens, keeping the stride order (permutation) of s: NHWC stays NHWC.
 * A different rank, a standard or a broadcast s gives a standard shape. */
shape shape_with_lens(const shape *s, int rank, const int64_t *lens);
/* Strides for lens laid out in the memory order perm (perm[0] slowest). */
shape shape_from_permutation(graft_type t, int rank, const int64_t *lens, const int *perm);
/* The permutation that sorts s's strides descending (stable; ties keep axis
 * order). perm[i] = axis that is i-th slowest. */
void shape_find_permutation(const shape *s, int *perm);
/* Row-major strides for lens into strides. */
void shape_compute_strides(int rank, const int64_t *lens, int64_t *strides);

/* ---- queries ---- */
int64_t shape_elements(const shape *s);      /* product of lens; tuple: 0 */
int64_t shape_element_space(const shape *s); /* sum((len-1)*stride) + 1; 0 if any len is 0 */
size_t shape_bytes(const shape *s);          /* element_space * type_size */
bool shape_standard_p(const shape *s);
bool shape_packed_p(const shape *s);
bool shape_transposed_p(const shape *s);
bool shape_broadcasted_p(const shape *s); /* some stride is 0 */
/* Some axis longer than 1 has stride 0: the value repeats elements (a
 * stride-0 axis of length 1 repeats nothing). */
bool shape_widens_p(const shape *s);
bool shape_scalar_p(const shape *s);
bool shape_skips_p(const shape *s);
bool shape_is_tuple(const shape *s);
/* Same type, lens and strides (tuples compared element-wise). */
bool shape_equal(const shape *a, const shape *b);
bool shape_same_lens(const shape *a, const shape *b);
/* shape_equal but for the strides of length-1 axes, which address nothing. */
bool shape_same_layout(const shape *a, const shape *b);
/* lens `from` (nfrom entries) broadcast to lens `to` by numpy's rule: axes
 * aligned at the end, each of from's lengths 1 or to's. A multibroadcast
 * (ops/ops_view.c) and the rule helpers and checker that reason about one
 * (dsl/) all ask this. */
bool shape_lens_broadcast_to(const int64_t *from, int nfrom, const int64_t *to, int nto);
/* Offset in elements of the multi-index idx (rank entries). */
int64_t shape_index(const shape *s, const int64_t *idx);
/* Offset in elements of the i-th element in row-major (standard) order. */
int64_t shape_index_of_linear(const shape *s, int64_t i);

/* ---- printing ---- */
/* Writes "float_type, {2, 3}, {3, 1}" (tuples: "[s1, s2]"). Returns the length
 * that would have been written, like snprintf. */
int shape_print(const shape *s, char *buf, size_t size);
/* Writes "{2, 3}" for n values. */
int ints_print(const int64_t *v, int n, char *buf, size_t size);

/* Strides with which `lens` (rank entries) reads in's memory as it lies,
 * without a copy, for the axes of lens longer than 1 (length-1 axes are left
 * as they were); false when none exist. Groups of in's axes whose product
 * equals a group of new axes must be contiguous among themselves, and the new
 * axes of the group split the innermost old stride. A reshape that is a view
 * (ops/ops_view.c) and the rule helper that sees a broadcast through one
 * (dsl/helpers_views.c) both ask this. */
bool shape_regroup_strides(const shape *in, int rank, const int64_t *lens, int64_t *strides);

#endif
