#!/usr/bin/env bash
# Benchmarks models of kinds not in the shared set (bench/unseen_models.py: EfficientNet-B0-style,
# DenseNet-style, ResNet-50, MnasNet-B1, RegNet-Y-400MF, ShuffleNet-V2, a GPT-style decoder, an LSTM
# of 64 units, a bidirectional LSTM of 512, a GRU of 128; random weights) compiled by xcc's default
# build against
# ONNX Runtime, at one thread and at all cores, and checks each compiled model's output against
# ONNX Runtime's. Prints a Markdown table. Usage: scripts/bench-unseen.sh
# Needs scripts/setup.sh (the venv's onnx and onnxruntime). BENCH_REPEAT=N (default 3) measures
# each configuration N times and reports the medians; BUDGET_MS (default 2000) bounds one
# measurement; BENCH_MODELS (default all ten) picks some. ONNX Runtime is timed from Python
# (bench/ort.py): each run includes the call's Python overhead, some microseconds, which is most
# of a small recurrent model's time.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p xcc >/dev/null
work=.work/unseen
mkdir -p "$work"
py=.venv/bin/python
budget="${BUDGET_MS:-2000}"
repeat="${BENCH_REPEAT:-3}"
cores=$(nproc)
"$py" bench/unseen_models.py "$work"
echo "| model | threads | xcc ms | ORT ms | xcc / ORT | xcc GFLOP/s | parallel loops | max abs error / max abs output | compile time |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for m in ${BENCH_MODELS:-effnet densenet resnet50 mnasnet regnet shufflenet gpt lstm lstm_large gru}; do
  up=$(echo "$m" | tr a-z A-Z)
  read -r ctime < <( { /usr/bin/time -f "%e" ./target/release/xcc "$work/$m.onnx" -O3 --name "$m" -o "$work/lib$m.a" 2>&1 >/dev/null; } | tail -1)
  sed "s/@NAME@/$m/g; s/@UP@/$up/g" bench/driver.c.in > "$work/bench_$m.c"
  cc -O2 -I "$work" "$work/bench_$m.c" "$work/lib$m.a" -lm -lpthread -o "$work/bench_$m"
  "$work/bench_$m" "$work/$m.input.bin" 10 "$work/$m.out.bin" >/dev/null
  error=$("$py" -c "
import numpy as np, onnx, onnxruntime as ort
m = onnx.load('$work/$m.onnx')
shape = [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]
x = np.fromfile('$work/$m.input.bin', np.float32).reshape(shape)
ref = ort.InferenceSession('$work/$m.onnx', providers=['CPUExecutionProvider']).run(None, {'x': x})[0].ravel()
got = np.fromfile('$work/$m.out.bin', np.float32)
print(f'{np.abs(got - ref).max() / np.abs(ref).max():.1e}')")
  macs=$(cat "$work/$m.macs")
  for threads in 1 "$cores"; do
    xs=""; os=""
    for _ in $(seq "$repeat"); do
      read -r x _ loops <<< "$(XCC_NUM_THREADS=$threads "$work/bench_$m" "$work/$m.input.bin" "$budget")"
      read -r o _ <<< "$("$py" bench/ort.py "$work/$m.onnx" "$work/$m.input.bin" "$budget" "$threads")"
      xs+="$x,"; os+="$o,"
    done
    "$py" -c "
import statistics as st
x, o = st.median([$xs]), st.median([$os])
print(f'| $m | $threads | {x:.3f} | {o:.3f} | **{x/o:.2f}** | {2*$macs/x/1e6:.1f} | $loops | $error | $ctime s |')"
  done
done
