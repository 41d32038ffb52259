/* helpers_reshape.h: the common dims of two shapes related by a reshape, and
 * the rule helpers built on them (rules/reshape.rules, "through the common
 * dims").
 *
 * A reshape from lens A to lens B splits and merges axes. The common dims C
 * are the coarsest lens that refine both: every axis of A and every axis of B
 * is the product of a run of consecutive axes of C. GroupNorm's
 * {2, 32, 40960} and {2, 320, 64, 64} have common dims {2, 32, 10, 64, 64}.
 * A pointwise op on either side can run in C instead: its reshaped operands
 * are free views, and a broadcast on either side is still a broadcast in C,
 * which it is not on the other side. That is what lets the pointwise ops on
 * both sides of a reshape meet (MIGraphX does the same with
 * shape_transform_descriptor's common dims in rewrite_reshapes).
 *
 * The helpers are registered in dsl/helpers.c's table; this header also
 * exposes the computation itself for tests/unit/test_common_dims.c.
 */
#ifndef GRAFT_DSL_HELPERS_RESHAPE_H
#define GRAFT_DSL_HELPERS_RESHAPE_H

#include "api.h"
#include "shape.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct common_dims {
    int rank;
    int64_t lens[SHAPE_MAX_RANK];
    /* The axis of A (from_a) and of B (from_b) that each common axis is a
     * part of; -1 for a length-1 axis that only the other side has, between
     * two of this side's axes. */
    int from_a[SHAPE_MAX_RANK];
    int from_b[SHAPE_MAX_RANK];
} common_dims;

/* The common dims of a (na axes) and b (nb axes). Fails when the element
 * counts differ, a length is below 1, the two sides have no common
 * refinement (as {6, 4} and {4, 6}: neither 4 nor 6 divides the other) or it
 * would need more than SHAPE_MAX_RANK axes. Length-1 axes present on both
 * sides at once become one common axis; a length-1 axis on one side only
 * becomes an axis of its own. */
bool common_dims_of(const int64_t *a, int na, const int64_t *b, int nb, common_dims *out);

/* True when c refines lens: common_dims_of(lens, c) is c itself, so every
 * axis of lens is a run of axes of c. */
bool refines(const int64_t *c, int nc, const int64_t *lens, int nlens);

/* True when some element of v is 0: a reshape's dims with a 0 copy a length
 * from the operand, so they name no lens by themselves (rule has_zero). */
bool ints_have_zero(const int64_t *v, int n);

/* A reduction over `axes` of out_lens, reading a reshape from in_lens, is a
 * reduction over axes of in_lens exactly when every group of axes the
 * reshape splits or merges is reduced entirely or not at all (length-1 axes
 * may go either way): those axes of in_lens go to r (*nr of them, at most
 * SHAPE_MAX_RANK). False otherwise: the reduction then cannot move above
 * the reshape (reduce_axes_through, reduce_below_reshape). */
bool reduce_axes_map(const int64_t *in, int nin, const int64_t *o, int nout, const int64_t *axes, int naxes,
                     int64_t *r, int *nr);

/* Marks in[0..rank) with the axes of an axes list of naxes entries over
 * `rank` axes (negative ones count from the end). False on an axis out of
 * range. */
bool mark_axes(const int64_t *axes, int naxes, int rank, bool *in);

/* *out = a copy of v (n ints) in mem, as a rule value; false when mem is
 * exhausted. The result of every ints-valued helper that builds its list on
 * the stack. */
bool ints_result(arena *mem, const int64_t *v, int n, rule_value *out);

/* ---- rule helpers (signatures of dsl/api.h's rule_helper_fn) ---- */

/* common_dims(a, b): ints, ints -> ints. */
bool helper_common_dims(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* view_in_common(m, c): instruction, ints -> ints. m is a multibroadcast or
 * broadcast of k whose lens c refines; the result kc is such that
 * multibroadcast[out_lens=c](reshape[dims=kc](k)) holds the values of
 * m reshaped to c, with reshape[dims=kc](k) a free view (k standard). A k
 * of one element is a view in any lens c of m's element count, kc then 1s
 * of c's rank (reshape_of_multibroadcast's spelling). */
bool helper_view_in_common(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* own_view_in_common(m, c): view_in_common, where a broadcast of one
 * element keeps k's own lens when they fit c's rank ({1} else). */
bool helper_own_view_in_common(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* axes_in_common(lens, axes, c): ints, ints, ints -> ints: the axes of c
 * that the given axes of lens split into (c refines lens). */
bool helper_axes_in_common(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* splits_reduced_axes(in_lens, out_lens, axes): ints, ints, ints -> bool: a
 * reduction over `axes` of the reshaped out_lens covers part, but not all,
 * of some axis of in_lens, so it cannot be written on in_lens and needs the
 * common dims. */
bool helper_splits_reduced_axes(arena *mem, const rule_value *args, int nargs, rule_value *out);

#endif
