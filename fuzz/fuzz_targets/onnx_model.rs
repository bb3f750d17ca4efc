//! ONNX model bytes -> decode -> import -> shape inference and constant folding -> fusion -> the
//! kernel-level module, which must verify. Any input may be rejected with an error; a panic, an
//! abort, a hang or an unbounded allocation is a finding, and so is an accepted model whose
//! module does not verify.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use xcc_frontend_onnx::OnnxOptions;

fuzz_target!(|data: &[u8]| {
    let options = OnnxOptions {
        name: "m",
        shapes: Default::default(),
        binds: Default::default(),
        dims: Default::default(),
        progress: None,
    };
    let Ok((module, _)) = xcc_frontend_onnx::compile(data, Path::new("fuzz.onnx"), &options) else { return };
    if let Err(d) = xcc_ir::verifier::verify(&module) {
        panic!("an accepted model's module does not verify: {}", d.message);
    }
});
