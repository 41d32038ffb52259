/* error.c: filling and rendering graft_error (see error.h). */
#include "error.h"

#include <stdio.h>
#include <string.h>

bool error_vset(graft_error *err, const char *fmt, va_list ap)
{
    if (!err)
        return false;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    err->file[0] = 0;
    err->line = err->col = 0;
    return false;
}

bool error_set(graft_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_vset(err, fmt, ap);
    va_end(ap);
    return false;
}

bool error_at(graft_error *err, const char *file, int line, int col, const char *fmt, ...)
{
    if (!err)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    err->col = col;
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
