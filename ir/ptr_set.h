/* ptr_set.h: a set of pointers compared by identity (instructions,
 * modules), for the walks that must visit each value once however many paths
 * reach it (fusion's guards, region merging's cycle check) and for the rewrite
 * driver's set of region bodies.
 *
 * Open addressing with linear probing over a multiplicative hash of the
 * address; the table doubles before it is half full (live entries plus
 * tombstones), so adding and finding are O(1) on average. Removing leaves a
 * tombstone. The set owns its table, not what the pointers point to. A
 * zeroed ptr_set is an empty set. Out of memory sets `failed` and the add
 * reports "not added": callers that walk a graph then answer cautiously.
 */
#ifndef GRAFT_PTR_SET_H
#define GRAFT_PTR_SET_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ptr_set {
    const void **slot;
    size_t cap;  /* slots, a power of two (0: no table yet) */
    size_t n;    /* pointers in the set */
    size_t used; /* slots not empty: pointers and tombstones */
    bool failed; /* an add ran out of memory */
} ptr_set;

/* Adds p (not NULL). True when p was not in the set and now is; false when
 * it was there already or memory ran out (then `failed` is set). */
bool ptr_set_add(ptr_set *s, const void *p);
bool ptr_set_has(const ptr_set *s, const void *p);
/* Removes p if it is there. */
void ptr_set_remove(ptr_set *s, const void *p);
/* Empties the set, keeping its table. */
void ptr_set_clear(ptr_set *s);
/* Frees the table; the set is empty and usable again. */
void ptr_set_free(ptr_set *s);

#endif
