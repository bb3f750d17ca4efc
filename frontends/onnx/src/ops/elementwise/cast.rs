//! Cast (with ONNX's conversion semantics), CastLike, Identity, BitCast, and Dropout at inference (the
//! input, and an all-true mask).

use super::{Element, ElementwiseOp as Op, Emit, Output};
use crate::data_dim::DataOp;
use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::{data_input, real_input};
use xcc_ir::{Type, ValueId};

pub const OPS: &[Op] = &[
    Op::new("Cast", Emit::Custom(cast), |_, a| a[0])
        .output(Output::CastTo)
        .mixed_types()
        .on_dims(|a| Some(a[0].clone())),
    Op::new("CastLike", Emit::Custom(cast), |_, a| a[0]).output(Output::Input(1)).one_data_input().mixed_types(),
    IDENTITY,
    Op::new("BitCast", Emit::Custom(bit_cast), bit_cast_value).output(Output::CastTo).mixed_types(),
];

/// Cast and CastLike: `saturate` (opset 19) decides a float8 result past its range.
fn cast(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    Ok(e.convert_saturating(a[0], el.dtype, el.out, el.node.int("saturate", 1) != 0))
}

/// BitCast: the element's bits read as the target type, of the same size (checked before,
/// with the other type constraints).
fn bit_cast(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    let (from, to) = (el.dtype, el.out);
    if from == DType::Bool || to == DType::Bool {
        // A bool is one byte holding 0 or 1.
        return Ok(e.convert(a[0], from, to));
    }
    // float16 and bfloat16 compute in f32: back to their 16 bits first, and from them after.
    let half = |d: DType| d.is_float() && d.size() == 2;
    let stored = if half(from) { e.value_op("arith.truncf", a, from.ir_type()) } else { a[0] };
    let bits = e.value_op("arith.bitcast", &[stored], to.ir_type());
    Ok(if half(to) { e.value_op("arith.extf", &[bits], Type::f32()) } else { bits })
}

fn bit_cast_value(el: &Element, a: &[f64]) -> f64 {
    let bits = Tensor::from_f64(el.dtype, vec![1], &[a[0]]).data;
    Tensor { ty: TensorType::new(el.out, vec![1]), data: bits }.to_f64()[0]
}

const IDENTITY: Op =
    Op::new("Identity", Emit::Custom(|_, _, a| Ok(a[0])), |_, a| a[0]).one_data_input().on_dims(|a| Some(a[0].clone()));

pub struct Dropout;

impl OnnxOp for Dropout {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        // Inference only: training mode (an attribute before opset 12, an input after) would
        // drop values; with ratio 0 it keeps them all, and the result is the input. Either may
        // be read at run time, which then refuses training with a nonzero ratio.
        let training =
            if node.opset < 7 { DataExpr::num(i64::from(node.int("is_test", 1) == 0)) } else { flag(node, g, 2)? };
        let (zero, real_zero) = (DataExpr::num(0), DataExpr::num(0));
        // Zero, and not NaN (which compares false both ways, and rounds to -1).
        let is_zero = |r: &DataExpr| {
            let signed = r.real(DataOp::RealLt, &real_zero).add(&real_zero.real(DataOp::RealLt, r));
            signed.eq(&zero).and(&r.rounded(DataOp::Round).eq(&zero))
        };
        let ratio_is_zero = match node.input(1) {
            Some(name) => match (g.consts.get(name), real_input(g, node, 1).as_deref()) {
                (Some(t), _) => DataExpr::num(i64::from(t.to_f64().first().copied() == Some(0.0))),
                (None, Some([r])) => is_zero(r),
                _ => return err(format!("Dropout's ratio '{name}' must be a constant or a graph input")),
            },
            None => DataExpr::num(i64::from(node.float("ratio", 0.5) == 0.0)),
        };
        let inference = training.not().select(&DataExpr::num(1), &ratio_is_zero);
        g.require_supported(
            inference,
            "Dropout in training mode with a nonzero ratio is not supported (xcc compiles inference graphs)",
        )?;
        let mut out = IDENTITY.infer(node, g)?;
        if node.outputs.len() > 1 {
            out.push(TensorType::with_dims(DType::Bool, out[0].dims()));
        }
        Ok(out)
    }

    /// The input and the mask as any elementwise operator's.
    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        let x = inputs[0]?;
        let mut out = vec![x.clone()];
        if node.outputs.len() > 1 {
            out.push(Tensor::from_f64(DType::Bool, x.ty.shape.clone(), &vec![1.0; x.ty.numel()]));
        }
        Some(Ok(out))
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let mask = node.outputs.get(1).is_some_and(|o| !o.is_empty());
        IDENTITY.lower_with(node, g, e, mask)
    }
}

/// Boolean input `i` as 1 or 0: absent is false, a constant is its value, a graph input is read
/// by the run.
fn flag(node: &Node, g: &Graph, i: usize) -> OResult<DataExpr> {
    let Some(name) = node.input(i) else { return Ok(DataExpr::num(0)) };
    match (g.consts.get(name), data_input(g, node, i).as_deref()) {
        (Some(t), _) => Ok(DataExpr::num(i64::from(t.to_f64().first().copied().unwrap_or(0.0) != 0.0))),
        (None, Some([x])) => Ok(x.eq(&DataExpr::num(0)).not()),
        _ => err(format!("Dropout's training_mode '{name}' must be a constant or a graph input")),
    }
}
