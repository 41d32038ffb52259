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
 *
 * A fused region around one dot or convolution (cg_emit_gemm_region) is the
 * same kernel with the region's evaluator (emit_pointwise.c) at both ends:
 * operands are read through the prologue, and each element of C goes
 * through the epilogue to the region's outputs. Reductions over C as extra
 * outputs take one block per reduction row, a rectangle of C the block
 * walks tile by tile, folding in registers and then across the block: no
 * atomics, nothing to fill first. What waits for a reduction runs in later
 * passes of the block over its row, reading back what the first pass stored.
 */
#include "cg_emit.h"

#include "ops_util.h"

#include <stdio.h>
#include <string.h>

typedef struct gemm_spec gemm_spec;
/* Emits statements that assign the element to the variable `v` (declared
 * by the caller, 0 when nothing is assigned). */
typedef void (*gemm_load)(cg_kgen *g, const gemm_spec *s, const char *b, const char *mn,
                          const char *k, int indent);
typedef void (*gemm_store)(cg_kgen *g, const gemm_spec *s, const char *b, const char *m,
                           const char *n, const char *v, int indent);

/* Inside a fused region (gemm_region below): the evaluator of the body,
 * what the product's epilogue writes and which reductions it feeds. */
typedef struct gemm_region {
    cg_pw *pw;
    const ins *ret;             /* the body's @return */
    const cg_access *out;       /* the region's output buffers */
    int nout;
    bool full[64];              /* output k is per element of the product, stored by
                                 * the epilogue */
    bool late[64];              /* ... per element, but waits for reductions */
    const ins *reds[16];
    const ins *rin[16];         /* what reds[r] folds (merged partial reductions) */
    bool masks[16][SHAPE_MAX_RANK];
    int level[16];              /* reductions a reduction waits for, in a chain */
    int nreds, nlevels;
    int product_scratch;        /* a buffer holding the product for later passes, or -1 */
    /* rows (with reductions): one block per row of the reductions, a
     * rectangle of the product [rm, rm + Mr) x [rn, rn + Nr) in batch b */
    int64_t nrows, nred, Mr, Nr;
    int64_t inner, per_batch;   /* product elements per m, per b */
    bool conv;                  /* b, m from the channel (convolution) */
    int64_t mg;                 /* channels per group (convolution) */
} gemm_region;

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
    gemm_region *region;        /* NULL outside regions */
};

static int64_t tile_for(int64_t n)
{
    return n >= 64 ? 64 : n >= 32 ? 32 : 16;
}

/* v = the operand k of the product at offset expression off of access a:
 * a load outside regions; in a region, the prologue's value at the
 * standard linear index off of the operand (a is then standard). */
static void read_operand(cg_kgen *g, const gemm_spec *s, int k, const cg_access *a,
                         const char *off, int indent)
{
    if (!s->region) {
        char el[1500];
        cg_element(g, a, off, el, sizeof el);
        cg_printf(&g->body, "%*sv = (%s)%s;\n", indent, "", s->ct, el);
        return;
    }
    char j[32], var[32];
    const char *vt;
    cg_fresh(g, j, sizeof j);
    cg_printf(&g->body, "%*sconst %s %s = %s;\n", indent, "", g->idx, j, off);
    cg_pw_enter(s->region->pw, indent);
    if (cg_pw_value(s->region->pw, s->i->args[k], j, var, sizeof var, &vt))
        cg_printf(&g->body, "%*sv = (%s)%s;\n", indent, "", s->ct, var);
    cg_pw_leave(s->region->pw, indent);
}

/* The product's element v at offset off of s->out: stored outside regions;
 * in a region, the epilogue at that (standard linear) index: outputs per
 * element are stored, reductions' inputs folded into racc<r>. */
