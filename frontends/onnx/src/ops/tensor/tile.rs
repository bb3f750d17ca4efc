//! Tile: the input repeated `repeats[d]` times along each dim `d`.

use super::{const_input, dim, map, Move, Movement};
use crate::graph::*;
use xcc_ir::affine::AffineExpr;

pub struct Tile;

impl Movement for Tile {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        let r = const_input(g, node, 1, "repeats")?.ok_or_else(|| OnnxError::msg("Tile needs repeats"))?.to_i64();
        if r.len() != t.shape.len() {
            return err("repeats must have one entry per dimension");
        }
        Ok(vec![TensorType::new(t.dtype, t.shape.iter().zip(&r).map(|(&d, &k)| d * k.max(0) as usize).collect())])
    }

    /// Output index `i` reads input index `i mod size`.
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
