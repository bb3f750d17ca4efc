//! Trilu: the upper (or lower) triangle of the last two dims, from diagonal `k` (a scalar input
//! read at run time, 0 without it); the rest zero.

use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use xcc_ir::{Type, ValueId};

pub struct Trilu;

impl OnnxOp for Trilu {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        if t.shape.len() < 2 {
            return err("Trilu needs a tensor of rank >= 2");
        }
        Ok(vec![t.clone()])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let (x, out) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        let k = match node.input(1) {
            Some(name) => {
                let kb = e.buf(name)?;
                let zeros: Vec<ValueId> = (0..g.ty(name)?.shape.len()).map(|_| e.idx(0)).collect();
                let raw = e.load(kb, &zeros);
                e.value_op("arith.index_cast", &[raw], Type::Index)
            }
            None => e.idx(0),
        };
        // Keep when j - i >= k (upper: sge) or j - i <= k (lower: sle).
        let predicate = if node.int("upper", 1) == 1 { "sge" } else { "sle" };
        let out_t = g.ty(&node.outputs[0])?;
        let (r, dtype) = (out_t.shape.len(), out_t.dtype);
        let extents = e.dim_extents(&out_t.dims());
        e.parallel_over(&extents, &mut |e, ivs| {
            let diff = e.value_op("arith.subi", &[ivs[r - 1], ivs[r - 2]], Type::Index);
            let keep = e.cmpi(predicate, diff, k);
            let v = e.load(x, ivs);
            let z = e.const_of(0.0, dtype);
            let t = e.m.ty(v).clone();
            let r = e.value_op("arith.select", &[keep, v, z], t);
            e.store(r, out, ivs);
        });
        Ok(())
    }
}
