//! `convert-arith-to-llvm`: arith's operations to llvm instructions and intrinsics.

use super::{ConversionSet, Rewriter};
use crate::builder::Builder;
use xcc_ir::types::FloatKind;
use xcc_ir::{Attribute, Diagnostic, OpId, Type, ValueId};
use xcc_targets::MinMax;

pub const CONVERSION: ConversionSet = ConversionSet {
    name: "arith",
    one_to_one: &[
        ("arith.addi", "llvm.add"),
        ("arith.subi", "llvm.sub"),
        ("arith.muli", "llvm.mul"),
        ("arith.divsi", "llvm.sdiv"),
        ("arith.divui", "llvm.udiv"),
        ("arith.remsi", "llvm.srem"),
        ("arith.remui", "llvm.urem"),
        ("arith.andi", "llvm.and"),
        ("arith.ori", "llvm.or"),
        ("arith.xori", "llvm.xor"),
        ("arith.shli", "llvm.shl"),
        ("arith.shrsi", "llvm.ashr"),
        ("arith.shrui", "llvm.lshr"),
        ("arith.maxsi", "llvm.intr.smax"),
        ("arith.minsi", "llvm.intr.smin"),
        ("arith.maxui", "llvm.intr.umax"),
        ("arith.minui", "llvm.intr.umin"),
        ("arith.addf", "llvm.fadd"),
        ("arith.subf", "llvm.fsub"),
        ("arith.mulf", "llvm.fmul"),
        ("arith.divf", "llvm.fdiv"),
        ("arith.remf", "llvm.frem"),
        ("arith.negf", "llvm.fneg"),
        ("arith.maxnumf", "llvm.intr.maxnum"),
        ("arith.minnumf", "llvm.intr.minnum"),
        // The predicate encodings of arith and llvm comparisons are the same.
        ("arith.cmpi", "llvm.icmp"),
        ("arith.cmpf", "llvm.fcmp"),
        ("arith.select", "llvm.select"),
        ("arith.extsi", "llvm.sext"),
        ("arith.extui", "llvm.zext"),
        ("arith.trunci", "llvm.trunc"),
        ("arith.extf", "llvm.fpext"),
        ("arith.sitofp", "llvm.sitofp"),
        ("arith.uitofp", "llvm.uitofp"),
        ("arith.fptosi", "llvm.fptosi"),
        ("arith.fptoui", "llvm.fptoui"),
        ("arith.bitcast", "llvm.bitcast"),
    ],
    patterns: &[
        ("arith.constant", constant),
        ("arith.maximumf", min_max),
        ("arith.minimumf", min_max),
        ("arith.truncf", truncf),
        ("arith.index_cast", index_cast),
        ("arith.index_castui", index_cast),
        ("arith.floordivsi", rounded_division),
        ("arith.ceildivsi", rounded_division),
        ("arith.ceildivui", rounded_division),
        ("arith.addui_extended", add_extended),
        ("arith.mulsi_extended", mul_extended),
        ("arith.mului_extended", mul_extended),
    ],
};

pub(super) fn constant(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let t = rw.result_type(op, 0)?;
    let value = match rw.old.attr(op, "value").cloned().expect("verified") {
        Attribute::Integer { value, .. } => Attribute::Integer { value, ty: t.clone() },
        Attribute::Dense { values, .. } => Attribute::Dense { values, ty: t.clone() },
        v => v,
    };
    let span = rw.old.ops[op].span;
    Ok(vec![rw.builder(span).value_with("llvm.mlir.constant", &[], t, vec![("value".into(), value)])])
}

