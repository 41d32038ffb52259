/* test_onnx.c: the ONNX importer and the TensorProto reader/writer.
 *
 * Models are built here with protobuf-c (a ModelProto assembled in C, packed
 * to bytes), imported, run on the reference executor and checked against
 * values worked out by hand. Bad input (truncated bytes at every length,
 * unsupported ops, subgraphs, missing initializers, contradicting shapes)
 * must give one clear error and never crash. The fuzz corpus and the fuzz
 * regressions (tests/fuzz/corpus_onnx, tests/fuzz/regress_onnx) are replayed;
 * both hold the fuzzer's byte strings (.seed, .crash), not models: the real
 * models are read from ../shared by tests/cli/onnx_models.sh.
 * `test_onnx --write-corpus DIR` writes the models built here as fuzz seeds;
 * `test_onnx --write-model NAME PATH` writes one model (or, for
 * symbolic_test, a backend-test directory) for the shell tests
 * tests/cli/onnx_dims.sh and tests/cli/onnx_check.sh.
 */
#include "check.h"
#include "corpus_replay.h"

#include "exec.h"
#include "ir.h"
#include "onnx.h"
#include "onnx.pb-c.h"
#include "onnx_model_head.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- building models ---- */

enum { MAX_ITEMS = 16 };

typedef struct model_builder {
    Onnx__ModelProto model;
    Onnx__GraphProto graph;
    Onnx__OperatorSetIdProto opset;
    Onnx__OperatorSetIdProto *opsets[1];
    Onnx__NodeProto nodes[MAX_ITEMS];
    Onnx__NodeProto *node_ptrs[MAX_ITEMS];
    Onnx__AttributeProto attrs[MAX_ITEMS * 4];
    Onnx__AttributeProto *attr_ptrs[MAX_ITEMS * 4];
    int nattrs;
    Onnx__TensorProto inits[MAX_ITEMS];
    Onnx__TensorProto *init_ptrs[MAX_ITEMS];
    Onnx__ValueInfoProto inputs[MAX_ITEMS], outputs[MAX_ITEMS];
    Onnx__ValueInfoProto *input_ptrs[MAX_ITEMS], *output_ptrs[MAX_ITEMS];
    Onnx__TypeProto types[2 * MAX_ITEMS];
    Onnx__TypeProto__Tensor tensor_types[2 * MAX_ITEMS];
    Onnx__TensorShapeProto shapes[2 * MAX_ITEMS];
    Onnx__TensorShapeProto__Dimension dims[2 * MAX_ITEMS][4];
    Onnx__TensorShapeProto__Dimension *dim_ptrs[2 * MAX_ITEMS][4];
    int ntypes;
    char *strings[64][4];
} model_builder;

static void builder_init(model_builder *b, int64_t opset)
{
    memset(b, 0, sizeof *b);
    onnx_model_head_init(&b->model, &b->graph, &b->opset, b->opsets, opset);
    b->graph.node = b->node_ptrs;
    b->graph.initializer = b->init_ptrs;
    b->graph.input = b->input_ptrs;
    b->graph.output = b->output_ptrs;
    b->graph.name = "test";
}

