/* emit_index.c: kernels for the ops whose reads or writes go where index
 * values say, or whose result depends on an order over the data:
 * gather_elements, gathernd, scatter_* and scatternd_* (ops/ops_index.c),
 * prefix_scan_sum and topk_indices (ops_order.c), unique
 * (ops_data_dependent.c), nonmaxsuppression (ops_vision.c) and
 * max_pooling_indices (ops_compute.c).
 *
 * Each kernel follows the reference executor's semantics to the bit
 * (ops/kernels_index.c, kernels_order.c, kernels_data_dependent.c,
 * kernels_vision.c, kernels_pool.c): values that are combined (scatter's add
 * and mul, cumsum) are carried in double for float types and in wrapping
 * 64-bit integers otherwise, and rounded once on store; comparisons (topk,
 * unique, nms, pooling's max) are made in double or int64 as the reference
 * makes them. Where the reference reports an index out of range as an error
 * a kernel cannot: gathers clamp it (as the gather kernel does), scatters
 * skip it (what skip_out_of_bounds asks for).
 *
 * Strategies (docs/codegen.md's kernel table has their cost):
 *  - gathers: one thread per output element;
 *  - scatter_*: one thread per output element, which starts from the data
 *    and walks every update that could land on it in the reference's order
 *    (row-major over the indices), so duplicates combine in that order
 *    without atomics, in one kernel, and no thread writes another's element;
 *  - scatternd_*: the same per output element, after a first kernel with
 *    one thread per slot has chained the index tuples landing on each slot
 *    in order (so an element walks only its own updates);
 *  - prefix_scan_sum and topk_indices: one thread per lane along the axis,
 *    walking it in order (topk selects the next best position k times, so
 *    it needs no scratch memory);
 *  - unique: two kernels, one thread per position along the axis: the
 *    first finds each position's first occurrence (a scratch vector), the
 *    second each position's group, its rank among the groups (sorted or by
 *    first occurrence), the counts and the -1/0 tail;
 *  - nonmaxsuppression: two kernels: one thread per (batch, class) selects
 *    its boxes in order into scratch, then one thread per result row finds
 *    which (batch, class) it belongs to from the counts;
 *  - max_pooling_indices: one thread per output element, its window as a
 *    loop nest.
 */
#include "cg_emit.h"

#include <stdio.h>
#include <string.h>

/* ---- pieces ---- */

/* The type combined values are carried in: double for float types, 64-bit
 * integers otherwise (as the reference executor). */
static const char *exact_type(graft_type t) { return type_is_float(t) ? "double" : "long long"; }

static int normalized_axis(const ins *i, int rank)
{
    int64_t axis = ins_attr(i, "axis")->u.i;
    return (int)(axis < 0 ? axis + rank : axis);
}

/* Opens a grid-stride loop over n work items (the variable i); what says
 * what one item is. */
static void open_loop(cg_kgen *g, int64_t n, unsigned block, const char *what)
{
    cg_printf(&g->body, "    /* one thread per %s: %lld of them */\n", what, (long long)n);
    cg_open_loop(g, n, block);
}

/* Loads access a at the row-major linear index given by expr (any integer
 * expression) into a new variable of type ctype. */
static void load_at(cg_kgen *g, const cg_access *a, const char *expr, const char *ctype,
                    int indent, char *var, size_t size)
{
    char j[700];
    snprintf(j, sizeof j, "(%s)(%s)", g->idx, expr);
    cg_load_linear(g, a, j, ctype, indent, var, size);
}

/* Loads access a at a multi-index into a new variable of type ctype. */
static void load_multi(cg_kgen *g, const cg_access *a, const char *const *idx, const char *ctype,
                       int indent, char *var, size_t size)
{
    char off[1400], el[1500];
    cg_offset_multi(g, a, idx, indent, off, sizeof off);
    cg_element(g, a, off, el, sizeof el);
    cg_fresh(g, var, size);
    cg_printf(&g->body, "%*sconst %s %s = (%s)%s;\n", indent, "", ctype, var, ctype, el);
}

/* The parameter that writes buffer b: one per buffer and kernel. */
static int write_param(cg_kgen *g, int b)
{
    for (int k = 0; k < g->nparams; k++)
        if (g->param_buffer[k] == b && g->param_writes[k])
            return k;
    return cg_param(g, b, true);
}

/* Stores value v (of compute type ct) at linear index expr of out. */
static void store_at(cg_kgen *g, const cg_access *out, graft_type t, const char *expr,
                     const char *ct, const char *v, int indent)
{
    char j[700], off[1400], conv[1400];
    snprintf(j, sizeof j, "(%s)(%s)", g->idx, expr);
    cg_offset_linear(g, out, j, indent, off, sizeof off);
    cg_store_conversion(t, ct, v, conv, sizeof conv);
    cg_printf(&g->body, "%*sp%d[%s] = %s;\n", indent, "", write_param(g, out->buffer), off, conv);
}

/* Declares c<a> = the coordinate on axis a of the row-major index i over
 * lens (long long). */
