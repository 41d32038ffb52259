/* ops_vision.c: sampling and detection ops: grid_sample, roialign and
 * nonmaxsuppression.
 *
 *   grid_sample[mode, padding_mode, align_corners](x [N, C, D1..Dk],
 *     grid [N, O1..Ok, k]): x sampled at the normalised coordinates of the
 *     grid (its last axis lists them innermost spatial axis first, x before
 *     y before z, as ONNX's GridSample does); result [N, C, O1..Ok]. graft's
 *     name: MIGraphX has no such op.
 *   roialign[coordinate_transformation_mode, mode, output_height,
 *     output_width, sampling_ratio, spatial_scale](x [N, C, H, W],
 *     rois [R, 4], batch_indices [R]): MIGraphX's op; result
 *     [R, C, output_height, output_width].
 *   nonmaxsuppression[center_point_box, use_dyn_output](boxes [B, S, 4],
 *     scores [B, K, S], max_output_boxes_per_class?, iou_threshold?,
 *     score_threshold?): MIGraphX's op with its static shape, [B * K * S, 3]
 *     int64 rows (batch, class, box) in selection order; the rows after the
 *     last selected box hold -1 (MIGraphX leaves zeros, which read as box 0
 *     of class 0 of batch 0), so the number selected can be read off.
 */
#include "ops_util.h"

static const char *const gs_mode_names[] = {"linear", "nearest", "cubic", NULL};
static const char *const gs_padding_names[] = {"zeros", "border", "reflection", NULL};
static const char *const roi_ctm_names[] = {"half_pixel", "output_half_pixel", NULL};
static const char *const roi_mode_names[] = {"avg", "max", NULL};

static bool grid_sample_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *x = &call->inputs[0], *g = &call->inputs[1];
    char a[200], b[200];
    if (!ops_check_rank_at_least(call, 0, 3, err))
        return false;
    int k = x->rank - 2;
    if (g->rank != x->rank || g->lens[0] != x->lens[0] || g->lens[g->rank - 1] != k)
        return error_set(err, "grid_sample: grid %s does not fit input %s (want {%lld, ..., %d} "
                              "of rank %d)",
                         ops_lens_text(g, b, sizeof b), ops_lens_text(x, a, sizeof a),
                         (long long)x->lens[0], k, x->rank);
    if (!type_is_float(x->type) || g->type != x->type)
        return error_set(err, "grid_sample: input and grid must be of one float type, not %s "
                              "and %s",
                         type_name(x->type), type_name(g->type));
    int64_t mode = op_attr_int(call, "mode"), pad = op_attr_int(call, "padding_mode");
    if (mode < 0 || mode > 2 || pad < 0 || pad > 2)
        return error_set(err, "grid_sample: mode %lld or padding_mode %lld is unknown",
                         (long long)mode, (long long)pad);
    for (int i = 0; i < k; i++)
        if (x->lens[i + 2] < 1)
            return error_set(err, "grid_sample: spatial axis %d of the input is empty", i);
    int64_t lens[SHAPE_MAX_RANK];
    lens[0] = x->lens[0];
    lens[1] = x->lens[1];
    for (int i = 0; i < k; i++)
        lens[i + 2] = g->lens[i + 1];
    *out = shape_standard(x->type, x->rank, lens);
    return true;
}

static bool roialign_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *x = &call->inputs[0], *rois = &call->inputs[1], *bi = &call->inputs[2];
    char a[200], b[200];
    if (x->rank != 4)
        return error_set(err, "roialign: input %s must have rank 4",
                         ops_lens_text(x, a, sizeof a));
    if (rois->rank != 2 || rois->lens[1] != 4)
        return error_set(err, "roialign: rois %s must be {R, 4}",
                         ops_lens_text(rois, a, sizeof a));
    if (shape_elements(bi) != rois->lens[0] || !type_is_integer(bi->type))
        return error_set(err, "roialign: batch_indices %s must be %lld integers",
                         ops_lens_text(bi, b, sizeof b), (long long)rois->lens[0]);
    if (!type_is_float(x->type) || rois->type != x->type)
        return error_set(err, "roialign: input and rois must be of one float type, not %s and %s",
                         type_name(x->type), type_name(rois->type));
    int64_t oh = op_attr_int(call, "output_height"), ow = op_attr_int(call, "output_width");
    if (oh < 1 || ow < 1 || op_attr_int(call, "sampling_ratio") < 0)
        return error_set(err, "roialign: output %lld x %lld must be positive and sampling_ratio "
                              "not negative",
                         (long long)oh, (long long)ow);
    int64_t mode = op_attr_int(call, "mode"), ctm = op_attr_int(call, "coordinate_transformation_mode");
    if (mode < 0 || mode > 1 || ctm < 0 || ctm > 1)
        return error_set(err, "roialign: mode %lld or coordinate_transformation_mode %lld is "
                              "unknown",
                         (long long)mode, (long long)ctm);
    int64_t lens[4] = {rois->lens[0], x->lens[1], oh, ow};
    if (!ops_check_result_lens(call, lens, 4, err))
        return false;
    *out = shape_standard(x->type, 4, lens);
    return true;
}

