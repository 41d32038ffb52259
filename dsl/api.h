/* api.h: the graft_rule_api table through which generated rule code reaches
 * graft, and the value type its guards and computed attributes work in.
 *
 * Compiled rules run in two places: linked into graft (rules/NAME.rules, built
 * with graft) and in a shared object built from a user's file at run time
 * (graft opt -r mine.rules). A dlopen'ed object cannot rely on graft's
 * symbols being visible, so generated code calls nothing by symbol: its
 * entry point receives this table and every graph query, mutation (the rw_*
 * functions of engine/rewrite.h), op lookup and helper call goes through
 * it. Built-in rules are handed the same table, so both run identical code.
 *
 * This header is embedded into graft (build/gen/embedded_headers.c) and
 * written next to generated C when a user's rules are compiled, together
 * with the headers it includes. Only additive changes: bump
 * GRAFT_RULE_API_VERSION when the layout changes.
 */
#ifndef GRAFT_DSL_API_H
#define GRAFT_DSL_API_H

#include "rewrite.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define GRAFT_RULE_API_VERSION 4

/* The kinds of values guard expressions compute. The rule compiler's
 * dsl_type (dsl/ast.h) is defined from these (TY_BOOL = RV_BOOL, ...). */
typedef enum rule_value_kind {
    RV_BOOL = 1,
    RV_INT,
    RV_FLOAT,
    RV_INTS,
    RV_FLOATS,
    RV_TYPE,
    RV_SHAPE,
    RV_INS,
    RV_STRING,
} rule_value_kind;

typedef struct rule_value {
    int kind;                  /* rule_value_kind */
    int n;                     /* INTS / FLOATS */
    union {
        int64_t i;             /* BOOL, INT, TYPE */
        double f;
        const int64_t *ints;
        const double *floats;
        const shape *sh;
        ins *in;
        const char *s;
    } u;
} rule_value;

/* A helper callable from guards and computed attributes. Returns false when
 * it cannot compute a result: the rule then does not fire. Results that
 * point at memory (lists) are allocated from `mem` (the graph's arena). */
typedef bool (*rule_helper_fn)(arena *mem, const rule_value *args, int nargs, rule_value *out);

/* Fields readable with `.name` on an instruction. */
enum rule_field {
    RULE_FIELD_SHAPE = 1,
    RULE_FIELD_LENS,
    RULE_FIELD_STRIDES,
    RULE_FIELD_TYPE,
    RULE_FIELD_RANK,
    RULE_FIELD_ELEMENTS,
};

/* Binary operators of the expression language. The rule compiler's
 * dsl_binop (dsl/ast.h) is defined from these (DSL_OP_EQ = RULE_OP_EQ, ...);
 * && and || (1 and 2) never reach the API. */
enum rule_operator {
    RULE_OP_EQ = 3, RULE_OP_NE, RULE_OP_LT, RULE_OP_LE, RULE_OP_GT, RULE_OP_GE,
    RULE_OP_ADD, RULE_OP_SUB, RULE_OP_MUL, RULE_OP_DIV,
};

