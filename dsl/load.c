/* load.c: runs a user's rule file without rebuilding graft.
 *
 * `graft opt -r mine.rules` compiles the file to C with the same pipeline the
 * build uses, writes the IR headers graft embeds (build/gen/embedded_headers.c)
 * next to it, builds a shared object with the system C compiler (cc, gcc or
 * clang, whichever PATH has first, or $GRAFT_CC) and loads it with dlopen.
 * Static errors come out of the rule compiler with file:line:col before any
 * compiler runs; a missing compiler is named as such, and a compiler failure
 * quotes its first lines.
 *
 * The cache ($XDG_CACHE_HOME/graft, ~/.cache/graft, or the directory given)
 * holds one directory per key (see load.h for what the key covers and what
 * the record holds). A shared object runs code the moment it is loaded, so
 * nothing is loaded from the cache before it has passed every check: the
 * cache root is ours and not writable by group or others; the entry is a
 * directory (not a symlink) of ours with mode 0700; the object and its
 * record are regular files of ours that nobody else may write; the record
 * names this graft's build and this key; the object's SHA-256 equals the
 * recorded one. An entry that fails any check is moved out of the way and
 * the rules are compiled again: a stale or planted object costs a
 * recompilation, never a failure, and is never loaded. New entries are built
 * in a private directory (mkdtemp, 0700; files 0600) and published with one
 * rename, so a reader never sees half an entry.
 *
 * What the checks cannot stop: someone running as the same user can write a
 * matching record too; the cache trusts its owner, as ~/.bashrc does.
 *
 * The build id also covers the numbering generated code bakes in as
 * constants (op codes, attribute slots, helper indices; dsl/emit.c), so a
 * changed op table gives new entries rather than objects whose entry
 * function refuses this graft.
 *
 * Threads: loading is serialised by one mutex (dlopen, the entry function
 * that fills the set's tables, dlclose); compiling is not (every build has
 * its own directory).
 */
#include "load.h"

#include "api.h"
#include "compile.h"
#include "fileio.h"
#include "helpers.h"
#include "sha256.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define CACHE_FORMAT "graft-rules-cache 1"
#define OBJECT_NAME "rules.so"
#define RECORD_NAME "rules.so.record"

/* Path buffers: the root, an entry or build directory in it, a file in that. */
enum { ROOT_MAX = 3800, DIR_MAX = ROOT_MAX + 100, FILE_MAX = DIR_MAX + 100 };

/* The flags every user rule object is built with (part of the key). */
static const char *const cc_flags[] = {"-std=c11", "-O2", "-fPIC", "-shared",
                                       "-fvisibility=hidden", "-w"};
enum { NFLAGS = (int)(sizeof cc_flags / sizeof cc_flags[0]) };

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- keys ---- */

/* A field of a key: its length, then its bytes, so that no two different
 * lists of fields hash alike. */
static void key_field(sha256_ctx *c, const void *p, size_t n)
{
    unsigned char len[8];
    for (int k = 0; k < 8; k++)
        len[k] = (unsigned char)((uint64_t)n >> (8 * k));
    sha256_update(c, len, sizeof len);
    sha256_update(c, p, n);
}

static void key_string(sha256_ctx *c, const char *s) { key_field(c, s, strlen(s)); }

/* What generated code's constants depend on: every op's name, code (its
 * position) and attribute names, and every helper's name and position. */
static void key_numbering(sha256_ctx *c)
{
    const op_def *op;
    for (int code = 1; (op = op_by_code(code)) != NULL; code++) {
        key_string(c, op->name);
        for (int a = 0; a < op->nattrs; a++)
            key_string(c, op->attrs[a].name);
        key_string(c, "\n");
    }
    int nhelpers;
    const rule_helper *helpers = rule_helpers(&nhelpers);
    for (int k = 0; k < nhelpers; k++)
        key_string(c, helpers[k].name);
}

void dsl_rules_build_id(char hex[65])
{
    sha256_ctx c;
    sha256_init(&c);
    key_string(&c, CACHE_FORMAT);
    key_string(&c, GRAFT_VERSION);
    char api[32];
    snprintf(api, sizeof api, "rule api %d", GRAFT_RULE_API_VERSION);
    key_string(&c, api);
    int n;
    const embedded_header *headers = graft_embedded_headers(&n);
    for (int k = 0; k < n; k++) {
        key_string(&c, headers[k].name);
        key_string(&c, headers[k].text);
    }
    key_numbering(&c);
    unsigned char d[32];
    sha256_final(&c, d);
    sha256_hex(d, hex);
}

