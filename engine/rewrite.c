/* rewrite.c: the rw_* functions compiled rules call (contract: rewrite.h).
 *
 * A match is a small transaction. rw_attempt opens it (or refuses: rule
 * disabled, rewrite budget spent); rw_insert / rw_literal / rw_set_arg /
 * rw_set_attrs build the replacement and log what they did; rw_replace or
 * rw_commit_in_place commit it, telling the driver what to look at again;
 * rw_abort undoes the log in reverse, so an aborted match leaves the graph
 * exactly as it found it. rw_region has a fused region outlined (region.h)
 * into a new body module and logs what that made; rw_replace_region commits
 * it, and an abort takes the body out of the graph. Counters and time per
 * rule are kept here.
 */
#include "driver_internal.h"
#include "lazy_shapes.h"
#include "region.h"
#include "region_merge.h"

#include <stdlib.h>

static rule_stat *current_rule(rewriter *rw) { return &rw->stats[rw->txn_rule]; }

static void clear_logs(rewriter *rw)
{
    rw->ninserted = 0;
    rw->ntxn_modules = 0;
    rw->nargs_log = 0;
    rw->nattrs_log = 0;
    /* Only a traced run has one: no call into the allocator per attempt. */
    if (rw->trace_before) {
        free(rw->trace_before);
        rw->trace_before = NULL;
    }
}

/* rw_attempt's rarer paths, out of line so that its usual one (checks,
 * counters, no timing) saves and restores no registers: most attempts
 * fail their first guard, and that path is a good part of their cost. */
static __attribute__((noinline)) bool attempt_out_of_range(rewriter *rw, int rule)
{
    driver_fail(rw, "rule set %s: rule index %d out of range (%d rules)",
                rw->sets[rw->cur_set]->name, rule, rw->set_nrules);
    return false;
}

/* A timed attempt (st's first TIME_EVERY_ATTEMPT, or a sampled one: see
 * TIME_ONE_IN) reads the clock; the weight says how many it stands for. */
static __attribute__((noinline)) bool attempt_timed(rewriter *rw, const rule_stat *st)
{
    if (st->attempts <= TIME_EVERY_ATTEMPT) {
        rw->txn_weight = 1;
    } else {
        uint64_t x = rw->tick_rng;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        rw->tick_rng = x;
        rw->tick_skip = 1 + (uint32_t)(x % (2 * TIME_ONE_IN - 1));
        rw->txn_weight = TIME_ONE_IN;
    }
    rw->txn_start = driver_ticks();
    return true;
}

/* Timed or not (TIME_EVERY_ATTEMPT, driver_internal.h): the attempt's own
 * time, from here to its commit or abort, is what a timed one measures
 * (the operand tests of the decision tree before it are charged to no
 * rule). The end of every attempt that opens. */
static inline bool attempt_timing(rewriter *rw, const rule_stat *st)
{
    if (st->attempts <= TIME_EVERY_ATTEMPT || --rw->tick_skip == 0)
        return attempt_timed(rw, st);
    rw->txn_weight = 0;
    return true;
}

/* Traced runs (or a trace left over): clear_logs frees it, and the
 * instructions before the match are kept for the trace. */
static __attribute__((noinline)) bool attempt_traced(rewriter *rw, const rule_stat *st, ins *root)
{
    clear_logs(rw);
    if (rw->opt.trace)
        rw->trace_before = driver_trace_before(root);
    return attempt_timing(rw, st);
}

static __attribute__((noinline)) bool attempt_after_abort(rewriter *rw, int rule, ins *root)
{
    rw_abort(rw);
    return rw_attempt(rw, rule, root); /* the match is closed now: no third call */
}

