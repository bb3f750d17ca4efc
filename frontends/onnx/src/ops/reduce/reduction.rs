//! The Reduce* operators as data: what each does to an element before combining ([`Pre`]), how
//! it combines ([`Combine`]) and what it does to the result ([`Post`]). Each lowers to
//! `kernel.generic`s: the accumulator filled with the combination's identity, the reduction
//! itself (parallel over the kept dims, reduction loops over the others), and, when there is a
//! finishing step or the output is float16, one more that finishes into the output. Float16
//! accumulates in float32.

use super::{max_of, min_of, reduced_axes, reduced_shape};
use crate::emit::{compute_type, identity, memref_type, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use xcc_ir::affine::{AffineExpr, AffineMap};
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
        Ok(vec![match reduced_axes(node, g, x.shape.len())? {
            Some(axes) => TensorType::new(x.dtype, reduced_shape(node, &x.shape, &axes)),
            None => x.clone(),
        }])
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?;
        let (x, out) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        let Some(axes) = reduced_axes(node, g, x_t.shape.len())? else {
            e.copy(x, out);
            return Ok(());
        };
        let d = x_t.dtype;
        let out_shape = reduced_shape(node, &x_t.shape, &axes);
        let finishes = self.post != Post::Identity || compute_type(d) != d.ir_type();
        let acc = if finishes {
            e.alloc(memref_type(&TensorType::new(if d == DType::F16 { DType::F32 } else { d }, out_shape.clone())))
        } else {
            out
        };
        let rank = out_shape.len();
        e.generic(&[], &[(acc, identity(rank))], vec![true; rank], |e, _| Ok(vec![self.identity_element(e, d)]))?;
        let loops: Vec<bool> = (0..x_t.shape.len()).map(|i| !axes.contains(&i)).collect();
        let keep = node.int("keepdims", 1) == 1;
        e.generic(&[(x, identity(loops.len()))], &[(acc, output_map(&loops, keep))], loops, |e, args| {
            let v = e.widen_f16(args[0]);
            let v = self.pre_step(e, v, d);
            Ok(vec![self.combine_step(e, args[1], v, d)])
        })?;
        if finishes {
            let count: usize = axes.iter().map(|&a| x_t.shape[a]).product();
            e.generic(&[(acc, identity(rank))], &[(out, identity(rank))], vec![true; rank], |e, args| {
                let r = self.post_step(e, args[0], count, d);
                Ok(vec![e.narrow_to(r, &d.ir_type())])
            })?;
        }
        Ok(())
    }
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
        let unsigned = matches!(d, DType::Bool | DType::U8);
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

    fn post_step(&self, e: &mut Emitter, v: ValueId, count: usize, d: DType) -> ValueId {
        let t = e.ty(v);
        match (self.post, d.is_float()) {
            (Post::Mean, float) => {
                let n = e.const_of(count as f64, d);
                e.value_op(if float { "arith.divf" } else { "arith.divsi" }, &[v, n], t)
            }
            (Post::Sqrt, true) => e.value_op("math.sqrt", &[v], t),
            (Post::Log, true) => e.value_op("math.log", &[v], t),
            _ => v,
        }
    }
}
