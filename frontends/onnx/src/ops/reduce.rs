//! Reductions: ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare and ArgMax/ArgMin.
//! Axes come from the attribute (older opsets) or a constant input (ReduceSum from 13, the rest
//! from 18); empty axes reduce everything unless `noop_with_empty_axes`.

use super::axis;
use crate::emit::LoopBuilder;
use crate::emit::{compute_type, Emitter};
use crate::graph::*;
use xcc_ir::{Attribute, Type, ValueId};

pub const OPS: &[&str] = &[
    "ReduceSum",
    "ReduceMean",
    "ReduceMax",
    "ReduceMin",
    "ReduceProd",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceSumSquare",
    "ArgMax",
    "ArgMin",
    "TopK",
];

/// Reductions and TopK: a parallel loop over the kept dimensions, the reduced ones inside.
struct Reduce;

impl super::OnnxOp for Reduce {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        infer(node, g)
    }
    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        e.emit_reduce(node, g)
    }
}

pub fn register(r: &mut super::Registry) {
    r.register(OPS, &Reduce);
}

fn topk_k(node: &Node, g: &Graph) -> OResult<usize> {
    if node.opset < 10 {
        return Ok(node.int("k", 1).max(0) as usize);
    }
    let name = node.input(1).ok_or_else(|| OnnxError::msg("TopK needs K"))?;
    let t = g.consts.get(name).ok_or_else(|| OnnxError::msg(format!("K '{name}' must be a constant (use --bind)")))?;
    Ok(t.to_i64()[0].max(0) as usize)
}

/// The reduced axes, or `None` for the identity (empty axes with `noop_with_empty_axes`).
fn reduced_axes(node: &Node, g: &Graph, rank: usize) -> OResult<Option<Vec<usize>>> {
    if node.op.starts_with("Arg") {
        return Ok(Some(vec![axis(node, node.int("axis", 0), rank)?]));
    }
    let axes = match node.ints("axes") {
        Some(a) => a,
        None => match node.input(1) {
            Some(name) => {
                g.consts.get(name).ok_or_else(|| OnnxError::msg(format!("axes '{name}' must be a constant")))?.to_i64()
            }
            None => Vec::new(),
        },
    };
    if axes.is_empty() {
        return Ok(if node.int("noop_with_empty_axes", 0) == 1 { None } else { Some((0..rank).collect()) });
    }
    let mut v: Vec<usize> = axes.iter().map(|&a| axis(node, a, rank)).collect::<OResult<_>>()?;
    v.sort();
    v.dedup();
    Ok(Some(v))
}

pub fn infer(node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
    let x = g.ty(&node.inputs[0])?;
    if node.op == "TopK" {
        let a = axis(node, node.int("axis", -1), x.shape.len())?;
        let k = topk_k(node, g)?;
        if k > x.shape[a] {
            return err(format!("K = {k} exceeds the axis size {}", x.shape[a]));
        }
        let mut shape = x.shape.clone();
        shape[a] = k;
        return Ok(vec![TensorType { dtype: x.dtype, shape: shape.clone() }, TensorType { dtype: DType::I64, shape }]);
    }
    let keep = node.int("keepdims", 1) == 1;
    let dtype = if node.op.starts_with("Arg") { DType::I64 } else { x.dtype };
    let Some(axes) = reduced_axes(node, g, x.shape.len())? else { return Ok(vec![x.clone()]) };
    let shape = x
        .shape
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| if axes.contains(&i) { keep.then_some(1) } else { Some(d) })
        .collect();
    Ok(vec![TensorType { dtype, shape }])
}

/// The smallest and largest value of an integer element type.
fn min_of(d: DType) -> f64 {
    match d {
        DType::I8 => i8::MIN as f64,
        DType::I16 => i16::MIN as f64,
        DType::I32 => i32::MIN as f64,
        DType::U8 | DType::Bool => 0.0,
        _ => i64::MIN as f64,
    }
}

fn max_of(d: DType) -> f64 {
    match d {
        DType::I8 => i8::MAX as f64,
        DType::I16 => i16::MAX as f64,
        DType::I32 => i32::MAX as f64,
        DType::U8 => 255.0,
        DType::Bool => 1.0,
        _ => i64::MAX as f64,
    }
}

