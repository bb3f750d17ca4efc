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
        let p = slice_params(node, &t.shape, g)?;
        Ok(vec![TensorType::new(t.dtype, p.iter().map(|x| x.2).collect())])
    }

    /// Output index `i` reads `start + i * step`.
    fn moves(&self, node: &Node, g: &Graph, outputs: &[TensorType]) -> OResult<Vec<Move>> {
        let p = slice_params(node, &g.ty(&node.inputs[0])?.shape, g)?;
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

/// Slice parameters: per-dimension (start, step, count) after clamping, as the spec defines.
fn slice_params(node: &Node, shape: &[usize], g: &Graph) -> OResult<Vec<(i64, i64, usize)>> {
    let rank = shape.len();
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
    let mut out: Vec<(i64, i64, usize)> = shape.iter().map(|&d| (0, 1, d)).collect();
    for k in 0..starts.len() {
        let a = axis(node, axes[k], rank)?;
        let d = shape[a] as i64;
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
        out[a] = (start, step, count as usize);
    }
    Ok(out)
}
