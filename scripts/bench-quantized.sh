#!/usr/bin/env bash
# Benchmarks quantized models against their float originals: each MatMul-heavy shared model
# (the encoder, the MLP) quantized by ONNX Runtime's quantizer (bench/quantize.py: dynamic and
# static QDQ), compiled by xcc with --mcpu=native, timed with the float model by bench/driver.c.in
# and by ONNX Runtime (bench/ort.py) in the same run, at one thread and at all cores, each
# configuration BENCH_REPEAT times (default 3), a model's configurations in turn; prints the
# medians as a markdown table (BENCHMARKS.md keeps it under "Quantized models").
# Usage: scripts/bench-quantized.sh [MODEL...]   (default: encoder mlp)
set -euo pipefail
cd "$(dirname "$0")/.."
models=../shared/models
[ -d "$models" ] || { echo "bench-quantized: ../shared/models is absent"; exit 1; }
cargo build --release -p xcc >/dev/null
work=.work/bench-quantized
py=.venv/bin/python
budget="${BUDGET_MS:-2000}"
repeat="${BENCH_REPEAT:-3}"
cores=$(nproc)
echo "| model | form | threads | xcc ms | ORT ms | xcc / ORT | xcc / xcc float | GFLOP/s (MACs x 2) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for m in "${@:-encoder mlp}"; do
  for m in $m; do
    up=$(echo "$m" | tr a-z A-Z)
    dir="$work/$m"
    mkdir -p "$dir"
    read -r iname shape macs < <("$py" -c "
import json; e = json.load(open('$models/manifest.json'))['$m']
print(e['input']['name'], ','.join(map(str, e['input']['shape'])), e['macs'])")
    "$py" bench/quantize.py "$models/$m.onnx" "$iname" "$shape" "$dir" 2>/dev/null
    cp "$models/$m.onnx" "$dir/float.onnx"
    for form in float dynamic qdq; do
      ./target/release/xcc "$dir/$form.onnx" -O3 --mcpu=native --name "$m" -o "$dir/lib$form.a"
      mkdir -p "$dir/$form"
      mv "$dir/$m.h" "$dir/$form/$m.h" 2>/dev/null || true
      sed "s/@NAME@/$m/g; s/@UP@/$up/g" bench/driver.c.in > "$dir/$form/bench.c"
      cc -O2 -I "$dir/$form" -I "$dir" "$dir/$form/bench.c" "$dir/lib$form.a" -lm -lpthread -o "$dir/$form/bench"
    done
    declare -A float_ms=()
    for threads in 1 "$cores"; do
      for form in float dynamic qdq; do
        xs=""; os=""
        for _ in $(seq "$repeat"); do
          read -r x _ <<< "$(XCC_NUM_THREADS=$threads "$dir/$form/bench" "$models/$m.input.bin" "$budget")"
          read -r o _ <<< "$("$py" bench/ort.py "$dir/$form.onnx" "$models/$m.input.bin" "$budget" "$threads")"
          xs+="$x,"; os+="$o,"
        done
        row=$("$py" -c "
import statistics as st
x, o = st.median([$xs]), st.median([$os])
print(f'{x:.3f} {o:.3f}')")
        read -r x o <<< "$row"
        [ "$form" = float ] && float_ms[$threads]=$x
        "$py" -c "
x, o, f, macs = $x, $o, ${float_ms[$threads]}, $macs
print(f'| $m | $form | $threads | {x:.3f} | {o:.3f} | **{x/o:.2f}** | {x/f:.2f} | {2*macs/x/1e6:.1f} |')"
      done
    done
  done
done
