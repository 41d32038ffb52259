/* ast.h: the syntax tree of a .rules file, shared by every compiler phase.
 *
 * The parser (parser.y) builds it, sema.c annotates it (resolved ops, classes,
 * attribute indexes, expression types, capture kinds), termination.c and
 * overlap.c read it, tree.c flattens its patterns into test sequences and
 * emit.c turns it into C. Everything lives in one arena owned by the
 * dsl_file and freed with it, so no phase frees anything piecemeal. Every node
 * carries the line and column where it starts; every diagnostic any phase
 * reports points at one of them.
 */
#ifndef GRAFT_DSL_AST_H
#define GRAFT_DSL_AST_H

#include "api.h"
#include "arena.h"
#include "attr.h"
#include "error.h"
#include "op.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct dsl_loc {
    int line, col;
} dsl_loc;

/* ---- types of guard and attribute expressions ---- */
/* The kinds of values generated code computes with (dsl/api.h), so that a
 * type is its value kind: one definition, no table between them. */
typedef enum dsl_type {
    TY_ERROR = 0, /* already reported */
    TY_BOOL = RV_BOOL,
    TY_INT = RV_INT,
    TY_FLOAT = RV_FLOAT,
    TY_INTS = RV_INTS,
    TY_FLOATS = RV_FLOATS,
    TY_TYPE = RV_TYPE,     /* element type: float_type, ... */
    TY_SHAPE = RV_SHAPE,
    TY_INS = RV_INS,       /* an instruction (operand or captured instruction) */
    TY_STRING = RV_STRING,
} dsl_type;

const char *dsl_type_name(dsl_type t);
/* The expression type an attribute of this kind has. */
dsl_type dsl_type_of_attr_kind(attr_kind k);

/* ---- literal values (attribute patterns) ---- */
typedef enum dsl_value_kind { DV_INT, DV_FLOAT, DV_INTS, DV_FLOATS, DV_IDENT, DV_BOOL } dsl_value_kind;

typedef struct dsl_value {
    dsl_value_kind kind;
    int n;             /* lists */
    int64_t i;         /* INT, BOOL */
    double f;          /* FLOAT */
    int64_t *ints;     /* INTS */
    double *floats;    /* FLOATS */
    const char *ident; /* IDENT: an enum name, a type name, ... */
} dsl_value;

/* ---- patterns ---- */
typedef enum dsl_pat_kind {
    PAT_CAPTURE,  /* x: any operand, bound to x */
    PAT_WILDCARD, /* _ */
    PAT_OP,       /* op[attrs](args), including @literal / @param */
    PAT_CLASS,    /* <class>[...](args) */
} dsl_pat_kind;

typedef struct dsl_attr_pat {
    const char *key;
    dsl_loc loc;
    const char *bind;  /* attr=name: binds; else NULL and value is required */
    dsl_value value;
    dsl_loc value_loc;
    /* sema */
    int index;         /* in the op's declaration */
    attr_kind kind;
    attr_value lit;    /* value converted to the attribute's kind */
    struct dsl_attr_pat *next;
} dsl_attr_pat;

typedef struct dsl_pattern dsl_pattern;
struct dsl_pattern {
    dsl_pat_kind kind;
    dsl_loc loc;
    const char *name;      /* op name, class name (without <>) or capture name */
    bool negated;          /* !op / !<class>: any operand whose op is not this */
    const char *bind;      /* `bind = pattern` */
    dsl_loc bind_loc;
    dsl_attr_pat *attrs;
    bool has_args;         /* operands were written (possibly empty) */
    dsl_pattern **args;
    int nargs;
    const char *rest;      /* xs... */
    dsl_loc rest_loc;
    bool commutative;      /* :c */
    bool once;             /* :once */
    /* sema */
    const op_def *op;
    unsigned classes;
    const op_def *attr_op; /* whose table `attrs` index: op, or for a class the op that stands
                              for all of its ops (sema: they share each attribute's slot) */
};

/* ---- expressions (guards, lets, computed attributes) ---- */
typedef enum dsl_expr_kind {
    EX_INT,
    EX_FLOAT,
    EX_BOOL,
    EX_LIST,   /* {a, b, ...} */
    EX_NAME,   /* a capture, a let, or a type name */
    EX_CALL,   /* helper(args) */
    EX_FIELD,  /* e.shape / .lens / .strides / .type / .rank / .ATTR */
    EX_NOT,
    EX_NEG,
    EX_BINARY, /* op: one of the DSL_OP_* codes */
} dsl_expr_kind;

