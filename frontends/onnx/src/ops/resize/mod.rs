//! Resize (and Upsample): nearest, (multi)linear and cubic interpolation with the common coordinate
//! transformation modes. With constant scales or sizes the output coordinates are static, so the
//! source indices and weights of each dimension are computed here at compile time and become
//! small constant tables; with scales, sizes or roi read at run time ([`run_time`]), each output
//! point computes them.

mod run_time;

use crate::emit::LoopBuilder;
use crate::emit::{compute_type, Emitter};
use crate::graph::*;
use crate::ops::shapes::axis;
use xcc_ir::{Type, ValueId};

/// A parallel loop over the output, reading the input through the compile-time tables.
struct Resize;

impl crate::ops::onnx_op::OnnxOp for Resize {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        infer(node, g)
    }
    /// Over run-time dims with constant scales or sizes, each output point computes its
    /// source coordinates as with scales read at run time.
    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        if run_time::reads_at_run_time(node, g) {
            return e.emit_resize_run_time(node, g, &Geometry::of(node, g)?);
        }
        e.emit_resize(node, g)
    }
}

/// How a node resizes, whatever its scales: the axes, the coordinate transformation, the
/// interpolation.
pub struct Geometry {
    pub axes: Vec<usize>,
    pub mode: String,
    pub linear: bool,
    pub antialias: bool,
    pub nearest: NearestMode,
}

#[derive(Clone, Copy)]
pub enum NearestMode {
    Floor,
    Ceil,
    RoundPreferCeil,
    RoundPreferFloor,
}

impl NearestMode {
    /// The input position a coordinate rounds to (before clamping).
    fn round(self, c: f64) -> f64 {
        match self {
            NearestMode::Floor => c.floor(),
            NearestMode::Ceil => c.ceil(),
            NearestMode::RoundPreferCeil => (c + 0.5).floor(),
            NearestMode::RoundPreferFloor if c.fract() == 0.5 => c.floor(),
            NearestMode::RoundPreferFloor => c.round(),
        }
    }
}

impl Geometry {
    fn of(node: &Node, g: &Graph) -> OResult<Geometry> {
        let rank = g.ty(&node.inputs[0])?.shape.len();
        let axes: Vec<usize> = match node.ints("axes") {
            Some(a) => a.iter().map(|&v| axis(node, v, rank)).collect::<OResult<_>>()?,
            None => (0..rank).collect(),
        };
        let default_mode = if node.op == "Upsample" { "asymmetric" } else { "half_pixel" };
        let mode = node.string("coordinate_transformation_mode").unwrap_or(default_mode).to_string();
        let default_nearest = if node.op == "Upsample" { "floor" } else { "round_prefer_floor" };
        let nearest = match node.string("nearest_mode").unwrap_or(default_nearest) {
            "floor" => NearestMode::Floor,
            "ceil" => NearestMode::Ceil,
            "round_prefer_ceil" => NearestMode::RoundPreferCeil,
            _ => NearestMode::RoundPreferFloor,
        };
        let linear = node.string("mode").is_some_and(|m| m != "nearest");
        Ok(Geometry { axes, mode, linear, antialias: node.int("antialias", 0) == 1, nearest })
    }
}

use crate::ops::schema::Schema;

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    r.register(&["Resize"], &Resize, Schema::inputs(1, 4).int64(&[3]));
    // Upsample's scales became an input at opset 9.
    r.register(&["Upsample"], &Resize, Schema::inputs(1, 2).required_from(9, 2));
}

struct Plan {
    out: Vec<usize>,
    /// Positions outside the input take `extrapolation_value` (tf_crop_and_resize).
    extrapolate: bool,
    /// The scale per dim (given, or output / input for sizes).
    scales: Vec<f64>,
    /// Per dim: output coordinate -> source coordinate in the input (before rounding).
    coords: Vec<Vec<f64>>,
    nearest: NearestMode,
    linear: bool,
    /// Cubic interpolation (a kind of the weighted modes, `linear` too).
    cubic: bool,
}

