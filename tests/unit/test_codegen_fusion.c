/* test_codegen_fusion.c: fused regions as the fusion rules build them,
 * each lowered to ONE kernel and run on emu at both wave sizes against the
 * reference executor:
 *  - a convolution or dot with an epilogue (bias, activation) and
 *    reductions over its output as extra outputs (GroupNorm's sums per
 *    group), one block per reduction row, no atomics and no fill;
 *  - a prologue on the product's input (GroupNorm apply and SiLU reading
 *    per-group statistics through broadcasts), and both at once;
 *  - pointwise -> reductions -> pointwise regions (LayerNorm, softmax) with
 *    the row kept in registers, and reductions over very long rows split
 *    into partial sums.
 * Each case checks the kernel kind and name it means to exercise, so a
 * change that quietly falls back to another path fails here.
 */
#include "check.h"

#include "codegen.h"
#include "emu_check.h"
#include "exec.h"
#include "graph_test_helpers.h"

#include <stdlib.h>

/* Lowers text and returns the number of kernels (-1: it did not lower,
 * with the message in err). */
static int kernel_count(const char *text, graft_error *err)
{
    graph *g = parse(text);
    if (!g)
        return -1;
    cg_program *p = cg_lower(g, err);
    int n = p ? p->nkernels : -1;
    cg_program_free(p);
    graph_free(g);
    return n;
}

/* (a) convolution + bias, the sum and the sum of squares per group of 2
 * channels (rows of 2 x 120: whole runs of output positions) */
static const char conv_epilogue_sums[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 4, 10, 12}, {480, 120, 12, 1}\n"
    "w = @param:w -> float_type, {8, 4, 3, 3}, {36, 9, 3, 1}\n"
    "bias = @param:bias -> float_type, {8}, {1}\n"
    "@3 = fused(x,w,bias), [main:fused0] -> [float_type, {2, 8, 10, 12}, {960, 120, 12, 1}, float_type, {2, 4, 1}, {4, 1, 1}, float_type, {2, 4, 1}, {4, 1, 1}]\n"
    "@4 = get_tuple_elem[index=0](@3)\n"
    "@5 = get_tuple_elem[index=1](@3)\n"
    "@6 = get_tuple_elem[index=2](@3)\n"
    "@7 = @return(@4, @5, @6)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {2, 4, 10, 12}, {480, 120, 12, 1}\n"
    "x1 = @param:x1 -> float_type, {8, 4, 3, 3}, {36, 9, 3, 1}\n"
    "x2 = @param:x2 -> float_type, {8}, {1}\n"
    "@3 = convolution[padding={1, 1, 1, 1},stride={1, 1},dilation={1, 1},group=1,padding_mode=0](x0,x1)\n"
    "@4 = broadcast[axis=1,out_lens={2, 8, 10, 12}](x2)\n"
    "@5 = add(@3,@4)\n"
    "@6 = reshape[dims={2, 4, 240}](@5)\n"
    "@7 = reduce_sum[axes={2}](@6)\n"
    "@8 = mul(@6,@6)\n"
    "@9 = reduce_sum[axes={2}](@8)\n"
    "@10 = @return(@5,@7,@9)\n";

/* (a) + (b): GroupNorm apply and SiLU before a grouped, strided
 * convolution, bias and relu after it, max and mean per output channel
 * (rows of one run of 60 positions) */
static const char prologue_conv_epilogue[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 8, 10, 12}, {960, 120, 12, 1}\n"
    "mean = @param:mean -> float_type, {2, 4, 1}, {4, 1, 1}\n"
    "rstd = @param:rstd -> float_type, {2, 4, 1}, {4, 1, 1}\n"
    "gamma = @param:gamma -> float_type, {8}, {1}\n"
    "w = @param:w -> float_type, {6, 4, 3, 3}, {36, 9, 3, 1}\n"
    "bias = @param:bias -> float_type, {6}, {1}\n"
    "@6 = fused(x,mean,rstd,gamma,w,bias), [main:fused0] -> [float_type, {2, 6, 5, 12}, {360, 60, 12, 1}, float_type, {2, 6, 1, 1}, {6, 1, 1, 1}, float_type, {2, 6, 1, 1}, {6, 1, 1, 1}]\n"
    "@7 = get_tuple_elem[index=0](@6)\n"
    "@8 = get_tuple_elem[index=1](@6)\n"
    "@9 = get_tuple_elem[index=2](@6)\n"
    "@10 = @return(@7, @8, @9)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {2, 8, 10, 12}, {960, 120, 12, 1}\n"
    "x1 = @param:x1 -> float_type, {2, 4, 1}, {4, 1, 1}\n"
    "x2 = @param:x2 -> float_type, {2, 4, 1}, {4, 1, 1}\n"
    "x3 = @param:x3 -> float_type, {8}, {1}\n"
    "x4 = @param:x4 -> float_type, {6, 4, 3, 3}, {36, 9, 3, 1}\n"
    "x5 = @param:x5 -> float_type, {6}, {1}\n"
    "@6 = reshape[dims={2, 4, 240}](x0)\n"
    "@7 = multibroadcast[out_lens={2, 4, 240}](x1)\n"
    "@8 = multibroadcast[out_lens={2, 4, 240}](x2)\n"
    "@9 = sub(@6,@7)\n"
    "@10 = mul(@9,@8)\n"
    "@11 = reshape[dims={2, 8, 10, 12}](@10)\n"
    "@12 = broadcast[axis=1,out_lens={2, 8, 10, 12}](x3)\n"
    "@13 = mul(@11,@12)\n"
    "@14 = sigmoid(@13)\n"
    "@15 = mul(@13,@14)\n"
    "@16 = convolution[padding={1, 1, 1, 1},stride={2, 1},dilation={1, 1},group=2,padding_mode=0](@15,x4)\n"
    "@17 = broadcast[axis=1,out_lens={2, 6, 5, 12}](x5)\n"
    "@18 = add(@16,@17)\n"
    "@19 = relu(@18)\n"
    "@20 = reduce_max[axes={2, 3}](@19)\n"
    "@21 = reduce_mean[axes={2, 3}](@19)\n"
    "@22 = @return(@19,@20,@21)\n";

