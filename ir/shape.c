/* shape.c: element types, shape construction and MIGraphX's predicates.
 *
 * The predicates are MIGraphX's definitions, restated:
 *   skips       elements > 1 and no stride is 1
 *   packed      not skips, and elements == element_space
 *   broadcasted some stride is 0
 *   scalar      every stride is 0
 *   transposed  the non-zero strides are not in descending order
 *   standard    elements == element_space, not skips, and the strides of the
 *               axes whose len is not 1 are in descending order
 */
#include "shape.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    const char *short_name;
    size_t size;
} type_table[GRAFT_TYPE_COUNT] = {
    [GRAFT_BOOL] = {"bool_type", "bool", 1},       [GRAFT_HALF] = {"half_type", "half", 2},
    [GRAFT_FLOAT] = {"float_type", "float", 4},    [GRAFT_DOUBLE] = {"double_type", "double", 8},
    [GRAFT_UINT8] = {"uint8_type", "uint8", 1},    [GRAFT_INT8] = {"int8_type", "int8", 1},
    [GRAFT_UINT16] = {"uint16_type", "uint16", 2}, [GRAFT_INT16] = {"int16_type", "int16", 2},
    [GRAFT_INT32] = {"int32_type", "int32", 4},    [GRAFT_INT64] = {"int64_type", "int64", 8},
    [GRAFT_UINT32] = {"uint32_type", "uint32", 4}, [GRAFT_UINT64] = {"uint64_type", "uint64", 8},
    [GRAFT_BF16] = {"bf16_type", "bf16", 2},       [GRAFT_TUPLE] = {"tuple_type", "tuple", 0},
};

const char *type_name(graft_type t)
{
    return (unsigned)t < GRAFT_TYPE_COUNT ? type_table[t].name : "unknown_type";
}

bool type_from_name(const char *name, size_t len, graft_type *out)
{
    for (int t = 0; t < GRAFT_TYPE_COUNT; t++) {
        const char *a = type_table[t].name, *b = type_table[t].short_name;
        if (len == 0 || (a[0] != name[0] && b[0] != name[0]))
            continue;
        if ((strlen(a) == len && memcmp(a, name, len) == 0) ||
            (strlen(b) == len && memcmp(b, name, len) == 0)) {
            *out = (graft_type)t;
            return true;
        }
    }
    return false;
}

size_t type_size(graft_type t) { return (unsigned)t < GRAFT_TYPE_COUNT ? type_table[t].size : 0; }

bool type_is_float(graft_type t)
{
    return t == GRAFT_HALF || t == GRAFT_FLOAT || t == GRAFT_DOUBLE || t == GRAFT_BF16;
}

bool type_is_integer(graft_type t) { return !type_is_float(t) && t != GRAFT_TUPLE; }

bool type_is_signed(graft_type t)
{
    return type_is_float(t) || t == GRAFT_INT8 || t == GRAFT_INT16 || t == GRAFT_INT32 ||
           t == GRAFT_INT64;
}

void shape_compute_strides(int rank, const int64_t *lens, int64_t *strides)
{
    int64_t acc = 1;
    for (int i = rank - 1; i >= 0; i--) {
        strides[i] = acc;
        acc *= lens[i] > 0 ? lens[i] : 1;
    }
}

shape shape_standard(graft_type t, int rank, const int64_t *lens)
{
    shape s;
    shape_clear(&s);
    s.type = t;
    s.rank = rank;
    for (int i = 0; i < rank; i++)
        s.lens[i] = lens[i];
    shape_compute_strides(rank, s.lens, s.strides);
    return s;
}

shape shape_with_strides(graft_type t, int rank, const int64_t *lens, const int64_t *strides)
{
    shape s;
    shape_clear(&s);
    s.type = t;
    s.rank = rank;
    for (int i = 0; i < rank; i++) {
        s.lens[i] = lens[i];
        s.strides[i] = strides[i];
    }
    return s;
}

shape shape_scalar(graft_type t)
{
    int64_t one = 1, zero = 0;
    return shape_with_strides(t, 1, &one, &zero);
}

shape shape_as_standard(const shape *s) { return shape_standard(s->type, s->rank, s->lens); }

