/* loop_run.c: the order a launch plan runs in, shared by the emu and hip
 * runtimes so both interpret `loop` entries (cg_loop) the same way.
 *
 * Without loops the plan is its kernels in order. A loop's body kernels
 * [first, end) run once per iteration: before the first one the trip count
 * is read from its device buffer, and before each one the condition (the
 * init kernel before `first` writes the operand's condition there, the
 * body's commit kernel the next one). The iteration number is counted on
 * the host too, to stop at the trip count and max_iterations; the kernels
 * keep their own copy on the device for the body to read. Each read is a
 * device-to-host copy, which on a GPU waits for the kernels before it: a
 * loop costs one such synchronisation per iteration.
 */
#include "codegen.h"

static const cg_loop *loop_starting_at(const cg_program *p, int k)
{
    for (int l = 0; l < p->nloops; l++)
        if (p->loops[l].first == k)
            return &p->loops[l];
    return NULL;
}

static bool run_range(const cg_program *p, const cg_launcher *l, int lo, int hi,
                      const cg_loop *skip, long long *n, graft_error *err);

static bool run_loop(const cg_program *p, const cg_launcher *l, const cg_loop *lp, long long *n,
                     graft_error *err)
{
    int64_t trips = 0;
    if (!l->read(l->ctx, lp->trips_buffer, lp->trips_offset, &trips, sizeof trips, err))
        return false;
    for (int64_t iteration = 0;
         iteration < trips && (lp->max_iterations < 0 || iteration < lp->max_iterations);
         iteration++) {
        unsigned char cond = 0;
        if (!l->read(l->ctx, lp->cond_buffer, 0, &cond, 1, err))
            return false;
        if (!cond)
            break;
        if (!run_range(p, l, lp->first, lp->end, lp, n, err))
            return false;
    }
    return true;
}

static bool run_range(const cg_program *p, const cg_launcher *l, int lo, int hi,
                      const cg_loop *skip, long long *n, graft_error *err)
{
    for (int k = lo; k < hi;) {
        const cg_loop *lp = loop_starting_at(p, k);
        if (lp && lp != skip) {
            if (lp->end > hi || lp->end <= k)
                return error_set(err, "launch plan: loop at kernel %d ends at %d, outside %d..%d",
                                 k, lp->end, lo, hi);
            if (!run_loop(p, l, lp, n, err))
                return false;
            k = lp->end;
            continue;
        }
        skip = NULL;
        if (!l->launch(l->ctx, k, err))
            return false;
        ++*n;
        k++;
    }
    return true;
}

bool cg_run_launches(const cg_program *p, const cg_launcher *l, long long *nlaunches,
                     graft_error *err)
{
    long long n = 0;
    bool ok = run_range(p, l, 0, p->nkernels, NULL, &n, err);
    if (nlaunches)
        *nlaunches = n;
    return ok;
}
