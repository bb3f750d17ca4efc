#!/usr/bin/env bash
# The test command from the README: builds xcc, then runs every test (IR unit tests, runtime-c,
# and the end-to-end suites in test-suite/: run, bad-input, round-trip, differential vs
# mlir-opt-22, GPU/PTX, shared models vs ONNX Runtime, ONNX bad input and fusion, node tests),
# and ends with one line totalling every test binary's results.
#
# The breadth suites (the ONNX node tests on the CPU and in the GPU emulator, the gallery, the
# Core ML models, the GPU models, the language models, the shared models under qemu and the
# sanitizers) run a fixed sample of their cases
# here (XCC_TEST_BREADTH=sample), and the fuzz runs are left out; scripts/test-full.sh runs the
# rest, and CI runs both. `XCC_TEST_BREADTH=all bash scripts/test.sh` runs everything at once.
# Arguments, if any, replace `--workspace` as what cargo test runs (scripts/test-full.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# Idempotent (about a second once everything is there), so the command works on a new machine too.
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
export XCC_TEST_BREADTH="${XCC_TEST_BREADTH:-sample}"
what=("$@")
[ ${#what[@]} -eq 0 ] && what=(--workspace)
start=$(date +%s)
cargo build -p xcc
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
cargo test "${what[@]}" --no-fail-fast 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
passed=$(grep -Eo "test result: [a-zA-Z]+\. [0-9]+ passed" "$log" | awk '{s+=$4} END {print s+0}')
failed=$(grep -Eo "[0-9]+ failed;" "$log" | awk '{s+=$1} END {print s+0}')
ignored=$(grep -Eo "[0-9]+ ignored;" "$log" | awk '{s+=$1} END {print s+0}')
if [ "$status" -ne 0 ]; then
  # Failures again at the end, where a log's tail (all that CI keeps of it) shows them: each test
  # binary's "failures:" section, up to its result line.
  echo
  echo "what failed:"
  awk '/^failures:$/ {show=1} show {print} /^test result:/ {show=0}' "$log" | head -200
fi
echo
echo "tests: $passed passed, $failed failed, $ignored skipped (XCC_TEST_BREADTH=$XCC_TEST_BREADTH, $(( $(date +%s) - start )) s)"
exit "$status"
