/* test_codegen_vector.c: the two pointwise paths chosen from the accesses'
 * strides at generation time (codegen/emit_pointwise.c), each run on emu at
 * both wave sizes against the reference executor:
 *  - vector loads and stores (pointwise_vec2/4/8): contiguous, aligned
 *    operands and outputs, operands uniform over a group of lanes, with a
 *    scalar tail, odd inner lengths, half and double, inside regions, and
 *    in the outputs' memory order when that is not the standard one;
 *  - a shared 32x32 tile (pointwise_tile) when an operand is transposed
 *    relative to the output, with odd sizes, half, a broadcast operand
 *    beside it and a transpose inside a region's body;
 * and the cases that must keep the scalar loop: a slice whose offset breaks
 * the alignment, an operand whose innermost stride is not 1. Every kernel
 * compiles with hiprtc for gfx90a and gfx1030 (skipped without hiprtc).
 */
#include "check.h"

#include "codegen.h"
#include "emu_check.h"
#include "exec.h"
#include "graph_test_helpers.h"

#include <string.h>

/* The kinds of g's kernels, joined by spaces (into buf). */
static const char *kinds_of(const char *text, char *buf, size_t size)
{
    graph *g = parse(text);
    graft_error err = {0};
    cg_program *p = g ? cg_lower(g, &err) : NULL;
    buf[0] = 0;
    for (int k = 0; p && k < p->nkernels; k++) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, "%s%s", n ? " " : "", p->kernels[k].kind);
    }
    if (!p)
        printf("lower: %s\n", err.message);
    cg_program_free(p);
    graph_free(g);
    return buf;
}

/* ---- vectors ---- */

