/* test_shapes.c: the op table and every shape rule.
 *
 * Each test builds op_call structs by hand: the attribute array starts from
 * the op's declared defaults (in declaration order) and a test overrides
 * entries by name. Results are compared as MIGraphX prints shapes
 * ("float_type, {2, 3}, {3, 1}"), so every case pins lens, strides and type;
 * failures are compared by the message the rule writes.
 */
#include "check.h"
#include "graph_test_helpers.h"
#include "kernel_counts.h"
#include "op.h"
#include "ops_util.h"

#include <stdio.h>
#include <string.h>

/* ---- helpers ---- */

#define LENS(...) (const int64_t[]){__VA_ARGS__}, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define INTS(...)                                                                                 \
    ((attr_value){.kind = ATTR_INTS,                                                              \
                  .n = (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),                 \
                  .u.ints = (const int64_t[]){__VA_ARGS__}})
#define NO_INTS ((attr_value){.kind = ATTR_INTS, .n = 0, .u.ints = NULL})
#define INT(v) ((attr_value){.kind = ATTR_INT, .u.i = (v)})
#define BOOL(v) ((attr_value){.kind = ATTR_BOOL, .u.i = (v)})
#define FLOAT(v) ((attr_value){.kind = ATTR_FLOAT, .u.f = (v)})
#define TYPE(v) ((attr_value){.kind = ATTR_TYPE, .u.i = (v)})
#define INPUTS(...) (int)(sizeof((shape[]){__VA_ARGS__}) / sizeof(shape)), (shape[]){__VA_ARGS__}
#define ATTRS(...) (int)(sizeof((attr[]){__VA_ARGS__}) / sizeof(attr)), (attr[]){__VA_ARGS__}
#define NO_ATTRS 0, NULL

static shape std_of(graft_type t, const int64_t *lens, int n) { return shape_standard(t, n, lens); }
#define STD(t, ...) std_of(t, LENS(__VA_ARGS__))
#define F(...) STD(GRAFT_FLOAT, __VA_ARGS__)

static shape strided_of(graft_type t, const int64_t *lens, int n, const int64_t *strides, int m)
{
    (void)m;
    return shape_with_strides(t, n, lens, strides);
}
/* STRIDED(type, LENS(...), LENS(...)) */
#define STRIDED(t, lens, strides) strided_of(t, lens, strides)

/* Runs op on the inputs with the op's default attributes, overridden by name;
 * returns the printed shape, or "error: <message>". */
static const char *run_op(const char *opname, int nin, const shape *ins, int nover,
                          const attr *over)
{
    static char results[8][1200];
    static int next;
    char *buf = results[next++ % 8];
    const op_def *op = op_find(opname);
    if (!op) {
        snprintf(buf, 1200, "no op %s", opname);
        return buf;
    }
    attr attrs[16];
    for (int i = 0; i < op->nattrs; i++) {
        attrs[i].key = op->attrs[i].name;
        attrs[i].v = op->attrs[i].dflt;
    }
    for (int j = 0; j < nover; j++) {
        int i = op_attr_index(op, over[j].key);
        if (i < 0) {
            snprintf(buf, 1200, "%s has no attribute %s", opname, over[j].key);
            return buf;
        }
        attrs[i].v = over[j].v;
    }
    op_call call = {.op = op, .attrs = attrs, .inputs = ins, .ninputs = nin};
    graft_error err;
    memset(&err, 0, sizeof err);
    shape out;
    if (!op_compute_shape(&call, &out, &err)) {
        snprintf(buf, 1200, "error: %s", err.message);
        return buf;
    }
    shape_print(&out, buf, 1200);
    return buf;
}

static const char *attr_names(const op_def *op)
{
    static char buf[512];
    buf[0] = 0;
    for (int i = 0; i < op->nattrs; i++) {
        if (i)
            strcat(buf, ",");
        strcat(buf, op->attrs[i].name);
    }
    return buf;
}

/* ---- the table ---- */

static void test_find(void)
{
    const op_def *add = op_find("add");
    CHECK(add != NULL);
    CHECK_STR(add->name, "add");
    CHECK(op_find_n("addxyz", 3) == add);
    CHECK(op_find_n("ad", 2) == NULL);
    CHECK(op_find("no_such_op") == NULL);
    CHECK(op_find(NULL) == NULL);
    CHECK(op_find("@param") != NULL);
    CHECK(op_find("@literal") != NULL);
    CHECK(op_find("@return") != NULL);
}

static void test_table_is_consistent(void)
{
    int n = 0;
    const op_def *const *all = op_all(&n);
    CHECK(n >= 70);
    for (int i = 0; i < n; i++) {
        const op_def *d = all[i];
        CHECK(d->name != NULL);
        CHECK(op_find(d->name) == d);
        if (i)
            CHECK(strcmp(all[i - 1]->name, d->name) < 0);
        CHECK(d->compute_shape != NULL);
        CHECK(d->nattrs == 0 || d->attrs != NULL);
        CHECK(d->max_args < 0 || d->max_args >= d->min_args);
        if (d->classes & OPC_POINTWISE)
            CHECK(d->point_op != NULL);
        else
            CHECK(d->point_op == NULL);
        if (d->classes & OPC_UNARY)
            CHECK(d->min_args == 1 && d->max_args == 1);
        if (d->classes & OPC_BINARY)
            CHECK(d->min_args == 2 && d->max_args == 2);
        if (d->commutative)
            CHECK(d->classes & OPC_BINARY);
        for (int a = 0; a < d->nattrs; a++) {
            const attr_spec *s = &d->attrs[a];
            CHECK(s->dflt.kind == s->kind);
            CHECK(s->enum_names == NULL || s->kind == ATTR_INT);
            CHECK(op_attr_index(d, s->name) == a);
        }
    }
}

static void test_classes(void)
{
    CHECK_INT(op_find("add")->classes, OPC_POINTWISE | OPC_BINARY);
    CHECK_INT(op_find("relu")->classes,
              OPC_POINTWISE | OPC_UNARY | OPC_NEVER_NEGATIVE | OPC_ZERO_PRESERVING);
    CHECK_INT(op_find("reduce_sum")->classes, OPC_REDUCE);
    CHECK_INT(op_find("transpose")->classes, OPC_VIEW);
    CHECK_INT(op_find("reshape")->classes, OPC_SHAPE);
    CHECK_INT(op_find("reshape_lazy")->classes, OPC_VIEW | OPC_SHAPE);
    CHECK_INT(op_find("squeeze")->classes, OPC_VIEW | OPC_SHAPE);
    CHECK_INT(op_find("broadcast")->classes, OPC_VIEW);
    CHECK_INT(op_find("multibroadcast")->classes, OPC_VIEW);
    CHECK_INT(op_find("slice")->classes, OPC_VIEW);
    CHECK_INT(op_find("convolution")->classes, OPC_COMPUTE);
    CHECK_INT(op_find("pad")->classes, OPC_MOVE | OPC_FILL);
    CHECK_INT(op_find("concat")->classes, OPC_MOVE | OPC_COPY);
    CHECK_INT(op_find("gather")->classes, OPC_MOVE);
    CHECK_INT(op_find("contiguous")->classes, OPC_MOVE | OPC_COPY);
    CHECK_INT(op_find("layout")->classes, OPC_MOVE | OPC_COPY);
    CHECK_INT(op_find("abs")->classes & OPC_NEVER_NEGATIVE, OPC_NEVER_NEGATIVE);
    CHECK_INT(op_find("neg")->classes & OPC_NEVER_NEGATIVE, 0);
    CHECK_INT(op_find("convert")->classes & OPC_ZERO_PRESERVING, OPC_ZERO_PRESERVING);
    CHECK_INT(op_find("exp")->classes & OPC_ZERO_PRESERVING, 0);
    CHECK_INT(op_find("@param")->classes, OPC_BUILTIN);
    CHECK_INT(op_find("@return")->classes, OPC_BUILTIN);
    CHECK(op_find("add")->commutative);
    CHECK(op_find("mul")->commutative);
    CHECK(op_find("max")->commutative);
    CHECK(op_find("min")->commutative);
    CHECK(!op_find("sub")->commutative);
    CHECK(!op_find("div")->commutative);
    CHECK_STR(op_find("add")->point_op, "${0} + ${1}");
    CHECK_STR(op_find("where")->point_op, "${0} ? ${1} : ${2}");
    CHECK_STR(op_find("exp")->point_op, "expf(${0})");
}

