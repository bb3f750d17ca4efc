#!/usr/bin/env bash
# Benchmarks every shared model compiled by xcc against ONNX Runtime, in one run on this machine,
# at one thread and at all cores, with xcc's default build (no --mcpu: the portable library) and
# with --mcpu=native, and writes the table to BENCHMARKS.md's section "Shared models on a CPU".
# Usage: scripts/bench.sh
# Needs ../shared/models and scripts/setup.sh. BENCH_REPEAT=N (default 3) measures each
# configuration N times, all of a model's configurations in turn, and reports the medians;
# BUDGET_MS (default 2000) is the time one measurement may take.
# The rest of BENCHMARKS.md (the other scripts' sections) is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
models=../shared/models
[ -d "$models" ] || { echo "bench: ../shared/models is absent"; exit 1; }
cargo build --release -p xcc >/dev/null
work=.work/bench
mkdir -p "$work/default" "$work/native"
py=.venv/bin/python
budget="${BUDGET_MS:-2000}"
repeat="${BENCH_REPEAT:-3}"
cores=$(nproc)
rows=""
for m in mlp squeezenet1_1 mobilenet_v2 resnet18 encoder; do
  up=$(echo "$m" | tr a-z A-Z)
  ctime=""
  for build in default native; do
    flags=(-O3); [ "$build" = native ] && flags+=(--mcpu=native)
    # Compile time (s) and peak compiler memory (KiB) from GNU time.
    read -r t mem < <( { /usr/bin/time -f "%e %M" ./target/release/xcc "$models/$m.onnx" "${flags[@]}" -o "$work/$build/lib$m.a" 2>&1 >/dev/null; } | tail -1)
    [ "$build" = default ] && { ctime=$t; cmem=$mem; }
    sed "s/@NAME@/$m/g; s/@UP@/$up/g" bench/driver.c.in > "$work/$build/bench_$m.c"
    cc -O2 -I "$work/$build" "$work/$build/bench_$m.c" "$work/$build/lib$m.a" -lm -lpthread -o "$work/$build/bench_$m"
  done
  for threads in 1 "$cores"; do
    ds=""; ns=""; os=""
    for _ in $(seq "$repeat"); do
      # "$(...)" waits for each process to exit: with `< <(...)` the next measurement began while
      # the last one's process (ONNX Runtime's teardown) still held a core, which slowed the
      # two-thread runs that followed it.
      read -r d _ loops <<< "$(XCC_NUM_THREADS=$threads "$work/default/bench_$m" "$models/$m.input.bin" "$budget")"
      read -r n _ <<< "$(XCC_NUM_THREADS=$threads "$work/native/bench_$m" "$models/$m.input.bin" "$budget")"
      read -r o _ <<< "$("$py" bench/ort.py "$models/$m.onnx" "$models/$m.input.bin" "$budget" "$threads")"
      ds+="$d,"; ns+="$n,"; os+="$o,"
    done
    macs=$("$py" -c "import json;print(json.load(open('$models/manifest.json'))['$m']['macs'])")
    row=$("$py" -c "
import statistics as st
ds,ns,os,macs=[$ds],[$ns],[$os],$macs
d,n,o=st.median(ds),st.median(ns),st.median(os)
print(f'| $m | $threads | {d:.3f} | {n:.3f} | {o:.3f} | **{d/o:.2f}** | {n/o:.2f} | {2*macs/d/1e6:.1f} | {2*macs/o/1e6:.1f} | $loops | $ctime s | {$cmem/1024:.0f} MiB |')")
    echo "$row"
    rows+="$row"$'\n'
  done
done
cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
section=$(mktemp)
{
  echo "## Shared models on a CPU (\`scripts/bench.sh\`)"
  echo
  echo "Produced by \`bash scripts/bench.sh\` on $(date -u +%Y-%m-%d), $cpu, $cores cores."
  echo "Batch 1. A measurement times xcc's compiled model (C driver: 3 warm-up runs, then the median of as many"
  echo "runs as fit in ${budget} ms; threads set by XCC_NUM_THREADS) and ONNX Runtime $("$py" -c 'import onnxruntime;print(onnxruntime.__version__)')"
  echo "(intra-op threads = the same count, same input, same budget). Each configuration is measured $repeat times,"
  echo "a model's configurations in turn, and the table gives the medians. xcc default = \`xcc -O3\` (the portable"
  echo "library a user gets without flags); native = \`-O3 --mcpu=native\`. Ratio = xcc / ORT (lower is better; the"
  echo "target is <= 0.9 with the default build). GFLOP/s = 2 x MACs (manifest) / time, for the default build."
  echo "Parallel loops = how many parallel loops one run of the default build starts, each ending in a barrier"
  echo "(the driver counts them in one extra run through \`xcc_run_options.parallel_for\`). Compile time and peak"
  echo "compiler memory are the default build's."
  echo
  echo "| model | threads | xcc default ms | xcc native ms | ORT ms | default / ORT | native / ORT | xcc GFLOP/s | ORT GFLOP/s | parallel loops | compile time | peak compiler memory |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  printf "%s" "$rows"
  echo
} > "$section"
# The section replaces its previous run's in place; the other scripts' sections stay.
[ -f BENCHMARKS.md ] || printf "# Benchmarks\n\n" > BENCHMARKS.md
if grep -q '^## Shared models on a CPU' BENCHMARKS.md; then
  awk -v f="$section" '/^## Shared models on a CPU/ { while ((getline l < f) > 0) print l; skip = 1; next }
    skip && /^## / { skip = 0 } !skip' BENCHMARKS.md > BENCHMARKS.md.new
else
  cat BENCHMARKS.md "$section" > BENCHMARKS.md.new
fi
mv BENCHMARKS.md.new BENCHMARKS.md
rm -f "$section"
echo "wrote BENCHMARKS.md"
