//! Slice: per dim, `count` elements from `start` with `step` (possibly negative), the bounds
//! clamped as the spec says. Before opset 10 the parameters are attributes, after it inputs.

use super::{dim, map, offset, Move, Movement, Window};
use crate::graph::*;
use crate::ops::shapes::{axis, data_axis_hits, shape_data};
use xcc_ir::affine::AffineExpr;

pub struct Slice;

impl Movement for Slice {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        let p = data_slice_params(node, &t.dims(), g)?;
        let dims = p.into_iter().enumerate().map(|(q, x)| g.data_dim(format!("{}.{q}", node.outputs[0]), x.2));
        Ok(vec![TensorType::with_dims(t.dtype, dims.collect())])
    }

    /// Parameters read at run time: output index `i` reads `start + i * step`, both computed
    /// by the run.
    fn windows(&self, node: &Node, g: &Graph, _: &[TensorType]) -> OResult<Option<Vec<Window>>> {
        let p = data_slice_params(node, &g.ty(&node.inputs[0])?.dims(), g)?;
        if p.iter().all(|x| constant_slice(x.clone()).is_some()) {
            return Ok(None);
        }
        let (starts, steps) = p.into_iter().map(|(start, step, _)| (start, step)).unzip();
        Ok(Some(vec![Window::read(0, 0, starts, steps)]))
    }

    /// Any axis may be known only at run time. Where the symbols' ranges decide the clamping,
    /// the slice stays an expression of the dims (`-1:` is `seq - 1` and one long; `past : past
    /// + seq` of a 512-row table is `seq` long when `past + seq` is at most 512); elsewhere the
    /// run computes it from the dims (`:3` of `seq` is `min(seq, 3)` long).
    fn takes_run_time_dims(&self) -> bool {
        true
    }

    /// A piece of a shape: the parameters are constants, the data a vector of dims.
    fn fold_shape(&self, node: &Node, g: &Graph, inputs: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        let data = inputs[0].as_ref().filter(|v| v.shape.len() == 1)?;
        let p = match data_slice_params(node, &[Dim::fixed(data.values.len())], g) {
            Ok(p) => constant_slice(p[0].clone())?,
            Err(e) => return Some(Err(e)),
        };
        let (start, step, count) = (p.0, p.1, p.2.as_fixed().unwrap_or(0));
        let values = (0..count as i64).map(|i| data.values[(start + i * step) as usize].clone()).collect();
        Some(Ok(vec![ShapeValue::vector(data.dtype, values)]))
    }

    /// Output index `i` reads `start + i * step`.
    fn moves(&self, node: &Node, g: &Graph, outputs: &[TensorType]) -> OResult<Vec<Move>> {
        let p = slice_params(node, &g.ty(&node.inputs[0])?.dims(), g)?;
        let read = p
            .iter()
            .enumerate()
            .map(|(d, &(start, step, _))| {
                let scaled = if step == 1 {
                    dim(d)
                } else {
                    AffineExpr::Mul(Box::new(dim(d)), Box::new(AffineExpr::Const(step)))
                };
                offset(scaled, start)
            })
            .collect();
        Ok(vec![Move::gather_into(0, map(p.len(), read), 0, &outputs[0].shape)])
    }
}

/// One dim's slice: the first index read, the step, and the count (numbers when the
/// parameters are constants, else what the run computes from them).
type DimSlice = (DataExpr, DataExpr, DataExpr);

/// [`data_slice_params`] when every parameter is a number.
fn slice_params(node: &Node, dims: &[Dim], g: &Graph) -> OResult<Vec<(i64, i64, Dim)>> {
    let p = data_slice_params(node, dims, g)?;
    p.into_iter()
        .map(|x| {
            constant_slice(x)
                .ok_or_else(|| OnnxError::msg("internal: Slice parameters read at run time reached the constant path"))
        })
        .collect()
}

/// A dim's slice as numbers (the count a dim), when it is known at compile time.
fn constant_slice((start, step, count): DimSlice) -> Option<(i64, i64, Dim)> {
    match count {
        DataExpr::Dim(count) => Some((start.as_const()?, step.as_const()?, count)),
        _ => None,
    }
}

