/* onnx_ops_loss.c: the training losses NegativeLogLikelihoodLoss and
 * SoftmaxCrossEntropyLoss, imported as graphs of existing ops (MIGraphX has
 * no op for either).
 *
 * NegativeLogLikelihoodLoss(input [N, C, d...], target [N, d...], weight [C]):
 *     loss[n, d...] = -input[n, target[n, d...], d...] * weight[target[n, d...]]
 * and 0 where target equals ignore_index. The class an element picks is a
 * mask, equal(target, c) for each class c along axis 1, so the decomposition
 * needs no data-dependent indexing and is exact: the picked value is
 * reduce_sum(where(mask, input, 0)) over the class axis, a sum of one value
 * and zeros (a target outside [0, C) picks nothing and gives 0, which is what
 * an ignored target needs). The weight of each element is picked the same
 * way. Reductions: none keeps [N, d...]; sum adds every element; mean
 * divides the sum by the sum of the weights (by the element count when there
 * is neither a weight nor an ignore_index).
 *
 * SoftmaxCrossEntropyLoss(scores, labels, weight) is the same loss over
 * logsoftmax(scores) along axis 1; its optional second output is that
 * log-probability tensor.
 */
#include "onnx_private.h"

#include <string.h>

/* The loss of one node: log_prob [N, C, d...] (already log-probabilities),
 * target [N, d...], weight [C] or NULL. */
