/* kernels_control.c: the reference kernels of `if` and `loop`
 * (ops_control.c), which run their submodules on the reference executor
 * (exec.h): a branch once, a loop body once per iteration, its parameters
 * x<k> bound by name to the operands (or, for the loop, to the iteration
 * number, the condition and the current loop-carried values).
 */
#include "exec.h"
#include "ir.h"
#include "kernels_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Binds x<k> to values[k] for every k in [0, n) (a copy each). */
static bool bind_operands(tensor_list *in, const tensor *values, int n, graft_error *err)
{
    for (int k = 0; k < n; k++) {
        char name[32];
        snprintf(name, sizeof name, "x%d", k);
        if (!tensor_list_add(in, name, &values[k], err))
            return false;
    }
    return true;
}

/* Result k of an instruction of shape sh whose data is at base. */
static tensor result_part(const shape *sh, char *base, int k)
{
    bool tuple = shape_is_tuple(sh);
    return (tensor){tuple ? sh->tuple[k] : *sh, base + (tuple ? tensor_tuple_offset(sh, k) : 0)};
}

static int result_count(const shape *sh) { return shape_is_tuple(sh) ? sh->ntuple : 1; }

static bool condition_holds(const tensor *t) { return tensor_get_f64(t, 0) != 0; }

bool kernel_if(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    if (call->nmodules != 2)
        return error_set(err, "if: needs two submodules, got %d", call->nmodules);
    const module *branch = call->modules[condition_holds(&inputs[0]) ? 0 : 1];
    tensor_list in = {0, NULL}, outs = {0, NULL};
    bool ok = bind_operands(&in, inputs, call->ninputs, err) && exec_run(branch, &in, &outs, err);
    if (!ok)
        error_prefix(err, "if: module %s", branch->name);
    int n = result_count(&out->sh);
    if (ok && outs.n != n)
        ok = error_set(err, "if: module %s gave %d values, the if has %d", branch->name, outs.n,
                       n);
    for (int k = 0; ok && k < n; k++) {
        tensor dst = result_part(&out->sh, out->data, k);
        if (!tensor_copy(&dst, &outs.items[k].t))
            ok = error_set(err, "if: value %d of module %s does not fit", k, branch->name);
    }
    tensor_list_free(&in);
    tensor_list_free(&outs);
    return ok;
}

bool kernel_loop(const op_call *call, const tensor *inputs, tensor *out, graft_error *err)
{
    if (call->nmodules != 1)
        return error_set(err, "loop: needs exactly one submodule, got %d", call->nmodules);
    const module *body = call->modules[0];
    int nstates = (int)op_attr_int(call, "states"), n = call->ninputs;
    int64_t most = op_attr_int(call, "max_iterations");
    int64_t trips = tensor_get_i64(&inputs[0], 0);
    int nresults = result_count(&out->sh), nscans = nresults - nstates;
    /* the body's view of the operands: x0 the iteration, x1 the condition,
     * x2.. the loop-carried values (owned copies from the second iteration
     * on), then what it reads unchanged */
    tensor *seen = calloc((size_t)n, sizeof *seen);
    bool *owned = calloc((size_t)n, sizeof *owned);
    int64_t one = 1, iteration = 0;
    bool cond_value = condition_holds(&inputs[1]), ok = seen && owned;
    if (!ok) {
        free(seen);
        free(owned);
        return error_set(err, "loop: out of memory");
    }
    char iteration_bytes[8], cond_byte[1];
    seen[0] = (tensor){shape_standard(GRAFT_INT64, 1, &one), iteration_bytes};
    seen[1] = (tensor){shape_standard(GRAFT_BOOL, 1, &one), cond_byte};
    for (int k = 2; k < n; k++)
        seen[k] = inputs[k];
    while (ok && cond_value && iteration < trips && (most < 0 || iteration < most)) {
        tensor_set_i64(&seen[0], 0, iteration);
        tensor_set_i64(&seen[1], 0, 1);
        tensor_list in = {0, NULL}, outs = {0, NULL};
        ok = bind_operands(&in, seen, n, err) && exec_run(body, &in, &outs, err);
        if (!ok)
            error_prefix(err, "loop: module %s, iteration %lld", body->name, (long long)iteration);
        if (ok && outs.n != 1 + nstates + nscans)
            ok = error_set(err, "loop: module %s gave %d values, expected %d", body->name, outs.n,
                           1 + nstates + nscans);
        if (ok) {
            cond_value = condition_holds(&outs.items[0].t);
            for (int k = 0; k < nstates; k++) {
                /* take the list's copy over */
                if (owned[2 + k])
                    free(seen[2 + k].data);
                seen[2 + k] = outs.items[1 + k].t;
                owned[2 + k] = true;
                outs.items[1 + k].t.data = NULL;
            }
            for (int k = 0; ok && k < nscans; k++) {
                tensor dst = result_part(&out->sh, out->data, nstates + k);
                const tensor *row = &outs.items[1 + nstates + k].t;
                int64_t per = shape_elements(&row->sh);
                if (shape_elements(&dst.sh) != per * most) {
                    ok = error_set(err, "loop: scan value %d of module %s does not fit", k,
                                   body->name);
                    break;
                }
                int64_t lens[SHAPE_MAX_RANK];
                lens[0] = 1;
                for (int d = 0; d < row->sh.rank; d++)
                    lens[d + 1] = row->sh.lens[d];
                tensor at = {shape_standard(dst.sh.type, row->sh.rank + 1, lens),
                             (char *)dst.data + (size_t)(iteration * per) * type_size(dst.sh.type)};
                if (!tensor_copy(&at, row))
                    ok = error_set(err, "loop: scan value %d of module %s does not fit", k,
                                   body->name);
            }
        }
        tensor_list_free(&in);
        tensor_list_free(&outs);
        iteration++;
    }
    for (int k = 0; ok && k < nstates; k++) {
        tensor dst = result_part(&out->sh, out->data, k);
        if (!tensor_copy(&dst, &seen[2 + k]))
            ok = error_set(err, "loop: loop-carried value %d does not fit", k);
    }
    for (int k = 0; k < n; k++)
        if (owned[k])
            free(seen[k].data);
    free(seen);
    free(owned);
    return ok;
}
