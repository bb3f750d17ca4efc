//! Dropout. At inference (training mode off, or a ratio of 0) it is the input and an all-true
//! mask, lowered as Identity. In training mode it drops each element whose draw from the seeded
//! stream ([`Mt19937`], the `seed` attribute, 0 by default) is below the ratio and scales the
//! rest by `1 / (1 - ratio)`: the draws are made at compile time, one per element, so the mask is
//! the same in every run; the ratio and the mode may still be read at run time.

use super::cast::IDENTITY;
use super::mt19937::Mt19937;
use crate::data_dim::DataOp;
use crate::emit::Emitter;
use crate::graph::*;
use crate::ops::expansion::Expansion;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::{data_input, real_input};

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

    /// Training mode that may be on (opset 12 on: an input), over dims known at compile time.
    fn expand(&self, node: &Node, g: &Graph) -> Option<OResult<Vec<Node>>> {
        let training = node.input(2).filter(|_| node.opset >= 12)?;
        if g.consts.get(training).is_some_and(|t| t.to_f64().first().copied().unwrap_or(0.0) == 0.0) {
            return None;
        }
        let t = g.types.get(&node.inputs[0])?;
        if t.is_dynamic() || !t.dtype.is_float() {
            return None;
        }
        let mut x = Expansion::new(node);
        Some(training_mode(node, g, &mut x, t, training).map(|()| x.finish()))
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

/// `y = x * mask * scale` and the mask, where in training mode `mask = draw >= ratio` and
/// `scale = 1 / (1 - ratio)`, and otherwise every element is kept unscaled.
fn training_mode(node: &Node, g: &Graph, x: &mut Expansion, t: &TensorType, training: &str) -> OResult<()> {
    // The draws are made at compile time, a double per element: bounded as folding is.
    let bytes = crate::import::checked_bytes(&node.inputs[0], DType::F64, &t.shape)?;
    if bytes > crate::infer::MAX_FOLDED_BYTES {
        return err(format!(
            "in training mode, Dropout draws its mask at compile time: '{}' ({}) would need {bytes} bytes of draws, more than the {} that xcc computes at compile time",
            node.inputs[0],
            t.describe(),
            crate::infer::MAX_FOLDED_BYTES
        ));
    }
    let seed = node.int("seed", 0);
    let mut stream = Mt19937::new(seed as u32);
    let draws: Vec<f64> = (0..t.numel()).map(|_| stream.next_f64()).collect();
    let draws = x.constant(Tensor::from_f64(DType::F64, t.shape.clone(), &draws));
    // The run checks 0 <= ratio < 1 (not NaN) whenever training is on.
    let in_range = |v: f64| DataExpr::num(i64::from((0.0..1.0).contains(&v)));
    let valid = match node.input(1) {
        Some(name) => match (g.consts.get(name), real_input(g, node, 1).as_deref()) {
            (Some(t), _) => in_range(t.to_f64().first().copied().unwrap_or(f64::NAN)),
            (None, Some([r])) => {
                let zero = DataExpr::num(0);
                r.real(DataOp::RealLt, &zero).not().and(&r.real(DataOp::RealLt, &DataExpr::num(1)))
            }
            _ => return err(format!("Dropout's ratio '{name}' must be a constant or a graph input")),
        },
        None => in_range(node.float("ratio", 0.5) as f64),
    };
    g.require(flag(node, g, 2)?.not().select(&DataExpr::num(1), &valid), "Dropout's ratio must be in [0, 1)")?;
    let ratio = match node.input(1) {
        Some(r) => {
            let r = x.cast(r, g.ty(r)?.dtype, DType::F64);
            x.reshape(&r, &[])
        }
        None => x.scalar(node.float("ratio", 0.5) as f64, DType::F64),
    };
    let on = x.cast(training, g.ty(training)?.dtype, DType::Bool);
    let on = x.reshape(&on, &[]);
    let kept = x.op("GreaterOrEqual", &[&draws, &ratio], &[]);
    let off = x.op("Not", &[&on], &[]);
    let mask = x.op("Or", &[&kept, &off], &[]);
    let one = x.scalar(1.0, DType::F64);
    let rest = x.op("Sub", &[&one, &ratio], &[]);
    let scale = x.op("Div", &[&one, &rest], &[]);
    let scale = x.op("Where", &[&on, &scale, &one], &[]);
    let scale = x.cast(&scale, DType::F64, t.dtype);
    let keep = x.cast(&mask, DType::Bool, t.dtype);
    let masked = x.op("Mul", &[&node.inputs[0], &keep], &[]);
    let y = x.op("Mul", &[&masked, &scale], &[]);
    x.output(&y, Some(&node.outputs[0]));
    x.output(&mask, node.outputs.get(1).map(String::as_str));
    Ok(())
}
