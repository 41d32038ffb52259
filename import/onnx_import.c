/* onnx_import.c: ONNX ModelProto to a graft graph.
 *
 * Owns the walk over the model: unpack with protobuf-c, refuse the whole model
 * up front when it uses ops graft cannot import (one error listing each such
 * op type, its count and its first node), turn initializers into @literals and
 * the remaining graph inputs into @params (symbolic dimensions bound from
 * onnx_options, default 1), hand each node to its handler (onnx_ops.c), and
 * return the graph outputs. A node whose inputs are all constant is built in a
 * scratch module and evaluated there with the reference executor, so shape
 * arithmetic (Shape, Gather, Concat, Cast, Range...) becomes literals the
 * handlers downstream can read, as MIGraphX's parser does when it evaluates
 * constant arguments. Unused instructions are removed at the end.
 * onnx_op_coverage applies the same per-node support test without importing,
 * for `graft check`'s coverage report.
 */
#include "onnx_private.h"

#include "dump.h" /* read_stream_bytes */
#include "hash.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* Constant folding stops at this many elements (inputs or outputs): larger
 * constants stay in the graph as the ops that compute them. */
#define FOLD_LIMIT ((int64_t)1 << 20)

/* ---- the value table ---- */

static onnx_value *value_slot(onnx_ctx *c, const char *name)
{
    size_t mask = c->cap - 1;
    for (size_t i = hash_string(HASH_FNV_OFFSET, name) & mask;; i = (i + 1) & mask)
        if (!c->values[i].name || strcmp(c->values[i].name, name) == 0)
            return &c->values[i];
}

static bool value_set(onnx_ctx *c, const char *name, ins *v)
{
    if ((c->nvalues + 1) * 2 > c->cap) {
        size_t old_cap = c->cap;
        onnx_value *old = c->values;
        c->cap = old_cap ? old_cap * 2 : 256;
        c->values = calloc(c->cap, sizeof *c->values);
        if (!c->values) {
            c->values = old;
            c->cap = old_cap;
            return error_set(c->err, "out of memory");
        }
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].name)
                *value_slot(c, old[i].name) = old[i];
        free(old);
    }
    onnx_value *s = value_slot(c, name);
    if (!s->name) {
        s->name = strdup(name);
        if (!s->name)
            return error_set(c->err, "out of memory");
        c->nvalues++;
    }
    s->value = v;
    return true;
}

/* ---- submodules: what they read of the enclosing modules ---- */

static bool capture_grow(onnx_ctx *c, void **v, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return true;
    int n = *cap ? *cap * 2 : 8;
    while (n < need)
        n *= 2;
    void *p = realloc(*v, (size_t)n * size);
    if (!p)
        return error_set(c->err, "out of memory");
    *v = p;
    *cap = n;
    return true;
}

ins *onnx_capture_param(onnx_ctx *c, int k, const shape *sh)
{
    char name[32];
    snprintf(name, sizeof name, "x%d", k);
    ins *p = module_add_param(c->m, name, sh);
    if (!p)
        onnx_fail(c, "out of memory");
    return p;
}

/* What stands for v (a value of another module) in cap's submodule. */
static ins *capture_value(onnx_ctx *c, onnx_capture *cap, ins *v)
{
    if (!v || v->mod == cap->m)
        return v;
    for (int k = 0; k < cap->nmap; k++)
        if (cap->from[k] == v)
            return cap->to[k];
    ins *stand_in;
    if (onnx_is_const(v)) {
        stand_in = module_add_literal(cap->m, &v->sh, v->data);
        if (!stand_in)
            return onnx_fail(c, "out of memory"), NULL;
    } else {
        /* the operand lives in cap->outer: a value further out is first
         * captured by the enclosing submodule */
        ins *outer = v->mod == cap->outer || !cap->up ? v : capture_value(c, cap->up, v);
        if (!outer)
            return NULL;
        if (outer->mod != cap->outer)
            return onnx_fail(c, "value of module %s read from module %s", outer->mod->name,
                             cap->m->name), NULL;
        struct onnx_operands *ops = cap->operands;
        int k = 0;
        while (k < ops->n && ops->v[k] != outer)
            k++;
        if (k == ops->n) {
            if (!capture_grow(c, (void **)&ops->v, &ops->cap, ops->n + 1, sizeof *ops->v))
                return NULL;
            ops->v[ops->n++] = outer;
        }
        module *saved = c->m;
        c->m = cap->m;
        stand_in = onnx_capture_param(c, k, &v->sh);
        c->m = saved;
        if (!stand_in)
            return NULL;
    }
    if (cap->nmap == cap->mapcap) {
        int more = cap->mapcap ? cap->mapcap * 2 : 8;
        ins **from = realloc(cap->from, (size_t)more * sizeof *from);
        if (from)
            cap->from = from;
        ins **to = from ? realloc(cap->to, (size_t)more * sizeof *to) : NULL;
        if (!to)
            return error_set(c->err, "out of memory"), NULL;
        cap->to = to;
        cap->mapcap = more;
    }
    cap->from[cap->nmap] = v;
    cap->to[cap->nmap++] = stand_in;
    return stand_in;
}

