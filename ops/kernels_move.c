/* kernels_move.c: ops that move data without arithmetic: views, copies,
 * concat, pad, gather and get_tuple_elem.
 *
 * Values are copied as they are (bit for bit, in the op's element type),
 * never through a compute type. View ops (OPC_VIEW in the op table) alias
 * their first operand: the executor gives them no buffer, and the kernel
 * only points out->data into the operand (slice adds its start offset,
 * get_tuple_elem the element's offset). The strides of a view come from its
 * shape rule. Should the op table ever declare one of these ops as not a
 * view, the kernel copies the same elements into the executor's buffer
 * instead, so the result does not depend on that choice.
 */
#include "kernels_common.h"

#include <string.h>

static bool is_view(const op_call *call)
{
    return (call->op->classes & OPC_VIEW) != 0;
}

static size_t element_size(const tensor *t)
{
    return type_size(t->sh.type);
}

/* Copies src into out; both have the same element count and type. */
static bool copy_into(const op_call *call, tensor *out, const tensor *src, graft_error *err)
{
    if (!tensor_copy(out, src))
        return error_set(err, "%s: cannot copy %s {%lld elements} into %s {%lld elements}",
                         call->op->name, type_name(src->sh.type),
                         (long long)shape_elements(&src->sh), type_name(out->sh.type),
                         (long long)shape_elements(&out->sh));
    return true;
}

/* The strided view of in that transpose/broadcast/multibroadcast describe,
 * for the copying fallback. Shape-only ops (squeeze, flatten, ...) are their
 * input in row-major order, so in itself serves. */
static bool view_of(const op_call *call, const tensor *in, const tensor *out, tensor *view,
                    graft_error *err)
{
    const char *name = call->op->name;
    const shape *s = &in->sh;
    *view = *in;
    if (strcmp(name, "transpose") == 0) {
        int n;
        const int64_t *perm = op_attr_ints(call, "permutation", &n);
        if (n != s->rank || !ops_is_permutation(perm, n, s->rank))
            return error_set(err, "transpose: permutation does not fit rank %d", s->rank);
        for (int i = 0; i < n; i++) {
            view->sh.lens[i] = s->lens[perm[i]];
            view->sh.strides[i] = s->strides[perm[i]];
        }
        return true;
    }
    bool multi = strcmp(name, "multibroadcast") == 0;
    if (multi || strcmp(name, "broadcast") == 0) {
        const shape *o = &out->sh;
        int first = multi ? o->rank - s->rank : (int)op_attr_int(call, "axis");
        if (first < 0 || first + s->rank > o->rank)
            return error_set(err, "%s: input rank %d does not fit the result", name, s->rank);
        view->sh.rank = o->rank;
        for (int i = 0; i < o->rank; i++) {
            int a = i - first;
            bool from_input = a >= 0 && a < s->rank && s->lens[a] == o->lens[i];
            view->sh.lens[i] = o->lens[i];
            view->sh.strides[i] = from_input ? s->strides[a] : 0;
        }
        return true;
    }
    return true;
}

bool kernel_view(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    if (is_view(call)) {
        out->data = inputs[0].data;
        return true;
    }
    tensor view;
    return view_of(call, &inputs[0], out, &view, err) && copy_into(call, out, &view, err);
}

bool kernel_slice(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const tensor *in = &inputs[0];
    int64_t starts[SHAPE_MAX_RANK], counts[SHAPE_MAX_RANK];
    if (!ops_slice_bounds(call, &in->sh, starts, counts, err))
        return false;
    int64_t offset = 0;
    for (int a = 0; a < in->sh.rank; a++)
        if (counts[a] > 0)
            offset += starts[a] * in->sh.strides[a];
    if (is_view(call)) {
        out->data = in->data + offset * (int64_t)element_size(in);
        return true;
    }
    tensor view = *in;
    view.data = in->data + offset * (int64_t)element_size(in);
    for (int a = 0; a < in->sh.rank; a++)
        view.sh.lens[a] = counts[a];
    return copy_into(call, out, &view, err);
}

/* reshape, contiguous, layout, identity, copy: the operand's elements in
 * row-major order, written in the result's layout. */
bool kernel_copy(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    if (is_view(call)) {
        out->data = inputs[0].data;
        return true;
    }
    return copy_into(call, out, &inputs[0], err);
}

bool kernel_concat(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    int axis;
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), out->sh.rank, &axis, err))
        return false;
    int64_t position = 0;
    size_t esize = element_size(out);
    for (int k = 0; k < call->ninputs; k++) {
        const tensor *in = &inputs[k];
        if (in->sh.rank != out->sh.rank)
            return error_set(err, "concat: operand %d has rank %d, result rank %d", k,
                             in->sh.rank, out->sh.rank);
        tensor part = *out;
        part.sh.lens[axis] = in->sh.lens[axis];
        part.data = out->data + position * out->sh.strides[axis] * (int64_t)esize;
        if (shape_elements(&part.sh) > 0 && !copy_into(call, &part, in, err))
            return false;
        position += in->sh.lens[axis];
    }
    return true;
}

/* ---- pad ---- */

enum { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE };

/* Index into [0, len) that output index i (already shifted by the begin
 * pad) reads, or -1 for the constant. */
