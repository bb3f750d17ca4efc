//! Hardmax, expanded ([`crate::ops::expansion`]): 1 where an element is the first maximum along
//! `axis`, 0 elsewhere. Before opset 13 the input is seen as 2-D, flattened at `axis`.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};
use crate::ops::shapes::axis;

pub struct Hardmax;

impl Expanded for Hardmax {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = super::float_input(node, g)?;
        let rank = t.shape.len();
        let a = axis(node, node.int("axis", if node.opset < 13 { 1 } else { -1 }), rank)?;
        let (input, along, trailing) = if node.opset < 13 {
            (x.op("Flatten", &[&node.inputs[0]], &[("axis", Attr::Int(a as i64))]), 1, 0)
        } else {
            (node.inputs[0].clone(), a as i64, rank - a - 1)
        };
        let first = x.op(
            "ArgMax",
            &[&input],
            &[("axis", Attr::Int(along)), ("keepdims", Attr::Int(1)), ("select_last_index", Attr::Int(0))],
        );
        let positions = x.positions(&input, along, trailing);
        let hit = x.op("Equal", &[&positions, &first], &[]);
        let ones = x.cast(&hit, DType::Bool, t.dtype);
        if node.opset < 13 {
            let shape = x.op("Shape", &[&node.inputs[0]], &[]);
            x.op_to("Reshape", &[&ones, &shape], &[], &[&node.outputs[0]]);
        } else {
            x.output(&ones, Some(&node.outputs[0]));
        }
        Ok(())
    }
}
