/* sema.c: name and type checks of a parsed rule file.
 *
 * The parser accepts anything shaped like a rule; this phase decides whether
 * it means something. It resolves op names and classes against the op table
 * (ir/op.h), attribute names against each op's declaration, arities,
 * markers, captures (where each is bound, whether a name is bound twice in
 * incompatible ways), helper calls against the helper registry
 * (dsl/helpers.c), and the type of every guard and computed attribute. It
 * annotates the tree with what later phases need (op_def pointers, attribute
 * indexes, expression types, capture numbers). A rule's first error is
 * reported at the line and column of the offending token, with a suggestion
 * when one helps (the closest op, helper or attribute name by edit distance,
 * or the op's attributes); checking goes on with the next rule
 * (dsl_sema_all), up to DSL_MAX_ERRORS errors.
 */
#include "compile.h"

#include "helpers.h"
#include "shape.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct sema {
    dsl_file *f;
    graft_error *err;
    dsl_rule *rule;
    bool failed;
    /* lets in scope: names and types */
    const char *let_names[64];
    dsl_type let_types[64];
    dsl_loc let_locs[64];
    int nlets;
} sema;

#define FAIL(s, loc, ...) \
    do { if (!(s)->failed) { (s)->failed = true; dsl_error((s)->err, (s)->f, (loc), __VA_ARGS__); } \
         return false; } while (0)

static const struct {
    const char *name;
    unsigned bits;
} class_table[] = {
    {"pointwise", OPC_POINTWISE}, {"unary", OPC_UNARY}, {"binary", OPC_BINARY},
    {"reduce", OPC_REDUCE},       {"view", OPC_VIEW},   {"compute", OPC_COMPUTE},
    {"move", OPC_MOVE},           {"shape", OPC_SHAPE}, {"fused", OPC_REGION},
};

unsigned dsl_class_bits(const char *name)
{
    for (size_t i = 0; i < sizeof class_table / sizeof class_table[0]; i++)
        if (strcmp(class_table[i].name, name) == 0)
            return class_table[i].bits;
    return 0;
}

/* ---- suggestions ---- */

/* Levenshtein distance of a and b, both at most 63 characters (longer names
 * are never close). */
static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    int row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* The closest candidate seen so far, kept only when it is close: at most a
 * third of the name's length edits (at least one), and fewer than the name
 * has characters. */
typedef struct suggestion {
    const char *name;
    const char *best;
    int dist;
} suggestion;

static void suggest_consider(suggestion *g, const char *cand)
{
    if (!cand || strcmp(cand, g->name) == 0)
        return;
    int len = (int)strlen(g->name);
    int limit = len / 3 > 1 ? len / 3 : 1;
    int d = edit_distance(g->name, cand);
    if (d <= limit && d < len && (!g->best || d < g->dist)) {
        g->best = cand;
        g->dist = d;
    }
}

/* " (did you mean 'x'?)" or "". */
static const char *suggest_text(const suggestion *g, char *buf, size_t size)
{
    if (!g->best)
        return "";
    snprintf(buf, size, " (did you mean '%s'?)", g->best);
    return buf;
}

static const char *op_suggestion(const char *name, char *buf, size_t size)
{
    suggestion g = {name, NULL, 0};
    int n;
    const op_def *const *all = op_all(&n);
    for (int k = 0; k < n; k++)
        suggest_consider(&g, all[k]->name);
    return suggest_text(&g, buf, size);
}

/* The closest helper or predicate of f. */
static const char *helper_suggestion(const dsl_file *f, const char *name, char *buf, size_t size)
{
    suggestion g = {name, NULL, 0};
    int n;
    const rule_helper *all = rule_helpers(&n);
    for (int k = 0; k < n; k++)
        suggest_consider(&g, all[k].name);
    for (int k = 0; k < f->npredicates; k++)
        suggest_consider(&g, f->predicates[k]->name);
    return suggest_text(&g, buf, size);
}

/* " (did you mean 'x'?)" when one is close, else " (its attributes: a, b)"
 * or " (it has no attributes)". */
