/* dump_parse.y: the grammar of the graph dump format (bison).
 *
 * Reads the tokens of dump_lex.re into the syntax tree of dump_syntax.h: a
 * list of modules, each a list of instruction lines. It checks only syntax;
 * names, ops, attributes and shapes are checked when dump_read.c builds the
 * graph. The parser is pure and reentrant: all of its state is the
 * dump_parse_state passed to it, and tree nodes live in that state's scratch
 * arena. It stops at the first error and reports it once, with the offending
 * token's line and column, the tokens that could have come instead, and
 * where in the line the parser was.
 */
%define api.pure full
%define api.prefix {dump_yy}
%define api.token.prefix {TOK_}
%define parse.error custom
%define parse.lac full
%locations
%param {dump_parse_state *st}
%expect 0

%code requires {
#include "dump_syntax.h"
}

%union {
    dump_span tok;
    dump_value *value;
    dump_value_list values;
    dump_attr_list attrs;
    dump_ref_list refs;
    dump_shape *shape;
    dump_shape_list shapes;
    dump_literal *literal;
    dump_stmt *stmt;
}

%code {
#include <stdio.h>
#include <string.h>

int dump_yylex(DUMP_YYSTYPE *lval, DUMP_YYLTYPE *lloc, dump_parse_state *st);
static void yyerror(const DUMP_YYLTYPE *loc, dump_parse_state *st, const char *msg);

static void *node(dump_parse_state *st, size_t size)
{
    void *p = arena_alloc(&st->scratch, size);
    if (!p && !st->failed) {
        error_set(st->err, "out of memory");
        st->failed = true;
    }
    return p;
}

static dump_value *new_value(dump_parse_state *st, dump_value_kind kind, dump_span tok)
{
    dump_value *v = node(st, sizeof *v);
    if (v) {
        v->kind = kind;
        v->tok = tok;
    }
    return v;
}

static dump_value_list value_list_add(dump_value_list l, dump_value *v)
{
    if (l.tail)
        l.tail->next = v;
    else
        l.head = v;
    l.tail = v;
    l.n++;
    return l;
}

static dump_attr_list attr_list_add(dump_attr_list l, dump_attr *a)
{
    if (l.tail)
        l.tail->next = a;
    else
        l.head = a;
    l.tail = a;
    l.n++;
    return l;
}

static dump_ref *new_ref(dump_parse_state *st, dump_span name, bool quoted)
{
    dump_ref *r = node(st, sizeof *r);
    if (r) {
        r->name = name;
        r->quoted = quoted;
    }
    return r;
}

static dump_ref_list ref_list_add(dump_ref_list l, dump_ref *r)
{
    if (l.tail)
        l.tail->next = r;
    else
        l.head = r;
    l.tail = r;
    l.n++;
    return l;
}

static dump_shape_list shape_list_add(dump_shape_list l, dump_shape *s)
{
    if (l.tail)
        l.tail->next = s;
    else
        l.head = s;
    l.tail = s;
    l.n++;
    return l;
}

static dump_literal *new_literal(dump_parse_state *st, dump_literal_kind kind, dump_span at)
{
    dump_literal *l = node(st, sizeof *l);
    if (l) {
        l->kind = kind;
        l->at = at;
    }
    return l;
}

/* The module statements go to: the current `module:` section, or a "main"
 * made up for a bare module print. */
static dump_mod *current_module(dump_parse_state *st)
{
    if (st->current)
        return st->current;
    dump_mod *m = node(st, sizeof *m);
    if (!m)
        return NULL;
    m->name = "main";
    st->mods = st->mods_last = st->current = m;
    return m;
}

static bool begin_module(dump_parse_state *st, dump_span name)
{
    dump_mod *m = node(st, sizeof *m);
    if (!m)
        return false;
    size_t len;
    m->header = name;
    m->name = dump_unquote(&st->scratch, name, &len);
    if (!m->name) {
        st->failed = true;
        return error_set(st->err, "out of memory");
    }
    if (strlen(m->name) != len)
        return dump_error_at(st, name, "a module name cannot contain a NUL character");
    if (st->mods_last)
        st->mods_last->next = m;
    else
        st->mods = m;
    st->mods_last = st->current = m;
    return true;
}

static bool add_stmt(dump_parse_state *st, dump_stmt *s)
{
    dump_mod *m = current_module(st);
    if (!m || !s)
        return false;
    if (m->last)
        m->last->next = s;
    else
        m->first = s;
    m->last = s;
    m->nstmts++;
    return true;
}
}

