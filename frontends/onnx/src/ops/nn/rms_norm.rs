//! RMSNormalization (opset 23), expanded ([`crate::ops::expansion`]): each row (the dims from
//! `axis` on) divided by `sqrt(mean(x^2) + epsilon)`, then scaled. The statistics are computed
//! in stash_type (float32 by default), as ONNX defines it.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};
use crate::ops::shapes::axis;

pub struct RmsNormalization;

impl Expanded for RmsNormalization {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        expand(node, g, x)
    }
}

fn expand(node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
    let x_t = super::float_input(node, g)?;
    let rank = x_t.shape.len();
    let first = axis(node, node.int("axis", -1), rank)?;
    let stash = match node.int("stash_type", 1) {
        1 => DType::F32,
        code => DType::from_onnx(code as i32)
            .filter(|d| d.is_float())
            .ok_or_else(|| OnnxError::msg(format!("stash_type {} is not supported", DType::onnx_name(code as i32))))?,
    };
    let v = x.cast(&node.inputs[0], x_t.dtype, stash);
    let squares = x.op("Mul", &[&v, &v], &[]);
    let axes: Vec<i64> = (first as i64..rank as i64).collect();
    let axes = x.ints(&axes);
    let mean = x.op("ReduceMean", &[&squares, &axes], &[("keepdims", Attr::Int(1))]);
    let eps = x.scalar(node.float("epsilon", 1e-5) as f64, stash);
    let shifted = x.op("Add", &[&mean, &eps], &[]);
    let rms = x.op("Sqrt", &[&shifted], &[]);
    let normalized = x.op("Div", &[&v, &rms], &[]);
    let normalized = x.cast(&normalized, stash, x_t.dtype);
    x.op_to("Mul", &[&normalized, &node.inputs[1]], &[], &[&node.outputs[0]]);
    Ok(())
}