/* The first of cc, gcc, clang found on PATH (GRAFT_CC overrides). */
static bool find_compiler(char *out, size_t size)
{
    const char *forced = getenv("GRAFT_CC");
    if (forced && forced[0]) {
        snprintf(out, size, "%s", forced);
        return access(out, X_OK) == 0;
    }
    static const char *const names[] = {"cc", "gcc", "clang"};
    const char *path = getenv("PATH");
    if (!path)
        return false;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const char *p = path;
        while (*p) {
            const char *end = strchr(p, ':');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            if (len > 0 && len < size - 16) {
                snprintf(out, size, "%.*s/%s", (int)len, p, names[k]);
                if (access(out, X_OK) == 0)
                    return true;
            }
            p += len;
            if (*p == ':')
                p++;
        }
    }
    return false;
}

/* Adds the compiler to the key: its path, the file it resolves to, and what
 * `cc --version` prints, so that another compiler (or an upgraded one) builds
 * its own objects. */
static bool key_compiler(sha256_ctx *key, const char *cc, graft_error *err)
{
    key_string(key, cc);
    char real[PATH_MAX];
    key_string(key, realpath(cc, real) ? real : "");
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return error_set(err, "cannot run %s --version: %s", cc, strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {(char *)cc, "--version", NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, cc, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return error_set(err, "cannot run %s: %s", cc, strerror(rc));
    }
    sha256_ctx out;
    sha256_init(&out);
    char buf[4096];
    ssize_t n;
    size_t total = 0;
    while ((n = read(fds[0], buf, sizeof buf)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        sha256_update(&out, buf, (size_t)n);
        total += (size_t)n;
    }
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return error_set(err, "waiting for %s: %s", cc, strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || total == 0)
        return error_set(err, "%s --version failed: is it a C compiler?", cc);
    unsigned char d[32];
    sha256_final(&out, d);
    key_field(key, d, sizeof d);
    for (int k = 0; k < NFLAGS; k++)
        key_string(key, cc_flags[k]);
    return true;
}

/* ---- the cache directory ---- */

static bool default_cache_dir(char *out, size_t size, graft_error *err)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(out, size, "%s/graft", xdg);
    else if (home && home[0])
        n = snprintf(out, size, "%s/.cache/graft", home);
    else
        return error_set(err, "no cache directory: set XDG_CACHE_HOME or HOME");
    if (n < 0 || (size_t)n >= size)
        return error_set(err, "cache path too long");
    return true;
}

/* mkdir -p; what it creates is private (0700). */
static bool make_dirs(const char *path, graft_error *err)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n >= sizeof buf)
        return error_set(err, "cache path too long: %s", path);
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0700) != 0 && errno != EEXIST)
                return error_set(err, "cannot create %s: %s", buf, strerror(errno));
            buf[i] = c;
        }
    }
    return true;
}

/* The root must be a directory of ours that nobody else can write to:
 * otherwise another user could rename our entries and put theirs in place. */
static bool check_root(const char *root, graft_error *err)
{
    struct stat st;
    if (stat(root, &st) != 0)
        return error_set(err, "rule cache %s: %s", root, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return error_set(err, "rule cache %s is not a directory", root);
    if (st.st_uid != geteuid())
        return error_set(err, "refusing the rule cache %s: it belongs to uid %u, not to you (%u)",
                         root, (unsigned)st.st_uid, (unsigned)geteuid());
    if (st.st_mode & 022)
        return error_set(err,
                         "refusing the rule cache %s: group or others may write to it (mode %03o; "
                         "chmod 700 %s)",
                         root, (unsigned)(st.st_mode & 0777), root);
    return true;
}

/* A file or directory of ours that nobody else may write to. */
static const char *unsafe(const struct stat *st, bool dir)
{
    if (st->st_uid != geteuid())
        return "belongs to another user";
    if (dir && (st->st_mode & 077))
        return "is open to group or others";
    if (st->st_mode & 022)
        return "is writable by group or others";
    return NULL;
}

/* Reads at most size - 1 bytes of an open file into buf (NUL-terminated). */
static size_t read_small(int fd, char *buf, size_t size)
{
    size_t n = 0;
    while (n < size - 1) {
        ssize_t r = read(fd, buf + n, size - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    return n;
}

static bool hash_fd(int fd, char hex[65])
{
    sha256_ctx c;
    sha256_init(&c);
    char buf[65536];
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return false;
        if (r == 0)
            break;
        sha256_update(&c, buf, (size_t)r);
    }
    unsigned char d[32];
    sha256_final(&c, d);
    sha256_hex(d, hex);
    return true;
}

typedef enum { CACHE_MISS, CACHE_HIT, CACHE_STALE } cache_state;

/* Opens name in dir as a regular file of ours nobody else may write to. */
static int open_checked(int dfd, const char *name, char *why, size_t size)
{
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, size, "%s: %s", name, errno == ELOOP ? "is a symbolic link" : strerror(errno));
        return -1;
    }
    struct stat st;
    const char *bad = fstat(fd, &st) != 0 ? strerror(errno)
                      : !S_ISREG(st.st_mode) ? "is not a regular file"
                                             : unsafe(&st, false);
    if (bad) {
        snprintf(why, size, "%s %s", name, bad);
        close(fd);
        return -1;
    }
    return fd;
}