static void coordinates(cg_kgen *g, const int64_t *lens, int rank, int indent)
{
    for (int a = 0; a < rank; a++) {
        int64_t inner = cg_product(lens, a + 1, rank);
        char e[96];
        if (inner == 1)
            snprintf(e, sizeof e, "i");
        else
            snprintf(e, sizeof e, "(i / %lldull)", (long long)inner);
        if (a == 0) /* i is below the product of all lens */
            cg_printf(&g->body, "%*sconst long long c%d = (long long)%s;\n", indent, "", a, e);
        else
            cg_printf(&g->body, "%*sconst long long c%d = (long long)(%s %% %lldull);\n", indent,
                      "", a, e, (long long)lens[a]);
    }
}

/* Declares `at` = index variable v wrapped (negative counts from the back)
 * and clamped into [0, len). */
static void wrapped_clamped(cg_kgen *g, const char *at, const char *v, int64_t len, int indent)
{
    cg_printf(&g->body, "%*slong long %s = %s < 0 ? %s + %lldLL : %s;\n", indent, "", at, v, v,
              (long long)len, v);
    cg_printf(&g->body, "%*s%s = %s < 0 ? 0 : %s >= %lldLL ? %lldLL : %s;\n", indent, "", at, at,
              at, (long long)len, (long long)(len - 1), at);
}

/* ---- gathers ---- */

bool cg_emit_gather_elements(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    g->kind = "gather_elements";
    const shape *ds = &i->args[0]->sh, *is = &i->args[1]->sh;
    int axis = normalized_axis(i, ds->rank);
    const char *ct = cg_compute_type(i->sh.type);
    open_loop(g, shape_elements(is), 256, "output element");
    coordinates(g, is->lens, is->rank, 8);
    char v[32];
    load_at(g, &in[1], "i", "long long", 8, v, sizeof v);
    wrapped_clamped(g, "at", v, ds->lens[axis], 8);
    char names[SHAPE_MAX_RANK][16];
    const char *idx[SHAPE_MAX_RANK];
    for (int a = 0; a < ds->rank; a++) {
        snprintf(names[a], sizeof names[a], "c%d", a);
        idx[a] = a == axis ? "at" : names[a];
    }
    char x[32];
    load_multi(g, &in[0], idx, ct, 8, x, sizeof x);
    store_at(g, out, i->sh.type, "i", ct, x, 8);
    cg_puts(&g->body, "    }\n");
    return !g->failed;
}

bool cg_emit_gathernd(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    g->kind = "gathernd";
    const shape *ds = &i->args[0]->sh, *is = &i->args[1]->sh;
    int batch = (int)ins_attr(i, "batch_dims")->u.i, q = is->rank;
    int64_t k = is->lens[q - 1];
    if (batch < 0 || k < 1 || batch + k > ds->rank)
        return cg_fail(g, "gathernd: indices do not fit the data");
    int64_t strides[SHAPE_MAX_RANK], inner = cg_product(ds->lens, batch + (int)k, ds->rank);
    int64_t per_batch = cg_product(is->lens, batch, q - 1);
    cg_standard_strides(ds->rank, ds->lens, strides);
    const char *ct = cg_compute_type(i->sh.type);
    open_loop(g, shape_elements(&i->sh), 256, "output element");
    cg_printf(&g->body, "        const long long p = (long long)(i / %lldull), e = (long long)(i %% "
                        "%lldull);\n",
              (long long)inner, (long long)inner);
    cg_printf(&g->body, "        long long at = e;\n");
    if (batch > 0)
        cg_printf(&g->body, "        at += p / %lldLL * %lldLL;\n", (long long)per_batch,
                  (long long)strides[batch - 1]);
    for (int64_t j = 0; j < k; j++) {
        char expr[64], v[32], name[24];
        snprintf(expr, sizeof expr, "p * %lldLL + %lldLL", (long long)k, (long long)j);
        load_at(g, &in[1], expr, "long long", 8, v, sizeof v);
        snprintf(name, sizeof name, "a%lld", (long long)j);
        wrapped_clamped(g, name, v, ds->lens[batch + j], 8);
        cg_printf(&g->body, "        at += %s * %lldLL;\n", name, (long long)strides[batch + j]);
    }
    char x[32];
    load_at(g, &in[0], "at", ct, 8, x, sizeof x);
    store_at(g, out, i->sh.type, "i", ct, x, 8);
    cg_puts(&g->body, "    }\n");
    return !g->failed;
}

/* ---- scatters ---- */

/* acc = acc combined with u as scatter op i combines (its name's suffix),
 * in type ct, as ops/kernels_index.c's combine_f64 and combine_i64. */
