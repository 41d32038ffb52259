/* kernel_traffic.c: the memory traffic of a graph's kernels, and the least
 * traffic any partition of the graph into kernels needs (the `bytes_moved`
 * and `bytes_lower_bound` of `graft opt --stats`). Their ratio says how far
 * a fusion result is from the best it could be; both are computed from the
 * op table's classes and the shapes alone, like the kernel counts
 * (kernel_counts.h), whose notion of a kernel they share.
 *
 * Bytes of a value: the distinct elements its shape addresses times the
 * element size, that is the product of the lens whose stride is not 0 (a
 * broadcast addresses its source's elements once; a slice only its own;
 * a tuple is the sum of its elements).
 *
 * A value's buffer: the value itself, or for a view (OPC_VIEW, and a
 * reshape-like op that is not a copy kernel) the buffer of the value it
 * views. A tuple read (a view of a tuple-valued instruction) is a buffer of
 * its own: each output of a multi-output region is stored apart.
 *
 * bytes_moved: the sum over the kernels of the main module of
 *  - reads: for each distinct buffer among the kernel's operands, the bytes
 *    of the distinct operands that view it, at most the buffer's bytes (a
 *    kernel reading x and broadcast(x) reads x once); for a region, also the
 *    bytes of each literal inside its body;
 *  - writes: the bytes of the kernel's value (all outputs of a region).
 * Views, parameters, literals and the return move nothing by themselves.
 *
 * bytes_lower_bound: what every partition into kernels must move, on the
 * graph with every region's body put back in its place (so fusing does not
 * change it):
 *  - the graph inputs (parameters that are read) and weights (literals that
 *    are read), each read once;
 *  - the graph outputs (the buffers the main @return reads that are not
 *    parameters or literals), each written once;
 *  - each value that must cross a kernel boundary, written once and read
 *    once (2x its bytes; 1x when it is a graph output already counted).
 *    A value must cross when it is the output of a compute op (OPC_COMPUTE:
 *    convolution, dot, pooling, ...; an op that makes a kernel of its own,
 *    which produces its output tile by tile) that reaches a reduction, another
 *    compute op or an opaque op through views, pointwise and data-movement
 *    ops only. Such a consumer needs whole rows or windows of the value, made
 *    by other tiles, before it can finish one element: the value must go to
 *    memory and come back (recomputing a compute op instead costs far more
 *    than the traffic). The views and pointwise ops in between can join
 *    either kernel, so they add nothing. Outputs of reductions are not
 *    counted: a reduction and the pointwise ops that read it fit in one
 *    kernel per row (LayerNorm, softmax), and those that do cross are small.
 * So a partition that writes each crossing value once, reads it once, and
 * reads inputs and weights once has bytes_moved = bytes_lower_bound.
 */
#include "concat_in_place.h"
#include "kernel_counts.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of the distinct elements a shape addresses. */
static int64_t distinct_bytes(const shape *s)
{
    if (shape_is_tuple(s)) {
        int64_t sum = 0;
        for (int k = 0; k < s->ntuple; k++)
            sum += distinct_bytes(&s->tuple[k]);
        return sum;
    }
    int64_t n = 1;
    for (int d = 0; d < s->rank; d++) {
        if (s->lens[d] == 0)
            return 0;
        if (s->strides[d] != 0)
            n *= s->lens[d];
    }
    return n * (int64_t)type_size(s->type);
}

static bool is_tuple_read(const ins *v)
{
    return (v->op->classes & OPC_VIEW) && v->nargs == 1 && shape_is_tuple(&v->args[0]->sh);
}

static bool is_region(const ins *v)
{
    return v->nmods > 0;
}

static bool is_literal(const ins *v)
{
    return (v->op->classes & OPC_BUILTIN) && !v->param && v->nargs == 0;
}

/* The buffer whose data v reads (see above). */
static const ins *buffer_of(const ins *v)
{
    for (;;) {
        unsigned c = v->op->classes;
        if (v->nargs < 1 || is_tuple_read(v) || is_region(v))
            return v;
        if (c & OPC_VIEW)
            v = v->args[0];
        else if ((c & OPC_SHAPE) && !instruction_is_kernel(v))
            v = v->args[0];
        else
            return v;
    }
}

/* Bytes read from the buffers that the n values vals view: per distinct
 * buffer, the sum of its distinct viewers' bytes, at most the buffer's own.
 * Buffers that are parameters or literals are left out when skip_inputs. */
static int64_t bytes_read(ins *const *vals, int n, bool skip_inputs)
{
    int64_t total = 0;
    for (int k = 0; k < n; k++) {
        const ins *buf = buffer_of(vals[k]);
        bool seen = false;
        for (int j = 0; j < k && !seen; j++)
            seen = buffer_of(vals[j]) == buf;
        if (seen)
            continue; /* counted with the first operand that views buf */
        if (skip_inputs && (buf->op->classes & OPC_BUILTIN))
            continue;
        int64_t sum = 0;
        for (int j = k; j < n; j++) {
            if (buffer_of(vals[j]) != buf)
                continue;
            bool again = false;
            for (int i = k; i < j && !again; i++)
                again = vals[i] == vals[j];
            if (!again)
                sum += distinct_bytes(&vals[j]->sh);
        }
        int64_t whole = distinct_bytes(&buf->sh);
        total += sum < whole ? sum : whole;
    }
    return total;
}

static int64_t kernel_bytes(const ins *k)
{
    int64_t moved = bytes_read(k->args, k->nargs, false) + distinct_bytes(&k->sh);
    for (int m = 0; m < k->nmods; m++)
        for (const ins *b = k->mods[m]->first; b; b = b->next)
            if (is_literal(b) && b->nusers > 0)
                moved += distinct_bytes(&b->sh);
    return moved;
}

