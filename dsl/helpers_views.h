/* helpers_views.h: the rule helpers of the view normal form (the headers of
 * the rule files and docs/rules.md, "The view normal form").
 *
 * Views move through pointwise ops and reductions in one canonical direction
 * each, so that the visiting order cannot change the final graph. For a
 * transpose the direction depends on what is above it: absorbs_transpose(x)
 * says whether a transpose of x can move into x and disappear there (into
 * the output_permutation of a dot, into another transpose, into a literal),
 * through single-use pointwise ops and reductions. Such a transpose rises;
 * every other transpose sinks toward its users, where transposes merge at
 * binary ops and cancel.
 *
 * The helpers are registered in dsl/helpers.c's table; the functions are
 * exposed here for tests/unit/test_rule_helpers.c.
 */
#ifndef GRAFT_DSL_HELPERS_VIEWS_H
#define GRAFT_DSL_HELPERS_VIEWS_H

#include "api.h"
#include "ir.h"

#include <stdbool.h>

/* How far absorbs_transpose looks up a chain of single-use ops. Deeper
 * chains answer "does not absorb" (the transpose then sinks). */
enum { ABSORBS_TRANSPOSE_MAX_DEPTH = 64 };

/* The largest literal a transpose folds into (fold_constant_view's bound). */
enum { ABSORBS_TRANSPOSE_MAX_LITERAL = 4096 };

/* True when transpose[p] (n entries) of x can move into x and disappear:
 * x is a transpose whose permutation composed with p does nothing (or, x
 * read by nothing else, whose operand absorbs the composition), a constant
 * (constant folding takes it; see view_is_constant), or x has exactly one
 * reader and is a dot (its output_permutation takes it), a one-operand
 * pointwise op or a reduction of a value that absorbs it, or a two-operand
 * pointwise op both of whose operands absorb it. */
bool view_absorbs_transpose(const ins *x, const int64_t *p, int n);

/* What is_constant looks at: constants deeper than this, or with more
 * elements than constant folding takes (fold.rules folds values of at most
 * 4096 elements), count as not constant. */
enum { VIEW_CONSTANT_MAX_DEPTH = 32, VIEW_CONSTANT_MAX_ELEMENTS = 4096 };

/* True when x is a literal, or an op constant folding evaluates (pointwise,
 * view, shape, reduce, move, compute) of at most 4096 elements whose
 * operands are all constant, or a pending_shape_change of such a value
 * (the shape pass resolves it): fold.rules turns it into one literal, in any
 * visiting order. The rules that move views leave such values to folding,
 * so that whether folding came first cannot change the result. */
bool view_is_constant(const ins *x);

/* ---- rule helpers (signatures of dsl/api.h's rule_helper_fn) ---- */

