/* onnx_model_head.h: the part every ONNX model built in C for a test or a
 * benchmark starts with: a ModelProto at IR version 8 importing one opset of
 * the default domain, pointing at its GraphProto. test_onnx.c's builder and
 * bench/bench_onnx_import.c's large model both start here; everything is
 * static.
 */
#ifndef GRAFT_ONNX_MODEL_HEAD_H
#define GRAFT_ONNX_MODEL_HEAD_H

#include "onnx.pb-c.h"

#include <stdbool.h>
#include <stdint.h>

/* Initialises model, graph and opset (opset version `version` of the default
 * domain) and links them: opsets[0] is opset, the model imports opsets and
 * holds graph. The storage is the caller's. */
static void onnx_model_head_init(Onnx__ModelProto *model, Onnx__GraphProto *graph,
                                 Onnx__OperatorSetIdProto *opset,
                                 Onnx__OperatorSetIdProto **opsets, int64_t version)
{
    onnx__model_proto__init(model);
    onnx__graph_proto__init(graph);
    onnx__operator_set_id_proto__init(opset);
    opset->domain = "";
    opset->has_version = true;
    opset->version = version;
    opsets[0] = opset;
    model->has_ir_version = true;
    model->ir_version = 8;
    model->n_opset_import = 1;
    model->opset_import = opsets;
    model->graph = graph;
}

#endif
