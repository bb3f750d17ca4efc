//! The Reduce* operators as data: what each does to an element before combining ([`Pre`]), how
//! it combines ([`Combine`]) and what it does to the result ([`Post`]). Each lowers to
//! `kernel.generic`s: the accumulator filled with the combination's identity, the reduction
//! itself (parallel over the kept dims, reduction loops over the others), and, when there is a
//! finishing step or the output is float16, one more that finishes into the output. Float16
//! accumulates in float32.

use super::{data_axes, max_of, min_of, reduced_axes, reduced_dims};
use crate::emit::{compute_type, identity, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::elementwise::on_dims;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::{axis_hits, data_axis_hits, data_dims_without};
use xcc_ir::affine::{AffineExpr, AffineMap};
use xcc_ir::builder::Extent;
use xcc_ir::ValueId;

#[derive(Clone, Copy, PartialEq)]
enum Pre {
    Identity,
    Abs,
    Square,
    Exp,
}

#[derive(Clone, Copy, PartialEq)]
enum Combine {
    Add,
    Mul,
    Max,
    Min,
}

#[derive(Clone, Copy, PartialEq)]
enum Post {
    Identity,
    /// Divide by the number of reduced elements.
    Mean,
    /// Floating point only (integers keep the sum of squares).
    Sqrt,
    /// Floating point only.
    Log,
}

pub struct Reduction {
    pub name: &'static str,
    pre: Pre,
    combine: Combine,
    post: Post,
}

const fn kind(name: &'static str, pre: Pre, combine: Combine, post: Post) -> Reduction {
    Reduction { name, pre, combine, post }
}

pub const REDUCTIONS: &[Reduction] = &[
    kind("ReduceSum", Pre::Identity, Combine::Add, Post::Identity),
    kind("ReduceMean", Pre::Identity, Combine::Add, Post::Mean),
    kind("ReduceMax", Pre::Identity, Combine::Max, Post::Identity),
    kind("ReduceMin", Pre::Identity, Combine::Min, Post::Identity),
    kind("ReduceProd", Pre::Identity, Combine::Mul, Post::Identity),
    kind("ReduceL1", Pre::Abs, Combine::Add, Post::Identity),
    kind("ReduceL2", Pre::Square, Combine::Add, Post::Sqrt),
    kind("ReduceLogSum", Pre::Identity, Combine::Add, Post::Log),
    kind("ReduceLogSumExp", Pre::Exp, Combine::Add, Post::Log),
    kind("ReduceSumSquare", Pre::Square, Combine::Add, Post::Identity),
];

impl OnnxOp for Reduction {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = g.ty(&node.inputs[0])?;
        if self.pre == Pre::Exp && !x.dtype.is_float() {
            return err(format!("{} needs floating point, not {}", self.name, x.dtype.name()));
        }
        if let Some(axes) = data_axes(node, g).filter(|a| !a.is_empty()) {
            return Ok(vec![TensorType::with_dims(x.dtype, data_reduced_dims(node, g, &x.dims(), &axes)?)]);
        }
        Ok(vec![match reduced_axes(node, g, x.shape.len())? {
            Some(axes) => TensorType::with_dims(x.dtype, reduced_dims(node, &x.dims(), &axes)),
            None => x.clone(),
        }])
    }

    /// Any dim may be known only at run time, reduced or kept; so may the axes.
    fn takes_run_time_dims(&self) -> bool {
        true
    }

    /// The sum, product, maximum or minimum of a shape vector (`ReduceProd(Shape(x))`, the
    /// elements of a tensor of run-time dims): a dim, as the elementwise operators make one.
    fn fold_shape(&self, node: &Node, g: &Graph, inputs: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        let x = inputs.first()?.as_ref()?;
        if self.pre != Pre::Identity || self.post != Post::Identity || x.shape.len() != 1 || x.values.is_empty() {
            return None;
        }
        let axes = match node.input(1) {
            Some(a) => g.consts.get(a)?.to_i64(),
            None => node.ints("axes").unwrap_or_default(),
        };
        let every = axes.is_empty() && node.int("noop_with_empty_axes", 0) == 0;
        if !every && !axes.iter().all(|&a| a == 0 || a == -1) {
            return None;
        }
        let dims: Vec<&Dim> = x.values.iter().collect();
        let ranges = |s: &str| g.symbol_range(s);
        let value = match self.combine {
            Combine::Add => dims[1..].iter().fold(dims[0].clone(), |a, b| a.add(b)),
            Combine::Mul => dims[1..].iter().fold(dims[0].clone(), |a, b| a.mul(b)),
            Combine::Max => g.dim_of(&on_dims::max(&dims, &ranges), found_dim_name(&node.outputs[0], 0)),
            Combine::Min => g.dim_of(&on_dims::min(&dims, &ranges), found_dim_name(&node.outputs[0], 0)),
        };
        let shape = if node.int("keepdims", 1) != 0 { vec![1] } else { vec![] };
        Some(Ok(vec![ShapeValue { dtype: x.dtype, shape, values: vec![value] }]))
    }

    /// A constant integer tensor's sums, products, extremes (and absolute or squared sums): the
    /// exact result the run would compute (such as the column sums an integer matmul's zero
    /// point subtracts), so computed once here. A result past the type's range, which the run
    /// would wrap, is not folded; nor are floating-point reductions, whose order of additions
    /// the run decides.
    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        let x = inputs.first().copied().flatten()?;
        let d = x.ty.dtype;
        if d.is_float() || d == DType::Bool || self.post != Post::Identity || self.pre == Pre::Exp {
            return None;
        }
        let rank = x.ty.shape.len();
        let listed = match node.input(1) {
            Some(_) => inputs.get(1).copied().flatten()?.to_i64(),
            None => node.ints("axes").unwrap_or_default(),
        };
        let axes: Vec<usize> = if listed.is_empty() {
            if node.int("noop_with_empty_axes", 0) != 0 {
                return Some(Ok(vec![x.clone()]));
            }
            (0..rank).collect()
        } else {
            listed
                .iter()
                .map(|&a| usize::try_from(if a < 0 { a + rank as i64 } else { a }).ok())
                .collect::<Option<_>>()?
        };
        if axes.iter().any(|&a| a >= rank) {
            return None;
        }
        let keep = node.int("keepdims", 1) == 1;
        let out_shape: Vec<usize> = (0..rank)
            .filter_map(|i| match (axes.contains(&i), keep) {
                (true, true) => Some(1),
                (true, false) => None,
                (false, _) => Some(x.ty.shape[i]),
            })
            .collect();
        let kept_shape: Vec<usize> = (0..rank).map(|i| if axes.contains(&i) { 1 } else { x.ty.shape[i] }).collect();
        let start = match self.combine {
            Combine::Add => 0.0,
            Combine::Mul => 1.0,
            Combine::Max => min_of(d),
            Combine::Min => max_of(d),
        };
        let mut acc = vec![start; kept_shape.iter().product()];
        let values = x.to_f64();
        for (flat, &v) in values.iter().enumerate() {
            let (mut rest, mut at, mut stride) = (flat, 0, 1);
            for i in (0..rank).rev() {
                let coord = rest % x.ty.shape[i];
                rest /= x.ty.shape[i];
                if !axes.contains(&i) {
                    at += coord * stride;
                }
                stride *= kept_shape[i];
            }
            let v = match self.pre {
                Pre::Abs => v.abs(),
                Pre::Square => v * v,
                _ => v,
            };
            acc[at] = match self.combine {
                Combine::Add => acc[at] + v,
                Combine::Mul => acc[at] * v,
                Combine::Max => acc[at].max(v),
                Combine::Min => acc[at].min(v),
            };
        }
        if acc.iter().any(|&v| v < min_of(d) || v > max_of(d) || v.abs() >= (1u64 << 53) as f64) {
            return None;
        }
        Some(Ok(vec![Tensor::from_f64(d, out_shape, &acc)]))
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?;
        let (x, out) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        if let Some(axes) = data_axes(node, g).filter(|a| !a.is_empty()) {
            self.lower_data_axes(e, x_t, (x, out), g.ty(&node.outputs[0])?, &axes);
            return Ok(());
        }
        let Some(axes) = reduced_axes(node, g, x_t.shape.len())? else {
            e.copy(x, out);
            return Ok(());
        };
        let d = x_t.dtype;
        let (x_dims, out_dims) = (x_t.dims(), reduced_dims(node, &x_t.dims(), &axes));
        let finishes = self.post != Post::Identity || compute_type(d) != d.ir_type();
        let acc = if finishes {
            e.alloc_tensor(&TensorType::with_dims(
                if d.size() == 2 && d.is_float() { DType::F32 } else { d },
                out_dims.clone(),
            ))
        } else {
            out
        };
        let rank = out_dims.len();
        e.generic(&[], &[(acc, identity(rank))], vec![true; rank], |e, _| Ok(vec![self.identity_element(e, d)]))?;
        let loops: Vec<bool> = (0..x_dims.len()).map(|i| !axes.contains(&i)).collect();
        let keep = node.int("keepdims", 1) == 1;
        e.generic(&[(x, identity(loops.len()))], &[(acc, output_map(&loops, keep))], loops, |e, args| {
            let v = e.widen_f16(args[0]);
            let v = self.pre_step(e, v, d);
            Ok(vec![self.combine_step(e, args[1], v, d)])
        })?;
        if finishes {
            // A run-time count is computed once, outside the loop; a constant one inside, as
            // the body's constants are.
            let count = Dim::product(axes.iter().map(|&a| &x_dims[a]));
            let run_time_count = (!count.is_fixed()).then(|| element_count(e, &count, d));
            e.generic(&[(acc, identity(rank))], &[(out, identity(rank))], vec![true; rank], |e, args| {
                let count = run_time_count.unwrap_or_else(|| e.const_of(count.as_fixed().unwrap_or(0) as f64, d));
                let r = self.post_step(e, args[0], count, d);
                Ok(vec![e.narrow_to(r, &d.ir_type())])
            })?;
        }
        Ok(())
    }
}

