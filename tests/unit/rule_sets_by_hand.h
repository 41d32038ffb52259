/* rule_sets_by_hand.h: rule sets written in C the way the rule compiler's
 * generated code is written (one apply function dispatching on the root op,
 * every change through the rw_* functions of engine/rewrite.h), so that the
 * driver and lazy shapes can be tested without the compiled rules/.
 *
 * Included by the unit tests and the engine benchmark; everything is static.
 *
 *   fold:    transpose_of_transpose, identity_transpose, identity_reshape,
 *            contiguous_of_standard
 *   layout:  drop_contiguous (contiguous(x) => x when x is not standard: the
 *            value's layout changes, which lazy shapes defer)
 *   pending: transpose_of_pending (transpose[p](pending[permutation=q](x))
 *            with q composed with p the identity => x)
 *   seed001: transpose_into_dot (transpose(dot(a, b)) => dot with transposed
 *            output strides; other users of the dot read a pending op)
 *   swap:    swap_add_operands (marked RULE_NONDECREASING: it cycles)
 *   broken:  no_change (replaces an add with an identical add)
 *   aborts:  insert_then_abort (builds a relu, then gives up)
 */
#ifndef GRAFT_RULE_SETS_BY_HAND_H
#define GRAFT_RULE_SETS_BY_HAND_H

#include "lazy_shapes.h"
#include "rewrite.h"

#include <string.h>

static bool by_hand_is(const ins *i, const char *op) { return strcmp(i->opname, op) == 0; }

static const attr_value *by_hand_attr(const ins *i, const char *key) { return ins_attr(i, key); }

static bool by_hand_identity(const attr_value *perm)
{
    for (int k = 0; k < perm->n; k++)
        if (perm->u.ints[k] != k)
            return false;
    return true;
}

/* ---- fold ---- */

static const rule_info fold_rules[] = {
    {"transpose_of_transpose", "tests/unit/rule_sets_by_hand.h", 1, 0},
    {"identity_transpose", "tests/unit/rule_sets_by_hand.h", 2, 0},
    {"identity_reshape", "tests/unit/rule_sets_by_hand.h", 3, 0},
    {"contiguous_of_standard", "tests/unit/rule_sets_by_hand.h", 4, 0},
};

static int fold_apply(rewriter *rw, ins *root)
{
    if (by_hand_is(root, "transpose")) {
        ins *inner = root->args[0];
        const attr_value *outer_p = by_hand_attr(root, "permutation");
        if (by_hand_is(inner, "transpose") && rw_attempt(rw, 0, root)) {
            const attr_value *inner_p = by_hand_attr(inner, "permutation");
            int64_t c[SHAPE_MAX_RANK];
            for (int k = 0; k < outer_p->n; k++)
                c[k] = inner_p->u.ints[outer_p->u.ints[k]];
            attr a = {"permutation", attr_ints(c, outer_p->n)};
            ins *x = inner->args[0];
            ins *rep = rw_insert(rw, root, root->op, &a, 1, &x, 1);
            if (!rep) {
                rw_abort(rw);
                return -1;
            }
            rw_replace(rw, root, rep);
            return 0;
        }
        if (by_hand_identity(outer_p) && rw_attempt(rw, 1, root)) {
            rw_replace(rw, root, root->args[0]);
            return 1;
        }
        return -1;
    }
    if (by_hand_is(root, "reshape")) {
        ins *x = root->args[0];
        if (shape_standard_p(&x->sh) && shape_same_lens(&x->sh, &root->sh) &&
            rw_attempt(rw, 2, root)) {
            rw_replace(rw, root, x);
            return 2;
        }
        return -1;
    }
    if (by_hand_is(root, "contiguous")) {
        ins *x = root->args[0];
        if (shape_standard_p(&x->sh) && rw_attempt(rw, 3, root)) {
            rw_replace(rw, root, x);
            return 3;
        }
    }
    return -1;
}

static const rule_set fold_set = {"fold", 4, fold_rules, fold_apply, NULL};

/* ---- layout ---- */

static const rule_info layout_rules[] = {
    {"drop_contiguous", "tests/unit/rule_sets_by_hand.h", 10, 0},
};

static int layout_apply(rewriter *rw, ins *root)
{
    if (by_hand_is(root, "contiguous") && !shape_standard_p(&root->args[0]->sh) &&
        !shape_broadcasted_p(&root->args[0]->sh) && rw_attempt(rw, 0, root)) {
        rw_replace(rw, root, root->args[0]);
        return 0;
    }
    return -1;
}

static const rule_set layout_set = {"layout", 1, layout_rules, layout_apply, NULL};

/* ---- pending ---- */

static const rule_info pending_rules[] = {
    {"transpose_of_pending", "tests/unit/rule_sets_by_hand.h", 20, 0},
};