void shape_find_permutation(const shape *s, int *perm)
{
    /* Stable insertion sort: slower strides first, then larger lens first. */
    for (int i = 0; i < s->rank; i++)
        perm[i] = i;
    for (int i = 1; i < s->rank; i++) {
        int axis = perm[i], j = i;
        while (j > 0) {
            int prev = perm[j - 1];
            bool before = s->strides[axis] > s->strides[prev] ||
                          (s->strides[axis] == s->strides[prev] && s->lens[axis] > s->lens[prev]);
            if (!before)
                break;
            perm[j] = prev;
            j--;
        }
        perm[j] = axis;
    }
}

shape shape_from_permutation(graft_type t, int rank, const int64_t *lens, const int *perm)
{
    int64_t ordered[SHAPE_MAX_RANK] = {0}, ordered_strides[SHAPE_MAX_RANK] = {0};
    int64_t strides[SHAPE_MAX_RANK] = {0};
    for (int i = 0; i < rank; i++)
        ordered[i] = lens[perm[i]];
    shape_compute_strides(rank, ordered, ordered_strides);
    for (int i = 0; i < rank; i++)
        strides[perm[i]] = ordered_strides[i];
    return shape_with_strides(t, rank, lens, strides);
}

shape shape_with_lens(const shape *s, int rank, const int64_t *lens)
{
    if (rank != s->rank || shape_standard_p(s) || shape_broadcasted_p(s))
        return shape_standard(s->type, rank, lens);
    int perm[SHAPE_MAX_RANK];
    shape_find_permutation(s, perm);
    return shape_from_permutation(s->type, rank, lens, perm);
}

int64_t shape_elements(const shape *s)
{
    if (s->type == GRAFT_TUPLE)
        return 0;
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++)
        n *= s->lens[i];
    return n;
}

int64_t shape_element_space(const shape *s)
{
    if (s->type == GRAFT_TUPLE)
        return 0;
    int64_t space = 1;
    for (int i = 0; i < s->rank; i++) {
        if (s->lens[i] <= 0)
            return 0;
        space += (s->lens[i] - 1) * s->strides[i];
    }
    return space;
}

size_t shape_bytes(const shape *s) { return (size_t)shape_element_space(s) * type_size(s->type); }

bool shape_skips_p(const shape *s)
{
    if (shape_elements(s) <= 1)
        return false;
    for (int i = 0; i < s->rank; i++)
        if (s->strides[i] == 1)
            return false;
    return true;
}

bool shape_packed_p(const shape *s)
{
    return s->type != GRAFT_TUPLE && !shape_skips_p(s) &&
           shape_elements(s) == shape_element_space(s);
}

bool shape_broadcasted_p(const shape *s)
{
    for (int i = 0; i < s->rank; i++)
        if (s->strides[i] == 0)
            return true;
    return false;
}

bool shape_lens_broadcast_to(const int64_t *from, int nfrom, const int64_t *to, int nto)
{
    if (nfrom > nto)
        return false;
    for (int i = 0; i < nfrom; i++)
        if (from[i] != 1 && from[i] != to[nto - nfrom + i])
            return false;
    return true;
}

bool shape_widens_p(const shape *s)
{
    for (int i = 0; i < s->rank; i++)
        if (s->lens[i] > 1 && s->strides[i] == 0)
            return true;
    return false;
}

bool shape_scalar_p(const shape *s)
{
    if (s->type == GRAFT_TUPLE || s->rank == 0)
        return false;
    for (int i = 0; i < s->rank; i++)
        if (s->strides[i] != 0)
            return false;
    return true;
}

bool shape_transposed_p(const shape *s)
{
    int64_t prev = -1;
    bool first = true;
    for (int i = 0; i < s->rank; i++) {
        if (s->strides[i] == 0)
            continue;
        if (!first && s->strides[i] > prev)
            return true;
        prev = s->strides[i];
        first = false;
    }
    return false;
}

bool shape_standard_p(const shape *s)
{
    if (s->type == GRAFT_TUPLE)
        return false;
    if (shape_elements(s) != shape_element_space(s) || shape_skips_p(s))
        return false;
    int64_t prev = -1;
    bool first = true;
    for (int i = 0; i < s->rank; i++) {
        if (s->lens[i] == 1)
            continue;
        if (!first && s->strides[i] > prev)
            return false;
        prev = s->strides[i];
        first = false;
    }
    return true;
}

bool shape_is_tuple(const shape *s) { return s->type == GRAFT_TUPLE; }

bool shape_same_lens(const shape *a, const shape *b)
{
    if (a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->lens[i] != b->lens[i])
            return false;
    return true;
}

