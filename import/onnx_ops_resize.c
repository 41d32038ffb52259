/* onnx_ops_resize.c: Resize (every opset) and Upsample onto graft's resize
 * (ops_resize.c).
 *
 * The importer settles everything that depends on the opset: scales and
 * sizes (inputs from opset 10/11, an attribute in Upsample-7), axes and
 * keep_aspect_ratio_policy (opset 18) become a full per-axis `sizes` and
 * `scales`, so the op needs no defaults of its own. Before opset 11 there is
 * no coordinate_transformation_mode: Upsample and Resize-10 sample
 * asymmetrically, and nearest takes the floor, as MIGraphX imports them.
 * Scales, sizes and roi must be constants.
 */
#include "onnx_private.h"

#include <math.h>
#include <string.h>

/* A constant operand that may be absent or empty: *n = 0 then. */
static bool optional_doubles(onnx_ctx *c, ins **in, int nin, int k, const char *what,
                             double **v, int *n)
{
    *n = 0;
    *v = NULL;
    if (k >= nin || !in[k] || shape_elements(&in[k]->sh) == 0)
        return true;
    return onnx_const_doubles(c, in[k], what, v, n);
}

static bool h_resize(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    ins *x = in[0];
    int r = x->sh.rank;
    bool upsample = strcmp(c->node->op_type, "Upsample") == 0;
    bool old = upsample || c->opset < 11;
    double *scales_in = NULL, *sizes_in = NULL, *roi_in = NULL;
    int nscales = 0, nsizes = 0, nroi = 0;
    if (upsample && c->opset < 9) {
        const float *f = onnx_attr_floats(c, "scales", &nscales);
        if (nscales < 0)
            return onnx_fail(c, "scales attribute is missing");
        scales_in = arena_alloc(&c->scratch, sizeof *scales_in * (size_t)(nscales + 1));
        if (!scales_in)
            return onnx_fail(c, "out of memory");
        for (int i = 0; i < nscales; i++)
            scales_in[i] = f[i];
    } else if (old) {
        if (!optional_doubles(c, in, nin, 1, "scales", &scales_in, &nscales))
            return false;
    } else if (!optional_doubles(c, in, nin, 1, "roi", &roi_in, &nroi) ||
               !optional_doubles(c, in, nin, 2, "scales", &scales_in, &nscales) ||
               !optional_doubles(c, in, nin, 3, "sizes", &sizes_in, &nsizes)) {
        return false;
    }
    if (nscales && nsizes)
        return onnx_fail(c, "scales and sizes are both given");
    if (!nscales && !nsizes)
        return onnx_fail(c, "neither scales nor sizes is given");

    /* axes (opset 18): the listed axes, else all */
    int64_t axes[SHAPE_MAX_RANK];
    int naxes = r;
    for (int a = 0; a < r; a++)
        axes[a] = a;
    const int64_t *given = onnx_attr_ints(c, "axes", &naxes);
    if (naxes < 0) {
        naxes = r;
    } else {
        if (naxes > r)
            return onnx_fail(c, "axes has %d entries for rank %d", naxes, r);
        for (int i = 0; i < naxes; i++) {
            int a;
            if (!onnx_normalize_axis(c, given[i], r, &a))
                return false;
            axes[i] = a;
        }
    }
    int nvals = nscales ? nscales : nsizes;
    if (nvals != naxes)
        return onnx_fail(c, "%s has %d entries for %d axes", nscales ? "scales" : "sizes", nvals,
                         naxes);
    if (nroi && nroi != 2 * naxes)
        return onnx_fail(c, "roi has %d entries for %d axes", nroi, naxes);

    double scales[SHAPE_MAX_RANK], roi[2 * SHAPE_MAX_RANK];
    int64_t sizes[SHAPE_MAX_RANK];
    for (int a = 0; a < r; a++) {
        scales[a] = 1;
        sizes[a] = x->sh.lens[a];
        roi[a] = 0;
        roi[a + r] = 1;
    }
    for (int i = 0; i < naxes; i++) {
        int a = (int)axes[i];
        if (nroi) {
            roi[a] = roi_in[i];
            roi[a + r] = roi_in[i + naxes];
        }
        if (nscales) {
            if (!(scales_in[i] > 0))
                return onnx_fail(c, "scale %g on axis %d must be positive", scales_in[i], a);
            scales[a] = scales_in[i];
            if (!double_to_int64(floor((double)x->sh.lens[a] * scales_in[i]), &sizes[a]))
                return onnx_fail(c, "scale %g on axis %d gives more elements than a 64-bit count holds",
                                 scales_in[i], a);
        } else {
            if (sizes_in[i] < 1)
                return onnx_unsupported(c, "an output size below 1 (axis %d)", a);
            sizes[a] = (int64_t)sizes_in[i];
            scales[a] = sizes_in[i] / (double)x->sh.lens[a];
        }
    }
    char policy[16];
    onnx_attr_string(c, "keep_aspect_ratio_policy", "stretch", policy, sizeof policy);
    if (nsizes && strcmp(policy, "stretch") != 0) {
        bool larger = strcmp(policy, "not_smaller") == 0;
        if (!larger && strcmp(policy, "not_larger") != 0)
            return onnx_fail(c, "unknown keep_aspect_ratio_policy '%s'", policy);
        double s = scales[axes[0]];
        for (int i = 1; i < naxes; i++)
            s = larger ? fmax(s, scales[axes[i]]) : fmin(s, scales[axes[i]]);
        for (int i = 0; i < naxes; i++) {
            int a = (int)axes[i];
            scales[a] = s;
            if (!double_to_int64(floor(s * (double)x->sh.lens[a] + 0.5), &sizes[a]))
                return onnx_fail(c, "scale %g on axis %d gives more elements than a 64-bit count holds", s, a);
        }
    }
    for (int a = 0; a < r; a++)
        if (sizes[a] < 1)
            return onnx_unsupported(c, "an empty output (axis %d)", a);

    char mode[16], ctm[32], nearest[32];
    onnx_attr_string(c, "mode", "nearest", mode, sizeof mode);
    if (strcmp(mode, "bilinear") == 0 || strcmp(mode, "trilinear") == 0)
        strcpy(mode, "linear");
    if (old) {
        strcpy(ctm, "asymmetric");
        strcpy(nearest, "floor");
    } else {
        onnx_attr_string(c, "coordinate_transformation_mode", "half_pixel", ctm, sizeof ctm);
        onnx_attr_string(c, "nearest_mode", "round_prefer_floor", nearest, sizeof nearest);
    }
    attr a[10] = {
        {"scales", attr_floats(scales, r)},
        {"sizes", attr_ints(sizes, r)},
        {"nearest_mode", attr_string(nearest)},
        {"mode", attr_string(mode)},
        {"coordinate_transformation_mode", attr_string(ctm)},
        {"cubic_coeff_a", attr_float(onnx_attr_float(c, "cubic_coeff_a", -0.75))},
        {"exclude_outside", attr_bool(onnx_attr_int(c, "exclude_outside", 0) != 0)},
        {"extrapolation_value", attr_float(onnx_attr_float(c, "extrapolation_value", 0.0))},
        {"antialias", attr_bool(onnx_attr_int(c, "antialias", 0) != 0)},
        {"roi", attr_floats(roi, 2 * r)},
    };
    int na = strcmp(ctm, "tf_crop_and_resize") == 0 ? 10 : 9;
    return (out[0] = onnx_emit(c, "resize", a, na, &x, 1)) != NULL;
}

static const onnx_op_entry entries[] = {
    {"Resize", h_resize, "resize", {NULL}, 1},
    {"Upsample", h_resize, "resize", {NULL}, 1},
};

const onnx_op_table onnx_ops_resize = {entries, (int)(sizeof entries / sizeof entries[0])};
