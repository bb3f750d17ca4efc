#!/usr/bin/env bash
# Installs everything xcc's build and tests need, idempotently:
#  - LLVM 22 (static libraries for inkwell, clang-22 for C harnesses, mlir-22-tools as the differential oracle),
#  - the aarch64 and riscv64 cross toolchains and qemu-user (their run and model tests), cmake and pkg-config (the CMake package's example, the runtime's .pc file),
#  - cargo-fuzz (the fuzz targets in fuzz/),
#  - a git-ignored Python venv in .venv with the test oracles (onnx, onnxruntime, numpy, ptxas from nvidia-cuda-nvcc,
#    pillow for onnx's reference ImageDecoder),
#  - a second one, .venv-torch, with torch and coremltools (the Core ML tests' converters) and transformers
#    (the decoders tests' language models),
#  - a third, .venv-genai, with ONNX Runtime GenAI's model builder (torch read from .venv-torch),
#  - a fourth, .venv-optimum1, with optimum 1.x's legacy exporter (the rest read from .venv-torch).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

apt_packages=(
  llvm-22-dev libpolly-22-dev libzstd-dev zlib1g-dev
  clang-22 llvm-22 mlir-22-tools
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-riscv64-linux-gnu libc6-dev-riscv64-cross qemu-user
  python3-venv cmake pkg-config
)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# rustfmt and clippy for scripts/lint.sh (present with most toolchains; best effort otherwise).
for c in rustfmt clippy; do
  if ! cargo "${c/rustfmt/fmt}" --version >/dev/null 2>&1 && command -v rustup >/dev/null; then
    rustup component add "$c" >/dev/null 2>&1 || echo "setup: could not install $c"
  fi
done

# cargo-fuzz for the fuzz targets in fuzz/ (scripts/fuzz.sh; a short run is part of the tests).
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install -q cargo-fuzz --locked || echo "setup: could not install cargo-fuzz (the fuzz tests will say skipped)"
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
# ml_dtypes is pinned: it computes the node tests' expected casts to int4/int2, and 0.7 turned
# an out-of-range float cast (-9.0 to int4) from wrapping (7, what the data long held and
# xcc computes) into 0.
if ! .venv/bin/python -c 'import onnx, onnxruntime, numpy, nvidia.cu13, PIL, ml_dtypes; assert ml_dtypes.__version__ == "0.6.0"' 2>/dev/null; then
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q "onnx==1.23.2" onnxruntime numpy "ml_dtypes==0.6.0" nvidia-cuda-nvcc pillow
fi
# A second git-ignored venv, .venv-torch, for the converters: torch and coremltools 9 (which is
# tested with torch up to 2.7.0), so that the Core ML tests convert torch models to ML Programs and
# export the same models to ONNX for ONNX Runtime, and the operator gallery has models exported by
# torch (onnxscript for its dynamo exporter). Its own venv, so that torch's pins never move
# the oracles' versions above. Best effort: without it those tests say skipped.
if [ ! -x .venv-torch/bin/python ]; then
  python3 -m venv .venv-torch
fi
if ! .venv-torch/bin/python -c 'import torch, torchvision, coremltools, onnx, onnxruntime, onnxscript' 2>/dev/null; then
  .venv-torch/bin/pip install -q --upgrade pip || true
  .venv-torch/bin/pip install -q "torch==2.7.0" "torchvision==0.22.0" "coremltools==9.0" "onnx==1.23.2" onnxruntime onnxscript "numpy<2.3" \
    || echo "setup: could not install torch and coremltools in .venv-torch (the Core ML tests will say skipped)"
fi
# transformers (4.46, whose decoders torch 2.7's TorchScript exporter traces with their run-time
# shapes) and optimum-onnx 0.1 (its exporter) in the same venv: the decoders suite builds small
# language models from its configs.
if [ -x .venv-torch/bin/python ] && ! .venv-torch/bin/python -c 'import transformers, optimum.exporters.onnx' 2>/dev/null; then
  .venv-torch/bin/pip install -q "transformers==4.46.3" "optimum-onnx==0.1.0" \
    || echo "setup: could not install transformers in .venv-torch (the decoders tests will say skipped)"
fi
# A third git-ignored venv, .venv-genai, for ONNX Runtime GenAI's model builder (the decoders
# suite's GroupQueryAttention models): the builder needs a newer transformers than the one the
# TorchScript exports above need, so it gets its own, and reads torch from .venv-torch through a
# .pth file rather than installing a second copy.
if [ -x .venv-torch/bin/python ] && ! .venv-genai/bin/python -c 'import onnxruntime_genai.models.builder' 2>/dev/null; then
  python3 -m venv .venv-genai
  site=$(.venv-genai/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  torch_site=$(.venv-torch/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo "$torch_site" > "$site/zz-venv-torch.pth"
  .venv-genai/bin/pip install -q "transformers==5.25.0" "onnxruntime-genai==0.18.0" \
    || echo "setup: could not install onnxruntime-genai in .venv-genai (the GenAI decoders tests will say skipped)"
fi
# A fourth, .venv-optimum1, for optimum 1.x, whose legacy exporter writes the merged decoders
# (`decoder_model_merged.onnx`: an If on `use_cache_branch`) that optimum-onnx no longer writes.
# It is installed without its dependencies, which it reads from .venv-torch (transformers 4.46)
# through a .pth file, as .venv-genai does.
if [ -x .venv-torch/bin/python ] \
  && ! .venv-optimum1/bin/python -c 'import optimum.version as v; assert v.__version__.startswith("1.")' 2>/dev/null; then
  python3 -m venv .venv-optimum1
  site=$(.venv-optimum1/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  torch_site=$(.venv-torch/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo "$torch_site" > "$site/zz-venv-torch.pth"
  .venv-optimum1/bin/pip install -q --no-deps "optimum==1.23.3" \
    || echo "setup: could not install optimum 1.x in .venv-optimum1 (the merged decoders tests will say skipped)"
fi
echo "setup: done (LLVM $(/usr/lib/llvm-22/bin/llvm-config --version), $(.venv/bin/python -c 'import onnx,onnxruntime;print("onnx",onnx.__version__,"onnxruntime",onnxruntime.__version__)'))"
