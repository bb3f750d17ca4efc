//! Split: consecutive pieces along `axis`, one per output.

use super::{const_input, shifted, Move, Movement};
use crate::graph::*;
use crate::ops::shapes::axis;

pub struct Split;

/// The sizes along the axis: the `split` attribute (before 13), the `split` input, or
/// `num_outputs` (18) / equal parts, the last one smaller.
fn split_sizes(node: &Node, g: &Graph, dim: usize) -> OResult<Vec<usize>> {
    let explicit = match node.ints("split") {
        Some(s) => Some(s),
        None => const_input(g, node, 1, "split")?.map(|t| t.to_i64()),
    };
    let sizes: Vec<usize> = match explicit {
        Some(s) => s.iter().map(|&x| x.max(0) as usize).collect(),
        None => {
            let n = node.int("num_outputs", node.outputs.len() as i64).max(1) as usize;
            let chunk = dim.div_ceil(n);
            (0..n).map(|i| chunk.min(dim.saturating_sub(i * chunk))).collect()
        }
    };
    if sizes.iter().sum::<usize>() != dim || sizes.len() != node.outputs.len() {
        return err(format!("split sizes {sizes:?} do not cover dimension {dim} with {} outputs", node.outputs.len()));
    }
    Ok(sizes)
}

impl Movement for Split {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        let a = axis(node, node.int("axis", 0), t.shape.len())?;
        let pieces = split_sizes(node, g, t.shape[a])?.into_iter().map(|s| {
            let mut shape = t.shape.clone();
            shape[a] = s;
            TensorType::new(t.dtype, shape)
        });
        Ok(pieces.collect())
    }

    fn moves(&self, node: &Node, g: &Graph, outputs: &[TensorType]) -> OResult<Vec<Move>> {
        let rank = g.ty(&node.inputs[0])?.shape.len();
        let a = axis(node, node.int("axis", 0), rank)?;
        let mut base = 0;
        let mut moves = Vec::new();
        for (k, out) in outputs.iter().enumerate() {
            moves.push(Move::gather_into(0, shifted(rank, a, base), k, &out.shape));
            base += out.shape[a];
        }
        Ok(moves)
    }
}
