/* ir.c: graphs, modules and instructions: building, mutation, verification,
 * topological sort (see ir.h for the invariants this file keeps). */
#include "ir.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Under AddressSanitizer, recycled storage (graph_recycle_ins) is poisoned
 * until it is built in again, all but the next pointer that links it: a
 * read through a pointer that should no longer exist is reported. */
#include "sanitizer.h"
#ifdef GRAFT_ASAN
#include <sanitizer/asan_interface.h>
#define SPARE_POISON(i)                                                                          \
    (ASAN_POISON_MEMORY_REGION((char *)(i), offsetof(ins, next)),                               \
     ASAN_POISON_MEMORY_REGION((char *)(i) + offsetof(ins, order), sizeof(ins) - offsetof(ins, order)))
#define SPARE_UNPOISON(i) ASAN_UNPOISON_MEMORY_REGION((char *)(i), sizeof(ins))
#define BLOCK_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (size_t)(n))
#define BLOCK_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (size_t)(n))
#else
#define BLOCK_POISON(p, n) ((void)(p), (void)(n))
#define BLOCK_UNPOISON(p, n) ((void)(p), (void)(n))
#define SPARE_POISON(i) ((void)(i))
#define SPARE_UNPOISON(i) ((void)(i))
#endif

/* Order keys: appends step by ORDER_GAP; an insertion takes the midpoint of
 * its neighbours and relabels the module when they are adjacent. */
#define ORDER_GAP ((uint64_t)1 << 20)

enum { INS_VISITING = 1u << 30, INS_SORTED = 1u << 31 };

/* ---- graphs and modules ---- */

graph *graph_new(void)
{
    graph *g = calloc(1, sizeof *g);
    if (g)
        arena_init(&g->mem);
    return g;
}

void graph_free(graph *g)
{
    if (!g)
        return;
    arena_free(&g->mem);
    free(g->name_buckets);
    free(g);
}

void graft_graph_free(graft_graph *g) { graph_free(g); }

/* The name index: every module in the list is in exactly one bucket.
 * Fusion creates and drops region bodies by the hundred thousand on large
 * graphs, so finding a name must not walk the list. */
