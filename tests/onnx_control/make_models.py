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

The rest cannot be settled at import, and become graft's `if` and `loop`
instructions:
if_value: an If on the input's values (ReduceSum(x) > 0) with two outputs,
whose branches read values of the main graph (z = Relu(x), x itself and
initializers); data set 0 takes the then branch, data set 1 the else branch.
loop_while: a Loop with no trip count whose condition comes from the data
(sum(y) < 100, y doubling plus an If inside the body on sum(y_in) > 0 that
reads the main graph's s = Abs(x) + 1), carrying y and a step counter; data
sets 0 and 1 run different numbers of iterations.
loop_long: a Loop of 1500 iterations (over the unroll limit) carrying
y += x, with the scan output y.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 13)]


def write(root, name, model, inputs, outputs, data_set=0):
    d = os.path.join(root, name)
    sets = os.path.join(d, "test_data_set_%d" % data_set)
    os.makedirs(sets, exist_ok=True)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    for kind, values in (("input", inputs), ("output", outputs)):
        for k, v in enumerate(values):
            path = os.path.join(sets, "%s_%d.pb" % (kind, k))
            with open(path, "wb") as f:
                f.write(numpy_helper.from_array(v).SerializeToString())


def f32(v):
    return numpy_helper.from_array(np.array(v, dtype=np.float32))


def named(v, name):
    return numpy_helper.from_array(np.array(v), name)


def if_value_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in ("y", "w")]
    then_graph = helper.make_graph(
        [helper.make_node("Mul", ["z", "two"], ["then_y"]),
         helper.make_node("Identity", ["x"], ["then_w"])],
        "then", [], [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3])
                     for n in ("then_y", "then_w")])
    else_graph = helper.make_graph(
        [helper.make_node("Add", ["x", "one"], ["else_y"]),
         helper.make_node("Sub", ["z", "x"], ["else_w"])],
        "else", [], [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3])
                     for n in ("else_y", "else_w")],
        [numpy_helper.from_array(np.array(1, dtype=np.float32), "one")])
    nodes = [
        helper.make_node("Relu", ["x"], ["z"]),
        helper.make_node("ReduceSum", ["x"], ["total"], keepdims=0),
        helper.make_node("Greater", ["total", "zero"], ["cond"]),
        helper.make_node("If", ["cond"], ["y", "w"], then_branch=then_graph,
                         else_branch=else_graph),
    ]
    inits = [named(np.float32(0), "zero"), named(np.float32(2), "two")]
    graph = helper.make_graph(nodes, "if_value", [x], outs, inits)
    return helper.make_model(graph, opset_imports=OPSET)


def if_value_expected(x):
    z = np.maximum(x, 0)
    return [z * 2, x] if x.sum() > 0 else [x + 1, z - x]


def loop_while_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    scalar_bool = [helper.make_tensor_value_info(n, TensorProto.BOOL, [])
                   for n in ("cond_in", "cond_out")]
    then_graph = helper.make_graph(
        [helper.make_node("Identity", ["s"], ["then_add"])], "then", [],
        [helper.make_tensor_value_info("then_add", TensorProto.FLOAT, [2])])
    else_graph = helper.make_graph(
        [helper.make_node("Mul", ["s", "half"], ["else_add"])], "else", [],
        [helper.make_tensor_value_info("else_add", TensorProto.FLOAT, [2])])
    body = helper.make_graph(
        [
            helper.make_node("ReduceSum", ["y_in"], ["sum_in"], keepdims=0),
            helper.make_node("Greater", ["sum_in", "zero"], ["positive"]),
            helper.make_node("If", ["positive"], ["add"], then_branch=then_graph,
                             else_branch=else_graph),
            helper.make_node("Abs", ["y_in"], ["abs_y"]),
            helper.make_node("Mul", ["abs_y", "two"], ["doubled"]),
            helper.make_node("Add", ["doubled", "add"], ["y_out"]),
            helper.make_node("ReduceSum", ["y_out"], ["sum_out"], keepdims=0),
            helper.make_node("Less", ["sum_out", "hundred"], ["cond_out"]),
            helper.make_node("Add", ["n_in", "one"], ["n_out"]),
        ],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []), scalar_bool[0],
         helper.make_tensor_value_info("y_in", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("n_in", TensorProto.INT64, [])],
        [scalar_bool[1], helper.make_tensor_value_info("y_out", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("n_out", TensorProto.INT64, [])])
    nodes = [
        helper.make_node("Abs", ["x"], ["abs_x"]),
        helper.make_node("Add", ["abs_x", "one_f"], ["s"]),
        helper.make_node("ReduceSum", ["abs_x"], ["size"], keepdims=0),
        helper.make_node("Less", ["size", "hundred"], ["start"]),
        helper.make_node("Loop", ["", "start", "x", "n0"], ["y", "n"], body=body),
    ]
    inits = [named(np.float32(0), "zero"), named(np.float32(2), "two"),
             named(np.float32(0.5), "half"), named(np.float32(100), "hundred"),
             named(np.float32(1), "one_f"), named(np.int64(1), "one"),
             named(np.int64(0), "n0")]
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2]),
            helper.make_tensor_value_info("n", TensorProto.INT64, [])]
    graph = helper.make_graph(nodes, "loop_while", [x], outs, inits)
    return helper.make_model(graph, opset_imports=OPSET)


def loop_while_expected(x):
    s = np.abs(x) + np.float32(1)
    y, n = x, np.int64(0)
    go = np.abs(x).sum() < 100
    while go:
        add = s if y.sum() > 0 else s * np.float32(0.5)
        y = (np.abs(y) * np.float32(2) + add).astype(np.float32)
        n += 1
        go = y.sum() < 100
    return [y, np.array(n, dtype=np.int64)]


def loop_long_model(trips):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Add", ["y_in", "x"], ["y_out"]),
         helper.make_node("Identity", ["y_out"], ["scan_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_in", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_out", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("scan_out", TensorProto.FLOAT, [2])])
    nodes = [helper.make_node("Loop", ["trips", "", "y0"], ["y", "scan"], body=body)]
    inits = [named(np.int64(trips), "trips"), named(np.zeros(2, dtype=np.float32), "y0")]
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2]),
            helper.make_tensor_value_info("scan", TensorProto.FLOAT, [trips, 2])]
    graph = helper.make_graph(nodes, "loop_long", [x], outs, inits)
    return helper.make_model(graph, opset_imports=OPSET)


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

    for k, x in enumerate([np.array([[1, -2, 3], [0.5, 4, -1]], dtype=np.float32),
                           np.array([[-1, 2, -3], [0.5, -4, 1]], dtype=np.float32)]):
        write(root, "if_value", if_value_model(), [x], if_value_expected(x), k)
    for k, x in enumerate([np.array([1.5, -2], dtype=np.float32),
                           np.array([-20, 3], dtype=np.float32)]):
        write(root, "loop_while", loop_while_model(), [x], loop_while_expected(x), k)
    long_trips = 1500
    x = np.array([0.25, -0.5], dtype=np.float32)
    y = np.zeros(2, dtype=np.float32)
    scans = []
    for i in range(long_trips):
        y = (y + x).astype(np.float32)
        scans.append(y)
    write(root, "loop_long", loop_long_model(long_trips), [x], [y, np.stack(scans)])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
