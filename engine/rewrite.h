/* rewrite.h: the contract between compiled rules and the worklist driver.
 *
 * The rule compiler (dsl/) turns a .rules file into C: one decision tree per
 * root op, exported as a rule_set. The driver (engine/driver.c) pops an
 * instruction from its worklist and calls rule_set.apply(rw, root). Generated
 * code never mutates the graph directly: every change goes through the rw_*
 * functions below, so the driver hears about it and re-queues exactly:
 *   - on insert: the new instruction;
 *   - on replace: the users of the replaced value (now users of the new one);
 *   - on erase: the operands whose use count dropped (they may be dead, or
 *     single-use now, which enables :once patterns).
 * Dead instructions (no users, not @return/@param, no side effect) are erased
 * as they appear. The rule sets never run inside the body of a fused region
 * (a `fused` instruction's submodule): fusing a pattern must not find the
 * same pattern again in the body it just made.
 *
 * A match is transactional: rw_attempt() opens it, the replacement is built,
 * then rw_commit() keeps it or rw_abort() undoes every instruction inserted
 * since rw_attempt() (nothing else has been touched before commit, because
 * generated code only replaces uses in the final rw_replace). Counters per
 * rule: attempts (the rule's pattern was tested at an instruction whose op
 * matched its root), fires (committed), and time spent in its leaf.
 *
 * Generated code that is loaded from a user's shared object (graft opt -r
 * mine.rules) reaches these functions through the graft_rule_api table (see
 * dsl/), never through symbols, so built-in and user rules run the same code.
 */
#ifndef GRAFT_REWRITE_H
#define GRAFT_REWRITE_H

#include "ir.h"

typedef struct rewriter rewriter;

enum rule_flags {
    RULE_NONDECREASING = 1u << 0, /* marked: not shown to decrease the termination
                                     measure; the driver bounds its fires */
};

typedef struct rule_info {
    const char *name;   /* as written after `rule` */
    const char *file;   /* "rules/pad.rules" */
    int line;
    unsigned flags;     /* rule_flags */
} rule_info;

/* Why one rule does not match at one instruction (graft opt --explain): the
 * first test of the rule's pattern, or the first guard, that failed, as the
 * rule compiler wrote it down. */
typedef struct rule_explanation {
    const char *part;   /* "op", "operand count", ":once", "attribute", "same
                           instruction", "same attribute", "guard", "let" */
    const char *wants;  /* what the rule requires there, e.g. "operand 0 is a
                           relu", "mode = constant", "if is_identity(p)" */
    int line, col;      /* of that part of the rule, in rule_info.file */
    int depth;          /* the instruction the test looked at: the root, */
    unsigned char path[16]; /* then operand path[0] of it, and so on */
} rule_explanation;

/* What rule_set.explain returns. */
enum {
    RULE_EXPLAIN_NOT_TRIED = -1, /* the root's op is not one the rule applies to */
    RULE_EXPLAIN_FAILED = 0,     /* a test or guard failed: *out says which */
    RULE_EXPLAIN_MATCHED = 1,    /* the pattern and every guard hold */
};

typedef struct rule_set {
    const char *name;           /* "fold", or the user file's base name */
    int nrules;
    const rule_info *rules;
    /* Tries every rule whose root op is root->op, in priority order, and
     * applies the first that matches and commits. Returns the rule's index or
     * -1 when nothing fired. */
    int (*apply)(rewriter *rw, ins *root);
    /* Tests rule `rule` alone at root, changing nothing, and says how far it
     * got (RULE_EXPLAIN_*); the first failure goes to *out (of the operand
     * order of a :c pattern that got furthest). Generated apart from apply,
     * which it leaves as fast as without it; NULL in hand-written sets. */
    int (*explain)(rewriter *rw, ins *root, int rule, rule_explanation *out);
} rule_set;

/* ---- called by generated code ---- */
/* Opens a match of rule r at root. False when the rule is disabled or the
 * rewrite budget (--max-rewrites) is spent: the leaf must then not fire. */
