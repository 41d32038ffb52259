/* ops_builtin.c: @param, @literal, @return, identity and get_tuple_elem.
 *
 * The builtins are ordinary instructions to the IR, but they have no rule of
 * their own: a parameter's and a literal's shape is given where they are made
 * (ir.c keeps it; asking the rule is an error that says so). @return has no
 * value of its own; its rule gives an empty tuple (type GRAFT_TUPLE, rank 0,
 * no sub-shapes), which the dump writer never prints. identity and
 * get_tuple_elem are views: identity hands its operand through unchanged,
 * get_tuple_elem picks one result of a multi-output region.
 */
#include "ops_util.h"

#include <string.h>

static bool given_shape(const op_call *call, shape *out, graft_error *err)
{
    (void)out;
    return error_set(err, "%s: the shape is given where it is made, not computed",
                     call->op->name);
}

static bool return_shape(const op_call *call, shape *out, graft_error *err)
{
    (void)call;
    (void)err;
    memset(out, 0, sizeof *out);
    out->type = GRAFT_TUPLE;
    return true;
}

static bool identity_shape(const op_call *call, shape *out, graft_error *err)
{
    (void)err;
    *out = call->inputs[0];
    return true;
}

static bool get_tuple_elem_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    int64_t index = op_attr_int(call, "index");
    if (in->type != GRAFT_TUPLE)
        return error_set(err, "get_tuple_elem: operand is not a tuple (%s)", type_name(in->type));
    if (index < 0 || index >= in->ntuple)
        return error_set(err, "get_tuple_elem: index %lld is out of range for a tuple of %d",
                         (long long)index, in->ntuple);
    *out = in->tuple[index];
    return true;
}

static const attr_spec get_tuple_elem_attrs[] = {
    {"index", ATTR_INT, OPS_DFLT_INT(0), false, NULL},
};

op_def ops_builtin_table[] = {
    {.name = "@param", .classes = OPC_BUILTIN, .min_args = 0, .max_args = 0,
     .compute_shape = given_shape},
    {.name = "@literal", .classes = OPC_BUILTIN, .min_args = 0, .max_args = 0,
     .compute_shape = given_shape},
    {.name = "@return", .classes = OPC_BUILTIN, .min_args = 0, .max_args = -1,
     .compute_shape = return_shape},
    {.name = "identity", .classes = OPC_VIEW, .min_args = 1, .max_args = 1,
     .compute_shape = identity_shape},
    {.name = "get_tuple_elem", .classes = OPC_VIEW, .min_args = 1, .max_args = 1,
     .attrs = get_tuple_elem_attrs, .nattrs = 1, .compute_shape = get_tuple_elem_shape},
};
const int ops_builtin_count = (int)(sizeof ops_builtin_table / sizeof ops_builtin_table[0]);
