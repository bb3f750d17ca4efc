//! Activations: Sigmoid, Relu, LeakyRelu, Elu, Selu, HardSigmoid, HardSwish, Softplus, Gelu,
//! Clip (bounds from attributes, constant inputs or inputs read at run time) and PRelu (a broadcast slope).

use super::math::erf;
use super::{c, op, Element, ElementwiseOp as Op, Emit};
use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use std::f64::consts::{FRAC_1_SQRT_2, PI, SQRT_2};
use xcc_ir::ValueId;

/// Selu's defaults.
const SELU_ALPHA: f32 = 1.673_263_2;
const SELU_GAMMA: f32 = 1.050_701;

pub const OPS: &[Op] = &[
    Op::new("Sigmoid", Emit::Custom(sigmoid), |_, a| 1.0 / (1.0 + (-a[0]).exp())),
    Op::new("Relu", Emit::Custom(relu), |_, a| a[0].max(0.0)),
    Op::new(
        "LeakyRelu",
        Emit::Custom(leaky_relu),
        |el, a| if a[0] < 0.0 { el.attr("alpha", 0.01) * a[0] } else { a[0] },
    ),
    Op::new(
        "Elu",
        Emit::Custom(elu),
        |el, a| if a[0] < 0.0 { el.attr("alpha", 1.0) * (a[0].exp() - 1.0) } else { a[0] },
    ),
    Op::new("Selu", Emit::Custom(selu), |el, a| {
        let (alpha, gamma) = (el.attr("alpha", SELU_ALPHA), el.attr("gamma", SELU_GAMMA));
        if a[0] <= 0.0 {
            gamma * (alpha * a[0].exp() - alpha)
        } else {
            gamma * a[0]
        }
    }),
    Op::new("HardSigmoid", Emit::Custom(hard_sigmoid), |el, a| {
        (el.attr("alpha", 0.2) * a[0] + el.attr("beta", 0.5)).clamp(0.0, 1.0)
    }),
    Op::new("HardSwish", Emit::Custom(hard_swish), |_, a| a[0] * (a[0] / 6.0 + 0.5).clamp(0.0, 1.0)),
    Op::new("Softplus", Emit::Custom(softplus), |_, a| (1.0 + a[0].exp()).ln()),
    Op::new("Gelu", Emit::Custom(gelu), |el, a| {
        let x = a[0];
        if el.node.string("approximate") == Some("tanh") {
            0.5 * x * (1.0 + ((2.0 / PI).sqrt() * (x + 0.044715 * x * x * x)).tanh())
        } else {
            0.5 * x * (1.0 + erf(x / SQRT_2))
        }
    }),
    Op::new("Clip", Emit::Custom(clip), |el, a| a[0].max(el.params[0]).min(el.params[1])).one_data_input(),
    Op::new("PRelu", Emit::Custom(prelu), |_, a| if a[0] < 0.0 { a[0] * a[1] } else { a[0] }),
];

fn float_only(el: &Element) -> OResult<()> {
    if el.float() {
        Ok(())
    } else {
        el.unsupported()
    }
}

fn sigmoid(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    float_only(el)?;
    let n = op(e, el, "arith.negf", a);
    let ex = op(e, el, "math.exp", &[n]);
    let one = c(e, el, 1.0);
    let d = op(e, el, "arith.addf", &[one, ex]);
    Ok(op(e, el, "arith.divf", &[one, d]))
}

/// `max(x, 0)`: `arith.maximumf` for floats, which `kernel-fuse-epilogue` recognizes as a clamp.
fn relu(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    let z = c(e, el, 0.0);
    Ok(op(e, el, if el.float() { "arith.maximumf" } else { "arith.maxsi" }, &[a[0], z]))
}

fn leaky_relu(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    float_only(el)?;
    let (z, alpha) = (c(e, el, 0.0), c(e, el, el.attr("alpha", 0.01)));
    let neg = op(e, el, "arith.mulf", &[alpha, a[0]]);
    let lt = e.cmpf("olt", a[0], z);
    Ok(op(e, el, "arith.select", &[lt, neg, a[0]]))
}

/// `alpha * (exp(x) - 1)`, Elu's and Selu's negative side.
fn exp_minus_one(e: &mut Emitter, el: &Element, x: ValueId, alpha: f64) -> ValueId {
    let ex = op(e, el, "math.exp", &[x]);
    let one = c(e, el, 1.0);
    let em = op(e, el, "arith.subf", &[ex, one]);
    let alpha = c(e, el, alpha);
    op(e, el, "arith.mulf", &[alpha, em])
}