bool onnx_capture_begin(onnx_ctx *c, onnx_capture *cap, struct onnx_operands *ops,
                        const char *kind)
{
    memset(cap, 0, sizeof *cap);
    char name[256];
    snprintf(name, sizeof name, "%.200s:%s%d", c->m->name, kind, c->nsubmodules++);
    graft_error local = {0};
    cap->m = graph_add_module(c->g, name, &local);
    if (!cap->m)
        return onnx_fail(c, "submodule %s: %s", name, local.message);
    cap->outer = c->m;
    cap->up = c->capture;
    cap->operands = ops;
    c->capture = cap;
    c->m = cap->m;
    return true;
}

void onnx_capture_end(onnx_ctx *c, onnx_capture *cap)
{
    c->m = cap->outer;
    c->capture = cap->up;
    free(cap->from);
    free(cap->to);
    cap->from = cap->to = NULL;
    cap->nmap = cap->mapcap = 0;
}

static ins *value_get(onnx_ctx *c, const char *name)
{
    if (!c->cap)
        return NULL;
    onnx_value *s = value_slot(c, name);
    ins *v = s->name ? s->value : NULL;
    /* inside a submodule, a value of an enclosing module is captured */
    return c->capture && v && v->mod != c->m ? capture_value(c, c->capture, v) : v;
}

static void values_free(onnx_ctx *c)
{
    for (size_t i = 0; i < c->cap; i++)
        free(c->values[i].name);
    free(c->values);
    c->values = NULL;
    c->cap = c->nvalues = 0;
}

/* ---- helpers for handlers ---- */

static const char *node_label(const onnx_ctx *c, char *buf, size_t size)
{
    if (c->node && c->node->name && *c->node->name)
        snprintf(buf, size, "%s", c->node->name);
    else
        snprintf(buf, size, "#%d", c->node_index);
    return buf;
}

bool onnx_fail(onnx_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_setv(c->err, fmt, ap);
    va_end(ap);
    char label[128];
    error_prefix(c->err, "node '%s' (%s)", node_label(c, label, sizeof label),
                 c->node && c->node->op_type ? c->node->op_type : "?");
    return false;
}

bool onnx_unsupported(onnx_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_setv(c->err, fmt, ap);
    va_end(ap);
    char label[128];
    error_prefix(c->err, "unsupported ONNX op %s (node '%s')",
                 c->node && c->node->op_type ? c->node->op_type : "?",
                 node_label(c, label, sizeof label));
    return false;
}

const Onnx__AttributeProto *onnx_attr(const onnx_ctx *c, const char *name)
{
    for (size_t i = 0; i < c->node->n_attribute; i++) {
        const Onnx__AttributeProto *a = c->node->attribute[i];
        if (a && a->name && strcmp(a->name, name) == 0)
            return a;
    }
    return NULL;
}

int64_t onnx_attr_int(const onnx_ctx *c, const char *name, int64_t dflt)
{
    const Onnx__AttributeProto *a = onnx_attr(c, name);
    if (!a)
        return dflt;
    if (a->has_i)
        return a->i;
    if (a->has_f)
        return (int64_t)a->f;
    return dflt;
}

double onnx_attr_float(const onnx_ctx *c, const char *name, double dflt)
{
    const Onnx__AttributeProto *a = onnx_attr(c, name);
    if (!a)
        return dflt;
    if (a->has_f)
        return a->f;
    if (a->has_i)
        return (double)a->i;
    return dflt;
}

const char *onnx_attr_string(const onnx_ctx *c, const char *name, const char *dflt, char *buf,
                             size_t size)
{
    const Onnx__AttributeProto *a = onnx_attr(c, name);
    if (!a || !a->has_s) {
        snprintf(buf, size, "%s", dflt);
        return buf;
    }
    size_t n = a->s.len < size - 1 ? a->s.len : size - 1;
    if (n)
        memcpy(buf, a->s.data, n);
    buf[n] = 0;
    return buf;
}

const int64_t *onnx_attr_ints(const onnx_ctx *c, const char *name, int *n)
{
    const Onnx__AttributeProto *a = onnx_attr(c, name);
    if (!a || (a->n_ints == 0 && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS)) {
        *n = -1;
        return NULL;
    }
    *n = (int)a->n_ints;
    return a->ints;
}

const float *onnx_attr_floats(const onnx_ctx *c, const char *name, int *n)
{
    const Onnx__AttributeProto *a = onnx_attr(c, name);
    if (!a || (a->n_floats == 0 && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS)) {
        *n = -1;
        return NULL;
    }
    *n = (int)a->n_floats;
    return a->floats;
}

ins *onnx_emit(onnx_ctx *c, const char *opname, const attr *attrs, int nattrs, ins *const *args,
               int nargs)
{
    /* A NULL operand is an earlier emit's failure, whose message stands, or
     * an input the node left out (an empty name), which no handler checked. */
    for (int i = 0; i < nargs; i++)
        if (!args[i]) {
            if (!c->err->message[0])
                onnx_fail(c, "%s: operand %d is missing (an input with an empty name?)", opname,
                          i);
            return NULL;
        }
    graft_error local = {0};
    ins *r = module_add_op(c->m, opname, attrs, nattrs, args, nargs, &local);
    if (!r)
        onnx_fail(c, "%s: %s", opname, local.message);
    return r;
}

ins *onnx_emit1(onnx_ctx *c, const char *opname, ins *x)
{
    return onnx_emit(c, opname, NULL, 0, &x, 1);
}

ins *onnx_emit2(onnx_ctx *c, const char *opname, ins *a, ins *b)
{
    ins *args[2] = {a, b};
    return onnx_emit(c, opname, NULL, 0, args, 2);
}

