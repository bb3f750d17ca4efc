"""The generation loop of generate.c, run by ONNX Runtime over decoder.onnx: the oracle the tests
compare generate's tokens with. Same arguments, same output:

    python reference.py DECODER.onnx greedy MAX_NEW TOKEN...
    python reference.py DECODER.onnx sample SEED TOP_K TOP_P TEMPERATURE MAX_NEW TOKEN...

The sampling is generate.c's, step for step in double precision (splitmix64, likeliest first
with ties by token id, top-k then top-p, one uniform draw)."""

import math
import sys

import numpy as np
import onnxruntime as ort

MASK = (1 << 64) - 1


class Rng:
    def __init__(self, seed):
        self.state = seed & MASK

    def uniform(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z ^= z >> 31
        return (z >> 11) * 2.0**-53


def sample(logits, top_k, top_p, temperature, rng):
    scaled = [float(x) / temperature for x in logits]
    most = max(scaled)
    p = [math.exp(s - most) for s in scaled]
    total = 0.0
    for x in p:
        total += x
    choices = sorted(((x / total, t) for t, x in enumerate(p)), key=lambda c: (-c[0], c[1]))
    kept = min(top_k, len(choices))
    mass = 0.0
    for i in range(kept):
        mass += choices[i][0]
        if mass >= top_p:
            kept = i + 1
            break
    total = 0.0
    for i in range(kept):
        total += choices[i][0]
    u = rng.uniform() * total
    for i in range(kept - 1):
        if u < choices[i][0]:
            return choices[i][1]
        u -= choices[i][0]
    return choices[kept - 1][1]


def main():
    path, mode = sys.argv[1], sys.argv[2]
    sampled = mode == "sample"
    args = sys.argv[3:]
    if sampled:
        rng, top_k, top_p, temperature = Rng(int(args[0])), int(args[1]), float(args[2]), float(args[3])
        args = args[4:]
    max_new, ids = int(args[0]), [int(a) for a in args[1:]]
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    cache = {n: np.zeros((1, 2, 0, 16), np.float32) for n in names[1:]}
    step = np.array([ids], np.int64)
    out = []
    for _ in range(max_new):
        results = session.run(None, {"input_ids": step, **cache})
        last = results[0][0, -1]
        token = sample(last, top_k, top_p, temperature, rng) if sampled else int(np.argmax(last))
        out.append(token)
        cache = dict(zip(names[1:], results[1:]))
        step = np.array([[token]], np.int64)
    print(" ".join(str(t) for t in out))


if __name__ == "__main__":
    main()
