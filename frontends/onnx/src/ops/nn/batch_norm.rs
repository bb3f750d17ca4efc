//! BatchNormalization. Inference: `(x - mean) * scale / sqrt(var + epsilon) + bias` per channel
//! with the given statistics (usually folded into the preceding Conv before lowering, see
//! `fuse.rs`). Training mode: the batch's own statistics per channel, and the running mean and
//! variance as optional outputs.

use crate::emit::{Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::shapes::image_dims;
use xcc_ir::ValueId;

pub struct BatchNormalization;

impl crate::ops::onnx_op::OnnxOp for BatchNormalization {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = super::float_input(node, g)?;
        if x.is_dynamic() && node.int("training_mode", 0) == 1 {
            return err(format!("training mode takes static dims, not {}", x.describe()));
        }
        image_dims(&node.inputs[0], x)?;
        super::per_channel(node, g, &[1, 2, 3, 4], x.shape.get(1).copied().unwrap_or(1))?;
        // Training mode also gives the running mean and variance, one value per channel.
        let stat = TensorType::new(x.dtype, vec![x.shape.get(1).copied().unwrap_or(1)]);
        let mut out = vec![x.clone()];
        out.extend(node.outputs.iter().skip(1).take(2).map(|_| stat.clone()));
        Ok(out)
    }

    /// A batch known only at run time, in inference mode.
    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?;
        let (nb, ch) = (e.dim_extent(&x_t.dims()[0]), x_t.shape.get(1).copied().unwrap_or(1));
        let s = if x_t.is_dynamic() {
            let spatial = e.dim_extents(&x_t.dims()[2.min(x_t.shape.len())..]);
            e.extent_product(&spatial)
        } else {
            Extent::Fixed(x_t.shape.iter().skip(2).product())
        };
        let view = [nb, Extent::Fixed(ch), s];
        let layout = Layout {
            x3: e.reshaped_over(e.buf(&node.inputs[0])?, &view),
            o3: e.reshaped_over(e.buf(&node.outputs[0])?, &view),
            batch: nb,
            channels: ch,
            spatial: s,
            d: x_t.dtype,
            eps: node.float("epsilon", 1e-5) as f64,
        };
        // scale, bias, mean, var
        let p: Vec<ValueId> = (1..5).map(|i| e.buf(&node.inputs[i])).collect::<OResult<_>>()?;
        if node.int("training_mode", 0) == 1 {
            let running = super::optional_outputs(e, node, 1, 2)?;
            training(e, &layout, &p, &running, node.float("momentum", 0.9) as f64);
        } else {
            inference(e, &layout, &p);
        }
        Ok(())
    }
}

/// The input and output as `batch x channels x spatial` views, and what the loops need.
struct Layout {
    x3: ValueId,
    o3: ValueId,
    /// Batch and spatial size: known only at run time in inference mode alone.
    batch: Extent,
    channels: usize,
    spatial: Extent,
    d: DType,
    eps: f64,
}

/// `out[n, c, q] = (x[n, c, q] - mean) * k + bias`, with `k = scale / sqrt(var + epsilon)`.
fn normalize(e: &mut Emitter, l: &Layout, n: ValueId, c: ValueId, mean: ValueId, k: ValueId, bias: ValueId) {
    e.for_loop_over(l.spatial, |e, q| {
        let v = e.load(l.x3, &[n, c, q]);
        let dev = e.fbin("arith.subf", v, mean);
        let r = e.fmuladd(dev, k, bias);
        e.store(r, l.o3, &[n, c, q]);
    });
}

fn inference(e: &mut Emitter, l: &Layout, p: &[ValueId]) {
    e.parallel_over(&[l.batch, Extent::Fixed(l.channels)], &mut |e, ivs| {
        let c = ivs[1];
        let (sc, bi, mean, var) = (e.load(p[0], &[c]), e.load(p[1], &[c]), e.load(p[2], &[c]), e.load(p[3], &[c]));
        let sd = e.std_dev(var, l.eps, l.d);
        let k = e.fbin("arith.divf", sc, sd);
        normalize(e, l, ivs[0], c, mean, k, bi);
    });
}

/// Batch statistics per channel (population variance), the normalized output, and the running
/// statistics: `input * momentum + batch * (1 - momentum)`.
fn training(e: &mut Emitter, l: &Layout, p: &[ValueId], running: &[Option<ValueId>], momentum: f64) {
    let batch = l.batch.fixed().expect("training mode has static dims (infer)");
    let spatial = l.spatial.fixed().expect("training mode has static dims (infer)");
    e.parallel(&[l.channels], &mut |e, ivs| {
        let c = ivs[0];
        let (mean, var) =
            e.mean_variance(l.x3, &[Extent::Fixed(batch), Extent::Fixed(spatial)], l.d, &|ks| vec![ks[0], c, ks[1]]);
        let sd = e.std_dev(var, l.eps, l.d);
        let sc = e.load(p[0], &[c]);
        let k = e.fbin("arith.divf", sc, sd);
        let bi = e.load(p[1], &[c]);
        e.for_loop(0, batch, |e, n| normalize(e, l, n, c, mean, k, bi));
        for (slot, (input, batch)) in running.iter().zip([(p[2], mean), (p[3], var)]) {
            if let Some(buf) = slot {
                let old = e.load(input, &[c]);
                let m = e.const_of(momentum, l.d);
                let m1 = e.const_of(1.0 - momentum, l.d);
                let a = e.fbin("arith.mulf", old, m);
                let r = e.fmuladd(batch, m1, a);
                e.store(r, *buf, &[c]);
            }
        }
    });
}
