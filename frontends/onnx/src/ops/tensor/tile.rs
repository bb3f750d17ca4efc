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
        for (q, (d, k)) in t.dims().into_iter().zip(&r).enumerate() {
            g.require(DataExpr::num(-1).lt(k), "Tile's repeats are negative")?;
            if !d.is_fixed() && k.as_const() != Some(1) {
                return err(format!(
                    "Tile repeats dim {q}, which is {d}, known only at run time: only a repeat of 1 (a constant) is \
                     supported along such a dim; fix it with --dim"
                ));
            }
            let n = k.mul(&DataExpr::Dim(d));
            dims.push(g.data_dim(format!("{}.{q}", node.outputs[0]), n));
        }
        Ok(vec![TensorType::with_dims(t.dtype, dims)])
    }

    /// Dims known only at run time are repeated once (checked by the shape rule).
    fn takes_run_time_dims(&self) -> bool {
        true
    }

    /// Output index `i` reads input index `i mod size` (the loops' sizes come from the output,
    /// whose dims the run may compute from `repeats`); along a dim known only at run time,
    /// repeated once, index `i`.
    fn moves(&self, node: &Node, g: &Graph, outputs: &[TensorType]) -> OResult<Vec<Move>> {
        let input = &g.ty(&node.inputs[0])?.dims();
        let rank = input.len();
        let read = (0..rank)
            .map(|d| match input[d].as_fixed() {
                None => dim(d),
                Some(1) => AffineExpr::Const(0),
                Some(n) => AffineExpr::Mod(Box::new(dim(d)), Box::new(AffineExpr::Const(n as i64))),
            })
            .collect();
        Ok(vec![Move::gather_into(0, map(rank, read), 0, &outputs[0].shape)])
    }
}
