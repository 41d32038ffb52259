/* emit_gemm.c: dot and convolution as one tiled shared-memory matrix
 * product.
 *
 * Both are C[b][m][n] = sum_k A(b, m, k) * B(b, k, n):
 *  - dot: b runs over the batch dimensions, A and B are the operands read
 *    through their accesses (so transposed or broadcast operands cost no
 *    copy);
 *  - convolution as an implicit GEMM: b is the group, m the output channel
 *    within it, n runs over (image, output position), k over (input channel
 *    within the group, kernel position). A is the weights; B is the input
 *    at the position the window puts there, 0 in the padding (a read
 *    predicate, no padded copy); C is the output.
 * A block of 256 threads (16 x 16) computes a TM x TN tile of C, TM and TN
 * 16, 32 or 64 by the size of M and N, each thread an (TM/16) x (TN/16)
 * register tile, stepping over k 16 at a time through shared memory: the
 * block loads the A and B slices (neighbouring threads read neighbouring k
 * of A and n of B), __syncthreads, every thread accumulates, __syncthreads.
 * Blocks loop over tiles with a grid stride, so every thread of a block
 * reaches the same barriers. Correctness first; the tiling is a sensible
 * start, not a tuned one.
 */
#include "cg_emit.h"

#include <stdio.h>
#include <string.h>

typedef struct gemm_spec gemm_spec;
/* Emits statements that assign the element to the variable `v` (declared
 * by the caller, 0 when nothing is assigned). */
typedef void (*gemm_load)(cg_kgen *g, const gemm_spec *s, const char *b, const char *mn,
                          const char *k, int indent);
typedef void (*gemm_store)(cg_kgen *g, const gemm_spec *s, const char *b, const char *m,
                           const char *n, const char *v, int indent);

struct gemm_spec {
    int64_t batch, M, N, K;
    const char *ct;
    gemm_load load_a, load_b;
    /* optional: declarations for column n made once per tile (the B loads
     * of a thread all share one column) */
    void (*prepare_b)(cg_kgen *g, const gemm_spec *s, const char *b, const char *n, int indent);
    gemm_store store;
    const ins *i;
    const cg_access *in, *out;
};

static int64_t tile_for(int64_t n)
{
    return n >= 64 ? 64 : n >= 32 ? 32 : 16;
}