bool rw_attempt(rewriter *rw, int rule, ins *root)
{
    if (rw->txn == TXN_OPEN)
        return attempt_after_abort(rw, rule, root);
    if (rw->failed || rw->stop_max_rewrites)
        return false;
    /* (unsigned: a negative rule is out of range too) */
    if ((unsigned)rule >= (unsigned)rw->set_nrules)
        return attempt_out_of_range(rw, rule);
    rule_stat *st = &rw->set_stats[rule];
    if (st->disabled)
        return false;
    if (rw->opt.max_rewrites >= 0 && (int64_t)rw->rewrites >= rw->opt.max_rewrites) {
        rw->stop_max_rewrites = true;
        return false;
    }
    if ((st->flags & RULE_NONDECREASING) && (int64_t)st->fires >= rw->budget) {
        rw->budget_exhausted = true;
        return false;
    }
    st->attempts++;
    rw->txn = TXN_OPEN;
    rw->txn_rule = rw->set_base + rule;
    rw->txn_root = root;
    /* clear_logs, with its free of a trace out of line */
    rw->ninserted = 0;
    rw->ntxn_modules = 0;
    rw->nargs_log = 0;
    rw->nattrs_log = 0;
    if (rw->trace_before || rw->opt.trace)
        return attempt_traced(rw, st, root);
    return attempt_timing(rw, st);
}

static void note_inserted(rewriter *rw, ins *i)
{
    if (!grow((void **)&rw->inserted, &rw->inserted_cap, rw->ninserted + 1, sizeof *rw->inserted)) {
        driver_fail(rw, "out of memory");
        return;
    }
    rw->inserted[rw->ninserted++] = i;
}

ins *rw_insert(rewriter *rw, ins *before, const op_def *op, const attr *attrs, int nattrs,
               ins *const *args, int nargs)
{
    if (rw->txn == TXN_NONE || !op)
        return NULL;
    if (!before)
        before = rw->txn_root;
    graft_error sub;
    ins *i = module_insert(before->mod, before, op, attrs, nattrs, args, nargs, &sub);
    if (!i)
        return NULL;
    /* A replacement that builds the same instruction twice (b(t(x), t(x)))
     * gets one: the first, built earlier in this transaction. */
    for (int k = 0; k < rw->ninserted; k++) {
        ins *j = rw->inserted[k];
        bool same = !(j->flags & INS_REMOVED) && j->op == i->op && j->mod == i->mod &&
                    j->nargs == i->nargs && j->nattrs == i->nattrs && j->nmods == 0 && !j->data;
        for (int a = 0; same && a < i->nargs; a++)
            same = j->args[a] == i->args[a];
        for (int a = 0; same && a < i->nattrs; a++)
            same = attr_value_equal(j->attrs[a].v, i->attrs[a].v);
        if (same) {
            module_remove(i);
            return j;
        }
    }
    note_inserted(rw, i);
    return i;
}

ins *rw_literal(rewriter *rw, ins *before, const shape *sh, const void *data)
{
    if (rw->txn == TXN_NONE)
        return NULL;
    if (!before)
        before = rw->txn_root;
    ins *i = module_add_literal(before->mod, sh, data);
    if (!i)
        return NULL;
    module_move_before(i, before);
    note_inserted(rw, i);
    return i;
}

void rw_set_arg(rewriter *rw, ins *i, int k, ins *v)
{
    if (rw->txn == TXN_NONE || k < 0 || k >= i->nargs || i->args[k] == v)
        return;
    if (v->mod != i->mod || !ins_before(v, i)) {
        driver_fail(rw, "rule %s (%s:%d): rw_set_arg gives an instruction an operand that does "
                        "not precede it",
                    current_rule(rw)->name, current_rule(rw)->file, current_rule(rw)->line);
        return;
    }
    if (!grow((void **)&rw->args_log, &rw->args_log_cap, rw->nargs_log + 1, sizeof *rw->args_log)) {
        driver_fail(rw, "out of memory");
        return;
    }
    rw->args_log[rw->nargs_log++] = (arg_change){i, k, i->args[k]};
    ins_set_arg(i, k, v);
}