static void test_conv_epilogue_reductions(void)
{
    graft_error err = {0};
    CHECK_INT(kernel_count(conv_epilogue_sums, &err), 1);
    check_emu(conv_epilogue_sums, "gemm_reduce_block",
              "convolution_add_reduce_sum_mul_reduce_sum_k0", 1e-5);
}

/* the same in half: the product and the sums are rounded to half as the
 * reference stores them, accumulation in float */
static void test_conv_epilogue_reductions_half(void)
{
    char text[sizeof conv_epilogue_sums * 2];
    size_t o = 0;
    for (const char *c = conv_epilogue_sums; *c && o + 16 < sizeof text;) {
        if (strncmp(c, "float_type", 10) == 0) {
            o += (size_t)snprintf(text + o, sizeof text - o, "half_type");
            c += 10;
        } else {
            text[o++] = *c++;
        }
    }
    text[o] = 0;
    check_emu(text, "gemm_reduce_block", "= (float)(__half)(acc[x][y]);", 2e-3);
}

static void test_prologue_conv_epilogue_reductions(void)
{
    graft_error err = {0};
    CHECK_INT(kernel_count(prologue_conv_epilogue, &err), 1);
    check_emu(prologue_conv_epilogue, "gemm_reduce_block", "racc1", 1e-5);
}

/* (b) alone: a prologue on both operands of a batched dot, an epilogue,
 * no reductions: the tiled product, one kernel. */
static void test_dot_prologue_epilogue(void)
{
    check_emu("module: \"main\"\n"
              "a = @param:a -> float_type, {3, 37, 45}, {1665, 45, 1}\n"
              "b = @param:b -> float_type, {3, 70, 45}, {3150, 45, 1}\n"
              "s = @param:s -> float_type, {45}, {1}\n"
              "@3 = fused(a,b,s), [main:fused0] -> float_type, {3, 37, 70}, {2590, 70, 1}\n"
              "@4 = @return(@3)\n"
              "\n"
              "module: \"main:fused0\"\n"
              "x0 = @param:x0 -> float_type, {3, 37, 45}, {1665, 45, 1}\n"
              "x1 = @param:x1 -> float_type, {3, 70, 45}, {3150, 45, 1}\n"
              "x2 = @param:x2 -> float_type, {45}, {1}\n"
              "@3 = multibroadcast[out_lens={3, 37, 45}](x2)\n"
              "@4 = mul(x0,@3)\n"
              "@5 = tanh(x1)\n"
              "@6 = transpose[permutation={0, 2, 1}](@5)\n"
              "@7 = dot(@4,@6)\n"
              "@8 = sigmoid(@7)\n"
              "@9 = mul(@7,@8)\n"
              "@10 = @return(@9)\n",
              "gemm", "mul_tanh_dot_sigmoid_mul_k0", 1e-5);
}

/* Attention heads put back side by side: a batched dot whose
 * output_permutation leaves its result in a permuted layout, an epilogue,
 * and the contiguous (layout.rules contiguous_into_contraction) that makes
 * the kernel store each element at its place in the standard layout: one
 * gemm kernel, no copy. */
static const char dot_contiguous_epilogue[] =
    "module: \"main\"\n"
    "a = @param:a -> float_type, {4, 19, 9}, {171, 9, 1}\n"
    "b = @param:b -> float_type, {4, 9, 7}, {63, 7, 1}\n"
    "@2 = fused(a,b), [main:fused0] -> float_type, {19, 4, 7}, {28, 7, 1}\n"
    "@3 = @return(@2)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {4, 19, 9}, {171, 9, 1}\n"
    "x1 = @param:x1 -> float_type, {4, 9, 7}, {63, 7, 1}\n"
    "@2 = dot[output_permutation={1, 0, 2}](x0,x1)\n"
    "@3 = tanh(@2)\n"
    "@4 = contiguous(@3)\n"
    "@5 = @return(@4)\n";

static void test_dot_contiguous_epilogue(void)
{
    graft_error err = {0};
    CHECK_INT(kernel_count(dot_contiguous_epilogue, &err), 1);
    check_emu(dot_contiguous_epilogue, "gemm", NULL, 1e-5);
}

/* Softmax split before the attention's second dot (fuse.rules
 * split_reduction_tail_into_contraction): the reduction kernel writes only
 * the row max and sum; the dot's kernel computes exp(s - max) / sum as its
 * prologue, reading s and the two per-row values through broadcasts, and
 * stores the heads side by side (contiguous epilogue). Two kernels, the
 * probabilities never in memory. */
