//! DequantizeLinear: `(x - zero_point) * scale`, in the scale's type (or output_dtype's).

use super::{aligned, aligned_dims, compute_type};
use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct DequantizeLinear;

impl Expanded for DequantizeLinear {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?;
        let scale_t = g.ty(&node.inputs[1])?;
        if !scale_t.dtype.is_float() {
            return err(format!("the scale must be floating point, not {}", scale_t.dtype.name()));
        }
        let to = match node.int("output_dtype", 0) {
            0 => scale_t.dtype,
            code => DType::from_onnx(code as i32).filter(|d| d.is_float()).ok_or_else(|| {
                OnnxError::msg(format!("output_dtype {} is not supported", DType::onnx_name(code as i32)))
            })?,
        };
        let zero_t = node.input(2).map(|z| g.ty(z)).transpose()?;
        let params: Vec<&TensorType> = [Some(scale_t), zero_t].into_iter().flatten().collect();
        let dims = aligned_dims(node, x_t, &params)?;
        let c = compute_type(&[x_t.dtype, to]);
        let mut v = x.cast(&node.inputs[0], x_t.dtype, c);
        if let (Some(z), Some(zero_t)) = (node.input(2), zero_t) {
            let zero = aligned(x, node, z, zero_t, &dims, c)?;
            v = x.op("Sub", &[&v, &zero], &[]);
        }
        let scale = aligned(x, node, &node.inputs[1], scale_t, &dims, c)?;
        let y = x.op("Mul", &[&v, &scale], &[]);
        let y = x.cast(&y, c, to);
        x.output(&y, Some(&node.outputs[0]));
        Ok(())
    }
}
