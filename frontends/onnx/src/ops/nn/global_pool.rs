//! GlobalAveragePool and GlobalMaxPool: one value per batch and channel, over all spatial dims
//! (an f32 plane on vectors, [`super::rows`]).

use super::rows::{row_fold, split};
use crate::emit::{compute_type, Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::shapes::image_dims;
use xcc_ir::Type;

pub struct GlobalPool;

impl crate::ops::onnx_op::OnnxOp for GlobalPool {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = super::float_input(node, g)?;
        if x.shape.len() < 2 {
            return err(format!("the input needs a batch and a channel dim, not {}", x.describe()));
        }
        let mut dims = image_dims(&node.inputs[0], x)?[..2].to_vec();
        dims.extend(std::iter::repeat_n(Dim::fixed(1), x.shape.len() - 2));
        Ok(vec![TensorType::with_dims(x.dtype, dims)])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?;
        let (nb, ch) = (e.dim_extent(&x_t.dims()[0]), Extent::Fixed(x_t.shape[1]));
        let spatial = e.dim_extents(&x_t.dims()[2..]);
        let s = e.extent_product(&spatial);
        let x3 = e.reshaped_over(e.buf(&node.inputs[0])?, &[nb, ch, s]);
        let o2 = e.reshaped_over(e.buf(&node.outputs[0])?, &[nb, ch]);
        let avg = node.op == "GlobalAveragePool";
        let d = x_t.dtype;
        // An f32 plane is folded on vectors, as one row of a [N * C, spatial] view.
        let rows = e.extent_mul(nb, ch);
        let x2 = (d == DType::F32).then(|| e.reshaped_over(x3, &[rows, s]));
        e.parallel_over(&[nb, ch], &mut |e, ivs| {
            let init = e.const_of(if avg { 0.0 } else { f64::NEG_INFINITY }, d);
            let r = match x2 {
                Some(x2) => {
                    let row = e.affine_over(&[(ivs[0], ch), (ivs[1], Extent::Fixed(1))], 0);
                    let bounds = split(e, s);
                    row_fold(e, (x2, row), bounds, init, if avg { "add" } else { "maximumf" }, &mut |_, v, _| v)
                }
                None => e.for_acc_over(s, init, |e, q, acc| {
                    let v = e.load(x3, &[ivs[0], ivs[1], q]);
                    e.fbin(if avg { "arith.addf" } else { "arith.maximumf" }, acc, v)
                }),
            };
            let r = if avg {
                let n = match s {
                    Extent::Fixed(s) => e.const_of(s as f64, d),
                    Extent::Value(s) => {
                        let n = e.value_op("arith.index_cast", &[s], Type::i64());
                        e.value_op("arith.sitofp", &[n], compute_type(d))
                    }
                };
                e.fbin("arith.divf", r, n)
            } else {
                r
            };
            e.store(r, o2, &[ivs[0], ivs[1]]);
        });
        Ok(())
    }
}
