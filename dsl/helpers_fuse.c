/* helpers_fuse.c: cost and policy helpers of the fusion rules (see
 * helpers_fuse.h). They read the graph and return numbers or answers; the
 * decisions that use them are written in rules/fuse.rules. one_kernel
 * holds the kernel shapes a region may take (pointwise, reduction,
 * contraction: docs/rules.md, "Region shapes"), so that the rules grow only
 * regions codegen lowers as one kernel. */
#include "helpers_fuse.h"

#include "helpers_layout.h"

#include "ir.h"
#include "ptr_set.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool is_region(const ins *i) { return (i->op->classes & OPC_REGION) && i->nmods == 1; }

static int64_t elements(const ins *i) { return shape_is_tuple(&i->sh) ? 0 : (int64_t)shape_elements(&i->sh); }

static int64_t bytes(const ins *i) { return shape_is_tuple(&i->sh) ? 0 : (int64_t)shape_bytes(&i->sh); }

/* The most ops one kernel takes (fits_one_kernel, pointwise_kernel). A region grows one
 * absorbed part at a time; each step that absorbs a producer or merges two
 * regions builds the merged body afresh (a consumer is appended in place,
 * engine/region_merge.c) and each guard scans the parts, so without a
 * bound the cost of growing a region is quadratic in its size (a chain of
 * 200 softmax-like blocks, 1400 ops, took 17 s and 400 MB to become one
 * region when every step copied); a kernel that long also costs hiprtc
 * time and registers for nothing more saved. The largest region of the shipped
 * examples, the nine onnx-light models and the expanded ONNX node tests
 * has 15 ops, so the bound changes none of them. */
enum { KERNEL_MAX_OPS = 64 };

bool helper_pointwise_kernel(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *x = a[0].u.in;
    bool ok = (x->op->classes & OPC_POINTWISE) && !x->nmods;
    if (is_region(x)) {
        ok = true;
        int ops = 0;
        for (const ins *i = x->mods[0]->first; ok && i; i = i->next) {
            ok = ((i->op->classes & (OPC_POINTWISE | OPC_BUILTIN)) || body_index_only(i)) && !i->nmods;
            ops += !(i->op->classes & OPC_BUILTIN);
        }
        /* a region at the bound takes nothing more (KERNEL_MAX_OPS) */
        ok = ok && ops < KERNEL_MAX_OPS;
    }
    *out = rule_bool(ok);
    return true;
}

/* Strips views and reshapes off v. */
static const ins *under_views(const ins *v)
{
    while ((v->op->classes & (OPC_VIEW | OPC_SHAPE)) && v->nargs == 1 && !ins_is(v, "get_tuple_elem") &&
           !(v->op->classes & OPC_BUILTIN))
        v = v->args[0];
    return v;
}

/* Whether every use of v is by c. */
static bool only_read_by(const ins *v, const ins *c)
{
    for (int u = 0; u < v->nusers; u++)
        if (v->users[u] != c)
            return false;
    return true;
}

bool helper_bytes_saved(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *p = a[0].u.in, *c = a[1].u.in;
    int64_t saved = 0;
    for (int k = 0; k < c->nargs; k++) {
        const ins *v = under_views(c->args[k]);
        bool of_p = v == p || (ins_is(v, "get_tuple_elem") && v->nargs == 1 && v->args[0] == p);
        bool first = true; /* count each value once, however often c reads it */
        for (int j = 0; j < k; j++)
            first = first && under_views(c->args[j]) != v;
        if (!of_p || !first)
            continue;
        saved += bytes(v);
        if (only_read_by(v, c))
            saved += bytes(v);
    }
    *out = rule_int(saved);
    return true;
}

bool helper_recompute_flops(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *p = a[0].u.in;
    int64_t flops = 0;
    if (is_region(p)) {
        for (const ins *i = p->mods[0]->first; i; i = i->next)
            if (!(i->op->classes & (OPC_BUILTIN | OPC_VIEW)))
                flops += elements(i);
    } else if (!(p->op->classes & (OPC_BUILTIN | OPC_VIEW))) {
        flops = elements(p);
    }
    *out = rule_int(flops);
    return true;
}

bool helper_broadcast_factor(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *x = a[0].u.in;
    int64_t factor = 1;
    if ((ins_is(x, "broadcast") || ins_is(x, "multibroadcast")) && x->nargs >= 1 && elements(x->args[0]) > 0)
        factor = elements(x) / elements(x->args[0]);
    *out = rule_int(factor);
    return true;
}

/* The graph walks below visit each value once (ptr_set), however many
 * paths reach it: x * x chains read every value twice. Out of memory makes
 * the set's `failed` true and the callers answer cautiously. */

