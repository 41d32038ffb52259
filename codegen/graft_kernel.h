/* graft_kernel.h: the one header every generated kernel includes, in two
 * versions behind one name, so the very same .hip text runs on a GPU and on
 * the CPU.
 *
 * Generated kernels are written in the common subset of HIP C++ and C11:
 * explicit types, C casts, no templates, lambdas or references. This header
 * supplies what differs:
 *  - under hiprtc (__HIPCC_RTC__) or hipcc (__HIP__): GRAFT_KERNEL is
 *    `extern "C" __global__`, and everything else (threadIdx, __shared__,
 *    __syncthreads, __shfl_down, atomicAdd, __half, warpSize) is HIP's own.
 *    No HIP header is included: hiprtc has them built in, and including
 *    hip_fp16.h or <cstdint> under hiprtc 5.2 fails with redefinitions.
 *  - on the CPU (graft's emu device, compiled by the system C compiler into
 *    a shared object and dlopened): a small HIP execution layer. Each thread
 *    of a block is a fiber with its own stack; __syncthreads and the wave
 *    shuffles are scheduling points; a scheduler runs the block's fibers in
 *    rounds and releases a barrier only when every thread of the block has
 *    reached it, and a shuffle only when every lane of the wave has. A
 *    barrier or shuffle that only some threads reach is reported as an
 *    error, never run silently. warpSize is the target's wave size (32 or
 *    64), given at launch. __shared__ is block-local static storage (one OS
 *    thread runs one block at a time). __half is _Float16. Kernels without
 *    barriers run as a plain loop over threads, without fibers.
 *  - with GRAFT_EMU_HOST defined (graft's own codegen/emu.c): only the
 *    launch record the host fills in.
 * graft embeds this file as text (the build turns it into a C string) and
 * writes it next to the kernels in `graft compile`'s output directory.
 */
#ifndef GRAFT_KERNEL_H
#define GRAFT_KERNEL_H

#if defined(__HIPCC_RTC__) || defined(__HIP__)

/* ---------------- HIP ---------------- */
#if !defined(__HIPCC_RTC__)
/* hipcc (not hiprtc, where these are built in): `hipcc --genco -I DIR
 * DIR/NAME.hip` compiles a kernel of graft compile's output as it is */
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#endif
#define GRAFT_KERNEL extern "C" __global__
#define GRAFT_WAVE warpSize
#define GRAFT_INLINE static __device__ inline
#define GRAFT_INF __builtin_huge_valf()
#define GRAFT_INF_D __builtin_huge_val()

#else

/* ------- the launch record (host and CPU execution layer) ------- */
typedef struct graft_emu_launch {
    void (*entry)(void **args); /* calls the kernel with its arguments */
    void **args;                /* one pointer per kernel parameter */
    unsigned grid, block;       /* 1-D: blocks, threads per block */
    unsigned wave;              /* 32 or 64 */
    int fibers;                 /* the kernel has barriers or shuffles */
    unsigned stack_bytes;       /* per fiber; 0: 64 KiB */
    unsigned threads;           /* OS threads running blocks; 0 or 1: the caller's only */
    char error[512];            /* set when the launch fails */
} graft_emu_launch;

#ifndef GRAFT_EMU_HOST

/* ---------------- the CPU execution layer ---------------- */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef _Float16 __half;
typedef struct graft_dim3 {
    unsigned x, y, z;
} graft_dim3;

enum { GRAFT_EMU_READY, GRAFT_EMU_BARRIER, GRAFT_EMU_SHUFFLE, GRAFT_EMU_DONE };

typedef struct graft_emu_fiber {
    graft_dim3 tid;
    void *sp;              /* saved stack pointer while switched out */
    char *stack;
    int state;
    unsigned barriers;     /* __syncthreads reached so far */
    unsigned long long bits; /* shuffle: value in, result out */
    int shfl_mode;         /* 0 idx, 1 down, 2 up, 3 xor */
    int shfl_arg, shfl_width;
} graft_emu_fiber;

typedef struct graft_emu_block {
    graft_dim3 bid, bdim, gdim;
    unsigned wave;
    int fibers;            /* running on fibers (else a plain loop) */
    graft_emu_launch *launch;
    graft_emu_fiber *f;
    unsigned nf, cap;
    char *stacks;
    size_t stack_bytes, stacks_bytes;
    void *sched_sp;
    jmp_buf fail;          /* plain-loop mode: a barrier jumps back here */
} graft_emu_block;

