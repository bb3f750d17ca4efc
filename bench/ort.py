"""ONNX Runtime's median latency for a model on the model's reference input.
Usage: ort.py MODEL.onnx INPUT.bin BUDGET_MS [THREADS]. THREADS (default 1) is ORT's intra-op thread
count. Prints "median_ms runs"."""
import sys, time
import numpy as np
import onnxruntime as ort

model, data, budget = sys.argv[1], sys.argv[2], float(sys.argv[3])
threads = int(sys.argv[4]) if len(sys.argv) > 4 else 1
opts = ort.SessionOptions()
opts.intra_op_num_threads = threads
opts.inter_op_num_threads = 1
s = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
i = s.get_inputs()[0]
x = np.fromfile(data, dtype=np.float32).reshape(i.shape)
feed = {i.name: x}
for _ in range(3):
    s.run(None, feed)
times = []
start = time.perf_counter()
while len(times) < 2000 and (len(times) < 10 or (time.perf_counter() - start) * 1e3 < budget):
    a = time.perf_counter()
    s.run(None, feed)
    times.append((time.perf_counter() - a) * 1e3)
times.sort()
print(f"{times[len(times) // 2]:.4f} {len(times)}")
