/* onnx_read.c: ONNX tensors in and out.
 *
 * A TensorProto can carry its numbers in raw_data, in one of the typed
 * repeated fields (float_data, int32_data, which also holds every 8/16-bit
 * type and bool, int64_data, double_data, uint64_data) or in a file beside the
 * model (data_location EXTERNAL). Everything here checks the element count
 * implied by dims against the data actually present, so a corrupt or hostile
 * file ends in one clear error and never in an out-of-bounds read. The same
 * conversion serves initializers, Constant nodes, attribute tensors and the
 * input_N.pb / output_N.pb files of ONNX backend tests.
 */
#include "onnx_private.h"

#include "dump.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool onnx_type_to_graft(int32_t onnx_type, graft_type *out)
{
    switch (onnx_type) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: *out = GRAFT_FLOAT; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8: *out = GRAFT_UINT8; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: *out = GRAFT_INT8; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16: *out = GRAFT_UINT16; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT16: *out = GRAFT_INT16; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: *out = GRAFT_INT32; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: *out = GRAFT_INT64; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL: *out = GRAFT_BOOL; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16: *out = GRAFT_HALF; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: *out = GRAFT_DOUBLE; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: *out = GRAFT_UINT32; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64: *out = GRAFT_UINT64; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16: *out = GRAFT_BF16; return true;
    default: return false;
    }
}

int32_t onnx_type_from_graft(graft_type t)
{
    switch (t) {
    case GRAFT_FLOAT: return ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    case GRAFT_UINT8: return ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
    case GRAFT_INT8: return ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
    case GRAFT_UINT16: return ONNX__TENSOR_PROTO__DATA_TYPE__UINT16;
    case GRAFT_INT16: return ONNX__TENSOR_PROTO__DATA_TYPE__INT16;
    case GRAFT_INT32: return ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
    case GRAFT_INT64: return ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    case GRAFT_BOOL: return ONNX__TENSOR_PROTO__DATA_TYPE__BOOL;
    case GRAFT_HALF: return ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16;
    case GRAFT_DOUBLE: return ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE;
    case GRAFT_UINT32: return ONNX__TENSOR_PROTO__DATA_TYPE__UINT32;
    case GRAFT_UINT64: return ONNX__TENSOR_PROTO__DATA_TYPE__UINT64;
    case GRAFT_BF16: return ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16;
    default: return ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED;
    }
}

const char *onnx_type_name(int32_t onnx_type)
{
    static const char *const names[] = {
        "undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string",
        "bool", "float16", "double", "uint32", "uint64", "complex64", "complex128", "bfloat16",
        "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "uint4", "int4"};
    if (onnx_type >= 0 && onnx_type < (int32_t)(sizeof names / sizeof names[0]))
        return names[onnx_type];
    return "unknown";
}

/* Stores the low bits of an int32_data entry as one element of type t. */
static void store_from_int32(graft_type t, char *dst, int32_t v)
{
    switch (type_size(t)) {
    case 1: { uint8_t b = (uint8_t)v; if (t == GRAFT_BOOL) b = v != 0; memcpy(dst, &b, 1); break; }
    case 2: { uint16_t h = (uint16_t)v; memcpy(dst, &h, 2); break; }
    default: memcpy(dst, &v, 4); break;
    }
}

/* Where an open file really is: /proc/self/fd names the very file that was
 * opened (no window for a link to change between a check and the open);
 * without /proc, the path resolved. */
static bool opened_path(int fd, const char *path, char *out, size_t size)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, out, size - 1);
    if (n > 0 && (size_t)n < size - 1) {
        out[n] = '\0';
        return true;
    }
    char *real = realpath(path, NULL);
    if (!real)
        return false;
    snprintf(out, size, "%s", real);
    bool fits = strlen(real) < size;
    free(real);
    return fits;
}

/* Opens an external data file for tp, refusing anything that is not a
 * regular file inside the model's directory once symbolic links are
 * followed (a link in the model's directory may point anywhere). */
