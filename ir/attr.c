/* attr.c: attribute values: construction, copying, comparison, printing. */
#include "attr.h"
#include "shape.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

attr_value attr_int(int64_t i) { return (attr_value){.kind = ATTR_INT, .u.i = i}; }
attr_value attr_float(double f) { return (attr_value){.kind = ATTR_FLOAT, .u.f = f}; }
attr_value attr_bool(bool b) { return (attr_value){.kind = ATTR_BOOL, .u.i = b ? 1 : 0}; }
attr_value attr_type(graft_type t) { return (attr_value){.kind = ATTR_TYPE, .u.i = t}; }
attr_value attr_string(const char *s) { return (attr_value){.kind = ATTR_STRING, .u.s = s}; }

attr_value attr_ints(const int64_t *v, int n)
{
    return (attr_value){.kind = ATTR_INTS, .n = n, .u.ints = v};
}

attr_value attr_floats(const double *v, int n)
{
    return (attr_value){.kind = ATTR_FLOATS, .n = n, .u.floats = v};
}

attr_value attr_value_copy(arena *a, attr_value v)
{
    switch (v.kind) {
    case ATTR_STRING:
        v.u.s = arena_strdup(a, v.u.s ? v.u.s : "");
        break;
    case ATTR_INTS:
        v.u.ints = arena_dup(a, v.u.ints, (size_t)v.n * sizeof(int64_t));
        break;
    case ATTR_FLOATS:
        v.u.floats = arena_dup(a, v.u.floats, (size_t)v.n * sizeof(double));
        break;
    default:
        break;
    }
    return v;
}

bool attr_value_equal(attr_value a, attr_value b)
{
    if (a.kind != b.kind)
        return false;
    switch (a.kind) {
    case ATTR_INT:
    case ATTR_BOOL:
    case ATTR_TYPE:
        return a.u.i == b.u.i;
    case ATTR_FLOAT:
        return a.u.f == b.u.f || (isnan(a.u.f) && isnan(b.u.f));
    case ATTR_STRING:
        return strcmp(a.u.s ? a.u.s : "", b.u.s ? b.u.s : "") == 0;
    case ATTR_INTS:
        return a.n == b.n && (a.n == 0 || memcmp(a.u.ints, b.u.ints, (size_t)a.n * 8) == 0);
    case ATTR_FLOATS:
        if (a.n != b.n)
            return false;
        for (int i = 0; i < a.n; i++)
            if (a.u.floats[i] != b.u.floats[i])
                return false;
        return true;
    }
    return false;
}

/* The shortest %g form that reads back as exactly f. */
static int print_double(double f, char *buf, size_t size)
{
    if (isnan(f))
        return snprintf(buf, size, "nan");
    if (isinf(f))
        return snprintf(buf, size, f < 0 ? "-inf" : "inf");
    char tmp[64];
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(tmp, sizeof tmp, "%.*g", digits, f);
        if (strtod(tmp, NULL) == f)
            break;
    }
    return snprintf(buf, size, "%s", tmp);
}

static bool is_identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_' || *p == ':' || *p == '.'))
            return false;
    return true;
}

typedef struct sink {
    char *buf;
    size_t size;
    int at;
} sink;

static void put(sink *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sink *k, const char *fmt, ...)
{
    size_t room = (size_t)k->at < k->size ? k->size - (size_t)k->at : 0;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(room ? k->buf + k->at : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        k->at += n;
}

static void put_double(sink *k, double f)
{
    char tmp[64];
    print_double(f, tmp, sizeof tmp);
    put(k, "%s", tmp);
}

int attr_value_print(attr_value v, char *buf, size_t size)
{
    sink k = {buf, size, 0};
    if (size)
        buf[0] = 0;
    switch (v.kind) {
    case ATTR_INT:
    case ATTR_BOOL:
        put(&k, "%lld", (long long)v.u.i);
        break;
    case ATTR_TYPE:
        put(&k, "%s", type_name((graft_type)v.u.i));
        break;
    case ATTR_FLOAT:
        put_double(&k, v.u.f);
        break;
    case ATTR_STRING:
        if (is_identifier(v.u.s)) {
            put(&k, "%s", v.u.s);
        } else {
            put(&k, "\"");
            for (const char *p = v.u.s ? v.u.s : ""; *p; p++) {
                if (*p == '"' || *p == '\\')
                    put(&k, "\\%c", *p);
                else if ((unsigned char)*p < 0x20)
                    put(&k, "\\x%02x", (unsigned char)*p);
                else
                    put(&k, "%c", *p);
            }
            put(&k, "\"");
        }
        break;
    case ATTR_INTS:
        put(&k, "{");
        for (int i = 0; i < v.n; i++)
            put(&k, i ? ", %lld" : "%lld", (long long)v.u.ints[i]);
        put(&k, "}");
        break;
    case ATTR_FLOATS:
        put(&k, "{");
        for (int i = 0; i < v.n; i++) {
            if (i)
                put(&k, ", ");
            put_double(&k, v.u.floats[i]);
        }
        put(&k, "}");
        break;
    }
    return k.at;
}

const attr *attr_find(const attr *attrs, int n, const char *key)
{
    /* A pointer equal to key is an equal key (op_attr_index says why that
     * is worth testing first); the result is strcmp's either way. */
    for (int i = 0; i < n; i++)
        if (attrs[i].key == key || strcmp(attrs[i].key, key) == 0)
            return &attrs[i];
    return NULL;
}

bool double_to_int64(double v, int64_t *out)
{
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
        return false;
    *out = (int64_t)v;
    return true;
}