/* Checks the entry in dir against the key; why says what failed. */
static cache_state check_entry(const char *dir, const char *build, const char *key, char *why,
                               size_t size)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        if (errno == ENOENT)
            return CACHE_MISS;
        snprintf(why, size, "the entry %s", errno == ELOOP || errno == ENOTDIR
                                                ? "is not a directory"
                                                : strerror(errno));
        return CACHE_STALE;
    }
    struct stat st;
    const char *bad = fstat(dfd, &st) != 0 ? strerror(errno) : unsafe(&st, true);
    if (bad) {
        snprintf(why, size, "the entry %s", bad);
        close(dfd);
        return CACHE_STALE;
    }
    cache_state state = CACHE_STALE;
    char record[1024], want[1024], have[65];
    int rfd = open_checked(dfd, RECORD_NAME, why, size);
    int ofd = rfd < 0 ? -1 : open_checked(dfd, OBJECT_NAME, why, size);
    if (rfd >= 0 && ofd >= 0) {
        read_small(rfd, record, sizeof record);
        if (!hash_fd(ofd, have)) {
            snprintf(why, size, "cannot read %s", OBJECT_NAME);
        } else {
            snprintf(want, sizeof want, "%s\nbuild %s\nkey %s\nsha256 %s\n", CACHE_FORMAT, build,
                     key, have);
            if (strcmp(record, want) == 0) {
                state = CACHE_HIT;
            } else {
                char other[100];
                const char *b = strstr(record, "\nbuild ");
                snprintf(other, sizeof other, "%.64s", b ? b + 7 : "");
                if (strncmp(record, CACHE_FORMAT "\n", sizeof CACHE_FORMAT) != 0)
                    snprintf(why, size, "the record is not one this graft writes");
                else if (strcmp(other, build) != 0)
                    snprintf(why, size, "it was built by another graft (build %.16s)", other);
                else
                    snprintf(why, size, "%s does not match its recorded SHA-256", OBJECT_NAME);
            }
        }
    }
    if (rfd >= 0)
        close(rfd);
    if (ofd >= 0)
        close(ofd);
    close(dfd);
    return state;
}

/* Removes the files of a directory, then the directory (one level: entries
 * have no subdirectories). Best effort. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, ".."))
                unlinkat(dirfd(d), e->d_name, 0);
        closedir(d);
    }
    rmdir(dir);
}

/* Moves an entry out of the way (atomically: a reader sees the old entry or
 * none), then deletes it. */
static void discard(const char *root, const char *dir)
{
    char trash[DIR_MAX];
    snprintf(trash, sizeof trash, "%s/.trash-XXXXXX", root);
    if (!mkdtemp(trash))
        return;
    char moved[FILE_MAX];
    snprintf(moved, sizeof moved, "%s/entry", trash);
    if (rename(dir, moved) == 0)
        remove_dir(moved);
    rmdir(trash);
}

/* ---- building ---- */

/* Creates path (which must not exist) with mode 0600 and writes text. */
static bool write_new(const char *path, const char *text, size_t len, graft_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return error_set(err, "cannot write %s: %s", path, strerror(errno));
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    bool ok = close(fd) == 0 && done == len;
    return ok || error_set(err, "cannot write %s", path);
}

