//! StringConcat: the two inputs' strings joined, with broadcasting.

use super::expect_strings;
use crate::emit::{runtime_call, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::shapes::broadcast;
use crate::ops::OnnxOp;
use xcc_ir::{Type, ValueId};

pub struct StringConcat;

impl OnnxOp for StringConcat {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let a = expect_strings(node, g, &node.inputs[0])?;
        let b = expect_strings(node, g, &node.inputs[1])?;
        Ok(vec![TensorType::new(DType::Str, broadcast(&a.shape, &b.shape)?)])
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let out = g.ty(&node.outputs[0])?.shape.clone();
        let y = e.buf(&node.outputs[0])?;
        let operands: Vec<(ValueId, Vec<usize>)> =
            node.inputs.iter().map(|x| Ok((e.buf(x)?, g.ty(x)?.shape.clone()))).collect::<OResult<_>>()?;
        e.loop_nest(&out, &mut |e, ivs| {
            let parts: Vec<ValueId> = operands
                .iter()
                .map(|(buf, shape)| {
                    let idx = broadcast_indices(e, shape, &out, ivs);
                    e.load(*buf, &idx)
                })
                .collect();
            let joined = runtime_call(e, "xcc_string_concat", &parts, Type::i64());
            e.store(joined, y, ivs);
        });
        Ok(())
    }
}

/// The indices into a tensor of `shape` broadcast (numpy rules) to `out` at `ivs`.
pub fn broadcast_indices(e: &mut Emitter, shape: &[usize], out: &[usize], ivs: &[ValueId]) -> Vec<ValueId> {
    let off = out.len() - shape.len();
    (0..shape.len()).map(|i| if shape[i] == 1 && out[i + off] != 1 { e.idx(0) } else { ivs[i + off] }).collect()
}
