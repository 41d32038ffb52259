/* ops_pointwise.c: the elementwise ops: their table entries, their point_op
 * templates and their (shared) shape rules.
 *
 * Elementwise ops never broadcast implicitly: every operand must have the
 * same lens (broadcasts are explicit broadcast/multibroadcast views), as in
 * MIGraphX. The result's strides follow MIGraphX's layout rules
 * (ops_unary_layout, ops_binary_layout, ops_common_layout), so an NHWC input
 * gives an NHWC result and a broadcast input gives a standard one. One
 * departure: two operands that broadcast alike along an axis longer than 1
 * and differ only in the strides of length-1 axes (which address nothing)
 * give the first operand's broadcast layout, as equal shapes do in
 * MIGraphX; MIGraphX compares those strides too (see ops_binary_layout).
 *
 * point_op is a C expression template the fuser and the codegen paste
 * together: ${0}, ${1}, ... are the operands and ${name} is the value of the
 * op's attribute `name` (leaky_relu, elu, hard_sigmoid). Math is written for
 * float (expf, fmaxf, ...); the codegen converts on load and store. convert's
 * template is the bare operand: the conversion is the store into the result's
 * type. Comparisons and logical ops give 1 or 0 in their operands' type, as
 * MIGraphX's do (importers add a convert to bool_type where ONNX wants one);
 * isnan and isinf give bool_type. gelu, mish and softsign are not MIGraphX
 * ops (MIGraphX decomposes them); they are here for the ONNX importer.
 */
#include "ops_util.h"

static bool unary_shape(const op_call *call, shape *out, graft_error *err)
{
    (void)err;
    *out = ops_unary_layout(&call->inputs[0]);
    return true;
}

/* isnan, isinf: a bool per element. */
static bool unary_test_shape(const op_call *call, shape *out, graft_error *err)
{
    (void)err;
    *out = ops_unary_layout(&call->inputs[0]);
    out->type = GRAFT_BOOL;
    return true;
}

static bool binary_shape(const op_call *call, shape *out, graft_error *err)
{
    if (!ops_check_same_lens(call, 0, 2, err) || !ops_check_same_type(call, 0, 2, err))
        return false;
    *out = ops_binary_layout(&call->inputs[0], &call->inputs[1]);
    return true;
}

static bool convert_shape(const op_call *call, shape *out, graft_error *err)
{
    int64_t t = op_attr_int(call, "target_type");
    if (t < 0 || t >= GRAFT_TYPE_COUNT || t == GRAFT_TUPLE)
        return error_set(err, "convert: target_type %lld is not an element type", (long long)t);
    *out = call->inputs[0];
    out->type = (graft_type)t;
    return true;
}

/* where(cond, x, y): x and y alike; cond has their lens or is one element. */
static bool where_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *cond = &call->inputs[0];
    if (!ops_check_same_lens(call, 1, 2, err) || !ops_check_same_type(call, 1, 2, err))
        return false;
    if (shape_elements(cond) != 1 && !ops_check_same_lens(call, 0, 2, err))
        return false;
    *out = ops_binary_layout(&call->inputs[1], &call->inputs[2]);
    /* x and y may both be broadcast along an axis the condition varies on:
     * the result is then written in full */
    bool varies = false;
    for (int a = 0; a < out->rank && shape_elements(cond) != 1; a++)
        varies = varies || (out->strides[a] == 0 && out->lens[a] > 1 && cond->strides[a] != 0);
    if (varies) {
        shape three[3] = {call->inputs[1], call->inputs[2], *cond};
        three[2].type = out->type;
        *out = ops_common_layout(three, 3);
    }
    return true;
}

/* clip(x, min, max): three operands alike. */
static bool clip_shape(const op_call *call, shape *out, graft_error *err)
{
    if (!ops_check_same_lens(call, 0, 3, err) || !ops_check_same_type(call, 0, 3, err))
        return false;
    *out = ops_common_layout(call->inputs, 3);
    return true;
}

