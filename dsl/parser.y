/* parser.y: the grammar of .rules files (bison, pure, with locations).
 *
 * It exists to turn tokens into the tree of ast.h and nothing more: names,
 * ops, attributes, arities and types are checked by sema.c, so this file
 * stays a readable statement of the surface syntax:
 *
 *   rule NAME [nonterminating]
 *       PATTERN                      # op[attr=pat, ...](operands):c:once
 *       { if EXPR | let NAME = EXPR }
 *       => REPLACEMENT               # capture | op[attr=expr](args) | fold(c) | region(...) -> (...)
 *
 *   predicate NAME(PARAM, ...) = EXPR  # a named guard: NAME(args) in an expression
 *
 * A bare identifier in a pattern is an operand capture; an identifier followed
 * by [ or ( is an op; <name> is an op class. The parser stops at the first
 * syntax error and reports it with the offending token's location.
 */
%define api.pure full
%define api.prefix {rdsl}
%define parse.error verbose
%locations
%param {dsl_lexer *lx}
%expect 0

%code requires {
#include "ast.h"

typedef struct dsl_lexer {
    const unsigned char *cur, *mar, *lim, *line_start;
    int line;
    int bad_char;
    dsl_file *file;
    graft_error *err;
    bool failed;
} dsl_lexer;

/* One parsed marker list (:c, :once) with the location of a bad one. */
typedef struct dsl_marks {
    bool commutative, once;
} dsl_marks;
}

%union {
    const char *str;
    int64_t ival;
    double fval;
    dsl_pattern *pat;
    dsl_attr_pat *apat;
    dsl_value *value;
    dsl_list *list;
    dsl_expr *expr;
    dsl_clause *clause;
    dsl_repl *repl;
    dsl_attr_set *aset;
    dsl_rule *rule;
    dsl_marks marks;
    unsigned flags;
}

%code {
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int rdsllex(RDSLSTYPE *val, RDSLLTYPE *loc, dsl_lexer *lx);
static void rdslerror(const RDSLLTYPE *loc, dsl_lexer *lx, const char *msg);

static dsl_loc at(RDSLLTYPE l)
{
    dsl_loc d = {l.first_line, l.first_column};
    return d;
}

static void *node(dsl_lexer *lx, size_t size) { return dsl_alloc(lx->file, size); }

/* `fused[]`, `relu[](x)` in a pattern. */
#define EMPTY_ATTRPATS                                                                        \
    "an empty attribute list '[]' tests nothing: leave it out ('op(x)' matches any "          \
    "attributes, 'op[attr=p](x)' tests or binds one; '<fused>' matches any region)"

static bool fail_at(dsl_lexer *lx, RDSLLTYPE l, const char *fmt, const char *arg)
{
    if (!lx->failed) {
        lx->failed = true;
        dsl_error(lx->err, lx->file, at(l), fmt, arg);
    }
    return false;
}

static dsl_expr *expr_new(dsl_lexer *lx, dsl_expr_kind kind, RDSLLTYPE l)
{
    dsl_expr *e = node(lx, sizeof *e);
    e->kind = kind;
    e->loc = at(l);
    return e;
}

static dsl_expr *binary(dsl_lexer *lx, int op, dsl_expr *a, dsl_expr *b, RDSLLTYPE l)
{
    dsl_expr *e = expr_new(lx, EX_BINARY, l);
    e->op = op;
    e->a = a;
    e->b = b;
    e->loc = a->loc;
    return e;
}

static void list_to_exprs(dsl_list *l, dsl_expr ***out, int *n)
{
    *out = (dsl_expr **)l->items;
    *n = l->n;
}

static dsl_marks add_mark(dsl_lexer *lx, dsl_marks m, const char *name, RDSLLTYPE l)
{
    if (strcmp(name, "c") == 0)
        m.commutative = true;
    else if (strcmp(name, "once") == 0)
        m.once = true;
    else
        fail_at(lx, l, "unknown marker ':%s' (expected :c or :once)", name);
    return m;
}

/* Builds an op, class or capture pattern from its parts. */
static dsl_pattern *make_pattern(dsl_lexer *lx, dsl_pattern *head, dsl_attr_pat *attrs,
                                 bool has_attrs, dsl_pattern *args, dsl_marks tail)
{
    dsl_pattern *p = head;
    if (p->kind == PAT_CAPTURE && (has_attrs || args))
        p->kind = PAT_OP;
    if (p->kind != PAT_CAPTURE && p->kind != PAT_WILDCARD && strcmp(p->name, "_") == 0)
        fail_at(lx, (RDSLLTYPE){p->loc.line, p->loc.col, p->loc.line, p->loc.col},
                "'%s' is the wildcard and cannot take attributes or operands", "_");
    p->attrs = attrs;
    if (args) {
        p->has_args = true;
        p->args = args->args;
        p->nargs = args->nargs;
        p->rest = args->rest;
        p->rest_loc = args->rest_loc;
    }
    p->commutative |= tail.commutative;
    p->once |= tail.once;
    return p;
}
}