static void emit_gemm(cg_kgen *g, const gemm_spec *s)
{
    int64_t TM = tile_for(s->M), TN = tile_for(s->N), RM = TM / 16, RN = TN / 16;
    int64_t tiles_m = (s->M + TM - 1) / TM, tiles_n = (s->N + TN - 1) / TN;
    int64_t ntiles = s->batch * tiles_m * tiles_n;
    const char *I = g->idx, *ct = s->ct;
    g->kind = "gemm";
    g->block = 256;
    g->grid = ntiles < CG_MAX_GRID ? (unsigned)(ntiles > 0 ? ntiles : 1) : CG_MAX_GRID;
    g->barriers = true;
    cg_text *b = &g->body;
    cg_printf(b, "    /* C[%lld][%lld x %lld] = A[%lld x %lld] B[%lld x %lld]: %lld x %lld tiles, "
                 "%lld x %lld per thread */\n",
              (long long)s->batch, (long long)s->M, (long long)s->N, (long long)s->M,
              (long long)s->K, (long long)s->K, (long long)s->N, (long long)TM, (long long)TN,
              (long long)RM, (long long)RN);
    cg_printf(b, "    __shared__ %s As[16][%lld];\n    __shared__ %s Bs[16][%lld];\n", ct,
              (long long)TM + 1, ct, (long long)TN + 1);
    cg_printf(b, "    const unsigned tx = threadIdx.x %% 16u, ty = threadIdx.x / 16u;\n");
    cg_printf(b, "    for (%s tile = blockIdx.x; tile < (%s)%lldull; tile += gridDim.x) {\n", I, I,
              (long long)ntiles);
    cg_printf(b, "        const %s b = tile / (%s)%lldull;\n", I, I, (long long)(tiles_m * tiles_n));
    cg_printf(b, "        const %s tm = (tile / (%s)%lldull) %% (%s)%lldull;\n", I, I,
              (long long)tiles_n, I, (long long)tiles_m);
    cg_printf(b, "        const %s tn = tile %% (%s)%lldull;\n", I, I, (long long)tiles_n);
    cg_printf(b, "        const %s nb = tn * (%s)%lld + threadIdx.x %% %lldu;\n", I, I, (long long)TN,
              (long long)TN);
    if (s->prepare_b)
        s->prepare_b(g, s, "b", "nb", 8);
    cg_printf(b, "        %s acc[%lld][%lld];\n", ct, (long long)RM, (long long)RN);
    cg_printf(b, "        for (int x = 0; x < %lld; x++)\n            for (int y = 0; y < %lld; "
                 "y++)\n                acc[x][y] = 0;\n",
              (long long)RM, (long long)RN);
    cg_printf(b, "        for (%s k0 = 0; k0 < (%s)%lldull; k0 += 16) {\n", I, I, (long long)s->K);
    /* A slice: thread t loads rows t/16 + 16i at column t%16; B slice:
     * rows t/TN + (256/TN)i at column t%TN, one column per thread */
    cg_printf(b, "            for (unsigned i = 0; i < %lldu; i++) {\n", (long long)(TM / 16));
    cg_printf(b, "                const %s m = tm * (%s)%lld + threadIdx.x / 16u + 16u * i, k = k0 + "
                 "threadIdx.x %% 16u;\n",
              I, I, (long long)TM);
    cg_printf(b, "                %s v = 0;\n", ct);
    cg_printf(b, "                if (m < (%s)%lldull && k < (%s)%lldull) {\n", I, (long long)s->M,
              I, (long long)s->K);
    s->load_a(g, s, "b", "m", "k", 20);
    cg_printf(b, "                }\n                As[threadIdx.x %% 16u][threadIdx.x / 16u + 16u * i] = "
                 "v;\n            }\n");
    cg_printf(b, "            for (unsigned i = 0; i < %lldu; i++) {\n", (long long)(TN / 16));
    cg_printf(b, "                const %s k = k0 + threadIdx.x / %lldu + %lldu * i;\n", I,
              (long long)TN, (long long)(256 / TN));
    cg_printf(b, "                %s v = 0;\n", ct);
    cg_printf(b, "                if (nb < (%s)%lldull && k < (%s)%lldull) {\n", I,
              (long long)s->N, I, (long long)s->K);
    s->load_b(g, s, "b", "nb", "k", 20);
    cg_printf(b, "                }\n                Bs[threadIdx.x / %lldu + %lldu * i][threadIdx.x %% %lldu] "
                 "= v;\n            }\n",
              (long long)TN, (long long)(256 / TN), (long long)TN);
    cg_printf(b, "            __syncthreads();\n");
    cg_printf(b, "            for (int kk = 0; kk < 16; kk++) {\n");
    cg_printf(b, "                %s a[%lld], bv[%lld];\n", ct, (long long)RM, (long long)RN);
    cg_printf(b, "                for (int x = 0; x < %lld; x++)\n                    a[x] = "
                 "As[kk][ty + 16u * x];\n",
              (long long)RM);
    cg_printf(b, "                for (int y = 0; y < %lld; y++)\n                    bv[y] = "
                 "Bs[kk][tx + 16u * y];\n",
              (long long)RN);
    cg_printf(b, "                for (int x = 0; x < %lld; x++)\n                    for (int y "
                 "= 0; y < %lld; y++)\n                        acc[x][y] += a[x] * bv[y];\n",
              (long long)RM, (long long)RN);
    cg_printf(b, "            }\n            __syncthreads();\n        }\n");
    cg_printf(b, "        for (int x = 0; x < %lld; x++)\n            for (int y = 0; y < %lld; "
                 "y++) {\n",
              (long long)RM, (long long)RN);
    cg_printf(b, "                const %s m = tm * (%s)%lld + ty + 16u * x, n = tn * (%s)%lld + "
                 "tx + 16u * y;\n",
              I, I, (long long)TM, I, (long long)TN);
    cg_printf(b, "                if (m < (%s)%lldull && n < (%s)%lldull) {\n", I, (long long)s->M,
              I, (long long)s->N);
    s->store(g, s, "b", "m", "n", "acc[x][y]", 20);
    cg_printf(b, "                }\n            }\n    }\n");
}

/* ---- dot ---- */

/* Batch dimensions of a rank-r shape from the linear batch index b. */
static void batch_index(const cg_level *lv, const char *b, char names[][64], const char **idx)
{
    int r = lv->rank;
    for (int d = 0; d < r - 2; d++) {
        int64_t inner = cg_product(lv->lens, d + 1, r - 2);
        snprintf(names[d], 64, "((%s / %lldull) %% %lldull)", b, (long long)inner,
                 (long long)lv->lens[d]);
        idx[d] = names[d];
    }
}

