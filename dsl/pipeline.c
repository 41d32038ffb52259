/* pipeline.c: the named pipelines and optimize_plan_run, which strings the
 * driver, shape resolution, CSE and DCE together, phase after phase (see
 * pipeline.h).
 */
#include "pipeline.h"

#include "cse.h"
#include "dce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* builtin_rule_set is generated from the list of rules/NAME.rules files
 * (build/gen/rules_registry.c, see dsl/load.h). */

static const char *const fold_sets[] = {"fold"};
static const char *const pad_sets[] = {"fold", "pad"};
static const char *const reshape_sets[] = {"fold", "reshape", "pending"};
static const char *const fuse_sets[] = {"fold", "fuse"};
static const char *const normalize_sets[] = {"fold", "pending", "pad", "reshape"};
/* The rewrites that prepare fusion (rules/prefuse.rules) must happen before
 * fuse.rules takes their operands apart, and after reshape.rules has put
 * the graph in its normal form: in one phase with reshape.rules, the
 * variance rewrite fired before or after reduce_in_common_dims moved
 * GroupNorm's mean into the common dims, by visiting order, and the mean it
 * read twice then stayed in the other lens (the UNet block and a GroupNorm
 * at batch 2: 2 or 3 kernels by order). So -p default runs them as a phase
 * of their own, as -p fuse does. */
static const char *const prefuse_sets[] = {"fold", "prefuse"};
static const char *const layout_sets[] = {"layout"};

#define SETS(a) {a, (int)(sizeof a / sizeof a[0])}
#define PHASES(a) a, (int)(sizeof a / sizeof a[0])

static const pipeline_phase fold_phases[] = {SETS(fold_sets)};
static const pipeline_phase pad_phases[] = {SETS(pad_sets)};
static const pipeline_phase reshape_phases[] = {SETS(reshape_sets)};
static const pipeline_phase prefuse_phases[] = {SETS(prefuse_sets)};
static const pipeline_phase fuse_phases[] = {SETS(prefuse_sets), SETS(fuse_sets)};
static const pipeline_phase normalize_phases[] = {SETS(normalize_sets)};
/* Fusion last: it must see GroupNorm in the common dims and the views in
 * their normal form, not take pointwise ops before reshape.rules moved them. */
static const pipeline_phase layout_phases[] = {SETS(layout_sets)};
/* Placement after fusion: which kernel writes where depends on the regions
 * fusion made. */
static const pipeline_phase default_phases[] = {SETS(normalize_sets), SETS(prefuse_sets),
                                                SETS(fuse_sets), SETS(layout_sets)};

static const pipeline pipelines[] = {
    {"fold", "no-op eliminations, transpose/reshape/broadcast composition, constant folding",
     PHASES(fold_phases)},
    {"pad", "fold, then zero pads folded into convolution and pooling", PHASES(pad_phases)},
    {"reshape", "fold, then reshapes/transposes moved through pointwise ops and reductions",
     PHASES(reshape_phases)},
    {"prefuse", "fold, then the rewrites that prepare fusion (rules/prefuse.rules)",
     PHASES(prefuse_phases)},
    {"fuse", "prefuse; then fold and regions grown (rules/fuse.rules): pointwise chains, "
             "reductions, convolution and dot with prologue and epilogue",
     PHASES(fuse_phases)},
    {"normalize", "every non-fusion set: phase 1 of default", PHASES(normalize_phases)},
    {"layout", "concats written in place (rules/layout.rules)", PHASES(layout_phases)},
    {"default", "normalize, then prefuse and fuse as phases of their own, then layout",
     PHASES(default_phases)},
};

const pipeline *pipeline_all(int *count)
{
    *count = (int)(sizeof pipelines / sizeof pipelines[0]);
    return pipelines;
}

const pipeline *pipeline_find(const char *name)
{
    int n;
    const pipeline *all = pipeline_all(&n);
    for (int k = 0; k < n; k++)
        if (strcmp(all[k].name, name) == 0)
            return &all[k];
    return NULL;
}

void pipeline_describe(const pipeline *p, char *buf, size_t size)
{
    size_t at = 0;
    if (size)
        buf[0] = '\0';
    for (int ph = 0; ph < p->nphases; ph++)
        for (int k = 0; k < p->phases[ph].nsets && at < size; k++) {
            const char *sep = k ? ", " : ph ? "; then " : "";
            int w = snprintf(buf + at, size - at, "%s%s", sep, p->phases[ph].sets[k]);
            if (w < 0)
                return;
            at += (size_t)w;
        }
}

