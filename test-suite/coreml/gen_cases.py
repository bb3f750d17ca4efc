"""Core ML models checked against ONNX Runtime: torch models (seeded) converted by coremltools to
ML Programs and exported to ONNX, written in the node tests' layout: DIR/NAME/model.mlpackage,
DIR/NAME/model.onnx and DIR/NAME/test_data_set_0/{input,output}_K.pb, the outputs computed by ONNX
Runtime on model.onnx. Each case has a `tolerance` file (rtol atol): FP32_TOLERANCE, or
FP16_TOLERANCE where the package's weights are rounded to float16.

The compressed cases are exact: their torch weights are first made what the compression keeps
(values on a per-channel int8 grid, 16 distinct values per tensor, half of them zero), so that
coremltools' linear quantization, palettization and pruning lose nothing, and ONNX Runtime runs
the very weights the package decompresses to.

usage: gen_cases.py DIR     (in the converters' venv: torch 2.7, coremltools 9, onnx, onnxruntime)
Needs ../shared/models/make_models.py for the shared models; without it those cases are left out.
"""

import os
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")
import logging

logging.disable(logging.WARNING)

import coremltools as ct  # noqa: E402
import coremltools.optimize.coreml as cto  # noqa: E402
import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from onnx import numpy_helper  # noqa: E402

# The float32 packages are the ONNX model's arithmetic in another order: outputs within 1e-4
# relative, where "relative" for an output near zero means to the largest output magnitude.
FP32_TOLERANCE = 1e-4

# The float16 packages hold weights and constants rounded to float16 (xcc computes in float32):
# their outputs are within this fraction of the largest output magnitude of the float32 model's.
FP16_TOLERANCE = 0.005


class Ops(nn.Module):
    """Convolutions and the activations, pooling and data movement around them."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.grouped = nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=4)
        self.bn = nn.BatchNorm2d(8)
        self.inorm = nn.InstanceNorm2d(8, affine=True)
        self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.prelu = nn.PReLU(4)
        self.head = nn.Linear(4 * 4 * 4, 10)

    def forward(self, x):
        y = F.hardswish(self.bn(self.conv(x)))
        y = F.silu(self.grouped(y)) + F.leaky_relu(y, 0.1)
        y = F.elu(self.inorm(y))
        y = F.max_pool2d(F.pad(y, (1, 1, 1, 1), mode="reflect"), 3, stride=2, ceil_mode=True)
        y = self.prelu(self.up(y))
        a, b = torch.chunk(y, 2, dim=1)
        y = torch.cat([torch.sigmoid(a) * b, torch.clamp(a, -0.5, 0.5)], dim=1)
        y = F.avg_pool2d(y, 2, stride=2, padding=1, count_include_pad=False)
        y = F.interpolate(y, scale_factor=2, mode="nearest")
        y = F.avg_pool2d(y, 5)
        return F.gelu(self.head(y.flatten(1)), approximate="tanh")


class Attention(nn.Module):
    """Embedding, causal self-attention, layer norm and the reductions of a classifier head."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 32)
        self.qkv = nn.Linear(32, 96)
        self.out = nn.Linear(32, 32)
        self.norm = nn.LayerNorm(32)
        self.ff = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 32))

    def forward(self, ids):
        x = self.embed(ids)
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.reshape(b, t, 4, d // 4).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = self.norm(x + self.out(a.transpose(1, 2).reshape(b, t, d)))
        x = x + self.ff(x)
        pooled = torch.cat([x.mean(dim=1), x.amax(dim=1), torch.cumsum(x, dim=1)[:, -1]], dim=-1)
        return torch.softmax(pooled, dim=-1), torch.rsqrt(x.pow(2).sum(dim=-1) + 1.0)


class Misc(nn.Module):
    """The elementwise, comparison, selection, reduction and indexing operators."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(6)
        self.prelu = nn.PReLU(6)
        with torch.no_grad():
            self.prelu.weight.copy_(torch.linspace(-0.5, 0.5, 6))
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)

    def forward(self, x, idx):
        y = self.prelu(self.bn(x)).squeeze(2)  # [2, 6, 8] (coremltools' prelu takes rank 4)
        z = torch.where(y > 0.1, torch.sqrt(y.abs() + 1) * torch.exp(-y), torch.sin(y) - torch.cos(y))
        z = torch.maximum(z, torch.tanh(y)) + torch.minimum(torch.erf(y), F.softplus(y)) / 2
        z = torch.triu(z, diagonal=-1) + torch.tril(torch.log(z.abs() + 1), diagonal=2)
        g = torch.gather(z, 2, idx.long())  # [2, 6, 3]
        values, indices = torch.topk(z, 3, dim=-1)
        stacked = torch.stack([g, values, torch.floor(g * 3) / 3], dim=1)  # [2, 3, 6, 3]
        flat = stacked.flatten(2).repeat(1, 2, 1)  # [2, 6, 18]
        picks = (z.argmax(dim=-1, keepdim=True).float() + z.amin(dim=-1, keepdim=True)) * (y.eq(y) & y.lt(9)).float()[..., :1]
        return flat + picks.mean(dim=-1, keepdim=True), indices.int()


class Rearrange(nn.Module):
    """Pixel shuffles, flips, einsum, argsort and one-hot (iOS 16 operators)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 12, 3, padding=1)
        self.shuffle = nn.PixelShuffle(2)

    def forward(self, x, ids):
        y = torch.flip(self.shuffle(self.conv(x)), dims=[2, 3])
        gram = torch.einsum("bchw,bdhw->bcd", y, y)
        order = torch.argsort(gram, dim=-1, descending=True)
        return gram, order.int(), F.one_hot(ids.long(), 6).float() * 2.0, F.pixel_unshuffle(y, 2)


