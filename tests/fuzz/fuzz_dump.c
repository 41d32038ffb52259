/* fuzz_dump.c: libFuzzer target for the dump reader and writer.
 *
 * Any input must either fail with one error message or give a graph; a
 * graph must write, and what it writes must read back and write again to the
 * same text (so literal bytes, names, attributes and shapes survive). Any
 * crash, leak, sanitizer report or broken round trip is a finding. Run it
 * with `make fuzz FUZZ=dump SECONDS=600`; seeds are in corpus_dump/, fixed
 * crashers in regress_dump/ (tests/unit/test_dump.c replays both).
 */
#include "dump.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* keep literals small so that one input cannot ask for gigabytes */
    dump_read_options opts = {.max_literal_bytes = (size_t)1 << 20};
    graft_error err;
    memset(&err, 0, sizeof err);
    graph *g = dump_read_with((const char *)data, size, "fuzz.dump", &opts, &err);
    if (!g) {
        if (!err.message[0])
            __builtin_trap(); /* a failure must say why */
        return 0;
    }
    size_t len = 0, len2 = 0;
    char *text = dump_write(g, &len, &err);
    graph_free(g);
    if (!text)
        __builtin_trap(); /* a graph the reader built must be writable */
    graph *g2 = dump_read_with(text, len, "rewritten.dump", &opts, &err);
    if (!g2)
        __builtin_trap(); /* what the writer writes must read back */
    char *text2 = dump_write(g2, &len2, &err);
    graph_free(g2);
    if (!text2 || len != len2 || memcmp(text, text2, len) != 0)
        __builtin_trap(); /* write -> read -> write must be identical */
    free(text);
    free(text2);
    return 0;
}