/* Comparisons and arithmetic are the API's operators (dsl/api.h), which
 * generated code passes to graft_rule_api.compare and .arith by name; && and
 * || are compiled to branches and never reach the API. */
enum dsl_binop {
    DSL_OP_OR = 1, DSL_OP_AND = 2,
    DSL_OP_EQ = RULE_OP_EQ, DSL_OP_NE = RULE_OP_NE, DSL_OP_LT = RULE_OP_LT, DSL_OP_LE = RULE_OP_LE,
    DSL_OP_GT = RULE_OP_GT, DSL_OP_GE = RULE_OP_GE,
    DSL_OP_ADD = RULE_OP_ADD, DSL_OP_SUB = RULE_OP_SUB, DSL_OP_MUL = RULE_OP_MUL,
    DSL_OP_DIV = RULE_OP_DIV,
};
/* sema.c and emit.c rely on this order: OR, AND, then the comparisons
 * EQ..GE, then the arithmetic ADD..DIV, each run without gaps. */
_Static_assert(RULE_OP_EQ == DSL_OP_AND + 1 && RULE_OP_NE == RULE_OP_EQ + 1 &&
                   RULE_OP_LT == RULE_OP_NE + 1 && RULE_OP_LE == RULE_OP_LT + 1 &&
                   RULE_OP_GT == RULE_OP_LE + 1 && RULE_OP_GE == RULE_OP_GT + 1 &&
                   RULE_OP_ADD == RULE_OP_GE + 1 && RULE_OP_SUB == RULE_OP_ADD + 1 &&
                   RULE_OP_MUL == RULE_OP_SUB + 1 && RULE_OP_DIV == RULE_OP_MUL + 1,
               "dsl_binop's order (dsl/ast.h) must follow rule_operator's (dsl/api.h)");

/* What a name in an expression or replacement refers to (sema). */
typedef enum dsl_sym_kind {
    SYM_NONE,
    SYM_INS,   /* an operand or an instruction capture */
    SYM_ATTR,  /* attr=name */
    SYM_REST,  /* xs... */
    SYM_LET,   /* let name = expr */
    SYM_TYPE,  /* float_type, ... */
} dsl_sym_kind;

enum dsl_field {
    FIELD_SHAPE = 1, FIELD_LENS, FIELD_STRIDES, FIELD_TYPE, FIELD_RANK, FIELD_ELEMENTS, FIELD_ATTR,
};

typedef struct dsl_expr dsl_expr;
struct dsl_expr {
    dsl_expr_kind kind;
    dsl_loc loc;
    int op;                 /* EX_BINARY */
    int64_t i;              /* EX_INT, EX_BOOL */
    double f;               /* EX_FLOAT */
    const char *name;       /* EX_NAME, EX_CALL (helper), EX_FIELD (field name) */
    dsl_expr *a, *b;        /* operands; EX_FIELD: a is the object */
    dsl_expr **args;        /* EX_CALL, EX_LIST */
    int nargs;
    /* sema */
    dsl_type type;
    dsl_sym_kind sym;       /* EX_NAME */
    int sym_index;          /* EX_NAME: capture index / let index; SYM_TYPE: graft_type */
    int field;              /* EX_FIELD: FIELD_* */
    int attr_index;         /* EX_FIELD of FIELD_ATTR */
    const op_def *attr_op;  /* EX_FIELD of FIELD_ATTR */
    int helper;             /* EX_CALL: registry index */
};

/* ---- clauses between pattern and replacement ---- */
typedef struct dsl_clause {
    bool is_let;            /* let name = expr; else: if expr */
    const char *name;
    dsl_loc loc;
    dsl_expr *expr;
    struct dsl_clause *next;
} dsl_clause;

/* ---- replacements ---- */
typedef enum dsl_repl_kind {
    RP_CAPTURE, /* => x */
    RP_BUILD,   /* => op[attr=expr](args): a new instruction */
    RP_REUSE,   /* => c[attr=expr](args): c's op and attributes, some changed */
    RP_REST,    /* xs... inside an argument list */
    RP_REGION,  /* => region(a, b, c) -> (b, c) */
    RP_FOLD,    /* fold(c): a new literal holding c's value (args[0]: the capture) */
    RP_GROW,    /* absorb_producer(r, p), absorb_consumer(r, c), merge_siblings(a, b),
                   split_tail_into(p, c) */
} dsl_repl_kind;