typedef struct graft_rule_api {
    int version;     /* GRAFT_RULE_API_VERSION */
    size_t size;     /* sizeof(graft_rule_api) */

    /* ---- lookups ---- */
    /* Generated code names ops by code (op_def.code), attributes by their
     * index in the op's declaration and helpers by their index in the
     * registry, as constants fixed when the rules were compiled; the entry
     * function checks each against these lookups before handing out its
     * rule set, so a rule set never runs against a graft numbered otherwise. */
    const op_def *(*op_find)(const char *name);
    int (*op_attr_index)(const op_def *op, const char *name);
    rule_helper_fn (*helper_find)(const char *name);
    const op_def *(*op_by_code)(int code);          /* NULL if none */
    rule_helper_fn (*helper_at)(int index);         /* NULL if none */
    /* The registry's functions by index: helpers[i] is helper_at(i) for
     * every i where that is not NULL (the entry function checks its own). */
    const rule_helper_fn *helpers;

    /* ---- engine/rewrite.h ---- */
    bool (*attempt)(rewriter *rw, int rule, ins *root);
    ins *(*insert)(rewriter *rw, ins *before, const op_def *op, const attr *attrs, int nattrs,
                   ins *const *args, int nargs);
    ins *(*literal)(rewriter *rw, ins *before, const shape *sh, const void *data);
    void (*replace)(rewriter *rw, ins *old, ins *rep);
    void (*commit_in_place)(rewriter *rw, ins *root);
    void (*set_arg)(rewriter *rw, ins *i, int k, ins *v);
    void (*abort)(rewriter *rw);
    arena *(*arena_of)(rewriter *rw);

    /* ---- values ---- */
    /* Attribute `index` of i (declared by i's op) as a value. */
    rule_value (*attr_get)(const ins *i, int index);
    /* True when attribute `index` of i equals v (v in the attribute's kind). */
    bool (*attr_equals)(const ins *i, int index, const attr_value *v);
    /* i.shape, i.lens, ... (enum rule_field). */
    rule_value (*field)(ins *i, int field);
    /* a OP b for comparisons (RULE_OP_EQ..GE): result in *out as RV_BOOL. */
    bool (*compare)(rule_value a, int op, rule_value b, rule_value *out);
    /* a OP b for arithmetic on int/float (RULE_OP_ADD..DIV); false on
     * division by zero. */
    bool (*arith)(rule_value a, int op, rule_value b, rule_value *out);
    /* Converts a value to an attribute value of `kind` for A->insert, which
     * copies it: the result may point at v's list or string (mem holds only
     * a list converted to floats). False when it does not fit. */
    bool (*to_attr)(arena *mem, rule_value v, int kind, attr_value *out);
    /* A copy of i's attributes (i->nattrs entries) in mem, to be changed. */
    attr *(*copy_attrs)(arena *mem, const ins *i);
    /* A list value built from n values (all int: ints; else floats). */
    bool (*make_list)(arena *mem, const rule_value *items, int n, rule_value *out);

    /* ---- constant folding (the `=> fold(c)` replacement) ---- */
    /* Inserts before `before` a new literal holding value's value, computed
     * by value's reference kernel on its operands, which must all be
     * literals; the literal has value's exact shape (type, lens, strides).
     * NULL when it cannot (see dsl/const_fold.h): the rule then aborts. */
    ins *(*fold)(rewriter *rw, ins *before, ins *value);

    /* ---- fused regions (the `=> region(...) -> (...)` replacement) ---- */
    /* rw_region and rw_replace_region of engine/rewrite.h. */
    ins *(*region)(rewriter *rw, ins *before, ins *const *members, int nmembers,
                   ins *const *outputs, int noutputs, ins **replacements);
    void (*replace_region)(rewriter *rw, ins *const *members, int nmembers, ins *const *outputs,
                           ins *const *replacements, int noutputs);

    /* ---- growing regions (absorb_producer, absorb_consumer, merge_siblings) ---- */
    /* rw_merge of engine/rewrite.h. */
    bool (*merge)(rewriter *rw, ins *const *parts, int nparts);

    /* ---- splitting a region's tail into its reader (split_tail_into) ---- */
    /* rw_split_tail of engine/rewrite.h. */
    bool (*split_tail)(rewriter *rw, ins *p, ins *c);
} graft_rule_api;

/* The table graft hands to rule sets. */
const graft_rule_api *graft_rule_api_get(void);

/* The entry point a rule shared object exports (graft opt -r): it keeps the
 * table and returns its rule set, or NULL when the table is too old or an op
 * or helper it names is unknown to this graft. */
typedef const rule_set *(*graft_rules_entry_fn)(const graft_rule_api *api);
#define GRAFT_RULES_ENTRY "graft_rules_entry"

static inline rule_value rule_bool(bool b)
{
    rule_value v = {RV_BOOL, 0, {.i = b}};
    return v;
}
static inline rule_value rule_int(int64_t i)
{
    rule_value v = {RV_INT, 0, {.i = i}};
    return v;
}
static inline rule_value rule_float(double f)
{
    rule_value v = {RV_FLOAT, 0, {.f = f}};
    return v;
}
static inline rule_value rule_type(int t)
{
    rule_value v = {RV_TYPE, 0, {.i = t}};
    return v;
}
static inline rule_value rule_ins(ins *i)
{
    rule_value v = {RV_INS, 0, {.in = i}};
    return v;
}

/* The table's attr_get and field (every field but RULE_FIELD_ELEMENTS,
 * which needs shape_elements) as reads of i that generated leaves make
 * without a call through the table (a failed rule attempt is mostly such
 * reads). rule_field inlines to a load or two; rule_attr stays one copy per
 * file (noinline): its switch on the kind, copied into every guard, grew
 * the built-in rule sets' code by 70 KB. api.c's table entries are these
 * same functions, so the two cannot disagree. */
