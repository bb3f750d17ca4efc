//! ArgMax and ArgMin: the index of the best element along `axis` (the first, or the last with
//! `select_last_index`). A parallel loop over the other dims, carrying the best value and its
//! index along the axis.

use super::{max_of, min_of, reduced_dims};
use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::axis;
use xcc_ir::{Attribute, Type, ValueId};

pub struct ArgReduce;

impl OnnxOp for ArgReduce {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = g.ty(&node.inputs[0])?;
        let a = axis(node, node.int("axis", 0), x.shape.len())?;
        Ok(vec![TensorType::with_dims(DType::I64, reduced_dims(node, &x.dims(), &[a]))])
    }

    /// Any dim may be known only at run time, the reduced one too.
    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?;
        let rank = x_t.shape.len();
        let a = axis(node, node.int("axis", 0), rank)?;
        let (x, out) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        let d = x_t.dtype;
        let is_max = node.op == "ArgMax";
        let better = better_predicate(is_max, d.is_float(), node.int("select_last_index", 0) == 1);
        let keep = node.int("keepdims", 1) == 1;
        let mut kept = e.dim_extents(&x_t.dims());
        let n = kept.remove(a);
        e.parallel_over(&kept, &mut |e, kivs| {
            let init = match (d.is_float(), is_max) {
                (true, true) => f64::NEG_INFINITY,
                (true, false) => f64::INFINITY,
                (false, true) => min_of(d),
                (false, false) => max_of(d),
            };
            let (init, init_idx) = (e.const_of(init, d), e.const_int(0, Type::i64()));
            let (lb, ub) = (e.idx(0), e.extent(n));
            let r = e.for_accs_between(lb, ub, &[init, init_idx], |e, j, st| {
                let mut idx = kivs.to_vec();
                idx.insert(a, j);
                let v = e.load(x, &idx);
                let take =
                    e.value_attr(better.0, &[v, st[0]], Type::i1(), vec![("predicate", Attribute::i64(better.1))]);
                let pos = e.value_op("arith.index_cast", &[j], Type::i64());
                let t = e.ty(v);
                vec![
                    e.value_op("arith.select", &[take, v, st[0]], t),
                    e.value_op("arith.select", &[take, pos, st[1]], Type::i64()),
                ]
            });
            let mut oidx: Vec<ValueId> = kivs.to_vec();
            if keep {
                let zero = e.idx(0);
                oidx.insert(a, zero);
            }
            e.store(r[1], out, &oidx);
        });
        Ok(())
    }
}

/// The comparison `v ? best` that takes `v`: strictly better, or also equal with
/// `select_last_index` (ogt/oge/olt/ole for floats, sgt/sge/slt/sle for integers).
fn better_predicate(is_max: bool, float: bool, last: bool) -> (&'static str, i64) {
    match (is_max, float, last) {
        (true, true, false) => ("arith.cmpf", 2),
        (true, true, true) => ("arith.cmpf", 3),
        (false, true, false) => ("arith.cmpf", 4),
        (false, true, true) => ("arith.cmpf", 5),
        (true, false, false) => ("arith.cmpi", 4),
        (true, false, true) => ("arith.cmpi", 5),
        (false, false, false) => ("arith.cmpi", 2),
        (false, false, true) => ("arith.cmpi", 3),
    }
}
