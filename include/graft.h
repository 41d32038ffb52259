/* graft.h: the public C API of graft, the only header a library user needs.
 *
 * graft reads machine-learning compute graphs (MIGraphX-style dumps, ONNX,
 * MIGraphX scripts), checks them, rewrites them with rule sets, runs them on a
 * reference executor and lowers them to HIP kernels. Link with -lgraft
 * (pkg-config --libs graft).
 *
 * Conventions: every function that can fail takes a graft_error * (may be NULL)
 * and returns false or NULL on failure with a message there. The library never
 * prints, never exits and never aborts on bad input. A graft_graph owns all the
 * memory of its modules and instructions; graft_graph_free releases it.
 *
 * Threads: graft keeps no mutable global state (tables it builds once are
 * built under pthread_once). Any number of threads may call graft at the same
 * time on different graphs: reading, optimising, running, printing, freeing.
 * Several threads may also read one graph at the same time (graft_graph_run,
 * graft_graph_to_string, graft_graph_write_file, graft_graph_verify,
 * graft_graph_params, graft_graph_instruction_count); a graph that is being
 * optimised or freed must not be used by any other thread meanwhile.
 * Statistics, compute_shape_calls included, count only the call that returns
 * them. User rule files may be compiled and loaded on several threads at
 * once (loading is serialised inside graft). graft reads PATH, GRAFT_CC,
 * XDG_CACHE_HOME and HOME when it compiles a user's rules: do not change the
 * environment on another thread meanwhile.
 *
 * Symbols: libgraft.a and libgraft.so define only the graft_* functions
 * declared here; nothing else of graft's can clash with a host program.
 */
#ifndef GRAFT_H
#define GRAFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GRAFT_API __attribute__((visibility("default")))
#else
#define GRAFT_API
#endif

#define GRAFT_VERSION "0.1.0"

/* Element types. Names in dumps are MIGraphX's: float_type, half_type, ... */
typedef enum graft_type {
    GRAFT_BOOL,
    GRAFT_HALF,
    GRAFT_FLOAT,
    GRAFT_DOUBLE,
    GRAFT_UINT8,
    GRAFT_INT8,
    GRAFT_UINT16,
    GRAFT_INT16,
    GRAFT_INT32,
    GRAFT_INT64,
    GRAFT_UINT32,
    GRAFT_UINT64,
    GRAFT_BF16,
    GRAFT_TUPLE,
    GRAFT_TYPE_COUNT
} graft_type;

/* One error: a message and, when it comes from a file, where. */
typedef struct graft_error {
    char message[1024];
    char file[256];
    int line; /* 1-based; 0 when unknown */
    int col;  /* 1-based; 0 when unknown */
} graft_error;

/* Renders "file:line:col: message" (or less, when parts are unknown) into buf. */
GRAFT_API const char *graft_error_format(const graft_error *err, char *buf, size_t size);

typedef struct graph graft_graph;

/* Reading and writing graphs. graft_graph_read_file tells the format apart by
 * content (dump text, ONNX, MIGraphX .py script, MIGraphX JSON). */
GRAFT_API graft_graph *graft_graph_read_file(const char *path, graft_error *err);
GRAFT_API graft_graph *graft_graph_read_dump(const char *text, size_t len, const char *filename,
                                             graft_error *err);
/* Writes the canonical dump; to a temporary file that is renamed over path. */
GRAFT_API bool graft_graph_write_file(const graft_graph *g, const char *path, graft_error *err);
/* Returns a malloc'd NUL-terminated dump; the caller frees it. */
GRAFT_API char *graft_graph_to_string(const graft_graph *g, graft_error *err);
GRAFT_API void graft_graph_free(graft_graph *g);
/* Operands precede users, recorded shapes equal computed ones, users lists
 * agree with operands. */
GRAFT_API bool graft_graph_verify(const graft_graph *g, graft_error *err);
GRAFT_API size_t graft_graph_instruction_count(const graft_graph *g);

/* ---- optimising ----
 * Rewrites g in place with a named pipeline ("fold", "pad", "reshape",
 * "fuse", "normalize", "layout", "default": normalize, then fuse as a
 * second phase, then layout (concats written in place) as a third; NULL
 * means "default") or with a user's rule file (compiled with the system
 * C compiler and cached; see docs/rules.md). stats may be NULL. */
typedef struct graft_opt_stats {
    size_t instructions_before, instructions_after; /* of the main graph: a fused
                                                       region counts one, its body not */
    int kernels, fills, copies; /* device launches the result lowers to */
    int64_t bytes_moved;        /* bytes those kernels read and write */
    int64_t bytes_lower_bound;  /* the least any partition into kernels moves
                                   (-1: out of memory); docs/architecture.md */
    uint64_t rewrites;
    uint64_t compute_shape_calls;
    bool converged;
    double ms;
} graft_opt_stats;

GRAFT_API bool graft_graph_optimize(graft_graph *g, const char *pipeline, graft_opt_stats *stats,
                                    graft_error *err);
GRAFT_API bool graft_graph_optimize_with_rules(graft_graph *g, const char *rules_path,
                                               graft_opt_stats *stats, graft_error *err);

/* ---- running on the reference executor ----
 * A tensor the caller owns: data holds the elements in row-major order. */
#define GRAFT_MAX_RANK 8
typedef struct graft_tensor {
    const char *name; /* a parameter's name for inputs; "output0", ... for outputs */
    graft_type type;
    int rank;
    int64_t lens[GRAFT_MAX_RANK];
    void *data;
} graft_tensor;

/* Describes the main module's parameters, in order: name (pointing into g),
 * type, rank and lens; data is NULL. Fills at most max entries of params
 * (params may be NULL when max is 0) and returns how many parameters there
 * are. */
GRAFT_API int graft_graph_params(const graft_graph *g, graft_tensor *params, int max);

/* Runs the main module. inputs are matched to parameters by name. On success
 * *outputs holds *noutputs tensors allocated by graft: release them with
 * graft_tensors_free. */
GRAFT_API bool graft_graph_run(const graft_graph *g, const graft_tensor *inputs, int ninputs,
                               graft_tensor **outputs, int *noutputs, graft_error *err);
GRAFT_API void graft_tensors_free(graft_tensor *tensors, int n);

#ifdef __cplusplus
}
#endif
#endif