/* Runs the compiler; on failure err quotes the start of its output. */
static bool run_compiler(const char *cc, const char *dir, graft_error *err)
{
    char include[FILE_MAX], log_path[FILE_MAX], c_path[FILE_MAX], so_path[FILE_MAX];
    snprintf(include, sizeof include, "-I%s", dir);
    snprintf(log_path, sizeof log_path, "%s/compile.log", dir);
    snprintf(c_path, sizeof c_path, "%s/rules.c", dir);
    snprintf(so_path, sizeof so_path, "%s/%s", dir, OBJECT_NAME);
    char *argv[NFLAGS + 6];
    int argc = 0;
    argv[argc++] = (char *)cc;
    for (int k = 0; k < NFLAGS; k++)
        argv[argc++] = (char *)cc_flags[k];
    argv[argc++] = include;
    argv[argc++] = "-o";
    argv[argc++] = so_path;
    argv[argc++] = c_path;
    argv[argc] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int rc = posix_spawn(&pid, cc, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return error_set(err, "cannot run %s: %s", cc, strerror(rc));
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            unlink(log_path);
            return error_set(err, "waiting for %s: %s", cc, strerror(errno));
        }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        unlink(log_path);
        return true;
    }
    char first[600] = "";
    int fd = open(log_path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        read_small(fd, first, sizeof first);
        close(fd);
    }
    return error_set(err, "%s failed to build the generated rules: %s", cc, first);
}

/* Builds the object in a fresh private directory under root, records its
 * digest, and publishes the directory as dir. *built gets the path to load:
 * the published object, or the private one when another process published
 * the same entry first (the caller then removes *tmp after loading). */
static bool build_entry(const char *root, const char *dir, const char *cc, const char *c_text,
                        const char *build, const char *key, char *built, size_t size, char *tmp,
                        size_t tmp_size, graft_error *err)
{
    snprintf(tmp, tmp_size, "%s/.build-XXXXXX", root);
    if (!mkdtemp(tmp))
        return error_set(err, "cannot create a directory in %s: %s", root, strerror(errno));
    int nheaders;
    const embedded_header *headers = graft_embedded_headers(&nheaders);
    char path[FILE_MAX];
    bool ok = true;
    for (int k = 0; ok && k < nheaders; k++) {
        snprintf(path, sizeof path, "%s/%s", tmp, headers[k].name);
        ok = write_new(path, headers[k].text, strlen(headers[k].text), err);
    }
    snprintf(path, sizeof path, "%s/rules.c", tmp);
    ok = ok && write_new(path, c_text, strlen(c_text), err);
    ok = ok && run_compiler(cc, tmp, err);
    snprintf(path, sizeof path, "%s/%s", tmp, OBJECT_NAME);
    char digest[65];
    int fd = -1;
    if (ok && (chmod(path, 0600) != 0 || (fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
               !hash_fd(fd, digest)))
        ok = error_set(err, "cannot read back %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    if (ok) {
        char record[400];
        snprintf(record, sizeof record, "%s\nbuild %s\nkey %s\nsha256 %s\n", CACHE_FORMAT, build,
                 key, digest);
        snprintf(path, sizeof path, "%s/%s", tmp, RECORD_NAME);
        ok = write_new(path, record, strlen(record), err);
    }
    if (!ok) {
        remove_dir(tmp);
        tmp[0] = '\0';
        return false;
    }
    if (rename(tmp, dir) == 0) {
        tmp[0] = '\0';
        snprintf(built, size, "%s/%s", dir, OBJECT_NAME);
    } else {
        snprintf(built, size, "%s/%s", tmp, OBJECT_NAME);
    }
    return true;
}

/* ---- loading ---- */

/* dlopen + entry, under load_lock. NULL with why set when the object cannot
 * be loaded or does not fit this graft. */
static const rule_set *load_object(const char *so_path, void **handle, char *why, size_t size)
{
    pthread_mutex_lock(&load_lock);
    const rule_set *set = NULL;
    void *h = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, size, "cannot load %s: %s", so_path, e ? e : "unknown error");
    } else {
        graft_rules_entry_fn entry;
        void *sym = dlsym(h, GRAFT_RULES_ENTRY);
        memcpy(&entry, &sym, sizeof entry);
        set = entry ? entry(graft_rule_api_get()) : NULL;
        if (!set) {
            snprintf(why, size, "the object does not fit this graft");
            dlclose(h);
            h = NULL;
        }
    }
    pthread_mutex_unlock(&load_lock);
    *handle = h;
    return set;
}

