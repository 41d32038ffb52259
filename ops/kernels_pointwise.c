/* kernels_pointwise.c: elementwise ops, convert, where and clip.
 *
 * Each pointwise op is one scalar function in double (for float inputs) and,
 * where the op has an exact integer meaning, one in int64 (for integer and
 * bool inputs); integer inputs of ops without an integer function (exp,
 * sin, ...) are computed in double and truncated on store. The result is
 * rounded to the output type when stored, which gives float semantics for a
 * single op. Integer arithmetic wraps (two's complement) instead of
 * overflowing, and integer division or remainder by zero gives 0: C leaves
 * both undefined, the reference executor must not.
 *
 * exp, log, pow, the trigonometric and hyperbolic functions and erf come
 * from detmath.c, not libm: glibc picks other variants of them on CPUs with
 * FMA, whose double results differ in the last bit (detmath.h), and the
 * reference executor's results must not depend on the CPU. sqrt, fmod,
 * nearbyint and fabs are exact and stay libm's.
 *
 * Fast path: when every operand and the output are float32, values are read
 * straight from standard operands (dense float copies otherwise) and written
 * straight into a standard output, without any double arrays. The scalar
 * functions are the same, so both paths give the same bits.
 */
#include "detmath.h"
#include "kernels_common.h"

#include <math.h>
#include <string.h>

/* ---- scalar functions: double ---- */

static double f_relu(double x, double a, double b) { (void)a, (void)b; return x > 0 ? x : 0; }
static double f_sigmoid(double x, double a, double b) { (void)a, (void)b; return 1 / (1 + det_exp(-x)); }
static double f_tanh(double x, double a, double b) { (void)a, (void)b; return det_tanh(x); }
static double f_exp(double x, double a, double b) { (void)a, (void)b; return det_exp(x); }
static double f_log(double x, double a, double b) { (void)a, (void)b; return det_log(x); }
static double f_log2(double x, double a, double b) { (void)a, (void)b; return det_log2(x); }
static double f_sqrt(double x, double a, double b) { (void)a, (void)b; return sqrt(x); }
static double f_rsqrt(double x, double a, double b) { (void)a, (void)b; return 1 / sqrt(x); }
static double f_erf(double x, double a, double b) { (void)a, (void)b; return det_erf(x); }
static double f_neg(double x, double a, double b) { (void)a, (void)b; return -x; }
static double f_abs(double x, double a, double b) { (void)a, (void)b; return fabs(x); }
static double f_sin(double x, double a, double b) { (void)a, (void)b; return det_sin(x); }
static double f_cos(double x, double a, double b) { (void)a, (void)b; return det_cos(x); }
static double f_tan(double x, double a, double b) { (void)a, (void)b; return det_tan(x); }
static double f_asin(double x, double a, double b) { (void)a, (void)b; return det_asin(x); }
static double f_acos(double x, double a, double b) { (void)a, (void)b; return det_acos(x); }
static double f_atan(double x, double a, double b) { (void)a, (void)b; return det_atan(x); }
static double f_sinh(double x, double a, double b) { (void)a, (void)b; return det_sinh(x); }
static double f_cosh(double x, double a, double b) { (void)a, (void)b; return det_cosh(x); }
static double f_asinh(double x, double a, double b) { (void)a, (void)b; return det_asinh(x); }
static double f_acosh(double x, double a, double b) { (void)a, (void)b; return det_acosh(x); }
static double f_atanh(double x, double a, double b) { (void)a, (void)b; return det_atanh(x); }
static double f_floor(double x, double a, double b) { (void)a, (void)b; return floor(x); }
static double f_ceil(double x, double a, double b) { (void)a, (void)b; return ceil(x); }
static double f_round(double x, double a, double b) { (void)a, (void)b; return nearbyint(x); }
static double f_nearbyint(double x, double a, double b) { (void)a, (void)b; return nearbyint(x); }
static double f_recip(double x, double a, double b) { (void)a, (void)b; return 1 / x; }
static double f_sign(double x, double a, double b) { (void)a, (void)b; return x > 0 ? 1 : x < 0 ? -1 : 0; }
static double f_not(double x, double a, double b) { (void)a, (void)b; return x == 0; }
static double f_isnan(double x, double a, double b) { (void)a, (void)b; return isnan(x) != 0; }
static double f_isinf(double x, double a, double b) { (void)a, (void)b; return isinf(x) != 0; }
static double f_softsign(double x, double a, double b) { (void)a, (void)b; return x / (1 + fabs(x)); }
static double f_gelu(double x, double a, double b) { (void)a, (void)b; return 0.5 * x * (1 + det_erf(x / sqrt(2.0))); }
static double f_mish(double x, double a, double b) { (void)a, (void)b; return x * det_tanh(det_log1p(det_exp(x))); }
static double f_leaky_relu(double x, double a, double b) { (void)b; return x > 0 ? x : a * x; }
static double f_elu(double x, double a, double b) { (void)b; return x > 0 ? x : a * (det_exp(x) - 1); }
static double f_hard_sigmoid(double x, double a, double b) { return fmax(0.0, fmin(1.0, a * x + b)); }

