/* dump.h: reading and writing the graph dump format (docs/dump-format.md).
 *
 * The format is MIGraphX's printed program, made readable back: a real
 * MIGraphX print parses as it is. The reader is a hand-written line reader
 * (dump_fast.c) for the common case, with an re2c lexer (dump_lex.re) and a
 * bison parser (dump_parse.y) as the fallback and the reference for what is
 * accepted and for every error; the writer prints the canonical form.
 * Round trip: dump_write then dump_read gives the same graph and the same
 * numbers: literals graft writes always carry their data (decimal lists for
 * small ones, base64 of the raw bytes for large ones: `{b64:...}`). A MIGraphX
 * `{ ... }` elided literal is filled deterministically (see the docs).
 */
#ifndef GRAFT_DUMP_H
#define GRAFT_DUMP_H

#include "fileio.h"
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
    bool parser_only;         /* skip the fast path (tests compare the two) */
    /* When not NULL, called with each instruction right after it is built
     * (complete: nothing built later changes it), each module's in program
     * order, while its lines are in cache: `graft opt` probes each for a CSE
     * twin there (tools/cli_util.c). Called with NULL when the reader starts
     * over (its fast path gave the text to the parser): forget every
     * instruction offered before. */
    void (*built)(void *ctx, const ins *i);
    void *built_ctx;
} dump_read_options;
/* dump_read with options (opts may be NULL). */
graph *dump_read_with(const char *text, size_t len, const char *filename,
                      const dump_read_options *opts, graft_error *err);
/* Reads a whole file and parses it. */
graph *dump_read_file(const char *path, graft_error *err);
/* The canonical dump, malloc'd and NUL-terminated; *len gets its length. */
char *dump_write(const graph *g, size_t *len, graft_error *err);
/* Writes the dump to path through a temporary file renamed into place, so a
 * failure never leaves a half-written file. path "-" writes to stdout. */
bool dump_write_file(const graph *g, const char *path, graft_error *err);

#endif
