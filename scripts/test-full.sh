#!/usr/bin/env bash
# CI's second test command, after the README's (scripts/test.sh): the cases of the breadth suites
# that the README's command leaves out of its sample (XCC_TEST_BREADTH=rest) and the fuzz runs,
# so that between the two every case runs once.
set -euo pipefail
cd "$(dirname "$0")/.."
suites=(onnx_node onnx_node_gpu onnx_gallery coreml_models coreml_models_gpu gpu_models models decoders fuzz)
args=(-p xcc-test-suite)
for s in "${suites[@]}"; do args+=(--test "$s"); done
XCC_TEST_BREADTH=rest exec bash scripts/test.sh "${args[@]}"
