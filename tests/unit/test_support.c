/* test_support.c: the ground floor's small helpers: hashing (ir/hash.h),
 * the growing text buffer (ir/strbuf.h) and errors (ir/error.h).
 *
 * The FNV-1a values are the published test vectors: graft's checksums, the
 * data of elided literals and the rule cache key must not change from run
 * to run or release to release, so they are pinned here.
 */
#include "check.h"
#include "error.h"
#include "hash.h"
#include "strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

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

static void test_strbuf_appends_and_hands_over(void)
{
    strbuf b = {0};
    strbuf_append(&b, "ab", 2);
    strbuf_append_string(&b, "cd");
    strbuf_appendf(&b, "-%d-%s", 42, "x");
    CHECK_STR(b.text, "abcd-42-x");
    CHECK_INT(b.len, 9);
    size_t len = 0;
    char *text = strbuf_take(&b, &len);
    CHECK_STR(text, "abcd-42-x");
    CHECK_INT(len, 9);
    /* The buffer is empty again and reusable. */
    CHECK(b.text == NULL && b.len == 0 && b.cap == 0 && !b.failed);
    free(text);
}

static void test_strbuf_grows_past_its_room(void)
{
    strbuf b = {0};
    char chunk[1000];
    memset(chunk, 'y', sizeof chunk - 1);
    chunk[sizeof chunk - 1] = 0;
    for (int k = 0; k < 100; k++)
        strbuf_appendf(&b, "%d:%s;", k, chunk);
    size_t want = 0;
    for (int k = 0; k < 100; k++)
        want += (size_t)snprintf(NULL, 0, "%d:", k) + 999 + 1;
    CHECK_INT(b.len, want);
    CHECK_INT(strlen(b.text), want);
    CHECK(strncmp(b.text + b.len - 1003, "99:yyy", 6) == 0);
    CHECK(!b.failed);
    /* A format longer than the room left is written whole. */
    strbuf c = {0};
    strbuf_append_string(&c, "x");
    strbuf_appendf(&c, "%s", chunk);
    CHECK_INT(c.len, 1000);
    CHECK(c.text[999] == 'y' && c.text[1000] == 0);
    strbuf_free(&c);
    strbuf_free(&b);
    CHECK(b.text == NULL && b.len == 0);
}

static void test_strbuf_keeps_nul_bytes(void)
{
    strbuf b = {0};
    strbuf_append(&b, "a\0b", 3);
    CHECK_INT(b.len, 3);
    CHECK(memcmp(b.text, "a\0b", 4) == 0);
    strbuf_free(&b);
}

static void test_strbuf_empty_and_reserve(void)
{
    strbuf b = {0};
    size_t len = 99;
    char *text = strbuf_take(&b, &len);
    CHECK_STR(text, "");
    CHECK_INT(len, 0);
    free(text);
    CHECK(strbuf_reserve(&b, 5000));
    CHECK(b.cap >= 5001);
    char *before = b.text;
    for (int k = 0; k < 5000; k++)
        strbuf_append(&b, "z", 1);
    CHECK(b.text == before); /* reserved: no reallocation */
    strbuf_free(&b);
}

static void test_strbuf_failure_is_sticky(void)
{
    strbuf b = {0};
    strbuf_append_string(&b, "kept");
    CHECK(!strbuf_reserve(&b, (size_t)-1 / 2)); /* more than can ever be had */
    CHECK(b.failed);
    strbuf_append_string(&b, "dropped");
    strbuf_appendf(&b, "%s", "dropped");
    CHECK_STR(b.text, "kept");
    size_t len = 7;
    CHECK(strbuf_take(&b, &len) == NULL);
    CHECK_INT(len, 0);
    CHECK(b.text == NULL && !b.failed);
}

/* A function that takes a format itself, the way the readers' fail() do. */
static bool fail_here(graft_error *err, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail_here(graft_error *err, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (line)
        error_atv(err, "x.dump", line, 7, fmt, ap);
    else
        error_setv(err, fmt, ap);
    va_end(ap);
    return false;
}

static void test_error_setv_and_atv(void)
{
    graft_error err = {0};
    CHECK(!fail_here(&err, 3, "expected %s, got %d", "a shape", 42));
    CHECK(strcmp(err.message, "expected a shape, got 42") == 0);
    CHECK_STR(err.file, "x.dump");
    CHECK_INT(err.line, 3);
    CHECK_INT(err.col, 7);
    char buf[256];
    CHECK_STR(graft_error_format(&err, buf, sizeof buf), "x.dump:3:7: expected a shape, got 42");
    /* The plain form clears the location. */
    CHECK(!fail_here(&err, 0, "%s", "no place"));
    CHECK(strcmp(err.message, "no place") == 0);
    CHECK_STR(err.file, "");
    CHECK_INT(err.line, 0);
    CHECK_INT(err.col, 0);
    /* A NULL error is allowed and still says false. */
    CHECK(!fail_here(NULL, 1, "%d", 1));
}

static void test_error_reraises_its_own_message(void)
{
    graft_error err = {0};
    error_at(&err, "in.onnx", 2, 5, "bad input %d", 3);
    CHECK(!fail_here(&err, 0, "node 'n': %s", err.message));
    CHECK(strcmp(err.message, "node 'n': bad input 3") == 0);
    error_at(&err, "in.onnx", 2, 5, "twice");
    CHECK(!error_at(&err, err.file, 9, 1, "%s; %s", err.message, err.message));
    CHECK(strcmp(err.message, "twice; twice") == 0);
    CHECK_STR(err.file, "in.onnx");
    CHECK_INT(err.line, 9);
}

static void test_error_truncates_long_messages(void)
{
    graft_error err = {0};
    char big[3000];
    memset(big, 'm', sizeof big - 1);
    big[sizeof big - 1] = 0;
    fail_here(&err, 1, "%s", big);
    CHECK_INT(strlen(err.message), sizeof err.message - 1);
    error_prefix(&err, "%s", "pre");
    CHECK(strncmp(err.message, "pre: mmm", 8) == 0);
    CHECK_INT(strlen(err.message), sizeof err.message - 1);
}

int main(void)
{
    RUN(test_fnv1a_test_vectors);
    RUN(test_fnv1a_folds_in_pieces);
    RUN(test_mix_and_finish_tell_values_apart);
    RUN(test_attr_values_hash_by_contents);
    RUN(test_strbuf_appends_and_hands_over);
    RUN(test_strbuf_grows_past_its_room);
    RUN(test_strbuf_keeps_nul_bytes);
    RUN(test_strbuf_empty_and_reserve);
    RUN(test_strbuf_failure_is_sticky);
    RUN(test_error_setv_and_atv);
    RUN(test_error_reraises_its_own_message);
    RUN(test_error_truncates_long_messages);
    return tests_finish();
}
