/* kernels_gemm.c: dot, quant_dot, convolution and quant_convolution.
 *
 * These carry almost all the arithmetic of a real model, so they go through
 * graft's own blocked matrix product (gemm.c), whose every output element is
 * summed in one documented order, k = 0, 1, ..., with no fused multiply-add:
 * the same bits on every CPU and in every position of a tile (BLAS libraries
 * choose their kernel per CPU and do not promise that; see gemm.c). Float,
 * half and bf16 operands are read as float32 and multiplied with gemm_f32
 * (half and bf16 round once, on store), double with gemm_f64. Integer
 * operands (quant_dot, quant_convolution: int8 in, int32 out) are multiplied
 * exactly in int64 by plain loops.
 *
 * Convolution is im2col followed by one matrix product per (batch, group):
 * the column matrix has one row per (input channel, kernel position) and one
 * column per output position, zero where the kernel reads padding. A 1x1
 * kernel with stride 1 and no padding needs no column matrix at all: the
 * input slice already is one. Any number of spatial axes is supported.
 */
#include "gemm.h"
#include "kernels_common.h"

#include <string.h>

static void *alloc_elements(int64_t n, size_t size)
{
    return tensor_alloc(n > 0 ? (size_t)n * size : 1, false);
}

/* ---- integer matrix product, exact (wrapping) ---- */

static void gemm_i64(int64_t m, int64_t n, int64_t k, const int64_t *a, const int64_t *b,
                     int64_t *c)
{
    for (int64_t i = 0; i < m * n; i++)
        c[i] = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t p = 0; p < k; p++) {
            uint64_t av = (uint64_t)a[i * k + p];
            if (!av)
                continue;
            const int64_t *brow = b + p * n;
            int64_t *crow = c + i * n;
            for (int64_t j = 0; j < n; j++)
                crow[j] = (int64_t)((uint64_t)crow[j] + av * (uint64_t)brow[j]);
        }
}

/* ---- dot ---- */

typedef struct dot_dims {
    int64_t batch, m, n, k;
} dot_dims;

static bool dot_dims_of(const op_call *call, const tensor *inputs, const tensor *out, dot_dims *d,
                        graft_error *err)
{
    const shape *a = &inputs[0].sh, *b = &inputs[1].sh;
    int ra = a->rank, rb = b->rank, ro = out->sh.rank;
    if (ra < 2 || rb < 2 || ro < 2)
        return error_set(err, "%s: operands must have rank 2 or more", call->op->name);
    d->m = a->lens[ra - 2];
    d->k = a->lens[ra - 1];
    d->n = b->lens[rb - 1];
    if (b->lens[rb - 2] != d->k)
        return error_set(err, "%s: inner dimensions differ (%lld and %lld)", call->op->name,
                         (long long)d->k, (long long)b->lens[rb - 2]);
    d->batch = 1;
    for (int i = 0; i < ro - 2; i++)
        d->batch *= out->sh.lens[i];
    if (shape_elements(a) != d->batch * d->m * d->k || shape_elements(b) != d->batch * d->k * d->n ||
        out->sh.lens[ro - 2] != d->m || out->sh.lens[ro - 1] != d->n)
        return error_set(err, "%s: batch dimensions of the operands and the result differ",
                         call->op->name);
    return true;
}

static bool dot_float(const op_call *call, const dot_dims *d, const tensor *inputs, tensor *out,
                      graft_error *err)
{
    float *owned_a, *owned_b;
    const float *a = kernel_f32_input(&inputs[0], &owned_a);
    const float *b = kernel_f32_input(&inputs[1], &owned_b);
    bool direct = out->sh.type == GRAFT_FLOAT && shape_standard_p(&out->sh);
    float *c = direct ? (float *)(void *)out->data : alloc_elements(d->batch * d->m * d->n, 4);
    bool ok = a && b && c;
    if (ok) {
        for (int64_t t = 0; t < d->batch && ok; t++)
            ok = gemm_f32(d->m, d->n, d->k, a + t * d->m * d->k, d->k, b + t * d->k * d->n, d->n,
                          c + t * d->m * d->n, d->n);
        if (ok && !direct)
            tensor_store_f32(out, c);
    }
    if (!direct)
        free(c);
    free(owned_a);
    free(owned_b);
    return ok ? true : kernel_out_of_memory(call, err);
}

