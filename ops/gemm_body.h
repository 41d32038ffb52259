/* gemm_body.h: the blocked matrix product of gemm.c, written once for both
 * element types and both vector widths. gemm.c includes it once per
 * (type, width), with these defined:
 *   GEMM_T        the element type (float or double)
 *   GEMM_V        a vector of GEMM_T (16 or 32 bytes), aligned
 *   GEMM_VU       the same vector type, unaligned (for C)
 *   GEMM_NAME(x)  x suffixed with the type's and width's names
 * Not a header of its own (no include guard); see gemm.c for the design.
 *
 * Structure: for each block of NC columns of B, for each block of KC rows
 * of B, pack that KC x NC block into NR-column strips; for each block of MC
 * rows of A, pack that MC x KC block into MR-row strips; then every MR x NR
 * tile of C gets the KC products of this block added, one k after the
 * other, by gemm_tile. The first k block starts each element at +0; later
 * ones load it from C, where it was stored exactly, so an element's sum
 * runs k = 0, 1, ..., K-1 whatever the block sizes are.
 */

#define GEMM_VL ((int64_t)(sizeof(GEMM_V) / sizeof(GEMM_T))) /* elements per vector */
#define GEMM_NR (2 * GEMM_VL)                   /* columns per tile */
#define GEMM_MR 6                               /* rows per tile */
#define GEMM_KC 256                             /* rows of B per block */
#define GEMM_MC (GEMM_MR * 20)                  /* rows of A per block */
#define GEMM_NC (GEMM_NR * (int64_t)(8192 / sizeof(GEMM_T) / GEMM_NR)) /* cols per block */

/* One MR x NR tile: c[r][j] (row stride ldc) = (first ? +0 : c[r][j]) + the
 * kc products ap[p][r] * bp[p][j], added for p = 0, 1, ... in turn. Each
 * vector lane is one column: lanes never mix, so a lane's arithmetic is the
 * scalar loop's. The accumulators are named variables so that they live in
 * registers: 12 vectors, plus 2 of B and one product. */
static inline __attribute__((always_inline)) void
GEMM_NAME(gemm_tile)(int64_t kc, const GEMM_T *restrict ap, const GEMM_T *restrict bp,
                     GEMM_T *restrict c, int64_t ldc, bool first)
{
    GEMM_V c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
    if (first) {
        c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = (GEMM_V){0};
    } else {
#define GEMM_LOAD(r)                                                   \
    c##r##0 = *(const GEMM_VU *)(const void *)(c + (r) * ldc);           \
    c##r##1 = *(const GEMM_VU *)(const void *)(c + (r) * ldc + GEMM_VL);
        GEMM_LOAD(0) GEMM_LOAD(1) GEMM_LOAD(2) GEMM_LOAD(3) GEMM_LOAD(4) GEMM_LOAD(5)
#undef GEMM_LOAD
    }
    for (int64_t p = 0; p < kc; p++, ap += GEMM_MR, bp += GEMM_NR) {
        GEMM_V b0 = *(const GEMM_V *)(const void *)bp;
        GEMM_V b1 = *(const GEMM_V *)(const void *)(bp + GEMM_VL);
#define GEMM_STEP(r)                      \
    {                                     \
        GEMM_T a = ap[r];                 \
        c##r##0 = c##r##0 + a * b0;       \
        c##r##1 = c##r##1 + a * b1;       \
    }
        GEMM_STEP(0) GEMM_STEP(1) GEMM_STEP(2) GEMM_STEP(3) GEMM_STEP(4) GEMM_STEP(5)
#undef GEMM_STEP
    }
#define GEMM_STORE(r)                                          \
    *(GEMM_VU *)(void *)(c + (r) * ldc) = c##r##0;              \
    *(GEMM_VU *)(void *)(c + (r) * ldc + GEMM_VL) = c##r##1;
    GEMM_STORE(0) GEMM_STORE(1) GEMM_STORE(2) GEMM_STORE(3) GEMM_STORE(4) GEMM_STORE(5)
#undef GEMM_STORE
}

/* Packs rows [i0, i0 + mc) x columns [p0, p0 + kc) of A into MR-row strips:
 * strip s holds, for each p, the MR values A[i0 + s*MR + r][p0 + p] (zero
 * past the last row). */
static inline __attribute__((always_inline)) void
GEMM_NAME(gemm_pack_a)(const GEMM_T *a, int64_t lda, int64_t m, int64_t i0, int64_t mc,
                       int64_t p0, int64_t kc, GEMM_T *restrict ap)
{
    for (int64_t s = 0; s < mc; s += GEMM_MR, ap += GEMM_MR * kc) {
        for (int64_t r = 0; r < GEMM_MR; r++) {
            int64_t i = i0 + s + r;
            if (i < m && s + r < mc) {
                const GEMM_T *row = a + i * lda + p0;
                for (int64_t p = 0; p < kc; p++)
                    ap[p * GEMM_MR + r] = row[p];
            } else {
                for (int64_t p = 0; p < kc; p++)
                    ap[p * GEMM_MR + r] = 0;
            }
        }
    }
}

