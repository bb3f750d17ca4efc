//! QuantizeLinear: `saturate(round(x / scale) + zero_point)` for integer results (rounding
//! half to even, clipping to the type); `x / scale` cast for float8 results (with `saturate`).
//! The result's type is the zero point's, else output_dtype's, else uint8.

use super::{aligned, aligned_dims, compute_type, round_to_integer};
use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct QuantizeLinear;

impl Expanded for QuantizeLinear {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?;
        let scale_t = g.ty(&node.inputs[1])?;
        if !x_t.dtype.is_float() || !scale_t.dtype.is_float() {
            return err(format!(
                "x and the scale must be floating point, not {} and {}",
                x_t.dtype.name(),
                scale_t.dtype.name()
            ));
        }
        let zero_t = node.input(2).map(|z| g.ty(z)).transpose()?;
        let to = match (zero_t, node.int("output_dtype", 0)) {
            (Some(z), _) => z.dtype,
            (None, 0) => DType::U8,
            (None, code) => DType::from_onnx(code as i32).ok_or_else(|| {
                OnnxError::msg(format!("output_dtype {} is not supported", DType::onnx_name(code as i32)))
            })?,
        };
        let params: Vec<&TensorType> = [Some(scale_t), zero_t].into_iter().flatten().collect();
        let dims = aligned_dims(node, x_t, &params)?;
        let c = compute_type(&[x_t.dtype, to]);
        let v = x.cast(&node.inputs[0], x_t.dtype, c);
        let scale = aligned(x, node, &node.inputs[1], scale_t, &dims, c)?;
        let q = x.op("Div", &[&v, &scale], &[]);
        let zero = match (node.input(2), zero_t) {
            (Some(z), Some(t)) => Some(aligned(x, node, z, t, &dims, c)?),
            _ => None,
        };
        let y = if to.float8().is_some() || to == DType::F4E2M1 {
            // The zero point of a float type is 0; added all the same, as ONNX does (-0 becomes +0).
            let q = match &zero {
                Some(z) => x.op("Add", &[&q, z], &[]),
                None => q,
            };
            let saturate = node.int("saturate", 1);
            x.op("Cast", &[&q], &[("to", Attr::Int(to.onnx_code() as i64)), ("saturate", Attr::Int(saturate))])
        } else {
            round_to_integer(x, &q, zero.as_deref(), c, to)?
        };
        x.output(&y, Some(&node.outputs[0]));
        Ok(())
    }
}
