/* mgx.h: MIGraphX's own program formats in: the Python script and the JSON.
 *
 * MIGraphX users hand around two text forms of a program besides its print:
 * the Python script that `migraphx-driver read --py` / program::print_py
 * writes (and that people write by hand in bug reports: seed 000 is one), and
 * the JSON of program::to_value. Both are read here into a graft graph; the
 * script is parsed (re2c + bison, mgx_py_lex.re / mgx_py_parse.y) and never
 * run. docs/mgx-import.md lists what each form may contain, how literal data
 * is filled where the file does not carry it, and the error messages.
 */
#ifndef GRAFT_MGX_H
#define GRAFT_MGX_H

#include "ir.h"

#include <stddef.h>

/* Limits for untrusted input (the fuzz target sets them). */
typedef struct mgx_import_options {
    size_t max_literal_bytes; /* literal data one file may create in total; 0: no limit */
} mgx_import_options;

/* Reads a MIGraphX Python script (text, len bytes, need not be
 * NUL-terminated). filename names the file in error locations. On error:
 * NULL, and err says file:line:col and what was expected, or names the
 * unknown op or the undefined variable. */
graph *mgx_py_import(const char *text, size_t len, const char *filename, graft_error *err);
graph *mgx_py_import_with(const char *text, size_t len, const char *filename,
                          const mgx_import_options *opt, graft_error *err);

/* Reads MIGraphX's JSON program (program::to_value written as JSON). */
graph *mgx_json_import(const char *text, size_t len, const char *filename, graft_error *err);
graph *mgx_json_import_with(const char *text, size_t len, const char *filename,
                            const mgx_import_options *opt, graft_error *err);

#endif
