//! Core ML ML Programs against ONNX Runtime: `onnx_node.rs`, built a fourth time (it tells the
//! suites apart by this test's crate name), on the cases `test-suite/coreml/gen_cases.py` writes
//! (torch models converted by coremltools and exported to ONNX). Every case must pass. The GPU
//! run of the same cases is `coreml_models_gpu.rs`.

#[path = "onnx_node.rs"]
mod onnx_node;

fn main() -> std::process::ExitCode {
    onnx_node::main()
}
