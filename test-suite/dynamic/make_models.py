"""Models with dims known only at run time, built here with a fixed seed, and ONNX Runtime's
outputs for them at several sizes (the oracle of tests/dynamic_dims.rs).

    make_models.py OUT_DIR LENGTH...

writes OUT_DIR/NAME.onnx for each model and, per length L, OUT_DIR/NAME.L.inK.bin (the inputs,
raw little-endian), OUT_DIR/NAME.L.out0.bin (ONNX Runtime's output, float32) and
OUT_DIR/NAME.L.dims (the run-time dims, in the order the run function takes them). The CNN
runs at the batches CNN_BATCHES whatever the lengths.

- encoder: a BERT-style encoder (2 layers, d_model 64, 4 heads, FFN 128, GELU through Erf)
  over x[batch, seq, 64]; both dims symbolic (batch is 1 and 2 in the runs).
- decoder: a GPT-style decoder (2 layers, vocabulary 97) over token ids[1, seq] and positions
  [1, seq], with an additive causal mask[seq, seq] (0 on and below the diagonal, -1e9 above);
  the output is the logits[1, seq, 97] from the tied embedding.
- exported: the decoder as PyTorch exports a model with dynamic axes, over token ids[batch, seq]
  alone: the positions (Range to Shape's seq, Expand to the ids' shape), a rotary-style
  rotate_half of the embeddings (Slice and Concat of the feature halves), the causal mask
  (ConstantOfShape of [seq, seq], Trilu) and the heads' Reshape targets (Concat of dims Gathered
  from Shape) are computed from the input's shape inside the graph.
- cached: one GPT-style decoder step with a KV cache, as exported for generation: token
  ids[1, seq] and the cache past_key, past_value[1, 4, past, 16]; the positions are Range(past,
  past + seq) from the inputs' Shapes, the new keys and values are Concatenated after the cache
  (along the run-time axis past), and the causal mask is a Slice [past : past + seq, 0 : past +
  seq] of a constant [512, 512] table. The output is the logits[1, seq, 97] followed by the
  last token's again (a Slice -1: along seq, Concatenated after a run-time length). Run at (seq, past) = CACHED_STEPS[L]: prefill from an empty
  cache, then steps over a long one.
- pooled: sentence-embedding pooling over x[batch, seq, 16] after one linear layer and ReLU:
  reductions over seq (ReduceMean, ReduceMax), the first three tokens (a Slice :3 along seq,
  min(3, seq) long: a dim the run computes from the dims), an edge and a constant Pad along seq,
  ArgMax and TopK along seq, TopK of the mean's features; the output concatenates them,
  [batch, 131].
- chunked: x[batch, seq, 16] split along seq in two (num_outputs: ceil(seq / 2) long, then
  the rest, empty at seq 1) and along the features into 4 + 12, and every other token (a
  Gather of Range(0, seq, 2): ceil(seq / 2) indices), and a GatherElements along the features
  by indices[batch, seq, 3] (negative ones too), each reduced over seq; the output is
  [batch, 67].
- quantized: x[batch, seq, 66] quantized to uint8, an integer matmul by constant int8 weights
  (MatMulInteger) into [batch, seq, 40], Cast to float and scaled.
- arith: integer shape arithmetic over seq that the dims' ranges leave open (seq // 2, seq % 3,
  min, max, abs, Where on Equal and on And/Or of comparisons, a Cast to float and back,
  ReduceMax/Sum/Prod of [batch, seq], a Tile of [seq]), each a
  length the run computes: Slices of x[batch, seq, 16] cut to them and Ranges as long as them,
  joined into [batch, pieces].
- branched: an If on a shape predicate (seq > 50) whose branches give different lengths: the
  first 50 tokens plus the next 50 (a sum that only a long enough seq can broadcast: the run
  must not check it where the other branch is taken), or ReLU of all seq tokens; summed over
  the features into [batch, 50 or seq].
- cnn: a small CNN over x[batch, 3, 16, 16]: 3x3 convolution with batch normalization, ReLU,
  max pooling, a residual block (3x3 then 1x1), a depthwise 3x3 convolution, average pooling,
  global average pooling, Flatten, Gemm and Softmax; the output is probabilities[batch, 10].
"""

