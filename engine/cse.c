/* cse.c: common subexpression elimination (see cse.h).
 *
 * One walk per module in program order with an open-addressing hash table
 * of the instructions seen so far. Because a merged instruction's users are
 * redirected before they are reached, their operands are already the
 * surviving representatives when they are hashed, so one walk finds chains
 * of duplicates (f(g(x)) twice) as well as single ones.
 */
#include "cse.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

static bool is_literal(const ins *i)
{
    return (i->op->classes & OPC_BUILTIN) && strcmp(i->op->name, "@literal") == 0;
}

static bool mergeable(const ins *i)
{
    if (i->op->classes & OPC_OPAQUE)
        return false;
    if (i->op->classes & OPC_BUILTIN)
        return is_literal(i) && i->data;
    return true;
}

static uint64_t hash_ins(const ins *i)
{
    uint64_t h = hash_mix(0x243F6A8885A308D3ull, (uint64_t)(uintptr_t)i->op);
    for (int k = 0; k < i->nattrs; k++)
        h = hash_attr_value(h, i->attrs[k].v);
    for (int k = 0; k < i->nargs; k++)
        h = hash_mix(h, i->args[k]->id);
    for (int k = 0; k < i->nmods; k++)
        h = hash_mix(h, (uint64_t)(uintptr_t)i->mods[k]);
    h = hash_mix(h, (uint64_t)i->sh.type);
    for (int k = 0; k < i->sh.rank; k++)
        h = hash_mix(hash_mix(h, (uint64_t)i->sh.lens[k]), (uint64_t)i->sh.strides[k]);
    if (is_literal(i))
        h = hash_bytes(h, i->data, shape_bytes(&i->sh));
    return h;
}

static bool same_expression(const ins *a, const ins *b)
{
    if (a->op != b->op || a->nattrs != b->nattrs || a->nargs != b->nargs || a->nmods != b->nmods)
        return false;
    if (!shape_equal(&a->sh, &b->sh))
        return false;
    for (int k = 0; k < a->nargs; k++)
        if (a->args[k] != b->args[k])
            return false;
    for (int k = 0; k < a->nmods; k++)
        if (a->mods[k] != b->mods[k])
            return false;
    for (int k = 0; k < a->nattrs; k++)
        if (strcmp(a->attrs[k].key, b->attrs[k].key) != 0 ||
            !attr_value_equal(a->attrs[k].v, b->attrs[k].v))
            return false;
    if (is_literal(a))
        return memcmp(a->data, b->data, shape_bytes(&a->sh)) == 0;
    return true;
}

typedef struct slot {
    uint64_t hash;
    ins *i;
} slot;

static size_t cse_module(module *m, slot *table, size_t mask)
{
    size_t merged = 0;
    for (ins *i = m->first, *next; i; i = next) {
        next = i->next;
        if (!mergeable(i))
            continue;
        uint64_t h = hash_ins(i);
        size_t at = (size_t)hash_finish(h) & mask;
        for (;;) {
            slot *s = &table[at];
            if (!s->i) {
                s->hash = h;
                s->i = i;
                break;
            }
            if (s->hash == h && same_expression(s->i, i)) {
                ins_replace_all_uses(i, s->i);
                module_remove(i);
                merged++;
                break;
            }
            at = (at + 1) & mask;
        }
    }
    return merged;
}

bool cse_run(graph *g, size_t *merged, graft_error *err)
{
    size_t total = 0;
    for (module *m = g->first_module; m; m = m->next) {
        size_t cap = 16;
        while (cap < (size_t)m->count * 2)
            cap *= 2;
        slot *table = calloc(cap, sizeof *table);
        if (!table)
            return error_set(err, "out of memory");
        total += cse_module(m, table, cap - 1);
        free(table);
    }
    if (merged)
        *merged = total;
    return true;
}
