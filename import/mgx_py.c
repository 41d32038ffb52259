/* mgx_py.c: MIGraphX Python scripts in, by evaluating them symbolically.
 *
 * The parser (mgx_py_lex.re, mgx_py_parse.y) gives a list of statements.
 * This file walks them once, in order, keeping a table of variables, and
 * knows what the calls of MIGraphX's Python API mean:
 *
 *   migraphx.program()                       the program (one per script)
 *   p.get_main_module() / p.create_module(N) / p.get_module(N)
 *   migraphx.shape(type=T, lens=[...], strides=[...], scalar=True)
 *   migraphx.create_argument(shape, [values])
 *   migraphx.generate_argument(shape, seed)  data from graft's generator
 *   migraphx.op(NAME, attr=value, ...)
 *   m.add_parameter(NAME, shape), m.add_literal(argument),
 *   m.add_instruction(op, [args], [modules]), m.add_return([args])
 *
 * p.compile(...), p.print(), m.print(), print(...) and migraphx.get_target(...)
 * are accepted and do nothing (they do not change the graph). Anything else
 * is an error naming the call. A module whose script never calls add_return
 * returns its last instruction, as in MIGraphX (the unassigned final
 * add_instruction of a repro script); graft writes that @return out. Every
 * error names file:line:col; an unknown op and an undefined variable are
 * named. See docs/mgx-import.md.
 */
#include "mgx.h"
#include "mgx_private.h"
#include "mgx_py_syntax.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EVAL_DEPTH_MAX = 200, CALL_ARGS_MAX = 64 };

