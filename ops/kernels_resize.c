/* kernels_resize.c: resize, as ONNX's Resize specifies it.
 *
 * Resizing is separable: each axis has a plan that says, for every output
 * index, which window of n input positions it reads and with which
 * coefficients, and the kernel applies the plans one axis at a time, last
 * axis first, in double precision (rounded once, on store). For output index
 * x the source coordinate x_original comes from coordinate_transformation_mode
 * (with the axis' scale s, input length L, output length O, and the float
 * output length s * L where ONNX's reference uses it):
 *     half_pixel            (x + 0.5) / s - 0.5
 *     half_pixel_symmetric  as half_pixel, shifted by L/2 * (1 - O / (s*L))
 *     pytorch_half_pixel    as half_pixel when s * L > 1, else 0
 *     align_corners         x * (L - 1) / (s*L - 1), 0 when s * L = 1
 *     asymmetric            x / s
 *     tf_half_pixel_for_nn  (x + 0.5) / s
 *     tf_crop_and_resize    from the roi [start, end] of the axis; outside
 *                           [0, L - 1] the result is extrapolation_value
 * The window's left neighbour is the last integer strictly below x_original,
 * so the fraction `ratio` lies in (0, 1]; nearest keeps one of the two
 * neighbours (by nearest_mode), linear weighs them 1 - ratio and ratio, cubic
 * uses four with Keys' coefficients for cubic_coeff_a. With antialias, a
 * downscaling axis widens the linear or cubic kernel by 1 / s and
 * normalises it. Positions outside the input repeat its edge (the window is
 * kept within the edge padding, as ONNX's reference keeps it); with
 * exclude_outside they get weight 0 and the rest is renormalised.
 */
#include "kernels_common.h"
#include "resize_plan.h"

#include <math.h>
#include <string.h>

enum { M_NEAREST, M_LINEAR, M_CUBIC };
enum { CT_HALF_PIXEL, CT_PYTORCH, CT_ALIGN, CT_ASYMMETRIC, CT_TF_NN, CT_CROP, CT_SYMMETRIC };
enum { N_ROUND_FLOOR, N_ROUND_CEIL, N_FLOOR, N_CEIL };

typedef resize_axis_plan axis_plan;

static double source_coordinate(int ctm, double x, double s, int64_t in_len, int64_t out_len,
                                 const double *roi, bool *extrap)
{
    double lf = (double)in_len, of = s * lf;
    *extrap = false;
    switch (ctm) {
    case CT_PYTORCH: return of > 1 ? (x + 0.5) / s - 0.5 : 0;
    case CT_ALIGN: return of == 1 ? 0 : x * (lf - 1) / (of - 1);
    case CT_ASYMMETRIC: return x / s;
    case CT_TF_NN: return (x + 0.5) / s;
    case CT_CROP: {
        double start = roi ? roi[0] : 0, end = roi ? roi[1] : 1, xo;
        if (of > 1)
            xo = start * (lf - 1) + x * (end - start) * (lf - 1) / (of - 1);
        else
            xo = 0.5 * (start + end) * (lf - 1);
        *extrap = xo < 0 || xo > lf - 1;
        return xo;
    }
    case CT_SYMMETRIC: {
        double adjustment = (double)out_len / of, center = lf / 2;
        return center * (1 - adjustment) + (x + 0.5) / s - 0.5;
    }
    default: return (x + 0.5) / s - 0.5;
    }
}

static double cubic_weight(double x, double a)
{
    x = fabs(x);
    if (x <= 1)
        return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2)
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0;
}

/* Window width for the mode (with antialias on a downscaling axis, wider). */
static int window_width(int mode, bool antialias, double s)
{
    if (mode == M_NEAREST)
        return 2;
    double reach = mode == M_LINEAR ? 1 : 2;
    if (antialias && s < 1) {
        int64_t start = (int64_t)floor(-reach / s) + 1;
        return (int)(2 - 2 * start);
    }
    return mode == M_LINEAR ? 2 : 4;
}

/* The n coefficients of offsets start .. start + n - 1 from the left
 * neighbour, where the source lies `ratio` past it. */
static void coefficients(const op_call *call, int mode, int nearest, bool antialias, double s,
                         double ratio, int n, double *coef)
{
    int start = 1 - n / 2;
    if (mode == M_NEAREST) {
        bool right = ratio == 1 || nearest == N_CEIL ||
                     (nearest == N_ROUND_FLOOR && ratio > 0.5) ||
                     (nearest == N_ROUND_CEIL && ratio >= 0.5);
        coef[0] = right ? 0 : 1;
        coef[1] = right ? 1 : 0;
        return;
    }
    double scale = antialias && s < 1 ? s : 1, a = op_attr_float(call, "cubic_coeff_a"), sum = 0;
    for (int k = 0; k < n; k++) {
        double d = ((double)(start + k) - ratio) * scale;
        coef[k] = mode == M_LINEAR ? fmax(0.0, 1 - fabs(d)) : cubic_weight(d, a);
        sum += coef[k];
    }
    if (antialias && s < 1 && sum != 0)
        for (int k = 0; k < n; k++)
            coef[k] /= sum;
}

