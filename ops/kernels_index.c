/* kernels_index.c: gather_elements, gathernd, scatter_* and scatternd_*.
 *
 * Gathers copy elements as they are (bytes, in the element type). Scatters
 * combine values: float types in double (exact for every float type graft
 * has, so scatter_none moves bits unchanged and add/mul round once on
 * store), integer types in int64 with wrapping arithmetic. Duplicate indices
 * in a scatter apply in row-major order of the indices, so the last one
 * written wins for scatter_none. Every operand is first copied to row-major
 * order; an index outside its axis is an error naming it, except for scatter_*
 * with skip_out_of_bounds, which skips it.
 */
#include "kernels_common.h"

#include <string.h>

/* A row-major copy of t (malloc'd, at least one byte). */
static char *dense_bytes(const tensor *t)
{
    int64_t n = shape_elements(&t->sh);
    size_t es = type_size(t->sh.type);
    tensor d = {shape_as_standard(&t->sh), malloc(n > 0 ? (size_t)n * es : 1)};
    if (d.data && n > 0)
        tensor_copy(&d, t);
    return d.data;
}

/* Writes row-major bytes into out (any layout). */
static void store_bytes(tensor *out, char *dense)
{
    tensor d = {shape_as_standard(&out->sh), dense};
    if (shape_elements(&out->sh) > 0)
        tensor_copy(out, &d);
}

/* index i on an axis of length len: negative counts from the back. */
static bool wrap_index(const op_call *call, int64_t i, int axis, int64_t len, int64_t *out,
                       graft_error *err)
{
    int64_t j = i < 0 ? i + len : i;
    if (j < 0 || j >= len)
        return error_set(err, "%s: index %lld is out of range for axis %d of length %lld",
                         call->op->name, (long long)i, axis, (long long)len);
    *out = j;
    return true;
}

/* Advances a row-major multi-index over lens; the last axis moves fastest. */
static void next_index(int64_t *idx, const int64_t *lens, int rank)
{
    for (int a = rank - 1; a >= 0; a--) {
        if (++idx[a] < lens[a])
            return;
        idx[a] = 0;
    }
}

/* ---- gather_elements ---- */

/* What a gather reads and writes: the data's bytes, the indices as int64,
 * the result; ok when all three are there (else out of memory is set). */
typedef struct gather_io {
    char *data;
    int64_t *indices;
    char *res;
    bool ok;
} gather_io;

static gather_io gather_open(const op_call *call, const tensor *inputs, int64_t count, size_t es,
                             graft_error *err)
{
    gather_io io;
    io.data = dense_bytes(&inputs[0]);
    io.indices = tensor_dense_i64(&inputs[1]);
    io.res = malloc(count > 0 ? (size_t)count * es : 1);
    io.ok = io.data && io.indices && io.res;
    if (!io.ok)
        kernel_out_of_memory(call, err);
    return io;
}

/* Stores the result in out when ok, frees the rest; returns ok. */
static bool gather_close(gather_io *io, tensor *out, bool ok)
{
    if (ok)
        store_bytes(out, io->res);
    free(io->data);
    free(io->indices);
    free(io->res);
    return ok;
}

bool kernel_gather_elements(const op_call *call, const tensor *inputs, tensor *out,
                            graft_error *err)
{
    const shape *ds = &inputs[0].sh, *is = &inputs[1].sh;
    int axis;
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), ds->rank, &axis, err))
        return false;
    size_t es = type_size(ds->type);
    int64_t n = shape_elements(is), strides[SHAPE_MAX_RANK], pos[SHAPE_MAX_RANK] = {0};
    kernel_dense_strides(ds, strides);
    gather_io io = gather_open(call, inputs, n, es, err);
    bool ok = io.ok;
    for (int64_t e = 0; ok && e < n; e++, next_index(pos, is->lens, is->rank)) {
        int64_t j = 0, off = 0;
        if (!(ok = wrap_index(call, io.indices[e], axis, ds->lens[axis], &j, err)))
            break;
        for (int a = 0; a < ds->rank; a++)
            off += (a == axis ? j : pos[a]) * strides[a];
        memcpy(io.res + e * (int64_t)es, io.data + off * (int64_t)es, es);
    }
    return gather_close(&io, out, ok);
}

/* ---- gathernd ---- */

bool kernel_gathernd(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const shape *ds = &inputs[0].sh, *is = &inputs[1].sh;
    int batch = (int)op_attr_int(call, "batch_dims"), q = is->rank;
    int64_t k = is->lens[q - 1];
    if (batch < 0 || k < 1 || batch + k > ds->rank)
        return error_set(err, "gathernd: indices do not fit the data");
    size_t es = type_size(ds->type);
    int64_t strides[SHAPE_MAX_RANK], inner = 1, per_batch = 1, positions = 1;
    kernel_dense_strides(ds, strides);
    for (int a = batch + (int)k; a < ds->rank; a++)
        inner *= ds->lens[a];
    for (int a = batch; a < q - 1; a++)
        per_batch *= is->lens[a];
    for (int a = 0; a < q - 1; a++)
        positions *= is->lens[a];
    int64_t batch_stride = batch > 0 ? strides[batch - 1] : 0;
    gather_io io = gather_open(call, inputs, positions * inner, es, err);
    bool ok = io.ok;
    for (int64_t p = 0; ok && p < positions; p++) {
        int64_t off = (p / per_batch) * batch_stride;
        for (int64_t j = 0; ok && j < k; j++) {
            int64_t at = 0;
            ok = wrap_index(call, io.indices[p * k + j], batch + (int)j, ds->lens[batch + j], &at,
                            err);
            off += at * strides[batch + j];
        }
        if (ok)
            memcpy(io.res + p * inner * (int64_t)es, io.data + off * (int64_t)es,
                   (size_t)inner * es);
    }
    return gather_close(&io, out, ok);
}