bool optimize_plan_add(optimize_plan *plan, int phase, const rule_set *s, graft_error *err)
{
    if (phase < 0 || phase > plan->nphases || phase >= PIPELINE_MAX_PHASES)
        return error_set(err, "too many phases (at most %d)", PIPELINE_MAX_PHASES);
    if (phase == plan->nphases) {
        plan->nsets[phase] = 0;
        plan->nphases++;
    }
    if (plan->nsets[phase] >= PIPELINE_MAX_SETS)
        return error_set(err, "too many rule sets in one phase (at most %d)", PIPELINE_MAX_SETS);
    plan->sets[phase][plan->nsets[phase]++] = s;
    return true;
}

bool pipeline_plan(const pipeline *p, optimize_plan *plan, graft_error *err)
{
    plan->nphases = 0;
    for (int ph = 0; ph < p->nphases; ph++)
        for (int k = 0; k < p->phases[ph].nsets; k++) {
            const char *name = p->phases[ph].sets[k];
            const rule_set *s = builtin_rule_set(name);
            if (!s)
                return error_set(err,
                                 "pipeline '%s' needs rule set '%s', which this graft was built "
                                 "without (rules/%s.rules is not compiled in)",
                                 p->name, name, name);
            if (!optimize_plan_add(plan, ph, s, err))
                return false;
        }
    return true;
}

/* ---- optimize_plan_run ---- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Live instructions of the main module (region bodies are other modules). */
static size_t main_count(const graph *g)
{
    const module *m = graph_main(g);
    return m ? (size_t)m->count : 0;
}

/* Sums the counters of r into sum; the rules are matched by set and name,
 * so a set that runs in several phases (or rounds) keeps one entry per rule
 * and a rule first seen here is appended. r is released. */
static bool add_result(driver_result *sum, driver_result *r, bool first, graft_error *err)
{
    if (first) {
        *sum = *r;
        return true;
    }
    if (sum->converged && !r->converged) {
        sum->stop = r->stop;
        sum->converged = false;
    }
    if (r->stop == DRIVER_ERROR) {
        sum->stop = DRIVER_ERROR;
        sum->converged = false;
        sum->error = r->error;
    }
    sum->iterations += r->iterations;
    sum->rewrites += r->rewrites;
    sum->erased += r->erased;
    sum->aborted += r->aborted;
    sum->pending_inserted += r->pending_inserted;
    sum->shape_recomputes += r->shape_recomputes;
    int n = sum->nrules;
    for (int j = 0; j < r->nrules; j++) {
        const rule_stat *x = &r->rules[j];
        int k = 0;
        while (k < n && !(strcmp(sum->rules[k].set, x->set) == 0 &&
                          strcmp(sum->rules[k].name, x->name) == 0))
            k++;
        if (k == n) {
            rule_stat *grown = realloc(sum->rules, sizeof *grown * (size_t)(n + r->nrules - j));
            if (!grown) {
                driver_result_free(r);
                return error_set(err, "out of memory");
            }
            sum->rules = grown;
            sum->rules[n++] = *x;
            sum->nrules = n;
            continue;
        }
        sum->rules[k].attempts += x->attempts;
        sum->rules[k].fires += x->fires;
        sum->rules[k].ns += x->ns;
        sum->rules[k].disabled |= x->disabled;
    }
    driver_result_free(r);
    return true;
}

static bool set_has_rule(const rule_set *s, const char *name)
{
    for (int r = 0; r < s->nrules; r++)
        if (strcmp(s->rules[r].name, name) == 0)
            return true;
    return false;
}

static bool phase_has_rule(const optimize_plan *plan, int ph, const char *name)
{
    for (int k = 0; k < plan->nsets[ph]; k++)
        if (set_has_rule(plan->sets[ph][k], name))
            return true;
    return false;
}

/* Rounds of {driver, shapes, CSE} in one phase: up to ROUNDS_RESOLVED while
 * only the shape pass changed the graph, up to ROUNDS_MERGED while CSE
 * merged instructions (see run_phase). */
enum { ROUNDS_RESOLVED = 3, ROUNDS_MERGED = 8 };

/* One phase: CSE, rounds of {driver, shapes, CSE}, DCE. no_twins: the
 * caller vouches that no two instructions of g are the same expression
 * (optimize_plan_run_probed), so the first CSE would merge nothing: it is
 * skipped, a walk over the whole graph (~3.5 ms of 100k instructions). */
