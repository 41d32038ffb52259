/* emit.c: writes the C of a rule set from its decision trees.
 *
 * The generated file is self-contained C11 that includes only dsl/api.h (and
 * the IR headers it pulls in). It touches the graph only through the
 * graft_rule_api table handed to its entry function, so the same text works
 * linked into graft and loaded from a shared object; only reads of an
 * instruction (operands, op, attributes, shape fields) and comparisons of
 * the values read are made in place, by api.h's inline functions, which the
 * table's own entries are built from. It fills no table at
 * run time: everything it names is a constant fixed when the rules were
 * compiled, so a rule set is ready, and safe to run from any number of
 * threads, once its entry function has checked those constants. Its layout:
 *   - named constants: op codes (OP_pad = op_def.code), attribute slots
 *     (ATTR_pad_mode: the attribute's index in its op's declaration),
 *     helpers (HELPER_spatial_only: the registry index), rules
 *     (RULE_pad_into_convolution: the rule's position), and one attr_value
 *     per distinct list or string literal that a pattern compares with;
 *   - the leaves: one `fire_*` function per distinct leaf, which opens the
 *     match (rw_attempt; the arena only when the leaf uses it), evaluates
 *     guards and lets, builds the replacement
 *     (rw_insert; a fold(c) literal through A->fold) and commits it
 *     (rw_replace / rw_commit_in_place) or undoes it (rw_abort) when a
 *     helper, a fold or a shape rule fails. Leaves that differ only in such
 *     constants (the rule, an op, an attribute slot, a helper, a number) are
 *     one function taking the ones that differ as parameters;
 *   - one `match_*` function per decision tree, where a run of operand-op
 *     tests becomes a switch on the op code behind a test of the set of its
 *     case ops (OPSET_*: one well-predicted branch for the usual operand that
 *     no case wants);
 *   - `apply`, which only dispatches: a switch on the root's op code, then,
 *     for the ops that only class rules apply to, one test of the class
 *     (tree.c decides which), not a copy of the tree per op;
 *   - the entry function, which checks each constant against the graft it
 *     runs in and publishes the API table with one atomic store.
 * Every branch carries a comment naming its rules and their file:line, so a
 * reader of the generated code (or of a trace) finds the rule at once.
 */
#include "compile.h"

#include "api.h"
#include "helpers.h"
#include "strbuf.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The emitter writes through ir/strbuf.h; an allocation failure is noted
 * in the buffer (failed) and reported once, where the text is taken. */
typedef strbuf buf;

static void out(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_appendv(b, fmt, ap);
    va_end(ap);
}

static void indent(buf *b, int depth)
{
    for (int i = 0; i < depth; i++)
        out(b, "    ");
}

static const char *text_of(const buf *b) { return b->text ? b->text : ""; }

static void c_string(buf *b, const char *s)
{
    out(b, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            out(b, "\\%c", *s);
        else if ((unsigned char)*s < 32)
            out(b, "\\%03o", (unsigned char)*s);
        else
            out(b, "%c", *s);
    }
    out(b, "\"");
}

static void c_double(char *dst, size_t size, double d)
{
    if (isinf(d))
        snprintf(dst, size, "%s", d < 0 ? "(-__builtin_inf())" : "__builtin_inf()");
    else if (isnan(d))
        snprintf(dst, size, "__builtin_nan(\"\")");
    else
        snprintf(dst, size, "%.17g", d);
}

/* ---- growable arrays in the file's arena ---- */

static void *grow(dsl_file *f, void *items, int n, int *cap, size_t size)
{
    if (n < *cap)
        return items;
    int c = *cap ? *cap * 2 : 16;
    void *p = dsl_alloc(f, size * (size_t)c);
    if (n)
        memcpy(p, items, size * (size_t)n);
    *cap = c;
    return p;
}

/* ---- names of C constants ---- */

/* A kind of constant a leaf can take as a parameter, or a note (comment
 * text) that is merged instead. */
typedef enum hole_kind {
    HOLE_RULE,   /* RULE_x */
    HOLE_OP,     /* OP_x */
    HOLE_ATTR,   /* ATTR_op_attr */
    HOLE_HELPER, /* HELPER_x */
    HOLE_INT,    /* an int literal of an expression */
    HOLE_FLOAT,  /* a float literal of an expression */
    HOLE_TYPE,   /* GRAFT_FLOAT, ... */
    HOLE_NOTE,   /* inside a comment: a line number, a capture's name */
} hole_kind;

typedef struct named_attr {
    const op_def *op;
    int index;
    const char *name;
} named_attr;

typedef struct named_literal {
    attr_value v;
    const char *name;
} named_literal;

/* The ops one operand switch has cases for, as a bit per op code. */
typedef struct op_set {
    uint64_t *bits;
    int nwords;
    const char *name;
} op_set;

/* One leaf function: the code of one or more rule variants that emitted the
 * same text up to their constants (holes). */
typedef struct leaf {
    const char *code;          /* the body, each hole written as \1N\1 */
    hole_kind *kinds;          /* per hole */
    int nholes;
    const dsl_variant **variants;
    const char ***texts;       /* per variant, per hole: the constant's C text */
    int nvariants, cap;
    /* decided once every leaf is known */
    const char *fname;
    int *param_of;             /* per hole: its parameter, or -1 when inlined */
    int nparams;
    int *param_hole;           /* per parameter: a hole that takes it */
    const char **param_name;
} leaf;

typedef struct emitter {
    dsl_file *f;
    graft_error *err;
    bool failed;
    /* names handed out */
    const char **used;
    int nused, capused;
    int nall_ops;              /* op codes run 1..nall_ops */
    const char **op_name;      /* by op code */
    named_attr *attrs;
    int nattrs, capattrs;
    const char **helper_name;  /* by registry index */
    int nregistry;
    const char **rule_name;    /* by rule index */
    named_literal *lits;
    int nlits, caplits;
    op_set *sets;              /* the case ops of operand switches */
    int nsets, capsets;
    /* leaves */
    leaf *leaves;
    int nleaves, capleaves;
    int *first_variant;        /* by rule index: the index of its variant 0 */
    int *leaf_of, *slot_of;    /* by variant index */
    /* the leaf being emitted */
    const dsl_variant *v;
    int ntemps;
    bool uses_fail;
    /* Emitting explain (graft opt --explain), which runs once per question:
     * attributes, fields and comparisons through the table, keeping that
     * code small. Leaves (every rule attempt) read and compare inline. */
    bool cold;
    hole_kind *hkinds;
    const char **htexts;
    int nholes, capholes;
} emitter;

static bool name_used(const emitter *e, const char *name)
{
    for (int i = 0; i < e->nused; i++)
        if (strcmp(e->used[i], name) == 0)
            return true;
    return false;
}

/* name, or name_2, name_3, ... if taken: an identifier of the file's own. */
static const char *unique_name(emitter *e, const char *name)
{
    char unique[320];
    snprintf(unique, sizeof unique, "%s", name);
    for (int k = 2; name_used(e, unique); k++)
        snprintf(unique, sizeof unique, "%s_%d", name, k);
    e->used = grow(e->f, e->used, e->nused, &e->capused, sizeof *e->used);
    e->used[e->nused] = dsl_strndup(e->f, unique, strlen(unique));
    return e->used[e->nused++];
}

/* A fresh C identifier: prefix + source name with every character that
 * cannot be in an identifier replaced ('@' dropped). A name with no lower
 * case letter gets `_value` appended, so that it cannot be one of the
 * headers' upper-case constants (RULE_OP_EQ, ATTR_INT); a name taken
 * already gets a number. */
static const char *fresh_name(emitter *e, const char *prefix, const char *source, long long value)
{
    char base[256];
    size_t n = (size_t)snprintf(base, sizeof base, "%s", prefix);
    bool lower = false;
    for (const char *s = source; *s && n + 1 < sizeof base - 40; s++) {
        char c = *s;
        if (c == '@')
            continue;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            c = '_';
        lower = lower || (c >= 'a' && c <= 'z');
        base[n++] = c;
    }
    base[n] = '\0';
    if (!lower)
        snprintf(base + n, sizeof base - n, "_%lld", value);
    return unique_name(e, base);
}

static const char *op_const(emitter *e, const op_def *op)
{
    if (op->code <= 0 || op->code > e->nall_ops || op_by_code(op->code) != op) {
        e->failed = true; /* not an op of the table: cannot happen after sema */
        error_set(e->err, "%s: op '%s' is not in graft's op table", e->f->path, op->name);
        return "0";
    }
    if (!e->op_name[op->code])
        e->op_name[op->code] = fresh_name(e, "OP_", op->name, op->code);
    return e->op_name[op->code];
}

static const char *attr_const(emitter *e, const op_def *op, int index)
{
    for (int i = 0; i < e->nattrs; i++)
        if (e->attrs[i].op == op && e->attrs[i].index == index)
            return e->attrs[i].name;
    char source[256];
    snprintf(source, sizeof source, "%s_%s", op->name, op->attrs[index].name);
    op_const(e, op); /* the entry function checks the slot through the op's code */
    e->attrs = grow(e->f, e->attrs, e->nattrs, &e->capattrs, sizeof *e->attrs);
    named_attr *a = &e->attrs[e->nattrs++];
    a->op = op;
    a->index = index;
    a->name = fresh_name(e, "ATTR_", source, index);
    return a->name;
}

static const char *helper_const(emitter *e, int index)
{
    if (index < 0 || index >= e->nregistry) {
        e->failed = true;
        error_set(e->err, "%s: helper %d is not in graft's registry", e->f->path, index);
        return "0";
    }
    int n;
    const rule_helper *h = &rule_helpers(&n)[index];
    if (!e->helper_name[index])
        e->helper_name[index] = fresh_name(e, "HELPER_", h->name, index);
    return e->helper_name[index];
}

static const char *rule_const(emitter *e, const dsl_rule *r)
{
    if (!e->rule_name[r->index])
        e->rule_name[r->index] = fresh_name(e, "RULE_", r->name, r->index);
    return e->rule_name[r->index];
}