static void combine_into(cg_kgen *g, const ins *i, const char *ct, const char *u, int indent)
{
    const char *r = strrchr(i->opname, '_');
    r = r ? r + 1 : "";
    bool f = strcmp(ct, "double") == 0;
    char e[256];
    if (strcmp(r, "add") == 0 || strcmp(r, "mul") == 0) {
        const char *op = r[0] == 'a' ? "+" : "*";
        if (f)
            snprintf(e, sizeof e, "acc %s %s", op, u);
        else /* wrapping, as the reference's uint64 arithmetic */
            snprintf(e, sizeof e, "(long long)((unsigned long long)acc %s (unsigned long long)%s)",
                     op, u);
    } else if (strcmp(r, "min") == 0 || strcmp(r, "max") == 0) {
        const char *cmp = r[1] == 'i' ? "<" : ">";
        if (f) /* a NaN update wins, as in combine_f64 */
            snprintf(e, sizeof e, "(%s %s acc || %s != %s) ? %s : acc", u, cmp, u, u, u);
        else
            snprintf(e, sizeof e, "%s %s acc ? %s : acc", u, cmp, u);
    } else {
        snprintf(e, sizeof e, "%s", u);
    }
    cg_printf(&g->body, "%*sacc = %s;\n", indent, "", e);
}

bool cg_emit_scatter(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    g->kind = "scatter";
    const shape *ds = &i->args[0]->sh, *is = &i->args[1]->sh;
    int axis = normalized_axis(i, ds->rank);
    const char *ct = exact_type(ds->type);
    open_loop(g, shape_elements(ds), 256, "output element, walking the updates on its line");
    coordinates(g, ds->lens, ds->rank, 8);
    char d[32];
    const char *idx[SHAPE_MAX_RANK];
    char names[SHAPE_MAX_RANK][16];
    for (int a = 0; a < ds->rank; a++) {
        snprintf(names[a], sizeof names[a], "c%d", a);
        idx[a] = names[a];
    }
    load_multi(g, &in[0], idx, ct, 8, d, sizeof d);
    cg_printf(&g->body, "        %s acc = %s;\n", ct, d);
    /* the updates on this element's line: the same coordinates off the
     * axis (when the indices reach them), any position along it */
    int reached = 0;
    for (int a = 0; a < ds->rank; a++)
        if (a != axis && is->lens[a] < ds->lens[a])
            cg_printf(&g->body, "%s c%d < %lldLL", reached++ ? " &&" : "        if (", a,
                      (long long)is->lens[a]);
    cg_puts(&g->body, reached ? ") {\n" : "        {\n");
    cg_printf(&g->body, "            for (long long j = 0; j < %lldLL; j++) {\n",
              (long long)is->lens[axis]);
    idx[axis] = "j";
    char v[32], u[32];
    load_multi(g, &in[1], idx, "long long", 16, v, sizeof v);
    cg_printf(&g->body, "                const long long at = %s < 0 ? %s + %lldLL : %s;\n", v, v,
              (long long)ds->lens[axis], v);
    cg_printf(&g->body, "                if (at == c%d) {\n", axis);
    load_multi(g, &in[2], idx, ct, 20, u, sizeof u);
    combine_into(g, i, ct, u, 20);
    cg_puts(&g->body, "                }\n            }\n        }\n");
    store_at(g, out, i->sh.type, "i", ct, "acc", 8);
    cg_puts(&g->body, "    }\n");
    return !g->failed;
}

/* scatternd in two kernels. The first has one thread per slot (a position
 * on the data's first k axes): it walks the P index tuples in order and
 * links those that land on its slot into a chain (head[slot], next[p]),
 * O(P * k) per slot. The second has one thread per output element: it
 * starts from the data element and combines the updates of its slot's
 * chain in order, O(updates landing on it). */
