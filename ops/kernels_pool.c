/* kernels_pool.c: pooling (average, max, lpnorm) over any number of spatial
 * axes, with padding, stride, dilations and ceil_mode windows, and
 * max_pooling_indices, where max pooling's windows find their maxima.
 *
 * Output element (n, c, o...) looks at the window positions
 * o*stride - pad_begin + j*dilation, j in [0, length), on each spatial axis;
 * the output shape (already computed by the shape rule) fixes how many
 * windows there are, so ceil_mode needs nothing here beyond windows that run
 * past the input. Positions outside the input are skipped by max and lpnorm
 * and add zero to average. The average divides by the positions inside the
 * input, or, with count_include_pad, by those inside the padded input
 * [-pad_begin, len + pad_end) (a ceil_mode window's overhang past the end
 * padding is never counted), as ONNX defines it. Values are computed in
 * double, in window order, and rounded once on store; lpnorm's pow is
 * detmath.c's (the same bits on every CPU).
 */
#include "detmath.h"
#include "kernels_common.h"

#include <math.h>
#include <string.h>

enum { POOL_AVERAGE, POOL_MAX, POOL_LPNORM };

typedef struct pool_geometry {
    int spatial;
    int64_t planes;                     /* batch * channels */
    int64_t in[SHAPE_MAX_RANK], outl[SHAPE_MAX_RANK];
    int64_t length[SHAPE_MAX_RANK], stride[SHAPE_MAX_RANK], dilation[SHAPE_MAX_RANK];
    int64_t pad_begin[SHAPE_MAX_RANK], pad_end[SHAPE_MAX_RANK];
    int64_t in_size, out_size, window_size;
} pool_geometry;

static bool per_axis(const op_call *call, const char *name, const pool_geometry *g, int64_t dflt,
                     int64_t *v, graft_error *err)
{
    int n;
    const int64_t *given = op_attr_ints(call, name, &n);
    if (n != 0 && n != 1 && n < g->spatial)
        return error_set(err, "pooling: %s has %d values for %d spatial axes", name, n,
                         g->spatial);
    for (int d = 0; d < g->spatial; d++)
        v[d] = n == 0 ? dflt : n == 1 ? given[0] : given[d];
    return true;
}

static bool pool_geometry_of(const op_call *call, const shape *x, const shape *o, pool_geometry *g,
                             graft_error *err)
{
    if (x->rank < 3 || o->rank != x->rank)
        return error_set(err, "pooling: input and result must have the same rank (3 or more)");
    g->spatial = x->rank - 2;
    g->planes = x->lens[0] * x->lens[1];
    g->in_size = g->out_size = 1;
    for (int d = 0; d < g->spatial; d++) {
        g->in[d] = x->lens[d + 2];
        g->outl[d] = o->lens[d + 2];
        g->in_size *= g->in[d];
        g->out_size *= g->outl[d];
    }
    int nlen, npad;
    op_attr_ints(call, "lengths", &nlen);
    const int64_t *padding = op_attr_ints(call, "padding", &npad);
    bool global = nlen == 0 || (kernel_has_attr(call, "dyn_global") &&
                                op_attr_int(call, "dyn_global") != 0);
    if (global) { /* the window is the whole input, once */
        for (int d = 0; d < g->spatial; d++) {
            g->length[d] = g->in[d];
            g->stride[d] = g->dilation[d] = 1;
        }
        npad = 0;
    } else if (!per_axis(call, "lengths", g, 1, g->length, err) ||
               !per_axis(call, "stride", g, 1, g->stride, err) ||
               !per_axis(call, "dilations", g, 1, g->dilation, err)) {
        return false;
    }
    if (npad != 0 && npad != g->spatial && npad != 2 * g->spatial)
        return error_set(err, "pooling: padding has %d values for %d spatial axes", npad,
                         g->spatial);
    g->window_size = 1;
    for (int d = 0; d < g->spatial; d++) {
        g->pad_begin[d] = npad ? padding[d] : 0;
        g->pad_end[d] = npad == 2 * g->spatial ? padding[g->spatial + d] : g->pad_begin[d];
        g->window_size *= g->length[d];
    }
    return true;
}

/* Runs the windows of g over x, one plane after the other, into y; with
 * where, max mode also records the flat index of the element each window
 * picks (see max_pooling_indices, ops_compute.c). */