%token <tok> WORD "name"
%token <tok> PARAM "'@param:name'"
%token <tok> INT "integer"
%token <tok> FLOAT "number"
%token <tok> STRING "quoted string"
%token <tok> BASE64 "base64 data"
%token <tok> MODULE "'module:'"
%token <tok> ARROW "'->'"
%token <tok> ELLIPSIS "'...'"
%token <tok> NEWLINE "end of line"
%token <tok> '=' '[' ']' '(' ')' '{' '}' ','

%type <tok> name
%type <value> scalar value list
%type <values> scalars scalars_opt
%type <attrs> attrs attr_list attr_items
%type <refs> operands operand_list modules module_list
%type <literal> literal_opt literal_body
%type <shape> shape tail
%type <shapes> shape_list
%type <stmt> stmt opspec

%%

dump
    : %empty
    | dump line
    ;

line
    : NEWLINE
    | MODULE STRING NEWLINE       { if (!begin_module(st, $2)) YYABORT; }
    | stmt NEWLINE                { if (!add_stmt(st, $1)) YYABORT; }
    ;

stmt
    : name '=' opspec operands modules tail
        {
            $$ = $3;
            $$->name = $1;
            $$->has_operands = $4.n >= 0;
            $$->args = $4.head;
            $$->nargs = $4.n < 0 ? 0 : $4.n;
            $$->mods = $5.head;
            $$->nmods = $5.n;
            $$->tail = $6;
        }
    ;

name
    : WORD
    | INT
    ;

opspec
    : WORD attrs literal_opt
        {
            if (!($$ = node(st, sizeof *$$))) YYABORT;
            $$->op = $1;
            $$->attrs = $2.head;
            $$->nattrs = $2.n;
            $$->literal = $3;
        }
    | PARAM
        {
            if (!($$ = node(st, sizeof *$$))) YYABORT;
            $$->op = $1;
            $$->is_param = true;
            $$->param = $1;
            $$->param.p += 7;
            $$->param.len -= 7;
            $$->param.col += 7;
        }
    ;

attrs
    : %empty                      { $$ = (dump_attr_list){0}; }
    | '[' attr_items ']'          { $$ = $2; }
    ;

attr_items
    : %empty                      { $$ = (dump_attr_list){0}; }
    | attr_list
    | attr_list ','               { $$ = $1; }
    ;

attr_list
    : WORD '=' value
        {
            dump_attr *a = node(st, sizeof *a);
            if (!a) YYABORT;
            a->key = $1;
            a->value = $3;
            $$ = attr_list_add((dump_attr_list){0}, a);
        }
    | attr_list ',' WORD '=' value
        {
            dump_attr *a = node(st, sizeof *a);
            if (!a) YYABORT;
            a->key = $3;
            a->value = $5;
            $$ = attr_list_add($1, a);
        }
    ;

value
    : scalar
    | list
    ;

scalar
    : INT                         { if (!($$ = new_value(st, DUMP_INT, $1))) YYABORT; }
    | FLOAT                       { if (!($$ = new_value(st, DUMP_FLOAT, $1))) YYABORT; }
    | WORD                        { if (!($$ = new_value(st, DUMP_WORD, $1))) YYABORT; }
    | STRING                      { if (!($$ = new_value(st, DUMP_STRING, $1))) YYABORT; }
    ;

list
    : '{' scalars_opt '}'
        {
            if (!($$ = new_value(st, DUMP_LIST, $1))) YYABORT;
            $$->items = $2.head;
            $$->nitems = $2.n;
        }
    ;

scalars_opt
    : %empty                      { $$ = (dump_value_list){0}; }
    | scalars
    ;

