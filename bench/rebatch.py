"""Writes a copy of a batch-1 ONNX model with batch N, and an input (bench/gpu_driver.c.in's `lcg`
values) and ONNX Runtime's output for it (raw float32), for the GPU benchmark's batch column. Usage: rebatch.py MODEL.onnx N OUT_DIR.
The batch is the first dim of the graph's input and output; a Reshape whose constant shape has
several dims and starts with 1 gets N there. Fails if ONNX Runtime cannot run the result (the
shared encoder, whose export bakes the batch into its attention's reshapes)."""
import os, sys
import numpy as np
import onnx
from onnx import numpy_helper
import onnxruntime as ort

path, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
m = onnx.load(path)
for v in list(m.graph.input) + list(m.graph.output):
    v.type.tensor_type.shape.dim[0].dim_value = n
del m.graph.value_info[:]
consts = {t.name: t for t in m.graph.initializer}
for node in m.graph.node:
    if node.op_type == "Constant":
        for a in node.attribute:
            if a.name == "value":
                consts[node.output[0]] = a.t
for node in m.graph.node:
    if node.op_type == "Reshape" and node.input[1] in consts:
        t = consts[node.input[1]]
        shape = numpy_helper.to_array(t).copy()
        if shape.size > 1 and shape[0] == 1:
            shape[0] = n
            t.CopyFrom(numpy_helper.from_array(shape.astype(np.int64), t.name))
name = os.path.splitext(os.path.basename(path))[0]
os.makedirs(out, exist_ok=True)
f = os.path.join(out, f"{name}.onnx")
onnx.save(m, f)
s = ort.InferenceSession(f, providers=["CPUExecutionProvider"])
i = s.get_inputs()[0]
def lcg(count):
    # bench/gpu_driver.c.in's `lcg` input: the same 64-bit LCG, the top 24 bits to [-1, 1).
    out, x = np.empty(count, dtype=np.float32), 0x9E3779B97F4A7C15
    for k in range(count):
        x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        out[k] = (x >> 40) / 16777216.0 * 2.0 - 1.0
    return out


shape = [n] + list(i.shape[1:])
x = lcg(int(np.prod(shape))).reshape(shape)
y = s.run(None, {i.name: x})[0]
x.tofile(os.path.join(out, f"{name}.input.bin"))
y.astype(np.float32).tofile(os.path.join(out, f"{name}.output.bin"))
print(f"{name}: batch {n}, output {list(y.shape)}")