import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

D, HEADS, FFN, LAYERS, VOCAB, MAX_POS = 64, 4, 128, 2, 97, 512
QD, QN = 66, 40
CNN_BATCHES = [1, 2, 8]
IMAGE_SIZES = [8, 13, 31, 64]
# (seq, past) per length: prefills from an empty cache, then single tokens and a chunk after a
# long one (past + seq stays within the MAX_POS-row mask table).
CACHED_STEPS = {1: (1, 0), 7: (7, 0), 45: (45, 0), 128: (1, 127), 512: (64, 448)}
DH = D // HEADS


class Builder:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def weight(self, shape, scale):
        n = self.name("w")
        self.inits.append(numpy_helper.from_array((self.rng.standard_normal(shape) * scale).astype(np.float32), n))
        return n

    def const(self, values, dtype=np.int64):
        n = self.name("c")
        self.inits.append(numpy_helper.from_array(np.array(values, dtype=dtype), n))
        return n

    def op(self, op, inputs, **attrs):
        return self.ops(op, inputs, 1, **attrs)[0]

    def ops(self, op, inputs, n, **attrs):
        outs = [self.name(op.lower()) for _ in range(n)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=outs[0], **attrs))
        return outs

    def linear(self, x, n_in, n_out):
        y = self.op("MatMul", [x, self.weight([n_in, n_out], n_in**-0.5)])
        return self.op("Add", [y, self.weight([n_out], 0.1)])

    def layer_norm(self, x):
        scale = self.const(1.0 + 0.1 * self.rng.standard_normal(D), np.float32)
        bias = self.const(0.1 * self.rng.standard_normal(D), np.float32)
        return self.op("LayerNormalization", [x, scale, bias], axis=-1, epsilon=1e-5)

    def gelu(self, x):
        inner = self.op("Erf", [self.op("Div", [x, self.const(np.sqrt(2.0), np.float32)])])
        half = self.op("Mul", [x, self.const(0.5, np.float32)])
        return self.op("Mul", [half, self.op("Add", [inner, self.const(1.0, np.float32)])])

    def heads(self, x, perm):
        # [b, s, D] -> [b, s, HEADS, DH] (0 copies a dim) -> transposed.
        return self.op("Transpose", [self.op("Reshape", [x, self.const([0, 0, HEADS, DH])])], perm=perm)

    def attention(self, x, mask):
        q = self.heads(self.linear(x, D, D), [0, 2, 1, 3])
        k = self.heads(self.linear(x, D, D), [0, 2, 3, 1])
        v = self.heads(self.linear(x, D, D), [0, 2, 1, 3])
        scores = self.op("Mul", [self.op("MatMul", [q, k]), self.const(DH**-0.5, np.float32)])
        if mask is not None:
            scores = self.op("Add", [scores, mask])
        ctx = self.op("MatMul", [self.op("Softmax", [scores], axis=-1), v])
        # [b, HEADS, s, DH] -> [b, s, HEADS, DH] -> [b, s, D] (-1 takes what is left).
        ctx = self.op("Reshape", [self.op("Transpose", [ctx], perm=[0, 2, 1, 3]), self.const([0, -1, D])])
        return self.linear(ctx, D, D)

    def block(self, x, mask):
        x = self.layer_norm(self.op("Add", [x, self.attention(x, mask)]))
        ffn = self.linear(self.gelu(self.linear(x, D, FFN)), FFN, D)
        return self.layer_norm(self.op("Add", [x, ffn]))

    def model(self, inputs, output, out_dims, opset=17):
        self.nodes[-1].output[0] = "y"
        graph = helper.make_graph(
            self.nodes, "g", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_dims)], self.inits
        )
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def encoder():
    b = Builder(7)
    x = "x"
    for _ in range(LAYERS):
        x = b.block(x, None)
    b.op("Identity", [x])
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", D])]
    return b.model(inputs, "y", ["batch", "seq", D])