static const attr_spec convert_attrs[] = {
    {"target_type", ATTR_TYPE, OPS_DFLT_TYPE(GRAFT_HALF), false, NULL},
};
static const attr_spec leaky_relu_attrs[] = {
    {"alpha", ATTR_FLOAT, OPS_DFLT_FLOAT(0.01), false, NULL},
};
static const attr_spec elu_attrs[] = {
    {"alpha", ATTR_FLOAT, OPS_DFLT_FLOAT(1.0), false, NULL},
};
static const attr_spec hard_sigmoid_attrs[] = {
    {"alpha", ATTR_FLOAT, OPS_DFLT_FLOAT(0.2), false, NULL},
    {"beta", ATTR_FLOAT, OPS_DFLT_FLOAT(0.5), false, NULL},
};

#define UNARY (OPC_POINTWISE | OPC_UNARY)
#define BINARY (OPC_POINTWISE | OPC_BINARY)

/* facts: OPC_NEVER_NEGATIVE / OPC_ZERO_PRESERVING, or 0. */
#define UNARY_OP(nm, facts, expr)                                                                 \
    {.name = nm, .classes = UNARY | (facts), .min_args = 1, .max_args = 1,                         \
     .compute_shape = unary_shape, .point_op = expr}
#define BINARY_OP(nm, comm, expr)                                                                 \
    {.name = nm, .classes = BINARY, .min_args = 2, .max_args = 2, .commutative = comm,            \
     .compute_shape = binary_shape, .point_op = expr}