static double f_add(double x, double y) { return x + y; }
static double f_sub(double x, double y) { return x - y; }
static double f_mul(double x, double y) { return x * y; }
static double f_div(double x, double y) { return x / y; }
static double f_pow(double x, double y) { return det_pow(x, y); }
static double f_sqdiff(double x, double y) { return (x - y) * (x - y); }
static double f_max(double x, double y) { return fmax(x, y); }
static double f_min(double x, double y) { return fmin(x, y); }
static double f_mod(double x, double y) { return fmod(fmod(x, y) + y, y); }
static double f_fmod(double x, double y) { return fmod(x, y); }
static double f_atan2(double x, double y) { return det_atan2(x, y); }
static double f_equal(double x, double y) { return x == y; }
static double f_greater(double x, double y) { return x > y; }
static double f_less(double x, double y) { return x < y; }
static double f_and(double x, double y) { return x != 0 && y != 0; }
static double f_or(double x, double y) { return x != 0 || y != 0; }
static double f_xor(double x, double y) { return (x != 0) != (y != 0); }
static double f_prelu(double x, double y) { return x < 0 ? x * y : x; }

/* ---- scalar functions: int64, wrapping ---- */

static int64_t wrap(uint64_t v) { return (int64_t)v; }

static int64_t i_relu(int64_t x) { return x > 0 ? x : 0; }
static int64_t i_neg(int64_t x) { return wrap(0u - (uint64_t)x); }
static int64_t i_abs(int64_t x) { return x < 0 ? i_neg(x) : x; }
static int64_t i_same(int64_t x) { return x; }
static int64_t i_sign(int64_t x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }
static int64_t i_not(int64_t x) { return x == 0; }
static int64_t i_recip(int64_t x) { return x == 1 ? 1 : x == -1 ? -1 : 0; }
static int64_t i_false(int64_t x) { (void)x; return 0; }

static int64_t i_add(int64_t x, int64_t y) { return wrap((uint64_t)x + (uint64_t)y); }
static int64_t i_sub(int64_t x, int64_t y) { return wrap((uint64_t)x - (uint64_t)y); }
static int64_t i_mul(int64_t x, int64_t y) { return wrap((uint64_t)x * (uint64_t)y); }
static int64_t i_div(int64_t x, int64_t y)
{
    if (y == 0)
        return 0;
    if (y == -1)
        return i_neg(x);
    return x / y;
}
static int64_t i_fmod(int64_t x, int64_t y)
{
    if (y == 0 || y == -1)
        return 0;
    return x % y;
}
static int64_t i_mod(int64_t x, int64_t y)
{
    int64_t r = i_fmod(x, y);
    if (r != 0 && ((r < 0) != (y < 0)))
        r += y;
    return r;
}
static int64_t i_pow(int64_t x, int64_t y)
{
    if (y < 0)
        return x == 1 ? 1 : x == -1 ? ((y & 1) ? -1 : 1) : 0;
    uint64_t result = 1, base = (uint64_t)x;
    while (y) {
        if (y & 1)
            result *= base;
        base *= base;
        y >>= 1;
    }
    return wrap(result);
}
static int64_t i_sqdiff(int64_t x, int64_t y) { int64_t d = i_sub(x, y); return i_mul(d, d); }
static int64_t i_max(int64_t x, int64_t y) { return x < y ? y : x; }
static int64_t i_min(int64_t x, int64_t y) { return y < x ? y : x; }
static int64_t i_equal(int64_t x, int64_t y) { return x == y; }
static int64_t i_greater(int64_t x, int64_t y) { return x > y; }
static int64_t i_less(int64_t x, int64_t y) { return x < y; }
static int64_t i_and(int64_t x, int64_t y) { return x != 0 && y != 0; }
static int64_t i_or(int64_t x, int64_t y) { return x != 0 || y != 0; }
static int64_t i_xor(int64_t x, int64_t y) { return (x != 0) != (y != 0); }
static int64_t i_bitwise_and(int64_t x, int64_t y) { return x & y; }
/* Shifts of the operand's bits (as unsigned: logical); by 64 or more, or by
 * a negative amount, nothing is left. */
