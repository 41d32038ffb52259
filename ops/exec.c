/* exec.c: the reference executor: runs a module on the CPU, one instruction
 * at a time, with the reference kernels (ops/kernels.h).
 *
 * It is the oracle every rewrite is checked against, so it is plain: walk
 * the module in order; @param takes the caller's tensor (copied into the
 * param's declared layout when the caller's differs, since views downstream
 * were computed from the declared strides), @literal uses the literal's
 * bytes, a view op aliases its first operand, and every other op gets a fresh
 * buffer of its shape's size. Memory stays bounded by the live values: each
 * buffer counts the uses still pending of every value that lives in it
 * (views share their base's buffer) and is freed when the count reaches 0.
 *
 * Outputs are the @return operands (or the last instruction when there is
 * no @return), copied to standard layout and named output0, output1, ...
 * A fused region runs its submodule recursively (run_region); other
 * instructions with submodules (opaque MIGraphX regions) fail clearly.
 *
 * Random inputs (exec_random_inputs) use splitmix64, one stream per @param:
 * the stream of the k-th @param (k = 0, 1, ... in module order) starts from
 * seed ^ ((k + 1) * 0xD1B54A32D192ED03). Floats are -1 + 2 * u with u a
 * multiple of 2^-bits in [0, 1) (bits = 53 double, 24 float, 10 half, 7
 * bf16, so every value is exact in its type and stays below 1); integers
 * take the top 2 bits of a draw ([0, 4)), bools the top bit.
 */
#include "exec.h"

#include "kernels.h"
#include "random.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- tensor lists ---- */

void tensor_list_free(tensor_list *l)
{
    if (!l)
        return;
    for (int i = 0; i < l->n; i++) {
        free((char *)l->items[i].name);
        free(l->items[i].t.data);
    }
    free(l->items);
    l->items = NULL;
    l->n = 0;
}

static size_t buffer_size(const shape *s)
{
    size_t bytes = shape_is_tuple(s) ? tensor_tuple_bytes(s) : shape_bytes(s);
    return bytes ? bytes : 1;
}

static void print_type_lens(const shape *s, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s ", type_name(s->type));
    if (n >= 0 && (size_t)n < size)
        ints_print(s->lens, s->rank, buf + n, size - (size_t)n);
}

void *exec_alloc(const shape *sh, bool zero, const char *what, graft_error *err)
{
    size_t bytes = buffer_size(sh);
    void *p = tensor_alloc(bytes, zero);
    if (p)
        return p;
    uint64_t limit = tensor_memory_available();
    char desc[300];
    print_type_lens(sh, desc, sizeof desc);
    const double gib = 1024.0 * 1024.0 * 1024.0;
    if ((uint64_t)bytes > limit)
        error_set(err, "%s (%s) needs %zu bytes (%.1f GiB), more than the memory available "
                       "(%.1f GiB)",
                  what, desc, bytes, (double)bytes / gib, (double)limit / gib);
    else
        error_set(err, "%s (%s) needs %zu bytes (%.1f GiB): out of memory", what, desc, bytes,
                  (double)bytes / gib);
    return NULL;
}

bool tensor_list_add(tensor_list *l, const char *name, const tensor *t, graft_error *err)
{
    if (shape_is_tuple(&t->sh))
        return error_set(err, "output '%s' is a tuple; read its elements with get_tuple_elem",
                         name);
    named_tensor *items = realloc(l->items, (size_t)(l->n + 1) * sizeof *items);
    if (!items)
        return error_set(err, "out of memory");
    l->items = items;
    named_tensor *item = &items[l->n];
    item->t.sh = shape_as_standard(&t->sh);
    char what[300];
    snprintf(what, sizeof what, "tensor '%.200s'", name);
    item->t.data = exec_alloc(&item->t.sh, false, what, err);
    if (!item->t.data)
        return false;
    item->name = strdup(name);
    if (!item->name) {
        free(item->t.data);
        return error_set(err, "out of memory");
    }
    tensor_copy(&item->t, t);
    l->n++;
    return true;
}

/* Appends t (standard layout, its data malloc'd) without copying: the list
 * owns t.data from here, and frees it on failure too. */
static bool tensor_list_take(tensor_list *l, const char *name, tensor *t, graft_error *err)
{
    named_tensor *items = realloc(l->items, (size_t)(l->n + 1) * sizeof *items);
    char *copy = items ? strdup(name) : NULL;
    if (items)
        l->items = items;
    if (!copy) {
        free(t->data);
        return error_set(err, "out of memory");
    }
    items[l->n].name = copy;
    items[l->n].t = *t;
    l->n++;
    return true;
}

const named_tensor *tensor_list_find(const tensor_list *l, const char *name)
{
    if (!l || !name)
        return NULL;
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->items[i].name, name) == 0)
            return &l->items[i];
    return NULL;
}

