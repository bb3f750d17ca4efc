"""A Llama for the decode benchmark (4 layers, hidden 512, 8 query and 2 key/value heads of 64,
vocabulary 2048, 1024 positions; seeded random weights) written by ONNX Runtime GenAI's model
builder, offline, at each precision given: OUT/PRECISION/model.onnx.

usage: make_model.py OUT PRECISION...      (in .venv-genai)"""
import os
import subprocess
import sys

import torch
import transformers
from tokenizers import Tokenizer, models, pre_tokenizers

out, precisions = sys.argv[1], sys.argv[2:]
torch.manual_seed(0)
cfg = transformers.LlamaConfig(vocab_size=2048, hidden_size=512, intermediate_size=1408, num_hidden_layers=4,
                               num_attention_heads=8, num_key_value_heads=2, max_position_embeddings=1024)
folder = os.path.join(out, "hf")
transformers.AutoModelForCausalLM.from_config(cfg).save_pretrained(folder)
tok = Tokenizer(models.WordLevel(vocab={f"t{i}": i for i in range(2048)}, unk_token="t0"))
tok.pre_tokenizer = pre_tokenizers.Whitespace()
transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="t0", bos_token="t1",
                                     eos_token="t2").save_pretrained(folder)
for p in precisions:
    subprocess.run([sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", folder, "-o",
                    os.path.join(out, p), "-p", p, "-e", "cpu", "-c", os.path.join(out, "cache")],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
