//! `convert-math-to-llvm`: math's functions to LLVM intrinsics where LLVM has one, otherwise to
//! calls into the C library (`erff`, `cbrtf`, ...), declared in the module.

use super::{unsupported, ConversionSet, Rewriter};
use xcc_ir::types::FloatKind;
use xcc_ir::{Attribute, Diagnostic, OpId, Type, ValueId};

/// Whether LLVM's NVPTX backend has code for math op `name` on elements of type `elem` without a
/// library (it has no libdevice here): rounding, roots, absolute values, fused multiply-adds,
/// bit counts, classification, and `exp2` of f32. Others (log, sin, pow, f64 exp, ...) would stop
/// LLVM with "cannot select" or an unresolved call; `math-polynomial-approximation` turns f32
/// exp, erf and tanh into arithmetic before this is asked.
pub fn gpu_supports(name: &str, elem: &Type) -> bool {
    let always = [
        "math.sqrt",
        "math.rsqrt",
        "math.absf",
        "math.absi",
        "math.floor",
        "math.ceil",
        "math.trunc",
        "math.round",
        "math.roundeven",
        "math.fma",
        "math.copysign",
        "math.ctpop",
        "math.ctlz",
        "math.cttz",
        "math.isnan",
        "math.isinf",
        "math.isfinite",
        "math.isnormal",
        "math.ipowi",
    ];
    always.contains(&name) || (name == "math.exp2" && *elem == Type::f32())
}

pub const CONVERSION: ConversionSet = ConversionSet {
    name: "math",
    one_to_one: &[
        ("math.sqrt", "llvm.intr.sqrt"),
        ("math.exp", "llvm.intr.exp"),
        ("math.exp2", "llvm.intr.exp2"),
        ("math.log", "llvm.intr.log"),
        ("math.log2", "llvm.intr.log2"),
        ("math.log10", "llvm.intr.log10"),
        ("math.sin", "llvm.intr.sin"),
        ("math.cos", "llvm.intr.cos"),
        ("math.tan", "llvm.intr.tan"),
        ("math.asin", "llvm.intr.asin"),
        ("math.acos", "llvm.intr.acos"),
        ("math.atan", "llvm.intr.atan"),
        ("math.sinh", "llvm.intr.sinh"),
        ("math.cosh", "llvm.intr.cosh"),
        ("math.tanh", "llvm.intr.tanh"),
        ("math.absf", "llvm.intr.fabs"),
        ("math.floor", "llvm.intr.floor"),
        ("math.ceil", "llvm.intr.ceil"),
        ("math.round", "llvm.intr.round"),
        ("math.roundeven", "llvm.intr.roundeven"),
        ("math.trunc", "llvm.intr.trunc"),
        ("math.powf", "llvm.intr.pow"),
        ("math.atan2", "llvm.intr.atan2"),
        ("math.copysign", "llvm.intr.copysign"),
        ("math.fma", "llvm.intr.fma"),
        ("math.ctpop", "llvm.intr.ctpop"),
        ("math.fpowi", "llvm.intr.powi"),
    ],
    patterns: &[
        ("math.rsqrt", rsqrt),
        ("math.erf", libm_call),
        ("math.erfc", libm_call),
        ("math.isnan", classify),
        ("math.isinf", classify),
        ("math.isfinite", classify),
        ("math.isnormal", classify),
        ("math.sincos", sincos),
        ("math.ipowi", ipowi),
        ("math.cbrt", libm_call),
        ("math.expm1", libm_call),
        ("math.log1p", libm_call),
        ("math.asinh", libm_call),
        ("math.acosh", libm_call),
        ("math.atanh", libm_call),
        ("math.absi", with_false_flag),
        ("math.ctlz", with_false_flag),
        ("math.cttz", with_false_flag),
    ],
};

/// `1 / sqrt(x)`
fn rsqrt(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let span = rw.old.ops[op].span;
    let mut b = rw.builder(span);
    let s = b.value("llvm.intr.sqrt", &ops, t.clone());
    let one = super::vector_to_llvm::float_const(&mut b, 1.0, &t);
    Ok(vec![b.value("llvm.fdiv", &[one, s], t)])
}

