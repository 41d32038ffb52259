/* driver.c: the worklist driver that applies rule sets to a fixpoint (the
 * contract is in driver.h and rewrite.h; the rw_* functions rules call are
 * in rewrite.c).
 *
 * The file has four parts: the worklist (a stack with set semantics), the
 * hooks that erase dead instructions and react to shape changes, the
 * debugging aids (fingerprints and trace records), and the driver loop.
 */
#include "driver_internal.h"
#include "hash.h"
#include "lazy_shapes.h"
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ======================================================================
 * The worklist
 * ====================================================================== */

void worklist_init(worklist *w, uint64_t seed)
{
    memset(w, 0, sizeof *w);
    /* xorshift must not start at 0; any nonzero seed gives a fixed order. */
    w->rng = seed ? seed * 0x9E3779B97F4A7C15ull | 1 : 0;
}

void worklist_free(worklist *w)
{
    free(w->items);
    free(w->slot);
    memset(w, 0, sizeof *w);
}

static bool ensure_slots(worklist *w, uint32_t id)
{
    if (id < w->nslots)
        return true;
    uint32_t n = w->nslots ? w->nslots : 1024;
    while (n <= id)
        n *= 2;
    uint32_t *s = realloc(w->slot, (size_t)n * sizeof *s);
    if (!s)
        return false;
    memset(s + w->nslots, 0, (size_t)(n - w->nslots) * sizeof *s);
    w->slot = s;
    w->nslots = n;
    return true;
}

void worklist_push(worklist *w, ins *i)
{
    if (!i || (i->flags & INS_REMOVED))
        return;
    if (!ensure_slots(w, i->id)) {
        w->oom = true;
        return;
    }
    if (w->slot[i->id])
        return;
    if (w->n == w->cap) {
        uint32_t cap = w->cap ? w->cap * 2 : 1024;
        ins **items = realloc(w->items, (size_t)cap * sizeof *items);
        if (!items) {
            w->oom = true;
            return;
        }
        w->items = items;
        w->cap = cap;
    }
    w->items[w->n++] = i;
    w->slot[i->id] = w->n;
}

bool worklist_contains(const worklist *w, const ins *i)
{
    return i->id < w->nslots && w->slot[i->id] != 0;
}

void worklist_drop(worklist *w, ins *i)
{
    if (!worklist_contains(w, i))
        return;
    w->items[w->slot[i->id] - 1] = NULL;
    w->slot[i->id] = 0;
}

