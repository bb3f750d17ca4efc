#!/usr/bin/env bash
# Before/after: the shared models compiled by two xcc binaries (A and B), each run with the same C
# driver as scripts/bench.sh, A and B in turn, ROUNDS times; prints the medians and B/A per model.
# Usage: scripts/bench-ab.sh XCC_A XCC_B [--mcpu=CPU]   (ROUNDS=5, BUDGET_MS=1500 by default;
#   MODELS_DIR and MODELS="a b" pick other models, e.g. scripts/bench-kernels.sh's in .work/bench-kernels)
# To build the binary of an earlier commit:
#   git worktree add /tmp/xcc-old COMMIT && cargo build --release -p xcc --manifest-path /tmp/xcc-old/Cargo.toml
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: scripts/bench-ab.sh XCC_A XCC_B [--mcpu=CPU]"; exit 2; }
a=$(realpath "$1"); b=$(realpath "$2"); mcpu="${3:---mcpu=native}"
models="${MODELS_DIR:-../shared/models}"
[ -d "$models" ] || { echo "bench-ab: $models is absent"; exit 1; }
rounds="${ROUNDS:-5}"; budget="${BUDGET_MS:-1500}"
work=.work/bench-ab
mkdir -p "$work/a" "$work/b"
echo "| model | A ms (median) | B ms (median) | B / A | A runs | B runs |"
echo "| --- | --- | --- | --- | --- | --- |"
for m in ${MODELS:-mlp squeezenet1_1 mobilenet_v2 resnet18 encoder}; do
  up=$(echo "$m" | tr a-z A-Z)
  for side in a b; do
    xcc=$a; [ "$side" = b ] && xcc=$b
    "$xcc" "$models/$m.onnx" -O3 "$mcpu" -o "$work/$side/lib$m.a"
    sed "s/@NAME@/$m/g; s/@UP@/$up/g" bench/driver.c.in > "$work/$side/bench_$m.c"
    cc -O2 -I "$work/$side" "$work/$side/bench_$m.c" "$work/$side/lib$m.a" -lm -lpthread -o "$work/$side/bench_$m"
  done
  ta=(); tb=()
  for _ in $(seq "$rounds"); do
    ta+=("$("$work/a/bench_$m" "$models/$m.input.bin" "$budget" | cut -d' ' -f1)")
    tb+=("$("$work/b/bench_$m" "$models/$m.input.bin" "$budget" | cut -d' ' -f1)")
  done
  python3 -c "
import statistics as st
a,b=[${ta[*]/%/,}],[${tb[*]/%/,}]
x,y=st.median(a),st.median(b)
print(f'| $m | {x:.3f} | {y:.3f} | {y/x:.2f} | {\" \".join(f\"{v:.3f}\" for v in a)} | {\" \".join(f\"{v:.3f}\" for v in b)} |')"
done
