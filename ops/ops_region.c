/* ops_region.c: `fused`, the op of a fused region.
 *
 * A fused region is one instruction that owns one submodule: its operands
 * are the region's inputs, bound to the submodule's @params by name (operand
 * k is the parameter x<k>), and its value is what the submodule's @return
 * returns: that operand's shape for one output, a tuple of their shapes for
 * several (read with get_tuple_elem). Rewrites build regions with
 * rw_region (engine/rewrite.h, outlining in engine/region.h), readers with
 * module_insert_with_modules (ir/ir.h); the reference executor runs the submodule
 * (ops/exec.c); the dump writes it as `fused(...), [main:fused0] -> ...`.
 *
 * The shape rule reads the submodule, so it checks what binds the two
 * together: one @param per operand with the operand's type and lens (the
 * layout may differ: the executor copies an input into its parameter's
 * layout), and a @return with at least one tensor.
 */
#include "ir.h"
#include "ops_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ops_param_operand(const char *name)
{
    if (!name || name[0] != 'x' || name[1] < '0' || name[1] > '9')
        return -1;
    if (name[1] == '0' && name[2])
        return -1; /* x01 is not x1 */
    char *end;
    long k = strtol(name + 1, &end, 10);
    return *end || k > 1000000 ? -1 : (int)k;
}

static bool check_params(const op_call *call, const module *body, graft_error *err)
{
    int nparams = 0;
    char a[200], b[200];
    for (const ins *i = body->first; i; i = i->next)
        nparams += i->param != NULL;
    if (nparams != call->ninputs)
        return error_set(err, "fused: %d operand%s but module \"%s\" has %d @param%s",
                         call->ninputs, call->ninputs == 1 ? "" : "s", body->name, nparams,
                         nparams == 1 ? "" : "s");
    for (const ins *i = body->first; i; i = i->next) {
        if (!i->param)
            continue;
        int k = ops_param_operand(i->param);
        if (k < 0 || k >= call->ninputs)
            return error_set(err, "fused: module \"%s\" has @param %s; its parameters must be "
                                  "x0..x%d, one per operand",
                             body->name, i->param, call->ninputs - 1);
        const shape *in = &call->inputs[k];
        if (in->type != i->sh.type || !shape_same_lens(in, &i->sh))
            return error_set(err, "fused: operand %d is %s %s but @param %s of module \"%s\" is "
                                  "%s %s",
                             k, type_name(in->type), ops_lens_text(in, a, sizeof a), i->param,
                             body->name, type_name(i->sh.type), ops_lens_text(&i->sh, b, sizeof b));
        for (const ins *j = body->first; j != i; j = j->next)
            if (j->param && strcmp(j->param, i->param) == 0)
                return error_set(err, "fused: module \"%s\" has @param %s twice", body->name,
                                 i->param);
    }
    return true;
}

static bool fused_shape(const op_call *call, shape *out, graft_error *err)
{
    if (call->nmodules != 1 || !call->modules || !call->modules[0])
        return error_set(err, "fused: needs exactly one submodule, got %d", call->nmodules);
    const module *body = call->modules[0];
    if (!check_params(call, body, err))
        return false;
    const ins *ret = module_return(body);
    if (!ret || ret->nargs < 1)
        return error_set(err, "fused: module \"%s\" has no @return with a value", body->name);
    for (int k = 0; k < ret->nargs; k++)
        if (shape_is_tuple(&ret->args[k]->sh))
            return error_set(err, "fused: output %d of module \"%s\" is a tuple", k, body->name);
    if (ret->nargs == 1) {
        *out = ret->args[0]->sh;
        return true;
    }
    shape *sub = arena_alloc(&body->g->mem, (size_t)ret->nargs * sizeof *sub);
    if (!sub)
        return error_set(err, "fused: out of memory");
    for (int k = 0; k < ret->nargs; k++)
        sub[k] = ret->args[k]->sh;
    memset(out, 0, sizeof *out);
    out->type = GRAFT_TUPLE;
    out->ntuple = ret->nargs;
    out->tuple = sub;
    return true;
}

op_def ops_region_table[] = {
    {.name = "fused", .classes = OPC_REGION, .min_args = 0, .max_args = -1,
     .compute_shape = fused_shape},
};
const int ops_region_count = (int)(sizeof ops_region_table / sizeof ops_region_table[0]);
