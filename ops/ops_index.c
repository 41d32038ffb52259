/* ops_index.c: ops that read or write elements at positions given by an
 * index tensor: gather_elements, gathernd, scatter_* and scatternd_*.
 *
 * Names and attributes follow MIGraphX where it has the op (gathernd with
 * batch_dims; scatter_none/add/mul/min/max with axis and skip_out_of_bounds,
 * for ONNX ScatterElements; scatternd_none/add/mul/min/max, for ScatterND).
 * gather_elements (ONNX GatherElements) is graft's name: MIGraphX imports it
 * as index arithmetic around gather.
 *
 *   gather_elements[axis](data, indices): indices has data's rank and, on
 *     every axis but `axis`, at most data's length; the result has the
 *     indices' lens: out[i] = data[i with i[axis] replaced by indices[i]].
 *   scatter_*[axis](data, indices, updates): indices and updates alike, as
 *     for gather_elements; the result is data with updates written (or
 *     combined) at those positions.
 *   gathernd[batch_dims](data, indices): the last axis of indices (length k)
 *     holds positions in data's axes batch_dims .. batch_dims+k-1; the result
 *     has lens indices[:-1] + data[batch_dims+k:].
 *   scatternd_*(data, indices, updates): updates has lens
 *     indices[:-1] + data[k:]; the result has data's lens.
 *
 * Negative indices count from the back. Indices must be integers; an index
 * out of range is a kernel error (scatter_* with skip_out_of_bounds skips
 * it). Results are standard.
 */
#include "ops_util.h"

static bool check_indices_type(const op_call *call, int k, graft_error *err)
{
    graft_type t = call->inputs[k].type;
    if (!type_is_integer(t) || t == GRAFT_BOOL)
        return error_set(err, "%s: indices must be integers, not %s", call->op->name,
                         type_name(t));
    return true;
}

/* indices (input k) against data (input 0) for the element-wise family. */
static bool check_elementwise_indices(const op_call *call, int k, int *axis, graft_error *err)
{
    const shape *data = &call->inputs[0], *idx = &call->inputs[k];
    char a[200], b[200];
    if (!check_indices_type(call, k, err) ||
        !ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), data->rank, axis, err))
        return false;
    if (idx->rank != data->rank)
        return error_set(err, "%s: indices %s and data %s differ in rank", call->op->name,
                         ops_lens_text(idx, a, sizeof a), ops_lens_text(data, b, sizeof b));
    for (int i = 0; i < data->rank; i++)
        if (i != *axis && idx->lens[i] > data->lens[i])
            return error_set(err, "%s: indices %s are longer than data %s on axis %d",
                             call->op->name, ops_lens_text(idx, a, sizeof a),
                             ops_lens_text(data, b, sizeof b), i);
    return true;
}

static bool gather_elements_shape(const op_call *call, shape *out, graft_error *err)
{
    int axis;
    if (!check_elementwise_indices(call, 1, &axis, err))
        return false;
    *out = shape_standard(call->inputs[0].type, call->inputs[1].rank, call->inputs[1].lens);
    return true;
}

static bool scatter_shape(const op_call *call, shape *out, graft_error *err)
{
    int axis;
    const shape *data = &call->inputs[0];
    if (!check_elementwise_indices(call, 1, &axis, err))
        return false;
    if (!shape_same_lens(&call->inputs[1], &call->inputs[2])) {
        char a[200], b[200];
        return error_set(err, "%s: indices %s and updates %s differ", call->op->name,
                         ops_lens_text(&call->inputs[1], a, sizeof a),
                         ops_lens_text(&call->inputs[2], b, sizeof b));
    }
    if (call->inputs[2].type != data->type)
        return error_set(err, "%s: updates are %s, data %s", call->op->name,
                         type_name(call->inputs[2].type), type_name(data->type));
    *out = shape_standard(data->type, data->rank, data->lens);
    return true;
}

/* The result lens of gathernd; also checks the operands. */
static bool gathernd_lens(const op_call *call, int64_t *lens, int *rank, graft_error *err)
{
    const shape *data = &call->inputs[0], *idx = &call->inputs[1];
    char a[200], b[200];
    if (!check_indices_type(call, 1, err))
        return false;
    int64_t batch = op_attr_int(call, "batch_dims");
    int q = idx->rank, r = data->rank;
    if (batch < 0 || batch >= q || batch >= r)
        return error_set(err, "gathernd: batch_dims %lld must be below the ranks of indices (%d) "
                              "and data (%d)",
                         (long long)batch, q, r);
    int64_t k = idx->lens[q - 1];
    if (k < 1 || k > r - batch)
        return error_set(err, "gathernd: indices %s index %lld axes; data %s has %lld after the "
                              "batch axes",
                         ops_lens_text(idx, a, sizeof a), (long long)k,
                         ops_lens_text(data, b, sizeof b), (long long)(r - batch));
    for (int i = 0; i < batch; i++)
        if (idx->lens[i] != data->lens[i])
            return error_set(err, "gathernd: batch axis %d differs: indices %s, data %s", i,
                             ops_lens_text(idx, a, sizeof a), ops_lens_text(data, b, sizeof b));
    int n = 0;
    for (int i = 0; i < q - 1; i++)
        lens[n++] = idx->lens[i];
    for (int i = (int)(batch + k); i < r; i++) {
        if (n == SHAPE_MAX_RANK)
            return error_set(err, "gathernd: the result's rank exceeds %d", SHAPE_MAX_RANK);
        lens[n++] = data->lens[i];
    }
    if (n == 0)
        lens[n++] = 1;
    *rank = n;
    return true;
}