%token T_EOF 0 "end of file"
%token T_RULE "'rule'" T_IF "'if'" T_LET "'let'" T_REGION "'region'" T_PREDICATE "'predicate'"
%token T_TRUE "'true'" T_FALSE "'false'" T_NONTERMINATING "'nonterminating'"
%token <str> T_IDENT "identifier" T_ATNAME "@name"
%token <ival> T_INT "integer"
%token <fval> T_FLOAT "number"
%token T_ARROW "'=>'" T_YIELDS "'->'" T_ELLIPSIS "'...'"
%token T_EQ "'=='" T_NE "'!='" T_LE "'<='" T_GE "'>='" T_AND "'&&'" T_OR "'||'"
%token T_BAD "invalid character"

%type <rule> rule
%type <flags> rule_markers
%type <pat> pattern node head arglist_inner
%type <apat> attrpats attrpat opt_attrpats
%type <value> value
%type <list> values_opt values args exprs_opt exprs rargs_opt rargs names params_opt params
%type <marks> marks
%type <clause> clauses
%type <expr> expr primary
%type <repl> repl rnode rarg
%type <aset> attrsets opt_attrsets

%left T_OR
%left T_AND
%precedence '!'
%nonassoc T_EQ T_NE '<' T_LE '>' T_GE
%left '+' '-'
%left '*' '/'
%precedence UMINUS

%%

file
    : %empty
    | file rule { dsl_file_add_rule(lx->file, $2); }
    | file predicate
    ;

predicate
    : T_PREDICATE T_IDENT '(' params_opt ')' '=' expr {
        dsl_predicate *p = node(lx, sizeof *p);
        p->name = $2;
        p->loc = at(@2);
        list_to_exprs($4, &p->params, &p->nparams);
        p->body = $7;
        dsl_file_add_predicate(lx->file, p);
    }
    ;

params_opt
    : %empty { $$ = dsl_list_new(lx->file); }
    | params
    ;

params
    : T_IDENT {
        dsl_expr *e = expr_new(lx, EX_NAME, @1);
        e->name = $1;
        $$ = dsl_list_new(lx->file);
        dsl_list_push(lx->file, $$, e);
    }
    | params ',' T_IDENT {
        dsl_expr *e = expr_new(lx, EX_NAME, @3);
        e->name = $3;
        $$ = $1;
        dsl_list_push(lx->file, $$, e);
    }
    ;

rule
    : T_RULE T_IDENT rule_markers pattern clauses T_ARROW repl {
        dsl_rule *r = node(lx, sizeof *r);
        r->name = $2;
        r->loc = at(@2);
        r->flags = $3;
        r->pattern = $4;
        r->clauses = $5;
        r->repl = $7;
        $$ = r;
    }
    ;

