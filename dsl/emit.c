/* emit.c: writes the C of a rule set from its decision trees.
 *
 * The generated file is self-contained C11 that includes only dsl/api.h (and
 * the IR headers it pulls in). It touches the graph only through the
 * graft_rule_api table handed to its entry function, so the same text works
 * linked into graft and loaded from a shared object. Its layout:
 *   - name tables (ops, attributes, helpers) resolved once at entry;
 *   - one `fire_R_V` function per rule variant: the leaf, which opens the
 *     match (rw_attempt), evaluates guards and lets, builds the replacement
 *     (rw_insert; a fold(c) literal through A->fold) and commits (rw_replace
 *     / rw_commit_in_place) or undoes it (rw_abort) when a helper, a fold or
 *     a shape rule fails;
 *   - `apply`: a switch on the root op with each root's decision tree, where
 *     runs of operand-op tests become nested switches.
 * Every branch carries a comment naming its rules and their file:line, so a
 * reader of the generated code (or of a trace) finds the rule at once.
 */
#include "compile.h"

#include "api.h"
#include "helpers.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
    char *p;
    size_t n, cap;
    bool oom;
} buf;

static void out(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(buf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = true;
            return;
        }
        if (b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 65536;
        while (cap < b->n + (size_t)k + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
}

static void indent(buf *b, int depth)
{
    for (int i = 0; i < depth; i++)
        out(b, "    ");
}

/* ---- name tables ---- */

typedef struct tables {
    const op_def *ops[512];
    int nops;
    struct {
        int op;
        int index;
    } attrs[1024];
    int nattrs;
    int helpers[64];  /* registry index per local slot */
    int nhelpers;
    bool full;
} tables;

static int op_slot(tables *t, const op_def *op)
{
    for (int i = 0; i < t->nops; i++)
        if (t->ops[i] == op)
            return i;
    if (t->nops == 512) {
        t->full = true;
        return 0;
    }
    t->ops[t->nops] = op;
    return t->nops++;
}

static int attr_slot(tables *t, const op_def *op, int index)
{
    int o = op_slot(t, op);
    for (int i = 0; i < t->nattrs; i++)
        if (t->attrs[i].op == o && t->attrs[i].index == index)
            return i;
    if (t->nattrs == 1024) {
        t->full = true;
        return 0;
    }
    t->attrs[t->nattrs].op = o;
    t->attrs[t->nattrs].index = index;
    return t->nattrs++;
}

static int helper_slot(tables *t, int registry_index)
{
    for (int i = 0; i < t->nhelpers; i++)
        if (t->helpers[i] == registry_index)
            return i;
    if (t->nhelpers == 64) {
        t->full = true;
        return 0;
    }
    t->helpers[t->nhelpers] = registry_index;
    return t->nhelpers++;
}

/* ---- emission context ---- */

typedef struct emitter {
    dsl_file *f;
    graft_error *err;
    buf head;       /* literal constants, emitted before everything else */
    buf body;       /* leaf functions */
    buf tree;       /* apply */
    tables t;
    int nlits;
    bool failed;
    /* per leaf */
    const dsl_variant *v;
    int ntemps;
    bool uses_fail;
} emitter;

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

static void c_double(buf *b, double d)
{
    if (isinf(d))
        out(b, d < 0 ? "(-__builtin_inf())" : "__builtin_inf()");
    else if (isnan(d))
        out(b, "__builtin_nan(\"\")");
    else
        out(b, "%.17g", d);
}

/* Emits a static attr_value for a literal; returns its number. */
static int emit_literal(emitter *e, const attr_value *v)
{
    int k = e->nlits++;
    buf *b = &e->head;
    switch (v->kind) {
    case ATTR_INTS:
        out(b, "static const int64_t LD%d[] = {", k);
        for (int i = 0; i < v->n; i++)
            out(b, "%s%" PRId64, i ? ", " : "", v->u.ints[i]);
        out(b, "%s};\n", v->n ? "" : "0");
        out(b, "static const attr_value LIT%d = {ATTR_INTS, %d, {.ints = LD%d}};\n", k, v->n, k);
        break;
    case ATTR_FLOATS:
        out(b, "static const double LD%d[] = {", k);
        for (int i = 0; i < v->n; i++) {
            out(b, "%s", i ? ", " : "");
            c_double(b, v->u.floats[i]);
        }
        out(b, "%s};\n", v->n ? "" : "0");
        out(b, "static const attr_value LIT%d = {ATTR_FLOATS, %d, {.floats = LD%d}};\n", k, v->n, k);
        break;
    case ATTR_STRING:
        out(b, "static const attr_value LIT%d = {ATTR_STRING, 0, {.s = ", k);
        c_string(b, v->u.s);
        out(b, "}};\n");
        break;
    case ATTR_FLOAT:
        out(b, "static const attr_value LIT%d = {ATTR_FLOAT, 0, {.f = ", k);
        c_double(b, v->u.f);
        out(b, "}};\n");
        break;
    default:
        out(b, "static const attr_value LIT%d = {%d, 0, {.i = %" PRId64 "}};\n", k, (int)v->kind, v->u.i);
        break;
    }
    return k;
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

/* ---- tests ---- */

static void emit_condition(emitter *e, buf *b, const dsl_test *t)
{
    char p[256], p2[256];
    dsl_path_c(&t->path, p, sizeof p);
    switch (t->kind) {
    case TEST_OP:
        out(b, "%s->op == OPS[%d]", p, op_slot(&e->t, t->op));
        break;
    case TEST_NOT_OP:
        out(b, "%s->op != OPS[%d]", p, op_slot(&e->t, t->op));
        break;
    case TEST_CLASS:
        out(b, "(%s->op->classes & 0x%xu) != 0", p, t->classes);
        break;
    case TEST_NOT_CLASS:
        out(b, "(%s->op->classes & 0x%xu) == 0", p, t->classes);
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
        int a = attr_slot(&e->t, t->op, t->attr_index);
        switch (t->lit->kind) {
        case ATTR_INT:
        case ATTR_BOOL:
        case ATTR_TYPE:
            out(b, "%s->attrs[AX[%d]].v.u.i == %" PRId64, p, a, t->lit->u.i);
            break;
        default:
            out(b, "A->attr_equals(%s, AX[%d], &LIT%d)", p, a, emit_literal(e, t->lit));
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
        out(b, "same_attr(%s, AX[%d], %s, AX[%d])", p, attr_slot(&e->t, t->op, t->attr_index), p2,
            attr_slot(&e->t, t->op2, t->attr_index2));
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
    out(b, "if (!A->%s(t%d, %d, t%d, &t%d))\n", x->op <= DSL_OP_GE ? "compare" : "arith", a, x->op, c, k);
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
        out(b, "rule_value t%d = rule_int(%" PRId64 ");\n", k, x->i);
        return k;
    case EX_FLOAT:
        k = temp(e);
        indent(b, depth);
        out(b, "rule_value t%d = rule_float(", k);
        c_double(b, x->f);
        out(b, ");\n");
        return k;
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
            out(b, "rule_value t%d = A->attr_get(%s, AX[%d]);\n", k, p,
                attr_slot(&e->t, bd->op, bd->attr_index));
            break;
        }
        case SYM_LET:
            out(b, "rule_value t%d = l%d;\n", k, x->sym_index);
            break;
        case SYM_TYPE:
            out(b, "rule_value t%d = rule_type(%d);\n", k, x->sym_index);
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
        out(b, "if (!H[%d](ar, a%d, %d, &t%d)) /* %s */\n", helper_slot(&e->t, x->helper), k, x->nargs,
            k, h->name);
        indent(b, depth + 1);
        out(b, "goto fail;\n");
        return k;
    }
    case EX_FIELD: {
        int a = emit_expr(e, b, depth, x->a);
        k = temp(e);
        indent(b, depth);
        if (x->field == FIELD_ATTR)
            out(b, "rule_value t%d = A->attr_get(t%d.u.in, AX[%d]); /* .%s */\n", k, a,
                attr_slot(&e->t, x->attr_op, x->attr_index), x->name);
        else
            out(b, "rule_value t%d = A->field(t%d.u.in, %d); /* .%s */\n", k, a, x->field, x->name);
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
        e->failed = true; /* the grammar allows a region only as the whole replacement */
        return dsl_error(e->err, e->f, r->loc, "a region must be the whole replacement");
    case RP_FOLD: {
        char value[256];
        capture_path(e, r->capture, value, sizeof value);
        int k = temp(e);
        indent(b, 1);
        out(b, "ins *b%d = A->fold(rw, r, %s); /* fold(%s) */\n", k, value, r->args[0]->name);
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
            int a = attr_slot(&e->t, r->op, s->index);
            indent(b, 1);
            out(b, "if (!A->to_attr(ar, t%d, %s, &at%d[AX[%d]].v)) /* %s */\n        goto fail;\n", v,
                attr_kind_c(s->kind), k, a, s->key);
        } else {
            indent(b, 1);
            out(b, "at%d[%d].key = ", k, nset);
            c_string(b, s->key);
            out(b, ";\n");
            indent(b, 1);
            out(b, "if (!A->to_attr(ar, t%d, %s, &at%d[%d].v))\n        goto fail;\n", v,
                attr_kind_c(s->kind), k, nset);
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
    if (r->kind == RP_REUSE)
        out(b, "ins *b%d = A->insert(rw, r, %s->op, at%d, %s->nattrs, av%d, nav%d);\n", k, cap, k, cap, k, k);
    else
        out(b, "ins *b%d = A->insert(rw, r, OPS[%d], at%d, %d, av%d, nav%d); /* %s */\n", k,
            op_slot(&e->t, r->op), k, nset, k, k, r->op->name);
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
    char p[256];
    out(b, "    /* region %s:%d */\n", e->f->path, r->loc.line);
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
    out(b, "    if (!A->region(rw, r, rm, %d, ro, %d, rr))\n        goto fail;\n", r->nargs,
        r->noutputs);
    out(b, "    A->replace_region(rw, rm, %d, ro, rr, %d);\n", r->nargs, r->noutputs);
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

static bool emit_leaf(emitter *e, const dsl_variant *v)
{
    const dsl_rule *r = v->rule;
    buf *b = &e->body;
    buf code = {0};
    e->v = v;
    e->ntemps = 0;
    e->uses_fail = false;
    /* guards and lets, in order */
    int let = 0;
    for (const dsl_clause *c = r->clauses; c; c = c->next) {
        out(&code, "    /* %s %s:%d */\n", c->is_let ? "let" : "if", e->f->path, c->loc.line);
        int t = emit_expr(e, &code, 1, c->expr);
        if (c->is_let) {
            out(&code, "    rule_value l%d = t%d; /* %s */\n", let++, t, c->name);
        } else {
            e->uses_fail = true;
            out(&code, "    if (!t%d.u.i)\n        goto fail;\n", t);
        }
    }
    /* replacement */
    const dsl_repl *rp = r->repl;
    if (in_place_candidate(rp, v)) {
        out(&code, "    if (r->nargs == %d", rp->nargs);
        for (int i = 0; i < rp->nargs; i++) {
            char p[256];
            capture_path(e, rp->args[i]->capture, p, sizeof p);
            out(&code, " &&\n        same_shape(%s, r->args[%d])", p, i);
        }
        out(&code, ") {\n");
        out(&code, "        ins *ops[%d] = {", rp->nargs ? rp->nargs : 1);
        for (int i = 0; i < rp->nargs; i++) {
            char p[256];
            capture_path(e, rp->args[i]->capture, p, sizeof p);
            out(&code, "%s%s", i ? ", " : "", p);
        }
        out(&code, "%s};\n", rp->nargs ? "" : "NULL");
        out(&code, "        for (int i = 0; i < %d; i++)\n", rp->nargs);
        out(&code, "            if (r->args[i] != ops[i])\n");
        out(&code, "                A->set_arg(rw, r, i, ops[i]);\n");
        out(&code, "        A->commit_in_place(rw, r);\n");
        out(&code, "        return true;\n");
        out(&code, "    }\n");
    }
    char res[256];
    if (rp->kind == RP_REGION) {
        emit_region(e, &code, rp);
    } else if (!emit_repl(e, &code, rp, res, sizeof res)) {
        free(code.p);
        return false;
    }
    if (rp->kind != RP_REGION && strcmp(res, "r") == 0) {
        free(code.p);
        e->failed = true;
        return dsl_error(e->err, e->f, rp->loc, "rule '%s' replaces its root with itself", r->name);
    }
    if (rp->kind != RP_REGION)
        out(&code, "    A->replace(rw, r, %s);\n", res);
    out(&code, "    return true;\n");

    out(b, "/* rule %s at %s:%d", r->name, e->f->path, r->loc.line);
    if (v->number)
        out(b, ", operand order %d", v->number);
    out(b, " */\n");
    out(b, "static bool fire_%d_%d(rewriter *rw, ins *r)\n{\n", r->index, v->number);
    out(b, "    if (!A->attempt(rw, %d, r))\n        return false;\n", r->index);
    out(b, "    arena *ar = A->arena_of(rw);\n    (void)ar;\n");
    out(b, "%s", code.p ? code.p : "");
    if (e->uses_fail)
        out(b, "fail:\n    A->abort(rw);\n    return false;\n");
    out(b, "}\n\n");
    free(code.p);
    if (code.oom)
        b->oom = true;
    return true;
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

static void emit_items(emitter *e, buf *b, const dsl_tnode *n, int depth)
{
    for (int i = 0; i < n->nitems; i++) {
        const dsl_titem *it = &n->items[i];
        if (it->leaf) {
            const dsl_rule *r = it->leaf->rule;
            indent(b, depth);
            out(b, "if (fire_%d_%d(rw, r)) /* rule %s at %s:%d */\n", r->index, it->leaf->number, r->name,
                e->f->path, r->loc.line);
            indent(b, depth + 1);
            out(b, "return %d;\n", r->index);
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
            char p[256];
            dsl_path_c(&t->path, p, sizeof p);
            indent(b, depth);
            out(b, "switch (op_case(%s->op)) {\n", p);
            for (int k = i; k < j; k++) {
                const dsl_tnode *c = n->items[k].child;
                indent(b, depth);
                out(b, "case %d: { /* %s */", op_slot(&e->t, c->test.op), c->test.op->name);
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

static const char *prelude =
    "#include \"api.h\"\n"
    "\n"
    "#include <stddef.h>\n"
    "#include <stdint.h>\n"
    "\n"
    "#define RULE_MAX_OPERANDS 64\n"
    "\n"
    "static const graft_rule_api *A;\n";

static const char *support =
    "__attribute__((unused)) static bool same_attr(ins *a, int ka, ins *b, int kb)\n"
    "{\n"
    "    rule_value eq;\n"
    "    return A->compare(A->attr_get(a, ka), RULE_OP_EQ, A->attr_get(b, kb), &eq) && eq.u.i;\n"
    "}\n"
    "\n"
    "__attribute__((unused)) static bool same_shape(ins *a, ins *b)\n"
    "{\n"
    "    rule_value eq;\n"
    "    return A->compare(A->field(a, RULE_FIELD_SHAPE), RULE_OP_EQ, A->field(b, RULE_FIELD_SHAPE), &eq) &&\n"
    "           eq.u.i;\n"
    "}\n"
    "\n";

char *dsl_emit(dsl_file *f, const dsl_trees *t, const dsl_emit_options *opt, graft_error *err)
{
    emitter *e = calloc(1, sizeof *e);
    if (!e) {
        error_set(err, "out of memory");
        return NULL;
    }
    e->f = f;
    e->err = err;
    /* Root ops take the first slots, so the root switch is dense. */
    for (int i = 0; i < t->nroots; i++)
        op_slot(&e->t, t->roots[i].op);
    for (int i = 0; i < t->nvariants && !e->failed; i++)
        emit_leaf(e, t->variants[i]);

    buf *b = &e->tree;
    out(b, "static int apply(rewriter *rw, ins *r)\n{\n");
    out(b, "    switch (op_case(r->op)) {\n");
    for (int i = 0; i < t->nroots && !e->failed; i++) {
        out(b, "    case %d: { /* root %s */\n", op_slot(&e->t, t->roots[i].op), t->roots[i].op->name);
        emit_items(e, b, &t->roots[i].tree, 2);
        out(b, "        break;\n    }\n");
    }
    out(b, "    default:\n        break;\n    }\n    return -1;\n}\n\n");

    char *result = NULL;
    if (!e->failed && e->t.full) {
        error_set(err, "%s: too many distinct ops, attributes or helpers in one rule file", f->path);
        e->failed = true;
    }
    if (!e->failed) {
        buf all = {0};
        out(&all, "/* Generated by graft's rule compiler from %s. Do not edit: edit the rules. */\n",
            f->path);
        out(&all, "%s", prelude);
        /* tables */
        out(&all, "\nstatic const char *const OP_NAMES[%d] = {", e->t.nops ? e->t.nops : 1);
        for (int i = 0; i < e->t.nops; i++) {
            out(&all, "%s", i % 6 ? " " : "\n    ");
            c_string(&all, e->t.ops[i]->name);
            out(&all, ",");
        }
        out(&all, "%s};\n", e->t.nops ? "\n" : "NULL");
        out(&all, "static const op_def *OPS[%d];\n", e->t.nops ? e->t.nops : 1);
        out(&all, "static const struct { int op; const char *name; } AX_NAMES[%d] = {",
            e->t.nattrs ? e->t.nattrs : 1);
        for (int i = 0; i < e->t.nattrs; i++) {
            out(&all, "\n    {%d, ", e->t.attrs[i].op);
            c_string(&all, e->t.ops[e->t.attrs[i].op]->attrs[e->t.attrs[i].index].name);
            out(&all, "},");
        }
        out(&all, "%s};\n", e->t.nattrs ? "\n" : "{0, NULL}");
        out(&all, "static int AX[%d];\n", e->t.nattrs ? e->t.nattrs : 1);
        int nh;
        const rule_helper *helpers = rule_helpers(&nh);
        out(&all, "static const char *const H_NAMES[%d] = {", e->t.nhelpers ? e->t.nhelpers : 1);
        for (int i = 0; i < e->t.nhelpers; i++) {
            out(&all, "%s", i ? ", " : "");
            c_string(&all, helpers[e->t.helpers[i]].name);
        }
        out(&all, "%s};\n", e->t.nhelpers ? "" : "NULL");
        out(&all, "static rule_helper_fn H[%d];\n\n", e->t.nhelpers ? e->t.nhelpers : 1);
        int bits = 4;
        while ((1 << bits) < 2 * e->t.nops + 2)
            bits++;
        out(&all, "/* op_def -> slot in OPS, open addressing */\n");
        out(&all, "#define CASE_BITS %d\n", bits);
        out(&all, "static const op_def *CASE_KEYS[1 << CASE_BITS];\n");
        out(&all, "static int CASE_VALUES[1 << CASE_BITS];\n\n");
        out(&all, "static size_t case_hash(const op_def *d)\n{\n"
                  "    return (size_t)(((uint64_t)(uintptr_t)d * 0x9E3779B97F4A7C15ull) >> (64 - CASE_BITS));\n"
                  "}\n\n");
        out(&all, "static int op_case(const op_def *d)\n{\n"
                  "    size_t h = case_hash(d);\n"
                  "    while (CASE_KEYS[h]) {\n"
                  "        if (CASE_KEYS[h] == d)\n"
                  "            return CASE_VALUES[h];\n"
                  "        h = (h + 1) & ((1u << CASE_BITS) - 1);\n"
                  "    }\n"
                  "    return -1;\n"
                  "}\n\n");
        out(&all, "%s", e->head.p ? e->head.p : "");
        out(&all, "\n%s", support);
        out(&all, "%s", e->body.p ? e->body.p : "");
        out(&all, "%s", e->tree.p ? e->tree.p : "");
        /* rule table and entry */
        out(&all, "static const rule_info RULES[%d] = {\n", f->nrules ? f->nrules : 1);
        for (int i = 0; i < f->nrules; i++) {
            out(&all, "    {");
            c_string(&all, f->rules[i]->name);
            out(&all, ", ");
            c_string(&all, f->path);
            out(&all, ", %d, %s},\n", f->rules[i]->loc.line,
                f->rules[i]->flags & DSL_RULE_NONTERMINATING ? "RULE_NONDECREASING" : "0");
        }
        if (!f->nrules)
            out(&all, "    {NULL, NULL, 0, 0},\n");
        out(&all, "};\n\n");
        out(&all, "static const rule_set SET = {");
        c_string(&all, opt && opt->set_name ? opt->set_name : "rules");
        out(&all, ", %d, RULES, apply};\n\n", f->nrules);
        const char *entry = opt && opt->entry_name ? opt->entry_name : GRAFT_RULES_ENTRY;
        if (opt && opt->exported)
            out(&all, "__attribute__((visibility(\"default\")))\n");
        out(&all, "const rule_set *%s(const graft_rule_api *api);\n", entry);
        if (opt && opt->exported)
            out(&all, "__attribute__((visibility(\"default\")))\n");
        out(&all,
            "const rule_set *%s(const graft_rule_api *api)\n"
            "{\n"
            "    if (!api || api->version != GRAFT_RULE_API_VERSION || api->size < sizeof *api)\n"
            "        return NULL;\n"
            "    if (A == api)\n"
            "        return &SET;\n"
            "    for (int i = 0; i < %d; i++) {\n"
            "        OPS[i] = api->op_find(OP_NAMES[i]);\n"
            "        if (!OPS[i])\n"
            "            return NULL;\n"
            "        size_t h = case_hash(OPS[i]);\n"
            "        while (CASE_KEYS[h] && CASE_KEYS[h] != OPS[i])\n"
            "            h = (h + 1) & ((1u << CASE_BITS) - 1);\n"
            "        CASE_KEYS[h] = OPS[i];\n"
            "        CASE_VALUES[h] = i;\n"
            "    }\n"
            "    for (int i = 0; i < %d; i++) {\n"
            "        AX[i] = api->op_attr_index(OPS[AX_NAMES[i].op], AX_NAMES[i].name);\n"
            "        if (AX[i] < 0)\n"
            "            return NULL;\n"
            "    }\n"
            "    for (int i = 0; i < %d; i++) {\n"
            "        H[i] = api->helper_find(H_NAMES[i]);\n"
            "        if (!H[i])\n"
            "            return NULL;\n"
            "    }\n"
            "    A = api;\n"
            "    return &SET;\n"
            "}\n",
            entry, e->t.nops, e->t.nattrs, e->t.nhelpers);
        if (all.oom || e->head.oom || e->body.oom || e->tree.oom) {
            error_set(err, "out of memory");
            free(all.p);
        } else {
            result = all.p;
        }
    }
    free(e->head.p);
    free(e->body.p);
    free(e->tree.p);
    free(e);
    return result;
}