/* ---- kernel shapes: which parts fit one kernel (one_kernel) ----
 *
 * A part is a plain instruction or a region. The union of two parts fits
 * one kernel when it is one of the shapes codegen lowers as one kernel
 * (docs/rules.md, "Regions with reductions and contractions"):
 *  - pointwise: pointwise ops and views over one element count;
 *  - reduction: reductions over one input lens and one reduced lens, with
 *    pointwise ops per element of that input or per row of the result;
 *  - contraction: one convolution or dot, a pointwise prologue on its
 *    inputs (read by nothing else), a pointwise epilogue over its output,
 *    and reductions of the epilogue as extra outputs. Those reductions are
 *    terminal: nothing in the kernel reads them, since every block of the
 *    contraction would have to wait for all the others. */

/* Distinct element counts a kernel's pointwise ops may have: one for a
 * pointwise kernel, two (per element, per row) for a reduction, a few for
 * a contraction's prologue and epilogue. */
#define SCAN_COUNTS 8

typedef struct part_scan {
    int contractions;
    const ins *contraction;
    const ins *reduction;      /* the first reduction */
    bool other;                /* an op no kernel shape holds */
    bool mixed_reductions;     /* reductions over different lens */
    bool reads_reduced;        /* an op reads a reduction's value */
    int64_t op_elements[SCAN_COUNTS]; /* the distinct element counts of its pointwise ops */
    int nops;
    int ops;                   /* ops scanned (builtins aside) */
} part_scan;


static bool is_contraction(const ins *i)
{
    return (i->op->classes & OPC_COMPUTE) && (ins_is(i, "convolution") || ins_is(i, "dot"));
}

static bool same_reduction(const ins *a, const ins *b)
{
    return a->nargs && b->nargs && shape_same_lens(&a->args[0]->sh, &b->args[0]->sh) &&
           shape_same_lens(&a->sh, &b->sh);
}

/* Adds one op (plain or of a body) to the scan; `reduced` says whether it
 * reads a value that depends on a reduction. */
static void scan_op(part_scan *s, const ins *i, bool reduced)
{
    unsigned c = i->op->classes;
    if (c & OPC_BUILTIN)
        return;
    s->ops++;
    if (is_contraction(i)) {
        s->contractions++;
        s->contraction = i;
        s->reads_reduced |= reduced;
    } else if (c & OPC_REDUCE) {
        if (!s->reduction)
            s->reduction = i;
        else if (!same_reduction(s->reduction, i))
            s->mixed_reductions = true;
        s->reads_reduced |= reduced;
    } else if ((c & OPC_POINTWISE) || body_index_only(i)) {
        /* a contiguous, layout or pad is an op per element too: the kernel
         * stores or reads the value at another place, index arithmetic */
        s->reads_reduced |= reduced;
        int64_t e = elements(i);
        bool seen = false;
        for (int k = 0; k < s->nops && !seen; k++)
            seen = s->op_elements[k] == e;
        if (!seen && s->nops < SCAN_COUNTS)
            s->op_elements[s->nops++] = e;
        else if (!seen)
            s->other = true; /* no kernel shape has that many */
    } else if (!(c & (OPC_VIEW | OPC_SHAPE)) || i->nmods) {
        s->other = true;
    }
}

/* The body instruction a region's output value v (the region or one of its
 * get_tuple_elem) stands for. */
static const ins *body_value(const ins *r, const ins *v)
{
    const ins *ret = module_return(r->mods[0]);
    if (!ret || ret->nargs < 1)
        return NULL;
    if (v == r)
        return ret->args[0];
    const attr_value *idx = ins_attr(v, "index");
    return idx && idx->kind == ATTR_INT && idx->u.i >= 0 && idx->u.i < ret->nargs ? ret->args[idx->u.i] : NULL;
}

/* Whether body value b depends on a reduction of its body. Breadth first,
 * each value once: the reduction a value depends on is usually a few steps
 * up (softmax's div reads the broadcast sum), while a walk depth first along
 * the first operands would cross the whole body before it looks there. The
 * queue holds every value reached, so while it is short it is the visited
 * set too (no allocation); past SMALL_WALK values a hash set takes over. */
enum { SMALL_WALK = 32 };

static bool body_depends_on_reduction(const ins *b)
{
    if (!b)
        return false;
    ptr_set seen = {0}; /* used once the queue is past SMALL_WALK */
    const ins *small[64], **queue = small;
    size_t cap = 64, head = 0, tail = 0;
    bool found = (b->op->classes & OPC_REDUCE) != 0, failed = false;
    queue[tail++] = b;
    while (head < tail && !found && !failed) {
        const ins *x = queue[head++];
        for (int a = 0; a < x->nargs && !found && !failed; a++) {
            const ins *y = x->args[a];
            bool again = false;
            if (tail <= SMALL_WALK) {
                for (size_t k = 0; k < tail && !again; k++)
                    again = queue[k] == y;
            } else {
                for (size_t k = seen.n ? tail : 0; k < tail; k++)
                    ptr_set_add(&seen, queue[k]); /* the switch: once */
                again = !ptr_set_add(&seen, y);
                failed = seen.failed;
            }
            if (again || failed)
                continue;
            found = (y->op->classes & OPC_REDUCE) != 0;
            if (tail == cap) {
                const ins **more = malloc(2 * cap * sizeof *more);
                failed = !more;
                if (failed)
                    break;
                memcpy(more, queue, tail * sizeof *more);
                if (queue != small)
                    free(queue);
                queue = more;
                cap *= 2;
            }
            queue[tail++] = y;
        }
    }
    if (queue != small)
        free(queue);
    failed |= seen.failed;
    ptr_set_free(&seen);
    return found || failed; /* out of memory: answer cautiously */
}

