/* formats.c: reading a graph in any format, told apart by content.
 *
 * graph_read_any looks at the bytes: ONNX (a protobuf: binary bytes), a
 * MIGraphX Python script, MIGraphX JSON, or else dump text, and hands them to
 * that format's reader. graph_read_any_with and graph_read_file_with also
 * carry the options a format may need (symbolic dimensions for ONNX, from
 * `--dim NAME=VALUE`).
 */
#include "formats.h"
#include "mgx.h"
#include "onnx.h"

#include <stdlib.h>
#include <string.h>

typedef enum input_format {
    FORMAT_DUMP,
    FORMAT_ONNX,
    FORMAT_PYTHON,
    FORMAT_JSON,
} input_format;

/* A protobuf starts with a field tag (field 1..15, wire type varint or
 * length-delimited: 0x08, 0x0a, 0x12, ...) and holds bytes that text never
 * does. Dump text and scripts are printable. */
static bool looks_binary(const unsigned char *p, size_t len)
{
    size_t n = len < 512 ? len : 512;
    for (size_t k = 0; k < n; k++) {
        unsigned char c = p[k];
        if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v'))
            return true;
    }
    return false;
}

static bool contains(const char *p, size_t len, const char *needle)
{
    return memmem(p, len, needle, strlen(needle)) != NULL;
}

static bool looks_onnx(const char *bytes, size_t len)
{
    const unsigned char *p = (const unsigned char *)bytes;
    return len > 0 && (p[0] == 0x08 || looks_binary(p, len));
}

static input_format detect_format(const char *bytes, size_t len)
{
    const unsigned char *p = (const unsigned char *)bytes;
    if (looks_onnx(bytes, len))
        return FORMAT_ONNX;
    size_t k = 0;
    while (k < len && (p[k] == ' ' || p[k] == '\t' || p[k] == '\n' || p[k] == '\r'))
        k++;
    /* MIGraphX JSON (program::to_value) is an object holding "modules"; no
     * dump starts with '{', so other JSON goes there too for a clear error. */
    if (k < len && p[k] == '{')
        return FORMAT_JSON;
    /* A module header first is a dump (graft's and MIGraphX's prints both
     * start so): no need to scan a big dump for a script's calls. */
    if (len - k >= 7 && memcmp(p + k, "module:", 7) == 0)
        return FORMAT_DUMP;
    size_t head = len < 4096 ? len : 4096;
    if (contains(bytes, head, "import migraphx") || contains(bytes, len, "migraphx.program("))
        return FORMAT_PYTHON;
    return FORMAT_DUMP;
}

bool graph_bytes_are_onnx(const char *bytes, size_t len) { return looks_onnx(bytes, len); }

bool graph_bytes_are_dump(const char *bytes, size_t len)
{
    return detect_format(bytes, len) == FORMAT_DUMP;
}

graph *graph_read_any_with(const char *bytes, size_t len, const char *filename,
                           const graph_read_options *opts, graft_error *err)
{
    graph *g = NULL;
    switch (detect_format(bytes, len)) {
    case FORMAT_ONNX: {
        onnx_options onnx = {0};
        if (opts) {
            onnx.ndims = opts->ndims;
            onnx.dim_names = opts->dim_names;
            onnx.dim_values = opts->dim_values;
            onnx.ninput_shapes = opts->ninput_shapes;
            onnx.input_shapes = opts->input_shapes;
        }
        g = onnx_import(bytes, len, filename, &onnx, err);
        break;
    }
    case FORMAT_PYTHON:
        g = mgx_py_import(bytes, len, filename, err);
        break;
    case FORMAT_JSON:
        g = mgx_json_import(bytes, len, filename, err);
        break;
    case FORMAT_DUMP: {
        dump_read_options dopts = {0};
        if (opts) {
            dopts.built = opts->built;
            dopts.built_ctx = opts->built_ctx;
        }
        return dump_read_with(bytes, len, filename, &dopts, err);
    }
    }
    /* The importers build through several passes: offer the result. */
    if (g && opts && opts->built)
        for (module *m = g->first_module; m; m = m->next)
            for (ins *i = m->first; i; i = i->next)
                opts->built(opts->built_ctx, i);
    return g;
}

graph *graph_read_any(const char *bytes, size_t len, const char *filename, graft_error *err)
{
    return graph_read_any_with(bytes, len, filename, NULL, err);
}

graph *graph_read_file_with(const char *path, const graph_read_options *opts, graft_error *err)
{
    size_t len;
    char *bytes = read_file_all(path, &len, err);
    if (!bytes)
        return NULL;
    graph *g = graph_read_any_with(bytes, len, path, opts, err);
    free(bytes);
    return g;
}