/* ---- scatter_* and scatternd_* ---- */

typedef enum combine { C_NONE, C_ADD, C_MUL, C_MIN, C_MAX } combine;

static combine combine_of(const char *name)
{
    const char *r = strrchr(name, '_');
    r = r ? r + 1 : "";
    return strcmp(r, "add") == 0   ? C_ADD
           : strcmp(r, "mul") == 0 ? C_MUL
           : strcmp(r, "min") == 0 ? C_MIN
           : strcmp(r, "max") == 0 ? C_MAX
                                   : C_NONE;
}

static double combine_f64(combine c, double v, double u)
{
    switch (c) {
    case C_ADD: return v + u;
    case C_MUL: return v * u;
    case C_MIN: return u < v || u != u ? u : v;
    case C_MAX: return u > v || u != u ? u : v;
    default: return u;
    }
}

static int64_t combine_i64(combine c, int64_t v, int64_t u)
{
    switch (c) {
    case C_ADD: return (int64_t)((uint64_t)v + (uint64_t)u);
    case C_MUL: return (int64_t)((uint64_t)v * (uint64_t)u);
    case C_MIN: return u < v ? u : v;
    case C_MAX: return u > v ? u : v;
    default: return u;
    }
}

/* The values a scatter works on: the data (becoming the result) and the
 * updates, as doubles or as int64s. */
typedef struct scatter_values {
    bool is_float;
    double *fv, *fu;
    int64_t *iv, *iu;
} scatter_values;

static bool values_init(scatter_values *s, const tensor *data, const tensor *updates)
{
    memset(s, 0, sizeof *s);
    s->is_float = type_is_float(data->sh.type);
    if (s->is_float) {
        s->fv = tensor_dense_f64(data);
        s->fu = tensor_dense_f64(updates);
        return s->fv && s->fu;
    }
    s->iv = tensor_dense_i64(data);
    s->iu = tensor_dense_i64(updates);
    return s->iv && s->iu;
}

static void values_apply(scatter_values *s, combine c, int64_t at, int64_t from)
{
    if (s->is_float)
        s->fv[at] = combine_f64(c, s->fv[at], s->fu[from]);
    else
        s->iv[at] = combine_i64(c, s->iv[at], s->iu[from]);
}

static void values_finish(scatter_values *s, tensor *out, bool store)
{
    if (store && s->is_float)
        tensor_store_f64(out, s->fv);
    else if (store)
        tensor_store_i64(out, s->iv);
    free(s->fv);
    free(s->fu);
    free(s->iv);
    free(s->iu);
}

bool kernel_scatter(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const shape *ds = &inputs[0].sh, *is = &inputs[1].sh;
    int axis;
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), ds->rank, &axis, err))
        return false;
    bool skip = op_attr_int(call, "skip_out_of_bounds") != 0;
    combine c = combine_of(call->op->name);
    int64_t n = shape_elements(is), strides[SHAPE_MAX_RANK], pos[SHAPE_MAX_RANK] = {0};
    kernel_dense_strides(ds, strides);
    scatter_values v;
    int64_t *indices = tensor_dense_i64(&inputs[1]);
    bool ok = values_init(&v, &inputs[0], &inputs[2]) && indices;
    if (!ok)
        kernel_out_of_memory(call, err);
    for (int64_t e = 0; ok && e < n; e++, next_index(pos, is->lens, is->rank)) {
        int64_t i = indices[e], len = ds->lens[axis], j = i < 0 ? i + len : i;
        if ((j < 0 || j >= len) && skip)
            continue;
        if (!(ok = wrap_index(call, i, axis, len, &j, err)))
            break;
        int64_t off = 0;
        for (int a = 0; a < ds->rank; a++)
            off += (a == axis ? j : pos[a]) * strides[a];
        values_apply(&v, c, off, e);
    }
    values_finish(&v, out, ok);
    free(indices);
    return ok;
}

bool kernel_scatternd(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const shape *ds = &inputs[0].sh, *is = &inputs[1].sh;
    int q = is->rank;
    int64_t k = is->lens[q - 1];
    if (k < 1 || k > ds->rank)
        return error_set(err, "%s: indices do not fit the data", call->op->name);
    combine c = combine_of(call->op->name);
    int64_t strides[SHAPE_MAX_RANK], inner = 1, positions = 1;
    kernel_dense_strides(ds, strides);
    for (int a = (int)k; a < ds->rank; a++)
        inner *= ds->lens[a];
    for (int a = 0; a < q - 1; a++)
        positions *= is->lens[a];
    scatter_values v;
    int64_t *indices = tensor_dense_i64(&inputs[1]);
    bool ok = values_init(&v, &inputs[0], &inputs[2]) && indices;
    if (!ok)
        kernel_out_of_memory(call, err);
    for (int64_t p = 0; ok && p < positions; p++) {
        int64_t off = 0;
        for (int64_t j = 0; ok && j < k; j++) {
            int64_t at = 0;
            ok = wrap_index(call, indices[p * k + j], (int)j, ds->lens[j], &at, err);
            off += at * strides[j];
        }
        for (int64_t e = 0; ok && e < inner; e++)
            values_apply(&v, c, off + e, p * inner + e);
    }
    values_finish(&v, out, ok);
    free(indices);
    return ok;
}
