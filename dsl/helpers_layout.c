/* helpers_layout.c: guard helpers of rules/layout.rules and of the pad
 * section of rules/fuse.rules (see helpers_layout.h). */
#include "helpers_layout.h"

#include "concat_in_place.h"
#include "ir.h"

bool helper_concat_in_place_possible(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(concat_in_place_possible(a[0].u.in));
    return true;
}

bool body_index_only(const ins *b)
{
    return !b->nmods && (ins_is(b, "pad") || ins_is(b, "layout") || ins_is(b, "contiguous"));
}

static bool is_contraction(const ins *b)
{
    return (b->op->classes & OPC_COMPUTE) && (ins_is(b, "convolution") || ins_is(b, "dot"));
}

/* Whether c's kernel evaluates each operand element by element: a
 * pointwise op, a region of pointwise ops, views and reductions, or a
 * convolution or dot (plain or as the one contraction of a region), whose
 * kernel reads each operand element through the region's evaluator (the
 * prologue, codegen/emit_gemm.c), so a pad there is index arithmetic too. */
static bool elementwise_reader(const ins *c)
{
    if ((c->op->classes & OPC_POINTWISE) || is_contraction(c))
        return !c->nmods;
    if (!(c->op->classes & OPC_REGION) || c->nmods != 1)
        return false;
    int contractions = 0;
    for (const ins *b = c->mods[0]->first; b; b = b->next) {
        unsigned k = b->op->classes;
        if (b->nmods || ins_is(b, "get_tuple_elem"))
            return false;
        if (is_contraction(b) && ++contractions == 1)
            continue;
        if (!(k & (OPC_POINTWISE | OPC_VIEW | OPC_BUILTIN | OPC_REDUCE)) && !ins_is(b, "reshape") &&
            !body_index_only(b))
            return false;
    }
    return true;
}

bool helper_read_predicate(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *p = a[0].u.in, *c = a[1].u.in;
    bool ok = ins_is(p, "pad") && !shape_is_tuple(&p->sh) && p->nusers > 0 && elementwise_reader(c);
    for (int u = 0; ok && u < p->nusers; u++)
        ok = p->users[u] == c;
    *out = rule_bool(ok);
    return true;
}
