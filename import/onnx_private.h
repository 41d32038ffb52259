/* onnx_private.h: what the ONNX importer's three files share, and nothing
 * else sees.
 *
 * onnx_read.c turns TensorProtos into tensors (typed fields, raw_data,
 * external data files) and reads/writes tensor .pb files; onnx_import.c walks
 * the model's graph, keeps the table from ONNX value names to instructions and
 * folds nodes whose inputs are all constant; onnx_ops.c holds one handler per
 * ONNX op type, which emits graft (MIGraphX) ops for one node.
 */
#ifndef GRAFT_ONNX_PRIVATE_H
#define GRAFT_ONNX_PRIVATE_H

#include "onnx.h"
#include "onnx.pb-c.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- tensors (onnx_read.c) ---- */

/* The graft type of an ONNX TensorProto.DataType; false for types graft has
 * no element type for (string, complex, float8...). */
bool onnx_type_to_graft(int32_t onnx_type, graft_type *out);
int32_t onnx_type_from_graft(graft_type t);
const char *onnx_type_name(int32_t onnx_type);

/* Converts a TensorProto into a standard-layout tensor whose data is
 * malloc'd (at least one byte, even for empty tensors). A rank-0 tensor becomes
 * lens {1}. model_dir (may be NULL) is where external data files are looked
 * up. Checks the element count against every data field it reads. */
bool onnx_tensor_from_proto(const Onnx__TensorProto *tp, const char *model_dir, tensor *out,
                            graft_error *err);
/* The same, but raw_data that needs no conversion is not copied: out->data
 * then points into tp (valid while tp is) and *borrowed is true; otherwise
 * out->data is malloc'd as above. Large initializers take this path, so
 * their bytes are copied once, from the unpacked model into the graph. */
bool onnx_tensor_view_from_proto(const Onnx__TensorProto *tp, const char *model_dir, tensor *out,
                                 bool *borrowed, graft_error *err);
/* The directory a model or tensor file's external data is looked up in:
 * path up to its last '/', or "." when it has none. */
void onnx_model_dir(const char *path, char *dir, size_t size);

/* ---- the importer's state (onnx_import.c) ---- */

typedef struct onnx_value {
    char *name; /* malloc'd key */
    ins *value;
} onnx_value;

/* A submodule being imported (an `if` branch, a `loop` body): a value of an
 * enclosing module that it reads becomes one of the instruction's operands,
 * read in the submodule through the parameter x<k> (operand k), or, for a
 * constant, a copy of the literal (which keeps it foldable). */
typedef struct onnx_capture {
    module *m;                 /* the submodule */
    module *outer;             /* where the instruction that owns it goes */
    struct onnx_capture *up;   /* outer's own capture, when outer is a submodule */
    struct onnx_operands {     /* the instruction's operands, shared by its submodules */
        ins **v;
        int n, cap;
    } *operands;
    ins **from, **to;          /* values of other modules and what stands for them in m */
    int nmap, mapcap;
} onnx_capture;

typedef struct onnx_ctx {
    graph *g;
    module *m;              /* where handlers emit: main, or a scratch module while folding */
    int64_t opset;          /* default-domain opset version */
    const char *filename;
    const char *model_dir;
    const onnx_options *opt;
    graft_error *err;
    const Onnx__NodeProto *node; /* the node being imported, for messages */
    const struct onnx_op_entry *entry; /* its table entry */
    int node_index;
    onnx_value *values;     /* open addressing, cap a power of two */
    size_t nvalues, cap;
    arena scratch;          /* short-lived data: constant operands read by handlers */
    int depth;              /* subgraphs being imported (onnx_import_body) */
    int64_t bodies;         /* subgraph imports so far (unrolling is bounded) */
    onnx_capture *capture;  /* the submodule c->m is, or NULL in the main module */
    int nsubmodules;        /* submodules made so far (their names count up) */
    /* graph inputs whose dimension no option bound and was taken as 1 */
    struct onnx_unbound {
        const char *input, *param; /* param: the dim_param, or NULL */
        int dim, rank;
        int64_t lens[SHAPE_MAX_RANK];
    } unbound[8];
    int nunbound;
} onnx_ctx;

/* A handler emits the graft instructions for one node: in[k] is NULL for an
 * absent optional input; it sets out[k] for each of the node's outputs it
 * produces (outputs with empty names may be left NULL). */
typedef bool (*onnx_handler)(onnx_ctx *c, ins **in, int nin, ins **out, int nout);

