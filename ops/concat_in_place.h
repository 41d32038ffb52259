/* concat_in_place.h: where values live when concats are written in place.
 *
 * A concat copies its operands into one buffer; a concat marked
 * `in_place=true` (a graft extension attribute, set by rules/layout.rules)
 * asks instead that each operand be written, by the kernel that computes it,
 * straight into its slice of the concat's buffer, so the concat moves no
 * data. This file owns the one answer to "where does each value live?",
 * which the kernel counts (--stats), the rule guard and the lowering
 * (codegen/lower.c, which places the producers) all read:
 *
 *  - a value has a *home* (root, offset): it is stored in root's buffer,
 *    `offset` elements from its start, with root's strides. A root is an
 *    in-place concat that owns a buffer; operand j of an in-place concat C
 *    lives at C's home plus the operand's start along the axis.
 *  - concats nest: an in-place concat that is itself an operand of another
 *    lives in that one's buffer, and so do its operands (densenet's chain of
 *    concats is one buffer); a concat whose operands already lie side by
 *    side, in order, in some buffer is a view of that slice.
 *  - a value can take a home only when a kernel computes it (not a
 *    parameter, literal, view or tuple), the graph's return does not read it,
 *    and root's strides equal its own on every axis longer than 1 (the
 *    value keeps its layout, only its base moves, so views of it stay right).
 *
 * Placement is solved latest concat first. A requested concat whose
 * operands cannot all take their slices is *not placed*: it stays a copying
 * kernel (writing into its own home if it has one). The rule guard
 * (concat_in_place_possible) only marks a concat when every in-place concat
 * connected to it stays placed, so on graphs the rules built every request
 * is placed.
 */
#ifndef GRAFT_CONCAT_IN_PLACE_H
#define GRAFT_CONCAT_IN_PLACE_H

#include "ir.h"

typedef struct concat_plan concat_plan;

/* Whether c is a concat with in_place=true. */
bool concat_in_place_requested(const ins *c);

/* Solves the placement of every in-place concat of module m. NULL only when
 * out of memory. A module without one gives an empty plan. */
concat_plan *concat_plan_build(const module *m);
void concat_plan_free(concat_plan *plan);

/* Whether concat c is placed: it costs no kernel. */
bool concat_plan_placed(const concat_plan *plan, const ins *c);

/* Where v lives: true, with the root whose buffer holds it and its offset
 * there in elements, when v has a home (a root is its own home, offset 0);
 * false when v lives in a buffer of its own as usual. */
bool concat_plan_home(const concat_plan *plan, const ins *v, const ins **root, int64_t *offset);

/* The rule guard: whether marking concat c in place (with the requests
 * already made) leaves c and every in-place concat connected to it placed.
 * Solves only the concats c's placement can touch (those sharing operands
 * with it, reading it or read by it, transitively). */
bool concat_in_place_possible(const ins *c);

#endif