static uint64_t next_random(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

ins *worklist_pop(worklist *w)
{
    while (w->n) {
        uint32_t k = w->n - 1;
        if (w->rng) {
            /* Shuffled mode: take a random entry and fill its slot with the last. */
            k = (uint32_t)(next_random(&w->rng) % w->n);
            ins *last = w->items[w->n - 1];
            ins *pick = w->items[k];
            w->items[k] = last;
            if (last)
                w->slot[last->id] = k + 1;
            w->n--;
            if (pick) {
                w->slot[pick->id] = 0;
                return pick;
            }
            continue;
        }
        ins *i = w->items[k];
        w->n--;
        if (i) {
            w->slot[i->id] = 0;
            return i;
        }
    }
    return NULL;
}

/* ======================================================================
 * Hooks: erasing dead instructions, shape changes
 * ====================================================================== */

static bool push_dead(rewriter *rw, ins *i)
{
    if (!grow((void **)&rw->dead, &rw->dead_cap, rw->ndead + 1, sizeof *rw->dead))
        return false;
    rw->dead[rw->ndead++] = i;
    return true;
}

/* The region bodies are a set (ir/ptr_set.h): fusion makes hundreds of
 * thousands of them on large graphs, and every sweep asks about every
 * module. */
bool driver_is_region_body(const rewriter *rw, const module *m)
{
    return ptr_set_has(&rw->bodies, m);
}

bool driver_add_region_body(rewriter *rw, module *m)
{
    return ptr_set_add(&rw->bodies, m) || !rw->bodies.failed;
}

void driver_forget_region_body(rewriter *rw, const module *m)
{
    ptr_set_remove(&rw->bodies, m);
}

void driver_erase(rewriter *rw, ins *i)
{
    if (!push_dead(rw, i)) {
        driver_fail(rw, "out of memory");
        return;
    }
    while (rw->ndead) {
        ins *d = rw->dead[--rw->ndead];
        if (d->flags & INS_REMOVED)
            continue;
        worklist_drop(&rw->wl, d);
        module_remove(d);
        rw->region_died |= (d->op->classes & OPC_REGION) != 0;
        rw->erased++;
        rw->changed = true;
        for (int k = 0; k < d->nargs; k++) {
            ins *a = d->args[k];
            if (a->flags & INS_REMOVED)
                continue;
            if (a->nusers == 0 && ins_is_dead(a)) {
                if (!push_dead(rw, a))
                    driver_fail(rw, "out of memory");
            } else {
                worklist_push(&rw->wl, a);
            }
        }
        /* Off the worklist and out of the module; the logs of the open
         * match may still name it, so it is only retired here. */
        if (rw->recycle && d->id >= rw->recycle_from &&
            grow((void **)&rw->retired, &rw->retired_cap, rw->nretired + 1, sizeof *rw->retired))
            rw->retired[rw->nretired++] = d;
    }
}

void driver_fail(rewriter *rw, const char *fmt, ...)
{
    if (rw->failed)
        return;
    rw->failed = true;
    va_list ap;
    va_start(ap, fmt);
    error_setv(&rw->err, fmt, ap);
    va_end(ap);
}

uint64_t driver_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Per-rule time is taken twice per timed attempt (rw_attempt times a
 * rule's first attempts and then a sample: TIME_EVERY_ATTEMPT): the
 * time-stamp counter is read in a few cycles where clock_gettime takes tens
 * of nanoseconds. driver_run converts tick totals to ns with the rate it
 * sees over the whole run. */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
uint64_t driver_ticks(void) { return __rdtsc(); }
#else
uint64_t driver_ticks(void) { return driver_now_ns(); }
#endif

/* Eager mode, as MIGraphX does it: every mutation recomputes the shape of
 * every instruction downstream of the changed value, once each, in program
 * order. A user that cannot take a changed operand's new shape (its rule
 * fails, or it is a root that must keep its operand's shape) reads that
 * operand through a pending op with the old shape instead. */
static bool user_can_absorb(const ins *u)
{
    return !(u->op->classes & (OPC_BUILTIN | OPC_OPAQUE)) && u->nmods == 0;
}

typedef struct cascade_node {
    ins *i;
    shape old;
} cascade_node;

/* Walks the module forward from start: an instruction reading a marked one
 * is downstream, gets marked and recomputed. Program order is topological,
 * so each is recomputed once, after all its operands. (ins->aux holds
 * 1 + the index of the mark, for this call only.) */
static bool eager_cascade(rewriter *rw, ins *start, const shape *old_start)
{
    int n = 0, cap = 64;
    cascade_node *set = malloc((size_t)cap * sizeof *set);
    if (!set)
        return false;
    set[n++] = (cascade_node){start, *old_start};
    start->aux = (void *)(uintptr_t)n;
    bool ok = true;
    for (ins *u = start->next; u && ok; u = u->next) {
        bool downstream = false;
        for (int a = 0; a < u->nargs && !downstream; a++)
            downstream = u->args[a]->aux != NULL;
        if (!downstream)
            continue;
        if (n == cap) {
            cap *= 2;
            cascade_node *s = realloc(set, (size_t)cap * sizeof *s);
            if (!s) {
                ok = false;
                break;
            }
            set = s;
        }
        set[n++] = (cascade_node){u, u->sh};
        u->aux = (void *)(uintptr_t)n;
        graft_error sub;
        rw->shape_recomputes++;
        if (user_can_absorb(u) && ins_recompute_shape(u, &sub))
            continue;
        /* Keep u as it was: its changed operands are read at their old shapes. */
        for (int a = 0; a < u->nargs; a++) {
            ins *v = u->args[a];
            if (!v->aux || v->aux == u->aux)
                continue;
            const shape *old = &set[(uintptr_t)v->aux - 1].old;
            if (shape_equal(old, &v->sh))
                continue;
            ins *p = pending_insert(v->next, v, old, NULL, 0, &sub);
            if (!p) {
                driver_fail(rw, "eager shapes: %s", sub.message);
                ok = false;
                break;
            }
            rw->pending_inserted++;
            for (int j = a; j < u->nargs; j++)
                if (u->args[j] == v)
                    ins_set_arg(u, j, p);
        }
    }
    for (int k = 0; k < n; k++) {
        worklist_push(&rw->wl, set[k].i);
        set[k].i->aux = NULL;
    }
    free(set);
    return ok;
}

bool driver_shape_changed(rewriter *rw, ins *i, const shape *old)
{
    if (rw->opt.shapes == SHAPES_EAGER)
        return eager_cascade(rw, i, old);
    if (shape_equal(old, &i->sh) || i->nusers == 0)
        return true;
    graft_error sub;
    ins *p = pending_insert(i->next, i, old, NULL, 0, &sub);
    if (!p) {
        driver_fail(rw, "%s", sub.message);
        return false;
    }
    rw->pending_inserted++;
    ins_replace_all_uses(i, p);
    for (int k = 0; k < p->nusers; k++)
        worklist_push(&rw->wl, p->users[k]);
    worklist_push(&rw->wl, p);
    return true;
}

/* ======================================================================
 * Debugging aids: fingerprints, trace records
 * ====================================================================== */

uint64_t driver_fingerprint(const ins *i)
{
    uint64_t h = hash_string(HASH_FNV_OFFSET, i->opname);
    for (int k = 0; k < i->nattrs; k++)
        h = hash_attr_value(hash_mix(h, (uint64_t)k), i->attrs[k].v);
    for (int k = 0; k < i->nargs; k++)
        h = hash_mix(h, (uint64_t)(uintptr_t)i->args[k]);
    for (int k = 0; k < i->nmods; k++)
        h = hash_mix(h, (uint64_t)(uintptr_t)i->mods[k]);
    h = hash_mix(h, (uint64_t)i->sh.type);
    for (int k = 0; k < i->sh.rank; k++)
        h = hash_mix(hash_mix(h, (uint64_t)i->sh.lens[k]), (uint64_t)i->sh.strides[k]);
    if (i->data)
        h = hash_mix(h, (uint64_t)(uintptr_t)i->data);
    return h;
}

static const char *ins_label(const ins *i, char *buf, size_t size)
{
    if (i->name)
        return i->name;
    snprintf(buf, size, "%%%u", (unsigned)i->id);
    return buf;
}

const char *driver_format_ins(const ins *i, char *buf, size_t size)
{
    size_t at = 0;
    char nm[32];
#define PUT(...)                                                                                \
    do {                                                                                        \
        if (at < size)                                                                          \
            at += (size_t)snprintf(buf + at, size - at, __VA_ARGS__);                           \
    } while (0)
    PUT("%s = %s", ins_label(i, nm, sizeof nm), i->opname);
    if (i->param)
        PUT(":%s", i->param);
    if (i->nattrs) {
        PUT("[");
        for (int k = 0; k < i->nattrs; k++) {
            char v[256];
            attr_value_print(i->attrs[k].v, v, sizeof v);
            PUT("%s%s=%s", k ? "," : "", i->attrs[k].key, v);
        }
        PUT("]");
    }
    if (i->nargs || !(i->op->classes & OPC_BUILTIN)) {
        PUT("(");
        for (int k = 0; k < i->nargs; k++)
            PUT("%s%s", k ? "," : "", ins_label(i->args[k], nm, sizeof nm));
        PUT(")");
    }
    if (!shape_is_tuple(&i->sh)) {
        char s[512];
        shape_print(&i->sh, s, sizeof s);
        PUT(" -> %s", s);
    }
#undef PUT
    if (size)
        buf[size - 1 < at ? size - 1 : at] = '\0';
    return buf;
}

/* Appends "  <mark> <instruction>\n" to a trace record. */
static void append_ins_line(strbuf *s, const char *mark, const ins *i)
{
    char line[1024];
    driver_format_ins(i, line, sizeof line);
    strbuf_appendf(s, "  %s %s\n", mark, line);
}

/* The instructions a match at root looks at: the root and, two levels up,
 * the operands that are not parameters or literals. */
char *driver_trace_before(const ins *root)
{
    const ins *seen[16];
    int nseen = 0;
    const ins *level[16];
    int nlevel = 0;
    level[nlevel++] = root;
    for (int depth = 0; depth < 3 && nlevel; depth++) {
        const ins *next[16];
        int nnext = 0;
        for (int k = 0; k < nlevel; k++) {
            const ins *i = level[k];
            bool dup = false;
            for (int j = 0; j < nseen; j++)
                dup |= seen[j] == i;
            if (dup || nseen == 16)
                continue;
            seen[nseen++] = i;
            for (int a = 0; a < i->nargs && nnext < 16; a++)
                if (!(i->args[a]->op->classes & OPC_BUILTIN))
                    next[nnext++] = i->args[a];
        }
        memcpy(level, next, (size_t)nnext * sizeof *next);
        nlevel = nnext;
    }
    /* Program order reads best. */
    for (int a = 1; a < nseen; a++)
        for (int b = a; b > 0 && seen[b]->order < seen[b - 1]->order; b--) {
            const ins *t = seen[b];
            seen[b] = seen[b - 1];
            seen[b - 1] = t;
        }
    strbuf s = {0};
    for (int k = 0; k < nseen; k++)
        append_ins_line(&s, "-", seen[k]);
    return strbuf_take(&s, NULL);
}

void driver_trace_commit(rewriter *rw, ins *old, ins *rep)
{
    if (!rw->opt.trace)
        return;
    const rule_stat *st = &rw->stats[rw->txn_rule];
    strbuf s = {0};
    char nm[32], nm2[32];
    strbuf_appendf(&s, "fire %s (%s:%d) [%s] at %s\n", st->name, st->file ? st->file : "?",
                   st->line, st->set,
                   rw->txn_root ? ins_label(rw->txn_root, nm, sizeof nm) : "?");
    if (rw->trace_before)
        strbuf_append_string(&s, rw->trace_before);
    for (int k = 0; k < rw->ninserted; k++)
        if (!(rw->inserted[k]->flags & INS_REMOVED))
            append_ins_line(&s, "+", rw->inserted[k]);
    for (int k = 0; k < rw->nargs_log; k++)
        if (!(rw->args_log[k].i->flags & INS_REMOVED))
            append_ins_line(&s, "~", rw->args_log[k].i);
    if (old && rep)
        strbuf_appendf(&s, "  = uses of %s now read %s\n", ins_label(old, nm, sizeof nm),
                       ins_label(rep, nm2, sizeof nm2));
    else if (rw->txn_root && !(rw->txn_root->flags & INS_REMOVED))
        append_ins_line(&s, "~", rw->txn_root);
    char *text = strbuf_take(&s, NULL);
    if (text)
        rw->opt.trace(rw->opt.trace_ctx, text);
    free(text);
}

/* ======================================================================
 * The driver
 * ====================================================================== */

void driver_options_init(driver_options *o)
{
    memset(o, 0, sizeof *o);
    o->max_iterations = 10;
    o->max_rewrites = -1;
    o->shapes = SHAPES_LAZY;
}

const char *driver_stop_name(driver_stop s)
{
    switch (s) {
    case DRIVER_CONVERGED: return "converged";
    case DRIVER_MAX_ITERATIONS: return "max iterations";
    case DRIVER_MAX_REWRITES: return "max rewrites";
    case DRIVER_RULE_BUDGET: return "rule budget";
    case DRIVER_ERROR: return "error";
    }
    return "?";
}

void driver_result_free(driver_result *res)
{
    free(res->rules);
    res->rules = NULL;
    res->nrules = 0;
}

/* Puts every live instruction of every module on the list so that pops come
 * in program order (the stack is filled back to front), or in a seeded
 * random order. */
static void seed_worklist(rewriter *rw)
{
    for (module *m = rw->g->first_module; m; m = m->next)
        if (!driver_is_region_body(rw, m))
            for (ins *i = m->last; i; i = i->prev)
            worklist_push(&rw->wl, i);
}

/* Makes set s the one rw_attempt counts in (cur_set and what it reads of
 * it: driver_internal.h). */
static void enter_set(rewriter *rw, int s)
{
    rw->cur_set = s;
    rw->set_base = rw->base[s];
    rw->set_nrules = rw->sets[s]->nrules;
    rw->set_stats = &rw->stats[rw->base[s]];
}

static void visit(rewriter *rw, ins *i);

static bool stopping(const rewriter *rw) { return rw->failed || rw->stop_max_rewrites; }

/* Shuffled mode: the whole graph on the list, popped in a seeded order. */
static void sweep_shuffled(rewriter *rw)
{
    seed_worklist(rw);
    ins *i;
    while (!stopping(rw) && (i = worklist_pop(&rw->wl)))
        if (!(i->flags & INS_REMOVED))
            visit(rw, i);
}

/* The first live instruction of m after order key `key`. */
static ins *first_after(module *m, uint64_t key)
{
    ins *i = m->first;
    while (i && i->order <= key)
        i = i->next;
    return i;
}

/* Program order: the same as seeding the list with every instruction in
 * program order, without touching each instruction twice. A cursor walks
 * the module; after each visit, what the rewrite re-queued is drained at
 * once, except instructions still ahead of the cursor, which the cursor
 * reaches anyway. */
enum { SCRATCH_KEEP = 16 * 1024 };

static void sweep_in_order(rewriter *rw)
{
    for (module *m = rw->g->first_module; m && !stopping(rw); m = m->next) {
        if (driver_is_region_body(rw, m))
            continue;
        ins *cur = m->first;
        while (cur && !stopping(rw)) {
            /* Safe point: the worklist is drained (what driver_erase took
             * off it left a hole, not a pointer), cur is live, `next` is
             * not taken yet and no match is open (its logs are cleared
             * before they are read again). Nothing holds what was erased,
             * so its storage can take the next instructions built. */
            for (; rw->nretired; rw->nretired--)
                graph_recycle_ins(rw->g, rw->retired[rw->nretired - 1]);
            /* No rule is running, so no helper result is held either:
             * the scratch arena is emptied once it holds a few KB (an
             * arena_reset per step would cost more than it saves; as
             * integers, a new chunk or a first one reads as far enough). */
            if ((uintptr_t)rw->scratch.cur - (uintptr_t)rw->scratch_empty > SCRATCH_KEEP) {
                arena_reset(&rw->scratch);
                rw->scratch_empty = rw->scratch.cur;
            }
            uint64_t key = cur->order;
            ins *next = cur->next;
            ins_prefetch_ahead(cur);
            if (!rw->changed)
                cse_probe_next(&rw->probe, cur);
            visit(rw, cur);
            ins *i;
            while (!stopping(rw) && (i = worklist_pop(&rw->wl))) {
                if (i->flags & INS_REMOVED)
                    continue;
                if (i->mod == m && i->order > key)
                    continue; /* the cursor gets there */
                visit(rw, i);
            }
            if (!(cur->flags & INS_REMOVED))
                cur = cur->next;
            else if (next && !(next->flags & INS_REMOVED) && next->order > key)
                cur = next;
            else
                cur = first_after(m, key);
        }
    }
}

/* The bodies of the graph's `fused` instructions, which no sweep enters. */
static void collect_region_bodies(rewriter *rw)
{
    ptr_set_clear(&rw->bodies);
    /* A graph of one module has no region bodies: skip the walk, which
     * would otherwise touch every instruction on every sweep. */
    if (rw->g->nmodules <= 1)
        return;
    for (module *m = rw->g->first_module; m; m = m->next)
        for (ins *i = m->first; i; i = i->next)
            if ((i->op->classes & OPC_REGION) && i->nmods == 1 &&
                !driver_add_region_body(rw, i->mods[0]))
                driver_fail(rw, "out of memory");
}

rewriter *driver_explain_rewriter(graph *g)
{
    rewriter *rw = calloc(1, sizeof *rw);
    if (rw) {
        rw->g = g;
        rw->failed = true; /* rw_attempt refuses: explaining never rewrites */
    }
    return rw;
}

static bool setup(rewriter *rw, graph *g, const rule_set *const *sets, int nsets,
                  const driver_options *opt, graft_error *err)
{
    memset(rw, 0, sizeof *rw);
    rw->g = g;
    if (opt)
        rw->opt = *opt;
    else
        driver_options_init(&rw->opt);
    if (rw->opt.max_iterations <= 0)
        rw->opt.max_iterations = 10;
    worklist_init(&rw->wl, rw->opt.shuffle_seed);
    /* Sampled rule times (rw_attempt): any nonzero xorshift seed will do. */
    rw->tick_rng = 0x9E3779B97F4A7C15ull;
    rw->tick_skip = TIME_ONE_IN;
    rw->sets = sets;
    rw->nsets = nsets;
    rw->base = calloc((size_t)nsets + 1, sizeof *rw->base);
    if (!rw->base)
        return error_set(err, "out of memory");
    for (int s = 0; s < nsets; s++) {
        rw->base[s] = rw->nstats;
        rw->nstats += sets[s]->nrules;
    }
    rw->base[nsets] = rw->nstats;
    rw->stats = calloc((size_t)rw->nstats + 1, sizeof *rw->stats);
    if (!rw->stats)
        return error_set(err, "out of memory");
    if (nsets > 0)
        enter_set(rw, 0);
    for (int s = 0; s < nsets; s++)
        for (int r = 0; r < sets[s]->nrules; r++) {
            rule_stat *st = &rw->stats[rw->base[s] + r];
            const rule_info *ri = &sets[s]->rules[r];
            st->set = sets[s]->name;
            st->name = ri->name;
            st->file = ri->file;
            st->line = ri->line;
            st->flags = ri->flags;
        }
    for (int d = 0; d < rw->opt.ndisabled; d++) {
        bool found = false;
        for (int k = 0; k < rw->nstats; k++)
            if (strcmp(rw->stats[k].name, rw->opt.disabled[d]) == 0)
                rw->stats[k].disabled = found = true;
        if (!found)
            return error_set(err, "--disable %s: no rule of that name in the rule sets run",
                             rw->opt.disabled[d]);
    }
    /* Without --max-rewrites a generous cap still holds, so that a rule set
     * that cycles stops with a reason instead of running forever. */
    if (rw->opt.max_rewrites < 0)
        rw->opt.max_rewrites = 64 * (int64_t)graph_count(g) + 4096;
    rw->recycle = true;
    rw->recycle_from = g->next_id;
    rw->tmp = &rw->scratch; /* memset above: an empty arena */
    rw->budget = rw->opt.nondecreasing_budget > 0 ? rw->opt.nondecreasing_budget
                                                  : 2 * (int64_t)graph_count(g) + 16;
    return true;
}

static void teardown(rewriter *rw)
{
    worklist_free(&rw->wl);
    free(rw->base);
    free(rw->inserted);
    free(rw->args_log);
    free(rw->attrs_log);
    free(rw->trace_before);
    free(rw->dead);
    free(rw->retired);
    arena_free(&rw->scratch);
    rw->tmp = NULL;
    /* The caller vouches for nothing the driver recycled. */
    if (rw->g)
        graph_drop_recycled(rw->g);
    free(rw->txn_modules);
    ptr_set_free(&rw->bodies);
    /* stats are handed to the result */
}

/* Offers i to each rule set until one fires. */
static void visit(rewriter *rw, ins *i)
{
    /* Counted for driver_result.pending_seen: a sweep visits every
     * instruction of the modules it sweeps (the cursor, or the seeded list
     * when shuffled), so after a sweep that changed nothing a count of 0
     * says no pending op is left and the shape pass has nothing to do. */
    rw->pending_seen += i->op == rw->pending_op;
    /* (An instruction with users is not dead: no call to ask.) */
    if (i->nusers == 0 && ins_is_dead(i)) {
        driver_erase(rw, i);
        return;
    }
    if (i->op->classes & OPC_BUILTIN)
        return;
    for (int s = 0; s < rw->nsets; s++) {
        if (s != rw->cur_set)
            enter_set(rw, s);
        int r = rw->sets[s]->apply(rw, i);
        if (rw->txn == TXN_OPEN) {
            /* The rule neither committed nor aborted: treat as an abort. */
            rw_abort(rw);
            driver_fail(rw, "rule %s (%s:%d) returned without committing or aborting",
                        rw->stats[rw->txn_rule].name, rw->stats[rw->txn_rule].file,
                        rw->stats[rw->txn_rule].line);
        }
        rw->txn = TXN_NONE;
        if (r >= 0 || rw->failed || rw->stop_max_rewrites || (i->flags & INS_REMOVED))
            return;
    }
}

bool driver_run(graph *g, const rule_set *const *sets, int nsets, const driver_options *opt,
                driver_result *res, graft_error *err)
{
    memset(res, 0, sizeof *res);
    rewriter rw;
    if (!setup(&rw, g, sets, nsets, opt, err)) {
        free(rw.stats);
        teardown(&rw);
        return false;
    }
    driver_stop stop = DRIVER_MAX_ITERATIONS;
    int iter = 0;
    uint64_t ns0 = driver_now_ns(), ticks0 = driver_ticks();
    rw.pending_op = op_pending();
    while (iter < rw.opt.max_iterations) {
        iter++;
        rw.changed = false;
        rw.pending_seen = 0;
        rw.probe = (cse_probe){0};
        /* Bodies of regions erased last sweep (merged into bigger ones) go
         * now: no sweep may enter them. */
        if (rw.region_died && iter > 1)
            graph_prune_modules(g);
        collect_region_bodies(&rw);
        if (rw.opt.shuffle_seed)
            sweep_shuffled(&rw);
        else
            sweep_in_order(&rw);
        if (rw.wl.oom)
            driver_fail(&rw, "out of memory");
        if (rw.failed) {
            stop = DRIVER_ERROR;
            break;
        }
        if (rw.stop_max_rewrites) {
            stop = DRIVER_MAX_REWRITES;
            break;
        }
        if (!rw.changed) {
            stop = rw.budget_exhausted ? DRIVER_RULE_BUDGET : DRIVER_CONVERGED;
            break;
        }
    }
    /* Rule times were counted in ticks. */
    uint64_t ns = driver_now_ns() - ns0, ticks = driver_ticks() - ticks0;
    double ns_per_tick = ticks ? (double)ns / (double)ticks : 0.0;
    for (int k = 0; k < rw.nstats; k++)
        rw.stats[k].ns = (uint64_t)((double)rw.stats[k].ns * ns_per_tick);
    /* The bodies of regions that died leave with them (one walk for all). */
    if (rw.region_died)
        graph_prune_modules(g);
    res->stop = stop;
    res->converged = stop == DRIVER_CONVERGED;
    res->iterations = iter;
    res->rewrites = rw.rewrites;
    res->erased = rw.erased;
    res->aborted = rw.aborted;
    res->pending_inserted = rw.pending_inserted;
    res->shape_recomputes = rw.shape_recomputes;
    res->pending_seen = rw.pending_seen;
    /* The cursor offers every instruction of every swept module to the
     * probe (sweep_in_order; shuffled sweeps do not probe), and with one
     * module that is every instruction of the graph. */
    res->cse_clean = stop == DRIVER_CONVERGED && !rw.opt.shuffle_seed && g->nmodules <= 1 &&
                     !rw.probe.maybe;
    res->rules = rw.stats;
    res->nrules = rw.nstats;
    if (rw.failed)
        res->error = rw.err;
    teardown(&rw);
    return true;
}
