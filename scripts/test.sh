#!/usr/bin/env bash
# The test command from the README: builds xcc, then runs every test (IR unit tests, runtime-c,
# and the end-to-end suites in test-suite/: run, bad-input, round-trip, differential vs mlir-opt-22).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
cargo build -p xcc
cargo test -p xcc-ir -p xcc-runtime-c -p xcc-test-suite