static FILE *open_external(const Onnx__TensorProto *tp, const char *model_dir, const char *location,
                           graft_error *err)
{
    const char *name = tp->name ? tp->name : "";
    const char *dir = model_dir && *model_dir ? model_dir : ".";
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, location);
    char *real_dir = realpath(dir, NULL);
    if (!real_dir) {
        error_set(err, "tensor '%s': cannot resolve the model's directory %s: %s", name, dir,
                  strerror(errno));
        return NULL;
    }
    /* O_NONBLOCK: opening a FIFO must not hang; it is refused below. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    char real[PATH_MAX];
    struct stat st;
    if (fd < 0) {
        error_set(err, "tensor '%s': cannot open external data %s: %s", name, path,
                  strerror(errno));
    } else if (!opened_path(fd, path, real, sizeof real)) {
        error_set(err, "tensor '%s': cannot resolve external data %s: %s", name, path,
                  strerror(errno));
    } else if (!(strcmp(real_dir, "/") == 0 ||
                 (strncmp(real, real_dir, strlen(real_dir)) == 0 && real[strlen(real_dir)] == '/'))) {
        error_set(err,
                  "tensor '%s': external data location '%s' resolves to %s, outside the model's "
                  "directory %s",
                  name, location, real, real_dir);
    } else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        error_set(err, "tensor '%s': external data %s is not a regular file", name, path);
    } else {
        free(real_dir);
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        FILE *f = fdopen(fd, "rb");
        if (!f) {
            error_set(err, "tensor '%s': cannot open external data %s: %s", name, path,
                      strerror(errno));
            close(fd);
        }
        return f;
    }
    if (fd >= 0)
        close(fd);
    free(real_dir);
    return NULL;
}

/* Reads an external data file into *dst (malloc'd, want bytes): location
 * relative to model_dir, optional offset and length. Paths that climb out
 * of the model's directory are refused, and so is a location that gets out
 * through a symbolic link. The buffer is allocated only once the file is
 * known to hold offset + want bytes, so that a model's dims cannot make
 * graft allocate for data that is not there. */
static bool read_external(const Onnx__TensorProto *tp, const char *model_dir, char **dst,
                          size_t want, graft_error *err)
{
    *dst = NULL;
    const char *location = NULL;
    long long offset = 0, length = -1;
    for (size_t i = 0; i < tp->n_external_data; i++) {
        const Onnx__StringStringEntryProto *kv = tp->external_data[i];
        if (!kv || !kv->key || !kv->value)
            continue;
        char *end = NULL;
        if (strcmp(kv->key, "location") == 0) {
            location = kv->value;
        } else if (strcmp(kv->key, "offset") == 0) {
            errno = 0;
            offset = strtoll(kv->value, &end, 10);
            if (errno || end == kv->value || *end || offset < 0)
                return error_set(err, "tensor '%s': bad external data offset '%s'",
                                 tp->name ? tp->name : "", kv->value);
        } else if (strcmp(kv->key, "length") == 0) {
            errno = 0;
            length = strtoll(kv->value, &end, 10);
            if (errno || end == kv->value || *end || length < 0)
                return error_set(err, "tensor '%s': bad external data length '%s'",
                                 tp->name ? tp->name : "", kv->value);
        }
    }
    if (!location || !*location)
        return error_set(err, "tensor '%s': external data without a location",
                         tp->name ? tp->name : "");
    if (location[0] == '/' || strstr(location, "..") != NULL)
        return error_set(err, "tensor '%s': external data location '%s' leaves the model's directory",
                         tp->name ? tp->name : "", location);
    if (length >= 0 && (size_t)length != want)
        return error_set(err, "tensor '%s': external data length %lld, but dims need %zu bytes",
                         tp->name ? tp->name : "", length, want);
    FILE *f = open_external(tp, model_dir, location, err);
    if (!f)
        return false;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", model_dir && *model_dir ? model_dir : ".", location);
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && ((uint64_t)offset > (uint64_t)st.st_size ||
                                       want > (uint64_t)st.st_size - (uint64_t)offset)) {
        fclose(f);
        return error_set(err, "tensor '%s': external data %s holds %lld bytes, fewer than offset "
                              "%lld + %zu",
                         tp->name ? tp->name : "", path, (long long)st.st_size, offset, want);
    }
    if (!(*dst = malloc(want ? want : 1))) {
        fclose(f);
        return error_set(err, "tensor '%s': out of memory for %zu bytes", tp->name ? tp->name : "",
                         want);
    }
    bool ok = fseeko(f, (off_t)offset, SEEK_SET) == 0 && fread(*dst, 1, want, f) == want;
    fclose(f);
    if (!ok) {
        free(*dst);
        *dst = NULL;
        return error_set(err, "tensor '%s': external data %s is shorter than offset %lld + %zu bytes",
                         tp->name ? tp->name : "", path, offset, want);
    }
    return true;
}

