//! Shape and Size fold from the input's type alone: to constants when its dims are static, to
//! [`ShapeValue`]s of dim expressions when some are known only at run time.

use crate::emit::Emitter;
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;

pub struct Shape;
pub struct Size;

/// The `start..end` dims that Shape returns (opset 15), clamped to the rank.
fn shape_range(node: &Node, rank: usize) -> (usize, usize) {
    let r = rank as i64;
    let norm = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
    let start = norm(node.int("start", 0));
    let end = norm(node.int("end", r));
    (start, end.max(start))
}

impl OnnxOp for Shape {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let (start, end) = shape_range(node, g.ty(&node.inputs[0])?.shape.len());
        Ok(vec![TensorType::new(DType::I64, vec![end - start])])
    }

    fn folds_from_types(&self) -> bool {
        true
    }

    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        let s = &inputs[0]?.ty.shape;
        let (start, end) = shape_range(node, s.len());
        let dims: Vec<i64> = s[start..end].iter().map(|&d| d as i64).collect();
        Some(Ok(vec![Tensor::from_i64(vec![dims.len()], &dims)]))
    }

    fn fold_shape(&self, node: &Node, g: &Graph, _: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        let dims = g.types.get(&node.inputs[0])?.dims();
        let (start, end) = shape_range(node, dims.len());
        Some(Ok(vec![ShapeValue::vector(DType::I64, dims[start..end].to_vec())]))
    }

    fn lower(&self, node: &Node, _: &Graph, _: &mut Emitter) -> OResult<()> {
        super::needs_constants(node)
    }
}

impl OnnxOp for Size {
    fn infer(&self, _: &Node, _: &Graph) -> OResult<Vec<TensorType>> {
        Ok(vec![TensorType::new(DType::I64, vec![])])
    }

    fn folds_from_types(&self) -> bool {
        true
    }

    fn fold(&self, _: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        Some(Ok(vec![Tensor::from_i64(vec![], &[inputs[0]?.ty.numel() as i64])]))
    }

    fn fold_shape(&self, node: &Node, g: &Graph, _: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        let n = Dim::product(&g.types.get(&node.inputs[0])?.dims());
        Some(Ok(vec![ShapeValue { dtype: DType::I64, shape: vec![], values: vec![n] }]))
    }

    fn lower(&self, node: &Node, _: &Graph, _: &mut Emitter) -> OResult<()> {
        super::needs_constants(node)
    }
}
