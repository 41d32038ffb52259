/* hash.h: the 64-bit hashing of instructions' parts, shared by CSE's table
 * of seen expressions (cse.c) and the driver's instruction fingerprints
 * (driver.c), so that both hash attributes the same way.
 *
 * None of these values is stable across runs or written anywhere (pointers
 * are hashed): they only ever compare within one process.
 */
#ifndef GRAFT_HASH_H
#define GRAFT_HASH_H

#include "attr.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Folds v into the running hash h. */
static inline uint64_t hash_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* Spreads every bit of h over the low bits (MurmurHash3's finaliser), for
 * hash-table indices taken with a mask: hash_mix alone moves differences
 * mostly upwards. */
static inline uint64_t hash_finish(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

/* Folds n bytes into h (FNV-1a steps). */
static inline uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t k = 0; k < n; k++)
        h = (h ^ b[k]) * 0x100000001B3ull;
    return h;
}

/* Folds an attribute value (its kind and contents) into h. */
static inline uint64_t hash_attr_value(uint64_t h, attr_value v)
{
    h = hash_mix(h, (uint64_t)v.kind);
    switch (v.kind) {
    case ATTR_FLOAT: return hash_bytes(h, &v.u.f, sizeof v.u.f);
    case ATTR_STRING: return v.u.s ? hash_bytes(h, v.u.s, strlen(v.u.s)) : h;
    case ATTR_INTS:
        return hash_bytes(hash_mix(h, (uint64_t)v.n), v.u.ints, (size_t)v.n * sizeof *v.u.ints);
    case ATTR_FLOATS:
        return hash_bytes(hash_mix(h, (uint64_t)v.n), v.u.floats, (size_t)v.n * sizeof *v.u.floats);
    default: return hash_mix(h, (uint64_t)v.u.i);
    }
}

#endif
