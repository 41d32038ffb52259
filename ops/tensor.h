/* tensor.h: a shape plus the memory it describes, for the reference executor.
 *
 * data points at the element whose multi-index is all zeros; element i of the
 * multi-index idx lives at data + shape_index(&sh, idx) * type_size(sh.type).
 * A tensor does not own its data: the executor owns buffers and views alias
 * them. The dense helpers copy any layout into a row-major array of a compute
 * type (double for float types, int64 for integer types and bool) and back;
 * kernels do their math on those arrays: float math in float precision is
 * obtained by rounding to the output type on store, integer math is exact.
 * Stores round to nearest even (half and bf16 without double rounding);
 * float to integer truncates toward zero and saturates (NaN gives 0);
 * integer to a narrower integer wraps; anything nonzero to bool is 1.
 */
#ifndef GRAFT_TENSOR_H
#define GRAFT_TENSOR_H

#include "shape.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct tensor {
    shape sh;
    char *data;
} tensor;

/* Element i in row-major order of t's lens, converted. */
double tensor_get_f64(const tensor *t, int64_t i);
int64_t tensor_get_i64(const tensor *t, int64_t i);
/* Stores v (converted to t's type, rounding) at row-major element i. */
void tensor_set_f64(tensor *t, int64_t i, double v);
void tensor_set_i64(tensor *t, int64_t i, int64_t v);

/* malloc'd row-major copies (NULL on allocation failure); caller frees. */
double *tensor_dense_f64(const tensor *t);
int64_t *tensor_dense_i64(const tensor *t);
float *tensor_dense_f32(const tensor *t);
/* Writes row-major values into t (any layout), converting to t's type. */
void tensor_store_f64(tensor *t, const double *v);
void tensor_store_i64(tensor *t, const int64_t *v);
void tensor_store_f32(tensor *t, const float *v);

/* Stores v as one integer element of type t at `at`: its low bits, so a
 * narrower type wraps; bool stores 1 for anything nonzero. For a float type
 * nothing is stored. */
void tensor_store_integer_bits(graft_type t, void *at, int64_t v);
/* Memory for tensor data and kernels' working copies: at least one byte,
 * zeroed when zero is true. A request of TENSOR_ALLOC_CHECKED bytes or more
 * that exceeds tensor_memory_available() gets NULL without trying: under
 * Linux overcommit it could succeed and the process be killed once it
 * touches the pages. */
#define TENSOR_ALLOC_CHECKED ((size_t)256 << 20)
void *tensor_alloc(size_t bytes, bool zero);
/* Bytes this process could still get: MemAvailable plus SwapFree
 * (/proc/meminfo), or less when a cgroup (v2, as a container sees it) limits
 * it. UINT64_MAX when unknown. */
uint64_t tensor_memory_available(void);

/* Copies src's elements into dst in row-major order of each one's lens
 * (layouts may differ; lens may differ too, as for a reshape, as long as the
 * element counts agree). Same type only: false if types or counts differ. */
bool tensor_copy(tensor *dst, const tensor *src);

/* A tuple tensor (a multi-output region's result) holds its elements one
 * after another, element k starting at byte tensor_tuple_offset(sh, k) (a
 * multiple of 16), each in its sub-shape's layout; tensor_tuple_bytes is the
 * whole buffer's size. */
size_t tensor_tuple_offset(const shape *tuple, int k);
size_t tensor_tuple_bytes(const shape *tuple);

/* half and bf16 conversions (round to nearest even). */
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bf16_to_float(uint16_t h);
uint16_t float_to_bf16(float f);

#endif