rule_markers
    : %empty { $$ = 0; }
    | rule_markers T_NONTERMINATING { $$ = $1 | DSL_RULE_NONTERMINATING; }
    ;

pattern
    : T_IDENT '=' node { $$ = $3; $$->bind = $1; $$->bind_loc = at(@1); }
    | node
    ;

node
    : head opt_attrpats '(' arglist_inner ')' marks {
        $$ = make_pattern(lx, $1, $2, $2 != NULL, $4, $6);
    }
    | head '[' attrpats ']' marks {
        $$ = make_pattern(lx, $1, $3, true, NULL, $5);
    }
    | head '[' ']' marks {
        (void)$1;
        (void)$4;
        fail_at(lx, @2, "%s", EMPTY_ATTRPATS);
        YYABORT;
    }
    | head {
        $$ = $1;
    }
    ;

opt_attrpats
    : %empty { $$ = NULL; }
    | '[' attrpats ']' { $$ = $2; }
    | '[' ']' {
        fail_at(lx, @1, "%s", EMPTY_ATTRPATS);
        YYABORT;
    }
    ;

head
    : T_IDENT marks {
        $$ = node(lx, sizeof *$$);
        $$->kind = strcmp($1, "_") == 0 ? PAT_WILDCARD : PAT_CAPTURE;
        $$->name = $1;
        $$->loc = at(@1);
        $$->commutative = $2.commutative;
        $$->once = $2.once;
    }
    | T_ATNAME marks {
        $$ = node(lx, sizeof *$$);
        $$->kind = PAT_OP;
        $$->name = $1;
        $$->loc = at(@1);
        $$->commutative = $2.commutative;
        $$->once = $2.once;
    }
    | '<' T_IDENT '>' marks {
        $$ = node(lx, sizeof *$$);
        $$->kind = PAT_CLASS;
        $$->name = $2;
        $$->loc = at(@1);
        $$->commutative = $4.commutative;
        $$->once = $4.once;
    }
    | '!' T_ATNAME {
        $$ = node(lx, sizeof *$$);
        $$->kind = PAT_OP;
        $$->negated = true;
        $$->name = $2;
        $$->loc = at(@1);
    }
    | '!' T_IDENT {
        $$ = node(lx, sizeof *$$);
        $$->kind = PAT_OP;
        $$->negated = true;
        $$->name = $2;
        $$->loc = at(@1);
    }
    | '!' '<' T_IDENT '>' {
        $$ = node(lx, sizeof *$$);
        $$->kind = PAT_CLASS;
        $$->negated = true;
        $$->name = $3;
        $$->loc = at(@1);
    }
    ;

marks
    : %empty { $$ = (dsl_marks){false, false}; }
    | marks ':' T_IDENT { $$ = add_mark(lx, $1, $3, @3); }
    ;

/* Operands: a holder pattern whose args/rest carry the list. */
arglist_inner
    : %empty { $$ = node(lx, sizeof *$$); }
    | args {
        $$ = node(lx, sizeof *$$);
        $$->args = (dsl_pattern **)$1->items;
        $$->nargs = $1->n;
    }
    | args ',' T_IDENT T_ELLIPSIS {
        $$ = node(lx, sizeof *$$);
        $$->args = (dsl_pattern **)$1->items;
        $$->nargs = $1->n;
        $$->rest = $3;
        $$->rest_loc = at(@3);
    }
    | T_IDENT T_ELLIPSIS {
        $$ = node(lx, sizeof *$$);
        $$->rest = $1;
        $$->rest_loc = at(@1);
    }
    ;

args
    : pattern { $$ = dsl_list_new(lx->file); dsl_list_push(lx->file, $$, $1); }
    | args ',' pattern { $$ = $1; dsl_list_push(lx->file, $$, $3); }
    ;

attrpats
    : attrpat { $$ = $1; }
    | attrpats ',' attrpat {
        dsl_attr_pat *p = $1;
        while (p->next)
            p = p->next;
        p->next = $3;
        $$ = $1;
    }
    ;

