/* kernels_reduce.c: reductions and the ops built on a reduction: reduce_*,
 * softmax and logsoftmax, argmax/argmin, batch_norm_inference and lrn.
 *
 * A reduction splits the input's axes into kept and reduced ones. Both
 * sub-spaces are listed once as offsets into the dense row-major input, so
 * output element o reduces in[kept[o] + reduced[r]] over r; no per-element
 * index arithmetic. Float inputs accumulate in double and round once on
 * store; integer inputs accumulate exactly in int64 (wrapping on overflow),
 * and an integer reduce_mean truncates toward zero. Every accumulation runs
 * in one fixed order; softmax's exp and log and lrn's pow are detmath.c's,
 * so no result depends on the CPU.
 */
#include "detmath.h"
#include "kernels_common.h"

#include <math.h>
#include <string.h>

/* kept/reduced offset lists for a mask of reduced axes over s's lens. */
typedef struct split_axes {
    int64_t *kept, *reduced;
    int64_t nkept, nreduced;
} split_axes;

static bool split_init(split_axes *sp, const shape *s, const bool *reduced)
{
    int64_t dense[SHAPE_MAX_RANK], klens[SHAPE_MAX_RANK], rlens[SHAPE_MAX_RANK];
    kernel_dense_strides(s, dense);
    for (int a = 0; a < s->rank; a++) {
        klens[a] = reduced[a] ? 1 : s->lens[a];
        rlens[a] = reduced[a] ? s->lens[a] : 1;
    }
    sp->kept = kernel_offsets(s->rank, klens, dense, &sp->nkept);
    sp->reduced = kernel_offsets(s->rank, rlens, dense, &sp->nreduced);
    return sp->kept && sp->reduced;
}

static void split_free(split_axes *sp)
{
    free(sp->kept);
    free(sp->reduced);
}

/* ---- reduce_* ---- */

typedef enum reduce_kind { R_SUM, R_MEAN, R_MAX, R_MIN, R_PROD } reduce_kind;

static reduce_kind reduce_kind_of(const char *name)
{
    if (strcmp(name, "reduce_mean") == 0)
        return R_MEAN;
    if (strcmp(name, "reduce_max") == 0)
        return R_MAX;
    if (strcmp(name, "reduce_min") == 0)
        return R_MIN;
    if (strcmp(name, "reduce_prod") == 0)
        return R_PROD;
    return R_SUM;
}

static double reduce_f64(reduce_kind kind, const double *in, int64_t base, const split_axes *sp)
{
    double acc = kind == R_PROD ? 1 : kind == R_MAX ? -INFINITY : kind == R_MIN ? INFINITY : 0;
    for (int64_t r = 0; r < sp->nreduced; r++) {
        double v = in[base + sp->reduced[r]];
        switch (kind) {
        case R_SUM: case R_MEAN: acc += v; break;
        case R_PROD: acc *= v; break;
        case R_MAX: acc = (v > acc || isnan(v)) ? v : acc; break;
        case R_MIN: acc = (v < acc || isnan(v)) ? v : acc; break;
        }
        if (isnan(acc) && (kind == R_MAX || kind == R_MIN))
            break;
    }
    if (kind == R_MEAN && sp->nreduced > 0)
        acc /= (double)sp->nreduced;
    return acc;
}

static int64_t reduce_i64(reduce_kind kind, const int64_t *in, int64_t base, const split_axes *sp)
{
    uint64_t acc = kind == R_PROD ? 1 : 0;
    int64_t best = kind == R_MAX ? INT64_MIN : INT64_MAX;
    for (int64_t r = 0; r < sp->nreduced; r++) {
        int64_t v = in[base + sp->reduced[r]];
        switch (kind) {
        case R_SUM: case R_MEAN: acc += (uint64_t)v; break;
        case R_PROD: acc *= (uint64_t)v; break;
        case R_MAX: best = v > best ? v : best; break;
        case R_MIN: best = v < best ? v : best; break;
        }
    }
    if (kind == R_MAX || kind == R_MIN)
        return best;
    int64_t total = (int64_t)acc;
    if (kind == R_MEAN && sp->nreduced > 0)
        total /= sp->nreduced;
    return total;
}