static Onnx__TypeProto *tensor_type(model_builder *b, int32_t elem, int rank, const int64_t *dims,
                                    const char *symbolic)
{
    int t = b->ntypes++;
    onnx__type_proto__init(&b->types[t]);
    onnx__type_proto__tensor__init(&b->tensor_types[t]);
    onnx__tensor_shape_proto__init(&b->shapes[t]);
    for (int i = 0; i < rank; i++) {
        onnx__tensor_shape_proto__dimension__init(&b->dims[t][i]);
        if (symbolic && i == 0) {
            b->dims[t][i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            b->dims[t][i].dim_param = (char *)symbolic;
        } else {
            b->dims[t][i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            b->dims[t][i].dim_value = dims[i];
        }
        b->dim_ptrs[t][i] = &b->dims[t][i];
    }
    b->shapes[t].n_dim = (size_t)rank;
    b->shapes[t].dim = b->dim_ptrs[t];
    b->tensor_types[t].has_elem_type = true;
    b->tensor_types[t].elem_type = elem;
    b->tensor_types[t].shape = &b->shapes[t];
    b->types[t].value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    b->types[t].tensor_type = &b->tensor_types[t];
    return &b->types[t];
}

static void add_input(model_builder *b, const char *name, int rank, const int64_t *dims)
{
    size_t i = b->graph.n_input++;
    onnx__value_info_proto__init(&b->inputs[i]);
    b->inputs[i].name = (char *)name;
    b->inputs[i].type = tensor_type(b, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, rank, dims, NULL);
    b->input_ptrs[i] = &b->inputs[i];
}

static void add_output(model_builder *b, const char *name)
{
    size_t i = b->graph.n_output++;
    onnx__value_info_proto__init(&b->outputs[i]);
    b->outputs[i].name = (char *)name;
    b->output_ptrs[i] = &b->outputs[i];
}

/* A float initializer (data points at the caller's array). */
static Onnx__TensorProto *add_float_init(model_builder *b, const char *name, int rank,
                                         int64_t *dims, float *data, int n)
{
    size_t i = b->graph.n_initializer++;
    Onnx__TensorProto *t = &b->inits[i];
    onnx__tensor_proto__init(t);
    t->name = (char *)name;
    t->n_dims = (size_t)rank;
    t->dims = dims;
    t->has_data_type = true;
    t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    t->n_float_data = (size_t)n;
    t->float_data = data;
    b->init_ptrs[i] = t;
    return t;
}

static Onnx__TensorProto *add_int64_init(model_builder *b, const char *name, int64_t *dims,
                                         int64_t *data, int n)
{
    size_t i = b->graph.n_initializer++;
    Onnx__TensorProto *t = &b->inits[i];
    onnx__tensor_proto__init(t);
    t->name = (char *)name;
    t->n_dims = 1;
    dims[0] = n;
    t->dims = dims;
    t->has_data_type = true;
    t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    t->n_int64_data = (size_t)n;
    t->int64_data = data;
    b->init_ptrs[i] = t;
    return t;
}

static Onnx__NodeProto *add_node(model_builder *b, const char *op, const char *name,
                                 const char *in0, const char *in1, const char *in2,
                                 const char *out)
{
    size_t i = b->graph.n_node++;
    Onnx__NodeProto *n = &b->nodes[i];
    onnx__node_proto__init(n);
    n->op_type = (char *)op;
    n->name = (char *)name;
    char **ins = b->strings[2 * i];
    char **outs = b->strings[2 * i + 1];
    int k = 0;
    if (in0)
        ins[k++] = (char *)in0;
    if (in1)
        ins[k++] = (char *)in1;
    if (in2)
        ins[k++] = (char *)in2;
    n->n_input = (size_t)k;
    n->input = ins;
    outs[0] = (char *)out;
    n->n_output = 1;
    n->output = outs;
    n->attribute = &b->attr_ptrs[b->nattrs];
    b->node_ptrs[i] = n;
    return n;
}

/* Attributes go to the node added last. */
static Onnx__AttributeProto *add_attr(model_builder *b, const char *name)
{
    Onnx__NodeProto *n = &b->nodes[b->graph.n_node - 1];
    Onnx__AttributeProto *a = &b->attrs[b->nattrs];
    onnx__attribute_proto__init(a);
    a->name = (char *)name;
    b->attr_ptrs[b->nattrs++] = a;
    n->n_attribute++;
    return a;
}

static void set_attr_int(model_builder *b, const char *name, int64_t v)
{
    Onnx__AttributeProto *a = add_attr(b, name);
    a->has_type = true;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    a->has_i = true;
    a->i = v;
}

static void set_attr_float(model_builder *b, const char *name, float v)
{
    Onnx__AttributeProto *a = add_attr(b, name);
    a->has_type = true;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    a->has_f = true;
    a->f = v;
}

static void set_attr_ints(model_builder *b, const char *name, int64_t *v, int n)
{
    Onnx__AttributeProto *a = add_attr(b, name);
    a->has_type = true;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    a->n_ints = (size_t)n;
    a->ints = v;
}

static unsigned char *pack_model(model_builder *b, size_t *len)
{
    *len = onnx__model_proto__get_packed_size(&b->model);
    unsigned char *buf = malloc(*len);
    onnx__model_proto__pack(&b->model, buf);
    return buf;
}

/* Where --write-corpus puts each packed model; NULL normally. */
static const char *corpus_dir;

static graph *import_model(model_builder *b, const char *seed_name, graft_error *err)
{
    size_t len;
    unsigned char *bytes = pack_model(b, &len);
    if (corpus_dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.seed", corpus_dir, seed_name);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(bytes, 1, len, f);
            fclose(f);
        }
    }
    graph *g = onnx_import(bytes, len, "test.onnx", NULL, err);
    free(bytes);
    return g;
}

/* Runs g with one float input; returns output 0 (caller frees outs). */
static bool run_one(graph *g, const char *name, int rank, const int64_t *lens, const float *x,
                    tensor_list *outs)
{
    tensor_list ins = {0};
    graft_error err = {0};
    tensor t = {shape_standard(GRAFT_FLOAT, rank, lens), (char *)x};
    bool ok = tensor_list_add(&ins, name, &t, &err) && exec_run(graph_main(g), &ins, outs, &err);
    if (!ok)
        printf("# run failed: %s\n", err.message);
    tensor_list_free(&ins);
    return ok;
}

/* ---- tensors ---- */

static char tmpdir[256];

static void test_tensor_round_trip(void)
{
    int64_t lens[2] = {2, 3};
    float v[6] = {1.5f, -2, 3, 4.25f, 0, -7};
    tensor t = {shape_standard(GRAFT_FLOAT, 2, lens), (char *)v};
    char path[512];
    snprintf(path, sizeof path, "%s/t.pb", tmpdir);
    graft_error err = {0};
    CHECK(onnx_write_tensor_file(path, "x", &t, &err));
    tensor back;
    char *name = NULL;
    CHECK(onnx_read_tensor_file(path, &back, &name, &err));
    CHECK_STR(name, "x");
    CHECK_INT(back.sh.type, GRAFT_FLOAT);
    CHECK_INT(back.sh.rank, 2);
    CHECK_INT(back.sh.lens[1], 3);
    for (int i = 0; i < 6; i++)
        CHECK_NEAR(((float *)back.data)[i], v[i], 0);
    free(back.data);
    free(name);
    /* a transposed view is written in its logical (row-major) order */
    int64_t tl[2] = {3, 2}, ts[2] = {1, 3};
    tensor tr = {shape_with_strides(GRAFT_FLOAT, 2, tl, ts), (char *)v};
    CHECK(onnx_write_tensor_file(path, "t", &tr, &err));
    CHECK(onnx_read_tensor_file(path, &back, NULL, &err));
    CHECK_NEAR(((float *)back.data)[1], v[3], 0);
    CHECK_NEAR(((float *)back.data)[2], v[1], 0);
    free(back.data);
}

static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(p, 1, n, f);
        fclose(f);
    }
}

static void test_tensor_typed_fields(void)
{
    /* int8 values travel in int32_data */
    Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
    int64_t dims[1] = {3};
    int32_t vals[3] = {-5, 7, 127};
    tp.n_dims = 1;
    tp.dims = dims;
    tp.has_data_type = true;
    tp.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
    tp.n_int32_data = 3;
    tp.int32_data = vals;
    size_t len = onnx__tensor_proto__get_packed_size(&tp);
    unsigned char *buf = malloc(len);
    onnx__tensor_proto__pack(&tp, buf);
    char path[512];
    snprintf(path, sizeof path, "%s/i8.pb", tmpdir);
    write_bytes(path, buf, len);
    free(buf);
    tensor t;
    graft_error err = {0};
    CHECK(onnx_read_tensor_file(path, &t, NULL, &err));
    CHECK_INT(t.sh.type, GRAFT_INT8);
    CHECK_INT(((int8_t *)t.data)[0], -5);
    CHECK_INT(((int8_t *)t.data)[2], 127);
    free(t.data);
    /* a count that disagrees with dims is an error, not a read past the end */
    dims[0] = 4;
    len = onnx__tensor_proto__get_packed_size(&tp);
    buf = malloc(len);
    onnx__tensor_proto__pack(&tp, buf);
    write_bytes(path, buf, len);
    free(buf);
    CHECK(!onnx_read_tensor_file(path, &t, NULL, &err));
    CHECK_CONTAINS(err.message, "dims need 4");
    /* garbage */
    write_bytes(path, "\xff\xff\xff\xff", 4);
    CHECK(!onnx_read_tensor_file(path, &t, NULL, &err));
    CHECK_CONTAINS(err.message, "not a valid ONNX TensorProto");
}

/* ---- models ---- */

