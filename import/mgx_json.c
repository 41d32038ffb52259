/* mgx_json.c: MIGraphX's JSON program (program::to_value) in.
 *
 * Two parts. A small JSON reader of graft's own (no dependency): text to an
 * mgx_value tree in a scratch arena, every value knowing its line and
 * column, nesting and sizes bounded. Then the mapping of MIGraphX's program
 * value onto a graph:
 *
 *   { "modules": { NAME: { "nodes": [ NODE, ... ] }, ... } }
 *     (older files: "modules": [ { "name": NAME, "nodes": [...] }, ... ])
 *   NODE = { "output": "@3", "name": OP, "shape": SHAPE, "operator": {attrs},
 *            "inputs": ["x", "@2"], "module_inputs": ["main:pointwise0"],
 *            "literal": { "shape": SHAPE, "data": DATA } }
 *   SHAPE = { "type": "float_type" (or MIGraphX's type number),
 *             "lens": [...], "strides": [...] }
 *
 * @param takes its name from operator.parameter (else the output name);
 * @literal data may be {"bytes": [...]} (MIGraphX's binary value), a list of
 * element values, or a string holding base64 or the raw bytes; a literal
 * without data is filled deterministically from its output name. A known op
 * gets its attributes from "operator" (keys graft does not declare are an
 * error unless their value is empty: [] or null) and its shape computed,
 * then checked against the recorded "shape". An op graft does not know is
 * kept opaque with its recorded shape, as the dump reader does. Submodules
 * are built when first referenced. See docs/mgx-import.md.
 */
#include "hash.h"
#include "mgx.h"
#include "mgx_private.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { JSON_DEPTH_MAX = 64, MODULE_DEPTH_MAX = 32 };

/* ---- the JSON reader ---- */

typedef struct json_reader {
    const char *p, *end, *line_start;
    int line;
    int depth;
    arena *a;
    const char *filename;
    graft_error *err;
    bool failed;
} json_reader;