/* The named attr_value for a list or string literal, one per value. */
static const char *literal_const(emitter *e, const attr_value *v)
{
    for (int i = 0; i < e->nlits; i++)
        if (e->lits[i].v.kind == v->kind && attr_value_equal(e->lits[i].v, *v))
            return e->lits[i].name;
    char source[128];
    size_t n = 0;
    /* Short lists of small ints are named by their values: LIT_INTS_0_1_3_2. */
    bool by_value = v->kind == ATTR_INTS && v->n <= 8;
    for (int i = 0; by_value && i < v->n; i++)
        by_value = v->u.ints[i] > -100 && v->u.ints[i] < 100;
    const char *kind = v->kind == ATTR_INTS ? "INTS" : v->kind == ATTR_FLOATS ? "FLOATS" : "STRING";
    n = (size_t)snprintf(source, sizeof source, "%s", kind);
    if (by_value) {
        if (v->n == 0)
            snprintf(source + n, sizeof source - n, "_EMPTY");
        for (int i = 0; i < v->n; i++)
            n += (size_t)snprintf(source + n, sizeof source - n, "_%s%" PRId64, v->u.ints[i] < 0 ? "M" : "",
                                  v->u.ints[i] < 0 ? -v->u.ints[i] : v->u.ints[i]);
    } else {
        snprintf(source + n, sizeof source - n, "_%d", e->nlits);
    }
    e->lits = grow(e->f, e->lits, e->nlits, &e->caplits, sizeof *e->lits);
    named_literal *l = &e->lits[e->nlits++];
    l->v = *v;
    /* LIT_ names collide with nothing in the headers: no `_value` needed. */
    char name[160];
    snprintf(name, sizeof name, "LIT_%s", source);
    l->name = unique_name(e, name);
    return l->name;
}

/* The named bit set of the case ops of items [from, to) of n (one per
 * distinct set). */
static const char *op_set_const(emitter *e, const dsl_tnode *n, int from, int to)
{
    int nwords = e->nall_ops / 64 + 1;
    uint64_t *bits = dsl_alloc(e->f, sizeof *bits * (size_t)nwords);
    memset(bits, 0, sizeof *bits * (size_t)nwords);
    for (int k = from; k < to; k++) {
        int code = n->items[k].child->test.op->code;
        op_const(e, n->items[k].child->test.op); /* named, so checked at entry */
        bits[code / 64] |= 1ull << (code % 64);
    }
    for (int i = 0; i < e->nsets; i++)
        if (memcmp(e->sets[i].bits, bits, sizeof *bits * (size_t)nwords) == 0)
            return e->sets[i].name;
    e->sets = grow(e->f, e->sets, e->nsets, &e->capsets, sizeof *e->sets);
    op_set *set = &e->sets[e->nsets];
    set->bits = bits;
    set->nwords = nwords;
    char name[32];
    snprintf(name, sizeof name, "OPSET_%d", e->nsets++);
    set->name = unique_name(e, name);
    return set->name;
}

static void emit_literal_definition(buf *b, const named_literal *l)
{
    const attr_value *v = &l->v;
    char d[64];
    switch (v->kind) {
    case ATTR_INTS:
        /* compared in place by ints_equal: the values are enough */
        out(b, "static const int64_t %s[] = {", l->name);
        for (int i = 0; i < v->n; i++)
            out(b, "%s%" PRId64, i ? ", " : "", v->u.ints[i]);
        out(b, "%s};\n", v->n ? "" : "0");
        break;
    case ATTR_FLOATS:
        out(b, "static const double %s_DATA[] = {", l->name);
        for (int i = 0; i < v->n; i++) {
            c_double(d, sizeof d, v->u.floats[i]);
            out(b, "%s%s", i ? ", " : "", d);
        }
        out(b, "%s};\n", v->n ? "" : "0");
        out(b, "static const attr_value %s = {ATTR_FLOATS, %d, {.floats = %s_DATA}};\n", l->name, v->n,
            l->name);
        break;
    default:
        out(b, "static const attr_value %s = {ATTR_STRING, 0, {.s = ", l->name);
        c_string(b, v->u.s ? v->u.s : "");
        out(b, "}};\n");
        break;
    }
}

static const char *attr_kind_c(attr_kind k)
{
    switch (k) {
    case ATTR_INT: return "ATTR_INT";
    case ATTR_FLOAT: return "ATTR_FLOAT";
    case ATTR_BOOL: return "ATTR_BOOL";
    case ATTR_STRING: return "ATTR_STRING";
    case ATTR_INTS: return "ATTR_INTS";
    case ATTR_FLOATS: return "ATTR_FLOATS";
    case ATTR_TYPE: return "ATTR_TYPE";
    }
    return "ATTR_INT";
}

static const char *type_c(int64_t t)
{
    static const char *const names[] = {
        "GRAFT_BOOL",   "GRAFT_HALF",  "GRAFT_FLOAT",  "GRAFT_DOUBLE", "GRAFT_UINT8",
        "GRAFT_INT8",   "GRAFT_UINT16", "GRAFT_INT16", "GRAFT_INT32",  "GRAFT_INT64",
        "GRAFT_UINT32", "GRAFT_UINT64", "GRAFT_BF16",  "GRAFT_TUPLE",
    };
    _Static_assert(sizeof names / sizeof names[0] == GRAFT_TYPE_COUNT, "one name per graft_type");
    return t >= 0 && t < GRAFT_TYPE_COUNT ? names[t] : "GRAFT_TYPE_COUNT";
}

static const char *operator_c(int op)
{
    switch (op) {
    case RULE_OP_EQ: return "RULE_OP_EQ";
    case RULE_OP_NE: return "RULE_OP_NE";
    case RULE_OP_LT: return "RULE_OP_LT";
    case RULE_OP_LE: return "RULE_OP_LE";
    case RULE_OP_GT: return "RULE_OP_GT";
    case RULE_OP_GE: return "RULE_OP_GE";
    case RULE_OP_ADD: return "RULE_OP_ADD";
    case RULE_OP_SUB: return "RULE_OP_SUB";
    case RULE_OP_MUL: return "RULE_OP_MUL";
    case RULE_OP_DIV: return "RULE_OP_DIV";
    }
    return "0";
}

static const char *field_c(int field)
{
    switch (field) {
    case FIELD_SHAPE: return "RULE_FIELD_SHAPE";
    case FIELD_LENS: return "RULE_FIELD_LENS";
    case FIELD_STRIDES: return "RULE_FIELD_STRIDES";
    case FIELD_TYPE: return "RULE_FIELD_TYPE";
    case FIELD_RANK: return "RULE_FIELD_RANK";
    case FIELD_ELEMENTS: return "RULE_FIELD_ELEMENTS";
    }
    return "0";
}
_Static_assert((int)FIELD_SHAPE == (int)RULE_FIELD_SHAPE && (int)FIELD_LENS == (int)RULE_FIELD_LENS &&
                   (int)FIELD_STRIDES == (int)RULE_FIELD_STRIDES && (int)FIELD_TYPE == (int)RULE_FIELD_TYPE &&
                   (int)FIELD_RANK == (int)RULE_FIELD_RANK &&
                   (int)FIELD_ELEMENTS == (int)RULE_FIELD_ELEMENTS,
               "dsl_field (dsl/ast.h) numbers the fields as rule_field (dsl/api.h)");

/* `OPC_UNARY`, or `(OPC_UNARY | OPC_BINARY)`, for a set of class bits. */
static void classes_c(unsigned bits, char *dst, size_t size)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {
        {OPC_POINTWISE, "OPC_POINTWISE"}, {OPC_UNARY, "OPC_UNARY"},   {OPC_BINARY, "OPC_BINARY"},
        {OPC_REDUCE, "OPC_REDUCE"},       {OPC_VIEW, "OPC_VIEW"},     {OPC_COMPUTE, "OPC_COMPUTE"},
        {OPC_MOVE, "OPC_MOVE"},           {OPC_BUILTIN, "OPC_BUILTIN"}, {OPC_OPAQUE, "OPC_OPAQUE"},
        {OPC_SHAPE, "OPC_SHAPE"},         {OPC_REGION, "OPC_REGION"},
    };
    size_t n = 0;
    dst[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (bits & names[i].bit) {
            n += (size_t)snprintf(dst + n, n < size ? size - n : 0, "%s%s", n ? " | " : "", names[i].name);
            bits &= ~names[i].bit;
        }
    if (bits || !n)
        n += (size_t)snprintf(dst + n, n < size ? size - n : 0, "%s0x%xu", n ? " | " : "", bits);
    if (strchr(dst, '|') && n + 3 < size) {
        memmove(dst + 1, dst, n + 1);
        dst[0] = '(';
        dst[n + 1] = ')';
        dst[n + 2] = '\0';
    }
}

/* ---- holes ---- */

/* Writes a constant into a leaf's code as a hole. */
static void hole(emitter *e, buf *b, hole_kind kind, const char *text)
{
    if (e->nholes == e->capholes) {
        int cap = e->capholes ? e->capholes * 2 : 16;
        hole_kind *kinds = dsl_alloc(e->f, sizeof *kinds * (size_t)cap);
        const char **texts = dsl_alloc(e->f, sizeof *texts * (size_t)cap);
        if (e->nholes) {
            memcpy(kinds, e->hkinds, sizeof *kinds * (size_t)e->nholes);
            memcpy(texts, e->htexts, sizeof *texts * (size_t)e->nholes);
        }
        e->hkinds = kinds;
        e->htexts = texts;
        e->capholes = cap;
    }
    e->hkinds[e->nholes] = kind;
    e->htexts[e->nholes] = dsl_strndup(e->f, text, strlen(text));
    out(b, "\1%d\1", e->nholes++);
}

static void hole_int(emitter *e, buf *b, hole_kind kind, long long v)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", v);
    hole(e, b, kind, text);
}

/* ---- tests (in apply) ---- */

static void emit_condition(emitter *e, buf *b, const dsl_test *t)
{
    char p[256], p2[256], cls[256];
    dsl_path_c(&t->path, p, sizeof p);
    switch (t->kind) {
    case TEST_OP:
        out(b, "%s->op->code == %s", p, op_const(e, t->op));
        break;
    case TEST_NOT_OP:
        out(b, "%s->op->code != %s", p, op_const(e, t->op));
        break;
    case TEST_CLASS:
        classes_c(t->classes, cls, sizeof cls);
        out(b, "(%s->op->classes & %s) != 0", p, cls);
        break;
    case TEST_NOT_CLASS:
        classes_c(t->classes, cls, sizeof cls);
        out(b, "(%s->op->classes & %s) == 0", p, cls);
        break;
    case TEST_NARGS:
        out(b, "%s->nargs == %d", p, t->n);
        break;
    case TEST_NARGS_MIN:
        out(b, "%s->nargs >= %d", p, t->n);
        break;
    case TEST_ONCE:
        out(b, "%s->nusers == 1", p);
        break;
    case TEST_ATTR: {
        const char *a = attr_const(e, t->op, t->attr_index);
        const attr_spec *spec = &t->op->attrs[t->attr_index];
        char d[64];
        switch (t->lit->kind) {
        case ATTR_INT: {
            out(b, "%s->attrs[%s].v.u.i == %" PRId64, p, a, t->lit->u.i);
            int n = 0;
            while (spec->enum_names && spec->enum_names[n])
                n++;
            if (t->lit->u.i >= 0 && t->lit->u.i < n)
                out(b, " /* %s */", spec->enum_names[t->lit->u.i]);
            break;
        }
        case ATTR_BOOL:
            out(b, "%s->attrs[%s].v.u.i == %s", p, a, t->lit->u.i ? "true" : "false");
            break;
        case ATTR_TYPE:
            out(b, "%s->attrs[%s].v.u.i == %s", p, a, type_c(t->lit->u.i));
            break;
        case ATTR_FLOAT:
            if (isnan(t->lit->u.f)) {
                out(b, "__builtin_isnan(%s->attrs[%s].v.u.f)", p, a);
            } else {
                c_double(d, sizeof d, t->lit->u.f);
                out(b, "%s->attrs[%s].v.u.f == %s", p, a, d);
            }
            break;
        case ATTR_INTS:
            if (t->lit->n == 0)
                out(b, "%s->attrs[%s].v.n == 0", p, a);
            else
                out(b, "ints_equal(&%s->attrs[%s].v, %s, %d)", p, a, literal_const(e, t->lit), t->lit->n);
            break;
        default:
            out(b, "A->attr_equals(%s, %s, &%s)", p, a, literal_const(e, t->lit));
            break;
        }
        break;
    }
    case TEST_SAME:
        dsl_path_c(&t->path2, p2, sizeof p2);
        out(b, "%s == %s", p, p2);
        break;
    case TEST_SAME_ATTR:
        dsl_path_c(&t->path2, p2, sizeof p2);
        out(b, "same_attr(A, %s, %s, %s, %s)", p, attr_const(e, t->op, t->attr_index), p2,
            attr_const(e, t->op2, t->attr_index2));
        break;
    }
}

