//! FlexAttention (`ai.onnx.preview`, version 1), expanded ([`crate::ops::expansion`]):
//! attention over `[batch, heads, length, head_size]` with two graphs of the model's own
//! inlined into it, as torch's `flex_attention` takes Python functions:
//!
//! ```text
//! scores = (Q √s)(K √s)ᵀ          in Q's type (s: `scale`, else 1/√head_size)
//! scores = score_mod(scores)       in softmax_precision (f32, or f64 for f64 inputs)
//! probs  = prob_mod(Softmax(scores))
//! Y      = probs V
//! ```
//!
//! Query head `h` reads KV head `h / (q_heads / kv_heads)` (GQA): the query heads of a group are
//! an extra dim that the products broadcast over, so K and V are never copied per head.

use crate::graph::*;
use crate::ops::control::{body, inline};
use crate::ops::expansion::{Expanded, Expansion};

pub const DOMAIN: &str = "ai.onnx.preview";

pub struct FlexAttention;

impl Expanded for FlexAttention {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let q_t = super::float_input(node, g)?;
        let (k_t, v_t) = (g.ty(&node.inputs[1])?, g.ty(&node.inputs[2])?);
        let [q, k, v] = [q_t, k_t, v_t].map(|t| t.shape.clone());
        if q.len() != 4 || k.len() != 4 || v.len() != 4 {
            return err(format!(
                "FlexAttention takes rank-4 Q, K and V, not {}, {} and {}",
                q_t.describe(),
                k_t.describe(),
                v_t.describe()
            ));
        }
        let (hq, hkv) = (q[1], k[1]);
        if k_t.dtype != q_t.dtype || v_t.dtype != q_t.dtype {
            return err("FlexAttention's Q, K and V must have one element type");
        }
        if hkv == 0 || hq % hkv != 0 || v[1] != hkv || q[3] != k[3] || k[2] != v[2] {
            return err(format!(
                "FlexAttention's Q {}, K {} and V {} do not line up (query heads a multiple of the KV heads, \
                 one head size for Q and K, one length for K and V)",
                q_t.describe(),
                k_t.describe(),
                v_t.describe()
            ));
        }
        let t = q_t.dtype;
        let sp = softmax_precision(node, t)?;
        let scale = match node.attrs.get("scale") {
            Some(_) => node.float("scale", 1.0),
            None => 1.0 / (q[3] as f32).sqrt(),
        };
        // The scale split between Q and K, as ONNX's definition applies it (f32, then T).
        let root = x.scalar(scale.sqrt() as f64, t);
        let qs = x.op("Mul", &[&node.inputs[0], &root], &[]);
        let ks = x.op("Mul", &[&node.inputs[1], &root], &[]);
        let (hkv, group) = (hkv as i64, (hq / hkv) as i64);
        let grouped =
            |x: &mut Expansion, v: &str, last: usize| x.reshape(v, &[0, hkv, group, q[2] as i64, last as i64]);
        let q5 = grouped(x, &qs, q[3]);
        let kt = x.transpose(&ks, &[0, 1, 3, 2]);
        let kt = x.unsqueeze(&kt, &[2]);
        let scores = x.op("MatMul", &[&q5, &kt], &[]);
        let scores = x.reshape(&scores, &[0, hq as i64, q[2] as i64, k[2] as i64]);
        let scores = x.cast(&scores, t, sp);
        let scores = modified(node, x, "score_mod", scores)?;
        let probs = x.op("Softmax", &[&scores], &[("axis", Attr::Int(-1))]);
        let probs = modified(node, x, "prob_mod", probs)?;
        let p5 = grouped(x, &probs, k[2]);
        let vs = x.cast(&node.inputs[2], t, sp);
        let vs = x.unsqueeze(&vs, &[2]);
        let y = x.op("MatMul", &[&p5, &vs], &[]);
        let y = x.reshape(&y, &[0, hq as i64, q[2] as i64, v[3] as i64]);
        let y = x.cast(&y, sp, t);
        x.output(&y, Some(&node.outputs[0]));
        Ok(())
    }
}

/// The type of the scores and probabilities: `softmax_precision`, else f64 for f64 inputs and
/// f32 for the others.
fn softmax_precision(node: &Node, t: DType) -> OResult<DType> {
    match node.attrs.get("softmax_precision") {
        None => Ok(if t == DType::F64 { DType::F64 } else { DType::F32 }),
        Some(_) => {
            let code = node.int("softmax_precision", 1);
            DType::from_onnx(code as i32).filter(|d| d.is_float()).ok_or_else(|| {
                OnnxError::msg(format!(
                    "softmax_precision {} is not a floating-point type",
                    DType::onnx_name(code as i32)
                ))
            })
        }
    }
}

/// `v` through the node's graph attribute `name` (one input, one output), or `v` without it.
fn modified(node: &Node, x: &mut Expansion, name: &str, v: String) -> OResult<String> {
    if !node.attrs.contains_key(name) {
        return Ok(v);
    }
    let graph = body(node, name)?;
    if graph.inputs.len() != 1 || graph.outputs.len() != 1 {
        return err(format!(
            "FlexAttention's {name} takes one input and makes one output, not {} and {}",
            graph.inputs.len(),
            graph.outputs.len()
        ));
    }
    let prefix = format!("{}#{name}/", node.outputs[0]);
    let mut outputs = inline(x, graph, &prefix, &[v])?;
    Ok(outputs.remove(0))
}
