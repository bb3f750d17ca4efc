//! Softmax and LogSoftmax: parallel over the rows, three passes per row (the maximum, the sum of
//! exponentials, the outputs). Before opset 13 the row is everything from `axis` on.

use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::shapes::axis;

pub struct Softmax;

fn default_axis(node: &Node) -> i64 {
    node.int("axis", if node.opset >= 13 { -1 } else { 1 })
}

impl crate::ops::onnx_op::OnnxOp for Softmax {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = super::float_input(node, g)?;
        axis(node, default_axis(node), x.shape.len())?;
        Ok(vec![x.clone()])
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?;
        let a = axis(node, default_axis(node), x_t.shape.len())?;
        let outer: usize = x_t.shape[..a].iter().product();
        let (row, inner) = if node.opset >= 13 {
            (x_t.shape[a], x_t.shape[a + 1..].iter().product())
        } else {
            (x_t.shape[a..].iter().product(), 1)
        };
        let x3 = e.reshaped(e.buf(&node.inputs[0])?, &[outer, row, inner]);
        let o3 = e.reshaped(e.buf(&node.outputs[0])?, &[outer, row, inner]);
        let log = node.op == "LogSoftmax";
        let d = x_t.dtype;
        e.parallel(&[outer, inner], &mut |e, ivs| {
            let (o, i) = (ivs[0], ivs[1]);
            let ninf = e.const_of(f64::NEG_INFINITY, d);
            let mx = e.for_acc(0, row, ninf, |e, q, acc| {
                let v = e.load(x3, &[o, q, i]);
                e.fbin("arith.maximumf", acc, v)
            });
            let zero = e.const_of(0.0, d);
            let sum = e.for_acc(0, row, zero, |e, q, acc| {
                let v = e.load(x3, &[o, q, i]);
                let s = e.fbin("arith.subf", v, mx);
                let ex = e.unary("math.exp", s);
                e.fbin("arith.addf", acc, ex)
            });
            // LogSoftmax subtracts log(sum); Softmax multiplies by 1 / sum.
            let scale = if log {
                e.unary("math.log", sum)
            } else {
                let one = e.const_of(1.0, d);
                e.fbin("arith.divf", one, sum)
            };
            e.for_loop(0, row, |e, q| {
                let v = e.load(x3, &[o, q, i]);
                let s = e.fbin("arith.subf", v, mx);
                let r = if log {
                    e.fbin("arith.subf", s, scale)
                } else {
                    let ex = e.unary("math.exp", s);
                    e.fbin("arith.mulf", ex, scale)
                };
                e.store(r, o3, &[o, q, i]);
            });
        });
        Ok(())
    }
}