ins *onnx_literal(onnx_ctx *c, const shape *sh, const void *data)
{
    ins *r = module_add_literal(c->m, sh, data);
    if (!r)
        onnx_fail(c, "out of memory for a literal");
    return r;
}

ins *onnx_scalar(onnx_ctx *c, graft_type t, double v)
{
    int64_t one = 1;
    char buf[16] = {0};
    tensor tmp = {shape_standard(t, 1, &one), buf};
    tensor_set_f64(&tmp, 0, v);
    return onnx_literal(c, &tmp.sh, buf);
}

bool onnx_is_const(const ins *x)
{
    return x && x->data && x->op && strcmp(x->op->name, "@literal") == 0;
}

/* A parameter's value given in onnx_options.known_*, or NULL. */
static const tensor *known_value(const onnx_ctx *c, const ins *x)
{
    for (int k = 0; x->param && c->opt && k < c->opt->nknown; k++)
        if (c->opt->known_names[k] && strcmp(c->opt->known_names[k], x->param) == 0 &&
            c->opt->known_values[k].sh.type == x->sh.type &&
            shape_elements(&c->opt->known_values[k].sh) == shape_elements(&x->sh))
            return &c->opt->known_values[k];
    return NULL;
}

bool onnx_value_known(onnx_ctx *c, const ins *x)
{
    return onnx_is_const(x) || (x && known_value(c, x));
}

/* The value of x, the constant operand called `what` that onnx_const_ints
 * and onnx_const_doubles read (a literal's data, or a parameter's known
 * value), and its element count: an error when it is missing or too large
 * to read, unsupported when it is not a constant. */
static bool constant_value(onnx_ctx *c, const ins *x, const char *what, tensor *t,
                           int64_t *count)
{
    if (!x)
        return onnx_fail(c, "%s is missing", what);
    const tensor *known = onnx_is_const(x) ? NULL : known_value(c, x);
    if (!onnx_is_const(x) && !known)
        return onnx_unsupported(c, "%s must be a constant", what);
    *t = known ? *known : (tensor){x->sh, x->data};
    *count = shape_elements(&x->sh);
    if (*count > (1 << 24))
        return onnx_fail(c, "%s has too many elements", what);
    return true;
}

bool onnx_const_tensor(onnx_ctx *c, ins *x, const char *what, tensor *t)
{
    int64_t count;
    return constant_value(c, x, what, t, &count);
}

bool onnx_evaluate(onnx_ctx *c, const char *opname, const attr *attrs, int nattrs,
                   ins *const *args, const char *const *what, int nargs, tensor *result)
{
    graph *sg = graph_new();
    module *sm = sg ? graph_add_module(sg, "evaluate", NULL) : NULL;
    ins *lits[8];
    bool ok = sm != NULL;
    if (!ok)
        onnx_fail(c, "out of memory");
    if (ok && nargs > (int)(sizeof lits / sizeof lits[0]))
        ok = onnx_fail(c, "%s: too many operands to evaluate", opname);
    for (int k = 0; ok && k < nargs; k++) {
        tensor t;
        ok = onnx_const_tensor(c, args[k], what[k], &t);
        if (ok && !(lits[k] = module_add_literal(sm, &t.sh, t.data)))
            ok = onnx_fail(c, "out of memory");
    }
    tensor_list none = {0}, results = {0};
    if (ok) {
        graft_error local = {0};
        ins *r = module_add_op(sm, opname, attrs, nattrs, lits, nargs, &local);
        ok = r && module_add_return(sm, &r, 1) && exec_run(sm, &none, &results, &local) &&
             results.n == 1;
        if (!ok)
            onnx_fail(c, "%s", local.message);
    }
    if (ok) {
        /* the list's tensor is standard and malloc'd: hand it over */
        *result = results.items[0].t;
        results.items[0].t.data = NULL;
    }
    tensor_list_free(&results);
    if (sg)
        graph_free(sg);
    return ok;
}

bool onnx_const_ints(onnx_ctx *c, ins *x, const char *what, int64_t **vals, int *n)
{
    int64_t count;
    tensor t;
    if (!constant_value(c, x, what, &t, &count))
        return false;
    int64_t *v = arena_alloc(&c->scratch, (size_t)(count ? count : 1) * sizeof *v);
    if (!v)
        return onnx_fail(c, "out of memory");
    for (int64_t i = 0; i < count; i++) {
        if (!type_is_float(t.sh.type))
            v[i] = tensor_get_i64(&t, i);
        else if (!double_to_int64(tensor_get_f64(&t, i), &v[i]))
            return onnx_fail(c, "%s: value %g is not a 64-bit integer", what, tensor_get_f64(&t, i));
    }
    *vals = v;
    *n = (int)count;
    return true;
}

bool onnx_const_doubles(onnx_ctx *c, ins *x, const char *what, double **vals, int *n)
{
    int64_t count;
    tensor t;
    if (!constant_value(c, x, what, &t, &count))
        return false;
    double *v = arena_alloc(&c->scratch, (size_t)(count ? count : 1) * sizeof *v);
    if (!v)
        return onnx_fail(c, "out of memory");
    for (int64_t i = 0; i < count; i++)
        v[i] = tensor_get_f64(&t, i);
    *vals = v;
    *n = (int)count;
    return true;
}

/* ---- the walk ---- */

static bool is_default_domain(const char *d)
{
    return !d || !*d || strcmp(d, "ai.onnx") == 0;
}

