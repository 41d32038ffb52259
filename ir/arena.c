/* arena.c: the bump allocator behind every graph (see arena.h). */
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct arena_chunk {
    arena_chunk *next;
    size_t size, used;
    size_t populated;       /* bytes faulted in ahead (big chunks) */
    _Alignas(16) unsigned char bytes[];
};

enum { ARENA_MIN_CHUNK = 1 << 16, ARENA_ALIGN = 16 };
#define ARENA_POPULATE ((size_t)1 << 21)
#define ARENA_POPULATE_MIN ((size_t)1 << 22)

void arena_init(arena *a) { memset(a, 0, sizeof *a); }

void pages_prefer_huge(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)1 << 21;
    if (len < ARENA_POPULATE_MIN)
        return;
    uintptr_t from = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t to = ((uintptr_t)p + len) & ~(huge - 1);
    if (to > from)
        madvise((void *)from, to - from, MADV_HUGEPAGE);
#else
    (void)p;
    (void)len;
#endif
}

void arena_free(arena *a)
{
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    memset(a, 0, sizeof *a);
}

/* The head chunk's `used` lives in a->cur while it is the head. */
static void sync_used(arena *a)
{
    if (a->head && a->cur)
        a->head->used = (size_t)(a->cur - a->head->bytes);
}

void *arena_alloc_slow(arena *a, size_t size)
{
    size_t rounded = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (rounded < size)
        return NULL;
    sync_used(a);
    arena_chunk *c = a->head;
    if (!c || c->size - c->used < rounded) {
        /* Chunks double as the arena grows, so a big graph needs few mallocs. */
        size_t want = a->bytes_reserved < ARENA_MIN_CHUNK ? ARENA_MIN_CHUNK : a->bytes_reserved;
        if (want > ((size_t)1 << 26))
            want = (size_t)1 << 26;
        if (want < rounded)
            want = rounded;
        if (want > SIZE_MAX - sizeof(arena_chunk))
            return NULL;
        /* calloc: large chunks come zeroed from the kernel and their pages
         * are touched only when used, instead of all at once by a memset. */
        c = calloc(1, sizeof(arena_chunk) + want);
        if (!c)
            return NULL;
        c->size = want;
        c->used = 0;
        c->populated = 0;
        pages_prefer_huge(c->bytes, want);
        c->next = a->head;
        a->head = c;
        a->bytes_reserved += want;
    }
    void *p = c->bytes + c->used;
    c->used += rounded;
    a->bytes_used += rounded;
#ifdef MADV_POPULATE_WRITE
    /* A big chunk is filled front to back: its pages are faulted in ahead,
     * ARENA_POPULATE bytes per system call, instead of one trap per page
     * as each is first touched (where the kernel knows how). */
    if (c->used > c->populated && c->size >= ARENA_POPULATE_MIN) {
        uintptr_t from = ((uintptr_t)c->bytes + c->populated + 4095) & ~(uintptr_t)4095;
        size_t upto = c->used + ARENA_POPULATE < c->size ? c->used + ARENA_POPULATE : c->size;
        uintptr_t to = ((uintptr_t)c->bytes + upto) & ~(uintptr_t)4095;
        if (to > from)
            madvise((void *)from, to - from, MADV_POPULATE_WRITE);
        c->populated = upto;
    }
#endif
    a->cur = c->bytes + c->used;
    a->limit = c->bytes + (c->size >= ARENA_POPULATE_MIN && c->populated > c->used ? c->populated
                                                                                  : c->size);
    return p;
}

void arena_reset(arena *a)
{
    sync_used(a);
    arena_chunk *keep = a->head;
    if (!keep)
        return;
    arena_chunk *c = keep->next;
    while (c) {
        arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    memset(keep->bytes, 0, keep->used);
    keep->used = 0;
    keep->next = NULL;
    a->bytes_used = 0;
    a->bytes_reserved = keep->size;
    a->cur = keep->bytes;
    a->limit = keep->bytes + (keep->size >= ARENA_POPULATE_MIN && keep->populated ? keep->populated
                                                                                 : keep->size);
}

void *arena_dup(arena *a, const void *p, size_t n)
{
    void *q = arena_alloc(a, n ? n : 1);
    if (q && n)
        memcpy(q, p, n);
    return q;
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
    char *q = arena_alloc(a, n + 1);
    if (q) {
        memcpy(q, s, n);
        q[n] = 0;
    }
    return q;
}

char *arena_strdup(arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }
