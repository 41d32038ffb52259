/* kernels.c: which reference kernel runs which op, and helpers the kernel
 * families share.
 *
 * The op table (op.c, ops_*.c) says what an op is; this file says which
 * function computes it. Ops are matched by name, so a kernel family can serve
 * several ops (every reduce_* goes to kernel_reduce) and a kernel never needs
 * to know which table an op was declared in. Pointwise ops the op table marks
 * OPC_POINTWISE are served by kernel_pointwise when it knows their function.
 * Builtins, opaque ops and ops with no kernel give NULL, and the executor
 * refuses the graph naming the op.
 */
#include "kernels_common.h"

#include <string.h>

typedef struct kernel_entry {
    const char *name;
    kernel_fn fn;
} kernel_entry;

static const kernel_entry kernel_table[] = {
    {"convert", kernel_convert},
    {"where", kernel_where},
    {"clip", kernel_clip},
    {"reduce_sum", kernel_reduce},
    {"reduce_mean", kernel_reduce},
    {"reduce_max", kernel_reduce},
    {"reduce_min", kernel_reduce},
    {"reduce_prod", kernel_reduce},
    {"softmax", kernel_softmax},
    {"logsoftmax", kernel_softmax},
    {"argmax", kernel_arg_reduce},
    {"argmin", kernel_arg_reduce},
    {"batch_norm_inference", kernel_batch_norm},
    {"lrn", kernel_lrn},
    {"dot", kernel_dot},
    {"quant_dot", kernel_dot},
    {"convolution", kernel_convolution},
    {"quant_convolution", kernel_convolution},
    {"pooling", kernel_pooling},
    {"max_pooling_indices", kernel_max_pooling_indices},
    {"broadcast", kernel_view},
    {"multibroadcast", kernel_view},
    {"transpose", kernel_view},
    {"squeeze", kernel_view},
    {"unsqueeze", kernel_view},
    {"reshape_lazy", kernel_view},
    {"flatten", kernel_view},
    {"slice", kernel_slice},
    {"reshape", kernel_copy},
    {"contiguous", kernel_copy},
    {"layout", kernel_copy},
    {"identity", kernel_copy},
    {"copy", kernel_copy},
    {"concat", kernel_concat},
    {"pad", kernel_pad},
    {"gather", kernel_gather},
    {"get_tuple_elem", kernel_get_tuple_elem},
    {"gather_elements", kernel_gather_elements},
    {"gathernd", kernel_gathernd},
    {"scatter_none", kernel_scatter},
    {"scatter_add", kernel_scatter},
    {"scatter_mul", kernel_scatter},
    {"scatter_min", kernel_scatter},
    {"scatter_max", kernel_scatter},
    {"scatternd_none", kernel_scatternd},
    {"scatternd_add", kernel_scatternd},
    {"scatternd_mul", kernel_scatternd},
    {"scatternd_min", kernel_scatternd},
    {"scatternd_max", kernel_scatternd},
    {"resize", kernel_resize},
    {"convolution_backwards", kernel_convolution_backwards},
    {"prefix_scan_sum", kernel_prefix_scan_sum},
    {"topk_indices", kernel_topk_indices},
    {"grid_sample", kernel_grid_sample},
    {"roialign", kernel_roialign},
    {"nonmaxsuppression", kernel_nonmaxsuppression},
    {"det", kernel_det},
    {"dft", kernel_dft},
    {"unique", kernel_unique},
    {"nonzero", kernel_nonzero},
    {"if", kernel_if},
    {"loop", kernel_loop},
};

kernel_fn kernel_for(const op_def *op)
{
    if (!op || !op->name || (op->classes & (OPC_BUILTIN | OPC_OPAQUE)))
        return NULL;
    for (size_t i = 0; i < sizeof kernel_table / sizeof kernel_table[0]; i++)
        if (strcmp(kernel_table[i].name, op->name) == 0)
            return kernel_table[i].fn;
    if (kernel_pointwise_known(op->name))
        return kernel_pointwise;
    return NULL;
}

/* ---- helpers ---- */

/* Names the largest operand and what one copy of its elements takes: the
 * working copies need at least that much. */
bool kernel_out_of_memory(const op_call *call, graft_error *err)
{
    const shape *big = NULL;
    for (int k = 0; k < call->ninputs; k++)
        if (!big || shape_elements(&call->inputs[k]) > shape_elements(big))
            big = &call->inputs[k];
    if (!big || shape_is_tuple(big))
        return error_set(err, "%s: out of memory", call->op->name);
    char lens[200];
    ints_print(big->lens, big->rank, lens, sizeof lens);
    int64_t n = shape_elements(big);
    double bytes = (double)n * (double)type_size(big->type);
    return error_set(err,
                     "%s: out of memory for working copies of %lld elements (%s %s: at least %.0f "
                     "bytes, %.1f GiB)",
                     call->op->name, (long long)n, type_name(big->type), lens, bytes,
                     bytes / (1024.0 * 1024.0 * 1024.0));
}

const char *kernel_attr_enum_name(const op_call *call, const char *name)
{
    int i = op_attr_index(call->op, name);
    const attr_value *v = op_attr(call, name);
    if (i < 0 || !v)
        return NULL;
    if (v->kind == ATTR_STRING)
        return v->u.s;
    const char *const *names = call->op->attrs[i].enum_names;
    if (!names || v->u.i < 0)
        return NULL;
    for (int64_t k = 0; names[k]; k++)
        if (k == v->u.i)
            return names[k];
    return NULL;
}

bool kernel_has_attr(const op_call *call, const char *name)
{
    return op_attr_index(call->op, name) >= 0;
}

int64_t *kernel_offsets(int rank, const int64_t *lens, const int64_t *strides, int64_t *count)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= lens[i];
    *count = n;
    int64_t *offsets = malloc(n > 0 ? (size_t)n * sizeof *offsets : 1);
    if (!offsets)
        return NULL;
    tensor_walk w;
    tensor_walk_init_raw(&w, rank, lens, strides);
    int64_t k = 0;
    for (int64_t r = 0; r < w.rows; r++, tensor_walk_next_row(&w))
        for (int64_t j = 0; j < w.row_len; j++)
            offsets[k++] = w.offset + j * w.row_stride;
    return offsets;
}

void kernel_dense_strides(const shape *s, int64_t *strides)
{
    shape_compute_strides(s->rank, s->lens, strides);
}

const float *kernel_f32_input(const tensor *t, float **owned)
{
    *owned = NULL;
    if (t->sh.type == GRAFT_FLOAT && shape_standard_p(&t->sh))
        return (const float *)(const void *)t->data;
    *owned = tensor_dense_f32(t);
    return *owned;
}