static void run_windows(const pool_geometry *g, int mode, bool include_pad, double p,
                        const int64_t *steps, const double *x, double *y, int64_t *where,
                        bool column_major)
{
    int k = g->spatial;
    for (int64_t plane = 0; plane < g->planes; plane++) {
        const double *in = x + plane * g->in_size;
        double *res = y + plane * g->out_size;
        int64_t o[SHAPE_MAX_RANK] = {0};
        for (int64_t op = 0; op < g->out_size; op++) {
            int64_t start[SHAPE_MAX_RANK];
            for (int d = 0; d < k; d++)
                start[d] = o[d] * g->stride[d] - g->pad_begin[d];
            double acc = mode == POOL_MAX ? -INFINITY : 0;
            int64_t inside = 0, padded = 0, picked = -1;
            for (int64_t w = 0; w < g->window_size; w++) {
                int64_t offset = 0;
                bool in_input = true, in_padded = true;
                int64_t at[SHAPE_MAX_RANK];
                for (int d = 0; d < k; d++) {
                    int64_t i = start[d] + steps[w * k + d];
                    at[d] = i;
                    in_input = in_input && i >= 0 && i < g->in[d];
                    in_padded = in_padded && i >= -g->pad_begin[d] && i < g->in[d] + g->pad_end[d];
                    offset = offset * g->in[d] + i;
                }
                padded += in_padded;
                if (!in_input)
                    continue;
                inside++;
                double v = in[offset];
                if (mode == POOL_MAX) {
                    if (v > acc || isnan(v) || picked < 0) {
                        acc = (v > acc || isnan(v)) ? v : acc;
                        if (column_major) {
                            offset = 0;
                            for (int d = k - 1; d >= 0; d--)
                                offset = offset * g->in[d] + at[d];
                        }
                        picked = offset;
                    }
                } else if (mode == POOL_AVERAGE) {
                    acc += v;
                } else {
                    acc += det_pow(fabs(v), p);
                }
            }
            if (mode == POOL_AVERAGE) {
                int64_t divisor = include_pad ? padded : inside;
                acc = divisor ? acc / (double)divisor : 0;
            } else if (mode == POOL_LPNORM) {
                acc = det_pow(acc, 1 / p);
            }
            res[op] = acc;
            if (where)
                where[plane * g->out_size + op] = picked < 0 ? -1 : plane * g->in_size + picked;
            for (int d = k - 1; d >= 0; d--) {
                if (++o[d] < g->outl[d])
                    break;
                o[d] = 0;
            }
        }
    }
}

/* Window positions: steps[w * k + d] = j_d * dilation_d; malloc'd. */
static int64_t *window_steps(const pool_geometry *g)
{
    int k = g->spatial;
    int64_t *steps = malloc((size_t)(g->window_size * k > 0 ? g->window_size * k : 1) *
                            sizeof *steps);
    for (int64_t w = 0; steps && w < g->window_size; w++) {
        int64_t rest = w;
        for (int d = k - 1; d >= 0; d--) {
            steps[w * k + d] = (rest % g->length[d]) * g->dilation[d];
            rest /= g->length[d];
        }
    }
    return steps;
}

bool kernel_pooling(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    pool_geometry g;
    if (!pool_geometry_of(call, &inputs[0].sh, &out->sh, &g, err))
        return false;
    const char *mode_name = kernel_attr_enum_name(call, "mode");
    int mode = !mode_name                         ? -1
               : strcmp(mode_name, "average") == 0 ? POOL_AVERAGE
               : strcmp(mode_name, "max") == 0     ? POOL_MAX
               : strcmp(mode_name, "lpnorm") == 0  ? POOL_LPNORM
                                                   : -1;
    if (mode < 0)
        return error_set(err, "pooling: unknown mode");
    bool include_pad = op_attr_int(call, "count_include_pad") != 0;
    double p = kernel_has_attr(call, "lp_order") ? (double)op_attr_int(call, "lp_order") : 2;
    double *x = tensor_dense_f64(&inputs[0]);
    double *y = malloc((size_t)(g.planes * g.out_size > 0 ? g.planes * g.out_size : 1) *
                       sizeof *y);
    int64_t *steps = window_steps(&g);
    bool ok = x && y && steps;
    if (ok) {
        run_windows(&g, mode, include_pad, p, steps, x, y, NULL, false);
        tensor_store_f64(out, y);
    }
    free(x);
    free(y);
    free(steps);
    return ok ? true : kernel_out_of_memory(call, err);
}

bool kernel_max_pooling_indices(const op_call *call, const tensor *inputs, tensor *out,
                                graft_error *err)
{
    pool_geometry g;
    if (!pool_geometry_of(call, &inputs[0].sh, &out->sh, &g, err))
        return false;
    size_t cells = (size_t)(g.planes * g.out_size > 0 ? g.planes * g.out_size : 1);
    double *x = tensor_dense_f64(&inputs[0]);
    double *y = malloc(cells * sizeof *y);
    int64_t *where = malloc(cells * sizeof *where);
    int64_t *steps = window_steps(&g);
    bool ok = x && y && where && steps;
    if (ok) {
        run_windows(&g, POOL_MAX, false, 2, steps, x, y, where,
                    op_attr_int(call, "storage_order") == 1);
        tensor_store_i64(out, where);
    }
    free(x);
    free(y);
    free(where);
    free(steps);
    return ok ? true : kernel_out_of_memory(call, err);
}
