//! The distributions over Philox's words ([`super::philox`]): each output element draws the
//! words of its own row-major index.
//!
//! - Uniform: `low + (high - low) * u`, `u` in `[0, 1)` from 24 bits (53 for float64).
//! - Normal: Box-Muller, `mean + scale * sqrt(-2 ln(1 - u1)) * cos(2 pi u2)`.
//! - Bernoulli: 1 where `u < p`.
//! - Multinomial: the first class whose running sum of `exp(x - max)` exceeds `u` times the
//!   total (unnormalized log-probabilities, as ONNX defines its input).
//!
//! Float16 and bfloat16 are drawn in float32 and rounded.

use super::philox::{key, unit_f32, unit_f64, words};
use crate::emit::{compute_type, f64_type, Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use xcc_ir::{Type, ValueId};

/// RandomUniform and RandomNormal (`normal`), of the `shape` attribute or, for the `Like`
/// forms (`like`), of the input's dims.
pub struct RandomFill {
    pub normal: bool,
    pub like: bool,
}

/// The `dtype` attribute, or `default`.
fn dtype_attr(node: &Node, default: DType) -> OResult<DType> {
    if !node.attrs.contains_key("dtype") {
        return Ok(default);
    }
    let code = node.int("dtype", 1) as i32;
    DType::from_onnx(code).ok_or_else(|| OnnxError::msg(format!("dtype {} is not supported", DType::onnx_name(code))))
}

/// An error unless `dtype` is a float type the operator draws.
fn float_output(node: &Node, dtype: DType) -> OResult<DType> {
    match dtype {
        DType::F32 | DType::F64 | DType::F16 | DType::BF16 => Ok(dtype),
        d => err(format!("{} draws float16, bfloat16, float or double, not {}", node.op, d.name())),
    }
}

/// Element `ivs` of a tensor of dims `extents` as Philox's counter (an i64).
fn counter(e: &mut Emitter, ivs: &[ValueId], extents: &[Extent]) -> ValueId {
    let mut flat = e.idx(0);
    for (k, &iv) in ivs.iter().enumerate() {
        let n = e.extent(extents[k]);
        flat = e.value_op("arith.muli", &[flat, n], Type::Index);
        flat = e.value_op("arith.addi", &[flat, iv], Type::Index);
    }
    e.value_op("arith.index_cast", &[flat], Type::i64())
}

/// The type a draw of compute type `ct` is computed in: float64 for float64, else float32.
fn drawn_in(ct: &Type) -> DType {
    if *ct == f64_type() {
        DType::F64
    } else {
        DType::F32
    }
}

/// A uniform in `[0, 1)` of the compute type `ct` (f32 or f64) from the words.
fn uniform(e: &mut Emitter, w: &[ValueId; 4], ct: &Type) -> ValueId {
    if *ct == f64_type() {
        unit_f64(e, w[0], w[1])
    } else {
        unit_f32(e, w[0])
    }
}

/// A standard normal of `ct` by Box-Muller: the radius from the first uniform (as `1 - u`, in
/// `(0, 1]`, so its logarithm is finite), the angle from the second.
fn standard_normal(e: &mut Emitter, w: &[ValueId; 4], ct: &Type) -> ValueId {
    let (u1, u2) = if *ct == f64_type() {
        (unit_f64(e, w[0], w[1]), unit_f64(e, w[2], w[3]))
    } else {
        (unit_f32(e, w[0]), unit_f32(e, w[1]))
    };
    let one = e.const_float(1.0, ct.clone());
    let u1 = e.value_op("arith.subf", &[one, u1], ct.clone());
    let log = e.value_op("math.log", &[u1], ct.clone());
    let minus_two = e.const_float(-2.0, ct.clone());
    let r = e.value_op("arith.mulf", &[log, minus_two], ct.clone());
    let r = e.value_op("math.sqrt", &[r], ct.clone());
    let two_pi = e.const_float(std::f64::consts::TAU, ct.clone());
    let angle = e.value_op("arith.mulf", &[u2, two_pi], ct.clone());
    let c = e.value_op("math.cos", &[angle], ct.clone());
    e.value_op("arith.mulf", &[r, c], ct.clone())
}

/// `a * x + b` in `ct`.
fn scaled(e: &mut Emitter, x: ValueId, a: f64, b: f64, ct: &Type) -> ValueId {
    let a = e.const_float(a, ct.clone());
    let b = e.const_float(b, ct.clone());
    let v = e.value_op("arith.mulf", &[x, a], ct.clone());
    e.value_op("arith.addf", &[v, b], ct.clone())
}

impl OnnxOp for RandomFill {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        if self.like {
            let x = g.ty(&node.inputs[0])?;
            let dtype = float_output(node, dtype_attr(node, x.dtype)?)?;
            return Ok(vec![TensorType::with_dims(dtype, x.dims())]);
        }
        let dtype = float_output(node, dtype_attr(node, DType::F32)?)?;
        let Some(shape) = node.ints("shape") else {
            return err(format!("{} needs the shape attribute", node.op));
        };
        if shape.iter().any(|&d| d < 0) {
            return err(format!("{}'s shape must not be negative, not {shape:?}", node.op));
        }
        Ok(vec![TensorType::new(dtype, shape.iter().map(|&d| d as usize).collect())])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let t = g.ty(&node.outputs[0])?;
        let out = e.buf(&node.outputs[0])?;
        let extents = e.dim_extents(&t.dims());
        let ct = compute_type(t.dtype);
        let key = key(node);
        let (a, b) = if self.normal {
            (node.float("scale", 1.0) as f64, node.float("mean", 0.0) as f64)
        } else {
            let (low, high) = (node.float("low", 0.0) as f64, node.float("high", 1.0) as f64);
            (high - low, low)
        };
        let (normal, dtype) = (self.normal, t.dtype);
        e.parallel_over(&extents, &mut |e, ivs| {
            let index = counter(e, ivs, &extents);
            let w = words(e, key, index);
            let x = if normal { standard_normal(e, &w, &ct) } else { uniform(e, &w, &ct) };
            let v = scaled(e, x, a, b, &ct);
            let v = e.convert(v, drawn_in(&ct), dtype);
            e.store(v, out, ivs);
        });
        Ok(())
    }
}