static void test_conv_relu(void)
{
    model_builder b;
    builder_init(&b, 13);
    int64_t xl[4] = {1, 1, 3, 3}, wl[4] = {1, 1, 2, 2}, bl[1] = {1};
    float w[4] = {1, 1, 1, 1}, bias[1] = {-13};
    add_input(&b, "x", 4, xl);
    add_float_init(&b, "w", 4, wl, w, 4);
    add_float_init(&b, "b", 1, bl, bias, 1);
    add_node(&b, "Conv", "conv", "x", "w", "b", "c");
    int64_t ks[2] = {2, 2};
    set_attr_ints(&b, "kernel_shape", ks, 2);
    add_node(&b, "Relu", "relu", "c", NULL, NULL, "y");
    add_output(&b, "y");
    graft_error err = {0};
    graph *g = import_model(&b, "conv_relu", &err);
    CHECK(g != NULL);
    if (!g) {
        printf("# %s\n", err.message);
        return;
    }
    float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    tensor_list outs = {0};
    CHECK(run_one(g, "x", 4, xl, x, &outs));
    if (outs.n == 1) {
        const float *y = (const float *)outs.items[0].t.data;
        CHECK_INT(outs.items[0].t.sh.lens[3], 2);
        /* window sums 12, 16, 24, 28 minus 13, then relu */
        CHECK_NEAR(y[0], 0, 1e-6);
        CHECK_NEAR(y[1], 3, 1e-6);
        CHECK_NEAR(y[2], 11, 1e-6);
        CHECK_NEAR(y[3], 15, 1e-6);
    }
    tensor_list_free(&outs);
    graph_free(g);
}

static void test_gemm(void)
{
    model_builder b;
    builder_init(&b, 13);
    int64_t al[2] = {2, 3}, bl[2] = {2, 3}, cl[1] = {2};
    float bm[6] = {1, 0, 2, -1, 3, 1}, cv[2] = {10, 20};
    add_input(&b, "a", 2, al);
    add_float_init(&b, "B", 2, bl, bm, 6);
    add_float_init(&b, "C", 1, cl, cv, 2);
    add_node(&b, "Gemm", "gemm", "a", "B", "C", "y");
    set_attr_int(&b, "transB", 1);
    set_attr_float(&b, "alpha", 2.0f);
    set_attr_float(&b, "beta", 0.5f);
    add_output(&b, "y");
    graft_error err = {0};
    graph *g = import_model(&b, "gemm", &err);
    CHECK(g != NULL);
    if (!g) {
        printf("# %s\n", err.message);
        return;
    }
    float a[6] = {1, 2, 3, 4, 5, 6};
    tensor_list outs = {0};
    CHECK(run_one(g, "a", 2, al, a, &outs));
    if (outs.n == 1) {
        const float *y = (const float *)outs.items[0].t.data;
        /* y[i][j] = 2 * sum_k a[i][k] * B[j][k] + 0.5 * C[j] */
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                double s = 0;
                for (int k = 0; k < 3; k++)
                    s += a[i * 3 + k] * bm[j * 3 + k];
                CHECK_NEAR(y[i * 2 + j], 2 * s + 0.5 * cv[j], 1e-5);
            }
    }
    tensor_list_free(&outs);
    graph_free(g);
}

static void test_broadcast_add(void)
{
    model_builder b;
    builder_init(&b, 13);
    int64_t xl[2] = {2, 3}, vl[1] = {3};
    float v[3] = {10, 20, 30};
    add_input(&b, "x", 2, xl);
    add_float_init(&b, "v", 1, vl, v, 3);
    add_node(&b, "Add", "add", "x", "v", NULL, "y");
    add_output(&b, "y");
    graft_error err = {0};
    graph *g = import_model(&b, "broadcast_add", &err);
    CHECK(g != NULL);
    if (!g)
        return;
    bool saw_broadcast = false;
    for (ins *i = graph_main(g)->first; i; i = i->next)
        saw_broadcast = saw_broadcast || ins_is(i, "multibroadcast");
    CHECK(saw_broadcast);
    float x[6] = {1, 2, 3, 4, 5, 6};
    tensor_list outs = {0};
    CHECK(run_one(g, "x", 2, xl, x, &outs));
    if (outs.n == 1) {
        const float *y = (const float *)outs.items[0].t.data;
        for (int i = 0; i < 6; i++)
            CHECK_NEAR(y[i], x[i] + v[i % 3], 1e-6);
    }
    tensor_list_free(&outs);
    graph_free(g);
}

static void test_reshape_zero_and_minus_one(void)
{
    model_builder b;
    builder_init(&b, 13);
    int64_t xl[3] = {2, 3, 4}, sl[1];
    int64_t target[2] = {0, -1};
    add_input(&b, "x", 3, xl);
    add_int64_init(&b, "shape", sl, target, 2);
    add_node(&b, "Reshape", "reshape", "x", "shape", NULL, "y");
    add_output(&b, "y");
    graft_error err = {0};
    graph *g = import_model(&b, "reshape", &err);
    CHECK(g != NULL);
    if (!g) {
        printf("# %s\n", err.message);
        return;
    }
    ins *ret = module_return(graph_main(g));
    CHECK(ret && ret->nargs == 1);
    if (ret && ret->nargs == 1) {
        CHECK_INT(ret->args[0]->sh.rank, 2);
        CHECK_INT(ret->args[0]->sh.lens[0], 2);
        CHECK_INT(ret->args[0]->sh.lens[1], 12);
    }
    graph_free(g);
    /* a shape that cannot hold the elements is one clear error */
    target[1] = 5;
    g = import_model(&b, "reshape_bad", &err);
    CHECK(g == NULL);
    CHECK_CONTAINS(err.message, "reshape");
    CHECK_CONTAINS(err.message, "24 elements");
}

/* Symbolic dimensions default to 1 and take bound values. */
static void test_symbolic_dims(void)
{
    model_builder b;
    builder_init(&b, 13);
    int64_t xl[2] = {0, 4};
    b.graph.n_input = 1;
    onnx__value_info_proto__init(&b.inputs[0]);
    b.inputs[0].name = "x";
    b.inputs[0].type = tensor_type(&b, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 2, xl, "batch");
    b.input_ptrs[0] = &b.inputs[0];
    add_node(&b, "Relu", "relu", "x", NULL, NULL, "y");
    add_output(&b, "y");
    size_t len;
    unsigned char *bytes = pack_model(&b, &len);
    graft_error err = {0};
    graph *g = onnx_import(bytes, len, "sym.onnx", NULL, &err);
    CHECK(g != NULL);
    if (g) {
        CHECK_INT(graph_main(g)->first->sh.lens[0], 1);
        graph_free(g);
    }
    const char *names[1] = {"batch"};
    int64_t values[1] = {6};
    onnx_options opt = {1, names, values, 0, NULL, NULL, 0, NULL, NULL, 0, NULL};
    g = onnx_import(bytes, len, "sym.onnx", &opt, &err);
    CHECK(g != NULL);
    if (g) {
        CHECK_INT(graph_main(g)->first->sh.lens[0], 6);
        graph_free(g);
    }
    free(bytes);
}