def decoder():
    b = Builder(11)
    table = b.weight([VOCAB, D], 1.0)
    x = b.op("Add", [b.op("Gather", [table, "ids"]), b.op("Gather", [b.weight([MAX_POS, D], 0.1), "positions"])])
    for _ in range(LAYERS):
        x = b.block(x, "mask")
    logits = b.op("MatMul", [b.layer_norm(x), b.op("Transpose", [table], perm=[1, 0])])
    b.op("Identity", [logits])
    inputs = [
        helper.make_tensor_value_info("ids", TensorProto.INT64, [1, "seq"]),
        helper.make_tensor_value_info("positions", TensorProto.INT64, [1, "seq"]),
        helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["seq", "seq"]),
    ]
    return b.model(inputs, "y", [1, "seq", VOCAB])


def exported():
    b = Builder(17)
    shape = b.op("Shape", ["ids"])
    batch, seq = (b.op("Unsqueeze", [b.op("Gather", [shape, b.const(i)]), b.const([0])]) for i in (0, 1))
    seq_scalar = b.op("Squeeze", [seq, b.const([0])])
    positions = b.op("Range", [b.const(0), seq_scalar, b.const(1)])
    positions = b.op("Expand", [b.op("Unsqueeze", [positions, b.const([0])]), shape])
    table = b.weight([VOCAB, D], 1.0)
    x = b.op("Add", [b.op("Gather", [table, "ids"]), b.op("Gather", [b.weight([MAX_POS, D], 0.1), positions])])
    # Rotary-style rotate_half: Slice the feature halves and Concat them back, negated and swapped.
    halves = [b.op("Slice", [x, b.const([lo]), b.const([hi]), b.const([-1])]) for lo, hi in ((0, D // 2), (D // 2, D))]
    rotated = b.op("Concat", [b.op("Neg", [halves[1]]), halves[0]], axis=-1)
    x = b.op("Add", [x, b.op("Mul", [rotated, b.const(0.5, np.float32)])])
    value = helper.make_tensor("value", TensorProto.FLOAT, [1], [-1e9])
    full = b.op("ConstantOfShape", [b.op("Concat", [seq, seq], axis=0)], value=value)
    mask = b.op("Trilu", [full, b.const(1)], upper=1)

    def split_heads(x, perm):
        target = b.op("Concat", [batch, seq, b.const([HEADS, DH])], axis=0)
        return b.op("Transpose", [b.op("Reshape", [x, target])], perm=perm)

    def attention(x):
        q = split_heads(b.linear(x, D, D), [0, 2, 1, 3])
        k = split_heads(b.linear(x, D, D), [0, 2, 3, 1])
        v = split_heads(b.linear(x, D, D), [0, 2, 1, 3])
        # The scale from q's last dim, as exported: sqrt(float(Shape(q)[-1])).
        head_dim = b.op("Cast", [b.op("Gather", [b.op("Shape", [q]), b.const(-1)])], to=TensorProto.FLOAT)
        scores = b.op("Div", [b.op("MatMul", [q, k]), b.op("Sqrt", [head_dim])])
        ctx = b.op("MatMul", [b.op("Softmax", [b.op("Add", [scores, mask])], axis=-1), v])
        merged = b.op("Concat", [batch, seq, b.const([D])], axis=0)
        return b.linear(b.op("Reshape", [b.op("Transpose", [ctx], perm=[0, 2, 1, 3]), merged]), D, D)

    for _ in range(LAYERS):
        x = b.layer_norm(b.op("Add", [x, attention(x)]))
        x = b.layer_norm(b.op("Add", [x, b.linear(b.gelu(b.linear(x, D, FFN)), FFN, D)]))
    logits = b.op("MatMul", [b.layer_norm(x), b.op("Transpose", [table], perm=[1, 0])])
    b.op("Identity", [logits])
    inputs = [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "seq"])]
    return b.model(inputs, "y", ["batch", "seq", VOCAB])


def cached():
    b = Builder(23)
    table = b.weight([VOCAB, D], 1.0)

    def size(tensor, axis):
        return b.op("Gather", [b.op("Shape", [tensor]), b.const(axis)])

    def vector(*scalars):
        return b.op("Concat", [b.op("Unsqueeze", [x, b.const([0])]) for x in scalars], axis=0)

    seq, past = size("ids", 1), size("past_key", 2)
    total = b.op("Add", [past, seq])
    positions = b.op("Unsqueeze", [b.op("Range", [past, total, b.const(1)]), b.const([0])])
    x = b.op("Add", [b.op("Gather", [table, "ids"]), b.op("Gather", [b.weight([MAX_POS, D], 0.1), positions])])
    h = b.layer_norm(x)
    q, k, v = (b.heads(b.linear(h, D, D), [0, 2, 1, 3]) for _ in range(3))
    keys = b.op("Concat", ["past_key", k], axis=2)
    values = b.op("Concat", ["past_value", v], axis=2)
    scores = b.op("MatMul", [q, b.op("Transpose", [keys], perm=[0, 1, 3, 2])])
    scores = b.op("Mul", [scores, b.const(DH**-0.5, np.float32)])
    causal = b.const(np.triu(np.full((MAX_POS, MAX_POS), -1e9), 1), np.float32)
    zero = b.const(0)
    mask = b.op("Slice", [causal, vector(past, zero), vector(total, total), b.const([0, 1])])
    ctx = b.op("MatMul", [b.op("Softmax", [b.op("Add", [scores, mask])], axis=-1), values])
    ctx = b.op("Reshape", [b.op("Transpose", [ctx], perm=[0, 2, 1, 3]), b.const([0, -1, D])])
    x = b.layer_norm(b.op("Add", [x, b.linear(ctx, D, D)]))
    logits = b.op("MatMul", [x, b.op("Transpose", [table], perm=[1, 0])])
    # The next token's logits (a Slice along seq), repeated after all of them (a Concat whose
    # first input is seq long): [1, seq + 1, VOCAB].
    last = b.op("Slice", [logits, b.const([-1]), b.const([2**63 - 1]), b.const([1])])
    b.op("Concat", [logits, last], axis=1)
    cache = ["past_key", "past_value"]
    inputs = [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, "seq"])]
    inputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, HEADS, "past", DH]) for n in cache]
    return b.model(inputs, "y", [1, "seq_plus_1", VOCAB])