static bool dot_double(const op_call *call, const dot_dims *d, const tensor *inputs, tensor *out,
                       graft_error *err)
{
    double *a = tensor_dense_f64(&inputs[0]);
    double *b = tensor_dense_f64(&inputs[1]);
    double *c = alloc_elements(d->batch * d->m * d->n, sizeof(double));
    bool ok = a && b && c;
    if (ok) {
        for (int64_t t = 0; t < d->batch && ok; t++)
            ok = gemm_f64(d->m, d->n, d->k, a + t * d->m * d->k, d->k, b + t * d->k * d->n, d->n,
                          c + t * d->m * d->n, d->n);
        if (ok)
            tensor_store_f64(out, c);
    }
    free(a);
    free(b);
    free(c);
    return ok ? true : kernel_out_of_memory(call, err);
}

static bool dot_integer(const op_call *call, const dot_dims *d, const tensor *inputs, tensor *out,
                        graft_error *err)
{
    int64_t *a = tensor_dense_i64(&inputs[0]);
    int64_t *b = tensor_dense_i64(&inputs[1]);
    int64_t *c = alloc_elements(d->batch * d->m * d->n, sizeof(int64_t));
    bool ok = a && b && c;
    if (ok) {
        for (int64_t t = 0; t < d->batch; t++)
            gemm_i64(d->m, d->n, d->k, a + t * d->m * d->k, b + t * d->k * d->n,
                     c + t * d->m * d->n);
        tensor_store_i64(out, c);
    }
    free(a);
    free(b);
    free(c);
    return ok ? true : kernel_out_of_memory(call, err);
}

bool kernel_dot(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    if (call->ninputs != 2)
        return error_set(err, "%s: expects 2 operands, got %d", call->op->name, call->ninputs);
    /* output_permutation: compute the product into the un-permuted view of out. */
    tensor product = *out;
    int np = 0;
    const int64_t *perm = kernel_has_attr(call, "output_permutation")
                              ? op_attr_ints(call, "output_permutation", &np)
                              : NULL;
    for (int i = 0; i < np && np == out->sh.rank; i++) {
        product.sh.lens[perm[i]] = out->sh.lens[i];
        product.sh.strides[perm[i]] = out->sh.strides[i];
    }
    out = &product;
    dot_dims d = {0, 0, 0, 0};
    if (!dot_dims_of(call, inputs, out, &d, err))
        return false;
    graft_type ta = inputs[0].sh.type, tb = inputs[1].sh.type;
    if (!type_is_float(ta) || !type_is_float(tb))
        return dot_integer(call, &d, inputs, out, err);
    if (ta == GRAFT_DOUBLE || tb == GRAFT_DOUBLE || out->sh.type == GRAFT_DOUBLE)
        return dot_double(call, &d, inputs, out, err);
    return dot_float(call, &d, inputs, out, err);
}

/* ---- convolution ---- */

typedef struct conv_geometry {
    int spatial;                       /* number of spatial axes */
    int64_t batch, channels, features, groups;
    int64_t in[SHAPE_MAX_RANK];        /* input spatial lens */
    int64_t kernel[SHAPE_MAX_RANK];    /* kernel spatial lens */
    int64_t outl[SHAPE_MAX_RANK];      /* output spatial lens */
    int64_t pad[SHAPE_MAX_RANK];       /* padding before each spatial axis */
    int64_t stride[SHAPE_MAX_RANK];
    int64_t dilation[SHAPE_MAX_RANK];
    int64_t in_size, kernel_size, out_size; /* products of the spatial lens */
} conv_geometry;

/* Reads a per-axis attribute: k values (or 1, repeated; none: dflt). */
static bool axis_values(const op_call *call, const char *name, int k, int64_t dflt, int64_t *v,
                        graft_error *err)
{
    int n;
    const int64_t *given = op_attr_ints(call, name, &n);
    for (int i = 0; i < k; i++)
        v[i] = n == 0 ? dflt : n == 1 ? given[0] : n >= k ? given[i] : dflt;
    if (n > 1 && n < k)
        return error_set(err, "%s: %s has %d values for %d spatial axes", call->op->name, name, n,
                         k);
    return true;
}

