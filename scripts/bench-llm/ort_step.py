"""SEQ tokens after PAST cached ones of OUT/PRECISION/model.onnx under ONNX Runtime (a decode step,
or a prefill with PAST 0): writes the inputs to OUT/in_K.bin (for step.c) and prints the median
milliseconds of RUNS runs (after 2); with LOGITS, also writes the logits (SEQ x vocabulary float32)
there, for agreement.py.

usage: ort_step.py MODEL SEQ PAST THREADS RUNS OUT KV_HEADS HEAD [LOGITS]"""
import sys
import time

import numpy as np
import onnxruntime as ort

path, seq, past, threads, runs, out, kv_heads, head = sys.argv[1:9]
seq, past, threads, runs, kv_heads, head = map(int, (seq, past, threads, runs, kv_heads, head))
options = ort.SessionOptions()
options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
rng = np.random.default_rng(0)
names = [i.name for i in session.get_inputs()]
feeds = {"input_ids": rng.integers(3, 1000, (1, seq)).astype(np.int64),
         "attention_mask": np.ones((1, past + seq), np.int64)}
for n in names[2:]:
    feeds[n] = rng.standard_normal((1, kv_heads, past, head)).astype(np.float32)
for k, n in enumerate(names):
    feeds[n].tofile(f"{out}/in_{k}.bin")
for _ in range(2):
    session.run(None, feeds)
times = []
for _ in range(runs):
    start = time.perf_counter()
    logits = session.run(None, feeds)[0]
    times.append(time.perf_counter() - start)
if len(sys.argv) > 9:
    logits.astype(np.float32).tofile(sys.argv[9])
print(f"{np.median(times) * 1e3:.3f}")