static bool gathernd_shape(const op_call *call, shape *out, graft_error *err)
{
    int64_t lens[SHAPE_MAX_RANK];
    int rank = 0;
    if (!gathernd_lens(call, lens, &rank, err) || !ops_check_result_lens(call, lens, rank, err))
        return false;
    *out = shape_standard(call->inputs[0].type, rank, lens);
    return true;
}

static bool scatternd_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *data = &call->inputs[0], *idx = &call->inputs[1], *upd = &call->inputs[2];
    char a[200], b[200], d[200];
    if (!check_indices_type(call, 1, err))
        return false;
    int q = idx->rank, r = data->rank;
    int64_t k = idx->lens[q - 1];
    if (k < 1 || k > r)
        return error_set(err, "%s: indices %s index %lld axes; data %s has %d", call->op->name,
                         ops_lens_text(idx, a, sizeof a), (long long)k,
                         ops_lens_text(data, b, sizeof b), r);
    int64_t want[2 * SHAPE_MAX_RANK];
    int n = 0;
    for (int i = 0; i < q - 1; i++)
        want[n++] = idx->lens[i];
    for (int i = (int)k; i < r; i++)
        want[n++] = data->lens[i];
    /* a rank-0 updates tensor is {1} in graft */
    bool fits = n == 0 ? shape_elements(upd) == 1 : upd->rank == n;
    for (int i = 0; fits && i < n; i++)
        fits = upd->lens[i] == want[i];
    if (!fits)
        return error_set(err, "%s: updates %s do not match indices %s and data %s (want %s)",
                         call->op->name, ops_lens_text(upd, a, sizeof a),
                         ops_lens_text(idx, b, sizeof b), ops_lens_text(data, d, sizeof d),
                         n ? ops_ints_text(want, n, d, sizeof d) : "{1}");
    if (upd->type != data->type)
        return error_set(err, "%s: updates are %s, data %s", call->op->name, type_name(upd->type),
                         type_name(data->type));
    *out = shape_standard(data->type, data->rank, data->lens);
    return true;
}

static const attr_spec axis_attrs[] = {
    {"axis", ATTR_INT, OPS_DFLT_INT(0), false, NULL},
};
static const attr_spec scatter_attrs[] = {
    {"axis", ATTR_INT, OPS_DFLT_INT(0), false, NULL},
    {"skip_out_of_bounds", ATTR_BOOL, OPS_DFLT_BOOL(0), false, NULL},
};
static const attr_spec gathernd_attrs[] = {
    {"batch_dims", ATTR_INT, OPS_DFLT_INT(0), false, NULL},
};

#define SCATTER_OP(nm)                                                                            \
    {.name = nm, .classes = OPC_MOVE, .min_args = 3, .max_args = 3, .attrs = scatter_attrs,       \
     .nattrs = 2, .compute_shape = scatter_shape}
#define SCATTERND_OP(nm)                                                                          \
    {.name = nm, .classes = OPC_MOVE, .min_args = 3, .max_args = 3,                               \
     .compute_shape = scatternd_shape}

op_def ops_index_table[] = {
    {.name = "gather_elements", .classes = OPC_MOVE, .min_args = 2, .max_args = 2,
     .attrs = axis_attrs, .nattrs = 1, .compute_shape = gather_elements_shape},
    {.name = "gathernd", .classes = OPC_MOVE, .min_args = 2, .max_args = 2,
     .attrs = gathernd_attrs, .nattrs = 1, .compute_shape = gathernd_shape},
    SCATTER_OP("scatter_none"),
    SCATTER_OP("scatter_add"),
    SCATTER_OP("scatter_mul"),
    SCATTER_OP("scatter_min"),
    SCATTER_OP("scatter_max"),
    SCATTERND_OP("scatternd_none"),
    SCATTERND_OP("scatternd_add"),
    SCATTERND_OP("scatternd_mul"),
    SCATTERND_OP("scatternd_min"),
    SCATTERND_OP("scatternd_max"),
};
const int ops_index_count = (int)(sizeof ops_index_table / sizeof ops_index_table[0]);
