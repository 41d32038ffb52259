/* pipeline.h: named pipelines (`graft opt -p NAME`) and one call that
 * optimises a graph with rule sets: the worklist driver, lazy shape
 * resolution, CSE and DCE, with the statistics `--stats` prints.
 *
 * A pipeline is a list of rule-set names; its sets run together in one
 * driver run (each instruction is offered to the sets in the order listed),
 * so that a rewrite of one set can enable one of another without a fixed
 * phase order. The rule sets themselves are compiled from rules/NAME.rules by
 * the rule compiler (dsl/), which provides builtin_rule_set(); when a graft
 * was built without them, asking for a pipeline fails with a clear error.
 */
#ifndef GRAFT_PIPELINE_H
#define GRAFT_PIPELINE_H

#include "driver.h"
#include "lazy_shapes.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Provided by the generated code of rules/NAME.rules: the built-in rule set of
 * that name ("fold", "pad", "reshape", "pending"), NULL if there is none. */
const rule_set *builtin_rule_set(const char *name);

typedef struct pipeline {
    const char *name;
    const char *summary;
    const char *const *sets; /* rule-set names, in the order they are offered */
    int nsets;
} pipeline;

/* Every pipeline, in the order `graft opt --help` lists them. */
const pipeline *pipeline_all(int *count);
const pipeline *pipeline_find(const char *name);
/* Looks up the pipeline's rule sets (out holds p->nsets entries). Fails
 * naming the first set this graft was built without. */
bool pipeline_rule_sets(const pipeline *p, const rule_set **out, graft_error *err);

typedef struct optimize_result {
    driver_result driver;   /* counters summed over the rounds */
    shapes_stats shapes;
    size_t cse_merged;
    size_t dce_erased;
    size_t instructions_before, instructions_after; /* the main module's */
    size_t region_instructions_before, region_instructions_after; /* every other
                                module's: fused region bodies (and submodules) */
    uint64_t compute_shape_calls; /* during the optimisation only */
    double ms;
    int rounds;             /* driver runs (CSE and the shape pass can enable more rewrites) */
} optimize_result;

/* Optimises g in place: CSE, then up to three rounds of {driver, shape
 * resolution, CSE} while CSE merges something or the shape pass takes
 * pending ops out (looked through, erased), then DCE. Returns false
 * when the driver could not run (err says why); a driver that stops early
 * (limits, a misbehaving rule) returns true with res->driver.stop saying
 * why. Release res with optimize_result_free. */
bool optimize_run(graph *g, const rule_set *const *sets, int nsets, const driver_options *opt,
                  optimize_result *res, graft_error *err);
void optimize_result_free(optimize_result *res);

#endif