/* The first error of a parse wins. */
static bool py_error_atv(py_parse_state *st, py_span at, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static bool py_error_atv(py_parse_state *st, py_span at, const char *fmt, va_list ap)
{
    if (st->failed)
        return false;
    error_atv(st->err, st->filename, at.line, at.col, fmt, ap);
    st->failed = true;
    return false;
}

bool py_error_at(py_parse_state *st, py_span at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    py_error_atv(st, at, fmt, ap);
    va_end(ap);
    return false;
}

/* ---- the evaluator ---- */

typedef struct evaluator {
    py_parse_state *st;
    graph *g;
    mgx_table vars;
    mgx_budget budget;
    bool have_program;
    int depth;
} evaluator;

/* A call's arguments, evaluated. */
typedef struct call_args {
    const char *what;      /* "migraphx.shape", "add_instruction", ... for messages */
    py_span at;            /* the call */
    int npos;
    mgx_value *pos[CALL_ARGS_MAX];
    int nkw;
    py_span kw_at[CALL_ARGS_MAX];
    mgx_value *kw[CALL_ARGS_MAX];
} call_args;

static py_span value_span(const mgx_value *v, py_span fallback)
{
    if (v && v->line) {
        py_span s = {NULL, 0, v->line, v->col};
        return s;
    }
    return fallback;
}

static bool fail(evaluator *ev, py_span at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(evaluator *ev, py_span at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    py_error_atv(ev->st, at, fmt, ap);
    va_end(ap);
    return false;
}

static mgx_value *new_value(evaluator *ev, mgx_kind kind, py_span at)
{
    mgx_value *v = arena_alloc(&ev->st->scratch, sizeof *v);
    if (!v) {
        fail(ev, at, "out of memory");
        return NULL;
    }
    v->kind = kind;
    v->line = at.line;
    v->col = at.col;
    return v;
}

static bool span_is(py_span s, const char *word)
{
    return (size_t)s.len == strlen(word) && memcmp(s.p, word, (size_t)s.len) == 0;
}

static bool str_is(const char *s, const char *word) { return strcmp(s, word) == 0; }

static mgx_value *eval(evaluator *ev, const py_expr *e);

/* The keyword argument key, or NULL. Marks it used by clearing it. */
static mgx_value *take_kw(call_args *a, const char *key, py_span *at)
{
    for (int k = 0; k < a->nkw; k++) {
        if (a->kw[k] && span_is(a->kw_at[k], key)) {
            mgx_value *v = a->kw[k];
            if (at)
                *at = a->kw_at[k];
            a->kw[k] = NULL;
            return v;
        }
    }
    return NULL;
}

/* Argument `index` given by position or by keyword `key`; NULL if absent. */
static mgx_value *take_arg(evaluator *ev, call_args *a, int index, const char *key)
{
    mgx_value *byname = take_kw(a, key, NULL);
    if (index < a->npos) {
        if (byname) {
            fail(ev, a->at, "%s: argument '%s' given twice", a->what, key);
            return NULL;
        }
        mgx_value *v = a->pos[index];
        a->pos[index] = NULL;
        return v;
    }
    return byname;
}

/* After the arguments a function knows were taken: any left is an error. */
static bool no_args_left(evaluator *ev, call_args *a)
{
    for (int k = 0; k < a->npos; k++)
        if (a->pos[k])
            return fail(ev, value_span(a->pos[k], a->at), "%s takes at most %d positional "
                        "argument%s", a->what, k, k == 1 ? "" : "s");
    for (int k = 0; k < a->nkw; k++)
        if (a->kw[k])
            return fail(ev, a->kw_at[k], "%s has no argument '%.*s'", a->what, a->kw_at[k].len,
                        a->kw_at[k].p);
    return true;
}

static mgx_value *require(evaluator *ev, call_args *a, mgx_value *v, const char *key,
                          mgx_kind kind)
{
    if (ev->st->failed)
        return NULL;
    if (!v) {
        fail(ev, a->at, "%s: missing argument '%s'", a->what, key);
        return NULL;
    }
    if (v->kind != kind) {
        fail(ev, value_span(v, a->at), "%s: argument '%s' must be %s, found %s", a->what, key,
             mgx_kind_name(kind), mgx_kind_name(v->kind));
        return NULL;
    }
    return v;
}

/* ---- migraphx.* ---- */

static mgx_value *make_shape(evaluator *ev, call_args *a)
{
    mgx_value *type = take_arg(ev, a, 0, "type");
    mgx_value *lens = take_arg(ev, a, 1, "lens");
    mgx_value *strides = take_arg(ev, a, 2, "strides");
    mgx_value *scalar = take_arg(ev, a, 3, "scalar");
    if (ev->st->failed || !no_args_left(ev, a))
        return NULL;
    graft_type t = GRAFT_FLOAT;
    if (type && !mgx_type_from_value(type, &t)) {
        fail(ev, value_span(type, a->at), "migraphx.shape: unknown element type%s%.40s%s",
             type->kind == MGX_STRING ? " \"" : "", type->kind == MGX_STRING ? type->s : "",
             type->kind == MGX_STRING ? "\"" : "");
        return NULL;
    }
    mgx_value *v = new_value(ev, MGX_SHAPE, a->at);
    if (!v)
        return NULL;
    char why[200];
    if (scalar && scalar->kind == MGX_BOOL && scalar->i) {
        v->sh = shape_scalar(t);
        return v;
    }
    if (scalar && scalar->kind != MGX_BOOL) {
        fail(ev, value_span(scalar, a->at), "migraphx.shape: scalar must be True or False");
        return NULL;
    }
    int64_t l[SHAPE_MAX_RANK], s[SHAPE_MAX_RANK];
    int nl = 0, ns = 0;
    if (!lens) {
        fail(ev, a->at, "migraphx.shape: missing argument 'lens'");
        return NULL;
    }
    if (!mgx_int_list(lens, l, SHAPE_MAX_RANK, &nl, why, sizeof why)) {
        fail(ev, value_span(lens, a->at), "migraphx.shape: lens: %s", why);
        return NULL;
    }
    if (strides && !mgx_int_list(strides, s, SHAPE_MAX_RANK, &ns, why, sizeof why)) {
        fail(ev, value_span(strides, a->at), "migraphx.shape: strides: %s", why);
        return NULL;
    }
    if (strides && ns != nl) {
        fail(ev, value_span(strides, a->at), "migraphx.shape: %d strides for %d lens", ns, nl);
        return NULL;
    }
    if (!mgx_make_shape(t, nl, l, strides ? s : NULL, &v->sh, why, sizeof why)) {
        fail(ev, value_span(lens, a->at), "migraphx.shape: %s", why);
        return NULL;
    }
    return v;
}

static mgx_value *make_op(evaluator *ev, call_args *a)
{
    mgx_value *name = require(ev, a, take_arg(ev, a, 0, "name"), "name", MGX_STRING);
    if (!name)
        return NULL;
    if (a->npos > 1)
        return fail(ev, value_span(a->pos[1], a->at), "migraphx.op: attributes are given by "
                    "keyword (name=value)"), NULL;
    mgx_value *v = new_value(ev, MGX_OP, a->at);
    if (!v)
        return NULL;
    v->s = name->s;
    v->len = name->len;
    v->name_line = name->line;
    v->name_col = name->col;
    v->n = 0;
    v->keys = arena_alloc(&ev->st->scratch, (size_t)(a->nkw ? a->nkw : 1) * sizeof *v->keys);
    v->items = arena_alloc(&ev->st->scratch, (size_t)(a->nkw ? a->nkw : 1) * sizeof *v->items);
    if (!v->keys || !v->items)
        return fail(ev, a->at, "out of memory"), NULL;
    for (int k = 0; k < a->nkw; k++) {
        if (!a->kw[k])
            continue;
        char *key = arena_strndup(&ev->st->scratch, a->kw_at[k].p, (size_t)a->kw_at[k].len);
        if (!key)
            return fail(ev, a->at, "out of memory"), NULL;
        /* remember where the key was written for attribute errors */
        mgx_value *item = a->kw[k];
        if (!item->line) {
            item->line = a->kw_at[k].line;
            item->col = a->kw_at[k].col;
        }
        v->keys[v->n] = key;
        v->items[v->n++] = item;
    }
    return v;
}

static mgx_value *make_argument(evaluator *ev, call_args *a, bool generated)
{
    mgx_value *sh = require(ev, a, take_arg(ev, a, 0, "shape"), "shape", MGX_SHAPE);
    if (!sh)
        return NULL;
    mgx_value *data = take_arg(ev, a, 1, generated ? "seed" : "values");
    if (ev->st->failed || !no_args_left(ev, a))
        return NULL;
    mgx_value *v = new_value(ev, MGX_ARGUMENT, a->at);
    if (!v)
        return NULL;
    v->sh = sh->sh;
    v->generated = generated;
    if (generated) {
        if (data && data->kind != MGX_INT)
            return fail(ev, value_span(data, a->at), "migraphx.generate_argument: the seed "
                        "must be an integer, found %s", mgx_kind_name(data->kind)), NULL;
        v->i = data ? data->i : 0;
    } else {
        if (!require(ev, a, data, "values", MGX_LIST))
            return NULL;
        v->self = data;
    }
    return v;
}

static mgx_value *call_migraphx(evaluator *ev, const char *fn, call_args *a)
{
    if (str_is(fn, "program")) {
        if (!no_args_left(ev, a))
            return NULL;
        if (ev->have_program)
            return fail(ev, a->at, "a second migraphx.program(): graft reads one program per "
                        "script"), NULL;
        ev->have_program = true;
        return new_value(ev, MGX_PROGRAM, a->at);
    }
    if (str_is(fn, "shape"))
        return make_shape(ev, a);
    if (str_is(fn, "op"))
        return make_op(ev, a);
    if (str_is(fn, "create_argument"))
        return make_argument(ev, a, false);
    if (str_is(fn, "generate_argument"))
        return make_argument(ev, a, true);
    if (str_is(fn, "get_target"))
        return new_value(ev, MGX_NONE, a->at);
    return fail(ev, a->at, "migraphx.%s is not supported (a script may call migraphx.program, "
                "shape, op, create_argument, generate_argument and get_target)", fn), NULL;
}

/* ---- program.* ---- */

static mgx_value *module_value(evaluator *ev, py_span at, module *m)
{
    mgx_value *v = new_value(ev, MGX_MODULE, at);
    if (v)
        v->mod = m;
    return v;
}

static mgx_value *call_program(evaluator *ev, const char *fn, call_args *a)
{
    if (str_is(fn, "get_main_module")) {
        if (!no_args_left(ev, a))
            return NULL;
        module *m = graph_find_module(ev->g, "main");
        if (!m) {
            graft_error e = {0};
            m = graph_add_module(ev->g, "main", &e);
            if (!m)
                return fail(ev, a->at, "%s", e.message), NULL;
        }
        return module_value(ev, a->at, m);
    }
    if (str_is(fn, "create_module") || str_is(fn, "get_module")) {
        mgx_value *name = require(ev, a, take_arg(ev, a, 0, "name"), "name", MGX_STRING);
        if (!name || !no_args_left(ev, a))
            return NULL;
        if (strlen(name->s) != name->len || name->len == 0)
            return fail(ev, value_span(name, a->at), "%s: a module name must be a non-empty "
                        "string without NUL characters", a->what), NULL;
        module *m = graph_find_module(ev->g, name->s);
        if (str_is(fn, "get_module")) {
            if (!m)
                return fail(ev, value_span(name, a->at), "no module named \"%s\"", name->s), NULL;
            return module_value(ev, a->at, m);
        }
        if (m)
            return fail(ev, value_span(name, a->at), "module \"%s\" is created twice", name->s),
                   NULL;
        graft_error e = {0};
        m = graph_add_module(ev->g, name->s, &e);
        if (!m)
            return fail(ev, a->at, "%s", e.message), NULL;
        return module_value(ev, a->at, m);
    }
    if (str_is(fn, "compile") || str_is(fn, "print") || str_is(fn, "sort"))
        return new_value(ev, MGX_NONE, a->at);
    return fail(ev, a->at, "program.%s is not supported (a script may call get_main_module, "
                "create_module, get_module; compile, print and sort are ignored)", fn), NULL;
}

/* ---- module.* ---- */

static mgx_value *ins_value(evaluator *ev, py_span at, ins *i)
{
    mgx_value *v = new_value(ev, MGX_INS, at);
    if (v)
        v->ins = i;
    return v;
}

static bool module_closed(evaluator *ev, call_args *a, module *m)
{
    if (module_return(m))
        return fail(ev, a->at, "%s after add_return in module \"%s\"", a->what, m->name);
    return true;
}

/* The instructions of a list, each of which must be in module m. */
static ins **operand_list(evaluator *ev, call_args *a, mgx_value *list, module *m, int *n)
{
    ins **args = arena_alloc(&ev->st->scratch, (size_t)(list->n ? list->n : 1) * sizeof *args);
    if (!args)
        return fail(ev, a->at, "out of memory"), NULL;
    for (int k = 0; k < list->n; k++) {
        mgx_value *x = list->items[k];
        if (x->kind != MGX_INS)
            return fail(ev, value_span(x, a->at), "%s: operand %d must be an instruction, found "
                        "%s", a->what, k, mgx_kind_name(x->kind)), NULL;
        if (x->ins->mod != m)
            return fail(ev, value_span(x, a->at), "%s: operand %d belongs to module \"%s\", not "
                        "\"%s\"", a->what, k, x->ins->mod->name, m->name), NULL;
        args[k] = x->ins;
    }
    *n = list->n;
    return args;
}

static mgx_value *add_parameter(evaluator *ev, call_args *a, module *m)
{
    mgx_value *name = require(ev, a, take_arg(ev, a, 0, "name"), "name", MGX_STRING);
    mgx_value *sh = name ? require(ev, a, take_arg(ev, a, 1, "shape"), "shape", MGX_SHAPE) : NULL;
    if (!sh || !no_args_left(ev, a) || !module_closed(ev, a, m))
        return NULL;
    if (!mgx_param_name_ok(name->s, name->len))
        return fail(ev, value_span(name, a->at), "add_parameter: \"%.60s\" cannot be a "
                    "parameter name (letters, digits, _ @ . : / and inner '-')", name->s), NULL;
    for (ins *i = m->first; i; i = i->next)
        if (i->param && strcmp(i->param, name->s) == 0)
            return fail(ev, value_span(name, a->at), "parameter \"%s\" is added twice", name->s),
                   NULL;
    ins *i = module_add_param(m, name->s, &sh->sh);
    if (!i)
        return fail(ev, a->at, "out of memory"), NULL;
    return ins_value(ev, a->at, i);
}

static mgx_value *add_literal(evaluator *ev, call_args *a, module *m)
{
    mgx_value *arg = require(ev, a, take_arg(ev, a, 0, "data"), "data", MGX_ARGUMENT);
    if (!arg || !no_args_left(ev, a) || !module_closed(ev, a, m))
        return NULL;
    size_t bytes = shape_bytes(&arg->sh);
    if (!mgx_budget_take(&ev->budget, bytes))
        return fail(ev, a->at, "literal data over the limit of %zu bytes", ev->budget.limit),
               NULL;
    ins *i = module_add_literal(m, &arg->sh, NULL);
    if (!i)
        return fail(ev, a->at, "out of memory (a literal of %zu bytes)", bytes), NULL;
    if (arg->generated) {
        mgx_fill_generated(&arg->sh, (uint64_t)arg->i, i->data);
        i->flags |= INS_ELIDED_LITERAL;
    } else {
        char why[300];
        if (!mgx_store_values(&arg->sh, arg->self, i->data, why, sizeof why))
            return fail(ev, value_span(arg->self, a->at), "migraphx.create_argument: %s", why),
                   NULL;
    }
    return ins_value(ev, a->at, i);
}

static bool build_attrs(evaluator *ev, const op_def *op, const mgx_value *opv, attr **out)
{
    py_span at = {NULL, 0, opv->name_line, opv->name_col};
    attr *attrs = arena_alloc(&ev->g->mem, (size_t)(opv->n ? opv->n : 1) * sizeof *attrs);
    if (!attrs)
        return fail(ev, at, "out of memory");
    for (int k = 0; k < opv->n; k++) {
        py_span vat = value_span(opv->items[k], at);
        int idx = op_attr_index(op, opv->keys[k]);
        if (idx < 0) {
            char names[400];
            op_attr_names_text(op, names, sizeof names);
            if (op->nattrs)
                return fail(ev, vat, "%s has no attribute '%s' (its attributes: %s)", op->name,
                            opv->keys[k], names);
            return fail(ev, vat, "%s has no attribute '%s' (it takes none)", op->name,
                        opv->keys[k]);
        }
        char why[400];
        attrs[k].key = op->attrs[idx].name;
        if (!mgx_attr_value(&ev->g->mem, op, &op->attrs[idx], opv->items[k], &attrs[k].v, why,
                            sizeof why))
            return fail(ev, vat, "%s", why);
    }
    *out = attrs;
    return true;
}

static mgx_value *add_instruction(evaluator *ev, call_args *a, module *m)
{
    mgx_value *opv = require(ev, a, take_arg(ev, a, 0, "op"), "op", MGX_OP);
    mgx_value *list = opv ? take_arg(ev, a, 1, "args") : NULL;
    mgx_value *mods = opv ? take_arg(ev, a, 2, "mod_args") : NULL;
    if (!opv || ev->st->failed || !no_args_left(ev, a) || !module_closed(ev, a, m))
        return NULL;
    py_span op_at = {NULL, 0, opv->name_line, opv->name_col};
    const op_def *op = op_find(opv->s);
    if (!op || strlen(opv->s) != opv->len)
        return fail(ev, op_at, "unknown op '%.60s'", opv->s), NULL;
    if (op->classes & OPC_BUILTIN)
        return fail(ev, op_at, "%s is not added with add_instruction (use add_parameter, "
                    "add_literal or add_return)", op->name), NULL;
    if (list && list->kind != MGX_LIST)
        return fail(ev, value_span(list, a->at), "add_instruction: the operands must be a list, "
                    "found %s", mgx_kind_name(list->kind)), NULL;
    if (mods && mods->kind != MGX_LIST)
        return fail(ev, value_span(mods, a->at), "add_instruction: the module arguments must be "
                    "a list, found %s", mgx_kind_name(mods->kind)), NULL;
    int nargs = 0, nmods = 0;
    ins **args = NULL;
    if (list && !(args = operand_list(ev, a, list, m, &nargs)))
        return NULL;
    module **subs = NULL;
    if (mods) {
        subs = arena_alloc(&ev->st->scratch, (size_t)(mods->n ? mods->n : 1) * sizeof *subs);
        if (!subs)
            return fail(ev, a->at, "out of memory"), NULL;
        for (int k = 0; k < mods->n; k++) {
            mgx_value *x = mods->items[k];
            if (x->kind != MGX_MODULE)
                return fail(ev, value_span(x, a->at), "add_instruction: module argument %d must "
                            "be a module, found %s", k, mgx_kind_name(x->kind)), NULL;
            if (x->mod == m)
                return fail(ev, value_span(x, a->at), "add_instruction: module \"%s\" cannot "
                            "take itself as a submodule", m->name), NULL;
            subs[nmods++] = x->mod;
        }
    }
    if (nargs < op->min_args || (op->max_args >= 0 && nargs > op->max_args)) {
        char want[32];
        if (op->max_args < 0)
            snprintf(want, sizeof want, "at least %d", op->min_args);
        else if (op->min_args == op->max_args)
            snprintf(want, sizeof want, "%d", op->min_args);
        else
            snprintf(want, sizeof want, "%d to %d", op->min_args, op->max_args);
        return fail(ev, a->at, "%s takes %s operand%s, got %d", op->name, want,
                    strcmp(want, "1") == 0 ? "" : "s", nargs), NULL;
    }
    attr *attrs = NULL;
    if (!build_attrs(ev, op, opv, &attrs))
        return NULL;
    graft_error e = {0};
    ins *i = mgx_add_instruction(m, op, attrs, opv->n, args, nargs, subs, nmods, &e);
    if (!i) {
        /* shape rules name their op already */
        size_t n = strlen(op->name);
        bool named = strncmp(e.message, op->name, n) == 0 && e.message[n] == ':';
        return fail(ev, a->at, "%s%s%s", named ? "" : op->name, named ? "" : ": ",
                    e.message[0] ? e.message : "out of memory"), NULL;
    }
    i->line = a->at.line;
    i->col = a->at.col;
    return ins_value(ev, a->at, i);
}

static mgx_value *add_return(evaluator *ev, call_args *a, module *m)
{
    mgx_value *list = require(ev, a, take_arg(ev, a, 0, "args"), "args", MGX_LIST);
    if (!list || !no_args_left(ev, a) || !module_closed(ev, a, m))
        return NULL;
    int n = 0;
    ins **args = operand_list(ev, a, list, m, &n);
    if (!args)
        return NULL;
    ins *i = module_add_return(m, args, n);
    if (!i)
        return fail(ev, a->at, "out of memory"), NULL;
    return ins_value(ev, a->at, i);
}

static mgx_value *call_module(evaluator *ev, const char *fn, call_args *a, module *m)
{
    if (str_is(fn, "add_parameter"))
        return add_parameter(ev, a, m);
    if (str_is(fn, "add_literal"))
        return add_literal(ev, a, m);
    if (str_is(fn, "add_instruction"))
        return add_instruction(ev, a, m);
    if (str_is(fn, "add_return"))
        return add_return(ev, a, m);
    if (str_is(fn, "print"))
        return new_value(ev, MGX_NONE, a->at);
    return fail(ev, a->at, "module.%s is not supported (a script may call add_parameter, "
                "add_literal, add_instruction and add_return)", fn), NULL;
}

/* ---- expressions ---- */

static mgx_value *builtin_name(evaluator *ev, py_span n)
{
    mgx_value *v = NULL;
    if (span_is(n, "migraphx")) {
        if ((v = new_value(ev, MGX_NAMESPACE, n)))
            v->s = "migraphx";
    } else if (span_is(n, "True") || span_is(n, "true") || span_is(n, "False") ||
               span_is(n, "false")) {
        if ((v = new_value(ev, MGX_BOOL, n)))
            v->i = n.p[0] == 'T' || n.p[0] == 't';
    } else if (span_is(n, "None") || span_is(n, "null")) {
        v = new_value(ev, MGX_NONE, n);
    } else if (span_is(n, "inf") || span_is(n, "nan")) {
        /* how C++ streams print infinities in print_py's literal lists */
        if ((v = new_value(ev, MGX_FLOAT, n)))
            v->f = n.p[0] == 'i' ? (double)INFINITY : (double)NAN;
    } else if (span_is(n, "print") || span_is(n, "float")) {
        if ((v = new_value(ev, MGX_METHOD, n))) {
            v->s = n.p[0] == 'p' ? "print" : "float";
            v->self = NULL;
        }
    } else {
        fail(ev, n, "undefined variable '%.*s'", n.len, n.p);
    }
    return v;
}

static mgx_value *call_builtin(evaluator *ev, const char *fn, call_args *a)
{
    if (str_is(fn, "print"))
        return new_value(ev, MGX_NONE, a->at);
    /* float("inf"), float("-inf"), float("nan"), float(x) */
    mgx_value *x = take_arg(ev, a, 0, "x");
    if (ev->st->failed || !no_args_left(ev, a))
        return NULL;
    if (!x)
        return fail(ev, a->at, "float() needs one argument"), NULL;
    mgx_value *v = new_value(ev, MGX_FLOAT, a->at);
    if (!v)
        return NULL;
    if (x->kind == MGX_INT || x->kind == MGX_BOOL) {
        v->f = (double)x->i;
    } else if (x->kind == MGX_FLOAT) {
        v->f = x->f;
    } else if (x->kind == MGX_STRING) {
        char *end;
        v->f = strtod(x->s, &end);
        if (end == x->s || *end)
            return fail(ev, value_span(x, a->at), "float(): not a number: \"%.40s\"", x->s),
                   NULL;
    } else {
        return fail(ev, value_span(x, a->at), "float() of %s", mgx_kind_name(x->kind)), NULL;
    }
    return v;
}

static bool eval_args(evaluator *ev, const py_expr *e, call_args *a)
{
    a->npos = a->nkw = 0;
    a->at = e->at;
    for (const py_arg *x = e->args; x; x = x->next) {
        mgx_value *v = eval(ev, x->value);
        if (!v)
            return false;
        if (x->key.p) {
            if (a->nkw == CALL_ARGS_MAX)
                return fail(ev, x->key, "too many arguments (at most %d)", CALL_ARGS_MAX);
            for (int k = 0; k < a->nkw; k++)
                if (a->kw_at[k].len == x->key.len &&
                    memcmp(a->kw_at[k].p, x->key.p, (size_t)x->key.len) == 0)
                    return fail(ev, x->key, "keyword argument '%.*s' repeated", x->key.len,
                                x->key.p);
            a->kw_at[a->nkw] = x->key;
            a->kw[a->nkw++] = v;
        } else {
            if (a->nkw)
                return fail(ev, value_span(v, e->at), "positional argument after a keyword "
                            "argument");
            if (a->npos == CALL_ARGS_MAX)
                return fail(ev, e->at, "too many arguments (at most %d)", CALL_ARGS_MAX);
            a->pos[a->npos++] = v;
        }
    }
    return true;
}

static mgx_value *eval_call(evaluator *ev, const py_expr *e)
{
    mgx_value *callee = eval(ev, e->obj);
    if (!callee)
        return NULL;
    if (callee->kind != MGX_METHOD)
        return fail(ev, e->at, "%s is not callable", mgx_kind_name(callee->kind)), NULL;
    call_args *a = malloc(sizeof *a);
    if (!a)
        return fail(ev, e->at, "out of memory"), NULL;
    mgx_value *r = NULL;
    if (!eval_args(ev, e, a))
        goto done;
    const char *fn = callee->s;
    a->what = fn;
    const mgx_value *self = callee->self;
    if (!self) {
        r = call_builtin(ev, fn, a);
    } else if (self->kind == MGX_NAMESPACE && str_is(self->s, "migraphx")) {
        char what[80];
        snprintf(what, sizeof what, "migraphx.%s", fn);
        a->what = what;
        r = call_migraphx(ev, fn, a);
    } else if (self->kind == MGX_NAMESPACE) {
        fail(ev, e->at, "%s.%s is not supported: graft reads a script's migraphx calls only",
             self->s, fn);
    } else if (self->kind == MGX_PROGRAM) {
        r = call_program(ev, fn, a);
    } else if (self->kind == MGX_MODULE) {
        r = call_module(ev, fn, a, self->mod);
    } else {
        fail(ev, e->at, "%s has no method '%s' graft knows", mgx_kind_name(self->kind), fn);
    }
done:
    free(a);
    return r;
}

static mgx_value *eval_inner(evaluator *ev, const py_expr *e)
{
    switch (e->kind) {
    case PY_CONST:
        return e->value;
    case PY_NAME: {
        mgx_value *v = mgx_table_get(&ev->vars, e->name.p, (size_t)e->name.len);
        if (!v)
            return builtin_name(ev, e->name);
        /* a copy that says where it was used, for messages about operands */
        mgx_value *use = new_value(ev, v->kind, e->name);
        if (use) {
            *use = *v;
            use->line = e->name.line;
            use->col = e->name.col;
        }
        return use;
    }
    case PY_ATTR: {
        mgx_value *obj = eval(ev, e->obj);
        if (!obj)
            return NULL;
        char *name = arena_strndup(&ev->st->scratch, e->name.p, (size_t)e->name.len);
        if (!name)
            return fail(ev, e->at, "out of memory"), NULL;
        graft_type t;
        /* migraphx.shape.type_t.float_type */
        if (obj->kind == MGX_METHOD && obj->s && str_is(obj->s, "type_t") &&
            type_from_name(name, strlen(name), &t)) {
            mgx_value *v = new_value(ev, MGX_STRING, e->at);
            if (v) {
                v->s = name;
                v->len = strlen(name);
            }
            return v;
        }
        mgx_value *v = new_value(ev, MGX_METHOD, e->at);
        if (v) {
            v->self = obj;
            v->s = name;
        }
        return v;
    }
    case PY_CALL:
        return eval_call(ev, e);
    case PY_NEG:
    case PY_POS: {
        mgx_value *x = eval(ev, e->obj);
        if (!x)
            return NULL;
        if (x->kind != MGX_INT && x->kind != MGX_FLOAT)
            return fail(ev, e->at, "unary %c of %s", e->kind == PY_NEG ? '-' : '+',
                        mgx_kind_name(x->kind)), NULL;
        mgx_value *v = new_value(ev, x->kind, e->at);
        if (!v)
            return NULL;
        *v = *x;
        v->line = e->at.line;
        v->col = e->at.col;
        if (e->kind == PY_NEG) {
            if (x->kind == MGX_INT && x->i == INT64_MIN)
                return fail(ev, e->at, "integer out of range"), NULL;
            v->i = -x->i;
            v->f = -x->f;
        }
        return v;
    }
    case PY_LIST:
    case PY_DICT: {
        mgx_value *v = new_value(ev, e->kind == PY_LIST ? MGX_LIST : MGX_DICT, e->at);
        if (!v)
            return NULL;
        size_t n = (size_t)(e->nargs ? e->nargs : 1);
        v->items = arena_alloc(&ev->st->scratch, n * sizeof *v->items);
        if (e->kind == PY_DICT)
            v->keys = arena_alloc(&ev->st->scratch, n * sizeof *v->keys);
        if (!v->items || (e->kind == PY_DICT && !v->keys))
            return fail(ev, e->at, "out of memory"), NULL;
        for (const py_arg *x = e->args; x; x = x->next) {
            if (x->key_expr) {
                mgx_value *key = eval(ev, x->key_expr);
                if (!key)
                    return NULL;
                if (key->kind != MGX_STRING)
                    return fail(ev, x->key_expr->at, "dict keys must be strings"), NULL;
                v->keys[v->n] = key->s;
            }
            if (!(v->items[v->n] = eval(ev, x->value)))
                return NULL;
            v->n++;
        }
        return v;
    }
    }
    return NULL;
}

static mgx_value *eval(evaluator *ev, const py_expr *e)
{
    if (ev->depth >= EVAL_DEPTH_MAX)
        return fail(ev, e->at, "expression nested too deeply"), NULL;
    ev->depth++;
    mgx_value *v = eval_inner(ev, e);
    ev->depth--;
    return v;
}

static bool run_statements(evaluator *ev)
{
    for (const py_stmt *s = ev->st->first; s; s = s->next) {
        if (s->kind == PY_IMPORT) {
            mgx_value *v = new_value(ev, MGX_NAMESPACE, s->at);
            if (!v)
                return false;
            v->s = arena_strndup(&ev->st->scratch, s->module.p, (size_t)s->module.len);
            if (!v->s || !mgx_table_set(&ev->vars, s->target.p, (size_t)s->target.len, v))
                return fail(ev, s->at, "out of memory");
            continue;
        }
        mgx_value *v = eval(ev, s->value);
        if (!v)
            return false;
        if (s->kind == PY_ASSIGN && !mgx_table_set(&ev->vars, s->target.p, (size_t)s->target.len, v))
            return fail(ev, s->at, "out of memory");
    }
    return true;
}

/* A module without add_return returns its last instruction (MIGraphX's
 * rule); graft makes that explicit. */
static bool finish_modules(evaluator *ev)
{
    py_span top = {NULL, 0, 1, 1};
    module *main = graph_find_module(ev->g, "main");
    if (!ev->have_program)
        return fail(ev, top, "no migraphx.program() in the script: it does not build a "
                    "MIGraphX program");
    if (!main)
        return fail(ev, top, "the script never calls get_main_module(): no main module");
    if (!main->first)
        return fail(ev, top, "the script adds no instruction to the main module");
    for (module *m = ev->g->first_module; m; m = m->next) {
        if (!m->last || module_return(m))
            continue;
        ins *last = m->last;
        if (!module_add_return(m, &last, 1))
            return fail(ev, top, "out of memory");
    }
    graft_error e = {0};
    if (!graph_verify(ev->g, &e))
        return fail(ev, top, "the script builds an inconsistent graph: %s", e.message);
    return true;
}

graph *mgx_py_import_with(const char *text, size_t len, const char *filename,
                          const mgx_import_options *opt, graft_error *err)
{
    if (!filename)
        filename = "<script>";
    py_parse_state st;
    memset(&st, 0, sizeof st);
    arena_init(&st.scratch);
    st.filename = filename;
    st.err = err;
    char *copy = malloc(len + 1);
    if (!copy) {
        error_set(err, "out of memory");
        arena_free(&st.scratch);
        return NULL;
    }
    if (len)
        memcpy(copy, text, len);
    copy[len] = 0;
    st.text = st.cursor = st.line_start = copy;
    st.limit = copy + len;
    st.line = 1;

    graph *g = NULL;
    evaluator ev;
    memset(&ev, 0, sizeof ev);
    int rc = mgx_py_yyparse(&st);
    if (rc != 0 || st.failed) {
        if (!st.failed)
            error_at(err, filename, st.line, 0, "syntax error");
        goto out;
    }
    g = graph_new();
    if (!g) {
        error_set(err, "out of memory");
        goto out;
    }
    ev.st = &st;
    ev.g = g;
    ev.budget.limit = opt ? opt->max_literal_bytes : 0;
    if (!run_statements(&ev) || !finish_modules(&ev)) {
        graph_free(g);
        g = NULL;
        goto out;
    }
    g->source = arena_strdup(&g->mem, filename);
out:
    mgx_table_free(&ev.vars);
    arena_free(&st.scratch);
    free(copy);
    return g;
}

graph *mgx_py_import(const char *text, size_t len, const char *filename, graft_error *err)
{
    return mgx_py_import_with(text, len, filename, NULL, err);
}