bool cg_emit_scatternd(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    const shape *ds = &i->args[0]->sh, *is = &i->args[1]->sh;
    int q = is->rank;
    int64_t k = is->lens[q - 1];
    if (k < 1 || k > ds->rank)
        return cg_fail(g, "%s: indices do not fit the data", i->opname);
    int64_t inner = cg_product(ds->lens, (int)k, ds->rank), positions = cg_product(is->lens, 0, q - 1);
    int64_t slots = cg_product(ds->lens, 0, (int)k);
    g->npasses = 2;
    int head = cg_scratch_buffer(g, i, 0, GRAFT_INT64, slots > 0 ? slots : 1);
    int next = cg_scratch_buffer(g, i, 1, GRAFT_INT64, positions > 0 ? positions : 1);
    if (head < 0 || next < 0)
        return false;
    const char *ct = exact_type(ds->type);
    if (g->pass == 0) {
        g->kind = "scatternd_chain";
        int h = write_param(g, head), n = write_param(g, next);
        open_loop(g, slots, 64, "slot: the chain of index tuples landing on it, in order");
        cg_printf(&g->body, "        long long prev = -1;\n        p%d[i] = -1;\n", h);
        cg_printf(&g->body, "        for (long long p = 0; p < %lldLL; p++) {\n",
                  (long long)positions);
        cg_puts(&g->body, "            long long slot = 0;\n            int inside = 1;\n");
        for (int64_t j = 0; j < k; j++) {
            char expr[64], v[32];
            snprintf(expr, sizeof expr, "p * %lldLL + %lldLL", (long long)k, (long long)j);
            load_at(g, &in[1], expr, "long long", 12, v, sizeof v);
            int64_t len = ds->lens[j];
            cg_printf(&g->body,
                      "            {\n"
                      "                const long long at = %s < 0 ? %s + %lldLL : %s;\n"
                      "                inside = inside && at >= 0 && at < %lldLL;\n"
                      "                slot = slot * %lldLL + at;\n"
                      "            }\n",
                      v, v, (long long)len, v, (long long)len, (long long)len);
        }
        cg_printf(&g->body,
                  "            if (!inside || slot != (long long)i)\n                continue;\n"
                  "            if (prev < 0)\n                p%d[i] = p;\n"
                  "            else\n                p%d[prev] = p;\n"
                  "            prev = p;\n        }\n"
                  "        if (prev >= 0)\n            p%d[prev] = -1;\n    }\n",
                  h, n, n);
        return !g->failed;
    }
    g->kind = "scatternd";
    int h = cg_param(g, head, false), n = cg_param(g, next, false);
    open_loop(g, shape_elements(ds), 256, "output element, combining its slot's chain in order");
    cg_printf(&g->body, "        const long long s = (long long)(i / %lldull), e = (long long)(i %% "
                        "%lldull);\n",
              (long long)inner, (long long)inner);
    char d[32];
    load_at(g, &in[0], "i", ct, 8, d, sizeof d);
    cg_printf(&g->body, "        %s acc = %s;\n", ct, d);
    cg_printf(&g->body, "        for (long long p = p%d[s]; p >= 0; p = p%d[p]) {\n", h, n);
    char u[32], expr[64];
    snprintf(expr, sizeof expr, "p * %lldLL + e", (long long)inner);
    load_at(g, &in[2], expr, ct, 12, u, sizeof u);
    combine_into(g, i, ct, u, 12);
    cg_puts(&g->body, "        }\n");
    store_at(g, out, i->sh.type, "i", ct, "acc", 8);
    cg_puts(&g->body, "    }\n");
    return !g->failed;
}

/* ---- along one axis ---- */

/* x's lens as [outer, len, inner] around axis. */
static void axis_split(const shape *s, int axis, int64_t *outer, int64_t *len, int64_t *inner)
{
    *outer = cg_product(s->lens, 0, axis);
    *len = s->lens[axis];
    *inner = cg_product(s->lens, axis + 1, s->rank);
}

bool cg_emit_prefix_scan_sum(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    g->kind = "prefix_scan_sum";
    const shape *s = &i->args[0]->sh;
    int axis = normalized_axis(i, s->rank);
    bool exclusive = ins_attr(i, "exclusive")->u.i != 0;
    bool reverse = ins_attr(i, "reverse")->u.i != 0;
    int64_t outer, len, inner;
    axis_split(s, axis, &outer, &len, &inner);
    bool f = type_is_float(s->type);
    const char *ct = exact_type(s->type), *acc_t = f ? "double" : "unsigned long long";
    open_loop(g, outer * inner, 64, "lane along the axis, summing it in order");
    cg_printf(&g->body, "        const long long o = (long long)(i / %lldull), r = (long long)(i %% "
                        "%lldull);\n",
              (long long)inner, (long long)inner);
    cg_printf(&g->body, "        %s acc = 0;\n", acc_t);
    cg_printf(&g->body, "        for (long long step = 0; step < %lldLL; step++) {\n",
              (long long)len);
    char pos[64];
    if (reverse)
        snprintf(pos, sizeof pos, "%lldLL - step", (long long)(len - 1));
    else
        snprintf(pos, sizeof pos, "step");
    cg_printf(&g->body, "            const long long at = (o * %lldLL + (%s)) * %lldLL + r;\n",
              (long long)len, pos, (long long)inner);
    char v[32];
    load_at(g, &in[0], "at", f ? "double" : "unsigned long long", 12, v, sizeof v);
    char sum[96];
    snprintf(sum, sizeof sum, "acc%s%s", exclusive ? "" : " + ", exclusive ? "" : v);
    if (f)
        store_at(g, out, i->sh.type, "at", ct, sum, 12);
    else {
        char as_ll[128];
        snprintf(as_ll, sizeof as_ll, "(long long)(%s)", sum);
        store_at(g, out, i->sh.type, "at", ct, as_ll, 12);
    }
    cg_printf(&g->body, "            acc += %s;\n        }\n    }\n", v);
    return !g->failed;
}

/* "a before b" for topk_indices, as ops/kernels_order.c's ranks_before: a
 * NaN first, then the better value (larger or smaller), then the lower
 * position. */
static void ranks_before(char *out, size_t size, const char *a, const char *pa, const char *b,
                         const char *pb, bool largest)
{
    snprintf(out, size,
             "((%s != %s) != (%s != %s) ? (%s != %s) : (%s == %s && %s != %s) ? (%s %s %s) : "
             "(%s < %s))",
             a, a, b, b, a, a, a, a, a, b, a, largest ? ">" : "<", b, pa, pb);
}

