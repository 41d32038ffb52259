/* strbuf.h: a growing text buffer, for whatever writes text of unknown
 * length (the dump writer, the driver's trace records).
 *
 * Start from `strbuf b = {0};`, append, then either take the text (it is
 * then the caller's, to free()) or free the buffer. Appends copy bytes as
 * they are (a NUL byte may be appended on purpose) and keep the text
 * NUL-terminated. Running out of memory does not stop the caller: the
 * buffer notes it in `failed`, later appends do nothing, and
 * strbuf_take returns NULL, so a writer checks once at the end.
 */
#ifndef GRAFT_STRBUF_H
#define GRAFT_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct strbuf {
    char *text;   /* len bytes and a NUL; NULL until the first append */
    size_t len;   /* bytes appended, not counting the terminating NUL */
    size_t cap;   /* bytes allocated */
    bool failed;  /* an allocation failed: text holds what came before */
} strbuf;

/* Makes room for `more` bytes (and the NUL) without another allocation.
 * False, marking the buffer failed, when memory runs out. */
bool strbuf_reserve(strbuf *b, size_t more);
/* Appends n bytes. */
void strbuf_append(strbuf *b, const void *bytes, size_t n);
/* Appends a NUL-terminated string (without its NUL). */
void strbuf_append_string(strbuf *b, const char *s);
/* Appends printf-formatted text. */
void strbuf_appendf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_appendv(strbuf *b, const char *fmt, va_list ap);
/* Hands the text over to the caller (malloc'd, NUL-terminated; "" when
 * nothing was appended) and leaves b empty. *len (if len is not NULL)
 * receives its length. NULL when the buffer failed (its memory is freed). */
char *strbuf_take(strbuf *b, size_t *len);
/* Frees the text and leaves b empty. */
void strbuf_free(strbuf *b);

#endif
