"""ONNX Runtime's median latency (one thread) for a model of test-suite/dynamic/make_models.py on
the inputs it wrote for one length. Usage: ort_dynamic.py MODEL.onnx PREFIX BUDGET_MS, where
PREFIX.inK.bin are the inputs and PREFIX.dims their symbols. Prints "median_ms runs"."""
import sys
import numpy as np

from ort import median_latency, session

model, prefix, budget = sys.argv[1], sys.argv[2], float(sys.argv[3])
s = session(model, 1)
# The symbols in order of first use in the inputs' shapes: the order of the .dims file.
symbols = list(dict.fromkeys(d for i in s.get_inputs() for d in i.shape if isinstance(d, str)))
values = dict(zip(symbols, map(int, open(prefix + ".dims").read().split())))
feed = {}
for k, i in enumerate(s.get_inputs()):
    shape = [values[d] if isinstance(d, str) else d for d in i.shape]
    dtype = np.int64 if "int64" in i.type else np.float32
    feed[i.name] = np.fromfile(f"{prefix}.in{k}.bin", dtype=dtype).reshape(shape)
median, runs = median_latency(s, feed, budget)
print(f"{median:.4f} {runs}")