/* absorbs_transpose(x, p): instruction, ints -> bool. */
bool helper_absorbs_transpose(arena *mem, const rule_value *args, int nargs, rule_value *out);
bool helper_absorbs_transpose_beside(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* axes_of(p, a): ints, ints -> ints: {p[a0], p[a1], ...} sorted ascending.
 * For reduce[axes=a](transpose[p](x)) = transpose[p](reduce[axes=axes_of(p,
 * a)](x)), and with invert(p) the other way. Fails on an index outside p. */
bool helper_axes_of(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* is_constant(x): instruction -> bool (view_is_constant). */
bool helper_is_constant(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* broadcast_axes(k, lens, axis): instruction, ints, int -> ints. k is a
 * value of rank R holding lens `lens` broadcast into it: at `axis` (as
 * broadcast[axis] places them) or, with axis -1, aligned to the last axes (as
 * multibroadcast does). The result is the axes of k that hold broadcast
 * copies: those where lens (so placed) has no axis or a length-1 axis and k
 * is longer. Fails unless k holds the same value along each of them (stride
 * 0 there, or, for a literal, the same elements at every index of the axis:
 * constant folding gives an op of a broadcast literal a full literal of
 * repeated values), or when there are none. reduce_max over them, then a
 * reshape to lens, gives back the value that was broadcast; for a literal
 * that constant folding made from a broadcast, that folds to the small
 * literal. */
bool helper_broadcast_axes(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* splits_axes(c, lens): ints, ints -> bool: c refines lens (every axis of
 * lens is a run of axes of c) and splits some axis of lens into several
 * axes longer than 1. Inserting or removing length-1 axes is not a split:
 * the common-dims rules of rules/reshape.rules move ops only for real
 * splits, so that a chain of reshapes that only adds and removes 1s cannot
 * pull an op into more axes before the chain composes away. */
bool helper_splits_axes(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* unit_axes_only(a, b): ints, ints -> bool: a and b are the same lens but
 * for length-1 axes (a reshape between them only inserts and removes 1s). */
bool helper_unit_axes_only(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* feeds_output(x): instruction -> bool: x is read by the @return, an opaque
 * op or a fused region, which keep the shapes they read (lazy shapes settle a
 * change of layout there with a contiguous copy). */
bool helper_feeds_output(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* computes_one_element(x): instruction -> bool: x has one element, or is a
 * view or pointwise op of such values (one_element_source): a broadcast of
 * one element however many views and merges later, so it has one element
 * once the broadcasts under it sink and merge. */
bool helper_computes_one_element(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* has_no_lens_of_its_own(x): instruction -> bool: x has more than one
 * element, one reader, and computes one element (computes_one_element):
 * its reshape becomes a broadcast of that element in any lens once its
 * broadcast sinks, so a binary op reading it through the reshape runs in
 * the other operand's lens. */
bool helper_has_no_lens_of_its_own(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* literal_merges(k, m): instruction, instruction -> bool: k is a literal
 * of m's lens that holds m's operand broadcast as m does, along at least
 * one axis (by its strides or its values), so the literal merge
 * (binary_above_*broadcast_literal_*) takes k beside m. */
bool helper_literal_merges(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* rises_above_reader(r): instruction -> bool: r's one reader is a
 * one-operand pointwise op read once that unary_above_reshape moves above
 * r in every order (every guard of that rule holds). */
bool helper_rises_above_reader(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* reader_cluster_unsettled(r): instruction -> bool: a reader of r is a
 * cluster op whose cluster is still to change by a rewrite that fires in
 * every order: its sink (its root, or the end of the reshape chain below
 * it) is read by a broadcast[axis] that puts its operand's axes last
 * (aligned_broadcast_to_multibroadcast makes it a multibroadcast, which
 * loosens the sink: the labelling counts every lens equal to the sink's
 * but for leading 1s as the sink's), or by a broadcast beside another
 * broadcast under a two-operand op, of values of which one broadcasts to
 * the other (the broadcast merges take that op into the cluster); or a
 * leaf of it becomes a broadcast (its broadcast sinks below it, or its
 * operands' broadcasts merge below it), after which its reader leaves the
 * cluster. The cluster's lens (readers_in_cluster_lens) may differ before
 * and after. */
bool helper_reader_cluster_unsettled(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* unit_reshape_lens(z, dl, w, axes) and unit_reshape_axes(z, dl, w, axes):
 * ints x4 -> ints. For reshape[w](reduce[axes](reshape[z](y))), where the
 * reduction's lens dl (z with the reduced axes 1) and w differ only in 1s:
 * the lens z2 and reduced axes a2 with reduce[a2](reshape[z2](y)) the same
 * value, of lens w. Fail when the outer reshape removes a reduced axis or
 * does more than insert and remove 1s. */
bool helper_unit_reshape_lens(arena *mem, const rule_value *args, int nargs, rule_value *out);
bool helper_unit_reshape_axes(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* unit_reshape_absorbs(z, dl, w, axes): ints x4 -> bool: unit_reshape_lens
 * would succeed, i.e. the reshape from dl to w keeps every reduced axis and
 * so can move above the reduction (reshape_of_reduce_of_reshape). */
bool helper_unit_reshape_absorbs(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* lens_without_unit_axes(z, axes) and axes_without_unit_axes(z, axes):
 * ints x2 -> ints. A reduction over axes of lens z run without the
 * length-1 axes of z it does not reduce: the lens it reads and its reduced
 * axes renumbered. Fail when z has no such axis. This is the one lens a
 * reduction between two reshapes that cannot move (the outer one removes a
 * reduced axis) runs in, whichever unit axes the reshapes held when they
 * met it (reduce_without_unit_axes). */
bool helper_lens_without_unit_axes(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* has_unit_axes(z, axes): ints, ints -> bool: z has a length-1 axis that a
 * reduction over axes does not reduce (lens_without_unit_axes(z, axes)
 * succeeds). */
bool helper_has_unit_axes(arena *mem, const rule_value *args, int nargs, rule_value *out);
bool helper_axes_without_unit_axes(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* long_axes(lens, axes): ints, ints -> ints: the axes whose length in lens
 * is not 1, in their order (a reduction over a length-1 axis changes
 * nothing along it: reduce_of_unit_axes). */
bool helper_long_axes(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* pointwise_read_past(q): instruction -> bool: q is read once by a
 * one-operand pointwise op (or a two-operand one reading it twice) whose
 * one reader is no shape op: reduce_without_unit_axes_below_unary takes a
 * reduction read there, and pointwise_reshape_taken does not hold it. */
bool helper_pointwise_read_past(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* pointwise_reshape_taken(d): instruction -> bool: the reduction d (of a
 * reshape) is read by a one-operand pointwise op (or a two-operand one
 * reading it twice, sub(d, d)) read by a chain of shape
 * ops that ends in lens that only insert and remove 1s and keep the reduced
 * axes (the chain composes into one such reshape):
 * reshape_of_unary_of_reduce_of_reshape takes that reshape into the
 * reduction, as reshape_of_reduce_of_reshape does without the op, and
 * reduce_without_unit_axes_below_unary leaves it alone. */
bool helper_pointwise_reshape_taken(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* reshaped_to(b): instruction -> ints: the lens b's value ends in after the
 * first run of shape ops (reshape, squeeze, ...) it reaches through a chain
 * of single-reader one-operand pointwise ops, or two-operand ones whose
 * other operand is constant (a reshape moves through all of these); the
 * run counts as a whole, since it composes into one reshape. Fails when
 * there is no such run or it ends in b's own lens. */
bool helper_reshaped_to(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* waits_for_read_back(r): instruction -> bool: r is a reshape of a
 * broadcast m whose value reaches, as reshaped_to(r) walks it (through
 * single-reader one-operand pointwise ops and two-operand ones beside a
 * constant), a run of shape ops that ends in m's lens, and m is a
 * broadcast[axis], or a multibroadcast whose kc (broadcast_view_lens(m,
 * r.lens)) is not k's lens but for leading 1s: the ops between move into
 * m's lens (the clusters, unary_above_reshape) and r composes away with
 * the run, where made a broadcast first r would keep a view no rule takes
 * back. Also where r only adds 1s to m's lens and each of r's readers, a
 * one-operand op of r or a two-operand op of r and of a reshape of a value
 * of m's lens, is reshaped back to m's lens (readers_read_back; the reshape
 * back composes with r: reshape_of_unary_of_read_back, binary_above_reshapes;
 * round s81A). becomes_broadcast asks the same. */
bool helper_waits_for_read_back(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* multibroadcast_below(b, rank): instruction, int -> bool: b's value
 * reaches, through single-reader one-operand pointwise ops and b(v, v)
 * (and, as b's first reader, w(v, s) of a reshape s that is b's own
 * operand, read by b and w alone), a multibroadcast of at least that
 * rank, which drops a reshape that only adds or removes leading 1s; a
 * two-operand reader of it beside another broadcast only where no merge
 * can take the two (round s64C: the multibroadcast has other readers,
 * and the operands' lens differ and are more than one element). */
bool helper_multibroadcast_below(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* reshaped_back_outside(b, lens): instruction, ints -> bool: the run of
 * shape ops reshaped_to(b) finds ends in lens, and no pointwise op (no
 * cluster) reads its end, or only pointwise ops that run in their
 * cluster's lens already: a reshape moved down to it composes there, and
 * no cluster labels b's value as a leaf in the lens it has now while its
 * ops are still to move. A settled cluster reading the run's end runs
 * there in lens, so its labelling chose lens with b's value a leaf in
 * other lens; once b runs in lens that leaf only gets cheaper in the
 * labelling the cluster has, which stays (seed 1013098: sigmoid(reshape(
 * sub(mb[{32}](s), reshape[{32}](p2)))) of a {1} s, sigmoid in p2's lens,
 * kept sub in {32} in the orders that made the broadcast a multibroadcast
 * before sub's two reshapes merged; the core ran sub in p2's lens).
 * Not where the run is one shape op read by a reduction that
 * reduce_below_reshape moves it below (reduction_takes_run). Also true
 * where the run ends in lens that differ from lens by length-1 axes only
 * and from b's own (a unit-padded run: the reshape moved down composes
 * with the run's end into one reshape, so b's reshape is saved), where
 * only ops that are no view or reduction read its end (a dot, an output,
 * or a pointwise op whose cluster runs it in its own lens already, as
 * above; round s62A: seed 7016276's sub(reshape[{1, 1, 2}](p), mb(k))
 * reshaped to {2, 1, 1} for a settled sub stayed in {1, 1, 2} in the
 * orders that labelled the reader's cluster last), b's reshaped operand
 * x is no reduction and runs in its
 * own cluster's lens, and b's broadcast operand has x's rank, so that it
 * is spelled in x's lens without a reshape (padded_run_settled; seed
 * 1060101: sub(reshape[{1, 1, 4}](neg(p1)), mb(k)) plus a literal,
 * reshaped to {1, 1, 4, 1} for a dot, stayed in {1, 1, 4} in the noisy
 * graph, where the core ran it in p1's {4}); b's broadcast operand may be
 * shape ops of one element over such a value (they go with the move).
 * Also true with no run, where b itself has lens equal to lens but for
 * 1s and is read only by pointwise ops that run in their cluster's lens
 * already, and the broadcast operand is such shape ops of one element
 * (the move drops them, so it saves a view; round s62A): the state the
 * padded run reaches once the reader's cluster has taken b and b's
 * broadcast has sunk (seeds 1014078, 16013971). */
bool helper_reshaped_back_outside(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* reshaped_back_for_keepers(b, x): instructions -> bool: the run of shape
 * ops reshaped_to(b) finds is read only by ops that keep a broadcast as
 * it is (dots, outputs and other builtins) or by pointwise ops whose
 * cluster runs in their own lens already, with no operand a stretching
 * broadcast (through one-operand and shape ops) and no reduction reading
 * them through a run of shape ops (round s63A); where such a pointwise op
 * reads it, x is no two-operand op of a constant and a shape op that
 * changes lens; and x, the operand b's reshape reads, is no one-operand op
 * (or chain of them) of a stretching broadcast. For
 * binary_above_unit_reshape_beside_multibroadcast_*, with
 * reshaped_back_outside: b then runs in x's lens in every order, where a
 * pointwise or reducing reader of the run's end, or x's own broadcast,
 * still moves the lens by order (round s44D: seeds 1004610, 1061216, a
 * pointwise reader that was a cluster op only until its operand's
 * broadcast sank; 1037053, a reduction that took the reshape in the
 * orders that met it first; 1045474, x = abs(relu(mb(p))), whose reshape
 * rose into the broadcast first in program order; round s63A: 8000809, a
 * settled reader whose cluster chose its lens anew once a reduction took
 * the squeeze below it; 5004366, x = max(mb(constant), reshape(p)), which
 * folds into p's lens in the orders that fold first). */
bool helper_reshaped_back_for_keepers(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* strictly_standard(x): instruction -> bool: x's shape is exactly the one a
 * reshape to its lens has, strides of length-1 axes included (is_standard
 * ignores those). A rule that replaces x by such a reshape then leaves every
 * reader's shape as it was. */
bool helper_strictly_standard(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* settled(x): instruction -> bool: no reshape can still come out of x: x
 * is not a shape op (which composes with a reshape of it), a one-operand
 * pointwise op of a shape op (which moves above it) or a two-operand one of
 * two shape ops (which merge). The common-dims rules wait for such values,
 * so that whether a reshape chain simplified first cannot change where the
 * ops end up. */
bool helper_settled(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* moves_unit_axes_only(p, lens): ints, ints -> bool: transpose[p] of a
 * value of lens `lens` keeps the order of every axis longer than 1. */
bool helper_moves_unit_axes_only(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* moves_beside(b, p): instruction, ints -> bool: transpose[p] of b moves
 * only length-1 axes and b, a two-operand op read once, reads its inverse
 * (a single-reader transpose moving only length-1 axes, of a value of the
 * lens transpose[p] gives) beside an operand x that does not absorb it (not a
 * constant, not a one-operand op whose broadcast sinks below it; a broadcast
 * only where no transpose above b moves beside it with t as its inverse,
 * round s52C): the transpose moves to x, t(b(x, t'(y))) => b(t(x), y), one
 * view for two. */
bool helper_moves_beside(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* moves_beside_below(top, b, p): instruction, instruction, ints -> bool:
 * moves_beside(b, p), or the same for a transpose that moves longer axes
 * too, where the op's operand is its exact inverse and top (the value the
 * transpose sits on or would, whose layout the move changes) is read only
 * by dots and by two-operand ops whose other operand is standard (then x
 * is no broadcast). */
bool helper_moves_beside_below(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* layout_settles(top): instruction -> bool: every reader of top is a dot or
 * a two-operand op whose other operand is standard (through
 * pending_shape_change readers), so top's layout reaches nothing: the test
 * moves_beside_below asks of its top, for the rules that move a transpose
 * beside a permuted dot (transpose_beside_permuted_dot_first, _second). */
bool helper_layout_settles(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* moves_beside_now(top, b, p): instruction, instruction, ints -> bool:
 * moves_beside_below(top, b, p), and where the transpose moves only
 * length-1 axes, top is not the inverse that a transpose above it moves
 * beside (for any operand, not only a broadcast) and top's one reader is
 * not a transpose it composes with (round s53F). The beside rules
 * (transpose_beside_binary_first, _second) ask it; the rules that take an
 * operand the transpose moves beside as one that absorbs it ask
 * moves_beside_below. */
bool helper_moves_beside_now(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* has_transpose(x, p): instruction, ints -> bool: x is already read by a
 * transpose with permutation p (so a transpose of x by p costs nothing: the
 * rewrite reuses it). */
bool helper_has_transpose(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* same_layout(a, b): instruction, instruction -> bool: a and b have the
 * same type, lens and strides on every axis longer than 1 (a length-1
 * axis is only indexed at 0: its stride addresses nothing, and the
 * canonical form does not show it). */
bool helper_same_layout(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* transposed_at_output(u, p): instruction, ints -> bool: u = u(t(x)), t a
 * transpose of p, reaches the @return through one-operand pointwise ops
 * and then layout-only pending shape changes (or contiguous ops) that ask
 * for the strides of t of a standard
 * value: t(u(x)), with u(x) standard, is what the output takes without a
 * copy. */
bool helper_transposed_at_output(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* has_other_transpose(x, t): instruction, instruction -> bool: x is read by
 * a transpose of t's permutation other than t (a view of x that stays where
 * t moves: transpose_above_binary_of_one_value_shared reuses it, and
 * binary_above_transpose_twice does not merge t back beside it). */
bool helper_has_other_transpose(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* unary_read_back(x, p): instruction, ints -> bool: x is read by a
 * one-operand pointwise op read only by a transpose with permutation p
 * (has_transpose one op further down: t[p](u(x)) is u(x') for x' the
 * transpose of x by p, which a shared permuted dot gives for free). */
bool helper_unary_read_back(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* chain_read_back(x, p): instruction, ints -> bool: following x's single
 * readers while they are one-operand pointwise ops, the value reached is
 * read more than once and one of its readers is transpose[p] (for x read
 * more than once: uses(x) > 1 && has_transpose(x, p)), or one of its
 * readers starts a chain of one-operand ops each read once that ends in
 * transpose[p] (round s53C). A permuted dot under such a chain is wanted in
 * both layouts (round s39A, seed 1094974). */
bool helper_chain_read_back(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* transposed_sibling(x, u, p): instruction, instruction, ints -> bool: x
 * has a one-operand pointwise reader other than u, read only by one
 * transpose with permutation p: t(u(x)) and t(v(x)) share one transpose
 * above u and v (transpose_above_unary_shared). Not where the two
 * transposed values rejoin below (converges, as rejoins_below and
 * rejoins_shared ask), a sibling whose transpose its readers cancel
 * counting as rejoined. u's side is t(u(x)) or u(t(x)), whichever the
 * graph holds; the answer is the same for both, so
 * transpose_above_unary_shared and unary_above_transpose, which asks for
 * !transposed_sibling, are exact complements on it. */
bool helper_transposed_sibling(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* canonical_unit_permutation(p, lens): ints, ints -> ints: among the
 * permutations that give transpose[p] of lens `lens` the same lens and
 * the same order of axes longer than 1, the one that keeps the length-1
 * axes in increasing order. */
bool helper_canonical_unit_permutation(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* ---- pointwise clusters (rules/reshape.rules, "Reshapes around pointwise
 * clusters") ----
 * The cluster of a one- or two-operand pointwise op: the ops connected to
 * it through values with one reader, directly or through reshapes, or read
 * (through reshapes) only by ops of one cluster, whose cost each of those
 * readers pays a share of, as of a shared leaf; its
 * leaves are the values it reads from outside (reshapes whose readers are
 * all pointwise ops are looked through), its sink the lens its value is
 * reshaped to below it. Every op of a cluster runs in one lens, the
 * lens a minimum-cost labelling of the cluster's tree assigns it: each op
 * gets one of the leaves' or the sink's lens, and each edge whose ends
 * differ costs a reshape (a leaf of other lens than its reader, the root of
 * other lens than the sink; a leaf's reshape to one lens is one reshape
 * however many edges read it, and costs nothing where a reader outside the
 * cluster keeps it); ties go to a leaf's lens, the smallest first,
 * and an op prefers its reader's. It depends only on the leaves and
 * the sink, so it does not change as the rules move ops and reshapes inside
 * the cluster. A cluster that reads a broadcast (GroupNorm's per-group and
 * per-channel values), or has more than VIEW_CLUSTER_MAX ops or leaves, has
 * none: the common-dims rules handle it. */
enum { VIEW_CLUSTER_MAX = 32 };
bool view_cluster_lens(const ins *v, int64_t *lens, int *n);
/* unit_shape_chain_base(k, n): k of one element, or the value k0 below a
 * chain of shape ops of one element over k, where k0 has rank n and its
 * lens are its own in every order (no reduction, no cluster op still to
 * move); NULL otherwise. A broadcast of k spelled in 1s of rank n is then
 * a broadcast of k0: the chain and the reshape to those 1s compose away
 * (reshape_of_reshape, reshape_to_same_shape). */
const ins *unit_shape_chain_base(const ins *k, int n);
/* cluster_lens(v): instruction -> ints; fails when v's cluster has none. */
bool helper_cluster_lens(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* in_reshape_cluster(v): instruction -> bool: v is a pointwise op whose
 * cluster has lens (it reads no broadcast), or whose cluster reads a
 * pending op and is not known until that goes. */
bool helper_in_reshape_cluster(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* broadcast_sinks_below(u): instruction -> bool: u is a one-operand
 * pointwise op of a broadcast read once that stretches a computed value,
 * and u's readers take the broadcast's layout (takes_broadcast_layout):
 * unary_above_*broadcast sinks the broadcast below u, and to u's readers u
 * is a broadcast already (reads_broadcast asks the same). */
bool helper_broadcast_sinks_below(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* reshape_to_one_broadcast(r): instruction -> bool: r is a reshape of a
 * broadcast[axis] m of k (or of a layout-only pending op read once of one,
 * which view_through_pending and reshape_of_pending take away in every
 * order), and r's lens are m's but for length-1 axes added or dropped
 * outside k's axes: reshape[r.lens](m) is one broadcast[axis](k)
 * (broadcast_axis_reshaped). Not where m puts k's axes last:
 * aligned_broadcast_to_multibroadcast makes that one a multibroadcast,
 * and reshape_of_broadcast_to_broadcast does not take it. */
bool helper_reshape_to_one_broadcast(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* read_twice_only(v): instruction -> bool: v has readers, and each is a
 * two-operand op b(v, v) with no modifiers. */
bool helper_read_twice_only(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* reshapes_merge_at_reader(r): instruction -> bool: r is a reshape read
 * only by a binary op whose other operand is a reshape, read once, of a
 * value (neither a shape op nor constant), outside a reshape cluster:
 * binary_above_reshapes merges the two where the values have one lens,
 * binary_above_reshapes_into_first or _into_second where they do not. A
 * squeeze or unsqueeze of a standard value counts as that reshape, and so
 * does a chain of them or of reshapes, each read once (the fold rules make
 * it one reshape), and a broadcast or multibroadcast that stretches nothing
 * of a standard value, to other lens, that nothing below composes with
 * (*broadcast_to_reshape makes it a reshape), and a one-operand pointwise
 * op of a reshape of value v whose cluster runs in v's lens while the op
 * does not (unary_into_cluster_lens makes it a reshape of the op on v,
 * round s54B2, seed 1000222). Views to their operand's own
 * shape over a shape op (drops_to_shape) are looked through, on either
 * side, and so are transposes that cancel on the other side (an identity,
 * or a pair composing to the identity). It also says yes while the other
 * operand's value is itself a two-operand op that binary_above_reshapes*
 * moves above its reshapes (its lens are not settled; round s30D, seed
 * 1008067). */
bool helper_reshapes_merge_at_reader(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* broadcast_view_lens(m, lens): instruction, ints -> ints: m is a
 * (multi)broadcast of k; when m's memory can be seen with lens `lens`
 * without a copy (the reshape is a view of the broadcast), the lens kc with
 * multibroadcast[lens](reshape[kc](k)) that view: lens with each stride-0
 * axis 1. Fails when no view exists or the result broadcasts nothing. */
bool helper_broadcast_view_lens(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* broadcast_view_computed(m, lens): instruction, ints -> bool: the reshape
 * of broadcast m to lens is a view of it (broadcast_view_lens succeeds), and
 * a pointwise op of that view is standard (not a one-element value with
 * every stride 0, whose layout a pointwise op keeps). */
bool helper_broadcast_view_computed(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* broadcast_past_pending(x): instruction -> bool: x is a broadcast, or a
 * layout-only pending shape change read once (not over another pending
 * op) of a broadcast, which view_through_pending takes away; or a
 * two-operand cluster op whose multibroadcasts merge below it
 * (multibroadcasts_merge, merges_with_constant_broadcast), which the
 * merge makes a broadcast. */
bool helper_broadcast_past_pending(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* standard_between_pending(x, r): instruction, instruction -> bool: r (a
 * view of x) is standard only for a while: r's one reader is a layout-only
 * pending op, and x is one read once (not over another) of a value that is
 * not standard, or a two-operand op whose multibroadcasts merge
 * (multibroadcasts_merge, merges_with_constant_broadcast). */
bool helper_standard_between_pending(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* is_plain_transpose(x): instruction -> bool: x is a transpose (of one
 * operand). A transpose read by a transpose composes with it in every
 * order (transpose_of_transpose has no guard): the beside rules wait while
 * the inverse they move beside reads one (round s82D). */
bool helper_is_plain_transpose(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* transpose_read_once(x): instruction -> bool: x is a transpose with one
 * reader (a transpose moved onto x composes with it). */
bool helper_transpose_read_once(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* transposes_settle_below(u): instruction -> bool: u's value flows through
 * single readers that are transposes and one-operand pointwise ops, at
 * least one transpose, which compose to no identity, to an end whose
 * strides reach no output: a transpose sinking below u stays there. */
bool helper_transposes_settle_below(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* takes_broadcast_layout(u): instruction -> bool: every reader of u is a
 * one-operand pointwise op, a reduction (of u, not of a reshape), a broadcast that stretches (one that does not
 * counts by its own readers, or as the reshape it becomes where
 * *broadcast_to_reshape will make it one; one whose strides reach an
 * output only if u's layout stays), or a two-operand op whose other operand is standard and
 * cannot still become a broadcast (a broadcast sinking into it, or two
 * merging; u itself counts as one), or can and whose own readers take the
 * layout the merge then gives it (asked the same way), or b(u, u) (of u's
 * layout) whose readers take it so, or whose value flows
 * only into dots, through one-operand ops and two-operand ops that merge
 * with it (a dot reads any strides), or, where u is a one-operand op of a
 * broadcast of one element, a reshape that reshape_of_multibroadcast makes
 * a broadcast once the broadcast has sunk (its readers take the layout,
 * none drops it, each is a multibroadcast that stretches it and stays its
 * reader), or, where u is a one-operand op of a multibroadcast of one
 * element read only by a shape op, that shape op read only by a dot
 * (multibroadcast_shape_into_dot_unit_* make it a broadcast once the
 * broadcast has sunk): their results have the same
 * layout whether u's value is standard or broadcast, so a broadcast may move
 * below u without changing any layout downstream (an output keeps its
 * layout; a copy would follow). Asking what the other operand may become,
 * not what it is, gives the same answer in every visiting order. */
bool helper_takes_broadcast_layout(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* shape_chain_composes(u): instruction -> bool: a reader of u begins a
 * chain of shape ops, each read once and becoming a reshape, that ends in
 * u's own lens through lens other than u's with length-1 axes added or
 * dropped, possibly through b(w, w) ops whose clusters run them in u's
 * lens: the clusters move those ops and the chain composes away with no
 * guard (reshape_of_reshape, reshape_to_same_shape), and
 * takes_broadcast_layout(u) already asks its end's readers; a broadcast
 * sunk below u first would be reshaped through those lens (a copy, and
 * pending ops that merge by order: round s81C, seed 1091356). */
bool helper_shape_chain_composes(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* shared_broadcast_splits(m, b): instruction, instruction -> bool:
 * multibroadcast m, read by two-operand op b whose broadcasts merge, has
 * other readers, and each of them takes m away on its own (a one-operand
 * op whose readers take the broadcast's layout, another two-operand op
 * whose broadcasts merge, a two-operand op of m and a literal holding
 * m's value's broadcast that reads m once b has its copy, or a
 * multibroadcast that stretches m and composes with it): a copy of m for
 * b costs no view. */
bool helper_shared_broadcast_splits(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* shared_broadcast_rejoins(m, b): instruction, instruction -> bool:
 * multibroadcast m, read by pointwise op b (b(m, m), b(m, u(m)), b(m, n)),
 * has other readers, and each is a two-operand op reading m beside b's
 * value (directly, through one-operand ops read once, or through pointwise
 * ops of b's lens that read b's value alone and are read by each other
 * alone, computed_from_alone, round s53A): a diamond over m that closes
 * below b, so a copy of m below b merges there with m. */
bool helper_shared_broadcast_rejoins(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* unary_chain_rejoins(m, u): instruction, instruction -> bool:
 * multibroadcast m is read by one-operand op u and by one two-operand op
 * r, whose other operand is reached from u through one or more further
 * one-operand ops read once, each taking a broadcast's layout, or
 * two-operand ops read once beside a multibroadcast read once of a value
 * of m's operand's lens, which merge with the copy once it reaches them
 * (round s40B), and r takes a broadcast's layout and merges its two
 * broadcasts: a diamond b(m, v(..u(m))) that closes once u's copy of m
 * has sunk to r. */
bool helper_unary_chain_rejoins(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* broadcast_cone_closes(m): instruction -> bool: multibroadcast m has
 * several readers, each a one-operand pointwise op of m's lens, and the
 * pointwise ops of m's lens that read only m and such ops (the cone over
 * m) are read outside the cone at one op alone: the whole cone computes
 * on m's one operand's values, and a copy of m that sinks below each op in turn
 * merges with the others inside it, leaving one broadcast of the exit. */
bool helper_broadcast_cone_closes(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* twin_of(x, m): instruction, instruction -> bool: x has a reader other
 * than m of m's op and attributes (a broadcast the graph already has: CSE
 * makes the two one when the driver run ends), or a reader v(x) or
 * b(x, k) of a constant k, or b(x, r) of a reshape r that only adds
 * leading 1s (round s43E), read once by such a broadcast whose readers
 * let it be hoisted too (round s40C: b(x, k)). */
bool helper_twin_of(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* twin_at(x, m): instruction, instruction -> bool: x has a reader other
 * than m of m's op and attributes (twin_of's direct branch): the two are
 * one view once CSE merges them at the end of the driver run. */
bool helper_twin_at(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* twin_below(x, m): instruction, instruction -> bool: x is a one-operand
 * op, a two-operand op reading one value twice, or a two-operand op of a
 * value and a constant (round s40C), read by one instruction, of a value
 * that has a reader of m's op and attributes, or of such an op (a few
 * levels deep): the *_to_twin hoists take a
 * broadcast of x above x's ops to that twin. twin_of(x, m) asks this too. */
bool helper_twin_below(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* squeeze_read_by_binary(r): instruction -> bool: r only drops length-1
 * axes of its operand (a squeeze spelled as a reshape) and its one reader
 * is a two-operand op beside a value that is no constant and no shape op or
 * transpose that stays (past one-operand ops read once; a chain of shape
 * ops that composes away or a broadcast that stretches nothing counted as
 * it will be), not read once by a broadcast (the reader guard of
 * squeeze_of_unit_multibroadcast_* but for its cluster-lens clause), and
 * whose value is not reshaped back to r's operand's lens for a reader that
 * keeps them (a dot, a broadcast, an output; round s74A; or a two-operand
 * op whose cluster nothing else takes to the reader's own lens: round
 * s76B). */
bool helper_squeeze_read_by_binary(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* readers_in_cluster_lens(r): instruction -> bool: every reader of r is a
 * dot, an output or another reader that keeps a broadcast as it is, or a
 * pointwise op in r's lens whose cluster runs it in those lens
 * (cluster_lens). The clusters' labelling depends only on their leaves
 * and sinks, so the answer is the same whether r has been taken into a
 * broadcast below yet or not: r is the reshape the cluster leaves on that
 * edge (round s29A, reshape_of_unary_of_*unit*). */
bool helper_readers_in_cluster_lens(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* standard_readers(m): instruction -> bool: every reader of m is a dot, a
 * reduction of standard value (round s40C), a one-operand op of standard
 * multi-element value (round s39B), or
 * a two-operand op reading it once whose other operand is standard, not
 * constant (but for a @literal, which is what it is), and cannot become a
 * broadcast (broadcast_bound): its value is standard whether m is a
 * broadcast or not, and nothing merges with m; or whose other operand is
 * a multibroadcast read elsewhere too that no merge takes at that reader
 * (round s40B: a reader keeps it, and no reader of the op reads it; the
 * op is then computed in full whatever m is). */
bool helper_standard_readers(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* hoist_readers(m): instruction -> bool: standard_readers(m), or every
 * reader of m is a dot or a two-operand op whose other operand is as
 * standard_readers asks or is a multibroadcast of a settled value whose
 * lens never merge with m's operand's (neither broadcasts to the other):
 * the reader's value is standard whether m stays or moves above its
 * operand, and nothing merges with m there; or a one-operand op of
 * standard value that outputs alone read (round s42F: it never takes the
 * broadcast's layout, so no sink moves m below it, and it reads m's
 * strides above the operand as below it), or outputs and dots that do not
 * make it take the layout (round s43E). */
bool helper_hoist_readers(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* becomes_broadcast(r): instruction -> bool: r is a reshape of a
 * (multi)broadcast (directly or through reshapes, which compose with r) of a
 * value that is not constant, r is a view of it
 * (broadcast_view_lens succeeds) and r's readers take a broadcast's layout:
 * reshape_of_multibroadcast or reshape_of_broadcast turns r into a
 * broadcast. Also a reshape of a two-operand op whose broadcasts merge
 * below it in every order (broadcasts_merge_below), not of one whose
 * broadcast layout only comes from its operands' strides. The rules that
 * would move an op above r wait for that, so that the op meets the
 * broadcast whichever rule the driver tries first. */
bool helper_becomes_broadcast(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* composes_into_reshape(r): instruction -> bool: r is a reshape of a
 * squeeze or unsqueeze of a broadcast (also below a pending op without a
 * permutation, which reshape_of_pending takes from under r first), which
 * reshape_of_squeeze and reshape_of_unsqueeze compose into one reshape of
 * the broadcast. A rule
 * that would move an op above r waits for that, so that the op meets the
 * broadcast, not the squeeze or unsqueeze (which no rule moves it above),
 * whichever rule the driver tries first. */
bool helper_composes_into_reshape(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* drops_to_shape(x): instruction -> bool: x is a broadcast, multibroadcast
 * or transpose to its operand's own shape (or a chain of them) over a
 * shape op. The fold rules drop such views in every order
 * (*broadcast_to_same_shape, transpose_to_same_shape, identity_transpose),
 * so a rule that takes x for no shape op (x = !<shape>) waits for them:
 * x is that shape op in the orders that fold first. */
bool helper_drops_to_shape(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* reshaped_below(b): instruction -> bool: b's value flows, through
 * pointwise ops of one reader, into a shape op or a reduction (of one
 * reader each way; a reduction only where its own value flows on into a
 * shape op, a reduction or a broadcast, as reshaped_or_broadcast_below
 * asks: a returned reduction needs the reshape back to the old lens);
 * shape ops and pointwise ops count in the lens they
 * will run in (a pointwise cluster's cluster_lens), so a chain of shape ops
 * back to the value's lens, or into a cluster that will run in them, is no
 * reshape; nor is a chain after a reduction that only inserts and removes
 * 1s and keeps the reduced axes (reshape_of_reduce_of_reshape takes it
 * in), nor a broadcast that stretches nothing. Moving b into the common dims of a reshape adds a
 * reshape back below it, and views for its other operand; they pay off only
 * where that reshape meets another one or a reduction that runs in the
 * common dims too, not at an output or an op that needs b's lens. */
bool helper_reshaped_below(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* reshaped_below_free(b): instruction -> bool: reshaped_below(b), where a
 * two-operand op on the way whose other operand is a computed value (no
 * constant or broadcast) in the lens the value has there ends the walk:
 * that operand holds the op in those lens, and a reshape moved down to it
 * would cost a reshape of that operand (reduce_without_unit_axes_below_*,
 * reshape_of_unary_of_reduce_of_reshape). The op's operand is seen as its
 * cluster's move leaves it: where the op settles in the walk's lens, a
 * chain of reshapes of a computed value in those lens counts as that value
 * (the move's reshape composes with the chain and goes; seed 1012900). */
bool helper_reshaped_below_free(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* regrouped_below(b, c): instruction, ints -> bool: the same, but a chain
 * of shape ops that only inserts and removes 1s does not count: the common
 * dims of a reshape do not help a value on its way to such a chain, which
 * b's own lens reach as well (seed 7232: max(reshape(x), broadcast) moved
 * into 5-d common dims above a reduction whose value was only squeezed, two
 * views more than the core); and before any reduction, a chain of shape ops
 * or a pointwise op that runs in other lens counts only where c, the
 * common dims b would run in, refine those lens (1s aside): elsewhere the
 * reshape back from c stays a reshape there too (seed 8272: add(reshape(x),
 * broadcast) moved into {2, 3, 1, 2, 1} on its way to a reshape to
 * {1, 4, 1, 3}). The common-dims rules ask this one; the rules that drop a
 * reduction's unit axes (reduce_without_unit_axes_below_*) ask
 * reshaped_below, since such a chain is what they take in. Past a
 * reduction the walk no longer compares with the common dims, but it still
 * says no at a cluster op whose lens are not known yet (seed 1048032).
 * A broadcast that stretches nothing counts as the reshape fold.rules makes
 * of it, under the same two tests (seed 1021148: a multibroadcast that only
 * added 1s counted as a reshape to other lens until it became one). */
bool helper_regrouped_below(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* reshaped_or_broadcast_below(d, cd, c): instruction, ints x2 -> bool:
 * regrouped_below(d, cd), cd being the reduced common dims d would run in
 * and c those common dims before the reduction, or the value flows into a
 * broadcast to lens c refines (1s aside) that not only outputs read
 * (GroupNorm's statistics, broadcast back over the values they were
 * reduced from, which run in the common dims too). Moving reduction d into
 * the common dims adds a reshape back below it that pays off only there. */
bool helper_reshaped_or_broadcast_below(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* transposes_merge(b, x, y, p): instruction x3, ints -> bool:
 * b(transpose[p](x), transpose[p](y)) becomes transpose[p](b(x, y)): when
 * neither x nor y absorbs the transpose, or one does only by rising to a
 * dot (through pointwise ops): the dot would take one transpose and leave
 * the other where it is, while the merged one may still sink and cancel
 * further down. Not when both absorb (each transpose goes), nor when the
 * one that absorbs is a transpose or a constant (it composes or folds
 * first, in fold.rules). An operand the transpose moves into beside its
 * inverse (moves_beside_below(b, x, p): b, the op the merged transpose
 * replaces, is the top whose readers decide) counts as one that absorbs
 * it, exactly as transpose_above_binary counts it. */
bool helper_transposes_merge(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* vanishes_below(t): instruction -> bool: t is a transpose[p] whose value
 * reaches, through single-reader one-operand pointwise ops, a single-reader
 * reduction that leaves only length-1 axes where p moves axes: sunk below
 * the reduction (reduce_below_transpose), the transpose vanishes
 * (unit_axes_transpose). The rules that would move it up into a dot's
 * output_permutation wait for that (seed 10155). The walk also passes
 * two-operand ops whose other operand is the same value, a constant, a
 * transpose, or a dot under pointwise ops that has an output_permutation
 * or is read through a transpose (cone_reduced_permutation's transposes
 * sink through them; seeds 13388, 13032; a plain dot gives no transpose to
 * merge with, seeds 1022405, 5009606), passing such an op only where its
 * other operand gives the transpose reaching it, of the permutation r it
 * has composed so far, what it needs to sink on (cone_takes): a constant;
 * a transpose of r; a dot whose output_permutation is r
 * (dot_permutation_out_for_reduction takes it out) or which the cone rules
 * rewrite to transpose[r](d[c]) (cone_reduced_permutation); pointwise ops
 * of such values. Seeds 4001965, 4016403 (--views T): mul(t(d1), d2) under
 * a reduction, d2's permutation already canonical, gave t nothing to merge
 * with, and transpose_into_permuted_dot waited for ever. And, from t itself,
 * a two-operand op whose other operand is a transpose of t's permutation
 * read once (binary_above_transposes merges the two; seed 8045). */
bool helper_vanishes_below(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* vanishes_composed_below(t): instruction -> bool: vanishes_below(t), or
 * the same walk, past a reduction (or from a t that reads one), meets a
 * transpose, and t's permutation, mapped through the reductions passed,
 * composed with the whole chain of single-reader transposes and
 * one-operand pointwise ops from there, moves only length-1 axes of the
 * reduced lens: the reduction takes t below it, t sinks down the chain,
 * they compose and go in every order. The whole chain, so that the answer
 * is the same before and after two transposes of the chain compose
 * (round s31B; tuned seed 19569). Asked by the three rules that move a transpose across a
 * reduction or into a two-operand op's operands (reduce_below_transpose,
 * transpose_above_reduce, transpose_above_binary), so that they agree
 * (round s30A; seed 1003212). */
bool helper_vanishes_composed_below(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* vanishes_past_reader(t): instruction -> bool: t is a transpose[p] read
 * once, by a two-operand op e of its lens, and transpose[p] of e's value
 * would vanish below (the walk of vanishes_below, started at e): the
 * transposes of p that merge at e (binary_above_transposes) go at the
 * reduction further down. dot_permutation_beside_transpose_* ask it. */
bool helper_vanishes_past_reader(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* settles_past_reader(t): instruction -> bool: vanishes_past_reader(t), or
 * the same walk ends at a reduction after which transpose[p] of e's value
 * moves only length-1 axes into other lens (a free view there: a reshape
 * of the data). plain_dot_beside_settling_transpose asks it. */
bool helper_settles_past_reader(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* settles_below(t): instruction -> bool: vanishes_below(t), or the same
 * walk from t ends past a reduction after which t moves only length-1
 * axes into other lens (a free view there: a reshape of the reduced
 * value's data), as settles_past_reader asks it from t's reader. */
bool helper_settles_below(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* folds_into_operand(t): instruction -> bool: t is a transpose that a
 * fold or pending rule takes into its operand in every order: a transpose
 * below it (transpose_of_transpose), or a dot read once that writes
 * permuted strides (transpose_cancels_dot_permutation,
 * transpose_into_permuted_dot, by their guards). unary_above_transpose
 * asks it. */
bool helper_folds_into_operand(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* dot_permutation_vanishes(d): instruction -> bool: d is a dot whose
 * output_permutation would vanish the same way, were it a transpose of the
 * plain product (dot_permutation_out_for_reduction takes it out). */
bool helper_dot_permutation_vanishes(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* merges_at_reader(t): instruction -> bool: t is a transpose read once, by
 * a two-operand op whose operands are both transposes of one permutation,
 * read once each, of values that transposes_merge accepts:
 * binary_above_transposes merges them into one transpose below the op. The rules that would move t
 * into a dot above it wait for that: one transpose is left either way, and
 * the merged one may still sink and cancel below, while a transpose left
 * on the other operand may not. */
bool view_merges_at_reader(const ins *t);
bool helper_merges_at_reader(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* beside_twins_sibling(t, x): instruction, instruction -> bool: t is read
 * once, by a two-operand op whose other operand, its sibling, is a
 * transpose of t's permutation of x (both compared past broadcasts to
 * their operand's shape, which fold in every order), and x is a reduction
 * whose operand absorbs that permutation. Moving t beside onto x
 * (transpose_beside_binary_first / _second) then builds a twin of the
 * sibling, which CSE makes one with it, and the sibling rises through the
 * reduction into its operand (transpose_above_reduce), a rise that had
 * waited only for the merge (merges_at_reader). The beside rules'
 * merges_at_reader wait does not apply there: in the orders that met the
 * sibling before t's operand read x directly (a transpose of the sibling
 * on the way, composed by transpose_of_transpose), the sibling rose and
 * no merge was left to wait for; merging instead kept t, or a transpose
 * inside its operand, where the move leaves none (round s54A2, --ops 24
 * seed 5010033). Where x is no such reduction the wait stays: the merge is
 * what every order reaches (round s54A, seed 11009181). */
bool view_beside_twins_sibling(const ins *t, const ins *x);
bool helper_beside_twins_sibling(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* beside_twins_move(t): instruction -> bool: t, a transpose of a
 * two-operand op b(x, t'(y)) (either order), moves beside now
 * (transpose_beside_binary_first / _second would fire, asked with their
 * own helpers) onto an x whose transpose of t's permutation is t's sibling
 * at its reader (beside_twins_sibling). binary_above_transposes waits for
 * that move, as the move waits for the merge elsewhere: both can fire on
 * one graph, and the orders that reached the merge first kept a
 * transpose the move lets the sibling take into its reduction's operand
 * (round s54A2). The wait ends when the move fires, so it holds the merge
 * only while the move is possible. */
bool view_beside_twins_move(const ins *t);
bool helper_beside_twins_move(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* transpose_composes_below(t): instruction -> bool: t is a transpose whose
 * operand is a chain of transposes (transpose_of_transpose composes them
 * with t, whatever their readers), or becomes one: a two-operand op whose
 * operands are transposes read once, the chain below each composing to
 * one permutation, that binary_above_transposes merges (its guard asked of
 * the values at the chains' ends). Only where the last transpose of each
 * chain stays on its operand (that operand neither absorbs it nor takes it
 * beside its inverse: else it may rise away before the chain composes),
 * where t moves longer axes, and where t composed with the chain differs
 * from t's own permutation by more than a move of length-1 axes (else its
 * sibling at t's reader still merges with it after the composition,
 * binary_above_transpose_and_unit_different_transpose). binary_above_transposes
 * waits while it holds for either of its transposes: t then composes in
 * every order and no merge is left, while merging first kept t's
 * permutation above the reader and the composition inside it (round s55A,
 * --views T seed 13004436). */
bool view_transpose_composes_below(const ins *t);
bool helper_transpose_composes_below(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* transposed_back_below(t): instruction -> bool: t has several readers,
 * and each reaches, through single-reader pointwise ops, a transpose that
 * undoes t's permutation, or is one (transposes on the way compose with
 * t's permutation: an identity one that is not yet dropped does not stop
 * the walk), passing a two-operand op only where its other operand absorbs
 * the transpose that undoes t (so that one can rise through it: seed
 * 3000063's add(t, max(s, t)) of a parameter s held it below add, and the
 * dot waited for ever). transpose_into_dot waits: those rise (or compose)
 * and cancel t on every path, while a dot that took t would have several
 * readers and absorb none of them (seed 2623). So do
 * transpose_into_dot_through_unary and transpose_above_unary, which would
 * take t to the dot through a unary op (seed 779: tanh(dot) transposed for
 * two readers). */
bool helper_transposed_back_below(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* reduced_canonical_permutation(q, lens, axes): ints, ints, ints -> ints:
 * for transpose[q] of a value of lens `lens` read only by a reduction over
 * `axes` (positions of the transposed value), the permutation that gives
 * the reduction the same result (its axes moved along with their sources,
 * axes_of(invert(c), axes_of(q, axes))) with the sources of the positions
 * of length 1 after it (reduced ones and those of length-1 sources) in
 * increasing order: which of them lands where is invisible after the
 * reduction (seed 10754: a dot's output_permutation {1, 2, 0} or
 * {2, 1, 0} under a reduction over its first two axes; seed 15776: {2, 0,
 * 1} under a reduction over axis 2 or {2, 1, 0} over axis 1, a length-1
 * axis and a reduced one swapped, by visiting order). */
bool helper_reduced_canonical_permutation(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* cone_reduced_permutation(d): instruction -> ints: for a dot d with an
 * output_permutation q whose value reaches a reduction through
 * single-reader pointwise ops of d's lens (one-operand ones, and
 * two-operand ones whose other operand is the same value, a constant, a
 * transpose or a dot under pointwise ops: max(literal, dot), max(dot,
 * neg(dot)); at least one of those), reduced_canonical_permutation(q, d's plain lens, the
 * reduction's axes); q itself when there is no such walk (seed 13388), and
 * also where the transpose compose(invert(c), q) the cone rules would leave
 * on d[c] does not vanish below (vanishes_below's walk from d): the rules
 * that take it back into d would not wait for it, and the two looped or,
 * with a stricter walk on one side only, the transpose stayed (seeds
 * 4001965, 4016403 with --views T). */
bool helper_cone_reduced_permutation(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* composes_at_reader(t): instruction -> bool: t is a transpose whose
 * only reader is a transpose:
 * transpose_of_transpose makes the two one (or none) whatever else fires,
 * so transpose_above_binary waits for it. Moved first, t put a transpose
 * on each operand and left the reader, now uncomposed, below the op in
 * some visiting orders (transpose(transpose(sub(transpose(x), dot)))
 * ended as sub(transpose(x), dot) or as transpose(sub(x, dot[p]))). So
 * also for a transpose that moves only length-1 axes (round s25B; it was
 * left to unit_axes_transpose* before). The reader is seen past
 * layout-only pending ops read once (round s53F) and broadcasts to their
 * operand's shape (round s54A), which the pending and fold rules take away
 * in every order. */
bool helper_composes_at_reader(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* cancels_at_reader(t): instruction -> bool: t is a transpose whose only
 * reader is its inverse, or the first of a chain of transposes, each read
 * once by the next (or by one-operand pointwise ops read once between
 * them, which the transposes above come down through), that composes into
 * the identity somewhere along it:
 * transpose_of_transpose and identity_transpose take them away whatever
 * else fires (composing two of the chain leaves the answer unchanged), so
 * transpose_above_unary waits for them (round s41D: the chain; seed
 * 1073399, t5(t4(t3(t2(abs(t1(bc)))))) with t5 t4 t3 t2 the identity).
 * Risen first through u(s) of a transpose s it cancels, t left the
 * inverse on u's value, which then reached an output as a layout copy
 * (seed 1085259: t'(t(tanh(t(mb(x))))) returned ended as
 * contiguous(t(tanh(mb(x)))) or tanh(t(mb(x))) by order). */
bool helper_cancels_at_reader(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* risen_into(t): instruction -> bool: t is a transpose read once, by a
 * one- or two-operand pointwise op w read once by a transpose that rises
 * back through w (every operand of w, t among them, absorbs it): that
 * transpose composes with t whatever order the driver visits them in, so
 * transpose_above_unary and transpose_above_binary wait for it instead of
 * moving t onto the operands first, and transpose_into_dot instead of
 * writing t into the dot's output_permutation (there the risen transpose
 * would have to compose with the permutation, which some orders left
 * below the op). w is seen past broadcasts to their operand's shape
 * between t and w, which go in every order (round s54A); not past
 * layout-only pending ops, which unary_through_pending moves above a
 * one-operand w rather than taking away (round s54A3). */
bool helper_risen_into(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* reader_risen_into(u): instruction -> bool: u is read once, by a
 * transpose s for which risen_into(s) holds: a transpose further down
 * rises through s's reader and composes with s in any order. The
 * transpose unary_above_transpose would sink below u would meet s there
 * and cancel it in the orders that sink first, leaving the transpose
 * further down with nothing to compose with (seeds 1045212, 1063176:
 * t(add(t(abs(t(mb(x)))), t(p))) returned ended as
 * contiguous(t(add(abs(mb(x)), t(p)))) or add(abs(t(mb(x))), p) by
 * order), so unary_above_transpose waits for it. */
bool helper_reader_risen_into(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* transposed_readers(u): instruction -> bool: u has several readers and
 * every one is a transpose. transpose_above_unary_of_transpose moves each
 * of them above u, where it composes with the transpose u reads: u then
 * reads one transpose per reader instead of one more above them. */
bool helper_transposed_readers(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* into_transposed_readers(t): instruction -> bool: t is a transpose read
 * only by a one-operand pointwise op whose readers are transposes
 * (transposed_readers): they rise through the op and compose with t, so
 * the rules that take t into a dot wait (seed 6173: relu(dot[p]) read by
 * two transposes kept a third view). */
bool helper_into_transposed_readers(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* rejoins_below(t): instruction -> bool: t = transpose[p](x) has several
 * readers, and they meet again below: from each, through pointwise ops of
 * values transposed[p] (t, its copies, copies of t sunk below ops of x,
 * or a transpose[p] read once of a value that does not absorb p, which
 * merges with them), and through all of their readers (readers that undo
 * p aside, which cancel the copy; a branch read only by such ends there),
 * down to one such op that every path reaches (a diamond). Sunk below each
 * reader as a copy, the copies merge there: one transpose below it (seed
 * 18031: relu(t) read by max(t, relu(t)) and by a transpose back). */
bool helper_rejoins_below(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* rejoins_shared(t2): instruction -> bool: t2 = transpose[p](u(x)) is such
 * a copy, and x's transpose[p] t with u reading it would rejoin below
 * (rejoins_below): transpose_above_unary_shared must not move t2 back. */
bool helper_rejoins_shared(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* reader_reads(u, t): instructions -> bool: u has one reader, and it reads
 * t too (SiLU's shape b(t, u(t)), which binary_above_transpose_and_unary
 * moves t below at once). */
bool helper_reader_reads(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* composes_through_readers(v, t): instructions -> bool: v is read once,
 * directly or through one-operand ops (and the ops that go in every order)
 * each read once, by a transpose (the walk of composes_with_reader), and t
 * is a transpose that moves longer axes (not only length-1 ones, which the
 * canonical and sideways rules order). The walk goes on past that
 * transpose through further ones, reductions that keep their rank, b(w, w)
 * and a two-operand op whose other operand is a chain of transposes of the
 * permutation t composed with those met (they merge there), composing the
 * transposes met, and answers yes only where it ends at a value read once
 * or not at all (past a value of several readers the composition may go
 * on along each) and the composition does something (readers whose
 * transposes cancel among themselves leave t nothing to compose with:
 * seeds 1040774, 15434, 2074359, 12603). A transpose t of a shared one's
 * permutation waits there instead of rising to the shared one
 * (transpose_above_unary_shared, rises_to_shared, rises_to_shared_through),
 * and unary_above_shared_transpose_to_compose sinks a copy of a shared t
 * below such a v = u(t(x)): the chain between two transposes ends under
 * their composition whatever x's other readers (round s59A, seed 8000540's
 * tie at --ops 24). */
bool helper_composes_through_readers(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* rises_to_shared_through(t): instruction -> bool: t = transpose[p](u(x)),
 * u a one-operand pointwise op read by t alone, and either
 * transpose_above_unary_shared raises t above u (its guard), or x starts a
 * chain of one-operand pointwise ops each read once, none absorbing p,
 * down to a value z that the graph already transposes by p, which absorbs
 * nothing, and where that transpose's readers and t do not rejoin below
 * (rejoins_shared asked of z): raised op by op, t reaches the shared
 * transpose (transpose_above_unary_chain_to_shared), and
 * unary_above_transpose waits for it (round s57B, redone in s59A). */
bool helper_rises_to_shared_through(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* read_once_by_twins(v): instruction -> bool: v has one reader, or its
 * readers are all transposes of one permutation (twins CSE makes one). */
bool helper_read_once_by_twins(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* rises_to_shared_at(t): instruction -> bool: t rises to a transpose of its
 * permutation the graph already has, through one-operand ops
 * (rises_to_shared_through) or above b(x, x)
 * (transpose_above_binary_of_one_value_shared's guard). */
bool helper_rises_to_shared_at(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* meets_transpose_past_operand(t): instruction -> bool: t is a transpose
 * of a one-operand pointwise op u read by t alone, and either u reads a
 * transpose t' read by u alone that unary_above_transpose sinks below u
 * (its guard, asked through its own helpers: t and t' then compose into
 * one transpose of u's new value in every order), or
 * transpose_above_unary_shared raises t above u (its guard: the graph
 * already has t's transpose of u's operand, or a sibling's). The rule
 * reduce_below_transpose waits for either, so that it judges the
 * transpose every order reaches (round s31B; seed 1018128). */
bool helper_meets_transpose_past_operand(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* shared_by_rising(t): instruction -> bool: t = transpose[p](x) and x has
 * another reader, a reduction read once by a transpose of p that
 * transpose_above_reduce or transpose_above_reduce_shared raises (their
 * guards; the reduction may read x through a transpose that goes in every
 * order, identity_transpose or transpose_to_same_shape): it rises to
 * transpose[p](x), which CSE makes one with t, so t is then shared and
 * stays above its reader. reduce_below_transpose waits
 * for it: sunk first, t went below its reduction and the other transpose
 * found no transpose of x to share and stayed below its own (seed 1048392:
 * reduce_sum(t(s)) beside t(reduce_mean(s)), one view or two by order). */
bool helper_shared_by_rising(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* duplicated_transpose(t): instruction -> bool: t is a transpose and its
 * operand has another transpose reader with the same permutation (CSE
 * merges the two). */
bool helper_duplicated_transpose(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* broadcast_axis_after(b, lens): instruction, ints -> int: for b =
 * broadcast[axis](x) multibroadcast to lens, the axis of a single
 * broadcast[axis, lens](x) with the same value: x's axes land where they
 * were (aligned to the last axes), which must not be stretched. Fails
 * otherwise. */
bool helper_broadcast_axis_after(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* broadcast_axis_within(o): instruction -> int: for o =
 * broadcast[axis=a](broadcast[axis=c](x)), the axis a + c of the single
 * broadcast[axis, o.lens](x) with the same value: x's axes land at a + c,
 * and neither broadcast may stretch them. Fails otherwise. */
bool helper_broadcast_axis_within(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* broadcast_axis_reshaped(m, lens): instruction, ints -> int: for m =
 * broadcast[axis=a](k), the axis of the one broadcast[axis, lens](k) equal
 * to reshape[lens](m), where lens are m's but for length-1 axes added or
 * dropped outside k's axes. Fails otherwise. */
bool helper_broadcast_axis_reshaped(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* same_but_leading_ones(a, b): ints, ints -> bool: lens a and b are equal
 * once their leading 1s are dropped (a reshape between them only adds or
 * drops leading 1s, which a multibroadcast reading it does itself). */
bool helper_same_but_leading_ones(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* without_leading_ones(a): ints -> ints: lens a without its leading 1s. */
bool helper_without_leading_ones(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* has_reshape_to(y, l): instruction, ints -> bool: a reshape of y to lens
 * l reads y already. */
bool helper_has_reshape_to(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* with_leading_ones(a, n): ints, int -> ints: lens a with 1s put in front
 * up to rank n (fails where a has more than n axes). */
bool helper_with_leading_ones(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* unit_reshape_below(m): instruction -> bool: m is a multibroadcast of a
 * reshape (or of a squeeze, unsqueeze or flatten of a standard value,
 * which becomes one) that multibroadcast_of_unit_reshape or
 * multibroadcast_of_reshape_leading_ones still rewrites (the reshape adds
 * or drops leading 1s); or (round s29B) of a reduction with leading 1s,
 * read once, of a shape op read once that reduce_below_reshape moves below
 * it (reduce_axes_map; through same-lens transposes and layout-only
 * pending ops on either side), a reshape that m then drops. The merges of
 * multibroadcasts at a binary op wait for it, so that the op's lens do not
 * depend on whether it has. */
bool helper_unit_reshape_below(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* reduction_of_reshape(x): instruction -> bool: x is a reduction of a shape
 * op, a transpose or a pending shape change, reached through one-operand
 * pointwise ops, transposes, pending shape changes and two-operand ops
 * reading one value twice: a reshape of x that only moves 1s goes into the reduction
 * (reshape_of_reduce_of_reshape and their kin), or the reduction drops
 * the unit axes it does not reduce (reduce_without_unit_axes), so the
 * rules that drop such a reshape under a multibroadcast leave it to them. */
bool helper_reduction_of_reshape(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* reduction_takes_reshape(x): instruction -> bool: reduction_of_reshape(x),
 * except a reduction itself whose view has other readers too (which
 * reshape_of_reduce_of_reshape, needing that view :once, cannot take). */
bool helper_reduction_takes_reshape(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* chain_read_beside_values(r): instruction -> bool: every reader of the
 * last of the chain of reshapes from r (each but the last read only by the
 * next; a squeeze or unsqueeze of a standard value counts) is a
 * two-operand op beside a value that is no constant. readers_take_broadcast
 * asks it of a unit reshape of u(broadcast[axis]) before the broadcast
 * sinks below u, and squeeze_of_broadcast of the squeeze it takes, so
 * that the core's squeeze and the noisy graph's reshape become the same
 * broadcast (tuned seed 16568: a squeeze read by sin and by sub). */
bool helper_chain_read_beside_values(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* dropped_below(r): instruction -> bool: every reader of shape op r is a
 * multibroadcast for which unit_reshape_below holds: r goes or loses its
 * leading 1s there. reshape_of_multibroadcast waits for that, so that the
 * two multibroadcasts compose whichever fires first. A broadcast[axis]
 * that puts r's axes last counts as the multibroadcast
 * aligned_broadcast_to_multibroadcast makes it in every order (seed
 * 1020045: broadcast[axis=3](reshape[{3}](mb[{1, 3}](p))) of a {1, 1} p
 * ended as mb(reshape[{1}](p)) in the orders that made the reshape a
 * broadcast first, and as mb(p) in the others). */
bool helper_dropped_below(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* pointwise_below_views(x): instruction -> bool: x, through shape views,
 * transposes and pending shape changes of one operand, is a pointwise op
 * of one operand, or of two with an operand that is or may become a
 * broadcast (broadcast_bound). squeeze_of_multibroadcast's arm folds a
 * squeeze whose readers take the broadcast's layout only of an x that is
 * neither: of such a two-operand x the other spelling may keep that
 * broadcast below it (round s84E, seed 7002470, --ops 24). */
bool helper_pointwise_below_views(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* read_once_by_broadcast(v): instruction -> bool: v's one reader is a
 * broadcast or multibroadcast (of v alone). squeeze_of_unit_multibroadcast_*
 * wait there: multibroadcast_above_binary_of_shape_of_unit_multibroadcast_*
 * take b with its squeeze above that broadcast (tuned seed 5102, where the
 * two raced by order). */
bool helper_read_once_by_broadcast(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* broadcast_composes_below(m): instruction -> bool: m is a broadcast or
 * multibroadcast read by a multibroadcast that composes with it
 * (multibroadcast_of_multibroadcast, multibroadcast_of_broadcast). Where m
 * stretches nothing, *broadcast_to_reshape would otherwise make it a
 * reshape first in some orders, and the reader would keep a reshape under
 * it (seed 14631: mb(mb(x)) ended as mb(reshape(x)) or mb(x) by order).
 * Also while a pending shape change reads m (it goes first). For m of one
 * element, only a broadcast or multibroadcast of a value that is no
 * pointwise op (looked at below the shape ops and transposes over it, which
 * fold away under it in every order), read directly by a
 * multibroadcast or by a broadcast[axis] that puts its axes last; for a
 * broadcast[axis], only one of a value that is no pointwise op. The
 * multibroadcast merges ask it too: they wait while their operand becomes
 * a reshape, and the unary sinks while it composes. A broadcast[axis]
 * that puts its value's axes last counts as the multibroadcast
 * aligned_broadcast_to_multibroadcast makes it. Also a multibroadcast (of more than one element)
 * of a one-operand op whose own broadcast operand sinks below it
 * (unary_above_*broadcast): the two broadcasts compose once it has. */
bool helper_broadcast_composes_below(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* composes_with_broadcast(m): instruction -> bool: m is a multibroadcast
 * of a broadcast[axis] that multibroadcast_of_broadcast composes with it
 * into one broadcast (broadcast_axis_after succeeds). That rule has no
 * other guard, so it fires in every order; the merges of multibroadcasts
 * at binary ops wait for it, as they wait for a multibroadcast of a
 * multibroadcast (x = !multibroadcast). Also where m's operand is a
 * two-operand op whose operands every order merges into such a broadcast
 * first (binary_above_broadcasts: two broadcast[axis=a] of values of one
 * lens; binary_above_broadcast_literal_*: one of them beside a constant
 * that folds to a literal holding that broadcast), judged by the
 * broadcast the merge leaves (round s27C), and the same where m's operand
 * is a one-operand op of a broadcast[axis] that unary_above_broadcast sinks
 * (its own guard), and through a pending op that only changes the layout,
 * read once, which that sinking leaves between m and the broadcast and
 * view_through_pending takes away (seeds 1047360, 1058665, 1063037,
 * 1065286), of a one-operand op over a value that becomes such a broadcast
 * first, and of b(c, c) (binary_above_broadcast_twice; seed 1061573).
 * Merged at the outer op first,
 * the inner op ran under the outer one in the small lens; merged below
 * first, the new broadcast composed with m and the outer op ran in m's
 * lens (seeds 1015009, 1022555, 1001924: sub(mb(add(broadcast(p3),
 * broadcast(p4))), mb(p5)) in either). Round s28A: the same for a
 * multibroadcast below, which multibroadcast_of_multibroadcast composes
 * with m: m's operand a one-operand op whose multibroadcast
 * unary_above_multibroadcast sinks (its guard), a chain of one-operand ops
 * read once down to one, or down to a two-operand op whose multibroadcasts
 * merge (each op's readers taking the layout), or, through the layout-only
 * pending op a sink leaves, a multibroadcast that stretches (seed 1021936:
 * max(broadcast[axis=1](s), mb(tanh(mb(p2)))); tuned seed 14260). */
bool helper_composes_with_broadcast(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* broadcasts_to(a, b): ints, ints -> bool: a multibroadcast takes a value
 * of lens a to lens b (a aligned to b's last axes, each axis equal or 1). */
bool helper_broadcasts_to(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* copies_at_output(b, x, y): instruction x3 -> bool: b = binary(mb(x),
 * mb(y)) computed as the rules that merge broadcasts leave it (b on x and
 * y, the smaller multibroadcast to the larger's lens, then multibroadcast to
 * b's lens) would have other strides than b has now, and those strides
 * reach an output (the @return, an opaque op or a region, through views
 * and binary ops that read them twice, b(v, v) having v's layout): the
 * output would need a copy that b, left as it is, does not. Where b
 * reaches the @return through pending shape changes, contiguous ops of
 * its lens and b(v, v) (at least one of the first two), the strides the
 * output keeps are those of the chain's last value: it copies where b has
 * them now and the rebuilt value would not (round s26D, seed 1021710). */
bool helper_copies_at_output(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* regroups_to_broadcast(r, v): instruction x2 -> bool: r = reshape(u(m)) or
 * a shape op of m or of a shape op of m read once, m = multibroadcast(v), or multibroadcast(reshape(v)) of a
 * standard v: m read in r's lens (as a view) is v multibroadcast to r's
 * lens, length-1 axes aside, so r(u(m)) is u(multibroadcast[r.lens](v))
 * (reshape_of_unary_of_multibroadcast, _of_reshape) and r(m) is
 * multibroadcast[r.lens](v) (multibroadcast_shape_into_dot_first,
 * _second, multibroadcast_shapes_into_dot_*). False for m's own
 * operand where it is such a reshape whose operand answers yes (the rule
 * that drops the reshape too fires instead). */
bool helper_regroups_to_broadcast(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* broadcast_stays(m): instruction -> bool: every reader of broadcast m is
 * a dot or an output, so no rule moves m further down, now or once its
 * readers' own views have moved (a pointwise reader may take a broadcast's
 * layout later, seed 6597: relu read by a reshape that a cluster takes
 * away). */
bool helper_broadcast_stays(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* beside_broadcast_readers(r): instruction -> bool: every reader of r is a
 * dot, an output, or a two-operand op whose other operand is a stretching
 * broadcast of a computed value or becomes one in every order: the reader
 * reads a broadcast whether r is a broadcast or not, and is no cluster op
 * either way. */
bool helper_beside_broadcast_readers(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* unary_of_stretching_broadcast(x): x is a one-operand op (or a chain of them) of a stretching broadcast. */
bool helper_unary_of_stretching_broadcast(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* folds_beside_values(s): instruction -> bool: every reader of s is a two-operand op beside a full value
 * (standard, no broadcast, constant, shape op or chain over one), or a one-operand op or b(s, s)
 * whose readers are, or the diamond b(u'(s), s): s's value is standard whether s folds into the
 * multibroadcast below it or not (round s59B's V7, rebuilt in s64A); under the fold's own guards on
 * the broadcast's operand y: no broadcast of one element read, and y of no higher rank than s, nor
 * the values below it through reshapes that only move 1s, nor its cluster's lens (round s64C). */
bool helper_folds_beside_values(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* broadcast_twin_in(m, x): instruction, instruction -> bool: m is a multibroadcast of k, and k has
 * another reader, a multibroadcast to x's lens (the broadcast m becomes in x's lens is there
 * already; round s82A), not one read only by x's own chain of one-operand ops, which goes when the
 * chain sinks or the reshape of x folds into it (round s83C). */
bool helper_broadcast_twin_in(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* unit_fold_readers(r): instruction -> bool: r (a reshape of u(mb(y)) or a squeeze of mb(y) that
 * only drops length-1 axes) has readers, and every one is a dot, a transpose read only by dots, a
 * pointwise op in r's lens that its cluster runs there (readers_in_cluster_lens's test), or a
 * two-operand op beside a full value (no broadcast nor a value that may become one, no constant,
 * shape op, view or pending op, standard or a computed value of another packed layout such as a
 * dot's output_permutation, or such a value through a chain of transposes and one-operand ops;
 * no shape op reading the op's value); no output. The reader terms of the reshape clause of
 * reshape_of_unary_of_multibroadcast, the squeeze arm of squeeze_of_multibroadcast and the
 * unit-drop term of reshape_of_multibroadcast, which must answer alike for the spellings of one
 * value (rounds s80B, s82A, s83C). */
bool helper_unit_fold_readers(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* reshape_fold_fits(r): instruction -> bool: r is a reshape of u(m), u a one-operand op of a
 * multibroadcast m of x, that the fold of u's reshape into m takes on its own terms
 * (reshape_folds_into: x of more than one element, computed, read by no reduction that takes the
 * reshape, of no higher rank than r nor below it through reshapes that only move 1s nor in its
 * cluster's lens, and m read in r's lens a broadcast of x), the readers not asked (round s79C). */
bool helper_reshape_fold_fits(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* hoist_keeps_strides(m): instruction -> bool: m = multibroadcast(b), b a
 * two-operand op: b computed on its operands each multibroadcast to m's
 * lens (a multibroadcast operand composed with m, the other broadcast as a
 * folded literal) has m's strides, length-1 axes aside, so readers see no
 * change of layout when m moves above b
 * (multibroadcast_above_binary_of_multibroadcast_and_literal). */
bool helper_hoist_keeps_strides(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* broadcast_merge_copies(b, m): instruction x2 -> bool: b = binary(m, k)
 * or binary(k, m), m a broadcast or multibroadcast of x, k a broadcast of
 * the same kind (binary_above_broadcasts) or a folded broadcast literal
 * (binary_above_*broadcast_literal_*): b computed as those rules leave it (b
 * on x and k's value in x's lens, then m to b's lens) would have other
 * strides than b has now, and those strides reach an output, which would
 * need a copy that b, left as it is, does not (copies_at_output for the
 * rules these do not cover). */
bool helper_broadcast_merge_copies(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* reshape_copies_at_output(m): instruction -> bool: m is a broadcast or
 * multibroadcast that stretches nothing, and a two-operand op reading it
 * (not as both operands) would take other strides, length-1 axes aside,
 * once m is the reshape *broadcast_to_reshape makes it, and those strides
 * reach an output (through views, one-operand pointwise ops and b(v, v)).
 * A broadcast operand leaves the op the other operand's layout (a
 * transposed one); a standard reshape makes the two operands' layouts
 * disagree and the op takes the smaller permutation, so the output would
 * need a layout copy: one view more for none less (seeds 1004951,
 * 1019485: mul(t(x), broadcast(p)) returned). */
bool helper_reshape_copies_at_output(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* folds_to_reshape(m): instruction -> bool: m is a broadcast or
 * multibroadcast that stretches nothing (as many elements as its operand
 * x, other lens) over a standard x, composes with no broadcast below and
 * copies at no output made a reshape: multibroadcast_to_reshape and
 * broadcast_to_reshape make it a reshape of x. */
bool helper_folds_to_reshape(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* split_strides_reach_output(b, t, r, q): b(t[p](x), s[q](y)) written as
 * s[q](b(t[r](x), y)) has other strides on a longer axis, which reach an
 * output. */
bool helper_split_strides_reach_output(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* copy_kept_beside(r): instruction -> bool: r is a shape op of a value x
 * that is not standard (so r copies x), and r has another reader, or
 * another shape op reads x too. A one-operand op u of r moved above it
 * (unary_above_reshape) computes u(x) and reshapes that, while r, or x's
 * other reshape, stays for the other readers: one reshape more, since the
 * reshapes that stay are those the graph with u below them shares (CSE
 * merges reshapes of x to one lens). Seeds 1023379 (sin(r) of r =
 * reshape(mb(dot)) read by a dot too), 1043369 (sigmoid(r) of r =
 * reshape(sigmoid(mb(s))), x reshaped again for a mul). */
bool helper_copy_kept_beside(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* read_by_dots(m): instruction -> bool: m has readers and every one is a
 * dot. A dot reads any strides and its value is standard either way, so
 * what m's operand computes and in which layout changes nothing below. */
bool helper_read_by_dots(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* read_by_dots_through_unary(r): every reader of r is a dot, or a
 * one-operand op whose readers are, through any number of such ops. */
bool helper_read_by_dots_through_unary(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* dot_reads(r): instruction -> bool: a dot reads r. No rule moves a dot
 * into other lens, so r stays for it whatever its other readers do: a
 * reduction of r moved into the common dims of r and its operand needs a
 * reshape of that operand of its own beside r (reduce_in_common_dims). */
bool helper_dot_reads(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* shares_reshape(r): instruction -> bool: r is a shape op of a standard
 * value x that another shape op of x reads as well. Whether a reduction
 * reads r alone or a reshape it shares with x's other readers depends on
 * whether those readers' reshapes have composed with r yet (reshape_of_reshape),
 * so a reduction reading r does not move r below itself there
 * (reduce_below_reshape); the reshape stays above it, where clusters
 * reading x can share it, or is taken in (reshape_of_reduce_of_reshape,
 * reduce_without_unit_axes). */
bool helper_shares_reshape(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* shape_op_reads(x): instruction -> bool: a shape op (reshape, squeeze,
 * unsqueeze, flatten) of no submodule reads x. A reduction that keeps
 * length-1 axes it does not reduce, read by such an op beside other
 * readers, loses them (reduce_without_unit_axes_shared): read by that op
 * alone it would have lost them to it (reshape_of_reduce_of_reshape,
 * reduce_without_unit_axes), so the reader count, which is the visiting
 * order's, does not decide. */
bool helper_shape_op_reads(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* beside_sinking_unary(u): instruction -> bool: every reader of u is a
 * two-operand op whose other operand is a one-operand op, read by it alone,
 * of a stretching broadcast of a computed value read once: that broadcast
 * sinks once u's value is standard (round s79D). */
bool helper_beside_sinking_unary(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* composes_below(r): instruction -> bool: r is a shape op with a standard
 * result that a shape op reads: the two compose into one reshape
 * (reshape_of_reshape, after *_to_reshape), so r is not yet the reshape its
 * value ends in. So is r read by a transpose (which sinks below the
 * pointwise ops reading it, or cancels, and leaves them reading r) or by a
 * pointwise op whose cluster runs it in other lens (cluster_lens: the
 * reshape put on its operand composes with r). A rule that moves an op
 * through r waits for the composed reshape, so that whether the chain
 * composed first cannot change which lens the op ends in
 * (reshape_above_binary_first, _second). */
bool helper_composes_below(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* in_cluster_lens(x): instruction -> bool: x is no pointwise op of a
 * cluster, or runs in the lens cluster_lens gives it already. A reduction
 * moves a reshape of x below it (reduce_below_reshape) only then: the
 * cluster's sink is that reshape until it has settled, and x's lens once the
 * reshape has moved, so moving it first would decide the labelling by the
 * visiting order. Nor is a two-operand op that reads a broadcast in its
 * lens while binary_above_reshapes* moves it above its two reshapes (asked
 * with those rules' guard, binary_reshapes_move): it then runs in an
 * operand's lens in every order (round s30D, seed 1012623). Nor is an op
 * whose cluster is not known yet because a leaf reduction still loses
 * length-1 axes it does not reduce: that leaf's lens change in every
 * order (round s45F, seed 1056861). */
bool helper_in_cluster_lens(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* result_reshape_moves(d): instruction -> bool: d is read only by a
 * reshape that a pointwise op reads which is not yet in its cluster's lens
 * (that op's move may take the reshape, changing what d's cluster sees). */
bool helper_result_reshape_moves(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* unit_binary_run_above(r): instruction -> bool: shape op r's operand
 * is reached, through ops read once that binary_above_reshape_unit_*
 * walk (and shape runs that compose to nothing), from a two-operand op of
 * a value computing one element and a shape op of a computed value of
 * r's lens, with at least one op between: that rule takes the op into
 * those lens and r composes away (reduce_below_reshape waits for it);
 * false where a shape op reads the reduction that reads r. */
bool helper_unit_binary_run_above(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* unit_drop_taken_into_reduction(q): instruction -> bool: reshape q only
 * drops length-1 axes of a reduction read once of a reshape read once that
 * reshape_of_reduce_of_reshape composes q into (the reduction does not
 * move that reshape below itself); a reduction reading q waits for it. */
bool helper_unit_drop_taken_into_reduction(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* reshape_moves_below_reader(q): instruction -> bool: reshape q of a
 * standard value is read only by a reduction that moves it below itself
 * (reduce_below_reshape: its axes map through q, and no other shape op
 * reads q's operand). reshape_of_reduce_of_reshape leaves such a q to
 * that reduction. */
bool helper_reshape_moves_below_reader(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* reduce_moves_below(x_lens, r_lens, axes): ints x3 -> bool: a reduction
 * over `axes` of a reshape from x_lens to r_lens moves the reshape below it
 * (reduce_below_reshape: reduce_axes_through gives a non-empty list). */
bool helper_reduce_moves_below(arena *mem, const rule_value *args, int nargs, rule_value *out);

#endif
