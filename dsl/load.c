/* load.c: runs a user's rule file without rebuilding graft.
 *
 * `graft opt -r mine.rules` compiles the file to C with the same pipeline the
 * build uses, writes the IR headers graft embeds (build/gen/embedded_headers.c)
 * next to it, builds a shared object with the system C compiler (cc, gcc or
 * clang, whichever PATH has first) and loads it with dlopen. The object is
 * cached under $XDG_CACHE_HOME/graft (or ~/.cache/graft) by a hash of the
 * rules text, its path, graft's version and the embedded headers, so a second
 * run with the same file costs a dlopen. Static errors come out of the rule
 * compiler with file:line:col before any compiler runs; a missing compiler is
 * named as such, and a compiler failure quotes its first lines.
 *
 * Threads may load rule files at the same time, the same file included:
 * every file this writes goes to a name of its own (pid and a per-process
 * counter) and is renamed into place, so two builds of one file race only
 * to rename identical results. The cache key also covers the op table and
 * the helper registry, whose numbering generated code bakes in (dsl/emit.c).
 */
#include "load.h"

#include "api.h"
#include "compile.h"
#include "helpers.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* A suffix no other write of this process uses: "<pid>.<n>". */
static atomic_uint temp_counter;

static void temp_suffix(char *out, size_t size)
{
    unsigned n = atomic_fetch_add_explicit(&temp_counter, 1, memory_order_relaxed);
    snprintf(out, size, "%ld.%u", (long)getpid(), n);
}

/* What generated code's constants depend on: every op's name, code (its
 * position) and attribute names, and every helper's name and position. */
static uint64_t hash_numbering(uint64_t h)
{
    const op_def *op;
    for (int code = 1; (op = op_by_code(code)) != NULL; code++) {
        h = fnv1a(h, op->name, strlen(op->name) + 1);
        for (int a = 0; a < op->nattrs; a++)
            h = fnv1a(h, op->attrs[a].name, strlen(op->attrs[a].name) + 1);
        h = fnv1a(h, "\n", 1);
    }
    int nhelpers;
    const rule_helper *helpers = rule_helpers(&nhelpers);
    for (int k = 0; k < nhelpers; k++)
        h = fnv1a(h, helpers[k].name, strlen(helpers[k].name) + 1);
    return h;
}

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
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return error_set(err, "cannot create %s: %s", buf, strerror(errno));
            buf[i] = c;
        }
    }
    return true;
}

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

static bool write_file(const char *path, const char *text, graft_error *err)
{
    char tmp[4200], suffix[64];
    temp_suffix(suffix, sizeof suffix);
    snprintf(tmp, sizeof tmp, "%s.%s.tmp", path, suffix);
    FILE *fp = fopen(tmp, "w");
    if (!fp)
        return error_set(err, "cannot write %s: %s", tmp, strerror(errno));
    bool ok = fputs(text, fp) >= 0;
    ok = fclose(fp) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return error_set(err, "cannot write %s", path);
    }
    return true;
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

/* Runs the compiler; on failure err quotes the start of its output, which
 * stays in DIR/compile.log. */
