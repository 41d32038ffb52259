/* const_fold.c: computes the literal of a `=> fold(c)` replacement.
 *
 * Rules decide when to fold (which ops, how large a result); this file only
 * evaluates: it checks that every operand of the instruction is a literal,
 * runs the instruction's op once with the reference executor's own kernel
 * call (exec_eval_op, ops/exec.c), and inserts the result as a literal of
 * the instruction's exact shape through the rewriter, so an aborted match
 * removes it again. Nothing here prints or exits; any failure returns NULL
 * and the rule does not fire.
 */
#include "const_fold.h"

#include "exec.h"

#include <stdlib.h>
#include <string.h>

static bool is_literal_with_data(const ins *i)
{
    if (!(i->op->classes & OPC_BUILTIN) || strcmp(i->op->name, "@literal") != 0)
        return false;
    return i->data != NULL || shape_bytes(&i->sh) == 0;
}

/* Whether value is an instruction fold can evaluate: an executable op (no
 * builtin, opaque or region instruction), one or more operands, all literals. */
static bool foldable(const ins *value)
{
    if (value->op->classes & (OPC_BUILTIN | OPC_OPAQUE))
        return false;
    if (value->nmods > 0 || value->nargs < 1 || shape_is_tuple(&value->sh))
        return false;
    if (shape_elements(&value->sh) > FOLD_MAX_ELEMENTS)
        return false;
    for (int k = 0; k < value->nargs; k++)
        if (!is_literal_with_data(value->args[k]))
            return false;
    return true;
}

ins *rule_fold_constant(rewriter *rw, ins *before, ins *value)
{
    if (!rw || !value || !foldable(value))
        return NULL;
    tensor *inputs = malloc((size_t)value->nargs * sizeof *inputs);
    if (!inputs)
        return NULL;
    for (int k = 0; k < value->nargs; k++) {
        inputs[k].sh = value->args[k]->sh;
        inputs[k].data = value->args[k]->data;
    }
    tensor out;
    graft_error err;
    bool ok = exec_eval_op(value, inputs, &out, &err);
    free(inputs);
    if (!ok)
        return NULL;
    /* out.data points at element zero of value's layout: its element space
     * (shape_bytes) is exactly what a literal of value's shape stores. A view
     * aliases its operand's data; anything else was allocated for us. */
    ins *lit = rw_literal(rw, before, &value->sh, out.data);
    if (!(value->op->classes & OPC_VIEW))
        free(out.data);
    return lit;
}
