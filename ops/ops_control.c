/* ops_control.c: control flow, `if` and `loop`: ops whose value is what a
 * submodule computes, chosen or repeated at run time.
 *
 * Like `fused` (ops_region.c), a submodule reads the instruction's operands
 * through parameters named x<k> (x<k> binds operand k; a body need not read
 * every operand, and the layout may differ: the executor copies), and its
 * @return gives the value. A result of several values is a tuple, read with
 * get_tuple_elem; each value is standard.
 *
 *   if(cond, x1, ...), [then, else]: cond has one element (nonzero: true);
 *     the then module runs when it is true, else the else module. Both
 *     return the same number of values with the same types and lens (ONNX's
 *     If with both branches' outputs of one shape; graft's shapes are
 *     static). MIGraphX's `if` has the same two submodules.
 *   loop[states, max_iterations](trips, cond, s1..sN, x..), [body]: ONNX's
 *     Loop. trips is int64 and cond bool, one element each; the N = states
 *     operands after them are the loop-carried values, the rest are values
 *     the body reads unchanged. The body sees x0 = the iteration number
 *     (int64 {1}), x1 = the condition (bool {1}) and x<k> = operand k
 *     otherwise, with x2..x<N+1> the current loop-carried values; it returns
 *     the next condition (one element), the N next values (each of its
 *     operand's type and lens) and any number of scan values. The body runs
 *     while the iteration number is below trips (and below max_iterations
 *     when that is not -1) and the condition holds. The result: the N final
 *     values, then each scan value stacked over the iterations on a new
 *     first axis of length max_iterations (so scan values need a
 *     max_iterations other than -1; the rows of iterations that did not run
 *     are zeros).
 */
#include "ir.h"
#include "ops_util.h"

#include <string.h>

/* Every parameter of body is x<k>, for an operand k (of the shapes in
 * `seen`, the operands as the body sees them), once, of that operand's type
 * and lens. */
static bool check_body_params(const op_call *call, const module *body, const shape *seen,
                              int nseen, graft_error *err)
{
    char a[200], b[200];
    for (const ins *i = body->first; i; i = i->next) {
        if (!i->param)
            continue;
        int k = ops_param_operand(i->param);
        if (k < 0 || k >= nseen)
            return error_set(err, "%s: module \"%s\" has @param %s; its parameters must be "
                                  "x0..x%d, one per operand",
                             call->op->name, body->name, i->param, nseen - 1);
        if (seen[k].type != i->sh.type || !shape_same_lens(&seen[k], &i->sh))
            return error_set(err, "%s: operand %d is %s %s but @param %s of module \"%s\" is "
                                  "%s %s",
                             call->op->name, k, type_name(seen[k].type),
                             ops_lens_text(&seen[k], a, sizeof a), i->param, body->name,
                             type_name(i->sh.type), ops_lens_text(&i->sh, b, sizeof b));
        for (const ins *j = body->first; j != i; j = j->next)
            if (j->param && strcmp(j->param, i->param) == 0)
                return error_set(err, "%s: module \"%s\" has @param %s twice", call->op->name,
                                 body->name, i->param);
    }
    return true;
}

static const ins *body_return(const op_call *call, const module *body, int at_least,
                              graft_error *err)
{
    const ins *ret = module_return(body);
    if (!ret || ret->nargs < at_least) {
        error_set(err, "%s: module \"%s\" must return at least %d value%s", call->op->name,
                  body->name, at_least, at_least == 1 ? "" : "s");
        return NULL;
    }
    for (int k = 0; k < ret->nargs; k++)
        if (shape_is_tuple(&ret->args[k]->sh)) {
            error_set(err, "%s: output %d of module \"%s\" is a tuple", call->op->name, k,
                      body->name);
            return NULL;
        }
    return ret;
}

/* The result: values[0..n) as standard shapes, a tuple when n > 1. */
static bool result_of(const op_call *call, const module *body, const shape *values, int n,
                      shape *out, graft_error *err)
{
    if (n == 1) {
        *out = shape_as_standard(&values[0]);
        return true;
    }
    shape *sub = arena_alloc(&body->g->mem, (size_t)n * sizeof *sub);
    if (!sub)
        return error_set(err, "%s: out of memory", call->op->name);
    for (int k = 0; k < n; k++)
        sub[k] = shape_as_standard(&values[k]);
    memset(out, 0, sizeof *out);
    out->type = GRAFT_TUPLE;
    out->ntuple = n;
    out->tuple = sub;
    return true;
}

static bool check_one_element(const op_call *call, int k, const char *what, graft_type type,
                              graft_error *err)
{
    const shape *s = &call->inputs[k];
    if (shape_elements(s) != 1 || (type != GRAFT_TUPLE && s->type != type))
        return error_set(err, "%s: %s (operand %d) must be one %s element, not %s", call->op->name,
                         what, k, type == GRAFT_TUPLE ? "" : type_name(type),
                         type_name(s->type));
    return true;
}