static int64_t i_shift_left(int64_t x, int64_t y)
{
    return y < 0 || y >= 64 ? 0 : (int64_t)((uint64_t)x << y);
}
static int64_t i_shift_right(int64_t x, int64_t y)
{
    return y < 0 || y >= 64 ? 0 : (int64_t)((uint64_t)x >> y);
}
static int64_t i_prelu(int64_t x, int64_t y) { return x < 0 ? i_mul(x, y) : x; }

typedef double (*unary_f64)(double x, double alpha, double beta);
typedef int64_t (*unary_i64)(int64_t x);
typedef double (*binary_f64)(double x, double y);
typedef int64_t (*binary_i64)(int64_t x, int64_t y);

typedef struct pointwise_fn {
    const char *name;
    unary_f64 unary;
    unary_i64 unary_int;   /* NULL: integer inputs computed in double */
    binary_f64 binary;
    binary_i64 binary_int;
    const char *alpha;     /* attributes passed to the unary function */
    const char *beta;
} pointwise_fn;

static const pointwise_fn pointwise_fns[] = {
    {"relu", f_relu, i_relu, NULL, NULL, NULL, NULL},
    {"sigmoid", f_sigmoid, NULL, NULL, NULL, NULL, NULL},
    {"tanh", f_tanh, NULL, NULL, NULL, NULL, NULL},
    {"exp", f_exp, NULL, NULL, NULL, NULL, NULL},
    {"log", f_log, NULL, NULL, NULL, NULL, NULL},
    {"log2", f_log2, NULL, NULL, NULL, NULL, NULL},
    {"sqrt", f_sqrt, NULL, NULL, NULL, NULL, NULL},
    {"rsqrt", f_rsqrt, NULL, NULL, NULL, NULL, NULL},
    {"erf", f_erf, NULL, NULL, NULL, NULL, NULL},
    {"neg", f_neg, i_neg, NULL, NULL, NULL, NULL},
    {"abs", f_abs, i_abs, NULL, NULL, NULL, NULL},
    {"sin", f_sin, NULL, NULL, NULL, NULL, NULL},
    {"cos", f_cos, NULL, NULL, NULL, NULL, NULL},
    {"tan", f_tan, NULL, NULL, NULL, NULL, NULL},
    {"asin", f_asin, NULL, NULL, NULL, NULL, NULL},
    {"acos", f_acos, NULL, NULL, NULL, NULL, NULL},
    {"atan", f_atan, NULL, NULL, NULL, NULL, NULL},
    {"sinh", f_sinh, NULL, NULL, NULL, NULL, NULL},
    {"cosh", f_cosh, NULL, NULL, NULL, NULL, NULL},
    {"asinh", f_asinh, NULL, NULL, NULL, NULL, NULL},
    {"acosh", f_acosh, NULL, NULL, NULL, NULL, NULL},
    {"atanh", f_atanh, NULL, NULL, NULL, NULL, NULL},
    {"floor", f_floor, i_same, NULL, NULL, NULL, NULL},
    {"ceil", f_ceil, i_same, NULL, NULL, NULL, NULL},
    {"round", f_round, i_same, NULL, NULL, NULL, NULL},
    {"nearbyint", f_nearbyint, i_same, NULL, NULL, NULL, NULL},
    {"recip", f_recip, i_recip, NULL, NULL, NULL, NULL},
    {"sign", f_sign, i_sign, NULL, NULL, NULL, NULL},
    {"not", f_not, i_not, NULL, NULL, NULL, NULL},
    {"isnan", f_isnan, i_false, NULL, NULL, NULL, NULL},
    {"isinf", f_isinf, i_false, NULL, NULL, NULL, NULL},
    {"softsign", f_softsign, NULL, NULL, NULL, NULL, NULL},
    {"gelu", f_gelu, NULL, NULL, NULL, NULL, NULL},
    {"mish", f_mish, NULL, NULL, NULL, NULL, NULL},
    {"leaky_relu", f_leaky_relu, NULL, NULL, NULL, "alpha", NULL},
    {"elu", f_elu, NULL, NULL, NULL, "alpha", NULL},
    {"hard_sigmoid", f_hard_sigmoid, NULL, NULL, NULL, "alpha", "beta"},
    {"add", NULL, NULL, f_add, i_add, NULL, NULL},
    {"sub", NULL, NULL, f_sub, i_sub, NULL, NULL},
    {"mul", NULL, NULL, f_mul, i_mul, NULL, NULL},
    {"div", NULL, NULL, f_div, i_div, NULL, NULL},
    {"pow", NULL, NULL, f_pow, i_pow, NULL, NULL},
    {"sqdiff", NULL, NULL, f_sqdiff, i_sqdiff, NULL, NULL},
    {"max", NULL, NULL, f_max, i_max, NULL, NULL},
    {"min", NULL, NULL, f_min, i_min, NULL, NULL},
    {"mod", NULL, NULL, f_mod, i_mod, NULL, NULL},
    {"fmod", NULL, NULL, f_fmod, i_fmod, NULL, NULL},
    {"atan2", NULL, NULL, f_atan2, NULL, NULL, NULL},
    {"equal", NULL, NULL, f_equal, i_equal, NULL, NULL},
    {"greater", NULL, NULL, f_greater, i_greater, NULL, NULL},
    {"less", NULL, NULL, f_less, i_less, NULL, NULL},
    {"logical_and", NULL, NULL, f_and, i_and, NULL, NULL},
    {"logical_or", NULL, NULL, f_or, i_or, NULL, NULL},
    {"logical_xor", NULL, NULL, f_xor, i_xor, NULL, NULL},
    {"bitwise_and", NULL, NULL, NULL, i_bitwise_and, NULL, NULL},
    {"shift_left", NULL, NULL, NULL, i_shift_left, NULL, NULL},
    {"shift_right", NULL, NULL, NULL, i_shift_right, NULL, NULL},
    {"prelu", NULL, NULL, f_prelu, i_prelu, NULL, NULL},
};