static bool conv_geometry_of(const op_call *call, const tensor *inputs, const tensor *out,
                             conv_geometry *g, graft_error *err)
{
    const shape *x = &inputs[0].sh, *w = &inputs[1].sh, *o = &out->sh;
    if (x->rank < 3 || w->rank != x->rank || o->rank != x->rank)
        return error_set(err, "%s: input, weights and result must have the same rank (3 or more)",
                         call->op->name);
    g->spatial = x->rank - 2;
    g->batch = x->lens[0];
    g->channels = x->lens[1];
    g->features = w->lens[0];
    g->groups = kernel_has_attr(call, "group") ? op_attr_int(call, "group") : 1;
    if (g->groups < 1 || g->channels % g->groups || g->features % g->groups ||
        w->lens[1] * g->groups != g->channels || o->lens[1] != g->features || o->lens[0] != g->batch)
        return error_set(err, "%s: channels %lld, weights {%lld, %lld, ...} and group %lld disagree",
                         call->op->name, (long long)g->channels, (long long)w->lens[0],
                         (long long)w->lens[1], (long long)g->groups);
    g->in_size = g->kernel_size = g->out_size = 1;
    for (int d = 0; d < g->spatial; d++) {
        g->in[d] = x->lens[d + 2];
        g->kernel[d] = w->lens[d + 2];
        g->outl[d] = o->lens[d + 2];
        g->in_size *= g->in[d];
        g->kernel_size *= g->kernel[d];
        g->out_size *= g->outl[d];
    }
    int npad;
    const int64_t *padding = op_attr_ints(call, "padding", &npad);
    if (npad != 0 && npad != g->spatial && npad != 2 * g->spatial)
        return error_set(err, "%s: padding has %d values for %d spatial axes", call->op->name,
                         npad, g->spatial);
    for (int d = 0; d < g->spatial; d++)
        g->pad[d] = npad ? padding[d] : 0; /* begins come first in both forms */
    return axis_values(call, "stride", g->spatial, 1, g->stride, err) &&
           axis_values(call, "dilation", g->spatial, 1, g->dilation, err);
}

/* True when the input slice itself is the column matrix. */
static bool conv_is_pointwise(const conv_geometry *g)
{
    for (int d = 0; d < g->spatial; d++)
        if (g->kernel[d] != 1 || g->stride[d] != 1 || g->pad[d] != 0 || g->outl[d] != g->in[d])
            return false;
    return true;
}

/* One row segment of the column matrix: the input row `src` (len elements)
 * read at j * step + shift for j in [0, count), zero outside it. */
static void gather_row(char *dst, const char *src, size_t esize, int64_t count, int64_t step,
                       int64_t shift, int64_t len)
{
    if (esize == 4) {
        uint32_t *out4 = (uint32_t *)(void *)dst;
        const uint32_t *in4 = (const uint32_t *)(const void *)src;
        for (int64_t j = 0; j < count; j++) {
            int64_t i = j * step + shift;
            out4[j] = i >= 0 && i < len ? in4[i] : 0;
        }
    } else {
        uint64_t *out8 = (uint64_t *)(void *)dst;
        const uint64_t *in8 = (const uint64_t *)(const void *)src;
        for (int64_t j = 0; j < count; j++) {
            int64_t i = j * step + shift;
            out8[j] = i >= 0 && i < len ? in8[i] : 0;
        }
    }
}

/* Fills col (rows: channel-major then kernel position; columns: output
 * positions) from one (batch, group) input slice of `channels` channels.
 * Elements are esize bytes (4 or 8) copied as bits; padding reads zero. */
static void im2col(const conv_geometry *g, int64_t channels, const char *input, size_t esize,
                   char *col)
{
    int last = g->spatial - 1;
    int64_t olast = g->outl[last], len = g->in[last];
    int64_t outer_positions = olast ? g->out_size / olast : 0;
    char *row = col;
    for (int64_t c = 0; c < channels; c++) {
        const char *plane = input + (size_t)(c * g->in_size) * esize;
        for (int64_t kpos = 0; kpos < g->kernel_size; kpos++, row += (size_t)g->out_size * esize) {
            int64_t kk[SHAPE_MAX_RANK], rest = kpos;
            for (int d = last; d >= 0; d--) {
                kk[d] = rest % g->kernel[d];
                rest /= g->kernel[d];
            }
            int64_t shift = kk[last] * g->dilation[last] - g->pad[last];
            int64_t o[SHAPE_MAX_RANK] = {0};
            for (int64_t op = 0; op < outer_positions; op++) {
                /* which input row the outer axes select, if any */
                int64_t base = 0;
                bool inside = true;
                for (int d = 0; d < last; d++) {
                    int64_t i = o[d] * g->stride[d] - g->pad[d] + kk[d] * g->dilation[d];
                    inside = inside && i >= 0 && i < g->in[d];
                    base = base * g->in[d] + i;
                }
                char *dst = row + (size_t)(op * olast) * esize;
                if (inside)
                    gather_row(dst, plane + (size_t)(base * len) * esize, esize, olast,
                               g->stride[last], shift, len);
                else
                    memset(dst, 0, (size_t)olast * esize);
                for (int d = last - 1; d >= 0; d--) { /* next outer output position */
                    if (++o[d] < g->outl[d])
                        break;
                    o[d] = 0;
                }
            }
        }
    }
}