class MoreOps(nn.Module):
    """The rest of the elementwise and logical operators, normalizations, reductions, argmin,
    slicing by size, ranges, fills, scatters along an axis and L2 pooling."""

    def __init__(self):
        super().__init__()
        self.lrn = nn.LocalResponseNorm(3)

    def forward(self, x, k):
        # (torch.floor_divide is left out: its TorchScript export to ONNX truncates.)
        a = torch.remainder(x * 3, 1.7)
        b = torch.ceil(x) - torch.round(x * 2) + torch.sign(x)
        c = torch.atan(x) + torch.tan(x * 0.3) + F.relu6(x * 4) + F.softsign(x)
        d = torch.reciprocal(x.abs() + 1) + torch.square(x)
        m = (x > 0.2).logical_or(x < -0.5).logical_xor(x.ne(0.1)).logical_not().float()
        e = a + b + c + d + m
        n = F.normalize(e, dim=1) + self.lrn(e)
        r = torch.stack([e.amax(dim=-1), e.norm(dim=-1), torch.logsumexp(e, dim=-1), e.abs().sum(dim=-1),
                         (e * e).sum(dim=-1)], dim=1)
        part = torch.flatten(n, 1).narrow(1, 3, 10)
        spread = torch.zeros(2, 10).scatter(1, k.long(), part)
        ramp = torch.arange(10, dtype=torch.float32) * 0.5
        return r, e.argmin(dim=-1).int(), part + ramp + torch.full_like(part, 0.25) + spread, F.lp_pool2d(e, 2, 2)


class Classifier(nn.Module):
    """A small CNN ending in softmax, for coremltools' image input and classifier wrapper; with
    `preprocess`, it also does what the image input's scale and bias do (the ONNX model's input is
    the pixels themselves)."""

    def __init__(self, scale, bias, preprocess=False):
        super().__init__()
        torch.manual_seed(2)
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5))
        self.scale, self.bias, self.preprocess = scale, torch.tensor(bias).view(1, 3, 1, 1), preprocess

    def forward(self, x):
        if self.preprocess:
            x = x * self.scale + self.bias
        p = torch.softmax(self.net(x), dim=-1)
        return (torch.argmax(p, dim=-1), p) if self.preprocess else p


class Recurrent(nn.Module):
    """Stacked LSTMs: two bidirectional batch-first layers, then one forward layer whose final
    states are outputs too; and a GRU (coremltools writes it as a while_loop over the steps)."""

    def __init__(self):
        super().__init__()
        self.stack = nn.LSTM(4, 6, num_layers=2, bidirectional=True, batch_first=True)
        self.last = nn.LSTM(12, 5)
        self.gru = nn.GRU(12, 3, batch_first=True)

    def forward(self, x):
        y, _ = self.stack(x)
        z, (h, c) = self.last(y.transpose(0, 1))
        g, _ = self.gru(y)
        return z, h, c, g