/* ---- expressions (inside a leaf) ---- */

static int temp(emitter *e) { return e->ntemps++; }

static void capture_path(emitter *e, int k, char *buf_, size_t size)
{
    dsl_path_c(&e->v->bindings[k].path, buf_, size);
}

static int emit_expr(emitter *e, buf *b, int depth, const dsl_expr *x);

static int emit_binary(emitter *e, buf *b, int depth, const dsl_expr *x)
{
    int a = emit_expr(e, b, depth, x->a);
    int k = temp(e);
    if (x->op == DSL_OP_AND || x->op == DSL_OP_OR) {
        indent(b, depth);
        out(b, "rule_value t%d = t%d;\n", k, a);
        indent(b, depth);
        out(b, "if (%st%d.u.i) {\n", x->op == DSL_OP_AND ? "" : "!", k);
        int c = emit_expr(e, b, depth + 1, x->b);
        indent(b, depth + 1);
        out(b, "t%d = t%d;\n", k, c);
        indent(b, depth);
        out(b, "}\n");
        return k;
    }
    int c = emit_expr(e, b, depth, x->b);
    indent(b, depth);
    out(b, "rule_value t%d;\n", k);
    indent(b, depth);
    e->uses_fail = true;
    /* Comparisons inline in leaves (api.h's rule_compare), arithmetic
     * through the table. */
    out(b, "if (!%st%d, %s, t%d, &t%d))\n",
        x->op > DSL_OP_GE ? "A->arith(" : e->cold ? "A->compare(" : "rule_compare(A, ", a,
        operator_c(x->op), c, k);
    indent(b, depth + 1);
    out(b, "goto fail;\n");
    return k;
}

static int emit_expr(emitter *e, buf *b, int depth, const dsl_expr *x)
{
    char p[256];
    int k;
    switch (x->kind) {
    case EX_INT:
        k = temp(e);
        indent(b, depth);
        out(b, "rule_value t%d = rule_int(", k);
        hole_int(e, b, HOLE_INT, (long long)x->i);
        out(b, ");\n");
        return k;
    case EX_FLOAT: {
        char d[64];
        c_double(d, sizeof d, x->f);
        k = temp(e);
        indent(b, depth);
        out(b, "rule_value t%d = rule_float(", k);
        hole(e, b, HOLE_FLOAT, d);
        out(b, ");\n");
        return k;
    }
    case EX_BOOL:
        k = temp(e);
        indent(b, depth);
        out(b, "rule_value t%d = rule_bool(%s);\n", k, x->i ? "true" : "false");
        return k;
    case EX_LIST: {
        int items[64];
        int n = x->nargs < 64 ? x->nargs : 64;
        for (int i = 0; i < n; i++)
            items[i] = emit_expr(e, b, depth, x->args[i]);
        k = temp(e);
        indent(b, depth);
        if (n == 0) {
            out(b, "rule_value t%d = {RV_INTS, 0, {.ints = NULL}};\n", k);
            return k;
        }
        out(b, "rule_value a%d[%d] = {", k, n);
        for (int i = 0; i < n; i++)
            out(b, "%st%d", i ? ", " : "", items[i]);
        out(b, "};\n");
        indent(b, depth);
        out(b, "rule_value t%d;\n", k);
        indent(b, depth);
        e->uses_fail = true;
        out(b, "if (!A->make_list(ar, a%d, %d, &t%d))\n", k, n, k);
        indent(b, depth + 1);
        out(b, "goto fail;\n");
        return k;
    }
    case EX_NAME:
        k = temp(e);
        indent(b, depth);
        switch (x->sym) {
        case SYM_INS:
            capture_path(e, x->sym_index, p, sizeof p);
            out(b, "rule_value t%d = rule_ins(%s);\n", k, p);
            break;
        case SYM_ATTR: {
            const dsl_binding *bd = &e->v->bindings[x->sym_index];
            dsl_path_c(&bd->path, p, sizeof p);
            out(b, "rule_value t%d = %s(%s, ", k, e->cold ? "A->attr_get" : "rule_attr", p);
            hole(e, b, HOLE_ATTR, attr_const(e, bd->op, bd->attr_index));
            out(b, ");\n");
            break;
        }
        case SYM_LET:
            out(b, "rule_value t%d = l%d;\n", k, x->sym_index);
            break;
        case SYM_TYPE:
            out(b, "rule_value t%d = rule_type(", k);
            hole(e, b, HOLE_TYPE, type_c(x->sym_index));
            out(b, ");\n");
            break;
        default:
            out(b, "rule_value t%d = rule_bool(false);\n", k);
            break;
        }
        return k;
    case EX_CALL: {
        int n;
        const rule_helper *h = &rule_helpers(&n)[x->helper];
        int items[RULE_HELPER_MAX_PARAMS];
        for (int i = 0; i < x->nargs; i++) {
            items[i] = emit_expr(e, b, depth, x->args[i]);
            if (h->params[i] == RV_FLOAT && x->args[i]->type == TY_INT) {
                indent(b, depth);
                out(b, "t%d = rule_float((double)t%d.u.i);\n", items[i], items[i]);
            }
        }
        k = temp(e);
        indent(b, depth);
        out(b, "rule_value a%d[%d] = {", k, x->nargs ? x->nargs : 1);
        for (int i = 0; i < x->nargs; i++)
            out(b, "%st%d", i ? ", " : "", items[i]);
        out(b, "%s};\n", x->nargs ? "" : "{0, 0, {.i = 0}}");
        indent(b, depth);
        out(b, "rule_value t%d;\n", k);
        indent(b, depth);
        e->uses_fail = true;
        out(b, "if (!A->helpers[");
        hole(e, b, HOLE_HELPER, helper_const(e, x->helper));
        out(b, "](ar, a%d, %d, &t%d))\n", k, x->nargs, k);
        indent(b, depth + 1);
        out(b, "goto fail;\n");
        return k;
    }
    case EX_FIELD: {
        int a = emit_expr(e, b, depth, x->a);
        k = temp(e);
        indent(b, depth);
        if (x->field == FIELD_ATTR) {
            out(b, "rule_value t%d = %s(t%d.u.in, ", k, e->cold ? "A->attr_get" : "rule_attr", a);
            hole(e, b, HOLE_ATTR, attr_const(e, x->attr_op, x->attr_index));
            out(b, ");\n");
        } else {
            /* A plain read (api.h's rule_field), but for the element
             * count, which the table computes. */
            out(b, "rule_value t%d = %s(t%d.u.in, %s);\n", k,
                x->field == FIELD_ELEMENTS || e->cold ? "A->field" : "rule_field", a,
                field_c(x->field));
        }
        return k;
    }
    case EX_NOT: {
        int a = emit_expr(e, b, depth, x->a);
        k = temp(e);
        indent(b, depth);
        out(b, "rule_value t%d = rule_bool(!t%d.u.i);\n", k, a);
        return k;
    }
    case EX_NEG: {
        int a = emit_expr(e, b, depth, x->a);
        k = temp(e);
        indent(b, depth);
        if (x->type == TY_FLOAT)
            out(b, "rule_value t%d = rule_float(-t%d.u.f);\n", k, a);
        else
            out(b, "rule_value t%d = rule_int(-t%d.u.i);\n", k, a);
        return k;
    }
    case EX_BINARY:
        return emit_binary(e, b, depth, x);
    }
    return 0;
}

/* ---- replacements ---- */

