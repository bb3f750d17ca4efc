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
import torch  # noqa: E402
import transformers  # noqa: E402
from optimum.exporters.onnx import main_export  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_models import config, write_named_runs  # noqa: E402


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
    # The prompt takes the branch without a cache, the decode steps the other.
    write_named_runs(case, kv_heads, head_dim, extra=lambda past: {"use_cache_branch": np.array([past > 0])})

def main():
    out = sys.argv[1]
    for family in ["gpt2", "llama", "qwen2"]:
        write(out, family)
    print("wrote 3 models")


if __name__ == "__main__":
    main()
