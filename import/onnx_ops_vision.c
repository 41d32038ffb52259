/* onnx_ops_vision.c: GridSample, RoiAlign and NonMaxSuppression onto
 * graft's grid_sample, roialign and nonmaxsuppression (ops_vision.c).
 *
 * NonMaxSuppression's result has one row per selected box, a number that
 * depends on the values of boxes and scores. graft's shapes are static, so
 * the importer needs those operands as constants (literals, or graph inputs
 * whose values it was given): it runs the op on them once to count the
 * rows, and the graph keeps the op (MIGraphX's static form, one row per
 * possible box) followed by a slice to that count (none selected: an empty
 * result, {0, 3}).
 */
#include "onnx_private.h"

#include <stdlib.h>
#include <string.h>

static bool h_grid_sample(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    char mode[16], pad[16];
    onnx_attr_string(c, "mode", "bilinear", mode, sizeof mode);
    onnx_attr_string(c, "padding_mode", "zeros", pad, sizeof pad);
    const char *m = strcmp(mode, "bilinear") == 0 || strcmp(mode, "linear") == 0 ? "linear"
                    : strcmp(mode, "bicubic") == 0 || strcmp(mode, "cubic") == 0 ? "cubic"
                    : strcmp(mode, "nearest") == 0                               ? "nearest"
                                                                                 : NULL;
    if (!m)
        return onnx_fail(c, "unknown mode '%s'", mode);
    if (strcmp(pad, "zeros") != 0 && strcmp(pad, "border") != 0 && strcmp(pad, "reflection") != 0)
        return onnx_fail(c, "unknown padding_mode '%s'", pad);
    attr a[3] = {{"mode", attr_string(m)},
                 {"padding_mode", attr_string(pad)},
                 {"align_corners", attr_bool(onnx_attr_int(c, "align_corners", 0) != 0)}};
    return (out[0] = onnx_emit(c, "grid_sample", a, 3, in, 2)) != NULL;
}

static bool h_roi_align(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    (void)nin;
    char mode[8], ctm[32];
    onnx_attr_string(c, "mode", "avg", mode, sizeof mode);
    /* opset 10 had no coordinate_transformation_mode and no half-pixel shift */
    onnx_attr_string(c, "coordinate_transformation_mode",
                     c->opset >= 16 ? "half_pixel" : "output_half_pixel", ctm, sizeof ctm);
    if (strcmp(mode, "avg") != 0 && strcmp(mode, "max") != 0)
        return onnx_fail(c, "unknown mode '%s'", mode);
    if (strcmp(ctm, "half_pixel") != 0 && strcmp(ctm, "output_half_pixel") != 0)
        return onnx_fail(c, "unknown coordinate_transformation_mode '%s'", ctm);
    attr a[6] = {{"coordinate_transformation_mode", attr_string(ctm)},
                 {"mode", attr_string(mode)},
                 {"output_height", attr_int(onnx_attr_int(c, "output_height", 1))},
                 {"output_width", attr_int(onnx_attr_int(c, "output_width", 1))},
                 {"sampling_ratio", attr_int(onnx_attr_int(c, "sampling_ratio", 0))},
                 {"spatial_scale", attr_float(onnx_attr_float(c, "spatial_scale", 1.0))}};
    return (out[0] = onnx_emit(c, "roialign", a, 6, in, 3)) != NULL;
}

/* How many rows nonmaxsuppression selects for the constant operands. */
static bool count_selected(onnx_ctx *c, ins **args, int nargs, const attr *a, int na,
                           int64_t *count)
{
    static const char *const what[] = {"boxes", "scores", "max_output_boxes_per_class",
                                       "iou_threshold", "score_threshold"};
    tensor t;
    if (!onnx_evaluate(c, "nonmaxsuppression", a, na, args, what, nargs, &t))
        return false;
    int64_t rows = shape_elements(&t.sh) / 3;
    *count = 0;
    while (*count < rows && tensor_get_i64(&t, *count * 3) >= 0)
        (*count)++;
    free(t.data);
    return true;
}

static bool h_nms(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    ins *args[5];
    int nargs = 0;
    for (int k = 0; k < nin && k < 5; k++) {
        if (!in[k]) {
            /* a skipped optional input takes its default */
            double dflt = k == 2 ? 0 : k == 3 ? 0 : -1;
            if (k == 4)
                break;
            in[k] = onnx_scalar(c, k == 2 ? GRAFT_INT64 : GRAFT_FLOAT, dflt);
            if (!in[k])
                return false;
        }
        args[nargs++] = in[k];
    }
    attr a[1] = {{"center_point_box", attr_bool(onnx_attr_int(c, "center_point_box", 0) != 0)}};
    int64_t count;
    if (!count_selected(c, args, nargs, a, 1, &count))
        return false;
    ins *y = onnx_emit(c, "nonmaxsuppression", a, 1, args, nargs);
    if (!y)
        return false;
    int64_t axis = 0, start = 0;
    attr s[3] = {{"axes", attr_ints(&axis, 1)}, {"starts", attr_ints(&start, 1)},
                 {"ends", attr_ints(&count, 1)}};
    if (count < y->sh.lens[0])
        y = onnx_emit(c, "slice", s, 3, &y, 1);
    /* a view of the padded rows: copied, so the result is standard */
    if (y && !shape_standard_p(&y->sh))
        y = onnx_emit1(c, "contiguous", y);
    return (out[0] = y) != NULL;
}

static const onnx_op_entry entries[] = {
    {"GridSample", h_grid_sample, "grid_sample", {NULL}, 2},
    {"RoiAlign", h_roi_align, "roialign", {NULL}, 3},
    {"NonMaxSuppression", h_nms, "nonmaxsuppression", {"slice"}, 2},
};

const onnx_op_table onnx_ops_vision = {entries, (int)(sizeof entries / sizeof entries[0])};
