//! `math`: elementary functions on floats (and a few bit operations on integers).

use super::constraints::{self as c, operand_types, result_types};
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{OpDef, Syntax, VerifyFn};
use crate::parser::forms::{parse_opt_attr_dict, with_attrs, BINARY, TERNARY, UNARY};
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::Type;

const fn unary(name: &'static str, summary: &'static str, rule: VerifyFn) -> OpDef {
    OpDef::new(name, summary).operands(1).results(1).pure().verify(rule).syntax(UNARY)
}

const fn float_unary(name: &'static str, summary: &'static str) -> OpDef {
    unary(name, summary, c::same_float_like)
}

const fn float_binary(name: &'static str, summary: &'static str) -> OpDef {
    OpDef::new(name, summary).operands(2).results(1).pure().verify(c::same_float_like).syntax(BINARY)
}

pub const OPS: &[OpDef] = &[
    float_unary("math.sqrt", "square root"),
    float_unary("math.rsqrt", "reciprocal square root"),
    float_unary("math.cbrt", "cube root"),
    float_unary("math.exp", "e to the power x"),
    float_unary("math.exp2", "2 to the power x"),
    float_unary("math.expm1", "e^x - 1, exact near 0"),
    float_unary("math.log", "natural logarithm"),
    float_unary("math.log2", "base-2 logarithm"),
    float_unary("math.log10", "base-10 logarithm"),
    float_unary("math.log1p", "ln(1 + x), exact near 0"),
    float_unary("math.sin", "sine"),
    float_unary("math.cos", "cosine"),
    float_unary("math.tan", "tangent"),
    float_unary("math.asin", "arc sine"),
    float_unary("math.acos", "arc cosine"),
    float_unary("math.atan", "arc tangent"),
    float_unary("math.sinh", "hyperbolic sine"),
    float_unary("math.cosh", "hyperbolic cosine"),
    float_unary("math.tanh", "hyperbolic tangent"),
    float_unary("math.asinh", "inverse hyperbolic sine"),
    float_unary("math.acosh", "inverse hyperbolic cosine"),
    float_unary("math.atanh", "inverse hyperbolic tangent"),
    float_unary("math.erf", "the error function"),
    float_unary("math.erfc", "the complementary error function, 1 - erf(x)"),
    float_unary("math.absf", "absolute value"),
    float_unary("math.floor", "round down"),
    float_unary("math.ceil", "round up"),
    float_unary("math.round", "round half away from zero"),
    float_unary("math.roundeven", "round half to even"),
    float_unary("math.trunc", "round towards zero"),
    unary("math.absi", "integer absolute value (wrapping for the minimum)", c::same_int),
    unary("math.ctlz", "count leading zero bits", c::same_int),
    unary("math.cttz", "count trailing zero bits", c::same_int),
    unary("math.ctpop", "count set bits", c::same_int),
    float_binary("math.powf", "x to the power y"),
    float_binary("math.atan2", "the angle of the point (y, x)"),
    float_binary("math.copysign", "x's magnitude with y's sign"),
    OpDef::new("math.ipowi", "an integer to a non-negative integer power (a negative one gives 0, or ±1 for ±1)")
        .operands(2)
        .results(1)
        .pure()
        .verify(c::same_int)
        .syntax(BINARY),
    OpDef::new("math.fpowi", "a float to an integer power")
        .operands(2)
        .results(1)
        .pure()
        .verify(verify_fpowi)
        .syntax(Syntax::custom(parse_fpowi, Some(print_fpowi))),
    classify("math.isnan", "whether x is a NaN"),
    classify("math.isinf", "whether x is an infinity"),
    classify("math.isfinite", "whether x is neither an infinity nor a NaN"),
    classify("math.isnormal", "whether x is a normal number (not zero, subnormal, infinite or NaN)"),
    OpDef::new("math.sincos", "the sine and the cosine of x")
        .operands(1)
        .results(2)
        .pure()
        .verify(verify_sincos)
        .syntax(Syntax::custom(parse_sincos, Some(print_one_operand))),
    OpDef::new("math.fma", "fused multiply-add a * b + c, one rounding")
        .operands(3)
        .results(1)
        .pure()
        .verify(c::same_float_like)
        .syntax(TERNARY),
];

/// A test of a float's class: an i1 (or a vector of them) per element.
const fn classify(name: &'static str, summary: &'static str) -> OpDef {
    OpDef::new(name, summary)
        .operands(1)
        .results(1)
        .pure()
        .verify(verify_classify)
        .syntax(Syntax::custom(parse_classify, Some(print_one_operand)))
}

fn is_float_like(t: &Type) -> bool {
    t.element_or_self().is_float()
}

fn verify_classify(m: &Module, op: OpId) -> Result<(), String> {
    let (x, r) = (operand_types(m, op)[0], result_types(m, op)[0]);
    if !is_float_like(x) {
        return Err(format!("expects a floating-point operand, found {x}"));
    }
    if *r != x.with_element(Type::i1()) {
        return Err(format!("the result must be {}, not {r}", x.with_element(Type::i1())));
    }
    Ok(())
}

fn verify_fpowi(m: &Module, op: OpId) -> Result<(), String> {
    let (ins, r) = (operand_types(m, op), result_types(m, op)[0]);
    if !is_float_like(ins[0]) || ins[0] != r {
        return Err(format!("the base and the result must be one floating-point type, not {} and {r}", ins[0]));
    }
    if !ins[1].element_or_self().is_integer() || *ins[1] != ins[0].with_element(ins[1].element_or_self().clone()) {
        return Err(format!("the power must be an integer of the base's shape, not {}", ins[1]));
    }
    Ok(())
}

fn verify_sincos(m: &Module, op: OpId) -> Result<(), String> {
    let (x, r) = (operand_types(m, op)[0], result_types(m, op));
    if !is_float_like(x) || r.iter().any(|t| *t != x) {
        return Err(format!("takes a float and gives two of its type, not {x} -> {}, {}", r[0], r[1]));
    }
    Ok(())
}

/// `%x {attrs} : T`, the results' types following from T: `math.isnan` gives i1s of T's shape,
/// `math.sincos` two T.
fn parse_one_operand(p: &mut Parser, spec: OpSpec, results: impl Fn(&Type) -> Vec<Type>) -> PResult<OpSpec> {
    let x = p.parse_operand_ref()?;
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let t = p.parse_type()?;
    let spec = spec.operands([p.resolve(&x, &t)?]).results(results(&t));
    Ok(with_attrs(spec, attrs))
}

fn parse_classify(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    parse_one_operand(p, spec, |t| vec![t.with_element(Type::i1())])
}

fn parse_sincos(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    parse_one_operand(p, spec, |t| vec![t.clone(), t.clone()])
}

fn print_one_operand(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let x = m.ops[op].operands[0];
    p.value(x);
    p.attr_dict_except(op, &[]);
    p.word(" : ");
    p.ty(m.ty(x));
    Some(())
}

/// `%x, %n {attrs} : T, I`
fn parse_fpowi(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let x = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let n = p.parse_operand_ref()?;
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let t = p.parse_type()?;
    p.expect_punct(",")?;
    let nt = p.parse_type()?;
    let spec = spec.operands([p.resolve(&x, &t)?, p.resolve(&n, &nt)?]).results([t]);
    Ok(with_attrs(spec, attrs))
}

fn print_fpowi(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    p.values(&d.operands);
    p.attr_dict_except(op, &[]);
    p.word(" : ");
    p.types(&[m.ty(d.operands[0]), m.ty(d.operands[1])]);
    Some(())
}
