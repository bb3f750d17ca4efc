//! Split: consecutive pieces along `axis`, one per output.

use super::{shifted, Move, Movement, Window};
use crate::graph::*;
use crate::ops::shapes::{axis, shape_data};

pub struct Split;

/// The sizes along the axis: the `split` attribute (before 13), the `split` input (a constant or
/// read at run time), or `num_outputs` (18) / equal parts: `ceil(dim / n)` each, the last one
/// what is left, which must not be negative (as in ONNX Runtime and the reference). Sizes read at
/// run time are checked to be non-negative and to cover the dim, and so are constant sizes of a
/// dim known only at run time.
fn split_sizes(node: &Node, g: &Graph, dim: &Dim) -> OResult<Vec<DataExpr>> {
    let explicit = match node.ints("split") {
        Some(s) => Some(s.into_iter().map(DataExpr::num).collect()),
        None => shape_data(g, node, 1, "split")?,
    };
    // Equal parts cover the dim by construction (the last is what the others leave).
    let equal_parts = explicit.is_none();
    let sizes: Vec<DataExpr> = match explicit {
        Some(s) => s,
        None => {
            let n = node.int("num_outputs", node.outputs.len() as i64);
            if n != node.outputs.len() as i64 {
                return err(format!("num_outputs is {n}, but the node has {} outputs", node.outputs.len()));
            }
            let whole = DataExpr::Dim(dim.clone());
            let chunk = g.simplify(&whole.add(&DataExpr::num(n - 1)).floor_div(&DataExpr::num(n)));
            let last = g.simplify(&whole.sub(&chunk.mul(&DataExpr::num(n - 1))));
            std::iter::repeat_n(chunk, n as usize - 1).chain([last]).collect()
        }
    };
    let total = DataExpr::sum(sizes.iter().cloned());
    let covers = if equal_parts { DataExpr::num(1) } else { g.simplify(&total.eq(&DataExpr::Dim(dim.clone()))) };
    let known: Option<Vec<i64>> = sizes.iter().map(DataExpr::as_const).collect();
    if covers.as_const() == Some(0)
        || sizes.len() != node.outputs.len()
        || known.is_some_and(|k| k.iter().any(|&x| x < 0))
    {
        let shown: Vec<String> = sizes.iter().map(|x| x.as_const().map_or("?".into(), |c| c.to_string())).collect();
        return err(format!(
            "split sizes [{}] do not cover dimension {dim} with {} outputs",
            shown.join(", "),
            node.outputs.len()
        ));
    }
    for x in &sizes {
        g.require(DataExpr::num(-1).lt(x), "a Split size is negative")?;
    }
    g.require(covers, format!("the Split sizes do not add up to {dim}"))?;
    Ok(sizes)
}

impl Movement for Split {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        if t.shape.is_empty() {
            return err("Split's input must have rank 1 or more, not a scalar");
        }
        let a = axis(node, node.int("axis", 0), t.shape.len())?;
        let pieces = split_sizes(node, g, &t.dims()[a])?.into_iter().zip(&node.outputs).map(|(s, name)| {
            let mut dims = t.dims();
            dims[a] = g.data_dim(format!("{name}.{a}"), s);
            TensorType::with_dims(t.dtype, dims)
        });
        Ok(pieces.collect())
    }

    /// Sizes read at run time: each piece starts where the ones before it end.
    fn windows(&self, node: &Node, g: &Graph, _: &[TensorType]) -> OResult<Option<Vec<Window>>> {
        let t = g.ty(&node.inputs[0])?;
        let (rank, a) = (t.shape.len(), axis(node, node.int("axis", 0), t.shape.len())?);
        let sizes = split_sizes(node, g, &t.dims()[a])?;
        if sizes.iter().all(|x| x.as_const().is_some()) {
            return Ok(None);
        }
        let mut base = DataExpr::num(0);
        let mut windows = Vec::new();
        for (k, size) in sizes.iter().enumerate() {
            let mut starts = vec![DataExpr::num(0); rank];
            starts[a] = base.clone();
            windows.push(Window::read(0, k, starts, vec![DataExpr::num(1); rank]));
            base = base.add(size);
        }
        Ok(Some(windows))
    }

    /// Any dim may be known only at run time, the split one too (its pieces are then computed
    /// by the run, or checked by it to cover the dim).
    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn moves(&self, node: &Node, g: &Graph, outputs: &[TensorType]) -> OResult<Vec<Move>> {
        let rank = g.ty(&node.inputs[0])?.shape.len();
        let a = axis(node, node.int("axis", 0), rank)?;
        let mut base = 0;
        let mut moves = Vec::new();
        for (k, out) in outputs.iter().enumerate() {
            moves.push(Move::gather_into(0, shifted(rank, a, base), k, &out.shape));
            base += out.shape[a];
        }
        Ok(moves)
    }
}
