"""One decode step of OUT/PRECISION/model.onnx under ONNX Runtime after PAST cached tokens: writes
the inputs to OUT/in_K.bin (for step.c) and prints the median milliseconds of RUNS runs (after 5).

usage: ort_step.py MODEL PAST THREADS RUNS OUT"""
import sys
import time

import numpy as np
import onnxruntime as ort

path, past, threads, runs, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
options = ort.SessionOptions()
options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
rng = np.random.default_rng(0)
names = [i.name for i in session.get_inputs()]
feeds = {"input_ids": np.array([[5]], np.int64), "attention_mask": np.ones((1, past + 1), np.int64)}
for n in names[2:]:
    feeds[n] = rng.standard_normal((1, 2, past, 64)).astype(np.float32)
for k, n in enumerate(names):
    feeds[n].tofile(f"{out}/in_{k}.bin")
for _ in range(5):
    session.run(None, feeds)
times = []
for _ in range(runs):
    start = time.perf_counter()
    session.run(None, feeds)
    times.append(time.perf_counter() - start)
print(f"{np.median(times) * 1e3:.3f}")
