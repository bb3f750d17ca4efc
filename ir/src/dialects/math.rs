//! `math`: elementary functions on floats (and a few bit operations on integers).

use super::constraints as c;
use crate::op_def::{OpDef, VerifyFn};
use crate::parser::forms::{BINARY, TERNARY, UNARY};

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
    OpDef::new("math.fma", "fused multiply-add a * b + c, one rounding")
        .operands(3)
        .results(1)
        .pure()
        .verify(c::same_float_like)
        .syntax(TERNARY),
];