static bool if_shape(const op_call *call, shape *out, graft_error *err)
{
    if (call->nmodules != 2 || !call->modules || !call->modules[0] || !call->modules[1])
        return error_set(err, "if: needs two submodules (then, else), got %d", call->nmodules);
    if (!check_one_element(call, 0, "the condition", GRAFT_TUPLE, err))
        return false;
    const ins *rets[2];
    for (int b = 0; b < 2; b++)
        if (!check_body_params(call, call->modules[b], call->inputs, call->ninputs, err) ||
            !(rets[b] = body_return(call, call->modules[b], 1, err)))
            return false;
    if (rets[0]->nargs != rets[1]->nargs)
        return error_set(err, "if: module \"%s\" returns %d values, module \"%s\" %d",
                         call->modules[0]->name, rets[0]->nargs, call->modules[1]->name,
                         rets[1]->nargs);
    int n = rets[0]->nargs;
    shape values[64];
    if (n > 64)
        return error_set(err, "if: more than 64 results");
    char a[200], b[200];
    for (int k = 0; k < n; k++) {
        const shape *t = &rets[0]->args[k]->sh, *e = &rets[1]->args[k]->sh;
        if (t->type != e->type || !shape_same_lens(t, e))
            return error_set(err, "if: result %d is %s %s in module \"%s\" but %s %s in module "
                                  "\"%s\"",
                             k, type_name(t->type), ops_lens_text(t, a, sizeof a),
                             call->modules[0]->name, type_name(e->type),
                             ops_lens_text(e, b, sizeof b), call->modules[1]->name);
        values[k] = *t;
    }
    return result_of(call, call->modules[0], values, n, out, err);
}

static bool loop_shape(const op_call *call, shape *out, graft_error *err)
{
    if (call->nmodules != 1 || !call->modules || !call->modules[0])
        return error_set(err, "loop: needs exactly one submodule, got %d", call->nmodules);
    const module *body = call->modules[0];
    int64_t nstates = op_attr_int(call, "states"), most = op_attr_int(call, "max_iterations");
    if (call->ninputs < 2 || nstates < 0 || nstates > call->ninputs - 2 || nstates > 64)
        return error_set(err, "loop: %lld loop-carried values but %d operands (trip count, "
                              "condition, the values, what the body reads)",
                         (long long)nstates, call->ninputs);
    if (most < -1)
        return error_set(err, "loop: max_iterations %lld is below -1", (long long)most);
    if (!check_one_element(call, 0, "the trip count", GRAFT_INT64, err) ||
        !check_one_element(call, 1, "the condition", GRAFT_BOOL, err))
        return false;
    shape seen[256];
    if (call->ninputs > 256)
        return error_set(err, "loop: more than 256 operands");
    int64_t one = 1;
    for (int k = 0; k < call->ninputs; k++)
        seen[k] = call->inputs[k];
    seen[0] = shape_standard(GRAFT_INT64, 1, &one);
    seen[1] = shape_standard(GRAFT_BOOL, 1, &one);
    const ins *ret;
    if (!check_body_params(call, body, seen, call->ninputs, err) ||
        !(ret = body_return(call, body, 1 + (int)nstates, err)))
        return false;
    if (shape_elements(&ret->args[0]->sh) != 1)
        return error_set(err, "loop: the condition module \"%s\" returns has %lld elements, "
                              "not 1",
                         body->name, (long long)shape_elements(&ret->args[0]->sh));
    int nscans = ret->nargs - 1 - (int)nstates, n = (int)nstates + nscans;
    if (n < 1)
        return error_set(err, "loop: no loop-carried or scan values: the loop has no result");
    if (nscans > 0 && most < 0)
        return error_set(err, "loop: %d scan value%s need max_iterations (the length they are "
                              "stacked to)",
                         nscans, nscans == 1 ? "" : "s");
    shape values[128];
    if (n > 128)
        return error_set(err, "loop: more than 128 results");
    char a[200], b[200];
    for (int k = 0; k < nstates; k++) {
        const shape *got = &ret->args[1 + k]->sh, *want = &call->inputs[2 + k];
        if (got->type != want->type || !shape_same_lens(got, want))
            return error_set(err, "loop: loop-carried value %d goes in as %s %s and comes out "
                                  "of module \"%s\" as %s %s",
                             k, type_name(want->type), ops_lens_text(want, a, sizeof a),
                             body->name, type_name(got->type), ops_lens_text(got, b, sizeof b));
        values[k] = *want;
    }
    for (int k = 0; k < nscans; k++) {
        const shape *s = &ret->args[1 + nstates + k]->sh;
        if (s->rank >= SHAPE_MAX_RANK)
            return error_set(err, "loop: scan value %d of rank %d cannot gain an axis", k,
                             s->rank);
        int64_t lens[SHAPE_MAX_RANK];
        lens[0] = most;
        for (int d = 0; d < s->rank; d++)
            lens[d + 1] = s->lens[d];
        if (!ops_check_result_lens(call, lens, s->rank + 1, err))
            return false;
        values[nstates + k] = shape_standard(s->type, s->rank + 1, lens);
    }
    return result_of(call, body, values, n, out, err);
}

static const attr_spec loop_attrs[] = {
    {"states", ATTR_INT, OPS_DFLT_INT(0), false, NULL},
    {"max_iterations", ATTR_INT, OPS_DFLT_INT(-1), false, NULL},
};

op_def ops_control_table[] = {
    {.name = "if", .classes = OPC_COMPUTE, .min_args = 1, .max_args = -1,
     .compute_shape = if_shape},
    {.name = "loop", .classes = OPC_COMPUTE, .min_args = 2, .max_args = -1,
     .attrs = loop_attrs, .nattrs = 2, .compute_shape = loop_shape},
};
const int ops_control_count = (int)(sizeof ops_control_table / sizeof ops_control_table[0]);