static void test_attribute_order_and_defaults(void)
{
    CHECK_STR(attr_names(op_find("convolution")), "padding,stride,dilation,group,padding_mode");
    CHECK_STR(attr_names(op_find("quant_convolution")), "padding,stride,dilation,group,padding_mode");
    CHECK_STR(attr_names(op_find("pooling")),
              "mode,padding,padding_mode,stride,lengths,dilations,ceil_mode,count_include_pad,"
              "lp_order,dyn_global");
    CHECK_STR(attr_names(op_find("pad")), "mode,pads,value");
    CHECK_STR(attr_names(op_find("broadcast")), "axis,out_lens,out_dyn_dims");
    CHECK_STR(attr_names(op_find("multibroadcast")), "out_lens,out_dyn_dims");
    CHECK_STR(attr_names(op_find("slice")), "axes,starts,ends");
    CHECK_STR(attr_names(op_find("unsqueeze")), "axes,steps");
    CHECK_STR(attr_names(op_find("batch_norm_inference")), "epsilon,momentum,bn_mode");
    CHECK_STR(attr_names(op_find("lrn")), "alpha,beta,bias,size");
    CHECK_STR(attr_names(op_find("argmax")), "axis,select_last_index");
    /* output_permutation is graft's lazy-shapes extension (ops_pending.c) */
    CHECK_STR(attr_names(op_find("dot")), "output_permutation");
    const op_def *conv = op_find("convolution");
    CHECK_INT(conv->attrs[0].dflt.n, 2);
    CHECK_INT(conv->attrs[0].dflt.u.ints[0], 0);
    CHECK_INT(conv->attrs[1].dflt.u.ints[1], 1);
    CHECK_INT(conv->attrs[3].dflt.u.i, 1);
    const op_def *pool = op_find("pooling");
    CHECK_INT(pool->attrs[8].dflt.u.i, 2);
    CHECK_INT(op_find("softmax")->attrs[0].dflt.u.i, 1);
    CHECK_INT(op_find("flatten")->attrs[0].dflt.u.i, 1);
    CHECK_INT(op_find("convert")->attrs[0].dflt.u.i, GRAFT_HALF);
    CHECK_NEAR(op_find("leaky_relu")->attrs[0].dflt.u.f, 0.01, 1e-12);
    CHECK_NEAR(op_find("lrn")->attrs[1].dflt.u.f, 0.75, 1e-12);
    CHECK(op_find("transpose")->attrs[0].required);
    CHECK(op_find("pad")->attrs[1].required);
    CHECK(!op_find("pad")->attrs[0].required);
}

static void test_enum_values(void)
{
    const op_def *pool = op_find("pooling");
    CHECK_INT(op_enum_value(&pool->attrs[0], "average", 7), 0);
    CHECK_INT(op_enum_value(&pool->attrs[0], "max", 3), 1);
    CHECK_INT(op_enum_value(&pool->attrs[0], "lpnorm", 6), 2);
    CHECK_INT(op_enum_value(&pool->attrs[0], "maxx", 4), -1);
    CHECK_INT(op_enum_value(&pool->attrs[0], "max,", 3), 1);
    const op_def *pad = op_find("pad");
    CHECK_INT(op_enum_value(&pad->attrs[0], "constant", 8), 0);
    CHECK_INT(op_enum_value(&pad->attrs[0], "reflect", 7), 1);
    CHECK_INT(op_enum_value(&pad->attrs[0], "edge", 4), 2);
    CHECK_INT(op_enum_value(&pad->attrs[1], "edge", 4), -1);
    CHECK_INT(op_enum_value(&op_find("convolution")->attrs[4], "same", 4), 1);
}

static void test_attr_access(void)
{
    const op_def *slice = op_find("slice");
    attr attrs[3] = {{"axes", INTS(1, 2)}, {"starts", INTS(0, -1)}, {"ends", INTS(5, 7)}};
    shape in = F(4, 8, 8);
    op_call call = {.op = slice, .attrs = attrs, .inputs = &in, .ninputs = 1};
    int n = 0;
    const int64_t *v = op_attr_ints(&call, "starts", &n);
    CHECK_INT(n, 2);
    CHECK_INT(v[1], -1);
    CHECK(op_attr(&call, "ends") == &attrs[2].v);
    CHECK(op_attr(&call, "nope") == NULL);
    CHECK_INT(op_attr_index(slice, "ends"), 2);
    CHECK_INT(op_attr_index(slice, "nope"), -1);
    const op_def *lrn = op_find("lrn");
    attr lattrs[4] = {{"alpha", FLOAT(0.5)}, {"beta", FLOAT(0.25)}, {"bias", FLOAT(2)},
                      {"size", INT(3)}};
    op_call lcall = {.op = lrn, .attrs = lattrs, .inputs = &in, .ninputs = 1};
    CHECK_NEAR(op_attr_float(&lcall, "beta"), 0.25, 0);
    CHECK_INT(op_attr_int(&lcall, "size"), 3);
    CHECK_NEAR(op_attr_float(&lcall, "size"), 3.0, 0);
}

static void test_opaque(void)
{
    const op_def *op = op_opaque();
    CHECK_STR(op->name, "opaque");
    CHECK_INT(op->classes, OPC_OPAQUE);
    CHECK_INT(op->nattrs, 0);
    CHECK_INT(op->max_args, -1);
    shape ins[3] = {F(2), F(3), F(4)};
    op_call call = {.op = op, .inputs = ins, .ninputs = 3};
    graft_error err;
    shape out;
    CHECK(!op_compute_shape(&call, &out, &err));
    CHECK(strcmp(err.message, "unknown op: shape must be given") == 0);
    CHECK(op_find("opaque") == NULL);
}

static void test_arity(void)
{
    CHECK_STR(run_op("relu", INPUTS(F(2, 3), F(2, 3)), NO_ATTRS),
              "error: relu: expects 1 operand, got 2");
    CHECK_STR(run_op("add", INPUTS(F(2, 3)), NO_ATTRS), "error: add: expects 2 operands, got 1");
    CHECK_STR(run_op("where", INPUTS(F(2, 3)), NO_ATTRS), "error: where: expects 3 operands, got 1");
    CHECK_STR(run_op("broadcast", INPUTS(F(3), F(2, 3), F(2, 3)), ATTRS({"out_lens", INTS(2, 3)})),
              "error: broadcast: expects 1 to 2 operands, got 3");
    CHECK_STR(run_op("concat", 0, NULL, NO_ATTRS),
              "error: concat: expects at least 1 operand, got 0");
    CHECK_STR(run_op("convolution", INPUTS(F(1, 3, 8, 8)), NO_ATTRS),
              "error: convolution: expects 2 operands, got 1");
}

static void test_tuple_operands_rejected(void)
{
    shape parts[2] = {F(2, 3), F(4)};
    shape tup;
    memset(&tup, 0, sizeof tup);
    tup.type = GRAFT_TUPLE;
    tup.ntuple = 2;
    tup.tuple = parts;
    CHECK_STR(run_op("add", INPUTS(tup, F(2, 3)), NO_ATTRS),
              "error: add: operand 0 is a tuple; read it with get_tuple_elem first");
    CHECK_STR(run_op("get_tuple_elem", INPUTS(tup), ATTRS({"index", INT(1)})),
              "float_type, {4}, {1}");
    CHECK_STR(run_op("get_tuple_elem", INPUTS(tup), NO_ATTRS), "float_type, {2, 3}, {3, 1}");
    CHECK_STR(run_op("get_tuple_elem", INPUTS(tup), ATTRS({"index", INT(2)})),
              "error: get_tuple_elem: index 2 is out of range for a tuple of 2");
    CHECK_STR(run_op("get_tuple_elem", INPUTS(F(2)), NO_ATTRS),
              "error: get_tuple_elem: operand is not a tuple (float_type)");
}

static void test_builtins(void)
{
    CHECK_STR(run_op("@return", INPUTS(F(2, 3), F(4)), NO_ATTRS), "[]");
    CHECK_STR(run_op("@return", 0, NULL, NO_ATTRS), "[]");
    CHECK_CONTAINS(run_op("@param", 0, NULL, NO_ATTRS), "error: @param: the shape is given");
    CHECK_CONTAINS(run_op("@literal", 0, NULL, NO_ATTRS), "error: @literal: the shape is given");
    CHECK_STR(run_op("identity", INPUTS(STRIDED(GRAFT_HALF, LENS(2, 3), LENS(0, 1))), NO_ATTRS),
              "half_type, {2, 3}, {0, 1}");
}

/* ---- pointwise ---- */

static void test_binary(void)
{
    CHECK_STR(run_op("add", INPUTS(F(2, 3), F(2, 3)), NO_ATTRS), "float_type, {2, 3}, {3, 1}");
    CHECK_STR(run_op("add", INPUTS(F(2, 3), F(2, 4)), NO_ATTRS),
              "error: add: operand shapes differ: {2, 3} vs {2, 4}");
    CHECK_STR(run_op("mul", INPUTS(F(2, 3), F(2, 3, 1)), NO_ATTRS),
              "error: mul: operand shapes differ: {2, 3} vs {2, 3, 1}");
    CHECK_STR(run_op("sub", INPUTS(F(2, 3), STD(GRAFT_HALF, 2, 3)), NO_ATTRS),
              "error: sub: operand types differ: float_type vs half_type");
    shape t = STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(1, 3)); /* transposed, packed */
    shape bc = STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(0, 1)); /* broadcast */
    shape sl = STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(10, 1)); /* sliced: not packed */
    shape sc = STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(0, 0)); /* scalar */
    /* equal packed shapes keep their layout */
    CHECK_STR(run_op("add", INPUTS(t, t), NO_ATTRS), "float_type, {3, 2}, {1, 3}");
    /* a broadcast operand follows the packed one */
    CHECK_STR(run_op("add", INPUTS(bc, t), NO_ATTRS), "float_type, {3, 2}, {1, 3}");
    CHECK_STR(run_op("div", INPUTS(t, bc), NO_ATTRS), "float_type, {3, 2}, {1, 3}");
    CHECK_STR(run_op("max", INPUTS(sc, t), NO_ATTRS), "float_type, {3, 2}, {1, 3}");
    /* broadcast with a non-packed operand: the non-broadcast one, packed */
    CHECK_STR(run_op("add", INPUTS(bc, sl), NO_ATTRS), "float_type, {3, 2}, {2, 1}");
    /* two different packed layouts: the common permutation (tie: row-major) */
    CHECK_STR(run_op("add", INPUTS(t, F(3, 2)), NO_ATTRS), "float_type, {3, 2}, {2, 1}");
    /* two broadcasts alike keep the broadcast (MIGraphX's rule) */
    CHECK_STR(run_op("add", INPUTS(bc, bc), NO_ATTRS), "float_type, {3, 2}, {0, 1}");
    /* both broadcast but differently: standard */
    shape bc2 = STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(1, 0));
    CHECK_STR(run_op("pow", INPUTS(bc, bc2), NO_ATTRS), "float_type, {3, 2}, {2, 1}");
    CHECK_STR(run_op("equal", INPUTS(STD(GRAFT_INT32, 4), STD(GRAFT_INT32, 4)), NO_ATTRS),
              "int32_type, {4}, {1}");
    CHECK_STR(run_op("prelu", INPUTS(F(1, 4), F(1, 4)), NO_ATTRS), "float_type, {1, 4}, {4, 1}");
    CHECK_STR(run_op("mod", INPUTS(F(4), F(4)), NO_ATTRS), "float_type, {4}, {1}");
    CHECK_STR(run_op("fmod", INPUTS(F(4), F(4)), NO_ATTRS), "float_type, {4}, {1}");
    CHECK_STR(run_op("bitwise_and", INPUTS(STD(GRAFT_UINT8, 4), STD(GRAFT_UINT8, 4)), NO_ATTRS),
              "uint8_type, {4}, {1}");
}