bool rw_attempt(rewriter *rw, int rule, ins *root);
/* Inserts a new instruction before `before` (its operands must precede it).
 * NULL when the op's shape rule rejects it: call rw_abort. */
ins *rw_insert(rewriter *rw, ins *before, const op_def *op, const attr *attrs, int nattrs,
               ins *const *args, int nargs);
/* Inserts a literal (data copied) before `before`. */
ins *rw_literal(rewriter *rw, ins *before, const shape *sh, const void *data);
/* Replaces every use of old with rep and commits the match: trace, counters,
 * re-queueing, erasing old and whatever became dead. */
void rw_replace(rewriter *rw, ins *old, ins *rep);
/* Commits a match whose effect was only to change root in place (operands or
 * attributes set through rw_set_arg / rw_set_attrs). */
void rw_commit_in_place(rewriter *rw, ins *root);
void rw_set_arg(rewriter *rw, ins *i, int k, ins *v);
/* Sets the named attributes of i in place (the others keep their values);
 * undone by rw_abort, i's shape recomputed by rw_commit_in_place. False when
 * a name or a value's kind is wrong for i's op. */
bool rw_set_attrs(rewriter *rw, ins *i, const attr *attrs, int nattrs);
/* Builds a fused region of `members` (instructions of one module, any
 * order, duplicates ignored) whose values `outputs` (members) leave it:
 * a new module "<parent>:fusedN" holds a copy of the members in program
 * order, one @param x0, x1, ... per distinct operand that comes from outside
 * the members (in order of first use) and an @return of the outputs; a
 * `fused` instruction running it is inserted before `before` (NULL: the
 * match's root), or earlier when a user of an output outside the members
 * comes first, and after every input. With several outputs a
 * get_tuple_elem[index=k] per output follows it. replacements[k] receives
 * the value that stands for outputs[k] (the region itself for one output).
 * Nothing is replaced yet: commit with rw_replace_region. NULL, with the
 * match to be aborted, when the region cannot be built: a member is a
 * parameter, opaque, a region, tuple-valued or in another module; an output
 * is not a member or none has a user outside the members; or no position
 * is after every input and before every outside user. rw_abort removes the
 * instructions and takes the new module out of the graph. */
ins *rw_region(rewriter *rw, ins *before, ins *const *members, int nmembers, ins *const *outputs,
               int noutputs, ins **replacements);
/* Commits a region built by rw_region: every use of outputs[k] by an
 * instruction that is not a member becomes a use of replacements[k]; the
 * members that are dead then are erased (a member with other users outside
 * keeps computing its value). */
void rw_replace_region(rewriter *rw, ins *const *members, int nmembers, ins *const *outputs,
                       ins *const *replacements, int noutputs);
/* Merges `parts` (plain instructions or fused regions of one module) into
 * one new region and commits the match: the region-growing replacements
 * (absorb_producer, absorb_consumer, merge_siblings). Inputs, outputs (every
 * value still read outside) and the position are worked out as
 * engine/region_merge.h says, which also refuses a merge that would create a
 * cycle. False, with nothing committed and the match to be aborted, when
 * the merge is refused. */
bool rw_merge(rewriter *rw, ins *const *parts, int nparts);
/* Splits region p's tail into c, which reads it (the split_tail_into
 * replacement): the values of p that only c reads (directly or through
 * views) are computed again in c's region from p's inputs and p's
 * reductions, copying the part of p's body they need back to its
 * parameters, literals and reductions; p is rebuilt without them, with the
 * reductions that part reads as outputs. Two regions again: p's rest and c
 * with the tail. False, with nothing committed and the match to be
 * aborted, when p is not a region, no value of p is read by c alone, or
 * the merge into c is refused (engine/region_merge.h). */
bool rw_split_tail(rewriter *rw, ins *p, ins *c);
/* Undoes everything inserted since rw_attempt. */
void rw_abort(rewriter *rw);
/* Where a rule's helper results live (computed attribute lists): in a
 * driver run, the driver's scratch arena, emptied at the sweep's safe point
 * (nothing there outlives the rule that computed it: what is built from it
 * is copied); else the graph's arena. */
arena *rw_arena(rewriter *rw);

#endif