/* Why graft cannot import node n, or NULL when it can. */
static const char *node_unsupported_reason(const Onnx__NodeProto *n, const onnx_op_entry **entry)
{
    const onnx_op_entry *e = NULL;
    *entry = NULL;
    if (!is_default_domain(n->domain))
        return "not in the default ONNX domain";
    e = onnx_find_op(n->op_type ? n->op_type : "");
    *entry = e;
    if (!e)
        return "no importer";
    if (!onnx_op_available(e))
        return "a graft op it needs is missing";
    /* If, Loop and Scan take their subgraphs; no other op has one */
    for (size_t k = 0; k < n->n_attribute && !onnx_takes_subgraphs(e); k++) {
        const Onnx__AttributeProto *a = n->attribute[k];
        if (a && (a->g || a->n_graphs))
            return "a subgraph";
    }
    return NULL;
}

/* Every node whose op graft cannot import, counted per op type; one error
 * lists them all. */
static bool check_supported(onnx_ctx *c, const Onnx__GraphProto *gp)
{
    enum { MAX_KINDS = 64 };
    const char *kinds[MAX_KINDS];
    const char *domains[MAX_KINDS];
    const char *first[MAX_KINDS];
    int first_index[MAX_KINDS];
    int counts[MAX_KINDS];
    int nkinds = 0;
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *n = gp->node[i];
        const char *op = n->op_type ? n->op_type : "";
        const onnx_op_entry *e;
        if (!node_unsupported_reason(n, &e))
            continue;
        int j = 0;
        while (j < nkinds && !(strcmp(kinds[j], op) == 0 &&
                               strcmp(domains[j], n->domain ? n->domain : "") == 0))
            j++;
        if (j == nkinds) {
            if (nkinds == MAX_KINDS)
                continue;
            kinds[j] = op;
            domains[j] = n->domain ? n->domain : "";
            first[j] = n->name;
            first_index[j] = (int)i;
            counts[j] = 0;
            nkinds++;
        }
        counts[j]++;
    }
    if (!nkinds)
        return true;
    char msg[1000];
    int len = snprintf(msg, sizeof msg, "unsupported ONNX op%s: ", nkinds > 1 ? "s" : "");
    for (int j = 0; j < nkinds && len < (int)sizeof msg; j++) {
        char label[96];
        if (first[j] && *first[j])
            snprintf(label, sizeof label, "'%s'", first[j]);
        else
            snprintf(label, sizeof label, "#%d", first_index[j]);
        len += snprintf(msg + len, sizeof msg - (size_t)len, "%s%s%s%s x%d (first node %s)",
                        j ? ", " : "", domains[j], *domains[j] ? "." : "", kinds[j], counts[j],
                        label);
    }
    return error_set(c->err, "%s", msg);
}

static bool shape_from_type(onnx_ctx *c, const Onnx__ValueInfoProto *vi, shape *out)
{
    const char *name = vi->name ? vi->name : "";
    if (!vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
        !vi->type->tensor_type)
        return error_set(c->err,
                         "graph input '%s': unsupported type non_tensor (a sequence, map or optional)",
                         name);
    const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
    graft_type t;
    if (!onnx_type_to_graft(tt->elem_type, &t))
        return error_set(c->err, "graph input '%s': unsupported tensor type %s", name,
                         onnx_type_name(tt->elem_type));
    int64_t lens[SHAPE_MAX_RANK];
    int rank = 0;
    for (int k = 0; c->opt && k < c->opt->ninput_shapes; k++) {
        const onnx_input_shape *given = &c->opt->input_shapes[k];
        if (!given->name || strcmp(given->name, name) != 0)
            continue;
        if (given->rank < 1 || given->rank > SHAPE_MAX_RANK)
            return error_set(c->err, "graph input '%s': --input-dim gives rank %d", name,
                             given->rank);
        if (tt->shape && tt->shape->n_dim > 0 && (int)tt->shape->n_dim != given->rank)
            return error_set(c->err, "graph input '%s': --input-dim gives %d dimensions, the "
                                     "model declares %zu",
                             name, given->rank, tt->shape->n_dim);
        for (int i = 0; tt->shape && i < (int)tt->shape->n_dim; i++) {
            const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
            if (d && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                d->dim_value != given->lens[i])
                return error_set(c->err, "graph input '%s': --input-dim gives dimension %d as "
                                         "%lld, the model fixes it at %lld",
                                 name, i, (long long)given->lens[i], (long long)d->dim_value);
        }
        *out = shape_standard(t, given->rank, given->lens);
        return true;
    }
    if (tt->shape) {
        if (tt->shape->n_dim > SHAPE_MAX_RANK)
            return error_set(c->err, "graph input '%s': rank %zu exceeds graft's maximum %d", name,
                             tt->shape->n_dim, SHAPE_MAX_RANK);
        for (size_t i = 0; i < tt->shape->n_dim; i++) {
            const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
            int64_t v = 1;
            bool bound = false;
            if (d && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
                v = d->dim_value;
                bound = true;
            } else if (d && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                       d->dim_param && c->opt) {
                for (int k = 0; k < c->opt->ndims; k++)
                    if (c->opt->dim_names[k] && strcmp(c->opt->dim_names[k], d->dim_param) == 0) {
                        v = c->opt->dim_values[k];
                        bound = true;
                    }
            }
            if (!bound && c->nunbound < 8) {
                struct onnx_unbound *u = &c->unbound[c->nunbound++];
                u->input = name;
                u->param = d && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                                   d->dim_param && *d->dim_param
                               ? d->dim_param
                               : NULL;
                u->dim = (int)i;
                u->rank = (int)tt->shape->n_dim;
            }
            if (v < 0 || v > ((int64_t)1 << 32))
                return error_set(c->err, "graph input '%s': bad dimension %lld", name,
                                 (long long)v);
            lens[rank++] = v;
        }
    }
    for (int k = 0; k < c->nunbound; k++)
        if (c->unbound[k].input == name)
            memcpy(c->unbound[k].lens, lens, sizeof lens);
    if (rank == 0) {
        rank = 1;
        lens[0] = 1;
    }
    *out = shape_standard(t, rank, lens);
    return true;
}

