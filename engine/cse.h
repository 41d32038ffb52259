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

/* Whether cse_run can be skipped, told one instruction at a time: a walk
 * that offers cse_probe_next every instruction of a one-module graph in program
 * order, with the graph unchanged until cse_run would run, leaves
 * `maybe` false only when no two instructions are the same expression, so
 * that cse_run would merge nothing (the driver's last sweep, which changed
 * nothing, is such a walk: driver_result.cse_clean). It looks for a twin
 * the way cse_run does, among the other readers of the first operand, and
 * gives up (maybe) where cse_run would use its table: a first operand read
 * more than a few times, a second literal. Start from {0}. */
typedef struct cse_probe {
    int nullary;   /* mergeable instructions without operands (literals) seen */
    bool maybe;    /* a twin may exist: run cse_run */
} cse_probe;
void cse_probe_ins(cse_probe *p, const ins *i);

/* cse_probe_ins, with the common case in line: an instruction whose first
 * operand has no other reader has no twin. */
static inline void cse_probe_next(cse_probe *p, const ins *i)
{
    if (!p->maybe && !(i->nargs && i->args[0]->nusers == 1))
        cse_probe_ins(p, i);
}

#endif
