/* error.h: the one error type every fallible graft function fills.
 *
 * The library never prints and never exits. A function that can fail takes a
 * graft_error * (which may be NULL when the caller does not care), returns
 * false / NULL / -1 on failure, and writes one message here. Where the error
 * comes from a file, file/line/col say where (line and col are 1-based, 0 when
 * unknown). graft_error_format() renders "file:line:col: message".
 */
#ifndef GRAFT_ERROR_H
#define GRAFT_ERROR_H

#include "graft.h"

#include <stdarg.h>
#include <stdbool.h>

/* Sets err's message (printf-style) and clears the location. Returns false so
 * that callers can write `return error_set(err, "...")`. */
bool error_set(graft_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
bool error_vset(graft_error *err, const char *fmt, va_list ap);
/* Sets message and location. */
bool error_at(graft_error *err, const char *file, int line, int col,
              const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Prefixes the existing message with "prefix: ", keeping the location. */
void error_prefix(graft_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
