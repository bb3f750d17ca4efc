//! Transpose: output dim `o` is input dim `perm[o]` (reversed dims without `perm`).

use super::{dim, map, Move, Movement};
use crate::graph::*;
use crate::ops::shapes::axis;

pub struct Transpose;

fn perm_of(node: &Node, rank: usize) -> OResult<Vec<usize>> {
    let perm: Vec<usize> = match node.ints("perm") {
        Some(p) => p.iter().map(|&x| axis(node, x, rank)).collect::<OResult<_>>()?,
        None => (0..rank).rev().collect(),
    };
    let mut seen = perm.clone();
    seen.sort();
    if seen != (0..rank).collect::<Vec<_>>() {
        return err(format!("perm {perm:?} is not a permutation of 0..{rank}"));
    }
    Ok(perm)
}

impl Movement for Transpose {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        let perm = perm_of(node, t.shape.len())?;
        let dims = t.dims();
        Ok(vec![TensorType::with_dims(t.dtype, perm.iter().map(|&p| dims[p].clone()).collect())])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn moves(&self, node: &Node, g: &Graph, outputs: &[TensorType]) -> OResult<Vec<Move>> {
        let rank = g.ty(&node.inputs[0])?.shape.len();
        let perm = perm_of(node, rank)?;
        let mut read = vec![dim(0); rank];
        for (o, &p) in perm.iter().enumerate() {
            read[p] = dim(o);
        }
        Ok(vec![Move::gather_into(0, map(rank, read), 0, &outputs[0].shape)])
    }
}
