/* op.c: the op table as one searchable whole, attribute access, and the one
 * entry point through which every shape rule is called.
 *
 * Each op family keeps its own table (ops_builtin.c, ops_pointwise.c,
 * ops_reduce.c, ops_view.c, ops_compute.c, ops_move.c, ops_pending.c,
 * ops_region.c). This file gathers
 * them once into a name-sorted index (op_all) with a hash index over it, so
 * that op_find is a probe or two (the dump reader calls it for every
 * instruction), numbers the ops in family order (op_def.code, what generated
 * rule code switches on: the ops of a family get neighbouring codes, so a
 * switch over related ops is one dense jump table; op_by_code is the way
 * back), and it owns op_compute_shape: the arity check and the tuple check
 * every shape computation goes through. Calls are counted per graph by the IR
 * (graph.shape_calls), not here: two graphs optimised on two threads at once
 * each get exact counts.
 */
#include "hash.h"
#include "ops_util.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* Room for every op of every family; the build fails a unit test
 * (test_ops_doc, test_emit) long before a family outgrows it, and add_family
 * stops at the limit rather than writing past it. */
enum { OPS_MAX = 1024 };

static const op_def *sorted_ops[OPS_MAX];
static const op_def *coded_ops[OPS_MAX]; /* by code - 1 */
static int sorted_count;
static pthread_once_t sorted_once = PTHREAD_ONCE_INIT;