static void dot_load(cg_kgen *g, const cg_access *a, const char *b, const char *row,
                     const char *col, const char *ct, int indent)
{
    char names[SHAPE_MAX_RANK][64];
    const char *idx[SHAPE_MAX_RANK] = {NULL};
    int r = a->lv[0].rank;
    batch_index(&a->lv[0], b, names, idx);
    idx[r - 2] = row;
    idx[r - 1] = col;
    char off[1400], el[1500];
    cg_offset_multi(g, a, idx, indent, off, sizeof off);
    cg_element(g, a, off, el, sizeof el);
    cg_printf(&g->body, "%*sv = (%s)%s;\n", indent, "", ct, el);
}

static void dot_load_a(cg_kgen *g, const gemm_spec *s, const char *b, const char *m,
                       const char *k, int indent)
{
    dot_load(g, &s->in[0], b, m, k, s->ct, indent);
}

static void dot_load_b(cg_kgen *g, const gemm_spec *s, const char *b, const char *n,
                       const char *k, int indent)
{
    const cg_access *a = &s->in[1];
    if (a->nlevels != 1) {
        dot_load(g, a, b, k, n, s->ct, indent);
        return;
    }
    /* the column's part of the offset was made once per tile (dot_prepare_b) */
    char off[256], el[400];
    int r = a->lv[0].rank;
    snprintf(off, sizeof off, "bcol + (%s)(%s) * %lldull", g->idx, k,
             (long long)a->lv[0].strides[r - 2]);
    cg_element(g, a, off, el, sizeof el);
    cg_printf(&g->body, "%*sv = (%s)%s;\n", indent, "", s->ct, el);
}

static void dot_prepare_b(cg_kgen *g, const gemm_spec *s, const char *b, const char *n,
                          int indent)
{
    const cg_access *a = &s->in[1];
    if (a->nlevels != 1)
        return;
    char names[SHAPE_MAX_RANK][64];
    const char *idx[SHAPE_MAX_RANK] = {NULL};
    int r = a->lv[0].rank;
    batch_index(&a->lv[0], b, names, idx);
    idx[r - 1] = n;
    char off[1400];
    cg_offset_multi(g, a, idx, indent, off, sizeof off);
    cg_printf(&g->body, "%*sconst %s bcol = %s;\n", indent, "", g->idx, off);
}

static void dot_store(cg_kgen *g, const gemm_spec *s, const char *b, const char *m, const char *n,
                      const char *v, int indent)
{
    /* the output's lens may be permuted (output_permutation): index the
     * product's dimensions, then map them through the permutation */
    const ins *i = s->i;
    int r = i->sh.rank, np = 0;
    const attr_value *perm = ins_attr(i, "output_permutation");
    np = perm ? perm->n : 0;
    cg_level prod;
    memset(&prod, 0, sizeof prod);
    prod.rank = r;
    for (int d = 0; d < r; d++)
        prod.lens[d] = d < r - 1 ? i->args[0]->sh.lens[d] : i->args[1]->sh.lens[r - 1];
    char names[SHAPE_MAX_RANK][64];
    const char *pidx[SHAPE_MAX_RANK] = {NULL}, *idx[SHAPE_MAX_RANK] = {NULL};
    batch_index(&prod, b, names, pidx);
    pidx[r - 2] = m;
    pidx[r - 1] = n;
    for (int d = 0; d < r; d++)
        idx[d] = np ? pidx[perm->u.ints[d]] : pidx[d];
    char off[1400], conv[600];
    cg_offset_multi(g, s->out, idx, indent, off, sizeof off);
    cg_store_conversion(i->sh.type, s->ct, v, conv, sizeof conv);
    cg_printf(&g->body, "%*sp%d[%s] = %s;\n", indent, "", cg_param(g, s->out->buffer, true), off,
              conv);
}

bool cg_emit_dot(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    const shape *a = &i->args[0]->sh, *bsh = &i->args[1]->sh;
    int r = a->rank;
    gemm_spec s = {0};
    s.batch = cg_product(a->lens, 0, r - 2);
    s.M = a->lens[r - 2];
    s.K = a->lens[r - 1];
    s.N = bsh->lens[r - 1];
    s.ct = cg_compute_type(i->sh.type);
    s.load_a = dot_load_a;
    s.load_b = dot_load_b;
    s.prepare_b = dot_prepare_b;
    s.store = dot_store;
    s.i = i;
    s.in = in;
    s.out = out;
    emit_gemm(g, &s);
    return !g->failed;
}

