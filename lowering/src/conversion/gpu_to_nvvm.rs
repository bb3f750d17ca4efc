//! `convert-gpu-to-nvvm`: a kernel's thread and block coordinates to NVVM's special registers
//! (`%tid`, `%ctaid`, `%ntid`, `%nctaid`), on `nvptx64`; where the grid is emulated on the CPU
//! (`--emulate-gpu`), to calls of runtime-c's emulator, which runs the same kernels with the
//! coordinates it sets.

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

/// runtime-c's emulator: `uint32_t xcc_gpu_emulated_coordinate(int32_t code)`, `code` being
/// 3 x (thread id, block id, block size, grid size) + (x, y, z).
pub const EMULATED_COORDINATE: &str = "xcc_gpu_emulated_coordinate";

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
    if rw.options.gpu_emulation {
        rw.declare(EMULATED_COORDINATE, vec![Type::i32()], vec![Type::i32()]);
        let registers = ["tid", "ctaid", "ntid", "nctaid"];
        let code = registers.iter().position(|r| *r == register).expect("a register") * 3
            + ["x", "y", "z"].iter().position(|d| *d == dim).expect("a verified dimension");
        let mut b = rw.builder(span);
        let k = b.llvm_const(code as i64, Type::i32());
        let spec = b
            .spec("llvm.call")
            .operands([k])
            .results([Type::i32()])
            .attr("callee", xcc_ir::Attribute::symbol(EMULATED_COORDINATE));
        let call = b.insert(spec);
        let v = b.m.ops[call].results[0];
        return Ok(vec![b.value("llvm.zext", &[v], index)]);
    }
    let mut b = rw.builder(span);
    let v = b.value(&format!("llvm.intr.nvvm.read.ptx.sreg.{register}.{dim}"), &[], Type::i32());
    Ok(vec![b.value("llvm.zext", &[v], index)])
}