static const pointwise_fn *find_fn(const char *name)
{
    for (size_t i = 0; i < sizeof pointwise_fns / sizeof pointwise_fns[0]; i++)
        if (strcmp(pointwise_fns[i].name, name) == 0)
            return &pointwise_fns[i];
    return NULL;
}

bool kernel_pointwise_known(const char *name)
{
    return find_fn(name) != NULL;
}

/* ---- evaluation ---- */

static bool all_float32(const tensor *inputs, int n, const tensor *out)
{
    if (out->sh.type != GRAFT_FLOAT)
        return false;
    for (int k = 0; k < n; k++)
        if (inputs[k].sh.type != GRAFT_FLOAT)
            return false;
    return true;
}

static bool any_float(const tensor *inputs, int first, int n)
{
    for (int k = first; k < n; k++)
        if (type_is_float(inputs[k].sh.type))
            return true;
    return false;
}

/* Float32 in, float32 out: compute in double per element, round to float. */
static bool pointwise_f32(const op_call *call, const pointwise_fn *fn, double alpha, double beta,
                          const tensor *inputs, tensor *out, graft_error *err)
{
    int64_t n = shape_elements(&out->sh);
    float *owned[2] = {NULL, NULL};
    const float *x = kernel_f32_input(&inputs[0], &owned[0]);
    const float *y = call->ninputs > 1 ? kernel_f32_input(&inputs[1], &owned[1]) : NULL;
    bool direct = shape_standard_p(&out->sh);
    float *r = direct ? (float *)(void *)out->data
                      : tensor_alloc(n > 0 ? (size_t)n * sizeof *r : 1, false);
    bool ok = x && (call->ninputs < 2 || y) && r;
    if (ok) {
        if (fn->unary) {
            for (int64_t i = 0; i < n; i++)
                r[i] = (float)fn->unary(x[i], alpha, beta);
        } else {
            for (int64_t i = 0; i < n; i++)
                r[i] = (float)fn->binary(x[i], y[i]);
        }
        if (!direct)
            tensor_store_f32(out, r);
    }
    if (!direct)
        free(r);
    free(owned[0]);
    free(owned[1]);
    return ok ? true : kernel_out_of_memory(call, err);
}

