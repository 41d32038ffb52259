/* tensor.c: reading and writing tensor elements in any layout and type.
 *
 * The reference kernels never index a tensor's memory themselves: they ask
 * for a row-major dense copy in a compute type (double for float types,
 * int64 for integers and bool, float for dot and convolution), compute, and store
 * the row-major result back through the output's strides. This file owns
 * those conversions, the half and bf16 encodings, and layout-changing copies.
 *
 * Conversion rules (documented once, used everywhere):
 *  - to half and bf16: round to nearest even. From double the value first
 *    goes to float with round-to-odd, which makes the two-step rounding exact
 *    (no double-rounding error);
 *  - float to integer: truncation toward zero, saturating at the type's range;
 *    NaN becomes 0 (C leaves these undefined; this is what we define);
 *  - integer to narrower integer: two's complement wrap-around;
 *  - anything to bool: nonzero is 1.
 */
#include "tensor.h"
#include "tensor_walk.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- half and bf16 ---- */

static uint32_t float_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static float bits_float(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0) {
        float magnitude = ldexpf((float)mantissa, -24); /* zero or subnormal */
        return sign ? -magnitude : magnitude;
    }
    if (exponent == 31)
        return bits_float(sign | 0x7f800000u | (mantissa << 13));
    return bits_float(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

uint16_t float_to_half(float f)
{
    uint32_t x = float_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) { /* inf or NaN; NaN stays quiet NaN */
        if (ax > 0x7f800000u)
            return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
        return (uint16_t)(sign | 0x7c00u);
    }
    if (ax >= 0x477ff000u) /* 65520 and above round to infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) { /* below 2^-14: a half subnormal or zero */
        uint32_t exponent = ax >> 23;
        if (exponent == 0)
            return sign;
        uint32_t mantissa = (ax & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126 - exponent; /* value * 2^24 = mantissa >> shift */
        if (shift > 24)
            return sign;
        uint32_t result = mantissa >> shift;
        uint32_t rest = mantissa & ((1u << shift) - 1);
        uint32_t halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (result & 1)))
            result++;
        return (uint16_t)(sign | result);
    }
    uint32_t result = (((ax >> 23) - 127 + 15) << 10) | ((ax & 0x7fffffu) >> 13);
    uint32_t rest = ax & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (result & 1)))
        result++; /* a carry into the exponent is still correct */
    return (uint16_t)(sign | result);
}

float bf16_to_float(uint16_t h)
{
    return bits_float((uint32_t)h << 16);
}

uint16_t float_to_bf16(float f)
{
    uint32_t x = float_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x0040u); /* quiet NaN */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

/* double -> float rounding to odd: exact when followed by one more rounding
 * to a format with at least two fewer significant bits (half, bf16). */
static float double_to_float_odd(double d)
{
    float f = (float)d;
    if (isfinite(f) && (double)f != d) {
        uint32_t b = float_bits(f);
        if (!(b & 1u)) {
            if (fabs((double)f) > fabs(d))
                b -= 1;
            else
                b += 1;
        }
        f = bits_float(b);
    }
    return f;
}

/* ---- one element ---- */

static int64_t saturate_to_integer(graft_type t, double v)
{
    double lo, hi;
    if (isnan(v))
        return 0;
    switch (t) {
    case GRAFT_UINT8: lo = 0; hi = 255; break;
    case GRAFT_INT8: lo = -128; hi = 127; break;
    case GRAFT_UINT16: lo = 0; hi = 65535; break;
    case GRAFT_INT16: lo = -32768; hi = 32767; break;
    case GRAFT_INT32: lo = -2147483648.0; hi = 2147483647.0; break;
    case GRAFT_UINT32: lo = 0; hi = 4294967295.0; break;
    case GRAFT_UINT64:
        if (v <= 0)
            return 0;
        if (v >= 18446744073709551616.0)
            return (int64_t)UINT64_MAX;
        return (int64_t)(uint64_t)v;
    default: /* int64 */
        if (v >= 9223372036854775808.0)
            return INT64_MAX;
        if (v <= -9223372036854775808.0)
            return INT64_MIN;
        return (int64_t)v;
    }
    if (v <= lo)
        return (int64_t)lo;
    if (v >= hi)
        return (int64_t)hi;
    return (int64_t)v;
}