bool rw_set_attrs(rewriter *rw, ins *i, const attr *attrs, int nattrs)
{
    if (rw->txn == TXN_NONE || (i->op->classes & (OPC_BUILTIN | OPC_OPAQUE)))
        return false;
    arena *a = &rw->g->mem;
    int n = i->op->nattrs;
    attr *merged = arena_alloc(a, (size_t)(n + nattrs + 1) * sizeof *merged);
    attr *norm = arena_alloc(a, (size_t)(n + 1) * sizeof *norm);
    if (!merged || !norm)
        return false;
    int m = 0;
    for (int k = 0; k < n; k++)
        if (!attr_find(attrs, nattrs, i->attrs[k].key))
            merged[m++] = i->attrs[k];
    for (int k = 0; k < nattrs; k++)
        merged[m++] = attrs[k];
    graft_error sub;
    if (!attrs_normalize(a, i->op, merged, m, norm, &sub))
        return false;
    bool same = true;
    for (int k = 0; k < n && same; k++)
        same = attr_value_equal(norm[k].v, i->attrs[k].v);
    if (same)
        return true;
    if (!grow((void **)&rw->attrs_log, &rw->attrs_log_cap, rw->nattrs_log + 1,
              sizeof *rw->attrs_log)) {
        driver_fail(rw, "out of memory");
        return false;
    }
    rw->attrs_log[rw->nattrs_log++] = (attrs_change){i, i->attrs};
    i->attrs = norm;
    /* attrs no longer starts i's own block (ir.h, attrs_cap): the block is
     * not reused, since the log (undo) may point at it again. */
    i->attrs_cap = 0;
    return true;
}

/* Charges a timed attempt's time to its rule, times its weight (a sample
 * stands for TIME_ONE_IN attempts: rw_attempt). */
static void finish_timing(rewriter *rw)
{
    if (rw->txn_weight)
        current_rule(rw)->ns += (driver_ticks() - rw->txn_start) * rw->txn_weight;
}

/* Undoes the log: operand and attribute changes in reverse, then the
 * inserted instructions, newest first. */
static void undo(rewriter *rw)
{
    for (int k = rw->nargs_log - 1; k >= 0; k--) {
        arg_change *c = &rw->args_log[k];
        ins_set_arg(c->i, c->k, c->old);
    }
    for (int k = rw->nattrs_log - 1; k >= 0; k--)
        rw->attrs_log[k].i->attrs = rw->attrs_log[k].old; /* attrs_cap stays 0 (rw_set_attrs) */
    for (int k = rw->ninserted - 1; k >= 0; k--) {
        ins *i = rw->inserted[k];
        if ((i->flags & INS_REMOVED) || i->nusers)
            continue;
        worklist_drop(&rw->wl, i);
        module_remove(i);
    }
    /* Region bodies made by the match leave the graph (their memory stays in
     * the arena), so neither graph_verify nor the writer sees an orphan. */
    for (int k = rw->ntxn_modules - 1; k >= 0; k--) {
        module *m = rw->txn_modules[k];
        graph_remove_module(rw->g, m);
        driver_forget_region_body(rw, m);
    }
    clear_logs(rw);
}

/* An abort with something to undo, a trace to free or a time to take. */
static __attribute__((noinline)) void abort_logged(rewriter *rw)
{
    undo(rw);
    finish_timing(rw);
    rw->aborted++;
    rw->txn = TXN_NONE;
}

void rw_abort(rewriter *rw)
{
    if (rw->txn != TXN_OPEN)
        return;
    /* Most aborts are of untimed attempts whose guard failed: nothing
     * logged, no trace, no clock to read; undo would only walk empty logs
     * and zero their counts again. That path stays a leaf. */
    if ((rw->ninserted | rw->nargs_log | rw->nattrs_log | rw->ntxn_modules) || rw->trace_before ||
        rw->txn_weight) {
        abort_logged(rw);
        return;
    }
    rw->aborted++;
    rw->txn = TXN_NONE;
}

