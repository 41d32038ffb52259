/* cg_emit.h: what the kernel emitters share: a text builder, the kernel
 * under construction (its parameters, index type and body), index
 * arithmetic over cg_access, and C spellings of element types and ops.
 *
 * Each emitter (emit_pointwise.c, emit_reduce.c, emit_gemm.c,
 * emit_window.c) fills one cg_kgen for one kernel; lower.c decides which
 * emitter an instruction goes to and turns the result into a cg_kernel.
 * Index expressions are built as text with every length and stride a
 * literal constant, so the compiler folds them (shapes are compile-time
 * constants by design).
 */
#ifndef GRAFT_CG_EMIT_H
#define GRAFT_CG_EMIT_H

#include "codegen.h"
#include "strbuf.h"

#include <stdarg.h>

/* ---- text ---- */
/* A kernel's text is a strbuf: `failed` notes running out of memory. */
typedef strbuf cg_text;

void cg_puts(cg_text *t, const char *s);
void cg_printf(cg_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cg_text_free(cg_text *t);
/* Takes the text (malloc'd; "" when empty; NULL when it ran out of
 * memory); t is left empty. */
char *cg_text_take(cg_text *t);

/* ---- the kernel being built ---- */
enum { CG_MAX_PARAMS = 64 };

typedef struct cg_kgen {
    cg_program *p;
    const char *kind;
    char name[128];
    const char *idx;          /* "unsigned" or "unsigned long long" */
    int nparams;
    int param_buffer[CG_MAX_PARAMS];
    bool param_writes[CG_MAX_PARAMS];
    cg_text head;             /* the comment naming the instructions */
    cg_text body;             /* the statements inside the kernel function */
    cg_text origin;           /* "@7 @8" */
    unsigned grid, block;
    bool barriers;
    int pass;                 /* which kernel of an instruction lowered to several */
    int npasses;              /* set by the emitter when it needs more than one */
    int tmp;                  /* counter for fresh variable names */
    graft_error *err;
    bool failed;
} cg_kgen;

/* Fails the kernel with a message (first one wins). Returns false. */
bool cg_fail(cg_kgen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The parameter index reading (or writing) buffer b; reads of the same
 * buffer share one parameter. */
int cg_param(cg_kgen *g, int buffer, bool writes);
/* A fresh name "t<n>". */
const char *cg_fresh(cg_kgen *g, char *buf, size_t size);
/* i's name, or "@<position in its module>" as dumps print unnamed ones. */
const char *cg_label(const cg_program *p, const ins *i, char *buf, size_t size);
/* Records instruction i in the kernel's comment and origin list. */
void cg_cite(cg_kgen *g, const ins *i);
/* Cites every instruction of a fused region's body that computes (not its
 * parameters, literals or return). */
void cg_cite_body(cg_kgen *g, const module *body);

/* ---- types ---- */
/* The C storage type of an element type ("float", "__half", "unsigned char"
 * for bool, ...); NULL when the kernels cannot store it (bf16, tuples). */
const char *cg_storage_type(graft_type t);
/* The type kernels compute in: "float" for half and float, "double" for
 * double, "long long" for integers and bool. */
const char *cg_compute_type(graft_type t);
bool cg_type_supported(graft_type t);
/* An expression converting v (computed as from_ctype) for storing as t. */
void cg_store_conversion(graft_type t, const char *from_ctype, const char *v, char *out,
                         size_t size);

/* ---- index arithmetic ---- */
/* The offset expression (into buffer elements) of access a at the row-major
 * linear index `j` over a's level-0 lens. Statements computing intermediate
 * levels are appended to g->body at indent; the result is an expression. */
void cg_offset_linear(cg_kgen *g, const cg_access *a, const char *j, int indent, char *out,
                      size_t size);
/* The same for a multi-index: idx[d] is an expression for dimension d (NULL
 * means 0). */
void cg_offset_multi(cg_kgen *g, const cg_access *a, const char *const *idx, int indent,
                     char *out, size_t size);
/* One level's offset for a linear index (groups of contiguous dimensions
 * share one division and one modulo). */
void cg_level_linear(const cg_level *lv, const char *j, const char *idx_type, char *out,
                     size_t size);
/* "p3[...]": the element of access a at offset expression off. */
void cg_element(cg_kgen *g, const cg_access *a, const char *off, char *out, size_t size);
/* Loads access a at linear index j into a new variable of compute type
 * ctype; returns the variable's name in out. */
void cg_load_linear(cg_kgen *g, const cg_access *a, const char *j, const char *ctype, int indent,
                    char *out, size_t size);

/* The access of a value that lives in buffer b with shape sh. */
cg_access cg_access_of_buffer(const cg_program *p, int b);

/* ---- ops ---- */
/* The C expression of pointwise op i applied to args (already in ctype);
 * false when the op has no form for that compute type. */
bool cg_pointwise_expr(const ins *i, const char *ctype, const char *const *args, int nargs,
                       char *out, size_t size);

/* A double constant as kernel C text: %.17g, or GRAFT_INF_D forms for the
 * infinities and NaN, which have no decimal spelling. */
void cg_double_literal(double v, char *out, size_t size);

/* Row-major strides of lens (elements). */
void cg_standard_strides(int rank, const int64_t *lens, int64_t *strides);
int64_t cg_product(const int64_t *lens, int from, int to);

/* The emitters. Each reads lower.c's accesses for the instruction's operands
 * (in) and writes its result through out (level-0 accesses into the
 * kernel's own buffers). */
bool cg_emit_pointwise(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out,
                       int nout);
bool cg_emit_reduce(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_arg_reduce(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_softmax(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_dot(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_convolution(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
/* Index and order ops (emit_index.c). */
bool cg_emit_gather_elements(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_gathernd(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_scatter(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_scatternd(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_prefix_scan_sum(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_topk_indices(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_unique(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_nonmaxsuppression(cg_kgen *g, const ins *i, const cg_access *in,
                               const cg_access *out);
bool cg_emit_max_pooling_indices(cg_kgen *g, const ins *i, const cg_access *in,
                                 const cg_access *out);
bool cg_emit_pooling(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_lrn(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_concat(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_pad(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_gather(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
/* emit_resample.c */
bool cg_emit_resize(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_grid_sample(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_roialign(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
/* emit_select.c: an `if`'s results: in[0] is the condition, in[1..nout]
 * the then branch's results, in[nout+1..2*nout] the else branch's. */
bool cg_emit_select(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out,
                    int nout);
/* emit_loop.c: the kernels around a `loop`'s body. State, staging and
 * scan outputs are the loop's own standard buffers; initial, next and
 * scan_row are the accesses of the operands and the body's results. */
typedef struct cg_loop_buffers {
    int nstates, nscans;
    cg_access initial[CG_MAX_PARAMS / 4], state[CG_MAX_PARAMS / 4];
    cg_access next[CG_MAX_PARAMS / 4], staged[CG_MAX_PARAMS / 4];
    cg_access scan_row[CG_MAX_PARAMS / 4], scan_out[CG_MAX_PARAMS / 4];
    cg_access initial_cond, next_cond;
    int cond, staged_cond, iteration; /* buffers: bool, bool, int64, one element */
} cg_loop_buffers;
bool cg_emit_loop_init(cg_kgen *g, const cg_loop_buffers *lb);
bool cg_emit_loop_stage(cg_kgen *g, const cg_loop_buffers *lb);
bool cg_emit_loop_commit(cg_kgen *g, const cg_loop_buffers *lb);
/* emit_dense.c */
bool cg_emit_convolution_backwards(cg_kgen *g, const ins *i, const cg_access *in,
                                   const cg_access *out);
bool cg_emit_dft(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);
bool cg_emit_det(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out);

/* The pointwise evaluator (emit_pointwise.c), for emitters that build on
 * it: values of a region's body at a linear index over their lens, each
 * computed once per index and scope. */
typedef struct cg_pw cg_pw;
cg_pw *cg_pw_new(cg_kgen *g, const ins *root, const cg_access *in);
void cg_pw_free(cg_pw *c);
bool cg_pw_value(cg_pw *c, const ins *v, const char *j, char *var, size_t size,
                 const char **ctype);
/* v's value is the variable var at every index (a reduction's result for
 * the current row). */
void cg_pw_fix(cg_pw *c, const ins *v, const char *var, const char *ctype);
/* Scopes: values computed inside are forgotten on leaving. */
void cg_pw_enter(cg_pw *c, int indent);
void cg_pw_leave(cg_pw *c, int indent);
bool cg_pw_store(cg_pw *c, const cg_access *out, const char *j, const char *var,
                 const char *ctype, graft_type t);
/* Computes body value v at linear index j and stores it through out. */
bool cg_pw_store_value(cg_pw *c, const ins *v, const cg_access *out, const char *j);
/* A pad inside a region: its value at linear index j, read through a
 * predicate from its operand (emit_pad.c). */
bool cg_pad_value(cg_pw *c, cg_kgen *g, int indent, const ins *pad, const char *j, char *var,
                  size_t size, const char **ctype);
bool cg_emit_reduce_region(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out,
                           int nout);

/* Reductions' folds (emit_reduce.c), for emitters that reduce too. */
typedef enum { C_SUM, C_PROD, C_MAX, C_MIN } cg_combine_kind;
/* The kind of fold a reduce op does (reduce_mean folds as a sum). */
cg_combine_kind cg_combine_of(const ins *reduce);
/* out = a combined with b, in compute type ct (NaN-propagating max/min). */
void cg_combine(cg_combine_kind k, const char *ct, const char *a, const char *b, char *out,
                size_t size);
/* The fold's identity in ct. */
const char *cg_combine_init(cg_combine_kind k, const char *ct);
/* Folds the variable `acc` over the block (waves by __shfl_down, then the
 * shared array `part` of 32 elements). With broadcast every thread ends
 * with the result in acc; otherwise thread 0 has it and its `if` block is
 * left open for the caller. */
void cg_block_fold(cg_kgen *g, const char *ct, cg_combine_kind k, const char *part, bool broadcast,
                   int indent);
/* The shared arrays block folds stage partial results in, one per compute
 * type: part_f (float), part_d (double), part_i (long long). A region
 * emitter marks the types its reductions need and declares those arrays
 * once, at the kernel's top. */
enum { CG_PARTIAL_TYPES = 3 };
/* The index of compute type ct among the partial arrays (0, 1, 2). */
int cg_partial_index(const char *ct);
/* The partial array a fold in compute type ct stages its results in. */
const char *cg_partial_array(const char *ct);
/* Declares the partial arrays whose need[] is set. */
void cg_declare_partials(cg_kgen *g, const bool need[CG_PARTIAL_TYPES]);
/* The reductions of a region's body, in order: reds[k] folds rin[k] over
 * the axes masks[k]. A reduction whose only user is a reduction of the same
 * kind (a partial result: sum of sums, max of maxes, mean of equal-sized
 * means) is merged into that one: one fold over both sets of axes. The
 * count, or -1 (g failed). */
int cg_region_reductions(cg_kgen *g, const module *body, const ins **reds, const ins **rin,
                         bool (*masks)[SHAPE_MAX_RANK], int max);
/* v is the variable var at index j in the current scope (an emitter's own
 * value, such as a matrix product's element, for the pointwise ops after
 * it). */
void cg_pw_bind(cg_pw *c, const ins *v, const char *j, const char *var, const char *ctype);

/* A fused region around one dot or convolution (emit_gemm.c): prologue,
 * product, epilogue and reductions over the product as extra outputs. */
bool cg_emit_gemm_region(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out,
                         int nout);

/* Elements a slice's start is past its operand's start. */
int64_t cg_slice_offset(const ins *slice);

/* The k-th scratch buffer of region i (n elements of type t), made on
 * first use: kernels of one region pass partial results through it. */
int cg_scratch_buffer(cg_kgen *g, const ins *i, int k, graft_type t, int64_t n);

/* For a fused region's body: the accesses of its literals are weights the
 * lowering adds (lower.c). */
int cg_literal_buffer(cg_program *p, const ins *lit, graft_error *err);

/* Grid size for n work items at block threads each: enough blocks to cover
 * n, at most CG_MAX_GRID (kernels loop with a grid stride). */
enum { CG_MAX_GRID = 4096 };
/* A fused reduction keeps its row in per-thread registers when each thread
 * has at most this many of the row's elements. */
enum { CG_KEPT_SLOTS = 16 };
/* Fused reductions over rows longer than CG_SPLIT_ROW elements split each
 * row into chunks of CG_SPLIT_CHUNK, one block each, over several kernels. */
enum { CG_SPLIT_ROW = 65536, CG_SPLIT_CHUNK = 8192 };
unsigned cg_grid_for(int64_t n, unsigned block);
/* Writes the header of a grid-stride loop over n work items, the variable i
 * of g's index type; the caller writes the body and the closing brace. */
void cg_grid_stride_loop(cg_kgen *g, int64_t n);
/* Sets g's block (threads per block) and the grid that covers n items with
 * it, then opens the loop as cg_grid_stride_loop does: the kernels with one
 * thread per output element (or row, slot, lane) start this way. */
void cg_open_loop(cg_kgen *g, int64_t n, unsigned block);

#endif
