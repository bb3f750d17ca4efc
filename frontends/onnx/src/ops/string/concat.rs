//! StringConcat: the two inputs' strings joined, with broadcasting.

use super::expect_strings;
use crate::emit::{runtime_call, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::shapes::broadcast_dims_in;
use crate::ops::OnnxOp;
use xcc_ir::{Type, ValueId};

pub struct StringConcat;

impl OnnxOp for StringConcat {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let a = expect_strings(node, g, &node.inputs[0])?;
        let b = expect_strings(node, g, &node.inputs[1])?;
        Ok(vec![TensorType::with_dims(DType::Str, broadcast_dims_in(g, &a.dims(), &b.dims())?)])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let out = g.ty(&node.outputs[0])?.dims();
        let extents = e.dim_extents(&out);
        let y = e.buf(&node.outputs[0])?;
        let operands: Vec<(ValueId, Vec<Dim>)> =
            node.inputs.iter().map(|x| Ok((e.buf(x)?, g.ty(x)?.dims()))).collect::<OResult<_>>()?;
        e.loop_nest_over(&extents, &mut |e, ivs| {
            let parts: Vec<ValueId> = operands
                .iter()
                .map(|(buf, dims)| {
                    let idx = broadcast_indices(e, dims, &out, ivs);
                    e.load(*buf, &idx)
                })
                .collect();
            let joined = runtime_call(e, "xcc_string_concat", &parts, Type::i64());
            e.store(joined, y, ivs);
        });
        Ok(())
    }
}

/// The indices into a tensor of `dims` broadcast (numpy rules) to `out` at `ivs`: index 0 along
/// a dim of 1 that the output's is not.
pub fn broadcast_indices(e: &mut Emitter, dims: &[Dim], out: &[Dim], ivs: &[ValueId]) -> Vec<ValueId> {
    let off = out.len() - dims.len();
    (0..dims.len())
        .map(
            |i| {
                if dims[i].as_fixed() == Some(1) && out[i + off].as_fixed() != Some(1) {
                    e.idx(0)
                } else {
                    ivs[i + off]
                }
            },
        )
        .collect()
}
