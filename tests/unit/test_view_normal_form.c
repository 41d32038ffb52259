/* test_view_normal_form.c: a property test of the view normal form that
 * the shipped rule files define (docs/rules.md, "The view normal form").
 *
 * Each case is a random graph built with the IR's builder API from a seed:
 * chains of views (transpose, reshape, squeeze, unsqueeze, broadcast,
 * multibroadcast) across unary and binary pointwise ops, reductions and
 * dots. Every case is built twice in step, from the same random choices:
 *
 *   - the core: the computation with only the views it was given on purpose
 *     (a transposed or reshaped parameter, a broadcast operand, ...);
 *   - the noisy graph: the same computation with "noise" the rules must see
 *     through: ops conjugated by views (T^-1(u(T(x))), R^-1(b(R(x), R(y))),
 *     squeeze(r(unsqueeze(x)))), including the dot -> transpose -> pointwise
 *     -> transpose -> dot links of issue 7, and broadcasts hoisted above the
 *     pointwise ops they should sink below (u(mb(k)) for mb(u(k))).
 *
 * Each noise step is an identity of values, so the core is a witness: its
 * view count is an upper bound on the fewest views the noisy graph needs.
 * After `-p normalize` (the first phase of `-p default`: every set but
 * fusion; views inside fused regions are a different question) the test
 * checks, for the noisy graph:
 *
 *   (a) minimality:
 *       a1. it has no more views than the core (the computed bound; views
 *           are transpose, reshape, squeeze, unsqueeze, flatten, broadcast,
 *           multibroadcast, slice, contiguous, layout, pending_shape_change),
 *           plus one for each output the noise gave another packed layout
 *           than the core's (standard where the core returns a broadcast,
 *           or transposed: outputs_to_copy; the core with a contiguous or
 *           layout op there is the witness);
 *       a2. it is the very graph the core optimises to (canonical dumps; the
 *           view counts only, when a broadcast was hoisted above an op whose
 *           readers do not take a broadcast's layout: those stay; skipped
 *           when the noise changed an output's layout);
 *       a3. it is in normal form by this file's own reading of the
 *           definition (normal_form_violation below, written independently
 *           of the rules): no pending_shape_change, no identity view, no two
 *           adjacent views that compose, no transpose a single-reader dot
 *           could absorb, no identity output_permutation;
 *   (b) confluence: every --seed-order tried gives the identical graph
 *       (canonical dumps: instructions named by their position in a
 *       depth-first walk from the return, so names and program order do
 *       not matter; strides of length-1 axes are printed as '*');
 *   (c) the values: original and optimised agree on the reference executor
 *       (as --verify: rtol 1e-3, atol 1e-5), and so does the core (a check
 *       of the generator itself).
 *
 * On a failure it prints the seed, which check failed, and the smallest
 * failing case it can find: the same seed regenerated with fewer ops, then
 * the graph shrunk instruction by instruction (an op replaced by a parameter
 * or bypassed) while the failure persists; the shrunk dump reproduces with
 * `graft opt FILE -p normalize --seed-order N`.
 *
 *   test_view_normal_form [--cases N] [--held-out N] [--seed S]
 *       [--orders K] [--ops B] [--views TRSB] [--case SEED] [--report N]
 *       [--known FILE] [--write-known FILE] [--verbose]
 *
 * Failures are hard or soft. Hard ones (the pipeline failed, looped or made
 * an invalid graph; (c) values; (a3) the local normal form) fail the test on
 * any seed. Soft ones ((a1), (a2), (b)) are the residual the rules have not
 * reached yet: seeds listed in tests/unit/view_normal_form.known may fail
 * them in the tuned range, seeds 1..N, which rules and guards were written
 * against while the list shrank. Because that range was tuned against, its
 * failure rate understates the rules' real one, so every run also checks a
 * held-out range (seeds from 1000000, never looked at while writing rules):
 * there hard failures fail and soft ones are counted and printed as a rate.
 * With no arguments (make test, also under ASan) it runs 1500 tuned and 1500
 * held-out cases (300 each under a sanitizer); `make check-rules` runs 20000
 * and 100000. `make known-rules` rewrites the list.
 */
