/* mgx_py_syntax.h: what the MIGraphX script lexer, parser and evaluator share.
 *
 * Reading a script is two steps. The re2c lexer (mgx_py_lex.re) and the
 * bison parser (mgx_py_parse.y) turn the text into a list of statements
 * (assignments, expression statements, imports) over small expression trees
 * (names, attribute accesses, calls with positional and keyword arguments,
 * numbers, strings, lists, dicts), held in a scratch arena. mgx_py.c then
 * evaluates those statements symbolically: it knows what the handful of
 * migraphx calls mean and builds the graph; nothing is ever run.
 *
 * Statements need no separator: a newline, a ';' or simply the start of the
 * next statement ends one, so the form flattened onto one line (seed 000's
 * second copy) reads the same as the original. Only internal to mgx_py*.
 */
#ifndef GRAFT_MGX_PY_SYNTAX_H
#define GRAFT_MGX_PY_SYNTAX_H

#include "arena.h"
#include "error.h"
#include "mgx_private.h"

#include <stdbool.h>
#include <stddef.h>

/* A token's text and where it starts (1-based line and column). */
typedef struct py_span {
    const char *p;
    int len;
    int line, col;
} py_span;

typedef enum py_expr_kind {
    PY_CONST, /* a number or a string: value */
    PY_NAME,  /* name */
    PY_ATTR,  /* obj . name */
    PY_CALL,  /* obj ( args ) */
    PY_LIST,  /* [ args ] */
    PY_DICT,  /* { key: value, ... }: args with key_expr */
    PY_NEG,   /* - obj */
    PY_POS,   /* + obj */
} py_expr_kind;

typedef struct py_expr py_expr;

/* A call argument (keyword when key.p != NULL), a list item or a dict entry. */
typedef struct py_arg {
    py_span key;
    py_expr *key_expr;  /* dict entries */
    py_expr *value;
    struct py_arg *next;
} py_arg;

typedef struct py_args {
    py_arg *head, *tail;
    int n;
} py_args;

struct py_expr {
    py_expr_kind kind;
    py_span at;         /* its first token (the name for NAME and ATTR) */
    mgx_value *value;   /* PY_CONST */
    py_span name;       /* PY_NAME, PY_ATTR */
    py_expr *obj;       /* PY_ATTR, PY_CALL (the callee), PY_NEG, PY_POS */
    py_arg *args;       /* PY_CALL, PY_LIST, PY_DICT */
    int nargs;
};

typedef enum py_stmt_kind {
    PY_ASSIGN, /* target = value */
    PY_EXPR,   /* value */
    PY_IMPORT, /* import module [as alias] */
} py_stmt_kind;

typedef struct py_stmt {
    py_stmt_kind kind;
    py_span at;
    py_span target;     /* PY_ASSIGN; PY_IMPORT: the name bound */
    py_span module;     /* PY_IMPORT: the dotted module name */
    py_expr *value;
    struct py_stmt *next;
} py_stmt;

typedef struct py_parse_state {
    /* input: a NUL-terminated copy */
    const char *text, *cursor, *limit, *marker, *token, *line_start;
    int line;
    int depth;          /* bracket nesting: newlines inside brackets are spaces */
    bool last_was_newline;
    py_span last_tok;
    /* results */
    arena scratch;
    py_stmt *first, *last;
    const char *filename;
    graft_error *err;
    bool failed;
} py_parse_state;

int mgx_py_yyparse(py_parse_state *st);

/* Records an error at a span (first error wins). Returns false. */
bool py_error_at(py_parse_state *st, py_span at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Makes a constant from a number or string token (in the scratch arena). */
mgx_value *py_constant(py_parse_state *st, int kind, py_span tok);

#endif
