/* onnx_ops_data_dependent.c: Unique and NonZero, the ONNX ops whose result
 * length depends on the values of their input, onto graft's unique and
 * nonzero (ops/ops_data_dependent.c).
 *
 * graft's shapes are static. As for NonMaxSuppression (onnx_ops_vision.c),
 * the importer needs the input's values (a constant, or a graph input whose
 * value it was given, see onnx_options.known_*): it runs the op on them once
 * (onnx_evaluate) to read the result's length, and the graph keeps the op in
 * its static form (as long as the longest possible result, the rest marked)
 * followed by a slice to that length. The graph then computes the result
 * from whatever values reach it at run time, with the length fixed at
 * import: inputs with another number of distinct values or nonzero elements
 * need a new import. An input whose values are not known at import is
 * refused as unsupported, with that reason.
 */
#include "onnx_private.h"

#include <stdlib.h>

/* The first `count` entries of row `row` of a [rows, N] int64 table, as a
 * standard 1-D tensor. */
static ins *table_row(onnx_ctx *c, ins *table, int64_t row, int64_t count)
{
    int64_t axes[2] = {0, 1}, starts[2] = {row, 0}, ends[2] = {row + 1, count};
    attr a[3] = {{"axes", attr_ints(axes, 2)}, {"starts", attr_ints(starts, 2)},
                 {"ends", attr_ints(ends, 2)}};
    ins *r = onnx_emit(c, "slice", a, 3, &table, 1);
    int64_t lens[1] = {count};
    return onnx_reshape(c, r, 1, lens);
}

static bool h_unique(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nin;
    ins *x = in[0];
    int axis = 0;
    if (onnx_attr(c, "axis")) {
        if (!onnx_normalize_axis(c, onnx_attr_int(c, "axis", 0), x->sh.rank, &axis))
            return false;
    } else {
        /* no axis: the distinct elements of the flattened input */
        int64_t all = shape_elements(&x->sh);
        if (!(x = onnx_reshape(c, x, 1, &all)))
            return false;
    }
    attr a[2] = {{"axis", attr_int(axis)},
                 {"sorted", attr_bool(onnx_attr_int(c, "sorted", 1) != 0)}};
    static const char *const what[] = {"the input (Unique's result length depends on its values)"};
    tensor t;
    if (!onnx_evaluate(c, "unique", a, 2, &x, what, 1, &t))
        return false;
    int64_t n = t.sh.lens[1], distinct = 0;
    while (distinct < n && tensor_get_i64(&t, distinct) >= 0)
        distinct++;
    free(t.data);
    ins *table = onnx_emit(c, "unique", a, 2, &x, 1);
    if (!table)
        return false;
    ins *first = table_row(c, table, 0, distinct);
    attr ga = {"axis", attr_int(axis)};
    ins *gargs[2] = {x, first};
    out[0] = onnx_emit(c, "gather", &ga, 1, gargs, 2);
    if (nout > 1)
        out[1] = first;
    if (nout > 2)
        out[2] = table_row(c, table, 1, n);
    if (nout > 3)
        out[3] = table_row(c, table, 2, distinct);
    for (int k = 0; k < nout && k < 4; k++)
        if (!out[k])
            return false;
    return true;
}

static bool h_nonzero(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nin;
    (void)nout;
    ins *x = in[0];
    static const char *const what[] = {"the input (NonZero's result length depends on its values)"};
    tensor t;
    if (!onnx_evaluate(c, "nonzero", NULL, 0, &x, what, 1, &t))
        return false;
    int64_t n = t.sh.lens[1], found = 0;
    while (found < n && tensor_get_i64(&t, found) >= 0)
        found++;
    free(t.data);
    ins *y = onnx_emit(c, "nonzero", NULL, 0, &x, 1);
    if (y && found < n) {
        int64_t axis = 1, start = 0;
        attr s[3] = {{"axes", attr_ints(&axis, 1)}, {"starts", attr_ints(&start, 1)},
                     {"ends", attr_ints(&found, 1)}};
        y = onnx_emit1(c, "contiguous", onnx_emit(c, "slice", s, 3, &y, 1));
    }
    return (out[0] = y) != NULL;
}

static const onnx_op_entry entries[] = {
    {"Unique", h_unique, "unique", {"slice", "gather", "reshape"}, 1},
    {"NonZero", h_nonzero, "nonzero", {"slice", "contiguous"}, 1},
};

const onnx_op_table onnx_ops_data_dependent = {entries,
                                               (int)(sizeof entries / sizeof entries[0])};