bool cg_emit_topk_indices(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    g->kind = "topk_indices";
    const shape *s = &i->args[0]->sh;
    int axis = normalized_axis(i, s->rank);
    int64_t k = ins_attr(i, "k")->u.i;
    bool largest = ins_attr(i, "largest")->u.i != 0;
    int64_t outer, len, inner;
    axis_split(s, axis, &outer, &len, &inner);
    if (k < 1 || k > len)
        return cg_fail(g, "topk_indices: k %lld does not fit axis %d of length %lld",
                       (long long)k, axis, (long long)len);
    open_loop(g, outer * inner, 64, "lane along the axis, selecting its k best in order");
    cg_printf(&g->body, "        const long long o = (long long)(i / %lldull), r = (long long)(i %% "
                        "%lldull);\n",
              (long long)inner, (long long)inner);
    cg_puts(&g->body, "        double prev = 0;\n        long long prev_at = -1;\n");
    cg_printf(&g->body, "        for (long long rank = 0; rank < %lldLL; rank++) {\n", (long long)k);
    cg_puts(&g->body, "            double best = 0;\n            long long best_at = -1;\n");
    cg_printf(&g->body, "            for (long long j = 0; j < %lldLL; j++) {\n", (long long)len);
    char expr[128], v[32], after[512], better[512];
    snprintf(expr, sizeof expr, "(o * %lldLL + j) * %lldLL + r", (long long)len, (long long)inner);
    load_at(g, &in[0], expr, "double", 16, v, sizeof v);
    /* j must come after the previous pick, and before the best so far */
    ranks_before(after, sizeof after, "prev", "prev_at", v, "j", largest);
    ranks_before(better, sizeof better, v, "j", "best", "best_at", largest);
    cg_printf(&g->body, "                if (prev_at >= 0 && !%s)\n                    continue;\n",
              after);
    cg_printf(&g->body, "                if (best_at < 0 || %s) {\n"
                        "                    best = %s;\n                    best_at = j;\n"
                        "                }\n            }\n",
              better, v);
    snprintf(expr, sizeof expr, "(o * %lldLL + rank) * %lldLL + r", (long long)k, (long long)inner);
    store_at(g, out, i->sh.type, expr, "long long", "best_at", 12);
    cg_puts(&g->body, "            prev = best;\n            prev_at = best_at;\n        }\n    }\n");
    return !g->failed;
}

/* ---- unique ---- */

/* Declares int `c` = how slice a compares with slice b (<0, 0, >0) of x
 * seen as [outer, n, inner], element by element in (outer, inner) order; a
 * NaN equals a NaN and is above every number, as ops/kernels_data_dependent.c
 * compares. */
static void compare_slices(cg_kgen *g, const cg_access *x, graft_type t, int64_t outer, int64_t n,
                           int64_t inner, const char *a, const char *b, const char *c, int indent)
{
    bool f = type_is_float(t);
    const char *ct = exact_type(t);
    cg_printf(&g->body, "%*sint %s = 0;\n", indent, "", c);
    cg_printf(&g->body, "%*sfor (long long m = 0; m < %lldLL && %s == 0; m++) {\n", indent, "",
              (long long)(outer * inner), c);
    char ea[160], eb[160], va[32], vb[32];
    snprintf(ea, sizeof ea, "(m / %lldLL * %lldLL + (%s)) * %lldLL + m %% %lldLL", (long long)inner,
             (long long)n, a, (long long)inner, (long long)inner);
    snprintf(eb, sizeof eb, "(m / %lldLL * %lldLL + (%s)) * %lldLL + m %% %lldLL", (long long)inner,
             (long long)n, b, (long long)inner, (long long)inner);
    load_at(g, x, ea, ct, indent + 4, va, sizeof va);
    load_at(g, x, eb, ct, indent + 4, vb, sizeof vb);
    if (f)
        cg_printf(&g->body,
                  "%*sif (%s != %s || %s != %s)\n"
                  "%*s    %s = (%s != %s) == (%s != %s) ? 0 : %s != %s ? 1 : -1;\n"
                  "%*selse\n",
                  indent + 4, "", va, va, vb, vb, indent + 4, "", c, va, va, vb, vb, va, va,
                  indent + 4, "");
    cg_printf(&g->body, "%*s%s%s = %s < %s ? -1 : %s > %s ? 1 : 0;\n", indent + 4, "",
              f ? "    " : "", c, va, vb, va, vb);
    cg_printf(&g->body, "%*s}\n", indent, "");
}

