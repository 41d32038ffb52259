/* ptr_set.c: see ptr_set.h. */
#include "ptr_set.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What a removed pointer leaves behind: never equal to a stored pointer. */
static const char tombstone;

static size_t slot_of(const void *p, size_t cap)
{
    uint64_t h = (uint64_t)((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32 ^ h) & (cap - 1);
}

/* Rebuilds the table with cap slots, dropping tombstones. */
static bool rehash(ptr_set *s, size_t cap)
{
    const void **slot = calloc(cap, sizeof *slot);
    if (!slot) {
        s->failed = true;
        return false;
    }
    for (size_t k = 0; k < s->cap; k++) {
        const void *p = s->slot[k];
        if (!p || p == &tombstone)
            continue;
        size_t h = slot_of(p, cap);
        while (slot[h])
            h = (h + 1) & (cap - 1);
        slot[h] = p;
    }
    free(s->slot);
    s->slot = slot;
    s->cap = cap;
    s->used = s->n;
    return true;
}

bool ptr_set_has(const ptr_set *s, const void *p)
{
    if (!s->cap)
        return false;
    for (size_t h = slot_of(p, s->cap);; h = (h + 1) & (s->cap - 1)) {
        if (s->slot[h] == p)
            return true;
        if (!s->slot[h])
            return false;
    }
}

bool ptr_set_add(ptr_set *s, const void *p)
{
    if (ptr_set_has(s, p))
        return false;
    if (2 * (s->used + 1) > s->cap) {
        /* Mostly tombstones: rebuild at the same size; else double. */
        size_t cap = s->cap && 4 * (s->n + 1) <= s->cap ? s->cap : (s->cap ? 2 * s->cap : 64);
        if (!rehash(s, cap))
            return false;
    }
    size_t h = slot_of(p, s->cap);
    while (s->slot[h] && s->slot[h] != &tombstone)
        h = (h + 1) & (s->cap - 1);
    if (!s->slot[h])
        s->used++;
    s->slot[h] = p;
    s->n++;
    return true;
}

void ptr_set_remove(ptr_set *s, const void *p)
{
    if (!s->cap)
        return;
    for (size_t h = slot_of(p, s->cap);; h = (h + 1) & (s->cap - 1)) {
        if (!s->slot[h])
            return;
        if (s->slot[h] == p) {
            s->slot[h] = &tombstone;
            s->n--;
            return;
        }
    }
}

void ptr_set_clear(ptr_set *s)
{
    if (s->cap)
        memset(s->slot, 0, s->cap * sizeof *s->slot);
    s->n = s->used = 0;
}

void ptr_set_free(ptr_set *s)
{
    free(s->slot);
    memset(s, 0, sizeof *s);
}
