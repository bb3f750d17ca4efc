"""llama.cpp on a GGUF file through llama-cpp-python, as ort_step.py measures ONNX Runtime:
prefill of SEQ tokens (PAST 0), or one decode step after PAST cached tokens (SEQ 1); prints the
median milliseconds of RUNS runs (after 2). Flash attention on; the weights loaded into memory
(no mmap); logits of the last token only (llama.cpp's default), or with LOGITS, of every token,
written there after the runs (SEQ x vocabulary float32, for agreement.py; prefill only).

usage: llama_step.py MODEL SEQ PAST THREADS RUNS [LOGITS]      (in .venv-llama)"""
import sys
import time

import numpy as np
from llama_cpp import Llama

path, seq, past, threads, runs = sys.argv[1], *map(int, sys.argv[2:6])
dump = sys.argv[6] if len(sys.argv) > 6 else None
llm = Llama(path, n_ctx=2048, n_batch=512, n_ubatch=512, n_threads=threads, n_threads_batch=threads,
            flash_attn=True, use_mmap=False, verbose=False, logits_all=dump is not None)
tokens = list(np.random.default_rng(0).integers(3, 1000, past + seq + runs + 2))
times = []
for r in range(runs + 2):
    if seq > 1:
        llm.reset()
        start = time.perf_counter()
        llm.eval(tokens[:seq])
    else:
        if r == 0:
            llm.reset()
            llm.eval(tokens[:past])
        start = time.perf_counter()
        llm.eval([tokens[past + r]])
    if r >= 2:
        times.append(time.perf_counter() - start)
if dump:
    np.asarray(llm.scores[:seq], np.float32).tofile(dump)
print(f"{np.median(times) * 1e3:.3f}")