/* After an import error that is not an unsupported op: the dimensions
 * taken as 1 may be why, so the message names them and the option that
 * binds each: --dim NAME=N for a named one, --input-dim for an unnamed one
 * (the input's other dimensions as they were read, N for the unbound). */
static void hint_unbound(onnx_ctx *c)
{
    if (!c->nunbound || strstr(c->err->message, "unsupported"))
        return;
    char hint[600];
    size_t at = 0;
    for (int k = 0; k < c->nunbound && at + 200 < sizeof hint; k++) {
        const struct onnx_unbound *u = &c->unbound[k];
        at += (size_t)snprintf(hint + at, sizeof hint - at,
                               "%sinput '%s' dimension %d%s%s%s was not bound and became 1 (add ",
                               k ? "; " : "", u->input, u->dim, u->param ? " ('" : "",
                               u->param ? u->param : "", u->param ? "')" : "");
        if (u->param) {
            at += (size_t)snprintf(hint + at, sizeof hint - at, "--dim %s=N)", u->param);
            continue;
        }
        at += (size_t)snprintf(hint + at, sizeof hint - at, "--input-dim %s=", u->input);
        for (int i = 0; i < u->rank && at + 24 < sizeof hint; i++) {
            bool open = false;
            for (int j = 0; j < c->nunbound; j++)
                open = open || (c->unbound[j].input == u->input && c->unbound[j].dim == i);
            at += (size_t)snprintf(hint + at, sizeof hint - at, open ? "%sN" : "%s%lld",
                                   i ? "," : "", (long long)u->lens[i]);
        }
        at += (size_t)snprintf(hint + at, sizeof hint - at, ")");
    }
    size_t len = strlen(c->err->message), room = sizeof c->err->message - 1;
    const char *parts[2] = {"; ", hint};
    for (int p = 0; p < 2; p++)
        for (const char *q = parts[p]; *q && len < room; q++)
            c->err->message[len++] = *q;
    c->err->message[len] = 0;
}

/* Builds the node in a scratch graph from copies of its constant inputs and
 * evaluates it. *folded false: too large or not executable; the caller then
 * builds it in the main module. */
static bool fold_node(onnx_ctx *c, const onnx_op_entry *e, ins **in, int nin, ins **out, int nout,
                      bool *folded)
{
    *folded = false;
    int64_t total = 0;
    for (int k = 0; k < nin; k++)
        if (in[k])
            total += shape_elements(&in[k]->sh);
    if (total > FOLD_LIMIT)
        return true;
    graph *sg = graph_new();
    if (!sg)
        return error_set(c->err, "out of memory");
    module *sm = graph_add_module(sg, "fold", NULL);
    ins **sin = calloc((size_t)nin + 1, sizeof *sin);
    ins **sout = calloc((size_t)nout + 1, sizeof *sout);
    bool ok = sm && sin && sout;
    for (int k = 0; ok && k < nin; k++)
        if (in[k])
            ok = (sin[k] = module_add_literal(sm, &in[k]->sh, in[k]->data)) != NULL;
    if (!ok) {
        free(sin);
        free(sout);
        graph_free(sg);
        return error_set(c->err, "out of memory");
    }
    module *saved = c->m;
    c->m = sm;
    ok = onnx_run_handler(c, e, sin, nin, sout, nout);
    c->m = saved;
    int nres = 0;
    int64_t out_total = 0;
    int *position = calloc((size_t)nout + 1, sizeof *position);
    if (!position)
        ok = error_set(c->err, "out of memory");
    for (int k = 0; ok && k < nout; k++)
        if (sout[k]) {
            position[nres] = k;
            sout[nres++] = sout[k];
            out_total += shape_elements(&sout[k]->sh);
        }
    tensor_list none = {0}, results = {0};
    if (ok && out_total <= FOLD_LIMIT && nres > 0) {
        module_add_return(sm, sout, nres);
        graft_error ignored = {0};
        if (exec_run(sm, &none, &results, &ignored) && results.n == nres) {
            bool all = true;
            for (int r = 0; all && r < nres; r++) {
                ins *lit = onnx_literal(c, &results.items[r].t.sh, results.items[r].t.data);
                out[position[r]] = lit;
                all = lit != NULL;
            }
            ok = all;
            *folded = all;
        }
    }
    free(position);
    tensor_list_free(&results);
    free(sin);
    free(sout);
    graph_free(sg);
    return ok;
}

