/* helpers.h: the registry of typed C helpers that rules call from guards and
 * computed attributes (spatial_only(q), add_padding(p, q), compose(a, b), ...).
 *
 * The rule compiler type-checks every call against this table (name, argument
 * kinds, result kind) so that a wrong call is a compile-time error at the
 * call's line and column, not a crash at run time. Generated code calls a
 * helper by its index in this table (graft_rule_api.helpers), which the rule
 * set's entry function checks against the name (helper_find). A helper is
 * fallible when it may refuse its inputs (a
 * padding it cannot add, a literal it cannot read): the rule then does not
 * fire. Adding a helper is one function and one row in helpers.c.
 */
#ifndef GRAFT_DSL_HELPERS_H
#define GRAFT_DSL_HELPERS_H

#include "api.h"

enum { RULE_HELPER_MAX_PARAMS = 4 };

typedef struct rule_helper {
    const char *name;
    int result;                          /* rule_value_kind */
    int nparams;
    int params[RULE_HELPER_MAX_PARAMS];  /* rule_value_kind of each argument */
    bool fallible;
    rule_helper_fn fn;
    const char *doc;                     /* one line, for docs/rules.md and errors */
} rule_helper;

/* NULL if no helper has that name. */
const rule_helper *rule_helper_find(const char *name);
/* All helpers, in table order. */
const rule_helper *rule_helpers(int *count);

#endif
