/* dump.h: reading and writing the graph dump format (docs/dump-format.md).
 *
 * The format is MIGraphX's printed program, made readable back: a real
 * MIGraphX print parses as it is. The reader is an re2c lexer (dump_lex.re)
 * and a bison parser (dump_parse.y); the writer prints the canonical form.
 * Round trip: dump_write then dump_read gives the same graph and the same
 * numbers: literals graft writes always carry their data (decimal lists for
 * small ones, base64 of the raw bytes for large ones: `{b64:...}`). A MIGraphX
 * `{ ... }` elided literal is filled deterministically (see the docs).
 */
#ifndef GRAFT_DUMP_H
#define GRAFT_DUMP_H

#include "ir.h"

#include <stddef.h>
#include <stdio.h>

/* Parses text (len bytes, need not be NUL-terminated). filename is used in
 * error locations. On error returns NULL with err naming file:line:col and
 * what was expected. */
graph *dump_read(const char *text, size_t len, const char *filename, graft_error *err);
/* Limits for reading untrusted dumps (the fuzz target uses them). */
typedef struct dump_read_options {
    size_t max_literal_bytes; /* literal data one dump may create in total; 0: no limit */
} dump_read_options;
/* dump_read with options (opts may be NULL). */
graph *dump_read_with(const char *text, size_t len, const char *filename,
                      const dump_read_options *opts, graft_error *err);
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
} graph_read_options;
/* graph_read_any with options (opts may be NULL: every dimension 1). */
graph *graph_read_any_with(const char *bytes, size_t len, const char *filename,
                           const graph_read_options *opts, graft_error *err);
/* Reads a whole file in any format graft knows, with options (may be NULL). */
graph *graph_read_file_with(const char *path, const graph_read_options *opts, graft_error *err);
/* True when bytes look like an ONNX model (a binary protobuf) rather than
 * dump text, a MIGraphX script or JSON: the test graph_read_any uses. */
bool graph_bytes_are_onnx(const char *bytes, size_t len);
/* Reads a whole file and parses it. */
graph *dump_read_file(const char *path, graft_error *err);
/* The canonical dump, malloc'd and NUL-terminated; *len gets its length. */
char *dump_write(const graph *g, size_t *len, graft_error *err);
/* Writes the dump to path through a temporary file renamed into place, so a
 * failure never leaves a half-written file. path "-" writes to stdout. */
bool dump_write_file(const graph *g, const char *path, graft_error *err);

/* Shared by every writer: writes len bytes to path via path.tmpXXXXXX +
 * rename. "-" writes to stdout. */
bool write_file_atomic(const char *path, const void *data, size_t len, graft_error *err);
/* Reads a whole file (malloc'd, NUL-terminated); *len gets its size. */
char *read_file_all(const char *path, size_t *len, graft_error *err);
/* Reads f to its end into a malloc'd buffer (not NUL-terminated) that starts
 * with room for size_hint + 1 bytes (64 KiB when size_hint is 0) and doubles
 * as it fills; *len gets how many bytes were read. NULL when out of memory.
 * A read error ends the reading early, and read_error (when not NULL) says
 * whether one happened. For binary readers (ONNX models and tensors) that
 * report failures in their own words. */
unsigned char *read_stream_bytes(FILE *f, size_t size_hint, size_t *len, bool *read_error);

#endif
