/* codegen.h: HIP lowering: a graph becomes HIP kernels, a memory plan and a
 * launch order, which then compile with hiprtc or run on the CPU.
 *
 * This is the interface the command line (graft compile, graft run/test
 * --device emu|hip) and the tests use. cg_lower reads a graph's main module
 * read-only and produces a cg_program: one kernel per compute op, and one
 * per `fused` region, in launch order; buffers for every value a kernel
 * writes, for the graph's inputs and for its weights; and bindings for the
 * outputs. Views (transpose, broadcast, slice, squeeze, unsqueeze, flatten,
 * reshape of a standard shape, get_tuple_elem) produce no kernel: their
 * consumers read through them with index arithmetic (cg_access). cg_plan then
 * places the buffers (codegen/plan.c), and the program can be written out
 * (cg_write_dir), compiled (codegen/hiprtc.c) or run (codegen/emu.c,
 * codegen/hip_runtime.c). Nothing here prints; errors go to graft_error.
 */
#ifndef GRAFT_CODEGEN_H
#define GRAFT_CODEGEN_H

#include "ir.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- how a kernel reads a value: index arithmetic over one buffer ---- */
enum { CG_MAX_LEVELS = 6 };

/* One strided map. Level 0 takes the consumer's multi-index over lens; each
 * later level takes the previous level's result as a row-major linear index
 * over its own lens (a reshape of a non-standard value). The last level's
 * result is the element offset into the buffer. */
typedef struct cg_level {
    int rank;
    int64_t lens[SHAPE_MAX_RANK];
    int64_t strides[SHAPE_MAX_RANK];
    int64_t offset;
} cg_level;

typedef struct cg_access {
    int buffer;
    graft_type type;
    int nlevels;
    cg_level lv[CG_MAX_LEVELS];
} cg_access;

/* ---- buffers ---- */
typedef enum cg_buffer_kind {
    CG_TEMP,    /* written by a kernel; placed in the arena by liveness */
    CG_INPUT,   /* a graph parameter, bound by name */
    CG_WEIGHT,  /* a literal, loaded from weights.bin */
} cg_buffer_kind;

typedef struct cg_buffer {
    cg_buffer_kind kind;
    shape sh;             /* the value's shape (its layout in the buffer) */
    size_t bytes;         /* shape_bytes, at least 1 */
    int first, last;      /* kernels that write it first and read it last; -1: none */
    bool output;          /* read by the graph's @return: live to the end */
    int64_t offset;       /* bytes from the allocation's start, after cg_plan */
    const ins *ins;       /* the instruction whose value it holds */
    int tuple_index;      /* element of a multi-output region, else -1 */
    int scratch;          /* k + 1 for a region's k-th scratch buffer (split
                           * reductions' partial results), else 0 */
    int64_t weight_offset; /* CG_WEIGHT: bytes into weights.bin */
} cg_buffer;

/* ---- kernels ---- */
typedef struct cg_kernel {
    char *name;           /* "add_relu_k3" */
    const char *kind;     /* "pointwise", "reduce_block", "reduce_lane", "gemm", ... */
    char *source;         /* the whole .hip text */
    unsigned grid, block; /* 1-D launch: blocks, threads per block */
    bool barriers;        /* uses __syncthreads or wave shuffles */
    int nargs;
    int *args;            /* buffer per kernel parameter, in order */
    bool *writes;         /* the parameter is written */
    char *origin;         /* "@7 @8 @9": the instructions it came from */
    const ins *ins;       /* the main-module instruction it lowers (a region,
                           * or an op outside any region) */
} cg_kernel;

typedef struct cg_output {
    cg_access acc;        /* where the value lives */
    shape sh;             /* its lens and type */
} cg_output;

typedef struct cg_memory {
    size_t alignment;
    size_t arena;         /* bytes of the arena for CG_TEMP buffers (after planning) */
    size_t sum;           /* sum of every CG_TEMP buffer (no reuse) */
    size_t peak;          /* most bytes live at once: the lower bound for the arena */
    size_t inputs, weights;
    size_t total;         /* the one allocation: arena, inputs, weights */
} cg_memory;

/* ---- run-time loops ---- */
/* A `loop` instruction's entry in the launch plan: the kernels first..end-1
 * are its body, run once per iteration; the runtime reads the trip count
 * once, before the first iteration, and the condition before each one
 * (from device buffers: on a GPU each read waits for the kernels before
 * it). The loop's own kernels around the body (codegen/emit_loop.c) keep
 * the state on the device: an init kernel before `first` copies the
 * initial values, and the last two body kernels stage and commit the next
 * ones. Loops nest: an inner loop lies wholly inside an outer one's body,
 * and never starts at the same kernel. */