void tensor_store_integer_bits(graft_type t, void *at, int64_t v)
{
    switch (t) {
    case GRAFT_BOOL: { uint8_t x = v != 0; memcpy(at, &x, 1); break; }
    case GRAFT_UINT8: { uint8_t x = (uint8_t)v; memcpy(at, &x, 1); break; }
    case GRAFT_INT8: { int8_t x = (int8_t)v; memcpy(at, &x, 1); break; }
    case GRAFT_UINT16: { uint16_t x = (uint16_t)v; memcpy(at, &x, 2); break; }
    case GRAFT_INT16: { int16_t x = (int16_t)v; memcpy(at, &x, 2); break; }
    case GRAFT_INT32: { int32_t x = (int32_t)v; memcpy(at, &x, 4); break; }
    case GRAFT_UINT32: { uint32_t x = (uint32_t)v; memcpy(at, &x, 4); break; }
    case GRAFT_INT64: memcpy(at, &v, 8); break;
    case GRAFT_UINT64: { uint64_t x = (uint64_t)v; memcpy(at, &x, 8); break; }
    default: break;
    }
}

static double load_f64(graft_type t, const char *p)
{
    switch (t) {
    case GRAFT_BOOL: return *(const uint8_t *)p != 0;
    case GRAFT_HALF: { uint16_t h; memcpy(&h, p, 2); return half_to_float(h); }
    case GRAFT_BF16: { uint16_t h; memcpy(&h, p, 2); return bf16_to_float(h); }
    case GRAFT_FLOAT: { float f; memcpy(&f, p, 4); return f; }
    case GRAFT_DOUBLE: { double d; memcpy(&d, p, 8); return d; }
    case GRAFT_UINT8: return *(const uint8_t *)p;
    case GRAFT_INT8: return *(const int8_t *)p;
    case GRAFT_UINT16: { uint16_t x; memcpy(&x, p, 2); return x; }
    case GRAFT_INT16: { int16_t x; memcpy(&x, p, 2); return x; }
    case GRAFT_INT32: { int32_t x; memcpy(&x, p, 4); return x; }
    case GRAFT_UINT32: { uint32_t x; memcpy(&x, p, 4); return x; }
    case GRAFT_INT64: { int64_t x; memcpy(&x, p, 8); return (double)x; }
    case GRAFT_UINT64: { uint64_t x; memcpy(&x, p, 8); return (double)x; }
    default: return 0;
    }
}

static int64_t load_i64(graft_type t, const char *p)
{
    switch (t) {
    case GRAFT_HALF: case GRAFT_BF16: case GRAFT_FLOAT: case GRAFT_DOUBLE:
        return saturate_to_integer(GRAFT_INT64, load_f64(t, p));
    case GRAFT_BOOL: return *(const uint8_t *)p != 0;
    case GRAFT_UINT8: return *(const uint8_t *)p;
    case GRAFT_INT8: return *(const int8_t *)p;
    case GRAFT_UINT16: { uint16_t x; memcpy(&x, p, 2); return x; }
    case GRAFT_INT16: { int16_t x; memcpy(&x, p, 2); return x; }
    case GRAFT_INT32: { int32_t x; memcpy(&x, p, 4); return x; }
    case GRAFT_UINT32: { uint32_t x; memcpy(&x, p, 4); return x; }
    case GRAFT_INT64: { int64_t x; memcpy(&x, p, 8); return x; }
    case GRAFT_UINT64: { uint64_t x; memcpy(&x, p, 8); return (int64_t)x; }
    default: return 0;
    }
}

static float load_f32(graft_type t, const char *p)
{
    switch (t) {
    case GRAFT_FLOAT: { float f; memcpy(&f, p, 4); return f; }
    case GRAFT_HALF: { uint16_t h; memcpy(&h, p, 2); return half_to_float(h); }
    case GRAFT_BF16: { uint16_t h; memcpy(&h, p, 2); return bf16_to_float(h); }
    default: return (float)load_f64(t, p);
    }
}

static void store_f64(graft_type t, char *p, double v)
{
    switch (t) {
    case GRAFT_HALF: { uint16_t h = float_to_half(double_to_float_odd(v)); memcpy(p, &h, 2); break; }
    case GRAFT_BF16: { uint16_t h = float_to_bf16(double_to_float_odd(v)); memcpy(p, &h, 2); break; }
    case GRAFT_FLOAT: { float f = (float)v; memcpy(p, &f, 4); break; }
    case GRAFT_DOUBLE: memcpy(p, &v, 8); break;
    case GRAFT_BOOL: { uint8_t x = v != 0; memcpy(p, &x, 1); break; }
    default: tensor_store_integer_bits(t, p, saturate_to_integer(t, v)); break;
    }
}

static void store_i64(graft_type t, char *p, int64_t v)
{
    switch (t) {
    case GRAFT_HALF: case GRAFT_BF16: case GRAFT_FLOAT: case GRAFT_DOUBLE:
        store_f64(t, p, (double)v);
        break;
    default: tensor_store_integer_bits(t, p, v); break;
    }
}

