/* rewrite.c: the rw_* functions compiled rules call (contract: rewrite.h).
 *
 * A match is a small transaction. rw_attempt opens it (or refuses: rule
 * disabled, rewrite budget spent); rw_insert / rw_literal / rw_set_arg /
 * rw_set_attrs build the replacement and log what they did; rw_replace or
 * rw_commit_in_place commit it, telling the driver what to look at again;
 * rw_abort undoes the log in reverse, so an aborted match leaves the graph
 * exactly as it found it. rw_region builds a fused region (a new body module
 * and the instructions that read it) and rw_replace_region commits it; the
 * body is logged too, and an abort takes it out of the graph. Counters and time per rule are kept here.
 */
#include "driver_internal.h"
#include "lazy_shapes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rule_stat *current_rule(rewriter *rw) { return &rw->stats[rw->txn_rule]; }

static void clear_logs(rewriter *rw)
{
    rw->ninserted = 0;
    rw->ntxn_modules = 0;
    rw->nargs_log = 0;
    rw->nattrs_log = 0;
    free(rw->trace_before);
    rw->trace_before = NULL;
}

static bool grow(void **p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return true;
    int c = *cap ? *cap * 2 : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * elem);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

bool rw_attempt(rewriter *rw, int rule, ins *root)
{
    if (rw->txn == TXN_OPEN)
        rw_abort(rw);
    if (rw->failed || rw->stop_max_rewrites)
        return false;
    int nrules = rw->sets[rw->cur_set]->nrules;
    if (rule < 0 || rule >= nrules) {
        driver_fail(rw, "rule set %s: rule index %d out of range (%d rules)",
                    rw->sets[rw->cur_set]->name, rule, nrules);
        return false;
    }
    int flat = rw->base[rw->cur_set] + rule;
    rule_stat *st = &rw->stats[flat];
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
    rw->txn_rule = flat;
    rw->txn_root = root;
    clear_logs(rw);
    if (rw->opt.trace)
        rw->trace_before = driver_trace_before(root);
    rw->txn_start = driver_ticks();
    return true;
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
    if (i)
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
    return true;
}

static void finish_timing(rewriter *rw)
{
    current_rule(rw)->ns += driver_ticks() - rw->txn_start;
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
        rw->attrs_log[k].i->attrs = rw->attrs_log[k].old;
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
        for (int b = 0; b < rw->nbodies; b++)
            if (rw->bodies[b] == m)
                rw->bodies[b--] = rw->bodies[--rw->nbodies];
    }
    clear_logs(rw);
}

