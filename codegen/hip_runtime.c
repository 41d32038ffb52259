/* hip_runtime.c: the hip device: code objects loaded with hipModuleLoadData
 * and launched in plan order on a real GPU.
 *
 * The HIP runtime is dlopened (libamdhip64.so.5) only when --device hip
 * asks for it, so graft builds, links and passes its tests on machines
 * without it. With no device (hipGetDeviceCount fails or finds none) the
 * run fails with "no HIP device found (...)" and suggests --device emu.
 * With one: the device's architecture (gcnArchName, features stripped)
 * picks the code objects, compiled through the same cache as `graft
 * compile`; one hipMalloc holds the whole plan (arena, inputs, weights);
 * each kernel is launched with hipModuleLaunchKernel, its kernelParams an
 * array of pointers to slots holding its buffers' device addresses
 * (cg_pack_args, unit-tested without a GPU).
 */
#include "codegen.h"

#include "exec.h"
#include "jobs.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<hip/hip_runtime_api.h>)
#define __HIP_PLATFORM_AMD__ 1
#include <hip/hip_runtime_api.h>
#define GRAFT_HAVE_HIP_HEADERS 1
#endif
#endif

char *cg_code_object(const cg_program *p, int k, const char *arch, const char *cache_dir,
                     size_t *len, graft_error *err);

void cg_pack_args(const cg_program *p, const cg_kernel *k, char *base, void **slots,
                  void **params)
{
    for (int a = 0; a < k->nargs; a++) {
        slots[a] = base + p->buffers[k->args[a]].offset;
        params[a] = &slots[a];
    }
}

#ifdef GRAFT_HAVE_HIP_HEADERS

typedef struct hip_api {
    void *lib;
    hipError_t (*init)(unsigned);
    hipError_t (*device_count)(int *);
    hipError_t (*properties)(hipDeviceProp_t *, int);
    hipError_t (*malloc_)(void **, size_t);
    hipError_t (*free_)(void *);
    hipError_t (*memcpy_)(void *, const void *, size_t, hipMemcpyKind);
    hipError_t (*load)(hipModule_t *, const void *);
    hipError_t (*unload)(hipModule_t);
    hipError_t (*function)(hipFunction_t *, hipModule_t, const char *);
    hipError_t (*launch)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, unsigned, hipStream_t, void **, void **);
    hipError_t (*sync)(void);
    const char *(*error_name)(hipError_t);
} hip_api;

#define LOAD(field, name) api->field = (__typeof__(api->field))dlsym(api->lib, name)

static bool load_hip(hip_api *api, graft_error *err)
{
    api->lib = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!api->lib)
        api->lib = dlopen("libamdhip64.so", RTLD_NOW | RTLD_LOCAL);
    if (!api->lib)
        return error_set(err, "no HIP device found (libamdhip64.so.5 cannot be loaded); use "
                              "--device emu to run the generated kernels on the CPU");
    LOAD(init, "hipInit");
    LOAD(device_count, "hipGetDeviceCount");
    LOAD(properties, "hipGetDeviceProperties");
    LOAD(malloc_, "hipMalloc");
    LOAD(free_, "hipFree");
    LOAD(memcpy_, "hipMemcpy");
    LOAD(load, "hipModuleLoadData");
    LOAD(unload, "hipModuleUnload");
    LOAD(function, "hipModuleGetFunction");
    LOAD(launch, "hipModuleLaunchKernel");
    LOAD(sync, "hipDeviceSynchronize");
    LOAD(error_name, "hipGetErrorName");
    if (!api->init || !api->device_count || !api->properties || !api->malloc_ || !api->free_ ||
        !api->memcpy_ || !api->load || !api->function || !api->launch || !api->sync)
        return error_set(err, "no HIP device found (libamdhip64 lacks the module API); use "
                              "--device emu");
    return true;
}

static const char *hip_error(const hip_api *api, hipError_t e)
{
    return api->error_name ? api->error_name(e) : "error";
}

static bool device_present(hip_api *api, graft_error *err)
{
    if (!load_hip(api, err))
        return false;
    int count = 0;
    api->init(0);
    hipError_t e = api->device_count(&count);
    if (e != hipSuccess || count == 0)
        return error_set(err, "no HIP device found (hipGetDeviceCount: %s, %d devices); use "
                              "--device emu to run the generated kernels on the CPU",
                         e != hipSuccess ? hip_error(api, e) : "ok", count);
    return true;
}

