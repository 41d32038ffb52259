/* base64.h: decoding standard base64 (A-Z a-z 0-9 + /, '=' padding).
 *
 * Literal data travels as base64 in two places: the dump format's
 * `{b64:...}` literals (import/dump_read.c) and MIGraphX JSON literal data
 * (import/mgx_json.c). Both decode through these two functions so that what
 * counts as valid base64, and how it decodes, is said once. Encoding lives
 * with its one user, the dump writer.
 */
#ifndef GRAFT_BASE64_H
#define GRAFT_BASE64_H

#include <stdbool.h>
#include <stddef.h>

/* Whether p[0..n) is base64 (whole groups of four characters, at most two
 * '=' only at the end) and, when it is, how many bytes it decodes to. */
bool base64_decoded_size(const char *p, size_t n, size_t *bytes);

/* Decodes p[0..n), text base64_decoded_size accepted, into out, writing at
 * most `bytes` bytes. */
void base64_decode(const char *p, size_t n, void *out, size_t bytes);

#endif