static bool import_node(onnx_ctx *c, const Onnx__NodeProto *n)
{
    const onnx_op_entry *e = onnx_find_op(n->op_type);
    if (!e)
        return onnx_unsupported(c, "no importer");
    c->entry = e;
    int nin = (int)n->n_input, nout = (int)n->n_output;
    ins **in = calloc((size_t)nin + 1, sizeof *in);
    ins **out = calloc((size_t)nout + 1, sizeof *out);
    if (!in || !out) {
        free(in);
        free(out);
        return error_set(c->err, "out of memory");
    }
    bool ok = true, all_const = nin > 0;
    for (int k = 0; ok && k < nin; k++) {
        const char *name = n->input[k];
        if (!name || !*name)
            continue;
        in[k] = value_get(c, name);
        if (!in[k])
            ok = onnx_fail(c, "input '%s' is not defined (missing initializer or graph input?)",
                           name);
        else if (!onnx_is_const(in[k]))
            all_const = false;
    }
    bool folded = false;
    /* a node with a subgraph reads values of the enclosing graph, which a
     * scratch module cannot: it is built in place (and its body's nodes
     * fold one by one) */
    if (ok && all_const && !onnx_takes_subgraphs(e))
        ok = fold_node(c, e, in, nin, out, nout, &folded);
    if (ok && !folded) {
        for (int k = 0; k < nout; k++)
            out[k] = NULL;
        ok = onnx_run_handler(c, e, in, nin, out, nout);
    }
    /* Outputs produced with an empty name are not needed by anyone; one that
     * is named but was not produced is a variant graft does not import. */
    for (int k = 0; ok && k < nout; k++) {
        const char *name = n->output[k];
        if (!name || !*name)
            continue;
        if (!out[k])
            ok = onnx_unsupported(c, "output %d is not supported", k);
        else
            ok = value_set(c, name, out[k]);
    }
    free(in);
    free(out);
    return ok;
}

bool onnx_import_body(onnx_ctx *c, const Onnx__GraphProto *body, ins *const *inputs, int ninputs,
                      ins **outputs, int noutputs)
{
    const Onnx__NodeProto *node = c->node;
    const onnx_op_entry *entry = c->entry;
    int index = c->node_index;
    if (!body)
        return onnx_fail(c, "the subgraph is missing");
    if ((int)body->n_input != ninputs || (int)body->n_output != noutputs)
        return onnx_fail(c, "the subgraph has %zu inputs and %zu outputs, expected %d and %d",
                         body->n_input, body->n_output, ninputs, noutputs);
    if (++c->bodies > ((int64_t)1 << 16))
        return onnx_unsupported(c, "more than %d subgraph copies (unrolled loops nest too deep)",
                                1 << 16);
    if (++c->depth > 16) {
        c->depth--;
        return onnx_unsupported(c, "subgraphs nested more than 16 deep");
    }
    bool ok = true;
    for (size_t i = 0; ok && i < body->n_initializer; i++) {
        const Onnx__TensorProto *tp = body->initializer[i];
        tensor t;
        bool borrowed;
        if (!tp || !tp->name || !onnx_tensor_view_from_proto(tp, c->model_dir, &t, &borrowed, c->err)) {
            ok = onnx_fail(c, "a subgraph initializer is unreadable");
            break;
        }
        ins *lit = module_add_literal(c->m, &t.sh, t.data);
        if (!borrowed)
            free(t.data);
        ok = lit ? value_set(c, tp->name, lit) : onnx_fail(c, "out of memory");
    }
    for (int k = 0; ok && k < ninputs; k++) {
        const Onnx__ValueInfoProto *vi = body->input[k];
        if (!vi || !vi->name)
            ok = onnx_fail(c, "subgraph input %d has no name", k);
        else if (inputs[k])
            ok = value_set(c, vi->name, inputs[k]);
    }
    for (size_t i = 0; ok && i < body->n_node; i++) {
        if (!body->node[i]) {
            ok = onnx_fail(c, "corrupt subgraph: empty node %zu", i);
            break;
        }
        c->node = body->node[i];
        c->node_index = (int)i;
        ok = import_node(c, body->node[i]);
        c->node = node;
        c->entry = entry;
        c->node_index = index;
    }
    for (int k = 0; ok && k < noutputs; k++) {
        const char *name = body->output[k] ? body->output[k]->name : NULL;
        outputs[k] = name ? value_get(c, name) : NULL;
        if (!outputs[k])
            ok = onnx_fail(c, "subgraph output '%s' is not computed", name ? name : "");
    }
    c->depth--;
    return ok;
}

/* Removes instructions nobody uses (except parameters and the return),
 * last to first, so chains disappear in one sweep. */
static void remove_unused(module *m)
{
    ins *i = m->last;
    while (i) {
        ins *prev = i->prev;
        if (i->nusers == 0 && !ins_is(i, "@param") && !ins_is(i, "@return"))
            module_remove(i);
        i = prev;
    }
}

