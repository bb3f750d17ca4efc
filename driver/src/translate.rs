//! The llvm-dialect module through LLVM for one target: translated to LLVM IR, optimized, with
//! its target machine (for the CPU library, and for a GPU model's host code and kernels alike).

use crate::{Cli, Sanitizer};
use inkwell::context::Context;
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
    let options = xcc_llvm_dialect::TranslateOptions {
        nvptx: spec.is_gpu(),
        arch: spec.arch.name().to_string(),
        cpu: spec.cpu.clone(),
        constant_budget: constant_budget(cli),
    };
    let llvm = xcc_llvm_dialect::translate_module(ctx, lowered, module_name, &options).map_err(|e| match e.span() {
        s if s.is_known() => render(Diagnostic::new(s, e.to_string())),
        _ => format!("xcc: error: {e}"),
    })?;
    let error = |e: String| format!("xcc: error: {e}");
    let tm = xcc_codegen::create_machine(spec, cli.opt).map_err(|e| error(e.to_string()))?;
    let asan = cli.sanitize == Some(Sanitizer::Address);
    xcc_codegen::optimize(&llvm, &tm, cli.opt, asan).map_err(|e| error(e.to_string()))?;
    Ok((llvm, tm))
}