static void store_f32(graft_type t, char *p, float v)
{
    switch (t) {
    case GRAFT_FLOAT: memcpy(p, &v, 4); break;
    case GRAFT_HALF: { uint16_t h = float_to_half(v); memcpy(p, &h, 2); break; }
    case GRAFT_BF16: { uint16_t h = float_to_bf16(v); memcpy(p, &h, 2); break; }
    default: store_f64(t, p, v); break;
    }
}

/* ---- single elements by row-major position ---- */

static char *element_address(const tensor *t, int64_t i)
{
    return t->data + shape_index_of_linear(&t->sh, i) * (int64_t)type_size(t->sh.type);
}

double tensor_get_f64(const tensor *t, int64_t i)
{
    return load_f64(t->sh.type, element_address(t, i));
}

int64_t tensor_get_i64(const tensor *t, int64_t i)
{
    return load_i64(t->sh.type, element_address(t, i));
}

void tensor_set_f64(tensor *t, int64_t i, double v)
{
    store_f64(t->sh.type, element_address(t, i), v);
}

void tensor_set_i64(tensor *t, int64_t i, int64_t v)
{
    store_i64(t->sh.type, element_address(t, i), v);
}

/* ---- dense copies ---- */

static size_t dense_count(const tensor *t)
{
    int64_t n = shape_elements(&t->sh);
    return n > 0 ? (size_t)n : 0;
}

/* The first number in a small file (a cgroup's memory.max); false when
 * there is none ("max"). */
static bool read_number(const char *path, uint64_t *out)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    unsigned long long v;
    bool ok = fscanf(f, "%llu", &v) == 1;
    fclose(f);
    *out = v;
    return ok;
}

uint64_t tensor_memory_available(void)
{
    uint64_t avail = UINT64_MAX, swap = 0;
    FILE *f = fopen("/proc/meminfo", "re");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
                avail = (uint64_t)kb * 1024;
            else if (sscanf(line, "SwapFree: %llu kB", &kb) == 1)
                swap = (uint64_t)kb * 1024;
        }
        fclose(f);
        if (avail != UINT64_MAX)
            avail += swap;
    }
    uint64_t max, current;
    if (read_number("/sys/fs/cgroup/memory.max", &max) &&
        read_number("/sys/fs/cgroup/memory.current", &current))
        avail = current < max && max - current < avail ? max - current : avail;
    return avail;
}

void *tensor_alloc(size_t bytes, bool zero)
{
    if (bytes == 0)
        bytes = 1;
    /* Large requests only: reading /proc costs microseconds. */
    if (bytes >= TENSOR_ALLOC_CHECKED && (uint64_t)bytes > tensor_memory_available())
        return NULL;
    return zero ? calloc(1, bytes) : malloc(bytes);
}

/* n elements of size bytes each, at least one byte; NULL on overflow. */
static void *dense_alloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return tensor_alloc(n * size, false);
}

double *tensor_dense_f64(const tensor *t)
{
    size_t n = dense_count(t);
    double *v = dense_alloc(n, sizeof *v);
    if (!v)
        return NULL;
    graft_type type = t->sh.type;
    int64_t esize = (int64_t)type_size(type);
    if (type == GRAFT_FLOAT && shape_standard_p(&t->sh)) {
        const float *src = (const float *)(const void *)t->data;
        for (size_t i = 0; i < n; i++)
            v[i] = src[i];
        return v;
    }
    tensor_walk w;
    tensor_walk_init(&w, &t->sh);
    size_t k = 0;
    for (int64_t r = 0; r < w.rows; r++, tensor_walk_next_row(&w))
        for (int64_t j = 0; j < w.row_len; j++)
            v[k++] = load_f64(type, t->data + (w.offset + j * w.row_stride) * esize);
    return v;
}

int64_t *tensor_dense_i64(const tensor *t)
{
    size_t n = dense_count(t);
    int64_t *v = dense_alloc(n, sizeof *v);
    if (!v)
        return NULL;
    graft_type type = t->sh.type;
    int64_t esize = (int64_t)type_size(type);
    tensor_walk w;
    tensor_walk_init(&w, &t->sh);
    size_t k = 0;
    for (int64_t r = 0; r < w.rows; r++, tensor_walk_next_row(&w))
        for (int64_t j = 0; j < w.row_len; j++)
            v[k++] = load_i64(type, t->data + (w.offset + j * w.row_stride) * esize);
    return v;
}