/* ---- convolution ---- */

typedef struct conv_geo {
    int k;                       /* spatial axes */
    int64_t groups, cg, mg;      /* channels and features per group */
    int64_t in[SHAPE_MAX_RANK], ker[SHAPE_MAX_RANK], outl[SHAPE_MAX_RANK];
    int64_t pad[SHAPE_MAX_RANK], stride[SHAPE_MAX_RANK], dil[SHAPE_MAX_RANK];
    int64_t ksize, osize;
} conv_geo;

static conv_geo geo_of(const ins *i)
{
    conv_geo c;
    memset(&c, 0, sizeof c);
    const shape *x = &i->args[0]->sh, *w = &i->args[1]->sh;
    c.k = x->rank - 2;
    c.groups = ins_attr(i, "group")->u.i;
    c.cg = w->lens[1];
    c.mg = w->lens[0] / c.groups;
    const attr_value *pad = ins_attr(i, "padding"), *st = ins_attr(i, "stride"),
                     *dl = ins_attr(i, "dilation");
    c.ksize = c.osize = 1;
    for (int d = 0; d < c.k; d++) {
        c.in[d] = x->lens[d + 2];
        c.ker[d] = w->lens[d + 2];
        c.outl[d] = i->sh.lens[d + 2];
        c.pad[d] = pad->n ? pad->u.ints[d] : 0;
        c.stride[d] = st->n == 1 ? st->u.ints[0] : st->n > d ? st->u.ints[d] : 1;
        c.dil[d] = dl->n == 1 ? dl->u.ints[0] : dl->n > d ? dl->u.ints[d] : 1;
        c.ksize *= c.ker[d];
        c.osize *= c.outl[d];
    }
    return c;
}

static void conv_load_a(cg_kgen *g, const gemm_spec *s, const char *b, const char *m,
                        const char *k, int indent)
{
    conv_geo c = geo_of(s->i);
    const cg_access *w = &s->in[1];
    char off[1400], el[1500];
    if (w->nlevels == 1) {
        /* the weights' trailing dimensions (channel, kernel positions) as one
         * linear index k: contiguous runs merge, a standard layout is just k */
        cg_level trail;
        memset(&trail, 0, sizeof trail);
        trail.rank = w->lv[0].rank - 1;
        memcpy(trail.lens, w->lv[0].lens + 1, (size_t)trail.rank * sizeof trail.lens[0]);
        memcpy(trail.strides, w->lv[0].strides + 1, (size_t)trail.rank * sizeof trail.strides[0]);
        char tk[1024];
        cg_level_linear(&trail, k, g->idx, tk, sizeof tk);
        snprintf(off, sizeof off, "%lldull + ((%s)%s * %lldull + %s) * %lldull + %s",
                 (long long)w->lv[0].offset, g->idx, b, (long long)c.mg, m,
                 (long long)w->lv[0].strides[0], tk);
    } else {
        char names[SHAPE_MAX_RANK][96];
        const char *idx[SHAPE_MAX_RANK];
        snprintf(names[0], sizeof names[0], "%s * %lldull + %s", b, (long long)c.mg, m);
        snprintf(names[1], sizeof names[1], "%s / %lldull", k, (long long)c.ksize);
        idx[0] = names[0];
        idx[1] = names[1];
        for (int d = 0; d < c.k; d++) {
            int64_t inner = cg_product(c.ker, d + 1, c.k);
            snprintf(names[d + 2], sizeof names[d + 2], "(%s / %lldull) %% %lldull", k,
                     (long long)inner, (long long)c.ker[d]);
            idx[d + 2] = names[d + 2];
        }
        cg_offset_multi(g, w, idx, indent, off, sizeof off);
    }
    cg_element(g, w, off, el, sizeof el);
    cg_printf(&g->body, "%*sv = (%s)%s;\n", indent, "", s->ct, el);
}