typedef struct onnx_op_entry {
    const char *onnx_name;
    onnx_handler handler;
    const char *graft_op; /* the graft op a generic handler (unary, binary) emits */
    const char *needs[4]; /* further graft ops that must exist in the op table */
    int inputs;           /* the inputs the handler needs present: onnx_run_handler
                           * refuses a node with fewer (0: the handler checks) */
} onnx_op_entry;

/* If, Loop, Scan: entries whose graph attributes are the handler's to read
 * (onnx_ops_control.c); a node of any other op with a subgraph is refused. */
bool onnx_takes_subgraphs(const onnx_op_entry *e);

/* Checks the node has the entry's inputs, then calls its handler. */
bool onnx_run_handler(onnx_ctx *c, const onnx_op_entry *e, ins **in, int nin, ins **out,
                      int nout);

/* A table of handlers kept in a file of its own (onnx_ops_*.c); onnx_find_op
 * searches onnx_ops.c's table, then these. */
typedef struct onnx_op_table {
    const onnx_op_entry *entries;
    int count;
} onnx_op_table;
extern const onnx_op_table onnx_ops_loss;   /* onnx_ops_loss.c: training losses */
extern const onnx_op_table onnx_ops_index;  /* onnx_ops_index.c: gather/scatter family */
extern const onnx_op_table onnx_ops_resize; /* onnx_ops_resize.c: Resize, Upsample */
extern const onnx_op_table onnx_ops_misc;   /* onnx_ops_misc.c: the rest */
extern const onnx_op_table onnx_ops_einsum; /* onnx_ops_einsum.c: Einsum */
extern const onnx_op_table onnx_ops_vision; /* onnx_ops_vision.c: GridSample, RoiAlign, NMS */
extern const onnx_op_table onnx_ops_quant;  /* onnx_ops_quant.c: quantization */
extern const onnx_op_table onnx_ops_rnn;    /* onnx_ops_rnn.c: RNN, GRU, LSTM */
extern const onnx_op_table onnx_ops_control; /* onnx_ops_control.c: If, Loop, Scan */
extern const onnx_op_table onnx_ops_data_dependent; /* onnx_ops_data_dependent.c: Unique, NonZero */

/* Every handler table, for listing (docs/ops.md is generated from them). */
const onnx_op_table *const *onnx_op_tables(int *count);

/* Finds the handler for an ONNX op type; NULL if graft cannot import it. */
const onnx_op_entry *onnx_find_op(const char *op_type);
/* True when the entry's graft ops all exist. */
bool onnx_op_available(const onnx_op_entry *e);

/* ---- helpers the handlers use (onnx_import.c) ---- */

