"""PyTorch eager on CUDA for a shared model (the torch source of ../shared/models/make_models.py),
the GPU benchmark's reference. Usage: torch_gpu.py MAKE_MODELS.py NAME [BATCH [BUDGET_MS [tf32]]].
Float32 throughout (TF32 off for matmuls and cuDNN convolutions, as xcc computes in float32),
unless "tf32" is given (TF32 on, to compare with a library built with xcc --tf32).
Prints "median_ms" per forward pass: batches of 20 passes queued, then one synchronize."""
import importlib.util, sys, time
import torch

spec = importlib.util.spec_from_file_location("make_models", sys.argv[1])
mm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mm)
name = sys.argv[2]
batch = int(sys.argv[3]) if len(sys.argv) > 3 else 1
budget = float(sys.argv[4]) / 1e3 if len(sys.argv) > 4 else 2.0
tf32 = len(sys.argv) > 5 and sys.argv[5] == "tf32"
torch.backends.cuda.matmul.allow_tf32 = tf32
torch.backends.cudnn.allow_tf32 = tf32
ctor, shape = mm.MODELS[name]
torch.manual_seed(0)
model = ctor().eval().cuda()
x = torch.randn((batch,) + tuple(shape[1:]), device="cuda")
times = []
with torch.no_grad():
    for _ in range(5):
        model(x)
    torch.cuda.synchronize()
    start = time.perf_counter()
    while len(times) < 500 and (len(times) < 5 or time.perf_counter() - start < budget):
        a = time.perf_counter()
        for _ in range(20):
            model(x)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - a) / 20 * 1e3)
times.sort()
print(f"{times[len(times) // 2]:.4f}")
