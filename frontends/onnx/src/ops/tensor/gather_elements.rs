//! GatherElements: `out[i] = data[i with i[axis] replaced by indices[i]]`. Any dim may be known
//! only at run time; along the other axes, the indices' dims must not pass the data's (checked
//! when the model compiles, or by the run).

use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::axis;

pub struct GatherElements;

impl OnnxOp for GatherElements {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        let idx = g.ty(&node.inputs[1])?;
        if idx.shape.len() != t.shape.len() {
            return err("indices must have the data's rank");
        }
        let a = axis(node, node.int("axis", 0), t.shape.len())?;
        let (data, indices) = (t.dims(), idx.dims());
        if data[a].is_fixed() {
            super::gather::check_constant_indices(g, &node.inputs[1], &t.shape[a..=a], a)?;
        }
        for (q, (n, m)) in data.iter().zip(&indices).enumerate().filter(|&(q, _)| q != a) {
            let fits = DataExpr::Dim(m.clone()).lt(&DataExpr::Dim(n.add(&Dim::fixed(1))));
            if g.simplify(&fits).as_const() == Some(0) {
                return err(format!("the indices' dim {q} is {m}, more than the data's {n}"));
            }
            g.require(fits, format!("the indices' dim {q} passes the data's"))?;
        }
        Ok(vec![TensorType::with_dims(t.dtype, indices)])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let in_dims = g.ty(&node.inputs[0])?.dims();
        let a = axis(node, node.int("axis", 0), in_dims.len())?;
        let (x, indices, out) = (e.buf(&node.inputs[0])?, e.buf(&node.inputs[1])?, e.buf(&node.outputs[0])?);
        let dim = e.dim_extent(&in_dims[a]);
        let extents = e.dim_extents(&g.ty(&node.outputs[0])?.dims());
        e.parallel_over(&extents, &mut |e, ivs| {
            let raw = e.load(indices, ivs);
            let i = e.run_time_index_over(raw, dim);
            let mut idx = ivs.to_vec();
            idx[a] = i;
            let v = e.load(x, &idx);
            e.store(v, out, ivs);
        });
        Ok(())
    }
}
