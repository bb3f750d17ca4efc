"""Decoder-only language models as their exporters write them, for the `decoders` suite: tiny
GPT-2, Llama (grouped KV heads) and Qwen2 (biased projections) from `transformers` configs with
seeded random weights, each exported with a KV cache by torch's TorchScript exporter, by its
dynamo exporter and by optimum-onnx's exporter, untouched. Each model gets runs that a generation loop makes: prefill (past 0),
one decode step after it (past 1), a decode step at past 100, and a batch of 2 whose second row
is left-padded (attention mask 0 over its first positions). ONNX Runtime computes every run's
outputs, after torch's own outputs agreed with them.

usage: make_models.py DIR      (in the converters' venv: torch, transformers, onnx, onnxruntime)

Writes DIR/NAME/model.onnx (and its external data), DIR/NAME/runs.txt (a line per run: its name,
then `dim=value` for every dim name an exporter may use), and DIR/NAME/RUN.in{K}.bin and
RUN.out{K}.bin (raw little-endian tensors in the graph's input and output order).
"""

import copy
import os
import shutil
import sys
import warnings

warnings.simplefilter("ignore")
import logging  # noqa: E402

logging.disable(logging.WARNING)

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from transformers.cache_utils import DynamicCache  # noqa: E402

LAYERS = 2
VOCAB = 128


def config(family):
    common = dict(num_hidden_layers=LAYERS, vocab_size=VOCAB, max_position_embeddings=256)
    if family == "gpt2":
        return transformers.GPT2Config(n_layer=LAYERS, n_embd=64, n_head=4, vocab_size=VOCAB, n_positions=256), 4, 16
    if family == "llama":
        return transformers.LlamaConfig(hidden_size=64, num_attention_heads=4, num_key_value_heads=2,
                                        intermediate_size=128, **common), 2, 16
    if family == "qwen2":
        return transformers.Qwen2Config(hidden_size=64, num_attention_heads=4, num_key_value_heads=1,
                                        intermediate_size=96, **common), 1, 16
    raise ValueError(family)


class WithCache(torch.nn.Module):
    """The model over flat cache tensors: `(ids, mask, past_0_k, past_0_v, ...)` in,
    `(logits, present_0_k, present_0_v, ...)` out."""

    def __init__(self, model, legacy):
        super().__init__()
        self.model = model
        self.legacy = legacy

    def forward(self, input_ids, attention_mask, k0, v0, k1, v1):
        pairs = ((k0, v0), (k1, v1))
        cache = pairs if self.legacy else DynamicCache.from_legacy_cache(pairs)
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, past_key_values=cache, use_cache=True)
        present = out.past_key_values
        if not isinstance(present, tuple):
            present = present.to_legacy_cache()
        return (out.logits,) + tuple(t for pair in present for t in pair)


def names():
    cache = [f"past_{i}_{kv}" for i in range(LAYERS) for kv in "kv"]
    present = [f"present_{i}_{kv}" for i in range(LAYERS) for kv in "kv"]
    return ["input_ids", "attention_mask"] + cache, ["logits"] + present


def export(module, example, path, exporter):
    inputs, outputs = names()
    if exporter == "torchscript":
        axes = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "total"},
                "logits": {0: "batch", 1: "sequence"}}
        axes.update({n: {0: "batch", 2: "past"} for n in inputs[2:]})
        axes.update({n: {0: "batch", 2: "total"} for n in outputs[1:]})
        torch.onnx.export(module, example, path, input_names=inputs, output_names=outputs, dynamic_axes=axes,
                          opset_version=17, dynamo=False)
    else:
        from torch.export import Dim
        batch, seq, past = Dim("batch", min=1, max=64), Dim("sequence", min=1, max=128), Dim("past", min=0, max=128)
        shapes = ({0: batch, 1: seq}, {0: batch, 1: Dim.AUTO}) + tuple({0: batch, 2: past} for _ in inputs[2:])
        torch.onnx.export(module, example, path, input_names=inputs, output_names=outputs, dynamic_shapes=shapes,
                          opset_version=18, dynamo=True)


def runs(rng, kv_heads, head_dim):
    """(name, batch, sequence, past, padded positions of the last row)."""
    for name, batch, seq, past, pad in [("prefill", 1, 5, 0, 0), ("decode-past1", 1, 1, 1, 0),
                                        ("decode-past100", 1, 1, 100, 0), ("prefill-batch2-padded", 2, 4, 0, 2),
                                        ("decode-batch2-past100-padded", 2, 1, 100, 3)]:
        ids = rng.integers(0, VOCAB, (batch, seq)).astype(np.int64)
        mask = np.ones((batch, past + seq), np.int64)
        mask[-1, :pad] = 0
        cache = [rng.standard_normal((batch, kv_heads, past, head_dim)).astype(np.float32) for _ in range(2 * LAYERS)]
        yield name, dict(batch=batch, sequence=seq, past=past, total=past + seq), [ids, mask] + cache


