#!/usr/bin/env bash
# A language model's decode step, xcc against ONNX Runtime in one run on this machine: the Llama
# of scripts/bench-llm/make_model.py (4 layers, hidden 512, grouped heads), written by ONNX
# Runtime GenAI's model builder (fp32 and int4), one token after PAST cached ones. ONNX Runtime
# runs it from Python (scripts/bench-llm/ort_step.py), xcc's library from C
# (scripts/bench-llm/step.c), on the same inputs, one thread each (BENCH_THREADS, default 1).
# Each measurement is the median of BENCH_RUNS steps (default 50, after 5); BENCH_REPEAT times
# in turn (default 3), the table gives the medians of those. Usage: scripts/bench-llm.sh [PAST...]
# (default 32 256 512). Needs scripts/setup.sh's .venv and .venv-genai, and a built xcc.
set -euo pipefail
cd "$(dirname "$0")/.."
pasts=("${@:-32 256 512}")
read -r -a pasts <<< "${pasts[*]}"
threads=${BENCH_THREADS:-1} runs=${BENCH_RUNS:-50} repeat=${BENCH_REPEAT:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
.venv-genai/bin/python scripts/bench-llm/make_model.py "$work" fp32 int4
for p in fp32 int4; do
  target/debug/xcc "$work/$p/model.onnx" --name m -O3 -o "$work/$p/libm.a"
  cp scripts/bench-llm/step.c "$work/$p/step.c"
  cc -O2 "$work/$p/step.c" "$work/$p/libm.a" -lm -lpthread -o "$work/$p/step"
done
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
echo "| weights | past | xcc ms | ONNX Runtime ms | xcc / ONNX Runtime |"
echo "| --- | --- | --- | --- | --- |"
for p in fp32 int4; do
  for past in "${pasts[@]}"; do
    x=() o=()
    for _ in $(seq "$repeat"); do
      o+=("$(.venv/bin/python scripts/bench-llm/ort_step.py "$work/$p/model.onnx" "$past" "$threads" "$runs" "$work")")
      x+=("$(XCC_NUM_THREADS=$threads "$work/$p/step" "$past" "$runs" "$work")")
    done
    xm=$(printf '%s\n' "${x[@]}" | median) om=$(printf '%s\n' "${o[@]}" | median)
    echo "| $p | $past | $xm | $om | $(awk -v a="$xm" -v b="$om" 'BEGIN {printf "%.2f", a / b}') |"
  done
done