bool resize_plan_axis(const op_call *call, axis_plan *p, int axis, int64_t in_len,
                      int64_t out_len, double s)
{
    int mode = (int)op_attr_int(call, "mode");
    int ctm = (int)op_attr_int(call, "coordinate_transformation_mode");
    int nearest = (int)op_attr_int(call, "nearest_mode");
    bool antialias = op_attr_int(call, "antialias") != 0;
    bool exclude = op_attr_int(call, "exclude_outside") != 0;
    int nroi = 0, r = call->inputs[0].rank;
    const attr_value *rv = op_attr(call, "roi");
    nroi = rv && rv->kind == ATTR_FLOATS ? rv->n : 0;
    double roi[2] = {0, 1};
    if (nroi == 2 * r) {
        roi[0] = rv->u.floats[axis];
        roi[1] = rv->u.floats[axis + r];
    }
    int n = window_width(mode, antialias, s);
    p->n = n;
    p->first = malloc((size_t)out_len * sizeof *p->first);
    p->coef = malloc((size_t)out_len * (size_t)n * sizeof *p->coef);
    p->extrap = malloc((size_t)out_len * sizeof *p->extrap);
    if (!p->first || !p->coef || !p->extrap)
        return false;
    p->identity = in_len == out_len;
    int64_t pad = n / 2;
    for (int64_t o = 0; o < out_len; o++) {
        double x = source_coordinate(ctm, (double)o, s, in_len, out_len, roi, &p->extrap[o]);
        if (!isfinite(x))
            x = 0; /* a roi of inf or NaN: the result is the edge, not undefined */
        double left = ceil(x) - 1, ratio = x - left;
        double *coef = p->coef + o * n;
        coefficients(call, mode, nearest, antialias, s, ratio, n, coef);
        double first = left + 1 - n / 2;
        if (first < (double)-pad)
            first = (double)-pad;
        if (first > (double)(in_len + pad - n))
            first = (double)(in_len + pad - n);
        p->first[o] = (int64_t)first;
        if (exclude) {
            double sum = 0;
            for (int k = 0; k < n; k++) {
                int64_t at = p->first[o] + k;
                if (at < 0 || at >= in_len)
                    coef[k] = 0;
                sum += coef[k];
            }
            if (sum != 0)
                for (int k = 0; k < n; k++)
                    coef[k] /= sum;
        }
        for (int k = 0; k < n && p->identity; k++)
            p->identity = !p->extrap[o] && coef[k] == (p->first[o] + k == o ? 1.0 : 0.0);
    }
    return true;
}

void resize_plan_free(axis_plan *p)
{
    free(p->first);
    free(p->coef);
    free(p->extrap);
}

double resize_axis_scale(const op_call *call, int axis, int64_t in_len, int64_t out_len)
{
    const attr_value *sv = op_attr(call, "scales");
    int r = call->inputs[0].rank;
    if (sv && sv->kind == ATTR_FLOATS && sv->n == r)
        return sv->u.floats[axis];
    return (double)out_len / (double)in_len;
}

bool kernel_resize(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const shape *in = &inputs[0].sh;
    int r = in->rank;
    double extrapolation = op_attr_float(call, "extrapolation_value");
    int64_t lens[SHAPE_MAX_RANK];
    for (int a = 0; a < r; a++)
        lens[a] = in->lens[a];
    double *cur = tensor_dense_f64(&inputs[0]);
    bool ok = cur != NULL;
    for (int a = r - 1; ok && a >= 0; a--) {
        int64_t in_len = in->lens[a], out_len = out->sh.lens[a];
        double s = resize_axis_scale(call, a, in_len, out_len);
        axis_plan p = {0};
        if (!(ok = resize_plan_axis(call, &p, a, in_len, out_len, s))) {
            resize_plan_free(&p);
            break;
        }
        if (p.identity) {
            resize_plan_free(&p);
            continue;
        }
        int64_t outer = 1, inner = 1;
        for (int b = 0; b < a; b++)
            outer *= lens[b];
        for (int b = a + 1; b < r; b++)
            inner *= lens[b];
        double *next = malloc((size_t)(outer * out_len * inner) * sizeof *next + 1);
        if (!(ok = next != NULL)) {
            resize_plan_free(&p);
            break;
        }
        for (int64_t u = 0; u < outer; u++)
            for (int64_t o = 0; o < out_len; o++) {
                double *dst = next + (u * out_len + o) * inner;
                if (p.extrap[o]) {
                    for (int64_t i = 0; i < inner; i++)
                        dst[i] = extrapolation;
                    continue;
                }
                for (int64_t i = 0; i < inner; i++)
                    dst[i] = 0;
                for (int k = 0; k < p.n; k++) {
                    double c = p.coef[o * p.n + k];
                    if (c == 0)
                        continue;
                    int64_t at = p.first[o] + k;
                    at = at < 0 ? 0 : at >= in_len ? in_len - 1 : at;
                    const double *src = cur + (u * in_len + at) * inner;
                    for (int64_t i = 0; i < inner; i++)
                        dst[i] += c * src[i];
                }
            }
        free(cur);
        cur = next;
        lens[a] = out_len;
        resize_plan_free(&p);
    }
    if (ok)
        tensor_store_f64(out, cur);
    free(cur);
    return ok ? true : kernel_out_of_memory(call, err);
}