/* The look happens in a child process: the HIP runtime starts threads and
 * keeps state that graft's own process need not carry when there is no
 * device to use anyway. */
static int probe_child(void *ctx, int job, int log_fd)
{
    (void)ctx;
    (void)job;
    hip_api api = {0};
    graft_error err = {0};
    if (device_present(&api, &err))
        return 0;
    dprintf(log_fd, "%s", err.message);
    return 1;
}

bool cg_hip_device_available(graft_error *err)
{
    cg_job_result r;
    if (!cg_run_jobs(1, 1, probe_child, NULL, &r, err))
        return false;
    bool ok = r.status == 0;
    if (!ok && r.status == 2)
        error_set(err, "no HIP device found (the HIP runtime crashed with signal %d while "
                       "looking for one); use --device emu",
                  r.signal);
    else if (!ok)
        error_set(err, "%s", r.log && *r.log ? r.log : "no HIP device found; use --device emu");
    free(r.log);
    return ok;
}

/* One run's state, for the launcher (cg_run_launches). Each kernel's code
 * object is loaded on its first launch and kept until the run ends, so a
 * loop's body launches its kernels again without reloading them. */
typedef struct hip_run {
    const cg_program *p;
    hip_api *api;
    char *dev;
    const char *arch, *cache_dir;
    hipModule_t *mods;     /* per kernel; NULL until its first launch */
    hipFunction_t *fns;
} hip_run;

/* Kernel k's function, loading its code object on first use. */
static hipFunction_t hip_function(hip_run *r, int k, graft_error *err)
{
    if (r->fns[k])
        return r->fns[k];
    const cg_kernel *kn = &r->p->kernels[k];
    size_t len = 0;
    char *image = cg_code_object(r->p, k, r->arch, r->cache_dir, &len, err);
    hipError_t e;
    if (image && (e = r->api->load(&r->mods[k], image)) != hipSuccess) {
        error_set(err, "hipModuleLoadData(%s): %s", kn->name, hip_error(r->api, e));
        r->mods[k] = NULL;
    } else if (image && (e = r->api->function(&r->fns[k], r->mods[k], kn->name)) != hipSuccess) {
        error_set(err, "hipModuleGetFunction(%s): %s", kn->name, hip_error(r->api, e));
        r->fns[k] = NULL;
    }
    free(image);
    return r->fns[k];
}

static bool hip_launch(void *ctx, int k, graft_error *err)
{
    hip_run *r = ctx;
    const cg_kernel *kn = &r->p->kernels[k];
    void *slots[64], *params[64];
    if (kn->nargs > 64)
        return error_set(err, "kernel %s: %d arguments, more than the runtime packs (64)",
                         kn->name, kn->nargs);
    hipFunction_t fn = hip_function(r, k, err);
    if (!fn)
        return false;
    cg_pack_args(r->p, kn, r->dev, slots, params);
    hipError_t e = r->api->launch(fn, kn->grid, 1, 1, kn->block, 1, 1, 0, NULL, params, NULL);
    if (e == hipSuccess)
        e = r->api->sync(); /* a fault is reported against the kernel that caused it */
    if (e != hipSuccess)
        return error_set(err, "kernel %s: %s", kn->name, hip_error(r->api, e));
    return true;
}

/* A loop's trip count or condition: hipMemcpy to the host, which waits for
 * every kernel launched before it (one synchronisation per iteration). */
static bool hip_read(void *ctx, int buffer, int64_t offset, void *dst, size_t bytes,
                     graft_error *err)
{
    hip_run *r = ctx;
    const cg_buffer *b = &r->p->buffers[buffer];
    if (r->api->memcpy_(dst, r->dev + b->offset + offset * (int64_t)type_size(b->sh.type), bytes,
                        hipMemcpyDeviceToHost) != hipSuccess)
        return error_set(err, "hip: reading a loop's trip count or condition failed");
    return true;
}