/* Whether value v of the graph (seen through views) is a reduction's value:
 * a reduction, or an output of a region that depends on one. */
static bool is_reduced_value(const ins *v)
{
    v = under_views(v);
    if (v->op->classes & OPC_REDUCE)
        return true;
    const ins *r = ins_is(v, "get_tuple_elem") && v->nargs == 1 ? v->args[0] : v;
    return is_region(r) && body_depends_on_reduction(body_value(r, v));
}

/* Whether a body value that depends on a reduction (reduction r, or a view
 * of one) is read by an op that scan_op counts as reading a reduced value:
 * any op but a builtin (the return) or a view, which passes the value on to
 * its own readers. An op no kernel shape holds counts too; it makes the part
 * `other`, which decides alone. */
static bool reduced_value_read(const ins *r)
{
    for (int u = 0; u < r->nusers; u++) {
        const ins *user = r->users[u];
        unsigned c = user->op->classes;
        if (c & OPC_BUILTIN)
            continue;
        bool view = !is_contraction(user) && !(c & OPC_REDUCE) && !(c & OPC_POINTWISE) &&
                    !body_index_only(user) && (c & (OPC_VIEW | OPC_SHAPE)) && !user->nmods;
        if (!view || reduced_value_read(user))
            return true;
    }
    return false;
}

/* Scans part x: one pass over a region's body. Whether an op reads a
 * value that depends on a reduction of the body is found from the
 * reductions' readers (reduced_value_read): an op reads such a value
 * exactly when the value is a reduction or a chain of views of one, or an
 * op that reads one itself, so the first op on each path from a reduction
 * decides, and no set of the reduced values is needed. */
static void scan_part(part_scan *s, const ins *x)
{
    if (!is_region(x)) {
        scan_op(s, x, false); /* what it reads from the other part: reads_reduced_of */
        return;
    }
    for (const ins *i = x->mods[0]->first; i; i = i->next) {
        if (i->op->classes & OPC_BUILTIN)
            continue; /* parameters, literals, the return */
        scan_op(s, i, false);
        if ((i->op->classes & OPC_REDUCE) && !s->reads_reduced)
            s->reads_reduced = reduced_value_read(i);
    }
}

/* The scan of parts p and c together, from the scans of each (what
 * scan_part(s, p) then scan_part(s, c) would give): the first reduction is
 * p's, the contraction the last one scanned, the element counts p's then
 * c's new ones. same_reduction is an equivalence (equal lens), so c's
 * reductions mix with p's exactly when c's first one differs from p's. */
static void scan_join(part_scan *s, const part_scan *sp, const part_scan *sc)
{
    *s = *sp;
    s->contractions += sc->contractions;
    if (sc->contractions)
        s->contraction = sc->contraction;
    if (!s->reduction)
        s->reduction = sc->reduction;
    else if (sc->reduction && !same_reduction(s->reduction, sc->reduction))
        s->mixed_reductions = true;
    s->mixed_reductions |= sc->mixed_reductions;
    s->other |= sc->other;
    s->reads_reduced |= sc->reads_reduced;
    s->ops += sc->ops;
    for (int j = 0; j < sc->nops; j++) {
        bool seen = false;
        for (int k = 0; k < s->nops && !seen; k++)
            seen = s->op_elements[k] == sc->op_elements[j];
        if (!seen && s->nops < SCAN_COUNTS)
            s->op_elements[s->nops++] = sc->op_elements[j];
        else if (!seen)
            s->other = true;
    }
}

/* Whether part p's value v (v == p, a get_tuple_elem of p, or a view of
 * either) is one c reads. */
static bool reads_part(const ins *c, const ins *p)
{
    for (int a = 0; a < c->nargs; a++) {
        const ins *v = under_views(c->args[a]);
        if (v == p || (ins_is(v, "get_tuple_elem") && v->nargs == 1 && v->args[0] == p))
            return true;
    }
    return false;
}

