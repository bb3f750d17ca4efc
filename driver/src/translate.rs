//! The llvm-dialect module through LLVM for one target: translated to LLVM IR, optimized, with
//! its target machine (for the CPU library, and for a GPU model's host code and kernels alike).

use crate::{Cli, Sanitizer};
use inkwell::context::Context;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use xcc_ir::Diagnostic;

/// The input's stem, which names the LLVM module and the library's object.
pub(crate) fn module_name(cli: &Cli) -> String {
    cli.input.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "module".into())
}

/// The bytes a splat global may be written out to: `--fold-budget`, or the ONNX frontend's
/// default base plus four times the input's size (which bounds what the input spelled out).
fn constant_budget(cli: &Cli) -> u64 {
    if let Some(budget) = cli.fold_budget {
        return budget as u64;
    }
    let input_bytes = std::fs::metadata(&cli.input).map_or(0, |m| m.len());
    (xcc_frontend_onnx::FOLD_BUDGET_BASE as u64).saturating_add(input_bytes.saturating_mul(4))
}

/// The llvm-dialect module translated to LLVM IR and optimized for `spec`, with its target
/// machine.
pub(crate) fn translate_optimized<'c>(
    ctx: &'c Context,
    cli: &Cli,
    lowered: &xcc_ir::Module,
    spec: &xcc_targets::Target,
    module_name: &str,
    render: &dyn Fn(Diagnostic) -> String,
) -> Result<(inkwell::module::Module<'c>, inkwell::targets::TargetMachine), String> {
    let tm = xcc_codegen::create_machine(spec, cli.opt).map_err(|e| error(e.to_string()))?;
    let llvm = translate_unit(ctx, cli, lowered, spec, module_name, None, &tm).map_err(|e| e.rendered(render))?;
    Ok((llvm, tm))
}

fn error(e: String) -> String {
    format!("xcc: error: {e}")
}

/// Why a module or unit did not become optimized LLVM IR: a translation error, which has a
/// place in the input, or LLVM's.
enum UnitError {
    Translate(xcc_llvm_dialect::TranslateError),
    Llvm(String),
}

impl UnitError {
    fn rendered(self, render: &dyn Fn(Diagnostic) -> String) -> String {
        match self {
            UnitError::Translate(e) if e.span().is_known() => render(Diagnostic::new(e.span(), e.to_string())),
            UnitError::Translate(e) => error(e.to_string()),
            UnitError::Llvm(e) => error(e),
        }
    }
}

/// The module (or the unit of it) translated into `ctx` and optimized with `tm`.
fn translate_unit<'c>(
    ctx: &'c Context,
    cli: &Cli,
    lowered: &xcc_ir::Module,
    spec: &xcc_targets::Target,
    module_name: &str,
    unit: Option<xcc_llvm_dialect::Unit>,
    tm: &inkwell::targets::TargetMachine,
) -> Result<inkwell::module::Module<'c>, UnitError> {
    let options = xcc_llvm_dialect::TranslateOptions {
        nvptx: spec.is_gpu(),
        arch: spec.arch.name().to_string(),
        cpu: spec.cpu.clone(),
        constant_budget: constant_budget(cli),
        unit,
    };
    let llvm = xcc_llvm_dialect::translate_module(ctx, lowered, module_name, &options).map_err(UnitError::Translate)?;
    let asan = cli.sanitize == Some(Sanitizer::Address);
    xcc_codegen::optimize(&llvm, tm, cli.opt, asan).map_err(|e| UnitError::Llvm(e.to_string()))?;
    Ok(llvm)
}

/// One object of a library: its member name, its bytes, and whether it calls runtime-c's CUDA
/// launch shim.
pub(crate) struct UnitObject {
    pub name: String,
    pub bytes: Vec<u8>,
    pub calls_cuda_shim: bool,
}

/// A target machine handed to the thread that compiles one unit.
struct UnitMachine(inkwell::targets::TargetMachine);