POOL = 16


def pooled():
    b = Builder(17)
    # Dropout at inference: the input, and a mask of ones that multiplies it.
    kept, mask = b.ops("Dropout", [b.op("Relu", [b.linear("x", POOL, POOL)])], 2)
    h = b.op("Mul", [kept, b.op("Cast", [mask], to=TensorProto.FLOAT)])
    seq = b.const([1])

    def over_seq(op, x):
        return b.op(op, [x, seq], keepdims=0)

    mean = over_seq("ReduceMean", h)
    first = b.op("Slice", [h, b.const([0]), b.const([3]), seq])
    padded = b.op("Pad", [h, b.const([0, 1, 0, 0, 2, 0])], mode="edge")
    # Rows of 0.5 around h: the sum over seq counts them and every row of h once.
    filled = b.op("Pad", [h, b.const([0, 2, 0, 0, 1, 0]), b.const(0.5, np.float32)])
    top = b.ops("TopK", [h, b.const([1])], 2, axis=1)[0]
    parts = [
        mean,
        over_seq("ReduceMax", h),
        over_seq("ReduceSum", first),
        over_seq("ReduceMean", padded),
        over_seq("ReduceSum", filled),
        b.op("Cast", [b.op("ArgMax", [h], axis=1, keepdims=0)], to=TensorProto.FLOAT),
        over_seq("ReduceSum", top),
        b.op("Mul", [over_seq("ReduceL2", h), b.const(0.1, np.float32)]),
        b.ops("TopK", [mean, b.const([3])], 2, axis=1)[0],
    ]
    b.op("Concat", parts, axis=1)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", POOL])]
    return b.model(inputs, "y", ["batch", 8 * POOL + 3], opset=18)