attrpat
    : T_IDENT '=' T_IDENT {
        $$ = node(lx, sizeof *$$);
        $$->key = $1;
        $$->loc = at(@1);
        $$->bind = $3;
        $$->value_loc = at(@3);
    }
    | T_IDENT '=' value {
        $$ = node(lx, sizeof *$$);
        $$->key = $1;
        $$->loc = at(@1);
        $$->value = *$3;
        $$->value_loc = at(@3);
    }
    ;

value
    : T_INT { $$ = node(lx, sizeof *$$); $$->kind = DV_INT; $$->i = $1; }
    | '-' T_INT { $$ = node(lx, sizeof *$$); $$->kind = DV_INT; $$->i = -$2; }
    | T_FLOAT { $$ = node(lx, sizeof *$$); $$->kind = DV_FLOAT; $$->f = $1; }
    | '-' T_FLOAT { $$ = node(lx, sizeof *$$); $$->kind = DV_FLOAT; $$->f = -$2; }
    | '-' T_IDENT {
        $$ = node(lx, sizeof *$$);
        $$->kind = DV_IDENT;
        size_t n = strlen($2) + 2;
        char *s = dsl_alloc(lx->file, n);
        snprintf(s, n, "-%s", $2);
        $$->ident = s;
    }
    | T_TRUE { $$ = node(lx, sizeof *$$); $$->kind = DV_BOOL; $$->i = 1; }
    | T_FALSE { $$ = node(lx, sizeof *$$); $$->kind = DV_BOOL; $$->i = 0; }
    | '{' values_opt '}' {
        $$ = node(lx, sizeof *$$);
        dsl_list *l = $2;
        bool any_float = false;
        for (int i = 0; i < l->n; i++)
            any_float |= ((dsl_value *)l->items[i])->kind != DV_INT;
        $$->n = l->n;
        if (any_float) {
            $$->kind = DV_FLOATS;
            $$->floats = dsl_alloc(lx->file, sizeof(double) * (size_t)(l->n + 1));
            for (int i = 0; i < l->n; i++) {
                dsl_value *v = l->items[i];
                $$->floats[i] = v->kind == DV_INT ? (double)v->i : v->f;
            }
        } else {
            $$->kind = DV_INTS;
            $$->ints = dsl_alloc(lx->file, sizeof(int64_t) * (size_t)(l->n + 1));
            for (int i = 0; i < l->n; i++)
                $$->ints[i] = ((dsl_value *)l->items[i])->i;
        }
    }
    ;

values_opt
    : %empty { $$ = dsl_list_new(lx->file); }
    | values
    ;

values
    : value {
        if ($1->kind != DV_INT && $1->kind != DV_FLOAT) {
            fail_at(lx, @1, "%s", "a list holds numbers only");
            YYABORT;
        }
        $$ = dsl_list_new(lx->file);
        dsl_list_push(lx->file, $$, $1);
    }
    | values ',' value {
        if ($3->kind != DV_INT && $3->kind != DV_FLOAT) {
            fail_at(lx, @3, "%s", "a list holds numbers only");
            YYABORT;
        }
        $$ = $1;
        dsl_list_push(lx->file, $$, $3);
    }
    ;

clauses
    : %empty { $$ = NULL; }
    | clauses T_IF expr {
        dsl_clause *c = node(lx, sizeof *c);
        c->expr = $3;
        c->loc = at(@2);
        if (!$1) {
            $$ = c;
        } else {
            dsl_clause *p = $1;
            while (p->next)
                p = p->next;
            p->next = c;
            $$ = $1;
        }
    }
    | clauses T_LET T_IDENT '=' expr {
        dsl_clause *c = node(lx, sizeof *c);
        c->is_let = true;
        c->name = $3;
        c->expr = $5;
        c->loc = at(@3);
        if (!$1) {
            $$ = c;
        } else {
            dsl_clause *p = $1;
            while (p->next)
                p = p->next;
            p->next = c;
            $$ = $1;
        }
    }
    ;

