//! HannWindow, HammingWindow and BlackmanWindow, expanded ([`crate::ops::expansion`]): `size`
//! values of `a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N)`, N the size (periodic, the default)
//! or the size less one (symmetric), in output_datatype (float32 by default).

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct Window;

impl Expanded for Window {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let (a0, a1, a2) = match node.op.as_str() {
            "HannWindow" => (0.5, 0.5, 0.0),
            "HammingWindow" => (25.0 / 46.0, 21.0 / 46.0, 0.0),
            _ => (0.42, 0.5, 0.08),
        };
        let code = node.int("output_datatype", 1) as i32;
        let out = DType::from_onnx(code)
            .ok_or_else(|| OnnxError::msg(format!("output_datatype {} is not supported", DType::onnx_name(code))))?;
        let size_t = g.ty(&node.inputs[0])?;
        if !matches!(size_t.dtype, DType::I32 | DType::I64) || !size_t.shape.is_empty() {
            return err(format!("size must be an int32 or int64 scalar, not {}", size_t.describe()));
        }
        // The Range reads the size as it is (a graph input's value read at run time, too).
        let dt = size_t.dtype;
        let (zero, one) =
            (x.constant(Tensor::from_f64(dt, vec![], &[0.0])), x.constant(Tensor::from_f64(dt, vec![], &[1.0])));
        let n = x.op("Range", &[&zero, &node.inputs[0], &one], &[]);
        let n = x.cast(&n, dt, DType::F64);
        let size = x.cast(&node.inputs[0], dt, DType::F64);
        let period = if node.int("periodic", 1) != 0 {
            size
        } else {
            let one = x.scalar(1.0, DType::F64);
            x.op("Sub", &[&size, &one], &[])
        };
        let two_pi = x.scalar(2.0 * std::f64::consts::PI, DType::F64);
        let angle = x.op("Mul", &[&n, &two_pi], &[]);
        let angle = x.op("Div", &[&angle, &period], &[]);
        let term = |x: &mut Expansion, k: f64, a: f64| {
            let scaled = if k == 1.0 {
                angle.clone()
            } else {
                let kk = x.scalar(k, DType::F64);
                x.op("Mul", &[&angle, &kk], &[])
            };
            let c = x.op("Cos", &[&scaled], &[]);
            let a = x.scalar(a, DType::F64);
            x.op("Mul", &[&c, &a], &[])
        };
        let base = x.scalar(a0, DType::F64);
        let first = term(x, 1.0, a1);
        let mut w = x.op("Sub", &[&base, &first], &[]);
        if a2 != 0.0 {
            let second = term(x, 2.0, a2);
            w = x.op("Add", &[&w, &second], &[]);
        }
        let w = x.cast(&w, DType::F64, out);
        x.output(&w, Some(&node.outputs[0]));
        Ok(())
    }
}