bool kernel_reduce(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const shape *s = &inputs[0].sh;
    bool reduced[SHAPE_MAX_RANK];
    if (!ops_reduce_axes(call, s->rank, reduced, err))
        return false;
    reduce_kind kind = reduce_kind_of(call->op->name);
    split_axes sp;
    bool ok = split_init(&sp, s, reduced);
    if (ok && type_is_float(s->type)) {
        double *in = tensor_dense_f64(&inputs[0]);
        double *res = malloc((size_t)(sp.nkept > 0 ? sp.nkept : 1) * sizeof *res);
        ok = in && res;
        if (ok) {
            for (int64_t o = 0; o < sp.nkept; o++)
                res[o] = reduce_f64(kind, in, sp.kept[o], &sp);
            tensor_store_f64(out, res);
        }
        free(in);
        free(res);
    } else if (ok) {
        int64_t *in = tensor_dense_i64(&inputs[0]);
        int64_t *res = malloc((size_t)(sp.nkept > 0 ? sp.nkept : 1) * sizeof *res);
        ok = in && res;
        if (ok) {
            for (int64_t o = 0; o < sp.nkept; o++)
                res[o] = reduce_i64(kind, in, sp.kept[o], &sp);
            tensor_store_i64(out, res);
        }
        free(in);
        free(res);
    }
    split_free(&sp);
    return ok ? true : kernel_out_of_memory(call, err);
}

/* A single axis attribute, negative counting from the back. */
static bool one_axis(const op_call *call, int rank, bool *reduced, int *axis, graft_error *err)
{
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), rank, axis, err))
        return false;
    for (int a = 0; a < rank; a++)
        reduced[a] = a == *axis;
    return true;
}

/* ---- softmax / logsoftmax ---- */

bool kernel_softmax(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const shape *s = &inputs[0].sh;
    bool reduced[SHAPE_MAX_RANK];
    int axis;
    if (!one_axis(call, s->rank, reduced, &axis, err))
        return false;
    bool log_form = strcmp(call->op->name, "logsoftmax") == 0;
    split_axes sp;
    bool ok = split_init(&sp, s, reduced);
    double *x = ok ? tensor_dense_f64(&inputs[0]) : NULL;
    ok = ok && x;
    if (ok) {
        for (int64_t o = 0; o < sp.nkept; o++) {
            int64_t base = sp.kept[o];
            double max = -INFINITY, sum = 0;
            for (int64_t r = 0; r < sp.nreduced; r++)
                max = fmax(max, x[base + sp.reduced[r]]);
            for (int64_t r = 0; r < sp.nreduced; r++)
                sum += det_exp(x[base + sp.reduced[r]] - max);
            for (int64_t r = 0; r < sp.nreduced; r++) {
                double *v = &x[base + sp.reduced[r]];
                *v = log_form ? *v - max - det_log(sum) : det_exp(*v - max) / sum;
            }
        }
        tensor_store_f64(out, x);
    }
    free(x);
    split_free(&sp);
    return ok ? true : kernel_out_of_memory(call, err);
}

/* ---- argmax / argmin ---- */

bool kernel_arg_reduce(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const shape *s = &inputs[0].sh;
    bool reduced[SHAPE_MAX_RANK];
    int axis;
    if (!one_axis(call, s->rank, reduced, &axis, err))
        return false;
    bool want_max = strcmp(call->op->name, "argmax") == 0;
    bool last = kernel_has_attr(call, "select_last_index") &&
                op_attr_int(call, "select_last_index") != 0;
    split_axes sp;
    bool ok = split_init(&sp, s, reduced);
    double *x = ok ? tensor_dense_f64(&inputs[0]) : NULL;
    int64_t *res = ok ? malloc((size_t)(sp.nkept > 0 ? sp.nkept : 1) * sizeof *res) : NULL;
    ok = ok && x && res;
    if (ok) {
        for (int64_t o = 0; o < sp.nkept; o++) {
            int64_t best = 0;
            double best_value = x[sp.kept[o] + sp.reduced[0]];
            for (int64_t r = 1; r < sp.nreduced; r++) {
                double v = x[sp.kept[o] + sp.reduced[r]];
                bool better = want_max ? v > best_value : v < best_value;
                if (better || (last && v == best_value)) {
                    best = r;
                    best_value = v;
                }
            }
            res[o] = best;
        }
        tensor_store_i64(out, res);
    }
    free(x);
    free(res);
    split_free(&sp);
    return ok ? true : kernel_out_of_memory(call, err);
}