def write(out, family, exporter):
    torch.manual_seed(0)
    cfg, kv_heads, head_dim = config(family)
    model = transformers.AutoModelForCausalLM.from_config(cfg, attn_implementation="eager").eval()
    module = WithCache(model, legacy=family == "gpt2")
    rng = np.random.default_rng(0)
    # The example that traces: batch 2 and past 2 (torch.export takes sizes 0 and 1 for constants).
    example = (torch.tensor(rng.integers(0, VOCAB, (2, 3))), torch.ones(2, 5, dtype=torch.int64)) + tuple(
        torch.randn(2, kv_heads, 2, head_dim) for _ in range(2 * LAYERS))
    case = os.path.join(out, f"{family}_{exporter}")
    os.makedirs(case, exist_ok=True)
    path = os.path.join(case, "model.onnx")
    # A copy is exported: TorchScript's export changes the GPT-2 module it traces.
    with torch.no_grad():
        export(copy.deepcopy(module), example, path, exporter)
    session = ort.InferenceSession(path)
    lines = []
    for name, dims, feeds in runs(rng, kv_heads, head_dim):
        got = session.run(None, {i.name: x for i, x in zip(session.get_inputs(), feeds)})
        with torch.no_grad():
            want = module(*[torch.from_numpy(x) for x in feeds])
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=1e-4, err_msg=f"{case} {name}")
        for k, x in enumerate(feeds):
            x.tofile(os.path.join(case, f"{name}.in{k}.bin"))
        for k, y in enumerate(got):
            y.astype(np.float32).tofile(os.path.join(case, f"{name}.out{k}.bin"))
        lines.append(name + " " + " ".join(f"{k}={v}" for k, v in dims.items()))
    with open(os.path.join(case, "runs.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def write_optimum(out, family):
    """The model as optimum-onnx's exporter writes it (`text-generation-with-past`, from a saved
    folder): inputs by name, position_ids among them (each row's count of real tokens before it,
    as transformers' generation computes them for a left-padded row)."""
    from optimum.exporters.onnx import main_export

    torch.manual_seed(0)
    cfg, kv_heads, head_dim = config(family)
    model = transformers.AutoModelForCausalLM.from_config(cfg, attn_implementation="eager").eval()
    case = os.path.join(out, f"{family}_optimum")
    folder = os.path.join(out, f"{family}_optimum_hf")
    model.save_pretrained(folder)
    main_export(folder, output=case, task="text-generation-with-past", no_post_process=True)
    shutil.rmtree(folder)
    write_named_runs(case, kv_heads, head_dim)


def write_named_runs(case, kv_heads, head_dim, extra=lambda past: {}):
    """The runs of `runs` fed to CASE/model.onnx by input name, as optimum's exports take them:
    position_ids among them (each row's count of real tokens before it, as transformers'
    generation computes them for a left-padded row) and `extra(past)`'s inputs; ONNX Runtime's
    outputs, and runs.txt with the dims under every name optimum's exporters give them."""
    session = ort.InferenceSession(os.path.join(case, "model.onnx"))
    rng = np.random.default_rng(0)
    lines = []
    for name, dims, feeds in runs(rng, kv_heads, head_dim):
        ids, mask, cache = feeds[0], feeds[1], feeds[2:]
        past = dims["past"]
        positions = np.maximum(np.cumsum(mask, axis=1) - 1, 0)[:, past:].astype(np.int64)
        by_name = {"input_ids": ids, "attention_mask": mask, "position_ids": positions, **extra(past)}
        names_ = [f"past_key_values.{i}.{kv}" for i in range(LAYERS) for kv in ("key", "value")]
        by_name.update(zip(names_, cache))
        inputs = [by_name[i.name] for i in session.get_inputs()]
        got = session.run(None, {i.name: x for i, x in zip(session.get_inputs(), inputs)})
        for k, x in enumerate(inputs):
            x.tofile(os.path.join(case, f"{name}.in{k}.bin"))
        for k, y in enumerate(got):
            y.astype(np.float32).tofile(os.path.join(case, f"{name}.out{k}.bin"))
        dims = dict(dims, batch_size=dims["batch"], sequence_length=dims["sequence"], past_sequence_length=past,
                    attention_mask_sequence_length=dims["total"])
        lines.append(name + " " + " ".join(f"{k}={v}" for k, v in dims.items()))
    with open(os.path.join(case, "runs.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    out = sys.argv[1]
    count = 0
    for family in ["gpt2", "llama", "qwen2"]:
        for exporter in ["torchscript", "dynamo"]:
            write(out, family, exporter)
            count += 1
        write_optimum(out, family)
        count += 1
    print(f"wrote {count} models")


if __name__ == "__main__":
    main()