static _Thread_local graft_emu_block graft_emu_blk;
static _Thread_local graft_emu_fiber *graft_emu_cur;
static _Thread_local graft_emu_fiber graft_emu_plain; /* the thread of plain-loop mode */

#define GRAFT_KERNEL __attribute__((used)) static
#define GRAFT_EMU_FN static __attribute__((unused))
#define GRAFT_INLINE static inline
#define GRAFT_WAVE ((int)graft_emu_blk.wave)
#define GRAFT_INF ((float)INFINITY)
#define GRAFT_INF_D ((double)INFINITY)
#define __global__
#define __device__
#define __host__
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__ static _Thread_local
#define threadIdx (graft_emu_cur->tid)
#define blockIdx (graft_emu_blk.bid)
#define blockDim (graft_emu_blk.bdim)
#define gridDim (graft_emu_blk.gdim)
#define warpSize ((int)graft_emu_blk.wave)

/* ---- fibers: a context switch that saves the callee-saved registers ---- */
#if defined(__x86_64__)
void graft_emu_swap(void **save_sp, void *load_sp) __attribute__((visibility("hidden")));
void graft_emu_trampoline(void) __attribute__((visibility("hidden")));
__attribute__((used)) static void graft_emu_fiber_main(graft_emu_fiber *f);
__asm__(".text\n"
        ".globl graft_emu_swap\n"
        ".hidden graft_emu_swap\n"
        ".type graft_emu_swap,@function\n"
        "graft_emu_swap:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size graft_emu_swap, .-graft_emu_swap\n"
        ".globl graft_emu_trampoline\n"
        ".hidden graft_emu_trampoline\n"
        ".type graft_emu_trampoline,@function\n"
        "graft_emu_trampoline:\n"
        "  movq %r12, %rdi\n"
        "  call graft_emu_fiber_main\n"
        "  ud2\n"
        ".size graft_emu_trampoline, .-graft_emu_trampoline\n");

/* A fresh fiber's stack holds what graft_emu_swap pops: MXCSR and the x87
 * control word, r15..r12 (r12 = the fiber), rbx, rbp, and the return
 * address graft_emu_trampoline, placed so that the call it makes sees a
 * 16-byte aligned stack. */
static void graft_emu_fiber_init(graft_emu_fiber *f)
{
    unsigned long long top = (unsigned long long)(f->stack + graft_emu_blk.stack_bytes);
    top &= ~15ull;
    unsigned long long *a = (unsigned long long *)(top - 16);
    a[-1] = (unsigned long long)graft_emu_trampoline;
    a[-2] = 0; /* rbp */
    a[-3] = 0; /* rbx */
    a[-4] = (unsigned long long)f; /* r12 */
    a[-5] = 0;
    a[-6] = 0;
    a[-7] = 0;
    unsigned ctl[2] = {0x1F80u, 0x037Fu};
    memcpy(&a[-8], ctl, sizeof ctl);
    f->sp = &a[-8];
}
#define GRAFT_EMU_SWAP(save, load) graft_emu_swap((save), (load))
#else
#include <ucontext.h>
#error "graft's CPU execution layer needs x86-64 for now"
#endif

static void graft_emu_yield(void)
{
    GRAFT_EMU_SWAP(&graft_emu_cur->sp, graft_emu_blk.sched_sp);
}

static void graft_emu_fail_plain(const char *what)
{
    snprintf(graft_emu_blk.launch->error, sizeof graft_emu_blk.launch->error,
             "%s in a kernel launched without fibers (the plan says it has no barriers)", what);
    longjmp(graft_emu_blk.fail, 1);
}

static void graft_emu_barrier(void)
{
    if (!graft_emu_blk.fibers)
        graft_emu_fail_plain("__syncthreads");
    graft_emu_cur->state = GRAFT_EMU_BARRIER;
    graft_emu_cur->barriers++;
    graft_emu_yield();
}
#define __syncthreads() graft_emu_barrier()

