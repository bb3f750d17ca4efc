//! Constant and ConstantOfShape: values at compile time, folded before lowering; a
//! ConstantOfShape whose shape is computed from run-time dims is a fill at run time.

use super::{dims_input, needs_constants};
use crate::emit::{identity, Emitter};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::element_data;

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

/// ConstantOfShape's `value` (a float32 zero by default).
fn fill_value(node: &Node) -> Tensor {
    match node.attrs.get("value") {
        Some(Attr::Tensor(t)) => t.clone(),
        _ => Tensor::from_f64(DType::F32, vec![1], &[0.0]),
    }
}

impl OnnxOp for ConstantOfShape {
    /// Reached only when the shape is computed from run-time dims, or is an input (constants
    /// fold).
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        if let Some(shape) = element_data(g, node, 0)? {
            let dims = shape.into_iter().enumerate().map(|(j, x)| g.data_dim(format!("{}.{j}", node.outputs[0]), x));
            return Ok(vec![TensorType::with_dims(fill_value(node).ty.dtype, dims.collect())]);
        }
        let dims = dims_input(g, node, 0, "shape")?.ok_or_else(|| OnnxError::msg("ConstantOfShape needs a shape"))?;
        if let Some(d) = dims.iter().find(|d| d.as_const().is_some_and(|c| c < 0)) {
            return err(format!("ConstantOfShape's shape has a negative dim {d}"));
        }
        Ok(vec![TensorType::with_dims(fill_value(node).ty.dtype, dims)])
    }

    /// The `value` tensor (a float32 zero by default) repeated to the shape given by the input.
    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        let shape: Vec<usize> = inputs[0]?.to_i64().iter().map(|&d| d.max(0) as usize).collect();
        let value = fill_value(node);
        let n: usize = shape.iter().product();
        let data = value.data.repeat(n);
        Some(Ok(vec![Tensor { ty: TensorType::new(value.ty.dtype, shape), data }]))
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let value = fill_value(node);
        let v = value.to_f64().first().copied().unwrap_or(0.0);
        let out = e.buf(&node.outputs[0])?;
        let rank = g.ty(&node.outputs[0])?.shape.len();
        e.generic(&[], &[(out, identity(rank))], vec![true; rank], |e, _| Ok(vec![e.const_of(v, value.ty.dtype)]))
    }
}