/* Every prefix of a valid model is refused cleanly or imports. */
static void test_truncated_bytes(void)
{
    model_builder b;
    builder_init(&b, 13);
    int64_t xl[4] = {1, 1, 3, 3}, wl[4] = {1, 1, 2, 2};
    float w[4] = {1, 2, 3, 4};
    add_input(&b, "x", 4, xl);
    add_float_init(&b, "w", 4, wl, w, 4);
    add_node(&b, "Conv", "conv", "x", "w", NULL, "y");
    add_output(&b, "y");
    size_t len;
    unsigned char *bytes = pack_model(&b, &len);
    int refused = 0;
    for (size_t n = 0; n < len; n++) {
        unsigned char *copy = malloc(n ? n : 1);
        memcpy(copy, bytes, n);
        graft_error err = {0};
        graph *g = onnx_import(copy, n, "cut.onnx", NULL, &err);
        if (g)
            graph_free(g);
        else {
            refused++;
            CHECK(err.message[0] != 0);
        }
        free(copy);
    }
    CHECK(refused > 0);
    graft_error err = {0};
    graph *g = onnx_import(bytes, len / 2, "cut.onnx", NULL, &err);
    CHECK(g == NULL);
    CHECK_CONTAINS(err.message, "corrupt or truncated");
    CHECK_STR(err.file, "cut.onnx");
    free(bytes);
}

static void test_unsupported_listing(void)
{
    model_builder b;
    builder_init(&b, 13);
    int64_t xl[1] = {4};
    add_input(&b, "x", 1, xl);
    add_node(&b, "Frobnicate", "first_frob", "x", NULL, NULL, "a");
    add_node(&b, "Relu", "relu", "a", NULL, NULL, "b");
    add_node(&b, "Frobnicate", "second_frob", "b", NULL, NULL, "c");
    add_node(&b, "Zap", "zapper", "c", NULL, NULL, "y");
    add_output(&b, "y");
    graft_error err = {0};
    graph *g = import_model(&b, "unsupported", &err);
    CHECK(g == NULL);
    CHECK_CONTAINS(err.message, "unsupported ONNX ops");
    CHECK_CONTAINS(err.message, "Frobnicate x2 (first node 'first_frob')");
    CHECK_CONTAINS(err.message, "Zap x1 (first node 'zapper')");
}

static void test_if_node(void)
{
    model_builder b;
    builder_init(&b, 13);
    int64_t xl[1] = {1};
    add_input(&b, "cond", 1, xl);
    add_node(&b, "If", "branchy", "cond", NULL, NULL, "y");
    Onnx__GraphProto then_branch = ONNX__GRAPH_PROTO__INIT;
    Onnx__AttributeProto *a = add_attr(&b, "then_branch");
    a->has_type = true;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
    a->g = &then_branch;
    add_output(&b, "y");
    graft_error err = {0};
    graph *g = import_model(&b, "if", &err);
    CHECK(g == NULL);
    /* the condition is a graph input: the If becomes an `if` instruction
     * with both branches imported, and this then_branch has no output */
    CHECK_CONTAINS(err.message, "node 'branchy' (If): the subgraph has 0 inputs and 0 "
                                "outputs, expected 0 and 1");
}

static void test_missing_initializer(void)
{
    model_builder b;
    builder_init(&b, 13);
    int64_t xl[1] = {4};
    add_input(&b, "x", 1, xl);
    add_node(&b, "Add", "adder", "x", "nowhere", NULL, "y");
    add_output(&b, "y");
    graft_error err = {0};
    graph *g = import_model(&b, "missing", &err);
    CHECK(g == NULL);
    CHECK_CONTAINS(err.message, "'nowhere' is not defined");
    CHECK_CONTAINS(err.message, "adder");
}

static void test_shape_contradiction(void)
{
    model_builder b;
    builder_init(&b, 13);
    int64_t xl[2] = {2, 3}, vl[1] = {4};
    float v[4] = {1, 2, 3, 4};
    add_input(&b, "x", 2, xl);
    add_float_init(&b, "v", 1, vl, v, 4);
    add_node(&b, "Mul", "mul", "x", "v", NULL, "y");
    add_output(&b, "y");
    graft_error err = {0};
    graph *g = import_model(&b, "contradiction", &err);
    CHECK(g == NULL);
    CHECK_CONTAINS(err.message, "do not broadcast");
    /* an initializer whose data does not fill its dims */
    b.inits[0].n_float_data = 3;
    g = import_model(&b, "short_init", &err);
    CHECK(g == NULL);
    CHECK_CONTAINS(err.message, "float_data holds 3 values, but dims need 4");
}

/* Shape arithmetic on constants folds into literals the next op can read. */
static void test_constant_folding(void)
{
    model_builder b;
    builder_init(&b, 13);
    int64_t xl[3] = {2, 3, 4}, il[1];
    int64_t idx[1] = {0};
    add_input(&b, "x", 3, xl);
    add_int64_init(&b, "zero", il, idx, 1);
    add_node(&b, "Shape", "shape", "x", NULL, NULL, "s");
    add_node(&b, "Gather", "first", "s", "zero", NULL, "n");
    add_node(&b, "Concat", "cat", "n", "minus", NULL, "target");
    set_attr_int(&b, "axis", 0);
    int64_t ml[1];
    int64_t minus[1] = {-1};
    add_int64_init(&b, "minus", ml, minus, 1);
    add_node(&b, "Reshape", "reshape", "x", "target", NULL, "y");
    add_output(&b, "y");
    graft_error err = {0};
    graph *g = import_model(&b, "folding", &err);
    CHECK(g != NULL);
    if (!g) {
        printf("# %s\n", err.message);
        return;
    }
    ins *ret = module_return(graph_main(g));
    CHECK(ret && ret->args[0]->sh.rank == 2 && ret->args[0]->sh.lens[1] == 12);
    graph_free(g);
}

/* Einsum equations on constant operands (the node folds at import, which
 * runs the graph of dots, transposes and sums it becomes); the expected
 * values are worked out by hand with A = [[1, 2], [3, 4]],
 * B = [[5, 6], [7, 8]], u = [1, 2], v = [3, 4, 5]. */
