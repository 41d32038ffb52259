/* ops_util.c: the attribute readings and layout rules shared by shape rules
 * and kernels (see ops_util.h for why they live in one place).
 */
#include "ops_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ops_ints_text(const int64_t *v, int n, char *buf, size_t size)
{
    ints_print(v, n, buf, size);
    return buf;
}

const char *ops_lens_text(const shape *s, char *buf, size_t size)
{
    if (s->type == GRAFT_TUPLE) {
        snprintf(buf, size, "tuple");
        return buf;
    }
    return ops_ints_text(s->lens, s->rank, buf, size);
}

bool ops_normalize_axis(const op_call *call, const char *what, int64_t axis, int rank, int *out,
                        graft_error *err)
{
    if (axis < -(int64_t)rank || axis >= rank)
        return error_set(err, "%s: %s %lld is out of range for rank %d", call->op->name, what,
                         (long long)axis, rank);
    *out = (int)(axis < 0 ? axis + rank : axis);
    return true;
}

bool ops_normalize_axes(const op_call *call, const char *what, const int64_t *axes, int n, int rank,
                        int *out, int *nout, graft_error *err)
{
    char buf[160];
    if (n > rank)
        return error_set(err, "%s: %s %s names more axes than the rank %d", call->op->name, what,
                         ops_ints_text(axes, n, buf, sizeof buf), rank);
    for (int i = 0; i < n; i++) {
        if (!ops_normalize_axis(call, what, axes[i], rank, &out[i], err))
            return false;
        for (int j = 0; j < i; j++)
            if (out[j] == out[i])
                return error_set(err, "%s: %s %s names axis %d twice", call->op->name, what,
                                 ops_ints_text(axes, n, buf, sizeof buf), out[i]);
    }
    *nout = n;
    return true;
}

bool ops_reduce_axes(const op_call *call, int rank, bool *reduced, graft_error *err)
{
    int n = 0, axes[SHAPE_MAX_RANK], nout = 0;
    const int64_t *given = op_attr_ints(call, "axes", &n);
    if (!ops_normalize_axes(call, "axes", given, n, rank, axes, &nout, err))
        return false;
    for (int a = 0; a < rank; a++)
        reduced[a] = nout == 0;
    for (int i = 0; i < nout; i++)
        reduced[axes[i]] = true;
    return true;
}

/* A start or end index read the ONNX way: negative counts from the back,
 * then clamped into [0, len]. */
static int64_t clamp_index(int64_t i, int64_t len)
{
    if (i < 0)
        i = i < -len ? 0 : i + len;
    return i > len ? len : i;
}

bool ops_slice_bounds(const op_call *call, const shape *in, int64_t *starts, int64_t *counts,
                      graft_error *err)
{
    const char *name = call->op->name;
    int naxes = 0, nstarts = 0, nends = 0;
    const int64_t *axes = op_attr_ints(call, "axes", &naxes);
    const int64_t *st = op_attr_ints(call, "starts", &nstarts);
    const int64_t *en = op_attr_ints(call, "ends", &nends);
    int rank = in->rank;
    if (nstarts != nends)
        return error_set(err, "%s: %d starts but %d ends", name, nstarts, nends);
    if (naxes != 0 && naxes != nstarts)
        return error_set(err, "%s: %d axes but %d starts", name, naxes, nstarts);
    if (naxes == 0 && nstarts > rank)
        return error_set(err, "%s: %d starts for an input of rank %d", name, nstarts, rank);
    int norm[SHAPE_MAX_RANK], nnorm = 0;
    if (naxes && !ops_normalize_axes(call, "axes", axes, naxes, rank, norm, &nnorm, err))
        return false;
    if (!naxes)
        for (int i = 0; i < nstarts; i++)
            norm[i] = i;
    for (int a = 0; a < rank; a++) {
        starts[a] = 0;
        counts[a] = in->lens[a];
    }
    for (int i = 0; i < nstarts; i++) {
        int a = norm[i];
        int64_t len = in->lens[a];
        int64_t s = clamp_index(st[i], len), e = clamp_index(en[i], len);
        starts[a] = s;
        counts[a] = e > s ? e - s : 0;
    }
    return true;
}

bool ops_is_permutation(const int64_t *perm, int n, int rank)
{
    if (n != rank)
        return false;
    bool seen[SHAPE_MAX_RANK] = {false};
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]])
            return false;
        seen[perm[i]] = true;
    }
    return true;
}

bool ops_is_identity_permutation(const int64_t *perm, int n)
{
    for (int i = 0; i < n; i++)
        if (perm[i] != i)
            return false;
    return true;
}

shape ops_unary_layout(const shape *s)
{
    if (shape_scalar_p(s))
        return *s;
    if (shape_broadcasted_p(s))
        return shape_as_standard(s);
    return shape_with_lens(s, s->rank, s->lens);
}

