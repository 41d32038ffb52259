/* bench_onnx_import.c: how fast a large ONNX model comes in.
 *
 * Builds a ~100 MB model with protobuf-c: five 512-channel 3x3 Conv layers
 * with Relu, a Flatten, and six Gemm layers (8192 -> 1024, then 1024 ->
 * 1024), about 25.4 million float weights, every initializer in raw_data as
 * exporters write them. The model is written to a temporary directory and
 * onnx_import_file is timed on it: reading the file, unpacking the protobuf,
 * turning initializers into literals and building and verifying the graph.
 * The best of three runs is reported against the 1 s target as a ratio (below
 * 1.0x meets it), with the import's share of the peak resident memory. Not a
 * test: nothing here fails on a slow machine.
 */
#include "ir.h"
#include "onnx.h"
#include "onnx.pb-c.h"

#include "../tests/unit/onnx_model_head.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const double TARGET_SECONDS = 1.0;

enum {
    CONV_LAYERS = 5,
    CHANNELS = 512,
    SPATIAL = 4,
    GEMM_LAYERS = 6,
    HIDDEN = 1024,
    MAX_NODES = 2 * CONV_LAYERS + 1 + 2 * GEMM_LAYERS,
    MAX_INITS = 2 * CONV_LAYERS + 2 * GEMM_LAYERS,
};

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The model under construction: protobuf-c structs pointing at storage kept
 * here until the model is packed. */
typedef struct big_model {
    Onnx__ModelProto model;
    Onnx__GraphProto graph;
    Onnx__OperatorSetIdProto opset, *opsets[1];
    Onnx__NodeProto nodes[MAX_NODES], *node_ptrs[MAX_NODES];
    char names[MAX_NODES][3][32];
    char *inputs[MAX_NODES][3], *outputs[MAX_NODES][1];
    Onnx__AttributeProto attrs[MAX_NODES], *attr_ptrs[MAX_NODES];
    int64_t ints[MAX_NODES][4];
    Onnx__TensorProto inits[MAX_INITS], *init_ptrs[MAX_INITS];
    int64_t init_dims[MAX_INITS][4];
    char init_names[MAX_INITS][32];
    Onnx__ValueInfoProto input, output, *input_ptrs[1], *output_ptrs[1];
    Onnx__TypeProto input_type, output_type;
    Onnx__TypeProto__Tensor input_tensor, output_tensor;
    Onnx__TensorShapeProto input_shape;
    Onnx__TensorShapeProto__Dimension input_dims[4], *input_dim_ptrs[4];
    size_t weights; /* float values in all initializers */
} big_model;

/* A float initializer of rank dims, filled with small values, in raw_data. */
static const char *add_weights(big_model *b, const char *name, int rank, const int64_t *dims)
{
    size_t i = b->graph.n_initializer++;
    Onnx__TensorProto *t = &b->inits[i];
    onnx__tensor_proto__init(t);
    snprintf(b->init_names[i], sizeof b->init_names[i], "%s", name);
    t->name = b->init_names[i];
    size_t n = 1;
    for (int k = 0; k < rank; k++) {
        b->init_dims[i][k] = dims[k];
        n *= (size_t)dims[k];
    }
    t->n_dims = (size_t)rank;
    t->dims = b->init_dims[i];
    t->has_data_type = true;
    t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    float *v = malloc(n * sizeof *v);
    if (!v)
        return NULL;
    for (size_t k = 0; k < n; k++)
        v[k] = (float)((k * 2654435761u) % 1000) * 1e-6f - 5e-4f;
    t->has_raw_data = true;
    t->raw_data.len = n * sizeof *v;
    t->raw_data.data = (uint8_t *)v;
    b->init_ptrs[i] = t;
    b->weights += n;
    return t->name;
}

static Onnx__NodeProto *add_node(big_model *b, const char *op, const char *in0, const char *in1,
                                 const char *in2, const char *out)
{
    size_t i = b->graph.n_node++;
    Onnx__NodeProto *n = &b->nodes[i];
    onnx__node_proto__init(n);
    n->op_type = (char *)op;
    const char *ins[3] = {in0, in1, in2};
    for (int k = 0; k < 3 && ins[k]; k++) {
        snprintf(b->names[i][k], sizeof b->names[i][k], "%s", ins[k]);
        b->inputs[i][k] = b->names[i][k];
        n->n_input++;
    }
    n->input = b->inputs[i];
    b->outputs[i][0] = (char *)out;
    n->n_output = 1;
    n->output = b->outputs[i];
    b->node_ptrs[i] = n;
    return n;
}

static void set_ints(big_model *b, Onnx__NodeProto *n, const char *name, const int64_t *v, int k)
{
    size_t i = b->graph.n_node - 1;
    Onnx__AttributeProto *a = &b->attrs[i];
    onnx__attribute_proto__init(a);
    a->name = (char *)name;
    a->has_type = true;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    memcpy(b->ints[i], v, (size_t)k * sizeof *v);
    a->n_ints = (size_t)k;
    a->ints = b->ints[i];
    b->attr_ptrs[i] = a;
    n->n_attribute = 1;
    n->attribute = &b->attr_ptrs[i];
}