/* The region-growing replacements (RP_GROW), by their reserved names. */
typedef enum dsl_grow_kind {
    GROW_PRODUCER = 1, /* absorb_producer(r, p): p is an operand of r */
    GROW_CONSUMER,     /* absorb_consumer(r, c): c reads r */
    GROW_SIBLINGS,     /* merge_siblings(a, b): a and b read a common input */
    GROW_SPLIT,        /* split_tail_into(p, c): c reads p; p's tail only c reads moves into c */
} dsl_grow_kind;

typedef struct dsl_attr_set {
    const char *key;
    dsl_loc loc;
    dsl_expr *expr;
    int index;              /* sema */
    attr_kind kind;         /* sema */
    struct dsl_attr_set *next;
} dsl_attr_set;

typedef struct dsl_repl dsl_repl;
struct dsl_repl {
    dsl_repl_kind kind;
    dsl_loc loc;
    const char *name;       /* op or capture name */
    dsl_attr_set *sets;
    bool has_args;
    dsl_repl **args;        /* RP_REGION: members */
    int nargs;
    dsl_repl **outputs;     /* RP_REGION */
    int noutputs;
    /* sema */
    const op_def *op;       /* RP_BUILD; RP_REUSE when the capture's op is known */
    unsigned classes;       /* RP_REUSE of a class capture */
    const op_def *attr_op;  /* whose table `sets` index: op, or for a class capture the op
                               that stands for the class (sema: same slot in every op) */
    int capture;            /* RP_CAPTURE / RP_REUSE / RP_REST / RP_FOLD: capture index */
    int grow;               /* RP_GROW: dsl_grow_kind; args: the two captures */
};

/* ---- rules and files ---- */
enum dsl_rule_flags {
    DSL_RULE_NONTERMINATING = 1u << 0,
};

typedef struct dsl_capture {
    const char *name;
    dsl_sym_kind kind;      /* SYM_INS, SYM_ATTR or SYM_REST */
    dsl_loc loc;
    dsl_pattern *pat;       /* SYM_INS: the pattern it was bound to (NULL for a bare operand's first... never) */
    dsl_attr_pat *attr;     /* SYM_ATTR */
    dsl_pattern *owner;     /* SYM_ATTR / SYM_REST: the op pattern that holds it */
} dsl_capture;

typedef struct dsl_rule {
    const char *name;
    dsl_loc loc;
    unsigned flags;
    dsl_pattern *pattern;
    dsl_clause *clauses;
    dsl_repl *repl;
    int index;              /* position in the file */
    /* sema */
    dsl_capture *captures;
    int ncaptures;
    int nlets;
    bool fallible;          /* has guards or fallible lets: cannot shadow */
} dsl_rule;

/* A named guard: `predicate NAME(p, q) = EXPR`. A call NAME(a, b) in a
 * rule's guard, let or attribute means EXPR with a and b in place of p and
 * q (predicate.c), so that a guard several rules share is written once and
 * later phases see only the expression it stands for. */
typedef struct dsl_predicate {
    const char *name;
    dsl_loc loc;
    dsl_expr **params;      /* EX_NAME nodes: the parameters' names and places */
    int nparams;
    dsl_expr *body;
    int index;              /* among the file's predicates: it may call those before it */
} dsl_predicate;

typedef struct dsl_file {
    arena mem;
    const char *path;       /* as given, used in diagnostics */
    const char *text;       /* NUL-terminated copy */
    dsl_rule **rules;
    int nrules, rules_cap;
    dsl_predicate **predicates;
    int npredicates, predicates_cap;
} dsl_file;

/* ---- construction (parser) ---- */
dsl_file *dsl_file_new(const char *path, const char *text, size_t len);
void dsl_file_free(dsl_file *f);
void dsl_file_add_rule(dsl_file *f, dsl_rule *r);
void dsl_file_add_predicate(dsl_file *f, dsl_predicate *p);
void *dsl_alloc(dsl_file *f, size_t size);
const char *dsl_strndup(dsl_file *f, const char *s, size_t n);

/* Growable pointer lists used while parsing. */
typedef struct dsl_list {
    void **items;
    int n, cap;
} dsl_list;
dsl_list *dsl_list_new(dsl_file *f);
void dsl_list_push(dsl_file *f, dsl_list *l, void *item);

/* Reports err at loc in f. Returns false. */
bool dsl_error(graft_error *err, const dsl_file *f, dsl_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Looks a rule up by name; NULL if absent. */
const dsl_rule *dsl_find_rule(const dsl_file *f, const char *name);
/* Looks a predicate up by name; NULL if absent. */
const dsl_predicate *dsl_find_predicate(const dsl_file *f, const char *name);

/* Parses text into f; reports the first syntax error. (parser.y) */
bool dsl_parse(dsl_file *f, graft_error *err);

#endif