float *tensor_dense_f32(const tensor *t)
{
    size_t n = dense_count(t);
    float *v = dense_alloc(n, sizeof *v);
    if (!v)
        return NULL;
    graft_type type = t->sh.type;
    int64_t esize = (int64_t)type_size(type);
    if (type == GRAFT_FLOAT && shape_standard_p(&t->sh)) {
        if (n)
            memcpy(v, t->data, n * sizeof *v);
        return v;
    }
    tensor_walk w;
    tensor_walk_init(&w, &t->sh);
    size_t k = 0;
    for (int64_t r = 0; r < w.rows; r++, tensor_walk_next_row(&w)) {
        const char *row = t->data + w.offset * esize;
        if (type == GRAFT_FLOAT && w.row_stride == 1) {
            memcpy(v + k, row, (size_t)w.row_len * sizeof *v);
            k += (size_t)w.row_len;
            continue;
        }
        for (int64_t j = 0; j < w.row_len; j++)
            v[k++] = load_f32(type, row + j * w.row_stride * esize);
    }
    return v;
}

void tensor_store_f64(tensor *t, const double *v)
{
    graft_type type = t->sh.type;
    int64_t esize = (int64_t)type_size(type);
    if (type == GRAFT_FLOAT && shape_standard_p(&t->sh)) {
        float *dst = (float *)(void *)t->data;
        size_t n = dense_count(t);
        for (size_t i = 0; i < n; i++)
            dst[i] = (float)v[i];
        return;
    }
    tensor_walk w;
    tensor_walk_init(&w, &t->sh);
    size_t k = 0;
    for (int64_t r = 0; r < w.rows; r++, tensor_walk_next_row(&w))
        for (int64_t j = 0; j < w.row_len; j++)
            store_f64(type, t->data + (w.offset + j * w.row_stride) * esize, v[k++]);
}

void tensor_store_i64(tensor *t, const int64_t *v)
{
    graft_type type = t->sh.type;
    int64_t esize = (int64_t)type_size(type);
    tensor_walk w;
    tensor_walk_init(&w, &t->sh);
    size_t k = 0;
    for (int64_t r = 0; r < w.rows; r++, tensor_walk_next_row(&w))
        for (int64_t j = 0; j < w.row_len; j++)
            store_i64(type, t->data + (w.offset + j * w.row_stride) * esize, v[k++]);
}

void tensor_store_f32(tensor *t, const float *v)
{
    graft_type type = t->sh.type;
    int64_t esize = (int64_t)type_size(type);
    if (type == GRAFT_FLOAT && shape_standard_p(&t->sh)) {
        size_t n = dense_count(t);
        if (n)
            memcpy(t->data, v, n * sizeof *v);
        return;
    }
    tensor_walk w;
    tensor_walk_init(&w, &t->sh);
    size_t k = 0;
    for (int64_t r = 0; r < w.rows; r++, tensor_walk_next_row(&w)) {
        char *row = t->data + w.offset * esize;
        if (type == GRAFT_FLOAT && w.row_stride == 1) {
            memcpy(row, v + k, (size_t)w.row_len * sizeof *v);
            k += (size_t)w.row_len;
            continue;
        }
        for (int64_t j = 0; j < w.row_len; j++)
            store_f32(type, row + j * w.row_stride * esize, v[k++]);
    }
}

/* ---- layout-changing copies ---- */

static void copy_element(char *dst, const char *src, size_t esize)
{
    switch (esize) {
    case 1: *dst = *src; break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    default: memcpy(dst, src, esize); break;
    }
}

bool tensor_copy(tensor *dst, const tensor *src)
{
    if (dst->sh.type != src->sh.type || shape_elements(&dst->sh) != shape_elements(&src->sh))
        return false;
    size_t esize = type_size(src->sh.type);
    int64_t n = shape_elements(&src->sh);
    if (n <= 0)
        return true;
    if (shape_standard_p(&dst->sh) && shape_standard_p(&src->sh)) {
        memmove(dst->data, src->data, (size_t)n * esize);
        return true;
    }
    /* Two walks in step: rows may differ in length, so step element-wise
     * through the destination and row-wise through the source. */
    tensor_walk ws, wd;
    tensor_walk_init(&ws, &src->sh);
    tensor_walk_init(&wd, &dst->sh);
    int64_t js = 0, jd = 0;
    for (int64_t i = 0; i < n; i++) {
        copy_element(dst->data + (wd.offset + jd * wd.row_stride) * (int64_t)esize,
                     src->data + (ws.offset + js * ws.row_stride) * (int64_t)esize, esize);
        if (++js == ws.row_len) {
            js = 0;
            tensor_walk_next_row(&ws);
        }
        if (++jd == wd.row_len) {
            jd = 0;
            tensor_walk_next_row(&wd);
        }
    }
    return true;
}

/* ---- tuples ---- */

static size_t round_up_16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

size_t tensor_tuple_offset(const shape *tuple, int k)
{
    size_t offset = 0;
    for (int i = 0; i < k && i < tuple->ntuple; i++)
        offset += round_up_16(shape_bytes(&tuple->tuple[i]));
    return offset;
}

size_t tensor_tuple_bytes(const shape *tuple)
{
    return tensor_tuple_offset(tuple, tuple->ntuple);
}
