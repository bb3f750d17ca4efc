//! `batch_norm`, `instance_norm`, `layer_norm`, `l2_norm` and `local_response_norm`.

use super::{Convert, OpContext};
use std::collections::HashMap;
use xcc_frontend_onnx::graph::{Attr, DType, Tensor};

pub fn register(r: &mut HashMap<&'static str, Convert>) {
    r.insert("batch_norm", |cx| {
        let x = cx.input("x")?;
        let (mean, var) = (cx.input("mean")?, cx.input("variance")?);
        let c = cx.input_shape("mean")?;
        let (gamma, beta) = scale_and_shift(cx, &c)?;
        let eps = cx.float("epsilon", 1e-5)?;
        cx.finish("BatchNormalization", vec![x, gamma, beta, mean, var], [("epsilon", Attr::Float(eps as f32))])
    });
    r.insert("instance_norm", |cx| {
        let x = cx.input("x")?;
        let c = cx.fixed_dims("x", 1.., "the channels")?[..1].to_vec();
        let (gamma, beta) = scale_and_shift(cx, &c)?;
        let eps = cx.float("epsilon", 1e-5)?;
        cx.finish("InstanceNormalization", vec![x, gamma, beta], [("epsilon", Attr::Float(eps as f32))])
    });
    r.insert("layer_norm", layer_norm);
    r.insert("l2_norm", l2_norm);
    r.insert("local_response_norm", |cx| {
        let x = cx.input("x")?;
        let size = cx.int("size", 1)?;
        let alpha = cx.float("alpha", 1e-4)?;
        let beta = cx.float("beta", 0.75)?;
        let k = cx.float("k", 1.0)?;
        cx.finish(
            "LRN",
            vec![x],
            [
                ("size", Attr::Int(size)),
                ("alpha", Attr::Float(alpha as f32)),
                ("beta", Attr::Float(beta as f32)),
                ("bias", Attr::Float(k as f32)),
            ],
        )
    });
}

/// `gamma` and `beta`, or ones and zeros of `shape` where the program leaves them out.
fn scale_and_shift(cx: &mut OpContext, shape: &[usize]) -> Result<(String, String), String> {
    let n: usize = shape.iter().product();
    let gamma = match cx.opt_input("gamma")? {
        Some(g) => g,
        None => cx.im.constant("gamma", Tensor::from_f64(DType::F32, shape.to_vec(), &vec![1.0; n])),
    };
    let beta = match cx.opt_input("beta")? {
        Some(b) => b,
        None => cx.im.constant("beta", Tensor::from_f64(DType::F32, shape.to_vec(), &vec![0.0; n])),
    };
    Ok((gamma, beta))
}

/// Normalizes over `axes`, which must be the last dims (ONNX's LayerNormalization).
fn layer_norm(cx: &mut OpContext) -> Result<(), String> {
    let x = cx.input("x")?;
    let shape = cx.input_shape("x")?;
    let rank = shape.len() as i64;
    let mut axes: Vec<i64> = match cx.ints("axes")? {
        Some(a) => a.iter().map(|&a| if a < 0 { a + rank } else { a }).collect(),
        None => (0..rank).collect(),
    };
    axes.sort_unstable();
    let first = *axes.first().ok_or("layer_norm over no axes")?;
    if axes != (first..rank).collect::<Vec<_>>() {
        return Err(format!("layer_norm over axes {axes:?}: xcc normalizes over the last dims only"));
    }
    let normalized = cx.fixed_dims("x", first as usize.., "the normalized dims")?;
    let (gamma, beta) = scale_and_shift(cx, &normalized)?;
    let eps = cx.float("epsilon", 1e-5)?;
    cx.finish(
        "LayerNormalization",
        vec![x, gamma, beta],
        [("axis", Attr::Int(first)), ("epsilon", Attr::Float(eps as f32))],
    )
}

/// x / sqrt(max(sum(x^2) over the last 3 dims (or all but the batch), epsilon)).
fn l2_norm(cx: &mut OpContext) -> Result<(), String> {
    let x = cx.input("x")?;
    let rank = cx.input_rank("x")? as i64;
    let axes: Vec<i64> = ((rank - 3).max(1).min(rank - 1)..rank).collect();
    let axes = cx.i64s(&axes);
    let eps = cx.float("epsilon", 1e-6)?;
    let eps = cx.scalar(eps, DType::F32);
    let sq = cx.temp("ReduceSumSquare", vec![x.clone(), axes], [("keepdims", Attr::Int(1))]);
    let m = cx.temp("Max", vec![sq, eps], []);
    let n = cx.temp("Sqrt", vec![m], []);
    cx.finish("Div", vec![x, n], [])
}
