#!/usr/bin/env bash
# A language model's prefill and decode, xcc against ONNX Runtime (and llama.cpp where its venv
# exists) in one run on this machine: the Llama of scripts/bench-llm/make_model.py (BENCH_SIZE:
# `issue`, 155.7M parameters, the default; or `small`) written by ONNX Runtime GenAI's model
# builder, offline, at each of BENCH_PRECISIONS (default "int4 int4_fp int8 fp32": 4-bit MatMulNBits
# blocks of 32 with accuracy_level 4 and 1, 8-bit ones at 4, and float32). ONNX Runtime runs the model from Python
# (scripts/bench-llm/ort_step.py), xcc's library from C (scripts/bench-llm/step.c), on the same
# inputs, at 1 thread and at all cores: prefill of 128 and 512 tokens (past 0), and a decode step
# after 128 and 1024 cached tokens, as tokens per second. A decode step's caches are each one
# buffer of the model's context length given as both past and present, appended in place, as ONNX
# Runtime GenAI runs these models (past_present_share_buffer); a prompt's past is empty. Each number is the median of
# BENCH_REPEAT (default 3) measurements taken in turn, each the median of its runs (decode 20,
# prefill 3, after 2 warm-up runs). Also: xcc's compile time and library size against the ONNX
# files, the decode step's weight bytes per second against a measured copy bandwidth, and how
# far the runtimes' logits of one 128-token prompt agree (scripts/bench-llm/agreement.py).
# llama.cpp (llama-cpp-python, scripts/bench-llm/llama_step.py) runs the same weights as GGUF
# (Q4_0 and Q8_0, scripts/bench-llm/make_gguf.py) where .venv-llama exists: BENCH_LLAMA=1 builds
# it first. Usage: scripts/bench-llm.sh. Needs scripts/setup.sh's .venv and .venv-genai.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${BENCH_SIZE:-issue} repeat=${BENCH_REPEAT:-3}
read -r -a precisions <<< "${BENCH_PRECISIONS:-int4 int4_fp int8 fp32}"
case $size in
  issue) kv_heads=4 head=64 vocab=32000 hidden=1024 ;;
  small) kv_heads=2 head=64 vocab=2048 hidden=512 ;;
  *) echo "bench-llm: BENCH_SIZE is issue or small"; exit 1 ;;
esac
cores=$(nproc)
work=${BENCH_WORK:-.work/bench-llm/$size}
mkdir -p "$work"
cargo build --release -p xcc >/dev/null
.venv-genai/bin/python scripts/bench-llm/make_model.py "$work" "$size" "${precisions[@]}"
# llama.cpp: llama-cpp-python built from source for this CPU, and llama.cpp's gguf-py from the
# same source for the GGUF files (BENCH_LLAMA=1 builds .venv-llama once; minutes on 2 cores).
llama=.venv-llama/bin/python gguf_py=.venv-llama/src/llama_cpp_python-0.3.36/vendor/llama.cpp/gguf-py
if [ "${BENCH_LLAMA:-0}" = 1 ] && [ ! -x "$llama" ]; then
  python3 -m venv .venv-llama
  CMAKE_ARGS="-DGGML_NATIVE=ON" .venv-llama/bin/pip install -q llama-cpp-python==0.3.36 numpy
  .venv-llama/bin/pip download -q --no-deps --no-binary :all: llama-cpp-python==0.3.36 -d .venv-llama/src
  tar xzf .venv-llama/src/llama_cpp_python-0.3.36.tar.gz -C .venv-llama/src llama_cpp_python-0.3.36/vendor/llama.cpp/gguf-py
fi
formats=()
if [ -x "$llama" ] && [ -d "$gguf_py" ]; then
  formats=(Q4_0 Q8_0)
  [ -f "$work/gguf/Q8_0.gguf" ] || PYTHONPATH=$gguf_py .venv-genai/bin/python scripts/bench-llm/make_gguf.py "$work" "${formats[@]}"