static unsigned long long graft_emu_shuffle(unsigned long long bits, int mode, int arg, int width)
{
    if (!graft_emu_blk.fibers)
        graft_emu_fail_plain("a wave shuffle");
    graft_emu_fiber *f = graft_emu_cur;
    f->bits = bits;
    f->shfl_mode = mode;
    f->shfl_arg = arg;
    f->shfl_width = width;
    f->state = GRAFT_EMU_SHUFFLE;
    graft_emu_yield();
    return graft_emu_cur->bits;
}

#define GRAFT_EMU_SHFL_T(T, name)                                                                 \
    GRAFT_EMU_FN T graft_emu_shfl_##name(T v, int mode, int arg, int width)                             \
    {                                                                                             \
        unsigned long long b = 0;                                                                 \
        memcpy(&b, &v, sizeof v);                                                                 \
        b = graft_emu_shuffle(b, mode, arg, width);                                               \
        memcpy(&v, &b, sizeof v);                                                                 \
        return v;                                                                                 \
    }
GRAFT_EMU_SHFL_T(float, f32)
GRAFT_EMU_SHFL_T(double, f64)
GRAFT_EMU_SHFL_T(int, i32)
GRAFT_EMU_SHFL_T(unsigned, u32)
GRAFT_EMU_SHFL_T(long long, i64)
GRAFT_EMU_SHFL_T(unsigned long long, u64)
#define GRAFT_EMU_SHFL(v, mode, arg, width)                                                       \
    _Generic((v), float: graft_emu_shfl_f32, double: graft_emu_shfl_f64, int: graft_emu_shfl_i32, \
             unsigned: graft_emu_shfl_u32, long long: graft_emu_shfl_i64,                         \
             unsigned long long: graft_emu_shfl_u64)((v), (mode), (arg), (width))
#define GRAFT_EMU_WIDTH(...) GRAFT_EMU_WIDTH_(__VA_ARGS__, (int)graft_emu_blk.wave, 0)
#define GRAFT_EMU_WIDTH_(v, a, w, ...) (w)
#define __shfl(v, ...) GRAFT_EMU_SHFL((v), 0, GRAFT_EMU_ARG(__VA_ARGS__, 0), GRAFT_EMU_WIDTH(__VA_ARGS__))
#define __shfl_down(v, ...) GRAFT_EMU_SHFL((v), 1, GRAFT_EMU_ARG(__VA_ARGS__, 0), GRAFT_EMU_WIDTH(__VA_ARGS__))
#define __shfl_up(v, ...) GRAFT_EMU_SHFL((v), 2, GRAFT_EMU_ARG(__VA_ARGS__, 0), GRAFT_EMU_WIDTH(__VA_ARGS__))
#define __shfl_xor(v, ...) GRAFT_EMU_SHFL((v), 3, GRAFT_EMU_ARG(__VA_ARGS__, 0), GRAFT_EMU_WIDTH(__VA_ARGS__))
#define GRAFT_EMU_ARG(a, ...) (a)