/* A stride 0 on an axis longer than 1: an element read more than once. */
static bool broadcasts_long_axis(const shape *s)
{
    for (int i = 0; i < s->rank; i++)
        if (s->lens[i] > 1 && s->strides[i] == 0)
            return true;
    return false;
}

shape ops_binary_layout(const shape *a, const shape *b)
{
    bool ap = shape_packed_p(a), bp = shape_packed_p(b);
    bool ab = shape_broadcasted_p(a), bb = shape_broadcasted_p(b);
    if (shape_equal(a, b) && (ap || ab))
        return *a;
    /* Operands that broadcast alike along an axis longer than 1 and differ
     * only in the strides of length-1 axes (which address nothing) read
     * alike: the result takes a's broadcast layout, as for equal shapes.
     * Comparing those strides too made the layout depend on which rewrite
     * had touched a length-1 axis of one operand first (seed 1028030: mul
     * of mb {4, 1, 0, 0} and mb {0, 1, 0, 0} of lens {1, 4, 2, 3} was
     * standard, and broadcast once a reshape rule had changed the first
     * operand's leading stride to 0). Only a broadcast along a longer axis
     * counts: a 0 stride on a length-1 axis alone is no broadcast a reader
     * could keep, and taking it into the result made shape_broadcasted_p
     * see one there. Nor a broadcast of one element (element space 1):
     * that is a scalar whatever its strides, and it kept the standard
     * result two such operands always had (seed 6893: the core's
     * sub(mb(literal), mb(neg)) of one element each, broadcast along one
     * axis, kept three views where it took a broadcast layout). */
    if (broadcasts_long_axis(a) && shape_element_space(a) > 1 && shape_same_layout(a, b))
        return *a;
    if (ap != bp)
        return ap ? *a : *b;
    if (ab == bb && shape_scalar_p(a) != shape_scalar_p(b))
        return shape_scalar_p(a) ? *b : *a;
    if (ab != bb) {
        shape s = ab ? shape_with_lens(b, a->rank, a->lens) : shape_with_lens(a, a->rank, a->lens);
        s.type = a->type;
        return s;
    }
    shape both[2] = {*a, *b};
    int perm[SHAPE_MAX_RANK];
    ops_common_permutation(both, 2, perm);
    return shape_from_permutation(a->type, a->rank, a->lens, perm);
}

static bool perm_less(const int *p, const int *q, int rank)
{
    for (int i = 0; i < rank; i++)
        if (p[i] != q[i])
            return p[i] < q[i];
    return false;
}

/* The stride order of each non-broadcast operand of this rank, counted; the
 * most common wins (ties: the lexicographically smallest). */
static void most_common_permutation(const shape *inputs, int n, int rank, int (*perms)[SHAPE_MAX_RANK],
                                    int *perm)
{
    int best = -1, best_count = 0;
    for (int k = 0; k < n; k++)
        if (!shape_broadcasted_p(&inputs[k]) && inputs[k].rank == rank)
            shape_find_permutation(&inputs[k], perms[k]);
    for (int k = 0; k < n; k++) {
        if (shape_broadcasted_p(&inputs[k]) || inputs[k].rank != rank)
            continue;
        int count = 0;
        for (int j = 0; j < n; j++)
            if (!shape_broadcasted_p(&inputs[j]) && inputs[j].rank == rank &&
                memcmp(perms[j], perms[k], sizeof(int) * (size_t)rank) == 0)
                count++;
        if (count > best_count ||
            (count == best_count && best >= 0 && perm_less(perms[k], perms[best], rank))) {
            best = k;
            best_count = count;
        }
    }
    if (best >= 0)
        memcpy(perm, perms[best], sizeof(int) * (size_t)rank);
}

void ops_common_permutation(const shape *inputs, int n, int *perm)
{
    int rank = inputs[0].rank;
    for (int i = 0; i < rank; i++)
        perm[i] = i;
    int local[16][SHAPE_MAX_RANK];
    if (n <= 16) {
        most_common_permutation(inputs, n, rank, local, perm);
        return;
    }
    /* Many operands (a wide concat): count on the heap; without memory the
     * result stays row-major, which is still a valid layout. */
    int (*perms)[SHAPE_MAX_RANK] = malloc(sizeof *perms * (size_t)n);
    if (!perms)
        return;
    most_common_permutation(inputs, n, rank, perms, perm);
    free(perms);
}