static void test_einsum_equations(void)
{
    static const struct {
        const char *eq;
        int nin;  /* operands: 0 A, 1 B, 2 u, 3 v */
        int in[2];
        int n;
        double want[6];
    } cases[] = {
        {"ij,jk->ik", 2, {0, 1}, 4, {19, 22, 43, 50}},
        {"ij,kj->ik", 2, {0, 1}, 4, {17, 23, 39, 53}},
        {"ii", 1, {0, 0}, 1, {5}},
        {"ii->i", 1, {0, 0}, 2, {1, 4}},
        {"ij,ij->", 2, {0, 1}, 1, {70}},
        {"i,j->ij", 2, {2, 3}, 6, {3, 4, 5, 6, 8, 10}},
        {"ij->", 1, {0, 0}, 1, {10}},
        {"ji", 1, {0, 0}, 4, {1, 3, 2, 4}},
        {"...j,j->...", 2, {0, 2}, 2, {5, 11}},
        {"ij,j", 2, {0, 2}, 2, {5, 11}},
    };
    static float a[4] = {1, 2, 3, 4}, bb[4] = {5, 6, 7, 8}, u[2] = {1, 2}, v[3] = {3, 4, 5};
    static int64_t la[2] = {2, 2}, lb[2] = {2, 2}, lu[1] = {2}, lv[1] = {3};
    static const char *names[4] = {"A", "B", "u", "v"};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        model_builder b;
        builder_init(&b, 13);
        add_float_init(&b, "A", 2, la, a, 4);
        add_float_init(&b, "B", 2, lb, bb, 4);
        add_float_init(&b, "u", 1, lu, u, 2);
        add_float_init(&b, "v", 1, lv, v, 3);
        add_node(&b, "Einsum", "e", names[cases[k].in[0]],
                 cases[k].nin > 1 ? names[cases[k].in[1]] : NULL, NULL, "y");
        Onnx__AttributeProto *eq = add_attr(&b, "equation");
        eq->has_type = true;
        eq->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
        eq->has_s = true;
        eq->s.data = (uint8_t *)cases[k].eq;
        eq->s.len = strlen(cases[k].eq);
        add_output(&b, "y");
        graft_error err = {0};
        graph *g = import_model(&b, "einsum", &err);
        CHECK(g != NULL);
        if (!g) {
            printf("# %s: %s\n", cases[k].eq, err.message);
            continue;
        }
        tensor_list outs = {0};
        tensor_list none = {0};
        CHECK(exec_run(graph_main(g), &none, &outs, &err));
        if (outs.n == 1) {
            const tensor *y = &outs.items[0].t;
            CHECK_INT(shape_elements(&y->sh), cases[k].n);
            for (int i = 0; i < cases[k].n && i < shape_elements(&y->sh); i++)
                CHECK_NEAR(tensor_get_f64(y, i), cases[k].want[i], 1e-6);
        }
        tensor_list_free(&outs);
        graph_free(g);
    }
}

/* QuantizeLinear rounds half to even and saturates: x / 1 + zero point,
 * int8 zero point 0: [0.5, 1.5, 2.5, -300, 300] -> [0, 2, 2, -128, 127];
 * DequantizeLinear of that with zero point 0 and scale 2 doubles it. */
static void test_quantize_linear(void)
{
    model_builder b;
    builder_init(&b, 13);
    static float x[5] = {0.5f, 1.5f, 2.5f, -300, 300}, scale[1] = {1}, scale2[1] = {2};
    static int64_t lx[1] = {5}, ls[1] = {1}, lz[1] = {1};
    static int32_t zp[1] = {0};
    add_float_init(&b, "x", 1, lx, x, 5);
    add_float_init(&b, "s", 1, ls, scale, 1);
    add_float_init(&b, "s2", 1, ls, scale2, 1);
    size_t i = b.graph.n_initializer++;
    Onnx__TensorProto *t = &b.inits[i];
    onnx__tensor_proto__init(t);
    t->name = "zp";
    t->n_dims = 1;
    t->dims = lz;
    t->has_data_type = true;
    t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
    t->n_int32_data = 1;
    t->int32_data = zp;
    b.init_ptrs[i] = t;
    add_node(&b, "QuantizeLinear", "q", "x", "s", "zp", "y");
    add_node(&b, "DequantizeLinear", "d", "y", "s2", "zp", "z");
    add_output(&b, "y");
    add_output(&b, "z");
    graft_error err = {0};
    graph *g = import_model(&b, "quantize", &err);
    CHECK(g != NULL);
    if (!g) {
        printf("# %s\n", err.message);
        return;
    }
    tensor_list outs = {0}, none = {0};
    CHECK(exec_run(graph_main(g), &none, &outs, &err));
    const double want[5] = {0, 2, 2, -128, 127};
    if (outs.n == 2) {
        CHECK_INT(outs.items[0].t.sh.type, GRAFT_INT8);
        CHECK_INT(outs.items[1].t.sh.type, GRAFT_FLOAT);
        for (int k = 0; k < 5; k++) {
            CHECK_NEAR(tensor_get_f64(&outs.items[0].t, k), want[k], 0);
            CHECK_NEAR(tensor_get_f64(&outs.items[1].t, k), 2 * want[k], 0);
        }
    }
    tensor_list_free(&outs);
    graph_free(g);
}

/* A bidirectional RNN with Relu, W = R = 1 (h = relu(x + h)) and sequence
 * lengths [3, 2] over x = [[1, 1], [2, 1], [3, 1]] (time, batch):
 * forward b0 1, 3, 6; b1 1, 2, then held (Y 0); reverse b0 reads 3, 2, 1
 * (Y at t = 2, 1, 0: 3, 5, 6); b1 reads its two steps backwards (Y at
 * t = 1, 0: 1, 2; t = 2: 0). Y is [time, direction, batch, 1]. */
static void test_rnn_bidirectional_lengths(void)
{
    model_builder b;
    builder_init(&b, 14);
    static float x[6] = {1, 1, 2, 1, 3, 1}, w[2] = {1, 1}, r[2] = {1, 1};
    static int64_t lx[3] = {3, 2, 1}, lw[3] = {2, 1, 1}, lr[3] = {2, 1, 1}, ll[1];
    static int64_t lens[2] = {3, 2};
    add_float_init(&b, "X", 3, lx, x, 6);
    add_float_init(&b, "W", 3, lw, w, 2);
    add_float_init(&b, "R", 3, lr, r, 2);
    add_int64_init(&b, "L", ll, lens, 2);
    Onnx__NodeProto *n = add_node(&b, "RNN", "rnn", "X", "W", "R", "Y");
    static char *inputs[5] = {"X", "W", "R", "", "L"};
    n->input = inputs;
    n->n_input = 5;
    static char *outputs[2] = {"Y", "Yh"};
    n->output = outputs;
    n->n_output = 2;
    set_attr_int(&b, "hidden_size", 1);
    Onnx__AttributeProto *dir = add_attr(&b, "direction");
    dir->has_type = true;
    dir->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    dir->has_s = true;
    dir->s.data = (uint8_t *)"bidirectional";
    dir->s.len = strlen("bidirectional");
    Onnx__AttributeProto *act = add_attr(&b, "activations");
    static ProtobufCBinaryData relu[2] = {{4, (uint8_t *)"Relu"}, {4, (uint8_t *)"Relu"}};
    act->has_type = true;
    act->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
    act->n_strings = 2;
    act->strings = relu;
    add_output(&b, "Y");
    add_output(&b, "Yh");
    graft_error err = {0};
    graph *g = import_model(&b, "rnn", &err);
    CHECK(g != NULL);
    if (!g) {
        printf("# %s\n", err.message);
        return;
    }
    tensor_list outs = {0}, none = {0};
    CHECK(exec_run(graph_main(g), &none, &outs, &err));
    const double want_y[12] = {1, 1, 6, 2, 3, 2, 5, 1, 6, 0, 3, 0}, want_h[4] = {6, 2, 6, 2};
    if (outs.n == 2) {
        CHECK_INT(shape_elements(&outs.items[0].t.sh), 12);
        CHECK_INT(shape_elements(&outs.items[1].t.sh), 4);
        for (int k = 0; k < 12; k++)
            CHECK_NEAR(tensor_get_f64(&outs.items[0].t, k), want_y[k], 0);
        for (int k = 0; k < 4; k++)
            CHECK_NEAR(tensor_get_f64(&outs.items[1].t, k), want_h[k], 0);
    }
    tensor_list_free(&outs);
    graph_free(g);
}

