//! `scaled_dot_product_attention`: softmax(q k^T / sqrt(E) + mask) v, where a boolean mask
//! keeps the scores it sets and a float mask is added.

use super::{Convert, OpContext};
use std::collections::HashMap;
use xcc_frontend_onnx::graph::{Attr, DType};

pub fn register(r: &mut HashMap<&'static str, Convert>) {
    r.insert("scaled_dot_product_attention", attention);
}

fn attention(cx: &mut OpContext) -> Result<(), String> {
    let (q, k, v) = (cx.input("query")?, cx.input("key")?, cx.input("value")?);
    let rank = cx.input_rank("key")?;
    let q_rank = cx.input_rank("query")?;
    let e = cx
        .fixed_dims("query", q_rank.saturating_sub(1).., "the query's last dim")?
        .first()
        .copied()
        .ok_or("a query of rank 0")?;
    let mut perm: Vec<i64> = (0..rank as i64).collect();
    perm.swap(rank - 2, rank - 1);
    let kt = cx.temp("Transpose", vec![k], [("perm", Attr::Ints(perm))]);
    let scores = cx.temp("MatMul", vec![q, kt], []);
    let scale = cx.scalar(1.0 / (e as f64).sqrt(), DType::F32);
    let mut scores = cx.temp("Mul", vec![scores, scale], []);
    if let Some(mask) = cx.opt_input("attn_mask")? {
        let is_bool = cx.im.graph.types.get(&mask).map(|t| t.dtype == DType::Bool).unwrap_or(false)
            || bool_declared(cx, "attn_mask");
        scores = if is_bool {
            let low = cx.scalar(f64::NEG_INFINITY, DType::F32);
            cx.temp("Where", vec![mask, scores, low], [])
        } else {
            cx.temp("Add", vec![scores, mask], [])
        };
    }
    let p = cx.temp("Softmax", vec![scores], [("axis", Attr::Int(-1))]);
    cx.finish("MatMul", vec![p, v], [])
}

/// Whether the program declares the value bound to `param` boolean.
fn bool_declared(cx: &OpContext, param: &str) -> bool {
    use crate::proto::argument::binding::Binding;
    let Some(Binding::Name(name)) =
        cx.op.inputs.get(param).and_then(|a| a.arguments.first()).and_then(|b| b.binding.as_ref())
    else {
        return false;
    };
    cx.im.declared_types.get(&cx.im.resolve(name)) == Some(&DType::Bool)
}