/* Counts the match as fired and re-queues what it inserted. */
static void commit(rewriter *rw)
{
    if (rw->txn != TXN_OPEN)
        return;
    rule_stat *st = current_rule(rw);
    st->fires++;
    rw->rewrites++;
    rw->changed = true;
    rw->txn = TXN_COMMITTED;
    for (int k = 0; k < rw->ninserted; k++)
        worklist_push(&rw->wl, rw->inserted[k]);
    finish_timing(rw);
}

/* The self-check of debug builds (not NDEBUG): a rule said it fired and
 * nothing changed. */
#ifndef NDEBUG
static void no_change(rewriter *rw)
{
    rule_stat *st = current_rule(rw);
    undo(rw);
    finish_timing(rw);
    rw->txn = TXN_NONE;
    driver_fail(rw, "rule %s (%s:%d) reported success but the graph did not change", st->name,
                st->file ? st->file : "?", st->line);
}
#endif

void rw_replace(rewriter *rw, ins *old, ins *rep)
{
    if (rw->txn == TXN_NONE) {
        driver_fail(rw, "rw_replace called outside a match");
        return;
    }
    rule_stat *st = current_rule(rw);
#ifndef NDEBUG
    if (rw->txn == TXN_OPEN && rw->nargs_log == 0 && rw->nattrs_log == 0 &&
        (old == rep ||
         (old->op == rep->op && driver_fingerprint(old) == driver_fingerprint(rep)))) {
        no_change(rw);
        return;
    }
#endif
    if (old == rep) {
        commit(rw);
        return;
    }
    if (old->sh.type != rep->sh.type || shape_elements(&old->sh) != shape_elements(&rep->sh)) {
        char a[256], b[256];
        shape_print(&old->sh, a, sizeof a);
        shape_print(&rep->sh, b, sizeof b);
        if (rw->txn == TXN_OPEN)
            rw_abort(rw);
        driver_fail(rw, "rule %s (%s:%d) replaced a value of shape %s with one of shape %s",
                    st->name, st->file ? st->file : "?", st->line, a, b);
        return;
    }
    for (int k = 0; k < old->nusers; k++) {
        if (old->users[k] != rep && !ins_before(rep, old->users[k])) {
            if (rw->txn == TXN_OPEN)
                rw_abort(rw);
            driver_fail(rw, "rule %s (%s:%d): the replacement does not precede a user of the "
                            "replaced value",
                        st->name, st->file ? st->file : "?", st->line);
            return;
        }
    }
    commit(rw);
    ins *target = rep;
    shape old_shape = old->sh;
    if (!shape_equal(&old->sh, &rep->sh) && old->nusers) {
        bool lens_kept = shape_same_lens(&old->sh, &rep->sh);
        if (!(rw->opt.shapes == SHAPES_EAGER && lens_kept)) {
            graft_error sub;
            ins *p = pending_insert(rep->next, rep, &old->sh, NULL, 0, &sub);
            if (!p) {
                driver_fail(rw, "rule %s: %s", st->name, sub.message);
                return;
            }
            rw->pending_inserted++;
            worklist_push(&rw->wl, p);
            target = p;
        }
    }
    ins_replace_all_uses(old, target);
    for (int k = 0; k < target->nusers; k++)
        worklist_push(&rw->wl, target->users[k]);
    driver_trace_commit(rw, old, target);
    if (rw->opt.shapes == SHAPES_EAGER) {
        if (target != rep)
            old_shape = target->sh;
        driver_shape_changed(rw, target, &old_shape);
    }
    if (ins_is_dead(old))
        driver_erase(rw, old);
}

