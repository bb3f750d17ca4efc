//! The ONNX node tests compiled for a GPU (`--target=nvptx64 --emulate-gpu`) and run through the
//! header's GPU functions in runtime-c's grid emulator: `onnx_node.rs`, built a second time (it
//! tells the two apart by this test's crate name).

#[path = "onnx_node.rs"]
mod onnx_node;

fn main() -> std::process::ExitCode {
    onnx_node::main()
}
