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
/* Sets message and location. */
bool error_at(graft_error *err, const char *file, int line, int col,
              const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The same two with a va_list, for a function that takes a format and its
 * arguments itself (`bool fail(ctx, fmt, ...)`): it passes them on here
 * rather than formatting into a buffer of its own first. ap is used up.
 * The arguments may point into err itself (its message or file). */
bool error_setv(graft_error *err, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
bool error_atv(graft_error *err, const char *file, int line, int col, const char *fmt,
               va_list ap) __attribute__((format(printf, 5, 0)));
/* Prefixes the existing message with "prefix: ", keeping the location. */
void error_prefix(graft_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