/* ---- random inputs ---- */

static int random_bits_for(graft_type t)
{
    switch (t) {
    case GRAFT_DOUBLE: return 53;
    case GRAFT_FLOAT: return 24;
    case GRAFT_HALF: return 10;
    case GRAFT_BF16: return 7;
    default: return 0;
    }
}

bool exec_random_inputs(const module *m, uint64_t seed, tensor_list *out, graft_error *err)
{
    uint64_t k = 0;
    for (const ins *i = m->first; i; i = i->next) {
        if (!i->param)
            continue;
        uint64_t state = seed ^ ((k + 1) * 0xD1B54A32D192ED03u);
        k++;
        tensor t = {shape_as_standard(&i->sh), NULL};
        int64_t n = shape_elements(&t.sh);
        char what[300];
        snprintf(what, sizeof what, "input '%.200s'", i->param);
        t.data = exec_alloc(&t.sh, false, what, err);
        if (!t.data)
            return false;
        /* Values are made a chunk at a time and stored into the standard
         * layout's consecutive elements, so no full-size staging is needed. */
        enum { CHUNK = 4096 };
        double fv[CHUNK];
        int64_t iv[CHUNK];
        int bits = random_bits_for(t.sh.type);
        size_t esize = type_size(t.sh.type);
        for (int64_t at = 0; at < n; at += CHUNK) {
            int64_t len = n - at < CHUNK ? n - at : CHUNK;
            for (int64_t e = 0; e < len; e++) {
                uint64_t x = random_next(&state);
                if (bits)
                    fv[e] = -1 + ldexp((double)(x >> (64 - bits)), 1 - bits);
                else
                    iv[e] = t.sh.type == GRAFT_BOOL ? (int64_t)(x >> 63) : (int64_t)(x >> 62);
            }
            tensor part = {shape_standard(t.sh.type, 1, &len), t.data + (size_t)at * esize};
            if (bits)
                tensor_store_f64(&part, fv);
            else
                tensor_store_i64(&part, iv);
        }
        if (!tensor_list_take(out, i->param, &t, err))
            return false;
    }
    return true;
}

/* ---- running ---- */

typedef struct buffer {
    char *data;
    int64_t refs;   /* pending uses of the values living in this buffer */
    bool owned;     /* malloc'd by the executor */
} buffer;

typedef struct value {
    tensor t;
    int buf;        /* index into buffers, -1 when none (no value yet) */
} value;

typedef struct run_state {
    const module *m;
    int n;               /* instructions in the module */
    int *slot;           /* ins id -> position, -1 if not in the module */
    uint32_t nslots;
    value *values;
    int64_t *uses;       /* pending uses of each value */
    buffer *buffers;
    int nbuffers;
    tensor *args;        /* scratch: operand tensors */
    int args_cap;
} run_state;

static void release_buffer(run_state *s, int b)
{
    if (b < 0)
        return;
    if (--s->buffers[b].refs <= 0 && s->buffers[b].owned) {
        free(s->buffers[b].data);
        s->buffers[b].data = NULL;
        s->buffers[b].owned = false;
    }
}

static int new_buffer(run_state *s, char *data, bool owned)
{
    buffer *b = &s->buffers[s->nbuffers];
    b->data = data;
    b->refs = 0;
    b->owned = owned;
    return s->nbuffers++;
}

/* Gives value p its buffer and its pending uses; frees at once if unused. */
static void bind_value(run_state *s, int p, const tensor *t, int b)
{
    s->values[p].t = *t;
    s->values[p].buf = b;
    s->buffers[b].refs += s->uses[p] + 1;
    release_buffer(s, b); /* the +1 above keeps an unused value's buffer alive until here */
}

static const char *ins_label(const ins *i, int position, char *buf, size_t size)
{
    if (i->name)
        return i->name;
    snprintf(buf, size, "@%d", position);
    return buf;
}

static bool run_param(run_state *s, const ins *i, int p, const tensor_list *inputs,
                      graft_error *err)
{
    char want[256], have[256];
    print_type_lens(&i->sh, want, sizeof want);
    const named_tensor *given = tensor_list_find(inputs, i->param);
    if (!given)
        return error_set(err, "missing input '%s' (@param %s needs %s)", i->param, i->param, want);
    if (given->t.sh.type != i->sh.type || !shape_same_lens(&given->t.sh, &i->sh)) {
        print_type_lens(&given->t.sh, have, sizeof have);
        return error_set(err, "input '%s' is %s; @param %s needs %s", i->param, have, i->param,
                         want);
    }
    tensor t = {i->sh, NULL};
    int b;
    if (shape_equal(&given->t.sh, &i->sh)) {
        t.data = given->t.data;
        b = new_buffer(s, t.data, false);
    } else {
        char what[300];
        snprintf(what, sizeof what, "input '%.200s'", i->param);
        t.data = exec_alloc(&i->sh, false, what, err);
        if (!t.data)
            return false;
        tensor_copy(&t, &given->t);
        b = new_buffer(s, t.data, true);
    }
    bind_value(s, p, &t, b);
    return true;
}

