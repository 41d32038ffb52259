/* cse.h: common subexpression elimination.
 *
 * Two instructions are the same expression when they have the same op, the
 * same attributes, the same operands (the same instructions, in the same
 * order), the same submodules and the same shape; two literals are the same
 * when their shapes and bytes are equal, but for the strides of length-1
 * axes. The later one's users read the earlier one and the later one is
 * erased; where the two shapes differ (literals, in unit-axis strides only)
 * the users read it through a pending_shape_change and the lazy shape pass
 * (shapes_resolve, run before cse_run returns) recomputes their shapes, so
 * every recorded shape stays exactly what its shape rule computes. Parameters, @return and opaque
 * ops (whose effects graft cannot know) are never merged. The result is
 * deterministic: the first occurrence in program order survives.
 */
#ifndef GRAFT_CSE_H
#define GRAFT_CSE_H

#include "ir.h"

#include <stddef.h>

/* Merges common subexpressions in every module; *merged (may be NULL) gets
 * how many instructions were erased. False only when memory runs out. */
bool cse_run(graph *g, size_t *merged, graft_error *err);

#endif
