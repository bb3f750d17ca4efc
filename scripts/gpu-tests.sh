#!/usr/bin/env bash
# The real-GPU tests, in two halves, since the machine with the GPU has no Rust or LLVM (as
# scripts/bench-gpu.sh, whose companion this is):
#   scripts/gpu-tests.sh prepare DIR [MODEL...]   here: builds the programs tests/gpu_models.rs
#       runs where nvidia-smi works, as x86_64 executables linked with the CUDA libraries, each
#       with its input and expected output: the model harness (gpu/model_harness.c.in: a run from
#       host memory, the same on device memory, the refusals) of each MODEL (tiny_cnn and the
#       shared models; default tiny_cnn mlp squeezenet1_1 mobilenet_v2), in f32 and with every
#       GEMM tiled on tensor cores (--gpu-gemm=tiled --tf32); and with tiny_cnn, two models on
#       three threads and streams (gpu/two_models.c) and the failure paths (gpu/out_of_memory.c,
#       wrong_stream.c, used_after_destroy.c, index_out_of_range.c).
#   scripts/gpu-tests.sh run DIR                   on the GPU machine: runs each, compares the
#       outputs (f32: 1e-4 relative plus 1e-5; TF32: 1% of the output's largest magnitude, as
#       tests/gpu_models.rs; by PYTHON, default python3, with numpy), and prints a table (also in
#       DIR/table.md); exit status 1 if any failed.
# VARIANTS (prepare) picks "f32", "tf32" or both (default): a library holds its model's weights,
# and `run`'s carry takes 64 MiB, so resnet18 and the encoder go in folders of their own.
# EMULATE=1 (prepare) builds with --emulate-gpu instead, which runs here: a check of the two
# halves without a GPU. XCC=PATH (prepare) uses that xcc instead of building the release one.
set -euo pipefail
usage="usage: gpu-tests.sh prepare DIR [MODEL...] | run DIR"
mode=${1:?$usage}
dir=${2:?$usage}

