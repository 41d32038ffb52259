/* kernel_call.h: calling one op's shape rule and reference kernel on inputs
 * laid out by hand, for the unit tests of the reference kernels
 * (test_kernels.c) and of the ops added for the ONNX importer (test_ops_*.c).
 *
 * An op call starts from the op's declared attribute defaults; a test
 * overrides attributes by name, adds inputs (any type, any strides) and runs
 * the shape rule then the kernel, as the executor does. kc_run returns false
 * with the message in c->err on a shape-rule or kernel error, so tests can
 * check that bad input is refused with a message naming the mismatch.
 */
#ifndef GRAFT_TEST_KERNEL_CALL_H
#define GRAFT_TEST_KERNEL_CALL_H

#include "check.h"
#include "kernels.h"
#include "tensor.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { KC_MAX_IN = 8 };

typedef struct kcall {
    const op_def *op;
    attr attrs[16];
    shape shapes[KC_MAX_IN];
    tensor in[KC_MAX_IN];
    int n;
    tensor out;
    bool out_owned;
    graft_error err;
} kcall;

static void kc_init(kcall *c, const char *opname)
{
    memset(c, 0, sizeof *c);
    c->op = op_find(opname);
    CHECK(c->op != NULL);
    if (!c->op)
        return;
    for (int i = 0; i < c->op->nattrs && i < 16; i++) {
        c->attrs[i].key = c->op->attrs[i].name;
        c->attrs[i].v = c->op->attrs[i].dflt;
    }
}

static void kc_set(kcall *c, const char *key, attr_value v)
{
    int i = c->op ? op_attr_index(c->op, key) : -1;
    CHECK(i >= 0);
    if (i < 0)
        return;
    /* an enum given by name, as the builder reads it */
    const attr_spec *spec = &c->op->attrs[i];
    if (v.kind == ATTR_STRING && spec->enum_names) {
        int e = op_enum_value(spec, v.u.s, strlen(v.u.s));
        CHECK(e >= 0);
        v = attr_int(e);
    }
    c->attrs[i].v = v;
}

/* An input of type t whose row-major values are v (converted to t). */
static void kc_input(kcall *c, graft_type t, int rank, const int64_t *lens, const double *v)
{
    shape s = shape_standard(t, rank, lens);
    tensor x = {s, calloc(1, shape_bytes(&s) + 1)};
    for (int64_t i = 0; i < shape_elements(&s); i++)
        tensor_set_f64(&x, i, v[i]);
    c->in[c->n] = x;
    c->shapes[c->n] = s;
    c->n++;
}

/* An input whose memory is given exactly (strides NULL: standard). */
static void kc_input_raw(kcall *c, graft_type t, int rank, const int64_t *lens,
                         const int64_t *strides, const void *mem, size_t nbytes)
{
    shape s = strides ? shape_with_strides(t, rank, lens, strides) : shape_standard(t, rank, lens);
    char *data = malloc(nbytes ? nbytes : 1);
    memcpy(data, mem, nbytes);
    c->in[c->n] = (tensor){s, data};
    c->shapes[c->n] = s;
    c->n++;
}

static bool kc_run(kcall *c)
{
    op_call call = {c->op, c->attrs, c->shapes, c->n, NULL, 0};
    if (!c->op || !op_compute_shape(&call, &c->out.sh, &c->err))
        return false;
    kernel_fn k = kernel_for(c->op);
    if (!k) {
        snprintf(c->err.message, sizeof c->err.message, "no kernel");
        return false;
    }
    c->out_owned = !(c->op->classes & OPC_VIEW);
    c->out.data = c->out_owned ? calloc(1, shape_bytes(&c->out.sh) + 1) : NULL;
    return k(&call, c->in, &c->out, &c->err);
}

#define KC_RUN_OK(c) \
    do { if (!kc_run(c)) check_fail(__FILE__, __LINE__, (c)->err.message); } while (0)

/* Runs the call, which must fail with a message containing `what`. */
#define KC_RUN_FAILS(c, what) \
    do { CHECK(!kc_run(c)); CHECK_CONTAINS((c)->err.message, what); } while (0)

static void kc_free(kcall *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->in[i].data);
    if (c->out_owned)
        free(c->out.data);
    c->n = 0;
    c->out_owned = false;
}

/* The result's lens and its row-major values, within tol. */
static void kc_check(const kcall *c, int rank, const int64_t *lens, const double *want, double tol)
{
    CHECK_INT(c->out.sh.rank, rank);
    for (int i = 0; i < rank && i < c->out.sh.rank; i++)
        CHECK_INT(c->out.sh.lens[i], lens[i]);
    int64_t n = shape_elements(&c->out.sh);
    for (int64_t i = 0; i < n; i++)
        CHECK_NEAR(tensor_get_f64(&c->out, i), want[i], tol);
}

#define KC_LENS(...) (const int64_t[]){__VA_ARGS__}
#define KC_VALS(...) (const double[]){__VA_ARGS__}
#define KC_RANK(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

#endif