/// The number of reduced elements, `count` (known only at run time), in `d`'s compute type.
fn element_count(e: &mut Emitter, count: &Dim, d: DType) -> ValueId {
    let n = e.dim_value(count);
    let n = e.value_op("arith.index_cast", &[n], xcc_ir::Type::i64());
    integer_as(e, n, d)
}

/// An i64 in `d`'s compute type.
fn integer_as(e: &mut Emitter, n: ValueId, d: DType) -> ValueId {
    match compute_type(d) {
        t if d.is_float() => e.value_op("arith.sitofp", &[n], t),
        t if t == xcc_ir::Type::i64() => n,
        t => e.value_op("arith.trunci", &[n], t),
    }
}

/// The output dims for axes read at run time: with `keepdims`, 1 where an axis names the dim;
/// without, the dims no axis names.
fn data_reduced_dims(node: &Node, g: &Graph, dims: &[Dim], axes: &[DataExpr]) -> OResult<Vec<Dim>> {
    let hits = data_axis_hits(g, axes, dims.len())?;
    let name = &node.outputs[0];
    if node.int("keepdims", 1) == 1 {
        let kept = dims.iter().zip(&hits).enumerate().map(|(i, (d, h))| {
            g.data_dim(format!("{name}.{i}"), h.select(&DataExpr::num(1), &DataExpr::Dim(d.clone())))
        });
        return Ok(kept.collect());
    }
    let kept = dims.len().checked_sub(axes.len()).ok_or_else(|| OnnxError::msg("more axes than dims"))?;
    Ok(data_dims_without(g, name, dims, &hits, kept))
}