static graph *import_model(onnx_ctx *c, const Onnx__ModelProto *mp)
{
    const Onnx__GraphProto *gp = mp->graph;
    if (!gp) {
        error_set(c->err, "the model has no graph");
        return NULL;
    }
    c->opset = 0;
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = mp->opset_import[i];
        if (o && is_default_domain(o->domain))
            c->opset = o->version;
    }
    if (c->opset == 0)
        c->opset = 1; /* IR v1 models carry no opset_import */
    if (c->opset > 23) {
        error_set(c->err, "opset %lld is newer than graft knows (7 to 21)", (long long)c->opset);
        return NULL;
    }
    for (size_t i = 0; i < gp->n_node; i++)
        if (!gp->node[i]) {
            error_set(c->err, "corrupt model: empty node %zu", i);
            return NULL;
        }
    if (!check_supported(c, gp))
        return NULL;
    c->g = graph_new();
    if (!c->g) {
        error_set(c->err, "out of memory");
        return NULL;
    }
    c->m = graph_add_module(c->g, "main", c->err);
    if (!c->m)
        return NULL;
    for (size_t i = 0; i < gp->n_initializer; i++) {
        const Onnx__TensorProto *tp = gp->initializer[i];
        if (!tp || !tp->name || !*tp->name) {
            error_set(c->err, "initializer %zu has no name", i);
            return NULL;
        }
        tensor t;
        bool borrowed;
        if (!onnx_tensor_view_from_proto(tp, c->model_dir, &t, &borrowed, c->err)) {
            error_prefix(c->err, "initializer");
            return NULL;
        }
        ins *lit = module_add_literal(c->m, &t.sh, t.data);
        if (!borrowed)
            free(t.data);
        if (!lit) {
            error_set(c->err, "out of memory");
            return NULL;
        }
        if (!value_set(c, tp->name, lit))
            return NULL;
    }
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        if (!vi || !vi->name || !*vi->name) {
            error_set(c->err, "graph input %zu has no name", i);
            return NULL;
        }
        ins *init = value_get(c, vi->name);
        shape sh;
        if (!shape_from_type(c, vi, &sh))
            return NULL;
        if (init) {
            /* An initializer that is also an input gives the input's default
             * value; its shape must agree with the declared one. */
            const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
            if (tt->shape && tt->shape->n_dim > 0 &&
                shape_elements(&init->sh) != shape_elements(&sh)) {
                error_set(c->err, "graph input '%s': initializer has %lld elements, the input "
                                  "declares %lld",
                          vi->name, (long long)shape_elements(&init->sh),
                          (long long)shape_elements(&sh));
                return NULL;
            }
            continue;
        }
        const tensor *bound = NULL;
        for (int k = 0; c->opt && k < c->opt->nconstants; k++)
            if (c->opt->constant_names[k] && strcmp(c->opt->constant_names[k], vi->name) == 0)
                bound = &c->opt->constant_values[k];
        ins *p = bound ? module_add_literal(c->m, &bound->sh, bound->data)
                       : module_add_param(c->m, vi->name, &sh);
        if (!p || !value_set(c, vi->name, p)) {
            error_set(c->err, "out of memory");
            return NULL;
        }
    }
    for (size_t i = 0; i < gp->n_node; i++) {
        c->node = gp->node[i];
        c->node_index = (int)i;
        if (!import_node(c, gp->node[i]))
            return NULL;
        c->node = NULL;
    }
    if (gp->n_output == 0) {
        error_set(c->err, "the graph has no outputs");
        return NULL;
    }
    ins **rets = calloc(gp->n_output, sizeof *rets);
    if (!rets) {
        error_set(c->err, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < gp->n_output; i++) {
        const char *name = gp->output[i] ? gp->output[i]->name : NULL;
        rets[i] = name ? value_get(c, name) : NULL;
        if (!rets[i]) {
            error_set(c->err, "graph output '%s' is not computed by any node",
                      name ? name : "");
            free(rets);
            return NULL;
        }
    }
    module_add_return(c->m, rets, (int)gp->n_output);
    free(rets);
    for (module *m = c->g->first_module; m; m = m->next)
        remove_unused(m);
    graph_prune_modules(c->g);
    if (!graph_verify(c->g, c->err)) {
        error_prefix(c->err, "imported graph is inconsistent");
        return NULL;
    }
    return c->g;
}

graph *onnx_import(const void *bytes, size_t len, const char *filename, const onnx_options *opt,
                   graft_error *err)
{
    graft_error local = {0};
    const char *fname = filename ? filename : "<onnx>";
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, bytes);
    if (!mp) {
        error_at(err, fname, 0, 0, "not a valid ONNX model (corrupt or truncated protobuf)");
        return NULL;
    }
    char dir[4096];
    onnx_model_dir(fname, dir, sizeof dir);
    onnx_ctx c = {0};
    c.filename = fname;
    c.model_dir = dir;
    c.opt = opt;
    c.err = &local;
    arena_init(&c.scratch);
    graph *g = import_model(&c, mp);
    if (!g)
        hint_unbound(&c);
    if (!g) {
        if (c.g)
            graph_free(c.g);
        if (err) {
            char msg[sizeof local.message];
            snprintf(msg, sizeof msg, "%s", local.message);
            error_at(err, fname, 0, 0, "%s", msg);
        }
    } else {
        g->source = arena_strdup(&g->mem, fname);
    }
    values_free(&c);
    arena_free(&c.scratch);
    onnx__model_proto__free_unpacked(mp, NULL);
    return g;
}

/* Reads a model through stdio (pipes, special files, or when mmap fails). */
static graph *import_stream(FILE *f, size_t size_hint, const char *path, const onnx_options *opt,
                            graft_error *err)
{
    size_t n;
    unsigned char *buf = read_stream_bytes(f, size_hint, &n, NULL);
    if (!buf) {
        error_set(err, "%s: out of memory", path);
        return NULL;
    }
    graph *g = onnx_import(buf, n, path, opt, err);
    free(buf);
    return g;
}

