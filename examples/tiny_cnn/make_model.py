"""Writes a small CNN (Conv 3x3 + ReLU + MaxPool + Flatten + Gemm + Softmax) with seeded random
weights as tiny_cnn.onnx, a test input, and ONNX Runtime's output for it, into the given folder."""
import sys
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto
import onnxruntime as ort

out = sys.argv[1] if len(sys.argv) > 1 else "."
rng = np.random.default_rng(0)
w = numpy_helper.from_array(rng.standard_normal((8, 1, 3, 3)).astype(np.float32), "conv_w")
b = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "conv_b")
fw = numpy_helper.from_array((rng.standard_normal((10, 8 * 8 * 8)) * 0.05).astype(np.float32), "fc_w")
fb = numpy_helper.from_array(rng.standard_normal(10).astype(np.float32), "fc_b")
nodes = [
    helper.make_node("Conv", ["image", "conv_w", "conv_b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c"], ["r"], name="relu"),
    helper.make_node("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
    helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["logits"], name="fc", transB=1),
    helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax", axis=1),
]
graph = helper.make_graph(
    nodes,
    "tiny_cnn",
    [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 1, 16, 16])],
    [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 10])],
    [w, b, fw, fb],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, f"{out}/tiny_cnn.onnx")
x = rng.standard_normal((1, 1, 16, 16)).astype(np.float32)
x.tofile(f"{out}/input.bin")
y = ort.InferenceSession(f"{out}/tiny_cnn.onnx", providers=["CPUExecutionProvider"]).run(None, {"image": x})[0]
y.astype(np.float32).tofile(f"{out}/expected.bin")
