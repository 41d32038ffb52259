/* mgx_py_parse.y: the grammar of a MIGraphX Python script (bison).
 *
 * The subset of Python that MIGraphX scripts are written in: assignments to
 * a name, expression statements, `import a.b [as c]`, and expressions made of
 * names, attribute accesses, calls with positional and keyword arguments,
 * numbers (with unary minus), strings, lists and dicts. A statement ends at a
 * newline, at a ';', or where the next statement starts: the grammar needs no
 * separator because no statement can continue with a name, so a script
 * flattened onto one line parses as it did on many. Only syntax is checked;
 * names and calls are checked when mgx_py.c evaluates the statements. The
 * parser is pure: its state is the py_parse_state, its nodes live in that
 * state's scratch arena. It stops at the first error with the token's line
 * and column and the tokens that could have come instead.
 */
%define api.pure full
%define api.prefix {mgx_py_yy}
%define api.token.prefix {TOK_}
%define parse.error custom
%define parse.lac full
%locations
%param {py_parse_state *st}
%expect 0

%code requires {
#include "mgx_py_syntax.h"
}

%union {
    py_span tok;
    py_expr *expr;
    py_arg *arg;
    py_args args;
    py_stmt *stmt;
}

%code {
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int mgx_py_yylex(MGX_PY_YYSTYPE *lval, MGX_PY_YYLTYPE *lloc, py_parse_state *st);
static void yyerror(const MGX_PY_YYLTYPE *loc, py_parse_state *st, const char *msg);

static void *node(py_parse_state *st, size_t size)
{
    void *p = arena_alloc(&st->scratch, size);
    if (!p && !st->failed) {
        error_set(st->err, "out of memory");
        st->failed = true;
    }
    return p;
}

static py_expr *new_expr(py_parse_state *st, py_expr_kind kind, py_span at)
{
    py_expr *e = node(st, sizeof *e);
    if (e) {
        e->kind = kind;
        e->at = at;
    }
    return e;
}

static py_args args_add(py_args l, py_arg *a)
{
    if (l.tail)
        l.tail->next = a;
    else
        l.head = a;
    l.tail = a;
    l.n++;
    return l;
}

static py_arg *new_arg(py_parse_state *st, py_span key, py_expr *key_expr, py_expr *value)
{
    py_arg *a = node(st, sizeof *a);
    if (a) {
        a->key = key;
        a->key_expr = key_expr;
        a->value = value;
    }
    return a;
}

static py_stmt *new_stmt(py_parse_state *st, py_stmt_kind kind, py_span at)
{
    py_stmt *s = node(st, sizeof *s);
    if (s) {
        s->kind = kind;
        s->at = at;
    }
    return s;
}

static void add_stmt(py_parse_state *st, py_stmt *s)
{
    if (st->last)
        st->last->next = s;
    else
        st->first = s;
    st->last = s;
}

/* The dotted name a.b.c spans from its first to its last token. */
static py_span join_spans(py_span a, py_span b)
{
    a.len = (int)(b.p + b.len - a.p);
    return a;
}
}

%token <tok> NAME "name"
%token <tok> INT "integer"
%token <tok> FLOAT "number"
%token <tok> STRING "string"
%token <tok> NEWLINE "end of line"
%token <tok> IMPORT "'import'"
%token <tok> AS "'as'"
%token <tok> '=' '(' ')' '[' ']' '{' '}' ',' '.' ':' ';' '-' '+'

%type <expr> expr postfix
%type <args> call_args arg_list items item_list dict_items dict_list
%type <arg> call_arg
%type <stmt> stmt import_item
%type <tok> dotted

%%

script
    : %empty
    | script NEWLINE
    | script ';'
    | script stmt                 { add_stmt(st, $2); }
    | script IMPORT import_list
    ;