void rw_commit_in_place(rewriter *rw, ins *root)
{
    if (rw->txn == TXN_NONE) {
        driver_fail(rw, "rw_commit_in_place called outside a match");
        return;
    }
    if (rw->txn == TXN_COMMITTED)
        return;
#ifndef NDEBUG
    /* In place, the root changes only through rw_set_arg / rw_set_attrs,
     * which log only real changes: an empty log means nothing changed. */
    if (rw->nargs_log == 0 && rw->nattrs_log == 0) {
        no_change(rw);
        return;
    }
#endif
    /* The instructions changed in place: root and whatever the log names. */
    int ntouched = 1 + rw->nargs_log + rw->nattrs_log;
    ins **touched = malloc((size_t)ntouched * sizeof *touched);
    shape *old = malloc((size_t)ntouched * sizeof *old);
    if (!touched || !old) {
        free(touched);
        free(old);
        driver_fail(rw, "out of memory");
        return;
    }
    int n = 0;
    touched[n++] = root;
    for (int k = 0; k < rw->nargs_log; k++)
        touched[n++] = rw->args_log[k].i;
    for (int k = 0; k < rw->nattrs_log; k++)
        touched[n++] = rw->attrs_log[k].i;
    /* Distinct, in program order, so a recomputed operand is seen first. */
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && touched[b]->order < touched[b - 1]->order; b--) {
            ins *t = touched[b];
            touched[b] = touched[b - 1];
            touched[b - 1] = t;
        }
    int m = 0;
    for (int k = 0; k < n; k++)
        if (!m || touched[m - 1] != touched[k])
            touched[m++] = touched[k];
    n = m;
    bool ok = true;
    for (int k = 0; k < n && ok; k++) {
        old[k] = touched[k]->sh;
        graft_error sub;
        ok = ins_recompute_shape(touched[k], &sub);
    }
    if (!ok) {
        for (int k = 0; k < n; k++)
            touched[k]->sh = old[k];
        rw_abort(rw);
        free(touched);
        free(old);
        return;
    }
    commit(rw);
    for (int k = 0; k < n; k++) {
        worklist_push(&rw->wl, touched[k]);
        for (int u = 0; u < touched[k]->nusers; u++)
            worklist_push(&rw->wl, touched[k]->users[u]);
    }
    driver_trace_commit(rw, NULL, NULL);
    for (int k = 0; k < n && !rw->failed; k++)
        driver_shape_changed(rw, touched[k], &old[k]);
    /* Operands an instruction stopped reading may be dead now. */
    for (int k = 0; k < rw->nargs_log; k++) {
        ins *was = rw->args_log[k].old;
        if (!(was->flags & INS_REMOVED)) {
            if (ins_is_dead(was))
                driver_erase(rw, was);
            else
                worklist_push(&rw->wl, was);
        }
    }
    free(touched);
    free(old);
}

/* ---- fused regions (the outlining itself: region.h) ---- */

/* A new body module, logged so that rw_abort takes it out of the graph. */
static module *new_region_module(rewriter *rw, const module *parent)
{
    module *m = region_add_body_module(rw->g, parent, &rw->next_region);
    if (!m)
        return NULL;
    if (!grow((void **)&rw->txn_modules, &rw->txn_modules_cap, rw->ntxn_modules + 1,
              sizeof *rw->txn_modules)) {
        graph_remove_module(rw->g, m);
        return NULL;
    }
    rw->txn_modules[rw->ntxn_modules++] = m;
    if (!driver_add_region_body(rw, m))
        return NULL; /* logged: rw_abort unlinks it */
    return m;
}

ins *rw_region(rewriter *rw, ins *before, ins *const *members, int nmembers, ins *const *outputs,
               int noutputs, ins **replacements)
{
    if (rw->txn != TXN_OPEN || !replacements)
        return NULL;
    region_plan plan;
    if (!region_plan_members(&plan, before ? before : rw->txn_root, members, nmembers, outputs,
                             noutputs))
        return NULL;
    module *body = new_region_module(rw, plan.mod);
    ins *region = body ? region_outline(&plan, body, replacements) : NULL;
    if (region)
        note_inserted(rw, region);
    for (int k = 0; region && noutputs > 1 && k < noutputs; k++)
        note_inserted(rw, replacements[k]);
    region_plan_free(&plan);
    return region;
}

