"""Writes models of kinds not in the shared set, with random weights and an input each, for
scripts/bench-unseen.sh. Usage: unseen_models.py DIR. Writes DIR/NAME.onnx, DIR/NAME.input.bin and
DIR/NAME.macs (multiply-adds of the convolutions and matmuls) for:

- effnet: EfficientNet-B0-style, 224 x 224: a SiLU stem, MBConv blocks (1x1 expansion, 3x3 or
  5x5 depthwise, squeeze-and-excitation, 1x1 projection, residual), a 1x1 head, pooling, a Gemm;
- densenet: DenseNet-121-style, 224 x 224: a 7x7 stem, max pooling, two dense blocks of
  BN-ReLU-1x1-BN-ReLU-3x3 layers joined by Concats (growth 32) with a transition between;
- resnet50, mnasnet, regnet, shufflenet: ResNet-50 (v1.5), MnasNet-B1, RegNet-Y-400MF and
  ShuffleNet-V2 1.0 as torchvision defines them, batch normalization folded, 224 x 224;
- gpt: a GPT-style decoder over 128 positions of width 256: four layers of LayerNorm, causal
  attention in 4 heads (the mask an Add of a constant), a tanh-GELU MLP, residual Adds.
"""
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper


class Graph:
    def __init__(self, seed):
        self.nodes, self.inits, self.count, self.macs = [], [], 0, 0
        self.rng = np.random.default_rng(seed)

    def name(self, kind):
        self.count += 1
        return f"{kind}{self.count}"

    def const(self, array):
        n = self.name("c")
        array = np.asarray(array)
        dtype = TensorProto.INT64 if array.dtype == np.int64 else TensorProto.FLOAT
        self.inits.append(helper.make_tensor(n, dtype, array.shape, array.flatten().tolist()))
        return n

    def weight(self, *shape, scale=None):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        s = scale if scale is not None else 1.0 / np.sqrt(fan_in)
        return self.const((self.rng.standard_normal(shape) * s).astype(np.float32))

    def op(self, kind, inputs, **attrs):
        out = self.name("t")
        self.nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def conv(self, x, cin, cout, k, hw, stride=1, group=1):
        w = self.weight(cout, cin // group, k, k)
        b = self.const(np.zeros(cout, np.float32) + 0.01)
        out = (hw + 2 * (k // 2) - k) // stride + 1
        self.macs += cout * (cin // group) * k * k * out * out
        y = self.op("Conv", [x, w, b], pads=[k // 2] * 4, strides=[stride, stride], group=group)
        return y, out

    def silu(self, x):
        return self.op("Mul", [x, self.op("Sigmoid", [x])])

    def bn_relu(self, x, c):
        scale = self.const((1 + 0.1 * self.rng.standard_normal(c)).astype(np.float32))
        bias = self.const((0.1 * self.rng.standard_normal(c)).astype(np.float32))
        mean = self.const((0.1 * self.rng.standard_normal(c)).astype(np.float32))
        var = self.const((1 + 0.1 * self.rng.random(c)).astype(np.float32))
        return self.op("Relu", [self.op("BatchNormalization", [x, scale, bias, mean, var])])

    def save(self, path, inputs, output, shape):
        g = helper.make_graph(self.nodes, "m", inputs, [helper.make_tensor_value_info(output, TensorProto.FLOAT, shape)],
                              self.inits)
        model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        onnx.checker.check_model(model)
        onnx.save(model, path)


def effnet(g):
    x, hw = g.conv("x", 3, 32, 3, 224, stride=2)
    x, c = g.silu(x), 32
    # (expansion, out channels, kernel, stride) per block: B0's stages, one block each but two in
    # the wider ones (the second with a residual).
    blocks = [(1, 16, 3, 1), (6, 24, 3, 2), (6, 24, 3, 1), (6, 40, 5, 2), (6, 40, 5, 1), (6, 80, 3, 2),
              (6, 80, 3, 1), (6, 112, 5, 1), (6, 192, 5, 2), (6, 192, 5, 1), (6, 320, 3, 1)]
    for expand, cout, k, stride in blocks:
        y, mid = x, c * expand
        if expand > 1:
            y, _ = g.conv(y, c, mid, 1, hw)
            y = g.silu(y)
        y, out_hw = g.conv(y, mid, mid, k, hw, stride=stride, group=mid)
        y = g.silu(y)
        squeezed = max(1, c // 4)
        s = g.op("GlobalAveragePool", [y])
        s, _ = g.conv(s, mid, squeezed, 1, 1)
        s, _ = g.conv(g.silu(s), squeezed, mid, 1, 1)
        y = g.op("Mul", [y, g.op("Sigmoid", [s])])
        y, _ = g.conv(y, mid, cout, 1, out_hw)
        if stride == 1 and cout == c:
            y = g.op("Add", [y, x])
        x, c, hw = y, cout, out_hw
    x, _ = g.conv(x, c, 1280, 1, hw)
    x = g.op("Flatten", [g.op("GlobalAveragePool", [g.silu(x)])])
    g.macs += 1280 * 1000
    return g.op("Gemm", [x, g.weight(1000, 1280), g.const(np.zeros(1000, np.float32))], transB=1), [1, 1000]


def densenet(g):
    x, hw = g.conv("x", 3, 64, 7, 224, stride=2)
    x = g.op("MaxPool", [g.bn_relu(x, 64)], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    hw, c = hw // 2, 64
    for block, layers in enumerate([6, 12]):
        for _ in range(layers):
            y, _ = g.conv(g.bn_relu(x, c), c, 128, 1, hw)
            y, _ = g.conv(g.bn_relu(y, 128), 128, 32, 3, hw)
            x, c = g.op("Concat", [x, y], axis=1), c + 32
        if block == 0:
            x, _ = g.conv(g.bn_relu(x, c), c, c // 2, 1, hw)
            x = g.op("AveragePool", [x], kernel_shape=[2, 2], strides=[2, 2])
            hw, c = hw // 2, c // 2
    return g.op("GlobalAveragePool", [g.bn_relu(x, c)]), [1, c, 1, 1]


def relu(g, x):
    return g.op("Relu", [x])


def max_pool(g, x):
    return g.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])


def classifier(g, x, c):
    x = g.op("Flatten", [g.op("GlobalAveragePool", [x])])
    g.macs += c * 1000
    return g.op("Gemm", [x, g.weight(1000, c), g.const(np.zeros(1000, np.float32))], transB=1), [1, 1000]


def resnet50(g):
    """ResNet-50 (v1.5: the stride on the 3x3), batch normalization folded into the convolutions
    as exporters write it."""
    x, hw = g.conv("x", 3, 64, 7, 224, stride=2)
    x, hw, c = max_pool(g, relu(g, x)), hw // 2, 64
    for width, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
        for i in range(blocks):
            s = stride if i == 0 else 1
            y, _ = g.conv(x, c, width, 1, hw)
            y, out_hw = g.conv(relu(g, y), width, width, 3, hw, stride=s)
            y, _ = g.conv(relu(g, y), width, 4 * width, 1, out_hw)
            shortcut = g.conv(x, c, 4 * width, 1, hw, stride=s)[0] if i == 0 else x
            x, c, hw = relu(g, g.op("Add", [y, shortcut])), 4 * width, out_hw
    return classifier(g, x, c)


def inverted_residual(g, x, c, hw, expand, cout, k, stride):
    """MobileNet-V2's block (ReLU, no squeeze-excitation), as MnasNet uses it."""
    mid = c * expand
    y, _ = g.conv(x, c, mid, 1, hw)
    y, out_hw = g.conv(relu(g, y), mid, mid, k, hw, stride=stride, group=mid)
    y, _ = g.conv(relu(g, y), mid, cout, 1, out_hw)
    if stride == 1 and cout == c:
        y = g.op("Add", [y, x])
    return y, out_hw


def mnasnet(g):
    """MnasNet-B1 1.0: a separable stem, then stacks of inverted residuals with 3x3 and 5x5
    depthwise convolutions."""
    x, hw = g.conv("x", 3, 32, 3, 224, stride=2)
    x, _ = g.conv(relu(g, x), 32, 32, 3, hw, group=32)
    x, _ = g.conv(relu(g, x), 32, 16, 1, hw)
    c = 16
    for expand, k, stride, cout, repeats in [(3, 3, 2, 24, 3), (3, 5, 2, 40, 3), (6, 5, 2, 80, 3), (6, 3, 1, 96, 2),
                                             (6, 5, 2, 192, 4), (6, 3, 1, 320, 1)]:
        for i in range(repeats):
            x, hw = inverted_residual(g, x, c, hw, expand, cout, k, stride if i == 0 else 1)
            c = cout
    x, _ = g.conv(x, c, 1280, 1, hw)
    return classifier(g, relu(g, x), 1280)


def regnet(g):
    """RegNet-Y-400MF: bottleneck blocks of grouped 3x3 convolutions (groups of 8 channels) with
    squeeze-excitation, widths 48, 104, 208, 440 over 1, 3, 6, 6 blocks."""
    x, hw = g.conv("x", 3, 32, 3, 224, stride=2)
    x, c = relu(g, x), 32
    for depth, width in [(1, 48), (3, 104), (6, 208), (6, 440)]:
        for i in range(depth):
            s = 2 if i == 0 else 1
            y, _ = g.conv(x, c, width, 1, hw)
            y, out_hw = g.conv(relu(g, y), width, width, 3, hw, stride=s, group=width // 8)
            y = relu(g, y)
            squeezed = max(1, c // 4)
            e, _ = g.conv(g.op("GlobalAveragePool", [y]), width, squeezed, 1, 1)
            e, _ = g.conv(relu(g, e), squeezed, width, 1, 1)
            y = g.op("Mul", [y, g.op("Sigmoid", [e])])
            y, _ = g.conv(y, width, width, 1, out_hw)
            shortcut = g.conv(x, c, width, 1, hw, stride=s)[0] if i == 0 else x
            x, c, hw = relu(g, g.op("Add", [y, shortcut])), width, out_hw
    return classifier(g, x, c)


def shufflenet(g):
    """ShuffleNet-V2 1.0: units that split the channels in two, convolve one half (1x1,
    depthwise 3x3, 1x1), concatenate and shuffle (Reshape, Transpose, Reshape)."""
    def shuffle(x, c, hw):
        r = g.op("Reshape", [x, g.const(np.array([1, 2, c // 2, hw, hw], np.int64))])
        t = g.op("Transpose", [r], perm=[0, 2, 1, 3, 4])
        return g.op("Reshape", [t, g.const(np.array([1, c, hw, hw], np.int64))])
    def branch(x, cin, mid, hw, stride):
        y, _ = g.conv(x, cin, mid, 1, hw)
        y, out_hw = g.conv(relu(g, y), mid, mid, 3, hw, stride=stride, group=mid)
        y, _ = g.conv(y, mid, mid, 1, out_hw)
        return relu(g, y), out_hw
    x, hw = g.conv("x", 3, 24, 3, 224, stride=2)
    x, hw, c = max_pool(g, relu(g, x)), hw // 2, 24
    for cout, units in [(116, 4), (232, 8), (464, 4)]:
        mid = cout // 2
        left, out_hw = g.conv(x, c, c, 3, hw, stride=2, group=c)
        left, _ = g.conv(left, c, mid, 1, out_hw)
        right, _ = branch(x, c, mid, hw, 2)
        x, c, hw = shuffle(g.op("Concat", [relu(g, left), right], axis=1), cout, out_hw), cout, out_hw
        for _ in range(units - 1):
            halves = [g.name("t"), g.name("t")]
            g.nodes.append(helper.make_node("Split", [x, g.const(np.array([mid, mid], np.int64))], halves, axis=1))
            right, _ = branch(halves[1], mid, mid, hw, 1)
            x = shuffle(g.op("Concat", [halves[0], right], axis=1), c, hw)
    x, _ = g.conv(x, c, 1024, 1, hw)
    return classifier(g, relu(g, x), 1024)


def gpt(g, seq=128, width=256, heads=4, layers=4):
    dh = width // heads
    mask = g.const(np.triu(np.full((seq, seq), -1e9, np.float32), 1))
    def layer_norm(x):
        return g.op("LayerNormalization", [x, g.const(np.ones(width, np.float32)), g.const(np.zeros(width, np.float32))],
                    axis=-1)
    def linear(x, cin, cout):
        g.macs += seq * cin * cout
        return g.op("Add", [g.op("MatMul", [x, g.weight(cin, cout)]), g.const(np.zeros(cout, np.float32) + 0.01)])
    def heads_of(x):
        r = g.op("Reshape", [x, g.const(np.array([1, seq, heads, dh], np.int64))])
        return g.op("Transpose", [r], perm=[0, 2, 1, 3])
    x = "x"
    for _ in range(layers):
        h = layer_norm(x)
        q, k, v = (heads_of(linear(h, width, width)) for _ in range(3))
        s = g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])])
        s = g.op("Add", [g.op("Mul", [s, g.const(np.float32(1 / np.sqrt(dh)))]), mask])
        a = g.op("MatMul", [g.op("Softmax", [s], axis=-1), v])
        g.macs += 2 * heads * seq * seq * dh
        a = g.op("Reshape", [g.op("Transpose", [a], perm=[0, 2, 1, 3]), g.const(np.array([1, seq, width], np.int64))])
        x = g.op("Add", [x, linear(a, width, width)])
        h = linear(layer_norm(x), width, 4 * width)
        cube = g.op("Mul", [g.op("Mul", [h, h]), h])
        inner = g.op("Add", [h, g.op("Mul", [cube, g.const(np.float32(0.044715))])])
        t = g.op("Tanh", [g.op("Mul", [inner, g.const(np.float32(np.sqrt(2 / np.pi)))])])
        gelu = g.op("Mul", [g.op("Mul", [h, g.const(np.float32(0.5))]), g.op("Add", [t, g.const(np.float32(1))])])
        x = g.op("Add", [x, linear(gelu, 4 * width, width)])
    return layer_norm(x), [1, seq, width]


def recurrent(kind, seq, batch, inp, hidden, direction="forward"):
    """One LSTM or GRU layer over a [seq, batch, inp] sequence, weights as constants; the output
    its Y, [seq, directions, batch, hidden]."""
    def build(g):
        gates, dirs = {"LSTM": 4, "GRU": 3}[kind], 2 if direction == "bidirectional" else 1
        w = g.weight(dirs, gates * hidden, inp, scale=1 / np.sqrt(inp))
        r = g.weight(dirs, gates * hidden, hidden, scale=1 / np.sqrt(hidden))
        b = g.weight(dirs, 2 * gates * hidden, scale=0.1)
        g.macs += dirs * seq * batch * gates * hidden * (inp + hidden)
        return g.op(kind, ["x", w, r, b], hidden_size=hidden, direction=direction), [seq, dirs, batch, hidden]
    return build, [seq, batch, inp]


# The recurrent models: the small LSTM of the CPU-speed issue, a larger bidirectional one, a GRU.
RECURRENT = [("lstm", *recurrent("LSTM", 20, 1, 32, 64)),
             ("lstm_large", *recurrent("LSTM", 50, 4, 256, 512, "bidirectional")),
             ("gru", *recurrent("GRU", 30, 1, 64, 128))]


def main(out):
    rng = np.random.default_rng(1)
    image = [1, 3, 224, 224]
    for name, build, shape in [("effnet", effnet, image), ("densenet", densenet, image), ("resnet50", resnet50, image),
                               ("mnasnet", mnasnet, image), ("regnet", regnet, image),
                               ("shufflenet", shufflenet, image), ("gpt", gpt, [1, 128, 256])] + RECURRENT:
        g = Graph(seed=len(name))
        y, out_shape = build(g)
        g.save(f"{out}/{name}.onnx", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)], y, out_shape)
        rng.standard_normal(shape).astype(np.float32).tofile(f"{out}/{name}.input.bin")
        with open(f"{out}/{name}.macs", "w") as f:
            f.write(f"{g.macs}\n")


if __name__ == "__main__":
    main(sys.argv[1])
