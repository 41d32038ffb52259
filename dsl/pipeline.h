/* pipeline.h: named pipelines (`graft opt -p NAME`) and the calls that
 * optimise a graph with rule sets: the worklist driver, lazy shape
 * resolution, CSE and DCE, with the statistics `--stats` prints.
 *
 * A pipeline is a sequence of phases. The sets of one phase run together in
 * one driver run (each instruction is offered to the sets in the order
 * listed), so that a rewrite of one set can enable one of another without a
 * fixed order; the next phase starts on the previous phase's result. Phases
 * exist for rewrites that must see a finished graph: fusion takes pointwise
 * ops into regions, so it runs after reshape.rules has moved them into the
 * common dims. The rule sets themselves are compiled from rules/NAME.rules by
 * the rule compiler (dsl/), which provides builtin_rule_set(); when a graft
 * was built without them, asking for a pipeline fails with a clear error.
 */
#ifndef GRAFT_PIPELINE_H
#define GRAFT_PIPELINE_H

#include "driver.h"
#include "explain.h"
#include "lazy_shapes.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Provided by the generated code of rules/NAME.rules: the built-in rule set of
 * that name ("fold", "pad", "reshape", "pending", "fuse"), NULL if there is
 * none. */
const rule_set *builtin_rule_set(const char *name);

#define PIPELINE_MAX_PHASES 4
#define PIPELINE_MAX_SETS 16 /* per phase */

typedef struct pipeline_phase {
    const char *const *sets; /* rule-set names, in the order they are offered */
    int nsets;
} pipeline_phase;

typedef struct pipeline {
    const char *name;
    const char *summary;
    const pipeline_phase *phases; /* run one after the other */
    int nphases;
} pipeline;

/* Every pipeline, in the order `graft opt --help` lists them. */
const pipeline *pipeline_all(int *count);
const pipeline *pipeline_find(const char *name);
/* Writes the phases as "fold, pending, pad, reshape; then fold, fuse". */
void pipeline_describe(const pipeline *p, char *buf, size_t size);

/* Rule sets resolved, phase by phase: what optimize_plan_run runs. */
typedef struct optimize_plan {
    int nphases;
    int nsets[PIPELINE_MAX_PHASES];
    const rule_set *sets[PIPELINE_MAX_PHASES][PIPELINE_MAX_SETS];
} optimize_plan;

/* Looks up the pipeline's rule sets. Fails naming the first set this graft
 * was built without. */
bool pipeline_plan(const pipeline *p, optimize_plan *plan, graft_error *err);
/* Appends s to phase `phase` (0-based; phase == plan->nphases opens a new
 * one). Fails when a limit would be passed. */
bool optimize_plan_add(optimize_plan *plan, int phase, const rule_set *s, graft_error *err);

typedef struct optimize_result {
    driver_result driver;   /* counters summed over the rounds and phases; the
                               rules of a set run in several phases are summed
                               into one entry; converged when every phase did,
                               else the stop of the first that did not */
    shapes_stats shapes;
    size_t cse_merged;
    size_t dce_erased;
    size_t instructions_before, instructions_after; /* the main module's */
    size_t region_instructions_before, region_instructions_after; /* every other
                                module's: fused region bodies (and submodules) */
    uint64_t compute_shape_calls; /* during the optimisation only */
    double ms;
    explain_counts explained; /* --explain (driver_options.explain_rule): over the phases */
    int rounds;             /* driver runs (CSE and the shape pass can enable more rewrites) */
    int phases;             /* phases run */
} optimize_result;

/* Optimises g in place, phase by phase. Each phase: CSE, then rounds of
 * {driver, shape resolution, CSE} while CSE merges something (up to
 * eight) or the shape pass takes pending ops out (looked through, erased;
 * up to three), then DCE.
 * opt->max_rewrites bounds the whole plan; a phase that
 * spends it or errs ends the run. opt->disabled names rules of any phase (a
 * name in none is an error). With a trace, each phase of a plan of several
 * opens with a line "phase K of N: SETS". Returns false when the driver
 * could not run (err says why); a driver that stops early (limits, a
 * misbehaving rule) returns true with res->driver.stop saying why. Release
 * res with optimize_result_free. */
bool optimize_plan_run(graph *g, const optimize_plan *plan, const driver_options *opt,
                       optimize_result *res, graft_error *err);
/* optimize_plan_run on a graph the caller has probed: maybe_twins false
 * vouches that no two instructions of g are the same expression (cse.h), as
 * `graft opt` learns of a graph just read (cli_load_graph_probed), so that the
 * first phase's first CSE, which would merge nothing, is skipped. The same
 * result as optimize_plan_run (which passes true). */
bool optimize_plan_run_probed(graph *g, const optimize_plan *plan, const driver_options *opt,
                              bool maybe_twins, optimize_result *res, graft_error *err);
/* One phase of nsets sets (at most PIPELINE_MAX_SETS). */
bool optimize_run(graph *g, const rule_set *const *sets, int nsets, const driver_options *opt,
                  optimize_result *res, graft_error *err);
void optimize_result_free(optimize_result *res);

#endif
