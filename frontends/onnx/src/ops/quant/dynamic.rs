//! DynamicQuantizeLinear: uint8 quantization with the scale and zero point computed from the
//! data, the range always holding 0: `scale = (max(x, 0) - min(x, 0)) / 255`,
//! `zero_point = saturate(round(-min(x, 0) / scale))`, then as QuantizeLinear.

use super::round_to_integer;
use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct DynamicQuantizeLinear;

impl Expanded for DynamicQuantizeLinear {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?;
        if x_t.dtype != DType::F32 {
            return err(format!("x must be float32, not {}", x_t.dtype.name()));
        }
        let c = DType::F32;
        let v = &node.inputs[0];
        let keep = [("keepdims", Attr::Int(0))];
        let (lowest, highest) = (x.op("ReduceMin", &[v], &keep), x.op("ReduceMax", &[v], &keep));
        let zero = x.scalar(0.0, c);
        let lowest = x.op("Min", &[&lowest, &zero], &[]);
        let highest = x.op("Max", &[&highest, &zero], &[]);
        let range = x.op("Sub", &[&highest, &lowest], &[]);
        let steps = x.scalar(255.0, c);
        let scale = x.op("Div", &[&range, &steps], &[]);
        let shift = x.op("Div", &[&lowest, &scale], &[]);
        let shift = x.op("Neg", &[&shift], &[]);
        let zero_point = x.op("Round", &[&shift], &[]);
        let (lo, hi) = (x.scalar(0.0, c), x.scalar(255.0, c));
        let zero_point = x.op("Clip", &[&zero_point, &lo, &hi], &[]);
        let q = x.op("Div", &[v, &scale], &[]);
        let y = round_to_integer(x, &q, Some(&zero_point), c, DType::U8)?;
        x.output(&y, Some(&node.outputs[0]));
        x.output(&scale, node.outputs.get(1).map(String::as_str));
        let zero_point = x.cast(&zero_point, c, DType::U8);
        x.output(&zero_point, node.outputs.get(2).map(String::as_str));
        Ok(())
    }
}
