//! `gpu`: the thread and block coordinates of a kernel (a function marked `gpu.kernel`), lowered
//! to NVVM's special registers on `nvptx64`; the block's barrier and its shared memory, which
//! tiled kernels stage their operands in.

use crate::attributes::Attribute;
use crate::diagnostics::Diagnostic;
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{required, AttrKind, OpDef, Syntax, Traits};
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::Type;

const DIMENSION: &[crate::op_def::AttrDef] = &[required("dimension", AttrKind::Any)];

const fn coordinate(name: &'static str, summary: &'static str) -> OpDef {
    OpDef::new(name, summary)
        .results(1)
        .attrs(DIMENSION)
        .pure()
        .verify(verify_coordinate)
        .syntax(Syntax::custom(parse_coordinate, Some(print_coordinate)))
}

pub const OPS: &[OpDef] = &[
    coordinate("gpu.thread_id", "this thread's index in its block"),
    coordinate("gpu.block_id", "this block's index in the grid"),
    coordinate("gpu.block_dim", "the number of threads per block"),
    coordinate("gpu.grid_dim", "the number of blocks in the grid"),
    OpDef::new("gpu.barrier", "waits until every thread of the block reaches it; their shared-memory writes are seen")
        .traits(Traits::READS.union(Traits::WRITES))
        .syntax(Syntax::custom(parse_barrier, Some(print_barrier))),
    OpDef::new("gpu.dynamic_shared_memory", "the block's shared memory, as bytes the launch sized")
        .results(1)
        .pure()
        .verify(verify_shared_memory)
        .syntax(Syntax::custom(parse_shared_memory, Some(print_shared_memory))),
];

/// `x`, `y` or `z` from `#gpu<dim x>` (or the plain string `"x"` in hand-written generic form).
pub fn dimension(m: &Module, op: OpId) -> Option<String> {
    let d = match m.attr(op, "dimension")? {
        Attribute::Opaque(s) => s.trim_start_matches("#gpu<dim ").trim_end_matches('>').trim().to_string(),
        Attribute::String(s) => s.clone(),
        _ => return None,
    };
    ["x", "y", "z"].contains(&d.as_str()).then_some(d)
}

fn verify_coordinate(m: &Module, op: OpId) -> Result<(), String> {
    if dimension(m, op).is_none() {
        return Err("the dimension must be x, y or z".into());
    }
    if !m.ty(m.ops[op].results[0]).is_index() {
        return Err("the result must be an index".into());
    }
    Ok(())
}

/// `gpu.thread_id x`
fn parse_coordinate(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let (dim, dspan) = p.expect_ident("a dimension (x, y or z)")?;
    if !["x", "y", "z"].contains(&dim.as_str()) {
        return Err(Diagnostic::new(dspan, format!("expected a dimension x, y or z, found '{dim}'")));
    }
    Ok(spec.results([Type::Index]).attr("dimension", Attribute::Opaque(format!("#gpu<dim {dim}>"))))
}

fn print_coordinate(p: &mut OpPrinter, op: OpId) -> Option<()> {
    if p.has_other_attrs(op, &["dimension"]) {
        return None;
    }
    let d = dimension(p.module(), op)?;
    p.word(&d);
    Some(())
}

/// `gpu.barrier`
fn parse_barrier(_: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    Ok(spec)
}

fn print_barrier(p: &mut OpPrinter, op: OpId) -> Option<()> {
    (!p.has_other_attrs(op, &[])).then_some(())
}

/// A 1-D byte buffer: its static size, where it has one, is the bytes the kernel uses.
fn verify_shared_memory(m: &Module, op: OpId) -> Result<(), String> {
    match m.ty(m.ops[op].results[0]).as_memref() {
        Some(t) if t.rank() == 1 && *t.elem == Type::i8() => Ok(()),
        _ => Err("the result must be a 1-D memref of i8".into()),
    }
}

/// `gpu.dynamic_shared_memory : memref<?xi8>`
fn parse_shared_memory(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    p.expect_punct(":")?;
    let t = p.parse_type()?;
    Ok(spec.results([t]))
}

fn print_shared_memory(p: &mut OpPrinter, op: OpId) -> Option<()> {
    if p.has_other_attrs(op, &[]) {
        return None;
    }
    let m = p.module();
    p.word(": ");
    p.ty(m.ty(m.ops[op].results[0]));
    Some(())
}