stmt
    : NAME '=' expr
        {
            if (!($$ = new_stmt(st, PY_ASSIGN, $1))) YYABORT;
            $$->target = $1;
            $$->value = $3;
        }
    | postfix
        {
            if (!($$ = new_stmt(st, PY_EXPR, $1->at))) YYABORT;
            $$->value = $1;
        }
    | STRING
        {
            /* a docstring: nothing to do */
            if (!($$ = new_stmt(st, PY_EXPR, $1))) YYABORT;
            if (!($$->value = new_expr(st, PY_CONST, $1))) YYABORT;
            if (!($$->value->value = py_constant(st, TOK_STRING, $1))) YYABORT;
        }
    ;

import_list
    : import_item                 { add_stmt(st, $1); }
    | import_list ',' import_item { add_stmt(st, $3); }
    ;

import_item
    : dotted
        {
            if (!($$ = new_stmt(st, PY_IMPORT, $1))) YYABORT;
            $$->module = $1;
            /* `import a.b` binds a */
            $$->target = $1;
            const char *dot = memchr($1.p, '.', (size_t)$1.len);
            if (dot)
                $$->target.len = (int)(dot - $1.p);
        }
    | dotted AS NAME
        {
            if (!($$ = new_stmt(st, PY_IMPORT, $1))) YYABORT;
            $$->module = $1;
            $$->target = $3;
        }
    ;

dotted
    : NAME
    | dotted '.' NAME             { $$ = join_spans($1, $3); }
    ;

postfix
    : NAME
        {
            if (!($$ = new_expr(st, PY_NAME, $1))) YYABORT;
            $$->name = $1;
        }
    | postfix '.' NAME
        {
            if (!($$ = new_expr(st, PY_ATTR, $3))) YYABORT;
            $$->obj = $1;
            $$->name = $3;
        }
    | postfix '(' call_args ')'
        {
            if (!($$ = new_expr(st, PY_CALL, $1->at))) YYABORT;
            $$->obj = $1;
            $$->args = $3.head;
            $$->nargs = $3.n;
        }
    ;

expr
    : postfix
    | INT
        {
            if (!($$ = new_expr(st, PY_CONST, $1))) YYABORT;
            if (!($$->value = py_constant(st, TOK_INT, $1))) YYABORT;
        }
    | FLOAT
        {
            if (!($$ = new_expr(st, PY_CONST, $1))) YYABORT;
            if (!($$->value = py_constant(st, TOK_FLOAT, $1))) YYABORT;
        }
    | STRING
        {
            if (!($$ = new_expr(st, PY_CONST, $1))) YYABORT;
            if (!($$->value = py_constant(st, TOK_STRING, $1))) YYABORT;
        }
    | '-' expr
        {
            if (!($$ = new_expr(st, PY_NEG, $1))) YYABORT;
            $$->obj = $2;
        }
    | '+' expr
        {
            if (!($$ = new_expr(st, PY_POS, $1))) YYABORT;
            $$->obj = $2;
        }
    | '(' expr ')'                { $$ = $2; }
    | '[' items ']'
        {
            if (!($$ = new_expr(st, PY_LIST, $1))) YYABORT;
            $$->args = $2.head;
            $$->nargs = $2.n;
        }
    | '{' dict_items '}'
        {
            if (!($$ = new_expr(st, PY_DICT, $1))) YYABORT;
            $$->args = $2.head;
            $$->nargs = $2.n;
        }
    ;

call_args
    : %empty                      { $$ = (py_args){0}; }
    | arg_list
    | arg_list ','                { $$ = $1; }
    ;

arg_list
    : call_arg                    { $$ = args_add((py_args){0}, $1); }
    | arg_list ',' call_arg       { $$ = args_add($1, $3); }
    ;

call_arg
    : expr                        { if (!($$ = new_arg(st, (py_span){0}, NULL, $1))) YYABORT; }
    | NAME '=' expr               { if (!($$ = new_arg(st, $1, NULL, $3))) YYABORT; }
    ;

items
    : %empty                      { $$ = (py_args){0}; }
    | item_list
    | item_list ','               { $$ = $1; }
    ;

