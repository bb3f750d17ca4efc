"""The benchmark's Llama (OUT/hf, from make_model.py) as GGUF for llama.cpp: OUT/gguf/TYPE.gguf
for each TYPE (Q4_0, Q8_0, F32), the same weights as the ONNX files (the builder's int4 rounds
them differently from Q4_0: the formats are compared, not the values). Written with llama.cpp's
gguf-py (GGUF_PY: its folder, from the llama-cpp-python source); the query and key weights are
permuted to llama.cpp's rotary layout as its converter does; no tokenizer ("no_vocab": the
benchmark feeds token ids).

usage: make_gguf.py OUT TYPE...      (in .venv-genai, with PYTHONPATH=GGUF_PY)"""
import os
import sys

import gguf
import numpy as np
import torch
import transformers

out, types = sys.argv[1], sys.argv[2:]
model = transformers.AutoModelForCausalLM.from_pretrained(os.path.join(out, "hf"), dtype=torch.float32)
cfg = model.config
weights = {k: v.detach().numpy() for k, v in model.state_dict().items()}
heads, kv_heads, hidden = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.hidden_size


def rotary_layout(w, n):
    """The rows of each head's halves interleaved (rotate-half to adjacent pairs)."""
    return w.reshape(n, 2, w.shape[0] // n // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


names = {"model.embed_tokens.weight": "token_embd.weight", "model.norm.weight": "output_norm.weight",
         "lm_head.weight": "output.weight"}
parts = {"self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
         "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
         "mlp.down_proj": "ffn_down", "input_layernorm": "attn_norm", "post_attention_layernorm": "ffn_norm"}
for i in range(cfg.num_hidden_layers):
    for hf, gg in parts.items():
        names[f"model.layers.{i}.{hf}.weight"] = f"blk.{i}.{gg}.weight"
os.makedirs(os.path.join(out, "gguf"), exist_ok=True)
for t in types:
    qtype = gguf.GGMLQuantizationType[t]
    w = gguf.GGUFWriter(os.path.join(out, "gguf", f"{t}.gguf"), "llama")
    w.add_context_length(cfg.max_position_embeddings)
    w.add_embedding_length(hidden)
    w.add_block_count(cfg.num_hidden_layers)
    w.add_feed_forward_length(cfg.intermediate_size)
    w.add_head_count(heads)
    w.add_head_count_kv(kv_heads)
    w.add_rope_dimension_count(hidden // heads)
    w.add_rope_freq_base(cfg.rope_parameters["rope_theta"])
    w.add_layer_norm_rms_eps(cfg.rms_norm_eps)
    w.add_vocab_size(cfg.vocab_size)
    w.add_file_type({"F32": 0, "Q4_0": 2, "Q8_0": 7}[t])
    w.add_tokenizer_model("no_vocab")
    for hf, gg in names.items():
        data = weights[hf]
        if hf.endswith("q_proj.weight"):
            data = rotary_layout(data, heads)
        elif hf.endswith("k_proj.weight"):
            data = rotary_layout(data, kv_heads)
        # Norms stay f32, as llama.cpp's converter keeps them; matrices in the file's type.
        if data.ndim == 2 and qtype != gguf.GGMLQuantizationType.F32:
            w.add_tensor(gg, gguf.quants.quantize(data, qtype), raw_dtype=qtype)
        else:
            w.add_tensor(gg, data.astype(np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
