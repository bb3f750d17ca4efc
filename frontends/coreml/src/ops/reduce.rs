//! Reductions (`reduce_*`, with `axes` absent meaning all), arg-max and arg-min, and `cumsum`.

use super::{Convert, OpContext};
use std::collections::HashMap;
use xcc_frontend_onnx::graph::{Attr, DType};

pub fn register(r: &mut HashMap<&'static str, Convert>) {
    r.insert("reduce_sum", |cx| reduce(cx, "ReduceSum"));
    r.insert("reduce_mean", |cx| reduce(cx, "ReduceMean"));
    r.insert("reduce_max", |cx| reduce(cx, "ReduceMax"));
    r.insert("reduce_min", |cx| reduce(cx, "ReduceMin"));
    r.insert("reduce_prod", |cx| reduce(cx, "ReduceProd"));
    r.insert("reduce_l1_norm", |cx| reduce(cx, "ReduceL1"));
    r.insert("reduce_l2_norm", |cx| reduce(cx, "ReduceL2"));
    r.insert("reduce_log_sum", |cx| reduce(cx, "ReduceLogSum"));
    r.insert("reduce_log_sum_exp", |cx| reduce(cx, "ReduceLogSumExp"));
    r.insert("reduce_sum_square", |cx| reduce(cx, "ReduceSumSquare"));
    r.insert("reduce_argmax", |cx| arg(cx, "ArgMax"));
    r.insert("reduce_argmin", |cx| arg(cx, "ArgMin"));
    r.insert("cumsum", |cx| {
        let x = cx.input("x")?;
        let axis = cx.int("axis", 0)?;
        let axis = cx.im.constant("axis", xcc_frontend_onnx::graph::Tensor::from_i64(vec![], &[axis]));
        let exclusive = cx.boolean("exclusive", false)?;
        let reverse = cx.boolean("reverse", false)?;
        cx.finish(
            "CumSum",
            vec![x, axis],
            [("exclusive", Attr::Int(i64::from(exclusive))), ("reverse", Attr::Int(i64::from(reverse)))],
        )
    });
}

fn reduce(cx: &mut OpContext, onnx: &str) -> Result<(), String> {
    let x = cx.input("x")?;
    let keep = i64::from(cx.boolean("keep_dims", false)?);
    let mut inputs = vec![x];
    if let Some(axes) = cx.ints("axes")? {
        inputs.push(cx.i64s(&axes));
    }
    cx.finish(onnx, inputs, [("keepdims", Attr::Int(keep))])
}

/// MIL's arg-max and arg-min return int32.
fn arg(cx: &mut OpContext, onnx: &str) -> Result<(), String> {
    let x = cx.input("x")?;
    let axis = cx.int("axis", -1)?;
    let keep = i64::from(cx.boolean("keep_dims", false)?);
    let i = cx.temp(onnx, vec![x], [("axis", Attr::Int(axis)), ("keepdims", Attr::Int(keep))]);
    cx.finish("Cast", vec![i], [("to", Attr::Int(DType::I32.onnx_code() as i64))])
}