static bool nms_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *boxes = &call->inputs[0], *scores = &call->inputs[1];
    char a[200], b[200];
    if (boxes->rank != 3 || boxes->lens[2] != 4)
        return error_set(err, "nonmaxsuppression: boxes %s must be {batches, boxes, 4}",
                         ops_lens_text(boxes, a, sizeof a));
    if (scores->rank != 3 || scores->lens[0] != boxes->lens[0] ||
        scores->lens[2] != boxes->lens[1])
        return error_set(err, "nonmaxsuppression: scores %s must be {%lld, classes, %lld} for "
                              "boxes %s",
                         ops_lens_text(scores, b, sizeof b), (long long)boxes->lens[0],
                         (long long)boxes->lens[1], ops_lens_text(boxes, a, sizeof a));
    for (int k = 2; k < call->ninputs; k++)
        if (shape_elements(&call->inputs[k]) != 1)
            return error_set(err, "nonmaxsuppression: operand %d must have one element", k);
    int64_t rows;
    if (__builtin_mul_overflow(boxes->lens[0], scores->lens[1], &rows) ||
        __builtin_mul_overflow(rows, boxes->lens[1], &rows))
        return error_set(err, "nonmaxsuppression: too many boxes");
    int64_t lens[2] = {rows, 3};
    if (!ops_check_result_lens(call, lens, 2, err))
        return false;
    *out = shape_standard(GRAFT_INT64, 2, lens);
    return true;
}

static const attr_spec grid_sample_attrs[] = {
    {"mode", ATTR_INT, OPS_DFLT_INT(0), false, gs_mode_names},
    {"padding_mode", ATTR_INT, OPS_DFLT_INT(0), false, gs_padding_names},
    {"align_corners", ATTR_BOOL, OPS_DFLT_BOOL(0), false, NULL},
};
static const attr_spec roialign_attrs[] = {
    {"coordinate_transformation_mode", ATTR_INT, OPS_DFLT_INT(0), false, roi_ctm_names},
    {"mode", ATTR_INT, OPS_DFLT_INT(0), false, roi_mode_names},
    {"output_height", ATTR_INT, OPS_DFLT_INT(1), false, NULL},
    {"output_width", ATTR_INT, OPS_DFLT_INT(1), false, NULL},
    {"sampling_ratio", ATTR_INT, OPS_DFLT_INT(0), false, NULL},
    {"spatial_scale", ATTR_FLOAT, OPS_DFLT_FLOAT(1.0), false, NULL},
};
static const attr_spec nms_attrs[] = {
    {"center_point_box", ATTR_BOOL, OPS_DFLT_BOOL(0), false, NULL},
    {"use_dyn_output", ATTR_BOOL, OPS_DFLT_BOOL(0), false, NULL},
};

op_def ops_vision_table[] = {
    {.name = "grid_sample", .classes = OPC_COMPUTE, .min_args = 2, .max_args = 2,
     .attrs = grid_sample_attrs, .nattrs = 3, .compute_shape = grid_sample_shape},
    {.name = "roialign", .classes = OPC_COMPUTE, .min_args = 3, .max_args = 3,
     .attrs = roialign_attrs, .nattrs = 6, .compute_shape = roialign_shape},
    {.name = "nonmaxsuppression", .classes = OPC_COMPUTE, .min_args = 2, .max_args = 5,
     .attrs = nms_attrs, .nattrs = 2, .compute_shape = nms_shape},
};
const int ops_vision_count = (int)(sizeof ops_vision_table / sizeof ops_vision_table[0]);
