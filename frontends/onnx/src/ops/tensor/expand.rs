//! Expand: the input broadcast (numpy rules) to a shape given as a constant input.

use super::{const_input, Move, Movement};
use crate::emit::broadcast_map;
use crate::graph::*;
use crate::ops::shapes::broadcast;

pub struct Expand;

impl Movement for Expand {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        let s = const_input(g, node, 1, "shape")?.ok_or_else(|| OnnxError::msg("Expand needs a shape"))?.to_i64();
        let s: Vec<usize> = s.iter().map(|&x| x.max(0) as usize).collect();
        Ok(vec![TensorType::new(t.dtype, broadcast(&t.shape, &s)?)])
    }

    fn moves(&self, node: &Node, g: &Graph, outputs: &[TensorType]) -> OResult<Vec<Move>> {
        let (input, out) = (&g.ty(&node.inputs[0])?.shape, &outputs[0].shape);
        Ok(vec![Move::gather_into(0, broadcast_map(input, out), 0, out)])
    }
}
