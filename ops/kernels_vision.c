/* kernels_vision.c: grid_sample, roialign and nonmaxsuppression
 * (ops_vision.c), following the ONNX operator definitions.
 *
 * grid_sample: a grid value g on an axis of length L maps to
 * ((g + 1) * L - 1) / 2, or (g + 1) / 2 * (L - 1) with align_corners. A
 * coordinate outside the border ([-0.5, L - 0.5], or [0, L - 1] with
 * align_corners) is clamped to [0, L - 1] (border) or reflected off the
 * border (reflection). nearest rounds half to even; linear weighs the two
 * neighbours, cubic the four around it (Keys, a = -0.75); each neighbour
 * outside the input reads 0 (zeros), the edge (border) or its reflection.
 * Weights combine as a product over the axes; sums run in double.
 *
 * roialign: each output bin averages (or, mode max, takes the largest of)
 * bilinear samples on a sampling_ratio x sampling_ratio grid (by default
 * ceil(bin size) per axis); a sample more than one pixel outside the input
 * contributes 0, as in ONNX's definition. max mode takes, per sample, the
 * largest of the four weighted corner values, as ONNX's reference does.
 *
 * nonmaxsuppression: per batch and class, boxes scoring above
 * score_threshold are taken best score first (a lower box index first
 * among equal scores) unless one already taken overlaps them with an IoU
 * above iou_threshold, up to max_output_boxes_per_class; rows after the
 * selected ones hold -1.
 */
#include "kernels_common.h"

#include <math.h>
#include <string.h>

/* ---- grid_sample ---- */

enum { GS_LINEAR, GS_NEAREST, GS_CUBIC };
enum { GS_ZEROS, GS_BORDER, GS_REFLECTION };

static double gs_reflect(double x, double lo, double hi)
{
    double range = hi - lo;
    if (range <= 0)
        return lo;
    if (x < lo) {
        double dx = lo - x;
        double n = floor(dx / range), r = dx - n * range;
        return fmod(n, 2) == 0 ? lo + r : hi - r;
    }
    if (x > hi) {
        double dx = x - hi;
        double n = floor(dx / range), r = dx - n * range;
        return fmod(n, 2) == 0 ? hi - r : lo + r;
    }
    return x;
}

/* Position p of an axis of length len under padding: the index to read, or
 * -1 for a zero. */
static int64_t gs_index(int64_t p, int64_t len, int pad, double lo, double hi)
{
    if (p >= 0 && p < len)
        return p;
    if (pad == GS_ZEROS)
        return -1;
    if (pad == GS_BORDER)
        return p < 0 ? 0 : len - 1;
    int64_t q = (int64_t)gs_reflect((double)p, lo, hi);
    return q < 0 ? 0 : q >= len ? len - 1 : q;
}