/// The accumulator's map: the kept loops, and with `keepdims` index 0 where a dim was reduced.
fn output_map(parallel: &[bool], keep: bool) -> AffineMap {
    let results = (0..parallel.len())
        .filter_map(|i| match (parallel[i], keep) {
            (true, _) => Some(AffineExpr::Dim(i as u32)),
            (false, true) => Some(AffineExpr::Const(0)),
            (false, false) => None,
        })
        .collect();
    AffineMap { num_dims: parallel.len() as u32, num_symbols: 0, results }
}

impl Reduction {
    /// The reduction over axes read at run time: the accumulator filled with the identity, then
    /// one serial pass over the input adding each element at its output offset (`Σ i_k·w_k`,
    /// `w_k` 0 along a reduced axis, else the output's stride there), then the finishing step.
    fn lower_data_axes(
        &self,
        e: &mut Emitter,
        x_t: &TensorType,
        (x, out): (ValueId, ValueId),
        out_t: &TensorType,
        axes: &[DataExpr],
    ) {
        let d = x_t.dtype;
        let dims = x_t.dims();
        let shape = e.dim_extents(&dims);
        let reduced: Vec<ValueId> = axis_hits(axes, shape.len()).iter().map(|h| e.data_value(h)).collect();
        let (zero, one) = (e.idx(0), e.idx(1));
        let kept_size: Vec<ValueId> = reduced
            .iter()
            .zip(&shape)
            .map(|(&r, &n)| {
                let c = e.cmpi("ne", r, zero);
                let n = e.extent(n);
                e.value_op("arith.select", &[c, one, n], xcc_ir::Type::Index)
            })
            .collect();
        let mut weights = vec![zero; shape.len()];
        let mut stride = one;
        for k in (0..shape.len()).rev() {
            let c = e.cmpi("ne", reduced[k], zero);
            weights[k] = e.value_op("arith.select", &[c, zero, stride], xcc_ir::Type::Index);
            stride = e.value_op("arith.muli", &[stride, kept_size[k]], xcc_ir::Type::Index);
        }
        // `stride` is now the output's element count.
        let n_out = Extent::Value(stride);
        let finishes = self.post != Post::Identity || compute_type(d) != d.ir_type();
        let acc_t = TensorType::with_dims(if d.size() == 2 && d.is_float() { DType::F32 } else { d }, out_t.dims());
        let acc = if finishes { e.alloc_tensor(&acc_t) } else { out };
        let acc = e.flat(acc);
        e.parallel_over(&[n_out], &mut |e, ivs| {
            let v = self.identity_element(e, d);
            e.store(v, acc, ivs);
        });
        e.nest_accs_over(&shape, &[], &mut |e, ivs, _| {
            let terms: Vec<(ValueId, Extent)> =
                ivs.iter().zip(&weights).map(|(&i, &w)| (i, Extent::Value(w))).collect();
            let at = e.affine_over(&terms, 0);
            let v = e.load(x, ivs);
            let v = self.pre_step(e, v, d);
            let a = e.load(acc, &[at]);
            let r = self.combine_step(e, a, v, d);
            e.store(r, acc, &[at]);
            Vec::new()
        });
        if finishes {
            let total = e.dim_value(&Dim::product(&dims));
            let count = e.value_op("arith.divui", &[total, stride], xcc_ir::Type::Index);
            let count = e.value_op("arith.index_cast", &[count], xcc_ir::Type::i64());
            let count = integer_as(e, count, d);
            let out = e.flat(out);
            e.parallel_over(&[n_out], &mut |e, ivs| {
                let v = e.load(acc, ivs);
                let r = self.post_step(e, v, count, d);
                e.store(r, out, ivs);
            });
        }
    }

