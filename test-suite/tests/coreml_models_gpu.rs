//! The Core ML models' GPU run: `onnx_node.rs` built a fifth time (see `coreml_models.rs`), each
//! case compiled with `--target=nvptx64 --emulate-gpu`, run in runtime-c's grid emulator through
//! the header's GPU functions, and its PTX checked by `ptxas`. Every case must pass.

#[path = "onnx_node.rs"]
mod onnx_node;

fn main() -> std::process::ExitCode {
    onnx_node::main()
}