static void test_unary(void)
{
    CHECK_STR(run_op("relu", INPUTS(F(2, 3)), NO_ATTRS), "float_type, {2, 3}, {3, 1}");
    /* a transposed operand keeps its layout */
    CHECK_STR(run_op("exp", INPUTS(STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(1, 3))), NO_ATTRS),
              "float_type, {3, 2}, {1, 3}");
    /* NHWC stays NHWC */
    CHECK_STR(run_op("sigmoid", INPUTS(STRIDED(GRAFT_HALF, LENS(1, 3, 4, 5), LENS(60, 1, 15, 3))),
                     NO_ATTRS),
              "half_type, {1, 3, 4, 5}, {60, 1, 15, 3}");
    /* a broadcast operand gives a standard result */
    CHECK_STR(run_op("tanh", INPUTS(STRIDED(GRAFT_FLOAT, LENS(2, 320, 4), LENS(0, 1, 0))),
                     NO_ATTRS),
              "float_type, {2, 320, 4}, {1280, 4, 1}");
    /* a scalar stays scalar */
    CHECK_STR(run_op("neg", INPUTS(STRIDED(GRAFT_FLOAT, LENS(2, 3), LENS(0, 0))), NO_ATTRS),
              "float_type, {2, 3}, {0, 0}");
    /* a sliced transposed operand becomes packed in the same order */
    CHECK_STR(run_op("abs", INPUTS(STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(1, 10))), NO_ATTRS),
              "float_type, {3, 2}, {1, 3}");
    CHECK_STR(run_op("isnan", INPUTS(STRIDED(GRAFT_HALF, LENS(3, 2), LENS(1, 3))), NO_ATTRS),
              "bool_type, {3, 2}, {1, 3}");
    CHECK_STR(run_op("isinf", INPUTS(F(2)), NO_ATTRS), "bool_type, {2}, {1}");
    CHECK_STR(run_op("leaky_relu", INPUTS(F(5)), ATTRS({"alpha", FLOAT(0.2)})),
              "float_type, {5}, {1}");
    CHECK_STR(run_op("elu", INPUTS(F(5)), NO_ATTRS), "float_type, {5}, {1}");
    CHECK_STR(run_op("hard_sigmoid", INPUTS(F(5)), NO_ATTRS), "float_type, {5}, {1}");
    const char *names[] = {"sqrt", "rsqrt", "erf", "log", "sin", "cos", "floor", "ceil",
                           "round", "recip", "sign", "not", "tan", "asin", "acos", "atan",
                           "sinh", "cosh", "asinh", "acosh", "atanh", "nearbyint", "softsign",
                           "gelu", "mish"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        CHECK_STR(run_op(names[i], INPUTS(F(2, 2)), NO_ATTRS), "float_type, {2, 2}, {2, 1}");
}

static void test_convert_where_clip(void)
{
    CHECK_STR(run_op("convert",
                     INPUTS(STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(1, 3))),
                     ATTRS({"target_type", TYPE(GRAFT_INT8)})),
              "int8_type, {3, 2}, {1, 3}");
    CHECK_STR(run_op("convert", INPUTS(F(2)), NO_ATTRS), "half_type, {2}, {1}");
    CHECK_STR(run_op("convert", INPUTS(F(2)), ATTRS({"target_type", TYPE(GRAFT_BF16)})),
              "bf16_type, {2}, {1}");
    CHECK_STR(run_op("convert", INPUTS(F(2)), ATTRS({"target_type", TYPE(GRAFT_TUPLE)})),
              "error: convert: target_type 13 is not an element type");
    shape cond = STD(GRAFT_BOOL, 2, 3);
    CHECK_STR(run_op("where", INPUTS(cond, F(2, 3), F(2, 3)), NO_ATTRS),
              "float_type, {2, 3}, {3, 1}");
    CHECK_STR(run_op("where", INPUTS(shape_scalar(GRAFT_BOOL), F(2, 3), F(2, 3)), NO_ATTRS),
              "float_type, {2, 3}, {3, 1}");
    CHECK_STR(run_op("where", INPUTS(cond, F(2, 3), F(3, 2)), NO_ATTRS),
              "error: where: operand shapes differ: {2, 3} vs {3, 2}");
    CHECK_STR(run_op("where", INPUTS(STD(GRAFT_BOOL, 3), F(2, 3), F(2, 3)), NO_ATTRS),
              "error: where: operand shapes differ: {3} vs {2, 3}");
    /* both values broadcast: the result stays broadcast only along the axes
     * the condition is constant on */
    shape bx = STRIDED(GRAFT_FLOAT, LENS(2, 3), LENS(0, 1)), bs = STRIDED(GRAFT_FLOAT, LENS(2, 3), LENS(0, 0));
    CHECK_STR(run_op("where", INPUTS(cond, bx, bs), NO_ATTRS), "float_type, {2, 3}, {3, 1}");
    CHECK_STR(run_op("where", INPUTS(cond, bs, bs), NO_ATTRS), "float_type, {2, 3}, {3, 1}");
    CHECK_STR(run_op("where", INPUTS(STRIDED(GRAFT_BOOL, LENS(2, 3), LENS(0, 1)), bx, bs), NO_ATTRS),
              "float_type, {2, 3}, {0, 1}");
    shape t = STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(1, 3));
    shape sc = STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(0, 0));
    CHECK_STR(run_op("clip", INPUTS(t, sc, sc), NO_ATTRS), "float_type, {3, 2}, {1, 3}");
    CHECK_STR(run_op("clip", INPUTS(F(3, 2), sc, sc), NO_ATTRS), "float_type, {3, 2}, {2, 1}");
    CHECK_STR(run_op("clip", INPUTS(F(3, 2), sc, F(3)), NO_ATTRS),
              "error: clip: operand shapes differ: {3, 2} vs {3}");
}

/* ---- reductions ---- */

static void test_reduce(void)
{
    CHECK_STR(run_op("reduce_sum", INPUTS(F(2, 3, 4)), ATTRS({"axes", INTS(1)})),
              "float_type, {2, 1, 4}, {4, 4, 1}");
    CHECK_STR(run_op("reduce_mean", INPUTS(F(2, 3, 4)), ATTRS({"axes", INTS(-1)})),
              "float_type, {2, 3, 1}, {3, 1, 1}");
    CHECK_STR(run_op("reduce_max", INPUTS(F(2, 3, 4)), NO_ATTRS),
              "float_type, {1, 1, 1}, {1, 1, 1}");
    CHECK_STR(run_op("reduce_min", INPUTS(F(2, 3, 4)), ATTRS({"axes", INTS(0, 2)})),
              "float_type, {1, 3, 1}, {3, 1, 1}");
    /* NHWC input, reduce H and W: the channel stays fastest */
    CHECK_STR(run_op("reduce_prod",
                     INPUTS(STRIDED(GRAFT_FLOAT, LENS(2, 3, 4, 5), LENS(60, 1, 15, 3))),
                     ATTRS({"axes", INTS(2, 3)})),
              "float_type, {2, 3, 1, 1}, {3, 1, 3, 3}");
    CHECK_STR(run_op("reduce_sum", INPUTS(F(2, 3, 4)), ATTRS({"axes", INTS(3)})),
              "error: reduce_sum: axes 3 is out of range for rank 3");
    CHECK_STR(run_op("reduce_sum", INPUTS(F(2, 3, 4)), ATTRS({"axes", INTS(1, -2)})),
              "error: reduce_sum: axes {1, -2} names axis 1 twice");
}

