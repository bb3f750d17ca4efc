//! The integer products: MatMulInteger and ConvInteger (`(a - a_zero) * (b - b_zero)` summed
//! in int32), and QLinearMatMul and QLinearConv, which requantize that sum (plus QLinearConv's
//! int32 bias) with `a_scale * b_scale / y_scale` and the output's zero point.

use super::round_to_integer;
use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct IntegerProduct;
pub struct QLinearProduct;

/// The conv attributes an integer convolution passes on.
const CONV_ATTRIBUTES: &[&str] = &["auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"];

/// The operands of one product: the inputs and their zero points, by position.
struct Operands<'a> {
    conv: bool,
    lhs: &'a str,
    lhs_zero: Option<&'a str>,
    rhs: &'a str,
    rhs_zero: Option<&'a str>,
}

impl Expanded for IntegerProduct {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let operands = Operands {
            conv: node.op == "ConvInteger",
            lhs: &node.inputs[0],
            lhs_zero: node.input(2),
            rhs: &node.inputs[1],
            rhs_zero: node.input(3),
        };
        let sum = accumulate(node, g, x, &operands)?;
        x.output(&sum, Some(&node.outputs[0]));
        Ok(())
    }
}

impl Expanded for QLinearProduct {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let operands = Operands {
            conv: node.op == "QLinearConv",
            lhs: &node.inputs[0],
            lhs_zero: node.input(2),
            rhs: &node.inputs[3],
            rhs_zero: node.input(5),
        };
        let out_rank = g.ty(operands.lhs)?.shape.len().max(g.ty(operands.rhs)?.shape.len());
        let mut sum = accumulate(node, g, x, &operands)?;
        if let Some(bias) = node.input(8).filter(|_| operands.conv) {
            let b = x.cast(bias, g.ty(bias)?.dtype, DType::I32);
            let b = per_channel(x, &b, g.ty(bias)?, out_rank);
            sum = x.op("Add", &[&sum, &b], &[]);
        }
        let c = DType::F32;
        let scale = |x: &mut Expansion, i: usize| -> OResult<String> {
            let t = g.ty(&node.inputs[i])?;
            let s = x.cast(&node.inputs[i], t.dtype, c);
            Ok(if operands.conv && i == 4 { per_channel(x, &s, t, out_rank) } else { s })
        };
        let (a_scale, b_scale, y_scale) = (scale(x, 1)?, scale(x, 4)?, scale(x, 6)?);
        let ab = x.op("Mul", &[&a_scale, &b_scale], &[]);
        let multiplier = x.op("Div", &[&ab, &y_scale], &[]);
        let wide = x.cast(&sum, DType::I32, c);
        let scaled = x.op("Mul", &[&wide, &multiplier], &[]);
        let (zero, to) = match node.input(7) {
            Some(z) => (Some(x.cast(z, g.ty(z)?.dtype, c)), g.ty(z)?.dtype),
            None => (None, g.ty(operands.lhs)?.dtype),
        };
        let y = round_to_integer(x, &scaled, zero.as_deref(), c, to)?;
        x.output(&y, Some(&node.outputs[0]));
        Ok(())
    }
}

/// `(lhs - lhs_zero) * (rhs - rhs_zero)` (MatMul or Conv) in int32.
fn accumulate(node: &Node, g: &Graph, x: &mut Expansion, o: &Operands) -> OResult<String> {
    let (lt, rt) = (g.ty(o.lhs)?, g.ty(o.rhs)?);
    for (name, t) in [(o.lhs, lt), (o.rhs, rt)] {
        if !matches!(t.dtype, DType::I8 | DType::U8) {
            return err(format!("'{name}' must be int8 or uint8, not {}", t.dtype.name()));
        }
    }
    let mut lhs = x.cast(o.lhs, lt.dtype, DType::I32);
    if let Some(z) = o.lhs_zero {
        let zt = g.ty(z)?;
        let z32 = x.cast(z, zt.dtype, DType::I32);
        // MatMul: one zero point per row of A ([M]) lines up with A's rows.
        let z32 = if !o.conv && zt.numel() > 1 { x.unsqueeze(&z32, &[-1]) } else { z32 };
        lhs = x.op("Sub", &[&lhs, &z32], &[]);
    }
    let mut rhs = x.cast(o.rhs, rt.dtype, DType::I32);
    if let Some(z) = o.rhs_zero {
        let zt = g.ty(z)?;
        let z32 = x.cast(z, zt.dtype, DType::I32);
        // Conv: one zero point per output channel, the weights' first dim.
        let z32 = if o.conv && zt.numel() > 1 { per_channel_of_weights(x, &z32, rt.shape.len()) } else { z32 };
        rhs = x.op("Sub", &[&rhs, &z32], &[]);
    }
    if !o.conv {
        return Ok(x.op("MatMul", &[&lhs, &rhs], &[]));
    }
    let attrs: Vec<(&str, Attr)> =
        CONV_ATTRIBUTES.iter().filter_map(|&k| node.attrs.get(k).map(|v| (k, v.clone()))).collect();
    // In f64, exact for any int32 sum, as the convolution kernels compute in floats.
    let (l, r) = (x.cast(&lhs, DType::I32, DType::F64), x.cast(&rhs, DType::I32, DType::F64));
    let sum = x.op("Conv", &[&l, &r], &attrs);
    Ok(x.cast(&sum, DType::F64, DType::I32))
}

/// A per-output-channel vector `[M]` shaped `[M, 1, ...]` against weights of rank `rank`.
fn per_channel_of_weights(x: &mut Expansion, v: &str, rank: usize) -> String {
    let trailing: Vec<i64> = (1..rank as i64).collect();
    x.unsqueeze(v, &trailing)
}

/// A per-channel vector (of type `t`) shaped `[C, 1, ...]` against an `[N, C, ...]` result of
/// rank `rank`; a single value as it is.
fn per_channel(x: &mut Expansion, v: &str, t: &TensorType, rank: usize) -> String {
    if t.numel() == 1 || rank < 3 {
        return v.to_string();
    }
    let trailing: Vec<i64> = (1..rank as i64 - 1).collect();
    x.unsqueeze(v, &trailing)
}