/* ---- batch_norm_inference(x, scale, bias, mean, variance) ---- */

bool kernel_batch_norm(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    if (call->ninputs != 5)
        return error_set(err, "batch_norm_inference: expects 5 operands, got %d", call->ninputs);
    const shape *s = &inputs[0].sh;
    if (s->rank < 2)
        return error_set(err, "batch_norm_inference: input rank must be at least 2");
    double epsilon = op_attr_float(call, "epsilon");
    /* spatial: one parameter per channel (axis 1); per_activation: one per
     * element of an input sample (lens[1:]). */
    const char *mode = kernel_attr_enum_name(call, "bn_mode");
    if (!mode || (strcmp(mode, "spatial") != 0 && strcmp(mode, "per_activation") != 0))
        return error_set(err, "batch_norm_inference: unknown bn_mode");
    bool spatial = strcmp(mode, "spatial") == 0;
    int64_t channels = s->lens[1], inner = 1, per_sample = 1;
    for (int a = 2; a < s->rank; a++)
        inner *= s->lens[a];
    per_sample = channels * inner;
    int64_t want = spatial ? channels : per_sample;
    for (int k = 1; k < 5; k++)
        if (shape_elements(&inputs[k].sh) != want)
            return error_set(err, "batch_norm_inference: operand %d has %lld elements, expected %lld",
                             k, (long long)shape_elements(&inputs[k].sh), (long long)want);
    double *p[5] = {0};
    bool ok = true;
    for (int k = 0; k < 5; k++)
        ok = (p[k] = tensor_dense_f64(&inputs[k])) != NULL && ok;
    if (ok) {
        int64_t n = shape_elements(s);
        for (int64_t i = 0; i < n; i++) {
            int64_t j = spatial ? (i / inner) % channels : i % per_sample;
            p[0][i] = p[1][j] * (p[0][i] - p[3][j]) / sqrt(p[4][j] + epsilon) + p[2][j];
        }
        tensor_store_f64(out, p[0]);
    }
    for (int k = 0; k < 5; k++)
        free(p[k]);
    return ok ? true : kernel_out_of_memory(call, err);
}

/* ---- lrn: across channels (axis 1), ONNX LRN ---- */

bool kernel_lrn(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const shape *s = &inputs[0].sh;
    if (s->rank < 2)
        return error_set(err, "lrn: input rank must be at least 2");
    double alpha = op_attr_float(call, "alpha"), beta = op_attr_float(call, "beta");
    double bias = op_attr_float(call, "bias");
    int64_t size = op_attr_int(call, "size");
    if (size < 1)
        return error_set(err, "lrn: size must be at least 1, got %lld", (long long)size);
    int64_t channels = s->lens[1], inner = 1, n = shape_elements(s);
    for (int a = 2; a < s->rank; a++)
        inner *= s->lens[a];
    int64_t before = (size - 1) / 2, after = size - 1 - before;
    double *x = tensor_dense_f64(&inputs[0]);
    double *y = malloc((size_t)(n > 0 ? n : 1) * sizeof *y);
    bool ok = x && y;
    if (ok) {
        for (int64_t i = 0; i < n; i++) {
            int64_t c = (i / inner) % channels;
            int64_t first = c - before < 0 ? 0 : c - before;
            int64_t end = c + after + 1 > channels ? channels : c + after + 1;
            double square_sum = 0;
            for (int64_t k = first; k < end; k++) {
                double v = x[i + (k - c) * inner];
                square_sum += v * v;
            }
            y[i] = x[i] / det_pow(bias + alpha / (double)size * square_sum, beta);
        }
        tensor_store_f64(out, y);
    }
    free(x);
    free(y);
    return ok ? true : kernel_out_of_memory(call, err);
}