void rw_replace_region(rewriter *rw, ins *const *members, int nmembers, ins *const *outputs,
                       ins *const *replacements, int noutputs)
{
    if (rw->txn != TXN_OPEN) {
        driver_fail(rw, "rw_replace_region called outside an open match");
        return;
    }
    rule_stat *st = current_rule(rw);
    for (int k = 0; k < noutputs; k++) {
        const ins *old = outputs[k], *rep = replacements[k];
        if (!rep || old->sh.type != rep->sh.type || !shape_equal(&old->sh, &rep->sh)) {
            rw_abort(rw);
            driver_fail(rw, "rule %s (%s:%d): region output %d does not have the shape of the "
                            "value it replaces",
                        st->name, st->file ? st->file : "?", st->line, k);
            return;
        }
    }
    commit(rw);
    region_take_over_uses(members, nmembers, outputs, replacements, noutputs);
    /* The users that changed, in the order they changed. */
    for (int k = 0; k < noutputs; k++)
        for (int u = 0; u < replacements[k]->nusers; u++)
            worklist_push(&rw->wl, replacements[k]->users[u]);
    driver_trace_commit(rw, outputs[0], replacements[0]);
    for (int k = nmembers - 1; k >= 0; k--)
        if (!(members[k]->flags & INS_REMOVED) && ins_is_dead(members[k]))
            driver_erase(rw, members[k]);
}

/* Merges parts into one region (region_merge.c plans and outlines it) and
 * hands their uses to it; NULL when the merge is refused. commit_first: the
 * match commits here, as rw_merge's does; otherwise the caller committed
 * already (a split's second merge) and the region is queued instead. */
static ins *merge_parts(rewriter *rw, ins *const *parts, int nparts, bool commit_first)
{
    region_merge_plan plan;
    if (region_merge_plan_make(&plan, parts, nparts) != MERGE_OK)
        return NULL;
    ins **reps = malloc((size_t)plan.noutputs * sizeof *reps);
    module *body = reps ? new_region_module(rw, plan.mod) : NULL;
    ins *region = body ? region_merge_outline(&plan, body, reps) : NULL;
    if (region) {
        note_inserted(rw, region);
        for (int k = 0; plan.noutputs > 1 && k < plan.noutputs; k++)
            note_inserted(rw, reps[k]);
        if (commit_first)
            commit(rw);
        else
            worklist_push(&rw->wl, region);
        region_take_over_uses(plan.inside, plan.ninside, plan.outputs, reps, plan.noutputs);
        for (int k = 0; k < plan.noutputs; k++)
            for (int u = 0; u < reps[k]->nusers; u++)
                worklist_push(&rw->wl, reps[k]->users[u]);
        if (commit_first)
            driver_trace_commit(rw, plan.outputs[0], reps[0]);
        for (int k = plan.ninside - 1; k >= 0; k--)
            if (!(plan.inside[k]->flags & INS_REMOVED) && ins_is_dead(plan.inside[k]))
                driver_erase(rw, plan.inside[k]);
    }
    free(reps);
    region_merge_plan_free(&plan);
    return region;
}

bool rw_merge(rewriter *rw, ins *const *parts, int nparts)
{
    return rw->txn == TXN_OPEN && merge_parts(rw, parts, nparts, true) != NULL;
}

arena *rw_arena(rewriter *rw) { return rw->tmp ? rw->tmp : &rw->g->mem; }

/* ---- splitting a reduction region's tail into its reader ---- */

static bool split_is_region(const ins *i) { return (i->op->classes & OPC_REGION) && i->nmods == 1; }

