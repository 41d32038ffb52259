/* mgx_common.c: attribute, shape and literal-data helpers shared by the
 * MIGraphX script and JSON importers (see mgx_private.h).
 *
 * Values arrive as mgx_value trees whichever format they came from; this
 * file turns them into graft's attributes, shapes and literal bytes, with
 * the checks that keep a hostile file from building a bad graph (ranks,
 * sizes, integer ranges, overflow).
 */
#include "mgx_private.h"

#include "base64.h"
#include "dump_syntax.h" /* the dump's naming rules, so that imports write back */
#include "hash.h"
#include "tensor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MGX_DIM_MAX ((int64_t)1 << 40)
#define MGX_SIZE_MAX ((int64_t)1 << 50)

const char *mgx_kind_name(mgx_kind k)
{
    switch (k) {
    case MGX_NONE: return "None";
    case MGX_BOOL: return "a bool";
    case MGX_INT: return "an integer";
    case MGX_FLOAT: return "a number";
    case MGX_STRING: return "a string";
    case MGX_LIST: return "a list";
    case MGX_DICT: return "a dict";
    case MGX_NAMESPACE: return "a module";
    case MGX_METHOD: return "a function";
    case MGX_PROGRAM: return "a program";
    case MGX_MODULE: return "a MIGraphX module";
    case MGX_SHAPE: return "a shape";
    case MGX_ARGUMENT: return "an argument";
    case MGX_OP: return "an op";
    case MGX_INS: return "an instruction";
    }
    return "a value";
}

bool mgx_param_name_ok(const char *s, size_t len)
{
    return strlen(s) == len && dump_is_param_name(s, len);
}

bool mgx_word_ok(const char *s, size_t len) { return strlen(s) == len && dump_is_word(s, len); }

static mgx_table_slot *table_slot(const mgx_table *t, const char *name, size_t len)
{
    size_t k = (size_t)hash_bytes(HASH_FNV_OFFSET, name, len) & (t->cap - 1);
    for (;;) {
        mgx_table_slot *s = &t->slots[k];
        if (!s->name || (s->len == len && memcmp(s->name, name, len) == 0))
            return s;
        k = (k + 1) & (t->cap - 1);
    }
}

