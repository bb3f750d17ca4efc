"""Attention layers with a KV cache in ONNX Runtime's contrib operators, for the `decoders`
suite: what ONNX Runtime's transformer optimizer and older GPT-2 exports write in place of the
plain graph. Each is one decoder layer over run-time batch, sequence and past, built here with
seeded weights:

- attention: com.microsoft Attention (packed QKV weights and bias, `unidirectional`, a raw
  `mask_index [batch, total]` of int32, `past [2, batch, heads, past, head]` and `present`),
  then a projection and a residual add.
- mha: com.microsoft MultiHeadAttention over Q, K and V from three MatMuls (biases packed in
  its `bias` input), `key_padding_mask [batch, total]`, `past_key`/`past_value [batch, heads,
  past, head]` and `present_key`/`present_value`, `unidirectional`.

The runs are a generation loop's (those of make_models.py: prefill from an empty cache, decode
at past 1 and 100, a left-padded batch of 2 at both), and two with an empty dim (a batch of 0, a
step of no new tokens over a cache of 4); ONNX Runtime computes every output.

usage: make_contrib_models.py DIR      (in the project's venv: onnx, onnxruntime, numpy)

Writes DIR/NAME/model.onnx, DIR/NAME/runs.txt, DIR/NAME/RUN.in{K}.bin and RUN.out{K}.bin as
make_models.py does.
"""

import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HIDDEN, HEADS = 32, 4
HEAD = HIDDEN // HEADS
F = TensorProto.FLOAT
RUNS = [("prefill", 1, 5, 0, 0), ("decode-past1", 1, 1, 1, 0), ("decode-past100", 1, 1, 100, 0),
        ("prefill-batch2-padded", 2, 4, 0, 2), ("decode-batch2-past100-padded", 2, 1, 100, 3),
        ("empty-batch", 0, 3, 0, 0), ("empty-sequence", 1, 0, 4, 0)]


def weight(rng, name, shape, scale):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def attention_model(rng):
    inits = [weight(rng, "qkv_w", [HIDDEN, 3 * HIDDEN], HIDDEN**-0.5), weight(rng, "qkv_b", [3 * HIDDEN], 0.1),
             weight(rng, "out_w", [HIDDEN, HIDDEN], HIDDEN**-0.5)]
    nodes = [
        helper.make_node("Attention", ["x", "qkv_w", "qkv_b", "mask", "past"], ["attended", "present"],
                         domain="com.microsoft", num_heads=HEADS, unidirectional=1, name="/layer/Attention"),
        helper.make_node("MatMul", ["attended", "out_w"], ["projected"], name="/layer/MatMul"),
        helper.make_node("Add", ["x", "projected"], ["y"], name="/layer/Add"),
    ]
    inputs = [helper.make_tensor_value_info("x", F, ["batch", "sequence", HIDDEN]),
              helper.make_tensor_value_info("mask", TensorProto.INT32, ["batch", "total"]),
              helper.make_tensor_value_info("past", F, [2, "batch", HEADS, "past", HEAD])]
    outputs = [helper.make_tensor_value_info("y", F, ["batch", "sequence", HIDDEN]),
               helper.make_tensor_value_info("present", F, [2, "batch", HEADS, "total", HEAD])]
    return model(nodes, inputs, outputs, inits)


def mha_model(rng):
    inits = [weight(rng, f"{p}_w", [HIDDEN, HIDDEN], HIDDEN**-0.5) for p in "qkv"]
    inits.append(weight(rng, "qkv_b", [3 * HIDDEN], 0.1))
    nodes = [helper.make_node("MatMul", ["x", f"{p}_w"], [p], name=f"/layer/{p}/MatMul") for p in "qkv"]
    nodes.append(helper.make_node(
        "MultiHeadAttention", ["q", "k", "v", "qkv_b", "mask", "", "past_key", "past_value"],
        ["y", "present_key", "present_value"], domain="com.microsoft", num_heads=HEADS, unidirectional=1,
        name="/layer/MultiHeadAttention"))
    cache = ["batch", HEADS, "past", HEAD]
    inputs = [helper.make_tensor_value_info("x", F, ["batch", "sequence", HIDDEN]),
              helper.make_tensor_value_info("mask", TensorProto.INT32, ["batch", "total"]),
              helper.make_tensor_value_info("past_key", F, cache),
              helper.make_tensor_value_info("past_value", F, cache)]
    present = ["batch", HEADS, "total", HEAD]
    outputs = [helper.make_tensor_value_info("y", F, ["batch", "sequence", HIDDEN]),
               helper.make_tensor_value_info("present_key", F, present),
               helper.make_tensor_value_info("present_value", F, present)]
    return model(nodes, inputs, outputs, inits)


def model(nodes, inputs, outputs, inits):
    graph = helper.make_graph(nodes, "layer", inputs, outputs, inits)
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=8)


def feeds(name, rng, batch, seq, past, pad):
    x = rng.standard_normal((batch, seq, HIDDEN)).astype(np.float32)
    mask = np.ones((batch, past + seq), np.int32)
    if pad:
        mask[-1, :pad] = 0
    if name == "attention":
        return [x, mask, rng.standard_normal((2, batch, HEADS, past, HEAD)).astype(np.float32)]
    cache = [rng.standard_normal((batch, HEADS, past, HEAD)).astype(np.float32) for _ in range(2)]
    return [x, mask] + cache


def write(out, name, m):
    case = os.path.join(out, f"contrib_{name}")
    os.makedirs(case, exist_ok=True)
    onnx.checker.check_model(m)
    path = os.path.join(case, "model.onnx")
    onnx.save(m, path)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(1)
    lines = []
    for run, batch, seq, past, pad in RUNS:
        inputs = feeds(name, rng, batch, seq, past, pad)
        got = session.run(None, {i.name: x for i, x in zip(session.get_inputs(), inputs)})
        for k, x in enumerate(inputs):
            x.tofile(os.path.join(case, f"{run}.in{k}.bin"))
        for k, y in enumerate(got):
            y.astype(np.float32).tofile(os.path.join(case, f"{run}.out{k}.bin"))
        lines.append(f"{run} batch={batch} sequence={seq} past={past} total={past + seq}")
    with open(os.path.join(case, "runs.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(0)
    write(out, "attention", attention_model(rng))
    write(out, "mha", mha_model(rng))
    print("wrote 2 models")


if __name__ == "__main__":
    main()
