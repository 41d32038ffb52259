/* fuzz_onnx.c: libFuzzer target for the ONNX importer.
 *
 * Any input must either fail with one error message or give a graph that
 * verifies. Any crash, leak, sanitizer report, silent failure or inconsistent
 * graph is a finding. Run it with `make fuzz FUZZ=onnx SECONDS=600`; seeds are
 * in corpus_onnx/ (written by `test_onnx --write-corpus DIR`), fixed crashers
 * in regress_onnx/ (tests/unit/test_onnx.c replays both). The TensorProto
 * reader is exercised too, through the same bytes.
 */
#include "onnx.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    graft_error err;
    memset(&err, 0, sizeof err);
    graph *g = onnx_import(data, size, "fuzz.onnx", NULL, &err);
    if (!g) {
        if (!err.message[0])
            __builtin_trap(); /* a failure must say why */
    } else {
        if (!graph_verify(g, &err))
            __builtin_trap(); /* the importer built an inconsistent graph */
        graph_free(g);
    }
    /* the same bytes as a tensor file */
    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz_onnx_%d.pb", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, size, f);
        fclose(f);
        tensor t;
        memset(&err, 0, sizeof err);
        if (onnx_read_tensor_file(path, &t, NULL, &err))
            free(t.data);
        else if (!err.message[0])
            __builtin_trap();
        remove(path);
    }
    return 0;
}
