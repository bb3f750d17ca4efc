//! Concat: each input written at its offset along `axis`; on shape values, the joined vector.

use super::{shifted, Move, Movement, Window};
use crate::dim::dims_text;
use crate::emit::identity;
use crate::graph::*;
use crate::ops::shapes::{axis, plainer, same_dim_in};

pub struct Concat;

impl Movement for Concat {
    /// Dims outside the axis must be equal as expressions (or checked equal by the run, where it
    /// computes one); along it, they add up (`past + seq`).
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let first = g.ty(&node.inputs[0])?;
        let a = axis(node, node.int("axis", 0), first.shape.len())?;
        let mut dims = first.dims();
        dims[a] = Dim::fixed(0);
        let inputs: Vec<&String> = node.inputs.iter().filter(|s| !s.is_empty()).collect();
        for name in &inputs {
            let t = g.ty(name)?;
            let d = t.dims();
            let mut matches = d.len() == dims.len();
            for (i, x) in d.iter().enumerate() {
                if matches && i != a {
                    matches = same_dim_in(g, x, &dims[i])?;
                    dims[i] = plainer(&dims[i], x).clone();
                }
            }
            if !matches {
                return err(format!(
                    "input '{name}' is {}, which does not match {} outside axis {a}",
                    dims_text(&d),
                    dims_text(&first.dims())
                ));
            }
            dims[a] = dims[a].add(&d[a]);
        }
        Ok(vec![TensorType::with_dims(first.dtype, dims)])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn fold_shape(&self, node: &Node, _: &Graph, inputs: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        let parts: Vec<&ShapeValue> = node
            .inputs
            .iter()
            .zip(inputs)
            .filter(|(n, _)| !n.is_empty())
            .map(|(_, v)| v.as_ref())
            .collect::<Option<_>>()?;
        if parts.iter().any(|v| v.shape.len() != 1 || v.dtype != parts[0].dtype) {
            return None;
        }
        Some(Ok(vec![ShapeValue::vector(parts[0].dtype, parts.iter().flat_map(|v| v.values.clone()).collect())]))
    }

    /// Offsets along the axis known only at run time (an input before the last sized at run
    /// time, as a KV cache's past): each input is copied to where the ones before it end.
    fn windows(&self, node: &Node, g: &Graph, _: &[TensorType]) -> OResult<Option<Vec<Window>>> {
        let rank = g.ty(&node.inputs[0])?.shape.len();
        let a = axis(node, node.int("axis", 0), rank)?;
        let mut before_last: Vec<&String> = node.inputs.iter().filter(|s| !s.is_empty()).collect();
        before_last.pop();
        let mut at_run_time = false;
        for name in before_last {
            at_run_time |= !g.ty(name)?.dims()[a].is_fixed();
        }
        if !at_run_time {
            return Ok(None);
        }
        let mut base = Dim::fixed(0);
        let mut windows = Vec::new();
        for (k, name) in node.inputs.iter().enumerate().filter(|(_, s)| !s.is_empty()) {
            let mut offsets = vec![DataExpr::num(0); rank];
            offsets[a] = DataExpr::Dim(base.clone());
            windows.push(Window::write_at(k, 0, offsets));
            base = base.add(&g.ty(name)?.dims()[a]);
        }
        Ok(Some(windows))
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