impl Emitter {
    /// TopK: pick k times the best element strictly after the previous pick in the order
    /// (value, then lower index first), so ties keep index order and nothing is picked twice.
    fn emit_topk(&mut self, node: &Node, g: &Graph) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?.clone();
        let rank = x_t.shape.len();
        let a = axis(node, node.int("axis", -1), rank)?;
        let k = topk_k(node, g)?;
        let n = x_t.shape[a];
        let largest = node.int("largest", 1) == 1;
        let x = self.buf(&node.inputs[0])?;
        let vals = self.buf(&node.outputs[0])?;
        let idxs = match node.outputs.get(1).filter(|o| !o.is_empty()) {
            Some(o) => Some(self.buf(o)?),
            None => None,
        };
        let d = x_t.dtype;
        let float = d.is_float();
        let mut outer = x_t.shape.clone();
        outer[a] = 1;
        let (gt, lt) =
            if float { (("arith.cmpf", 2), ("arith.cmpf", 4)) } else { (("arith.cmpi", 4), ("arith.cmpi", 2)) };
        let (better_p, worse_p) = if largest { (gt, lt) } else { (lt, gt) };
        let eq = if float { ("arith.cmpf", 1) } else { ("arith.cmpi", 0) };
        self.parallel(&outer, &mut |e, ivs| {
            let mut prev: Option<(ValueId, ValueId)> = None;
            for t in 0..k {
                let ninit = e.const_of(if largest { f64::NEG_INFINITY } else { f64::INFINITY }, d);
                let iinit = e.const_int(-1, Type::i64());
                let p = prev;
                let r = e.for_accs(0, n, &[ninit, iinit], |e, j, st| {
                    let mut idx = ivs.to_vec();
                    idx[a] = j;
                    let v = e.load(x, &idx);
                    let ji = e.value_op("arith.index_cast", &[j], Type::i64());
                    let cmp = |e: &mut Emitter, p: (&str, i64), a: ValueId, b: ValueId| {
                        e.value_attr(p.0, &[a, b], Type::i1(), vec![("predicate", Attribute::i64(p.1))])
                    };
                    // Eligible: strictly after the previous pick (worse value, or equal with a higher index).
                    let eligible = match p {
                        None => e.const_int(1, Type::i1()),
                        Some((pv, pi)) => {
                            let w = cmp(e, worse_p, v, pv);
                            let same = cmp(e, eq, v, pv);
                            let later = e.value_attr(
                                "arith.cmpi",
                                &[ji, pi],
                                Type::i1(),
                                vec![("predicate", Attribute::i64(4))],
                            );
                            let tie = e.value_op("arith.andi", &[same, later], Type::i1());
                            e.value_op("arith.ori", &[w, tie], Type::i1())
                        }
                    };
                    // Better than the current best (or the first eligible one seen).
                    let none_yet =
                        e.value_attr("arith.cmpi", &[st[1], iinit], Type::i1(), vec![("predicate", Attribute::i64(0))]);
                    let b = cmp(e, better_p, v, st[0]);
                    let better = e.value_op("arith.ori", &[none_yet, b], Type::i1());
                    let take = e.value_op("arith.andi", &[eligible, better], Type::i1());
                    let t = e.m.ty(v).clone();
                    let nv = e.value_op("arith.select", &[take, v, st[0]], t);
                    let ni = e.value_op("arith.select", &[take, ji, st[1]], Type::i64());
                    vec![nv, ni]
                });
                let mut oidx = ivs.to_vec();
                oidx[a] = e.idx(t as i64);
                e.store(r[0], vals, &oidx);
                if let Some(ib) = idxs {
                    e.store(r[1], ib, &oidx);
                }
                prev = Some((r[0], r[1]));
            }
        });
        Ok(())
    }

    pub fn emit_reduce(&mut self, node: &Node, g: &Graph) -> OResult<()> {
        if node.op == "TopK" {
            return self.emit_topk(node, g);
        }
        let x_t = g.ty(&node.inputs[0])?.clone();

        let x = self.buf(&node.inputs[0])?;
        let out = self.buf(&node.outputs[0])?;
        let Some(axes) = reduced_axes(node, g, x_t.shape.len())? else {
            self.copy(x, out);
            return Ok(());
        };
        let rank = x_t.shape.len();
        let kept: Vec<usize> = (0..rank).filter(|i| !axes.contains(i)).collect();
        let keep = node.int("keepdims", 1) == 1;
        let red_shape: Vec<usize> = axes.iter().map(|&a| x_t.shape[a]).collect();
        let kept_shape: Vec<usize> = kept.iter().map(|&a| x_t.shape[a]).collect();
        let count: usize = red_shape.iter().product();
        let d = x_t.dtype;
        let ct = compute_type(d);
        let float = d.is_float();
        let op = node.op.clone();
        let arg = op.starts_with("Arg");
        let last = node.int("select_last_index", 0) == 1;
        let unsigned = matches!(d, DType::Bool | DType::U8);
        self.parallel(&kept_shape, &mut |e, kivs| {
            let (init, init_idx) = match op.as_str() {
                "ReduceMax" | "ArgMax" if d == DType::Bool => (e.const_int(0, Type::i1()), e.const_int(0, Type::i64())),
                "ReduceMin" | "ArgMin" if d == DType::Bool => (e.const_int(1, Type::i1()), e.const_int(0, Type::i64())),
                "ReduceMax" | "ArgMax" => {
                    (e.const_of(if float { f64::NEG_INFINITY } else { min_of(d) }, d), e.const_int(0, Type::i64()))
                }
                "ReduceMin" | "ArgMin" => {
                    (e.const_of(if float { f64::INFINITY } else { max_of(d) }, d), e.const_int(0, Type::i64()))
                }
                "ReduceProd" => (e.const_of(1.0, d), e.const_int(0, Type::i64())),
                _ => (e.const_of(0.0, d), e.const_int(0, Type::i64())),
            };
            // Nested loops over the reduced dims carry (value, index of the best element).
            let mut step = |e: &mut Emitter, rivs: &[ValueId], st: &[ValueId]| -> Vec<ValueId> {
                let mut idx = vec![rivs[0]; rank];
                for (k, &a) in kept.iter().enumerate() {
                    idx[a] = kivs[k];
                }
                for (k, &a) in axes.iter().enumerate() {
                    idx[a] = rivs[k];
                }
                let v = e.load(x, &idx);
                let acc = st[0];
                let bin = |e: &mut Emitter, f: &str, i: &str, a: ValueId, b: ValueId| {
                    e.value_op(if float { f } else { i }, &[a, b], ct.clone())
                };
                match op.as_str() {
                    "ReduceSum" | "ReduceMean" => vec![bin(e, "arith.addf", "arith.addi", acc, v), st[1]],
                    "ReduceProd" => vec![bin(e, "arith.mulf", "arith.muli", acc, v), st[1]],
                    "ReduceMax" => vec![
                        bin(e, "arith.maximumf", if unsigned { "arith.maxui" } else { "arith.maxsi" }, acc, v),
                        st[1],
                    ],
                    "ReduceMin" => vec![
                        bin(e, "arith.minimumf", if unsigned { "arith.minui" } else { "arith.minsi" }, acc, v),
                        st[1],
                    ],
                    "ReduceL1" => {
                        let a = if float {
                            e.value_op("math.absf", &[v], ct.clone())
                        } else {
                            let z = e.const_of(0.0, d);
                            let n = e.value_op("arith.subi", &[z, v], ct.clone());
                            e.value_op("arith.maxsi", &[v, n], ct.clone())
                        };
                        vec![bin(e, "arith.addf", "arith.addi", acc, a), st[1]]
                    }
                    "ReduceL2" | "ReduceSumSquare" => {
                        let sq = bin(e, "arith.mulf", "arith.muli", v, v);
                        vec![bin(e, "arith.addf", "arith.addi", acc, sq), st[1]]
                    }
                    "ReduceLogSum" => vec![bin(e, "arith.addf", "arith.addi", acc, v), st[1]],
                    "ReduceLogSumExp" => {
                        let ex = e.value_op("math.exp", &[v], ct.clone());
                        vec![e.value_op("arith.addf", &[acc, ex], ct.clone()), st[1]]
                    }
                    _ => {
                        // ArgMax/ArgMin: strictly better, or equal with select_last_index.
                        let pred = match (op.as_str(), float, last) {
                            ("ArgMax", true, false) => ("arith.cmpf", 2),
                            ("ArgMax", true, true) => ("arith.cmpf", 3),
                            ("ArgMin", true, false) => ("arith.cmpf", 4),
                            ("ArgMin", true, true) => ("arith.cmpf", 5),
                            ("ArgMax", false, false) => ("arith.cmpi", 4),
                            ("ArgMax", false, true) => ("arith.cmpi", 5),
                            ("ArgMin", false, false) => ("arith.cmpi", 2),
                            _ => ("arith.cmpi", 3),
                        };
                        let better =
                            e.value_attr(pred.0, &[v, acc], Type::i1(), vec![("predicate", Attribute::i64(pred.1))]);
                        let pos = e.value_op("arith.index_cast", &[rivs[0]], Type::i64());
                        let nv = e.value_op("arith.select", &[better, v, acc], ct.clone());
                        let ni = e.value_op("arith.select", &[better, pos, st[1]], Type::i64());
                        vec![nv, ni]
                    }
                }
            };
            let r = e.nest_accs(&red_shape, &[init, init_idx], &mut step);
            let mut v = r[0];
            match op.as_str() {
                "ReduceMean" => {
                    let n = e.const_of(count as f64, d);
                    v = if float {
                        e.value_op("arith.divf", &[v, n], ct.clone())
                    } else {
                        e.value_op("arith.divsi", &[v, n], ct.clone())
                    };
                }
                "ReduceL2" if float => v = e.value_op("math.sqrt", &[v], ct.clone()),
                "ReduceLogSum" | "ReduceLogSumExp" if float => v = e.value_op("math.log", &[v], ct.clone()),
                _ => {}
            }
            if arg {
                v = r[1];
            }
            let oidx: Vec<ValueId> = if keep {
                let mut k = 0;
                (0..rank)
                    .map(|i| {
                        if axes.contains(&i) {
                            e.idx(0)
                        } else {
                            k += 1;
                            kivs[k - 1]
                        }
                    })
                    .collect()
            } else {
                kivs.to_vec()
            };
            e.store(v, out, &oidx);
        });
        Ok(())
    }
}