static void test_softmax_argmax(void)
{
    CHECK_STR(run_op("softmax", INPUTS(F(2, 3)), NO_ATTRS), "float_type, {2, 3}, {3, 1}");
    CHECK_STR(run_op("logsoftmax", INPUTS(STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(1, 3))),
                     ATTRS({"axis", INT(-1)})),
              "float_type, {3, 2}, {1, 3}");
    CHECK_STR(run_op("softmax", INPUTS(STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(0, 1))), NO_ATTRS),
              "float_type, {3, 2}, {2, 1}");
    CHECK_STR(run_op("softmax", INPUTS(F(2, 3)), ATTRS({"axis", INT(2)})),
              "error: softmax: axis 2 is out of range for rank 2");
    CHECK_STR(run_op("argmax", INPUTS(F(2, 3, 4)), ATTRS({"axis", INT(1)})),
              "int64_type, {2, 1, 4}, {4, 4, 1}");
    CHECK_STR(run_op("argmin", INPUTS(STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(1, 3))),
                     ATTRS({"axis", INT(-1)}, {"select_last_index", BOOL(1)})),
              "int64_type, {3, 1}, {1, 1}");
    CHECK_STR(run_op("argmax", INPUTS(F(2, 3)), ATTRS({"axis", INT(-3)})),
              "error: argmax: axis -3 is out of range for rank 2");
    /* an empty axis has no index to give (graft rules --check found the
     * kernel reading past the end of it) */
    CHECK_STR(run_op("argmin", INPUTS(F(2, 0)), ATTRS({"axis", INT(-1)})),
              "error: argmin: axis 1 has length 0");
}

/* ---- views ---- */

static void test_broadcast(void)
{
    /* migraphx.md 2(b): broadcast[axis=1,out_lens={2, 320, 64, 64}](@1) */
    CHECK_STR(run_op("broadcast", INPUTS(F(320)),
                     ATTRS({"axis", INT(1)}, {"out_lens", INTS(2, 320, 64, 64)})),
              "float_type, {2, 320, 64, 64}, {0, 1, 0, 0}");
    CHECK_STR(run_op("broadcast", INPUTS(F(3, 4)),
                     ATTRS({"axis", INT(1)}, {"out_lens", INTS(2, 3, 4)})),
              "float_type, {2, 3, 4}, {0, 4, 1}");
    /* the two-operand form takes the lens of operand 1 */
    CHECK_STR(run_op("broadcast", INPUTS(F(3), F(2, 3, 5)), ATTRS({"axis", INT(1)})),
              "float_type, {2, 3, 5}, {0, 1, 0}");
    CHECK_STR(run_op("broadcast", INPUTS(F(320)),
                     ATTRS({"axis", INT(2)}, {"out_lens", INTS(2, 320, 64, 64)})),
              "error: broadcast: operand {320} does not match out_lens {2, 320, 64, 64} at axis 2");
    CHECK_STR(run_op("broadcast", INPUTS(F(320)),
                     ATTRS({"axis", INT(4)}, {"out_lens", INTS(2, 320, 64, 64)})),
              "error: broadcast: axis 4 is out of range for out_lens {2, 320, 64, 64}");
    CHECK_STR(run_op("broadcast", INPUTS(F(64, 64)),
                     ATTRS({"axis", INT(3)}, {"out_lens", INTS(2, 320, 64, 64)})),
              "error: broadcast: operand {64, 64} does not fit in out_lens {2, 320, 64, 64} at axis 3");
    CHECK_STR(run_op("broadcast", INPUTS(F(3)), ATTRS({"out_dyn_dims", INTS(1, 2)})),
              "error: broadcast: out_dyn_dims (dynamic shapes) are not supported");
    CHECK_STR(run_op("broadcast", INPUTS(F(3)), NO_ATTRS),
              "error: broadcast: out_lens {} has 0 entries; 1 to 8 are supported");
}

/* shape_broadcasted_p asks for any stride-0 axis; shape_widens_p only for
 * one longer than 1, an axis that repeats elements. */
static void test_broadcast_predicates(void)
{
    int64_t lens[3] = {2, 1, 4};
    int64_t unit_zero[3] = {4, 0, 1}, wide_zero[3] = {0, 4, 1}, none[3] = {4, 4, 1};
    shape unit = shape_with_strides(GRAFT_FLOAT, 3, lens, unit_zero);
    shape wide = shape_with_strides(GRAFT_FLOAT, 3, lens, wide_zero);
    shape plain = shape_with_strides(GRAFT_FLOAT, 3, lens, none);
    CHECK(shape_broadcasted_p(&unit) && !shape_widens_p(&unit));
    CHECK(shape_broadcasted_p(&wide) && shape_widens_p(&wide));
    CHECK(!shape_broadcasted_p(&plain) && !shape_widens_p(&plain));
}

static void test_multibroadcast(void)
{
    /* migraphx.md 2(b): multibroadcast[out_lens={2, 320, 64, 64},out_dyn_dims={}](@3) */
    CHECK_STR(run_op("multibroadcast", INPUTS(F(320, 1, 1)),
                     ATTRS({"out_lens", INTS(2, 320, 64, 64)}, {"out_dyn_dims", NO_INTS})),
              "float_type, {2, 320, 64, 64}, {0, 1, 0, 0}");
    CHECK_STR(run_op("multibroadcast", INPUTS(shape_scalar(GRAFT_FLOAT)),
                     ATTRS({"out_lens", INTS(2, 3)})),
              "float_type, {2, 3}, {0, 0}");
    CHECK_STR(run_op("multibroadcast", INPUTS(STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(1, 3))),
                     ATTRS({"out_lens", INTS(4, 3, 2)})),
              "float_type, {4, 3, 2}, {0, 1, 3}");
    CHECK_STR(run_op("multibroadcast", INPUTS(F(3, 1), F(2, 1, 4)), NO_ATTRS),
              "float_type, {2, 3, 4}, {0, 1, 0}");
    CHECK_STR(run_op("multibroadcast", INPUTS(F(3, 4)), ATTRS({"out_lens", INTS(2, 5, 4)})),
              "error: multibroadcast: operand {3, 4} cannot be broadcast to {2, 5, 4}");
    CHECK_STR(run_op("multibroadcast", INPUTS(F(2, 3, 4)), ATTRS({"out_lens", INTS(3, 4)})),
              "error: multibroadcast: operand {2, 3, 4} cannot be broadcast to {3, 4}");
    CHECK_STR(run_op("multibroadcast", INPUTS(F(3, 1), F(2, 4)), NO_ATTRS),
              "error: multibroadcast: operand {2, 4} does not broadcast with {3, 1}");
    CHECK_STR(run_op("multibroadcast", INPUTS(F(3)), ATTRS({"out_lens", INTS(2, 0)})),
              "error: multibroadcast: operand {3} cannot be broadcast to {2, 0}");
    /* a length of 0 is a tensor without elements */
    CHECK_STR(run_op("multibroadcast", INPUTS(F(1)), ATTRS({"out_lens", INTS(2, 0)})),
              "float_type, {2, 0}, {0, 0}");
    CHECK_STR(run_op("multibroadcast", INPUTS(F(1)), ATTRS({"out_lens", INTS(2, -1)})),
              "error: multibroadcast: out_lens {2, -1} has a negative length");
}

static void test_reshape(void)
{
    /* migraphx.md 2(b): reshape[dims={2, 32, 10, 64, 64}](@6) of the conv output */
    CHECK_STR(run_op("reshape", INPUTS(F(2, 320, 64, 64)),
                     ATTRS({"dims", INTS(2, 32, 10, 64, 64)})),
              "float_type, {2, 32, 10, 64, 64}, {1310720, 40960, 4096, 64, 1}");
    /* migraphx.md 2(a): reshape[dims={-1, 784}](x) of {1, 28, 28} */
    CHECK_STR(run_op("reshape", INPUTS(F(1, 28, 28)), ATTRS({"dims", INTS(-1, 784)})),
              "float_type, {1, 784}, {784, 1}");
    CHECK_STR(run_op("reshape", INPUTS(F(2, 3, 4)), ATTRS({"dims", INTS(0, -1)})),
              "float_type, {2, 12}, {12, 1}");
    /* copy semantics: a transposed operand still gives a standard result */
    CHECK_STR(run_op("reshape", INPUTS(STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(1, 3))),
                     ATTRS({"dims", INTS(6)})),
              "float_type, {6}, {1}");
    CHECK_STR(run_op("reshape", INPUTS(F(2, 3, 4)), ATTRS({"dims", INTS(5, 5)})),
              "error: reshape: dims {5, 5} give 25 elements but the operand {2, 3, 4} has 24");
    CHECK_STR(run_op("reshape", INPUTS(F(2, 3, 4)), ATTRS({"dims", INTS(-1, -1)})),
              "error: reshape: dims {-1, -1} has more than one -1");
    CHECK_STR(run_op("reshape", INPUTS(F(2, 3, 4)), ATTRS({"dims", INTS(-1, 5)})),
              "error: reshape: cannot infer the -1 in dims {-1, 5} for an operand of 24 elements {2, 3, 4}");
    CHECK_STR(run_op("reshape", INPUTS(F(24)), ATTRS({"dims", INTS(2, 0, 12)})),
              "error: reshape: dims {2, 0, 12} copies axis 1 with 0 but the operand has rank 1");
    CHECK_STR(run_op("reshape", INPUTS(F(24)), ATTRS({"dims", INTS(-2, -12)})),
              "error: reshape: dims {-2, -12} has the negative length -2");
}

