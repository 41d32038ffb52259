/* hiprtc.c: kernels to AMDGPU code objects with hiprtc, in child processes,
 * cached.
 *
 * Debian's HIP 5.2 has hiprtc inside libamdhip64 (no libhiprtc.so), so
 * graft never links it: each compile job's child process dlopens
 * libamdhip64.so.5, compiles one kernel for one architecture with
 * `--offload-arch=ARCH -O3 -std=c++17`, giving graft_kernel.h as an
 * in-memory header, and writes the code object into the cache atomically.
 * Children run in parallel because hiprtc serializes compilations inside a
 * process, and in isolation because hiprtc 5.2 aborts the whole process for
 * architecture names it does not know (gfx94x, gfx11xx): names are checked
 * against the list below first, and a child that dies anyway is reported,
 * never taken down with graft. The parent process does not load the HIP
 * runtime at all, so `make test` builds and runs on machines without it.
 *
 * Cache key: the kernel source, graft_kernel.h, the architecture and the
 * options. A hit copies the cached code object to DIR/<arch>/NAME.co.
 */
#include "codegen.h"

#include "fileio.h"
#include "jobs.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const known_archs[] = {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030"};

const char *const *cg_known_archs(int *n)
{
    *n = (int)(sizeof known_archs / sizeof known_archs[0]);
    return known_archs;
}

int cg_parse_archs(const char *list, const char **archs, int max, char *storage, size_t size,
                   graft_error *err)
{
    snprintf(storage, size, "%s", list ? list : "");
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(storage, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        bool known = false;
        for (size_t k = 0; k < sizeof known_archs / sizeof known_archs[0]; k++)
            known = known || strcmp(tok, known_archs[k]) == 0;
        if (!known) {
            error_set(err, "unknown or unsupported architecture '%s': hiprtc 5.2 compiles for "
                           "gfx900, gfx906, gfx908, gfx90a and gfx1030 (gfx94x and gfx11xx abort "
                           "it)",
                      tok);
            return -1;
        }
        bool dup = false;
        for (int k = 0; k < n; k++)
            dup = dup || strcmp(archs[k], tok) == 0;
        if (dup)
            continue;
        if (n == max) {
            error_set(err, "more than %d architectures", max);
            return -1;
        }
        archs[n++] = tok;
    }
    if (n == 0) {
        error_set(err, "no architecture given");
        return -1;
    }
    return n;
}

/* ---- the child side ---- */

typedef int (*create_fn)(void **, const char *, const char *, int, const char *const *,
                         const char *const *);
typedef int (*compile_fn)(void *, int, const char *const *);
typedef int (*size_fn)(void *, size_t *);
typedef int (*get_fn)(void *, char *);
typedef int (*destroy_fn)(void **);

typedef struct hiprtc_api {
    void *lib;
    create_fn create;
    compile_fn compile;
    size_fn code_size, log_size;
    get_fn code, log;
    destroy_fn destroy;
} hiprtc_api;

static bool load_hiprtc(hiprtc_api *api, char *why, size_t size)
{
    const char *names[] = {"libamdhip64.so.5", "libamdhip64.so"};
    for (size_t k = 0; k < 2 && !api->lib; k++)
        api->lib = dlopen(names[k], RTLD_NOW | RTLD_LOCAL);
    if (!api->lib) {
        const char *e = dlerror();
        snprintf(why, size, "cannot load libamdhip64.so.5 (hiprtc): %s", e ? e : "not found");
        return false;
    }
    api->create = (create_fn)dlsym(api->lib, "hiprtcCreateProgram");
    api->compile = (compile_fn)dlsym(api->lib, "hiprtcCompileProgram");
    api->code_size = (size_fn)dlsym(api->lib, "hiprtcGetCodeSize");
    api->code = (get_fn)dlsym(api->lib, "hiprtcGetCode");
    api->log_size = (size_fn)dlsym(api->lib, "hiprtcGetProgramLogSize");
    api->log = (get_fn)dlsym(api->lib, "hiprtcGetProgramLog");
    api->destroy = (destroy_fn)dlsym(api->lib, "hiprtcDestroyProgram");
    if (!api->create || !api->compile || !api->code_size || !api->code || !api->log_size ||
        !api->log) {
        snprintf(why, size, "libamdhip64 has no hiprtc entry points");
        return false;
    }
    return true;
}