/* ---- atomics: blocks may one day run on several OS threads ---- */
GRAFT_EMU_FN float graft_emu_atomic_add_f32(float *p, float v)
{
    float old, want;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    do
        want = old + v;
    while (!__atomic_compare_exchange(p, &old, &want, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return old;
}
GRAFT_EMU_FN double graft_emu_atomic_add_f64(double *p, double v)
{
    double old, want;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    do
        want = old + v;
    while (!__atomic_compare_exchange(p, &old, &want, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return old;
}
GRAFT_EMU_FN int graft_emu_atomic_add_i32(int *p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
GRAFT_EMU_FN unsigned graft_emu_atomic_add_u32(unsigned *p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
GRAFT_EMU_FN unsigned long long graft_emu_atomic_add_u64(unsigned long long *p, unsigned long long v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
#define atomicAdd(p, v)                                                                           \
    _Generic((p), float *: graft_emu_atomic_add_f32, double *: graft_emu_atomic_add_f64,          \
             int *: graft_emu_atomic_add_i32, unsigned *: graft_emu_atomic_add_u32,               \
             unsigned long long *: graft_emu_atomic_add_u64)((p), (v))
GRAFT_EMU_FN int graft_emu_atomic_max_i32(int *p, int v)
{
    int old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (old < v && !__atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    return old;
}
GRAFT_EMU_FN int graft_emu_atomic_min_i32(int *p, int v)
{
    int old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (old > v && !__atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    return old;
}
#define atomicMax(p, v) graft_emu_atomic_max_i32((p), (v))
#define atomicMin(p, v) graft_emu_atomic_min_i32((p), (v))
GRAFT_EMU_FN int graft_emu_atomic_cas_i32(int *p, int cmp, int v)
{
    __atomic_compare_exchange_n(p, &cmp, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return cmp;
}
#define atomicCAS(p, c, v) graft_emu_atomic_cas_i32((p), (c), (v))

/* ---- the scheduler ---- */
__attribute__((used)) static void graft_emu_fiber_main(graft_emu_fiber *f)
{
    graft_emu_blk.launch->entry(graft_emu_blk.launch->args);
    f->state = GRAFT_EMU_DONE;
    GRAFT_EMU_SWAP(&f->sp, graft_emu_blk.sched_sp);
    __builtin_trap(); /* a finished fiber is never resumed */
}

static int graft_emu_fail(const char *fmt, unsigned a, unsigned b, unsigned c, unsigned d)
{
    snprintf(graft_emu_blk.launch->error, sizeof graft_emu_blk.launch->error, fmt, a, b, c, d);
    return -1;
}

/* Source lane of a shuffle, HIP's rules; the lane's own when out of range. */
static unsigned graft_emu_source(const graft_emu_fiber *f, unsigned lane, unsigned nlanes)
{
    int w = f->shfl_width > 0 ? f->shfl_width : (int)graft_emu_blk.wave;
    unsigned width = (unsigned)w, base = lane & ~(width - 1), src = lane;
    switch (f->shfl_mode) {
    case 0: src = base + ((unsigned)f->shfl_arg & (width - 1)); break;
    case 1: src = (lane - base) + (unsigned)f->shfl_arg < width ? lane + (unsigned)f->shfl_arg : lane; break;
    case 2: src = lane - base >= (unsigned)f->shfl_arg ? lane - (unsigned)f->shfl_arg : lane; break;
    default: src = lane ^ (unsigned)f->shfl_arg; if ((src & ~(width - 1)) != base) src = lane; break;
    }
    return src < nlanes ? src : lane;
}

/* Releases what can be released after a round; -1 with the error set when
 * the block can make no progress (a barrier or shuffle some threads miss). */
static int graft_emu_release(unsigned *done)
{
    graft_emu_fiber *f = graft_emu_blk.f;
    unsigned n = graft_emu_blk.nf, wave = graft_emu_blk.wave, ndone = 0, nbar = 0;
    for (unsigned t = 0; t < n; t++) {
        ndone += f[t].state == GRAFT_EMU_DONE;
        nbar += f[t].state == GRAFT_EMU_BARRIER;
    }
    *done = ndone == n;
    if (ndone == n)
        return 0;
    int released = 0;
    for (unsigned w0 = 0; w0 < n; w0 += wave) {
        unsigned w1 = w0 + wave < n ? w0 + wave : n, nsh = 0;
        for (unsigned t = w0; t < w1; t++)
            nsh += f[t].state == GRAFT_EMU_SHUFFLE;
        if (nsh == 0)
            continue;
        if (nsh != w1 - w0) {
            unsigned other = w0;
            while (f[other].state == GRAFT_EMU_SHUFFLE)
                other++;
            snprintf(graft_emu_blk.launch->error, sizeof graft_emu_blk.launch->error,
                     "a wave shuffle reached by only %u of the %u lanes of wave %u in block %u "
                     "(thread %u %s)",
                     nsh, w1 - w0, w0 / wave, graft_emu_blk.bid.x, other,
                     f[other].state == GRAFT_EMU_DONE ? "returned" : "waits at __syncthreads");
            return -1;
        }
        unsigned long long vals[1024];
        for (unsigned t = w0; t < w1; t++)
            vals[t - w0] = f[t].bits;
        for (unsigned t = w0; t < w1; t++) {
            f[t].bits = vals[graft_emu_source(&f[t], t - w0, w1 - w0)];
            f[t].state = GRAFT_EMU_READY;
        }
        released = 1;
    }
    if (released)
        return 0;
    if (nbar == n) {
        for (unsigned t = 0; t < n; t++)
            f[t].state = GRAFT_EMU_READY;
        return 0;
    }
    unsigned waiting = 0, gone = 0;
    while (f[waiting].state != GRAFT_EMU_BARRIER)
        waiting++;
    while (f[gone].state == GRAFT_EMU_BARRIER)
        gone++;
    snprintf(graft_emu_blk.launch->error, sizeof graft_emu_blk.launch->error,
             "__syncthreads reached by only %u of the %u threads of block %u: thread %u waits "
             "at barrier #%u",
             nbar, n, graft_emu_blk.bid.x, waiting, f[waiting].barriers);
    size_t used = strlen(graft_emu_blk.launch->error);
    snprintf(graft_emu_blk.launch->error + used, sizeof graft_emu_blk.launch->error - used,
             ", thread %u %s", gone,
             f[gone].state == GRAFT_EMU_DONE ? "returned without reaching it" : "waits in a shuffle");
    return -1;
}

static int graft_emu_run_block(void)
{
    graft_emu_blk.nf = graft_emu_blk.bdim.x;
    for (unsigned t = 0; t < graft_emu_blk.nf; t++) {
        graft_emu_fiber *f = &graft_emu_blk.f[t];
        memset(f, 0, sizeof *f);
        f->tid.x = t;
        f->stack = graft_emu_blk.stacks + (size_t)t * graft_emu_blk.stack_bytes;
        graft_emu_fiber_init(f);
    }
    for (;;) {
        for (unsigned t = 0; t < graft_emu_blk.nf; t++) {
            graft_emu_fiber *f = &graft_emu_blk.f[t];
            if (f->state != GRAFT_EMU_READY)
                continue;
            graft_emu_cur = f;
            GRAFT_EMU_SWAP(&graft_emu_blk.sched_sp, f->sp);
        }
        unsigned done;
        if (graft_emu_release(&done) < 0)
            return -1;
        if (done)
            return 0;
    }
}

static int graft_emu_prepare(graft_emu_launch *l)
{
    size_t stack = l->stack_bytes ? l->stack_bytes : 64u << 10;
    stack = (stack + 4095) & ~(size_t)4095;
    if (l->block > graft_emu_blk.cap || stack != graft_emu_blk.stack_bytes) {
        if (graft_emu_blk.stacks)
            munmap(graft_emu_blk.stacks, graft_emu_blk.stacks_bytes);
        free(graft_emu_blk.f);
        graft_emu_blk.stacks = NULL;
        graft_emu_blk.f = NULL;
        graft_emu_blk.cap = 0;
        size_t bytes = stack * l->block;
        void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        graft_emu_blk.f = (graft_emu_fiber *)calloc(l->block, sizeof *graft_emu_blk.f);
        if (m == MAP_FAILED || !graft_emu_blk.f) {
            if (m != MAP_FAILED)
                munmap(m, bytes);
            return graft_emu_fail("cannot allocate %u fiber stacks of %u bytes", l->block,
                                  (unsigned)stack, 0, 0);
        }
        /* a guard page at the bottom of each stack turns an overflow into a fault */
        for (unsigned t = 0; t < l->block; t++)
            mprotect((char *)m + (size_t)t * stack, 4096, PROT_NONE);
        graft_emu_blk.stacks = (char *)m;
        graft_emu_blk.stacks_bytes = bytes;
        graft_emu_blk.stack_bytes = stack;
        graft_emu_blk.cap = l->block;
    }
    return 0;
}

/* Runs blocks first, first + step, ... of the launch on this OS thread. */
static int graft_emu_blocks(graft_emu_launch *l, unsigned first, unsigned step)
{
    graft_emu_blk.launch = l;
    graft_emu_blk.wave = l->wave;
    graft_emu_blk.fibers = l->fibers;
    graft_emu_blk.bdim = (graft_dim3){l->block, 1, 1};
    graft_emu_blk.gdim = (graft_dim3){l->grid, 1, 1};
    if (l->fibers && graft_emu_prepare(l) < 0)
        return -1;
    for (unsigned b = first; b < l->grid; b += step) {
        graft_emu_blk.bid = (graft_dim3){b, 0, 0};
        if (l->fibers) {
            if (graft_emu_run_block() < 0)
                return -1;
            continue;
        }
        if (setjmp(graft_emu_blk.fail))
            return -1;
        graft_emu_cur = &graft_emu_plain;
        for (unsigned t = 0; t < l->block; t++) {
            graft_emu_plain.tid.x = t;
            l->entry(l->args);
        }
    }
    return 0;
}

__attribute__((visibility("default"))) void graft_emu_release_stacks(void);

typedef struct graft_emu_worker {
    graft_emu_launch l; /* a copy: its own error text */
    unsigned first, step;
    int rc;
} graft_emu_worker;

static void *graft_emu_worker_main(void *arg)
{
    graft_emu_worker *w = (graft_emu_worker *)arg;
    w->rc = graft_emu_blocks(&w->l, w->first, w->step);
    graft_emu_release_stacks();
    return NULL;
}

/* The entry point graft's host code calls (dlsym): runs every block of the
 * launch, on l->threads OS threads (blocks are independent; each thread has
 * its own fibers and its own __shared__ storage). 0 on success, -1 with
 * l->error set. */
__attribute__((visibility("default"))) int graft_emu_run(graft_emu_launch *l)
{
    l->error[0] = 0;
    if (l->block == 0 || l->block > 1024 || (l->wave != 32 && l->wave != 64))
        return snprintf(l->error, sizeof l->error, "bad launch: block %u, wave %u", l->block,
                        l->wave), -1;
    enum { MAX_THREADS = 16 };
    unsigned n = l->threads ? l->threads : 1;
    n = n > MAX_THREADS ? MAX_THREADS : n;
    n = n > l->grid ? (l->grid ? l->grid : 1) : n;
    if (n <= 1)
        return graft_emu_blocks(l, 0, 1);
    graft_emu_worker w[MAX_THREADS];
    pthread_t th[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (unsigned t = 1; t < n; t++) {
        w[t].l = *l;
        w[t].first = t;
        w[t].step = n;
        w[t].rc = 0;
        started[t] = pthread_create(&th[t], NULL, graft_emu_worker_main, &w[t]) == 0;
    }
    int rc = graft_emu_blocks(l, 0, n);
    for (unsigned t = 1; t < n; t++) {
        if (!started[t]) {
            /* no thread: run its share here */
            if (rc == 0)
                rc = graft_emu_blocks(l, t, n);
            continue;
        }
        pthread_join(th[t], NULL);
        if (w[t].rc != 0 && rc == 0) {
            memcpy(l->error, w[t].l.error, sizeof l->error);
            rc = -1;
        }
    }
    return rc;
}

/* Frees the fiber stacks (before dlclose). */
__attribute__((visibility("default"))) void graft_emu_release_stacks(void)
{
    if (graft_emu_blk.stacks)
        munmap(graft_emu_blk.stacks, graft_emu_blk.stacks_bytes);
    free(graft_emu_blk.f);
    graft_emu_blk.stacks = NULL;
    graft_emu_blk.f = NULL;
    graft_emu_blk.cap = 0;
    graft_emu_blk.stack_bytes = 0;
}

#endif /* !GRAFT_EMU_HOST */
#endif /* HIP or CPU */

/* ---------------- shared by both ---------------- */
#if !defined(GRAFT_EMU_HOST)
/* bf16 is stored as its 16 bits; kernels compute in float. Rounding to
 * nearest even, NaN kept quiet, as graft's reference executor. */
GRAFT_INLINE float graft_bf16_to_f(unsigned short b)
{
    union {
        unsigned u;
        float f;
    } x;
    x.u = (unsigned)b << 16;
    return x.f;
}
GRAFT_INLINE unsigned short graft_f_to_bf16(float f)
{
    union {
        unsigned u;
        float f;
    } x;
    x.f = f;
    if (x.f != x.f)
        return (unsigned short)((x.u >> 16) | 0x40u);
    return (unsigned short)((x.u + 0x7fffu + ((x.u >> 16) & 1u)) >> 16);
}
/* Float to integer stores: truncate toward zero, saturate, NaN gives 0
 * (what graft's reference executor does). */
GRAFT_INLINE long long graft_f2i(double v, double lo, double hi)
{
    return v != v ? 0 : v <= lo ? (long long)lo : v >= hi ? (long long)hi : (long long)v;
}
#endif

#endif /* GRAFT_KERNEL_H */
