//! `convert-vector-to-llvm`: vectors become LLVM's one-dimensional vectors (an n-D vector is
//! flattened row-major), loads and stores go through the memref's element address (masked ones
//! are LLVM's masked intrinsics, a mask the lane numbers compared with its count), and
//! reductions use LLVM's `vector.reduce.*` intrinsics.

use super::memref_descriptor::MemRefDescriptor;
use super::memref_to_llvm::natural_align;
use super::{unsupported, ConversionSet, Rewriter};
use crate::builder::Builder;
use xcc_ir::attributes::DenseValues;
use xcc_ir::{Attribute, Diagnostic, OpId, Type, ValueId};

pub const CONVERSION: ConversionSet = ConversionSet {
    name: "vector",
    // As upstream: vector.fma may fuse, so it is `fmuladd` (no libm call without FMA units).
    one_to_one: &[("vector.fma", "llvm.intr.fmuladd")],
    patterns: &[
        ("vector.load", load_store),
        ("vector.store", load_store),
        ("vector.broadcast", broadcast),
        ("vector.splat", broadcast),
        ("vector.extractelement", extract_element),
        ("vector.insertelement", insert_element),
        ("vector.extract", extract_insert),
        ("vector.insert", extract_insert),
        ("vector.reduction", reduction),
        ("vector.create_mask", create_mask),
        ("vector.shuffle", shuffle),
        ("vector.maskedload", masked),
        ("vector.maskedstore", masked),
    ],
};

fn load_store(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let is_load = rw.old.ops[op].name == "vector.load";
    let m = if is_load { 0 } else { 1 };
    let mt = rw.old.ty(rw.old.ops[op].operands[m]).as_memref().expect("verified memref").clone();
    let span = rw.old.ops[op].span;
    let elem = rw.types.convert(&mt.elem, span)?;
    let ops = rw.operands(op)?;
    let t = if is_load { Some(rw.result_type(op, 0)?) } else { None };
    let mut b = rw.builder(span);
    let d = MemRefDescriptor { value: ops[m], rank: mt.rank() };
    let addr = d.element_address(&mut b, &mt, &elem, &ops[m + 1..])?;
    let align = vec![("alignment".into(), Attribute::i64(natural_align(&elem)))];
    match t {
        Some(t) => Ok(vec![b.value_with("llvm.load", &[addr], t, align)]),
        None => {
            let mut spec = b.spec("llvm.store").operands([ops[0], addr]);
            spec.attrs = align;
            b.insert(spec);
            Ok(vec![])
        }
    }
}

/// A 1-D mask of `n` lanes set: the lane numbers compared with `n` clamped to [0, lanes], in
/// i32 as upstream (so an index past 2^31 cannot wrap into a small count).
fn create_mask(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let t = rw.result_type(op, 0)?;
    let span = rw.old.ops[op].span;
    // The source type: the converted one is flattened to one dimension.
    let source = rw.old.ty(rw.old.ops[op].results[0]).clone();
    if vector_shape(&source).len() != 1 {
        return Err(unsupported(span, format!("vector.create_mask of {source} (only 1-D masks lower)")));
    }
    let ops = rw.operands(op)?;
    let mut b = rw.builder(span);
    Ok(vec![lanes_below(&mut b, ops[0], t)])
}

/// The mask of type `t` (1-D i1) whose lanes below `n` (an i64) are set.
pub(super) fn lanes_below(b: &mut Builder, n: ValueId, t: Type) -> ValueId {
    let shape = vector_shape(&t);
    let lanes = shape[0] as i64;
    let (top, zero) = (b.llvm_const(lanes, Type::i64()), b.llvm_const(0, Type::i64()));
    let n = b.value("llvm.intr.smin", &[n, top], Type::i64());
    let n = b.value("llvm.intr.smax", &[n, zero], Type::i64());
    let n = b.value("llvm.trunc", &[n], Type::i32());
    let lane_t = Type::Vector { shape: shape.clone(), elem: Box::new(Type::i32()) };
    let numbers = Attribute::Dense { values: DenseValues::Int((0..lanes as i128).collect()), ty: lane_t.clone() };
    let numbers = b.value_with("llvm.mlir.constant", &[], lane_t.clone(), vec![("value".into(), numbers)]);
    let n = splat(b, n, &lane_t);
    let sgt = 4;
    let pred = vec![("predicate".into(), Attribute::i64(sgt))];
    b.value_with("llvm.icmp", &[n, numbers], t, pred)
}

