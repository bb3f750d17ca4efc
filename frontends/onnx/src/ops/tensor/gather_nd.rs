//! GatherND: slices of the data chosen by index tuples. With `b` batch dims and index tuples of
//! length `k` (the indices' last dim), `out[i..., r...] = data[i[..b], idx(i)..., r...]` where
//! `idx(i)` is the tuple at `indices[i..., :]`: `out.shape = indices.shape[..-1] + data.shape[b+k..]`.
//! In parallel over the index tuples; each tuple is read and checked once (an index out of range
//! sets the run's status), then the block it selects is copied.

use crate::dim::dims_text;
use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;

pub struct GatherNd;

/// Batch dims, tuple length and the output dims, checked against both inputs' dims (which may be
/// known only at run time, but for the tuples' length).
fn layout(node: &Node, data: &[Dim], indices: &[Dim]) -> OResult<(usize, usize, Vec<Dim>)> {
    let b = node.int("batch_dims", 0);
    let (r, q) = (data.len(), indices.len());
    if q == 0 || r == 0 {
        return err("data and indices must have rank 1 or more");
    }
    if b < 0 || b as usize >= q.min(r) {
        return err(format!("batch_dims {b} must be below the ranks of data ({r}) and indices ({q})"));
    }
    let b = b as usize;
    if data[..b] != indices[..b] {
        return err(format!(
            "the batch dims differ: data {}, indices {}",
            dims_text(&data[..b]),
            dims_text(&indices[..b])
        ));
    }
    let Some(k) = indices[q - 1].as_fixed() else {
        return err(format!(
            "the index tuples' length (the indices' last dim, {}) must be known at compile time",
            indices[q - 1]
        ));
    };
    if k < 1 || b + k > r {
        return err(format!("index tuples of length {k} do not fit data of rank {r} after {b} batch dims"));
    }
    let mut dims = indices[..q - 1].to_vec();
    dims.extend_from_slice(&data[b + k..]);
    Ok((b, k, dims))
}

impl OnnxOp for GatherNd {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let (t, idx) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?);
        let (b, k, dims) = layout(node, &t.dims(), &idx.dims())?;
        // Constant indices into static dims fail here; into run-time dims, the run checks them.
        if t.dims()[b..b + k].iter().all(Dim::is_fixed) {
            super::gather::check_constant_indices(g, &node.inputs[1], &t.shape[b..b + k], b)?;
        }
        Ok(vec![TensorType::with_dims(t.dtype, dims)])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let data = g.ty(&node.inputs[0])?.dims();
        let indices_dims = g.ty(&node.inputs[1])?.dims();
        let (b, k, out_dims) = layout(node, &data, &indices_dims)?;
        let (x, indices, out) = (e.buf(&node.inputs[0])?, e.buf(&node.inputs[1])?, e.buf(&node.outputs[0])?);
        let data = e.dim_extents(&data);
        let out_extents = e.dim_extents(&out_dims);
        let (outer, inner) = out_extents.split_at(indices_dims.len() - 1);
        e.parallel_over(outer, &mut |e, ivs| {
            let mut from = ivs[..b].to_vec();
            for (j, &dim) in data[b..b + k].iter().enumerate() {
                let at = e.idx(j as i64);
                let raw = e.load(indices, &[ivs, &[at]].concat());
                from.push(e.run_time_index_over(raw, dim));
            }
            let ivs = ivs.to_vec();
            e.loop_nest_over(inner, &mut |e, rest| {
                let v = e.load(x, &[&from[..], rest].concat());
                e.store(v, out, &[&ivs[..], rest].concat());
            });
        });
        Ok(())
    }
}
