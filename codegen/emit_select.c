/* emit_select.c: the kernel of an `if`, which lower.c lowers by running
 * both branches' kernels and then selecting: this kernel reads the
 * condition once per thread and copies each result of the branch it names
 * into the if's output buffers, one grid-stride loop per result.
 *
 * Selecting on the device keeps the launch plan a fixed list (no host read
 * of the condition, which on a GPU would wait for every kernel before it);
 * the price is that the branch not taken runs too, which is small next to
 * the graph for the branches ONNX exporters write (shape and constant
 * logic).
 */
#include "cg_emit.h"

#include <stdio.h>

bool cg_emit_select(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out,
                    int nout)
{
    g->kind = "select";
    cg_text *b = &g->body;
    int64_t most = 1;
    for (int k = 0; k < nout; k++) {
        const shape *sh = shape_is_tuple(&i->sh) ? &i->sh.tuple[k] : &i->sh;
        if (shape_elements(sh) > most)
            most = shape_elements(sh);
    }
    g->block = 256;
    g->grid = cg_grid_for(most, g->block);
    char off[1400], el[1500], conv[1600];
    cg_offset_linear(g, &in[0], "0u", 4, off, sizeof off);
    cg_element(g, &in[0], off, el, sizeof el);
    cg_printf(b, "    const int take_then = (%s) != 0;\n", el);
    for (int k = 0; k < nout; k++) {
        const shape *sh = shape_is_tuple(&i->sh) ? &i->sh.tuple[k] : &i->sh;
        const char *ct = cg_compute_type(sh->type);
        cg_grid_stride_loop(g, shape_elements(sh));
        char then_v[32], else_v[32];
        int op = cg_param(g, out[k].buffer, true);
        cg_puts(b, "        if (take_then) {\n");
        cg_load_linear(g, &in[1 + k], "i", ct, 12, then_v, sizeof then_v);
        cg_offset_linear(g, &out[k], "i", 12, off, sizeof off);
        cg_store_conversion(sh->type, ct, then_v, conv, sizeof conv);
        cg_printf(b, "            p%d[%s] = %s;\n        } else {\n", op, off, conv);
        cg_load_linear(g, &in[1 + nout + k], "i", ct, 12, else_v, sizeof else_v);
        cg_offset_linear(g, &out[k], "i", 12, off, sizeof off);
        cg_store_conversion(sh->type, ct, else_v, conv, sizeof conv);
        cg_printf(b, "            p%d[%s] = %s;\n        }\n    }\n", op, off, conv);
    }
    return !g->failed;
}
