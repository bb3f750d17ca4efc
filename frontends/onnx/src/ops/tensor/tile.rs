//! Tile: the input repeated `repeats[d]` times along each dim `d`.

use super::{dim, map, Move, Movement};
use crate::graph::*;
use crate::ops::shapes::shape_data;
use xcc_ir::affine::AffineExpr;

pub struct Tile;

impl Movement for Tile {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        let r = shape_data(g, node, 1, "repeats")?.ok_or_else(|| OnnxError::msg("Tile needs repeats"))?;
        if r.len() != t.shape.len() {
            return err("repeats must have one entry per dimension");
        }
        let mut dims = Vec::new();
        for (q, (&d, k)) in t.shape.iter().zip(&r).enumerate() {
            g.require(DataExpr::num(-1).lt(k), "Tile's repeats are negative")?;
            let n = k.mul(&DataExpr::num(d as i64));
            dims.push(g.data_dim(format!("{}.{q}", node.outputs[0]), n));
        }
        Ok(vec![TensorType::with_dims(t.dtype, dims)])
    }

    /// Output index `i` reads input index `i mod size` (the loops' sizes come from the output,
    /// whose dims the run may compute from `repeats`).
    fn moves(&self, node: &Node, g: &Graph, outputs: &[TensorType]) -> OResult<Vec<Move>> {
        let input = &g.ty(&node.inputs[0])?.shape;
        let rank = input.len();
        let read = (0..rank)
            .map(|d| match input[d] {
                1 => AffineExpr::Const(0),
                n => AffineExpr::Mod(Box::new(dim(d)), Box::new(AffineExpr::Const(n as i64))),
            })
            .collect();
        Ok(vec![Move::gather_into(0, map(rank, read), 0, &outputs[0].shape)])
    }
}