static int compare_names(const char *a, size_t alen, const char *b)
{
    size_t blen = strlen(b);
    int c = memcmp(a, b, alen < blen ? alen : blen);
    if (c)
        return c;
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

/* Numbers the family's ops after those already added and files them in
 * the name index. The tables are written only here, once (pthread_once):
 * every op_def pointer anyone holds came from op_find, op_all or
 * op_by_code, after this. */
static void add_family(op_def *table, int count)
{
    for (int i = 0; i < count && sorted_count < OPS_MAX; i++) {
        op_def *d = &table[i];
        d->code = sorted_count + 1;
        coded_ops[sorted_count] = d;
        int at = sorted_count;
        while (at > 0 && compare_names(d->name, strlen(d->name), sorted_ops[at - 1]->name) < 0) {
            sorted_ops[at] = sorted_ops[at - 1];
            at--;
        }
        sorted_ops[at] = d;
        sorted_count++;
    }
}

/* A hash index over the sorted table, built with it: op_find is one probe
 * or two instead of a binary search of strlen + memcmp steps. */
enum { OPS_HASH = 4096 };
static const op_def *hashed_ops[OPS_HASH];

static size_t name_hash(const char *p, size_t len)
{
    uint64_t h = hash_bytes(HASH_FNV_OFFSET, p, len);
    return (size_t)(h ^ (h >> 29)) & (OPS_HASH - 1);
}

static void build_hash(void)
{
    for (int i = 0; i < sorted_count; i++) {
        const char *n = sorted_ops[i]->name;
        size_t k = name_hash(n, strlen(n));
        while (hashed_ops[k])
            k = (k + 1) & (OPS_HASH - 1);
        hashed_ops[k] = sorted_ops[i];
    }
}

static void build_index(void)
{
    add_family(ops_builtin_table, ops_builtin_count);
    add_family(ops_pointwise_table, ops_pointwise_count);
    add_family(ops_reduce_table, ops_reduce_count);
    add_family(ops_view_table, ops_view_count);
    add_family(ops_compute_table, ops_compute_count);
    add_family(ops_move_table, ops_move_count);
    add_family(ops_pending_table, ops_pending_count);
    add_family(ops_region_table, ops_region_count);
    add_family(ops_index_table, ops_index_count);
    add_family(ops_resize_table, ops_resize_count);
    add_family(ops_deconv_table, ops_deconv_count);
    add_family(ops_order_table, ops_order_count);
    add_family(ops_vision_table, ops_vision_count);
    add_family(ops_linalg_table, ops_linalg_count);
    add_family(ops_signal_table, ops_signal_count);
    add_family(ops_data_dependent_table, ops_data_dependent_count);
    add_family(ops_control_table, ops_control_count);
    build_hash();
}

const op_def *op_find_n(const char *name, size_t len)
{
    if (!name)
        return NULL;
    pthread_once(&sorted_once, build_index);
    for (size_t k = name_hash(name, len);; k = (k + 1) & (OPS_HASH - 1)) {
        const op_def *d = hashed_ops[k];
        if (!d)
            return NULL;
        if (compare_names(name, len, d->name) == 0)
            return d;
    }
}

const op_def *op_find(const char *name) { return name ? op_find_n(name, strlen(name)) : NULL; }

const op_def *const *op_all(int *count)
{
    pthread_once(&sorted_once, build_index);
    if (count)
        *count = sorted_count;
    return sorted_ops;
}

const op_def *op_by_code(int code)
{
    pthread_once(&sorted_once, build_index);
    return code >= 1 && code <= sorted_count ? coded_ops[code - 1] : NULL;
}

/* ---- the opaque def ---- */

static bool opaque_shape(const op_call *call, shape *out, graft_error *err)
{
    (void)call;
    (void)out;
    return error_set(err, "unknown op: shape must be given");
}

static const op_def opaque_def = {
    .name = "opaque",
    .classes = OPC_OPAQUE,
    .min_args = 0,
    .max_args = -1,
    .attrs = NULL,
    .nattrs = 0,
    .compute_shape = opaque_shape,
};

const op_def *op_opaque(void) { return &opaque_def; }

/* ---- attributes ---- */

int op_attr_index(const op_def *op, const char *name)
{
    if (!op || !name)
        return -1;
    /* The same pointer is the same name: callers usually pass the op
     * table's own string or a literal the linker merged with it, and are
     * answered without a call to strcmp. Same result either way: the first
     * entry whose name equals name. */
    for (int i = 0; i < op->nattrs; i++)
        if (op->attrs[i].name == name || strcmp(op->attrs[i].name, name) == 0)
            return i;
    return -1;
}

const attr_value *op_attr(const op_call *call, const char *name)
{
    int i = op_attr_index(call->op, name);
    if (i < 0 || !call->attrs)
        return NULL;
    return &call->attrs[i].v;
}

int64_t op_attr_int(const op_call *call, const char *name)
{
    const attr_value *v = op_attr(call, name);
    if (!v)
        return 0;
    switch (v->kind) {
    case ATTR_FLOAT: {
        int64_t whole;
        return double_to_int64(v->u.f, &whole) ? whole : 0;
    }
    case ATTR_INTS: return v->n > 0 ? v->u.ints[0] : 0;
    case ATTR_STRING:
    case ATTR_FLOATS: return 0;
    default: return v->u.i;
    }
}

double op_attr_float(const op_call *call, const char *name)
{
    const attr_value *v = op_attr(call, name);
    if (!v)
        return 0;
    switch (v->kind) {
    case ATTR_FLOAT: return v->u.f;
    case ATTR_FLOATS: return v->n > 0 ? v->u.floats[0] : 0;
    case ATTR_INTS: return v->n > 0 ? (double)v->u.ints[0] : 0;
    case ATTR_STRING: return 0;
    default: return (double)v->u.i;
    }
}

const int64_t *op_attr_ints(const op_call *call, const char *name, int *n)
{
    const attr_value *v = op_attr(call, name);
    if (!v || v->kind != ATTR_INTS || v->n <= 0 || !v->u.ints) {
        if (n)
            *n = 0;
        return NULL;
    }
    if (n)
        *n = v->n;
    return v->u.ints;
}

int op_enum_value(const attr_spec *spec, const char *name, size_t len)
{
    if (!spec || !spec->enum_names || !name)
        return -1;
    for (int i = 0; spec->enum_names[i]; i++)
        if (strlen(spec->enum_names[i]) == len && memcmp(spec->enum_names[i], name, len) == 0)
            return i;
    return -1;
}

/* Appends the k-th name to the ", "-separated list at buf[*at] unless fewer
 * than 64 bytes are left; false once the list is full. */
static bool add_listed_name(char *buf, size_t size, size_t *at, int k, const char *name)
{
    if (*at + 64 >= size)
        return false;
    *at += (size_t)snprintf(buf + *at, size - *at, "%s%s", k ? ", " : "", name);
    return true;
}

void op_enum_names_text(const attr_spec *spec, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = 0;
    for (int k = 0; spec->enum_names[k] && add_listed_name(buf, size, &at, k, spec->enum_names[k]); k++)
        ;
}

void op_attr_names_text(const op_def *op, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = 0;
    for (int k = 0; k < op->nattrs && add_listed_name(buf, size, &at, k, op->attrs[k].name); k++)
        ;
}

/* ---- shape computation ---- */

static bool check_arity(const op_call *call, graft_error *err)
{
    const op_def *op = call->op;
    int n = call->ninputs;
    if (n >= op->min_args && (op->max_args < 0 || n <= op->max_args))
        return true;
    const char *noun = op->min_args == 1 && (op->max_args == 1 || op->max_args < 0)
                           ? "operand"
                           : "operands";
    if (op->max_args < 0)
        return error_set(err, "%s: expects at least %d %s, got %d", op->name, op->min_args, noun,
                         n);
    if (op->min_args == op->max_args)
        return error_set(err, "%s: expects %d %s, got %d", op->name, op->min_args, noun, n);
    return error_set(err, "%s: expects %d to %d operands, got %d", op->name, op->min_args,
                     op->max_args, n);
}

/* Only builtins and get_tuple_elem take a tuple (a multi-output region's
 * result); everything else needs tensors whose lens and strides the rules can
 * do arithmetic on without overflow. */
static bool check_no_tuples(const op_call *call, graft_error *err)
{
    const op_def *op = call->op;
    if (op->classes & (OPC_BUILTIN | OPC_OPAQUE) ||
        (op->name[0] == 'g' && strcmp(op->name, "get_tuple_elem") == 0))
        return true;
    for (int k = 0; k < call->ninputs; k++) {
        const shape *s = &call->inputs[k];
        if (s->type == GRAFT_TUPLE)
            return error_set(err, "%s: operand %d is a tuple; read it with get_tuple_elem first",
                             op->name, k);
        if (s->rank < 1 || s->rank > SHAPE_MAX_RANK)
            return error_set(err, "%s: operand %d has rank %d", op->name, k, s->rank);
        if (!ops_check_operand(call, k, err))
            return false;
    }
    return true;
}

bool op_compute_shape(const op_call *call, shape *out, graft_error *err)
{
    if (!call || !call->op || !out)
        return error_set(err, "op_compute_shape: no op given");
    if (!check_arity(call, err) || !check_no_tuples(call, err))
        return false;
    if (call->op->nattrs > 0 && !call->attrs)
        return error_set(err, "%s: attributes missing", call->op->name);
    if (!call->op->compute_shape)
        return error_set(err, "%s: has no shape rule", call->op->name);
    shape result;
    shape_clear(&result);
    if (!call->op->compute_shape(call, &result, err))
        return false;
    *out = result;
    return true;
}
