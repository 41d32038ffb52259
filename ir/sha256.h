/* sha256.h: SHA-256 (FIPS 180-4), for content that must not be mistaken for
 * other content: the compiled-rule cache keys its objects and records their
 * digests with it (dsl/load.c). Incremental: init, any number of updates,
 * final. No state outside the context, so safe on any thread.
 */
#ifndef GRAFT_SHA256_H
#define GRAFT_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256_ctx {
    uint32_t h[8];
    uint64_t bytes;        /* message length so far */
    unsigned char block[64];
    size_t used;           /* bytes waiting in block */
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t n);
void sha256_final(sha256_ctx *c, unsigned char digest[32]);
/* The digest as 64 lowercase hex digits and a NUL. */
void sha256_hex(const unsigned char digest[32], char hex[65]);

#endif