static void test_external_data(void)
{
    model_builder b;
    builder_init(&b, 13);
    int64_t xl[1] = {3}, vl[1] = {3};
    float v[3] = {1, 2, 4};
    char path[512];
    snprintf(path, sizeof path, "%s/weights.bin", tmpdir);
    char blob[16] = {0};
    memcpy(blob + 4, v, sizeof v);
    write_bytes(path, blob, sizeof blob);
    add_input(&b, "x", 1, xl);
    Onnx__TensorProto *t = add_float_init(&b, "v", 1, vl, NULL, 0);
    Onnx__StringStringEntryProto kv[3] = {ONNX__STRING_STRING_ENTRY_PROTO__INIT,
                                         ONNX__STRING_STRING_ENTRY_PROTO__INIT,
                                         ONNX__STRING_STRING_ENTRY_PROTO__INIT};
    kv[0].key = "location";
    kv[0].value = "weights.bin";
    kv[1].key = "offset";
    kv[1].value = "4";
    kv[2].key = "length";
    kv[2].value = "12";
    Onnx__StringStringEntryProto *kvp[3] = {&kv[0], &kv[1], &kv[2]};
    t->n_external_data = 3;
    t->external_data = kvp;
    t->has_data_location = true;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    add_node(&b, "Mul", "mul", "x", "v", NULL, "y");
    add_output(&b, "y");
    size_t len;
    unsigned char *bytes = pack_model(&b, &len);
    snprintf(path, sizeof path, "%s/model.onnx", tmpdir);
    write_bytes(path, bytes, len);
    free(bytes);
    graft_error err = {0};
    graph *g = onnx_import_file(path, NULL, &err);
    CHECK(g != NULL);
    if (!g) {
        printf("# %s\n", err.message);
        return;
    }
    float x[3] = {1, 1, 2};
    tensor_list outs = {0};
    CHECK(run_one(g, "x", 1, xl, x, &outs));
    if (outs.n == 1) {
        const float *y = (const float *)outs.items[0].t.data;
        CHECK_NEAR(y[0], 1, 0);
        CHECK_NEAR(y[1], 2, 0);
        CHECK_NEAR(y[2], 8, 0);
    }
    tensor_list_free(&outs);
    graph_free(g);
    /* a location outside the model's directory is refused */
    kv[0].value = "../weights.bin";
    bytes = pack_model(&b, &len);
    g = onnx_import(bytes, len, path, NULL, &err);
    free(bytes);
    CHECK(g == NULL);
    CHECK_CONTAINS(err.message, "leaves the model's directory");
}

/* Softmax before opset 13 flattens to 2-D at axis. */
/* A model at dir/model.onnx whose initializer v [count] lives in external
 * data at `location` (count floats at offset 4). */
static bool write_external_model(const char *dir, const char *location, int64_t count)
{
    model_builder b;
    builder_init(&b, 13);
    int64_t xl[1] = {3}, vl[1] = {count};
    static char length[32];
    snprintf(length, sizeof length, "%lld", (long long)count * 4);
    add_input(&b, "x", 1, xl);
    Onnx__TensorProto *t = add_float_init(&b, "v", 1, vl, NULL, 0);
    static Onnx__StringStringEntryProto kv[3] = {ONNX__STRING_STRING_ENTRY_PROTO__INIT,
                                                ONNX__STRING_STRING_ENTRY_PROTO__INIT,
                                                ONNX__STRING_STRING_ENTRY_PROTO__INIT};
    static Onnx__StringStringEntryProto *kvp[3] = {&kv[0], &kv[1], &kv[2]};
    kv[0].key = "location";
    kv[0].value = (char *)location;
    kv[1].key = "offset";
    kv[1].value = "4";
    kv[2].key = "length";
    kv[2].value = length;
    t->n_external_data = 3;
    t->external_data = kvp;
    t->has_data_location = true;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    add_node(&b, "Mul", "mul", "x", "v", NULL, "y");
    add_output(&b, "y");
    size_t len;
    unsigned char *bytes = pack_model(&b, &len);
    char path[600];
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    write_bytes(path, bytes, len);
    free(bytes);
    return true;
}

/* External data reached through a symbolic link: inside the model's
 * directory it is read; pointing outside (to a file, or through a linked
 * directory) it is refused with the tensor's name and where it leads; a
 * FIFO is refused without hanging. */
static void test_external_data_symlink(void)
{
    char dir[600], path[700], target[700], cmd[2000];
    snprintf(dir, sizeof dir, "%s/linked_model", tmpdir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/sub' '%s/outside'", dir, tmpdir);
    CHECK(system(cmd) == 0);
    char blob[16] = {0};
    float v[3] = {1, 2, 4};
    memcpy(blob + 4, v, sizeof v);
    snprintf(target, sizeof target, "%s/outside/secret.bin", tmpdir);
    write_bytes(target, blob, sizeof blob);
    snprintf(path, sizeof path, "%s/sub/inside.bin", dir);
    write_bytes(path, blob, sizeof blob);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && ln -sf '%s' escape.bin && ln -sf sub/inside.bin ok.bin && "
             "ln -sfn '%s/outside' linkdir && rm -f fifo.bin && mkfifo fifo.bin",
             dir, target, tmpdir);
    CHECK(system(cmd) == 0);
    snprintf(path, sizeof path, "%s/model.onnx", dir);

    graft_error err = {0};
    write_external_model(dir, "ok.bin", 3);
    graph *g = onnx_import_file(path, NULL, &err);
    CHECK(g != NULL);
    if (!g)
        printf("# %s\n", err.message);
    graph_free(g);

    write_external_model(dir, "escape.bin", 3);
    CHECK(onnx_import_file(path, NULL, &err) == NULL);
    CHECK_CONTAINS(err.message, "tensor 'v': external data location 'escape.bin' resolves to ");
    CHECK_CONTAINS(err.message, "/outside/secret.bin, outside the model's directory ");
    CHECK_CONTAINS(err.message, "/linked_model");

    write_external_model(dir, "linkdir/secret.bin", 3);
    CHECK(onnx_import_file(path, NULL, &err) == NULL);
    CHECK_CONTAINS(err.message, "tensor 'v': external data location 'linkdir/secret.bin' resolves to ");

    write_external_model(dir, "fifo.bin", 3);
    CHECK(onnx_import_file(path, NULL, &err) == NULL);
    CHECK_CONTAINS(err.message, "is not a regular file");
}