static const char softmax_tail_prologue_dot[] =
    "module: \"main\"\n"
    "s = @param:s -> float_type, {3, 19, 23}, {437, 23, 1}\n"
    "v = @param:v -> float_type, {3, 23, 9}, {207, 9, 1}\n"
    "@2 = fused(s), [main:fused0] -> [float_type, {3, 19, 1}, {19, 1, 1}, float_type, {3, 19, 1}, {19, 1, 1}]\n"
    "@3 = get_tuple_elem[index=0](@2)\n"
    "@4 = get_tuple_elem[index=1](@2)\n"
    "@5 = fused(@3,s,@4,v), [main:fused1] -> float_type, {19, 3, 9}, {27, 9, 1}\n"
    "@6 = @return(@5)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {3, 19, 23}, {437, 23, 1}\n"
    "@1 = reduce_max[axes={2}](x0)\n"
    "@2 = multibroadcast[out_lens={3, 19, 23}](@1)\n"
    "@3 = sub(x0,@2)\n"
    "@4 = exp(@3)\n"
    "@5 = reduce_sum[axes={2}](@4)\n"
    "@6 = @return(@1,@5)\n"
    "\n"
    "module: \"main:fused1\"\n"
    "x0 = @param:x0 -> float_type, {3, 19, 1}, {19, 1, 1}\n"
    "x1 = @param:x1 -> float_type, {3, 19, 23}, {437, 23, 1}\n"
    "x2 = @param:x2 -> float_type, {3, 19, 1}, {19, 1, 1}\n"
    "x3 = @param:x3 -> float_type, {3, 23, 9}, {207, 9, 1}\n"
    "@4 = multibroadcast[out_lens={3, 19, 23}](x0)\n"
    "@5 = sub(x1,@4)\n"
    "@6 = exp(@5)\n"
    "@7 = multibroadcast[out_lens={3, 19, 23}](x2)\n"
    "@8 = div(@6,@7)\n"
    "@9 = dot[output_permutation={1, 0, 2}](@8,x3)\n"
    "@10 = contiguous(@9)\n"
    "@11 = @return(@10)\n";

static void test_softmax_tail_prologue_dot(void)
{
    graft_error err = {0};
    CHECK_INT(kernel_count(softmax_tail_prologue_dot, &err), 2);
    check_emu(softmax_tail_prologue_dot, "gemm", "exp_div_dot_contiguous", 1e-5);
}

/* A lone pointwise op as a convolution's prologue (fuse.rules
 * fuse_pointwise_prologue_into_contraction): leaky_relu applied to each
 * input element as the convolution reads it, padding and stride included,
 * one kernel. */
static const char lone_prologue_conv[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 5, 11, 9}, {495, 99, 9, 1}\n"
    "w = @param:w -> float_type, {7, 5, 3, 3}, {45, 9, 3, 1}\n"
    "@2 = fused(x,w), [main:fused0] -> float_type, {2, 7, 6, 5}, {210, 30, 5, 1}\n"
    "@3 = @return(@2)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {2, 5, 11, 9}, {495, 99, 9, 1}\n"
    "x1 = @param:x1 -> float_type, {7, 5, 3, 3}, {45, 9, 3, 1}\n"
    "@2 = leaky_relu[alpha=0.1](x0)\n"
    "@3 = convolution[padding={1, 1, 1, 1},stride={2, 2}](@2,x1)\n"
    "@4 = @return(@3)\n";

static void test_lone_prologue_conv(void)
{
    graft_error err = {0};
    CHECK_INT(kernel_count(lone_prologue_conv, &err), 1);
    check_emu(lone_prologue_conv, "gemm", "leaky_relu_convolution", 1e-5);
}

/* Seed 002's third chain: a pad with value 1 over H and W, then a channel
 * pad, read by a convolution (fuse.rules pad_into_contraction, then
 * pad_into_region_first): the kernel reads x through both pads' read
 * predicates, with no fill and no padded copy. */
static const char pads_into_conv[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 5, 7, 6}, {210, 42, 6, 1}\n"
    "w = @param:w -> float_type, {4, 8, 3, 3}, {72, 9, 3, 1}\n"
    "@2 = fused(x,w), [main:fused0] -> float_type, {2, 4, 7, 6}, {168, 42, 6, 1}\n"
    "@3 = @return(@2)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {2, 5, 7, 6}, {210, 42, 6, 1}\n"
    "x1 = @param:x1 -> float_type, {4, 8, 3, 3}, {72, 9, 3, 1}\n"
    "@2 = pad[mode=0,pads={0, 0, 1, 1, 0, 0, 1, 1},value=1](x0)\n"
    "@3 = pad[mode=0,pads={0, 1, 0, 0, 0, 2, 0, 0},value=0](@2)\n"
    "@4 = convolution[padding={0, 0, 0, 0},stride={1, 1},dilation={1, 1},group=1](@3,x1)\n"
    "@5 = @return(@4)\n";

static void test_pads_into_conv(void)
{
    graft_error err = {0};
    CHECK_INT(kernel_count(pads_into_conv, &err), 1);
    check_emu(pads_into_conv, "gemm", NULL, 1e-5);
}

/* A dot, a bias and a LayerNorm's two sums per row of 50 (one m, all n),
 * then per half row (part of one run of n). */
