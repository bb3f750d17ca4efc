//! LayerNormalization: parallel over the rows (the dims before `axis`); each row normalized by
//! its mean and standard deviation, then scaled and shifted. The optional Mean and InvStdDev
//! outputs are float32 (the stash type).

use crate::emit::{Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::shapes::axis;
use xcc_ir::ValueId;

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
        e.parallel_over(&[outer], &mut |e, ivs| {
            let o = ivs[0];
            let (mean, var) = e.mean_variance(x2, &[Extent::Fixed(row)], d, &|ks| vec![o, ks[0]]);
            let sd = e.std_dev(var, eps, d);
            let one = e.const_of(1.0, d);
            let inv = e.fbin("arith.divf", one, sd);
            for (stat, v) in stats.iter().zip([mean, inv]) {
                if let Some(buf) = stat {
                    let v = e.convert(v, d, DType::F32);
                    e.store(v, *buf, &[o]);
                }
            }
            e.for_loop(0, row, |e, q| {
                let v = e.load(x2, &[o, q]);
                let c = e.fbin("arith.subf", v, mean);
                let nrm = e.fbin("arith.mulf", c, inv);
                let s = e.load(scale, &[q]);
                let mut r = e.fbin("arith.mulf", nrm, s);
                if let Some(b) = bias {
                    let bv = e.load(b, &[q]);
                    r = e.fbin("arith.addf", r, bv);
                }
                e.store(r, o2, &[o, q]);
            });
        });
        Ok(())
    }
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
