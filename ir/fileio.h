/* fileio.h: reading whole files and writing files atomically.
 *
 * The ground floor of every reader and writer in graft (dumps, ONNX models
 * and tensors, rule files, compiled-rule caches, generated kernels): a file
 * comes in whole as bytes, and goes out through a temporary file renamed
 * into place, so a failure never leaves a half-written file behind.
 */
#ifndef GRAFT_FILEIO_H
#define GRAFT_FILEIO_H

#include "error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Shared by every writer: writes len bytes to path via path.tmpXXXXXX +
 * rename. "-" writes to stdout. */
bool write_file_atomic(const char *path, const void *data, size_t len, graft_error *err);
/* Reads a whole file (malloc'd, NUL-terminated); *len gets its size. */
char *read_file_all(const char *path, size_t *len, graft_error *err);
/* Reads f to its end into a malloc'd buffer (not NUL-terminated) that starts
 * with room for size_hint + 1 bytes (64 KiB when size_hint is 0) and doubles
 * as it fills; *len gets how many bytes were read. NULL when out of memory.
 * A read error ends the reading early, and read_error (when not NULL) says
 * whether one happened. For binary readers (ONNX models and tensors) that
 * report failures in their own words. */
unsigned char *read_stream_bytes(FILE *f, size_t size_hint, size_t *len, bool *read_error);

#endif
