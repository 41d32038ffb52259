/* emit_window.c: ops where each output element reads a small window of its
 * input: pooling (average, max, lpnorm; padding, stride, dilation, global
 * windows) and lrn (a window over channels).
 *
 * One thread per output element in a grid-stride loop; the window is a
 * loop nest with constant bounds, and positions outside the input are
 * skipped by a predicate (no padded copy), counted for an average that
 * includes the padding, as the reference executor does.
 */
#include "cg_emit.h"

#include <stdio.h>
#include <string.h>

static int64_t axis_value(const attr_value *v, int d, int64_t dflt)
{
    if (!v || v->n == 0)
        return dflt;
    return v->n == 1 ? v->u.ints[0] : v->n > d ? v->u.ints[d] : dflt;
}

bool cg_emit_pooling(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    g->kind = "pooling";
    const shape *x = &i->args[0]->sh, *o = &i->sh;
    int k = x->rank - 2;
    int64_t mode = ins_attr(i, "mode")->u.i;
    bool include_pad = ins_attr(i, "count_include_pad")->u.i != 0;
    double p = (double)ins_attr(i, "lp_order")->u.i;
    const attr_value *lengths = ins_attr(i, "lengths"), *padding = ins_attr(i, "padding");
    bool global = lengths->n == 0 || ins_attr(i, "dyn_global")->u.i != 0;
    int64_t len[SHAPE_MAX_RANK], stride[SHAPE_MAX_RANK], dil[SHAPE_MAX_RANK];
    int64_t pb[SHAPE_MAX_RANK], pe[SHAPE_MAX_RANK];
    int npad = global ? 0 : padding->n;
    for (int d = 0; d < k; d++) {
        len[d] = global ? x->lens[d + 2] : axis_value(lengths, d, 1);
        stride[d] = global ? 1 : axis_value(ins_attr(i, "stride"), d, 1);
        dil[d] = global ? 1 : axis_value(ins_attr(i, "dilations"), d, 1);
        pb[d] = npad ? padding->u.ints[d] : 0;
        pe[d] = npad == 2 * k ? padding->u.ints[k + d] : pb[d];
    }
    const char *ct = cg_compute_type(x->type);
    if (strcmp(ct, "long long") == 0)
        ct = "double";
    bool dbl = strcmp(ct, "double") == 0;
    cg_text *b = &g->body;
    cg_open_loop(g, shape_elements(o), 256);
    const char *idx[SHAPE_MAX_RANK];
    char names[SHAPE_MAX_RANK][96];
    for (int d = 0; d < 2; d++) {
        int64_t inner = cg_product(o->lens, d + 1, o->rank);
        snprintf(names[d], sizeof names[d], "(i / %lldull) %% %lldull", (long long)inner,
                 (long long)o->lens[d]);
        idx[d] = names[d];
    }
    const char *init = mode == 1 ? (dbl ? "-GRAFT_INF_D" : "-GRAFT_INF") : "0";
    cg_printf(b, "        %s acc = %s;\n        long long inside = 0, padded = 0;\n", ct, init);
    for (int d = 0; d < k; d++) {
        int64_t inner = cg_product(o->lens, d + 3, o->rank);
        cg_printf(b, "%*sconst long long s%d = (long long)((i / %lldull) %% %lldull) * %lldLL - "
                     "%lldLL;\n",
                  8 + 4 * d, "", d, (long long)inner, (long long)o->lens[d + 2],
                  (long long)stride[d], (long long)pb[d]);
        cg_printf(b, "%*sfor (long long w%d = 0; w%d < %lldLL; w%d++) {\n", 8 + 4 * d, "", d, d,
                  (long long)len[d], d);
        cg_printf(b, "%*s    const long long h%d = s%d + w%d * %lldLL;\n", 8 + 4 * d, "", d, d,
                  d, (long long)dil[d]);
        snprintf(names[d + 2], sizeof names[d + 2], "h%d", d);
        idx[d + 2] = names[d + 2];
    }
    int ind = 8 + 4 * k;
    cg_printf(b, "%*sint in_input = 1, in_padded = 1;\n", ind, "");
    for (int d = 0; d < k; d++)
        cg_printf(b,
                  "%*sin_input = in_input && h%d >= 0 && h%d < %lldLL;\n"
                  "%*sin_padded = in_padded && h%d >= %lldLL && h%d < %lldLL;\n",
                  ind, "", d, d, (long long)x->lens[d + 2], ind, "", d, (long long)-pb[d], d,
                  (long long)(x->lens[d + 2] + pe[d]));
    cg_printf(b, "%*spadded += in_padded;\n%*sif (in_input) {\n", ind, "", ind, "");
    char off[1400], el[1500];
    cg_offset_multi(g, &in[0], idx, ind + 4, off, sizeof off);
    cg_element(g, &in[0], off, el, sizeof el);
    cg_printf(b, "%*s    const %s v = (%s)%s;\n%*s    inside++;\n", ind, "", ct, ct, el, ind, "");
    if (mode == 1)
        cg_printf(b, "%*s    acc = (v > acc || v != v) ? v : acc;\n", ind, "");
    else if (mode == 0)
        cg_printf(b, "%*s    acc += v;\n", ind, "");
    else
        cg_printf(b, "%*s    acc += %s(%s(v), (%s)%.17g);\n", ind, "", dbl ? "pow" : "powf",
                  dbl ? "fabs" : "fabsf", ct, p);
    cg_printf(b, "%*s}\n", ind, "");
    for (int d = k - 1; d >= 0; d--)
        cg_printf(b, "%*s}\n", 8 + 4 * d, "");
    if (mode == 0)
        cg_printf(b, "        {\n            const long long divisor = %s;\n"
                     "            acc = divisor ? acc / (%s)divisor : 0;\n        }\n",
                  include_pad ? "padded" : "inside", ct);
    else if (mode == 2)
        cg_printf(b, "        acc = %s(acc, (%s)%.17g);\n", dbl ? "pow" : "powf", ct, 1 / p);
    else
        cg_puts(b, "        (void)padded;\n");
    if (mode != 0)
        cg_puts(b, "        (void)inside;\n");
    char conv[1400];
    cg_offset_linear(g, out, "i", 8, off, sizeof off);
    cg_store_conversion(o->type, ct, "acc", conv, sizeof conv);
    cg_printf(b, "        p%d[%s] = %s;\n    }\n", cg_param(g, out->buffer, true), off, conv);
    return !g->failed;
}

