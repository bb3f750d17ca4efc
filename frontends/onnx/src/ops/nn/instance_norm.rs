//! InstanceNormalization: parallel over batch and channel; each (n, c) plane normalized by its
//! own mean and variance, then scaled and shifted per channel.

use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;

pub struct InstanceNormalization;

impl crate::ops::onnx_op::OnnxOp for InstanceNormalization {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        Ok(vec![super::float_input(node, g)?.clone()])
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?;
        let (nb, ch) = (x_t.shape[0], x_t.shape[1]);
        let s: usize = x_t.shape[2..].iter().product();
        let x3 = e.reshaped(e.buf(&node.inputs[0])?, &[nb, ch, s]);
        let o3 = e.reshaped(e.buf(&node.outputs[0])?, &[nb, ch, s]);
        let eps = node.float("epsilon", 1e-5) as f64;
        let scale = e.buf(&node.inputs[1])?;
        let bias = e.buf(&node.inputs[2])?;
        let d = x_t.dtype;
        e.parallel(&[nb, ch], &mut |e, ivs| {
            let (n, c) = (ivs[0], ivs[1]);
            let (mean, var) = e.mean_variance(x3, &[s], d, &|ks| vec![n, c, ks[0]]);
            let sd = e.std_dev(var, eps, d);
            let sc = e.load(scale, &[c]);
            let k = e.fbin("arith.divf", sc, sd);
            let bi = e.load(bias, &[c]);
            e.for_loop(0, s, |e, q| {
                let v = e.load(x3, &[n, c, q]);
                let dv = e.fbin("arith.subf", v, mean);
                let r = e.fmuladd(dv, k, bi);
                e.store(r, o3, &[n, c, q]);
            });
        });
        Ok(())
    }
}