def chunked():
    b = Builder(19)
    seq = b.const([1])
    chunks = b.ops("Split", ["x"], 2, axis=1, num_outputs=2)
    features = b.ops("Split", ["x", b.const([4, 12])], 2, axis=2)
    length = b.op("Squeeze", [b.op("Shape", ["x"], start=1, end=2)])
    every_other = b.op("Gather", ["x", b.op("Range", [b.const(0), length, b.const(2)])], axis=1)
    picked = b.op("GatherElements", ["x", "indices"], axis=2)
    # GatherND of one feature per token (batch_dims 2), ScatterElements adding the first three
    # features at the indices, ScatterND adding the first image to itself (a constant index).
    first = b.op("Slice", ["indices", b.const([0]), b.const([1]), b.const([2])])
    tuples = b.op("Unsqueeze", [b.op("GatherND", ["x", first], batch_dims=2), b.const([2])])
    updates = b.op("Slice", ["x", b.const([0]), b.const([3]), b.const([2])])
    scattered = b.op("ScatterElements", ["x", "indices", updates], axis=2, reduction="add")
    image = b.op("Slice", ["x", b.const([0]), b.const([1]), b.const([0])])
    doubled = b.op("ScatterND", ["x", b.const([[0]]), image], reduction="add")
    # Tile repeating seq twice, weighted by position so that each row's place counts.
    tiled = b.op("Tile", ["x", b.const([1, 2, 1])])
    positions = b.op("Range", [b.const(0), b.op("Squeeze", [b.op("Shape", [tiled], start=1, end=2)]), b.const(1)])
    ramp = b.op("Unsqueeze", [b.op("Cast", [positions], to=TensorProto.FLOAT), b.const([1])])
    weighted = b.op("Mul", [tiled, ramp])
    gathered = [every_other, picked, tuples, scattered, doubled, weighted]
    parts = [b.op("ReduceSum", [x, seq], keepdims=0) for x in chunks + features + gathered]
    b.op("Concat", parts, axis=1)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", POOL])]
    inputs.append(helper.make_tensor_value_info("indices", TensorProto.INT64, ["batch", "seq", 3]))
    return b.model(inputs, "y", ["batch", 7 * POOL + 4], opset=18)


