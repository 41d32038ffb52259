/* dump_read.c: turns dump text into a graph (docs/dump-format.md).
 *
 * Owns dump_read and its helpers: it runs the parser (dump_parse.y) over a
 * NUL-terminated copy of the text, then builds the graph from the syntax
 * tree through ir/ir.h. Building checks everything the grammar cannot:
 * names (defined before use, no duplicates), modules (defined somewhere,
 * no cycles; a submodule is built before the instructions that use it, so
 * region shapes can be computed), ops (known ops get their attributes
 * normalised and their shape computed and compared with the dump's; unknown
 * ops become opaque and need their shape written), literal values and
 * shapes. Every error is one message at the offending token's
 * file:line:column, and on error everything allocated is freed.
 */
#include "base64.h"
#include "dump.h"
#include "dump_syntax.h"
#include "hash.h"
#include "random.h"
#include "tensor.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared with the lexer, parser and writer ---- */

/* The first error of a parse wins. */
static bool dump_error_atv(dump_parse_state *st, dump_span at, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static bool dump_error_atv(dump_parse_state *st, dump_span at, const char *fmt, va_list ap)
{
    if (st->failed)
        return false;
    st->failed = true;
    return error_atv(st->err, st->filename, at.line, at.col, fmt, ap);
}

bool dump_error_at(dump_parse_state *st, dump_span at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dump_error_atv(st, at, fmt, ap);
    va_end(ap);
    return false;
}

char *dump_unquote(arena *a, dump_span tok, size_t *len)
{
    const char *p = tok.p + 1, *end = tok.p + tok.len - 1;
    char *out = arena_alloc(a, (size_t)tok.len);
    if (!out)
        return NULL;
    size_t n = 0;
    while (p < end) {
        char c = *p++;
        if (c == '\\' && p < end) {
            c = *p++;
            if (c == 'n')
                c = '\n';
            else if (c == 't')
                c = '\t';
        }
        out[n++] = c;
    }
    out[n] = 0;
    *len = n;
    return out;
}

static bool word_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '@';
}

static bool word_char(char c)
{
    return word_start(c) || (c >= '0' && c <= '9') || c == '.' || c == ':' || c == '/';
}

bool dump_is_word(const char *s, size_t len)
{
    if (len == 0 || !word_start(s[0]))
        return false;
    for (size_t k = 1; k < len; k++) {
        if (s[k] == '-' && k + 1 < len && word_char(s[k + 1]))
            k++;
        else if (!word_char(s[k]))
            return false;
    }
    /* spellings the lexer reads as other tokens */
    if ((len == 7 && memcmp(s, "module:", 7) == 0) || (len >= 7 && memcmp(s, "@param:", 7) == 0))
        return false;
    /* "b64:" followed by base64 characters only is base64 data; a longer
     * word wins over it */
    if (len >= 4 && memcmp(s, "b64:", 4) == 0) {
        for (size_t k = 4; k < len; k++)
            if (s[k] == '_' || s[k] == '@' || s[k] == '.' || s[k] == ':' || s[k] == '-')
                return true;
        return false;
    }
    return true;
}

bool dump_is_param_name(const char *s, size_t len)
{
    if (len == 0)
        return false;
    for (size_t k = 0; k < len; k++) {
        if (s[k] == '-' && k + 1 < len && word_char(s[k + 1]))
            k++;
        else if (!word_char(s[k]))
            return false;
    }
    return true;
}

/* ---- small helpers ---- */

static bool span_is(dump_span s, const char *text)
{
    size_t n = strlen(text);
    return (size_t)s.len == n && memcmp(s.p, text, n) == 0;
}

/* A string-keyed table over spans of the input (names, modules). */
typedef struct table_slot {
    const char *p;
    int len;
    bool alias;     /* a name's unprefixed spelling, not a definition */
    int line;
    void *value;
} table_slot;

typedef struct table {
    table_slot *slots;
    size_t cap;
} table;

static bool table_init(table *t, size_t entries)
{
    size_t cap = 16;
    while (cap < entries * 2 + 2)
        cap *= 2;
    t->slots = calloc(cap, sizeof *t->slots);
    t->cap = cap;
    return t->slots != NULL;
}

static void table_free(table *t)
{
    free(t->slots);
    t->slots = NULL;
}

static table_slot *table_slot_for(const table *t, const char *p, int len)
{
    size_t mask = t->cap - 1;
    for (size_t k = (size_t)hash_bytes(HASH_FNV_OFFSET, p, (size_t)len) & mask;; k = (k + 1) & mask) {
        table_slot *s = &t->slots[k];
        if (!s->p || (s->len == len && memcmp(s->p, p, (size_t)len) == 0))
            return s;
    }
}

static table_slot *table_find(const table *t, const char *p, int len)
{
    table_slot *s = table_slot_for(t, p, len);
    return s->p ? s : NULL;
}

/* ---- reading numbers ---- */

typedef struct builder {
    dump_parse_state *st;
    graph *g;
    size_t literal_bytes;       /* literal data created so far */
    size_t max_literal_bytes;
    const dump_read_options *opts; /* its built hook sees each instruction built (build_stmt) */
} builder;

