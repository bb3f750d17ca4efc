//! Operator cases beyond the ONNX node tests, checked against ONNX Runtime (or onnx's reference
//! implementation where ONNX Runtime lacks a mode): `onnx_node.rs`, built a third time (it tells
//! the suites apart by this test's crate name), on the cases `test-suite/gallery/gen_cases.py`
//! writes. Every case must pass.

#[path = "onnx_node.rs"]
mod onnx_node;

fn main() -> std::process::ExitCode {
    onnx_node::main()
}
