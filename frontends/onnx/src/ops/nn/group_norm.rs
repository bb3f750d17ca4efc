//! GroupNormalization, expanded ([`crate::ops::expansion`]): the channels of `[N, C, ...]` in
//! num_groups groups, each normalized by its mean and variance (in stash_type), then scaled and
//! shifted per channel (opset 21) or per group (opset 18).

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct GroupNormalization;

impl Expanded for GroupNormalization {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = super::float_input(node, g)?;
        let rank = t.shape.len();
        let groups = node.int("num_groups", 0);
        let channels = t.dims().get(1).and_then(Dim::as_fixed).unwrap_or(0);
        if rank < 2 || groups <= 0 || channels % groups as usize != 0 {
            return err(format!("num_groups {groups} must divide the channels (dim 1) of {}", t.describe()));
        }
        let stash = if node.int("stash_type", 1) == 1 { DType::F32 } else { t.dtype };
        let v = x.cast(&node.inputs[0], t.dtype, stash);
        let grouped = x.reshape(&v, &[0, groups, -1]);
        let axes = x.ints(&[2]);
        let keep = [("keepdims", Attr::Int(1))];
        let mean = x.op("ReduceMean", &[&grouped, &axes], &keep);
        let centered = x.op("Sub", &[&grouped, &mean], &[]);
        let squares = x.op("Mul", &[&centered, &centered], &[]);
        let variance = x.op("ReduceMean", &[&squares, &axes], &keep);
        let eps = x.scalar(node.float("epsilon", 1e-5) as f64, stash);
        let shifted = x.op("Add", &[&variance, &eps], &[]);
        let std = x.op("Sqrt", &[&shifted], &[]);
        let normalized = x.op("Div", &[&centered, &std], &[]);
        let shape = x.op("Shape", &[&node.inputs[0]], &[]);
        let normalized = x.op("Reshape", &[&normalized, &shape], &[]);
        let normalized = x.cast(&normalized, stash, t.dtype);
        // Scale and bias per channel, broadcast over the spatial dims.
        let per_channel = |x: &mut Expansion, p: &str| -> OResult<String> {
            let n = g.ty(p)?.numel();
            let p = if n == groups as usize && n != channels {
                let u = x.unsqueeze(p, &[1]);
                let reps = x.ints(&[1, (channels / n) as i64]);
                let tiled = x.op("Tile", &[&u, &reps], &[]);
                x.reshape(&tiled, &[-1])
            } else {
                p.to_string()
            };
            let trailing: Vec<i64> = (1..rank as i64 - 1).collect();
            Ok(if trailing.is_empty() { p } else { x.unsqueeze(&p, &trailing) })
        };
        let (scale, bias) = (per_channel(x, &node.inputs[1])?, per_channel(x, &node.inputs[2])?);
        let scaled = x.op("Mul", &[&normalized, &scale], &[]);
        x.op_to("Add", &[&scaled, &bias], &[], &[&node.outputs[0]]);
        Ok(())
    }
}