static bool split_is_view(const ins *i)
{
    return (i->op->classes & (OPC_VIEW | OPC_SHAPE)) && !(i->op->classes & OPC_BUILTIN) &&
           !ins_is(i, "get_tuple_elem") && i->nargs == 1;
}

/* Whether every use of v, directly or through views only it leads to, is
 * by c (and there is one). */
static bool split_only_feeds(const ins *v, const ins *c, int depth)
{
    if (depth > 16 || !v->nusers)
        return false;
    for (int u = 0; u < v->nusers; u++) {
        const ins *w = v->users[u];
        if (w != c && !(split_is_view(w) && split_only_feeds(w, c, depth + 1)))
            return false;
    }
    return true;
}

static int split_body_index(ins *const *body, int n, const ins *x)
{
    for (int k = 0; k < n; k++)
        if (body[k] == x)
            return k;
    return -1;
}

/* Copies body instruction x before pos in pos's module, its operands args. */
static ins *split_copy(rewriter *rw, ins *pos, const ins *x, ins **args)
{
    ins *c;
    if (ins_is(x, "@literal")) {
        c = module_add_literal(pos->mod, &x->sh, x->data);
        if (c)
            module_move_before(c, pos);
    } else {
        graft_error e;
        c = module_insert(pos->mod, pos, x->op, x->attrs, x->nattrs, args, x->nargs, &e);
    }
    if (c)
        note_inserted(rw, c);
    return c && shape_equal(&c->sh, &x->sh) ? c : NULL;
}

