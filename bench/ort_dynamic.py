"""ONNX Runtime's median latency (one thread) for a model of test-suite/dynamic/make_models.py on
the inputs it wrote for one length. Usage: ort_dynamic.py MODEL.onnx PREFIX BUDGET_MS, where
PREFIX.inK.bin are the inputs and PREFIX.dims their symbols. Prints "median_ms runs"."""
import sys, time
import numpy as np
import onnxruntime as ort

model, prefix, budget = sys.argv[1], sys.argv[2], float(sys.argv[3])
opts = ort.SessionOptions()
opts.intra_op_num_threads = 1
opts.inter_op_num_threads = 1
s = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
values = dict(zip(["batch", "seq"] if "encoder" in model else ["seq"], map(int, open(prefix + ".dims").read().split())))
feed = {}
for k, i in enumerate(s.get_inputs()):
    shape = [values[d] if isinstance(d, str) else d for d in i.shape]
    dtype = np.int64 if "int64" in i.type else np.float32
    feed[i.name] = np.fromfile(f"{prefix}.in{k}.bin", dtype=dtype).reshape(shape)
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
