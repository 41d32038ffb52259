/* driver.h: the worklist rewrite driver: applies rule sets to a fixpoint.
 *
 * This is graft's counterpart of MLIR's greedy pattern driver. Every live
 * instruction of every module is visited in program order (a cursor walks
 * each module; in shuffled mode the whole graph goes on the worklist and is
 * popped in a seeded random order instead); a visit erases the instruction
 * if it is dead, else offers it to each rule set in turn (rule_set.apply,
 * engine/rewrite.h). After each visit the worklist of re-queued
 * instructions is drained (LIFO, set semantics, see driver_internal.h). A rule changes the graph only
 * through the rw_* functions, and each of them tells the driver exactly what
 * to look at again:
 *   - insert:  the new instruction;
 *   - replace: the users of the replaced value;
 *   - erase:   the operands whose use count dropped (and those that died are
 *              erased on the spot: dead code never waits for a later pass).
 * When the list runs dry the driver sweeps the graph once more, and stops
 * when a sweep changes nothing (converged) or a limit is hit. It never loops
 * silently: the result says why it stopped.
 *
 * Shapes are lazy by default (engine/lazy_shapes.h): a rewrite that changes
 * a value's shape inserts a pending_shape_change instead of recomputing every
 * user; shapes_resolve() settles what is left after the run. The eager mode
 * recomputes through all users on each mutation and exists to measure
 * against.
 *
 * The library never prints. --trace output goes through a callback the
 * caller provides; statistics come back in the result.
 */
#ifndef GRAFT_DRIVER_H
#define GRAFT_DRIVER_H

#include "ir.h"
#include "rewrite.h"

#include <stdbool.h>
#include <stdint.h>

/* How a rewrite that changes a value's shape is handled. */
typedef enum shape_mode {
    SHAPES_LAZY,  /* insert pending_shape_change; resolve once at the end */
    SHAPES_EAGER, /* recompute the shapes of all users at once (MIGraphX's way) */
} shape_mode;

/* Why the driver stopped. */
typedef enum driver_stop {
    DRIVER_CONVERGED,      /* a full sweep changed nothing */
    DRIVER_MAX_ITERATIONS, /* max_iterations sweeps all changed something */
    DRIVER_MAX_REWRITES,   /* --max-rewrites N: the budget was spent */
    DRIVER_RULE_BUDGET,    /* a RULE_NONDECREASING rule used up its fires */
    DRIVER_ERROR,          /* a rule misbehaved (see the error) or memory ran out */
} driver_stop;

/* Receives one trace record (a few lines, each ending in '\n'). */
typedef void (*driver_trace_fn)(void *ctx, const char *text);

typedef struct driver_options {
    int max_iterations;        /* full sweeps; 0 means 10 */
    int64_t max_rewrites;      /* committed rewrites allowed; < 0 unlimited */
    int64_t nondecreasing_budget; /* fires per RULE_NONDECREASING rule; 0 means
                                     2 * (instructions at start) + 16 */
    uint64_t shuffle_seed;     /* 0: program order; else a seeded random pop order */
    shape_mode shapes;
    const char *const *disabled; /* rule names that must not fire */
    int ndisabled;
    driver_trace_fn trace;     /* NULL: no trace */
    void *trace_ctx;
    /* --explain: the rule to explain at each phase's fixpoint
     * (engine/explain.h, run by optimize_plan_run, not by the driver), and
     * where its records go; NULL: none. */
    const char *explain_rule;
    driver_trace_fn explain;
    void *explain_ctx;
} driver_options;

/* Counters of one rule. */
typedef struct rule_stat {
    const char *set;      /* the rule set's name */
    const char *name;
    const char *file;
    int line;
    unsigned flags;       /* rule_flags */
    bool disabled;
    uint64_t attempts;    /* leaves reached (rw_attempt called) */
    uint64_t fires;       /* committed */
    uint64_t ns;          /* time between rw_attempt and its commit or abort,
                             summed over the attempts: exact for a rule's first
                             256 attempts of a run, then estimated from a
                             random sample of one attempt in 16 on average,
                             each counting 16 times (driver_internal.h,
                             TIME_EVERY_ATTEMPT) */
} rule_stat;

typedef struct driver_result {
    driver_stop stop;
    bool converged;       /* stop == DRIVER_CONVERGED */
    int iterations;       /* sweeps run */
    uint64_t rewrites;    /* committed rewrites */
    uint64_t erased;      /* instructions erased (dead or replaced) */
    uint64_t aborted;     /* matches undone by rw_abort or a rejected commit */
    uint64_t pending_inserted; /* pending_shape_change ops the rewrites created */
    uint64_t shape_recomputes; /* eager mode: users recomputed by cascades */
    uint64_t pending_seen; /* pending_shape_change ops the last sweep visited: when
                              converged, 0 means none is left in the swept modules */
    bool cse_clean;       /* converged, in program order, on a graph of one module,
                             and the last sweep (which changed nothing) met no two
                             instructions cse_run would merge (cse_probe): then
                             cse_run right after the run merges nothing */
    rule_stat *rules;     /* malloc'd: every rule of every set, in set order */
    int nrules;
    graft_error error;    /* set when stop == DRIVER_ERROR */
} driver_result;

/* Fills o with the defaults (lazy shapes, program order, no limits). */
void driver_options_init(driver_options *o);

/* Runs the rule sets over g until a fixpoint or a limit. Returns false only
 * when the run could not happen at all (out of memory, an unknown disabled
 * rule name: err says which); a stop for a limit or a misbehaving rule
 * returns true with res->stop saying why. res must be released with
 * driver_result_free. Shapes are not resolved here: call shapes_resolve. */
bool driver_run(graph *g, const rule_set *const *sets, int nsets, const driver_options *opt,
                driver_result *res, graft_error *err);
void driver_result_free(driver_result *res);

/* "converged", "max iterations", "max rewrites", "rule budget", "error". */
const char *driver_stop_name(driver_stop s);

/* A rewriter that only lends generated code the graph's arena, for
 * rule_set.explain (engine/explain.c): nothing can be attempted with it.
 * Release with free(); NULL without memory. */
rewriter *driver_explain_rewriter(graph *g);

/* Writes one instruction as a dump line ("@4 = relu(@3) -> float_type, ...")
 * into buf; instructions without a stable name print as %<id>. Returns buf. */
const char *driver_format_ins(const ins *i, char *buf, size_t size);

#endif