fn const_f64(g: &Graph, node: &Node, i: usize) -> OResult<Option<Vec<f64>>> {
    match node.input(i) {
        None => Ok(None),
        Some(name) => match g.consts.get(name) {
            Some(t) if t.ty.numel() == 0 => Ok(None),
            Some(t) => Ok(Some(t.to_f64())),
            None => err(format!("'{name}' must be a constant (use --bind)")),
        },
    }
}

/// The most output positions along a resized axis.
const MAX_RESIZED_DIM: usize = 1 << 24;
/// The smallest antialiased downscale, as its reciprocal.
const MAX_ANTIALIAS_TAPS: f64 = 4096.0;

fn plan(node: &Node, g: &Graph) -> OResult<Plan> {
    let x = g.ty(&node.inputs[0])?;
    let rank = x.shape.len();
    let geo = Geometry::of(node, g)?;
    let axes = &geo.axes;
    let (out, scales) = output_size(node, g, &x.shape, axes)?;
    // The tables below hold an entry per output position (and per tap, which antialiasing
    // multiplies by 1 / scale): bounded so that compiling cannot exhaust memory.
    for &a in axes {
        if x.shape[a] == 0 && out[a] > 0 {
            return err(format!("Resize cannot fill {} positions along axis {a} from an empty dim", out[a]));
        }
        if out[a] > MAX_RESIZED_DIM || (geo.antialias && scales[a] < 1.0 / MAX_ANTIALIAS_TAPS) {
            return err(format!(
                "Resize to {} along axis {a} (scale {}) is beyond xcc's limits ({MAX_RESIZED_DIM} positions, \
                 antialiasing down to 1/{MAX_ANTIALIAS_TAPS})",
                out[a], scales[a]
            ));
        }
    }
    let mode = geo.mode.as_str();
    // tf_crop_and_resize samples the box given by roi (starts then ends, normalized).
    let mut roi: Vec<(f64, f64)> = vec![(0.0, 1.0); rank];
    if mode == "tf_crop_and_resize" {
        let r = const_f64(g, node, 1)?.ok_or_else(|| OnnxError::msg("tf_crop_and_resize needs roi"))?;
        if r.len() != 2 * axes.len() {
            return err(format!("roi has {} values, expected {}", r.len(), 2 * axes.len()));
        }
        for (k, &a) in axes.iter().enumerate() {
            roi[a] = (r[k], r[k + axes.len()]);
        }
    }
    let coords = (0..rank)
        .map(|d| {
            let dim = DimTransform { input: x.shape[d] as f64, scale: scales[d], out: out[d], roi: roi[d] };
            (0..out[d]).map(|i| dim.source(mode, i as f64)).collect::<OResult<Vec<f64>>>()
        })
        .collect::<OResult<_>>()?;
    Ok(Plan {
        out,
        coords,
        extrapolate: mode == "tf_crop_and_resize",
        scales,
        nearest: geo.nearest,
        linear: geo.linear,
        cubic: matches!(node.string("mode"), Some("cubic" | "bicubic")),
    })
}

