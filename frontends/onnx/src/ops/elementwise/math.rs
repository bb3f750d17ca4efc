//! Unary math: Neg, Abs, Sqrt, Reciprocal, Exp, Log, the trigonometric and hyperbolic functions
//! and their inverses, Erf, Tanh, Floor, Ceil, Round, Sign, IsNaN and IsInf.

use super::{c, on_dims, op, Element, ElementwiseOp as Op, Emit, Output};
use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use xcc_ir::{Type, ValueId};

pub const OPS: &[Op] = &[
    Op::new("Neg", Emit::Custom(neg), |_, a| -a[0]).on_dims(on_dims::neg),
    Op::new("Abs", Emit::Custom(abs), |_, a| a[0].abs()).on_dims(on_dims::abs),
    Op::new("Sqrt", Emit::Unary("math.sqrt"), |_, a| a[0].sqrt()),
    Op::new("Reciprocal", Emit::Custom(reciprocal), |_, a| 1.0 / a[0]),
    Op::new("Exp", Emit::Unary("math.exp"), |_, a| a[0].exp()),
    Op::new("Log", Emit::Unary("math.log"), |_, a| a[0].ln()),
    Op::new("Sin", Emit::Unary("math.sin"), |_, a| a[0].sin()),
    Op::new("Cos", Emit::Unary("math.cos"), |_, a| a[0].cos()),
    Op::new("Tan", Emit::Unary("math.tan"), |_, a| a[0].tan()),
    Op::new("Asin", Emit::Unary("math.asin"), |_, a| a[0].asin()),
    Op::new("Acos", Emit::Unary("math.acos"), |_, a| a[0].acos()),
    Op::new("Atan", Emit::Unary("math.atan"), |_, a| a[0].atan()),
    Op::new("Sinh", Emit::Unary("math.sinh"), |_, a| a[0].sinh()),
    Op::new("Cosh", Emit::Unary("math.cosh"), |_, a| a[0].cosh()),
    Op::new("Asinh", Emit::Unary("math.asinh"), |_, a| a[0].asinh()),
    Op::new("Acosh", Emit::Unary("math.acosh"), |_, a| a[0].acosh()),
    Op::new("Atanh", Emit::Unary("math.atanh"), |_, a| a[0].atanh()),
    Op::new("Erf", Emit::Unary("math.erf"), |_, a| erf(a[0])),
    Op::new("Tanh", Emit::Unary("math.tanh"), |_, a| a[0].tanh()),
    Op::new("Floor", Emit::Unary("math.floor"), |_, a| a[0].floor()),
    Op::new("Ceil", Emit::Unary("math.ceil"), |_, a| a[0].ceil()),
    Op::new("Round", Emit::Unary("math.roundeven"), |_, a| a[0].round_ties_even()),
    Op::new("Sign", Emit::Custom(sign), |_, a| {
        if a[0] > 0.0 {
            1.0
        } else if a[0] < 0.0 {
            -1.0
        } else {
            0.0
        }
    }),
    Op::new("IsNaN", Emit::Custom(is_nan), |_, a| a[0].is_nan() as i32 as f64).output(Output::Bool),
    Op::new("IsInf", Emit::Custom(is_inf), |el, a| {
        let (neg, pos) = (el.attr("detect_negative", 1.0) != 0.0, el.attr("detect_positive", 1.0) != 0.0);
        ((a[0] == f64::INFINITY && pos) || (a[0] == f64::NEG_INFINITY && neg)) as i32 as f64
    })
    .output(Output::Bool),
];

fn is_nan(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    if !el.float() {
        return el.unsupported();
    }
    Ok(e.cmpf("uno", a[0], a[0]))
}

/// Equal to +inf or -inf, as detect_positive and detect_negative ask.
fn is_inf(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    if !el.float() {
        return el.unsupported();
    }
    let mut hits = Vec::new();
    for (attr, inf) in [("detect_positive", f64::INFINITY), ("detect_negative", f64::NEG_INFINITY)] {
        if el.attr(attr, 1.0) != 0.0 {
            let v = c(e, el, inf);
            hits.push(e.cmpf("oeq", a[0], v));
        }
    }
    Ok(match hits[..] {
        [] => e.const_int(0, Type::i1()),
        [one] => one,
        [a, b] => e.value_op("arith.ori", &[a, b], Type::i1()),
        _ => unreachable!("two attributes"),
    })
}

fn neg(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    if el.float() {
        return Ok(op(e, el, "arith.negf", a));
    }
    let z = c(e, el, 0.0);
    Ok(op(e, el, "arith.subi", &[z, a[0]]))
}

fn abs(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    if el.float() {
        return Ok(op(e, el, "math.absf", a));
    }
    let z = c(e, el, 0.0);
    let n = op(e, el, "arith.subi", &[z, a[0]]);
    Ok(op(e, el, "arith.maxsi", &[a[0], n]))
}

fn reciprocal(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    if !el.float() {
        return el.unsupported();
    }
    let one = c(e, el, 1.0);
    Ok(op(e, el, "arith.divf", &[one, a[0]]))
}

fn sign(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    let (z, one, minus_one) = (c(e, el, 0.0), c(e, el, 1.0), c(e, el, -1.0));
    let (gt, lt) = if el.float() {
        (e.cmpf("ogt", a[0], z), e.cmpf("olt", a[0], z))
    } else {
        (e.cmpi("sgt", a[0], z), e.cmpi("slt", a[0], z))
    };
    let s = op(e, el, "arith.select", &[lt, minus_one, z]);
    Ok(op(e, el, "arith.select", &[gt, one, s]))
}

/// The error function in f64 for folding: the Maclaurin series below 2.5 (where it converges
/// quickly), a continued fraction for erfc above.
pub fn erf(x: f64) -> f64 {
    if x.abs() < 2.5 {
        let mut sum = x;
        let mut term = x;
        let x2 = x * x;
        for n in 1..80 {
            term *= -x2 / n as f64;
            sum += term / (2 * n + 1) as f64;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        let ax = x.abs();
        let mut f = 0.0;
        for n in (1..60).rev() {
            f = n as f64 / 2.0 / (ax + f);
        }
        let erfc = (-ax * ax).exp() / std::f64::consts::PI.sqrt() / (ax + f);
        (1.0 - erfc) * x.signum()
    }
}
