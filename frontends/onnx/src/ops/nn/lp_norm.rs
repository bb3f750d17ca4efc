//! LpNormalization, expanded ([`crate::ops::expansion`]): `x` divided by its L1 or L2 norm
//! along `axis` (a zero vector stays zero).

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};
use crate::ops::shapes::axis;

pub struct LpNormalization;

impl Expanded for LpNormalization {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = super::float_input(node, g)?;
        let a = axis(node, node.int("axis", -1), t.shape.len())? as i64;
        let reduce = match node.int("p", 2) {
            1 => "ReduceL1",
            2 => "ReduceL2",
            p => return err(format!("p must be 1 or 2, not {p}")),
        };
        let axes = x.ints(&[a]);
        let norm = x.op(reduce, &[&node.inputs[0], &axes], &[("keepdims", Attr::Int(1))]);
        // A zero norm divides zeros: by 1, so they stay 0 rather than NaN.
        let (zero, one) = (x.scalar(0.0, t.dtype), x.scalar(1.0, t.dtype));
        let empty = x.op("Equal", &[&norm, &zero], &[]);
        let norm = x.op("Where", &[&empty, &one, &norm], &[]);
        x.op_to("Div", &[&node.inputs[0], &norm], &[], &[&node.outputs[0]]);
        Ok(())
    }
}