static ins *nll_loss(onnx_ctx *c, ins *log_prob, ins *target, ins *weight)
{
    const shape *x = &log_prob->sh;
    int r = x->rank;
    if (r < 2)
        return onnx_fail(c, "input must have rank 2 or more, has %d", r), NULL;
    if (!type_is_integer(target->sh.type) || target->sh.type == GRAFT_BOOL)
        return onnx_fail(c, "target must be integers, not %s", type_name(target->sh.type)), NULL;
    bool target_fits = target->sh.rank == r - 1;
    for (int a = 0; target_fits && a < r - 1; a++)
        target_fits = target->sh.lens[a] == x->lens[a == 0 ? 0 : a + 1];
    if (!target_fits)
        return onnx_fail(c, "target must have the input's lens without axis 1"), NULL;
    int64_t classes = x->lens[1];
    if (weight && (weight->sh.rank != 1 || weight->sh.lens[0] != classes))
        return onnx_fail(c, "weight must have one value per class (%lld)", (long long)classes),
               NULL;
    if (weight && weight->sh.type != x->type)
        return onnx_fail(c, "weight is %s, input %s", type_name(weight->sh.type),
                         type_name(x->type)),
               NULL;
    char reduction[16];
    onnx_attr_string(c, "reduction", "mean", reduction, sizeof reduction);
    bool none = strcmp(reduction, "none") == 0, sum = strcmp(reduction, "sum") == 0;
    if (!none && !sum && strcmp(reduction, "mean") != 0)
        return onnx_fail(c, "unknown reduction '%s'", reduction), NULL;
    const Onnx__AttributeProto *ii = onnx_attr(c, "ignore_index");

    /* mask[n, c, d...] = target[n, d...] == c */
    graft_type tt = target->sh.type;
    int64_t axis1 = 1;
    ins *t = onnx_broadcast_to(c, onnx_emit_ints(c, "unsqueeze", "axes", &axis1, 1, target), r,
                               x->lens);
    int64_t *ids = arena_alloc(&c->scratch, (size_t)classes * sizeof *ids + 1);
    if (!ids)
        return onnx_fail(c, "out of memory"), NULL;
    for (int64_t k = 0; k < classes; k++)
        ids[k] = k;
    ins *class_ids = onnx_convert(c, onnx_int64_literal(c, ids, (int)classes), tt);
    ins *mask = onnx_convert(
        c, onnx_emit2(c, "equal", t, onnx_broadcast_axis(c, class_ids, 1, r, x->lens)), GRAFT_BOOL);
    ins *zeros = onnx_broadcast_to(c, onnx_scalar(c, x->type, 0), r, x->lens);

    /* picks along the class axis: [N, 1, d...] -> [N, d...] */
    ins *args[3] = {mask, log_prob, zeros};
    ins *picked = onnx_emit(c, "where", NULL, 0, args, 3);
    picked = onnx_emit_ints(c, "squeeze", "axes", &axis1, 1,
                            onnx_emit_ints(c, "reduce_sum", "axes", &axis1, 1, picked));
    ins *loss = onnx_emit1(c, "neg", picked);
    if (!loss)
        return NULL;
    const shape *ls = &loss->sh;

    /* the weight of each element; NULL: 1 everywhere */
    ins *w = NULL;
    if (weight) {
        ins *wargs[3] = {mask, onnx_broadcast_axis(c, weight, 1, r, x->lens), zeros};
        w = onnx_emit(c, "where", NULL, 0, wargs, 3);
        w = onnx_emit_ints(c, "squeeze", "axes", &axis1, 1,
                           onnx_emit_ints(c, "reduce_sum", "axes", &axis1, 1, w));
    }
    if (ii) {
        ins *ignored = onnx_binary(c, "equal", target, onnx_scalar(c, tt, (double)ii->i));
        ins *valid = onnx_convert(c, onnx_emit1(c, "not", onnx_convert(c, ignored, GRAFT_BOOL)),
                                  GRAFT_BOOL);
        ins *lzeros = onnx_broadcast_to(c, onnx_scalar(c, x->type, 0), ls->rank, ls->lens);
        if (w) {
            ins *a[3] = {valid, w, lzeros};
            w = onnx_emit(c, "where", NULL, 0, a, 3);
        } else {
            ins *ones = onnx_broadcast_to(c, onnx_scalar(c, x->type, 1), ls->rank, ls->lens);
            ins *a[3] = {valid, ones, lzeros};
            w = onnx_emit(c, "where", NULL, 0, a, 3);
        }
    }
    if (w)
        loss = onnx_emit2(c, "mul", loss, w);
    if (!loss || none)
        return loss;

    int64_t all[SHAPE_MAX_RANK], one = 1;
    for (int a = 0; a < ls->rank; a++)
        all[a] = a;
    int lr = ls->rank;
    if (sum || w) {
        ins *total = onnx_emit_ints(c, "reduce_sum", "axes", all, lr, loss);
        if (!sum)
            total = onnx_emit2(c, "div", total, onnx_emit_ints(c, "reduce_sum", "axes", all, lr, w));
        return onnx_reshape(c, total, 1, &one);
    }
    return onnx_reshape(c, onnx_emit_ints(c, "reduce_mean", "axes", all, lr, loss), 1, &one);
}

static bool h_nll_loss(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    (void)nout;
    return (out[0] = nll_loss(c, in[0], in[1], nin > 2 ? in[2] : NULL)) != NULL;
}

static bool h_softmax_cross_entropy(onnx_ctx *c, ins **in, int nin, ins **out, int nout)
{
    if (in[0]->sh.rank < 2)
        return onnx_fail(c, "scores must have rank 2 or more, has %d", in[0]->sh.rank);
    ins *log_prob = onnx_emit_int(c, "logsoftmax", "axis", 1, in[0]);
    if (!log_prob)
        return false;
    out[0] = nll_loss(c, log_prob, in[1], nin > 2 ? in[2] : NULL);
    if (nout > 1)
        out[1] = log_prob;
    return out[0] != NULL;
}

static const onnx_op_entry entries[] = {
    {"NegativeLogLikelihoodLoss", h_nll_loss, "where",
     {"equal", "reduce_sum", "squeeze", "multibroadcast"}, 2},
    {"SoftmaxCrossEntropyLoss", h_softmax_cross_entropy, "logsoftmax",
     {"equal", "where", "reduce_sum", "squeeze"}, 2},
};

const onnx_op_table onnx_ops_loss = {entries, (int)(sizeof entries / sizeof entries[0])};