static bool run_compiler(const char *cc, const char *dir, const char *c_path, const char *so_tmp,
                         graft_error *err)
{
    char include[4200], log_path[4300], final_log[4300], suffix[64];
    snprintf(include, sizeof include, "-I%s", dir);
    temp_suffix(suffix, sizeof suffix);
    snprintf(log_path, sizeof log_path, "%s/compile.%s.log", dir, suffix);
    snprintf(final_log, sizeof final_log, "%s/compile.log", dir);
    char *argv[] = {(char *)cc, "-std=c11", "-O2", "-fPIC", "-shared", "-fvisibility=hidden",
                    "-w", include, "-o", (char *)so_tmp, (char *)c_path, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
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
    FILE *fp = fopen(log_path, "r");
    if (fp) {
        size_t n = fread(first, 1, sizeof first - 1, fp);
        first[n] = '\0';
        fclose(fp);
    }
    if (rename(log_path, final_log) != 0)
        snprintf(final_log, sizeof final_log, "%s", log_path);
    return error_set(err, "%s failed to build the generated rules (%s): %s", cc, final_log, first);
}

bool dsl_load_rules(const char *path, const char *cache_dir, loaded_rules *out, graft_error *err)
{
    memset(out, 0, sizeof *out);
    size_t len;
    char *text = dsl_read_file(path, &len, err);
    if (!text)
        return false;

    /* The set's name: the file's base name without .rules. */
    char set_name[256];
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(set_name, sizeof set_name, "%s", base);
    char *dot = strstr(set_name, ".rules");
    if (dot && dot[6] == '\0')
        *dot = '\0';

    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv1a(h, text, len);
    h = fnv1a(h, path, strlen(path) + 1);
    h = fnv1a(h, GRAFT_VERSION, sizeof GRAFT_VERSION);
    h = hash_numbering(h);
    int nheaders;
    const embedded_header *headers = graft_embedded_headers(&nheaders);
    for (int k = 0; k < nheaders; k++) {
        h = fnv1a(h, headers[k].name, strlen(headers[k].name) + 1);
        h = fnv1a(h, headers[k].text, strlen(headers[k].text));
    }

    char root[4096], dir[4200], so_path[4300];
    if (cache_dir)
        snprintf(root, sizeof root, "%s", cache_dir);
    else if (!default_cache_dir(root, sizeof root, err)) {
        free(text);
        return false;
    }
    snprintf(dir, sizeof dir, "%s/%016llx", root, (unsigned long long)h);
    snprintf(so_path, sizeof so_path, "%s/rules.so", dir);

    bool ok = true;
    if (access(so_path, R_OK) == 0) {
        out->from_cache = true;
    } else {
        /* Static errors first: they do not need a compiler. */
        dsl_emit_options opt = {.set_name = set_name, .entry_name = GRAFT_RULES_ENTRY, .exported = true};
        char *c = dsl_compile(path, text, len, &opt, err);
        char cc[4096];
        if (!c) {
            ok = false;
        } else if (!find_compiler(cc, sizeof cc)) {
            ok = error_set(err, "no C compiler found (tried cc, gcc, clang): install gcc or use a "
                                "built-in pipeline");
        } else if ((ok = make_dirs(dir, err))) {
            char c_path[4300], so_tmp[4400];
            snprintf(c_path, sizeof c_path, "%s/rules.c", dir);
            char suffix[64];
            temp_suffix(suffix, sizeof suffix);
            snprintf(so_tmp, sizeof so_tmp, "%s/rules.so.%s.tmp", dir, suffix);
            for (int k = 0; ok && k < nheaders; k++) {
                char hp[4400];
                snprintf(hp, sizeof hp, "%s/%s", dir, headers[k].name);
                ok = write_file(hp, headers[k].text, err);
            }
            ok = ok && write_file(c_path, c, err);
            ok = ok && run_compiler(cc, dir, c_path, so_tmp, err);
            if (ok && rename(so_tmp, so_path) != 0)
                ok = error_set(err, "cannot create %s: %s", so_path, strerror(errno));
            if (!ok)
                unlink(so_tmp);
        }
        free(c);
    }
    free(text);
    if (!ok)
        return false;

    void *handle = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        return error_set(err, "cannot load %s: %s", so_path, why ? why : "unknown error");
    }
    graft_rules_entry_fn entry;
    void *sym = dlsym(handle, GRAFT_RULES_ENTRY);
    memcpy(&entry, &sym, sizeof entry);
    const rule_set *set = entry ? entry(graft_rule_api_get()) : NULL;
    if (!set) {
        dlclose(handle);
        return error_set(err, "%s: the compiled rules do not fit this graft (remove %s and retry)", path,
                         dir);
    }
    out->handle = handle;
    out->set = set;
    snprintf(out->so_path, sizeof out->so_path, "%s", so_path);
    return true;
}

void dsl_unload_rules(loaded_rules *l)
{
    if (l && l->handle)
        dlclose(l->handle);
    if (l) {
        l->handle = NULL;
        l->set = NULL;
    }
}