/// `vector.shuffle` of 1-D vectors is `llvm.shufflevector` with the mask in i32.
fn shuffle(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let mask = rw.old.attr(op, "mask").and_then(Attribute::as_int_list).expect("verified");
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let span = rw.old.ops[op].span;
    let mut b = rw.builder(span);
    let mask = vec![("mask".into(), Attribute::DenseArray { elem: Type::i32(), values: mask })];
    Ok(vec![b.value_with("llvm.shufflevector", &[ops[0], ops[1]], t, mask)])
}

/// `vector.maskedload` / `vector.maskedstore`: LLVM's masked intrinsics at the element's address,
/// with the element's alignment; the lanes off in the mask are not accessed, and the address is
/// not `inbounds`, since the first lane may be off and outside the buffer.
fn masked(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let is_load = rw.old.ops[op].name == "vector.maskedload";
    let mt = rw.old.ty(rw.old.ops[op].operands[0]).as_memref().expect("verified memref").clone();
    let span = rw.old.ops[op].span;
    let mask_t = rw.old.ty(rw.old.ops[op].operands[rw.old.ops[op].operands.len() - 2]).clone();
    if vector_shape(&mask_t).len() != 1 {
        return Err(unsupported(
            span,
            format!("{} with a mask of {mask_t} (only 1-D vectors lower)", rw.old.ops[op].name),
        ));
    }
    let elem = rw.types.convert(&mt.elem, span)?;
    let ops = rw.operands(op)?;
    let (mask, value) = (ops[ops.len() - 2], ops[ops.len() - 1]);
    let t = if is_load { Some(rw.result_type(op, 0)?) } else { None };
    let mut b = rw.builder(span);
    let d = MemRefDescriptor { value: ops[0], rank: mt.rank() };
    let addr = d.address(&mut b, &mt, &elem, &ops[1..ops.len() - 2], false)?;
    let align = vec![("alignment".into(), Attribute::int(natural_align(&elem) as i128, Type::i32()))];
    match t {
        Some(t) => Ok(vec![b.value_with("llvm.intr.masked.load", &[addr, mask, value], t, align)]),
        None => {
            let mut spec = b.spec("llvm.intr.masked.store").operands([value, addr, mask]);
            spec.attrs = align;
            b.insert(spec);
            Ok(vec![])
        }
    }
}

fn broadcast(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let span = rw.old.ops[op].span;
    let mut b = rw.builder(span);
    Ok(vec![if b.m.ty(ops[0]) == &t { ops[0] } else { splat(&mut b, ops[0], &t) }])
}

fn vector_shape(t: &Type) -> Vec<u64> {
    match t {
        Type::Vector { shape, .. } => shape.clone(),
        _ => Vec::new(),
    }
}

fn extract_element(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let shape = vector_shape(rw.old.ty(rw.old.ops[op].operands[0]));
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let span = rw.old.ops[op].span;
    let mut b = rw.builder(span);
    let i = linear_position(&mut b, &shape, &ops[1..], &[]);
    Ok(vec![b.value("llvm.extractelement", &[ops[0], i], t)])
}

fn insert_element(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let span = rw.old.ops[op].span;
    let mut b = rw.builder(span);
    let i = if b.m.ty(ops[2]) == &Type::i64() { ops[2] } else { b.value("llvm.sext", &[ops[2]], Type::i64()) };
    Ok(vec![b.value("llvm.insertelement", &[ops[1], ops[0], i], t)])
}

fn extract_insert(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let old = rw.old;
    let name = old.ops[op].name.as_str();
    let is_insert = name == "vector.insert";
    let vec_operand = usize::from(is_insert);
    let shape = vector_shape(old.ty(old.ops[op].operands[vec_operand]));
    let statics = old.attr(op, "static_position").and_then(Attribute::as_int_list).unwrap_or_default();
    let span = old.ops[op].span;
    if statics.len() != shape.len() {
        return Err(unsupported(
            span,
            format!("'{name}' of a sub-vector (position of {} of {} dimensions)", statics.len(), shape.len()),
        ));
    }
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let mut b = rw.builder(span);
    let i = linear_position(&mut b, &shape, &ops[vec_operand + 1..], &statics);
    Ok(vec![if is_insert {
        b.value("llvm.insertelement", &[ops[1], ops[0], i], t)
    } else {
        b.value("llvm.extractelement", &[ops[0], i], t)
    }])
}

