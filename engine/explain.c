/* explain.c: `graft opt --explain RULE` over a graph at a fixpoint (see
 * explain.h): walks the instructions outside region bodies, asks the rule
 * set's explain function about each, and formats one record per
 * instruction tried.
 */
#include "explain.h"

#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bodies of g's `fused` instructions (rules never run there), in one
 * walk; malloc'd, NULL when there are none or no memory (*n says which:
 * -1 for no memory). */
static const module **region_bodies(const graph *g, int *n)
{
    *n = 0;
    if (g->nmodules <= 1)
        return NULL;
    const module **bodies = malloc(sizeof *bodies * (size_t)g->nmodules);
    if (!bodies) {
        *n = -1;
        return NULL;
    }
    for (const module *o = g->first_module; o; o = o->next)
        for (const ins *i = o->first; i; i = i->next)
            if ((i->op->classes & OPC_REGION) && i->nmods == 1 && *n < g->nmodules)
                bodies[(*n)++] = i->mods[0];
    return bodies;
}

static bool is_in(const module *const *list, int n, const module *m)
{
    for (int k = 0; k < n; k++)
        if (list[k] == m)
            return true;
    return false;
}

/* The instruction a test looked at: root, then operand path[0], ... */
static const ins *at_path(const ins *root, const rule_explanation *x)
{
    const ins *i = root;
    for (int d = 0; d < x->depth && d < (int)sizeof x->path; d++) {
        if (x->path[d] >= i->nargs)
            return NULL;
        i = i->args[x->path[d]];
    }
    return i;
}

static void explain_one(const rule_set *s, int k, const ins *i, const rule_explanation *x,
                        int verdict, driver_trace_fn out, void *ctx)
{
    const rule_info *r = &s->rules[k];
    char label[64], line[1024];
    driver_format_ins(i, line, sizeof line);
    strbuf b = {0};
    const char *name = i->name ? i->name : "?";
    if (!i->name) {
        snprintf(label, sizeof label, "%%%u", i->id);
        name = label;
    }
    strbuf_appendf(&b, "explain %s (%s:%d) [%s] at %s (%s): ", r->name, r->file ? r->file : "?",
                   r->line, s->name, name, i->opname ? i->opname : i->op->name);
    if (verdict == RULE_EXPLAIN_MATCHED)
        strbuf_appendf(&b, "the pattern and every guard hold, but at %s:%d:%d %s\n",
                       r->file ? r->file : "?", x->line, x->col, x->wants);
    else
        strbuf_appendf(&b, "%s:%d:%d: failed %s%s: %s\n", r->file ? r->file : "?", x->line,
                       x->col, x->part,
                       strcmp(x->part, "guard") == 0 || strcmp(x->part, "let") == 0 ? "" : " test",
                       x->wants);
    const ins *seen = verdict == RULE_EXPLAIN_MATCHED ? NULL : at_path(i, x);
    strbuf_appendf(&b, "  - %s\n", line);
    if (seen && seen != i) {
        driver_format_ins(seen, line, sizeof line);
        strbuf_appendf(&b, "  found %s\n", line);
    }
    char *text = strbuf_take(&b, NULL);
    if (text)
        out(ctx, text);
    free(text);
}

void explain_rule(graph *g, const rule_set *const *sets, int nsets, const char *rule,
                  driver_trace_fn out, void *ctx, explain_counts *counts)
{
    /* The generated code reaches the graph's arena through a rewriter (its
     * guards' helpers allocate there); nothing else of it is used. */
    rewriter *rw = driver_explain_rewriter(g);
    int nbodies;
    const module **bodies = region_bodies(g, &nbodies);
    if (!rw || nbodies < 0) {
        free(rw);
        return;
    }
    for (int si = 0; si < nsets; si++) {
        const rule_set *s = sets[si];
        if (!s->explain)
            continue;
        for (int k = 0; k < s->nrules; k++) {
            if (strcmp(s->rules[k].name, rule) != 0)
                continue;
            for (module *m = g->first_module; m; m = m->next) {
                if (is_in(bodies, nbodies, m))
                    continue;
                for (ins *i = m->first; i; i = i->next) {
                    if (i->flags & INS_REMOVED)
                        continue;
                    rule_explanation x;
                    memset(&x, 0, sizeof x);
                    int verdict = s->explain(rw, i, k, &x);
                    if (verdict == RULE_EXPLAIN_NOT_TRIED)
                        continue;
                    counts->tried++;
                    if (verdict == RULE_EXPLAIN_MATCHED)
                        counts->matched++;
                    else
                        counts->failed++;
                    explain_one(s, k, i, &x, verdict, out, ctx);
                }
            }
        }
    }
    free(bodies);
    free(rw);
}
