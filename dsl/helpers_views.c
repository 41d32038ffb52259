/* helpers_views.c: the helpers of the view normal form (see helpers_views.h). */
#include "helpers_views.h"
#include "helpers_reshape.h"

#include "lazy_shapes.h"
#include "ops_util.h"
#include "shape.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool is_op(const ins *i, const char *name) { return strcmp(i->op->name, name) == 0; }

/* x is a shape op (reshape, squeeze, unsqueeze, ...: OPC_SHAPE). */
static bool is_shape_view(const ins *x) { return (x->op->classes & OPC_SHAPE) != 0; }

/* x is a shape op or a transpose: the views the walks below pass when they
 * look for what a value computes, whatever layout it is read in. */
static bool shape_view_or_transpose(const ins *x) { return is_shape_view(x) || is_op(x, "transpose"); }

/* i is a broadcast or a multibroadcast (callers that need its one operand
 * ask nargs). */
static bool broadcast_op(const ins *i) { return is_op(i, "multibroadcast") || is_op(i, "broadcast"); }

/* x has a reader, and every reader of x answers yes to `is`. */
static bool every_reader(const ins *x, bool (*is)(const ins *))
{
    bool yes = x->nusers > 0;
    for (int k = 0; k < x->nusers && yes; k++)
        yes = is(x->users[k]);
    return yes;
}

/* The visits a walk down operands may make (one_element_source,
 * swaps_stretched_axes_only): a two-operand op whose operands share a value
 * would otherwise be walked once per path, exponential in the depth. */
enum { OPERAND_WALK_VISITS = 256 };

/* How many ops unit_binary_run_above walks up from a reshape's operand
 * before it answers no (as deep as absorbs_transpose's chains). */
enum { UNIT_RUN_MAX_DEPTH = 64 };

/* i is a dot of no submodule. */
static bool plain_dot(const ins *i) { return is_op(i, "dot") && i->nmods == 0; }

/* x is read by exactly one instruction (which may read it more than once,
 * as mul(x, x)). */
static bool one_reader(const ins *x)
{
    if (x->nusers < 1)
        return false;
    for (int k = 1; k < x->nusers; k++)
        if (x->users[k] != x->users[0])
            return false;
    return true;
}

/* Instructions already found constant or not in one view_is_constant call:
 * a DAG that shares values (mul(x, x), diamonds) is walked once per
 * instruction and depth budget, not once per path (exponential in the
 * depth; only ops of several operands are entered, since only there do
 * paths fork). A thread's table is reused: entries of earlier calls are told
 * apart by a generation number. When a probe run is full the walk goes on
 * without the table (same answer, slower). The walk is handed the table:
 * a thread-local variable costs a lookup of the thread's block at each
 * use in position-independent code, and the cluster helpers ask this of
 * every op they meet, each walk up to VIEW_CONSTANT_MAX_DEPTH steps. */
enum { CONSTANT_MEMO_SLOTS = 256, CONSTANT_MEMO_PROBES = 8 };
typedef struct constant_memo_entry {
    const ins *key;
    unsigned gen;
    int depth; /* the depth the answer was found at */
    bool value;
} constant_memo_entry;
typedef struct constant_memo {
    constant_memo_entry slots[CONSTANT_MEMO_SLOTS];
    unsigned gen;
} constant_memo;
static _Thread_local constant_memo thread_constant_memo;

static size_t pointer_hash(const ins *x)
{
    uintptr_t h = (uintptr_t)x;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15u;
    return (size_t)(h >> 7);
}

static constant_memo_entry *memo_entry(constant_memo *memo, const ins *x, bool make)
{
    size_t s = pointer_hash(x) % CONSTANT_MEMO_SLOTS;
    for (int k = 0; k < CONSTANT_MEMO_PROBES; k++, s = (s + 1) % CONSTANT_MEMO_SLOTS) {
        constant_memo_entry *e = &memo->slots[s];
        if (e->gen == memo->gen && e->key == x)
            return e;
        if (e->gen != memo->gen) {
            if (!make)
                return NULL;
            e->gen = memo->gen;
            e->key = x;
            return e;
        }
    }
    return NULL;
}

/* At most max elements (shape_elements, here in line: the walk asks it at
 * every step). */
static bool elements_at_most(const shape *s, int64_t max)
{
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++)
        n *= s->lens[i];
    return n <= max;
}

static bool constant_at(constant_memo *memo, const ins *x, int depth)
{
    unsigned classes = x->op->classes;
    if ((classes & OPC_BUILTIN) && is_op(x, "@literal")) /* the class test spares a strcmp per step */
        return x->data != NULL;
    unsigned fold = OPC_POINTWISE | OPC_VIEW | OPC_SHAPE | OPC_REDUCE | OPC_MOVE | OPC_COMPUTE;
    /* a pending shape change of a constant folds with it once the shape
     * pass resolves it: constant in every order (seed 18463) */
    if (classes == 0 && x->nargs == 1 && depth <= VIEW_CONSTANT_MAX_DEPTH && is_op(x, "pending_shape_change"))
        return constant_at(memo, x->args[0], depth + 1);
    if (depth > VIEW_CONSTANT_MAX_DEPTH || !(classes & fold) ||
        (classes & (OPC_BUILTIN | OPC_OPAQUE | OPC_REGION)) || x->nmods > 0 || x->nargs < 1 ||
        x->sh.type == GRAFT_TUPLE || !elements_at_most(&x->sh, VIEW_CONSTANT_MAX_ELEMENTS))
        return false;
    /* "constant" found at depth d holds at any depth <= d; "not constant"
     * at any depth >= d (less budget can only fail more) */
    if (x->nargs == 1) /* a path only forks at an op of several operands */
        return constant_at(memo, x->args[0], depth + 1);
    constant_memo_entry *e = memo_entry(memo, x, false);
    if (e && (e->value ? depth <= e->depth : depth >= e->depth))
        return e->value;
    bool ok = true;
    for (int k = 0; k < x->nargs && ok; k++)
        ok = constant_at(memo, x->args[k], depth + 1);
    e = memo_entry(memo, x, true);
    if (e) {
        e->depth = depth;
        e->value = ok;
    }
    return ok;
}

/* Starts a new generation: every entry of the table is forgotten. */
static void memo_forget(constant_memo *memo)
{
    if (++memo->gen == 0) { /* wrapped: clear the entries for real */
        memset(memo->slots, 0, sizeof memo->slots);
        memo->gen = 1;
    }
}

static bool constant(const ins *x, int depth)
{
    constant_memo *memo = &thread_constant_memo;
    memo_forget(memo);
    return constant_at(memo, x, depth);
}

/* Answers of view_is_constant kept for the length of one query over a
 * graph that does not change meanwhile (query_begin .. query_end, which
 * nest): labelling a cluster asks it of the same leaves and ops again and
 * again (operand_kind, is_cluster_op), each answer a walk of up to
 * VIEW_CONSTANT_MAX_DEPTH operands, and that was a third of -p normalize's
 * time on the bench graph. Outside a query every call walks. The answer
 * for an instruction depends only on the graph, which a query only reads,
 * so a kept answer is the one a walk would give. The answers live in a
 * table of the walk's own kind (constant_memo): a full probe run means the
 * answer is not kept (same answer, slower). */
typedef struct constant_answers {
    constant_memo answers; /* an entry's value is view_is_constant's (depth 0) */
    int depth;             /* open queries */
} constant_answers;
static _Thread_local constant_answers thread_constant_answers;

static void query_begin(void)
{
    constant_answers *q = &thread_constant_answers;
    if (q->depth++ == 0)
        memo_forget(&q->answers);
}

static void query_end(void) { thread_constant_answers.depth--; }

/* A query is open on this thread: a cluster is being labelled
 * (view_cluster_lens), or asked whether it moves an op
 * (stays_in_cluster_lens_now). A walk the labelling asks
 * (readers_take_broadcast) must not ask for a labelling itself, which would
 * ask the walk back with no bound; it answers "not yet" instead. */
static bool labelling_clusters(void) { return thread_constant_answers.depth > 0; }

bool view_is_constant(const ins *x)
{
    constant_answers *q = &thread_constant_answers;
    if (q->depth == 0)
        return constant(x, 0);
    constant_memo_entry *e = memo_entry(&q->answers, x, false);
    if (e)
        return e->value;
    bool value = constant(x, 0);
    e = memo_entry(&q->answers, x, true);
    if (e) {
        e->depth = 0;
        e->value = value;
    }
    return value;
}

/* q = invert(p), the permutation with q[p[i]] = i; false when p holds an
 * index outside 0..n-1. */
static bool invert_permutation(const int64_t *p, int n, int64_t *q)
{
    for (int i = 0; i < n; i++) {
        if (p[i] < 0 || p[i] >= n)
            return false;
        q[p[i]] = i;
    }
    return true;
}

/* out = p composed with transpose t's permutation q (out[i] = p[q[i]]):
 * the permutation of transpose[q](transpose[p](x)); false where t has no
 * permutation of rank n or q holds an index outside 0..n-1. out may be p. */
static bool compose_with_transpose(const int64_t *p, const ins *t, int n, int64_t *out)
{
    const attr_value *q = ins_attr(t, "permutation");
    if (!q || q->n != n)
        return false;
    int64_t r[SHAPE_MAX_RANK];
    for (int i = 0; i < n; i++) {
        if (q->u.ints[i] < 0 || q->u.ints[i] >= n)
            return false;
        r[i] = p[q->u.ints[i]];
    }
    memcpy(out, r, sizeof(int64_t) * (size_t)n);
    return true;
}

/* s = compose(invert(c), q): the permutation of the transpose the cone
 * rules leave on d[c] for a dot d[q] (transpose[s](d[c]) is d[q]). c is a
 * permutation of 0..n-1. */
static void cone_leftover(const int64_t *c, const int64_t *q, int n, int64_t *s)
{
    int64_t ci[SHAPE_MAX_RANK];
    invert_permutation(c, n, ci);
    for (int i = 0; i < n; i++)
        s[i] = ci[q[i]];
}

/* transpose[r] of a value of lens `lens` does nothing: r is the identity,
 * or moves only length-1 axes and keeps the lens. */
static bool vanishes(const int64_t *r, int n, const int64_t *lens)
{
    int64_t last = -1;
    for (int i = 0; i < n; i++) {
        if (lens[r[i]] != lens[i])
            return false;
        if (lens[r[i]] != 1) {
            if (r[i] < last)
                return false;
            last = r[i];
        }
    }
    return true;
}

/* readers_rise_to(x, p): x has several readers, and every one of them
 * leads, through pointwise ops whose values are read only so, to a
 * transpose of permutation p that does not vanish below (a transpose that
 * moves x's longer axes; not of a reduction): the readers lie in the cone
 * of transposes of one permutation that rise into x, and once those have
 * risen x is read by copies of one transpose (CSE makes them one), as a
 * value read once is. absorbs_transpose takes such an x as one read once.
 * It answers the same before a move (t(max(relu(d), d)): max and relu
 * lead to t) and after it (max(t(relu(d)), t(d))), so
 * binary_above_transposes does not merge back what transpose_above_binary
 * split. A diamond over a dot took the transpose into the dot in the
 * orders that met it before transpose_of_transpose, and kept it above max
 * in the others (seeds 6237, 6677, 4983, 7009). A transpose that moves
 * only length-1 axes is left to the sideways and canonical rules (one that
 * rose into a diamond stayed on a shared transposed dot, seed 10173), and
 * a reduction to the rules that vanish transposes below reductions (seed
 * 8328: the dot kept a permutation in some orders). The walk is bounded:
 * it answers no past VIEW_CONE_READERS_MAX steps. The walk passes a
 * broadcast to its operand's shape (it folds in every order) and a
 * reduction read once by a transpose of p that transpose_above_reduce
 * raises (round s41F, seeds 1049361 and 1064932: the orders that met the
 * shared dot before the fold, or before the transpose above the reduction
 * rose, merged the transposes below the diamond and kept one). */
enum { VIEW_CONE_READERS_MAX = 32 };
static bool transpose_vanishes_below(const ins *t);
static bool broadcast_to_same_shape(const ins *v);
static bool is_reduction(const ins *x);
static bool moves_unit_axes_only(const int64_t *p, int n, const int64_t *lens);
static bool transpose_vanishes_composed_below(const ins *t);
static bool transpose_by(const ins *t, const int64_t *p, int n);
/* u, the reader of reduction r, is a transpose of permutation p that
 * transpose_above_reduce would raise through r (its own guards but the
 * operand's): not one of length-1 axes of r's lens, not vanishing below */
static bool reduced_transpose_rises(const ins *u, const ins *r, const int64_t *p, int n)
{
    if (!is_op(u, "transpose") || u->nargs != 1 || u->nmods > 0 || u->sh.rank != n)
        return false;
    if (!transpose_by(u, p, n))
        return false;
    if (memcmp(u->sh.lens, r->sh.lens, sizeof(int64_t) * (size_t)n) == 0 && moves_unit_axes_only(p, n, r->sh.lens))
        return false;
    return !transpose_vanishes_composed_below(u);
}
static bool reader_rises_to(const ins *r, const int64_t *p, int n, int *budget)
{
    if (--*budget < 0 || r->nmods > 0 || r->sh.rank != n)
        return false;
    if (is_op(r, "transpose"))
        return transpose_by(r, p, n) && !transpose_vanishes_below(r);
    /* a reduction (it keeps the rank) read once by a transpose of p that
     * transpose_above_reduce raises through it: that transpose reaches
     * the reduction's operand with the same permutation (round s41F) */
    if (r->nargs == 1 && is_reduction(r) && one_reader(r))
        return reduced_transpose_rises(r->users[0], r, p, n);
    unsigned c = r->op->classes;
    /* a broadcast to its operand's shape folds away in every order
     * (broadcast_to_same_shape): its readers are the value's */
    bool moves = ((c & OPC_UNARY) && r->nargs == 1) || ((c & OPC_BINARY) && r->nargs == 2) || broadcast_to_same_shape(r);
    if (!moves || r->nusers < 1 || (!broadcast_to_same_shape(r) && (c & (OPC_BUILTIN | OPC_OPAQUE | OPC_REGION))))
        return false;
    for (int k = 0; k < r->nusers; k++)
        if ((k == 0 || r->users[k] != r->users[k - 1]) && !reader_rises_to(r->users[k], p, n, budget))
            return false;
    return true;
}

static bool readers_rise_to(const ins *x, const int64_t *p, int n)
{
    int budget = VIEW_CONE_READERS_MAX;
    if (x->nusers < 2 || moves_unit_axes_only(p, n, x->sh.lens) || (x->op->classes & OPC_REDUCE))
        return false;
    for (int k = 0; k < x->nusers; k++)
        if ((k == 0 || x->users[k] != x->users[k - 1]) && !reader_rises_to(x->users[k], p, n, &budget))
            return false;
    return true;
}

/* v's permutation where v is a one-operand transpose, NULL otherwise: the
 * test every transpose walk starts with. */
static const attr_value *transpose_permutation(const ins *v)
{
    return is_op(v, "transpose") && v->nargs == 1 ? ins_attr(v, "permutation") : NULL;
}

static bool is_shape_op(const ins *v)
{
    return (is_op(v, "reshape") || is_op(v, "squeeze") || is_op(v, "unsqueeze")) && v->nargs == 1;
}

static bool pointwise_unary(const ins *v)
{
    return (v->op->classes & OPC_UNARY) && v->nargs == 1 && v->nmods == 0 &&
           !(v->op->classes & (OPC_BUILTIN | OPC_OPAQUE | OPC_REGION));
}

/* v computes pointwise from one value: a one-operand op u(y), or a
 * two-operand op b(y, y) reading that value twice. */
static bool pointwise_of_one_value(const ins *v)
{
    unsigned c = v->op->classes;
    return ((c & OPC_UNARY) && v->nargs == 1) || ((c & OPC_BINARY) && v->nargs == 2 && v->args[0] == v->args[1]);
}

/* v is a broadcast or multibroadcast with its operand's shape:
 * broadcast_to_same_shape and multibroadcast_to_same_shape take it away in
 * every order, so it is a link of a folding shape chain as a reshape to
 * the same shape is (proposed by round s41D, kept by round s41F: seed
 * 1049361's add(t(d), t(broadcast(sub(d, d')))) merged the transposes
 * below add in the orders that met it before the broadcast folded). */
static bool broadcast_to_same_shape(const ins *v)
{
    return broadcast_op(v) && v->nargs == 1 && v->nmods == 0 &&
           shape_equal(&v->sh, &v->args[0]->sh);
}

static bool folding_shape_link(const ins *v) { return is_shape_op(v) || broadcast_to_same_shape(v); }

/* x is a reshape, squeeze or unsqueeze (or a broadcast to its operand's
 * shape) over a chain of such ops and of one-operand pointwise ops, each
 * read once, down to a value z (no shape op) read once, with x's shape:
 * reshape_of_reshape, reshape_to_same_shape and the broadcasts' same-shape
 * folds take the chain away in every order (a pointwise op inside it runs
 * in z's lens, the lens at both ends of its cluster: unary_into_cluster_lens,
 * seed 1027194's squeeze(sigmoid(unsqueeze(d)))), and x's readers then read
 * z (or the pointwise ops of z). z, or NULL. */
static const ins *folding_shape_chain(const ins *x)
{
    if (!folding_shape_link(x))
        return NULL;
    const ins *z = x->args[0];
    for (int k = 0; (folding_shape_link(z) || pointwise_unary(z)) && k < 8; k++) {
        if (!one_reader(z))
            return NULL;
        z = z->args[0];
    }
    return !folding_shape_link(z) && one_reader(z) && shape_equal(&z->sh, &x->sh) ? z : NULL;
}

/* x = transpose[q](u1(...uk(transpose[s](w)))), x and every op below it
 * read once, u1..uk one-operand pointwise ops (k may be 0), and the two
 * transposes compose into one that does nothing (vanishes): left alone,
 * the pair cancels (unary_above_transpose sinks the lower one to the
 * upper, transpose_of_transpose composes them) and x is u1(...uk(w)).
 * Returns w; NULL otherwise. */
static const ins *cancelling_pair(const ins *x)
{
    const attr_value *q = transpose_permutation(x);
    if (!q || q->kind != ATTR_INTS || q->n != x->sh.rank || q->n > SHAPE_MAX_RANK || !one_reader(x))
        return NULL;
    int n = (int)q->n;
    const ins *z = x->args[0];
    for (int k = 0; k < ABSORBS_TRANSPOSE_MAX_DEPTH && pointwise_unary(z) && one_reader(z) && z->sh.rank == n; k++)
        z = z->args[0];
    const attr_value *s = is_op(z, "transpose") && z->nargs == 1 && one_reader(z) ? ins_attr(z, "permutation") : NULL;
    if (!s || s->kind != ATTR_INTS || s->n != n)
        return NULL;
    const ins *w = z->args[0];
    int64_t r[SHAPE_MAX_RANK];
    for (int i = 0; i < n; i++) {
        if (q->u.ints[i] < 0 || q->u.ints[i] >= n)
            return NULL;
        r[i] = s->u.ints[q->u.ints[i]];
    }
    return vanishes(r, n, w->sh.lens) ? w : NULL;
}

/* transpose[p] lowered into y takes a view away there: y is a transpose
 * (p composes with it or cancels it) whose own pair does not cancel
 * below it (cancelling_pair: that view goes without p), or one reached
 * through one-operand pointwise ops and two-operand ops read once. A dot
 * taking p as its output permutation, a constant folding it (a transpose
 * of one too: it folds in, and then takes p in place; round s46A, seed
 * 1051871), a broadcast taking it in place take no view away: the
 * transpose only moves there. */
static bool removes_view(const ins *y, int depth)
{
    if (depth > ABSORBS_TRANSPOSE_MAX_DEPTH || constant(y, 0))
        return false;
    if (is_op(y, "transpose") && y->nargs == 1)
        return !cancelling_pair(y);
    if (!one_reader(y) || y->nmods > 0)
        return false;
    if (pointwise_unary(y))
        return removes_view(y->args[0], depth + 1);
    if ((y->op->classes & OPC_BINARY) && y->nargs == 2)
        return removes_view(y->args[0], depth + 1) || removes_view(y->args[1], depth + 1);
    return false;
}

static bool cancels_above(const ins *t);

/* x's pair cancels below it (cancelling_pair), so a transpose[p] lowered
 * into x, whose composition with q vanishes, only trades that cancelling
 * for its own against q: p and q go and s stays, where left alone q and s
 * go and p stays, the same count at x. absorbs then asks the value under
 * the pair (w) for x, in every order the same answer: before the pair
 * cancels and after (round s46A, seeds 1055851, 1056689, and 15764 of the
 * tuned range under round s45D's r7: t(mul(mul(d1, d2), t(neg(t(p2)))))
 * lowered t into the dots in the orders that met it before neg's pair
 * cancelled, and kept it above mul in the others). Not where the tie is
 * broken: x cancels with the
 * transposes above it (cancels_at_reader of x: the rules pair x with
 * those, seed 1073399: t(sin(tanh(t'(sin(abs(t(broadcast(..)))))))) with
 * t' o t the identity both ways), or x is read by a two-operand op whose
 * other operand takes a view away with the transpose lowered into it
 * (removes_view: lowering then wins by one, golden
 * unary_above_transpose.not_reader_risen_into: t(mul(t(tanh(t(mb(s)))),
 * t(p0)))). Returns w; NULL otherwise. */
static const ins *cancelled_below(const ins *x)
{
    const ins *w = cancelling_pair(x);
    if (!w || cancels_above(x))
        return NULL;
    const ins *b = x->users[0];
    if ((b->op->classes & OPC_BINARY) && b->nargs == 2 && b->args[0] != b->args[1] &&
        removes_view(b->args[0] == x ? b->args[1] : b->args[0], 0))
        return NULL;
    return w;
}

/* x's readers are two or more transposes of one permutation (twins, as
 * transpose_of_transpose leaves one beside an existing transpose of the
 * same value): CSE merges them into one transpose, after which x is read
 * once. absorbs asks a one-operand pointwise x with twin readers as a
 * value read once, before the merge and after (round s54A, seed 1018836:
 * add(t(s), t(neg(t'(p)))) with t(neg) twinned by the composed
 * t(t(t(neg))) merged its transposes above add in the orders that met it
 * before neg sank below t', and let t reach neg in the others). Only
 * there: asked of a dot read by twins it changed where the dot took one
 * of them into its output_permutation before CSE, and golden
 * binary_above_transposes.not_broadcast_to_same_shape differed by order
 * (round s54A's V3); a pointwise op takes no transpose in, it passes the
 * question to its operand. */
static bool twin_transposes_read(const ins *x)
{
    const attr_value *p = x->nusers >= 2 ? transpose_permutation(x->users[0]) : NULL;
    for (int k = 1; p && k < x->nusers; k++) {
        const ins *o = x->users[k];
        const attr_value *q = transpose_permutation(o);
        if (!q || !attr_value_equal(*p, *q))
            return false;
    }
    return p != NULL;
}

/* r (n entries) becomes transpose t's permutation; false where t is no
 * transpose, or its permutation no list of n ints in 0..n-1. */
static bool transpose_ints(const ins *t, int n, int64_t *r)
{
    const attr_value *p = transpose_permutation(t);
    if (!p || p->kind != ATTR_INTS || p->n != n)
        return false;
    for (int i = 0; i < n; i++) {
        if (p->u.ints[i] < 0 || p->u.ints[i] >= n)
            return false;
        r[i] = p->u.ints[i];
    }
    return true;
}

/* r becomes the permutation of transpose[r](transpose[q](x)), q the
 * inner transpose's permutation (r[i] = q[r[i]]), as the walks down a
 * chain of transposes compose each link into what is above it; false
 * (r partly composed) where q is no list of n ints or maps into no index
 * 0..n-1. */
static bool compose_inner_permutation(int64_t *r, const attr_value *q, int n)
{
    if (!q || q->kind != ATTR_INTS || q->n != n)
        return false;
    for (int i = 0; i < n; i++) {
        if (q->u.ints[r[i]] < 0 || q->u.ints[r[i]] >= n)
            return false;
        r[i] = q->u.ints[r[i]];
    }
    return true;
}

/* Composes into r (r[i] = inner[outer[i]], as transpose_of_transpose
 * composes two) the chain of transposes from z down, each read once where
 * read_once, and returns the value that ends the chain; *last, where last
 * is not NULL, becomes the chain's last transpose (unchanged where the
 * chain is empty). NULL where a permutation does not fit, or the chain is
 * longer than ABSORBS_TRANSPOSE_MAX_DEPTH. */
static const ins *compose_transposes_below(const ins *z, int n, int64_t *r, bool read_once, const ins **last)
{
    for (int depth = 0; is_op(z, "transpose") && z->nargs == 1 && (!read_once || one_reader(z)); depth++) {
        if (depth > ABSORBS_TRANSPOSE_MAX_DEPTH || !compose_inner_permutation(r, ins_attr(z, "permutation"), n))
            return NULL;
        if (last)
            *last = z;
        z = z->args[0];
    }
    return z;
}

/* The composition (r[i] = inner[outer[i]]) of the chain of transposes
 * from u up: u, then its reader while each link is read once by a
 * transpose. Returns the chain's top; NULL where a permutation does not
 * fit or the chain is longer than ABSORBS_TRANSPOSE_MAX_DEPTH. */
static const ins *compose_transposes_above(const ins *u, int n, int64_t *r)
{
    if (n > SHAPE_MAX_RANK)
        return NULL;
    for (int i = 0; i < n; i++)
        r[i] = i;
    for (int depth = 0;; depth++) {
        const attr_value *q = transpose_permutation(u);
        if (!q || depth > ABSORBS_TRANSPOSE_MAX_DEPTH + 1 || q->kind != ATTR_INTS || !compose_with_transpose(r, u, n, r))
            return NULL;
        if (!one_reader(u) || !transpose_permutation(u->users[0]))
            return u;
        u = u->users[0];
    }
}

/* x's readers are two or more chains of transposes that compose into one
 * permutation, whose tops are all read by one and the same instruction
 * (and by nothing else): transpose_of_transpose (no guard) composes each
 * into a transpose of x, CSE makes those one, and x is then read once by
 * a transpose read once, as the chain absorbs walks through (round s81B,
 * seed 2053215: a dot read by t(dot), under t'(t'(t''(.))), and by the
 * t'(t(dot)) composed into one transpose, both chains under one sub; the
 * walk down the first chain met the dot read twice in the orders that
 * composed the second first, and read once in the others). Where the
 * tops have different readers the merged transpose is shared and the
 * walk stops at it, so x is no value read once there (golden
 * binary_above_transposes.not_broadcast_to_same_shape: a dot read by
 * t(dot) under add and its twin under sub). */
static bool twin_transpose_chains_read(const ins *x, int n)
{
    if (x->nusers < 2 || n > SHAPE_MAX_RANK)
        return false;
    int64_t r0[SHAPE_MAX_RANK], r[SHAPE_MAX_RANK];
    const ins *top = compose_transposes_above(x->users[0], n, r0);
    if (!top || top->nusers < 1 || !one_reader(top))
        return false;
    const ins *b = top->users[0];
    for (int k = 1; k < x->nusers; k++) {
        const ins *t = compose_transposes_above(x->users[k], n, r);
        if (!t || t->nusers < 1 || !one_reader(t) || t->users[0] != b || memcmp(r, r0, sizeof(int64_t) * (size_t)n) != 0)
            return false;
    }
    return true;
}

/* compose_transposes_below (links read once) that also passes one-operand
 * pointwise ops read once, as cancelling_pair does: the transposes on
 * either side of such an op compose once unary_above_transpose has moved
 * it, and where the whole composes into a transpose that does nothing the
 * op only changes places with it. Returns the chain's end (NULL where a
 * permutation does not fit or the walk is too long). */
static const ins *compose_transposes_past_pointwise(const ins *z, int n, int64_t *r)
{
    for (int depth = 0; depth <= 2 * ABSORBS_TRANSPOSE_MAX_DEPTH; depth++) {
        if (pointwise_unary(z) && one_reader(z) && z->sh.rank == n) {
            z = z->args[0];
            continue;
        }
        const attr_value *q = transpose_permutation(z);
        if (!q || !one_reader(z))
            return z;
        if (!compose_inner_permutation(r, q, n))
            return NULL;
        z = z->args[0];
    }
    return NULL;
}

static bool transposes_merge(const ins *b, const ins *x, const ins *y, const int64_t *p, int n);

/* z is a two-operand op whose operands are transposes of one permutation,
 * each read once, that binary_above_transposes merges into one below z:
 * that transpose then composes with z's transpose readers, so it belongs
 * to their chain */
static bool merging_transposes(const ins *z, int n)
{
    if (!(z->op->classes & OPC_BINARY) || z->nargs != 2 || z->args[0] == z->args[1])
        return false;
    const ins *s = z->args[0], *t = z->args[1];
    if (!is_op(s, "transpose") || !is_op(t, "transpose") || s->nargs != 1 || t->nargs != 1 || !one_reader(s) || !one_reader(t))
        return false;
    const attr_value *ps = ins_attr(s, "permutation"), *pt = ins_attr(t, "permutation");
    if (!ps || !pt || ps->kind != ATTR_INTS || !attr_value_equal(*ps, *pt) || ps->n != n)
        return false;
    return transposes_merge(z, s->args[0], t->args[0], ps->u.ints, n);
}

/* composed: t[p] rises through a two-operand op on the way to x (asked by
 * transpose_above_binary, or past a binary op in the recursion). A chain
 * of transposes met there is asked as its composition, not as its first
 * transpose: composed first, it sinks through the one-operand ops above it
 * only up to the two-operand op and never meets t[p], so "t[p] cancels the
 * chain's first transpose" said yes before the chain composed and no after
 * (round s80F, seed 1015762). Through one-operand ops alone the composed
 * chain sinks to t[p] and composes with it, and the old answer stands. */
static bool absorbs(const ins *x, const int64_t *p, int n, int depth, bool composed)
{
    if (depth > ABSORBS_TRANSPOSE_MAX_DEPTH || n != x->sh.rank || n > SHAPE_MAX_RANK)
        return false;
    if (is_op(x, "transpose") && x->nargs == 1) {
        /* transpose[p](transpose[q](z)) is transpose[q o p](z): it vanishes,
         * or (q's transpose read by nothing else) moves on into z */
        const attr_value *q = ins_attr(x, "permutation");
        const ins *z = x->args[0];
        if (!q || q->n != n)
            return false;
        int64_t r[SHAPE_MAX_RANK];
        for (int i = 0; i < n; i++) {
            if (p[i] < 0 || p[i] >= n)
                return false;
            r[i] = q->u.ints[p[i]];
        }
        /* composed: where t[p] with the whole chain below x (x read
         * once; each link read once, one-operand pointwise ops read once
         * passed, and a merge binary_above_transposes makes at its end
         * taken in) composes into a transpose that does nothing, t[p]
         * vanishes whatever the chain's end is: transpose_of_transpose
         * composes the chain in every order, and t[p] meets it. Asked link
         * by link, the walk reached the chain's end with a permutation
         * that does nothing there and asked that end, a value read twice,
         * which said no, while with the chain composed the first test
         * said yes (round s81B, seed 2053215:
         * t(sub(t'(t'(t''(s))), t'(s))) with s = t(dot) read twice, or s a
         * dot with an output_permutation; and t'(t'(neg(t''(s)))), where
         * neg sinks below t''). */
        if (composed && one_reader(x)) {
            int64_t c[SHAPE_MAX_RANK];
            memcpy(c, r, sizeof(int64_t) * (size_t)n);
            const ins *zb = compose_transposes_past_pointwise(z, n, c);
            if (zb && zb->sh.rank == n && merging_transposes(zb, n))
                zb = compose_inner_permutation(c, ins_attr(zb->args[0], "permutation"), n) ? zb->args[0]->args[0] : NULL;
            if (zb && zb->sh.rank == n && vanishes(c, n, zb->sh.lens))
                return true;
        }
        const ins *w = cancelled_below(x);
        if (w)
            return absorbs(w, p, n, depth + 1, composed);
        /* where x's operand is a transpose read once and the chain of
         * transposes read once from x down composes into a transpose that
         * moves only length-1 axes, x is asked as what transpose_of_transpose
         * leaves of the chain (it has no guard and composes it in every
         * order): t[p] cancelling x alone leaves the rest of the chain,
         * which composes into a transpose the composed chain with t[p]
         * folded in is as well, so the answer is the one asked of z with
         * x's permutation composed in. Asked of x alone, it said yes before
         * the chain composed and no after (round s56A, --views T seed
         * 13000494: add(t(s), t(sin(sin(t(t'(p)))))) with t t' a transpose
         * of length-1 axes; t rose through the sins in the orders that met
         * it before the chain composed, and merged at add with s's
         * transpose in the others, which left the length-1 axes transpose
         * on the other operand). Not where the chain composes into a
         * transpose of longer axes: that one sinks through x's ops to t[p]
         * and composes with it (unary_above_transpose,
         * reduce_below_transpose), to the transpose the rise leaves, so
         * rising first gives the graph of the orders that compose first;
         * asked as the composed chain there, the rivals that ask
         * absorbs_transpose before the sinking transpose arrives took the
         * chain's reader first in some orders (tuned seed 1350:
         * binary_above_transpose_and_unit_different_transpose at sub over
         * reduce_mean(t(t'(p1))) before reduce_below_transpose). The whole
         * chain, not x and z alone: z's own operand may be a transpose
         * with which the pair composes into longer axes (--views T seed
         * 13004387: t(t(t'(t(add)))), whose first two compose into a
         * transpose of length-1 axes) */
        if (vanishes(r, n, z->sh.lens) && is_op(z, "transpose") && z->nargs == 1 && one_reader(z)) {
            int64_t c[SHAPE_MAX_RANK] = {0};
            bool fits = true;
            for (int i = 0; i < n; i++) {
                fits = fits && q->u.ints[i] >= 0 && q->u.ints[i] < n;
                c[i] = fits ? q->u.ints[i] : 0;
            }
            const ins *zb = fits ? compose_transposes_below(z, n, c, true, NULL) : NULL;
            if (zb && zb->sh.rank == n && (composed || moves_unit_axes_only(c, n, zb->sh.lens)))
                return absorbs(z, r, n, depth + 1, composed);
        }
        if (vanishes(r, n, z->sh.lens) && !(composed && one_reader(x) && merging_transposes(z, n)))
            return true;
        return one_reader(x) && absorbs(z, r, n, depth + 1, composed);
    }
    /* a pending op that only changes the layout (transparent), read once,
     * is invisible to a transpose (view_through_pending moves the
     * transpose onto its operand, in every order; pending_of_pending makes
     * a chain of them one, transparent too): x is asked as its operand, so
     * the answer is the same before the pending op goes and after (round
     * s48D, seed 2012695: transpose_above_reduce raised t through
     * reduce_mean(sigmoid(t(d))), t(d) sank below sigmoid and left
     * pending(t(sigmoid(d))), and reduce_below_transpose, asked with the
     * pending op in between, found nothing to absorb t and lowered it
     * again; reduce_through_pending and transpose_above_unary then made
     * the first state again, until the rule budget ran out) */
    if (pending_is_transparent(x) && x->nargs == 1)
        return one_reader(x) && absorbs(x->args[0], p, n, depth + 1, composed);
    if (constant(x, 0))
        return true;
    if (x->nmods > 0 || !(one_reader(x) || (pointwise_unary(x) && twin_transposes_read(x)) || readers_rise_to(x, p, n) || twin_transpose_chains_read(x, n)))
        return false;
    /* a shape chain that folds away (folding_shape_chain) is asked as the
     * value it folds to, with x's readers (asked above): the answer must
     * not change when the chain folds (seed 1027194:
     * tanh(t(reshape(reshape(d)))) of a dot d that x's other reader, max,
     * leads to a transpose of t's permutation (readers_rise_to):
     * unary_above_transpose sank t below tanh in the orders that met tanh
     * before the fold, and kept tanh above t(d) in the others) */
    const ins *z = folding_shape_chain(x);
    if (z) {
        if (z->nmods > 0)
            return false;
        /* a broadcast to its operand's shape directly on a transpose is
         * asked as that transpose (above): the fold rules take the
         * broadcast away in every order and leave the transpose as it is,
         * which then composes with t, while asked as an op it said no
         * before the fold and yes after (round s54A, seed 1018836:
         * max(t(sigmoid(mb(t'(add)))), t(sin)) of a same-shape mb merged
         * its transposes above max in the orders that met it before the
         * fold, and let t rise through sigmoid to t' in the others). Not
         * at the end of a reshape chain: the reshape rules may take such a
         * transpose into the chain (one of length-1 axes is a reshape), so
         * it need not survive the fold; asked there too it brought
         * --ops 24 seeds 6019492 and 10007042 (round s54A's V3). */
        if (is_op(z, "transpose") && broadcast_to_same_shape(x) && x->args[0] == z)
            return absorbs(z, p, n, depth + 1, composed);
        x = z;
    }
    if (is_op(x, "dot"))
        return true;
    unsigned c = x->op->classes;
    if (((c & OPC_UNARY) || (c & OPC_REDUCE)) && x->nargs == 1)
        return absorbs(x->args[0], p, n, depth + 1, composed);
    if ((c & OPC_BINARY) && x->nargs == 2)
        /* b(y, y) asks once: asking per operand doubles the work at each
         * level of x * x chains (values of one reader are otherwise a tree) */
        return absorbs(x->args[0], p, n, depth + 1, true) &&
               (x->args[1] == x->args[0] || absorbs(x->args[1], p, n, depth + 1, true));
    return false;
}

bool view_absorbs_transpose(const ins *x, const int64_t *p, int n) { return absorbs(x, p, n, 0, false); }

bool helper_absorbs_transpose_beside(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(absorbs(a[0].u.in, a[1].u.ints, a[1].n, 0, true));
    return true;
}

bool helper_absorbs_transpose(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(view_absorbs_transpose(a[0].u.in, a[1].u.ints, a[1].n));
    return true;
}

bool helper_axes_of(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    const int64_t *p = a[0].u.ints, *ax = a[1].u.ints;
    int np = a[0].n, k = a[1].n;
    if (np > SHAPE_MAX_RANK || k > np)
        return false;
    bool on[SHAPE_MAX_RANK] = {false};
    for (int i = 0; i < k; i++) {
        int64_t j = ax[i] < 0 ? ax[i] + np : ax[i];
        if (j < 0 || j >= np || p[j] < 0 || p[j] >= np)
            return false;
        on[p[j]] = true;
    }
    int64_t *r = arena_alloc(mem, sizeof(int64_t) * (size_t)(np > 0 ? np : 1));
    if (!r)
        return false;
    int nr = 0;
    for (int i = 0; i < np; i++)
        if (on[i])
            r[nr++] = i;
    rule_value v = {RV_INTS, nr, {.ints = r}};
    *out = v;
    return true;
}

bool helper_is_constant(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(view_is_constant(a[0].u.in));
    return true;
}

/* Does literal k hold the same value at every index along axis ax (its
 * elements equal, byte for byte, to those at index 0 of ax)? A stride-0
 * axis does by its layout; a standard literal that constant folding made
 * from an op of a broadcast literal (neg(mb(k)) folds to a full literal of
 * repeated values) does by its values, and is the same broadcast value. */
static bool literal_repeats_along(const ins *k, int ax)
{
    if (k->sh.strides[ax] == 0)
        return true;
    if (!k->data || strcmp(k->op->name, "@literal") != 0)
        return false;
    size_t size = type_size(k->sh.type);
    if (!size)
        return false;
    int64_t inner = 1, count = shape_elements(&k->sh), len = k->sh.lens[ax];
    for (int i = ax + 1; i < k->sh.rank; i++)
        inner *= k->sh.lens[i];
    const unsigned char *d = k->data;
    if (shape_standard_p(&k->sh) && inner > 0 && len > 0) {
        /* rows of inner elements, len of them per outer index: each row
         * equals the first of its group */
        size_t row = (size_t)inner * size;
        for (int64_t o = 0; o < count / (inner * len); o++) {
            const unsigned char *first = d + (size_t)(o * len) * row;
            for (int64_t at = 1; at < len; at++)
                if (memcmp(first + (size_t)at * row, first, row) != 0)
                    return false;
        }
        return true;
    }
    for (int64_t j = 0; j < count; j++) {
        int64_t at = (j / inner) % len;
        if (at == 0)
            continue;
        int64_t j0 = j - at * inner;
        if (memcmp(d + (size_t)shape_index_of_linear(&k->sh, j) * size,
                   d + (size_t)shape_index_of_linear(&k->sh, j0) * size, size) != 0)
            return false;
    }
    return true;
}

/* The axes of k that hold copies of a value of lens small (ns of them)
 * placed at axis (-1: aligned last), written to axes (k's rank of them at
 * most): those where small, so placed, has no axis or a length-1 axis and k
 * is longer. Their count, or -1 where small does not fit k or k does not
 * hold one value along each of them (literal_repeats_along). */
static int copy_axes_of(const ins *k, const int64_t *small, int ns, int64_t axis, int64_t *axes)
{
    int rank = k->sh.rank, count = 0;
    if (axis < 0)
        axis = rank - ns;
    if (ns > rank || axis < 0 || axis + ns > rank)
        return -1;
    for (int i = 0; i < rank; i++) {
        bool inside = i >= axis && i < axis + ns;
        int64_t want = inside ? small[i - axis] : 1;
        if (want == k->sh.lens[i])
            continue;
        if (want != 1 || !literal_repeats_along(k, i))
            return -1;
        axes[count++] = i;
    }
    return count;
}

/* Does literal k hold a value of lens small broadcast at axis, along at
 * least one axis? The test of broadcast_axes, without the list. */
static bool literal_holds_broadcast(const ins *k, const int64_t *small, int ns, int64_t axis)
{
    int64_t axes[SHAPE_MAX_RANK];
    return k->sh.rank <= SHAPE_MAX_RANK && copy_axes_of(k, small, ns, axis, axes) > 0;
}

/* Would the literal merge (binary_above_*broadcast_literal_*) take the
 * literal k beside m, a multibroadcast or broadcast[axis] of one value? */
static bool literal_merges_with(const ins *k, const ins *m)
{
    if (!is_op(k, "@literal") || m->nargs != 1 || m->nmods != 0 || !shape_same_lens(&k->sh, &m->sh))
        return false;
    const ins *x = m->args[0];
    if (is_op(m, "multibroadcast"))
        return literal_holds_broadcast(k, x->sh.lens, x->sh.rank, -1);
    const attr_value *ax = ins_attr(m, "axis");
    if (is_op(m, "broadcast") && ax)
        return literal_holds_broadcast(k, x->sh.lens, x->sh.rank, ax->u.i);
    return false;
}

/* literal_merges(k, m): see helpers_views.h. */
bool helper_literal_merges(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(literal_merges_with(a[0].u.in, a[1].u.in));
    return true;
}

/* broadcast_axes(k, lens, axis): see helpers_views.h. */
bool helper_broadcast_axes(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    const ins *k = a[0].u.in;
    int rank = k->sh.rank;
    int64_t *r = arena_alloc(mem, sizeof(int64_t) * (size_t)(rank > 0 ? rank : 1));
    if (!r)
        return false;
    int nr = copy_axes_of(k, a[1].u.ints, a[1].n, a[2].u.i, r);
    if (nr <= 0)
        return false;
    rule_value v = {RV_INTS, nr, {.ints = r}};
    *out = v;
    return true;
}

/* c has more axes longer than 1 than l and refines l: a reshape from l
 * to c splits axes of l. */
static bool splits_axes(const int64_t *c, int nc, const int64_t *l, int nl)
{
    int bc = 0, bl = 0;
    for (int i = 0; i < nc; i++)
        bc += c[i] != 1;
    for (int i = 0; i < nl; i++)
        bl += l[i] != 1;
    return bc > bl && refines(c, nc, l, nl);
}

/* splits_axes(c, lens): see helpers_views.h. */
bool helper_splits_axes(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(splits_axes(a[0].u.ints, a[0].n, a[1].u.ints, a[1].n));
    return true;
}

/* out = lens without their length-1 axes (at most SHAPE_MAX_RANK kept);
 * returns how many are left. */
static int lens_without_ones(const int64_t *lens, int n, int64_t *out)
{
    int k = 0;
    for (int i = 0; i < n && k < SHAPE_MAX_RANK; i++)
        if (lens[i] != 1)
            out[k++] = lens[i];
    return k;
}

/* x and y are equal but for length-1 axes. */
static bool unit_lens_only(const int64_t *x, int nx, const int64_t *y, int ny)
{
    int i = 0, j = 0;
    for (;;) {
        while (i < nx && x[i] == 1)
            i++;
        while (j < ny && y[j] == 1)
            j++;
        if (i == nx || j == ny)
            return i == nx && j == ny;
        if (x[i++] != y[j++])
            return false;
    }
}

/* unit_axes_only(a, b): see helpers_views.h. */
bool helper_unit_axes_only(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(unit_lens_only(a[0].u.ints, a[0].n, a[1].u.ints, a[1].n));
    return true;
}

/* A shape op of x other than r reads x. */
static bool other_shape_op_reads(const ins *x, const ins *r)
{
    for (int k = 0; k < x->nusers; k++) {
        const ins *s = x->users[k];
        if (s != r && (s->op->classes & OPC_SHAPE) && s->nargs == 1 && s->nmods == 0)
            return true;
    }
    return false;
}

/* Shape op r of a standard value x: another shape op reads x too. */
static bool shares_reshape(const ins *r)
{
    return (r->op->classes & OPC_SHAPE) && r->nargs == 1 && shape_standard_p(&r->args[0]->sh) &&
           other_shape_op_reads(r->args[0], r);
}

/* shares_reshape(r): see helpers_views.h. */
bool helper_shares_reshape(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(shares_reshape(a[0].u.in));
    return true;
}

/* shape_op_reads(x): see helpers_views.h. */
bool helper_shape_op_reads(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(other_shape_op_reads(a[0].u.in, NULL));
    return true;
}

/* copy_kept_beside(r): see helpers_views.h. */
bool helper_copy_kept_beside(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *r = a[0].u.in;
    bool yes = (r->op->classes & OPC_SHAPE) && r->nargs == 1 && !shape_standard_p(&r->args[0]->sh) &&
               (r->nusers > 1 || other_shape_op_reads(r->args[0], r));
    *out = rule_bool(yes);
    return true;
}

/* read_by_dots(m): see helpers_views.h. */
bool helper_read_by_dots(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(every_reader(a[0].u.in, plain_dot));
    return true;
}

/* Every reader of v is a dot, or a one-operand op whose own readers are
 * (bounded by depth): a one-operand op of a broadcast sinks below it where
 * its readers take the layout, and a dot takes any strides. */
static bool dots_through_unary(const ins *v, int depth)
{
    bool ok = v->nusers > 0 && depth <= VIEW_CLUSTER_MAX;
    for (int k = 0; k < v->nusers && ok; k++) {
        const ins *r = v->users[k];
        ok = plain_dot(r) || ((r->op->classes & OPC_UNARY) && r->nargs == 1 && r->nmods == 0 &&
                              dots_through_unary(r, depth + 1));
    }
    return ok;
}

/* read_by_dots_through_unary(r): see helpers_views.h. */
bool helper_read_by_dots_through_unary(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(dots_through_unary(a[0].u.in, 0));
    return true;
}

/* dot_reads(r): see helpers_views.h. */
bool helper_dot_reads(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *r = a[0].u.in;
    bool yes = false;
    for (int k = 0; k < r->nusers && !yes; k++)
        yes = is_op(r->users[k], "dot");
    *out = rule_bool(yes);
    return true;
}

/* r is an output: the @return or another builtin, an opaque op, a region
 * or an op with submodules, which keep the shapes they read. */
static bool is_output_reader(const ins *r)
{
    return (r->op->classes & (OPC_BUILTIN | OPC_OPAQUE | OPC_REGION)) || r->nmods > 0;
}

/* x is read by an output (is_output_reader). */
static bool feeds_output(const ins *x)
{
    for (int k = 0; k < x->nusers; k++)
        if (is_output_reader(x->users[k]))
            return true;
    return false;
}

/* feeds_output(x): see helpers_views.h. */
bool helper_feeds_output(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(feeds_output(a[0].u.in));
    return true;
}

/* The reduction d = reduce[axes](reshape to z) has lens dl (z with the
 * reduced axes 1); a reshape from dl to w only inserts and removes 1s. The
 * lens z2 that the reshape to z becomes when that reshape moves above the
 * reduction, and the reduced axes of z2: w with each reduced axis of z
 * given back its length. Within each run of 1s between two longer axes, the
 * reduced axes of dl go, in order, to the 1s of w; false when w has too few
 * there (the reshape removed a reduced axis) or dl and w differ in more
 * than 1s. */
static bool unit_reshape_above_reduce(const rule_value *a, int64_t *z2, int *nz2, int64_t *axes,
                                      int *naxes)
{
    const int64_t *z = a[0].u.ints, *dl = a[1].u.ints, *w = a[2].u.ints, *ax = a[3].u.ints;
    int nz = a[0].n, nd = a[1].n, nw = a[2].n, na = a[3].n;
    if (nz != nd || nz > SHAPE_MAX_RANK || nw > SHAPE_MAX_RANK)
        return false;
    bool red[SHAPE_MAX_RANK];
    if (!mark_axes(ax, na, nz, red))
        return false;
    for (int k = 0; k < nz; k++)
        if (red[k] && dl[k] != 1)
            return false;
    int i = 0, j = 0;
    *nz2 = nw;
    *naxes = 0;
    for (;;) {
        /* the reduced axes of this run of dl's 1s, matched to w's 1s */
        int ri[SHAPE_MAX_RANK], nr = 0;
        while (i < nd && dl[i] == 1) {
            if (red[i])
                ri[nr++] = i;
            i++;
        }
        int wj[SHAPE_MAX_RANK], nw1 = 0;
        while (j < nw && w[j] == 1)
            wj[nw1++] = j++;
        if (nr > nw1)
            return false;
        for (int k = 0; k < nw1; k++)
            z2[wj[k]] = 1;
        for (int k = 0; k < nr; k++) {
            z2[wj[k]] = z[ri[k]];
            axes[(*naxes)++] = wj[k];
        }
        if (i == nd || j == nw) {
            if (i != nd || j != nw)
                return false;
            break;
        }
        if (dl[i] != w[j])
            return false;
        z2[j] = z[i];
        i++, j++;
    }
    return true;
}

bool helper_unit_reshape_lens(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    int64_t z2[SHAPE_MAX_RANK], axes[SHAPE_MAX_RANK];
    int nz2, naxes;
    if (!unit_reshape_above_reduce(a, z2, &nz2, axes, &naxes))
        return false;
    return ints_result(mem, z2, nz2, out);
}

bool helper_unit_reshape_axes(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    int64_t z2[SHAPE_MAX_RANK], axes[SHAPE_MAX_RANK];
    int nz2, naxes;
    if (!unit_reshape_above_reduce(a, z2, &nz2, axes, &naxes))
        return false;
    return ints_result(mem, axes, naxes, out);
}

/* unit_reshape_absorbs(z, dl, w, axes): see helpers_views.h. */
bool helper_unit_reshape_absorbs(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    int64_t z2[SHAPE_MAX_RANK], axes[SHAPE_MAX_RANK];
    int nz2, naxes;
    *out = rule_bool(unit_reshape_above_reduce(a, z2, &nz2, axes, &naxes));
    return true;
}

/* unit_reshape_above_reduce asked from C: the reshape below a reduction of
 * lens z (to dl, over axes) goes into it where the one above reshapes dl
 * to w; *z2 gets the lens it then has. */
static bool unit_reshape_lens_above_reduce(const int64_t *z, int nz, const int64_t *dl, int ndl, const int64_t *w,
                                           int nw, const int64_t *ax, int nax, int64_t *z2, int *nz2)
{
    rule_value a[4] = {{RV_INTS, nz, {.ints = z}}, {RV_INTS, ndl, {.ints = dl}}, {RV_INTS, nw, {.ints = w}},
                       {RV_INTS, nax, {.ints = ax}}};
    int64_t axes[SHAPE_MAX_RANK];
    int naxes;
    return unit_reshape_above_reduce(a, z2, nz2, axes, &naxes);
}

/* The lens z of a reduction over axes without its length-1 axes that it
 * does not reduce, and the reduced axes renumbered to match; false when z
 * has no such axis (or the axes are out of range). */
static bool reduce_without_unit_axes(const rule_value *a, int64_t *z2, int *nz2, int64_t *axes, int *naxes)
{
    const int64_t *z = a[0].u.ints, *ax = a[1].u.ints;
    int nz = a[0].n, na = a[1].n;
    if (nz > SHAPE_MAX_RANK)
        return false;
    bool red[SHAPE_MAX_RANK];
    if (!mark_axes(ax, na, nz, red))
        return false;
    *nz2 = 0;
    *naxes = 0;
    for (int i = 0; i < nz; i++) {
        if (z[i] == 1 && !red[i])
            continue;
        if (red[i])
            axes[(*naxes)++] = *nz2;
        z2[(*nz2)++] = z[i];
    }
    return *nz2 < nz;
}

bool helper_lens_without_unit_axes(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    int64_t z2[SHAPE_MAX_RANK], axes[SHAPE_MAX_RANK];
    int nz2, naxes;
    if (!reduce_without_unit_axes(a, z2, &nz2, axes, &naxes))
        return false;
    return ints_result(mem, z2, nz2, out);
}

/* has_unit_axes(z, axes): see helpers_views.h. */
bool helper_has_unit_axes(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    int64_t z2[SHAPE_MAX_RANK], axes[SHAPE_MAX_RANK];
    int nz2, naxes;
    *out = rule_bool(reduce_without_unit_axes(a, z2, &nz2, axes, &naxes));
    return true;
}

bool helper_axes_without_unit_axes(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    int64_t z2[SHAPE_MAX_RANK], axes[SHAPE_MAX_RANK];
    int nz2, naxes;
    if (!reduce_without_unit_axes(a, z2, &nz2, axes, &naxes))
        return false;
    return ints_result(mem, axes, naxes, out);
}

/* long_axes(lens, axes): see helpers_views.h. */
bool helper_long_axes(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    int64_t axes[SHAPE_MAX_RANK];
    int naxes = 0;
    for (int k = 0; k < a[1].n && naxes < SHAPE_MAX_RANK; k++) {
        int64_t x = a[1].u.ints[k];
        if (x >= 0 && x < a[0].n && a[0].u.ints[x] != 1)
            axes[naxes++] = x;
    }
    return ints_result(mem, axes, naxes, out);
}

static const ins *reshaped_to_run(const ins *b);

/* reshaped_to(b): see helpers_views.h. */
bool helper_reshaped_to(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    const ins *b = a[0].u.in;
    const ins *last = reshaped_to_run(b);
    if (!last || shape_same_lens(&last->sh, &b->sh))
        return false;
    return ints_result(mem, last->sh.lens, last->sh.rank, out);
}

static bool broadcast_view(const ins *m, const int64_t *lens, int rank, int64_t *r);
static bool broadcast_axis_reshaped_at(const ins *m, const int64_t *lens, int rank, int64_t *axis);
static int leading_ones(const int64_t *a, int na);
static bool lens_equal_but_leading_ones(const int64_t *a, int na, const int64_t *b, int nb);

/* Whether r, a reshape of the broadcast m (directly, or through the views
 * becomes_broadcast walks), waits for its read back instead of becoming a
 * broadcast: r's value reaches, as reshaped_to(r) walks it, a run of shape
 * ops that ends in m's lens, and made a broadcast first r would keep a
 * view that no rule takes back: m is a broadcast[axis], or a multibroadcast
 * whose kc (broadcast_view of r's lens) is not k's lens but for leading 1s.
 * The one test of reshape_of_broadcast's and reshape_of_multibroadcast's
 * guards (waits_for_read_back) and of becomes_broadcast's read-back clause,
 * so the rules and the helper wait in the same states (rounds s46D, s47F). */
static bool readers_read_back(const ins *r, const ins *m);
static bool becomes_reshape(const ins *r);

static bool read_back_waits(const ins *r, const ins *m)
{
    if (readers_read_back(r, m))
        return true;
    const ins *back = r->nargs == 1 ? reshaped_to_run(r) : NULL;
    if (!back || !shape_same_lens(&back->sh, &m->sh))
        return false;
    if (is_op(m, "broadcast"))
        return true;
    int64_t kc[SHAPE_MAX_RANK];
    return is_op(m, "multibroadcast") && m->nargs == 1 && broadcast_view(m, r->sh.lens, r->sh.rank, kc) &&
           !lens_equal_but_leading_ones(kc, r->sh.rank, m->args[0]->sh.lens, m->args[0]->sh.rank);
}

/* r, a reshape of broadcast m that only adds 1s to m's lens, each of its
 * readers a one-operand pointwise op of r, or a two-operand op of r and of
 * a shape op of a value of m's lens that becomes a reshape, whose value
 * reaches (reshaped_to_run) a run of shape ops that ends in m's lens: each
 * reader's reshape back composes with r (reshape_of_unary_of_read_back;
 * binary_above_reshapes once the two-operand reader reads r alone), and
 * the reader reads m itself, where r made a broadcast first left every
 * reader in r's lens under its read back (rounds s80D, s81A; tuning seed
 * 1053090: unsqueeze(mb[{2, 4, 2, 4}](add)) read by relu and by sub(.,
 * unsqueeze(p3)), each squeezed back, became mb[{2, 1, 4, 2, 4}](add),
 * and sub(sub, relu) ran in those lens under a reshape, 2 views more than
 * the core's relu(mb) and sub(mb, p3)). */
static bool readers_read_back(const ins *r, const ins *m)
{
    if (r->nargs != 1 || r->nusers < 1 || r->sh.rank <= m->sh.rank ||
        !unit_lens_only(m->sh.lens, m->sh.rank, r->sh.lens, r->sh.rank))
        return false;
    for (int k = 0; k < r->nusers; k++) {
        const ins *w = r->users[k];
        if (w->nmods != 0 || !(w->op->classes & (OPC_UNARY | OPC_BINARY)))
            return false;
        if (w->nargs == 2) {
            const ins *o = w->args[0] == r ? w->args[1] : w->args[0];
            if (!(w->op->classes & OPC_BINARY) || w->args[0] == w->args[1] || !becomes_reshape(o) || o->nargs != 1 ||
                !shape_same_lens(&o->args[0]->sh, &m->sh))
                return false;
        } else if (w->nargs != 1 || !(w->op->classes & OPC_UNARY)) {
            return false;
        }
        const ins *back = reshaped_to_run(w);
        if (!back || !shape_same_lens(&back->sh, &m->sh))
            return false;
    }
    return true;
}

/* waits_for_read_back(r): see helpers_views.h. */
bool helper_waits_for_read_back(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *r = a[0].u.in;
    *out = rule_bool(r->nargs == 1 && broadcast_op(r->args[0]) && read_back_waits(r, r->args[0]));
    return true;
}

static bool broadcast_bound(const ins *v, const ins *u, int depth);
static const ins *other_operand(const ins *b, const ins *x);

/* w is a two-operand op read b(v, s) of b's value v and of a reshape s
 * that is b's own operand, read by b and w alone. Moved above b (the
 * binary_above_unit_reshape_under_multibroadcast_* rules, which ask this
 * through multibroadcast_below), s leaves w reading two reshapes of one
 * value's lens to s's, each read once, which binary_above_reshapes takes
 * below w (or, where w is a cluster op, the labelling runs w there: both
 * leaves are in those lens and the multibroadcast below takes them for
 * free); so w passes the reshape on as a one-operand op does. */
static bool reads_shared_reshape_beside(const ins *w, const ins *b)
{
    if (!((w->op->classes & OPC_BINARY) && w->nargs == 2) || w->nmods != 0 || w->args[0] == w->args[1])
        return false;
    const ins *s = w->args[0] == b ? w->args[1] : w->args[1] == b ? w->args[0] : NULL;
    if (!s || !is_op(s, "reshape") || s->nargs != 1 || (b->args[0] != s && (b->nargs < 2 || b->args[1] != s)))
        return false;
    for (int k = 0; k < s->nusers; k++)
        if (s->users[k] != b && s->users[k] != w)
            return false;
    return true;
}

static bool lens_equal(const int64_t *a, int na, const int64_t *b, int nb);

/* w is a two-operand op w(b, m) of b's value and of a broadcast m that
 * is b's own other operand (b = b(r, m) or b(m, r), m read by b and w
 * alone). Once the binary_above_unit_reshape_under_multibroadcast_* rules
 * move b above its reshape r, w reads a reshape of b's new value to r's
 * lens beside m, the same form, and the rule moves w in turn (its
 * multibroadcast_below walks on from w); the two broadcasts of k the
 * moves make are one view, which CSE merges. So w passes the reshape on
 * as a one-operand op does (round s64A, --ops 24 seed 8019936:
 * max(sub(reshape(p0), m), m) of m = mb[{4, 3}](abs) under relu and
 * mb[{2, 4, 3}] ran in {4, 3} with p0 reshaped in the core, in p0's
 * {1, 4, 3} in the noisy graph). */
static bool reads_own_broadcast_beside(const ins *w, const ins *b)
{
    if (!((w->op->classes & OPC_BINARY) && w->nargs == 2) || w->nmods != 0 || w->args[0] == w->args[1] ||
        !((b->op->classes & OPC_BINARY) && b->nargs == 2) || b->args[0] == b->args[1])
        return false;
    const ins *m = other_operand(w, b);
    if (!m || m == b || !broadcast_op(m) || m->nargs != 1 || (b->args[0] != m && b->args[1] != m))
        return false;
    for (int k = 0; k < m->nusers; k++)
        if (m->users[k] != b && m->users[k] != w)
            return false;
    return true;
}

/* r, a multibroadcast of v read by w(r, o) of another multibroadcast o,
 * has readers besides w, v has more than one element and o's operand
 * lens differ from v's: then no rule merges the two under w. The merges
 * of two multibroadcasts want both read once
 * (binary_above_multibroadcasts*), or, for a shared one, an operand of one
 * element (the *_into_*_rejoined forms) or the same lens on both sides
 * (binary_above_multibroadcasts_of_shared_*); so w stays above r in every
 * order and r stays the multibroadcast the walk reached (round s64C,
 * --ops 24 seed 8010635: mb[{2, 4}](sigmoid(mul(m, add(reshape(p2), m))))
 * read by a dot and by max(., mb(relu(p3))) kept p2's reshape in the
 * core, where the noisy graph, sigmoid still above the broadcast, ran
 * add and mul in p2's {1, 4}). */
static bool shared_keeps_apart(const ins *r, const ins *w, const ins *o)
{
    const ins *v = r->args[0];
    if (!is_op(o, "multibroadcast") || o->nargs != 1 || shape_elements(&v->sh) <= 1 ||
        lens_equal(o->args[0]->sh.lens, o->args[0]->sh.rank, v->sh.lens, v->sh.rank))
        return false;
    for (int k = 0; k < r->nusers; k++)
        if (r->users[k] != w)
            return true;
    return false;
}

/* multibroadcast_below(b, rank): see helpers_views.h. */
bool helper_multibroadcast_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *v = a[0].u.in;
    bool yes = false;
    for (int depth = 0; depth <= VIEW_CLUSTER_MAX && one_reader(v); depth++) {
        const ins *r = v->users[0];
        if (r->nmods != 0)
            break;
        if (is_op(r, "multibroadcast") && r->nargs == 1) {
            /* one that stretches: one that does not becomes a reshape
             * (multibroadcast_to_reshape) in some orders first; and one
             * that stays: no binary reader whose other operand is or may
             * become a broadcast, which merges with it and puts that op
             * between v and the broadcast in some orders */
            yes = r->sh.rank >= a[1].u.i && shape_elements(&r->sh) > shape_elements(&v->sh);
            for (int j = 0; yes && j < r->nusers; j++) {
                const ins *w = r->users[j];
                if ((w->op->classes & OPC_BINARY) && w->nargs == 2) {
                    const ins *other = other_operand(w, r);
                    yes = other != r && (!broadcast_bound(other, NULL, 0) || shared_keeps_apart(r, w, other));
                }
            }
            break;
        }
        bool through = ((r->op->classes & OPC_UNARY) && r->nargs == 1) ||
                       ((r->op->classes & OPC_BINARY) && r->nargs == 2 && r->args[0] == v && r->args[1] == v) ||
                       (depth == 0 && (reads_shared_reshape_beside(r, a[0].u.in) ||
                                       reads_own_broadcast_beside(r, a[0].u.in)));
        if (!through)
            break;
        v = r;
    }
    *out = rule_bool(yes);
    return true;
}

static bool is_cluster_op(const ins *x);
static bool lens_equal(const int64_t *a, int na, const int64_t *b, int nb);

static bool becomes_reshape(const ins *r);
static bool unit_drop_taken_into_reduction(const ins *q);

/* The structural half of reduce_below_reshape's guards on q: q becomes a
 * reshape (or is one) of a standard value x that is no shape op, constant
 * or shared reshape, q is read once, by a reduction d, and d's axes map
 * through q onto x's (*r, *nr: the axes of x reduced, at least one). */
static bool reduction_maps_through_run(const ins *q, int64_t *r, int *nr)
{
    if (!becomes_reshape(q) || q->nusers != 1 || !shape_standard_p(&q->args[0]->sh))
        return false;
    const ins *d = q->users[0], *x = q->args[0];
    const attr_value *ax = ins_attr(d, "axes");
    if (!is_reduction(d) || d->nargs != 1 || !ax || ax->kind != ATTR_INTS || (x->op->classes & OPC_SHAPE) ||
        view_is_constant(x) || shares_reshape(q))
        return false;
    *nr = 0;
    return reduce_axes_map(x->sh.lens, x->sh.rank, q->sh.lens, q->sh.rank, ax->u.ints, ax->n, r, nr) && *nr > 0;
}

/* Shape op q, the whole run from a pointwise op x, is read once by a
 * reduction d that reduce_below_reshape would move it below once q is a
 * reshape (a squeeze or unsqueeze of a standard value becomes one,
 * *_to_reshape, with no guard): that rule's guards but one (x in its
 * cluster's lens, q shared with no other shape op, d's result reshape not
 * moving) and its `let` (d's axes map through q onto x's). The guard left
 * out, q no drop of 1s taken into a reduction below, follows the lens x
 * runs in now, so cluster_of's walk below a reduction does not ask it
 * (round s47G). */
static bool reduction_would_take_run(const ins *q)
{
    int64_t r[SHAPE_MAX_RANK];
    int nr = 0;
    if (!reduction_maps_through_run(q, r, &nr))
        return false;
    const ins *d = q->users[0], *x = q->args[0];
    rule_value v, a_x = rule_ins((ins *)x), a_d = rule_ins((ins *)d);
    if (!helper_in_cluster_lens(NULL, &a_x, 1, &v) || !v.u.i)
        return false;
    return helper_result_reshape_moves(NULL, &a_d, 1, &v) && !v.u.i;
}

/* Whether reduce_below_reshape moves q below its reduction: every guard. */
static bool reduction_takes_run(const ins *q)
{
    return reduction_would_take_run(q) && !unit_drop_taken_into_reduction(q);
}

static bool one_element_source(const ins *v, int depth, int *budget);
static bool computes_one_element(const ins *v);

/* The reshape r's operand x is reached from a two-operand op b of a value
 * that computes one element (one_element_source, of more than one
 * element) and a shape op s of a computed standard value y of r's lens,
 * s not of y's lens, through ops that binary_above_reshape_unit_* walk
 * after b (reshaped_to_run: each read once, one-operand pointwise ops,
 * b(v, v), two-operand ops with a constant other operand) and through
 * runs of shape ops that give back the lens of the value they read
 * (reshape_of_reshape and reshape_to_same_shape, neither with a guard,
 * remove them); at least one such op lies between b and r, since where
 * b reads r through shape ops alone the reduction takes that run
 * (reduction_takes_run); and no shape op reads the reduction (below).
 * Bounded by depth. */
static bool unit_binary_run_above(const ins *r)
{
    if (!(r->op->classes & OPC_SHAPE) || r->nargs != 1)
        return false;
    /* a shape op reading the reduction: r moved below composes with it
     * (reshape_of_reshape), so the move costs no view there, and waiting
     * would leave the run's one element spelled in r's padded lens and
     * that reshape both (seed 3018628 with --ops 24: sin(sub(reshape(m),
     * mb(k))) reshaped to {3, 1, 3} for reduce_max, itself reshaped to
     * {1, 3}: 3 views in the orders that waited, 2 in the others) */
    for (int i = 0; i < r->nusers; i++)
        for (int j = 0; j < r->users[i]->nusers; j++)
            if (r->users[i]->users[j]->op->classes & OPC_SHAPE)
                return false;
    const ins *x = r->args[0];
    for (int depth = 0; depth <= UNIT_RUN_MAX_DEPTH; depth++) {
        if (!one_reader(x) || x->nmods != 0 || view_is_constant(x))
            return false;
        if ((x->op->classes & OPC_SHAPE) && x->nargs == 1) {
            /* a run of shape ops that composes to nothing */
            const ins *t = x, *under = x;
            for (int k = 0; k <= VIEW_CLUSTER_MAX && becomes_reshape(under) && one_reader(under); k++)
                under = under->args[0];
            if (becomes_reshape(under) || !lens_equal(t->sh.lens, t->sh.rank, under->sh.lens, under->sh.rank))
                return false;
            x = under;
            continue;
        }
        if ((x->op->classes & OPC_UNARY) && x->nargs == 1) {
            x = x->args[0];
            continue;
        }
        if (!((x->op->classes & OPC_BINARY) && x->nargs == 2))
            return false;
        if (x->args[0] == x->args[1]) {
            x = x->args[0];
            continue;
        }
        if (view_is_constant(x->args[0]) || view_is_constant(x->args[1])) {
            x = view_is_constant(x->args[0]) ? x->args[1] : x->args[0];
            continue;
        }
        if (depth == 0)
            return false; /* b reads r through shape ops alone */
        for (int i = 0; i < 2; i++) {
            const ins *m = x->args[i], *s = x->args[1 - i];
            if (shape_elements(&m->sh) <= 1 || !computes_one_element(m) || !becomes_reshape(s))
                continue;
            const ins *y = s->args[0];
            if (!(y->op->classes & OPC_SHAPE) && !view_is_constant(y) && shape_standard_p(&y->sh) &&
                lens_equal(y->sh.lens, y->sh.rank, r->sh.lens, r->sh.rank) &&
                !lens_equal(y->sh.lens, y->sh.rank, s->sh.lens, s->sh.rank))
                return true;
        }
        return false;
    }
    return false;
}

/* unit_binary_run_above(r): see helpers_views.h. */
bool helper_unit_binary_run_above(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(unit_binary_run_above(a[0].u.in));
    return true;
}

/* v is a cluster op whose cluster runs it in v's own lens: its labelling
 * has settled v where it stands, and the rules have nothing to move. */
static bool runs_in_own_cluster_lens(const ins *v)
{
    int64_t l[SHAPE_MAX_RANK];
    int nl;
    return is_cluster_op(v) && view_cluster_lens(v, l, &nl) && lens_equal(l, nl, v->sh.lens, v->sh.rank);
}

/* Pointwise op u runs in other lens once its cluster settles
 * (cluster_lens): the rules conjugate it into them, and the reshape they
 * put on its operand composes with the one it reads now. Not the negation
 * of runs_in_own_cluster_lens: an op whose cluster has no lens yet does
 * neither. */
static bool leaves_lens(const ins *u)
{
    int64_t l[SHAPE_MAX_RANK];
    int nl;
    return is_cluster_op(u) && view_cluster_lens(u, l, &nl) && !lens_equal(l, nl, u->sh.lens, u->sh.rank);
}

/* u is a pointwise op (one or two operands) that runs in its cluster's
 * own lens already (runs_in_own_cluster_lens). */
static bool settled_pointwise(const ins *u)
{
    return (u->op->classes & (OPC_UNARY | OPC_BINARY)) && runs_in_own_cluster_lens(u);
}

/* Walking down from v (v itself first) through one-operand ops of the
 * classes `through` and pending shape changes, at most VIEW_CLUSTER_MAX
 * steps, a stretching broadcast is met: it sinks below that chain, or a
 * reshape over the chain rises into it, by order. */
static bool chain_reaches_stretching_broadcast(const ins *v, unsigned through)
{
    for (int d = 0; d <= VIEW_CLUSTER_MAX; d++) {
        if (broadcast_op(v) && shape_broadcasted_p(&v->sh))
            return true;
        if (!(((v->op->classes & through) || ins_is_pending(v)) && v->nargs == 1))
            return false;
        v = v->args[0];
    }
    return false;
}

/* unary_of_stretching_broadcast(x): see helpers_views.h. x is a
 * one-operand op (or a chain of them) of a stretching broadcast: that
 * broadcast sinks below the chain by order, so the lens x has now are
 * not the ones it settles in (round s61A, seed 2088334). */
bool helper_unary_of_stretching_broadcast(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *x = a[0].u.in;
    *out = rule_bool(pointwise_unary(x) && chain_reaches_stretching_broadcast(x->args[0], OPC_UNARY));
    return true;
}

/* unit_shape_chain_base(k, n): see helpers_views.h. Not where k0 is a
 * reduction, whose unit axes move under reduce_without_unit_axes and
 * reduce_below_reshape (seed 2023526: the squeeze over
 * reduce_max(unsqueeze(p1)) went into the reduction in the orders that met
 * it first, and sub moved into s1002's {4, 3, 1, 3} with a new reshape of
 * the reduction in the others), nor a cluster op still to move (its lens
 * are not the ones it has now). */
const ins *unit_shape_chain_base(const ins *k, int n)
{
    const ins *k0 = k;
    for (int d = 0; d < VIEW_CLUSTER_MAX && (k0->op->classes & OPC_SHAPE) && k0->nargs == 1 &&
                    shape_elements(&k0->sh) == 1;
         d++)
        k0 = k0->args[0];
    if (k0->sh.rank != n || shape_elements(&k0->sh) != 1 || is_reduction(k0))
        return NULL;
    if (is_cluster_op(k0) && !runs_in_own_cluster_lens(k0))
        return NULL;
    return k0;
}

/* b(r, m) (either order), r a shape op of x of `lens`, m a broadcast of
 * k: x's lens are its own in every order (not a reduction, whose unit
 * axes reduce_without_unit_axes and reduce_below_reshape move; where x
 * is a cluster op, its cluster runs it in its own lens), and m is spelled
 * in x's lens without a reshape of k (k of x's rank: view_in_common spells
 * the one element in 1s of that rank; or k a chain of shape ops of one
 * element over such a value, which goes with the move: *over). Then b
 * moved to x's lens costs no view: r goes and no reshape of k comes. */
static bool padded_run_settled(const ins *b, const int64_t *lens, int n, bool *over)
{
    if (!((b->op->classes & OPC_BINARY) && b->nargs == 2))
        return false;
    for (int i = 0; i < 2; i++) {
        const ins *r = b->args[i], *m = b->args[1 - i];
        if (!(r->op->classes & OPC_SHAPE) || r->nargs != 1 || m->nargs != 1)
            continue;
        const ins *x = r->args[0], *k = m->args[0];
        /* or the value k0 below the shape ops of one element over k, which
         * compose with view_in_common's reshape into one and go with it
         * (reshape_of_reshape, reshape_to_same_shape): *over then says
         * that a shape op over the one element goes with the move */
        bool o = k->sh.rank != n && unit_shape_chain_base(k, n) != NULL;
        if (lens_equal(x->sh.lens, x->sh.rank, lens, n) && (k->sh.rank == n || o) && !is_reduction(x) &&
            (!is_cluster_op(x) || runs_in_own_cluster_lens(x))) {
            *over = o;
            return true;
        }
    }
    return false;
}

static bool reads_broadcast(const ins *x);
static bool read_once_by_broadcast(const ins *v);
static bool multibroadcast_spelling(const ins *m);
static bool unit_broadcast(const ins *x);
static bool unit_stride_zero(const ins *v);

static bool is_cluster_op(const ins *x);
static bool cluster_lens_at(const ins *v, bool shared, int64_t *lens, int *n);
static bool lens_equal(const int64_t *a, int na, const int64_t *b, int nb);
static _Thread_local int one_element_base_depth;

/* Below m, which computes one element (one_element_source), the first
 * value e of one element that is no view, shape op or pending op (through
 * views, one-operand ops and the first operand of two-operand ops, which
 * the merges make the one element's op), and whether a shape op stands
 * on the way (*shaped), both as they are once e runs in its cluster's
 * lens: e's rank then in *rank. Where e is a cluster op still to move
 * (its cluster's lens are not its own), binary_into_cluster_lens and
 * unary_into_cluster_lens run it in those lens l in every order, with a
 * reshape back to its own, which composes with the shape ops reading e
 * (reshape_of_reshape, squeeze_to_reshape, ...) and goes where they end
 * in l (reshape_to_same_shape): so e has l's rank then, and a shape op
 * stands on the way unless those ops end in l and none stands higher.
 * The same where e stays (l its own lens): shape ops reading e that end
 * in e's lens go in every order, so they count as none (seed 9015461:
 * max(squeeze(s), mb(reshape[{1}](k))) of a {1} k was weighed free in
 * s's {4, 1, 4} in the orders that met it before reshape_to_same_shape
 * took the identity reshape away, and add reading max ran there).
 * Asked of e as it is now, the answer flipped with whether e's cluster
 * had moved yet (seed 3004352: sub(reshape(dot), mb(squeeze(max))) of a
 * {1, 1} max read by the squeeze, which its cluster runs in {1}: in the
 * orders that labelled add reading sub before max moved, sub was weighed
 * free in the dot's {3, 1} (max of that rank), in the others not (max
 * in {1}, a new reshape needed), and add ran in {3, 1} or {3}). Not
 * asked inside its own question (the labelling of e's cluster may weigh
 * such a leaf in turn): there e is taken as it is. */
static const ins *one_element_base(const ins *m, bool *shaped, int *rank)
{
    *shaped = false;
    bool above = false;        /* a shape op stands above a non-shape op on the way */
    const ins *chain = NULL;   /* the highest of the shape ops reading e directly */
    for (int d = 0; d <= VIEW_CLUSTER_MAX; d++) {
        unsigned c = m->op->classes;
        bool view = ((c & (OPC_VIEW | OPC_SHAPE)) || ins_is_pending(m)) && m->nargs == 1;
        if (shape_elements(&m->sh) == 1 && !view) {
            int64_t l[SHAPE_MAX_RANK];
            int nl = m->sh.rank;
            memcpy(l, m->sh.lens, sizeof(int64_t) * (size_t)nl);
            if (one_element_base_depth == 0 && is_cluster_op(m)) {
                one_element_base_depth++;
                if (!cluster_lens_at(m, true, l, &nl)) {
                    nl = m->sh.rank;
                    memcpy(l, m->sh.lens, sizeof(int64_t) * (size_t)nl);
                }
                one_element_base_depth--;
            }
            /* the shape ops reading e directly compose into one reshape
             * from e's lens l, which goes where it ends in l
             * (reshape_of_reshape, reshape_to_same_shape: no guard) */
            const shape *top = chain ? &chain->sh : &m->sh;
            *rank = nl;
            *shaped = above || !lens_equal(l, nl, top->lens, top->rank);
            return m;
        }
        if (c & OPC_SHAPE) {
            *shaped = true;
            if (!chain)
                chain = m;
        } else if (chain) {
            above = true;
            chain = NULL;
        }
        if (m->nargs < 1)
            return NULL;
        m = m->args[0];
    }
    return NULL;
}

/* v computes one element (one_element_source), or is a two-operand op of
 * such values and literals that hold one value broadcast (a broadcast
 * of a literal that fold_constant_view folded: the merge rules,
 * binary_above_multibroadcast_literal_*, take it back to one element;
 * seed 1059247: max(reshape(s), mul(mb(k), literal)) left the labelling
 * by order once the literal's broadcast folded). */
static bool one_element_value(const ins *v)
{
    if (one_element_source(v, 0, &(int){256}))
        return true;
    if (!((v->op->classes & OPC_BINARY) && v->nargs == 2) || v->nmods != 0)
        return false;
    for (int i = 0; i < 2; i++) {
        const ins *a = v->args[i];
        if (!one_element_source(a, 0, &(int){256}) && !(is_op(a, "@literal") && unit_stride_zero(a)))
            return false;
    }
    return true;
}

/* Two-operand op b of a value m that computes one element
 * (one_element_source, of more than one element) and a shape op s that
 * becomes a reshape (becomes_reshape, or a broadcast that only adds unit
 * axes, unit_broadcast) of a standard computed value y of other lens,
 * through the shape ops below s that compose into it (no shape op or
 * constant, settled as binary_above_reshape_unit_* ask, s no split of
 * y's axes), every reader of b a shape op or an op of the cluster
 * labelled (ops, nops): y, else NULL. Such a b is
 * what binary_above_reshape_unit_* take into y's lens once the broadcast
 * has sunk and merged and b's value is read back in y's lens by ops
 * whose clusters run there (reshaped_back_outside): the one element fits
 * any lens, the reshape to s's lens moved below composes with the shape
 * ops reading b, and s goes. Structural only (b's operands and readers,
 * no cluster asked): the labelling weighs b by it (labelling_cands), and
 * the rule's guard asks the labelling of b's readers, so asking that
 * guard here would go in a circle (round s59C). */
static bool cluster_has(const ins *const *v, int n, const ins *x);

static const ins *unit_binary_mover(const ins *b, const ins *const *ops, int nops)
{
    if (!((b->op->classes & OPC_BINARY) && b->nargs == 2) || b->nmods != 0 || b->args[0] == b->args[1] ||
        b->nusers == 0 || view_is_constant(b))
        return NULL;
    /* every reader of b a shape op, or an op of the cluster labelled
     * (ops): one that reads b itself reads it through a reshape once it
     * runs in y's lens, so b is then read by shape ops alone, as the
     * rule asks (seed 2085390: neg(reshape(mul(mb(k), reshape(p1))))
     * of a {24} p1 in mul's {24, 1}, where neg rose above the reshape
     * (unary_above_reshape) in the orders that met it while mul read a
     * pending op, outside the clusters, and then read mul directly: mul
     * was weighed in {24} in the orders that labelled neg before, and in
     * {24, 1} alone in the others, 3 views against 2; seed 16352, the
     * same once a unit broadcast reading the op folded away) */
    for (int k = 0; k < b->nusers; k++) {
        const ins *u = b->users[k];
        if (cluster_has(ops, nops, u))
            continue;
        if (!((u->op->classes & OPC_SHAPE) || unit_broadcast(u)) || u->nargs != 1)
            return NULL;
    }
    for (int i = 0; i < 2; i++) {
        const ins *s = b->args[i], *m = b->args[1 - i];
        if (!(becomes_reshape(s) || (unit_broadcast(s) && shape_standard_p(&s->args[0]->sh))) ||
            shape_elements(&m->sh) <= 1 || view_is_constant(m) || !one_element_value(m))
            continue;
        /* through the shape ops and unit broadcasts below s, which the
         * fold rules compose into s (reshape_of_reshape,
         * multibroadcast_to_reshape: no guard) */
        const ins *y = s->args[0];
        for (int d = 0; d < VIEW_CLUSTER_MAX && (becomes_reshape(y) || unit_broadcast(y)) && shape_standard_p(&y->args[0]->sh); d++)
            y = y->args[0];
        unsigned c = y->op->classes;
        if ((c & OPC_SHAPE) || view_is_constant(y) || ins_is_pending(y) || !shape_standard_p(&y->sh) ||
            lens_equal(y->sh.lens, y->sh.rank, s->sh.lens, s->sh.rank))
            continue;
        /* y runs in its cluster's lens already (in_cluster_lens): where it
         * is still to move, its lens are not the ones b would take (seed
         * 1059247: max(unsqueeze(squeeze(sub)), broadcast(k)) of a sub in
         * {1, 24} whose cluster moved it to {24} in the orders that met it
         * first, after relu reading max had weighed {1, 24} in the
         * others) */
        if (is_cluster_op(y) || is_reduction(y))
            continue;
        /* settled(y) */
        if (((c & OPC_UNARY) && y->nargs == 1 && (y->args[0]->op->classes & OPC_SHAPE)) ||
            ((c & OPC_BINARY) && y->nargs == 2 && (y->args[0]->op->classes & OPC_SHAPE) &&
             (y->args[1]->op->classes & OPC_SHAPE)))
            continue;
        /* !splits_axes(s.lens, y.lens) */
        if (splits_axes(s->sh.lens, s->sh.rank, y->sh.lens, y->sh.rank))
            continue;
        /* the move saves a view: s goes, and the one element e is spelled
         * in y's rank by a reshape of e unless it has that rank; in s's
         * lens it is spelled by a reshape where a shape op stands over it
         * now (reshape_of_multibroadcast keeps one of e's rank to s's)
         * unless e has s's rank. Where the move only trades s for a new
         * reshape of e, the labelling keeps b's own lens (seed 1010301:
         * mul(mb[{3, 4, 2}](sub), reshape(abs)) of a {1} sub, abs in
         * {12, 2, 1}: tanh reading mul ran in abs's lens, with mb(sub)
         * respelled there and its reshape back below, 4 views against
         * the core's 3) */
        bool shaped;
        int erank = 0;
        const ins *e = one_element_base(m, &shaped, &erank);
        if (!e || (erank != y->sh.rank && !(shaped && erank != s->sh.rank)))
            continue;
        if (!reads_broadcast(b))
            return NULL;
        return y;
    }
    return NULL;
}

/* reshaped_back_outside(b, lens): see helpers_views.h. Not where the run
 * is one shape op read by a reduction that reduce_below_reshape moves it
 * below (reduction_takes_run): b's value then reaches the reduction in
 * its own lens, and the reduction, not b, meets the reshape (seed 1098772:
 * max(squeeze(s), mb(k)) unsqueezed for reduce_sum ran in s's lens with
 * the reduction between two reshapes in the orders that met max first,
 * and in the squeeze's, the reshape below the reduction, in the others). */
bool helper_reshaped_back_outside(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *last = reshaped_to_run(a[0].u.in);
    const ins *b = a[0].u.in;
    bool back = last && lens_equal(last->sh.lens, last->sh.rank, a[1].u.ints, a[1].n);
    bool over = false;
    /* a unit-padded run (round s43F): read only by dots, outputs and settled
     * pointwise readers (round s62A), below */
    bool padded = last && !back && unit_lens_only(last->sh.lens, last->sh.rank, a[1].u.ints, a[1].n) &&
                  !lens_equal(last->sh.lens, last->sh.rank, b->sh.lens, b->sh.rank) && padded_run_settled(b, a[1].u.ints, a[1].n, &over);
    /* no run (round s62A): b itself in lens equal to lens but for 1s, read
     * by pointwise ops alone that run in their cluster's lens already, where
     * b's broadcast operand is a shape op of one element over a value of
     * x's rank (over): the move saves a view, as the padded run's does (b's
     * reshape r and that shape op go, one reshape back to b's lens comes).
     * This is the state a padded run reaches once the reader's cluster
     * has taken b (binary_into_cluster_lens, while b's one-element operand
     * was still a shape op) and the broadcast has sunk: asked only of the
     * run, the answer flipped with whether the cluster had taken b first
     * (seed 16013971 with --ops 16: mul(mb(add), unsqueeze(relu(p2)))
     * unsqueezed for a settled sub ran in p2's {4, 4} in the core, while
     * the noisy graph's cluster ran mul in the sub's {4, 1, 1, 4} as
     * mul(mb(reshape[{1, 1, 1, 1}](add)), reshape(relu)), read by the sub
     * directly, one view more; seed 1014078 the same through tanh) */
    bool direct = !last && unit_lens_only(b->sh.lens, b->sh.rank, a[1].u.ints, a[1].n) &&
                  !lens_equal(b->sh.lens, b->sh.rank, a[1].u.ints, a[1].n) && padded_run_settled(b, a[1].u.ints, a[1].n, &over) && over;
    if (direct) {
        last = b;
        padded = true;
    }
    bool yes = (back || padded) && last->nusers > 0 && !(!direct && last->args[0] == a[0].u.in && reduction_takes_run(last));
    for (int k = 0; yes && k < last->nusers; k++) {
        const ins *r = last->users[k];
        /* a pointwise reader only where its cluster runs in that reader's
         * lens already (settled_pointwise): it chose lens with b's value a
         * leaf in other lens, and keeps them once b runs there too */
        bool settled = settled_pointwise(r);
        if (padded && (r->op->classes & (OPC_VIEW | OPC_REDUCE)))
            yes = false;
        if (direct && !settled)
            yes = false;
        yes = yes && (!(r->op->classes & (OPC_UNARY | OPC_BINARY)) || settled) && !ins_is_pending(r) && !broadcast_op(r);
    }
    *out = rule_bool(yes);
    return true;
}

static bool keeps_broadcast_reader(const ins *r);

/* A reader r of the end of a reshape run that lets b run in the lens the
 * run gives back in every order: one that keeps a broadcast as it is
 * (keeps_broadcast_reader), or a pointwise op whose cluster runs in r's
 * own lens already (round s63A, from session 62's s62F). The cluster chose
 * those lens with b's value a leaf reshaped into them, and keeps them once
 * b runs there too (seed 16017552 with --ops 16: sub(mb[{2, 3, 1}](
 * tanh(p1)), unsqueeze(p0)) squeezed for a mul(p2, .) that ran in p0's
 * {2, 3} kept the unsqueeze and the squeeze, 3 views against 2). Not
 * where an operand of r is a stretching broadcast, directly or through
 * one-operand and shape ops: it sinks below them and takes r out of the
 * clusters (seed 1004610). Not where r's value reaches a reduction
 * through a run of shape ops: reduce_below_reshape takes the run below the
 * reduction in the orders that meet it first, and r's cluster then
 * chooses its lens anew (seed 8000809 with --ops 24: add(reshape[{3, 2}](
 * max), p1) squeezed for reduce_max ran in {3, 2} only in the orders that
 * labelled add's cluster before the reduction took the squeeze; max moved
 * there beside it in those alone, 3 views against 4). */
static bool keeps_broadcast_or_settled_pointwise(const ins *r)
{
    if (keeps_broadcast_reader(r))
        return true;
    if (!settled_pointwise(r))
        return false;
    for (int i = 0; i < r->nargs; i++)
        if (chain_reaches_stretching_broadcast(r->args[i], OPC_UNARY | OPC_SHAPE))
            return false;
    const ins *q = r;
    for (int d = 0; d <= VIEW_CLUSTER_MAX && one_reader(q); d++) {
        const ins *u = q->users[0];
        if (d > 0 && is_reduction(u))
            return false;
        if (!((u->op->classes & OPC_SHAPE) && u->nargs == 1))
            break;
        q = u;
    }
    return true;
}

/* x is a two-operand op of a constant and a shape op that changes lens:
 * constant folding makes the constant one literal, and
 * binary_above_literal_and_reshape (or _reshape_and_literal) then takes x
 * into the lens of the shape op's operand, in the orders that fold first
 * (seed 5004366 with --ops 24: max(mb(relu(literal)), reshape[{2, 4, 1}](
 * p4)) under sub(unsqueeze(.), mb(k)) ran in {8} in program order, and in
 * order 7919 the sub ran in {2, 4, 1} first, reshaped back for a settled
 * sub(v, v)). */
static bool beside_literal_to_fold(const ins *x)
{
    if (!((x->op->classes & OPC_BINARY) && x->nargs == 2))
        return false;
    for (int i = 0; i < 2; i++) {
        const ins *o = x->args[1 - i];
        if (view_is_constant(x->args[i]) && (o->op->classes & OPC_SHAPE) && o->nargs == 1 &&
            !lens_equal(o->sh.lens, o->sh.rank, o->args[0]->sh.lens, o->args[0]->sh.rank))
            return true;
    }
    return false;
}

/* reshaped_back_for_keepers(b, x): see helpers_views.h. Only ops that
 * keep a broadcast as it is, or settled pointwise readers, read the end of
 * b's run of shape ops (keeps_broadcast_or_settled_pointwise); where one
 * of the latter does, x is no op beside a literal still to fold
 * (beside_literal_to_fold); and x reads no stretching broadcast through
 * one-operand ops. */
bool helper_reshaped_back_for_keepers(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *b = a[0].u.in, *x = a[1].u.in;
    const ins *last = reshaped_to_run(b);
    bool yes = last && every_reader(last, keeps_broadcast_or_settled_pointwise);
    if (yes && !every_reader(last, keeps_broadcast_reader) && beside_literal_to_fold(x))
        yes = false;
    /* x a one-operand op (or a chain of them) of a stretching broadcast:
     * the broadcast sinks below the chain, or the reshape of it rises into
     * the broadcast (reshape_of_unary_of_multibroadcast*), by order; a
     * pending shape change left by a sink goes into its reader
     * (unary_through_pending), so the walk passes it */
    if (yes && ((x->op->classes & OPC_UNARY) || ins_is_pending(x)) && x->nargs == 1)
        yes = !chain_reaches_stretching_broadcast(x->args[0], OPC_UNARY);
    *out = rule_bool(yes);
    return true;
}

/* r is a reshape, or a squeeze or unsqueeze of a standard value, which
 * squeeze_to_reshape and unsqueeze_to_reshape make one (no guard). */
static bool becomes_reshape(const ins *r)
{
    return r->nargs == 1 && (is_op(r, "reshape") || ((is_op(r, "squeeze") || is_op(r, "unsqueeze")) &&
                                                     shape_standard_p(&r->args[0]->sh) && shape_standard_p(&r->sh)));
}

static bool composes_below(const ins *m);

/* t is, or in every order becomes, a shape op of its operand: a shape op,
 * a broadcast that stretches nothing of a standard value, which
 * *broadcast_to_reshape make a reshape (the clusters' unit_broadcast, not
 * where a multibroadcast or pending op reading it composes with it), or a
 * pending shape change of either, which goes into its readers
 * (*_through_pending) and leaves them reading the reshape. Returns what
 * the shape op reads, or NULL. */
static const ins *shape_op_source(const ins *t)
{
    for (int d = 0; d < VIEW_CLUSTER_MAX && ins_is_pending(t) && t->nargs == 1; d++)
        t = t->args[0];
    if (t->nargs != 1)
        return NULL;
    if (is_shape_view(t) || (unit_broadcast(t) && !shape_same_lens(&t->sh, &t->args[0]->sh) && !composes_below(t)))
        return t->args[0];
    return NULL;
}

/* The last shape op of the first run of shape ops b's value reaches through
 * single-reader one-operand pointwise ops and two-operand ones whose other
 * operand is constant (reshaped_to), or NULL. */
static const ins *reshaped_to_run(const ins *b)
{
    const ins *x = b;
    const ins *last = NULL; /* the last shape op of the chain */
    for (int depth = 0; depth < ABSORBS_TRANSPOSE_MAX_DEPTH; depth++) {
        if (!one_reader(x))
            break;
        const ins *u = x->users[0];
        bool through;
        if (u->op->classes & OPC_SHAPE) {
            through = u->nargs == 1;
            if (through)
                last = u;
            /* a shape op that becomes a reshape, read by several, one of
             * them a reshape: reshape_of_reshape (no guard) composes that
             * one into a reshape of x, which is then read twice; so the
             * run ends at x in every order (seed 1012623: add read by
             * squeeze(add), itself read by reshape[{128}] and a transpose,
             * had a run until the fold composed the reshape) */
            for (int k = 0; through && becomes_reshape(u) && u->nusers > 1 && k < u->nusers; k++)
                if (becomes_reshape(u->users[k]))
                    return NULL;
        } else if (last) {
            break; /* the chain of shape ops ended */
        } else {
            through = (u->op->classes & OPC_UNARY) && u->nargs == 1;
            /* a two-operand op of x twice, b(x, x), is a function of x
             * alone, as a one-operand op is: its value reaches the run's
             * shape ops in x's lens as a one-operand op's does, and every
             * rule that moves a reshape above a one-operand op moves it
             * above b(x, x) too (binary_above_reshapes: both operands one
             * reshape, binary_above_reshape_twice: r(b(x, x))) (seed
             * 1012623: add(mb(y), unsqueeze(p0)) read by mul(add, add),
             * squeezed back to p0's lens for a reduction, was not reshaped
             * back and stayed in the unsqueeze's lens; 11000027 with
             * --ops 24: mul(unsqueeze(a), unsqueeze(a)) squeezed for a dot,
             * a = add of two multibroadcasts, kept a reshape of the merged
             * broadcast in the orders that merged it first) */
            if ((u->op->classes & OPC_BINARY) && u->nargs == 2)
                through = u->args[0] == u->args[1] || (u->args[0] == x ? view_is_constant(u->args[1])
                                                                        : view_is_constant(u->args[0]));
        }
        if (!through)
            break;
        x = u;
    }
    return last;
}

/* settled(x): see helpers_views.h. */
bool helper_settled(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *x = a[0].u.in;
    unsigned c = x->op->classes;
    /* an operand that becomes a shape op in every order counts as one
     * (shape_op_source): asked of shape ops only, the answer changed when
     * multibroadcast_to_reshape made a broadcast that stretches nothing a
     * reshape under a pending op (round s75A; --ops 24 seed 11002281:
     * mul(mb[{3}](k), reshape[{3}](relu(mb[{1, 3}](tanh {3})))) of a
     * one-element k ran in {3} in the orders that moved relu into its
     * cluster's {3} first, and binary_above_reshape_unit_second took it
     * into relu's {1, 3} beside mb(reshape[{1, 1}](k)) in the orders that
     * met mul while relu read the pending op) */
    bool moving = is_shape_view(x) ||
                  ((c & OPC_UNARY) && x->nargs == 1 && shape_op_source(x->args[0])) ||
                  ((c & OPC_BINARY) && x->nargs == 2 && shape_op_source(x->args[0]) &&
                   shape_op_source(x->args[1]));
    /* nor a reduction whose operand's run reduce_below_reshape moves below
     * it: x then becomes reshape(reduction) and its reader's reshape of x
     * composes with that one (round s75C; --ops 24 seed 6009214: add(
     * unsqueeze(reduce_mean(squeeze(p1))), mb(k)) of a one-element k,
     * squeezed for max, ran in {4, 1, 1} in the orders where
     * binary_above_reshape_unit_first met it before reduce_below_reshape
     * took the squeeze, and in {4, 1, 1, 1} in the others) */
    if (!moving && is_reduction(x) && x->nargs == 1)
        moving = reduction_takes_run(x->args[0]);
    *out = rule_bool(!moving);
    return true;
}

/* transpose[p] of a value of lens `lens` (both of length n) moves only
 * length-1 axes: the longer axes keep their order. */
static bool moves_unit_axes_only(const int64_t *p, int n, const int64_t *lens)
{
    int64_t last = -1;
    for (int i = 0; i < n; i++) {
        if (p[i] < 0 || p[i] >= n)
            return false;
        if (lens[p[i]] != 1) {
            if (p[i] <= last)
                return false;
            last = p[i];
        }
    }
    return true;
}

/* moves_unit_axes_only(p, lens): see helpers_views.h. */
bool helper_moves_unit_axes_only(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(a[0].n == a[1].n && moves_unit_axes_only(a[0].u.ints, a[0].n, a[1].u.ints));
    return true;
}

/* t is a transpose by the permutation p of n axes. */
static bool transpose_by(const ins *t, const int64_t *p, int n)
{
    if (!is_op(t, "transpose"))
        return false;
    const attr_value *v = ins_attr(t, "permutation");
    bool yes = v && v->n == n;
    for (int i = 0; yes && i < n; i++)
        yes = v->u.ints[i] == p[i];
    return yes;
}

/* x has a reader other than except that is a transpose by p (n axes). */
static bool read_by_transpose(const ins *x, const int64_t *p, int n, const ins *except)
{
    for (int k = 0; k < x->nusers; k++)
        if (x->users[k] != except && transpose_by(x->users[k], p, n))
            return true;
    return false;
}

/* has_transpose(x, p): see helpers_views.h. */
bool helper_has_transpose(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(read_by_transpose(a[0].u.in, a[1].u.ints, a[1].n, NULL));
    return true;
}

/* same_layout(a, b): see helpers_views.h. */
bool helper_same_layout(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(shape_same_layout(&a[0].u.in->sh, &a[1].u.in->sh));
    return true;
}

/* has_other_transpose(x, t): see helpers_views.h. */
bool helper_has_other_transpose(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *x = a[0].u.in, *t = a[1].u.in;
    const attr_value *p = transpose_permutation(t);
    *out = rule_bool(p && read_by_transpose(x, p->u.ints, p->n, t));
    return true;
}

/* v starts a chain of one-operand pointwise ops, each read once, whose
 * last op is read by transpose[p]. */
static bool unary_chain_ends_in_transpose(const ins *v, const int64_t *p, int n)
{
    for (int d = 0; d < VIEW_CLUSTER_MAX && pointwise_unary(v) && one_reader(v); d++) {
        if (transpose_by(v->users[0], p, n))
            return true;
        v = v->users[0];
    }
    return false;
}

/* chain_read_back(x, p): see helpers_views.h. */
bool helper_chain_read_back(arena *mem, const rule_value *a, int n, rule_value *out)
{
    rule_value b[2] = {a[0], a[1]};
    const ins *x = a[0].u.in;
    for (int depth = 0; one_reader(x) && pointwise_unary(x->users[0]) && depth < VIEW_CLUSTER_MAX; depth++)
        x = x->users[0];
    if (x->nusers < 2) {
        *out = rule_bool(false);
        return true;
    }
    b[0].u.in = (ins *)x;
    if (!helper_has_transpose(mem, b, n, out))
        return false;
    /* or one of x's readers starts a chain of one-operand ops, each read
     * once, that ends in transpose[p]: the value is wanted in both layouts
     * all the same, the transpose back only one branch further down, where
     * unary_above_transpose sinks it to x's own reader (round s53C, seed
     * 11010775: sigmoid(d[q]) read by mul and by abs, abs read by
     * transpose[invert(q)] under a dot, kept d[q] in the orders that took
     * the transpose into the dot before the one back had sunk) */
    for (int k = 0; k < x->nusers && !out->u.i; k++)
        *out = rule_bool(unary_chain_ends_in_transpose(x->users[k], a[1].u.ints, a[1].n));
    return true;
}

/* unary_read_back(x, p): see helpers_views.h. */
bool helper_unary_read_back(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *x = a[0].u.in;
    bool yes = false;
    for (int k = 0; k < x->nusers && !yes; k++) {
        const ins *u = x->users[k];
        yes = pointwise_unary(u) && one_reader(u) && transpose_by(u->users[0], a[1].u.ints, a[1].n);
    }
    *out = rule_bool(yes);
    return true;
}

/* canonical_unit_permutation(p, lens): see helpers_views.h. */
bool helper_canonical_unit_permutation(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    const int64_t *p = a[0].u.ints, *l = a[1].u.ints;
    int np = a[0].n;
    if (np != a[1].n || np > SHAPE_MAX_RANK)
        return false;
    /* Result axis i has length l[p[i]]. Give the length-1 result axes the
     * operand's length-1 axes in increasing order, the others the operand's
     * longer axes in the order p gives them. */
    int64_t ones[SHAPE_MAX_RANK];
    int nones = 0, next = 0;
    for (int k = 0; k < np; k++)
        if (l[k] == 1)
            ones[nones++] = k;
    int64_t *r = arena_alloc(mem, sizeof(int64_t) * (size_t)(np > 0 ? np : 1));
    if (!r)
        return false;
    for (int i = 0; i < np; i++) {
        if (p[i] < 0 || p[i] >= np)
            return false;
        r[i] = l[p[i]] == 1 ? ones[next++] : p[i];
    }
    rule_value v = {RV_INTS, np, {.ints = r}};
    *out = v;
    return true;
}

/* reduced_canonical_permutation(q, lens, axes): see helpers_views.h.
 * One step: the positions the reduction's result cannot tell apart (each
 * is of length 1 after it: reduced, or of a length-1 source) take their
 * sources in increasing order. */
static bool reduced_sort_step(int64_t *r, int n, const bool *reduced)
{
    bool changed = false;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; reduced[i] && j < n; j++)
            if (reduced[j] && r[j] < r[i]) {
                int64_t s = r[i];
                r[i] = r[j];
                r[j] = s;
                changed = true;
            }
    return changed;
}

/* Permutation r (of a value of lens l, read by a reduction that leaves
 * the positions marked in `reduced` of length 1) made canonical in place:
 * every position of length 1 after the reduction (a reduced one, or one
 * whose source has length 1) takes the sources of those positions in
 * increasing order; the rules move the reduced axes along with their
 * sources (axes_of). Marks the length-1 positions in `reduced`. */
static void reduced_canonical(int64_t *r, int n, const int64_t *l, bool *reduced)
{
    for (int i = 0; i < n; i++)
        reduced[i] = reduced[i] || l[r[i]] == 1;
    reduced_sort_step(r, n, reduced);
}

bool helper_reduced_canonical_permutation(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    const int64_t *p = a[0].u.ints, *l = a[1].u.ints, *ax = a[2].u.ints;
    int np = a[0].n;
    if (np != a[1].n || np > SHAPE_MAX_RANK || np < 1)
        return false;
    bool reduced[SHAPE_MAX_RANK] = {false}, seen[SHAPE_MAX_RANK] = {false};
    for (int k = 0; k < a[2].n; k++) {
        if (ax[k] < 0 || ax[k] >= np)
            return false;
        reduced[ax[k]] = true;
    }
    int64_t *r = arena_alloc(mem, sizeof(int64_t) * (size_t)np);
    if (!r)
        return false;
    for (int i = 0; i < np; i++) {
        if (p[i] < 0 || p[i] >= np || seen[p[i]])
            return false;
        seen[p[i]] = true;
        r[i] = p[i];
    }
    reduced_canonical(r, np, l, reduced);
    rule_value v = {RV_INTS, np, {.ints = r}};
    *out = v;
    return true;
}

static bool cone_operand(const ins *u, const ins *v);
static bool permutation_vanishes_below(const ins *v, const int64_t *p, int n, const int64_t *base);

/* The canonical permutation c that the cone a dot d with an
 * output_permutation reaches (through single-reader pointwise ops, one of
 * them a two-operand op whose other operand is a cone_operand) gives it
 * (reduced_canonical_permutation of the reduction's axes), or d's own
 * where it reaches no such reduction; and base, the plain product's lens.
 * Structural only: it does not ask whether the transpose that
 * dot_permutation_canonical_for_reduce_of_cone leaves sinks (see
 * helper_cone_reduced_permutation). */
static bool cone_canonical_raw(const ins *d, int64_t *c, int64_t *base)
{
    const ins *v = d;
    const attr_value *q = is_op(d, "dot") ? ins_attr(d, "output_permutation") : NULL;
    int rank = d->sh.rank;
    if (!q || q->n != rank || rank < 1 || rank > SHAPE_MAX_RANK)
        return false;
    bool seen[SHAPE_MAX_RANK] = {false};
    for (int i = 0; i < rank; i++) {
        if (q->u.ints[i] < 0 || q->u.ints[i] >= rank || seen[q->u.ints[i]])
            return false;
        seen[q->u.ints[i]] = true;
        base[q->u.ints[i]] = d->sh.lens[i];
        c[i] = q->u.ints[i];
    }
    bool binary = false; /* without one, dot_permutation_canonical_for_reduce */
    for (int depth = 0; depth <= ABSORBS_TRANSPOSE_MAX_DEPTH; depth++) {
        if (!one_reader(v))
            break;
        const ins *u = v->users[0];
        unsigned cl = u->op->classes;
        bool same_lens = u->nmods == 0 && u->sh.rank == rank &&
                         memcmp(u->sh.lens, d->sh.lens, sizeof(int64_t) * (size_t)rank) == 0;
        if (same_lens && (cl & OPC_UNARY) && u->nargs == 1) {
            v = u;
            continue;
        }
        if (same_lens && (cl & OPC_BINARY) && u->nargs == 2 && cone_operand(u, v)) {
            binary = true;
            v = u;
            continue;
        }
        /* the reduction ends the cone, in the dot's lens or not */
        if ((cl & OPC_REDUCE) && u->nargs == 1 && u->nmods == 0 && binary) {
            const attr_value *ax = ins_attr(u, "axes");
            if (!ax)
                break;
            bool reduced[SHAPE_MAX_RANK] = {false};
            for (int k = 0; k < ax->n; k++) {
                if (ax->u.ints[k] < 0 || ax->u.ints[k] >= rank)
                    return false;
                reduced[ax->u.ints[k]] = true;
            }
            reduced_canonical(c, rank, base, reduced);
        }
        break;
    }
    return true;
}

/* cone_reduced_permutation(d): see helpers_views.h. The cone's canonical
 * permutation c, where the transpose compose(invert(c), q) that the cone
 * rules leave on d[c] vanishes below (permutation_vanishes_below, the walk
 * the rules that would take it back into d ask, so that they wait exactly
 * where it sinks); else d's own q, and the rules do not fire (seeds
 * 4001965, 4016403 with --views T: mul(t(d1[c1]), d2[c2]) under a
 * reduction, d2 already canonical, gave d2 no transpose to merge with, and
 * t stayed on d1 for ever). */
bool helper_cone_reduced_permutation(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    const ins *d = a[0].u.in;
    int64_t c[SHAPE_MAX_RANK], base[SHAPE_MAX_RANK];
    if (!cone_canonical_raw(d, c, base))
        return false;
    const attr_value *q = ins_attr(d, "output_permutation");
    int rank = d->sh.rank;
    bool same = true;
    for (int i = 0; i < rank; i++)
        same = same && c[i] == q->u.ints[i];
    if (!same) {
        /* s = compose(invert(c), q): transpose[s](d[c]) is d[q]; d[c]'s
         * lens are base permuted by c */
        int64_t s[SHAPE_MAX_RANK], lc[SHAPE_MAX_RANK];
        cone_leftover(c, q->u.ints, rank, s);
        for (int i = 0; i < rank; i++)
            lc[i] = base[c[i]];
        if (!permutation_vanishes_below(d, s, rank, lc))
            same = true;
    }
    int64_t *r = arena_alloc(mem, sizeof(int64_t) * (size_t)rank);
    if (!r)
        return false;
    for (int i = 0; i < rank; i++)
        r[i] = same ? q->u.ints[i] : c[i];
    rule_value v = {RV_INTS, rank, {.ints = r}};
    *out = v;
    return true;
}

/* strictly_standard(x): see helpers_views.h. */
bool helper_strictly_standard(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const shape *sh = &a[0].u.in->sh;
    shape std = shape_standard(sh->type, sh->rank, sh->lens);
    *out = rule_bool(!shape_is_tuple(sh) && shape_equal(sh, &std));
    return true;
}

/* ---- pointwise clusters and their lens (cluster_lens) ---- */

static bool is_cluster_op(const ins *x)
{
    unsigned c = x->op->classes;
    return (((c & OPC_UNARY) && x->nargs == 1) || ((c & OPC_BINARY) && x->nargs == 2)) &&
           x->nmods == 0 && !view_is_constant(x);
}

static const ins *past_same_shape_views(const ins *x);
static bool drops_to_shape(const ins *x);
static bool composes_below(const ins *m);

/* The shape two-operand op b would have with operand shapes in[0] and
 * in[1] (its own shape rule), or false where it cannot be computed. */
static bool binary_shape_of(const ins *b, const shape in[2], shape *out)
{
    op_call call = {b->op, b->attrs, in, 2, NULL, 0};
    graft_error err = {0};
    return op_compute_shape(&call, out, &err);
}

/* strides a and b differ on an axis of s longer than 1 (the stride of a
 * length-1 axis addresses no second element). */
static bool long_axes_strides_differ(const shape *s, const int64_t *a, const int64_t *b)
{
    for (int i = 0; i < s->rank; i++)
        if (s->lens[i] != 1 && a[i] != b[i])
            return true;
    return false;
}

/* v's strides reach an output as layout_reaches_output follows them, and
 * also through one-operand pointwise ops, which keep the layout of a
 * packed operand (seed 1019485: neg(sub(t(x), mb(p))) returned). */
static bool layout_reaches_output(const ins *v, int depth);
static bool layout_reaches_output_unary(const ins *v, int depth)
{
    if (depth > VIEW_CLUSTER_MAX)
        return true;
    if (layout_reaches_output(v, depth))
        return true;
    for (int k = 0; k < v->nusers; k++) {
        const ins *r = v->users[k];
        if ((r->op->classes & OPC_UNARY) && r->nargs == 1 && r->nmods == 0 &&
            layout_reaches_output_unary(r, depth + 1))
            return true;
    }
    return false;
}

/* v read with shape `now` in place of its own would give a two-operand
 * reader other strides, length-1 axes aside, which reach an output; a
 * reader whose strides change only on length-1 axes (a stride 0 there: it
 * stays a broadcast or not) is asked the same of its own readers (seed
 * 1004951: mul(t(x), sub(broadcast(p3), broadcast(p4))) returned). */
static bool relayout_reaches_output(const ins *v, const shape *now, int depth)
{
    if (depth > VIEW_CLUSTER_MAX)
        return false;
    for (int k = 0; k < v->nusers; k++) {
        const ins *b = v->users[k];
        if (!(b->op->classes & OPC_BINARY) || b->nargs != 2 || b->nmods > 0 || b->args[0] == b->args[1] ||
            b->sh.rank != v->sh.rank)
            continue;
        shape in[2] = {b->args[0]->sh, b->args[1]->sh};
        in[b->args[0] == v ? 0 : 1] = *now;
        shape rebuilt;
        if (!binary_shape_of(b, in, &rebuilt) || rebuilt.rank != b->sh.rank)
            continue;
        bool any = false, changes = long_axes_strides_differ(&b->sh, b->sh.strides, rebuilt.strides);
        for (int i = 0; i < b->sh.rank; i++)
            any = any || b->sh.strides[i] != rebuilt.strides[i];
        if (changes && layout_reaches_output_unary(b, 0))
            return true;
        if (!changes && any && relayout_reaches_output(b, &rebuilt, depth + 1))
            return true;
    }
    return false;
}

/* m, a broadcast that stretches nothing, made a reshape would give a
 * two-operand reader other strides, which reach an output (see
 * helpers_views.h, reshape_copies_at_output). */
static bool reshape_copies_at_output(const ins *m)
{
    shape std = shape_standard(m->sh.type, m->sh.rank, m->sh.lens);
    return relayout_reaches_output(m, &std, 0);
}

static bool aligned_broadcast(const ins *b);

/* x is a broadcast[axis] that stretches nothing, of v = b(u, u) read by
 * x alone, u a one-operand op of a stretching broadcast[axis] m of a
 * computed value, m read by u alone (or u the transparent pending op
 * unary_above_broadcast leaves above m once m has sunk below the op);
 * neither broadcast puts its value's axes last (such a one becomes a
 * multibroadcast in every order, aligned_broadcast_to_multibroadcast).
 * Once m sinks below u's op (unary_above_broadcast, where its readers take
 * the layout) and below b (binary_above_broadcast_twice), x reads a
 * broadcast[axis] and broadcast_of_broadcast composes the two into one
 * that stretches: to its readers x is that broadcast, not the reshape it
 * is of a standard v, and broadcast_to_reshape waits for it
 * (broadcast_composes_below). The graph whose op ran below m has
 * b(m, m), which keeps m's strides, so its x is never a reshape there:
 * both graphs reach the one broadcast. Not of u itself: a graph whose u
 * ran below its broadcast may have computed a two-operand op of it and
 * another value before x, whose x of a standard value becomes a reshape,
 * where the graph that broadcast each operand on its own composed the
 * broadcasts under this wait (seed 7007034: broadcast[axis=0, {4, 4,
 * 1}](tanh(broadcast[axis=0, {4, 4}](s))) beside another such broadcast
 * under sub, against the core's broadcast of sub(relu, broadcast(tanh))). */
static bool composes_into_axis_broadcast(const ins *x)
{
    if (!is_op(x, "broadcast") || x->nargs != 1 || x->nmods != 0 || aligned_broadcast(x) ||
        shape_elements(&x->sh) != shape_elements(&x->args[0]->sh))
        return false;
    const ins *v = x->args[0];
    if (!((v->op->classes & OPC_BINARY) && v->nargs == 2 && v->args[0] == v->args[1] && v->nmods == 0 && one_reader(v)))
        return false;
    const ins *u = v->args[0];
    bool unary = (u->op->classes & OPC_UNARY) && u->nargs == 1 && u->nmods == 0;
    if (!unary && !(pending_is_transparent(u) && u->nargs == 1))
        return false;
    const ins *m = u->args[0];
    return is_op(m, "broadcast") && m->nargs == 1 && m->nmods == 0 && !aligned_broadcast(m) &&
           shape_broadcasted_p(&m->sh) && !view_is_constant(m->args[0]) && (!unary || one_reader(m));
}

/* A broadcast or multibroadcast that stretches no axis (it only adds
 * length-1 axes) of a standard value: *broadcast_to_reshape make it a
 * reshape, in some orders before the clusters around it are labelled, in
 * others after, so the clusters take it for the reshape it becomes (a free
 * view, looked through), not for a broadcast that ends them. One to its
 * operand's own lens is the same: *broadcast_to_same_shape take it away,
 * in some orders before the clusters are labelled and in others after, so
 * it is looked through too (an identity reshape), never a leaf that ends
 * a cluster (round s26B; seed 1005546: relu(reshape(t(p1))) beside
 * sub(., broadcast[axis](x)) of x's own lens moved above both views only
 * in the orders where the broadcast still stood; also 1023655). Round s25B
 * had found this to run seed 2007864's core out of the rule budget; on top
 * of rounds s25A-D that loop no longer comes (no hard failure on either
 * 100000-seed range). Not one that stays a broadcast at an output
 * (reshape_copies_at_output, round s26D): the clusters moved it up past a
 * pointwise operand of its binary reader, where it became a reshape after
 * all (seed 1019485's sub(mb(sin(p)), t)). Nor one that becomes part of
 * a stretching broadcast once the broadcast below its operand sinks
 * (composes_into_axis_broadcast): broadcast_to_reshape waits for that
 * sink, so the clusters take it for the broadcast it becomes; taken for a
 * reshape, its reader's cluster moved into its operand's lens in the
 * orders that labelled the cluster before the sink, where the others
 * composed the two broadcasts and kept the reader's lens (seed 2015991). */
static bool unit_broadcast(const ins *x)
{
    return broadcast_op(x) && x->nargs == 1 &&
           shape_elements(&x->sh) == shape_elements(&x->args[0]->sh) && shape_standard_p(&x->args[0]->sh) &&
           !reshape_copies_at_output(x) && !composes_into_axis_broadcast(x);
}

/* A shape op (reshape, squeeze, ...: they all compose into reshapes) of a
 * standard value: a free view. (Of another layout it would copy: the
 * cluster takes it as a leaf.) */
static bool is_reshape(const ins *x)
{
    return ((x->op->classes & OPC_SHAPE) || unit_broadcast(x)) && x->nargs == 1 && shape_standard_p(&x->args[0]->sh);
}

/* Every reader of shape op r is a cluster op or a shape op inside too: the
 * reshape is inside the cluster (its operand is what the cluster reads). */
static bool reshape_inside_at(const ins *r, int depth)
{
    if (!is_reshape(r) || r->nusers < 1 || depth > VIEW_CLUSTER_MAX)
        return false;
    /* A reshape that a broadcast below it takes in (reshape_of_multibroadcast)
     * is that broadcast in the reshape's lens: a leaf, not looked through. */
    const ins *m = r->args[0];
    int64_t kc[SHAPE_MAX_RANK];
    if (broadcast_op(m) && !view_is_constant(m->args[0]) &&
        is_op(r, "reshape") && broadcast_view(m, r->sh.lens, r->sh.rank, kc))
        return false;
    /* A reshape of a copying reshape (of a value of another layout) composes
     * with it into one copy (reshape_of_reshape): the two are one leaf, in
     * the outer one's lens, whether they have composed yet or not. */
    if ((m->op->classes & OPC_SHAPE) && m->nargs == 1 && !shape_standard_p(&m->args[0]->sh))
        return false;
    for (int k = 0; k < r->nusers; k++)
        if (!is_cluster_op(r->users[k]) && !reshape_inside_at(r->users[k], depth + 1))
            return false;
    return true;
}

static bool reshape_inside(const ins *r) { return reshape_inside_at(r, 0); }

static bool merges_into_broadcast(const ins *v);
static bool multibroadcasts_merge(const ins *v);

static bool readers_take_broadcast(const ins *v, const ins *u, int depth);

static bool readers_take_broadcast_d(const ins *v, const ins *u, int depth, bool dots);

/* w is a broadcast to its operand's own shape, which
 * multibroadcast_to_same_shape and broadcast_to_same_shape take away with
 * no guard. */
static bool same_shape_broadcast(const ins *w)
{
    return broadcast_op(w) && w->nargs == 1 && w->nmods == 0 && shape_equal(&w->sh, &w->args[0]->sh);
}

/* w is a link of a chain of shape ops that composes with no guard: one
 * that becomes a reshape (becomes_reshape), or such a broadcast (round
 * s80E, seed 1038576: abs(mb[{12, 4}](squeeze(unsqueeze(relu(mb(p)))))) of
 * a {12, 4} squeeze, where relu sank only in the orders that took the
 * broadcast away first). */
static bool identity_link(const ins *w)
{
    return w->nargs == 1 && w->nmods == 0 && (becomes_reshape(w) || same_shape_broadcast(w));
}

/* The chain of identity_shape_chain_end (below) begun by r, any one
 * reader of u (identity_shape_chain_end asks it of u's only reader):
 * returns its end, or NULL. Its links may pass through other lens than
 * u's with length-1 axes added or dropped (such a chain still composes
 * away with no guard, but a broadcast sunk into it is reshaped through
 * those lens, a copy: shape_chain_composes); *unit_only says whether
 * every link only adds or drops length-1 axes of u's lens. One walk
 * answers both, so callers that ask both do not walk the chain twice. */
static const ins *identity_chain_from(const ins *u, const ins *r, bool *unit_only)
{
    *unit_only = false;
    if (r->nargs != 1 || r->args[0] != u || !identity_link(r))
        return NULL;
    const ins *e = r;
    for (int d = 0; d < 2 * VIEW_CLUSTER_MAX && e->nusers == 1 && identity_link(e->users[0]); d++)
        e = e->users[0];
    if (!lens_equal(e->sh.lens, e->sh.rank, u->sh.lens, u->sh.rank))
        return NULL;
    *unit_only = true;
    for (const ins *q = e; q != u && *unit_only; q = q->args[0])
        *unit_only = unit_lens_only(q->sh.lens, q->sh.rank, u->sh.lens, u->sh.rank);
    return e;
}

/* u's one reader begins a chain of shape ops read once, each of which
 * becomes a reshape (becomes_reshape) and only adds or drops length-1
 * axes of u's lens (a squeeze/unsqueeze pair; a chain through other lens
 * is what the clusters build around an op they move, and it holds only
 * until they label again: seed 2038184), that ends in u's own lens: the
 * chain composes into a reshape to u's shape (reshape_of_reshape and the
 * *_to_reshape folds, no guard) and reshape_to_same_shape removes it, so
 * the end's readers are u's readers in every order. Returns the end, or
 * NULL. */
static const ins *identity_shape_chain_end(const ins *u)
{
    if (u->nusers != 1)
        return NULL;
    bool unit_only;
    const ins *e = identity_chain_from(u, u->users[0], &unit_only);
    return unit_only ? e : NULL;
}

/* e is the end of such a chain (identity_shape_chain_end) from u below it:
 * returns u, the value e's readers read once the chain composes away, or
 * e itself. */
static const ins *identity_shape_chain_start(const ins *e)
{
    const ins *w = e, *u = e;
    for (int d = 0; d < 2 * VIEW_CLUSTER_MAX && identity_link(w); d++) {
        w = w->args[0];
        if (identity_shape_chain_end(w) == e)
            u = w;
    }
    return u;
}

/* The u whose broadcast_sinks_below_at fallback asks its readers past
 * unit chains (readers_take_broadcast_d); per thread. */
static _Thread_local const ins *unit_chain_root;

/* One-operand pointwise op u reads a broadcast of a computed value that
 * sinks below it (unary_above_*broadcast: its readers take the layout):
 * to its readers it is a broadcast, whether it has sunk yet or not (seed
 * 18297: mul(sin(mb(x)), k) moved into a cluster's lens in the orders
 * where sin had not sunk yet, and was a leaf in the others).
 *
 * The same holds over a chain of such ops (round s68B): where u reads w, a
 * one-operand op read by u alone whose broadcast sinks below it, w's value
 * is standard again once w has sunk and u then reads w's broadcast, so u's
 * answer is the one it gets then (its readers decide, as above), the same
 * before and after w sinks. Asked only of u right above the broadcast, it
 * followed the orders: seed 1063422's tanh(relu(tanh(broadcast(p0))))
 * reshaped for sub: where the inner tanh and relu sank first, the outer
 * tanh read a broadcast and left the clusters; where it was asked first,
 * relu (reading a broadcast) was its cluster's leaf, the outer tanh moved
 * into sub's lens, and relu, now read by a reshape, stayed above its
 * broadcast. `depth` bounds the chain.
 *
 * Asked past a chain of length-1-axis shape ops that composes away
 * (identity_shape_chain_end), both below u and between u and its readers
 * (round s80C): the chain's end's readers are u's readers once it
 * composes, and asked of the shape op, u answered no until then (seed
 * 1071877: neg(mb(p)) squeezed and unsqueezed for max(unsqueeze(y), .)
 * sank in program order, where max, then reading a broadcast, stayed out
 * of the clusters; in order 7919 binary_into_cluster_lens moved max first
 * and neg stayed above its broadcast). */
static bool broadcast_sinks_below_at(const ins *u, int depth)
{
    if (!pointwise_unary(u) || depth > VIEW_CLUSTER_MAX || !one_reader(u->args[0]))
        return false;
    const ins *m = u->args[0];
    /* past a pending op that only changes the layout (the one u's own sink
     * leaves, which unary_through_pending takes away), read as
     * broadcast_read_through reads it */
    if (pending_is_transparent(m) && !shape_broadcasted_p(&m->sh) && m->nargs == 1 && one_reader(m))
        m = m->args[0];
    /* past a chain of shape ops that composes away (identity_shape_chain_end):
     * u then reads the op below it */
    if (!broadcast_op(m) || same_shape_broadcast(m)) {
        const ins *w = m;
        for (int d = 0; d < VIEW_CLUSTER_MAX && identity_link(w) && one_reader(w); d++)
            w = w->args[0];
        if (w != m && identity_shape_chain_end(w) == m)
            m = w;
    }
    /* or over a two-operand op read by u alone whose multibroadcasts merge
     * below it (merges_into_broadcast): u then reads mb(m) in every order
     * (round s80E, seed 1038576: abs(abs(sub(mb(s), relu(mb(p))))) under a
     * reshape) */
    bool sinks = broadcast_op(m) && m->nargs == 1
                     ? shape_broadcasted_p(&m->sh) && !view_is_constant(m->args[0])
                     : broadcast_sinks_below_at(m, depth + 1) ||
                           (m->nusers == 1 && m->nargs == 2 && multibroadcasts_merge(m) && merges_into_broadcast(m));
    if (!sinks)
        return false;
    if (readers_take_broadcast(u, u, 0))
        return true;
    const ins *e = identity_shape_chain_end(u);
    if (e || u->nusers < 2)
        return e && readers_take_broadcast_d(e, u, 0, false);
    /* u of more readers: each one that begins such a chain is asked past
     * it (readers_take_broadcast_d's chain term, here only: round s83C) */
    const ins *saved = unit_chain_root;
    unit_chain_root = u;
    bool ok = readers_take_broadcast_d(u, u, 0, false);
    unit_chain_root = saved;
    return ok;
}

static bool broadcast_sinks_below(const ins *u) { return broadcast_sinks_below_at(u, 0); }

static bool broadcast_of_computed(const ins *m);

/* Every reader w of u is a two-operand op w(o, u) (either order) whose
 * other operand o is a one-operand op of a stretching broadcast of a
 * computed value, o read by w alone and the broadcast by o alone: the base
 * case of broadcast_sinks_below, but with the answer it would give once u
 * has a standard value. o's one reader w then reads o beside a standard
 * value, which takes a broadcast's layout (readers_take_broadcast's
 * two-operand branch), so broadcast_sinks_below(o) holds and
 * beside_broadcast_readers takes the reshape u's squeeze becomes. While u
 * keeps a broadcast's layout, o waits on u (w's other operand may become a
 * broadcast, broadcast_bound) as u's guards wait on o: the two one-operand
 * ops hold each other (--ops 24 seed 3017929, round s79D). */
static bool beside_sinking_unary(const ins *u)
{
    if (u->nusers == 0)
        return false;
    for (int k = 0; k < u->nusers; k++) {
        const ins *w = u->users[k];
        if (!((w->op->classes & OPC_BINARY) && w->nargs == 2) || w->nmods != 0 || w->args[0] == w->args[1])
            return false;
        const ins *o = other_operand(w, u);
        if (!pointwise_unary(o) || o->nusers != 1 || !one_reader(o->args[0]))
            return false;
        if (!broadcast_of_computed(o->args[0]) || o->args[0]->nmods != 0)
            return false;
    }
    return true;
}

/* beside_sinking_unary(u): see helpers_views.h. */
bool helper_beside_sinking_unary(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(beside_sinking_unary(a[0].u.in));
    return true;
}

/* x is a one-operand pointwise op, or a chain of them, of a broadcast that
 * stretches one computed element (not a constant): its value is that
 * broadcast's, one element's, however far the broadcast has sunk below the
 * chain yet (see reads_broadcast). */
static bool unary_of_one_element_broadcast(const ins *x)
{
    for (int d = 0; d <= VIEW_CLUSTER_MAX && (x->op->classes & OPC_UNARY) && x->nargs == 1 && x->nmods == 0; d++) {
        const ins *m = x->args[0];
        if (broadcast_op(m) && m->nargs == 1 && m->nmods == 0)
            return shape_elements(&m->args[0]->sh) == 1 && shape_elements(&m->sh) > 1 && !view_is_constant(m->args[0]);
        x = m;
    }
    return false;
}

/* x's lens are y's with some length-1 axes dropped (a squeeze of y). */
static bool drops_unit_axes(const int64_t *x, int nx, const int64_t *y, int ny)
{
    int j = 0;
    for (int i = 0; i < nx; i++, j++) {
        while (j < ny && y[j] == 1 && x[i] != 1)
            j++;
        if (j == ny || y[j] != x[i])
            return false;
    }
    while (j < ny && y[j] == 1)
        j++;
    return nx < ny && j == ny;
}

/* z is a shape op, or a broadcast that stretches nothing, which
 * multibroadcast_to_reshape and its like make a reshape (--ops 24 seed
 * 2088655: mb[{1, 2, 1}](p2) of a {2, 1} p2 beside the squeezed
 * broadcast, a reshape in the orders that folded it first). */
static bool becomes_shape_op(const ins *z)
{
    return is_shape_view(z) || (broadcast_op(z) && z->nargs == 1 && z->nmods == 0 &&
                                shape_elements(&z->sh) == shape_elements(&z->args[0]->sh));
}

/* z is a pointwise op reading a shape op, which binary_above_reshapes and
 * unary_above_reshape may take above it by order, so z's lens are not yet
 * settled (--ops 24 seed 3017216: reshape[{4}](reshape[{1, 4, 1}](mul))
 * of mul(reshape[{4}](s1019), reshape[{4}](s1021)), whose chain composes
 * away only in the orders that have not moved mul to {1, 4, 1}). */
static bool over_shape_op(const ins *z)
{
    if (!(z->op->classes & (OPC_UNARY | OPC_BINARY)) || z->nmods != 0)
        return false;
    for (int k = 0; k < z->nargs; k++)
        if (becomes_shape_op(z->args[k]))
            return true;
    return false;
}

/* The value under z's chain of shape ops (becomes_shape_op) each read once
 * and of one operand: z itself when z is no such op. */
static const ins *below_shape_chain(const ins *z)
{
    for (int d = 0; d < VIEW_CLUSTER_MAX && becomes_shape_op(z) && z->nargs == 1 && z->nmods == 0 && z->nusers == 1; d++)
        z = z->args[0];
    return z;
}

/* red = lens with the given axes set to 1 (what a reduction keeps). */
static void reduced_to(const int64_t *lens, int n, const int64_t *axes, int naxes, int64_t *red)
{
    memcpy(red, lens, sizeof(int64_t) * (size_t)n);
    for (int q = 0; q < naxes; q++) {
        int64_t ax = axes[q] < 0 ? axes[q] + n : axes[q];
        if (ax >= 0 && ax < n)
            red[ax] = 1;
    }
}

/* o is a reduction of a reshape read once that reduce_below_reshape takes
 * below it (reduction_maps_through_run: reduction_would_take_run's tests
 * but the two that ask the clusters, which would ask this again), into a
 * reduction of other lens than o's:
 * o becomes reshape(d(x)), a shape op that stays, in every order; the
 * orders that ask before the rule fires see a reduction (--ops 24 seed
 * 7011091: sub(squeeze(sin(mb)), reduce_max(reshape[{3, 3, 3}](s {3, 1, 9})))
 * ran in {1, 3, 3} where the arm came first and in {1, 1, 9} where the
 * reduction had moved). */
static bool reduction_becomes_reshape(const ins *o)
{
    if (!is_reduction(o) || o->nargs != 1 || o->args[0]->nargs != 1)
        return false;
    const ins *q = o->args[0], *x = q->args[0];
    int64_t r[SHAPE_MAX_RANK], l[SHAPE_MAX_RANK];
    int nr = 0;
    if (!reduction_maps_through_run(q, r, &nr))
        return false;
    reduced_to(x->sh.lens, x->sh.rank, r, nr, l);
    return !lens_equal(l, x->sh.rank, o->sh.lens, o->sh.rank);
}

/* z, under a chain of shape ops read once of lens (o's), is a one-operand
 * pointwise op read once that a cluster has moved into other lens: its
 * operand, through shape ops read once, is a value w of those lens that is
 * no shape op or transpose. The chain then only restates u(w) in o's lens,
 * the spelling of the orders that settled u there first (--ops 24 seed
 * 8013519: mul(squeeze(sigmoid(unsqueeze(p10))), squeeze(sin(mb))) read
 * through reshape[{3, 2, 2, 4}] by add: order 7919 first took sigmoid into
 * add's lens, reshape[{3, 1, 16}](sigmoid(reshape[{3, 2, 2, 4}](p10))),
 * order 0 left sigmoid(p10) beside the squeeze). Not where w is itself a
 * pointwise op over a shape op (over_shape_op): its lens are not settled
 * either (--ops 24 seed 5004280: tanh between reshapes of
 * max(reshape(squeeze(relu)), reshape(squeeze(p7))) beside the squeezed
 * broadcast under sub, a new (b) without this). */
static bool moved_back_to(const ins *z, const int64_t *lens, int n)
{
    if (!(z->op->classes & OPC_UNARY) || z->nargs != 1 || z->nmods != 0 || z->nusers != 1)
        return false;
    const ins *w = z->args[0];
    if (!becomes_shape_op(w))
        return false;
    w = below_shape_chain(w);
    return !becomes_shape_op(w) && !is_op(w, "transpose") && !over_shape_op(w) &&
           lens_equal(w->sh.lens, w->sh.rank, lens, n);
}

/* o, the other operand of a two-operand op, is a shape op (becomes_shape_op)
 * or transpose that stays: not a chain of them read once over a value z of o's own
 * lens, which reshape_of_reshape and the identity folds take away (its
 * spelling before they fire is the order's: --ops 24 seed 6006511,
 * reshape[{3}](reshape[{3, 1}](p5)) of a {3} p5 beside the squeezed
 * broadcast). One-operand ops read once above it are looked through: they
 * sink below a transpose by order (unary_above_transpose; seed 1071845:
 * relu(t(s1016)) beside the squeezed broadcast, t(relu(s1016)) in the
 * orders that sank it first). */
static bool other_operand_is_view(const ins *o)
{
    for (int d = 0; d < VIEW_CLUSTER_MAX && (o->op->classes & OPC_UNARY) && o->nargs == 1 && o->nmods == 0 &&
                    o->nusers == 1;
         d++)
        o = o->args[0];
    if (reduction_becomes_reshape(o))
        return true;
    if (!becomes_shape_op(o) && !is_op(o, "transpose"))
        return false;
    const ins *z = below_shape_chain(o);
    if (z != o && moved_back_to(z, o->sh.lens, o->sh.rank))
        return false;
    return z == o || !lens_equal(z->sh.lens, z->sh.rank, o->sh.lens, o->sh.rank) || over_shape_op(z);
}

/* x is read once by a two-operand op y whose cluster may run in lens (the
 * lens of the op reshaped_back_to asks of, the squeezed lens of round
 * s74A's arm) as well as in its own: following x's value, through shape
 * ops and one-operand and two-operand pointwise ops each the one reader of
 * the last, meets a shape op of those lens, or a two-operand op whose
 * other operand is a chain of shape ops read once over a value of those
 * lens, or a value read more than once or by one op twice (whose readers
 * are not followed). Not where the walk ends at a reader that is no
 * pointwise or shape op (a dot, a broadcast, an output) before it meets
 * any: y's cluster then has nothing but the held op to take it there
 * (--ops 24 seed 10009647: mul(reshape[{4, 1}](add), sub) of a {4, 1}
 * sub(sin(p5), abs(p6)), read by a broadcast[axis]), while seed 1021503's
 * outer mul(s1020, reshape[{3, 1}](mul)) is squeezed back to {3} for
 * add(., p4), a tie of {3} and {3, 1} that the labelling breaks by order. */
static bool pulled_to_lens(const ins *x, const int64_t *lens, int n)
{
    for (int d = 0; d < VIEW_CLUSTER_MAX; d++) {
        if (x->nusers != 1)
            return true;
        const ins *y = x->users[0];
        if (is_shape_view(y) && y->nargs == 1) {
            if (lens_equal(y->sh.lens, y->sh.rank, lens, n))
                return true;
        } else if ((y->op->classes & OPC_BINARY) && y->nargs == 2 && y->nmods == 0) {
            if (y->args[0] == y->args[1])
                return true;
            const ins *o = other_operand(y, x), *z = below_shape_chain(o);
            if (z != o && lens_equal(z->sh.lens, z->sh.rank, lens, n))
                return true;
        } else if (!pointwise_unary(y))
            return false;
        x = y;
    }
    return true;
}

/* x's value is reshaped back to lens for a reader that keeps them: x's
 * readers, followed through shape ops and one-operand pointwise ops read
 * once, reach a shape op of those lens (the lens r dropped 1s of), and the
 * chain ends at a reader that is no two-operand op (a dot, a broadcast, an
 * output). x is then in the squeezed lens only because the labelling met
 * it before its operand became r over u(mb) (--ops 24 seed 10009574:
 * sub(p2, reshape[{4}](neg(mb[{4, 1}]))) read through reshape[{4, 1}] by a
 * dot, moved to {4} by binary_into_cluster_lens in order 7919 while neg
 * still read an unsqueeze, to {4, 1} in order 0 after the broadcast sank;
 * --ops 16 seed 16016669: sub moved to {4, 1, 2} while mb(s1022) still
 * stretched nothing), so x stays a cluster op and its cluster takes it
 * back to those lens. Where the chain ends at a two-operand op, that op's
 * cluster may move by order, and holding x where it is keeps the orders
 * together (seed 1021503: mul(reshape[{3}](abs(mb[{3, 1}])), s1025) read
 * through reshape[{3, 1}] by mul(s1020, .), a tie of {3} and {3, 1}
 * otherwise): there the hold stands only where that op's cluster may run
 * in x's squeezed lens too (pulled_to_lens); where it runs in the lens x
 * is reshaped back to in every order, the hold only kept x apart from it
 * (--ops 24 seed 10009647, round s76B: add(reshape[{4}](sin(mb[{4, 1}](dot))),
 * p2) held in {4} and reshaped back for mul(., sub) in {4, 1}, where the
 * core's add reads mb[{4, 1}]: one view more). */
static bool reshaped_back_to(const ins *x, const int64_t *lens, int n)
{
    bool back = false;
    const ins *x0 = x;
    for (int d = 0; d < VIEW_CLUSTER_MAX && x->nusers == 1; d++) {
        const ins *y = x->users[0];
        if (is_shape_view(y) && y->nargs == 1) {
            if (lens_equal(y->sh.lens, y->sh.rank, lens, n))
                back = true;
        } else if (!pointwise_unary(y))
            return back && (!(y->op->classes & OPC_BINARY) || !pulled_to_lens(x, x0->sh.lens, x0->sh.rank));
        x = y;
    }
    return false;
}

/* x, r's one reader, is a two-operand op of two values beside r: a value
 * that is no constant and no shape op or transpose that stays
 * (other_operand_is_view); x is not read once by a broadcast, and its value
 * is not reshaped back to the lens of r's operand (reshaped_back_to). The
 * reader guard of squeeze_read_by_binary and reads_squeezed_unit_broadcast. */
static bool binary_reads_squeeze(const ins *x, const ins *r)
{
    if (!(x->op->classes & OPC_BINARY) || x->nargs != 2 || x->nmods != 0 || x->args[0] == x->args[1])
        return false;
    const ins *o = other_operand(x, r);
    return !view_is_constant(o) && !other_operand_is_view(o) && !read_once_by_broadcast(x) &&
           !reshaped_back_to(x, r->args[0]->sh.lens, r->args[0]->sh.rank);
}

/* x, a two-operand op beside a value that is no constant and no shape op
 * or transpose that stays (other_operand_is_view), not read once by a
 * broadcast, reads a through r, a reshape or squeeze read once that only
 * drops length-1 axes of a one-operand op u of a multibroadcast of one
 * element (unary_of_one_element_broadcast; or of a broadcast[axis] that
 * aligned_broadcast_to_multibroadcast makes one in every order, round
 * s73E: --ops 24 seed 6006511's sin(broadcast[axis=1, {3, 1}](p6)) under
 * add, moved by binary_into_cluster_lens in the orders that met add before
 * the fold): the noisy spelling of the
 * core's squeeze(mb(u(y))), which squeeze_of_unit_multibroadcast_* make
 * mb(reshape(u(y))) under x, and reshape_of_unary_of_*unit_multibroadcast
 * (squeeze_read_by_binary) make u of such a broadcast: x reads a
 * broadcast in either spelling (--ops 24 seed 4014095). */
static bool reads_squeezed_unit_broadcast(const ins *x, const ins *r)
{
    return (is_op(r, "reshape") || is_op(r, "squeeze")) && r->nargs == 1 && r->nmods == 0 && r->nusers == 1 &&
           drops_unit_axes(r->sh.lens, r->sh.rank, r->args[0]->sh.lens, r->args[0]->sh.rank) &&
           unary_of_one_element_broadcast(r->args[0]) && r->args[0]->nargs == 1 &&
           multibroadcast_spelling(r->args[0]->args[0]) && binary_reads_squeeze(x, r);
}

static const ins *past_unit_views(const ins *y);
static bool broadcast_read_through(const ins *a);

/* The value a one-element y is computed from: y past its views of one
 * element and its one-operand pointwise ops of one element. The same in
 * every spelling the rules give the one element (unary_above_
 * multibroadcast, unary_into_cluster_lens, reshape_of_multibroadcast,
 * binary_above_reshape_unit_* move the reshapes of one element and the
 * ops among them, not what they read). */
static const ins *one_element_root(const ins *y)
{
    for (int d = 0; d < 4 * VIEW_CLUSTER_MAX && y->nargs == 1 && y->nmods == 0 &&
                    ((y->op->classes & (OPC_VIEW | OPC_SHAPE)) || pointwise_unary(y)) &&
                    shape_elements(&y->args[0]->sh) == 1;
         d++)
        y = y->args[0];
    return y;
}

/* a is a multibroadcast (or a broadcast[axis] that aligned_broadcast_to_
 * multibroadcast makes one) that stretches one computed element y (no
 * constant), y past its views of one element a one-operand pointwise op
 * u: mb(u(y')), the spelling unary_above_multibroadcast makes of
 * u(mb(y')). */
static bool one_element_multibroadcast(const ins *a)
{
    if (!((is_op(a, "multibroadcast") || aligned_broadcast(a)) && a->nargs == 1 && a->nmods == 0 &&
          shape_elements(&a->args[0]->sh) == 1 && shape_elements(&a->sh) > 1 && !view_is_constant(a->args[0])))
        return false;
    /* u past the views of one element too, and only where the value
     * the element is computed from (one_element_root) has another rank
     * than the broadcast: asked of what every spelling of the one element
     * shares (round s77B; round s76C asked for u itself, which went by
     * the spelling the rules change: tuning seed 1046528's max(mb[{2, 1,
     * 4}](sigmoid(reshape[{1, 1}](p0 {1, 1, 1}))), literal) ran in {2, 4}
     * in the orders that met it before unary_into_cluster_lens made the
     * broadcast read reshape[{1, 1}](sigmoid(p0)), in {2, 1, 4} in the
     * others; where the ranks agree the leaf is freed in no other lens,
     * and the op stays out as on the base: tuned seed 10391's add(literal,
     * mb[{2}](neg(p1 {1}))) under a broadcast[axis]. The golden the u
     * itself test was for, binary_above_reshape_unit_first.
     * read_directly_by_settled_cluster, is unit_broadcast_in_reach's) */
    const ins *u = past_unit_views(a->args[0]);
    return u && pointwise_unary(u) && one_element_root(u)->sh.rank != a->sh.rank;
}

/* o is a literal, or a two-operand op of a literal and a multibroadcast of
 * one computed element: the other operand b reads beside mb(y) in the
 * spellings reshape_of_binary_of_*_unit_multibroadcast take. A literal is
 * any constant (view_is_constant): constant folding makes it one in every
 * order, and the answer must not wait for the fold (round s78B: range
 * seed 6006245's mul(sigmoid(literal), mb[{1, 3}](neg(p {1}))) squeezed
 * for a broadcast was a cluster op and moved into {3} in the orders that
 * met it before fold_constant_pointwise, and stayed in {1, 3} in the
 * others). */
static bool literal_or_binary_of_literal(const ins *o)
{
    if (view_is_constant(o))
        return true;
    if (!(o->op->classes & OPC_BINARY) || o->nargs != 2 || o->nmods != 0)
        return false;
    for (int j = 0; j < 2; j++) {
        const ins *m = o->args[j], *l = o->args[1 - j];
        if (view_is_constant(l) && is_op(m, "multibroadcast") && m->nargs == 1 &&
            shape_elements(&m->args[0]->sh) == 1 && !view_is_constant(m->args[0]))
            return true;
    }
    return false;
}

/* Rules that already take x with its one-element broadcast operand (round
 * s76C): a shape op (a reshape, or a squeeze or unsqueeze, which
 * squeeze_to_reshape make one) reading x once beside a literal or a binary
 * of a literal: reshape_of_binary_of_*_unit_multibroadcast* move it into x
 * (the goldens of that family), where the cluster raced them and took x
 * first into lens that left a view more. */
static bool unit_broadcast_read_taken(const ins *x, const ins *o)
{
    /* the reshape's guard reshape_settles_below_readers asks that it feed
     * no output (feeds_output): there the rules leave x, and the cluster
     * takes it (--ops 16 seed 16009015: max(literal, mb[{1, 1, 3}](sin))
     * squeezed for the output ran in {1, 1, 3} under the reshape, its
     * core's max in {1, 3}) */
    if (x->nusers == 1 && is_shape_op(x->users[0]) && literal_or_binary_of_literal(o))
        return !feeds_output(x->users[0]);
    /* or the other operand is the reshape those rules take, read once,
     * of a binary of a literal (the rules' first spelling of b then
     * meets x: goldens reshape_of_binary_of_binary_of_literal_*) */
    return is_shape_op(o) && o->nusers == 1 && !view_is_constant(o->args[0]) &&
           literal_or_binary_of_literal(o->args[0]);
}

/* v is computed from no shape op through pointwise ops: its lens are its
 * own, not the ones a cluster moved it into (unary_into_cluster_lens and
 * binary_into_cluster_lens leave the op reading reshapes). */
static bool reads_no_shape_op(const ins *v, int depth)
{
    if (is_shape_view(v))
        return false;
    if (!(v->op->classes & (OPC_UNARY | OPC_BINARY)) || (v->op->classes & (OPC_BUILTIN | OPC_OPAQUE | OPC_REGION)) ||
        depth >= VIEW_CLUSTER_MAX)
        return true;
    for (int k = 0; k < v->nargs; k++)
        if (!view_is_constant(v->args[k]) && !reads_no_shape_op(v->args[k], depth + 1))
            return false;
    return true;
}

/* x is free in any lens beside a value: a constant, or a broadcast of one
 * element (the in-reach walk passes the two-operand ops it is read by). */
static bool free_beside(const ins *x)
{
    return view_is_constant(x) || (broadcast_op(x) && x->nargs == 1 && shape_elements(&x->args[0]->sh) == 1);
}

/* The value the in-reach walk (unit_broadcast_in_reach) reaches from v:
 * past shape ops, one-operand pointwise ops and two-operand ones beside a
 * value free in any lens (free_beside), and past a two-operand op of two
 * computed values where the walks into both operands (one where they are
 * the same) reach computed values of one rank that are no shape op (the
 * first of them is taken); else the walk stops at that op. *budget bounds
 * the steps of the whole walk (a value read on two paths is walked on
 * each). Round s78B: the cluster moves a two-operand op of two computed
 * values too (binary_into_cluster_lens), so asked of that op the rank
 * went by whether the op had moved yet (range seeds 6005039: max(mul {1,
 * 1, 2}, mb(neg(s {1, 1}))) was out of reach and ran in its reader's
 * {2, 1} in the orders that met max first, in reach and taken into {1, 2}
 * by binary_above_reshape_unit_first in the others, where mul had moved
 * into {1, 2}; 8016803: sub(reshape(mul(r, r)), mb(relu(p {1})))); and a
 * one-element broadcast beside is free as a constant is (range seed
 * 4011341: max(mb(sigmoid(s {1, 1})), mul(reshape(p {1, 3}), mb(s2 {1,
 * 1}))) went by whether binary_above_reshape_unit_first had taken mul into
 * {1, 3} yet). */
static const ins *in_reach_value(const ins *v, int *budget)
{
    while (*budget > 0) {
        --*budget;
        if (is_shape_op(v) || pointwise_unary(v)) {
            v = v->args[0];
            continue;
        }
        if (!((v->op->classes & OPC_BINARY) && v->nargs == 2 && v->nmods == 0 &&
              !(v->op->classes & (OPC_BUILTIN | OPC_OPAQUE | OPC_REGION))))
            break;
        bool c0 = free_beside(v->args[0]), c1 = free_beside(v->args[1]);
        if (c0 != c1) {
            v = v->args[c0 ? 1 : 0];
            continue;
        }
        if (c0)
            break;
        if (v->args[0] == v->args[1]) {
            v = v->args[0];
            continue;
        }
        const ins *l = in_reach_value(v->args[0], budget), *r = in_reach_value(v->args[1], budget);
        if (l->sh.rank != r->sh.rank || is_shape_view(l) || is_shape_view(r) || view_is_constant(l) ||
            view_is_constant(r))
            return v;
        return l;
    }
    return v;
}

/* The other operand o, past its shape ops, one-operand pointwise ops,
 * two-operand ones beside a constant and those in_reach_value passes, is
 * a computed value v of the rank
 * of the value the one element is computed from (one_element_root), o
 * is v's lens up to 1s or merged axes (no split), and v reads no shape
 * op: the lens the element is free in are v's own, and
 * binary_above_reshape_unit_* take x there (b(reshape(v), mb(reshape[1s](
 * y))) -> reshape(b(v, mb(y)))), where the broadcast reads y itself. x
 * is no cluster op in either spelling (round s77B; tuning seed 1091382:
 * sub(reshape[{2, 2}](p1 {2, 1, 2}), mb[{2, 2}](reshape[{1, 1}](neg(p2
 * {1, 1, 1})))) was no cluster op by round s76C's u itself test,
 * binary_above_reshape_unit_first took it into {2, 1, 2} as sub(p1,
 * mb(neg)), a cluster op that binary_into_cluster_lens took back into
 * {2, 2}, and round; golden binary_above_reshape_unit_first.
 * read_directly_by_settled_cluster). Asked of v past the ops a cluster
 * moves, which are v in every order: asked of o itself, the answer went
 * by whether o's op had moved into x's cluster lens yet and the op went
 * in and out of the cluster (loops of 11002643's and 1063566's minimal
 * cases with tanh, of 16017225's with max(s, reshape(p)); ties of
 * 1009393 (relu) and tuned 4878 (add of a literal)); and not where v's
 * lens would split (tuned seed 6491: mul(reshape[{1, 3, 4, 2}](s {24}),
 * mb(reshape[{1, 1, 1}](relu(k {1})))), which those rules do not take. */
static bool unit_broadcast_in_reach(const ins *x, const ins *a, const ins *o)
{
    int budget = 4 * VIEW_CLUSTER_MAX;
    const ins *v = in_reach_value(o, &budget);
    if (is_shape_view(v) || view_is_constant(v) || one_element_root(a->args[0])->sh.rank != v->sh.rank ||
        splits_axes(o->sh.lens, o->sh.rank, v->sh.lens, v->sh.rank) || !reads_no_shape_op(v, 0))
        return false;
    /* and x's value goes back to v's lens, as the rules' guard
     * reshaped_back_outside asks (its structural part: the run of shape
     * ops reading x ends in v's lens up to 1s, or x itself has them with
     * no run; the guard's questions to the readers' clusters would go in
     * a circle here): where x's value is reshaped to other lens the rules
     * leave x, and only the cluster takes it (range seed 11014581: add(
     * reshape[{1, 64}](mul {64}), mb[{1, 64}](abs(p2 {1}))) reshaped to
     * {1, 4, 4, 4} for the output stayed in {1, 64} in the orders that
     * folded mul's squeeze first, and ran in {64} in the others) */
    const ins *last = reshaped_to_run(x);
    const ins *end = last ? last : x;
    return unit_lens_only(end->sh.lens, end->sh.rank, v->sh.lens, v->sh.rank);
}

/* Two-operand x reads, as operand k (past the views reads_broadcast reads
 * through: a), mb(u(y)) of one computed element, and its other operand is
 * no such broadcast nor u of one (the both-operands case below stays),
 * and x is not read once by a broadcast (the common-dims rules take x
 * above that broadcast, as they take the core's mul(k, mb(relu(abs(p))))
 * under a broadcast[axis]: seed 1005181): x is a cluster op and mb(u(y))
 * its leaf, priced as leaf_costs prices u(mb(y)) (free in its own lens
 * and in the lens of its operand's rank, leaf_unit_broadcast_rank), so
 * that the spelling in which u has sunk below the broadcast
 * (unary_above_multibroadcast), or which the core has, reaches the lens
 * the freed leaf u(mb(y)) reaches (round s76A: --ops 24 seed 12002724's
 * core max(mb[{3, 1, 1}](neg(k {1, 1})), literal) under abs and a squeeze
 * to {3, 1} stayed in {3, 1, 1}, its noisy graph's max of the freed
 * neg(mb) ran in {3, 1}; also 11002643, 3005090, --ops 16 16017225). */
static bool one_element_broadcast_read(const ins *x, int k, const ins *a)
{
    if (x->nargs != 2 || x->nmods != 0 || x->args[0] == x->args[1] || !(x->op->classes & OPC_BINARY) ||
        !one_element_multibroadcast(a) || read_once_by_broadcast(x))
        return false;
    const ins *o = x->args[1 - k];
    if (unit_broadcast_read_taken(x, o))
        return false;
    if (unit_broadcast_in_reach(x, a, o))
        return false;
    for (int depth = 0; depth < VIEW_CLUSTER_MAX && broadcast_read_through(o); depth++)
        o = o->args[0];
    return !one_element_multibroadcast(o) && !unary_of_one_element_broadcast(o);
}

/* reads_broadcast walks up from an operand through a while this holds:
 * shape ops, transposes and unit broadcasts of one operand. A pending op that only
 * changes the layout (transparent) is read through as the shape ops are:
 * every reader takes its operand in every order (view_through_pending,
 * reshape_of_pending, unary_through_pending and binary_through_pending_* in
 * pending.rules, and shapes_resolve for what is left), so what x reads is
 * the pending op's operand, and the answer must not depend on whether the
 * pending op has gone yet (seed 1071873: max(reshape(pending(mb(y))), .)
 * with the pending op left by binary_above_multibroadcasts_into_first
 * counted as a cluster op, and reduce_below_reshape took max's reshape, in
 * the orders that asked before reshape_of_pending fired). Not a pending op
 * whose own strides hold a 0: it keeps a broadcast's layout (a unit-axis
 * multibroadcast_to_reshape leaves one), the stride test below already reads
 * it as a broadcast, and the walk would only lose that (golden
 * binary_into_cluster_lens.sink_read_by_binary_of_unit_stride, once
 * .not_sink_read_by_binary_above_reshapes: sub(pending(reshape(s)), ..)
 * under mul, whose wait in cluster_of stops the s49C loop, looped again;
 * since round s74B, merges_into_broadcast no longer counts sub's own
 * stride 0 on a length-1 axis, mul is a cluster op there and
 * binary_into_cluster_lens moves it, to the same graph). */
static bool broadcast_read_through(const ins *a)
{
    return (shape_view_or_transpose(a) || unit_broadcast(a) ||
            (pending_is_transparent(a) && !shape_broadcasted_p(&a->sh))) &&
           a->nargs == 1;
}

/* Pointwise op x reads a broadcast (through shape ops and transposes: a
 * transposed broadcast folds into a broadcast literal, and the answer must
 * not depend on whether it has yet), or a literal that constant folding
 * made from one, or a constant with a broadcast's layout that folds into
 * such a literal (folding keeps the exact shape), or a binary op whose
 * broadcasts merge into one (merges_into_broadcast: in some orders they
 * have already): the common-dims rules move it (GroupNorm), so it bounds
 * the clusters around it. */
static bool reads_broadcast(const ins *x)
{
    for (int k = 0; k < x->nargs; k++) {
        const ins *a = x->args[k];
        for (int depth = 0; depth < VIEW_CLUSTER_MAX && broadcast_read_through(a); depth++)
            a = a->args[0];
        if (one_element_broadcast_read(x, k, a))
            continue;
        /* the stride test first: it is cheap, and view_is_constant walks
         * up to VIEW_CONSTANT_MAX_DEPTH operands */
        if (shape_broadcasted_p(&a->sh) &&
            (broadcast_op(a) || is_op(a, "@literal") || view_is_constant(a)))
            return true;
        if (merges_into_broadcast(a))
            return true;
        if (broadcast_sinks_below(a))
            return true;
        /* A one-operand op x reading (through shape ops) u(mb(k)) of a
         * one-element k reads a broadcast whether u's broadcast has sunk
         * below u yet or not: u sinks once the shape ops between compose
         * away (u is then read by x, a one-operand op, so its readers take
         * the layout), and in the orders that asked first x took u for a
         * cluster leaf and moved into the lens of x's reader, below the
         * shape ops, where u, read by a reshape, kept its broadcast above
         * it (seed 1001305: abs(unsqueeze(squeeze(abs(mb(p1))))) read by
         * add(., p0) ended as abs(mb(abs(p1))) reshaped for add, or as
         * mb(p1) under abs, the reshape and abs; also 1015150, 1014855,
         * 1023407, 1026238). The same answer for u above or below its
         * broadcast: x is in no cluster and meets u (unary_above_reshape,
         * or the shape ops compose), u's broadcast sinks below u, and x,
         * read by a reshape, keeps its broadcast above it in every order
         * (1001305: abs(mb(abs(p1))) reshaped for add). Not for a
         * two-operand x: bound by u, it leaves the clusters for the
         * common-dims rules, which race with the merges of its other
         * operand's reshapes (seeds 1051156, 1043432, 1038748:
         * add(reshape(abs(mb(p0))), reshape(s)) ran in either operand's
         * lens by order). */
        if (x->nargs == 1 && unary_of_one_element_broadcast(a))
            return true;
        if (reads_squeezed_unit_broadcast(x, x->args[k]))
            return true;
    }
    /* A two-operand x both of whose operands (through shape ops) are such
     * u(mb(k)) of one-element values reads broadcasts too (round s29A).
     * The exclusion above is for an operand that is a full value, whose
     * lens the common-dims rules race for; here neither operand has lens
     * of its own (each computes one element), so x leaves the clusters in
     * every order, and binary_above_reshapes (in_reshape_cluster says no)
     * takes x above reshapes of one lens, as it takes the GroupNorm SiLU
     * that unary_above_reshape leaves on a shared reshape: one reshape for
     * two. Before, the core's sub(r, tanh(r)) of r = reshape(tanh(mb(p0)))
     * of a {1} p0 became sub(r, reshape(tanh(tanh(mb(p0))))) (tanh is in
     * no cluster: the one-operand case above) and sub, a cluster op, kept
     * both reshapes: three views where the core had two (seed 1011580). */
    if (x->nargs == 2 && x->args[0] != x->args[1]) {
        bool both = true;
        for (int k = 0; k < 2 && both; k++) {
            const ins *a = x->args[k];
            for (int depth = 0; depth < VIEW_CLUSTER_MAX && broadcast_read_through(a); depth++)
                a = a->args[0];
            both = unary_of_one_element_broadcast(a);
        }
        if (both)
            return true;
    }
    return false;
}

/* Pending op p is read by an op that takes it in (pending.rules), not only
 * by the program's outputs, which keep it (their shapes stay). */
static bool pending_taken(const ins *p)
{
    if (!ins_is_pending(p))
        return false;
    for (int k = 0; k < p->nusers; k++)
        if (!is_op(p->users[k], "@return"))
            return true;
    return false;
}

/* At most this many clusters are labelled together (group_labelled_lens),
 * over at most GROUP_TUPLES tuples of root candidates. A cluster of a group
 * has two candidates or more (its sink's lens and a leaf's, the group's
 * union), so GROUP_MAX is log2 of GROUP_TUPLES: the tuple budget is the
 * bound that counts. With 3, a tree of pointwise ops each its own root (an
 * op with two readers of different roots) fell back to labelling each
 * alone, and each tied to its leaf's lens in turn (seed 1063096). */
enum { GROUP_MAX = 12, GROUP_TUPLES = 4096 };

typedef struct cluster {
    const ins *ops[VIEW_CLUSTER_MAX];
    int nops;
    const ins *leaves[VIEW_CLUSTER_MAX]; /* distinct */
    int nleaves;
    int64_t sink[SHAPE_MAX_RANK];
    int nsink;
    /* > 0: the sink is read only by multibroadcasts, the least of rank
     * this (sink_read_by_multibroadcasts), which read any lens equal to
     * the sink's but for leading 1s as well (multibroadcast_of_unit_reshape
     * drops such a reshape): each of them costs nothing, and sink holds
     * the one without leading 1s */
    int sink_loose;
    /* the sink is the root's own lens because the op reading the end of
     * its reshape chain moves into them (see cluster_of): group_cost weighs
     * it by sink_cost, not by that op's present lens */
    bool sink_mover;
    bool sink_trimmed; /* leading 1s were dropped from the sink (sink_loose) */
    /* the sink is read by one reduction over red_axes (of the sink's
     * lens), whose value is reshaped to red_to below it: see sink_cost */
    const ins *red;
    int64_t red_axes[SHAPE_MAX_RANK];
    int nred_axes;
    int64_t red_to[SHAPE_MAX_RANK];
    int nred_to;
    int red_loose; /* as sink_loose, for red_to */
    bool red_self; /* the walk to red_end stopped at red itself or at a chain
                    * of reshapes of it that only move 1s (not taken back to it),
                    * whose readers follow the lens the cluster gives them */
    bool red_unary; /* a pointwise op stands between the reduction and red_to */
    const ins *red_end; /* the end of that chain, in red_to */
    /* red_to is the label of a paired upper cluster (reduction_leaf_costs):
     * a reshape below the reduction to it stays unless the reduction can
     * end in those lens (reduction_reaches) */
    bool red_paired;
    const ins *root;
    bool ok;
    bool pending; /* !ok because a pending op stands inside (see helper_in_reshape_cluster) */
    bool unit_red; /* pending because a leaf reduction still loses its unit axes (cluster_collect) */
    /* the other clusters labelled together with this one (group_labelled_lens):
     * their ops are no readers outside it (reshaped_outside) */
    const struct cluster *grp[GROUP_MAX - 1];
    int ngrp;
} cluster;

static bool cluster_has(const ins *const *v, int n, const ins *x)
{
    for (int k = 0; k < n; k++)
        if (v[k] == x)
            return true;
    return false;
}

/* The root of the cluster that pointwise op x belongs to (cluster_root):
 * where every reader of x's value, through reshapes of it (any number of
 * readers each), is a cluster op that reads no broadcast, and all of those
 * have one root, that root; else x itself. An op read once through a shape
 * op that several cluster ops read is the same op as one those readers read
 * through reshapes of their own: reshape_of_reshape splits the one into the
 * other, and a cluster op moved into its lens reads x directly. So x's
 * cluster must not depend on which of those the rules have reached yet
 * (seed 1295: add(s, unsqueeze(p)) squeezed and read by sub and, through a
 * reshape, by sin, ran in {3, 2, 4} where sin had not moved yet and in
 * {3, 2, 4, 1} where it had and the add had two readers). The walk visits
 * at most CLUSTER_ROOT_BUDGET ops; past that x is its own root. */
enum { CLUSTER_ROOT_BUDGET = 64 };

static const ins *cluster_root_at(const ins *x, int depth, int *budget);

/* The one root of every cluster op reading v through reshapes, in *root
 * (NULL if none yet); false where a reader is anything else or roots
 * differ. */
static bool readers_root(const ins *v, const ins **root, int depth, int *budget)
{
    if (v->nusers < 1 || depth > VIEW_CLUSTER_MAX)
        return false;
    for (int k = 0; k < v->nusers; k++) {
        const ins *u = v->users[k];
        if (u == v)
            return false;
        if (is_reshape(u)) {
            if (!readers_root(u, root, depth + 1, budget))
                return false;
            continue;
        }
        if (!is_cluster_op(u) || reads_broadcast(u))
            return false;
        const ins *r = cluster_root_at(u, depth + 1, budget);
        if (*root && *root != r)
            return false;
        *root = r;
    }
    return true;
}

static const ins *cluster_root_at(const ins *x, int depth, int *budget)
{
    if (depth > VIEW_CLUSTER_MAX || --*budget < 0)
        return x;
    const ins *root = NULL;
    if (!readers_root(x, &root, depth, budget) || !root || *budget < 0)
        return x;
    return root;
}

static const ins *cluster_root(const ins *x)
{
    int budget = CLUSTER_ROOT_BUDGET;
    return cluster_root_at(x, 0, &budget);
}

/* Reduction d reads a reshape (read once) and keeps a length-1 axis that it
 * does not reduce (seed 1008883: a cluster that took a lens
 * before reduce_without_unit_axes fired kept the reduction's 1s). */
static bool reduction_keeps_unit_axes(const ins *d)
{
    const ins *r = d->nargs == 1 ? d->args[0] : NULL;
    const attr_value *ax = ins_attr(d, "axes");
    if (!r || !(r->op->classes & OPC_SHAPE) || !shape_standard_p(&r->args[0]->sh) || !one_reader(r) || !ax ||
        view_is_constant(r->args[0]))
        return false;
    for (int k = 0; k < r->sh.rank; k++) {
        bool reduced = false;
        for (int j = 0; j < ax->n; j++)
            reduced = reduced || ax->u.ints[j] == k;
        if (r->sh.lens[k] == 1 && !reduced)
            return true;
    }
    return false;
}

/* x, through shape ops and broadcasts, is a value of one element, which
 * every lens takes (the clusters' one-element family: left alone). */
static bool one_element_below(const ins *x)
{
    for (int d = 0; d <= VIEW_CLUSTER_MAX && x->nargs == 1 &&
                    ((x->op->classes & OPC_SHAPE) || broadcast_op(x));
         d++)
        x = x->args[0];
    return shape_elements(&x->sh) == 1;
}

/* ---- leaves that change in every order before the cluster judges them ---- */

/* Transpose t goes whatever reads it: identity_transpose,
 * transpose_to_same_shape or unit_axes_transpose drops it (their guards). */
static bool transpose_folds(const ins *t)
{
    if (!is_op(t, "transpose") || t->nargs != 1)
        return false;
    const ins *x = t->args[0];
    const attr_value *p = ins_attr(t, "permutation");
    if (!p || p->kind != ATTR_INTS || p->n != x->sh.rank || p->n != t->sh.rank)
        return false;
    return ops_is_identity_permutation(p->u.ints, p->n) || shape_equal(&t->sh, &x->sh) ||
           (lens_equal(t->sh.lens, t->sh.rank, x->sh.lens, x->sh.rank) && moves_unit_axes_only(p->u.ints, p->n, x->sh.lens));
}

static bool shared_by_rising(const ins *t);

/* reduce_below_transpose's guard, asked of reduction d: it takes the
 * transpose d reads (read once, of no transpose) below d. The rule's own
 * helpers, in the rule's own combination (rules/reshape.rules). */
static bool reduce_sinks_transpose(const ins *d)
{
    if (!is_reduction(d) || d->nargs != 1)
        return false;
    ins *t = d->args[0];
    if (!is_op(t, "transpose") || t->nargs != 1 || !one_reader(t) || is_op(t->args[0], "transpose"))
        return false;
    ins *x = t->args[0];
    const attr_value *p = ins_attr(t, "permutation"), *ax = ins_attr(d, "axes");
    int rank = x->sh.rank;
    if (!p || p->kind != ATTR_INTS || p->n != rank || !ax || ax->kind != ATTR_INTS || ax->n > rank ||
        rank > SHAPE_MAX_RANK || d->sh.rank != rank)
        return false;
    /* l = reduced_lens(x.lens, axes_of(p, a)) */
    int64_t l[SHAPE_MAX_RANK];
    memcpy(l, x->sh.lens, sizeof(int64_t) * (size_t)rank);
    for (int i = 0; i < ax->n; i++) {
        int64_t j = ax->u.ints[i] < 0 ? ax->u.ints[i] + rank : ax->u.ints[i];
        if (j < 0 || j >= rank || p->u.ints[j] < 0 || p->u.ints[j] >= rank)
            return false;
        l[p->u.ints[j]] = 1;
    }
    if (shape_equal(&t->sh, &x->sh))
        return false;
    rule_value r, a_t = rule_ins(t), a_x = rule_ins(x), a_d = rule_ins((ins *)d);
    if (!helper_duplicated_transpose(NULL, &a_t, 1, &r) || r.u.i)
        return false;
    if (!helper_meets_transpose_past_operand(NULL, &a_t, 1, &r) || r.u.i)
        return false;
    if (shared_by_rising(t))
        return false;
    bool absorbs = view_absorbs_transpose(x, p->u.ints, p->n);
    bool pending = helper_broadcast_past_pending(NULL, &a_x, 1, &r) && r.u.i;
    bool settles = helper_transposes_settle_below(NULL, &a_d, 1, &r) && r.u.i;
    bool unit = lens_equal(d->sh.lens, d->sh.rank, l, rank) && moves_unit_axes_only(p->u.ints, rank, l);
    bool vanishes = helper_vanishes_composed_below(NULL, &a_t, 1, &r) && r.u.i;
    return (!absorbs && (!pending || settles)) || unit || vanishes;
}

/* transpose_above_reduce's or transpose_above_reduce_shared's guard,
 * asked of transpose t of a reduction read once: it rises above the
 * reduction. The rules' own helpers, in their own combination. With
 * shared, as if the reduction's operand already had a transpose of t's
 * permutation (has_transpose). */
static bool transpose_rises_above_reduce(const ins *t, bool shared)
{
    if (!is_op(t, "transpose") || t->nargs != 1)
        return false;
    ins *d = t->args[0];
    if (!is_reduction(d) || d->nargs != 1 || !one_reader(d) || view_is_constant(d))
        return false;
    ins *x = d->args[0];
    const attr_value *p = ins_attr(t, "permutation");
    if (!p || p->kind != ATTR_INTS || p->n != t->sh.rank || p->n != d->sh.rank)
        return false;
    if (lens_equal(t->sh.lens, t->sh.rank, d->sh.lens, d->sh.rank) && moves_unit_axes_only(p->u.ints, p->n, d->sh.lens))
        return false;
    rule_value r, a_t = rule_ins((ins *)t), px = {RV_INTS, p->n, {.ints = p->u.ints}};
    rule_value a_x_p[2] = {rule_ins(x), px};
    if (!helper_merges_at_reader(NULL, &a_t, 1, &r) || r.u.i)
        return false;
    if (view_absorbs_transpose(x, p->u.ints, p->n))
        return helper_vanishes_composed_below(NULL, &a_t, 1, &r) && !r.u.i;
    return (shared || (helper_has_transpose(NULL, a_x_p, 2, &r) && r.u.i)) && helper_vanishes_below(NULL, &a_t, 1, &r) &&
           !r.u.i;
}

/* shared_by_rising(t): see helpers_views.h. */
static bool rises_to_share(const ins *v, const int64_t *p, int np, bool shared)
{
    return is_reduction(v) && v->nargs == 1 && one_reader(v) && transpose_by(v->users[0], p, np) &&
           transpose_rises_above_reduce(v->users[0], shared);
}

static bool shared_by_rising(const ins *t)
{
    if (!is_op(t, "transpose") || t->nargs != 1)
        return false;
    const ins *x = t->args[0];
    const attr_value *p = ins_attr(t, "permutation");
    if (!p || p->kind != ATTR_INTS)
        return false;
    for (int k = 0; k < x->nusers; k++) {
        const ins *v = x->users[k];
        if (v == t)
            continue;
        if (rises_to_share(v, p->u.ints, p->n, false))
            return true;
        /* a transpose that goes in every order, its readers then reading x
         * (identity_transpose, transpose_to_same_shape) */
        const attr_value *q = ins_attr(v, "permutation");
        if (!is_op(v, "transpose") || v->nargs != 1 || !q || q->kind != ATTR_INTS || q->n != x->sh.rank ||
            !(ops_is_identity_permutation(q->u.ints, q->n) || shape_equal(&v->sh, &x->sh)))
            continue;
        /* the reduction then reads x, which has t: asked as the shared
         * rule asks it */
        for (int j = 0; j < v->nusers; j++)
            if (rises_to_share(v->users[j], p->u.ints, p->n, true))
                return true;
    }
    return false;
}

bool helper_shared_by_rising(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(shared_by_rising(a[0].u.in));
    return true;
}

/* Leaf x of a cluster becomes, in every order and before the cluster's ops
 * can move, a reduction that reshape_of_reduce_of_reshape lets run in lens
 * that differ from its own by 1s (leaf_takes_unit_reshape; its reshape
 * operand read once): x is a transpose that folds away (identity_transpose,
 * transpose_to_same_shape, unit_axes_transpose) over such a reduction; or a
 * transpose of a reduction read once that reads a transpose read once of a
 * reshape read once, where transpose_above_reduce (or its _shared form)
 * raises x or reduce_below_transpose sinks the other (each asked with its
 * own guard; the two transposes then compose, transpose_of_transpose,
 * whatever else fires); or a reduction of a transpose that folds away,
 * over a reshape read once. Judged before, the leaf cost nothing in its
 * own lens only; judged after, in every lens the reduction takes by 1s
 * (seed 1021327: add(unsqueeze(squeeze(unsqueeze(t(reduce_sum(t(reshape(p0)))))))
 * , s) of a {16, 1, 1} s under squeeze and reshape[{4, 4}] ran in {16, 1}
 * in the orders that judged add while a transpose was its leaf, a tie
 * that goes to the fewest axes, and in s's lens in program order, one
 * view fewer). Waiting for every leaf transpose that folds, whatever is
 * below it, lost more seeds than it fixed (round s30B's second attempt,
 * and again here: 1005307, 1009722, 1023514, tuned 10228). */
static bool leaf_takes_unit_reshape(const ins *d);

static bool reshape_read_once(const ins *r)
{
    return is_op(r, "reshape") && r->nargs == 1 && one_reader(r);
}

static bool leaf_changes(const ins *x)
{
    if (transpose_folds(x) && leaf_takes_unit_reshape(x->args[0]))
        return true;
    if (is_op(x, "transpose") && x->nargs == 1 && is_reduction(x->args[0]) && x->args[0]->nargs == 1 &&
        one_reader(x->args[0]) && is_op(x->args[0]->args[0], "transpose") && one_reader(x->args[0]->args[0]) &&
        reshape_read_once(x->args[0]->args[0]->args[0]) &&
        (transpose_rises_above_reduce(x, false) || reduce_sinks_transpose(x->args[0])))
        return true;
    return is_reduction(x) && x->nargs == 1 && transpose_folds(x->args[0]) && reshape_read_once(x->args[0]->args[0]);
}

/* The leaf a cluster reads through shape op x of a standard value that a
 * reader outside the cluster keeps (x is no reshape_inside): the value v
 * below the chain of such shape ops, where v is a leaf too (no pending
 * op, stretching broadcast or copying shape op; else x stays the leaf).
 * Why this holds in general: the cluster reads v in x's lens for free
 * (x stays: reshaped_outside), in v's own lens for free (it then
 * reads v itself), and in any other lens through one reshape, of x or of
 * v, which compose into one; the costs are the same whichever of the two
 * is the leaf. But the cluster's reshape of x composes with x into one of
 * v (reshape_of_reshape; a squeeze or unsqueeze first becomes such an x,
 * *_to_reshape) in some orders before the cluster is asked and in others
 * after, so only a leaf of v (with x's lens a candidate:
 * add_outside_cands) answers the same in every order (seed 1018369:
 * add(reshape(squeeze(s)), literal), the squeeze also read by a dot, had
 * leaf squeeze(s) in {3, 2} or s in {1, 3, 2} by order, and the labelling
 * ran add in either lens). The same holds where v is a cluster op (of
 * another cluster; operand_kind and cluster_collect take one of this
 * cluster as that op): read in v's lens, whichever it runs in (the
 * group's label where v is a group op), it is v itself. Taken as the leaf,
 * x counted its own lens free even where x only feeds shape ops and
 * composes away, and v's lens not (seed 2029696's core: neg in {2, 4, 1}
 * read once by a reshape to {8} that is reshaped again for abs and for a
 * transpose; abs's cluster weighed that reshape as a leaf in {8}, so neg
 * moved to {8}, where abs read neg itself through one reshape and neg
 * moved back, until the rule budget ran out). */
static const ins *leaf_base(const ins *x)
{
    const ins *b = x;
    for (int d = 0; d <= VIEW_CLUSTER_MAX && is_reshape(b) && !view_is_constant(b); d++)
        b = b->args[0];
    if (b == x || ins_is_pending(b) || view_is_constant(b) ||
        (broadcast_op(b) && !unit_broadcast(b)) || (b->op->classes & OPC_SHAPE))
        return x;
    return b;
}

/* The value x a cluster op reads: through reshapes inside the cluster to a
 * cluster op of one reader or of the cluster's root (added to the
 * cluster), or a leaf. (Only of the cluster's root, so that an op read
 * once through a shape op that clusters of other roots read is a leaf,
 * made 3 new failures: 78, 4713, 7521.) */
static bool reshapes_merge_at_reader(const ins *r);
/* see reduction_leaf_costs */
static _Thread_local int pair_lower_depth, pair_upper_depth;
/* see cluster_of: the guard of the op reading a cluster's sink chain */
static _Thread_local int sink_mover_depth;
static bool binary_reshapes_move(const ins *w, int depth, const ins **run_in);
static bool has_no_lens_of_its_own(const ins *x);

/* Operand a of a two-operand op w (the operand that is not the end of a
 * cluster's reshape chain) reads, through shape ops, a value that widens
 * an axis longer than 1 with stride 0 (a broadcast, or a pointwise op of
 * broadcasts whose broadcast sinks below it, broadcast_sinks_below): w
 * reads a broadcast on its own side in every order, whatever the cluster's
 * own rules do to the root. Not a broadcast that only adds unit axes (it
 * becomes a reshape, unit_broadcast, or sinks as one: w then joins the
 * clusters), nor a pointwise op above a broadcast that is still to sink.
 * And not a broadcast of one element reached through a view another
 * instruction reads too: w's move (reshape[dims = x.lens](y)) takes a
 * reader from that view, which changes how it composes for the others,
 * among them cluster leaves of no lens of their own (round s50D). */
static bool reads_own_broadcast(const ins *a)
{
    bool shared = false;
    for (int d = 0; d < VIEW_CLUSTER_MAX; d++) {
        if (!one_reader(a))
            shared = true;
        if (broadcast_op(a) && a->nargs == 1)
            return !unit_broadcast(a) && shape_widens_p(&a->sh) &&
                   !(shared && shape_elements(&a->args[0]->sh) == 1);
        if (a->nargs == 1 && shape_view_or_transpose(a)) {
            a = a->args[0];
            continue;
        }
        return shape_widens_p(&a->sh) && ((shape_broadcasted_p(&a->sh) && (is_op(a, "@literal") || view_is_constant(a))) ||
                                       merges_into_broadcast(a) || broadcast_sinks_below(a));
    }
    return false;
}

/* Leaf x of a cluster is a one-operand pointwise op that reads a broadcast
 * only through a layout-only pending op (broadcast_read_through reads the
 * pending op through, round s50A), and x leaves for below the broadcast
 * once the pending op goes: its readers take the broadcast's layout
 * (readers_take_broadcast, the guard of unary_above_*broadcast), or it
 * reads the broadcast through a reshape it rises above first
 * (unary_rises_above_reshape, every guard of unary_above_reshape; after the
 * rise the reshape is its reader's, and composes with the cluster's). The
 * pending rules take that op away in every order; x then sinks below the
 * broadcast and its reader reads a broadcast and leaves the cluster, so the
 * cluster is not known while the pending op stands: the wait a cluster op
 * reading that pending op had before round s50A, now asked of the leaf
 * (seed 6007966 at --ops 24: mul moved into max's cluster lens before tanh
 * sank, in order 7919 only). Not where x stays once the pending op goes
 * (its readers keep its layout and it reads the pending op directly): the
 * cluster's leaf is then x in every order, and the wait only let other
 * rules move first by order (round s51C's wider wait; seed 6006442:
 * relu(pending(mb(relu(p7)))) reshaped for neg, whose cluster then ran in
 * its reader's lens in order 7919, and seed 3019249, where
 * binary_above_unit_reshape_beside_multibroadcast_second met sub before
 * reduce_below_reshape moved the reshape of sub's other operand). */
static bool unary_rises_above_reshape(const ins *u);

static bool leaf_reads_through_pending(const ins *x)
{
    if (x->nargs != 1 || !(x->op->classes & OPC_UNARY) || is_reduction(x) || !reads_broadcast(x))
        return false;
    const ins *a = x->args[0];
    for (int depth = 0; depth < VIEW_CLUSTER_MAX && broadcast_read_through(a); depth++) {
        if (ins_is_pending(a))
            return readers_take_broadcast(x, x, 0) || unary_rises_above_reshape(x);
        a = a->args[0];
    }
    return false;
}

static void cluster_collect(cluster *c, const ins *x, int depth)
{
    if (!c->ok)
        return;
    if (depth > VIEW_CLUSTER_MAX) {
        c->ok = false;
        return;
    }
    while (reshape_inside(x)) {
        /* a reduction of a reshape, reshaped for the cluster, that keeps
         * length-1 axes it does not reduce loses them first
         * (reduce_without_unit_axes); not while the cluster is labelled as
         * the upper one of a reduction pair (reduction_leaf_costs): that
         * rule waits on the lower cluster's lens, which wait on this
         * labelling, and the pair weighs the reduction in every lens the
         * lower cluster gives it anyway (seed 1004787: mul moved in and
         * out of {1, 4, 4} until the rule budget ran out) */
        if (is_reduction(x->args[0]) && reduction_keeps_unit_axes(x->args[0]) && pair_upper_depth == 0) {
            c->ok = false;
            c->pending = true;
            c->unit_red = true;
            return;
        }
        /* a binary op outside the clusters (it reads a broadcast), read
         * through a reshape, whose operands are both reshapes read once,
         * moves above them first (binary_above_reshapes*), and the reshape
         * between it and the cluster then composes away: until then its
         * lens are not the cluster's to weigh (seed 1001774: max(reshape(s),
         * reshape(reshape(mb(p)))) reshaped for max(., s) ran in the
         * reshapes' lens in the orders that moved the outer max first).
         * Not where an operand is a value of one element broadcast (seed
         * 1088158: sub(unsqueeze(reshape(mb(p1{1}))), unsqueeze(s)) then
         * kept its reshapes in some orders) */
        const ins *w = x->args[0];
        if ((w->op->classes & OPC_BINARY) && w->nargs == 2 && w->nmods == 0 && w->args[0] != w->args[1] &&
            is_cluster_op(w) && reads_broadcast(w) && is_op(w->args[0], "reshape") && is_op(w->args[1], "reshape") &&
            w->args[0]->nusers == 1 && w->args[1]->nusers == 1 && !view_is_constant(w->args[0]) &&
            !view_is_constant(w->args[1]) && (!one_element_below(w->args[0]) || reshapes_merge_at_reader(w->args[0])) &&
            (!one_element_below(w->args[1]) || reshapes_merge_at_reader(w->args[1]))) {
            c->ok = false;
            c->pending = true;
            return;
        }
        /* the same where an operand is still a squeeze or unsqueeze that
         * becomes a reshape, or a chain of them, asked with the rules' own
         * guard (binary_reshapes_move; seed 1012623: mul of add(unsqueeze(p0),
         * unsqueeze(reshape(mb(s)))) squeezed and its sin, through
         * transposes that cancel, ran in the add's {4, 2, 4, 4, 1} in the
         * orders that judged mul before the second unsqueeze was a reshape) */
        if (is_cluster_op(w) && reads_broadcast(w) && binary_reshapes_move(w, 0, NULL)) {
            c->ok = false;
            c->pending = true;
            return;
        }
        x = x->args[0];
    }
    if (is_cluster_op(x) && !reads_broadcast(x) && (one_reader(x) || cluster_root(x) == c->root)) {
        if (cluster_has(c->ops, c->nops, x))
            return;
        if (c->nops == VIEW_CLUSTER_MAX) {
            c->ok = false;
            return;
        }
        c->ops[c->nops++] = x;
        for (int k = 0; k < x->nargs; k++)
            cluster_collect(c, x->args[k], depth + 1);
        return;
    }
    if (broadcast_op(x) && !unit_broadcast(x) && !one_element_multibroadcast(x)) {
        /* A cluster that reads a broadcast is where the common-dims rules
         * move ops into finer lens (GroupNorm): it has no lens of its own.
         * Not a broadcast of one computed element, which a two-operand op
         * reads as its leaf (one_element_broadcast_read). */
        c->ok = false;
        return;
    }
    if (ins_is_pending(x)) {
        c->ok = false;
        c->pending = true;
        return;
    }
    if (view_is_constant(x))
        return;
    if (leaf_changes(x) || leaf_reads_through_pending(x)) {
        c->ok = false;
        c->pending = true;
        return;
    }
    x = leaf_base(x);
    if (cluster_has(c->leaves, c->nleaves, x) || cluster_has(c->ops, c->nops, x))
        return;
    if (c->nleaves == VIEW_CLUSTER_MAX) {
        c->ok = false;
        return;
    }
    c->leaves[c->nleaves++] = x;
}

/* Every reader of x, through reshapes inside the cluster (any number of
 * readers each), is an op of cluster c: x is read by c alone. */
static bool read_inside(const cluster *c, const ins *x, int depth)
{
    if (x->nusers < 1 || depth > VIEW_CLUSTER_MAX)
        return false;
    for (int k = 0; k < x->nusers; k++) {
        const ins *u = x->users[k];
        if (cluster_has(c->ops, c->nops, u))
            continue;
        if (u == x || !reshape_inside(u) || !read_inside(c, u, depth + 1))
            return false;
    }
    return true;
}

/* cluster_collect's second pass: a leaf that is a cluster op (reading no
 * broadcast) and that only ops of the cluster read, through reshapes, is
 * an op of the cluster, as one read once through a reshape that those
 * ops read is (one_reader). Why this holds in general: the two are the
 * same op in two states that reshape_of_reshape and the cluster rules
 * turn into each other (a reshape read by several ops is split into one
 * per reader, and an op moved into its lens reads x directly), so the
 * cluster must take both or neither; taking neither made a fan-out of
 * reshapes read once a leaf of two clusters that then loop (round s46F,
 * seed 2084074), so both are taken. cluster_root already treats the two
 * alike where every reader has one root; this covers readers that are in
 * the cluster by one_reader chains though their own root is another op
 * (seed 3002085's core: tanh read by max and by a second tanh, both in
 * abs's cluster through add read once by a reshape, was a leaf there,
 * while the same tanh read once by a reshape that max and the second tanh
 * read was an op, and unary_into_cluster_lens moved it between the two
 * states in program order until the rule budget ran out). Repeated
 * until no leaf is taken, since a leaf taken may be the last outside
 * reader of another. */
static void collect_leaves_read_inside(cluster *c)
{
    for (bool more = c->ok; more && c->ok;) {
        more = false;
        for (int l = 0; l < c->nleaves && c->ok; l++) {
            const ins *x = c->leaves[l];
            if (!is_cluster_op(x) || reads_broadcast(x) || !read_inside(c, x, 0))
                continue;
            if (c->nops == VIEW_CLUSTER_MAX) {
                c->ok = false;
                return;
            }
            memmove(c->leaves + l, c->leaves + l + 1, sizeof(c->leaves[0]) * (size_t)(c->nleaves - l - 1));
            c->nleaves--;
            c->ops[c->nops++] = x;
            for (int k = 0; k < x->nargs; k++)
                cluster_collect(c, x->args[k], 1);
            more = true;
            break;
        }
    }
}

static bool transposes_merge(const ins *b, const ins *x, const ins *y, const int64_t *p, int n);

/* The guard of binary_above_transposes for b reading transposes[p] of x
 * and y, t the first of them: the two merge above b, or t vanishes below
 * and neither operand is a constant. merges_at_reader and
 * transpose_composes_below ask it of the same merge (the latter with x and
 * y the ends of the chains below b's operands). */
static bool binary_transposes_merge(const ins *b, const ins *t, const ins *x, const ins *y, const int64_t *p, int n)
{
    return transposes_merge(b, x, y, p, n) ||
           (transpose_vanishes_below(t) && !view_is_constant(x) && !view_is_constant(y));
}

/* Transpose t, a reader of a cluster's root (or of the reshape chain to
 * its sink), goes away under a fold or merge that fires in every order
 * and leaves the root read by what reads t now: t is read by a transpose
 * (transpose_of_transpose composes the two, with no guard; composed to
 * the identity, identity_transpose drops them), or t is an operand, read
 * once, of a two-operand op whose other operand is a transpose of the same
 * permutation read once, which binary_above_transposes merges below the
 * op (asked with its own guard). Until then the cluster's readers are not
 * known: judged while t stood there, the root ended the cluster and a tie
 * between the leaf's lens and the sink's went to the leaf, while in the
 * orders that moved t first the root's reader joined the cluster and took
 * the sink's lens (seed 1017792: sin(reshape[{2, 2, 3}](tanh(mb[{4, 3}](s))))
 * transposed beside a transposed p0 for add, round s27F; seed 1000957:
 * relu between two transposes that cancel). */
static bool transpose_goes_away(const ins *t)
{
    if (!is_op(t, "transpose") || t->nargs != 1)
        return false;
    /* identity_transpose and transpose_to_same_shape drop it (tuned seed
     * 5850: the composed transpose of sub's value waited for
     * identity_transpose when binary_into_cluster_lens judged sub) */
    const attr_value *p = ins_attr(t, "permutation");
    if ((p && p->n == t->sh.rank && ops_is_identity_permutation(p->u.ints, p->n)) || shape_equal(&t->sh, &t->args[0]->sh))
        return true;
    for (int k = 0; k < t->nusers; k++)
        if (is_op(t->users[k], "transpose"))
            return true;
    if (t->nusers != 1)
        return false;
    const ins *b = t->users[0];
    if (!((b->op->classes & OPC_BINARY) && b->nargs == 2) || b->nmods > 0 || b->args[0] == b->args[1])
        return false;
    const ins *s = b->args[0] == t ? b->args[1] : b->args[0];
    const attr_value *q = is_op(s, "transpose") ? ins_attr(s, "permutation") : NULL;
    if (!p || !q || s->nargs != 1 || s->nusers != 1 || p->n != q->n || p->n > SHAPE_MAX_RANK)
        return false;
    for (int i = 0; i < p->n; i++)
        if (p->u.ints[i] != q->u.ints[i])
            return false;
    const ins *x = b->args[0]->args[0], *y = b->args[1]->args[0];
    return binary_transposes_merge(b, b->args[0], x, y, p->u.ints, p->n);
}

/* sink_read_by_multibroadcasts(s): the sink s of a cluster (its root or
 * the end of the reshape chain below it) of more than one element is read
 * only by multibroadcasts that stretch something (not unit_broadcast), and
 * by at least one: the least rank among them, else 0. Each of them reads
 * any lens equal to s's but for leading 1s as it reads s
 * (multibroadcast_of_unit_reshape takes the reshape from every reader, it
 * asks no single reader of it), so the sink's lens are loose up to that
 * rank whether s has one such reader or several. Asked of one reader only,
 * the sink of add(unsqueeze(x), y) squeezed for two multibroadcasts was
 * the squeeze's lens while the squeeze stood and the root's once both
 * multibroadcasts had taken it, and the tie between x's lens and y's went
 * by order (seed 1078309). */
static int sink_read_by_multibroadcasts(const ins *s)
{
    if (s->nusers == 0 || shape_elements(&s->sh) <= 1)
        return 0;
    int rank = 0;
    for (int k = 0; k < s->nusers; k++) {
        const ins *m = s->users[k];
        if (!is_op(m, "multibroadcast") || unit_broadcast(m))
            return 0;
        if (rank == 0 || m->sh.rank < rank)
            rank = m->sh.rank;
    }
    return rank;
}

/* x is e, or computed from e alone through reshapes and one-operand
 * cluster ops. */
static bool computed_from(const ins *x, const ins *e)
{
    for (int depth = 0; depth < VIEW_CLUSTER_MAX; depth++) {
        if (x == e)
            return true;
        if (x->nargs != 1 || !(is_reshape(x) || is_cluster_op(x)))
            return false;
        x = x->args[0];
    }
    return false;
}

/* Every reader of e (a reduction d, or the end of a chain of reshapes of d
 * that only move length-1 axes) takes it in whatever lens it has: a shape
 * op of it composes with the reshape a move of d's cluster leaves above d
 * (reshape_of_reshape), and a cluster op whose every operand is e, or
 * computed from e (or d) alone, runs in the lens e's value gives it, there
 * being no other leaf to hold its cluster's lens (seed 4006687: add(d,
 * reshape(tanh(reshape(d))))). Not a cluster op with another leaf: that
 * leaf may hold the reader's cluster in e's present lens, and then the
 * reshape a move leaves above d stays (seed 8004923: max(d, literal) in
 * {1, 4, 1} kept a reshape from {4, 1} above reduce_max); nor one that
 * reads a broadcast, which ends its cluster and keeps its lens
 * (keeps_reshape). e computes more than one element (the lenses of one
 * element are all equal but for 1s, and a multibroadcast of one keeps a
 * reshape that adds its 1s: seed 1004960). */
static bool readers_follow_lens_at(const ins *e, const ins *d, int depth)
{
    if (shape_elements(&e->sh) <= 1 || e->nusers < 1 || depth > VIEW_CLUSTER_MAX)
        return false;
    for (int k = 0; k < e->nusers; k++) {
        const ins *u = e->users[k];
        /* a reshape of e into lens that are e's up to 1s is one that a
         * move of d's cluster between candidates that differ only by 1s
         * can make the identity (reshape_of_reshape, then
         * reshape_to_same_shape), its readers then reading d itself: it
         * is indifferent only where its own readers are (asked the same
         * way), or the exemption would count as one two candidates of
         * which one saves it, and answer by what has fired (seed 16035:
         * reduce_max in {3, 4, 1, 1} read by a reshape to the same lens
         * that reshape_to_same_shape had not yet dropped, which max
         * reads and the return takes: sub moved into {3, 4, 3} in the
         * order that asked then, while in the others max read the
         * reduction directly, was asked, and sub stayed in
         * {3, 4, 3, 1}). A reshape into other lens stays in either
         * state, and what reads it reads the same lens in both. */
        if (is_reshape(u)) {
            if (unit_lens_only(u->sh.lens, u->sh.rank, e->sh.lens, e->sh.rank) &&
                !readers_follow_lens_at(u, d, depth + 1))
                return false;
            continue;
        }
        if (!is_cluster_op(u) || reads_broadcast(u))
            return false;
        for (int a = 0; a < u->nargs; a++)
            if (u->args[a] != e && !computed_from(u->args[a], e) && !computed_from(u->args[a], d))
                return false;
        /* and what reads u takes it in any of those lens too: another
         * such reader of e, a multibroadcast that adds 1s of its own
         * (multibroadcast_of_unit_reshape), or a reshape into lens that
         * are not e's up to 1s (it stays in either state); not the
         * return or a reshape into e's lens up to 1s, which the cluster
         * running in those lens saves (seed 16035: sigmoid and max over
         * reduce_sum in {3, 4, 1} returned in {3, 4, 1, 1}: sub in
         * {3, 4, 3, 1} leaves no reshape there) */
        for (int r = 0; r < u->nusers; r++) {
            const ins *w = u->users[r];
            bool ok = false;
            for (int k2 = 0; k2 < e->nusers && !ok; k2++)
                ok = e->users[k2] == w && !is_reshape(w);
            if (!ok && is_op(w, "multibroadcast") && !unit_broadcast(w))
                ok = true;
            if (!ok && is_reshape(w) && !unit_lens_only(w->sh.lens, w->sh.rank, e->sh.lens, e->sh.rank))
                ok = true;
            if (!ok)
                return false;
        }
    }
    return true;
}

static bool readers_follow_lens(const ins *e, const ins *d)
{
    return readers_follow_lens_at(e, d, 0);
}

/* The cluster of pointwise op v: its root (up through single readers that
 * are cluster ops or reshapes of one reader), the lens the root's value is
 * reshaped to below it, its ops and its leaves. */
static bool cluster_of(const ins *v, cluster *c)
{
    memset(c, 0, sizeof *c);
    c->ok = !reads_broadcast(v);
    if (!c->ok)
        return false;
    const ins *root = cluster_root(v);
    c->root = root;
    /* A pending op reading the root (or a reshape of it on the way to the
     * sink) hides the readers the cluster has once the pending rules take
     * it into them (binary_through_pending_*): until then neither the root
     * nor the sink is known, as for a pending op among the operands
     * (cluster_collect). (One only the outputs read stays: seed 226.) The
     * lens binary_into_cluster_lens gives an op leaves a pending op below
     * it where the op had another layout; asked
     * before that op went, the cluster read its own sink as the lens of
     * the reshape back (the op's old lens) and moved the op back, which
     * left a pending op again (loop with reshape_to_same_lens, seed
     * 1045686). The walk ends at the sink. A transpose reading the root
     * or the chain that goes away in every order (transpose_goes_away)
     * hides the readers the same way: once it goes, they read the root. */
    const ins *s = root;
    for (;;) {
        for (int k = 0; k < s->nusers; k++)
            if (pending_taken(s->users[k]) || transpose_goes_away(s->users[k])) {
                c->ok = false;
                c->pending = true;
                return false;
            }
        if (!(one_reader(s) && is_reshape(s->users[0])))
            break;
        s = s->users[0];
    }
    /* A binary op outside the clusters (it reads a broadcast) reading the
     * end of that chain moves above its two reshapes first
     * (binary_above_reshapes*, asked with their own guard,
     * binary_reshapes_move), as for such an op among the leaves
     * (cluster_collect): the chain then ends at the reshape back from the
     * op's new lens, so its lens are not the sink yet. Taken as the sink,
     * the max of seed 12001924 kept the {1, 4, 1, 4} of a mul of two
     * unsqueezes squeezed for a dot, and unary_into_cluster_lens put the
     * tanh below it back into those lens while
     * reduce_without_unit_axes_below_unary, whose walk passes the mul to
     * the squeeze, took the reduction's 1 out again, until the rule budget
     * ran out in the orders that did not reach the mul first. Not asked
     * inside that guard, which asks clusters (in_reshape_cluster) in turn. */
    const ins *into_last = NULL;
    if (sink_mover_depth == 0 && s != root && one_reader(s) && is_cluster_op(s->users[0]) &&
        reads_broadcast(s->users[0])) {
        sink_mover_depth++;
        const ins *w = s->users[0], *run_in = NULL;
        bool moves = binary_reshapes_move(w, 0, &run_in);
        bool into_root = moves && run_in == s && w->args[0] != w->args[1] &&
                         reads_own_broadcast(w->args[w->args[0] == s ? 1 : 0]);
        /* Where the op runs in its other operand o's lens instead (the
         * _into_ rules' choice from the root's present lens), that choice
         * reads lens the labelling has not given the root yet: once the root
         * runs in the lens R the op's value is reshaped to further down
         * (reshaped_to_run), the same rules run the op in R, the root's own
         * lens (_into_second where the root is the second operand, since
         * its lens are then R; _into_first where it is the first, since R
         * is not o's; binary_above_reshapes where R is o's lens too), and
         * in any other lens they run it in o's. So the sink is R, as for
         * into_root, not a wait on an op that waits on the root (the
         * _into_ rules ask in_cluster_lens of both operands): the op's side
         * (o reads a broadcast of its own, reads_own_broadcast) and R do not
         * change when the cluster moves. Not where the root is a value of
         * no lens of its own (the rules then take o's lens in every lens
         * the root runs in). */
        if (moves && !into_root) {
            const ins *o = w->args[w->args[0] == s ? 1 : 0];
            const ins *last = run_in == o && o != s && reads_own_broadcast(o) ? reshaped_to_run(w) : NULL;
            if (last && becomes_reshape(last) && !shape_same_lens(&last->sh, &w->sh) &&
                shape_elements(&last->sh) == shape_elements(&root->sh) && !has_no_lens_of_its_own(root))
                into_last = last;
        }
        sink_mover_depth--;
        if (moves && !into_root && !into_last) {
            c->ok = false;
            c->pending = true;
            return false;
        }
        if (into_root) {
            s = root;
            c->sink_mover = true;
        }
        if (into_last) {
            s = into_last;
            c->sink_mover = true;
        }
    }
    c->nsink = s->sh.rank;
    memcpy(c->sink, s->sh.lens, sizeof(int64_t) * (size_t)s->sh.rank);
    /* R's own readers (past the op, outside this cluster) are not the
     * sink's: they read the op's value, not the root's */
    int loose = into_last ? 0 : sink_read_by_multibroadcasts(s);
    if (loose > 0) {
        int k = 0;
        while (k < c->nsink - 1 && c->sink[k] == 1)
            k++;
        memmove(c->sink, c->sink + k, sizeof(int64_t) * (size_t)(c->nsink - k));
        c->nsink -= k;
        c->sink_trimmed = k > 0;
        c->sink_loose = loose;
    }
    if (!into_last && one_reader(s) && is_reduction(s->users[0]) && s->users[0]->nargs == 1) {
        const ins *d = s->users[0];
        const attr_value *ax = ins_attr(d, "axes");
        if (ax && ax->n <= SHAPE_MAX_RANK) {
            c->red = d;
            c->nred_axes = ax->n;
            memcpy(c->red_axes, ax->u.ints, sizeof(int64_t) * (size_t)ax->n);
            /* through reshapes and one-operand pointwise ops, which
             * run in the reduction's lens or the reshape's, whichever
             * the cluster of the reduction's value gives them (seed
             * 2893: neg between the reduction and a reshape) */
            const ins *t = d;
            for (int depth = 0; depth < VIEW_CLUSTER_MAX && one_reader(t) &&
                                (is_reshape(t->users[0]) ||
                                 (is_cluster_op(t->users[0]) && t->users[0]->nargs == 1 && !reads_broadcast(t->users[0])));
                 depth++) {
                t = t->users[0];
                c->red_unary = c->red_unary || !is_reshape(t);
            }
            /* A shape op reading d itself, read once by a reduction
             * that reduce_below_reshape moves it below
             * (reduction_takes_run), is below that reduction in the
             * orders that met it first, where the walk ends at d: it ends
             * at d in every order (seed 1069486: mul in {3, 1, 3} squeezed
             * for reduce_mean[{0}], unsqueezed for reduce_mean[{2}]; the
             * orders that met the lower reduction first weighed it against
             * the unsqueeze's {1, 1, 3} and kept mul in {3, 1, 3}, the
             * others against {1, 3} and moved mul into {3, 3}). Only a
             * shape op of d: reduction_takes_run asks in_cluster_lens of
             * its operand, which for a cluster op would ask this cluster
             * again. Without unit_drop_taken_into_reduction: its reshape
             * r above the reduction is the chain to this cluster's sink,
             * so its answer follows the lens the root runs in now and
             * red_to flipped with it (seed 8015266: sub in {4, 1} or
             * {2, 1, 1, 2} under reduce_mean[{0}], red_to {2, 1} in one,
             * {1, 1, 2} in the other); sink_cost weighs, per candidate, a
             * reshape below that only moves 1s joining the one above. */
            bool taken_back = t != d && t->nargs == 1 && t->args[0] == d && reduction_would_take_run(t);
            if (taken_back)
                t = t->args[0];
            /* Where the walk ends at d (not taken back to it), or at
             * reshapes of d that only move length-1 axes, red_to are d's
             * present lens up to 1s: a move of the cluster between
             * candidates that differ only by 1s leaves such a reshape
             * above d (reduce_below_reshape),
             * and the fold of that reshape into the one above, or away,
             * takes the walk's end from one to the other. So ask the same
             * on both sides: the readers of that end (seed 4006687: mul in
             * {2, 3} under reduce_max[{1}] whose reshape to {2, 1, 1} two
             * ops read, against mul in {2, 1, 3} under reduce_max[{2}] read
             * by the same two; V6 asked only the second and looped). */
            c->red_self = !taken_back &&
                          (t == d || (!c->red_unary && unit_lens_only(d->sh.lens, d->sh.rank, t->sh.lens, t->sh.rank))) &&
                          readers_follow_lens(t, d);
            c->red_end = t;
            c->nred_to = t->sh.rank;
            memcpy(c->red_to, t->sh.lens, sizeof(int64_t) * (size_t)t->sh.rank);
            /* a multibroadcast reads any lens equal to those but for
             * leading 1s (multibroadcast_of_unit_reshape), as for the sink */
            if (one_reader(t) && is_op(t->users[0], "multibroadcast") && !unit_broadcast(t->users[0]) &&
                shape_elements(&t->sh) > 1)
                c->red_loose = t->users[0]->sh.rank;
        }
    }
    cluster_collect(c, root, 0);
    if (c->ok && c->nops < VIEW_CLUSTER_MAX && !cluster_has(c->ops, c->nops, root)) {
        /* the root has several readers or none: it is still the cluster's */
        c->ops[c->nops++] = root;
        for (int k = 0; k < root->nargs; k++)
            cluster_collect(c, root->args[k], 1);
    }
    collect_leaves_read_inside(c);
    return c->ok && cluster_has(c->ops, c->nops, v);
}

static bool lens_equal(const int64_t *a, int na, const int64_t *b, int nb)
{
    if (na != nb)
        return false;
    for (int k = 0; k < na; k++)
        if (a[k] != b[k])
            return false;
    return true;
}

/* Orders candidate lenses: fewer axes first, then by the lengths. */
static bool lens_less(const int64_t *a, int na, const int64_t *b, int nb)
{
    if (na != nb)
        return na < nb;
    for (int k = 0; k < na; k++)
        if (a[k] != b[k])
            return a[k] < b[k];
    return false;
}

/* At most this many shared ops, and this many lens tuples of theirs, are
 * tried by label_costs_shared. */
enum { LABEL_SHARE_MAX = 2, LABEL_SHARE_TUPLES = 256 };

/* The lenses a cluster's ops may run in, and the cost table of the
 * labelling below. */
typedef struct labelling {
    const cluster *c;
    const int64_t *cand[VIEW_CLUSTER_MAX + 1];
    int ncand_rank[VIEW_CLUSTER_MAX + 1];
    int ncand;
    int64_t cost[VIEW_CLUSTER_MAX][VIEW_CLUSTER_MAX + 1]; /* [op][candidate], in LABEL_UNIT */
    int64_t leaf_cost[VIEW_CLUSTER_MAX][VIEW_CLUSTER_MAX + 1]; /* [leaf][candidate], one edge */
    bool costed[VIEW_CLUSTER_MAX];                    /* cost[op] is computed */
    int readers[VIEW_CLUSTER_MAX]; /* distinct cluster ops reading op (shared ops: see label_costs) */
    int label[VIEW_CLUSTER_MAX];
    bool labelled[VIEW_CLUSTER_MAX]; /* label[op] is assigned (and below it) */
    bool shared; /* as for cluster_labelled_lens */
    /* the lens each leaf is weighed in (leaf_lens; its own for the
     * reduction of a paired lower cluster, reduction_leaf_costs, whose
     * moved lens depend on whether that cluster has moved yet: seed
     * 1012900's minimal case tied between them and the sink's) */
    const int64_t *leaf_lens[VIEW_CLUSTER_MAX];
    int nleaf_lens[VIEW_CLUSTER_MAX];
    bool leaf_own_free[VIEW_CLUSTER_MAX]; /* and free in its own lens too */
    /* a reduction leaf's lens once the reshape under it has moved below
     * it: leaf_lens's for an unpaired one, add_paired_cands's for a paired */
    int64_t moved_lens[VIEW_CLUSTER_MAX][SHAPE_MAX_RANK];
    /* labelled with its cluster's group (group_pin_costs): an op whose
     * label the tuple or an earlier cluster gave, and a leaf the group runs
     * in lens of its own, weighed at what group_cost charges for it */
    bool pinned[VIEW_CLUSTER_MAX];
    bool leaf_pinned[VIEW_CLUSTER_MAX];
    int64_t leaf_group_cost[VIEW_CLUSTER_MAX][VIEW_CLUSTER_MAX + 1];
    /* the ops two or more cluster ops read whose lens label_costs_shared
     * tried (none where too many), and for each root candidate the lens
     * of each that its cheapest labelling gives it */
    int nshare;
    int share_op[LABEL_SHARE_MAX];
    signed char share_lab[VIEW_CLUSTER_MAX + 1][LABEL_SHARE_MAX];
    signed char share_read[VIEW_CLUSTER_MAX + 1][LABEL_SHARE_MAX];
    /* while tried: the other lens its readers read it in through one
     * reshape (its own lens where none), charged once (label_costs_shared) */
    int read_lab[VIEW_CLUSTER_MAX];
    bool tried[VIEW_CLUSTER_MAX];
} labelling;

static int op_index(const cluster *c, const ins *x)
{
    for (int k = 0; k < c->nops; k++)
        if (c->ops[k] == x)
            return k;
    return -1;
}

/* What operand a of a cluster op is: a cluster op (its index), a constant
 * (-2: free in any lens) or a leaf (-1, lens in *leaf). */
static int operand_kind(const cluster *c, const ins *a, const ins **leaf)
{
    while (reshape_inside(a))
        a = a->args[0];
    int k = op_index(c, a);
    if (k >= 0)
        return k;
    if (view_is_constant(a))
        return -2;
    *leaf = leaf_base(a);
    k = op_index(c, *leaf);
    return k >= 0 ? k : -1;
}

/* x is an op of a cluster labelled together with c */
static bool in_group(const cluster *c, const ins *x)
{
    for (int g = 0; g < c->ngrp; g++)
        if (op_index(c->grp[g], x) >= 0)
            return true;
    return false;
}

static bool cand_is(const labelling *L, int k, const shape *sh)
{
    return lens_equal(L->cand[k], L->ncand_rank[k], sh->lens, sh->rank);
}

/* ---- what a leaf's reshape costs (one reshape instruction per leaf and
 * lens, however many edges read it) ---- */

/* A reshape is one unit; the reshape of a leaf read by n edges of the
 * cluster is shared by those of them that run in the same lens, so each
 * edge pays 1/n of it (exact when they agree, as they do in the cheapest
 * labellings but for ties). LABEL_UNIT is divisible by 1..16. */
enum { LABEL_UNIT = 720720 };
/* What a leaf u(mb(y)) costs in the lens of y's rank (leaf_costs): free,
 * but a tie with the leaf's own lens goes to those (round s75C). */
enum { LABEL_FREED = 1 };

static int leaf_index(const cluster *c, const ins *x)
{
    for (int k = 0; k < c->nleaves; k++)
        if (c->leaves[k] == x)
            return k;
    return -1;
}

static bool cluster_lens_at(const ins *v, bool shared, int64_t *lens, int *n);

/* Reader r of a reshape to `lens` keeps reading it: r is no cluster op
 * (nothing moves it into other lens), or one that reads a broadcast, which
 * ends the clusters around it and which no cluster moves (seeds 16046,
 * 11617: tanh(reshape(x)) moved into x's lens while sub(reshape(x),
 * broadcast) kept the reshape), or its own cluster runs it in `lens` when
 * reshapes shared with other clusters are not counted (asking its
 * cluster with them counted would make two clusters that share a reshape
 * hold each other in place). */
static bool keeps_reshape(const ins *r, const int64_t *lens, int rank)
{
    if (!is_cluster_op(r) || reads_broadcast(r))
        return true;
    int64_t l[SHAPE_MAX_RANK];
    int nl;
    return cluster_lens_at(r, false, l, &nl) && lens_equal(l, nl, lens, rank);
}

/* The reshapes that the upper cluster of a pair moves with its label, while
 * reduction_leaf_costs weighs the lower cluster for one upper candidate m:
 * the reshape r read once by a leaf e of the upper cluster that
 * reshape_of_reduce_of_reshape runs in m (leaf_takes_unit_reshape), seen in
 * the lens r becomes there (the rule's `let`), not its present ones. */
static _Thread_local int pair_nproj;
static _Thread_local const ins *pair_proj[VIEW_CLUSTER_MAX];
static _Thread_local int64_t pair_proj_lens[VIEW_CLUSTER_MAX][SHAPE_MAX_RANK];
static _Thread_local int pair_proj_rank[VIEW_CLUSTER_MAX];

/* The lens reshape s has for reduction_leaf_costs' present candidate. */
static const int64_t *projected_lens(const ins *s, int *rank)
{
    for (int k = 0; k < pair_nproj; k++)
        if (pair_proj[k] == s) {
            *rank = pair_proj_rank[k];
            return pair_proj_lens[k];
        }
    *rank = s->sh.rank;
    return s->sh.lens;
}

/* x (standard) is reshaped to `lens` through shape ops, and that reshape
 * has a reader outside cluster c that keeps it: it stays whatever lens c's
 * ops run in, and an op of c reading x in `lens` reads it for free.
 * Readers that are shape ops themselves compose with it and are followed
 * instead. */
static bool reshaped_outside(const cluster *c, const ins *x, const int64_t *lens, int rank, bool shared,
                             int depth)
{
    if (depth > VIEW_CLUSTER_MAX)
        return false;
    for (int k = 0; k < x->nusers; k++) {
        const ins *s = x->users[k];
        if (!is_reshape(s))
            continue;
        int srank;
        const int64_t *slens = projected_lens(s, &srank);
        if (lens_equal(slens, srank, lens, rank))
            for (int q = 0; q < s->nusers; q++) {
                const ins *r = s->users[q];
                if (!is_reshape(r) && op_index(c, r) < 0 && !in_group(c, r) &&
                    (!is_cluster_op(r) || (shared && keeps_reshape(r, lens, rank))))
                    return true;
            }
        if (reshaped_outside(c, s, lens, rank, shared, depth + 1))
            return true;
    }
    return false;
}

/* The reduction d reads a reshape and a chain of shape ops from d ends in
 * lens to that only insert and remove 1s and keep the reduced axes:
 * reshape_of_reduce_of_reshape takes that chain into the reduction, which
 * then has lens to itself, so the chain is no reshape below d (seed 15401:
 * a reduction to {1, 1, 4} squeezed to {1, 4} moved into common dims in the
 * orders where the squeeze had not yet been taken in).
 *
 * A leaf_takes_unit_reshape leaf d run in lens w by
 * reshape_of_reduce_of_reshape costs its cluster nothing where the rule's
 * `let`, unit_reshape_lens(r.lens, d.lens, w, a), succeeds: only 1s move
 * and the reduced axes stay. (Where the reduction it builds keeps a
 * length-1 axis it does not reduce and a one-operand op reads it,
 * reduce_without_unit_axes_below_unary may take that 1 out again; it does
 * not where the cluster's two-operand op below is held in w by its other
 * operand, which reshaped_below_free now asks of the operand as the move
 * leaves it, seed 1012900.) */
/* reduction_chain_lens also gives, in *z2, the lens the reshape d reads
 * takes there (the rule's `let`, unit_reshape_lens). */
static bool reduction_chain_lens(const ins *d, const int64_t *to, int nto, int64_t *z2, int *nz2)
{
    if (!(d->op->classes & OPC_REDUCE) || d->nargs != 1 || !is_op(d->args[0], "reshape"))
        return false;
    const attr_value *ax = ins_attr(d, "axes");
    if (!ax)
        return false;
    const ins *r = d->args[0];
    return unit_reshape_lens_above_reduce(r->sh.lens, r->sh.rank, d->sh.lens, d->sh.rank, to, nto, ax->u.ints, ax->n,
                                          z2, nz2);
}

/* reduction_chain_lens without the lens. */
static bool reduction_takes_chain(const ins *d, const int64_t *to, int nto)
{
    int64_t z2[SHAPE_MAX_RANK];
    int nz2;
    return reduction_chain_lens(d, to, nto, z2, &nz2);
}

/* x is a reduction with integer axes of a reshape r read once, of a
 * value y that is not constant: the shape reshape_of_reduce_of_reshape and
 * reduce_below_reshape both start from, and which leaf_takes_unit_reshape
 * and leaf_lens ask for a leaf. Answers y, with *rp = r and in b[*nb] the
 * axes reduce_axes_map carries the reduction to below r (*nb is 0 where
 * they do not map, or map to none); NULL where x is not of that shape. */
static const ins *reduction_of_reshape_read_once(const ins *x, const ins **rp, int64_t *b, int *nb)
{
    const ins *r = is_reduction(x) && x->nargs == 1 ? x->args[0] : NULL;
    const attr_value *ax = r ? ins_attr(x, "axes") : NULL;
    if (!ax || ax->kind != ATTR_INTS || !is_op(r, "reshape") || r->nargs != 1 || !one_reader(r))
        return NULL;
    const ins *y = r->args[0];
    if (view_is_constant(y))
        return NULL;
    *rp = r;
    *nb = 0;
    if (!reduce_axes_map(y->sh.lens, y->sh.rank, r->sh.lens, r->sh.rank, ax->u.ints, ax->n, b, nb))
        *nb = 0;
    return y;
}

/* Leaf d is a reduction, read once, of a reshape read once, where
 * reshape_of_reduce_of_reshape takes a reshape of d into d: its guard on
 * the reduction and the reshape below (!is_constant(y), in_cluster_lens(y),
 * !reduce_moves_below || shares_reshape); the reshape of d is the
 * cluster's own, read by a cluster op and no reduction
 * (reshape_moves_below_reader says no), and the caller asks the rule's
 * `let` of each candidate lens (reduction_takes_chain: only 1s move,
 * the reduced axes stay). In such lens d costs nothing, as in its own: the
 * reshape the cluster puts on d goes into the reduction, which then runs
 * in those lens, in every order (seed 1021327, leaf_changes). */
static bool leaf_takes_unit_reshape(const ins *d)
{
    const ins *r;
    int64_t b[SHAPE_MAX_RANK];
    int nb;
    const ins *y = one_reader(d) ? reduction_of_reshape_read_once(d, &r, b, &nb) : NULL;
    if (!y)
        return false;
    rule_value v, a_y = rule_ins((ins *)y);
    if (!helper_in_cluster_lens(NULL, &a_y, 1, &v) || !v.u.i)
        return false;
    return nb == 0 || shares_reshape(r);
}

/* Leaf d's reader is a one-operand pointwise op (or a two-operand one
 * reading d twice) read by a chain of reshapes that only move 1s and keep
 * the reduced axes (pointwise_reshape_taken), and no cluster op reads the
 * chain's end: the op is a cluster of its own whose one sink is that chain,
 * which reshape_of_unary_of_reduce_of_reshape (_binary_twice_) takes into
 * d past the op in every order, so the labelling leaves the op to that rule
 * and judges d in its own lens only (the rules' goldens:
 * tanh(reduce_sum(reshape(y))) under a reshape to {1, 1, 4, 3} returned). */
static bool unit_reshape_taken_past_reader(const ins *d)
{
    rule_value r, a = rule_ins((ins *)d);
    if (!(helper_pointwise_reshape_taken(NULL, &a, 1, &r) && r.u.i))
        return false;
    const ins *e = d->users[0];
    for (int k = 0; k < VIEW_CLUSTER_MAX && one_reader(e) && is_shape_view(e->users[0]) && e->users[0]->nargs == 1; k++)
        e = e->users[0];
    for (int k = 0; k < e->nusers; k++)
        if (is_cluster_op(e->users[k]))
            return false;
    return true;
}

/* Leaf x is a reshape of a transposed value, read once: it copies, and a
 * reshape of it composes with it (reshape_of_reshape) into one copy to any
 * lens, so the cluster reads it in any lens for free. */
static bool leaf_is_copy(const ins *x)
{
    return is_op(x, "reshape") && x->nargs == 1 && !shape_standard_p(&x->args[0]->sh) &&
           !shape_broadcasted_p(&x->args[0]->sh) && one_reader(x);
}

/* The lens leaf x is weighed in: its own, or, where x is a reduction
 * of a reshape that reduce_below_reshape moves below it once x's result
 * reshape stops moving (the rule's guards and `let` but for
 * result_reshape_moves, which waits on the cluster that reads x), the
 * lens of the reduction it becomes, x's operand's reduced (*moved). Why:
 * the rule fires in every order once the reader settles, and the leaf is
 * then that reduction with a reshape to x's lens above it, which the
 * cluster reads through (reshape_inside), so it costs nothing there and
 * a reshape in x's own lens. Weighed in x's own lens instead, it was free
 * in them until the rule fired, and where another shape op reads the
 * operand (shares_reshape) the rule does not fire and x takes a reshape
 * of 1s instead (leaf_takes_unit_reshape), so x's cost followed what
 * other clusters did with that operand (seed 2089464: add(reshape(
 * reduce_mean(neg(s))), reshape(reduce_mean(reshape[{1, 4, 3}](s))))
 * returned in {4, 1}: add tied {4, 1} with {1, 4, 1} while neg read s
 * itself and went to {4, 1} once neg read a reshape of s to {1, 4, 3};
 * the pair of add with the first reduction moved neg accordingly, and
 * neg went back and forth until the rule budget ran out). The reduction
 * of a paired lower cluster keeps its own lens (labelling_cands): the
 * pair weighs it in each candidate (reduction_leaf_costs). */
static void reduced_to(const int64_t *lens, int n, const int64_t *axes, int naxes, int64_t *red);

static const int64_t *leaf_lens(const ins *x, int64_t *buf, int *n, bool *moved)
{
    *n = x->sh.rank;
    *moved = false;
    const ins *r;
    int64_t b[SHAPE_MAX_RANK];
    int nb;
    const ins *y = reduction_of_reshape_read_once(x, &r, b, &nb);
    if (!y || (y->op->classes & OPC_SHAPE) || shares_reshape(r) || unit_drop_taken_into_reduction(r) || nb == 0)
        return x->sh.lens;
    rule_value v, a_y = rule_ins((ins *)y);
    if (!helper_in_cluster_lens(NULL, &a_y, 1, &v) || !v.u.i)
        return x->sh.lens;
    reduced_to(y->sh.lens, y->sh.rank, b, nb, buf);
    *n = y->sh.rank;
    *moved = true;
    return buf;
}

/* Leaf x weighed in the lens of the reduction it becomes (leaf_lens) is
 * free in its own lens only where a reader outside cluster c keeps them:
 * the reshape to them above the moved reduction then stays for it. */
static bool leaf_read_outside(const cluster *c, const ins *x)
{
    for (int k = 0; k < x->nusers; k++)
        if (!is_reshape(x->users[k]) && op_index(c, x->users[k]) < 0 && !in_group(c, x->users[k]))
            return true;
    return false;
}

static bool reduction_leaf_costs(const labelling *L, const ins *d, int64_t *cost);
static bool leaf_weighed_in(const labelling *L, int l, int k);
static bool has_no_lens_of_its_own(const ins *x);

/* How many operand edges of c's ops read each leaf, into reads[0..nleaves):
 * a reshape of the leaf is one view, shared by those edges. */
static void leaf_reads(const cluster *c, int *reads)
{
    for (int l = 0; l < c->nleaves; l++)
        reads[l] = 0;
    for (int i = 0; i < c->nops; i++)
        for (int a = 0; a < c->ops[i]->nargs; a++) {
            const ins *leaf = NULL;
            int l = operand_kind(c, c->ops[i]->args[a], &leaf) == -1 ? leaf_index(c, leaf) : -1;
            if (l >= 0)
                reads[l]++;
        }
}

static bool unit_broadcast_operand(const ins *u);

static bool multibroadcasts_merge(const ins *v);
static const ins *merging_broadcast_operand(const ins *v, int k);

/* y past its shape ops and views of one element, or NULL where it is
 * one of them at the end. */
static const ins *past_unit_views(const ins *y)
{
    while ((y->op->classes & (OPC_VIEW | OPC_SHAPE)) && y->nargs == 1 && y->nmods == 0 &&
           shape_elements(&y->args[0]->sh) == 1)
        y = y->args[0];
    return (y->op->classes & (OPC_VIEW | OPC_SHAPE)) ? NULL : y;
}

/* r is a shape op of a leaf's chain: a reshape, squeeze or unsqueeze, or a
 * broadcast to its operand's own shape, which multibroadcast_to_same_shape
 * and broadcast_to_same_shape take away with no guard (round s75A; --ops
 * 16 seed 16009015: sin(mb[{1, 1, 3}](p7 {1, 1})) squeezed, multibroadcast
 * to the squeeze's own {1, 3} and unsqueezed back for max(literal, .) was
 * free in {1, 3} in the orders that labelled max while the chain stood,
 * where the others composed it away and sin sank: max then read the
 * broadcast in {1, 1, 3}). */
static bool leaf_chain_shape_op(const ins *r)
{
    return is_shape_op(r) || (broadcast_op(r) && r->nargs == 1 && shape_equal(&r->sh, &r->args[0]->sh));
}

/* Leaf x is u(mb(y)): u a one-operand pointwise op read once, mb a
 * multibroadcast (or the broadcast[axis] aligned_broadcast_to_multibroadcast
 * makes one, counted alike or the price goes by whether that fold fired:
 * seed 1013995; no other broadcast[axis], which no such rule takes: seeds
 * 1004896, 1002035, 1003369), y one element and no view (past its views and
 * shape ops). A reshape of x to
 * lens k becomes u(mb[k](reshape[kc](y))) (reshape_of_unary_of_unit_
 * multibroadcast), kc all 1s of k's rank, and that reshape goes where y has
 * k's rank (it stays otherwise: seed 1050969's y {1, 1} under a reshape to
 * {1, 2, 1}). So x costs nothing in lens of y's rank that are x's own up to
 * 1s, as the squeeze of such a broadcast does (squeeze_of_unit_
 * multibroadcast_*): seed 1063566, whose noisy graph's reshape[{3, 1}](sin(
 * mb[{1, 3, 1}](p1 {1, 1}))) was priced one reshape in {3, 1} where its
 * core's squeeze(mb(sin(p1))) is free. Not in other lens: once u sinks the
 * op reading the broadcast ends its cluster, its neighbours then labelled
 * alone and tying by order (seed 1002095: add(unsqueeze(neg(mb)), .) ran
 * in {32} or {4, 2, 4, 1}). Only where x is read through a chain of shape
 * ops read once that ends in other lens than x's own: where the chain ends
 * in them it folds away, u sinks, and the same holds (1002095's minimal
 * case, neg(mb) read by squeeze(unsqueeze) under max). The answer is the
 * rank of mb's operand as it stands (round s73A: not of the value past its
 * shape ops, whose rank comes and goes as its own cluster settles: seed
 * 1068440's mb(squeeze(mul {1, 1, 1})) ranked 3 before binary_into_
 * cluster_lens made mul {1, 1}, 2 after), or 0 where x is no such leaf. */
static int leaf_unit_broadcast_rank(const ins *x)
{
    if (x->nusers != 1)
        return 0;
    /* mb(y) itself, read by a two-operand op (one_element_broadcast_read):
     * a reshape of it to lens of y's rank composes into the broadcast
     * (reshape_of_multibroadcast), whatever reads it */
    if (one_element_multibroadcast(x)) {
        int r = x->args[0]->sh.rank;
        return r != x->sh.rank ? r : 0;
    }
    /* y past its shape ops and views (of one element, each the identity
     * or a reshape), which compose with the reshape to kc or fold away in
     * some orders before others (seeds 1068440: mb(squeeze(unsqueeze(s)))
     * of a {1, 1} s; 1072386: mb(transpose(sigmoid(s)))) */
    const ins *y = NULL;
    if (unit_broadcast_operand(x) && (is_op(x->args[0], "multibroadcast") || aligned_broadcast(x->args[0])))
        y = x->args[0]->args[0];
    /* or u(b(mb(y1), mb(y2))), b read once, of one-element y1 and y2 of
     * one lens whose broadcasts merge (multibroadcasts_merge:
     * binary_above_multibroadcasts makes it u(mb(b(y1, y2))), whatever it
     * waits for first), priced as that form (round s75A; --ops 16 seed
     * 16009015: max(literal, squeeze(sin(max(mb[{1, 1, 3}](p5),
     * mb[{1, 1, 3}](p6))))) of {1, 1} params ran in {1, 3} in the orders
     * that merged first, sin(mb) free there, and in {1, 1, 3} in the
     * others, sin then a leaf free only in its own lens) */
    else if (pointwise_unary(x) && x->args[0]->nusers == 1 && multibroadcasts_merge(x->args[0])) {
        const ins *y1 = merging_broadcast_operand(x->args[0], 0), *y2 = merging_broadcast_operand(x->args[0], 1);
        if (shape_elements(&y1->sh) == 1 && shape_same_lens(&y1->sh, &y2->sh) && past_unit_views(y2))
            y = y1;
    }
    /* or a transpose of such a u(mb(y)), or u of a pending op over it
     * (read once, through transposes, shape ops, pending ops and
     * one-operand ops read once), in mb's own lens: every view
     * of a broadcast of one element in those lens is that broadcast, and
     * the transposes cancel once the ops between move above them
     * (unary_above_transpose, transpose_of_transpose), the shape ops
     * compose away (round s75A; --ops 24 seed 11007136: add(reshape(t(tanh(
     * t(reshape(reshape(sin(mb[{32, 1}](p1 {1})))))))), s) under a dot was
     * labelled in {32, 1} in the orders that met add while the transposes
     * stood, and in {32} in the others, where tanh(mb) was free there) */
    else if ((is_op(x, "transpose") || pointwise_unary(x)) && x->nargs == 1) {
        const ins *w = x->args[0];
        bool unary = pointwise_unary(x);
        for (int d = 0; d < VIEW_CLUSTER_MAX && w->nargs == 1 && w->nmods == 0; d++) {
            if (broadcast_op(w)) {
                if ((is_op(w, "multibroadcast") || aligned_broadcast(w)) && unary &&
                    shape_elements(&w->args[0]->sh) == 1 && !view_is_constant(w->args[0]) &&
                    shape_same_lens(&w->sh, &x->sh))
                    y = w->args[0];
                break;
            }
            if (w->nusers != 1 ||
                !(is_op(w, "transpose") || is_shape_op(w) || pointwise_unary(w) || ins_is_pending(w)))
                break;
            unary = unary || pointwise_unary(w);
            w = w->args[0];
        }
    }
    if (!y)
        return 0;
    int rank = y->sh.rank;
    y = past_unit_views(y);
    if (!y)
        return 0;
    /* the chain of shape ops read once, and its end's lens; not where the
     * first shape op has several readers (round s74B): reshape_of_unary_of_
     * unit_multibroadcast takes a reshape read once, so a shared one stays
     * over u(mb) in x's own lens (validation seed 2036106: abs(mb[{12,
     * 1}](p1 {1})) reshaped to {2, 3, 2} and read by sub directly and
     * through a broadcast that stretches nothing: sub moved into {12} and
     * reshape[{12}](abs(mb)) stayed, 3 views where the core kept 2) */
    const ins *end = NULL;
    for (const ins *r = x->users[0]; leaf_chain_shape_op(r) && r->nusers == 1; r = r->users[0])
        end = r;
    if (!end || shape_same_lens(&end->sh, &x->sh))
        return 0;
    /* not where y has x's rank (round s73C): x's own lens are free there
     * already, and the other lens of that rank (x's with its 1s moved)
     * tied with them by a tie that went by which ops the cluster held
     * when labelled (validation seed 2077451: sub(reduce_max, sin(mb[{1,
     * 3, 1}](dot {1, 1, 1}))) ran in {1, 3, 1} or {1, 1, 3} by whether
     * max(., p6) in {1, 1, 3} had joined its cluster yet) */
    if (rank == x->sh.rank)
        return 0;
    return rank;
}

/* The op reading the end of leaf x's chain of shape ops read once. */
static const ins *leaf_chain_reader(const ins *x)
{
    const ins *r = x;
    while (r->nusers == 1 && (r == x || leaf_chain_shape_op(r)))
        r = r->users[0];
    return r != x && !leaf_chain_shape_op(r) ? r : NULL;
}

static const ins *reshape_folds_into(const ins *r, const ins *m);
static bool regroups_to(const ins *r, const ins *m, const ins *v);
static _Thread_local int clause_fold_depth;

/* The reshape r that leaf x = u(mb(y)) is read through (or a squeeze,
 * which squeeze_to_reshape makes one: u's value is standard) where the reshape
 * clause of reshape_of_unary_of_multibroadcast takes r on its own terms:
 * u and mb read once, y computed, of more than one element, not a
 * broadcast, r's lens mb's without some of its 1s (unit_axes_only and a
 * lower rank), the fold's terms (reshape_fold_fits) and r's readers not
 * all taking a broadcast's layout (takes_broadcast_layout); all but the
 * clause's readers_in_cluster_lens(r), which asks the labelling that
 * asks this. There r becomes u(mb[r.lens](y)), a leaf in r's lens, so x
 * costs nothing in them (leaf_costs), as in its own: without that the
 * cluster reading r tied m's lens and r's (a reshape at the sink against
 * one at the leaf), went to the leaf's m by the tie rule, and the clause
 * then waited, where the orders that met r first folded it and ran the
 * cluster in r's lens (round s80D; --ops 24 seed 3019214:
 * reshape[{2, 4, 1}](tanh(mb[{1, 2, 4, 1}](s {2, 1, 1}))) read by relu
 * and max(., relu) through transposes). NULL where x is no such leaf. */
static const ins *leaf_clause_reshape(const ins *x)
{
    if (clause_fold_depth > 0 || !pointwise_unary(x) || x->nargs != 1 || x->nmods != 0 || x->nusers != 1)
        return NULL;
    const ins *m = x->args[0], *r = x->users[0];
    if (!is_op(m, "multibroadcast") || m->nargs != 1 || m->nmods != 0 || m->nusers != 1 ||
        !(is_op(r, "reshape") || is_op(r, "squeeze")) || r->nargs != 1 || r->nmods != 0)
        return NULL;
    const ins *y = m->args[0];
    if (is_op(y, "multibroadcast") || view_is_constant(y) || shape_elements(&y->sh) <= 1 ||
        r->sh.rank >= m->sh.rank || !unit_lens_only(r->sh.lens, r->sh.rank, m->sh.lens, m->sh.rank))
        return NULL;
    /* r read only by ops in its lens, as readers_in_cluster_lens asks:
     * not while a shape op reads r, which composes with it by order (a
     * reshape of r leaves the leaf's reader another, and the answer then
     * went back and forth with the cluster's moves: tuned seed 6121,
     * mul(reshape[{2, 2, 4}](sigmoid(mb[{2, 1, 2, 4}](s))), reshape(p3 {1,
     * 16})) under a dot moved between {2, 2, 4} and {1, 16} until the rule
     * budget ran out) */
    for (int k = 0; k < r->nusers; k++) {
        const ins *w = r->users[k];
        if (!(w->op->classes & (OPC_UNARY | OPC_BINARY)) || w->nmods != 0 || !shape_same_lens(&w->sh, &r->sh))
            return NULL;
    }
    clause_fold_depth++;
    bool yes = !computes_one_element(y) && regroups_to(r, m, y) &&
               !(is_op(y, "reshape") && y->nargs == 1 && regroups_to(r, m, y->args[0])) &&
               reshape_folds_into(r, m) != NULL && !readers_take_broadcast(r, r, 0);
    clause_fold_depth--;
    return yes ? r : NULL;
}

/* The broadcast m whose lens leaf x is free in where x reads r, a reshape
 * of m (or a view that becomes one) that only adds 1s to m's lens and
 * waits for its read back (readers_read_back: every reader of r, x among
 * them, a one-operand op of r or a two-operand op of r and of a reshape of
 * a value of m's lens, its value reshaped back to m's lens): run in m's
 * lens, x is read through a reshape back that composes with r
 * (reshape_of_unary_of_read_back, binary_above_reshapes), and x reads m
 * itself, where the cluster run in r's lens kept the reshape at its sink
 * and r then became a broadcast in its own lens (round s81A; tuning seed
 * 1053090: unsqueeze(mb[{2, 4, 2, 4}](add)) read by relu and by sub(.,
 * unsqueeze(p3)), each squeezed back for sub(sub, relu) under add(., p0):
 * the leaves relu(r) and sub(r, .) cost a reshape each in m's lens, the
 * cluster ran in r's lens under a reshape, 4 views, where the core's
 * relu(mb) and sub(mb, p3) have 2). NULL where x is no such leaf. */
static const ins *leaf_read_back_broadcast(const ins *x)
{
    if (x->nmods != 0 || !(x->op->classes & (OPC_UNARY | OPC_BINARY)) || x->nargs < 1 || x->nargs > 2 ||
        (x->nargs == 2 && x->args[0] == x->args[1]))
        return NULL;
    for (int a = 0; a < x->nargs; a++) {
        const ins *r = x->args[a];
        if (!becomes_reshape(r) || r->nargs != 1 || r->nmods != 0)
            continue;
        /* m a broadcast, or a two-operand op whose broadcasts merge into
         * one (merges_into_broadcast: in some orders they have already) */
        const ins *m = r->args[0];
        /* read through a pending op that only changes the layout, as
         * reads_broadcast does (the one binary_above_multibroadcasts_*
         * leave over the merged broadcast goes in every order) */
        for (int d = 0; d < VIEW_CLUSTER_MAX && pending_is_transparent(m) && m->nargs == 1 &&
                        shape_same_lens(&m->args[0]->sh, &m->sh); d++)
            m = m->args[0];
        if (!(broadcast_op(m) || merges_into_broadcast(m)) || !readers_read_back(r, m))
            continue;
        return m;
    }
    return NULL;
}

/* leaf_cost[leaf][k]: what one edge reading the leaf costs in candidate k:
 * nothing in the leaf's own lens, where a reshape of the leaf to k stays
 * for a reader outside the cluster, or where the leaf is a copying reshape
 * read once, else its share of one reshape. */
static void leaf_costs(labelling *L, bool shared)
{
    const cluster *c = L->c;
    int reads[VIEW_CLUSTER_MAX];
    leaf_reads(c, reads);
    for (int l = 0; l < c->nleaves; l++) {
        const ins *x = c->leaves[l];
        bool standard = shape_standard_p(&x->sh);
        /* a reshape of a transposed value copies, and a reshape of it
         * composes with it (reshape_of_reshape) into one copy to any lens:
         * read once, it costs nothing in any candidate (seeds 4385, 6085,
         * 16610: relu(reshape(transpose(x))) ran in the lens the noise
         * gave the copy, and the reshape to the sink stayed below it; not
         * a reshape of a broadcast, which becomes one, seed 7350) */
        bool copy = leaf_is_copy(x);
        bool unit = leaf_takes_unit_reshape(x) && !unit_reshape_taken_past_reader(x);
        int unit_rank = leaf_unit_broadcast_rank(x);
        /* not where the cluster's sink has the leaf's own lens (round
         * s74B): there the cluster runs free at both ends, and freeing the
         * leaf in y's rank only made a tie with those lens that went by
         * whether the other leaves had settled (tuned seed 5458: mul of
         * reshape[{3}](sin(mb[{3, 1}](s1006 {1}))) and reshape[{3}] of
         * squeeze(unsqueeze(t(t(unsqueeze(s1002 {3}))))), returned as {3,
         * 1}: {3, 1} and {3} cost 1 each in the orders that folded the
         * transposes first, and mul stayed in {3}; the others priced the
         * pair free in {3, 1} and moved mul there) */
        if (unit_rank > 0 && lens_equal(c->sink, c->nsink, x->sh.lens, x->sh.rank))
            unit_rank = 0;
        /* and in the sink's lens of a higher rank, where the leaf's chain
         * ends at the root and only multibroadcasts read the sink
         * (sink_loose): the multibroadcast takes the one-element value
         * above the root (multibroadcast_above_binary_of_shape_of_unit_
         * multibroadcast_*), no reshape of y stays (round s73D; tuned seed
         * 16372: mul(sigmoid(unsqueeze(neg)), squeeze(sigmoid(mb[{4, 1, 1,
         * 4}](p3 {1, 1})))) reshaped under mb[{4, 4, 4, 4}] ran in {4, 4}, its
         * core in {4, 1, 4}); elsewhere reshape[1s](y) stays under the
         * broadcast (seeds 1050969, 2017640: the leaf read by sub inside a
         * cluster whose root mul is read by a multibroadcast) */
        bool root_reader = unit_rank > 0 && c->sink_loose > 0 && leaf_chain_reader(x) == c->root;
        if (reduction_leaf_costs(L, x, L->leaf_cost[l])) {
            for (int k = 0; k < L->ncand; k++)
                L->leaf_cost[l][k] /= reads[l] > 1 ? reads[l] : 1;
            continue;
        }
        const ins *cr = leaf_clause_reshape(x);
        const ins *rb = leaf_read_back_broadcast(x);
        for (int k = 0; k < L->ncand; k++) {
            if (leaf_weighed_in(L, l, k) || copy || (rb && cand_is(L, k, &rb->sh)) ||
                (unit && reduction_takes_chain(x, L->cand[k], L->ncand_rank[k])) ||
                (standard && reshaped_outside(c, x, L->cand[k], L->ncand_rank[k], shared, 0)))
                L->leaf_cost[l][k] = 0;
            else if (cr && cand_is(L, k, &cr->sh))
                /* free in r's lens once the clause folds r, but the clause
                 * folds only where the cluster runs there
                 * (readers_in_cluster_lens), so those lens win only where
                 * they save a view, and a tie goes to lens that need no
                 * fold, as LABEL_FREED's do (round s81A; validation seed
                 * 2009053: relu(squeeze(abs(mb[{1, 1, 4, 3}](s {1, 1,
                 * 3})))) read by add(., transpose {1, 4, 3}) unsqueezed
                 * to the output's {1, 1, 4, 3}: the cluster {relu, add}
                 * chose the output's lens (the transpose reshaped, 1 view;
                 * abs(mb) is no clause leaf while relu reads its reshape),
                 * but where relu moved there first it became the leaf
                 * relu(mb) reshaped for add, free at 0 in {1, 4, 3} as in
                 * {1, 1, 4, 3}; {1, 4, 3} (a reshape at the output) then
                 * tied the output's lens, the tie went to {1, 4, 3} and
                 * the clause folded there, another graph by order) */
                L->leaf_cost[l][k] = LABEL_FREED;
            else if (unit_rank > 0 &&
                     (L->ncand_rank[k] == unit_rank ||
                      (root_reader && L->ncand_rank[k] > unit_rank &&
                       lens_equal(L->cand[k], L->ncand_rank[k], c->sink, c->nsink))) &&
                     unit_lens_only(L->cand[k], L->ncand_rank[k], x->sh.lens, x->sh.rank))
                /* free in y's rank, but a tie with the leaf's own lens goes
                 * to those: in the orders that sink u below the broadcast
                 * first (unary_above_multibroadcast) the op reads mb(u(y)),
                 * is in no cluster and keeps its lens (round s75C: range
                 * seed 7012371, max(literal {6, 1}, neg(unsqueeze(sigmoid(
                 * mb[{6, 1}](s1004 {1}))))) ran in {6} or {6, 1}) */
                L->leaf_cost[l][k] = LABEL_FREED;
            else
                L->leaf_cost[l][k] = LABEL_UNIT / (reads[l] > 1 ? reads[l] : 1);
        }
    }
}

/* What the edge from operand op j, run in candidate q, to a reader run in
 * candidate k costs: nothing in one lens; nothing either where q is j's own
 * lens and a reshape of j's value to k stays for a reader outside the
 * cluster (reshaped_outside), which the reader in k then shares, as a leaf's
 * reshape is shared (leaf_costs); else one reshape. Why: an op of the
 * cluster that keeps its lens is, to this edge, the leaf it becomes once
 * its readers read it through reshapes of their own or directly (then it
 * has two readers, and cluster_collect makes it a leaf): the cost must be
 * the same in both states (seed 1013866: m = max(s, s') in {1, 4, 4, 1},
 * reshaped to {4, 4, 1} once for tanh and for max(., .) of another cluster;
 * while that reshape was shared m was tanh's op and the edge cost one
 * reshape, so tanh moved into {1, 4, 4, 1}; after the move tanh read m
 * itself, m was a leaf reshaped to {4, 4, 1} for the outer max for free, and
 * tanh moved back, until the rule budget ran out; 1012312 the same with a
 * squeeze). */
static int64_t edge_cost(const labelling *L, int j, int q, int k)
{
    if (q == k)
        return 0;
    const ins *x = L->c->ops[j];
    if (cand_is(L, q, &x->sh) && shape_standard_p(&x->sh) &&
        reshaped_outside(L->c, x, L->cand[k], L->ncand_rank[k], L->shared, 0))
        return 0;
    return LABEL_UNIT;
}

/* Post-order: cost[i][k] = the fewest reshapes below op i when it runs in
 * candidate k. */
static void label_costs(labelling *L, int i, int depth)
{
    const cluster *c = L->c;
    const ins *x = c->ops[i];
    /* an op read twice by its reader (x * x) is costed once: the walk is
     * linear in the cluster, not exponential in its depth */
    if (L->costed[i])
        return;
    L->costed[i] = true;
    for (int k = 0; k < L->ncand; k++)
        L->cost[i][k] = 0;
    for (int a = 0; a < x->nargs; a++) {
        const ins *leaf = NULL;
        int j = operand_kind(c, x->args[a], &leaf);
        if (j == -2)
            continue;
        /* an op read twice by x (x = y * y) is one value and one
         * reshape to x's lens: weighed once (seed 1061907). Its double
         * weight was set against the 1/n split of a shared op below it
         * (seed 1050264), which label_costs_shared now weighs exactly. */
        bool again = false;
        for (int b = 0; b < a && j >= 0 && !again; b++) {
            const ins *lb = NULL;
            again = operand_kind(c, x->args[b], &lb) == j;
        }
        if (again)
            continue;
        if (j >= 0 && depth < VIEW_CLUSTER_MAX)
            label_costs(L, j, depth + 1);
        int l = j == -1 ? leaf_index(c, leaf) : -1;
        for (int k = 0; k < L->ncand; k++) {
            if (j == -1) {
                L->cost[i][k] += l < 0                ? LABEL_UNIT * !cand_is(L, k, &leaf->sh)
                                 : L->leaf_pinned[l] ? L->leaf_group_cost[l][k]
                                                     : L->leaf_cost[l][k];
                continue;
            }
            int n = L->readers[j] > 1 ? L->readers[j] : 1;
            if (L->tried[j]) {
                /* a shared op whose lens label_costs_shared tries: the
                 * n readers share its own cost, each pays 1/n of it; a
                 * reader in its lens or in the lens of the one reshape
                 * of it the tuple charges once (read_lab) pays nothing
                 * more, a reader in any other lens its whole reshape; so
                 * the readers together pay what it truly costs */
                int q = L->label[j];
                L->cost[i][k] += L->cost[j][q] / n + (k == L->read_lab[j] ? 0 : edge_cost(L, j, q, k));
                continue;
            }
            int64_t best = INT64_MAX;
            for (int q = 0; q < L->ncand; q++) {
                if (L->pinned[j] && q != L->label[j])
                    continue;
                int64_t v = L->cost[j][q] + edge_cost(L, j, q, k);
                if (v < best)
                    best = v;
            }
            /* an op that n cluster ops read (cluster_root joins it where
             * they share a root) and whose lens label_costs_shared did
             * not try (too many such ops, or the group pinned it): each
             * reader pays 1/n of it, as for a shared leaf, not all of it */
            L->cost[i][k] += best / n;
        }
    }
}

/* cost[root][k] with the lens of each op that two or more cluster ops
 * read (and that nothing pinned yet) tried in turn: for each op a pair
 * (the lens it runs in, the lens of the one reshape of it its readers
 * share, charged once where they differ), each tuple of such pairs fixed
 * and the table computed under it (label_costs: the op's own cost charged
 * once, split among its readers; a reader in either lens pays nothing
 * more, one in any other its whole reshape), and each root candidate
 * keeps its cheapest tuple (share_lab, share_read, which
 * label_root_assign then gives those ops). Why: the table is a tree's,
 * exact, only where a shared op has one lens; with each reader choosing
 * its own lens for it (the 1/n split) the sum undercounts where they
 * choose differently (seed 1050264: sub in {1, 3} over add@6 read in
 * {1, 3} and {1, 1, 3} weighed 1.5 views, truly 2), and charging each
 * reader its own reshape overcounts the one reshape two readers in the
 * same lens share (seed 1001938: mul read by sub and add, both in the
 * sink's lens, moved with them at two views against one). Too many such
 * ops or lens: the split as before (nshare 0). */
static void label_costs_shared(labelling *L, int root)
{
    const cluster *c = L->c;
    L->nshare = 0;
    int combos = 1;
    for (int j = 0; j < c->nops; j++)
        if (j != root && L->readers[j] > 1 && !L->pinned[j]) {
            if (L->nshare == LABEL_SHARE_MAX || combos * L->ncand * L->ncand > LABEL_SHARE_TUPLES) {
                L->nshare = 0;
                break;
            }
            combos *= L->ncand * L->ncand;
            L->share_op[L->nshare++] = j;
        }
    if (L->nshare == 0) {
        for (int i = 0; i < c->nops; i++)
            L->costed[i] = false;
        label_costs(L, root, 0);
        return;
    }
    int64_t best[VIEW_CLUSTER_MAX + 1];
    for (int k = 0; k < L->ncand; k++)
        best[k] = INT64_MAX;
    int saved[LABEL_SHARE_MAX];
    for (int s = 0; s < L->nshare; s++) {
        saved[s] = L->label[L->share_op[s]];
        L->tried[L->share_op[s]] = true;
    }
    /* The ops whose cost a tuple changes: those that read a shared op,
     * directly or through other cluster ops. The others' costs do not
     * depend on the tuple: computed under the first, kept for the rest. */
    bool above[VIEW_CLUSTER_MAX] = {false};
    for (bool grew = true; grew;) {
        grew = false;
        for (int i = 0; i < c->nops; i++)
            for (int a = 0; a < c->ops[i]->nargs && !above[i]; a++) {
                const ins *leaf = NULL;
                int j = operand_kind(c, c->ops[i]->args[a], &leaf);
                if (j >= 0 && (L->tried[j] || above[j]))
                    grew = above[i] = true;
            }
    }
    for (int t = 0; t < combos; t++) {
        int r = t;
        int64_t once = 0;
        for (int s = 0; s < L->nshare; s++) {
            int j = L->share_op[s];
            L->label[j] = r % L->ncand;
            r /= L->ncand;
            L->read_lab[j] = r % L->ncand;
            r /= L->ncand;
            if (L->read_lab[j] != L->label[j])
                once += edge_cost(L, j, L->label[j], L->read_lab[j]);
        }
        for (int i = 0; i < c->nops; i++)
            if (t == 0 || above[i] || i == root)
                L->costed[i] = false;
        label_costs(L, root, 0);
        for (int k = 0; k < L->ncand; k++)
            if (L->cost[root][k] + once < best[k]) {
                best[k] = L->cost[root][k] + once;
                for (int s = 0; s < L->nshare; s++) {
                    L->share_lab[k][s] = (signed char)L->label[L->share_op[s]];
                    L->share_read[k][s] = (signed char)L->read_lab[L->share_op[s]];
                }
            }
    }
    for (int s = 0; s < L->nshare; s++) {
        L->label[L->share_op[s]] = saved[s];
        L->tried[L->share_op[s]] = false;
    }
    for (int k = 0; k < L->ncand; k++)
        L->cost[root][k] = best[k];
}

static void label_assign(labelling *L, int i, int depth);

/* Labels the ops below root, run in candidate k: the shared ops that
 * label_costs_shared tried take the lens its cheapest tuple for k gives
 * them, the table is computed again under that tuple, and the rest is
 * labelled from it (label_assign), below the root and below each shared
 * op. */
static void label_root_assign(labelling *L, int root, int k)
{
    const cluster *c = L->c;
    L->label[root] = k;
    L->labelled[root] = true;
    if (L->nshare > 0) {
        for (int s = 0; s < L->nshare; s++) {
            int j = L->share_op[s];
            L->tried[j] = true;
            L->label[j] = L->share_lab[k][s];
            L->read_lab[j] = L->share_read[k][s];
        }
        for (int i = 0; i < c->nops; i++)
            L->costed[i] = false;
        label_costs(L, root, 0);
        for (int s = 0; s < L->nshare; s++)
            L->labelled[L->share_op[s]] = true;
    }
    label_assign(L, root, 0);
    for (int s = 0; s < L->nshare; s++) {
        label_assign(L, L->share_op[s], 0);
        L->tried[L->share_op[s]] = false;
    }
}

static bool cand_less(const labelling *L, int a, int b)
{
    return lens_less(L->cand[a], L->ncand_rank[a], L->cand[b], L->ncand_rank[b]);
}

/* A reduction to red (over axes) can end in lens to itself: a reshape
 * above it may add or drop the 1s it keeps (reshape_of_reduce_of_reshape
 * takes a reshape below it that only moves 1s into the one above), but
 * the reduced axes stay 1s in their place among the longer axes. So lens
 * must be red with its unreduced 1s dropped, and 1s added anywhere. */
static bool reduction_reaches(const int64_t *red, int n, const int64_t *axes, int naxes, const int64_t *lens, int nl)
{
    int64_t a[SHAPE_MAX_RANK];
    int na = 0;
    for (int k = 0; k < n; k++) {
        bool reduced = false;
        for (int q = 0; q < naxes; q++)
            reduced = reduced || (axes[q] < 0 ? axes[q] + n : axes[q]) == k;
        if (red[k] != 1 || reduced)
            a[na++] = red[k];
    }
    int p = 0;
    for (int k = 0; k < nl; k++) {
        if (p < na && lens[k] == a[p])
            p++;
        else if (lens[k] != 1)
            return false;
    }
    return p == na;
}

/* What the root running in candidate k pays for the reshape to the sink
 * (candidate 0). */
static int64_t sink_cost(const labelling *L, int k)
{
    const cluster *c = L->c;
    if (c->red) {
        /* The sink is reduced: a reshape from k to the sink moves below
         * the reduction where the reduced axes map through it
         * (reduce_below_reshape) and composes with the reshapes below
         * it, so what stays is one reshape where the reduction, run in k,
         * ends in other lens than those (seeds 6109, 16185: a cluster
         * labelled in a leaf's lens with a 1 the core does not have, which
         * cost a reshape after the reduction). Where they do not map, the
         * reshape stays above the reduction, and one below it that only
         * moves 1s becomes one with it (reshape_of_reduce_of_reshape;
         * not across a pointwise op, seed 15278); counting that below
         * the sink's lens as the same or not would depend on whether the
         * reshape had moved yet (seed 7521). */
        int64_t red[SHAPE_MAX_RANK], b[SHAPE_MAX_RANK];
        int nb = 0;
        bool maps = k == 0 || (reduce_axes_map(L->cand[k], L->ncand_rank[k], c->sink, c->nsink, c->red_axes,
                                               c->nred_axes, b, &nb) &&
                               nb > 0);
        const int64_t *from = k == 0 || !maps ? c->sink : L->cand[k];
        int nfrom = k == 0 || !maps ? c->nsink : L->ncand_rank[k];
        reduced_to(from, nfrom, k == 0 || !maps ? c->red_axes : b, k == 0 || !maps ? c->nred_axes : nb, red);
        if (!maps) {
            /* the one below goes into the reduction only where the rule's
             * `let` succeeds (unit_reshape_above_reduce): not where it
             * drops a reduced axis that is longer than 1 above the
             * reduction (seed 1051330: reduce_max[{0, 1}] of {2, 2, 3, 2}
             * squeezed to {1, 3, 2}); for a reduction paired with the
             * cluster reading it, not where its reduced axes do not end
             * in red_to's lens (reduction_reaches) */
            int64_t z2[SHAPE_MAX_RANK];
            int nz2;
            bool taken = (lens_equal(red, nfrom, c->red_to, c->nred_to) ||
                          unit_reshape_lens_above_reduce(c->sink, c->nsink, red, nfrom, c->red_to, c->nred_to,
                                                         c->red_axes, c->nred_axes, z2, &nz2)) &&
                         (!c->red_paired ||
                          reduction_reaches(red, nfrom, c->red_axes, c->nred_axes, c->red_to, c->nred_to));
            return LABEL_UNIT + LABEL_UNIT * (c->red_unary || !taken);
        }
        /* Where the walk above the reduction stops at the reduction itself
         * (several readers, or one that is no reshape; not where it is
         * taken back to it, for a reshape that a reduction above takes,
         * whose 1s are weighed above: golden
         * binary_into_cluster_lens.not_red_to_by_unit_drop), red_to is the
         * reduction's present lens, which follow the lens the cluster runs
         * in now: weighed exactly, the present label always cost nothing,
         * and of two candidates that differ only by length-1 axes the one
         * the cluster ran in first won, while each reader, a reshape or a
         * cluster op that takes the reduction as a leaf, follows either
         * (readers_follow_lens). So there such candidates count as one,
         * and the tie goes by lens_less (fewer axes first), which does not
         * depend on what has fired (seed 1060499: mul in {1, 3, 24} or
         * {3, 24} under reduce_mean[{1}] read by two reshapes, and the add
         * above it in {1, 1, 24} or {1, 24}, by which cluster moved
         * first). */
        bool same = lens_equal(red, nfrom, c->red_to, c->nred_to) ||
                    (c->red_loose > 0 && nfrom <= c->red_loose &&
                     lens_equal_but_leading_ones(red, nfrom, c->red_to, c->nred_to)) ||
                    (c->red_self && !c->red_paired &&
                     unit_lens_only(red, nfrom, c->red_to, c->nred_to));
        return LABEL_UNIT * !same;
    }
    if (k == 0 || (c->sink_loose > 0 && L->ncand_rank[k] <= c->sink_loose &&
                   lens_equal_but_leading_ones(L->cand[k], L->ncand_rank[k], c->sink, c->nsink)))
        return 0;
    return LABEL_UNIT;
}

/* Pre-order: op i runs in label[i]; each operand op takes the cheapest lens
 * given that, preferring its reader's (no reshape between), then the
 * smallest. */
static void label_assign(labelling *L, int i, int depth)
{
    const cluster *c = L->c;
    const ins *x = c->ops[i];
    int k = L->label[i];
    for (int a = 0; a < x->nargs; a++) {
        const ins *leaf = NULL;
        int j = operand_kind(c, x->args[a], &leaf);
        if (j < 0 || depth >= VIEW_CLUSTER_MAX || L->labelled[j])
            continue;
        /* An operand op in another layout than the standard one prefers
         * its own lens on a tie: moved into its reader's, it would be
         * read through a reshape that copies (a leaf, is_reshape), which
         * cuts it off from this cluster, and alone it keeps its lens
         * (seed 1045686: sub(mul(dot_T, k), reshape(p)) labelled mul in
         * sub's lens, and once sub had moved, mul stayed transposed; the
         * orders that moved mul first ran it in sub's lens). */
        int pref = k;
        if (!shape_standard_p(&c->ops[j]->sh))
            for (int q = 0; q < L->ncand; q++)
                if (cand_is(L, q, &c->ops[j]->sh))
                    pref = q;
        int best = pref;
        for (int q = 0; q < L->ncand; q++) {
            int64_t vq = L->cost[j][q] + edge_cost(L, j, q, k), vb = L->cost[j][best] + edge_cost(L, j, best, k);
            if (vq < vb || (vq == vb && best != pref && q != pref && cand_less(L, q, best)))
                best = q;
        }
        L->label[j] = best;
        L->labelled[j] = true;
        label_assign(L, j, depth + 1);
    }
}

/* The lenses of the shape ops of leaf x (through shape ops) that stay for
 * a reader outside the cluster (reshaped_outside) become candidates. */
static void add_outside_cands(labelling *L, const ins *leaf, const ins *x, bool shared, int depth)
{
    if (depth > VIEW_CLUSTER_MAX)
        return;
    for (int k = 0; k < x->nusers; k++) {
        const ins *s = x->users[k];
        if (!is_reshape(s))
            continue;
        bool seen = false;
        for (int q = 0; q < L->ncand && !seen; q++)
            seen = cand_is(L, q, &s->sh);
        if (!seen && L->ncand <= VIEW_CLUSTER_MAX &&
            reshaped_outside(L->c, leaf, s->sh.lens, s->sh.rank, shared, 0)) {
            L->cand[L->ncand] = s->sh.lens;
            L->ncand_rank[L->ncand++] = s->sh.rank;
        }
        add_outside_cands(L, leaf, s, shared, depth + 1);
    }
}

static void labelling_add_cand(labelling *L, const int64_t *lens, int rank)
{
    for (int q = 0; q < L->ncand; q++)
        if (lens_equal(L->cand[q], L->ncand_rank[q], lens, rank))
            return;
    if (L->ncand <= VIEW_CLUSTER_MAX) {
        L->cand[L->ncand] = lens;
        L->ncand_rank[L->ncand++] = rank;
    }
}

static const ins *reduction_pair_reader(const cluster *c);

/* d, a leaf of c, is the reduction of a lower cluster paired with c (see
 * reduction_leaf_costs; the caller counts pair_lower_depth): that cluster
 * in *lo. */
static bool paired_lower(const cluster *c, const ins *d, cluster *lo)
{
    if (!is_reduction(d) || d->nargs != 1)
        return false;
    const ins *b = d->args[0];
    for (int k = 0; k < VIEW_CLUSTER_MAX && is_reshape(b) && one_reader(b); k++)
        b = b->args[0];
    if (!is_cluster_op(b) || !cluster_of(b, lo) || lo->red != d)
        return false;
    const ins *u = reduction_pair_reader(lo);
    return u && op_index(c, u) >= 0;
}

/* Leaf d of c is the reduction of a lower cluster paired with c. */
static bool paired_leaf(const cluster *c, const ins *d)
{
    if (pair_lower_depth > 0 || !is_reduction(d))
        return false;
    cluster *lo = malloc(sizeof *lo);
    pair_lower_depth++;
    bool paired = lo && paired_lower(c, d, lo);
    pair_lower_depth--;
    free(lo);
    return paired;
}

static void labelling_cands(labelling *L, const cluster *c, bool shared);
static bool labelling_costs(labelling *L);

/* y, the root of its cluster, has one cheapest candidate in that
 * cluster's labelling alone (no tie, which the pair with the cluster
 * reading y's reduction would settle otherwise): its lens in l. */
static bool lower_label_decided(const ins *y, int64_t *l, int *nl)
{
    cluster *lo = malloc(sizeof *lo);
    labelling *L1 = calloc(1, sizeof *L1);
    bool ok = lo && L1 && cluster_of(y, lo) && lo->root == y;
    for (int k = 0; ok && k < lo->nleaves; k++)
        ok = !is_op(lo->leaves[k], "transpose") && !is_op(lo->leaves[k], "pending_shape_change");
    if (ok) {
        labelling_cands(L1, lo, true);
        ok = labelling_costs(L1);
    }
    if (ok) {
        int root = op_index(lo, y), best = 0;
        for (int k = 1; k < L1->ncand; k++)
            if (L1->cost[root][k] < L1->cost[root][best])
                best = k;
        for (int k = 0; k < L1->ncand && ok; k++)
            ok = k == best || L1->cost[root][best] < L1->cost[root][k];
        if (ok) {
            *nl = L1->ncand_rank[best];
            memcpy(l, L1->cand[best], sizeof(int64_t) * (size_t)*nl);
        }
    }
    free(L1);
    free(lo);
    return ok;
}

/* x, a leaf of L's cluster c, is the reduction of a lower cluster paired
 * with it: the lens x has once the op y it reads (through reshapes read
 * once) runs in its cluster's lens and the reshape between has moved below
 * x (reduce_below_reshape, where x's axes map through it onto y's lens in
 * that cluster) are a candidate of c, kept in red (x's moved_lens).
 * leaf_lens asks the same of an unpaired reduction whose y is in its
 * cluster's lens already. */
static void add_paired_cands(labelling *L, const ins *x, int64_t *red)
{
    const ins *r = x->args[0], *y = r;
    for (int k = 0; k < VIEW_CLUSTER_MAX && is_reshape(y) && one_reader(y); k++)
        y = y->args[0];
    const attr_value *ax = ins_attr(x, "axes");
    int64_t l[SHAPE_MAX_RANK], b[SHAPE_MAX_RANK];
    int nl = 0, nb = 0;
    pair_upper_depth++;
    bool alone = lower_label_decided(y, l, &nl);
    pair_upper_depth--;
    if (!ax || ax->kind != ATTR_INTS || (r != y && (shares_reshape(r) || unit_drop_taken_into_reduction(r))) ||
        !alone || (r != y && !lens_equal(l, nl, y->sh.lens, y->sh.rank)) ||
        !reduce_axes_map(l, nl, r->sh.lens, r->sh.rank, ax->u.ints, ax->n, b, &nb) || nb == 0)
        return;
    cluster *lo = malloc(sizeof *lo);
    bool settled = lo && cluster_of(y, lo);
    for (int k = 0; settled && k < lo->nleaves; k++)
        settled = !transpose_folds(lo->leaves[k]);
    free(lo);
    if (!settled)
        return;
    reduced_to(l, nl, b, nb, red);
    labelling_add_cand(L, red, nl);
}

/* The broadcast x reads through one-operand pointwise ops and shape ops,
 * or x itself where it is one (NULL if there is none): the lens a value of
 * one element broadcast has whatever ops have moved across it yet. */
static const ins *one_operand_broadcast_below(const ins *x)
{
    for (int d = 0; d <= VIEW_CLUSTER_MAX && x->nargs == 1 && x->nmods == 0; d++) {
        if (broadcast_op(x))
            return x;
        if (!((x->op->classes & (OPC_UNARY | OPC_SHAPE)) || ins_is_pending(x)))
            return NULL;
        x = x->args[0];
    }
    return NULL;
}

/* The lens in which leaf x is free by the y's-rank freeing of a one-element
 * broadcast (leaf_costs, leaf_unit_broadcast_rank): x's lens without 1s
 * where they have y's rank. Also of a leaf that is a chain of shape ops
 * over mb(u(y)) (one_element_multibroadcast), which has no lens of its own:
 * a reshape of such a broadcast is the broadcast in its lens
 * (reshape_of_multibroadcast*), so it is free in the same lens (round s76C;
 * tuning seed 1046528: max(mb[{2, 1, 4}](sigmoid(s {1, 1})), literal)
 * above a reduction moved into {2, 4}, where the leaf became reshape(mb),
 * whose candidates were the broadcast's {2, 1, 4} alone, and back, until
 * the rule budget ran out). Not of a reduction or a leaf whose lens moved
 * (labelling_cands). */
static bool leaf_freed_lens(const ins *x, int64_t *out, int *n)
{
    if (is_reduction(x))
        return false;
    const ins *src = x;
    int ur = leaf_unit_broadcast_rank(x);
    if (ur == 0 && is_shape_op(x)) {
        const ins *b = x->args[0];
        for (int d = 0; d < VIEW_CLUSTER_MAX && b->nargs == 1 && (is_shape_op(b) || ins_is_pending(b)); d++)
            b = b->args[0];
        if (one_element_multibroadcast(b) && b->args[0]->sh.rank != b->sh.rank) {
            ur = b->args[0]->sh.rank;
            src = b;
        }
    }
    if (ur <= 0)
        return false;
    *n = lens_without_ones(src->sh.lens, src->sh.rank, out);
    return *n == ur;
}

/* The candidates of cluster c's labelling: the sink's lens first, then the
 * leaves', then those of kept reshapes. */
static void labelling_cands(labelling *L, const cluster *c, bool shared)
{
    L->c = c;
    L->shared = shared;
    L->cand[0] = c->sink;
    L->ncand_rank[0] = c->nsink;
    L->ncand = 1;
    for (int k = 0; k < c->nleaves; k++) {
        const ins *x = c->leaves[k];
        bool moved = false;
        bool paired = is_reduction(x) && paired_leaf(c, x);
        L->leaf_lens[k] = is_reduction(x) && !paired ? leaf_lens(x, L->moved_lens[k], &L->nleaf_lens[k], &moved)
                                                     : x->sh.lens;
        if (!moved)
            L->nleaf_lens[k] = x->sh.rank;
        /* a two-operand op of one element and a reshape of y, read only by
         * shape ops and the cluster's ops (unit_binary_mover), is free in
         * y's lens as in its
         * own: read in y's lens, binary_above_reshape_unit_* take it there
         * once the cluster runs there (reshaped_back_outside) and the
         * reshape back composes away; read in its own, it stays. Weighed
         * in its own alone, it made y's lens cost a reshape they do not
         * cost, and the cluster took the op's lens on a tie that the
         * move breaks by a view (seed 1012623: add(reshape(p0), mb(k))
         * read through reshapes by sin and mul, above a reduction in
         * p0's lens, ran sin and mul in add's padded {4, 2, 4, 4, 1}, 4
         * views against the core's 2; weighed in y's lens alone, not free
         * in its own, it broke ties the other way in 83 seeds of
         * 1000000.., round s59C's V1) */
        const ins *ym = !is_reduction(x) && !moved ? unit_binary_mover(x, c->ops, c->nops) : NULL;
        if (ym) {
            L->leaf_lens[k] = ym->sh.lens;
            L->nleaf_lens[k] = ym->sh.rank;
        }
        L->leaf_own_free[k] = !moved || ym || leaf_read_outside(c, x);
        moved = moved || ym;
        /* a leaf that computes one element under a broadcast
         * (has_no_lens_of_its_own) stands for the lens of that broadcast,
         * not its own: one-operand pointwise ops and reshapes between move
         * above and below the broadcast and its reshapes by order
         * (unary_above_reshape, unary_into_cluster_lens, the broadcast
         * sinking rules), and each stop gave a candidate of its own (seed
         * 1088081: sub(neg(reshape(tanh(mb(p2)))), p1) of a {1} p2 ran in
         * neg's {4, 1} in the orders where neg had moved above the
         * reshape {1, 4, 1} before the cluster was labelled, and in p1's
         * {1, 4, 1} in the others) */
        const ins *b = !is_reduction(x) && has_no_lens_of_its_own(x) ? one_operand_broadcast_below(x) : NULL;
        if (b)
            labelling_add_cand(L, b->sh.lens, b->sh.rank);
        else
            labelling_add_cand(L, L->leaf_lens[k], L->nleaf_lens[k]);
        if (moved && L->leaf_own_free[k])
            labelling_add_cand(L, x->sh.lens, x->sh.rank);
        /* a paired reduction keeps its own lens (reduction_leaf_costs
         * weighs it in each candidate), but the lens of the reduction it
         * becomes once reduce_below_reshape moves its operand's reshape
         * below it (leaf_lens) are a candidate too: after the move they
         * are its own, and the candidates must be the same in both states
         * (seed 2033189: max of reduce_sum(reshape[{1, 2, 3, 4}](neg)) in
         * {1, 1, 1, 4} and a sin in {1, 2, 2}; in the orders that labelled
         * max before the move, {1, 1, 4} was no candidate, and max went to
         * sin's lens) */
        if (paired)
            add_paired_cands(L, x, L->moved_lens[k]);
        /* a leaf u(mb(y)) free in the lens of y's rank that are its own up
         * to 1s (leaf_costs): where its lens without 1s have that rank,
         * those lens are a candidate, not only where another leaf has them
         * (validation seed 2034333: sub's relu(bc[{16, 1}](s {1})) was free
         * in {16}, a candidate only in the orders whose other leaf, mul,
         * had moved to {16} first) */
        int nn = 0;
        if (!moved && leaf_freed_lens(x, L->moved_lens[k], &nn))
            labelling_add_cand(L, L->moved_lens[k], nn);
        /* and the lens of the reshape the clause folds it into
         * (leaf_clause_reshape), free there too */
        const ins *cr = !moved && !is_reduction(x) ? leaf_clause_reshape(x) : NULL;
        if (cr)
            labelling_add_cand(L, cr->sh.lens, cr->sh.rank);
        /* and the lens of the broadcast its read-back reshape composes
         * into (leaf_read_back_broadcast), free there too */
        const ins *rb = !moved && !is_reduction(x) ? leaf_read_back_broadcast(x) : NULL;
        if (rb)
            labelling_add_cand(L, rb->sh.lens, rb->sh.rank);
    }
    /* and the lens of each reshape of a leaf that stays for a reader
     * outside the cluster, where the leaf costs nothing as in its own:
     * leaf_base makes the value below such a reshape the leaf, and the
     * reshape's lens, the leaf's own before, must stay a candidate, so
     * that the ties (the smallest lens first) see the same candidates
     * in every order */
    for (int k = 0; k < c->nleaves; k++)
        if (shape_standard_p(&c->leaves[k]->sh))
            add_outside_cands(L, c->leaves[k], c->leaves[k], shared, 0);
    /* and those of each op's kept reshapes (edge_cost: free there for
     * an op that keeps its lens, as for the leaf it becomes); not the
     * root's where the sink is loose (sink_loose): then every reshape of
     * the root is the chain to the sink, whose lenses the sink stands for
     * (sink_cost), and the chain stays there or goes by order
     * (multibroadcast_of_unit_reshape takes a chain of leading 1s from
     * each reader, multibroadcast_of_reshape_leading_ones the rest from a
     * reshape of one reader only, reshape_of_reshape and
     * reshape_to_same_shape what is left once the root runs in its
     * lens): counted, it added a candidate while it stood, and a tie went
     * to it and away from it in turn until the rule budget ran out (seed
     * 1025311: max(literal, p0) of a {3, 1} p0 unsqueezed for two
     * multibroadcasts; seed 7007101 at 24 ops, with one: tanh of a
     * {1, 3, 4, 1} reduction reshaped to {1, 3, 4} for a multibroadcast
     * ran in {1, 3, 4} while the reshape stood, and where it ran in them
     * they were no candidate, and the tie went back to the reduction's
     * lens). Asked only where the sink had several readers, it left the
     * one-reader chain counted. */
    for (int k = 0; k < c->nops; k++)
        if (shape_standard_p(&c->ops[k]->sh) && !(c->sink_loose > 0 && c->ops[k] == c->root))
            add_outside_cands(L, c->ops[k], c->ops[k], shared, 0);
}

/* The cost tables; false where the root is not an op. */
static bool labelling_costs(labelling *L)
{
    const cluster *c = L->c;
    int root = op_index(c, c->root);
    if (root < 0)
        return false;
    leaf_costs(L, L->shared);
    for (int i = 0; i < c->nops; i++)
        for (int a = 0; a < c->ops[i]->nargs; a++) {
            const ins *leaf = NULL;
            int j = operand_kind(c, c->ops[i]->args[a], &leaf);
            bool seen = false;
            for (int b = 0; b < a && j >= 0 && !seen; b++)
                seen = operand_kind(c, c->ops[i]->args[b], &leaf) == j;
            if (j >= 0 && !seen)
                L->readers[j]++;
        }
    label_costs_shared(L, root);
    return true;
}

/* Leaf l of L's cluster is free in candidate k as in its own lens
 * (leaf_lens, leaf_read_outside). */
static bool leaf_weighed_in(const labelling *L, int l, int k)
{
    return lens_equal(L->cand[k], L->ncand_rank[k], L->leaf_lens[l], L->nleaf_lens[l]) ||
           (L->leaf_own_free[l] && cand_is(L, k, &L->c->leaves[l]->sh));
}

/* Above a reduction, whether the sink's lens are a leaf's own, or those of
 * a reshape of a leaf that stays for a reader outside the cluster: then the
 * sink's lens are a candidate like the leaves' (see cluster_labelled_lens). */
static bool labelling_sink_leaf(const labelling *L)
{
    const cluster *c = L->c;
    bool sink_leaf = false;
    int64_t fl[SHAPE_MAX_RANK];
    int nf = 0;
    for (int q = 0; c->red && q < c->nleaves && !sink_leaf; q++)
        sink_leaf = leaf_weighed_in(L, q, 0) || leaf_is_copy(c->leaves[q]) ||
                    (shape_standard_p(&c->leaves[q]->sh) &&
                     reshaped_outside(c, c->leaves[q], L->cand[0], L->ncand_rank[0], L->shared, 0)) ||
                    /* or the lens a leaf is freed in (leaf_freed_lens), a
                     * candidate of that leaf like its own (round s76C;
                     * tuning seed 1061298: neg(mul(mb[{3, 1}](relu(s {1})),
                     * p {3, 1})) above a reduction: with the sink in {3}
                     * the freed lens were the sink's and no candidate, the
                     * cluster moved into {3, 1}, reduce_below_reshape made
                     * the sink {3, 1, 1}, {3} a leaf's candidate again won
                     * the tie, and back) */
                    (L->leaf_lens[q] == c->leaves[q]->sh.lens &&
                     leaf_freed_lens(c->leaves[q], fl, &nf) && lens_equal(fl, nf, L->cand[0], L->ncand_rank[0]));
    return sink_leaf;
}

/* The root's candidate in the labelling alone (see cluster_labelled_lens). */
static int labelling_root_choice(const labelling *L)
{
    const cluster *c = L->c;
    int root = op_index(c, c->root);
    /* the root: the cheapest with the reshape to the sink counted; ties
     * to a leaf's lens (the smallest), the sink's (candidate 0) last:
     * where the sink is depends on whether a reshape below has moved on
     * past a reduction yet, where the leaves are does not */
    /* Above a reduction the sink is where the reshape below the
     * cluster waits until the cluster runs in its lens; it then moves
     * on past the reduction and the lens the cluster runs in become
     * the sink. So there the sink is no candidate of its own, and a
     * leaf's lens that is the sink's ties as a leaf's (seed 2893: the
     * labelling moved back and forth between two leaves' lens with
     * the rule budget used up). */
    /* So does the sink's lens where a reshape of a leaf to them stays
     * for a reader outside the cluster (reshaped_outside, free there
     * like the leaf's own lens): it does not move, whatever the
     * reshape below does (seed 1016498: mul(r, r) of r = reshape(p0)
     * also read by max(r, mb(...)), above a reduction in r's lens, ran
     * in p0's lens and added a reshape back). */
    bool sink_leaf = labelling_sink_leaf(L);
    int best = c->red && !sink_leaf && L->ncand > 1 ? 1 : 0;
    for (int k = best + 1; k < L->ncand; k++) {
        int64_t vk = L->cost[root][k] + sink_cost(L, k), vb = L->cost[root][best] + sink_cost(L, best);
        if (vk < vb || (vk == vb && ((best == 0 && !sink_leaf) || cand_less(L, k, best))))
            best = k;
    }
    return best;
}

/* Where a reduction stands between two clusters, each decides the other's
 * lens: the lower cluster (whose sink the reduction reads) weighs the
 * reduction's value against the lens it is reshaped to above (red_to, the
 * lens the upper cluster reads it in), and the upper cluster weighs the
 * reduction as a leaf in its current lens, which is the lower cluster's
 * current label reduced. Whichever moved first decided (seed 1042319: mul
 * under reduce_mean read through a unit broadcast by sub ran in {2, 1} or
 * {2} by order; 1053064: sub under reduce_max read through an unsqueeze by
 * another sub). So the two are labelled as one: the upper
 * cluster's leaf costs, in each candidate m, what the lower cluster
 * labelled alone costs with its reduction's value read in m (the lower
 * cluster hangs below that one edge, so the upper cluster's table stays
 * exact), and the lower cluster reads red_to as the lens the upper
 * cluster's labelling gives the op that reads the reduction. Only one
 * level: a cluster labelled for another's leaf does not pair its own. */

/* u can be an op of the upper cluster of c's pair: a cluster op outside
 * c that reads no broadcast. */
static bool pair_upper_op(const cluster *c, const ins *u)
{
    return is_cluster_op(u) && !reads_broadcast(u) && op_index(c, u) < 0;
}

/* The cluster op that reads c's reduction through reshapes read once, or
 * NULL; there must be a cluster op reading the end of the walk (red_end)
 * in either case. Where one-operand pointwise ops stand between the
 * reduction and red_to (red_unary), the first of them is that reader: it
 * is an op of the upper cluster (the one of red_end's reader), which
 * reads the reduction as a leaf there and weighs the rest of the chain as
 * its own ops (seed 1032653: tanh over reduce_sum read by mul through an
 * unsqueeze; each of the two clusters was labelled alone against the
 * other's present lens, and which moved first decided). Not where the
 * chain ends in a multibroadcast or another op that is no cluster op: the
 * lower cluster alone weighs red_to loosely there (red_loose), which the
 * pair does not (seed 1032869: relu over reduce_mean, read by a
 * multibroadcast, ran in {3, 1} or {1, 3, 1} by order). */
static const ins *reduction_pair_reader(const cluster *c)
{
    /* Where the walk stopped at the reduction for several readers, each
     * of them (through reshapes read once) an op of one upper cluster,
     * the two clusters are paired as with one reader: the lower one
     * reads red_to as the upper one's label of the first reader, and the
     * upper one weighs the reduction as a leaf by the lower one's cost
     * (leaf_costs shares it among the reads). Labelled alone, the lower
     * cluster weighed red_to by the reduction's present lens, and which
     * cluster moved first decided (the minimal case of seed 16035: sub
     * in {3, 4, 3, 1} or {3, 4, 3} under reduce_max[{2}] read by sigmoid
     * and max(sigmoid, d), returned in {3, 4, 1, 1}). Not asked inside
     * the upper side of a pair.
     *
     * Where a reader's cluster is pending (a pending op inside it, or a
     * reshape chain on its way that the rules move first: cluster_of), the
     * pair is not known yet, and the answer is that reader, whose pending
     * cluster makes the lower one wait (pair_upper_pending), as it does
     * for one reader. Answered "no pair" there, the lower cluster was
     * labelled alone against red_to = the reduction's present lens, which
     * follow the lens it runs in now (a one-element reduction has no
     * red_self exemption: readers_follow_lens), so it kept whatever it
     * ran in, while the pairing, once the upper cluster settled, moved it
     * to the upper cluster's label: the two answers differ on the two
     * sides of the move the alone answer makes, and the driver looped
     * (seed 9018058, --ops 24: add in {3} or {1, 3} under reduce_sum to
     * one element read by max and mul through reshapes that
     * reshape_of_reshape had not folded yet; the orders that asked while
     * the upper cluster was pending moved add into {1, 3}, the paired
     * state moved it back). Waiting holds in both states: a move of the
     * lower cluster changes neither the upper cluster's ops nor whether
     * they wait (the reduction is their leaf in every lens the lower one
     * runs in), so whether the pair is known does not depend on which
     * side of that move the graph is. */
    if (c->red && c->red_end == c->red && c->red->nusers > 1 && pair_upper_depth == 0) {
        const ins *ups[VIEW_CLUSTER_MAX];
        int n = 0;
        for (int k = 0; k < c->red->nusers; k++) {
            const ins *u = c->red->users[k];
            for (int depth = 0; depth <= VIEW_CLUSTER_MAX && is_reshape(u) && one_reader(u); depth++)
                u = u->users[0];
            if (!pair_upper_op(c, u) || n >= VIEW_CLUSTER_MAX)
                return NULL;
            ups[n++] = u;
        }
        const ins *root = NULL;
        cluster *uc = malloc(sizeof *uc);
        for (int k = 0; uc && k < n; k++) {
            bool ok = cluster_of(ups[k], uc);
            if (!ok && uc->pending) {
                free(uc);
                return ups[k];
            }
            if (!ok || (root && uc->root != root)) {
                free(uc);
                return NULL;
            }
            root = uc->root;
        }
        free(uc);
        return root ? ups[0] : NULL;
    }
    if (!c->red || !c->red_end || !one_reader(c->red_end) || !pair_upper_op(c, c->red_end->users[0]))
        return NULL;
    const ins *u = c->red;
    for (int depth = 0; depth <= VIEW_CLUSTER_MAX && one_reader(u) && u != c->red_end && is_reshape(u->users[0]);
         depth++)
        u = u->users[0];
    if (!one_reader(u))
        return NULL;
    u = u->users[0];
    return pair_upper_op(c, u) ? u : NULL;
}

/* c is the lower cluster of a reduction pair whose upper cluster is not
 * known yet (a pending op inside it); the cluster of the upper reader in
 * *up. Not where one-operand ops stand between the reduction and red_to
 * (red_unary): such a lower cluster is labelled alone until the upper one
 * is known, as it was before those pairs were taken; waiting held it in
 * its old lens while the upper cluster's other ops were labelled against
 * them in the orders that asked those first (seed 18000: tanh under
 * reduce_max, read by relu, stayed in an unsqueeze's rank-5 lens while mul
 * above relu moved into a sigmoid's lens, and the graph then differed by
 * order). */
static bool pair_upper_pending(const cluster *c, cluster *up)
{
    const ins *u = reduction_pair_reader(c);
    pair_upper_depth++;
    bool pending = u && !c->red_unary && !cluster_of(u, up) && up->pending;
    pair_upper_depth--;
    return pending;
}

/* x's cluster waits for its pair's upper cluster (above). */
static bool pair_waits(const ins *x)
{
    cluster *cs = malloc(2 * sizeof *cs);
    bool waits = cs && cluster_of(x, cs) && pair_upper_pending(cs, cs + 1);
    free(cs);
    return waits;
}

/* Sets pair_proj for upper candidate m of L: each leaf e of L's cluster
 * other than d that reshape_of_reduce_of_reshape runs in m (as leaf_costs
 * asks: leaf_takes_unit_reshape, not unit_reshape_taken_past_reader, and
 * the rule's `let` succeeds for m) has its reshape seen in the lens the
 * rule gives it. True when the set differs from the last candidate's (the
 * lower cluster is weighed again). */
static bool pair_project(const labelling *L, const ins *d, int m)
{
    const cluster *c = L->c;
    int n = 0;
    bool changed = false;
    for (int l = 0; l < c->nleaves && n < VIEW_CLUSTER_MAX; l++) {
        const ins *e = c->leaves[l];
        if (e == d || !leaf_takes_unit_reshape(e) || unit_reshape_taken_past_reader(e))
            continue;
        const ins *r = e->args[0];
        int64_t z2[SHAPE_MAX_RANK];
        int nz2;
        if (!reduction_chain_lens(e, L->cand[m], L->ncand_rank[m], z2, &nz2) ||
            lens_equal(z2, nz2, r->sh.lens, r->sh.rank))
            continue;
        changed = changed || n >= pair_nproj || pair_proj[n] != r ||
                  !lens_equal(z2, nz2, pair_proj_lens[n], pair_proj_rank[n]);
        pair_proj[n] = r;
        pair_proj_rank[n] = nz2;
        memcpy(pair_proj_lens[n], z2, sizeof(int64_t) * (size_t)nz2);
        n++;
    }
    changed = changed || n != pair_nproj;
    pair_nproj = n;
    return changed;
}

/* d, a leaf of L's cluster, is the reduction of a lower cluster paired with
 * it (above): cost[m] is that cluster's cheapest labelling with d's value
 * read in candidate m, less the cheapest over all m. */
static bool reduction_leaf_costs(const labelling *L, const ins *d, int64_t *cost)
{
    if (pair_lower_depth > 0 || !is_reduction(d))
        return false;
    cluster *lo = malloc(sizeof *lo);
    labelling *L1 = calloc(1, sizeof *L1);
    bool ok = lo && L1;
    pair_lower_depth++;
    ok = ok && paired_lower(L->c, d, lo);
    if (ok) {
        labelling_cands(L1, lo, L->shared);
        ok = labelling_costs(L1);
    }
    if (ok) {
        int root = op_index(lo, lo->root);
        int64_t least = INT64_MAX;
        lo->red_loose = 0;
        lo->red_paired = true;
        lo->red_unary = false; /* red_to is the pair reader's, below any pointwise op */
        for (int m = 0; m < L->ncand && ok; m++) {
            if (pair_project(L, d, m)) {
                memset(L1, 0, sizeof *L1);
                labelling_cands(L1, lo, L->shared);
                ok = labelling_costs(L1);
            }
            lo->nred_to = L->ncand_rank[m];
            memcpy(lo->red_to, L->cand[m], sizeof(int64_t) * (size_t)lo->nred_to);
            int k = ok ? labelling_root_choice(L1) : 0;
            cost[m] = ok ? L1->cost[root][k] + sink_cost(L1, k) : 0;
            if (cost[m] < least)
                least = cost[m];
        }
        for (int m = 0; ok && m < L->ncand; m++)
            cost[m] -= least;
    }
    pair_nproj = 0;
    pair_lower_depth--;
    free(L1);
    free(lo);
    return ok;
}

/* The labelling of cluster c (v's); `shared`: a leaf's reshape that a cluster
 * op of another cluster reads counts as staying when that cluster, asked
 * without `shared`, keeps it. */
static bool cluster_labelled_lens(const cluster *c, const ins *v, bool shared, int64_t *lens, int *n)
{
    labelling *L = calloc(1, sizeof *L);
    if (!L)
        return false;
    labelling_cands(L, c, shared);
    bool ok = labelling_costs(L);
    if (ok) {
        int root = op_index(c, c->root);
        int best = labelling_root_choice(L);
        label_root_assign(L, root, best);
        int i = op_index(c, v);
        ok = i >= 0;
        if (ok) {
            *n = L->ncand_rank[L->label[i]];
            memcpy(lens, L->cand[L->label[i]], sizeof(int64_t) * (size_t)*n);
        }
    }
    free(L);
    return ok;
}

/* ---- clusters that share a reshape, labelled together ---- */

static int group_add_cluster(cluster *gs, int *ng, const ins *r)
{
    if (!is_cluster_op(r) || reads_broadcast(r))
        return 1;
    for (int g = 0; g < *ng; g++)
        if (op_index(&gs[g], r) >= 0)
            return 1;
    if (*ng == GROUP_MAX)
        return 0;
    if (!cluster_of(r, &gs[*ng]))
        return 0;
    for (int g = 0; g < *ng; g++)
        if (gs[g].root == gs[*ng].root)
            return 0; /* an op in a cluster of the same root but not in it */
    (*ng)++;
    return 1;
}

static int group_add_reader_clusters(cluster *gs, int *ng, const ins *x, int depth)
{
    if (depth > VIEW_CLUSTER_MAX)
        return 1;
    for (int k = 0; k < x->nusers; k++) {
        const ins *s = x->users[k];
        if (is_reshape(s)) {
            if (!group_add_reader_clusters(gs, ng, s, depth + 1))
                return 0;
        } else if (!group_add_cluster(gs, ng, s))
            return 0;
    }
    return 1;
}

/* The clusters connected to the group's clusters by a shared value: a
 * cluster op outside them reading, through reshapes, a standard leaf or an
 * op of one of them, or a leaf that is itself a cluster op. Returns the
 * number of clusters (the first is gs[0]), or 0 where there are more than
 * GROUP_MAX or one of them is not known yet. */
static int cluster_group(cluster *gs)
{
    int ng = 1;
    for (int g = 0; g < ng; g++) {
        const cluster *c = &gs[g];
        for (int k = 0; k < c->nleaves; k++) {
            const ins *x = c->leaves[k];
            if (is_cluster_op(x) && !group_add_cluster(gs, &ng, x))
                return 0;
            if (shape_standard_p(&x->sh) && !group_add_reader_clusters(gs, &ng, x, 0))
                return 0;
        }
        for (int k = 0; k < c->nops; k++)
            if (shape_standard_p(&c->ops[k]->sh) && !group_add_reader_clusters(gs, &ng, c->ops[k], 0))
                return 0;
    }
    return ng;
}

/* canonical order of the group's clusters, the same whichever asks */
static bool cluster_before(const cluster *a, const cluster *b)
{
    if (a->nops != b->nops)
        return a->nops < b->nops;
    if (a->nleaves != b->nleaves)
        return a->nleaves < b->nleaves;
    if (!lens_equal(a->sink, a->nsink, b->sink, b->nsink))
        return lens_less(a->sink, a->nsink, b->sink, b->nsink);
    if (!shape_equal(&a->root->sh, &b->root->sh))
        return lens_less(a->root->sh.lens, a->root->sh.rank, b->root->sh.lens, b->root->sh.rank);
    int c = strcmp(a->root->op->name, b->root->op->name);
    if (c != 0)
        return c < 0;
    return a->root->order < b->root->order; /* program order, not addresses: the same on every run */
}

typedef struct {
    const ins *x;
    const int64_t *lens;
    int rank;
} group_view;

static void group_view_add(group_view *vs, int *nv, int max, const ins *x, const int64_t *lens, int rank)
{
    for (int k = 0; k < *nv; k++)
        if (vs[k].x == x && lens_equal(vs[k].lens, vs[k].rank, lens, rank))
            return;
    if (*nv < max)
        vs[(*nv)++] = (group_view){x, lens, rank};
}

/* The lens x runs in under the group's labelling, if it is a group op. */
static bool group_lens_of(labelling *const *Ls, int ng, const ins *x, const int64_t **lens, int *rank)
{
    for (int g = 0; g < ng; g++) {
        int i = op_index(Ls[g]->c, x);
        if (i >= 0) {
            *lens = Ls[g]->cand[Ls[g]->label[i]];
            *rank = Ls[g]->ncand_rank[Ls[g]->label[i]];
            return true;
        }
    }
    return false;
}

/* The labelling of a group cluster other than g that has x among its ops,
 * with x's index there in *i, or NULL. */
static const labelling *group_cluster_holding(labelling *const *Ls, int ng, int g, const ins *x, int *i)
{
    for (int h = 0; h < ng; h++)
        if (h != g && (*i = op_index(Ls[h]->c, x)) >= 0)
            return Ls[h];
    return NULL;
}

/* The views of group root x (of cluster g) that its readers outside the
 * group read it through, with the root run in lens: one per lens other
 * than lens that such a reader reads, directly or through reshapes of x
 * (any number of readers each). The group's own ops count what they read
 * themselves (group_cost's leaf edges). */
static void group_root_reader_views(group_view *vs, int *nv, int max, labelling *const *Ls, int ng, int g,
                                    const ins *root, const ins *x, const int64_t *lens, int rank, int depth)
{
    if (depth > VIEW_CLUSTER_MAX)
        return;
    for (int k = 0; k < x->nusers; k++) {
        const ins *u = x->users[k];
        if (u != x && is_reshape(u)) {
            group_root_reader_views(vs, nv, max, Ls, ng, g, root, u, lens, rank, depth + 1);
            continue;
        }
        int i;
        if (!group_cluster_holding(Ls, ng, g, u, &i) && !lens_equal(x->sh.lens, x->sh.rank, lens, rank))
            group_view_add(vs, nv, max, root, x->sh.lens, x->sh.rank);
    }
}

/* The exact cost of the group's labelling: one reshape per value and lens
 * it is read in other than its own (shared by every reader in that lens,
 * of whichever cluster), and for each root what its sink costs above a
 * reduction or where a multibroadcast reads it, else the views its readers
 * outside the group read it through (group_root_reader_views: they do not
 * change when the root moves, where "a reshape to the sink" did). */
static int64_t group_cost(labelling *const *Ls, int ng)
{
    enum { NV = 4 * VIEW_CLUSTER_MAX * GROUP_MAX };
    group_view vs[NV];
    int nv = 0;
    int64_t cost = 0;
    for (int g = 0; g < ng; g++) {
        const labelling *L = Ls[g];
        const cluster *c = L->c;
        int root = op_index(c, c->root);
        int kr = L->label[root];
        if (c->red || c->sink_loose || c->sink_mover)
            cost += sink_cost(L, kr);
        else
            group_root_reader_views(vs, &nv, NV, Ls, ng, g, c->root, c->root, L->cand[kr], L->ncand_rank[kr], 0);
        for (int i = 0; i < c->nops; i++) {
            const ins *x = c->ops[i];
            int k = L->label[i];
            for (int a = 0; a < x->nargs; a++) {
                const ins *leaf = NULL;
                int j = operand_kind(c, x->args[a], &leaf);
                if (j == -2)
                    continue;
                if (j >= 0) {
                    if (L->label[j] != k && edge_cost(L, j, L->label[j], k) != 0)
                        group_view_add(vs, &nv, NV, c->ops[j], L->cand[k], L->ncand_rank[k]);
                    continue;
                }
                const int64_t *own = leaf->sh.lens;
                int nown = leaf->sh.rank;
                bool grouped = group_lens_of(Ls, ng, leaf, &own, &nown);
                if (lens_equal(own, nown, L->cand[k], L->ncand_rank[k]))
                    continue;
                int l = leaf_index(c, leaf);
                /* free where a reshape to k stays for a reader outside
                 * the group (leaf_costs), or in y's rank (LABEL_FREED, free but
                 * second to the leaf's own lens), of a grouped leaf where it keeps
                 * its lens */
                if (l >= 0 && L->leaf_cost[l][k] <= LABEL_FREED &&
                    (!grouped || lens_equal(own, nown, leaf->sh.lens, leaf->sh.rank)))
                    continue;
                group_view_add(vs, &nv, NV, leaf, L->cand[k], L->ncand_rank[k]);
            }
        }
    }
    return cost + LABEL_UNIT * nv;
}

/* The ops of the group in more than one of its clusters whose labels are
 * tried like the roots' (see group_labelled_lens): those that an op of a
 * cluster reads that is in no other cluster. */
enum { GROUP_SHARED = 4 };
typedef struct {
    const ins *x[GROUP_SHARED];
    int first[GROUP_SHARED]; /* the first cluster (canonical order) that holds it */
    const shape *sink[GROUP_SHARED]; /* the end of its chain of reshapes read once (as cluster_of's sink) */
    int n;
} group_shared;

static bool group_op_shared(labelling *const *Ls, int ng, const ins *x)
{
    int in = 0;
    for (int g = 0; g < ng; g++)
        in += op_index(Ls[g]->c, x) >= 0;
    return in > 1;
}

/* The cluster of the group whose root x is, or -1. Such an op in another
 * cluster too (read once through a reshape that ops of both read, or an
 * op of theirs) is labelled in every cluster with its own cluster's root
 * label (group_assign), so the group gives the same answer whether x is
 * read once by that reshape or not (seed 1083252). */
static int group_root_of(labelling *const *Ls, int ng, const ins *x)
{
    for (int g = 0; g < ng; g++)
        if (Ls[g]->c->root == x)
            return g;
    return -1;
}

static bool group_shared_ops(labelling *const *Ls, int ng, group_shared *sh)
{
    sh->n = 0;
    for (int g = 0; g < ng; g++) {
        const cluster *c = Ls[g]->c;
        for (int i = 0; i < c->nops; i++) {
            const ins *y = c->ops[i];
            if (group_op_shared(Ls, ng, y))
                continue;
            for (int a = 0; a < y->nargs; a++) {
                const ins *leaf = NULL;
                int j = operand_kind(c, y->args[a], &leaf);
                if (j < 0 || !group_op_shared(Ls, ng, c->ops[j]) || group_root_of(Ls, ng, c->ops[j]) >= 0 ||
                    cluster_has(sh->x, sh->n, c->ops[j]))
                    continue;
                if (sh->n == GROUP_SHARED)
                    return false;
                int f = 0;
                while (op_index(Ls[f]->c, c->ops[j]) < 0)
                    f++;
                const ins *e = c->ops[j];
                for (int d = 0; d < VIEW_CLUSTER_MAX && one_reader(e) && is_reshape(e->users[0]); d++)
                    e = e->users[0];
                sh->x[sh->n] = c->ops[j];
                sh->sink[sh->n] = &e->sh;
                sh->first[sh->n++] = f;
            }
        }
    }
    /* shared ops that no unshared op reads (a cycle of shared readers
     * cannot be: the ops form a DAG below each root) are below top ones */
    return true;
}

static int cand_index(const labelling *L, const int64_t *lens, int rank)
{
    for (int q = 0; q < L->ncand; q++)
        if (lens_equal(L->cand[q], L->ncand_rank[q], lens, rank))
            return q;
    return -1;
}

/* The lens the group runs x in under tuple t, as far as cluster g's
 * labelling knows them before its own ops are labelled: x the root of
 * another cluster (its tuple entry), a top shared op (its tuple entry) or
 * an op an earlier cluster labelled (that label); else false. */
static bool group_pinned_lens(labelling *const *Ls, int ng, const group_shared *sh, const int *t, int g,
                              const ins *x, const int64_t **lens, int *rank)
{
    int r = group_root_of(Ls, ng, x);
    if (r >= 0 && r != g) {
        *lens = Ls[r]->cand[t[r]];
        *rank = Ls[r]->ncand_rank[t[r]];
        return true;
    }
    for (int s = 0; s < sh->n; s++)
        if (sh->x[s] == x) {
            const labelling *F = Ls[sh->first[s]];
            *lens = F->cand[t[ng + s]];
            *rank = F->ncand_rank[t[ng + s]];
            return true;
        }
    for (int h = 0; h < g; h++) {
        int j = op_index(Ls[h]->c, x);
        if (j >= 0 && Ls[h]->labelled[j]) {
            *lens = Ls[h]->cand[Ls[h]->label[j]];
            *rank = Ls[h]->ncand_rank[Ls[h]->label[j]];
            return true;
        }
    }
    return false;
}

/* Whether x has a reader the group leaves where it is: one that is no
 * reshape and no op of the group's clusters (Ls[0..ng)), so it reads x in
 * the lens x runs in now whatever tuple the group takes. */
static bool read_outside_group(labelling *const *Ls, int ng, const ins *x)
{
    for (int u = 0; u < x->nusers; u++) {
        const ins *r = x->users[u];
        bool ours = is_reshape(r);
        for (int h = 0; h < ng && !ours; h++)
            ours = op_index(Ls[h]->c, r) >= 0 || in_group(Ls[h]->c, r);
        if (!ours)
            return true;
    }
    return false;
}

/* Cluster g's cost table under tuple t, before its ops below the root are
 * labelled (label_assign): an op already labelled (another cluster's root,
 * a top shared op, or an op of an earlier cluster) is weighed in that
 * label only, and a leaf the group moves out of the lens it runs in now
 * is free in its new lens and one reshape (shared by the edges that read
 * it, as leaf_costs shares it) in any other; a leaf the group keeps where
 * it is keeps leaf_costs's weights, which group_cost charges alike. Why:
 * the ops between the root and such a value were
 * labelled as if it could still take any lens (an op) or stayed where it
 * runs now (a leaf), so the tuple's exact cost was that of a labelling
 * that ignored the tuple's own choice for it, and differed between the
 * state where x is a shared op (its tuple entry) and the one where it is
 * its own cluster's root and a leaf of the others (seed 12004372: sin
 * between {4} and {1, 4, 1}, read by sub's and mul's clusters). */
static void group_pin_costs(labelling *const *Ls, int ng, const group_shared *sh, const int *t, int g)
{
    labelling *L = Ls[g];
    const cluster *c = L->c;
    for (int i = 0; i < c->nops; i++) {
        L->pinned[i] = L->labelled[i] && c->ops[i] != c->root;
        L->costed[i] = false;
    }
    int reads[VIEW_CLUSTER_MAX];
    leaf_reads(c, reads);
    for (int l = 0; l < c->nleaves; l++) {
        const ins *x = c->leaves[l];
        const int64_t *own;
        int nown;
        L->leaf_pinned[l] = group_pinned_lens(Ls, ng, sh, t, g, x, &own, &nown) &&
                            !lens_equal(own, nown, x->sh.lens, x->sh.rank);
        /* moved, x keeps leaf_costs's free cases: a reshape of it with a
         * reader outside the cluster (reshaped_outside), and the reshape
         * back to the lens it runs in now that a reader the group leaves
         * there needs (seed 1049140: tanh moved to {1, 4} is reshaped to
         * {4} for sub, which max of the other cluster then shares) */
        bool stays_read = L->leaf_pinned[l] && shape_standard_p(&x->sh) && read_outside_group(Ls, ng, x);
        for (int k = 0; L->leaf_pinned[l] && k < L->ncand; k++)
            L->leaf_group_cost[l][k] =
                lens_equal(own, nown, L->cand[k], L->ncand_rank[k]) || (stays_read && cand_is(L, k, &x->sh)) ||
                        (shape_standard_p(&x->sh) &&
                         reshaped_outside(c, x, L->cand[k], L->ncand_rank[k], L->shared, 0))
                    ? 0
                    : LABEL_UNIT / (reads[l] > 1 ? reads[l] : 1);
    }
    label_costs_shared(L, op_index(c, c->root));
}

/* Labels the group for tuple t (root candidates, then the top shared ops'
 * candidates in their first cluster's labelling): cluster by cluster in
 * canonical order, an op an earlier cluster labelled keeps that label,
 * the root of another cluster and a top shared op take their tuple's, and
 * the rest are labelled below the root and below those as each cluster
 * alone would. */
static bool group_assign(labelling *const *Ls, int ng, const group_shared *sh, const int *roots, const int *t)
{
    for (int g = 0; g < ng; g++) {
        labelling *L = Ls[g];
        const cluster *c = L->c;
        memset(L->labelled, 0, sizeof L->labelled);
        for (int i = 0; i < c->nops; i++) {
            const ins *x = c->ops[i];
            int q = -1;
            for (int h = 0; h < g && q < 0; h++) {
                int j = op_index(Ls[h]->c, x);
                if (j >= 0 && Ls[h]->labelled[j]) {
                    q = cand_index(L, Ls[h]->cand[Ls[h]->label[j]], Ls[h]->ncand_rank[Ls[h]->label[j]]);
                    if (q < 0)
                        return false;
                }
            }
            int r = group_root_of(Ls, ng, x);
            if (r >= 0 && r != g) {
                q = cand_index(L, Ls[r]->cand[t[r]], Ls[r]->ncand_rank[t[r]]);
                if (q < 0)
                    return false;
            }
            for (int s = 0; s < sh->n && q < 0; s++)
                if (sh->x[s] == x) {
                    const labelling *F = Ls[sh->first[s]];
                    q = cand_index(L, F->cand[t[ng + s]], F->ncand_rank[t[ng + s]]);
                    if (q < 0)
                        return false;
                }
            if (q >= 0) {
                L->label[i] = q;
                L->labelled[i] = true;
            }
        }
        group_pin_costs(Ls, ng, sh, t, g);
        label_root_assign(L, roots[g], t[g]);
        for (int s = 0; s < sh->n; s++) {
            int i = op_index(c, sh->x[s]);
            if (i >= 0)
                label_assign(L, i, 0);
        }
        for (int h = 0; h < ng; h++) {
            int i = h != g ? op_index(c, Ls[h]->c->root) : -1;
            if (i >= 0)
                label_assign(L, i, 0);
        }
    }
    return true;
}

/* A group cluster other than gs[g] has x among its ops. */
static bool group_other_holds(const cluster *gs, int ng, int g, const ins *x)
{
    for (int h = 0; h < ng; h++)
        if (h != g && op_index(&gs[h], x) >= 0)
            return true;
    return false;
}

/* Every reader of x, through reshapes, is an op of a group cluster other
 * than gs[g]. */
static bool group_reads_only(const cluster *gs, int ng, int g, const ins *x, int depth)
{
    if (depth > VIEW_CLUSTER_MAX || x->nusers < 1)
        return false;
    for (int k = 0; k < x->nusers; k++) {
        const ins *r = x->users[k];
        if (is_reshape(r)) {
            if (!group_reads_only(gs, ng, g, r, depth + 1))
                return false;
            continue;
        }
        if (!group_other_holds(gs, ng, g, r))
            return false;
    }
    return true;
}

/* The lens in which the instructions reading x, directly or through shape
 * ops of x (is_reshape, any number of readers each), read it under the
 * group's labelling, into *lens and *rank (NULL until the first): an op of
 * a group cluster other than g in its label (which the tuple chooses, not
 * where it runs now; without `inside` such readers are not counted), any
 * other reader in the lens it reads now (which a move of x does not
 * change: a reshape back keeps it), except a multibroadcast that reads x
 * itself or a reshape of x it alone reads: it reads that lens without
 * leading 1s (it reads either for free, and multibroadcast_of_unit_reshape
 * and multibroadcast_of_reshape_leading_ones add or drop the reshape that
 * makes the difference by order; a reshape other readers share stays
 * whatever the multibroadcast does); false where two of them read it in
 * different lens. */
static bool readers_lens(labelling *const *Ls, int ng, int g, bool inside, const ins *x, const int64_t **lens,
                         int *rank, int depth)
{
    if (depth > VIEW_CLUSTER_MAX)
        return false;
    for (int k = 0; k < x->nusers; k++) {
        const ins *u = x->users[k];
        if (u != x && is_reshape(u)) {
            if (!readers_lens(Ls, ng, g, inside, u, lens, rank, depth + 1))
                return false;
            continue;
        }
        const int64_t *l = x->sh.lens;
        int r = x->sh.rank;
        int i;
        const labelling *H = group_cluster_holding(Ls, ng, g, u, &i);
        if (H && !inside)
            continue;
        if (H) {
            l = H->cand[H->label[i]];
            r = H->ncand_rank[H->label[i]];
        }
        /* seed 10001194: sin(p) read by a multibroadcast, directly in
         * {1, 3} or through reshape[{3}] by order, and by a cluster in
         * {1, 3}: the tie-break put it at its readers' lens in one state
         * and not in the other, and the root moved back and forth. Not
         * through a shared reshape (seeds 1029668, 1082957, 2097270: the
         * multibroadcast reading x's {1, 4} reshape beside a cluster op is
         * what ties such a state as the one after the multibroadcast moved
         * onto x, where the cost decides) */
        if (!H && is_op(u, "multibroadcast") && !unit_broadcast(u) && (depth == 0 || x->nusers == 1)) {
            int ones = leading_ones(l, r);
            l += ones;
            r -= ones;
        }
        if (*lens && !lens_equal(*lens, *rank, l, r))
            return false;
        *lens = l;
        *rank = r;
    }
    return true;
}

/* The labelling of the clusters connected to c by shared values, judged
 * together (see round s32B in docs/rules.md): every root candidate tuple
 * labelled below as each cluster alone would, and the tuple of the fewest
 * reshapes over the union kept. false where there is no such group (c is
 * alone, the group is too large or not known yet). */
static bool group_labelled_lens(const cluster *c0, const ins *v, int64_t *lens, int *n)
{
    /* on the stack: most clusters are alone (view_cluster_lens asks this
     * first, for every op), and zeroing a heap block of three clusters
     * cost a tenth of -p normalize's time; cluster_of clears each it adds */
    cluster gs[GROUP_MAX];
    labelling *Lbuf = NULL; /* only once there is a group */
    labelling *Ls[GROUP_MAX];
    bool ok = false;
    gs[0] = *c0;
    int ng = cluster_group(gs);
    if (ng < 2)
        goto out;
    /* A cluster whose root is an op of another (an op read once through a
     * reshape that ops of two clusters read is in both, and its own root,
     * cluster_root, where their roots differ), whose ops all are in the
     * others and whose root only they read (through reshapes) is labelled
     * by them: its sink is their edges. */
    for (int g = 0; g < ng;) {
        bool inside = group_other_holds(gs, ng, g, gs[g].root) && group_reads_only(gs, ng, g, gs[g].root, 0);
        for (int i = 0; i < gs[g].nops && inside; i++)
            inside = group_other_holds(gs, ng, g, gs[g].ops[i]);
        if (!inside) {
            g++;
            continue;
        }
        for (int h = g + 1; h < ng; h++)
            gs[h - 1] = gs[h];
        ng--;
    }
    if (ng < 2)
        goto out;
    /* not above a reduction: there the sink moves with the reshape below
     * (reduce_below_reshape), and a tie between clusters would follow it
     * (seed 1054919: two relus of one leaf, each under a reduction) */
    /* nor where a sink read by a multibroadcast dropped leading 1s: its
     * lens with and without them cost nothing, and the tie between them
     * follows the reshape that multibroadcast_of_unit_reshape drops */
    for (int g = 0; g < ng; g++)
        if (gs[g].red || gs[g].sink_trimmed || shape_elements(&gs[g].root->sh) == 1)
            goto out;
    Lbuf = calloc((size_t)ng, sizeof *Lbuf);
    if (!Lbuf)
        goto out;
    /* canonical order */
    for (int g = 1; g < ng; g++)
        for (int h = g; h > 0 && cluster_before(&gs[h], &gs[h - 1]); h--) {
            cluster t = gs[h];
            gs[h] = gs[h - 1];
            gs[h - 1] = t;
        }
    for (int g = 0; g < ng; g++) {
        gs[g].ngrp = 0;
        for (int h = 0; h < ng; h++)
            if (h != g)
                gs[g].grp[gs[g].ngrp++] = &gs[h];
    }
    for (int g = 0; g < ng; g++) {
        Ls[g] = &Lbuf[g];
        labelling_cands(Ls[g], &gs[g], true);
    }
    for (int g = 0; g < ng; g++)
        for (int h = 0; h < ng; h++)
            if (h != g) {
                int nh = Ls[h]->ncand;
                for (int q = 0; q < nh; q++)
                    labelling_add_cand(Ls[g], Ls[h]->cand[q], Ls[h]->ncand_rank[q]);
            }
    int64_t tuples = 1;
    int first[GROUP_MAX], roots[GROUP_MAX];
    bool sink_leaf[GROUP_MAX];
    /* No group either where a sink read by a multibroadcast (sink_loose)
     * has not dropped leading 1s but a candidate of the group other than
     * the sink is free as the sink (sink_cost 0: the sink's lens with
     * leading 1s): labelled in it, the sink then drops them
     * (multibroadcast_of_unit_reshape), the cluster leaves the group (the
     * sink_trimmed guard above) and, alone, moves back (seed 6012706:
     * mul(s, s) of a {12} s under a multibroadcast, moved to a {1, 12}
     * candidate by the group and back by itself). Asked in either state,
     * such a cluster is now labelled alone. */
    for (int g = 0; g < ng; g++)
        for (int q = 1; gs[g].sink_loose > 0 && q < Ls[g]->ncand; q++)
            if (sink_cost(Ls[g], q) == 0)
                goto out;
    for (int g = 0; g < ng; g++) {
        if (!labelling_costs(Ls[g]))
            goto out;
        roots[g] = op_index(&gs[g], gs[g].root);
        sink_leaf[g] = labelling_sink_leaf(Ls[g]);
        first[g] = gs[g].red && !sink_leaf[g] && Ls[g]->ncand > 1 ? 1 : 0;
        tuples *= Ls[g]->ncand - first[g];
    }
    /* ops in two clusters (an op read once through a reshape that ops of
     * both read): one label across the group. The top ones (read by an op
     * of a cluster that is in no other) are labelled like roots, every
     * candidate tried; the ones below them follow in the first cluster
     * that holds them and are copied into the others. A root in another
     * cluster (its own cluster kept: a reader of it is outside the group)
     * takes its own cluster's root label in every cluster (group_assign,
     * group_root_of). */
    group_shared sh;
    if (!group_shared_ops(Ls, ng, &sh))
        goto out;
    for (int s = 0; s < sh.n; s++)
        tuples *= Ls[sh.first[s]]->ncand;
    if (tuples > GROUP_TUPLES)
        goto out;
    int cur[GROUP_MAX + GROUP_SHARED], best[GROUP_MAX + GROUP_SHARED];
    int nt = ng + sh.n;
    int64_t best_cost = INT64_MAX;
    int best_sinks = 0;
    bool own_sink[GROUP_MAX];
    for (int g = 0; g < ng; g++)
        own_sink[g] = !gs[g].red && !gs[g].sink_loose && !gs[g].sink_mover;
    for (int g = 0; g < ng; g++)
        cur[g] = first[g];
    for (int s = 0; s < sh.n; s++)
        cur[ng + s] = 0;
    for (;;) {
        if (group_assign(Ls, ng, &sh, roots, cur)) {
            int64_t cost = group_cost(Ls, ng);
            /* then fewest roots at their sink: above a reduction or of a
             * loose sink, at its first candidate; any other at the one
             * lens its readers read it in under this tuple (readers_lens),
             * or where they read two, the one its readers outside the
             * group read it in (none where those read two or there are
             * none): no move of the root or of its readers in the group
             * changes either (seeds 5015263, 5018303) */
            int sinks = 0;
            for (int g = 0; g < ng; g++)
                if (sink_leaf[g])
                    continue;
                else if (!own_sink[g])
                    sinks += cur[g] == 0;
                else {
                    const int64_t *rl = NULL;
                    int rr = 0, kr = Ls[g]->label[roots[g]];
                    if (!readers_lens(Ls, ng, g, true, gs[g].root, &rl, &rr, 0)) {
                        rl = NULL;
                        if (!readers_lens(Ls, ng, g, false, gs[g].root, &rl, &rr, 0))
                            rl = NULL;
                    }
                    if (rl)
                        sinks += lens_equal(Ls[g]->cand[kr], Ls[g]->ncand_rank[kr], rl, rr);
                }
            /* a shared op at the end of its reshapes is at its sink: where
             * the reshapes have gone (it has several readers), it is a
             * root, its sink its own lens, and counts as one (above) */
            for (int q = 0; q < sh.n; q++)
                sinks += cand_is(Ls[sh.first[q]], cur[ng + q], sh.sink[q]);
            bool better = cost < best_cost || (cost == best_cost && sinks < best_sinks);
            if (cost == best_cost && sinks == best_sinks)
                for (int t = 0; t < nt; t++) {
                    if (cur[t] == best[t])
                        continue;
                    const labelling *L = Ls[t < ng ? t : sh.first[t - ng]];
                    better = cand_less(L, cur[t], best[t]);
                    break;
                }
            if (better) {
                best_cost = cost;
                best_sinks = sinks;
                memcpy(best, cur, sizeof cur);
            }
        }
        int t = nt - 1;
        while (t >= 0 && ++cur[t] == (t < ng ? Ls[t]->ncand : Ls[sh.first[t - ng]]->ncand)) {
            cur[t] = t < ng ? first[t] : 0;
            t--;
        }
        if (t < 0)
            break;
    }
    if (best_cost == INT64_MAX || !group_assign(Ls, ng, &sh, roots, best))
        goto out;
    for (int g = 0; g < ng && !ok; g++) {
        int i = op_index(&gs[g], v);
        if (i < 0)
            continue;
        *n = Ls[g]->ncand_rank[Ls[g]->label[i]];
        memcpy(lens, Ls[g]->cand[Ls[g]->label[i]], sizeof(int64_t) * (size_t)*n);
        ok = true;
    }
out:
    free(Lbuf);
    return ok;
}

/* The lens v runs in under the labelling of c, v's cluster: with
 * `shared`, labelled together with the clusters it shares values with
 * where there are such (group_labelled_lens), else alone. */
static bool labelled_lens(const cluster *c, const ins *v, bool shared, int64_t *lens, int *n)
{
    /* a lower cluster of a pair (see reduction_leaf_costs) reads red_to
     * as the upper cluster's label of the reduction's reader */
    const ins *u = pair_upper_depth == 0 ? reduction_pair_reader(c) : NULL;
    if (u) {
        cluster *up = malloc(2 * sizeof *up);
        int64_t m[SHAPE_MAX_RANK];
        int nm = 0;
        pair_upper_depth++;
        /* the upper cluster not known yet (a pending op inside): nor is
         * the lower one's lens */
        bool wait = up && pair_upper_pending(c, up);
        bool paired = up && !wait && cluster_of(u, up) && leaf_index(up, c->red) >= 0 && labelled_lens(up, u, shared, m, &nm);
        pair_upper_depth--;
        bool ok = false;
        if (paired) {
            cluster *lo = up + 1;
            *lo = *c;
            lo->nred_to = nm;
            memcpy(lo->red_to, m, sizeof(int64_t) * (size_t)nm);
            lo->red_loose = 0;
            lo->red_paired = true;
            lo->red_unary = false;
            ok = (shared && group_labelled_lens(lo, v, lens, n)) || cluster_labelled_lens(lo, v, shared, lens, n);
        }
        free(up);
        if (paired || wait)
            return ok;
    }
    return (shared && group_labelled_lens(c, v, lens, n)) || cluster_labelled_lens(c, v, shared, lens, n);
}

/* The labelling of v's cluster. */
static bool cluster_lens_at(const ins *v, bool shared, int64_t *lens, int *n)
{
    cluster c;
    return cluster_of(v, &c) && labelled_lens(&c, v, shared, lens, n);
}

bool view_cluster_lens(const ins *v, int64_t *lens, int *n)
{
    query_begin();
    bool ok = cluster_lens_at(v, true, lens, n);
    query_end();
    return ok;
}

bool helper_cluster_lens(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    int64_t lens[SHAPE_MAX_RANK];
    int nl;
    if (!view_cluster_lens(a[0].u.in, lens, &nl))
        return false;
    return ints_result(mem, lens, nl, out);
}

bool helper_in_reshape_cluster(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    cluster c;
    /* A cluster that reads a pending op is not known yet: the pending rules
     * take the op away and the cluster's extent may change (a broadcast it
     * hid ends it). The rules asking this wait until then, as for a cluster
     * op (seed 9090: neg(reshape(copy)) moved above the reshape only in the
     * orders that reached it while max read pending(mb(sin(x))), left by
     * unary_above_multibroadcast). */
    *out = rule_bool(is_cluster_op(a[0].u.in) && (cluster_of(a[0].u.in, &c) || c.pending));
    return true;
}

static bool twice_readers(const ins *v);

/* read_twice_only(v): see helpers_views.h. */
bool helper_read_twice_only(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(twice_readers(a[0].u.in));
    return true;
}

/* broadcast_sinks_below(u): see helpers_views.h. */
bool helper_broadcast_sinks_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(broadcast_sinks_below(a[0].u.in));
    return true;
}

static bool reshapes_merge_at_reader_d(const ins *r, int depth);

/* x, through transposes that go away in every order: one to its operand's
 * own shape (identity_transpose, transpose_to_same_shape), or a pair
 * t1(t2(v)), t2 read once, whose composition is the identity
 * (transpose_of_transpose composes them, with no guard, and
 * identity_transpose drops the result). */
static const ins *past_cancelling_transposes(const ins *x)
{
    for (int depth = 0; depth < VIEW_CLUSTER_MAX && is_op(x, "transpose") && x->nargs == 1; depth++) {
        if (shape_equal(&x->sh, &x->args[0]->sh)) {
            x = x->args[0];
            continue;
        }
        const ins *t = x->args[0];
        const attr_value *p = ins_attr(x, "permutation"), *q = NULL;
        if (is_op(t, "transpose") && t->nargs == 1 && t->nusers == 1)
            q = ins_attr(t, "permutation");
        if (!p || !q || p->n != q->n || p->n != x->sh.rank)
            break;
        bool id = true;
        for (int i = 0; i < p->n && id; i++)
            id = p->u.ints[i] >= 0 && p->u.ints[i] < q->n && q->u.ints[p->u.ints[i]] == i;
        if (!id)
            break;
        x = t->args[0];
    }
    return x;
}

static bool one_element_source(const ins *v, int depth, int *budget);

/* binary_above_reshapes (or its _into_first, _into_second) moves two-operand
 * op w above its two reshapes, with those rules' own guard; an operand
 * reshape of a one-element broadcast only where reshape_of_multibroadcast
 * waits for that (reshapes_merge_at_reader), else that rule may take it
 * first in some orders.
 *
 * Where it moves and run_in is not NULL, *run_in is the operand
 * (w->args[k]) whose lens w runs in once it has moved: the _into_ rules'
 * own choice (binary_above_reshapes_into_second where w's value is
 * reshaped to the second operand's lens further down or the first has no
 * lens of its own, _into_first otherwise), or NULL where both operands
 * have one lens (binary_above_reshapes: w runs in the lens both give it)
 * or neither _into_ rule's choice holds alone. */
static bool binary_reshapes_move(const ins *w, int depth, const ins **run_in)
{
    if (run_in)
        *run_in = NULL;
    if (depth > VIEW_CLUSTER_MAX || !((w->op->classes & OPC_BINARY) && w->nargs == 2) || w->nmods != 0 ||
        w->args[0] == w->args[1])
        return false;
    /* the operands below the reshapes: a reshape of a reshape is one
     * (reshape_of_reshape composes them, with no guard), and a squeeze or
     * unsqueeze of a standard value is a reshape (squeeze_to_reshape,
     * unsqueeze_to_reshape, no guard either) */
    const ins *v[2];
    for (int k = 0; k < 2; k++) {
        const ins *r = w->args[k];
        if (!becomes_reshape(r) || r->nusers != 1)
            return false;
        v[k] = r->args[0];
        for (int d = 0; d < VIEW_CLUSTER_MAX && becomes_reshape(v[k]); d++)
            v[k] = v[k]->args[0];
        if ((v[k]->op->classes & OPC_SHAPE) || view_is_constant(v[k]) || drops_to_shape(v[k]))
            return false;
    }
    rule_value in = {RV_INS, 1, {.in = (ins *)w}}, res;
    if (!helper_in_reshape_cluster(NULL, &in, 1, &res) || res.u.i)
        return false;
    const ins *x = v[0], *y = v[1], *runs_in = NULL;
    if (!lens_equal(x->sh.lens, x->sh.rank, y->sh.lens, y->sh.rank)) {
        const ins *last = reshaped_to_run(w);
        if (!last || shape_same_lens(&last->sh, &w->sh))
            return false;
        /* neither _into_ rule fires where both operands are values of
         * many elements, read once, that compute one (each runs b in the
         * lens of the operand that is no such value, round s31G) */
        bool x_none = has_no_lens_of_its_own(x), y_none = has_no_lens_of_its_own(y);
        if (x_none && y_none)
            return false;
        bool to_y = lens_equal(last->sh.lens, last->sh.rank, y->sh.lens, y->sh.rank);
        if ((to_y || x_none) && !y_none)
            runs_in = w->args[1];
        else if ((!to_y || y_none) && !x_none)
            runs_in = w->args[0];
    }
    for (int k = 0; k < 2; k++)
        if (one_element_below(w->args[k]) && !reshapes_merge_at_reader_d(w->args[k], depth + 1))
            return false;
    if (run_in)
        *run_in = runs_in;
    return true;
}

/* reshapes_merge_at_reader(r): see helpers_views.h. */
static bool reshapes_merge_at_reader(const ins *r) { return reshapes_merge_at_reader_d(r, 0); }

static bool reshapes_merge_at_reader_d(const ins *r, int depth)
{
    bool yes = false;
    /* r a reshape (as the rules ask), or a squeeze or unsqueeze that becomes
     * one, as binary_reshapes_move asks */
    if (becomes_reshape(r) && r->nusers == 1) {
        const ins *b = r->users[0], *x = r->args[0];
        /* a reshape of a reshape is one (reshape_of_reshape, no guard) */
        for (int d = 0; d < VIEW_CLUSTER_MAX && becomes_reshape(x); d++)
            x = x->args[0];
        if ((b->op->classes & OPC_BINARY) && b->nargs == 2 && b->nmods == 0 && b->args[0] != b->args[1]) {
            /* past transposes that cancel in every order (seed 1008067:
             * mul(reshape(mb[{8}](s)), t(t(reshape(mul(..))))), the pair
             * composed away only in some orders before
             * reshape_of_multibroadcast judged the first reshape) */
            const ins *s = past_cancelling_transposes(b->args[b->args[0] == r ? 1 : 0]);
            /* a squeeze or unsqueeze of a standard value is such a reshape
             * (squeeze_to_reshape, unsqueeze_to_reshape), whichever fires
             * first, and a chain of them is one (reshape_of_reshape); asked
             * only of reshapes, the answer changed once those fold rules had
             * fired (seed 1021348: max(mb(p1), broadcast(s)) returned through
             * squeeze(unsqueeze); seed 1016611's add(unsqueeze(add(mb, mb)),
             * unsqueeze(s)) squeezed kept its reshapes in the orders that made
             * the first unsqueeze a broadcast before the second was a
             * reshape) */
            const ins *y = NULL;
            for (int d = 0; d <= VIEW_CLUSTER_MAX && s->nargs == 1 && s->nusers == 1; d++) {
                const ins *t = s->args[0];
                /* so is a broadcast that stretches nothing of a standard
                 * value, which *broadcast_to_reshape makes one (the same
                 * test as readers_take_broadcast's): seed 1025549's
                 * max(reshape(s), mul(broadcast[axis=0](mb[{2}](k)),
                 * broadcast[axis=0](p5))) of a {1} k, both broadcasts
                 * adding two 1s, ran in {2} in the orders that made the
                 * second one a reshape first and in {2, 1, 1}, with
                 * mb(reshape[{1, 1, 1}](k)), in the others */
                bool to_reshape = is_op(s, "reshape") ||
                                  ((is_op(s, "squeeze") || is_op(s, "unsqueeze")) && shape_standard_p(&t->sh) &&
                                   shape_standard_p(&s->sh)) ||
                                  (unit_broadcast(s) && !lens_equal(s->sh.lens, s->sh.rank, t->sh.lens, t->sh.rank) &&
                                   !composes_below(s));
                if (!to_reshape) {
                    /* so is a one-operand pointwise op of a reshape (or
                     * a chain of them) of value v, where the op's cluster
                     * runs in v's lens and the op is not yet there:
                     * unary_into_cluster_lens moves it into that lens in
                     * every order, its reshape of the reshape composes
                     * away, and the op reads v and is reshaped back, a
                     * reshape of a value of v's lens (seed 1000222:
                     * add(reshape(mb[{4, 3, 4}](s)), abs(reshape[{4, 3,
                     * 1, 4}](p))) of a {4, 3, 4} p squeezed back for
                     * abs, whose cluster runs in {4, 3, 4}; the orders
                     * that made the first reshape mb(reshape(s)) first
                     * kept add in {4, 3, 1, 4}, the others moved it into
                     * {4, 3, 4}). v is asked in place of the op: it is
                     * the op's value's lens once the op has moved. */
                    /* The op's operand may also be a broadcast that
                     * stretches nothing, or a pending op over the reshape
                     * one became, which are that reshape in every order
                     * (shape_op_source); while the pending op stands the
                     * op's cluster is not known yet (cluster_of), and the
                     * answer is the one it gets once the op reads the
                     * reshape (round s75A: mul(reshape[{1, 3}](mb[{3}](k)),
                     * relu(mb[{1, 3}](s {3}))) of a one-element k ran in
                     * {3} in the orders that moved relu into its cluster's
                     * {3} first, and in {1, 3} beside mb(reshape[{1, 1}](k))
                     * in the orders that met the reshape while relu still
                     * read the broadcast) */
                    const ins *v = is_cluster_op(s) && s->nargs == 1 ? shape_op_source(t) : NULL;
                    if (v) {
                        for (int e = 0; e < VIEW_CLUSTER_MAX && becomes_reshape(v); e++)
                            v = v->args[0];
                        int64_t l[SHAPE_MAX_RANK];
                        int nl;
                        cluster cs;
                        if (!(v->op->classes & OPC_SHAPE) && !drops_to_shape(v)) {
                            if (view_cluster_lens(s, l, &nl)) {
                                if (lens_equal(l, nl, v->sh.lens, v->sh.rank) && !lens_equal(l, nl, s->sh.lens, s->sh.rank))
                                    y = v;
                            } else if (ins_is_pending(t) && !cluster_of(s, &cs) && cs.pending)
                                y = v;
                        }
                    }
                    break;
                }
                if (!(t->op->classes & OPC_SHAPE) && !drops_to_shape(t)) {
                    y = t;
                    break;
                }
                s = past_cancelling_transposes(past_same_shape_views(t));
            }
            /* of any lens: binary_above_reshapes_into_first and _second
             * take two reshapes of values of different lens where b's value
             * is reshaped again further down (reshaped_to(b) succeeds; seed
             * 15294's max(reshape(sigmoid), reshape(mb)) returned as it is
             * waited for a merge that never came) (seed 1021770:
             * max(reshape(mb[{2, 4}](p2)), reshape(p1)) of a {1} p2 and a
             * {4, 2} p1 ran as max(mb(reshape(p2)), p1) in the orders that
             * merged first, and stayed in the reshapes' lens, with the
             * broadcast mb(reshape[{1, 1, 1, 1}](p2)), in the others; also
             * 1027427, 1018939, 1017554) */
            yes = y &&
                  !(x->op->classes & OPC_SHAPE) && !drops_to_shape(x) &&
                  !view_is_constant(x) && !view_is_constant(y);
            rule_value in = {RV_INS, 1, {.in = (ins *)b}}, res;
            /* y's lens are not settled while y itself moves above its own
             * two reshapes (binary_above_reshapes*): then the reshape
             * between y and b composes and b's two reshapes may then merge
             * (seed 1008067: mul(reshape(mb[{8}](s)), reshape(mul(reshape(mb),
             * reshape(p{1, 8, 1})))), the inner mul in {1, 8} until it
             * moved into {8}; the orders that took s's broadcast into the
             * outer reshape's lens first kept mb(reshape[{1, 1}](s)) beside
             * mb[{8}](s)) */
            bool y_moves = yes && (y->op->classes & OPC_BINARY) && binary_reshapes_move(y, depth + 1, NULL);
            if (yes && !y_moves && !lens_equal(y->sh.lens, y->sh.rank, x->sh.lens, x->sh.rank)) {
                const ins *last = reshaped_to_run(b);
                /* nor where x and y both have no lens of their own
                 * (has_no_lens_of_its_own): neither _into_ rule fires then
                 * (round s31G); they wait for the broadcasts to sink and
                 * for reshape_of_multibroadcast to make the reshapes
                 * broadcasts, so a wait here for them was a circle that no
                 * order left (round s53A, seed 1083587:
                 * sub(reshape(max(mb, neg(mb))), reshape(mb[{3}](s))) under
                 * a transpose read by a dot stayed on the broadcast lens, 7
                 * views, in the orders that met it after mb[{3}](s) had
                 * lost its other reader, where the orders that met it
                 * earlier moved sub into {3} while that broadcast was
                 * still shared, and every op sank to one element, 3) */
                yes = last && !shape_same_lens(&last->sh, &b->sh) &&
                      !(has_no_lens_of_its_own(x) && has_no_lens_of_its_own(y));
            }
            if (yes)
                yes = helper_in_reshape_cluster(NULL, &in, 1, &res) && !res.u.i;
        }
    }
    return yes;
}

bool helper_reshapes_merge_at_reader(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(reshapes_merge_at_reader(a[0].u.in));
    return true;
}

/* broadcast_view_lens(m, lens): see helpers_views.h. The lens kc go to r
 * (rank entries). */
static bool broadcast_view(const ins *m, const int64_t *lens, int rank, int64_t *r)
{
    if (m->nargs < 1 || rank > SHAPE_MAX_RANK || rank < 1)
        return false;
    const shape *in = &m->sh;
    /* m's memory seen with the new lens (as reshape_lazy sees it): groups of
     * old axes with equal products must be contiguous among themselves. */
    int64_t strides[SHAPE_MAX_RANK];
    if (!shape_regroup_strides(in, rank, lens, strides))
        return false;
    /* The value broadcast: the new lens with every stride-0 axis 1. */
    int64_t count = 1, zero = 0;
    for (int k = 0; k < rank; k++) {
        bool bc = lens[k] != 1 && strides[k] == 0;
        r[k] = bc ? 1 : lens[k];
        count *= r[k];
        zero += bc;
    }
    return zero && count == shape_elements(&m->args[0]->sh);
}

bool helper_broadcast_view_lens(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    int rank = a[1].n;
    int64_t kc[SHAPE_MAX_RANK];
    if (!broadcast_view(a[0].u.in, a[1].u.ints, rank, kc))
        return false;
    return ints_result(mem, kc, rank, out);
}

/* broadcast_view_computed(m, lens): see helpers_views.h. A one-element
 * value broadcast to lens without a length-1 axis has every stride 0, and
 * a pointwise op keeps that layout (ops_unary_layout: an output then needs
 * a copy); any other view is broadcast with some stride, and a pointwise op
 * of it is standard. One element counts as one_element_source sees it
 * (round s29E): a value that becomes one element once the broadcasts
 * under it sink has that layout then, and asked by the element count
 * reshape_above_unary_of_multibroadcast moved r above u in the orders
 * that met r before the sink, leaving a contiguous at the output where
 * the others kept the copying reshape (seed 1036836). */
bool helper_broadcast_view_computed(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *m = a[0].u.in;
    int rank = a[1].n;
    int64_t kc[SHAPE_MAX_RANK];
    bool yes = broadcast_view(m, a[1].u.ints, rank, kc);
    /* of one element, or of a value that becomes one once the broadcasts
     * under it sink and merge (one_element_source; round s29E) */
    if (yes && computes_one_element(m->args[0])) {
        bool unit = false;
        for (int k = 0; k < rank; k++)
            unit = unit || a[1].u.ints[k] == 1;
        yes = unit;
    }
    *out = rule_bool(yes);
    return true;
}

/* The axes of v longer than 1, as a mask. */
static uint64_t long_axes_of(const ins *v)
{
    uint64_t mask = 0;
    for (int k = 0; k < v->sh.rank && k < 64; k++)
        if (v->sh.lens[k] > 1)
            mask |= (uint64_t)1 << k;
    return mask;
}

/* The axes of v that may have stride 0 once every broadcast below it has
 * sunk and merged, as a mask (every axis where it cannot tell): a
 * broadcast's stride-0 axes and those its operand may still gain, a
 * pointwise op's operand's, and for a two-operand op only the axes both
 * operands may stretch (a merged broadcast stretches an axis only where
 * both did). A settled value stretches none. The answer does not change
 * when a broadcast moves within v. */
static uint64_t stretchable_axes(const ins *v, const ins *u, int depth)
{
    uint64_t all = ~(uint64_t)0;
    if (depth > VIEW_CLUSTER_MAX || v == u || v->sh.rank > 64)
        return all;
    if (view_is_constant(v))
        return all;
    unsigned c = v->op->classes;
    if (broadcast_op(v) && v->nargs == 1 && v->nmods == 0) {
        const ins *y = v->args[0];
        uint64_t mask = 0;
        for (int k = 0; k < v->sh.rank; k++)
            if (v->sh.strides[k] == 0)
                mask |= (uint64_t)1 << k;
        if (!broadcast_bound(y, u, depth + 1))
            return mask;
        int off;
        if (is_op(v, "multibroadcast"))
            off = v->sh.rank - y->sh.rank;
        else {
            const attr_value *ax = ins_attr(v, "axis");
            if (!ax)
                return all;
            off = (int)ax->u.i;
        }
        if (off < 0 || off + y->sh.rank > v->sh.rank)
            return all;
        uint64_t inner = stretchable_axes(y, u, depth + 1);
        for (int k = 0; k < y->sh.rank; k++)
            if (inner & ((uint64_t)1 << k))
                mask |= (uint64_t)1 << (k + off);
        return mask;
    }
    if (v->nmods > 0)
        return all;
    if ((c & OPC_UNARY) && v->nargs == 1 && shape_same_lens(&v->args[0]->sh, &v->sh))
        return stretchable_axes(v->args[0], u, depth + 1);
    if ((c & OPC_BINARY) && v->nargs == 2 && shape_same_lens(&v->args[0]->sh, &v->sh) &&
        shape_same_lens(&v->args[1]->sh, &v->sh))
        return stretchable_axes(v->args[0], u, depth + 1) & stretchable_axes(v->args[1], u, depth + 1);
    if (!(c & OPC_BINARY) && !broadcast_bound(v, u, depth))
        return 0;
    return all;
}

/* A value that is, or may still become, a broadcast when the broadcasts
 * below it sink: a broadcast shape now; u itself (the op whose broadcast
 * is about to sink, seen from a value that reads it); a transpose or shape
 * op of such a value; a pointwise op whose operands all are (a broadcast
 * below a unary op may sink through it, two below a binary op may merge;
 * constant operands count, since a folded broadcast literal merges too),
 * but not a two-operand op whose operands can never stretch a common axis
 * longer than 1 (stretchable_axes: their merge would be no broadcast;
 * round s40B, seed 1041900: relu(sub(mb(sin(p0)), broadcast[axis=0](sin(p1))))
 * beside a chain kept tanh above its broadcast, where the core merged).
 * The answer does not change when a broadcast moves within such a value,
 * so a guard asking it gives the same answer in every visiting order. */
static bool broadcast_bound(const ins *v, const ins *u, int depth)
{
    /* a broadcast that stretches nothing becomes a reshape of its operand
     * (*broadcast_to_reshape): its operand decides, whether it has become
     * one yet or not (seed 16534: max(broadcast(dot), tanh(mb(x))), where
     * the broadcast only appends a 1, took tanh's broadcast in the orders
     * that made it a reshape first, and ran in the cluster's lens in the
     * others) */
    if (v != u && unit_broadcast(v) && depth <= VIEW_CLUSTER_MAX)
        return broadcast_bound(v->args[0], u, depth + 1);
    /* a pointwise op whose stride-0 axes all have length 1 (the layout of
     * operands that are broadcasts stretching nothing, until
     * *broadcast_to_reshape and the pending rules make it standard) is
     * what its operands are or may become, as it is once they settle: a
     * stride 0 on a length-1 axis addresses no second element (round
     * s75A; --ops 24 seed 11009277: sub(mul(broadcast[axis=1](p2),
     * broadcast[axis=1](p3)), relu(mb[{1, 4, 1}](s {1, 1, 1}))), mul of
     * strides {0, 1, 0}, counted as a broadcast until the broadcasts
     * became reshapes, so relu's broadcast waited to sink and sub's
     * cluster ran in {4} in the orders that labelled it first, in
     * {1, 4, 1} beside the sunk broadcast in the others) */
    bool unit_zeros = (v->op->classes & (OPC_UNARY | OPC_BINARY)) && v->nmods == 0 && !shape_widens_p(&v->sh);
    if (v == u || (shape_broadcasted_p(&v->sh) && !unit_zeros))
        return true;
    /* a constant is what its shape is: a folded broadcast literal keeps
     * its stride-0 axes (a fold keeps the exact shape) and merges (the
     * binary_above_*broadcast_literal_* rules), and one of another layout
     * is a full value, before folding as after, that no merge takes in
     * (seed 1019589: mul(lit, mb(d)) of a full literal counted as a
     * broadcast, so mul(mb(d), mb(d)) beside it kept its broadcast above
     * it for a merge that never came, where the core's sank) */
    if (view_is_constant(v))
        return false;
    /* a pending shape change goes into its readers (binary_through_pending_*
     * and the like): what its operand is or may become decides (seeds
     * 1016909, 1019436: sub(p, p) of p a pending op of a broadcast counted
     * as standard, and multibroadcast_above_binary_of_* hoisted the
     * broadcast of mul's other operand, which then met the broadcast) */
    if (ins_is_pending(v) && v->nargs == 1 && depth <= VIEW_CLUSTER_MAX)
        return broadcast_bound(v->args[0], u, depth + 1);
    if (depth > VIEW_CLUSTER_MAX || v->nmods > 0)
        return false;
    unsigned c = v->op->classes;
    if (((c & OPC_UNARY) || shape_view_or_transpose(v)) && v->nargs == 1)
        return broadcast_bound(v->args[0], u, depth + 1);
    if ((c & OPC_BINARY) && v->nargs == 2) {
        return broadcast_bound(v->args[0], u, depth + 1) &&
               (v->args[1] == v->args[0] || broadcast_bound(v->args[1], u, depth + 1)) &&
               (stretchable_axes(v, u, depth) & long_axes_of(v)) != 0;
    }
    return false;
}

/* v reaches an output (the @return, an opaque op or a region) through
 * views, b(v, v) (which has v's layout, whatever it is) and, with
 * through_shapes, shape ops and pending shape changes too. */
static bool output_reached(const ins *v, bool through_shapes, int depth)
{
    if (depth > VIEW_CLUSTER_MAX)
        return true;
    for (int k = 0; k < v->nusers; k++) {
        const ins *r = v->users[k];
        if (is_output_reader(r))
            return true;
        bool passes = (r->op->classes & OPC_VIEW) ||
                      (through_shapes && ((r->op->classes & OPC_SHAPE) || ins_is_pending(r)));
        if (r->nargs == 1 && passes && output_reached(r, through_shapes, depth + 1))
            return true;
        if ((r->op->classes & OPC_BINARY) && r->nargs == 2 && r->args[0] == v && r->args[1] == v &&
            output_reached(r, through_shapes, depth + 1))
            return true;
    }
    return false;
}

/* v's strides reach an output through views, which take their operand's
 * strides along. (A reshape of a broadcast copies, or becomes a broadcast
 * only where its readers take a broadcast's layout: it is no way there.) */
static bool layout_reaches_output(const ins *v, int depth)
{
    return output_reached(v, false, depth);
}

/* The operand of two-operand op b that is not x (x itself where b is
 * b(x, x)). */
static const ins *other_operand(const ins *b, const ins *x)
{
    return b->args[0] == x ? b->args[1] : b->args[0];
}

/* Every path from v's value, through one-operand pointwise ops, shape ops
 * and two-operand ops whose other operand is v or is or may become a
 * broadcast (broadcast_bound: it merges with v's there), ends at a dot, which reads
 * any strides: v may become a broadcast without a copy or a view left
 * anywhere else (seeds 7608, 16540: mul(mb(p2), abs(mb(x))) read by a dot). */
static bool flows_into_dots(const ins *v, const ins *u, int depth)
{
    bool ok = v->nusers > 0 && depth <= VIEW_CLUSTER_MAX;
    for (int k = 0; k < v->nusers && ok; k++) {
        const ins *r = v->users[k];
        unsigned c = r->op->classes;
        if (is_op(r, "dot") && r->nmods == 0)
            continue;
        /* a shape op on the way counts by its own readers: one that dots
         * read becomes the broadcast in its lens there
         * (multibroadcast_shape_into_dot_*; seed 8407: sub(tanh(mb(p0)),
         * mb(p1)) reshaped for a dot kept tanh above its broadcast, where
         * the core computed sub on the small values; seed 11985) */
        /* a transpose on the way counts where dots read it, and only
         * them: a transpose of a broadcast is a view, and the dot reads its
         * strides as it reads the core's transposed broadcast (seed
         * 1018713: max(sigmoid(mb(p3)), mb(p2)) transposed for a dot kept
         * sigmoid above its broadcast, where the core computed max on the
         * small values). Not through a one-operand op below the transpose:
         * unary_above_transpose leaves a transpose of a broadcast above
         * its reader, so the transpose stayed there in the orders that
         * merged first and sank below it in the others (seeds 1042062,
         * 1072530) */
        if (is_op(r, "transpose") && r->nargs == 1 && r->nmods == 0 && r->nusers > 0) {
            for (int j = 0; j < r->nusers && ok; j++)
                ok = is_op(r->users[j], "dot") && r->users[j]->nmods == 0;
            continue;
        }
        ok = r->nmods == 0 && (((c & OPC_UNARY) && r->nargs == 1) || ((c & OPC_BINARY) && r->nargs == 2) ||
                               ((c & OPC_SHAPE) && r->nargs == 1 && r->nusers > 0));
        if (ok && r->nargs == 2) {
            const ins *other = other_operand(r, v);
            ok = other == v || broadcast_bound(other, u, 0);
        }
        ok = ok && flows_into_dots(r, u, depth + 1);
    }
    return ok;
}

/* v keeps its strides when the broadcast below unary op u sinks: v is u,
 * and u's value already has its operand's (the broadcast's) layout, or v
 * is b(w, w) of such a w, which has w's layout (seed 13587: abs(mb(x)) of
 * a one-element x, of stride 0 already, sank where a multibroadcast read
 * it and stayed once add(abs, abs) had taken that multibroadcast in). */
static bool keeps_layout(const ins *v, const ins *u)
{
    while (v != u && (v->op->classes & OPC_BINARY) && v->nargs == 2 && v->args[0] == v->args[1] && v->nmods == 0 &&
           shape_equal(&v->sh, &v->args[0]->sh))
        v = v->args[0];
    return v == u && u->nargs == 1 && (u->op->classes & OPC_UNARY) && shape_equal(&u->sh, &u->args[0]->sh);
}

/* v, read by an output, is u's value through broadcasts that stretch
 * nothing and b(w, w) (which keep w's strides, length-1 axes aside), and u
 * already has its broadcast operand's layout (keeps_layout): the output's
 * strides are the same when u's broadcast sinks below it. (Asking
 * keeps_layout(v, u) alone, mb[{1, 3}](abs(mb[{3}](x))) was not, and
 * abs(mb[{1, 3}](mb[{3}](x))) was: multibroadcast_of_unary_of_scalar and
 * unary_above_multibroadcast looped, seed 10735; asking keeps_layout(u, u)
 * alone took in a binary reader's value, seed 7492.) */
static bool returns_layout(const ins *v, const ins *u)
{
    for (int depth = 0; v != u && depth <= VIEW_CLUSTER_MAX && v->nargs >= 1 && v->nmods == 0; depth++) {
        if (broadcast_op(v) && v->nargs == 1 &&
            shape_elements(&v->sh) == shape_elements(&v->args[0]->sh))
            v = v->args[0];
        else if ((v->op->classes & OPC_BINARY) && v->nargs == 2 && v->args[0] == v->args[1] &&
                 shape_equal(&v->sh, &v->args[0]->sh))
            v = v->args[0];
        else
            return false;
    }
    return keeps_layout(v, u);
}

/* v has the layout of a broadcast of one element: every axis longer than 1
 * has stride 0. */
static bool unit_stride_zero(const ins *v)
{
    bool any = false;
    for (int k = 0; k < v->sh.rank; k++) {
        if (v->sh.lens[k] != 1 && v->sh.strides[k] != 0)
            return false;
        any = any || v->sh.lens[k] != 1;
    }
    return any;
}

/* u is a one-operand pointwise op of a (multi)broadcast of one element. */
static bool unit_broadcast_operand(const ins *u)
{
    if (!(u->op->classes & OPC_UNARY) || u->nargs != 1 || u->nmods != 0)
        return false;
    const ins *m = u->args[0];
    return broadcast_op(m) && m->nargs == 1 && m->nmods == 0 &&
           shape_elements(&m->args[0]->sh) == 1 && !view_is_constant(m->args[0]);
}

/* v computes one value: it has one element, or it is a view, a
 * one-operand pointwise op or a two-operand pointwise op of such values
 * (a broadcast of one element, however many views and merges later). */
static bool one_element_source(const ins *v, int depth, int *budget)
{
    if (shape_elements(&v->sh) == 1)
        return true;
    /* a budget of visits, not only of depth: two-operand ops that share
     * operands would be walked once per path */
    if (depth > VIEW_CLUSTER_MAX || --*budget < 0 || v->nmods != 0)
        return false;
    unsigned c = v->op->classes;
    /* a pending shape change too (round s29E): the layout-only op a sink
     * leaves reads the same values (seed 1036836: reshape(pending(mb(
     * sigmoid(p0)))) of a one-element p0 under a broadcast) */
    if (((c & (OPC_UNARY | OPC_VIEW | OPC_SHAPE)) || ins_is_pending(v)) && v->nargs == 1)
        return one_element_source(v->args[0], depth + 1, budget);
    if ((c & OPC_BINARY) && v->nargs == 2)
        return one_element_source(v->args[0], depth + 1, budget) &&
               (v->args[1] == v->args[0] || one_element_source(v->args[1], depth + 1, budget));
    return false;
}

/* one_element_source from the top, with a budget of visits that bounds the
 * walk over operands shared by several two-operand ops. */
static bool computes_one_element(const ins *v)
{
    int budget = OPERAND_WALK_VISITS;
    return one_element_source(v, 0, &budget);
}

/* computes_one_element(x): see helpers_views.h. */
bool helper_computes_one_element(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(computes_one_element(a[0].u.in));
    return true;
}

/* x has many elements but computes one (a broadcast of one element under
 * pointwise ops) and one reader: once its broadcast sinks, a reshape of it
 * becomes a broadcast of that element in any lens, so the lens x has now
 * are none a binary op reading it through that reshape must keep (round
 * s31G: binary_above_reshapes_into_first / _into_second). */
static bool has_no_lens_of_its_own(const ins *x)
{
    return shape_elements(&x->sh) > 1 && x->nusers == 1 && computes_one_element(x);
}

/* has_no_lens_of_its_own(x): see helpers_views.h. */
bool helper_has_no_lens_of_its_own(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(has_no_lens_of_its_own(a[0].u.in));
    return true;
}

/* u is a one-operand pointwise op of a broadcast of a value that computes
 * one element (one_element_source): its value is that element's, in any
 * layout, whatever the rules have merged or moved around it so far. */
static bool reads_one_element(const ins *u)
{
    if (!(u->op->classes & OPC_UNARY) || u->nargs != 1 || u->nmods != 0)
        return false;
    const ins *m = u->args[0];
    return broadcast_op(m) && m->nargs == 1 && m->nmods == 0 &&
           !view_is_constant(m->args[0]) && computes_one_element(m->args[0]);
}

/* Every reader of r is a two-operand pointwise op whose other operand is a
 * full value: standard, and no broadcast nor a value that may become one
 * (broadcast_bound). The op's value is standard whether r is a broadcast
 * or not. */
static bool beside_full_values(const ins *r)
{
    bool ok = r->nusers > 0;
    for (int k = 0; k < r->nusers && ok; k++) {
        const ins *w = r->users[k];
        ok = (w->op->classes & OPC_BINARY) && w->nargs == 2 && w->nmods == 0 && w->args[0] != w->args[1];
        if (ok) {
            const ins *other = other_operand(w, r);
            ok = shape_standard_p(&other->sh) && !broadcast_bound(other, NULL, 0);
        }
    }
    return ok;
}

/* Every reader of r is a reduction of it alone (round s36B): a reduction
 * reads any strides and its value is standard either way. */
static bool reduced_below(const ins *r)
{
    bool ok = r->nusers > 0;
    for (int k = 0; k < r->nusers && ok; k++) {
        const ins *w = r->users[k];
        ok = (w->op->classes & OPC_REDUCE) && w->nargs == 1 && w->nmods == 0;
    }
    return ok;
}

/* Every reader of r is a broadcast that stretches r's value. */
static bool stretched_below(const ins *r)
{
    bool ok = r->nusers > 0;
    for (int k = 0; k < r->nusers && ok; k++) {
        const ins *b = r->users[k];
        ok = is_op(b, "multibroadcast") && b->nargs == 1 && b->nmods == 0 &&
             shape_elements(&b->sh) > shape_elements(&r->sh);
        /* and stays r's reader, whose own readers take the layout as
         * takes_broadcast_layout asks it of u above it on the other side:
         * no pending op (which hides its readers; a dot reads any strides
         * and takes it, seeds 1025647, 1033054), and no
         * two-operand op whose other operand may become a broadcast
         * (binary_above_multibroadcasts would put that op between r and
         * the broadcast in some orders) or is not standard */
        for (int j = 0; j < b->nusers && ok; j++) {
            const ins *w = b->users[j];
            ok = !ins_is_pending(w);
            if (ok && (w->op->classes & OPC_BINARY) && w->nargs == 2) {
                const ins *other = other_operand(w, b);
                ok = other != b && !broadcast_bound(other, NULL, 0) && shape_standard_p(&other->sh);
            }
        }
    }
    return ok;
}

static bool dropped_below(const ins *r);

/* A multibroadcast or a pending op reads m (it composes with the one,
 * goes below the other first; broadcast_composes_below asks more, and
 * through broadcast_sinks_below comes back here). */
static bool composes_below(const ins *m)
{
    bool yes = false;
    for (int k = 0; k < m->nusers && !yes; k++)
        yes = is_op(m->users[k], "multibroadcast") || ins_is_pending(m->users[k]);
    return yes;
}

/* The axes (of lens/rank) that broadcast m stretches, seen in those lens
 * (m's memory regrouped as a reshape sees it): bit k set where lens[k] > 1
 * and the stride is 0. 0 where m cannot be seen in those lens as a view. */
static unsigned stretched_axes_in(const ins *m, const int64_t *lens, int rank)
{
    int64_t strides[SHAPE_MAX_RANK];
    if (rank > SHAPE_MAX_RANK || !shape_regroup_strides(&m->sh, rank, lens, strides))
        return 0;
    unsigned bits = 0;
    for (int k = 0; k < rank; k++)
        if (lens[k] != 1 && strides[k] == 0)
            bits |= 1u << k;
    return bits;
}

/* b (a broadcast or multibroadcast of one operand) stretches: it has more
 * elements than its operand, which is computed, no constant. */
static bool stretches_computed_value(const ins *b)
{
    return b->nargs == 1 && shape_elements(&b->sh) > shape_elements(&b->args[0]->sh) && !view_is_constant(b->args[0]);
}

/* x is a chain of one-operand pointwise ops and shape ops over a stretching broadcast of a computed value, or that broadcast
 * itself: the broadcast, else NULL. Where the broadcast has sunk below the
 * ops or not, x is that broadcast's value in x's lens. */
static const ins *chain_broadcast(const ins *x)
{
    for (int d = 0; d <= VIEW_CLUSTER_MAX && x->nargs == 1 && x->nmods == 0; d++) {
        if (broadcast_op(x))
            return stretches_computed_value(x) ? x : NULL;
        if (!(x->op->classes & (OPC_UNARY | OPC_SHAPE)))
            return NULL;
        x = x->args[0];
    }
    return NULL;
}

/* Two-operand op r reads v, u's value in u's own lens (u a one-operand op
 * of a broadcast), and beside it `other`, a chain over another stretching
 * broadcast (chain_broadcast), and the two broadcasts stretch no axis of r
 * in common: r computes a full value, of the row-major layout, whether
 * either broadcast has sunk below its ops or not (no merge takes two such
 * broadcasts into one: neither's lens broadcast to the other's), so r's
 * readers keep their layout, whatever the other chain's ops do (a full
 * value beside a broadcast is row-major as well). Asked from either side, the pair gets the
 * same answer: both broadcasts sink (round s28E; seeds 3118350, 3175251:
 * max(reshape(abs(mb(p0))), sigmoid(mb(p1))) at an output kept both above
 * their broadcasts, each waiting for the other, where the core's sank). */
static bool apart_broadcast_pair(const ins *r, const ins *v, const ins *u, const ins *other)
{
    if (v != u || !(u->op->classes & OPC_UNARY) || u->nargs != 1 || !lens_equal(u->sh.lens, u->sh.rank, r->sh.lens, r->sh.rank))
        return false;
    const ins *m = u->args[0];
    if (!broadcast_op(m) || !stretches_computed_value(m))
        return false;
    const ins *n = chain_broadcast(other);
    if (!n || n == m)
        return false;
    unsigned a = stretched_axes_in(m, r->sh.lens, r->sh.rank), b = stretched_axes_in(n, r->sh.lens, r->sh.rank);
    return a && b && !(a & b);
}

/* v is a reshape of a value that computes one element
 * (one_element_source), of more than one element and not of the
 * every-stride-0 layout now: the reshape that reshape_of_multibroadcast
 * and the like make a broadcast of one element. */
static bool reshape_becomes_unit_broadcast(const ins *v)
{
    return is_op(v, "reshape") && v->nargs == 1 && v->nmods == 0 && shape_elements(&v->sh) > 1 &&
           !unit_stride_zero(v) && computes_one_element(v->args[0]);
}

static bool has_length_one_axis(const ins *v)
{
    for (int k = 0; k < v->sh.rank; k++)
        if (v->sh.lens[k] == 1)
            return true;
    return false;
}

/* Such a reshape of lens without a length-1 axis: made a broadcast, it has
 * every stride 0. (A length-1 axis keeps its operand's stride in the
 * broadcast, and a pointwise op of it is standard: broadcast_view_computed.) */
static bool becomes_unit_broadcast(const ins *v)
{
    return reshape_becomes_unit_broadcast(v) && !has_length_one_axis(v);
}

/* w is a broadcast that stretches nothing and multibroadcast_to_reshape /
 * broadcast_to_reshape make a reshape (folds_to_reshape): a shape op
 * already, which those rules spell as one by order (round s84E, seeds
 * 11010401, 12002420, --ops 24: max(s, squeeze(mb(p))) read by
 * mb[{1, ..}](max), which became reshape(max) before or after the squeeze
 * arm asked its readers). */
static bool broadcast_folds_to_reshape(const ins *w)
{
    if (!broadcast_op(w) || w->nargs != 1)
        return false;
    rule_value a = {0}, v = {0};
    a.kind = RV_INS;
    a.u.in = (ins *)w;
    return helper_folds_to_reshape(NULL, &a, 1, &v) && v.u.i;
}

/* A shape op reads r's value, directly or through one-operand ops (a
 * broadcast that folds to a reshape counts as one). */
static bool shape_op_below(const ins *r, int depth)
{
    if (depth > VIEW_CLUSTER_MAX)
        return false;
    for (int k = 0; k < r->nusers; k++) {
        const ins *w = r->users[k];
        if (((w->op->classes & OPC_SHAPE) && w->nargs == 1) || broadcast_folds_to_reshape(w))
            return true;
        if ((w->op->classes & OPC_UNARY) && w->nargs == 1 && w->nmods == 0 && shape_op_below(w, depth + 1))
            return true;
    }
    return false;
}

/* v's value is computed by pointwise ops (one- and two-operand) from
 * (multi)broadcasts of computed values, each of which permutation p maps
 * to its own shape: p only swaps axes of equal length and stride (stride-0
 * axes the broadcast stretches). Once those broadcasts sink below the ops
 * and merge, v is one broadcast that p maps to itself as well (an axis
 * stretched by every operand's broadcast is stretched by the merged one),
 * and transpose[p] of it goes (transpose_to_same_shape). Bounded by depth
 * and a budget of visits. */
static bool swaps_stretched_axes_only(const ins *v, const int64_t *p, int n, int depth, int *budget)
{
    if (depth > VIEW_CLUSTER_MAX || --*budget < 0 || v->nmods != 0 || v->sh.rank != n)
        return false;
    if (broadcast_op(v) && v->nargs == 1) {
        if (view_is_constant(v->args[0]))
            return false;
        for (int i = 0; i < n; i++)
            if (v->sh.lens[p[i]] != v->sh.lens[i] || v->sh.strides[p[i]] != v->sh.strides[i])
                return false;
        return true;
    }
    unsigned c = v->op->classes;
    if (c & (OPC_BUILTIN | OPC_OPAQUE | OPC_REGION))
        return false;
    if ((c & OPC_UNARY) && v->nargs == 1)
        return swaps_stretched_axes_only(v->args[0], p, n, depth + 1, budget);
    if ((c & OPC_BINARY) && v->nargs == 2)
        return swaps_stretched_axes_only(v->args[0], p, n, depth + 1, budget) &&
               (v->args[1] == v->args[0] || swaps_stretched_axes_only(v->args[1], p, n, depth + 1, budget));
    return false;
}

/* A transpose or a reduction reads r's value, directly or through
 * one-operand pointwise ops and b(w, w): a transpose composes with one
 * above r (transpose_of_transpose) or moves with it, a reduction takes r
 * below itself (reduce_below_transpose) where it may meet another
 * transpose, and the permutation that settles then depends on whether r
 * went first (seeds 1004753, 1011047, 1027999, 1002084, tuned 4472). */
static bool transpose_below(const ins *r, int depth)
{
    if (depth > VIEW_CLUSTER_MAX)
        return true;
    for (int k = 0; k < r->nusers; k++) {
        const ins *w = r->users[k];
        if (is_op(w, "transpose") || (w->op->classes & OPC_REDUCE))
            return true;
        if (pointwise_of_one_value(w) && w->nmods == 0 && transpose_below(w, depth + 1))
            return true;
    }
    return false;
}

/* Transpose t (not the identity) of v goes once the broadcasts under v
 * sink and merge (swaps_stretched_axes_only). */
static bool transpose_vanishes_on_broadcasts(const ins *t, const ins *v)
{
    const attr_value *p = ins_attr(t, "permutation");
    if (!p || p->kind != ATTR_INTS || p->n != v->sh.rank || p->n != t->sh.rank || p->n > SHAPE_MAX_RANK)
        return false;
    return ops_is_permutation(p->u.ints, p->n, p->n) && !ops_is_identity_permutation(p->u.ints, p->n) && swaps_stretched_axes_only(v, p->u.ints, p->n, 0, &(int){OPERAND_WALK_VISITS});
}

static bool aligned_broadcast(const ins *b);

/* The last of the chain of reshapes from r, each (but the last) read only
 * by the next; a squeeze or unsqueeze of a standard value counts as one
 * (becomes_reshape: squeeze_to_reshape, unsqueeze_to_reshape, and
 * reshape_of_reshape, compose them with no guard). */
static const ins *reshape_chain_end(const ins *r)
{
    for (int d = 0; d < VIEW_CLUSTER_MAX && r->nusers == 1 && becomes_reshape(r->users[0]) &&
                    r->users[0]->nmods == 0;
         d++)
        r = r->users[0];
    return r;
}

/* Every reader of v is a two-operand op of v and another value that is no
 * constant (v has a reader). Not an output, which keeps v's strides (a
 * copy where they change), nor a shape op or a one-operand op, which may
 * move above a reshape v (unary_above_reshape and the like) and let it
 * compose away with the shape ops beyond; and not beside a constant: a
 * reshape of a constant folds into a constant of the reshape's lens, after
 * which the op's two reshapes no longer move above it. */
static bool binary_readers_beside_values(const ins *v)
{
    bool ok = v->nusers > 0;
    for (int k = 0; k < v->nusers && ok; k++) {
        const ins *w = v->users[k];
        ok = (w->op->classes & OPC_BINARY) && w->nargs == 2 && w->args[0] != w->args[1] && w->nmods == 0 &&
             !view_is_constant(other_operand(w, v));
    }
    return ok;
}

/* Every reader of v is a two-operand op b(v, v) (v has a reader): b keeps
 * v's layout, whatever it is, so its readers decide. */
static bool twice_readers(const ins *v)
{
    bool ok = v->nusers > 0;
    for (int k = 0; k < v->nusers && ok; k++) {
        const ins *w = v->users[k];
        ok = (w->op->classes & OPC_BINARY) && w->nargs == 2 && w->args[0] == v && w->args[1] == v && w->nmods == 0;
    }
    return ok;
}

/* e is read by b(e, e) (twice_readers), and b's value reaches, through
 * single-reader pointwise ops, a run of shape ops that ends in u's lens but
 * for length-1 axes (reshaped_to_run, unit_lens_only): the reshape e of u
 * and that run compose into one reshape that only moves 1s, or none, once
 * b moves into u's lens (binary_into_cluster_lens or
 * binary_above_reshape_twice, then reshape_of_reshape and
 * reshape_to_same_shape), so b(u, u) runs in u's lens and whether u's
 * broadcast sinks is for the readers there to say, not for e's. */
static bool twice_read_back(const ins *e, const ins *u)
{
    const ins *back = e->nusers > 0 ? reshaped_to_run(e->users[0]) : NULL;
    return back && unit_lens_only(back->sh.lens, back->sh.rank, u->sh.lens, u->sh.rank);
}

/* chain_read_beside_values(r): see helpers_views.h. */
bool helper_chain_read_beside_values(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(binary_readers_beside_values(reshape_chain_end(a[0].u.in)));
    return true;
}

/* ---- The fold (rounds s59B to s63D, rebuilt in round s64A) ----
 * A reshape r of u(m(x)), u a one-operand pointwise op, m a
 * multibroadcast (or a broadcast[axis] that puts x's axes last, which
 * aligned_broadcast_to_multibroadcast makes one with no guard) of a
 * computed x of more than one element: once m sinks below u, r reads a
 * multibroadcast, reshape_of_multibroadcast makes it
 * mb[r.lens](reshape[kc](u')) with kc m's value seen in r's lens, and
 * where kc is x's lens but for leading 1s, multibroadcast_of_unit_reshape
 * drops that reshape with no guard: one view where u(m) and r were two,
 * which is the graph whose u met r first reaches (seeds 1031353,
 * 1013530). So r's readers decide whether u's broadcast sinks. */

static bool reduction_takes_reshape(const ins *x);
static _Thread_local int fold_question_depth;

/* u is b(m, w(m)) (or b(w(m), m)), w a one-operand op read once and m
 * read by the two: binary_above_multibroadcast_and_unary and its mirror
 * sink m below b at once, as unary_above_multibroadcast sinks it below a
 * one-operand op (SiLU's shape; round s62B, seed 1034058). m, else NULL. */
static const ins *silu_broadcast(const ins *u)
{
    if (!(u->op->classes & OPC_BINARY) || u->nargs != 2 || u->nmods != 0 || u->args[0] == u->args[1])
        return NULL;
    for (int k = 0; k < 2; k++) {
        const ins *m = u->args[k], *w = u->args[1 - k];
        if (broadcast_op(m) && m->nusers == 2 && (w->op->classes & OPC_UNARY) && w->nargs == 1 &&
            w->nmods == 0 && w->nusers == 1 && w->args[0] == m)
            return m;
    }
    return NULL;
}

/* The broadcast below u that the fold sinks: m of u(m), u a one-operand
 * op, or of silu_broadcast(u); a multibroadcast, or a broadcast[axis] that
 * becomes one (aligned_broadcast). */
static const ins *fold_broadcast(const ins *u)
{
    const ins *m = NULL;
    if (pointwise_unary(u))
        m = u->args[0];
    else
        m = silu_broadcast(u);
    if (!m || !(is_op(m, "multibroadcast") || aligned_broadcast(m)) || m->nargs != 1 || m->nmods != 0)
        return NULL;
    return m;
}

/* x, r's value's source: the x of u(m(x)) that r folds into m once m
 * sinks (see above), else NULL. Only where x's rank is no higher than
 * r's (multibroadcast_of_unit_reshape's guard x.rank <= m.rank). */
static const ins *reshape_folds_into(const ins *r, const ins *m);
static bool fold_rank_fits(const ins *x, int rank);

static const ins *reshape_folds_into_multibroadcast(const ins *r, const ins *u)
{
    if (!is_op(r, "reshape") || r->nargs != 1 || r->nmods != 0 || r->args[0] != u)
        return NULL;
    const ins *m = fold_broadcast(u);
    return m ? reshape_folds_into(r, m) : NULL;
}

/* The same test for reshape r of a value over broadcast m: m's x, else
 * NULL. */
static const ins *reshape_folds_into(const ins *r, const ins *m)
{
    const ins *x = m->args[0];
    if (shape_elements(&x->sh) <= 1 || view_is_constant(x) || !fold_rank_fits(x, r->sh.rank) || reduction_takes_reshape(x))
        return NULL;
    int64_t kc[SHAPE_MAX_RANK];
    if (!broadcast_view(m, r->sh.lens, r->sh.rank, kc) ||
        !lens_equal_but_leading_ones(kc, r->sh.rank, x->sh.lens, x->sh.rank))
        return NULL;
    return x;
}

/* x, the operand of the broadcast a fold takes, has at most rank, and so
 * do the values below x through reshapes that only add or drop length-1
 * axes: the clusters and the fold rules move such a reshape away by order
 * (unary_into_cluster_lens, multibroadcast_of_unit_reshape), and x then
 * has their rank (round s63D's mend 4; --ops 24 seed 4001068:
 * sin(mb[{1, 2, 2}](reshape[{2, 1}](abs(v)))) of a {1, 1, 2, 1} v
 * reshaped to {2, 2} folded in the orders that met the reshape, not in
 * those that met abs(v) of rank 3). */
static bool cluster_lens_at(const ins *v, bool shared, int64_t *lens, int *n);

static bool fold_rank_fits(const ins *x, int rank)
{
    if (x->sh.rank > rank)
        return false;
    /* and x's own cluster lens, where they only add or drop 1s: the
     * clusters move x there by order (binary_into_cluster_lens), and the
     * orders that asked before that folded (round s64C, --ops 24 seed
     * 4003194: abs(mb[{1, 3, 2}](add[{3, 1}](reshape(relu(p)), ..))) of a
     * {1, 3, 1, 1} p, squeezed to {3, 2} under tanh beside a full value,
     * folded in the orders that met add in {3, 1}, not in those that met
     * it in its cluster's {1, 3, 1, 1}) */
    if (fold_question_depth == 0) {
        /* asked once per question: the labelling asks the fold again */
        int64_t cl[SHAPE_MAX_RANK];
        int ncl;
        fold_question_depth++;
        bool higher = cluster_lens_at(x, true, cl, &ncl) && ncl > rank && unit_lens_only(cl, ncl, x->sh.lens, x->sh.rank);
        fold_question_depth--;
        if (higher)
            return false;
    }
    const ins *y = x;
    for (int d = 0; d < VIEW_CLUSTER_MAX && becomes_reshape(y) && y->nmods == 0; d++) {
        y = y->args[0];
        if (!unit_lens_only(y->sh.lens, y->sh.rank, x->sh.lens, x->sh.rank))
            break;
        if (y->sh.rank > rank)
            return false;
    }
    return true;
}

/* One operand of v reads a broadcast of one element: the broadcast
 * itself, or a value of more than one element that computes one
 * (computes_one_element) or has the every-stride-0 layout of one (a
 * folded constant view, unit_stride_zero). */
static bool operand_reads_unit_broadcast(const ins *v)
{
    for (int k = 0; k < v->nargs; k++) {
        const ins *a = v->args[k];
        if (broadcast_op(a) && a->nargs == 1 && shape_elements(&a->args[0]->sh) == 1)
            return true;
        if (shape_elements(&a->sh) > 1 && (unit_stride_zero(a) || computes_one_element(a)))
            return true;
    }
    return false;
}

/* x, or a value below it through one-operand pointwise ops and shape
 * ops, reads a broadcast of one element (operand_reads_unit_broadcast):
 * the merges of one-element broadcasts move such a broadcast around x by
 * order, so whether the fold holds would depend on the order (seeds
 * 2026816, 1020151). Asked through the chain, so the core's fold, which
 * sees u(x) with u's broadcast sunk, and the noisy graph's, which sees x,
 * answer alike. */
static bool reads_unit_broadcast(const ins *x)
{
    for (int d = 0; d <= VIEW_CLUSTER_MAX; d++) {
        if (operand_reads_unit_broadcast(x))
            return true;
        if (x->nargs != 1 || x->nmods != 0 || broadcast_op(x) || !(x->op->classes & (OPC_UNARY | OPC_SHAPE)))
            return false;
        x = x->args[0];
    }
    return false;
}

/* v, through one-operand pointwise ops, is a shape op or a transpose:
 * the clusters walk such chains to their leaves. */
static bool chain_over_shape_op(const ins *v)
{
    for (int d = 0; d <= VIEW_CLUSTER_MAX; d++) {
        if (shape_view_or_transpose(v))
            return true;
        if (!pointwise_unary(v))
            return false;
        v = v->args[0];
    }
    return false;
}

/* Below v, through one-operand pointwise ops and transposes, with one
 * transpose at least on the way, the first value that is neither; else
 * NULL. */
static const ins *below_transposed_chain(const ins *v)
{
    bool transposed = false;
    for (int d = 0; d <= VIEW_CLUSTER_MAX; d++) {
        bool t = is_op(v, "transpose") && v->nargs == 1;
        if (!t && !pointwise_unary(v))
            return transposed ? v : NULL;
        transposed |= t;
        v = v->args[0];
    }
    return NULL;
}

/* w, a reader of r, is a two-operand op beside a full value: standard,
 * no broadcast nor a value that may become one, no constant (a literal
 * takes any reshape for free), no shape op, pending op or chain of
 * one-operand ops over a shape op or transpose (the clusters'), and no
 * shape op reads w's value. w's value is standard whether r has folded
 * into the multibroadcast or not. */
static bool beside_full_value_laid(const ins *w, const ins *r, bool any_layout)
{
    if (!(w->op->classes & OPC_BINARY) || w->nargs != 2 || w->nmods != 0 || w->args[0] == w->args[1])
        return false;
    const ins *other = other_operand(w, r);
    /* Of any packed layout, a chain of one-operand ops over a transpose
     * of a full value is that value permuted: the reader reads the full
     * value's elements in a permuted packed layout and takes it whether r
     * has folded or not (round s83C, seed 7001039: tanh(transpose(abs)),
     * the transpose also read by a dot), and a bare transpose of a full
     * value alike (seed 1080492: sub(transpose(p), squeeze(mb(p1))); the
     * squeeze arm folded it by order for another reason, its
     * takes_broadcast_layout term, round s84C, not this reading, and
     * narrowed to a chain under a one-operand op this reading answered by
     * order where that op moved past the transpose, seed 1086326). */
    const ins *below = any_layout ? below_transposed_chain(other) : NULL;
    if (below)
        other = below;
    bool laid = shape_standard_p(&other->sh) ||
                (any_layout && shape_packed_p(&other->sh) && !shape_broadcasted_p(&other->sh) &&
                 !(other->op->classes & (OPC_SHAPE | OPC_VIEW)));
    return laid && !broadcast_bound(other, NULL, 0) && !broadcast_op(other) &&
           !ins_is_pending(other) && !view_is_constant(other) && !chain_over_shape_op(other) &&
           !shape_op_below(w, 0);
}


static bool same_view(const ins *j, const ins *m);

/* a and b are one view: the same instruction, or the same view of the
 * same operand, which CSE merges (some orders meet the twins before). */
static bool twin_views(const ins *a, const ins *b)
{
    return a == b || (a->nargs == 1 && b->nargs == 1 && a->args[0] == b->args[0] && same_view(a, b));
}

/* v, through one-operand pointwise ops, is root (or its twin). */
static bool chain_over_root(const ins *v, const ins *root)
{
    for (int d = 0; d <= VIEW_CLUSTER_MAX; d++) {
        if (twin_views(v, root))
            return true;
        if (!pointwise_unary(v))
            return false;
        v = v->args[0];
    }
    return false;
}

/* Every reader of r (root's value, or a value root's reaches through
 * one-operand ops) is a two-operand op beside a full value
 * (beside_full_value_laid); or a one-operand pointwise op, or b(r, r),
 * whose own readers are (such a reader keeps r's value standard or a
 * broadcast as r is, and once r folds it sinks below the multibroadcast
 * in turn, unary_above_multibroadcast, round s60B); or the diamond
 * b(u'(root), r), whose other operand is root again through one-operand
 * ops (or root's twin), no shape op reading b and b's readers taking a
 * broadcast: both operands fold into the one multibroadcast, and b sinks
 * below it (round s62B, seed 1034058). */
static bool beside_unshaped_values_d(const ins *r, const ins *root, int depth)
{
    bool ok = r->nusers > 0 && depth <= VIEW_CLUSTER_MAX;
    for (int k = 0; k < r->nusers && ok; k++) {
        const ins *w = r->users[k];
        if (pointwise_unary(w) ||
            ((w->op->classes & OPC_BINARY) && w->nargs == 2 && w->nmods == 0 && w->args[0] == r && w->args[1] == r))
            ok = beside_unshaped_values_d(w, root, depth + 1);
        else if ((w->op->classes & OPC_BINARY) && w->nargs == 2 && w->nmods == 0 && w->args[0] != w->args[1] &&
                 chain_over_root(other_operand(w, r), root))
            ok = !shape_op_below(w, 0) && readers_take_broadcast(w, w, depth + 1);
        else
            ok = beside_full_value_laid(w, r, false);
    }
    return ok;
}

static bool folds_beside_values(const ins *r) { return beside_unshaped_values_d(r, r, 0); }

/* folds_beside_values(s): see helpers_views.h. */
bool helper_folds_beside_values(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *sq = a[0].u.in;
    /* under the fold's own guard on the broadcast's operand y
     * (reads_unit_broadcast, fold_takes_broadcast), so that the core's
     * shape op of mb(y) folds where the noisy graph's reshape of
     * u(mb(x)) does (seeds 1020151, 2026816); and under its rank guard
     * (fold_rank_fits), which the noisy graph's reshape of u(mb(x))
     * meets where the core's shape op of mb(u(x)) would fold alone
     * (round s64C, --ops 24 seed 4018384: squeeze(mb[{2, 1, 2}](sin(y)))
     * of a {1, 1, 2} y under sin and mul beside a parameter folded in
     * the core, its twin reshape of sin(mb(y)) in the noisy graph did
     * not) */
    const ins *m = sq->nargs == 1 ? sq->args[0] : NULL;
    *out = rule_bool(m && m->nargs == 1 && fold_rank_fits(m->args[0], sq->sh.rank) && folds_beside_values(sq) &&
                     !reads_unit_broadcast(m->args[0]));
    return true;
}

/* Every one-operand reader q of u beside r is asked as r's one-operand
 * readers are (beside_unshaped_values_d from q): the clusters move such
 * a reader between u and u's reshape by order, and the fold's answer must
 * not depend on which it reads (round s62B, seed 11005634). */
static bool unary_readers_beside_unshaped(const ins *u, const ins *r)
{
    for (int k = 0; k < u->nusers; k++) {
        const ins *q = u->users[k];
        if (q != r && pointwise_unary(q) &&
            !beside_unshaped_values_d(q, r, 1))
            return false;
    }
    return true;
}

static bool multibroadcasts_merge(const ins *v);
static bool multibroadcast_spelling(const ins *m);
static const ins *cluster_root(const ins *x);

/* Some reader w of r is a cluster op whose sink (its cluster's root, or
 * the end of the root's reshapes of one reader) is read by a
 * multibroadcast that a two-operand op reads beside another
 * multibroadcast the merges take with it (multibroadcasts_merge): that op
 * joins the cluster with no guard of the cluster's, and the cluster is
 * labelled again. */
static bool reader_cluster_grows(const ins *r)
{
    for (int k = 0; k < r->nusers; k++) {
        const ins *w = r->users[k];
        if (!is_cluster_op(w))
            continue;
        const ins *sink = cluster_root(w);
        for (int d = 0; d < VIEW_CLUSTER_MAX && one_reader(sink) && is_op(sink->users[0], "reshape"); d++)
            sink = sink->users[0];
        for (int j = 0; j < sink->nusers; j++) {
            const ins *q = sink->users[j];
            if (!multibroadcast_spelling(q) || q->nargs != 1)
                continue;
            for (int i = 0; i < q->nusers; i++)
                if (multibroadcasts_merge(q->users[i]))
                    return true;
        }
    }
    return false;
}

/* Every reader of r that is a cluster op runs in its cluster's lens
 * already (runs_in_own_cluster_lens). */
static bool reader_clusters_settled(const ins *r)
{
    for (int k = 0; k < r->nusers; k++)
        if (is_cluster_op(r->users[k]) && !runs_in_own_cluster_lens(r->users[k]))
            return false;
    return true;
}

/* The fold's question for reader r of u (readers_take_broadcast_d's
 * branch): r folds into u's multibroadcast once it sinks, under
 * reshape_of_multibroadcast's guards, and r's readers take the layout. */
static bool fold_guards(const ins *r, const ins *u, const ins *x, int depth)
{
    if (fold_question_depth > 0)
        return false;
    fold_question_depth++;
    bool yes = !reads_unit_broadcast(x) && folds_beside_values(r) && unary_readers_beside_unshaped(u, r) &&
               !dropped_below(r) && !read_back_waits(r, fold_broadcast(u)) && !reshapes_merge_at_reader(r) &&
               !reader_cluster_grows(r) && reader_clusters_settled(r) &&
               readers_take_broadcast(r, r, depth + 1);
    fold_question_depth--;
    return yes;
}

static bool fold_takes_broadcast(const ins *r, const ins *u, int depth)
{
    const ins *x = reshape_folds_into_multibroadcast(r, u);
    return x && fold_guards(r, u, x, depth);
}


/* v is b(u, u), a two-operand op of u twice (round s63D's twice_of):
 * it keeps u's layout, and binary_above_broadcast_twice sinks u's
 * broadcast below b as unary_above_multibroadcast sinks it below u, so a
 * reshape of b folds as a reshape of u does (--ops 24 seed 4019446:
 * max(sigmoid(mb(mul)), same) unsqueezed for add kept sigmoid above its
 * broadcast, where the core's unsqueeze of mb(max(s, s)) folded). */
static bool twice_of(const ins *v, const ins *u)
{
    return v != u && (v->op->classes & OPC_BINARY) && v->nargs == 2 && v->nmods == 0 && v->args[0] == u &&
           v->args[1] == u && pointwise_unary(u);
}

/* The merged fold (round s61A's change 4, tightened in s62B): r is a
 * reshape of v = b(u, o) (either order), u a one-operand op of a
 * multibroadcast m of x that r folds into (reshape_folds_into) and o a
 * broadcast of a computed y of more than one element whose lens
 * broadcast to x's, that reads no broadcast of one element
 * (reads_unit_broadcast): once m sinks, binary_above_multibroadcasts
 * merges the two broadcasts below b into one of x's lens, and r folds
 * into it as above, so r's readers decide, under the fold's guards
 * (--ops 16 seed 16016010: sub(mb(sub(p1, p2)), relu(mb[{2, 2}](dot)))
 * unsqueezed for sigmoid under mul(p3, .) kept relu above its broadcast,
 * where the core, whose unsqueeze met the merged broadcast, folded it). */
static bool merged_fold_takes_broadcast(const ins *r, const ins *v, const ins *u, int depth)
{
    if (!is_op(r, "reshape") || r->nargs != 1 || r->nmods != 0 || r->args[0] != v || v == u ||
        !(v->op->classes & OPC_BINARY) || v->nargs != 2 || v->nmods != 0 || v->args[0] == v->args[1] ||
        (v->args[0] != u && v->args[1] != u) || !pointwise_unary(u))
        return false;
    const ins *m = fold_broadcast(u), *o = other_operand(v, u);
    const ins *x = m ? reshape_folds_into(r, m) : NULL;
    if (!x || !broadcast_op(o) || o->nargs != 1 || o->nmods != 0 || !shape_broadcasted_p(&o->sh))
        return false;
    const ins *y = o->args[0];
    return shape_elements(&y->sh) > 1 && !view_is_constant(y) && !reads_unit_broadcast(y) &&
           shape_lens_broadcast_to(y->sh.lens, y->sh.rank, x->sh.lens, x->sh.rank) && fold_guards(r, u, x, depth);
}

static bool read_once_by_broadcast(const ins *v);
static bool stays_in_cluster_lens_now(const ins *x);

/* Depth of stretched_apart's questions (a reader's own sink asks its
 * readers, which may ask stretched_apart again, further up the graph);
 * per thread, as the library runs one graph per thread. */
static _Thread_local int stretched_apart_depth;

/* w reads v, the value of a broadcast b that stretches its operand r, or
 * of a one-operand op over b whose broadcast sinks below it: w does not
 * show r's layout. A one-operand op computes a standard value of any
 * broadcast (ops_unary_layout); but where b sinks below it
 * (broadcast_sinks_below), the op reads r and takes r's layout, and its
 * readers then read the broadcast of it: they are asked in its place (round
 * s82C, seeds 5009047 and 7017468: tanh over broadcast(add(t, sigmoid(..)))
 * of a transposed t sank in the orders where sigmoid had sunk first, and
 * kept t's layout; where tanh sank first, add's reader was tanh and sigmoid
 * stayed). A two-operand op beside a standard value that cannot become a
 * broadcast, or beside a chain over another stretching broadcast that
 * stretches no axis in common with b (apart_broadcast_pair's ground: no
 * merge takes the two, the op's value is row-major either way). Not a
 * pending reader, which hides its own layout. */
static bool apart_reader(const ins *w, const ins *v, const ins *b)
{
    if (w->nmods != 0 || ins_is_pending(w))
        return false;
    if (pointwise_unary(w)) {
        if (stretched_apart_depth >= VIEW_CLUSTER_MAX)
            return false;
        stretched_apart_depth++;
        bool ok = !broadcast_sinks_below(w);
        if (!ok) {
            ok = w->nusers > 0;
            for (int j = 0; j < w->nusers && ok; j++)
                ok = apart_reader(w->users[j], w, b);
        }
        stretched_apart_depth--;
        return ok;
    }
    if (!(w->op->classes & OPC_BINARY) || w->nargs != 2)
        return false;
    const ins *other = other_operand(w, v), *n = other != v ? chain_broadcast(other) : NULL;
    unsigned sa = stretched_axes_in(b, w->sh.lens, w->sh.rank),
             sb = n && n != b ? stretched_axes_in(n, w->sh.lens, w->sh.rank) : 0;
    return (other != v && !broadcast_bound(other, NULL, 0) && shape_standard_p(&other->sh)) || (sa && sb && !(sa & sb));
}

/* r, a reader of v, begins a chain of shape links (identity_link) and
 * two-operand ops of one value, b(w, w), each read once (b(w, w) reads w
 * twice), that passes through lens other than v's with length-1 axes
 * added or dropped (*other_lens) and ends in v's own lens, where each
 * b(w, w) on it runs in v's lens by its cluster's labelling (cluster_lens_at,
 * asked as one query): binary_into_cluster_lens moves each such op into
 * v's lens, and the links around it then compose away with no guard
 * (reshape_of_reshape, reshape_to_same_shape), so v's readers are b(v, v)
 * and then the end's readers, in every order (round s81C, seed 1091356:
 * relu(broadcast(s)) reshaped to {18} for max(r, r) and back, beside
 * mb(relu) under a merging max: the merge waited for relu's sink only in
 * the orders that had moved max first). Returns the end, or NULL. The
 * labelling asks this walk, which then answers no (labelling_clusters)
 * rather than ask the labelling back. Only chains through other lens
 * count (the sink waits for them, shape_chain_composes): a chain of
 * length-1 axes around b(w, w) is round s46D's twice_read_back case, where
 * the clusters' move and the sink race (golden
 * reshape_of_broadcast_to_broadcast.not_reshaped_back_through_twice). */
static const ins *clustered_chain_end(const ins *v, const ins *r, bool *other_lens)
{
    *other_lens = false;
    if (r->nargs < 1 || r->args[0] != v || labelling_clusters())
        return NULL;
    const ins *w = r, *e = NULL;
    bool ops = false;
    for (int d = 0; d < 2 * VIEW_CLUSTER_MAX; d++) {
        bool link = identity_link(w);
        bool op = !link && w->nmods == 0 && (w->op->classes & OPC_BINARY) && w->nargs == 2 && w->args[0] == w->args[1];
        if (!link && !op)
            break;
        if (op) {
            int64_t cl[SHAPE_MAX_RANK];
            int ncl;
            query_begin();
            bool in_v = cluster_lens_at(w, true, cl, &ncl) && lens_equal(cl, ncl, v->sh.lens, v->sh.rank);
            query_end();
            if (!in_v)
                break;
            ops = true;
        }
        if (lens_equal(w->sh.lens, w->sh.rank, v->sh.lens, v->sh.rank))
            e = w;
        if (!unit_lens_only(w->sh.lens, w->sh.rank, v->sh.lens, v->sh.rank))
            *other_lens = true;
        /* read once, or twice by one b(w, w) */
        if (!(w->nusers == 1 || (w->nusers == 2 && w->users[0] == w->users[1])))
            break;
        w = w->users[0];
    }
    return ops && e && *other_lens ? e : NULL;
}

/* Every reader of r is a broadcast b that stretches r's value, whose
 * readers do not show r's layout (apart_reader), or a one-operand op,
 * which takes r's layout, whose own readers are such (the state after a
 * one-operand reader of b has sunk below it, asked the same as before):
 * whatever layout r takes, no value past the broadcasts shows it. */
static bool stretched_apart(const ins *r)
{
    bool ok = r->nusers > 0;
    for (int k = 0; k < r->nusers && ok; k++) {
        const ins *b = r->users[k];
        if (pointwise_unary(b) && b->nmods == 0 && !ins_is_pending(b)) {
            if (stretched_apart_depth >= VIEW_CLUSTER_MAX)
                return false;
            stretched_apart_depth++;
            ok = stretched_apart(b);
            stretched_apart_depth--;
            continue;
        }
        ok = broadcast_op(b) && b->nargs == 1 && b->nmods == 0 && shape_elements(&b->sh) > shape_elements(&r->sh) &&
             b->nusers > 0;
        for (int j = 0; j < b->nusers && ok; j++)
            ok = apart_reader(b->users[j], b, b);
    }
    return ok;
}

/* Every reader of v (u's value, possibly through broadcasts that stretch
 * nothing) has the same layout whether v is standard or a broadcast. */
static bool readers_take_broadcast_d(const ins *v, const ins *u, int depth, bool dots);

/* A reader of e is a two-operand op beside a value that is no broadcast
 * and cannot become one (broadcast_bound): such a reader is a cluster op
 * unless e's own broadcast sinks below it, so the clusters still run it in
 * lens of their choosing, which the chain from u to e does not decide:
 * the chain term of readers_take_broadcast_d leaves it to the state after
 * the chain has composed (round s84C, seed 2038184:
 * mul(reshape(t(t(reshape(s)))), reshape(abs(broadcast))) through
 * {1, 6, 1, 4} and back: abs sank where mul had been labelled in
 * {3, 2, 4} while the transposes stood, and stayed where mul ran in
 * {24}). */
static bool beside_unbound_value(const ins *e)
{
    for (int k = 0; k < e->nusers; k++) {
        const ins *w = e->users[k];
        if ((w->op->classes & OPC_BINARY) && w->nargs == 2 && w->nmods == 0 && w->args[0] != w->args[1] &&
            !broadcast_bound(other_operand(w, e), NULL, 0))
            return true;
    }
    return false;
}

static bool readers_take_broadcast(const ins *v, const ins *u, int depth)
{
    return readers_take_broadcast_d(v, u, depth, false);
}

/* The same, where `dots` says v is the value of a two-operand op whose
 * broadcasts merge (or the walk has passed one): a dot reader takes it,
 * as it takes the merged broadcast the core's graph gives it, reader by
 * reader beside the other readers (before, a merged value read by a dot
 * and by a pointwise op counted for neither flows_into_dots, which wants
 * every path to end at a dot, nor this walk, which took a dot only of one
 * value; seed 1020247: mul(neg(mb(p3)), mb(tanh(x))) read by a dot and
 * by mul(dot, .) kept neg above its broadcast, where the core computed
 * mul on the small values). Not for a dot reading u itself, with no merge
 * between (tuned seed 190: a race of transposes of length-1 axes). */
static bool readers_take_broadcast_d(const ins *v, const ins *u, int depth, bool dots)
{
    bool ok = v->nusers > 0 && depth <= VIEW_CLUSTER_MAX;
    for (int k = 0; k < v->nusers && ok; k++) {
        const ins *r = v->users[k];
        unsigned c = r->op->classes;
        /* a reader that begins a chain of shape ops back to v's lens,
         * which composes away with no guard (identity_chain_from), or
         * such a chain through b(w, w) ops the clusters run in v's lens
         * (clustered_chain_end): the chain's end's readers are v's readers
         * in every order, before the chain has composed as after (round
         * s81C, seed 1091356); b(v, v) keeps v's layout, so its readers
         * decide, or the dots it flows into */
        {
            bool unit_only;
            const ins *e = identity_chain_from(v, r, &unit_only);
            if (e && v == u && ((depth == 0 && unit_chain_root == u) || !unit_only) &&
                !beside_unbound_value(e) && readers_take_broadcast_d(e, u, depth + 1, dots))
                continue;
            bool other_lens = false;
            e = clustered_chain_end(v, r, &other_lens);
            if (e && (readers_take_broadcast_d(e, u, depth + 1, dots) || flows_into_dots(e, u, depth + 1)))
                continue;
        }
        /* a one-operand op's value is standard where v is, and where v is a
         * broadcast of some stride; but where v, a reshape that copies now,
         * becomes a broadcast of one element (every stride 0), the op keeps
         * that layout (ops_unary_layout), so its own readers decide (seed
         * 1019643: the core's returned sin(reshape(mb(sigmoid(p0)))) of a
         * one-element p0 made the reshape a broadcast and the output a
         * contiguous, where the noisy graph, whose sin had moved above the
         * reshape, kept the copying reshape) */
        if ((c & OPC_UNARY) && r->nargs == 1) {
            /* a reshape v (not one that becomes a broadcast of one
             * element, below) read by a one-operand op read only by reductions:
             * once the op moves above v (unary_above_reshape), v is read by
             * the reductions, which do not take it as a broadcast (the
             * reduction branch below), and reduce_below_reshape moves it
             * below them; made a broadcast first, the op sank below it and
             * the reductions read the broadcast (seed 1014915) */
            bool v_unit = reshape_becomes_unit_broadcast(v);
            if (is_op(v, "reshape") && v == u && !v_unit && reduced_below(r)) {
                ok = false;
                continue;
            }
            const ins *unit = NULL;
            if (v_unit && !has_length_one_axis(v))
                unit = v;
            else if (v != u && becomes_unit_broadcast(u))
                unit = u;
            if (unit)
                ok = r->nmods == 0 && readers_take_broadcast_d(r, unit, depth + 1, dots);
            /* v of lens with a length-1 axis: made a broadcast, that axis
             * keeps its operand's stride and the op's value is standard, as
             * now; but a shape op reading the op's value (shape_op_below)
             * then stays a view of its own, where with v kept the op moves
             * above v (unary_above_reshape) and the two shape ops compose
             * into one reshape of the broadcast: one view fewer */
            else if (v_unit)
                ok = r->nmods == 0 && !shape_op_below(r, depth + 1);
            continue;
        }
        /* a transpose of a value that becomes a broadcast of one element
         * with every stride 0 (u, becomes_unit_broadcast) has every stride
         * 0 as well: its readers decide, as they do for a one-operand op
         * (seed 1015272: reduce_max(t2(sin(t1(reshape(mb[{32}](p0)))))) of
         * a {1} p0, whose transposes cancel, kept the copying reshape in
         * the orders that moved sin above t1 first, and made it a
         * broadcast in the others). Only a transpose of an op's value read
         * through the walk, not one reading the reshape itself: that one
         * the transposes' own rules settle, and followed here it made ties
         * of seeds 1080810 and 1093618 */
        if (is_op(r, "transpose") && r->nargs == 1 && r->nmods == 0 && !is_op(v, "reshape")
            && becomes_unit_broadcast(u)) {
            ok = readers_take_broadcast_d(r, u, depth + 1, dots);
            continue;
        }
        /* a dot reads any strides, and u of a broadcast of one value
         * (reads_one_element) is that value in any layout: the broadcast
         * sinks (seed 2018616: sigmoid(mb(squeeze(mb(x)))) of one element
         * read by a dot stayed where the core's sigmoid(mb(x)) under the
         * squeeze sank). Asked of u's current strides instead
         * (keeps_layout, returns_layout), the answer changed as the
         * broadcasts under u merged (seeds 2054069, 2058425) or looped with
         * multibroadcast_of_unary_of_scalar (seed 1049996). Not for any u:
         * tuned seed 190. */
        if (is_op(r, "dot") && r->nmods == 0 && (dots || reads_one_element(u)))
            continue;
        /* a reduction reads any strides, and its value is standard either
         * way, as a one-operand op's is (seed 1002084: neg(mb(p1)) read by
         * mul(broadcast(p0), .) under a reduce_mean stayed above its
         * broadcast, where the core merged mul(mb(p0), mb(neg(p1))) into
         * one broadcast of mul on the small values). Not of a reshape
         * (becomes_broadcast asks it so): a reduction of a reshape takes the
         * reshape in or moves below it (reduce_below_reshape and the
         * like), where made a broadcast first the reshape stayed beside it
         * (seeds 1018489, 1025029: reduce_max(unsqueeze(mul(mb, mb)))) */
        if ((c & OPC_REDUCE) && r->nargs == 1 && r->nmods == 0 && !is_op(v, "reshape"))
            continue;
        /* the return keeps v's strides; where they are the broadcast's
         * already (u of a one-element broadcast keeps its every-stride-0
         * layout), the output has the same layout whether the broadcast
         * sinks or not, so it sinks, as it does below any unary reader
         * (seed 10395: the core's returned mb(abs(x)) stayed while the
         * noisy graph's abs(mb(x)) did too, two graphs) */
        if (is_op(r, "@return") && returns_layout(v, u))
            continue;
        /* the return keeps v's strides; where v computes one value
         * (one_element_source) and already has the every-stride-0 layout of
         * a broadcast of one element, as u does (keeps_layout), the
         * broadcasts under v sinking and merging leave v a broadcast of that
         * one value in v's lens, of the same layout (seed 1016731:
         * max(mb(p), abs(mb(x))) returned, where the core merged all into
         * one broadcast) */
        if (is_op(r, "@return") && keeps_layout(u, u) && unit_stride_zero(v) &&
            computes_one_element(v))
            continue;
        if (broadcast_op(r)) {
            /* a broadcast that stretches nothing goes, composes or becomes a
             * reshape: what counts is what reads it; one that stretches
             * takes its operand's strides along, which an output it feeds
             * keeps (a copy if they change) */
            /* One that stretches nothing and becomes a reshape
             * (*broadcast_to_reshape: its operand is standard and nothing
             * it composes with reads it) counts as that reshape (the
             * reshape branch below), not by its readers: judged by them,
             * u's broadcast sank in the orders that reached u first and
             * stayed above the reshape in the others (seed 1017317:
             * broadcast[axis=0](sin(mb[{3, 1}](s))) of a {1, 1} s, read by
             * add(p, .)). */
            if (shape_elements(&r->sh) > shape_elements(&v->sh))
                ok = keeps_layout(v, u) || !layout_reaches_output(r, depth + 1);
            else if (unit_broadcast(r) && !composes_below(r))
                ok = v == u && unit_broadcast_operand(u) && stretched_below(r) && readers_take_broadcast(r, r, depth + 1) &&
                     !dropped_below(r);
            else
                ok = readers_take_broadcast_d(r, u, depth + 1, dots);
            continue;
        }
        if ((c & OPC_BINARY) && r->nargs == 2 && r->args[0] == v && r->args[1] == v && r->nmods == 0) {
            /* b(v, v) has v's layout, whatever it is: its readers decide, as
             * binary_above_*broadcast_twice decide by b's readers once the
             * broadcast has sunk to b (seeds 12436, 17454: relu(mb(x)) read
             * by mul(r, r); where x is a constant behind a pending op that
             * is_constant did not see through, the twice rule and this one
             * disagreed, seed 18463) */
            ok = readers_take_broadcast_d(r, u, depth + 1, dots) || flows_into_dots(r, u, depth + 1);
            continue;
        }
        /* a transpose of u that, once u's broadcast sinks below u, reads
         * that broadcast and only swaps axes of equal length and stride
         * (stride-0 axes it stretches): transpose_to_same_shape then drops
         * it, and its readers read the broadcast as u's readers do, so they
         * decide. Seeds 1039793 (t(tanh(broadcast[axis=3](p1))) read by
         * abs and mul), 1006880 (t(neg(mb[{3, 3, 2}](p0))) read by a dot
         * and a sub) and 1032716 (dot(p0, t(abs(mb(p1)))) of a {1, 1, 1}
         * p1): the core's t(mb(u(x))) lost its transpose, the noisy graph
         * kept u above its broadcast and the transpose. */
        if (is_op(r, "transpose") && r->nargs == 1 && r->nmods == 0 && transpose_vanishes_on_broadcasts(r, v)) {
            ok = !layout_reaches_output_unary(r, depth + 1) && !transpose_below(r, depth + 1) &&
                 readers_take_broadcast_d(r, u, depth + 1, dots);
            continue;
        }
        /* a squeeze of u, the only reader of u, where u's operand is a
         * multibroadcast of one element of a value that is no broadcast and
         * no constant, and the squeeze's only reader is a two-operand op b
         * beside a value that is no constant, b not read once by a
         * broadcast and staying in its cluster's lens (the guards of
         * squeeze_of_unit_multibroadcast_first / _second): once the
         * broadcast sinks below u, those rules make the squeeze
         * mb[s.lens](reshape(u(x))), which b reads as it would read u's
         * broadcast, so b and its readers decide, as for a reader of u
         * itself (seed 2009824: squeeze(relu(mb[{1, 3, 2, 3}](p1))) of a
         * {1, 1, 1} p1 read by mul(relu(p0), .) kept relu above its
         * broadcast, where the core's squeeze(mb(relu(p1))) became
         * mb[{3, 2, 3}](relu(p1))). b's lens are asked as one query
         * (stays_in_cluster_lens_now): the labelling asks this walk, which
         * then answers "not yet" (labelling_clusters) rather than ask the
         * labelling back. Only where u's value is no standard one (u keeps
         * its operand's broadcast layout, ops_unary_layout): the squeeze
         * of a standard value becomes a reshape first in some orders
         * (squeeze_to_reshape), which the reshape branch below answers
         * for, and taken here the broadcast sank below u before b's
         * cluster was labelled in the others (--ops 24 seed 4014095:
         * max(squeeze(abs(mb[{4, 1, 1}](s))), mul(p, squeeze(t))) stayed
         * in {4, 1} in program order, and ran in t's {4, 1, 1} where the
         * squeeze became a reshape). */
        if (is_op(r, "squeeze") && r->nargs == 1 && r->nmods == 0 && v == u && v->nusers == 1 &&
            unit_broadcast_operand(u) && is_op(u->args[0], "multibroadcast") && !broadcast_op(u->args[0]->args[0]) &&
            !shape_standard_p(&u->sh) && r->nusers == 1) {
            const ins *b = r->users[0];
            if ((b->op->classes & OPC_BINARY) && b->nargs == 2 && b->nmods == 0 && b->args[0] != b->args[1] &&
                !view_is_constant(other_operand(b, r)) && !read_once_by_broadcast(b)) {
                ok = !labelling_clusters() && stays_in_cluster_lens_now(b) && readers_take_broadcast_d(r, u, depth + 1, dots);
                continue;
            }
        }
        /* a shape op of u (a squeeze, unsqueeze or reshape), the only reader
         * of u, where u's operand is a multibroadcast of one element and the
         * shape op's only reader is a dot: once the broadcast sinks below u,
         * the dot reads a shape op of a broadcast of one element, which
         * multibroadcast_shape_into_dot_unit_* make the broadcast to the
         * shape op's lens with no guard, and a dot reads any strides. So the
         * dot's operand is a broadcast of u's one value either way, and the
         * graph that keeps u above its broadcast keeps the shape op too (no
         * rule takes a squeeze or unsqueeze of a value that is no standard
         * one): one view more than the core's, whose shape op met the
         * broadcast first (seed 1093502: neg(mb[{2, 1, 2}](add)) of a {1}
         * add squeezed for a dot, where the core's dot read a broadcast of
         * neg's one value; --ops 24 seed 11006815: abs(mb(p)) of a
         * {1, 1} p squeezed for a dot). Only u read by the shape op alone,
         * the shape op read by the dot alone and a broadcast of no
         * multibroadcast: the dot rules take a broadcast and a shape op each
         * read once, of a value that is no multibroadcast. */
        if ((c & OPC_SHAPE) && r->nargs == 1 && r->nmods == 0 && v == u && v->nusers == 1 && unit_broadcast_operand(u) &&
            is_op(u->args[0], "multibroadcast") && !is_op(u->args[0]->args[0], "multibroadcast") && r->nusers == 1 &&
            is_op(r->users[0], "dot") && r->users[0]->nmods == 0)
            continue;
        /* a reshape of u, where u's operand broadcasts one element: once
         * the broadcast sinks below u, the reshape reads a broadcast of one
         * element, every reshape of which is a view, and becomes a broadcast
         * where reshape_of_multibroadcast would make it one (its readers
         * take the layout, no multibroadcast below drops it). Only where
         * each reader stretches it and stays its reader (stretched_below):
         * a reshape read by pointwise ops is the clusters' (any reshape
         * reader: 869 of 100000 held out, 602 before). The core's
         * reshape(mb(u(x))) became one broadcast where the noisy
         * reshape(u(mb(x))) stayed (seed 1000579). */
        if (is_op(r, "reshape") && r->nargs == 1 && r->nmods == 0 && v == u && unit_broadcast_operand(u)) {
            ok = stretched_below(r) && readers_take_broadcast(r, r, depth + 1) && !dropped_below(r);
            continue;
        }
        /* a reshape of u that folds into u's multibroadcast once it sinks
         * (reshape_folds_into_multibroadcast, fold_takes_broadcast): r's
         * readers decide */
        if (reshape_folds_into_multibroadcast(r, u) && v == u) {
            ok = fold_takes_broadcast(r, u, depth);
            continue;
        }
        /* the same of a reshape of b(u, u) (twice_of): once u's broadcast
         * sinks, binary_above_broadcast_twice takes b below it too */
        if (twice_of(v, u) && is_op(r, "reshape") && r->nargs == 1 && r->nmods == 0 && fold_broadcast(u)) {
            const ins *x = reshape_folds_into(r, fold_broadcast(u));
            if (x) {
                ok = fold_guards(r, u, x, depth);
                continue;
            }
        }
        /* a reshape of u (or a squeeze or unsqueeze of it, which
         * becomes_reshape: the fold rules make it a reshape with no guard,
         * round s46D), u a one-operand op of a broadcast[axis] m of k,
         * that begins a chain of reshapes whose end e (reshape_chain_end:
         * reshape_of_reshape composes the chain, with no guard, so e's lens
         * are those of the one reshape that reads m once m sinks below u)
         * only adds or drops length-1 axes of u's lens (unit_lens_only):
         * such a reshape of a broadcast is a view of it, and
         * reshape_of_broadcast makes it one broadcast in e's lens under its
         * guards (e's readers take the layout, none drops e;
         * reshapes_merge_at_reader answers no for a reshape of a
         * broadcast), so e's readers decide (round s45G's next step). Only
         * where that answer cannot change by order before m sinks:
         * - m puts k's axes elsewhere than last (aligned_broadcast_to_multibroadcast
         *   makes the other kind a multibroadcast, with no guard, and some
         *   orders then ask the multibroadcast's question; seed 2033583);
         * - k is no broadcast and reads none (one that sinks below k
         *   changes m's strides and the reshape's let: seed 2000231,
         *   abs(broadcast[axis=0](abs(broadcast[axis=2](s)))) reshaped to
         *   {4, 4} for a sub, whose inner abs sank first in program order
         *   and later in order 15838);
         * - m read in e's lens is a broadcast of k's elements whose lens are
         *   k's but for leading 1s (broadcast_view, the rule's let; of more
         *   than one element, as multibroadcast_of_unit_reshape asks), so the
         *   rules leave one view where there were two: else
         *   reshape(broadcast(k)) becomes mb(reshape(k)), as many views, and
         *   the chain may still compose away in the orders that move u's
         *   readers above it first (seed 2010453:
         *   relu(broadcast[axis=1, {3, 4, 3, 2}](p{4, 3})) unsqueezed, sin,
         *   squeezed for a dot: mb(reshape[{4, 3, 1}](relu)) in program
         *   order, broadcast[axis=1](relu) where the shape ops met first);
         * - every reader of e is a two-operand op beside a value that is no
         *   constant (binary_readers_beside_values; seeds 2000231's output,
         *   2065075's and 2027110's one-operand and transpose readers,
         *   2012099's sub beside a literal); or every reader of e is b(e, e)
         *   (twice_readers: b keeps e's layout, whatever it is, and
         *   binary_above_broadcast_twice takes b below the broadcast the
         *   reshape becomes) where m in e's lens is one broadcast[axis] of
         *   k (broadcast_axis_reshaped_at, reshape_of_broadcast_to_broadcast's
         *   let; seed 9014909): only there does binary_above_reshape_twice
         *   wait for the reshape to become that broadcast
         *   (reshape_to_one_broadcast); where it becomes mb(reshape(k))
         *   instead, the twice rule moves b above e in the orders that reach
         *   it first and the sunk broadcast ends under another reshape (seed
         *   4008722: mul(e, e) of sigmoid(broadcast[axis=0, {27, 1,
         *   2}](p0)) squeezed to {27, 2} and reshaped for a dot). Not where
         *   b's value is reshaped back to
         *   u's lens but for length-1 axes (twice_read_back): the clusters
         *   then move b into u's lens and the reshapes compose away in the
         *   orders that reach b first, while the sink made the reshape of
         *   the broadcast a view that does not meet u's other readers
         *   (seed 2026637: mul(unsqueeze(tanh(broadcast(p0))), same)
         *   squeezed for mul(., tanh) ended as mul(mb(reshape(mul)),
         *   broadcast(tanh)) in program order, mul(mul(B, B), B) in the
         *   others; 2057128); or every reader of e is a dot (dots read
         *   any strides, so the walk takes them, `dots`) where m in e's
         *   lens is one broadcast[axis] of k, as
         *   reshape_of_broadcast_to_broadcast's dot arm makes it once m
         *   sinks below u, and squeeze_of_broadcast_to_broadcast makes the
         *   squeeze of the graph whose u ran on k, which never becomes a
         *   reshape (tuned seed 2150: neg(broadcast[axis=2, {4, 1, 3,
         *   2}](p0)) squeezed for a dot stayed above its broadcast, 2
         *   views, where the core's squeeze of broadcast(neg(p0)) became
         *   one broadcast[axis=1]). Not where e's lens are u's own: the
         *   chain then composes into a reshape to u's shape, which
         *   reshape_to_same_shape removes with no guard, and the dot reads
         *   u itself, which the dot branch above does not take (seed
         *   1005435: neg(broadcast) reshaped to {6, 1, 6} and back for a
         *   dot sank in program order only).
         * Seed 2066561: tanh(broadcast[axis=2, {1, 4, 3, 1}](p3)) squeezed
         * for a pointwise max beside reshape(p2) kept tanh above its
         * broadcast, where the core, whose squeeze had met the broadcast
         * first, reached max(mb(tanh(p3)), reshape(p2)). */
        if (becomes_reshape(r) && r->nmods == 0 && v == u && (u->op->classes & OPC_UNARY) &&
            u->nargs == 1 && is_op(u->args[0], "broadcast") && u->args[0]->nargs == 1) {
            const ins *m = u->args[0], *k = m->args[0], *e = reshape_chain_end(r);
            int64_t kc[SHAPE_MAX_RANK];
            ok = !aligned_broadcast(m) && !broadcast_op(k) && !reads_broadcast(k) && shape_elements(&k->sh) > 1 &&
                 unit_lens_only(e->sh.lens, e->sh.rank, v->sh.lens, v->sh.rank) &&
                 broadcast_view(m, e->sh.lens, e->sh.rank, kc) &&
                 ((lens_equal_but_leading_ones(kc, e->sh.rank, k->sh.lens, k->sh.rank) &&
                   binary_readers_beside_values(e)) ||
                  (twice_readers(e) && !twice_read_back(e, u) &&
                   broadcast_axis_reshaped_at(m, e->sh.lens, e->sh.rank, &(int64_t){0})) ||
                  (every_reader(e, plain_dot) && !lens_equal(e->sh.lens, e->sh.rank, v->sh.lens, v->sh.rank) &&
                   broadcast_axis_reshaped_at(m, e->sh.lens, e->sh.rank, &(int64_t){0}))) &&
                 !dropped_below(e) &&
                 readers_take_broadcast_d(e, e, depth + 1, every_reader(e, plain_dot));
            continue;
        }
        /* the same of v, a two-operand op whose broadcasts merge (dots),
         * that computes one element with u (one_element_source): once they
         * sink and merge, the reshape reads a broadcast of one element and
         * becomes mb(reshape[1s](y)) (reshape_of_multibroadcast), where each
         * reader stretches it or is a two-operand op beside a full value
         * (beside_full_values: its value is standard either way). Seed
         * 1011955: sub(mb(p1), sigmoid(mb(p2))) reshaped for sub(literal, .)
         * kept sigmoid above its broadcast, where the core, whose sigmoid
         * had sunk, computed sub on one element and broadcast it once. Not
         * for a one-operand reader of the reshape (the clusters'; tuned seed
         * 1174: sin(reshape(add(max(..), sin(mb(p2))))) ended as
         * mb(reshape[{1, 1}](tanh)) against the core's mb(tanh)). Also
         * where only reductions read the reshape (reduced_below, round
         * s36B): a reduction reads any strides and gives a standard value
         * either way, and the reshape of the merged broadcast stays under
         * it as in the core (seed 1069734: add(sin(mb[{48}](p0)),
         * mb[{48}](max(literal, p1))) reshaped for a reduce_sum kept sin
         * above its broadcast, where the core computed add on one element
         * and broadcast it once). */
        if (dots && merged_fold_takes_broadcast(r, v, u, depth))
            continue;
        if (is_op(r, "reshape") && r->nargs == 1 && r->nmods == 0 && v != u && dots && reads_one_element(u) &&
            computes_one_element(v)) {
            ok = (reduced_below(r) || ((stretched_below(r) || beside_full_values(r)) && readers_take_broadcast(r, r, depth + 1))) &&
                 !dropped_below(r);
            continue;
        }
        ok = (c & OPC_BINARY) && r->nargs == 2 && r->args[0] != r->args[1];
        if (ok) {
            /* an other operand that is or may become a broadcast merges with
             * v's at r, whose layout then changes: r's readers decide, or
             * the dots r's value flows into, which take the merged
             * broadcast as the core's graph gives it to them. One that
             * cannot and is not standard gives r its own layout once v is
             * a broadcast (ops_binary_layout: the packed operand's), so r's
             * layout changes: only broadcasts that stretch r and whose
             * readers do not show r's layout may read it (stretched_apart;
             * round s81C, seed 1078782: sub(t, relu(broadcast(p))) of a
             * transposed t, under a broadcast merged first in order 7919
             * and read by max(s, .), kept relu above its broadcast where
             * program order sank it before the merge) */
            const ins *other = other_operand(r, v);
            bool bound = broadcast_bound(other, u, 0);
            ok = bound ? apart_broadcast_pair(r, v, u, other) || readers_take_broadcast_d(r, u, depth + 1, true) ||
                             flows_into_dots(r, u, depth + 1)
                       : shape_standard_p(&other->sh) || stretched_apart(r);
        }
    }
    return ok;
}

/* read_once_by_broadcast(v): see helpers_views.h. */
static bool read_once_by_broadcast(const ins *v)
{
    return v->nusers == 1 && broadcast_op(v->users[0]) && v->users[0]->nargs == 1 && v->users[0]->nmods == 0;
}

bool helper_read_once_by_broadcast(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(read_once_by_broadcast(a[0].u.in));
    return true;
}

/* pointwise_below_views(x): see helpers_views.h. */
bool helper_pointwise_below_views(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *x = a[0].u.in;
    for (int d = 0; d < VIEW_CLUSTER_MAX && x->nargs == 1 && x->nmods == 0 && (shape_view_or_transpose(x) || ins_is_pending(x)); d++)
        x = x->args[0];
    /* a two-operand op only with an operand that is a broadcast or may
     * become one: only then may the other spelling keep that broadcast
     * below x (seed 1080492's core: squeeze(mb(sub(p1, p2))) of full
     * values folds in every spelling) */
    bool binary = (x->op->classes & OPC_BINARY) && x->nargs == 2 && x->nmods == 0 &&
                  (broadcast_bound(x->args[0], NULL, 0) || broadcast_bound(x->args[1], NULL, 0));
    *out = rule_bool((pointwise_unary(x) || binary) && !ins_is_pending(x));
    return true;
}

/* shape_chain_composes(u): see helpers_views.h. */
bool helper_shape_chain_composes(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *u = a[0].u.in;
    bool yes = false;
    for (int k = 0; k < u->nusers && !yes; k++) {
        bool other_lens = false, unit_only;
        yes = (identity_chain_from(u, u->users[k], &unit_only) && !unit_only) ||
              clustered_chain_end(u, u->users[k], &other_lens);
    }
    *out = rule_bool(yes);
    return true;
}

/* takes_broadcast_layout(u): see helpers_views.h. */
bool helper_takes_broadcast_layout(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *u = a[0].u.in;
    *out = rule_bool(readers_take_broadcast(u, u, 0));
    return true;
}

/* j is a one-operand op of m's op and attributes. */
static bool same_view(const ins *j, const ins *m)
{
    bool yes = j->op == m->op && j->nargs == 1 && j->nattrs == m->nattrs && j->nmods == 0;
    for (int t = 0; yes && t < m->nattrs; t++)
        yes = strcmp(j->attrs[t].key, m->attrs[t].key) == 0 && attr_value_equal(j->attrs[t].v, m->attrs[t].v);
    return yes;
}

static bool standard_readers(const ins *m);

/* j and m broadcast values of one lens to one out_lens alike: one view
 * (same_view), or a multibroadcast and a broadcast[axis] whose axes are
 * the last ones, which aligned_broadcast_to_multibroadcast makes that
 * multibroadcast (seed 2016570: relu sank below the broadcast[axis] twin
 * of mb(s) in the orders that met it before that rule) */
static bool same_broadcast(const ins *j, const ins *m)
{
    if (same_view(j, m))
        return true;
    const ins *b = is_op(j, "broadcast") ? j : is_op(m, "broadcast") ? m : NULL;
    const ins *mb = b == j ? m : j;
    if (!b || !is_op(mb, "multibroadcast") || b->nargs != 1 || mb->nargs != 1 || b->nmods || mb->nmods)
        return false;
    const attr_value *ax = ins_attr(b, "axis");
    return ax && shape_same_lens(&b->sh, &mb->sh) && shape_same_lens(&b->args[0]->sh, &mb->args[0]->sh) &&
           ax->u.i + b->args[0]->sh.rank == b->sh.rank;
}

/* j is a two-operand pointwise op of x and a constant, in either order
 * (the literal twin hoists take a broadcast above it, round s40C) */
static bool binary_of_value_and_constant(const ins *j, const ins *x)
{
    if (!(j->op->classes & OPC_BINARY) || j->nargs != 2)
        return false;
    const ins *k = j->args[0] == x ? j->args[1] : j->args[1] == x ? j->args[0] : NULL;
    return k && k != x && view_is_constant(k);
}

/* j is a two-operand pointwise op of x and a reshape read once of a
 * value that is not constant, the reshape adding only leading 1s (round
 * s43E): multibroadcast_of_unit_reshape composes a multibroadcast of it
 * with it, so the twin hoists take a broadcast above j at the cost of the
 * view CSE merges */
static bool binary_of_value_and_unit_reshape(const ins *j, const ins *x)
{
    if (!(j->op->classes & OPC_BINARY) || j->nargs != 2 || j->nmods != 0)
        return false;
    const ins *r = j->args[0] == x ? j->args[1] : j->args[1] == x ? j->args[0] : NULL;
    if (!r || r == x || !is_op(r, "reshape") || r->nargs != 1 || r->nmods != 0 || !one_reader(r))
        return false;
    const ins *y = r->args[0];
    return !view_is_constant(y) && shape_elements(&r->sh) > 1 && y->sh.rank <= r->sh.rank &&
           lens_equal_but_leading_ones(y->sh.lens, y->sh.rank, r->sh.lens, r->sh.rank);
}

static bool copies_at_output(const ins *b, const ins *x, const ins *y);
static bool reached_through_unary(const ins *w, const ins *b, bool each_takes_broadcast, const ins *x);
static bool shares_split(const ins *m, const ins *b);

/* Does m's chain of one-operand readers rejoin a reader of its twin j? m
 * is read once, by a one-operand op u, and j has a two-operand reader r
 * whose other operand is reached from u through one-operand ops read once,
 * each taking a broadcast's layout, and r takes one too: the diamond
 * b(j, v(..u(j))) that unary_above_multibroadcast_rejoined opens by giving
 * u a copy of j, which is m. The copy then sinks along the chain and r
 * merges it with j (binary_above_multibroadcasts), so the twin hoists must
 * not take it back: hoisted, m is j again and the rejoined rule copies it
 * once more (round s40A: seeds 2027930, 2052384 looped between the two
 * (8 fires each) until the driver's bound on such fires stopped them).
 * Only where r can merge j: j is read by r alone (the plain merge's
 * :once, which unary_above_multibroadcast_rejoined's uses(m) == 2 leaves
 * once u has its copy) or each other reader of j takes it away on its own
 * (shares_split, the *_of_shared merges). A reader that keeps j keeps the
 * copy beside it for good, and the promise then held in one state only
 * (round s48G, seed 7006279 at 24 ops: sub(j, abs(m)) with j also read by
 * mul(j, p): seen as a diamond, the twin hoist waited and
 * unary_above_multibroadcast sank m below abs; below it, m was read by sub
 * directly, no chain, and multibroadcast_above_unary_to_twin took it back,
 * until the driver's bound on sweeps or on such fires stopped them). */
static bool chain_rejoins_twin(const ins *m, const ins *j)
{
    if (!one_reader(m) || shape_elements(&m->sh) <= shape_elements(&m->args[0]->sh))
        return false;
    const ins *u = m->users[0];
    if (!((u->op->classes & OPC_UNARY) && u->nargs == 1 && u->nmods == 0))
        return false;
    for (int k = 0; k < j->nusers; k++) {
        const ins *r = j->users[k];
        if (!((r->op->classes & OPC_BINARY) && r->nargs == 2 && r->nmods == 0 && r->args[0] != r->args[1]))
            continue;
        const ins *w = other_operand(r, j);
        if (shape_same_lens(&r->sh, &j->sh) && w != m && reached_through_unary(w, u, true, j->args[0]) &&
            readers_take_broadcast(r, r, 0) && !copies_at_output(r, j->args[0], j->args[0]) &&
            (one_reader(j) || shares_split(j, r)))
            return true;
    }
    return false;
}

/* x is a one-operand op u(y), a two-operand op b(y, y) reading one
 * value twice, or b(y, k) of y and a constant k (round s40C), read by
 * one instruction (m's operand's op, or m), and y
 * has a reader other than x of m's op and attributes, or is such an op
 * itself, read by x alone (up to four levels deep): x is a pointwise
 * function of a value the graph already broadcasts as m does, so the
 * *_to_twin hoists take m above x and then above each op below it (each
 * then reads the hoisted broadcast alone) until it meets that twin, which
 * CSE merges with it. */
static bool twin_below(const ins *x, const ins *m, int depth)
{
    if (depth > 4 || x->nmods != 0 || !one_reader(x) || view_is_constant(x))
        return false;
    const ins *y = x->nargs > 0 ? x->args[0] : NULL;
    if (x->nargs == 2 && binary_of_value_and_constant(x, x->args[1]) && !view_is_constant(x->args[1]))
        y = x->args[1];
    if (!(pointwise_of_one_value(x) || binary_of_value_and_constant(x, y)) || !shape_same_lens(&y->sh, &x->sh))
        return false;
    for (int k = 0; k < y->nusers; k++)
        if (y->users[k] != x && same_broadcast(y->users[k], m) && !chain_rejoins_twin(m, y->users[k]))
            return true;
    return twin_below(y, m, depth + 1);
}

/* twin_of(x, m): see helpers_views.h. */
bool helper_twin_of(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *x = a[0].u.in, *m = a[1].u.in;
    bool yes = false;
    for (int k = 0; k < x->nusers && !yes; k++) {
        const ins *j = x->users[k];
        if (j == m)
            continue;
        yes = same_view(j, m) && !chain_rejoins_twin(m, j);
        /* v(x), b(x, k) of a constant k, or b(x, r) of a reshape r that
         * adds leading 1s (round s43E) broadcast the same way, with
         * readers that make the rules hoist that broadcast above it too */
        if (!yes && (((j->op->classes & OPC_UNARY) && j->nargs == 1) || binary_of_value_and_constant(j, x) ||
                     binary_of_value_and_unit_reshape(j, x)) && j->nmods == 0 && one_reader(j)) {
            const ins *w = j->users[0];
            yes = w != m && same_view(w, m) && standard_readers(w);
        }
    }
    if (!yes)
        yes = twin_below(x, m, 0);
    *out = rule_bool(yes);
    return true;
}

/* twin_at(x, m): see helpers_views.h. */
bool helper_twin_at(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *x = a[0].u.in, *m = a[1].u.in;
    bool yes = false;
    for (int k = 0; k < x->nusers && !yes; k++)
        yes = x->users[k] != m && same_view(x->users[k], m) && !chain_rejoins_twin(m, x->users[k]);
    *out = rule_bool(yes);
    return true;
}

/* twin_below(x, m): see helpers_views.h. */
bool helper_twin_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(twin_below(a[0].u.in, a[1].u.in, 0));
    return true;
}

/* standard_readers(m): see helpers_views.h. */
bool helper_standard_readers(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(standard_readers(a[0].u.in));
    return true;
}

static bool apart_broadcast(const ins *n, const ins *v);
static bool held_shared_broadcast(const ins *o, const ins *r);

/* i is an output or a dot. */
static bool output_or_dot(const ins *i) { return is_op(i, "@return") || plain_dot(i); }

/* The readers of m are dots, or two-operand ops whose other operand is
 * standard and stays so (standard_readers), or, where apart_of is not NULL,
 * a multibroadcast that never merges with one of apart_of
 * (apart_broadcast; hoist_readers), where a one-operand reader counts only
 * if outputs and dots alone read it. */
static bool readers_keep_standard(const ins *m, const ins *apart_of)
{
    bool ok = m->nusers > 0;
    for (int k = 0; k < m->nusers && ok; k++) {
        const ins *r = m->users[k];
        /* a one-operand op of standard value (not one of every stride 0,
         * as u of a one-element broadcast): u of a broadcast and u of a
         * full value are both standard, so it and everything below it
         * keep their layout either way (standard_readers only) */
        if (!apart_of && (r->op->classes & OPC_UNARY) && r->nargs == 1 && r->nmods == 0 &&
            shape_standard_p(&r->sh) && shape_elements(&r->sh) > 1)
            continue;
        /* for hoist_readers, such an op read by outputs and dots that do
         * not take a broadcast's layout (readers_take_broadcast): no
         * unary_above_*broadcast sinks m below it, so it reads m's strides
         * above b as below it (seed 1058563: the core's
         * broadcast(mul(mb(w), literal)) read by abs and returned). A dot
         * reader (round s43E; seed 1091755: relu(mb(max(mb(s), literal)))
         * read by a dot) counts since the graphs that had the op below m
         * (the core's mb(sigmoid(sub(mb(x), literal))) read by a dot, seed
         * 1023084, or a dot that took the layout and sank it) reach the
         * same graph by multibroadcast_above_unary_of_binary_of_*, which
         * takes m above the op where dots alone read m */
        if (apart_of && (r->op->classes & OPC_UNARY) && r->nargs == 1 && r->nmods == 0 &&
            shape_standard_p(&r->sh) && shape_elements(&r->sh) > 1 && every_reader(r, output_or_dot) &&
            !readers_take_broadcast(r, r, 0))
            continue;
        /* a dot reads any strides, and its value is standard either way
         * (seed 19308: the core's broadcast(sigmoid(m)), read by a dot and
         * by max(p4, .), kept its own broadcast beside broadcast(m), where
         * the noisy graph computed sigmoid on the shared broadcast) */
        if (is_op(r, "dot") && r->nmods == 0)
            continue;
        /* a reduction likewise reads any strides into a standard value
         * (round s40C: the core's mb(sub(literal, mb(x))) read by a
         * reduce_sum kept two views, the noisy graph one) */
        if ((r->op->classes & OPC_REDUCE) && r->nargs == 1 && r->nmods == 0 && shape_standard_p(&r->sh))
            continue;
        ok = (r->op->classes & OPC_BINARY) && r->nargs == 2 && r->nmods == 0 && r->args[0] != r->args[1];
        if (ok) {
            const ins *other = other_operand(r, m);
            /* A @literal of standard layout is a full value that no merge
             * takes in, unless it repeats its values along every axis m
             * stretches (literal_merges_with: a literal folded from an op
             * of a broadcast literal): the literal rules
             * (binary_above_*broadcast_literal_*) fold only a literal that
             * is constant along the axes the broadcast stretches
             * (broadcast_axes asks stride 0 or repeated values there). Other
             * constants may still fold into a broadcast literal (a pending
             * fold, a constant op of a broadcast). Seed 1023557: the core's
             * broadcast(sin(x)) read by add(., literal{2, 1}) kept its own
             * broadcast beside broadcast(x), where the noisy graph computed
             * sin on the shared broadcast. */
            ok = (shape_standard_p(&other->sh) && !broadcast_bound(other, NULL, 0) &&
                  (!view_is_constant(other) || (is_op(other, "@literal") && !literal_merges_with(other, m)))) ||
                 (apart_of && apart_broadcast(other, apart_of)) ||
                 (!apart_of && held_shared_broadcast(other, r));
        }
    }
    return ok;
}

/* o, r's other operand, is a multibroadcast of a computed value that r
 * cannot merge with m's broadcast: o has readers besides r, one of which
 * keeps it (shared_broadcast_splits fails, so no *_of_shared merge takes
 * a copy of o at r), and no reader of r reads o too (the diamond merges
 * binary_above_multibroadcasts_shared_* take c(b(o, m), o)); the plain
 * merges want o read once. So o stays a broadcast beside r whatever m is,
 * r is computed in full either way (no merge makes it a broadcast; its
 * strides are the broadcast layout beside m and standard beside the
 * hoisted twin, and no view below r depends on which), and the hoist
 * saves the twin's view (round s40B: the core's mb(sin(x)) read by mul(mb(sigmoid(p)), .) with
 * mb(sigmoid(p)) read by a second add, where the noisy graph computed
 * sin on the shared mb(x)). */
static bool held_shared_broadcast(const ins *o, const ins *r)
{
    if (!is_op(o, "multibroadcast") || o->nargs != 1 || o->nmods != 0 || o->nusers < 2 || view_is_constant(o))
        return false;
    for (int k = 0; k < r->nusers; k++)
        for (int j = 0; j < r->users[k]->nargs; j++)
            if (r->users[k]->args[j] == o)
                return false;
    return !shares_split(o, r);
}

static bool standard_readers(const ins *m)
{
    return readers_keep_standard(m, NULL);
}


/* n is a multibroadcast of a settled value (no view, shape op, constant, or
 * value that is or may become a broadcast: its lens stay what they are in
 * every order) whose lens and v's lens differ and neither broadcasts to the
 * other: no merge of a multibroadcast of v with n exists
 * (binary_above_multibroadcasts wants equal lens, its _into_ forms and the
 * shared forms want one to broadcast to the other), so a two-operand op of
 * the two reads two broadcasts for good, and its value is standard whether
 * the one of v is there or has moved above v's op (two broadcast operands
 * give the row-major layout, one standard and one broadcast the standard
 * one's). */
static bool apart_broadcast(const ins *n, const ins *v)
{
    if (!is_op(n, "multibroadcast") || n->nargs != 1 || n->nmods != 0)
        return false;
    const ins *y = n->args[0];
    if ((y->op->classes & (OPC_VIEW | OPC_SHAPE)) || is_op(y, "transpose") || view_is_constant(y) ||
        ins_is_pending(y) || broadcast_bound(y, NULL, 0) || !shape_standard_p(&y->sh))
        return false;
    if (shape_same_lens(&v->sh, &y->sh))
        return false;
    return !shape_lens_broadcast_to(v->sh.lens, v->sh.rank, y->sh.lens, y->sh.rank) &&
           !shape_lens_broadcast_to(y->sh.lens, y->sh.rank, v->sh.lens, v->sh.rank);
}

/* hoist_readers(m): see helpers_views.h. */
bool helper_hoist_readers(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *m = a[0].u.in;
    bool is_mb = is_op(m, "multibroadcast") && m->nargs == 1 && m->nmods == 0;
    bool ok = readers_keep_standard(m, is_mb ? m->args[0] : NULL);
    *out = rule_bool(ok);
    return true;
}

/* Binary op v of broadcast layout whose operands are or may become
 * broadcasts (broadcast_bound): the broadcasts below it merge into one
 * broadcast of v (binary_above_multibroadcasts and its kin), so a value
 * read through v is a broadcast whether they have merged yet or not. Only
 * a binary op: a broadcast below a unary op sinks only where the op's
 * readers take its layout (takes_broadcast_layout), which depends on the
 * cluster the op would join. */
static bool merged_strides(const ins *b, const ins *x, const ins *y, int64_t *outer);

/* One of shapes a and b broadcasts to the other: two multibroadcasts of
 * them can merge below a two-operand op that reads both. */
static bool lens_broadcast_either_way(const shape *a, const shape *b)
{
    return shape_lens_broadcast_to(a->lens, a->rank, b->lens, b->rank) || shape_lens_broadcast_to(b->lens, b->rank, a->lens, a->rank);
}

/* A multibroadcast, or a broadcast[axis] that puts its operand's axes last
 * and that aligned_broadcast_to_multibroadcast makes one in every order
 * (round s28G: seed 1007512's mul(mb(s), broadcast[axis=1](t(p))) read
 * through an unsqueeze by mul(., q) was no broadcast to the cluster of the
 * outer mul in the orders that asked before the second broadcast was
 * respelled, so binary_into_cluster_lens moved the outer mul into the
 * sink's lens there, and it read mb(mul) in the others). */
static bool multibroadcast_spelling(const ins *m)
{
    return is_op(m, "multibroadcast") || aligned_broadcast(m);
}

static bool layout_pending(const ins *v);

/* Set while merging_broadcast_operand asks a sink's question (its
 * re-entry guard); per thread, as the library runs one graph per thread. */
static _Thread_local int merging_operand_asking;

/* The operand of v's k-th operand where that is a multibroadcast spelling,
 * also behind a pending shape change that keeps the lens, which
 * binary_through_pending_* take away in every order (round s28G: seed
 * 1027361's mul(mb(t), pending(mb(reshape(s)))), left by
 * multibroadcast_of_reshape_leading_ones, was no broadcast to tanh's
 * cluster above it in the orders that asked before the pending op went,
 * so unary_into_cluster_lens moved tanh there); NULL otherwise. */
static const ins *merging_broadcast_operand(const ins *v, int k)
{
    const ins *m = v->args[k];
    if (layout_pending(m) && m->nusers == 1)
        m = m->args[0];
    /* past a broadcast to its operand's own shape, which goes
     * (same_shape_broadcast) */
    const ins *mb = same_shape_broadcast(m) && m->nusers == 1 ? m->args[0] : m;
    if (multibroadcast_spelling(mb) && mb->nargs == 1)
        return mb->args[0];
    /* or a one-operand op read by v alone (past a chain of length-1-axis
     * shape ops that composes away, identity_shape_chain_start) over a
     * multibroadcast read by it alone, whose broadcast sinks below it
     * (broadcast_sinks_below): v then reads mb(u(y)) in every order, of
     * y's lens, and the merge follows (round s80E, seed 1038576:
     * sub(mb(s), squeeze(unsqueeze(relu(mb(p))))) under abs and a reshape
     * merged in the orders where relu sank first, and abs, asked before
     * that, moved into the reshape's cluster lens in the others). Not
     * while such a question is open: the sink's own test asks v's
     * readers, which may ask this of v again. */
    const ins *u = identity_shape_chain_start(m);
    if (merging_operand_asking || !pointwise_unary(u) || u->nusers != 1 || u->nmods != 0 || !one_reader(u->args[0]))
        return NULL;
    const ins *b = u->args[0];
    if (!multibroadcast_spelling(b) || b->nargs != 1 || b->nmods != 0)
        return NULL;
    merging_operand_asking++;
    bool sinks = broadcast_sinks_below(u);
    merging_operand_asking--;
    return sinks ? b->args[0] : NULL;
}

static bool multibroadcasts_merge(const ins *v)
{
    if (v->nargs != 2 || v->nmods != 0 || v->args[0] == v->args[1])
        return false;
    const ins *x = merging_broadcast_operand(v, 0), *y = merging_broadcast_operand(v, 1);
    if (!x || !y)
        return false;
    return lens_broadcast_either_way(&x->sh, &y->sh) &&
           shape_elements(&x->sh) < shape_elements(&v->sh) && shape_elements(&y->sh) < shape_elements(&v->sh) &&
           !view_is_constant(x) && !view_is_constant(y) && !copies_at_output(v, x, y);
}

static void broadcast_strides(const shape *s, const int64_t *lens, int rank, int64_t *strides);

/* Two-operand op v reads a multibroadcast m of a computed value x (read
 * once, not itself a broadcast) and a constant of broadcast layout: a
 * literal, or a multibroadcast of a constant that constant folding makes
 * one (stride 0 where the constant's lens are 1). Where the constant has
 * stride 0 on every axis m stretches (or, a literal, repeats its values
 * along it: literal_repeats_along), binary_above_multibroadcast_literal_*
 * merge the two below v once it has folded (broadcast_axes), so v's value
 * is a broadcast in every order (round s28G: seed 1027361's
 * mul(mb(t(s)), mb(squeeze(reduce_mean(literal)))) under unsqueeze and tanh
 * was no broadcast to tanh's cluster in the orders that asked before the
 * reduction folded, and unary_into_cluster_lens moved tanh into the
 * cluster's lens there; after the fold, the merge gave tanh a broadcast
 * to sink below). */
static bool merges_with_constant_broadcast_x(const ins *v, const ins **xo)
{
    if (v->nargs != 2 || v->nmods != 0 || v->args[0] == v->args[1] || v->sh.rank > SHAPE_MAX_RANK)
        return false;
    for (int k = 0; k < 2; k++) {
        const ins *m = v->args[k], *o = v->args[1 - k];
        if (!multibroadcast_spelling(m) || m->nargs != 1 || !one_reader(m))
            continue;
        const ins *x = m->args[0];
        if (broadcast_op(x) || view_is_constant(x) || x->sh.rank > v->sh.rank ||
            shape_elements(&x->sh) >= shape_elements(&v->sh))
            continue;
        int64_t ost[SHAPE_MAX_RANK];
        if (is_op(o, "@literal") && o->data && o->sh.rank == v->sh.rank)
            memcpy(ost, o->sh.strides, sizeof(int64_t) * (size_t)v->sh.rank);
        else if (multibroadcast_spelling(o) && o->nargs == 1 && view_is_constant(o->args[0]) &&
                 o->args[0]->sh.rank <= v->sh.rank)
            broadcast_strides(&o->args[0]->sh, v->sh.lens, v->sh.rank, ost);
        else
            continue;
        bool ok = true;
        int at = v->sh.rank - x->sh.rank;
        for (int i = 0; i < v->sh.rank && ok; i++)
            if (v->sh.lens[i] > 1 && (i < at || x->sh.lens[i - at] == 1))
                ok = ost[i] == 0 || (is_op(o, "@literal") && literal_repeats_along(o, i));
        if (!ok)
            continue;
        rule_value args[2] = {rule_ins((ins *)v), rule_ins((ins *)m)}, copies;
        if (!helper_broadcast_merge_copies(NULL, args, 2, &copies) || copies.u.i)
            continue;
        if (xo)
            *xo = x;
        return true;
    }
    return false;
}

static bool merges_with_constant_broadcast(const ins *v) { return merges_with_constant_broadcast_x(v, NULL); }

/* Two-operand op v reads two multibroadcasts of computed values that
 * binary_above_multibroadcasts* merge into one below it (whatever they
 * wait for first): its value becomes a broadcast, even while its own
 * strides, of two broadcasts of different layouts, are standard. Its own
 * strides count where they widen an axis longer than 1 (shape_widens_p),
 * not for a stride 0 on a length-1 axis, which addresses no second
 * element: max(broadcast[axis=1, {1, 16, 1}](p0), reshape(p1)) of {16}
 * params has strides {0, 1, 0} until the pending rules settle them, and
 * counted as a broadcast it made mul(max, literal) a leaf of the cluster
 * reading it through squeezes, weighed in its {1, 16, 1}, in the orders
 * that labelled that cluster before broadcast_to_reshape took the other
 * broadcast (round s74B; validation seed 2034333: sub(relu(bc[{16, 1}](s
 * {1})), that chain) ran in {16, 1} or {16}). */
static bool merges_into_broadcast(const ins *v)
{
    return is_cluster_op(v) && v->nargs == 2 &&
           (shape_widens_p(&v->sh) || multibroadcasts_merge(v) || merges_with_constant_broadcast(v)) &&
           broadcast_bound(v, NULL, 0);
}

/* v's memory seen in `lens` (as a reshape of the broadcast v becomes sees
 * it) still has a stride-0 axis longer than 1. */
static bool regroups_as_broadcast(const ins *v, const int64_t *lens, int rank)
{
    int64_t strides[SHAPE_MAX_RANK];
    /* two multibroadcasts that merge below v give it their merged strides */
    shape sh = v->sh;
    const ins *cx = NULL;
    if (!shape_broadcasted_p(&sh) && multibroadcasts_merge(v)) {
        if (!merged_strides(v, merging_broadcast_operand(v, 0), merging_broadcast_operand(v, 1), sh.strides))
            return false;
    } else if (!shape_broadcasted_p(&sh) && merges_with_constant_broadcast_x(v, &cx)) {
        /* the constant is read back in x's lens (standard) */
        if (!merged_strides(v, cx, cx, sh.strides))
            return false;
    }
    if (rank > SHAPE_MAX_RANK || rank < 1 || !shape_regroup_strides(&sh, rank, lens, strides))
        return false;
    for (int k = 0; k < rank; k++)
        if (lens[k] != 1 && strides[k] == 0)
            return true;
    return false;
}

/* r is a two-operand op of m, a broadcast[axis] shared with other
 * readers, and of a broadcast[axis] of the same attributes (so the same
 * axis and out_lens) of a computed value of the lens of m's operand, read
 * by r alone: once r is m's only reader, binary_above_broadcasts merges
 * the two below r under its own guards (values no constants, the
 * broadcast not aligned, so aligned_broadcast_to_multibroadcast leaves it
 * alone, stretching, no copy at an output), and before that
 * binary_above_broadcasts_of_shared_* give r a copy of m of its own.
 * Either way r takes m away, as a two-operand op whose multibroadcasts
 * merge does in shares_split. */
static bool axis_broadcasts_merge(const ins *r, const ins *m)
{
    if (!is_op(m, "broadcast") || m->nargs != 1 || m->nmods != 0 || aligned_broadcast(m))
        return false;
    const ins *o = other_operand(r, m);
    if (!o || !same_view(o, m) || !one_reader(o))
        return false;
    const ins *x = m->args[0], *y = o->args[0];
    if (!shape_same_lens(&x->sh, &y->sh) || view_is_constant(x) || view_is_constant(y) ||
        shape_elements(&m->sh) <= shape_elements(&x->sh))
        return false;
    rule_value args[2] = {rule_ins((ins *)r), rule_ins((ins *)m)}, copies;
    return helper_broadcast_merge_copies(NULL, args, 2, &copies) && !copies.u.i;
}

/* shared_broadcast_splits(m, b): see helpers_views.h. Each other reader
 * takes m away on its own: a one-operand op whose readers take the
 * broadcast's layout sinks it (unary_above_multibroadcast, once m is read
 * by it alone), and a two-operand op whose broadcasts merge takes its own
 * copy by these rules; any other reader keeps m, and the copy b takes
 * would be one view more (seed 1000755: mb(x) read by sub(mb(x), mb(y))
 * and by max(p, mb(x))). A multibroadcast reader that stretches m
 * composes with it into a broadcast of x of its own
 * (multibroadcast_of_multibroadcast); one that stretches nothing goes
 * (multibroadcast_to_same_shape), and its reader then decides (seed
 * 1008955: mul(s, mb(mb(x))) kept m). */
bool helper_shared_broadcast_splits(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(shares_split(a[0].u.in, a[1].u.in));
    return true;
}

/* r, a two-operand op of m and a literal, is m's only reader besides the
 * one that takes a copy of m: once that copy is taken, m is read once, and
 * the literal merges (binary_above_*broadcast_literal_*, their guards: m's
 * value not constant, no copy at an output, m no broadcast that composes
 * with one below it) take m below r where the literal holds m's value's
 * broadcast (literal_merges_with). */
static bool literal_merge_once_split(const ins *r, const ins *m)
{
    if (m->nusers != 2 || m->nargs != 1 || view_is_constant(m->args[0]) || is_op(m->args[0], "multibroadcast") ||
        is_op(m->args[0], "broadcast") || !literal_merges_with(other_operand(r, m), m))
        return false;
    rule_value args[2] = {rule_ins((ins *)r), rule_ins((ins *)m)}, copies;
    return helper_broadcast_merge_copies(NULL, args, 2, &copies) && !copies.u.i;
}

/* shared_broadcast_splits(m, b), as a C test. */
static bool shares_split(const ins *m, const ins *b)
{
    bool ok = m->nusers > 1;
    for (int k = 0; k < m->nusers && ok; k++) {
        const ins *r = m->users[k];
        if (r == b)
            continue;
        unsigned c = r->op->classes;
        if ((c & OPC_UNARY) && r->nargs == 1 && r->nmods == 0)
            ok = readers_take_broadcast(r, r, 0);
        else if (is_op(r, "multibroadcast") && r->nargs == 1 && r->nmods == 0)
            ok = shape_elements(&r->sh) > shape_elements(&m->sh);
        /* a two-operand op of m and a literal that holds m's value's
         * broadcast: the literal merge takes m once b has its copy
         * (round s41B, seed 1049566: mb(mul(p1, p2)) read by
         * sub(literal, .) and by add(mb(dot), .) kept both on the large
         * values, where the core merged each and computed one broadcast) */
        else if ((c & OPC_BINARY) && r->nargs == 2 && r->nmods == 0 && r->args[0] != r->args[1] &&
                 is_op(other_operand(r, m), "@literal"))
            ok = literal_merge_once_split(r, m);
        else
            ok = (c & OPC_BINARY) && r->nargs == 2 && r->args[0] != r->args[1] &&
                 (multibroadcasts_merge(r) || axis_broadcasts_merge(r, m));
    }
    return ok;
}

/* w is a two-operand op of the value v it returns and of a multibroadcast
 * o, read once, of a computed value of x's lens that is no broadcast, to
 * w's own lens: once v is a broadcast of a value of x's lens too,
 * binary_above_multibroadcasts merges the two below w (unless w's strides
 * would change at an output), so w is then a broadcast of a small value
 * as a one-operand op above the broadcast is once it sinks. */
static const ins *merging_step(const ins *w, const ins *x)
{
    if (!((w->op->classes & OPC_BINARY) && w->nargs == 2 && w->nmods == 0 && w->args[0] != w->args[1]))
        return NULL;
    for (int k = 0; k < 2; k++) {
        const ins *o = w->args[1 - k];
        if (!is_op(o, "multibroadcast") || o->nargs != 1 || o->nmods != 0 || !one_reader(o))
            continue;
        const ins *y = o->args[0];
        if (!is_op(y, "multibroadcast") && !view_is_constant(y) && shape_same_lens(&y->sh, &x->sh) &&
            shape_same_lens(&o->sh, &w->sh) && shape_elements(&o->sh) > shape_elements(&y->sh) &&
            !copies_at_output(w, x, y))
            return w->args[k];
    }
    return NULL;
}

/* w is b, or reached from b through one-operand pointwise ops, b, w and
 * each op between them read once: once b's value is a broadcast, it sinks
 * below them (unary_above_multibroadcast) and w is a broadcast of b's small
 * value read by the diamond's reader alone, which merges it. Where w is b,
 * b too is read once (another reader keeps b's copy of the broadcast beside
 * the one the diamond merges, round s42G); the same holds of w at the end
 * of a longer chain, and an answer that asked it only of b changed as the
 * copy sank along the chain (rounds s47A and s47C, seeds 6012430, 6014335,
 * 6016275 at 24 ops: in sin(sigmoid(mb(p0))) read by mul(mb(p0), .) and by
 * a sub, with the copy of mb(p0) read by sigmoid, w = sin was read twice
 * but not asked, so twin_of saw no twin and unary_above_multibroadcast
 * sank the copy below sigmoid; below it, sin was b, twin_of saw the twin
 * and multibroadcast_above_unary_to_twin took the copy back, until the
 * rule budget ran out).
 * With each_takes_broadcast, also every op on the way, w and b included,
 * takes a broadcast's layout (readers_take_broadcast), so the copy sinks
 * along the whole chain. */
static bool reached_through_unary(const ins *w, const ins *b, bool each_takes_broadcast, const ins *x)
{
    for (int d = 0; d <= VIEW_CLUSTER_MAX; d++) {
        if (!one_reader(w))
            return false;
        if (w == b)
            return !each_takes_broadcast || readers_take_broadcast(w, w, 0);
        const ins *v = x ? merging_step(w, x) : NULL;
        if (v)
            w = v;
        else if (!(each_takes_broadcast && !readers_take_broadcast(w, w, 0)) &&
                 (w->op->classes & OPC_UNARY) && w->nargs == 1 && w->nmods == 0)
            w = w->args[0];
        else
            return false;
    }
    return false;
}

static bool cone_op(const ins *i, const ins *m);
static bool in_set(const ins *const *set, int n, const ins *i);

/* w is b, or a pointwise op of b's lens whose every operand is computed
 * from b alone the same way; each op on the way is added to set. */
static bool cone_from(const ins *w, const ins *b, const ins **set, int *n, int depth)
{
    if (w == b)
        return true;
    if (depth > VIEW_CLUSTER_MAX || !cone_op(w, b))
        return false;
    if (in_set(set, *n, w))
        return true;
    if (*n == VIEW_CLUSTER_MAX)
        return false;
    set[(*n)++] = w;
    for (int t = 0; t < w->nargs; t++)
        if (!cone_from(w->args[t], b, set, n, depth + 1))
            return false;
    return true;
}

/* w, read by r alone, is computed from b alone through pointwise ops of
 * b's lens (one- and two-operand, b(v, v) and b(v, u(v)) among them), and
 * b and every op on the way are read by those ops alone: once b is a
 * broadcast of a small value, each op of the way reads broadcasts of that
 * one value only, which the twice, _and_unary and unary rules take below
 * it, so w becomes a broadcast of a small value too, as a chain of
 * one-operand ops does (reached_through_unary). */
static bool computed_from_alone(const ins *w, const ins *b, const ins *r)
{
    const ins *set[VIEW_CLUSTER_MAX];
    int n = 0;
    if (w == b || !one_reader(w) || w->users[0] != r || !cone_from(w, b, set, &n, 0))
        return false;
    for (int j = 0; j < b->nusers; j++)
        if (!in_set(set, n, b->users[j]))
            return false;
    for (int k = 0; k < n; k++)
        for (int j = 0; j < set[k]->nusers && set[k] != w; j++)
            if (!in_set(set, n, set[k]->users[j]))
                return false;
    return true;
}

/* shared_broadcast_rejoins(m, b): see helpers_views.h. m has readers
 * besides b (and a one-operand op of m that b alone reads), and each of
 * them is a two-operand op that reads m beside b's value, directly,
 * through one-operand ops read once, or through pointwise ops that read
 * b's value alone (computed_from_alone): a diamond over m that closes
 * below b.
 * Once b takes a copy of m below it, that copy sinks to the other reader,
 * which then reads two broadcasts of values of x's lens and merges them
 * (binary_above_multibroadcasts, m read by it alone by then): no view is
 * left between m's readers and x. */
bool helper_shared_broadcast_rejoins(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *m = a[0].u.in, *b = a[1].u.in;
    bool ok = is_op(m, "multibroadcast") && m->nargs == 1 && m->nmods == 0, other = false;
    for (int k = 0; k < m->nusers && ok; k++) {
        const ins *r = m->users[k];
        if (r == b)
            continue;
        if ((r->op->classes & OPC_UNARY) && r->nargs == 1 && r->nmods == 0 && one_reader(r) && r->users[0] == b)
            continue;
        other = true;
        ok = (r->op->classes & OPC_BINARY) && r->nargs == 2 && r->nmods == 0 && r->args[0] != r->args[1] &&
             shape_same_lens(&r->sh, &m->sh);
        if (ok) {
            const ins *w = other_operand(r, m);
            ok = (reached_through_unary(w, b, false, NULL) || computed_from_alone(w, b, r)) &&
                 !copies_at_output(r, m->args[0], m->args[0]);
        }
    }
    *out = rule_bool(ok && other);
    return true;
}

/* unary_chain_rejoins(m, u): see helpers_views.h. m is read by u and by
 * one two-operand op r, whose other operand is reached from u through
 * one-operand ops read once (at least one besides u: b(m, u(m)) is
 * binary_above_multibroadcast_and_unary's), each of which takes a
 * broadcast's layout (so unary_above_multibroadcast sinks the copy along
 * the whole chain), and r merges the two broadcasts it then reads. */
bool helper_unary_chain_rejoins(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *m = a[0].u.in, *u = a[1].u.in, *r = NULL;
    bool ok = is_op(m, "multibroadcast") && m->nargs == 1 && m->nmods == 0 && m->nusers == 2 && u->nargs == 1 &&
              u->args[0] == m && (u->op->classes & OPC_UNARY) && u->nmods == 0 && one_reader(u);
    if (ok)
        r = m->users[0] == u ? m->users[1] : m->users[0];
    ok = ok && r != u && (r->op->classes & OPC_BINARY) && r->nargs == 2 && r->nmods == 0 && r->args[0] != r->args[1] &&
         shape_same_lens(&r->sh, &m->sh) && !copies_at_output(r, m->args[0], m->args[0]) && readers_take_broadcast(r, r, 0);
    if (ok) {
        const ins *w = other_operand(r, m);
        ok = w != u && reached_through_unary(w, u, true, m->args[0]);
    }
    *out = rule_bool(ok);
    return true;
}

/* i is a one- or two-operand pointwise op of m's lens. */
static bool cone_op(const ins *i, const ins *m)
{
    unsigned c = i->op->classes;
    return i->nmods == 0 && shape_same_lens(&i->sh, &m->sh) &&
           (((c & OPC_UNARY) && i->nargs == 1) || ((c & OPC_BINARY) && i->nargs == 2));
}

static bool in_set(const ins *const *set, int n, const ins *i)
{
    for (int k = 0; k < n; k++)
        if (set[k] == i)
            return true;
    return false;
}

/* broadcast_cone_closes(m): see helpers_views.h. The cone is grown from
 * m's readers: a pointwise op of m's lens joins once each operand is m or
 * in the cone; every reader of m must join, each a one-operand op (a
 * two-operand reader of m is the diamond shared_broadcast_rejoins and
 * unary_chain_rejoins take), and one member alone, the exit, may be read
 * outside it. Each member's readers take a broadcast's
 * layout (readers_take_broadcast), so the copies sink along the whole cone
 * and the exit's readers see the layout they see now. */
bool helper_broadcast_cone_closes(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *m = a[0].u.in, *cone[VIEW_CLUSTER_MAX];
    int nc = 0;
    bool ok = is_op(m, "multibroadcast") && m->nargs == 1 && m->nmods == 0 && m->nusers > 1 && !one_reader(m);
    for (bool grew = ok; grew;) {
        grew = false;
        for (int k = -1; k < nc && ok; k++) {
            const ins *from = k < 0 ? m : cone[k];
            for (int j = 0; j < from->nusers && ok; j++) {
                const ins *r = from->users[j];
                if (in_set(cone, nc, r) || !cone_op(r, m))
                    continue;
                bool joins = true;
                for (int t = 0; t < r->nargs && joins; t++)
                    joins = r->args[t] == m || in_set(cone, nc, r->args[t]);
                if (!joins)
                    continue;
                if (nc == VIEW_CLUSTER_MAX)
                    ok = false;
                else
                    cone[nc++] = r, grew = true;
            }
        }
        grew = ok && grew;
    }
    for (int j = 0; j < m->nusers && ok; j++)
        ok = in_set(cone, nc, m->users[j]) && m->users[j]->nargs == 1;
    int exits = 0;
    for (int k = 0; k < nc && ok; k++) {
        ok = readers_take_broadcast(cone[k], cone[k], 0);
        bool out_read = cone[k]->nusers == 0;
        for (int j = 0; j < cone[k]->nusers && !out_read; j++)
            out_read = !in_set(cone, nc, cone[k]->users[j]);
        exits += out_read;
    }
    *out = rule_bool(ok && exits == 1);
    return true;
}

/* composes_into_reshape(r): see helpers_views.h. The squeeze or unsqueeze
 * may stand below a pending op without a permutation, which
 * reshape_of_pending takes from under r in every order (r then reads the
 * squeeze or unsqueeze itself): until then an op moved above r meets the
 * pending op, whose reader unary_through_pending makes read the squeeze or
 * unsqueeze, and no rule moves it above that (seed 10014722 at --ops 24:
 * tanh(reshape(pending(unsqueeze(mb(p5))))) of a {1} p5, left by
 * reshape_to_same_lens, kept tanh above the unsqueeze in the orders that
 * moved tanh first, and became mb(reshape(tanh(p5))) in the others). */
static bool pending_taken_by_reshape(const ins *r, const ins *p)
{
    if (!ins_is_pending(p) || p->nargs != 1 || !is_op(r, "reshape"))
        return false;
    const attr_value *perm = ins_attr(p, "permutation"), *dims = ins_attr(r, "dims");
    /* reshape_of_pending's guard: an empty permutation, !has_zero(d). */
    return !(perm && perm->kind == ATTR_INTS && perm->n > 0) && dims && dims->kind == ATTR_INTS &&
           !ints_have_zero(dims->u.ints, dims->n);
}

static bool squeeze_composes_into_reshape(const ins *r)
{
    const ins *x = r->nargs == 1 ? r->args[0] : NULL;
    if (x && pending_taken_by_reshape(r, x))
        x = x->args[0];
    return is_op(r, "reshape") && x && (is_op(x, "squeeze") || is_op(x, "unsqueeze")) && x->nargs == 1 &&
           shape_broadcasted_p(&x->args[0]->sh) && shape_elements(&r->sh) > 0;
}

/* r is a reshape, to y's own lens, of a reshape q of y read by r alone
 * (or of a squeeze or unsqueeze of a standard y, which becomes one,
 * becomes_reshape): reshape_of_reshape composes the two with no guard
 * (r's dims hold no 0) and reshape_to_same_shape removes the result, in
 * every order, so r's readers read y. A one-operand op u moved above r
 * first meets q instead, a view the composed graph does not have (round
 * s80C, seed 1038576: u(r(q(y))) of y = relu(mb(p)), whose broadcast
 * sinks once the chain composes (broadcast_sinks_below asks the chain's
 * readers), made u a leaf on r and a cluster op on q, and
 * unary_into_cluster_lens and unary_above_reshape moved u back and forth
 * until the rule budget). Only of a standard y: u on a shape op of a
 * broadcast (seed 1062187: tanh(reshape(reshape(unsqueeze(mb))))) meets
 * a squeeze or unsqueeze no rule moves it above, where moved first it
 * meets the broadcast through composes_into_reshape's own wait. */
static bool reshape_composes_below(const ins *r)
{
    const ins *x = r->nargs == 1 ? r->args[0] : NULL;
    const attr_value *dims = ins_attr(r, "dims");
    return is_op(r, "reshape") && x && becomes_reshape(x) && x->nmods == 0 && one_reader(x) &&
           shape_standard_p(&x->args[0]->sh) &&
           lens_equal(r->sh.lens, r->sh.rank, x->args[0]->sh.lens, x->args[0]->sh.rank) && dims &&
           dims->kind == ATTR_INTS && !ints_have_zero(dims->u.ints, dims->n);
}

bool helper_composes_into_reshape(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *r = a[0].u.in;
    *out = rule_bool(squeeze_composes_into_reshape(r) || reshape_composes_below(r));
    return true;
}

/* x, through views to their operand's own shape, which the fold rules
 * drop in every order (see drops_to_shape). */
static const ins *past_same_shape_views(const ins *x)
{
    for (int depth = 0; depth < VIEW_CLUSTER_MAX && x->nargs == 1 &&
                        (broadcast_op(x) || is_op(x, "transpose")) &&
                        shape_equal(&x->sh, &x->args[0]->sh);
         depth++)
        x = x->args[0];
    return x;
}

/* drops_to_shape(x): see helpers_views.h. Seed 1011305: sub(reshape[{12}](
 * mb[{3, 4}](reshape[{3, 4}](mb[{12}](k)))), reshape[{12}](s)) of a {1} k,
 * where the multibroadcast only restates its operand's shape, ran in
 * {3, 4} (binary_above_reshapes took the identity broadcast for a value)
 * in the orders that met sub first, and in {12} where the fold had dropped
 * it and the reshapes had composed into mb[{12}](k). */
static bool drops_to_shape(const ins *x)
{
    const ins *y = past_same_shape_views(x);
    return y != x && (y->op->classes & OPC_SHAPE);
}

bool helper_drops_to_shape(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(drops_to_shape(a[0].u.in));
    return true;
}

/* m is a broadcast op of one operand whose layout stretches (a stride-0
 * axis longer than 1) a computed value, no constant. */
static bool broadcast_of_computed(const ins *m)
{
    return broadcast_op(m) && m->nargs == 1 && shape_broadcasted_p(&m->sh) && !view_is_constant(m->args[0]);
}

/* Two-operand op v (merges_into_broadcast) becomes a broadcast of an op on
 * the small values in every order, not only a value of broadcast layout
 * that stays computed in full. It does not where an operand is a
 * multibroadcast held by a reader that keeps it (held_shared_broadcast: no
 * merge takes a copy of it at v), nor where both operands are stretching
 * broadcasts of computed values that no merge takes together: not two
 * multibroadcast spellings (binary_above_multibroadcasts*) and not two
 * broadcast[axis] of one axis and one operand lens
 * (binary_above_broadcasts), such as a multibroadcast beside a
 * broadcast[axis] that puts its axes first. There v's broadcast layout
 * comes from its operands' strides (binary_through_pending_*) and no rule
 * makes v a broadcast op, so a reshape of v stays a reshape (seed 1078021:
 * relu(reshape(add(mb(p0), mb(abs(s))))) of an mb(p0) also read by a
 * dot, reshaped back, kept both reshapes in the orders that asked after
 * the pending op had gone; 1027977: sigmoid(reshape(sub(mb(k),
 * broadcast[axis=0](abs(p1))))). Operands that are still one-operand ops
 * over their broadcasts, or pending ops, are judged as
 * merges_into_broadcast judges them. */
static bool broadcasts_merge_below(const ins *v)
{
    if (!merges_into_broadcast(v) || held_shared_broadcast(v->args[0], v) || held_shared_broadcast(v->args[1], v))
        return false;
    const ins *m = v->args[0], *n = v->args[1];
    if (layout_pending(m) && m->nusers == 1)
        m = m->args[0];
    if (layout_pending(n) && n->nusers == 1)
        n = n->args[0];
    if (!broadcast_of_computed(m) || !broadcast_of_computed(n) || (multibroadcast_spelling(m) && multibroadcast_spelling(n)))
        return true;
    const attr_value *a = ins_attr(m, "axis"), *b = ins_attr(n, "axis");
    return is_op(m, "broadcast") && is_op(n, "broadcast") && a && b && a->u.i == b->u.i &&
           lens_equal(m->args[0]->sh.lens, m->args[0]->sh.rank, n->args[0]->sh.lens, n->args[0]->sh.rank);
}

/* m is a pending shape change of no permutation: a reshape reads its
 * operand in row-major order whatever its layout, and reshape_of_pending
 * takes such an op from under a reshape with no guard, so the walk of
 * becomes_broadcast passes it as it passes reshapes (round s63B, --ops 24
 * seed 11016188: sin(reshape(pending(mb(neg(p7))))) rose above the
 * reshape in the orders that met sin before the pending op went). */
static bool reshape_reads_past_pending(const ins *m)
{
    if (!is_op(m, "pending_shape_change") || m->nargs != 1 || m->nmods != 0)
        return false;
    const attr_value *p = ins_attr(m, "permutation");
    return !p || (p->kind == ATTR_INTS && p->n == 0);
}

/* becomes_broadcast(r): see helpers_views.h. The same test as the guards
 * of reshape_of_multibroadcast and reshape_of_broadcast. */
bool helper_becomes_broadcast(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *r = a[0].u.in;
    bool yes = false;
    if (is_op(r, "reshape") && r->nargs == 1) {
        /* through reshapes, and squeezes and unsqueezes of broadcasts,
         * which compose with r first in some orders (reshape_of_reshape,
         * reshape_of_squeeze, reshape_of_unsqueeze; seed 5966) */
        const ins *m = r->args[0];
        for (int depth = 0; depth < VIEW_CLUSTER_MAX && m->nargs == 1 &&
                            (is_op(m, "reshape") || reshape_reads_past_pending(m) ||
                             ((is_op(m, "squeeze") || is_op(m, "unsqueeze")) &&
                              shape_broadcasted_p(&m->args[0]->sh)));
             depth++)
            m = m->args[0];
        int64_t kc[SHAPE_MAX_RANK];
        /* not a reshape that waits for its read back (the guards of
         * reshape_of_broadcast and reshape_of_multibroadcast) */
        yes = broadcast_op(m) && m->nargs == 1 &&
              broadcast_view(m, r->sh.lens, r->sh.rank, kc) && !view_is_constant(m->args[0]) &&
              !read_back_waits(r, m) && readers_take_broadcast(r, r, 0);
        if (!yes)
            yes = broadcasts_merge_below(m) && regroups_as_broadcast(m, r->sh.lens, r->sh.rank) &&
                  readers_take_broadcast(r, r, 0);
    }
    *out = rule_bool(yes);
    return true;
}

/* The lens v runs in once the rules settle: its cluster's for a pointwise
 * op in a cluster with lens, else its own; *pending when its cluster is
 * not known yet. */
static void settled_lens(const ins *v, int64_t *lens, int *n, bool *pending)
{
    cluster c;
    bool known = is_cluster_op(v) && cluster_of(v, &c);
    /* v's cluster is not known yet (a pending op, or a reduction leaf that
     * loses its unit axes first, stands inside it): the lens it settles in
     * are not known either */
    *pending = is_cluster_op(v) && !known && c.pending;
    if (!(known && labelled_lens(&c, v, true, lens, n))) {
        *n = v->sh.rank;
        memcpy(lens, v->sh.lens, sizeof(int64_t) * (size_t)v->sh.rank);
    }
}

/* q's one reader when it is a one-operand pointwise op or a two-operand
 * one reading q twice (sub(q, q)): an op that maps q's elements one to one
 * and so runs in any lens q is reshaped to; NULL otherwise. */
static const ins *pointwise_sole_reader(const ins *q)
{
    const ins *v = one_reader(q) ? q->users[0] : NULL;
    bool pointwise = v && v->nmods == 0 &&
                     (((v->op->classes & OPC_UNARY) && v->nargs == 1) ||
                      ((v->op->classes & OPC_BINARY) && v->nargs == 2 && v->args[0] == q && v->args[1] == q));
    return pointwise ? v : NULL;
}

/* pointwise_read_past(q): see helpers_views.h. */
bool helper_pointwise_read_past(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *v = pointwise_sole_reader(a[0].u.in);
    *out = rule_bool(v && one_reader(v) && !is_shape_view(v->users[0]));
    return true;
}

/* pointwise_reshape_taken(d): see helpers_views.h. */
bool helper_pointwise_reshape_taken(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *d = a[0].u.in;
    bool yes = false;
    if (pointwise_sole_reader(d)) {
        const ins *u = d->users[0];
        const ins *e = u;
        for (int k = 0; k < VIEW_CLUSTER_MAX && one_reader(e) && is_shape_view(e->users[0]) && e->users[0]->nargs == 1;
             k++)
            e = e->users[0];
        if (e != u)
            yes = reduction_takes_chain(d, e->sh.lens, e->sh.rank);
    }
    *out = rule_bool(yes);
    return true;
}

/* c refines lens, length-1 axes aside. */
static bool refines_but_units(const int64_t *c, int nc, const int64_t *lens, int nlens)
{
    int64_t a[SHAPE_MAX_RANK], b[SHAPE_MAX_RANK];
    int na = lens_without_ones(c, nc, a), nb = lens_without_ones(lens, nlens, b);
    if (!na || !nb)
        return na == nb;
    return refines(a, na, b, nb);
}

/* Some reader of v, through views, is no output (the @return, an opaque
 * op or a region). */
static bool read_beyond_outputs(const ins *v, int depth)
{
    if (depth > VIEW_CLUSTER_MAX)
        return true;
    for (int k = 0; k < v->nusers; k++) {
        const ins *r = v->users[k];
        if (is_output_reader(r))
            continue;
        if (!((r->op->classes & OPC_VIEW) && r->nargs == 1) || read_beyond_outputs(r, depth + 1))
            return true;
    }
    return false;
}

/* x's value flows, through pointwise ops of one reader, into a shape op
 * or a reduction, or also (broadcasts) a broadcast. Lens are compared as
 * the clusters below will have them (settled_lens): a chain of shape ops
 * into a cluster that runs in x's lens composes away, and one into a
 * cluster in other lens stays, whichever the rules have moved first.
 * cd (when given): the common dims x would run in; a reshape below (or an
 * op that runs in other lens) then counts only where cd refines its lens;
 * cc (when given): those common dims before the reduction, which must
 * refine a broadcast's lens. */
static bool flows_into_view_w(const ins *x, bool broadcasts, bool units, bool pinned, bool waits, const int64_t *cd,
                              int ncd, const int64_t *cc, int ncc);

static bool flows_into_view_at(const ins *x, bool broadcasts, bool units, bool pinned, const int64_t *cd, int ncd,
                               const int64_t *cc, int ncc)
{
    return flows_into_view_w(x, broadcasts, units, pinned, false, cd, ncd, cc, ncc);
}

static bool flows_into_view(const ins *x, bool broadcasts, bool units, const int64_t *cd, int ncd, const int64_t *cc,
                            int ncc)
{
    return flows_into_view_at(x, broadcasts, units, false, cd, ncd, cc, ncc);
}

/* pinned: a two-operand op whose other operand is a computed value (no
 * constant, no broadcast) in the lens the walk is in ends the walk with
 * false: that operand holds the op in those lens (see reshaped_below_free).
 * waits: say no where the walk meets a cluster op whose lens are not known
 * yet (cluster_pending), as the walks given common dims cd do. The walk
 * past a reduction goes on without cd (any shape op there counts), but it
 * keeps waiting where the caller waits: otherwise a pointwise op below the
 * reduction still in the lens of a reshape that its cluster is about to
 * take in (relu of {8, 2} settling in the reduction's {2, 1, 4, 2})
 * counted as a reshape below in the orders that reached the common-dims
 * rule first, and binary_above_reshape_first moved sub into
 * {2, 3, 2, 2, 2} above the reduction in those orders only (seed 1048032:
 * one view more than the others' {2, 3, 4, 2}). */
static bool flows_into_view_w(const ins *x, bool broadcasts, bool units, bool pinned, bool waits, const int64_t *cd,
                              int ncd, const int64_t *cc, int ncc)
{
    int64_t cur[SHAPE_MAX_RANK];
    int ncur = x->sh.rank;
    memcpy(cur, x->sh.lens, sizeof(int64_t) * (size_t)ncur);
    for (int depth = 0; depth <= VIEW_CLUSTER_MAX && one_reader(x); depth++) {
        const ins *u = x->users[0];
        unsigned c = u->op->classes;
        if (u->nmods > 0)
            return false;
        if ((c & OPC_SHAPE) && u->nargs == 1) {
            const ins *e = u;
            for (int k = 0; k < VIEW_CLUSTER_MAX && one_reader(e) && (e->users[0]->op->classes & OPC_SHAPE) &&
                            e->users[0]->nargs == 1;
                 k++)
                e = e->users[0];
            int64_t to[SHAPE_MAX_RANK];
            int nto = e->sh.rank;
            memcpy(to, e->sh.lens, sizeof(int64_t) * (size_t)nto);
            bool pending = false;
            if (one_reader(e) && is_cluster_op(e->users[0]))
                settled_lens(e->users[0], to, &nto, &pending);
            if ((cd || waits) && pending)
                return false;
            if (!lens_equal(to, nto, cur, ncur) && (units || !unit_lens_only(to, nto, cur, ncur)) &&
                !reduction_takes_chain(x, to, nto))
                return !cd || refines_but_units(cd, ncd, to, nto);
            memcpy(cur, to, sizeof(int64_t) * (size_t)nto);
            ncur = nto;
            x = e;
            continue;
        }
        /* a reduction counts where its own value flows on into a shape op, a
         * reduction or a broadcast (GroupNorm's statistics): one whose value
         * is returned needs the reshape back to the old lens */
        if ((c & OPC_REDUCE) && u->nargs == 1)
            return flows_into_view_w(u, true, units, pinned, waits || cd, NULL, 0, NULL, 0);
        /* a broadcast that stretches nothing is a reshape (fold.rules turns
         * it into one, or drops it), no broadcast (seed 5637: an identity
         * multibroadcast of a reduction read by a max), and is weighed as
         * the shape ops above are: one that only adds or drops 1s is walked
         * past unless units says otherwise, and given cd it counts only to
         * lens cd refine (seed 1021148: mb[{1, 1, 4, 1}] of a reduction's
         * {4, 1} counted as a reshape to other lens while it was a
         * broadcast, and the reduction went into the common dims
         * {2, 2, 3} in the orders that met it before multibroadcast_to_reshape
         * fired, one view more than the others) */
        if (broadcast_op(u) && u->nargs == 1 &&
            shape_elements(&u->sh) == shape_elements(&x->sh)) {
            if (!lens_equal(u->sh.lens, u->sh.rank, cur, ncur) &&
                (units || !unit_lens_only(u->sh.lens, u->sh.rank, cur, ncur)))
                return !cd || refines_but_units(cd, ncd, u->sh.lens, u->sh.rank);
            memcpy(cur, u->sh.lens, sizeof(int64_t) * (size_t)u->sh.rank);
            ncur = u->sh.rank;
            x = u;
            continue;
        }
        /* (not a broadcast only outputs read: nothing meets it in the
         * common dims, and the reshape back stays above it, seed 12319;
         * given the common dims cc the reduction runs in, not one to lens cc
         * does not refine, where nothing it meets can run in c either,
         * seed 6847: mb[{3, 3, 2}] of a mean over {2, 2, 2}) */
        if (broadcasts && broadcast_op(u) && u->nargs == 1)
            return read_beyond_outputs(u, 0) && (!cc || refines_but_units(cc, ncc, u->sh.lens, u->sh.rank));
        if (!(((c & OPC_UNARY) && u->nargs == 1) || ((c & OPC_BINARY) && u->nargs == 2)))
            return false;
        int64_t l[SHAPE_MAX_RANK];
        int nl;
        bool pending;
        settled_lens(u, l, &nl, &pending);
        /* the other operand as the op reads it once its cluster has moved it
         * into the lens it settles in: where those are the walk's lens, the
         * reshape the move puts on that operand composes with the reshapes
         * below it (reshape_of_reshape) and goes where their operand is in
         * those lens (reshape_to_same_shape). Asked of the operand as it
         * stands, the guard said yes in the orders that moved a one-operand
         * op of the cluster before the two-operand one and no in the others
         * (seed 1012900: neg of a reduction moved into {1, 4, 1, 2}, where
         * add's other operand is a reshape of a {1, 4, 1, 2} s, and
         * reduce_without_unit_axes_below_unary took it back while add still
         * read s reshaped to {1, 1, 8}, forever) */
        bool moves_here = lens_equal(l, nl, cur, ncur);
        if (pinned && u->nargs == 2 && !reads_broadcast(u))
            for (int k = 0; k < 2; k++) {
                const ins *o = u->args[k];
                if (o == x)
                    continue;
                const ins *b = o;
                for (int i = 0; i < VIEW_CLUSTER_MAX && b->nargs == 1 &&
                                (is_op(b, "reshape") || is_op(b, "squeeze") || is_op(b, "unsqueeze"));
                     i++)
                    b = b->args[0];
                if (!view_is_constant(o) && lens_equal(o->sh.lens, o->sh.rank, cur, ncur))
                    return false;
                if (moves_here && b != o && !view_is_constant(b) && !shape_broadcasted_p(&b->sh) &&
                    lens_equal(b->sh.lens, b->sh.rank, cur, ncur))
                    return false;
            }
        if ((cd || waits) && pending)
            return false;
        /* as for a chain of shape ops: an op its cluster moves into lens
         * that differ from these only by 1s stands for the unit chain it
         * leaves once moved (seed 1028819: tanh of a reduction, still in
         * the reduction's {4, 1, 1} and settling in {1, 4}, counted as a
         * reshape below where the squeeze it becomes once moved did not) */
        if (!lens_equal(l, nl, cur, ncur) && (units || !unit_lens_only(l, nl, cur, ncur)))
            return !cd || refines_but_units(cd, ncd, l, nl);
        memcpy(cur, l, sizeof(int64_t) * (size_t)nl);
        ncur = nl;
        x = u;
    }
    return false;
}

/* reshaped_below(b): see helpers_views.h. */
bool helper_reshaped_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(flows_into_view(a[0].u.in, false, true, NULL, 0, NULL, 0));
    return true;
}

/* reshaped_below_free(b): see helpers_views.h. */
bool helper_reshaped_below_free(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(flows_into_view_at(a[0].u.in, false, true, true, NULL, 0, NULL, 0));
    return true;
}

/* regrouped_below(b): see helpers_views.h. */
bool helper_regrouped_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(flows_into_view(a[0].u.in, false, false, a[1].u.ints, a[1].n, NULL, 0));
    return true;
}

/* reshaped_or_broadcast_below(d): see helpers_views.h. */
bool helper_reshaped_or_broadcast_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(flows_into_view(a[0].u.in, true, false, a[1].u.ints, a[1].n, a[2].u.ints, a[2].n));
    return true;
}

/* Every reader of top is a two-operand op whose other operand is standard
 * (its result is standard whatever layout top has: ops_binary_layout) or
 * a dot (which reads any strides): top's layout reaches nothing. A
 * pending_shape_change reader counts as its own readers: a move that
 * changes the strides of top's length-1 axes (u(t(x)) is standard where
 * t(u(x)) was not) puts one between the new top and the old readers, and
 * the pending rules carry it down into them. Seen through, the answer is
 * the same before such a move and after it (seed 1033596: tanh(t(x)) read
 * by a dot through a pending_shape_change sank t, whose t(tanh(x)), read
 * by the dot itself, rose again, forever). */
static bool layout_settles_below_at(const ins *top, int depth)
{
    if (top->nusers < 1 || depth > ABSORBS_TRANSPOSE_MAX_DEPTH)
        return false;
    for (int k = 0; k < top->nusers; k++) {
        const ins *u = top->users[k];
        if (is_op(u, "dot"))
            continue;
        if (is_op(u, "pending_shape_change") && u->nargs == 1 && u->nmods == 0) {
            if (!layout_settles_below_at(u, depth + 1))
                return false;
            continue;
        }
        if (!(u->op->classes & OPC_BINARY) || u->nargs != 2 || u->nmods > 0 || u->args[0] == u->args[1])
            return false;
        const ins *o = other_operand(u, top);
        if (!shape_standard_p(&o->sh) || shape_broadcasted_p(&o->sh) || o->sh.rank != top->sh.rank)
            return false;
    }
    return true;
}

static bool layout_settles_below(const ins *top) { return layout_settles_below_at(top, 0); }

/* layout_settles(top): see helpers_views.h. */
bool helper_layout_settles(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(layout_settles_below(a[0].u.in));
    return true;
}

/* moves_beside(b, p), moves_beside_below(top, b, p): see helpers_views.h. */
static bool moves_beside_at(const ins *top, const ins *b, const int64_t *p, int np, int depth, bool beside);

/* x as the broadcast tests of moves_beside_at see it: past layout-only
 * pending ops read once, which view_through_pending takes away in every
 * order, so the answer is the same before they go and after (round s52C:
 * the test asked of the pending op alone passed where the one asked of the
 * broadcast below failed). */
static const ins *seen_as_broadcast(const ins *x)
{
    for (int d = 0; d < ABSORBS_TRANSPOSE_MAX_DEPTH && pending_is_transparent(x) && x->nargs == 1 && one_reader(x); d++)
        x = x->args[0];
    return x;
}

/* The transpose top is itself the inverse that a transpose above it moves
 * beside: top's one reader c is a two-operand op read once by a transpose
 * that moves beside it (moves_beside_at asked of that transpose and c). */
static bool taken_beside_above(const ins *top, int depth, bool beside)
{
    if (depth >= ABSORBS_TRANSPOSE_MAX_DEPTH || !one_reader(top))
        return false;
    const ins *c = top->users[0];
    if (!((c->op->classes & OPC_BINARY) && c->nargs == 2 && one_reader(c)))
        return false;
    const ins *t2 = c->users[0];
    const attr_value *q = ins_attr(t2, "permutation");
    return is_op(t2, "transpose") && t2->nargs == 1 && q && moves_beside_at(t2, c, q->u.ints, q->n, depth + 1, beside);
}

/* The transpose top is read once by a transpose, directly or through
 * one-operand ops and layout-only pending ops each read once, which that
 * transpose rises through to top (transpose_above_unary, the walk
 * moves_beside_at takes from a transpose down to b; the pending rules take
 * the pending ops away in every order): transpose_of_transpose then
 * composes the two. A broadcast to its operand's shape is passed too: the
 * fold rules take it away in every order (round s54A, seed 1018836:
 * t(add(t'(s), neg(p))) under mb(.) of its own shape, sigmoid and a
 * transpose moved beside in the orders that met it before the fold, and
 * waited for the transpose above in the others). */
static bool reader_transpose_past(const ins *v, bool through_unary);

static bool composes_with_reader(const ins *top) { return reader_transpose_past(top, true); }

/* The walk composes_with_reader and composes_at_reader share: v is read
 * once, directly or through ops each read once that go in every order
 * (layout-only pending ops, broadcasts to their operand's shape) and, with
 * through_unary, one-operand ops a transpose rises through, by a
 * transpose. */
static bool reader_transpose_past(const ins *v, bool through_unary)
{
    for (int d = 0; d <= ABSORBS_TRANSPOSE_MAX_DEPTH && one_reader(v); d++) {
        const ins *u = v->users[0];
        if (is_op(u, "transpose") && u->nargs == 1)
            return true;
        bool goes = (pending_is_transparent(u) && u->nargs == 1) || broadcast_to_same_shape(u);
        bool rises = through_unary && (u->op->classes & OPC_UNARY) && u->nargs == 1 && u->nmods == 0 &&
                     !view_is_constant(u);
        if (!goes && !rises)
            return false;
        v = u;
    }
    return false;
}

static bool moves_beside_at(const ins *top, const ins *b, const int64_t *p, int np, int depth, bool beside)
{
    bool yes = false;
    /* through single-reader one-operand ops, which the transpose rises
     * through to b (transpose_above_unary) */
    for (int d = 0; d < ABSORBS_TRANSPOSE_MAX_DEPTH && (b->op->classes & OPC_UNARY) && b->nargs == 1 &&
                    one_reader(b) && b->nmods == 0 && !view_is_constant(b);
         d++)
        b = b->args[0];
    bool binary = (b->op->classes & OPC_BINARY) && b->nargs == 2 && b->args[0] != b->args[1] && one_reader(b) &&
                  b->nmods == 0 && np == b->sh.rank && np <= SHAPE_MAX_RANK;
    bool unit = binary && moves_unit_axes_only(p, np, b->sh.lens);
    /* operands of one packed layout: b's value has it, and b(t(x), y) has
     * it permuted by p, the layout t(b(x, t'(y))) has, so no reader and no
     * output sees the move (seeds 1050668, 1036441: the orders that raised
     * t through b while x was still a transpose that cancelled it ended
     * with b(t(x), y), the others kept t above b and t' under it) */
    bool alike = binary && shape_packed_p(&b->args[0]->sh) && !shape_broadcasted_p(&b->args[0]->sh) &&
                 shape_same_layout(&b->args[0]->sh, &b->args[1]->sh);
    if (binary && (unit || alike || (top && layout_settles_below(top)))) {
        int64_t tl[SHAPE_MAX_RANK];
        for (int i = 0; i < np; i++)
            tl[i] = b->sh.lens[p[i]];
        for (int k = 0; k < 2 && !yes; k++) {
            const ins *s = b->args[k], *x = b->args[1 - k];
            if (!is_op(s, "transpose") || s->nargs != 1 || !one_reader(s))
                continue;
            const attr_value *q = ins_attr(s, "permutation");
            const ins *y = s->args[0];
            if (!q || q->n != np || y->sh.rank != np)
                continue;
            bool inverse = true;
            for (int i = 0; i < np && inverse; i++)
                inverse = p[i] >= 0 && p[i] < np && q->u.ints[p[i]] == i;
            if (unit ? !moves_unit_axes_only(q->u.ints, np, y->sh.lens) : !inverse)
                continue;
            if (memcmp(y->sh.lens, tl, (size_t)np * sizeof tl[0]) != 0)
                continue;
            /* A broadcast x takes a transpose that moves only length-1 axes
             * as a reshape of its strides: t(x) is a broadcast again and
             * copies nothing (round s52C). The test was a broadcast
             * stride of x alone before, which a layout-only pending op
             * between b and the broadcast hid, so the move happened only in
             * the orders that met the pending op (seed 1029136:
             * t(add(mb(sin(p2)), t'(sin(p1)))) kept the pair in program
             * order, the others ended with add(t(mb(sin(p2))), sin(p1)), one
             * view less); it is asked past such pending ops now
             * (seen_as_broadcast). A transpose that moves longer axes stays
             * off a broadcast, as before (golden
             * transpose_above_unary_shared.loop_sibling_settles). Two waits,
             * so that the move reaches the same graph in every order: while
             * x is a one-operand op whose broadcast sinks below it
             * (broadcast_sinks_below), since t on x would end the sink and
             * keep the broadcast above x where the other orders take t onto
             * the sunk broadcast (1029136 in order 7919: t(sin(mb(p2))));
             * and while t is itself the inverse that a transpose above it
             * moves beside (taken_beside_above), since that move takes t and
             * the transpose above away together, two views for none, where
             * t moving onto the broadcast first leaves the transpose above
             * standing (seed 2006920: t(mul(p1, t'(max(t(p1), mb(k)))))
             * read by a dot ended as mul(t(p1), max(t(p1), mb(k))), 3 views,
             * or with t on mb(k) and t above mul, 4). */
            yes = !view_absorbs_transpose(x, p, np) && !view_absorbs_transpose(y, q->u.ints, np) &&
                  !view_is_constant(x) && !view_is_constant(y) && !broadcast_sinks_below(x) &&
                  (!shape_broadcasted_p(&seen_as_broadcast(x)->sh) || (unit && !(top && taken_beside_above(top, depth, beside))));
            /* Asked for the beside rules themselves (beside), the move of
             * a transpose of only length-1 axes waits the same way for any
             * x, and also while top's one reader is a transpose, directly
             * or through one-operand and layout-only pending ops read once
             * (composes_with_reader): the move above takes top as its
             * inverse whatever x is, and the reader composes with top in
             * every order, where top moved first left the transpose above,
             * or the reader, standing on its own (round s53F, after round
             * s53C's V6: seed 4007685, t2(sub(mb(p4), t(sub(s, t'(p3)))))
             * ended with t beside the inner sub in program order and t2
             * beside the outer one in order 15838; seed 12015302,
             * t(abs(t'(sub(t(s), mb(k))))) under t2(mul(.., s2))). The
             * other askers (transpose_above_binary, transposes_merge,
             * unary_above_transpose, which take an operand the transpose
             * moves beside as one that absorbs it) keep the answer without
             * these waits: asked there they changed where those rules let
             * a transpose rise or sink (seed 1018836 under V6). */
            if (yes && beside && unit && top && (taken_beside_above(top, depth, beside) || composes_with_reader(top)))
                yes = false;
        }
    }
    return yes;
}

static bool moves_beside(const ins *b, const int64_t *p, int np) { return moves_beside_at(NULL, b, p, np, 0, false); }

bool helper_moves_beside(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(moves_beside(a[0].u.in, a[1].u.ints, a[1].n));
    return true;
}

bool helper_moves_beside_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(moves_beside_at(a[0].u.in, a[1].u.in, a[2].u.ints, a[2].n, 0, false));
    return true;
}

bool helper_moves_beside_now(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(moves_beside_at(a[0].u.in, a[1].u.in, a[2].u.ints, a[2].n, 0, true));
    return true;
}

/* transposes_merge(x, y, p): see helpers_views.h. */
/* x takes transpose[p] in only at dots: through single-reader pointwise ops
 * and reductions (constant operands aside) to dots, no transpose it would
 * compose with and no constant it would fold into. */
static bool absorbed_by_dots(const ins *x, const int64_t *p, int n, int depth)
{
    /* a value shared inside the cone counts as absorbs_transpose counts it
     * (readers_rise_to): else the merge fired only in the orders that met
     * it before the shape noise around the diamond folded (seed 10328) */
    if (depth > ABSORBS_TRANSPOSE_MAX_DEPTH || x->nmods > 0 || is_op(x, "transpose") ||
        !(one_reader(x) || readers_rise_to(x, p, n)))
        return false;
    /* a shape chain that folds away, as absorbs_transpose asks it */
    const ins *z = folding_shape_chain(x);
    if (z) {
        if (z->nmods > 0 || is_op(z, "transpose"))
            return false;
        x = z;
    }
    if (is_op(x, "dot"))
        return true;
    unsigned c = x->op->classes;
    if (((c & OPC_UNARY) || (c & OPC_REDUCE)) && x->nargs == 1)
        return absorbed_by_dots(x->args[0], p, n, depth + 1);
    if ((c & OPC_BINARY) && x->nargs == 2) {
        bool a = view_is_constant(x->args[0]), b = view_is_constant(x->args[1]);
        return !(a && b) && (a || absorbed_by_dots(x->args[0], p, n, depth + 1)) &&
               (b || x->args[1] == x->args[0] || absorbed_by_dots(x->args[1], p, n, depth + 1));
    }
    return false;
}

static bool transposes_merge(const ins *b, const ins *x, const ins *y, const int64_t *p, int n)
{
    bool ax = view_absorbs_transpose(x, p, n), ay = view_absorbs_transpose(y, p, n);
    /* one the transpose moves into beside its inverse takes it as one that
     * absorbs it: transpose_above_binary moves it there. Asked exactly as
     * transpose_above_binary asks it, moves_beside_below with b, the op the
     * merged transpose would replace, as top: t(b(x, y)) and b(t(x), t(y))
     * have the same readers, so the answer is the same on both sides of
     * the move. moves_beside alone (only length-1 axes) said no where
     * transpose_above_binary, whose top is read by a dot, said yes, and the
     * two moved the transpose back and forth (seeds 216222, 1016942). */
    if ((ax || moves_beside_at(b, x, p, n, 0, false)) && (ay || moves_beside_at(b, y, p, n, 0, false)))
        return false;
    /* one that takes it in at a transpose or a constant composes or folds
     * (fold.rules) whatever the order: merging would only move it */
    return (!ax || absorbed_by_dots(x, p, n, 0)) && (!ay || absorbed_by_dots(y, p, n, 0));
}

bool helper_transposes_merge(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(transposes_merge(a[0].u.in, a[1].u.in, a[2].u.in, a[3].u.ints, a[3].n));
    return true;
}

/* merges_at_reader(t): see helpers_views.h. */
bool view_merges_at_reader(const ins *t)
{
    if (!is_op(t, "transpose") || t->nusers != 1)
        return false;
    const ins *b = t->users[0];
    if (!(b->op->classes & OPC_BINARY) || b->nargs != 2 || b->args[0] == b->args[1] || b->nmods > 0)
        return false;
    const ins *u = b->args[0], *v = b->args[1];
    if (!is_op(u, "transpose") || !is_op(v, "transpose") || u->nargs != 1 || v->nargs != 1 ||
        u->nusers != 1 || v->nusers != 1)
        return false;
    const attr_value *p = ins_attr(u, "permutation"), *q = ins_attr(v, "permutation");
    if (!p || !q || !attr_value_equal(*p, *q))
        return false;
    return transposes_merge(b, u->args[0], v->args[0], p->u.ints, p->n);
}

bool helper_merges_at_reader(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(view_merges_at_reader(a[0].u.in));
    return true;
}

/* beside_twins_sibling(t, x): see helpers_views.h. */
bool view_beside_twins_sibling(const ins *t, const ins *x)
{
    if (!is_op(t, "transpose") || t->nusers != 1)
        return false;
    const ins *c = t->users[0];
    if (!(c->op->classes & OPC_BINARY) || c->nargs != 2 || c->args[0] == c->args[1] || c->nmods > 0)
        return false;
    const ins *s = c->args[0] == t ? c->args[1] : c->args[0];
    const attr_value *p = ins_attr(t, "permutation"), *q = ins_attr(s, "permutation");
    if (!is_op(s, "transpose") || s->nargs != 1 || !p || !q || !attr_value_equal(*p, *q))
        return false;
    /* broadcasts to their operand's shape go in every order
     * (broadcast_to_same_shape, multibroadcast_to_same_shape, no guard):
     * the values are compared past them, as they are after the folds */
    const ins *y = s->args[0];
    while (broadcast_to_same_shape(x))
        x = x->args[0];
    while (broadcast_to_same_shape(y))
        y = y->args[0];
    if (x != y)
        return false;
    /* the sibling then rises through its reduction into an operand that
     * absorbs it (transpose_above_reduce), which waited only for the merge */
    return (is_reduction(y) && y->nargs == 1 && view_absorbs_transpose(y->args[0], p->u.ints, p->n));
}

bool helper_beside_twins_sibling(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(view_beside_twins_sibling(a[0].u.in, a[1].u.in));
    return true;
}

static bool transpose_read_once(const ins *x);

/* beside_twins_move(t): see helpers_views.h. transpose_beside_binary_first
 * or _second's guard, the rules' own helpers in their own combination,
 * asked where the move builds a twin of t's sibling (beside_twins_sibling). */
bool view_beside_twins_move(const ins *t)
{
    if (!is_op(t, "transpose") || t->nargs != 1 || t->nusers != 1)
        return false;
    const ins *b = t->args[0];
    if (!(b->op->classes & OPC_BINARY) || b->nargs != 2 || b->args[0] == b->args[1] || b->nmods > 0 || !one_reader(b))
        return false;
    const attr_value *p = ins_attr(t, "permutation");
    if (!p || p->kind != ATTR_INTS || p->n != t->sh.rank)
        return false;
    for (int k = 0; k < 2; k++) {
        const ins *x = b->args[1 - k];
        const ins *s = b->args[k];
        if (!is_op(s, "transpose") || s->nargs != 1 || !one_reader(s))
            continue;
        const ins *y = s->args[0];
        if (!view_beside_twins_sibling(t, x) || !lens_equal(y->sh.lens, y->sh.rank, t->sh.lens, t->sh.rank) ||
            view_absorbs_transpose(x, p->u.ints, p->n) || view_is_constant(y) || view_is_constant(x))
            continue;
        if (!moves_beside_at(t, b, p->u.ints, p->n, 0, true))
            continue;
        if (transpose_vanishes_below(t) && !transpose_read_once(x))
            continue;
        return true;
    }
    return false;
}

bool helper_beside_twins_move(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(view_beside_twins_move(a[0].u.in));
    return true;
}

/* The chain of transposes from u down to the first value that is no
 * transpose, composed into one permutation (what transpose_of_transpose
 * leaves of it in every order): *base is that value, r the permutation
 * (r[i] = inner[outer[i]], as the fold composes it). False where u is no
 * transpose or a permutation does not fit, and where the last transpose of
 * the chain, the one on *base, may leave before the chain composes: its
 * operand absorbs it or takes it beside its inverse (the rising rules,
 * transpose_above_unary and the like, which do not wait for a transpose
 * that composes with its reader), after which what is left to compose is
 * another permutation (--ops 24 seed 11001048: t(t'(tanh(t'(d)))) lets t'
 * rise through tanh and cancel in some orders, and composes t with it
 * first in others). */
static bool transpose_chain(const ins *u, int n, int64_t *r, const ins **base)
{
    if (!transpose_ints(u, n, r))
        return false;
    const ins *last = u;
    const ins *z = compose_transposes_below(u->args[0], n, r, false, &last);
    if (!z)
        return false;
    const attr_value *q = ins_attr(last, "permutation");
    if (z->sh.rank != n || view_absorbs_transpose(z, q->u.ints, n) || moves_beside_at(last, z, q->u.ints, n, 0, false))
        return false;
    *base = z;
    return true;
}

/* transpose_composes_below(t): see helpers_views.h. */
bool view_transpose_composes_below(const ins *t)
{
    if (!is_op(t, "transpose") || t->nargs != 1)
        return false;
    const ins *x = t->args[0];
    int n = t->sh.rank;
    const attr_value *p = ins_attr(t, "permutation");
    if (n > SHAPE_MAX_RANK || x->sh.rank != n || !p || p->kind != ATTR_INTS || p->n != n ||
        moves_unit_axes_only(p->u.ints, n, x->sh.lens))
        return false;
    int64_t r[SHAPE_MAX_RANK], d[SHAPE_MAX_RANK], ip[SHAPE_MAX_RANK];
    const ins *z = NULL;
    if (is_op(x, "transpose") && x->nargs == 1) {
        if (!transpose_chain(t, n, r, &z))
            return false;
    } else {
        if (!(x->op->classes & OPC_BINARY) || x->nargs != 2 || x->args[0] == x->args[1] || x->nmods > 0)
            return false;
        const ins *u = x->args[0], *v = x->args[1];
        if (!is_op(u, "transpose") || !is_op(v, "transpose") || u->nusers != 1 || v->nusers != 1)
            return false;
        int64_t ru[SHAPE_MAX_RANK], rv[SHAPE_MAX_RANK];
        const ins *a = NULL, *b = NULL;
        if (!transpose_chain(u, n, ru, &a) || !transpose_chain(v, n, rv, &b) ||
            memcmp(ru, rv, sizeof(int64_t) * (size_t)n) != 0)
            return false;
        if (view_beside_twins_move(u) || view_beside_twins_move(v))
            return false;
        if (!binary_transposes_merge(x, u, a, b, ru, n))
            return false;
        for (int i = 0; i < n; i++) {
            if (p->u.ints[i] < 0 || p->u.ints[i] >= n)
                return false;
            r[i] = ru[p->u.ints[i]];
        }
        z = a;
    }
    /* the sibling has t's permutation: where the composition differs from
     * it only by a move of length-1 axes, the two still merge after it
     * (binary_above_transpose_and_unit_different_transpose), so no wait */
    if (z->sh.rank != n || !invert_permutation(p->u.ints, n, ip))
        return false;
    for (int i = 0; i < n; i++)
        d[i] = r[ip[i]];
    return !moves_unit_axes_only(d, n, z->sh.lens);
}

bool helper_transpose_composes_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(view_transpose_composes_below(a[0].u.in));
    return true;
}

/* transposed_back_below(t): see helpers_views.h. From u, a reader of t,
 * through pointwise ops read once, to a transpose that undoes p (u itself,
 * or one below). p is the permutation from `base` (the lens of t's
 * operand) to u's operand. A transpose on the way that does not undo p
 * composes with it (transpose_of_transpose) and the walk goes on with the
 * composition: an identity transpose that identity_transpose has not yet
 * dropped, or one that moves other axes, must not end the walk in some
 * visiting orders and not in others (seed 2623). */
static bool undone_below(const ins *u, const ins *from, const int64_t *p, int n, const int64_t *base,
                         int depth)
{
    if (depth > ABSORBS_TRANSPOSE_MAX_DEPTH)
        return false;
    if (is_op(u, "transpose")) {
        int64_t r[SHAPE_MAX_RANK];
        if (u->nargs != 1 || !compose_with_transpose(p, u, n, r))
            return false;
        if (vanishes(r, n, base))
            return true;
        return one_reader(u) && undone_below(u->users[0], u, r, n, base, depth + 1);
    }
    unsigned c = u->op->classes;
    if (u->nmods > 0 || u->sh.rank != n || !(c & (OPC_UNARY | OPC_BINARY)) || !one_reader(u))
        return false;
    if ((c & OPC_BINARY) && u->nargs == 2) {
        /* The transpose that undoes p rises through u only where u's other
         * operand takes it (transpose_above_binary asks absorbs_transpose of
         * both operands): p's inverse, which it applies there. Where the
         * other operand does not take it (max(s, t) of a parameter s), the
         * transpose stays below u, and a transpose of a dot that waited for
         * it would wait for ever. */
        const ins *other = other_operand(u, from);
        int64_t q[SHAPE_MAX_RANK];
        if (!invert_permutation(p, n, q))
            return false;
        if (other != from && !absorbs(other, q, n, 0, false))
            return false;
    }
    return undone_below(u->users[0], u, p, n, base, depth + 1);
}

bool helper_transposed_back_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *t = a[0].u.in;
    const attr_value *p = is_op(t, "transpose") ? ins_attr(t, "permutation") : NULL;
    bool yes = p && p->n == t->sh.rank && p->n <= SHAPE_MAX_RANK && t->nargs == 1 && t->nusers > 1;
    for (int k = 0; k < t->nusers && yes; k++)
        yes = undone_below(t->users[k], t, p->u.ints, p->n, t->args[0]->sh.lens, 0);
    *out = rule_bool(yes);
    return true;
}

/* composes_at_reader(t): see helpers_views.h. */
static bool composes_at_reader(const ins *t)
{
    /* also for a transpose that moves only length-1 axes (round s25B; it
     * was left to unit_axes_transpose*): it composes with its reader in
     * every order, while transpose_above_binary, firing first, put it on
     * both operands of the op, where a dot took one half (seed 1016595:
     * t(sin(t(mul(dot, t'(s))))) of lens {1, 2} ended as
     * t(relu(sin(mul(dot[{1, 0}], s)))) or relu(sin(mul(dot, t'(s))))).
     * The reader is also seen past layout-only pending ops read once
     * (view_through_pending takes them away in every order, so the answer
     * is the same before they go and after): asked of the pending op alone
     * it said no, and transpose_above_binary raised t in the orders that
     * met t before the pending op went (round s53F, seed 1018836:
     * t'(t(max(add(t(s), neg(p)), t(s2)))) ended as
     * t(max(add(s, t(neg(p))), s2)) in program order, as
     * max(add(t(s), neg(p)), t(s2)) in order 7919). A broadcast to
     * its operand's shape is passed too: multibroadcast_to_same_shape and
     * broadcast_to_same_shape take it away in every order (round s54A,
     * seed 1018836: t(add(t'(s), neg(p))) read by mb(.) of its own shape
     * under t2 rose through add in the orders that met it before the fold,
     * and composed with t2 in the others) */
    return is_op(t, "transpose") && t->nargs == 1 && reader_transpose_past(t, false);
}

bool helper_composes_at_reader(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(composes_at_reader(a[0].u.in));
    return true;
}

/* u = b(w, y) with w read once (directly or past the ops the walk of
 * composes_through_readers passes) by a copy of t[q] composed with the
 * transposes met up to w, r: y is a chain of transposes that composes into
 * the same permutation, compose(q, r). The two merge below b
 * (binary_above_transposes and its shared twin) once both chains have
 * composed, so the composition goes on past b. Compared composed on both
 * sides, as transpose_of_transpose leaves them, whichever has composed yet
 * (seed 12603: add(t2(abs(t(x))), t2(t(x))) under t2 again, where
 * t2(t(x)) had composed into one transpose in some orders only). */
static bool merges_at_binary(const ins *u, const ins *w, const int64_t *q, const int64_t *r, int n)
{
    if (!((u->op->classes & OPC_BINARY) && u->nargs == 2 && u->nmods == 0 && u->sh.rank == n) ||
        (u->args[0] != w && u->args[1] != w))
        return false;
    const ins *y = u->args[0] == w ? u->args[1] : u->args[0];
    int64_t ry[SHAPE_MAX_RANK];
    for (int i = 0; i < n; i++)
        ry[i] = i;
    if (!is_op(y, "transpose") || y->sh.rank != n || !compose_transposes_below(y, n, ry, false, NULL))
        return false;
    for (int i = 0; i < n; i++)
        if (ry[i] != q[r[i]])
            return false;
    return true;
}

/* composes_through_readers(v, t): see helpers_views.h. */
static bool composes_through_readers(const ins *v, const ins *t)
{
    const attr_value *p = transpose_permutation(t);
    const ins *x = p ? t->args[0] : NULL;
    int n = v->sh.rank;
    /* not while t composes with a transpose below it (transpose_of_transpose,
     * in every order): the answer is the composed one's (--views T seed
     * 13018730: abs(t(t'(p))) took a copy of the uncomposed t in the orders
     * that met abs first) */
    if (!x || p->n != x->sh.rank || p->n != n || n > SHAPE_MAX_RANK ||
        moves_unit_axes_only(p->u.ints, p->n, x->sh.lens) || (is_op(x, "transpose") && x->nargs == 1))
        return false;
    /* the walk of reader_transpose_past, on past the first transpose
     * through further ones read once, composing them: where the readers'
     * transposes compose into one that does nothing they cancel among
     * themselves in every order, and t has nothing to compose with (seed
     * 1040774: neg(t(x)) read by t2(relu(t2(.))), t2 its own inverse; the
     * copy sunk below neg ended as t(relu(neg(x))) beside abs's t(x), which
     * sank below abs in the orders that met abs first) */
    int64_t r[SHAPE_MAX_RANK], lens[SHAPE_MAX_RANK];
    for (int i = 0; i < n; i++)
        r[i] = i, lens[i] = v->sh.lens[i];
    bool met = false;
    const ins *w = v;
    for (int d = 0;; d++) {
        /* past a value of several readers (or too far to see) the
         * composition may go on along each of them: no answer (seed
         * 12603: add(t2(abs(t(x))), t2(t(x))) read by t2 and by
         * t2(sigmoid(.)), t's copy composed with the first t2 and left
         * the rest to a race) */
        if (d > ABSORBS_TRANSPOSE_MAX_DEPTH || (w->nusers > 0 && !one_reader(w)))
            return false;
        if (w->nusers == 0)
            break;
        const ins *u = w->users[0];
        if (is_op(u, "transpose") && u->nargs == 1) {
            if (u->sh.rank != n || !compose_with_transpose(r, u, n, r))
                return false;
            met = true;
        } else if (is_reduction(u) && u->nargs == 1 && u->sh.rank == n) {
            /* a reduction keeping its axes: the transposes on either side
             * meet past it (reduce_below_transpose, transpose_above_reduce;
             * seed 2074359: relu(t(x)) under t2, reduce_max and t3, t2 and
             * t3 composing into the identity); lens, in v's frame, become
             * the reduction's */
            for (int i = 0; i < n; i++)
                lens[r[i]] = u->sh.lens[i];
        } else if (!(((pending_is_transparent(u) && u->nargs == 1) || broadcast_to_same_shape(u)) ||
                     ((u->op->classes & OPC_UNARY) && u->nargs == 1 && u->nmods == 0 && !view_is_constant(u)) ||
                     (met && (u->op->classes & OPC_BINARY) && u->nargs == 2 && u->nmods == 0 && u->args[0] == w &&
                      u->args[1] == w))) {
            /* past a transpose met, b(w, w) too: a transpose read twice
             * there sinks below it in every order
             * (binary_above_transpose_twice; seed 15434: tanh(t(x)) read by
             * t2, read twice by add, under t2 again), and a two-operand op
             * where the two merge; not before one (SiLU's b(t, u(t)) is
             * binary_above_transpose_and_unary's) */
            if (!met || !merges_at_binary(u, w, p->u.ints, r, n))
                break;
        }
        w = u;
    }
    return met && !vanishes(r, n, lens);
}

bool helper_composes_through_readers(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(composes_through_readers(a[0].u.in, a[1].u.in));
    return true;
}

/* cancels_at_reader(t): see helpers_views.h. The chain is walked while
 * each value is read once, by a transpose or by a one-operand pointwise op
 * (which the transposes above it rise through: its operand, a transpose,
 * absorbs them), for VIEW_CLUSTER_MAX ops at most, as the other walks (a
 * long chain of them answers no: the rule does not wait); r is t's
 * permutation composed with the transposes met so far (axis i of the last
 * one is axis r[i] of t's operand). */
static bool cancels_above(const ins *t)
{
    const attr_value *p = transpose_permutation(t);
    bool yes = false;
    if (p && p->kind == ATTR_INTS && p->n <= SHAPE_MAX_RANK && p->n == t->sh.rank) {
        int64_t r[SHAPE_MAX_RANK], next[SHAPE_MAX_RANK];
        memcpy(r, p->u.ints, (size_t)p->n * sizeof *r);
        int steps = 0;
        for (const ins *s = t; !yes && one_reader(s) && steps++ < VIEW_CLUSTER_MAX; s = s->users[0]) {
            const ins *w = s->users[0];
            if (pointwise_unary(w) && w->sh.rank == p->n)
                continue;
            const attr_value *q = transpose_permutation(w);
            if (!q || q->kind != ATTR_INTS || q->n != p->n)
                break;
            bool ok = true;
            yes = true;
            for (int i = 0; ok && i < q->n; i++) {
                ok = q->u.ints[i] >= 0 && q->u.ints[i] < p->n;
                next[i] = ok ? r[q->u.ints[i]] : 0;
                yes = yes && ok && next[i] == i;
            }
            if (!ok) {
                yes = false;
                break;
            }
            memcpy(r, next, (size_t)p->n * sizeof *r);
        }
    }
    return yes;
}

bool helper_cancels_at_reader(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(cancels_above(a[0].u.in));
    return true;
}

/* risen_into(t): see helpers_views.h. The reader's transpose rises through
 * w when every operand of w absorbs its permutation (transpose_above_unary,
 * transpose_above_binary). */
static bool risen_into(const ins *t)
{
    /* as in composes_at_reader, also for a transpose that moves only
     * length-1 axes (round s25B; seed 7270, which had kept them out,
     * passes) */
    if (!is_op(t, "transpose") || t->nargs != 1 || !one_reader(t))
        return false;
    /* The reader w is seen past broadcasts to their operand's shape
     * between t and w: the same-shape folds (broadcast_to_same_shape,
     * multibroadcast_to_same_shape, no guard) take them away in every
     * order, after which w reads t itself, so the answer is the same
     * before they go and after (round s54A, seed 1018836). Not past
     * layout-only pending ops (round s54A tried it, for 1018836's 9-op
     * minimal case): unary_through_pending does not take such an op away
     * but moves it above a one-operand w, where it stands between w and
     * the transpose t2 that was to rise through w, and unary_above_transpose
     * (whose wait reader_risen_into asks risen_into of w's reader) sees no
     * transpose there and sinks w below t: the rise the look-through
     * promised need not come. Asked past them the wait held a one-operand
     * op above its transpose only in the orders that met it before the
     * pending op moved (round s54A3, --views T seed 13000494:
     * sin(t(abs(p))) read through t'(..) and a pending op by sin, under
     * t' beside a sibling at add, ended with the unit transpose
     * {0, 1, 3, 2} on sin(sin(p)) in program order and on the sibling in
     * the other three). */
    const ins *v = t;
    for (int d = 0; d < ABSORBS_TRANSPOSE_MAX_DEPTH && one_reader(v) && broadcast_to_same_shape(v->users[0]); d++)
        v = v->users[0];
    if (!one_reader(v))
        return false;
    const ins *w = v->users[0];
    unsigned c = w->op->classes;
    if (w->nmods > 0 || !(c & (OPC_UNARY | OPC_BINARY)) || w->nargs < 1 || w->nargs > 2 || !one_reader(w))
        return false;
    const ins *t2 = w->users[0];
    const attr_value *q = transpose_permutation(t2);
    if (!q || q->n != w->sh.rank)
        return false;
    for (int k = 0; k < w->nargs; k++)
        if (!view_absorbs_transpose(w->args[k] == v ? t : w->args[k], q->u.ints, q->n))
            return false;
    return true;
}

bool helper_risen_into(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(risen_into(a[0].u.in));
    return true;
}

/* reader_risen_into(u): see helpers_views.h. One op higher than
 * risen_into: u's only reader is a transpose that a transpose further down
 * rises back into. */
bool helper_reader_risen_into(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *u = a[0].u.in;
    *out = rule_bool(one_reader(u) && risen_into(u->users[0]));
    return true;
}

/* a pending shape change that keeps the lens (layout only) is read
 * through (pending.rules) */
static bool layout_pending(const ins *v)
{
    return is_op(v, "pending_shape_change") && v->nargs == 1 && v->sh.rank == v->args[0]->sh.rank &&
           memcmp(v->sh.lens, v->args[0]->sh.lens, sizeof(int64_t) * (size_t)v->sh.rank) == 0;
}

/* v, or what v reads where v is a layout-only pending op read once (not
 * over another pending op): view_through_pending takes such an op away in
 * every order (a one-operand op sunk below a broadcast leaves one). */
static const ins *past_layout_pending(const ins *v)
{
    if (layout_pending(v) && v->nusers == 1 && !is_op(v->args[0], "pending_shape_change"))
        return v->args[0];
    return v;
}

/* broadcast_past_pending(x): see helpers_views.h. A transpose's operand is
 * asked whether it is a broadcast (a one-operand op stays above a
 * transpose of a broadcast: its value would lose its standard layout).
 * A layout-only pending op read once between the transpose and the
 * broadcast is no broadcast itself, and view_through_pending takes it
 * away in every order; the question must get the same answer before and
 * after that move (seed 1028002: binary_above_multibroadcasts_into_first
 * left pending(mb(add)) under t, and unary_above_transpose sank t below
 * abs in the orders that met abs before view_through_pending). For the
 * same reason a two-operand op whose multibroadcasts merge below it
 * (multibroadcasts_merge, or with a constant broadcast:
 * merges_with_constant_broadcast) counts as the broadcast it becomes: in
 * the orders that met abs before the merge, x was add(mb, mb) and the
 * transpose sank (seed 1028002 again, --seed-order 23757). */
bool helper_broadcast_past_pending(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *x = past_layout_pending(a[0].u.in);
    *out = rule_bool(shape_broadcasted_p(&x->sh) ||
                     (is_cluster_op(x) && x->nargs == 2 && (multibroadcasts_merge(x) || merges_with_constant_broadcast(x))));
    return true;
}

/* reshape_to_one_broadcast(r): see helpers_views.h. */
bool helper_reshape_to_one_broadcast(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *r = a[0].u.in;
    const ins *m = r->nargs == 1 ? past_layout_pending(r->args[0]) : NULL;
    *out = rule_bool(is_op(r, "reshape") && m && is_op(m, "broadcast") && !aligned_broadcast(m) &&
                     broadcast_axis_reshaped_at(m, r->sh.lens, r->sh.rank, &(int64_t){0}));
    return true;
}

/* standard_between_pending(x, r): see helpers_views.h. The squeeze r of
 * x is standard only between two layout-only pending ops that
 * view_through_pending and pending_of_pending take away in every order:
 * x over a value that is not standard, and r read by one (seed 1074046:
 * squeeze(pending(mb(mul))) under a pending op back to the broadcast's
 * layout, returned: folded into a reshape first, the broadcast copied at
 * the output in the orders that met the squeeze before the pending op
 * went, where the others kept the squeeze of the broadcast). */
bool helper_standard_between_pending(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *x = a[0].u.in, *r = a[1].u.in, *v = past_layout_pending(x);
    /* x over a value that is not standard, or a two-operand op whose
     * multibroadcasts merge, which the merge leaves so (seed 1074046
     * again, --seed-order 23757: the squeeze folded before the merge) */
    bool x_transient = v != x ? !shape_standard_p(&v->sh)
                              : is_cluster_op(x) && x->nargs == 2 &&
                                    (multibroadcasts_merge(x) || merges_with_constant_broadcast(x));
    *out = rule_bool(x_transient && one_reader(r) && layout_pending(r->users[0]));
    return true;
}

/* transpose_read_once(x): see helpers_views.h. transpose_beside_binary_*
 * wait while the transpose vanishes below (vanishes_below): moving it
 * sideways onto x leaves t(x) and takes the inverse away, two views where
 * the transpose's vanishing below leaves the inverse and x's own view, so
 * the two orders tie on different graphs (seed 1017538:
 * reduce_sum(t(add(t'(tanh(s)), reshape(p))))). Where x is a transpose
 * read once, t composes with it: the sideways move leaves one view where
 * vanishing leaves two, so it does not wait (seed 2000509:
 * reduce_mean(T(add(t_a(s), t_b(r)))) with T the inverse of t_a became
 * reduce_mean(add(s, T(t_b(r))))). */
/* x is a transpose read once, seen past a layout-only pending op read
 * once, which the pending rules take away in every order (seed 2000509
 * again, --seed-order 7919). */
static bool transpose_read_once(const ins *x)
{
    x = past_layout_pending(x);
    return is_op(x, "transpose") && x->nargs == 1 && one_reader(x);
}

bool helper_transpose_read_once(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(transpose_read_once(a[0].u.in));
    return true;
}

/* is_plain_transpose(x): see helpers_views.h. */
bool helper_is_plain_transpose(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *x = a[0].u.in;
    *out = rule_bool(is_op(x, "transpose") && x->nargs == 1);
    return true;
}

/* transposes_settle_below(u): see helpers_views.h. The chain below u of
 * single readers that are transposes (which compose) and one-operand
 * pointwise ops (which a transpose sinks below): a transpose sinking from
 * above u ends where the chain ends, composed with the chain's
 * transposes, and stays there only if they do not compose to the identity
 * (seed 2797: abs(t(mb(x))) read by t2, then neg, then t3 with t3(t2) the
 * identity) and the chain's end reaches no output (where the transposed
 * value would need a copy). */
bool helper_transposes_settle_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *u = a[0].u.in, *v = u;
    int64_t acc[SHAPE_MAX_RANK];
    int rank = u->sh.rank;
    for (int k = 0; k < rank; k++)
        acc[k] = k;
    bool seen = false, ok = rank <= SHAPE_MAX_RANK;
    for (int depth = 0; ok && depth < VIEW_CLUSTER_MAX && one_reader(v); depth++) {
        const ins *r = v->users[0];
        if (is_op(r, "transpose") && r->nargs == 1) {
            const attr_value *p = ins_attr(r, "permutation");
            if (!p || p->n != rank) {
                ok = false;
                break;
            }
            int64_t next[SHAPE_MAX_RANK];
            for (int k = 0; k < rank; k++)
                next[k] = p->u.ints[k] >= 0 && p->u.ints[k] < rank ? acc[p->u.ints[k]] : -1;
            memcpy(acc, next, sizeof(int64_t) * (size_t)rank);
            seen = true;
        } else if (is_op(r, "pending_shape_change")) {
            /* a layout-only pending change that a move above put there
             * (the pending rules carry it into its readers), with no
             * permutation: seen through, as layout_settles_below does */
            const attr_value *q = ins_attr(r, "permutation");
            if (!layout_pending(r) || r->nmods > 0 || (q && q->n > 0))
                break;
        } else if (!((r->op->classes & OPC_UNARY) && r->nargs == 1 && r->nmods == 0))
            break;
        v = r;
    }
    bool identity = true;
    for (int k = 0; k < rank; k++)
        identity = identity && acc[k] == k;
    *out = rule_bool(ok && seen && !identity && !layout_reaches_output(v, 0) &&
                     !(one_reader(v) && (v->users[0]->op->classes & (OPC_BUILTIN | OPC_OPAQUE | OPC_REGION))));
    return true;
}

static shape permuted_view_shape(const shape *x, const int64_t *p, int n);

/* transposed_at_output(u, p): see helpers_views.h. The chain below u of
 * one-operand pointwise ops (a transpose sunk below u sinks below them
 * too: their operand is then no broadcast), then layout-only pending
 * shape changes and contiguous ops of u's lens, each read once, ends at
 * the @return, and the strides it asks for (those of
 * the chain's last value, as strides_change_at_output reads them) are,
 * length-1 axes aside, the standard strides of u's operand's operand
 * permuted by p: what t(u(x)) has where u(x) is standard, as a one-operand
 * op of a broadcast is. u(t(x)) of such an x is standard, and the output
 * takes a layout copy of it (round s42A, seed 1089530: tanh(t(mb(x)))
 * returned, where the orders that sank t below tanh before the broadcast
 * rose above mul returned t(tanh(mb(x))) with no copy). */
bool helper_transposed_at_output(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *u = a[0].u.in, *v = u;
    const int64_t *p = a[1].u.ints;
    int rank = u->sh.rank;
    bool pending = false, yes = false;
    for (int depth = 0; depth <= VIEW_CLUSTER_MAX && one_reader(v); depth++) {
        const ins *r = v->users[0];
        if ((layout_pending(r) || is_op(r, "contiguous")) && r->nargs == 1 && shape_same_lens(&r->sh, &u->sh))
            pending = true;
        else if (!pointwise_unary(r) || pending)
            break;
        v = r;
    }
    const ins *t = u->nargs == 1 ? u->args[0] : NULL;
    if (pending && one_reader(v) && (v->users[0]->op->classes & OPC_BUILTIN) && t && t->nargs == 1 &&
        t->args[0]->sh.rank == rank && a[1].n == rank && transpose_by(t, p, rank)) {
        /* t(u(x)) of a standard u(x): x's standard strides permuted by p */
        const shape *x = &t->args[0]->sh;
        shape standard_x = shape_standard(x->type, rank, x->lens);
        shape want = permuted_view_shape(&standard_x, p, rank);
        shape std = shape_standard(u->sh.type, rank, u->sh.lens);
        yes = !long_axes_strides_differ(&std, v->sh.strides, want.strides);
    }
    *out = rule_bool(yes);
    return true;
}

/* transposed_readers(u): see helpers_views.h. */
static bool transposed_readers(const ins *u)
{
    if (u->nusers < 2 || one_reader(u))
        return false;
    for (int k = 0; k < u->nusers; k++)
        if (!is_op(u->users[k], "transpose") || u->users[k]->nargs != 1)
            return false;
    return true;
}

bool helper_transposed_readers(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(transposed_readers(a[0].u.in));
    return true;
}

/* into_transposed_readers(t): see helpers_views.h. */
bool helper_into_transposed_readers(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *t = a[0].u.in;
    bool yes = is_op(t, "transpose") && one_reader(t);
    if (yes) {
        const ins *u = t->users[0];
        yes = (u->op->classes & OPC_UNARY) && u->nargs == 1 && u->nmods == 0 && transposed_readers(u);
    }
    *out = rule_bool(yes);
    return true;
}

/* rejoins_below(t), rejoins_shared(t2): see helpers_views.h. The values
 * of a diamond: a pointwise op (one or two operands, no region) of values
 * that are all transposed[p] from x: transpose[p](x) itself (any copy), a
 * transpose[p] read once of a pointwise function of x alone (a copy sunk
 * below ops of x already), or such an op of them; a constant operand of a
 * two-operand op counts as transposed (it takes the inverse transpose,
 * which folds), where the op's other operand is. */
static bool pointwise_op(const ins *u, int n)
{
    unsigned c = u->op->classes;
    return u->nmods == 0 && u->sh.rank == n && (c & (OPC_UNARY | OPC_BINARY)) && u->nargs >= 1 &&
           u->nargs <= 2;
}

static bool same_permutation(const ins *t, const attr_value *p)
{
    const attr_value *q = transpose_permutation(t);
    return q && attr_value_equal(*p, *q);
}

static bool plain_of(const ins *w, const ins *x, int depth)
{
    if (w == x)
        return true;
    if (depth <= 8 && layout_pending(w))
        return plain_of(w->args[0], x, depth + 1);
    if (depth > 8 || !pointwise_op(w, x->sh.rank))
        return false;
    int of_x = 0; /* a constant operand as in transposed_of */
    for (int k = 0; k < w->nargs; k++) {
        if (w->nargs == 2 && view_is_constant(w->args[k]))
            continue;
        if (!plain_of(w->args[k], x, depth + 1))
            return false;
        of_x++;
    }
    return of_x > 0;
}

static bool transposed_of(const ins *v, const ins *x, const attr_value *p, int depth)
{
    if (depth > 8)
        return false;
    if (layout_pending(v))
        return transposed_of(v->args[0], x, p, depth + 1);
    if (same_permutation(v, p))
        return v->args[0] == x || plain_of(v->args[0], x, 0) ||
               (one_reader(v) && !view_absorbs_transpose(v->args[0], p->u.ints, p->n));
    if (!pointwise_op(v, v->sh.rank))
        return false;
    /* a constant operand of a two-operand op takes the inverse transpose
     * when the copy sinks past the op, and that folds: b(t, k) is a
     * transposed value, t(b(x, t^-1(k))), where b has its other operand's
     * layout (as binary_above_transpose_and_constant asks, same_layout):
     * a literal of another layout gives b its own, which the move changes */
    int moved = 0;
    for (int k = 0; k < v->nargs; k++) {
        if (v->nargs == 2 && view_is_constant(v->args[k]) &&
            shape_same_layout(&v->sh, &v->args[1 - k]->sh))
            continue;
        if (!transposed_of(v->args[k], x, p, depth + 1))
            return false;
        moved++;
    }
    return moved > 0;
}

/* v's distinct readers that do not undo p (a transpose that composes with
 * it into one that vanishes cancels the copy sunk to v), at most max, into
 * r; -1 when there are more. */
static int own_readers(const ins *v, const attr_value *p, const ins **r, int max)
{
    int n = v->sh.rank, nr = 0;
    for (int k = 0; k < v->nusers; k++) {
        const ins *u = v->users[k];
        const attr_value *q = transpose_permutation(u);
        if (q && q->n == n && p->n == n && n <= SHAPE_MAX_RANK) {
            int64_t c[SHAPE_MAX_RANK];
            bool ok = true;
            for (int i = 0; i < n && ok; i++) {
                ok = q->u.ints[i] >= 0 && q->u.ints[i] < n && p->u.ints[i] >= 0 && p->u.ints[i] < n;
                if (ok)
                    c[i] = p->u.ints[q->u.ints[i]];
            }
            /* the lens of the value p transposed: v's, permuted back */
            int64_t base[SHAPE_MAX_RANK];
            for (int i = 0; i < n && ok; i++)
                base[p->u.ints[i]] = v->sh.lens[i];
            if (ok && vanishes(c, n, base))
                continue;
        }
        bool seen = false;
        for (int j = 0; j < nr; j++)
            seen |= r[j] == u;
        if (seen)
            continue;
        if (nr >= max)
            return -1;
        r[nr++] = u;
    }
    return nr;
}

/* From the frontier s (n distinct values transposed[p] from x), down
 * through their readers (readers that undo p aside), the earliest in
 * program order first (so that a value is passed once all of its
 * operands in the frontier are), to one pointwise op that all of them
 * reach. A value all of whose readers undo p (the copy cancels there) is
 * passed first, whatever its position: it leads nowhere, and passing it
 * after another value had walked to a reader that is not transposed said
 * no where passing it first said yes. The value left is a pointwise op
 * of transposed values or a transpose[p] of a function of x: the same
 * value on either side of a move of that transpose past a one-operand op
 * (u(t(x)) or t(u(x)), with the same readers), so the answer does not
 * depend on which side the frontier starts from (seed 4401054: the
 * sibling's t(abs(x)) cancelled below, and transposed_sibling said no for
 * tanh(t(x)) and yes for t(tanh(x)): the transpose rose and sank forever
 * between unary_above_transpose and transpose_above_unary_shared). */
enum { REJOIN_MAX = 16 };
static bool converges(const ins **s, int n, const ins *x, const attr_value *p)
{
    for (int step = 0; step < 4 * REJOIN_MAX && n > 1; step++) {
        const ins *r[REJOIN_MAX];
        int m = -1, nr = 0;
        for (int k = 0; k < n && m < 0; k++)
            if (s[k]->nusers > 0 && own_readers(s[k], p, r, REJOIN_MAX) == 0)
                m = k;
        if (m < 0) {
            m = 0;
            for (int k = 1; k < n; k++)
                if (s[k]->order < s[m]->order)
                    m = k;
            nr = own_readers(s[m], p, r, REJOIN_MAX);
        }
        if (nr < 0 || (nr == 0 && s[m]->nusers == 0))
            return false;
        const ins *v = s[m];
        s[m] = s[--n]; /* v is passed: its readers take its place */
        for (int j = 0; j < nr; j++) {
            const ins *w = r[j];
            if (!layout_pending(w) && (!pointwise_op(w, x->sh.rank) || !transposed_of(w, x, p, 0)))
                return false;
            bool seen = false;
            for (int k = 0; k < n; k++)
                seen |= s[k] == w;
            if (seen)
                continue;
            if (n >= REJOIN_MAX)
                return false;
            s[n++] = w;
        }
        (void)v;
    }
    return n == 1 && (pointwise_op(s[0], x->sh.rank) || same_permutation(s[0], p)) && transposed_of(s[0], x, p, 0);
}

/* the distinct readers of t (with `extra`, if not NULL) into s; false when
 * one of them is not a pointwise op of transposed values or too many */
static bool rejoin_frontier(const ins *t, const ins *extra, const ins **s, int *n)
{
    const attr_value *p = ins_attr(t, "permutation");
    const ins *x = t->args[0];
    *n = 0;
    if (extra)
        s[(*n)++] = extra;
    for (int k = 0; k < t->nusers; k++) {
        const ins *u = t->users[k];
        bool seen = false;
        for (int j = 0; j < *n; j++)
            seen |= s[j] == u;
        if (seen)
            continue;
        if (*n >= REJOIN_MAX || !pointwise_op(u, x->sh.rank) || !transposed_of(u, x, p, 0))
            return false;
        s[(*n)++] = u;
    }
    return true;
}

static bool rejoins_below(const ins *t)
{
    if (!is_op(t, "transpose") || t->nargs != 1 || one_reader(t) || t->nusers < 2 ||
        t->sh.rank != t->args[0]->sh.rank)
        return false;
    const ins *s[REJOIN_MAX + 1];
    int n;
    return rejoin_frontier(t, NULL, s, &n) && converges(s, n, t->args[0], ins_attr(t, "permutation"));
}

bool helper_rejoins_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(rejoins_below(a[0].u.in));
    return true;
}

/* t2, a transpose[p] of a pointwise function of x, and a transpose[p] of
 * x that the graph has beside it rejoin below (rejoins_shared's question,
 * asked of x itself, or of the end of a chain of one-operand ops under t2:
 * rises_to_shared_through) */
static bool rejoins_shared_at(const ins *t2, const ins *x, const attr_value *p)
{
    bool yes = false;
    for (int k = 0; k < x->nusers && !yes; k++) {
        const ins *t = x->users[k];
        if (t == t2 || !same_permutation(t, p) || t->sh.rank != x->sh.rank)
            continue;
        const ins *s[REJOIN_MAX + 1];
        int m;
        yes = rejoin_frontier(t, t2, s, &m) && converges(s, m, x, p);
    }
    return yes;
}

bool helper_rejoins_shared(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *t2 = a[0].u.in;
    bool yes = false;
    const attr_value *p = transpose_permutation(t2);
    const ins *u = p ? t2->args[0] : NULL;
    /* u(x), or b(x, x) reading x twice (round s42A): one function of x */
    if (u && pointwise_op(u, t2->sh.rank) && pointwise_of_one_value(u))
        yes = rejoins_shared_at(t2, u->args[0], p);
    *out = rule_bool(yes);
    return true;
}

/* transposed_sibling(x, u, p): see helpers_views.h. Not where the two
 * transposed values rejoin below (converges, as for rejoins_shared): there
 * unary_above_shared_transpose sinks the copies and they merge where the
 * readers meet (seed 8620: sub(t(abs(x)), neg(t(x))) read by a dot).
 *
 * u's side is t(u(x)) where transpose_above_unary_shared asks and u(t(x))
 * where unary_above_transpose asks: one value, with the same readers, on
 * either side of the move. converges gives it the same answer in both
 * forms (a transpose[p] of a function of x is a transposed value as u(t(x))
 * is; a sibling whose transpose cancels below is passed first, whatever
 * the program order of u's side), so transposed_sibling is the same before
 * and after either rule fires, the two guards are exact complements, and
 * the transpose cannot rise and sink forever. Before, with the sibling's
 * t(abs(x)) read only by its inverse (seed 4401054), converges said yes
 * for tanh(t(x)), which it ended on, and no for t(tanh(x)), a transpose. */
bool helper_transposed_sibling(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *x = a[0].u.in, *u = a[1].u.in;
    const int64_t *p = a[2].u.ints;
    int np = a[2].n;
    bool yes = false;
    /* u's side of the diamond: its transpose, or u itself reading x's */
    const ins *su = one_reader(u) && is_op(u->users[0], "transpose") ? u->users[0] : u;
    for (int k = 0; k < x->nusers && !yes; k++) {
        const ins *v = x->users[k];
        if (v == u || !(v->op->classes & OPC_UNARY) || v->nargs != 1 || v->nmods > 0 || v->nusers != 1)
            continue;
        const ins *t = v->users[0];
        const attr_value *q = transpose_permutation(t);
        if (!q || q->n != np || memcmp(q->u.ints, p, sizeof(int64_t) * (size_t)np) != 0)
            continue;
        /* converges puts the readers it passes into s: room for
         * REJOIN_MAX, not just the two it starts from */
        const ins *s[REJOIN_MAX] = {su, t};
        yes = !converges(s, 2, x, q);
    }
    *out = rule_bool(yes);
    return true;
}

/* reader_reads(u, t): see helpers_views.h. */
bool helper_reader_reads(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *u = a[0].u.in, *t = a[1].u.in;
    bool yes = false;
    if (one_reader(u))
        for (int k = 0; k < u->users[0]->nargs && !yes; k++)
            yes = u->users[0]->args[k] == t;
    *out = rule_bool(yes);
    return true;
}

/* duplicated_transpose(t): see helpers_views.h. */
bool helper_duplicated_transpose(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *t = a[0].u.in;
    bool yes = false;
    if (is_op(t, "transpose") && t->nargs == 1) {
        const ins *x = t->args[0];
        const attr_value *p = ins_attr(t, "permutation");
        for (int k = 0; k < x->nusers && !yes && p; k++) {
            const ins *o = x->users[k];
            if (o == t || !is_op(o, "transpose"))
                continue;
            const attr_value *q = ins_attr(o, "permutation");
            yes = q && attr_value_equal(*p, *q);
        }
    }
    *out = rule_bool(yes);
    return true;
}

static bool broadcast_axis_after_at(const ins *b, const int64_t *l, int nl, int64_t *axis_out)
{
    const attr_value *axv = ins_attr(b, "axis");
    if (!is_op(b, "broadcast") || b->nargs != 1 || !axv || nl < b->sh.rank)
        return false;
    const ins *x = b->args[0];
    int64_t axis = axv->u.i + (nl - b->sh.rank);
    if (axis < 0 || axis + x->sh.rank > nl)
        return false;
    for (int i = 0; i < x->sh.rank; i++)
        if (l[axis + i] != x->sh.lens[i] || b->sh.lens[axv->u.i + i] != x->sh.lens[i])
            return false;
    *axis_out = axis;
    return true;
}

/* The broadcast[axis=a](p) that x becomes in every order, or NULL: where
 * x is a one-operand op of it that sinks below it (below); where x =
 * b(c, d) and c and d are broadcast[axis=a] of values of one lens, read
 * once, neither constant, not aligned, stretching, binary_above_broadcasts
 * merges them (its own guard, here in C) into broadcast[axis=a](b(p, q)),
 * of c's axis and lens; where one of them is such a broadcast of a value
 * that is not constant and the other a constant that folds to a literal
 * holding p's lens broadcast at a (a broadcast[axis=a] of a constant of
 * p's lens, or such a literal: broadcast_axes succeeds), the literal
 * merges take it the same way (binary_above_broadcast_literal_*). */
static const ins *broadcasts_merging_into(arena *mem, const ins *x, int depth)
{
    /* a one-operand op u of c = broadcast[axis](p) that unary_above_broadcast
     * sinks in every order (its own guard: p not constant, u's readers take
     * the layout, no twin of c with standard readers, p no broadcast that c
     * composes with): broadcast[axis](u(p)) has c's axis and lens. Also
     * of a value read once that becomes such a broadcast first (asked the
     * same way, a few levels deep): u then sinks below it as well. */
    if ((x->op->classes & OPC_UNARY) && x->nargs == 1 && x->nmods == 0) {
        const ins *c = x->args[0];
        if (!is_op(c, "broadcast")) {
            const ins *w = c;
            if (depth >= 4 || !one_reader(w) || !(c = broadcasts_merging_into(mem, w, depth + 1)))
                return NULL;
            return readers_take_broadcast(x, x, 0) ? c : NULL;
        }
        if (!broadcast_sinks_below(x))
            return NULL;
        const ins *p = c->args[0];
        rule_value pc[2] = {rule_ins((ins *)p), rule_ins((ins *)c)}, twin, pb = rule_ins((ins *)p), below;
        if (!helper_twin_of(mem, pc, 2, &twin) || (twin.u.i && standard_readers(x)))
            return NULL;
        if (shape_broadcasted_p(&p->sh) && (!helper_broadcast_composes_below(mem, &pb, 1, &below) || below.u.i))
            return NULL;
        return c;
    }
    if (x->nargs != 2 || !(x->op->classes & OPC_BINARY))
        return NULL;
    /* b(c, c) of one broadcast read by b alone: binary_above_broadcast_twice
     * (its guard: c's value not constant, no twin of it with standard
     * readers of b) */
    if (x->args[0] == x->args[1]) {
        const ins *c = x->args[0];
        if (!is_op(c, "broadcast") || c->nargs != 1 || c->nusers != 2 || view_is_constant(c->args[0]))
            return NULL;
        rule_value pc[2] = {rule_ins((ins *)c->args[0]), rule_ins((ins *)c)}, twin;
        if (!helper_twin_of(mem, pc, 2, &twin) || (twin.u.i && standard_readers(x)))
            return NULL;
        return c;
    }
    for (int k = 0; k < 2; k++) {
        const ins *c = x->args[k], *d = x->args[1 - k];
        const attr_value *ac = ins_attr(c, "axis");
        if (!is_op(c, "broadcast") || c->nargs != 1 || c->nusers != 1 || !ac || c == d)
            continue;
        const ins *p = c->args[0];
        if (view_is_constant(p) || shape_elements(&c->sh) <= shape_elements(&p->sh))
            continue;
        bool merges = false;
        if (is_op(d, "broadcast") && d->nargs == 1) {
            const attr_value *ad = ins_attr(d, "axis");
            const ins *q = d->args[0];
            bool same = ad && ad->u.i == ac->u.i && shape_same_lens(&p->sh, &q->sh);
            if (view_is_constant(q))
                merges = same;
            else
                merges = k == 0 && same && d->nusers == 1 && ac->u.i + p->sh.rank != c->sh.rank;
        } else if (view_is_constant(d) && d->nargs == 0 && shape_same_lens(&d->sh, &c->sh)) {
            rule_value in[3] = {rule_ins((ins *)d), {RV_INTS, p->sh.rank, {.ints = p->sh.lens}},
                                {RV_INT, 0, {.i = ac->u.i}}}, axes;
            merges = helper_broadcast_axes(mem, in, 3, &axes);
        }
        if (!merges)
            continue;
        rule_value args[2] = {rule_ins((ins *)x), rule_ins((ins *)c)}, copies;
        if (!helper_broadcast_merge_copies(NULL, args, 2, &copies) || copies.u.i)
            continue;
        return c;
    }
    return NULL;
}

/* x is a one-operand op u of a multibroadcast c that unary_above_multibroadcast
 * sinks in every order (its guard: c stretches, u's readers take the
 * layout, no twin of c with standard readers of u, c's operand no broadcast
 * that c composes with), or a chain of one-operand ops read once (through
 * layout-only pending ops the sinks leave) down to one, each of whose
 * readers take the layout, so that the broadcast sinks through the chain:
 * a multibroadcast reading x then reads mb(x') and
 * multibroadcast_of_multibroadcast composes the two, as it does a
 * multibroadcast of a multibroadcast, which the merges leave (x =
 * !multibroadcast). Seed 1021936: max(broadcast[axis=1](s),
 * mb[{4, 2}](tanh(mb[{1, 2}](p2)))) of a {1, 1} p2 merged into {1, 2} in
 * the orders that met max first, and ran in {4, 2} on tanh(p2) in those
 * that sank tanh's broadcast first. */
static bool multibroadcast_sinks_through(arena *mem, const ins *x, int depth)
{
    if (!((x->op->classes & OPC_UNARY) && x->nargs == 1 && x->nmods == 0) || depth > 4)
        return false;
    const ins *c = past_layout_pending(x->args[0]);
    if (is_op(c, "multibroadcast") && c->nargs == 1) {
        if (c != x->args[0])
            return stretches_computed_value(c) && readers_take_broadcast(x, x, 0);
        if (!broadcast_sinks_below(x))
            return false;
        const ins *p = c->args[0];
        rule_value pc[2] = {rule_ins((ins *)p), rule_ins((ins *)c)}, twin, pb = rule_ins((ins *)p), below;
        return shape_elements(&c->sh) > shape_elements(&p->sh) && helper_twin_of(mem, pc, 2, &twin) &&
               !(twin.u.i && standard_readers(x)) &&
               !(shape_broadcasted_p(&p->sh) && (!helper_broadcast_composes_below(mem, &pb, 1, &below) || below.u.i));
    }
    /* a two-operand op whose two multibroadcasts merge into one
     * (multibroadcasts_merge) is such a multibroadcast (tuned seed 14260:
     * sin(mb[{2, 4, 3, 2}](tanh(max(mb(s), mb(p1))))) beside a literal) */
    if (one_reader(c) && multibroadcasts_merge(c))
        return readers_take_broadcast(x, x, 0);
    return one_reader(c) && multibroadcast_sinks_through(mem, c, depth + 1) && readers_take_broadcast(x, x, 0);
}

/* composes_with_broadcast(m): see helpers_views.h. */
bool helper_composes_with_broadcast(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    const ins *m = a[0].u.in;
    int64_t axis;
    bool yes = false;
    if (is_op(m, "multibroadcast") && m->nargs == 1) {
        /* through a pending op that only changes the layout, read once:
         * view_through_pending takes it away in every order (a one-operand
         * op sunk below the broadcast leaves one between m and it) */
        const ins *x = past_layout_pending(m->args[0]);
        const ins *c = broadcasts_merging_into(mem, x, 0);
        yes = broadcast_axis_after_at(c ? c : x, m->sh.lens, m->sh.rank, &axis);
        /* a one-operand op u of a multibroadcast c that unary_above_multibroadcast
         * sinks in every order (its guard: c stretches, u's readers take the
         * layout, no twin of c with standard readers of u, c's operand no
         * broadcast that c composes with): m then reads mb(u(p)) and
         * multibroadcast_of_multibroadcast composes the two, as it does a
         * multibroadcast of a multibroadcast, which the merges leave (seed
         * 1021936: max(broadcast[axis=1](s), mb[{4, 2}](tanh(mb[{1, 2}](p2))))
         * of a {1, 1} p2 merged into {1, 2} in the orders that met max
         * first, and ran in {4, 2} on tanh(p2) in those that sank tanh's
         * broadcast first) */
        /* the same once u has sunk: m reads mb(u(p)) through the
         * layout-only pending op the sink leaves, which view_through_pending
         * takes away, and the two multibroadcasts compose (the merges leave
         * a multibroadcast of a multibroadcast, x = !multibroadcast, but saw
         * the pending op) */
        if (!yes && x != m->args[0] && is_op(x, "multibroadcast") && stretches_computed_value(x))
            yes = true;
        if (!yes && x == m->args[0])
            yes = multibroadcast_sinks_through(mem, x, 0);
    }
    *out = rule_bool(yes);
    return true;
}

/* broadcast_axis_after(b, lens): see helpers_views.h. */
bool helper_broadcast_axis_after(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    int64_t axis;
    if (!broadcast_axis_after_at(a[0].u.in, a[1].u.ints, a[1].n, &axis))
        return false;
    *out = rule_int(axis);
    return true;
}

/* broadcast_axis_within(o): see helpers_views.h. */
bool helper_broadcast_axis_within(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *o = a[0].u.in;
    const attr_value *oa = ins_attr(o, "axis");
    if (!is_op(o, "broadcast") || o->nargs != 1 || !oa || oa->kind != ATTR_INT)
        return false;
    const ins *b = o->args[0];
    const attr_value *ba = ins_attr(b, "axis");
    if (!is_op(b, "broadcast") || b->nargs != 1 || !ba || ba->kind != ATTR_INT)
        return false;
    const ins *x = b->args[0];
    int64_t axis = oa->u.i + ba->u.i;
    if (axis < 0 || axis + x->sh.rank > o->sh.rank || ba->u.i + x->sh.rank > b->sh.rank)
        return false;
    for (int i = 0; i < x->sh.rank; i++)
        if (o->sh.lens[axis + i] != x->sh.lens[i] || b->sh.lens[ba->u.i + i] != x->sh.lens[i])
            return false;
    *out = rule_int(axis);
    return true;
}

/* The axis of one broadcast[axis, lens](k) equal to reshape[lens](m) for m
 * = broadcast[axis=a](k): lens are m's but for length-1 axes added or
 * dropped outside k's axes, which keep their place among the longer axes;
 * false where there is none. */
static bool broadcast_axis_reshaped_at(const ins *m, const int64_t *lens, int rank, int64_t *axis)
{
    const attr_value *ax = ins_attr(m, "axis");
    if (!is_op(m, "broadcast") || m->nargs != 1 || !ax || ax->kind != ATTR_INT)
        return false;
    const ins *k = m->args[0];
    int64_t a = ax->u.i;
    int kr = k->sh.rank;
    if (a < 0 || a + kr > m->sh.rank)
        return false;
    for (int t = 0; t + kr <= rank; t++) {
        if (!lens_equal(lens + t, kr, k->sh.lens, kr))
            continue;
        if (unit_lens_only(lens, t, m->sh.lens, (int)a) &&
            unit_lens_only(lens + t + kr, rank - t - kr, m->sh.lens + a + kr, m->sh.rank - (int)a - kr)) {
            *axis = t;
            return true;
        }
    }
    return false;
}

/* broadcast_axis_reshaped(m, lens): see helpers_views.h. */
bool helper_broadcast_axis_reshaped(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    int64_t axis;
    if (!broadcast_axis_reshaped_at(a[0].u.in, a[1].u.ints, a[1].n, &axis))
        return false;
    *out = rule_int(axis);
    return true;
}

/* How many leading 1s of lens a[0..na) a multibroadcast reading it makes
 * up itself: all but the last axis at most (a value of 1s keeps one). */
static int leading_ones(const int64_t *a, int na)
{
    int k = 0;
    while (k < na - 1 && a[k] == 1)
        k++;
    return k;
}

/* a and b are the same lens but for leading 1s (a multibroadcast, which
 * aligns to the last axes, reads either as the other). */
static bool lens_equal_but_leading_ones(const int64_t *a, int na, const int64_t *b, int nb)
{
    int ka = leading_ones(a, na), kb = leading_ones(b, nb);
    return lens_equal(a + ka, na - ka, b + kb, nb - kb);
}

/* same_but_leading_ones(a, b): see helpers_views.h. */
bool helper_same_but_leading_ones(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(lens_equal_but_leading_ones(a[0].u.ints, a[0].n, a[1].u.ints, a[1].n));
    return true;
}

/* without_leading_ones(a): see helpers_views.h. */
bool helper_without_leading_ones(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    int k = leading_ones(a[0].u.ints, a[0].n), nl = a[0].n - k;
    return ints_result(mem, a[0].u.ints + k, nl, out);
}

/* has_reshape_to(y, l): see helpers_views.h. */
bool helper_has_reshape_to(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *y = a[0].u.in;
    bool yes = false;
    for (int k = 0; k < y->nusers && !yes; k++) {
        const ins *s = y->users[k];
        yes = is_op(s, "reshape") && s->nargs == 1 && s->args[0] == y && lens_equal(s->sh.lens, s->sh.rank, a[1].u.ints, a[1].n);
    }
    *out = rule_bool(yes);
    return true;
}

/* with_leading_ones(a, n): see helpers_views.h. */
bool helper_with_leading_ones(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    int64_t l[SHAPE_MAX_RANK];
    int64_t rank = a[1].u.i, k = rank - a[0].n;
    if (rank > SHAPE_MAX_RANK || k < 0)
        return false;
    for (int i = 0; i < rank; i++)
        l[i] = i < k ? 1 : a[0].u.ints[i - k];
    return ints_result(mem, l, (int)rank, out);
}

static bool is_reduction(const ins *x)
{
    return is_op(x, "reduce_sum") || is_op(x, "reduce_mean") || is_op(x, "reduce_max");
}

/* reduction_of_reshape(x): see helpers_views.h. */
static bool reduction_of_reshape(const ins *x)
{
    for (int depth = 0; depth < VIEW_CLUSTER_MAX; depth++) {
        if (x->nargs == 1 && (((x->op->classes & OPC_UNARY) && !is_reduction(x)) || is_op(x, "transpose") || ins_is_pending(x)))
            x = x->args[0];
        else if (x->nargs == 2 && (x->op->classes & OPC_BINARY) && x->args[0] == x->args[1])
            x = x->args[0];
        else
            break;
    }
    return is_reduction(x) && x->nargs == 1 &&
           (shape_view_or_transpose(x->args[0]) || ins_is_pending(x->args[0]));
}

/* reduction_takes_reshape(x): see helpers_views.h. */
static bool reduction_takes_reshape(const ins *x)
{
    return reduction_of_reshape(x) && !(is_reduction(x) && x->args[0]->nusers > 1);
}

bool helper_reduction_takes_reshape(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(reduction_takes_reshape(a[0].u.in));
    return true;
}

bool helper_reduction_of_reshape(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(reduction_of_reshape(a[0].u.in));
    return true;
}

static bool unit_reshape_below_of(const ins *m, bool aligned);

/* u is a one-operand pointwise op read once that unary_above_reshape moves
 * above the reshape it reads (or the shape op of a standard value, which
 * becomes one), read by u alone, in every order: u's value is not
 * constant, u waits on no cluster, and the reshape neither becomes a
 * broadcast nor waits for a squeeze or unsqueeze of one below it. (The
 * rule's other wait, for a reshape below r that composes with r to y's
 * own lens, reshape_composes_below, is not asked: u then reads y with no
 * reshape between, as if it had risen.) */
static bool unary_rises_above_reshape(const ins *u)
{
    if (!((u->op->classes & OPC_UNARY) && u->nargs == 1 && u->nmods == 0 && one_reader(u)))
        return false;
    const ins *r = u->args[0];
    if (!(r->nargs == 1 && one_reader(r) &&
          (is_op(r, "reshape") || ((r->op->classes & OPC_SHAPE) && shape_standard_p(&r->args[0]->sh)))) ||
        view_is_constant(r->args[0]))
        return false;
    rule_value pu = rule_ins((ins *)u), pr = rule_ins((ins *)r), cl, bb;
    return helper_in_reshape_cluster(NULL, &pu, 1, &cl) && !cl.u.i && helper_becomes_broadcast(NULL, &pr, 1, &bb) && !bb.u.i &&
           !squeeze_composes_into_reshape(r);
}

/* rises_above_reader(r): see helpers_views.h. */
bool helper_rises_above_reader(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *r = a[0].u.in;
    *out = rule_bool(one_reader(r) && unary_rises_above_reshape(r->users[0]));
    return true;
}

static bool unit_reshape_below(const ins *m) { return unit_reshape_below_of(m, false); }

/* v below the transposes to their operand's own lens and the layout-only
 * pending ops over it, each read once. */
static const ins *skip_same_lens_views(const ins *v)
{
    for (int depth = 0; depth < VIEW_CLUSTER_MAX && v->nargs == 1 && one_reader(v); depth++) {
        const ins *x = v->args[0];
        if (!lens_equal(x->sh.lens, x->sh.rank, v->sh.lens, v->sh.rank) || !(is_op(v, "transpose") || ins_is_pending(v)))
            break;
        v = x;
    }
    return v;
}

/* The same, where `aligned` also takes a broadcast[axis] that puts its
 * operand's axes last for the multibroadcast that
 * aligned_broadcast_to_multibroadcast makes it in every order. */
static bool unit_reshape_below_of(const ins *m, bool aligned)
{
    bool yes = false;
    /* one-operand ops read once over such a reshape r, read by them
     * alone, rise above it in every order (unary_above_reshape: r's one
     * reader keeps no copy beside it) and m then reads r of them, so r is
     * asked as m's operand, of a value that is neither a constant nor a
     * reduction (seed 1071471: add(mb(relu(squeeze(reshape(reshape(abs(
     * mb[{1, 2}](p1))))))), mb(p3)) merged into {2} in the orders that met
     * add before relu rose, and kept add(mb(relu(abs(p1))), mb(p3)), one
     * view fewer, in those that moved relu first) */
    const ins *top = m->nargs == 1 ? m->args[0] : NULL;
    bool risen = false;
    for (int depth = 0; top && depth < VIEW_CLUSTER_MAX && unary_rises_above_reshape(top); depth++) {
        top = top->args[0];
        risen = true;
    }
    /* a squeeze, unsqueeze or flatten of a standard value becomes such a
     * reshape (*_to_reshape) */
    if ((is_op(m, "multibroadcast") || (aligned && aligned_broadcast(m))) && top && top->nargs == 1 &&
        (is_op(top, "reshape") || ((top->op->classes & OPC_SHAPE) && shape_standard_p(&top->args[0]->sh)))) {
        const ins *r = top, *x = r->args[0];
        /* reshapes below r (and shape ops of standard values, which
         * become reshapes) compose with it in every order
         * (reshape_of_reshape): r is then a reshape of the first value
         * below them, and asked as such (seed 1071471: add(mb(reshape[{2}](
         * reshape[{2, 1}](abs(mb[{1, 2}](p1))))), mb(p3)) merged into {2}
         * in the orders that met add before the two reshapes composed into
         * one that drops a leading 1, and kept add(mb(abs(p1)), mb(p3)),
         * one view fewer, in those that composed them first) */
        const attr_value *dims = ins_attr(r, "dims");
        bool composes = true;
        for (int k = 0; dims && k < dims->n; k++)
            composes = composes && dims->u.ints[k] != 0;
        for (int depth = 0; composes && depth < VIEW_CLUSTER_MAX && x->nargs == 1; depth++) {
            if (unary_rises_above_reshape(x))
                risen = true;
            else if (!(is_op(x, "reshape") || ((x->op->classes & OPC_SHAPE) && shape_standard_p(&x->args[0]->sh))))
                break;
            x = x->args[0];
        }
        /* a reshape that only adds or drops leading 1s goes into the
         * multibroadcast even above a reduction itself: the leading 1s of a
         * reduction a multibroadcast reads are its own
         * (multibroadcast_of_reduce_of_reshape) */
        bool same = x->sh.rank <= m->sh.rank && lens_equal_but_leading_ones(x->sh.lens, x->sh.rank, r->sh.lens, r->sh.rank);
        yes = !view_is_constant(x) && shape_elements(&r->sh) > 1 &&
              ((same && (risen || !reduction_takes_reshape(x))) ||
               (!same && (risen || !reduction_of_reshape(x)) && leading_ones(r->sh.lens, r->sh.rank) > 0 && one_reader(r)));
    }
    /* a reduction with leading 1s of a reshape read by it alone, whose
     * axes the reshape's operand has (reduce_axes_through), becomes a
     * reshape of the reduction below it (reduce_below_reshape), which the
     * multibroadcast then drops (round s29B; seed 1020076:
     * max(mb(mb[{1, 1, 4}](s)), mb(reduce_mean(.))) of a {1, 1} s merged
     * into {1, 1, 4} in the orders that met max before the reshape came
     * below the reduction, and stayed in {1, 2, 4} in the others).
     * Transposes to their operand's own lens and layout-only pending ops
     * on either side of the reduction go in every order (identity_transpose,
     * view_through_pending), and a squeeze or unsqueeze of a standard
     * value becomes a reshape (squeeze_to_reshape). */
    if (!yes && is_op(m, "multibroadcast") && m->nargs == 1) {
        const ins *d = skip_same_lens_views(m->args[0]);
        const ins *v = d->nargs == 1 ? skip_same_lens_views(d->args[0]) : d;
        const attr_value *a = ins_attr(d, "axes");
        int64_t r[SHAPE_MAX_RANK];
        int nr = 0;
        if (a && is_reduction(d) && d->nargs == 1 && one_reader(d) && d->sh.rank == m->sh.rank &&
            leading_ones(d->sh.lens, d->sh.rank) > 0 && shape_elements(&d->sh) > 1 &&
            v != d && v->nargs == 1 && one_reader(v) && v->sh.rank == d->sh.rank &&
            (is_op(v, "reshape") || ((v->op->classes & OPC_SHAPE) && shape_standard_p(&v->args[0]->sh))) &&
            !view_is_constant(v->args[0]) &&
            reduce_axes_map(v->args[0]->sh.lens, v->args[0]->sh.rank, v->sh.lens, v->sh.rank, a->u.ints, a->n, r, &nr) && nr > 0)
            yes = true;
    }
    return yes;
}

/* unit_reshape_below(m): see helpers_views.h. */
bool helper_unit_reshape_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(unit_reshape_below(a[0].u.in));
    return true;
}

/* Every reader of r drops it (unit_reshape_below). */
static bool dropped_below(const ins *r)
{
    bool yes = r->nusers > 0;
    for (int k = 0; k < r->nusers && yes; k++)
        yes = unit_reshape_below_of(r->users[k], true);
    return yes;
}

/* dropped_below(r): see helpers_views.h. */
bool helper_dropped_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(dropped_below(a[0].u.in));
    return true;
}

/* b is a broadcast[axis] of one value that puts the value's axes last: the
 * multibroadcast aligned_broadcast_to_multibroadcast makes it (its guard,
 * a + x.rank == b.rank). */
static bool aligned_broadcast(const ins *b)
{
    const attr_value *ax = ins_attr(b, "axis");
    return is_op(b, "broadcast") && b->nargs == 1 && ax && ax->kind == ATTR_INT &&
           ax->u.i + b->args[0]->sh.rank == b->sh.rank;
}

/* q, a reader of a cluster's sink, is a broadcast (a multibroadcast, or a
 * broadcast[axis] that puts its operand's axes last and becomes one,
 * aligned_broadcast_to_multibroadcast) read by a two-operand op whose
 * other operand is such a broadcast too: the merges of two broadcasts
 * (binary_above_multibroadcasts and its _into_ forms) may still take that
 * op under one broadcast where one operand's value broadcasts to the
 * other's (their guard; values of other lens never merge, so the wait
 * asks no more: seed 2038861, add(mb(max(p3, p4)), mb(max)) of a
 * {3, 1, 3} and a {3, 4, 1} value), which makes it a cluster op reading the sink,
 * and its other operand's value a leaf, so the cluster's sink and lens
 * change (round s55C, seed 6003093 at --ops 24: mul(broadcast[axis=1](max),
 * broadcast[axis=1](s)) of a {3} s, where max's cluster ran in p2's
 * {1, 3} before the merge and in {3} after). */
static bool sink_broadcast_merges(const ins *q)
{
    if (!(is_op(q, "multibroadcast") || aligned_broadcast(q)))
        return false;
    for (int k = 0; k < q->nusers; k++) {
        const ins *w = q->users[k];
        if (!((w->op->classes & OPC_BINARY) && w->nargs == 2) || w->args[0] == w->args[1])
            continue;
        const ins *o = w->args[0] == q ? w->args[1] : w->args[0];
        if (!(is_op(o, "multibroadcast") || aligned_broadcast(o)) || o->nargs != 1 || q->nargs != 1)
            continue;
        if (lens_broadcast_either_way(&q->args[0]->sh, &o->args[0]->sh))
            return true;
    }
    return false;
}

/* o is a broadcast of a computed value that stretches an axis. */
static bool stretching_broadcast_of_computed(const ins *o)
{
    return broadcast_op(o) && o->nargs == 1 && !unit_broadcast(o) && shape_broadcasted_p(&o->sh) &&
           !view_is_constant(o->args[0]);
}

/* o, past layout-only pending ops (which the pending rules take away in
 * every order), is such a broadcast, or a one-operand op over one read
 * once: the shape of a value that is or becomes a broadcast. */
static bool broadcast_or_sinking(const ins *o)
{
    for (int d = 0; d < VIEW_CLUSTER_MAX && ins_is_pending(o) && o->nargs == 1; d++)
        o = o->args[0];
    o = identity_shape_chain_start(o);
    return stretching_broadcast_of_computed(o) ||
           ((o->op->classes & OPC_UNARY) && o->nargs == 1 && o->nmods == 0 && one_reader(o->args[0]) &&
            stretching_broadcast_of_computed(o->args[0]));
}

/* Leaf x of a cluster (past shape ops and transposes, which a broadcast
 * layout passes through) is a value that still becomes a broadcast: a
 * one-operand op whose broadcast sinks below it (broadcast_sinks_below),
 * a two-operand op whose multibroadcasts merge (merges_into_broadcast), or
 * a two-operand op each of whose operands is a stretching broadcast or a
 * one-operand op over one, which sink and then merge (unary_above_*
 * broadcast, binary_above_multibroadcast_and_broadcast and the like). Its
 * reader in the cluster then reads a broadcast and leaves the cluster,
 * which changes the cluster's leaves and lens (round s55C, seed 11016898
 * at --ops 24: sigmoid(reshape[{2, 2}](add(mb(s), literal))) read by
 * add(., mul(sin(mb(p2)), tanh(broadcast(s')))) ran in {2, 2} while mul's
 * broadcasts stood above sin and tanh, and alone in add's {4} after they
 * sank and merged). The test is of the shape only, not of the rules'
 * guards of that moment (a transpose that folds away, or a pending op,
 * between mul and its reader hid the sink from readers_take_broadcast in
 * one order): where those rules never fire the leaf keeps that shape, and
 * the wait it makes holds alike in every order. */
static bool leaf_becomes_broadcast(const ins *x)
{
    for (int d = 0; d < VIEW_CLUSTER_MAX && x->nargs == 1 && !broadcast_op(x) &&
                    shape_view_or_transpose(x);
         d++)
        x = x->args[0];
    if (broadcast_or_sinking(x) || merges_into_broadcast(x))
        return true;
    return (x->op->classes & OPC_BINARY) && x->nargs == 2 && x->nmods == 0 && x->args[0] != x->args[1] &&
           broadcast_or_sinking(x->args[0]) && broadcast_or_sinking(x->args[1]);
}

/* reader_cluster_unsettled(r): see helpers_views.h. */
bool helper_reader_cluster_unsettled(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *r = a[0].u.in;
    bool yes = false;
    for (int k = 0; k < r->nusers && !yes; k++) {
        if (!is_cluster_op(r->users[k]))
            continue;
        const ins *s = cluster_root(r->users[k]);
        for (int d = 0; s && d < VIEW_CLUSTER_MAX && one_reader(s) && is_reshape(s->users[0]); d++)
            s = s->users[0];
        for (int q = 0; s && q < s->nusers && !yes; q++)
            yes = aligned_broadcast(s->users[q]) || sink_broadcast_merges(s->users[q]);
        cluster c;
        if (!yes && cluster_of(r->users[k], &c))
            for (int q = 0; q < c.nleaves && !yes; q++)
                yes = leaf_becomes_broadcast(c.leaves[q]);
    }
    *out = rule_bool(yes);
    return true;
}

/* What broadcast_composes_below asks in place of a broadcast's operand
 * x: below x, a chain of shape ops of standard values down to a cluster
 * op y whose lens (or cluster lens) are x's folds away in every order
 * (reshape_of_reshape, reshape_to_same_shape), so y is asked; x itself
 * otherwise. Seen before the chain folds, the broadcast composed with its
 * multibroadcast in some orders and became a reshape in the others (seed
 * 1066770: broadcast[axis=0, {4, 1, 1}](reshape[{4}](reshape[{2, 2,
 * 1}](relu))) of a {4} relu under mb[{4, 3, 2}]). */
static const ins *past_folding_shape_ops(const ins *x)
{
    const ins *y = x;
    while ((y->op->classes & OPC_SHAPE) && y->nargs == 1 && shape_standard_p(&y->args[0]->sh))
        y = y->args[0];
    int64_t cl[SHAPE_MAX_RANK];
    int ncl;
    if (y != x && is_cluster_op(y) &&
        (lens_equal(y->sh.lens, y->sh.rank, x->sh.lens, x->sh.rank) ||
         (view_cluster_lens(y, cl, &ncl) && lens_equal(cl, ncl, x->sh.lens, x->sh.rank))))
        return y;
    return x;
}

/* broadcast_composes_below(m): see helpers_views.h. */
bool helper_broadcast_composes_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *m = a[0].u.in;
    bool yes = false;
    /* a broadcast[axis] that puts its value's axes last is the
     * multibroadcast aligned_broadcast_to_multibroadcast makes it, in
     * every order (seed 1015072: tanh(mb[{3, 4}](broadcast[axis=1](p0)))
     * of a {1} p0 sank between the two in the orders that reached tanh
     * first) */
    bool bcast = is_op(m, "broadcast") && !aligned_broadcast(m);
    /* One element: only a broadcast or multibroadcast of a value that is
     * no pointwise op, read directly by a multibroadcast it composes with
     * (seeds 8617, 8642: mb(mb(x)) of a one-element parameter ended as
     * mb(x) or mb(reshape(x)) by order; the same of a broadcast[axis],
     * 1009010: mb(broadcast[axis=1](x))), or by a broadcast[axis] that puts
     * its axes last, which aligned_broadcast_to_multibroadcast makes such a
     * multibroadcast (1023754: mb[{4, 1, 1, 1}](x) or mb(reshape(x)) by
     * order). The clusters take a one-element multibroadcast that stretches
     * nothing as a reshape (unit_broadcast), so a pointwise op's keeps the
     * reshape spelling: composed, the core's mb(mb(add(p3, p4))) ended as
     * mb(add) where the noisy graph's add(mb(p3), mb(p4)) was moved into
     * {1} by the clusters and kept mb(reshape(add)) (seeds 17775, 17793);
     * the multibroadcast merges wait for that reshape instead
     * (multibroadcast_of_multibroadcast, multibroadcast_of_broadcast ask
     * this helper). The value is judged below the shape ops of one element
     * over it, which fold away under the broadcast in some orders before
     * it is judged (squeeze(sigmoid(unsqueeze(x))): 1000243, 1014248),
     * and below its transposes: every axis of a one-element value has
     * length 1, so each transpose of it keeps its lens and moves only
     * length-1 axes, and identity_transpose or unit_axes_transpose takes
     * it away in every order. Judged at the transpose, the broadcast of a
     * pointwise op composed with its multibroadcast in the orders that
     * reached it before the fold, and became the clusters' reshape in the
     * others (seed 1061266: mb[{3, 3, 4}](mb[{1, 1, 1}](transpose(sin)))
     * ended as mb(sin) or mb(reshape(sin)) by order; 1057024, the same of
     * a broadcast[axis=1]). */
    if (shape_elements(&m->sh) == 1) {
        const ins *x = m->nargs == 1 ? m->args[0] : NULL;
        while (x && x->nargs == 1 && shape_view_or_transpose(x))
            x = x->args[0];
        if (broadcast_op(m) && x && !is_cluster_op(x))
            for (int k = 0; k < m->nusers && !yes; k++) {
                const ins *r = m->users[k];
                const attr_value *l = ins_attr(r, "out_lens");
                int64_t axis;
                if (r->nargs != 1)
                    continue;
                if (is_op(r, "multibroadcast"))
                    yes = !bcast || (l && l->kind == ATTR_INTS && l->n > 0 && broadcast_axis_after_at(m, l->u.ints, l->n, &axis));
                else if (is_op(r, "broadcast"))
                    yes = aligned_broadcast(r);
            }
        *out = rule_bool(yes);
        return true;
    }
    /* of a one-operand op whose broadcast sinks below it
     * (unary_above_*broadcast): the two broadcasts then compose (seed
     * 1016938: mb[{1, 4, 4}](sigmoid(mb[{4, 4}](neg(p0)))) made a reshape
     * first kept sigmoid above the inner broadcast, where the other orders
     * reached sigmoid(mb[{1, 4, 4}](neg(p0)))) */
    if (is_op(m, "multibroadcast") && m->nargs == 1 && broadcast_sinks_below(m->args[0])) {
        *out = rule_bool(true);
        return true;
    }
    /* a broadcast[axis] that stretches nothing, of b(u, u), u a
     * one-operand op whose broadcast[axis] sinks below it, or has sunk and
     * left the pending op unary_above_broadcast moves below u: the two
     * broadcasts then compose (composes_into_axis_broadcast), the spelling
     * of the graph whose u already ran below its broadcast. Made a reshape
     * first, the broadcast let its readers' cluster run in its operand's
     * lens, where the other graph's cluster kept the reader's lens (seed
     * 2015991: broadcast[axis=0, {4, 3, 1}](sub(sin(broadcast[axis=0, {4,
     * 3}](p8)), same)) read by a sub under a dot: the cluster moved into
     * {4, 3} and kept three views where the core composed the two
     * broadcasts and kept two). */
    if (composes_into_axis_broadcast(m)) {
        const ins *u = m->args[0]->args[0];
        if (pending_is_transparent(u) || broadcast_sinks_below(u)) {
            *out = rule_bool(true);
            return true;
        }
    }
    /* a broadcast[axis] of a pointwise op (asked past the shape ops that
     * fold away under it): the clusters take it as a reshape (seeds 5970,
     * 5543) */
    if (broadcast_op(m) && m->nargs == 1 && !(bcast && is_cluster_op(past_folding_shape_ops(m->args[0]))))
        for (int k = 0; k < m->nusers && !yes; k++) {
            const ins *r = m->users[k];
            const attr_value *l = ins_attr(r, "out_lens");
            /* a pending shape change between them goes first
             * (view_through_pending) */
            if (ins_is_pending(r)) {
                yes = true;
                continue;
            }
            if (!is_op(r, "multibroadcast") || r->nargs != 1 || r->args[0] != m || !l || l->kind != ATTR_INTS || l->n == 0)
                continue;
            if (!bcast) {
                yes = true;
                continue;
            }
            int64_t axis;
            yes = broadcast_axis_after_at(m, l->u.ints, l->n, &axis);
        }
    *out = rule_bool(yes);
    return true;
}

/* broadcasts_to(a, b): see helpers_views.h. */
bool helper_broadcasts_to(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(shape_lens_broadcast_to(a[0].u.ints, a[0].n, a[1].u.ints, a[1].n));
    return true;
}

/* The strides of multibroadcast[lens](a value of shape s): s's strides on
 * the axes it keeps, 0 on those it stretches or adds. */
static void broadcast_strides(const shape *s, const int64_t *lens, int rank, int64_t *strides)
{
    for (int i = 0; i < rank; i++) {
        int j = i - (rank - s->rank);
        strides[i] = j >= 0 && s->lens[j] == lens[i] ? s->strides[j] : 0;
    }
}

/* The strides b(x, y) has once the multibroadcast merges rebuild it as
 * m(b(x, y)) (in `outer`, of b's rank); false where it cannot be so
 * rebuilt. */
static bool merged_strides(const ins *b, const ins *x, const ins *y, int64_t *outer)
{
    if (b->nargs != 2 || x->sh.rank > b->sh.rank || y->sh.rank > b->sh.rank)
        return false;
    /* b(x, y) with the smaller operand broadcast to the larger's lens, as
     * the merging rules build it; its layout from b's own shape rule */
    bool x_small = shape_elements(&x->sh) < shape_elements(&y->sh);
    const shape *big = x_small ? &y->sh : &x->sh, *small = x_small ? &x->sh : &y->sh;
    int64_t st[SHAPE_MAX_RANK];
    broadcast_strides(small, big->lens, big->rank, st);
    shape in[2] = {*big, shape_with_strides(small->type, big->rank, big->lens, st)};
    if (x_small) {
        shape t = in[0];
        in[0] = in[1];
        in[1] = t;
    }
    shape inner;
    if (!binary_shape_of(b, in, &inner))
        return false;
    /* ... then multibroadcast to b's lens */
    broadcast_strides(&inner, b->sh.lens, b->sh.rank, outer);
    return true;
}

/* b's value goes, through a chain of shape ops and pending shape changes
 * each read once, to one of b's own lens whose layout reaches an output:
 * the chain composes into a reshape to b's shape, which goes
 * (reshape_of_reshape, reshape_to_same_shape), so the output reads that
 * value's strides in every order, as it does once the chain has composed
 * (seed 1031353: mul(broadcast(p5), mb(sub)) under unsqueeze, squeeze and
 * two reshapes that end at its lens, returned, merged into a broadcast and
 * a copy in the orders that met mul before the chain composed). Like the
 * pending branch of strides_change_at_output, the merge copies only where
 * those strides are b's now and the rebuilt ones differ: a pending op at
 * the end asks for the strides the graph returned before, which may be
 * the merged ones (round s42C; tuned seed 5693: mul standard under a
 * pending op back to the broadcast layout, under a squeeze, returned;
 * compared with mul's own strides the merge was refused there, and the
 * squeeze met the merged broadcast through a pending op and copied). */
static bool returned_through_shapes(const ins *b, const int64_t *outer)
{
    const ins *v = b;
    for (int depth = 0; depth <= VIEW_CLUSTER_MAX && one_reader(v); depth++) {
        const ins *r = v->users[0];
        if (!(((r->op->classes & OPC_SHAPE) || ins_is_pending(r)) && r->nargs == 1 && r->nmods == 0))
            break;
        v = r;
        if (shape_same_lens(&v->sh, &b->sh) && layout_reaches_output(v, 0))
            return long_axes_strides_differ(&b->sh, v->sh.strides, outer) &&
                   !long_axes_strides_differ(&b->sh, v->sh.strides, b->sh.strides);
    }
    return false;
}

/* b rebuilt with strides `outer` (of b's rank) has other strides than
 * now, length-1 axes aside, and they reach an output: it would need a
 * copy there. */
static bool strides_change_at_output(const ins *b, const int64_t *outer)
{
    /* Read through a chain of pending shape changes and contiguous ops of
     * b's lens and b(v, v) ops, each read once, that ends at the @return:
     * the output keeps the strides the last value of the chain has (a
     * pending op asks for the strides the graph returned before the
     * rewrite that left it, a contiguous for the layout it copies to), not
     * necessarily b's own. The merge copies where b has those strides now
     * (no copy without it) and the rebuilt value would not. Before, b's
     * strides were compared with the rebuilt ones and the chain was not
     * followed past the pending op (which is no view), so the merge went
     * on in the orders that met b behind the pending op that
     * binary_through_pending_* leaves (seed 1021710: sub(mb(x), mb(y))
     * under max(v, v) returned; where b's strides already differ from the
     * output's, as add(mb(x), mb(y)) of two broadcasts of one layout, the
     * copy is there either way and the merge saves a view, seed 1006589) */
    const ins *v = b;
    bool pending = false;
    for (int depth = 0; depth <= VIEW_CLUSTER_MAX && one_reader(v); depth++) {
        const ins *r = v->users[0];
        if ((is_op(r, "pending_shape_change") || is_op(r, "contiguous")) && r->nargs == 1 &&
            shape_same_lens(&r->sh, &b->sh))
            pending = true;
        else if (!((r->op->classes & OPC_BINARY) && r->nargs == 2 && r->args[0] == v && r->args[1] == v &&
                   r->nmods == 0))
            break;
        v = r;
    }
    if (pending && one_reader(v) && (v->users[0]->op->classes & OPC_BUILTIN))
        return long_axes_strides_differ(&b->sh, v->sh.strides, outer) &&
               !long_axes_strides_differ(&b->sh, v->sh.strides, b->sh.strides);
    return (long_axes_strides_differ(&b->sh, b->sh.strides, outer) && layout_reaches_output(b, 0)) ||
           returned_through_shapes(b, outer);
}

/* v's strides reach an output (the @return, an opaque op or a region)
 * as layout_reaches_output follows them, and also through shape ops and
 * pending shape changes: a reshape of a broadcast is no view of it, so
 * the output then asks for a copy of what v's layout gave for free. */
static bool value_reaches_output(const ins *v, int depth)
{
    return output_reached(v, true, depth);
}

/* b(x, y) rebuilt as m(b(x, y)) by the multibroadcast merges changes
 * strides that reach an output. false where b cannot be so rebuilt. */
static bool copies_at_output(const ins *b, const ins *x, const ins *y)
{
    int64_t outer[SHAPE_MAX_RANK];
    return merged_strides(b, x, y, outer) && strides_change_at_output(b, outer);
}

/* copies_at_output(b, x, y): see helpers_views.h. */
bool helper_copies_at_output(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *b = a[0].u.in, *x = a[1].u.in, *y = a[2].u.in;
    if (b->nargs != 2 || x->sh.rank > b->sh.rank || y->sh.rank > b->sh.rank)
        return false;
    *out = rule_bool(copies_at_output(b, x, y));
    return true;
}

/* m (a multibroadcast), read in r's lens as a view, is v multibroadcast
 * to r's lens, length-1 axes aside; v is m's operand, or the operand of
 * a standard reshape of a standard value that m reads (so that m's strides
 * count in v's memory). */
static bool regroups_to(const ins *r, const ins *m, const ins *v)
{
    const ins *q = m->args[0];
    const shape *rs = &r->sh;
    if (v != q && !(v == q->args[0] && shape_standard_p(&q->sh) && shape_standard_p(&v->sh)))
        return false;
    if (v->sh.rank > rs->rank || !shape_lens_broadcast_to(v->sh.lens, v->sh.rank, rs->lens, rs->rank))
        return false;
    int64_t viewed[SHAPE_MAX_RANK], direct[SHAPE_MAX_RANK];
    bool same = shape_regroup_strides(&m->sh, rs->rank, rs->lens, viewed);
    broadcast_strides(&v->sh, rs->lens, rs->rank, direct);
    for (int i = 0; i < rs->rank && same; i++)
        same = rs->lens[i] == 1 || viewed[i] == direct[i];
    return same;
}

/* regroups_to_broadcast(r, v): see helpers_views.h. */
bool helper_regroups_to_broadcast(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *r = a[0].u.in, *v = a[1].u.in;
    if (r->nargs != 1)
        return false;
    const ins *m = r->args[0];
    if (!is_op(m, "multibroadcast") && m->nargs == 1 && (m->op->classes & OPC_UNARY))
        m = m->args[0];
    /* or through a two-operand op whose other operand is a literal, which
     * the reshape of it folds into (reshape_of_binary_of_multibroadcast_*) */
    else if (!is_op(m, "multibroadcast") && m->nargs == 2 && (m->op->classes & OPC_BINARY) && m->nmods == 0 &&
             is_op(m->args[0], "multibroadcast") != is_op(m->args[1], "multibroadcast") &&
             (is_op(m->args[0], "@literal") || is_op(m->args[1], "@literal")))
        m = is_op(m->args[0], "multibroadcast") ? m->args[0] : m->args[1];
    /* or through a shape op read once: r then sees m's memory through both,
     * which is m's memory seen in r's lens, as for r on m directly */
    else if (!is_op(m, "multibroadcast") && m->nargs == 1 && (m->op->classes & OPC_SHAPE) && one_reader(m))
        m = m->args[0];

    if (m->nargs != 1 || !is_op(m, "multibroadcast"))
        return false;
    const ins *q = m->args[0];
    bool yes = regroups_to(r, m, v);
    /* the reshape's operand where it does too: one view fewer */
    if (yes && v == q && is_op(q, "reshape") && q->nargs == 1 && regroups_to(r, m, q->args[0]))
        yes = false;
    *out = rule_bool(yes);
    return true;
}

/* r reads a broadcast as it is, whatever its strides: a dot, an output
 * or another builtin, an opaque or region op, an op with submodules. */
static bool keeps_broadcast_reader(const ins *r)
{
    return is_op(r, "dot") || is_output_reader(r);
}

/* broadcast_stays(m): see helpers_views.h. */
bool helper_broadcast_stays(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(every_reader(a[0].u.in, keeps_broadcast_reader));
    return true;
}

/* v is a stretching broadcast of a computed value, or a value that
 * becomes one in every order: a two-operand op whose broadcasts merge
 * (merges_into_broadcast), or a one-operand op whose broadcast sinks below
 * it (broadcast_sinks_below). */
static bool stretching_broadcast_bound(const ins *v)
{
    if (broadcast_op(v) && v->nargs == 1 && v->nmods == 0)
        return stretches_computed_value(v);
    return merges_into_broadcast(v) || broadcast_sinks_below(v);
}

/* w is a transpose read only by dots (a dot operand's transpose stays,
 * the IR has no operand permutation): no cluster op, and it reads its
 * operand's value as it is, in its lens, so to the reshape rules that ask
 * readers_keep_broadcast_or it is a reader that keeps a broadcast. Not
 * one read by an output, which keeps the transposed layout of what it
 * reads (seed 1023407: abs(mb(k)) transposed back for the output became
 * a contiguous of a broadcast). Seed 1047554:
 * reshape[{2, 3}](sigmoid(mb[{2, 1, 3}](y))) transposed for a dot stayed
 * in the orders that merged sigmoid's operand into a broadcast first,
 * where the others ran sigmoid in {2, 3} on mb[{2, 3}](y). */
static bool transposed_for_dots(const ins *w)
{
    if (!is_op(w, "transpose") || w->nargs != 1 || w->nmods != 0 || w->nusers == 0)
        return false;
    for (int k = 0; k < w->nusers; k++)
        if (!is_op(w->users[k], "dot"))
            return false;
    return true;
}

/* r's value is a broadcast of one element, or a one-operand op of one:
 * the rules that ask readers_keep_broadcast_or of such an r leave u of a
 * one-element broadcast, which sinks below u only where u's readers take
 * a broadcast's layout themselves (a transpose between keeps u above it:
 * seed 2046633, neg(mb[{4, 2, 4}](tanh(p))) transposed for a dot, where
 * the core sank neg first and kept squeeze(mb(neg(tanh(p))))). */
static bool over_one_element_broadcast(const ins *r)
{
    const ins *u = r->nargs == 1 ? r->args[0] : NULL;
    if (u && u->nargs == 1 && (u->op->classes & OPC_UNARY))
        u = u->args[0];
    return u && broadcast_op(u) && u->nargs == 1 &&
           shape_elements(&u->args[0]->sh) == 1;
}

/* Every reader of r keeps a broadcast as it is (keeps_broadcast_reader,
 * or through a transpose, transposed_for_dots, where r's value is no
 * broadcast of one element) or passes fits(w, r); r has a reader. The
 * reader walk of beside_broadcast_readers and readers_in_cluster_lens. */
static bool readers_keep_broadcast_or(const ins *r, bool (*fits)(const ins *w, const ins *r))
{
    if (r->nusers == 0)
        return false;
    bool many = !over_one_element_broadcast(r);
    for (int k = 0; k < r->nusers; k++) {
        const ins *w = r->users[k];
        if (!keeps_broadcast_reader(w) && !(many && transposed_for_dots(w)) && !fits(w, r))
            return false;
    }
    return true;
}

/* w is a two-operand op whose other operand is a stretching broadcast or
 * becomes one (stretching_broadcast_bound). */
static bool beside_stretching_broadcast(const ins *w, const ins *r)
{
    return (w->op->classes & OPC_BINARY) && w->nargs == 2 && w->args[0] != w->args[1] &&
           stretching_broadcast_bound(other_operand(w, r));
}

/* beside_broadcast_readers(r): see helpers_views.h. */
bool helper_beside_broadcast_readers(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(readers_keep_broadcast_or(a[0].u.in, beside_stretching_broadcast));
    return true;
}

/* w is a pointwise op in r's lens whose cluster runs it in those lens. */
static bool runs_in_cluster_lens(const ins *w, const ins *r)
{
    return lens_equal(w->sh.lens, w->sh.rank, r->sh.lens, r->sh.rank) && runs_in_own_cluster_lens(w);
}

/* squeeze_read_by_binary(r): see helpers_views.h. */
bool helper_squeeze_read_by_binary(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *r = a[0].u.in;
    *out = rule_bool(r->nargs == 1 && r->nusers == 1 &&
                     drops_unit_axes(r->sh.lens, r->sh.rank, r->args[0]->sh.lens, r->args[0]->sh.rank) &&
                     binary_reads_squeeze(r->users[0], r));
    return true;
}

/* readers_in_cluster_lens(r): see helpers_views.h. */
bool helper_readers_in_cluster_lens(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(readers_keep_broadcast_or(a[0].u.in, runs_in_cluster_lens));
    return true;
}

/* unit_fold_readers(r): see helpers_views.h. Not an output (which
 * readers_in_cluster_lens takes as a reader that keeps a broadcast): an
 * output keeps the layout it reads, so the squeeze of mb(u(y)) returned
 * folded by order against the shape ops below it (seed 2053111). */
static bool unit_fold_reader(const ins *w, const ins *r)
{
    return is_op(w, "dot") || transposed_for_dots(w) || runs_in_cluster_lens(w, r) ||
           beside_full_value_laid(w, r, true);
}

bool helper_unit_fold_readers(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *r = a[0].u.in;
    bool yes = r->nusers > 0;
    for (int k = 0; k < r->nusers && yes; k++)
        yes = unit_fold_reader(r->users[k], r);
    *out = rule_bool(yes);
    return true;
}

/* reshape_fold_fits(r): see helpers_views.h. */
bool helper_reshape_fold_fits(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *r = a[0].u.in;
    const ins *u = r->nargs == 1 ? r->args[0] : NULL;
    *out = rule_bool(u && reshape_folds_into_multibroadcast(r, u) != NULL);
    return true;
}

/* w is read only by x's own chain of one-operand ops (x = u1(..(un(w)))):
 * no broadcast that stays. The chain's ops sink below it
 * (unary_above_multibroadcast) or the reshape of x folds into it (the
 * reshape clause of reshape_of_unary_of_multibroadcast), and either way
 * w is gone, so the fold into x's lens saves no view there. */
static bool own_chain_broadcast(const ins *w, const ins *x)
{
    if (w->nusers != 1)
        return false;
    const ins *v = x;
    for (int d = 0; d < VIEW_CLUSTER_MAX && pointwise_unary(v); d++) {
        if (v->args[0] == w)
            return true;
        v = v->args[0];
    }
    return false;
}

/* broadcast_twin_in(m, x): see helpers_views.h. */
bool helper_broadcast_twin_in(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *m = a[0].u.in, *x = a[1].u.in;
    bool yes = false;
    if (m->nargs == 1 && is_op(m, "multibroadcast")) {
        const ins *k = m->args[0];
        for (int i = 0; i < k->nusers && !yes; i++) {
            const ins *w = k->users[i];
            yes = w != m && is_op(w, "multibroadcast") && w->nargs == 1 && w->nmods == 0 &&
                  lens_equal(w->sh.lens, w->sh.rank, x->sh.lens, x->sh.rank) && !own_chain_broadcast(w, x);
        }
    }
    *out = rule_bool(yes);
    return true;
}

/* hoist_keeps_strides(m): see helpers_views.h. */
bool helper_hoist_keeps_strides(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *m = a[0].u.in;
    if (m->nargs != 1 || !is_op(m, "multibroadcast"))
        return false;
    const ins *b = m->args[0];
    if (b->nargs != 2 || !(b->op->classes & OPC_BINARY) || b->sh.rank > m->sh.rank)
        return false;
    /* each operand of b multibroadcast to m's lens: the inner multibroadcast
     * composes with m, and the literal folds with m's copy */
    shape in[2];
    for (int k = 0; k < 2; k++) {
        const ins *v = b->args[k];
        if (is_op(v, "multibroadcast") && v->nargs == 1)
            v = v->args[0];
        if (v->sh.rank > m->sh.rank)
            return false;
        int64_t st[SHAPE_MAX_RANK];
        broadcast_strides(&v->sh, m->sh.lens, m->sh.rank, st);
        in[k] = shape_with_strides(v->sh.type, m->sh.rank, m->sh.lens, st);
    }
    shape hoisted;
    if (!binary_shape_of(b, in, &hoisted))
        return false;
    *out = rule_bool(!long_axes_strides_differ(&m->sh, hoisted.strides, m->sh.strides));
    return true;
}

/* broadcast_merge_copies(b, m): see helpers_views.h. */
bool helper_broadcast_merge_copies(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *b = a[0].u.in, *m = a[1].u.in;
    bool mb = is_op(m, "multibroadcast");
    if (b->nargs != 2 || m->nargs != 1 || (!mb && !is_op(m, "broadcast")) || (b->args[0] != m && b->args[1] != m))
        return false;
    const shape *x = &m->args[0]->sh;
    if (x->rank > b->sh.rank)
        return false;
    /* b on x and the other operand in x's lens: the other broadcast's
     * operand (binary_above_broadcasts), or the folded literal read back,
     * standard (binary_above_*broadcast_literal_*) */
    const ins *o = other_operand(b, m);
    shape other = shape_standard(x->type, x->rank, x->lens);
    if (o->op == m->op && o->nargs == 1 && shape_same_lens(&o->args[0]->sh, x))
        other = o->args[0]->sh;
    shape in[2] = {*x, other};
    if (b->args[0] != m) {
        in[0] = other;
        in[1] = *x;
    }
    shape inner;
    if (!binary_shape_of(b, in, &inner))
        return false;
    /* ... then m to b's lens: its axes at `axis` (broadcast) or last */
    int64_t outer[SHAPE_MAX_RANK];
    int64_t at = b->sh.rank - inner.rank;
    if (!mb) {
        const attr_value *axv = ins_attr(m, "axis");
        if (!axv || axv->kind != ATTR_INT)
            return false;
        at = axv->u.i;
    }
    bool repeats = false;
    for (int i = 0; i < b->sh.rank; i++) {
        int64_t j = i - at;
        outer[i] = j >= 0 && j < inner.rank && inner.lens[j] == b->sh.lens[i] ? inner.strides[j] : 0;
        repeats = repeats || (outer[i] == 0 && b->sh.lens[i] > 1 && is_op(o, "@literal") && o->sh.rank == b->sh.rank && o->sh.strides[i] != 0);
    }
    /* A literal that holds a broadcast by its values, not by stride 0
     * (literal_repeats_along), gives b its own full layout, which the merge
     * makes a broadcast's: that copies wherever b's value reaches an output,
     * through shape ops too (a reshape of the merged broadcast is no view
     * of it; seed 4355: add(broadcast(sigmoid(p)), literal) unsqueezed,
     * squeezed and returned gained a contiguous in some orders). */
    if (repeats && long_axes_strides_differ(&b->sh, b->sh.strides, outer) && value_reaches_output(b, 0)) {
        *out = rule_bool(true);
        return true;
    }
    *out = rule_bool(strides_change_at_output(b, outer));
    return true;
}

/* cone_value(w): w is a constant, or a dot reached through single-reader
 * one-operand ops, transposes read once and two-operand ops whose operands
 * are such values: it takes a transpose that sinks to a reduction as the
 * dot does (each dot takes the same canonical permutation,
 * cone_reduced_permutation, and a transpose of one merges with the one
 * sinking, binary_above_transposes). Not a transpose of any other value:
 * max(dot, transpose(p)) under a reduction then kept the dot's new
 * transpose beside p's, one view more than the dot's old permutation
 * (golden dot_permutation_canonical_for_reduce_of_cone.not_transposed_param). */
static bool dot_permuted(const ins *d)
{
    const attr_value *q = ins_attr(d, "output_permutation");
    return q && q->n > 0;
}

static bool cone_value_at(const ins *w, int depth, bool transposed);

static bool cone_value(const ins *w, int depth) { return cone_value_at(w, depth, false); }

/* transposed: w is read through a transpose (of the cone, read once). A
 * dot counts where something gives it the transpose that merges with the
 * sinking one: its output_permutation (which
 * dot_permutation_canonical_for_reduce_of_cone writes out as a transpose)
 * or a transpose above it. A dot with neither is read as it is: nothing
 * gives it the inverse of a transpose sinking past it, so that transpose
 * cannot vanish below, and the rules that take it into its own dot
 * (transpose_into_dot) must not wait for it (seeds 1022405, 5009606:
 * mul(transpose(dot), dot) under a reduction kept the transpose). */
static bool cone_value_at(const ins *w, int depth, bool transposed)
{
    if (view_is_constant(w))
        return true;
    if (depth > ABSORBS_TRANSPOSE_MAX_DEPTH || !one_reader(w))
        return false;
    unsigned c = w->op->classes;
    if (is_op(w, "dot"))
        return transposed || dot_permuted(w);
    if (is_op(w, "transpose") && w->nargs == 1)
        return !view_is_constant(w->args[0]) && cone_value_at(w->args[0], depth + 1, true);
    /* a layout-only pending shape change is looked through, as the walk of
     * vanishes_below does (reads go through it: pending.rules); asked of
     * the op as it stands, a transpose that binary_above_transpose_and_constant
     * had sunk below an add under a cone's max left a pending op there, the
     * cone ended at it, and transpose_above_binary raised the transpose
     * back into the dot (dot_permutation_canonical_for_reduce_of_cone took
     * it out again), until the rule budget ran out (seed 13006912's core) */
    if (layout_pending(w))
        return cone_value_at(w->args[0], depth + 1, transposed);
    if (w->nmods > 0)
        return false;
    if ((c & OPC_UNARY) && w->nargs == 1)
        return cone_value_at(w->args[0], depth + 1, transposed);
    if ((c & OPC_BINARY) && w->nargs == 2)
        return w->args[0] == w->args[1]
                   ? cone_value_at(w->args[0], depth + 1, transposed)
                   : cone_value_at(w->args[0], depth + 1, transposed) && cone_value_at(w->args[1], depth + 1, transposed);
    return false;
}

/* The other operand w of two-operand op u on a transpose's way down from
 * v to a reduction lets it through: the same value, or a cone_value (a
 * constant: the inverse folds into it; a dot, bare or under pointwise
 * ops, takes the same permutation: max(dot, neg(dot)); seed 13388). */
static bool cone_operand(const ins *u, const ins *v)
{
    const ins *w = u->args[u->args[0] == v ? 1 : 0];
    return u->args[0] == u->args[1] || cone_value(w, 0);
}

/* Cone value w gives a transpose[r] sinking past it (to a reduction,
 * below which it vanishes) what it needs to go on: binary_above_transposes
 * merges only transposes of one permutation. A constant takes the inverse
 * (it folds); a transpose of a cone value read once (cone_value_at) is
 * one where its permutation is r; a dot d[q] is one where q is r
 * (dot_permutation_out_for_reduction takes q out as a transpose), or where
 * dot_permutation_canonical_for_reduce_of_cone* rewrite it (read by a
 * two-operand op, directly or through one one-operand op read once) to
 * transpose[s](d[c]) with s = compose(invert(c), q) equal to r, c the
 * cone's canonical permutation; one-operand ops pass it on, and a
 * two-operand op gives it where both operands do. A dot that the cone
 * rules leave as it is (c = q, already canonical) and whose q is not r
 * gives nothing to merge with. */
static bool cone_takes(const ins *w, const int64_t *r, int n, int depth)
{
    if (view_is_constant(w))
        return true;
    if (depth > ABSORBS_TRANSPOSE_MAX_DEPTH || !one_reader(w) || w->sh.rank != n)
        return false;
    unsigned c = w->op->classes;
    if (is_op(w, "dot")) {
        const attr_value *q = ins_attr(w, "output_permutation");
        if (!dot_permuted(w) || q->n != n)
            return false;
        if (memcmp(q->u.ints, r, sizeof(int64_t) * (size_t)n) == 0)
            return true;
        const ins *u = w->users[0];
        bool reached = (u->op->classes & OPC_BINARY) && u->nargs == 2;
        if (!reached && (u->op->classes & OPC_UNARY) && u->nargs == 1 && one_reader(u)) {
            const ins *e = u->users[0];
            reached = (e->op->classes & OPC_BINARY) && e->nargs == 2;
        }
        int64_t cc[SHAPE_MAX_RANK], base[SHAPE_MAX_RANK], s[SHAPE_MAX_RANK];
        if (!reached || !cone_canonical_raw(w, cc, base))
            return false;
        cone_leftover(cc, q->u.ints, n, s);
        return memcmp(s, r, sizeof(int64_t) * (size_t)n) == 0;
    }
    if (is_op(w, "transpose") && w->nargs == 1) {
        const attr_value *p = ins_attr(w, "permutation");
        return p && p->n == n && memcmp(p->u.ints, r, sizeof(int64_t) * (size_t)n) == 0 &&
               !view_is_constant(w->args[0]) && cone_value_at(w->args[0], depth + 1, true);
    }
    if (w->nmods > 0)
        return false;
    if ((c & OPC_UNARY) && w->nargs == 1)
        return cone_takes(w->args[0], r, n, depth + 1);
    if ((c & OPC_BINARY) && w->nargs == 2)
        return cone_takes(w->args[0], r, n, depth + 1) &&
               (w->args[0] == w->args[1] || cone_takes(w->args[1], r, n, depth + 1));
    return false;
}

/* The transpose[r] sinking from v really passes two-operand op u: the
 * other operand is the same value (binary_above_transpose_twice), or a
 * cone value that takes it (cone_takes). A cone_value that gives another
 * permutation, or none (a dot the cone rules leave as it is), holds the
 * transpose above u for ever (seeds 4001965, 4016403 with --views T). */
static bool cone_operand_takes(const ins *u, const ins *v, const int64_t *r, int n)
{
    if (u->args[0] == u->args[1])
        return true;
    return cone_takes(u->args[u->args[0] == v ? 1 : 0], r, n, 0);
}

/* The other operand of u, read by u alone, is a transpose of v's
 * permutation (v a transpose): binary_above_transposes merges the two
 * where the merged one vanishes below, whatever their operands. A diamond
 * over a dot, max(t(d), t(relu(d))) under a reduction, is no cone_value
 * (d has two readers); the transposes rose into the dot in the orders that
 * folded the shape noise around relu first (absorbs_transpose's cone) and
 * merged and vanished in the others (seed 8045). */
static bool same_transpose_beside(const ins *u, const ins *v)
{
    const ins *w = u->args[u->args[0] == v ? 1 : 0];
    if (w == v || !is_op(v, "transpose") || !is_op(w, "transpose") || w->nargs != 1 || !one_reader(w))
        return false;
    const attr_value *p = ins_attr(v, "permutation"), *q = ins_attr(w, "permutation");
    return p && q && attr_value_equal(*p, *q);
}

/* vanishes_below(t): see helpers_views.h. The walk starts at v, the value
 * transpose[r] of a value of lens `base`, composes the transposes it passes
 * (transpose[q](transpose[r](z)) is transpose[r o q](z)) and maps the
 * reduction's axes back onto `base`. */
static bool permutation_settles_below(const ins *v, const int64_t *p, int n, const int64_t *base, bool unit);
static bool permutation_settles_below_at(const ins *v, const int64_t *p, int n, const int64_t *base, bool unit, bool composed);

static bool permutation_vanishes_below(const ins *v, const int64_t *p, int n, const int64_t *base)
{
    return permutation_settles_below(v, p, n, base, false);
}

/* The walk of vanishes_below; with `unit`, it also ends where the
 * transpose, past the reductions so far, moves only length-1 axes into
 * other lens (a reshape of the data: it no longer vanishes, but sinks
 * there as a free view). */
static bool permutation_settles_below(const ins *v, const int64_t *p, int n, const int64_t *base, bool unit)
{
    return permutation_settles_below_at(v, p, n, base, unit, false);
}

/* With `composite` (vanishes_composed_below), the walk also ends, with a
 * yes, where past a reduction (or right below one, where v's operand is
 * it) it meets a transpose and the composite of the walk's permutation with
 * the whole chain of transposes and one-operand pointwise ops from there
 * (chain_composite_vanishes) moves only length-1 axes of the reduced lens:
 * the reduction takes the transpose below it (reduce_below_transpose), it
 * sinks down the chain, and they all compose (transpose_of_transpose) and
 * go (identity_transpose, unit_axes_transpose) in every order. The whole
 * chain, not the first transpose met: the question must get the same
 * answer before and after two transposes of the chain compose (round
 * s31B; round s30A's test at the first transpose lost tuned seed 19569). */
/* The transpose[r] that has reached transpose u (r already composed with
 * u's permutation) goes on sinking down the chain of u's single readers
 * that are transposes (which compose with it) and one-operand pointwise
 * ops (which it sinks below), as transposes_settle_below follows it; does
 * the composite of the whole chain do nothing on lens l? The answer is the
 * same before and after two transposes of the chain compose
 * (transpose_of_transpose) or a pointwise op of it moves across one
 * (round s31B; tuned seed 19569: t(reduce), tanh, t^-1, t2 said yes at
 * t^-1 while t^-1 and t2 were apart, and no once they had composed). */
static bool chain_composite_vanishes(const ins *u, const int64_t *r, int n, const int64_t *l)
{
    int64_t acc[SHAPE_MAX_RANK];
    memcpy(acc, r, sizeof(int64_t) * (size_t)n);
    const ins *v = u;
    for (int depth = 0; depth < VIEW_CLUSTER_MAX && one_reader(v); depth++) {
        const ins *w = v->users[0];
        if (w->sh.rank != n)
            break;
        if (is_op(w, "transpose") && w->nargs == 1) {
            if (!compose_with_transpose(acc, w, n, acc))
                return false;
        } else if (!(((w->op->classes & OPC_UNARY) && w->nargs == 1 && w->nmods == 0) || layout_pending(w)))
            break;
        v = w;
    }
    return vanishes(acc, n, l);
}

static bool permutation_settles_below_at(const ins *v, const int64_t *p, int n, const int64_t *base, bool unit, bool composite)
{
    if (n > SHAPE_MAX_RANK)
        return false;
    int64_t r[SHAPE_MAX_RANK];
    for (int i = 0; i < n; i++) {
        if (p[i] < 0 || p[i] >= n)
            return false;
        r[i] = p[i];
    }
    /* base's lens, reduced over the axes of the reductions passed so far */
    int64_t l[SHAPE_MAX_RANK];
    memcpy(l, base, sizeof(int64_t) * (size_t)n);
    /* with `unit`: a reduction has been passed after which the transpose
     * moves only length-1 axes; the walk goes on, composing the transposes
     * further down, and where it ends the composition must still move only
     * length-1 axes (seed 1018328: a transpose below the reduction, not yet
     * composed in some orders, made it a transpose of longer axes) */
    /* a reduction passed, or right above the start (a transpose the
     * reduction has just taken below it, reduce_below_transpose: the
     * question must get the same answer there, or transpose_above_reduce
     * raises it back) */
    bool reduced = composite && v->nargs == 1 && is_reduction(v->args[0]);
    bool settled = false;
    for (int depth = 0; depth <= ABSORBS_TRANSPOSE_MAX_DEPTH; depth++) {
        if (!one_reader(v))
            return unit && settled && moves_unit_axes_only(r, n, l);
        const ins *u = v->users[0];
        unsigned c = u->op->classes;
        /* a two-operand op whose other operand is a constant (the
         * transpose folds into it) or the same value keeps the layout
         * (cone_reduced_permutation's transposes; seed 13388) */
        if ((c & OPC_BINARY) && u->nargs == 2 && u->nmods == 0 && u->sh.rank == n &&
            (cone_operand_takes(u, v, r, n) || (depth == 0 && same_transpose_beside(u, v)))) {
            v = u;
            continue;
        }
        if (u->nargs != 1 || u->nmods > 0 || u->sh.rank != n)
            return unit && settled && moves_unit_axes_only(r, n, l);
        if (is_op(u, "transpose")) {
            if (!compose_with_transpose(r, u, n, r))
                return false;
            /* past a reduction, a chain of transposes (and one-operand
             * pointwise ops) further down that composes with the rest to
             * a permutation of length-1 axes only: the reduction takes
             * the transpose below it (reduce_below_transpose), it sinks
             * down the chain and they compose (transpose_of_transpose)
             * and go (identity_transpose, unit_axes_transpose) in every
             * order (rounds s30A, s31B; seed 1003212:
             * reduce_max(t(add(max(dot, dot), dot))) read by t', where t'
             * undoes t on the reduced lens, was taken into the dot's
             * output_permutation by transpose_above_binary in the orders
             * that met t first, and vanished in the others) */
            if (reduced && chain_composite_vanishes(u, r, n, l))
                return true;
            v = u;
            continue;
        }
        /* a layout-only pending shape change is looked through (reads
         * go through it: pending.rules) */
        if ((c & OPC_UNARY) ||
            (is_op(u, "pending_shape_change") && memcmp(u->sh.lens, v->sh.lens, sizeof(int64_t) * (size_t)n) == 0)) {
            v = u;
            continue;
        }
        if (!(c & OPC_REDUCE))
            return unit && settled && moves_unit_axes_only(r, n, l);
        const attr_value *a = ins_attr(u, "axes");
        if (!a)
            return false;
        /* base's lens reduced over the axes the reduction's come from */
        for (int k = 0; k < a->n; k++) {
            int64_t ax = a->u.ints[k];
            if (ax < 0 || ax >= n)
                return false;
            l[r[ax]] = 1;
        }
        reduced = composite;
        if (vanishes(r, n, l))
            return true;
        if (moves_unit_axes_only(r, n, l))
            settled = true;
        /* not yet: a further reduction may reduce the axes it still moves
         * (seeds 3236, 12472: two reductions, each over one of two axes
         * the transpose swaps) */
        v = u;
    }
    return false;
}

static bool transpose_vanishes_below(const ins *t)
{
    if (!is_op(t, "transpose") || t->nargs != 1)
        return false;
    const attr_value *p = ins_attr(t, "permutation");
    int n = t->sh.rank;
    if (!p || p->n != n || t->args[0]->sh.rank != n)
        return false;
    return permutation_vanishes_below(t, p->u.ints, n, t->args[0]->sh.lens);
}

/* folds_into_operand(t): see helpers_views.h. Asked as the fold and
 * pending rules that take t ask it: transpose_of_transpose composes t with
 * a transpose below it whatever its readers; transpose_cancels_dot_permutation
 * and transpose_into_permuted_dot take t into a dot read once that writes
 * permuted strides, where t does not merge at its reader (and, for the
 * second, does not vanish below). */
bool helper_folds_into_operand(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *t = a[0].u.in;
    const ins *x = is_op(t, "transpose") && t->nargs == 1 ? t->args[0] : NULL;
    bool yes = false;
    if (x && is_op(x, "transpose") && x->nargs == 1)
        yes = true;
    else if (x && is_op(x, "dot") && one_reader(x)) {
        const attr_value *p = ins_attr(t, "permutation");
        const attr_value *q = ins_attr(x, "output_permutation");
        if (p && q && q->n > 0 && q->n == p->n && !view_merges_at_reader(t)) {
            /* compose(q, p)[i] = q[p[i]]: the identity where t undoes q */
            bool undoes = true;
            for (int i = 0; undoes && i < p->n; i++)
                undoes = p->u.ints[i] >= 0 && p->u.ints[i] < q->n && q->u.ints[p->u.ints[i]] == i;
            rule_value r;
            yes = undoes || (helper_vanishes_below(NULL, a, 1, &r) && !r.u.i);
        }
    }
    *out = rule_bool(yes);
    return true;
}

/* dot_permutation_vanishes(d): see helpers_views.h. */
bool helper_dot_permutation_vanishes(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *d = a[0].u.in;
    const attr_value *q = is_op(d, "dot") ? ins_attr(d, "output_permutation") : NULL;
    int rank = d->sh.rank;
    bool yes = false;
    if (q && q->n == rank && rank > 0 && rank <= SHAPE_MAX_RANK) {
        /* the plain product's lens: d's are them permuted by q */
        int64_t base[SHAPE_MAX_RANK];
        bool ok = true;
        for (int i = 0; i < rank && ok; i++) {
            ok = q->u.ints[i] >= 0 && q->u.ints[i] < rank;
            if (ok)
                base[q->u.ints[i]] = d->sh.lens[i];
        }
        yes = ok && permutation_vanishes_below(d, q->u.ints, rank, base);
    }
    *out = rule_bool(yes);
    return true;
}

/* vanishes_past_reader(t): see helpers_views.h. The walk of vanishes_below,
 * started at t's reader as if t had moved below it. */
/* Transpose t, read once by a two-operand op e of its lens, moved below e:
 * does it vanish further down (vanishes_below's walk), or, with `unit`,
 * vanish or end moving only length-1 axes past a reduction
 * (permutation_settles_below)? */
static bool transpose_past_reader(const ins *t, bool unit)
{
    if (!is_op(t, "transpose") || t->nargs != 1 || !one_reader(t))
        return false;
    const attr_value *p = ins_attr(t, "permutation");
    const ins *e = t->users[0];
    int n = t->sh.rank;
    if (!p || p->n != n || t->args[0]->sh.rank != n || !(e->op->classes & OPC_BINARY) || e->nargs != 2 ||
        e->nmods > 0 || e->sh.rank != n || memcmp(e->sh.lens, t->sh.lens, sizeof(int64_t) * (size_t)n) != 0)
        return false;
    return permutation_settles_below(e, p->u.ints, n, t->args[0]->sh.lens, unit);
}

bool helper_vanishes_past_reader(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(transpose_past_reader(a[0].u.in, false));
    return true;
}

/* settles_past_reader(t): see helpers_views.h. The walk with `unit` says
 * yes wherever the one of vanishes_past_reader does (it differs only in
 * where it ends without a vanishing transpose). */
bool helper_settles_past_reader(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(transpose_past_reader(a[0].u.in, true));
    return true;
}

/* vanishes_composed_below(t): see helpers_views.h. */
static bool transpose_vanishes_composed_below(const ins *t)
{
    const attr_value *p = transpose_permutation(t);
    int rank = t->sh.rank;
    return p && p->n == rank && t->args[0]->sh.rank == rank &&
           permutation_settles_below_at(t, p->u.ints, rank, t->args[0]->sh.lens, false, true);
}

bool helper_vanishes_composed_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(transpose_vanishes_composed_below(a[0].u.in));
    return true;
}

bool helper_vanishes_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(transpose_vanishes_below(a[0].u.in));
    return true;
}

/* settles_below(t): see helpers_views.h. vanishes_below's walk with
 * `unit`, started at t itself: it also says yes where, past the
 * reductions, t ends moving only length-1 axes into other lens. */
static bool transpose_settles_below(const ins *t)
{
    const attr_value *p = transpose_permutation(t);
    int n = t->sh.rank;
    return p && p->n == n && t->args[0]->sh.rank == n && permutation_settles_below(t, p->u.ints, n, t->args[0]->sh.lens, true);
}

bool helper_settles_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(transpose_settles_below(a[0].u.in));
    return true;
}

/* ---- reshapes that are not yet where they end (composes_below) ---- */

/* composes_below(r): see helpers_views.h. */
bool helper_composes_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *r = a[0].u.in;
    bool yes = false;
    if (is_shape_view(r) && r->nargs == 1 && shape_standard_p(&r->sh))
        for (int k = 0; k < r->nusers && !yes; k++)
            yes = (is_shape_view(r->users[k]) && r->users[k]->nargs == 1) || is_op(r->users[k], "transpose") || leaves_lens(r->users[k]);
    *out = rule_bool(yes);
    return true;
}

/* ---- reductions below clusters ---- */

/* in_cluster_lens(x): see helpers_views.h. */
static bool stays_in_cluster_lens(const ins *x)
{
    bool moves = leaves_lens(x);
    /* nor is a transpose that goes in every order (transpose_folds): the
     * value below it, which its readers read once it has gone, may still
     * move (seed 1012900: reduce_below_reshape moved a reshape of an
     * identity transpose of add below a reduction while add's cluster was
     * still to move, in the orders that met the reduction before the
     * transpose folded) */
    moves = moves || transpose_folds(x);
    /* nor is a two-operand op outside the clusters (it reads a broadcast)
     * that binary_above_reshapes* moves above its two reshapes: it then runs
     * in an operand's lens, in every order (seed 1012623: reduce_sum of
     * squeeze(add(unsqueeze(p0), unsqueeze(reshape(mb(s))))) through two
     * transposes that cancel moved below the squeeze's reshape, into the
     * add's {4, 2, 4, 4, 1}, in the orders that cancelled the transposes
     * before the add's reshapes merged into p0's {4, 2, 4, 4}) */
    moves = moves || (is_cluster_op(x) && reads_broadcast(x) && binary_reshapes_move(x, 0, NULL));
    /* nor is an op of the lower cluster of a reduction pair while the
     * upper one is not known (see reduction_leaf_costs): its lens are not
     * known either, and a reshape that moves below the reduction meanwhile
     * (reduce_below_reshape) would decide them by order */
    moves = moves || (is_cluster_op(x) && pair_waits(x));
    /* nor is an op whose cluster is not known yet because a leaf is a
     * reduction that still loses the length-1 axes it does not reduce
     * (cluster_collect): the leaf's lens change in every order, and the
     * labelling with them (seed 1056861: add of s and a reshape of
     * reduce_sum(unsqueeze(p)), under a reshape read by reduce_max;
     * the orders that met reduce_max first moved the reshape below it
     * while add still ran in s's lens, the others labelled add in the
     * reduction's lens first, and the reshape then stayed) */
    cluster pc;
    moves = moves || (is_cluster_op(x) && !cluster_of(x, &pc) && pc.unit_red);
    return !moves;
}

/* stays_in_cluster_lens asked as one query (query_begin .. query_end), so
 * that a walk it asks in turn sees labelling_clusters() and does not ask
 * it back. */
static bool stays_in_cluster_lens_now(const ins *x)
{
    query_begin();
    bool stays = stays_in_cluster_lens(x);
    query_end();
    return stays;
}

bool helper_in_cluster_lens(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(stays_in_cluster_lens(a[0].u.in));
    return true;
}

/* result_reshape_moves(d): see helpers_views.h. */
bool helper_result_reshape_moves(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *d = a[0].u.in;
    bool yes = false;
    if (d->nusers == 1 && is_op(d->users[0], "reshape")) {
        const ins *q = d->users[0];
        for (int k = 0; k < q->nusers && !yes; k++) {
            yes = leaves_lens(q->users[k]);
        }
    }
    *out = rule_bool(yes);
    return true;
}

/* q is a reshape that only drops length-1 axes of the reduction d it reads
 * (read once), d reads a reshape r of a computed value y (read once) that
 * the reduction does not move below itself (or that shares r):
 * reshape_of_reduce_of_reshape takes q into r, one view less, in every
 * order, so q is not the reader's to move below itself, and a reduction
 * reading q waits for that (seed 1074609: squeeze(reduce_sum(reshape(x)))
 * of the 1 an unsqueeze put there, read by a reduce_mean that moved the
 * squeeze below itself in some orders, where it stayed beside the
 * reshape). */
static bool unit_drop_taken_into_reduction(const ins *q)
{
    if (!is_op(q, "reshape") || q->nargs != 1 || q->nmods > 0)
        return false;
    const ins *d = q->args[0];
    if (!is_reduction(d) || d->nargs != 1 || d->nusers != 1 || q->sh.rank >= d->sh.rank ||
        !unit_lens_only(d->sh.lens, d->sh.rank, q->sh.lens, q->sh.rank))
        return false;
    const ins *r = d->args[0];
    /* a squeeze or unsqueeze of a standard value becomes such a reshape
     * (squeeze_to_reshape, unsqueeze_to_reshape), in some orders after q */
    if (!becomes_reshape(r) || r->nusers != 1 || view_is_constant(r->args[0]))
        return false;
    /* r composes with the reshapes below it first (reshape_of_reshape;
     * reduce_below_reshape does not move r while it reads a shape op) */
    const ins *y = r->args[0];
    for (int k = 0; k <= VIEW_CLUSTER_MAX && becomes_reshape(y); k++)
        y = y->args[0];
    if (view_is_constant(y))
        return false;
    const attr_value *ax = ins_attr(d, "axes");
    if (!ax || ax->kind != ATTR_INTS)
        return false;
    int64_t b[SHAPE_MAX_RANK];
    int nb = 0;
    return !(reduce_axes_map(y->sh.lens, y->sh.rank, r->sh.lens, r->sh.rank, ax->u.ints, ax->n, b, &nb) && nb > 0) ||
           shares_reshape(r);
}

/* unit_drop_taken_into_reduction(q): see helpers_views.h. */
bool helper_unit_drop_taken_into_reduction(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(unit_drop_taken_into_reduction(a[0].u.in));
    return true;
}

/* reshape_moves_below_reader(q): see helpers_views.h. */
bool helper_reshape_moves_below_reader(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *q = a[0].u.in;
    bool yes = false;
    if (is_op(q, "reshape") && q->nargs == 1 && q->nusers == 1 && shape_standard_p(&q->args[0]->sh)) {
        const ins *d = q->users[0], *x = q->args[0];
        const attr_value *ax = ins_attr(d, "axes");
        int64_t r[SHAPE_MAX_RANK];
        int nr = 0;
        yes = is_reduction(d) && d->nargs == 1 && ax && ax->kind == ATTR_INTS && !shares_reshape(q) &&
              reduce_axes_map(x->sh.lens, x->sh.rank, q->sh.lens, q->sh.rank, ax->u.ints, ax->n, r, &nr) && nr > 0 &&
              !unit_drop_taken_into_reduction(q);
    }
    *out = rule_bool(yes);
    return true;
}

/* reduce_moves_below(x_lens, r_lens, axes): see helpers_views.h. */
bool helper_reduce_moves_below(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    int64_t r[SHAPE_MAX_RANK];
    int nr = 0;
    bool yes = reduce_axes_map(a[0].u.ints, a[0].n, a[1].u.ints, a[1].n, a[2].u.ints, a[2].n, r, &nr) && nr > 0;
    *out = rule_bool(yes);
    return true;
}

/* reshape_copies_at_output(m): see helpers_views.h. */
bool helper_reshape_copies_at_output(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(reshape_copies_at_output(a[0].u.in));
    return true;
}

/* folds_to_reshape(m): see helpers_views.h. The guard of
 * multibroadcast_to_reshape and broadcast_to_reshape, written once: the
 * four literal hoists of rules/reshape.rules ask it of their inner
 * broadcast too (round s42F). */
bool helper_folds_to_reshape(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    const ins *m = a[0].u.in;
    bool yes = broadcast_op(m) && m->nargs == 1;
    if (yes) {
        const ins *x = m->args[0];
        yes = shape_elements(&m->sh) == shape_elements(&x->sh) && !shape_same_lens(&m->sh, &x->sh) &&
              shape_standard_p(&x->sh);
    }
    rule_value v;
    yes = yes && helper_broadcast_composes_below(mem, a, 1, &v) && !v.u.i;
    yes = yes && helper_reshape_copies_at_output(mem, a, 1, &v) && !v.u.i;
    *out = rule_bool(yes);
    return true;
}

/* x's shape with its axes permuted by p, as transpose[p](x) has it. */
static shape permuted_view_shape(const shape *x, const int64_t *p, int n)
{
    shape s = *x;
    for (int i = 0; i < n; i++) {
        s.lens[i] = x->lens[p[i]];
        s.strides[i] = x->strides[p[i]];
    }
    return s;
}

/* split_strides_reach_output(b, t, r, q): b(t[p](x), s[q](y)) rewritten as
 * s[q](b(t[r](x), y)) (binary_above_transpose_and_unit_different_transpose
 * and the unit-transpose split) gives the value other strides on an axis
 * longer than 1, and b's strides reach an output (through views,
 * one-operand pointwise ops and b(v, v)): the output would need a layout
 * copy, one view more for none less. b's layout follows its operands', so
 * the split changes it wherever x's and y's strides order the axes
 * otherwise than b's operands did (seed 1071121: max(t(sin(p1)), t'(p0))
 * returned, which split took p0's strides and a layout copy at the
 * @return; 1023607's mul under sin keeps its strides and splits). Where
 * the rebuilt shape cannot be computed it says yes (no split). */
bool helper_split_strides_reach_output(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *b = a[0].u.in, *t = a[1].u.in;
    const int64_t *r = a[2].u.ints, *q = a[3].u.ints;
    int rank = b->sh.rank;
    *out = rule_bool(true);
    if (b->nargs != 2 || (b->args[0] != t && b->args[1] != t) || b->args[0] == b->args[1])
        return true;
    int it = b->args[0] == t ? 0 : 1;
    const ins *s = b->args[1 - it];
    if (t->nargs != 1 || s->nargs != 1 || a[2].n != rank || a[3].n != rank || rank > SHAPE_MAX_RANK ||
        t->args[0]->sh.rank != rank || s->args[0]->sh.rank != rank)
        return true;
    for (int i = 0; i < rank; i++)
        if (r[i] < 0 || r[i] >= rank || q[i] < 0 || q[i] >= rank)
            return true;
    shape in[2];
    in[it] = permuted_view_shape(&t->args[0]->sh, r, rank);
    in[1 - it] = s->args[0]->sh;
    shape rebuilt;
    if (!binary_shape_of(b, in, &rebuilt) || rebuilt.rank != rank)
        return true;
    shape after = permuted_view_shape(&rebuilt, q, rank);
    *out = rule_bool(long_axes_strides_differ(&b->sh, b->sh.strides, after.strides) &&
                     layout_reaches_output_unary(b, 0));
    return true;
}

/* unary_above_transpose's guard, asked of one-operand op u over transpose
 * t (t read by u alone): does the rule sink t below u? The rule's own
 * helpers, in the rule's own combination (rules/reshape.rules). */
static bool unary_sinks_transpose(arena *mem, ins *u, ins *t)
{
    const attr_value *p = ins_attr(t, "permutation");
    if (!p || p->n != t->sh.rank)
        return false;
    ins *x = t->args[0];
    rule_value px = {RV_INTS, p->n, {.ints = p->u.ints}};
    rule_value r;
    rule_value a_x_p[2] = {rule_ins(x), px};
    rule_value a_u_x_p[3] = {rule_ins(u), rule_ins(x), px};
    rule_value a_t = rule_ins(t), a_u = rule_ins(u), a_x = rule_ins(x);
    bool absorbs = helper_absorbs_transpose(mem, a_x_p, 2, &r) && r.u.i;
    bool beside = helper_moves_beside_below(mem, a_u_x_p, 3, &r) && r.u.i;
    bool vanishes_t = helper_vanishes_below(mem, &a_t, 1, &r) && r.u.i;
    if (!((!absorbs && !beside) || vanishes_t))
        return false;
    if (!helper_duplicated_transpose(mem, &a_t, 1, &r) || r.u.i)
        return false;
    bool broadcast = helper_broadcast_past_pending(mem, &a_x, 1, &r) && r.u.i;
    if (broadcast && !(helper_transposes_settle_below(mem, &a_u, 1, &r) && r.u.i))
        return false;
    return helper_transposed_sibling(mem, a_u_x_p, 3, &r) && !r.u.i;
}

/* transpose_above_unary_shared's guard, asked of t = transpose[p](u(z)),
 * u read by t alone: does the rule raise t above u, to the transpose of z
 * the graph already has (or to a sibling's)? The rule's own helpers. */
static bool rises_to_shared(arena *mem, ins *t, ins *u)
{
    const attr_value *p = ins_attr(t, "permutation");
    if (!p || p->n != t->sh.rank || composes_through_readers(t, t))
        return false;
    ins *z = u->args[0];
    rule_value pz = {RV_INTS, p->n, {.ints = p->u.ints}};
    rule_value r;
    rule_value a_z_p[2] = {rule_ins(z), pz};
    rule_value a_z_u_p[3] = {rule_ins(z), rule_ins(u), pz};
    bool has = helper_has_transpose(mem, a_z_p, 2, &r) && r.u.i;
    if (!has && !(helper_transposed_sibling(mem, a_z_u_p, 3, &r) && r.u.i))
        return false;
    if (!helper_absorbs_transpose(mem, a_z_p, 2, &r) || r.u.i)
        return false;
    /* rejoins_shared(t), asked directly: u is a one-operand op of z */
    return !rejoins_shared_at(t, z, p);
}

/* rises_to_shared_through(t): see helpers_views.h. */
static bool rises_to_shared_through(arena *mem, ins *t)
{
    const attr_value *p = transpose_permutation(t);
    ins *u = p ? t->args[0] : NULL;
    if (!u || p->n != t->sh.rank || !pointwise_unary(u) || !one_reader(u) || view_is_constant(u) ||
        u->sh.rank != p->n)
        return false;
    if (rises_to_shared(mem, t, u))
        return true;
    if (composes_through_readers(t, t))
        return false;
    /* down a chain of one-operand ops read once, none of which absorbs t
     * (transpose_above_unary's case), to a value the graph already
     * transposes by p, which absorbs nothing and whose transpose's readers
     * do not rejoin t's below (a copy sunk there, as rejoins_shared) */
    const ins *v = u->args[0];
    for (int d = 0; d < ABSORBS_TRANSPOSE_MAX_DEPTH; d++) {
        if (!pointwise_unary(v) || !one_reader(v) || view_is_constant(v) || v->sh.rank != p->n ||
            view_absorbs_transpose(v, p->u.ints, p->n))
            return false;
        const ins *z = v->args[0];
        if (z->sh.rank == p->n && read_by_transpose(z, p->u.ints, p->n, NULL))
            return !view_absorbs_transpose(z, p->u.ints, p->n) && !rejoins_shared_at(t, z, p);
        v = z;
    }
    return false;
}

bool helper_rises_to_shared_through(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    *out = rule_bool(rises_to_shared_through(mem, a[0].u.in));
    return true;
}

/* v's readers are one op, or transposes of one permutation (twins: the
 * engine runs CSE between sweeps, so a transpose composed afresh beside one
 * of the same permutation of v lasts a sweep as a second reader; round
 * s60A): v is read once as it will be after CSE. */
static bool read_once_by_twins(const ins *v)
{
    if (one_reader(v))
        return true;
    const attr_value *p = v->nusers > 0 ? transpose_permutation(v->users[0]) : NULL;
    return p && p->kind == ATTR_INTS && twin_transposes_read(v);
}

/* read_once_by_twins(v): see helpers_views.h. */
bool helper_read_once_by_twins(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(read_once_by_twins(a[0].u.in));
    return true;
}

/* transpose_above_binary_of_one_value_shared's guard, asked of t =
 * transpose[p](b(x, x)): does the rule raise t above b to the transpose of
 * x the graph already has? The rule's own helpers. */
static bool binary_rises_to_shared(const ins *t)
{
    int n = t->sh.rank;
    int64_t pv[SHAPE_MAX_RANK];
    if (n > SHAPE_MAX_RANK || !transpose_ints(t, n, pv))
        return false;
    /* t over a chain of transposes, each read once: transpose_of_transpose
     * (no guard) composes them in every order, so t is asked as the
     * composition; asked of t alone, a one-operand reader raised t above
     * it before the chain composed in some orders (round s82B, --views T
     * seed 13017976: sigmoid(t(t'(sub(s, s)))) after
     * binary_above_transpose_twice, with compose(t', t) of s already read
     * by a dot) */
    const ins *b = compose_transposes_below(t->args[0], n, pv, true, NULL);
    attr_value pa = {.kind = ATTR_INTS, .n = n, .u.ints = pv};
    const attr_value *p = &pa;
    if (!b || !(b->op->classes & OPC_BINARY) || b->nargs != 2 || b->args[0] != b->args[1] || b->nmods > 0 ||
        !pointwise_op(b, n) || !read_once_by_twins(b))
        return false;
    ins *x = b->args[0];
    if (x->sh.rank == n && !read_by_transpose(x, pv, n, NULL)) {
        /* x = t[r](z) read by b alone: binary_above_transpose_twice sinks it
         * below b and transpose_of_transpose composes it with t in every
         * order, so t is asked as t[compose(r, p)] over b(z, z), the
         * transpose the rule then sees (the same seed: t(sub(t'(s),
         * t'(s))) under sigmoid) */
        int64_t pc[SHAPE_MAX_RANK];
        memcpy(pc, pv, sizeof(int64_t) * (size_t)n);
        if (x->nargs != 1 || !compose_inner_permutation(pc, transpose_permutation(x), n))
            return false;
        if (!one_reader(x) || x->users[0] != b)
            return false;
        const ins *z = x->args[0];
        if (z->sh.rank != n || !read_by_transpose(z, pc, n, NULL) || moves_unit_axes_only(pc, n, z->sh.lens) ||
            view_absorbs_transpose(z, pc, n))
            return false;
        attr_value pca = {.kind = ATTR_INTS, .n = n, .u.ints = pc};
        return !rejoins_shared_at(t, z, &pca);
    }
    if (x->sh.rank != n || !read_by_transpose(x, pv, n, NULL) || moves_unit_axes_only(pv, n, x->sh.lens) ||
        view_absorbs_transpose(x, pv, n))
        return false;
    /* rejoins_shared(t), asked directly: b is a pointwise b(x, x) */
    return !rejoins_shared_at(t, x, p);
}

/* rises_to_shared_at(t): see helpers_views.h. */
bool helper_rises_to_shared_at(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    ins *t = a[0].u.in;
    *out = rule_bool(rises_to_shared_through(mem, t) || binary_rises_to_shared(t));
    return true;
}

/* meets_transpose_past_operand(t): see helpers_views.h. */
bool helper_meets_transpose_past_operand(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)n;
    ins *t = a[0].u.in;
    bool yes = false;
    if (is_op(t, "transpose") && t->nargs == 1) {
        ins *u = t->args[0];
        if ((u->op->classes & OPC_UNARY) && u->nargs == 1 && u->nmods == 0 && one_reader(u) &&
            u->sh.rank == t->sh.rank) {
            ins *t2 = u->args[0];
            if (is_op(t2, "transpose") && t2->nargs == 1 && one_reader(t2) && t2->sh.rank == t->sh.rank)
                yes = unary_sinks_transpose(mem, u, t2);
            if (!yes)
                yes = rises_to_shared(mem, t, u);
        }
    }
    *out = rule_bool(yes);
    return true;
}
