/* arena.h: bump allocation for everything a graph owns.
 *
 * A graph allocates its instructions, shapes, attribute lists, operand arrays,
 * names and literal data from one arena and frees it all at once when the graph
 * is destroyed. Nothing inside a graph is freed one piece at a time; arrays
 * that grow (users lists) re-allocate from the arena and abandon the old block.
 * This is what lets a 1M-instruction graph build in well under a second.
 */
#ifndef GRAFT_ARENA_H
#define GRAFT_ARENA_H

#include <stddef.h>

typedef struct arena_chunk arena_chunk;
typedef struct arena {
    arena_chunk *head;      /* newest chunk first */
    size_t bytes_used;      /* total handed out, for statistics */
    size_t bytes_reserved;  /* total obtained from malloc */
    /* The free part of the head chunk that arena_alloc may hand out without
     * a call: [cur, limit). */
    unsigned char *cur, *limit;
} arena;

void arena_init(arena *a);
void arena_free(arena *a);
/* arena_alloc's out-of-line part: a new chunk, or pages faulted in ahead. */
void *arena_alloc_slow(arena *a, size_t size);
/* Returns zeroed memory aligned to 16 bytes, or NULL when malloc fails.
 * Inline: a graph makes millions of small allocations. */
static inline void *arena_alloc(arena *a, size_t size)
{
    size_t rounded = (size + 15) & ~(size_t)15;
    if (rounded >= size && (size_t)(a->limit - a->cur) >= rounded) {
        void *p = a->cur;
        a->cur += rounded;
        a->bytes_used += rounded;
        return p;
    }
    return arena_alloc_slow(a, size);
}
/* Empties the arena for reuse: keeps its newest chunk (zeroing what was
 * handed out of it) and frees the others. Everything allocated before is
 * gone. For scratch arenas refilled over and over (the dump reader's
 * per-line statements). */
void arena_reset(arena *a);
/* Asks the kernel to back the 2 MB-aligned part of [p, p + len) with huge
 * pages (Linux: madvise MADV_HUGEPAGE; elsewhere, or where transparent huge
 * pages are off, nothing happens). For big blocks written front to back, as
 * an arena chunk, a file read whole or a table of names: one fault then
 * fills 2 MB instead of 4 KB (reading a 7 MB, 100k-instruction dump took
 * about 1900 faults instead of 3770: the unaligned ends of each block stay
 * small pages). Blocks under 4 MB are left alone. */
void pages_prefer_huge(void *p, size_t len);
/* Copies n bytes into the arena. */
void *arena_dup(arena *a, const void *p, size_t n);
/* Copies a NUL-terminated string (or the first n chars with arena_strndup). */
char *arena_strdup(arena *a, const char *s);
char *arena_strndup(arena *a, const char *s, size_t n);

#endif
