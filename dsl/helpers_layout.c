/* helpers_layout.c: guard helpers of rules/layout.rules and of the pad
 * section of rules/fuse.rules (see helpers_layout.h). */
#include "helpers_layout.h"

#include "concat_in_place.h"

bool helper_concat_in_place_possible(arena *mem, const rule_value *a, int n, rule_value *out)
{
    (void)mem, (void)n;
    *out = rule_bool(concat_in_place_possible(a[0].u.in));
    return true;
}
