//! Resize (and Upsample): nearest and (multi)linear interpolation with the common coordinate
//! transformation modes. Output coordinates are static, so the source indices and weights of each
//! dimension are computed here at compile time and become small constant tables.

use super::axis;
use crate::emit::LoopBuilder;
use crate::emit::{compute_type, Emitter};
use crate::graph::*;
use xcc_ir::{Type, ValueId};

pub const OPS: &[&str] = &["Resize", "Upsample"];

/// A parallel loop over the output, reading the input through the compile-time tables.
struct Resize;

impl super::OnnxOp for Resize {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        infer(node, g)
    }
    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        e.emit_resize(node, g)
    }
}

pub fn register(r: &mut super::Registry) {
    r.register(OPS, &Resize);
}

/// One dimension's constant tables: source indices, and for linear modes the weights with the
/// number of taps per output position.
type DimTable = (ValueId, Option<(ValueId, usize)>);

struct Plan {
    out: Vec<usize>,
    /// Positions outside the input take `extrapolation_value` (tf_crop_and_resize).
    extrapolate: bool,
    /// The scale per dim (given, or output / input for sizes).
    scales: Vec<f64>,
    /// Per dim: output coordinate -> source coordinate in the input (before rounding).
    coords: Vec<Vec<f64>>,
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

fn plan(node: &Node, g: &Graph) -> OResult<Plan> {
    let x = g.ty(&node.inputs[0])?;
    let rank = x.shape.len();
    let (scales_in, sizes_in) = if node.op == "Upsample" || node.opset < 11 {
        let s = match node.attrs.get("scales") {
            Some(Attr::Floats(f)) => Some(f.iter().map(|&v| v as f64).collect()),
            _ => const_f64(g, node, 1)?,
        };
        (s, None)
    } else {
        (const_f64(g, node, 2)?, const_f64(g, node, 3)?)
    };
    let axes: Vec<usize> = match node.ints("axes") {
        Some(a) => a.iter().map(|&v| axis(node, v, rank)).collect::<OResult<_>>()?,
        None => (0..rank).collect(),
    };
    let policy = node.string("keep_aspect_ratio_policy").unwrap_or("stretch");
    let mut scales = vec![1.0f64; rank];
    let mut out = x.shape.clone();
    match (sizes_in, scales_in) {
        (Some(sizes), _) => {
            if sizes.len() != axes.len() {
                return err("sizes must have one entry per axis");
            }
            let ratios: Vec<f64> = axes.iter().enumerate().map(|(k, &a)| sizes[k] / x.shape[a] as f64).collect();
            for (k, &a) in axes.iter().enumerate() {
                // not_larger/not_smaller keep the aspect ratio with one scale for all axes.
                let r = match policy {
                    "stretch" => ratios[k],
                    "not_larger" => ratios.iter().copied().fold(f64::INFINITY, f64::min),
                    "not_smaller" => ratios.iter().copied().fold(0.0, f64::max),
                    p => return err(format!("keep_aspect_ratio_policy '{p}' is not supported")),
                };
                out[a] = if policy == "stretch" { sizes[k] as usize } else { (r * x.shape[a] as f64).round() as usize };
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
                out[a] = (x.shape[a] as f64 * sc).floor() as usize;
            }
        }
        (None, None) => return err("Resize needs scales or sizes"),
    }
    let mode = node.string("coordinate_transformation_mode").unwrap_or(if node.op == "Upsample" {
        "asymmetric"
    } else {
        "half_pixel"
    });
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
    let mut coords = Vec::new();
    for d in 0..rank {
        // The transforms use the real-valued output length in * scale (e.g. 2.4, not 2).
        let (inn, s) = (x.shape[d] as f64, scales[d]);
        let o = inn * s;
        let c: Vec<f64> = (0..out[d])
            .map(|i| {
                let xo = i as f64;
                match mode {
                    "half_pixel" => Ok((xo + 0.5) / s - 0.5),
                    "pytorch_half_pixel" => Ok(if o > 1.0 { (xo + 0.5) / s - 0.5 } else { 0.0 }),
                    "align_corners" => Ok(if o == 1.0 { 0.0 } else { xo * (inn - 1.0) / (o - 1.0) }),
                    "asymmetric" => Ok(xo / s),
                    "tf_crop_and_resize" => {
                        let (st, en) = roi[d];
                        Ok(if out[d] > 1 {
                            st * (inn - 1.0) + xo * (en - st) * (inn - 1.0) / (out[d] as f64 - 1.0)
                        } else {
                            0.5 * (st + en) * (inn - 1.0)
                        })
                    }
                    "tf_half_pixel_for_nn" => Ok((xo + 0.5) / s),
                    "half_pixel_symmetric" => {
                        let adj = out[d] as f64 / (s * inn);
                        let center = inn / 2.0;
                        let offset = center * (1.0 - adj);
                        Ok(offset + (xo + 0.5) / s - 0.5)
                    }
                    m => err(format!("coordinate_transformation_mode '{m}' is not supported")),
                }
            })
            .collect::<OResult<_>>()?;
        coords.push(c);
    }
    Ok(Plan { out, coords, extrapolate: mode == "tf_crop_and_resize", scales })
}

pub fn infer(node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
    let x = g.ty(&node.inputs[0])?;
    let mode = node.string("mode").unwrap_or("nearest");
    if !matches!(mode, "nearest" | "linear" | "bilinear") {
        return err(format!("Resize mode '{mode}' is not supported"));
    }
    if node.int("antialias", 0) == 1 && mode == "nearest" {
        return err("antialias applies to linear and cubic modes, not nearest");
    }
    Ok(vec![TensorType { dtype: x.dtype, shape: plan(node, g)?.out }])
}

impl Emitter {
    pub fn emit_resize(&mut self, node: &Node, g: &Graph) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?.clone();
        let p = plan(node, g)?;
        let x = self.buf(&node.inputs[0])?;
        let out = self.buf(&node.outputs[0])?;
        let rank = x_t.shape.len();
        let linear = node.string("mode").is_some_and(|m| m != "nearest");
        let nearest_mode = node
            .string("nearest_mode")
            .unwrap_or(if node.op == "Upsample" { "floor" } else { "round_prefer_floor" })
            .to_string();
        let clamp = |v: i64, n: usize| v.clamp(0, n as i64 - 1);
        // Per dim: an index table, and for linear modes a weight table with the number of taps
        // (tables are [output position][tap]); identity dims need none.
        let mut tables: Vec<Option<DimTable>> = Vec::new();
        for d in 0..rank {
            let n = x_t.shape[d];
            let identity = p.out[d] == n && p.coords[d].iter().enumerate().all(|(i, &c)| (c - i as f64).abs() < 1e-12);
            let outside = |c: f64| p.extrapolate && (c < 0.0 || c > (n - 1) as f64);
            if identity {
                tables.push(None);
                continue;
            }
            if linear {
                // K taps per output position: 2 for plain linear; with antialias while
                // downsampling, the triangle filter stretched by 1/scale (normalized), over edge-
                // padded input, as the spec's reference computes it.
                let scale = p.scales[d];
                let antialias = node.int("antialias", 0) == 1 && scale < 1.0;
                let (start, taps) = if antialias {
                    let start = (-1.0 / scale).floor() as i64 + 1;
                    (start, (2 - 2 * start) as usize)
                } else {
                    (0, 2)
                };
                let (mut idx, mut wts) = (Vec::new(), Vec::new());
                for &c in &p.coords[d] {
                    let out_of_range = outside(c);
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
                        idx.push(if out_of_range { -1 } else { clamp(i, n) });
                        wts.push(if sum > 0.0 { w / sum } else { 0.0 });
                    }
                }
                let ti = self.constant_buffer(&Tensor::from_i64(vec![idx.len()], &idx));
                let tw = self.constant_buffer(&Tensor::from_f64(DType::F32, vec![wts.len()], &wts));
                tables.push(Some((ti, Some((tw, taps)))));
            } else {
                let idx: Vec<i64> = p.coords[d]
                    .iter()
                    .map(|&c| {
                        let r = match nearest_mode.as_str() {
                            "floor" => c.floor(),
                            "ceil" => c.ceil(),
                            "round_prefer_ceil" => (c + 0.5).floor(),
                            _ => {
                                if c.fract() == 0.5 {
                                    c.floor()
                                } else {
                                    c.round()
                                }
                            }
                        };
                        if outside(c) {
                            -1
                        } else {
                            clamp(r as i64, n)
                        }
                    })
                    .collect();
                let t = self.constant_buffer(&Tensor::from_i64(vec![idx.len()], &idx));
                tables.push(Some((t, None)));
            }
        }
        let ct = compute_type(x_t.dtype);
        let d = x_t.dtype;
        let extrapolation = node.float("extrapolation_value", 0.0) as f64;
        let extrapolate = p.extrapolate;
        self.parallel(&p.out, &mut |e, ivs| {
            let mut corners: Vec<(Vec<ValueId>, Option<ValueId>)> = vec![(Vec::new(), None)];
            let mut outside: Option<ValueId> = None;
            // An index of -1 marks a position outside the input; it reads element 0 and the
            // result is replaced by the extrapolation value.
            let mut index = |e: &mut Emitter, raw: ValueId| -> ValueId {
                if extrapolate {
                    let zero = e.const_int(0, Type::i64());
                    let neg = e.value_attr(
                        "arith.cmpi",
                        &[raw, zero],
                        Type::i1(),
                        vec![("predicate", xcc_ir::Attribute::i64(2))],
                    );
                    outside = Some(match outside {
                        None => neg,
                        Some(o) => e.value_op("arith.ori", &[o, neg], Type::i1()),
                    });
                    let fixed = e.value_op("arith.maxsi", &[raw, zero], Type::i64());
                    return e.value_op("arith.index_cast", &[fixed], Type::Index);
                }
                e.value_op("arith.index_cast", &[raw], Type::Index)
            };
            for (q, t) in tables.iter().enumerate() {
                match t {
                    None => corners.iter_mut().for_each(|c| c.0.push(ivs[q])),
                    Some((t0, None)) => {
                        let raw = e.load(*t0, &[ivs[q]]);
                        let i = index(e, raw);
                        corners.iter_mut().for_each(|c| c.0.push(i));
                    }
                    Some((ti, Some((tw, taps)))) => {
                        let mut next = Vec::new();
                        for t in 0..*taps {
                            let at = e.affine(&[(ivs[q], *taps as i64)], t as i64);
                            let raw = e.load(*ti, &[at]);
                            let i = index(e, raw);
                            let w = e.load(*tw, &[at]);
                            let w = if ct != Type::f32() { e.convert(w, DType::F32, d) } else { w };
                            for (idx, wt) in &corners {
                                let mut ni = idx.clone();
                                ni.push(i);
                                let nw = match wt {
                                    None => w,
                                    Some(x) => e.value_op("arith.mulf", &[*x, w], ct.clone()),
                                };
                                next.push((ni, Some(nw)));
                            }
                        }
                        corners = next;
                    }
                }
            }
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
            if let Some(o) = outside {
                let ev = e.const_of(extrapolation, d);
                v = e.value_op("arith.select", &[o, ev, v], ct.clone());
            }
            e.store(v, out, ivs);
        });
        Ok(())
    }
}
