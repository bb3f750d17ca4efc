//! Expand: the input broadcast (numpy rules) to a shape given as an input: a constant, or a
//! shape computed from run-time dims.

use super::{dims_input, Move, Movement};
use crate::emit::broadcast_map;
use crate::graph::*;
use crate::ops::shapes::{broadcast_dims, element_data};

pub struct Expand;

impl Movement for Expand {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        if let Some(shape) = element_data(g, node, 1)? {
            return Ok(vec![TensorType::with_dims(t.dtype, expand_from_data(node, g, t, &shape)?)]);
        }
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

/// The broadcast dims with the shape read at run time: where the input's dim is 1 the shape's
/// decides, elsewhere the shape's must be 1 or the same (each run checks).
fn expand_from_data(node: &Node, g: &Graph, t: &TensorType, shape: &[DataExpr]) -> OResult<Vec<Dim>> {
    if t.is_dynamic() {
        return err("Expand with a shape read at run time takes an input of static dims");
    }
    let rank = t.shape.len().max(shape.len());
    let one = DataExpr::num(1);
    let mut out = Vec::new();
    for p in 0..rank {
        let a = (p + t.shape.len()).checked_sub(rank).map_or(1, |i| t.shape[i]);
        let s = (p + shape.len()).checked_sub(rank).map(|i| shape[i].clone()).unwrap_or(one.clone());
        let d = if a == 1 {
            g.data_dim(format!("{}.{p}", node.outputs[0]), s)
        } else {
            let fits = s.eq(&one).select(&one, &s.eq(&DataExpr::num(a as i64)));
            g.require(fits, format!("Expand's shape does not broadcast with the input's dim {a}"))?;
            Dim::fixed(a)
        };
        out.push(d);
    }
    Ok(out)
}
