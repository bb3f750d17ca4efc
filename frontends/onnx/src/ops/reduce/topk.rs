//! TopK: the k largest (or smallest) elements along `axis` and their indices, ties in index
//! order. A parallel loop over the other dims; for each of the k places (a loop: K may be read at
//! run time), one pass picks the best element strictly after the previous pick in the order
//! (value, then lower index first), so nothing is picked twice.

use crate::emit::{Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::{axis, data_input};
use xcc_ir::{Attribute, Type, ValueId};

pub struct TopK;

/// K: the `k` attribute before opset 10, then an input: a constant, or a graph input the run
/// reads. Either is checked to be within the axis, by the run when the axis or K is known only
/// then.
fn topk_k(node: &Node, g: &Graph, n: &Dim) -> OResult<Dim> {
    let k = if node.opset < 10 {
        DataExpr::num(node.int("k", 1))
    } else {
        let name = node.input(1).ok_or_else(|| OnnxError::msg("TopK needs K"))?;
        match (g.consts.get(name), data_input(g, node, 1).as_deref()) {
            (Some(t), _) => DataExpr::num(t.to_i64().first().copied().unwrap_or(-1)),
            (None, Some([k])) => k.clone(),
            _ => return err(format!("K '{name}' must be a constant or a graph input holding one integer")),
        }
    };
    let n = DataExpr::Dim(n.clone());
    let within = DataExpr::num(-1).lt(&k).and(&k.lt(&n.add(&DataExpr::num(1))));
    if let Some(k) = k.as_const().filter(|_| within.as_const() == Some(0)) {
        return err(format!("K = {k} is not in 0..={n}, the axis size"));
    }
    g.require(within, format!("TopK's K is not in 0..={n}, the axis size"))?;
    Ok(g.data_dim(format!("{}.k", node.outputs[0]), k))
}

impl OnnxOp for TopK {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = g.ty(&node.inputs[0])?;
        let a = axis(node, node.int("axis", -1), x.shape.len())?;
        let mut dims = x.dims();
        dims[a] = topk_k(node, g, &dims[a])?;
        Ok(vec![TensorType::with_dims(x.dtype, dims.clone()), TensorType::with_dims(DType::I64, dims)])
    }

    /// Any dim may be known only at run time, the axis too (a constant K is then checked by
    /// the run).
    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        e.emit_topk(node, g)
    }
}

impl Emitter {
    fn emit_topk(&mut self, node: &Node, g: &Graph) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?.clone();
        let rank = x_t.shape.len();
        let a = axis(node, node.int("axis", -1), rank)?;
        let n = self.dim_extent(&x_t.dims()[a]);
        let k = g.ty(&node.outputs[0])?.dims()[a].clone();
        let k = self.dim_extent(&k);
        let largest = node.int("largest", 1) == 1;
        let x = self.buf(&node.inputs[0])?;
        let vals = self.buf(&node.outputs[0])?;
        let idxs = match node.outputs.get(1).filter(|o| !o.is_empty()) {
            Some(o) => Some(self.buf(o)?),
            None => None,
        };
        let d = x_t.dtype;
        let float = d.is_float();
        let mut outer = self.dim_extents(&x_t.dims());
        outer[a] = Extent::Fixed(1);
        let (gt, lt) =
            if float { (("arith.cmpf", 2), ("arith.cmpf", 4)) } else { (("arith.cmpi", 4), ("arith.cmpi", 2)) };
        let (better_p, worse_p) = if largest { (gt, lt) } else { (lt, gt) };
        let eq = if float { ("arith.cmpf", 1) } else { ("arith.cmpi", 0) };
        self.parallel_over(&outer, &mut |e, ivs| {
            // The previous pick, carried from place to place: index -1 before the first.
            let ninit = e.const_of(if largest { f64::NEG_INFINITY } else { f64::INFINITY }, d);
            let iinit = e.const_int(-1, Type::i64());
            let (zero, places) = (e.idx(0), e.extent(k));
            e.for_accs_between(zero, places, &[ninit, iinit], |e, t, prev| {
                let (pv, pi) = (prev[0], prev[1]);
                let ub = e.extent(n);
                let r = e.for_accs_between(zero, ub, &[ninit, iinit], |e, j, st| {
                    let mut idx = ivs.to_vec();
                    idx[a] = j;
                    let v = e.load(x, &idx);
                    let ji = e.value_op("arith.index_cast", &[j], Type::i64());
                    let cmp = |e: &mut Emitter, p: (&str, i64), a: ValueId, b: ValueId| {
                        e.value_attr(p.0, &[a, b], Type::i1(), vec![("predicate", Attribute::i64(p.1))])
                    };
                    // Eligible: strictly after the previous pick (worse value, or equal with a
                    // higher index), or anything for the first place.
                    let first = e.cmpi("eq", pi, iinit);
                    let w = cmp(e, worse_p, v, pv);
                    let same = cmp(e, eq, v, pv);
                    let later = e.cmpi("sgt", ji, pi);
                    let tie = e.value_op("arith.andi", &[same, later], Type::i1());
                    let after = e.value_op("arith.ori", &[w, tie], Type::i1());
                    let eligible = e.value_op("arith.ori", &[first, after], Type::i1());
                    // Better than the current best (or the first eligible one seen).
                    let none_yet = e.cmpi("eq", st[1], iinit);
                    let b = cmp(e, better_p, v, st[0]);
                    let better = e.value_op("arith.ori", &[none_yet, b], Type::i1());
                    let take = e.value_op("arith.andi", &[eligible, better], Type::i1());
                    let t = e.m.ty(v).clone();
                    let nv = e.value_op("arith.select", &[take, v, st[0]], t);
                    let ni = e.value_op("arith.select", &[take, ji, st[1]], Type::i64());
                    vec![nv, ni]
                });
                let mut oidx = ivs.to_vec();
                oidx[a] = t;
                e.store(r[0], vals, &oidx);
                if let Some(ib) = idxs {
                    e.store(r[1], ib, &oidx);
                }
                r
            });
        });
        Ok(())
    }
}
