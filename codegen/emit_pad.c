/* emit_pad.c: a pad inside a fused region is a read predicate, not a kernel.
 *
 * rules/fuse.rules (the "pads as read predicates" section) moves a pad that
 * no convolution or pooling absorbed into the region that reads it, so no
 * kernel fills a padded copy (seed 002). The region's evaluator
 * (emit_pointwise.c) asks for the pad's value at a linear index over the
 * pad's lens; this file answers with index arithmetic: the index is
 * unravelled, each padded axis shifted by its leading pad, and then
 *  - constant mode: a predicate says whether every axis is inside the
 *    operand; the operand is read at the index clamped into range (always a
 *    valid address) and the predicate selects it or the pad value;
 *  - edge mode: each axis is clamped to the operand's first or last element;
 *  - reflect mode: each axis is mirrored about the operand's ends.
 * Axes with no padding keep their index and cost nothing.
 */
#include "cg_emit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool cg_pad_value(cg_pw *c, cg_kgen *g, int indent, const ins *pad, const char *j, char *var,
                  size_t size, const char **ctype)
{
    const shape *ps = &pad->sh, *xs = &pad->args[0]->sh;
    int rank = ps->rank;
    const attr_value *pads = ins_attr(pad, "pads");
    int64_t mode = ins_attr(pad, "mode")->u.i;
    double value = ins_attr(pad, "value")->u.f;
    if (!pads || pads->n != 2 * rank || xs->rank != rank)
        return cg_fail(g, "pad %s: pads do not match its rank", pad->name ? pad->name : "?");
    char base[16];
    cg_fresh(g, base, sizeof base);
    bool predicate = false;
    char index[2048] = "0";
    size_t used = 1;
    for (int d = 0; d < rank; d++) {
        int64_t inner = cg_product(ps->lens, d + 1, rank), len = ps->lens[d], L = xs->lens[d];
        int64_t lead = pads->u.ints[d], trail = pads->u.ints[d + rank];
        if (L == 0)
            return cg_fail(g, "pad %s: an operand axis of length 0", pad->name ? pad->name : "?");
        cg_printf(&g->body, "%*slong long %s_c%d = (long long)(((%s) / %lldull) %% %lldull)", indent,
                  "", base, d, j, (long long)inner, (long long)len);
        if (lead)
            cg_printf(&g->body, " - %lldLL", (long long)lead);
        cg_puts(&g->body, ";\n");
        if (lead || trail) {
            if (mode == 0) {
                if (!predicate)
                    cg_printf(&g->body, "%*sint %s_in = 1;\n", indent, "", base);
                predicate = true;
                cg_printf(&g->body,
                          "%*sif (%s_c%d < 0 || %s_c%d >= %lldLL) { %s_in = 0; %s_c%d = 0; }\n",
                          indent, "", base, d, base, d, (long long)L, base, base, d);
            } else if (mode == 2 || L == 1) {
                cg_printf(&g->body, "%*s%s_c%d = %s_c%d < 0 ? 0 : %s_c%d >= %lldLL ? %lldLL : %s_c%d;\n",
                          indent, "", base, d, base, d, base, d, (long long)L, (long long)(L - 1),
                          base, d);
            } else {
                long long period = 2 * (L - 1);
                cg_printf(&g->body,
                          "%*sif (%s_c%d < 0 || %s_c%d >= %lldLL) { long long m = ((%s_c%d %% %lldLL) "
                          "+ %lldLL) %% %lldLL; %s_c%d = m < %lldLL ? m : %lldLL - m; }\n",
                          indent, "", base, d, base, d, (long long)L, base, d, period, period,
                          period, base, d, (long long)L, period);
            }
        }
        int64_t xinner = cg_product(xs->lens, d + 1, rank);
        int w = snprintf(index + used, sizeof index - used, " + %s_c%d * %lldLL", base, d,
                         (long long)xinner);
        if (w < 0 || (size_t)w >= sizeof index - used)
            return cg_fail(g, "pad %s: index expression too long", pad->name ? pad->name : "?");
        used += (size_t)w;
    }
    char at[32];
    snprintf(at, sizeof at, "%s_j", base);
    cg_printf(&g->body, "%*sconst %s %s = (%s)(%s);\n", indent, "", g->idx, at, g->idx, index);
    char x[32];
    const char *xt;
    if (!cg_pw_value(c, pad->args[0], at, x, sizeof x, &xt))
        return false;
    *ctype = cg_compute_type(ps->type);
    snprintf(var, size, "%s_v", base);
    char lit[48];
    cg_double_literal(value, lit, sizeof lit);
    if (predicate)
        cg_printf(&g->body, "%*sconst %s %s = %s_in ? (%s)%s : (%s)(%s);\n", indent, "", *ctype,
                  var, base, *ctype, x, *ctype, lit);
    else
        cg_printf(&g->body, "%*sconst %s %s = (%s)%s;\n", indent, "", *ctype, var, *ctype, x);
    return true;
}
