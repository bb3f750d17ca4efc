//! Optionals of tensors: xcc holds an optional as the tensor it holds. Inside the graph they are
//! decided at compile time: `Optional(x)` and `OptionalGetElement(x)` are `x`;
//! `OptionalHasElement` is true for a tensor and false for no input (a node without one, or with
//! the name `""`). A graph input of optional type is a pointer the caller may leave NULL: only
//! OptionalHasElement (its pointer is not NULL) and OptionalGetElement (the tensor, or
//! `XCC_ERROR_NULL_TENSOR` for none) read it. An empty optional that flows on (`Optional`
//! without an input, a graph output of optional type) is refused.

use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::expansion::{Expand, Expanded, Expansion};
use crate::ops::onnx_op::OnnxOp;
use xcc_ir::{Type, ValueId};

/// The optional graph input `node` reads, if it reads one.
fn optional_input<'a>(node: &'a Node, g: &Graph) -> Option<&'a str> {
    node.input(0).filter(|x| g.optional_inputs.contains(*x))
}

/// Whether the buffer of an optional input is absent (its pointer NULL), an i1.
fn absent(e: &mut Emitter, buf: ValueId) -> ValueId {
    let address = e.address_of(buf);
    let zero = e.const_int(0, Type::i64());
    e.cmpi("eq", address, zero)
}

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

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let Some(x) = optional_input(node, g) else { return crate::ops::tensor::needs_constants(node) };
        let buf = e.buf(x)?;
        let none = absent(e, buf);
        let one = e.const_int(1, Type::i1());
        let present = e.value_op("arith.xori", &[none, one], Type::i1());
        let y = e.buf(&node.outputs[0])?;
        e.store(present, y, &[]);
        Ok(())
    }
}

/// `OptionalGetElement(x)`: `x` itself ([`Held`]), or, of an optional graph input, a copy of it
/// when the caller gave one and `XCC_ERROR_NULL_TENSOR` when not.
pub struct GetElement;

impl OnnxOp for GetElement {
    fn expand(&self, node: &Node, g: &Graph) -> Option<OResult<Vec<Node>>> {
        match optional_input(node, g) {
            Some(_) => None,
            None => Expand(Held).expand(node, g),
        }
    }

    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        Ok(vec![g.ty(&node.inputs[0])?.clone()])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, _: &Graph, e: &mut Emitter) -> OResult<()> {
        let x = &node.inputs[0];
        let (src, dst) = (e.buf(x)?, e.buf(&node.outputs[0])?);
        let none = absent(e, src);
        e.fail_run_if(none, xcc_runtime_c::status::NULL_TENSOR);
        let one = e.const_int(1, Type::i1());
        let present = e.value_op("arith.xori", &[none, one], Type::i1());
        e.if_then(present, |e| e.copy(src, dst));
        Ok(())
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
