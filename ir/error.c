/* error.c: filling and rendering graft_error (see error.h). */
#include "error.h"

#include <stdio.h>
#include <string.h>

bool error_atv(graft_error *err, const char *file, int line, int col, const char *fmt,
               va_list ap)
{
    if (!err)
        return false;
    /* Formatted aside first: the arguments may be err's own message or file
     * (`fail(ctx, "%s", ctx->err->message)` re-raises an error). */
    char message[sizeof err->message], where[sizeof err->file];
    vsnprintf(message, sizeof message, fmt, ap);
    snprintf(where, sizeof where, "%s", file ? file : "");
    memcpy(err->message, message, sizeof message);
    memcpy(err->file, where, sizeof where);
    err->line = line;
    err->col = col;
    return false;
}

bool error_setv(graft_error *err, const char *fmt, va_list ap)
{
    return error_atv(err, NULL, 0, 0, fmt, ap);
}

bool error_set(graft_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_setv(err, fmt, ap);
    va_end(ap);
    return false;
}

bool error_at(graft_error *err, const char *file, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_atv(err, file, line, col, fmt, ap);
    va_end(ap);
    return false;
}

void error_prefix(graft_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char joined[2 * sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(joined, sizeof err->message, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t at = (size_t)n < sizeof err->message ? (size_t)n : sizeof err->message - 1;
    memcpy(joined + at, ": ", 2);
    memcpy(joined + at + 2, err->message, strnlen(err->message, sizeof err->message - 1) + 1);
    memcpy(err->message, joined, sizeof err->message - 1);
    err->message[sizeof err->message - 1] = 0;
}

const char *graft_error_format(const graft_error *err, char *buf, size_t size)
{
    if (!buf || !size)
        return "";
    if (!err) {
        snprintf(buf, size, "unknown error");
    } else if (err->file[0] && err->line > 0 && err->col > 0) {
        snprintf(buf, size, "%s:%d:%d: %s", err->file, err->line, err->col, err->message);
    } else if (err->file[0] && err->line > 0) {
        snprintf(buf, size, "%s:%d: %s", err->file, err->line, err->message);
    } else if (err->file[0]) {
        snprintf(buf, size, "%s: %s", err->file, err->message);
    } else {
        snprintf(buf, size, "%s", err->message);
    }
    return buf;
}