bool rw_split_tail(rewriter *rw, ins *p, ins *c)
{
    if (rw->txn != TXN_OPEN || !split_is_region(p) || p == c || p->mod != c->mod)
        return false;
    const module *b = p->mods[0];
    const ins *ret = module_return(b);
    int n = 0;
    for (const ins *i = b->first; i; i = i->next)
        n++;
    if (!ret || !n)
        return false;
    ins **body = malloc((size_t)n * sizeof *body), **inl = calloc((size_t)n, sizeof *inl);
    ins **tail = calloc((size_t)n, sizeof *tail), **args = NULL;
    ins **outs = malloc((size_t)(p->nusers + 1) * sizeof *outs), **parts = NULL;
    bool *in_slice = calloc((size_t)n, sizeof *in_slice);
    int nouts = 0, max_args = 1, nparts = 0;
    bool ok = body && inl && tail && outs && in_slice, any_tail = false;
    n = 0;
    for (ins *i = b->first; ok && i; i = i->next) {
        body[n++] = i;
        max_args = i->nargs > max_args ? i->nargs : max_args;
    }
    ok = ok && (args = malloc((size_t)max_args * sizeof *args)) && (parts = malloc((size_t)(n + 1) * sizeof *parts));
    /* The region's output values and the body values they stand for; the
     * tail is what only c reads. */
    if (ok && !shape_is_tuple(&p->sh))
        outs[nouts++] = p;
    for (int u = 0; ok && shape_is_tuple(&p->sh) && u < p->nusers; u++)
        if (ins_is(p->users[u], "get_tuple_elem"))
            outs[nouts++] = p->users[u];
    ok = ok && nouts > 0;
    for (int k = 0; ok && k < nouts; k++) {
        const attr_value *idx = outs[k] == p ? NULL : ins_attr(outs[k], "index");
        int r = idx ? (idx->kind == ATTR_INT ? (int)idx->u.i : -1) : 0;
        ok = r >= 0 && r < ret->nargs;
        const ins *bv = ok ? ret->args[r] : NULL;
        bool computed = bv && !bv->param && !ins_is(bv, "@literal") && !(bv->op->classes & OPC_REDUCE);
        if (computed && split_only_feeds(outs[k], c, 0)) {
            int at = split_body_index(body, n, bv);
            ok = at >= 0;
            if (ok)
                in_slice[at] = any_tail = true;
        }
    }
    ok = ok && any_tail;
    /* The slice: what the tail needs, back to the parameters, literals and
     * reductions (reverse program order reaches every operand after its
     * users). */
    for (int k = n - 1; ok && k >= 0; k--) {
        if (!in_slice[k])
            continue;
        const ins *i = body[k];
        if (i->param || ins_is(i, "@literal") || (i->op->classes & OPC_REDUCE) || ins_is(i, "@return")) {
            in_slice[k] = false;
            continue;
        }
        for (int a = 0; a < i->nargs; a++) {
            int at = split_body_index(body, k, i->args[a]);
            if (at >= 0)
                in_slice[at] = true;
        }
    }
    /* The body inlined before p, then the slice copied once more. */
    for (int k = 0; ok && k < n; k++) {
        const ins *i = body[k];
        if (ins_is(i, "@return"))
            continue;
        if (i->param) {
            int x = i->param[0] == 'x' ? atoi(i->param + 1) : -1;
            ok = x >= 0 && x < p->nargs;
            if (ok)
                inl[k] = p->args[x];
            continue;
        }
        for (int a = 0; ok && a < i->nargs; a++) {
            int at = split_body_index(body, k, i->args[a]);
            ok = at >= 0 && (args[a] = inl[at]) != NULL;
        }
        ok = ok && (inl[k] = split_copy(rw, p, i, args)) != NULL;
    }
    for (int k = 0; ok && k < n; k++) {
        if (!in_slice[k])
            continue;
        const ins *i = body[k];
        for (int a = 0; ok && a < i->nargs; a++) {
            int at = split_body_index(body, k, i->args[a]);
            ok = at >= 0 && (args[a] = in_slice[at] ? tail[at] : inl[at]) != NULL;
        }
        ok = ok && (tail[k] = split_copy(rw, p, i, args)) != NULL;
        if (ok)
            parts[nparts++] = tail[k];
    }
    /* Every reader of an output now reads a copy: c (and the views on the
     * way to it) the slice's, the others the inlined body's. */
    for (int k = 0; ok && k < nouts; k++) {
        const attr_value *idx = outs[k] == p ? NULL : ins_attr(outs[k], "index");
        int at = split_body_index(body, n, ret->args[idx ? (int)idx->u.i : 0]);
        bool to_tail = at >= 0 && tail[at] && split_only_feeds(outs[k], c, 0);
        ins *v = at < 0 ? NULL : to_tail ? tail[at] : inl[at];
        ok = v != NULL;
        while (ok && outs[k]->nusers) {
            ins *u = outs[k]->users[0];
            int before = outs[k]->nusers;
            for (int a = 0; a < u->nargs; a++)
                if (u->args[a] == outs[k])
                    rw_set_arg(rw, u, a, v);
            ok = outs[k]->nusers < before && !rw->failed;
        }
    }
    parts[nparts++] = c;
    ins *merged = ok ? merge_parts(rw, parts, nparts, true) : NULL;
    if (merged) {
        /* p and the copies no one reads go; the rest of the body becomes a
         * region again (left as plain ops, which the rules fuse anew, if
         * that is refused). */
        for (int k = nouts - 1; k >= 0; k--)
            if (outs[k] != p && !(outs[k]->flags & INS_REMOVED) && ins_is_dead(outs[k]))
                driver_erase(rw, outs[k]);
        if (!(p->flags & INS_REMOVED) && ins_is_dead(p))
            driver_erase(rw, p);
        int nrest = 0;
        for (int k = n - 1; k >= 0; k--) {
            ins *x = inl[k];
            if (!x || body[k]->param || (x->flags & INS_REMOVED))
                continue;
            if (ins_is_dead(x))
                driver_erase(rw, x);
            else
                parts[nrest++] = x;
        }
        if (nrest > 1)
            merge_parts(rw, parts, nrest, false);
    }
    free(body);
    free(inl);
    free(tail);
    free(args);
    free(outs);
    free(parts);
    free(in_slice);
    return merged != NULL;
}
