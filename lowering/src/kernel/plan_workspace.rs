//! `plan-workspace`: the buffers a function allocates become views into a workspace its caller
//! passes, so a run does no heap allocation and two threads with two workspaces can run at once.
//!
//! A function opts in with `xcc.workspace = N`: its argument N is the workspace pointer. Every
//! statically shaped `memref.alloc` in its body is live from its first to its last use (uses
//! through views count; `memref.dealloc` does not), measured in the positions of the body's
//! top-level operations. Buffers are placed first-fit, in order of their first use, at offsets
//! aligned to 64 bytes, among the buffers live at the same time. The total is the function's
//! `xcc.workspace_bytes`, and the value of every `kernel.workspace_size` naming it.

use super::ops_named;
use crate::builder::Builder;
use crate::conversion::memref_descriptor::MemRefDescriptor;
use crate::pass::{LoweringOptions, Pass};
use std::collections::{HashMap, HashSet};
use xcc_ir::types::{Layout, MemRefType};
use xcc_ir::{Attribute, Diagnostic, Module, OpId, OpSpec, Type, ValueId};

pub struct PlanWorkspace;

pub const ALIGN: u64 = 64;

impl Pass for PlanWorkspace {
    fn name(&self) -> &'static str {
        "plan-workspace"
    }

    fn lowers(&self, op: &str) -> bool {
        op == "kernel.workspace_size"
    }

    fn run(&self, mut m: Module, _: &LoweringOptions) -> Result<Module, Diagnostic> {
        let mut sizes = HashMap::new();
        for func in m.top_ops().to_vec() {
            let Some(arg) = m.attr(func, "xcc.workspace").and_then(Attribute::as_int) else { continue };
            let bytes = plan_function(&mut m, func, arg as usize)?;
            m.set_attr(func, "xcc.workspace_bytes", Attribute::i64(bytes as i64));
            if let Some(name) = m.sym_name(func) {
                sizes.insert(name.to_string(), bytes);
            }
        }
        for op in ops_named(&m, &["kernel.workspace_size"]) {
            let sym = m.attr(op, "function").and_then(Attribute::as_symbol).unwrap_or_default().to_string();
            let span = m.ops[op].span;
            let bytes = *sizes.get(&sym).ok_or_else(|| {
                Diagnostic::new(span, format!("'@{sym}' has no workspace (no xcc.workspace attribute)"))
            })?;
            let c = m.build_before(
                op,
                OpSpec::new("arith.constant", span)
                    .results([Type::Index])
                    .attr("value", Attribute::int(bytes as i128, Type::Index)),
            );
            let (old, new) = (m.result(op, 0), m.result(c, 0));
            m.replace_all_uses(old, new);
            m.erase_op(op);
        }
        Ok(m)
    }
}

/// Buffers derived from a value without copying it.
const VIEWS: &[&str] = &[
    "memref.reinterpret_cast",
    "memref.subview",
    "memref.cast",
    "memref.view",
    "memref.reshape",
    "std.view",
    "std.reshape",
];

/// The live range of every allocation of the body, in top-level positions.
struct Buffer {
    alloc: OpId,
    bytes: u64,
    first: usize,
    last: usize,
}

fn byte_size(mt: &MemRefType) -> Option<u64> {
    let elems: u64 = mt.shape.iter().copied().product::<Option<u64>>()?;
    let width = match &*mt.elem {
        Type::Integer { width, .. } => (*width as u64).div_ceil(8),
        Type::Float(k) => k.width() as u64 / 8,
        Type::Index => 8,
        _ => return None,
    };
    Some(elems * width)
}

