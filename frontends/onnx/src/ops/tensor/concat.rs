//! Concat: each input written at its offset along `axis`.

use super::{shifted, Move, Movement};
use crate::emit::identity;
use crate::graph::*;
use crate::ops::shapes::axis;

pub struct Concat;

impl Movement for Concat {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let first = g.ty(&node.inputs[0])?;
        let a = axis(node, node.int("axis", 0), first.shape.len())?;
        let mut shape = first.shape.clone();
        shape[a] = 0;
        for name in node.inputs.iter().filter(|s| !s.is_empty()) {
            let t = g.ty(name)?;
            if t.shape.len() != shape.len() || t.shape.iter().enumerate().any(|(i, &d)| i != a && d != first.shape[i]) {
                return err(format!(
                    "input '{name}' has shape {:?}, which does not match {:?} outside axis {a}",
                    t.shape, first.shape
                ));
            }
            shape[a] += t.shape[a];
        }
        Ok(vec![TensorType::new(first.dtype, shape)])
    }

    fn moves(&self, node: &Node, g: &Graph, _: &[TensorType]) -> OResult<Vec<Move>> {
        let rank = g.ty(&node.inputs[0])?.shape.len();
        let a = axis(node, node.int("axis", 0), rank)?;
        let mut base = 0;
        let mut moves = Vec::new();
        for (k, name) in node.inputs.iter().enumerate().filter(|(_, s)| !s.is_empty()) {
            let shape = g.ty(name)?.shape.clone();
            moves.push(Move {
                src: k,
                src_map: identity(rank),
                dst: 0,
                dst_map: shifted(rank, a, base),
                space: shape.clone(),
            });
            base += shape[a];
        }
        Ok(moves)
    }
}