op_def ops_pointwise_table[] = {
    BINARY_OP("add", true, "${0} + ${1}"),
    BINARY_OP("sub", false, "${0} - ${1}"),
    BINARY_OP("mul", true, "${0} * ${1}"),
    BINARY_OP("div", false, "${0} / ${1}"),
    BINARY_OP("pow", false, "powf(${0}, ${1})"),
    BINARY_OP("sqdiff", false, "(${0} - ${1}) * (${0} - ${1})"),
    BINARY_OP("max", true, "fmaxf(${0}, ${1})"),
    BINARY_OP("min", true, "fminf(${0}, ${1})"),
    BINARY_OP("prelu", false, "${0} < 0 ? ${0} * ${1} : ${0}"),
    BINARY_OP("equal", true, "${0} == ${1}"),
    BINARY_OP("greater", false, "${0} > ${1}"),
    BINARY_OP("less", false, "${0} < ${1}"),
    BINARY_OP("logical_and", true, "${0} && ${1}"),
    BINARY_OP("logical_or", true, "${0} || ${1}"),
    BINARY_OP("logical_xor", true, "!${0} != !${1}"),
    BINARY_OP("mod", false, "fmodf(fmodf(${0}, ${1}) + ${1}, ${1})"),
    BINARY_OP("fmod", false, "fmodf(${0}, ${1})"),
    BINARY_OP("bitwise_and", true, "${0} & ${1}"),
    BINARY_OP("shift_left", false, "${0} << ${1}"),
    BINARY_OP("shift_right", false, "${0} >> ${1}"),

    UNARY_OP("relu", OPC_NEVER_NEGATIVE | OPC_ZERO_PRESERVING, "${0} > 0 ? ${0} : 0"),
    UNARY_OP("sigmoid", OPC_NEVER_NEGATIVE, "1.0f / (1.0f + expf(-(${0})))"),
    UNARY_OP("tanh", OPC_ZERO_PRESERVING, "tanhf(${0})"),
    UNARY_OP("exp", OPC_NEVER_NEGATIVE, "expf(${0})"),
    UNARY_OP("log", 0, "logf(${0})"),
    UNARY_OP("sqrt", OPC_NEVER_NEGATIVE | OPC_ZERO_PRESERVING, "sqrtf(${0})"),
    UNARY_OP("rsqrt", OPC_NEVER_NEGATIVE, "1.0f / sqrtf(${0})"),
    UNARY_OP("erf", OPC_ZERO_PRESERVING, "erff(${0})"),
    UNARY_OP("neg", OPC_ZERO_PRESERVING, "-(${0})"),
    UNARY_OP("abs", OPC_NEVER_NEGATIVE | OPC_ZERO_PRESERVING, "fabsf(${0})"),
    UNARY_OP("sin", OPC_ZERO_PRESERVING, "sinf(${0})"),
    UNARY_OP("cos", 0, "cosf(${0})"),
    UNARY_OP("tan", OPC_ZERO_PRESERVING, "tanf(${0})"),
    UNARY_OP("floor", OPC_ZERO_PRESERVING, "floorf(${0})"),
    UNARY_OP("ceil", OPC_ZERO_PRESERVING, "ceilf(${0})"),
    UNARY_OP("round", OPC_ZERO_PRESERVING, "rintf(${0})"),
    UNARY_OP("recip", 0, "1.0f / (${0})"),
    UNARY_OP("sign", OPC_ZERO_PRESERVING, "(${0} > 0) - (${0} < 0)"),
    UNARY_OP("not", 0, "!(${0})"),
    UNARY_OP("asin", OPC_ZERO_PRESERVING, "asinf(${0})"),
    UNARY_OP("acos", 0, "acosf(${0})"),
    UNARY_OP("atan", OPC_ZERO_PRESERVING, "atanf(${0})"),
    UNARY_OP("sinh", OPC_ZERO_PRESERVING, "sinhf(${0})"),
    UNARY_OP("cosh", 0, "coshf(${0})"),
    UNARY_OP("asinh", OPC_ZERO_PRESERVING, "asinhf(${0})"),
    UNARY_OP("acosh", 0, "acoshf(${0})"),
    UNARY_OP("atanh", OPC_ZERO_PRESERVING, "atanhf(${0})"),
    UNARY_OP("nearbyint", OPC_ZERO_PRESERVING, "nearbyintf(${0})"),
    UNARY_OP("softsign", OPC_ZERO_PRESERVING, "${0} / (1.0f + fabsf(${0}))"),
    UNARY_OP("gelu", OPC_ZERO_PRESERVING, "0.5f * ${0} * (1.0f + erff(${0} * 0.70710678f))"),
    UNARY_OP("mish", OPC_ZERO_PRESERVING, "${0} * tanhf(log1pf(expf(${0})))"),
    {.name = "isnan", .classes = UNARY, .min_args = 1, .max_args = 1,
     .compute_shape = unary_test_shape, .point_op = "isnan(${0})"},
    {.name = "isinf", .classes = UNARY, .min_args = 1, .max_args = 1,
     .compute_shape = unary_test_shape, .point_op = "isinf(${0})"},
    {.name = "leaky_relu", .classes = UNARY | OPC_ZERO_PRESERVING, .min_args = 1,
     .max_args = 1,
     .attrs = leaky_relu_attrs, .nattrs = 1, .compute_shape = unary_shape,
     .point_op = "${0} > 0 ? ${0} : ${alpha} * ${0}"},
    {.name = "elu", .classes = UNARY, .min_args = 1, .max_args = 1, .attrs = elu_attrs,
     .nattrs = 1, .compute_shape = unary_shape,
     .point_op = "${0} > 0 ? ${0} : ${alpha} * (expf(${0}) - 1.0f)"},
    {.name = "hard_sigmoid", .classes = UNARY, .min_args = 1, .max_args = 1,
     .attrs = hard_sigmoid_attrs, .nattrs = 2, .compute_shape = unary_shape,
     .point_op = "fmaxf(0.0f, fminf(1.0f, ${alpha} * ${0} + ${beta}))"},
    {.name = "convert", .classes = UNARY | OPC_ZERO_PRESERVING, .min_args = 1, .max_args = 1,
     .attrs = convert_attrs, .nattrs = 1, .compute_shape = convert_shape, .point_op = "${0}"},
    {.name = "where", .classes = OPC_POINTWISE, .min_args = 3, .max_args = 3,
     .compute_shape = where_shape, .point_op = "${0} ? ${1} : ${2}"},
    {.name = "clip", .classes = OPC_POINTWISE, .min_args = 3, .max_args = 3,
     .compute_shape = clip_shape, .point_op = "fminf(fmaxf(${0}, ${1}), ${2})"},
};
const int ops_pointwise_count = (int)(sizeof ops_pointwise_table / sizeof ops_pointwise_table[0]);