bool cg_run_hip(const cg_program *p, const char *cache_dir, const tensor_list *inputs,
                tensor_list *outputs, graft_error *err)
{
    hip_api api = {0};
    if (!device_present(&api, err))
        return false;
    hipError_t e;
    if (!p->planned)
        return error_set(err, "hip: the program has no memory plan");
    hipDeviceProp_t prop;
    memset(&prop, 0, sizeof prop);
    if ((e = api.properties(&prop, 0)) != hipSuccess)
        return error_set(err, "hipGetDeviceProperties: %s", hip_error(&api, e));
    char arch[sizeof prop.gcnArchName + 1];
    memcpy(arch, prop.gcnArchName, sizeof prop.gcnArchName);
    arch[sizeof prop.gcnArchName] = 0;
    char *colon = strchr(arch, ':');
    if (colon)
        *colon = 0;
    char *dev = NULL;
    if ((e = api.malloc_((void **)&dev, p->mem.total ? p->mem.total : 1)) != hipSuccess)
        return error_set(err, "hipMalloc(%zu): %s", p->mem.total, hip_error(&api, e));
    bool ok = true;
    for (int b = 0; ok && b < p->nbuffers; b++) {
        const cg_buffer *buf = &p->buffers[b];
        if (buf->kind == CG_WEIGHT && buf->ins->data) {
            if (api.memcpy_(dev + buf->offset, buf->ins->data, shape_bytes(&buf->sh),
                            hipMemcpyHostToDevice) != hipSuccess)
                ok = error_set(err, "hip: copying weight buffer %d to the device failed", b);
        } else if (buf->kind == CG_INPUT) {
            const named_tensor *in = tensor_list_find(inputs, buf->ins->param);
            if (!in) {
                ok = error_set(err, "missing input '%s'", buf->ins->param);
                break;
            }
            tensor host = {buf->sh, malloc(buf->bytes)};
            if (!host.data || !tensor_copy(&host, &in->t) ||
                api.memcpy_(dev + buf->offset, host.data, buf->bytes, hipMemcpyHostToDevice) !=
                    hipSuccess)
                ok = error_set(err, "hip: copying input '%s' to the device failed",
                               buf->ins->param);
            free(host.data);
        }
    }
    hip_run run = {p, &api, dev, arch, cache_dir, calloc((size_t)p->nkernels + 1, sizeof(hipModule_t)),
                   calloc((size_t)p->nkernels + 1, sizeof(hipFunction_t))};
    if (ok && (!run.mods || !run.fns))
        ok = error_set(err, "hip: out of memory");
    cg_launcher launcher = {&run, hip_launch, hip_read};
    if (ok)
        ok = cg_run_launches(p, &launcher, NULL, err);
    for (int k = 0; run.mods && k < p->nkernels; k++)
        if (run.mods[k] && api.unload)
            api.unload(run.mods[k]);
    free(run.mods);
    free(run.fns);
    for (int o = 0; ok && o < p->noutputs; o++) {
        const cg_output *out = &p->outputs[o];
        const cg_buffer *buf = &p->buffers[out->acc.buffer];
        char *host = malloc(buf->bytes);
        ok = host && api.memcpy_(host, dev + buf->offset, buf->bytes, hipMemcpyDeviceToHost) ==
                         hipSuccess;
        if (ok) {
            size_t es = type_size(out->sh.type);
            tensor t = {shape_as_standard(&out->sh), NULL};
            int64_t n = shape_elements(&t.sh);
            t.data = malloc(n > 0 ? (size_t)n * es : 1);
            ok = t.data != NULL;
            for (int64_t j = 0; ok && j < n; j++) {
                int64_t s = j;
                for (int l = 0; l < out->acc.nlevels; l++) {
                    const cg_level *lv = &out->acc.lv[l];
                    int64_t off = lv->offset, rest = s;
                    for (int d = lv->rank - 1; d >= 0; d--) {
                        off += (rest % lv->lens[d]) * lv->strides[d];
                        rest /= lv->lens[d];
                    }
                    s = off;
                }
                memcpy(t.data + j * (int64_t)es, host + s * (int64_t)es, es);
            }
            char name[32];
            snprintf(name, sizeof name, "output%d", o);
            ok = ok && tensor_list_add(outputs, name, &t, err);
            free(t.data);
        }
        free(host);
    }
    api.free_(dev);
    return ok;
}

#else

bool cg_hip_device_available(graft_error *err)
{
    return error_set(err, "no HIP device found (graft was built without HIP headers); use "
                          "--device emu");
}

bool cg_run_hip(const cg_program *p, const char *cache_dir, const tensor_list *inputs,
                tensor_list *outputs, graft_error *err)
{
    (void)p, (void)cache_dir, (void)inputs, (void)outputs;
    return error_set(err, "no HIP device found (graft was built without HIP headers); use "
                          "--device emu");
}

#endif