item_list
    : expr
        {
            py_arg *a = new_arg(st, (py_span){0}, NULL, $1);
            if (!a) YYABORT;
            $$ = args_add((py_args){0}, a);
        }
    | item_list ',' expr
        {
            py_arg *a = new_arg(st, (py_span){0}, NULL, $3);
            if (!a) YYABORT;
            $$ = args_add($1, a);
        }
    ;

dict_items
    : %empty                      { $$ = (py_args){0}; }
    | dict_list
    | dict_list ','               { $$ = $1; }
    ;

dict_list
    : expr ':' expr
        {
            py_arg *a = new_arg(st, (py_span){0}, $1, $3);
            if (!a) YYABORT;
            $$ = args_add((py_args){0}, a);
        }
    | dict_list ',' expr ':' expr
        {
            py_arg *a = new_arg(st, (py_span){0}, $3, $5);
            if (!a) YYABORT;
            $$ = args_add($1, a);
        }
    ;

%%

static const char *symbol_text(yysymbol_kind_t k)
{
    switch (k) {
    case YYSYMBOL_YYEOF: return "end of file";
    default: return yysymbol_name(k);
    }
}

/* The punctuation that can start a value: listed as part of "a value". */
static bool starts_value(const char *name)
{
    return strcmp(name, "'('") == 0 || strcmp(name, "'['") == 0 || strcmp(name, "'{'") == 0 ||
           strcmp(name, "'-'") == 0 || strcmp(name, "'+'") == 0;
}

static int yyreport_syntax_error(const yypcontext_t *ctx, py_parse_state *st)
{
    if (st->failed)
        return 0;
    yysymbol_kind_t expected[40];
    int n = yypcontext_expected_tokens(ctx, expected, 40);
    bool has_int = false, has_float = false, has_name = false, has_string = false;
    for (int k = 0; k < n; k++) {
        has_int |= expected[k] == YYSYMBOL_INT;
        has_float |= expected[k] == YYSYMBOL_FLOAT;
        has_name |= expected[k] == YYSYMBOL_NAME;
        has_string |= expected[k] == YYSYMBOL_STRING;
    }
    /* Where any value may come, say so once instead of listing its tokens. */
    bool value = has_int && has_float && has_name && has_string;
    const char *names[40];
    int total = 0;
    if (value)
        names[total++] = "a value";
    for (int k = 0; k < n; k++) {
        yysymbol_kind_t e = expected[k];
        if (value && (e == YYSYMBOL_INT || e == YYSYMBOL_FLOAT || e == YYSYMBOL_NAME ||
                      e == YYSYMBOL_STRING || starts_value(symbol_text(e))))
            continue;
        names[total++] = symbol_text(e);
    }
    char list[512] = "";
    size_t at = 0;
    for (int k = 0; k < total && at < sizeof list - 64; k++) {
        const char *sep = k == 0 ? "" : k == total - 1 ? " or " : ", ";
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", sep, names[k]);
    }
    py_span t = st->last_tok;
    char found[96];
    yysymbol_kind_t look = yypcontext_token(ctx);
    if (look == YYSYMBOL_NEWLINE || look == YYSYMBOL_YYEOF || t.len == 0)
        snprintf(found, sizeof found, "%s", symbol_text(look));
    else if (t.len <= 40)
        snprintf(found, sizeof found, "'%.*s'", t.len, t.p);
    else
        snprintf(found, sizeof found, "'%.37s...'", t.p);
    const MGX_PY_YYLTYPE *loc = yypcontext_location(ctx);
    py_span where = {t.p, t.len, loc->first_line, loc->first_column};
    if (total > 0)
        py_error_at(st, where, "expected %s, found %s", list, found);
    else
        py_error_at(st, where, "unexpected %s", found);
    return 0;
}

/* Bison reports running out of stack (deep nesting) through yyerror. */
static void yyerror(const MGX_PY_YYLTYPE *loc, py_parse_state *st, const char *msg)
{
    py_span at = {st->last_tok.p, st->last_tok.len, loc->first_line, loc->first_column};
    if (strcmp(msg, "memory exhausted") == 0)
        py_error_at(st, at, "brackets nested too deeply (or out of memory)");
    else
        py_error_at(st, at, "%s", msg);
}