static bool grow_scratch(run_state *s, int nargs)
{
    if (nargs <= s->args_cap)
        return true;
    tensor *args = realloc(s->args, (size_t)nargs * sizeof *args);
    if (!args)
        return false;
    s->args = args;
    s->args_cap = nargs;
    return true;
}

/* A fused region (ops/ops_region.c): its submodule runs with operand k bound
 * to the parameter x<k>; its outputs are copied into out, one after another
 * at the offsets of ops/tensor.h's tuple layout when there are several, each
 * in the layout of the region's shape. */
static bool run_region(const ins *i, const tensor *inputs, tensor *out, graft_error *err)
{
    if (i->nmods != 1)
        return error_set(err, "fused: needs exactly one submodule, got %d", i->nmods);
    const module *body = i->mods[0];
    tensor_list in = {0, NULL}, outs = {0, NULL};
    bool ok = true;
    for (int k = 0; ok && k < i->nargs; k++) {
        char name[32];
        snprintf(name, sizeof name, "x%d", k);
        ok = tensor_list_add(&in, name, &inputs[k], err);
    }
    ok = ok && exec_run(body, &in, &outs, err);
    tensor_list_free(&in);
    if (!ok) {
        tensor_list_free(&outs);
        error_prefix(err, "region %s", body->name);
        return false;
    }
    bool tuple = shape_is_tuple(&i->sh);
    int want = tuple ? i->sh.ntuple : 1;
    if (outs.n != want) {
        tensor_list_free(&outs);
        return error_set(err, "region %s gave %d outputs, its shape has %d", body->name, outs.n,
                         want);
    }
    char what[300];
    snprintf(what, sizeof what, "the value of region %.200s", body->name);
    out->data = exec_alloc(&i->sh, true, what, err);
    if (!out->data) {
        tensor_list_free(&outs);
        return false;
    }
    for (int k = 0; ok && k < want; k++) {
        tensor dst = {tuple ? i->sh.tuple[k] : i->sh,
                      out->data + (tuple ? tensor_tuple_offset(&i->sh, k) : 0)};
        if (!tensor_copy(&dst, &outs.items[k].t))
            ok = error_set(err, "region %s: output %d does not fit the region's shape", body->name,
                           k);
    }
    tensor_list_free(&outs);
    if (!ok) {
        free(out->data);
        out->data = NULL;
    }
    return ok;
}

bool exec_eval_op(const ins *i, const tensor *inputs, tensor *out, graft_error *err)
{
    out->sh = i->sh;
    out->data = NULL;
    if (i->op->classes & OPC_REGION)
        return run_region(i, inputs, out, err);
    kernel_fn kernel = kernel_for(i->op);
    if (!kernel && i->nmods > 0)
        return error_set(err, "op '%s' has submodules; only fused, if and loop run theirs on "
                              "the reference executor",
                         i->opname ? i->opname : i->op->name);
    if (!kernel)
        return error_set(err, "op '%s' cannot run on the reference executor",
                         i->opname ? i->opname : i->op->name);
    bool view = (i->op->classes & OPC_VIEW) != 0;
    if (view && i->nargs < 1)
        return error_set(err, "view op '%s' has no operand", i->op->name);
    enum { FEW_OPERANDS = 8 };
    shape few[FEW_OPERANDS];
    shape *shapes = i->nargs <= FEW_OPERANDS ? few : malloc((size_t)i->nargs * sizeof *shapes);
    if (!shapes)
        return error_set(err, "out of memory");
    op_call call;
    ins_op_call(i, &call, shapes);
    /* zeroed: an output layout with gaps (never written by the kernel) reads as zeros. */
    char what[300];
    snprintf(what, sizeof what, "the result of %.200s", i->op->name);
    if (!view && !(out->data = exec_alloc(&i->sh, true, what, err))) {
        if (shapes != few)
            free(shapes);
        return false;
    }
    bool ok = kernel(&call, inputs, out, err);
    if (shapes != few)
        free(shapes);
    if (!ok) {
        if (!view)
            free(out->data);
        out->data = NULL;
        return false;
    }
    if (view && !out->data)
        return error_set(err, "view op '%s' gave no data", i->op->name);
    return true;
}