/// The output shape and the scale per dim, from `sizes` (with `keep_aspect_ratio_policy`) or
/// `scales` over `axes` (attributes or inputs before opset 11 and for Upsample, inputs after).
fn output_size(node: &Node, g: &Graph, shape: &[usize], axes: &[usize]) -> OResult<(Vec<usize>, Vec<f64>)> {
    let (scales_in, sizes_in) = if node.op == "Upsample" || node.opset < 11 {
        let s = match node.attrs.get("scales") {
            Some(Attr::Floats(f)) => Some(f.iter().map(|&v| v as f64).collect()),
            _ => const_f64(g, node, 1)?,
        };
        (s, None)
    } else {
        (const_f64(g, node, 2)?, const_f64(g, node, 3)?)
    };
    let policy = node.string("keep_aspect_ratio_policy").unwrap_or("stretch");
    let mut scales = vec![1.0f64; shape.len()];
    let mut out = shape.to_vec();
    match (sizes_in, scales_in) {
        (Some(sizes), _) => {
            if sizes.len() != axes.len() {
                return err("sizes must have one entry per axis");
            }
            let ratios: Vec<f64> = axes.iter().enumerate().map(|(k, &a)| sizes[k] / shape[a] as f64).collect();
            for (k, &a) in axes.iter().enumerate() {
                // not_larger/not_smaller keep the aspect ratio with one scale for all axes.
                let r = match policy {
                    "stretch" => ratios[k],
                    "not_larger" => ratios.iter().copied().fold(f64::INFINITY, f64::min),
                    "not_smaller" => ratios.iter().copied().fold(0.0, f64::max),
                    p => return err(format!("keep_aspect_ratio_policy '{p}' is not supported")),
                };
                out[a] = if policy == "stretch" { sizes[k] as usize } else { (r * shape[a] as f64).round() as usize };
                scales[a] = r;
            }
        }
        (None, Some(s)) => {
            if s.len() != axes.len() {
                return err("scales must have one entry per axis");
            }
            for (k, &a) in axes.iter().enumerate() {
                // Scales are float32 in the model; the output size is floor(in * scale).
                let sc = s[k] as f32 as f64;
                scales[a] = sc;
                out[a] = (shape[a] as f64 * sc).floor() as usize;
            }
        }
        (None, None) => return err("Resize needs scales or sizes"),
    }
    Ok((out, scales))
}

/// One dim of the resize, for the coordinate transformation.
struct DimTransform {
    input: f64,
    scale: f64,
    out: usize,
    roi: (f64, f64),
}

impl DimTransform {
    /// The input coordinate that output position `xo` samples. The transforms use the
    /// real-valued output length `input * scale` (e.g. 2.4, not 2).
    fn source(&self, mode: &str, xo: f64) -> OResult<f64> {
        let (inn, s) = (self.input, self.scale);
        let o = inn * s;
        Ok(match mode {
            "half_pixel" => (xo + 0.5) / s - 0.5,
            "pytorch_half_pixel" => {
                if o > 1.0 {
                    (xo + 0.5) / s - 0.5
                } else {
                    0.0
                }
            }
            "align_corners" => {
                if o == 1.0 {
                    0.0
                } else {
                    xo * (inn - 1.0) / (o - 1.0)
                }
            }
            "asymmetric" => xo / s,
            "tf_crop_and_resize" => {
                let (st, en) = self.roi;
                if self.out > 1 {
                    st * (inn - 1.0) + xo * (en - st) * (inn - 1.0) / (self.out as f64 - 1.0)
                } else {
                    0.5 * (st + en) * (inn - 1.0)
                }
            }
            "tf_half_pixel_for_nn" => (xo + 0.5) / s,
            "half_pixel_symmetric" => {
                let adj = self.out as f64 / (s * inn);
                let center = inn / 2.0;
                center * (1.0 - adj) + (xo + 0.5) / s - 0.5
            }
            m => return err(format!("coordinate_transformation_mode '{m}' is not supported")),
        })
    }
}

pub fn infer(node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
    let x = g.ty(&node.inputs[0])?;
    let mode = node.string("mode").unwrap_or("nearest");
    if !matches!(mode, "nearest" | "linear" | "bilinear" | "cubic" | "bicubic") {
        return err(format!("Resize mode '{mode}' is not supported"));
    }
    if mode != "nearest" && !x.dtype.is_float() {
        return err(format!("Resize's {mode} mode takes floating point here, not {}", x.dtype.name()));
    }
    if node.int("antialias", 0) == 1 && mode == "nearest" {
        return err("antialias applies to linear and cubic modes, not nearest");
    }
    if run_time::reads_at_run_time(node, g) {
        let geo = Geometry::of(node, g)?;
        let p = run_time::params(node, g, &x.dims(), &geo.axes)?;
        let dims = p.iter().zip(x.dims()).map(|(d, n)| match d {
            Some(d) => match &d.out {
                DataExpr::Dim(d) => d.clone(),
                _ => unreachable!("a data dim"),
            },
            None => n,
        });
        return Ok(vec![TensorType::with_dims(x.dtype, dims.collect())]);
    }
    Ok(vec![TensorType::new(x.dtype, plan(node, g)?.out)])
}