fn reduction(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let kind = xcc_ir::dialects::vector::reduction_kind(rw.old, op).unwrap_or_else(|| "add".into());
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let span = rw.old.ops[op].span;
    let is_float = t.is_float();
    let intrinsic = match (kind.as_str(), is_float) {
        ("add", true) => "llvm.intr.vector.reduce.fadd",
        ("mul", true) => "llvm.intr.vector.reduce.fmul",
        ("maxnumf" | "maximumf", true) => "llvm.intr.vector.reduce.fmax",
        ("minnumf" | "minimumf", true) => "llvm.intr.vector.reduce.fmin",
        ("add", false) => "llvm.intr.vector.reduce.add",
        ("mul", false) => "llvm.intr.vector.reduce.mul",
        ("maxsi", false) => "llvm.intr.vector.reduce.smax",
        ("minsi", false) => "llvm.intr.vector.reduce.smin",
        ("maxui", false) => "llvm.intr.vector.reduce.umax",
        ("minui", false) => "llvm.intr.vector.reduce.umin",
        ("and", false) => "llvm.intr.vector.reduce.and",
        ("or", false) => "llvm.intr.vector.reduce.or",
        ("xor", false) => "llvm.intr.vector.reduce.xor",
        _ => return Err(unsupported(span, format!("vector.reduction <{kind}> on {t}"))),
    };
    let mut b = rw.builder(span);
    if matches!(kind.as_str(), "add" | "mul") && is_float {
        let start = float_const(&mut b, if kind == "add" { -0.0 } else { 1.0 }, &t);
        Ok(vec![b.value_with(intrinsic, &[start, ops[0]], t, vec![("reassoc".into(), Attribute::Unit)])])
    } else {
        Ok(vec![b.value(intrinsic, &ops, t)])
    }
}

/// The row-major position in a flattened vector: static entries from `statics`
/// (`i64::MIN` marks a dynamic one, taken from `dynamic` in order) or, without statics, all
/// from `dynamic`.
fn linear_position(b: &mut Builder, shape: &[u64], dynamic: &[ValueId], statics: &[i128]) -> ValueId {
    let mut next = dynamic.iter();
    let mut acc = b.llvm_const(0, Type::i64());
    for d in 0..shape.len() {
        let stride = shape[d + 1..].iter().product::<u64>() as i64;
        let idx = match statics.get(d) {
            Some(&s) if s != i64::MIN as i128 => b.llvm_const(s as i64, Type::i64()),
            _ => match next.next() {
                Some(&v) => v,
                None => b.llvm_const(0, Type::i64()),
            },
        };
        let sv = b.llvm_const(stride, Type::i64());
        let m = b.value("llvm.mul", &[idx, sv], Type::i64());
        acc = b.value("llvm.add", &[acc, m], Type::i64());
    }
    acc
}

/// A float constant of a scalar or vector type (a splat).
pub fn float_const(b: &mut Builder, v: f64, t: &Type) -> ValueId {
    let value = match t {
        Type::Vector { .. } => Attribute::Dense { values: DenseValues::Float(vec![v]), ty: t.clone() },
        _ => Attribute::Float { value: v, ty: t.clone() },
    };
    b.value_with("llvm.mlir.constant", &[], t.clone(), vec![("value".into(), value)])
}

/// A vector with every lane `scalar`: insert into lane 0, then shuffle lane 0 everywhere.
pub fn splat(b: &mut Builder, scalar: ValueId, vt: &Type) -> ValueId {
    let undef = b.value("llvm.mlir.poison", &[], vt.clone());
    let zero = b.llvm_const(0, Type::i32());
    let ins = b.value("llvm.insertelement", &[undef, scalar, zero], vt.clone());
    let n = match vt {
        Type::Vector { shape, .. } => shape[0],
        _ => 1,
    };
    shufflevector(b, ins, ins, vt.clone(), std::iter::repeat_n(0, n as usize))
}

/// `llvm.shufflevector` of `a` and `c` into `t`, lane k taking lane `picks[k]` of the two (`c`'s
/// lanes numbered after `a`'s).
pub(super) fn shufflevector(
    b: &mut Builder,
    a: ValueId,
    c: ValueId,
    t: Type,
    picks: impl IntoIterator<Item = u64>,
) -> ValueId {
    let mask = Attribute::DenseArray { elem: Type::i32(), values: picks.into_iter().map(i128::from).collect() };
    b.value_with("llvm.shufflevector", &[a, c], t, vec![("mask".into(), mask)])
}
