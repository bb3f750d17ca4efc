//! The quantized contrib operators, as dequantize, the float operator, quantize (the integer
//! results within one step of ONNX Runtime's integer kernels where its rounding differs):
//! QGemm, QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearGlobalAveragePool,
//! QLinearConcat; DynamicQuantizeMatMul and MatMulIntegerToFloat (int32 sums scaled back to
//! float). MatMulNBits is in [`super::matmul_nbits`].

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct Quantized;

/// DequantizeLinear of input `v` with the scale and zero point at `scale` and `zero` (zero may
/// be absent or empty).
fn dequantize(x: &mut Expansion, v: &str, scale: &str, zero: Option<&str>, axis: Option<i64>) -> String {
    let mut inputs = vec![v, scale];
    if let Some(z) = zero.filter(|z| !z.is_empty()) {
        inputs.push(z);
    }
    let attrs: Vec<(&str, Attr)> = axis.map(|a| ("axis", Attr::Int(a))).into_iter().collect();
    x.op("DequantizeLinear", &inputs, &attrs)
}

/// QuantizeLinear into `output`.
fn quantize_to(x: &mut Expansion, v: &str, scale: &str, zero: Option<&str>, output: &str) {
    let mut inputs = vec![v, scale];
    if let Some(z) = zero.filter(|z| !z.is_empty()) {
        inputs.push(z);
    }
    x.op_to("QuantizeLinear", &inputs, &[], &[output]);
}

impl Expanded for Quantized {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let i = |k: usize| node.input(k);
        let out = node.outputs[0].as_str();
        let need = |k: usize| node.input(k).ok_or_else(|| OnnxError::msg(format!("{} needs input {k}", node.op)));
        match node.op.as_str() {
            "QLinearAdd" | "QLinearMul" => {
                let a = dequantize(x, &node.inputs[0], need(1)?, i(2), None);
                let b = dequantize(x, need(3)?, need(4)?, i(5), None);
                let op = if node.op == "QLinearAdd" { "Add" } else { "Mul" };
                let c = x.op(op, &[&a, &b], &[]);
                quantize_to(x, &c, need(6)?, i(7), out);
            }
            "QLinearSigmoid" | "QLinearLeakyRelu" => {
                let a = dequantize(x, &node.inputs[0], need(1)?, i(2), None);
                let y = if node.op == "QLinearSigmoid" {
                    x.op("Sigmoid", &[&a], &[])
                } else {
                    x.op("LeakyRelu", &[&a], &[("alpha", Attr::Float(node.float("alpha", 0.01)))])
                };
                quantize_to(x, &y, need(3)?, i(4), out);
            }
            "QLinearSoftmax" => {
                // `opset` is the Softmax whose meaning it has: before 13, over the dims from
                // `axis` on, flattened; from 13, along `axis`.
                let a = dequantize(x, &node.inputs[0], need(1)?, i(2), None);
                let axis = node.int("axis", -1);
                let y = if node.int("opset", 13) >= 13 {
                    x.op("Softmax", &[&a], &[("axis", Attr::Int(axis))])
                } else {
                    let flat = x.op("Flatten", &[&a], &[("axis", Attr::Int(axis))]);
                    let soft = x.op("Softmax", &[&flat], &[("axis", Attr::Int(-1))]);
                    let shape = x.op("Shape", &[&a], &[]);
                    x.op("Reshape", &[&soft, &shape], &[])
                };
                quantize_to(x, &y, need(3)?, i(4), out);
            }
            "QLinearGlobalAveragePool" => {
                if node.int("channels_last", 0) != 0 {
                    return err("QLinearGlobalAveragePool with channels_last is not supported");
                }
                let a = dequantize(x, &node.inputs[0], need(1)?, i(2), None);
                let y = x.op("GlobalAveragePool", &[&a], &[]);
                quantize_to(x, &y, need(3)?, i(4), out);
            }
            "QLinearConcat" => {
                let parts = &node.inputs[2..];
                if !parts.len().is_multiple_of(3) || parts.is_empty() {
                    return err(
                        "QLinearConcat takes Y's scale and zero point, then (tensor, scale, zero point) triples",
                    );
                }
                let floats: Vec<String> =
                    parts.chunks(3).map(|c| dequantize(x, &c[0], &c[1], Some(&c[2]), None)).collect();
                let refs: Vec<&str> = floats.iter().map(String::as_str).collect();
                let y = x.op("Concat", &refs, &[("axis", Attr::Int(node.int("axis", 0)))]);
                quantize_to(x, &y, &node.inputs[0], i(1), out);
            }
            "QGemm" => {
                let a = dequantize(x, &node.inputs[0], need(1)?, i(2), None);
                let b_t = g.ty(need(3)?)?;
                // A per-column scale of B runs along B's N dim: axis 1, or 0 transposed.
                let axis = if node.int("transB", 0) != 0 { 0 } else { 1 };
                let b = dequantize(x, need(3)?, need(4)?, i(5), Some(axis.min(b_t.shape.len() as i64 - 1)));
                let attrs: Vec<(&str, Attr)> = ["alpha", "transA", "transB"]
                    .into_iter()
                    .filter_map(|k| node.attrs.get(k).map(|v| (k, v.clone())))
                    .collect();
                let mut y = x.op("Gemm", &[&a, &b], &attrs);
                if let Some(c) = i(6) {
                    // The int32 bias is in units of a_scale * b_scale.
                    let ab = x.op("Mul", &[need(1)?, need(4)?], &[]);
                    let bias = dequantize(x, c, &ab, None, Some(0));
                    y = x.op("Add", &[&y, &bias], &[]);
                }
                match i(7) {
                    Some(y_scale) => quantize_to(x, &y, y_scale, i(8), out),
                    None => x.output(&y, Some(out)),
                }
            }
            "MatMulIntegerToFloat" => {
                let zeros = [i(4).unwrap_or(""), i(5).unwrap_or("")];
                let y = scaled_integer_product(x, &node.inputs[0], need(1)?, zeros, &[need(2)?, need(3)?]);
                add_bias(x, &y, i(6), out);
            }
            _ => {
                // DynamicQuantizeMatMul: A quantized to uint8 from its own range first.
                let (aq, a_scale, a_zero) = (x.fresh(), x.fresh(), x.fresh());
                x.op_to("DynamicQuantizeLinear", &[&node.inputs[0]], &[], &[&aq, &a_scale, &a_zero]);
                let zeros = [a_zero.as_str(), i(3).unwrap_or("")];
                let y = scaled_integer_product(x, &aq, need(1)?, zeros, &[&a_scale, need(2)?]);
                add_bias(x, &y, i(4), out);
            }
        }
        Ok(())
    }
}

/// `MatMulInteger(a, b, zeros) * scales[0] * scales[1]` in float32.
fn scaled_integer_product(x: &mut Expansion, a: &str, b: &str, zeros: [&str; 2], scales: &[&str]) -> String {
    let mut inputs = vec![a, b, zeros[0], zeros[1]];
    while inputs.last() == Some(&"") {
        inputs.pop();
    }
    let sum = x.op("MatMulInteger", &inputs, &[]);
    let mut y = x.cast(&sum, DType::I32, DType::F32);
    for s in scales {
        y = x.op("Mul", &[&y, s], &[]);
    }
    y
}

pub(super) fn add_bias(x: &mut Expansion, y: &str, bias: Option<&str>, out: &str) {
    match bias {
        Some(b) => x.op_to("Add", &[y, b], &[], &[out]),
        None => x.output(y, Some(out)),
    }
}