/* Whether c reads a value of p that depends on a reduction. */
static bool reads_reduced_of(const ins *c, const ins *p)
{
    for (int a = 0; a < c->nargs; a++) {
        const ins *v = under_views(c->args[a]);
        bool of_p = v == p || (ins_is(v, "get_tuple_elem") && v->nargs == 1 && v->args[0] == p);
        if (of_p && is_reduced_value(v))
            return true;
    }
    return false;
}

/* Whether every user of x (through views and get_tuple_elem) is c. */
static bool read_only_by(const ins *x, const ins *c, int depth)
{
    if (depth > 16)
        return false;
    for (int u = 0; u < x->nusers; u++) {
        const ins *user = x->users[u];
        if (user == c)
            continue;
        bool through = ins_is(user, "get_tuple_elem") ||
                       ((user->op->classes & (OPC_VIEW | OPC_SHAPE)) && !(user->op->classes & OPC_BUILTIN));
        if (!through || !read_only_by(user, c, depth + 1))
            return false;
    }
    return x->nusers > 0;
}

/* Whether value v is computed from a contraction's output by pointwise ops
 * and views alone (no reduction on the way): its reductions belong in the
 * contraction's kernel as extra outputs. */
static bool elementwise_from_contraction_walk(const ins *v, ptr_set *seen)
{
    v = under_views(v);
    /* The answers that need no walk come first: they are the same however
     * often v is reached (a contraction answers yes once, and the walk
     * stops there), so only a value the walk goes on from is marked, and
     * a walk that stops at once makes no set. */
    if (is_contraction(v))
        return true;
    if (v->op->classes & OPC_REDUCE)
        return false;
    const ins *r = ins_is(v, "get_tuple_elem") && v->nargs == 1 ? v->args[0] : v;
    bool region = is_region(r);
    if (region) {
        const ins *b = body_value(r, v);
        if (!b || body_depends_on_reduction(b))
            return false;
    } else if (!(v->op->classes & OPC_POINTWISE)) {
        return false;
    }
    if (!ptr_set_add(seen, v))
        return false;
    if (region) {
        for (const ins *i = r->mods[0]->first; i; i = i->next)
            if (is_contraction(i))
                return true;
        for (int a = 0; a < r->nargs; a++)
            if (elementwise_from_contraction_walk(r->args[a], seen))
                return true;
        return false;
    }
    for (int a = 0; a < v->nargs; a++)
        if (elementwise_from_contraction_walk(v->args[a], seen))
            return true;
    return false;
}

static bool elementwise_from_contraction(const ins *v)
{
    ptr_set seen = {0};
    bool r = elementwise_from_contraction_walk(v, &seen);
    ptr_set_free(&seen);
    return r;
}

/* Which values of region r's body are computed elementwise from a
 * contraction: a convolution or dot of the body, or a parameter whose
 * operand is (elementwise_from_contraction), followed without passing a
 * reduction. One pass over the body in program order answers for every
 * value at once (operands come before their readers): the values that are
 * go in `from`, and each parameter's operand is walked once, when something
 * first reads it (param_from: 0 not asked yet, 1 no, 2 yes). */
typedef struct contraction_values {
    const ins *r;
    ptr_set from;
    signed char *param_from;
} contraction_values;

static bool value_from_contraction(contraction_values *cv, const ins *v)
{
    if (!v->param)
        return ptr_set_has(&cv->from, v);
    int k = v->param[0] == 'x' ? atoi(v->param + 1) : -1;
    if (k < 0 || k >= cv->r->nargs)
        return false;
    if (!cv->param_from[k])
        cv->param_from[k] = elementwise_from_contraction(cv->r->args[k]) ? 2 : 1;
    return cv->param_from[k] == 2;
}

/* Whether graph value v, through pointwise ops and views, reads a
 * reduction's value. */
static bool reads_reduced_walk(const ins *v, ptr_set *seen)
{
    v = under_views(v);
    if (!ptr_set_add(seen, v))
        return seen->failed;
    if (is_reduced_value(v))
        return true;
    if (!(v->op->classes & OPC_POINTWISE) || v->nmods)
        return false;
    for (int a = 0; a < v->nargs; a++)
        if (reads_reduced_walk(v->args[a], seen))
            return true;
    return false;
}

/* Whether body value b of region r depends on a reduction: one in the body,
 * or a reduced value an operand of r carries in. */
static bool body_reads_reduced_walk(const ins *r, const ins *b, ptr_set *seen, ptr_set *outside)
{
    if (!b || !ptr_set_add(seen, b))
        return seen->failed;
    if (b->op->classes & OPC_REDUCE)
        return true;
    if (b->param) {
        int k = b->param[0] == 'x' ? atoi(b->param + 1) : -1;
        return k >= 0 && k < r->nargs && reads_reduced_walk(r->args[k], outside);
    }
    for (int a = 0; a < b->nargs; a++)
        if (body_reads_reduced_walk(r, b->args[a], seen, outside))
            return true;
    return false;
}

