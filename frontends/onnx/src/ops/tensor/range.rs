//! Range: `start, start + delta, ...` up to `limit`. Folded at compile time when the three are
//! constants; over integers computed from run-time dims (`Range(0, seq)`), a parallel loop.

use super::dims_input;
use crate::data_dim::DataOp;
use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::computed_data::{computed_data, real_data};
use crate::ops::onnx_op::OnnxOp;
use xcc_ir::Type;

pub struct Range;

/// Start, limit and delta as dims.
fn bounds(node: &Node, g: &Graph) -> OResult<[Dim; 3]> {
    Ok([scalar_dim(node, g, 0, "start")?, scalar_dim(node, g, 1, "limit")?, scalar_dim(node, g, 2, "delta")?])
}

fn scalar_dim(node: &Node, g: &Graph, i: usize, what: &str) -> OResult<Dim> {
    let d = dims_input(g, node, i, what)?.ok_or_else(|| OnnxError::msg(format!("Range needs {what}")))?;
    match <[Dim; 1]>::try_from(d) {
        Ok([d]) => Ok(d),
        Err(_) => err(format!("Range's {what} must be a scalar")),
    }
}

/// `ceil((limit - start) / delta)` elements as an expression of the dims, when a positive
/// constant step divides the span for every value of them (else the run computes the length).
fn exact_length(start: &Dim, limit: &Dim, delta: &Dim) -> Option<Dim> {
    let span = limit.sub(start);
    match delta.as_const()? {
        1 => Some(span),
        d if d > 1 => span.div_exact(delta),
        _ => None,
    }
}

/// Start, limit and delta as values the run reads: inputs' elements, or dims.
fn data_bounds(node: &Node, g: &Graph) -> OResult<[DataExpr; 3]> {
    let dims = |g: &Graph| bounds(node, g);
    // Inputs' elements, also through the integer arithmetic that computes them (OneHot's
    // depth cast from a float input).
    let scalar = |i: usize| -> OResult<Option<[DataExpr; 1]>> {
        let Some(name) = node.input(i).filter(|n| !g.consts.contains_key(*n)) else { return Ok(None) };
        Ok(computed_data(g, name)?.and_then(|v| v.try_into().ok()).filter(|[x]: &[DataExpr; 1]| x.reads_elements()))
    };
    match [scalar(0)?, scalar(1)?, scalar(2)?] {
        [None, None, None] => Ok(dims(g)?.map(DataExpr::Dim)),
        read => {
            let mut out = Vec::new();
            for (i, (x, what)) in read.into_iter().zip(["start", "limit", "delta"]).enumerate() {
                out.push(match x {
                    Some([x]) => x,
                    None => DataExpr::Dim(scalar_dim(node, g, i, what)?),
                });
            }
            Ok(out.try_into().expect("three bounds"))
        }
    }
}

/// Start, limit and delta of a floating-point Range as reals the run computes: graph inputs,
/// whole-number constants, integers cast to floats, and float arithmetic on those
/// ([`real_data`]).
fn real_bounds(node: &Node, g: &Graph) -> OResult<[DataExpr; 3]> {
    let scalar = |i: usize, what: &str| match real_data(g, &node.inputs[i])?.as_deref() {
        Some([x]) => Ok(x.clone()),
        _ => err(format!(
            "a floating-point Range reads its {what} at run time only from a graph input holding one value, an \
             integer cast to a float, or float arithmetic on those (else it must be constant)"
        )),
    };
    Ok([scalar(0, "start")?, scalar(1, "limit")?, scalar(2, "delta")?])
}

impl OnnxOp for Range {
    /// Reached only when some bound is computed from run-time dims or read from an input
    /// (constants fold).
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let dtype = g.ty(&node.inputs[0])?.dtype;
        if dtype.is_float() {
            let [start, limit, delta] = real_bounds(node, g)?;
            let zero = DataExpr::num(0);
            let nonzero = delta.real(DataOp::RealLt, &zero).add(&zero.real(DataOp::RealLt, &delta));
            g.require(nonzero, "Range's delta is 0 (or NaN)")?;
            let steps = limit.real(DataOp::RealSub, &start).real(DataOp::RealDiv, &delta).rounded(DataOp::Ceil);
            return Ok(vec![TensorType::with_dims(
                dtype,
                vec![g.data_dim(format!("{}.0", node.outputs[0]), steps.max(&zero))],
            )]);
        }
        let [start, limit, delta] = data_bounds(node, g)?;
        if let [DataExpr::Dim(s), DataExpr::Dim(l), DataExpr::Dim(d)] = [&start, &limit, &delta] {
            if let Some(n) = exact_length(s, l, d) {
                return Ok(vec![TensorType::with_dims(dtype, vec![n])]);
            }
        }
        // ceil(span / delta) = -floor(-span / delta), and none below 0.
        g.require(delta.eq(&DataExpr::num(0)).not(), "Range's delta is 0")?;
        let zero = DataExpr::num(0);
        let steps = zero.sub(&zero.sub(&limit.sub(&start)).floor_div(&delta)).max(&zero);
        Ok(vec![TensorType::with_dims(dtype, vec![g.data_dim(format!("{}.0", node.outputs[0]), steps)])])
    }

    fn fold(&self, _: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        if inputs.iter().flatten().any(|t| t.ty.numel() != 1) {
            return Some(err("Range's start, limit and delta must be scalars"));
        }
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

    /// Element `i` is `start + i * delta`.
    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let out_t = g.ty(&node.outputs[0])?;
        if out_t.dtype.is_float() {
            return lower_real(node, g, e);
        }
        let [start, _, delta] = data_bounds(node, g)?;
        let (n, elem) = (out_t.dims()[0].clone(), out_t.dtype.ir_type());
        let out = e.buf(&node.outputs[0])?;
        let (start, delta, n) = (e.data_value(&start), e.data_value(&delta), e.dim_extent(&n));
        e.parallel_over(&[n], &mut |e, ivs| {
            let step = e.value_op("arith.muli", &[ivs[0], delta], Type::Index);
            let v = e.value_op("arith.addi", &[start, step], Type::Index);
            let v = e.value_op("arith.index_cast", &[v], elem.clone());
            e.store(v, out, ivs);
        });
        Ok(())
    }
}

/// A floating-point Range: element `i` is `start + i * delta`, computed in f64 as folding does.
fn lower_real(node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
    let [start, _, delta] = real_bounds(node, g)?;
    let out_t = g.ty(&node.outputs[0])?;
    let out = e.buf(&node.outputs[0])?;
    let f64t = Type::Float(xcc_ir::types::FloatKind::F64);
    let elem = out_t.dtype.ir_type();
    let (start, delta, n) = (e.data_real(&start), e.data_real(&delta), e.dim_extent(&out_t.dims()[0]));
    e.parallel_over(&[n], &mut |e, ivs| {
        let i = e.value_op("arith.index_cast", &[ivs[0]], Type::i64());
        let i = e.value_op("arith.sitofp", &[i], f64t.clone());
        let v = e.fmuladd(i, delta, start);
        let v = if elem == f64t { v } else { e.value_op("arith.truncf", &[v], elem.clone()) };
        e.store(v, out, ivs);
    });
    Ok(())
}
