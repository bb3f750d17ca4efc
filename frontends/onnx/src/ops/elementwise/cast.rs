//! Cast (with ONNX's conversion semantics), CastLike, Identity, and Dropout at inference (the
//! input, and an all-true mask).

use super::{ElementwiseOp as Op, Emit, Output};
use crate::emit::Emitter;
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;

pub const OPS: &[Op] = &[
    Op::new("Cast", Emit::Custom(|e, el, a| Ok(e.convert(a[0], el.dtype, el.out))), |_, a| a[0])
        .output(Output::CastTo)
        .mixed_types()
        .on_dims(|a| Some(a[0].clone())),
    Op::new("CastLike", Emit::Custom(|e, el, a| Ok(e.convert(a[0], el.dtype, el.out))), |_, a| a[0])
        .output(Output::Input(1))
        .one_data_input()
        .mixed_types(),
    IDENTITY,
];

const IDENTITY: Op =
    Op::new("Identity", Emit::Custom(|_, _, a| Ok(a[0])), |_, a| a[0]).one_data_input().on_dims(|a| Some(a[0].clone()));

pub struct Dropout;

impl OnnxOp for Dropout {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        // Inference only: training mode (an attribute before opset 12, an input after) would
        // drop values; with ratio 0 it keeps them all, and the result is the input.
        let training = node.int("is_test", 1) == 0 && node.opset < 7
            || match node.input(2) {
                Some(name) => g.consts.get(name).is_none_or(|t| t.to_f64().first().copied().unwrap_or(0.0) != 0.0),
                None => false,
            };
        let ratio = match node.input(1) {
            Some(name) => g.consts.get(name).and_then(|t| t.to_f64().first().copied()),
            None => Some(node.float("ratio", 0.5) as f64),
        };
        if training && ratio != Some(0.0) {
            return err("Dropout in training mode is not supported (xcc compiles inference graphs)");
        }
        let mut out = IDENTITY.infer(node, g)?;
        if node.outputs.len() > 1 {
            out.push(TensorType::new(DType::Bool, out[0].shape.clone()));
        }
        Ok(out)
    }

    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        let x = inputs[0]?;
        let mut out = vec![x.clone()];
        if node.outputs.len() > 1 {
            out.push(Tensor::from_f64(DType::Bool, x.ty.shape.clone(), &vec![1.0; x.ty.numel()]));
        }
        Some(Ok(out))
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let mask = node.outputs.get(1).is_some_and(|o| !o.is_empty());
        IDENTITY.lower_with(node, g, e, mask)
    }
}
