/* cse.c: common subexpression elimination (see cse.h).
 *
 * One walk per module in program order, finding each instruction's earlier
 * twin among the users of its first operand (or, for operands with many
 * users and for literals, in an open-addressing hash table of what was seen
 * so far). Because a merged instruction's users are
 * redirected before they are reached, their operands are already the
 * surviving representatives when they are hashed, so one walk finds chains
 * of duplicates (f(g(x)) twice) as well as single ones.
 */
#include "cse.h"
#include "hash.h"
#include "lazy_shapes.h"

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

/* Equal but for the strides of length-1 axes, which address nothing: two
 * literals of one value that differ only there are one literal (constant
 * folding of a transposed or reshaped literal leaves such strides; seed
 * 18195 of tests/unit/test_view_normal_form.c kept two copies of one). */
static bool same_but_unit_strides(const shape *a, const shape *b)
{
    if (a->type != b->type || a->rank != b->rank)
        return false;
    for (int k = 0; k < a->rank; k++)
        if (a->lens[k] != b->lens[k] || (a->lens[k] != 1 && a->strides[k] != b->strides[k]))
            return false;
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
    /* a literal's strides of length-1 axes are not hashed: same_expression
     * does not compare them */
    for (int k = 0; k < i->sh.rank; k++)
        h = hash_mix(hash_mix(h, (uint64_t)i->sh.lens[k]),
                     is_literal(i) && i->sh.lens[k] == 1 ? 0 : (uint64_t)i->sh.strides[k]);
    if (is_literal(i))
        h = hash_bytes(h, i->data, shape_bytes(&i->sh));
    return h;
}

