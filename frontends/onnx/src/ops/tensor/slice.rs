//! Slice: per dim, `count` elements from `start` with `step` (possibly negative), the bounds
//! clamped as the spec says. Before opset 10 the parameters are attributes, after it inputs.

use super::{dim, map, offset, Move, Movement};
use crate::graph::*;
use crate::ops::shapes::axis;
use xcc_ir::affine::AffineExpr;

pub struct Slice;

impl Movement for Slice {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        let p = slice_params(node, &t.dims(), g)?;
        Ok(vec![TensorType::with_dims(t.dtype, p.into_iter().map(|x| x.2).collect())])
    }

    /// The sliced axes must be static; the others may be known only at run time.
    fn takes_run_time_dims(&self) -> bool {
        true
    }

    /// A piece of a shape: the parameters are constants, the data a vector of dims.
    fn fold_shape(&self, node: &Node, g: &Graph, inputs: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        let data = inputs[0].as_ref().filter(|v| v.shape.len() == 1)?;
        let p = match slice_params(node, &[Dim::fixed(data.values.len())], g) {
            Ok(p) => p,
            Err(e) => return Some(Err(e)),
        };
        let (start, step, count) = (p[0].0, p[0].1, p[0].2.as_fixed().unwrap_or(0));
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

/// Slice parameters: per-dimension (start, step, count) after clamping, as the spec defines. An
/// axis left whole keeps its dim, which may be known only at run time; a sliced one must be
/// static.
fn slice_params(node: &Node, dims: &[Dim], g: &Graph) -> OResult<Vec<(i64, i64, Dim)>> {
    let rank = dims.len();
    let (starts, ends, axes, steps) = if node.opset < 10 {
        (node.ints("starts").unwrap_or_default(), node.ints("ends").unwrap_or_default(), node.ints("axes"), None)
    } else {
        let get = |i: usize, what: &str| -> OResult<Option<Vec<i64>>> {
            match node.input(i) {
                None => Ok(None),
                Some(n) => g
                    .consts
                    .get(n)
                    .map(|t| Some(t.to_i64()))
                    .ok_or_else(|| OnnxError::msg(format!("Slice {what} '{n}' must be a constant"))),
            }
        };
        (get(1, "starts")?.unwrap_or_default(), get(2, "ends")?.unwrap_or_default(), get(3, "axes")?, get(4, "steps")?)
    };
    let axes: Vec<i64> = axes.unwrap_or_else(|| (0..starts.len() as i64).collect());
    let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
    if starts.len() != ends.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return err("starts, ends, axes and steps must have the same length");
    }
    let mut out: Vec<(i64, i64, Dim)> = dims.iter().map(|d| (0, 1, d.clone())).collect();
    for k in 0..starts.len() {
        let a = axis(node, axes[k], rank)?;
        let Some(d) = dims[a].as_fixed().map(|d| d as i64) else {
            return err(format!(
                "Slice along axis {a}, which is {}, known only at run time; fix it with --dim",
                dims[a]
            ));
        };
        let step = steps[k];
        if step == 0 {
            return err("a Slice step cannot be 0");
        }
        let clamp = |v: i64, lo: i64, hi: i64| v.max(lo).min(hi);
        let norm = |v: i64| if v < 0 { v + d } else { v };
        let (start, end) = if step > 0 {
            (clamp(norm(starts[k]), 0, d), clamp(norm(ends[k]), 0, d))
        } else {
            (clamp(norm(starts[k]), -1, d - 1), clamp(norm(ends[k]), -1, d - 1))
        };
        let count = if step > 0 {
            ((end - start).max(0) + step - 1) / step
        } else {
            ((start - end).max(0) + (-step) - 1) / (-step)
        };
        out[a] = (start, step, Dim::fixed(count as usize));
    }
    Ok(out)
}
