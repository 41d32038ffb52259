/* rule_helper_calls.h: calling rule helpers (dsl/helpers.h) from tests the
 * way generated rule code does, through the registry by name, with results
 * in the test's arena `mem`. Shared by test_rule_helpers.c and
 * test_common_dims.c. */
#ifndef GRAFT_RULE_HELPER_CALLS_H
#define GRAFT_RULE_HELPER_CALLS_H

#include "check.h"
#include "helpers.h"

static arena mem;

static rule_value ints(const int64_t *v, int n)
{
    rule_value r = {RV_INTS, n, {.ints = v}};
    return r;
}

/* Calls helper `name`; returns its success, result in *out. */
static bool call(const char *name, const rule_value *args, int n, rule_value *out)
{
    const rule_helper *h = rule_helper_find(name);
    CHECK(h != NULL);
    if (!h)
        return false;
    CHECK_INT(h->nparams, n);
    return h->fn(&mem, args, n, out);
}

static bool ints_are(rule_value v, const int64_t *want, int n)
{
    if (v.kind != RV_INTS || v.n != n)
        return false;
    for (int i = 0; i < n; i++)
        if (v.u.ints[i] != want[i])
            return false;
    return true;
}

#endif