static void put(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

typedef struct compile_job {
    const char *name, *source, *arch, *cache_path;
} compile_job;

typedef struct compile_ctx {
    compile_job *jobs;
} compile_ctx;

static const char *const hiprtc_options[] = {"-O3", "-std=c++17"};

static int compile_child(void *vctx, int j, int log_fd)
{
    compile_ctx *ctx = vctx;
    compile_job *job = &ctx->jobs[j];
    hiprtc_api api = {0};
    char why[512];
    if (!load_hiprtc(&api, why, sizeof why)) {
        put(log_fd, why);
        return 1;
    }
    const char *header = cg_kernel_header, *header_name = "graft_kernel.h";
    void *prog = NULL;
    char file[300];
    snprintf(file, sizeof file, "%s.hip", job->name);
    int rc = api.create(&prog, job->source, file, 1, &header, &header_name);
    if (rc != 0) {
        snprintf(why, sizeof why, "hiprtcCreateProgram failed (%d)", rc);
        put(log_fd, why);
        return 1;
    }
    char arch_opt[64];
    snprintf(arch_opt, sizeof arch_opt, "--offload-arch=%s", job->arch);
    const char *opts[] = {arch_opt, hiprtc_options[0], hiprtc_options[1]};
    rc = api.compile(prog, 3, opts);
    size_t n = 0;
    if (api.log_size(prog, &n) == 0 && n > 1) {
        char *log = malloc(n + 1);
        if (log && api.log(prog, log) == 0) {
            log[n] = 0;
            put(log_fd, log);
        }
        free(log);
    }
    if (rc != 0) {
        snprintf(why, sizeof why, "\nhiprtcCompileProgram failed (%d)", rc);
        put(log_fd, why);
        return 1;
    }
    if (api.code_size(prog, &n) != 0 || n == 0) {
        put(log_fd, "hiprtc produced no code object");
        return 1;
    }
    char *code = malloc(n);
    if (!code || api.code(prog, code) != 0) {
        put(log_fd, "cannot read the code object");
        return 1;
    }
    graft_error err = {0};
    if (!write_file_atomic(job->cache_path, code, n, &err)) {
        put(log_fd, err.message);
        return 1;
    }
    return 0;
}

static int probe_child(void *vctx, int j, int log_fd)
{
    (void)vctx;
    (void)j;
    hiprtc_api api = {0};
    char why[512];
    if (!load_hiprtc(&api, why, sizeof why)) {
        put(log_fd, why);
        return 1;
    }
    return 0;
}

bool cg_hiprtc_available(graft_error *err)
{
    cg_job_result r;
    if (!cg_run_jobs(1, 1, probe_child, NULL, &r, err))
        return false;
    bool ok = r.status == 0;
    if (!ok)
        error_set(err, "%s", r.log && *r.log ? r.log : "hiprtc cannot be loaded");
    free(r.log);
    return ok;
}

/* ---- the parent side ---- */

static void key_for(const char *source, const char *arch, char out[33])
{
    cg_hasher h;
    cg_hash_init(&h);
    cg_hash_str(&h, "graft-hiprtc-1");
    cg_hash_str(&h, source);
    cg_hash_str(&h, cg_kernel_header);
    cg_hash_str(&h, arch);
    for (size_t k = 0; k < sizeof hiprtc_options / sizeof hiprtc_options[0]; k++)
        cg_hash_str(&h, hiprtc_options[k]);
    cg_hash_hex(&h, out);
}

static bool copy_file(const char *from, const char *to, graft_error *err)
{
    size_t len;
    char *data = read_file_all(from, &len, err);
    if (!data)
        return false;
    bool ok = write_file_atomic(to, data, len, err);
    free(data);
    return ok;
}

bool cg_compile(const cg_program *p, const cg_compile_options *o, cg_compile_stats *stats,
                graft_error *err)
{
    cg_compile_stats st = {0};
    double start = cg_seconds();
    char cache[4096];
    if (!cg_cache_dir(o->cache_dir, "hip", cache, sizeof cache, err))
        return false;
    int total = p->nkernels * o->narchs;
    compile_job *jobs = calloc((size_t)(total ? total : 1), sizeof *jobs);
    char (*paths)[4200] = calloc((size_t)(total ? total : 1), sizeof *paths);
    int *todo = calloc((size_t)(total ? total : 1), sizeof *todo);
    cg_job_result *res = calloc((size_t)(total ? total : 1), sizeof *res);
    bool ok = jobs && paths && todo && res;
    if (!ok)
        error_set(err, "out of memory");
    int ntodo = 0;
    for (int k = 0; ok && k < p->nkernels; k++)
        for (int a = 0; a < o->narchs; a++) {
            int j = k * o->narchs + a;
            char key[33];
            key_for(p->kernels[k].source, o->archs[a], key);
            snprintf(paths[j], sizeof paths[j], "%s/%s-%s.co", cache, key, o->archs[a]);
            jobs[j] = (compile_job){p->kernels[k].name, p->kernels[k].source, o->archs[a],
                                    paths[j]};
            if (cg_file_exists(paths[j]))
                st.cached++;
            else
                todo[ntodo++] = j;
        }
    if (ok && ntodo > 0) {
        compile_job *pending = calloc((size_t)ntodo, sizeof *pending);
        ok = pending != NULL;
        for (int t = 0; ok && t < ntodo; t++)
            pending[t] = jobs[todo[t]];
        compile_ctx ctx = {pending};
        ok = ok && cg_run_jobs(ntodo, o->jobs, compile_child, &ctx, res, err);
        for (int t = 0; ok && t < ntodo; t++) {
            st.compile_seconds += res[t].seconds;
            if (res[t].status == 0) {
                st.compiled++;
                continue;
            }
            const compile_job *jb = &pending[t];
            char src[4500];
            if (o->out_dir)
                snprintf(src, sizeof src, "%s/%s.hip", o->out_dir, jb->name);
            else
                snprintf(src, sizeof src, "%s.hip (not written: no output directory)", jb->name);
            if (res[t].status == 2)
                error_set(err, "kernel %s: hiprtc crashed (signal %d) compiling for %s; source: %s",
                          jb->name, res[t].signal, jb->arch, src);
            else
                error_set(err, "kernel %s failed to compile for %s; source: %s\nhiprtc log:\n%.700s",
                          jb->name, jb->arch, src, res[t].log ? res[t].log : "");
            ok = false;
        }
        for (int t = 0; t < ntodo; t++)
            free(res[t].log);
        free(pending);
    }
    if (ok && o->out_dir) {
        for (int a = 0; ok && a < o->narchs; a++) {
            char dir[4400];
            snprintf(dir, sizeof dir, "%s/%s", o->out_dir, o->archs[a]);
            if (mkdir(dir, 0777) != 0 && errno != EEXIST)
                ok = error_set(err, "cannot create directory %s: %s", dir, strerror(errno));
        }
        for (int k = 0; ok && k < p->nkernels; k++)
            for (int a = 0; ok && a < o->narchs; a++) {
                char to[4600];
                snprintf(to, sizeof to, "%s/%s/%s.co", o->out_dir, o->archs[a],
                         p->kernels[k].name);
                ok = copy_file(paths[k * o->narchs + a], to, err);
            }
    }
    free(jobs);
    free(paths);
    free(todo);
    free(res);
    st.seconds = cg_seconds() - start;
    if (stats)
        *stats = st;
    return ok;
}

/* The cached code object of kernel k for arch (compiled when missing); for
 * the hip runtime. Returns a malloc'd image. */
char *cg_code_object(const cg_program *p, int k, const char *arch, const char *cache_dir,
                     size_t *len, graft_error *err);
char *cg_code_object(const cg_program *p, int k, const char *arch, const char *cache_dir,
                     size_t *len, graft_error *err)
{
    char cache[4096], key[33], path[4300];
    if (!cg_cache_dir(cache_dir, "hip", cache, sizeof cache, err))
        return NULL;
    key_for(p->kernels[k].source, arch, key);
    snprintf(path, sizeof path, "%s/%s-%s.co", cache, key, arch);
    if (!cg_file_exists(path)) {
        const char *archs[1] = {arch};
        cg_compile_options o = {archs, 1, NULL, cache_dir, 0};
        if (!cg_compile(p, &o, NULL, err))
            return NULL;
    }
    return read_file_all(path, len, err);
}