/// `fptrunc`, except to bf16: LLVM lowers that to a call (`__truncsfbf2`, `__truncdfbf2`) in
/// compiler-rt or a recent libgcc, which a C program does not link by default. There the f32
/// bits are rounded to the nearest bf16 in integers, ties to even, a NaN kept a quiet NaN (an
/// f64 goes through f32 first).
fn truncf(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let mut b = rw.builder(rw.old.ops[op].span);
    if *t.element_or_self() != Type::Float(FloatKind::BF16) {
        return Ok(vec![b.value("llvm.fptrunc", &ops, t)]);
    }
    let mut x = ops[0];
    if *b.m.ty(x).element_or_self() != Type::f32() {
        x = b.value("llvm.fptrunc", &[x], t.with_element(Type::f32()));
    }
    let (i32t, flags) = (t.with_element(Type::i32()), t.with_element(Type::i1()));
    let constant = |b: &mut Builder, v: i64| {
        let c = b.llvm_const(v, Type::i32());
        if matches!(t, Type::Vector { .. }) {
            super::vector_to_llvm::splat(b, c, &i32t)
        } else {
            c
        }
    };
    let (sixteen, one, half, quiet) =
        (constant(&mut b, 16), constant(&mut b, 1), constant(&mut b, 0x7fff), constant(&mut b, 0x40));
    let bits = b.value("llvm.bitcast", &[x], i32t.clone());
    let upper = b.value("llvm.lshr", &[bits, sixteen], i32t.clone());
    let odd = b.value("llvm.and", &[upper, one], i32t.clone());
    let bias = b.value("llvm.add", &[half, odd], i32t.clone());
    let biased = b.value("llvm.add", &[bits, bias], i32t.clone());
    let rounded = b.value("llvm.lshr", &[biased, sixteen], i32t.clone());
    let quiet_nan = b.value("llvm.or", &[upper, quiet], i32t.clone());
    let unordered = 14;
    let nan = b.value_with("llvm.fcmp", &[x, x], flags, predicate(unordered));
    let r = b.value("llvm.select", &[nan, quiet_nan, rounded], i32t);
    let r16 = b.value("llvm.trunc", &[r], t.with_element(Type::int(16)));
    Ok(vec![b.value("llvm.bitcast", &[r16], t)])
}

/// Between index (an integer of the pointer width) and an integer: extend or truncate.
pub(super) fn index_cast(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let signed = matches!(rw.old.ops[op].name.as_str(), "arith.index_cast" | "index.casts");
    let span = rw.old.ops[op].span;
    let mut b = rw.builder(span);
    let from = b.m.ty(ops[0]).element_or_self().int_width().unwrap_or(64);
    let to = t.element_or_self().int_width().unwrap_or(64);
    Ok(vec![match from.cmp(&to) {
        std::cmp::Ordering::Equal => ops[0],
        std::cmp::Ordering::Less => b.value(if signed { "llvm.sext" } else { "llvm.zext" }, &ops, t),
        std::cmp::Ordering::Greater => b.value("llvm.trunc", &ops, t),
    }])
}

pub(super) fn rounded_division(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    // The index dialect's divisions round as arith's of the same kind.
    let name = match rw.old.ops[op].name.as_str() {
        "index.ceildivs" => "arith.ceildivsi".to_string(),
        "index.ceildivu" => "arith.ceildivui".to_string(),
        "index.floordivs" => "arith.floordivsi".to_string(),
        n => n.to_string(),
    };
    let span = rw.old.ops[op].span;
    Ok(vec![div_round(&mut rw.builder(span), &name, ops[0], ops[1], t)])
}

/// `maximumf` / `minimumf`: LLVM's `maximum` / `minimum`, except on a target whose instructions
/// return their second operand for a NaN or two zeros ([`MinMax::SecondOperand`]: x86), where a
/// bound that is a constant (a ReLU's, a Clip's) makes it `select(x < c, c, x)` (`>` for the
/// minimum), one `vmaxps` returning `x` where it is NaN, as `maximumf` does. The two differ only
/// for zeros of opposite signs: the maximum with `+0` takes an add of `+0` after (turning a
/// `-0` into `+0`, every other value unchanged); a minimum with `-0` stays the intrinsic.
fn min_max(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let maximum = rw.old.ops[op].name == "arith.maximumf";
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let span = rw.old.ops[op].span;
    let old_operands = rw.old.ops[op].operands.clone();
    let second_operand = rw.options.target.info().min_max == MinMax::SecondOperand;
    let bound = (0..2)
        .filter(|_| second_operand)
        .find_map(|k| float_splat(rw.old, old_operands[k]).map(|c| (k, c)))
        .filter(|&(_, c)| !c.is_nan() && (maximum || c != 0.0 || c.is_sign_positive()));
    let mut b = rw.builder(span);
    let Some((k, c)) = bound else {
        let intrinsic = if maximum { "llvm.intr.maximum" } else { "llvm.intr.minimum" };
        return Ok(vec![b.value(intrinsic, &ops, t)]);
    };
    let (x, bound) = (ops[1 - k], ops[k]);
    let past = if maximum { "olt" } else { "ogt" };
    let table = xcc_ir::dialects::arith::CMPF_PREDICATES;
    let p = table.iter().position(|q| *q == past).expect("an fcmp predicate") as i64;
    let beyond = b.value_with("llvm.fcmp", &[x, bound], t.with_element(Type::i1()), predicate(p));
    let clamped = b.value("llvm.select", &[beyond, bound, x], t.clone());
    if maximum && c == 0.0 && c.is_sign_positive() {
        return Ok(vec![b.value("llvm.fadd", &[clamped, bound], t)]);
    }
    Ok(vec![clamped])
}

