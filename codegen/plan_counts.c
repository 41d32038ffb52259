/* plan_counts.c: what a lowered program launches and moves.
 *
 * The launch plan (cg_program) is the one source of kernel counts: `graft
 * opt --stats` and the codegen bench read them from here whenever the graph
 * lowers, so that a split reduction counts as the kernels it really runs and
 * a placed concat as none. The counts never look at the kernel source; they
 * read each kernel's argument buffers and the instruction it lowers
 * (codegen.h says exactly what each figure counts).
 */
#include "codegen.h"

#include <stdlib.h>
#include <string.h>

int64_t cg_kernel_bytes(const cg_program *p, const cg_kernel *k)
{
    int64_t bytes = 0;
    for (int a = 0; a < k->nargs; a++) {
        bool seen = false;
        for (int e = 0; e < a && !seen; e++)
            seen = k->args[e] == k->args[a];
        if (!seen && k->args[a] >= 0 && k->args[a] < p->nbuffers)
            bytes += (int64_t)p->buffers[k->args[a]].bytes;
    }
    return bytes;
}

/* The multiply-adds of one dot or convolution instruction; 0 for others. */
static int64_t product_macs(const ins *i)
{
    bool conv = ins_is(i, "convolution") || ins_is(i, "quant_convolution");
    bool dot = ins_is(i, "dot") || ins_is(i, "quant_dot");
    if ((!conv && !dot) || i->nargs < 2 || shape_is_tuple(&i->sh))
        return 0;
    int64_t out = shape_elements(&i->sh);
    const shape *a = &i->args[0]->sh, *w = &i->args[1]->sh;
    int64_t per = 1;
    if (dot) {
        per = a->rank ? a->lens[a->rank - 1] : 1;
    } else {
        for (int d = 1; d < w->rank; d++)
            per *= w->lens[d];
    }
    return out * per;
}

int64_t cg_kernel_flops(const cg_kernel *k)
{
    const ins *i = k->ins;
    if (!i)
        return 0;
    int64_t macs = product_macs(i);
    for (int m = 0; m < i->nmods; m++)
        for (const ins *b = i->mods[m]->first; b; b = b->next)
            macs += product_macs(b);
    return 2 * macs;
}

void cg_program_counts(const cg_program *p, cg_counts *out)
{
    memset(out, 0, sizeof *out);
    for (int n = 0; n < p->nkernels; n++) {
        const cg_kernel *k = &p->kernels[n];
        int64_t bytes = cg_kernel_bytes(p, k);
        out->kernels++;
        out->bytes_moved += bytes;
        const ins *i = k->ins;
        if (i && i->nmods == 0) {
            unsigned c = i->op->classes;
            if (c & OPC_FILL)
                out->fills++;
            else if (c & (OPC_COPY | OPC_SHAPE))
                out->copies++;
        }
        int64_t flops = cg_kernel_flops(k);
        if (flops > 0) {
            out->gemm_kernels++;
            out->gemm_flops += flops;
            out->gemm_bytes += bytes;
        }
    }
}

bool cg_graph_counts(const graph *g, cg_counts *out, graft_error *err)
{
    memset(out, 0, sizeof *out);
    const module *m = g ? graph_main(g) : NULL;
    size_t n = 0;
    for (const ins *i = m ? m->first : NULL; i; i = i->next)
        n++;
    if (n > CG_COUNTS_MAX_INSTRUCTIONS)
        return error_set(err, "%zu instructions, over the %d lowered for counting", n,
                         CG_COUNTS_MAX_INSTRUCTIONS);
    cg_program *p = cg_lower_sourceless(g, err);
    if (!p)
        return false;
    cg_program_counts(p, out);
    cg_program_free(p);
    return true;
}
