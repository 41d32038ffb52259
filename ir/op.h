/* op.h: the op table: one entry per op graft knows.
 *
 * An op_def names the op, its classes (what rules match with <pointwise>,
 * <reduce>, ...), its attributes with defaults, its arity, its shape rule and
 * its reference CPU kernel. Everything else in graft (the dump reader, the
 * rule compiler, the executor, the importers) finds ops here by name.
 *
 * Shape rules and kernels see an op_call: the op, its attributes (every
 * declared attribute present, in declaration order, defaults filled) and its
 * inputs. A shape rule that fails writes a message naming the mismatch; the
 * caller prefixes the instruction's name.
 */
#ifndef GRAFT_OP_H
#define GRAFT_OP_H

#include "attr.h"
#include "error.h"
#include "shape.h"

#include <stdbool.h>

typedef enum op_class {
    OPC_POINTWISE = 1 << 0, /* elementwise, same lens in and out */
    OPC_UNARY = 1 << 1,     /* pointwise with one operand */
    OPC_BINARY = 1 << 2,    /* pointwise with two operands */
    OPC_REDUCE = 1 << 3,    /* reduce_* */
    OPC_VIEW = 1 << 4,      /* output aliases input 0 (no data moved) */
    OPC_COMPUTE = 1 << 5,   /* convolution, dot, pooling, ... (a kernel of its own) */
    OPC_MOVE = 1 << 6,      /* data movement: pad, concat, gather, contiguous, copy, ... */
    OPC_BUILTIN = 1 << 7,   /* @param, @literal, @return */
    OPC_OPAQUE = 1 << 8,    /* unknown op kept as a black box */
    OPC_SHAPE = 1 << 9,     /* reshape-like: changes lens only (reshape, squeeze, flatten, ...) */
    OPC_REGION = 1 << 10,   /* fused: a region whose submodule computes its value */
    /* What a standalone kernel of the op spends its time on, for the kernel
     * counts of --stats (ops/kernel_counts.h): */
    OPC_FILL = 1 << 11,     /* writing constants over (part of) its output: pad */
    OPC_COPY = 1 << 12,     /* copying its operands' data unchanged: contiguous, layout, concat */
    /* Facts about the values a pointwise op computes, for rule guards
     * (dsl/helpers.c: never_negative, zero_preserving): */
    OPC_NEVER_NEGATIVE = 1 << 13,  /* no result is below zero, whatever the operands */
    OPC_ZERO_PRESERVING = 1 << 14, /* one operand, and u(0) = 0 for every attribute value */
} op_class;

typedef struct attr_spec {
    const char *name;
    attr_kind kind;
    attr_value dflt;               /* used when the attribute is left out */
    bool required;                 /* no default: must be given */
    const char *const *enum_names; /* NULL-terminated; for INT attrs that MIGraphX
                                      may print as a name (mode=max): index = value */
} attr_spec;

struct tensor;
struct module;

typedef struct op_call {
    const struct op_def *op;
    const attr *attrs;             /* op->nattrs entries, in declaration order */
    const shape *inputs;           /* ninputs shapes */
    int ninputs;
    struct module *const *modules; /* submodules, for region ops */
    int nmodules;
} op_call;

typedef bool (*compute_shape_fn)(const op_call *call, shape *out, graft_error *err);

/* A reference kernel (ops/kernels.h finds the one for an op). out->sh is set (the instruction's shape). For ops with
 * OPC_VIEW, the kernel sets out->data to alias inputs[0] (with an offset for
 * slice); otherwise the executor has allocated out->data (shape_bytes(out->sh))
 * and the kernel writes every element. */
typedef bool (*kernel_fn)(const op_call *call, const struct tensor *inputs, struct tensor *out,
                          graft_error *err);

typedef struct op_def {
    const char *name;
    unsigned classes;              /* op_class bits */
    int min_args, max_args;        /* max_args -1: variadic */
    const attr_spec *attrs;
    int nattrs;
    bool commutative;              /* binary ops whose operands may swap */
    compute_shape_fn compute_shape;
    const char *point_op;          /* pointwise ops: C expression with ${0}, ${1} */
    int code;                      /* 1..number of ops, in op-family order (ops/op.c),
                                      set when the table is first used (op_find,
                                      op_all, op_by_code); 0 for the opaque def. Dense:
                                      what generated rules switch on (dsl/emit.c) */
} op_def;

/* Looks an op up by name (e.g. "convolution", "@param"). NULL if unknown. */
const op_def *op_find(const char *name);
const op_def *op_find_n(const char *name, size_t len);
/* All ops, for listing and for the rule compiler. */
const op_def *const *op_all(int *count);
/* The op whose code is `code` (op_def.code), NULL if none. */
const op_def *op_by_code(int code);
/* The def used for unknown ops: any arity, no attrs, shape as given. */
const op_def *op_opaque(void);

/* Attribute access for shape rules and kernels; `name` must be declared. */
const attr_value *op_attr(const op_call *call, const char *name);
int64_t op_attr_int(const op_call *call, const char *name);
double op_attr_float(const op_call *call, const char *name);
/* Returns the list and stores its length in *n. */
const int64_t *op_attr_ints(const op_call *call, const char *name, int *n);

/* True when attribute k of op is a graft extension MIGraphX does not have
 * (dot's output_permutation): dumps leave it out while it holds its default,
 * so MIGraphX programs print as MIGraphX prints them. */
bool op_attr_is_extension(const op_def *op, int k);

/* Index of attribute name in op's declaration, -1 if not declared. */
int op_attr_index(const op_def *op, const char *name);
/* Parses an enum attribute value given as a name; -1 if unknown. */
int op_enum_value(const attr_spec *spec, const char *name, size_t len);
/* The lists error messages show: spec's enum names, or op's attribute names,
 * written into buf as "a, b, c". Names stop being added once fewer than 64
 * bytes of buf are left. size must be more than 64. */
void op_enum_names_text(const attr_spec *spec, char *buf, size_t size);
void op_attr_names_text(const op_def *op, char *buf, size_t size);

/* Computes the shape of `call`; on failure err names the mismatch. Pure: no
 * state, safe on any thread (the IR counts calls per graph, ir.h). */
bool op_compute_shape(const op_call *call, shape *out, graft_error *err);

#endif
