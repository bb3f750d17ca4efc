"""Decoder-only language models as optimum 1.x's legacy exporter writes them, for the `decoders`
suite: `decoder_model_merged.onnx`, one graph holding the prompt's decoder and the cached
decoder as the two branches of an If on the input `use_cache_branch`. Tiny GPT-2, Llama and
Qwen2 from `make_models.py`'s configs with seeded random weights, exported from a saved folder
with `optimum.exporters.onnx.main_export(..., legacy=True)`, untouched. The runs are
make_models.py's: the prompt takes the branch without a cache (`use_cache_branch` false, an
empty past), the decode steps the other; ONNX Runtime computes every output.

usage: make_merged_models.py DIR      (in the venv with optimum 1.x: torch, transformers, onnxruntime)

Writes DIR/NAME/model.onnx (the merged decoder), DIR/NAME/runs.txt and DIR/NAME/RUN.in{K}.bin,
RUN.out{K}.bin as make_models.py does.
"""

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
from optimum.exporters.onnx import main_export  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_models import LAYERS, config, runs  # noqa: E402


def write(out, family):
    torch.manual_seed(0)
    cfg, kv_heads, head_dim = config(family)
    model = transformers.AutoModelForCausalLM.from_config(cfg, attn_implementation="eager").eval()
    case = os.path.join(out, f"{family}_optimum_merged")
    folder, exported = case + "_hf", case + "_export"
    model.save_pretrained(folder)
    main_export(folder, output=exported, task="text-generation-with-past", legacy=True)
    os.makedirs(case, exist_ok=True)
    shutil.move(os.path.join(exported, "decoder_model_merged.onnx"), os.path.join(case, "model.onnx"))
    shutil.rmtree(folder)
    shutil.rmtree(exported)
    session = ort.InferenceSession(os.path.join(case, "model.onnx"))
    rng = np.random.default_rng(0)
    lines = []
    for name, dims, feeds in runs(rng, kv_heads, head_dim):
        ids, mask, cache = feeds[0], feeds[1], feeds[2:]
        past = dims["past"]
        positions = np.maximum(np.cumsum(mask, axis=1) - 1, 0)[:, past:].astype(np.int64)
        by_name = {"input_ids": ids, "attention_mask": mask, "position_ids": positions,
                   "use_cache_branch": np.array([past > 0])}
        names = [f"past_key_values.{i}.{kv}" for i in range(LAYERS) for kv in ("key", "value")]
        by_name.update(zip(names, cache))
        inputs = [by_name[i.name] for i in session.get_inputs()]
        got = session.run(None, {i.name: x for i, x in zip(session.get_inputs(), inputs)})
        for k, x in enumerate(inputs):
            x.tofile(os.path.join(case, f"{name}.in{k}.bin"))
        for k, y in enumerate(got):
            y.astype(np.float32).tofile(os.path.join(case, f"{name}.out{k}.bin"))
        dims = dict(batch_size=dims["batch"], sequence_length=dims["sequence"], past_sequence_length=past,
                    attention_mask_sequence_length=dims["total"], total=dims["total"])
        lines.append(name + " " + " ".join(f"{k}={v}" for k, v in dims.items()))
    with open(os.path.join(case, "runs.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    out = sys.argv[1]
    for family in ["gpt2", "llama", "qwen2"]:
        write(out, family)
    print("wrote 3 models")


if __name__ == "__main__":
    main()
