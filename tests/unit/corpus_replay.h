/* corpus_replay.h: replaying a fuzz target's seed corpus and fixed crashers
 * (tests/fuzz/corpus_NAME, regress_NAME) in the unit tests, so that every
 * input a fuzzer ever needed stays covered by `make test`.
 *
 * Shared by test_dump.c, test_dsl.c, test_mgx_import.c and test_onnx.c: each
 * gives the per-file check (the fuzz target's contract), this walks the
 * directory and reads the files.
 */
#ifndef GRAFT_CORPUS_REPLAY_H
#define GRAFT_CORPUS_REPLAY_H

#include "check.h"
#include "dump.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

/* Checks one input: path names it, bytes holds its len bytes (NUL-ended). */
typedef void (*corpus_check_fn)(const char *path, const char *bytes, size_t len);

/* Runs check on every file in dir (dot files skipped). Returns how many
 * files were checked, or -1 when dir does not exist. A file that cannot be
 * read is a failure. */
static int corpus_replay(const char *dir, corpus_check_fn check)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%.4000s/%.255s", dir, e->d_name);
        size_t len;
        char *bytes = read_file_all(path, &len, NULL);
        CHECK(bytes != NULL);
        if (!bytes)
            continue;
        check(path, bytes, len);
        free(bytes);
        count++;
    }
    closedir(d);
    return count;
}

#endif
