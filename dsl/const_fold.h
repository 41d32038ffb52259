/* const_fold.h: constant folding for rules: the `=> fold(c)` replacement.
 *
 * A rule such as
 *     r = <pointwise>(@literal, xs...)  if r.elements <= 4096  => fold(r)
 * replaces an instruction whose operands are all literals with one literal
 * holding its value. The value is computed here, in graft, on the reference
 * kernels (ops/exec.h exec_eval_op), so folding and the reference executor
 * can never disagree. Generated code reaches this through graft_rule_api.fold
 * (dsl/api.h), so built-in and user rules (graft opt -r) fold identically.
 */
#ifndef GRAFT_DSL_CONST_FOLD_H
#define GRAFT_DSL_CONST_FOLD_H

#include "rewrite.h"

/* Hard bound on the elements of a folded value, whatever a rule's guard
 * says: a user's rule without a size guard cannot make graft compute (or a
 * graph store) an arbitrarily large constant. Rules choose their own,
 * smaller bound (rules/fold.rules uses 4096). */
enum { FOLD_MAX_ELEMENTS = 1 << 20 };

/* Inserts before `before` (through rw_literal, so rw_abort undoes it) a new
 * literal holding the value of `value`: value's op run once by its reference
 * kernel on its operands. The literal has value's exact shape (type, lens
 * and strides), so no user sees a layout change: a standard result is stored
 * in standard layout, a broadcast keeps its zero strides and stores only the
 * values it repeats. NULL, with the graph untouched, when value has no
 * operands or an operand that is not a literal (with data), is a builtin,
 * opaque, region or tuple-valued instruction, has more than
 * FOLD_MAX_ELEMENTS elements, or its kernel fails. */
ins *rule_fold_constant(rewriter *rw, ins *before, ins *value);

#endif
