//! `convert-gpu-to-nvvm`: a kernel's thread and block coordinates to NVVM's special registers
//! (`%tid`, `%ctaid`, `%ntid`, `%nctaid`), on `nvptx64` only.

use super::{unsupported, ConversionSet, Rewriter};
use xcc_ir::{Diagnostic, OpId, Type, ValueId};

pub const CONVERSION: ConversionSet = ConversionSet {
    name: "gpu",
    one_to_one: &[],
    patterns: &[
        ("gpu.thread_id", coordinate),
        ("gpu.block_id", coordinate),
        ("gpu.block_dim", coordinate),
        ("gpu.grid_dim", coordinate),
    ],
};

fn coordinate(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let name = rw.old.ops[op].name.clone();
    let span = rw.old.ops[op].span;
    if !rw.options.gpu {
        return Err(unsupported(span, format!("'{name}' outside GPU code (compile with --target=nvptx64)")));
    }
    let dim = xcc_ir::dialects::gpu::dimension(rw.old, op).expect("verified dimension");
    let register = match name.as_str() {
        "gpu.thread_id" => "tid",
        "gpu.block_id" => "ctaid",
        "gpu.block_dim" => "ntid",
        _ => "nctaid",
    };
    let index = rw.types.index.clone();
    let mut b = rw.builder(span);
    let v = b.value(&format!("llvm.intr.nvvm.read.ptx.sreg.{register}.{dim}"), &[], Type::i32());
    Ok(vec![b.value("llvm.zext", &[v], index)])
}
