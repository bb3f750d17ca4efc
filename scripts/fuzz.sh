#!/usr/bin/env bash
# Runs xcc's fuzz targets (fuzz/: cargo-fuzz and libFuzzer) from seed corpora:
#  - mlir_text:  every .mlir file of the test suite;
#  - onnx_model: fuzz/seeds/onnx_seeds.py's small models, plus the ONNX node-test models when the
#                test suite has generated them (target/xcc-tests/onnx-node/data).
# Usage: scripts/fuzz.sh [--runs N | --time SECONDS] [--seed N] [TARGET...]
# (default: --time 60, a random seed, both targets)
# Each target first replays its regression inputs (fuzz/regressions/TARGET/: what earlier
# campaigns found, kept once fixed), and onnx_model the edge sweep of the node-test models
# (fuzz/seeds/edge_sweep.py, when the test suite has generated them). A crash, a timeout
# (60 s for one input: the slowest regression input takes 1.5 s, so a busy machine does not fail
# it) or an allocation over 2 GiB stops a target with a reproducer in fuzz/artifacts/TARGET/; the script then exits
# non-zero. The run counts go to standard output ("fuzz: TARGET: N runs, ok").
set -euo pipefail
cd "$(dirname "$0")/.."
limit=(-max_total_time=60)
seed_flag=()
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) limit=(-runs="$2"); shift 2 ;;
    --time) limit=(-max_total_time="$2"); shift 2 ;;
    --seed) seed_flag=(-seed="$2"); shift 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -eq 0 ] && targets=(mlir_text onnx_model)

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install -q cargo-fuzz --locked
fi
python=python3
# The node-test models the test suite generated, under its target directory as it finds it.
node_data=${CARGO_TARGET_DIR:-target}/xcc-tests/onnx-node/data
[ -x .venv/bin/python ] && python=.venv/bin/python

seed() {
  local target=$1 dir=fuzz/corpus/$1
  mkdir -p "$dir"
  case "$target" in
    mlir_text)
      find test-suite -name '*.mlir' -size -64k -print0 | while IFS= read -r -d '' f; do
        cp "$f" "$dir/seed-$(sha1sum < "$f" | cut -c1-16)"
      done ;;
    onnx_model)
      "$python" fuzz/seeds/onnx_seeds.py "$dir"
      if [ -d "$node_data" ]; then
        find "$node_data" -name model.onnx -size -16k -print0 | while IFS= read -r -d '' f; do
          cp "$f" "$dir/node-$(sha1sum < "$f" | cut -c1-16)"
        done
      fi ;;
  esac
}

# Stable Rust: no sanitizer instrumentation (safe Rust's memory errors are panics already), but
# debug assertions and overflow checks on (-a), optimized (-O).
flags=(-O -a --sanitizer=none)
cd fuzz
cargo fuzz build "${flags[@]}" >&2
cd ..
host=$(rustc -vV | sed -n 's/^host: //p')
# cargo fuzz builds under CARGO_TARGET_DIR when it is set (relative to fuzz/, where it runs).
target_dir=${CARGO_TARGET_DIR:-target}
case "$target_dir" in /*) ;; *) target_dir=fuzz/$target_dir ;; esac
# An absolute path: the sweep runs from fuzz/, the rest from the root.
bin=$(cd "$target_dir/$host/release" && pwd)
per_input=60
status=0
# What a failed run printed: the panic or libFuzzer's verdict, or else the log's last lines (a
# failure to start the binary, say). -a: a panic message quoting the input may hold a NUL byte,
# and grep would then only say "binary file matches", on standard error.
failure_lines() {
  local verdict="panicked at|^thread|ERROR: libFuzzer|SUMMARY"
  if grep -a -q -E "$verdict" "$1"; then
    grep -a -E "$verdict" -A2 "$1" | head -20
  else
    tail -n 15 "$1"
  fi | cat -v
}
for t in "${targets[@]}"; do
  # Every input a campaign found to crash, once fixed, replays first (fuzz/regressions/TARGET/).
  if compgen -G "fuzz/regressions/$t/*" >/dev/null; then
    log=$(mktemp)
    if "$bin/$t" -timeout=$per_input -rss_limit_mb=2048 fuzz/regressions/"$t"/* > "$log" 2>&1; then
      echo "fuzz: $t: $(ls fuzz/regressions/"$t" | wc -l) regression inputs, ok"
    else
      echo "fuzz: $t: a regression input fails again (run $bin/$t on fuzz/regressions/$t/*):"
      failure_lines "$log"
      status=1
    fi
    rm -f "$log"
  fi
  # The edge sweep (fuzz/seeds/edge_sweep.py): each node-test model's attributes and input dims
  # at the edges of their arithmetic, replayed once through the target (-runs=0).
  if [ "$t" = onnx_model ] && [ -d "$node_data" ]; then
    rm -rf fuzz/sweep/onnx_model
    mkdir -p "fuzz/artifacts/$t"
    swept=$("$python" fuzz/seeds/edge_sweep.py "$node_data" fuzz/sweep/onnx_model)
    log=$(mktemp)
    if (cd fuzz && "$bin/$t" -runs=0 -timeout=$per_input -rss_limit_mb=2048 -malloc_limit_mb=2048 \
          -artifact_prefix="artifacts/$t/" sweep/onnx_model) > "$log" 2>&1; then
      echo "fuzz: $t: $swept models of the edge sweep, ok"
    else
      echo "fuzz: $t: the edge sweep FAILED (reproducer in fuzz/artifacts/$t/):"
      failure_lines "$log"
      status=1
    fi
    rm -f "$log"
  elif [ "$t" = onnx_model ]; then
    echo "fuzz: $t: edge sweep skipped: no node-test models at $node_data (the test suite writes them)"
  fi
  seed "$t"
  log=$(mktemp)
  set +e
  (cd fuzz && cargo fuzz run "${flags[@]}" "$t" "corpus/$t" -- \
     "${limit[@]}" "${seed_flag[@]}" -timeout=$per_input -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=65536 -print_final_stats=1) > "$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
  if [ $rc -eq 0 ]; then
    echo "fuzz: $t: ${runs:-?} runs, ok"
  else
    echo "fuzz: $t: FAILED after ${runs:-?} runs (reproducer in fuzz/artifacts/$t/):"
    failure_lines "$log"
    status=1
  fi
  rm -f "$log"
done
exit $status