static bool pointwise_f64(const op_call *call, const pointwise_fn *fn, double alpha, double beta,
                          const tensor *inputs, tensor *out, graft_error *err)
{
    int64_t n = shape_elements(&out->sh);
    double *x = tensor_dense_f64(&inputs[0]);
    double *y = call->ninputs > 1 ? tensor_dense_f64(&inputs[1]) : NULL;
    bool ok = x && (call->ninputs < 2 || y);
    if (ok) {
        if (fn->unary) {
            for (int64_t i = 0; i < n; i++)
                x[i] = fn->unary(x[i], alpha, beta);
        } else {
            for (int64_t i = 0; i < n; i++)
                x[i] = fn->binary(x[i], y[i]);
        }
        tensor_store_f64(out, x);
    }
    free(x);
    free(y);
    return ok ? true : kernel_out_of_memory(call, err);
}

static bool pointwise_i64(const op_call *call, const pointwise_fn *fn, const tensor *inputs,
                          tensor *out, graft_error *err)
{
    int64_t n = shape_elements(&out->sh);
    int64_t *x = tensor_dense_i64(&inputs[0]);
    int64_t *y = call->ninputs > 1 ? tensor_dense_i64(&inputs[1]) : NULL;
    bool ok = x && (call->ninputs < 2 || y);
    if (ok) {
        if (fn->unary_int) {
            for (int64_t i = 0; i < n; i++)
                x[i] = fn->unary_int(x[i]);
        } else {
            for (int64_t i = 0; i < n; i++)
                x[i] = fn->binary_int(x[i], y[i]);
        }
        tensor_store_i64(out, x);
    }
    free(x);
    free(y);
    return ok ? true : kernel_out_of_memory(call, err);
}

bool kernel_pointwise(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const pointwise_fn *fn = find_fn(call->op->name);
    if (!fn)
        return error_set(err, "%s: no pointwise function", call->op->name);
    int arity = fn->unary || fn->unary_int ? 1 : 2;
    if (call->ninputs != arity)
        return error_set(err, "%s: expects %d operands, got %d", call->op->name, arity,
                         call->ninputs);
    double alpha = fn->alpha ? op_attr_float(call, fn->alpha) : 0;
    double beta = fn->beta ? op_attr_float(call, fn->beta) : 0;
    bool has_int = arity == 1 ? fn->unary_int != NULL : fn->binary_int != NULL;
    bool has_float = arity == 1 ? fn->unary != NULL : fn->binary != NULL;
    bool float_domain = any_float(inputs, 0, call->ninputs) || !has_int;
    if (float_domain && !has_float)
        return error_set(err, "%s: not defined for %s operands", call->op->name,
                         type_name(inputs[0].sh.type));
    if (!float_domain)
        return pointwise_i64(call, fn, inputs, out, err);
    if (all_float32(inputs, call->ninputs, out))
        return pointwise_f32(call, fn, alpha, beta, inputs, out, err);
    return pointwise_f64(call, fn, alpha, beta, inputs, out, err);
}

/* ---- convert ---- */

