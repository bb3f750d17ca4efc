"""The runtimes' logits for one 128-token prompt side by side: at every position, whether two
runtimes pick the same greedy next token, and how far apart their logits are.

usage: agreement.py VOCAB REFERENCE_NAME REFERENCE.bin [NAME FILE.bin]...

Each file holds a prompt's logits (positions x VOCAB float32, written by step.c, ort_step.py or
llama_step.py). Prints one Markdown row per file against the reference: the positions whose
greedy tokens agree, the largest logit difference, and that difference over the reference's
largest logit."""
import sys

import numpy as np

vocab, ref_name, ref_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ref = np.fromfile(ref_path, np.float32).reshape(-1, vocab)
scale = float(np.abs(ref).max())
for name, path in zip(sys.argv[4::2], sys.argv[5::2]):
    got = np.fromfile(path, np.float32).reshape(-1, vocab)
    same = int((got.argmax(1) == ref.argmax(1)).sum())
    diff = float(np.abs(got - ref).max())
    print(f"| {name} | {ref_name} | {same} of {len(ref)} | {diff:.2e} | {diff / scale:.1e} |")