fn plan_function(m: &mut Module, func: OpId, ws_arg: usize) -> Result<u64, Diagnostic> {
    let span = m.ops[func].span;
    let body = m.ops[func].regions.first().and_then(|&r| m.regions[r].blocks.first().copied());
    let Some(entry) = body else { return Err(Diagnostic::new(span, "xcc.workspace on a function without a body")) };
    let ws_ptr =
        *m.blocks[entry].args.get(ws_arg).ok_or_else(|| Diagnostic::new(span, "xcc.workspace names no argument"))?;
    let top: Vec<OpId> = m.blocks[entry].ops.clone();
    let position: HashMap<OpId, usize> = top.iter().enumerate().map(|(i, &o)| (o, i)).collect();
    // The top-level operation each nested operation belongs to.
    let mut owner: HashMap<OpId, usize> = HashMap::new();
    for (i, &o) in top.iter().enumerate() {
        owner.insert(o, i);
        m.walk_nested(o, &mut |inner| {
            owner.insert(inner, i);
        });
    }
    let mut users: HashMap<ValueId, Vec<OpId>> = HashMap::new();
    for &o in owner.keys() {
        for &v in &m.ops[o].operands {
            users.entry(v).or_default().push(o);
        }
    }
    let mut buffers = Vec::new();
    let mut deallocs = Vec::new();
    for &o in &top {
        if m.ops[o].name != "memref.alloc" || !m.ops[o].operands.is_empty() {
            continue;
        }
        let Some(mt) = m.ty(m.ops[o].results[0]).as_memref().cloned() else { continue };
        let (Some(bytes), Layout::Identity) = (byte_size(&mt), &mt.layout) else { continue };
        let (mut first, mut last) = (position[&o], position[&o]);
        let mut pending = vec![m.ops[o].results[0]];
        let mut seen = HashSet::new();
        while let Some(v) = pending.pop() {
            if !seen.insert(v) {
                continue;
            }
            for &u in users.get(&v).map(Vec::as_slice).unwrap_or(&[]) {
                if m.ops[u].name == "memref.dealloc" {
                    deallocs.push(u);
                    continue;
                }
                let at = owner[&u];
                first = first.min(at);
                last = last.max(at);
                if VIEWS.contains(&m.ops[u].name.as_str()) {
                    pending.extend(m.ops[u].results.iter().copied());
                }
            }
        }
        buffers.push(Buffer { alloc: o, bytes, first, last });
    }
    let (offsets, total) = place(&buffers);
    let ws_type = MemRefType {
        shape: vec![Some(total.max(1))],
        elem: Box::new(Type::i8()),
        layout: Layout::Identity,
        memory_space: None,
    };
    let Some(&first_op) = top.first() else { return Ok(total) };
    let ws = {
        let mut b = Builder::before(m, first_op);
        let d = MemRefDescriptor::from_pointers(&mut b, ws_ptr, ws_ptr, &ws_type, &[]);
        b.value("builtin.unrealized_conversion_cast", &[d.value], Type::MemRef(ws_type))
    };
    for (buf, offset) in buffers.iter().zip(offsets) {
        let alloc = buf.alloc;
        let result = m.result(alloc, 0);
        let t = m.ty(result).clone();
        let s = m.ops[alloc].span;
        let off = m.build_before(
            alloc,
            OpSpec::new("arith.constant", s)
                .results([Type::Index])
                .attr("value", Attribute::int(offset as i128, Type::Index)),
        );
        let off = m.result(off, 0);
        let view = m.build_before(alloc, OpSpec::new("memref.view", s).operands([ws, off]).results([t]));
        let view = m.result(view, 0);
        m.replace_uses_in(func, result, view);
        m.erase_op(alloc);
    }
    for d in deallocs {
        m.erase_op(d);
    }
    Ok(total)
}

/// First-fit offsets for buffers in order of their first use, and the total size.
fn place(buffers: &[Buffer]) -> (Vec<u64>, u64) {
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by_key(|&i| (buffers[i].first, i));
    let mut offsets = vec![0; buffers.len()];
    let mut placed: Vec<(u64, u64, usize, usize)> = Vec::new(); // offset, size, first, last
    let mut total = 0;
    for i in order {
        let b = &buffers[i];
        let size = b.bytes.div_ceil(ALIGN) * ALIGN;
        let live: Vec<(u64, u64)> =
            placed.iter().filter(|p| p.2 <= b.last && b.first <= p.3).map(|p| (p.0, p.0 + p.1)).collect();
        let mut candidates: Vec<u64> = std::iter::once(0).chain(live.iter().map(|l| l.1)).collect();
        candidates.sort();
        let offset = candidates.into_iter().find(|&o| live.iter().all(|&(s, e)| o + size <= s || o >= e)).unwrap_or(0);
        placed.push((offset, size, b.first, b.last));
        offsets[i] = offset;
        total = total.max(offset + size);
    }
    (offsets, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(first: usize, last: usize, bytes: u64) -> Buffer {
        Buffer { alloc: OpId::from_index(0), bytes, first, last }
    }

    #[test]
    fn disjoint_lifetimes_share_memory_and_overlapping_ones_do_not() {
        let (offsets, total) = place(&[buf(0, 1, 100), buf(2, 3, 100), buf(1, 2, 10)]);
        assert_eq!(offsets[0], 0);
        assert_eq!(offsets[1], 0, "the second buffer starts after the first is dead");
        assert_eq!(offsets[2], 128, "the third overlaps both in time");
        assert_eq!(total, 192);
    }
}
