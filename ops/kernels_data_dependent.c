/* kernels_data_dependent.c: unique and nonzero (ops_data_dependent.c),
 * the ops whose real result length depends on the values.
 *
 * unique reads x as [outer, N, inner] around the axis: slice j is the
 * outer * inner elements x[o, j, i] in (o, i) order. Integer types compare
 * as int64 (every value exact), float types as double with NaN equal to NaN
 * and above every number, so the order is total. Positions are sorted with a
 * stable bottom-up merge sort on (slice, position): equal slices end up
 * adjacent with their first occurrence first, whatever the C library's qsort
 * would do.
 */
#include "kernels_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct slices {
    int64_t n, width;     /* N slices of width elements each */
    const double *f;      /* float types: slice j is f[j * width ...] */
    const int64_t *i;     /* integer types */
} slices;

/* <0, 0, >0 as slice a sorts before, with or after slice b */
static int compare_slices(const slices *s, int64_t a, int64_t b)
{
    for (int64_t m = 0; m < s->width; m++) {
        if (s->i) {
            int64_t x = s->i[a * s->width + m], y = s->i[b * s->width + m];
            if (x != y)
                return x < y ? -1 : 1;
            continue;
        }
        double x = s->f[a * s->width + m], y = s->f[b * s->width + m];
        bool nx = isnan(x), ny = isnan(y);
        if (nx || ny) {
            if (nx != ny)
                return nx ? 1 : -1;
            continue;
        }
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

static void sort_positions(const slices *s, int64_t *pos, int64_t *tmp)
{
    for (int64_t width = 1; width < s->n; width *= 2) {
        for (int64_t lo = 0; lo < s->n; lo += 2 * width) {
            int64_t mid = lo + width < s->n ? lo + width : s->n;
            int64_t hi = lo + 2 * width < s->n ? lo + 2 * width : s->n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                int c = compare_slices(s, pos[j], pos[i]);
                tmp[k++] = c < 0 || (c == 0 && pos[j] < pos[i]) ? pos[j++] : pos[i++];
            }
            while (i < mid)
                tmp[k++] = pos[i++];
            while (j < hi)
                tmp[k++] = pos[j++];
        }
        memcpy(pos, tmp, (size_t)s->n * sizeof *pos);
    }
}

/* Rearranges x's row-major values (outer, N, inner) into slice-major
 * (N, outer, inner) order in dst. */
static void gather_slices(const void *src, void *dst, size_t size, int64_t outer, int64_t n,
                          int64_t inner)
{
    const char *from = src;
    char *to = dst;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < n; j++)
            memcpy(to + ((j * outer + o) * inner) * size, from + ((o * n + j) * inner) * size,
                   (size_t)inner * size);
}

bool kernel_unique(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const shape *sh = &inputs[0].sh;
    int axis;
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), sh->rank, &axis, err))
        return false;
    bool sorted = op_attr_int(call, "sorted") != 0;
    int64_t outer = 1, inner = 1, n = sh->lens[axis];
    for (int a = 0; a < axis; a++)
        outer *= sh->lens[a];
    for (int a = axis + 1; a < sh->rank; a++)
        inner *= sh->lens[a];
    int64_t total = outer * n * inner;
    bool integer = !type_is_float(sh->type);
    double *fv = integer ? NULL : tensor_dense_f64(&inputs[0]);
    int64_t *iv = integer ? tensor_dense_i64(&inputs[0]) : NULL;
    size_t size = integer ? sizeof *iv : sizeof *fv;
    void *by_slice = malloc((size_t)(total > 0 ? total : 1) * size);
    size_t cells = (size_t)(n > 0 ? n : 1);
    int64_t *pos = malloc(cells * sizeof *pos), *tmp = malloc(cells * sizeof *tmp);
    int64_t *group = malloc(cells * sizeof *group), *rank = malloc(cells * sizeof *rank);
    int64_t *res = malloc(3 * cells * sizeof *res);
    bool ok = (integer ? iv != NULL : fv != NULL) && by_slice && pos && tmp && group && rank &&
              res;
    if (ok) {
        gather_slices(integer ? (void *)iv : (void *)fv, by_slice, size, outer, n, inner);
        slices s = {n, outer * inner, integer ? NULL : by_slice, integer ? by_slice : NULL};
        for (int64_t j = 0; j < n; j++)
            pos[j] = j;
        sort_positions(&s, pos, tmp);
        /* groups of equal slices in sorted order: group[j] is the sorted
         * group of position j; tmp[g] the first position of group g */
        int64_t groups = 0;
        for (int64_t k = 0; k < n; k++) {
            if (k == 0 || compare_slices(&s, pos[k - 1], pos[k]) != 0)
                tmp[groups++] = pos[k];
            group[pos[k]] = groups - 1;
        }
        /* rank[g]: group g's place in the result; sorted keeps the sorted
         * order, else groups go by first occurrence */
        for (int64_t g = 0; g < groups; g++)
            rank[g] = g;
        if (!sorted) {
            int64_t next = 0;
            for (int64_t g = 0; g < groups; g++)
                rank[g] = -1;
            for (int64_t j = 0; j < n; j++)
                if (rank[group[j]] < 0)
                    rank[group[j]] = next++;
        }
        int64_t *first = res, *inverse = res + n, *counts = res + 2 * n;
        for (int64_t u = 0; u < n; u++) {
            first[u] = -1;
            counts[u] = 0;
        }
        for (int64_t g = 0; g < groups; g++)
            first[rank[g]] = tmp[g];
        for (int64_t j = 0; j < n; j++) {
            inverse[j] = rank[group[j]];
            counts[inverse[j]]++;
        }
        tensor_store_i64(out, res);
    }
    free(fv);
    free(iv);
    free(by_slice);
    free(pos);
    free(tmp);
    free(group);
    free(rank);
    free(res);
    return ok ? true : kernel_out_of_memory(call, err);
}

bool kernel_nonzero(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const shape *sh = &inputs[0].sh;
    int64_t total = shape_elements(sh);
    int rank = sh->rank;
    double *v = tensor_dense_f64(&inputs[0]);
    int64_t *res = malloc((size_t)(rank * total > 0 ? rank * total : 1) * sizeof *res);
    bool ok = v && res;
    if (ok) {
        for (int64_t k = 0; k < rank * total; k++)
            res[k] = -1;
        int64_t found = 0;
        for (int64_t e = 0; e < total; e++) {
            if (v[e] == 0)
                continue;
            int64_t rest = e;
            for (int a = rank - 1; a >= 0; a--) {
                res[a * total + found] = rest % sh->lens[a];
                rest /= sh->lens[a];
            }
            found++;
        }
        tensor_store_i64(out, res);
    }
    free(v);
    free(res);
    return ok ? true : kernel_out_of_memory(call, err);
}