static bool json_fail(json_reader *r, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool json_fail(json_reader *r, const char *at, const char *fmt, ...)
{
    if (r->failed)
        return false;
    va_list ap;
    va_start(ap, fmt);
    error_atv(r->err, r->filename, r->line, (int)(at - r->line_start) + 1, fmt, ap);
    va_end(ap);
    r->failed = true;
    return false;
}

static void skip_space(json_reader *r)
{
    while (r->p < r->end) {
        char c = *r->p;
        if (c == '\n') {
            r->line++;
            r->line_start = r->p + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
        r->p++;
    }
}

static const char *found_text(json_reader *r, char *buf, size_t size)
{
    if (r->p >= r->end)
        return "end of file";
    unsigned char c = (unsigned char)*r->p;
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, size, "'%c'", c);
    else
        snprintf(buf, size, "byte 0x%02x", c);
    return buf;
}

static mgx_value *json_value(json_reader *r);

static mgx_value *new_json_value(json_reader *r, mgx_kind kind)
{
    mgx_value *v = arena_alloc(r->a, sizeof *v);
    if (!v) {
        json_fail(r, r->p, "out of memory");
        return NULL;
    }
    v->kind = kind;
    v->line = r->line;
    v->col = (int)(r->p - r->line_start) + 1;
    return v;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool read_hex4(json_reader *r, const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        int d = p + k < r->end ? hex_value(p[k]) : -1;
        if (d < 0)
            return json_fail(r, p, "bad \\u escape (expected 4 hex digits)");
        v = v * 16 + (unsigned)d;
    }
    *out = v;
    return true;
}

/* A string: escapes undone; \u00XX gives the byte XX (MIGraphX's raw-byte
 * strings), larger code points give UTF-8. */
static mgx_value *json_string(json_reader *r)
{
    mgx_value *v = new_json_value(r, MGX_STRING);
    if (!v)
        return NULL;
    const char *start = ++r->p;
    const char *q = start;
    while (q < r->end && *q != '"') {
        if (*q == '\\')
            q++;
        if (q < r->end && *q == '\n')
            return json_fail(r, q, "newline in a string"), NULL;
        q++;
    }
    if (q >= r->end)
        return json_fail(r, start - 1, "unterminated string"), NULL;
    char *out = arena_alloc(r->a, (size_t)(q - start) + 1);
    if (!out)
        return json_fail(r, start, "out of memory"), NULL;
    size_t n = 0;
    const char *p = start;
    while (p < q) {
        if ((unsigned char)*p < 0x20)
            return json_fail(r, p, "control character in a string"), NULL;
        if (*p != '\\') {
            out[n++] = *p++;
            continue;
        }
        p++;
        char c = *p++;
        switch (c) {
        case '"': out[n++] = '"'; break;
        case '\\': out[n++] = '\\'; break;
        case '/': out[n++] = '/'; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case 'u': {
            unsigned u = 0;
            if (p + 4 > q || !read_hex4(r, p, &u))
                return json_fail(r, p - 2, "bad \\u escape"), NULL;
            p += 4;
            if (u < 0x100) {
                out[n++] = (char)u;
            } else if (u < 0x800) {
                out[n++] = (char)(0xc0 | (u >> 6));
                out[n++] = (char)(0x80 | (u & 0x3f));
            } else {
                /* surrogates are kept as they are: graft only compares names */
                out[n++] = (char)(0xe0 | (u >> 12));
                out[n++] = (char)(0x80 | ((u >> 6) & 0x3f));
                out[n++] = (char)(0x80 | (u & 0x3f));
            }
            break;
        }
        default:
            return json_fail(r, p - 2, "bad escape '\\%c' in a string", c), NULL;
        }
    }
    out[n] = 0;
    v->s = out;
    v->len = n;
    r->p = q + 1;
    return v;
}

static bool word_at(json_reader *r, const char *w)
{
    size_t n = strlen(w);
    return (size_t)(r->end - r->p) >= n && memcmp(r->p, w, n) == 0;
}

static mgx_value *json_number(json_reader *r)
{
    const char *start = r->p, *p = r->p;
    bool is_float = false;
    if (p < r->end && *p == '-')
        p++;
    if (word_at(r, "-Infinity") || word_at(r, "Infinity") || word_at(r, "NaN")) {
        mgx_value *v = new_json_value(r, MGX_FLOAT);
        if (!v)
            return NULL;
        bool neg = *start == '-';
        if (start[neg] == 'N') {
            v->f = NAN;
            r->p += 3;
        } else {
            v->f = neg ? -(double)INFINITY : (double)INFINITY;
            r->p += 8 + neg;
        }
        return v;
    }
    const char *digits = p;
    while (p < r->end && *p >= '0' && *p <= '9')
        p++;
    if (p == digits)
        return json_fail(r, start, "expected a value, found %s",
                         found_text(r, (char[16]){0}, 16)), NULL;
    if (p < r->end && *p == '.') {
        is_float = true;
        p++;
        while (p < r->end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < r->end && (*p == 'e' || *p == 'E')) {
        is_float = true;
        p++;
        if (p < r->end && (*p == '+' || *p == '-'))
            p++;
        const char *e = p;
        while (p < r->end && *p >= '0' && *p <= '9')
            p++;
        if (p == e)
            return json_fail(r, start, "bad number (no digits after the exponent)"), NULL;
    }
    char buf[64];
    if (p - start >= (long)sizeof buf)
        return json_fail(r, start, "number too long"), NULL;
    memcpy(buf, start, (size_t)(p - start));
    buf[p - start] = 0;
    mgx_value *v = new_json_value(r, is_float ? MGX_FLOAT : MGX_INT);
    if (!v)
        return NULL;
    errno = 0;
    if (!is_float) {
        v->i = strtoll(buf, NULL, 10);
        if (errno == ERANGE) {
            /* beyond int64: keep it as a number */
            v->kind = MGX_FLOAT;
            v->f = strtod(buf, NULL);
        }
    } else {
        v->f = strtod(buf, NULL);
    }
    r->p = p;
    return v;
}

/* Grows an item array (scratch arena: the old block is abandoned). */
static bool grow(json_reader *r, mgx_value *v, int *cap, bool keys)
{
    if (v->n < *cap)
        return true;
    int ncap = *cap ? *cap * 2 : 8;
    if (ncap > (1 << 28))
        return json_fail(r, r->p, "array too long");
    mgx_value **items = arena_alloc(r->a, (size_t)ncap * sizeof *items);
    const char **ks = keys ? arena_alloc(r->a, (size_t)ncap * sizeof *ks) : NULL;
    if (!items || (keys && !ks))
        return json_fail(r, r->p, "out of memory");
    if (v->n) {
        memcpy(items, v->items, (size_t)v->n * sizeof *items);
        if (keys)
            memcpy(ks, v->keys, (size_t)v->n * sizeof *ks);
    }
    v->items = items;
    v->keys = ks;
    *cap = ncap;
    return true;
}

static mgx_value *json_container(json_reader *r, bool object)
{
    mgx_value *v = new_json_value(r, object ? MGX_DICT : MGX_LIST);
    if (!v)
        return NULL;
    if (++r->depth > JSON_DEPTH_MAX)
        return json_fail(r, r->p, "nested too deeply (over %d levels)", JSON_DEPTH_MAX), NULL;
    char close = object ? '}' : ']';
    r->p++;
    int cap = 0;
    skip_space(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        r->depth--;
        return v;
    }
    for (;;) {
        skip_space(r);
        const char *key = NULL;
        if (object) {
            if (r->p >= r->end || *r->p != '"')
                return json_fail(r, r->p, "expected a key (a string), found %s",
                                 found_text(r, (char[16]){0}, 16)), NULL;
            mgx_value *k = json_string(r);
            if (!k)
                return NULL;
            key = k->s;
            skip_space(r);
            if (r->p >= r->end || *r->p != ':')
                return json_fail(r, r->p, "expected ':' after the key, found %s",
                                 found_text(r, (char[16]){0}, 16)), NULL;
            r->p++;
        }
        mgx_value *item = json_value(r);
        if (!item || !grow(r, v, &cap, object))
            return NULL;
        if (object)
            v->keys[v->n] = key;
        v->items[v->n++] = item;
        skip_space(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == close) {
            r->p++;
            break;
        }
        return json_fail(r, r->p, "expected ',' or '%c', found %s", close,
                         found_text(r, (char[16]){0}, 16)), NULL;
    }
    r->depth--;
    return v;
}

static mgx_value *json_value(json_reader *r)
{
    skip_space(r);
    if (r->p >= r->end)
        return json_fail(r, r->p, "expected a value, found end of file"), NULL;
    switch (*r->p) {
    case '{': return json_container(r, true);
    case '[': return json_container(r, false);
    case '"': return json_string(r);
    default: break;
    }
    static const struct { const char *word; mgx_kind kind; int64_t i; } words[] = {
        {"true", MGX_BOOL, 1}, {"false", MGX_BOOL, 0}, {"null", MGX_NONE, 0}};
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++) {
        if (word_at(r, words[k].word)) {
            mgx_value *v = new_json_value(r, words[k].kind);
            if (v)
                v->i = words[k].i;
            r->p += strlen(words[k].word);
            return v;
        }
    }
    return json_number(r);
}

/* ---- program::to_value to a graph ---- */

typedef struct json_module {
    const char *name;
    const mgx_value *body;    /* the module's object */
    const mgx_value *nodes;
    module *m;
    int state;                /* 0 not built, 1 being built, 2 built */
} json_module;

typedef struct json_builder {
    graph *g;
    json_module *mods;
    int nmods;
    const char *filename;
    graft_error *err;
    bool failed;
    mgx_budget budget;
    int depth;
} json_builder;

static bool fail_at(json_builder *b, const mgx_value *v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail_at(json_builder *b, const mgx_value *v, const char *fmt, ...)
{
    if (b->failed)
        return false;
    va_list ap;
    va_start(ap, fmt);
    error_atv(b->err, b->filename, v ? v->line : 0, v ? v->col : 0, fmt, ap);
    va_end(ap);
    b->failed = true;
    return false;
}

static const mgx_value *field(const mgx_value *obj, const char *key)
{
    if (!obj || obj->kind != MGX_DICT)
        return NULL;
    const mgx_value *found = NULL;
    for (int k = 0; k < obj->n; k++)
        if (strcmp(obj->keys[k], key) == 0)
            found = obj->items[k];
    return found;
}

/* A field that must be there with a kind. */
static const mgx_value *need(json_builder *b, const mgx_value *obj, const char *key, mgx_kind kind,
                             const char *what)
{
    const mgx_value *v = field(obj, key);
    if (!v) {
        fail_at(b, obj, "%s has no \"%s\"", what, key);
        return NULL;
    }
    if (v->kind != kind) {
        fail_at(b, v, "%s: \"%s\" must be %s, found %s", what, key, mgx_kind_name(kind),
                mgx_kind_name(v->kind));
        return NULL;
    }
    return v;
}

static bool plain_string(json_builder *b, const mgx_value *v, const char *what)
{
    if (strlen(v->s) != v->len || v->len == 0)
        return fail_at(b, v, "%s must be a non-empty string without NUL characters", what);
    return true;
}

static bool read_shape(json_builder *b, const mgx_value *v, shape *out, const char *what)
{
    if (!v || v->kind != MGX_DICT)
        return fail_at(b, v, "%s: expected a shape object {\"type\", \"lens\", \"strides\"}",
                       what);
    const mgx_value *type = field(v, "type");
    if (!type)
        return fail_at(b, v, "%s: the shape has no \"type\"", what);
    if (type->kind == MGX_STRING && strcmp(type->s, "tuple_type") == 0)
        return fail_at(b, type, "%s: tuple shapes are not read here", what);
    graft_type t;
    if (!mgx_type_from_value(type, &t))
        return fail_at(b, type, "%s: unknown element type", what);
    const mgx_value *lens = field(v, "lens"), *strides = field(v, "strides");
    if (!lens) {
        if (field(v, "dynamic_dimensions"))
            return fail_at(b, v, "%s: dynamic shapes are not supported", what);
        return fail_at(b, v, "%s: the shape has no \"lens\"", what);
    }
    int64_t l[SHAPE_MAX_RANK], s[SHAPE_MAX_RANK];
    int nl = 0, ns = 0;
    char why[200];
    if (!mgx_int_list(lens, l, SHAPE_MAX_RANK, &nl, why, sizeof why))
        return fail_at(b, lens, "%s: lens: %s", what, why);
    if (strides && !mgx_int_list(strides, s, SHAPE_MAX_RANK, &ns, why, sizeof why))
        return fail_at(b, strides, "%s: strides: %s", what, why);
    if (strides && ns != nl)
        return fail_at(b, strides, "%s: %d strides for %d lens", what, ns, nl);
    if (!mgx_make_shape(t, nl, l, strides ? s : NULL, out, why, sizeof why))
        return fail_at(b, lens, "%s: %s", what, why);
    return true;
}

static ins **read_inputs(json_builder *b, const mgx_value *node, const mgx_table *names,
                         int *n)
{
    *n = 0;
    const mgx_value *inputs = field(node, "inputs");
    if (!inputs)
        return NULL;
    if (inputs->kind != MGX_LIST)
        return fail_at(b, inputs, "\"inputs\" must be a list of names"), NULL;
    ins **args = arena_alloc(&b->g->mem, (size_t)(inputs->n ? inputs->n : 1) * sizeof *args);
    if (!args)
        return fail_at(b, inputs, "out of memory"), NULL;
    for (int k = 0; k < inputs->n; k++) {
        const mgx_value *x = inputs->items[k];
        if (x->kind != MGX_STRING)
            return fail_at(b, x, "\"inputs\" must be a list of names, found %s",
                           mgx_kind_name(x->kind)), NULL;
        args[k] = mgx_table_get(names, x->s, x->len);
        if (!args[k])
            return fail_at(b, x, "input \"%.80s\" is not defined before it is used in this "
                           "module", x->s), NULL;
    }
    *n = inputs->n;
    return args;
}

static bool fill_literal(json_builder *b, const mgx_value *node, const mgx_value *lit,
                         const char *output, ins *i)
{
    const mgx_value *data = lit ? field(lit, "data") : NULL;
    size_t bytes = shape_bytes(&i->sh);
    char why[300];
    if (!data || data->kind == MGX_NONE) {
        mgx_fill_generated(&i->sh, hash_string(HASH_FNV_OFFSET, output), i->data);
        i->flags |= INS_ELIDED_LITERAL;
        return true;
    }
    if (data->kind == MGX_LIST) {
        if (!mgx_store_values(&i->sh, data, i->data, why, sizeof why))
            return fail_at(b, data, "literal %s: %s", output, why);
        return true;
    }
    if (data->kind == MGX_STRING) {
        if (mgx_base64_decode(data->s, data->len, i->data, bytes))
            return true;
        if (data->len == bytes) {
            memcpy(i->data, data->s, bytes);
            return true;
        }
        return fail_at(b, data, "literal %s: the data string is neither base64 of %zu bytes nor "
                       "%zu raw bytes (it holds %zu characters)", output, bytes, bytes, data->len);
    }
    const mgx_value *raw = data->kind == MGX_DICT ? field(data, "bytes") : NULL;
    if (!raw || raw->kind != MGX_LIST)
        return fail_at(b, data, "literal %s: \"data\" must be {\"bytes\": [...]}, a list of "
                       "values or a string", output);
    if ((size_t)raw->n != bytes)
        return fail_at(b, raw, "literal %s: %d bytes given, its shape needs %zu", output, raw->n,
                       bytes);
    unsigned char *out = i->data;
    for (int k = 0; k < raw->n; k++) {
        const mgx_value *x = raw->items[k];
        if (x->kind != MGX_INT || x->i < -128 || x->i > 255)
            return fail_at(b, x, "literal %s: a byte must be an integer from -128 to 255", output);
        out[k] = (unsigned char)(x->i & 0xff);
    }
    (void)node;
    return true;
}

/* Attributes of a known op from the node's "operator" object. */
static bool known_attrs(json_builder *b, const op_def *op, const mgx_value *fields, attr **out,
                        int *n)
{
    *out = NULL;
    *n = 0;
    if (!fields)
        return true;
    if (fields->kind != MGX_DICT)
        return fail_at(b, fields, "\"operator\" must be an object");
    attr *attrs = arena_alloc(&b->g->mem, (size_t)(fields->n ? fields->n : 1) * sizeof *attrs);
    if (!attrs)
        return fail_at(b, fields, "out of memory");
    int count = 0;
    for (int k = 0; k < fields->n; k++) {
        const char *key = fields->keys[k];
        const mgx_value *v = fields->items[k];
        int idx = op_attr_index(op, key);
        if (idx < 0) {
            /* the op's own name, and MIGraphX fields graft has no use for
             * while they are empty (out_dyn_dims=[]) */
            if (strcmp(key, "name") == 0 || v->kind == MGX_NONE ||
                (v->kind == MGX_LIST && v->n == 0))
                continue;
            return fail_at(b, v, "%s has no attribute '%.60s' graft knows", op->name, key);
        }
        for (int j = 0; j < count; j++)
            if (attrs[j].key == op->attrs[idx].name)
                return fail_at(b, v, "attribute '%s' is given twice", key);
        char why[400];
        attrs[count].key = op->attrs[idx].name;
        if (!mgx_attr_value(&b->g->mem, op, &op->attrs[idx], v, &attrs[count].v, why, sizeof why))
            return fail_at(b, v, "%s", why);
        count++;
    }
    *out = attrs;
    *n = count;
    return true;
}

static bool opaque_attrs(json_builder *b, const mgx_value *fields, attr **out, int *n)
{
    *out = NULL;
    *n = 0;
    if (!fields)
        return true;
    if (fields->kind != MGX_DICT)
        return fail_at(b, fields, "\"operator\" must be an object");
    attr *attrs = arena_alloc(&b->g->mem, (size_t)(fields->n ? fields->n : 1) * sizeof *attrs);
    if (!attrs)
        return fail_at(b, fields, "out of memory");
    int count = 0;
    for (int k = 0; k < fields->n; k++) {
        const mgx_value *v = fields->items[k];
        if (strcmp(fields->keys[k], "name") == 0 || v->kind == MGX_NONE || v->kind == MGX_DICT)
            continue; /* nested objects (an op inside an op) are not kept */
        char why[200];
        if (!mgx_word_ok(fields->keys[k], strlen(fields->keys[k])))
            return fail_at(b, v, "attribute name '%.60s' is not one graft can keep",
                           fields->keys[k]);
        attrs[count].key = arena_strdup(&b->g->mem, fields->keys[k]);
        if (!attrs[count].key)
            return fail_at(b, v, "out of memory");
        if (!mgx_opaque_attr_value(&b->g->mem, v, &attrs[count].v, why, sizeof why))
            return fail_at(b, v, "attribute '%.60s': %s", fields->keys[k], why);
        count++;
    }
    *out = attrs;
    *n = count;
    return true;
}

static bool build_module(json_builder *b, json_module *jm);

static json_module *find_module(json_builder *b, const char *name)
{
    for (int k = 0; k < b->nmods; k++)
        if (strcmp(b->mods[k].name, name) == 0)
            return &b->mods[k];
    return NULL;
}

static module **read_module_inputs(json_builder *b, const mgx_value *node, json_module *self,
                                   int *n)
{
    *n = 0;
    const mgx_value *list = field(node, "module_inputs");
    if (!list)
        return NULL;
    if (list->kind != MGX_LIST)
        return fail_at(b, list, "\"module_inputs\" must be a list of module names"), NULL;
    module **mods = arena_alloc(&b->g->mem, (size_t)(list->n ? list->n : 1) * sizeof *mods);
    if (!mods)
        return fail_at(b, list, "out of memory"), NULL;
    for (int k = 0; k < list->n; k++) {
        const mgx_value *x = list->items[k];
        if (x->kind != MGX_STRING)
            return fail_at(b, x, "\"module_inputs\" must be a list of module names"), NULL;
        json_module *jm = find_module(b, x->s);
        if (!jm)
            return fail_at(b, x, "no module named \"%.80s\"", x->s), NULL;
        if (jm == self || jm->state == 1)
            return fail_at(b, x, "module \"%.80s\" refers to itself", x->s), NULL;
        if (!build_module(b, jm))
            return NULL;
        mods[k] = jm->m;
    }
    *n = list->n;
    return mods;
}

static void describe(const shape *s, char *buf, size_t size) { shape_print(s, buf, size); }

static ins *build_node(json_builder *b, json_module *jm, const mgx_value *node,
                       const mgx_table *names, const char *output)
{
    module *m = jm->m;
    const mgx_value *opname = need(b, node, "name", MGX_STRING, "a node");
    if (!opname || !plain_string(b, opname, "an op name"))
        return NULL;
    const mgx_value *fields = field(node, "operator");
    const mgx_value *recorded = field(node, "shape");
    if (module_return(m))
        return fail_at(b, node, "node %s comes after the module's @return", output), NULL;
    if (strcmp(opname->s, "@param") == 0) {
        const mgx_value *pname = field(fields, "parameter");
        const char *name = output;
        if (pname) {
            if (pname->kind != MGX_STRING)
                return fail_at(b, pname, "\"parameter\" must be a name"), NULL;
            name = pname->s;
        }
        if (!mgx_param_name_ok(name, strlen(name)) || (pname && strlen(name) != pname->len))
            return fail_at(b, pname ? pname : node, "\"%.60s\" cannot be a parameter name "
                           "(letters, digits, _ @ . : / and inner '-')", name), NULL;
        for (ins *i = m->first; i; i = i->next)
            if (i->param && strcmp(i->param, name) == 0)
                return fail_at(b, node, "parameter \"%s\" is defined twice", name), NULL;
        shape sh;
        if (!read_shape(b, recorded, &sh, "@param"))
            return NULL;
        ins *i = module_add_param(m, name, &sh);
        if (!i)
            fail_at(b, node, "out of memory");
        return i;
    }
    if (strcmp(opname->s, "@literal") == 0) {
        const mgx_value *lit = field(node, "literal");
        shape sh;
        const mgx_value *lshape = lit ? field(lit, "shape") : NULL;
        if (!read_shape(b, lshape ? lshape : recorded, &sh, "@literal"))
            return NULL;
        size_t bytes = shape_bytes(&sh);
        if (!mgx_budget_take(&b->budget, bytes))
            return fail_at(b, node, "literal data over the limit of %zu bytes", b->budget.limit),
                   NULL;
        ins *i = module_add_literal(m, &sh, NULL);
        if (!i)
            return fail_at(b, node, "out of memory (a literal of %zu bytes)", bytes), NULL;
        return fill_literal(b, node, lit, output, i) ? i : NULL;
    }
    int nargs = 0, nmods = 0;
    ins **args = read_inputs(b, node, names, &nargs);
    if (b->failed)
        return NULL;
    if (strcmp(opname->s, "@return") == 0) {
        ins *i = module_add_return(m, args, nargs);
        if (!i)
            fail_at(b, node, "out of memory");
        return i;
    }
    module **mods = read_module_inputs(b, node, jm, &nmods);
    if (b->failed)
        return NULL;
    const op_def *op = op_find(opname->s);
    if (op && (op->classes & OPC_BUILTIN))
        return fail_at(b, opname, "%s is not supported in MIGraphX JSON", op->name), NULL;
    attr *attrs;
    int nattrs;
    if (!op) {
        shape sh;
        if (!recorded)
            return fail_at(b, opname, "unknown op '%.60s' (an unknown op is kept only with its "
                           "recorded \"shape\")", opname->s), NULL;
        if (!mgx_word_ok(opname->s, opname->len))
            return fail_at(b, opname, "unknown op '%.60s' has a name graft cannot keep",
                           opname->s), NULL;
        if (!read_shape(b, recorded, &sh, opname->s) || !opaque_attrs(b, fields, &attrs, &nattrs))
            return NULL;
        ins *i = module_add_opaque(m, opname->s, attrs, nattrs, args, nargs, &sh);
        if (!i)
            return fail_at(b, node, "out of memory"), NULL;
        if (nmods)
            ins_set_modules(i, mods, nmods);
        return i;
    }
    if (nargs < op->min_args || (op->max_args >= 0 && nargs > op->max_args))
        return fail_at(b, node, "node %s: %s takes %d%s operands, got %d", output, op->name,
                       op->max_args == op->min_args ? op->min_args : op->min_args,
                       op->max_args < 0 ? " or more" : op->max_args == op->min_args ? "" : " or more",
                       nargs), NULL;
    if (!known_attrs(b, op, fields, &attrs, &nattrs))
        return NULL;
    graft_error e = {0};
    ins *i = mgx_add_instruction(m, op, attrs, nattrs, args, nargs, mods, nmods, &e);
    if (!i) {
        size_t n = strlen(op->name);
        bool named = strncmp(e.message, op->name, n) == 0 && e.message[n] == ':';
        return fail_at(b, node, "node %s: %s%s%s", output, named ? "" : op->name,
                       named ? "" : ": ", e.message[0] ? e.message : "out of memory"), NULL;
    }
    if (recorded) {
        shape want;
        const mgx_value *type = field(recorded, "type");
        bool tuple = type && type->kind == MGX_STRING && strcmp(type->s, "tuple_type") == 0;
        if (!tuple) {
            if (!read_shape(b, recorded, &want, op->name))
                return NULL;
            if (!shape_equal(&want, &i->sh)) {
                char w[256], g[256];
                describe(&want, w, sizeof w);
                describe(&i->sh, g, sizeof g);
                return fail_at(b, recorded, "node %s: the recorded shape %s differs from the "
                               "computed %s", output, w, g), NULL;
            }
        }
    }
    return i;
}

static bool build_module(json_builder *b, json_module *jm)
{
    if (jm->state == 2)
        return true;
    if (++b->depth > MODULE_DEPTH_MAX)
        return fail_at(b, jm->body, "submodules nested too deeply");
    jm->state = 1;
    graft_error e = {0};
    jm->m = graph_add_module(b->g, jm->name, &e);
    if (!jm->m)
        return fail_at(b, jm->body, "%s", e.message[0] ? e.message : "out of memory");
    mgx_table names = {0};
    bool ok = true;
    for (int k = 0; ok && k < jm->nodes->n; k++) {
        const mgx_value *node = jm->nodes->items[k];
        if (node->kind != MGX_DICT) {
            ok = fail_at(b, node, "a node must be an object");
            break;
        }
        const mgx_value *out = need(b, node, "output", MGX_STRING, "a node");
        if (!out || !plain_string(b, out, "an output name")) {
            ok = false;
            break;
        }
        if (mgx_table_get(&names, out->s, out->len)) {
            ok = fail_at(b, out, "output name \"%.80s\" is defined twice", out->s);
            break;
        }
        ins *i = build_node(b, jm, node, &names, out->s);
        if (!i) {
            ok = false;
            break;
        }
        i->line = node->line;
        i->col = node->col;
        if (!mgx_table_set(&names, out->s, out->len, i))
            ok = fail_at(b, node, "out of memory");
    }
    mgx_table_free(&names);
    b->depth--;
    jm->state = 2;
    return ok;
}

static bool collect_modules(json_builder *b, const mgx_value *root)
{
    const mgx_value *mods = field(root, "modules");
    if (!mods)
        return fail_at(b, root, "not a MIGraphX program: the object has no \"modules\"");
    if (mods->kind != MGX_DICT && mods->kind != MGX_LIST)
        return fail_at(b, mods, "\"modules\" must be an object (or a list) of modules");
    b->mods = calloc((size_t)(mods->n ? mods->n : 1), sizeof *b->mods);
    if (!b->mods)
        return fail_at(b, mods, "out of memory");
    for (int k = 0; k < mods->n; k++) {
        const mgx_value *body = mods->items[k];
        if (body->kind != MGX_DICT)
            return fail_at(b, body, "a module must be an object with \"nodes\"");
        const char *name;
        if (mods->kind == MGX_DICT) {
            name = mods->keys[k];
        } else {
            const mgx_value *n = need(b, body, "name", MGX_STRING, "a module");
            if (!n)
                return false;
            name = n->s;
        }
        if (!name[0])
            return fail_at(b, body, "a module needs a name");
        if (find_module(b, name))
            return fail_at(b, body, "module \"%.80s\" is defined twice", name);
        const mgx_value *nodes = need(b, body, "nodes", MGX_LIST, "a module");
        if (!nodes)
            return false;
        json_module *jm = &b->mods[b->nmods++];
        jm->name = name;
        jm->body = body;
        jm->nodes = nodes;
    }
    if (!b->nmods)
        return fail_at(b, mods, "the program has no modules");
    return true;
}

graph *mgx_json_import_with(const char *text, size_t len, const char *filename,
                            const mgx_import_options *opt, graft_error *err)
{
    if (!filename)
        filename = "<json>";
    arena scratch;
    arena_init(&scratch);
    json_reader r = {text, text + len, text, 1, 0, &scratch, filename, err, false};
    mgx_value *root = json_value(&r);
    if (root) {
        skip_space(&r);
        if (r.p < r.end)
            json_fail(&r, r.p, "expected end of file after the JSON value, found %s",
                      found_text(&r, (char[16]){0}, 16));
    }
    graph *g = NULL;
    json_builder b;
    memset(&b, 0, sizeof b);
    if (r.failed)
        goto out;
    if (root->kind != MGX_DICT) {
        error_at(err, filename, root->line, root->col,
                 "not a MIGraphX program: expected an object with \"modules\"");
        goto out;
    }
    g = graph_new();
    if (!g) {
        error_set(err, "out of memory");
        goto out;
    }
    b.g = g;
    b.filename = filename;
    b.err = err;
    b.budget.limit = opt ? opt->max_literal_bytes : 0;
    bool ok = collect_modules(&b, root);
    if (ok) {
        json_module *main = find_module(&b, "main");
        ok = build_module(&b, main ? main : &b.mods[0]);
        for (int k = 0; ok && k < b.nmods; k++)
            ok = build_module(&b, &b.mods[k]);
    }
    graft_error e = {0};
    if (ok && !graph_verify(g, &e))
        ok = fail_at(&b, root, "the program is inconsistent: %s", e.message);
    if (!ok) {
        graph_free(g);
        g = NULL;
        goto out;
    }
    g->source = arena_strdup(&g->mem, filename);
out:
    free(b.mods);
    arena_free(&scratch);
    return g;
}

graph *mgx_json_import(const char *text, size_t len, const char *filename, graft_error *err)
{
    return mgx_json_import_with(text, len, filename, NULL, err);
}
