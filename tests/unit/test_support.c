/* test_support.c: the ground floor's small helpers: hashing (ir/hash.h).
 *
 * The FNV-1a values are the published test vectors: graft's checksums, the
 * data of elided literals and the rule cache key must not change from run
 * to run or release to release, so they are pinned here.
 */
#include "check.h"
#include "hash.h"

#include <stdint.h>

static void test_fnv1a_test_vectors(void)
{
    CHECK(hash_bytes(HASH_FNV_OFFSET, "", 0) == 0xcbf29ce484222325ull);
    CHECK(hash_bytes(HASH_FNV_OFFSET, "a", 1) == 0xaf63dc4c8601ec8cull);
    CHECK(hash_bytes(HASH_FNV_OFFSET, "foobar", 6) == 0x85944171f73967e8ull);
    CHECK(hash_string(HASH_FNV_OFFSET, "foobar") == 0x85944171f73967e8ull);
    CHECK(hash_string(HASH_FNV_OFFSET, "") == HASH_FNV_OFFSET);
}

static void test_fnv1a_folds_in_pieces(void)
{
    uint64_t whole = hash_string(HASH_FNV_OFFSET, "foobar");
    CHECK(hash_string(hash_string(HASH_FNV_OFFSET, "foo"), "bar") == whole);
    CHECK(hash_bytes(hash_bytes(HASH_FNV_OFFSET, "fo", 2), "obar", 4) == whole);
    /* Bytes, not characters: a NUL and the bytes after it count. */
    CHECK(hash_bytes(HASH_FNV_OFFSET, "a\0b", 3) != hash_string(HASH_FNV_OFFSET, "a"));
}

static void test_mix_and_finish_tell_values_apart(void)
{
    uint64_t h = HASH_FNV_OFFSET;
    CHECK(hash_mix(h, 1) != hash_mix(h, 2));
    CHECK(hash_mix(hash_mix(h, 1), 2) != hash_mix(hash_mix(h, 2), 1));
    CHECK(hash_mix(h, 7) == hash_mix(h, 7));
    /* hash_finish moves a difference in a high bit into the low bits. */
    uint64_t a = hash_finish(1ull << 63), b = hash_finish(0);
    CHECK(((a ^ b) & 0xffff) != 0);
}

static void test_attr_values_hash_by_contents(void)
{
    int64_t x[] = {1, 2, 3}, y[] = {1, 2, 3}, z[] = {1, 2, 4};
    attr_value a = {.kind = ATTR_INTS, .n = 3, .u.ints = x};
    attr_value b = {.kind = ATTR_INTS, .n = 3, .u.ints = y};
    attr_value c = {.kind = ATTR_INTS, .n = 3, .u.ints = z};
    CHECK(hash_attr_value(0, a) == hash_attr_value(0, b));
    CHECK(hash_attr_value(0, a) != hash_attr_value(0, c));
    CHECK(hash_attr_value(0, attr_int(1)) != hash_attr_value(0, attr_bool(true)));
}

int main(void)
{
    RUN(test_fnv1a_test_vectors);
    RUN(test_fnv1a_folds_in_pieces);
    RUN(test_mix_and_finish_tell_values_apart);
    RUN(test_attr_values_hash_by_contents);
    return tests_finish();
}
