//! Core ML ML Programs against ONNX Runtime: `onnx_node.rs`, built a fourth time (it tells the
//! suites apart by this test's crate name), on the cases `test-suite/coreml/gen_cases.py` writes
//! (torch models converted by coremltools and exported to ONNX). Every case must pass. Built
//! twice: `coreml_models` (the CPU) and `coreml_models_gpu` (the GPU kernels in runtime-c's grid
//! emulator, and the PTX through `ptxas`).

#[path = "onnx_node.rs"]
mod onnx_node;

fn main() -> std::process::ExitCode {
    onnx_node::main()
}