/* Everything the key covers, hashed; compiler found and identified. */
static bool make_key(const char *path, const char *text, size_t len, const char *c_text,
                     const char *build, char *cc, size_t cc_size, char key[65], graft_error *err)
{
    if (!find_compiler(cc, cc_size))
        return error_set(err, "no C compiler found (tried cc, gcc, clang): install gcc or use a "
                              "built-in pipeline");
    sha256_ctx c;
    sha256_init(&c);
    key_string(&c, build);
    if (!key_compiler(&c, cc, err))
        return false;
    key_string(&c, path);
    key_field(&c, text, len);
    key_string(&c, c_text);
    unsigned char d[32];
    sha256_final(&c, d);
    sha256_hex(d, key);
    return true;
}

/* The root, created if missing and checked. */
static bool cache_root(const char *cache_dir, char *root, size_t size, graft_error *err)
{
    if (cache_dir && strlen(cache_dir) >= size)
        return error_set(err, "cache path too long: %s", cache_dir);
    if (cache_dir)
        snprintf(root, size, "%s", cache_dir);
    else if (!default_cache_dir(root, size, err))
        return false;
    return make_dirs(root, err) && check_root(root, err);
}

static char *compile_text(const char *path, const char *text, size_t len, graft_error *err)
{
    /* The set's name: the file's base name without .rules. */
    char set_name[256];
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(set_name, sizeof set_name, "%s", base);
    char *dot = strstr(set_name, ".rules");
    if (dot && dot[6] == '\0')
        *dot = '\0';
    dsl_emit_options opt = {.set_name = set_name, .entry_name = GRAFT_RULES_ENTRY, .exported = true};
    return dsl_compile(path, text, len, &opt, err);
}

bool dsl_rules_cache_entry(const char *path, const char *cache_dir, char *out, size_t size,
                           graft_error *err)
{
    size_t len;
    char *text = read_file_all(path, &len, err);
    if (!text)
        return false;
    char *c = compile_text(path, text, len, err);
    char build[65], key[65], cc[4096], root[ROOT_MAX];
    dsl_rules_build_id(build);
    bool ok = c && make_key(path, text, len, c, build, cc, sizeof cc, key, err) &&
              cache_root(cache_dir, root, sizeof root, err);
    if (ok)
        snprintf(out, size, "%s/%s", root, key);
    free(c);
    free(text);
    return ok;
}

bool dsl_load_rules(const char *path, const char *cache_dir, loaded_rules *out, graft_error *err)
{
    memset(out, 0, sizeof *out);
    size_t len;
    char *text = read_file_all(path, &len, err);
    if (!text)
        return false;
    /* Static errors first: they do not need a compiler. */
    char *c = compile_text(path, text, len, err);
    char build[65], key[65], cc[4096], root[ROOT_MAX], dir[DIR_MAX];
    dsl_rules_build_id(build);
    bool ok = c && make_key(path, text, len, c, build, cc, sizeof cc, key, err) &&
              cache_root(cache_dir, root, sizeof root, err);
    free(text);
    if (!ok) {
        free(c);
        return false;
    }
    snprintf(dir, sizeof dir, "%s/%s", root, key);

    char why[300] = "";
    cache_state state = check_entry(dir, build, key, why, sizeof why);
    if (state == CACHE_HIT) {
        snprintf(out->so_path, sizeof out->so_path, "%s/%s", dir, OBJECT_NAME);
        out->set = load_object(out->so_path, &out->handle, why, sizeof why);
        if (out->set) {
            out->from_cache = true;
            free(c);
            return true;
        }
        state = CACHE_STALE;
    }
    if (state == CACHE_STALE) {
        snprintf(out->cache_note, sizeof out->cache_note, "recompiled: %.260s", why);
        discard(root, dir);
    }

    char tmp[DIR_MAX];
    ok = build_entry(root, dir, cc, c, build, key, out->so_path, sizeof out->so_path, tmp,
                     sizeof tmp, err);
    free(c);
    if (!ok)
        return false;
    out->set = load_object(out->so_path, &out->handle, why, sizeof why);
    if (tmp[0])
        remove_dir(tmp); /* another process published first; ours is loaded */
    if (!out->set)
        return error_set(err, "%s: the rules compiled just now do not load: %s", path, why);
    return true;
}

void dsl_unload_rules(loaded_rules *l)
{
    if (l && l->handle) {
        pthread_mutex_lock(&load_lock);
        dlclose(l->handle);
        pthread_mutex_unlock(&load_lock);
    }
    if (l) {
        l->handle = NULL;
        l->set = NULL;
    }
}
