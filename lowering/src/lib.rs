//! Passes over xcc's IR, from the kernel level down to the llvm dialect, each named and runnable
//! alone (`xcc --passes=a,b,c`), with the verifier between them.
//!
//! The default pipeline ([`default_pipeline`]):
//! 0. the kernel level ([`kernel`]): `kernel-fuse-epilogue`, `kernel-fuse-elementwise`,
//!    `kernel-pack-weights`, `kernel-to-loops` and `plan-workspace`;
//! 1. `lower-affine` ([`conversion::affine_to_scf`]): `affine.apply/for/if/load/store` to arith and `scf`;
//! 2. `convert-parallel-to-threads` ([`conversion::parallel_to_threads`]): on CPUs, the outermost
//!    parallel loops worth it become calls to runtime-c's parallel-for over outlined bodies;
//!    `convert-parallel-to-gpu` ([`conversion::parallel_to_gpu`]): on GPUs, a model's work becomes
//!    kernels over a grid, launched by host code;
//! 3. `split-large-functions` ([`conversion::split_functions`]): a function too large for LLVM's
//!    superlinear passes has runs of its operations outlined, each a function of bounded size;
//!    `convert-scf-to-cf` ([`conversion::scf_to_cf`]): structured loops (the remaining parallel
//!    ones serially) and conditionals to blocks;
//! 4. `convert-to-llvm`: every `*-to-llvm` conversion of [`conversion`] at once (func, arith,
//!    math, cf, memref, vector, gpu), as a full conversion;
//! 5. `reconcile-unrealized-casts` ([`conversion::reconcile_casts`]);
//! 6. `return-wide-results-in-memory` ([`llvm::wide_results`]): an internal function's struct
//!    result of many fields is stored through a pointer its callers pass, since LLVM's
//!    interprocedural constant propagation costs the cube of the fields;
//!    `outline-wide-signatures` ([`llvm::wide_signatures`]): a function of hundreds of parameters
//!    becomes a wrapper that passes them in memory to its body, since LLVM's cost grows with
//!    their square;
//!    `merge-identical-functions` ([`llvm::merge_functions`]): internal functions of the same
//!    body (a repeated layer's parallel tasks) become one, so LLVM compiles each once;
//!    `cpu-dispatch` ([`llvm::cpu_dispatch`]): for a portable x86-64 library, a copy of the code
//!    per CPU level and exported functions that pick one at run time.
//!
//! Each `*-to-llvm` conversion is also a pass of its own (`convert-arith-to-llvm`, ...), a
//! partial conversion that leaves casts where converted and unconverted operations meet; the
//! golden tests in `test-suite/conversion/` run them one at a time.

/// The IR builders live in the IR crate, which the frontends share; here under their old path.
pub use xcc_ir::builder;
pub mod conversion;
pub mod kernel;
pub mod llvm;
pub mod math;
mod pass;

pub use pass::{ByteDots, CpuCopy, GpuGemm, GpuTiling, LoweringOptions, Pass, Target};

use conversion::{ConversionSet, LlvmConversionPass};
use xcc_ir::{Diagnostic, Module};

/// Whether some pass lowers `op` away (towards the llvm dialect).
pub fn is_lowered_by_a_pass(op: &str) -> bool {
    registry().iter().any(|(p, _)| p.lowers(op))
}