static void test_reshape_lazy(void)
{
    /* migraphx.md 2(c): reshape_lazy[dims={1, 3, 85, 80, 80}] of {1, 255, 80, 80} */
    CHECK_STR(run_op("reshape_lazy", INPUTS(STD(GRAFT_HALF, 1, 255, 80, 80)),
                     ATTRS({"dims", INTS(1, 3, 85, 80, 80)})),
              "half_type, {1, 3, 85, 80, 80}, {1632000, 544000, 6400, 80, 1}");
    shape nhwc = STRIDED(GRAFT_FLOAT, LENS(2, 3, 4, 5), LENS(60, 1, 15, 3));
    /* H and W are contiguous with each other in NHWC: they merge */
    CHECK_STR(run_op("reshape_lazy", INPUTS(nhwc), ATTRS({"dims", INTS(2, 3, 20)})),
              "float_type, {2, 3, 20}, {60, 1, 3}");
    /* and split again */
    CHECK_STR(run_op("reshape_lazy", INPUTS(nhwc), ATTRS({"dims", INTS(2, 3, 2, 2, 5)})),
              "float_type, {2, 3, 2, 2, 5}, {60, 1, 30, 15, 3}");
    /* C and H are not */
    CHECK_STR(run_op("reshape_lazy", INPUTS(nhwc), ATTRS({"dims", INTS(2, 60)})),
              "error: reshape_lazy: operand {2, 3, 4, 5} with strides {60, 1, 15, 3} cannot be "
              "viewed as {2, 60} without a copy");
    /* length-1 axes come and go freely */
    CHECK_STR(run_op("reshape_lazy", INPUTS(STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(1, 3))),
                     ATTRS({"dims", INTS(3, 1, 2)})),
              "float_type, {3, 1, 2}, {1, 6, 3}");
    CHECK_STR(run_op("reshape_lazy", INPUTS(F(2, 3)), ATTRS({"dims", INTS(7)})),
              "error: reshape_lazy: dims {7} give 7 elements but the operand {2, 3} has 6");
}

static void test_squeeze_unsqueeze(void)
{
    shape s = F(2, 1, 3, 1);
    CHECK_STR(run_op("squeeze", INPUTS(s), ATTRS({"axes", INTS(1)})),
              "float_type, {2, 3, 1}, {3, 1, 1}");
    CHECK_STR(run_op("squeeze", INPUTS(s), ATTRS({"axes", INTS(-1)})),
              "float_type, {2, 1, 3}, {3, 3, 1}");
    CHECK_STR(run_op("squeeze", INPUTS(s), NO_ATTRS), "float_type, {2, 3}, {3, 1}");
    CHECK_STR(run_op("squeeze", INPUTS(STRIDED(GRAFT_FLOAT, LENS(3, 1, 2), LENS(1, 6, 3))),
                     NO_ATTRS),
              "float_type, {3, 2}, {1, 3}");
    CHECK_STR(run_op("squeeze", INPUTS(F(1, 1)), NO_ATTRS), "float_type, {1}, {0}");
    CHECK_STR(run_op("squeeze", INPUTS(s), ATTRS({"axes", INTS(0)})),
              "error: squeeze: axis 0 of {2, 1, 3, 1} has length 2, not 1");
    CHECK_STR(run_op("squeeze", INPUTS(s), ATTRS({"axes", INTS(4)})),
              "error: squeeze: axes 4 is out of range for rank 4");

    CHECK_STR(run_op("unsqueeze", INPUTS(F(3, 4)), ATTRS({"axes", INTS(0)})),
              "float_type, {1, 3, 4}, {12, 4, 1}");
    CHECK_STR(run_op("unsqueeze", INPUTS(F(3, 4)), ATTRS({"axes", INTS(2)})),
              "float_type, {3, 4, 1}, {4, 1, 1}");
    CHECK_STR(run_op("unsqueeze", INPUTS(F(3, 4)), ATTRS({"axes", INTS(-1, 1)})),
              "float_type, {3, 1, 4, 1}, {4, 4, 1, 1}");
    CHECK_STR(run_op("unsqueeze", INPUTS(STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(1, 3))),
                     ATTRS({"axes", INTS(1)})),
              "float_type, {3, 1, 2}, {1, 6, 3}");
    CHECK_STR(run_op("unsqueeze", INPUTS(F(3, 4, 10)),
                     ATTRS({"axes", INTS(2)}, {"steps", INTS(2)})),
              "float_type, {3, 4, 2, 5}, {40, 10, 5, 1}");
    CHECK_STR(run_op("unsqueeze", INPUTS(F(3, 4, 10)),
                     ATTRS({"axes", INTS(2)}, {"steps", INTS(3)})),
              "error: unsqueeze: axis of length 10 is not divisible by step 3");
    CHECK_STR(run_op("unsqueeze", INPUTS(F(3, 4)), ATTRS({"axes", INTS(3)})),
              "error: unsqueeze: axes 3 is out of range for rank 3");
    CHECK_STR(run_op("unsqueeze", INPUTS(F(3, 4)), ATTRS({"axes", INTS(0, 0)})),
              "error: unsqueeze: axes {0, 0} names axis 0 twice");
    CHECK_STR(run_op("unsqueeze", INPUTS(F(1, 1, 1, 1, 1, 1, 1, 1)), ATTRS({"axes", INTS(0)})),
              "error: unsqueeze: the result would have rank 9; at most 8 is supported");
}

static void test_transpose_flatten(void)
{
    CHECK_STR(run_op("transpose", INPUTS(F(2, 3, 4)), ATTRS({"permutation", INTS(0, 2, 1)})),
              "float_type, {2, 4, 3}, {12, 1, 4}");
    /* migraphx.md 2(c): transpose[permutation={0, 1, 3, 4, 2}] */
    CHECK_STR(run_op("transpose", INPUTS(STD(GRAFT_HALF, 1, 3, 85, 80, 80)),
                     ATTRS({"permutation", INTS(0, 1, 3, 4, 2)})),
              "half_type, {1, 3, 80, 80, 85}, {1632000, 544000, 80, 1, 6400}");
    CHECK_STR(run_op("transpose", INPUTS(F(2, 3, 4)), ATTRS({"permutation", INTS(0, 0, 1)})),
              "error: transpose: permutation {0, 0, 1} is not a permutation of 3 axes");
    CHECK_STR(run_op("transpose", INPUTS(F(2, 3, 4)), ATTRS({"permutation", INTS(1, 0)})),
              "error: transpose: permutation {1, 0} is not a permutation of 3 axes");
    CHECK_STR(run_op("transpose", INPUTS(F(2, 3)), ATTRS({"permutation", INTS(0, 2)})),
              "error: transpose: permutation {0, 2} is not a permutation of 2 axes");

    CHECK_STR(run_op("flatten", INPUTS(F(2, 3, 4)), NO_ATTRS), "float_type, {2, 12}, {12, 1}");
    CHECK_STR(run_op("flatten", INPUTS(F(2, 3, 4)), ATTRS({"axis", INT(0)})),
              "float_type, {1, 24}, {24, 1}");
    CHECK_STR(run_op("flatten", INPUTS(F(2, 3, 4)), ATTRS({"axis", INT(-1)})),
              "float_type, {6, 4}, {4, 1}");
    CHECK_STR(run_op("flatten", INPUTS(F(2, 3, 4)), ATTRS({"axis", INT(3)})),
              "float_type, {24, 1}, {1, 1}");
    CHECK_STR(run_op("flatten", INPUTS(F(2, 3, 4)), ATTRS({"axis", INT(4)})),
              "error: flatten: axis 4 is out of range for rank 3");
    CHECK_STR(run_op("flatten", INPUTS(STRIDED(GRAFT_FLOAT, LENS(2, 3, 4), LENS(12, 1, 3))),
                     NO_ATTRS),
              "error: flatten: operand {2, 3, 4} with strides {12, 1, 3} cannot be viewed as "
              "{2, 12} without a copy");
}

static void test_slice(void)
{
    shape x = F(4, 6);
    CHECK_STR(run_op("slice", INPUTS(x),
                     ATTRS({"axes", INTS(1)}, {"starts", INTS(1)}, {"ends", INTS(-1)})),
              "float_type, {4, 4}, {6, 1}");
    CHECK_STR(run_op("slice", INPUTS(x),
                     ATTRS({"axes", INTS(0)}, {"starts", INTS(2)}, {"ends", INTS(100)})),
              "float_type, {2, 6}, {6, 1}");
    CHECK_STR(run_op("slice", INPUTS(x),
                     ATTRS({"axes", INTS(-1, 0)}, {"starts", INTS(-100, 1)},
                           {"ends", INTS(3, 2)})),
              "float_type, {1, 3}, {6, 1}");
    CHECK_STR(run_op("slice", INPUTS(x), ATTRS({"starts", INTS(1, 2)}, {"ends", INTS(3, 5)})),
              "float_type, {2, 3}, {6, 1}");
    CHECK_STR(run_op("slice", INPUTS(x),
                     ATTRS({"axes", INTS(1)}, {"starts", INTS(5)}, {"ends", INTS(2)})),
              "float_type, {4, 0}, {6, 1}");
    CHECK_STR(run_op("slice", INPUTS(STRIDED(GRAFT_FLOAT, LENS(6, 4), LENS(1, 6))),
                     ATTRS({"axes", INTS(0)}, {"starts", INTS(2)}, {"ends", INTS(4)})),
              "float_type, {2, 4}, {1, 6}");
    CHECK_STR(run_op("slice", INPUTS(x),
                     ATTRS({"axes", INTS(1)}, {"starts", INTS(1, 2)}, {"ends", INTS(3)})),
              "error: slice: 2 starts but 1 ends");
    CHECK_STR(run_op("slice", INPUTS(x),
                     ATTRS({"axes", INTS(2)}, {"starts", INTS(1)}, {"ends", INTS(3)})),
              "error: slice: axes 2 is out of range for rank 2");
    CHECK_STR(run_op("slice", INPUTS(x),
                     ATTRS({"axes", INTS(0, 1)}, {"starts", INTS(1)}, {"ends", INTS(3)})),
              "error: slice: 2 axes but 1 starts");
    /* the kernel's offset comes from ops_slice_bounds */
    const op_def *op = op_find("slice");
    attr attrs[3] = {{"axes", INTS(1, 0)}, {"starts", INTS(-2, 1)}, {"ends", INTS(6, 3)}};
    op_call call = {.op = op, .attrs = attrs, .inputs = &x, .ninputs = 1};
    int64_t starts[SHAPE_MAX_RANK], counts[SHAPE_MAX_RANK];
    CHECK(ops_slice_bounds(&call, &x, starts, counts, NULL));
    CHECK_INT(starts[0], 1);
    CHECK_INT(counts[0], 2);
    CHECK_INT(starts[1], 4);
    CHECK_INT(counts[1], 2);
}

