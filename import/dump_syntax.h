/* dump_syntax.h: what the dump lexer, parser and graph builder share.
 *
 * Reading a dump is two steps. The re2c lexer (dump_lex.re) and the bison
 * parser (dump_parse.y) turn the text into a small syntax tree held in a
 * scratch arena: modules, their instruction lines, and for each line the
 * tokens it was made of, with their line and column. The builder
 * (dump_read.c) then turns that tree into a graph through ir/ir.h. The
 * split exists because a module may be referenced before it is defined, and a
 * region's shape can only be computed once its submodule is built; it also
 * keeps every semantic error pointing at the token that caused it.
 *
 * Most dumps take a fast path first (dump_fast.c): each line is read by
 * hand into the same statement structure and built at once, so no tree of
 * the whole file is kept; a dump it is not sure of goes the two-step way.
 *
 * Token text is never copied: a span points into the NUL-terminated copy of
 * the input that lives as long as the parse. Nothing here is part of the
 * public API; only dump_*.c include this header.
 */
#ifndef GRAFT_DUMP_SYNTAX_H
#define GRAFT_DUMP_SYNTAX_H

#include "arena.h"
#include "error.h"
#include "graft.h"
#include "shape.h"

#include <stdbool.h>
#include <stddef.h>

/* A token's text and where it starts (1-based line and column). */
typedef struct dump_span {
    const char *p;
    int len;
    int line, col;
} dump_span;

typedef enum dump_value_kind {
    DUMP_INT,    /* 12, -3 */
    DUMP_FLOAT,  /* 1e-05, 0.5, -inf, -nan */
    DUMP_WORD,   /* max, float_type, inf, mlir_convolution_add */
    DUMP_STRING, /* "quoted" (tok includes the quotes) */
    DUMP_LIST,   /* { v, v, ... } of scalar values */
} dump_value_kind;

typedef struct dump_value {
    dump_value_kind kind;
    dump_span tok;              /* the token; a list's '{' */
    struct dump_value *items;   /* DUMP_LIST: first item, linked by next */
    int nitems;
    struct dump_value *next;    /* next sibling in a list */
} dump_value;

/* A chain of values with its tail, for left-recursive list rules. */
typedef struct dump_value_list {
    dump_value *head, *tail;
    int n;
} dump_value_list;

typedef struct dump_attr {
    dump_span key;
    dump_value *value;
    struct dump_attr *next;
} dump_attr;

typedef struct dump_attr_list {
    dump_attr *head, *tail;
    int n;
} dump_attr_list;

/* An operand or a submodule reference. */
typedef struct dump_ref {
    dump_span name;
    bool quoted;                /* a module name written as a string */
    struct dump_ref *next;
} dump_ref;

typedef struct dump_ref_list {
    dump_ref *head, *tail;
    int n;
} dump_ref_list;

/* A shape as written: `type, {lens}, {strides}` or a tuple `[s, s]`. */
typedef struct dump_shape {
    dump_span at;               /* its first token */
    bool tuple;
    dump_span type;             /* not a tuple: the type name */
    dump_value *lens, *strides; /* not a tuple: two DUMP_LIST values */
    /* The fast path reads plain lists of small non-negative integers
     * straight into numbers: the two lists then have no items, and these
     * hold their values (lens then strides). */
    bool dims_read;
    int nlens, nstrides;
    int64_t dims[2 * SHAPE_MAX_RANK];
    struct dump_value dims_lists[2]; /* what lens and strides point at then */
    struct dump_shape *elems;   /* a tuple: its element shapes, linked by next */
    int nelems;
    struct dump_shape *next;
} dump_shape;

typedef struct dump_shape_list {
    dump_shape *head, *tail;
    int n;
} dump_shape_list;

typedef enum dump_literal_kind {
    DUMP_LIT_VALUES, /* {1, 2, 3} (also {}) */
    DUMP_LIT_ELIDED, /* { ... } */
    DUMP_LIT_BASE64, /* {b64:...} */
} dump_literal_kind;

typedef struct dump_literal {
    dump_literal_kind kind;
    dump_span at;               /* the '{' */
    dump_value *values;         /* DUMP_LIT_VALUES, linked by next */
    int nvalues;
    dump_span base64;           /* DUMP_LIT_BASE64: the b64:... token */
} dump_literal;

