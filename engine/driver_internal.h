/* driver_internal.h: the state shared by the driver (driver.c), the rw_*
 * functions compiled rules call (rewrite.c) and the shape handling
 * (lazy_shapes.c). Nothing outside engine/ includes it.
 *
 * The worklist
 * ------------
 * A stack of instructions with set semantics:
 *   - an instruction is on the list at most once (pushing it again is a
 *     no-op);
 *   - an instruction that is removed from the graph is dropped from the list
 *     at once (its slot becomes a hole that pop skips);
 *   - pop takes the most recently pushed entry (LIFO), or, in shuffled mode,
 *     an entry picked by a seeded generator.
 * Membership is a dense table indexed by instruction id (ids are unique and
 * never reused), so push, drop and the membership test are O(1).
 */
#ifndef GRAFT_DRIVER_INTERNAL_H
#define GRAFT_DRIVER_INTERNAL_H

#include "cse.h"
#include "driver.h"
#include "ptr_set.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct worklist {
    ins **items;     /* the stack; NULL entries are dropped instructions */
    uint32_t n, cap;
    uint32_t *slot;  /* by id: 1 + index in items, 0 when not on the list */
    uint32_t nslots;
    uint64_t rng;    /* nonzero: shuffled pop order (xorshift state) */
    bool oom;        /* a push failed for lack of memory */
} worklist;

void worklist_init(worklist *w, uint64_t seed);
void worklist_free(worklist *w);
/* Pushes i unless it is already on the list or removed. */
void worklist_push(worklist *w, ins *i);
/* Removes i from the list if it is there. */
void worklist_drop(worklist *w, ins *i);
/* The next instruction, or NULL when the list is empty. */
ins *worklist_pop(worklist *w);
bool worklist_contains(const worklist *w, const ins *i);

/* An operand change made by rw_set_arg inside an open match. */
typedef struct arg_change {
    ins *i;
    int k;
    ins *old;
} arg_change;

/* An attribute change made by rw_set_attrs inside an open match. */
typedef struct attrs_change {
    ins *i;
    attr *old;
} attrs_change;

enum txn_state { TXN_NONE, TXN_OPEN, TXN_COMMITTED };

/* Per-rule time (rule_stat.ns) is measured on every attempt of a rule up to
 * its TIME_EVERY_ATTEMPT-th in a driver run, then on a sampled one in
 * TIME_ONE_IN on average, each sample counting TIME_ONE_IN times: the
 * time-stamp counter read twice per attempt was 8% of the chain rewrite
 * (bench/mlir_compare), and a sample of one attempt in 16 past the first
 * 256 of each rule still gives every rule that runs long enough to matter
 * thousands of samples. The skips between samples are drawn uniformly from
 * 1 .. 2 * TIME_ONE_IN - 1 (mean TIME_ONE_IN), so every attempt is sampled
 * with the same long-run chance whatever the order rules run in, and the
 * sum is an unbiased estimate of the total (its relative error about
 * 1 / sqrt(samples)); rules with few attempts are timed exactly. */
enum { TIME_EVERY_ATTEMPT = 256, TIME_ONE_IN = 16 };

/* Makes room for `need` elements of elem bytes in the malloc'd array *p of
 * capacity *cap (doubling, from 16). False when memory runs out; *p and
 * *cap are then unchanged. For the rewriter's logs and stacks. */
static inline bool grow(void **p, int *cap, int need, size_t elem)
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

struct rewriter {
    graph *g;
    driver_options opt;
    worklist wl;

    /* Every rule of every set, flattened: set k's rule r is stats[base[k] + r]. */
    const rule_set *const *sets;
    int nsets;
    int *base;
    rule_stat *stats;
    int nstats;
    int cur_set;
    /* The set being offered an instruction (visit, driver.c), as rw_attempt
     * reads it on every attempt: base[cur_set], its rule count, and
     * &stats[base[cur_set]]. One load instead of a chain of four per
     * attempt, most of which fail (a quarter of an attempt's cost). */
    int set_base;
    int set_nrules;
    rule_stat *set_stats;
    int64_t budget;        /* fires per RULE_NONDECREASING rule */