static void write_product(cg_kgen *g, const gemm_spec *s, const char *off, const char *v,
                          int indent)
{
    gemm_region *rg = s->region;
    if (!rg) {
        char conv[600];
        cg_store_conversion(s->i->sh.type, s->ct, v, conv, sizeof conv);
        cg_printf(&g->body, "%*sp%d[%s] = %s;\n", indent, "", cg_param(g, s->out->buffer, true),
                  off, conv);
        return;
    }
    char j[32], pv[32];
    cg_fresh(g, j, sizeof j);
    cg_printf(&g->body, "%*sconst %s %s = %s;\n", indent, "", g->idx, j, off);
    cg_pw_enter(rg->pw, indent);
    /* the product rounded to its type, as the reference stores it */
    graft_type t = s->i->sh.type;
    if (t == GRAFT_HALF || t == GRAFT_BF16) {
        cg_fresh(g, pv, sizeof pv);
        if (t == GRAFT_HALF)
            cg_printf(&g->body, "%*sconst float %s = (float)(__half)(%s);\n", indent, "", pv, v);
        else
            cg_printf(&g->body, "%*sconst float %s = graft_bf16_to_f(graft_f_to_bf16(%s));\n",
                      indent, "", pv, v);
    } else {
        snprintf(pv, sizeof pv, "%s", v);
    }
    cg_pw_bind(rg->pw, s->i, j, pv, s->ct);
    if (rg->product_scratch >= 0) {
        char conv[600];
        cg_store_conversion(t, s->ct, pv, conv, sizeof conv);
        cg_printf(&g->body, "%*sp%d[%s] = %s;\n", indent, "",
                  cg_param(g, rg->product_scratch, true), j, conv);
    }
    for (int k = 0; k < rg->nout; k++) {
        if (!rg->full[k])
            continue;
        cg_pw_store_value(rg->pw, rg->ret->args[k], &rg->out[k], j);
    }
    for (int r = 0; r < rg->nreds; r++) {
        if (rg->level[r] != 0)
            continue;
        const ins *x = rg->rin[r];
        const char *ct = cg_compute_type(x->sh.type);
        char var[32], cv[64], c[512], acc[16];
        const char *vt;
        if (!cg_pw_value(rg->pw, x, j, var, sizeof var, &vt))
            break;
        snprintf(cv, sizeof cv, "(%s)%s", ct, var);
        snprintf(acc, sizeof acc, "racc%d", r);
        cg_combine(cg_combine_of(rg->reds[r]), ct, acc, cv, c, sizeof c);
        cg_printf(&g->body, "%*s%s = %s;\n", indent, "", acc, c);
    }
    cg_pw_leave(rg->pw, indent);
}

/* One TM x TN tile of C at rows m0.. and columns n0.. of batch b (all
 * declared by the caller), bounded by mend and nend. */