/* With borrowed NULL the data is always copied; otherwise raw_data that
 * needs no conversion is lent (*borrowed true). */
static bool tensor_from_proto(const Onnx__TensorProto *tp, const char *model_dir, tensor *out,
                              bool *borrowed, graft_error *err)
{
    memset(out, 0, sizeof *out);
    if (borrowed)
        *borrowed = false;
    const char *name = tp->name ? tp->name : "";
    graft_type t;
    if (!onnx_type_to_graft(tp->data_type, &t))
        return error_set(err, "tensor '%s': unsupported tensor type %s", name,
                         onnx_type_name(tp->data_type));
    if (tp->n_dims > SHAPE_MAX_RANK)
        return error_set(err, "tensor '%s': rank %zu exceeds graft's maximum %d", name, tp->n_dims,
                         SHAPE_MAX_RANK);
    int64_t lens[SHAPE_MAX_RANK];
    int rank = (int)tp->n_dims;
    /* count: the elements; extent: the product of the lengths other than 0,
     * which the strides of an empty tensor reach too */
    uint64_t count = 1, extent = 1;
    for (int i = 0; i < rank; i++) {
        if (tp->dims[i] < 0)
            return error_set(err, "tensor '%s': negative dimension %lld", name,
                             (long long)tp->dims[i]);
        lens[i] = tp->dims[i];
        if (lens[i] && extent > ((uint64_t)1 << 40) / (uint64_t)lens[i])
            return error_set(err, "tensor '%s': too many elements", name);
        count *= (uint64_t)lens[i];
        extent *= lens[i] ? (uint64_t)lens[i] : 1;
    }
    if (rank == 0) {
        rank = 1;
        lens[0] = 1;
    }
    size_t esize = type_size(t);
    size_t bytes = (size_t)count * esize;
    if (tp->segment)
        return error_set(err, "tensor '%s': segmented tensors are not supported", name);
    /* Check that the data is there before allocating for it, so that a
     * hostile dims list cannot ask for terabytes. */
    bool external =
        tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    const char *field = NULL;
    size_t present = 0;
    if (tp->has_raw_data) {
        field = "raw_data";
        present = tp->raw_data.len / (esize ? esize : 1);
        if (tp->raw_data.len % esize)
            present = (size_t)-1;
    } else if (tp->n_float_data) {
        field = "float_data", present = tp->n_float_data;
    } else if (tp->n_int32_data) {
        field = "int32_data", present = tp->n_int32_data;
    } else if (tp->n_int64_data) {
        field = "int64_data", present = tp->n_int64_data;
    } else if (tp->n_double_data) {
        field = "double_data", present = tp->n_double_data;
    } else if (tp->n_uint64_data) {
        field = "uint64_data", present = tp->n_uint64_data;
    }
    if (!external && field && present != count)
        return error_set(err, "tensor '%s': %s holds %s%zu values, but dims need %llu", name, field,
                         present == (size_t)-1 ? "a partial number of " : "",
                         present == (size_t)-1 ? tp->raw_data.len : present,
                         (unsigned long long)count);
    if (!external && !field && count)
        return error_set(err, "tensor '%s': no data for %llu elements", name,
                         (unsigned long long)count);
    if (external && bytes > ((size_t)1 << 34))
        return error_set(err, "tensor '%s': external data of %zu bytes is too large", name, bytes);
    /* raw_data is little-endian element bytes, graft's own layout (the copy
     * below is a plain memcpy too): lend it rather than copy it. */
    if (borrowed && !external && tp->has_raw_data && bytes && tp->raw_data.len == bytes) {
        out->sh = shape_standard(t, rank, lens);
        out->data = (char *)tp->raw_data.data;
        *borrowed = true;
        return true;
    }
    /* external data is allocated by read_external, once the file is known
     * to hold it; the other fields are there, counted above */
    char *data = NULL;
    bool ok = true;
    if (external) {
        if (!read_external(tp, model_dir, &data, bytes, err))
            return false;
    } else if (!(data = malloc(bytes ? bytes : 1))) {
        return error_set(err, "tensor '%s': out of memory for %zu bytes", name, bytes);
    } else if (tp->has_raw_data) {
        if (tp->raw_data.len != bytes)
            ok = error_set(err, "tensor '%s': raw_data holds %zu bytes, but dims need %zu", name,
                           tp->raw_data.len, bytes);
        else if (bytes)
            memcpy(data, tp->raw_data.data, bytes);
    } else if (tp->n_float_data) {
        if (t != GRAFT_FLOAT)
            ok = error_set(err, "tensor '%s': float_data in a %s tensor", name, type_name(t));
        else if (tp->n_float_data != count)
            ok = error_set(err, "tensor '%s': %zu floats, but dims need %llu", name,
                           tp->n_float_data, (unsigned long long)count);
        else
            memcpy(data, tp->float_data, bytes);
    } else if (tp->n_int32_data) {
        if (tp->n_int32_data != count)
            ok = error_set(err, "tensor '%s': %zu int32_data entries, but dims need %llu", name,
                           tp->n_int32_data, (unsigned long long)count);
        else if (type_size(t) > 4 || t == GRAFT_FLOAT || t == GRAFT_UINT32)
            ok = error_set(err, "tensor '%s': int32_data in a %s tensor", name, type_name(t));
        else
            for (size_t i = 0; i < count; i++)
                store_from_int32(t, data + i * esize, tp->int32_data[i]);
    } else if (tp->n_int64_data) {
        if (t != GRAFT_INT64)
            ok = error_set(err, "tensor '%s': int64_data in a %s tensor", name, type_name(t));
        else if (tp->n_int64_data != count)
            ok = error_set(err, "tensor '%s': %zu int64_data entries, but dims need %llu", name,
                           tp->n_int64_data, (unsigned long long)count);
        else
            memcpy(data, tp->int64_data, bytes);
    } else if (tp->n_double_data) {
        if (t != GRAFT_DOUBLE)
            ok = error_set(err, "tensor '%s': double_data in a %s tensor", name, type_name(t));
        else if (tp->n_double_data != count)
            ok = error_set(err, "tensor '%s': %zu doubles, but dims need %llu", name,
                           tp->n_double_data, (unsigned long long)count);
        else
            memcpy(data, tp->double_data, bytes);
    } else if (tp->n_uint64_data) {
        if (t != GRAFT_UINT64 && t != GRAFT_UINT32)
            ok = error_set(err, "tensor '%s': uint64_data in a %s tensor", name, type_name(t));
        else if (tp->n_uint64_data != count)
            ok = error_set(err, "tensor '%s': %zu uint64_data entries, but dims need %llu", name,
                           tp->n_uint64_data, (unsigned long long)count);
        else
            for (size_t i = 0; i < count; i++) {
                if (t == GRAFT_UINT64) {
                    memcpy(data + i * 8, &tp->uint64_data[i], 8);
                } else {
                    uint32_t v = (uint32_t)tp->uint64_data[i];
                    memcpy(data + i * 4, &v, 4);
                }
            }
    } else if (count != 0) {
        ok = error_set(err, "tensor '%s': no data for %llu elements", name,
                       (unsigned long long)count);
    }
    if (!ok) {
        free(data);
        return false;
    }
    out->sh = shape_standard(t, rank, lens);
    out->data = data;
    return true;
}

