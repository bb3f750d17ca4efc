"""Decoder-only language models as ONNX Runtime GenAI's model builder writes them, for the
`decoders` suite: tiny Llama (grouped KV heads) and Qwen2 (one KV head, biased projections) from
`transformers` configs with seeded random weights, saved to a local folder with a word-level
tokenizer and given to `onnxruntime_genai.models.builder` offline (fp32, and int4 weights as
MatMulNBits; and Llama with int8 weights, with its embedding table in int4 too
(GatherBlockQuantized), and with int4 weights as DequantizeLinear and MatMul (`use_qdq`)). The graphs
are taken as written: GroupQueryAttention with `seqlens_k` and
`total_sequence_length` computed from the attention mask, rotary embedding inside it, a head
size given by the dim_param `kv_cache_dim`, SkipSimplifiedLayerNormalization.

Each model gets the runs a generation loop makes: prefill (past 0), a decode step at past 1 and
at past 100, a batch of 2 whose second row is right-padded (as GroupQueryAttention's first prompt
takes padding), a decode step of 2 rows of different lengths, and a decode step in the shared
buffer mode (one buffer as past and present, updated in place); and two it must refuse: a mask
summing past the cache, one buffer as past and present of another length. ONNX Runtime computes every
run's outputs. Where ONNX Runtime leaves part of an output undefined (the cache rows past a short
row's length, the logits of a padded token), `RUN.valid{K}.bin` (one byte per element) says
which elements to compare.

usage: make_genai_models.py DIR      (in the GenAI venv: onnxruntime-genai, transformers, torch)

Writes DIR/NAME/model.onnx, DIR/NAME/runs.txt, DIR/NAME/RUN.in{K}.bin and RUN.out{K}.bin as
make_models.py does, and DIR/NAME/tolerance (the comparison's relative and absolute tolerance).
"""

import os
import subprocess
import sys
import tempfile
import warnings

warnings.simplefilter("ignore")
import logging  # noqa: E402

logging.disable(logging.WARNING)

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402

LAYERS = 2
VOCAB = 128
HEAD = 16


def config(family):
    common = dict(num_hidden_layers=LAYERS, vocab_size=VOCAB, max_position_embeddings=256, hidden_size=64)
    if family == "llama":
        return transformers.LlamaConfig(num_attention_heads=4, num_key_value_heads=2, intermediate_size=128,
                                        **common), 2
    if family == "qwen2":
        return transformers.Qwen2Config(num_attention_heads=4, num_key_value_heads=1, intermediate_size=96,
                                        **common), 1
    raise ValueError(family)


def save_folder(family, folder):
    """The model and a word-level tokenizer, as a Hugging Face folder the builder reads offline."""
    torch.manual_seed(0)
    cfg, kv_heads = config(family)
    model = transformers.AutoModelForCausalLM.from_config(cfg)
    # Random biases (zero at init) so that Qwen2's biased projections are exercised.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("bias"):
                p.normal_(0, 0.5)
    model.save_pretrained(folder)
    vocab = {f"t{i}": i for i in range(VOCAB)}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="t0"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="t0", bos_token="t1", eos_token="t2")
    fast.save_pretrained(folder)
    return kv_heads


def build(folder, case, precision, options):
    cache = os.path.join(os.path.dirname(case), "builder-cache")
    cmd = [sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", folder, "-o", case, "-p", precision,
           "-e", "cpu", "-c", cache] + (["--extra_options"] + options if options else [])
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def runs(rng, kv_heads):
    """(name, batch, sequence, past, row lengths (all past + sequence when None))."""
    for name, batch, seq, past, lengths in [("prefill", 1, 5, 0, None), ("decode-past1", 1, 1, 1, None),
                                            ("decode-past100", 1, 1, 100, None),
                                            ("prefill-batch2-padded", 2, 4, 0, [4, 2]),
                                            ("decode-batch2-past100-padded", 2, 1, 100, [101, 98])]:
        total = past + seq
        lengths = lengths or [total] * batch
        ids = rng.integers(0, VOCAB, (batch, seq)).astype(np.int64)
        mask = np.array([[1] * n + [0] * (total - n) for n in lengths], np.int64)
        cache = [rng.standard_normal((batch, kv_heads, past, HEAD)).astype(np.float32) for _ in range(2 * LAYERS)]
        dims = dict(batch_size=batch, sequence_length=seq, past_sequence_length=past, total_sequence_length=total,
                    kv_cache_dim=HEAD)
        yield name, dims, lengths, [ids, mask] + cache