void rw_abort(rewriter *rw)
{
    if (rw->txn != TXN_OPEN)
        return;
    undo(rw);
    finish_timing(rw);
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

static void no_change(rewriter *rw)
{
    rule_stat *st = current_rule(rw);
    undo(rw);
    finish_timing(rw);
    rw->txn = TXN_NONE;
    driver_fail(rw, "rule %s (%s:%d) reported success but the graph did not change", st->name,
                st->file ? st->file : "?", st->line);
}

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

/* ---- fused regions ---- */

static int index_of(ins *const *list, int n, const ins *x)
{
    for (int k = 0; k < n; k++)
        if (list[k] == x)
            return k;
    return -1;
}

/* Whether an instruction can be copied into a region body. */
static bool fusable(const ins *i, const module *m)
{
    if (i->mod != m || (i->flags & INS_REMOVED) || i->nmods || shape_is_tuple(&i->sh))
        return false;
    if (i->op->classes & OPC_OPAQUE)
        return false;
    if (i->op->classes & OPC_BUILTIN)
        return ins_is(i, "@literal");
    return true;
}

/* A name "<parent>:fusedN" no module has; N counts up across matches. */
static module *new_region_module(rewriter *rw, const module *parent)
{
    for (int tries = 0; tries < 1000000; tries++) {
        char name[512];
        snprintf(name, sizeof name, "%s:fused%d", parent->name, rw->next_region++);
        if (graph_find_module(rw->g, name))
            continue;
        graft_error e;
        module *m = graph_add_module(rw->g, name, &e);
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
    return NULL;
}

/* Copies the members (program order) into body, reading inputs[k] as x<k>. */
static bool fill_region_body(module *body, ins *const *members, int nmembers, ins *const *inputs,
                             int ninputs, ins *const *outputs, int noutputs, ins **copies)
{
    ins **params = malloc((size_t)(ninputs ? ninputs : 1) * sizeof *params);
    ins **args = NULL;
    int args_cap = 0;
    bool ok = params != NULL;
    for (int k = 0; ok && k < ninputs; k++) {
        char name[32];
        snprintf(name, sizeof name, "x%d", k);
        ok = (params[k] = module_add_param(body, name, &inputs[k]->sh)) != NULL;
    }
    for (int k = 0; ok && k < nmembers; k++) {
        const ins *m = members[k];
        if (ins_is(m, "@literal")) {
            ok = (copies[k] = module_add_literal(body, &m->sh, m->data)) != NULL;
            continue;
        }
        ok = grow((void **)&args, &args_cap, m->nargs + 1, sizeof *args);
        for (int a = 0; ok && a < m->nargs; a++) {
            int j = index_of(members, nmembers, m->args[a]);
            args[a] = j >= 0 ? copies[j] : params[index_of(inputs, ninputs, m->args[a])];
        }
        graft_error e;
        ok = ok && (copies[k] = module_add(body, m->op, m->attrs, m->nattrs, args, m->nargs, &e));
        ok = ok && shape_equal(&copies[k]->sh, &m->sh);
    }
    ins **rets = ok ? malloc((size_t)noutputs * sizeof *rets) : NULL;
    ok = ok && rets;
    for (int k = 0; ok && k < noutputs; k++)
        rets[k] = copies[index_of(members, nmembers, outputs[k])];
    ok = ok && module_add_return(body, rets, noutputs);
    free(rets);
    free(args);
    free(params);
    return ok;
}

/* The `fused` instruction over body, before pos. */
static ins *insert_region(module *m, ins *pos, module *body, ins *const *inputs, int ninputs)
{
    shape none;
    memset(&none, 0, sizeof none);
    const op_def *op = op_find("fused");
    ins *i = op ? module_add_opaque(m, op->name, NULL, 0, inputs, ninputs, &none) : NULL;
    if (!i)
        return NULL;
    i->op = op;
    i->opname = op->name;
    ins_set_modules(i, &body, 1);
    graft_error e;
    if (i->nmods != 1 || !ins_recompute_shape(i, &e)) {
        module_remove(i);
        return NULL;
    }
    module_move_before(i, pos);
    return i;
}

ins *rw_region(rewriter *rw, ins *before, ins *const *members, int nmembers, ins *const *outputs,
               int noutputs, ins **replacements)
{
    if (rw->txn != TXN_OPEN || nmembers < 1 || noutputs < 1 || !members || !outputs ||
        !replacements)
        return NULL;
    if (!before)
        before = rw->txn_root;
    module *mod = before->mod;
    /* Members: distinct, fusable, in program order. */
    ins **set = malloc((size_t)nmembers * sizeof *set);
    ins **copies = malloc((size_t)nmembers * sizeof *copies);
    int n = 0, total_args = 0;
    bool ok = set && copies;
    for (int k = 0; ok && k < nmembers; k++) {
        ok = members[k] && fusable(members[k], mod);
        if (ok && index_of(set, n, members[k]) < 0) {
            int at = n++;
            while (at > 0 && ins_before(members[k], set[at - 1])) {
                set[at] = set[at - 1];
                at--;
            }
            set[at] = members[k];
            total_args += members[k]->nargs;
        }
    }
    for (int k = 0; ok && k < noutputs; k++)
        ok = outputs[k] && index_of(set, n, outputs[k]) >= 0;
    /* Inputs: operands from outside, deduplicated, in order of first use. */
    ins **inputs = ok ? malloc((size_t)(total_args ? total_args : 1) * sizeof *inputs) : NULL;
    int ninputs = 0;
    ok = ok && inputs;
    for (int k = 0; ok && k < n; k++)
        for (int a = 0; a < set[k]->nargs; a++) {
            ins *x = set[k]->args[a];
            if (index_of(set, n, x) < 0 && index_of(inputs, ninputs, x) < 0)
                inputs[ninputs++] = x;
        }
    /* Position: before `before` and every outside user of an output. */
    ins *pos = before;
    bool used_outside = false;
    for (int k = 0; ok && k < noutputs; k++)
        for (int u = 0; u < outputs[k]->nusers; u++) {
            ins *user = outputs[k]->users[u];
            if (index_of(set, n, user) >= 0)
                continue;
            used_outside = true;
            if (ins_before(user, pos))
                pos = user;
        }
    ok = ok && used_outside;
    for (int k = 0; ok && k < ninputs; k++)
        ok = ins_before(inputs[k], pos);
    module *body = ok ? new_region_module(rw, mod) : NULL;
    ok = ok && body && fill_region_body(body, set, n, inputs, ninputs, outputs, noutputs, copies);
    ins *region = ok ? insert_region(mod, pos, body, inputs, ninputs) : NULL;
    if (region)
        note_inserted(rw, region);
    if (region && noutputs == 1)
        replacements[0] = region;
    for (int k = 0; region && noutputs > 1 && k < noutputs; k++) {
        attr index = {"index", {.kind = ATTR_INT, .u.i = k}};
        graft_error e;
        ins *elem = module_insert(mod, pos, op_find("get_tuple_elem"), &index, 1, &region, 1, &e);
        if (!elem) {
            region = NULL;
            break;
        }
        note_inserted(rw, elem);
        replacements[k] = elem;
    }
    free(set);
    free(copies);
    free(inputs);
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
    for (int k = 0; k < noutputs; k++) {
        ins *old = outputs[k], *rep = replacements[k];
        for (int u = 0; u < old->nusers;) {
            ins *user = old->users[u];
            if (user == rep || index_of(members, nmembers, user) >= 0) {
                u++;
                continue;
            }
            ins_set_arg(user, old->user_slot[u], rep); /* moves another use into slot u */
            worklist_push(&rw->wl, user);
        }
    }
    driver_trace_commit(rw, outputs[0], replacements[0]);
    for (int k = nmembers - 1; k >= 0; k--)
        if (!(members[k]->flags & INS_REMOVED) && ins_is_dead(members[k]))
            driver_erase(rw, members[k]);
}

arena *rw_arena(rewriter *rw) { return &rw->g->mem; }