bool shape_equal(const shape *a, const shape *b)
{
    if (a->type != b->type)
        return false;
    if (a->type == GRAFT_TUPLE) {
        if (a->ntuple != b->ntuple)
            return false;
        for (int i = 0; i < a->ntuple; i++)
            if (!shape_equal(&a->tuple[i], &b->tuple[i]))
                return false;
        return true;
    }
    if (!shape_same_lens(a, b))
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->strides[i] != b->strides[i])
            return false;
    return true;
}

/* Same type and lens, and the same strides on every axis longer than 1: a
 * length-1 axis is only ever indexed at 0, so its stride addresses nothing
 * and two such shapes read the same elements in the same places. */
bool shape_same_layout(const shape *a, const shape *b)
{
    if (a->type != b->type || a->type == GRAFT_TUPLE)
        return shape_equal(a, b);
    if (!shape_same_lens(a, b))
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->lens[i] > 1 && a->strides[i] != b->strides[i])
            return false;
    return true;
}

int64_t shape_index(const shape *s, const int64_t *idx)
{
    int64_t off = 0;
    for (int i = 0; i < s->rank; i++)
        off += idx[i] * s->strides[i];
    return off;
}

int64_t shape_index_of_linear(const shape *s, int64_t i)
{
    int64_t off = 0;
    for (int d = s->rank - 1; d >= 0; d--) {
        int64_t len = s->lens[d] > 0 ? s->lens[d] : 1;
        off += (i % len) * s->strides[d];
        i /= len;
    }
    return off;
}

static int append(char *buf, size_t size, int at, const char *fmt, long long v)
{
    size_t room = (size_t)at < size ? size - (size_t)at : 0;
    return at + snprintf(room ? buf + at : NULL, room, fmt, v);
}

int ints_print(const int64_t *v, int n, char *buf, size_t size)
{
    int at = 0;
    at = append(buf, size, at, "{", 0);
    for (int i = 0; i < n; i++)
        at = append(buf, size, at, i ? ", %lld" : "%lld", (long long)v[i]);
    at = append(buf, size, at, "}", 0);
    return at;
}

int shape_print(const shape *s, char *buf, size_t size)
{
    int at = 0;
    if (s->type == GRAFT_TUPLE) {
        at = append(buf, size, at, "[", 0);
        for (int i = 0; i < s->ntuple; i++) {
            if (i)
                at = append(buf, size, at, ", ", 0);
            size_t room = (size_t)at < size ? size - (size_t)at : 0;
            at += shape_print(&s->tuple[i], room ? buf + at : NULL, room);
        }
        return append(buf, size, at, "]", 0);
    }
    size_t room = size;
    at = snprintf(buf, room, "%s, ", type_name(s->type));
    room = (size_t)at < size ? size - (size_t)at : 0;
    at += ints_print(s->lens, s->rank, room ? buf + at : NULL, room);
    at = append(buf, size, at, ", ", 0);
    room = (size_t)at < size ? size - (size_t)at : 0;
    at += ints_print(s->strides, s->rank, room ? buf + at : NULL, room);
    return at;
}

bool shape_regroup_strides(const shape *in, int rank, const int64_t *lens, int64_t *strides)
{
    int64_t ol[SHAPE_MAX_RANK], os[SHAPE_MAX_RANK];
    int on = 0, nidx[SHAPE_MAX_RANK], nn = 0;
    for (int a = 0; a < in->rank; a++)
        if (in->lens[a] != 1) {
            ol[on] = in->lens[a];
            os[on++] = in->strides[a];
        }
    for (int a = 0; a < rank; a++)
        if (lens[a] != 1)
            nidx[nn++] = a;
    int oi = 0, ni = 0;
    while (oi < on && ni < nn) {
        int64_t op = ol[oi], np = lens[nidx[ni]];
        int oj = oi + 1, nj = ni + 1;
        while (op != np) {
            if (np < op) {
                if (nj >= nn)
                    return false;
                np *= lens[nidx[nj++]];
            } else {
                if (oj >= on)
                    return false;
                op *= ol[oj++];
            }
        }
        for (int k = oi; k + 1 < oj; k++)
            if (os[k] != ol[k + 1] * os[k + 1])
                return false;
        strides[nidx[nj - 1]] = os[oj - 1];
        for (int k = nj - 1; k > ni; k--)
            strides[nidx[k - 1]] = strides[nidx[k]] * lens[nidx[k]];
        oi = oj;
        ni = nj;
    }
    if (oi != on || ni != nn)
        return false;
    return true;
}