static bool run_phase(graph *g, const rule_set *const *sets, int nsets, const driver_options *opt,
                      int64_t max_rewrites, bool no_twins, optimize_result *res,
                      driver_result *phase, graft_error *err)
{
    size_t merged = 0;
    if (!no_twins && !cse_run(g, &merged, err))
        return false;
    res->cse_merged += merged;
    driver_options o = *opt;
    /* No instruction can be dead after the last round (see below): the
     * final DCE would walk the module for nothing. */
    bool none_dead = false;
    for (int round = 0; round < ROUNDS_MERGED; round++) {
        driver_result r;
        /* --max-rewrites bounds the whole optimisation, not each round. */
        if (max_rewrites >= 0)
            o.max_rewrites = max_rewrites - (round ? (int64_t)phase->rewrites : 0);
        if (!driver_run(g, sets, nsets, &o, &r, err)) {
            if (round)
                driver_result_free(phase);
            return false;
        }
        /* The driver's last sweep visited every instruction of the modules
         * it sweeps, which with one module is all of them; a converged run's
         * last sweep changed nothing (rw_abort restores every use and
         * removes what the match inserted). So then no instruction is dead,
         * since visiting a dead one erases it, and no pending op is left
         * when that sweep met none (driver_result.pending_seen). */
        bool swept_all = r.converged && g->nmodules <= 1;
        bool no_pending = swept_all && r.pending_seen == 0;
        /* With no shape pass between them (no_pending), CSE sees the graph
         * the driver's last sweep probed: when that found no twins
         * (driver_result.cse_clean), CSE would merge nothing. */
        bool cse_clean = no_pending && r.cse_clean;
        if (!add_result(phase, &r, round == 0, err)) {
            driver_result_free(phase);
            return false;
        }
        res->rounds++;
        shapes_stats st;
        /* With nothing pending the shape pass changes nothing (lazy_shapes.h):
         * skip its scan for pending ops. */
        if (no_pending)
            memset(&st, 0, sizeof st);
        else if (!shapes_resolve(g, &st, err)) {
            driver_result_free(phase);
            return false;
        }
        res->shapes.recomputed += st.recomputed;
        res->shapes.changed += st.changed;
        res->shapes.looked_through += st.looked_through;
        res->shapes.erased += st.erased;
        res->shapes.materialised += st.materialised;
        if (cse_clean)
            merged = 0;
        else if (!cse_run(g, &merged, err)) {
            driver_result_free(phase);
            return false;
        }
        res->cse_merged += merged;
        /* Nothing dead after the driver (above); a shape pass that had no
         * pending op to look through, erase or materialise changed nothing;
         * and a CSE that merged nothing changed nothing. (A merge does not
         * kill either: the twin reads the same operands.) */
        none_dead = swept_all && !st.looked_through && !st.erased && !st.materialised &&
                    !st.changed && !merged;
        /* Another round when CSE merged instructions or the shape pass
         * took pending ops out of the graph (looked through or erased):
         * both can put views next to each other that a pending op or a
         * duplicate kept apart, and the result must not depend on whether
         * the driver met them before or after. (A rule that removes the
         * copy the pass materialised for an output gets it back: at most
         * ROUNDS_RESOLVED rounds for that.) A transpose that rises through
         * a chain of one-operand ops toward a dot (transpose_above_unary)
         * builds, at each step, a transpose the graph already computes
         * when a sibling reads the same value transposed; only CSE merges
         * the two, and until it has, the dot has two readers and
         * transpose_into_dot (dot:once) waits. One step per round: three
         * rounds left the last transpose beside the dot it should have
         * gone into (seed 5009064 of test_view_normal_form, --ops 20:
         * t(dot) read by tanh and by max). So rounds go on while CSE
         * merges, up to ROUNDS_MERGED. */
        bool resolved = st.looked_through || st.erased;
        if ((!merged && !resolved) || phase->stop != DRIVER_CONVERGED)
            break;
        if (!merged && round + 1 >= ROUNDS_RESOLVED)
            break;
    }
    if (!none_dead)
        res->dce_erased += dce_run(g);
    /* --explain: at the fixpoint, every instruction the rule applies to is
     * one the last sweep tried it on (not when the phase stopped early). */
    if (opt->explain_rule && opt->explain && phase->stop == DRIVER_CONVERGED)
        explain_rule(g, sets, nsets, opt->explain_rule, opt->explain, opt->explain_ctx,
                     &res->explained);
    return true;
}

