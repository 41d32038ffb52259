/* emu.c: the emu device: graft's generated kernels run on the CPU.
 *
 * Each kernel's .hip text is compiled, unchanged, by the system C compiler
 * (gcc: the kernels are written in the common subset of HIP C++ and C11,
 * and gcc's C has _Float16 on x86-64) together with the CPU version of
 * graft_kernel.h, the HIP execution layer: blocks, threads as fibers,
 * __shared__, __syncthreads, wave shuffles at the wave size given here,
 * atomics. A small entry function, appended after the kernel, unpacks the
 * argument array. Each kernel becomes one shared object, cached by a hash of
 * its compilation unit and the compiler command, compiled in child
 * processes several at a time, then dlopened.
 *
 * A run mirrors the GPU one: one allocation laid out by the memory plan
 * (arena, inputs, weights), inputs and weights copied in, the kernels
 * launched in plan order (a loop's body once per iteration, cg_run_launches)
 * with pointers at their buffers' offsets, outputs
 * copied out through their accesses. Floating point: the CPU side compiles
 * with -ffp-contract=off, so a*b+c is a multiply and an add, where hiprtc
 * contracts it into one FMA (docs/codegen.md); the comparisons with the
 * reference executor use tolerances, not equality.
 */
#define GRAFT_EMU_HOST
#include "graft_kernel.h"
#undef GRAFT_EMU_HOST

#include "cg_emit.h"
#include "exec.h"
#include "fileio.h"
#include "jobs.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *emu_compiler(void)
{
    const char *cc = getenv("GRAFT_EMU_CC");
    return cc && *cc ? cc : "gcc";
}

static const char *const emu_flags[] = {"-std=gnu11", "-O2", "-fPIC", "-shared", "-w",
                                        "-ffp-contract=off", "-fno-strict-aliasing", "-pthread"};
enum { NFLAGS = sizeof emu_flags / sizeof emu_flags[0] };

/* Kernels compile in units of up to UNIT kernels (one compiler process
 * and one shared object each): a large model's hundreds of kernels then
 * cost tens of compiler runs, not hundreds. */
enum { UNIT = 24 };

/* A compilation unit: each kernel as generated, then its entry, then the
 * table of entries the host looks up. */
static char *emu_unit(const cg_program *p, int first, int count)
{
    cg_text t = {0};
    for (int u = 0; u < count; u++) {
        const cg_kernel *k = &p->kernels[first + u];
        cg_printf(&t, "#line 1 \"%s.hip\"\n", k->name);
        cg_puts(&t, k->source);
        cg_printf(&t, "\n/* emu entry: unpacks the argument array */\n"
                      "static void graft_emu_entry_%d(void **a)\n{\n    %s(", u, k->name);
        for (int a = 0; a < k->nargs; a++)
            cg_printf(&t, "%s(%s%s *)a[%d]", a ? ", " : "", k->writes[a] ? "" : "const ",
                      cg_storage_type(p->buffers[k->args[a]].sh.type), a);
        cg_puts(&t, ");\n}\n");
    }
    cg_puts(&t, "__attribute__((visibility(\"default\"))) void (*graft_emu_kernels[])(void **) = {");
    for (int u = 0; u < count; u++)
        cg_printf(&t, "%sgraft_emu_entry_%d", u ? ", " : "", u);
    cg_puts(&t, "};\n");
    if (t.failed) {
        cg_text_free(&t);
        return NULL;
    }
    return cg_text_take(&t);
}

typedef struct emu_job {
    char unit_path[4200];
    char so_path[4200];
    char include_dir[4200];
} emu_job;

static int emu_child(void *vctx, int j, int log_fd)
{
    emu_job *job = &((emu_job *)vctx)[j];
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp%d", job->so_path, (int)getpid());
    char inc[4300];
    snprintf(inc, sizeof inc, "-I%s", job->include_dir);
    const char *argv[NFLAGS + 8];
    int n = 0;
    argv[n++] = emu_compiler();
    for (int k = 0; k < NFLAGS; k++)
        argv[n++] = emu_flags[k];
    argv[n++] = inc;
    argv[n++] = "-o";
    argv[n++] = tmp;
    argv[n++] = job->unit_path;
    argv[n++] = "-lm";
    argv[n] = NULL;
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[0], (char *const *)argv);
        dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        unlink(tmp);
        return 1;
    }
    if (rename(tmp, job->so_path) != 0) {
        dprintf(2, "cannot rename %s: %s\n", tmp, strerror(errno));
        unlink(tmp);
        return 1;
    }
    return 0;
}

typedef struct emu_module {
    void *lib;                    /* the unit's shared object (owned by its first kernel) */
    int (*run)(graft_emu_launch *);
    void (*release)(void);
    void (*kernel)(void **);
} emu_module;

