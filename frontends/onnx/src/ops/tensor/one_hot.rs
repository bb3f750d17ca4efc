//! OneHot, expanded ([`crate::ops::expansion`]): a new dim of size depth at `axis`, holding
//! values[1] where its position is the index (a negative index counts from depth) and
//! values[0] elsewhere; an index outside `[-depth, depth)` gives a row of values[0].

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct OneHot;

impl Expanded for OneHot {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let (indices_t, depth_t) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?);
        if depth_t.numel() != 1 || depth_t.is_dynamic() {
            return err(format!("depth must hold one value, not {}", depth_t.describe()));
        }
        let rank = indices_t.shape.len() as i64 + 1;
        let axis = node.int("axis", -1);
        if axis < -rank || axis >= rank {
            return err(format!("axis {axis} is outside the output's {rank} dims"));
        }
        let axis = if axis < 0 { axis + rank } else { axis };
        let depth = x.cast(&node.inputs[1], depth_t.dtype, DType::I64);
        let depth = x.reshape(&depth, &[]);
        let indices = x.cast(&node.inputs[0], indices_t.dtype, DType::I64);
        let zero = x.constant(Tensor::from_i64(vec![], &[0]));
        let negative = x.op("Less", &[&indices, &zero], &[]);
        let wrapped = x.op("Add", &[&indices, &depth], &[]);
        let indices = x.op("Where", &[&negative, &wrapped, &indices], &[]);
        let indices = x.unsqueeze(&indices, &[axis]);
        let one = x.constant(Tensor::from_i64(vec![], &[1]));
        let positions = x.op("Range", &[&zero, &depth, &one], &[]);
        let trailing: Vec<i64> = (1..rank - axis).collect();
        let positions = if trailing.is_empty() { positions } else { x.unsqueeze(&positions, &trailing) };
        let hit = x.op("Equal", &[&indices, &positions], &[]);
        let (off_at, on_at) = (x.constant(Tensor::from_i64(vec![], &[0])), x.constant(Tensor::from_i64(vec![], &[1])));
        let off = x.op("Gather", &[&node.inputs[2], &off_at], &[("axis", Attr::Int(0))]);
        let on = x.op("Gather", &[&node.inputs[2], &on_at], &[("axis", Attr::Int(0))]);
        x.op_to("Where", &[&hit, &on, &off], &[], &[&node.outputs[0]]);
        Ok(())
    }
}
