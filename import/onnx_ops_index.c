/* onnx_ops_index.c */
#include "onnx_private.h"

static const onnx_op_entry entries[] = {
    {"", NULL, NULL, {NULL}},
};

const onnx_op_table onnx_ops_index = {entries, 0};
