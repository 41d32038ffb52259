/* compile.h: the rule compiler's phases and its one entry point.
 *
 * dsl_compile runs, in order: parse (parser.y + lexer.re), sema (names and
 * types), termination (each rule decreases the engine's measure or is marked
 * nonterminating), overlap (no duplicate or shadowed rules), tree (one
 * decision tree per root op) and emit (C). Each phase lives in its own file
 * and reports the first error it finds at a file:line:col. The phase
 * functions are declared here so that tests can run them one at a time.
 */
#ifndef GRAFT_DSL_COMPILE_H
#define GRAFT_DSL_COMPILE_H

#include "ast.h"

#include <stddef.h>

/* ---- sema.c ---- */
bool dsl_sema(dsl_file *f, graft_error *err);

/* Every error of a file, up to DSL_MAX_ERRORS of them (total counts them all).
 * Name and type checks go on with the next rule after a rule's first error,
 * as ISLE does; a syntax error, and the later phases (termination, overlap),
 * still stop at the first. */
#define DSL_MAX_ERRORS 20
typedef struct dsl_diags {
    graft_error items[DSL_MAX_ERRORS];
    int n;     /* items filled, at most DSL_MAX_ERRORS */
    int total; /* errors found */
} dsl_diags;

/* Records one error e of a checking phase: the file's first error also in
 * err (when err is not NULL and *nerrors is 0), every one in d (may be NULL),
 * counted in *nerrors. Returns whether the phase may go on to its next rule:
 * without d it stops at its first error, with d at DSL_MAX_ERRORS. */
bool dsl_diags_note(dsl_diags *d, const graft_error *e, graft_error *err, int *nerrors);

/* dsl_sema recording every rule's first error in diags (may be NULL); err
 * gets the file's first error. */
bool dsl_sema_all(dsl_file *f, dsl_diags *diags, graft_error *err);
/* OPC_* bits of a class name ("unary"), 0 if unknown. */
unsigned dsl_class_bits(const char *name);

/* ---- predicate.c ---- */
/* What can be checked of a predicate without a caller: a unique name that no
 * helper has, distinct and used parameters, a body whose names are its
 * parameters and whose calls name helpers or predicates above it, and some
 * caller. Sema calls it for each predicate before it checks the rules. */
bool dsl_check_predicate(const dsl_file *f, const dsl_predicate *p, graft_error *err);
/* A copy of p's body with call's arguments in place of p's parameters (call
 * is an EX_CALL naming p with p->nparams arguments), unchecked. */
dsl_expr *dsl_expand_predicate(dsl_file *f, const dsl_predicate *p, const dsl_expr *call);

/* ---- termination.c ---- */
enum { DSL_MEASURE_PENDING, DSL_MEASURE_VIEWS, DSL_MEASURE_INSTRUCTIONS, DSL_MEASURE_RANK,
       DSL_MEASURE_ORDER, DSL_MEASURE_COUNT };
/* The measure of a rule's pattern (lhs) and replacement (rhs). The rank
 * component is a bound: the pattern's lowest possible rank sum and the
 * replacement's highest, after the class nodes common to both cancel (0 -> 1,
 * an increase, when it cannot be bounded). */
void dsl_rule_measure(const dsl_rule *r, int lhs[DSL_MEASURE_COUNT], int rhs[DSL_MEASURE_COUNT]);
/* Every rule not marked nonterminating must decrease the measure: each one
 * that does not is an error, recorded as dsl_diags_note says. */
bool dsl_check_termination(dsl_file *f, dsl_diags *diags, graft_error *err);

/* ---- overlap.c ---- */
/* A rule that duplicates an earlier one or can never fire after it is an
 * error, recorded as dsl_diags_note says. */
bool dsl_check_overlap(dsl_file *f, dsl_diags *diags, graft_error *err);

/* ---- undo_pairs.c ---- */
/* Two unguarded `nonterminating` rules, first before second, each of whose
 * replacements has the op structure the other's pattern matches: they can
 * undo each other until the driver's fire budget stops them. */
typedef struct dsl_undo_pair {
    const dsl_rule *first, *second;
} dsl_undo_pair;
/* Fills up to max pairs in file order; returns how many there are. */
int dsl_find_undo_pairs(const dsl_file *f, dsl_undo_pair *pairs, int max);

/* ---- tree.c ---- */
typedef enum dsl_test_kind {
    TEST_OP,        /* op at path is `op` */
    TEST_NOT_OP,
    TEST_CLASS,     /* op at path has one of `classes` */
    TEST_NOT_CLASS,
    TEST_NARGS,     /* exactly n operands */
    TEST_NARGS_MIN, /* at least n operands */
    TEST_ONCE,      /* exactly one use */
    TEST_ATTR,      /* attribute attr_index of op equals lit */
    TEST_SAME,      /* same instruction as at path2 */
    TEST_SAME_ATTR, /* attribute equal to attribute attr_index2 at path2 */
} dsl_test_kind;