bool cg_emit_lrn(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    g->kind = "lrn";
    const shape *x = &i->args[0]->sh;
    if (x->rank < 2)
        return cg_fail(g, "lrn: input rank must be at least 2");
    double alpha = ins_attr(i, "alpha")->u.f, beta = ins_attr(i, "beta")->u.f;
    double bias = ins_attr(i, "bias")->u.f;
    int64_t size = ins_attr(i, "size")->u.i;
    int64_t channels = x->lens[1], inner = cg_product(x->lens, 2, x->rank);
    int64_t before = (size - 1) / 2, after = size - 1 - before;
    const char *ct = cg_compute_type(x->type);
    if (strcmp(ct, "long long") == 0)
        return cg_fail(g, "not lowered yet: lrn on %s", type_name(x->type));
    bool dbl = strcmp(ct, "double") == 0;
    cg_text *b = &g->body;
    cg_open_loop(g, shape_elements(x), 256);
    cg_printf(b, "        const long long c = (long long)((i / %lldull) %% %lldull);\n",
              (long long)inner, (long long)channels);
    cg_printf(b, "        const long long first = c - %lldLL < 0 ? 0 : c - %lldLL;\n",
              (long long)before, (long long)before);
    cg_printf(b, "        const long long end = c + %lldLL > %lldLL ? %lldLL : c + %lldLL;\n",
              (long long)(after + 1), (long long)channels, (long long)channels,
              (long long)(after + 1));
    cg_printf(b, "        %s sum = 0;\n", ct);
    cg_printf(b, "        for (long long k = first; k < end; k++) {\n");
    char j[256], var[32];
    snprintf(j, sizeof j, "i + (%s)((k - c) * %lldLL)", g->idx, (long long)inner);
    cg_load_linear(g, &in[0], j, ct, 12, var, sizeof var);
    cg_printf(b, "            sum += %s * %s;\n        }\n", var, var);
    cg_load_linear(g, &in[0], "i", ct, 8, var, sizeof var);
    char val[512], conv[1400], off[1400];
    snprintf(val, sizeof val, "%s / %s((%s)%.17g + (%s)%.17g * sum, (%s)%.17g)", var,
             dbl ? "pow" : "powf", ct, bias, ct, alpha / (double)size, ct, beta);
    cg_offset_linear(g, out, "i", 8, off, sizeof off);
    cg_store_conversion(x->type, ct, val, conv, sizeof conv);
    cg_printf(b, "        p%d[%s] = %s;\n    }\n", cg_param(g, out->buffer, true), off, conv);
    return !g->failed;
}