bool kernel_convert(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    graft_type from = inputs[0].sh.type, to = out->sh.type;
    if (type_is_float(from) || (type_is_float(to) && from == GRAFT_UINT64)) {
        double *v = tensor_dense_f64(&inputs[0]);
        if (!v)
            return kernel_out_of_memory(call, err);
        tensor_store_f64(out, v);
        free(v);
        return true;
    }
    int64_t *v = tensor_dense_i64(&inputs[0]);
    if (!v)
        return kernel_out_of_memory(call, err);
    tensor_store_i64(out, v);
    free(v);
    return true;
}

/* ---- where(cond, x, y) ---- */

bool kernel_where(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    if (call->ninputs != 3)
        return error_set(err, "where: expects 3 operands, got %d", call->ninputs);
    int64_t n = shape_elements(&out->sh);
    double *cond = tensor_dense_f64(&inputs[0]); /* any nonzero value is true */
    if (!cond)
        return kernel_out_of_memory(call, err);
    /* a one-element condition applies to every element */
    int64_t cond_step = shape_elements(&inputs[0].sh) == 1 ? 0 : 1;
    bool ok;
    if (any_float(inputs, 1, 3) || type_is_float(out->sh.type)) {
        double *x = tensor_dense_f64(&inputs[1]);
        double *y = tensor_dense_f64(&inputs[2]);
        ok = x && y;
        if (ok) {
            for (int64_t i = 0; i < n; i++)
                x[i] = cond[i * cond_step] != 0 ? x[i] : y[i];
            tensor_store_f64(out, x);
        }
        free(x);
        free(y);
    } else {
        int64_t *x = tensor_dense_i64(&inputs[1]);
        int64_t *y = tensor_dense_i64(&inputs[2]);
        ok = x && y;
        if (ok) {
            for (int64_t i = 0; i < n; i++)
                x[i] = cond[i * cond_step] != 0 ? x[i] : y[i];
            tensor_store_i64(out, x);
        }
        free(x);
        free(y);
    }
    free(cond);
    return ok ? true : kernel_out_of_memory(call, err);
}

/* ---- clip(x, min, max), or clip[min_val, max_val](x) in older dumps ---- */

bool kernel_clip(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    int64_t n = shape_elements(&out->sh);
    bool bounds_given = call->ninputs >= 3;
    if (!bounds_given && !(kernel_has_attr(call, "min_val") && kernel_has_attr(call, "max_val")))
        return error_set(err, "clip: expects 3 operands (x, min, max), got %d", call->ninputs);
    if (!bounds_given || any_float(inputs, 0, 3) || type_is_float(out->sh.type)) {
        double *x = tensor_dense_f64(&inputs[0]);
        double *lo = bounds_given ? tensor_dense_f64(&inputs[1]) : NULL;
        double *hi = bounds_given ? tensor_dense_f64(&inputs[2]) : NULL;
        bool ok = x && (!bounds_given || (lo && hi));
        if (ok) {
            double lo_attr = bounds_given ? 0 : op_attr_float(call, "min_val");
            double hi_attr = bounds_given ? 0 : op_attr_float(call, "max_val");
            for (int64_t i = 0; i < n; i++) {
                double l = lo ? lo[i] : lo_attr, h = hi ? hi[i] : hi_attr;
                x[i] = fmin(fmax(x[i], l), h);
            }
            tensor_store_f64(out, x);
        }
        free(x);
        free(lo);
        free(hi);
        return ok ? true : kernel_out_of_memory(call, err);
    }
    int64_t *x = tensor_dense_i64(&inputs[0]);
    int64_t *lo = tensor_dense_i64(&inputs[1]);
    int64_t *hi = tensor_dense_i64(&inputs[2]);
    bool ok = x && lo && hi;
    if (ok) {
        for (int64_t i = 0; i < n; i++) {
            int64_t v = x[i] < lo[i] ? lo[i] : x[i];
            x[i] = v > hi[i] ? hi[i] : v;
        }
        tensor_store_i64(out, x);
    }
    free(x);
    free(lo);
    free(hi);
    return ok ? true : kernel_out_of_memory(call, err);
}