expr
    : expr T_OR expr { $$ = binary(lx, DSL_OP_OR, $1, $3, @2); }
    | expr T_AND expr { $$ = binary(lx, DSL_OP_AND, $1, $3, @2); }
    | '!' expr { $$ = expr_new(lx, EX_NOT, @1); $$->a = $2; }
    | expr T_EQ expr { $$ = binary(lx, DSL_OP_EQ, $1, $3, @2); }
    | expr T_NE expr { $$ = binary(lx, DSL_OP_NE, $1, $3, @2); }
    | expr '<' expr { $$ = binary(lx, DSL_OP_LT, $1, $3, @2); }
    | expr T_LE expr { $$ = binary(lx, DSL_OP_LE, $1, $3, @2); }
    | expr '>' expr { $$ = binary(lx, DSL_OP_GT, $1, $3, @2); }
    | expr T_GE expr { $$ = binary(lx, DSL_OP_GE, $1, $3, @2); }
    | expr '+' expr { $$ = binary(lx, DSL_OP_ADD, $1, $3, @2); }
    | expr '-' expr { $$ = binary(lx, DSL_OP_SUB, $1, $3, @2); }
    | expr '*' expr { $$ = binary(lx, DSL_OP_MUL, $1, $3, @2); }
    | expr '/' expr { $$ = binary(lx, DSL_OP_DIV, $1, $3, @2); }
    | '-' expr %prec UMINUS { $$ = expr_new(lx, EX_NEG, @1); $$->a = $2; }
    | primary
    ;

primary
    : T_INT { $$ = expr_new(lx, EX_INT, @1); $$->i = $1; }
    | T_FLOAT { $$ = expr_new(lx, EX_FLOAT, @1); $$->f = $1; }
    | T_TRUE { $$ = expr_new(lx, EX_BOOL, @1); $$->i = 1; }
    | T_FALSE { $$ = expr_new(lx, EX_BOOL, @1); $$->i = 0; }
    | T_IDENT { $$ = expr_new(lx, EX_NAME, @1); $$->name = $1; }
    | T_IDENT '(' exprs_opt ')' {
        $$ = expr_new(lx, EX_CALL, @1);
        $$->name = $1;
        list_to_exprs($3, &$$->args, &$$->nargs);
    }
    | primary '.' T_IDENT { $$ = expr_new(lx, EX_FIELD, @3); $$->a = $1; $$->name = $3; $$->loc = $1->loc; }
    | '(' expr ')' { $$ = $2; }
    | '{' exprs_opt '}' {
        $$ = expr_new(lx, EX_LIST, @1);
        list_to_exprs($2, &$$->args, &$$->nargs);
    }
    ;

exprs_opt
    : %empty { $$ = dsl_list_new(lx->file); }
    | exprs
    ;

exprs
    : expr { $$ = dsl_list_new(lx->file); dsl_list_push(lx->file, $$, $1); }
    | exprs ',' expr { $$ = $1; dsl_list_push(lx->file, $$, $3); }
    ;

repl
    : rnode
    | T_REGION '(' names ')' T_YIELDS '(' names ')' {
        $$ = node(lx, sizeof *$$);
        $$->kind = RP_REGION;
        $$->loc = at(@1);
        $$->args = (dsl_repl **)$3->items;
        $$->nargs = $3->n;
        $$->outputs = (dsl_repl **)$7->items;
        $$->noutputs = $7->n;
    }
    ;

names
    : T_IDENT {
        dsl_repl *r = node(lx, sizeof *r);
        r->kind = RP_CAPTURE;
        r->name = $1;
        r->loc = at(@1);
        $$ = dsl_list_new(lx->file);
        dsl_list_push(lx->file, $$, r);
    }
    | names ',' T_IDENT {
        dsl_repl *r = node(lx, sizeof *r);
        r->kind = RP_CAPTURE;
        r->name = $3;
        r->loc = at(@3);
        $$ = $1;
        dsl_list_push(lx->file, $$, r);
    }
    ;