shape ops_common_layout(const shape *inputs, int n)
{
    const shape *first = &inputs[0];
    bool all_standard = true;
    for (int k = 0; k < n; k++)
        if (!shape_broadcasted_p(&inputs[k]) && !shape_standard_p(&inputs[k]))
            all_standard = false;
    if (all_standard)
        return shape_standard(first->type, first->rank, first->lens);
    int perm[SHAPE_MAX_RANK];
    ops_common_permutation(inputs, n, perm);
    return shape_from_permutation(first->type, first->rank, first->lens, perm);
}

bool ops_lens_product(const int64_t *lens, int n, int64_t *out)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        if (lens[i] < 0 || __builtin_mul_overflow(p, lens[i], &p))
            return false;
    *out = p;
    return true;
}

enum { OPS_MAX_ELEMENTS_LOG2 = 62 };

bool ops_check_result_lens(const op_call *call, const int64_t *lens, int rank, graft_error *err)
{
    /* Row-major strides multiply every length (a 0 counts as 1), so that
     * product is what must stay in range. */
    int64_t total = 1;
    char buf[200];
    for (int i = 0; i < rank; i++) {
        if (lens[i] < 0)
            return error_set(err, "%s: the result %s has a negative length", call->op->name,
                             ops_ints_text(lens, rank, buf, sizeof buf));
        if (__builtin_mul_overflow(total, lens[i] > 0 ? lens[i] : 1, &total) ||
            total > ((int64_t)1 << OPS_MAX_ELEMENTS_LOG2))
            return error_set(err, "%s: the result %s has too many elements", call->op->name,
                             ops_ints_text(lens, rank, buf, sizeof buf));
    }
    return true;
}

bool ops_check_operand(const op_call *call, int k, graft_error *err)
{
    const shape *s = &call->inputs[k];
    const int64_t limit = (int64_t)1 << OPS_MAX_ELEMENTS_LOG2;
    /* Every shape rule call checks every operand: one pass that only says
     * yes, and the checks below, in their order, for the message when it
     * says no. */
    bool fine = true;
    int64_t elements = 1, span = 0;
    for (int i = 0; i < s->rank && fine; i++) {
        int64_t len = s->lens[i], stride = s->strides[i], step;
        fine = len >= 0 && stride >= 0 &&
               !__builtin_mul_overflow(elements, len > 0 ? len : 1, &elements) &&
               elements <= limit &&
               (len == 0 || (!__builtin_mul_overflow(len - 1, stride, &step) &&
                             !__builtin_add_overflow(span, step, &span) && span <= limit));
    }
    if (fine)
        return true;
    int64_t space = 0;
    char a[200], b[200];
    if (!ops_check_result_lens(call, s->lens, s->rank, NULL))
        return error_set(err, "%s: operand %d %s has too many elements", call->op->name, k,
                         ops_lens_text(s, a, sizeof a));
    for (int i = 0; i < s->rank; i++) {
        int64_t step;
        if (s->strides[i] < 0 || s->lens[i] == 0)
            continue;
        if (__builtin_mul_overflow(s->lens[i] - 1, s->strides[i], &step) ||
            __builtin_add_overflow(space, step, &space) || space > limit)
            return error_set(err, "%s: operand %d %s with strides %s spans too much memory",
                             call->op->name, k, ops_lens_text(s, a, sizeof a),
                             ops_ints_text(s->strides, s->rank, b, sizeof b));
    }
    for (int i = 0; i < s->rank; i++)
        if (s->strides[i] < 0)
            return error_set(err, "%s: operand %d has the negative strides %s", call->op->name, k,
                             ops_ints_text(s->strides, s->rank, b, sizeof b));
    return true;
}

bool ops_check_same_lens(const op_call *call, int first, int count, graft_error *err)
{
    const shape *ref = &call->inputs[first];
    for (int k = first + 1; k < first + count; k++) {
        if (!shape_same_lens(ref, &call->inputs[k])) {
            char a[160], b[160];
            return error_set(err, "%s: operand shapes differ: %s vs %s", call->op->name,
                             ops_lens_text(ref, a, sizeof a),
                             ops_lens_text(&call->inputs[k], b, sizeof b));
        }
    }
    return true;
}

bool ops_check_same_type(const op_call *call, int first, int count, graft_error *err)
{
    const shape *ref = &call->inputs[first];
    for (int k = first + 1; k < first + count; k++)
        if (call->inputs[k].type != ref->type)
            return error_set(err, "%s: operand types differ: %s vs %s", call->op->name,
                             type_name(ref->type), type_name(call->inputs[k].type));
    return true;
}

bool ops_check_rank_at_least(const op_call *call, int input, int rank, graft_error *err)
{
    if (call->inputs[input].rank < rank) {
        char buf[160];
        return error_set(err, "%s: operand %d has rank %d (%s); at least %d is needed",
                         call->op->name, input, call->inputs[input].rank,
                         ops_lens_text(&call->inputs[input], buf, sizeof buf), rank);
    }
    return true;
}