    fn identity_element(&self, e: &mut Emitter, d: DType) -> ValueId {
        let float = d.is_float();
        let v = match self.combine {
            Combine::Add => 0.0,
            Combine::Mul => 1.0,
            Combine::Max if float => f64::NEG_INFINITY,
            Combine::Max => min_of(d),
            Combine::Min if float => f64::INFINITY,
            Combine::Min => max_of(d),
        };
        e.const_of(v, d)
    }

    fn pre_step(&self, e: &mut Emitter, v: ValueId, d: DType) -> ValueId {
        let t = e.ty(v);
        match self.pre {
            Pre::Identity => v,
            Pre::Abs if d.is_float() => e.value_op("math.absf", &[v], t),
            Pre::Abs => {
                let zero = e.const_of(0.0, d);
                let negated = e.value_op("arith.subi", &[zero, v], t.clone());
                e.value_op("arith.maxsi", &[v, negated], t)
            }
            Pre::Square => e.value_op(if d.is_float() { "arith.mulf" } else { "arith.muli" }, &[v, v], t),
            Pre::Exp => e.value_op("math.exp", &[v], t),
        }
    }

    fn combine_step(&self, e: &mut Emitter, acc: ValueId, v: ValueId, d: DType) -> ValueId {
        let unsigned = d.is_unsigned();
        let name = match (self.combine, d.is_float()) {
            (Combine::Add, true) => "arith.addf",
            (Combine::Add, false) => "arith.addi",
            (Combine::Mul, true) => "arith.mulf",
            (Combine::Mul, false) => "arith.muli",
            (Combine::Max, true) => "arith.maximumf",
            (Combine::Max, false) if unsigned => "arith.maxui",
            (Combine::Max, false) => "arith.maxsi",
            (Combine::Min, true) => "arith.minimumf",
            (Combine::Min, false) if unsigned => "arith.minui",
            (Combine::Min, false) => "arith.minsi",
        };
        let t = e.ty(acc);
        e.value_op(name, &[acc, v], t)
    }

