/* test_codegen_index.c: the kernels of codegen/emit_index.c (gathers,
 * scatters, cumsum, topk, unique, nonmaxsuppression, max pooling's indices)
 * run on the emu device at both wave sizes (64 as on gfx90a, 32 as on
 * gfx1030) and must equal the reference executor exactly, and hiprtc
 * compiles each of them for gfx90a and gfx1030 (skipped without hiprtc).
 *
 * Random integer inputs lie in [0, 4), so index operands read random
 * positions with many duplicates (the order scatters combine them in
 * matters), and integer data has many ties (topk's and unique's orders);
 * literals give negative indices, exact ties and boxes with known overlaps.
 * Operands are read through views (a transpose, a slice) where a case says
 * so, so the kernels' index arithmetic over any access is exercised too.
 */
#include "check.h"

#include "codegen.h"
#include "emu_check.h"
#include "exec.h"
#include "graph_test_helpers.h"

#include <stdio.h>

static const char gathers[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {4, 5, 6}, {30, 6, 1}\n"
    "i = @param:i -> int64_type, {5, 3, 4}, {12, 4, 1}\n"
    "d = @param:d -> int32_type, {3, 4}, {4, 1}\n"
    "@3 = transpose[permutation={1, 2, 0}](x)\n"
    "@4 = gather_elements[axis=1](@3,i)\n"
    "n = @literal{-1, 0, -3, 2, 1, -2} -> int64_type, {2, 3}, {3, 1}\n"
    "@6 = gather_elements[axis=0](d,n)\n"
    "k = @literal{1, -1, 0, 2, -3, 4, 3, 0} -> int64_type, {2, 2, 2}, {4, 2, 1}\n"
    "@8 = gathernd(x,k)\n"
    "b = @param:b -> int32_type, {4, 3, 1}, {3, 1, 1}\n"
    "@10 = gathernd[batch_dims=1](x,b)\n"
    "@11 = @return(@4, @6, @8, @10)\n";

static const char scatters[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {4, 6, 3}, {18, 3, 1}\n"
    "i = @param:i -> int64_type, {4, 5, 3}, {15, 3, 1}\n"
    "u = @param:u -> float_type, {4, 5, 3}, {15, 3, 1}\n"
    "@3 = scatter_none[axis=1](x,i,u)\n"
    "@4 = scatter_add[axis=1](x,i,u)\n"
    "@5 = scatter_mul[axis=1](x,i,u)\n"
    "d = @param:d -> int32_type, {4, 6}, {6, 1}\n"
    "j = @param:j -> int32_type, {3, 6}, {6, 1}\n"
    "v = @param:v -> int32_type, {3, 6}, {6, 1}\n"
    "@9 = scatter_min[axis=0](d,j,v)\n"
    "@10 = scatter_max[axis=0](d,j,v)\n"
    "n = @literal{-1, 0, -4, 3, -2, 1} -> int64_type, {1, 6}, {6, 1}\n"
    "w = @param:w -> int32_type, {1, 6}, {6, 1}\n"
    "@13 = scatter_add[axis=0](d,n,w)\n"
    "h = @param:h -> half_type, {4, 6, 3}, {18, 3, 1}\n"
    "hv = @param:hv -> half_type, {4, 5, 3}, {15, 3, 1}\n"
    "@16 = scatter_add[axis=1](h,i,hv)\n"
    "@17 = @return(@3, @4, @5, @9, @10, @13, @16)\n";

static const char scatternds[] =
    "module: \"main\"\n"
    "x = @param:x -> double_type, {4, 5, 3}, {15, 3, 1}\n"
    "i = @param:i -> int64_type, {2, 3, 1}, {3, 1, 1}\n"
    "u = @param:u -> double_type, {2, 3, 5, 3}, {45, 15, 3, 1}\n"
    "@3 = scatternd_none(x,i,u)\n"
    "@4 = scatternd_add(x,i,u)\n"
    "@5 = scatternd_mul(x,i,u)\n"
    "k = @literal{-1, -5, 0, 4, -1, 0} -> int64_type, {3, 2}, {2, 1}\n"
    "w = @param:w -> double_type, {3, 3}, {3, 1}\n"
    "@8 = scatternd_add(x,k,w)\n"
    "@9 = scatternd_max(x,k,w)\n"
    "@10 = @return(@3, @4, @5, @8, @9)\n";

static const char scans[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {3, 7, 5}, {35, 5, 1}\n"
    "@1 = prefix_scan_sum[axis=1](x)\n"
    "@2 = prefix_scan_sum[axis=1,exclusive=1,reverse=1](x)\n"
    "@3 = prefix_scan_sum[axis=0,reverse=1](x)\n"
    "d = @param:d -> int32_type, {4, 9}, {9, 1}\n"
    "@5 = prefix_scan_sum[axis=-1,exclusive=1](d)\n"
    "h = @param:h -> half_type, {6, 5}, {5, 1}\n"
    "@7 = prefix_scan_sum[axis=0,exclusive=1](h)\n"
    "@8 = @return(@1, @2, @3, @5, @7)\n";

static const char topks[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {3, 9, 4}, {36, 4, 1}\n"
    "@1 = topk_indices[k=4,axis=1,largest=1](x)\n"
    "d = @param:d -> int32_type, {5, 10}, {10, 1}\n"
    "@3 = topk_indices[k=6,axis=1,largest=1](d)\n"
    "@4 = topk_indices[k=10,axis=-1,largest=0](d)\n"
    "t = @literal{2, 1, 3, 1, 2, 3, 1} -> float_type, {7}, {1}\n"
    "@6 = topk_indices[k=5,axis=0,largest=0](t)\n"
    "@7 = @return(@1, @3, @4, @6)\n";

static const char uniques[] =
    "module: \"main\"\n"
    "x = @param:x -> int32_type, {2, 12}, {12, 1}\n"
    "@1 = unique[axis=1,sorted=1](x)\n"
    "@2 = unique[axis=1,sorted=0](x)\n"
    "y = @param:y -> int64_type, {20}, {1}\n"
    "@4 = unique[axis=0,sorted=0](y)\n"
    "f = @literal{2, 1, 1, 0.5, 2, 1, 1, 1} -> float_type, {4, 2}, {2, 1}\n"
    "@6 = unique[axis=0,sorted=1](f)\n"
    "@7 = unique[axis=-1,sorted=1](f)\n"
    "@8 = @return(@1, @2, @4, @6, @7)\n";

/* two batches, two classes; box 1 overlaps box 0 (IoU 0.68), box 2 is far
 * from both; in center format too */
static const char nms[] =
    "module: \"main\"\n"
    "b = @literal{0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, 10, 1, 11, 0, 0, 1, 1, 0, 0.1, 1, 1.1, "
    "0, 10, 1, 11} -> float_type, {2, 3, 4}, {12, 4, 1}\n"
    "s = @literal{0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.9, 0.9, 0.1, 0.2, 0.7, 0.7} "
    "-> float_type, {2, 2, 3}, {6, 3, 1}\n"
    "m = @literal{3} -> int64_type, {1}, {1}\n"
    "t = @literal{0.5} -> float_type, {1}, {1}\n"
    "c = @literal{0.15} -> float_type, {1}, {1}\n"
    "@5 = nonmaxsuppression(b,s,m,t,c)\n"
    "@6 = nonmaxsuppression[center_point_box=1](b,s,m,t)\n"
    "r = @param:r -> float_type, {2, 6, 4}, {24, 4, 1}\n"
    "q = @param:q -> float_type, {2, 3, 6}, {18, 6, 1}\n"
    "o = @literal{0.2} -> float_type, {1}, {1}\n"
    "@10 = nonmaxsuppression(r,q,m,o)\n"
    "@11 = @return(@5, @6, @10)\n";

static const char pool_indices[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3, 7, 8}, {168, 56, 8, 1}\n"
    "@1 = max_pooling_indices[padding={1, 1},stride={2, 2},lengths={3, 3}](x)\n"
    "@2 = max_pooling_indices[padding={1, 0, 1, 1},stride={1, 2},lengths={2, 3},"
    "storage_order=1](x)\n"
    "@3 = max_pooling_indices[lengths={2, 2},dilations={2, 1},storage_order=1](x)\n"
    "d = @param:d -> int32_type, {1, 2, 4, 3, 5}, {120, 60, 15, 5, 1}\n"
    "@5 = max_pooling_indices[padding={0, 0, 0},stride={1, 1, 2},lengths={2, 2, 2},"
    "dilations={1, 1, 1}](d)\n"
    "@6 = @return(@1, @2, @3, @5)\n";

/* operands through a transpose and a slice: the kernels read them with
 * their accesses' index arithmetic, never as if standard */
static const char through_views[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {5, 7, 6}, {42, 6, 1}\n"
    "@1 = transpose[permutation={2, 0, 1}](x)\n"
    "@2 = prefix_scan_sum[axis=2,reverse=1](@1)\n"
    "@3 = slice[axes={1},starts={1},ends={6}](x)\n"
    "@4 = topk_indices[k=3,axis=1,largest=0](@3)\n"
    "@5 = unique[axis=1,sorted=1](@1)\n"
    "i = @param:i -> int64_type, {2, 1}, {1, 1}\n"
    "u = @param:u -> float_type, {2, 5, 7}, {35, 7, 1}\n"
    "@8 = scatternd_add(@1,i,u)\n"
    "@9 = @return(@2, @4, @5, @8)\n";

static void test_gathers(void) { check_emu(gathers, "gather_elements", "long long at", 0); }

static void test_gathernd_kind(void) { check_emu(gathers, "gathernd", NULL, 0); }

static void test_scatters(void) { check_emu(scatters, "scatter", "if (at == c1)", 0); }

static void test_scatternds(void) { check_emu(scatternds, "scatternd_chain", "; p >= 0; p = p", 0); }

static void test_prefix_scan_sum(void)
{
    check_emu(scans, "prefix_scan_sum", "double acc = 0", 0);
}

static void test_topk_indices(void) { check_emu(topks, "topk_indices", "prev_at", 0); }

static void test_unique(void)
{
    check_emu(uniques, "unique_first", NULL, 0);
    check_emu(uniques, "unique", NULL, 0);
}

static void test_nonmaxsuppression(void)
{
    check_emu(nms, "nonmaxsuppression_select", NULL, 0);
    check_emu(nms, "nonmaxsuppression", NULL, 0);
}

static void test_max_pooling_indices(void)
{
    check_emu(pool_indices, "max_pooling_indices", NULL, 0);
}

/* The literal nms case against rows worked out by hand, so the kernels and
 * the reference cannot agree on something wrong. */
static void test_nonmaxsuppression_rows(void)
{
    graph *g = parse(nms);
    graft_error err = {0};
    cg_program *p = g ? cg_lower(g, &err) : NULL;
    CHECK(p && cg_plan(p, &err));
    tensor_list in = {0, NULL}, got = {0, NULL};
    CHECK(g && exec_random_inputs(graph_main(g), 3, &in, &err));
    cg_emu_options o = {64, NULL, 0, 0};
    bool ran = p && cg_run_emu(p, &o, &in, &got, &err);
    if (!ran)
        printf("emu: %s\n", err.message);
    CHECK(ran);
    if (ran) {
        /* batch 0: class 0 scores .9 .75 .6 -> boxes 0, 2 (1 overlaps 0);
         * class 1 scores .95 .5 .3 -> boxes 0, 2. batch 1: class 0 scores
         * .9 .9 .1 -> boxes 0 (tie: lower index first), then 1 overlaps,
         * 2 is under 0.15; class 1 .2 .7 .7 -> boxes 1, 2 (0 overlaps 1) */
        const int64_t want[] = {0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 1, 2, 1, 0, 0,
                                1, 1, 1, 1, 1, 2, -1, -1, -1};
        const tensor *t = &got.items[0].t;
        for (int k = 0; k < (int)(sizeof want / sizeof want[0]); k++)
            CHECK_INT(tensor_get_i64(t, k), want[k]);
    }
    tensor_list_free(&in);
    tensor_list_free(&got);
    cg_program_free(p);
    graph_free(g);
}

static void test_through_views(void) { check_emu(through_views, "unique", NULL, 0); }

static void test_hiprtc_compiles_index_kernels(void)
{
    const char *texts[] = {gathers, scatters, scatternds, scans, topks, uniques, nms,
                           pool_indices, through_views};
    check_hiprtc_compiles("test_hiprtc_compiles_index_kernels", texts, sizeof texts / sizeof texts[0]);
}

int main(void)
{
    RUN(test_gathers);
    RUN(test_gathernd_kind);
    RUN(test_scatters);
    RUN(test_scatternds);
    RUN(test_prefix_scan_sum);
    RUN(test_topk_indices);
    RUN(test_unique);
    RUN(test_nonmaxsuppression);
    RUN(test_nonmaxsuppression_rows);
    RUN(test_max_pooling_indices);
    RUN(test_through_views);
    RUN(test_hiprtc_compiles_index_kernels);
    return tests_finish();
}
