/* kernels_order.c: prefix_scan_sum and topk_indices (ops_order.c).
 *
 * Both see the input as [outer, len, inner] around the axis. Sums of float
 * types run in double and round once per element on store; integer sums are
 * exact in int64, wrapping. topk_indices sorts each lane's positions with a
 * stable merge sort on (value, position), so ties and NaNs come out in one
 * defined order whatever the C library's qsort would do.
 */
#include "kernels_common.h"

#include <math.h>
#include <string.h>

static void axis_split(const shape *s, int axis, int64_t *outer, int64_t *len, int64_t *inner)
{
    *outer = *inner = 1;
    for (int a = 0; a < axis; a++)
        *outer *= s->lens[a];
    for (int a = axis + 1; a < s->rank; a++)
        *inner *= s->lens[a];
    *len = s->lens[axis];
}

bool kernel_prefix_scan_sum(const op_call *call, const tensor *inputs, tensor *out,
                            graft_error *err)
{
    const shape *s = &inputs[0].sh;
    int axis;
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), s->rank, &axis, err))
        return false;
    bool exclusive = op_attr_int(call, "exclusive") != 0, reverse = op_attr_int(call, "reverse") != 0;
    int64_t outer, len, inner;
    axis_split(s, axis, &outer, &len, &inner);
    bool is_float = type_is_float(s->type);
    double *fv = is_float ? tensor_dense_f64(&inputs[0]) : NULL;
    int64_t *iv = is_float ? NULL : tensor_dense_i64(&inputs[0]);
    if (!fv && !iv)
        return kernel_out_of_memory(call, err);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            double facc = 0;
            uint64_t iacc = 0;
            for (int64_t step = 0; step < len; step++) {
                int64_t j = reverse ? len - 1 - step : step;
                int64_t at = (o * len + j) * inner + i;
                if (is_float) {
                    double v = fv[at];
                    fv[at] = exclusive ? facc : facc + v;
                    facc += v;
                } else {
                    uint64_t v = (uint64_t)iv[at];
                    iv[at] = (int64_t)(exclusive ? iacc : iacc + v);
                    iacc += v;
                }
            }
        }
    if (is_float)
        tensor_store_f64(out, fv);
    else
        tensor_store_i64(out, iv);
    free(fv);
    free(iv);
    return true;
}

/* a before b: the better value first (NaN best), then the lower position */
static bool ranks_before(double a, int64_t pa, double b, int64_t pb, bool largest)
{
    bool na = isnan(a), nb = isnan(b);
    if (na != nb)
        return na;
    if (!na && a != b)
        return largest ? a > b : a < b;
    return pa < pb;
}

static void merge_sort(int64_t *pos, int64_t *tmp, int64_t n, const double *val, bool largest)
{
    for (int64_t width = 1; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = ranks_before(val[pos[j]], pos[j], val[pos[i]], pos[i], largest) ? pos[j++]
                                                                                        : pos[i++];
            while (i < mid)
                tmp[k++] = pos[i++];
            while (j < hi)
                tmp[k++] = pos[j++];
        }
        memcpy(pos, tmp, (size_t)n * sizeof *pos);
    }
}

bool kernel_topk_indices(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const shape *s = &inputs[0].sh;
    int axis;
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), s->rank, &axis, err))
        return false;
    int64_t k = op_attr_int(call, "k");
    bool largest = op_attr_int(call, "largest") != 0;
    int64_t outer, len, inner;
    axis_split(s, axis, &outer, &len, &inner);
    if (k < 1 || k > len)
        return error_set(err, "topk_indices: k %lld does not fit axis %d of length %lld",
                         (long long)k, axis, (long long)len);
    double *v = tensor_dense_f64(&inputs[0]);
    double *lane = malloc((size_t)len * sizeof *lane);
    int64_t *pos = malloc((size_t)len * sizeof *pos), *tmp = malloc((size_t)len * sizeof *tmp);
    int64_t *res = malloc((size_t)(outer * k * inner) * sizeof *res + 1);
    bool ok = v && lane && pos && tmp && res;
    for (int64_t o = 0; ok && o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            for (int64_t j = 0; j < len; j++) {
                lane[j] = v[(o * len + j) * inner + i];
                pos[j] = j;
            }
            merge_sort(pos, tmp, len, lane, largest);
            for (int64_t j = 0; j < k; j++)
                res[(o * k + j) * inner + i] = pos[j];
        }
    if (ok)
        tensor_store_i64(out, res);
    free(v);
    free(lane);
    free(pos);
    free(tmp);
    free(res);
    return ok ? true : kernel_out_of_memory(call, err);
}