static bool same_expression(const ins *a, const ins *b)
{
    if (a->op != b->op || a->nattrs != b->nattrs || a->nargs != b->nargs || a->nmods != b->nmods)
        return false;
    if (is_literal(a) ? !same_but_unit_strides(&a->sh, &b->sh) : !shape_equal(&a->sh, &b->sh))
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

/* The hash table of seen expressions, grown as it fills (it holds only the
 * instructions that are not found through their first operand, below). */
typedef struct table {
    slot *slots;
    size_t cap, count;
} table;

static bool table_grow(table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 1024;
    slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    for (size_t k = 0; k < t->cap; k++) {
        if (!t->slots[k].i)
            continue;
        size_t at = (size_t)hash_finish(t->slots[k].hash) & (cap - 1);
        while (slots[at].i)
            at = (at + 1) & (cap - 1);
        slots[at] = t->slots[k];
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return true;
}

/* The earlier instruction computing what i computes, after recording i as
 * seen when there is none. NULL: none (or out of memory: *oom). */
static ins *table_find_or_add(table *t, ins *i, bool *oom)
{
    if (2 * (t->count + 1) > t->cap && !table_grow(t)) {
        *oom = true;
        return NULL;
    }
    uint64_t h = hash_ins(i);
    for (size_t at = (size_t)hash_finish(h) & (t->cap - 1);; at = (at + 1) & (t->cap - 1)) {
        slot *s = &t->slots[at];
        if (!s->i) {
            *s = (slot){h, i};
            t->count++;
            return NULL;
        }
        if (s->hash == h && same_expression(s->i, i))
            return s->i;
    }
}

/* Two instructions computing the same value read the same first operand,
 * so an instruction's earlier twin is among that operand's users: a short
 * list, next to each other in memory, where a table of the whole module is
 * a cache miss per instruction. An operand with many users (a weight read
 * everywhere) sends all of its users to the table instead; which way an
 * operand goes is decided once per walk, so that every instruction that
 * reads it looks in the same place (its user count changes as twins merge).
 *
 * The decision is kept in a byte per instruction id (ids are unique in the
 * graph and below g->next_id; the array grows when the walk makes an
 * instruction, the pending op of a merged literal, that a later one reads).
 * A side array, zeroed once per cse_run, replaces marking the operand
 * itself (ins->aux): the operand's aux sits on another cache line than its
 * id, and clearing the marks after a walk of a large graph was a cache miss
 * per marked operand. One array serves every module of the run without
 * clearing: an instruction's operands are in its own module (graph_verify),
 * so the walk of one module reads and writes only the entries of its own
 * instructions, which no other module's walk touches. */
enum { SCAN_MAX_USERS = 16 };
enum { UNDECIDED = 0, VIA_SCAN = 1, VIA_TABLE = 2 };

typedef struct decisions {
    unsigned char *way; /* indexed by ins id */
    uint32_t n;
} decisions;

/* Room for ids up to g->next_id - 1; false when out of memory. */
static bool decisions_cover(decisions *d, const graph *g)
{
    uint32_t n = g->next_id ? g->next_id : 1;
    if (n <= d->n)
        return true;
    if (d->n && n < UINT32_MAX / 2 && n < 2 * d->n)
        n = 2 * d->n; /* pending ops made one at a time: geometric growth */
    unsigned char *way = realloc(d->way, n);
    if (!way)
        return false;
    memset(way + d->n, UNDECIDED, n - d->n);
    d->way = way;
    d->n = n;
    return true;
}

/* The reader of first, i's first operand, that comes before i and is the
 * same expression, or NULL: twins read the same first operand, so that is
 * where i's is. i is among first's users once for each operand that reads
 * first, so a first operand with one use has no other user to be i's twin:
 * its users array, another cache line, need not be read. */
static ins *twin_among_readers(const ins *first, const ins *i)
{
    if (first->nusers == 1)
        return NULL;
    for (int k = 0; k < first->nusers; k++) {
        ins *u = first->users[k];
        if (u != i && ins_before(u, i) && same_expression(u, i))
            return u;
    }
    return NULL;
}

static ins *earlier_twin(table *t, decisions *d, ins *i, bool *oom)
{
    if (i->nargs == 0)
        return table_find_or_add(t, i, oom);
    ins *first = i->args[0];
    if (first->id >= d->n && !decisions_cover(d, first->mod->g)) {
        *oom = true;
        return NULL;
    }
    unsigned char way = d->way[first->id];
    if (way == UNDECIDED)
        d->way[first->id] = way = first->nusers <= SCAN_MAX_USERS ? VIA_SCAN : VIA_TABLE;
    if (way == VIA_TABLE)
        return table_find_or_add(t, i, oom);
    /* (The way was decided above all the same, even for a first operand
     * read once: a later reader of first must look where i would have been
     * found.) */
    return twin_among_readers(first, i);
}

void cse_probe_ins(cse_probe *p, const ins *i)
{
    if (p->maybe || !mergeable(i))
        return;
    /* A literal's twin is another literal (the only mergeable instructions
     * without operands), which cse_run finds through its table. */
    if (i->nargs == 0) {
        p->maybe = ++p->nullary > 1;
        return;
    }
    /* As earlier_twin looks; of a pair, the later one finds the earlier. */
    const ins *first = i->args[0];
    p->maybe = first->nusers > SCAN_MAX_USERS || twin_among_readers(first, i);
}

/* A recorded shape is always exactly what the op's shape rule gives for
 * its operands' recorded shapes: the verifier (graph_verify) compares them
 * exactly, and so does every other place the engine compares shapes (the
 * stop test of the lazy pass, driver_shape_changed, rw_replace). Strides of
 * length-1 axes address nothing, but they are not free for the readers: a
 * pointwise op takes its layout from its operands' strides
 * (ops_binary_layout), so max(x, k) with k strided {16, 4, 1} records
 * another layout than with k strided {4, 4, 1}. So a literal merged into a
 * twin that differs from it only there changes its readers' shapes, and
 * they are settled the way every other shape change is: the readers read
 * the twin through a pending op with the merged literal's shape, and the
 * lazy pass (shapes_resolve, at the end of cse_run) looks through it and
 * recomputes them, stopping where shapes compare equal. (Redirecting the
 * readers silently left their recorded shapes stale: seeds 1016397 and
 * 1093933 of tests/unit/test_view_normal_form.c failed verification.) */
/* ins_prefetch_ahead's guess, further on. That distance (about four
 * instructions read from a dump) is tuned for walks that do real work per
 * instruction, like the driver's sweep; this walk does little for most
 * instructions (a mergeable test, a look at the first operand), so the
 * lines asked for four instructions ahead had not arrived when the walk got
 * there: the first CSE of a 100k-instruction input stalled on memory for
 * most of its ~4.5 ms. Asking 8 KB ahead (about 15 instructions) cut it by
 * ~0.8 ms (cpu, best of 10, chain and fold100k; 4 KB x 16 lines and 6 KB x
 * 12 lines did as well). Only prefetches: nothing the walk reads or decides
 * changes, and a wrong guess costs a wasted line request. */
enum { CSE_PREFETCH_DISTANCE = 4 * INS_PREFETCH_DISTANCE };

static inline void cse_prefetch_ahead(const ins *i)
{
    uintptr_t at = (uintptr_t)i + CSE_PREFETCH_DISTANCE;
    for (int k = 0; k < INS_PREFETCH_LINES; k++)
        __builtin_prefetch((const void *)(at + 64 * (uintptr_t)k));
}

static size_t cse_module(module *m, table *t, decisions *d, bool *oom, size_t *pending,
                         graft_error *err)
{
    size_t merged = 0;
    for (ins *i = m->first, *next; i && !*oom; i = next) {
        next = i->next;
        cse_prefetch_ahead(i);
        if (!mergeable(i))
            continue;
        ins *twin = earlier_twin(t, d, i, oom);
        if (twin) {
            ins *to = twin;
            if (i->nusers && !shape_equal(&i->sh, &twin->sh)) {
                to = pending_insert(i, twin, &i->sh, NULL, 0, err);
                if (!to) {
                    *oom = true;
                    break;
                }
                ++*pending;
            }
            ins_replace_all_uses(i, to);
            module_remove(i);
            merged++;
        }
    }
    return merged;
}

bool cse_run(graph *g, size_t *merged, graft_error *err)
{
    size_t total = 0, pending = 0;
    bool oom = false;
    graft_error sub = {0};
    decisions d = {NULL, 0};
    oom = !decisions_cover(&d, g);
    for (module *m = g->first_module; m && !oom; m = m->next) {
        table t = {0};
        total += cse_module(m, &t, &d, &oom, &pending, &sub);
        free(t.slots);
    }
    free(d.way);
    if (oom)
        return sub.message[0] ? error_set(err, "cse: %s", sub.message) : error_set(err, "out of memory");
    if (merged)
        *merged = total;
    return !pending || shapes_resolve(g, NULL, err);
}