bool cg_emit_unique(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    const shape *s = &i->args[0]->sh;
    int axis = normalized_axis(i, s->rank);
    bool sorted = ins_attr(i, "sorted")->u.i != 0;
    int64_t outer, n, inner;
    axis_split(s, axis, &outer, &n, &inner);
    g->npasses = 2;
    int firsts = cg_scratch_buffer(g, i, 0, GRAFT_INT64, n > 0 ? n : 1);
    if (firsts < 0)
        return false;
    if (g->pass == 0) {
        g->kind = "unique_first";
        open_loop(g, n, 64, "position along the axis: its slice's first occurrence");
        cg_puts(&g->body, "        long long first = (long long)i;\n");
        cg_puts(&g->body, "        for (long long j = 0; j < (long long)i; j++) {\n");
        compare_slices(g, &in[0], s->type, outer, n, inner, "j", "(long long)i", "c", 12);
        cg_puts(&g->body, "            if (c == 0) {\n                first = j;\n"
                          "                break;\n            }\n        }\n");
        cg_printf(&g->body, "        p%d[i] = first;\n    }\n", write_param(g, firsts));
        return !g->failed;
    }
    g->kind = "unique";
    int f = cg_param(g, firsts, false);
    open_loop(g, n, 64, "position along the axis: its group, rank and count");
    cg_printf(&g->body, "        const long long first = p%d[i];\n", f);
    cg_puts(&g->body, "        long long u = 0, groups = 0, count = 0;\n");
    cg_printf(&g->body, "        for (long long j = 0; j < %lldLL; j++) {\n", (long long)n);
    cg_printf(&g->body, "            const long long fj = p%d[j];\n", f);
    cg_puts(&g->body, "            count += fj == (long long)i;\n");
    cg_puts(&g->body, "            if (fj != j)\n                continue;\n"
                      "            groups++;\n");
    if (sorted) {
        compare_slices(g, &in[0], s->type, outer, n, inner, "j", "first", "c", 12);
        cg_puts(&g->body, "            u += c < 0;\n");
    } else {
        cg_puts(&g->body, "            u += j < first;\n");
    }
    cg_puts(&g->body, "        }\n");
    char expr[64];
    snprintf(expr, sizeof expr, "%lldLL + (long long)i", (long long)n);
    store_at(g, out, GRAFT_INT64, expr, "long long", "u", 8);
    cg_puts(&g->body, "        if (first == (long long)i) {\n");
    store_at(g, out, GRAFT_INT64, "u", "long long", "(long long)i", 12);
    snprintf(expr, sizeof expr, "%lldLL + u", (long long)(2 * n));
    store_at(g, out, GRAFT_INT64, expr, "long long", "count", 12);
    cg_puts(&g->body, "        }\n        if ((long long)i >= groups) {\n");
    store_at(g, out, GRAFT_INT64, "i", "long long", "-1LL", 12);
    snprintf(expr, sizeof expr, "%lldLL + (long long)i", (long long)(2 * n));
    store_at(g, out, GRAFT_INT64, expr, "long long", "0LL", 12);
    cg_puts(&g->body, "        }\n    }\n");
    return !g->failed;
}

/* ---- nonmaxsuppression ---- */

/* Declares doubles NAME0..NAME3 = the corners (ymin, xmin, ymax, xmax) of
 * box `box` of batch b, as ops/kernels_vision.c's nms_corners. */
static void box_corners(cg_kgen *g, const cg_access *boxes, int64_t nbox, bool center,
                        const char *box, const char *name, int indent)
{
    char v[4][32];
    for (int t = 0; t < 4; t++) {
        char expr[128];
        snprintf(expr, sizeof expr, "(b * %lldLL + (%s)) * 4LL + %dLL", (long long)nbox, box, t);
        load_at(g, boxes, expr, "double", indent, v[t], sizeof v[t]);
    }
    const char *I = "";
    if (center)
        cg_printf(&g->body,
                  "%*sconst double %s0 = %s - %s / 2, %s1 = %s - %s / 2, %s2 = %s + %s / 2, "
                  "%s3 = %s + %s / 2;\n",
                  indent, I, name, v[1], v[3], name, v[0], v[2], name, v[1], v[3], name, v[0],
                  v[2]);
    else
        cg_printf(&g->body,
                  "%*sconst double %s0 = %s < %s ? %s : %s, %s1 = %s < %s ? %s : %s,\n"
                  "%*s    %s2 = %s > %s ? %s : %s, %s3 = %s > %s ? %s : %s;\n",
                  indent, I, name, v[0], v[2], v[0], v[2], name, v[1], v[3], v[1], v[3], indent,
                  I, name, v[0], v[2], v[0], v[2], name, v[1], v[3], v[1], v[3]);
}