def valid(output, lengths, past):
    """Which elements ONNX Runtime defines: a present cache's rows below each row's length; the
    logits of each row's real tokens (a padded token of the first prompt attends to keys whose
    scores ONNX Runtime never computed)."""
    length = np.array(lengths)[:, None]
    if output.ndim == 4:
        rows = np.arange(output.shape[2])[None, :] < length
        return np.broadcast_to(rows[:, None, :, None], output.shape).astype(np.uint8)
    tokens = past + np.arange(output.shape[1])[None, :] < length
    return np.broadcast_to(tokens[:, :, None], output.shape).astype(np.uint8)


def write(out, family, precision, variant="", options=(), exact=False):
    """The builder's model of `precision` with `options`; `exact`: ONNX Runtime computes in f32
    what the graph does in f32 (its QDQ fusion into MatMulNBits at accuracy_level 0)."""
    case = os.path.join(out, f"genai_{family}_{precision}{variant}")
    os.makedirs(case, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        kv_heads = save_folder(family, folder)
        build(folder, case, precision, list(options))
    so = ort.SessionOptions()
    if exact:
        so.add_session_config_entry("session.qdq_matmulnbits_accuracy_level", "0")
    session = ort.InferenceSession(os.path.join(case, "model.onnx"), so)
    rng = np.random.default_rng(0)
    lines = []
    for name, dims, lengths, feeds in runs(rng, kv_heads):
        names = [i.name for i in session.get_inputs()]
        order = ["input_ids", "attention_mask"] + [f"past_key_values.{i}.{kv}" for i in range(LAYERS)
                                                  for kv in ("key", "value")]
        by_name = dict(zip(order, feeds))
        inputs = [by_name[n] for n in names]
        got = session.run(None, dict(zip(names, inputs)))
        for k, x in enumerate(inputs):
            x.tofile(os.path.join(case, f"{name}.in{k}.bin"))
        for k, y in enumerate(got):
            y.astype(np.float32).tofile(os.path.join(case, f"{name}.out{k}.bin"))
            valid(y, lengths, dims["past_sequence_length"]).tofile(os.path.join(case, f"{name}.valid{k}.bin"))
        lines.append(name + " " + " ".join(f"{k}={v}" for k, v in dims.items()))
    with open(os.path.join(case, "runs.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    # ONNX Runtime runs the builder's int4 and int8 MatMulNBits (accuracy_level 4) on
    # int8-quantized activations; xcc computes them in float: the comparison allows that
    # quantization's error.
    with open(os.path.join(case, "tolerance"), "w") as f:
        f.write("1e-4\n" if precision == "fp32" or exact else "1e-2\n")
    shared_buffer(session, case, kv_heads)
    bad_shared_buffer(case, kv_heads)
    bad_lengths(case, kv_heads)


def shared_buffer(session, case, kv_heads):
    """A decode step in ONNX Runtime GenAI's shared-buffer mode: each cache is a buffer of 16
    rows (5 of them the past) bound as both past and present, which ONNX Runtime updates in
    place (row 5 only); the compiled model is given one buffer for both too (`shared=1`)."""
    name, rows, total = "decode-shared-buffer", 16, 6
    rng = np.random.default_rng(5)
    ids, mask = np.array([[7]], np.int64), np.ones((1, total), np.int64)
    caches = [rng.standard_normal((1, kv_heads, rows, HEAD)).astype(np.float32) for _ in range(2 * LAYERS)]
    inputs = [ids, mask] + [c.copy() for c in caches]
    binding = session.io_binding()
    names = [i.name for i in session.get_inputs()]
    binding.bind_cpu_input(names[0], ids)
    binding.bind_cpu_input(names[1], mask)
    values = [ort.OrtValue.ortvalue_from_numpy(c) for c in caches]
    for value, past, present in zip(values, names[2:], [o.name for o in session.get_outputs()][1:]):
        binding.bind_ortvalue_input(past, value)
        binding.bind_ortvalue_output(present, value)
    binding.bind_output(session.get_outputs()[0].name)
    session.run_with_iobinding(binding)
    logits = binding.copy_outputs_to_cpu()[-1]
    for k, x in enumerate(inputs):
        x.tofile(os.path.join(case, f"{name}.in{k}.bin"))
    for k, y in enumerate([logits] + [v.numpy() for v in values]):
        y.astype(np.float32).tofile(os.path.join(case, f"{name}.out{k}.bin"))
    with open(os.path.join(case, "runs.txt"), "a") as f:
        f.write(f"{name} batch_size=1 sequence_length=1 past_sequence_length={rows} total_sequence_length={total} "
                f"kv_cache_dim={HEAD} shared=1\n")


def bad_shared_buffer(case, kv_heads):
    """One buffer of 16 rows as past and present while the mask is 17 long (a present of 17
    rows, another layout): refused with XCC_ERROR_BAD_DIM, and no row written past the buffer
    (the harness's canaries). No oracle: ONNX Runtime has no such mode."""
    name, rows, total = "refused-shared-buffer-of-another-length", 16, 17
    inputs = [np.array([[7]], np.int64), np.ones((1, total), np.int64)]
    inputs += [np.zeros((1, kv_heads, rows, HEAD), np.float32) for _ in range(2 * LAYERS)]
    for k, x in enumerate(inputs):
        x.tofile(os.path.join(case, f"{name}.in{k}.bin"))
    outputs = [np.zeros((1, 1, VOCAB), np.float32)] + inputs[2:]
    for k, y in enumerate(outputs):
        y.tofile(os.path.join(case, f"{name}.out{k}.bin"))
    with open(os.path.join(case, "runs.txt"), "a") as f:
        f.write(f"{name} batch_size=1 sequence_length=1 past_sequence_length={rows} total_sequence_length={total} "
                f"kv_cache_dim={HEAD} shared=1 refused=dim\n")


def bad_lengths(case, kv_heads):
    """A decode step whose mask sums past the cache (a mask value of 5: seqlens_k = 5, past 1),
    which the compiled model must refuse with XCC_ERROR_INDEX_OUT_OF_RANGE; the outputs it is
    given are sized as for a good step and left unchecked."""
    name = "refused-seqlens-past-the-cache"
    ids = np.array([[3]], np.int64)
    mask = np.array([[1, 5]], np.int64)
    cache = [np.zeros((1, kv_heads, 1, HEAD), np.float32) for _ in range(2 * LAYERS)]
    for k, x in enumerate([ids, mask] + cache):
        x.tofile(os.path.join(case, f"{name}.in{k}.bin"))
    outputs = [np.zeros((1, 1, VOCAB), np.float32)] + [np.zeros((1, kv_heads, 2, HEAD), np.float32)] * (2 * LAYERS)
    for k, y in enumerate(outputs):
        y.tofile(os.path.join(case, f"{name}.out{k}.bin"))
    with open(os.path.join(case, "runs.txt"), "a") as f:
        f.write(f"{name} batch_size=1 sequence_length=1 past_sequence_length=1 total_sequence_length=2 "
                f"kv_cache_dim={HEAD} refused=index\n")


def main():
    out = sys.argv[1]
    count = 0
    for family in ["llama", "qwen2"]:
        for precision in ["fp32", "int4"]:
            write(out, family, precision)
            count += 1
    # int8 weights (MatMulNBits of 8 bits), and the embedding table in int4 too (GatherBlockQuantized).
    write(out, "llama", "int8")
    write(out, "llama", "int4", "_gather", ["op_types_to_quantize=MatMul/Gather"])
    # int4 weights as DequantizeLinear (blocks along K) and MatMul, which xcc keeps packed.
    write(out, "llama", "int4", "_qdq", ["use_qdq=1"], exact=True)
    count += 3
    print(f"wrote {count} models")


if __name__ == "__main__":
    main()
