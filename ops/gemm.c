/* gemm.c: graft's own matrix product (dot and convolution run on it).
 *
 * Why not BLAS: the reference executor is the oracle every rewrite is
 * checked against, so its results must not depend on the CPU. OpenBLAS picks
 * its kernel per CPU, and each kernel sums in an order that depends on where
 * an element sits in its tile: on an AMD EPYC (Haswell/Zen kernels) the
 * channels of a convolution with identical weights came out with different
 * last bits, where on other CPUs they were equal. Here every element of C is
 * the naive loop of gemm.h, in that order, bit for bit:
 *     acc = +0;  for p = 0 .. k-1:  acc = acc + A[i][p] * B[p][j]
 *
 * How it stays fast without changing that order: blocking and packing
 * (gemm_body.h) change only which elements are computed when, and a k block
 * hands an element's partial sum to the next through C, exactly; the
 * micro-kernel vectorizes across columns j (one lane per column, the lanes
 * never combine), never across k; products and sums are separate roundings
 * (the Makefile compiles with -ffp-contract=off, and neither variant below
 * enables FMA, so no compiler can contract them). The variants differ only
 * in instruction set and vector width (AVX2: 8 floats per instruction,
 * baseline x86-64: 4), which changes how many columns go at once, not what
 * a column computes;
 * tests/unit/test_gemm.c checks both against the naive loop.
 *
 * Single-threaded: the executor runs one op at a time and must not leave
 * threads behind.
 */
#include "gemm.h"

#include <stdlib.h>
#include <string.h>

/* Scratch for packed blocks, 64-byte aligned (the micro-kernel's aligned
 * vector loads of packed B need 32). */
static void *gemm_scratch(size_t bytes)
{
    bytes = (bytes + 63) / 64 * 64;
    return aligned_alloc(64, bytes ? bytes : 64);
}

typedef float gemm_v8sf __attribute__((vector_size(32), may_alias));
typedef float gemm_v8sf_u __attribute__((vector_size(32), aligned(4), may_alias));
typedef double gemm_v4df __attribute__((vector_size(32), may_alias));
typedef double gemm_v4df_u __attribute__((vector_size(32), aligned(8), may_alias));
typedef float gemm_v4sf __attribute__((vector_size(16), may_alias));
typedef float gemm_v4sf_u __attribute__((vector_size(16), aligned(4), may_alias));
typedef double gemm_v2df __attribute__((vector_size(16), may_alias));
typedef double gemm_v2df_u __attribute__((vector_size(16), aligned(8), may_alias));

/* 32-byte vectors (AVX2) and 16-byte ones (SSE2, any x86-64): each tile is
 * 6 rows by 2 vectors, so that its 12 accumulators fit the 16 registers. */
#define GEMM_T float
#define GEMM_V gemm_v8sf
#define GEMM_VU gemm_v8sf_u
#define GEMM_NAME(x) x##_f32_v32
#include "gemm_body.h"
#undef GEMM_T
#undef GEMM_V
#undef GEMM_VU
#undef GEMM_NAME

#define GEMM_T double
#define GEMM_V gemm_v4df
#define GEMM_VU gemm_v4df_u
#define GEMM_NAME(x) x##_f64_v32
#include "gemm_body.h"
#undef GEMM_T
#undef GEMM_V
#undef GEMM_VU
#undef GEMM_NAME

#define GEMM_T float
#define GEMM_V gemm_v4sf
#define GEMM_VU gemm_v4sf_u
#define GEMM_NAME(x) x##_f32_v16
#include "gemm_body.h"
#undef GEMM_T
#undef GEMM_V
#undef GEMM_VU
#undef GEMM_NAME

#define GEMM_T double
#define GEMM_V gemm_v2df
#define GEMM_VU gemm_v2df_u
#define GEMM_NAME(x) x##_f64_v16
#include "gemm_body.h"
#undef GEMM_T
#undef GEMM_V
#undef GEMM_VU
#undef GEMM_NAME

/* ---- variants: the same code compiled for two instruction sets ---- */

#define GEMM_ARGS(T)                                                                         \
    int64_t m, int64_t n, int64_t k, const T *a, int64_t lda, const T *b, int64_t ldb, T *c, \
        int64_t ldc
#define GEMM_PASS m, n, k, a, lda, b, ldb, c, ldc

static bool gemm_f32_generic(GEMM_ARGS(float)) { return gemm_blocked_f32_v16(GEMM_PASS); }
static bool gemm_f64_generic(GEMM_ARGS(double)) { return gemm_blocked_f64_v16(GEMM_PASS); }

#if defined(__x86_64__) || defined(__i386__)
#define GEMM_HAVE_AVX2 1
/* "avx2" only: it does not imply FMA (and FMA is never asked for). */
__attribute__((target("avx2"))) static bool gemm_f32_avx2(GEMM_ARGS(float))
{
    return gemm_blocked_f32_v32(GEMM_PASS);
}
__attribute__((target("avx2"))) static bool gemm_f64_avx2(GEMM_ARGS(double))
{
    return gemm_blocked_f64_v32(GEMM_PASS);
}
#else
#define GEMM_HAVE_AVX2 0
#endif

bool gemm_variant_available(gemm_variant v)
{
    switch (v) {
    case GEMM_AUTO:
    case GEMM_GENERIC:
        return true;
    case GEMM_AVX2:
#if GEMM_HAVE_AVX2
        return __builtin_cpu_supports("avx2");
#else
        return false;
#endif
    }
    return false;
}

static gemm_variant gemm_resolve(gemm_variant v)
{
    if (v == GEMM_AUTO) {
        const char *forced = getenv("GRAFT_GEMM");
        if (forced && strcmp(forced, "generic") == 0)
            return GEMM_GENERIC;
        return gemm_variant_available(GEMM_AVX2) ? GEMM_AVX2 : GEMM_GENERIC;
    }
    return gemm_variant_available(v) ? v : gemm_resolve(GEMM_AUTO);
}

bool gemm_f32_with(gemm_variant v, GEMM_ARGS(float))
{
#if GEMM_HAVE_AVX2
    if (gemm_resolve(v) == GEMM_AVX2)
        return gemm_f32_avx2(GEMM_PASS);
#endif
    (void)v;
    return gemm_f32_generic(GEMM_PASS);
}

bool gemm_f64_with(gemm_variant v, GEMM_ARGS(double))
{
#if GEMM_HAVE_AVX2
    if (gemm_resolve(v) == GEMM_AVX2)
        return gemm_f64_avx2(GEMM_PASS);
#endif
    (void)v;
    return gemm_f64_generic(GEMM_PASS);
}

bool gemm_f32(GEMM_ARGS(float)) { return gemm_f32_with(GEMM_AUTO, GEMM_PASS); }
bool gemm_f64(GEMM_ARGS(double)) { return gemm_f64_with(GEMM_AUTO, GEMM_PASS); }
