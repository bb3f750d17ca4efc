//! GatherND: slices of the data chosen by index tuples. With `b` batch dims and index tuples of
//! length `k` (the indices' last dim), `out[i..., r...] = data[i[..b], idx(i)..., r...]` where
//! `idx(i)` is the tuple at `indices[i..., :]`: `out.shape = indices.shape[..-1] + data.shape[b+k..]`.
//! In parallel over the index tuples; each tuple is read and checked once (an index out of range
//! sets the run's status), then the block it selects is copied.

use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;

pub struct GatherNd;

/// Batch dims, tuple length and the output shape, checked against both shapes.
fn layout(node: &Node, data: &[usize], indices: &[usize]) -> OResult<(usize, usize, Vec<usize>)> {
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
        return err(format!("the batch dims differ: data {:?}, indices {:?}", &data[..b], &indices[..b]));
    }
    let k = indices[q - 1];
    if k < 1 || b + k > r {
        return err(format!("index tuples of length {k} do not fit data of rank {r} after {b} batch dims"));
    }
    let mut shape = indices[..q - 1].to_vec();
    shape.extend(&data[b + k..]);
    Ok((b, k, shape))
}

impl OnnxOp for GatherNd {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let (t, idx) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?);
        let (b, k, shape) = layout(node, &t.shape, &idx.shape)?;
        super::gather::check_constant_indices(g, &node.inputs[1], &t.shape[b..b + k], b)?;
        Ok(vec![TensorType::new(t.dtype, shape)])
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let data = g.ty(&node.inputs[0])?.shape.clone();
        let idx_shape = g.ty(&node.inputs[1])?.shape.clone();
        let (b, k, out_shape) = layout(node, &data, &idx_shape)?;
        let (x, indices, out) = (e.buf(&node.inputs[0])?, e.buf(&node.inputs[1])?, e.buf(&node.outputs[0])?);
        let tuples = idx_shape.len() - 1;
        let (outer, inner) = out_shape.split_at(tuples);
        e.parallel(outer, &mut |e, ivs| {
            let mut from = ivs[..b].to_vec();
            for (j, &dim) in data[b..b + k].iter().enumerate() {
                let at = e.idx(j as i64);
                let raw = e.load(indices, &[ivs, &[at]].concat());
                from.push(e.run_time_index(raw, dim));
            }
            let ivs = ivs.to_vec();
            e.loop_nest(inner, &mut |e, rest| {
                let v = e.load(x, &[&from[..], rest].concat());
                e.store(v, out, &[&ivs[..], rest].concat());
            });
        });
        Ok(())
    }
}
