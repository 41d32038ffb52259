/* kernels_linalg.c: det (ops_linalg.c), by Gaussian elimination with
 * partial pivoting in double precision: the pivot of each column is the
 * first row holding the largest magnitude, so the result is the same on
 * every machine; a zero pivot column gives 0.
 */
#include "kernels_common.h"

#include <math.h>

bool kernel_det(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    const shape *s = &inputs[0].sh;
    int64_t m = s->lens[s->rank - 1], count = shape_elements(s) / (m * m > 0 ? m * m : 1);
    double *a = tensor_dense_f64(&inputs[0]);
    double *res = malloc((size_t)count * sizeof *res + 1);
    if (!a || !res) {
        free(a);
        free(res);
        return kernel_out_of_memory(call, err);
    }
    for (int64_t k = 0; k < count; k++) {
        double *mat = a + k * m * m, det = 1;
        for (int64_t col = 0; col < m && det != 0; col++) {
            int64_t pivot = col;
            for (int64_t r = col + 1; r < m; r++)
                if (fabs(mat[r * m + col]) > fabs(mat[pivot * m + col]))
                    pivot = r;
            if (mat[pivot * m + col] == 0) {
                det = 0;
                break;
            }
            if (pivot != col) {
                for (int64_t j = 0; j < m; j++) {
                    double t = mat[col * m + j];
                    mat[col * m + j] = mat[pivot * m + j];
                    mat[pivot * m + j] = t;
                }
                det = -det;
            }
            double p = mat[col * m + col];
            det *= p;
            for (int64_t r = col + 1; r < m; r++) {
                double f = mat[r * m + col] / p;
                for (int64_t j = col; j < m; j++)
                    mat[r * m + j] -= f * mat[col * m + j];
            }
        }
        res[k] = det;
    }
    tensor_store_f64(out, res);
    free(a);
    free(res);
    return true;
}
