//! The memref reshaping views to descriptors: each result descriptor shares the source's
//! pointers and offset, with sizes and strides computed from the source's (see
//! `xcc_ir::dialects::memref_reshapes`; the buffers are row-major, which the verifier checks).

use super::memref_descriptor::MemRefDescriptor;
use super::{ConversionSet, Rewriter};
use crate::builder::Builder;
use xcc_ir::dialects::memref_reshapes::{permutation, reassociation};
use xcc_ir::parser::forms::DYNAMIC;
use xcc_ir::{Attribute, Diagnostic, OpId, Type, ValueId};

pub const CONVERSION: ConversionSet = ConversionSet {
    name: "memref-reshapes",
    one_to_one: &[],
    patterns: &[
        ("memref.collapse_shape", collapse_shape),
        ("memref.expand_shape", expand_shape),
        ("memref.transpose", transpose),
        ("memref.rank", rank),
        ("memref.extract_strided_metadata", extract_strided_metadata),
    ],
};

fn rank_of(rw: &Rewriter, v: ValueId) -> usize {
    rw.old.ty(v).as_memref().map_or(0, |m| m.rank())
}

/// A descriptor with `d`'s pointers and offset and the given sizes and strides.
fn with_sizes_and_strides(
    b: &mut Builder,
    d: &MemRefDescriptor,
    sizes: Vec<ValueId>,
    strides: Vec<ValueId>,
) -> ValueId {
    let rank = sizes.len();
    let mut fields = vec![d.allocated_ptr(b), d.aligned_ptr(b), d.offset(b)];
    fields.extend(sizes);
    fields.extend(strides);
    MemRefDescriptor::pack(b, rank, &fields).value
}

/// Dim k of the result is the product of its group's sizes; its stride is that of the group's
/// innermost dim.
fn collapse_shape(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let groups = reassociation(rw.old, op);
    let src_rank = rank_of(rw, rw.old.ops[op].operands[0]);
    let span = rw.old.ops[op].span;
    let ops = rw.operands(op)?;
    let mut b = rw.builder(span);
    let d = MemRefDescriptor { value: ops[0], rank: src_rank };
    let (mut sizes, mut strides) = (Vec::new(), Vec::new());
    for g in &groups {
        let mut size = d.size(&mut b, g[0]);
        for &i in &g[1..] {
            let s = d.size(&mut b, i);
            size = b.value("llvm.mul", &[size, s], Type::i64());
        }
        sizes.push(size);
        strides.push(d.stride(&mut b, *g.last().expect("non-empty group")));
    }
    Ok(vec![with_sizes_and_strides(&mut b, &d, sizes, strides)])
}

/// The result's sizes come from `output_shape`; within a group the innermost dim takes the
/// source dim's stride and each outer one the stride and size of the dim inside it.
fn expand_shape(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let groups = reassociation(rw.old, op);
    let shape = rw.old.attr(op, "static_output_shape").and_then(Attribute::as_int_list).unwrap_or_default();
    let src_rank = rank_of(rw, rw.old.ops[op].operands[0]);
    let span = rw.old.ops[op].span;
    let ops = rw.operands(op)?;
    let mut b = rw.builder(span);
    let d = MemRefDescriptor { value: ops[0], rank: src_rank };
    let mut dynamic = ops[1..].iter();
    let sizes: Vec<ValueId> = shape
        .iter()
        .map(|&s| match s == DYNAMIC {
            true => *dynamic.next().expect("verified output_shape"),
            false => b.llvm_const(s as i64, Type::i64()),
        })
        .collect();
    let mut strides = vec![None; sizes.len()];
    for (k, g) in groups.iter().enumerate() {
        let mut stride = d.stride(&mut b, k);
        for &i in g.iter().rev() {
            strides[i] = Some(stride);
            stride = b.value("llvm.mul", &[stride, sizes[i]], Type::i64());
        }
    }
    let strides = strides.into_iter().map(|s| s.expect("every dim in a group")).collect();
    Ok(vec![with_sizes_and_strides(&mut b, &d, sizes, strides)])
}

/// Result dim i is source dim permutation[i], size and stride.
fn transpose(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let perm = permutation(rw.old, op).expect("verified permutation");
    let span = rw.old.ops[op].span;
    let ops = rw.operands(op)?;
    let mut b = rw.builder(span);
    let d = MemRefDescriptor { value: ops[0], rank: perm.len() };
    let sizes = perm.iter().map(|&p| d.size(&mut b, p)).collect();
    let strides = perm.iter().map(|&p| d.stride(&mut b, p)).collect();
    Ok(vec![with_sizes_and_strides(&mut b, &d, sizes, strides)])
}

fn rank(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let r = rank_of(rw, rw.old.ops[op].operands[0]);
    let span = rw.old.ops[op].span;
    Ok(vec![rw.builder(span).llvm_const(r as i64, Type::i64())])
}

/// The base is a rank-0 descriptor over the same pointers at offset 0.
fn extract_strided_metadata(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let r = rank_of(rw, rw.old.ops[op].operands[0]);
    let span = rw.old.ops[op].span;
    let ops = rw.operands(op)?;
    let mut b = rw.builder(span);
    let d = MemRefDescriptor { value: ops[0], rank: r };
    let zero = b.llvm_const(0, Type::i64());
    let (allocated, aligned) = (d.allocated_ptr(&mut b), d.aligned_ptr(&mut b));
    let base = MemRefDescriptor::pack(&mut b, 0, &[allocated, aligned, zero]).value;
    let mut out = vec![base, d.offset(&mut b)];
    out.extend((0..r).map(|i| d.size(&mut b, i)).collect::<Vec<_>>());
    out.extend((0..r).map(|i| d.stride(&mut b, i)).collect::<Vec<_>>());
    Ok(out)
}
