/* strbuf.c: the growing text buffer (see strbuf.h). */
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool strbuf_reserve(strbuf *b, size_t more)
{
    if (b->failed)
        return false;
    if (more > (size_t)-1 / 2 - b->len) {
        b->failed = true;
        return false;
    }
    size_t need = b->len + more + 1;
    if (need <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    char *text = realloc(b->text, cap);
    if (!text) {
        b->failed = true;
        return false;
    }
    b->text = text;
    b->cap = cap;
    return true;
}

void strbuf_append(strbuf *b, const void *bytes, size_t n)
{
    if (!strbuf_reserve(b, n))
        return;
    if (n)
        memcpy(b->text + b->len, bytes, n);
    b->len += n;
    b->text[b->len] = '\0';
}

void strbuf_append_string(strbuf *b, const char *s) { strbuf_append(b, s, strlen(s)); }

void strbuf_appendv(strbuf *b, const char *fmt, va_list ap)
{
    /* Formats into the room there is; when that is too small, grows the
     * buffer to the length vsnprintf asked for and formats again. */
    va_list again;
    va_copy(again, ap);
    size_t room = b->cap > b->len ? b->cap - b->len : 0;
    int n = b->failed ? -1 : vsnprintf(room ? b->text + b->len : NULL, room, fmt, ap);
    if (n < 0) {
        b->failed = true;
    } else if ((size_t)n < room) {
        b->len += (size_t)n;
    } else if (strbuf_reserve(b, (size_t)n)) {
        vsnprintf(b->text + b->len, (size_t)n + 1, fmt, again);
        b->len += (size_t)n;
    }
    va_end(again);
}

void strbuf_appendf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_appendv(b, fmt, ap);
    va_end(ap);
}

char *strbuf_take(strbuf *b, size_t *len)
{
    if (!b->failed && !b->text)
        strbuf_reserve(b, 0);
    char *text = b->failed ? NULL : b->text;
    if (!text)
        free(b->text);
    else
        text[b->len] = '\0';
    if (len)
        *len = text ? b->len : 0;
    *b = (strbuf){0};
    return text;
}

void strbuf_free(strbuf *b)
{
    free(b->text);
    *b = (strbuf){0};
}
