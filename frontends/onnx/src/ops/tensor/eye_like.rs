//! EyeLike, expanded ([`crate::ops::expansion`]): ones on the diagonal `k` of a 2-D tensor of
//! the input's dims, zeros elsewhere, of element type `dtype` (the input's by default). The
//! comparison of positions folds to a constant.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct EyeLike;

impl Expanded for EyeLike {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = g.ty(&node.inputs[0])?;
        if t.shape.len() != 2 {
            return err(format!("the input must be 2-D, not {}", t.describe()));
        }
        let dtype = match node.attrs.get("dtype") {
            Some(_) => {
                let code = node.int("dtype", 1) as i32;
                DType::from_onnx(code)
                    .ok_or_else(|| OnnxError::msg(format!("dtype {} is not supported", DType::onnx_name(code))))?
            }
            None => t.dtype,
        };
        let rows = x.positions(&node.inputs[0], 0, 1);
        let cols = x.positions(&node.inputs[0], 1, 0);
        let k = x.constant(Tensor::from_i64(vec![], &[node.int("k", 0)]));
        let shifted = x.op("Add", &[&rows, &k], &[]);
        let diagonal = x.op("Equal", &[&shifted, &cols], &[]);
        let ones = x.cast(&diagonal, DType::Bool, dtype);
        x.output(&ones, Some(&node.outputs[0]));
        Ok(())
    }
}
