/* attr.h: attribute values carried by instructions.
 *
 * An attribute is a key and a typed value: int, float, bool, string (also
 * enum names and opaque identifiers), int list, float list, or element type.
 * Instructions of known ops hold every attribute their op declares, in the
 * op's declaration order, with defaults filled in (see ir/op.h); opaque ops
 * hold what the dump gave, in dump order. Values live in the graph's arena.
 */
#ifndef GRAFT_ATTR_H
#define GRAFT_ATTR_H

#include "graft.h"
#include "arena.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum attr_kind {
    ATTR_INT,
    ATTR_FLOAT,
    ATTR_BOOL,
    ATTR_STRING,  /* also enum names as written and bare identifiers */
    ATTR_INTS,
    ATTR_FLOATS,
    ATTR_TYPE,
} attr_kind;

typedef struct attr_value {
    attr_kind kind;
    int n;                 /* INTS/FLOATS: element count */
    union {
        int64_t i;         /* INT, BOOL (0/1), TYPE (graft_type) */
        double f;          /* FLOAT */
        const char *s;     /* STRING */
        const int64_t *ints;
        const double *floats;
    } u;
} attr_value;

typedef struct attr {
    const char *key;
    attr_value v;
} attr;

attr_value attr_int(int64_t i);
attr_value attr_float(double f);
attr_value attr_bool(bool b);
attr_value attr_type(graft_type t);
/* The returned value points at s / v; use attr_value_copy to own it. */
attr_value attr_string(const char *s);
attr_value attr_ints(const int64_t *v, int n);
attr_value attr_floats(const double *v, int n);
/* Deep copy into the arena. */
attr_value attr_value_copy(arena *a, attr_value v);
bool attr_value_equal(attr_value a, attr_value b);
/* Prints as MIGraphX does: 3, 0.0001, bools as 1/0, {1, 2}, float_type,
 * strings as bare identifiers when they are identifiers, else quoted.
 * Floats print with enough digits to read back exactly. Returns the length
 * snprintf would have written. */
int attr_value_print(attr_value v, char *buf, size_t size);

/* Finds key in a list; NULL if absent. */
const attr *attr_find(const attr *attrs, int n, const char *key);

/* v truncated toward zero into *out, where v is a number int64_t holds:
 * false for NaN, the infinities and anything outside [-2^63, 2^63), whose
 * conversion C leaves undefined. */
bool double_to_int64(double v, int64_t *out);

#endif