/* Emits code building r; writes the C expression of the result into res. */
static bool emit_repl(emitter *e, buf *b, const dsl_repl *r, char *res, size_t size)
{
    char p[256];
    switch (r->kind) {
    case RP_CAPTURE:
        capture_path(e, r->capture, res, size);
        return true;
    case RP_REST:
        return false; /* handled by the caller */
    case RP_REGION:
    case RP_GROW:
        e->failed = true; /* the grammar and sema allow these only as the whole replacement */
        return dsl_error(e->err, e->f, r->loc, "a region must be the whole replacement");
    case RP_FOLD: {
        char value[256];
        capture_path(e, r->capture, value, sizeof value);
        int k = temp(e);
        indent(b, 1);
        out(b, "ins *b%d = A->fold(rw, r, %s); /* fold(", k, value);
        hole(e, b, HOLE_NOTE, r->args[0]->name);
        out(b, ") */\n");
        indent(b, 1);
        e->uses_fail = true;
        out(b, "if (!b%d)\n        goto fail;\n", k);
        snprintf(res, size, "b%d", k);
        return true;
    }
    case RP_BUILD:
    case RP_REUSE:
        break;
    }
    /* Operands first: nested replacements are built before their user. */
    char args[64][256];
    int nargs = r->nargs < 64 ? r->nargs : 64;
    for (int i = 0; i < nargs; i++)
        if (r->args[i]->kind != RP_REST && !emit_repl(e, b, r->args[i], args[i], sizeof args[i]))
            return false;
    int k = temp(e);
    const char *cap = NULL;
    char cap_path[256];
    if (r->kind == RP_REUSE) {
        capture_path(e, r->capture, cap_path, sizeof cap_path);
        cap = cap_path;
    }
    /* attributes */
    if (r->kind == RP_REUSE) {
        indent(b, 1);
        out(b, "attr *at%d = A->copy_attrs(ar, %s);\n", k, cap);
        indent(b, 1);
        e->uses_fail = true;
        out(b, "if (!at%d && %s->nattrs)\n        goto fail;\n", k, cap);
    } else {
        int n = 0;
        for (const dsl_attr_set *s = r->sets; s; s = s->next)
            n++;
        indent(b, 1);
        out(b, "attr at%d[%d];\n", k, n ? n : 1);
    }
    int nset = 0;
    for (const dsl_attr_set *s = r->sets; s; s = s->next) {
        int v = emit_expr(e, b, 1, s->expr);
        if (s->kind == ATTR_FLOAT && s->expr->type == TY_INT) {
            indent(b, 1);
            out(b, "t%d = rule_float((double)t%d.u.i);\n", v, v);
        }
        e->uses_fail = true;
        if (r->kind == RP_REUSE) {
            indent(b, 1);
            out(b, "if (!A->to_attr(ar, t%d, %s, &at%d[", v, attr_kind_c(s->kind), k);
            hole(e, b, HOLE_ATTR, attr_const(e, r->attr_op, s->index));
            out(b, "].v))\n        goto fail;\n");
        } else {
            indent(b, 1);
            out(b, "at%d[%d].key = ", k, nset);
            c_string(b, s->key);
            out(b, ";\n");
            indent(b, 1);
            out(b, "if (!A->to_attr(ar, t%d, %s, &at%d[%d].v))\n        goto fail;\n", v, attr_kind_c(s->kind),
                k, nset);
        }
        nset++;
    }
    /* operands */
    indent(b, 1);
    out(b, "ins *av%d[RULE_MAX_OPERANDS];\n", k);
    indent(b, 1);
    out(b, "int nav%d = 0;\n", k);
    if (!r->has_args) {
        indent(b, 1);
        e->uses_fail = true;
        out(b, "if (%s->nargs > RULE_MAX_OPERANDS)\n        goto fail;\n", cap);
        indent(b, 1);
        out(b, "for (int i = 0; i < %s->nargs; i++)\n            av%d[nav%d++] = %s->args[i];\n", cap, k, k,
            cap);
    }
    for (int i = 0; i < nargs; i++) {
        if (r->args[i]->kind == RP_REST) {
            const dsl_binding *bd = &e->v->bindings[r->args[i]->capture];
            dsl_path_c(&bd->path, p, sizeof p);
            indent(b, 1);
            out(b, "for (int i = %d; i < %s->nargs; i++) {\n", bd->rest_start, p);
            indent(b, 2);
            e->uses_fail = true;
            out(b, "if (nav%d == RULE_MAX_OPERANDS)\n            goto fail;\n", k);
            indent(b, 2);
            out(b, "av%d[nav%d++] = %s->args[i];\n", k, k, p);
            indent(b, 1);
            out(b, "}\n");
        } else {
            indent(b, 1);
            out(b, "av%d[nav%d++] = %s;\n", k, k, args[i]);
        }
    }
    indent(b, 1);
    if (r->kind == RP_REUSE) {
        out(b, "ins *b%d = A->insert(rw, r, %s->op, at%d, %s->nattrs, av%d, nav%d);\n", k, cap, k, cap, k, k);
    } else {
        out(b, "ins *b%d = A->insert(rw, r, A->op_by_code(", k);
        hole(e, b, HOLE_OP, op_const(e, r->op));
        out(b, "), at%d, %d, av%d, nav%d);\n", k, nset, k, k);
    }
    indent(b, 1);
    e->uses_fail = true;
    out(b, "if (!b%d)\n        goto fail;\n", k);
    snprintf(res, size, "b%d", k);
    return true;
}

/* `=> region(a, b, c) -> (b, c)`: the members and outputs as arrays, the
 * region built before the root (rw_region), then committed with every
 * outside use of an output reading the region's value (rw_replace_region). */
static void emit_region(emitter *e, buf *b, const dsl_repl *r)
{
    char p[256], line[32];
    snprintf(line, sizeof line, "%d", r->loc.line);
    out(b, "    /* region %s:", e->f->path);
    hole(e, b, HOLE_NOTE, line);
    out(b, " */\n");
    out(b, "    ins *rm[%d] = {", r->nargs);
    for (int i = 0; i < r->nargs; i++) {
        capture_path(e, r->args[i]->capture, p, sizeof p);
        out(b, "%s%s", i ? ", " : "", p);
    }
    out(b, "};\n");
    out(b, "    ins *ro[%d] = {", r->noutputs);
    for (int i = 0; i < r->noutputs; i++) {
        capture_path(e, r->outputs[i]->capture, p, sizeof p);
        out(b, "%s%s", i ? ", " : "", p);
    }
    out(b, "};\n");
    out(b, "    ins *rr[%d];\n", r->noutputs);
    e->uses_fail = true;
    out(b, "    if (!A->region(rw, r, rm, %d, ro, %d, rr))\n        goto fail;\n", r->nargs, r->noutputs);
    out(b, "    A->replace_region(rw, rm, %d, ro, rr, %d);\n", r->nargs, r->noutputs);
}

/* `=> absorb_producer(r, p)` and the other growing forms: the two parts
 * merged into one region by the engine (rw_merge), which works out inputs,
 * outputs and position, refuses cycles, and commits. */
static void emit_grow(emitter *e, buf *b, const dsl_repl *r)
{
    static const char *const forms[] = {"?", "absorb_producer", "absorb_consumer", "merge_siblings",
                                        "split_tail_into"};
    char p0[256], p1[256], line[32];
    snprintf(line, sizeof line, "%d", r->loc.line);
    capture_path(e, r->args[0]->capture, p0, sizeof p0);
    capture_path(e, r->args[1]->capture, p1, sizeof p1);
    out(b, "    /* %s %s:", forms[r->grow >= 1 && r->grow <= GROW_SPLIT ? r->grow : 0], e->f->path);
    hole(e, b, HOLE_NOTE, line);
    out(b, " */\n");
    out(b, "    ins *gp[2] = {%s, %s};\n", p0, p1);
    e->uses_fail = true;
    if (r->grow == GROW_SPLIT)
        out(b, "    if (!A->split_tail(rw, gp[0], gp[1]))\n        goto fail;\n");
    else
        out(b, "    if (!A->merge(rw, gp, 2))\n        goto fail;\n");
}

/* A replacement that only reorders or swaps the root's own operands for
 * captures of the same shapes can change the root in place. */
static bool in_place_candidate(const dsl_repl *r, const dsl_variant *v)
{
    if (r->kind != RP_REUSE || r->sets || !r->has_args || v->bindings[r->capture].path.depth != 0)
        return false;
    for (int i = 0; i < r->nargs; i++)
        if (r->args[i]->kind != RP_CAPTURE)
            return false;
    return true;
}

/* ---- leaves ---- */

/* Whether generated text t names the identifier `ar` (the leaf's arena). */
static bool names_arena(const char *t)
{
    for (const char *p = t; (p = strstr(p, "ar")) != NULL; p += 2) {
        bool before = p > t && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool after = isalnum((unsigned char)p[2]) || p[2] == '_';
        if (!before && !after)
            return true;
    }
    return false;
}

/* Puts a leaf back together: whole holds its start (the attempt), body the
 * rest; the arena is read between them when the body names it. whole ends
 * up in *body (the caller's buffer). */
static bool join_leaf_body(buf *whole, buf *body)
{
    if (names_arena(text_of(body)))
        out(whole, "    arena *ar = A->arena_of(rw);\n    (void)ar;\n");
    strbuf_append_string(whole, text_of(body));
    if (body->failed)
        whole->failed = true;
    strbuf_free(body);
    *body = *whole;
    return true;
}

/* Emits variant v's leaf body into code, constants as holes. */
static bool emit_leaf_body(emitter *e, const dsl_variant *v, buf *code)
{
    const dsl_rule *r = v->rule;
    e->v = v;
    e->ntemps = 0;
    e->uses_fail = false;
    e->nholes = 0;
    out(code, "    if (!A->attempt(rw, ");
    hole(e, code, HOLE_RULE, rule_const(e, r));
    out(code, ", r))\n        return false;\n");
    /* The rest goes to its own buffer first: the leaf asks for the arena
     * (a call through the table) only when its text names `ar` (helpers,
     * lists, attributes built). rw_arena reads a field and changes nothing,
     * so a leaf that does not read it behaves the same without the call; a
     * use the scan missed would not compile. */
    buf whole = *code;
    *code = (buf){0};
    /* guards and lets, in order */
    int let = 0;
    for (const dsl_clause *c = r->clauses; c; c = c->next) {
        char line[32];
        snprintf(line, sizeof line, "%d", c->loc.line);
        out(code, "    /* %s %s:", c->is_let ? "let" : "if", e->f->path);
        hole(e, code, HOLE_NOTE, line);
        out(code, " */\n");
        int t = emit_expr(e, code, 1, c->expr);
        if (c->is_let) {
            out(code, "    rule_value l%d = t%d; /* ", let++, t);
            hole(e, code, HOLE_NOTE, c->name);
            out(code, " */\n");
        } else {
            e->uses_fail = true;
            out(code, "    if (!t%d.u.i)\n        goto fail;\n", t);
        }
    }
    /* replacement */
    const dsl_repl *rp = r->repl;
    if (in_place_candidate(rp, v)) {
        out(code, "    if (r->nargs == %d", rp->nargs);
        for (int i = 0; i < rp->nargs; i++) {
            char p[256];
            capture_path(e, rp->args[i]->capture, p, sizeof p);
            out(code, " &&\n        same_shape(A, %s, r->args[%d])", p, i);
        }
        out(code, ") {\n");
        out(code, "        ins *ops[%d] = {", rp->nargs ? rp->nargs : 1);
        for (int i = 0; i < rp->nargs; i++) {
            char p[256];
            capture_path(e, rp->args[i]->capture, p, sizeof p);
            out(code, "%s%s", i ? ", " : "", p);
        }
        out(code, "%s};\n", rp->nargs ? "" : "NULL");
        out(code, "        for (int i = 0; i < %d; i++)\n", rp->nargs);
        out(code, "            if (r->args[i] != ops[i])\n");
        out(code, "                A->set_arg(rw, r, i, ops[i]);\n");
        out(code, "        A->commit_in_place(rw, r);\n");
        out(code, "        return true;\n");
        out(code, "    }\n");
    }
    char res[256];
    if (rp->kind == RP_REGION) {
        emit_region(e, code, rp);
    } else if (rp->kind == RP_GROW) {
        emit_grow(e, code, rp);
    } else if (!emit_repl(e, code, rp, res, sizeof res)) {
        join_leaf_body(&whole, code);
        return false;
    }
    if (rp->kind != RP_REGION && rp->kind != RP_GROW && strcmp(res, "r") == 0) {
        e->failed = true;
        join_leaf_body(&whole, code);
        return dsl_error(e->err, e->f, rp->loc, "rule '%s' replaces its root with itself", r->name);
    }
    if (rp->kind != RP_REGION && rp->kind != RP_GROW)
        out(code, "    A->replace(rw, r, %s);\n", res);
    out(code, "    return true;\n");
    if (e->uses_fail)
        out(code, "fail:\n    A->abort(rw);\n    return false;\n");
    return join_leaf_body(&whole, code);
}