rnode
    : T_IDENT {
        $$ = node(lx, sizeof *$$);
        $$->kind = RP_CAPTURE;
        $$->name = $1;
        $$->loc = at(@1);
    }
    | T_IDENT '[' opt_attrsets ']' {
        $$ = node(lx, sizeof *$$);
        $$->kind = RP_BUILD;
        $$->name = $1;
        $$->loc = at(@1);
        $$->sets = $3;
    }
    | T_IDENT '[' opt_attrsets ']' '(' rargs_opt ')' {
        $$ = node(lx, sizeof *$$);
        $$->kind = RP_BUILD;
        $$->name = $1;
        $$->loc = at(@1);
        $$->sets = $3;
        $$->has_args = true;
        $$->args = (dsl_repl **)$6->items;
        $$->nargs = $6->n;
    }
    | T_IDENT '(' rargs_opt ')' {
        $$ = node(lx, sizeof *$$);
        $$->kind = RP_BUILD;
        $$->name = $1;
        $$->loc = at(@1);
        $$->has_args = true;
        $$->args = (dsl_repl **)$3->items;
        $$->nargs = $3->n;
    }
    ;

opt_attrsets
    : %empty { $$ = NULL; }
    | attrsets
    ;

attrsets
    : T_IDENT '=' expr {
        $$ = node(lx, sizeof *$$);
        $$->key = $1;
        $$->loc = at(@1);
        $$->expr = $3;
    }
    | attrsets ',' T_IDENT '=' expr {
        dsl_attr_set *s = node(lx, sizeof *s);
        s->key = $3;
        s->loc = at(@3);
        s->expr = $5;
        dsl_attr_set *p = $1;
        while (p->next)
            p = p->next;
        p->next = s;
        $$ = $1;
    }
    ;

rargs_opt
    : %empty { $$ = dsl_list_new(lx->file); }
    | rargs
    ;

rargs
    : rarg { $$ = dsl_list_new(lx->file); dsl_list_push(lx->file, $$, $1); }
    | rargs ',' rarg { $$ = $1; dsl_list_push(lx->file, $$, $3); }
    ;

rarg
    : rnode
    | T_IDENT T_ELLIPSIS {
        $$ = node(lx, sizeof *$$);
        $$->kind = RP_REST;
        $$->name = $1;
        $$->loc = at(@1);
    }
    ;

%%

static void rdslerror(const RDSLLTYPE *loc, dsl_lexer *lx, const char *msg)
{
    if (lx->failed)
        return;
    if (lx->bad_char) {
        char buf[64];
        if (lx->bad_char >= 32 && lx->bad_char < 127)
            snprintf(buf, sizeof buf, "'%c'", lx->bad_char);
        else
            snprintf(buf, sizeof buf, "byte 0x%02x", lx->bad_char);
        fail_at(lx, *loc, "unexpected character %s", buf);
        return;
    }
    /* Token names are declared as "'=>'"; print them as '=>'. */
    char clean[512];
    size_t n = 0;
    for (const char *c = msg; *c && n + 1 < sizeof clean; c++)
        if (*c != '"')
            clean[n++] = *c;
    clean[n] = '\0';
    fail_at(lx, *loc, "%s", clean);
}

bool dsl_parse(dsl_file *f, graft_error *err)
{
    dsl_lexer lx;
    memset(&lx, 0, sizeof lx);
    lx.cur = (const unsigned char *)f->text;
    lx.line_start = lx.cur;
    lx.lim = lx.cur + strlen(f->text);
    lx.line = 1;
    lx.file = f;
    lx.err = err;
    int rc = rdslparse(&lx);
    return rc == 0 && !lx.failed;
}
