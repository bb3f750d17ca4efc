//! Activations: Sigmoid, Relu, LeakyRelu, Elu, Selu, HardSigmoid, HardSwish, Softplus, Gelu,
//! Softsign, ThresholdedRelu, Celu, Mish, Swish, SwiGLU, Shrink,
//! Clip (bounds from attributes, constant inputs or inputs read at run time) and PRelu (a broadcast slope).

use super::math::erf;
use super::{c, op, Element, ElementwiseOp as Op, Emit};
use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::schema::{Group, Schema};
use std::f64::consts::{FRAC_1_SQRT_2, PI, SQRT_2};
use xcc_ir::ValueId;

/// Selu's defaults.
const SELU_ALPHA: f32 = 1.673_263_2;
const SELU_GAMMA: f32 = 1.050_701;

pub const OPS: &[Op] =
    &[
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
        Op::new("Softsign", Emit::Custom(softsign), |_, a| a[0] / (1.0 + a[0].abs())),
        Op::new("ThresholdedRelu", Emit::Custom(thresholded_relu), |el, a| {
            if a[0] > el.attr("alpha", 1.0) {
                a[0]
            } else {
                0.0
            }
        }),
        Op::new("Celu", Emit::Custom(celu), |el, a| {
            let alpha = el.attr("alpha", 1.0);
            a[0].max(0.0) + (alpha * ((a[0] / alpha).exp() - 1.0)).min(0.0)
        }),
        Op::new("Mish", Emit::Custom(mish), |_, a| a[0] * (1.0 + a[0].exp()).ln().tanh()),
        Op::new("Swish", Emit::Custom(swish), |el, a| a[0] / (1.0 + (-el.attr("alpha", 1.0) * a[0]).exp())),
        Op::new("Shrink", Emit::Custom(shrink), |el, a| {
            let (lambd, bias) = (el.attr("lambd", 0.5), el.attr("bias", 0.0));
            if a[0] < -lambd {
                a[0] + bias
            } else if a[0] > lambd {
                a[0] - bias
            } else {
                0.0
            }
        }),
        Op::new("SwiGLU", Emit::Custom(swiglu), |el, a| a[0] / (1.0 + (-el.attr("alpha", 1.0) * a[0]).exp()) * a[1])
            .schema(Schema::exactly(2)),
        Op::new("Clip", Emit::Custom(clip), |el, a| a[0].max(el.params[0]).min(el.params[1]))
            .schema(Schema::inputs(1, 3).same_type(Group::All))
            .one_data_input(),
        Op::new("PRelu", Emit::Custom(prelu), |_, a| if a[0] < 0.0 { a[0] * a[1] } else { a[0] })
            .schema(Schema::exactly(2).same_type(Group::All)),
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

/// `x / (1 + |x|)`.
fn softsign(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    float_only(el)?;
    let abs = op(e, el, "math.absf", a);
    let one = c(e, el, 1.0);
    let d = op(e, el, "arith.addf", &[one, abs]);
    Ok(op(e, el, "arith.divf", &[a[0], d]))
}

/// `x` above alpha, else 0.
fn thresholded_relu(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    float_only(el)?;
    let (alpha, z) = (c(e, el, el.attr("alpha", 1.0)), c(e, el, 0.0));
    let gt = e.cmpf("ogt", a[0], alpha);
    Ok(op(e, el, "arith.select", &[gt, a[0], z]))
}

/// `max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`.
fn celu(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    float_only(el)?;
    let alpha = el.attr("alpha", 1.0);
    let inv = c(e, el, 1.0 / alpha);
    let scaled = op(e, el, "arith.mulf", &[a[0], inv]);
    let neg = exp_minus_one(e, el, scaled, alpha);
    let z = c(e, el, 0.0);
    let pos = op(e, el, "arith.maximumf", &[a[0], z]);
    let neg = op(e, el, "arith.minimumf", &[neg, z]);
    Ok(op(e, el, "arith.addf", &[pos, neg]))
}

/// `x * tanh(softplus(x))`.
fn mish(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    let sp = softplus(e, el, a)?;
    let t = op(e, el, "math.tanh", &[sp]);
    Ok(op(e, el, "arith.mulf", &[a[0], t]))
}

/// `x * sigmoid(alpha * x)`.
fn swish(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    float_only(el)?;
    let alpha = c(e, el, el.attr("alpha", 1.0));
    let ax = op(e, el, "arith.mulf", &[alpha, a[0]]);
    let s = sigmoid(e, el, &[ax])?;
    Ok(op(e, el, "arith.mulf", &[a[0], s]))
}

/// `x + bias` below `-lambd`, `x - bias` above `lambd`, 0 between.
fn shrink(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    float_only(el)?;
    let (lambd, bias) = (el.attr("lambd", 0.5), el.attr("bias", 0.0));
    let (lo, hi, b, z) = (c(e, el, -lambd), c(e, el, lambd), c(e, el, bias), c(e, el, 0.0));
    let below = e.cmpf("olt", a[0], lo);
    let above = e.cmpf("ogt", a[0], hi);
    let up = op(e, el, "arith.addf", &[a[0], b]);
    let down = op(e, el, "arith.subf", &[a[0], b]);
    let r = op(e, el, "arith.select", &[above, down, z]);
    Ok(op(e, el, "arith.select", &[below, up, r]))
}

/// `swish(a) * b`: the gated linear unit of SwiGLU (opset 26).
fn swiglu(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    let gate = swish(e, el, &a[..1])?;
    Ok(op(e, el, "arith.mulf", &[gate, a[1]]))
}