scalars
    : scalar                      { $$ = value_list_add((dump_value_list){0}, $1); }
    | scalars ',' scalar          { $$ = value_list_add($1, $3); }
    ;

literal_opt
    : %empty                      { $$ = NULL; }
    | '{' literal_body '}'        { $$ = $2; if ($$) $$->at = $1; }
    ;

literal_body
    : scalars_opt
        {
            if (!($$ = new_literal(st, DUMP_LIT_VALUES, (dump_span){0}))) YYABORT;
            $$->values = $1.head;
            $$->nvalues = $1.n;
        }
    | ELLIPSIS                    { if (!($$ = new_literal(st, DUMP_LIT_ELIDED, $1))) YYABORT; }
    | BASE64
        {
            if (!($$ = new_literal(st, DUMP_LIT_BASE64, $1))) YYABORT;
            $$->base64 = $1;
        }
    ;

operands
    : %empty                      { $$ = (dump_ref_list){0}; $$.n = -1; }
    | '(' ')'                     { $$ = (dump_ref_list){0}; }
    | '(' operand_list ')'        { $$ = $2; }
    ;

operand_list
    : name
        {
            dump_ref *r = new_ref(st, $1, false);
            if (!r) YYABORT;
            $$ = ref_list_add((dump_ref_list){0}, r);
        }
    | operand_list ',' name
        {
            dump_ref *r = new_ref(st, $3, false);
            if (!r) YYABORT;
            $$ = ref_list_add($1, r);
        }
    ;

modules
    : %empty                      { $$ = (dump_ref_list){0}; }
    | ',' '[' module_list ']'     { $$ = $3; }
    ;

module_list
    : WORD
        {
            dump_ref *r = new_ref(st, $1, false);
            if (!r) YYABORT;
            $$ = ref_list_add((dump_ref_list){0}, r);
        }
    | STRING
        {
            dump_ref *r = new_ref(st, $1, true);
            if (!r) YYABORT;
            $$ = ref_list_add((dump_ref_list){0}, r);
        }
    | module_list ',' WORD
        {
            dump_ref *r = new_ref(st, $3, false);
            if (!r) YYABORT;
            $$ = ref_list_add($1, r);
        }
    | module_list ',' STRING
        {
            dump_ref *r = new_ref(st, $3, true);
            if (!r) YYABORT;
            $$ = ref_list_add($1, r);
        }
    ;

tail
    : %empty                      { $$ = NULL; }
    | ARROW shape suffix          { $$ = $2; }
    ;

/* `, target_id=0` after the shape: accepted and ignored. */
suffix
    : %empty
    | suffix ',' WORD '=' scalar
    ;

shape
    : WORD ',' list ',' list
        {
            if (!($$ = node(st, sizeof *$$))) YYABORT;
            $$->at = $1;
            $$->type = $1;
            $$->lens = $3;
            $$->strides = $5;
        }
    | '[' ']'
        {
            if (!($$ = node(st, sizeof *$$))) YYABORT;
            $$->at = $1;
            $$->tuple = true;
        }
    | '[' shape_list ']'
        {
            if (!($$ = node(st, sizeof *$$))) YYABORT;
            $$->at = $1;
            $$->tuple = true;
            $$->elems = $2.head;
            $$->nelems = $2.n;
        }
    ;

shape_list
    : shape                       { $$ = shape_list_add((dump_shape_list){0}, $1); }
    | shape_list ',' shape        { $$ = shape_list_add($1, $3); }
    ;

%%

/* How a token kind reads in a message. */
static const char *symbol_text(yysymbol_kind_t k)
{
    switch (k) {
    case YYSYMBOL_YYEOF: return "end of file";
    default: return yysymbol_name(k);
    }
}