/// Bernoulli: 1 where a uniform draw is below the input's probability, as `dtype` (the input's
/// type by default).
pub struct Bernoulli;

impl OnnxOp for Bernoulli {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let p = g.ty(&node.inputs[0])?;
        float_output(node, p.dtype)?;
        Ok(vec![TensorType::with_dims(dtype_attr(node, p.dtype)?, p.dims())])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let (pt, t) = (g.ty(&node.inputs[0])?, g.ty(&node.outputs[0])?);
        let (p, out) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        let extents = e.dim_extents(&t.dims());
        let ct = compute_type(pt.dtype);
        let wide = drawn_in(&ct);
        let (key, from, to) = (key(node), pt.dtype, t.dtype);
        e.parallel_over(&extents, &mut |e, ivs| {
            let index = counter(e, ivs, &extents);
            let w = words(e, key, index);
            let u = uniform(e, &w, &ct);
            let prob = e.load(p, ivs);
            let prob = e.convert(prob, from, wide);
            let hit = e.cmpf("olt", u, prob);
            let v = e.convert(hit, DType::Bool, to);
            e.store(v, out, ivs);
        });
        Ok(())
    }
}

/// Multinomial: `sample_size` class indices per batch row of unnormalized log-probabilities
/// `[batch, classes]`, as `dtype` (int32 by default, or int64).
pub struct Multinomial;

impl OnnxOp for Multinomial {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = g.ty(&node.inputs[0])?;
        if x.shape.len() != 2 || !matches!(x.dtype, DType::F32 | DType::F64 | DType::F16) {
            return err(format!("Multinomial takes float [batch, classes], not {}", x.describe()));
        }
        let dtype = dtype_attr(node, DType::I32)?;
        if !matches!(dtype, DType::I32 | DType::I64) {
            return err(format!("Multinomial's dtype must be int32 or int64, not {}", dtype.name()));
        }
        let samples = node.int("sample_size", 1);
        if samples < 1 {
            return err(format!("Multinomial's sample_size must be positive, not {samples}"));
        }
        Ok(vec![TensorType::with_dims(dtype, vec![x.dims()[0].clone(), Dim::fixed(samples as usize)])])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let (xt, t) = (g.ty(&node.inputs[0])?, g.ty(&node.outputs[0])?);
        let (x, out) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        let extents = e.dim_extents(&t.dims());
        let classes = e.dim_extent(&xt.dims()[1]);
        let ct = compute_type(xt.dtype);
        let wide = drawn_in(&ct);
        let (key, from, to) = (key(node), xt.dtype, t.dtype);
        e.parallel_over(&extents, &mut |e, ivs| {
            let b = ivs[0];
            let logit = |e: &mut Emitter, c: ValueId| {
                let v = e.load(x, &[b, c]);
                e.convert(v, from, wide)
            };
            let lowest = e.const_float(f64::NEG_INFINITY, ct.clone());
            let top = e.for_acc_over(classes, lowest, |e, c, m| {
                let v = logit(e, c);
                e.value_op("arith.maximumf", &[m, v], ct.clone())
            });
            let weight = |e: &mut Emitter, c: ValueId| {
                let v = logit(e, c);
                let v = e.value_op("arith.subf", &[v, top], ct.clone());
                e.value_op("math.exp", &[v], ct.clone())
            };
            let zero = e.const_float(0.0, ct.clone());
            let total = e.for_acc_over(classes, zero, |e, c, s| {
                let w = weight(e, c);
                e.value_op("arith.addf", &[s, w], ct.clone())
            });
            let index = counter(e, ivs, &extents);
            let w = words(e, key, index);
            let u = uniform(e, &w, &ct);
            let target = e.value_op("arith.mulf", &[u, total], ct.clone());
            // The last class unless an earlier one's running sum passes the target first.
            let last = e.extent(classes);
            let one = e.idx(1);
            let last = e.value_op("arith.subi", &[last, one], Type::Index);
            let no = e.const_int(0, Type::i1());
            let (lo, hi) = (e.idx(0), e.extent(classes));
            let chosen = e.for_accs_between(lo, hi, &[zero, last, no], |e, c, acc| {
                let w = weight(e, c);
                let sum = e.value_op("arith.addf", &[acc[0], w], ct.clone());
                let passes = e.cmpf("ogt", sum, target);
                let yes = e.const_int(1, Type::i1());
                let open = e.value_op("arith.xori", &[acc[2], yes], Type::i1());
                let now = e.value_op("arith.andi", &[open, passes], Type::i1());
                vec![
                    sum,
                    e.value_op("arith.select", &[now, c, acc[1]], Type::Index),
                    e.value_op("arith.ori", &[acc[2], passes], Type::i1()),
                ]
            })[1];
            let v = e.value_op("arith.index_cast", &[chosen], to.ir_type());
            e.store(v, out, ivs);
        });
        Ok(())
    }
}
