//! `vector.contract` (see `xcc_ir::dialects::vector_contract`), unrolled: every point of the
//! iteration space multiplies one lane of `a` by one of `b` and adds the product to its
//! accumulator lane, in the order of the points (row-major over the dims), as scalar LLVM
//! instructions on the flattened vectors. Meant for the small contractions written by hand or
//! produced by vectorizers; a space of more than 65,536 points is refused.

use super::{unsupported, ConversionSet, Rewriter};
use crate::builder::Builder;
use xcc_ir::dialects::vector_contract::Contraction;
use xcc_ir::{Diagnostic, OpId, Type, ValueId};

pub const CONVERSION: ConversionSet =
    ConversionSet { name: "vector-contract", one_to_one: &[], patterns: &[("vector.contract", contract)] };

const MAX_POINTS: u64 = 1 << 16;

/// The row-major lane of an operand whose positions are `dims` at iteration point `point`.
fn lane(dims: &[usize], sizes: &[u64], point: &[u64]) -> u64 {
    dims.iter().fold(0, |acc, &d| acc * sizes[d] + point[d])
}

/// Lane `i` of a flattened vector, or the scalar itself.
fn element(b: &mut Builder, v: ValueId, i: u64, elem: &Type) -> ValueId {
    if !matches!(b.m.ty(v), Type::Vector { .. }) {
        return v;
    }
    let at = b.llvm_const(i as i64, Type::i64());
    b.value("llvm.extractelement", &[v, at], elem.clone())
}

fn contract(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let c = Contraction::of(rw.old, op).expect("verified");
    let span = rw.old.ops[op].span;
    let points: u64 = c.sizes.iter().product();
    if points > MAX_POINTS {
        return Err(unsupported(span, format!("vector.contract over {points} points (at most {MAX_POINTS} unroll)")));
    }
    let elem = rw.types.convert(&rw.old.ty(rw.old.ops[op].operands[0]).element_or_self().clone(), span)?;
    let t = rw.result_type(op, 0)?;
    let (mul, add) = if elem.is_float() { ("llvm.fmul", "llvm.fadd") } else { ("llvm.mul", "llvm.add") };
    let ops = rw.operands(op)?;
    let mut b = rw.builder(span);
    let acc_lanes: u64 = c.operand_dims[2].iter().map(|&d| c.sizes[d]).product();
    let mut sums: Vec<ValueId> = (0..acc_lanes).map(|i| element(&mut b, ops[2], i, &elem)).collect();
    let mut cache: [Vec<Option<ValueId>>; 2] = [Vec::new(), Vec::new()];
    for (k, dims) in c.operand_dims[..2].iter().enumerate() {
        cache[k] = vec![None; dims.iter().map(|&d| c.sizes[d]).product::<u64>() as usize];
    }
    let mut point = vec![0u64; c.sizes.len()];
    for _ in 0..points {
        let mut factors = [ops[0], ops[1]];
        for k in 0..2 {
            let i = lane(&c.operand_dims[k], &c.sizes, &point) as usize;
            factors[k] = *cache[k][i].get_or_insert_with(|| element(&mut b, ops[k], i as u64, &elem));
        }
        let product = b.value(mul, &factors, elem.clone());
        let at = lane(&c.operand_dims[2], &c.sizes, &point) as usize;
        sums[at] = b.value(add, &[sums[at], product], elem.clone());
        // The next point, row-major (the last dim fastest).
        for d in (0..point.len()).rev() {
            point[d] += 1;
            if point[d] < c.sizes[d] {
                break;
            }
            point[d] = 0;
        }
    }
    if !matches!(t, Type::Vector { .. }) {
        return Ok(vec![sums[0]]);
    }
    let mut v = b.value("llvm.mlir.poison", &[], t.clone());
    for (i, s) in sums.into_iter().enumerate() {
        let at = b.llvm_const(i as i64, Type::i64());
        v = b.value("llvm.insertelement", &[v, s, at], t.clone());
    }
    Ok(vec![v])
}
