/* rule_check.h: testing each rule of a file for soundness (`graft rules --check`).
 *
 * A rule is sound when the graph after it fired computes what the graph
 * before computed. --verify checks one graph; this checks the rule: for
 * each rule it builds the rule's pattern as a small graph of its own (ops
 * picked for its classes, random shapes that the ops' shape rules accept,
 * attribute values and literal data drawn from what the pattern and its
 * guards name), runs that graph on the reference executor before and after
 * the driver applied that rule alone, and compares the outputs. A candidate
 * on which the rule does not fire (a guard said no) is discarded and
 * counted. A difference is a counterexample: the graph before and after
 * as dumps (shapes, attributes and literal data), the input and literal
 * values and both outputs; after the first one, a few more candidates are
 * tried and the smallest counterexample (fewest elements in all) is kept. A rule whose pattern could not be instantiated, or that
 * never fired within the budget, is "not checked", with the reason; it is
 * never reported as sound.
 *
 * This file owns the checker; tools/cmd_rules_check.c is the command line.
 */
#ifndef GRAFT_DSL_CHECK_H
#define GRAFT_DSL_CHECK_H

#include "ast.h"
#include "rewrite.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct dsl_check_options {
    int candidates;  /* graphs built per rule at most; 0: 20000 */
    int fires;       /* stop after this many comparisons where the rule fired; 0: 40 */
    uint64_t seed;   /* the first candidate's seed; each next one adds 1 */
    double rtol, atol; /* an element differs when |a - b| > atol + rtol*|b|; 0: 1e-4, 1e-5 */
} dsl_check_options;

typedef enum dsl_check_verdict {
    CHECK_SOUND,       /* fired on `fired` graphs, equal outputs every time */
    CHECK_UNSOUND,     /* counterexample holds the first difference */
    CHECK_NOT_CHECKED, /* reason says why */
} dsl_check_verdict;

typedef struct dsl_check_result {
    dsl_check_verdict verdict;
    int candidates;       /* candidates tried */
    int built;            /* of those, graphs the ops' shape rules accepted */
    int fired;            /* of those, graphs on which the rule fired and ran */
    int differed;         /* of those, graphs whose outputs differed */
    char reason[400];     /* CHECK_NOT_CHECKED: why; else "" */
    char *counterexample; /* CHECK_UNSOUND: malloc'd text, several lines */
} dsl_check_result;

/* Checks rule r (of a file that passed the static checks, dsl/compile.h),
 * whose compiled form is the rule of the same name in set (the whole file's
 * set: the others are disabled while r runs). False only when the check
 * could not run at all (out of memory); a rule that could not be
 * instantiated is a result, CHECK_NOT_CHECKED. */
bool dsl_check_rule(const dsl_rule *r, const rule_set *set, const dsl_check_options *opt,
                    dsl_check_result *out, graft_error *err);
void dsl_check_result_free(dsl_check_result *r);

#endif
