"""Writes small ONNX models, one or two operators each, as the seed corpus of the onnx_model fuzz
target (usage: onnx_seeds.py OUTDIR). Seeded and deterministic; the node-test models, when the
test suite has generated them, are added to the corpus by scripts/fuzz.sh as well."""

import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F, I64 = TensorProto.FLOAT, TensorProto.INT64
rng = np.random.default_rng(7)


def init(name, shape, dtype=np.float32):
    if dtype == np.int64:
        return numpy_helper.from_array(np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape), name)
    return numpy_helper.from_array(rng.standard_normal(shape).astype(dtype), name)


def const(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def save(out, name, nodes, inputs, outputs, inits=(), opset=18):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())


def vi(name, shape, t=F):
    return helper.make_tensor_value_info(name, t, shape)


def unary_models(out):
    for op in ["Relu", "Sigmoid", "Tanh", "Exp", "Erf", "Abs", "Neg", "Sqrt", "Softplus", "Gelu"]:
        save(out, op.lower(), [helper.make_node(op, ["x"], ["y"])], [vi("x", [2, 3])], [vi("y", [2, 3])])


def binary_models(out):
    for op in ["Add", "Mul", "Sub", "Div", "Pow", "Max", "Min"]:
        save(out, op.lower(), [helper.make_node(op, ["a", "b"], ["y"])], [vi("a", [2, 1, 4]), vi("b", [3, 1])],
             [vi("y", [2, 3, 4])])
    save(out, "div_int", [helper.make_node("Div", ["a", "b"], ["y"])], [vi("a", [4], I64)], [vi("y", [4], I64)],
         [const("b", [1, 2, 3, 4])])


def layer_models(out):
    save(out, "conv", [helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[1, 1, 1, 1], strides=[2, 2], group=1)],
         [vi("x", [1, 2, 6, 6])], [vi("y", [1, 3, 3, 3])], [init("w", [3, 2, 3, 3]), init("b", [3])])
    save(out, "conv_dw", [helper.make_node("Conv", ["x", "w"], ["y"], group=4, dilations=[2, 2])],
         [vi("x", [1, 4, 7, 7])], [vi("y", [1, 4, 3, 3])], [init("w", [4, 1, 3, 3])])
    save(out, "gemm", [helper.make_node("Gemm", ["a", "w", "c"], ["y"], transB=1, alpha=0.5)],
         [vi("a", [3, 5])], [vi("y", [3, 4])], [init("w", [4, 5]), init("c", [4])])
    save(out, "matmul_batch", [helper.make_node("MatMul", ["a", "b"], ["y"])], [vi("a", ["n", 2, 3, 5])],
         [vi("y", ["n", 2, 3, 4])], [init("b", [5, 4])])
    save(out, "maxpool", [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                                           pads=[1, 1, 1, 1])], [vi("x", [1, 2, 5, 5])], [vi("y", [1, 2, 3, 3])])
    save(out, "avgpool", [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], ceil_mode=1)],
         [vi("x", [1, 1, 5, 5])], [vi("y", [1, 1, 3, 3])])
    save(out, "gap", [helper.make_node("GlobalAveragePool", ["x"], ["y"])], [vi("x", [1, 3, 4, 4])],
         [vi("y", [1, 3, 1, 1])])
    save(out, "batchnorm", [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"])],
         [vi("x", [1, 2, 3, 3])], [vi("y", [1, 2, 3, 3])],
         [init("s", [2]), init("b", [2]), init("m", [2]), numpy_helper.from_array(np.ones(2, np.float32), "v")])
    save(out, "layernorm", [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1)],
         [vi("x", [2, "s", 8])], [vi("y", [2, "s", 8])], [init("g", [8]), init("b", [8])])
    save(out, "softmax", [helper.make_node("Softmax", ["x"], ["y"], axis=1)], [vi("x", [2, 5])], [vi("y", [2, 5])])


