//! Expand: the input broadcast (numpy rules) to a shape given as an input: a constant, or a
//! shape computed from run-time dims.

use super::{dims_input, Move, Movement};
use crate::emit::broadcast_map;
use crate::graph::*;
use crate::ops::shapes::broadcast_dims;

pub struct Expand;

impl Movement for Expand {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        let shape = dims_input(g, node, 1, "shape")?.ok_or_else(|| OnnxError::msg("Expand needs a shape"))?;
        if let Some(d) = shape.iter().find(|d| d.as_const().is_some_and(|c| c < 0)) {
            return err(format!("Expand's shape has a negative dim {d}"));
        }
        Ok(vec![TensorType::with_dims(t.dtype, broadcast_dims(&t.dims(), &shape)?)])
    }

    /// A dim of 1 broadcasts; a run-time input dim is the output's (the shape rule made sure).
    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn moves(&self, node: &Node, g: &Graph, outputs: &[TensorType]) -> OResult<Vec<Move>> {
        let (input, out) = (&g.ty(&node.inputs[0])?.shape, &outputs[0].shape);
        Ok(vec![Move::gather_into(0, broadcast_map(input, out), 0, out)])
    }
}