class HalfInterface(nn.Module):
    """A model whose inputs and outputs are float16 (the program computes in between)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x.float()).half()


def small_cnn():
    torch.manual_seed(1)
    return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))


def weights(model):
    """The weight matrices and kernels (every parameter of rank 2 or more, attention's packed
    projections too)."""
    return [p for p in model.parameters() if p.dim() >= 2]


def int8_grid(model):
    """Each weight becomes k * scale per output channel, k in [-127, 127] with 127 reached: what
    symmetric int8 quantization keeps exactly."""
    with torch.no_grad():
        for w in weights(model):
            scale = w.abs().flatten(1).amax(dim=1).clamp_min(1e-3) / 127
            shape = (-1,) + (1,) * (w.dim() - 1)
            w.copy_(torch.round(w / scale.view(shape)).clamp(-127, 127) * scale.view(shape))
    return model


def sixteen_values(model):
    """Each weight tensor takes 16 distinct values: a 4-bit palette keeps it exactly."""
    with torch.no_grad():
        for w in weights(model):
            levels = torch.linspace(-1, 1, 16) * w.abs().max()
            w.copy_(levels[torch.argmin((w.unsqueeze(-1) - levels).abs(), dim=-1)])
    return model


def half_zero(model):
    """The smaller half of each weight tensor's values become zero: pruning the zeros keeps it."""
    with torch.no_grad():
        for w in weights(model):
            w.mul_((w.abs() > w.abs().flatten().median()).to(w.dtype))
    return model


def convert(model, examples, names, precision="fp32", target=None):
    traced = torch.jit.trace(model, examples, check_trace=False)
    inputs = [ct.TensorType(name=n, shape=e.shape, dtype=np.int32 if e.dtype == torch.int32 else np.float32)
              for n, e in zip(names, examples)]
    kwargs = {"minimum_deployment_target": target} if target else {}
    return ct.convert(traced, inputs=inputs, convert_to="mlprogram", skip_model_load=True,
                      compute_precision=ct.precision.FLOAT32 if precision == "fp32" else ct.precision.FLOAT16,
                      **kwargs)