typedef struct cg_loop {
    const ins *ins;
    int first, end;       /* the body's kernels: [first, end) */
    int trips_buffer;     /* int64, one element: the trip count */
    int64_t trips_offset; /* its element (a view's offset) */
    int cond_buffer;      /* bool, one element: whether to run the next iteration */
    int64_t max_iterations; /* -1: no limit but the trip count and condition */
} cg_loop;

typedef struct cg_program {
    const char *graph_name;
    cg_loop *loops;       /* inner loops before the loops around them */
    int nloops;
    cg_kernel *kernels;
    int nkernels;
    cg_buffer *buffers;
    int nbuffers;
    cg_output *outputs;
    int noutputs;
    cg_memory mem;
    bool planned;
    int buffers_cap;      /* room in buffers (lowering) */
    char **labels;        /* by instruction id: the name a dump prints, for comments */
    uint32_t nlabels;
    bool sourceless;      /* lowered by cg_lower_sourceless: no kernel source */
} cg_program;

/* Lowers g's main module. NULL with err set when an op is not lowered yet
 * ("not lowered yet: op X ...") or the graph cannot be. */
cg_program *cg_lower(const graph *g, graft_error *err);
/* As cg_lower, with every kernel, buffer, argument and launch the same, but
 * no kernel source (each kernel's source is NULL): for counting
 * (cg_program_counts), at a fraction of the cost. Not for writing,
 * compiling or running. */
cg_program *cg_lower_sourceless(const graph *g, graft_error *err);
void cg_program_free(cg_program *p);

/* What a lowered program launches and moves (codegen/plan_counts.c): the
 * `kernels`, `fills`, `copies` and `bytes_moved` of `graft opt --stats`
 * when the graph lowers. A kernel is a fill when it lowers a standalone
 * fill op (pad) and a copy when it lowers a standalone copy op (concat not
 * placed in place, contiguous, layout), as the op classes say. bytes_moved
 * sums, over the kernels, the bytes of each distinct buffer the kernel
 * reads or writes (once per kernel, however many parameters or views reach
 * it); flops is what cg_kernel_flops gives, summed. */
typedef struct cg_counts {
    int kernels, fills, copies;
    int64_t bytes_moved;
    int64_t gemm_flops;   /* multiply-adds x 2 of the dot and convolution kernels */
    int64_t gemm_bytes;   /* bytes_moved of those kernels alone */
    int gemm_kernels;
} cg_counts;
void cg_program_counts(const cg_program *p, cg_counts *out);
/* Lowers g without source (cg_lower_sourceless) and counts its plan. False
 * with the reason in err when g does not lower, or when its main module has
 * more than CG_COUNTS_MAX_INSTRUCTIONS instructions: counting stays cheap
 * (lowering costs a few microseconds and about 1 KB per instruction), and
 * callers fall back to the op-class counts (ops/kernel_counts.h). */
enum { CG_COUNTS_MAX_INSTRUCTIONS = 200000 };
bool cg_graph_counts(const graph *g, cg_counts *out, graft_error *err);
/* Bytes kernel k of p reads and writes: each distinct buffer once. */
int64_t cg_kernel_bytes(const cg_program *p, const cg_kernel *k);
/* 2 x the multiply-adds of the dot or convolution kernel k lowers (its
 * region's product when it is a region), else 0. */
int64_t cg_kernel_flops(const cg_kernel *k);

/* Memory planning (codegen/plan.c): assigns every buffer an offset; temps
 * share arena space when their live ranges (first..last kernel) do not
 * overlap, placed best-fit in decreasing size order. */
bool cg_plan(cg_program *p, graft_error *err);
/* plan.json text (malloc'd). archs: the code objects' architectures. */
char *cg_plan_json(const cg_program *p, const char *const *archs, int narchs);
/* Checks the plan's invariants: no two buffers live at the same kernel
 * overlap; arena >= peak. False with the first violation in err. */
bool cg_plan_check(const cg_program *p, graft_error *err);

/* The text of graft_kernel.h (embedded at build time). */
extern const char cg_kernel_header[];

/* Writes DIR/graft_kernel.h, DIR/NAME.hip for every kernel, DIR/weights.bin
 * and DIR/plan.json (each atomically; DIR is created). */
