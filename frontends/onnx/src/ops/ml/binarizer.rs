//! Binarizer: 1 where the input is greater than `threshold`, else 0, in the input's type. An
//! integer input is compared in f64, so a fractional threshold keeps its meaning.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct Binarizer;

impl Expanded for Binarizer {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = g.ty(&node.inputs[0])?.dtype;
        if !matches!(t, DType::F32 | DType::F64 | DType::I32 | DType::I64) {
            return err(format!("Binarizer takes float, double, int32 or int64 tensors, not {}", t.name()));
        }
        let c = if t.is_float() { t } else { DType::F64 };
        let v = x.cast(&node.inputs[0], t, c);
        let threshold = x.scalar(node.float("threshold", 0.0) as f64, c);
        let above = x.op("Greater", &[&v, &threshold], &[]);
        let y = x.cast(&above, DType::Bool, t);
        x.output(&y, Some(&node.outputs[0]));
        Ok(())
    }
}
