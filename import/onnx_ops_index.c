/* onnx_ops_index.c: GatherElements, GatherND, ScatterElements (and the
 * deprecated Scatter it replaced) and ScatterND, onto graft's gather_elements,
 * gathernd, scatter_<reduction> and scatternd_<reduction> (ops_index.c).
 */
#include "onnx_private.h"

#include <stdio.h>
#include <string.h>

static bool h_gather_elements(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    int axis;
    if (!onnx_normalize_axis(c, onnx_attr_int(c, "axis", 0), in[0]->sh.rank, &axis))
        return false;
    attr a = {"axis", attr_int(axis)};
    return (out[0] = onnx_emit(c, "gather_elements", &a, 1, in, 2)) != NULL;
}

static bool h_gathernd(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    attr a = {"batch_dims", attr_int(onnx_attr_int(c, "batch_dims", 0))};
    return (out[0] = onnx_emit(c, "gathernd", &a, 1, in, 2)) != NULL;
}

/* "scatter_add" etc. from the reduction attribute. */
static bool scatter_op(onnx_ctx *c, const char *prefix, char *buf, size_t size)
{
    char reduction[16];
    onnx_attr_string(c, "reduction", "none", reduction, sizeof reduction);
    static const char *const known[] = {"none", "add", "mul", "min", "max", NULL};
    for (int i = 0; known[i]; i++)
        if (strcmp(known[i], reduction) == 0) {
            snprintf(buf, size, "%s_%s", prefix, reduction);
            return true;
        }
    return onnx_fail(c, "unknown reduction '%s'", reduction);
}

static bool h_scatter_elements(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    char op[32];
    int axis;
    if (!scatter_op(c, "scatter", op, sizeof op) ||
        !onnx_normalize_axis(c, onnx_attr_int(c, "axis", 0), in[0]->sh.rank, &axis))
        return false;
    attr a = {"axis", attr_int(axis)};
    return (out[0] = onnx_emit(c, op, &a, 1, in, 3)) != NULL;
}

static bool h_scatternd(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    char op[32];
    if (!scatter_op(c, "scatternd", op, sizeof op))
        return false;
    return (out[0] = onnx_emit(c, op, NULL, 0, in, 3)) != NULL;
}

static const onnx_op_entry entries[] = {
    {"GatherElements", h_gather_elements, "gather_elements", {NULL}, 2},
    {"GatherND", h_gathernd, "gathernd", {NULL}, 2},
    {"ScatterElements", h_scatter_elements, "scatter_none",
     {"scatter_add", "scatter_mul", "scatter_min", "scatter_max"}, 3},
    {"Scatter", h_scatter_elements, "scatter_none", {NULL}, 3},
    {"ScatterND", h_scatternd, "scatternd_none",
     {"scatternd_add", "scatternd_mul", "scatternd_min", "scatternd_max"}, 3},
};

const onnx_op_table onnx_ops_index = {entries, (int)(sizeof entries / sizeof entries[0])};