/* One instruction line: name = op[attrs]{literal}(operands), [modules] -> shape */
typedef struct dump_stmt {
    dump_span name;
    dump_span op;               /* the op word; for @param:x the whole token */
    bool is_param;
    dump_span param;            /* @param: the parameter name part */
    dump_attr *attrs;
    int nattrs;
    dump_literal *literal;      /* a {...} body after the op, or NULL */
    bool has_operands;          /* an operand list in parentheses was written */
    dump_ref *args;
    int nargs;
    dump_ref *mods;
    int nmods;
    dump_shape *tail;           /* NULL when the `-> shape` tail was left out */
    struct dump_stmt *next;
} dump_stmt;

typedef struct dump_mod {
    dump_span header;           /* the module name string token; p NULL for a bare main */
    const char *name;           /* unescaped, in the scratch arena */
    dump_stmt *first, *last;
    int nstmts;
    struct dump_mod *next;
    /* used by the builder */
    void *built;                /* the graph's module */
    int state;
} dump_mod;

/* Where the lexer is inside a line, for readable syntax errors. */
enum { DUMP_NEST_MAX = 32 };
typedef enum dump_nest {
    NEST_OPERANDS, NEST_ATTRS, NEST_MODULES, NEST_TUPLE, NEST_BRACES,
} dump_nest;

typedef struct dump_context {
    int prev;                   /* kind of the token before the current one (0: none) */
    int prev2;                  /* and of the one before that */
    dump_span prev_tok;
    int depth;                  /* bracket nesting (may exceed DUMP_NEST_MAX) */
    unsigned char nest[DUMP_NEST_MAX];
    bool seen_equals;           /* '=' seen on this line */
    bool seen_arrow;            /* '->' seen on this line */
} dump_context;

typedef struct dump_parse_state {
    /* input: a NUL-terminated copy */
    const char *text, *cursor, *limit, *marker, *token, *line_start;
    int line;
    bool line_has_tokens;       /* emit a final end of line before end of file */
    bool at_end;
    /* context for syntax errors: now is after the latest token; before is
     * the context the latest (lookahead) token was read in */
    dump_context now, before;
    int last;                   /* kind of the latest token */
    dump_span last_tok;
    /* results */
    arena scratch;
    dump_mod *mods, *mods_last;
    dump_mod *current;
    const char *filename;
    graft_error *err;
    bool failed;                /* err holds the message */
} dump_parse_state;

/* The fast path (dump_fast.c): reads the next line at st->cursor (bounded
 * by st->limit; the text need not be NUL-terminated). A statement goes to
 * *stmt, allocated in st->scratch; a `module:` header's name token (with
 * its quotes, no escapes inside) to *module_name. Blank and comment lines
 * are skipped; st->cursor, st->line and st->line_start follow. Anything
 * doubtful returns DUMP_FAST_BAIL without an error: the caller then reads
 * the whole text with the parser, which has the last word. */
enum { DUMP_FAST_STMT, DUMP_FAST_MODULE, DUMP_FAST_END, DUMP_FAST_BAIL };
int dump_fast_line(dump_parse_state *st, dump_stmt **stmt, dump_span *module_name);

/* The parser (dump_parse.y); returns 0 on success. */
int dump_yyparse(dump_parse_state *st);

/* Records an error at a span (first error wins). Returns false. */
bool dump_error_at(dump_parse_state *st, dump_span at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The undone escapes of a string token (with its quotes), in the scratch
 * arena; NULL when out of memory. */
char *dump_unquote(arena *a, dump_span tok, size_t *len);

/* True if s is written as one name token (an identifier, @N, a:b:@2, ...), so
 * that the writer can print it bare. */
bool dump_is_word(const char *s, size_t len);
/* True if s can follow "@param:" (letters, digits, _ @ . : / and '-' before
 * one of those). */
bool dump_is_param_name(const char *s, size_t len);

/* Stores a number into one element of a float type t (rounding to nearest
 * even for half and bf16; integer elements: tensor_store_integer_bits).
 * Shared by the reader and by the writer's check that a value reads back
 * exactly. */
void dump_store_real(graft_type t, double d, void *at);
/* Whether the integer v is a value of type t: 0 or 1 for bool, within range
 * for the integer types; any for the float types. Shared by the dump reader
 * and the MIGraphX importers' literal checks. */
bool dump_int_fits(graft_type t, int64_t v);

/* Fills every element of memory of a literal of shape sh (element space, in
 * memory order) from a splitmix64 generator started at state: floats are
 * k/128 for k in [-128, 128) (exact in every float type), integers 0..3,
 * bools 0 or 1. Behind the dump's elided `{ ... }` literals and the MIGraphX
 * importers' generated literals, so both make data the same way. */
void dump_fill_generated(const shape *sh, uint64_t state, void *data);

#endif