def write_case(out, name, model, examples, names, mlmodel, tolerance=FP32_TOLERANCE):
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    mlmodel.save(os.path.join(d, "model.mlpackage"))
    onnx_path = os.path.join(d, "model.onnx")
    torch.onnx.export(model, tuple(examples), onnx_path, input_names=names, opset_version=17, dynamo=False)
    session = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    feeds = {n: e.numpy() for n, e in zip(names, examples)}
    outputs = session.run(None, feeds)
    # The reference is ONNX Runtime on the export; the export must be torch's model first.
    with torch.no_grad():
        expected = model(*examples)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for y, e in zip(outputs, expected):
        e = e.float().numpy() if e.is_floating_point() else e.numpy()
        np.testing.assert_allclose(y.astype(e.dtype), e, rtol=1e-3, atol=1e-4 * max(1.0, float(np.abs(e).max())),
                                   err_msg=f"{name}: ONNX Runtime on the ONNX export disagrees with torch")
    for k, (n, e) in enumerate(zip(names, examples)):
        with open(os.path.join(d, "test_data_set_0", f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(e.numpy(), n).SerializeToString())
    for k, y in enumerate(outputs):
        with open(os.path.join(d, "test_data_set_0", f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(y).SerializeToString())
    atol = tolerance * max(float(np.abs(y).max()) for y in outputs)
    with open(os.path.join(d, "tolerance"), "w") as f:
        f.write(f"{tolerance} {atol}\n")
    return name


def shared_models():
    here = os.path.dirname(os.path.abspath(__file__))
    shared = os.path.normpath(os.path.join(here, "..", "..", "..", "shared", "models"))
    if not os.path.isfile(os.path.join(shared, "make_models.py")):
        print(f"left out: the shared models ({shared}/make_models.py not found)")
        return {}
    sys.path.insert(0, shared)
    import make_models  # noqa: E402

    return make_models.MODELS


def cases(out):
    rng = np.random.default_rng(0)
    image = torch.from_numpy(rng.standard_normal((1, 3, 32, 32)).astype(np.float32))
    for name, (ctor, shape) in shared_models().items():
        torch.manual_seed(0)
        model = ctor().eval()
        x = torch.from_numpy(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
        yield write_case(out, f"{name}_fp32", model, [x], ["input"], convert(model, [x], ["input"]))
        yield write_case(out, f"{name}_fp16", model, [x], ["input"], convert(model, [x], ["input"], "fp16"),
                         tolerance=FP16_TOLERANCE)
        # Compressed weights, made lossless first (see the module's docstring).
        m = int8_grid(ctor().eval())
        ml = cto.linear_quantize_weights(convert(m, [x], ["input"]), cto.OptimizationConfig(
            global_config=cto.OpLinearQuantizerConfig(mode="linear_symmetric", dtype="int8")))
        yield write_case(out, f"{name}_int8_weights", m, [x], ["input"], ml)
        if name in ("resnet18", "encoder"):
            m = sixteen_values(ctor().eval())
            ml = cto.palettize_weights(convert(m, [x], ["input"], target=ct.target.iOS18), cto.OptimizationConfig(
                global_config=cto.OpPalettizerConfig(mode="unique")))
            yield write_case(out, f"{name}_palettized_ios18", m, [x], ["input"], ml)

    # Unseen architectures from torchvision (seeded, untrained), fp32, at 96x96: channel shuffles
    # (an interleaving concat), squeeze-and-excitation, hard-swish, bilinear upsampling, and
    # ConvNeXt's channels-last layer norms.
    import torchvision

    class SegmentationOut(nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, x):
            return self.model(x)["out"]

    unseen = {
        "shufflenet_v2_x0_5": lambda: torchvision.models.shufflenet_v2_x0_5(),
        "efficientnet_b0": lambda: torchvision.models.efficientnet_b0(),
        "mobilenet_v3_small": lambda: torchvision.models.mobilenet_v3_small(),
        "convnext_tiny": lambda: torchvision.models.convnext_tiny(),
        "lraspp_mobilenet_v3_large": lambda: SegmentationOut(torchvision.models.segmentation.lraspp_mobilenet_v3_large(
            weights_backbone=None)),
    }
    small = torch.from_numpy(rng.standard_normal((1, 3, 96, 96)).astype(np.float32))
    for name, ctor in unseen.items():
        torch.manual_seed(0)
        model = ctor().eval()
        yield write_case(out, f"torchvision_{name}", model, [small], ["input"], convert(model, [small], ["input"]))

    torch.manual_seed(0)
    ops = Ops().eval()
    with torch.no_grad():
        ops.bn.running_mean.uniform_(-0.5, 0.5)
        ops.bn.running_var.uniform_(0.5, 2.0)
    yield write_case(out, "ops_cnn_fp32", ops, [image], ["image"], convert(ops, [image], ["image"]))
    yield write_case(out, "ops_cnn_fp16", ops, [image], ["image"], convert(ops, [image], ["image"], "fp16"),
                     tolerance=FP16_TOLERANCE)

    torch.manual_seed(0)
    att = Attention().eval()
    ids = torch.from_numpy(rng.integers(0, 50, (2, 12)).astype(np.int32))
    yield write_case(out, "attention_fp32", att, [ids], ["ids"], convert(att, [ids], ["ids"]))

    torch.manual_seed(0)
    rec = Recurrent().eval()
    seq = torch.from_numpy(rng.standard_normal((2, 7, 4)).astype(np.float32))
    yield write_case(out, "recurrent_lstm_gru", rec, [seq], ["x"], convert(rec, [seq], ["x"]))

    # iOS 18 keeps scaled_dot_product_attention one operator (before, it is decomposed).
    yield write_case(out, "attention_ios18", att, [ids], ["ids"], convert(att, [ids], ["ids"], target=ct.target.iOS18))

    torch.manual_seed(0)
    misc = Misc().eval()
    seq = torch.from_numpy(rng.standard_normal((2, 6, 1, 8)).astype(np.float32))
    idx = torch.from_numpy(rng.integers(0, 8, (2, 6, 3)).astype(np.int32))
    yield write_case(out, "misc_ops_fp32", misc, [seq, idx], ["x", "idx"], convert(misc, [seq, idx], ["x", "idx"]))

    torch.manual_seed(0)
    rearrange = Rearrange().eval()
    image8 = torch.from_numpy(rng.standard_normal((1, 3, 8, 8)).astype(np.float32))
    ids = torch.from_numpy(rng.integers(0, 6, (1, 4)).astype(np.int32))
    yield write_case(out, "rearrange_ops_ios16", rearrange, [image8, ids], ["x", "ids"],
                     convert(rearrange, [image8, ids], ["x", "ids"], target=ct.target.iOS16))

    torch.manual_seed(0)
    more = MoreOps().eval()
    x4 = torch.from_numpy(rng.standard_normal((2, 4, 6, 6)).astype(np.float32))
    targets = torch.from_numpy(np.stack([rng.permutation(10) for _ in range(2)]).astype(np.int32))
    yield write_case(out, "more_ops_fp32", more, [x4, targets], ["x", "k"], convert(more, [x4, targets], ["x", "k"]))

    # An image classifier: the pixels (0-255, BGR planes) scaled and biased by the program, the
    # labels in the header, the label output the top class's index.
    scale, bias = 1 / 255.0, [-0.5, -0.4, -0.3]
    pixels = torch.from_numpy(rng.uniform(0, 255, (1, 3, 12, 12)).astype(np.float32))
    traced = torch.jit.trace(Classifier(scale, bias).eval(), pixels, check_trace=False)
    ml = ct.convert(traced, inputs=[ct.ImageType(name="image", shape=pixels.shape, scale=scale, bias=bias,
                                                 color_layout=ct.colorlayout.BGR)],
                    classifier_config=ct.ClassifierConfig(["ant", "bee", "cat", "dog", "eel"]),
                    convert_to="mlprogram", compute_precision=ct.precision.FLOAT32, skip_model_load=True)
    yield write_case(out, "image_classifier", Classifier(scale, bias, preprocess=True).eval(), [pixels], ["image"], ml)

    x = torch.from_numpy(rng.standard_normal((1, 3, 16, 16)).astype(np.float32))
    # float16 at the C interface: coremltools (iOS 16 on) takes and returns float16 tensors.
    m = small_cnn().eval()
    ml = ct.convert(torch.jit.trace(m, x), inputs=[ct.TensorType(name="input", shape=x.shape, dtype=np.float16)],
                    outputs=[ct.TensorType(name="output", dtype=np.float16)], convert_to="mlprogram",
                    minimum_deployment_target=ct.target.iOS16, skip_model_load=True)
    yield write_case(out, "float16_interface", HalfInterface(m).eval(), [x.half()], ["input"], ml,
                     tolerance=FP16_TOLERANCE)

    for target, suffix in [(None, "ios16"), (ct.target.iOS18, "ios18")]:
        m = int8_grid(small_cnn().eval())
        ml = cto.linear_quantize_weights(convert(m, [x], ["input"], target=target), cto.OptimizationConfig(
            global_config=cto.OpLinearQuantizerConfig(mode="linear_symmetric", dtype="int8", weight_threshold=0)))
        yield write_case(out, f"int8_weights_{suffix}", m, [x], ["input"], ml)
        m = sixteen_values(small_cnn().eval())
        ml = cto.palettize_weights(convert(m, [x], ["input"], target=target), cto.OptimizationConfig(
            global_config=cto.OpPalettizerConfig(mode="unique", weight_threshold=0)))
        yield write_case(out, f"palettized_weights_{suffix}", m, [x], ["input"], ml)
        m = half_zero(small_cnn().eval())
        ml = cto.prune_weights(convert(m, [x], ["input"], target=target), cto.OptimizationConfig(
            global_config=cto.OpThresholdPrunerConfig(threshold=1e-12, minimum_sparsity_percentile=0.0,
                                                      weight_threshold=0)))
        yield write_case(out, f"pruned_weights_{suffix}", m, [x], ["input"], ml)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    written = list(cases(out))
    print(f"wrote {len(written)} Core ML cases")


if __name__ == "__main__":
    main()
