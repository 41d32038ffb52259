/* kernels_deconv.c: convolution_backwards (ops_deconv.c).
 *
 * Each output element is gathered, not scattered: output position o on a
 * spatial axis receives input position i through kernel offset k when
 * o + pad_before = i * stride + k * dilation. Sums run over the group's
 * input channels, then the kernel offsets, then the input positions in
 * row-major order, in double precision, rounded once on store, so the
 * result does not depend on the order elements are visited in.
 */
#include "kernels_common.h"

#include <string.h>

bool kernel_convolution_backwards(const op_call *call, const tensor *inputs, tensor *out,
                                  graft_error *err)
{
    const shape *xs = &inputs[0].sh, *ws = &inputs[1].sh, *os = &out->sh;
    int k = xs->rank - 2, npad = 0, nstride = 0, ndil = 0;
    const int64_t *padding = op_attr_ints(call, "padding", &npad);
    const int64_t *stride = op_attr_ints(call, "stride", &nstride);
    const int64_t *dilation = op_attr_ints(call, "dilation", &ndil);
    int64_t group = op_attr_int(call, "group");
    if (k < 1 || nstride != k || ndil != k || (npad != k && npad != 2 * k) || group < 1)
        return error_set(err, "convolution_backwards: attributes do not fit the operands");
    int64_t n = xs->lens[0], cin = xs->lens[1], cout = os->lens[1];
    int64_t cin_g = cin / group, cout_g = ws->lens[1];
    int64_t in_sp = 1, out_sp = 1, k_sp = 1;
    for (int i = 0; i < k; i++) {
        in_sp *= xs->lens[i + 2];
        out_sp *= os->lens[i + 2];
        k_sp *= ws->lens[i + 2];
    }
    double *x = tensor_dense_f64(&inputs[0]);
    double *w = tensor_dense_f64(&inputs[1]);
    double *y = malloc((size_t)(n * cout * out_sp) * sizeof *y + 1);
    /* per kernel offset, its spatial coordinates */
    int64_t *kcoord = malloc((size_t)(k_sp * k) * sizeof *kcoord + 1);
    bool ok = x && w && y && kcoord;
    if (ok) {
        int64_t idx[SHAPE_MAX_RANK] = {0};
        for (int64_t j = 0; j < k_sp; j++) {
            memcpy(kcoord + j * k, idx, (size_t)k * sizeof *idx);
            for (int a = k - 1; a >= 0; a--) {
                if (++idx[a] < ws->lens[a + 2])
                    break;
                idx[a] = 0;
            }
        }
        int64_t o[SHAPE_MAX_RANK] = {0};
        for (int64_t p = 0; p < out_sp; p++) {
            for (int64_t b = 0; b < n; b++)
                for (int64_t oc = 0; oc < cout; oc++) {
                    int64_t g = oc / cout_g, ocg = oc % cout_g;
                    double acc = 0;
                    for (int64_t icg = 0; icg < cin_g; icg++) {
                        int64_t ic = g * cin_g + icg;
                        const double *xc = x + (b * cin + ic) * in_sp;
                        const double *wc = w + (ic * cout_g + ocg) * k_sp;
                        for (int64_t j = 0; j < k_sp; j++) {
                            int64_t at = 0;
                            bool hit = true;
                            for (int a = 0; a < k && hit; a++) {
                                int64_t t = o[a] + padding[a] - kcoord[j * k + a] * dilation[a];
                                hit = t >= 0 && t % stride[a] == 0 &&
                                      t / stride[a] < xs->lens[a + 2];
                                at = at * xs->lens[a + 2] + (hit ? t / stride[a] : 0);
                            }
                            if (hit)
                                acc += xc[at] * wc[j];
                        }
                    }
                    y[(b * cout + oc) * out_sp + p] = acc;
                }
            for (int a = k - 1; a >= 0; a--) {
                if (++o[a] < os->lens[a + 2])
                    break;
                o[a] = 0;
            }
        }
        tensor_store_f64(out, y);
    }
    free(x);
    free(w);
    free(y);
    free(kcoord);
    return ok ? true : kernel_out_of_memory(call, err);
}
