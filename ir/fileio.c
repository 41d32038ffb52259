/* fileio.c: reading whole files and writing files atomically.
 *
 * Every reader in graft (dumps, ONNX, rule files) takes a whole file as
 * bytes through read_file_all, and every writer goes through
 * write_file_atomic: the data goes to a temporary file beside the target,
 * which is renamed over it only once everything is written, so a failure
 * (full disk, bad graph) never leaves a half-written file behind. "-" means
 * standard input or output.
 */
#include "fileio.h"

#include "arena.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *read_stream(FILE *f, const char *path, size_t *len, graft_error *err)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        error_set(err, "%s: out of memory", path);
        return NULL;
    }
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > ((size_t)-1) / 4) {
                free(buf);
                error_set(err, "%s: file too large", path);
                return NULL;
            }
            char *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                error_set(err, "%s: out of memory", path);
                return NULL;
            }
            buf = p;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                int e = errno;
                free(buf);
                error_set(err, "cannot read '%s': %s", path, strerror(e));
                return NULL;
            }
            break;
        }
    }
    buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

unsigned char *read_stream_bytes(FILE *f, size_t size_hint, size_t *len, bool *read_error)
{
    size_t cap = size_hint ? size_hint + 1 : (size_t)1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        unsigned char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    if (read_error)
        *read_error = ferror(f) != 0;
    *len = n;
    return buf;
}

char *read_file_all(const char *path, size_t *len, graft_error *err)
{
    if (!path) {
        error_set(err, "read_file_all: no path");
        return NULL;
    }
    if (strcmp(path, "-") == 0)
        return read_stream(stdin, "<stdin>", len, err);
    FILE *f = fopen(path, "rb");
    if (!f) {
        error_set(err, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    bool have_stat = fstat(fileno(f), &st) == 0;
    if (have_stat && S_ISDIR(st.st_mode)) {
        fclose(f);
        error_set(err, "cannot read '%s': it is a directory", path);
        return NULL;
    }
    /* A regular file of known size: one buffer of that size, filled by
     * read() with no stdio copy and no regrowing (a big dump is read once,
     * straight into the memory the reader scans). */
    if (have_stat && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size < ((size_t)-1) / 2) {
        size_t size = (size_t)st.st_size, n = 0;
        char *buf = malloc(size + 1);
        if (!buf) {
            fclose(f);
            error_set(err, "%s: out of memory", path);
            return NULL;
        }
        pages_prefer_huge(buf, size + 1);
        int fd = fileno(f);
        while (n < size) {
            ssize_t got = read(fd, buf + n, size - n);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                break;
            n += (size_t)got;
        }
        if (n == size) {
            /* at the end, unless the file grew meanwhile: then the slow way */
            char probe;
            ssize_t more = read(fd, &probe, 1);
            if (more == 0) {
                fclose(f);
                buf[n] = 0;
                if (len)
                    *len = n;
                return buf;
            }
        }
        free(buf);
        if (fseek(f, 0, SEEK_SET) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
            fclose(f);
            error_set(err, "cannot read '%s': %s", path, strerror(errno));
            return NULL;
        }
    }
    char *buf = read_stream(f, path, len, err);
    fclose(f);
    return buf;
}

static bool write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        p += n;
        len -= (size_t)n;
    }
    return true;
}

bool write_file_atomic(const char *path, const void *data, size_t len, graft_error *err)
{
    if (!path)
        return error_set(err, "write_file_atomic: no path");
    if (strcmp(path, "-") == 0) {
        if (!write_all(STDOUT_FILENO, data, len))
            return error_set(err, "cannot write to standard output: %s", strerror(errno));
        return true;
    }
    size_t n = strlen(path);
    char *tmp = malloc(n + sizeof ".tmpXXXXXX");
    if (!tmp)
        return error_set(err, "out of memory");
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmpXXXXXX", sizeof ".tmpXXXXXX");
    int fd = mkstemp(tmp);
    if (fd < 0) {
        error_set(err, "cannot create a temporary file for '%s': %s", path, strerror(errno));
        free(tmp);
        return false;
    }
    /* keep an existing file's permissions; new files get rw-r--r-- */
    struct stat st;
    mode_t mode = stat(path, &st) == 0 ? st.st_mode & 07777 : 0644;
    bool ok = fchmod(fd, mode) == 0 || errno == EPERM;
    int e = 0;
    if (!write_all(fd, data, len) || fsync(fd) != 0)
        ok = false, e = errno;
    if (close(fd) != 0 && ok)
        ok = false, e = errno;
    if (ok && rename(tmp, path) != 0)
        ok = false, e = errno;
    if (!ok) {
        unlink(tmp);
        error_set(err, "cannot write '%s': %s", path, strerror(e ? e : errno));
    }
    free(tmp);
    return ok;
}
