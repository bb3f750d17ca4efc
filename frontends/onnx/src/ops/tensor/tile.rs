//! Tile: the input repeated `repeats[d]` times along each dim `d`.

use super::{dim, map, Move, Movement, Window};
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
            let n = k.mul(&DataExpr::Dim(d));
            dims.push(g.data_dim(format!("{}.{q}", node.outputs[0]), n));
        }
        Ok(vec![TensorType::with_dims(t.dtype, dims)])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    /// A shape vector repeated a constant number of times (the target of an Expand built by
    /// tiling `[batch]`) is the vector of its dims repeated.
    fn fold_shape(&self, _: &Node, _: &Graph, inputs: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        let x = inputs.first()?.as_ref()?;
        let times = inputs.get(1)?.as_ref()?.as_const()?.to_i64();
        let (1, &[n @ 0..=4096]) = (x.shape.len(), times.as_slice()) else { return None };
        let values = (0..n).flat_map(|_| x.values.iter().cloned()).collect();
        Some(Ok(vec![ShapeValue::vector(x.dtype, values)]))
    }

    /// A dim known only at run time repeated other than once (or by a count read at run time)
    /// wraps around at run time: output index `i` reads `i mod n`.
    fn windows(&self, node: &Node, g: &Graph, _: &[TensorType]) -> OResult<Option<Vec<Window>>> {
        let input = g.ty(&node.inputs[0])?.dims();
        let repeats = shape_data(g, node, 1, "repeats")?.ok_or_else(|| OnnxError::msg("Tile needs repeats"))?;
        if !input.iter().zip(&repeats).any(|(d, k)| !d.is_fixed() && k.as_const() != Some(1)) {
            return Ok(None);
        }
        let rank = input.len();
        let mut window = Window::read(0, 0, vec![DataExpr::num(0); rank], vec![DataExpr::num(1); rank]);
        // With one window, every dim repeated other than once reads `i mod n`, static ones too.
        window.wraps = repeats.iter().map(|k| k.as_const() != Some(1)).collect();
        Ok(Some(vec![window]))
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
