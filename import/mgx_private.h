/* mgx_private.h: what the two MIGraphX importers (mgx_py.c, mgx_json.c) share.
 *
 * Both formats end in the same few questions: is this value a valid
 * attribute for this op, is this a valid shape, what bytes does this literal
 * hold. The values a script computes and the values a JSON file holds are the
 * same small tree (mgx_value: none, bools, numbers, strings, lists, objects),
 * so the answers live once, in mgx_common.c. The script evaluator adds its
 * own object kinds (program, module, instruction, ...) to the same struct.
 * Failures write a reason into a caller's buffer; the caller adds where.
 * Nothing here is public.
 */
#ifndef GRAFT_MGX_PRIVATE_H
#define GRAFT_MGX_PRIVATE_H

#include "arena.h"
#include "ir.h"
#include "mgx.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum mgx_kind {
    MGX_NONE,
    MGX_BOOL,      /* i: 0 or 1 */
    MGX_INT,       /* i */
    MGX_FLOAT,     /* f */
    MGX_STRING,    /* s, len (NUL-terminated, may hold NULs) */
    MGX_LIST,      /* items, n */
    MGX_DICT,      /* keys, items, n */
    /* script objects (mgx_py.c) */
    MGX_NAMESPACE, /* an imported module: s is its name ("migraphx", "numpy") */
    MGX_METHOD,    /* a bound attribute not yet called: self . s */
    MGX_PROGRAM,
    MGX_MODULE,    /* mod */
    MGX_SHAPE,     /* sh */
    MGX_ARGUMENT,  /* sh plus self (a LIST of values) or i (a generator seed) */
    MGX_OP,        /* s: op name; keys/items: its keyword attributes */
    MGX_INS,       /* ins */
} mgx_kind;

typedef struct mgx_value mgx_value;
struct mgx_value {
    mgx_kind kind;
    int line, col;           /* where it was written (0 when made up) */
    int64_t i;
    double f;
    const char *s;
    size_t len;
    mgx_value **items;
    const char **keys;       /* DICT / OP: NUL-terminated */
    int n;
    mgx_value *self;         /* METHOD: the receiver; ARGUMENT: the value list */
    shape sh;                /* SHAPE, ARGUMENT */
    bool generated;          /* ARGUMENT: from generate_argument */
    module *mod;             /* MODULE */
    ins *ins;                /* INS */
    int name_line, name_col; /* OP: where its name was written */
};

const char *mgx_kind_name(mgx_kind k);

/* An element type from "float_type" / "float" or MIGraphX's type number. */
bool mgx_type_from_value(const mgx_value *v, graft_type *t);

/* Builds a shape from lens and optional strides (NULL: standard), checking
 * rank, sizes and overflow. */
bool mgx_make_shape(graft_type t, int rank, const int64_t *lens, const int64_t *strides,
                    shape *out, char *why, size_t whylen);

/* Reads a list of integers (lens, strides); n gets its length. */
bool mgx_int_list(const mgx_value *v, int64_t *out, int max, int *n, char *why, size_t whylen);

/* A known op's attribute from a value, converted to the kind its spec
 * declares (ints for enum names, type names or numbers for types, ...).
 * Lists are copied into arena a. */
bool mgx_attr_value(arena *a, const op_def *op, const attr_spec *spec, const mgx_value *v,
                    attr_value *out, char *why, size_t whylen);
/* An unknown op's attribute, typed by the value (JSON opaque ops). */
bool mgx_opaque_attr_value(arena *a, const mgx_value *v, attr_value *out, char *why,
                           size_t whylen);

/* Fills a literal's memory (shape_element_space elements in memory order)
 * from a seed: see docs/mgx-import.md ("generated data"). */
void mgx_fill_generated(const shape *sh, uint64_t seed, void *data);
/* Stores a list of numbers (nested lists are flattened) into a literal's
 * memory: one value per element in row-major order, or one per element of
 * memory (element space). */
bool mgx_store_values(const shape *sh, const mgx_value *list, void *data, char *why,
                      size_t whylen);
/* Decodes standard base64 (with '=' padding) into out (exactly want bytes).
 * False if the text is not base64 of that length. */
bool mgx_base64_decode(const char *p, size_t n, void *out, size_t want);

/* Names the dump can write back (import/dump_syntax.h's rules): parameter
 * names, and op names / attribute keys of opaque ops. */
bool mgx_param_name_ok(const char *s, size_t len);
bool mgx_word_ok(const char *s, size_t len);

/* A table from names (not copied: they must outlive it) to pointers. */
typedef struct mgx_table_slot {
    const char *name;
    size_t len;
    void *v;
} mgx_table_slot;
typedef struct mgx_table {
    mgx_table_slot *slots;
    size_t cap, n;
} mgx_table;
/* Sets name to v (replacing); false when out of memory. */
bool mgx_table_set(mgx_table *t, const char *name, size_t len, void *v);
void *mgx_table_get(const mgx_table *t, const char *name, size_t len);
void mgx_table_free(mgx_table *t);

/* Counts literal bytes against a limit: false if adding bytes passes it. */
typedef struct mgx_budget {
    size_t limit; /* 0: none */
    size_t used;
} mgx_budget;
bool mgx_budget_take(mgx_budget *b, size_t bytes);

/* Appends one instruction of a known op, with its submodules when it has
 * some (module_insert_with_modules). attrs may be partial (defaults filled). */
ins *mgx_add_instruction(module *m, const op_def *op, const attr *attrs, int nattrs,
                         ins *const *args, int nargs, module *const *mods, int nmods,
                         graft_error *err);

#endif