/* Once per tile: the column's image and the window's corner. */
static void conv_prepare_b(cg_kgen *g, const gemm_spec *s, const char *b, const char *n,
                           int indent)
{
    (void)b;
    conv_geo c = geo_of(s->i);
    cg_printf(&g->body, "%*sconst %s img = %s / %lldull;\n", indent, "", g->idx, n,
              (long long)c.osize);
    for (int d = 0; d < c.k; d++) {
        int64_t oinner = cg_product(c.outl, d + 1, c.k);
        cg_printf(&g->body,
                  "%*sconst long long hb%d = (long long)((%s / %lldull) %% %lldull) * %lldLL - "
                  "%lldLL;\n",
                  indent, "", d, n, (long long)oinner, (long long)c.outl[d],
                  (long long)c.stride[d], (long long)c.pad[d]);
    }
}

static void conv_load_b(cg_kgen *g, const gemm_spec *s, const char *b, const char *n,
                        const char *k, int indent)
{
    (void)n;
    conv_geo c = geo_of(s->i);
    char names[SHAPE_MAX_RANK][64];
    const char *idx[SHAPE_MAX_RANK];
    cg_printf(&g->body, "%*sint inside = 1;\n", indent, "");
    for (int d = 0; d < c.k; d++) {
        int64_t kinner = cg_product(c.ker, d + 1, c.k);
        cg_printf(&g->body,
                  "%*sconst long long h%d = hb%d + (long long)((%s / %lldull) %% %lldull) * "
                  "%lldLL;\n",
                  indent, "", d, d, k, (long long)kinner, (long long)c.ker[d],
                  (long long)c.dil[d]);
        cg_printf(&g->body, "%*sinside = inside && h%d >= 0 && h%d < %lldLL;\n", indent, "", d, d,
                  (long long)c.in[d]);
        snprintf(names[d + 2], sizeof names[d + 2], "h%d", d);
        idx[d + 2] = names[d + 2];
    }
    snprintf(names[0], sizeof names[0], "img");
    snprintf(names[1], sizeof names[1], "%s * %lldull + %s / %lldull", b, (long long)c.cg, k,
             (long long)c.ksize);
    idx[0] = names[0];
    idx[1] = names[1];
    char off[1400], el[1500];
    cg_printf(&g->body, "%*sif (inside) {\n", indent, "");
    cg_offset_multi(g, &s->in[0], idx, indent + 4, off, sizeof off);
    cg_element(g, &s->in[0], off, el, sizeof el);
    cg_printf(&g->body, "%*s    v = (%s)%s;\n%*s}\n", indent, "", s->ct, el, indent, "");
}

static void conv_store(cg_kgen *g, const gemm_spec *s, const char *b, const char *m,
                       const char *n, const char *v, int indent)
{
    conv_geo c = geo_of(s->i);
    char names[SHAPE_MAX_RANK][96];
    const char *idx[SHAPE_MAX_RANK];
    snprintf(names[0], sizeof names[0], "%s / %lldull", n, (long long)c.osize);
    snprintf(names[1], sizeof names[1], "%s * %lldull + %s", b, (long long)c.mg, m);
    idx[0] = names[0];
    idx[1] = names[1];
    for (int d = 0; d < c.k; d++) {
        int64_t inner = cg_product(c.outl, d + 1, c.k);
        snprintf(names[d + 2], sizeof names[d + 2], "(%s / %lldull) %% %lldull", n,
                 (long long)inner, (long long)c.outl[d]);
        idx[d + 2] = names[d + 2];
    }
    char off[1400], conv[600];
    cg_offset_multi(g, s->out, idx, indent, off, sizeof off);
    cg_store_conversion(s->i->sh.type, s->ct, v, conv, sizeof conv);
    cg_printf(&g->body, "%*sp%d[%s] = %s;\n", indent, "", cg_param(g, s->out->buffer, true), off,
              conv);
}

bool cg_emit_convolution(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    if (ins_attr(i, "padding_mode")->u.i != 0)
        return cg_fail(g, "not lowered yet: convolution with padding_mode %lld",
                       (long long)ins_attr(i, "padding_mode")->u.i);
    conv_geo c = geo_of(i);
    gemm_spec s = {0};
    s.batch = c.groups;
    s.M = c.mg;
    s.N = i->args[0]->sh.lens[0] * c.osize;
    s.K = c.cg * c.ksize;
    s.ct = cg_compute_type(i->sh.type);
    s.load_a = conv_load_a;
    s.load_b = conv_load_b;
    s.prepare_b = conv_prepare_b;
    s.store = conv_store;
    s.i = i;
    s.in = in;
    s.out = out;
    emit_gemm(g, &s);
    return !g->failed;
}
