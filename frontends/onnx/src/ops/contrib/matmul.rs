//! FusedMatMul (`alpha * A' B'`, A and B transposed in their last two dims by transA and
//! transB) and FusedConv (`activation(Conv(X, W, B) + Z)`).

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct FusedMatMul;
pub struct FusedConv;

/// The last two dims of `name` (of rank `rank`) swapped.
fn transposed(x: &mut Expansion, name: &str, rank: usize) -> String {
    let mut perm: Vec<i64> = (0..rank as i64).collect();
    if rank >= 2 {
        perm.swap(rank - 2, rank - 1);
    }
    x.transpose(name, &perm)
}

impl Expanded for FusedMatMul {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        if node.int("transBatchA", 0) != 0 || node.int("transBatchB", 0) != 0 {
            return err("FusedMatMul's transBatchA and transBatchB are not supported");
        }
        let (a_t, b_t) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?);
        let a = if node.int("transA", 0) != 0 {
            transposed(x, &node.inputs[0], a_t.shape.len())
        } else {
            node.inputs[0].clone()
        };
        let b = if node.int("transB", 0) != 0 {
            transposed(x, &node.inputs[1], b_t.shape.len())
        } else {
            node.inputs[1].clone()
        };
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
        let param = |k: usize, default: f32| params.get(k).copied().unwrap_or(default);
        let y = match node.string("activation").unwrap_or("") {
            "" => y,
            a @ ("Relu" | "Sigmoid" | "Tanh") => x.op(a, &[&y], &[]),
            "LeakyRelu" => x.op("LeakyRelu", &[&y], &[("alpha", Attr::Float(param(0, 0.01)))]),
            "HardSigmoid" => {
                let attrs = [("alpha", Attr::Float(param(0, 0.2))), ("beta", Attr::Float(param(1, 0.5)))];
                x.op("HardSigmoid", &[&y], &attrs)
            }
            "Clip" => {
                let (lo, hi) =
                    (x.scalar(param(0, f32::MIN) as f64, t.dtype), x.scalar(param(1, f32::MAX) as f64, t.dtype));
                x.op("Clip", &[&y, &lo, &hi], &[])
            }
            a => return err(format!("FusedConv's activation {a} is not supported")),
        };
        x.output(&y, Some(&node.outputs[0]));
        Ok(())
    }
}
