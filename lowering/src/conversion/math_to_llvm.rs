//! `convert-math-to-llvm`: math's functions to LLVM intrinsics where LLVM has one, otherwise to
//! calls into the C library (`erff`, `cbrtf`, ...), declared in the module.

use super::{unsupported, ConversionSet, Rewriter};
use xcc_ir::types::FloatKind;
use xcc_ir::{Attribute, Diagnostic, OpId, Type, ValueId};

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
    ],
    patterns: &[
        ("math.rsqrt", rsqrt),
        ("math.erf", libm_call),
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
