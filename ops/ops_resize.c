/* ops_resize.c: resize, ONNX's Resize (and Upsample) as one op.
 *
 * MIGraphX's resize carries scales, sizes, mode, nearest_mode and
 * coordinate_transformation_mode; graft adds what ONNX's Resize needs beyond
 * that: cubic_coeff_a, exclude_outside, extrapolation_value, antialias and
 * roi (for tf_crop_and_resize). The result has `sizes` as its lens when they
 * are given, else floor(len * scale) per axis; the kernel maps output
 * coordinates back with `scales` when given, else with sizes / lens, so an
 * importer that computed both passes both. See kernels_resize.c for the
 * sampling.
 */
#include "ops_util.h"

#include <math.h>

static const char *const resize_mode_names[] = {"nearest", "linear", "cubic", NULL};
static const char *const resize_ctm_names[] = {
    "half_pixel",          "pytorch_half_pixel", "align_corners",        "asymmetric",
    "tf_half_pixel_for_nn", "tf_crop_and_resize", "half_pixel_symmetric", NULL};
static const char *const resize_nearest_names[] = {"round_prefer_floor", "round_prefer_ceil",
                                                   "floor", "ceil", NULL};

/* the axis count of an int or float list attribute */
static int list_count(const op_call *call, const char *name)
{
    const attr_value *v = op_attr(call, name);
    return v && (v->kind == ATTR_INTS || v->kind == ATTR_FLOATS) ? v->n : 0;
}

static bool resize_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    int r = in->rank, nscales = list_count(call, "scales"), nsizes = 0, nroi = list_count(call, "roi");
    const int64_t *sizes = op_attr_ints(call, "sizes", &nsizes);
    const attr_value *sv = op_attr(call, "scales");
    const double *scales = sv && sv->kind == ATTR_FLOATS ? sv->u.floats : NULL;
    char buf[200];
    if (nscales == 0 && nsizes == 0)
        return error_set(err, "resize: needs scales or sizes");
    if (nscales != 0 && nscales != r)
        return error_set(err, "resize: %d scales for an operand of rank %d", nscales, r);
    if (nsizes != 0 && nsizes != r)
        return error_set(err, "resize: sizes %s has %d entries for an operand of rank %d",
                         ops_ints_text(sizes, nsizes, buf, sizeof buf), nsizes, r);
    if (nroi != 0 && nroi != 2 * r)
        return error_set(err, "resize: roi has %d entries; rank %d needs %d", nroi, r, 2 * r);
    int64_t mode = op_attr_int(call, "mode"), ctm = op_attr_int(call, "coordinate_transformation_mode");
    int64_t nearest = op_attr_int(call, "nearest_mode");
    if (mode < 0 || mode > 2)
        return error_set(err, "resize: mode %lld is not nearest (0), linear (1) or cubic (2)",
                         (long long)mode);
    if (ctm < 0 || ctm > 6)
        return error_set(err, "resize: coordinate_transformation_mode %lld is unknown",
                         (long long)ctm);
    if (nearest < 0 || nearest > 3)
        return error_set(err, "resize: nearest_mode %lld is unknown", (long long)nearest);
    int64_t lens[SHAPE_MAX_RANK];
    for (int a = 0; a < r; a++) {
        if (scales && !(scales[a] >= 1e-6 && scales[a] < 1e9))
            return error_set(err, "resize: scale %g on axis %d is not in [1e-6, 1e9)", scales[a],
                             a);
        if (nsizes) {
            if (sizes[a] < 1)
                return error_set(err, "resize: sizes %s has an entry below 1",
                                 ops_ints_text(sizes, nsizes, buf, sizeof buf));
            lens[a] = sizes[a];
        } else {
            double len = floor((double)in->lens[a] * scales[a]);
            if (len < 1 || len > 1e15)
                return error_set(err, "resize: scale %g gives axis %d of length %lld %g elements",
                                 scales[a], a, (long long)in->lens[a], len);
            lens[a] = (int64_t)len;
        }
        if (in->lens[a] < 1)
            return error_set(err, "resize: axis %d of the operand is empty", a);
    }
    if (!ops_check_result_lens(call, lens, r, err))
        return false;
    *out = shape_standard(in->type, r, lens);
    return true;
}

static const attr_spec resize_attrs[] = {
    {"scales", ATTR_FLOATS, {.kind = ATTR_FLOATS, .n = 0, .u.floats = NULL}, false, NULL},
    {"sizes", ATTR_INTS, OPS_DFLT_NO_INTS, false, NULL},
    {"nearest_mode", ATTR_INT, OPS_DFLT_INT(0), false, resize_nearest_names},
    {"mode", ATTR_INT, OPS_DFLT_INT(0), false, resize_mode_names},
    {"coordinate_transformation_mode", ATTR_INT, OPS_DFLT_INT(0), false, resize_ctm_names},
    {"cubic_coeff_a", ATTR_FLOAT, OPS_DFLT_FLOAT(-0.75), false, NULL},
    {"exclude_outside", ATTR_BOOL, OPS_DFLT_BOOL(0), false, NULL},
    {"extrapolation_value", ATTR_FLOAT, OPS_DFLT_FLOAT(0.0), false, NULL},
    {"antialias", ATTR_BOOL, OPS_DFLT_BOOL(0), false, NULL},
    {"roi", ATTR_FLOATS, {.kind = ATTR_FLOATS, .n = 0, .u.floats = NULL}, false, NULL},
};

op_def ops_resize_table[] = {
    {.name = "resize", .classes = OPC_COMPUTE, .min_args = 1, .max_args = 1,
     .attrs = resize_attrs, .nattrs = 10, .compute_shape = resize_shape},
};
const int ops_resize_count = (int)(sizeof ops_resize_table / sizeof ops_resize_table[0]);