static bool fail_at(builder *b, dump_span at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail_at(builder *b, dump_span at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dump_error_atv(b->st, at, fmt, ap);
    va_end(ap);
    return false;
}

static bool out_of_memory(builder *b, dump_span at) { return fail_at(b, at, "out of memory"); }

/* Copies a number token into buf NUL-terminated. */
static bool token_text(builder *b, dump_span t, char *buf, size_t size)
{
    if ((size_t)t.len >= size)
        return fail_at(b, t, "number '%.20s...' is too long", t.p);
    memcpy(buf, t.p, (size_t)t.len);
    buf[t.len] = 0;
    return true;
}

static bool parse_int64(builder *b, const dump_value *v, int64_t *out)
{
    char buf[64];
    if (v->kind != DUMP_INT)
        return fail_at(b, v->tok, "expected an integer, found '%.*s'", v->tok.len, v->tok.p);
    /* Up to 18 digits cannot overflow: read them here; strtoll for the rest. */
    const char *p = v->tok.p;
    int len = v->tok.len, neg = len > 1 && p[0] == '-';
    if (len - neg <= 18) {
        int64_t x = 0;
        for (int k = neg; k < len; k++)
            x = x * 10 + (p[k] - '0');
        *out = neg ? -x : x;
        return true;
    }
    if (!token_text(b, v->tok, buf, sizeof buf))
        return false;
    errno = 0;
    char *end;
    long long x = strtoll(buf, &end, 10);
    if (errno == ERANGE || *end)
        return fail_at(b, v->tok, "integer %s is out of range", buf);
    *out = x;
    return true;
}

static bool is_number_word(dump_span t)
{
    return span_is(t, "inf") || span_is(t, "nan");
}

/* A number value (integer, float, inf, nan) as a double; as_float parses
 * with float precision directly, so that a float round-trips exactly. */
static bool parse_real(builder *b, const dump_value *v, bool as_float, double *out)
{
    char buf[128];
    if (v->kind != DUMP_INT && v->kind != DUMP_FLOAT &&
        !(v->kind == DUMP_WORD && is_number_word(v->tok)))
        return fail_at(b, v->tok, "expected a number, found '%.*s'", v->tok.len, v->tok.p);
    if (!token_text(b, v->tok, buf, sizeof buf))
        return false;
    char *end;
    *out = as_float ? (double)strtof(buf, &end) : strtod(buf, &end);
    if (*end)
        return fail_at(b, v->tok, "bad number '%s'", buf);
    return true;
}

/* ---- element types, MIGraphX's numbering ---- */

/* MIGraphX numbers its types bool=0 ... uint64=11 (graft's order), then
 * fp8 types at 12, 13, 14, bf16 at 15 and fp8e5m2fnuz at 16. */
static bool type_from_migraphx_number(int64_t n, graft_type *t)
{
    if (n >= 0 && n <= GRAFT_UINT64) {
        *t = (graft_type)n;
        return true;
    }
    if (n == 15) {
        *t = GRAFT_BF16;
        return true;
    }
    return false;
}

static const char *const type_list =
    "bool_type, half_type, bf16_type, float_type, double_type, int8_type, uint8_type, "
    "int16_type, uint16_type, int32_type, uint32_type, int64_type or uint64_type";

/* ---- shapes ---- */

enum { TUPLE_DEPTH_MAX = 8 };
#define SHAPE_SIZE_MAX ((int64_t)1 << 50)

static bool read_dims(builder *b, const dump_value *list, int64_t *out, int *n, const char *what)
{
    int k = 0;
    for (const dump_value *v = list->items; v; v = v->next, k++) {
        if (k >= SHAPE_MAX_RANK)
            return fail_at(b, v->tok, "a shape has at most %d dimensions", SHAPE_MAX_RANK);
        if (v->kind != DUMP_INT)
            return fail_at(b, v->tok, "expected an integer %s, found '%.*s'", what, v->tok.len,
                           v->tok.p);
        if (!parse_int64(b, v, &out[k]))
            return false;
        if (out[k] < 0)
            return fail_at(b, v->tok, "a %s cannot be negative", what);
        if (out[k] > SHAPE_SIZE_MAX)
            return fail_at(b, v->tok, "%s %lld is too large", what, (long long)out[k]);
    }
    *n = k;
    return true;
}

static bool build_shape(builder *b, const dump_shape *ds, shape *out, int depth)
{
    memset(out, 0, sizeof *out);
    if (ds->tuple) {
        if (depth >= TUPLE_DEPTH_MAX)
            return fail_at(b, ds->at, "tuple shapes nest more than %d deep", TUPLE_DEPTH_MAX);
        shape *sub = NULL;
        if (ds->nelems) {
            sub = arena_alloc(&b->g->mem, (size_t)ds->nelems * sizeof *sub);
            if (!sub)
                return out_of_memory(b, ds->at);
        }
        int k = 0;
        for (const dump_shape *e = ds->elems; e; e = e->next, k++)
            if (!build_shape(b, e, &sub[k], depth + 1))
                return false;
        out->type = GRAFT_TUPLE;
        out->ntuple = ds->nelems;
        out->tuple = sub;
        return true;
    }
    graft_type t;
    if (!type_from_name(ds->type.p, (size_t)ds->type.len, &t) || t == GRAFT_TUPLE)
        return fail_at(b, ds->type, "unknown type '%.*s' (expected %s)", ds->type.len, ds->type.p,
                       type_list);
    int64_t lens[SHAPE_MAX_RANK], strides[SHAPE_MAX_RANK];
    int nlens, nstrides;
    if (ds->dims_read) {
        nlens = ds->nlens;
        nstrides = ds->nstrides;
        memcpy(lens, ds->dims, (size_t)nlens * sizeof *lens);
        memcpy(strides, ds->dims + nlens, (size_t)nstrides * sizeof *strides);
    } else if (!read_dims(b, ds->lens, lens, &nlens, "length") ||
               !read_dims(b, ds->strides, strides, &nstrides, "stride")) {
        return false;
    }
    if (nlens == 0)
        return fail_at(b, ds->lens->tok, "a shape needs at least one length (a scalar is {1}, {0})");
    if (nstrides != nlens)
        return fail_at(b, ds->strides->tok, "the shape has %d length%s but %d stride%s", nlens,
                       nlens == 1 ? "" : "s", nstrides, nstrides == 1 ? "" : "s");
    /* elements and element space must stay far from overflow */
    int64_t elements = 1, space = 1;
    for (int k = 0; k < nlens; k++) {
        if (lens[k] == 0) {
            elements = 0;
            continue;
        }
        if (elements > SHAPE_SIZE_MAX / lens[k])
            return fail_at(b, ds->lens->tok, "the shape has too many elements");
        elements *= lens[k];
        if (lens[k] > 1 && strides[k] > (SHAPE_SIZE_MAX - space) / (lens[k] - 1))
            return fail_at(b, ds->strides->tok, "the shape's strides span too much memory");
        space += (lens[k] - 1) * strides[k];
    }
    *out = shape_with_strides(t, nlens, lens, strides);
    return true;
}

static int print_shape(const shape *s, char *buf, size_t size)
{
    return shape_print(s, buf, size);
}

/* ---- literal values ---- */

void dump_store_real(graft_type t, double d, void *at)
{
    switch (t) {
    case GRAFT_HALF: { uint16_t h = float_to_half((float)d); memcpy(at, &h, 2); break; }
    case GRAFT_BF16: { uint16_t h = float_to_bf16((float)d); memcpy(at, &h, 2); break; }
    case GRAFT_FLOAT: { float f = (float)d; memcpy(at, &f, 4); break; }
    case GRAFT_DOUBLE: memcpy(at, &d, 8); break;
    default: break;
    }
}

bool dump_int_fits(graft_type t, int64_t v)
{
    switch (t) {
    case GRAFT_BOOL: return v == 0 || v == 1;
    case GRAFT_UINT8: return v >= 0 && v <= UINT8_MAX;
    case GRAFT_INT8: return v >= INT8_MIN && v <= INT8_MAX;
    case GRAFT_UINT16: return v >= 0 && v <= UINT16_MAX;
    case GRAFT_INT16: return v >= INT16_MIN && v <= INT16_MAX;
    case GRAFT_UINT32: return v >= 0 && v <= UINT32_MAX;
    case GRAFT_INT32: return v >= INT32_MIN && v <= INT32_MAX;
    case GRAFT_UINT64: return v >= 0;
    default: return true;
    }
}

/* dump_int_fits, for a number that may have been read as an unsigned value
 * above INT64_MAX (big_unsigned): only uint64 holds one of those. */
static bool int_fits(graft_type t, int64_t v, bool big_unsigned)
{
    return big_unsigned ? t == GRAFT_UINT64 : dump_int_fits(t, v);
}

/* Stores one written value at `at` as type t. */
static bool store_value(builder *b, graft_type t, const dump_value *v, void *at)
{
    if (type_is_float(t)) {
        double d;
        if (!parse_real(b, v, t != GRAFT_DOUBLE, &d))
            return false;
        dump_store_real(t, d, at);
        return true;
    }
    if (t == GRAFT_BOOL && v->kind == DUMP_WORD && (span_is(v->tok, "true") || span_is(v->tok, "false"))) {
        tensor_store_integer_bits(t, at, span_is(v->tok, "true"));
        return true;
    }
    if (v->kind != DUMP_INT)
        return fail_at(b, v->tok, "expected an integer for %s, found '%.*s'", type_name(t),
                       v->tok.len, v->tok.p);
    char buf[64];
    if (!token_text(b, v->tok, buf, sizeof buf))
        return false;
    errno = 0;
    char *end;
    int64_t x = 0;
    bool big = false;
    if (t == GRAFT_UINT64 && buf[0] != '-') {
        unsigned long long u = strtoull(buf, &end, 10);
        big = u > INT64_MAX;
        x = (int64_t)u;
    } else {
        x = strtoll(buf, &end, 10);
    }
    if (errno == ERANGE || *end || !int_fits(t, x, big))
        return fail_at(b, v->tok, "value %s is out of range for %s", buf, type_name(t));
    tensor_store_integer_bits(t, at, x);
    return true;
}

void dump_fill_generated(const shape *sh, uint64_t state, void *data)
{
    int64_t space = shape_element_space(sh);
    size_t size = type_size(sh->type);
    for (int64_t k = 0; k < space; k++) {
        uint64_t r = random_next(&state);
        void *at = (char *)data + (size_t)k * size;
        if (type_is_float(sh->type))
            dump_store_real(sh->type, (double)((int)(r >> 56) - 128) / 128.0, at);
        else if (sh->type == GRAFT_BOOL)
            tensor_store_integer_bits(sh->type, at, (int64_t)(r >> 63));
        else
            tensor_store_integer_bits(sh->type, at, (int64_t)(r >> 62));
    }
}

/* `{ ... }`: the generated data (dump_fill_generated) seeded with the FNV-1a
 * hash of the instruction's name as written. */
static void fill_elided(const char *name, size_t name_len, const shape *sh, char *data)
{
    dump_fill_generated(sh, hash_bytes(HASH_FNV_OFFSET, name, name_len), data);
}

/* Decodes `b64:...` into data (exactly `bytes` long). */
static bool decode_base64(builder *b, dump_span tok, const shape *sh, size_t bytes, char *data)
{
    const char *p = tok.p + 4;
    size_t n = (size_t)tok.len - 4;
    size_t got;
    if (!base64_decoded_size(p, n, &got))
        return fail_at(b, tok, "bad base64 data (expected groups of 4 characters from "
                               "A-Z a-z 0-9 + /, '=' padding only at the end)");
    if (got != bytes) {
        char s[256];
        print_shape(sh, s, sizeof s);
        return fail_at(b, tok, "the base64 data holds %zu bytes, but a literal of shape %s needs %zu",
                       got, s, bytes);
    }
    base64_decode(p, n, data, bytes);
    return true;
}

/* Literal data for a statement: malloc'd (the caller frees it). */
static char *build_literal_data(builder *b, const dump_stmt *s, const shape *sh)
{
    const dump_literal *lit = s->literal;
    size_t bytes = shape_bytes(sh);
    if (bytes > b->max_literal_bytes - b->literal_bytes) {
        fail_at(b, lit->at, "literal data over the limit of %zu bytes", b->max_literal_bytes);
        return NULL;
    }
    b->literal_bytes += bytes;
    char *data = calloc(bytes ? bytes : 1, 1);
    if (!data) {
        out_of_memory(b, lit->at);
        return NULL;
    }
    int64_t elements = shape_elements(sh), space = shape_element_space(sh);
    size_t size = type_size(sh->type);
    bool ok = true;
    switch (lit->kind) {
    case DUMP_LIT_ELIDED:
        fill_elided(s->name.p, (size_t)s->name.len, sh, data);
        break;
    case DUMP_LIT_BASE64:
        ok = decode_base64(b, lit->base64, sh, bytes, data);
        break;
    case DUMP_LIT_VALUES: {
        int64_t n = lit->nvalues;
        bool logical = n == elements;
        if (n == 0 && (elements == 0 || space == 0))
            break;
        if (!logical && n != space) {
            char t[256];
            print_shape(sh, t, sizeof t);
            ok = fail_at(b, lit->at, "the literal has %lld values, but its shape %s holds %lld",
                         (long long)n, t, (long long)elements);
            break;
        }
        int64_t k = 0;
        for (const dump_value *v = lit->values; ok && v; v = v->next, k++) {
            int64_t off = logical ? shape_index_of_linear(sh, k) : k;
            ok = store_value(b, sh->type, v, data + (size_t)off * size);
        }
        break;
    }
    }
    if (!ok) {
        free(data);
        return NULL;
    }
    return data;
}

/* ---- attributes ---- */

/* The attributes a statement is read into (build_attrs and the values
 * below), and an unknown op's name, live in the scratch arena, which is
 * reset after each statement of the fast path: module_add and
 * module_add_opaque copy what they keep into the graph's arena (attr keys
 * from the op's spec or strdup'd, values by attr_value_copy, the opname by
 * strdup), and nothing holds the reader's copies after the instruction is
 * built. In the graph's arena they were 48-80 dead bytes between
 * consecutive instructions (the attr array, its key, the int list), which
 * every later walk over the module steps over: a dump read 100k
 * instructions 560 bytes apart where the same graph built in memory has
 * them 464 apart (now 480: the name), and its first CSE took ~1 ms more. */
static arena *scratch(builder *b) { return &b->st->scratch; }

static char *copy_span_in(builder *b, arena *a, dump_span t)
{
    char *s = arena_strndup(a, t.p, (size_t)t.len);
    if (!s)
        out_of_memory(b, t);
    return s;
}

static char *copy_span(builder *b, dump_span t) { return copy_span_in(b, &b->g->mem, t); }

static char *string_value(builder *b, const dump_value *v)
{
    if (v->kind != DUMP_STRING)
        return copy_span_in(b, scratch(b), v->tok);
    size_t len;
    char *s = dump_unquote(scratch(b), v->tok, &len);
    if (!s)
        out_of_memory(b, v->tok);
    return s;
}

static bool list_of_ints(builder *b, const dump_value *v, attr_value *out)
{
    int64_t *ints = arena_alloc(scratch(b), (size_t)(v->nitems ? v->nitems : 1) * sizeof *ints);
    if (!ints)
        return out_of_memory(b, v->tok);
    int k = 0;
    for (const dump_value *e = v->items; e; e = e->next, k++)
        if (!parse_int64(b, e, &ints[k]))
            return false;
    *out = attr_ints(ints, v->nitems);
    return true;
}

static bool list_of_reals(builder *b, const dump_value *v, attr_value *out)
{
    double *f = arena_alloc(scratch(b), (size_t)(v->nitems ? v->nitems : 1) * sizeof *f);
    if (!f)
        return out_of_memory(b, v->tok);
    int k = 0;
    for (const dump_value *e = v->items; e; e = e->next, k++)
        if (!parse_real(b, e, false, &f[k]))
            return false;
    *out = attr_floats(f, v->nitems);
    return true;
}

/* An unknown op's attribute, typed by how it is written. */
static bool opaque_attr_value(builder *b, const dump_value *v, attr_value *out)
{
    switch (v->kind) {
    case DUMP_INT: {
        int64_t i;
        if (!parse_int64(b, v, &i))
            return false;
        *out = attr_int(i);
        return true;
    }
    case DUMP_FLOAT: {
        double d;
        if (!parse_real(b, v, false, &d))
            return false;
        *out = attr_float(d);
        return true;
    }
    case DUMP_WORD:
        if (is_number_word(v->tok)) {
            double d;
            if (!parse_real(b, v, false, &d))
                return false;
            *out = attr_float(d);
            return true;
        }
        /* fall through */
    case DUMP_STRING: {
        char *s = string_value(b, v);
        if (!s)
            return false;
        *out = attr_string(s);
        return true;
    }
    case DUMP_LIST: {
        bool reals = false;
        for (const dump_value *e = v->items; e; e = e->next) {
            if (e->kind == DUMP_FLOAT || (e->kind == DUMP_WORD && is_number_word(e->tok)))
                reals = true;
            else if (e->kind != DUMP_INT)
                return fail_at(b, e->tok, "a list holds numbers only, found '%.*s'", e->tok.len,
                               e->tok.p);
        }
        return reals ? list_of_reals(b, v, out) : list_of_ints(b, v, out);
    }
    }
    return false;
}

static bool expected_kind(builder *b, const op_def *op, const attr_spec *spec, const dump_value *v,
                          const char *what)
{
    return fail_at(b, v->tok, "attribute %s of %s expects %s, found '%.*s'", spec->name, op->name,
                   what, v->tok.len, v->tok.p);
}

/* A known op's attribute, converted to the kind its spec declares. */
static bool known_attr_value(builder *b, const op_def *op, const attr_spec *spec,
                             const dump_value *v, attr_value *out)
{
    switch (spec->kind) {
    case ATTR_INT:
        if (v->kind == DUMP_INT) {
            int64_t i;
            if (!parse_int64(b, v, &i))
                return false;
            *out = attr_int(i);
            return true;
        }
        if (spec->enum_names && v->kind == DUMP_WORD) {
            int e = op_enum_value(spec, v->tok.p, (size_t)v->tok.len);
            if (e >= 0) {
                *out = attr_int(e);
                return true;
            }
        }
        if (spec->enum_names) {
            char names[512];
            op_enum_names_text(spec, names, sizeof names);
            return fail_at(b, v->tok, "attribute %s of %s: unknown value '%.*s' (expected one of "
                                      "%s, or its number)",
                           spec->name, op->name, v->tok.len, v->tok.p, names);
        }
        return expected_kind(b, op, spec, v, "an integer");
    case ATTR_FLOAT: {
        double d;
        if (v->kind == DUMP_LIST)
            return expected_kind(b, op, spec, v, "a number");
        if (!parse_real(b, v, false, &d))
            return false;
        *out = attr_float(d);
        return true;
    }
    case ATTR_BOOL:
        if (v->kind == DUMP_INT && (span_is(v->tok, "0") || span_is(v->tok, "1")))
            *out = attr_bool(v->tok.p[0] == '1');
        else if (v->kind == DUMP_WORD && (span_is(v->tok, "true") || span_is(v->tok, "false")))
            *out = attr_bool(v->tok.p[0] == 't');
        else
            return expected_kind(b, op, spec, v, "0 or 1");
        return true;
    case ATTR_STRING: {
        if (v->kind == DUMP_LIST)
            return expected_kind(b, op, spec, v, "a name or a string");
        char *s = string_value(b, v);
        if (!s)
            return false;
        *out = attr_string(s);
        return true;
    }
    case ATTR_INTS:
        if (v->kind != DUMP_LIST)
            return expected_kind(b, op, spec, v, "a list of integers like {1, 2}");
        return list_of_ints(b, v, out);
    case ATTR_FLOATS:
        if (v->kind != DUMP_LIST)
            return expected_kind(b, op, spec, v, "a list of numbers like {0.5, 1}");
        return list_of_reals(b, v, out);
    case ATTR_TYPE: {
        graft_type t;
        if (v->kind == DUMP_WORD && type_from_name(v->tok.p, (size_t)v->tok.len, &t) &&
            t != GRAFT_TUPLE) {
            *out = attr_type(t);
            return true;
        }
        if (v->kind == DUMP_INT) {
            int64_t n;
            if (!parse_int64(b, v, &n))
                return false;
            if (type_from_migraphx_number(n, &t)) {
                *out = attr_type(t);
                return true;
            }
        }
        return expected_kind(b, op, spec, v,
                             "an element type (float_type, ... or MIGraphX's number for it)");
    }
    }
    return false;
}

/* Converts a statement's attributes; op NULL for an unknown op. */
static bool build_attrs(builder *b, const dump_stmt *s, const op_def *op, attr **out)
{
    *out = NULL;
    if (!s->nattrs)
        return true;
    attr *attrs = arena_alloc(scratch(b), (size_t)s->nattrs * sizeof *attrs);
    if (!attrs)
        return out_of_memory(b, s->op);
    bool ok = true;
    if (s->nattrs <= 8) {
        /* a few: compared pairwise, no table */
        for (const dump_attr *a = s->attrs; ok && a; a = a->next)
            for (const dump_attr *e = s->attrs; ok && e != a; e = e->next)
                if (e->key.len == a->key.len && memcmp(e->key.p, a->key.p, (size_t)a->key.len) == 0)
                    ok = fail_at(b, a->key, "attribute '%.*s' is given twice", a->key.len, a->key.p);
    } else {
        table seen;
        if (!table_init(&seen, (size_t)s->nattrs))
            return out_of_memory(b, s->op);
        for (const dump_attr *a = s->attrs; ok && a; a = a->next) {
            table_slot *slot = table_slot_for(&seen, a->key.p, a->key.len);
            if (slot->p)
                ok = fail_at(b, a->key, "attribute '%.*s' is given twice", a->key.len, a->key.p);
            *slot = (table_slot){a->key.p, a->key.len, false, a->key.line, NULL};
        }
        table_free(&seen);
    }
    if (!ok)
        return false;
    int k = 0;
    for (const dump_attr *a = s->attrs; a; a = a->next, k++) {
        attrs[k].key = copy_span_in(b, scratch(b), a->key);
        if (!attrs[k].key)
            return false;
        if (!op) {
            if (!opaque_attr_value(b, a->value, &attrs[k].v))
                return false;
            continue;
        }
        int idx = op_attr_index(op, attrs[k].key);
        if (idx < 0) {
            char names[512];
            op_attr_names_text(op, names, sizeof names);
            if (op->nattrs)
                return fail_at(b, a->key, "%s has no attribute '%.*s' (its attributes: %s)",
                               op->name, a->key.len, a->key.p, names);
            return fail_at(b, a->key, "%s has no attribute '%.*s' (it takes none)", op->name,
                           a->key.len, a->key.p);
        }
        if (!known_attr_value(b, op, &op->attrs[idx], a->value, &attrs[k].v))
            return false;
    }
    *out = attrs;
    return true;
}

/* ---- instructions ---- */

typedef struct module_build {
    module *m;
    dump_mod *dm;
    table names;
    table_slot *numbered;       /* "@N" names, by N (see name_slot) */
    size_t nnumbered;
    table params;
    const char *prefix;         /* "main:pointwise0:" */
    size_t prefix_len;
} module_build;

/* "@N" names, what MIGraphX and graft write, live in an array indexed by N
 * instead of the hash table: the dump defines and uses them nearly in
 * order, so lookups stay in cache. The same name always goes to the same
 * place, so the two together behave as one table. */
enum { NUMBERED_MAX = 1 << 22 };

static bool numbered_name(const char *p, int len, size_t *n)
{
    if (len < 2 || len > 8 || p[0] != '@' || (p[1] == '0' && len > 2))
        return false;
    size_t v = 0;
    for (int k = 1; k < len; k++) {
        if (p[k] < '0' || p[k] > '9')
            return false;
        v = v * 10 + (size_t)(p[k] - '0');
    }
    *n = v;
    return v < NUMBERED_MAX;
}

/* The slot of a name: for a definition (create), the slot to fill (NULL
 * when out of memory); for a lookup, the slot or NULL when absent. */
static table_slot *name_slot(module_build *mb, const char *p, int len, bool create)
{
    size_t n;
    if (!numbered_name(p, len, &n))
        return create ? table_slot_for(&mb->names, p, len) : table_find(&mb->names, p, len);
    if (n >= mb->nnumbered) {
        if (!create)
            return NULL;
        size_t cap = mb->nnumbered ? mb->nnumbered : 256;
        while (cap <= n)
            cap *= 2;
        table_slot *grown = calloc(cap, sizeof *grown);
        if (!grown)
            return NULL;
        if (mb->nnumbered)
            memcpy(grown, mb->numbered, mb->nnumbered * sizeof *grown);
        free(mb->numbered);
        mb->numbered = grown;
        mb->nnumbered = cap;
    }
    table_slot *s = &mb->numbered[n];
    return create || s->p ? s : NULL;
}

static void free_names(module_build *mb)
{
    table_free(&mb->names);
    free(mb->numbered);
    mb->numbered = NULL;
    mb->nnumbered = 0;
}

static bool define_name(builder *b, module_build *mb, dump_span name, ins *i)
{
    table_slot *slot = name_slot(mb, name.p, name.len, true);
    if (!slot)
        return out_of_memory(b, name);
    if (slot->p && !slot->alias)
        return fail_at(b, name, "duplicate instruction name %.*s (first defined on line %d)",
                       name.len, name.p, slot->line);
    *slot = (table_slot){name.p, name.len, false, name.line, i};
    /* MIGraphX prefixes submodule names in program prints (main:pointwise0:@2);
     * operands may be written either way. */
    if (mb->prefix_len && (size_t)name.len > mb->prefix_len &&
        memcmp(name.p, mb->prefix, mb->prefix_len) == 0) {
        const char *p = name.p + mb->prefix_len;
        int len = name.len - (int)mb->prefix_len;
        table_slot *alias = name_slot(mb, p, len, true);
        if (!alias)
            return out_of_memory(b, name);
        if (!alias->p)
            *alias = (table_slot){p, len, true, name.line, i};
    }
    return true;
}

static ins *find_name(module_build *mb, dump_span name)
{
    table_slot *s = name_slot(mb, name.p, name.len, false);
    return s ? s->value : NULL;
}

static bool check_tail(builder *b, const dump_stmt *s, ins *i)
{
    if (!s->tail)
        return true;
    shape written;
    if (!build_shape(b, s->tail, &written, 0))
        return false;
    if (shape_equal(&written, &i->sh))
        return true;
    char w[256], c[256];
    print_shape(&written, w, sizeof w);
    print_shape(&i->sh, c, sizeof c);
    return fail_at(b, s->tail->at,
                   "%.*s: shape mismatch: dump says %s, computed %s", s->name.len, s->name.p, w, c);
}

static bool no_extras(builder *b, const dump_stmt *s, const char *what, bool operands_ok,
                      bool tail_ok)
{
    if (s->nattrs)
        return fail_at(b, s->attrs->key, "%s takes no attributes", what);
    if (s->literal)
        return fail_at(b, s->literal->at, "%s takes no values in braces", what);
    if (!operands_ok && s->has_operands)
        return fail_at(b, s->nargs ? s->args->name : s->op, "%s takes no operands", what);
    if (s->nmods)
        return fail_at(b, s->mods->name, "%s takes no submodules", what);
    if (!tail_ok && s->tail)
        return fail_at(b, s->tail->at, "%s has no shape; remove the `-> ...` tail", what);
    return true;
}

static ins *build_param(builder *b, module_build *mb, const dump_stmt *s)
{
    if (!no_extras(b, s, "a parameter", false, true))
        return NULL;
    if (s->param.len == 0) {
        fail_at(b, s->op, "a parameter needs a name: @param:name");
        return NULL;
    }
    if (!s->tail) {
        fail_at(b, s->op, "parameter '%.*s' needs its shape: add `-> type, {lens}, {strides}`",
                s->param.len, s->param.p);
        return NULL;
    }
    table_slot *slot = table_slot_for(&mb->params, s->param.p, s->param.len);
    if (slot->p) {
        fail_at(b, s->param, "duplicate parameter '%.*s' (first defined on line %d)", s->param.len,
                s->param.p, slot->line);
        return NULL;
    }
    *slot = (table_slot){s->param.p, s->param.len, false, s->param.line, NULL};
    shape sh;
    if (!build_shape(b, s->tail, &sh, 0))
        return NULL;
    char *pname = copy_span(b, s->param);
    if (!pname)
        return NULL;
    ins *i = module_add_param(mb->m, pname, &sh);
    if (!i)
        out_of_memory(b, s->op);
    return i;
}

static ins *build_literal(builder *b, module_build *mb, const dump_stmt *s)
{
    if (s->nattrs) {
        fail_at(b, s->attrs->key, "a literal takes no attributes");
        return NULL;
    }
    if (s->has_operands) {
        fail_at(b, s->nargs ? s->args->name : s->op, "a literal takes no operands");
        return NULL;
    }
    if (s->nmods) {
        fail_at(b, s->mods->name, "a literal takes no submodules");
        return NULL;
    }
    if (!s->literal) {
        fail_at(b, s->op, "a literal needs its values: @literal{1, 2} or @literal{ ... }");
        return NULL;
    }
    if (!s->tail) {
        fail_at(b, s->op, "a literal needs its shape: add `-> type, {lens}, {strides}`");
        return NULL;
    }
    shape sh;
    if (!build_shape(b, s->tail, &sh, 0))
        return NULL;
    if (sh.type == GRAFT_TUPLE) {
        fail_at(b, s->tail->at, "a literal cannot have a tuple shape");
        return NULL;
    }
    char *data = build_literal_data(b, s, &sh);
    if (!data)
        return NULL;
    ins *i = module_add_literal(mb->m, &sh, data);
    free(data);
    if (!i) {
        out_of_memory(b, s->op);
        return NULL;
    }
    if (s->literal->kind == DUMP_LIT_ELIDED)
        i->flags |= INS_ELIDED_LITERAL;
    return i;
}

static ins *build_opaque(builder *b, module_build *mb, const dump_stmt *s, ins **args,
                         module **mods)
{
    if (!s->tail) {
        fail_at(b, s->op,
                "unknown op '%.*s' (an unknown op needs its shape: add `-> type, {lens}, {strides}`)",
                s->op.len, s->op.p);
        return NULL;
    }
    attr *attrs;
    shape sh;
    if (!build_attrs(b, s, NULL, &attrs) || !build_shape(b, s->tail, &sh, 0))
        return NULL;
    char *opname = copy_span_in(b, scratch(b), s->op);
    if (!opname)
        return NULL;
    ins *i = module_add_opaque(mb->m, opname, attrs, s->nattrs, args, s->nargs, &sh);
    if (!i) {
        out_of_memory(b, s->op);
        return NULL;
    }
    if (s->nmods)
        ins_set_modules(i, mods, s->nmods);
    return i;
}

static ins *build_known(builder *b, module_build *mb, const dump_stmt *s, const op_def *op,
                        ins **args, module **mods)
{
    if (s->literal) {
        fail_at(b, s->literal->at, "only @literal takes values in braces");
        return NULL;
    }
    if (s->nargs < op->min_args || (op->max_args >= 0 && s->nargs > op->max_args)) {
        char want[64];
        if (op->max_args < 0)
            snprintf(want, sizeof want, "at least %d", op->min_args);
        else if (op->min_args == op->max_args)
            snprintf(want, sizeof want, "%d", op->min_args);
        else
            snprintf(want, sizeof want, "%d to %d", op->min_args, op->max_args);
        fail_at(b, s->op, "%.*s: %s takes %s operand%s, got %d", s->name.len, s->name.p, op->name,
                want, strcmp(want, "1") == 0 ? "" : "s", s->nargs);
        return NULL;
    }
    attr *attrs;
    if (!build_attrs(b, s, op, &attrs))
        return NULL;
    graft_error e = {0};
    ins *i = s->nmods ? module_insert_with_modules(mb->m, NULL, op, attrs, s->nattrs, args,
                                                   s->nargs, mods, s->nmods, &e)
                      : module_add(mb->m, op, attrs, s->nattrs, args, s->nargs, &e);
    if (!i) {
        fail_at(b, s->op, "%.*s: %s", s->name.len, s->name.p, e.message[0] ? e.message : "out of memory");
        return NULL;
    }
    return i;
}

static bool build_stmt(builder *b, module_build *mb, const dump_stmt *s, table *modules)
{
    table_slot *dup = name_slot(mb, s->name.p, s->name.len, false);
    if (dup && !dup->alias)
        return fail_at(b, s->name, "duplicate instruction name %.*s (first defined on line %d)",
                       s->name.len, s->name.p, dup->line);
    ins **args = NULL;
    module **mods = NULL;
    if (s->nargs) {
        args = arena_alloc(&b->st->scratch, (size_t)s->nargs * sizeof *args);
        if (!args)
            return out_of_memory(b, s->name);
    }
    int k = 0;
    for (const dump_ref *r = s->args; r; r = r->next, k++) {
        args[k] = find_name(mb, r->name);
        if (!args[k])
            return fail_at(b, r->name, "undefined instruction %.*s", r->name.len, r->name.p);
    }
    if (s->nmods) {
        mods = arena_alloc(&b->st->scratch, (size_t)s->nmods * sizeof *mods);
        if (!mods)
            return out_of_memory(b, s->name);
    }
    k = 0;
    for (const dump_ref *r = s->mods; r; r = r->next, k++) {
        table_slot *slot = table_find(modules, r->name.p, r->name.len);
        mods[k] = slot ? ((dump_mod *)slot->value)->built : NULL;
        if (!mods[k])
            return fail_at(b, r->name, "undefined module %.*s", r->name.len, r->name.p);
    }
    ins *i = NULL;
    if (s->is_param) {
        i = build_param(b, mb, s);
    } else if (span_is(s->op, "@literal")) {
        i = build_literal(b, mb, s);
    } else if (span_is(s->op, "@return")) {
        if (!no_extras(b, s, "@return", true, false))
            return false;
        i = module_add_return(mb->m, args, s->nargs);
        if (!i)
            return out_of_memory(b, s->op);
    } else {
        const op_def *op = op_find_n(s->op.p, (size_t)s->op.len);
        if (op && (op->classes & OPC_BUILTIN)) {
            if (span_is(s->op, "@param"))
                return fail_at(b, s->op, "a parameter is written @param:name");
            return fail_at(b, s->op, "the builtin %s cannot be written in a dump", op->name);
        }
        i = op ? build_known(b, mb, s, op, args, mods) : build_opaque(b, mb, s, args, mods);
        if (i && op && !check_tail(b, s, i))
            return false;
    }
    if (!i)
        return false;
    i->line = s->name.line;
    i->col = s->name.col;
    char *name = copy_span(b, s->name);
    if (!name)
        return false;
    i->name = name;
    /* dump_read_options.built: i is complete (operands, attributes,
     * submodules, literal data) and nothing built later changes it; the
     * instructions of its module built so far are exactly those before it
     * in program order, and the lines of i and of its operand's users array
     * were just written (the caller's look at them is cheap now). */
    if (b->opts && b->opts->built)
        b->opts->built(b->opts->built_ctx, i);
    return define_name(b, mb, s->name, i);
}

static bool build_module(builder *b, dump_mod *dm, table *modules)
{
    module_build mb = {0};
    mb.m = dm->built;
    mb.dm = dm;
    b->st->current = dm;
    size_t plen = strlen(dm->name);
    char *prefix = arena_alloc(&b->st->scratch, plen + 2);
    if (!prefix)
        return out_of_memory(b, dm->header);
    memcpy(prefix, dm->name, plen);
    prefix[plen] = ':';
    mb.prefix = prefix;
    mb.prefix_len = plen + 1;
    if (!table_init(&mb.names, (size_t)dm->nstmts * 2) ||
        !table_init(&mb.params, (size_t)dm->nstmts)) {
        free_names(&mb);
        return out_of_memory(b, dm->header);
    }
    bool ok = true;
    const dump_stmt *ret = NULL;
    for (const dump_stmt *s = dm->first; ok && s; s = s->next) {
        if (ret) {
            ok = fail_at(b, s->name, "%.*s comes after %.*s = @return (the return must be the last "
                                     "line of its module)",
                         s->name.len, s->name.p, ret->name.len, ret->name.p);
            break;
        }
        ok = build_stmt(b, &mb, s, modules);
        if (!s->is_param && span_is(s->op, "@return"))
            ret = s;
    }
    free_names(&mb);
    table_free(&mb.params);
    return ok;
}

/* Orders modules so that each comes after every module it references (a
 * depth-first walk with an explicit stack, so deep chains cannot overflow
 * the C stack). */
typedef struct walk_frame {
    dump_mod *m;
    const dump_stmt *s;
    const dump_ref *r;
} walk_frame;

static const dump_ref *next_module_ref(walk_frame *f)
{
    for (;;) {
        if (f->r) {
            const dump_ref *r = f->r;
            f->r = r->next;
            return r;
        }
        if (!f->s)
            return NULL;
        f->r = f->s->mods;
        f->s = f->s->next;
    }
}

enum { MOD_NEW, MOD_WALKING, MOD_DONE };

static bool order_modules(builder *b, table *modules, int nmods, dump_mod **order)
{
    walk_frame *stack = malloc((size_t)(nmods ? nmods : 1) * sizeof *stack);
    if (!stack)
        return out_of_memory(b, (dump_span){0});
    int n = 0;
    bool ok = true;
    for (dump_mod *root = b->st->mods; ok && root; root = root->next) {
        if (root->state != MOD_NEW)
            continue;
        int top = 0;
        stack[top++] = (walk_frame){root, root->first, NULL};
        root->state = MOD_WALKING;
        while (ok && top > 0) {
            walk_frame *f = &stack[top - 1];
            const dump_ref *r = next_module_ref(f);
            if (!r) {
                f->m->state = MOD_DONE;
                order[n++] = f->m;
                top--;
                continue;
            }
            table_slot *slot = table_find(modules, r->name.p, r->name.len);
            if (!slot) {
                ok = fail_at(b, r->name, "undefined module %.*s", r->name.len, r->name.p);
                break;
            }
            dump_mod *target = slot->value;
            if (target == f->m)
                ok = fail_at(b, r->name, "module \"%s\" uses itself", target->name);
            else if (target->state == MOD_WALKING)
                ok = fail_at(b, r->name, "module \"%s\" uses module \"%s\", which already uses "
                                         "\"%s\" (modules cannot form a cycle)",
                             f->m->name, target->name, f->m->name);
            else if (target->state == MOD_NEW) {
                target->state = MOD_WALKING;
                stack[top++] = (walk_frame){target, target->first, NULL};
            }
        }
    }
    free(stack);
    return ok;
}

/* The spelling a module reference uses: names are bare words; quoted ones
 * are looked up unquoted. Rewrites quoted references in place. */
static bool unquote_module_refs(builder *b)
{
    for (dump_mod *m = b->st->mods; m; m = m->next)
        for (dump_stmt *s = m->first; s; s = s->next)
            for (dump_ref *r = s->mods; r; r = r->next)
                if (r->quoted) {
                    size_t len;
                    char *u = dump_unquote(&b->st->scratch, r->name, &len);
                    if (!u)
                        return out_of_memory(b, r->name);
                    r->name.p = u;
                    r->name.len = (int)len;
                    r->quoted = false;
                }
    return true;
}

static graph *build_graph(dump_parse_state *st, size_t max_literal_bytes,
                          const dump_read_options *opts)
{
    builder b = {st, NULL, 0, max_literal_bytes, opts};
    b.g = graph_new();
    if (!b.g) {
        error_set(st->err, "out of memory");
        return NULL;
    }
    b.g->source = arena_strdup(&b.g->mem, st->filename);
    int nmods = 0;
    for (dump_mod *m = st->mods; m; m = m->next)
        nmods++;
    table modules = {0};
    dump_mod **order = malloc((size_t)nmods * sizeof *order);
    bool ok = order && table_init(&modules, (size_t)nmods) && unquote_module_refs(&b);
    if (!ok && !st->failed)
        out_of_memory(&b, (dump_span){0});
    for (dump_mod *m = st->mods; ok && m; m = m->next) {
        dump_span at = m->header;
        if (!at.p && m->first)
            at = m->first->name;
        table_slot *slot = table_slot_for(&modules, m->name, (int)strlen(m->name));
        if (slot->p) {
            ok = fail_at(&b, at, "duplicate module \"%s\" (first defined on line %d)", m->name,
                         slot->line);
            break;
        }
        *slot = (table_slot){m->name, (int)strlen(m->name), false, at.line, m};
        graft_error e = {0};
        m->built = graph_add_module(b.g, m->name, &e);
        if (!m->built)
            ok = fail_at(&b, at, "%s", e.message[0] ? e.message : "out of memory");
    }
    ok = ok && order_modules(&b, &modules, nmods, order);
    for (int k = 0; ok && k < nmods; k++)
        ok = build_module(&b, order[k], &modules);
    free(order);
    table_free(&modules);
    if (!ok) {
        graph_free(b.g);
        return NULL;
    }
    return b.g;
}

/* ---- the fast path ---- */

/* Makes room for `entries` entries in t (rehashing), keeping what it holds. */
static bool table_reserve(table *t, size_t entries)
{
    if (t->cap >= entries * 2 + 2)
        return true;
    table bigger;
    if (!table_init(&bigger, entries * 2))
        return false;
    for (size_t k = 0; k < t->cap; k++)
        if (t->slots[k].p)
            *table_slot_for(&bigger, t->slots[k].p, t->slots[k].len) = t->slots[k];
    table_free(t);
    *t = bigger;
    return true;
}

/* The module a fast read is filling. */
typedef struct fast_module {
    module_build mb;
    size_t nnames, nparams;
    bool returned;              /* its @return was read */
} fast_module;

static bool fast_begin_module(builder *b, fast_module *fm, table *modules, dump_mod *dm)
{
    table_slot *slot = table_slot_for(modules, dm->name, (int)strlen(dm->name));
    if (slot->p)
        return false;
    *slot = (table_slot){dm->name, (int)strlen(dm->name), false, 0, dm};
    graft_error e = {0};
    dm->built = graph_add_module(b->g, dm->name, &e);
    if (!dm->built)
        return false;
    memset(fm, 0, sizeof *fm);
    fm->mb.m = dm->built;
    fm->mb.dm = dm;
    size_t plen = strlen(dm->name);
    char *prefix = arena_alloc(&b->g->mem, plen + 2);
    if (!prefix)
        return false;
    memcpy(prefix, dm->name, plen);
    prefix[plen] = ':';
    fm->mb.prefix = prefix;
    fm->mb.prefix_len = plen + 1;
    return table_init(&fm->mb.names, 64) && table_init(&fm->mb.params, 8);
}

/* Room for "@N" names up to N = hint without regrowing (calloc: pages
 * that no name reaches are never touched). */
static bool reserve_numbered(module_build *mb, size_t hint)
{
    if (hint > NUMBERED_MAX)
        hint = NUMBERED_MAX;
    if (mb->nnumbered >= hint)
        return true;
    table_slot *s = calloc(hint, sizeof *s);
    if (!s)
        return false;
    pages_prefer_huge(s, hint * sizeof *s);
    if (mb->nnumbered)
        memcpy(s, mb->numbered, mb->nnumbered * sizeof *s);
    free(mb->numbered);
    mb->numbered = s;
    mb->nnumbered = hint;
    return true;
}

static void fast_end_module(fast_module *fm)
{
    free_names(&fm->mb);
    table_free(&fm->mb.params);
}

/* Reads text line by line (dump_fast.c) and builds each statement as it
 * comes. NULL when the text needs the parser: a line the fast path is not
 * sure of, any error (the parser reports it), or a submodule used before
 * its section (the parser orders modules). */
static graph *read_fast(const char *text, size_t len, const char *filename,
                        size_t max_literal_bytes, const dump_read_options *opts)
{
    graft_error ignored;
    dump_parse_state st;
    memset(&st, 0, sizeof st);
    st.text = st.cursor = st.line_start = text;
    st.limit = text + len;
    st.line = 1;
    st.filename = filename;
    st.err = &ignored;
    arena_init(&st.scratch);
    arena mods_mem;             /* the dump_mod records, kept to the end */
    arena_init(&mods_mem);
    builder b = {&st, graph_new(), 0, max_literal_bytes, opts};
    table modules = {0};
    fast_module fm;
    bool in_module = false, ok = b.g && table_init(&modules, 8);
    size_t nmods = 0;
    if (b.g)
        b.g->source = arena_strdup(&b.g->mem, filename);
    while (ok) {
        dump_stmt *s = NULL;
        dump_span header;
        int k = dump_fast_line(&st, &s, &header);
        if (k == DUMP_FAST_END || k == DUMP_FAST_BAIL) {
            ok = k == DUMP_FAST_END && nmods > 0;
            break;
        }
        if (k == DUMP_FAST_MODULE || !in_module) {
            dump_mod *dm = arena_alloc(&mods_mem, sizeof *dm);
            ok = dm && table_reserve(&modules, ++nmods);
            if (!ok)
                break;
            if (k == DUMP_FAST_MODULE) {
                dm->header = header;
                dm->name = arena_strndup(&mods_mem, header.p + 1, (size_t)header.len - 2);
            } else {
                dm->name = "main";
            }
            if (in_module)
                fast_end_module(&fm);
            /* The first module (main, usually the big one) gets room for
             * @0 .. @(len / 16), a line being 16 bytes or more; the others
             * grow as they need. */
            in_module = dm->name && fast_begin_module(&b, &fm, &modules, dm) &&
                        (nmods > 1 ||
                         reserve_numbered(&fm.mb, (size_t)(st.limit - st.cursor) / 16 + 256));
            ok = in_module;
            st.current = dm;
            if (k == DUMP_FAST_MODULE)
                continue;
        }
        /* Submodules must be complete: sections above this one, not this. */
        for (const dump_ref *r = s->mods; ok && r; r = r->next) {
            table_slot *slot = table_find(&modules, r->name.p, r->name.len);
            ok = slot && slot->value != fm.mb.dm;
        }
        /* the hash table's share of the statement's name and of its
         * unprefixed alias (define_name, name_slot) */
        size_t n;
        fm.nnames += !numbered_name(s->name.p, s->name.len, &n);
        if ((size_t)s->name.len > fm.mb.prefix_len &&
            memcmp(s->name.p, fm.mb.prefix, fm.mb.prefix_len) == 0)
            fm.nnames += !numbered_name(s->name.p + fm.mb.prefix_len,
                                        s->name.len - (int)fm.mb.prefix_len, &n);
        ok = ok && !fm.returned && table_reserve(&fm.mb.names, fm.nnames) &&
             (!s->is_param || table_reserve(&fm.mb.params, ++fm.nparams)) &&
             build_stmt(&b, &fm.mb, s, &modules);
        if (!s->is_param && span_is(s->op, "@return"))
            fm.returned = true;
        /* Statements are built: their nodes can go. */
        arena_reset(&st.scratch);
    }
    if (in_module)
        fast_end_module(&fm);
    table_free(&modules);
    arena_free(&st.scratch);
    arena_free(&mods_mem);
    if (!ok) {
        graph_free(b.g);
        return NULL;
    }
    return b.g;
}

/* ---- entry points ---- */

graph *dump_read_with(const char *text, size_t len, const char *filename,
                      const dump_read_options *opts, graft_error *err)
{
    graft_error local;
    if (!err)
        err = &local;
    if (!filename)
        filename = "<dump>";
    if (!text && len)
        return error_set(err, "dump_read: no text"), NULL;
    if (len >= INT_MAX) {
        error_at(err, filename, 0, 0, "the dump is too large (%zu bytes; the limit is 2 GiB)", len);
        return NULL;
    }
    size_t max = opts && opts->max_literal_bytes ? opts->max_literal_bytes : SIZE_MAX;
    if (!(opts && opts->parser_only)) {
        graph *fast = read_fast(text, len, filename, max, opts);
        if (fast)
            return fast;
        if (opts && opts->built)
            opts->built(opts->built_ctx, NULL); /* the parser starts over */
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        error_set(err, "out of memory");
        return NULL;
    }
    if (len)
        memcpy(copy, text, len);
    copy[len] = 0;
    dump_parse_state st;
    memset(&st, 0, sizeof st);
    st.text = st.cursor = st.line_start = copy;
    st.limit = copy + len;
    st.line = 1;
    st.filename = filename;
    st.err = err;
    arena_init(&st.scratch);
    graph *g = NULL;
    int rc = dump_yyparse(&st);
    if (rc == 0 && !st.failed && !st.mods)
        dump_error_at(&st, (dump_span){copy, 0, 1, 1},
                      "empty dump: expected `module: \"main\"` or an instruction line");
    if (rc == 0 && !st.failed) {
        g = build_graph(&st, max, opts);
    } else if (!st.failed) {
        error_at(err, filename, st.last_tok.line, st.last_tok.col,
                 rc == 2 ? "out of memory (or brackets nested too deeply)" : "syntax error");
    }
    arena_free(&st.scratch);
    free(copy);
    return g;
}

graph *dump_read(const char *text, size_t len, const char *filename, graft_error *err)
{
    return dump_read_with(text, len, filename, NULL, err);
}

graph *dump_read_file(const char *path, graft_error *err)
{
    size_t len;
    char *text = read_file_all(path, &len, err);
    if (!text)
        return NULL;
    graph *g = dump_read(text, len, path, err);
    free(text);
    return g;
}