/* Compiles (or finds) every unit's shared object; fills mods. */
static bool emu_build(const cg_program *p, const cg_emu_options *o, emu_module *mods,
                      graft_error *err)
{
    char cache[4096];
    if (!cg_cache_dir(o ? o->cache_dir : NULL, "emu", cache, sizeof cache, err))
        return false;
    /* graft_kernel.h, where the units include it from */
    char inc[4200], hpath[4300];
    cg_hasher hh;
    cg_hash_init(&hh);
    cg_hash_str(&hh, cg_kernel_header);
    char hkey[33];
    cg_hash_hex(&hh, hkey);
    snprintf(inc, sizeof inc, "%s/include-%.16s", cache, hkey);
    snprintf(hpath, sizeof hpath, "%s/graft_kernel.h", inc);
    if (!cg_file_exists(hpath)) {
        if (mkdir(inc, 0777) != 0 && errno != EEXIST)
            return error_set(err, "cannot create %s: %s", inc, strerror(errno));
        if (!write_file_atomic(hpath, cg_kernel_header, strlen(cg_kernel_header), err))
            return false;
    }
    int nunits = (p->nkernels + UNIT - 1) / UNIT;
    emu_job *jobs = calloc((size_t)(nunits ? nunits : 1), sizeof *jobs);
    int *todo = calloc((size_t)(nunits ? nunits : 1), sizeof *todo);
    bool ok = jobs && todo;
    if (!ok)
        error_set(err, "out of memory");
    int ntodo = 0;
    for (int u = 0; ok && u < nunits; u++) {
        int first = u * UNIT, count = p->nkernels - first < UNIT ? p->nkernels - first : UNIT;
        char *unit = emu_unit(p, first, count);
        if (!unit) {
            ok = error_set(err, "out of memory");
            break;
        }
        cg_hasher h;
        cg_hash_init(&h);
        cg_hash_str(&h, "graft-emu-2");
        cg_hash_str(&h, unit);
        cg_hash_str(&h, cg_kernel_header);
        cg_hash_str(&h, emu_compiler());
        for (int f = 0; f < NFLAGS; f++)
            cg_hash_str(&h, emu_flags[f]);
        char key[33];
        cg_hash_hex(&h, key);
        emu_job *jb = &jobs[u];
        const char *name = p->kernels[first].name;
        snprintf(jb->unit_path, sizeof jb->unit_path, "%s/%.60s-%s.c", cache, name, key);
        snprintf(jb->so_path, sizeof jb->so_path, "%s/%.60s-%s.so", cache, name, key);
        snprintf(jb->include_dir, sizeof jb->include_dir, "%s", inc);
        if (!cg_file_exists(jb->so_path)) {
            ok = write_file_atomic(jb->unit_path, unit, strlen(unit), err);
            todo[ntodo++] = u;
        }
        free(unit);
    }
    if (ok && ntodo) {
        emu_job *pending = calloc((size_t)ntodo, sizeof *pending);
        cg_job_result *res = calloc((size_t)ntodo, sizeof *res);
        ok = pending && res;
        for (int t = 0; ok && t < ntodo; t++)
            pending[t] = jobs[todo[t]];
        ok = ok && cg_run_jobs(ntodo, o ? o->jobs : 0, emu_child, pending, res, err);
        for (int t = 0; ok && t < ntodo; t++)
            if (res[t].status != 0)
                ok = error_set(err, "emu: kernels %s.. failed to compile for the CPU (%s); unit: "
                                    "%s\n%.800s",
                               p->kernels[todo[t] * UNIT].name, emu_compiler(),
                               pending[t].unit_path, res[t].log ? res[t].log : "");
        for (int t = 0; res && t < ntodo; t++)
            free(res[t].log);
        free(pending);
        free(res);
    }
    for (int u = 0; ok && u < nunits; u++) {
        void *lib = dlopen(jobs[u].so_path, RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            const char *e = dlerror();
            ok = error_set(err, "emu: cannot load %s: %s", jobs[u].so_path, e ? e : "?");
            break;
        }
        mods[u * UNIT].lib = lib;
        int (*run)(graft_emu_launch *) = (int (*)(graft_emu_launch *))dlsym(lib, "graft_emu_run");
        void (*release)(void) = (void (*)(void))dlsym(lib, "graft_emu_release_stacks");
        void (**table)(void **) = (void (**)(void **))dlsym(lib, "graft_emu_kernels");
        if (!run || !table) {
            ok = error_set(err, "emu: %s lacks its entry points", jobs[u].so_path);
            break;
        }
        for (int k = u * UNIT; k < p->nkernels && k < (u + 1) * UNIT; k++) {
            mods[k].run = run;
            mods[k].release = release;
            mods[k].kernel = table[k - u * UNIT];
        }
    }
    free(jobs);
    free(todo);
    return ok;
}

/* Element offset of row-major index j through access a (host side). */
static int64_t access_offset(const cg_access *a, int64_t j)
{
    int64_t s = j;
    for (int l = 0; l < a->nlevels; l++) {
        const cg_level *lv = &a->lv[l];
        int64_t off = lv->offset, rest = s;
        for (int d = lv->rank - 1; d >= 0; d--) {
            int64_t len = lv->lens[d] > 0 ? lv->lens[d] : 1;
            off += (rest % len) * lv->strides[d];
            rest /= len;
        }
        s = off;
    }
    return s;
}

