"""Writes decoder.onnx, a tiny Llama-style language model with seeded random weights and a KV
cache, in the default ONNX domain (opset 23): token embeddings, two layers of RMSNormalization,
grouped-query Attention (4 query heads over 2 key/value heads) with RotaryEmbedding at the
positions after the past, a SwiGLU feed-forward, and the logits.

    python make_model.py OUT_DIR

Inputs: input_ids int64 [1, seq] and, per layer, past_key_L and past_value_L float32
[1, 2, past, 16]; outputs: logits [1, seq, VOCAB] and present_key_L, present_value_L
[1, 2, past + seq, 16]. `seq` and `past` are dims of the run (past 0 at the prompt).
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

VOCAB, HIDDEN, HEADS, KV_HEADS, HEAD, LAYERS, FFN, POSITIONS = 96, 64, 4, 2, 16, 2, 128, 256


class Graph:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def tensor(self, value, base="c"):
        self.count += 1
        name = f"{base}_{self.count}"
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def weight(self, shape, scale):
        return self.tensor((self.rng.standard_normal(shape) * scale).astype(np.float32), "w")

    def op(self, op, inputs, outputs=1, **attrs):
        self.count += 1
        names = [f"{op.lower()}_{self.count}_{k}" for k in range(outputs)] if isinstance(outputs, int) else outputs
        self.nodes.append(helper.make_node(op, inputs, names, name=f"{op}_{self.count}", **attrs))
        return names[0] if len(names) == 1 else names

    def linear(self, x, n_in, n_out):
        return self.op("MatMul", [x, self.weight([n_in, n_out], n_in**-0.5)])

    def norm(self, x):
        scale = (1.0 + 0.1 * self.rng.standard_normal(HIDDEN)).astype(np.float32)
        return self.op("RMSNormalization", [x, self.tensor(scale)], axis=-1, epsilon=1e-5)


def rotary_caches():
    half = HEAD // 2
    angles = np.arange(POSITIONS)[:, None] / (10000.0 ** (np.arange(half)[None, :] / half))
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def build():
    g = Graph(0)
    embedding = g.weight([VOCAB, HIDDEN], 1.0)
    cos, sin = (g.tensor(c) for c in rotary_caches())
    # Positions past .. past + seq - 1, from the cache's and the ids' shapes.
    past = g.op("Gather", [g.op("Shape", ["past_key_0"]), g.tensor(np.int64(2))])
    seq = g.op("Gather", [g.op("Shape", ["input_ids"]), g.tensor(np.int64(1))])
    positions = g.op("Range", [past, g.op("Add", [past, seq]), g.tensor(np.int64(1))])
    positions = g.op("Unsqueeze", [positions, g.tensor(np.array([0], np.int64))])
    x = g.op("Gather", [embedding, "input_ids"])
    for layer in range(LAYERS):
        h = g.norm(x)
        q = g.op("RotaryEmbedding", [g.linear(h, HIDDEN, HEADS * HEAD), cos, sin, positions], num_heads=HEADS)
        k = g.op("RotaryEmbedding", [g.linear(h, HIDDEN, KV_HEADS * HEAD), cos, sin, positions], num_heads=KV_HEADS)
        v = g.linear(h, HIDDEN, KV_HEADS * HEAD)
        outputs = [f"attention_{layer}", f"present_key_{layer}", f"present_value_{layer}"]
        g.op("Attention", [q, k, v, "", f"past_key_{layer}", f"past_value_{layer}"], outputs, is_causal=1,
             q_num_heads=HEADS, kv_num_heads=KV_HEADS)
        x = g.op("Add", [x, g.linear(outputs[0], HEADS * HEAD, HIDDEN)])
        h = g.norm(x)
        gate = g.linear(h, HIDDEN, FFN)
        swish = g.op("Mul", [gate, g.op("Sigmoid", [gate])])
        x = g.op("Add", [x, g.linear(g.op("Mul", [swish, g.linear(h, HIDDEN, FFN)]), FFN, HIDDEN)])
    g.op("MatMul", [g.norm(x), g.weight([HIDDEN, VOCAB], 3 * HIDDEN**-0.5)], ["logits"])
    cache = [1, KV_HEADS, "past", HEAD]
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "seq"])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, "seq", VOCAB])]
    for layer in range(LAYERS):
        for kv in ("key", "value"):
            inputs.append(helper.make_tensor_value_info(f"past_{kv}_{layer}", TensorProto.FLOAT, cache))
            outputs.append(helper.make_tensor_value_info(f"present_{kv}_{layer}", TensorProto.FLOAT,
                                                         [1, KV_HEADS, "total", HEAD]))
    graph = helper.make_graph(g.nodes, "decoder", inputs, outputs, g.inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)], ir_version=10)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    model = build()
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "decoder.onnx"))


if __name__ == "__main__":
    main()
