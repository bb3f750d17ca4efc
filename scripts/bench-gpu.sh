#!/usr/bin/env bash
# The GPU benchmark, in two halves, since the machine with the GPU has no xcc:
#   scripts/bench-gpu.sh prepare DIR [MODEL...]   here: compiles each shared model for nvptx64
#       (sm_90, -O3) into DIR/MODEL/ (library, header, benchmark program source, input and
#       expected output) and copies bench/torch_gpu.py and make_models.py beside them;
#   scripts/bench-gpu.sh run DIR                   on the GPU machine: builds each benchmark program,
#       checks NAME_run against the expected output, times NAME_run and NAME_run_device, times
#       PyTorch eager on CUDA for the same model, and prints a table (ms per inference, medians).
#   scripts/bench-gpu.sh profile DIR               on the GPU machine: each model's kernels by time
#       (runtime-c's XCC_GPU_PROFILE: every launch waited for and timed).
# BATCH=N (prepare) writes the models at batch N instead of 1 (bench/rebatch.py); GPU_GEMM=
# auto|tiled|direct (prepare) is xcc's --gpu-gemm (matmuls and convolutions tiled through shared
# memory or a thread per output; default auto), shown in the table's gemm column: prepare two
# folders to compare. TF32=1 (prepare) adds --tf32 (the tiled GEMMs on tensor cores): the check
# then allows 1% of the output's scale, PyTorch runs with TF32 on, and the gemm column says +tf32.
# The venv's ptxas (when there is one) makes each library carry its cubin.
# BUDGET_MS (default 1500) is the time one measurement may take.
set -euo pipefail
mode=${1:?usage: bench-gpu.sh prepare DIR [MODEL...] | run DIR}
dir=${2:?usage: bench-gpu.sh prepare DIR [MODEL...] | run DIR}
budget="${BUDGET_MS:-1500}"
if [ "$mode" = prepare ]; then
  cd "$(dirname "$0")/.."
  shift 2
  models=../shared/models
  [ -d "$models" ] || { echo "bench-gpu: ../shared/models is absent"; exit 1; }
  mkdir -p "$dir"
  cp bench/torch_gpu.py "$models/make_models.py" "$dir/"
  batch="${BATCH:-1}"
  gemm="${GPU_GEMM:-auto}"
  tf32=()
  [ "${TF32:-0}" = 1 ] && tf32=(--tf32)
  venv_ptxas=$(ls .venv/lib/python*/site-packages/nvidia/*/bin/ptxas 2>/dev/null | head -1 || true)
  export XCC_PTXAS="${XCC_PTXAS:-$venv_ptxas}"
  for m in "${@:-mlp squeezenet1_1 mobilenet_v2 resnet18 encoder}"; do
    for one in $m; do
      up=$(echo "$one" | tr a-z A-Z)
      mkdir -p "$dir/$one"
      echo "$batch" > "$dir/$one/batch"
      echo "$gemm" > "$dir/$one/gemm"
      rm -f "$dir/$one/tf32"
      [ ${#tf32[@]} = 0 ] || touch "$dir/$one/tf32"
      sed "s/@NAME@/$one/g; s/@UP@/$up/g" bench/gpu_driver.c.in > "$dir/$one/bench.c"
      if [ "$batch" = 1 ]; then
        ./target/release/xcc "$models/$one.onnx" --target=nvptx64 --mcpu=sm_90 --gpu-gemm="$gemm" ${tf32[@]+"${tf32[@]}"} -O3 -o "$dir/$one/lib$one.a"
        cp "$models/$one.input.bin" "$dir/$one/input.bin"
        cp "$models/$one.output.bin" "$dir/$one/expected.bin"
      else
        # The batch-N copy of the model, its expected output for the `lcg` input (no input file).
        .venv/bin/python bench/rebatch.py "$models/$one.onnx" "$batch" "$dir/$one/model" >/dev/null
        ./target/release/xcc "$dir/$one/model/$one.onnx" --target=nvptx64 --mcpu=sm_90 --gpu-gemm="$gemm" ${tf32[@]+"${tf32[@]}"} -O3 -o "$dir/$one/lib$one.a"
        mv "$dir/$one/model/$one.output.bin" "$dir/$one/expected.bin"
        rm -r "$dir/$one/model"
      fi
    done
  done
  exit 0
fi
if [ "$mode" = profile ]; then
  # Each kernel's time (launch and wait included) from runtime-c's XCC_GPU_PROFILE, per model.
  for m in mlp squeezenet1_1 mobilenet_v2 resnet18 encoder; do
    [ -d "$dir/$m" ] || continue
    [ -x "$dir/$m/bench" ] || cc -O2 -I "$dir/$m" "$dir/$m/bench.c" "$dir/$m/lib$m.a" -lm -lpthread -ldl -o "$dir/$m/bench"
    input="$dir/$m/input.bin"; [ -f "$input" ] || input=lcg
    XCC_GPU_PROFILE=1 "$dir/$m/bench" "$input" "$dir/$m/expected.bin" 300 2>&1 >/dev/null | sed -n 1,14p
  done
  exit 0
fi
[ "$mode" = run ] || { echo "bench-gpu: unknown mode $mode"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
printf '| model | batch | gemm | xcc run ms (host memory) | xcc run_device ms | without graphs | PyTorch eager ms | xcc / PyTorch | kernels | device MiB | check |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
for m in mlp squeezenet1_1 mobilenet_v2 resnet18 encoder; do
  [ -d "$dir/$m" ] || continue
  tf32_flag=(); torch_tf32=""
  [ -f "$dir/$m/tf32" ] && { tf32_flag=(-DXCC_BENCH_TF32); torch_tf32=tf32; }
  cc -O2 ${tf32_flag[@]+"${tf32_flag[@]}"} -I "$dir/$m" "$dir/$m/bench.c" "$dir/$m/lib$m.a" -lm -lpthread -ldl -o "$dir/$m/bench"
  batch=$(cat "$dir/$m/batch" 2>/dev/null || echo 1)
  gemm=$(cat "$dir/$m/gemm" 2>/dev/null || echo auto)
  [ -z "$torch_tf32" ] || gemm="$gemm+tf32"
  input="$dir/$m/input.bin"; [ -f "$input" ] || input=lcg
  line=$("$dir/$m/bench" "$input" "$dir/$m/expected.bin" "$budget" | tail -1) || true
  read -r status worst run dev _ mib <<< "$line"
  # The same without CUDA graphs (every launch on its own).
  plain=$(XCC_GPU_GRAPHS=0 "$dir/$m/bench" "$input" "$dir/$m/expected.bin" "$budget" | tail -1 | awk '$1 == "ok" {print $4}')
  torch=$(python3 "$dir/torch_gpu.py" "$dir/make_models.py" "$m" "$batch" "$budget" $torch_tf32 2>/dev/null | tail -1) || torch=nan
  kernels=$(grep -c '^\.visible \.entry\|^\.entry' <(strings "$dir/$m/lib$m.a") || true)
  ratio=$(python3 -c "print(f'{$dev/$torch:.2f}')" 2>/dev/null || echo "?")
  if [ "$status" = ok ]; then check="ok (worst $worst of tolerance)"; else check="FAILED: $line"; run=-; dev=-; fi
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$m" "$batch" "$gemm" "$run" "$dev" "${plain:-?}" "$torch" "$ratio" "$kernels" "${mib:-?}" "$check"
done