static void emit_tile(cg_kgen *g, const gemm_spec *s, int64_t TM, int64_t TN, const char *mend,
                      const char *nend, int in)
{
    int64_t RM = TM / 16, RN = TN / 16;
    const char *I = g->idx, *ct = s->ct;
    cg_text *b = &g->body;
    cg_printf(b, "%*sconst %s nb = n0 + threadIdx.x %% %lldu;\n", in, "", I, (long long)TN);
    if (s->prepare_b)
        s->prepare_b(g, s, "b", "nb", in);
    cg_printf(b, "%*s%s acc[%lld][%lld];\n", in, "", ct, (long long)RM, (long long)RN);
    cg_printf(b, "%*sfor (int x = 0; x < %lld; x++)\n%*s    for (int y = 0; y < %lld; y++)\n"
                 "%*s        acc[x][y] = 0;\n",
              in, "", (long long)RM, in, "", (long long)RN, in, "");
    cg_printf(b, "%*sfor (%s k0 = 0; k0 < (%s)%lldull; k0 += 16) {\n", in, "", I, I,
              (long long)s->K);
    /* A slice: thread t loads rows t/16 + 16i at column t%16; B slice:
     * rows t/TN + (256/TN)i at column t%TN, one column per thread */
    cg_printf(b, "%*s    for (unsigned i = 0; i < %lldu; i++) {\n", in, "", (long long)(TM / 16));
    cg_printf(b, "%*s        const %s m = m0 + threadIdx.x / 16u + 16u * i, k = k0 + "
                 "threadIdx.x %% 16u;\n",
              in, "", I);
    cg_printf(b, "%*s        %s v = 0;\n", in, "", ct);
    cg_printf(b, "%*s        if (m < %s && k < (%s)%lldull) {\n", in, "", mend, I,
              (long long)s->K);
    s->load_a(g, s, "b", "m", "k", in + 12);
    cg_printf(b, "%*s        }\n%*s        As[threadIdx.x %% 16u][threadIdx.x / 16u + 16u * i] = "
                 "v;\n%*s    }\n",
              in, "", in, "", in, "");
    cg_printf(b, "%*s    for (unsigned i = 0; i < %lldu; i++) {\n", in, "", (long long)(TN / 16));
    cg_printf(b, "%*s        const %s k = k0 + threadIdx.x / %lldu + %lldu * i;\n", in, "", I,
              (long long)TN, (long long)(256 / TN));
    cg_printf(b, "%*s        %s v = 0;\n", in, "", ct);
    cg_printf(b, "%*s        if (nb < %s && k < (%s)%lldull) {\n", in, "", nend, I,
              (long long)s->K);
    s->load_b(g, s, "b", "nb", "k", in + 12);
    cg_printf(b, "%*s        }\n%*s        Bs[threadIdx.x / %lldu + %lldu * i][threadIdx.x %% "
                 "%lldu] = v;\n%*s    }\n",
              in, "", in, "", (long long)TN, (long long)(256 / TN), (long long)TN, in, "");
    cg_printf(b, "%*s    __syncthreads();\n", in, "");
    cg_printf(b, "%*s    for (int kk = 0; kk < 16; kk++) {\n", in, "");
    cg_printf(b, "%*s        %s a[%lld], bv[%lld];\n", in, "", ct, (long long)RM, (long long)RN);
    cg_printf(b, "%*s        for (int x = 0; x < %lld; x++)\n%*s            a[x] = As[kk][ty + "
                 "16u * x];\n",
              in, "", (long long)RM, in, "");
    cg_printf(b, "%*s        for (int y = 0; y < %lld; y++)\n%*s            bv[y] = Bs[kk][tx + "
                 "16u * y];\n",
              in, "", (long long)RN, in, "");
    cg_printf(b, "%*s        for (int x = 0; x < %lld; x++)\n%*s            for (int y = 0; y < "
                 "%lld; y++)\n%*s                acc[x][y] += a[x] * bv[y];\n",
              in, "", (long long)RM, in, "", (long long)RN, in, "");
    cg_printf(b, "%*s    }\n%*s    __syncthreads();\n%*s}\n", in, "", in, "", in, "");
    cg_printf(b, "%*sfor (int x = 0; x < %lld; x++)\n%*s    for (int y = 0; y < %lld; y++) {\n",
              in, "", (long long)RM, in, "", (long long)RN);
    cg_printf(b, "%*s        const %s m = m0 + ty + 16u * x, n = n0 + tx + 16u * y;\n", in, "",
              I);
    cg_printf(b, "%*s        if (m < %s && n < %s) {\n", in, "", mend, nend);
    s->store(g, s, "b", "m", "n", "acc[x][y]", in + 12);
    cg_printf(b, "%*s        }\n%*s    }\n", in, "", in, "");
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
    cg_printf(b, "        const %s m0 = (tile / (%s)%lldull) %% (%s)%lldull * (%s)%lld;\n", I, I,
              (long long)tiles_n, I, (long long)tiles_m, I, (long long)TM);
    cg_printf(b, "        const %s n0 = tile %% (%s)%lldull * (%s)%lld;\n", I, I,
              (long long)tiles_n, I, (long long)TN);
    char mend[64], nend[64];
    snprintf(mend, sizeof mend, "(%s)%lldull", I, (long long)s->M);
    snprintf(nend, sizeof nend, "(%s)%lldull", I, (long long)s->N);
    emit_tile(g, s, TM, TN, mend, nend, 8);
    cg_puts(b, "    }\n");
}

/* Folds reduction r's per-thread racc<r> over the block into red<r>, the
 * row's value for every later expression. */
static void fold_row(cg_kgen *g, gemm_region *rg, int r)
{
    cg_text *b = &g->body;
    const ins *rd = rg->reds[r];
    const char *rt = cg_compute_type(rg->rin[r]->sh.type);
    cg_printf(b, "        %s red%d;\n        {\n            %s acc = racc%d;\n", rt, r, rt, r);
    cg_block_fold(g, rt, cg_combine_of(rd), cg_partial_array(rt), true, 12);
    if (ins_is(rd, "reduce_mean"))
        cg_printf(b, "            red%d = acc / (%s)%lld;\n        }\n", r, rt, (long long)rg->nred);
    else
        cg_printf(b, "            red%d = acc;\n        }\n", r);
    if (rd->sh.type == GRAFT_HALF)
        cg_printf(b, "        red%d = (float)(__half)red%d;\n", r, r);
    char name[16];
    snprintf(name, sizeof name, "red%d", r);
    cg_pw_fix(rg->pw, rd, name, rt);
}

/* The parameter through which the kernel writes buffer b (-1: none). */
static int written_param(const cg_kgen *g, int b)
{
    for (int k = 0; k < g->nparams; k++)
        if (g->param_buffer[k] == b && g->param_writes[k])
            return k;
    return -1;
}

