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

#ifdef __cplusplus
}
#endif
#endif