/* Emits variant number vi and files it under the leaf with the same code
 * and kinds of holes, or a new one. */
static bool add_variant(emitter *e, int vi, const dsl_variant *v)
{
    buf code = {0};
    if (!emit_leaf_body(e, v, &code)) {
        strbuf_free(&code);
        return false;
    }
    if (code.failed) {
        strbuf_free(&code);
        e->failed = true;
        return error_set(e->err, "out of memory");
    }
    int l = 0;
    while (l < e->nleaves &&
           !(e->leaves[l].nholes == e->nholes && strcmp(e->leaves[l].code, text_of(&code)) == 0 &&
             memcmp(e->leaves[l].kinds, e->hkinds, sizeof *e->hkinds * (size_t)e->nholes) == 0))
        l++;
    if (l == e->nleaves) {
        e->leaves = grow(e->f, e->leaves, e->nleaves, &e->capleaves, sizeof *e->leaves);
        leaf *nl = &e->leaves[e->nleaves++];
        memset(nl, 0, sizeof *nl);
        nl->code = dsl_strndup(e->f, text_of(&code), code.len);
        nl->nholes = e->nholes;
        nl->kinds = dsl_alloc(e->f, sizeof *nl->kinds * (size_t)(e->nholes + 1));
        memcpy(nl->kinds, e->hkinds, sizeof *nl->kinds * (size_t)e->nholes);
    }
    strbuf_free(&code);
    leaf *lf = &e->leaves[l];
    if (lf->nvariants == lf->cap) {
        int cap = lf->cap ? lf->cap * 2 : 4;
        const dsl_variant **vs = dsl_alloc(e->f, sizeof *vs * (size_t)cap);
        const char ***ts = dsl_alloc(e->f, sizeof *ts * (size_t)cap);
        if (lf->nvariants) {
            memcpy(vs, lf->variants, sizeof *vs * (size_t)lf->nvariants);
            memcpy(ts, lf->texts, sizeof *ts * (size_t)lf->nvariants);
        }
        lf->variants = vs;
        lf->texts = ts;
        lf->cap = cap;
    }
    const char **texts = dsl_alloc(e->f, sizeof *texts * (size_t)(e->nholes + 1));
    memcpy(texts, e->htexts, sizeof *texts * (size_t)e->nholes);
    e->leaf_of[vi] = l;
    e->slot_of[vi] = lf->nvariants;
    lf->variants[lf->nvariants] = v;
    lf->texts[lf->nvariants++] = texts;
    return true;
}

static const char *param_base(hole_kind k)
{
    switch (k) {
    case HOLE_RULE: return "rule";
    case HOLE_OP: return "op";
    case HOLE_ATTR: return "slot";
    case HOLE_HELPER: return "helper";
    case HOLE_INT: return "k";
    case HOLE_FLOAT: return "f";
    case HOLE_TYPE: return "type";
    case HOLE_NOTE: break;
    }
    return "x";
}

static const char *param_type(hole_kind k)
{
    switch (k) {
    case HOLE_INT: return "int64_t";
    case HOLE_FLOAT: return "double";
    default: return "int";
    }
}

/* Decides a leaf's name and parameters: a hole whose constant is the same
 * for every variant of the leaf is written inline; the others become
 * parameters, one per distinct column of constants. */
static void plan_leaf(emitter *e, leaf *l)
{
    l->param_of = dsl_alloc(e->f, sizeof(int) * (size_t)(l->nholes + 1));
    l->param_hole = dsl_alloc(e->f, sizeof(int) * (size_t)(l->nholes + 1));
    l->param_name = dsl_alloc(e->f, sizeof(char *) * (size_t)(l->nholes + 1));
    for (int h = 0; h < l->nholes; h++) {
        l->param_of[h] = -1;
        if (l->kinds[h] == HOLE_NOTE)
            continue;
        bool same = true;
        for (int v = 1; v < l->nvariants && same; v++)
            same = strcmp(l->texts[v][h], l->texts[0][h]) == 0;
        if (same)
            continue;
        for (int p = 0; p < l->nparams && l->param_of[h] < 0; p++) {
            int g = l->param_hole[p];
            bool column = l->kinds[g] == l->kinds[h];
            for (int v = 0; v < l->nvariants && column; v++)
                column = strcmp(l->texts[v][h], l->texts[v][g]) == 0;
            if (column)
                l->param_of[h] = p;
        }
        if (l->param_of[h] >= 0)
            continue;
        int same_kind = 0;
        for (int p = 0; p < l->nparams; p++)
            same_kind += l->kinds[l->param_hole[p]] == l->kinds[h];
        char name[32];
        if (same_kind)
            snprintf(name, sizeof name, "%s%d", param_base(l->kinds[h]), same_kind + 1);
        else
            snprintf(name, sizeof name, "%s", param_base(l->kinds[h]));
        l->param_hole[l->nparams] = h;
        l->param_name[l->nparams] = dsl_strndup(e->f, name, strlen(name));
        l->param_of[h] = l->nparams++;
    }
    const dsl_variant *first = l->variants[0];
    char source[300];
    if (first->number)
        snprintf(source, sizeof source, "%s_%d", first->rule->name, first->number);
    else
        snprintf(source, sizeof source, "%s", first->rule->name);
    l->fname = fresh_name(e, "fire_", source, first->rule->index);
}

/* Writes hole h of leaf l: its parameter, its constant, or for a note the
 * distinct texts of every variant. */
static void render_hole(buf *b, const leaf *l, int h)
{
    if (l->param_of[h] >= 0) {
        out(b, "%s", l->param_name[l->param_of[h]]);
        return;
    }
    if (l->kinds[h] != HOLE_NOTE) {
        out(b, "%s", l->texts[0][h]);
        return;
    }
    for (int v = 0; v < l->nvariants; v++) {
        bool seen = false;
        for (int w = 0; w < v && !seen; w++)
            seen = strcmp(l->texts[w][h], l->texts[v][h]) == 0;
        if (!seen)
            out(b, "%s%s", v ? ", " : "", l->texts[v][h]);
    }
}

static void render_leaf(emitter *e, buf *b, const leaf *l)
{
    for (int v = 0; v < l->nvariants; v++) {
        const dsl_variant *var = l->variants[v];
        out(b, "%s rule %s at %s:%d", v ? "\n *" : "/*", var->rule->name, e->f->path, var->rule->loc.line);
        if (var->number)
            out(b, ", operand order %d", var->number);
    }
    if (l->nvariants > 1)
        out(b, "\n * (one leaf: the rules differ only in the constants passed as parameters)");
    out(b, " */\n");
    /* Leaves stay out of line: a root's tests should not pay for the stack
     * frame of every leaf below them. */
    out(b, "__attribute__((noinline)) static bool %s(const graft_rule_api *A, rewriter *rw, ins *r",
        l->fname);
    for (int p = 0; p < l->nparams; p++)
        out(b, ", %s %s", param_type(l->kinds[l->param_hole[p]]), l->param_name[p]);
    out(b, ")\n{\n");
    for (const char *s = l->code; *s;) {
        const char *mark = strchr(s, '\1');
        if (!mark) {
            out(b, "%s", s);
            break;
        }
        out(b, "%.*s", (int)(mark - s), s);
        int h = atoi(mark + 1);
        render_hole(b, l, h);
        const char *end = strchr(mark + 1, '\1');
        s = end ? end + 1 : mark + 1 + strlen(mark + 1);
    }
    out(b, "}\n\n");
}

/* ---- trees ---- */

static void collect_rules(const dsl_tnode *n, const dsl_rule **seen, int *nseen, int max)
{
    for (int i = 0; i < n->nitems && *nseen < max; i++) {
        const dsl_rule *r = n->items[i].leaf ? n->items[i].leaf->rule : NULL;
        if (r) {
            bool dup = false;
            for (int j = 0; j < *nseen; j++)
                dup = dup || seen[j] == r;
            if (!dup)
                seen[(*nseen)++] = r;
        } else if (n->items[i].child) {
            collect_rules(n->items[i].child, seen, nseen, max);
        }
    }
}

static void branch_comment(emitter *e, buf *b, const dsl_tnode *n)
{
    const dsl_rule *seen[4];
    int nseen = 0;
    collect_rules(n, seen, &nseen, 4);
    out(b, " /* ");
    for (int i = 0; i < nseen && i < 3; i++)
        out(b, "%s%s %s:%d", i ? ", " : "", seen[i]->name, e->f->path, seen[i]->loc.line);
    if (nseen > 3)
        out(b, ", ...");
    out(b, " */");
}

/* Whether items [from, to) of n already test for op (a switch needs
 * distinct case labels). */
static bool op_in_run(const dsl_tnode *n, int from, int to, const op_def *op)
{
    for (int k = from; k < to; k++)
        if (n->items[k].child->test.op == op)
            return true;
    return false;
}

/* The call of a leaf from the tree: its constants as arguments. */
static void emit_leaf_call(emitter *e, buf *b, int depth, const dsl_variant *v)
{
    int vi = e->first_variant[v->rule->index] + v->number;
    const leaf *l = &e->leaves[e->leaf_of[vi]];
    const char *const *texts = l->texts[e->slot_of[vi]];
    indent(b, depth);
    out(b, "if (%s(A, rw, r", l->fname);
    for (int p = 0; p < l->nparams; p++)
        out(b, ", %s", texts[l->param_hole[p]]);
    out(b, ")) /* rule %s at %s:%d */\n", v->rule->name, e->f->path, v->rule->loc.line);
    indent(b, depth + 1);
    out(b, "return %s;\n", rule_const(e, v->rule));
}

