//! Constant and ConstantOfShape: values at compile time, folded before lowering.

use super::needs_constants;
use crate::emit::Emitter;
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;

pub struct Constant;
pub struct ConstantOfShape;

impl OnnxOp for Constant {
    fn infer(&self, node: &Node, _: &Graph) -> OResult<Vec<TensorType>> {
        needs_constants(node)
    }

    fn fold(&self, node: &Node, _: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        let attr = |name: &str| node.attrs.get(name);
        let value = if let Some(Attr::Tensor(t)) = attr("value") {
            t.clone()
        } else if let Some(Attr::Float(f)) = attr("value_float") {
            Tensor::from_f64(DType::F32, vec![], &[*f as f64])
        } else if let Some(Attr::Floats(f)) = attr("value_floats") {
            Tensor::from_f64(DType::F32, vec![f.len()], &f.iter().map(|&x| x as f64).collect::<Vec<_>>())
        } else if let Some(Attr::Int(i)) = attr("value_int") {
            Tensor::from_i64(vec![], &[*i])
        } else if let Some(Attr::Ints(i)) = attr("value_ints") {
            Tensor::from_i64(vec![i.len()], i)
        } else {
            return Some(err(
                "Constant without a supported value attribute (sparse and string constants are not supported)",
            ));
        };
        Some(Ok(vec![value]))
    }

    fn lower(&self, node: &Node, _: &Graph, _: &mut Emitter) -> OResult<()> {
        needs_constants(node)
    }
}

impl OnnxOp for ConstantOfShape {
    fn infer(&self, node: &Node, _: &Graph) -> OResult<Vec<TensorType>> {
        needs_constants(node)
    }

    /// The `value` tensor (a float32 zero by default) repeated to the shape given by the input.
    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        let shape: Vec<usize> = inputs[0]?.to_i64().iter().map(|&d| d.max(0) as usize).collect();
        let value = match node.attrs.get("value") {
            Some(Attr::Tensor(t)) => t.clone(),
            _ => Tensor::from_f64(DType::F32, vec![1], &[0.0]),
        };
        let n: usize = shape.iter().product();
        let data = value.data.repeat(n);
        Some(Ok(vec![Tensor { ty: TensorType::new(value.ty.dtype, shape), data }]))
    }

    fn lower(&self, node: &Node, _: &Graph, _: &mut Emitter) -> OResult<()> {
        needs_constants(node)
    }
}