/// Per dim: the source index for each output position, or for the linear modes `taps` indices
/// and weights per output position (tables are `[output position][tap]`); `None` for a dim that
/// the resize leaves as it is.
struct DimTables {
    indices: Vec<i64>,
    weights: Option<(Vec<f64>, usize)>,
}

/// An index of -1 marks a position outside the input (tf_crop_and_resize).
fn clamp_index(i: i64, n: usize) -> i64 {
    i.clamp(0, n as i64 - 1)
}

/// K taps per output position: 2 for plain linear; with antialias while downsampling, the
/// triangle filter stretched by 1/scale (normalized), over edge-padded input, as the spec's
/// reference computes it.
fn linear_tables(node: &Node, p: &Plan, d: usize, n: usize) -> DimTables {
    let scale = p.scales[d];
    let antialias = node.int("antialias", 0) == 1 && scale < 1.0;
    let (start, taps) = if antialias {
        let start = (-1.0 / scale).floor() as i64 + 1;
        (start, (2 - 2 * start) as usize)
    } else {
        (0, 2)
    };
    let (mut indices, mut weights) = (Vec::new(), Vec::new());
    for &c in &p.coords[d] {
        let outside = p.outside(c, n);
        let c = if antialias { c } else { c.clamp(0.0, (n - 1) as f64) };
        let f = c.floor();
        let ratio = c - f;
        let raw: Vec<f64> = (0..taps)
            .map(|t| {
                let off = start + t as i64;
                if antialias {
                    (1.0 - ((off as f64 - ratio) * scale).abs()).clamp(0.0, 1.0)
                } else if t == 0 {
                    1.0 - ratio
                } else {
                    ratio
                }
            })
            .collect();
        let sum: f64 = raw.iter().sum();
        for (t, w) in raw.iter().enumerate() {
            let i = f as i64 + start + t as i64;
            indices.push(if outside { -1 } else { clamp_index(i, n) });
            weights.push(if sum > 0.0 { w / sum } else { 0.0 });
        }
    }
    DimTables { indices, weights: Some((weights, taps)) }
}

/// The two pieces of the cubic convolution kernel with coefficient `a` at a distance `x >= 0`,
/// as IR of float type `t`: `((a + 2) x - (a + 3)) x^2 + 1`, for `x <= 1`, and
/// `((a x - 5a) x + 8a) x - 4a`, for `1 < x < 2` (cubic Resize at run time, GridSample).
pub(crate) fn emit_cubic_pieces(e: &mut Emitter, x: ValueId, a: f64, t: &Type) -> (ValueId, ValueId) {
    let k = |e: &mut Emitter, v: f64| e.const_float(v, t.clone());
    let bin = |e: &mut Emitter, op: &str, l: ValueId, r: ValueId| e.value_op(op, &[l, r], t.clone());
    let (a2, a3, one) = (k(e, a + 2.0), k(e, a + 3.0), k(e, 1.0));
    let x2 = bin(e, "arith.mulf", x, x);
    let inner = bin(e, "arith.mulf", a2, x);
    let inner = bin(e, "arith.subf", inner, a3);
    let inner = bin(e, "arith.mulf", inner, x2);
    let inner = bin(e, "arith.addf", inner, one);
    let (ka, k5a, k8a, k4a) = (k(e, a), k(e, 5.0 * a), k(e, 8.0 * a), k(e, 4.0 * a));
    let outer = bin(e, "arith.mulf", ka, x);
    let outer = bin(e, "arith.subf", outer, k5a);
    let outer = bin(e, "arith.mulf", outer, x);
    let outer = bin(e, "arith.addf", outer, k8a);
    let outer = bin(e, "arith.mulf", outer, x);
    let outer = bin(e, "arith.subf", outer, k4a);
    (inner, outer)
}

