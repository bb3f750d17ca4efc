//! Resize whose scales, sizes or roi are graph inputs. The output dims are data dims (floor of
//! `in * scale`, the sizes, or the rounded common ratio), and without compile-time tables each
//! output point computes its source coordinate per dim, then sums the taps it reads: one for
//! nearest, two for linear, and for antialiased downsampling a count the run derives from the
//! scale. Weights are normalized by their sum, which covers antialias's normalization.

use super::{Geometry, NearestMode};
use crate::data_dim::DataOp;
use crate::emit::Extent;
use crate::emit::{compute_type, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::shapes::{data_input, real_input};
use xcc_ir::{Type, ValueId};

/// What the run reads: per axis, the scales (reals) or the sizes (integers).
enum Given {
    Scales(Vec<DataExpr>),
    Sizes(Vec<DataExpr>),
}

/// A real that is a number now or read by the run (roi's bounds).
#[derive(Clone)]
enum Real {
    Num(f64),
    Read(DataExpr),
}

/// The run-time parameters of one resized dim.
pub struct DimParams {
    /// The scale, a real.
    scale: DataExpr,
    /// The output size, an integer.
    pub out: DataExpr,
    roi: (Real, Real),
}

/// Input `i` is absent: not given, empty, or a constant with no elements.
fn absent(g: &Graph, node: &Node, i: usize) -> bool {
    node.input(i).is_none_or(|name| g.ty(name).is_ok_and(|t| !t.is_dynamic() && t.numel() == 0))
}

/// The scales or sizes when one of them is a graph input (`None`: they are constants).
fn given(node: &Node, g: &Graph) -> Option<Given> {
    let (scales, sizes) = if node.op == "Upsample" || node.opset < 11 { (1, None) } else { (2, Some(3)) };
    if let Some(i) = sizes.filter(|&i| !absent(g, node, i)) {
        return data_input(g, node, i).map(Given::Sizes);
    }
    if node.attrs.contains_key("scales") || absent(g, node, scales) {
        return None;
    }
    real_input(g, node, scales).map(Given::Scales)
}

/// roi as a number or a read per axis (starts then ends), for tf_crop_and_resize.
fn roi(node: &Node, g: &Graph, axes: &[usize], rank: usize) -> OResult<Vec<(Real, Real)>> {
    let mut out = vec![(Real::Num(0.0), Real::Num(1.0)); rank];
    if node.string("coordinate_transformation_mode") != Some("tf_crop_and_resize") {
        return Ok(out);
    }
    let values: Vec<Real> = match (node.input(1).and_then(|n| g.consts.get(n)), real_input(g, node, 1)) {
        (Some(t), _) => t.to_f64().into_iter().map(Real::Num).collect(),
        (None, Some(v)) => v.into_iter().map(Real::Read).collect(),
        _ => return err("tf_crop_and_resize needs roi, a constant or a graph input"),
    };
    if values.len() != 2 * axes.len() {
        return err(format!("roi has {} values, expected {}", values.len(), 2 * axes.len()));
    }
    for (k, &a) in axes.iter().enumerate() {
        out[a] = (values[k].clone(), values[k + axes.len()].clone());
    }
    Ok(out)
}

/// Whether the node reads its scales, sizes or roi at run time, or resizes an input with dims
/// known only then.
pub fn reads_at_run_time(node: &Node, g: &Graph) -> bool {
    let roi_read =
        node.string("coordinate_transformation_mode") == Some("tf_crop_and_resize") && real_input(g, node, 1).is_some();
    let dynamic = g.ty(&node.inputs[0]).is_ok_and(TensorType::is_dynamic);
    given(node, g).is_some() || roi_read || dynamic
}

/// Constant scales or sizes of a node whose input has run-time dims: sizes as numbers, scales
/// as exact ratios `p / q` (an f32 scale is one, with `q` up to 64, in every model seen: 2, 0.5,
/// 1.5); another scale is an error.
fn constant_given(node: &Node, g: &Graph) -> OResult<Given> {
    let (scales, sizes) = if node.op == "Upsample" || node.opset < 11 { (1, None) } else { (2, Some(3)) };
    let values = |i: usize| g.consts.get(node.input(i).unwrap_or_default()).map(Tensor::to_f64);
    if let Some(v) = sizes.filter(|&i| !absent(g, node, i)).and_then(values) {
        return Ok(Given::Sizes(v.iter().map(|&x| DataExpr::num(x as i64)).collect()));
    }
    let v = match node.attrs.get("scales") {
        Some(Attr::Floats(f)) => f.iter().map(|&v| v as f64).collect(),
        _ => values(scales).ok_or_else(|| OnnxError::msg("Resize needs scales or sizes"))?,
    };
    let ratio = |s: f64| {
        let s = s as f32 as f64;
        (1..=64).find(|&q| (s * q as f64).fract() == 0.0 && s > 0.0).map(|q| ((s * q as f64) as i64, q))
    };
    let mut out = Vec::new();
    for (entry, s) in v.into_iter().enumerate() {
        let Some((p, q)) = ratio(s) else {
            return err(format!(
                "scale {s} (entry {entry}): over an input with dims known only at run time, Resize takes scales that \
                 are ratios of small integers (2, 0.5, 1.5), or sizes (fix the dims with --dim)"
            ));
        };
        out.push(DataExpr::num(p).real(DataOp::RealDiv, &DataExpr::num(q)));
    }
    Ok(Given::Scales(out))
}

/// `floor(n * scale)` as integer arithmetic when the scale is a constant ratio `p / q` (a dim
/// that grows with `n`, an expression of the dims when `q` is 1), else over reals.
fn scaled_size(n: &DataExpr, scale: &DataExpr) -> DataExpr {
    // A whole ratio folds to its number (2 / 1 is 2).
    if let Some(p) = scale.as_const() {
        return n.mul(&DataExpr::num(p));
    }
    if let DataExpr::Op(DataOp::RealDiv, ratio) = scale {
        if let (Some(p), Some(q)) = (ratio[0].as_const(), ratio[1].as_const()) {
            return n.mul(&DataExpr::num(p)).floor_div(&DataExpr::num(q));
        }
    }
    n.real(DataOp::RealMul, scale).rounded(DataOp::Floor)
}

/// Per dim, the parameters of a resized one (`None`: left as it is). Sizes and scales must be
/// constants or graph inputs.
pub fn params(node: &Node, g: &Graph, shape: &[Dim], axes: &[usize]) -> OResult<Vec<Option<DimParams>>> {
    let given = match given(node, g) {
        Some(given) => given,
        None if shape.iter().any(|d| !d.is_fixed()) => constant_given(node, g)?,
        None => return err("Resize reads its roi at run time but not its scales or sizes; give roi as a constant"),
    };
    let roi = roi(node, g, axes, shape.len())?;
    let n = |a: usize| DataExpr::Dim(shape[a].clone());
    let mut out: Vec<Option<DimParams>> = (0..shape.len()).map(|_| None).collect();
    let count = match &given {
        Given::Scales(s) | Given::Sizes(s) => s.len(),
    };
    if count != axes.len() {
        return err(format!("scales or sizes have {count} values, expected one per axis ({})", axes.len()));
    }
    let policy = node.string("keep_aspect_ratio_policy").unwrap_or("stretch");
    for (k, &a) in axes.iter().enumerate() {
        let (scale, size) = match (&given, policy) {
            (Given::Scales(s), _) => (s[k].clone(), scaled_size(&n(a), &s[k])),
            (Given::Sizes(s), "stretch") => (s[k].real(DataOp::RealDiv, &n(a)), s[k].clone()),
            (Given::Sizes(s), "not_larger" | "not_smaller") => {
                let op = if policy == "not_larger" { DataOp::RealMin } else { DataOp::RealMax };
                let ratios = axes.iter().zip(s).map(|(&b, x)| x.real(DataOp::RealDiv, &n(b)));
                let r = ratios.reduce(|acc, x| acc.real(op, &x)).expect("one axis at least");
                (r.clone(), r.real(DataOp::RealMul, &n(a)).rounded(DataOp::Round))
            }
            (_, p) => return err(format!("keep_aspect_ratio_policy '{p}' is not supported")),
        };
        // A size computed now (a NaN or a huge scaled size folds to -1) must be a dim.
        if let Some(v) = size.as_const().filter(|v| *v < 0) {
            return err(format!("output dim {a} would be {v}: its size or scale gives no dim"));
        }
        let out_dim = g.data_dim(format!("{}.{a}", node.outputs[0]), size.clone());
        out[a] = Some(DimParams { scale, out: DataExpr::Dim(out_dim), roi: roi[a].clone() });
    }
    Ok(out)
}

/// One resized dim's values, computed once before the loop.
struct DimValues {
    /// The input's size along the dim.
    n: Extent,
    scale: ValueId,
    out: ValueId,
    roi: (ValueId, ValueId),
    /// The first tap's offset from the floor of the coordinate, and the number of taps.
    start: ValueId,
    taps: ValueId,
    antialias: ValueId,
}

impl Emitter {
    pub fn emit_resize_run_time(&mut self, node: &Node, g: &Graph, geo: &Geometry) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?.clone();
        if !x_t.dtype.is_float() {
            return err("Resize with scales or sizes read at run time takes floating-point data");
        }
        let p = params(node, g, &x_t.dims(), &geo.axes)?;
        let in_extents = self.dim_extents(&x_t.dims());
        let linear = geo.linear;
        let cubic = matches!(node.string("mode"), Some("cubic" | "bicubic"))
            .then(|| (node.float("cubic_coeff_a", -0.75) as f64, node.int("exclude_outside", 0) == 1));
        let support = if cubic.is_some() { 2.0 } else { 1.0 };
        let dims: Vec<Option<DimValues>> = p
            .iter()
            .enumerate()
            .map(|(q, d)| d.as_ref().map(|d| self.dim_values(d, in_extents[q], linear, geo.antialias, support)))
            .collect();
        let (x, out) = (self.buf(&node.inputs[0])?, self.buf(&node.outputs[0])?);
        let out_t = g.ty(&node.outputs[0])?.clone();
        let extents = self.dim_extents(&out_t.dims());
        let taps: Vec<Extent> = dims
            .iter()
            .map(|d| d.as_ref().filter(|_| linear).map_or(Extent::Fixed(1), |d| Extent::Value(d.taps)))
            .collect();
        let extrapolation = (geo.mode == "tf_crop_and_resize").then(|| node.float("extrapolation_value", 0.0) as f64);
        let f64t = Type::Float(xcc_ir::types::FloatKind::F64);
        self.parallel_over(&extents, &mut |e, ivs| {
            let coords: Vec<Option<ValueId>> =
                dims.iter().zip(ivs).map(|(d, &iv)| d.as_ref().map(|d| e.source_coordinate(geo, d, iv))).collect();
            let zero = e.const_float(0.0, f64t.clone());
            let sums = e.nest_accs_over(&taps, &[zero, zero], &mut |e, t, st| {
                let mut idx = Vec::new();
                let mut weight: Option<ValueId> = None;
                for q in 0..ivs.len() {
                    let (i, w) = match (&dims[q], coords[q]) {
                        (Some(d), Some(c)) if cubic.is_some() => e.cubic_tap(d, c, t[q], cubic.expect("cubic")),
                        (Some(d), Some(c)) if linear => e.linear_tap(d, c, t[q]),
                        (Some(d), Some(c)) => (e.nearest_index(geo.nearest, d, c), None),
                        _ => (ivs[q], None),
                    };
                    idx.push(i);
                    weight = match (weight, w) {
                        (Some(a), Some(b)) => Some(e.value_op("arith.mulf", &[a, b], f64t.clone())),
                        (a, b) => a.or(b),
                    };
                }
                let v = e.load(x, &idx);
                let v = if e.m.ty(v).clone() == f64t { v } else { e.value_op("arith.extf", &[v], f64t.clone()) };
                match weight {
                    None => vec![v, st[1]],
                    Some(w) => {
                        let acc = e.fmuladd(w, v, st[0]);
                        vec![acc, e.value_op("arith.addf", &[st[1], w], f64t.clone())]
                    }
                }
            });
            let mut v = sums[0];
            if linear {
                let positive = e.cmpf("ogt", sums[1], zero);
                let q = e.value_op("arith.divf", &[sums[0], sums[1]], f64t.clone());
                v = e.value_op("arith.select", &[positive, q, zero], f64t.clone());
            }
            if let Some(value) = extrapolation {
                let outside = e.any_outside(&dims, &coords);
                let ev = e.const_float(value, f64t.clone());
                v = e.value_op("arith.select", &[outside, ev, v], f64t.clone());
            }
            let ct = compute_type(x_t.dtype);
            let v = if ct == f64t { v } else { e.value_op("arith.truncf", &[v], ct) };
            let elem = (*e.m.ty(out).as_memref().expect("a buffer").elem).clone();
            let v = e.narrow_to(v, &elem);
            e.store(v, out, ivs);
        });
        Ok(())
    }

    /// `support`: the filter's half width in input positions (1 linear, 2 cubic).
    fn dim_values(&mut self, d: &DimParams, n: Extent, linear: bool, antialias: bool, support: f64) -> DimValues {
        let f64t = Type::Float(xcc_ir::types::FloatKind::F64);
        let real = |e: &mut Self, r: &Real| match r {
            Real::Num(v) => e.const_float(*v, f64t.clone()),
            Real::Read(x) => e.data_real(x),
        };
        let scale = self.data_real(&d.scale);
        let out = self.data_real(&d.out);
        let roi = (real(self, &d.roi.0), real(self, &d.roi.1));
        // Antialiased downsampling stretches the filter by 1/scale: taps from
        // floor(-support/scale) + 1 on, 2 - 2 * start of them (plain linear: 0 and 2; plain
        // cubic: -1 and 4).
        let (start, aa) = if linear && antialias {
            self.antialias_start(scale, support)
        } else {
            (self.idx(1 - support as i64), self.const_int(0, Type::i1()))
        };
        let two = self.idx(2);
        let twice = self.value_op("arith.muli", &[start, two], Type::Index);
        let taps = self.value_op("arith.subi", &[two, twice], Type::Index);
        DimValues { n, scale, out, roi, start, taps, antialias: aa }
    }

    /// The first tap's offset and whether the filter is stretched (a scale in (0, 1)).
    fn antialias_start(&mut self, scale: ValueId, support: f64) -> (ValueId, ValueId) {
        let f64t = Type::Float(xcc_ir::types::FloatKind::F64);
        let (zero, one) = (self.const_float(0.0, f64t.clone()), self.const_float(1.0, f64t.clone()));
        let below_one = self.cmpf("olt", scale, one);
        let above_zero = self.cmpf("ogt", scale, zero);
        let aa = self.value_op("arith.andi", &[below_one, above_zero], Type::i1());
        let minus_support = self.const_float(-support, f64t.clone());
        let inv = self.value_op("arith.divf", &[minus_support, scale], f64t.clone());
        let fl = self.value_op("math.floor", &[inv], f64t.clone());
        let fl = self.value_op("arith.addf", &[fl, one], f64t.clone());
        let plain = self.const_float(1.0 - support, f64t.clone());
        let fl = self.value_op("arith.select", &[aa, fl, plain], f64t);
        let _ = zero;
        let start = self.value_op("arith.fptosi", &[fl], Type::i64());
        (self.value_op("arith.index_cast", &[start], Type::Index), aa)
    }

    /// The input coordinate output position `iv` samples (the transforms use the real-valued
    /// output length `n * scale`).
    fn source_coordinate(&mut self, geo: &Geometry, d: &DimValues, iv: ValueId) -> ValueId {
        let f = Type::Float(xcc_ir::types::FloatKind::F64);
        let c = |e: &mut Self, v: f64| e.const_float(v, f.clone());
        let bin = |e: &mut Self, op: &str, a: ValueId, b: ValueId| e.value_op(op, &[a, b], f.clone());
        let i = self.value_op("arith.index_cast", &[iv], Type::i64());
        let xo = self.value_op("arith.sitofp", &[i], f.clone());
        let inn = self.size_real(d.n, 0.0);
        let (half, one, zero) = (c(self, 0.5), c(self, 1.0), c(self, 0.0));
        let o = bin(self, "arith.mulf", inn, d.scale);
        let centered = bin(self, "arith.addf", xo, half);
        let centered = bin(self, "arith.divf", centered, d.scale);
        let half_pixel = bin(self, "arith.subf", centered, half);
        let last = bin(self, "arith.subf", inn, one);
        match geo.mode.as_str() {
            "pytorch_half_pixel" => {
                let big = self.cmpf("ogt", o, one);
                self.value_op("arith.select", &[big, half_pixel, zero], f)
            }
            "align_corners" => {
                let span = bin(self, "arith.subf", o, one);
                let r = bin(self, "arith.mulf", xo, last);
                let r = bin(self, "arith.divf", r, span);
                let single = self.cmpf("oeq", o, one);
                self.value_op("arith.select", &[single, zero, r], f)
            }
            "asymmetric" => bin(self, "arith.divf", xo, d.scale),
            "tf_half_pixel_for_nn" => centered,
            "tf_crop_and_resize" => {
                let (st, en) = d.roi;
                let width = bin(self, "arith.subf", en, st);
                let width = bin(self, "arith.mulf", width, last);
                let outs = bin(self, "arith.subf", d.out, one);
                let step = bin(self, "arith.divf", width, outs);
                let base = bin(self, "arith.mulf", st, last);
                let many = self.fmuladd(xo, step, base);
                let mid = bin(self, "arith.addf", st, en);
                let mid = bin(self, "arith.mulf", mid, half);
                let mid = bin(self, "arith.mulf", mid, last);
                let several = self.cmpf("ogt", d.out, one);
                self.value_op("arith.select", &[several, many, mid], f)
            }
            "half_pixel_symmetric" => {
                let adj = bin(self, "arith.mulf", d.scale, inn);
                let adj = bin(self, "arith.divf", d.out, adj);
                let center = bin(self, "arith.mulf", inn, half);
                let keep = bin(self, "arith.subf", one, adj);
                let shift = bin(self, "arith.mulf", center, keep);
                bin(self, "arith.addf", shift, half_pixel)
            }
            _ => half_pixel,
        }
    }

    /// A dim's size plus `offset`, as a real.
    fn size_real(&mut self, n: Extent, offset: f64) -> ValueId {
        let f = Type::Float(xcc_ir::types::FloatKind::F64);
        match n {
            Extent::Fixed(n) => self.const_float(n as f64 + offset, f),
            Extent::Value(n) => {
                let n = self.value_op("arith.index_cast", &[n], Type::i64());
                let n = self.value_op("arith.sitofp", &[n], f.clone());
                let offset = self.const_float(offset, f.clone());
                self.value_op("arith.addf", &[n, offset], f)
            }
        }
    }

    /// An index in `0..n` from a real.
    fn clamped_index(&mut self, r: ValueId, n: Extent) -> ValueId {
        let i = self.value_op("arith.fptosi", &[r], Type::i64());
        let i = self.value_op("arith.index_cast", &[i], Type::Index);
        let zero = self.idx(0);
        let last = match n {
            Extent::Fixed(n) => self.idx(n as i64 - 1),
            Extent::Value(n) => self.affine(&[(n, 1)], -1),
        };
        let i = self.value_op("arith.maxsi", &[i, zero], Type::Index);
        self.value_op("arith.minsi", &[i, last], Type::Index)
    }

    fn nearest_index(&mut self, mode: NearestMode, d: &DimValues, c: ValueId) -> ValueId {
        let f = Type::Float(xcc_ir::types::FloatKind::F64);
        let half = self.const_float(0.5, f.clone());
        let r = match mode {
            NearestMode::Floor => self.value_op("math.floor", &[c], f),
            NearestMode::Ceil => self.value_op("math.ceil", &[c], f),
            NearestMode::RoundPreferCeil => {
                let up = self.value_op("arith.addf", &[c, half], f.clone());
                self.value_op("math.floor", &[up], f)
            }
            NearestMode::RoundPreferFloor => {
                let down = self.value_op("arith.subf", &[c, half], f.clone());
                self.value_op("math.ceil", &[down], f)
            }
        };
        self.clamped_index(r, d.n)
    }

    /// Tap `t` of a linear dim: its index and weight (plain: `1 - ratio` and `ratio` at the
    /// clamped coordinate's floor and the next; antialiased: the triangle filter over edge-padded
    /// input).
    fn linear_tap(&mut self, d: &DimValues, c: ValueId, t: ValueId) -> (ValueId, Option<ValueId>) {
        let f = Type::Float(xcc_ir::types::FloatKind::F64);
        let (zero, one) = (self.const_float(0.0, f.clone()), self.const_float(1.0, f.clone()));
        let last = self.size_real(d.n, -1.0);
        let clamped = self.value_op("arith.maximumf", &[c, zero], f.clone());
        let clamped = self.value_op("arith.minimumf", &[clamped, last], f.clone());
        let c = self.value_op("arith.select", &[d.antialias, c, clamped], f.clone());
        let fl = self.value_op("math.floor", &[c], f.clone());
        let ratio = self.value_op("arith.subf", &[c, fl], f.clone());
        let off = self.value_op("arith.addi", &[d.start, t], Type::Index);
        let off_i = self.value_op("arith.index_cast", &[off], Type::i64());
        let off_f = self.value_op("arith.sitofp", &[off_i], f.clone());
        let at = self.value_op("arith.addf", &[fl, off_f], f.clone());
        let index = self.clamped_index(at, d.n);
        // Antialias: clamp(1 - |(off - ratio) * scale|, 0, 1).
        let dist = self.value_op("arith.subf", &[off_f, ratio], f.clone());
        let dist = self.value_op("arith.mulf", &[dist, d.scale], f.clone());
        let dist = self.value_op("math.absf", &[dist], f.clone());
        let tri = self.value_op("arith.subf", &[one, dist], f.clone());
        let tri = self.value_op("arith.maximumf", &[tri, zero], f.clone());
        let tri = self.value_op("arith.minimumf", &[tri, one], f.clone());
        let zero_i = self.idx(0);
        let first = self.cmpi("eq", t, zero_i);
        let rest = self.value_op("arith.subf", &[one, ratio], f.clone());
        let plain = self.value_op("arith.select", &[first, rest, ratio], f.clone());
        let w = self.value_op("arith.select", &[d.antialias, tri, plain], f);
        (index, Some(w))
    }

    /// Cubic tap `t`: its index (clamped to the input) and its weight, the cubic kernel with
    /// coefficient `a` at its distance (stretched by the scale with antialias), 0 outside the
    /// input with `exclude_outside`. The caller normalizes by the weights' sum.
    fn cubic_tap(
        &mut self,
        d: &DimValues,
        c: ValueId,
        t: ValueId,
        (a, exclude): (f64, bool),
    ) -> (ValueId, Option<ValueId>) {
        let f = Type::Float(xcc_ir::types::FloatKind::F64);
        let k = |e: &mut Self, v: f64| e.const_float(v, f.clone());
        let bin = |e: &mut Self, op: &str, x: ValueId, y: ValueId| e.value_op(op, &[x, y], f.clone());
        let fl = self.value_op("math.floor", &[c], f.clone());
        let ratio = bin(self, "arith.subf", c, fl);
        let off = self.value_op("arith.addi", &[d.start, t], Type::Index);
        let off_i = self.value_op("arith.index_cast", &[off], Type::i64());
        let off_f = self.value_op("arith.sitofp", &[off_i], f.clone());
        let at = bin(self, "arith.addf", fl, off_f);
        let index = self.clamped_index(at, d.n);
        let dist = bin(self, "arith.subf", off_f, ratio);
        let stretched = bin(self, "arith.mulf", dist, d.scale);
        let dist = self.value_op("arith.select", &[d.antialias, stretched, dist], f.clone());
        let x = self.value_op("math.absf", &[dist], f.clone());
        let (inner, outer) = super::emit_cubic_pieces(self, x, a, &f);
        let one = k(self, 1.0);
        let (two, zero) = (k(self, 2.0), k(self, 0.0));
        let near = self.cmpf("ole", x, one);
        let within = self.cmpf("olt", x, two);
        let w = self.value_op("arith.select", &[within, outer, zero], f.clone());
        let mut w = self.value_op("arith.select", &[near, inner, w], f.clone());
        if exclude {
            let last = self.size_real(d.n, -1.0);
            let below = self.cmpf("olt", at, zero);
            let above = self.cmpf("ogt", at, last);
            let out = self.value_op("arith.ori", &[below, above], Type::i1());
            w = self.value_op("arith.select", &[out, zero, w], f);
        }
        (index, Some(w))
    }

    /// Whether any resized dim's coordinate lies outside the input (tf_crop_and_resize).
    fn any_outside(&mut self, dims: &[Option<DimValues>], coords: &[Option<ValueId>]) -> ValueId {
        let f = Type::Float(xcc_ir::types::FloatKind::F64);
        let mut any = self.const_int(0, Type::i1());
        for (d, c) in dims.iter().zip(coords) {
            let (Some(d), Some(c)) = (d, c) else { continue };
            let zero = self.const_float(0.0, f.clone());
            let last = self.size_real(d.n, -1.0);
            let below = self.cmpf("olt", *c, zero);
            let above = self.cmpf("ogt", *c, last);
            let out = self.value_op("arith.ori", &[below, above], Type::i1());
            any = self.value_op("arith.ori", &[any, out], Type::i1());
        }
        any
    }
}