/* A later pass over the block's row, for what waits for reductions (a
 * variance after its mean, outputs normalised by them): the block reads
 * back the per-element outputs it stored in the first pass (after a
 * barrier, which makes a block's global writes visible to the block), so
 * the product is not computed twice. With level < nlevels it folds that
 * level's reductions into racc<r>; with outputs, it stores the late
 * outputs. Expressions that need the product itself rather than a stored
 * output cannot be evaluated here and fail as not lowered yet. */
static void read_back_row(cg_kgen *g, const gemm_spec *s, int level, bool outputs)
{
    gemm_region *rg = s->region;
    const char *I = g->idx;
    cg_text *b = &g->body;
    cg_printf(b, "        __syncthreads();\n");
    cg_printf(b, "        for (%s r = threadIdx.x; r < (%s)%lldull; r += blockDim.x) {\n", I, I,
              (long long)rg->nred);
    cg_pw_enter(rg->pw, 12);
    cg_printf(b, "            const %s j = first + r;\n", I);
    if (rg->product_scratch >= 0) {
        char var[32];
        const char *ct = s->ct;
        int pk = written_param(g, rg->product_scratch);
        cg_fresh(g, var, sizeof var);
        if (s->i->sh.type == GRAFT_BF16)
            cg_printf(b, "            const float %s = graft_bf16_to_f(p%d[j]);\n", var, pk);
        else
            cg_printf(b, "            const %s %s = (%s)p%d[j];\n", ct, var, ct, pk);
        cg_pw_bind(rg->pw, s->i, "j", var, ct);
    }
    for (int k = 0; k < rg->nout; k++) {
        if (!rg->full[k])
            continue;
        const ins *v = rg->ret->args[k];
        int pk = written_param(g, rg->out[k].buffer);
        if (pk < 0)
            continue;
        char off[1100], var[32];
        const char *ct = cg_compute_type(v->sh.type);
        cg_offset_linear(g, &rg->out[k], "j", 12, off, sizeof off);
        cg_fresh(g, var, sizeof var);
        if (v->sh.type == GRAFT_BF16)
            cg_printf(b, "            const float %s = graft_bf16_to_f(p%d[%s]);\n", var, pk, off);
        else
            cg_printf(b, "            const %s %s = (%s)p%d[%s];\n", ct, var, ct, pk, off);
        cg_pw_bind(rg->pw, v, "j", var, ct);
    }
    for (int r = 0; !outputs && r < rg->nreds; r++) {
        if (rg->level[r] != level)
            continue;
        const ins *x = rg->rin[r];
        const char *ct = cg_compute_type(x->sh.type);
        char var[32], cv[64], c[512], acc[16];
        const char *vt;
        if (!cg_pw_value(rg->pw, x, "j", var, sizeof var, &vt))
            break;
        snprintf(cv, sizeof cv, "(%s)%s", ct, var);
        snprintf(acc, sizeof acc, "racc%d", r);
        cg_combine(cg_combine_of(rg->reds[r]), ct, acc, cv, c, sizeof c);
        cg_printf(b, "            %s = %s;\n", acc, c);
    }
    for (int k = 0; outputs && k < rg->nout; k++) {
        if (!rg->late[k])
            continue;
        cg_pw_store_value(rg->pw, rg->ret->args[k], &rg->out[k], "j");
    }
    cg_pw_leave(rg->pw, 8);
    cg_puts(b, "        }\n");
}

/* With reductions over the product: one block per row of the reductions.
 * A row is a rectangle of the product (gemm_region); the block steps
 * through its tiles, each thread folding the epilogue's values of its
 * elements into registers, then the block folds them (waves, then shared
 * memory): no atomics, and no buffer to fill first. Thread 0 writes the
 * per-row outputs. */