/* Fails with "node 'name' (Op): message" */
bool onnx_fail(onnx_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "unsupported ONNX op Op (node 'name'): why" : cmd_test reports these as skips */
bool onnx_unsupported(onnx_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

const Onnx__AttributeProto *onnx_attr(const onnx_ctx *c, const char *name);
int64_t onnx_attr_int(const onnx_ctx *c, const char *name, int64_t dflt);
double onnx_attr_float(const onnx_ctx *c, const char *name, double dflt);
/* Copies a string attribute into buf ("" default). */
const char *onnx_attr_string(const onnx_ctx *c, const char *name, const char *dflt, char *buf,
                             size_t size);
/* ints attribute: *n = -1 when absent. */
const int64_t *onnx_attr_ints(const onnx_ctx *c, const char *name, int *n);
const float *onnx_attr_floats(const onnx_ctx *c, const char *name, int *n);

/* Emits op with attrs into c->m; NULL (message set, naming the node) on
 * failure or when any arg is NULL. */
ins *onnx_emit(onnx_ctx *c, const char *opname, const attr *attrs, int nattrs, ins *const *args,
               int nargs);
ins *onnx_emit1(onnx_ctx *c, const char *opname, ins *x);
ins *onnx_emit2(onnx_ctx *c, const char *opname, ins *a, ins *b);
/* A literal from a tensor (standard layout). */
ins *onnx_literal(onnx_ctx *c, const shape *sh, const void *data);
/* A one-element literal of type t holding v. */
ins *onnx_scalar(onnx_ctx *c, graft_type t, double v);
/* The integer values of a constant operand (a literal), in the scratch
 * arena; fails naming the input when it is not constant. */
bool onnx_const_ints(onnx_ctx *c, ins *x, const char *what, int64_t **vals, int *n);
bool onnx_const_doubles(onnx_ctx *c, ins *x, const char *what, double **vals, int *n);
bool onnx_is_const(const ins *x);
/* x is a constant, or a parameter whose value the importer was given
 * (onnx_options.known_*): onnx_const_tensor can read it. */
bool onnx_value_known(onnx_ctx *c, const ins *x);
/* The value of a constant operand (a literal's data, or a parameter's known
 * value, see onnx_options): *t points at it, valid while the import runs;
 * fails like onnx_const_ints when x is not constant. */
bool onnx_const_tensor(onnx_ctx *c, ins *x, const char *what, tensor *t);
/* Runs opname[attrs] on the values of constant operands (literals or
 * parameters with known values; what[k] names operand k for the message
 * when it is not constant) and hands over the result: *result is standard,
 * its data malloc'd, the caller frees it. For ops whose result length
 * depends on the values (nonmaxsuppression, unique, nonzero): the importer
 * reads the length off this result. */
bool onnx_evaluate(onnx_ctx *c, const char *opname, const attr *attrs, int nattrs,
                   ins *const *args, const char *const *what, int nargs, tensor *result);

/* Imports a subgraph (If's branches, Loop's and Scan's bodies) into c->m:
 * its inputs bound to inputs[0..ninputs) (a NULL input stays unbound), its
 * initializers and nodes imported as the main graph's are (values of the
 * enclosing graphs are visible by name), and outputs[k] set to its k-th
 * output. Importing the same body again (an unrolled loop) rebinds its
 * names. (onnx_import.c) */
bool onnx_import_body(onnx_ctx *c, const Onnx__GraphProto *body, ins *const *inputs, int ninputs,
                      ins **outputs, int noutputs);

/* Starts importing into a new submodule for an instruction to be emitted
 * into c->m, whose operands (the values of enclosing modules the submodule
 * reads) are gathered in ops (which several submodules of one instruction
 * share; ops->n starts at the number of operands the instruction has
 * before them). kind names the submodule ("then", "else", "body"). c->m is
 * the submodule until onnx_capture_end. */
bool onnx_capture_begin(onnx_ctx *c, onnx_capture *cap, struct onnx_operands *ops,
                        const char *kind);
void onnx_capture_end(onnx_ctx *c, onnx_capture *cap);
/* The parameter x<k> of c->m bound to operand k, of shape sh. */
ins *onnx_capture_param(onnx_ctx *c, int k, const shape *sh);

/* BatchNormalization with training_mode: the batch's statistics, and the
 * running mean and variance updated with them (onnx_ops_misc.c). */
bool onnx_batch_norm_training(onnx_ctx *c, ins **in, int nin, ins **out, int nout);

/* ---- builders shared by the handler files (onnx_ops.c) ---- */

/* A binary pointwise op with numpy broadcasting made explicit. */
ins *onnx_binary(onnx_ctx *c, const char *op, ins *a, ins *b);
/* multibroadcast x to lens, unless it has them already. */
ins *onnx_broadcast_to(onnx_ctx *c, ins *x, int rank, const int64_t *lens);
/* Places a 1-D x (length lens[axis]) along axis of lens. */
ins *onnx_broadcast_axis(onnx_ctx *c, ins *x, int axis, int rank, const int64_t *lens);
/* convert to t, unless x has it already. */
ins *onnx_convert(onnx_ctx *c, ins *x, graft_type t);
/* op[key=v](x), one attribute. */
ins *onnx_emit_ints(onnx_ctx *c, const char *op, const char *key, const int64_t *v, int n, ins *x);
ins *onnx_emit_int(onnx_ctx *c, const char *op, const char *key, int64_t v, ins *x);
/* reshape to lens (contiguous first when x is not standard), unless x has them. */
ins *onnx_reshape(onnx_ctx *c, ins *x, int rank, const int64_t *lens);
bool onnx_normalize_axis(onnx_ctx *c, int64_t axis, int rank, int *out);
/* in[0..count) present; fails naming the missing one. */
bool onnx_need_inputs(onnx_ctx *c, ins **in, int nin, int count);
/* numpy broadcasting of two shapes' lens. */
bool onnx_numpy_lens(onnx_ctx *c, const shape *a, const shape *b, int *rank, int64_t *lens);
/* A 1-D int64 literal. */
ins *onnx_int64_literal(onnx_ctx *c, const int64_t *v, int n);
/* Conv-style explicit padding [begin..., end...] from pads or auto_pad. */
bool onnx_window_padding(onnx_ctx *c, const shape *x, int k, const int64_t *kernel,
                         const int64_t *strides, const int64_t *dilations, int64_t *padding);
/* strides/dilations-style per-axis attribute: k positive values or dflt. */
bool onnx_window_attrs(onnx_ctx *c, int k, const char *name, int64_t dflt, int64_t *out);

#endif