static int pending_apply(rewriter *rw, ins *root)
{
    if (!by_hand_is(root, "transpose"))
        return -1;
    ins *in = root->args[0];
    const attr_value *p = by_hand_attr(root, "permutation");
    if (ins_is_pending(in)) {
        const attr_value *q = by_hand_attr(in, "permutation");
        ins *x = in->args[0];
        /* pending = transpose_q(x) exactly (no reshape), and q then p is the identity. */
        bool cancels = q->n == p->n && q->n == x->sh.rank && in->sh.rank == x->sh.rank;
        for (int k = 0; cancels && k < p->n; k++)
            cancels = in->sh.lens[k] == x->sh.lens[q->u.ints[k]] && q->u.ints[p->u.ints[k]] == k;
        if (cancels && shape_same_lens(&root->sh, &x->sh) && rw_attempt(rw, 0, root)) {
            rw_replace(rw, root, x);
            return 0;
        }
        return -1;
    }
    return -1;
}

static const rule_set pending_set = {"pending", 1, pending_rules, pending_apply, NULL};

/* ---- seed 001: a transpose absorbed into dot's output strides ---- */

static const rule_info dot_rules[] = {
    {"transpose_into_dot", "tests/unit/rule_sets_by_hand.h", 25, 0},
};

/* transpose[permutation=p](d = dot(a, b)) => dot[output_permutation=p](a, b):
 * the product written with transposed strides. dot's other users, if any,
 * read it through pending_shape_change[permutation=p^-1] (which transposes
 * it back), so none of their shapes is recomputed now. */
static int dot_apply(rewriter *rw, ins *root)
{
    if (!by_hand_is(root, "transpose"))
        return -1;
    ins *d = root->args[0];
    const attr_value *p = by_hand_attr(root, "permutation");
    const attr_value *op = by_hand_is(d, "dot") ? by_hand_attr(d, "output_permutation") : NULL;
    if (!op || op->n != 0 || !rw_attempt(rw, 0, root))
        return -1;
    attr a = {"output_permutation", attr_ints(p->u.ints, p->n)};
    ins *dt = rw_insert(rw, d, d->op, &a, 1, d->args, d->nargs);
    if (!dt) {
        rw_abort(rw);
        return -1;
    }
    rw_replace(rw, root, dt);
    if (d->nusers) {
        int64_t inverse[SHAPE_MAX_RANK];
        for (int k = 0; k < p->n; k++)
            inverse[p->u.ints[k]] = k;
        attr back[3] = {
            {"lens", attr_ints(d->sh.lens, d->sh.rank)},
            {"strides", attr_ints(d->sh.strides, d->sh.rank)},
            {"permutation", attr_ints(inverse, p->n)},
        };
        ins *pending = rw_insert(rw, d, op_pending(), back, 3, &dt, 1);
        if (pending)
            rw_replace(rw, d, pending);
    }
    return 0;
}

static const rule_set dot_set = {"seed001", 1, dot_rules, dot_apply, NULL};

/* ---- swap (cycles; marked) ---- */

static const rule_info swap_rules[] = {
    {"swap_add_operands", "tests/unit/rule_sets_by_hand.h", 30, RULE_NONDECREASING},
};

static int swap_apply(rewriter *rw, ins *root)
{
    if (by_hand_is(root, "add") && root->args[0] != root->args[1] && rw_attempt(rw, 0, root)) {
        ins *a = root->args[0], *b = root->args[1];
        rw_set_arg(rw, root, 0, b);
        rw_set_arg(rw, root, 1, a);
        rw_commit_in_place(rw, root);
        return 0;
    }
    return -1;
}

static const rule_set swap_set = {"swap", 1, swap_rules, swap_apply, NULL};

/* ---- broken: reports success without changing anything ---- */

static const rule_info broken_rules[] = {
    {"no_change", "tests/unit/rule_sets_by_hand.h", 40, 0},
};

static int broken_apply(rewriter *rw, ins *root)
{
    if (by_hand_is(root, "add") && rw_attempt(rw, 0, root)) {
        ins *same = rw_insert(rw, root, root->op, NULL, 0, root->args, root->nargs);
        if (!same) {
            rw_abort(rw);
            return -1;
        }
        rw_replace(rw, root, same);
        return 0;
    }
    return -1;
}

static const rule_set broken_set = {"broken", 1, broken_rules, broken_apply, NULL};

/* ---- aborts: builds something, then gives up ---- */

static const rule_info abort_rules[] = {
    {"insert_then_abort", "tests/unit/rule_sets_by_hand.h", 50, 0},
};

static int abort_apply(rewriter *rw, ins *root)
{
    if (by_hand_is(root, "relu") && rw_attempt(rw, 0, root)) {
        ins *x = root->args[0];
        ins *a = rw_insert(rw, root, op_find("neg"), NULL, 0, &x, 1);
        ins *b = a ? rw_insert(rw, root, op_find("relu"), NULL, 0, &a, 1) : NULL;
        (void)b;
        rw_abort(rw);
    }
    return -1;
}

static const rule_set abort_set = {"aborts", 1, abort_rules, abort_apply, NULL};

#endif
