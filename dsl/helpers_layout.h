/* helpers_layout.h: the guard helpers of the placement rules
 * (rules/layout.rules: concats written in place) and of the pads that
 * become read predicates inside a region (the last section of
 * rules/fuse.rules). As with helpers_fuse.h, the decisions are written in
 * the rule files; these only answer questions about the graph. They are
 * registered in dsl/helpers.c's table.
 */
#ifndef GRAFT_HELPERS_LAYOUT_H
#define GRAFT_HELPERS_LAYOUT_H

#include "api.h"

/* concat_in_place_possible(c): instruction -> bool: the kernels computing
 * c's operands can write them straight into slices of c's buffer, and
 * every concat already in place that shares values with c stays so
 * (ops/concat_in_place.h). */
bool helper_concat_in_place_possible(arena *mem, const rule_value *args, int nargs,
                                     rule_value *out);

/* read_predicate(p, c): instruction, instruction -> bool: p is a pad that
 * only c reads, and c evaluates its operands element by element (a
 * pointwise op, or a region of pointwise ops, views, reshapes, pads and
 * reductions), so the pad can become a predicate on c's reads. */
bool helper_read_predicate(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* Whether b, an instruction of a region's body, is only index arithmetic
 * in the region's kernel: a pad (a read predicate), or a layout or
 * contiguous (the format the region stores a value in). The fusion helpers
 * count it as pointwise work. */
bool body_index_only(const ins *b);

#endif
