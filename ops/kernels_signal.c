/* kernels_signal.c: dft (ops_signal.c), computed directly: each frequency
 * k sums x[n] * e^(-+2 pi i k n / N) over the points in order, in double;
 * the angle uses (k * n) mod N, so large k * n lose no precision. The sines
 * and cosines are detmath.h's, the same bits on every CPU.
 */
#include "detmath.h"
#include "kernels_common.h"

#include <math.h>

bool kernel_dft(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const shape *s = &inputs[0].sh;
    int r = s->rank, axis;
    if (!ops_normalize_axis(call, "axis", op_attr_int(call, "axis"), r, &axis, err))
        return false;
    bool inverse = op_attr_int(call, "inverse") != 0;
    int64_t n = op_attr_int(call, "length"), in_len = s->lens[axis], parts = s->lens[r - 1];
    if (n == 0)
        n = in_len;
    int64_t bins = out->sh.lens[axis], outer = 1, inner = 1;
    for (int a = 0; a < axis; a++)
        outer *= s->lens[a];
    for (int a = axis + 1; a < r - 1; a++)
        inner *= s->lens[a];
    double *x = tensor_dense_f64(&inputs[0]);
    double *y = malloc((size_t)(outer * bins * inner * 2) * sizeof *y + 1);
    if (!x || !y) {
        free(x);
        free(y);
        return kernel_out_of_memory(call, err);
    }
    const double two_pi = 6.283185307179586476925286766559;
    double sign = inverse ? 1 : -1, scale = inverse ? 1.0 / (double)n : 1;
    int64_t used = in_len < n ? in_len : n;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++)
            for (int64_t k = 0; k < bins; k++) {
                double re = 0, im = 0;
                for (int64_t t = 0; t < used; t++) {
                    const double *v = x + ((o * in_len + t) * inner + i) * parts;
                    double xr = v[0], xi = parts == 2 ? v[1] : 0;
                    double angle = sign * two_pi * (double)((k * t) % n) / (double)n;
                    double c = det_cos(angle), sn = det_sin(angle);
                    re += xr * c - xi * sn;
                    im += xr * sn + xi * c;
                }
                double *w = y + ((o * bins + k) * inner + i) * 2;
                w[0] = re * scale;
                w[1] = im * scale;
            }
    tensor_store_f64(out, y);
    free(x);
    free(y);
    return true;
}
