//! Range: `start, start + delta, ...` up to `limit`, at compile time.

use super::needs_constants;
use crate::emit::Emitter;
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;

pub struct Range;

impl OnnxOp for Range {
    fn infer(&self, node: &Node, _: &Graph) -> OResult<Vec<TensorType>> {
        needs_constants(node)
    }

    fn fold(&self, _: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        let v: Vec<f64> = inputs.iter().map(|t| t.map(|t| t.to_f64()[0])).collect::<Option<_>>()?;
        let (start, limit, delta) = (v[0], v[1], v[2]);
        if delta == 0.0 {
            return Some(err("Range delta cannot be 0"));
        }
        let n = ((limit - start) / delta).ceil().max(0.0) as usize;
        let dtype = inputs[0]?.ty.dtype;
        let values: Vec<f64> = (0..n).map(|i| start + i as f64 * delta).collect();
        Some(Ok(vec![Tensor::from_f64(dtype, vec![n], &values)]))
    }

    fn lower(&self, node: &Node, _: &Graph, _: &mut Emitter) -> OResult<()> {
        needs_constants(node)
    }
}
