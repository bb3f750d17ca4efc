//! Softmax and LogSoftmax: parallel over the rows, three passes per row (the maximum, the sum of
//! exponentials, the outputs). Before opset 13 the row is everything from `axis` on. An f32 row
//! that is contiguous (the axis is the last dim) runs on vectors: each exponential is computed
//! once, stored by the second pass and scaled in place by the third.

use super::rows::{lanes, row_fold, row_map, row_store, split};
use crate::emit::{Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::shapes::axis;
use xcc_ir::ValueId;

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

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?;
        let dims = x_t.dims();
        let a = axis(node, default_axis(node), dims.len())?;
        let outer = Dim::product(&dims[..a]);
        let (row, inner) = if node.opset >= 13 {
            (dims[a].clone(), Dim::product(&dims[a + 1..]))
        } else {
            (Dim::product(&dims[a..]), Dim::fixed(1))
        };
        let [outer, row, inner] = [&outer, &row, &inner].map(|d| e.dim_extent(d));
        let log = node.op == "LogSoftmax";
        let d = x_t.dtype;
        let (x, o) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        if d == DType::F32 && inner == Extent::Fixed(1) {
            if let (false, Extent::Fixed(rows), Extent::Fixed(n)) = (e.vector_rows, outer, row) {
                let (x2, o2) = (e.reshaped_over(x, &[outer, row]), e.reshaped_over(o, &[outer, row]));
                super::chunked_rows::softmax(e, (x2, o2), rows, n, log);
                return Ok(());
            }
            contiguous_rows(e, [x, o], outer, row, log);
            return Ok(());
        }
        let x3 = e.reshaped_over(x, &[outer, row, inner]);
        let o3 = e.reshaped_over(o, &[outer, row, inner]);
        // A 16-bit float computes in f32, rounded to its type after each step of Softmax's
        // definition (Sub, Exp, ReduceSum, Div; the maximum is exact), as the ops would be. The
        // sum of a bfloat16 row rounds after each addition, as ONNX's reference (numpy's
        // bfloat16) adds; an f16 row's sum is f32's, rounded once, as numpy sums halves.
        let narrow = matches!(d, DType::F16 | DType::BF16);
        let elem = (*e.m.ty(o).as_memref().expect("a buffer").elem).clone();
        let step = move |e: &mut Emitter, v: ValueId| {
            if narrow {
                let t = e.narrow_to(v, &elem);
                e.value_op("arith.extf", &[t], xcc_ir::Type::f32())
            } else {
                v
            }
        };
        e.parallel_over(&[outer, inner], &mut |e, ivs| {
            let (o, i) = (ivs[0], ivs[1]);
            let ninf = e.const_of(f64::NEG_INFINITY, d);
            let (lb, ub) = (e.idx(0), e.extent(row));
            let mx = e.for_accs_between(lb, ub, &[ninf], |e, q, acc| {
                let v = e.load(x3, &[o, q, i]);
                vec![e.fbin("arith.maximumf", acc[0], v)]
            })[0];
            let zero = e.const_of(0.0, d);
            let (lb, ub) = (e.idx(0), e.extent(row));
            let sum = e.for_accs_between(lb, ub, &[zero], |e, q, acc| {
                let v = e.load(x3, &[o, q, i]);
                let s = e.fbin("arith.subf", v, mx);
                let s = step(e, s);
                let ex = e.unary("math.exp", s);
                let ex = step(e, ex);
                let total = e.fbin("arith.addf", acc[0], ex);
                vec![if d == DType::BF16 { step(e, total) } else { total }]
            })[0];
            let sum = step(e, sum);
            // LogSoftmax subtracts log(sum); Softmax multiplies by 1 / sum (a 16-bit float
            // divides, as Div would).
            let scale = if log {
                e.unary("math.log", sum)
            } else if narrow {
                sum
            } else {
                let one = e.const_of(1.0, d);
                e.fbin("arith.divf", one, sum)
            };
            let (lb, ub) = (e.idx(0), e.extent(row));
            e.for_step(lb, ub, 1, |e, q| {
                let v = e.load(x3, &[o, q, i]);
                let s = e.fbin("arith.subf", v, mx);
                let r = if log {
                    e.fbin("arith.subf", s, scale)
                } else {
                    let s = step(e, s);
                    let ex = e.unary("math.exp", s);
                    let ex = step(e, ex);
                    e.fbin(if narrow { "arith.divf" } else { "arith.mulf" }, ex, scale)
                };
                e.store(r, o3, &[o, q, i]);
            });
        });
        Ok(())
    }
}

/// Softmax over the contiguous f32 rows of `x` into `o` (`outer` rows of `row` elements): vector
/// loops over the row's whole vectors, then a scalar loop over its last `row % LANES` elements.
fn contiguous_rows(e: &mut Emitter, [x, o]: [ValueId; 2], outer: Extent, row: Extent, log: bool) {
    let (x2, o2) = (e.reshaped_over(x, &[outer, row]), e.reshaped_over(o, &[outer, row]));
    let vt = lanes();
    e.parallel_over(&[outer], &mut |e, ivs| {
        let r = ivs[0];
        let (split, n) = split(e, row);
        let ninf = e.const_of(f64::NEG_INFINITY, DType::F32);
        let mx = row_fold(e, (x2, r), (split, n), ninf, "maximumf", &mut |_, v, _| v);
        let mxv = e.value_op("vector.broadcast", &[mx], vt.clone());
        let zero = e.const_of(0.0, DType::F32);
        // Softmax stores each exponential here and scales it below; LogSoftmax only sums them.
        let sum = row_fold(e, (x2, r), (split, n), zero, "add", &mut |e, v, q| {
            let m = if e.m.ty(v).is_float() { mx } else { mxv };
            let shifted = e.fbin("arith.subf", v, m);
            let ex = e.unary("math.exp", shifted);
            if !log {
                row_store(e, ex, o2, r, q);
            }
            ex
        });
        if log {
            let ls = e.unary("math.log", sum);
            let shift = e.fbin("arith.addf", mx, ls);
            row_map(e, (x2, o2, r), (split, n), shift, "arith.subf");
        } else {
            let one = e.const_of(1.0, DType::F32);
            let inv = e.fbin("arith.divf", one, sum);
            row_map(e, (o2, o2, r), (split, n), inv, "arith.mulf");
        }
    });
}
