"""ONNX Runtime's median latency for a model on the model's reference input.
Usage: ort.py MODEL.onnx INPUT.bin BUDGET_MS [THREADS]. THREADS (default 1) is ORT's intra-op thread
count. Prints "median_ms runs"."""
import sys, time
import numpy as np
import onnxruntime as ort


def median_latency(session, feed, budget_ms):
    """Three warm-up runs, then runs until the budget (at least 10, at most 2000): the median
    in ms and the count."""
    for _ in range(3):
        session.run(None, feed)
    times = []
    start = time.perf_counter()
    while len(times) < 2000 and (len(times) < 10 or (time.perf_counter() - start) * 1e3 < budget_ms):
        a = time.perf_counter()
        session.run(None, feed)
        times.append((time.perf_counter() - a) * 1e3)
    times.sort()
    return times[len(times) // 2], len(times)


def session(model, threads):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])


if __name__ == "__main__":
    model, data, budget = sys.argv[1], sys.argv[2], float(sys.argv[3])
    threads = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    s = session(model, threads)
    i = s.get_inputs()[0]
    x = np.fromfile(data, dtype=np.float32).reshape(i.shape)
    median, runs = median_latency(s, {i.name: x}, budget)
    print(f"{median:.4f} {runs}")
