/* test_kernel_traffic.c: bytes_moved and bytes_lower_bound
 * (ops/kernel_traffic.c) on small graphs whose figures are worked out by
 * hand in the comments: pointwise chains, broadcasts read once, one buffer
 * read through two views, a dot whose output must cross to a reduction, the
 * same graph with a region around the reduction (the bound must not move),
 * a multi-output region, and a crossing value that is also an output.
 * All tensors are float (4 bytes an element).
 */
#include "check.h"
#include "graph_test_helpers.h"
#include "kernel_counts.h"

static void counts_of(const char *text, kernel_counts *kc)
{
    memset(kc, 0, sizeof *kc);
    graph *g = parse(text);
    CHECK(g != NULL);
    if (!g)
        return;
    CHECK(verifies(g));
    graph_kernel_counts(g, kc);
    graph_free(g);
}

/* relu then exp over {4, 8} (128 bytes): each kernel reads 128 and writes
 * 128; the bound is the input and the output, 256. */
static void test_pointwise_chain(void)
{
    kernel_counts kc;
    counts_of("module: \"main\"\n"
              "x = @param:x -> float_type, {4, 8}, {8, 1}\n"
              "@1 = relu(x)\n"
              "@2 = exp(@1)\n"
              "@3 = @return(@2)\n",
              &kc);
    CHECK_INT(kc.kernels, 2);
    CHECK_INT(kc.bytes_moved, 512);
    CHECK_INT(kc.bytes_lower_bound, 256);
}

/* A broadcast of b {8} (32 bytes) over {4, 8} is read as 32 bytes, not 128:
 * add reads x 128 + b 32 and writes 128 (288); mul reads @2 128 + b 32 and
 * writes 128 (288). The bound: x 128, b 32, the output 128. */
static void test_broadcast_read_once(void)
{
    kernel_counts kc;
    counts_of("module: \"main\"\n"
              "x = @param:x -> float_type, {4, 8}, {8, 1}\n"
              "b = @param:b -> float_type, {8}, {1}\n"
              "@1 = multibroadcast[out_lens={4, 8}](b)\n"
              "@2 = add(x,@1)\n"
              "@3 = mul(@2,@1)\n"
              "@4 = @return(@3)\n",
              &kc);
    CHECK_INT(kc.bytes_moved, 576);
    CHECK_INT(kc.bytes_lower_bound, 288);
}

/* add(x, transpose(x)) over {4, 4} (64 bytes) reads x once: 64 in, 64 out.
 * A parameter nobody reads is not in the bound. A reshape of a transposed
 * value is a copy kernel (64 in, 64 out); a reshape of a standard one is a
 * view and moves nothing. */
static void test_one_buffer_two_views(void)
{
    kernel_counts kc;
    counts_of("module: \"main\"\n"
              "x = @param:x -> float_type, {4, 4}, {4, 1}\n"
              "unused = @param:unused -> float_type, {100}, {1}\n"
              "@1 = transpose[permutation={1, 0}](x)\n"
              "@2 = add(x,@1)\n"
              "@3 = reshape[dims={16}](@1)\n"
              "@4 = reshape[dims={16}](@2)\n"
              "@5 = @return(@3,@4)\n",
              &kc);
    CHECK_INT(kc.kernels, 2);
    CHECK_INT(kc.bytes_moved, 128 + 128);
    /* x 64; outputs: @3's buffer is the copy (64), @4's is @2 (64) */
    CHECK_INT(kc.bytes_lower_bound, 64 + 64 + 64);
}

/* The graph of the next two tests: a {2, 3} times w {3, 4} (a literal, 48
 * bytes), its rows centred by their sum, times w2 {4, 5} (80 bytes). */
#define DOT_HEAD                                                                       \
    "module: \"main\"\n"                                                               \
    "a = @param:a -> float_type, {2, 3}, {3, 1}\n"                                     \
    "w = @literal{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12} -> float_type, {3, 4}, {4, 1}\n" \
    "w2 = @literal{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, "  \
    "20} -> float_type, {4, 5}, {5, 1}\n"                                              \
    "@1 = dot(a,w)\n"

/* The dot's output @1 {2, 4} (32 bytes) reaches a reduction: it must cross,
 * written once and read once (64). Bound: a 24 + w 48 + w2 80 + the output
 * {2, 5} 40 + 64 = 256. Moved: dot 24+48+32 = 104; reduce_sum 32+8 = 40;
 * sub 32 + the broadcast sums 8 + 32 = 72; dot 32+80+40 = 152; 368. */