bool mgx_table_set(mgx_table *t, const char *name, size_t len, void *v)
{
    if ((t->n + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        mgx_table bigger = {calloc(cap, sizeof(mgx_table_slot)), cap, 0};
        if (!bigger.slots)
            return false;
        for (size_t k = 0; k < t->cap; k++) {
            if (t->slots[k].name) {
                *table_slot(&bigger, t->slots[k].name, t->slots[k].len) = t->slots[k];
                bigger.n++;
            }
        }
        free(t->slots);
        *t = bigger;
    }
    mgx_table_slot *s = table_slot(t, name, len);
    if (!s->name) {
        s->name = name;
        s->len = len;
        t->n++;
    }
    s->v = v;
    return true;
}

void *mgx_table_get(const mgx_table *t, const char *name, size_t len)
{
    if (!t->cap)
        return NULL;
    mgx_table_slot *s = table_slot(t, name, len);
    return s->name ? s->v : NULL;
}

void mgx_table_free(mgx_table *t)
{
    free(t->slots);
    memset(t, 0, sizeof *t);
}

bool mgx_budget_take(mgx_budget *b, size_t bytes)
{
    if (b->limit && bytes > b->limit - b->used)
        return false;
    b->used += bytes;
    return true;
}

/* MIGraphX numbers its types bool=0 ... uint64=11 in graft's order, then
 * fp8 types at 12 to 14 and bf16 at 15. */
bool mgx_type_from_value(const mgx_value *v, graft_type *t)
{
    if (v->kind == MGX_STRING)
        return strlen(v->s) == v->len && type_from_name(v->s, v->len, t) && *t != GRAFT_TUPLE;
    if (v->kind == MGX_INT) {
        if (v->i >= 0 && v->i <= GRAFT_UINT64) {
            *t = (graft_type)v->i;
            return true;
        }
        if (v->i == 15) {
            *t = GRAFT_BF16;
            return true;
        }
    }
    return false;
}

bool mgx_make_shape(graft_type t, int rank, const int64_t *lens, const int64_t *strides,
                    shape *out, char *why, size_t whylen)
{
    if (rank < 0 || rank > SHAPE_MAX_RANK) {
        snprintf(why, whylen, "rank %d is over graft's limit of %d", rank, SHAPE_MAX_RANK);
        return false;
    }
    /* extent: the product of the lengths other than 0, which standard
     * strides reach even when a 0 leaves the shape empty */
    int64_t extent = 1, space = 1;
    for (int k = 0; k < rank; k++) {
        if (lens[k] < 0 || lens[k] > MGX_DIM_MAX) {
            snprintf(why, whylen, "length %lld is out of range", (long long)lens[k]);
            return false;
        }
        if (strides && (strides[k] < 0 || strides[k] > MGX_SIZE_MAX)) {
            snprintf(why, whylen, "stride %lld is out of range", (long long)strides[k]);
            return false;
        }
        if (lens[k] && extent > MGX_SIZE_MAX / lens[k]) {
            snprintf(why, whylen, "the shape holds too many elements");
            return false;
        }
        extent *= lens[k] ? lens[k] : 1;
        if (strides && lens[k]) {
            int64_t reach = (lens[k] - 1) * strides[k];
            if (reach > MGX_SIZE_MAX - space) {
                snprintf(why, whylen, "the strides reach too far");
                return false;
            }
            space += reach;
        }
    }
    if (rank == 0) {
        /* MIGraphX's scalar: lens {1}, strides {0} */
        *out = shape_scalar(t);
        return true;
    }
    *out = strides ? shape_with_strides(t, rank, lens, strides) : shape_standard(t, rank, lens);
    return true;
}

bool mgx_int_list(const mgx_value *v, int64_t *out, int max, int *n, char *why, size_t whylen)
{
    if (v->kind != MGX_LIST) {
        snprintf(why, whylen, "expected a list of integers, found %s", mgx_kind_name(v->kind));
        return false;
    }
    if (v->n > max) {
        snprintf(why, whylen, "a list of %d values is longer than %d", v->n, max);
        return false;
    }
    for (int k = 0; k < v->n; k++) {
        if (v->items[k]->kind != MGX_INT) {
            snprintf(why, whylen, "expected a list of integers, found %s in it",
                     mgx_kind_name(v->items[k]->kind));
            return false;
        }
        out[k] = v->items[k]->i;
    }
    *n = v->n;
    return true;
}

static bool number_of(const mgx_value *v, double *d)
{
    if (v->kind == MGX_INT || v->kind == MGX_BOOL) {
        *d = (double)v->i;
        return true;
    }
    if (v->kind == MGX_FLOAT) {
        *d = v->f;
        return true;
    }
    return false;
}

static void list_names(const char *const *names, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = 0;
    for (int k = 0; names[k] && at + 64 < size; k++)
        at += (size_t)snprintf(buf + at, size - at, "%s%s", k ? ", " : "", names[k]);
}

bool mgx_attr_value(arena *a, const op_def *op, const attr_spec *spec, const mgx_value *v,
                    attr_value *out, char *why, size_t whylen)
{
    const char *want = "";
    switch (spec->kind) {
    case ATTR_INT:
        if (v->kind == MGX_INT || v->kind == MGX_BOOL) {
            *out = attr_int(v->i);
            return true;
        }
        if (spec->enum_names && v->kind == MGX_STRING) {
            int e = op_enum_value(spec, v->s, v->len);
            if (e >= 0) {
                *out = attr_int(e);
                return true;
            }
            char names[256];
            list_names(spec->enum_names, names, sizeof names);
            snprintf(why, whylen,
                     "attribute %s of %s: unknown value \"%.40s\" (expected one of %s, or its "
                     "number)",
                     spec->name, op->name, v->s, names);
            return false;
        }
        want = "an integer";
        break;
    case ATTR_FLOAT: {
        double d;
        if (number_of(v, &d)) {
            *out = attr_float(d);
            return true;
        }
        want = "a number";
        break;
    }
    case ATTR_BOOL:
        if (v->kind == MGX_BOOL || (v->kind == MGX_INT && (v->i == 0 || v->i == 1))) {
            *out = attr_bool(v->i != 0);
            return true;
        }
        want = "True or False";
        break;
    case ATTR_STRING:
        if (v->kind == MGX_STRING && strlen(v->s) == v->len) {
            char *s = arena_strdup(a, v->s);
            if (!s) {
                snprintf(why, whylen, "out of memory");
                return false;
            }
            *out = attr_string(s);
            return true;
        }
        want = "a string";
        break;
    case ATTR_INTS: {
        if (v->kind != MGX_LIST) {
            want = "a list of integers";
            break;
        }
        int64_t *ints = arena_alloc(a, (size_t)(v->n ? v->n : 1) * sizeof *ints);
        if (!ints) {
            snprintf(why, whylen, "out of memory");
            return false;
        }
        for (int k = 0; k < v->n; k++) {
            const mgx_value *x = v->items[k];
            if (x->kind != MGX_INT) {
                snprintf(why, whylen, "attribute %s of %s expects a list of integers, found %s in it",
                         spec->name, op->name, mgx_kind_name(x->kind));
                return false;
            }
            ints[k] = x->i;
        }
        *out = attr_ints(ints, v->n);
        return true;
    }
    case ATTR_FLOATS: {
        if (v->kind != MGX_LIST) {
            want = "a list of numbers";
            break;
        }
        double *f = arena_alloc(a, (size_t)(v->n ? v->n : 1) * sizeof *f);
        if (!f) {
            snprintf(why, whylen, "out of memory");
            return false;
        }
        for (int k = 0; k < v->n; k++) {
            if (!number_of(v->items[k], &f[k])) {
                snprintf(why, whylen, "attribute %s of %s expects a list of numbers, found %s in it",
                         spec->name, op->name, mgx_kind_name(v->items[k]->kind));
                return false;
            }
        }
        *out = attr_floats(f, v->n);
        return true;
    }
    case ATTR_TYPE: {
        graft_type t;
        if (mgx_type_from_value(v, &t)) {
            *out = attr_type(t);
            return true;
        }
        want = "an element type (\"float_type\", ... or MIGraphX's number for it)";
        break;
    }
    }
    if (v->kind == MGX_STRING)
        snprintf(why, whylen, "attribute %s of %s expects %s, found \"%.40s\"", spec->name,
                 op->name, want, v->s);
    else
        snprintf(why, whylen, "attribute %s of %s expects %s, found %s", spec->name, op->name,
                 want, mgx_kind_name(v->kind));
    return false;
}

bool mgx_opaque_attr_value(arena *a, const mgx_value *v, attr_value *out, char *why,
                           size_t whylen)
{
    switch (v->kind) {
    case MGX_INT: *out = attr_int(v->i); return true;
    case MGX_BOOL: *out = attr_bool(v->i != 0); return true;
    case MGX_FLOAT: *out = attr_float(v->f); return true;
    case MGX_STRING: {
        char *s = arena_strdup(a, v->s);
        if (!s)
            break;
        *out = attr_string(s);
        return true;
    }
    case MGX_LIST: {
        bool all_int = true;
        for (int k = 0; k < v->n; k++) {
            double d;
            if (!number_of(v->items[k], &d)) {
                snprintf(why, whylen, "a list attribute may hold numbers only, found %s",
                         mgx_kind_name(v->items[k]->kind));
                return false;
            }
            all_int &= v->items[k]->kind == MGX_INT;
        }
        size_t n = (size_t)(v->n ? v->n : 1);
        if (all_int) {
            int64_t *ints = arena_alloc(a, n * sizeof *ints);
            if (!ints)
                break;
            for (int k = 0; k < v->n; k++)
                ints[k] = v->items[k]->i;
            *out = attr_ints(ints, v->n);
        } else {
            double *f = arena_alloc(a, n * sizeof *f);
            if (!f)
                break;
            for (int k = 0; k < v->n; k++)
                number_of(v->items[k], &f[k]);
            *out = attr_floats(f, v->n);
        }
        return true;
    }
    default:
        snprintf(why, whylen, "an attribute cannot be %s", mgx_kind_name(v->kind));
        return false;
    }
    snprintf(why, whylen, "out of memory");
    return false;
}

/* splitmix64 */
/* Memory of sh seen as one flat standard tensor of its element space. */
static tensor flat_tensor(const shape *sh, void *data)
{
    int64_t space = shape_element_space(sh);
    tensor t;
    t.sh = shape_standard(sh->type, 1, &space);
    t.data = data;
    return t;
}

void mgx_fill_generated(const shape *sh, uint64_t seed, void *data)
{
    dump_fill_generated(sh, seed * 0x2545f4914f6cdd1dull + 0x6d67785f67656e31ull, data);
}

/* Counts the numbers in a (nested) list; false if something else is in it. */
static bool count_leaves(const mgx_value *v, int depth, int64_t *n, char *why, size_t whylen)
{
    if (depth > 32) {
        snprintf(why, whylen, "lists nested too deeply");
        return false;
    }
    for (int k = 0; k < v->n; k++) {
        const mgx_value *x = v->items[k];
        if (x->kind == MGX_LIST) {
            if (!count_leaves(x, depth + 1, n, why, whylen))
                return false;
        } else if (x->kind == MGX_INT || x->kind == MGX_FLOAT || x->kind == MGX_BOOL) {
            (*n)++;
        } else {
            snprintf(why, whylen, "literal values must be numbers, found %s",
                     mgx_kind_name(x->kind));
            return false;
        }
    }
    return true;
}

typedef struct store_walk {
    const shape *sh;
    tensor t;
    bool logical;
    int64_t next;
    char *why;
    size_t whylen;
} store_walk;

static bool store_leaves(store_walk *w, const mgx_value *v)
{
    for (int k = 0; k < v->n; k++) {
        const mgx_value *x = v->items[k];
        if (x->kind == MGX_LIST) {
            if (!store_leaves(w, x))
                return false;
            continue;
        }
        int64_t at = w->next++;
        graft_type ty = w->sh->type;
        if (type_is_float(ty)) {
            double d = x->kind == MGX_FLOAT ? x->f : (double)x->i;
            tensor_set_f64(&w->t, at, d);
        } else if (x->kind == MGX_FLOAT) {
            snprintf(w->why, w->whylen, "value %g is not an integer (the literal is %s)", x->f,
                     type_name(ty));
            return false;
        } else if (!dump_int_fits(ty, x->i)) {
            snprintf(w->why, w->whylen, "value %lld is out of range for %s", (long long)x->i,
                     type_name(ty));
            return false;
        } else {
            tensor_set_i64(&w->t, at, x->i);
        }
    }
    return true;
}

bool mgx_store_values(const shape *sh, const mgx_value *list, void *data, char *why,
                      size_t whylen)
{
    int64_t n = 0;
    if (list->kind != MGX_LIST) {
        snprintf(why, whylen, "expected a list of values, found %s", mgx_kind_name(list->kind));
        return false;
    }
    if (!count_leaves(list, 0, &n, why, whylen))
        return false;
    int64_t elements = shape_elements(sh), space = shape_element_space(sh);
    store_walk w = {sh, {*sh, data}, true, 0, why, whylen};
    if (n != elements) {
        if (n != space) {
            char s[200];
            shape_print(sh, s, sizeof s);
            snprintf(why, whylen, "%lld values given, but a literal of shape %s holds %lld",
                     (long long)n, s, (long long)elements);
            return false;
        }
        w.logical = false;
        w.t = flat_tensor(sh, data);
    }
    return store_leaves(&w, list);
}

bool mgx_base64_decode(const char *p, size_t n, void *out, size_t want)
{
    size_t got;
    if (!base64_decoded_size(p, n, &got) || got != want)
        return false;
    base64_decode(p, n, out, want);
    return true;
}

ins *mgx_add_instruction(module *m, const op_def *op, const attr *attrs, int nattrs,
                         ins *const *args, int nargs, module *const *mods, int nmods,
                         graft_error *err)
{
    if (!nmods)
        return module_add(m, op, attrs, nattrs, args, nargs, err);
    return module_insert_with_modules(m, NULL, op, attrs, nattrs, args, nargs, mods, nmods, err);
}
