/* dump_write.c: prints a graph as a dump, in the canonical form.
 *
 * The canonical form is what MIGraphX prints (docs/dump-format.md): a
 * `module: "name"` header per module with a blank line between modules, one
 * line per instruction, attributes in declaration order as `[k=v,k=v]`,
 * shapes as `-> float_type, {2, 3}, {3, 1}`, no shape after @return. Names
 * are the instructions' stable names when they have one (made unique within
 * the module), else the parameter name for params and `@N` (N = position in
 * the module) for the rest, with a `module:` prefix in submodules.
 *
 * Nothing is lost: literals of at most 64 elements in a standard layout are
 * written as decimal lists with the fewest digits that read back to the same
 * bits, every other literal as `{b64:...}` (base64 of its bytes). The writer
 * checks each decimal value by reading it back, so write -> read -> write is
 * identical text and identical literal bytes.
 */
#include "dump.h"
#include "dump_syntax.h"
#include "hash.h"
#include "strbuf.h"
#include "tensor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { INLINE_LITERAL_MAX = 64 };

/* ---- the output (ir/strbuf.h) ---- */

static void put(strbuf *o, const char *s, size_t n) { strbuf_append(o, s, n); }

static void puts_(strbuf *o, const char *s) { strbuf_append_string(o, s); }

static void put_quoted(strbuf *o, const char *s)
{
    put(o, "\"", 1);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            put(o, "\\", 1);
        if (*s == '\n')
            put(o, "\\n", 2);
        else
            put(o, s, 1);
    }
    put(o, "\"", 1);
}

/* ---- numbers ---- */

/* The shortest "%.Ng" text of d that reads back (as type t, or as a double
 * attribute when t is GRAFT_TUPLE) to the same bits. False if none does
 * (a NaN with a payload), and the caller writes base64 instead. */
static bool shortest_real(double d, graft_type t, char *buf, size_t size)
{
    unsigned char want[8] = {0}, got[8] = {0};
    /* half and bf16 print their float value exactly, so they compare as float */
    graft_type as = t == GRAFT_TUPLE ? GRAFT_DOUBLE
                    : t == GRAFT_HALF || t == GRAFT_BF16 ? GRAFT_FLOAT
                                                         : t;
    dump_store_real(as, d, want);
    if (t == GRAFT_TUPLE)
        memcpy(want, &d, 8);
    size_t n = type_size(as);
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, d);
        char *end;
        double back = as == GRAFT_DOUBLE ? strtod(buf, &end) : (double)strtof(buf, &end);
        memset(got, 0, sizeof got);
        dump_store_real(as, back, got);
        if (memcmp(want, got, n) == 0)
            return true;
    }
    return false;
}

/* One literal element as decimal text that reads back to the same bytes. */
static bool element_text(graft_type t, const unsigned char *p, char *buf, size_t size)
{
    size_t n = type_size(t);
    unsigned char back[8] = {0};
    switch (t) {
    case GRAFT_HALF: { uint16_t h; memcpy(&h, p, 2); return shortest_real(half_to_float(h), t, buf, size); }
    case GRAFT_BF16: { uint16_t h; memcpy(&h, p, 2); return shortest_real(bf16_to_float(h), t, buf, size); }
    case GRAFT_FLOAT: { float f; memcpy(&f, p, 4); return shortest_real(f, t, buf, size); }
    case GRAFT_DOUBLE: { double d; memcpy(&d, p, 8); return shortest_real(d, t, buf, size); }
    case GRAFT_BOOL: snprintf(buf, size, "%d", p[0] ? 1 : 0); tensor_store_integer_bits(t, back, p[0] != 0); break;
    case GRAFT_UINT8: snprintf(buf, size, "%u", (unsigned)p[0]); return true;
    case GRAFT_INT8: snprintf(buf, size, "%d", (int)(int8_t)p[0]); return true;
    case GRAFT_UINT16: { uint16_t v; memcpy(&v, p, 2); snprintf(buf, size, "%u", (unsigned)v); return true; }
    case GRAFT_INT16: { int16_t v; memcpy(&v, p, 2); snprintf(buf, size, "%d", (int)v); return true; }
    case GRAFT_UINT32: { uint32_t v; memcpy(&v, p, 4); snprintf(buf, size, "%lu", (unsigned long)v); return true; }
    case GRAFT_INT32: { int32_t v; memcpy(&v, p, 4); snprintf(buf, size, "%ld", (long)v); return true; }
    case GRAFT_UINT64: { uint64_t v; memcpy(&v, p, 8); snprintf(buf, size, "%llu", (unsigned long long)v); return true; }
    case GRAFT_INT64: { int64_t v; memcpy(&v, p, 8); snprintf(buf, size, "%lld", (long long)v); return true; }
    default: return false;
    }
    return memcmp(back, p, n) == 0; /* a bool byte other than 0 or 1 */
}