/* The body parameter bound to operand k of a region (named x<k>). */
static const ins *body_param(const module *body, int k)
{
    for (const ins *p = body->first; p; p = p->next) {
        if (!p->param || p->param[0] != 'x')
            continue;
        char *end;
        long n = strtol(p->param + 1, &end, 10);
        if (!*end && n == k && end != p->param + 1)
            return p;
    }
    return NULL;
}

static int64_t tuple_index(const ins *read)
{
    const attr *a = attr_find(read->attrs, read->nattrs, "index");
    return a ? a->v.u.i : -1;
}

/* Per instruction id: does its value reach an anchor (a compute op, a
 * reduction or an opaque op) through views, pointwise and data-movement
 * ops only, with region bodies in their place? */
typedef struct reach_pass {
    unsigned char *reaches;
} reach_pass;

static bool is_anchor(const ins *u)
{
    return (u->op->classes & (OPC_COMPUTE | OPC_REDUCE | OPC_OPAQUE)) != 0;
}

/* Does output `slot` of region r reach an anchor? */
static bool region_output_reaches(const reach_pass *p, const ins *r, int slot)
{
    if (!shape_is_tuple(&r->sh))
        return p->reaches[r->id] != 0;
    for (int j = 0; j < r->nusers; j++) {
        const ins *read = r->users[j];
        if (is_tuple_read(read) && tuple_index(read) == slot && p->reaches[read->id])
            return true;
    }
    return false;
}

static bool value_reaches(const reach_pass *p, const ins *v, const ins *owner)
{
    for (int j = 0; j < v->nusers; j++) {
        const ins *u = v->users[j];
        int slot = v->user_slot[j];
        if (is_region(u)) {
            const ins *x = body_param(u->mods[0], slot);
            if (x && p->reaches[x->id])
                return true;
        } else if (u->op->classes & OPC_BUILTIN) {
            /* the @return: of the graph (an output), or of a region body */
            if (owner && region_output_reaches(p, owner, slot))
                return true;
        } else if (is_anchor(u) || p->reaches[u->id]) {
            return true;
        }
    }
    return false;
}

/* Users come after their operands, so a walk from the last instruction back
 * sees every user first; a region's body is walked right after the region,
 * before anything that reads the region's operands. */
static void mark_reaching(reach_pass *p, const module *m, const ins *owner)
{
    for (const ins *i = m->last; i; i = i->prev) {
        p->reaches[i->id] = value_reaches(p, i, owner);
        if (is_region(i))
            mark_reaching(p, i->mods[0], i);
    }
}

/* The instruction that computes the buffer v stands for, looking into a
 * region's body for a region output (regions do not nest). */
static const ins *computed_by(const ins *v)
{
    const ins *buf = buffer_of(v);
    const ins *r = NULL;
    int64_t slot = 0;
    if (is_region(buf) && !shape_is_tuple(&buf->sh)) {
        r = buf;
    } else if (is_tuple_read(buf) && is_region(buf->args[0])) {
        r = buf->args[0];
        slot = tuple_index(buf);
    }
    if (!r)
        return buf;
    const ins *ret = module_return(r->mods[0]);
    if (!ret || slot < 0 || slot >= ret->nargs)
        return buf;
    return buffer_of(ret->args[slot]);
}

static int64_t lower_bound_in(const module *m, const reach_pass *p,
                              const unsigned char *is_output)
{
    int64_t bound = 0;
    for (const ins *i = m->first; i; i = i->next) {
        if (is_region(i))
            bound += lower_bound_in(i->mods[0], p, is_output);
        else if (is_literal(i) && i->nusers > 0)
            bound += distinct_bytes(&i->sh);
        else if ((i->op->classes & OPC_COMPUTE) && p->reaches[i->id])
            bound += (is_output[i->id] ? 1 : 2) * distinct_bytes(&i->sh);
    }
    return bound;
}

void graph_kernel_traffic(const graph *g, int64_t *bytes_moved, int64_t *bytes_lower_bound)
{
    *bytes_moved = *bytes_lower_bound = 0;
    const module *m = graph_main(g);
    if (!m)
        return;
    /* An in-place concat is no kernel: its operands' kernels wrote it. */
    concat_plan *placed = concat_plan_build(m);
    for (const ins *i = m->first; i; i = i->next)
        if (instruction_is_kernel(i) && !concat_plan_placed(placed, i))
            *bytes_moved += kernel_bytes(i);
    concat_plan_free(placed);

    reach_pass p;
    p.reaches = calloc(g->next_id ? g->next_id : 1, 1);
    unsigned char *is_output = calloc(g->next_id ? g->next_id : 1, 1);
    if (!p.reaches || !is_output) {
        free(p.reaches);
        free(is_output);
        *bytes_lower_bound = -1;
        return;
    }
    mark_reaching(&p, m, NULL);
    int64_t bound = 0;
    const ins *ret = module_return(m);
    if (ret) {
        bound += bytes_read(ret->args, ret->nargs, true);
        for (int k = 0; k < ret->nargs; k++)
            is_output[computed_by(ret->args[k])->id] = 1;
    }
    for (const ins *i = m->first; i; i = i->next)
        if (i->param && i->nusers > 0)
            bound += distinct_bytes(&i->sh);
    bound += lower_bound_in(m, &p, is_output);
    *bytes_lower_bound = bound;
    free(p.reaches);
    free(is_output);
}