static int64_t pad_source(int64_t i, int64_t len, int mode)
{
    if (i >= 0 && i < len)
        return i;
    if (mode == PAD_CONSTANT || len <= 0)
        return -1;
    if (mode == PAD_EDGE)
        return i < 0 ? 0 : len - 1;
    if (len == 1)
        return 0;
    int64_t period = 2 * (len - 1);
    int64_t m = ((i % period) + period) % period;
    return m < len ? m : period - m;
}

bool kernel_pad(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const tensor *in = &inputs[0];
    int rank = in->sh.rank, npads;
    const int64_t *pads = op_attr_ints(call, "pads", &npads);
    if (npads != 2 * rank)
        return error_set(err, "pad: pads has %d values for rank %d", npads, rank);
    const char *mode_name = kernel_attr_enum_name(call, "mode");
    int mode = !mode_name                          ? -1
               : strcmp(mode_name, "constant") == 0 ? PAD_CONSTANT
               : strcmp(mode_name, "reflect") == 0  ? PAD_REFLECT
               : strcmp(mode_name, "edge") == 0     ? PAD_EDGE
                                                    : -1;
    if (mode < 0)
        return error_set(err, "pad: unknown mode");
    if (mode == PAD_REFLECT)
        for (int a = 0; a < rank; a++)
            if (in->sh.lens[a] == 0 && out->sh.lens[a] > 0)
                return error_set(err, "pad: cannot reflect an empty axis");
    /* the constant, in the element type */
    char value[16] = {0};
    shape one = shape_scalar(out->sh.type);
    tensor constant = {one, value};
    tensor_set_f64(&constant, 0, op_attr_float(call, "value"));

    size_t esize = element_size(out);
    int64_t n = shape_elements(&out->sh);
    int64_t idx[SHAPE_MAX_RANK] = {0};
    for (int64_t e = 0; e < n; e++) {
        int64_t src = 0, dst = 0;
        bool use_constant = false;
        for (int a = 0; a < rank; a++) {
            int64_t i = pad_source(idx[a] - pads[a], in->sh.lens[a], mode);
            if (i < 0)
                use_constant = true;
            else
                src += i * in->sh.strides[a];
            dst += idx[a] * out->sh.strides[a];
        }
        memcpy(out->data + dst * (int64_t)esize,
               use_constant ? value : in->data + src * (int64_t)esize, esize);
        for (int a = rank - 1; a >= 0; a--) {
            if (++idx[a] < out->sh.lens[a])
                break;
            idx[a] = 0;
        }
    }
    return true;
}

/* ---- gather ---- */

bool kernel_gather(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const tensor *data = &inputs[0];
    int axis;
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), data->sh.rank, &axis, err))
        return false;
    int64_t outer = 1, inner = 1, len = data->sh.lens[axis];
    for (int a = 0; a < axis; a++)
        outer *= data->sh.lens[a];
    for (int a = axis + 1; a < data->sh.rank; a++)
        inner *= data->sh.lens[a];
    int64_t nindices = shape_elements(&inputs[1].sh);
    if (outer * nindices * inner != shape_elements(&out->sh))
        return error_set(err, "gather: result has %lld elements, expected %lld",
                         (long long)shape_elements(&out->sh),
                         (long long)(outer * nindices * inner));
    size_t esize = element_size(data);
    int64_t *indices = tensor_dense_i64(&inputs[1]);
    /* dense copies of the data and of the result, in row-major order */
    tensor dense_in = {shape_as_standard(&data->sh), NULL};
    tensor dense_out = {shape_as_standard(&out->sh), NULL};
    int64_t nin = shape_elements(&data->sh), nout = shape_elements(&out->sh);
    dense_in.data = tensor_alloc(nin > 0 ? (size_t)nin * esize : 1, false);
    dense_out.data = tensor_alloc(nout > 0 ? (size_t)nout * esize : 1, false);
    bool ok = indices && dense_in.data && dense_out.data;
    if (!ok) {
        kernel_out_of_memory(call, err);
    } else {
        tensor_copy(&dense_in, data);
        for (int64_t j = 0; j < nindices && ok; j++) {
            int64_t i = indices[j] < 0 ? indices[j] + len : indices[j];
            if (i < 0 || i >= len) {
                ok = error_set(err, "gather: index %lld is out of range for axis %d of length %lld",
                               (long long)indices[j], axis, (long long)len);
                break;
            }
            for (int64_t o = 0; o < outer; o++)
                memcpy(dense_out.data + ((o * nindices + j) * inner) * (int64_t)esize,
                       dense_in.data + ((o * len + i) * inner) * (int64_t)esize,
                       (size_t)inner * esize);
        }
        if (ok)
            tensor_copy(out, &dense_out);
    }
    free(indices);
    free(dense_in.data);
    free(dense_out.data);
    return ok;
}

/* ---- get_tuple_elem ---- */

bool kernel_get_tuple_elem(const op_call *call, const tensor *inputs, tensor *out,
                           graft_error *err)
{
    const shape *tuple = &inputs[0].sh;
    int64_t index = op_attr_int(call, "index");
    if (!shape_is_tuple(tuple) || index < 0 || index >= tuple->ntuple)
        return error_set(err, "get_tuple_elem: index %lld is not an element of the operand",
                         (long long)index);
    tensor element = {tuple->tuple[index], inputs[0].data + tensor_tuple_offset(tuple, (int)index)};
    if (is_view(call)) {
        out->data = element.data;
        return true;
    }
    return copy_into(call, out, &element, err);
}