enum { DSL_MAX_DEPTH = 16 };

typedef struct dsl_path {
    int depth;
    unsigned char arg[DSL_MAX_DEPTH];
} dsl_path;

typedef struct dsl_test {
    dsl_test_kind kind;
    dsl_path path;
    const op_def *op;
    unsigned classes;
    int n;
    int attr_index;
    const attr_value *lit;
    dsl_path path2;
    const op_def *op2;   /* TEST_SAME_ATTR: op at path2 */
    int attr_index2;
    /* Where the test comes from, for --explain (not compared by
     * dsl_test_equal): the pattern node or attribute, and the capture or
     * attribute name it tests (TEST_SAME, TEST_SAME_ATTR, TEST_ATTR). */
    dsl_loc loc;
    const char *name;
} dsl_test;

/* Where a capture sits in one variant of a rule (variants come from :c). */
typedef struct dsl_binding {
    dsl_path path;
    const op_def *op;    /* SYM_ATTR: the op holding the attribute */
    int attr_index;      /* SYM_ATTR */
    int rest_start;      /* SYM_REST: first operand of the rest */
} dsl_binding;

typedef struct dsl_variant {
    const dsl_rule *rule;
    int number;          /* 0 for the pattern as written, 1.. for :c swaps */
    dsl_test *tests;
    int ntests;
    dsl_binding *bindings; /* one per capture of the rule */
} dsl_variant;

typedef struct dsl_tnode dsl_tnode;
typedef struct dsl_titem {
    dsl_tnode *child;    /* a test and what follows it ... */
    const dsl_variant *leaf; /* ... or a rule variant whose tests all passed */
} dsl_titem;

struct dsl_tnode {
    dsl_test test;       /* unused at a root */
    dsl_titem *items;
    int nitems, cap;
};

/* One decision tree and the root ops that share it: ops to which exactly
 * the same rule variants apply get one tree, reached in one of two ways. */
typedef struct dsl_root {
    const op_def **ops;  /* the root ops, in op-table order */
    int nops;
    int nvariants;       /* rule variants that apply to these ops */
    /* by_class: reached by a class test in the default branch of the switch
     * on the root's op code, `(op->classes & m) != 0` for each of masks
     * (ANDed); classes roots are tested in order, and the first that holds
     * is the op's tree (dsl_build_trees checks this over the whole op
     * table). Otherwise the ops are case labels of that switch. */
    bool by_class;
    unsigned *masks;
    int nmasks;
    dsl_tnode tree;
} dsl_root;

typedef struct dsl_trees {
    dsl_root *roots;     /* case-label roots in op-table order, then class
                            roots in the order they are tested */
    int nroots;
    dsl_variant **variants;
    int nvariants;
} dsl_trees;

/* Builds the decision trees; memory comes from f's arena. */
dsl_trees *dsl_build_trees(dsl_file *f, graft_error *err);
bool dsl_test_equal(const dsl_test *a, const dsl_test *b);
/* Appends a C expression for the instruction at path (root variable "r"). */
void dsl_path_c(const dsl_path *p, char *buf, size_t size);

/* ---- emit.c ---- */
typedef struct dsl_emit_options {
    const char *set_name;    /* rule_set.name: "fold" */
    const char *entry_name;  /* C name of the entry function */
    bool exported;           /* give the entry default visibility (shared objects) */
} dsl_emit_options;

/* Returns malloc'd C source, or NULL with err set. */
char *dsl_emit(dsl_file *f, const dsl_trees *t, const dsl_emit_options *opt, graft_error *err);

/* ---- compile.c ---- */
/* Parses and checks a rule file (every static check). The caller frees the
 * result with dsl_file_free. */
dsl_file *dsl_check(const char *path, const char *text, size_t len, graft_error *err);
/* dsl_check reporting every error it finds in diags (see dsl_sema_all); err
 * gets the first. */
dsl_file *dsl_check_all(const char *path, const char *text, size_t len, dsl_diags *diags,
                        graft_error *err);
/* The whole pipeline: text to C. Returns malloc'd C source. */
char *dsl_compile(const char *path, const char *text, size_t len, const dsl_emit_options *opt,
                  graft_error *err);
/* Reads a file (read_file_all, ir/fileio.h) and runs dsl_compile on it. */
char *dsl_compile_file(const char *path, const dsl_emit_options *opt, graft_error *err);

#endif
