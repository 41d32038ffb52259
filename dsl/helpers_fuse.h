/* helpers_fuse.h: the cost and policy helpers of the fusion rules
 * (rules/fuse.rules). Every fusion decision is a guard in the rule file that
 * calls one of these, so `--trace` and the file say why a region grew; the
 * helpers only measure. They are registered in dsl/helpers.c's table.
 */
#ifndef GRAFT_HELPERS_FUSE_H
#define GRAFT_HELPERS_FUSE_H

#include "api.h"

/* pointwise_kernel(x): instruction -> bool: x is one pointwise kernel, a
 * pointwise op or a fused region whose body holds only pointwise ops and
 * literals. */
bool helper_pointwise_kernel(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* bytes_saved(p, c): instruction, instruction -> int: the memory traffic
 * saved when c is computed in p's kernel: c no longer reads p's values it
 * reads, and a value only c reads is no longer written either. A value
 * others read stays an output of the region, so nothing is recomputed. */
bool helper_bytes_saved(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* recompute_flops(p): instruction -> int: the element operations p costs
 * (its elements times its ops, for a region the sum over its body): what
 * computing p again inside a consumer would cost. */
bool helper_recompute_flops(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* broadcast_factor(x): instruction -> int: for a view that repeats its
 * operand's elements (broadcast, multibroadcast), how many times each is
 * read: elements of x over elements of its operand; 1 otherwise. */
bool helper_broadcast_factor(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* one_kernel(p, c): instruction, instruction -> bool: c reads p (directly,
 * through get_tuple_elem or views) and the two, plain instructions or
 * regions, fit one kernel of the shapes codegen lowers: pointwise (one
 * element count); reduction (one reduction lens, ops per element or per
 * row); contraction (one convolution or dot, a prologue only it reads, an
 * epilogue over its output, terminal reductions of the epilogue). A
 * reduction of a contraction's epilogue never takes consumers of its
 * value: it is an extra output of the contraction's kernel. */
bool helper_one_kernel(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* recomputed_in_kernel(p, r): instruction, instruction -> bool: r holds a
 * convolution or dot and p, a pointwise part only r reads, fits r's
 * kernel as a prologue computed over fewer elements than the contraction
 * reads: each of p's values is computed again wherever r reads it (the
 * rule weighs the cost with recompute_flops and broadcast_factor). */
bool helper_recomputed_in_kernel(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* recompute_cost(p, r): instruction, instruction -> int: recompute_flops(p)
 * times how often r's contraction reads each of p's values (its input's
 * elements over p's): the work recomputing p inside r adds. */
bool helper_recompute_cost(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* contraction_flops(x): instruction -> int: the multiply-add operations (two
 * each) of the convolutions and dots x is or holds; 0 if none. */
bool helper_contraction_flops(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* after_contraction(x): instruction -> bool: x is computed from a
 * convolution's or dot's output by pointwise ops and views alone. */
bool helper_after_contraction(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* tail_into_prologue(p, c): the values of region p that only c reads are a
 * tail over p's reductions (pointwise ops and views reading a reduced
 * value) feeding the data operand of c's one convolution or dot, per
 * element of it or per row: split_tail_into(p, c) makes them c's prologue. */
bool helper_tail_into_prologue(arena *mem, const rule_value *args, int nargs, rule_value *out);
/* split_bytes_saved(p, c): the memory traffic split_tail_into(p, c) saves:
 * the tail's values neither written nor read, less the reductions p then
 * writes and c reads, less p's inputs c then reads too. */
bool helper_split_bytes_saved(arena *mem, const rule_value *args, int nargs, rule_value *out);

#endif