    /* The match in progress. */
    enum txn_state txn;
    int txn_rule;          /* flattened index */
    ins *txn_root;
    /* Timing (rw_attempt): a timed attempt reads driver_ticks() at
     * rw_attempt (txn_start) and at its commit or abort, and adds the
     * difference times txn_weight to its rule's ns; txn_weight 0: not timed.
     * tick_skip counts down the untimed attempts before the next sampled
     * one; tick_rng draws the skips (xorshift, fixed seed: per run, no
     * shared state). */
    uint64_t txn_start;
    uint32_t txn_weight;
    uint32_t tick_skip;
    uint64_t tick_rng;
    ins **inserted;
    int ninserted, inserted_cap;
    arg_change *args_log;
    int nargs_log, args_log_cap;
    attrs_change *attrs_log;
    int nattrs_log, attrs_log_cap;
    char *trace_before;    /* the instructions before, captured at rw_attempt */
    module **txn_modules;  /* region bodies rw_region made in this match */
    int ntxn_modules, txn_modules_cap;

    /* Region bodies (submodules of `fused` instructions): the rule sets do
     * not run inside them, so a rule that fused a pattern does not find it
     * again in the body it just made. Collected at each sweep; rw_region
     * adds the bodies it makes. */
    ptr_set bodies;       /* of modules: see driver_is_region_body */
    bool region_died;     /* a region was erased: prune unreferenced modules at the end */
    int next_region;       /* the N of the next "<parent>:fusedN" to try */

    /* Erasing dead instructions: a private stack, so erasure never recurses. */
    ins **dead;
    int ndead, dead_cap;
    /* Instructions this run built and then erased, whose storage goes back
     * to the graph (graph_recycle_ins) at the sweep's next safe point, when
     * nothing can hold them any more (see sweep_in_order). Only those built
     * in this run: the caller may hold pointers to the others. */
    bool recycle;
    uint32_t recycle_from; /* the first id built in this run */
    ins **retired;
    int nretired, retired_cap;
    /* What rules compute while they match and build (helper results such
     * as a composed permutation, lists, converted attributes: rw_arena).
     * Nothing keeps it past the rule: every API entry that takes such a
     * value copies it (module_insert's own_attrs, rw_set_attrs,
     * module_add_literal), so the sweep empties it at its safe point
     * instead of the graph's arena growing by it for the graph's life.
     * tmp is &scratch in a driver run, NULL otherwise (explain). */
    arena scratch;
    arena *tmp;
    unsigned char *scratch_empty; /* scratch.cur when it holds nothing */

    /* Results. */
    uint64_t rewrites, erased, aborted, pending_inserted, shape_recomputes;
    bool stop_max_rewrites;
    bool budget_exhausted;
    bool failed;           /* a rule misbehaved or memory ran out */
    graft_error err;
    bool changed;          /* something changed during this sweep */
    /* Pending shape changes met by this sweep's visits (op_pending(), looked
     * up once at setup): with every instruction of the swept modules
     * visited, none met in a sweep that changed nothing means none is left
     * (driver_result.pending_seen). */
    const op_def *pending_op;
    uint64_t pending_seen;
    /* What this sweep's cursor met, for driver_result.cse_clean: offered
     * each instruction before its visit while the sweep has changed
     * nothing (in a sweep that changes nothing, the graph it probes is the
     * one the driver returns). */
    cse_probe probe;
};

/* Erases i (which must have no users) and every instruction that dies with
 * it; operands that lose a use go back on the worklist. */
void driver_erase(rewriter *rw, ins *i);
/* Records a failure (first one wins) and asks the driver to stop. */
void driver_fail(rewriter *rw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Monotonic nanoseconds. */
uint64_t driver_now_ns(void);
/* A cheap monotonic tick count (the time-stamp counter where there is one)
 * for per-rule times; driver_run turns tick totals into ns at its end. */
uint64_t driver_ticks(void);
/* A structural hash of one instruction: op, attributes, operand identities,
 * shape. Two instructions with equal hashes compute the same value. */
uint64_t driver_fingerprint(const ins *i);
/* The instructions a match at root looks at, as "  - line\n" lines
 * (malloc'd; for the trace). */
char *driver_trace_before(const ins *root);
/* Emits the trace record of the committed match (when tracing). */
void driver_trace_commit(rewriter *rw, ins *old, ins *rep);

/* Region bodies: whether m is one, remembering a new one, forgetting one. */
bool driver_is_region_body(const rewriter *rw, const module *m);
bool driver_add_region_body(rewriter *rw, module *m);
void driver_forget_region_body(rewriter *rw, const module *m);
/* Takes module m out of the graph's module list (its memory stays in the
 * arena); m->next is left alone so that a walk standing on m goes on. */

/* Handles a value whose shape changed from *old to i->sh while its users were
 * computed against *old: lazy mode puts a pending_shape_change between i and
 * its users; eager mode recomputes the users (and theirs) at once. */
bool driver_shape_changed(rewriter *rw, ins *i, const shape *old);

#endif
