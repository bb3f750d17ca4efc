//! A `kernel.generic` that reduces a whole contiguous buffer to one value with one exact,
//! associative operation (`arith.minimumf`, `arith.maxsi`, `arith.addi`, ...): the minimum and
//! maximum of a run-time quantization (DynamicQuantizeLinear), a ReduceMax over every axis. The
//! generic lowering would carry one scalar through every element (for `minimumf`, a compare,
//! a blend and a branch on the sign of zero each); here [`ACCUMULATORS`] vectors of 64 bytes
//! each take a quarter of the elements, the last partial vector under a mask, and the lanes
//! then fold pairwise by shuffles. The order changes, the result does not: each operation here
//! is exact and associative, and for floats min and max order NaN and signed zeros alike
//! whatever the order.

use super::Cursor;
use crate::builder::LoopBuilder;
use xcc_ir::dialects::kernel::Generic;
use xcc_ir::{Attribute, Module, OpId, Type};

/// Independent vector accumulators, enough to hide the operation's latency.
const ACCUMULATORS: usize = 4;

/// Bytes of a vector.
const VECTOR_BYTES: usize = 64;

/// Below this many elements the scalar loop is as quick.
const MIN_ELEMENTS: usize = 256;

/// The reducing operation and whether it is idempotent (`op(x, x) == x`: min, max, and, or),
/// which decides the lanes' start: the output's value where it is, else the identity, 0.
struct Reduction {
    op: String,
    idempotent: bool,
    /// The input's elements, and the lanes of a 64-byte vector of them.
    numel: usize,
    lanes: usize,
}

/// The operations lowered here.
const IDEMPOTENT: &[&str] = &[
    "arith.minimumf",
    "arith.maximumf",
    "arith.minnumf",
    "arith.maxnumf",
    "arith.minsi",
    "arith.maxsi",
    "arith.minui",
    "arith.maxui",
    "arith.andi",
    "arith.ori",
];
const SUMS: &[&str] = &["arith.addi"];

/// The reduction `op` performs, if it is one this lowers: one input and one scalar output, the
/// input contiguous and read in order, all loops reductions, the body one operation of the
/// input's element and the accumulator.
fn reduction_of(m: &Module, g: &Generic) -> Option<Reduction> {
    if g.inputs.len() != 1 || g.outputs.len() != 1 || g.parallel.iter().any(|&p| p) {
        return None;
    }
    let (input, output) = (m.ty(g.inputs[0]).as_memref()?, m.ty(g.outputs[0]).as_memref()?);
    let numel: usize = input.shape.iter().map(|d| d.map(|d| d as usize)).product::<Option<usize>>()?;
    let elem_bytes = match input.elem.as_ref() {
        Type::Float(k) if k.width() == 32 => 4,
        Type::Integer { width, .. } if matches!(width, 8 | 16 | 32 | 64) => *width as usize / 8,
        _ => return None,
    };
    let lanes = VECTOR_BYTES / elem_bytes;
    if numel < MIN_ELEMENTS.max(lanes * ACCUMULATORS) || output.rank() != 0 || !g.maps[0].is_identity() {
        return None;
    }
    if input.layout != xcc_ir::types::Layout::Identity || input.elem != output.elem {
        return None;
    }
    let block = m.regions[g.body].blocks[0];
    let (args, ops) = (&m.blocks[block].args, &m.blocks[block].ops);
    let [combine, yield_op] = ops.as_slice() else { return None };
    let name = m.ops[*combine].name.clone();
    let idempotent = IDEMPOTENT.contains(&name.as_str());
    if !idempotent && !SUMS.contains(&name.as_str()) {
        return None;
    }
    let operands = &m.ops[*combine].operands;
    let reads_both = operands.len() == 2 && operands.contains(&args[0]) && operands.contains(&args[1]);
    let yields = m.ops[*yield_op].operands == [m.result(*combine, 0)];
    if !reads_both || !yields || m.ops[*combine].regions.len() + m.ops[*combine].attrs.len() > 0 {
        return None;
    }
    Some(Reduction { op: name, idempotent, numel, lanes })
}

/// Lowers `op` if it is a whole-buffer reduction this handles; `false` leaves it to the generic
/// lowering.
pub fn lower(m: &mut Module, op: OpId) -> bool {
    let Some(g) = Generic::of(m, op) else { return false };
    let Some(r) = reduction_of(m, &g) else { return false };
    let elem = (*m.ty(g.inputs[0]).as_memref().expect("checked").elem).clone();
    let (numel, lanes) = (r.numel, r.lanes);
    let span = m.ops[op].span;
    let mut c = Cursor::new(m, span);
    let x = c.flat(g.inputs[0]);
    let init = c.load(g.outputs[0], &[]);
    let vt = Type::Vector { shape: vec![lanes as u64], elem: Box::new(elem.clone()) };
    let start = if r.idempotent { init } else { c.const_int(0, elem.clone()) };
    let start = c.value_op("vector.broadcast", &[start], vt.clone());
    let step = lanes * ACCUMULATORS;
    let accs = c.for_accs(0, numel / step, &[start; ACCUMULATORS], |e, i, accs| {
        (0..ACCUMULATORS)
            .map(|k| {
                let at = e.affine(&[(i, step as i64)], (k * lanes) as i64);
                let v = e.value_op("vector.load", &[x, at], vt.clone());
                e.value_op(&r.op, &[accs[k], v], vt.clone())
            })
            .collect()
    });
    let mut acc = accs.into_iter().reduce(|a, b| c.value_op(&r.op, &[a, b], vt.clone())).expect("accumulators");
    let done = numel / step * step;
    for first in (done..numel).step_by(lanes) {
        let at = c.idx(first as i64);
        let count = c.idx((numel - first).min(lanes) as i64);
        let mask_t = Type::Vector { shape: vec![lanes as u64], elem: Box::new(Type::i1()) };
        let mask = c.value_op("vector.create_mask", &[count], mask_t);
        let v = c.value_op("vector.maskedload", &[x, at, mask, start], vt.clone());
        acc = c.value_op(&r.op, &[acc, v], vt.clone());
    }
    let mut width = lanes / 2;
    while width > 0 {
        let values = (0..lanes).map(|l| ((l + width) % lanes) as i128).collect();
        let mask = Attribute::DenseArray { elem: Type::i64(), values };
        let high = c.value_attr("vector.shuffle", &[acc, acc], vt.clone(), vec![("mask", mask)]);
        acc = c.value_op(&r.op, &[acc, high], vt.clone());
        width /= 2;
    }
    let position = Attribute::DenseArray { elem: Type::i64(), values: vec![0] };
    let mut result = c.value_attr("vector.extract", &[acc], elem.clone(), vec![("static_position", position)]);
    if !r.idempotent {
        result = c.value_op(&r.op, &[init, result], elem);
    }
    c.store(result, g.outputs[0], &[]);
    c.finish(op);
    true
}
