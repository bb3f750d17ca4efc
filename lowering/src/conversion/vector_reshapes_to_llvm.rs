//! The vector reshaping operations on row-major one-dimensional LLVM vectors: a shape cast is
//! the vector itself, a bitcast LLVM's, and a slice a shuffle whose mask lists the row-major
//! positions of the block (see `xcc_ir::dialects::vector_reshapes`).

use super::vector_to_llvm::shufflevector;
use super::{ConversionSet, Rewriter};
use xcc_ir::dialects::vector_reshapes::slice_parts;
use xcc_ir::{Diagnostic, OpId, Type, ValueId};

pub const CONVERSION: ConversionSet = ConversionSet {
    name: "vector-reshapes",
    one_to_one: &[("vector.bitcast", "llvm.bitcast")],
    patterns: &[
        ("vector.shape_cast", shape_cast),
        ("vector.extract_strided_slice", extract_slice),
        ("vector.insert_strided_slice", insert_slice),
    ],
};

fn shape_of(t: &Type) -> Vec<u64> {
    match t {
        Type::Vector { shape, .. } => shape.clone(),
        _ => Vec::new(),
    }
}

/// Row-major positions in a vector of `shape` of the block at `offsets` of `sizes`.
fn block_positions(shape: &[u64], offsets: &[u64], sizes: &[u64]) -> Vec<u64> {
    let mut out = Vec::new();
    let count: u64 = sizes.iter().product();
    for flat in 0..count {
        let (mut rest, mut pos, mut stride) = (flat, 0u64, 1u64);
        for d in (0..shape.len()).rev() {
            let i = rest % sizes[d];
            rest /= sizes[d];
            pos += (offsets[d] + i) * stride;
            stride *= shape[d];
        }
        out.push(pos);
    }
    out
}

fn shape_cast(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    Ok(vec![rw.operands(op)?[0]])
}

/// [`shufflevector`] at the op's place.
fn shuffle(rw: &mut Rewriter, op: OpId, a: ValueId, b: ValueId, t: Type, mask: Vec<u64>) -> ValueId {
    let span = rw.old.ops[op].span;
    shufflevector(&mut rw.builder(span), a, b, t, mask)
}

fn extract_slice(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let shape = shape_of(rw.old.ty(rw.old.ops[op].operands[0]));
    let (offsets, sizes) = slice_parts(rw.old, op, &shape).expect("verified");
    let v = rw.operands(op)?[0];
    let t = rw.result_type(op, 0)?;
    Ok(vec![shuffle(rw, op, v, v, t, block_positions(&shape, &offsets, &sizes))])
}

/// Lane k of the result is the destination's, or the source's (numbered after the
/// destination's lanes, as a shuffle of the two counts them) where the block covers k.
fn insert_slice(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let src = shape_of(rw.old.ty(rw.old.ops[op].operands[0]));
    let dst = shape_of(rw.old.ty(rw.old.ops[op].operands[1]));
    let (offsets, _) = slice_parts(rw.old, op, &dst).expect("verified");
    let lanes: u64 = dst.iter().product();
    let src_lanes: u64 = src.iter().product();
    let mut mask: Vec<u64> = (0..lanes).collect();
    for (i, pos) in block_positions(&dst, &offsets, &src).into_iter().enumerate() {
        mask[pos as usize] = lanes + i as u64;
    }
    let ops = rw.operands(op)?;
    // A shuffle takes two vectors of one type: the source is widened to the destination's
    // lane count first (its extra lanes are never picked).
    let (source, dest) = (ops[0], ops[1]);
    let t = rw.result_type(op, 0)?;
    let widened = if src_lanes == lanes {
        source
    } else {
        let pad = (0..lanes).map(|k| k.min(src_lanes - 1)).collect();
        shuffle(rw, op, source, source, t.clone(), pad)
    };
    Ok(vec![shuffle(rw, op, dest, widened, t, mask)])
}