bool cg_emit_nonmaxsuppression(cg_kgen *g, const ins *i, const cg_access *in,
                               const cg_access *out)
{
    const shape *bs = &i->args[0]->sh, *ss = &i->args[1]->sh;
    int64_t nb = bs->lens[0], nbox = bs->lens[1], ncls = ss->lens[1], pairs = nb * ncls;
    bool center = ins_attr(i, "center_point_box")->u.i != 0;
    g->npasses = 2;
    int chosen = cg_scratch_buffer(g, i, 0, GRAFT_INT64, pairs * nbox > 0 ? pairs * nbox : 1);
    int counts = cg_scratch_buffer(g, i, 1, GRAFT_INT64, pairs > 0 ? pairs : 1);
    if (chosen < 0 || counts < 0)
        return false;
    if (g->pass == 1) {
        g->kind = "nonmaxsuppression";
        int c = cg_param(g, counts, false), sel = cg_param(g, chosen, false);
        open_loop(g, shape_elements(&i->sh) / 3, 64, "result row: which (batch, class) owns it");
        cg_puts(&g->body, "        long long before = 0, pair = -1, at = 0;\n");
        cg_printf(&g->body, "        for (long long w = 0; w < %lldLL; w++) {\n", (long long)pairs);
        cg_printf(&g->body,
                  "            if ((long long)i < before + p%d[w]) {\n"
                  "                pair = w;\n                at = (long long)i - before;\n"
                  "                break;\n            }\n"
                  "            before += p%d[w];\n        }\n",
                  c, c);
        cg_printf(&g->body, "        const long long bi = pair < 0 ? -1 : pair / %lldLL, "
                            "ci = pair < 0 ? -1 : pair %% %lldLL, box = pair < 0 ? -1 : "
                            "p%d[pair * %lldLL + at];\n",
                  (long long)ncls, (long long)ncls, sel, (long long)nbox);
        store_at(g, out, GRAFT_INT64, "(long long)i * 3LL", "long long", "bi", 8);
        store_at(g, out, GRAFT_INT64, "(long long)i * 3LL + 1LL", "long long", "ci", 8);
        store_at(g, out, GRAFT_INT64, "(long long)i * 3LL + 2LL", "long long", "box", 8);
        cg_puts(&g->body, "    }\n");
        return !g->failed;
    }
    g->kind = "nonmaxsuppression_select";
    int sel = write_param(g, chosen), c = write_param(g, counts);
    open_loop(g, pairs, 64, "(batch, class): its boxes, best score first");
    cg_printf(&g->body, "        const long long b = (long long)(i / %lldull), cls = (long long)(i "
                        "%% %lldull);\n",
              (long long)ncls, (long long)ncls);
    char v[32];
    if (i->nargs > 2) {
        load_at(g, &in[2], "0", "long long", 8, v, sizeof v);
        cg_printf(&g->body, "        const long long max_out = %s;\n", v);
    } else {
        cg_puts(&g->body, "        const long long max_out = 0;\n");
    }
    if (i->nargs > 3) {
        load_at(g, &in[3], "0", "double", 8, v, sizeof v);
        cg_printf(&g->body, "        const double iou = %s;\n", v);
    } else {
        cg_puts(&g->body, "        const double iou = 0;\n");
    }
    if (i->nargs > 4) {
        load_at(g, &in[4], "0", "double", 8, v, sizeof v);
        cg_printf(&g->body, "        const double score_min = %s;\n", v);
    }
    cg_puts(&g->body, "        long long taken = 0, prev_at = -1;\n        double prev = 0;\n");
    cg_puts(&g->body, "        while (taken < max_out) {\n");
    /* the next candidate in (score descending, box ascending) order */
    cg_puts(&g->body, "            long long best_at = -1;\n            double best = 0;\n");
    cg_printf(&g->body, "            for (long long s = 0; s < %lldLL; s++) {\n", (long long)nbox);
    char expr[128];
    snprintf(expr, sizeof expr, "(b * %lldLL + cls) * %lldLL + s", (long long)ncls, (long long)nbox);
    load_at(g, &in[1], expr, "double", 16, v, sizeof v);
    if (i->nargs > 4)
        cg_printf(&g->body, "                if (!(%s > score_min))\n                    continue;\n",
                  v);
    cg_printf(&g->body,
              "                if (prev_at >= 0 && !(%s < prev || (%s == prev && s > prev_at)))\n"
              "                    continue;\n"
              "                if (best_at < 0 || %s > best) {\n"
              "                    best = %s;\n                    best_at = s;\n"
              "                }\n            }\n",
              v, v, v, v);
    cg_puts(&g->body, "            if (best_at < 0)\n                break;\n"
                      "            prev = best;\n            prev_at = best_at;\n");
    box_corners(g, &in[0], nbox, center, "best_at", "a", 12);
    cg_puts(&g->body, "            const double area_a = (a2 - a0) * (a3 - a1);\n"
                      "            int keep = 1;\n");
    cg_printf(&g->body, "            for (long long t = 0; t < taken && keep; t++) {\n"
                        "                const long long q = p%d[(long long)i * %lldLL + t];\n",
              sel, (long long)nbox);
    box_corners(g, &in[0], nbox, center, "q", "z", 16);
    cg_puts(&g->body,
            "                const double area_z = (z2 - z0) * (z3 - z1);\n"
            "                const double ih = (a2 < z2 ? a2 : z2) - (a0 > z0 ? a0 : z0);\n"
            "                const double iw = (a3 < z3 ? a3 : z3) - (a1 > z1 ? a1 : z1);\n"
            "                if (area_a <= 0 || area_z <= 0 || ih <= 0 || iw <= 0)\n"
            "                    continue;\n"
            "                const double inter = ih * iw, uni = area_a + area_z - inter;\n"
            "                keep = !(uni > 0 && inter / uni > iou);\n"
            "            }\n"
            "            if (!keep)\n                continue;\n");
    cg_printf(&g->body, "            p%d[(long long)i * %lldLL + taken] = best_at;\n"
                        "            taken++;\n        }\n        p%d[i] = taken;\n    }\n",
              sel, (long long)nbox, c);
    return !g->failed;
}

