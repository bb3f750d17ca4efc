"""Gallery cases exported from torch: recurrent models (LSTM, GRU and RNN; bidirectional,
several layers, batch-first) by torch's TorchScript exporter, and a small transformer by its
dynamo exporter at opsets 18 and 23, written in the node tests' layout (DIR/test_torch_NAME/model.onnx,
test_data_set_0/{input,output}_K.pb) with outputs computed by ONNX Runtime, which must agree with
torch's own outputs first.

usage: gen_torch_cases.py DIR     (in the converters' venv: torch, onnx, onnxscript, onnxruntime)
Prints how many cases it wrote. test-suite/gallery/gen_cases.py runs it when that venv exists.
"""

import os
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")
import logging  # noqa: E402

logging.disable(logging.WARNING)

import onnxruntime as ort  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from onnx import numpy_helper  # noqa: E402


class Recurrent(nn.Module):
    def __init__(self, kind, **kwargs):
        super().__init__()
        self.rnn = getattr(nn, kind)(**kwargs)

    def forward(self, x):
        y, state = self.rnn(x)
        return (y,) + (tuple(state) if isinstance(state, tuple) else (state,))


class TinyDecoder(nn.Module):
    """Token and position embeddings, two causal transformer layers, and a tied output head."""

    def __init__(self, vocab=64, d=32, heads=4, seq=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(seq, d) * 0.1)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.layers = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1))

    def forward(self, ids):
        x = self.embed(ids) + self.pos[: ids.shape[1]]
        x = self.layers(x, mask=self.mask, is_causal=True)
        return x @ self.embed.weight.T


def write(out, name, model, examples, names, **export):
    case = os.path.join(out, f"test_torch_{name}")
    data = os.path.join(case, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    path = os.path.join(case, "model.onnx")
    torch.onnx.export(model, tuple(examples), path, input_names=names, **export)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    feeds = {i.name: e.numpy() for i, e in zip(session.get_inputs(), examples)}
    ys = session.run(None, feeds)
    with torch.no_grad():
        expected = model(*examples)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for y, e in zip(ys, expected):
        np.testing.assert_allclose(y, e.numpy(), rtol=1e-3, atol=1e-4)
    for k, (n, x) in enumerate(feeds.items()):
        with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, n).SerializeToString())
    for k, y in enumerate(ys):
        with open(os.path.join(data, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(y).SerializeToString())
    return name


def cases(out):
    rng = np.random.default_rng(11)
    seq = torch.from_numpy(rng.standard_normal((3, 9, 8)).astype(np.float32))
    for kind in ["LSTM", "GRU", "RNN"]:
        torch.manual_seed(0)
        model = Recurrent(kind, input_size=8, hidden_size=12, num_layers=2, bidirectional=True,
                          batch_first=True).eval()
        yield write(out, f"{kind.lower()}_two_layers_bidirectional_batch_first", model, [seq], ["x"],
                    opset_version=17, dynamo=False)
    torch.manual_seed(0)
    model = Recurrent("LSTM", input_size=8, hidden_size=6, num_layers=3).eval()
    yield write(out, "lstm_three_layers", model, [seq.transpose(0, 1).contiguous()], ["x"],
                opset_version=17, dynamo=False)
    torch.manual_seed(0)
    decoder = TinyDecoder().eval()
    ids = torch.from_numpy(rng.integers(0, 64, (2, 16)).astype(np.int64))
    yield write(out, "transformer_dynamo_opset18", decoder, [ids], ["ids"], opset_version=18, dynamo=True)
    # At opset 23 torch 2.7's exporter still decomposes scaled_dot_product_attention (MatMul,
    # Softmax) rather than writing the Attention operator; the node tests cover that operator.
    yield write(out, "transformer_dynamo_opset23", decoder, [ids], ["ids"], opset_version=23, dynamo=True)
    yield write(out, "transformer_torchscript_opset17", decoder, [ids], ["ids"], opset_version=17, dynamo=False)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    written = list(cases(sys.argv[1]))
    print(f"wrote {len(written)} torch-exported cases")


if __name__ == "__main__":
    main()
