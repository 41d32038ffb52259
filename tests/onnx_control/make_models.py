#!/usr/bin/python3
"""Builds the control-flow test models into DIR with the ONNX helper
API (Debian's python3-onnx; `make deps` installs it) and writes each as an
ONNX backend-test directory: NAME/model.onnx and NAME/test_data_set_0/
{input,output}_N.pb, the expected outputs computed here with numpy.

    /usr/bin/python3 tests/onnx_control/make_models.py DIR

tests/cli/onnx_control.sh runs it into its scratch directory on every test run,
so no model file is kept in git.

if_shape_then, if_shape_else: an If whose condition comes from the input's
shape (Shape -> Gather -> Greater): x * 2 when the first dimension exceeds 2,
else x + 1. loop_known_trips: a Loop with a trip count of 4 (an initializer)
carrying y += x, with the scan output y * iteration_number.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 13)]


def write(root, name, model, inputs, outputs):
    d = os.path.join(root, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    for kind, values in (("input", inputs), ("output", outputs)):
        for k, v in enumerate(values):
            path = os.path.join(d, "test_data_set_0", "%s_%d.pb" % (kind, k))
            with open(path, "wb") as f:
                f.write(numpy_helper.from_array(v).SerializeToString())


def if_model(rows):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, 2])
    then_out = helper.make_tensor_value_info("then_y", TensorProto.FLOAT, [rows, 2])
    else_out = helper.make_tensor_value_info("else_y", TensorProto.FLOAT, [rows, 2])
    then_graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["then_y"])], "then", [], [then_out],
        [numpy_helper.from_array(np.array(2, dtype=np.float32), "two")])
    else_graph = helper.make_graph(
        [helper.make_node("Add", ["x", "one"], ["else_y"])], "else", [], [else_out],
        [numpy_helper.from_array(np.array(1, dtype=np.float32), "one")])
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["rows"], axis=0),
        helper.make_node("Greater", ["rows", "limit"], ["cond"]),
        helper.make_node("If", ["cond"], ["y"], then_branch=then_graph, else_branch=else_graph),
    ]
    inits = [numpy_helper.from_array(np.array(0, dtype=np.int64), "zero"),
             numpy_helper.from_array(np.array(2, dtype=np.int64), "limit")]
    graph = helper.make_graph(nodes, "if_shape", [x], [y], inits)
    return helper.make_model(graph, opset_imports=OPSET)


def loop_model(trips):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    scan = helper.make_tensor_value_info("scan", TensorProto.FLOAT, [trips, 2])
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Add", ["y_in", "x"], ["y_out"]),
            helper.make_node("Cast", ["i"], ["i_float"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["y_out", "i_float"], ["scan_out"]),
        ],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_in", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_out", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("scan_out", TensorProto.FLOAT, [2])])
    nodes = [helper.make_node("Loop", ["trips", "cond", "y0"], ["y", "scan"], body=body)]
    inits = [numpy_helper.from_array(np.array(trips, dtype=np.int64), "trips"),
             numpy_helper.from_array(np.array(True), "cond"),
             numpy_helper.from_array(np.zeros(2, dtype=np.float32), "y0")]
    graph = helper.make_graph(nodes, "loop_known_trips", [x], [y, scan], inits)
    return helper.make_model(graph, opset_imports=OPSET)


def main(root):
    x3 = np.array([[1, -2], [3.5, 4], [0.25, -6]], dtype=np.float32)
    write(root, "if_shape_then", if_model(3), [x3], [x3 * 2])
    x2 = np.array([[1, -2], [3.5, 4]], dtype=np.float32)
    write(root, "if_shape_else", if_model(2), [x2], [x2 + 1])
    x = np.array([1.5, -2], dtype=np.float32)
    trips = 4
    y = np.zeros(2, dtype=np.float32)
    scans = []
    for i in range(trips):
        y = y + x
        scans.append(y * np.float32(i))
    write(root, "loop_known_trips", loop_model(trips), [x], [y, np.stack(scans)])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