bool optimize_plan_run(graph *g, const optimize_plan *plan, const driver_options *opt,
                       optimize_result *res, graft_error *err)
{
    return optimize_plan_run_probed(g, plan, opt, true, res, err);
}

bool optimize_plan_run_probed(graph *g, const optimize_plan *plan, const driver_options *opt,
                              bool maybe_twins, optimize_result *res, graft_error *err)
{
    memset(res, 0, sizeof *res);
    driver_options o;
    if (opt)
        o = *opt;
    else
        driver_options_init(&o);
    if (plan->nphases < 1 || plan->nphases > PIPELINE_MAX_PHASES)
        return error_set(err, "a plan has 1 to %d phases, not %d", PIPELINE_MAX_PHASES,
                         plan->nphases);
    /* --disable names a rule of some phase; each phase hears only of its own. */
    const char *const *disabled = o.disabled;
    int ndisabled = o.ndisabled > 0 ? o.ndisabled : 0;
    const char **mine = NULL;
    if (ndisabled) {
        for (int d = 0; d < ndisabled; d++) {
            bool found = false;
            for (int ph = 0; ph < plan->nphases && !found; ph++)
                found = phase_has_rule(plan, ph, disabled[d]);
            if (!found)
                return error_set(err, "--disable %s: no rule of that name in the rule sets run",
                                 disabled[d]);
        }
        mine = malloc(sizeof *mine * (size_t)ndisabled);
        if (!mine)
            return error_set(err, "out of memory");
    }
    uint64_t calls0 = g->shape_calls;
    double t0 = now_ms();
    res->instructions_before = main_count(g);
    res->region_instructions_before = graph_count(g) - res->instructions_before;
    bool ok = true;
    for (int ph = 0; ph < plan->nphases; ph++) {
        if (o.trace && plan->nphases > 1) {
            char line[512];
            size_t at = (size_t)snprintf(line, sizeof line, "phase %d of %d:", ph + 1,
                                         plan->nphases);
            for (int k = 0; k < plan->nsets[ph] && at < sizeof line; k++)
                at += (size_t)snprintf(line + at, sizeof line - at, "%s %s", k ? "," : "",
                                       plan->sets[ph][k]->name);
            if (at < sizeof line - 1)
                snprintf(line + at, sizeof line - at, "\n");
            else
                line[sizeof line - 2] = '\n';
            o.trace(o.trace_ctx, line);
        }
        int nmine = 0;
        for (int d = 0; d < ndisabled; d++)
            if (phase_has_rule(plan, ph, disabled[d]))
                mine[nmine++] = disabled[d];
        o.disabled = mine;
        o.ndisabled = nmine;
        int64_t budget = -1;
        if (opt && opt->max_rewrites >= 0)
            budget = opt->max_rewrites - (int64_t)res->driver.rewrites;
        driver_result phase;
        memset(&phase, 0, sizeof phase);
        /* Only the first phase starts on the graph the caller probed. */
        bool no_twins = ph == 0 && !maybe_twins;
        if (!run_phase(g, plan->sets[ph], plan->nsets[ph], &o, budget, no_twins, res, &phase,
                       err)) {
            ok = false;
            break;
        }
        if (!add_result(&res->driver, &phase, ph == 0, err)) {
            ok = false;
            break;
        }
        res->phases++;
        if (res->driver.stop == DRIVER_ERROR || res->driver.stop == DRIVER_MAX_REWRITES)
            break;
    }
    free(mine);
    if (!ok) {
        optimize_result_free(res);
        return false;
    }
    res->instructions_after = main_count(g);
    res->region_instructions_after = graph_count(g) - res->instructions_after;
    res->compute_shape_calls = g->shape_calls - calls0;
    res->ms = now_ms() - t0;
    return true;
}

bool optimize_run(graph *g, const rule_set *const *sets, int nsets, const driver_options *opt,
                  optimize_result *res, graft_error *err)
{
    optimize_plan plan = {.nphases = 0};
    for (int k = 0; k < nsets; k++)
        if (!optimize_plan_add(&plan, 0, sets[k], err))
            return false;
    if (nsets == 0) {
        plan.nphases = 1;
        plan.nsets[0] = 0;
    }
    return optimize_plan_run(g, &plan, opt, res, err);
}

void optimize_result_free(optimize_result *res) { driver_result_free(&res->driver); }