bool cg_write_dir(const cg_program *p, const char *dir, const char *const *archs, int narchs,
                  graft_error *err);

/* ---- compilation with hiprtc (codegen/hiprtc.c) ---- */
typedef struct cg_compile_options {
    const char *const *archs;
    int narchs;
    const char *out_dir;   /* DIR: code objects go to DIR/<arch>/NAME.co; NULL: cache only */
    const char *cache_dir; /* NULL: $XDG_CACHE_HOME/graft/hip or ~/.cache/graft/hip */
    int jobs;              /* child processes at once; 0: 2 */
} cg_compile_options;

typedef struct cg_compile_stats {
    int compiled, cached;  /* kernel x arch pairs */
    double seconds;        /* wall time of the whole compilation */
    double compile_seconds; /* hiprtc time summed over the pairs compiled */
} cg_compile_stats;

/* Architectures hiprtc 5.2 compiles without aborting; *n gets the count. */
const char *const *cg_known_archs(int *n);
/* Splits "gfx90a,gfx1030" into archs (at most max), each checked against
 * cg_known_archs; false with a clear error for an unknown one. */
int cg_parse_archs(const char *list, const char **archs, int max, char *storage, size_t size,
                   graft_error *err);
/* Whether hiprtc can be loaded (in a child process); false with the reason. */
bool cg_hiprtc_available(graft_error *err);
/* Compiles every kernel for every arch (cached). A kernel that fails names
 * itself, the arch, the hiprtc log and the path of its source in err. */
bool cg_compile(const cg_program *p, const cg_compile_options *o, cg_compile_stats *stats,
                graft_error *err);

/* ---- running ---- */
struct tensor_list;
/* emu: the generated kernels, compiled for the CPU (codegen/emu.c), with the
 * given wave size (32 or 64). Outputs named output0, ... in standard layout. */
typedef struct cg_emu_options {
    unsigned wave;          /* 32 or 64; 0: 64 */
    const char *cache_dir;  /* NULL: $XDG_CACHE_HOME/graft/emu or ~/.cache/graft/emu */
    int jobs;               /* compiler processes at once; 0: 2 */
    int threads;            /* OS threads running blocks; 0: $GRAFT_EMU_THREADS or 2 */
} cg_emu_options;
bool cg_run_emu(const cg_program *p, const cg_emu_options *o, const struct tensor_list *inputs,
                struct tensor_list *outputs, graft_error *err);

/* hip: code objects loaded with hipModuleLoadData, launched in plan order.
 * Fails with "no HIP device found (...)" when there is none. */
bool cg_run_hip(const cg_program *p, const char *cache_dir, const struct tensor_list *inputs,
                struct tensor_list *outputs, graft_error *err);

/* Lowers, plans and runs g's main module on device "emu" or "hip" (for
 * `graft run` and `graft test`). For hip, the device is looked for first,
 * so a machine without one fails with "no HIP device found (...)" whatever
 * the graph. nkernels (may be NULL) gets the number of launches. */
bool cg_run_graph(const graph *g, const char *device, const cg_emu_options *o,
                  const struct tensor_list *inputs, struct tensor_list *outputs, int *nkernels,
                  graft_error *err);
/* Whether a HIP device can be used; false with "no HIP device found (...)". */
bool cg_hip_device_available(graft_error *err);

/* The kernelParams array hipModuleLaunchKernel takes: for parameter k, a
 * pointer to a slot holding base + offset of buffer args[k]. slots and params
 * have room for k->nargs entries. Exposed for its unit test. */
void cg_pack_args(const cg_program *p, const cg_kernel *k, char *base, void **slots,
                  void **params);
/* Runs p's launch plan in order (codegen/loop_run.c), for both runtimes:
 * launch(ctx, k) launches kernel k and read(ctx, buffer, offset, dst,
 * bytes) copies bytes of a buffer to the host (a synchronising device-to-
 * host copy on a GPU). Loops repeat their body kernels as the reference
 * executor does: while iteration < trips (and < max_iterations unless it
 * is -1) and the condition holds. nlaunches (may be NULL) gets the count
 * of launches made. */
typedef struct cg_launcher {
    void *ctx;
    bool (*launch)(void *ctx, int kernel, graft_error *err);
    bool (*read)(void *ctx, int buffer, int64_t offset, void *dst, size_t bytes,
                 graft_error *err);
} cg_launcher;
bool cg_run_launches(const cg_program *p, const cg_launcher *l, long long *nlaunches,
                     graft_error *err);

#endif
