//! Optionals of tensors, decided at compile time: xcc holds an optional as the tensor it holds.
//! `Optional(x)` and `OptionalGetElement(x)` are `x`; `OptionalHasElement` is true for a tensor
//! and false for no input (a node without one, or with the name `""`). An empty optional that
//! flows on (`Optional` without an input, a graph input or output of optional type) is refused.

use crate::emit::Emitter;
use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};
use crate::ops::onnx_op::OnnxOp;

pub struct HasElement;

impl OnnxOp for HasElement {
    fn infer(&self, _: &Node, _: &Graph) -> OResult<Vec<TensorType>> {
        Ok(vec![TensorType::new(DType::Bool, vec![])])
    }

    fn folds_from_types(&self) -> bool {
        true
    }

    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        let present = node.input(0).is_some() && inputs.first().copied().flatten().is_some();
        Some(Ok(vec![Tensor::from_f64(DType::Bool, vec![], &[f64::from(u8::from(present))])]))
    }

    fn lower(&self, node: &Node, _: &Graph, _: &mut Emitter) -> OResult<()> {
        crate::ops::tensor::needs_constants(node)
    }
}

/// `Optional(x)` and `OptionalGetElement(x)`: the tensor itself.
pub struct Held;

impl Expanded for Held {
    fn write(&self, node: &Node, _: &Graph, x: &mut Expansion) -> OResult<()> {
        let Some(input) = node.input(0) else {
            return err("an Optional without a value is not supported: xcc holds an optional as its tensor");
        };
        x.op_to("Identity", &[input], &[], &[&node.outputs[0]]);
        Ok(())
    }
}