static void emit_items(emitter *e, buf *b, const dsl_tnode *n, int depth)
{
    for (int i = 0; i < n->nitems; i++) {
        const dsl_titem *it = &n->items[i];
        if (it->leaf) {
            emit_leaf_call(e, b, depth, it->leaf);
            continue;
        }
        const dsl_test *t = &it->child->test;
        int j = i + 1;
        if (t->kind == TEST_OP)
            while (j < n->nitems && !n->items[j].leaf && n->items[j].child->test.kind == TEST_OP &&
                   n->items[j].child->test.path.depth == t->path.depth &&
                   memcmp(n->items[j].child->test.path.arg, t->path.arg, (size_t)t->path.depth) == 0 &&
                   !op_in_run(n, i, j, n->items[j].child->test.op))
                j++;
        if (j - i >= 2) {
            /* The set test first: an op none of the cases wants (the usual
             * case) takes one predictable branch, whatever its code. */
            char p[256];
            dsl_path_c(&t->path, p, sizeof p);
            indent(b, depth);
            out(b, "if (op_in(%s, %s->op->code)) {\n", op_set_const(e, n, i, j), p);
            depth++;
            indent(b, depth);
            out(b, "switch (%s->op->code) {\n", p);
            for (int k = i; k < j; k++) {
                const dsl_tnode *c = n->items[k].child;
                indent(b, depth);
                out(b, "case %s: {", op_const(e, c->test.op));
                branch_comment(e, b, c);
                out(b, "\n");
                emit_items(e, b, c, depth + 1);
                indent(b, depth + 1);
                out(b, "break;\n");
                indent(b, depth);
                out(b, "}\n");
            }
            indent(b, depth);
            out(b, "default:\n");
            indent(b, depth + 1);
            out(b, "break;\n");
            indent(b, depth);
            out(b, "}\n");
            depth--;
            indent(b, depth);
            out(b, "}\n");
            i = j - 1;
            continue;
        }
        indent(b, depth);
        out(b, "if (");
        emit_condition(e, b, t);
        out(b, ") {");
        branch_comment(e, b, it->child);
        out(b, "\n");
        emit_items(e, b, it->child, depth + 1);
        indent(b, depth);
        out(b, "}\n");
    }
}

/* " abs, acos, acosh, asin, ... (37 ops)" */
static void root_ops_comment(buf *b, const dsl_root *root)
{
    for (int k = 0; k < root->nops && k < 4; k++)
        out(b, "%s%s", k ? ", " : " ", root->ops[k]->name);
    if (root->nops > 4)
        out(b, ", ... (%d ops)", root->nops);
}

/* The test that reaches a class root: `(r->op->classes & OPC_UNARY) != 0`. */
static void class_test(buf *b, const dsl_root *root)
{
    for (int m = 0; m < root->nmasks; m++) {
        char cls[256];
        classes_c(root->masks[m], cls, sizeof cls);
        out(b, "%s(r->op->classes & %s) != 0", m ? " && " : "", cls);
    }
}

/* One function per root, named after its first op or its classes; apply
 * only dispatches, so an instruction no rule applies to costs a switch and
 * the class tests, not a stack frame sized for the trees. */
static const char *root_function(emitter *e, buf *b, const dsl_root *root)
{
    char source[256] = "";
    if (root->by_class) {
        size_t n = 0;
        for (int m = 0; m < root->nmasks; m++) {
            char cls[256];
            classes_c(root->masks[m], cls, sizeof cls);
            for (const char *c = cls; *c && n + 2 < sizeof source; c++) {
                if (strncmp(c, "OPC_", 4) == 0) {
                    if (n)
                        source[n++] = '_';
                    c += 3;
                } else if (*c >= 'A' && *c <= 'Z') {
                    source[n++] = (char)(*c - 'A' + 'a');
                }
            }
            source[n] = '\0';
        }
    } else {
        snprintf(source, sizeof source, "%s", root->ops[0]->name);
    }
    const char *name = fresh_name(e, "match_", source, 0);
    if (root->by_class)
        out(b, "/* root class %s:", source);
    else
        out(b, "/* root op%s", root->nops > 1 ? "s" : "");
    root_ops_comment(b, root);
    out(b, " */\n__attribute__((noinline)) static int %s(const graft_rule_api *A, rewriter *rw, ins *r)\n{\n",
        name);
    emit_items(e, b, &root->tree, 1);
    out(b, "    return -1;\n}\n\n");
    return name;
}

static void emit_apply(emitter *e, buf *b, const dsl_trees *t)
{
    const char **fn = dsl_alloc(e->f, sizeof(char *) * (size_t)(t->nroots + 1));
    for (int i = 0; i < t->nroots && !e->failed; i++)
        fn[i] = root_function(e, b, &t->roots[i]);
    out(b, "static int apply(rewriter *rw, ins *r)\n{\n");
    if (t->nroots == 0 || e->failed) {
        out(b, "    (void)rw;\n    (void)r;\n    return -1;\n}\n\n");
        return;
    }
    out(b, "    const graft_rule_api *A = atomic_load_explicit(&API, memory_order_acquire);\n");
    int ncases = 0;
    for (int i = 0; i < t->nroots; i++)
        ncases += !t->roots[i].by_class;
    if (ncases) {
        out(b, "    switch (r->op->code) {\n");
        for (int i = 0; i < t->nroots; i++) {
            const dsl_root *root = &t->roots[i];
            if (root->by_class)
                continue;
            for (int k = 0; k < root->nops; k++)
                out(b, "    case %s:\n", op_const(e, root->ops[k]));
            out(b, "        return %s(A, rw, r);\n", fn[i]);
        }
        out(b, "    default:\n        break;\n    }\n");
    }
    for (int i = 0; i < t->nroots; i++) {
        const dsl_root *root = &t->roots[i];
        if (!root->by_class)
            continue;
        out(b, "    if (");
        class_test(b, root);
        out(b, ")\n        return %s(A, rw, r);\n", fn[i]);
    }
    out(b, "    return -1;\n}\n\n");
}

/* ---- the file ---- */

static const char *prelude =
    "#include \"api.h\"\n"
    "\n"
    "#include <stdatomic.h>\n"
    "#include <stdbool.h>\n"
    "#include <stddef.h>\n"
    "#include <stdint.h>\n"
    "\n"
    "#define RULE_MAX_OPERANDS 64\n";

static const char *support =
    "/* The table graft handed to the entry function: written once by it (the\n"
    " * same pointer whoever calls), read by apply. */\n"
    "static _Atomic(const graft_rule_api *) API;\n"
    "\n"
    "__attribute__((unused)) static bool same_attr(const graft_rule_api *A, ins *a, int ka, ins *b, int kb)\n"
    "{\n"
    "    rule_value eq;\n"
    "    return rule_compare(A, rule_attr(a, ka), RULE_OP_EQ, rule_attr(b, kb), &eq) && eq.u.i;\n"
    "}\n"
    "\n"
    "/* Whether op code c is in set. */\n"
    "__attribute__((unused)) static bool op_in(const uint64_t *set, int c)\n"
    "{\n"
    "    return (unsigned)c < 64u * OP_SET_WORDS && (set[(unsigned)c / 64] >> ((unsigned)c % 64) & 1u) != 0;\n"
    "}\n"
    "\n"
    "/* An ints attribute equal to a list literal (attr_value_equal for ints). */\n"
    "__attribute__((unused)) static bool ints_equal(const attr_value *v, const int64_t *lit, int n)\n"
    "{\n"
    "    if (v->n != n)\n"
    "        return false;\n"
    "    for (int i = 0; i < n; i++)\n"
    "        if (v->u.ints[i] != lit[i])\n"
    "            return false;\n"
    "    return true;\n"
    "}\n"
    "\n"
    "__attribute__((unused)) static bool same_shape(const graft_rule_api *A, ins *a, ins *b)\n"
    "{\n"
    "    rule_value eq;\n"
    "    return A->compare(rule_field(a, RULE_FIELD_SHAPE), RULE_OP_EQ, rule_field(b, RULE_FIELD_SHAPE), &eq) &&\n"
    "           eq.u.i;\n"
    "}\n"
    "\n";

/* The named constants and what the entry function checks them against. */
static void emit_constants(emitter *e, buf *b)
{
    /* attributes by op code, then slot */
    for (int i = 1; i < e->nattrs; i++) {
        named_attr a = e->attrs[i];
        int j = i;
        while (j > 0 && (e->attrs[j - 1].op->code > a.op->code ||
                         (e->attrs[j - 1].op->code == a.op->code && e->attrs[j - 1].index > a.index))) {
            e->attrs[j] = e->attrs[j - 1];
            j--;
        }
        e->attrs[j] = a;
    }
    int nops = 0;
    for (int c = 1; c <= e->nall_ops; c++)
        nops += e->op_name[c] != NULL;
    if (nops) {
        out(b, "\n/* Op codes (op_def.code) of the ops these rules name. */\nenum {\n");
        for (int c = 1; c <= e->nall_ops; c++)
            if (e->op_name[c])
                out(b, "    %s = %d,\n", e->op_name[c], c);
        out(b, "};\n");
    }
    if (e->nattrs) {
        out(b, "\n/* Attribute slots: each attribute's index in its op's declaration. */\nenum {\n");
        for (int i = 0; i < e->nattrs; i++)
            out(b, "    %s = %d,\n", e->attrs[i].name, e->attrs[i].index);
        out(b, "};\n");
    }
    int nhelpers = 0;
    for (int i = 0; i < e->nregistry; i++)
        nhelpers += e->helper_name[i] != NULL;
    if (nhelpers) {
        out(b, "\n/* Helpers: index in graft's helper registry (dsl/helpers.c). */\nenum {\n");
        for (int i = 0; i < e->nregistry; i++)
            if (e->helper_name[i])
                out(b, "    %s = %d,\n", e->helper_name[i], i);
        out(b, "};\n");
    }
    if (e->f->nrules) {
        out(b, "\n/* The rules, by position in the file: what apply returns when one fires. */\nenum {\n");
        for (int i = 0; i < e->f->nrules; i++)
            out(b, "    %s = %d,\n", rule_const(e, e->f->rules[i]), i);
        out(b, "};\n");
    }
    if (nops || e->nattrs || nhelpers)
        out(b, "\n/* What the entry function checks the constants above against. */\n");
    if (nops) {
        out(b, "static const struct {\n    const char *name;\n    int code;\n} OP_REFS[] = {\n");
        for (int c = 1; c <= e->nall_ops; c++)
            if (e->op_name[c]) {
                out(b, "    {");
                c_string(b, op_by_code(c)->name);
                out(b, ", %s},\n", e->op_name[c]);
            }
        out(b, "};\n");
    }
    if (e->nattrs) {
        out(b, "static const struct {\n    int op;\n    const char *name;\n    int slot;\n} ATTR_REFS[] = {\n");
        for (int i = 0; i < e->nattrs; i++) {
            out(b, "    {%s, ", e->op_name[e->attrs[i].op->code]);
            c_string(b, e->attrs[i].op->attrs[e->attrs[i].index].name);
            out(b, ", %s},\n", e->attrs[i].name);
        }
        out(b, "};\n");
    }
    if (nhelpers) {
        out(b, "static const struct {\n    const char *name;\n    int index;\n} HELPER_REFS[] = {\n");
        int n;
        const rule_helper *all = rule_helpers(&n);
        for (int i = 0; i < e->nregistry; i++)
            if (e->helper_name[i]) {
                out(b, "    {");
                c_string(b, all[i].name);
                out(b, ", %s},\n", e->helper_name[i]);
            }
        out(b, "};\n");
    }
    if (e->nlits) {
        out(b, "\n/* The list and string values patterns compare attributes with. */\n");
        for (int i = 0; i < e->nlits; i++)
            emit_literal_definition(b, &e->lits[i]);
    }
    out(b, "\n/* Sets of ops, a bit per op code (op_in). */\nenum { OP_SET_WORDS = %d };\n",
        e->nall_ops / 64 + 1);
    for (int i = 0; i < e->nsets; i++) {
        out(b, "static const uint64_t %s[OP_SET_WORDS] = {", e->sets[i].name);
        for (int w = 0; w < e->sets[i].nwords; w++)
            out(b, "%s0x%" PRIx64 "ull", w ? ", " : "", e->sets[i].bits[w]);
        out(b, "}; /*");
        for (int c = 1; c <= e->nall_ops; c++)
            if (e->sets[i].bits[c / 64] >> (c % 64) & 1)
                out(b, " %s", e->op_name[c]);
        out(b, " */\n");
    }
    out(b, "\n");
}