bool onnx_tensor_from_proto(const Onnx__TensorProto *tp, const char *model_dir, tensor *out,
                            graft_error *err)
{
    return tensor_from_proto(tp, model_dir, out, NULL, err);
}

bool onnx_tensor_view_from_proto(const Onnx__TensorProto *tp, const char *model_dir, tensor *out,
                                 bool *borrowed, graft_error *err)
{
    return tensor_from_proto(tp, model_dir, out, borrowed, err);
}

/* Reads a whole file into a malloc'd buffer. */
static unsigned char *slurp(const char *path, size_t *len, graft_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        error_set(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    bool bad;
    unsigned char *buf = read_stream_bytes(f, 0, len, &bad);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        error_set(err, "%s: cannot read", path);
        return NULL;
    }
    return buf;
}

void onnx_model_dir(const char *path, char *dir, size_t size)
{
    snprintf(dir, size, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(dir, size, ".");
}

bool onnx_read_tensor_file(const char *path, tensor *t, char **name, graft_error *err)
{
    memset(t, 0, sizeof *t);
    if (name)
        *name = NULL;
    size_t len = 0;
    unsigned char *bytes = slurp(path, &len, err);
    if (!bytes)
        return false;
    Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, len, bytes);
    free(bytes);
    if (!tp)
        return error_set(err, "%s: not a valid ONNX TensorProto (corrupt or truncated)", path);
    char dir[4096];
    onnx_model_dir(path, dir, sizeof dir);
    bool ok = onnx_tensor_from_proto(tp, dir, t, err);
    if (!ok)
        error_prefix(err, "%s", path);
    if (ok && name) {
        *name = strdup(tp->name ? tp->name : "");
        if (!*name) {
            free(t->data);
            t->data = NULL;
            ok = error_set(err, "%s: out of memory", path);
        }
    }
    onnx__tensor_proto__free_unpacked(tp, NULL);
    return ok;
}

