/* region_merge.h: growing fused regions by merging.
 *
 * region.h outlines a fixed set of plain instructions. Fusion rules grow
 * regions one step at a time instead: a region absorbs a producer, absorbs a
 * consumer, or merges with a sibling region. All three are one operation on
 * "parts": a set of instructions of one module, each either a plain
 * instruction that region.h could outline or a `fused` region, becomes one
 * new region whose body is the parts' computations inlined in program order
 * (a region part contributes the instructions of its body, its @params read
 * what the region's operands were). What a caller does not have to say, the
 * plan works out from the graph:
 *  - the inside: the parts plus the get_tuple_elem readers of multi-output
 *    region parts (they disappear with their region);
 *  - the inputs: values read by the inside that come from outside it, in
 *    order of first use (the new body's x0, x1, ...);
 *  - the outputs: every value of the inside (a plain part, a single-output
 *    region part, a get_tuple_elem) that something outside still reads, in
 *    program order. A value only the inside reads becomes internal; a member
 *    an outside user still reads becomes an output, so nothing is computed
 *    twice and no part stays alive beside the region.
 *
 * Legality is checked here, once, for every rule form: merging must never
 * create a cycle, that is, a path outside the parts from a value the region
 * yields back to a value it reads (region_merge_cycle). Then the region must
 * have a place in the module's order after every input and before every
 * outside user of an output; with no cycle such a place may still be missing
 * when unrelated instructions sit in between, and the merge is then refused
 * too (graft does not reorder the module to make room).
 */
#ifndef GRAFT_REGION_MERGE_H
#define GRAFT_REGION_MERGE_H

#include "ir.h"

#include <stdbool.h>

typedef enum region_merge_status {
    MERGE_OK = 0,
    MERGE_BAD_PART,     /* not a live copyable instruction or region of one module */
    MERGE_NO_OUTPUT,    /* nothing outside reads any value of the parts */
    MERGE_CYCLE,        /* an outside path from an output back to an input */
    MERGE_NO_POSITION,  /* no place after every input and before every outside user */
    MERGE_ONE_PART,     /* several parts named, all one instruction: nothing to merge */
    MERGE_NO_MEMORY,
} region_merge_status;

typedef struct region_merge_plan {
    module *mod;
    ins **parts;     /* distinct, program order */
    int nparts;
    ins **inside;    /* parts and the get_tuple_elem readers of region parts, program order */
    int ninside;
    ins **inputs;    /* values from outside the inside, in order of first use */
    int ninputs;
    ins **outputs;   /* values of the inside read outside it, program order */
    int noutputs;
    ins *pos;        /* the new region goes just before this */
} region_merge_plan;

/* Plans merging `parts` (any order, duplicates ignored). Changes nothing in
 * the graph. On anything but MERGE_OK there is nothing to free. */
region_merge_status region_merge_plan_make(region_merge_plan *p, ins *const *parts, int nparts);
void region_merge_plan_free(region_merge_plan *p);

/* Whether some value in outputs has a user outside `inside` from which a
 * path of instructions outside `inside` reaches one of `inputs`. Only
 * instructions not after the last input in program order are visited, so
 * the walk is bounded by the stretch of the module the region spans. */
bool region_merge_cycle(ins *const *inside, int ninside, ins *const *inputs, int ninputs,
                        ins *const *outputs, int noutputs);

/* Fills body (an empty module of the same graph) with the merged
 * computation, inserts the `fused` instruction before p->pos and, with
 * several outputs, a get_tuple_elem per output after it. replacements[k]
 * (p->noutputs entries) receives the value standing for p->outputs[k].
 * Returns the region, or NULL (what it inserted into p->mod removed again;
 * body is the caller's to take out of the graph). No use changes yet: then
 * call region_take_over_uses(p->inside, ..., p->outputs, replacements, ...)
 * and erase the inside, which is dead afterwards. */
ins *region_merge_outline(const region_merge_plan *p, module *body, ins **replacements);

/* A short name for a status, for traces and tests. */
const char *region_merge_status_name(region_merge_status s);

#endif