static bool body_reads_reduced(const ins *r, const ins *b)
{
    ptr_set seen = {0}, outside = {0};
    bool found = body_reads_reduced_walk(r, b, &seen, &outside);
    ptr_set_free(&seen);
    ptr_set_free(&outside);
    return found;
}

static bool value_reads_reduced(const ins *v)
{
    ptr_set seen = {0};
    bool found = reads_reduced_walk(v, &seen);
    ptr_set_free(&seen);
    return found;
}

/* Whether a reduction of the part (plain or in its body) reduces a value
 * computed elementwise from a contraction, and could still become an extra
 * output of that contraction's kernel: its input depends on no other
 * reduction (softmax's sum of exp(s - max(s)) waits for the max, so it
 * never joins the kernel that computes s, and what reads the sum may join
 * the sum's kernel). */
static bool has_reduction_of_contraction(const ins *x)
{
    if (!is_region(x))
        return (x->op->classes & OPC_REDUCE) && x->nargs && elementwise_from_contraction(x->args[0]) &&
               !value_reads_reduced(x->args[0]);
    bool reductions = false;
    for (const ins *i = x->mods[0]->first; i && !reductions; i = i->next)
        reductions = (i->op->classes & OPC_REDUCE) != 0;
    if (!reductions)
        return false;
    contraction_values cv = {x, {0}, calloc(x->nargs ? (size_t)x->nargs : 1, 1)};
    if (!cv.param_from)
        return true; /* out of memory: answer cautiously (no fusion) */
    bool found = false;
    for (const ins *i = x->mods[0]->first; i && !found; i = i->next) {
        if (i->op->classes & OPC_REDUCE) {
            found = i->nargs && value_from_contraction(&cv, i->args[0]) && !body_reads_reduced(x, i->args[0]);
            continue; /* nothing passes a reduction */
        }
        if (i->param)
            continue; /* asked when read */
        bool from = is_contraction(i);
        for (int a = 0; !from && a < i->nargs; a++)
            from = value_from_contraction(&cv, i->args[a]);
        if (from)
            ptr_set_add(&cv.from, i);
    }
    free(cv.param_from);
    ptr_set_free(&cv.from);
    return found;
}

static bool fits_one_kernel(const ins *p, const ins *c, bool recompute);

/* Whether x is a convolution or dot, or a region whose body holds one. */
static bool holds_contraction(const ins *x)
{
    if (!is_region(x))
        return is_contraction(x);
    for (const ins *i = x->mods[0]->first; i; i = i->next)
        if (is_contraction(i))
            return true;
    return false;
}

/* The ops scan_part counts in part x (builtins aside), in O(1) (a module
 * keeps its count of them): a region at or near KERNEL_MAX_OPS is refused
 * on this alone, before the scans, on every attempt to grow it further. */
static int part_ops(const ins *x)
{
    return is_region(x) ? x->mods[0]->ops : !(x->op->classes & OPC_BUILTIN);
}

/* An op that computes element by element: pointwise, a view or reshape,
 * or an op that only reads element indices, with no submodule. */
static bool element_op(const ins *i)
{
    unsigned c = i->op->classes;
    return ((c & (OPC_POINTWISE | OPC_VIEW | OPC_SHAPE)) || body_index_only(i)) && !i->nmods;
}

/* Whether x is a pointwise part: a plain pointwise op, or a region whose
 * body holds only pointwise ops, views and reshapes (no reduction, no
 * convolution or dot). */
static bool pointwise_part(const ins *x)
{
    if (!is_region(x))
        return (x->op->classes & OPC_POINTWISE) && !x->nmods;
    for (const ins *i = x->mods[0]->first; i; i = i->next) {
        unsigned c = i->op->classes;
        if (c & OPC_BUILTIN)
            continue;
        if (is_contraction(i) || (c & OPC_REDUCE) || !element_op(i))
            return false;
    }
    return true;
}

/* Whether pointwise part v (a plain op or a pointwise region), or a
 * pointwise part it reads (a few levels up), could still join the epilogue
 * of the convolution or dot it reads: a prologue reading v waits for that,
 * since the epilogue is preferred (the GELU between two feed-forward dots
 * joins the first). Regions count as well as plain ops: a batch norm over a
 * convolution's output is often a pointwise region reading the plain
 * convolution before the convolution takes it in, and the bias add and
 * relu after it, a region of their own, would otherwise become the next
 * convolution's prologue in the orders that reach them first (inception_v2,
 * densenet121), and the epilogue in the others. */
static bool may_join_epilogue(const ins *v, int depth)
{
    if (depth > 4 || !pointwise_part(v))
        return false;
    for (int a = 0; a < v->nargs; a++) {
        const ins *u = under_views(v->args[a]);
        const ins *k = ins_is(u, "get_tuple_elem") && u->nargs == 1 ? u->args[0] : u;
        if ((holds_contraction(k) && fits_one_kernel(k, v, false)) || may_join_epilogue(k, depth + 1))
            return true;
    }
    return false;
}

