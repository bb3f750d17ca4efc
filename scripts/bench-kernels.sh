#!/usr/bin/env bash
# Kernel and compile-time measurements beside scripts/bench.sh, printed as Markdown tables:
#  1. one convolution alone (resnet18's 3x3, 256 -> 256 channels, 14x14), xcc's default build
#     against ONNX Runtime, one thread, in GFLOP/s (2 x MACs / time);
#  2. an embedding lookup (Gather of 4096 run-time ids from a 4096 x 256 table, every index
#     checked), xcc against ONNX Runtime, one thread, in GB/s of output written;
#  3. compile time (`xcc -O2`, the default build) of generated graphs: chains of N Relus and
#     DenseNet-style chains of N/10 (1x1 conv, Relu, Concat) blocks, to show how it grows with N.
# Usage: scripts/bench-kernels.sh   (needs scripts/setup.sh's venv; BUDGET_MS, default 2000)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p xcc >/dev/null
py=.venv/bin/python
work=.work/bench-kernels
mkdir -p "$work"
budget="${BUDGET_MS:-2000}"
"$py" - "$work" <<'EOF'
import sys, numpy as np, onnx
from onnx import helper, TensorProto
work = sys.argv[1]
rng = np.random.default_rng(0)
w = rng.standard_normal((256, 256, 3, 3)).astype(np.float32) * 0.05
conv = helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])
g = helper.make_graph([conv], "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 256, 14, 14])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 256, 14, 14])],
                      [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.flatten())])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), f"{work}/conv.onnx")
rng.standard_normal((1, 256, 14, 14)).astype(np.float32).tofile(f"{work}/conv.input.bin")
# The ids arrive as floats (the bench driver feeds float inputs) and are cast once: 4096 casts
# against 1M gathered elements.
table = rng.standard_normal((4096, 256)).astype(np.float32)
nodes = [helper.make_node("Cast", ["ids"], ["i"], to=TensorProto.INT64), helper.make_node("Gather", ["table", "i"], ["y"])]
g = helper.make_graph(nodes, "embedding", [helper.make_tensor_value_info("ids", TensorProto.FLOAT, [1, 4096])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4096, 256])],
                      [helper.make_tensor("table", TensorProto.FLOAT, table.shape, table.flatten())])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), f"{work}/embedding.onnx")
rng.integers(-4096, 4096, (1, 4096)).astype(np.float32).tofile(f"{work}/embedding.input.bin")
for n in (500, 1000, 2000):
    nodes, prev = [], "x"
    for i in range(n):
        nodes.append(helper.make_node("Relu", [prev], [f"r{i}"]))
        prev = f"r{i}"
    g = helper.make_graph(nodes, "relus", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64, 56, 56])],
                          [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 64, 56, 56])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), f"{work}/relu{n}.onnx")
    nodes, inits, prev = [], [], "x"
    for i in range(n // 10):
        wi = rng.standard_normal((8, 8 + 8 * i, 1, 1)).astype(np.float32)
        inits.append(helper.make_tensor(f"w{i}", TensorProto.FLOAT, wi.shape, wi.flatten()))
        nodes += [helper.make_node("Conv", [prev, f"w{i}"], [f"c{i}"]), helper.make_node("Relu", [f"c{i}"], [f"a{i}"]),
                  helper.make_node("Concat", [prev, f"a{i}"], [f"cat{i}"], axis=1)]
        prev = f"cat{i}"
    g = helper.make_graph(nodes, "dense", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 16, 16])],
                          [helper.make_tensor_value_info(prev, TensorProto.FLOAT, None)], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), f"{work}/dense{n}.onnx")
EOF
echo "| kernel | xcc ms | ORT ms | xcc | ORT |"
echo "| --- | --- | --- | --- | --- |"
# bench_one NAME LABEL WORK UNIT: xcc and ORT medians of three runs each, one thread; WORK / ms in UNIT.
bench_one() {
  local name=$1 label=$2 amount=$3 unit=$4 up xs="" os="" x o
  up=$(echo "$name" | tr a-z A-Z)
  ./target/release/xcc "$work/$name.onnx" -O3 --name "$name" -o "$work/lib$name.a"
  sed "s/@NAME@/$name/g; s/@UP@/$up/g" bench/driver.c.in > "$work/bench_$name.c"
  cc -O2 -I "$work" "$work/bench_$name.c" "$work/lib$name.a" -lm -lpthread -o "$work/bench_$name"
  for _ in 1 2 3; do
    read -r x _ <<< "$(XCC_NUM_THREADS=1 "$work/bench_$name" "$work/$name.input.bin" "$budget")"
    read -r o _ <<< "$("$py" bench/ort.py "$work/$name.onnx" "$work/$name.input.bin" "$budget" 1)"
    xs+="$x,"; os+="$o,"
  done
  "$py" -c "
import statistics as st
x, o = st.median([$xs]), st.median([$os])
print(f'| $label | {x:.3f} | {o:.3f} | {$amount/x/1e6:.1f} $unit | {$amount/o/1e6:.1f} $unit |')"
}
bench_one conv "conv 3x3 256->256 14x14, 1 thread" $((2 * 256 * 256 * 9 * 14 * 14)) GFLOP/s
bench_one embedding "embedding Gather 4096 ids x 256, 1 thread" $((4096 * 256 * 4)) GB/s
echo
echo "| graph | nodes | compile s (xcc -O2) | peak memory |"
echo "| --- | --- | --- | --- |"
for kind in relu dense; do
  for n in 500 1000 2000; do
    nodes=$n; [ "$kind" = dense ] && nodes=$((n / 10 * 3))
    read -r t mem < <( { /usr/bin/time -f "%e %M" ./target/release/xcc "$work/$kind$n.onnx" -O2 -o "$work/$kind$n.a" 2>&1 >/dev/null; } | tail -1)
    echo "| $kind chain | $nodes | $t | $((mem / 1024)) MiB |"
  done
done
