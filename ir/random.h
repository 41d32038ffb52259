/* random.h: graft's one seeded generator, splitmix64 (Steele, Lea and
 * Flood's SplitMix, 64-bit).
 *
 * Used where numbers must be arbitrary yet the same on every run and
 * machine: the data the dump reader fills in for a literal written as
 * `{ ... }` (seeded from the literal's name, so a dump reads back to the
 * same numbers) and the random inputs of `graft run --seed N`. Changing it
 * changes both, and with them every checksum a test pins.
 */
#ifndef GRAFT_RANDOM_H
#define GRAFT_RANDOM_H

#include <stdint.h>

/* The next number of the sequence *state is at; moves *state on. */
static inline uint64_t random_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
