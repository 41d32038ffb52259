/* kernel_counts.c: counting the kernels a graph lowers to (see
 * kernel_counts.h). */
#include "kernel_counts.h"

#include "concat_in_place.h"

#include <string.h>

/* Element operations of one pointwise op or reduction; 0 for anything else. */
static int64_t flops_of(const ins *i)
{
    unsigned c = i->op->classes;
    if ((c & OPC_POINTWISE) && !shape_is_tuple(&i->sh))
        return shape_elements(&i->sh);
    if ((c & OPC_REDUCE) && i->nargs)
        return shape_elements(&i->args[0]->sh);
    return 0;
}

bool instruction_is_kernel(const ins *i)
{
    unsigned c = i->op->classes;
    if (c & OPC_BUILTIN)
        return false;
    if (i->nmods > 0 || (c & OPC_OPAQUE))
        return true;
    if (c & OPC_VIEW)
        return false;
    if (c & OPC_SHAPE)
        return i->nargs && !shape_standard_p(&i->args[0]->sh);
    return (c & (OPC_COMPUTE | OPC_POINTWISE | OPC_REDUCE | OPC_MOVE | OPC_FILL | OPC_COPY)) != 0;
}

void graph_kernel_counts(const graph *g, kernel_counts *out)
{
    memset(out, 0, sizeof *out);
    module *m = graph_main(g);
    if (!m)
        return;
    /* in-place concats cost nothing: their operands' kernels write them */
    concat_plan *placed = concat_plan_build(m);
    for (ins *i = m->first; i; i = i->next) {
        unsigned c = i->op->classes;
        if (i->nmods > 0)
            for (int k = 0; k < i->nmods; k++)
                for (const ins *b = i->mods[k]->first; b; b = b->next)
                    out->pointwise_flops += flops_of(b);
        else
            out->pointwise_flops += flops_of(i);
        if (!instruction_is_kernel(i))
            continue;
        if (concat_plan_placed(placed, i))
            continue;
        out->kernels++;
        if (i->nmods > 0 || (c & OPC_OPAQUE))
            continue;
        if (c & OPC_SHAPE)
            out->copies++;
        else if (c & OPC_FILL)
            out->fills++;
        else if (c & OPC_COPY)
            out->copies++;
    }
    concat_plan_free(placed);
    graph_kernel_traffic(g, &out->bytes_moved, &out->bytes_lower_bound);
}
