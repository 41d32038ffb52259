/* hash.h: graft's one hash: FNV-1a, 64-bit, over bytes and strings; a
 * mixer that folds 64-bit values (ids, kinds, counts) into a running hash;
 * and the hashing of attribute values that CSE's table (engine/cse.c) and
 * the driver's fingerprints (engine/driver.c) share.
 *
 * FNV-1a starts from HASH_FNV_OFFSET and, per byte b, computes
 * h = (h ^ b) * 0x100000001b3. Where a value must stay the same from run to
 * run, use hash_bytes / hash_string alone: the checksums `graft run` prints,
 * the data of literals a dump elides (seeded from the literal's name) and
 * the cache key of a compiled rule file rely on it. hash_mix and
 * hash_finish values, and anything over pointers, only ever compare within
 * one process.
 */
#ifndef GRAFT_HASH_H
#define GRAFT_HASH_H

#include "attr.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* FNV-1a's offset basis: the hash of no bytes, where every hash starts. */
#define HASH_FNV_OFFSET 0xcbf29ce484222325ull

/* Folds n bytes into h (FNV-1a steps). */
static inline uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t k = 0; k < n; k++)
        h = (h ^ b[k]) * 0x100000001b3ull;
    return h;
}

/* Folds the bytes of a NUL-terminated string, without the NUL, into h. */
static inline uint64_t hash_string(uint64_t h, const char *s)
{
    return hash_bytes(h, s, strlen(s));
}

/* Folds a 64-bit value v into the running hash h (not FNV: one step for the
 * whole value). */
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
