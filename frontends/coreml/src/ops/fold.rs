//! Integer and boolean arithmetic on small constants, done while importing rather than left to
//! the graph's folding: a `while_loop`'s counter and condition must be known as the loop is
//! unrolled ([`super::control`]).

use super::OpContext;
use crate::value::Const;
use xcc_frontend_onnx::graph::{DType, Tensor, TensorType};

/// The most elements a folded value has.
const SMALL: usize = 64;

/// Folds the operation into a constant when it is integer or boolean arithmetic on small
/// constants; whether it did.
pub fn small_integers(cx: &mut OpContext) -> Result<bool, String> {
    let kind = cx.op.r#type.as_str();
    let binary: fn(i64, i64) -> i64 = match kind {
        "add" => |a, b| a.wrapping_add(b),
        "sub" => |a, b| a.wrapping_sub(b),
        "mul" => |a, b| a.wrapping_mul(b),
        "less" => |a, b| i64::from(a < b),
        "less_equal" => |a, b| i64::from(a <= b),
        "greater" => |a, b| i64::from(a > b),
        "greater_equal" => |a, b| i64::from(a >= b),
        "equal" => |a, b| i64::from(a == b),
        "not_equal" => |a, b| i64::from(a != b),
        "logical_and" => |a, b| i64::from(a != 0 && b != 0),
        "logical_or" => |a, b| i64::from(a != 0 || b != 0),
        _ => return Ok(false),
    };
    let (Some(x), Some(y)) = (small_const(cx, "x"), small_const(cx, "y")) else { return Ok(false) };
    let shape =
        if x.ty.shape.iter().product::<usize>() >= y.ty.shape.iter().product() { &x.ty.shape } else { &y.ty.shape };
    let n: usize = shape.iter().product();
    let (xs, ys) = (x.to_i64(), y.to_i64());
    if !(xs.len() == n || xs.len() == 1) || !(ys.len() == n || ys.len() == 1) {
        return Ok(false);
    }
    let values: Vec<i64> = (0..n).map(|i| binary(xs[i % xs.len()], ys[i % ys.len()])).collect();
    let comparison = !matches!(kind, "add" | "sub" | "mul");
    let dtype = if comparison { DType::Bool } else { x.ty.dtype };
    let size = dtype.size();
    let data = values.iter().flat_map(|v| v.to_le_bytes().into_iter().take(size)).collect();
    cx.define_const(0, Const::Tensor(Tensor { ty: TensorType::new(dtype, shape.clone()), data }))?;
    Ok(true)
}

/// A parameter's value when it is a small integer or boolean constant.
fn small_const(cx: &OpContext, param: &str) -> Option<Tensor> {
    match cx.known(param).ok()?? {
        Const::Tensor(t) if !t.ty.dtype.is_float() && t.ty.numel() <= SMALL => Some(t),
        _ => None,
    }
}