/* Copies output o out of the device memory into a standard tensor. */
static bool read_output(const cg_program *p, int o, const char *base, tensor_list *outs,
                        graft_error *err)
{
    const cg_output *out = &p->outputs[o];
    const cg_buffer *buf = &p->buffers[out->acc.buffer];
    size_t es = type_size(out->sh.type);
    tensor t = {shape_as_standard(&out->sh), NULL};
    int64_t n = shape_elements(&t.sh);
    t.data = malloc(n > 0 ? (size_t)n * es : 1);
    if (!t.data)
        return error_set(err, "out of memory");
    for (int64_t j = 0; j < n; j++)
        memcpy(t.data + j * (int64_t)es,
               base + buf->offset + access_offset(&out->acc, j) * (int64_t)es, es);
    char name[32];
    snprintf(name, sizeof name, "output%d", o);
    bool ok = tensor_list_add(outs, name, &t, err);
    free(t.data);
    return ok;
}

/* One run's state, for the launcher (cg_run_launches). */
typedef struct emu_run {
    const cg_program *p;
    emu_module *mods;
    char *mem;
    unsigned wave, threads;
} emu_run;

static bool emu_launch(void *ctx, int k, graft_error *err)
{
    emu_run *r = ctx;
    const cg_kernel *kn = &r->p->kernels[k];
    void *args[CG_MAX_PARAMS];
    for (int a = 0; a < kn->nargs && a < CG_MAX_PARAMS; a++)
        args[a] = r->mem + r->p->buffers[kn->args[a]].offset;
    graft_emu_launch l;
    memset(&l, 0, sizeof l);
    l.entry = r->mods[k].kernel;
    l.args = args;
    l.grid = kn->grid;
    l.block = kn->block;
    l.wave = r->wave;
    l.fibers = kn->barriers;
    l.threads = r->threads;
    if (r->mods[k].run(&l) != 0)
        return error_set(err, "emu: kernel %s (launch %d): %s", kn->name, k, l.error);
    return true;
}

static bool emu_read(void *ctx, int buffer, int64_t offset, void *dst, size_t bytes,
                     graft_error *err)
{
    emu_run *r = ctx;
    (void)err;
    const cg_buffer *b = &r->p->buffers[buffer];
    memcpy(dst, r->mem + b->offset + offset * (int64_t)type_size(b->sh.type), bytes);
    return true;
}

bool cg_run_emu(const cg_program *p, const cg_emu_options *o, const tensor_list *inputs,
                tensor_list *outputs, graft_error *err)
{
    if (!p->planned)
        return error_set(err, "emu: the program has no memory plan");
    unsigned wave = o && o->wave ? o->wave : 64;
    unsigned threads = o && o->threads ? (unsigned)o->threads : 2;
    const char *env = getenv("GRAFT_EMU_THREADS");
    if (env && atoi(env) > 0)
        threads = (unsigned)atoi(env);
    if (wave != 32 && wave != 64)
        return error_set(err, "emu: wave size %u (expected 32 or 64)", wave);
    emu_module *mods = calloc((size_t)(p->nkernels ? p->nkernels : 1), sizeof *mods);
    char *mem = NULL;
    if (!mods)
        return error_set(err, "out of memory");
    bool ok = emu_build(p, o, mods, err);
    if (ok && posix_memalign((void **)&mem, 4096, p->mem.total ? p->mem.total : 1) != 0) {
        mem = NULL;
        ok = error_set(err, "emu: cannot allocate %zu bytes", p->mem.total);
    }
    if (ok)
        memset(mem, 0, p->mem.total);
    for (int b = 0; ok && b < p->nbuffers; b++) {
        const cg_buffer *buf = &p->buffers[b];
        if (buf->kind == CG_WEIGHT) {
            if (buf->ins->data)
                memcpy(mem + buf->offset, buf->ins->data, shape_bytes(&buf->sh));
        } else if (buf->kind == CG_INPUT) {
            const named_tensor *in = tensor_list_find(inputs, buf->ins->param);
            if (!in)
                ok = error_set(err, "missing input '%s'", buf->ins->param);
            else if (in->t.sh.type != buf->sh.type || !shape_same_lens(&in->t.sh, &buf->sh))
                ok = error_set(err, "input '%s' does not match its parameter's type and lens",
                               buf->ins->param);
            else {
                tensor dst = {buf->sh, mem + buf->offset};
                tensor_copy(&dst, &in->t);
            }
        }
    }
    emu_run run = {p, mods, mem, wave, threads};
    cg_launcher launcher = {&run, emu_launch, emu_read};
    if (ok)
        ok = cg_run_launches(p, &launcher, NULL, err);
    for (int out = 0; ok && out < p->noutputs; out++)
        ok = read_output(p, out, mem, outputs, err);
    for (int k = 0; k < p->nkernels; k++)
        if (mods[k].lib) {
            if (mods[k].release)
                mods[k].release();
            dlclose(mods[k].lib);
        }
    free(mods);
    free(mem);
    return ok;
}