fn elu(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    float_only(el)?;
    let neg = exp_minus_one(e, el, a[0], el.attr("alpha", 1.0));
    let z = c(e, el, 0.0);
    let lt = e.cmpf("olt", a[0], z);
    Ok(op(e, el, "arith.select", &[lt, neg, a[0]]))
}

fn selu(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    float_only(el)?;
    let neg = exp_minus_one(e, el, a[0], el.attr("alpha", SELU_ALPHA));
    let z = c(e, el, 0.0);
    let le = e.cmpf("ole", a[0], z);
    let r = op(e, el, "arith.select", &[le, neg, a[0]]);
    let gamma = c(e, el, el.attr("gamma", SELU_GAMMA));
    Ok(op(e, el, "arith.mulf", &[gamma, r]))
}

/// `clamp(alpha * x + beta, 0, 1)`.
fn hard_step(e: &mut Emitter, el: &Element, x: ValueId, alpha: f64, beta: f64) -> ValueId {
    let (alpha, beta) = (c(e, el, alpha), c(e, el, beta));
    let m = op(e, el, "arith.mulf", &[alpha, x]);
    let s = op(e, el, "arith.addf", &[m, beta]);
    let (z, one) = (c(e, el, 0.0), c(e, el, 1.0));
    let lo = op(e, el, "arith.maximumf", &[s, z]);
    op(e, el, "arith.minimumf", &[lo, one])
}

fn hard_sigmoid(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    float_only(el)?;
    Ok(hard_step(e, el, a[0], el.attr("alpha", 0.2), el.attr("beta", 0.5)))
}

fn hard_swish(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    float_only(el)?;
    let h = hard_step(e, el, a[0], 1.0 / 6.0, 0.5);
    Ok(op(e, el, "arith.mulf", &[a[0], h]))
}

fn softplus(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    float_only(el)?;
    let ex = op(e, el, "math.exp", a);
    let one = c(e, el, 1.0);
    let s = op(e, el, "arith.addf", &[one, ex]);
    Ok(op(e, el, "math.log", &[s]))
}

/// `0.5 x (1 + erf(x / sqrt 2))`, or with `approximate = "tanh"`
/// `0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))`.
fn gelu(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    float_only(el)?;
    let x = a[0];
    let inner = if el.node.string("approximate") == Some("tanh") {
        let (k, q) = (c(e, el, (2.0 / PI).sqrt()), c(e, el, 0.044715));
        let x2 = op(e, el, "arith.mulf", &[x, x]);
        let x3 = op(e, el, "arith.mulf", &[x2, x]);
        let t1 = op(e, el, "arith.mulf", &[q, x3]);
        let t2 = op(e, el, "arith.addf", &[x, t1]);
        let t3 = op(e, el, "arith.mulf", &[k, t2]);
        op(e, el, "math.tanh", &[t3])
    } else {
        let r = c(e, el, FRAC_1_SQRT_2);
        let scaled = op(e, el, "arith.mulf", &[x, r]);
        op(e, el, "math.erf", &[scaled])
    };
    let (half, one) = (c(e, el, 0.5), c(e, el, 1.0));
    let s = op(e, el, "arith.addf", &[one, inner]);
    let h = op(e, el, "arith.mulf", &[half, x]);
    Ok(op(e, el, "arith.mulf", &[h, s]))
}

/// Only the finite bounds are applied.
fn clip(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    let mut v = a[0];
    let (max, min) = if el.float() { ("arith.maximumf", "arith.minimumf") } else { ("arith.maxsi", "arith.minsi") };
    if el.param_given(0, f64::NEG_INFINITY) {
        let lo = el.param(e, 0);
        v = op(e, el, max, &[v, lo]);
    }
    if el.param_given(1, f64::INFINITY) {
        let hi = el.param(e, 1);
        v = op(e, el, min, &[v, hi]);
    }
    Ok(v)
}

fn prelu(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    float_only(el)?;
    let z = c(e, el, 0.0);
    let lt = e.cmpf("olt", a[0], z);
    let m = op(e, el, "arith.mulf", &[a[0], a[1]]);
    Ok(op(e, el, "arith.select", &[lt, m, a[0]]))
}
