#!/usr/bin/env bash
# The README's first command: install everything, build xcc, compile the bundled example to a
# static library, link it into a C program and run it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release -p xcc
mkdir -p .work/demo
./target/release/xcc examples/matmul/matmul.mlir -O3 -o .work/demo/libmatmul.a
cc examples/matmul/main.c .work/demo/libmatmul.a -lm -lpthread -o .work/demo/matmul
./.work/demo/matmul