static bool fits_one_kernel(const ins *p, const ins *c, bool recompute)
{
    if (part_ops(p) + part_ops(c) > KERNEL_MAX_OPS)
        return false;
    part_scan scans[3] = {0};
    part_scan *s = &scans[0], *sp = &scans[1], *sc = &scans[2];
    bool ok = p != c;
    if (ok) {
        scan_part(sp, p);
        scan_part(sc, c);
        scan_join(s, sp, sc);
        ok = !s->other && !s->mixed_reductions && s->contractions <= 1 &&
             s->ops <= KERNEL_MAX_OPS;
    }
    bool reduced_read = ok && reads_reduced_of(c, p);
    if (ok && s->contractions == 1) {
        /* reductions are terminal next to a contraction */
        ok = !s->reads_reduced && !reduced_read;
        int64_t e = elements(s->contraction);
        if (ok && sp->contractions == 1) {
            /* epilogue: c's ops run over the contraction's output */
            for (int k = 0; ok && k < sc->nops; k++)
                ok = sc->op_elements[k] == e;
            if (ok && sc->reduction)
                ok = elements(sc->reduction->args[0]) == e;
        } else if (ok) {
            /* prologue: p feeds only c, has no reductions, and is not an
             * epilogue of a contraction it could join instead */
            ok = !sp->reduction && read_only_by(p, c, 0);
            /* over the contraction's input element by element, unless the
             * caller asks for recomputation (fewer elements, each read
             * many times) */
            int64_t in = elements(s->contraction->args[0]);
            for (int k = 0; ok && k < sp->nops; k++)
                ok = recompute ? sp->op_elements[k] < in : sp->op_elements[k] == in;
            for (int a = 0; ok && a < p->nargs; a++) {
                const ins *v = under_views(p->args[a]);
                const ins *k = ins_is(v, "get_tuple_elem") && v->nargs == 1 ? v->args[0] : v;
                if (k != c && ((holds_contraction(k) && fits_one_kernel(k, p, false)) ||
                               may_join_epilogue(k, 0)))
                    ok = false;
            }
        }
    } else if (ok && s->reduction) {
        const ins *red = s->reduction;
        int64_t n = elements(red->args[0]), rows = elements(red);
        for (int k = 0; ok && k < s->nops; k++)
            ok = s->op_elements[k] == n || s->op_elements[k] == rows;
        /* a reduction of a contraction's epilogue waits for that kernel */
        if (ok && (s->reads_reduced || reduced_read))
            ok = !has_reduction_of_contraction(p) && !has_reduction_of_contraction(c);
    } else if (ok) {
        for (int k = 1; ok && k < s->nops; k++)
            ok = s->op_elements[k] == s->op_elements[0];
    }
    return ok;
}

bool helper_one_kernel(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(fits_one_kernel(a[0].u.in, a[1].u.in, false) && reads_part(a[1].u.in, a[0].u.in));
    return true;
}

bool helper_recomputed_in_kernel(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(fits_one_kernel(a[0].u.in, a[1].u.in, true) && reads_part(a[1].u.in, a[0].u.in));
    return true;
}

bool helper_contraction_flops(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *x = a[0].u.in;
    int64_t flops = 0;
    for (const ins *i = is_region(x) ? x->mods[0]->first : x; i; i = is_region(x) ? i->next : NULL) {
        if (!is_contraction(i) || i->nargs < 2)
            continue;
        /* two operations per multiply-add; the reduction length is the
         * weight's (convolution) or the shared axis's (dot) */
        int64_t per = ins_is(i, "convolution") ? elements(i->args[1]) / (i->args[1]->sh.lens[0] ? i->args[1]->sh.lens[0] : 1)
                                              : i->args[0]->sh.lens[i->args[0]->sh.rank - 1];
        flops += 2 * per * elements(i);
    }
    *out = rule_int(flops);
    return true;
}

bool helper_after_contraction(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(elementwise_from_contraction(a[0].u.in));
    return true;
}

bool helper_recompute_cost(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *p = a[0].u.in, *r = a[1].u.in;
    part_scan *s = calloc(1, sizeof *s);
    if (!s)
        return false;
    scan_part(s, r);
    int64_t per = 1, have = elements(p);
    if (s->contraction && have > 0)
        per = (elements(s->contraction->args[0]) + have - 1) / have;
    free(s);
    rule_value flops;
    helper_recompute_flops(mem, a, 1, &flops);
    *out = rule_int(flops.u.i * (per > 1 ? per : 1));
    return true;
}