def cnn():
    b = Builder(13)

    def conv(x, c_in, c_out, k, group=1):
        w = b.weight([c_out, c_in // group, k, k], (c_in // group * k * k) ** -0.5)
        return b.op("Conv", [x, w, b.weight([c_out], 0.1)], pads=[k // 2] * 4, group=group)

    def relu(x):
        return b.op("Relu", [x])

    stats = [b.const(1.0 + 0.1 * b.rng.standard_normal(8), np.float32) for _ in range(2)]
    stats += [b.const(0.1 * b.rng.standard_normal(8), np.float32), b.const(0.5 + b.rng.random(8), np.float32)]
    x = relu(b.op("BatchNormalization", [conv("x", 3, 8, 3), *stats]))
    x = b.op("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = relu(b.op("Add", [x, conv(relu(conv(x, 8, 8, 3)), 8, 8, 1)]))
    x = relu(conv(x, 8, 8, 3, group=8))
    x = b.op("AveragePool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])])
    x = b.op("Gemm", [x, b.weight([10, 8], 8**-0.5), b.weight([10], 0.1)], transB=1)
    b.op("Softmax", [x], axis=-1)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 16, 16])]
    return b.model(inputs, "y", ["batch", 10])


def images():
    """A CNN over images of any batch, height and width: convolutions with strides, pads and
    groups, an instance norm, pools with and without ceil_mode, a residual block whose strided branch and strided
    shortcut must agree on their run-time dims, and a global pool to a fixed-size head."""
    b = Builder(17)

    def conv(x, c_in, c_out, k, stride=1, group=1, pad=None):
        w = b.weight([c_out, c_in // group, k, k], (c_in // group * k * k) ** -0.5)
        pads = [k // 2 if pad is None else pad] * 4
        return b.op("Conv", [x, w, b.weight([c_out], 0.1)], pads=pads, strides=[stride] * 2, group=group)

    def relu(x):
        return b.op("Relu", [x])

    def batch_norm(x, c):
        stats = [b.const(1.0 + 0.1 * b.rng.standard_normal(c), np.float32) for _ in range(2)]
        stats += [b.const(0.1 * b.rng.standard_normal(c), np.float32), b.const(0.5 + b.rng.random(c), np.float32)]
        return b.op("BatchNormalization", [x, *stats])

    x = relu(batch_norm(conv("x", 3, 8, 3), 8))
    x = b.op("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = relu(b.op("Add", [x, conv(relu(conv(x, 8, 8, 3)), 8, 8, 1)]))
    # Strided branch and strided 1x1 shortcut: floor((h - 1) / 2) + 1 rows each.
    x = relu(batch_norm(b.op("Add", [conv(relu(conv(x, 8, 16, 3, stride=2)), 16, 16, 3), conv(x, 8, 16, 1, stride=2, pad=0)]), 16))
    x = relu(conv(x, 16, 16, 3, group=16))
    scale, shift = b.const(1.0 + 0.1 * b.rng.standard_normal(16), np.float32), b.weight([16], 0.1)
    x = b.op("InstanceNormalization", [x, scale, shift])
    x = b.op("AveragePool", [x], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1])
    x = b.op("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])])
    b.op("Gemm", [x, b.weight([10, 16], 16**-0.5), b.weight([10], 0.1)], transB=1)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, "height", "width"])]
    return b.model(inputs, "y", ["batch", 10])


def resized():
    """Upsampling images of any size: Resize nearest by 0.5 and 1.5 (asymmetric, rounding up, so
    that the last column's source is clamped to the input), dims the run computes (floor(height
    / 2), floor(3 * width / 2)), Resize linear by 2 (half_pixel), then a ConvTranspose with
    stride 2, pads and output_padding (2 * in rows)."""
    b = Builder(19)
    uneven = b.const([1.0, 1.0, 0.5, 1.5], np.float32)
    down = b.op("Resize", ["x", "", uneven], mode="nearest", coordinate_transformation_mode="asymmetric",
                nearest_mode="ceil")
    scales = b.const([1.0, 1.0, 2.0, 2.0], np.float32)
    up = b.op("Resize", [down, "", scales], mode="linear", coordinate_transformation_mode="half_pixel")
    w = b.weight([2, 3, 3, 3], 18**-0.5)
    b.op("ConvTranspose", [up, w, b.weight([3], 0.1)], strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2, "height", "width"])]
    return b.model(inputs, "y", ["batch", 3, "h2", "w2"], opset=18)


def arith():
    """Integer shape arithmetic over seq that the dims' ranges leave open, each length the run
    computes: seq // 2, seq % 3, min(seq, 5), max(seq, 4) - 3, |seq - 6|, a Where on
    `seq == 1`, seq cast to float and back, a Where on And/Or of comparisons, the maximum, sum
    and product of [batch, seq] and the sum of [seq] tiled twice. Slices of x are
    cut to some (summed over the features), Ranges are as long as the others; every piece is
    [batch, length], joined along the lengths."""
    b = Builder(19)
    n = b.op("Gather", [b.op("Shape", ["x"]), b.const(1)])
    batch = b.op("Shape", ["x"], end=1)

    def scalar(v):
        return b.const(v)

    def cut(length):
        part = b.op("Slice", ["x", b.const([0]), b.op("Unsqueeze", [length, b.const([0])]), b.const([1])])
        return b.op("ReduceSum", [part, b.const([2])], keepdims=0)

    def counted(length):
        row = b.op("Cast", [b.op("Range", [scalar(0), length, scalar(1)])], to=TensorProto.FLOAT)
        shape = b.op("Concat", [batch, b.op("Unsqueeze", [length, b.const([0])])], axis=0)
        return b.op("Expand", [b.op("Unsqueeze", [row, b.const([0])]), shape])

    def where(cond, a, c):
        return b.op("Where", [cond, a, c])

    half = b.op("Div", [n, scalar(2)])
    rem = b.op("Mod", [n, scalar(3)])
    low = b.op("Min", [n, scalar(5)])
    high = b.op("Sub", [b.op("Max", [n, scalar(4)]), scalar(3)])
    dist = b.op("Abs", [b.op("Sub", [n, scalar(6)])])
    ones = where(b.op("Equal", [n, scalar(1)]), scalar(3), b.op("Sub", [n, scalar(1)]))
    floated = b.op("Cast", [b.op("Cast", [n], to=TensorProto.FLOAT)], to=TensorProto.INT64)
    inside = b.op("And", [b.op("Greater", [n, scalar(2)]), b.op("Less", [n, scalar(100)])])
    outside = b.op("Or", [b.op("LessOrEqual", [n, scalar(2)]), b.op("GreaterOrEqual", [n, scalar(500)])])
    gate = where(inside, scalar(2), where(outside, scalar(1), scalar(4)))
    # Reductions of the shape vector [batch, seq], and [seq] tiled twice.
    lead = b.op("Slice", [b.op("Shape", ["x"]), b.const([0]), b.const([2])])
    most, both, area = (b.op(op, [lead], keepdims=0) for op in ("ReduceMax", "ReduceSum", "ReduceProd"))
    twice = b.op("ReduceSum", [b.op("Tile", [b.op("Unsqueeze", [n, b.const([0])]), b.const([2])])], keepdims=0)
    parts = [cut(half), cut(rem), cut(low), cut(high), counted(dist), counted(ones), counted(floated), counted(gate)]
    parts += [counted(most), counted(both), counted(area), counted(twice)]
    b.op("Concat", parts, axis=1)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", POOL])]
    return b.model(inputs, "y", ["batch", "pieces"], opset=18)


def branched():
    """An If on seq > 50 (computed from Shape) with branches of different lengths: then the
    first 50 tokens of x plus tokens 1..51 (two Slices that broadcast only where seq > 50), else
    ReLU(x); the output is the taken branch's [batch, length, 16] summed over the features."""
    b = Builder(23)
    n = b.op("Gather", [b.op("Shape", ["x"]), b.const(1)])
    cond = b.op("Greater", [n, b.const(50)])
    f = TensorProto.FLOAT

    def piece(start):
        return helper.make_node("Slice", ["x", b.const([start]), b.const([start + 50]), b.const([1])],
                                [f"piece{start}"])

    then_branch = helper.make_graph(
        [piece(0), piece(1), helper.make_node("Add", ["piece0", "piece1"], ["longer"])], "then", [],
        [helper.make_tensor_value_info("longer", f, None)])
    else_branch = helper.make_graph([helper.make_node("Relu", ["x"], ["shorter"])], "else", [],
                                    [helper.make_tensor_value_info("shorter", f, None)])
    chosen = b.name("if")
    b.nodes.append(helper.make_node("If", [cond], [chosen], then_branch=then_branch, else_branch=else_branch))
    b.op("ReduceSum", [chosen, b.const([2])], keepdims=0)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", POOL])]
    return b.model(inputs, "y", ["batch", "length"], opset=18)


def image_dims(size):
    """Batch, height and width of the run of `size`: heights up and widths down the range."""
    return (2 if size % 2 else 1, size, 72 - size)


def inputs_for(name, length, rng):
    if name in ("images", "resized"):
        channels = 3 if name == "images" else 2
        return [rng.standard_normal((image_dims(length)[0], channels, *image_dims(length)[1:])).astype(np.float32)]
    if name == "cnn":
        return [rng.standard_normal((length, 3, 16, 16)).astype(np.float32)]
    if name == "encoder":
        batch = 2 if length % 2 else 1
        return [rng.standard_normal((batch, length, D)).astype(np.float32)]
    if name == "quantized":
        batch = 2 if length % 2 else 1
        return [rng.standard_normal((batch, length, QD)).astype(np.float32)]
    if name in ("pooled", "chunked", "arith", "branched"):
        batch = 2 if length % 2 else 1
        x = rng.standard_normal((batch, length, POOL)).astype(np.float32)
        indices = rng.integers(-POOL, POOL, (batch, length, 3)).astype(np.int64)
        return [x, indices] if name == "chunked" else [x]
    if name == "exported":
        batch = 2 if length % 2 else 1
        return [rng.integers(0, VOCAB, (batch, length)).astype(np.int64)]
    if name == "cached":
        seq, past = CACHED_STEPS[length]
        cache = [(rng.standard_normal((1, HEADS, past, DH)) * 0.5).astype(np.float32) for _ in range(2)]
        return [rng.integers(0, VOCAB, (1, seq)).astype(np.int64)] + cache
    ids = rng.integers(0, VOCAB, (1, length)).astype(np.int64)
    positions = np.arange(length, dtype=np.int64)[None, :]
    mask = np.triu(np.full((length, length), -1e9, dtype=np.float32), 1)
    return [ids, positions, mask]


def quantized():
    """x[batch, seq, QD] quantized to uint8 (constant scale and zero point), multiplied by
    constant int8 weights [QD, QN] with MatMulInteger (A's zero point), the int32 sums Cast to
    float and scaled: an integer matmul whose batch x seq rows are known only at run time, K = 66
    ending in a partial quad of k and N = 40 in a partial panel of columns. The weights are 7-bit,
    so ONNX Runtime's AVX2 kernels (which saturate wider byte products) are exact too."""
    rng = np.random.default_rng(19)
    inits = [
        numpy_helper.from_array(np.array(0.05, np.float32), "scale"),
        numpy_helper.from_array(np.array(128, np.uint8), "zero"),
        numpy_helper.from_array(rng.integers(-64, 64, (QD, QN)).astype(np.int8), "w"),
        numpy_helper.from_array(np.array(0.001, np.float32), "out_scale"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["q"]),
        helper.make_node("MatMulInteger", ["q", "w", "zero"], ["sums"]),
        helper.make_node("Cast", ["sums"], ["f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["f", "out_scale"], ["y"]),
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", QD])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", QN])]
    graph = helper.make_graph(nodes, "g", inputs, outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def main():
    out, lengths = sys.argv[1], [int(a) for a in sys.argv[2:]]
    rng = np.random.default_rng(3)
    models = [("encoder", encoder()), ("decoder", decoder()), ("exported", exported()), ("cached", cached())]
    models += [("pooled", pooled()), ("chunked", chunked()), ("quantized", quantized()), ("arith", arith())]
    models += [("branched", branched())]
    for name, model in models + [("cnn", cnn()), ("images", images()), ("resized", resized())]:
        onnx.checker.check_model(model)
        path = f"{out}/{name}.onnx"
        onnx.save(model, path)
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        for length in {"cnn": CNN_BATCHES, "images": IMAGE_SIZES, "resized": IMAGE_SIZES}.get(name, lengths):
            feeds = inputs_for(name, length, rng)
            for k, x in enumerate(feeds):
                x.tofile(f"{out}/{name}.{length}.in{k}.bin")
            y = session.run(None, {i.name: x for i, x in zip(session.get_inputs(), feeds)})[0]
            y.astype(np.float32).tofile(f"{out}/{name}.{length}.out0.bin")
            with open(f"{out}/{name}.{length}.dims", "w") as f:
                two_dims = name in ("encoder", "exported", "pooled", "chunked", "quantized", "arith", "branched")
                if name == "cached":
                    f.write("{} {}".format(*CACHED_STEPS[length]))
                elif name in ("images", "resized"):
                    f.write("{} {} {}".format(*image_dims(length)))
                else:
                    f.write(" ".join(str(d) for d in feeds[0].shape[:2]) if two_dims else f"{length}")


if __name__ == "__main__":
    main()