/// Slice parameters: per-dimension (start, step, count) after clamping, as the spec defines;
/// the parameters may be read at run time (then every step is checked to be non-zero and every
/// axis to be in range and named once). An axis left whole keeps its dim.
fn data_slice_params(node: &Node, dims: &[Dim], g: &Graph) -> OResult<Vec<DimSlice>> {
    let attr = |name: &str| node.ints(name).map(|v| v.into_iter().map(DataExpr::num).collect::<Vec<_>>());
    let (starts, ends, axes, steps) = if node.opset < 10 {
        (attr("starts").unwrap_or_default(), attr("ends").unwrap_or_default(), attr("axes"), None)
    } else {
        let get = |i: usize, what: &str| shape_data(g, node, i, what);
        (get(1, "starts")?.unwrap_or_default(), get(2, "ends")?.unwrap_or_default(), get(3, "axes")?, get(4, "steps")?)
    };
    let axes: Vec<DataExpr> = axes.unwrap_or_else(|| (0..starts.len() as i64).map(DataExpr::num).collect());
    let steps = steps.unwrap_or_else(|| vec![DataExpr::num(1); starts.len()]);
    if starts.len() != ends.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return err("starts, ends, axes and steps must have the same length");
    }
    let axes = slice_axes(node, g, &axes, dims)?;
    let mut out: Vec<DimSlice> =
        dims.iter().map(|d| (DataExpr::num(0), DataExpr::num(1), DataExpr::Dim(d.clone()))).collect();
    for k in 0..starts.len() {
        if steps[k].as_const() == Some(0) {
            return err("a Slice step cannot be 0");
        }
        g.require(steps[k].eq(&DataExpr::num(0)).not(), "a Slice step is 0")?;
        for (q, hit) in axes[k].iter().enumerate() {
            let here = dim_slice(&starts[k], &ends[k], &steps[k], &DataExpr::Dim(dims[q].clone()));
            let pick = |new: &DataExpr, old: &DataExpr| g.simplify(&hit.select(new, old));
            out[q] = (pick(&here.0, &out[q].0), pick(&here.1, &out[q].1), pick(&here.2, &out[q].2));
        }
    }
    Ok(out)
}

/// Per parameter `k`, per dim, whether axis `k` names that dim (1 or 0): numbers for constant
/// axes; for axes read at run time, the run checks them.
fn slice_axes(node: &Node, g: &Graph, axes: &[DataExpr], dims: &[Dim]) -> OResult<Vec<Vec<DataExpr>>> {
    let rank = dims.len();
    let one_hot = |a: usize| (0..rank).map(|q| DataExpr::num(i64::from(q == a))).collect::<Vec<_>>();
    let mut hits = Vec::new();
    for x in axes {
        let row = match x.as_const() {
            Some(c) => one_hot(axis(node, c, rank)?),
            None => {
                let a = x.axis(rank);
                (0..rank).map(|q| a.eq(&DataExpr::num(q as i64))).collect()
            }
        };
        hits.push(row);
    }
    if axes.iter().any(|a| a.as_const().is_none()) {
        data_axis_hits(g, axes, rank)?;
    } else {
        let named: Vec<usize> =
            hits.iter().map(|r| r.iter().position(|h| h.as_const() == Some(1)).unwrap_or(0)).collect();
        if (1..named.len()).any(|i| named[..i].contains(&named[i])) {
            return err("an axis is named twice");
        }
    }
    Ok(hits)
}

/// The clamped start and the count of one dim of size `n` sliced `start..end` by `step`.
fn dim_slice(start: &DataExpr, end: &DataExpr, step: &DataExpr, n: &DataExpr) -> DimSlice {
    let (zero, one) = (DataExpr::num(0), DataExpr::num(1));
    let forward = zero.lt(step);
    let norm = |v: &DataExpr| v.lt(&zero).select(&v.add(n), v);
    let clamp = |v: &DataExpr, lo: &DataExpr, hi: &DataExpr| v.max(lo).min(hi);
    let (last, before) = (n.sub(&one), zero.sub(&one));
    let bound = |v: &DataExpr| forward.select(&clamp(&norm(v), &zero, n), &clamp(&norm(v), &before, &last));
    let (first, last) = (bound(start), bound(end));
    let span = forward.select(&last.sub(&first), &first.sub(&last)).max(&zero);
    let stride = forward.select(step, &zero.sub(step));
    let count = span.add(&stride).sub(&DataExpr::num(1)).floor_div(&stride);
    (first, step.clone(), count)
}