if [ "$mode" = prepare ]; then
  cd "$(dirname "$0")/.."
  shift 2
  xcc=${XCC:-target/release/xcc}
  [ -n "${XCC:-}" ] || cargo build --release -q -p xcc
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  emulate=()
  [ "${EMULATE:-0}" = 1 ] && emulate=(--emulate-gpu)
  # The programs' own checks: emulated, only NULL is a stream (gpu/wrong_stream.c).
  defines=()
  [ "${EMULATE:-0}" = 1 ] && defines=(-DXCC_TEST_EMULATED)
  venv_ptxas=$(ls .venv/lib/python*/site-packages/nvidia/*/bin/ptxas 2>/dev/null | head -1 || true)
  export XCC_PTXAS="${XCC_PTXAS:-$venv_ptxas}"
  mkdir -p "$dir/tiny_cnn_model"
  .venv/bin/python examples/tiny_cnn/make_model.py "$dir/tiny_cnn_model" >/dev/null
  : > "$dir/list"
  build() { # NAME ONNX OUT [FLAGS...]: lib NAME.a and its header in OUT
    local name=$1 onnx=$2 out=$3
    shift 3
    mkdir -p "$out"
    "$xcc" "$onnx" --target=nvptx64 --mcpu=sm_90 -O2 --name "$name" ${emulate[@]+"${emulate[@]}"} "$@" -o "$out/lib$name.a"
  }
  link() { # OUT EXE SOURCE LIBS...
    local out=$1 exe=$2 source=$3
    shift 3
    cc -O1 ${defines[@]+"${defines[@]}"} -I "$out" -I test-suite/gpu "$source" "$@" -lm -lpthread -ldl -o "$out/$exe"
  }
  for model in ${@:-tiny_cnn mlp squeezenet1_1 mobilenet_v2}; do
    if [ "$model" = tiny_cnn ]; then
      onnx=$dir/tiny_cnn_model/tiny_cnn.onnx input=$dir/tiny_cnn_model/input.bin
      expected=$dir/tiny_cnn_model/expected.bin
    else
      onnx=../shared/models/$model.onnx input=../shared/models/$model.input.bin
      expected=../shared/models/$model.output.bin
      [ -f "$onnx" ] || { echo "gpu-tests: $onnx is absent"; exit 1; }
    fi
    for variant in ${VARIANTS:-f32 tf32}; do
      out=$dir/$model-$variant
      flags=()
      [ "$variant" = tf32 ] && flags=(--gpu-gemm=tiled --tf32)
      build "$model" "$onnx" "$out" ${flags[@]+"${flags[@]}"}
      up=$(echo "$model" | tr a-z A-Z)
      sed "s/@NAME@/$model/g; s/@UP@/$up/g" test-suite/gpu/model_harness.c.in > "$out/harness.c"
      link "$out" harness "$out/harness.c" "$out/lib$model.a"
      cp "$input" "$out/input.bin"
      cp "$expected" "$out/expected.bin"
      echo "$model-$variant harness $variant" >> "$dir/list"
    done
    [ "$model" = tiny_cnn ] || continue
    out=$dir/programs
    for name in a b m; do build "$name" "$onnx" "$out"; done
    cp "$input" "$out/input.bin"
    link "$out" two_models test-suite/gpu/two_models.c "$out/liba.a" "$out/libb.a"
    for program in out_of_memory wrong_stream used_after_destroy; do
      link "$out" "$program" "test-suite/gpu/$program.c" "$out/libm.a"
      echo "programs $program input.bin" >> "$dir/list"
    done
    echo "programs two_models input.bin" >> "$dir/list"
    .venv/bin/python - "$out/gather.onnx" <<'EOF'
import sys
from onnx import TensorProto, helper
x = [helper.make_tensor_value_info("data", TensorProto.FLOAT, [4, 3]),
     helper.make_tensor_value_info("indices", TensorProto.INT64, [2])]
y = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])]
graph = helper.make_graph([helper.make_node("Gather", ["data", "indices"], ["y"])], "gather", x, y)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
open(sys.argv[1], "wb").write(model.SerializeToString())
EOF
    build g "$out/gather.onnx" "$out"
    link "$out" index_out_of_range test-suite/gpu/index_out_of_range.c "$out/libg.a"
    echo "programs index_out_of_range" >> "$dir/list"
  done
  echo "gpu-tests: $(wc -l < "$dir/list") tests in $dir ($(du -sh "$dir" | cut -f1))"
  exit 0
fi

[ "$mode" = run ] || { echo "$usage"; exit 2; }
cd "$dir"
[ -f list ] || { echo "gpu-tests: $dir has no list: run prepare first"; exit 2; }
python=${PYTHON:-python3}
failed=0
printf '| test | result |\n| --- | --- |\n' > table.md
while read -r folder what arg; do
  if [ "$what" = harness ]; then
    name=$folder
    if result=$(cd "$folder" && ./harness input.bin output.bin 2>&1); then
      result=$("$python" - "$folder" "$arg" 2>&1 <<'EOF'
import sys
import numpy as np
folder, variant = sys.argv[1], sys.argv[2]
got = np.fromfile(f"{folder}/output.bin", dtype=np.float32).astype(np.float64)
want = np.fromfile(f"{folder}/expected.bin", dtype=np.float32).astype(np.float64)
if got.shape != want.shape:
    print(f"FAIL: {got.size} values, expected {want.size}")
elif variant == "tf32":
    error = np.max(np.abs(got - want)) / np.max(np.abs(want))
    print(("ok" if error <= 1e-2 else "FAIL") + f": {error:.2e} of the output's largest magnitude (allowed 1e-2)")
else:
    worst = np.max(np.abs(got - want) / (1e-5 + 1e-4 * np.abs(want)))
    print(("ok" if worst <= 1 and not np.isnan(worst) else "FAIL") + f": worst error {worst:.2f} of the tolerance")
EOF
) || result="FAIL: the comparison did not run: $(echo "$result" | tail -1)"
    else
      result="FAIL: $(echo "$result" | tail -1)"
    fi
  else
    name=$what
    if result=$(cd "$folder" && ./"$what" $arg 2>&1); then
      result=$(echo "$result" | tail -1)
    else
      result="FAIL: $(echo "$result" | tail -1)"
    fi
  fi
  case $result in ok*) ;; *) failed=1 ;; esac
  printf '| %s | %s |\n' "$name" "$result" | tee -a table.md
done < list
exit $failed