#include "check.h"
#include "dump.h"
#include "exec.h"
#include "ir.h"
#include "pipeline.h"
#include "sanitizer.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ======================================================================
 * Random numbers (splitmix64: a fixed sequence per seed on every platform)
 * ====================================================================== */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rnext(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static int rint_(rng *r, int n) { return n <= 1 ? 0 : (int)(rnext(r) % (uint64_t)n); }
/* True with probability pct %. */
static bool chance(rng *r, int pct) { return rint_(r, 100) < pct; }

/* ======================================================================
 * Growing strings
 * ====================================================================== */

typedef struct buf {
    char *s;
    size_t n, cap;
} buf;

static void bputs(buf *b, const char *t)
{
    size_t k = strlen(t);
    if (b->n + k + 1 > b->cap) {
        size_t c = b->cap ? b->cap * 2 : 1024;
        while (c < b->n + k + 1)
            c *= 2;
        b->s = realloc(b->s, c);
        b->cap = c;
    }
    memcpy(b->s + b->n, t, k + 1);
    b->n += k;
}

static void bprintf(buf *b, const char *fmt, ...)
{
    char tmp[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    bputs(b, tmp);
}

/* ======================================================================
 * Lens and permutations
 * ====================================================================== */

typedef struct lens {
    int rank;
    int64_t v[SHAPE_MAX_RANK];
} lens;

static int64_t elements(const lens *l)
{
    int64_t n = 1;
    for (int i = 0; i < l->rank; i++)
        n *= l->v[i];
    return n;
}

static bool lens_eq(const lens *a, const lens *b)
{
    if (a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->v[i] != b->v[i])
            return false;
    return true;
}

static lens lens_of(const ins *i)
{
    lens l = {i->sh.rank, {0}};
    memcpy(l.v, i->sh.lens, sizeof(int64_t) * (size_t)i->sh.rank);
    return l;
}

static void random_perm(rng *r, int n, int64_t *p)
{
    for (int i = 0; i < n; i++)
        p[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = rint_(r, i + 1);
        int64_t t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

static bool perm_is_identity(const int64_t *p, int n)
{
    for (int i = 0; i < n; i++)
        if (p[i] != i)
            return false;
    return true;
}

/* A random factorisation of n into 1 to 4 lengths. */
static lens random_factors(rng *r, int64_t n)
{
    lens l = {0, {0}};
    int want = 1 + rint_(r, 4);
    while (l.rank < want - 1 && n > 1) {
        int64_t divs[64];
        int nd = 0;
        for (int64_t d = 1; d <= n && nd < 64; d++)
            if (n % d == 0)
                divs[nd++] = d;
        int64_t d = divs[rint_(r, nd)];
        l.v[l.rank++] = d;
        n /= d;
    }
    l.v[l.rank++] = n;
    return l;
}

/* ======================================================================
 * The generator: the noisy graph and the core, built in step
 * ====================================================================== */

enum { NOISY = 0, CORE = 1 };

/* The view kinds a case may hold (all by default, --views to choose):
 * both the views given on purpose and the noise. */
enum {
    NOISE_TRANSPOSE = 1 << 0, /* transposes; noise T^-1(op(T(x), ...)) */
    NOISE_RESHAPE = 1 << 1,   /* reshapes; noise R^-1(op(R(x), ...)) on standard values */
    NOISE_UNSQUEEZE = 1 << 2, /* squeeze/unsqueeze; noise squeeze(op(unsqueeze(x), ...)) */
    NOISE_BROADCAST = 1 << 3, /* broadcasts of operands; noise u(mb(k)) for mb(u(k)),
                                 b(mb(k1), mb(k2)) for mb(b(k1, k2)) */
    NOISE_ALL = 0xf,
};

typedef struct pair {
    ins *v[2]; /* the value in the noisy graph and in the core */
} pair;

typedef struct gen {
    rng r;
    graph *g[2];
    module *m[2];
    int ops_left;      /* pointwise ops, reductions and dots still to build */
    int nparams;
    unsigned noise;    /* NOISE_* kinds allowed */
    int noise_pct;     /* how often an op is built with noise */
    bool failed;       /* a build step failed (a generator bug): the case is void */
    char why[512];
    bool hoisted;      /* broadcast noise was added (see check_text) */
    pair pool[64];     /* values built so far, for fan-out */
    int npool;
} gen;

static const char *const unary_ops[] = {"relu", "neg", "abs", "sigmoid", "tanh", "sin"};
static const char *const binary_ops[] = {"add", "mul", "sub", "max"};
static const char *const reduce_ops[] = {"reduce_sum", "reduce_mean", "reduce_max"};
#define COUNT(a) ((int)(sizeof a / sizeof a[0]))

/* Builds op(args) in graph `which`. */
static ins *build(gen *G, int which, const char *op, const attr *attrs, int nattrs, ins *const *args,
                  int nargs)
{
    if (G->failed)
        return NULL;
    graft_error err = {0};
    ins *i = module_add_op(G->m[which], op, attrs, nattrs, args, nargs, &err);
    if (!i) {
        G->failed = true;
        snprintf(G->why, sizeof G->why, "building %.40s in the %s graph: %.400s", op,
                 which == NOISY ? "noisy" : "core", err.message);
    }
    return i;
}

static ins *build1(gen *G, int which, const char *op, const attr *attrs, int nattrs, ins *x)
{
    return build(G, which, op, attrs, nattrs, &x, 1);
}

static ins *transpose_of(gen *G, int which, ins *x, const int64_t *perm)
{
    attr a = {"permutation", attr_ints(perm, x->sh.rank)};
    return build1(G, which, "transpose", &a, 1, x);
}

static ins *reshape_of(gen *G, int which, ins *x, const lens *to)
{
    attr a = {"dims", attr_ints(to->v, to->rank)};
    return build1(G, which, "reshape", &a, 1, x);
}

static ins *axes_op(gen *G, int which, const char *op, ins *x, int64_t axis)
{
    attr a = {"axes", attr_ints(&axis, 1)};
    return build1(G, which, op, &a, 1, x);
}

static ins *multibroadcast_of(gen *G, int which, ins *x, const lens *to)
{
    attr a = {"out_lens", attr_ints(to->v, to->rank)};
    return build1(G, which, "multibroadcast", &a, 1, x);
}

/* A new parameter (same name and shape in both graphs). */
static pair new_param(gen *G, const lens *l)
{
    char name[32];
    snprintf(name, sizeof name, "p%d", G->nparams++);
    shape sh = shape_standard(GRAFT_FLOAT, l->rank, l->v);
    pair p;
    for (int w = 0; w < 2; w++)
        p.v[w] = module_add_param(G->m[w], name, &sh);
    return p;
}

/* A small literal (same data in both graphs). */
static pair new_literal(gen *G, const lens *l)
{
    shape sh = shape_standard(GRAFT_FLOAT, l->rank, l->v);
    int64_t n = elements(l);
    float *data = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        data[i] = (float)(rint_(&G->r, 2001) - 1000) / 1000.0f;
    pair p;
    for (int w = 0; w < 2; w++)
        p.v[w] = module_add_literal(G->m[w], &sh, data);
    free(data);
    return p;
}

static void remember(gen *G, pair p)
{
    if (G->failed || !p.v[0] || !p.v[1])
        return;
    if (G->npool < COUNT(G->pool))
        G->pool[G->npool++] = p;
    else
        G->pool[rint_(&G->r, COUNT(G->pool))] = p;
}

/* A value of lens l already built, for fan-out; false if none. */
static bool reuse(gen *G, const lens *l, pair *out)
{
    int cand[64], n = 0;
    for (int k = 0; k < G->npool; k++) {
        lens a = lens_of(G->pool[k].v[CORE]), b = lens_of(G->pool[k].v[NOISY]);
        if (lens_eq(&a, l) && lens_eq(&b, l))
            cand[n++] = k;
    }
    if (!n)
        return false;
    *out = G->pool[cand[rint_(&G->r, n)]];
    return true;
}

static pair gen_value(gen *G, const lens *l, int depth);

/* ---- ops, each built plainly in the core and maybe with noise in the noisy graph ---- */

typedef enum op_kind { K_UNARY, K_BINARY, K_REDUCE } op_kind;

/* Builds op in the noisy graph conjugated by a transpose:
 * T^-1(op(T(a0), T(a1))) with reduction axes mapped. */
static ins *conj_transpose(gen *G, op_kind k, const char *op, const int64_t *axes, int naxes,
                           ins *const *args, int nargs)
{
    int rank = args[0]->sh.rank;
    int64_t p[SHAPE_MAX_RANK], inv[SHAPE_MAX_RANK];
    random_perm(&G->r, rank, p);
    if (perm_is_identity(p, rank) && rank > 1) {
        int64_t t = p[0];
        p[0] = p[1];
        p[1] = t;
    }
    for (int i = 0; i < rank; i++)
        inv[p[i]] = i;
    ins *t[2];
    for (int a = 0; a < nargs; a++)
        t[a] = transpose_of(G, NOISY, args[a], p);
    if (G->failed)
        return NULL;
    ins *y;
    if (k == K_REDUCE) {
        /* T(x) axis i is x's axis p[i]: x's axis a is T(x)'s axis inv[a]. */
        int64_t ax[SHAPE_MAX_RANK];
        bool on[SHAPE_MAX_RANK] = {false};
        for (int j = 0; j < naxes; j++)
            on[inv[axes[j]]] = true;
        int n = 0;
        for (int i = 0; i < rank; i++)
            if (on[i])
                ax[n++] = i;
        attr a = {"axes", attr_ints(ax, n)};
        y = build(G, NOISY, op, &a, 1, t, nargs);
    } else {
        y = build(G, NOISY, op, NULL, 0, t, nargs);
    }
    return y ? transpose_of(G, NOISY, y, inv) : NULL;
}

/* Conjugated by a reshape of standard operands: R^-1(op(R(a0), R(a1))). */
static ins *conj_reshape(gen *G, const char *op, ins *const *args, int nargs)
{
    lens from = lens_of(args[0]);
    lens to = random_factors(&G->r, elements(&from));
    ins *t[2];
    for (int a = 0; a < nargs; a++)
        t[a] = reshape_of(G, NOISY, args[a], &to);
    ins *y = build(G, NOISY, op, NULL, 0, t, nargs);
    return y ? reshape_of(G, NOISY, y, &from) : NULL;
}

/* Conjugated by an unsqueeze: squeeze(op(unsqueeze(a0), ...)) with the
 * reduction axes shifted. */
static ins *conj_unsqueeze(gen *G, op_kind k, const char *op, const int64_t *axes, int naxes,
                           ins *const *args, int nargs)
{
    int rank = args[0]->sh.rank;
    if (rank >= SHAPE_MAX_RANK - 1)
        return NULL;
    int64_t at = rint_(&G->r, rank + 1);
    ins *t[2];
    for (int a = 0; a < nargs; a++)
        t[a] = axes_op(G, NOISY, "unsqueeze", args[a], at);
    ins *y;
    if (k == K_REDUCE) {
        int64_t ax[SHAPE_MAX_RANK];
        for (int j = 0; j < naxes; j++)
            ax[j] = axes[j] >= at ? axes[j] + 1 : axes[j];
        attr a = {"axes", attr_ints(ax, naxes)};
        y = build(G, NOISY, op, &a, 1, t, nargs);
    } else {
        y = build(G, NOISY, op, NULL, 0, t, nargs);
    }
    return y ? axes_op(G, NOISY, "squeeze", y, at) : NULL;
}

static bool all_standard(ins *const *args, int nargs)
{
    for (int a = 0; a < nargs; a++)
        if (!shape_standard_p(&args[a]->sh))
            return false;
    return true;
}

/* All operands packed (no broadcast) with one layout: then the op conjugated
 * by a transpose gives its value the layout it has without (a pointwise op
 * of a broadcast value is standard, so a transposed broadcast would not). */
static bool same_layout(ins *const *args, int nargs)
{
    if (!shape_packed_p(&args[0]->sh))
        return false;
    for (int a = 1; a < nargs; a++)
        if (!shape_equal(&args[0]->sh, &args[a]->sh))
            return false;
    return true;
}

static pair emit(gen *G, op_kind k, const char *op, const int64_t *axes, int naxes, const pair *args,
                 int nargs)
{
    pair out = {{NULL, NULL}};
    ins *core_args[2], *noisy_args[2];
    for (int a = 0; a < nargs; a++) {
        core_args[a] = args[a].v[CORE];
        noisy_args[a] = args[a].v[NOISY];
    }
    attr ax = {"axes", attr_ints(axes, naxes)};
    out.v[CORE] = build(G, CORE, op, &ax, k == K_REDUCE ? 1 : 0, core_args, nargs);
    if (G->failed)
        return out;
    ins *y = NULL;
    if (chance(&G->r, G->noise_pct)) {
        int choice = rint_(&G->r, 3);
        if (choice == 0 && (G->noise & NOISE_TRANSPOSE) && noisy_args[0]->sh.rank > 1 &&
            same_layout(noisy_args, nargs))
            y = conj_transpose(G, k, op, axes, naxes, noisy_args, nargs);
        else if (choice == 1 && (G->noise & NOISE_RESHAPE) && k != K_REDUCE &&
                 all_standard(noisy_args, nargs))
            y = conj_reshape(G, op, noisy_args, nargs);
        else if (choice == 2 && (G->noise & NOISE_UNSQUEEZE) && all_standard(noisy_args, nargs))
            y = conj_unsqueeze(G, k, op, axes, naxes, noisy_args, nargs);
    }
    if (!y && !G->failed)
        y = build(G, NOISY, op, &ax, k == K_REDUCE ? 1 : 0, noisy_args, nargs);
    out.v[NOISY] = y;
    return out;
}

/* A dot of lens l (rank >= 2): a[..., m, k] x b[..., k, n]. */
static pair gen_dot(gen *G, const lens *l, int depth)
{
    lens la = *l, lb = *l;
    int64_t kk = 2 + rint_(&G->r, 3);
    la.v[l->rank - 1] = kk;
    lb.v[l->rank - 2] = kk;
    pair a = gen_value(G, &la, depth + 1);
    pair b = gen_value(G, &lb, depth + 1);
    pair out = {{NULL, NULL}};
    if (G->failed)
        return out;
    for (int w = 0; w < 2; w++) {
        ins *args[2] = {a.v[w], b.v[w]};
        out.v[w] = build(G, w, "dot", NULL, 0, args, 2);
    }
    return out;
}

/* The small operand of a binary op: a value of lens l seen through a
 * multibroadcast or broadcast. With broadcast noise, a unary or binary op on
 * the small value moves above the broadcast in the noisy graph. */
static pair gen_broadcast(gen *G, const lens *l, int depth)
{
    pair out = {{NULL, NULL}};
    lens small = *l;
    bool numpy = chance(&G->r, 70);
    int64_t axis = 0;
    if (numpy) {
        /* multibroadcast: some axes 1, maybe leading axes dropped */
        for (int i = 0; i < l->rank; i++)
            if (chance(&G->r, 50))
                small.v[i] = 1;
        int drop = rint_(&G->r, l->rank);
        while (drop > 0 && small.v[0] == 1 && small.rank > 1) {
            memmove(small.v, small.v + 1, sizeof(int64_t) * (size_t)(small.rank - 1));
            small.rank--;
            drop--;
        }
    } else {
        /* broadcast[axis]: a run of l's axes */
        axis = rint_(&G->r, l->rank);
        int len = 1 + rint_(&G->r, l->rank - (int)axis);
        small.rank = len;
        memcpy(small.v, l->v + axis, sizeof(int64_t) * (size_t)len);
    }
    attr mba = {"out_lens", attr_ints(l->v, l->rank)};
    attr ba[2] = {{"axis", attr_int(axis)}, {"out_lens", attr_ints(l->v, l->rank)}};
    const char *bop = numpy ? "multibroadcast" : "broadcast";
    const attr *battrs = numpy ? &mba : ba;
    int nb = numpy ? 1 : 2;
    if ((G->noise & NOISE_BROADCAST) && chance(&G->r, G->noise_pct) && G->ops_left > 0) {
        G->ops_left--;
        G->hoisted = true;
        if (chance(&G->r, 50)) {
            /* core mb(u(k)), noisy u(mb(k)) */
            const char *u = unary_ops[rint_(&G->r, COUNT(unary_ops))];
            pair k = gen_value(G, &small, depth + 1);
            if (G->failed)
                return out;
            ins *cu = build1(G, CORE, u, NULL, 0, k.v[CORE]);
            out.v[CORE] = build1(G, CORE, bop, battrs, nb, cu);
            ins *nm = build1(G, NOISY, bop, battrs, nb, k.v[NOISY]);
            out.v[NOISY] = build1(G, NOISY, u, NULL, 0, nm);
        } else {
            /* core mb(b(k1, k2)), noisy b(mb(k1), mb(k2)) */
            const char *b = binary_ops[rint_(&G->r, COUNT(binary_ops))];
            pair k1 = gen_value(G, &small, depth + 1);
            pair k2 = gen_value(G, &small, depth + 1);
            if (G->failed)
                return out;
            ins *cargs[2] = {k1.v[CORE], k2.v[CORE]};
            ins *cb = build(G, CORE, b, NULL, 0, cargs, 2);
            out.v[CORE] = build1(G, CORE, bop, battrs, nb, cb);
            ins *nargs[2] = {build1(G, NOISY, bop, battrs, nb, k1.v[NOISY]),
                             build1(G, NOISY, bop, battrs, nb, k2.v[NOISY])};
            out.v[NOISY] = build(G, NOISY, b, NULL, 0, nargs, 2);
        }
        return out;
    }
    pair k = gen_value(G, &small, depth + 1);
    if (G->failed)
        return out;
    for (int w = 0; w < 2; w++)
        out.v[w] = build1(G, w, bop, battrs, nb, k.v[w]);
    return out;
}

/* A view the value is given on purpose (in both graphs): a transpose,
 * reshape, squeeze, unsqueeze or broadcast of a value built below. */
static pair gen_view(gen *G, const lens *l, int depth)
{
    pair out = {{NULL, NULL}};
    static const unsigned kind_flag[5] = {NOISE_TRANSPOSE, NOISE_RESHAPE, NOISE_UNSQUEEZE,
                                          NOISE_UNSQUEEZE, NOISE_BROADCAST};
    int allowed[5], nallowed = 0;
    for (int k = 0; k < 5; k++)
        if (G->noise & kind_flag[k])
            allowed[nallowed++] = k;
    if (!nallowed)
        return new_param(G, l);
    int kind = allowed[rint_(&G->r, nallowed)];
    if (kind == 0 && l->rank > 1) {
        int64_t p[SHAPE_MAX_RANK];
        random_perm(&G->r, l->rank, p);
        lens from = {l->rank, {0}};
        for (int i = 0; i < l->rank; i++)
            from.v[p[i]] = l->v[i];
        pair x = gen_value(G, &from, depth + 1);
        if (G->failed)
            return out;
        for (int w = 0; w < 2; w++)
            out.v[w] = transpose_of(G, w, x.v[w], p);
        return out;
    }
    if (kind == 1) {
        lens from = random_factors(&G->r, elements(l));
        pair x = gen_value(G, &from, depth + 1);
        if (G->failed)
            return out;
        for (int w = 0; w < 2; w++)
            out.v[w] = reshape_of(G, w, x.v[w], l);
        return out;
    }
    if (kind == 2) {
        /* unsqueeze: l has a length-1 axis the operand lacks */
        int ones[SHAPE_MAX_RANK], n = 0;
        for (int i = 0; i < l->rank; i++)
            if (l->v[i] == 1)
                ones[n++] = i;
        if (n && l->rank > 1) {
            int at = ones[rint_(&G->r, n)];
            lens from = *l;
            memmove(from.v + at, from.v + at + 1, sizeof(int64_t) * (size_t)(l->rank - at - 1));
            from.rank--;
            pair x = gen_value(G, &from, depth + 1);
            if (G->failed)
                return out;
            for (int w = 0; w < 2; w++)
                out.v[w] = axes_op(G, w, "unsqueeze", x.v[w], at);
            return out;
        }
    }
    if (kind == 3 && l->rank < 4) {
        int at = rint_(&G->r, l->rank + 1);
        lens from = *l;
        memmove(from.v + at + 1, from.v + at, sizeof(int64_t) * (size_t)(l->rank - at));
        from.v[at] = 1;
        from.rank++;
        pair x = gen_value(G, &from, depth + 1);
        if (G->failed)
            return out;
        for (int w = 0; w < 2; w++)
            out.v[w] = axes_op(G, w, "squeeze", x.v[w], at);
        return out;
    }
    if (!(G->noise & NOISE_BROADCAST))
        return new_param(G, l);
    /* a broadcast of a smaller value */
    return gen_broadcast(G, l, depth);
}

static pair gen_value(gen *G, const lens *l, int depth)
{
    pair out = {{NULL, NULL}};
    if (G->failed)
        return out;
    if (depth > 6 || G->ops_left <= 0) {
        if (chance(&G->r, 25) && reuse(G, l, &out))
            return out;
        out = chance(&G->r, 10) ? new_literal(G, l) : new_param(G, l);
        return out;
    }
    int w = rint_(&G->r, 100);
    if (w < 8 && reuse(G, l, &out))
        return out;
    if (w < 14) {
        out = chance(&G->r, 15) ? new_literal(G, l) : new_param(G, l);
        return out;
    }
    if (w < 28) {
        out = gen_view(G, l, depth);
        remember(G, out);
        return out;
    }
    G->ops_left--;
    if (w < 50) {
        const char *u = unary_ops[rint_(&G->r, COUNT(unary_ops))];
        pair x = gen_value(G, l, depth + 1);
        out = emit(G, K_UNARY, u, NULL, 0, &x, 1);
    } else if (w < 72) {
        const char *b = binary_ops[rint_(&G->r, COUNT(binary_ops))];
        pair xy[2];
        xy[0] = gen_value(G, l, depth + 1);
        xy[1] = (G->noise & NOISE_BROADCAST) && chance(&G->r, 30) ? gen_broadcast(G, l, depth)
                                                                  : gen_value(G, l, depth + 1);
        if (chance(&G->r, 50)) {
            pair t = xy[0];
            xy[0] = xy[1];
            xy[1] = t;
        }
        out = emit(G, K_BINARY, b, NULL, 0, xy, 2);
    } else if (w < 86) {
        /* a reduction to l: some of l's length-1 axes were longer */
        int64_t axes[SHAPE_MAX_RANK];
        int n = 0;
        lens from = *l;
        for (int i = 0; i < l->rank; i++)
            if (l->v[i] == 1 && chance(&G->r, 70)) {
                from.v[i] = 2 + rint_(&G->r, 3);
                axes[n++] = i;
            }
        if (n == 0) {
            G->ops_left++;
            return gen_value(G, l, depth);
        }
        pair x = gen_value(G, &from, depth + 1);
        out = emit(G, K_REDUCE, reduce_ops[rint_(&G->r, COUNT(reduce_ops))], axes, n, &x, 1);
    } else if (l->rank >= 2) {
        out = gen_dot(G, l, depth);
    } else {
        G->ops_left++;
        return new_param(G, l);
    }
    remember(G, out);
    return out;
}

/* Random output lens: rank 2 to 4, lengths 1 to 4, mostly above 1. */
static lens random_lens(rng *r)
{
    lens l = {2 + rint_(r, 3), {0}};
    for (int i = 0; i < l.rank; i++)
        l.v[i] = chance(r, 20) ? 1 : 2 + rint_(r, 3);
    return l;
}

typedef struct generated {
    char *noisy, *core; /* dumps (malloc'd), NULL when the build failed */
    bool hoisted;       /* the noisy graph has broadcasts hoisted above ops */
    char why[512];
} generated;

static void generated_free(generated *g)
{
    free(g->noisy);
    free(g->core);
    g->noisy = g->core = NULL;
}

/* Builds the case of `seed` with at most `ops` ops and writes both graphs
 * as dumps. */
static bool generate(uint64_t seed, int ops, unsigned noise, generated *out)
{
    memset(out, 0, sizeof *out);
    gen G;
    memset(&G, 0, sizeof G);
    G.r.s = seed;
    G.ops_left = ops;
    G.noise = noise;
    G.noise_pct = 20 + rint_(&G.r, 60);
    graft_error err = {0};
    for (int w = 0; w < 2; w++) {
        G.g[w] = graph_new();
        G.m[w] = graph_add_module(G.g[w], "main", &err);
    }
    int nout = 1 + (chance(&G.r, 30) ? 1 : 0);
    ins *rets[2][2];
    for (int k = 0; k < nout; k++) {
        lens l = random_lens(&G.r);
        pair p = gen_value(&G, &l, 0);
        if (G.failed)
            break;
        rets[NOISY][k] = p.v[NOISY];
        rets[CORE][k] = p.v[CORE];
    }
    bool ok = !G.failed;
    out->hoisted = G.hoisted;
    if (ok) {
        for (int w = 0; w < 2; w++)
            module_add_return(G.m[w], rets[w], nout);
        for (int w = 0; w < 2 && ok; w++) {
            if (!graph_verify(G.g[w], &err)) {
                ok = false;
                snprintf(out->why, sizeof out->why, "generated graph invalid: %.400s", err.message);
                break;
            }
            size_t len;
            char *text = dump_write(G.g[w], &len, &err);
            if (!text) {
                ok = false;
                snprintf(out->why, sizeof out->why, "dump_write: %.400s", err.message);
                break;
            }
            if (w == NOISY)
                out->noisy = text;
            else
                out->core = text;
        }
    } else {
        snprintf(out->why, sizeof out->why, "%s", G.why);
    }
    for (int w = 0; w < 2; w++)
        graph_free(G.g[w]);
    if (!ok)
        generated_free(out);
    return ok;
}

/* ======================================================================
 * Running the pipeline, canonical dumps, values
 * ====================================================================== */

static optimize_plan normalize_plan;

static graph *parse_text(const char *text)
{
    graft_error err = {0};
    return dump_read(text, strlen(text), "case", &err);
}

/* Optimises a copy of text with -p normalize in the given visiting order
 * (0: program order). Returns the graph, or NULL with *why set. */
static graph *optimise(const char *text, uint64_t order, char *why, size_t whysize)
{
    graph *g = parse_text(text);
    if (!g) {
        snprintf(why, whysize, "the case does not parse");
        return NULL;
    }
    driver_options o;
    driver_options_init(&o);
    o.shuffle_seed = order;
    optimize_result res;
    graft_error err = {0};
    if (!optimize_plan_run(g, &normalize_plan, &o, &res, &err)) {
        snprintf(why, whysize, "optimize_plan_run: %.400s", err.message);
        graph_free(g);
        return NULL;
    }
    bool ok = true;
    if (res.driver.stop == DRIVER_ERROR) {
        snprintf(why, whysize, "driver error: %.400s", res.driver.error.message);
        ok = false;
    } else if (!res.driver.converged) {
        snprintf(why, whysize, "the driver did not converge (%s)", driver_stop_name(res.driver.stop));
        ok = false;
    } else if (!graph_verify(g, &err)) {
        snprintf(why, whysize, "the optimised graph is invalid: %.400s", err.message);
        ok = false;
    }
    optimize_result_free(&res);
    if (!ok) {
        graph_free(g);
        return NULL;
    }
    return g;
}

/* Canonical text: instructions numbered in depth-first post-order from the
 * return's operands (operands in order), each printed with its op, every
 * attribute, its operands' numbers and its shape; parameters by name,
 * literals by shape and a hash of their data. Two graphs print the same
 * exactly when they are the same computation written in any order with any
 * names. */
typedef struct canon_ctx {
    buf out;
    const ins **seen;
    int nseen, cap;
} canon_ctx;

static int canon_id(canon_ctx *c, const ins *i)
{
    for (int k = 0; k < c->nseen; k++)
        if (c->seen[k] == i)
            return k;
    return -1;
}

static int canon_visit(canon_ctx *c, const ins *i)
{
    int id = canon_id(c, i);
    if (id >= 0)
        return id;
    int args[64];
    for (int a = 0; a < i->nargs && a < 64; a++)
        args[a] = canon_visit(c, i->args[a]);
    if (c->nseen == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->seen = realloc(c->seen, sizeof *c->seen * (size_t)c->cap);
    }
    id = c->nseen;
    c->seen[c->nseen++] = i;
    bprintf(&c->out, "%d = %s", id, i->opname);
    if (i->param)
        bprintf(&c->out, ":%s", i->param);
    if (i->data) {
        uint64_t h = 0xcbf29ce484222325ull;
        size_t n = shape_bytes(&i->sh);
        for (size_t k = 0; k < n; k++)
            h = (h ^ ((const unsigned char *)i->data)[k]) * 0x100000001b3ull;
        bprintf(&c->out, "{%016llx}", (unsigned long long)h);
    }
    if (i->nattrs) {
        bputs(&c->out, "[");
        for (int k = 0; k < i->nattrs; k++) {
            char v[512];
            attr_value_print(i->attrs[k].v, v, sizeof v);
            bprintf(&c->out, "%s%s=%s", k ? "," : "", i->attrs[k].key, v);
        }
        bputs(&c->out, "]");
    }
    bputs(&c->out, "(");
    for (int a = 0; a < i->nargs; a++)
        bprintf(&c->out, "%s%d", a ? "," : "", args[a]);
    /* A length-1 axis's stride means nothing: it is printed as '*'. */
    bprintf(&c->out, ") -> %s, {", type_name(i->sh.type));
    for (int k = 0; k < i->sh.rank; k++)
        bprintf(&c->out, "%s%lld", k ? ", " : "", (long long)i->sh.lens[k]);
    bputs(&c->out, "}, {");
    for (int k = 0; k < i->sh.rank; k++) {
        if (i->sh.lens[k] == 1)
            bprintf(&c->out, "%s*", k ? ", " : "");
        else
            bprintf(&c->out, "%s%lld", k ? ", " : "", (long long)i->sh.strides[k]);
    }
    bputs(&c->out, "}\n");
    return id;
}

static char *canonical(const graph *g)
{
    canon_ctx c = {{0}, NULL, 0, 0};
    const ins *ret = module_return(graph_main(g));
    if (ret)
        canon_visit(&c, ret);
    free(c.seen);
    if (!c.out.s)
        bputs(&c.out, "");
    return c.out.s;
}

static bool is_view_op(const ins *i)
{
    static const char *const moves[] = {"contiguous", "layout", "copy", "pending_shape_change", NULL};
    if (i->op->classes & (OPC_VIEW | OPC_SHAPE))
        return true;
    for (int k = 0; moves[k]; k++)
        if (strcmp(i->opname, moves[k]) == 0)
            return true;
    return false;
}

/* Views reachable from the return (what is left after DCE). */
static int count_views(const graph *g)
{
    int n = 0;
    for (const ins *i = graph_main(g)->first; i; i = i->next)
        n += is_view_op(i) && i->nusers > 0;
    return n;
}

/* Runs a and b on the same seeded inputs; false (why set) when an output
 * differs beyond rtol 1e-3 + atol 1e-5, as graft opt --verify. */
static bool same_values(const graph *a, const graph *b, char *why, size_t whysize)
{
    graft_error err = {0};
    tensor_list in = {0}, ra = {0}, rb = {0};
    bool ok = exec_random_inputs(graph_main(a), 7, &in, &err) && exec_run(graph_main(a), &in, &ra, &err) &&
              exec_run(graph_main(b), &in, &rb, &err);
    if (!ok)
        snprintf(why, whysize, "running: %.400s", err.message);
    if (ok && ra.n != rb.n) {
        snprintf(why, whysize, "%d outputs, then %d", ra.n, rb.n);
        ok = false;
    }
    for (int k = 0; ok && k < ra.n; k++) {
        const tensor *x = &ra.items[k].t, *y = &rb.items[k].t;
        if (!shape_same_lens(&x->sh, &y->sh)) {
            snprintf(why, whysize, "output %d changed lens", k);
            ok = false;
            break;
        }
        int64_t n = shape_elements(&x->sh);
        for (int64_t e = 0; e < n; e++) {
            double u = tensor_get_f64(x, e), v = tensor_get_f64(y, e);
            if (isnan(u) && isnan(v))
                continue;
            if (!(fabs(u - v) <= 1e-5 + 1e-3 * fabs(u))) {
                snprintf(why, whysize, "output %d element %lld: %.9g, then %.9g", k, (long long)e, u, v);
                ok = false;
                break;
            }
        }
    }
    tensor_list_free(&in);
    tensor_list_free(&ra);
    tensor_list_free(&rb);
    return ok;
}

/* ======================================================================
 * The normal form, read independently of the rules
 * ====================================================================== */

static bool op_is(const ins *i, const char *name) { return strcmp(i->opname, name) == 0; }

static bool is_shape_op(const ins *i)
{
    return op_is(i, "reshape") || op_is(i, "squeeze") || op_is(i, "unsqueeze") || op_is(i, "flatten") ||
           op_is(i, "reshape_lazy");
}

static bool is_broadcast_op(const ins *i) { return op_is(i, "broadcast") || op_is(i, "multibroadcast"); }

static const int64_t *ints_attr(const ins *i, const char *key, int *n)
{
    const attr_value *v = ins_attr(i, key);
    *n = v ? v->n : 0;
    return v ? v->u.ints : NULL;
}

/* Equal type and lens, and equal strides but on length-1 axes. */
static bool same_layout_shape(const shape *a, const shape *b)
{
    if (a->type != b->type || !shape_same_lens(a, b))
        return false;
    for (int k = 0; k < a->rank; k++)
        if (a->lens[k] != 1 && a->strides[k] != b->strides[k])
            return false;
    return true;
}

/* Returns NULL when g is in normal form, else what is wrong (static text). */
static const char *normal_form_violation(const graph *g, char *why, size_t whysize)
{
    for (const ins *i = graph_main(g)->first; i; i = i->next) {
        if (i->nusers == 0 && !op_is(i, "@return"))
            continue;
        if (op_is(i, "pending_shape_change")) {
            snprintf(why, whysize, "a pending_shape_change is left");
            return why;
        }
        if (is_view_op(i) && i->nargs >= 1 && same_layout_shape(&i->sh, &i->args[0]->sh) &&
            !op_is(i, "@return")) {
            snprintf(why, whysize, "%s is an identity view (its shape equals its operand's)", i->opname);
            return why;
        }
        if (i->nargs < 1)
            continue;
        const ins *x = i->args[0];
        if (op_is(i, "transpose") && op_is(x, "transpose")) {
            snprintf(why, whysize, "two transposes in a row");
            return why;
        }
        if (is_shape_op(i) && is_shape_op(x) && shape_standard_p(&x->args[0]->sh) &&
            shape_standard_p(&i->sh)) {
            snprintf(why, whysize, "%s of %s of a standard value: one reshape", i->opname, x->opname);
            return why;
        }
        if (op_is(i, "multibroadcast") && is_broadcast_op(x) && x->nargs == 1) {
            /* composable: a multibroadcast of a multibroadcast always; of
             * broadcast[axis](y) when y's axes come last or are not
             * stretched */
            const ins *y = x->args[0];
            bool composes = op_is(x, "multibroadcast");
            const attr_value *ax = ins_attr(x, "axis");
            if (!composes && ax) {
                int64_t a = ax->u.i, a2 = a + i->sh.rank - x->sh.rank;
                composes = a + y->sh.rank == x->sh.rank;
                bool kept = a2 >= 0 && a2 + y->sh.rank <= i->sh.rank;
                for (int k = 0; kept && k < y->sh.rank; k++)
                    kept = i->sh.lens[a2 + k] == y->sh.lens[k];
                composes = composes || kept;
            }
            if (composes) {
                snprintf(why, whysize, "multibroadcast of %s: one broadcast", x->opname);
                return why;
            }
        }
        if (op_is(i, "transpose") && op_is(x, "dot") && x->nusers == 1) {
            snprintf(why, whysize, "a transpose of a dot with no other reader (output_permutation)");
            return why;
        }
        if (op_is(i, "dot")) {
            int n;
            const int64_t *p = ints_attr(i, "output_permutation", &n);
            if (n && perm_is_identity(p, n)) {
                snprintf(why, whysize, "a dot with an identity output_permutation");
                return why;
            }
        }
    }
    return NULL;
}

/* ======================================================================
 * One case
 * ====================================================================== */

typedef enum failure {
    F_NONE,
    F_RUN,        /* the pipeline failed, did not converge or made an invalid graph */
    F_VALUES,     /* (c) */
    F_ORDER,      /* (b) */
    F_LOCAL,      /* (a3) */
    F_BOUND,      /* (a1) */
    F_CORE,       /* (a2) */
    F_GENERATOR,  /* the core computes other values than the noisy graph */
} failure;

static const char *const failure_names[] = {
    "none", "pipeline", "(c) values", "(b) visiting order", "(a3) normal form", "(a1) view bound",
    "(a2) same graph as the core", "generator: core and noisy graph differ",
};

typedef struct outcome {
    failure f;
    char why[1024];
    char *result; /* the optimised dump (program order), malloc'd */
    char *other;  /* for F_ORDER / F_CORE: the differing canonical dumps */
    char *mine;
    bool core_run; /* F_RUN: the run that failed is the core's, not the noisy graph's */
} outcome;

static void outcome_free(outcome *o)
{
    free(o->result);
    free(o->other);
    free(o->mine);
    memset(o, 0, sizeof *o);
}

static int norders = 3;
static bool check_against_core = true;

/* The two graphs return values of the same layouts (the program's outputs
 * keep their shapes, so graphs whose outputs differ in layout cannot
 * optimise to the same graph). */
static bool same_outputs(const graph *a, const graph *b)
{
    const ins *ra = module_return(graph_main(a)), *rb = module_return(graph_main(b));
    if (!ra || !rb || ra->nargs != rb->nargs)
        return false;
    for (int k = 0; k < ra->nargs; k++)
        if (!same_layout_shape(&ra->args[k]->sh, &rb->args[k]->sh))
            return false;
    return true;
}

/* The outputs of noisy graph a that are packed (no broadcast) in another
 * layout than core b's: broadcast noise hoisted above a binary op gives it
 * a full layout where the core returns a broadcast, and transpose noise can
 * leave a binary op with the layout of its transposed operand where the
 * core's has the other's (ops_binary_layout: seed 1006071's noisy `max` of
 * a value standard but for the strides of its length-1 axes and of a
 * transposed one). The core is a witness for a only with a contiguous or
 * layout op on each of them, one view more each. The noisy graph must keep
 * its outputs' layouts, so no graph with fewer views computes it. */
static int outputs_to_copy(const graph *a, const graph *b)
{
    const ins *ra = module_return(graph_main(a)), *rb = module_return(graph_main(b));
    int n = 0;
    if (!ra || !rb || ra->nargs != rb->nargs)
        return 0;
    for (int k = 0; k < ra->nargs; k++) {
        const shape *x = &ra->args[k]->sh, *y = &rb->args[k]->sh;
        n += shape_packed_p(x) && !shape_broadcasted_p(x) && !same_layout_shape(x, y);
    }
    return n;
}

/* The checks that need only the noisy graph: (b), (c), (a3); and with a
 * core, (a1) and (a2). */
static failure check_text(const char *noisy, const char *core, bool hoisted, outcome *o)
{
    memset(o, 0, sizeof *o);
    graph *g = optimise(noisy, 0, o->why, sizeof o->why);
    if (!g)
        return o->f = F_RUN;
    size_t len;
    graft_error err = {0};
    o->result = dump_write(g, &len, &err);
    char *canon = canonical(g);
    graph *orig = parse_text(noisy);
    if (!same_values(orig, g, o->why, sizeof o->why))
        o->f = F_VALUES;
    if (!o->f && normal_form_violation(g, o->why, sizeof o->why))
        o->f = F_LOCAL;
    for (int k = 1; !o->f && k <= norders; k++) {
        uint64_t order = (uint64_t)k * 7919u;
        graph *h = optimise(noisy, order, o->why, sizeof o->why);
        if (!h) {
            o->f = F_RUN;
            break;
        }
        char *c2 = canonical(h);
        if (strcmp(canon, c2) != 0) {
            o->f = F_ORDER;
            int v1 = count_views(g), v2 = count_views(h);
            snprintf(o->why, sizeof o->why, "--seed-order %llu gives another graph (%d views, %d in program order)%s",
                     (unsigned long long)order, v2, v1, v1 == v2 ? " [tie]" : "");
            o->other = c2;
            o->mine = canon;
            canon = NULL;
            c2 = NULL;
        }
        free(c2);
        graph_free(h);
    }
    if (!o->f && core) {
        graph *c = parse_text(core);
        if (!same_values(orig, c, o->why, sizeof o->why)) {
            o->f = F_GENERATOR;
        } else {
            int bound = count_views(c) + outputs_to_copy(orig, c), got = count_views(g);
            graph *cg = optimise(core, 0, o->why, sizeof o->why);
            if (!cg) {
                o->f = F_RUN;
                o->core_run = true;
            } else if (got > bound) {
                o->f = F_BOUND;
                snprintf(o->why, sizeof o->why, "%d views left; the core has %d", got, bound);
            } else if (check_against_core && same_outputs(orig, c)) {
                char *cc = canonical(cg);
                /* A broadcast hoisted above a pointwise op whose readers do
                 * not take a broadcast's layout stays there (moving it would
                 * change layouts downstream): then only the counts must
                 * agree. */
                bool differ = hoisted ? count_views(cg) != got : strcmp(cc, canon) != 0;
                if (differ) {
                    o->f = F_CORE;
                    snprintf(o->why, sizeof o->why,
                             "the noisy graph and the core optimise to different graphs (%d and %d views)",
                             got, count_views(cg));
                    o->other = cc;
                    o->mine = canon;
                    canon = NULL;
                    cc = NULL;
                }
                free(cc);
            }
            if (cg)
                graph_free(cg);
        }
        graph_free(c);
    }
    free(canon);
    graph_free(orig);
    graph_free(g);
    return o->f;
}

/* ---- shrinking a failing graph ---- */

/* Tries each simplification of text in turn (an op replaced by a new
 * parameter of its shape, or bypassed when its operand has its shape) and
 * keeps the first that still fails the same way; repeats until none does. */
static char *shrink_text(char *text, failure want)
{
    bool progress = true;
    int param_no = 1000;
    while (progress) {
        progress = false;
        graph *g = parse_text(text);
        if (!g)
            break;
        int n = 0;
        for (ins *i = graph_main(g)->first; i; i = i->next)
            n++;
        graph_free(g);
        for (int target = 0; target < n && !progress; target++) {
            for (int how = 0; how < 3 && !progress; how++) {
                graph *h = parse_text(text);
                ins *i = graph_main(h)->first;
                for (int k = 0; k < target && i; k++)
                    i = i->next;
                bool changed = false;
                if (i && !(i->op->classes & OPC_BUILTIN)) {
                    if (how == 0) {
                        char name[32];
                        snprintf(name, sizeof name, "s%d", param_no++);
                        shape sh = shape_standard(i->sh.type, i->sh.rank, i->sh.lens);
                        if (shape_equal(&sh, &i->sh)) {
                            ins *p = module_add_param(graph_main(h), name, &sh);
                            module_move_before(p, graph_main(h)->first);
                            ins_replace_all_uses(i, p);
                            changed = true;
                        }
                    } else if (i->nargs > how - 1 && shape_equal(&i->args[how - 1]->sh, &i->sh)) {
                        ins_replace_all_uses(i, i->args[how - 1]);
                        changed = true;
                    }
                }
                if (changed) {
                    /* drop what nothing reads any more */
                    bool again = true;
                    while (again) {
                        again = false;
                        for (ins *d = graph_main(h)->first; d;) {
                            ins *next = d->next;
                            if (ins_is_dead(d) || (d->nusers == 0 && (ins_is(d, "@param") || ins_is(d, "@literal")))) {
                                module_remove(d);
                                again = true;
                            }
                            d = next;
                        }
                    }
                    size_t len;
                    graft_error err = {0};
                    char *t2 = graph_verify(h, &err) ? dump_write(h, &len, &err) : NULL;
                    if (t2) {
                        outcome o;
                        if (check_text(t2, NULL, false, &o) == want && strlen(t2) < strlen(text)) {
                            free(text);
                            text = t2;
                            t2 = NULL;
                            progress = true;
                        }
                        outcome_free(&o);
                    }
                    free(t2);
                }
                graph_free(h);
            }
        }
    }
    return text;
}

static void report_failure(uint64_t seed, int ops, unsigned noise, const outcome *first)
{
    printf("view normal form: case seed %llu (--case %llu --ops %d) fails %s: %s\n",
           (unsigned long long)seed, (unsigned long long)seed, ops, failure_names[first->f], first->why);
    /* The smallest op budget for this seed that still fails the same way. */
    generated gcase = {0};
    outcome o = {0};
    int best = ops;
    for (int b = 0; b < ops; b++) {
        generated t;
        if (!generate(seed, b, noise, &t))
            continue;
        outcome ot;
        if (check_text(t.noisy, t.core, t.hoisted, &ot) == first->f) {
            best = b;
            gcase = t;
            o = ot;
            break;
        }
        outcome_free(&ot);
        generated_free(&t);
    }
    if (!gcase.noisy) {
        generate(seed, ops, noise, &gcase);
        check_text(gcase.noisy, gcase.core, gcase.hoisted, &o);
    }
    /* Where the run that failed is the core's (the noisy graph converges),
     * the core is the reproducer: it is shrunk and printed as the input, and
     * `graft opt -p normalize` on it fails the same way. */
    bool core_run = first->f == F_RUN && o.core_run && gcase.core;
    const char *start = core_run ? gcase.core : gcase.noisy;
    char *text = start ? strdup(start) : NULL;
    if (text && first->f != F_BOUND && first->f != F_CORE && first->f != F_GENERATOR)
        text = shrink_text(text, first->f);
    outcome fin;
    check_text(text, (first->f == F_BOUND || first->f == F_CORE || first->f == F_GENERATOR) ? gcase.core : NULL,
               gcase.hoisted, &fin);
    printf("minimal failing case (seed %llu, %d ops%s): %s: %s\n", (unsigned long long)seed, best,
           core_run ? ", the core's run, shrunk" : "", failure_names[fin.f], fin.why);
    if (core_run)
        printf("---- noisy input (converges) ----\n%s", gcase.noisy);
    printf("---- input ----\n%s", text ? text : "(none)\n");
    if (first->f == F_BOUND || first->f == F_CORE || first->f == F_GENERATOR || core_run)
        printf("---- core ----\n%s", gcase.core ? gcase.core : "(none)\n");
    printf("---- after -p normalize ----\n%s", fin.result ? fin.result : "(none)\n");
    if (fin.mine && fin.other)
        printf("---- canonical ----\n%s---- other ----\n%s", fin.mine, fin.other);
    outcome_free(&fin);
    outcome_free(&o);
    free(text);
    generated_free(&gcase);
}

/* ======================================================================
 * main
 * ====================================================================== */

/* ---- the list of known failures (tests/unit/view_normal_form.known) ----
 * One seed a line ("SEED  # what failed"), for the default generator
 * settings. The test fails on a failure whose seed is not listed; a listed
 * seed that passes is reported (the list should then shrink). */
typedef struct known_list {
    uint64_t *seeds;
    long n;
} known_list;

static void known_load(known_list *k, const char *path)
{
    memset(k, 0, sizeof *k);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    long cap = 0;
    while (fgets(line, sizeof line, f)) {
        char *end;
        unsigned long long v = strtoull(line, &end, 10);
        if (end == line)
            continue;
        if (k->n == cap) {
            cap = cap ? cap * 2 : 256;
            k->seeds = realloc(k->seeds, sizeof *k->seeds * (size_t)cap);
        }
        k->seeds[k->n++] = v;
    }
    fclose(f);
}

static bool known_has(const known_list *k, uint64_t seed)
{
    for (long i = 0; i < k->n; i++)
        if (k->seeds[i] == seed)
            return true;
    return false;
}

/* Which failures the known list may excuse, and which fail any seed. A
 * rule loop, an invalid graph, changed values or a violation of the normal
 * form's local definition (a3) are bugs on every graph; the soft ones, a
 * visiting order that reaches another graph (b), more views than the core
 * (a1) or another graph than the core's (a2), are the residual the known
 * list records for the tuned range. */
static bool failure_is_soft(failure f) { return f == F_ORDER || f == F_BOUND || f == F_CORE; }

/* The tallies of one range of seeds. */
typedef struct tally {
    long run, failed, known_failed, known_passed, soft_failed, ties;
    long views_in, views_out, views_core;
    long by_failure[8];
} tally;

typedef struct range_options {
    int ops;
    unsigned views;
    bool verbose, single;
    long max_report;
    const known_list *known; /* the list that excuses soft failures, or NULL */
    bool soft_ok;            /* soft failures are counted, not failed (the held-out range) */
    FILE *write_known;
} range_options;

/* Runs seeds first..first+n-1 and adds their outcomes to *t; reports the
 * first failures that fail the run (up to max_report, counted in *reported). */
static void run_range(uint64_t first, long n, const range_options *ro, tally *t, long *reported)
{
    for (long c = 0; c < n; c++) {
        uint64_t seed = first + (uint64_t)c;
        generated gc;
        if (!generate(seed, ro->ops, ro->views, &gc)) {
            if (ro->verbose)
                printf("seed %llu: no case (%s)\n", (unsigned long long)seed, gc.why);
            continue;
        }
        t->run++;
        outcome o;
        failure f = check_text(gc.noisy, gc.core, gc.hoisted, &o);
        bool soft = failure_is_soft(f);
        bool is_known = ro->known && known_has(ro->known, seed);
        if (ro->verbose || ro->single)
            printf("seed %llu: %s%s%s\n---- input ----\n%s---- after ----\n%s", (unsigned long long)seed,
                   failure_names[f], f ? ": " : "", f ? o.why : "", gc.noisy, o.result ? o.result : "");
        if (ro->single)
            printf("---- core ----\n%s", gc.core);
        if (f == F_NONE) {
            graph *a = parse_text(gc.noisy), *b = parse_text(o.result), *cc = parse_text(gc.core);
            t->views_in += count_views(a);
            t->views_out += count_views(b);
            t->views_core += count_views(cc);
            graph_free(a);
            graph_free(b);
            graph_free(cc);
            t->known_passed += is_known;
        } else {
            t->by_failure[f]++;
            t->ties += f == F_ORDER && strstr(o.why, "[tie]") != NULL;
            if (ro->write_known && soft)
                fprintf(ro->write_known, "%llu  # %s: %s\n", (unsigned long long)seed, failure_names[f], o.why);
            if (soft && is_known) {
                t->known_failed++;
            } else if (soft && ro->soft_ok) {
                t->soft_failed++;
            } else {
                t->failed++;
                if (++*reported <= ro->max_report)
                    report_failure(seed, ro->ops, ro->views, &o);
            }
        }
        outcome_free(&o);
        generated_free(&gc);
    }
}

static void print_tally(const char *what, uint64_t first, long n, int ops, double secs, const tally *t)
{
    printf("view normal form, %s: %ld cases (seeds %llu..%llu, %d ops, %d visiting orders each) in %.2f s; "
           "views %ld in the inputs, %ld in the cores, %ld left after -p normalize\n",
           what, t->run, (unsigned long long)first, (unsigned long long)(first + (uint64_t)n - 1), ops,
           norders + 1, secs, t->views_in, t->views_core, t->views_out);
    long all = t->failed + t->known_failed + t->soft_failed;
    printf("  %ld failed (%.2f%%): %ld fail the test, %ld known, %ld soft allowed; %ld of the visiting-order "
           "failures are ties (other graphs with as many views)\n",
           all, t->run ? 100.0 * (double)all / (double)t->run : 0.0, t->failed, t->known_failed, t->soft_failed,
           t->ties);
    for (int f = 1; f < 8; f++)
        if (t->by_failure[f])
            printf("  %ld failed %s%s\n", t->by_failure[f], failure_names[f], failure_is_soft(f) ? "" : " (hard)");
    if (t->known_passed)
        printf("  %ld seeds of the known list pass now: regenerate it with --write-known\n", t->known_passed);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The held-out range: seeds far from the tuned range 1..N, which no rule or
 * guard was ever written against. Soft failures there are a rate to watch
 * (the tuned range's rate understates it), hard ones fail the test. */
#define HELD_OUT_SEED 1000000ull

int main(int argc, char **argv)
{
#ifdef GRAFT_ASAN
    long cases = 300; /* make test runs this program under ASan too */
#else
    long cases = 1500;
#endif
    long held_out = -1; /* default: as many as cases */
    uint64_t seed0 = 1;
    int ops = 10;
    long one_case = -1;
    bool verbose = false;
    long max_report = 3;
    unsigned views = NOISE_ALL;
    const char *known_path = "tests/unit/view_normal_form.known", *write_known = NULL;
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--cases") == 0 && k + 1 < argc)
            cases = atol(argv[++k]);
        else if (strcmp(argv[k], "--held-out") == 0 && k + 1 < argc)
            held_out = atol(argv[++k]);
        else if (strcmp(argv[k], "--seed") == 0 && k + 1 < argc)
            seed0 = strtoull(argv[++k], NULL, 10);
        else if (strcmp(argv[k], "--orders") == 0 && k + 1 < argc)
            norders = atoi(argv[++k]);
        else if (strcmp(argv[k], "--ops") == 0 && k + 1 < argc)
            ops = atoi(argv[++k]);
        else if (strcmp(argv[k], "--case") == 0 && k + 1 < argc)
            one_case = atol(argv[++k]);
        else if (strcmp(argv[k], "--report") == 0 && k + 1 < argc)
            max_report = atol(argv[++k]);
        else if (strcmp(argv[k], "--known") == 0 && k + 1 < argc)
            known_path = argv[++k];
        else if (strcmp(argv[k], "--write-known") == 0 && k + 1 < argc)
            write_known = argv[++k];
        else if (strcmp(argv[k], "--views") == 0 && k + 1 < argc) {
            views = 0;
            for (const char *c = argv[++k]; *c; c++)
                views |= *c == 'T' ? NOISE_TRANSPOSE : *c == 'R' ? NOISE_RESHAPE
                       : *c == 'S' ? NOISE_UNSQUEEZE : *c == 'B' ? NOISE_BROADCAST : 0;
        } else if (strcmp(argv[k], "--verbose") == 0)
            verbose = true;
        else {
            fprintf(stderr,
                    "usage: %s [--cases N] [--held-out N] [--seed S] [--orders K] [--ops B] [--views TRSB]\n"
                    "          [--case SEED] [--report N] [--known FILE] [--write-known FILE] [--verbose]\n",
                    argv[0]);
            return 2;
        }
    }
    const pipeline *p = pipeline_find("normalize");
    graft_error err = {0};
    if (!p || !pipeline_plan(p, &normalize_plan, &err)) {
        printf("FAIL view_normal_form: no normalize pipeline: %s\n", err.message);
        return 1;
    }
    known_list known;
    known_load(&known, known_path);
    /* The list speaks of the default generator settings and seeds 1..N. */
    bool defaults = ops == 10 && views == NOISE_ALL && norders == 3;
    FILE *wk = write_known ? fopen(write_known, "w") : NULL;
    if (write_known && !wk) {
        printf("FAIL view_normal_form: cannot write %s\n", write_known);
        return 1;
    }
    if (wk)
        fprintf(wk, "# Seeds of tests/unit/test_view_normal_form.c (default settings) whose soft checks\n"
                    "# fail: known residual non-confluence and non-minimality, see docs/rules.md.\n");

    range_options ro = {
        .ops = ops, .views = views, .verbose = verbose, .single = one_case >= 0, .max_report = max_report,
        .known = defaults ? &known : NULL, .soft_ok = false, .write_known = wk,
    };
    long reported = 0, failed = 0;
    struct timespec t0;
    uint64_t first = one_case >= 0 ? (uint64_t)one_case : seed0;
    long n = one_case >= 0 ? 1 : cases;
    if (n > 0) {
        tally t = {0};
        clock_gettime(CLOCK_MONOTONIC, &t0);
        run_range(first, n, &ro, &t, &reported);
        print_tally(first == 1 ? "tuned range" : "range", first, n, ops, seconds_since(&t0), &t);
        failed += t.failed;
    }
    if (wk)
        fclose(wk);
    /* By default as many held-out cases as tuned ones; none where the
     * command line picked the range itself (--seed, --case). */
    if (held_out < 0)
        held_out = one_case < 0 && seed0 == 1 ? cases : 0;
    if (held_out > 0) {
        tally h = {0};
        ro.known = NULL;
        ro.soft_ok = true;
        ro.write_known = NULL;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        run_range(HELD_OUT_SEED, held_out, &ro, &h, &reported);
        print_tally("held out (soft failures counted, not failed)", HELD_OUT_SEED, held_out, ops,
                    seconds_since(&t0), &h);
        failed += h.failed;
    }
    free(known.seeds);
    if (failed)
        printf("FAIL view_normal_form: %ld cases failed (hard failures, or soft ones not in the known list; "
               "first reported above)\n",
               failed);
    else
        printf("PASS view_normal_form\n");
    return failed ? 1 : 0;
}
