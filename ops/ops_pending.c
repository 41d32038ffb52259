/* ops_pending.c: pending_shape_change, the placeholder of lazy shapes.
 *
 * It exists only between rewrites (engine/lazy_shapes.h): a rewrite that
 * changes a value's shape inserts it so that the users keep the shape they
 * were computed with. Its value is the operand, transposed by `permutation`
 * when one is given, read row-major as `lens` when those differ from the
 * operand's, presented with `strides` (standard when empty). It has no
 * kernel on purpose: the graph is not runnable until shapes_resolve has
 * folded or materialised every one of them.
 */
#include "ops_util.h"

#include <string.h>

static bool pending_shape(const op_call *call, shape *out, graft_error *err)
{
    const shape *in = &call->inputs[0];
    int nlens = 0, nstrides = 0, nperm = 0;
    const int64_t *lens = op_attr_ints(call, "lens", &nlens);
    const int64_t *strides = op_attr_ints(call, "strides", &nstrides);
    const int64_t *perm = op_attr_ints(call, "permutation", &nperm);
    char a[200], b[200];
    if (shape_is_tuple(in))
        return error_set(err, "pending_shape_change: operand is a tuple");
    if (nlens < 1 || nlens > SHAPE_MAX_RANK)
        return error_set(err, "pending_shape_change: lens %s must have 1 to %d entries",
                         ops_ints_text(lens, nlens, a, sizeof a), SHAPE_MAX_RANK);
    if (nstrides != 0 && nstrides != nlens)
        return error_set(err, "pending_shape_change: strides %s do not match lens %s",
                         ops_ints_text(strides, nstrides, a, sizeof a),
                         ops_ints_text(lens, nlens, b, sizeof b));
    if (nperm != 0 && !ops_is_permutation(perm, nperm, in->rank))
        return error_set(err, "pending_shape_change: permutation %s is not a permutation of %d axes",
                         ops_ints_text(perm, nperm, a, sizeof a), in->rank);
    int64_t count = 0;
    if (!ops_lens_product(lens, nlens, &count))
        return error_set(err, "pending_shape_change: lens %s overflow",
                         ops_ints_text(lens, nlens, a, sizeof a));
    for (int k = 0; k < nlens; k++)
        if (lens[k] < 0 || (nstrides && strides[k] < 0))
            return error_set(err, "pending_shape_change: negative lens or strides");
    if (count != shape_elements(in))
        return error_set(err, "pending_shape_change: lens %s hold %lld elements, operand %s holds %lld",
                         ops_ints_text(lens, nlens, a, sizeof a), (long long)count,
                         ops_lens_text(in, b, sizeof b), (long long)shape_elements(in));
    *out = nstrides ? shape_with_strides(in->type, nlens, lens, strides)
                    : shape_standard(in->type, nlens, lens);
    return true;
}

static const attr_spec pending_attrs[] = {
    {"lens", ATTR_INTS, OPS_DFLT_NO_INTS, true, NULL},
    {"strides", ATTR_INTS, OPS_DFLT_NO_INTS, false, NULL},
    {"permutation", ATTR_INTS, OPS_DFLT_NO_INTS, false, NULL},
};

op_def ops_pending_table[] = {
    {.name = "pending_shape_change", .classes = 0, .min_args = 1, .max_args = 1,
     .attrs = pending_attrs, .nattrs = 3, .compute_shape = pending_shape},
};
const int ops_pending_count = (int)(sizeof ops_pending_table / sizeof ops_pending_table[0]);

/* ---- graft-extension attributes ----
 * Attributes graft adds to MIGraphX ops for lazy shapes. The dump writer
 * leaves them out while they hold their default, so a MIGraphX program reads
 * and prints exactly as MIGraphX prints it. */
static const struct {
    const char *op, *attr;
} extension_attrs[] = {
    {"dot", "output_permutation"},
    {"quant_dot", "output_permutation"},
    {"concat", "in_place"},
};

bool op_attr_is_extension(const op_def *op, int k)
{
    if (!op || k < 0 || k >= op->nattrs)
        return false;
    for (size_t e = 0; e < sizeof extension_attrs / sizeof extension_attrs[0]; e++)
        if (strcmp(op->name, extension_attrs[e].op) == 0 &&
            strcmp(op->attrs[k].name, extension_attrs[e].attr) == 0)
            return true;
    return false;
}
