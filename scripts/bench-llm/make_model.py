"""A Llama for the language-model benchmark (seeded random weights) written by ONNX Runtime
GenAI's model builder, offline, at each precision given: OUT/PRECISION/model.onnx. SIZE is
`small` (4 layers, hidden 512, 8 query and 2 key/value heads of 64, vocabulary 2048) or `issue`
(8 layers, hidden 1024, intermediate 2816, 16 query and 4 key/value heads of 64, vocabulary
32000: 155.7 million parameters). PRECISION is fp32, int4 (MatMulNBits with blocks of 32,
accuracy_level 4, the builder's default for CPUs), int4_fp (the same weights, accuracy_level
1: float arithmetic) or int8 (MatMulNBits of 8 bits, blocks of 32, accuracy_level 4). The Hugging Face folder stays in OUT/hf (for the GGUF conversion).

usage: make_model.py OUT SIZE PRECISION...      (in .venv-genai)"""
import os
import subprocess
import sys

import torch
import transformers
from tokenizers import Tokenizer, models, pre_tokenizers

SIZES = {
    "small": dict(vocab_size=2048, hidden_size=512, intermediate_size=1408, num_hidden_layers=4,
                  num_attention_heads=8, num_key_value_heads=2, max_position_embeddings=2048),
    "issue": dict(vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=8,
                  num_attention_heads=16, num_key_value_heads=4, max_position_embeddings=2048),
}

out, size, precisions = sys.argv[1], sys.argv[2], sys.argv[3:]
torch.manual_seed(0)
cfg = transformers.LlamaConfig(**SIZES[size])
folder = os.path.join(out, "hf")
if not os.path.isdir(folder):
    transformers.AutoModelForCausalLM.from_config(cfg).save_pretrained(folder)
    vocab = cfg.vocab_size
    tok = Tokenizer(models.WordLevel(vocab={f"t{i}": i for i in range(vocab)}, unk_token="t0"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="t0", bos_token="t1",
                                         eos_token="t2").save_pretrained(folder)
for p in precisions:
    builder_precision, extra = {"fp32": ("fp32", []), "int4": ("int4", []), "int8": ("int8", []),
                                "int4_fp": ("int4", ["--extra_options", "accuracy_level=1"])}[p]
    subprocess.run([sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", folder, "-o",
                    os.path.join(out, p), "-p", builder_precision, "-e", "cpu", "-c", os.path.join(out, "cache")]
                   + extra, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