fi
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
mib() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1048576}'; }
# The copy bandwidth of one core and of all, for the decode step's weight bytes per second.
cc -O2 scripts/bench-llm/copy_bandwidth.c -lpthread -o "$work/copy_bandwidth"
read -r copy1 copyn <<< "$( { "$work/copy_bandwidth" 1; "$work/copy_bandwidth" "$cores"; } | tr '\n' ' ')"
# One core's f32 FMA peak, and the matmuls' multiply-adds per token (attention's not counted),
# for a prompt's GFLOP/s.
cc -O2 -march=native -ffp-contract=fast bench/fma_peak.c -o "$work/fma_peak"
peak=$("$work/fma_peak")
macs=$(.venv/bin/python -c 'import json, sys
c = json.load(open(sys.argv[1]))
h, kv = c["hidden_size"], c["num_key_value_heads"] * c["head_dim"]
print(c["num_hidden_layers"] * (2 * h * h + 2 * h * kv + 3 * h * c["intermediate_size"]) + h * c["vocab_size"])' "$work/hf/config.json")
gflops() { awk -v s="$1" -v ms="$2" -v m="$macs" -v p="$peak" 'BEGIN {g = 2 * m * s / ms / 1e6; printf "%.1f (%.0f%%)", g, 100 * g / p}'; }
configs=("128 0" "512 0" "1 128" "1 1024")
sizes="" rows="" agree="" arithmetic=""
# Tokens per second of SEQ tokens in MS milliseconds.
rate() { awk -v s="$1" -v ms="$2" 'BEGIN {printf "%.0f", s * 1000 / ms}'; }
for p in "${precisions[@]}"; do
  d=$work/$p
  read -r ctime cmem < <( { /usr/bin/time -f "%e %M" ./target/release/xcc "$d/model.onnx" --name m -O3 -o "$d/libm.a" 2>&1 >/dev/null; } | tail -1)
  onnx_bytes=$(cat "$d"/model.onnx* | wc -c) lib_bytes=$(wc -c < "$d/libm.a")
  sizes+="| $p | $(mib "$onnx_bytes") | $(mib "$lib_bytes") | $(awk -v a="$lib_bytes" -v b="$onnx_bytes" 'BEGIN {printf "%.2f", a / b}') | $ctime | $((cmem / 1024)) |"$'\n'
  caches=$(( $(grep -c '^#define M_INPUT[0-9]*_NAME' "$d/m.h") - 2 ))
  context=$(.venv/bin/python -c 'import json, sys; print(json.load(open(sys.argv[1]))["model"]["context_length"])' "$d/genai_config.json")
  pasts=$(seq -s, 0 $((caches - 1)) | sed 's/\([0-9]*\)/in[\1]/g') presents=${pasts//in/out}
  cc -O2 -I "$d" -DKV_HEADS="$kv_heads" -DHEAD="$head" -DVOCAB="$vocab" -DPASTS="$pasts" -DPRESENTS="$presents" \
    scripts/bench-llm/step.c "$d/libm.a" -lm -lpthread -o "$d/step"
  # The weight bytes a decode step reads: the library's constants less the embedding table
  # (one row of it is read).
  weights=$(size -A "$d/libm.a" | awk '$1 == ".rodata" {s += $2} END {print s}')
  weights=$((weights - vocab * hidden * 4))
  for threads in 1 "$cores"; do
    xrow="| xcc $p | $threads |" orow="| ONNX Runtime $p | $threads |" bw=""
    for config in "${configs[@]}"; do
      read -r seq past <<< "$config"
      runs=$([ "$seq" = 1 ] && echo 20 || echo 3)
      shared=$([ "$seq" = 1 ] && echo "STEP_CAPACITY=$context" || true)
      x=() o=()
      for _ in $(seq "$repeat"); do
        o+=("$(env ${shared:+"$shared"} .venv/bin/python scripts/bench-llm/ort_step.py "$d/model.onnx" "$seq" "$past" "$threads" "$runs" "$d" "$kv_heads" "$head")")
        x+=("$(env ${shared:+"$shared"} XCC_NUM_THREADS="$threads" "$d/step" "$seq" "$past" "$runs" "$d")")
      done
      xm=$(printf '%s\n' "${x[@]}" | median) om=$(printf '%s\n' "${o[@]}" | median)
      xrow+=" $(rate "$seq" "$xm") ($(awk -v a="$xm" -v b="$om" 'BEGIN {printf "%.2f", a / b}')) |"
      orow+=" $(rate "$seq" "$om") |"
      if [ "$config" = "512 0" ] && [ "$threads" = 1 ]; then
        arithmetic+="| $p | $(gflops "$seq" "$xm") | $(gflops "$seq" "$om") |"$'\n'
      fi
      if [ "$config" = "1 128" ]; then
        copy=$([ "$threads" = 1 ] && echo "$copy1" || echo "$copyn")
        bw=$(awk -v w="$weights" -v ms="$xm" -v c="$copy" 'BEGIN {printf "%.1f GB/s, %.0f%% of %.1f", w / ms / 1e6, 100 * w / ms / 1e6 / c, c}')
      fi
    done
    rows+="$xrow $bw |"$'\n'"$orow |"$'\n'
  done
  # One 128-token prompt's logits from each, for the agreement table.
  .venv/bin/python scripts/bench-llm/ort_step.py "$d/model.onnx" 128 0 "$cores" 1 "$d" "$kv_heads" "$head" "$d/logits_ort.bin" >/dev/null
  "$d/step" 128 0 1 "$d" "$d/logits_xcc.bin" >/dev/null
  agree+="$(.venv/bin/python scripts/bench-llm/agreement.py "$vocab" "ONNX Runtime $p" "$d/logits_ort.bin" "xcc $p" "$d/logits_xcc.bin")"$'\n'
done
# The quantized runtimes against float32 ONNX Runtime, where this run has it.
reference=$work/fp32/logits_ort.bin
if [ -f "$reference" ]; then
  for p in "${precisions[@]}"; do
    [ "$p" = fp32 ] || agree+="$(.venv/bin/python scripts/bench-llm/agreement.py "$vocab" "ONNX Runtime fp32" "$reference" "xcc $p" "$work/$p/logits_xcc.bin" "ONNX Runtime $p" "$work/$p/logits_ort.bin")"$'\n'
  done
fi
for f in "${formats[@]}"; do
  for threads in 1 "$cores"; do
    row="| llama.cpp $f | $threads |"
    for config in "${configs[@]}"; do
      read -r seq past <<< "$config"
      runs=$([ "$seq" = 1 ] && echo 20 || echo 3)
      l=()
      for _ in $(seq "$repeat"); do
        l+=("$($llama scripts/bench-llm/llama_step.py "$work/gguf/$f.gguf" "$seq" "$past" "$threads" "$runs")")
      done
      row+=" $(rate "$seq" "$(printf '%s\n' "${l[@]}" | median)") |"
    done
    rows+="$row |"$'\n'
  done
  $llama scripts/bench-llm/llama_step.py "$work/gguf/$f.gguf" 128 0 "$cores" 1 "$work/gguf/logits_$f.bin" >/dev/null
  if [ -f "$reference" ]; then
    agree+="$(.venv/bin/python scripts/bench-llm/agreement.py "$vocab" "ONNX Runtime fp32" "$reference" "llama.cpp $f" "$work/gguf/logits_$f.bin")"$'\n'
  fi
done
echo "Tokens per second (for xcc, in brackets, its time over ONNX Runtime's on the same model: below 1 is faster):"
echo
echo "| runtime, weights | threads | prefill 128 | prefill 512 | decode after 128 | decode after 1024 | decode weight bytes/s (of copy bandwidth) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
printf '%s' "$rows"
echo
echo "Prefill of 512 tokens at 1 thread: GFLOP/s of the matmuls ($macs multiply-adds per token, twice), and"
echo "in brackets, of one core's measured f32 FMA peak ($peak GFLOP/s, bench/fma_peak.c):"
echo
echo "| weights | xcc | ONNX Runtime |"
echo "| --- | --- | --- |"
printf '%s' "$arithmetic"
echo
echo "| weights | ONNX files MiB | xcc library MiB | library / ONNX | xcc compile s | compile peak MiB |"
echo "| --- | --- | --- | --- | --- | --- |"
printf '%s' "$sizes"
echo
echo "Greedy tokens of one 128-token prompt (the next token at each of its positions) and logits, against a reference:"
echo
echo "| runtime | reference | same greedy token | largest logit difference | of the largest logit |"
echo "| --- | --- | --- | --- | --- |"
printf '%s' "$agree"