static inline rule_value rule_value_of_attr(attr_value v)
{
    rule_value r = {0, 0, {.i = 0}};
    switch (v.kind) {
    case ATTR_INT: r.kind = RV_INT; r.u.i = v.u.i; break;
    case ATTR_BOOL: r.kind = RV_BOOL; r.u.i = v.u.i; break;
    case ATTR_TYPE: r.kind = RV_TYPE; r.u.i = v.u.i; break;
    case ATTR_FLOAT: r.kind = RV_FLOAT; r.u.f = v.u.f; break;
    case ATTR_STRING: r.kind = RV_STRING; r.u.s = v.u.s; break;
    case ATTR_INTS: r.kind = RV_INTS; r.n = v.n; r.u.ints = v.u.ints; break;
    case ATTR_FLOATS: r.kind = RV_FLOATS; r.n = v.n; r.u.floats = v.u.floats; break;
    }
    return r;
}
__attribute__((unused, noinline)) static rule_value rule_attr(const ins *i, int index)
{
    if (index < 0 || index >= i->nattrs)
        return rule_bool(false);
    return rule_value_of_attr(i->attrs[index].v);
}
static inline rule_value rule_field(ins *i, int field)
{
    rule_value r = {0, 0, {.i = 0}};
    switch (field) {
    case RULE_FIELD_SHAPE: r.kind = RV_SHAPE; r.u.sh = &i->sh; break;
    case RULE_FIELD_LENS: r.kind = RV_INTS; r.n = i->sh.rank; r.u.ints = i->sh.lens; break;
    case RULE_FIELD_STRIDES: r.kind = RV_INTS; r.n = i->sh.rank; r.u.ints = i->sh.strides; break;
    case RULE_FIELD_TYPE: r.kind = RV_TYPE; r.u.i = i->sh.type; break;
    case RULE_FIELD_RANK: r.kind = RV_INT; r.u.i = i->sh.rank; break;
    default: r = rule_bool(false); break;
    }
    return r;
}

/* The guard language's comparisons (the table's compare), inlined into
 * generated guards: a failed rule attempt is mostly a comparison or two, and
 * a call through the table apiece was a fair part of its cost. Only two
 * shapes are compared through A (shape_equal is graft's); api.c's
 * table entry is this function with that case added, so both agree. */
static inline bool rule_is_numeric(const rule_value *v) { return v->kind == RV_INT || v->kind == RV_FLOAT; }
static inline double rule_as_double(const rule_value *v)
{
    return v->kind == RV_FLOAT ? v->u.f : (double)v->u.i;
}
static inline double rule_list_item(const rule_value *v, int k)
{
    return v->kind == RV_INTS ? (double)v->u.ints[k] : v->u.floats[k];
}
static inline bool rule_compare(const graft_rule_api *A, rule_value a, int op, rule_value b, rule_value *out)
{
    if (op == RULE_OP_EQ || op == RULE_OP_NE) {
        bool eq;
        if (rule_is_numeric(&a) && rule_is_numeric(&b)) {
            if (a.kind == RV_INT && b.kind == RV_INT)
                eq = a.u.i == b.u.i;
            else
                eq = rule_as_double(&a) == rule_as_double(&b);
        } else if ((a.kind == RV_INTS || a.kind == RV_FLOATS) && (b.kind == RV_INTS || b.kind == RV_FLOATS)) {
            eq = a.n == b.n;
            for (int k = 0; eq && k < a.n; k++)
                eq = rule_list_item(&a, k) == rule_list_item(&b, k);
        } else if (a.kind != b.kind) {
            return false;
        } else {
            switch (a.kind) {
            case RV_BOOL:
            case RV_TYPE: eq = a.u.i == b.u.i; break;
            case RV_SHAPE: return A->compare(a, op, b, out);
            case RV_INS: eq = a.u.in == b.u.in; break;
            case RV_STRING: eq = strcmp(a.u.s, b.u.s) == 0; break;
            default: return false;
            }
        }
        *out = rule_bool(op == RULE_OP_EQ ? eq : !eq);
        return true;
    }
    if (!rule_is_numeric(&a) || !rule_is_numeric(&b))
        return false;
    bool r;
    if (a.kind == RV_INT && b.kind == RV_INT) {
        int64_t x = a.u.i, y = b.u.i;
        r = op == RULE_OP_LT ? x < y : op == RULE_OP_LE ? x <= y : op == RULE_OP_GT ? x > y : x >= y;
    } else {
        double x = rule_as_double(&a), y = rule_as_double(&b);
        r = op == RULE_OP_LT ? x < y : op == RULE_OP_LE ? x <= y : op == RULE_OP_GT ? x > y : x >= y;
    }
    if (op < RULE_OP_LT || op > RULE_OP_GE)
        return false;
    *out = rule_bool(r);
    return true;
}

#endif
