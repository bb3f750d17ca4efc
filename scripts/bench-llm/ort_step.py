"""SEQ tokens after PAST cached ones of OUT/PRECISION/model.onnx under ONNX Runtime (a decode step,
or a prefill with PAST 0): writes the inputs to OUT/in_K.bin (for step.c) and prints the median
milliseconds of RUNS runs (after 2); with LOGITS, also writes the logits (SEQ x vocabulary float32)
there, for agreement.py. With STEP_CAPACITY=L in the environment, each cache is one buffer of L
positions bound as both past and present (ONNX Runtime GenAI's past_present_share_buffer), which
GroupQueryAttention appends to in place.

usage: ort_step.py MODEL SEQ PAST THREADS RUNS OUT KV_HEADS HEAD [LOGITS]"""
import os
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


def plain_run():
    return session.run(None, feeds)[0]


def shared_run_of(length):
    """A run whose caches are each one buffer of LENGTH positions, past and present."""
    binding = session.io_binding()
    for n in names[:2]:
        binding.bind_cpu_input(n, feeds[n])
    outputs = [o.name for o in session.get_outputs()]
    binding.bind_output(outputs[0], "cpu")
    for n, o in zip(names[2:], outputs[1:]):
        shared = np.zeros((1, kv_heads, length, head), np.float32)
        shared[:, :, :past] = feeds[n]
        value = ort.OrtValue.ortvalue_from_numpy(shared)
        binding.bind_ortvalue_input(n, value)
        binding.bind_ortvalue_output(o, value)

    def run():
        session.run_with_iobinding(binding)
        return binding.get_outputs()[0].numpy()
    return run


capacity = os.environ.get("STEP_CAPACITY")
step = shared_run_of(int(capacity)) if capacity else plain_run
for _ in range(2):
    step()
times = []
for _ in range(runs):
    start = time.perf_counter()
    logits = step()
    times.append(time.perf_counter() - start)
if len(sys.argv) > 9:
    logits.astype(np.float32).tofile(sys.argv[9])
print(f"{np.median(times) * 1e3:.3f}")
