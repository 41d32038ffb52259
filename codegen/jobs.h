/* jobs.h: compile jobs in child processes, several at once, and the cache
 * their results go to.
 *
 * hiprtc serializes compilations within a process and aborts the process
 * for some architecture names, and the emu device compiles with the system
 * C compiler: both run as child processes, at most `parallel` at a time.
 * A job that fails reports a log; a child that dies from a signal is
 * reported as a crash, never taken down with the caller. Results are cached
 * under a directory named by a hash of everything that determines them.
 */
#ifndef GRAFT_JOBS_H
#define GRAFT_JOBS_H

#include "error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Runs in the child: job `job` of ctx; writes anything worth reporting to
 * log_fd; returns the child's exit status (0 success). */
typedef int (*cg_job_fn)(void *ctx, int job, int log_fd);

typedef struct cg_job_result {
    int status;     /* 0 ok, 1 failed, 2 crashed (signal), 3 could not start */
    int signal;     /* the signal, for crashes */
    char *log;      /* malloc'd (may be empty), or NULL */
    double seconds; /* wall time of the child */
} cg_job_result;

/* Runs jobs 0..njobs-1, at most `parallel` at once (0: 2). results has room
 * for njobs; the caller frees each log. False only when no child could be
 * started at all (err set). */
bool cg_run_jobs(int njobs, int parallel, cg_job_fn fn, void *ctx, cg_job_result *results,
                 graft_error *err);

/* ---- the cache ---- */
/* dir/sub, made if missing: override, or $XDG_CACHE_HOME/graft/sub, or
 * $HOME/.cache/graft/sub. */
bool cg_cache_dir(const char *override, const char *sub, char *out, size_t size,
                  graft_error *err);

/* A 128-bit hash of a sequence of byte strings, as 32 hex digits. */
typedef struct cg_hasher {
    uint64_t a, b;
} cg_hasher;
void cg_hash_init(cg_hasher *h);
void cg_hash_add(cg_hasher *h, const void *data, size_t n);
void cg_hash_str(cg_hasher *h, const char *s); /* the string and its length */
void cg_hash_hex(const cg_hasher *h, char out[33]);

bool cg_file_exists(const char *path);
double cg_seconds(void);

#endif
