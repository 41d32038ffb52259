/* fuzz_rules.c: libFuzzer target for the rule compiler.
 *
 * Any input must either be rejected with one located error message or compile
 * all the way to C (parse, sema, termination, overlap, trees, emit). Any
 * crash, leak, sanitizer report or silent rejection is a finding. Run it with
 * `make fuzz FUZZ=rules SECONDS=600`; seeds are in corpus_rules/ (the shipped
 * rule files and tests/dsl_pass).
 */
#include "compile.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    graft_error err;
    memset(&err, 0, sizeof err);
    dsl_emit_options opt = {"fuzz", "graft_rules_entry", true};
    char *c = dsl_compile("fuzz.rules", (const char *)data, size, &opt, &err);
    if (!c) {
        if (!err.message[0])
            __builtin_trap(); /* a rejection must say why */
        return 0;
    }
    free(c);
    return 0;
}
