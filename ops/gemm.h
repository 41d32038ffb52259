/* gemm.h: graft's own matrix product for the reference executor.
 *
 * C = A x B for row-major float or double matrices (A is m x k with row
 * stride lda, B is k x n with row stride ldb, C is m x n with row stride
 * ldc; C must not overlap A or B). Every element of C is computed with one
 * fixed summation order, the same for every element, every matrix size and
 * every CPU:
 *
 *     acc = +0;  for p = 0, 1, ..., k-1:  acc = acc + A[i][p] * B[p][j];
 *     C[i][j] = acc
 *
 * each product rounded to the element type, then each sum rounded to it
 * (float arithmetic for float, double for double; never fused multiply-add,
 * never reassociated). So C[i][j] is bit for bit what that naive loop gives,
 * whatever tile or vector lane the element lands in (see gemm.c for why the
 * reference executor needs this). k == 0 gives +0 everywhere.
 *
 * The functions return false only when scratch memory cannot be allocated.
 */
#ifndef GRAFT_GEMM_H
#define GRAFT_GEMM_H

#include <stdbool.h>
#include <stdint.h>

bool gemm_f32(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *b,
              int64_t ldb, float *c, int64_t ldc);
bool gemm_f64(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
              int64_t ldb, double *c, int64_t ldc);

/* The compiled variants of the same arithmetic (instruction sets only:
 * vector width changes how many columns go at once, never what one column
 * computes). GEMM_AUTO picks the best the CPU has; the environment variable
 * GRAFT_GEMM=generic forces the baseline x86-64 variant, so that tests can
 * show that both give the same bits. */
typedef enum gemm_variant { GEMM_AUTO, GEMM_GENERIC, GEMM_AVX2 } gemm_variant;

/* True if this build and this CPU can run the variant. */
bool gemm_variant_available(gemm_variant v);
/* gemm_f32 / gemm_f64 with a given variant (GEMM_AUTO if unavailable). */
bool gemm_f32_with(gemm_variant v, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                   const float *b, int64_t ldb, float *c, int64_t ldc);
bool gemm_f64_with(gemm_variant v, int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
                   const double *b, int64_t ldb, double *c, int64_t ldc);

#endif