static const char vec4_exact[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {4, 64}, {64, 1}\n"
    "y = @param:y -> float_type, {4, 64}, {64, 1}\n"
    "@2 = add(x,y)\n@3 = tanh(@2)\n@4 = @return(@3)\n";

/* 1050 elements: 262 vectors of 4 and a tail of 2 */
static const char vec4_tail[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {3, 50, 7}, {350, 7, 1}\n"
    "y = @param:y -> float_type, {3, 50, 7}, {350, 7, 1}\n"
    "@2 = add(x,y)\n@3 = relu(@2)\n@4 = @return(@3)\n";

/* rows of 6 broadcast over 7: groups of 4 would cross a row, groups of 2 do not */
static const char vec2_odd_rows[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {7, 6}, {6, 1}\n"
    "b = @param:b -> float_type, {6}, {1}\n"
    "@2 = multibroadcast[out_lens={7, 6}](b)\n"
    "@3 = mul(x,@2)\n@4 = @return(@3)\n";

/* a per-channel bias: uniform over each group of 4 lanes (rows of 16) */
static const char vec4_uniform_bias[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 6, 9, 16}, {864, 144, 16, 1}\n"
    "b = @param:b -> float_type, {6}, {1}\n"
    "@2 = broadcast[axis=1,out_lens={2, 6, 9, 16}](b)\n"
    "@3 = sub(x,@2)\n@4 = @return(@3)\n";

static const char vec8_half[] =
    "module: \"main\"\n"
    "x = @param:x -> half_type, {5, 40}, {40, 1}\n"
    "b = @param:b -> half_type, {40}, {1}\n"
    "@2 = multibroadcast[out_lens={5, 40}](b)\n"
    "@3 = add(x,@2)\n@4 = sigmoid(@3)\n@5 = @return(@4)\n";

/* 15 doubles: 7 vectors of 2 and a tail of 1 */
static const char vec2_double[] =
    "module: \"main\"\n"
    "x = @param:x -> double_type, {3, 5}, {5, 1}\n"
    "@1 = exp(x)\n@2 = @return(@1)\n";

/* a two-output region with a broadcast inside its body and a convert */
static const char vec_region[] =
    "module: \"main\"\n"
    "x = @param:x -> half_type, {2, 3, 24}, {72, 24, 1}\n"
    "b = @param:b -> float_type, {24}, {1}\n"
    "@2 = fused(x,b), [main:fused0] -> [float_type, {2, 3, 24}, {72, 24, 1}, half_type, "
    "{2, 3, 24}, {72, 24, 1}]\n"
    "@3 = get_tuple_elem[index=0](@2)\n"
    "@4 = get_tuple_elem[index=1](@2)\n"
    "@5 = @return(@3, @4)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> half_type, {2, 3, 24}, {72, 24, 1}\n"
    "x1 = @param:x1 -> float_type, {24}, {1}\n"
    "@2 = convert[target_type=float_type](x0)\n"
    "@3 = multibroadcast[out_lens={2, 3, 24}](x1)\n"
    "@4 = mul(@2,@3)\n"
    "@5 = convert[target_type=half_type](@4)\n"
    "@6 = @return(@4,@5)\n";

/* every value in NHWC (the outputs' layout follows x's): the loop walks the
 * outputs' memory order, where a per-channel bias is contiguous */
static const char vec_memory_order[] =
    "module: \"main\"\n"
    "x = @param:x -> half_type, {2, 9, 7, 40}, {2520, 280, 40, 1}\n"
    "b = @param:b -> half_type, {40}, {1}\n"
    "@2 = transpose[permutation={0, 3, 1, 2}](x)\n"
    "@3 = broadcast[axis=1,out_lens={2, 40, 9, 7}](b)\n"
    "@4 = add(@2,@3)\n@5 = relu(@4)\n@6 = @return(@5)\n";

/* the same order with 90 elements: 22 vectors of 4 and a tail of 2 */
static const char vec_memory_order_tail[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {1, 5, 3, 6}, {90, 18, 6, 1}\n"
    "@1 = transpose[permutation={0, 3, 1, 2}](x)\n"
    "@2 = neg(@1)\n@3 = @return(@2)\n";

static void test_vector_paths(void)
{
    check_emu(vec4_exact, "pointwise_vec4", "*(const graft_v4_float *)(p", 1e-6);
    check_emu(vec4_tail, "pointwise_vec4", "m = 1048u +", 1e-6);
    check_emu(vec2_odd_rows, "pointwise_vec2", "graft_v2_float", 1e-6);
    check_emu(vec4_uniform_bias, "pointwise_vec4", "/ 144u % 6u", 1e-6);
    check_emu(vec8_half, "pointwise_vec8", "aligned(16))) { __half e[8]; }", 2e-3);
    check_emu(vec2_double, "pointwise_vec2", "m = 14u +", 1e-12);
    /* the half operand and output at 4 lanes (8 bytes), the float ones 16 bytes */
    check_emu(vec_region, "pointwise_vec4", "graft_v4___half", 2e-3);
    check_emu(vec_memory_order, "pointwise_vec8", "const unsigned i = ((i0 + 3u)", 2e-3);
    check_emu(vec_memory_order_tail, "pointwise_vec4", "m = 88u +", 1e-6);
    char kinds[256];
    CHECK_STR(kinds_of(vec_memory_order, kinds, sizeof kinds), "pointwise_vec8 pointwise_vec8");
    CHECK_STR(kinds_of(vec4_exact, kinds, sizeof kinds), "pointwise_vec4 pointwise_vec4");
    /* no tail loop when the vectors cover everything */
    graph *g = parse(vec4_exact);
    graft_error err = {0};
    cg_program *p = g ? cg_lower(g, &err) : NULL;
    CHECK(p && strstr(p->kernels[0].source, "m = 256u +") == NULL);
    cg_program_free(p);
    graph_free(g);
}

/* ---- what keeps the scalar loop ---- */

/* the slice starts 1 element into each row: no group of lanes is aligned */
static const char misaligned_slice[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {6, 10}, {10, 1}\n"
    "y = @param:y -> float_type, {6, 8}, {8, 1}\n"
    "@2 = slice[axes={1},starts={1},ends={9}](x)\n"
    "@3 = add(@2,y)\n@4 = @return(@3)\n";

/* the operand's only long dimension has stride 3 */
static const char strided_inner[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {64, 3}, {3, 1}\n"
    "y = @param:y -> float_type, {64, 1}, {1, 1}\n"
    "@2 = slice[axes={1},starts={1},ends={2}](x)\n"
    "@3 = mul(@2,y)\n@4 = @return(@3)\n";

static void test_scalar_when_strides_forbid(void)
{
    char kinds[256];
    CHECK_STR(kinds_of(misaligned_slice, kinds, sizeof kinds), "pointwise");
    CHECK_STR(kinds_of(strided_inner, kinds, sizeof kinds), "pointwise");
    check_emu(misaligned_slice, "pointwise", "p0[", 1e-6);
    check_emu(strided_inner, "pointwise", "* 3u", 1e-6);
}

/* ---- tiles ---- */

/* odd sizes: 33 x 5 per batch, partial tiles on both sides */
static const char tile_odd[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {4, 33, 5}, {165, 5, 1}\n"
    "y = @param:y -> float_type, {5, 4, 33}, {132, 33, 1}\n"
    "@2 = transpose[permutation={1, 2, 0}](y)\n"
    "@3 = mul(x,@2)\n@4 = sigmoid(@3)\n@5 = @return(@4)\n";

/* NCHW <- NHWC in a region, with a per-channel bias and a standard operand
 * beside the transposed one */
static const char tile_bias_half[] =
    "module: \"main\"\n"
    "x = @param:x -> half_type, {2, 9, 7, 40}, {2520, 280, 40, 1}\n"
    "b = @param:b -> half_type, {40}, {1}\n"
    "y = @param:y -> half_type, {2, 40, 9, 7}, {2520, 63, 7, 1}\n"
    "@3 = fused(x,b,y), [main:fused0] -> half_type, {2, 40, 9, 7}, {2520, 63, 7, 1}\n"
    "@4 = @return(@3)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> half_type, {2, 9, 7, 40}, {2520, 280, 40, 1}\n"
    "x1 = @param:x1 -> half_type, {40}, {1}\n"
    "x2 = @param:x2 -> half_type, {2, 40, 9, 7}, {2520, 63, 7, 1}\n"
    "@3 = transpose[permutation={0, 3, 1, 2}](x0)\n"
    "@4 = broadcast[axis=1,out_lens={2, 40, 9, 7}](x1)\n"
    "@5 = add(@3,x2)\n"
    "@6 = add(@5,@4)\n"
    "@7 = relu(@6)\n"
    "@8 = @return(@7)\n";

/* the transpose inside a region's body, the other operand standard */
static const char tile_region[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {70, 45}, {45, 1}\n"
    "y = @param:y -> float_type, {45, 70}, {70, 1}\n"
    "@2 = fused(x,y), [main:fused0] -> float_type, {45, 70}, {70, 1}\n"
    "@3 = @return(@2)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {70, 45}, {45, 1}\n"
    "x1 = @param:x1 -> float_type, {45, 70}, {70, 1}\n"
    "@2 = transpose[permutation={1, 0}](x0)\n"
    "@3 = sub(@2,x1)\n"
    "@4 = mul(@3,@3)\n"
    "@5 = @return(@4)\n";

static void test_tile_paths(void)
{
    check_emu(tile_odd, "pointwise_tile", "__syncthreads();", 1e-6);
    check_emu(tile_bias_half, "pointwise_tile", "__shared__ float tile", 2e-3);
    check_emu(tile_region, "pointwise_tile", "[33];", 1e-6);
    char kinds[256];
    CHECK_STR(kinds_of(tile_region, kinds, sizeof kinds), "pointwise_tile");
    /* barriers: the plan must run it with fibers */
    graph *g = parse(tile_odd);
    graft_error err = {0};
    cg_program *p = g ? cg_lower(g, &err) : NULL;
    CHECK(p && p->nkernels == 2 && p->kernels[0].barriers);
    cg_program_free(p);
    graph_free(g);
}

static void test_hiprtc_compiles_vector_and_tile_kernels(void)
{
    const char *texts[] = {vec4_tail, vec8_half, vec2_double, vec_region, vec_memory_order,
                           tile_bias_half, tile_region};
    check_hiprtc_compiles("test_hiprtc_compiles_vector_and_tile_kernels", texts, sizeof texts / sizeof texts[0]);
}

int main(void)
{
    RUN(test_vector_paths);
    RUN(test_scalar_when_strides_forbid);
    RUN(test_tile_paths);
    RUN(test_hiprtc_compiles_vector_and_tile_kernels);
    return tests_finish();
}