static void put_base64(strbuf *o, const unsigned char *p, size_t n)
{
    static const char digits[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char quad[4];
    for (size_t k = 0; k < n; k += 3) {
        uint32_t v = (uint32_t)p[k] << 16;
        if (k + 1 < n)
            v |= (uint32_t)p[k + 1] << 8;
        if (k + 2 < n)
            v |= p[k + 2];
        quad[0] = digits[v >> 18 & 63];
        quad[1] = digits[v >> 12 & 63];
        quad[2] = k + 1 < n ? digits[v >> 6 & 63] : '=';
        quad[3] = k + 2 < n ? digits[v & 63] : '=';
        put(o, quad, 4);
    }
}

static void put_literal(strbuf *o, const ins *i)
{
    const shape *sh = &i->sh;
    int64_t elements = shape_elements(sh), space = shape_element_space(sh);
    size_t size = type_size(sh->type);
    const unsigned char *data = i->data;
    bool decimal = elements <= INLINE_LITERAL_MAX &&
                   (elements == 0 || shape_standard_p(sh) || (elements == 1 && space == 1));
    char texts[INLINE_LITERAL_MAX][40];
    for (int64_t k = 0; decimal && k < elements; k++)
        decimal = data && element_text(sh->type, data + (size_t)k * size, texts[k], sizeof texts[k]);
    if (decimal) {
        put(o, "{", 1);
        for (int64_t k = 0; k < elements; k++) {
            if (k)
                put(o, ", ", 2);
            puts_(o, texts[k]);
        }
        put(o, "}", 1);
        return;
    }
    put(o, "{b64:", 5);
    if (data)
        put_base64(o, data, shape_bytes(sh));
    put(o, "}", 1);
}

/* ---- shapes and attributes ---- */

/* An integer in decimal, without printf (shapes print two lists a line). */
static void put_int(strbuf *o, int64_t v)
{
    char buf[24], *p = buf + sizeof buf;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    put(o, p, (size_t)(buf + sizeof buf - p));
}

static void put_ints(strbuf *o, const int64_t *v, int n)
{
    put(o, "{", 1);
    for (int k = 0; k < n; k++) {
        if (k)
            put(o, ", ", 2);
        put_int(o, v[k]);
    }
    put(o, "}", 1);
}

static void put_shape(strbuf *o, const shape *s)
{
    if (s->type == GRAFT_TUPLE) {
        put(o, "[", 1);
        for (int k = 0; k < s->ntuple; k++) {
            if (k)
                put(o, ", ", 2);
            put_shape(o, &s->tuple[k]);
        }
        put(o, "]", 1);
        return;
    }
    puts_(o, type_name(s->type));
    put(o, ", ", 2);
    put_ints(o, s->lens, s->rank);
    put(o, ", ", 2);
    put_ints(o, s->strides, s->rank);
}

static void put_real(strbuf *o, double d)
{
    char buf[64];
    if (!shortest_real(d, GRAFT_TUPLE, buf, sizeof buf))
        snprintf(buf, sizeof buf, "%.17g", d);
    puts_(o, buf);
}

/* MIGraphX's number for an element type (bf16 is 15 there). */
static int migraphx_type_number(graft_type t) { return t == GRAFT_BF16 ? 15 : (int)t; }

static bool bare_string(const char *s)
{
    size_t n = strlen(s);
    return dump_is_word(s, n) && strcmp(s, "inf") != 0 && strcmp(s, "nan") != 0;
}

static void put_attr_value(strbuf *o, const attr_value *v)
{
    switch (v->kind) {
    case ATTR_INT: put_int(o, v->u.i); break;
    case ATTR_BOOL: strbuf_appendf(o, "%d", v->u.i ? 1 : 0); break;
    case ATTR_TYPE: strbuf_appendf(o, "%d", migraphx_type_number((graft_type)v->u.i)); break;
    case ATTR_FLOAT: put_real(o, v->u.f); break;
    case ATTR_STRING:
        if (!v->u.s)
            put(o, "\"\"", 2);
        else if (bare_string(v->u.s))
            puts_(o, v->u.s);
        else
            put_quoted(o, v->u.s);
        break;
    case ATTR_INTS: put_ints(o, v->u.ints, v->n); break;
    case ATTR_FLOATS:
        put(o, "{", 1);
        for (int k = 0; k < v->n; k++) {
            if (k)
                put(o, ", ", 2);
            put_real(o, v->u.floats[k]);
        }
        put(o, "}", 1);
        break;
    }
}

/* ---- names ---- */

/* Names are kept in one pool; names[id] is an offset into it. */
typedef struct namer {
    strbuf pool;
    size_t *offset;             /* by instruction id; SIZE_MAX: none */
    size_t *set;                /* this module's names (offsets + 1; 0 empty) */
    size_t set_cap;
} namer;

static size_t *set_slot(namer *nm, const char *s)
{
    size_t mask = nm->set_cap - 1;
    for (size_t k = (size_t)hash_string(HASH_FNV_OFFSET, s) & mask;; k = (k + 1) & mask)
        if (!nm->set[k] || strcmp(nm->pool.text + nm->set[k] - 1, s) == 0)
            return &nm->set[k];
}

/* Claims name (prefix + text) if unused in the module; true if claimed. */
static bool claim(namer *nm, const ins *i, const char *prefix, const char *text)
{
    size_t at = nm->pool.len;
    puts_(&nm->pool, prefix);
    puts_(&nm->pool, text);
    put(&nm->pool, "", 1); /* keep the NUL */
    if (nm->pool.failed)
        return false;
    size_t *slot = set_slot(nm, nm->pool.text + at);
    if (*slot) {
        nm->pool.len = at;
        return false;
    }
    *slot = at + 1;
    nm->offset[i->id] = at;
    return true;
}

static bool is_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

static bool writable_name(const char *s) { return dump_is_word(s, strlen(s)) || is_digits(s); }

static bool name_module(namer *nm, const module *m, const char *prefix)
{
    size_t cap = 16;
    while (cap < (size_t)m->count * 2 + 2)
        cap *= 2;
    free(nm->set);
    nm->set = calloc(cap, sizeof *nm->set);
    nm->set_cap = cap;
    if (!nm->set)
        return false;
    int pos = 0;
    char num[48];
    for (const ins *i = m->first; i; i = i->next, pos++) {
        ins_prefetch_ahead(i);
        if (nm->pool.failed)
            return false;
        if (i->name && writable_name(i->name) && claim(nm, i, "", i->name))
            continue;
        if (!i->name && i->param && writable_name(i->param) && claim(nm, i, prefix, i->param))
            continue;
        snprintf(num, sizeof num, "@%d", pos);
        if (claim(nm, i, prefix, num))
            continue;
        for (int k = 1;; k++) {
            snprintf(num, sizeof num, "@%d_%d", pos, k);
            if (claim(nm, i, prefix, num) || nm->pool.failed)
                break;
        }
    }
    return !nm->pool.failed;
}

static const char *name_of(const namer *nm, const ins *i)
{
    return nm->pool.text + nm->offset[i->id];
}

/* ---- instructions and modules ---- */


/* A graft-extension attribute at its default, which the dump leaves out. */
static bool attr_omitted(const ins *i, int k)
{
    if (i->op->classes & OPC_OPAQUE || k >= i->op->nattrs)
        return false;
    return op_attr_is_extension(i->op, k) && attr_value_equal(i->attrs[k].v, i->op->attrs[k].dflt);
}

static bool put_ins(strbuf *o, const namer *nm, const ins *i, graft_error *err)
{
    puts_(o, name_of(nm, i));
    put(o, " = ", 3);
    bool is_return = i->op->classes & OPC_BUILTIN && strcmp(i->opname, "@return") == 0;
    if (i->op->classes & OPC_BUILTIN && strcmp(i->opname, "@param") == 0) {
        if (!i->param || !dump_is_param_name(i->param, strlen(i->param)))
            return error_set(err, "parameter name '%s' cannot be written in a dump (use letters, "
                                  "digits and _ @ . : / -)",
                             i->param ? i->param : "");
        put(o, "@param:", 7);
        puts_(o, i->param);
    } else {
        if (!dump_is_word(i->opname, strlen(i->opname)))
            return error_set(err, "op name '%s' cannot be written in a dump", i->opname);
        puts_(o, i->opname);
        /* Attributes that are graft extensions (op_attr_is_extension: MIGraphX
         * does not print) are left out while they hold their default. */
        int shown = 0;
        for (int k = 0; k < i->nattrs; k++)
            shown += !attr_omitted(i, k);
        if (shown) {
            put(o, "[", 1);
            int written = 0;
            for (int k = 0; k < i->nattrs; k++) {
                const char *key = i->attrs[k].key;
                if (attr_omitted(i, k))
                    continue;
                if (!dump_is_word(key, strlen(key)))
                    return error_set(err, "attribute name '%s' of %s cannot be written in a dump",
                                     key, i->opname);
                if (written++)
                    put(o, ",", 1);
                puts_(o, key);
                put(o, "=", 1);
                put_attr_value(o, &i->attrs[k].v);
            }
            put(o, "]", 1);
        }
        if (i->op->classes & OPC_BUILTIN && strcmp(i->opname, "@literal") == 0)
            put_literal(o, i);
    }
    if (i->nargs) {
        for (int k = 0; k < i->nargs; k++) {
            put(o, k ? "," : "(", 1);
            puts_(o, name_of(nm, i->args[k]));
        }
        put(o, ")", 1);
    }
    if (i->nmods) {
        put(o, ", [", 3);
        for (int k = 0; k < i->nmods; k++) {
            if (k)
                put(o, ", ", 2);
            const char *mn = i->mods[k]->name;
            if (dump_is_word(mn, strlen(mn)))
                puts_(o, mn);
            else
                put_quoted(o, mn);
        }
        put(o, "]", 1);
    }
    if (!is_return) {
        put(o, " -> ", 4);
        put_shape(o, &i->sh);
    }
    put(o, "\n", 1);
    return true;
}

char *dump_write(const graph *g, size_t *len, graft_error *err)
{
    strbuf o = {0};
    namer nm = {0};
    bool ok = true;
    nm.offset = malloc((size_t)(g->next_id ? g->next_id : 1) * sizeof *nm.offset);
    if (!nm.offset)
        ok = error_set(err, "out of memory");
    const module *main_module = graph_main(g);
    for (const module *m = g->first_module; ok && m; m = m->next) {
        char *prefix = NULL;
        if (m != main_module) {
            size_t n = strlen(m->name);
            prefix = malloc(n + 2);
            if (!prefix) {
                ok = error_set(err, "out of memory");
                break;
            }
            memcpy(prefix, m->name, n);
            memcpy(prefix + n, ":", 2);
        }
        if (!name_module(&nm, m, prefix ? prefix : "")) {
            free(prefix);
            ok = error_set(err, "out of memory");
            break;
        }
        free(prefix);
        if (m != g->first_module)
            put(&o, "\n", 1);
        put(&o, "module: ", 8);
        put_quoted(&o, m->name);
        put(&o, "\n", 1);
        for (const ins *i = m->first; ok && i; i = i->next) {
            ins_prefetch_ahead(i);
            ok = put_ins(&o, &nm, i, err);
        }
    }
    free(nm.offset);
    free(nm.set);
    strbuf_free(&nm.pool);
    if (!ok) {
        strbuf_free(&o);
        return NULL;
    }
    char *text = strbuf_take(&o, len);
    if (!text)
        error_set(err, "out of memory");
    return text;
}

bool dump_write_file(const graph *g, const char *path, graft_error *err)
{
    size_t len;
    char *text = dump_write(g, &len, err);
    if (!text)
        return false;
    bool ok = write_file_atomic(path, text, len, err);
    free(text);
    return ok;
}