/// The cubic convolution kernel with coefficient `a` at distance `x`.
fn cubic_kernel(x: f64, a: f64) -> f64 {
    let x = x.abs();
    if x <= 1.0 {
        ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    } else if x < 2.0 {
        ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
    } else {
        0.0
    }
}

/// Cubic taps: the 4 positions from floor(c) - 1 (with antialias while downsampling, the kernel
/// stretched by 1/scale over as many more), weighted by the cubic kernel with cubic_coeff_a;
/// with exclude_outside the taps outside the input weigh 0; the weights normalized to sum 1;
/// taps past the edges read the edge.
fn cubic_tables(node: &Node, p: &Plan, d: usize, n: usize) -> DimTables {
    let a = node.float("cubic_coeff_a", -0.75) as f64;
    let exclude = node.int("exclude_outside", 0) == 1;
    let scale = p.scales[d];
    let stretch = if node.int("antialias", 0) == 1 && scale < 1.0 { scale } else { 1.0 };
    let start = (-2.0 / stretch).floor() as i64 + 1;
    let taps = (2 - 2 * start) as usize;
    let (mut indices, mut weights) = (Vec::new(), Vec::new());
    for &c in &p.coords[d] {
        let outside = p.outside(c, n);
        let f = c.floor();
        let ratio = c - f;
        let raw: Vec<f64> = (0..taps)
            .map(|t| {
                let off = start + t as i64;
                let i = f as i64 + off;
                if exclude && (i < 0 || i >= n as i64) {
                    0.0
                } else {
                    cubic_kernel((off as f64 - ratio) * stretch, a)
                }
            })
            .collect();
        let sum: f64 = raw.iter().sum();
        for (t, w) in raw.iter().enumerate() {
            let i = f as i64 + start + t as i64;
            indices.push(if outside { -1 } else { clamp_index(i, n) });
            weights.push(if sum != 0.0 { w / sum } else { 0.0 });
        }
    }
    DimTables { indices, weights: Some((weights, taps)) }
}

fn nearest_tables(p: &Plan, d: usize, n: usize) -> DimTables {
    let indices = p.coords[d]
        .iter()
        .map(|&c| {
            let r = p.nearest.round(c);
            if p.outside(c, n) {
                -1
            } else {
                clamp_index(r as i64, n)
            }
        })
        .collect();
    DimTables { indices, weights: None }
}

impl Plan {
    fn outside(&self, c: f64, n: usize) -> bool {
        self.extrapolate && (c < 0.0 || c > (n - 1) as f64)
    }

    fn is_identity(&self, d: usize, n: usize) -> bool {
        self.out[d] == n && self.coords[d].iter().enumerate().all(|(i, &c)| (c - i as f64).abs() < 1e-12)
    }
}

/// One dim's tables as constant buffers: indices, and weights with their taps per position.
type DimBuffers = (ValueId, Option<(ValueId, usize)>);

