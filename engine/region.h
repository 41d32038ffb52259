/* region.h: outlining instructions into a fused region.
 *
 * Outlining takes a set of instructions of one module (the members) and the
 * members whose values are needed outside (the outputs), and makes the
 * region that computes them: a new module, the body, holds a copy of the
 * members in program order, one @param x0, x1, ... per distinct operand that
 * comes from outside the members (the inputs, in order of first use) and an
 * @return of the outputs' copies; a `fused` instruction (ops/ops_region.c)
 * whose operands are the inputs runs the body in the members' module. With
 * one output the region's value stands for it; with several the region is
 * tuple-valued and a get_tuple_elem[index=k] per output follows it.
 *
 * Invariants the functions below keep:
 *  - the members are left alone: outlining copies them, and only
 *    region_take_over_uses changes who reads an output; a member that still
 *    has users afterwards keeps computing its value;
 *  - the region instruction is placed after every input and before every
 *    user of an output outside the members, so the module stays in a valid
 *    order (planning fails when no such place exists);
 *  - a member can be copied: it is a live instruction of the module, not a
 *    parameter, not opaque, not itself a region and not tuple-valued
 *    (literals are copied with their data).
 *
 * The steps are apart so that a caller can make the body module its own way
 * and log what was made (the rewrite transactions of engine/rewrite.c do:
 * rw_region, rw_replace_region): plan (checks, changes nothing), make an
 * empty body module, outline into it, then let the region take over the
 * outputs' uses.
 */
#ifndef GRAFT_REGION_H
#define GRAFT_REGION_H

#include "ir.h"

#include <stdbool.h>

typedef struct region_plan {
    module *mod;          /* the members' module, where the region goes */
    ins **members;        /* distinct, in program order */
    int nmembers;
    ins **inputs;         /* operands from outside the members, distinct, in
                             order of first use: the body's x0, x1, ... */
    int ninputs;
    ins *const *outputs;  /* as given to region_plan_members (not copied) */
    int noutputs;
    ins *pos;             /* the region instruction goes just before this */
} region_plan;

/* Plans the region of `members` (instructions of before's module, any order,
 * duplicates ignored) whose values `outputs` (members) leave it, placed just
 * before `before`, or earlier when a user of an output outside the members
 * comes first. False, with nothing to free, when there is no such region: a
 * member cannot be copied (see above) or is in another module; an output is
 * not a member, or no output has a user outside the members; or no position
 * is after every input and before every outside user. Changes nothing in
 * the graph. Release a plan with region_plan_free. */
bool region_plan_members(region_plan *p, ins *before, ins *const *members, int nmembers,
                         ins *const *outputs, int noutputs);
void region_plan_free(region_plan *p);

/* Adds an empty module named "<parent>:fusedN" to g for a region body, N
 * the first number from *next_index up that no module of g has taken;
 * *next_index moves past it. NULL when the module cannot be made. */
module *region_add_body_module(graph *g, const module *parent, int *next_index);

/* Outlines a planned region into body (an empty module of the same graph):
 * copies the members into it, inserts the `fused` instruction before
 * p->pos and, with several outputs, a get_tuple_elem per output after it.
 * replacements[k] (p->noutputs entries) receives the value that stands for
 * outputs[k]: the region itself for one output, else the k-th
 * get_tuple_elem. Returns the region instruction. NULL when a copy or an
 * instruction cannot be made; what it inserted into p->mod is then removed
 * again, and body (with whatever was copied into it) is the caller's to take
 * out of the graph. No use changes yet. */
/* Inserts a `fused` instruction reading inputs, with body as its submodule,
 * at pos in mod, and for a region of several outputs one get_tuple_elem per
 * output after it. replacements (noutputs entries) gets what stands for
 * each output: the region itself when it has one, else its tuple reads.
 * NULL (nothing inserted) when an instruction cannot be built. Outlining and
 * region merging (region_merge.h) both end here. */
ins *region_insert(module *mod, ins *pos, ins *const *inputs, int ninputs, module *body,
                   int noutputs, ins **replacements);
ins *region_outline(const region_plan *p, module *body, ins **replacements);

/* Every use of outputs[k] by an instruction that is neither one of members
 * nor replacements[k] becomes a use of replacements[k], in the order the
 * users are found (so replacements[k]->users lists them in that order when
 * it had none before). Members are not erased: the caller erases those that
 * are dead now. */
void region_take_over_uses(ins *const *members, int nmembers, ins *const *outputs,
                           ins *const *replacements, int noutputs);

#endif