/* ---- compute ---- */

static void test_convolution(void)
{
    /* migraphx.md 2(b): the UNet conv */
    CHECK_STR(run_op("convolution", INPUTS(F(2, 4, 64, 64), F(320, 4, 3, 3)),
                     ATTRS({"padding", INTS(1, 1, 1, 1)})),
              "float_type, {2, 320, 64, 64}, {1310720, 4096, 64, 1}");
    CHECK_STR(run_op("convolution", INPUTS(F(2, 4, 64, 64), F(320, 4, 3, 3)),
                     ATTRS({"padding", INTS(1, 1)})),
              "float_type, {2, 320, 64, 64}, {1310720, 4096, 64, 1}");
    /* groups */
    CHECK_STR(run_op("convolution", INPUTS(F(1, 4, 8, 8), F(6, 2, 3, 3)),
                     ATTRS({"group", INT(2)})),
              "float_type, {1, 6, 6, 6}, {216, 36, 6, 1}");
    /* depthwise */
    CHECK_STR(run_op("convolution", INPUTS(F(1, 8, 5, 5), F(8, 1, 3, 3)),
                     ATTRS({"padding", INTS(1, 1)}, {"group", INT(8)})),
              "float_type, {1, 8, 5, 5}, {200, 25, 5, 1}");
    /* dilation */
    CHECK_STR(run_op("convolution", INPUTS(F(1, 3, 10, 10), F(4, 3, 3, 3)),
                     ATTRS({"dilation", INTS(2, 2)})),
              "float_type, {1, 4, 6, 6}, {144, 36, 6, 1}");
    /* stride with padding */
    CHECK_STR(run_op("convolution", INPUTS(F(1, 3, 7, 7), F(8, 3, 3, 3)),
                     ATTRS({"padding", INTS(1, 1)}, {"stride", INTS(2, 2)})),
              "float_type, {1, 8, 4, 4}, {128, 16, 4, 1}");
    /* asymmetric padding: befores {0, 1}, afters {2, 3} */
    CHECK_STR(run_op("convolution", INPUTS(F(1, 1, 5, 5), F(1, 1, 3, 3)),
                     ATTRS({"padding", INTS(0, 1, 2, 3)})),
              "float_type, {1, 1, 5, 7}, {35, 35, 7, 1}");
    /* 1-D and 3-D */
    CHECK_STR(run_op("convolution", INPUTS(F(2, 3, 10), F(5, 3, 4)),
                     ATTRS({"padding", INTS(0)}, {"stride", INTS(3)}, {"dilation", INTS(1)})),
              "float_type, {2, 5, 3}, {15, 3, 1}");
    CHECK_STR(run_op("convolution", INPUTS(F(1, 2, 4, 4, 4), F(3, 2, 2, 2, 2)),
                     ATTRS({"padding", INTS(0, 0, 0)}, {"stride", INTS(2, 2, 2)},
                           {"dilation", INTS(1, 1, 1)})),
              "float_type, {1, 3, 2, 2, 2}, {24, 8, 4, 2, 1}");
    /* NHWC input: NHWC output */
    CHECK_STR(run_op("convolution",
                     INPUTS(STRIDED(GRAFT_FLOAT, LENS(2, 4, 8, 8), LENS(256, 1, 32, 4)),
                            F(16, 4, 3, 3)),
                     ATTRS({"padding", INTS(1, 1)})),
              "float_type, {2, 16, 8, 8}, {1024, 1, 128, 16}");
    CHECK_STR(run_op("convolution", INPUTS(F(1, 4, 8, 8), F(8, 3, 3, 3)), NO_ATTRS),
              "error: convolution: input has 4 channels but weights expect 3 (group 1)");
    CHECK_STR(run_op("convolution", INPUTS(F(1, 4, 8, 8), F(8, 3, 3, 3)),
                     ATTRS({"group", INT(2)})),
              "error: convolution: input has 4 channels but weights expect 6 (group 2)");
    CHECK_STR(run_op("convolution", INPUTS(F(1, 4, 8, 8), F(6, 1, 3, 3)),
                     ATTRS({"group", INT(4)})),
              "error: convolution: 6 output channels are not divisible by group 4");
    CHECK_STR(run_op("convolution", INPUTS(F(1, 3, 2, 2), F(8, 3, 3, 3)), NO_ATTRS),
              "error: convolution: window of 3 (kernel 3, dilation 1) is larger than the padded "
              "length 2 on spatial axis 0");
    CHECK_STR(run_op("convolution", INPUTS(F(1, 3, 8, 8), F(8, 3, 3, 3)),
                     ATTRS({"padding", INTS(1, 1, 1)})),
              "error: convolution: padding has 3 entries; 2 spatial axes need 2 or 4");
    CHECK_STR(run_op("convolution", INPUTS(F(1, 3, 8, 8), F(8, 3, 3, 3)),
                     ATTRS({"stride", INTS(1, 1, 1)})),
              "error: convolution: stride has 3 entries; 2 spatial axes need 2");
    CHECK_STR(run_op("convolution", INPUTS(F(1, 3, 8, 8), F(8, 3, 3, 3)),
                     ATTRS({"stride", INTS(0, 1)})),
              "error: convolution: stride {0, 1} must be positive");
    CHECK_STR(run_op("convolution", INPUTS(F(1, 3, 8, 8), F(8, 3, 3)), NO_ATTRS),
              "error: convolution: input {1, 3, 8, 8} and weights {8, 3, 3} differ in rank");
    CHECK_STR(run_op("convolution", INPUTS(F(1, 3, 8, 8), STD(GRAFT_HALF, 8, 3, 3, 3)),
                     NO_ATTRS),
              "error: convolution: operand types differ: float_type vs half_type");
    CHECK_STR(run_op("convolution", INPUTS(F(3, 8), F(3, 8)), NO_ATTRS),
              "error: convolution: operand 0 has rank 2 ({3, 8}); at least 3 is needed");
    /* quant_convolution: int8 in, int32 out */
    CHECK_STR(run_op("quant_convolution", INPUTS(STD(GRAFT_INT8, 1, 3, 8, 8),
                                                 STD(GRAFT_INT8, 8, 3, 3, 3)),
                     ATTRS({"padding", INTS(1, 1)})),
              "int32_type, {1, 8, 8, 8}, {512, 64, 8, 1}");
    CHECK_STR(run_op("quant_convolution", INPUTS(F(1, 3, 8, 8), F(8, 3, 3, 3)), NO_ATTRS),
              "error: quant_convolution: operands must be int8_type or uint8_type, not float_type");
}

static void test_dot(void)
{
    CHECK_STR(run_op("dot", INPUTS(F(3, 4), F(4, 5)), NO_ATTRS), "float_type, {3, 5}, {5, 1}");
    CHECK_STR(run_op("dot", INPUTS(F(2, 3, 4), F(2, 4, 5)), NO_ATTRS),
              "float_type, {2, 3, 5}, {15, 5, 1}");
    /* transposed operands still give a standard result */
    CHECK_STR(run_op("dot", INPUTS(STRIDED(GRAFT_FLOAT, LENS(3, 4), LENS(1, 3)), F(4, 5)),
                     NO_ATTRS),
              "float_type, {3, 5}, {5, 1}");
    CHECK_STR(run_op("dot", INPUTS(F(2, 3, 4), F(3, 4, 5)), NO_ATTRS),
              "error: dot: batch dimensions differ: {2, 3, 4} x {3, 4, 5}");
    CHECK_STR(run_op("dot", INPUTS(F(3, 4), F(5, 6)), NO_ATTRS),
              "error: dot: inner dimensions differ: {3, 4} x {5, 6} (4 vs 5)");
    CHECK_STR(run_op("dot", INPUTS(F(2, 3, 4), F(4, 5)), NO_ATTRS),
              "error: dot: operands differ in rank: {2, 3, 4} x {4, 5}");
    CHECK_STR(run_op("dot", INPUTS(F(4), F(4, 5)), NO_ATTRS),
              "error: dot: operand 0 has rank 1 ({4}); at least 2 is needed");
    /* graft's output_permutation presents the product transposed */
    CHECK_STR(run_op("dot", INPUTS(F(2, 3, 4), F(2, 4, 5)),
                     ATTRS({"output_permutation", INTS(0, 2, 1)})),
              "float_type, {2, 5, 3}, {15, 1, 5}");
    CHECK_CONTAINS(run_op("dot", INPUTS(F(3, 4), F(4, 5)),
                          ATTRS({"output_permutation", INTS(0, 0)})),
                   "error: dot: output_permutation");
    CHECK_STR(run_op("quant_dot", INPUTS(STD(GRAFT_INT8, 3, 4), STD(GRAFT_INT8, 4, 5)), NO_ATTRS),
              "int32_type, {3, 5}, {5, 1}");
    CHECK_STR(run_op("quant_dot", INPUTS(F(3, 4), F(4, 5)), NO_ATTRS),
              "error: quant_dot: operands must be int8_type or uint8_type, not float_type");
}