static const char *attr_suggestion(const op_def *op, const char *name, char *buf, size_t size)
{
    suggestion g = {name, NULL, 0};
    for (int k = 0; k < op->nattrs; k++)
        suggest_consider(&g, op->attrs[k].name);
    if (g.best)
        return suggest_text(&g, buf, size);
    if (!op->nattrs) {
        snprintf(buf, size, " (it has no attributes)");
        return buf;
    }
    size_t n = (size_t)snprintf(buf, size, " (its attributes: ");
    for (int k = 0; k < op->nattrs && n < size; k++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", k ? ", " : "", op->attrs[k].name);
    if (n < size)
        snprintf(buf + n, size - n, ")");
    return buf;
}

static void arity_text(const op_def *op, char *buf, size_t size)
{
    const char *s = op->min_args == 1 ? "" : "s";
    if (op->max_args < 0)
        snprintf(buf, size, "at least %d operand%s", op->min_args, s);
    else if (op->min_args == op->max_args)
        snprintf(buf, size, "%d operand%s", op->min_args, s);
    else
        snprintf(buf, size, "%d to %d operands", op->min_args, op->max_args);
}

static bool check_arity(sema *s, const op_def *op, int n, bool has_rest, dsl_loc loc, const char *what)
{
    bool ok = has_rest ? (op->max_args < 0 || n <= op->max_args)
                       : (n >= op->min_args && (op->max_args < 0 || n <= op->max_args));
    if (!ok) {
        char takes[64];
        arity_text(op, takes, sizeof takes);
        FAIL(s, loc, "wrong arity: op '%s' takes %s, the %s gives %d%s", op->name, takes, what, n,
             has_rest ? " and more" : "");
    }
    return true;
}

/* ---- captures ---- */

static const char *sym_kind_name(dsl_sym_kind k)
{
    switch (k) {
    case SYM_INS: return "an operand";
    case SYM_ATTR: return "an attribute";
    case SYM_REST: return "a rest of operands";
    case SYM_LET: return "a let";
    default: return "something else";
    }
}

static int find_capture(const dsl_rule *r, const char *name)
{
    for (int i = 0; i < r->ncaptures; i++)
        if (strcmp(r->captures[i].name, name) == 0)
            return i;
    return -1;
}

static bool add_capture(sema *s, const char *name, dsl_sym_kind kind, dsl_loc loc, dsl_pattern *pat,
                        dsl_attr_pat *attr, dsl_pattern *owner)
{
    dsl_rule *r = s->rule;
    int k = find_capture(r, name);
    if (k >= 0) {
        dsl_capture *c = &r->captures[k];
        bool consistent = c->kind == kind && kind != SYM_REST &&
                          (kind != SYM_ATTR || c->attr->kind == attr->kind);
        if (!consistent)
            FAIL(s, loc, "capture '%s' bound twice inconsistently: %s here, %s at %d:%d", name,
                 kind == SYM_ATTR && c->kind == SYM_ATTR ? "an attribute of another kind"
                                                         : sym_kind_name(kind),
                 sym_kind_name(c->kind), c->loc.line, c->loc.col);
        /* A repeat of an operand capture is an equality test (tree.c); keep
         * the first binding, but prefer the one bound to an op pattern so
         * that attribute reads resolve. */
        if (kind == SYM_INS && pat && pat->kind != PAT_CAPTURE && c->pat->kind == PAT_CAPTURE)
            c->pat = pat;
        return true;
    }
    if (r->ncaptures == 64)
        FAIL(s, loc, "too many captures in one rule (at most 64)");
    if (!r->captures)
        r->captures = dsl_alloc(s->f, sizeof(dsl_capture) * 64);
    dsl_capture *c = &r->captures[r->ncaptures++];
    c->name = name;
    c->kind = kind;
    c->loc = loc;
    c->pat = pat;
    c->attr = attr;
    c->owner = owner;
    return true;
}

/* ---- attribute literals ---- */

static const char *value_kind_name(const dsl_value *v)
{
    switch (v->kind) {
    case DV_INT: return "an int";
    case DV_FLOAT: return "a float";
    case DV_INTS: return "a list of ints";
    case DV_FLOATS: return "a list of floats";
    case DV_IDENT: return "a name";
    case DV_BOOL: return "a bool";
    }
    return "a value";
}

static bool convert_literal(sema *s, const op_def *op, dsl_attr_pat *a)
{
    const attr_spec *spec = &op->attrs[a->index];
    const dsl_value *v = &a->value;
    a->kind = spec->kind;
    switch (spec->kind) {
    case ATTR_INT:
        if (v->kind == DV_INT) {
            a->lit = attr_int(v->i);
            return true;
        }
        if (v->kind == DV_IDENT && spec->enum_names) {
            int e = op_enum_value(spec, v->ident, strlen(v->ident));
            if (e < 0)
                FAIL(s, a->value_loc, "attribute '%s' of '%s' has no value named '%s'", a->key,
                     op->name, v->ident);
            a->lit = attr_int(e);
            return true;
        }
        break;
    case ATTR_BOOL:
        if (v->kind == DV_BOOL || (v->kind == DV_INT && (v->i == 0 || v->i == 1))) {
            a->lit = attr_bool(v->i != 0);
            return true;
        }
        break;
    case ATTR_FLOAT:
        if (v->kind == DV_INT) {
            a->lit = attr_float((double)v->i);
            return true;
        }
        if (v->kind == DV_FLOAT) {
            a->lit = attr_float(v->f);
            return true;
        }
        if (v->kind == DV_IDENT && (strcmp(v->ident, "inf") == 0 || strcmp(v->ident, "-inf") == 0)) {
            a->lit = attr_float(v->ident[0] == '-' ? -INFINITY : INFINITY);
            return true;
        }
        break;
    case ATTR_INTS:
        if (v->kind == DV_INTS) {
            a->lit = attr_ints(v->ints, v->n);
            return true;
        }
        break;
    case ATTR_FLOATS:
        if (v->kind == DV_FLOATS) {
            a->lit = attr_floats(v->floats, v->n);
            return true;
        }
        if (v->kind == DV_INTS) {
            double *d = dsl_alloc(s->f, sizeof(double) * (size_t)(v->n + 1));
            for (int i = 0; i < v->n; i++)
                d[i] = (double)v->ints[i];
            a->lit = attr_floats(d, v->n);
            return true;
        }
        break;
    case ATTR_TYPE:
        if (v->kind == DV_IDENT) {
            graft_type t;
            if (!type_from_name(v->ident, strlen(v->ident), &t))
                FAIL(s, a->value_loc, "unknown element type '%s'", v->ident);
            a->lit = attr_type(t);
            return true;
        }
        break;
    case ATTR_STRING:
        if (v->kind == DV_IDENT) {
            a->lit = attr_string(v->ident);
            return true;
        }
        break;
    }
    FAIL(s, a->value_loc, "attribute '%s' of '%s' is %s, the pattern gives %s", a->key, op->name,
         dsl_type_name(dsl_type_of_attr_kind(spec->kind)), value_kind_name(v));
}

/* Whether `name` written as attr=name is one of the attribute's values (an
 * enum name, an element type, inf) rather than a new capture. */
static bool names_a_value(const attr_spec *spec, const char *name)
{
    if (spec->kind == ATTR_INT && spec->enum_names)
        return op_enum_value(spec, name, strlen(name)) >= 0;
    if (spec->kind == ATTR_TYPE) {
        graft_type t;
        return type_from_name(name, strlen(name), &t);
    }
    if (spec->kind == ATTR_FLOAT)
        return strcmp(name, "inf") == 0;
    return false;
}

/* ---- patterns ---- */

/* The op whose attribute table an attribute of the class `classes` is read
 * through: an attribute pattern or a `.attr` field on a class is accepted
 * only when every op of the class (every op the matcher can meet under it:
 * not builtins or the opaque op) declares that attribute, with the same kind,
 * enum names and slot, so that generated code reads it by slot without
 * knowing which op matched. The class's first op in the registry stands for
 * all of them (its slot is what the generated entry checks at load time). */
static bool class_attr_op(sema *s, unsigned classes, const char *cname, const char *key, dsl_loc loc,
                          const op_def **rep, int *index)
{
    int n = 0;
    const op_def *const *all = op_all(&n);
    const op_def *first = NULL;
    int k0 = -1;
    for (int i = 0; i < n; i++) {
        const op_def *op = all[i];
        if ((op->classes & classes) == 0 || (op->classes & (OPC_BUILTIN | OPC_OPAQUE)))
            continue;
        int k = op_attr_index(op, key);
        if (k < 0) {
            if (op->nattrs == 0)
                FAIL(s, loc, "attribute '%s' is not shared by every op of the class '<%s>' ('%s' has no "
                     "attributes)", key, cname, op->name);
            FAIL(s, loc, "attribute '%s' is not shared by every op of the class '<%s>' ('%s' has no "
                 "attribute '%s')", key, cname, op->name, key);
        }
        if (!first) {
            first = op;
            k0 = k;
            continue;
        }
        const attr_spec *a = &first->attrs[k0], *b = &op->attrs[k];
        if (k != k0)
            FAIL(s, loc, "attribute '%s' is not shared by every op of the class '<%s>' ('%s' has it in "
                 "slot %d, '%s' in slot %d)", key, cname, first->name, k0, op->name, k);
        if (a->kind != b->kind || a->enum_names != b->enum_names)
            FAIL(s, loc, "attribute '%s' is not shared by every op of the class '<%s>' ('%s' and '%s' "
                 "give it different kinds)", key, cname, first->name, op->name);
    }
    if (!first)
        FAIL(s, loc, "attribute '%s': the class '<%s>' has no ops", key, cname);
    *rep = first;
    *index = k0;
    return true;
}

/* The slot of attribute `key` in a pattern, a `.attr` field or a
 * replacement's sets: in the named op's table when `op` is given, else in
 * the class `cls` whose ops all share it (class_attr_op). `attr_op` is the
 * table the slot indexes. */
static bool attr_slot(sema *s, const op_def *op, const dsl_pattern *cls, const char *key, dsl_loc loc,
                      const op_def **attr_op, int *index)
{
    if (!op)
        return class_attr_op(s, cls->classes, cls->name, key, loc, attr_op, index);
    *index = op_attr_index(op, key);
    if (*index < 0) {
        char hint[512];
        FAIL(s, loc, "unknown attribute '%s' for op '%s'%s", key, op->name,
             attr_suggestion(op, key, hint, sizeof hint));
    }
    *attr_op = op;
    return true;
}

static bool check_pattern(sema *s, dsl_pattern *p, bool is_root)
{
    if (p->kind == PAT_CAPTURE || p->kind == PAT_WILDCARD) {
        if (is_root)
            FAIL(s, p->loc, "a rule's pattern must start with an op or an op class, not the capture '%s'",
                 p->name);
        if (p->commutative)
            FAIL(s, p->loc, "':c' needs an op with two operands");
        if (p->kind == PAT_CAPTURE && p->bind) {
            /* `f = fused`: a bare name is a capture, even an op's name. */
            if (strcmp(p->name, "fused") == 0)
                FAIL(s, p->loc,
                     "'fused' without operands is a capture named 'fused', not a region, and "
                     "'%s = fused' binds nothing to '%s': write '%s = <fused>' for any region, or "
                     "'%s = fused(x, ...)' with its operands",
                     p->bind, p->bind, p->bind, p->bind);
            if (op_find(p->name))
                FAIL(s, p->loc,
                     "'%s' without operands is a capture named '%s', not the op: write "
                     "'%s = %s(x, ...)' with its operands",
                     p->name, p->name, p->bind, p->name);
            if (dsl_class_bits(p->name))
                FAIL(s, p->loc,
                     "'%s' is a capture here, not the op class: write '%s = <%s>' for any op of "
                     "the class",
                     p->name, p->bind, p->name);
            FAIL(s, p->loc, "'%s = %s' gives one operand two names: write '%s' alone", p->bind,
                 p->name, p->name);
        }
        if (p->kind == PAT_CAPTURE)
            return add_capture(s, p->name, SYM_INS, p->loc, p, NULL, NULL);
        if (p->bind)
            return add_capture(s, p->bind, SYM_INS, p->bind_loc, p, NULL, NULL);
        return true;
    }
    if (p->kind == PAT_CLASS) {
        p->classes = dsl_class_bits(p->name);
        if (!p->classes)
            FAIL(s, p->loc,
                 "unknown op class '<%s>' (known: pointwise, unary, binary, reduce, view, compute, "
                 "move, shape)",
                 p->name);
        if (p->attrs && p->negated)
            FAIL(s, p->loc, "a negated pattern takes no attributes or operands");
        if (p->has_args && (p->classes == OPC_UNARY || p->classes == OPC_BINARY) && !p->rest) {
            int want = p->classes == OPC_UNARY ? 1 : 2;
            if (p->nargs != want)
                FAIL(s, p->loc, "wrong arity: class '<%s>' takes %d operand%s, the pattern gives %d",
                     p->name, want, want == 1 ? "" : "s", p->nargs);
        }
        if (p->commutative)
            FAIL(s, p->loc, "':c' needs a named commutative op, not the class '<%s>'", p->name);
    } else {
        p->op = op_find(p->name);
        if (!p->op) {
            char hint[128];
            FAIL(s, p->loc, "unknown op '%s'%s", p->name, op_suggestion(p->name, hint, sizeof hint));
        }
        if (p->has_args && !check_arity(s, p->op, p->nargs, p->rest != NULL, p->loc, "pattern"))
            return false;
        if (p->commutative && !p->op->commutative)
            FAIL(s, p->loc, "':c' on '%s', which is not commutative", p->name);
        if (p->commutative && p->nargs != 2)
            FAIL(s, p->loc, "':c' needs exactly two operands");
    }
    if (p->kind == PAT_OP)
        p->attr_op = p->op;
    for (dsl_attr_pat *a = p->attrs; a; a = a->next) {
        for (dsl_attr_pat *b = p->attrs; b != a; b = b->next)
            if (strcmp(a->key, b->key) == 0)
                FAIL(s, a->loc, "attribute '%s' given twice", a->key);
        if (!attr_slot(s, p->kind == PAT_OP ? p->op : NULL, p, a->key, a->loc, &p->attr_op, &a->index))
            return false;
        const op_def *aop = p->attr_op;
        a->kind = aop->attrs[a->index].kind;
        if (a->bind && names_a_value(&aop->attrs[a->index], a->bind)) {
            /* mode=constant, target_type=float_type, value=inf: a value
             * of the attribute, not a capture. */
            a->value.kind = DV_IDENT;
            a->value.ident = a->bind;
            a->bind = NULL;
        }
        if (a->bind) {
            if (!add_capture(s, a->bind, SYM_ATTR, a->value_loc, NULL, a, p))
                return false;
        } else if (!convert_literal(s, aop, a)) {
            return false;
        }
    }
    if (p->negated) {
        if (is_root)
            FAIL(s, p->loc, "a rule's pattern cannot start with a negated op");
        if (p->attrs || p->has_args)
            FAIL(s, p->loc, "a negated pattern takes no attributes or operands");
    }
    if (is_root && p->op && (p->op->classes & OPC_BUILTIN) && strcmp(p->op->name, "@literal") != 0)
        FAIL(s, p->loc, "a rule cannot match at '%s'", p->op->name);
    if (p->bind && !add_capture(s, p->bind, SYM_INS, p->bind_loc, p, NULL, NULL))
        return false;
    for (int i = 0; i < p->nargs; i++)
        if (!check_pattern(s, p->args[i], false))
            return false;
    if (p->rest && !add_capture(s, p->rest, SYM_REST, p->rest_loc, NULL, NULL, p))
        return false;
    return true;
}

/* ---- expressions ---- */

static bool is_number(dsl_type t) { return t == TY_INT || t == TY_FLOAT; }

static int find_let(const sema *s, const char *name)
{
    for (int i = s->nlets - 1; i >= 0; i--)
        if (strcmp(s->let_names[i], name) == 0)
            return i;
    return -1;
}

static const char *binop_text(int op)
{
    static const char *const text[] = {"?", "||", "&&", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/"};
    return op >= 1 && op <= DSL_OP_DIV ? text[op] : "?";
}

/* Whether a value of type `have` is accepted where `want` is expected. */
static bool assignable(dsl_type want, dsl_type have)
{
    return want == have || (want == TY_FLOAT && have == TY_INT) || (want == TY_FLOATS && have == TY_INTS);
}

static bool check_expr(sema *s, dsl_expr *e);

static bool check_field(sema *s, dsl_expr *e)
{
    static const struct {
        const char *name;
        int field;
        dsl_type type;
    } fields[] = {
        {"shape", FIELD_SHAPE, TY_SHAPE}, {"lens", FIELD_LENS, TY_INTS},
        {"strides", FIELD_STRIDES, TY_INTS}, {"type", FIELD_TYPE, TY_TYPE},
        {"rank", FIELD_RANK, TY_INT},     {"elements", FIELD_ELEMENTS, TY_INT},
    };
    if (!check_expr(s, e->a))
        return false;
    if (e->a->type != TY_INS)
        FAIL(s, e->loc, "'.%s' needs an instruction, got %s", e->name, dsl_type_name(e->a->type));
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (strcmp(fields[i].name, e->name) == 0) {
            e->field = fields[i].field;
            e->type = fields[i].type;
            return true;
        }
    /* An attribute of a capture bound to a named op, or to a class whose
     * ops all have it in the same slot. */
    const dsl_capture *c = e->a->kind == EX_NAME && e->a->sym == SYM_INS
                               ? &s->rule->captures[e->a->sym_index]
                               : NULL;
    const dsl_pattern *p = c && !c->pat->negated ? c->pat : NULL;
    bool named = p && p->kind == PAT_OP && p->op, of_class = p && p->kind == PAT_CLASS && p->classes;
    if (!named && !of_class)
        FAIL(s, e->loc, "'.%s' is not a field (shape, lens, strides, type, rank, elements) and '%s' "
             "is not bound to a named op or an op class, so it has no attributes",
             e->name, c ? c->name : "the expression");
    if (!attr_slot(s, named ? p->op : NULL, p, e->name, e->loc, &e->attr_op, &e->attr_index))
        return false;
    e->field = FIELD_ATTR;
    e->type = dsl_type_of_attr_kind(e->attr_op->attrs[e->attr_index].kind);
    return true;
}

/* A call of predicate p becomes, in place, p's body with the call's
 * arguments for its parameters (predicate.c), checked here as if the rule
 * had spelled it out. An error inside the body points at the body and says
 * which call brought it there (each call, for a predicate in a predicate). */
static bool check_predicate_call(sema *s, dsl_expr *e, const dsl_predicate *p)
{
    if (e->nargs != p->nparams)
        FAIL(s, e->loc, "predicate '%s' takes %d argument%s, got %d", p->name, p->nparams,
             p->nparams == 1 ? "" : "s", e->nargs);
    dsl_loc call = e->loc;
    *e = *dsl_expand_predicate(s->f, p, e);
    if (!check_expr(s, e)) {
        size_t n = strlen(s->err->message);
        snprintf(s->err->message + n, sizeof s->err->message - n, " (in predicate '%s', called at %d:%d)",
                 p->name, call.line, call.col);
        return false;
    }
    if (e->type != TY_BOOL)
        FAIL(s, call, "predicate '%s' must be bool, its body gives %s", p->name, dsl_type_name(e->type));
    return true;
}

static bool check_expr(sema *s, dsl_expr *e)
{
    switch (e->kind) {
    case EX_INT: e->type = TY_INT; return true;
    case EX_FLOAT: e->type = TY_FLOAT; return true;
    case EX_BOOL: e->type = TY_BOOL; return true;
    case EX_LIST: {
        bool any_float = false;
        for (int i = 0; i < e->nargs; i++) {
            if (!check_expr(s, e->args[i]))
                return false;
            if (!is_number(e->args[i]->type))
                FAIL(s, e->args[i]->loc, "a list holds numbers, got %s", dsl_type_name(e->args[i]->type));
            any_float |= e->args[i]->type == TY_FLOAT;
        }
        e->type = any_float ? TY_FLOATS : TY_INTS;
        return true;
    }
    case EX_NAME: {
        int k = find_capture(s->rule, e->name);
        if (k >= 0) {
            const dsl_capture *c = &s->rule->captures[k];
            if (c->kind == SYM_REST)
                FAIL(s, e->loc, "'%s' is a rest of operands; it can only be spliced into operands as '%s...'",
                     e->name, e->name);
            e->sym = c->kind;
            e->sym_index = k;
            e->type = c->kind == SYM_INS ? TY_INS : dsl_type_of_attr_kind(c->attr->kind);
            return true;
        }
        k = find_let(s, e->name);
        if (k >= 0) {
            e->sym = SYM_LET;
            e->sym_index = k;
            e->type = s->let_types[k];
            return true;
        }
        graft_type t;
        if (type_from_name(e->name, strlen(e->name), &t)) {
            e->sym = SYM_TYPE;
            e->sym_index = (int)t;
            e->type = TY_TYPE;
            return true;
        }
        if (strcmp(e->name, "inf") == 0) {
            e->kind = EX_FLOAT;
            e->f = INFINITY;
            e->type = TY_FLOAT;
            return true;
        }
        FAIL(s, e->loc, "unknown name '%s' (not a capture, a let or an element type)", e->name);
    }
    case EX_CALL: {
        const dsl_predicate *p = dsl_find_predicate(s->f, e->name);
        if (p)
            return check_predicate_call(s, e, p);
        const rule_helper *h = rule_helper_find(e->name);
        if (!h) {
            char hint[128];
            FAIL(s, e->loc, "unknown helper '%s'%s", e->name, helper_suggestion(s->f, e->name, hint, sizeof hint));
        }
        {
            int n;
            const rule_helper *all = rule_helpers(&n);
            e->helper = (int)(h - all);
        }
        if (e->nargs != h->nparams)
            FAIL(s, e->loc, "helper '%s' takes %d argument%s, got %d", e->name, h->nparams,
                 h->nparams == 1 ? "" : "s", e->nargs);
        for (int i = 0; i < e->nargs; i++) {
            if (!check_expr(s, e->args[i]))
                return false;
            if (!assignable((dsl_type)h->params[i], e->args[i]->type))
                FAIL(s, e->args[i]->loc, "helper '%s' expects %s as argument %d, got %s", e->name,
                     dsl_type_name((dsl_type)h->params[i]), i + 1, dsl_type_name(e->args[i]->type));
        }
        e->type = (dsl_type)h->result;
        return true;
    }
    case EX_FIELD:
        return check_field(s, e);
    case EX_NOT:
        if (!check_expr(s, e->a))
            return false;
        if (e->a->type != TY_BOOL)
            FAIL(s, e->loc, "'!' needs a bool, got %s", dsl_type_name(e->a->type));
        e->type = TY_BOOL;
        return true;
    case EX_NEG:
        if (!check_expr(s, e->a))
            return false;
        if (!is_number(e->a->type))
            FAIL(s, e->loc, "'-' needs a number, got %s", dsl_type_name(e->a->type));
        e->type = e->a->type;
        return true;
    case EX_BINARY: {
        if (!check_expr(s, e->a) || !check_expr(s, e->b))
            return false;
        dsl_type a = e->a->type, b = e->b->type;
        const char *op = binop_text(e->op);
        if (e->op == DSL_OP_OR || e->op == DSL_OP_AND) {
            if (a != TY_BOOL || b != TY_BOOL)
                FAIL(s, e->loc, "'%s' needs bool operands, got %s and %s", op, dsl_type_name(a),
                     dsl_type_name(b));
            e->type = TY_BOOL;
            return true;
        }
        if (e->op == DSL_OP_EQ || e->op == DSL_OP_NE) {
            if (!(a == b || (is_number(a) && is_number(b))))
                FAIL(s, e->loc, "cannot compare %s with %s", dsl_type_name(a), dsl_type_name(b));
            e->type = TY_BOOL;
            return true;
        }
        if (e->op >= DSL_OP_LT && e->op <= DSL_OP_GE) {
            if (!is_number(a) || !is_number(b))
                FAIL(s, e->loc, "cannot compare %s with %s using '%s'", dsl_type_name(a),
                     dsl_type_name(b), op);
            e->type = TY_BOOL;
            return true;
        }
        if (!is_number(a) || !is_number(b))
            FAIL(s, e->loc, "'%s' needs numbers, got %s and %s", op, dsl_type_name(a), dsl_type_name(b));
        e->type = a == TY_FLOAT || b == TY_FLOAT ? TY_FLOAT : TY_INT;
        return true;
    }
    }
    return false;
}

static bool expr_is_fallible(const dsl_expr *e)
{
    if (!e)
        return false;
    if (e->kind == EX_CALL) {
        int n;
        if (rule_helpers(&n)[e->helper].fallible)
            return true;
    }
    if (e->kind == EX_BINARY && e->op == DSL_OP_DIV)
        return true;
    if (expr_is_fallible(e->a) || expr_is_fallible(e->b))
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (expr_is_fallible(e->args[i]))
            return true;
    return false;
}

/* ---- replacements ---- */

static bool check_attr_sets(sema *s, dsl_repl *r, const op_def *op, const dsl_pattern *cls,
                            const char *via)
{
    for (dsl_attr_set *a = r->sets; a; a = a->next) {
        /* d[axes = b](x) with d bound to a class: every op of the class
         * has the attribute in one slot (attr_slot) */
        if (!op && !cls)
            FAIL(s, a->loc, "cannot set attribute '%s': %s", a->key, via);
        if (!attr_slot(s, op, cls, a->key, a->loc, &r->attr_op, &a->index))
            return false;
        for (dsl_attr_set *b = r->sets; b != a; b = b->next)
            if (strcmp(a->key, b->key) == 0)
                FAIL(s, a->loc, "attribute '%s' given twice", a->key);
        a->kind = r->attr_op->attrs[a->index].kind;
        if (!check_expr(s, a->expr))
            return false;
        dsl_type want = dsl_type_of_attr_kind(a->kind);
        if (!assignable(want, a->expr->type))
            FAIL(s, a->expr->loc, "attribute '%s' of '%s' is %s, the expression gives %s", a->key,
                 op ? op->name : cls->name, dsl_type_name(want), dsl_type_name(a->expr->type));
        if (expr_is_fallible(a->expr))
            s->rule->fallible = true;
    }
    return true;
}

static bool check_repl(sema *s, dsl_repl *r);

/* fold(c): the builtin constant-folding replacement. `fold` is reserved in
 * replacements: it takes exactly one instruction capture and no attributes.
 * It may refuse at run time (an operand that is not a literal, an op without
 * a reference kernel), so the rule counts as fallible. */
static bool check_fold(sema *s, dsl_repl *r)
{
    if (find_capture(s->rule, "fold") >= 0)
        FAIL(s, r->loc, "'fold(...)' is the constant-folding replacement; rename the capture 'fold'");
    if (r->sets)
        FAIL(s, r->sets->loc, "fold takes no attributes: write fold(c)");
    if (!r->has_args || r->nargs != 1 || r->args[0]->kind == RP_REST)
        FAIL(s, r->loc, "wrong arity: fold takes 1 operand (an instruction capture), the replacement "
             "gives %d%s", r->has_args ? r->nargs : 0,
             r->nargs == 1 && r->args[0]->kind == RP_REST ? " rest of operands" : "");
    dsl_repl *a = r->args[0];
    if (a->kind != RP_CAPTURE)
        FAIL(s, a->loc, "fold needs an instruction capture of the pattern, not a new instruction "
             "'%s'", a->name);
    if (!check_repl(s, a))
        return false;
    r->kind = RP_FOLD;
    r->capture = a->capture;
    s->rule->fallible = true;
    return true;
}

/* ---- the region-growing replacements ---- */

static const char *const grow_names[] = {NULL, "absorb_producer", "absorb_consumer", "merge_siblings",
                                         "split_tail_into"};

static int grow_kind(const char *name)
{
    for (int k = GROW_PRODUCER; k <= GROW_SPLIT; k++)
        if (strcmp(name, grow_names[k]) == 0)
            return k;
    return 0;
}

/* Whether a is a one-operand view or reshape pattern (an op of class view
 * or shape, or the class itself), which the engine takes into the region
 * when it lies between two parts (engine/region_merge.c). */
static bool is_view_pattern(const dsl_pattern *a)
{
    unsigned views = OPC_VIEW | OPC_SHAPE;
    if (a->negated || a->nargs != 1)
        return false;
    if (a->kind == PAT_OP && a->op)
        return (a->op->classes & views) && strcmp(a->op->name, "get_tuple_elem") != 0;
    return a->kind == PAT_CLASS && a->classes && !(a->classes & ~views);
}

/* Whether operand pattern a is the instruction named `name`: bound to it,
 * a repeated use of it, a get_tuple_elem of it (one output of a region), or
 * either of those seen through a chain of views and reshapes. */
static bool reads_capture(const dsl_pattern *a, const char *name, bool through_tuple)
{
    if ((a->bind && strcmp(a->bind, name) == 0) || (a->kind == PAT_CAPTURE && strcmp(a->name, name) == 0))
        return true;
    if (through_tuple && is_view_pattern(a))
        return reads_capture(a->args[0], name, true);
    return through_tuple && a->kind == PAT_OP && !a->negated && a->op &&
           strcmp(a->op->name, "get_tuple_elem") == 0 && a->nargs == 1 &&
           reads_capture(a->args[0], name, false);
}

static bool pattern_reads(const dsl_pattern *p, const char *name)
{
    for (int i = 0; p && i < p->nargs; i++)
        if (reads_capture(p->args[i], name, true))
            return true;
    return false;
}

/* The name an operand pattern stands for: its binding or capture, else NULL. */
static const char *operand_name(const dsl_pattern *a)
{
    if (a->bind)
        return a->bind;
    return a->kind == PAT_CAPTURE ? a->name : NULL;
}

static bool share_input(const dsl_pattern *a, const dsl_pattern *b)
{
    for (int i = 0; a && i < a->nargs; i++) {
        const char *n = operand_name(a->args[i]);
        if (n && pattern_reads(b, n))
            return true;
    }
    return false;
}

/* absorb_producer(r, p), absorb_consumer(r, c), merge_siblings(a, b): the
 * whole replacement, two distinct instruction captures bound to op
 * patterns, related in the pattern as the form says. The engine may refuse
 * (a cycle, no position), so the rule counts as fallible. */
static bool check_grow(sema *s, dsl_repl *r, int kind)
{
    const char *form = grow_names[kind];
    dsl_rule *rule = s->rule;
    if (find_capture(rule, form) >= 0)
        FAIL(s, r->loc, "'%s(...)' is a region-growing replacement; rename the capture '%s'", form, form);
    if (r != rule->repl)
        FAIL(s, r->loc, "'%s(...)' must be the whole replacement", form);
    if (r->sets)
        FAIL(s, r->sets->loc, "%s takes no attributes", form);
    if (!r->has_args || r->nargs != 2)
        FAIL(s, r->loc, "wrong arity: %s takes 2 operands (instruction captures), the replacement "
             "gives %d", form, r->has_args ? r->nargs : 0);
    const dsl_pattern *pat[2];
    for (int i = 0; i < 2; i++) {
        dsl_repl *a = r->args[i];
        if (a->kind != RP_CAPTURE)
            FAIL(s, a->loc, "%s needs instruction captures of the pattern, not %s '%s'", form,
                 a->kind == RP_REST ? "a rest of operands" : "a new instruction", a->name);
        if (!check_repl(s, a))
            return false;
        pat[i] = rule->captures[a->capture].pat;
        if (!pat[i] || (pat[i]->kind != PAT_OP && pat[i]->kind != PAT_CLASS) || pat[i]->negated ||
            (pat[i]->op && (pat[i]->op->classes & OPC_BUILTIN)))
            FAIL(s, a->loc, "'%s' must be bound to an op pattern (an instruction the rule matched), "
                 "not to any operand", a->name);
    }
    const char *n0 = r->args[0]->name, *n1 = r->args[1]->name;
    if (r->args[0]->capture == r->args[1]->capture)
        FAIL(s, r->args[1]->loc, "%s: '%s' given twice", form, n1);
    if (kind == GROW_PRODUCER && !pattern_reads(pat[0], n1))
        FAIL(s, r->args[1]->loc, "absorb_producer: '%s' is not an operand of '%s' in the pattern", n1, n0);
    if (kind == GROW_CONSUMER && !pattern_reads(pat[1], n0))
        FAIL(s, r->args[1]->loc, "absorb_consumer: '%s' does not read '%s' in the pattern", n1, n0);
    if (kind == GROW_SPLIT && !pattern_reads(pat[1], n0))
        FAIL(s, r->args[1]->loc, "split_tail_into: '%s' does not read '%s' in the pattern", n1, n0);
    if (kind == GROW_SIBLINGS && !share_input(pat[0], pat[1]))
        FAIL(s, r->args[1]->loc, "merge_siblings: '%s' and '%s' read no common input in the pattern",
             n0, n1);
    r->kind = RP_GROW;
    r->grow = kind;
    rule->fallible = true;
    return true;
}

/* ---- region members: everything the pattern matched between them ---- */

/* The binding pattern a capture reference stands for (itself otherwise). */
static dsl_pattern *resolve_ref(const dsl_rule *rule, dsl_pattern *a)
{
    if (a->kind == PAT_CAPTURE && !a->bind) {
        int k = find_capture(rule, a->name);
        if (k >= 0 && rule->captures[k].kind == SYM_INS && rule->captures[k].pat)
            return rule->captures[k].pat;
    }
    return a;
}

static int node_capture(const dsl_rule *rule, const dsl_pattern *n)
{
    if (n->bind)
        return find_capture(rule, n->bind);
    return n->kind == PAT_CAPTURE ? find_capture(rule, n->name) : -1;
}

static bool is_member(const dsl_repl *reg, int k)
{
    for (int i = 0; k >= 0 && i < reg->nargs; i++)
        if (reg->args[i]->capture == k)
            return true;
    return false;
}

static bool is_output(const dsl_repl *reg, int k)
{
    for (int i = 0; k >= 0 && i < reg->noutputs; i++)
        if (reg->outputs[i]->capture == k)
            return true;
    return false;
}

static bool has_member_below(const dsl_rule *rule, const dsl_repl *reg, dsl_pattern *n, int depth)
{
    n = resolve_ref(rule, n);
    if (depth > 64)
        return false;
    if (is_member(reg, node_capture(rule, n)))
        return true;
    for (int i = 0; i < n->nargs; i++)
        if (has_member_below(rule, reg, n->args[i], depth + 1))
            return true;
    return false;
}

typedef struct member_walk {
    dsl_pattern *found[64];
    int n;
} member_walk;

/* Walks down from a member's operand: matched instructions become members
 * by default; inputs (operands, parameters, literals and views of inputs)
 * stop the walk; a named instruction between two members that the region
 * does not list is an error. */
static bool collect_members(sema *s, const dsl_repl *reg, dsl_pattern *n, member_walk *w, int depth)
{
    const dsl_rule *rule = s->rule;
    n = resolve_ref(rule, n);
    if (depth > 64 || is_member(reg, node_capture(rule, n)))
        return true;
    if (n->kind == PAT_CAPTURE || n->kind == PAT_WILDCARD || n->negated ||
        (n->op && (n->op->classes & OPC_BUILTIN)))
        return true;
    unsigned classes = n->op ? n->op->classes : n->classes;
    bool below = has_member_below(rule, reg, n, 0);
    if (!below && (classes & (OPC_VIEW | OPC_SHAPE)))
        return true; /* a view of an input stays outside as an input */
    if (n->bind && below)
        FAIL(s, n->bind_loc, "'%s' lies between two members of the region but is not one of them: "
             "list it among the members", n->bind);
    for (int i = 0; i < w->n; i++)
        if (w->found[i] == n)
            return true;
    if (w->n == 64)
        FAIL(s, n->loc, "too many region members (at most 64)");
    w->found[w->n++] = n;
    for (int i = 0; i < n->nargs; i++)
        if (!collect_members(s, reg, n->args[i], w, depth + 1))
            return false;
    return true;
}

/* A member that a matched instruction outside the region reads must be an
 * output, or it is computed twice (inside, and outside for that reader). */
static bool check_outside_readers(sema *s, const dsl_repl *reg, const dsl_pattern *n)
{
    const dsl_rule *rule = s->rule;
    if (n->kind != PAT_OP && n->kind != PAT_CLASS)
        return true;
    bool inside = is_member(reg, node_capture(rule, n));
    for (int i = 0; i < n->nargs; i++) {
        const dsl_pattern *a = n->args[i];
        int k = node_capture(rule, a);
        if (!inside && is_member(reg, k) && !is_output(reg, k))
            FAIL(s, a->bind ? a->bind_loc : a->loc, "region member '%s' is read outside the region "
                 "(by the '%s' at %d:%d) but is not an output: it would be computed twice",
                 rule->captures[k].name, n->name, n->loc.line, n->loc.col);
        if (!check_outside_readers(s, reg, a))
            return false;
    }
    return true;
}

/* Adds the default members of a region replacement as hidden captures
 * ("exp@3:22"), appended to its member list, then checks readers outside. */
static bool complete_region(sema *s, dsl_repl *reg)
{
    dsl_rule *rule = s->rule;
    member_walk w = {.n = 0};
    for (int i = 0; i < reg->nargs; i++) {
        dsl_pattern *m = rule->captures[reg->args[i]->capture].pat;
        for (int a = 0; m && a < m->nargs; a++)
            if (!collect_members(s, reg, m->args[a], &w, 0))
                return false;
    }
    if (w.n) {
        dsl_repl **args = dsl_alloc(s->f, sizeof *args * (size_t)(reg->nargs + w.n));
        memcpy(args, reg->args, sizeof *args * (size_t)reg->nargs);
        for (int i = 0; i < w.n; i++) {
            dsl_pattern *n = w.found[i];
            char buf[160];
            snprintf(buf, sizeof buf, "%s@%d:%d", n->name, n->loc.line, n->loc.col);
            char *name = dsl_alloc(s->f, strlen(buf) + 1);
            memcpy(name, buf, strlen(buf) + 1);
            n->bind = name;
            n->bind_loc = n->loc;
            if (!add_capture(s, name, SYM_INS, n->loc, n, NULL, NULL))
                return false;
            dsl_repl *c = dsl_alloc(s->f, sizeof *c);
            memset(c, 0, sizeof *c);
            c->kind = RP_CAPTURE;
            c->name = name;
            c->loc = n->loc;
            c->capture = find_capture(rule, name);
            args[reg->nargs + i] = c;
        }
        reg->args = args;
        reg->nargs += w.n;
    }
    return check_outside_readers(s, reg, rule->pattern);
}

static bool check_repl(sema *s, dsl_repl *r)
{
    dsl_rule *rule = s->rule;
    switch (r->kind) {
    case RP_CAPTURE: {
        int k = find_capture(rule, r->name);
        if (k < 0)
            FAIL(s, r->loc, "replacement uses unbound capture '%s'", r->name);
        if (rule->captures[k].kind != SYM_INS)
            FAIL(s, r->loc, "'%s' is %s, not an instruction", r->name,
                 sym_kind_name(rule->captures[k].kind));
        r->capture = k;
        return true;
    }
    case RP_REST: {
        int k = find_capture(rule, r->name);
        if (k < 0)
            FAIL(s, r->loc, "replacement uses unbound capture '%s'", r->name);
        if (rule->captures[k].kind != SYM_REST)
            FAIL(s, r->loc, "'%s...' needs a rest capture, but '%s' is %s", r->name, r->name,
                 sym_kind_name(rule->captures[k].kind));
        r->capture = k;
        return true;
    }
    case RP_FOLD:
    case RP_GROW:
        return true; /* already checked (check_fold, check_grow) */
    case RP_BUILD:
    case RP_REUSE: {
        if (strcmp(r->name, "fold") == 0)
            return check_fold(s, r);
        if (grow_kind(r->name))
            return check_grow(s, r, grow_kind(r->name));
        int k = find_capture(rule, r->name);
        bool has_rest = false;
        int nfixed = 0;
        for (int i = 0; i < r->nargs; i++) {
            if (!check_repl(s, r->args[i]))
                return false;
            if (r->args[i]->kind == RP_REST)
                has_rest = true;
            else
                nfixed++;
        }
        if (k >= 0) {
            const dsl_capture *c = &rule->captures[k];
            if (c->kind != SYM_INS)
                FAIL(s, r->loc, "'%s' is %s, not an instruction to rebuild", r->name, sym_kind_name(c->kind));
            r->kind = RP_REUSE;
            r->capture = k;
            const dsl_pattern *p = c->pat;
            if (p->kind == PAT_OP && !p->negated)
                r->op = p->op;
            else if (p->kind == PAT_CLASS && !p->negated)
                r->classes = p->classes;
            if (r->op && r->has_args && !check_arity(s, r->op, nfixed, has_rest, r->loc, "replacement"))
                return false;
            char via[160];
            snprintf(via, sizeof via, "'%s' is not bound to a named op or an op class", r->name);
            return check_attr_sets(s, r, r->op, p->kind == PAT_CLASS && !p->negated ? p : NULL, via);
        }
        r->op = op_find(r->name);
        if (!r->op) {
            suggestion g = {r->name, NULL, 0};
            int n;
            const op_def *const *all = op_all(&n);
            for (int k = 0; k < n; k++)
                suggest_consider(&g, all[k]->name);
            if (g.best)
                FAIL(s, r->loc, "unknown op '%s' (and no capture has that name; did you mean '%s'?)",
                     r->name, g.best);
            FAIL(s, r->loc, "unknown op '%s' (and no capture has that name)", r->name);
        }
        if (r->op->classes & OPC_BUILTIN)
            FAIL(s, r->loc, "a replacement cannot build '%s'", r->name);
        if (r->op->classes & OPC_REGION)
            FAIL(s, r->loc, "a replacement cannot build '%s' directly: write region(members) -> "
                            "(outputs)", r->name);
        if (!r->has_args)
            FAIL(s, r->loc, "op '%s' needs operands: write %s[...](...)", r->name, r->name);
        if (!check_arity(s, r->op, nfixed, has_rest, r->loc, "replacement"))
            return false;
        return check_attr_sets(s, r, r->op, NULL, "");
    }
    case RP_REGION:
        for (int i = 0; i < r->nargs; i++) {
            if (!check_repl(s, r->args[i]))
                return false;
            /* A member is an instruction the pattern matched by its op: a
             * bare operand could be a parameter, which no region can hold. */
            const dsl_pattern *p = rule->captures[r->args[i]->capture].pat;
            if (!p || (p->kind != PAT_OP && p->kind != PAT_CLASS) || p->negated ||
                (p->op && strcmp(p->op->name, "@param") == 0))
                FAIL(s, r->args[i]->loc, "region member '%s' must be bound to an op pattern "
                                         "(an instruction the rule matched), not to any operand",
                     r->args[i]->name);
        }
        for (int i = 0; i < r->noutputs; i++) {
            if (!check_repl(s, r->outputs[i]))
                return false;
            bool member = false;
            for (int j = 0; j < r->nargs; j++)
                member = member || r->args[j]->capture == r->outputs[i]->capture;
            if (!member)
                FAIL(s, r->outputs[i]->loc, "region output '%s' is not one of the region's instructions",
                     r->outputs[i]->name);
        }
        return complete_region(s, r);
    }
    return false;
}

/* ---- rules ---- */

static bool check_rule(sema *s, dsl_rule *r)
{
    s->rule = r;
    s->nlets = 0;
    if (!check_pattern(s, r->pattern, true))
        return false;
    for (dsl_clause *c = r->clauses; c; c = c->next) {
        if (!check_expr(s, c->expr))
            return false;
        if (!c->is_let) {
            if (c->expr->type != TY_BOOL)
                FAIL(s, c->expr->loc, "a guard must be bool, got %s", dsl_type_name(c->expr->type));
            r->fallible = true;
            continue;
        }
        if (find_capture(r, c->name) >= 0 || find_let(s, c->name) >= 0)
            FAIL(s, c->loc, "'%s' is already bound", c->name);
        if (s->nlets == 64)
            FAIL(s, c->loc, "too many lets in one rule (at most 64)");
        if (expr_is_fallible(c->expr))
            r->fallible = true;
        s->let_names[s->nlets] = c->name;
        s->let_types[s->nlets] = c->expr->type;
        s->let_locs[s->nlets] = c->loc;
        s->nlets++;
    }
    r->nlets = s->nlets;
    return check_repl(s, r->repl);
}

bool dsl_sema(dsl_file *f, graft_error *err)
{
    return dsl_sema_all(f, NULL, err);
}

/* A rule's error leaves only that rule half annotated; the rules after it
 * are checked on their own, so the checks go on with the next rule, up to
 * DSL_MAX_ERRORS errors (without diags, the first error ends the check). */
bool dsl_sema_all(dsl_file *f, dsl_diags *diags, graft_error *err)
{
    sema s;
    int nerrors = 0;
    /* Predicates first: a rule that calls a broken one would only repeat
     * its error, so the rules wait until the predicates are sound. */
    for (int i = 0; i < f->npredicates; i++) {
        graft_error e = {0};
        if (!dsl_check_predicate(f, f->predicates[i], &e) && !dsl_diags_note(diags, &e, err, &nerrors))
            return false;
    }
    if (nerrors)
        return false;
    for (int i = 0; i < f->nrules; i++) {
        dsl_rule *r = f->rules[i];
        graft_error e = {0};
        memset(&s, 0, sizeof s);
        s.f = f;
        s.err = &e;
        bool ok = true;
        for (int j = 0; j < i && ok; j++)
            if (strcmp(f->rules[j]->name, r->name) == 0) {
                dsl_error(&e, f, r->loc, "duplicate rule name '%s' (first defined at %s:%d:%d)",
                          r->name, f->path, f->rules[j]->loc.line, f->rules[j]->loc.col);
                ok = false;
            }
        if (ok)
            ok = check_rule(&s, r);
        if (!ok) {
            if (!dsl_diags_note(diags, &e, err, &nerrors))
                return false;
        }
    }
    return nerrors == 0;
}