/* Where in the line the parser was when it met the bad token. */
static const char *where(const dump_context *c)
{
    if (c->depth > 0) {
        int top = c->depth <= DUMP_NEST_MAX ? c->nest[c->depth - 1] : NEST_BRACES;
        switch (top) {
        case NEST_OPERANDS:
            return c->prev == TOK_WORD || c->prev == TOK_INT ? "after operand" : "in operand list";
        case NEST_ATTRS:
            if (c->prev == TOK_WORD && c->prev2 != '=')
                return "after attribute name";
            if (c->prev == '=')
                return "after '=' in attribute list";
            if (c->prev == '[' || c->prev == ',')
                return "in attribute list";
            return "after attribute value";
        case NEST_MODULES: return "in module list";
        case NEST_TUPLE: return "in tuple shape";
        default: return c->seen_arrow ? "in shape" : "in list";
        }
    }
    if (c->seen_arrow)
        return c->prev == TOK_ARROW ? "after '->'" : "in shape";
    switch (c->prev) {
    case 0:
    case TOK_NEWLINE: return "at start of line";
    case TOK_MODULE: return "after 'module:'";
    case TOK_STRING: return "after module name";
    case '=': return "after '='";
    case ')': return "after operand list";
    case ']': return c->prev_tok.p ? "after ']'" : "";
    case '}': return "after literal";
    case ',': return "after ','";
    case TOK_PARAM: return "after parameter";
    default: return c->seen_equals ? "after op name" : "after instruction name";
    }
}

static int yyreport_syntax_error(const yypcontext_t *ctx, dump_parse_state *st)
{
    if (st->failed)
        return 0;
    yysymbol_kind_t expected[40];
    int n = yypcontext_expected_tokens(ctx, expected, 40);
    bool has_int = false, has_float = false, has_word = false, has_string = false;
    for (int k = 0; k < n; k++) {
        has_int |= expected[k] == YYSYMBOL_INT;
        has_float |= expected[k] == YYSYMBOL_FLOAT;
        has_word |= expected[k] == YYSYMBOL_WORD;
        has_string |= expected[k] == YYSYMBOL_STRING;
    }
    bool value = has_int && has_float && has_word && has_string;
    char list[512] = "";
    size_t at = 0;
    int shown = 0, total = 0;
    const char *names[40];
    if (value)
        names[total++] = "a value";
    for (int k = 0; k < n; k++) {
        yysymbol_kind_t e = expected[k];
        if (value && (e == YYSYMBOL_INT || e == YYSYMBOL_FLOAT || e == YYSYMBOL_WORD ||
                      e == YYSYMBOL_STRING))
            continue;
        names[total++] = symbol_text(e);
    }
    for (int k = 0; k < total && at < sizeof list - 64; k++, shown++) {
        const char *sep = k == 0 ? "" : k == total - 1 ? " or " : ", ";
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", sep, names[k]);
    }
    const dump_context *c = &st->before;
    const char *place = where(c);
    dump_span t = st->last_tok;
    char found[96];
    yysymbol_kind_t look = yypcontext_token(ctx);
    if (look == YYSYMBOL_NEWLINE || look == YYSYMBOL_YYEOF || t.len == 0)
        snprintf(found, sizeof found, "%s", symbol_text(look));
    else if (t.len <= 40)
        snprintf(found, sizeof found, "'%.*s'", t.len, t.p);
    else
        snprintf(found, sizeof found, "'%.37s...'", t.p);
    const DUMP_YYLTYPE *loc = yypcontext_location(ctx);
    dump_span where_tok = {t.p, t.len, loc->first_line, loc->first_column};
    if (total > 0)
        dump_error_at(st, where_tok, "expected %s%s%s, found %s", list, *place ? " " : "", place,
                      found);
    else
        dump_error_at(st, where_tok, "unexpected %s%s%s", found, *place ? " " : "", place);
    return 0;
}

/* Bison reports running out of stack (deep nesting) through yyerror. */
static void yyerror(const DUMP_YYLTYPE *loc, dump_parse_state *st, const char *msg)
{
    dump_span at = {st->last_tok.p, st->last_tok.len, loc->first_line, loc->first_column};
    if (strcmp(msg, "memory exhausted") == 0)
        dump_error_at(st, at, "brackets nested too deeply (or out of memory)");
    else
        dump_error_at(st, at, "%s", msg);
}