static void test_pooling(void)
{
    shape x = F(1, 1, 5, 5);
    CHECK_STR(run_op("pooling", INPUTS(x),
                     ATTRS({"mode", INT(1)}, {"lengths", INTS(2, 2)}, {"stride", INTS(2, 2)})),
              "float_type, {1, 1, 2, 2}, {4, 4, 2, 1}");
    CHECK_STR(run_op("pooling", INPUTS(x),
                     ATTRS({"mode", INT(1)}, {"lengths", INTS(2, 2)}, {"stride", INTS(2, 2)},
                           {"ceil_mode", BOOL(1)})),
              "float_type, {1, 1, 3, 3}, {9, 9, 3, 1}");
    /* global pooling through lengths */
    CHECK_STR(run_op("pooling", INPUTS(F(2, 8, 7, 7)), ATTRS({"lengths", INTS(7, 7)})),
              "float_type, {2, 8, 1, 1}, {8, 1, 1, 1}");
    CHECK_STR(run_op("pooling", INPUTS(F(2, 8, 7, 7)), ATTRS({"dyn_global", BOOL(1)})),
              "float_type, {2, 8, 1, 1}, {8, 1, 1, 1}");
    /* padding, asymmetric, dilation */
    CHECK_STR(run_op("pooling", INPUTS(F(1, 2, 6, 6)),
                     ATTRS({"lengths", INTS(3, 3)}, {"padding", INTS(1, 0, 1, 2)},
                           {"dilations", INTS(1, 2)})),
              "float_type, {1, 2, 6, 4}, {48, 24, 4, 1}");
    /* NHWC stays NHWC */
    CHECK_STR(run_op("pooling", INPUTS(STRIDED(GRAFT_FLOAT, LENS(1, 3, 4, 4), LENS(48, 1, 12, 3))),
                     ATTRS({"mode", INT(1)}, {"lengths", INTS(2, 2)}, {"stride", INTS(2, 2)})),
              "float_type, {1, 3, 2, 2}, {12, 1, 6, 3}");
    /* 1-D */
    CHECK_STR(run_op("pooling", INPUTS(F(1, 2, 9)),
                     ATTRS({"lengths", INTS(3)}, {"stride", INTS(3)}, {"padding", INTS(0)},
                           {"dilations", INTS(1)})),
              "float_type, {1, 2, 3}, {6, 3, 1}");
    CHECK_STR(run_op("pooling", INPUTS(x), ATTRS({"lengths", INTS(6, 6)})),
              "error: pooling: window of 6 (kernel 6, dilation 1) is larger than the padded "
              "length 5 on spatial axis 0");
    CHECK_STR(run_op("pooling", INPUTS(F(1, 2, 9)), NO_ATTRS),
              "error: pooling: stride has 2 entries; 1 spatial axes need 1");
    CHECK_STR(run_op("pooling", INPUTS(x), ATTRS({"lengths", INTS(0, 2)})),
              "error: pooling: lengths {0, 2} must be positive");
    CHECK_STR(run_op("pooling", INPUTS(x), ATTRS({"mode", INT(3)})),
              "error: pooling: mode 3 is not average (0), max (1) or lpnorm (2)");
}

static void test_batch_norm_lrn(void)
{
    shape v = F(3);
    CHECK_STR(run_op("batch_norm_inference", INPUTS(F(2, 3, 4, 4), v, v, v, v), NO_ATTRS),
              "float_type, {2, 3, 4, 4}, {48, 16, 4, 1}");
    shape pa = F(3, 4, 4);
    CHECK_STR(run_op("batch_norm_inference", INPUTS(F(2, 3, 4, 4), pa, pa, pa, pa),
                     ATTRS({"bn_mode", INT(0)})),
              "float_type, {2, 3, 4, 4}, {48, 16, 4, 1}");
    CHECK_STR(run_op("batch_norm_inference", INPUTS(F(2, 3, 4, 4), F(4), F(4), F(4), F(4)),
                     NO_ATTRS),
              "error: batch_norm_inference: scale {4} has 4 values; input {2, 3, 4, 4} needs 3");
    CHECK_STR(run_op("batch_norm_inference", INPUTS(F(2, 3, 4, 4), v, v, F(4), v), NO_ATTRS),
              "error: batch_norm_inference: operand shapes differ: {3} vs {4}");
    CHECK_STR(run_op("lrn", INPUTS(F(1, 4, 5, 5)), ATTRS({"size", INT(3)})),
              "float_type, {1, 4, 5, 5}, {100, 25, 5, 1}");
    CHECK_STR(run_op("lrn", INPUTS(F(1, 4, 5, 5)), ATTRS({"size", INT(0)})),
              "error: lrn: size 0 must be positive");
}

/* ---- data movement ---- */

static void test_contiguous_layout(void)
{
    CHECK_STR(run_op("contiguous", INPUTS(STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(1, 3))), NO_ATTRS),
              "float_type, {3, 2}, {2, 1}");
    CHECK_STR(run_op("contiguous", INPUTS(STRIDED(GRAFT_FLOAT, LENS(2, 3), LENS(0, 1))), NO_ATTRS),
              "float_type, {2, 3}, {3, 1}");
    CHECK_STR(run_op("layout", INPUTS(F(2, 3, 4, 5)), ATTRS({"permutation", INTS(0, 2, 3, 1)})),
              "float_type, {2, 3, 4, 5}, {60, 1, 15, 3}");
    CHECK_STR(run_op("layout", INPUTS(STRIDED(GRAFT_FLOAT, LENS(2, 3, 4, 5), LENS(60, 1, 15, 3))),
                     ATTRS({"permutation", INTS(0, 1, 2, 3)})),
              "float_type, {2, 3, 4, 5}, {60, 20, 5, 1}");
    CHECK_STR(run_op("layout", INPUTS(F(2, 3)), ATTRS({"permutation", INTS(0, 2)})),
              "error: layout: permutation {0, 2} is not a permutation of 2 axes");
}

static void test_pad(void)
{
    CHECK_STR(run_op("pad", INPUTS(F(1, 3, 4, 4)), ATTRS({"pads", INTS(0, 0, 1, 1, 0, 0, 1, 1)})),
              "float_type, {1, 3, 6, 6}, {108, 36, 6, 1}");
    CHECK_STR(run_op("pad", INPUTS(F(2, 3)),
                     ATTRS({"mode", INT(2)}, {"pads", INTS(0, 1, 2, 3)}, {"value", FLOAT(1.5)})),
              "float_type, {4, 7}, {7, 1}");
    CHECK_STR(run_op("pad", INPUTS(STRIDED(GRAFT_FLOAT, LENS(3, 2), LENS(1, 3))),
                     ATTRS({"pads", INTS(1, 0, 1, 0)})),
              "float_type, {5, 2}, {1, 5}");
    CHECK_STR(run_op("pad", INPUTS(F(2, 3)), ATTRS({"pads", INTS(1, 1)})),
              "error: pad: pads {1, 1} has 2 entries; an operand of rank 2 needs 4");
    CHECK_STR(run_op("pad", INPUTS(F(2, 3)), ATTRS({"pads", INTS(0, -1, 0, 0)})),
              "error: pad: pads {0, -1, 0, 0} has a negative entry");
    CHECK_STR(run_op("pad", INPUTS(F(2, 3)), ATTRS({"pads", INTS(0, 0, 0, 0)}, {"mode", INT(5)})),
              "error: pad: mode 5 is not constant (0), reflect (1) or edge (2)");
}

