/* dce.c: dead code elimination (see dce.h). One walk per module from the
 * last instruction to the first: users come after their operands, so by the
 * time an instruction is looked at every user it had has been looked at (and
 * erased if dead), and one walk suffices. Modules no live instruction
 * refers to any more (bodies of erased regions) are unlinked at the end.
 */
#include "dce.h"

size_t dce_run(graph *g)
{
    size_t erased = 0;
    for (module *m = g->first_module; m; m = m->next) {
        for (ins *i = m->last, *prev; i; i = prev) {
            prev = i->prev;
            ins_prefetch_behind(i);
            if (ins_is_dead(i)) {
                module_remove(i);
                erased++;
            }
        }
    }
    /* Bodies of regions erased above are dead code too. */
    graph_prune_modules(g);
    return erased;
}