/// A C library function on a scalar: `erff` for f32, `erf` for f64.
fn libm_call(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let span = rw.old.ops[op].span;
    let name = rw.old.ops[op].name.trim_start_matches("math.");
    let f = match t {
        Type::Float(FloatKind::F64) => name.to_string(),
        Type::Float(FloatKind::F32) => format!("{name}f"),
        _ => return Err(unsupported(span, format!("math.{name} on {t} (the C library's {name} takes f32 or f64)"))),
    };
    rw.declare(&f, vec![t.clone()], vec![t.clone()]);
    let spec = rw.builder(span).spec("llvm.call").operands(ops).results([t]).attr("callee", Attribute::symbol(f));
    let call = rw.builder(span).insert(spec);
    Ok(rw.new.ops[call].results.clone())
}

/// `llvm.abs`/`ctlz`/`cttz` take an `i1` immediate saying whether the edge case (the minimum,
/// zero) is poison; math's operations define it, so the flag is false.
fn with_false_flag(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let span = rw.old.ops[op].span;
    let intrinsic = match rw.old.ops[op].name.as_str() {
        "math.absi" => "llvm.intr.abs",
        "math.ctlz" => "llvm.intr.ctlz",
        _ => "llvm.intr.cttz",
    };
    let mut b = rw.builder(span);
    let no = b.llvm_const(0, Type::i1());
    Ok(vec![b.value(intrinsic, &[ops[0], no], t)])
}

/// `llvm.is.fpclass` with the test's classes (LLVM's bits: 0-1 NaNs, 2 -inf, 3 -normal,
/// 4 -subnormal, 5 -0, 6 +0, 7 +subnormal, 8 +normal, 9 +inf).
fn classify(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let mask = match rw.old.ops[op].name.as_str() {
        "math.isnan" => 0b11,
        "math.isinf" => 0b10_0000_0100,
        "math.isfinite" => 0b01_1111_1000,
        _ => 0b01_0000_1000,
    };
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let span = rw.old.ops[op].span;
    let bit = vec![("bit".into(), Attribute::int(mask, Type::int(32)))];
    Ok(vec![rw.builder(span).value_with("llvm.intr.is.fpclass", &ops, t, bit)])
}

fn sincos(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let mut b = rw.builder(rw.old.ops[op].span);
    Ok(vec![b.value("llvm.intr.sin", &ops, t.clone()), b.value("llvm.intr.cos", &ops, t)])
}

/// `x^n` by squaring, without branches: for each bit k of n, the result is multiplied by
/// x^(2^k) where the bit is set. A negative n gives 1 for x = 1, ±1 for x = -1 (by n's parity)
/// and 0 otherwise (upstream's convert-math-to-funcs has x = 0 divide by zero there; 0 here).
fn ipowi(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let span = rw.old.ops[op].span;
    let Type::Integer { width, .. } = t else {
        return Err(unsupported(span, format!("math.ipowi on {t} (scalars only)")));
    };
    let (x, n) = (ops[0], ops[1]);
    let mut b = rw.builder(span);
    let cmp = |b: &mut crate::builder::Builder, pred: i64, l: ValueId, r: ValueId| {
        b.value_with("llvm.icmp", &[l, r], Type::i1(), vec![("predicate".into(), Attribute::i64(pred))])
    };
    let (zero, one) = (b.llvm_const(0, t.clone()), b.llvm_const(1, t.clone()));
    let (mut result, mut base) = (one, x);
    for k in 0..width {
        let shift = b.llvm_const(i64::from(k), t.clone());
        let shifted = b.value("llvm.lshr", &[n, shift], t.clone());
        let bit = b.value("llvm.and", &[shifted, one], t.clone());
        let set = cmp(&mut b, 1, bit, zero);
        let times = b.value("llvm.mul", &[result, base], t.clone());
        result = b.value("llvm.select", &[set, times, result], t.clone());
        base = b.value("llvm.mul", &[base, base], t.clone());
    }
    // n < 0: 1 for x = 1; for x = -1, -1 where n is odd; else 0.
    let minus_one = b.llvm_const(-1, t.clone());
    let odd = b.value("llvm.and", &[n, one], t.clone());
    let is_odd = cmp(&mut b, 1, odd, zero);
    let sign = b.value("llvm.select", &[is_odd, minus_one, one], t.clone());
    let x_is_one = cmp(&mut b, 0, x, one);
    let x_is_minus_one = cmp(&mut b, 0, x, minus_one);
    let small = b.value("llvm.select", &[x_is_minus_one, sign, zero], t.clone());
    let negative_power = b.value("llvm.select", &[x_is_one, one, small], t.clone());
    let negative = cmp(&mut b, 2, n, zero);
    Ok(vec![b.value("llvm.select", &[negative, negative_power, result], t)])
}
