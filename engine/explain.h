/* explain.h: why a rule does not fire (`graft opt --explain RULE`).
 *
 * After a phase's rule sets have reached their fixpoint, every instruction
 * outside region bodies whose op the rule's root applies to is one the last
 * sweep tried the rule on, and it did not fire there. For each, this asks
 * the rule set's generated explain function (engine/rewrite.h:
 * rule_set.explain, emitted apart from apply so that matching costs nothing
 * more) which test of the pattern, or which guard, failed first, and writes
 * one record naming the instruction, the part of the rule (op, operand
 * count, :once, attribute, guard, let, or the replacement) with its
 * file:line:col, what it wants, and the instruction that test looked at.
 * The library does not print: records go to a callback.
 */
#ifndef GRAFT_EXPLAIN_H
#define GRAFT_EXPLAIN_H

#include "driver.h"

typedef struct explain_counts {
    int tried;   /* instructions whose op the rule applies to */
    int failed;  /* a test or guard failed */
    int matched; /* the pattern and guards held, the replacement was refused */
} explain_counts;

/* Explains rule `rule` of every set in sets that has it (no set having it
 * is not an error here: counts stay 0). Adds to *counts. Without memory it
 * explains nothing (counts stay as they were). */
void explain_rule(graph *g, const rule_set *const *sets, int nsets, const char *rule,
                  driver_trace_fn out, void *ctx, explain_counts *counts);

#endif