/* ---- a reduction region's tail as a contraction's prologue ----
 *
 * split_tail_into(p, c) (engine/rewrite.h, rw_split_tail) computes again in
 * c the values of p that only c reads: the part of p's body they need,
 * back to p's parameters, literals and reductions (the slice). Softmax
 * before a dot is the case: exp(s - max) / sum is pointwise over s once the
 * max and the sum are known, so the dot's kernel can read s and the two
 * per-row values instead of the probabilities, and the softmax kernel
 * writes only the sums. */

enum { TAIL_MAX_BODY = 4 * KERNEL_MAX_OPS };

typedef struct tail_slice {
    const ins *body[TAIL_MAX_BODY];
    bool in[TAIL_MAX_BODY];  /* in the slice */
    bool cut[TAIL_MAX_BODY]; /* a reduction the slice reads */
    int n;
    const ins *outs[TAIL_MAX_BODY]; /* p's output values only c reads */
    int nouts;
    bool only_element_ops;   /* the slice holds pointwise ops and views alone */
} tail_slice;

static int body_position(const tail_slice *t, int below, const ins *x)
{
    for (int k = 0; k < below; k++)
        if (t->body[k] == x)
            return k;
    return -1;
}

/* Whether every use of v, directly or through views, is by c. */
static bool feeds_only(const ins *v, const ins *c, int depth)
{
    if (depth > 16 || !v->nusers)
        return false;
    for (int u = 0; u < v->nusers; u++) {
        const ins *w = v->users[u];
        bool view = (w->op->classes & (OPC_VIEW | OPC_SHAPE)) && !(w->op->classes & OPC_BUILTIN) &&
                    !ins_is(w, "get_tuple_elem") && w->nargs == 1;
        if (w != c && !(view && feeds_only(w, c, depth + 1)))
            return false;
    }
    return true;
}

/* Works out p's slice for c, as rw_split_tail will; false when p is no
 * region or its body is too long to look at. */
static bool tail_slice_of(tail_slice *t, const ins *p, const ins *c)
{
    if (!is_region(p) || p == c)
        return false;
    const ins *ret = module_return(p->mods[0]);
    t->n = t->nouts = 0;
    for (const ins *i = p->mods[0]->first; i; i = i->next) {
        if (t->n == TAIL_MAX_BODY)
            return false;
        t->in[t->n] = t->cut[t->n] = false;
        t->body[t->n++] = i;
    }
    if (!ret)
        return false;
    for (int u = -1; u < p->nusers; u++) {
        const ins *v = u < 0 ? p : p->users[u];
        if ((u < 0) == shape_is_tuple(&p->sh) || (u >= 0 && !ins_is(v, "get_tuple_elem")))
            continue;
        const ins *b = body_value(p, v);
        int at = b ? body_position(t, t->n, b) : -1;
        if (at < 0 || !feeds_only(v, c, 0) || b->param || ins_is(b, "@literal") ||
            (b->op->classes & OPC_REDUCE))
            continue; /* a parameter, literal or reduction c reads stays p's output */
        t->in[at] = true;
        if (t->nouts < TAIL_MAX_BODY)
            t->outs[t->nouts++] = v;
    }
    t->only_element_ops = true;
    for (int k = t->n - 1; k >= 0; k--) {
        if (!t->in[k])
            continue;
        const ins *i = t->body[k];
        if (i->param || ins_is(i, "@literal") || (i->op->classes & OPC_REDUCE) || ins_is(i, "@return")) {
            t->in[k] = false;
            continue;
        }
        if (!element_op(i))
            t->only_element_ops = false;
        for (int a = 0; a < i->nargs; a++) {
            int at = body_position(t, k, i->args[a]);
            if (at < 0)
                continue;
            if (t->body[at]->op->classes & OPC_REDUCE)
                t->cut[at] = true;
            else if (!t->body[at]->param && !ins_is(t->body[at], "@literal")) {
                t->in[at] = true;
            }
        }
    }
    return true;
}

/* The contraction of part c (plain or in a region body) and the graph
 * value its data operand reads, seen through views; NULL when c holds no
 * single contraction. */
static const ins *contraction_data_input(const ins *c, const ins **contraction)
{
    *contraction = NULL;
    if (!is_region(c)) {
        if (!is_contraction(c))
            return NULL;
        *contraction = c;
        return under_views(c->args[0]);
    }
    const ins *found = NULL;
    for (const ins *i = c->mods[0]->first; i; i = i->next)
        if (is_contraction(i)) {
            if (found)
                return NULL;
            found = i;
        }
    if (!found)
        return NULL;
    *contraction = found;
    const ins *b = found->args[0];
    while ((b->op->classes & (OPC_VIEW | OPC_SHAPE)) && !(b->op->classes & OPC_BUILTIN) && b->nargs == 1)
        b = b->args[0];
    int k = b->param && b->param[0] == 'x' ? atoi(b->param + 1) : -1;
    return k >= 0 && k < c->nargs ? under_views(c->args[k]) : NULL;
}

