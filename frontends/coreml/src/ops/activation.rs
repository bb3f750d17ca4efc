//! Activations and softmax.

use super::{Convert, OpContext};
use std::collections::HashMap;
use xcc_frontend_onnx::graph::{Attr, DType};

pub fn register(r: &mut HashMap<&'static str, Convert>) {
    r.insert("relu", |cx| unary(cx, "Relu"));
    r.insert("sigmoid", |cx| unary(cx, "Sigmoid"));
    r.insert("softplus", |cx| unary(cx, "Softplus"));
    r.insert("softsign", |cx| unary(cx, "Softsign"));
    r.insert("relu6", |cx| {
        let x = cx.input("x")?;
        let (lo, hi) = (cx.scalar(0.0, DType::F32), cx.scalar(6.0, DType::F32));
        cx.finish("Clip", vec![x, lo, hi], [])
    });
    r.insert("leaky_relu", |cx| with_alpha(cx, "LeakyRelu", 0.01));
    r.insert("elu", |cx| with_alpha(cx, "Elu", 1.0));
    r.insert("thresholded_relu", |cx| with_alpha(cx, "ThresholdedRelu", 1.0));
    r.insert("sigmoid_hard", |cx| {
        let x = cx.input("x")?;
        let (alpha, beta) = (cx.float("alpha", 0.2)?, cx.float("beta", 0.5)?);
        cx.finish("HardSigmoid", vec![x], [("alpha", Attr::Float(alpha as f32)), ("beta", Attr::Float(beta as f32))])
    });
    r.insert("silu", |cx| {
        let x = cx.input("x")?;
        let s = cx.temp("Sigmoid", vec![x.clone()], []);
        cx.finish("Mul", vec![x, s], [])
    });
    r.insert("gelu", gelu);
    r.insert("prelu", prelu);
    r.insert("scaled_tanh", |cx| {
        // alpha * tanh(beta * x)
        let x = cx.input("x")?;
        let (alpha, beta) = (cx.float("alpha", 1.0)?, cx.float("beta", 1.0)?);
        let (alpha, beta) = (cx.scalar(alpha, DType::F32), cx.scalar(beta, DType::F32));
        let bx = cx.temp("Mul", vec![x, beta], []);
        let t = cx.temp("Tanh", vec![bx], []);
        cx.finish("Mul", vec![t, alpha], [])
    });
    r.insert("linear_activation", |cx| {
        let x = cx.input("x")?;
        let (alpha, beta) = (cx.float("alpha", 1.0)?, cx.float("beta", 0.0)?);
        let (alpha, beta) = (cx.scalar(alpha, DType::F32), cx.scalar(beta, DType::F32));
        let ax = cx.temp("Mul", vec![x, alpha], []);
        cx.finish("Add", vec![ax, beta], [])
    });
    r.insert("softmax", |cx| {
        let x = cx.input("x")?;
        let axis = cx.int("axis", -1)?;
        cx.finish("Softmax", vec![x], [("axis", Attr::Int(axis))])
    });
}

fn unary(cx: &mut OpContext, onnx: &str) -> Result<(), String> {
    let x = cx.input("x")?;
    cx.finish(onnx, vec![x], [])
}

fn with_alpha(cx: &mut OpContext, onnx: &str, default: f64) -> Result<(), String> {
    let x = cx.input("x")?;
    let alpha = cx.float("alpha", default)?;
    cx.finish(onnx, vec![x], [("alpha", Attr::Float(alpha as f32))])
}

/// `mode`: EXACT (erf), TANH_APPROXIMATION, or SIGMOID_APPROXIMATION (x * sigmoid(1.702 x)).
fn gelu(cx: &mut OpContext) -> Result<(), String> {
    let x = cx.input("x")?;
    match cx.string("mode", "EXACT")?.as_str() {
        "EXACT" => cx.finish("Gelu", vec![x], []),
        "TANH_APPROXIMATION" => cx.finish("Gelu", vec![x], [("approximate", Attr::Str("tanh".into()))]),
        "SIGMOID_APPROXIMATION" => {
            let k = cx.scalar(1.702, DType::F32);
            let kx = cx.temp("Mul", vec![x.clone(), k], []);
            let s = cx.temp("Sigmoid", vec![kx], []);
            cx.finish("Mul", vec![x, s], [])
        }
        other => Err(format!("unknown gelu mode '{other}'")),
    }
}

/// One slope per channel (axis 1 of a rank-3 or more input): ONNX's PRelu broadcasts from the
/// right, so the slopes become `[C, 1, ...]`.
fn prelu(cx: &mut OpContext) -> Result<(), String> {
    let x = cx.input("x")?;
    let rank = cx.input_rank("x")?;
    let alpha = cx.input("alpha")?;
    let c = cx.input_shape("alpha")?.iter().product::<usize>() as i64;
    let mut shape = vec![c];
    shape.resize(rank.saturating_sub(1).max(1), 1);
    let shape = cx.i64s(&shape);
    let slopes = cx.temp("Reshape", vec![alpha, shape], []);
    cx.finish("PRelu", vec![x, slopes], [])
}