static bool run_op(run_state *s, const ins *i, int p, const char *label, graft_error *err)
{
    if (!grow_scratch(s, i->nargs))
        return error_set(err, "ins %s: out of memory", label);
    for (int k = 0; k < i->nargs; k++)
        s->args[k] = s->values[s->slot[i->args[k]->id]].t;
    tensor out;
    if (!exec_eval_op(i, s->args, &out, err)) {
        error_prefix(err, "ins %s", label);
        return false;
    }
    bool view = (i->op->classes & OPC_VIEW) != 0;
    int b = view ? s->values[s->slot[i->args[0]->id]].buf : new_buffer(s, out.data, true);
    bind_value(s, p, &out, b);
    return true;
}

static void add_output(run_state *s, const ins *arg, int k, tensor_list *outputs, bool *ok,
                       graft_error *err)
{
    char name[32];
    snprintf(name, sizeof name, "output%d", k);
    if (*ok && !tensor_list_add(outputs, name, &s->values[s->slot[arg->id]].t, err))
        *ok = false;
}

static void run_state_free(run_state *s)
{
    for (int b = 0; b < s->nbuffers; b++)
        if (s->buffers[b].owned)
            free(s->buffers[b].data);
    free(s->slot);
    free(s->values);
    free(s->uses);
    free(s->buffers);
    free(s->args);
}

static bool index_module(run_state *s, const module *m, graft_error *err)
{
    s->m = m;
    s->n = 0;
    s->nslots = m->g ? m->g->next_id : 0;
    for (const ins *i = m->first; i; i = i->next) {
        s->n++;
        if (i->id >= s->nslots)
            s->nslots = i->id + 1;
    }
    size_t n = (size_t)(s->n > 0 ? s->n : 1);
    s->slot = malloc((s->nslots ? s->nslots : 1) * sizeof *s->slot);
    s->values = calloc(n, sizeof *s->values);
    s->uses = calloc(n, sizeof *s->uses);
    s->buffers = calloc(n, sizeof *s->buffers);
    if (!s->slot || !s->values || !s->uses || !s->buffers)
        return error_set(err, "out of memory");
    for (uint32_t k = 0; k < s->nslots; k++)
        s->slot[k] = -1;
    int p = 0;
    for (const ins *i = m->first; i; i = i->next, p++) {
        s->slot[i->id] = p;
        s->values[p].buf = -1;
    }
    p = 0;
    for (const ins *i = m->first; i; i = i->next, p++)
        for (int k = 0; k < i->nargs; k++) {
            const ins *a = i->args[k];
            int q = a->id < s->nslots ? s->slot[a->id] : -1;
            if (q < 0 || q >= p) {
                char label[32];
                return error_set(err, "ins %s: operand %d is not an earlier instruction of "
                                      "module %s", ins_label(i, p, label, sizeof label), k,
                                 m->name);
            }
            s->uses[q]++;
        }
    return true;
}

bool exec_run(const module *m, const tensor_list *inputs, tensor_list *outputs, graft_error *err)
{
    run_state s;
    memset(&s, 0, sizeof s);
    if (!m || !m->first) {
        return error_set(err, "module %s has no instructions", m ? m->name : "(none)");
    }
    bool ok = index_module(&s, m, err);
    const ins *ret = NULL;
    for (const ins *i = m->first; i; i = i->next)
        if (i->op->classes & OPC_BUILTIN && strcmp(i->op->name, "@return") == 0)
            ret = i;
    if (ok && !ret)
        s.uses[s.n - 1]++; /* the last instruction is the output: keep it alive */
    int p = 0;
    char label[32];
    for (const ins *i = m->first; ok && i; i = i->next, p++) {
        const char *name = ins_label(i, p, label, sizeof label);
        if (i->param) {
            ok = run_param(&s, i, p, inputs, err);
        } else if (i->op->classes & OPC_BUILTIN && strcmp(i->op->name, "@literal") == 0) {
            tensor t = {i->sh, i->data};
            if (!t.data && shape_bytes(&i->sh) > 0) {
                ok = error_set(err, "ins %s: literal has no data", name);
                break;
            }
            bind_value(&s, p, &t, new_buffer(&s, t.data, false));
        } else if (i == ret) {
            for (int k = 0; k < i->nargs; k++)
                add_output(&s, i->args[k], k, outputs, &ok, err);
        } else if (i->op->classes & OPC_BUILTIN) {
            ok = error_set(err, "ins %s: builtin '%s' cannot run here", name, i->op->name);
        } else {
            ok = run_op(&s, i, p, name, err);
        }
        for (int k = 0; ok && k < i->nargs; k++)
            release_buffer(&s, s.values[s.slot[i->args[k]->id]].buf);
    }
    if (ok && !ret) {
        add_output(&s, m->last, 0, outputs, &ok, err);
        release_buffer(&s, s.values[s.n - 1].buf);
    }
    run_state_free(&s);
    return ok;
}
