/* api.c: the graft_rule_api table generated rule code calls through.
 *
 * Generated code (linked into graft or dlopen'ed from a user's rule file)
 * reaches the graph only through this table: the rw_* functions of the
 * worklist driver (engine/rewrite.h), op and attribute lookups, the helper
 * registry, and the value operations of the guard language (attribute reads,
 * shape fields, comparisons, arithmetic, conversions to attribute values).
 * Keeping them here, behind one table, is what makes a user's .so behave
 * exactly like a built-in rule set.
 */
#include "api.h"

#include "const_fold.h"
#include "helpers.h"

#include <pthread.h>
#include <string.h>

static rule_value api_attr_get(const ins *i, int index) { return rule_attr(i, index); }

static bool api_attr_equals(const ins *i, int index, const attr_value *v)
{
    return index >= 0 && index < i->nattrs && attr_value_equal(i->attrs[index].v, *v);
}

static rule_value api_field(ins *i, int field)
{
    if (field == RULE_FIELD_ELEMENTS)
        return rule_int(shape_elements(&i->sh));
    return rule_field(i, field);
}

/* The value operations generated guards inline are api.h's (rule_compare
 * and what it uses); the table adds what needs graft's own symbols: two
 * shapes compare with shape_equal. */
static bool is_numeric(const rule_value *v) { return rule_is_numeric(v); }
static double as_double(const rule_value *v) { return rule_as_double(v); }
static double list_item(const rule_value *v, int k) { return rule_list_item(v, k); }

static bool api_compare(rule_value a, int op, rule_value b, rule_value *out)
{
    if ((op == RULE_OP_EQ || op == RULE_OP_NE) && a.kind == RV_SHAPE && b.kind == RV_SHAPE) {
        bool eq = shape_equal(a.u.sh, b.u.sh);
        *out = rule_bool(op == RULE_OP_EQ ? eq : !eq);
        return true;
    }
    return rule_compare(NULL, a, op, b, out); /* not two shapes: the table is not asked */
}

static bool api_arith(rule_value a, int op, rule_value b, rule_value *out)
{
    if (!is_numeric(&a) || !is_numeric(&b))
        return false;
    if (a.kind == RV_INT && b.kind == RV_INT) {
        int64_t x = a.u.i, y = b.u.i, r;
        switch (op) {
        case RULE_OP_ADD: if (__builtin_add_overflow(x, y, &r)) return false; break;
        case RULE_OP_SUB: if (__builtin_sub_overflow(x, y, &r)) return false; break;
        case RULE_OP_MUL: if (__builtin_mul_overflow(x, y, &r)) return false; break;
        case RULE_OP_DIV:
            if (y == 0 || (x == INT64_MIN && y == -1))
                return false;
            r = x / y;
            break;
        default: return false;
        }
        *out = rule_int(r);
        return true;
    }
    double x = as_double(&a), y = as_double(&b), r;
    switch (op) {
    case RULE_OP_ADD: r = x + y; break;
    case RULE_OP_SUB: r = x - y; break;
    case RULE_OP_MUL: r = x * y; break;
    case RULE_OP_DIV:
        if (y == 0)
            return false;
        r = x / y;
        break;
    default: return false;
    }
    *out = rule_float(r);
    return true;
}

/* The value points at v's list or string, not at a copy: what it makes
 * goes straight to A->insert (dsl/emit.c), which copies every given value
 * into the instruction it builds (module_insert: insert_known), while v's
 * storage (a helper's result or make_list in the rewrite's arena, an
 * operand's attribute, the rule's static lists) outlives the call. A copy
 * here was about a third of the new arena memory per instruction a rule
 * builds, and its page faults. Only a list of ints made floats is new. */