static void test_dot_output_crosses_to_a_reduction(void)
{
    kernel_counts kc;
    counts_of(DOT_HEAD "@2 = reduce_sum[axes={1}](@1)\n"
                       "@3 = multibroadcast[out_lens={2, 4}](@2)\n"
                       "@4 = sub(@1,@3)\n"
                       "@5 = dot(@4,w2)\n"
                       "@6 = @return(@5)\n",
              &kc);
    CHECK_INT(kc.kernels, 4);
    CHECK_INT(kc.bytes_moved, 368);
    CHECK_INT(kc.bytes_lower_bound, 256);
}

/* The same with the reduction and the subtraction in one region: the bound
 * looks through the region (256 still: @1 reaches the reduction in the body);
 * the region reads @1 once (32) and writes 32, so 104 + 64 + 152 = 320. */
static void test_region_keeps_the_bound(void)
{
    kernel_counts kc;
    counts_of(DOT_HEAD "@2 = fused(@1), [main:fused0] -> float_type, {2, 4}, {4, 1}\n"
                       "@5 = dot(@2,w2)\n"
                       "@6 = @return(@5)\n"
                       "\n"
                       "module: \"main:fused0\"\n"
                       "x0 = @param:x0 -> float_type, {2, 4}, {4, 1}\n"
                       "@1 = reduce_sum[axes={1}](x0)\n"
                       "@2 = multibroadcast[out_lens={2, 4}](@1)\n"
                       "@3 = sub(x0,@2)\n"
                       "@4 = @return(@3)\n",
              &kc);
    CHECK_INT(kc.kernels, 3);
    CHECK_INT(kc.bytes_moved, 320);
    CHECK_INT(kc.bytes_lower_bound, 256);
}

/* A region with two outputs writes both ({2, 3} each, 24 bytes): it reads x
 * and y (48) and writes 48; relu 24+24, sub 48+24. Bound: x, y, output. */
static void test_multi_output_region(void)
{
    kernel_counts kc;
    counts_of("module: \"main\"\n"
              "x = @param:x -> float_type, {2, 3}, {3, 1}\n"
              "y = @param:y -> float_type, {2, 3}, {3, 1}\n"
              "@2 = fused(x,y), [main:fused0] -> [float_type, {2, 3}, {3, 1}, float_type, {2, "
              "3}, {3, 1}]\n"
              "@3 = get_tuple_elem[index=0](@2)\n"
              "@4 = get_tuple_elem[index=1](@2)\n"
              "@5 = relu(@3)\n"
              "@6 = sub(@4,@5)\n"
              "@7 = @return(@6)\n"
              "\n"
              "module: \"main:fused0\"\n"
              "x0 = @param:x0 -> float_type, {2, 3}, {3, 1}\n"
              "x1 = @param:x1 -> float_type, {2, 3}, {3, 1}\n"
              "@2 = add(x0,x1)\n"
              "@3 = sigmoid(@2)\n"
              "@4 = mul(@2,@3)\n"
              "@5 = @return(@2,@4)\n",
              &kc);
    CHECK_INT(kc.kernels, 3);
    CHECK_INT(kc.bytes_moved, 96 + 48 + 72);
    CHECK_INT(kc.bytes_lower_bound, 72);
}

/* A crossing value that is also a graph output is written once (as the
 * output) and read once: a 24 + w 48 + w2 80 + outputs @1 32 and @5 40 +
 * the read of @1 32 = 256. A dot whose output only goes to a pointwise op
 * and out does not cross. */
static void test_crossing_output_counted_once(void)
{
    kernel_counts kc;
    counts_of(DOT_HEAD "@5 = dot(@1,w2)\n"
                       "@6 = @return(@1,@5)\n",
              &kc);
    CHECK_INT(kc.bytes_lower_bound, 256);
    counts_of(DOT_HEAD "@2 = relu(@1)\n"
                       "@3 = @return(@2)\n",
              &kc);
    CHECK_INT(kc.bytes_lower_bound, 24 + 48 + 32);
}

int main(void)
{
    RUN(test_pointwise_chain);
    RUN(test_broadcast_read_once);
    RUN(test_one_buffer_two_views);
    RUN(test_dot_output_crosses_to_a_reduction);
    RUN(test_region_keeps_the_bound);
    RUN(test_multi_output_region);
    RUN(test_crossing_output_counted_once);
    return tests_finish();
}