/* ---- max_pooling_indices ---- */

static int64_t axis_value(const attr_value *v, int d, int64_t dflt)
{
    if (!v || v->n == 0)
        return dflt;
    return v->n == 1 ? v->u.ints[0] : v->n > d ? v->u.ints[d] : dflt;
}

bool cg_emit_max_pooling_indices(cg_kgen *g, const ins *i, const cg_access *in,
                                 const cg_access *out)
{
    g->kind = "max_pooling_indices";
    const shape *x = &i->args[0]->sh, *o = &i->sh;
    int k = x->rank - 2;
    const attr_value *lengths = ins_attr(i, "lengths"), *padding = ins_attr(i, "padding");
    bool global = lengths->n == 0;
    bool column_major = ins_attr(i, "storage_order")->u.i == 1;
    int64_t len[SHAPE_MAX_RANK], stride[SHAPE_MAX_RANK], dil[SHAPE_MAX_RANK], pb[SHAPE_MAX_RANK];
    for (int d = 0; d < k; d++) {
        len[d] = global ? x->lens[d + 2] : axis_value(lengths, d, 1);
        stride[d] = global ? 1 : axis_value(ins_attr(i, "stride"), d, 1);
        dil[d] = global ? 1 : axis_value(ins_attr(i, "dilations"), d, 1);
        pb[d] = global || padding->n == 0 ? 0 : padding->u.ints[d];
    }
    int64_t out_size = cg_product(o->lens, 2, o->rank), in_size = cg_product(x->lens, 2, x->rank);
    cg_text *b = &g->body;
    open_loop(g, shape_elements(o), 256, "output element: its window's first maximum");
    cg_printf(b, "        const long long plane = (long long)(i / %lldull);\n",
              (long long)out_size);
    cg_puts(b, "        double acc = -GRAFT_INF_D;\n        long long picked = -1;\n");
    const char *idx[SHAPE_MAX_RANK];
    char names[SHAPE_MAX_RANK][96];
    for (int d = 0; d < 2; d++) {
        snprintf(names[d], sizeof names[d], "(i / %lldull) %% %lldull",
                 (long long)cg_product(o->lens, d + 1, o->rank), (long long)o->lens[d]);
        idx[d] = names[d];
    }
    for (int d = 0; d < k; d++) {
        int ind = 8 + 4 * d;
        cg_printf(b, "%*sconst long long s%d = (long long)((i / %lldull) %% %lldull) * %lldLL - "
                     "%lldLL;\n",
                  ind, "", d, (long long)cg_product(o->lens, d + 3, o->rank),
                  (long long)o->lens[d + 2], (long long)stride[d], (long long)pb[d]);
        cg_printf(b, "%*sfor (long long w%d = 0; w%d < %lldLL; w%d++) {\n", ind, "", d, d,
                  (long long)len[d], d);
        cg_printf(b, "%*s    const long long h%d = s%d + w%d * %lldLL;\n", ind, "", d, d, d,
                  (long long)dil[d]);
        cg_printf(b, "%*s    if (h%d < 0 || h%d >= %lldLL)\n%*s        continue;\n", ind, "", d, d,
                  (long long)x->lens[d + 2], ind, "");
        snprintf(names[d + 2], sizeof names[d + 2], "h%d", d);
        idx[d + 2] = names[d + 2];
    }
    int ind = 8 + 4 * k;
    char v[32];
    load_multi(g, &in[0], idx, "double", ind, v, sizeof v);
    /* the offset of the position within its plane, row- or column-major */
    cg_printf(b, "%*sif (%s > acc || %s != %s || picked < 0) {\n", ind, "", v, v, v);
    cg_printf(b, "%*s    acc = (%s > acc || %s != %s) ? %s : acc;\n", ind, "", v, v, v, v);
    /* Horner's form, written straight out: ((h0) * L1 + h1) * L2 + h2 for k = 3 */
    cg_printf(b, "%*s    picked = ", ind, "");
    for (int q = 1; q < k; q++)
        cg_puts(b, "(");
    for (int q = 0; q < k; q++) {
        int d = column_major ? k - 1 - q : q;
        if (q == 0)
            cg_printf(b, "h%d", d);
        else
            cg_printf(b, ") * %lldLL + h%d", (long long)x->lens[d + 2], d);
    }
    if (k == 0)
        cg_puts(b, "0");
    cg_printf(b, ";\n%*s}\n", ind, "");
    for (int d = k - 1; d >= 0; d--)
        cg_printf(b, "%*s}\n", 8 + 4 * d, "");
    char val[128];
    snprintf(val, sizeof val, "picked < 0 ? -1LL : plane * %lldLL + picked", (long long)in_size);
    store_at(g, out, i->sh.type, "i", "long long", val, 8);
    cg_puts(b, "    }\n");
    return !g->failed;
}