static void test_dot_epilogue_row_reductions(void)
{
    check_emu("module: \"main\"\n"
              "a = @param:a -> float_type, {2, 33, 20}, {660, 20, 1}\n"
              "b = @param:b -> float_type, {20, 50}, {50, 1}\n"
              "c = @param:c -> float_type, {50}, {1}\n"
              "@3 = fused(a,b,c), [main:fused0] -> [float_type, {2, 33, 50}, {1650, 50, 1}, "
              "float_type, {2, 33, 1}, {33, 1, 1}, float_type, {2, 33, 1}, {33, 1, 1}]\n"
              "@4 = get_tuple_elem[index=0](@3)\n"
              "@5 = get_tuple_elem[index=1](@3)\n"
              "@6 = get_tuple_elem[index=2](@3)\n"
              "@7 = @return(@4, @5, @6)\n"
              "\n"
              "module: \"main:fused0\"\n"
              "x0 = @param:x0 -> float_type, {2, 33, 20}, {660, 20, 1}\n"
              "x1 = @param:x1 -> float_type, {20, 50}, {50, 1}\n"
              "x2 = @param:x2 -> float_type, {50}, {1}\n"
              "@3 = multibroadcast[out_lens={2, 20, 50}](x1)\n"
              "@4 = dot(x0,@3)\n"
              "@5 = multibroadcast[out_lens={2, 33, 50}](x2)\n"
              "@6 = add(@4,@5)\n"
              "@7 = reduce_mean[axes={2}](@6)\n"
              "@8 = mul(@6,@6)\n"
              "@9 = reduce_mean[axes={2}](@8)\n"
              "@10 = mul(@7,@7)\n"
              "@11 = sub(@9,@10)\n"
              "@12 = @return(@6,@7,@11)\n",
              "gemm_reduce_block", "red1", 1e-5);
    check_emu("module: \"main\"\n"
              "a = @param:a -> float_type, {4, 30}, {30, 1}\n"
              "b = @param:b -> float_type, {30, 96}, {96, 1}\n"
              "@2 = fused(a,b), [main:fused0] -> float_type, {4, 2, 1}, {2, 1, 1}\n"
              "@3 = @return(@2)\n"
              "\n"
              "module: \"main:fused0\"\n"
              "x0 = @param:x0 -> float_type, {4, 30}, {30, 1}\n"
              "x1 = @param:x1 -> float_type, {30, 96}, {96, 1}\n"
              "@2 = dot(x0,x1)\n"
              "@3 = reshape[dims={4, 2, 48}](@2)\n"
              "@4 = reduce_max[axes={2}](@3)\n"
              "@5 = @return(@4)\n",
              "gemm_reduce_block", "reduce_max", 1e-5);
}

