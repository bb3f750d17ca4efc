//! FusedMatMul (`alpha * A' B'`: an operand's first dim moved behind its other batch dims by
//! transBatchA or transBatchB, then its last two dims swapped by transA or transB), FusedGemm
//! (`activation(Gemm(A, B, C))`) and FusedConv (`activation(Conv(X, W, B) + Z)`).

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct FusedMatMul;
pub struct FusedGemm;
pub struct FusedConv;

/// FusedMatMul's operand `i` as it multiplies: with `transBatch`, dim 0 moves behind the other
/// batch dims (`[b0, b1, m, k]` -> `[b1, m, b0, k]`); with `trans`, the last two dims swap.
fn operand(x: &mut Expansion, node: &Node, g: &Graph, i: usize, side: &str) -> OResult<String> {
    let name = &node.inputs[i];
    let rank = g.ty(name)?.shape.len();
    let mut perm: Vec<i64> = (0..rank as i64).collect();
    if node.int(&format!("transBatch{side}"), 0) != 0 && rank >= 3 {
        perm = (1..rank as i64 - 1).chain([0, rank as i64 - 1]).collect();
    }
    if node.int(&format!("trans{side}"), 0) != 0 && rank >= 2 {
        perm.swap(rank - 2, rank - 1);
    }
    Ok(if perm.iter().enumerate().all(|(k, &p)| p == k as i64) { name.clone() } else { x.transpose(name, &perm) })
}

impl Expanded for FusedMatMul {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let a_t = g.ty(&node.inputs[0])?;
        let (a, b) = (operand(x, node, g, 0, "A")?, operand(x, node, g, 1, "B")?);
        let alpha = node.float("alpha", 1.0) as f64;
        if alpha == 1.0 {
            x.op_to("MatMul", &[&a, &b], &[], &[&node.outputs[0]]);
        } else {
            let product = x.op("MatMul", &[&a, &b], &[]);
            let alpha = x.scalar(alpha, a_t.dtype);
            x.op_to("Mul", &[&product, &alpha], &[], &[&node.outputs[0]]);
        }
        Ok(())
    }
}

impl Expanded for FusedConv {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = g.ty(&node.inputs[0])?;
        let conv_attrs: Vec<(&str, Attr)> = ["auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"]
            .into_iter()
            .filter_map(|k| node.attrs.get(k).map(|v| (k, v.clone())))
            .collect();
        let inputs: Vec<&str> = node.inputs.iter().take(3).map(String::as_str).collect();
        let mut y = x.op("Conv", &inputs, &conv_attrs);
        if let Some(z) = node.input(3) {
            y = x.op("Add", &[&y, z], &[]);
        }
        let params: Vec<f32> = match node.attrs.get("activation_params") {
            Some(Attr::Floats(p)) => p.clone(),
            _ => Vec::new(),
        };
        let y = activation(x, node, y, &params, t.dtype)?;
        x.output(&y, Some(&node.outputs[0]));
        Ok(())
    }
}

impl Expanded for FusedGemm {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = g.ty(&node.inputs[0])?;
        let gemm_attrs: Vec<(&str, Attr)> = ["alpha", "beta", "transA", "transB"]
            .into_iter()
            .filter_map(|k| node.attrs.get(k).map(|v| (k, v.clone())))
            .collect();
        let inputs: Vec<&str> = node.inputs.iter().map(String::as_str).collect();
        let y = x.op("Gemm", &inputs, &gemm_attrs);
        // FusedGemm names its activation's parameters one attribute each.
        let params: Vec<f32> = ["activation_alpha", "activation_beta", "activation_gamma"]
            .iter()
            .map_while(|k| match node.attrs.get(*k) {
                Some(Attr::Float(v)) => Some(*v),
                _ => None,
            })
            .collect();
        let y = activation(x, node, y, &params, t.dtype)?;
        x.output(&y, Some(&node.outputs[0]));
        Ok(())
    }
}

/// A fused operator's `activation` of `y`, with its parameters in order (ONNX Runtime's
/// defaults where absent).
fn activation(x: &mut Expansion, node: &Node, y: String, params: &[f32], dtype: DType) -> OResult<String> {
    let param = |k: usize, default: f32| params.get(k).copied().unwrap_or(default);
    Ok(match node.string("activation").unwrap_or("") {
        "" => y,
        a @ ("Relu" | "Sigmoid" | "Tanh") => x.op(a, &[&y], &[]),
        "LeakyRelu" => x.op("LeakyRelu", &[&y], &[("alpha", Attr::Float(param(0, 0.01)))]),
        "HardSigmoid" => {
            let attrs = [("alpha", Attr::Float(param(0, 0.2))), ("beta", Attr::Float(param(1, 0.5)))];
            x.op("HardSigmoid", &[&y], &attrs)
        }
        "Clip" => {
            let (lo, hi) = (x.scalar(param(0, f32::MIN) as f64, dtype), x.scalar(param(1, f32::MAX) as f64, dtype));
            x.op("Clip", &[&y, &lo, &hi], &[])
        }
        a => return err(format!("{}'s activation {a} is not supported", node.op)),
    })
}
