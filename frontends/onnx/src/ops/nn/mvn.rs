//! MeanVarianceNormalization, expanded ([`crate::ops::expansion`]):
//! `(x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9)` over `axes` (default `[0, 2, 3]`), as ONNX
//! defines it.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct MeanVarianceNormalization;

impl Expanded for MeanVarianceNormalization {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = super::float_input(node, g)?;
        let axes = node.ints("axes").unwrap_or_else(|| vec![0, 2, 3]);
        let axes = x.ints(&axes);
        let keep = [("keepdims", Attr::Int(1))];
        let v = &node.inputs[0];
        let mean = x.op("ReduceMean", &[v, &axes], &keep);
        let squares = x.op("Mul", &[v, v], &[]);
        let mean_of_squares = x.op("ReduceMean", &[&squares, &axes], &keep);
        let square_of_mean = x.op("Mul", &[&mean, &mean], &[]);
        let variance = x.op("Sub", &[&mean_of_squares, &square_of_mean], &[]);
        let std = x.op("Sqrt", &[&variance], &[]);
        let eps = x.scalar(1e-9, t.dtype);
        let denominator = x.op("Add", &[&std, &eps], &[]);
        let centered = x.op("Sub", &[v, &mean], &[]);
        x.op_to("Div", &[&centered, &denominator], &[], &[&node.outputs[0]]);
        Ok(())
    }
}