def shape_models(out):
    save(out, "reshape", [helper.make_node("Reshape", ["x", "s"], ["y"])], [vi("x", [2, 3, 4])], [vi("y", [6, 4])],
         [const("s", [-1, 4])])
    save(out, "transpose", [helper.make_node("Transpose", ["x"], ["y"], perm=[2, 0, 1])], [vi("x", [2, 3, 4])],
         [vi("y", [4, 2, 3])])
    save(out, "concat", [helper.make_node("Concat", ["a", "b"], ["y"], axis=1)], [vi("a", [2, 3]), vi("b", [2, 1])],
         [vi("y", [2, 4])])
    save(out, "split", [helper.make_node("Split", ["x", "s"], ["y", "z"], axis=0)], [vi("x", [5, 2])],
         [vi("y", [2, 2]), vi("z", [3, 2])], [const("s", [2, 3])])
    save(out, "slice", [helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"])], [vi("x", [6, 4])],
         [vi("y", [2, 4])], [const("st", [5]), const("en", [0]), const("ax", [0]), const("sp", [-2])])
    save(out, "gather", [helper.make_node("Gather", ["t", "i"], ["y"], axis=0)], [vi("i", [3], I64)],
         [vi("y", [3, 4])], [init("t", [5, 4])])
    save(out, "pad", [helper.make_node("Pad", ["x", "p"], ["y"], mode="reflect")], [vi("x", [3, 4])],
         [vi("y", [5, 6])], [const("p", [1, 1, 1, 1])])
    save(out, "expand", [helper.make_node("Expand", ["x", "s"], ["y"])], [vi("x", [3, 1])], [vi("y", [2, 3, 4])],
         [const("s", [2, 3, 4])])
    save(out, "squeeze", [helper.make_node("Unsqueeze", ["x", "a"], ["t"]), helper.make_node("Squeeze", ["t", "a"], ["y"])],
         [vi("x", [3, 4])], [vi("y", [3, 4])], [const("a", [0])])
    save(out, "shape_ops", [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("ConstantOfShape", ["s"], ["c"]),
                            helper.make_node("Add", ["x", "c"], ["y"])], [vi("x", ["n", 4])], [vi("y", ["n", 4])])
    save(out, "range", [helper.make_node("Range", ["a", "b", "d"], ["y"])], [], [vi("y", [5], I64)],
         [numpy_helper.from_array(np.array(0, np.int64), "a"), numpy_helper.from_array(np.array(10, np.int64), "b"),
          numpy_helper.from_array(np.array(2, np.int64), "d")])
    save(out, "resize", [helper.make_node("Resize", ["x", "", "sc"], ["y"], mode="linear")], [vi("x", [1, 1, 2, 2])],
         [vi("y", [1, 1, 4, 4])], [numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "sc")])


def reduce_models(out):
    for op in ["ReduceMean", "ReduceSum", "ReduceMax"]:
        save(out, op.lower(), [helper.make_node(op, ["x", "a"], ["y"], keepdims=0)], [vi("x", [2, 3, 4])],
             [vi("y", [2, 4])], [const("a", [1])])
    save(out, "where_cast", [helper.make_node("Greater", ["x", "z"], ["c"]), helper.make_node("Where", ["c", "x", "z"], ["w"]),
                             helper.make_node("Cast", ["w"], ["y"], to=I64)],
         [vi("x", [4])], [vi("y", [4], I64)], [numpy_helper.from_array(np.zeros(4, np.float32), "z")])


def loop_body(name, inner=None):
    """A Loop body adding 1 to its carried value, running `inner` (a Loop node) first if given."""
    nodes = [helper.make_node("Identity", ["c_in"], ["c_out"])]
    carried = "v_in"
    if inner is not None:
        nodes.append(inner)
        carried = "v_inner"
    nodes.append(helper.make_node("Add", [carried, "one"], ["v_out"]))
    return helper.make_graph(
        nodes, name, [vi("i", [], I64), vi("c_in", [], TensorProto.BOOL), vi("v_in", [2])],
        [vi("c_out", [], TensorProto.BOOL), vi("v_out", [2])],
        [numpy_helper.from_array(np.ones(2, np.float32), "one")])


def growth_models(out):
    """The classes of input that once made the compiler's cost grow faster than the input (issue
    53), at small sizes for the mutator to grow: nested Loops, a large Range, a variadic node of
    many inputs, a long chain, a high rank, colliding and repeated names."""
    inner = helper.make_node("Loop", ["n", "", "v_in"], ["v_inner"], body=loop_body("inner"))
    outer = helper.make_node("Loop", ["n", "", "x"], ["y"], body=loop_body("outer", inner))
    save(out, "nested_loops", [outer], [vi("x", [2])], [vi("y", [2])], [numpy_helper.from_array(np.array(4, np.int64), "n")])
    save(out, "range", [helper.make_node("Range", ["start", "limit", "delta"], ["y"])], [], [vi("y", [4096], I64)],
         [numpy_helper.from_array(np.array(v, np.int64), k) for k, v in [("start", 0), ("limit", 4096), ("delta", 1)]])
    names = [f"x{i}" for i in range(40)]
    save(out, "sum_of_40", [helper.make_node("Sum", names, ["y"])], [vi(n, [4]) for n in names], [vi("y", [4])])
    chain = [helper.make_node("Relu" if i % 2 else "Neg", [f"t{i}"], [f"t{i + 1}"]) for i in range(50)]
    save(out, "chain_of_50", chain, [vi("t0", [8])], [vi("t50", [8])])
    save(out, "rank_12", [helper.make_node("Relu", ["x"], ["y"])], [vi("x", [1] * 11 + [2])], [vi("y", [1] * 11 + [2])])
    save(out, "dim_names", [helper.make_node("Concat", ["p", "q"], ["y"], axis=0)], [vi("p", ["a-b"]), vi("q", ["a_b"])],
         [vi("y", ["n"])])
    save(out, "repeated_input", [helper.make_node("Add", ["x", "x"], ["y"])], [vi("x", [2]), vi("x", [2])], [vi("y", [2])])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for make in [unary_models, binary_models, layer_models, shape_models, reduce_models, growth_models]:
        make(out)


if __name__ == "__main__":
    main()