impl Emitter {
    pub fn emit_resize(&mut self, node: &Node, g: &Graph) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?.clone();
        let p = plan(node, g)?;
        let linear = p.linear;
        let tables: Vec<Option<DimBuffers>> = (0..x_t.shape.len())
            .map(|d| {
                let n = x_t.shape[d];
                if p.is_identity(d, n) {
                    return None;
                }
                let t = if p.cubic {
                    cubic_tables(node, &p, d, n)
                } else if linear {
                    linear_tables(node, &p, d, n)
                } else {
                    nearest_tables(&p, d, n)
                };
                let indices = self.constant_buffer(&Tensor::from_i64(vec![t.indices.len()], &t.indices));
                let weights = t
                    .weights
                    .map(|(w, taps)| (self.constant_buffer(&Tensor::from_f64(DType::F32, vec![w.len()], &w)), taps));
                Some((indices, weights))
            })
            .collect();
        let x = self.buf(&node.inputs[0])?;
        let out = self.buf(&node.outputs[0])?;
        let d = x_t.dtype;
        let extrapolation = p.extrapolate.then(|| node.float("extrapolation_value", 0.0) as f64);
        self.parallel(&p.out, &mut |e, ivs| {
            let mut outside: Option<ValueId> = None;
            let corners = e.corners(&tables, ivs, d, extrapolation.is_some(), &mut outside);
            let ct = compute_type(d);
            let mut acc: Option<ValueId> = None;
            for (idx, w) in &corners {
                let v = e.load(x, idx);
                let term = match w {
                    None => v,
                    Some(w) => e.value_op("arith.mulf", &[v, *w], ct.clone()),
                };
                acc = Some(match acc {
                    None => term,
                    Some(a) => e.value_op("arith.addf", &[a, term], ct.clone()),
                });
            }
            let mut v = acc.expect("one corner at least");
            if let (Some(o), Some(value)) = (outside, extrapolation) {
                let ev = e.const_of(value, d);
                v = e.value_op("arith.select", &[o, ev, v], ct);
            }
            e.store(v, out, ivs);
        });
        Ok(())
    }

    /// The input positions an output position reads, each with its weight (the product of its
    /// taps' weights over the linear dims; `None` when every dim is nearest or identity).
    /// With `extrapolate`, `outside` becomes whether any index was -1.
    fn corners(
        &mut self,
        tables: &[Option<DimBuffers>],
        ivs: &[ValueId],
        d: DType,
        extrapolate: bool,
        outside: &mut Option<ValueId>,
    ) -> Vec<(Vec<ValueId>, Option<ValueId>)> {
        let ct = compute_type(d);
        let mut corners: Vec<(Vec<ValueId>, Option<ValueId>)> = vec![(Vec::new(), None)];
        for (q, t) in tables.iter().enumerate() {
            match t {
                None => corners.iter_mut().for_each(|c| c.0.push(ivs[q])),
                Some((indices, None)) => {
                    let raw = self.load(*indices, &[ivs[q]]);
                    let i = self.table_index(raw, extrapolate, outside);
                    corners.iter_mut().for_each(|c| c.0.push(i));
                }
                Some((indices, Some((weights, taps)))) => {
                    let mut next = Vec::new();
                    for t in 0..*taps {
                        let at = self.affine(&[(ivs[q], *taps as i64)], t as i64);
                        let raw = self.load(*indices, &[at]);
                        let i = self.table_index(raw, extrapolate, outside);
                        let w = self.load(*weights, &[at]);
                        let w = if ct != Type::f32() { self.convert(w, DType::F32, d) } else { w };
                        for (idx, wt) in &corners {
                            let mut ni = idx.clone();
                            ni.push(i);
                            let nw = match wt {
                                None => w,
                                Some(x) => self.value_op("arith.mulf", &[*x, w], ct.clone()),
                            };
                            next.push((ni, Some(nw)));
                        }
                    }
                    corners = next;
                }
            }
        }
        corners
    }

    /// A table entry as an index; with `extrapolate`, -1 reads element 0 and sets `outside`.
    fn table_index(&mut self, raw: ValueId, extrapolate: bool, outside: &mut Option<ValueId>) -> ValueId {
        if !extrapolate {
            return self.value_op("arith.index_cast", &[raw], Type::Index);
        }
        let zero = self.const_int(0, Type::i64());
        let neg = self.cmpi("slt", raw, zero);
        *outside = Some(match *outside {
            None => neg,
            Some(o) => self.value_op("arith.ori", &[o, neg], Type::i1()),
        });
        let fixed = self.value_op("arith.maxsi", &[raw, zero], Type::i64());
        self.value_op("arith.index_cast", &[fixed], Type::Index)
    }
}