/* Packs rows [p0, p0 + kc) x columns [j0, j0 + nc) of B into NR-column
 * strips: strip s holds, for each p, the NR values B[p0 + p][j0 + s*NR + j]
 * (zero past the last column). */
static inline __attribute__((always_inline)) void
GEMM_NAME(gemm_pack_b)(const GEMM_T *b, int64_t ldb, int64_t p0, int64_t kc, int64_t j0,
                       int64_t nc, GEMM_T *restrict bp)
{
    for (int64_t s = 0; s < nc; s += GEMM_NR, bp += GEMM_NR * kc) {
        int64_t nr = nc - s < GEMM_NR ? nc - s : GEMM_NR;
        for (int64_t p = 0; p < kc; p++) {
            const GEMM_T *src = b + (p0 + p) * ldb + j0 + s;
            GEMM_T *dst = bp + p * GEMM_NR;
            if (nr == GEMM_NR) {
                memcpy(dst, src, sizeof(GEMM_T) * GEMM_NR);
            } else {
                for (int64_t j = 0; j < nr; j++)
                    dst[j] = src[j];
                for (int64_t j = nr; j < GEMM_NR; j++)
                    dst[j] = 0;
            }
        }
    }
}

static inline __attribute__((always_inline)) bool
GEMM_NAME(gemm_blocked)(int64_t m, int64_t n, int64_t k, const GEMM_T *a, int64_t lda,
                        const GEMM_T *b, int64_t ldb, GEMM_T *c, int64_t ldc)
{
    if (m <= 0 || n <= 0)
        return true;
    if (k <= 0) {
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++)
                c[i * ldc + j] = 0;
        return true;
    }
    int64_t kc_max = k < GEMM_KC ? k : GEMM_KC;
    int64_t nc_max = n < GEMM_NC ? (n + GEMM_NR - 1) / GEMM_NR * GEMM_NR : GEMM_NC;
    int64_t mc_max = m < GEMM_MC ? (m + GEMM_MR - 1) / GEMM_MR * GEMM_MR : GEMM_MC;
    GEMM_T *bp = gemm_scratch((size_t)(kc_max * nc_max) * sizeof(GEMM_T));
    GEMM_T *ap = gemm_scratch((size_t)(kc_max * mc_max) * sizeof(GEMM_T));
    if (!ap || !bp) {
        free(ap);
        free(bp);
        return false;
    }
    _Alignas(GEMM_V) GEMM_T edge[GEMM_MR * GEMM_NR] = {0};
    for (int64_t jc = 0; jc < n; jc += GEMM_NC) {
        int64_t nc = n - jc < GEMM_NC ? n - jc : GEMM_NC;
        for (int64_t pc = 0; pc < k; pc += GEMM_KC) {
            int64_t kc = k - pc < GEMM_KC ? k - pc : GEMM_KC;
            bool first = pc == 0;
            GEMM_NAME(gemm_pack_b)(b, ldb, pc, kc, jc, nc, bp);
            for (int64_t ic = 0; ic < m; ic += GEMM_MC) {
                int64_t mc = m - ic < GEMM_MC ? m - ic : GEMM_MC;
                GEMM_NAME(gemm_pack_a)(a, lda, m, ic, mc, pc, kc, ap);
                for (int64_t jr = 0; jr < nc; jr += GEMM_NR) {
                    int64_t nr = nc - jr < GEMM_NR ? nc - jr : GEMM_NR;
                    const GEMM_T *bs = bp + jr * kc;
                    for (int64_t ir = 0; ir < mc; ir += GEMM_MR) {
                        int64_t mr = mc - ir < GEMM_MR ? mc - ir : GEMM_MR;
                        const GEMM_T *as = ap + ir * kc;
                        GEMM_T *ct = c + (ic + ir) * ldc + jc + jr;
                        if (mr == GEMM_MR && nr == GEMM_NR) {
                            GEMM_NAME(gemm_tile)(kc, as, bs, ct, ldc, first);
                            continue;
                        }
                        /* a tile at the bottom or right edge: through a
                         * full-size copy, only its valid part kept */
                        for (int64_t r = 0; r < mr && !first; r++)
                            for (int64_t j = 0; j < nr; j++)
                                edge[r * GEMM_NR + j] = ct[r * ldc + j];
                        GEMM_NAME(gemm_tile)(kc, as, bs, edge, GEMM_NR, first);
                        for (int64_t r = 0; r < mr; r++)
                            for (int64_t j = 0; j < nr; j++)
                                ct[r * ldc + j] = edge[r * GEMM_NR + j];
                    }
                }
            }
        }
    }
    free(ap);
    free(bp);
    return true;
}

#undef GEMM_VL
#undef GEMM_NR
#undef GEMM_MR
#undef GEMM_KC
#undef GEMM_MC
#undef GEMM_NC