static size_t name_hash(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Rebuilds the buckets for at least 2 * nmodules slots; false when out of
 * memory (the old index stays). */
static bool name_index_grow(graph *g, size_t want)
{
    size_t n = 64;
    while (n < 2 * want)
        n *= 2;
    module **b = calloc(n, sizeof *b);
    if (!b)
        return false;
    for (module *m = g->first_module; m; m = m->next) {
        size_t h = name_hash(m->name) & (n - 1);
        m->name_next = b[h];
        b[h] = m;
    }
    free(g->name_buckets);
    g->name_buckets = b;
    g->nbuckets = n;
    return true;
}

static void name_index_remove(graph *g, module *m)
{
    if (!g->nbuckets)
        return;
    module **at = &g->name_buckets[name_hash(m->name) & (g->nbuckets - 1)];
    while (*at && *at != m)
        at = &(*at)->name_next;
    if (*at)
        *at = m->name_next;
    m->name_next = NULL;
}

module *graph_find_module(const graph *g, const char *name)
{
    if (!g->nbuckets) {
        for (module *m = g->first_module; m; m = m->next)
            if (strcmp(m->name, name) == 0)
                return m;
        return NULL;
    }
    for (module *m = g->name_buckets[name_hash(name) & (g->nbuckets - 1)]; m; m = m->name_next)
        if (strcmp(m->name, name) == 0)
            return m;
    return NULL;
}

module *graph_add_module(graph *g, const char *name, graft_error *err)
{
    if (graph_find_module(g, name)) {
        error_set(err, "module \"%s\" is defined twice", name);
        return NULL;
    }
    if ((size_t)(g->nmodules + 1) * 2 > g->nbuckets && !name_index_grow(g, (size_t)g->nmodules + 1)) {
        error_set(err, "out of memory");
        return NULL;
    }
    module *m = arena_alloc(&g->mem, sizeof *m);
    if (!m || !(m->name = arena_strdup(&g->mem, name))) {
        error_set(err, "out of memory");
        return NULL;
    }
    m->g = g;
    if (g->last_module)
        g->last_module->next = m;
    else
        g->first_module = m;
    g->last_module = m;
    g->nmodules++;
    size_t h = name_hash(m->name) & (g->nbuckets - 1);
    m->name_next = g->name_buckets[h];
    g->name_buckets[h] = m;
    return m;
}


module *graph_main(const graph *g)
{
    module *m = graph_find_module(g, "main");
    return m ? m : g->first_module;
}

void graph_remove_module(graph *g, module *m)
{
    module *prev = NULL;
    for (module *x = g->first_module; x && x != m; x = x->next)
        prev = x;
    if (prev ? prev->next != m : g->first_module != m)
        return; /* not in the list */
    if (prev)
        prev->next = m->next;
    else
        g->first_module = m->next;
    if (g->last_module == m)
        g->last_module = prev;
    m->next = NULL;
    g->nmodules--;
    name_index_remove(g, m);
}

int graph_prune_modules(graph *g)
{
    if (g->nmodules <= 1)
        return 0;
    module **reached = malloc((size_t)g->nmodules * sizeof *reached);
    if (!reached)
        return 0; /* keeping modules is always safe */
    /* reached modules are marked by a count of -1 - count while walking
     * (restored below): no search of the list per module */
    int nreached = 0, scanned = 0;
    module *main_m = graph_main(g);
    reached[nreached++] = main_m;
    main_m->count = -1 - main_m->count;
    while (scanned < nreached) {
        for (ins *i = reached[scanned++]->first; i; i = i->next) {
            for (int k = 0; k < i->nmods; k++) {
                module *sub = i->mods[k];
                if (sub->count >= 0 && nreached < g->nmodules) {
                    sub->count = -1 - sub->count;
                    reached[nreached++] = sub;
                }
            }
        }
    }
    int removed = 0;
    module *prev = NULL;
    for (module *m = g->first_module, *next; m; m = next) {
        next = m->next;
        if (m->count < 0) {
            m->count = -1 - m->count;
            prev = m;
            continue;
        }
        if (prev)
            prev->next = next;
        else
            g->first_module = next;
        if (g->last_module == m)
            g->last_module = prev;
        m->next = NULL;
        g->nmodules--;
        name_index_remove(g, m);
        removed++;
    }
    free(reached);
    return removed;
}

size_t graph_count(const graph *g)
{
    size_t n = 0;
    for (module *m = g->first_module; m; m = m->next)
        n += (size_t)m->count;
    return n;
}

size_t graft_graph_instruction_count(const graft_graph *g) { return graph_count(g); }

/* ---- order keys and linking ---- */

static void module_relabel(module *m)
{
    uint64_t key = ORDER_GAP;
    for (ins *i = m->first; i; i = i->next, key += ORDER_GAP)
        i->order = key;
}

/* Relabels a window around i whose key range leaves at least ORDER_MIN_GAP
 * between neighbours, doubling the window until one does (the whole module
 * at worst). Repeated inserts at one spot thus relabel small windows, not the
 * module: the order-maintenance idea of Dietz and Sleator, simplified. */
#define ORDER_MIN_GAP ((uint64_t)1 << 8)

static void relabel_around(module *m, ins *i)
{
    ins *lo = i, *hi = i;
    uint64_t n = 1;
    for (uint64_t want = 2;; want *= 2) {
        while (n < want && (lo->prev || hi->next)) {
            if (lo->prev) {
                lo = lo->prev;
                n++;
            }
            if (hi->next && n < want) {
                hi = hi->next;
                n++;
            }
        }
        uint64_t lo_key = lo->prev ? lo->prev->order : 0;
        if (!lo->prev && !hi->next) {
            module_relabel(m);
            return;
        }
        uint64_t hi_key = hi->next ? hi->next->order : lo_key + (n + 1) * ORDER_GAP;
        uint64_t gap = (hi_key - lo_key) / (n + 1);
        if (gap >= ORDER_MIN_GAP) {
            uint64_t key = lo_key;
            for (ins *p = lo;; p = p->next) {
                key += gap;
                p->order = key;
                if (p == hi)
                    break;
            }
            return;
        }
    }
}

/* Gives i (already linked) a key between its neighbours. */
static void assign_order(module *m, ins *i)
{
    uint64_t lo = i->prev ? i->prev->order : 0;
    if (!i->next) {
        i->order = lo + ORDER_GAP;
        return;
    }
    uint64_t hi = i->next->order;
    if (hi - lo < 2) {
        relabel_around(m, i);
        return;
    }
    i->order = lo + (hi - lo) / 2;
}

static void link_before(module *m, ins *i, ins *pos)
{
    i->mod = m;
    if (!pos) {
        i->prev = m->last;
        i->next = NULL;
        if (m->last)
            m->last->next = i;
        else
            m->first = i;
        m->last = i;
    } else {
        i->next = pos;
        i->prev = pos->prev;
        if (pos->prev)
            pos->prev->next = i;
        else
            m->first = i;
        pos->prev = i;
    }
    m->count++;
    m->ops += !(i->op->classes & OPC_BUILTIN);
    assign_order(m, i);
}

static void unlink_ins(ins *i)
{
    module *m = i->mod;
    if (i->prev)
        i->prev->next = i->next;
    else
        m->first = i->next;
    if (i->next)
        i->next->prev = i->prev;
    else
        m->last = i->prev;
    i->prev = i->next = NULL;
    m->count--;
    m->ops -= !(i->op->classes & OPC_BUILTIN);
}

/* ---- uses ---- */

static bool add_use(ins *def, ins *user, int slot)
{
    if (def->nusers == def->users_cap) {
        int cap = def->users_cap ? def->users_cap * 2 : 4;
        arena *a = &def->mod->g->mem;
        ins **users = arena_alloc(a, (size_t)cap * sizeof *users);
        int *slots = arena_alloc(a, (size_t)cap * sizeof *slots);
        if (!users || !slots)
            return false;
        if (def->nusers) {
            memcpy(users, def->users, (size_t)def->nusers * sizeof *users);
            memcpy(slots, def->user_slot, (size_t)def->nusers * sizeof *slots);
        }
        def->users = users;
        def->user_slot = slots;
        def->users_cap = cap;
    }
    def->users[def->nusers] = user;
    def->user_slot[def->nusers] = slot;
    user->use_pos[slot] = def->nusers;
    def->nusers++;
    return true;
}

/* Removes the use of operand `slot` of user from its def's users list in
 * O(1): the last entry moves into the hole and its back-index follows.
 *
 * Following the back-index is the cost: the moved user is usually far
 * away in memory (a def's last user is its latest in program order), so
 * its use_pos pointer and then the int it points at are two cache misses
 * in a row. When a def with many users loses them one after another (a
 * shared constant whose readers a sweep erases in order: 13% of the fold
 * rewrite of a 100k graph), the next users to move are known now: they
 * are the entries just before `last`. So each removal asks, without
 * waiting, for the use_pos field of the user two places back and for the
 * back-index the user one place back will need (its use_pos pointer was
 * asked for by the previous removal). Besides the prefetches, the only
 * new reads are that live user's use_pos field and an entry of user_slot
 * (both indices are >= 0 since last >= 16); nothing written changes, and
 * a wrong guess costs a wasted line request. */
enum { REMOVE_USE_PREFETCH_MIN = 16 };

static void remove_use(ins *user, int slot)
{
    ins *def = user->args[slot];
    int j = user->use_pos[slot], last = def->nusers - 1;
    if (j < 0 || j > last || def->users[j] != user || def->user_slot[j] != slot)
        return; /* not recorded (a graph a test broke on purpose) */
    if (j != last) {
        if (last >= REMOVE_USE_PREFETCH_MIN) {
            const ins *later = def->users[last - 2];
            const ins *soon = def->users[last - 1];
            __builtin_prefetch(&later->use_pos, 0);
            __builtin_prefetch(soon->use_pos + def->user_slot[last - 1], 1);
        }
        def->users[j] = def->users[last];
        def->user_slot[j] = def->user_slot[last];
        def->users[j]->use_pos[def->user_slot[j]] = j;
    }
    def->nusers--;
    user->use_pos[slot] = -1;
}

/* ---- building ---- */

void graph_recycle_ins(graph *g, ins *i)
{
    /* A removed instruction is unlinked (next is NULL) and, by the caller's
     * word, read by no one: its next pointer can link the spare list. */
    i->next = g->spare;
    g->spare = i;
    BLOCK_POISON(i->attrs, i->attrs_cap);
    SPARE_POISON(i);
}

void graph_drop_recycled(graph *g)
{
#ifdef GRAFT_ASAN
    for (ins *i = g->spare; i; i = i->next) {
        SPARE_UNPOISON(i);
        BLOCK_UNPOISON(i->attrs, i->attrs_cap);
    }
#endif
    g->spare = NULL;
}

/* A spare instruction, cleared as arena_alloc would give it, keeping the
 * arrays still of use: its users arrays (users_cap entries; a removed
 * instruction has no users, so they hold nothing), when nargs fit, its
 * operand arrays (a removed instruction's nargs is its arrays' length, set
 * once by new_ins), and, for a caller that builds attributes (keep_attrs:
 * insert_known), its attribute block (attrs, attrs_cap; see ins.attrs_cap).
 * Their old contents are overwritten or never read: new_ins fills args and
 * use_pos for all nargs, only nusers entries of users count, and
 * own_attrs writes the block's array and the values it points at before
 * anything reads them. */
static ins *take_spare(graph *g, int nargs, bool keep_attrs)
{
    ins *i = g->spare;
    SPARE_UNPOISON(i);
    g->spare = i->next;
    ins **args = i->args, **users = i->users;
    int *use_pos = i->use_pos, *user_slot = i->user_slot;
    int args_cap = i->nargs, users_cap = i->users_cap;
    attr *block = i->attrs;
    int block_cap = i->attrs_cap;
    /* memset with a size the compiler cannot see: a call to the C
     * library's vector memset. With the constant size, gcc inlines a
     * `rep stos`, whose start-up cost was most of new_ins's time when
     * rules build (perf: 70% of it, about 1.4% of the chain rewrite). Same
     * bytes either way. */
    size_t n = sizeof *i;
    __asm__("" : "+r"(n));
    memset(i, 0, n);
    if (nargs && nargs <= args_cap) {
        i->args = args;
        i->use_pos = use_pos;
    }
    i->users = users;
    i->user_slot = user_slot;
    i->users_cap = users_cap;
    if (keep_attrs && block_cap > 0) {
        BLOCK_UNPOISON(block, block_cap);
        i->attrs = block;
        i->attrs_cap = block_cap;
    }
    return i;
}

static ins *new_ins(module *m, ins *pos, const op_def *op, ins *const *args, int nargs,
                    bool keep_attrs)
{
    graph *g = m->g;
    ins *i = g->spare ? take_spare(g, nargs, keep_attrs) : arena_alloc(&g->mem, sizeof *i);
    if (!i)
        return NULL;
    i->op = op;
    i->opname = op->name;
    i->id = g->next_id++;
    if (nargs && i->args) {
        memmove(i->args, args, (size_t)nargs * sizeof *args);
    } else if (nargs) {
        /* One block, the back-indices right after the operands: one
         * rounding to 16 bytes instead of two (16 bytes less for a unary
         * op), and remove_use reads both from the same line. */
        ins **both = arena_alloc(&g->mem, (size_t)nargs * (sizeof *args + sizeof *i->use_pos));
        if (!both)
            return NULL;
        memcpy(both, args, (size_t)nargs * sizeof *args);
        i->args = both;
        i->use_pos = (int *)(void *)(both + nargs);
    }
    i->nargs = nargs;
    link_before(m, i, pos);
    for (int k = 0; k < nargs; k++)
        if (!add_use(args[k], i, k))
            return NULL;
    return i;
}

/* Converts the given value *vp to spec's kind. copy: the result is deep
 * copied into a (attr_value_copy). Not copy (insert_known, which copies
 * into the instruction's own block after): the result may point at *vp's
 * storage or at what *vp points at, the caller's, valid for the call. */
static bool convert_attr(arena *a, const op_def *op, const attr_spec *spec, const attr_value *vp,
                         bool copy, attr_value *out, graft_error *err)
{
    attr_value v = *vp;
    attr_value r = v;
    int64_t whole;
    switch (spec->kind) {
    case ATTR_INT:
        if (v.kind == ATTR_STRING && spec->enum_names) {
            int e = op_enum_value(spec, v.u.s, strlen(v.u.s));
            if (e < 0)
                goto bad;
            r = attr_int(e);
        } else if (v.kind == ATTR_BOOL || v.kind == ATTR_TYPE) {
            r = attr_int(v.u.i);
        } else if (v.kind == ATTR_FLOAT && double_to_int64(v.u.f, &whole) && (double)whole == v.u.f) {
            r = attr_int(whole);
        } else if (v.kind != ATTR_INT) {
            goto bad;
        }
        break;
    case ATTR_BOOL:
        if (v.kind == ATTR_INT && (v.u.i == 0 || v.u.i == 1))
            r = attr_bool(v.u.i != 0);
        else if (v.kind == ATTR_STRING && strcmp(v.u.s, "true") == 0)
            r = attr_bool(true);
        else if (v.kind == ATTR_STRING && strcmp(v.u.s, "false") == 0)
            r = attr_bool(false);
        else if (v.kind != ATTR_BOOL)
            goto bad;
        break;
    case ATTR_FLOAT:
        if (v.kind == ATTR_INT)
            r = attr_float((double)v.u.i);
        else if (v.kind == ATTR_INTS && v.n == 1)
            r = attr_float((double)v.u.ints[0]);
        else if (v.kind == ATTR_FLOATS && v.n == 1)
            r = attr_float(v.u.floats[0]);
        else if (v.kind != ATTR_FLOAT)
            goto bad;
        break;
    case ATTR_TYPE: {
        graft_type t;
        if (v.kind == ATTR_INT && v.u.i >= 0 && v.u.i < GRAFT_TUPLE)
            r = attr_type((graft_type)v.u.i);
        else if (v.kind == ATTR_STRING && type_from_name(v.u.s, strlen(v.u.s), &t))
            r = attr_type(t);
        else if (v.kind != ATTR_TYPE)
            goto bad;
        break;
    }
    case ATTR_STRING:
        if (v.kind != ATTR_STRING)
            goto bad;
        break;
    case ATTR_INTS:
        if (v.kind == ATTR_INT) {
            r = attr_ints(&vp->u.i, 1);
        } else if (v.kind == ATTR_FLOATS && v.n == 0) {
            r = attr_ints(NULL, 0);
        } else if (v.kind != ATTR_INTS) {
            goto bad;
        }
        break;
    case ATTR_FLOATS:
        if (v.kind == ATTR_FLOAT) {
            r = attr_floats(&vp->u.f, 1);
        } else if (v.kind == ATTR_INTS) {
            double *f = arena_alloc(a, (size_t)(v.n ? v.n : 1) * sizeof *f);
            if (!f)
                return error_set(err, "out of memory");
            for (int k = 0; k < v.n; k++)
                f[k] = (double)v.u.ints[k];
            r = attr_floats(f, v.n);
        } else if (v.kind != ATTR_FLOATS) {
            goto bad;
        }
        break;
    }
    *out = copy ? attr_value_copy(a, r) : r;
    return true;
bad:;
    char got[128];
    attr_value_print(v, got, sizeof got);
    static const char *const kind_names[] = {"an integer", "a number",     "a bool",
                                             "a string",   "an int list", "a number list",
                                             "a type"};
    if (spec->enum_names) {
        char names[256];
        op_enum_names_text(spec, names, sizeof names);
        return error_set(err, "%s: attribute %s=%s: expected one of %s (or its number)", op->name,
                         spec->name, got, names);
    }
    return error_set(err, "%s: attribute %s=%s: expected %s", op->name, spec->name, got,
                     kind_names[spec->kind]);
}

/* attrs_normalize; with copy false, as convert_attr says, and was_given[s]
 * tells whether out[s] came from given (else it is the op's default, which
 * points at the op table's static storage, never copied). */
static bool normalize(arena *a, bool copy, const op_def *op, const attr *given, int ngiven,
                      attr *out, bool *was_given, graft_error *err)
{
    for (int k = 0; k < ngiven; k++) {
        if (op_attr_index(op, given[k].key) < 0) {
            char names[512];
            op_attr_names_text(op, names, sizeof names);
            if (op->nattrs)
                return error_set(err, "%s has no attribute '%s' (its attributes: %s)", op->name,
                                 given[k].key, names);
            return error_set(err, "%s has no attribute '%s' (it takes none)", op->name,
                             given[k].key);
        }
        for (int j = 0; j < k; j++)
            if (strcmp(given[j].key, given[k].key) == 0)
                return error_set(err, "%s: attribute '%s' is given twice", op->name,
                                 given[k].key);
    }
    for (int s = 0; s < op->nattrs; s++) {
        const attr_spec *spec = &op->attrs[s];
        const attr *g = attr_find(given, ngiven, spec->name);
        out[s].key = spec->name;
        if (was_given)
            was_given[s] = g != NULL;
        if (g) {
            if (!convert_attr(a, op, spec, &g->v, copy, &out[s].v, err))
                return false;
        } else if (spec->required) {
            return error_set(err, "%s needs attribute '%s'", op->name, spec->name);
        } else {
            out[s].v = spec->dflt;
        }
    }
    return true;
}

bool attrs_normalize(arena *a, const op_def *op, const attr *given, int ngiven, attr *out,
                     graft_error *err)
{
    return normalize(a, true, op, given, ngiven, out, NULL, err);
}

void ins_op_call(const ins *i, op_call *call, shape *inputs)
{
    for (int k = 0; k < i->nargs; k++)
        inputs[k] = i->args[k]->sh;
    call->op = i->op;
    call->attrs = i->attrs;
    call->inputs = inputs;
    call->ninputs = i->nargs;
    call->modules = i->mods;
    call->nmodules = i->nmods;
}

static bool compute_into(graph *g, const op_def *op, const attr *attrs, ins *const *args,
                         int nargs, module *const *mods, int nmods, shape *out, graft_error *err)
{
    if (g) /* NULL: graph_verify, which reads a const graph and counts nothing */
        g->shape_calls++;
    shape small[8];
    shape *inputs = nargs <= 8 ? small : malloc((size_t)nargs * sizeof *inputs);
    if (!inputs)
        return error_set(err, "out of memory");
    for (int k = 0; k < nargs; k++)
        inputs[k] = args[k]->sh;
    op_call call = {op, attrs, inputs, nargs, mods, nmods};
    bool ok = op_compute_shape(&call, out, err);
    if (inputs != small)
        free(inputs);
    return ok;
}

/* The bytes of what v points at that an instruction's block holds for it
 * (attr_value_copy's copy: a string with its NUL, NULL as ""), rounded up to
 * 8 so that a list after it stays aligned. */
static size_t payload_bytes(attr_value v)
{
    size_t n = 0;
    switch (v.kind) {
    case ATTR_STRING: n = strlen(v.u.s ? v.u.s : "") + 1; break;
    case ATTR_INTS: n = (size_t)v.n * sizeof(int64_t); break;
    case ATTR_FLOATS: n = (size_t)v.n * sizeof(double); break;
    default: break;
    }
    return (n + 7) & ~(size_t)7;
}

/* Gives i (just built by new_ins, so attrs is a recycled block of
 * attrs_cap bytes or nothing) its own copy of the n normalized attributes
 * norm: the array, then what the given ones point at, in one block, the
 * recycled one when it is big enough. The values equal attr_value_copy's;
 * defaults (!was_given) keep pointing at the op table, as attrs_normalize
 * leaves them. Why reuse is safe: a recycled instruction's block was
 * written by this function for it alone (attrs_cap > 0 only here; whoever
 * points attrs elsewhere clears it), and graph_recycle_ins's caller vouches
 * that nothing reads the removed instruction or its values again. */
static bool own_attrs(graph *g, ins *i, const attr *norm, const bool *was_given, int n)
{
    size_t bytes = (size_t)n * sizeof(attr);
    for (int s = 0; s < n; s++)
        if (was_given[s])
            bytes += payload_bytes(norm[s].v);
    unsigned char *block;
    if (i->attrs_cap > 0 && bytes <= (size_t)i->attrs_cap) {
        block = (unsigned char *)i->attrs;
    } else {
        if (bytes > INT32_MAX / 2)
            return false;
        block = arena_alloc(&g->mem, bytes);
        if (!block)
            return false;
        i->attrs_cap = (int)bytes;
    }
    attr *out = (attr *)block;
    unsigned char *p = block + (size_t)n * sizeof(attr);
    for (int s = 0; s < n; s++) {
        out[s] = norm[s];
        if (!was_given[s])
            continue;
        attr_value *v = &out[s].v;
        size_t len = payload_bytes(*v);
        switch (v->kind) {
        case ATTR_STRING: {
            const char *src = v->u.s ? v->u.s : "";
            memcpy(p, src, strlen(src) + 1);
            v->u.s = (const char *)p;
            break;
        }
        case ATTR_INTS:
            if (v->n)
                memcpy(p, v->u.ints, (size_t)v->n * sizeof(int64_t));
            v->u.ints = (const int64_t *)(void *)p;
            break;
        case ATTR_FLOATS:
            if (v->n)
                memcpy(p, v->u.floats, (size_t)v->n * sizeof(double));
            v->u.floats = (const double *)(void *)p;
            break;
        default: break;
        }
        p += len;
    }
    i->attrs = out;
    return true;
}

/* Ops with at most this many attributes are normalized on the stack and
 * copied into the instruction's own block (own_attrs); more (none of the
 * built-in ops has more than 10) take attrs_normalize's arena copies. */
enum { STACK_ATTRS = 16 };

/* module_insert and module_insert_with_modules: checks, computes the shape
 * (the op's rule sees the submodules), and only then links the instruction,
 * so a failure leaves the module as it was. */
static ins *insert_known(module *m, ins *pos, const op_def *op, const attr *attrs, int nattrs,
                         ins *const *args, int nargs, module *const *mods, int nmods,
                         graft_error *err)
{
    arena *a = &m->g->mem;
    attr stack[STACK_ATTRS];
    bool was_given[STACK_ATTRS];
    attr *norm = NULL;
    bool in_block = op->nattrs > 0 && op->nattrs <= STACK_ATTRS;
    if (in_block) {
        norm = stack;
        if (!normalize(a, false, op, attrs, nattrs, norm, was_given, err))
            return NULL;
    } else {
        if (op->nattrs) {
            norm = arena_alloc(a, (size_t)op->nattrs * sizeof *norm);
            if (!norm) {
                error_set(err, "out of memory");
                return NULL;
            }
        }
        if (!attrs_normalize(a, op, attrs, nattrs, norm, err))
            return NULL;
    }
    for (int k = 0; k < nargs; k++) {
        if (!args[k] || args[k]->mod != m || (args[k]->flags & INS_REMOVED)) {
            error_set(err, "%s: operand %d is not an instruction of module \"%s\"", op->name, k,
                      m->name);
            return NULL;
        }
        if (pos && !ins_before(args[k], pos)) {
            error_set(err, "%s: operand %d would not precede its user", op->name, k);
            return NULL;
        }
    }
    module **owned = NULL;
    if (nmods) {
        owned = arena_dup(a, mods, (size_t)nmods * sizeof *mods);
        if (!owned) {
            error_set(err, "out of memory");
            return NULL;
        }
    }
    shape sh;
    if (!compute_into(m->g, op, norm, args, nargs, owned, nmods, &sh, err))
        return NULL;
    ins *i = new_ins(m, pos, op, args, nargs, in_block);
    if (!i || (in_block && !own_attrs(m->g, i, norm, was_given, op->nattrs))) {
        error_set(err, "out of memory");
        return NULL;
    }
    if (!in_block)
        i->attrs = norm;
    i->nattrs = op->nattrs;
    i->mods = owned;
    i->nmods = nmods;
    i->sh = sh;
    return i;
}

ins *module_insert(module *m, ins *pos, const op_def *op, const attr *attrs, int nattrs,
                   ins *const *args, int nargs, graft_error *err)
{
    return insert_known(m, pos, op, attrs, nattrs, args, nargs, NULL, 0, err);
}

ins *module_insert_with_modules(module *m, ins *pos, const op_def *op, const attr *attrs,
                                int nattrs, ins *const *args, int nargs, module *const *mods,
                                int nmods, graft_error *err)
{
    if (nmods < 1 || !mods) {
        error_set(err, "%s: no submodule given", op->name);
        return NULL;
    }
    for (int k = 0; k < nmods; k++) {
        if (!mods[k] || mods[k]->g != m->g || mods[k] == m) {
            error_set(err, "%s: submodule %d is not another module of the graph", op->name, k);
            return NULL;
        }
    }
    return insert_known(m, pos, op, attrs, nattrs, args, nargs, mods, nmods, err);
}

ins *module_add(module *m, const op_def *op, const attr *attrs, int nattrs, ins *const *args,
                int nargs, graft_error *err)
{
    return module_insert(m, NULL, op, attrs, nattrs, args, nargs, err);
}

ins *module_add_op(module *m, const char *opname, const attr *attrs, int nattrs, ins *const *args,
                   int nargs, graft_error *err)
{
    const op_def *op = op_find(opname);
    if (!op) {
        error_set(err, "unknown op '%s'", opname);
        return NULL;
    }
    return module_add(m, op, attrs, nattrs, args, nargs, err);
}

static bool copy_tuple(arena *a, shape *sh)
{
    if (sh->type != GRAFT_TUPLE || !sh->ntuple)
        return true;
    shape *sub = arena_dup(a, sh->tuple, (size_t)sh->ntuple * sizeof *sub);
    if (!sub)
        return false;
    for (int k = 0; k < sh->ntuple; k++)
        if (!copy_tuple(a, &sub[k]))
            return false;
    sh->tuple = sub;
    return true;
}

ins *module_add_param(module *m, const char *param_name, const shape *sh)
{
    ins *i = new_ins(m, NULL, op_find("@param"), NULL, 0, false);
    if (!i)
        return NULL;
    i->sh = *sh;
    if (!copy_tuple(&m->g->mem, &i->sh))
        return NULL;
    i->param = arena_strdup(&m->g->mem, param_name);
    i->name = i->param;
    return i->param ? i : NULL;
}

ins *module_add_literal(module *m, const shape *sh, const void *data)
{
    ins *i = new_ins(m, NULL, op_find("@literal"), NULL, 0, false);
    if (!i)
        return NULL;
    i->sh = *sh;
    size_t bytes = shape_bytes(sh);
    i->data = arena_alloc(&m->g->mem, bytes ? bytes : 1);
    if (!i->data)
        return NULL;
    if (data && bytes)
        memcpy(i->data, data, bytes);
    return i;
}

ins *module_add_opaque(module *m, const char *opname, const attr *attrs, int nattrs,
                       ins *const *args, int nargs, const shape *sh)
{
    arena *a = &m->g->mem;
    ins *i = new_ins(m, NULL, op_opaque(), args, nargs, false);
    if (!i)
        return NULL;
    i->opname = arena_strdup(a, opname);
    if (nattrs) {
        i->attrs = arena_alloc(a, (size_t)nattrs * sizeof *i->attrs);
        if (!i->attrs)
            return NULL;
        for (int k = 0; k < nattrs; k++) {
            i->attrs[k].key = arena_strdup(a, attrs[k].key);
            i->attrs[k].v = attr_value_copy(a, attrs[k].v);
        }
    }
    i->nattrs = nattrs;
    i->sh = *sh;
    return copy_tuple(a, &i->sh) && i->opname ? i : NULL;
}

ins *module_add_return(module *m, ins *const *args, int nargs)
{
    ins *i = new_ins(m, NULL, op_find("@return"), args, nargs, false);
    if (!i)
        return NULL;
    i->sh.type = GRAFT_TUPLE;
    i->sh.ntuple = nargs;
    if (nargs) {
        shape *sub = arena_alloc(&m->g->mem, (size_t)nargs * sizeof *sub);
        if (!sub)
            return NULL;
        for (int k = 0; k < nargs; k++)
            sub[k] = args[k]->sh;
        i->sh.tuple = sub;
    }
    return i;
}

void ins_set_modules(ins *i, module *const *mods, int nmods)
{
    i->mods = nmods ? arena_dup(&i->mod->g->mem, mods, (size_t)nmods * sizeof *mods) : NULL;
    i->nmods = i->mods ? nmods : 0;
}

void ins_set_name(ins *i, const char *name)
{
    i->name = name ? arena_strdup(&i->mod->g->mem, name) : NULL;
}

/* ---- mutation ---- */

void ins_replace_all_uses(ins *old, ins *rep)
{
    if (old == rep)
        return;
    /* Uses by rep itself are kept: that is how "insert f(x) after x and let
     * every other user read f(x)" is written. Each moved use leaves old's
     * list from the end, so walking it backwards visits every entry once. */
    for (int j = old->nusers - 1; j >= 0; j--) {
        if (j >= old->nusers)
            continue;
        ins *u = old->users[j];
        int slot = old->user_slot[j];
        if (u == rep)
            continue;
        remove_use(u, slot);
        u->args[slot] = rep;
        add_use(rep, u, slot);
    }
}

void ins_set_arg(ins *i, int k, ins *v)
{
    if (i->args[k] == v)
        return;
    remove_use(i, k);
    i->args[k] = v;
    add_use(v, i, k);
}

void module_remove(ins *i)
{
    for (int k = 0; k < i->nargs; k++)
        remove_use(i, k);
    unlink_ins(i);
    i->flags |= INS_REMOVED;
}

void module_move_before(ins *i, ins *pos)
{
    if (i == pos || i->next == pos)
        return;
    module *m = i->mod;
    unlink_ins(i);
    link_before(m, i, pos);
}

void module_move_all(module *to, module *from)
{
    if (to == from)
        return;
    for (ins *i = from->first, *next; i; i = next) {
        next = i->next;
        unlink_ins(i);
        link_before(to, i, NULL);
    }
}

bool ins_recompute_shape(ins *i, graft_error *err)
{
    if (i->op->classes & (OPC_BUILTIN | OPC_OPAQUE))
        return true;
    shape sh;
    if (!compute_into(i->mod->g, i->op, i->attrs, i->args, i->nargs, i->mods, i->nmods, &sh, err))
        return false;
    i->sh = sh;
    return true;
}

/* ---- queries ---- */

bool ins_is(const ins *i, const char *opname)
{
    return i->opname[0] == opname[0] && strcmp(i->opname, opname) == 0;
}

bool ins_is_dead(const ins *i)
{
    if (i->nusers || (i->flags & INS_REMOVED))
        return false;
    if (i->op->classes & OPC_OPAQUE)
        return false;
    const char *n = i->op->name;
    return !(n[0] == '@' && (strcmp(n, "@return") == 0 || strcmp(n, "@param") == 0));
}

ins *module_return(const module *m)
{
    return m->last && ins_is(m->last, "@return") ? m->last : NULL;
}

const attr_value *ins_attr(const ins *i, const char *key)
{
    const attr *a = attr_find(i->attrs, i->nattrs, key);
    return a ? &a->v : NULL;
}

/* ---- verification ---- */

static const char *display_name(const ins *i, char *buf, size_t size)
{
    if (i->name)
        return i->name;
    int pos = 0;
    for (const ins *p = i->mod->first; p && p != i; p = p->next)
        pos++;
    snprintf(buf, size, "@%d", pos);
    return buf;
}

static bool verify_fail(const graph *g, const ins *i, graft_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool verify_fail(const graph *g, const ins *i, graft_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (i->line > 0)
        error_atv(err, g->source ? g->source : "", i->line, i->col, fmt, ap);
    else
        error_setv(err, fmt, ap);
    va_end(ap);
    char nm[32];
    const char *name = display_name(i, nm, sizeof nm);
    if (i->line > 0)
        error_prefix(err, "%s (%s)", name, i->opname);
    else
        error_prefix(err, "module \"%s\", %s (%s)", i->mod->name, name, i->opname);
    return false;
}

typedef struct use_edge {
    uint32_t def, user;
} use_edge;

static int compare_edges(const void *pa, const void *pb)
{
    const use_edge *a = pa, *b = pb;
    if (a->def != b->def)
        return a->def < b->def ? -1 : 1;
    return a->user < b->user ? -1 : a->user > b->user;
}

/* Users lists must hold exactly the operand edges, with multiplicity:
 * compared as sorted multisets, so the check is O(E log E) whatever the
 * fan-out. */
static bool verify_uses(const module *m, graft_error *err)
{
    size_t nargs = 0, nusers = 0;
    bool indexed = true;
    for (ins *i = m->first; i; i = i->next) {
        ins_prefetch_ahead(i);
        nargs += (size_t)i->nargs;
        nusers += (size_t)i->nusers;
        /* The back-indices name, for each operand use, a distinct users
         * entry recording exactly that use: with as many entries as uses,
         * the lists then hold the edges. O(E); the sorted comparison
         * below is the reference when they do not. */
        for (int k = 0; k < i->nargs && indexed; k++) {
            const ins *a = i->args[k];
            int j = i->use_pos ? i->use_pos[k] : -1;
            indexed = j >= 0 && j < a->nusers && a->users[j] == i && a->user_slot[j] == k;
        }
    }
    if (nargs != nusers)
        return error_set(err, "module \"%s\": %zu operand uses but %zu users entries", m->name,
                         nargs, nusers);
    if (!nargs || indexed)
        return true;
    use_edge *from_args = malloc(nargs * sizeof *from_args);
    use_edge *from_users = malloc(nargs * sizeof *from_users);
    if (!from_args || !from_users) {
        free(from_args);
        free(from_users);
        return error_set(err, "out of memory");
    }
    size_t a = 0, u = 0;
    for (ins *i = m->first; i; i = i->next) {
        for (int k = 0; k < i->nargs; k++)
            from_args[a++] = (use_edge){i->args[k]->id, i->id};
        for (int k = 0; k < i->nusers; k++)
            from_users[u++] = (use_edge){i->id, i->users[k]->id};
    }
    qsort(from_args, nargs, sizeof *from_args, compare_edges);
    qsort(from_users, nargs, sizeof *from_users, compare_edges);
    bool same = memcmp(from_args, from_users, nargs * sizeof *from_args) == 0;
    size_t k = 0;
    while (!same && k < nargs && compare_edges(&from_args[k], &from_users[k]) == 0)
        k++;
    free(from_args);
    free(from_users);
    if (!same) {
        for (ins *i = m->first; i; i = i->next) {
            char nm[32];
            for (int j = 0; j < i->nusers; j++) {
                ins *user = i->users[j];
                bool uses = false;
                for (int q = 0; q < user->nargs; q++)
                    uses |= user->args[q] == i;
                if (!uses || (user->flags & INS_REMOVED))
                    return verify_fail(m->g, i, err, "has a dangling user %s",
                                       display_name(user, nm, sizeof nm));
            }
        }
        return error_set(err, "module \"%s\": an operand does not list its user (edge %zu)",
                         m->name, k);
    }
    return true;
}

bool graph_verify(const graph *g, graft_error *err)
{
    for (module *m = g->first_module; m; m = m->next) {
        int count = 0, ops = 0;
        for (ins *i = m->first; i; i = i->next) {
            ins_prefetch_ahead(i);
            count++;
            ops += !(i->op->classes & OPC_BUILTIN);
            if (i->mod != m || (i->flags & INS_REMOVED))
                return verify_fail(g, i, err, "is linked into a module it does not belong to");
            if (i->prev && i->prev->order >= i->order)
                return verify_fail(g, i, err, "order keys are not increasing");
            if (ins_is(i, "@return") && i->next)
                return verify_fail(g, i, err, "@return is not the last instruction");
            for (int k = 0; k < i->nargs; k++) {
                ins *a = i->args[k];
                char nm[32];
                if (!a || a->mod != m || (a->flags & INS_REMOVED))
                    return verify_fail(g, i, err, "operand %d is not in this module", k);
                if (!ins_before(a, i))
                    return verify_fail(g, i, err, "operand %s does not precede its user",
                                       display_name(a, nm, sizeof nm));
            }
            for (int k = 0; k < i->nusers; k++) {
                ins *u = i->users[k];
                char nm[32];
                if ((u->flags & INS_REMOVED) || u->mod != m)
                    return verify_fail(g, i, err, "has a dangling user %s",
                                       display_name(u, nm, sizeof nm));
            }
            if (!(i->op->classes & (OPC_BUILTIN | OPC_OPAQUE))) {
                shape sh;
                graft_error sub;
                if (!compute_into(NULL, i->op, i->attrs, i->args, i->nargs, i->mods, i->nmods, &sh,
                                  &sub))
                    return verify_fail(g, i, err, "%s", sub.message);
                if (!shape_equal(&sh, &i->sh)) {
                    char have[256], want[256];
                    shape_print(&i->sh, have, sizeof have);
                    shape_print(&sh, want, sizeof want);
                    return verify_fail(g, i, err, "recorded shape %s differs from computed %s",
                                       have, want);
                }
            }
        }
        if (!verify_uses(m, err))
            return false;
        if (count != m->count || ops != m->ops)
            return error_set(err, "module \"%s\": instruction count %d (%d ops), list holds %d (%d)",
                             m->name, m->count, m->ops, count, ops);
    }
    return true;
}

bool graft_graph_verify(const graft_graph *g, graft_error *err) { return graph_verify(g, err); }

/* ---- topological sort ---- */

/* Depth-first over operands with an explicit stack (graphs are deep: a 1M
 * chain must not overflow the C stack). Instructions already in order stay
 * in order: each one is emitted right after its last unemitted operand. */
static bool sort_module(module *m, graft_error *err)
{
    int n = m->count;
    if (n < 2)
        return true;
    ins **out = malloc((size_t)n * sizeof *out);
    struct frame {
        ins *i;
        int next_arg;
    } *stack = malloc((size_t)n * sizeof *stack);
    if (!out || !stack) {
        free(out);
        free(stack);
        return error_set(err, "out of memory");
    }
    int nout = 0;
    bool ok = true;
    for (ins *root = m->first; root && ok; root = root->next) {
        if (root->flags & INS_SORTED)
            continue;
        int top = 0;
        stack[top++] = (struct frame){root, 0};
        root->flags |= INS_VISITING;
        while (top && ok) {
            struct frame *f = &stack[top - 1];
            if (f->next_arg < f->i->nargs) {
                ins *a = f->i->args[f->next_arg++];
                if (a->mod != m || (a->flags & INS_SORTED))
                    continue;
                if (a->flags & INS_VISITING) {
                    ok = error_set(err, "module \"%s\" has a cycle through %s", m->name,
                                   a->name ? a->name : a->opname);
                    break;
                }
                a->flags |= INS_VISITING;
                stack[top++] = (struct frame){a, 0};
            } else {
                f->i->flags = (f->i->flags & ~INS_VISITING) | INS_SORTED;
                out[nout++] = f->i;
                top--;
            }
        }
    }
    for (ins *i = m->first; i; i = i->next)
        i->flags &= ~(INS_VISITING | INS_SORTED);
    if (ok) {
        m->first = out[0];
        for (int k = 0; k < nout; k++) {
            out[k]->prev = k ? out[k - 1] : NULL;
            out[k]->next = k + 1 < nout ? out[k + 1] : NULL;
        }
        m->last = out[nout - 1];
        /* @return stays last. */
        ins *ret = NULL;
        for (ins *i = m->first; i; i = i->next)
            if (ins_is(i, "@return"))
                ret = i;
        if (ret && ret != m->last) {
            unlink_ins(ret);
            link_before(m, ret, NULL);
        }
        module_relabel(m);
    }
    free(out);
    free(stack);
    return ok;
}

bool graph_sort(graph *g, graft_error *err)
{
    for (module *m = g->first_module; m; m = m->next)
        if (!sort_module(m, err))
            return false;
    return true;
}
