#!/usr/bin/env bash
# A model compiled with run-time dims against the same model specialized with --dim at the same
# size, and ONNX Runtime on the same model and inputs, in one run on this machine, one thread.
# The models are test-suite/dynamic/make_models.py's encoder (batch 1), decoder and exported
# decoder (batch 1; its shapes computed from Shape inside the graph) at each LENGTH (even ones:
# an odd length runs the encoder and the exported decoder at batch 2), its decoder step over a KV
# cache at the (seq, past) make_models.py pairs with LENGTH (128: one token after 127, 512: 64
# after 448; the symbolic build has the ranges --dim seq=..64 --dim past=0..448), its CNN at
# batch 1 and 8, and its image CNN (batch, height and width at run time) at make_models.py's
# image sizes 13 (batch 2, 13x59) and 64 (batch 1, 64x8), and at 1x3x224x224 (size 224, an input
# written here). Usage: scripts/bench-dynamic.sh
# [LENGTH...] (default 128 512). BENCH_MODELS="cnn images" measures those models alone (default
# all). BENCH_REPEAT=N (default 3) measures
# each configuration N times in turn and reports the medians; BUDGET_MS (default 2000) is the
# time one measurement may take. Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then lengths=("$@"); else lengths=(128 512); fi
cargo build --release -p xcc >/dev/null
work=.work/bench-dynamic
rm -rf "$work" && mkdir -p "$work"
py=.venv/bin/python
budget="${BUDGET_MS:-2000}"
repeat="${BENCH_REPEAT:-3}"
"$py" test-suite/dynamic/make_models.py "$work" "${lengths[@]}" >/dev/null
"$py" -c "import numpy as np; np.random.default_rng(5).standard_normal((1, 3, 224, 224)).astype(np.float32).tofile('$work/images.224.in0.bin')"
printf '1 224 224' > "$work/images.224.dims"
median() { tr ',' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "| model | length | symbolic ms | specialized ms | symbolic / specialized | ONNX Runtime ms | symbolic / ORT |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for m in ${BENCH_MODELS:-encoder decoder exported cached cnn images}; do
  ranges=()
  [ $m = cached ] && ranges=(--dim seq=..64 --dim past=0..448)
  mkdir -p "$work/sym" && ./target/release/xcc "$work/$m.onnx" -O3 "${ranges[@]}" -o "$work/sym/lib$m.a"
  sizes=("${lengths[@]}")
  [ $m = cnn ] && sizes=(1 8)
  [ $m = images ] && sizes=(13 64 224)
  for l in "${sizes[@]}"; do
    if [ $m = images ]; then
      read -r b h w < "$work/$m.$l.dims" || true  # the file has no final newline
      dims="$b, $h, $w"; flags=(--dim "batch=$b" --dim "height=$h" --dim "width=$w")
      ins=("$work/$m.$l.in0.bin"); args="in[0]"; out=$((b * 10 * 4))
    elif [ $m = cnn ]; then
      dims="$l"; flags=(--dim "batch=$l"); ins=("$work/$m.$l.in0.bin"); args="in[0]"; out=$((l * 10 * 4))
    elif [ $m = encoder ]; then
      dims="1, $l"; flags=(--dim batch=1 --dim "seq=$l"); ins=("$work/$m.$l.in0.bin"); args="in[0]"; out=$((l * 64 * 4))
    elif [ $m = cached ]; then
      seq=$(awk '{print $1}' "$work/$m.$l.dims"); past=$(awk '{print $2}' "$work/$m.$l.dims")
      dims="$seq, $past"; flags=(--dim "seq=$seq" --dim "past=$past")
      ins=("$work/$m.$l.in0.bin" "$work/$m.$l.in1.bin" "$work/$m.$l.in2.bin")
      args="in[0], in[1], in[2]"; out=$(((seq + 1) * 97 * 4))
    elif [ $m = exported ]; then
      dims="1, $l"; flags=(--dim batch=1 --dim "seq=$l"); ins=("$work/$m.$l.in0.bin"); args="in[0]"; out=$((l * 97 * 4))
    else
      dims="$l"; flags=(--dim "seq=$l"); ins=("$work/$m.$l.in0.bin" "$work/$m.$l.in1.bin" "$work/$m.$l.in2.bin")
      args="in[0], in[1], in[2]"; out=$((l * 97 * 4))
    fi
    mkdir -p "$work/spec$l" && ./target/release/xcc "$work/$m.onnx" -O3 "${flags[@]}" -o "$work/spec$l/lib$m.a"
    cc -O2 -I "$work/sym" -DHEADER="\"$m.h\"" -DRUN="${m}_run($dims, $args, out, ws)" \
      -DWS="${m}_workspace_size($dims)" -DOUT_BYTES=$out bench/dynamic_driver.c "$work/sym/lib$m.a" \
      -lm -lpthread -o "$work/sym_${m}_$l"
    cc -O2 -I "$work/spec$l" -DHEADER="\"$m.h\"" -DRUN="${m}_run($args, out, ws)" \
      -DWS="${m}_workspace_size()" -DOUT_BYTES=$out bench/dynamic_driver.c "$work/spec$l/lib$m.a" \
      -lm -lpthread -o "$work/spec_${m}_$l"
    ss=""; ps=""; os=""
    for _ in $(seq "$repeat"); do
      read -r s _ <<< "$(XCC_NUM_THREADS=1 "$work/sym_${m}_$l" "$budget" "${ins[@]}")"
      read -r p _ <<< "$(XCC_NUM_THREADS=1 "$work/spec_${m}_$l" "$budget" "${ins[@]}")"
      read -r o _ <<< "$("$py" bench/ort_dynamic.py "$work/$m.onnx" "$work/$m.$l" "$budget")"
      ss+="$s,"; ps+="$p,"; os+="$o,"
    done
    s=$(echo "$ss" | median); p=$(echo "$ps" | median); o=$(echo "$os" | median)
    echo "| $m | $l | $s | $p | $(awk "BEGIN {printf \"%.2f\", $s / $p}") | $o | $(awk "BEGIN {printf \"%.2f\", $s / $o}") |"
  done
done