static void gs_cubic(double t, double *c)
{
    const double a = -0.75;
    double t1 = t + 1, u = 1 - t, u1 = 2 - t;
    c[0] = ((a * t1 - 5 * a) * t1 + 8 * a) * t1 - 4 * a;
    c[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
    c[2] = ((a + 2) * u - (a + 3)) * u * u + 1;
    c[3] = ((a * u1 - 5 * a) * u1 + 8 * a) * u1 - 4 * a;
}

bool kernel_grid_sample(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const shape *xs = &inputs[0].sh, *gs = &inputs[1].sh;
    int k = xs->rank - 2;
    int mode = (int)op_attr_int(call, "mode"), pad = (int)op_attr_int(call, "padding_mode");
    bool align = op_attr_int(call, "align_corners") != 0;
    int64_t n = xs->lens[0], ch = xs->lens[1], in_sp = 1, out_sp = 1, strides[SHAPE_MAX_RANK];
    for (int i = 0; i < k; i++) {
        in_sp *= xs->lens[i + 2];
        out_sp *= gs->lens[i + 1];
    }
    strides[k - 1] = 1;
    for (int i = k - 2; i >= 0; i--)
        strides[i] = strides[i + 1] * xs->lens[i + 3];
    double *x = tensor_dense_f64(&inputs[0]);
    double *g = tensor_dense_f64(&inputs[1]);
    double *y = malloc((size_t)(n * ch * out_sp) * sizeof *y + 1);
    bool ok = x && g && y;
    int taps = mode == GS_NEAREST ? 1 : mode == GS_LINEAR ? 2 : 4;
    for (int64_t b = 0; ok && b < n; b++)
        for (int64_t p = 0; p < out_sp; p++) {
            /* per axis: the first tap's position and the taps' weights */
            int64_t first[SHAPE_MAX_RANK];
            double w[SHAPE_MAX_RANK][4], lo[SHAPE_MAX_RANK], hi[SHAPE_MAX_RANK];
            for (int i = 0; i < k; i++) {
                int64_t len = xs->lens[i + 2];
                double v = g[(b * out_sp + p) * k + (k - 1 - i)];
                double c = align ? (v + 1) / 2 * (double)(len - 1) : ((v + 1) * (double)len - 1) / 2;
                lo[i] = align ? 0 : -0.5;
                hi[i] = align ? (double)(len - 1) : (double)len - 0.5;
                if (c < lo[i] || c > hi[i]) {
                    if (pad == GS_BORDER)
                        c = c < 0 ? 0 : c > (double)(len - 1) ? (double)(len - 1) : c;
                    else if (pad == GS_REFLECTION)
                        c = gs_reflect(c, lo[i], hi[i]);
                }
                /* far outside (or NaN): any position past the edge reads the same */
                if (!(c > -1e9))
                    c = -1e9;
                if (c > 1e9)
                    c = 1e9;
                if (mode == GS_NEAREST) {
                    first[i] = (int64_t)nearbyint(c);
                    w[i][0] = 1;
                } else if (mode == GS_LINEAR) {
                    double f = floor(c);
                    first[i] = (int64_t)f;
                    w[i][0] = 1 - (c - f);
                    w[i][1] = c - f;
                } else {
                    double f = floor(c);
                    first[i] = (int64_t)f - 1;
                    gs_cubic(c - f, w[i]);
                }
            }
            int64_t combos = 1;
            for (int i = 0; i < k; i++)
                combos *= taps;
            for (int64_t cc = 0; cc < ch; cc++) {
                const double *xc = x + (b * ch + cc) * in_sp;
                double acc = 0;
                for (int64_t t = 0; t < combos; t++) {
                    int64_t rest = t, off = 0;
                    double weight = 1;
                    bool zero = false;
                    for (int i = k - 1; i >= 0; i--) {
                        int tap = (int)(rest % taps);
                        rest /= taps;
                        int64_t at = gs_index(first[i] + tap, xs->lens[i + 2], pad, lo[i], hi[i]);
                        zero = zero || at < 0;
                        off += at * strides[i];
                        weight *= w[i][tap];
                    }
                    if (!zero)
                        acc += weight * xc[off];
                }
                y[(b * ch + cc) * out_sp + p] = acc;
            }
        }
    if (ok)
        tensor_store_f64(out, y);
    free(x);
    free(g);
    free(y);
    return ok ? true : kernel_out_of_memory(call, err);
}

/* ---- roialign ---- */

bool kernel_roialign(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const shape *xs = &inputs[0].sh;
    int64_t nr = inputs[1].sh.lens[0], ch = xs->lens[1], height = xs->lens[2], width = xs->lens[3];
    int64_t oh = op_attr_int(call, "output_height"), ow = op_attr_int(call, "output_width");
    int64_t ratio = op_attr_int(call, "sampling_ratio");
    double scale = op_attr_float(call, "spatial_scale");
    bool half_pixel = op_attr_int(call, "coordinate_transformation_mode") == 0;
    bool avg = op_attr_int(call, "mode") == 0;
    double *x = tensor_dense_f64(&inputs[0]);
    double *rois = tensor_dense_f64(&inputs[1]);
    int64_t *bidx = tensor_dense_i64(&inputs[2]);
    double *y = malloc((size_t)(nr * ch * oh * ow) * sizeof *y + 1);
    bool ok = x && rois && bidx && y;
    if (!ok) {
        free(x);
        free(rois);
        free(bidx);
        free(y);
        return kernel_out_of_memory(call, err);
    }
    for (int64_t r = 0; r < nr && ok; r++) {
        int64_t b = bidx[r];
        if (b < 0 || b >= xs->lens[0]) {
            ok = error_set(err, "roialign: batch index %lld is out of range for %lld images",
                           (long long)b, (long long)xs->lens[0]);
            break;
        }
        double offset = half_pixel ? 0.5 : 0;
        double x0 = rois[r * 4] * scale - offset, y0 = rois[r * 4 + 1] * scale - offset;
        double x1 = rois[r * 4 + 2] * scale - offset, y1 = rois[r * 4 + 3] * scale - offset;
        double rw = x1 - x0, rh = y1 - y0;
        if (!half_pixel) {
            rw = fmax(rw, 1.0);
            rh = fmax(rh, 1.0);
        }
        double bh = rh / (double)oh, bw = rw / (double)ow;
        double ghd = ratio > 0 ? (double)ratio : ceil(rh / (double)oh);
        double gwd = ratio > 0 ? (double)ratio : ceil(rw / (double)ow);
        if (!(ghd >= 0 && gwd >= 0 && ghd <= 4096 && gwd <= 4096)) {
            ok = error_set(err, "roialign: roi %lld asks for a %g x %g sampling grid per bin "
                                "(at most 4096 x 4096)",
                           (long long)r, ghd, gwd);
            break;
        }
        int64_t gh = (int64_t)ghd, gw = (int64_t)gwd;
        double count = (double)(gh * gw > 1 ? gh * gw : 1);
        for (int64_t c = 0; c < ch; c++) {
            const double *img = x + (b * ch + c) * height * width;
            for (int64_t ph = 0; ph < oh; ph++)
                for (int64_t pw = 0; pw < ow; pw++) {
                    double acc = 0;
                    bool any = false;
                    for (int64_t iy = 0; iy < gh; iy++)
                        for (int64_t ix = 0; ix < gw; ix++) {
                            double yy = y0 + (double)ph * bh + ((double)iy + 0.5) * bh / (double)gh;
                            double xx = x0 + (double)pw * bw + ((double)ix + 0.5) * bw / (double)gw;
                            double v = 0;
                            if (yy >= -1.0 && yy <= (double)height && xx >= -1.0 && xx <= (double)width) {
                                yy = yy <= 0 ? 0 : yy;
                                xx = xx <= 0 ? 0 : xx;
                                int64_t ylo = (int64_t)yy, xlo = (int64_t)xx, yhi, xhi;
                                if (ylo >= height - 1) {
                                    yhi = ylo = height - 1;
                                    yy = (double)ylo;
                                } else {
                                    yhi = ylo + 1;
                                }
                                if (xlo >= width - 1) {
                                    xhi = xlo = width - 1;
                                    xx = (double)xlo;
                                } else {
                                    xhi = xlo + 1;
                                }
                                double ly = yy - (double)ylo, lx = xx - (double)xlo;
                                double hy = 1 - ly, hx = 1 - lx;
                                double v1 = hy * hx * img[ylo * width + xlo];
                                double v2 = hy * lx * img[ylo * width + xhi];
                                double v3 = ly * hx * img[yhi * width + xlo];
                                double v4 = ly * lx * img[yhi * width + xhi];
                                v = avg ? v1 + v2 + v3 + v4 : fmax(fmax(v1, v2), fmax(v3, v4));
                            }
                            if (avg)
                                acc += v;
                            else
                                acc = any ? fmax(acc, v) : v;
                            any = true;
                        }
                    y[((r * ch + c) * oh + ph) * ow + pw] = avg ? acc / count : acc;
                }
        }
    }
    if (ok)
        tensor_store_f64(out, y);
    free(x);
    free(rois);
    free(bidx);
    free(y);
    return ok;
}

/* ---- nonmaxsuppression ---- */

/* corners (ymin, xmin, ymax, xmax) of box i */
static void nms_corners(const double *boxes, int64_t i, bool center, double *c)
{
    const double *b = boxes + i * 4;
    if (center) {
        c[0] = b[1] - b[3] / 2;
        c[1] = b[0] - b[2] / 2;
        c[2] = b[1] + b[3] / 2;
        c[3] = b[0] + b[2] / 2;
        return;
    }
    c[0] = fmin(b[0], b[2]);
    c[1] = fmin(b[1], b[3]);
    c[2] = fmax(b[0], b[2]);
    c[3] = fmax(b[1], b[3]);
}

static bool nms_overlaps(const double *a, const double *b, double threshold)
{
    double area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
    if (area_a <= 0 || area_b <= 0)
        return false;
    double ih = fmin(a[2], b[2]) - fmax(a[0], b[0]), iw = fmin(a[3], b[3]) - fmax(a[1], b[1]);
    if (ih <= 0 || iw <= 0)
        return false;
    double inter = ih * iw, uni = area_a + area_b - inter;
    return uni > 0 && inter / uni > threshold;
}

bool kernel_nonmaxsuppression(const op_call *call, const tensor *inputs, tensor *out,
                              graft_error *err)
{
    const shape *bs = &inputs[0].sh, *ss = &inputs[1].sh;
    int64_t nb = bs->lens[0], nbox = bs->lens[1], ncls = ss->lens[1];
    bool center = op_attr_int(call, "center_point_box") != 0;
    int64_t max_out = call->ninputs > 2 ? tensor_get_i64(&inputs[2], 0) : 0;
    double iou = call->ninputs > 3 ? tensor_get_f64(&inputs[3], 0) : 0;
    bool has_score = call->ninputs > 4;
    double score_min = has_score ? tensor_get_f64(&inputs[4], 0) : 0;
    double *boxes = tensor_dense_f64(&inputs[0]);
    double *scores = tensor_dense_f64(&inputs[1]);
    int64_t rows = shape_elements(&out->sh) / 3;
    int64_t *res = malloc((size_t)(rows * 3) * sizeof *res + 1);
    int64_t *order = malloc((size_t)nbox * sizeof *order + 1);
    int64_t *chosen = malloc((size_t)nbox * sizeof *chosen + 1);
    bool ok = boxes && scores && res && order && chosen;
    int64_t row = 0;
    for (int64_t i = 0; ok && i < rows * 3; i++)
        res[i] = -1;
    for (int64_t b = 0; ok && b < nb; b++)
        for (int64_t c = 0; c < ncls; c++) {
            const double *sc = scores + (b * ncls + c) * nbox;
            const double *bx = boxes + b * nbox * 4;
            int64_t n = 0;
            for (int64_t i = 0; i < nbox; i++)
                if (!has_score || sc[i] > score_min)
                    order[n++] = i;
            /* insertion sort: best score first, lower index first on ties */
            for (int64_t i = 1; i < n; i++)
                for (int64_t j = i; j > 0 && sc[order[j]] > sc[order[j - 1]]; j--) {
                    int64_t t = order[j];
                    order[j] = order[j - 1];
                    order[j - 1] = t;
                }
            int64_t taken = 0;
            for (int64_t i = 0; i < n && taken < max_out; i++) {
                double cand[4];
                nms_corners(bx, order[i], center, cand);
                bool keep = true;
                for (int64_t j = 0; j < taken && keep; j++) {
                    double prev[4];
                    nms_corners(bx, chosen[j], center, prev);
                    keep = !nms_overlaps(cand, prev, iou);
                }
                if (!keep)
                    continue;
                chosen[taken++] = order[i];
                res[row * 3] = b;
                res[row * 3 + 1] = c;
                res[row * 3 + 2] = order[i];
                row++;
            }
        }
    if (ok)
        tensor_store_i64(out, res);
    free(boxes);
    free(scores);
    free(res);
    free(order);
    free(chosen);
    return ok ? true : kernel_out_of_memory(call, err);
}
