//! MLIR text -> parse -> verify -> the default lowering to the llvm dialect, verifying after each
//! pass. Any input may be rejected with a diagnostic; a panic, an abort, a hang or an unbounded
//! allocation is a finding, and so is a module that verified but whose lowering does not (a pass
//! that turns valid IR into invalid IR). So is a compile that costs more time or memory than
//! the input's size allows (`xcc_fuzz::within_budget`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use xcc_lowering::LoweringOptions;

#[global_allocator]
static ALLOCATOR: xcc_fuzz::CountingAllocator = xcc_fuzz::CountingAllocator;

fuzz_target!(|data: &[u8]| xcc_fuzz::within_budget(data.len(), || compile(data)));

fn compile(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(module) = xcc_ir::parser::parse_module(text) else { return };
    if xcc_ir::verifier::verify(&module).is_err() {
        return;
    }
    let options = LoweringOptions::default();
    let _ = xcc_lowering::run_pipeline(module, &xcc_lowering::default_pipeline(), &options, |name, m| {
        if let Err(d) = xcc_ir::verifier::verify(m) {
            panic!("the IR after pass '{name}' does not verify: {}", d.message);
        }
        Ok(())
    });
}