// SAFETY: LLVM's target machine is used by one thread at a time: it is created here, moved
// into the one thread that compiles its unit, and dropped there.
unsafe impl Send for UnitMachine {}

/// The library's objects: the module split into codegen units (one or more per CPU its code is
/// compiled for, and the globals: `xcc_llvm_dialect::units`), each translated, optimized and
/// compiled in an LLVM context of its own, on `--jobs` threads (default: as many as the machine
/// has); the objects do not depend on how many there are.
pub(crate) fn compile_objects(
    cli: &Cli,
    lowered: &xcc_ir::Module,
    spec: &xcc_targets::Target,
    module_name: &str,
    render: &dyn Fn(Diagnostic) -> String,
) -> Result<Vec<UnitObject>, String> {
    let units = xcc_llvm_dialect::units::split(lowered, module_name);
    // Created here, one per unit: creating one checks the CPU and its features through LLVM's
    // standard error, which one thread at a time may borrow.
    let machines = units
        .iter()
        .map(|_| {
            let tm = xcc_codegen::create_machine(spec, cli.opt).map_err(|e| error(e.to_string()))?;
            Ok(Mutex::new(Some(UnitMachine(tm))))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let threads = match cli.jobs {
        Some(jobs) => usize::from(jobs),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let results = in_parallel(&compile_order(&units), threads, |i| {
        let machine = machines[i].lock().expect("a unit's machine").take().expect("each unit compiled once");
        let unit = &units[i];
        let name =
            if unit.name.is_empty() { format!("{module_name}.o") } else { format!("{module_name}.{}.o", unit.name) };
        compile_unit(cli, lowered, spec, module_name, unit, machine).map(|(bytes, calls_cuda_shim)| UnitObject {
            name,
            bytes,
            calls_cuda_shim,
        })
    });
    results.into_iter().map(|r| r.map_err(|e| e.rendered(render))).collect()
}

/// The units' indices in the order threads take them, the longest work first so that the
/// threads end together: the CPUs' copies, then the baseline's code (optimized for size), the
/// globals (bytes to write out) last.
fn compile_order(units: &[xcc_llvm_dialect::Unit]) -> Vec<usize> {
    let is_globals = |i: &usize| units[*i].name == xcc_llvm_dialect::units::GLOBALS;
    (1..units.len()).filter(|i| !is_globals(i)).chain([0]).chain((1..units.len()).filter(is_globals)).collect()
}

/// `f` of each index of `order` (a permutation of `0..order.len()`), taken in that order by up
/// to `threads` threads; the results by index.
fn in_parallel<T: Send>(order: &[usize], threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<T>>> = order.iter().map(|_| Mutex::new(None)).collect();
    let work = || {
        while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            *results[i].lock().expect("a result") = Some(f(i));
        }
    };
    let threads = threads.clamp(1, order.len().max(1));
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(work);
        }
        work();
    });
    results.into_iter().map(|r| r.into_inner().expect("a result").expect("every index taken")).collect()
}

/// One unit's object, and whether it calls the CUDA launch shim.
fn compile_unit(
    cli: &Cli,
    lowered: &xcc_ir::Module,
    spec: &xcc_targets::Target,
    module_name: &str,
    unit: &xcc_llvm_dialect::Unit,
    machine: UnitMachine,
) -> Result<(Vec<u8>, bool), UnitError> {
    let ctx = Context::create();
    let tm = machine.0;
    let llvm = translate_unit(&ctx, cli, lowered, spec, module_name, Some(unit.clone()), &tm)?;
    let bytes = xcc_codegen::emit(&llvm, &tm, false).map_err(|e| UnitError::Llvm(e.to_string()))?;
    Ok((bytes, calls_cuda_shim(&llvm)))
}

/// Whether the module calls runtime-c's CUDA launch shim, which only then goes into its archive.
pub(crate) fn calls_cuda_shim(llvm: &inkwell::module::Module) -> bool {
    llvm.get_functions().any(|f| f.get_name().to_bytes().starts_with(xcc_runtime_c::CUDA_SYMBOL_PREFIX.as_bytes()))
}