static bool api_to_attr(arena *mem, rule_value v, int kind, attr_value *out)
{
    switch ((attr_kind)kind) {
    case ATTR_INT:
        if (v.kind != RV_INT)
            return false;
        *out = attr_int(v.u.i);
        return true;
    case ATTR_BOOL:
        if (v.kind != RV_BOOL)
            return false;
        *out = attr_bool(v.u.i != 0);
        return true;
    case ATTR_TYPE:
        if (v.kind != RV_TYPE)
            return false;
        *out = attr_type((graft_type)v.u.i);
        return true;
    case ATTR_FLOAT:
        if (!is_numeric(&v))
            return false;
        *out = attr_float(as_double(&v));
        return true;
    case ATTR_STRING:
        if (v.kind != RV_STRING)
            return false;
        *out = attr_string(v.u.s);
        return true;
    case ATTR_INTS:
        if (v.kind != RV_INTS)
            return false;
        *out = attr_ints(v.u.ints, v.n);
        return true;
    case ATTR_FLOATS: {
        if (v.kind != RV_FLOATS && v.kind != RV_INTS)
            return false;
        if (v.kind == RV_FLOATS) {
            *out = attr_floats(v.u.floats, v.n);
            return true;
        }
        double *d = arena_alloc(mem, sizeof(double) * (size_t)(v.n ? v.n : 1));
        if (!d)
            return false;
        for (int k = 0; k < v.n; k++)
            d[k] = list_item(&v, k);
        *out = attr_floats(d, v.n);
        return true;
    }
    }
    return false;
}

static attr *api_copy_attrs(arena *mem, const ins *i)
{
    if (i->nattrs == 0)
        return NULL;
    return arena_dup(mem, i->attrs, sizeof(attr) * (size_t)i->nattrs);
}

static bool api_make_list(arena *mem, const rule_value *items, int n, rule_value *out)
{
    bool any_float = false;
    for (int k = 0; k < n; k++) {
        if (!is_numeric(&items[k]))
            return false;
        any_float |= items[k].kind == RV_FLOAT;
    }
    if (any_float) {
        double *d = arena_alloc(mem, sizeof(double) * (size_t)(n ? n : 1));
        if (!d)
            return false;
        for (int k = 0; k < n; k++)
            d[k] = as_double(&items[k]);
        out->kind = RV_FLOATS;
        out->n = n;
        out->u.floats = d;
        return true;
    }
    int64_t *v = arena_alloc(mem, sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!v)
        return false;
    for (int k = 0; k < n; k++)
        v[k] = items[k].u.i;
    out->kind = RV_INTS;
    out->n = n;
    out->u.ints = v;
    return true;
}

static rule_helper_fn api_helper_find(const char *name)
{
    const rule_helper *h = rule_helper_find(name);
    return h ? h->fn : NULL;
}

/* The registry's functions by index, for generated code to call in one
 * load (graft_rule_api.helpers). Filled once, before any rule set can see
 * the table: graft_rule_api_get and helper_at run the fill first. */
enum { API_HELPERS_MAX = 1024 };
static rule_helper_fn helper_fns[API_HELPERS_MAX];
static int helper_fns_count;
static pthread_once_t helper_fns_once = PTHREAD_ONCE_INIT;

static void fill_helper_fns(void)
{
    int n;
    const rule_helper *all = rule_helpers(&n);
    for (int i = 0; i < n && i < API_HELPERS_MAX; i++)
        helper_fns[i] = all[i].fn;
    helper_fns_count = n < API_HELPERS_MAX ? n : API_HELPERS_MAX;
}

static rule_helper_fn api_helper_at(int index)
{
    pthread_once(&helper_fns_once, fill_helper_fns);
    return index >= 0 && index < helper_fns_count ? helper_fns[index] : NULL;
}

static const graft_rule_api api_table = {
    .version = GRAFT_RULE_API_VERSION,
    .size = sizeof(graft_rule_api),
    .op_find = op_find,
    .op_attr_index = op_attr_index,
    .helper_find = api_helper_find,
    .op_by_code = op_by_code,
    .helper_at = api_helper_at,
    .helpers = helper_fns,
    .attempt = rw_attempt,
    .insert = rw_insert,
    .literal = rw_literal,
    .replace = rw_replace,
    .commit_in_place = rw_commit_in_place,
    .set_arg = rw_set_arg,
    .abort = rw_abort,
    .arena_of = rw_arena,
    .attr_get = api_attr_get,
    .attr_equals = api_attr_equals,
    .field = api_field,
    .compare = api_compare,
    .arith = api_arith,
    .to_attr = api_to_attr,
    .copy_attrs = api_copy_attrs,
    .make_list = api_make_list,
    .fold = rule_fold_constant,
    .region = rw_region,
    .replace_region = rw_replace_region,
    .merge = rw_merge,
    .split_tail = rw_split_tail,
};

const graft_rule_api *graft_rule_api_get(void)
{
    pthread_once(&helper_fns_once, fill_helper_fns);
    return &api_table;
}
