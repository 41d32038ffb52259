/* pipeline.c: the named pipelines and optimize_run, which strings the
 * driver, shape resolution, CSE and DCE together (see pipeline.h).
 */
#include "pipeline.h"

#include "cse.h"
#include "dce.h"

#include <string.h>
#include <time.h>

/* builtin_rule_set is generated from the list of rules/NAME.rules files
 * (build/gen/rules_registry.c, see dsl/load.h). */

static const char *const fold_sets[] = {"fold"};
static const char *const pad_sets[] = {"fold", "pad"};
static const char *const reshape_sets[] = {"fold", "reshape", "pending"};
static const char *const fuse_sets[] = {"fold", "fuse"};
static const char *const default_sets[] = {"fold", "pending", "pad", "reshape"};

#define SETS(a) a, (int)(sizeof a / sizeof a[0])

static const pipeline pipelines[] = {
    {"fold", "no-op eliminations, transpose/reshape/broadcast composition, constant folding",
     SETS(fold_sets)},
    {"pad", "fold, then zero pads folded into convolution and pooling", SETS(pad_sets)},
    {"reshape", "fold, then reshapes/transposes moved through pointwise ops and reductions",
     SETS(reshape_sets)},
    {"fuse", "fold, then pointwise chains fused into regions (rules/fuse.rules)", SETS(fuse_sets)},
    {"default", "every shipped rule set", SETS(default_sets)},
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

bool pipeline_rule_sets(const pipeline *p, const rule_set **out, graft_error *err)
{
    for (int k = 0; k < p->nsets; k++) {
        const rule_set *s = builtin_rule_set(p->sets[k]);
        if (!s)
            return error_set(err,
                             "pipeline '%s' needs rule set '%s', which this graft was built "
                             "without (rules/%s.rules is not compiled in)",
                             p->name, p->sets[k], p->sets[k]);
        out[k] = s;
    }
    return true;
}

/* ---- optimize_run ---- */

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

static void add_round(driver_result *sum, driver_result *r, bool first)
{
    if (first) {
        *sum = *r;
        return;
    }
    sum->stop = r->stop;
    sum->converged = r->converged;
    sum->iterations += r->iterations;
    sum->rewrites += r->rewrites;
    sum->erased += r->erased;
    sum->aborted += r->aborted;
    sum->pending_inserted += r->pending_inserted;
    sum->shape_recomputes += r->shape_recomputes;
    for (int k = 0; k < sum->nrules && k < r->nrules; k++) {
        sum->rules[k].attempts += r->rules[k].attempts;
        sum->rules[k].fires += r->rules[k].fires;
        sum->rules[k].ns += r->rules[k].ns;
    }
    if (r->stop == DRIVER_ERROR)
        sum->error = r->error;
    driver_result_free(r);
}

bool optimize_run(graph *g, const rule_set *const *sets, int nsets, const driver_options *opt,
                  optimize_result *res, graft_error *err)
{
    memset(res, 0, sizeof *res);
    uint64_t calls0 = g->shape_calls;
    double t0 = now_ms();
    res->instructions_before = main_count(g);
    res->region_instructions_before = graph_count(g) - res->instructions_before;
    size_t merged = 0;
    if (!cse_run(g, &merged, err))
        return false;
    res->cse_merged += merged;
    driver_options o;
    if (opt)
        o = *opt;
    else
        driver_options_init(&o);
    for (int round = 0; round < 3; round++) {
        driver_result r;
        /* --max-rewrites bounds the whole optimisation, not each round. */
        if (opt && opt->max_rewrites >= 0)
            o.max_rewrites = opt->max_rewrites - (int64_t)res->driver.rewrites;
        if (!driver_run(g, sets, nsets, &o, &r, err)) {
            if (round)
                optimize_result_free(res);
            return false;
        }
        add_round(&res->driver, &r, round == 0);
        res->rounds++;
        shapes_stats st;
        if (!shapes_resolve(g, &st, err)) {
            optimize_result_free(res);
            return false;
        }
        res->shapes.recomputed += st.recomputed;
        res->shapes.changed += st.changed;
        res->shapes.looked_through += st.looked_through;
        res->shapes.erased += st.erased;
        res->shapes.materialised += st.materialised;
        if (!cse_run(g, &merged, err)) {
            optimize_result_free(res);
            return false;
        }
        res->cse_merged += merged;
        /* Another round when CSE merged instructions or the shape pass
         * took pending ops out of the graph (looked through or erased):
         * both can put views next to each other that a pending op or a
         * duplicate kept apart, and the result must not depend on whether
         * the driver met them before or after. (A rule that removes the
         * copy the pass materialised for an output gets it back: at most
         * the three rounds.) */
        bool resolved = st.looked_through || st.erased;
        if ((!merged && !resolved) || res->driver.stop != DRIVER_CONVERGED)
            break;
    }
    res->dce_erased = dce_run(g);
    res->instructions_after = main_count(g);
    res->region_instructions_after = graph_count(g) - res->instructions_after;
    res->compute_shape_calls = g->shape_calls - calls0;
    res->ms = now_ms() - t0;
    return true;
}

void optimize_result_free(optimize_result *res) { driver_result_free(&res->driver); }
