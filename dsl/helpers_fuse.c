/* helpers_fuse.c: cost and policy helpers of the fusion rules (see
 * helpers_fuse.h). They read the graph and return numbers or answers; the
 * decisions that use them are written in rules/fuse.rules. */
#include "helpers_fuse.h"
#include "helpers_layout.h"

#include "ir.h"

static bool is_region(const ins *i) { return (i->op->classes & OPC_REGION) && i->nmods == 1; }

static int64_t elements(const ins *i) { return shape_is_tuple(&i->sh) ? 0 : (int64_t)shape_elements(&i->sh); }

static int64_t bytes(const ins *i) { return shape_is_tuple(&i->sh) ? 0 : (int64_t)shape_bytes(&i->sh); }

bool helper_pointwise_kernel(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *x = a[0].u.in;
    bool ok = (x->op->classes & OPC_POINTWISE) && !x->nmods;
    if (is_region(x)) {
        ok = true;
        for (const ins *i = x->mods[0]->first; ok && i; i = i->next)
            ok = ((i->op->classes & (OPC_POINTWISE | OPC_BUILTIN)) || body_index_only(i)) && !i->nmods;
    }
    *out = rule_bool(ok);
    return true;
}

/* Whether every use of v is by c. */
static bool only_read_by(const ins *v, const ins *c)
{
    for (int u = 0; u < v->nusers; u++)
        if (v->users[u] != c)
            return false;
    return true;
}

bool helper_bytes_saved(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *p = a[0].u.in, *c = a[1].u.in;
    int64_t saved = 0;
    for (int k = 0; k < c->nargs; k++) {
        const ins *v = c->args[k];
        bool of_p = v == p || (ins_is(v, "get_tuple_elem") && v->nargs == 1 && v->args[0] == p);
        bool first = true; /* count each value once, however often c reads it */
        for (int j = 0; j < k; j++)
            first = first && c->args[j] != v;
        if (!of_p || !first)
            continue;
        saved += bytes(v);
        if (only_read_by(v, c))
            saved += bytes(v);
    }
    *out = rule_int(saved);
    return true;
}

bool helper_recompute_flops(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *p = a[0].u.in;
    int64_t flops = 0;
    if (is_region(p)) {
        for (const ins *i = p->mods[0]->first; i; i = i->next)
            if (!(i->op->classes & (OPC_BUILTIN | OPC_VIEW)))
                flops += elements(i);
    } else if (!(p->op->classes & (OPC_BUILTIN | OPC_VIEW))) {
        flops = elements(p);
    }
    *out = rule_int(flops);
    return true;
}

bool helper_broadcast_factor(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *x = a[0].u.in;
    int64_t factor = 1;
    if ((ins_is(x, "broadcast") || ins_is(x, "multibroadcast")) && x->nargs >= 1 && elements(x->args[0]) > 0)
        factor = elements(x) / elements(x->args[0]);
    *out = rule_int(factor);
    return true;
}
