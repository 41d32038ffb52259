/* jobs.c: child processes for compile jobs, and the compile cache.
 *
 * Each job forks one child; the child runs the job function, its log going
 * to a temporary file, and leaves with _exit (no atexit handlers, no
 * sanitizer leak report from a child that loaded a large runtime). The
 * parent keeps at most `parallel` children alive, waits for its own
 * children only (never waitpid(-1): the caller may have children of its
 * own), and reads the log back. A child killed by a signal (hiprtc aborts on some
 * architecture names) is a crash of that job only.
 *
 * The cache hash is two independent 64-bit hashes (FNV-1a and a
 * multiply-rotate hash) over the same bytes: not cryptographic, but cache
 * keys only need to tell different sources, architectures and options
 * apart.
 */
#include "jobs.h"

#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double cg_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool cg_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static char *read_log(int fd)
{
    off_t end = lseek(fd, 0, SEEK_END);
    if (end < 0)
        end = 0;
    if (end > (1 << 20))
        end = 1 << 20;
    char *s = malloc((size_t)end + 1);
    if (!s)
        return NULL;
    ssize_t got = pread(fd, s, (size_t)end, 0);
    s[got > 0 ? got : 0] = 0;
    return s;
}

typedef struct running {
    pid_t pid;
    int job;
    int log_fd;
    double start;
} running;

bool cg_run_jobs(int njobs, int parallel, cg_job_fn fn, void *ctx, cg_job_result *results,
                 graft_error *err)
{
    if (parallel <= 0)
        parallel = 2;
    running *run = calloc((size_t)parallel, sizeof *run);
    if (!run)
        return error_set(err, "out of memory");
    for (int j = 0; j < njobs; j++)
        memset(&results[j], 0, sizeof results[j]);
    int next = 0, active = 0, started = 0;
    fflush(NULL);
    while (next < njobs || active > 0) {
        while (next < njobs && active < parallel) {
            char tmpl[4096];
            const char *tmp = getenv("TMPDIR");
            snprintf(tmpl, sizeof tmpl, "%s/graft-job-XXXXXX", tmp && *tmp ? tmp : "/tmp");
            int fd = mkstemp(tmpl);
            if (fd >= 0)
                unlink(tmpl);
            pid_t pid = fd >= 0 ? fork() : -1;
            if (pid == 0) {
                int st = fn(ctx, next, fd);
                _exit(st);
            }
            if (pid < 0) {
                results[next].status = 3;
                results[next].log = strdup(strerror(errno));
                if (fd >= 0)
                    close(fd);
                next++;
                continue;
            }
            int slot = 0;
            while (run[slot].pid)
                slot++;
            run[slot] = (running){pid, next, fd, cg_seconds()};
            active++;
            started++;
            next++;
        }
        if (active == 0)
            break;
        /* wait for one of our own children only (a library must not reap
         * its caller's): poll them, sleeping briefly between rounds */
        int wst = 0, s = -1;
        while (s < 0) {
            for (int k = 0; k < parallel && s < 0; k++) {
                if (!run[k].pid)
                    continue;
                pid_t got = waitpid(run[k].pid, &wst, WNOHANG);
                if (got == run[k].pid || (got < 0 && errno != EINTR)) {
                    if (got < 0)
                        wst = 0x7f00; /* lost: count as failed */
                    s = k;
                }
            }
            if (s < 0) {
                struct timespec nap = {0, 2000000};
                nanosleep(&nap, NULL);
            }
        }
        cg_job_result *r = &results[run[s].job];
        r->seconds = cg_seconds() - run[s].start;
        r->log = read_log(run[s].log_fd);
        close(run[s].log_fd);
        if (WIFSIGNALED(wst)) {
            r->status = 2;
            r->signal = WTERMSIG(wst);
        } else {
            r->status = WIFEXITED(wst) && WEXITSTATUS(wst) == 0 ? 0 : 1;
        }
        run[s].pid = 0;
        active--;
    }
    free(run);
    if (started == 0 && njobs > 0)
        return error_set(err, "could not start a child process: %s",
                         results[0].log ? results[0].log : "fork failed");
    return true;
}

/* ---- cache ---- */

static bool mkdirs(const char *path, graft_error *err)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *s = buf + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return error_set(err, "cannot create directory %s: %s", buf, strerror(errno));
        *s = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return error_set(err, "cannot create directory %s: %s", buf, strerror(errno));
    return true;
}

bool cg_cache_dir(const char *override, const char *sub, char *out, size_t size,
                  graft_error *err)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (override && *override)
        snprintf(out, size, "%s", override);
    else if (xdg && *xdg)
        snprintf(out, size, "%s/graft/%s", xdg, sub);
    else if (home && *home)
        snprintf(out, size, "%s/.cache/graft/%s", home, sub);
    else
        snprintf(out, size, "/tmp/graft-cache-%d/%s", (int)getuid(), sub);
    return mkdirs(out, err);
}

void cg_hash_init(cg_hasher *h)
{
    h->a = 0xcbf29ce484222325ull;
    h->b = 0x9e3779b97f4a7c15ull;
}

void cg_hash_add(cg_hasher *h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t k = 0; k < n; k++) {
        h->a = (h->a ^ p[k]) * 0x100000001b3ull;
        h->b = (h->b ^ (p[k] + 0x9fu)) * 0xff51afd7ed558ccdull;
        h->b = (h->b << 29) | (h->b >> 35);
    }
}

void cg_hash_str(cg_hasher *h, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    cg_hash_add(h, &n, sizeof n);
    if (n)
        cg_hash_add(h, s, n);
}

void cg_hash_hex(const cg_hasher *h, char out[33])
{
    uint64_t b = h->b ^ (h->b >> 31);
    b *= 0xc4ceb9fe1a85ec53ull;
    b ^= b >> 33;
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h->a, (unsigned long long)b);
}
