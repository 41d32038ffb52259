/* fuzz_mgx_py.c: libFuzzer target for the MIGraphX script and JSON importers.
 *
 * The same bytes go to both importers (import/mgx.h), with a limit on
 * literal data so that a script asking for a huge generate_argument fails
 * cleanly instead of exhausting memory. Any input must either fail with one
 * error message or give a graph that verifies and writes out as a dump; a
 * crash, leak, sanitizer report, silent failure or inconsistent graph is a
 * finding. Run it with `make fuzz FUZZ=mgx_py SECONDS=300`; seeds are in
 * corpus_mgx_py/, tokens in mgx_py.dict.
 */
#include "dump.h"
#include "mgx.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_one(graph *g, const graft_error *err)
{
    if (!g) {
        if (!err->message[0])
            __builtin_trap(); /* a failure must say why */
        return;
    }
    graft_error e;
    memset(&e, 0, sizeof e);
    if (!graph_verify(g, &e))
        __builtin_trap(); /* the importer built an inconsistent graph */
    char *text = dump_write(g, NULL, &e);
    if (!text)
        __builtin_trap();
    free(text);
    graph_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mgx_import_options opt = {1u << 22};
    graft_error err;
    memset(&err, 0, sizeof err);
    check_one(mgx_py_import_with((const char *)data, size, "fuzz.py", &opt, &err), &err);
    memset(&err, 0, sizeof err);
    check_one(mgx_json_import_with((const char *)data, size, "fuzz.json", &opt, &err), &err);
    return 0;
}