/* External data that dims say is 16 GB, in a file of 16 bytes: refused by
 * the file's size, before anything is allocated for it (the fuzz target
 * met such a tensor file, tests/fuzz/regress_onnx/external_dims_16gb.crash). */
static void test_external_data_larger_than_file(void)
{
    char dir[600], path[700];
    snprintf(dir, sizeof dir, "%s/big_model", tmpdir);
    CHECK(mkdir(dir, 0700) == 0 || errno == EEXIST);
    snprintf(path, sizeof path, "%s/small.bin", dir);
    char blob[16] = {0};
    write_bytes(path, blob, sizeof blob);
    write_external_model(dir, "small.bin", (int64_t)1 << 32);
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    graft_error err = {0};
    CHECK(onnx_import_file(path, NULL, &err) == NULL);
    CHECK_CONTAINS(err.message, "tensor 'v': external data ");
    CHECK_CONTAINS(err.message, "small.bin holds 16 bytes, fewer than offset 4 + 17179869184");
}

static void test_softmax_old_opset(void)
{
    model_builder b;
    builder_init(&b, 11);
    int64_t xl[3] = {1, 2, 2};
    add_input(&b, "x", 3, xl);
    add_node(&b, "Softmax", "sm", "x", NULL, NULL, "y");
    add_output(&b, "y");
    graft_error err = {0};
    graph *g = import_model(&b, "softmax11", &err);
    CHECK(g != NULL);
    if (!g)
        return;
    float x[4] = {0, 0, 0, 0};
    tensor_list outs = {0};
    CHECK(run_one(g, "x", 3, xl, x, &outs));
    if (outs.n == 1) /* all four share one softmax: 0.25 each */
        CHECK_NEAR(((const float *)outs.items[0].t.data)[3], 0.25, 1e-6);
    tensor_list_free(&outs);
    graph_free(g);
}

/* ---- op coverage ---- */

static void test_op_coverage(void)
{
    model_builder b;
    builder_init(&b, 13);
    int64_t xl[1] = {4};
    add_input(&b, "x", 1, xl);
    add_node(&b, "Frobnicate", "first_frob", "x", NULL, NULL, "a");
    add_node(&b, "Relu", "relu", "a", NULL, NULL, "b");
    add_node(&b, "Frobnicate", "", "b", NULL, NULL, "c");
    add_node(&b, "Conv", NULL, "c", "c", NULL, "d");
    add_node(&b, "Relu", "relu2", "d", NULL, NULL, "y");
    b.nodes[4].domain = "com.example";
    add_output(&b, "y");
    size_t len;
    unsigned char *bytes = pack_model(&b, &len);
    onnx_coverage c;
    graft_error err = {0};
    CHECK(onnx_op_coverage(bytes, len, "cov.onnx", &c, &err));
    CHECK_INT(c.nnodes, 5);
    CHECK_INT(c.nops, 4);
    CHECK_INT(c.nunsupported, 3);
    CHECK_INT(c.opset, 13);
    if (c.nops == 4) {
        CHECK_STR(c.ops[0].op_type, "Frobnicate");
        CHECK_INT(c.ops[0].count, 2);
        CHECK(!c.ops[0].supported);
        CHECK_STR(c.ops[0].why, "no importer");
        CHECK_STR(c.ops[0].first_node, "first_frob");
        CHECK_STR(c.ops[1].op_type, "Relu");
        CHECK_INT(c.ops[1].count, 1);
        CHECK(c.ops[1].supported);
        CHECK_STR(c.ops[1].graft_ops, "relu");
        CHECK_STR(c.ops[2].op_type, "Conv");
        CHECK(c.ops[2].supported);
        CHECK_STR(c.ops[2].graft_op, "convolution");
        CHECK_CONTAINS(c.ops[2].graft_ops, "convolution, add");
        CHECK_STR(c.ops[2].first_node, "#3");
        CHECK_STR(c.ops[3].op_type, "com.example.Relu");
        CHECK(!c.ops[3].supported);
        CHECK_CONTAINS(c.ops[3].why, "domain");
    }
    onnx_coverage_free(&c);
    CHECK_INT(c.nops, 0);
    /* Not a model: one clear error naming the file. */
    CHECK(!onnx_op_coverage(bytes, len / 2, "cut.onnx", &c, &err));
    CHECK_CONTAINS(err.message, "corrupt or truncated");
    CHECK_STR(err.file, "cut.onnx");
    free(bytes);
}

/* ---- models for the shell tests (--write-model) ---- */

/* Inputs x [batch, 4] and z [n, 4] (both dimension names symbolic); outputs
 * y = relu(x) and w = abs(z). */
static void build_symbolic(model_builder *b)
{
    builder_init(b, 13);
    int64_t lens[2] = {0, 4};
    b->graph.n_input = 2;
    const char *names[2] = {"x", "z"}, *dims[2] = {"batch", "n"};
    for (int k = 0; k < 2; k++) {
        onnx__value_info_proto__init(&b->inputs[k]);
        b->inputs[k].name = (char *)names[k];
        b->inputs[k].type =
            tensor_type(b, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 2, lens, dims[k]);
        b->input_ptrs[k] = &b->inputs[k];
    }
    add_node(b, "Relu", "relu", "x", NULL, NULL, "y");
    add_node(b, "Abs", "abs", "z", NULL, NULL, "w");
    add_output(b, "y");
    add_output(b, "w");
}

static bool write_packed(model_builder *b, const char *path)
{
    size_t len;
    unsigned char *bytes = pack_model(b, &len);
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(bytes, 1, len, f) == len;
    if (f)
        ok = fclose(f) == 0 && ok;
    free(bytes);
    return ok;
}

/* A backend-test directory for the symbolic model: batch 3 and n 2 in the
 * data set, outputs worked out here. */