/* What one kernel cannot do yet says so, never a wrong kernel. */
static const char reduction_before_conv[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {1, 2, 4, 4}, {32, 16, 4, 1}\n"
    "w = @param:w -> float_type, {3, 2, 1, 1}, {2, 1, 1, 1}\n"
    "@2 = fused(x,w), [main:fused0] -> float_type, {1, 3, 4, 4}, {48, 16, 4, 1}\n"
    "@3 = @return(@2)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {1, 2, 4, 4}, {32, 16, 4, 1}\n"
    "x1 = @param:x1 -> float_type, {3, 2, 1, 1}, {2, 1, 1, 1}\n"
    "@2 = reduce_max[axes={3}](x0)\n"
    "@3 = multibroadcast[out_lens={1, 2, 4, 4}](@2)\n"
    "@4 = sub(x0,@3)\n"
    "@5 = convolution(@4,x1)\n"
    "@6 = @return(@5)\n";

/* rows of 4 over a product of rows of 6 */
static const char rows_across_runs[] =
    "module: \"main\"\n"
    "a = @param:a -> float_type, {4, 5}, {5, 1}\n"
    "b = @param:b -> float_type, {5, 6}, {6, 1}\n"
    "@2 = fused(a,b), [main:fused0] -> float_type, {6, 1}, {1, 1}\n"
    "@3 = @return(@2)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {4, 5}, {5, 1}\n"
    "x1 = @param:x1 -> float_type, {5, 6}, {6, 1}\n"
    "@2 = dot(x0,x1)\n"
    "@3 = reshape[dims={6, 4}](@2)\n"
    "@4 = reduce_sum[axes={1}](@3)\n"
    "@5 = @return(@4)\n";

static void test_gemm_regions_not_lowered_yet(void)
{
    graft_error err = {0};
    CHECK_INT(kernel_count(reduction_before_conv, &err), -1);
    CHECK_CONTAINS(err.message, "not lowered yet: a reduction before the convolution");
    err = (graft_error){0};
    CHECK_INT(kernel_count(rows_across_runs, &err), -1);
    CHECK_CONTAINS(err.message, "not rectangles of the product");
}

/* (c) softmax times a scale over rows of 300 (two elements per thread):
 * x is read once into registers, the later passes read the registers */
static const char softmax_scaled[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {6, 300}, {300, 1}\n"
    "g = @param:g -> float_type, {300}, {1}\n"
    "@2 = fused(x,g), [main:fused0] -> float_type, {6, 300}, {300, 1}\n"
    "@3 = @return(@2)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {6, 300}, {300, 1}\n"
    "x1 = @param:x1 -> float_type, {300}, {1}\n"
    "@2 = reduce_max[axes={1}](x0)\n"
    "@3 = multibroadcast[out_lens={6, 300}](@2)\n"
    "@4 = sub(x0,@3)\n"
    "@5 = exp(@4)\n"
    "@6 = reduce_sum[axes={1}](@5)\n"
    "@7 = multibroadcast[out_lens={6, 300}](@6)\n"
    "@8 = div(@5,@7)\n"
    "@9 = multibroadcast[out_lens={6, 300}](x1)\n"
    "@10 = mul(@8,@9)\n"
    "@11 = @return(@10)\n";

/* (c) as before with rows of 5000 elements: too long for registers, so
 * every pass re-reads x */
static const char softmax_long_rows[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {3, 5000}, {5000, 1}\n"
    "@1 = fused(x), [main:fused0] -> float_type, {3, 5000}, {5000, 1}\n"
    "@2 = @return(@1)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {3, 5000}, {5000, 1}\n"
    "@1 = reduce_max[axes={1}](x0)\n"
    "@2 = multibroadcast[out_lens={3, 5000}](@1)\n"
    "@3 = sub(x0,@2)\n"
    "@4 = exp(@3)\n"
    "@5 = reduce_sum[axes={1}](@4)\n"
    "@6 = multibroadcast[out_lens={3, 5000}](@5)\n"
    "@7 = div(@4,@6)\n"
    "@8 = @return(@7)\n";

/* The source of the only kernel of text (NULL when it does not lower to
 * one kernel); free it. */
static char *only_source(const char *text)
{
    graph *g = parse(text);
    graft_error err = {0};
    cg_program *p = g ? cg_lower(g, &err) : NULL;
    char *src = p && p->nkernels == 1 ? strdup(p->kernels[0].source) : NULL;
    cg_program_free(p);
    graph_free(g);
    return src;
}

static void test_reduce_region_kept_in_registers(void)
{
    check_emu(softmax_scaled, "fused_reduce_block", "keep0[u] = ", 1e-5);
    char *src = only_source(softmax_scaled);
    CHECK(src != NULL);
    /* x (p0) is loaded once, in the first pass */
    if (src) {
        const char *first = strstr(src, "(float)p0[");
        CHECK(first != NULL && strstr(first + 1, "(float)p0[") == NULL);
    }
    free(src);
    check_emu(softmax_long_rows, "fused_reduce_block", NULL, 1e-5);
    src = only_source(softmax_long_rows);
    CHECK(src != NULL && strstr(src, "keep0") == NULL);
    free(src);
}

/* (d) rows of 70000 elements: the mean and max (level 0), the variance
 * (level 1, it waits for the mean), then the outputs: three kernels, each
 * block one chunk of one row, partials in scratch buffers. */
static const char long_rows[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {3, 2, 35000}, {70000, 35000, 1}\n"
    "@1 = fused(x), [main:fused0] -> [float_type, {3, 2, 35000}, {70000, 35000, 1}, float_type, {3, 1, 1}, {1, 1, 1}]\n"
    "@2 = get_tuple_elem[index=0](@1)\n"
    "@3 = get_tuple_elem[index=1](@1)\n"
    "@4 = @return(@2, @3)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {3, 2, 35000}, {70000, 35000, 1}\n"
    "@1 = @literal{0.0001} -> float_type, {1}, {0}\n"
    "@2 = reduce_mean[axes={1, 2}](x0)\n"
    "@3 = multibroadcast[out_lens={3, 2, 35000}](@2)\n"
    "@4 = sub(x0,@3)\n"
    "@5 = mul(@4,@4)\n"
    "@6 = reduce_mean[axes={1, 2}](@5)\n"
    "@7 = multibroadcast[out_lens={3, 1, 1}](@1)\n"
    "@8 = add(@6,@7)\n"
    "@9 = rsqrt(@8)\n"
    "@10 = multibroadcast[out_lens={3, 2, 35000}](@9)\n"
    "@11 = mul(@4,@10)\n"
    "@12 = reduce_max[axes={1, 2}](x0)\n"
    "@13 = add(@12,@9)\n"
    "@14 = @return(@11,@13)\n";

static void test_long_rows_split(void)
{
    graft_error err = {0};
    CHECK_INT(kernel_count(long_rows, &err), 3);
    check_emu(long_rows, "fused_reduce_split_part", "_part_k1", 1e-4);
    graph *g = parse(long_rows);
    cg_program *p = g ? cg_lower(g, &err) : NULL;
    CHECK(p != NULL);
    int scratch = 0;
    for (int b = 0; p && b < p->nbuffers; b++)
        scratch += p->buffers[b].scratch != 0;
    CHECK_INT(scratch, 3);
    /* no kernel writes a buffer another kernel of the region wrote first
     * (nothing is filled, nothing accumulated across kernels) */
    for (int k = 0; p && k < p->nkernels; k++)
        for (int a = 0; a < p->kernels[k].nargs; a++)
            if (p->kernels[k].writes[a])
                CHECK_INT(p->buffers[p->kernels[k].args[a]].first, k);
    CHECK(p && strstr(p->kernels[2].source, "atomic") == NULL);
    cg_program_free(p);
    graph_free(g);
}

/* The flagship UNet block (examples/unet_groupnorm.txt, smaller) as the
 * fusion rules cut it into two regions: convolution + bias with the
 * GroupNorm sums per group as extra outputs; then the GroupNorm statistics,
 * apply, scale, shift and SiLU as the prologue of the second convolution.
 * Two kernels. */
static const char unet_two_regions[] =
    "module: \"main\"\n"
    "sample = @param:sample -> float_type, {2, 4, 16, 16}, {1024, 256, 16, 1}\n"
    "w1 = @param:w1 -> float_type, {16, 4, 3, 3}, {36, 9, 3, 1}\n"
    "b1 = @param:b1 -> float_type, {16}, {1}\n"
    "gamma = @param:gamma -> float_type, {16, 1, 1}, {1, 1, 1}\n"
    "beta = @param:beta -> float_type, {16, 1, 1}, {1, 1, 1}\n"
    "w2 = @param:w2 -> float_type, {16, 16, 3, 3}, {144, 9, 3, 1}\n"
    "@6 = fused(sample,w1,b1), [main:fused0] -> [float_type, {2, 16, 16, 16}, {4096, 256, 16, 1}, float_type, {2, 4, 1}, {4, 1, 1}, float_type, {2, 4, 1}, {4, 1, 1}]\n"
    "@7 = get_tuple_elem[index=0](@6)\n"
    "@8 = get_tuple_elem[index=1](@6)\n"
    "@9 = get_tuple_elem[index=2](@6)\n"
    "@10 = fused(@7,@8,@9,gamma,beta,w2), [main:fused1] -> float_type, {2, 16, 16, 16}, {4096, 256, 16, 1}\n"
    "@11 = @return(@10)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {2, 4, 16, 16}, {1024, 256, 16, 1}\n"
    "x1 = @param:x1 -> float_type, {16, 4, 3, 3}, {36, 9, 3, 1}\n"
    "x2 = @param:x2 -> float_type, {16}, {1}\n"
    "@3 = convolution[padding={1, 1, 1, 1},stride={1, 1},dilation={1, 1},group=1,padding_mode=0](x0,x1)\n"
    "@4 = broadcast[axis=1,out_lens={2, 16, 16, 16}](x2)\n"
    "@5 = add(@3,@4)\n"
    "@6 = reshape[dims={2, 4, 1024}](@5)\n"
    "@7 = reduce_sum[axes={2}](@6)\n"
    "@8 = mul(@6,@6)\n"
    "@9 = reduce_sum[axes={2}](@8)\n"
    "@10 = @return(@5,@7,@9)\n"
    "\n"
    "module: \"main:fused1\"\n"
    "x0 = @param:x0 -> float_type, {2, 16, 16, 16}, {4096, 256, 16, 1}\n"
    "x1 = @param:x1 -> float_type, {2, 4, 1}, {4, 1, 1}\n"
    "x2 = @param:x2 -> float_type, {2, 4, 1}, {4, 1, 1}\n"
    "x3 = @param:x3 -> float_type, {16, 1, 1}, {1, 1, 1}\n"
    "x4 = @param:x4 -> float_type, {16, 1, 1}, {1, 1, 1}\n"
    "x5 = @param:x5 -> float_type, {16, 16, 3, 3}, {144, 9, 3, 1}\n"
    "@6 = @literal{0.0009765625} -> float_type, {1}, {0}\n"
    "@7 = @literal{0.0001} -> float_type, {1}, {0}\n"
    "@8 = multibroadcast[out_lens={2, 4, 1}](@6)\n"
    "@9 = mul(x1,@8)\n"
    "@10 = mul(x2,@8)\n"
    "@11 = mul(@9,@9)\n"
    "@12 = sub(@10,@11)\n"
    "@13 = multibroadcast[out_lens={2, 4, 1}](@7)\n"
    "@14 = add(@12,@13)\n"
    "@15 = rsqrt(@14)\n"
    "@16 = reshape[dims={2, 4, 1024}](x0)\n"
    "@17 = multibroadcast[out_lens={2, 4, 1024}](@9)\n"
    "@18 = multibroadcast[out_lens={2, 4, 1024}](@15)\n"
    "@19 = sub(@16,@17)\n"
    "@20 = mul(@19,@18)\n"
    "@21 = reshape[dims={2, 16, 16, 16}](@20)\n"
    "@22 = multibroadcast[out_lens={2, 16, 16, 16}](x3)\n"
    "@23 = mul(@21,@22)\n"
    "@24 = multibroadcast[out_lens={2, 16, 16, 16}](x4)\n"
    "@25 = add(@23,@24)\n"
    "@26 = sigmoid(@25)\n"
    "@27 = mul(@25,@26)\n"
    "@28 = convolution[padding={1, 1, 1, 1},stride={1, 1},dilation={1, 1},group=1,padding_mode=0](@27,x5)\n"
    "@29 = @return(@28)\n";

static void test_unet_block_two_kernels(void)
{
    graft_error err = {0};
    CHECK_INT(kernel_count(unet_two_regions, &err), 2);
    check_emu(unet_two_regions, "gemm_reduce_block", "mul_etc_sigmoid_mul_convolution_k1", 1e-4);
}

/* A whole GroupNorm after the convolution in one region: the variance
 * waits for the mean and the normalised, SiLU'd output waits for both, so
 * the block passes over its row again after each fold. The product is
 * only an intermediate here, so the first pass keeps it in a scratch
 * buffer for the later passes. */
static const char conv_groupnorm_silu[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 4, 10, 12}, {480, 120, 12, 1}\n"
    "w = @param:w -> float_type, {8, 4, 3, 3}, {36, 9, 3, 1}\n"
    "bias = @param:bias -> float_type, {8}, {1}\n"
    "@3 = fused(x,w,bias), [main:fused0] -> [float_type, {2, 8, 10, 12}, {960, 120, 12, 1}, float_type, {2, 4, 1}, {4, 1, 1}]\n"
    "@4 = get_tuple_elem[index=0](@3)\n"
    "@5 = get_tuple_elem[index=1](@3)\n"
    "@6 = @return(@4, @5)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {2, 4, 10, 12}, {480, 120, 12, 1}\n"
    "x1 = @param:x1 -> float_type, {8, 4, 3, 3}, {36, 9, 3, 1}\n"
    "x2 = @param:x2 -> float_type, {8}, {1}\n"
    "@3 = @literal{0.0001} -> float_type, {1}, {0}\n"
    "@4 = convolution[padding={1, 1, 1, 1},stride={1, 1},dilation={1, 1},group=1,padding_mode=0](x0,x1)\n"
    "@5 = broadcast[axis=1,out_lens={2, 8, 10, 12}](x2)\n"
    "@6 = add(@4,@5)\n"
    "@7 = reshape[dims={2, 4, 240}](@6)\n"
    "@8 = reduce_mean[axes={2}](@7)\n"
    "@9 = multibroadcast[out_lens={2, 4, 240}](@8)\n"
    "@10 = sqdiff(@7,@9)\n"
    "@11 = reduce_mean[axes={2}](@10)\n"
    "@12 = multibroadcast[out_lens={2, 4, 1}](@3)\n"
    "@13 = add(@11,@12)\n"
    "@14 = rsqrt(@13)\n"
    "@15 = multibroadcast[out_lens={2, 4, 240}](@14)\n"
    "@16 = sub(@7,@9)\n"
    "@17 = mul(@16,@15)\n"
    "@18 = reshape[dims={2, 8, 10, 12}](@17)\n"
    "@19 = sigmoid(@18)\n"
    "@20 = mul(@18,@19)\n"
    "@21 = @return(@20,@14)\n";

/* The same with the convolution + bias also an output: the later passes
 * read that output back, no scratch. */
static const char conv_groupnorm_silu_bias_out[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 4, 10, 12}, {480, 120, 12, 1}\n"
    "w = @param:w -> float_type, {8, 4, 3, 3}, {36, 9, 3, 1}\n"
    "bias = @param:bias -> float_type, {8}, {1}\n"
    "@3 = fused(x,w,bias), [main:fused0] -> [float_type, {2, 8, 10, 12}, {960, 120, 12, 1}, float_type, {2, 4, 1}, {4, 1, 1}, float_type, {2, 8, 10, 12}, {960, 120, 12, 1}]\n"
    "@4 = get_tuple_elem[index=0](@3)\n"
    "@5 = get_tuple_elem[index=1](@3)\n"
    "@7 = get_tuple_elem[index=2](@3)\n"
    "@6 = @return(@4, @5, @7)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {2, 4, 10, 12}, {480, 120, 12, 1}\n"
    "x1 = @param:x1 -> float_type, {8, 4, 3, 3}, {36, 9, 3, 1}\n"
    "x2 = @param:x2 -> float_type, {8}, {1}\n"
    "@3 = @literal{0.0001} -> float_type, {1}, {0}\n"
    "@4 = convolution[padding={1, 1, 1, 1},stride={1, 1},dilation={1, 1},group=1,padding_mode=0](x0,x1)\n"
    "@5 = broadcast[axis=1,out_lens={2, 8, 10, 12}](x2)\n"
    "@6 = add(@4,@5)\n"
    "@7 = reshape[dims={2, 4, 240}](@6)\n"
    "@8 = reduce_mean[axes={2}](@7)\n"
    "@9 = multibroadcast[out_lens={2, 4, 240}](@8)\n"
    "@10 = sqdiff(@7,@9)\n"
    "@11 = reduce_mean[axes={2}](@10)\n"
    "@12 = multibroadcast[out_lens={2, 4, 1}](@3)\n"
    "@13 = add(@11,@12)\n"
    "@14 = rsqrt(@13)\n"
    "@15 = multibroadcast[out_lens={2, 4, 240}](@14)\n"
    "@16 = sub(@7,@9)\n"
    "@17 = mul(@16,@15)\n"
    "@18 = reshape[dims={2, 8, 10, 12}](@17)\n"
    "@19 = sigmoid(@18)\n"
    "@20 = mul(@18,@19)\n"
    "@21 = @return(@20,@14,@6)\n";

static int scratch_buffers(const char *text)
{
    graph *g = parse(text);
    graft_error err = {0};
    cg_program *p = g ? cg_lower(g, &err) : NULL;
    int n = p ? 0 : -1;
    for (int b = 0; p && b < p->nbuffers; b++)
        n += p->buffers[b].scratch != 0;
    cg_program_free(p);
    graph_free(g);
    return n;
}

static void test_conv_whole_groupnorm(void)
{
    graft_error err = {0};
    CHECK_INT(kernel_count(conv_groupnorm_silu, &err), 1);
    CHECK_INT(scratch_buffers(conv_groupnorm_silu), 1);
    check_emu(conv_groupnorm_silu, "gemm_reduce_block", "__syncthreads();\n        for (unsigned r",
              1e-4);
    CHECK_INT(kernel_count(conv_groupnorm_silu_bias_out, &err), 1);
    CHECK_INT(scratch_buffers(conv_groupnorm_silu_bias_out), 0);
    check_emu(conv_groupnorm_silu_bias_out, "gemm_reduce_block", NULL, 1e-4);
}

/* Partial reductions, as a split written in the graph gives them: a sum
 * over chunks of a sum over each chunk (and a max of maxes) is one fold
 * over both axes: in a row kernel (rows of 700), in split kernels (rows of
 * 80000: two kernels, no fill), and after a convolution. */
static const char nested_short[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3, 700}, {2100, 700, 1}\n"
    "@1 = fused(x), [main:fused0] -> [float_type, {2, 3, 700}, {2100, 700, 1}, float_type, {2, 3, 1, 1}, {3, 1, 1, 1}]\n"
    "@2 = get_tuple_elem[index=0](@1)\n"
    "@3 = get_tuple_elem[index=1](@1)\n"
    "@4 = @return(@2, @3)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {2, 3, 700}, {2100, 700, 1}\n"
    "@1 = reshape[dims={2, 3, 10, 70}](x0)\n"
    "@2 = reduce_sum[axes={3}](@1)\n"
    "@3 = reduce_sum[axes={2}](@2)\n"
    "@4 = mul(@1,@1)\n"
    "@5 = reduce_max[axes={3}](@4)\n"
    "@6 = reduce_max[axes={2}](@5)\n"
    "@7 = multibroadcast[out_lens={2, 3, 10, 70}](@3)\n"
    "@8 = sub(@1,@7)\n"
    "@9 = reshape[dims={2, 3, 700}](@8)\n"
    "@10 = add(@3,@6)\n"
    "@11 = @return(@9,@10)\n";

static const char nested_long[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3, 80000}, {240000, 80000, 1}\n"
    "@1 = fused(x), [main:fused0] -> [float_type, {2, 3, 80000}, {240000, 80000, 1}, float_type, {2, 3, 1, 1}, {3, 1, 1, 1}]\n"
    "@2 = get_tuple_elem[index=0](@1)\n"
    "@3 = get_tuple_elem[index=1](@1)\n"
    "@4 = @return(@2, @3)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {2, 3, 80000}, {240000, 80000, 1}\n"
    "@1 = reshape[dims={2, 3, 10, 8000}](x0)\n"
    "@2 = reduce_sum[axes={3}](@1)\n"
    "@3 = reduce_sum[axes={2}](@2)\n"
    "@4 = mul(@1,@1)\n"
    "@5 = reduce_max[axes={3}](@4)\n"
    "@6 = reduce_max[axes={2}](@5)\n"
    "@7 = multibroadcast[out_lens={2, 3, 10, 8000}](@3)\n"
    "@8 = sub(@1,@7)\n"
    "@9 = reshape[dims={2, 3, 80000}](@8)\n"
    "@10 = add(@3,@6)\n"
    "@11 = @return(@9,@10)\n";

static const char conv_nested_sums[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 4, 10, 12}, {480, 120, 12, 1}\n"
    "w = @param:w -> float_type, {8, 4, 3, 3}, {36, 9, 3, 1}\n"
    "bias = @param:bias -> float_type, {8}, {1}\n"
    "@3 = fused(x,w,bias), [main:fused0] -> [float_type, {2, 8, 10, 12}, {960, 120, 12, 1}, float_type, {2, 4, 1, 1}, {4, 1, 1, 1}, float_type, {2, 4, 1, 1}, {4, 1, 1, 1}]\n"
    "@4 = get_tuple_elem[index=0](@3)\n"
    "@5 = get_tuple_elem[index=1](@3)\n"
    "@6 = get_tuple_elem[index=2](@3)\n"
    "@7 = @return(@4, @5, @6)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {2, 4, 10, 12}, {480, 120, 12, 1}\n"
    "x1 = @param:x1 -> float_type, {8, 4, 3, 3}, {36, 9, 3, 1}\n"
    "x2 = @param:x2 -> float_type, {8}, {1}\n"
    "@3 = convolution[padding={1, 1, 1, 1},stride={1, 1},dilation={1, 1},group=1,padding_mode=0](x0,x1)\n"
    "@4 = broadcast[axis=1,out_lens={2, 8, 10, 12}](x2)\n"
    "@5 = add(@3,@4)\n"
    "@6 = reshape[dims={2, 4, 2, 120}](@5)\n"
    "@7 = reduce_sum[axes={3}](@6)\n"
    "@11 = reduce_sum[axes={2}](@7)\n"
    "@8 = mul(@6,@6)\n"
    "@9 = reduce_sum[axes={2, 3}](@8)\n"
    "@10 = @return(@5,@11,@9)\n";

static void test_partial_reductions_merge(void)
{
    graft_error err = {0};
    CHECK_INT(kernel_count(nested_short, &err), 1);
    check_emu(nested_short, "fused_reduce_block", "keep0[u]", 1e-5);
    CHECK_INT(kernel_count(nested_long, &err), 2);
    check_emu(nested_long, "fused_reduce_split_part", NULL, 1e-5);
    CHECK_INT(kernel_count(conv_nested_sums, &err), 1);
    check_emu(conv_nested_sums, "gemm_reduce_block", "racc1", 1e-5);
}

/* Every kernel above compiles with hiprtc for gfx90a (wave 64) and gfx1030
 * (wave 32). */
static void test_hiprtc_compiles_fused_kernels(void)
{
    const char *texts[] = {conv_epilogue_sums, prologue_conv_epilogue, softmax_scaled, long_rows,
                           unet_two_regions, conv_groupnorm_silu, softmax_tail_prologue_dot,
                           lone_prologue_conv};
    check_hiprtc_compiles("test_hiprtc_compiles_fused_kernels", texts, sizeof texts / sizeof texts[0]);
}

int main(void)
{
    RUN(test_conv_epilogue_reductions);
    RUN(test_conv_epilogue_reductions_half);
    RUN(test_prologue_conv_epilogue_reductions);
    RUN(test_dot_prologue_epilogue);
    RUN(test_dot_epilogue_row_reductions);
    RUN(test_dot_contiguous_epilogue);
    RUN(test_softmax_tail_prologue_dot);
    RUN(test_lone_prologue_conv);
    RUN(test_pads_into_conv);
    RUN(test_gemm_regions_not_lowered_yet);
    RUN(test_reduce_region_kept_in_registers);
    RUN(test_long_rows_split);
    RUN(test_unet_block_two_kernels);
    RUN(test_conv_whole_groupnorm);
    RUN(test_partial_reductions_merge);
    RUN(test_hiprtc_compiles_fused_kernels);
    return tests_finish();
}