static void emit_gemm_rows(cg_kgen *g, const gemm_spec *s)
{
    gemm_region *rg = s->region;
    int64_t TM = tile_for(rg->Mr), TN = tile_for(rg->Nr);
    int64_t tiles_m = (rg->Mr + TM - 1) / TM, tiles_n = (rg->Nr + TN - 1) / TN;
    const char *I = g->idx, *ct = s->ct;
    g->kind = "gemm_reduce_block";
    g->block = 256;
    g->grid = rg->nrows < CG_MAX_GRID ? (unsigned)(rg->nrows > 0 ? rg->nrows : 1) : CG_MAX_GRID;
    g->barriers = true;
    cg_text *b = &g->body;
    cg_printf(b, "    /* C[%lld][%lld x %lld] = A[%lld x %lld] B[%lld x %lld]; %lld rows of %lld "
                 "x %lld, each one block: %lld x %lld tiles */\n",
              (long long)s->batch, (long long)s->M, (long long)s->N, (long long)s->M,
              (long long)s->K, (long long)s->K, (long long)s->N, (long long)rg->nrows,
              (long long)rg->Mr, (long long)rg->Nr, (long long)TM, (long long)TN);
    cg_printf(b, "    __shared__ %s As[16][%lld];\n    __shared__ %s Bs[16][%lld];\n", ct,
              (long long)TM + 1, ct, (long long)TN + 1);
    bool need[CG_PARTIAL_TYPES] = {false, false, false};
    for (int r = 0; r < rg->nreds; r++)
        need[cg_partial_index(cg_compute_type(rg->rin[r]->sh.type))] = true;
    cg_declare_partials(g, need);
    cg_printf(b, "    const unsigned tx = threadIdx.x %% 16u, ty = threadIdx.x / 16u;\n");
    cg_printf(b, "    for (%s o = blockIdx.x; o < (%s)%lldull; o += gridDim.x) {\n", I, I,
              (long long)rg->nrows);
    /* the row's rectangle from its first element's linear index */
    cg_printf(b, "        const %s first = o * (%s)%lldull;\n", I, I, (long long)rg->nred);
    cg_printf(b, "        const %s within = first %% (%s)%lldull;\n", I, I,
              (long long)rg->per_batch);
    if (rg->conv) {
        cg_printf(b, "        const %s channel = within / (%s)%lldull;\n", I, I,
                  (long long)rg->inner);
        cg_printf(b, "        const %s b = channel / (%s)%lldull;\n", I, I, (long long)rg->mg);
        cg_printf(b, "        const %s rm = channel %% (%s)%lldull;\n", I, I, (long long)rg->mg);
        cg_printf(b, "        const %s rn = first / (%s)%lldull * (%s)%lldull + within %% "
                     "(%s)%lldull;\n",
                  I, I, (long long)rg->per_batch, I, (long long)rg->inner, I,
                  (long long)rg->inner);
    } else {
        cg_printf(b, "        const %s b = first / (%s)%lldull;\n", I, I, (long long)rg->per_batch);
        cg_printf(b, "        const %s rm = within / (%s)%lldull;\n", I, I, (long long)rg->inner);
        cg_printf(b, "        const %s rn = within %% (%s)%lldull;\n", I, I, (long long)rg->inner);
    }
    for (int r = 0; r < rg->nreds; r++) {
        const char *rt = cg_compute_type(rg->rin[r]->sh.type);
        cg_printf(b, "        %s racc%d = %s;\n", rt, r,
                  cg_combine_init(cg_combine_of(rg->reds[r]), rt));
    }
    cg_printf(b, "        for (unsigned t = 0; t < %lldu; t++) {\n",
              (long long)(tiles_m * tiles_n));
    cg_printf(b, "            const %s m0 = rm + (%s)(t / %lldu) * (%s)%lld;\n", I, I,
              (long long)tiles_n, I, (long long)TM);
    cg_printf(b, "            const %s n0 = rn + (%s)(t %% %lldu) * (%s)%lld;\n", I, I,
              (long long)tiles_n, I, (long long)TN);
    char mend[64], nend[64];
    snprintf(mend, sizeof mend, "rm + (%s)%lldull", I, (long long)rg->Mr);
    snprintf(nend, sizeof nend, "rn + (%s)%lldull", I, (long long)rg->Nr);
    emit_tile(g, s, TM, TN, mend, nend, 12);
    cg_puts(b, "        }\n");
    for (int level = 0; level < rg->nlevels; level++) {
        if (level > 0)
            read_back_row(g, s, level, false);
        for (int r = 0; r < rg->nreds; r++)
            if (rg->level[r] == level)
                fold_row(g, rg, r);
    }
    bool any_late = false;
    for (int k = 0; k < rg->nout; k++)
        any_late |= rg->late[k];
    if (any_late)
        read_back_row(g, s, rg->nlevels, true);
    cg_puts(b, "        if (threadIdx.x == 0) {\n");
    cg_pw_enter(rg->pw, 12);
    for (int k = 0; k < rg->nout; k++) {
        if (rg->full[k] || rg->late[k])
            continue;
        cg_pw_store_value(rg->pw, rg->ret->args[k], &rg->out[k], "o");
    }
    cg_pw_leave(rg->pw, 8);
    cg_puts(b, "        }\n    }\n");
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

static void dot_load(cg_kgen *g, const gemm_spec *s, int which, const char *b, const char *row,
                     const char *col, int indent)
{
    const cg_access *a = &s->in[which];
    char names[SHAPE_MAX_RANK][64];
    const char *idx[SHAPE_MAX_RANK] = {NULL};
    int r = a->lv[0].rank;
    batch_index(&a->lv[0], b, names, idx);
    idx[r - 2] = row;
    idx[r - 1] = col;
    char off[1400];
    cg_offset_multi(g, a, idx, indent, off, sizeof off);
    read_operand(g, s, which, a, off, indent);
}

static void dot_load_a(cg_kgen *g, const gemm_spec *s, const char *b, const char *m,
                       const char *k, int indent)
{
    dot_load(g, s, 0, b, m, k, indent);
}

static void dot_load_b(cg_kgen *g, const gemm_spec *s, const char *b, const char *n,
                       const char *k, int indent)
{
    const cg_access *a = &s->in[1];
    if (a->nlevels != 1) {
        dot_load(g, s, 1, b, k, n, indent);
        return;
    }
    /* the column's part of the offset was made once per tile (dot_prepare_b) */
    char off[256];
    int r = a->lv[0].rank;
    snprintf(off, sizeof off, "bcol + (%s)(%s) * %lldull", g->idx, k,
             (long long)a->lv[0].strides[r - 2]);
    read_operand(g, s, 1, a, off, indent);
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
    char off[1400];
    cg_offset_multi(g, s->out, idx, indent, off, sizeof off);
    write_product(g, s, off, v, indent);
}

static void dot_spec(const ins *i, gemm_spec *s)
{
    const shape *a = &i->args[0]->sh, *bsh = &i->args[1]->sh;
    int r = a->rank;
    memset(s, 0, sizeof *s);
    s->batch = cg_product(a->lens, 0, r - 2);
    s->M = a->lens[r - 2];
    s->K = a->lens[r - 1];
    s->N = bsh->lens[r - 1];
    s->ct = cg_compute_type(i->sh.type);
    s->load_a = dot_load_a;
    s->load_b = dot_load_b;
    s->prepare_b = dot_prepare_b;
    s->store = dot_store;
    s->i = i;
}

bool cg_emit_dot(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    gemm_spec s;
    dot_spec(i, &s);
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
    char off[1400];
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
    read_operand(g, s, 1, w, off, indent);
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
    char off[1400];
    cg_printf(&g->body, "%*sif (inside) {\n", indent, "");
    cg_offset_multi(g, &s->in[0], idx, indent + 4, off, sizeof off);
    read_operand(g, s, 0, &s->in[0], off, indent + 4);
    cg_printf(&g->body, "%*s}\n", indent, "");
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
    char off[1400];
    cg_offset_multi(g, s->out, idx, indent, off, sizeof off);
    write_product(g, s, off, v, indent);
}

static bool conv_spec(cg_kgen *g, const ins *i, gemm_spec *s)
{
    if (ins_attr(i, "padding_mode")->u.i != 0)
        return cg_fail(g, "not lowered yet: convolution with padding_mode %lld",
                       (long long)ins_attr(i, "padding_mode")->u.i);
    conv_geo c = geo_of(i);
    memset(s, 0, sizeof *s);
    s->batch = c.groups;
    s->M = c.mg;
    s->N = i->args[0]->sh.lens[0] * c.osize;
    s->K = c.cg * c.ksize;
    s->ct = cg_compute_type(i->sh.type);
    s->load_a = conv_load_a;
    s->load_b = conv_load_b;
    s->prepare_b = conv_prepare_b;
    s->store = conv_store;
    s->i = i;
    return true;
}

bool cg_emit_convolution(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out)
{
    gemm_spec s;
    if (!conv_spec(g, i, &s))
        return false;
    s.in = in;
    s.out = out;
    emit_gemm(g, &s);
    return !g->failed;
}

/* ---- a fused region around one dot or convolution ---- */

/* Body instructions in a small set (bodies are small: linear lookups). */
typedef struct ins_set {
    const ins *v[512];
    int n;
    bool overflow;
} ins_set;

static bool in_set(const ins_set *set, const ins *v)
{
    for (int k = 0; k < set->n; k++)
        if (set->v[k] == v)
            return true;
    return false;
}

/* The body's instructions that depend on any of `from` (seeds included). */
static void dependents(const module *body, const ins *const *from, int nfrom, ins_set *set)
{
    set->n = 0;
    set->overflow = false;
    for (const ins *b = body->first; b; b = b->next) {
        bool dep = false;
        for (int k = 0; !dep && k < nfrom; k++)
            dep = b == from[k];
        for (int k = 0; !dep && k < b->nargs; k++)
            dep = in_set(set, b->args[k]);
        if (!dep)
            continue;
        if (set->n == (int)(sizeof set->v / sizeof set->v[0]))
            set->overflow = true;
        else
            set->v[set->n++] = b;
    }
}

/* Whether evaluating v, with the values in `stored` given, reaches the
 * product (seen: what was looked at already). */
static bool reaches(const ins *v, const ins *product, const ins_set *stored, ins_set *seen)
{
    if (v == product)
        return true;
    if (in_set(stored, v) || in_set(seen, v) || v->param || (v->op->classes & OPC_REDUCE))
        return false;
    if (seen->n < (int)(sizeof seen->v / sizeof seen->v[0]))
        seen->v[seen->n++] = v;
    for (int k = 0; k < v->nargs; k++)
        if (reaches(v->args[k], product, stored, seen))
            return true;
    return false;
}

static cg_access standard_access(const shape *sh)
{
    cg_access a;
    memset(&a, 0, sizeof a);
    a.buffer = -1;
    a.type = sh->type;
    a.nlevels = 1;
    a.lv[0].rank = sh->rank;
    memcpy(a.lv[0].lens, sh->lens, sizeof sh->lens);
    cg_standard_strides(sh->rank, sh->lens, a.lv[0].strides);
    return a;
}

/* The rows of the reductions as rectangles of the product: the reduced
 * axes must be the innermost ones of their input (a row is then a run of
 * the product's linear index), and a row must be whole runs of n inside one
 * batch (group), or part of one run. */
static bool row_rectangles(cg_kgen *g, const gemm_spec *s, gemm_region *rg, const char *body)
{
    const ins *x = rg->rin[0];
    const bool *reduced = rg->masks[0];
    for (int r = 1; r < rg->nreds; r++) {
        bool same = shape_same_lens(&rg->rin[r]->sh, &x->sh);
        for (int d = 0; same && d < x->sh.rank; d++)
            same = rg->masks[r][d] == reduced[d];
        if (!same)
            return cg_fail(g, "not lowered yet: region %s reduces different lens or axes", body);
    }
    int64_t nred = 1, total = shape_elements(&x->sh);
    bool inner = true, seen = false;
    for (int d = 0; d < x->sh.rank; d++) {
        if (x->sh.lens[d] == 1)
            continue;
        if (reduced[d]) {
            nred *= x->sh.lens[d];
            seen = true;
        } else if (seen) {
            inner = false;
        }
    }
    if (!inner || total != shape_elements(&s->i->sh) || nred < 1)
        return cg_fail(g, "not lowered yet: region %s reduces axes of %s that are not the "
                          "innermost of the product's elements",
                       body, s->i->opname);
    const shape *o = &s->i->sh;
    rg->nred = nred;
    rg->nrows = total / nred;
    if (rg->conv) {
        conv_geo c = geo_of(s->i);
        rg->inner = c.osize;
        rg->per_batch = o->lens[1] * c.osize;
        rg->mg = c.mg;
    } else {
        const attr_value *perm = ins_attr(s->i, "output_permutation");
        for (int d = 0; perm && d < perm->n; d++)
            if (perm->u.ints[d] != d)
                return cg_fail(g, "not lowered yet: reductions over a permuted dot in region %s",
                               body);
        rg->inner = o->lens[o->rank - 1];
        rg->per_batch = rg->inner * o->lens[o->rank - 2];
        rg->mg = o->lens[o->rank - 2];
    }
    if (nred % rg->inner == 0 && rg->mg % (nred / rg->inner) == 0) {
        rg->Mr = nred / rg->inner;
        rg->Nr = rg->inner;
    } else if (rg->inner % nred == 0) {
        rg->Mr = 1;
        rg->Nr = nred;
    } else {
        return cg_fail(g, "not lowered yet: region %s reduces rows of %lld elements that are "
                          "not rectangles of the product (%lld by %lld)",
                       body, (long long)nred, (long long)rg->mg, (long long)rg->inner);
    }
    return true;
}

bool cg_emit_gemm_region(cg_kgen *g, const ins *i, const cg_access *in, const cg_access *out,
                         int nout)
{
    const module *body = i->mods[0];
    const char *name = body->name;
    const ins *ret = module_return(body), *anchor = NULL;
    if (!ret || ret->nargs != nout || nout > 64)
        return cg_fail(g, "region %s: %d outputs expected", name, nout);
    gemm_region rg;
    memset(&rg, 0, sizeof rg);
    rg.ret = ret;
    rg.out = out;
    rg.nout = nout;
    for (const ins *b = body->first; b; b = b->next) {
        if (ins_is(b, "convolution") || ins_is(b, "dot")) {
            if (anchor)
                return cg_fail(g, "not lowered yet: region %s holds more than one dot or "
                                  "convolution",
                               name);
            anchor = b;
        }
    }
    rg.nreds = cg_region_reductions(g, body, rg.reds, rg.rin, rg.masks, 16);
    if (rg.nreds < 0)
        return false;
    if (!anchor)
        return cg_fail(g, "region %s: no dot or convolution", name);
    ins_set after, reduced;
    dependents(body, &anchor, 1, &after);
    dependents(body, rg.reds, rg.nreds, &reduced);
    if (after.overflow || reduced.overflow)
        return cg_fail(g, "not lowered yet: region %s is too large", name);
    for (int r = 0; r < rg.nreds; r++) {
        if (!in_set(&after, rg.reds[r]))
            return cg_fail(g, "not lowered yet: a reduction before the %s of region %s",
                           anchor->opname, name);
        rg.level[r] = 0;
        for (int q = 0; q < r; q++) {
            ins_set waits;
            dependents(body, &rg.reds[q], 1, &waits);
            if (rg.level[q] + 1 > rg.level[r] && in_set(&waits, rg.rin[r]))
                rg.level[r] = rg.level[q] + 1;
        }
        if (rg.level[r] + 1 > rg.nlevels)
            rg.nlevels = rg.level[r] + 1;
    }
    int64_t n = shape_elements(&anchor->sh);
    for (int k = 0; k < nout; k++) {
        const ins *v = ret->args[k];
        int64_t e = shape_elements(&v->sh);
        if (!in_set(&after, v))
            return cg_fail(g, "not lowered yet: output %d of region %s does not depend on its %s",
                           k, name, anchor->opname);
        rg.full[k] = !in_set(&reduced, v) && e == n;
        rg.late[k] = in_set(&reduced, v) && e == n;
        if (!rg.full[k] && !in_set(&reduced, v))
            return cg_fail(g, "not lowered yet: output %d of region %s is not per element of "
                              "its %s",
                           k, name, anchor->opname);
    }
    gemm_spec s;
    bool conv = ins_is(anchor, "convolution");
    if (conv) {
        if (!conv_spec(g, anchor, &s))
            return false;
    } else {
        dot_spec(anchor, &s);
    }
    rg.conv = conv;
    if (rg.nreds && !row_rectangles(g, &s, &rg, name))
        return false;
    for (int k = 0; k < nout; k++)
        if (!rg.full[k] && !rg.late[k] && shape_elements(&ret->args[k]->sh) != rg.nrows)
            return cg_fail(g, "not lowered yet: output %d of region %s is neither per element "
                              "of its %s nor per row of its reductions",
                           k, name, anchor->opname);
    /* the later passes read back stored outputs; when what they evaluate
     * needs the product itself, the first pass stores it too */
    rg.product_scratch = -1;
    ins_set stored, seen;
    stored.n = seen.n = 0;
    for (int k = 0; k < nout; k++)
        if (rg.full[k])
            stored.v[stored.n++] = ret->args[k];
    bool need = false;
    for (int r = 0; r < rg.nreds; r++)
        need |= rg.level[r] > 0 && reaches(rg.rin[r], anchor, &stored, &seen);
    for (int k = 0; k < nout; k++)
        need |= rg.late[k] && reaches(ret->args[k], anchor, &stored, &seen);
    if (need && (rg.product_scratch = cg_scratch_buffer(g, i, 0, anchor->sh.type, n)) < 0)
        return false;
    cg_access std_in[2] = {standard_access(&anchor->args[0]->sh),
                           standard_access(&anchor->args[1]->sh)};
    cg_access std_out = standard_access(&anchor->sh);
    rg.pw = cg_pw_new(g, i, in);
    if (!rg.pw)
        return cg_fail(g, "out of memory");
    cg_cite_body(g, body);
    s.in = std_in;
    s.out = &std_out;
    s.region = &rg;
    if (rg.nreds)
        emit_gemm_rows(g, &s);
    else
        emit_gemm(g, &s);
    cg_pw_free(rg.pw);
    return !g->failed;
}