/// The value of an `arith.constant` float, or of a vector constant with one value in every lane.
fn float_splat(m: &xcc_ir::Module, v: ValueId) -> Option<f64> {
    let op = m.defining_op(v).filter(|&d| m.ops[d].name == "arith.constant")?;
    match m.attr(op, "value")? {
        Attribute::Float { value, .. } => Some(*value),
        Attribute::Dense { values: xcc_ir::attributes::DenseValues::Float(values), .. } => {
            let first = *values.first()?;
            values.iter().all(|v| v.to_bits() == first.to_bits()).then_some(first)
        }
        _ => None,
    }
}

fn predicate(p: i64) -> Vec<(String, Attribute)> {
    vec![("predicate".into(), Attribute::i64(p))]
}

/// `floordiv`/`ceildiv` from truncating division: adjust the quotient by one when the
/// remainder is non-zero and the signs call for it.
pub fn div_round(b: &mut Builder, name: &str, a: ValueId, d: ValueId, t: Type) -> ValueId {
    let (eq_ne, slt) = (1, 2);
    if name == "arith.ceildivui" {
        let q = b.value("llvm.udiv", &[a, d], t.clone());
        let r = b.value("llvm.urem", &[a, d], t.clone());
        let zero = b.llvm_const(0, t.clone());
        let nz = b.value_with("llvm.icmp", &[r, zero], Type::i1(), predicate(eq_ne));
        let one = b.llvm_const(1, t.clone());
        let q1 = b.value("llvm.add", &[q, one], t.clone());
        return b.value("llvm.select", &[nz, q1, q], t);
    }
    let q = b.value("llvm.sdiv", &[a, d], t.clone());
    let r = b.value("llvm.srem", &[a, d], t.clone());
    let zero = b.llvm_const(0, t.clone());
    let nz = b.value_with("llvm.icmp", &[r, zero], Type::i1(), predicate(eq_ne));
    // The signs differ when (r < 0) != (d < 0).
    let rneg = b.value_with("llvm.icmp", &[r, zero], Type::i1(), predicate(slt));
    let dneg = b.value_with("llvm.icmp", &[d, zero], Type::i1(), predicate(slt));
    let differ = b.value("llvm.xor", &[rneg, dneg], Type::i1());
    let one = b.llvm_const(1, t.clone());
    if name == "arith.floordivsi" {
        let adjust = b.value("llvm.and", &[nz, differ], Type::i1());
        let q1 = b.value("llvm.sub", &[q, one], t.clone());
        b.value("llvm.select", &[adjust, q1, q], t)
    } else {
        let yes = b.llvm_const(1, Type::i1());
        let same = b.value("llvm.xor", &[differ, yes], Type::i1());
        let adjust = b.value("llvm.and", &[nz, same], Type::i1());
        let q1 = b.value("llvm.add", &[q, one], t.clone());
        b.value("llvm.select", &[adjust, q1, q], t)
    }
}

/// LLVM's `uadd.with.overflow`, its struct taken apart.
fn add_extended(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let ops = rw.operands(op)?;
    let (t, carry) = (rw.result_type(op, 0)?, rw.result_type(op, 1)?);
    let pair = Type::LlvmStruct { packed: false, fields: vec![t.clone(), carry.clone()] };
    let mut b = rw.builder(rw.old.ops[op].span);
    let r = b.value("llvm.intr.uadd.with.overflow", &ops, pair);
    use super::memref_descriptor::position;
    let sum = b.value_with("llvm.extractvalue", &[r], t, position(&[0]));
    Ok(vec![sum, b.value_with("llvm.extractvalue", &[r], carry, position(&[1]))])
}

/// The product in twice the width (sign- or zero-extended operands): its low half, and its high
/// half shifted down.
fn mul_extended(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let span = rw.old.ops[op].span;
    let Type::Integer { width, .. } = *t.element_or_self() else {
        return Err(super::unsupported(span, format!("an extended multiplication of {t}")));
    };
    let wide = t.with_element(Type::int(2 * width));
    let ext = if rw.old.ops[op].name == "arith.mulsi_extended" { "llvm.sext" } else { "llvm.zext" };
    let mut b = rw.builder(span);
    let (x, y) = (b.value(ext, &[ops[0]], wide.clone()), b.value(ext, &[ops[1]], wide.clone()));
    let product = b.value("llvm.mul", &[x, y], wide.clone());
    let low = b.value("llvm.trunc", &[product], t.clone());
    let mut shift = b.llvm_const(i64::from(width), Type::int(2 * width));
    if wide != Type::int(2 * width) {
        shift = super::vector_to_llvm::splat(&mut b, shift, &wide);
    }
    let high = b.value("llvm.lshr", &[product, shift], wide);
    Ok(vec![low, b.value("llvm.trunc", &[high], t)])
}