static bool build(big_model *b)
{
    memset(b, 0, sizeof *b);
    onnx_model_head_init(&b->model, &b->graph, &b->opset, b->opsets, 13);
    b->graph.name = "bench";
    b->graph.node = b->node_ptrs;
    b->graph.initializer = b->init_ptrs;

    /* x: [1, CHANNELS, SPATIAL, SPATIAL] */
    onnx__value_info_proto__init(&b->input);
    onnx__type_proto__init(&b->input_type);
    onnx__type_proto__tensor__init(&b->input_tensor);
    onnx__tensor_shape_proto__init(&b->input_shape);
    int64_t xl[4] = {1, CHANNELS, SPATIAL, SPATIAL};
    for (int k = 0; k < 4; k++) {
        onnx__tensor_shape_proto__dimension__init(&b->input_dims[k]);
        b->input_dims[k].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        b->input_dims[k].dim_value = xl[k];
        b->input_dim_ptrs[k] = &b->input_dims[k];
    }
    b->input_shape.n_dim = 4;
    b->input_shape.dim = b->input_dim_ptrs;
    b->input_tensor.has_elem_type = true;
    b->input_tensor.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    b->input_tensor.shape = &b->input_shape;
    b->input_type.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    b->input_type.tensor_type = &b->input_tensor;
    b->input.name = "x";
    b->input.type = &b->input_type;
    b->input_ptrs[0] = &b->input;
    b->graph.n_input = 1;
    b->graph.input = b->input_ptrs;

    static char values[MAX_NODES][32];
    int v = 0;
    const char *prev = "x";
    char wname[32], bname[32];
    int64_t wl[4] = {CHANNELS, CHANNELS, 3, 3}, bl[1] = {CHANNELS};
    int64_t pads[4] = {1, 1, 1, 1};
    for (int layer = 0; layer < CONV_LAYERS; layer++) {
        snprintf(wname, sizeof wname, "conv%d.w", layer);
        snprintf(bname, sizeof bname, "conv%d.b", layer);
        const char *w = add_weights(b, wname, 4, wl), *bias = add_weights(b, bname, 1, bl);
        if (!w || !bias)
            return false;
        snprintf(values[v], sizeof values[v], "conv%d", layer);
        Onnx__NodeProto *n = add_node(b, "Conv", prev, w, bias, values[v]);
        set_ints(b, n, "pads", pads, 4);
        prev = values[v++];
        snprintf(values[v], sizeof values[v], "relu%d", layer);
        add_node(b, "Relu", prev, NULL, NULL, values[v]);
        prev = values[v++];
    }
    snprintf(values[v], sizeof values[v], "flat");
    add_node(b, "Flatten", prev, NULL, NULL, values[v]);
    prev = values[v++];
    int64_t in = (int64_t)CHANNELS * SPATIAL * SPATIAL;
    for (int layer = 0; layer < GEMM_LAYERS; layer++) {
        int64_t gl[2] = {in, HIDDEN}, gbl[1] = {HIDDEN};
        snprintf(wname, sizeof wname, "fc%d.w", layer);
        snprintf(bname, sizeof bname, "fc%d.b", layer);
        const char *w = add_weights(b, wname, 2, gl), *bias = add_weights(b, bname, 1, gbl);
        if (!w || !bias)
            return false;
        snprintf(values[v], sizeof values[v], "fc%d", layer);
        add_node(b, "Gemm", prev, w, bias, values[v]);
        prev = values[v++];
        snprintf(values[v], sizeof values[v], "fc_relu%d", layer);
        add_node(b, "Relu", prev, NULL, NULL, values[v]);
        prev = values[v++];
        in = HIDDEN;
    }
    onnx__value_info_proto__init(&b->output);
    b->output.name = (char *)prev;
    b->output_ptrs[0] = &b->output;
    b->graph.n_output = 1;
    b->graph.output = b->output_ptrs;
    return true;
}

static void free_weights(big_model *b)
{
    for (size_t i = 0; i < b->graph.n_initializer; i++)
        free(b->inits[i].raw_data.data);
}

/* Packs the model and writes it to path; returns its size, 0 on failure. */
static size_t write_model(big_model *b, const char *path)
{
    size_t len = onnx__model_proto__get_packed_size(&b->model);
    uint8_t *bytes = malloc(len);
    if (!bytes)
        return 0;
    onnx__model_proto__pack(&b->model, bytes);
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(bytes, 1, len, f) == len;
    if (f)
        ok = fclose(f) == 0 && ok;
    free(bytes);
    return ok ? len : 0;
}

int main(void)
{
    char dir[] = "/tmp/graft_bench_onnx_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("bench_onnx_import: mkdtemp");
        return 1;
    }
    char path[64];
    snprintf(path, sizeof path, "%s/big.onnx", dir);
    big_model *b = malloc(sizeof *b);
    size_t len = 0;
    if (b && build(b))
        len = write_model(b, path);
    size_t weights = b ? b->weights : 0;
    if (b)
        free_weights(b);
    free(b);
    if (len == 0) {
        fprintf(stderr, "bench_onnx_import: cannot build or write %s\n", path);
        rmdir(dir);
        return 1;
    }
    double best = 1e9;
    size_t count = 0;
    int status = 0;
    for (int run = 0; run < 3; run++) {
        graft_error err = {0};
        double start = seconds_now();
        graph *g = onnx_import_file(path, NULL, &err);
        double took = seconds_now() - start;
        if (!g) {
            fprintf(stderr, "bench_onnx_import: %s\n", err.message);
            status = 1;
            break;
        }
        count = graph_count(g);
        graph_free(g);
        if (took < best)
            best = took;
    }
    unlink(path);
    rmdir(dir);
    if (status)
        return status;
    printf("onnx import: %.0f MB (%.1fM float weights in raw_data, %zu instructions) in %.2f s "
           "(%.2fx of the %.0f s target; best of 3)\n",
           (double)len / 1e6, (double)weights / 1e6, count, best, best / TARGET_SECONDS,
           TARGET_SECONDS);
    return 0;
}
