#!/usr/bin/env bash
# Benchmarks every shared model compiled by xcc against ONNX Runtime (one thread), in one run on
# this machine, and writes the table to BENCHMARKS.md. Usage: scripts/bench.sh [--mcpu=CPU]
# (default --mcpu=native). Needs ../shared/models and scripts/setup.sh. BENCH_REPEAT=N (default 3)
# times each model N times, xcc and ORT in turn, and reports the medians and the ratios' range.
# Everything in BENCHMARKS.md from the line "## Earlier measurements" on is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
mcpu="${1:---mcpu=native}"
models=../shared/models
[ -d "$models" ] || { echo "bench: ../shared/models is absent"; exit 1; }
cargo build --release -p xcc >/dev/null
work=.work/bench
mkdir -p "$work"
py=.venv/bin/python
budget=3000
repeat="${BENCH_REPEAT:-3}"
rows=""
for m in mlp squeezenet1_1 mobilenet_v2 resnet18 encoder; do
  up=$(echo "$m" | tr a-z A-Z)
  # Compile time (s) and peak compiler memory (KiB) from GNU time.
  read -r ctime cmem < <( { /usr/bin/time -f "%e %M" ./target/release/xcc "$models/$m.onnx" -O3 "$mcpu" -o "$work/lib$m.a" 2>&1 >/dev/null; } | tail -1)
  sed "s/@NAME@/$m/g; s/@UP@/$up/g" bench/driver.c.in > "$work/bench_$m.c"
  cc -O2 -I "$work" "$work/bench_$m.c" "$work/lib$m.a" -lm -lpthread -o "$work/bench_$m"
  xs=""; os=""
  for _ in $(seq "$repeat"); do
    read -r xcc_ms xcc_n < <("$work/bench_$m" "$models/$m.input.bin" "$budget")
    read -r ort_ms ort_n < <("$py" bench/ort.py "$models/$m.onnx" "$models/$m.input.bin" "$budget")
    xs+="$xcc_ms,"; os+="$ort_ms,"
  done
  macs=$("$py" -c "import json;print(json.load(open('$models/manifest.json'))['$m']['macs'])")
  row=$("$py" -c "
import statistics as st
xs,os,macs=[$xs],[$os],$macs
x,o=st.median(xs),st.median(os)
rs=[a/b for a,b in zip(xs,os)]
print(f'| $m | {x:.3f} | {o:.3f} | {x/o:.2f}x | {min(rs):.2f}-{max(rs):.2f} | {2*macs/x/1e6:.1f} | {2*macs/o/1e6:.1f} | $ctime s | {$cmem/1024:.0f} MiB |')")
  echo "$row"
  rows+="$row"$'\n'
done
cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
history=""
[ -f BENCHMARKS.md ] && history=$(sed -n '/^## Earlier measurements/,$p' BENCHMARKS.md)
{
  echo "# Benchmarks"
  echo
  echo "Produced by \`bash scripts/bench.sh $mcpu\` on $(date -u +%Y-%m-%d), $cpu, $(nproc) cores."
  echo "Batch 1, single thread for both. A measurement times xcc's compiled model (C driver: 3 warm-up runs, then"
  echo "the median of as many runs as fit in ${budget} ms) and ONNX Runtime $("$py" -c 'import onnxruntime;print(onnxruntime.__version__)') (intra-op threads = 1, same"
  echo "input, same budget); each model is measured $repeat times, xcc and ORT in turn, and the table gives the medians."
  echo "Ratio = xcc / ORT (lower is better), with the range of the $repeat pairs' ratios. GFLOP/s = 2 x MACs (manifest) / time."
  echo
  echo "| model | xcc ms | ORT ms | ratio | ratio range | xcc GFLOP/s | ORT GFLOP/s | compile time | peak compiler memory |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  printf "%s" "$rows"
  if [ -n "$history" ]; then echo; printf "%s\n" "$history"; fi
} > BENCHMARKS.md
echo "wrote BENCHMARKS.md"