const fn partial(name: &'static str, sets: &'static [&'static ConversionSet]) -> LlvmConversionPass {
    LlvmConversionPass { name, sets, full: false }
}

const ARITH: &[&ConversionSet] = &[&conversion::arith_to_llvm::CONVERSION];
const MATH: &[&ConversionSet] = &[&conversion::math_to_llvm::CONVERSION];
const CF: &[&ConversionSet] = &[&conversion::cf_to_llvm::CONVERSION];
const FUNC: &[&ConversionSet] = &[&conversion::func_to_llvm::CONVERSION];
const MEMREF: &[&ConversionSet] = &[&conversion::memref_to_llvm::CONVERSION];
const VECTOR: &[&ConversionSet] = &[&conversion::vector_to_llvm::CONVERSION];
const GPU: &[&ConversionSet] = &[&conversion::gpu_to_nvvm::CONVERSION];

/// Every pass by name, with a line saying what it does.
pub fn registry() -> Vec<(Box<dyn Pass>, &'static str)> {
    vec![
        (
            Box::new(kernel::fuse::FuseEpilogue),
            "a clamp, residual add or bias add after a matmul or conv joins its epilogue",
        ),
        (Box::new(kernel::fuse::FuseElementwise), "chains of elementwise kernel.generic ops become one"),
        (
            Box::new(kernel::fuse::FuseActivation),
            "an elementwise function of a matmul's or conv's output alone (SiLU, GELU) joins its epilogue",
        ),
        (
            Box::new(kernel::fuse_planes::FusePlanesEpilogue),
            "the elementwise generic reading a conv_planes' sums (a requantization) joins its stores",
        ),
        (
            Box::new(kernel::strategy::ChooseStrategies),
            "the target's strategy for each matmul and conv (register tiles, Winograd, depthwise, im2col) recorded on the op",
        ),
        (
            Box::new(kernel::pack::PackWeights),
            "constant weights laid out at compile time: a matmul's B in panels, a 3x3 conv's for Winograd",
        ),
        (
            Box::new(kernel::lower::KernelToLoops),
            "kernel ops to (parallel) loops; the GEMM micro-kernel for matmul and conv",
        ),
        (
            Box::new(kernel::plan_workspace::PlanWorkspace),
            "buffers of functions with xcc.workspace become views of their workspace",
        ),
        (
            Box::new(conversion::split_wide_vectors::SplitWideVectors),
            "operations on vectors of more than 64 lanes to the same on pieces of 16, so LLVM's cost stays linear",
        ),
        (
            Box::new(math::polynomial_approximation::PolynomialApproximation),
            "f32 exp, erf and tanh as polynomials and exponent arithmetic, so their loops vectorize (CPUs)",
        ),
        (
            Box::new(conversion::affine_to_scf::LowerAffine),
            "affine loops, conditionals, maps and accesses to scf and arith",
        ),
        (
            Box::new(conversion::parallel_to_threads::ParallelToThreads),
            "outermost parallel loops with enough work to runtime-c's thread pool (CPU targets)",
        ),
        (
            Box::new(conversion::parallel_to_gpu::ParallelToGpu),
            "the work of a model's compute function to kernels over a grid, launched by host code (GPU targets)",
        ),
        (
            Box::new(conversion::split_functions::SplitLargeFunctions),
            "runs of a very large function's operations to functions of their own, so LLVM's cost stays linear",
        ),
        (
            Box::new(conversion::scf_to_cf::ScfToCf),
            "scf.for/if/parallel to blocks and branches (parallel loops run serially)",
        ),
        (Box::new(partial("convert-arith-to-llvm", ARITH)), "arith to llvm"),
        (Box::new(partial("convert-math-to-llvm", MATH)), "math to LLVM intrinsics and C library calls"),
        (Box::new(partial("convert-cf-to-llvm", CF)), "cf branches to llvm branches"),
        (
            Box::new(partial("convert-func-to-llvm", FUNC)),
            "functions, calls and returns, with the memref calling convention",
        ),
        (
            Box::new(partial("finalize-memref-to-llvm", MEMREF)),
            "memrefs to descriptors; allocation, access, views, DMA",
        ),
        (Box::new(partial("convert-vector-to-llvm", VECTOR)), "vectors to LLVM vectors"),
        (Box::new(partial("convert-gpu-to-nvvm", GPU)), "GPU thread and block coordinates to NVVM registers"),
        (
            Box::new(LlvmConversionPass { name: "convert-to-llvm", sets: conversion::TO_LLVM, full: true }),
            "every *-to-llvm conversion at once; everything must end in the llvm dialect",
        ),
        (Box::new(conversion::reconcile_casts::ReconcileUnrealizedCasts), "removes casts between converted types"),
        (
            Box::new(llvm::wide_results::ReturnWideResultsInMemory),
            "an internal function's struct result of many fields written through a pointer its callers pass",
        ),
        (
            Box::new(llvm::wide_signatures::OutlineWideSignatures),
            "a function of hundreds of parameters to a wrapper passing them in memory to its body",
        ),
        (
            Box::new(llvm::merge_functions::MergeIdenticalFunctions),
            "internal functions of the same body (a repeated layer's parallel tasks) to one",
        ),
        (
            Box::new(llvm::cpu_dispatch::CpuDispatch),
            "a copy of every function per extra CPU, exported functions dispatching at run time",
        ),
    ]
}

/// The passes named in `spec` (`a,b,c`), in order.
pub fn parse_pipeline(spec: &str) -> Result<Vec<Box<dyn Pass>>, String> {
    let mut out = Vec::new();
    for name in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let pass = registry().into_iter().map(|(p, _)| p).find(|p| p.name() == name);
        match pass {
            Some(p) => out.push(p),
            None => {
                let known: Vec<&str> = registry().iter().map(|(p, _)| p.name()).collect();
                return Err(format!("unknown pass '{name}' (passes: {})", known.join(", ")));
            }
        }
    }
    Ok(out)
}

/// The kernel passes, then lower-affine, convert-parallel-to-threads, convert-parallel-to-gpu,
/// split-large-functions, convert-scf-to-cf,
/// convert-to-llvm, reconcile-unrealized-casts, return-wide-results-in-memory,
/// outline-wide-signatures, merge-identical-functions and cpu-dispatch.
pub const DEFAULT_PIPELINE: &str =
    "kernel-fuse-epilogue,kernel-fuse-elementwise,kernel-fuse-activation,kernel-fuse-planes-epilogue,kernel-choose-strategies,kernel-pack-weights,kernel-to-loops,plan-workspace,\
split-wide-vectors,math-polynomial-approximation,lower-affine,convert-parallel-to-threads,convert-parallel-to-gpu,split-large-functions,convert-scf-to-cf,convert-to-llvm,reconcile-unrealized-casts,return-wide-results-in-memory,outline-wide-signatures,merge-identical-functions,cpu-dispatch";

pub fn default_pipeline() -> Vec<Box<dyn Pass>> {
    parse_pipeline(DEFAULT_PIPELINE).expect("the default passes are registered")
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
        m = compacted_if_mostly_dead(m);
        after_each(p.name(), &m)?;
    }
    Ok(m)
}

/// The module compacted ([`Module::compacted`]) when most of its arenas' operations are ones
/// passes replaced: they would otherwise stay for the rest of the compilation (a chain of 10^6
/// nodes: about 14 operations made per node, 6.2 GB at the peak).
fn compacted_if_mostly_dead(m: Module) -> Module {
    if m.ops.len() > 2 * m.live_op_count() + 4096 {
        m.compacted()
    } else {
        m
    }
}
