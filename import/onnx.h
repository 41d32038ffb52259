/* onnx.h: ONNX models and tensors in.
 *
 * The protobuf-c code is generated at build time from Debian's
 * /usr/include/onnx/onnx.proto into build/; none of it is committed.
 */
#ifndef GRAFT_ONNX_H
#define GRAFT_ONNX_H

#include "exec.h"
#include "ir.h"

/* Reads a TensorProto file (.pb, as in ONNX backend tests) into t; t->data is
 * malloc'd, standard layout. The tensor's name (may be empty) goes to *name
 * (malloc'd) when name is not NULL. */
bool onnx_read_tensor_file(const char *path, tensor *t, char **name, graft_error *err);
/* Writes t as a TensorProto named name, atomically. */
bool onnx_write_tensor_file(const char *path, const char *name, const tensor *t, graft_error *err);

/* Options for import: symbolic dimensions bound by name (default 1), and
 * graph inputs bound to constant values (they become @literals, not @params:
 * shape, axes or pads inputs that graft's static shapes need at import).
 * Known values are weaker: those inputs stay @params, and a value is used
 * only where an op needs that operand as a constant (Resize's scales, say),
 * so the rest of the graph still reads the parameter. */
/* A whole input shape given by name (`--input-dim NAME=d0,d1,...`, as
 * migraphx-driver's --input-dim). */
typedef struct onnx_input_shape {
    const char *name;
    int rank;
    int64_t lens[SHAPE_MAX_RANK];
} onnx_input_shape;

typedef struct onnx_options {
    int ndims;
    const char *const *dim_names;
    const int64_t *dim_values;
    int nconstants;
    const char *const *constant_names;
    const tensor *constant_values;
    int nknown;
    const char *const *known_names;
    const tensor *known_values;
    int ninput_shapes; /* whole input shapes; they win over the dimensions above */
    const onnx_input_shape *input_shapes;
} onnx_options;

/* Imports an ONNX model (bytes) into a new graph whose main module has one
 * @param per graph input that is not an initializer. */
graph *onnx_import(const void *bytes, size_t len, const char *filename, const onnx_options *opt,
                   graft_error *err);
graph *onnx_import_file(const char *path, const onnx_options *opt, graft_error *err);

/* Op coverage of a model, without importing it: one entry per ONNX op type
 * its main graph uses, in order of first use. */
typedef struct onnx_op_use {
    char op_type[96];         /* "Conv"; "domain.Op" outside the default domain */
    int count;                /* nodes of this type */
    bool supported;           /* the importer has a handler and graft the ops it emits */
    const char *graft_op;     /* the main graft op it becomes (static), or NULL */
    char graft_ops[160];      /* every graft op it may emit: "convolution, add, broadcast" */
    const char *why;          /* when unsupported: "no importer", "a subgraph"... (static) */
    char first_node[96];      /* the first such node's name, or "#index" */
} onnx_op_use;

typedef struct onnx_coverage {
    onnx_op_use *ops; /* malloc'd */
    int nops;
    int nnodes;
    int nunsupported; /* nodes (not op types) graft cannot import */
    int64_t opset;    /* the default domain's opset */
    /* the graph inputs' symbolic (or unknown) dimensions: "batch (input x,
     * dimension 0), ? (input y, dimension 1)"; "" when there are none */
    char symbolic[1024];
} onnx_coverage;

/* Fills *out for the model in bytes. False (err set, naming filename) when
 * the bytes are not an ONNX model. Free with onnx_coverage_free. */
bool onnx_op_coverage(const void *bytes, size_t len, const char *filename, onnx_coverage *out,
                      graft_error *err);
void onnx_coverage_free(onnx_coverage *c);

#endif