bool onnx_write_tensor_file(const char *path, const char *name, const tensor *t, graft_error *err)
{
    int32_t dt = onnx_type_from_graft(t->sh.type);
    if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED)
        return error_set(err, "%s: cannot write a %s tensor as ONNX", path, type_name(t->sh.type));
    Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
    int64_t dims[SHAPE_MAX_RANK];
    for (int i = 0; i < t->sh.rank; i++)
        dims[i] = t->sh.lens[i];
    tp.n_dims = (size_t)t->sh.rank;
    tp.dims = dims;
    tp.has_data_type = true;
    tp.data_type = dt;
    tp.name = (char *)(name ? name : "");
    size_t esize = type_size(t->sh.type);
    int64_t count = shape_elements(&t->sh);
    size_t bytes = (size_t)count * esize;
    unsigned char *raw = malloc(bytes ? bytes : 1);
    if (!raw)
        return error_set(err, "%s: out of memory", path);
    for (int64_t i = 0; i < count; i++)
        memcpy(raw + (size_t)i * esize, t->data + shape_index_of_linear(&t->sh, i) * (int64_t)esize,
               esize);
    tp.has_raw_data = true;
    tp.raw_data.len = bytes;
    tp.raw_data.data = raw;
    size_t packed_len = onnx__tensor_proto__get_packed_size(&tp);
    unsigned char *packed = malloc(packed_len ? packed_len : 1);
    if (!packed) {
        free(raw);
        return error_set(err, "%s: out of memory", path);
    }
    onnx__tensor_proto__pack(&tp, packed);
    free(raw);
    bool ok = write_file_atomic(path, packed, packed_len, err);
    free(packed);
    return ok;
}
