//! LayerNormalization: parallel over the rows (the dims before `axis`); each row normalized by
//! its mean and standard deviation, then scaled and shifted. The optional Mean and InvStdDev
//! outputs are float32 (the stash type). An f32 row runs on vectors ([`super::rows`]).

use super::rows::{lanes, row_fold, row_store, split, LANES};
use crate::emit::{Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::shapes::axis;
use xcc_ir::{Type, ValueId};

pub struct LayerNormalization;

impl crate::ops::onnx_op::OnnxOp for LayerNormalization {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = super::float_input(node, g)?;
        let a = axis(node, node.int("axis", -1), x.shape.len())?;
        let dims = x.dims();
        if let Some(d) = dims[a..].iter().find(|d| !d.is_fixed()) {
            return err(format!("the normalized dims must be known at compile time, not {d}"));
        }
        // Mean and InvStdDev keep the leading dims and reduce the rest to 1.
        let mut stat = dims[..a].to_vec();
        stat.extend(std::iter::repeat_n(Dim::fixed(1), x.shape.len() - a));
        let stat_t = TensorType::with_dims(DType::F32, stat);
        let mut out = vec![x.clone()];
        out.extend(node.outputs.iter().skip(1).map(|_| stat_t.clone()));
        Ok(out)
    }

    /// The leading dims may be known only at run time; the normalized ones may not.
    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?;
        let a = axis(node, node.int("axis", -1), x_t.shape.len())?;
        let outer = e.dim_extent(&Dim::product(&x_t.dims()[..a]));
        let row: usize = x_t.shape[a..].iter().product();
        let eps = node.float("epsilon", 1e-5) as f64;
        let x2 = e.reshaped_over(e.buf(&node.inputs[0])?, &[outer, Extent::Fixed(row)]);
        let o2 = e.reshaped_over(e.buf(&node.outputs[0])?, &[outer, Extent::Fixed(row)]);
        let scale = norm_param(e, node, g, 1, row)?;
        let bias = match node.input(2) {
            Some(_) => Some(norm_param(e, node, g, 2, row)?),
            None => None,
        };
        let d = x_t.dtype;
        let stats: Vec<Option<ValueId>> =
            super::optional_outputs(e, node, 1, 2)?.into_iter().map(|b| b.map(|b| e.flat(b))).collect();
        if let (false, DType::F32, Extent::Fixed(rows)) = (e.vector_rows, d, outer) {
            let stats = [stats[0], stats[1]];
            super::chunked_rows::layer_norm(e, (x2, o2), (rows, row), (scale, bias), eps, stats);
            return Ok(());
        }
        e.parallel_over(&[outer], &mut |e, ivs| {
            let o = ivs[0];
            let (mean, var) = if d == DType::F32 {
                row_moments(e, x2, o, row)
            } else {
                e.mean_variance(x2, &[Extent::Fixed(row)], d, &|ks| vec![o, ks[0]])
            };
            let sd = e.std_dev(var, eps, d);
            let one = e.const_of(1.0, d);
            let inv = e.fbin("arith.divf", one, sd);
            for (stat, v) in stats.iter().zip([mean, inv]) {
                if let Some(buf) = stat {
                    let v = e.convert(v, d, DType::F32);
                    e.store(v, *buf, &[o]);
                }
            }
            // `(x - mean) * inv * scale + bias`, on vectors of f32 then the row's last elements.
            let normalize = |e: &mut Emitter, q: ValueId, ty: &Type, (mean, inv): (ValueId, ValueId)| {
                let load = |e: &mut Emitter, buf: ValueId, at: &[ValueId]| match ty {
                    Type::Vector { .. } => e.value_op("vector.load", &[&[buf][..], at].concat(), ty.clone()),
                    _ => e.load(buf, at),
                };
                let v = load(e, x2, &[o, q]);
                let c = e.fbin("arith.subf", v, mean);
                let nrm = e.fbin("arith.mulf", c, inv);
                let s = load(e, scale, &[q]);
                let mut r = e.fbin("arith.mulf", nrm, s);
                if let Some(b) = bias {
                    let bv = load(e, b, &[q]);
                    r = e.fbin("arith.addf", r, bv);
                }
                row_store(e, r, o2, o, q);
            };
            let (first, end) = match d {
                DType::F32 => split(e, Extent::Fixed(row)),
                _ => (e.idx(0), e.idx(row as i64)),
            };
            if d == DType::F32 {
                let vt = lanes();
                let splat = |e: &mut Emitter, v: ValueId| e.value_op("vector.broadcast", &[v], vt.clone());
                let stats = (splat(e, mean), splat(e, inv));
                let zero = e.idx(0);
                e.for_step(zero, first, LANES, |e, q| normalize(e, q, &vt, stats));
            }
            let ty = e.m.ty(mean).clone();
            e.for_step(first, end, 1, |e, q| normalize(e, q, &ty, (mean, inv)));
        });
        Ok(())
    }
}

/// The mean and variance of row `o` of the f32 `[rows, row]` buffer `x2`, in two vector folds
/// (the sum, then the squared deviations from the mean).
fn row_moments(e: &mut Emitter, x2: ValueId, o: ValueId, row: usize) -> (ValueId, ValueId) {
    let bounds = split(e, Extent::Fixed(row));
    let zero = e.const_of(0.0, DType::F32);
    let sum = row_fold(e, (x2, o), bounds, zero, "add", &mut |_, v, _| v);
    let count = e.const_of(row as f64, DType::F32);
    let mean = e.fbin("arith.divf", sum, count);
    let mean_v = e.value_op("vector.broadcast", &[mean], lanes());
    let squares = row_fold(e, (x2, o), bounds, zero, "add", &mut |e, v, _| {
        let m = if e.m.ty(v).is_float() { mean } else { mean_v };
        let dev = e.fbin("arith.subf", v, m);
        e.fbin("arith.mulf", dev, dev)
    });
    (mean, e.fbin("arith.divf", squares, count))
}

/// Scale or bias (input `i`) as a 1-D view of `n` elements.
fn norm_param(e: &mut Emitter, node: &Node, g: &Graph, i: usize, n: usize) -> OResult<ValueId> {
    let name = &node.inputs[i];
    let t = g.ty(name)?;
    if t.numel() != n {
        return err(format!(
            "'{name}' has {} elements, expected {n} (broadcast scale/bias is not supported)",
            t.numel()
        ));
    }
    let b = e.buf(name)?;
    Ok(if t.shape.len() == 1 { b } else { e.reshaped(b, &[n]) })
}