/* Whether region c's prologue (the body ops its contraction's data operand
 * is computed from) reads graph value v. */
static bool prologue_reads_walk(const ins *c, const ins *b, const ins *v, int depth)
{
    if (depth > KERNEL_MAX_OPS || is_contraction(b) || (b->op->classes & OPC_REDUCE))
        return false;
    if (b->param) {
        int k = b->param[0] == 'x' ? atoi(b->param + 1) : -1;
        return k >= 0 && k < c->nargs && under_views(c->args[k]) == v;
    }
    for (int a = 0; a < b->nargs; a++)
        if (prologue_reads_walk(c, b->args[a], v, depth + 1))
            return true;
    return false;
}

static bool prologue_reads(const ins *c, const ins *contraction, const ins *v)
{
    return contraction->nargs && prologue_reads_walk(c, contraction->args[0], v, 0);
}

bool helper_tail_into_prologue(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *p = a[0].u.in, *c = a[1].u.in, *contraction;
    const ins *data = contraction_data_input(c, &contraction);
    tail_slice *t = calloc(1, sizeof *t);
    bool ok = t && contraction && tail_slice_of(t, p, c) && t->nouts > 0 && t->only_element_ops;
    /* p is a reduction's kernel: the values c alone reads are its tail
     * (or the pointwise ops before its reductions), not a whole pointwise
     * kernel, which the prologue rules above take in */
    bool reduces = false;
    for (int k = 0; ok && k < t->n; k++)
        reduces = reduces || (t->body[k]->op->classes & OPC_REDUCE);
    ok = ok && reduces;
    /* and p is whole: it could not still join the kernel of a convolution
     * or dot it reads as that kernel's epilogue and reductions (GroupNorm's
     * sums after a convolution: split early, the bias add would be
     * computed twice and the convolution's output written) */
    for (int k = 0; ok && k < p->nargs; k++) {
        const ins *v = under_views(p->args[k]);
        const ins *r = ins_is(v, "get_tuple_elem") && v->nargs == 1 ? v->args[0] : v;
        ok = r == c || !holds_contraction(r) || !fits_one_kernel(r, p, false);
    }
    /* what the tail feeds is the contraction's data operand, directly or
     * through the prologue c already has */
    bool feeds_data = false;
    for (int k = 0; ok && k < t->nouts; k++)
        feeds_data = feeds_data || t->outs[k] == data || (is_region(c) && prologue_reads(c, contraction, t->outs[k]));
    ok = ok && feeds_data;
    /* the slice runs per element of that operand, or per row of a
     * reduction it reads (recomputed per read, as GroupNorm's rsqrt is) */
    int64_t in = ok ? elements(contraction->args[0]) : 0;
    for (int k = 0; ok && k < t->n; k++) {
        if (!t->in[k] || !(t->body[k]->op->classes & OPC_POINTWISE))
            continue;
        int64_t e = elements(t->body[k]);
        bool per_row = false;
        for (int r = 0; r < t->n && !per_row; r++)
            per_row = t->cut[r] && elements(t->body[r]) == e;
        ok = e == in || per_row;
    }
    free(t);
    *out = rule_bool(ok);
    return true;
}

bool helper_split_bytes_saved(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    const ins *p = a[0].u.in, *c = a[1].u.in;
    tail_slice *t = calloc(1, sizeof *t);
    if (!t)
        return false;
    int64_t saved = 0;
    if (tail_slice_of(t, p, c)) {
        /* the tail's values are no longer written by p and read by c */
        for (int k = 0; k < t->nouts; k++)
            saved += 2 * bytes(t->outs[k]);
        const ins *ret = module_return(p->mods[0]);
        /* the reductions the tail reads become outputs of p, unless they are */
        for (int k = 0; k < t->n; k++) {
            bool output = false;
            for (int r = 0; ret && r < ret->nargs && !output; r++)
                output = ret->args[r] == t->body[k];
            if (t->cut[k] && !output)
                saved -= 2 * bytes(t->body[k]);
        }
        /* c reads the inputs of p the slice reads, once each, unless it
         * reads them already */
        for (int k = 0; k < t->n; k++) {
            const ins *b = t->body[k];
            bool used = false;
            for (int j = k + 1; j < t->n && !used; j++)
                for (int x = 0; t->in[j] && x < t->body[j]->nargs; x++)
                    used = used || t->body[j]->args[x] == b;
            int x = b->param && b->param[0] == 'x' ? atoi(b->param + 1) : -1;
            if (!used || x < 0 || x >= p->nargs)
                continue;
            const ins *v = under_views(p->args[x]);
            bool read = false;
            for (int y = 0; y < c->nargs && !read; y++)
                read = under_views(c->args[y]) == v;
            if (!read)
                saved -= bytes(v);
        }
    }
    free(t);
    *out = rule_int(saved);
    return true;
}
