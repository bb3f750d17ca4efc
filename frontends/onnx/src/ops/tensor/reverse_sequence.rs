//! ReverseSequence, expanded ([`crate::ops::expansion`]): along `time_axis`, each batch entry's
//! first `sequence_lens[b]` steps reversed and the rest kept, as a GatherElements of the
//! reversed positions.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct ReverseSequence;

impl Expanded for ReverseSequence {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = g.ty(&node.inputs[0])?;
        let (time, batch) = (node.int("time_axis", 0), node.int("batch_axis", 1));
        if t.shape.len() < 2 || !matches!((time, batch), (0, 1) | (1, 0)) {
            return err(format!(
                "time_axis and batch_axis must be 0 and 1, on an input of rank 2 or more, not {time}, {batch} and {}",
                t.describe()
            ));
        }
        let rank = t.shape.len();
        let lens = x.cast(&node.inputs[1], g.ty(&node.inputs[1])?.dtype, DType::I64);
        // Positions along time, and lengths along batch, each shaped to its own axis.
        let steps = x.positions(&node.inputs[0], time, rank - time as usize - 1);
        let trailing: Vec<i64> = (1..rank as i64 - batch).collect();
        let lens = if trailing.is_empty() { lens } else { x.unsqueeze(&lens, &trailing) };
        let inside = x.op("Less", &[&steps, &lens], &[]);
        let last = x.constant(Tensor::from_i64(vec![], &[1]));
        let end = x.op("Sub", &[&lens, &last], &[]);
        let mirrored = x.op("Sub", &[&end, &steps], &[]);
        let from = x.op("Where", &[&inside, &mirrored, &steps], &[]);
        let shape = x.op("Shape", &[&node.inputs[0]], &[]);
        let from = x.op("Expand", &[&from, &shape], &[]);
        x.op_to("GatherElements", &[&node.inputs[0], &from], &[("axis", Attr::Int(time))], &[&node.outputs[0]]);
        Ok(())
    }
}
