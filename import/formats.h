/* formats.h: reading a graph in any format graft knows, told apart by
 * content: dump text (dump.h), ONNX models (onnx.h), MIGraphX Python scripts
 * and JSON (mgx.h). This is the one place that knows all the formats, so the
 * layers above (the API, the command) never pick a reader themselves.
 */
#ifndef GRAFT_FORMATS_H
#define GRAFT_FORMATS_H

#include "dump.h"

/* Reads a graph in any format graft knows, told apart by content (dump text
 * here; importers add theirs). filename is used in error locations. */
graph *graph_read_any(const char *bytes, size_t len, const char *filename, graft_error *err);
/* What reading a graph may need besides its bytes: symbolic dimensions
 * bound by name (`--dim NAME=VALUE`; unbound ones are 1). Formats without
 * symbolic dimensions ignore them. */
typedef struct graph_read_options {
    int ndims;
    const char *const *dim_names;
    const int64_t *dim_values;
    int ninput_shapes; /* whole input shapes by name (--input-dim) */
    const struct onnx_input_shape *input_shapes;
    /* When not NULL, called with every instruction of the graph read, each
     * module's in program order: by a dump's reader as it builds each one
     * (dump_read_options.built, NULL included), by the other formats after
     * their import. */
    void (*built)(void *ctx, const ins *i);
    void *built_ctx;
} graph_read_options;
/* graph_read_any with options (opts may be NULL: every dimension 1). */
graph *graph_read_any_with(const char *bytes, size_t len, const char *filename,
                           const graph_read_options *opts, graft_error *err);
/* Reads a whole file in any format graft knows, with options (may be NULL). */
graph *graph_read_file_with(const char *path, const graph_read_options *opts, graft_error *err);
/* True when bytes look like an ONNX model (a binary protobuf) rather than
 * dump text, a MIGraphX script or JSON: the test graph_read_any uses. */
bool graph_bytes_are_onnx(const char *bytes, size_t len);
/* True when bytes are read as dump text. The dump reader verifies what it
 * builds as it goes (every instruction through the checked IR API, every
 * written shape compared with the computed one), so its graphs need no
 * second graph_verify pass. */
bool graph_bytes_are_dump(const char *bytes, size_t len);
#endif