/* ---- explain (graft opt --explain RULE) ----
 *
 * Apart from apply, so that matching costs the same with or without it:
 * per rule variant, a function that runs the variant's tests one by one in
 * the order the decision tree runs them, then its guards and lets, and
 * reports the first that fails from a table of what each one wants and
 * where it is in the file; per rule, one that runs its variants (one per
 * operand order of :c) and keeps the one that got furthest; and `explain`,
 * which the rule set hands the engine. Nothing is attempted or built. */

/* "the root", "operand 1", "operand 1.0" (operand 0 of operand 1). */
static void path_text(const dsl_path *p, char *dst, size_t size)
{
    if (p->depth == 0) {
        snprintf(dst, size, "the root");
        return;
    }
    size_t n = (size_t)snprintf(dst, size, "operand ");
    for (int i = 0; i < p->depth && n < size; i++)
        n += (size_t)snprintf(dst + n, size - n, "%s%d", i ? "." : "", p->arg[i]);
}

static void class_names_text(unsigned bits, char *dst, size_t size)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{OPC_POINTWISE, "pointwise"}, {OPC_UNARY, "unary"},   {OPC_BINARY, "binary"},
                 {OPC_REDUCE, "reduce"},       {OPC_VIEW, "view"},     {OPC_COMPUTE, "compute"},
                 {OPC_MOVE, "move"},           {OPC_SHAPE, "shape"},   {OPC_REGION, "fused"}};
    size_t n = 0;
    dst[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0] && n < size; i++)
        if (bits & names[i].bit)
            n += (size_t)snprintf(dst + n, size - n, "%s<%s>", n ? " or " : "", names[i].name);
}

/* What test t wants, in words, and which part of the rule it is. */
static const char *test_wants(const dsl_test *t, char *dst, size_t size)
{
    char where[128], what[256];
    path_text(&t->path, where, sizeof where);
    switch (t->kind) {
    case TEST_OP:
        snprintf(dst, size, "%s is a %s", where, t->op->name);
        return "op";
    case TEST_NOT_OP:
        snprintf(dst, size, "%s is not a %s", where, t->op->name);
        return "op";
    case TEST_CLASS:
        class_names_text(t->classes, what, sizeof what);
        snprintf(dst, size, "%s is %s", where, what);
        return "op";
    case TEST_NOT_CLASS:
        class_names_text(t->classes, what, sizeof what);
        snprintf(dst, size, "%s is not %s", where, what);
        return "op";
    case TEST_NARGS:
        snprintf(dst, size, "%s has %d operand%s", where, t->n, t->n == 1 ? "" : "s");
        return "operand count";
    case TEST_NARGS_MIN:
        snprintf(dst, size, "%s has at least %d operand%s", where, t->n, t->n == 1 ? "" : "s");
        return "operand count";
    case TEST_ONCE:
        snprintf(dst, size, "%s has exactly one use", where);
        return ":once";
    case TEST_ATTR:
        attr_value_print(*t->lit, what, sizeof what);
        if (t->lit->kind == ATTR_INT && t->op->attrs[t->attr_index].enum_names) {
            const attr_spec *spec = &t->op->attrs[t->attr_index];
            int n = 0;
            while (spec->enum_names[n])
                n++;
            if (t->lit->u.i >= 0 && t->lit->u.i < n)
                snprintf(what, sizeof what, "%s", spec->enum_names[t->lit->u.i]);
        }
        snprintf(dst, size, "%s has %s=%s", where, t->op->attrs[t->attr_index].name, what);
        return "attribute";
    case TEST_SAME: {
        char other[128];
        path_text(&t->path2, other, sizeof other);
        snprintf(dst, size, "%s is the same instruction as %s (capture '%s' twice)", where, other,
                 t->name ? t->name : "?");
        return "same instruction";
    }
    case TEST_SAME_ATTR: {
        char other[128];
        path_text(&t->path2, other, sizeof other);
        snprintf(dst, size, "%s has %s equal to %s's %s (capture '%s' twice)", where,
                 t->op->attrs[t->attr_index].name, other, t->op2->attrs[t->attr_index2].name,
                 t->name ? t->name : "?");
        return "same attribute";
    }
    }
    snprintf(dst, size, "?");
    return "?";
}

/* The clause's source from its `if` or `let` to the end of its line (or
 * the next clause on that line), spaces collapsed. */
static void clause_text(const dsl_file *f, const dsl_clause *c, char *dst, size_t size)
{
    const char *at = f->text;
    for (int line = 1; line < c->loc.line && *at; at++)
        if (*at == '\n')
            line++;
    for (int col = 1; col < c->loc.col && *at && *at != '\n'; col++)
        at++;
    int stop = -1; /* the next clause on this line starts at this column */
    if (c->next && c->next->loc.line == c->loc.line)
        stop = c->next->loc.col - c->loc.col;
    size_t n = 0;
    bool space = false;
    for (int k = 0; at[k] && at[k] != '\n' && at[k] != '#' && k != stop && n + 1 < size; k++) {
        if (at[k] == ' ' || at[k] == '\t') {
            space = n > 0;
            continue;
        }
        if (at[k] == '=' && at[k + 1] == '>')
            break;
        if (space && n + 2 < size)
            dst[n++] = ' ';
        space = false;
        dst[n++] = at[k];
    }
    dst[n] = '\0';
}

/* Writes hole-marked code with every hole filled by its constant. */
static void out_filled(emitter *e, buf *b, const char *code)
{
    for (const char *p = code; *p; p++) {
        if (*p != '\1') {
            strbuf_append(b, p, 1);
            continue;
        }
        int h = (int)strtol(p + 1, (char **)&p, 10);
        out(b, "%s", h >= 0 && h < e->nholes ? e->htexts[h] : "0");
    }
}

static void explain_entry(buf *b, const char *part, const char *wants, dsl_loc loc,
                          const dsl_path *path)
{
    out(b, "    {\"%s\", ", part);
    c_string(b, wants);
    out(b, ", %d, %d, %d, {", loc.line, loc.col, path ? path->depth : 0);
    for (int i = 0; path && i < path->depth; i++)
        out(b, "%s%d", i ? ", " : "", path->arg[i]);
    out(b, "%s}},\n", path && path->depth ? "" : "0");
}

/* One variant's table and function; returns the function's name. */
static const char *emit_explain_variant(emitter *e, buf *b, const dsl_variant *v)
{
    const dsl_rule *r = v->rule;
    char base[300];
    snprintf(base, sizeof base, "explain_%s_%d", r->name, v->number);
    const char *fname = fresh_name(e, "", base, v->number);
    char tname[320];
    snprintf(tname, sizeof tname, "%s_tests", fname);
    const char *table = unique_name(e, tname);
    int nclauses = 0;
    for (const dsl_clause *c = r->clauses; c; c = c->next)
        nclauses++;
    out(b, "/* rule %s at %s:%d, operand order %d: each test and clause in order */\n", r->name,
        e->f->path, r->loc.line, v->number);
    out(b, "static const rule_explanation %s[%d] = {\n", table, v->ntests + nclauses + 1);
    for (int i = 0; i < v->ntests; i++) {
        char wants[512];
        const char *part = test_wants(&v->tests[i], wants, sizeof wants);
        explain_entry(b, part, wants, v->tests[i].loc, &v->tests[i].path);
    }
    for (const dsl_clause *c = r->clauses; c; c = c->next) {
        char text[512];
        clause_text(e->f, c, text, sizeof text);
        explain_entry(b, c->is_let ? "let" : "guard", text, c->loc, NULL);
    }
    out(b, "    {NULL, NULL, 0, 0, 0, {0}},\n};\n\n");

    out(b, "static int %s(const graft_rule_api *A, rewriter *rw, ins *r, rule_explanation *x)\n{\n",
        fname);
    out(b, "    (void)A;\n    (void)rw;\n");
    for (int i = 0; i < v->ntests; i++) {
        buf cond = {0};
        emit_condition(e, &cond, &v->tests[i]);
        out(b, "    if (!(%s)) {\n        *x = %s[%d];\n        return %d;\n    }\n", text_of(&cond),
            table, i, i);
        strbuf_free(&cond);
    }
    if (nclauses) {
        /* The leaf's clause code, constants filled in: a failing guard or
         * helper jumps to fail with `clause` saying which. */
        e->v = v;
        e->ntemps = 0;
        e->uses_fail = false;
        e->nholes = 0;
        buf code = {0};
        out(&code, "    arena *ar = A->arena_of(rw);\n    (void)ar;\n    int clause = 0;\n");
        int let = 0, k = 0;
        for (const dsl_clause *c = r->clauses; c; c = c->next, k++) {
            out(&code, "    clause = %d;\n", v->ntests + k);
            int t = emit_expr(e, &code, 1, c->expr);
            if (c->is_let) {
                out(&code, "    rule_value l%d = t%d;\n    (void)l%d;\n", let, t, let);
                let++;
            } else {
                e->uses_fail = true;
                out(&code, "    if (!t%d.u.i)\n        goto fail;\n", t);
            }
        }
        out_filled(e, b, text_of(&code));
        strbuf_free(&code);
        out(b, "    return EXPLAIN_PASSED;\n");
        if (e->uses_fail)
            out(b, "fail:\n    *x = %s[clause];\n    return clause;\n", table);
        else
            out(b, "    (void)clause;\n");
    } else {
        out(b, "    return EXPLAIN_PASSED;\n");
    }
    out(b, "}\n\n");
    return fname;
}

