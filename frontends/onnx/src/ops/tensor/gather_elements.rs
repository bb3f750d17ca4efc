//! GatherElements: `out[i] = data[i with i[axis] replaced by indices[i]]`.

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
        super::gather::check_constant_indices(g, &node.inputs[1], &t.shape[a..=a], a)?;
        Ok(vec![TensorType::new(t.dtype, idx.shape.clone())])
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let in_shape = &g.ty(&node.inputs[0])?.shape;
        let a = axis(node, node.int("axis", 0), in_shape.len())?;
        let (x, indices, out) = (e.buf(&node.inputs[0])?, e.buf(&node.inputs[1])?, e.buf(&node.outputs[0])?);
        let dim = in_shape[a];
        e.parallel(&g.ty(&node.outputs[0])?.shape, &mut |e, ivs| {
            let raw = e.load(indices, ivs);
            let i = e.run_time_index(raw, dim);
            let mut idx = ivs.to_vec();
            idx[a] = i;
            let v = e.load(x, &idx);
            e.store(v, out, ivs);
        });
        Ok(())
    }
}
