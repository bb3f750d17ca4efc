//! `linear`, `matmul`, `conv` and `conv_transpose`.

use super::{padding, Convert, OpContext};
use std::collections::HashMap;
use xcc_frontend_onnx::graph::Attr;

pub fn register(r: &mut HashMap<&'static str, Convert>) {
    r.insert("linear", linear);
    r.insert("matmul", matmul);
    r.insert("conv", |cx| conv(cx, "Conv"));
    r.insert("conv_transpose", |cx| conv(cx, "ConvTranspose"));
}

/// `x @ weight^T + bias`, weight `[D_out, D_in]`: a Gemm for a matrix, as ONNX exporters write
/// it, else a MatMul and an Add.
fn linear(cx: &mut OpContext) -> Result<(), String> {
    let x = cx.input("x")?;
    let w = cx.input("weight")?;
    let bias = cx.opt_input("bias")?;
    if cx.input_rank("x")? == 2 {
        let mut inputs = vec![x, w];
        inputs.extend(bias);
        return cx.finish("Gemm", inputs, [("transB", Attr::Int(1))]);
    }
    let wt = cx.temp("Transpose", vec![w], [("perm", Attr::Ints(vec![1, 0]))]);
    match bias {
        None => cx.finish("MatMul", vec![x, wt], []),
        Some(b) => {
            let y = cx.temp("MatMul", vec![x, wt], []);
            cx.finish("Add", vec![y, b], [])
        }
    }
}

fn matmul(cx: &mut OpContext) -> Result<(), String> {
    let mut operands = Vec::new();
    for (param, flag) in [("x", "transpose_x"), ("y", "transpose_y")] {
        let v = cx.input(param)?;
        let v = if cx.boolean(flag, false)? {
            let rank = cx.input_rank(param)?;
            if rank < 2 {
                return Err(format!("'{flag}' on a tensor of rank {rank}"));
            }
            let mut perm: Vec<i64> = (0..rank as i64).collect();
            perm.swap(rank - 2, rank - 1);
            cx.temp("Transpose", vec![v], [("perm", Attr::Ints(perm))])
        } else {
            v
        };
        operands.push(v);
    }
    cx.finish("MatMul", operands, [])
}

/// Both take ONNX's weight layouts (`[C_out, C_in/groups, k...]` for conv, `[C_in, C_out/groups,
/// k...]` for conv_transpose); MIL's `pad` lists begin and end per spatial dim.
fn conv(cx: &mut OpContext, onnx: &str) -> Result<(), String> {
    let x = cx.input("x")?;
    let w = cx.input("weight")?;
    let spatial = cx.input_rank("weight")?.checked_sub(2).ok_or("the weight has rank below 2")?;
    let mut inputs = vec![x, w];
    inputs.extend(cx.opt_input("bias")?);
    let mut attrs = padding(cx, spatial)?;
    attrs.push(("strides", Attr::Ints(cx.ints("strides")?.unwrap_or(vec![1; spatial]))));
    attrs.push(("dilations", Attr::Ints(cx.ints("dilations")?.unwrap_or(vec![1; spatial]))));
    attrs.push(("group", Attr::Int(cx.int("groups", 1)?)));
    if onnx == "ConvTranspose" {
        if let Some(shape) = cx.ints("output_shape")? {
            let spatial_dims = shape[shape.len().saturating_sub(spatial)..].to_vec();
            attrs.retain(|(k, _)| *k != "pads");
            attrs.push(("output_shape", Attr::Ints(spatial_dims)));
        }
    }
    cx.finish(onnx, inputs, attrs)
}
