#!/usr/bin/env bash
# The README's first command: install everything, build xcc, then
#  1. compile a small ONNX CNN (examples/tiny_cnn) into libtiny_cnn.a + tiny_cnn.h, link it into a C
#     program, run it and compare with ONNX Runtime;
#  2. compile an MLIR matrix multiply (examples/matmul) into a library and call it from C.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release -p xcc
out=.work/demo
mkdir -p "$out"
.venv/bin/python examples/tiny_cnn/make_model.py "$out"
./target/release/xcc "$out/tiny_cnn.onnx" -O3 -o "$out/libtiny_cnn.a"
cc -I "$out" examples/tiny_cnn/main.c "$out/libtiny_cnn.a" -lm -lpthread -o "$out/tiny_cnn"
"./$out/tiny_cnn" "$out/input.bin" "$out/expected.bin"
./target/release/xcc examples/matmul/matmul.mlir -O3 -o "$out/libmatmul.a"
cc examples/matmul/main.c "$out/libmatmul.a" -lm -lpthread -o "$out/matmul"
"./$out/matmul"