static void test_concat(void)
{
    CHECK_STR(run_op("concat", INPUTS(F(2, 3), F(2, 5)), ATTRS({"axis", INT(1)})),
              "float_type, {2, 8}, {8, 1}");
    CHECK_STR(run_op("concat", INPUTS(F(2, 3), F(2, 5), F(2, 1)), ATTRS({"axis", INT(-1)})),
              "float_type, {2, 9}, {9, 1}");
    CHECK_STR(run_op("concat", INPUTS(F(2, 3), F(4, 3)), NO_ATTRS), "float_type, {6, 3}, {3, 1}");
    CHECK_STR(run_op("concat", INPUTS(F(7)), NO_ATTRS), "float_type, {7}, {1}");
    /* NHWC operands give an NHWC result */
    CHECK_STR(run_op("concat",
                     INPUTS(STRIDED(GRAFT_FLOAT, LENS(2, 3, 4, 5), LENS(60, 1, 15, 3)),
                            STRIDED(GRAFT_FLOAT, LENS(2, 6, 4, 5), LENS(120, 1, 30, 6))),
                     ATTRS({"axis", INT(1)})),
              "float_type, {2, 9, 4, 5}, {180, 1, 45, 9}");
    /* many operands: 19 NHWC and one standard still give NHWC */
    shape many[20];
    for (int k = 0; k < 19; k++)
        many[k] = STRIDED(GRAFT_FLOAT, LENS(1, 2, 2, 2), LENS(8, 1, 4, 2));
    many[19] = F(1, 2, 2, 2);
    CHECK_STR(run_op("concat", 20, many, ATTRS({"axis", INT(1)})),
              "float_type, {1, 40, 2, 2}, {160, 1, 80, 40}");
    CHECK_STR(run_op("concat", INPUTS(F(2, 3), F(3, 5)), ATTRS({"axis", INT(1)})),
              "error: concat: operand 1 {3, 5} does not match {2, 3} outside axis 1");
    CHECK_STR(run_op("concat", INPUTS(F(2, 3), F(2, 3, 1)), ATTRS({"axis", INT(1)})),
              "error: concat: operand 1 {2, 3, 1} does not match {2, 3} outside axis 1");
    CHECK_STR(run_op("concat", INPUTS(F(2, 3), F(2, 3)), ATTRS({"axis", INT(2)})),
              "error: concat: axis 2 is out of range for rank 2");
    CHECK_STR(run_op("concat", INPUTS(F(2, 3), STD(GRAFT_HALF, 2, 3)), NO_ATTRS),
              "error: concat: operand types differ: float_type vs half_type");
}

static void test_gather(void)
{
    shape idx = STD(GRAFT_INT32, 2, 2);
    CHECK_STR(run_op("gather", INPUTS(F(5, 4, 3), idx), ATTRS({"axis", INT(1)})),
              "float_type, {5, 2, 2, 3}, {12, 6, 3, 1}");
    CHECK_STR(run_op("gather", INPUTS(F(5, 4, 3), STD(GRAFT_INT64, 7)), NO_ATTRS),
              "float_type, {7, 4, 3}, {12, 3, 1}");
    CHECK_STR(run_op("gather", INPUTS(F(5, 4, 3), idx), ATTRS({"axis", INT(-1)})),
              "float_type, {5, 4, 2, 2}, {16, 4, 2, 1}");
    /* a scalar index removes the axis */
    CHECK_STR(run_op("gather", INPUTS(F(5, 4), shape_scalar(GRAFT_INT64)), NO_ATTRS),
              "float_type, {4}, {1}");
    CHECK_STR(run_op("gather", INPUTS(F(5), shape_scalar(GRAFT_INT64)), NO_ATTRS),
              "float_type, {1}, {0}");
    CHECK_STR(run_op("gather", INPUTS(F(5, 4), F(2)), NO_ATTRS),
              "error: gather: indices must be integers, not float_type");
    CHECK_STR(run_op("gather", INPUTS(F(5, 4), idx), ATTRS({"axis", INT(2)})),
              "error: gather: axis 2 is out of range for rank 2");
}

/* Attribute values and operands from a dump are arbitrary: the rules must
 * refuse what would overflow instead of computing it. */
static void test_overflow_guards(void)
{
    CHECK_STR(run_op("pad", INPUTS(F(2, 3)),
                     ATTRS({"pads", INTS(0, 0, INT64_MAX - 1, 0)})),
              "error: pad: pads {0, 0, 9223372036854775806, 0} are too large");
    CHECK_STR(run_op("pad", INPUTS(F(2, 3)), ATTRS({"pads", INTS(0, 0, (int64_t)1 << 40, (int64_t)1 << 40)})),
              "error: pad: the result {1099511627778, 1099511627779} has too many elements");
    CHECK_STR(run_op("multibroadcast", INPUTS(F(1)),
                     ATTRS({"out_lens", INTS((int64_t)1 << 32, (int64_t)1 << 32)})),
              "error: multibroadcast: the result {4294967296, 4294967296} has too many elements");
    CHECK_STR(run_op("reshape", INPUTS(STD(GRAFT_FLOAT, 0, 2)),
                     ATTRS({"dims", INTS(0, (int64_t)1 << 40, (int64_t)1 << 40)})),
              "error: reshape: the result {0, 1099511627776, 1099511627776} has too many elements");
    CHECK_STR(run_op("relu", INPUTS(STRIDED(GRAFT_FLOAT, LENS(2, 3), LENS(-1, 1))), NO_ATTRS),
              "error: relu: operand 0 has the negative strides {-1, 1}");
    CHECK_STR(run_op("relu", INPUTS(STRIDED(GRAFT_FLOAT, LENS(3, 3), LENS(INT64_MAX, 1))), NO_ATTRS),
              "error: relu: operand 0 {3, 3} with strides {9223372036854775807, 1} spans too much memory");
    CHECK_STR(run_op("relu", INPUTS(STRIDED(GRAFT_FLOAT, LENS((int64_t)1 << 40, (int64_t)1 << 40),
                                            LENS(0, 0))),
                     NO_ATTRS),
              "error: relu: operand 0 {1099511627776, 1099511627776} has too many elements");
    CHECK_STR(run_op("convolution", INPUTS(F(1, 3, 8, 8), F(8, 3, 3, 3)),
                     ATTRS({"stride", INTS(INT64_MAX, 1)})),
              "error: convolution: stride {9223372036854775807, 1} is too large");
    CHECK_STR(run_op("convolution", INPUTS(F(1, 3, 8, 8), F(8, 3, 3, 3)),
                     ATTRS({"padding", INTS(-1, 0)})),
              "error: convolution: padding {-1, 0} has an entry out of range");
}

static void test_layout_helpers(void)
{
    int perm[SHAPE_MAX_RANK];
    shape ins[3] = {STRIDED(GRAFT_FLOAT, LENS(2, 3, 4), LENS(12, 1, 3)),
                    STRIDED(GRAFT_FLOAT, LENS(2, 3, 4), LENS(12, 1, 3)), F(2, 3, 4)};
    ops_common_permutation(ins, 3, perm);
    CHECK_INT(perm[0], 0);
    CHECK_INT(perm[1], 2);
    CHECK_INT(perm[2], 1);
    shape bc[2] = {STRIDED(GRAFT_FLOAT, LENS(2, 3), LENS(0, 1)),
                   STRIDED(GRAFT_FLOAT, LENS(2, 3), LENS(1, 0))};
    ops_common_permutation(bc, 2, perm);
    CHECK_INT(perm[0], 0);
    CHECK_INT(perm[1], 1);
    CHECK(ops_is_permutation((const int64_t[]){2, 0, 1}, 3, 3));
    CHECK(!ops_is_permutation((const int64_t[]){2, 0, 3}, 3, 3));
    int64_t p;
    CHECK(ops_lens_product((const int64_t[]){2, 3, 4}, 3, &p) && p == 24);
    CHECK(!ops_lens_product((const int64_t[]){INT64_MAX, 2}, 2, &p));
}

/* Kernels are counted by class: a fill (pad), copies (contiguous, concat, a
 * reshape of a transposed value), compute and pointwise ops; views, a
 * reshape of a standard value, pending shape changes and builtins are free. */
static void test_kernel_counts_by_class(void)
{
    graph *g = parse("module: \"main\"\n"
                     "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
                     "@1 = pad[pads={0, 1, 0, 1}](x)\n"
                     "@2 = transpose[permutation={1, 0}](x)\n"
                     "@3 = contiguous(@2)\n"
                     "@4 = reshape[dims={6}](@2)\n"
                     "@5 = reshape[dims={6}](x)\n"
                     "@6 = concat[axis=0](@4,@5)\n"
                     "@7 = relu(@6)\n"
                     "@8 = pending_shape_change[lens={3, 4}](@7)\n"
                     "@9 = @return(@1,@3,@8)\n");
    CHECK(g != NULL);
    if (!g)
        return;
    kernel_counts kc;
    graph_kernel_counts(g, &kc);
    CHECK_INT(kc.fills, 1);  /* pad */
    CHECK_INT(kc.copies, 3); /* contiguous, concat, the reshape of @2 */
    CHECK_INT(kc.kernels, 5); /* and relu */
    graph_free(g);
}

int main(void)
{
    RUN(test_find);
    RUN(test_broadcast_predicates);
    RUN(test_kernel_counts_by_class);
    RUN(test_table_is_consistent);
    RUN(test_classes);
    RUN(test_attribute_order_and_defaults);
    RUN(test_enum_values);
    RUN(test_attr_access);
    RUN(test_opaque);
    RUN(test_arity);
    RUN(test_tuple_operands_rejected);
    RUN(test_builtins);
    RUN(test_binary);
    RUN(test_unary);
    RUN(test_convert_where_clip);
    RUN(test_reduce);
    RUN(test_softmax_argmax);
    RUN(test_broadcast);
    RUN(test_multibroadcast);
    RUN(test_reshape);
    RUN(test_reshape_lazy);
    RUN(test_squeeze_unsqueeze);
    RUN(test_transpose_flatten);
    RUN(test_slice);
    RUN(test_convolution);
    RUN(test_dot);
    RUN(test_pooling);
    RUN(test_batch_norm_lrn);
    RUN(test_contiguous_layout);
    RUN(test_pad);
    RUN(test_concat);
    RUN(test_gather);
    RUN(test_overflow_guards);
    RUN(test_layout_helpers);
    return tests_finish();
}
