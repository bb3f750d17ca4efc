//! Passes that lower xcc's IR towards the llvm dialect.
//!
//! The pipeline, each a named pass that `--print-after-all` can dump:
//! 1. `lower-affine` ([`conversion::affine_to_scf`]): `affine.apply/for/if` to arith and `scf`;
//! 2. `convert-scf-to-cf` ([`conversion::scf_to_cf`]): structured loops and conditionals to blocks;
//! 3. `convert-to-llvm` ([`conversion::std_to_llvm`]): func, arith, math, cf, memref, vector and gpu
//!    operations to the llvm dialect, memrefs to upstream MLIR's descriptors.
//!
//! The verifier runs after every pass when asked (always in the driver's tests).

pub mod builder;
pub mod conversion;
pub mod onnx;

use xcc_ir::{Diagnostic, Module};

/// A module-to-module pass. Errors are user-facing (an unsupported construct, with its span).
pub trait Pass {
    fn name(&self) -> &'static str;
    fn run(&self, m: Module, options: &LoweringOptions) -> Result<Module, Diagnostic>;
}

#[derive(Clone, Debug, Default)]
pub struct LoweringOptions {
    /// Lowering for a GPU (nvptx64): kernels keep their attributes, runtime calls are not emitted.
    pub gpu: bool,
    /// Pointer width of the target in bits (index lowers to an integer of this width).
    pub index_bits: u32,
}

pub fn standard_pipeline() -> Vec<Box<dyn Pass>> {
    vec![
        Box::new(conversion::affine_to_scf::LowerAffine),
        Box::new(conversion::scf_to_cf::ScfToCf),
        Box::new(conversion::std_to_llvm::StdToLlvm),
    ]
}

/// Runs passes in order; `after_each(pass_name, module)` sees each result (for verifying and
/// printing).
pub fn run_pipeline(
    mut m: Module,
    passes: &[Box<dyn Pass>],
    options: &LoweringOptions,
    mut after_each: impl FnMut(&str, &Module) -> Result<(), Diagnostic>,
) -> Result<Module, Diagnostic> {
    for p in passes {
        m = p.run(m, options)?;
        after_each(p.name(), &m)?;
    }
    Ok(m)
}