graph *onnx_import_file(const char *path, const onnx_options *opt, graft_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        error_set(err, "%s: cannot open", path);
        return NULL;
    }
    /* A regular file is mapped, not read: a 100 MB model's bytes are then
     * page cache, and initializer data is copied out of it once by
     * protobuf-c and once into the graph. */
    struct stat st;
    size_t size = 0;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size < ((uint64_t)1 << 40))
        size = (size_t)st.st_size;
    void *mapped = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fileno(f), 0) : MAP_FAILED;
    graph *g;
    if (mapped != MAP_FAILED) {
        g = onnx_import(mapped, size, path, opt, err);
        munmap(mapped, size);
    } else {
        g = import_stream(f, size, path, opt, err);
    }
    fclose(f);
    return g;
}

/* ---- op coverage (graft check) ---- */

/* The op type as coverage names it: "Op", or "domain.Op". */
static void coverage_name(const Onnx__NodeProto *n, char *buf, size_t size)
{
    const char *op = n->op_type ? n->op_type : "";
    if (is_default_domain(n->domain))
        snprintf(buf, size, "%s", op);
    else
        snprintf(buf, size, "%s.%s", n->domain, op);
}

static bool coverage_add(onnx_coverage *c, const Onnx__NodeProto *n, size_t index, int *cap)
{
    char name[sizeof c->ops[0].op_type];
    coverage_name(n, name, sizeof name);
    const onnx_op_entry *e;
    const char *why = node_unsupported_reason(n, &e);
    c->nnodes++;
    c->nunsupported += why != NULL;
    for (int k = 0; k < c->nops; k++)
        if (strcmp(c->ops[k].op_type, name) == 0) {
            c->ops[k].count++;
            /* One node with a subgraph makes the type unsupported. */
            if (why && c->ops[k].supported) {
                c->ops[k].supported = false;
                c->ops[k].why = why;
            }
            return true;
        }
    if (c->nops == *cap) {
        int grown_cap = *cap ? *cap * 2 : 32;
        onnx_op_use *grown = realloc(c->ops, (size_t)grown_cap * sizeof *grown);
        if (!grown)
            return false;
        c->ops = grown;
        *cap = grown_cap;
    }
    onnx_op_use *u = &c->ops[c->nops++];
    memset(u, 0, sizeof *u);
    snprintf(u->op_type, sizeof u->op_type, "%s", name);
    u->count = 1;
    u->supported = why == NULL;
    u->why = why;
    u->graft_op = e ? e->graft_op : NULL;
    size_t at = 0;
    for (int k = -1; e && k < 4; k++) {
        const char *op = k < 0 ? e->graft_op : e->needs[k];
        if (!op) {
            if (k < 0)
                continue;
            break;
        }
        int w = snprintf(u->graft_ops + at, sizeof u->graft_ops - at, "%s%s", at ? ", " : "", op);
        if (w < 0 || (size_t)w >= sizeof u->graft_ops - at)
            break;
        at += (size_t)w;
    }
    if (n->name && *n->name)
        snprintf(u->first_node, sizeof u->first_node, "%s", n->name);
    else
        snprintf(u->first_node, sizeof u->first_node, "#%zu", index);
    return true;
}

bool onnx_op_coverage(const void *bytes, size_t len, const char *filename, onnx_coverage *out,
                      graft_error *err)
{
    const char *fname = filename ? filename : "<onnx>";
    memset(out, 0, sizeof *out);
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, bytes);
    if (!mp)
        return error_at(err, fname, 0, 0, "not a valid ONNX model (corrupt or truncated protobuf)");
    if (!mp->graph) {
        onnx__model_proto__free_unpacked(mp, NULL);
        return error_at(err, fname, 0, 0, "the model has no graph");
    }
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = mp->opset_import[i];
        if (o && is_default_domain(o->domain))
            out->opset = o->version;
    }
    const Onnx__GraphProto *gp = mp->graph;
    int cap = 0;
    bool ok = true;
    size_t at = 0;
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        bool init = false;
        for (size_t k = 0; vi && vi->name && k < gp->n_initializer && !init; k++)
            init = gp->initializer[k] && gp->initializer[k]->name &&
                   strcmp(gp->initializer[k]->name, vi->name) == 0;
        if (!vi || !vi->name || init || !vi->type ||
            vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
            !vi->type->tensor_type || !vi->type->tensor_type->shape)
            continue;
        const Onnx__TensorShapeProto *sp = vi->type->tensor_type->shape;
        for (size_t d = 0; d < sp->n_dim && at + 160 < sizeof out->symbolic; d++) {
            const Onnx__TensorShapeProto__Dimension *dim = sp->dim[d];
            if (dim && dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
                continue;
            const char *param = dim && dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                                        dim->dim_param && *dim->dim_param
                                    ? dim->dim_param
                                    : "?";
            at += (size_t)snprintf(out->symbolic + at, sizeof out->symbolic - at,
                                   "%s%.60s (input %.60s, dimension %zu)", at ? ", " : "", param,
                                   vi->name, d);
        }
    }
    for (size_t i = 0; ok && i < gp->n_node; i++) {
        if (!gp->node[i]) {
            ok = error_at(err, fname, 0, 0, "corrupt model: empty node %zu", i);
            break;
        }
        if (!coverage_add(out, gp->node[i], i, &cap))
            ok = error_at(err, fname, 0, 0, "out of memory");
    }
    onnx__model_proto__free_unpacked(mp, NULL);
    if (!ok)
        onnx_coverage_free(out);
    return ok;
}

void onnx_coverage_free(onnx_coverage *c)
{
    free(c->ops);
    memset(c, 0, sizeof *c);
}
