/* test_codegen_resample.c: the kernels of emit_resample.c (resize,
 * grid_sample, roialign), emit_dense.c (convolution_backwards, dft, det)
 * and emit_select.c (an `if` lowered as both branches and a select), and a
 * region whose dot's epilogue reads the product through views that keep
 * its index. Each runs on emu at wave 64 and 32 against the reference
 * executor, and compiles with hiprtc for gfx90a and gfx1030 (skipped
 * without hiprtc).
 */
#include "check.h"

#include "codegen.h"
#include "emu_check.h"
#include "exec.h"
#include "graph_test_helpers.h"

#include <string.h>

/* resize: cubic downscale with exclude_outside, its own coefficient a */
static const char resize_cubic[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {1, 2, 7, 9}, {126, 63, 9, 1}\n"
    "@1 = resize[scales={1, 1, 0.6, 0.8},mode=2,coordinate_transformation_mode=0,"
    "cubic_coeff_a=-0.5,exclude_outside=1](x)\n"
    "@2 = @return(@1)\n";

/* resize: linear upscale with align_corners, on half */
static const char resize_linear_half[] =
    "module: \"main\"\n"
    "x = @param:x -> half_type, {2, 3, 4, 5}, {60, 20, 5, 1}\n"
    "@1 = resize[sizes={2, 3, 7, 11},mode=1,coordinate_transformation_mode=2](x)\n"
    "@2 = @return(@1)\n";

/* resize: nearest (round_prefer_ceil, asymmetric) on a 3-d input */
static const char resize_nearest[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {3, 4, 5}, {20, 5, 1}\n"
    "@1 = resize[scales={1, 1.7, 2.5},mode=0,coordinate_transformation_mode=3,"
    "nearest_mode=1](x)\n"
    "@2 = @return(@1)\n";

/* resize: tf_crop_and_resize with a roi reaching outside: extrapolation */
static const char resize_crop[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {1, 1, 6, 6}, {36, 36, 6, 1}\n"
    "@1 = resize[sizes={1, 1, 5, 4},mode=1,coordinate_transformation_mode=5,"
    "roi={0, 0, -0.2, 0.3, 1, 1, 0.9, 1.4},extrapolation_value=7.5](x)\n"
    "@2 = @return(@1)\n";

/* resize: antialiased linear downscale */
static const char resize_antialias[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {1, 1, 12, 10}, {120, 120, 10, 1}\n"
    "@1 = resize[scales={1, 1, 0.4, 0.55},mode=1,antialias=1](x)\n"
    "@2 = @return(@1)\n";

/* resize: linear on uint8, truncated and saturated on store as the reference does */
static const char resize_uint8[] =
    "module: \"main\"\n"
    "x = @param:x -> uint8_type, {1, 1, 5, 5}, {25, 25, 5, 1}\n"
    "@1 = resize[scales={1, 1, 1.6, 2.2},mode=2](x)\n"
    "@2 = @return(@1)\n";

static void test_resize(void)
{
    check_emu(resize_uint8, "resize", "graft_f2i", 0);
    check_emu(resize_cubic, "resize", "static const double coef2[", 1e-6);
    check_emu(resize_linear_half, "resize", "static const long long first3[", 2e-3);
    check_emu(resize_nearest, "resize", "coef1[", 1e-6);
    check_emu(resize_crop, "resize", "extrap2[", 1e-6);
    check_emu(resize_antialias, "resize", "coef3[", 1e-6);
}

/* grid_sample: the grid doubled so positions reach outside the input */
static const char grid_text_fmt[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3, 5, 6}, {90, 30, 6, 1}\n"
    "g = @param:g -> float_type, {2, 4, 7, 2}, {56, 14, 2, 1}\n"
    "@2 = add(g,g) -> float_type, {2, 4, 7, 2}, {56, 14, 2, 1}\n"
    "@3 = grid_sample[mode=%d,padding_mode=%d,align_corners=%d](x,@2)\n"
    "@4 = @return(@3)\n";

static void test_grid_sample(void)
{
    for (int mode = 0; mode < 3; mode++)
        for (int pad = 0; pad < 3; pad++)
            for (int align = 0; align < 2; align++) {
                char text[sizeof grid_text_fmt + 16];
                snprintf(text, sizeof text, grid_text_fmt, mode, pad, align);
                check_emu(text, "grid_sample", pad == 2 ? "fmod(n, 2.0)" : NULL, 1e-6);
            }
}

/* roialign: rois (x0, y0, x0 + |dx|, y0 + |dy|) scaled past the image's
 * edges, batch indices 0..3 */
static const char roialign_fmt[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {4, 2, 8, 8}, {128, 64, 8, 1}\n"
    "p = @param:p -> float_type, {5, 2}, {2, 1}\n"
    "q = @param:q -> float_type, {5, 2}, {2, 1}\n"
    "b = @param:b -> int64_type, {5}, {1}\n"
    "@4 = abs(q)\n"
    "@5 = add(p,@4)\n"
    "@6 = concat[axis=1](p,@5)\n"
    "@7 = roialign[coordinate_transformation_mode=%d,mode=%d,output_height=3,output_width=4,"
    "sampling_ratio=%d,spatial_scale=4](x,@6,b)\n"
    "@8 = @return(@7)\n";

static void test_roialign(void)
{
    for (int ctm = 0; ctm < 2; ctm++)
        for (int mode = 0; mode < 2; mode++)
            for (int ratio = 0; ratio < 3; ratio += 2) {
                char text[sizeof roialign_fmt + 16];
                snprintf(text, sizeof text, roialign_fmt, ctm, mode, ratio);
                check_emu(text, "roialign", mode ? "fmax(fmax(v1, v2)" : "acc / count", 1e-6);
            }
}

/* convolution_backwards: groups, strides, dilations, asymmetric pads */
static const char deconv_2d[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 4, 3, 4}, {48, 12, 4, 1}\n"
    "w = @param:w -> float_type, {4, 3, 3, 2}, {18, 6, 2, 1}\n"
    "@2 = convolution_backwards[padding={1, 0, 0, 1},stride={2, 3},dilation={2, 1},group=2,"
    "padding_mode=0](x,w)\n"
    "@3 = @return(@2)\n";

static const char deconv_1d_double[] =
    "module: \"main\"\n"
    "x = @param:x -> double_type, {1, 2, 5}, {10, 5, 1}\n"
    "w = @param:w -> double_type, {2, 3, 4}, {12, 4, 1}\n"
    "@2 = convolution_backwards[padding={2},stride={2},dilation={1},group=1,padding_mode=0](x,w)\n"
    "@3 = @return(@2)\n";

static void test_convolution_backwards(void)
{
    check_emu(deconv_2d, "convolution_backwards", "% 3LL != 0", 1e-6);
    check_emu(deconv_1d_double, "convolution_backwards", NULL, 1e-12);
}

static const char dft_real[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 12, 3, 1}, {36, 3, 1, 1}\n"
    "@1 = dft[axis=1,inverse=0,onesided=1,length=0](x)\n"
    "@2 = @return(@1)\n";

static const char dft_complex_inverse_padded[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {5, 7, 2}, {14, 2, 1}\n"
    "@1 = dft[axis=1,inverse=1,onesided=0,length=9](x)\n"
    "@2 = @return(@1)\n";

static const char dft_truncated[] =
    "module: \"main\"\n"
    "x = @param:x -> double_type, {9, 4, 2}, {8, 2, 1}\n"
    "@1 = dft[axis=0,inverse=0,onesided=0,length=6](x)\n"
    "@2 = @return(@1)\n";

static void test_dft(void)
{
    check_emu(dft_real, "dft", "static const double twiddle[24]", 1e-6);
    check_emu(dft_complex_inverse_padded, "dft", "twiddle[18]", 1e-6);
    check_emu(dft_truncated, "dft", "t < 6LL", 1e-12);
}

static const char det_text[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {3, 2, 5, 5}, {50, 25, 5, 1}\n"
    "@1 = det(x)\n"
    "@2 = @return(@1)\n";

static const char det_2d[] =
    "module: \"main\"\n"
    "x = @param:x -> double_type, {4, 4}, {4, 1}\n"
    "@1 = det(x)\n"
    "@2 = @return(@1)\n";

/* a transposed operand (through a view) and a singular matrix (all ones) */
static const char det_singular[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3, 3}, {9, 3, 1}\n"
    "@1 = transpose[permutation={0, 2, 1}](x)\n"
    "@2 = det(@1)\n"
    "@3 = @literal{1, 1, 1, 1, 1, 1, 1, 1, 1} -> float_type, {1, 3, 3}, {9, 3, 1}\n"
    "@4 = det(@3)\n"
    "@5 = @return(@2,@4)\n";

static void test_det(void)
{
    check_emu(det_text, "det", "pivot = r;", 1e-5);
    check_emu(det_2d, "det", NULL, 1e-12);
    check_emu(det_singular, "det", NULL, 1e-5);
}

/* if: both branches lowered in line, the condition picks the result */
static const char if_fmt[] =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {3, 4}, {4, 1}\n"
    "c = @literal{%d} -> bool_type, {1}, {1}\n"
    "@2 = if(c,x), [main:then0, main:else1] -> float_type, {3, 4}, {4, 1}\n"
    "@3 = @return(@2)\n"
    "\n"
    "module: \"main:then0\"\n"
    "x0 = @param:x0 -> bool_type, {1}, {1}\n"
    "x1 = @param:x1 -> float_type, {3, 4}, {4, 1}\n"
    "@2 = add(x1,x1) -> float_type, {3, 4}, {4, 1}\n"
    "@3 = @return(@2)\n"
    "\n"
    "module: \"main:else1\"\n"
    "x0 = @param:x0 -> bool_type, {1}, {1}\n"
    "x1 = @param:x1 -> float_type, {3, 4}, {4, 1}\n"
    "@2 = transpose[permutation={1, 0}](x1) -> float_type, {4, 3}, {1, 4}\n"
    "@3 = exp(@2)\n"
    "@4 = reshape[dims={3, 4}](@3)\n"
    "@5 = @return(@4)\n";

static void test_if(void)
{
    for (int c = 0; c < 2; c++) {
        char text[sizeof if_fmt + 8];
        snprintf(text, sizeof text, if_fmt, c);
        check_emu(text, "select", "take_then", 1e-6);
    }
}

/* a dot whose epilogue reaches the product through a reshape and a slice of
 * a whole axis (as ONNX's RNN builds it) */
static const char dot_region_views[] =
    "module: \"main\"\n"
    "a = @param:a -> float_type, {3, 6}, {6, 1}\n"
    "b = @param:b -> float_type, {6, 5}, {5, 1}\n"
    "c = @param:c -> float_type, {1, 3, 5}, {15, 5, 1}\n"
    "@3 = fused(a,b,c), [main:fused0] -> float_type, {1, 3, 5}, {15, 5, 1}\n"
    "@4 = @return(@3)\n"
    "\n"
    "module: \"main:fused0\"\n"
    "x0 = @param:x0 -> float_type, {3, 6}, {6, 1}\n"
    "x1 = @param:x1 -> float_type, {6, 5}, {5, 1}\n"
    "x2 = @param:x2 -> float_type, {1, 3, 5}, {15, 5, 1}\n"
    "@3 = dot(x0,x1) -> float_type, {3, 5}, {5, 1}\n"
    "@4 = reshape[dims={1, 3, 5}](@3) -> float_type, {1, 3, 5}, {15, 5, 1}\n"
    "@5 = slice[axes={0},starts={0},ends={1}](@4) -> float_type, {1, 3, 5}, {15, 5, 1}\n"
    "@6 = add(@5,x2) -> float_type, {1, 3, 5}, {15, 5, 1}\n"
    "@7 = tanh(@6) -> float_type, {1, 3, 5}, {15, 5, 1}\n"
    "@8 = @return(@7)\n";

static void test_dot_region_through_views(void)
{
    check_emu(dot_region_views, "gemm", "tanh", 1e-5);
}

static void test_hiprtc_compiles_these_kernels(void)
{
    char grid[sizeof grid_text_fmt + 16], roi[sizeof roialign_fmt + 16], iff[sizeof if_fmt + 8];
    snprintf(grid, sizeof grid, grid_text_fmt, 2, 2, 0);
    snprintf(roi, sizeof roi, roialign_fmt, 0, 1, 0);
    snprintf(iff, sizeof iff, if_fmt, 1);
    const char *texts[] = {resize_cubic, resize_linear_half, resize_crop, grid, roi,
                           deconv_2d,    dft_complex_inverse_padded,       det_text, iff};
    check_hiprtc_compiles("test_hiprtc_compiles_these_kernels", texts, sizeof texts / sizeof texts[0]);
}

int main(void)
{
    RUN(test_resize);
    RUN(test_grid_sample);
    RUN(test_roialign);
    RUN(test_convolution_backwards);
    RUN(test_dft);
    RUN(test_det);
    RUN(test_if);
    RUN(test_dot_region_through_views);
    RUN(test_hiprtc_compiles_these_kernels);
    return tests_finish();
}