    /// The finishing step; `count` is the number of reduced elements in `d`'s compute type.
    fn post_step(&self, e: &mut Emitter, v: ValueId, count: ValueId, d: DType) -> ValueId {
        let t = e.ty(v);
        match (self.post, d.is_float()) {
            (Post::Mean, float) => e.value_op(if float { "arith.divf" } else { "arith.divsi" }, &[v, count], t),
            (Post::Sqrt, true) => e.value_op("math.sqrt", &[v], t),
            (Post::Log, true) => e.value_op("math.log", &[v], t),
            _ => v,
        }
    }
}

#[cfg(test)]
mod tests {
    //! The folds of integer reductions against sums worked out by hand.

    use super::*;

    fn fold(op: &str, x: Tensor, axes: &[i64], keep: i64) -> Option<Tensor> {
        let r = REDUCTIONS.iter().find(|r| r.name == op).expect("a reduction");
        let node = Node {
            name: "r".into(),
            op: op.into(),
            domain: String::new(),
            inputs: vec!["x".into(), "axes".into()],
            outputs: vec!["y".into()],
            attrs: [("keepdims".to_string(), Attr::Int(keep))].into_iter().collect(),
            opset: 18,
            guard: None,
        };
        let axes = Tensor::from_i64(vec![axes.len()], axes);
        r.fold(&node, &[Some(&x), Some(&axes)]).map(|r| r.unwrap().remove(0))
    }

    #[test]
    fn integer_reductions_fold_exactly() {
        let x = Tensor::from_f64(DType::I32, vec![2, 3], &[1.0, -2.0, 3.0, 4.0, 5.0, -6.0]);
        let sums = fold("ReduceSum", x.clone(), &[0], 1).unwrap();
        assert_eq!((sums.ty.shape.clone(), sums.to_f64()), (vec![1, 3], vec![5.0, 3.0, -3.0]));
        let max = fold("ReduceMax", x.clone(), &[-1], 0).unwrap();
        assert_eq!((max.ty.shape.clone(), max.to_f64()), (vec![2], vec![3.0, 5.0]));
        let l1 = fold("ReduceL1", x.clone(), &[], 0).unwrap();
        assert_eq!(l1.to_f64(), [21.0]);
        // A sum past int8's range wraps at run time: not folded; nor are float reductions.
        let big = Tensor::from_f64(DType::I8, vec![2], &[100.0, 100.0]);
        assert!(fold("ReduceSum", big, &[0], 0).is_none());
        let float = Tensor::from_f64(DType::F32, vec![2], &[1.0, 2.0]);
        assert!(fold("ReduceSum", float, &[0], 0).is_none());
    }
}