typedef enum conv_domain { CONV_F32, CONV_F64, CONV_I64 } conv_domain;

/* One (batch, group) product: result[features_g x out_size] = weights x col.
 * False when gemm's scratch memory cannot be allocated. */
static bool conv_gemm(conv_domain domain, int64_t m, int64_t n, int64_t k, const void *w,
                      const void *col, void *result)
{
    if (domain == CONV_I64) {
        gemm_i64(m, n, k, w, col, result);
        return true;
    }
    if (domain == CONV_F32)
        return gemm_f32(m, n, k, w, k, col, n, result, n);
    return gemm_f64(m, n, k, w, k, col, n, result, n);
}

bool kernel_convolution(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    if (call->ninputs != 2)
        return error_set(err, "%s: expects 2 operands, got %d", call->op->name, call->ninputs);
    conv_geometry g;
    if (!conv_geometry_of(call, inputs, out, &g, err))
        return false;
    graft_type tx = inputs[0].sh.type, tw = inputs[1].sh.type;
    conv_domain domain = !type_is_float(tx) || !type_is_float(tw) ? CONV_I64
                         : tx == GRAFT_DOUBLE || tw == GRAFT_DOUBLE || out->sh.type == GRAFT_DOUBLE
                             ? CONV_F64
                             : CONV_F32;
    size_t esize = domain == CONV_F32 ? 4 : 8;

    /* dense operands in the compute type */
    void *owned_x = NULL, *owned_w = NULL, *result = NULL;
    const void *x, *w;
    if (domain == CONV_F32) {
        x = kernel_f32_input(&inputs[0], (float **)&owned_x);
        w = kernel_f32_input(&inputs[1], (float **)&owned_w);
    } else if (domain == CONV_F64) {
        x = owned_x = tensor_dense_f64(&inputs[0]);
        w = owned_w = tensor_dense_f64(&inputs[1]);
    } else {
        x = owned_x = tensor_dense_i64(&inputs[0]);
        w = owned_w = tensor_dense_i64(&inputs[1]);
    }
    bool direct = domain == CONV_F32 && out->sh.type == GRAFT_FLOAT && shape_standard_p(&out->sh);
    int64_t out_elements = shape_elements(&out->sh);
    result = direct ? (void *)out->data : alloc_elements(out_elements, esize);
    int64_t cg = g.channels / g.groups, fg = g.features / g.groups;
    int64_t rows = cg * g.kernel_size;
    bool pointwise = conv_is_pointwise(&g);
    void *col = pointwise ? NULL : alloc_elements(rows * g.out_size, esize);
    bool ok = x && w && result && (pointwise || col);
    if (ok) {
        for (int64_t b = 0; b < g.batch && ok; b++)
            for (int64_t grp = 0; grp < g.groups && ok; grp++) {
                const char *slice =
                    (const char *)x + (size_t)((b * g.channels + grp * cg) * g.in_size) * esize;
                const void *columns = slice;
                if (!pointwise) {
                    im2col(&g, cg, slice, esize, col);
                    columns = col;
                }
                const char *wg = (const char *)w + (size_t)(grp * fg * rows) * esize;
                char *rg = (char *)result +
                           (size_t)((b * g.features + grp * fg) * g.out_size) * esize;
                ok = conv_gemm(domain, fg, g.out_size, rows, wg, columns, rg);
            }
    }
    if (ok) {
        if (domain == CONV_F32 && !direct)
            tensor_store_f32(out, result);
        else if (domain == CONV_F64)
            tensor_store_f64(out, result);
        else if (domain == CONV_I64)
            tensor_store_i64(out, result);
    }
    if (!direct)
        free(result);
    free(col);
    free(owned_x);
    free(owned_w);
    return ok ? true : kernel_out_of_memory(call, err);
}
