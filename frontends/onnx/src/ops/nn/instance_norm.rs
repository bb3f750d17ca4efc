//! InstanceNormalization: parallel over batch and channel; each (n, c) plane normalized by its
//! own mean and variance, then scaled and shifted per channel. The batch and the spatial dims
//! may be known only at run time.

use crate::emit::{Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::shapes::image_dims;

pub struct InstanceNormalization;

impl crate::ops::onnx_op::OnnxOp for InstanceNormalization {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = super::float_input(node, g)?;
        if x.shape.len() < 2 {
            return err(format!("the input needs a batch and a channel dim, not {}", x.describe()));
        }
        image_dims(&node.inputs[0], x)?;
        super::per_channel(node, g, &[1, 2], x.shape[1])?;
        Ok(vec![x.clone()])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?;
        let dims = x_t.dims();
        let (nb, ch) = (e.dim_extent(&dims[0]), Extent::Fixed(x_t.shape[1]));
        let spatial = e.dim_extents(&dims[2..]);
        let s = e.extent_product(&spatial);
        let x3 = e.reshaped_over(e.buf(&node.inputs[0])?, &[nb, ch, s]);
        let o3 = e.reshaped_over(e.buf(&node.outputs[0])?, &[nb, ch, s]);
        let eps = node.float("epsilon", 1e-5) as f64;
        let scale = e.buf(&node.inputs[1])?;
        let bias = e.buf(&node.inputs[2])?;
        let d = x_t.dtype;
        e.parallel_over(&[nb, ch], &mut |e, ivs| {
            let (n, c) = (ivs[0], ivs[1]);
            let (mean, var) = e.mean_variance(x3, &[s], d, &|ks| vec![n, c, ks[0]]);
            let sd = e.std_dev(var, eps, d);
            let sc = e.load(scale, &[c]);
            let k = e.fbin("arith.divf", sc, sd);
            let bi = e.load(bias, &[c]);
            e.for_loop_over(s, |e, q| {
                let v = e.load(x3, &[n, c, q]);
                let dv = e.fbin("arith.subf", v, mean);
                let r = e.fmuladd(dv, k, bi);
                e.store(r, o3, &[n, c, q]);
            });
        });
        Ok(())
    }
}