static void emit_explain(emitter *e, buf *b, const dsl_trees *t)
{
    dsl_file *f = e->f;
    out(b, "/* ---- explain: why a rule does not match (graft opt --explain) ---- */\n\n");
    out(b, "enum { EXPLAIN_PASSED = 1 << 20 };\n\n");
    const char **rule_fn = dsl_alloc(f, sizeof(char *) * (size_t)(f->nrules + 1));
    for (int ri = 0; ri < f->nrules && !e->failed; ri++) {
        const dsl_rule *r = f->rules[ri];
        const char *vnames[64];
        int nv = 0;
        for (int vi = 0; vi < t->nvariants && nv < 64; vi++)
            if (t->variants[vi]->rule == r) {
                e->cold = true;
                vnames[nv++] = emit_explain_variant(e, b, t->variants[vi]);
                e->cold = false;
            }
        char base[300];
        snprintf(base, sizeof base, "explain_%s", r->name);
        rule_fn[ri] = fresh_name(e, "", base, ri);
        out(b, "/* rule %s at %s:%d */\n", r->name, f->path, r->loc.line);
        out(b, "static int %s(const graft_rule_api *A, rewriter *rw, ins *r, rule_explanation *x)\n{\n",
            rule_fn[ri]);
        const dsl_pattern *p = r->pattern;
        if (p->kind == PAT_OP) {
            out(b, "    if (r->op->code %s %s)\n        return RULE_EXPLAIN_NOT_TRIED;\n",
                p->negated ? "==" : "!=", op_const(e, p->op));
        } else {
            char cls[256];
            classes_c(p->classes, cls, sizeof cls);
            out(b, "    if ((r->op->classes & (OPC_BUILTIN | OPC_OPAQUE)) != 0 ||\n"
                   "        (r->op->classes & %s) %s 0)\n        return RULE_EXPLAIN_NOT_TRIED;\n",
                cls, p->negated ? "!=" : "==");
        }
        out(b, "    rule_explanation got;\n    int best = -1;\n");
        for (int k = 0; k < nv; k++)
            out(b, "    {\n        int reached = %s(A, rw, r, &got);\n"
                   "        if (reached == EXPLAIN_PASSED)\n            goto matched;\n"
                   "        if (reached > best) {\n            best = reached;\n            *x = got;\n"
                   "        }\n    }\n",
                vnames[k]);
        out(b, "    return RULE_EXPLAIN_FAILED;\nmatched:\n");
        /* Everything held, yet the rule did not fire: its replacement was
         * refused. Say what can refuse this kind of replacement. */
        const char *why;
        switch (r->repl->kind) {
        case RP_REGION:
            why = "the region could not be placed (no position after every input and before "
                  "every outside user, no output read outside, or a member that is a parameter, "
                  "an opaque op, a region or tuple-valued)";
            break;
        case RP_GROW:
            why = "the merge was refused (it would create a cycle, or no position is after every "
                  "input and before every outside user)";
            break;
        case RP_FOLD:
            why = "fold refused (an operand is not a literal, the op has no reference kernel, or "
                  "the value has too many elements)";
            break;
        default:
            why = "the replacement was not built (a helper refused its inputs or an op's shape "
                  "rule rejected the new instruction)";
            break;
        }
        out(b, "    *x = (rule_explanation){\"replacement\", ");
        c_string(b, why);
        out(b, ", %d, %d, 0, {0}};\n    return RULE_EXPLAIN_MATCHED;\n}\n\n", r->repl->loc.line,
            r->repl->loc.col);
    }
    out(b, "static int explain(rewriter *rw, ins *r, int rule, rule_explanation *x)\n{\n");
    out(b, "    const graft_rule_api *A = atomic_load_explicit(&API, memory_order_acquire);\n");
    out(b, "    if (!A)\n        return RULE_EXPLAIN_NOT_TRIED;\n");
    out(b, "    switch (rule) {\n");
    for (int ri = 0; ri < f->nrules; ri++)
        out(b, "    case %s:\n        return %s(A, rw, r, x);\n", rule_const(e, f->rules[ri]),
            rule_fn[ri]);
    out(b, "    default:\n        break;\n    }\n    (void)rw;\n    (void)r;\n    (void)x;\n"
           "    return RULE_EXPLAIN_NOT_TRIED;\n}\n\n");
}

static void emit_entry(emitter *e, buf *b, const dsl_emit_options *opt)
{
    dsl_file *f = e->f;
    out(b, "static const rule_info RULES[%d] = {\n", f->nrules ? f->nrules : 1);
    for (int i = 0; i < f->nrules; i++) {
        out(b, "    {");
        c_string(b, f->rules[i]->name);
        out(b, ", ");
        c_string(b, f->path);
        out(b, ", %d, %s},\n", f->rules[i]->loc.line,
            f->rules[i]->flags & DSL_RULE_NONTERMINATING ? "RULE_NONDECREASING" : "0");
    }
    if (!f->nrules)
        out(b, "    {NULL, NULL, 0, 0},\n");
    out(b, "};\n\n");
    out(b, "static const rule_set SET = {");
    c_string(b, opt && opt->set_name ? opt->set_name : "rules");
    out(b, ", %d, RULES, apply, explain};\n\n", f->nrules);
    const char *entry = opt && opt->entry_name ? opt->entry_name : GRAFT_RULES_ENTRY;
    if (opt && opt->exported)
        out(b, "__attribute__((visibility(\"default\")))\n");
    out(b, "const rule_set *%s(const graft_rule_api *api);\n", entry);
    out(b, "\n/* Hands out the rule set once every constant above means, in the graft\n"
           " * calling, what it meant when the rules were compiled. */\n");
    if (opt && opt->exported)
        out(b, "__attribute__((visibility(\"default\")))\n");
    out(b, "const rule_set *%s(const graft_rule_api *api)\n{\n", entry);
    out(b, "    if (!api || api->version != GRAFT_RULE_API_VERSION || api->size < sizeof *api)\n"
           "        return NULL;\n"
           "    if (atomic_load_explicit(&API, memory_order_acquire) == api)\n"
           "        return &SET;\n");
    bool ops = false, helpers = false;
    for (int c = 1; c <= e->nall_ops; c++)
        ops = ops || e->op_name[c];
    for (int i = 0; i < e->nregistry; i++)
        helpers = helpers || e->helper_name[i];
    if (ops)
        out(b, "    for (size_t i = 0; i < sizeof OP_REFS / sizeof OP_REFS[0]; i++) {\n"
               "        const op_def *op = api->op_find(OP_REFS[i].name);\n"
               "        if (!op || op->code != OP_REFS[i].code)\n"
               "            return NULL;\n"
               "    }\n");
    if (e->nattrs)
        out(b, "    for (size_t i = 0; i < sizeof ATTR_REFS / sizeof ATTR_REFS[0]; i++)\n"
               "        if (api->op_attr_index(api->op_by_code(ATTR_REFS[i].op), ATTR_REFS[i].name) !=\n"
               "            ATTR_REFS[i].slot)\n"
               "            return NULL;\n");
    if (helpers)
        out(b, "    for (size_t i = 0; i < sizeof HELPER_REFS / sizeof HELPER_REFS[0]; i++) {\n"
               "        rule_helper_fn h = api->helper_at(HELPER_REFS[i].index);\n"
               "        if (!h || h != api->helper_find(HELPER_REFS[i].name))\n"
               "            return NULL;\n"
               "    }\n");
    out(b, "    atomic_store_explicit(&API, api, memory_order_release);\n"
           "    return &SET;\n"
           "}\n");
}

char *dsl_emit(dsl_file *f, const dsl_trees *t, const dsl_emit_options *opt, graft_error *err)
{
    emitter *e = calloc(1, sizeof *e);
    if (!e) {
        error_set(err, "out of memory");
        return NULL;
    }
    e->f = f;
    e->err = err;
    op_all(&e->nall_ops);
    e->op_name = dsl_alloc(f, sizeof(char *) * (size_t)(e->nall_ops + 1));
    memset(e->op_name, 0, sizeof(char *) * (size_t)(e->nall_ops + 1));
    rule_helpers(&e->nregistry);
    e->helper_name = dsl_alloc(f, sizeof(char *) * (size_t)(e->nregistry + 1));
    memset(e->helper_name, 0, sizeof(char *) * (size_t)(e->nregistry + 1));
    e->rule_name = dsl_alloc(f, sizeof(char *) * (size_t)(f->nrules + 1));
    memset(e->rule_name, 0, sizeof(char *) * (size_t)(f->nrules + 1));
    e->first_variant = dsl_alloc(f, sizeof(int) * (size_t)(f->nrules + 1));
    e->leaf_of = dsl_alloc(f, sizeof(int) * (size_t)(t->nvariants + 1));
    e->slot_of = dsl_alloc(f, sizeof(int) * (size_t)(t->nvariants + 1));
    /* The file's own identifiers first, then the rules in file order. */
    static const char *const reserved[] = {"API",        "SET",        "RULES",     "OP_REFS",
                                           "ATTR_REFS",  "HELPER_REFS", "apply",    "same_attr",
                                           "same_shape", "ints_equal", "RULE_MAX_OPERANDS",
                                           "op_in",      "OP_SET_WORDS", "explain",
                                           "EXPLAIN_PASSED"};
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
        e->used = grow(f, e->used, e->nused, &e->capused, sizeof *e->used);
        e->used[e->nused++] = reserved[i];
    }
    for (int i = 0; i < f->nrules; i++)
        rule_const(e, f->rules[i]);
    for (int i = t->nvariants - 1; i >= 0; i--)
        e->first_variant[t->variants[i]->rule->index] = i;
    for (int i = 0; i < t->nvariants && !e->failed; i++)
        if (!add_variant(e, i, t->variants[i]))
            e->failed = true;
    for (int l = 0; l < e->nleaves && !e->failed; l++)
        plan_leaf(e, &e->leaves[l]);

    buf tree = {0}, leaves = {0}, all = {0}, explain = {0};
    if (!e->failed)
        emit_apply(e, &tree, t);
    for (int l = 0; l < e->nleaves && !e->failed; l++)
        render_leaf(e, &leaves, &e->leaves[l]);
    if (!e->failed)
        emit_explain(e, &explain, t);

    char *result = NULL;
    if (!e->failed) {
        out(&all, "/* Generated by graft's rule compiler from %s. Do not edit: edit the rules.\n", f->path);
        out(&all, " * Layout and contract: dsl/emit.c, docs/rules.md (\"How rules run\"). */\n");
        out(&all, "%s", prelude);
        emit_constants(e, &all);
        out(&all, "%s", support);
        out(&all, "%s", text_of(&leaves));
        out(&all, "%s", text_of(&tree));
        out(&all, "%s", text_of(&explain));
        emit_entry(e, &all, opt);
        if (all.failed || tree.failed || leaves.failed || explain.failed) {
            error_set(err, "out of memory");
            strbuf_free(&all);
        } else {
            result = strbuf_take(&all, NULL);
        }
    } else {
        strbuf_free(&all);
    }
    strbuf_free(&tree);
    strbuf_free(&leaves);
    strbuf_free(&explain);
    free(e);
    return result;
}