static bool write_symbolic_test(const char *dir)
{
    model_builder b;
    build_symbolic(&b);
    char path[1024];
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    if (mkdir(dir, 0777) != 0 || !write_packed(&b, path))
        return false;
    snprintf(path, sizeof path, "%s/test_data_set_0", dir);
    if (mkdir(path, 0777) != 0)
        return false;
    float x[12], y[12], z[8], w[8];
    for (int i = 0; i < 12; i++) {
        x[i] = (float)(i - 6) * 0.5f;
        y[i] = x[i] > 0 ? x[i] : 0;
    }
    for (int i = 0; i < 8; i++) {
        z[i] = (float)(3 - i) * 0.25f;
        w[i] = z[i] < 0 ? -z[i] : z[i];
    }
    int64_t xl[2] = {3, 4}, zl[2] = {2, 4};
    const char *files[4] = {"input_0", "input_1", "output_0", "output_1"};
    const char *names[4] = {"x", "z", "y", "w"};
    float *data[4] = {x, z, y, w};
    const int64_t *lens[4] = {xl, zl, xl, zl};
    graft_error err = {0};
    for (int k = 0; k < 4; k++) {
        tensor t = {shape_standard(GRAFT_FLOAT, 2, lens[k]), (char *)data[k]};
        snprintf(path, sizeof path, "%s/test_data_set_0/%s.pb", dir, files[k]);
        if (!onnx_write_tensor_file(path, names[k], &t, &err))
            return false;
    }
    return true;
}

/* `--write-model NAME PATH`: symbolic (the model above), symbolic_test (a
 * backend-test directory of it), relu (x [2, 3] through Relu), unsupported
 * (Frobnicate x2, Relu, Zap). */
static int write_model(const char *name, const char *path)
{
    model_builder b;
    bool ok;
    if (strcmp(name, "symbolic") == 0) {
        build_symbolic(&b);
        ok = write_packed(&b, path);
    } else if (strcmp(name, "symbolic_reshape") == 0) {
        /* x [batch, 4] reshaped to [3, 8]: only batch 6 fits */
        builder_init(&b, 13);
        int64_t lens[2] = {0, 4};
        b.graph.n_input = 1;
        onnx__value_info_proto__init(&b.inputs[0]);
        b.inputs[0].name = "x";
        b.inputs[0].type = tensor_type(&b, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 2, lens, "batch");
        b.input_ptrs[0] = &b.inputs[0];
        static int64_t sl[1], target[2] = {3, 8};
        add_int64_init(&b, "target", sl, target, 2);
        add_node(&b, "Reshape", "reshape", "x", "target", NULL, "y");
        add_output(&b, "y");
        ok = write_packed(&b, path);
    } else if (strcmp(name, "symbolic_test") == 0) {
        ok = write_symbolic_test(path);
    } else if (strcmp(name, "relu") == 0) {
        builder_init(&b, 13);
        int64_t xl[2] = {2, 3};
        add_input(&b, "x", 2, xl);
        add_node(&b, "Relu", "relu", "x", NULL, NULL, "y");
        add_output(&b, "y");
        ok = write_packed(&b, path);
    } else if (strcmp(name, "unsupported") == 0) {
        builder_init(&b, 13);
        int64_t xl[1] = {4};
        add_input(&b, "x", 1, xl);
        add_node(&b, "Frobnicate", "first_frob", "x", NULL, NULL, "a");
        add_node(&b, "Relu", "relu", "a", NULL, NULL, "b");
        add_node(&b, "Frobnicate", "second_frob", "b", NULL, NULL, "c");
        add_node(&b, "Zap", "zapper", "c", NULL, NULL, "y");
        add_output(&b, "y");
        ok = write_packed(&b, path);
    } else {
        fprintf(stderr, "test_onnx: unknown model '%s' (symbolic, symbolic_reshape, "
                        "symbolic_test, relu, unsupported)\n", name);
        return 2;
    }
    if (!ok)
        fprintf(stderr, "test_onnx: cannot write %s\n", path);
    return ok ? 0 : 1;
}

/* ---- fuzz corpus and regressions ---- */

/* The importer fuzz target's contract for one input: as a model it imports
 * (and is verified) or fails with a message, and so does it as a tensor
 * file. Read through the file, as graft does, so that external data beside
 * it would resolve. */
static void check_onnx_input(const char *path, const char *bytes, size_t len)
{
    (void)bytes;
    (void)len;
    graft_error err = {0};
    graph *g = onnx_import_file(path, NULL, &err);
    if (g) {
        graph_verify(g, &err);
        graph_free(g);
    } else {
        CHECK(err.message[0] != 0);
    }
    /* the same bytes as a tensor file, as the fuzz target reads them too */
    tensor t;
    memset(&err, 0, sizeof err);
    if (onnx_read_tensor_file(path, &t, NULL, &err))
        free(t.data);
    else
        CHECK(err.message[0] != 0);
}

static void test_fuzz_corpus_replay(void)
{
    char dir[1024];
    const char *here = __FILE__; /* tests/unit/test_onnx.c */
    const char *cut = strstr(here, "unit/test_onnx.c");
    int prefix = cut ? (int)(cut - here) : 0;
    snprintf(dir, sizeof dir, "%.*sfuzz/corpus_onnx", prefix, here);
    int seeds = corpus_replay(dir, check_onnx_input);
    snprintf(dir, sizeof dir, "%.*sfuzz/regress_onnx", prefix, here);
    int crashers = corpus_replay(dir, check_onnx_input);
    CHECK(seeds > 0);
    CHECK(crashers > 0);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--write-model") == 0)
        return write_model(argv[2], argv[3]);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/graft_test_onnx_XXXXXX");
    if (!mkdtemp(tmpdir))
        return 1;
    if (argc == 3 && strcmp(argv[1], "--write-corpus") == 0)
        corpus_dir = argv[2];
    RUN(test_tensor_round_trip);
    RUN(test_tensor_typed_fields);
    RUN(test_conv_relu);
    RUN(test_gemm);
    RUN(test_broadcast_add);
    RUN(test_reshape_zero_and_minus_one);
    RUN(test_symbolic_dims);
    RUN(test_truncated_bytes);
    RUN(test_unsupported_listing);
    RUN(test_if_node);
    RUN(test_missing_initializer);
    RUN(test_shape_contradiction);
    RUN(test_constant_folding);
    RUN(test_einsum_equations);
    RUN(test_quantize_linear);
    RUN(test_rnn_bidirectional_lengths);
    RUN(test_external_data);
    RUN(test_external_data_symlink);
    RUN(test_external_data_larger_than_file);
    RUN(test_softmax_old_opset);
    RUN(test_op_coverage);
    if (!corpus_dir)
        RUN(test_fuzz_corpus_replay);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", tmpdir);
    return tests_finish();
}
