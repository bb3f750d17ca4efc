//! Neural-network operators: Gemm, MatMul, Conv, pooling, Softmax, normalizations.

use super::{axis, broadcast};
use crate::graph::*;

/// Normalizations, pooling, softmax and transposed convolution: loops of their own (parallel
/// over the output, reductions inside).
pub const OPS: &[&str] = &[
    "MaxPool",
    "AveragePool",
    "GlobalAveragePool",
    "GlobalMaxPool",
    "Softmax",
    "LogSoftmax",
    "LayerNormalization",
    "BatchNormalization",
    "InstanceNormalization",
    "ConvTranspose",
];

struct Nn;

impl super::OnnxOp for Nn {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        infer(node, g)
    }
    fn lower(&self, node: &Node, g: &Graph, e: &mut crate::emit::Emitter) -> OResult<()> {
        e.emit_nn(node, g)
    }
}

pub fn register(r: &mut super::Registry) {
    r.register(OPS, &Nn);
}

/// Spatial geometry of a convolution or pooling window.
#[derive(Clone, Debug)]
pub struct Window {
    pub kernel: Vec<usize>,
    pub strides: Vec<usize>,
    pub dilations: Vec<usize>,
    /// Begin pads then end pads, per spatial dim.
    pub pads: Vec<usize>,
    pub out: Vec<usize>,
}

pub fn window(node: &Node, spatial_in: &[usize], kernel: Vec<usize>) -> OResult<Window> {
    let n = spatial_in.len();
    let strides: Vec<usize> =
        node.ints("strides").map(|v| v.iter().map(|&x| x as usize).collect()).unwrap_or(vec![1; n]);
    let dilations: Vec<usize> =
        node.ints("dilations").map(|v| v.iter().map(|&x| x as usize).collect()).unwrap_or(vec![1; n]);
    let mut pads: Vec<usize> =
        node.ints("pads").map(|v| v.iter().map(|&x| x as usize).collect()).unwrap_or(vec![0; 2 * n]);
    if strides.len() != n
        || dilations.len() != n
        || pads.len() != 2 * n
        || kernel.len() != n
        || strides.contains(&0)
        || dilations.contains(&0)
    {
        return err("strides, dilations, pads and kernel_shape do not match the spatial rank");
    }
    let ceil = node.int("ceil_mode", 0) == 1;
    let auto_pad = node.string("auto_pad").unwrap_or("NOTSET");
    let mut out = vec![0; n];
    for i in 0..n {
        let eff = (kernel[i] - 1) * dilations[i] + 1;
        match auto_pad {
            "SAME_UPPER" | "SAME_LOWER" => {
                out[i] = spatial_in[i].div_ceil(strides[i]);
                let total = ((out[i] - 1) * strides[i] + eff).saturating_sub(spatial_in[i]);
                let (small, big) = (total / 2, total - total / 2);
                if auto_pad == "SAME_UPPER" {
                    pads[i] = small;
                    pads[i + n] = big;
                } else {
                    pads[i] = big;
                    pads[i + n] = small;
                }
            }
            "VALID" => {
                pads[i] = 0;
                pads[i + n] = 0;
                out[i] = (spatial_in[i].saturating_sub(eff)) / strides[i] + 1;
            }
            _ => {
                let padded = spatial_in[i] + pads[i] + pads[i + n];
                if padded < eff {
                    return err(format!("the window ({eff}) is larger than the padded input ({padded})"));
                }
                out[i] = if ceil {
                    let mut o = (padded - eff).div_ceil(strides[i]) + 1;
                    // The last window must start inside the input or the left padding.
                    if (o - 1) * strides[i] >= spatial_in[i] + pads[i] {
                        o -= 1;
                    }
                    o
                } else {
                    (padded - eff) / strides[i] + 1
                };
            }
        }
    }
    Ok(Window { kernel, strides, dilations, pads, out })
}

/// ConvTranspose's output size and begin pads per spatial dim, from `output_shape` or the pads.
pub struct TransposeGeometry {
    pub out: Vec<usize>,
    pub pad_begin: Vec<i64>,
    pub strides: Vec<usize>,
    pub dilations: Vec<usize>,
}

pub fn transpose_geometry(node: &Node, input: &[usize], kernel: &[usize]) -> OResult<TransposeGeometry> {
    let n = input.len();
    let get = |name: &str, d: i64| -> Vec<i64> { node.ints(name).unwrap_or(vec![d; n]) };
    let strides: Vec<usize> = get("strides", 1).iter().map(|&v| v.max(1) as usize).collect();
    let dilations: Vec<usize> = get("dilations", 1).iter().map(|&v| v.max(1) as usize).collect();
    let out_pad = get("output_padding", 0);
    let mut pads = node.ints("pads").unwrap_or(vec![0; 2 * n]);
    if strides.len() != n || dilations.len() != n || out_pad.len() != n || pads.len() != 2 * n {
        return err("strides, dilations, output_padding and pads do not match the spatial rank");
    }
    let full: Vec<i64> = (0..n)
        .map(|i| {
            strides[i] as i64 * (input[i] as i64 - 1) + out_pad[i] + ((kernel[i] as i64 - 1) * dilations[i] as i64 + 1)
        })
        .collect();
    let auto_pad = node.string("auto_pad").unwrap_or("NOTSET");
    let out: Vec<i64> = if let Some(shape) = node.ints("output_shape") {
        let shape = shape[shape.len() - n..].to_vec();
        for i in 0..n {
            // Floor division, as the spec's reference: a negative total extends the end.
            let total = full[i] - shape[i];
            if auto_pad == "SAME_UPPER" {
                pads[i] = total.div_euclid(2);
            } else {
                pads[i] = total - total.div_euclid(2);
            }
            pads[i + n] = total - pads[i];
        }
        shape
    } else if auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER" {
        (0..n)
            .map(|i| {
                let target = input[i] as i64 * strides[i] as i64;
                let total = full[i] - target;
                pads[i] = if auto_pad == "SAME_UPPER" { total / 2 } else { total - total / 2 };
                pads[i + n] = total - pads[i];
                target
            })
            .collect()
    } else {
        (0..n).map(|i| full[i] - pads[i] - pads[i + n]).collect()
    };
    if out.iter().any(|&o| o <= 0) {
        return err(format!("ConvTranspose output size {out:?} is not positive"));
    }
    Ok(TransposeGeometry {
        out: out.iter().map(|&o| o as usize).collect(),
        pad_begin: pads[..n].to_vec(),
        strides,
        dilations,
    })
}

pub fn infer(node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
    let x = g.ty(&node.inputs[0])?;
    let float_only = || -> OResult<()> {
        if !x.dtype.is_float() {
            return err(format!("input '{}' must be floating point, not {}", node.inputs[0], x.dtype.name()));
        }
        Ok(())
    };
    Ok(match node.op.as_str() {
        "Gemm" => {
            float_only()?;
            let b = g.ty(&node.inputs[1])?;
            if x.shape.len() != 2 || b.shape.len() != 2 {
                return err("Gemm takes 2-D A and B");
            }
            let (m, k) = if node.int("transA", 0) == 1 { (x.shape[1], x.shape[0]) } else { (x.shape[0], x.shape[1]) };
            let (k2, n) = if node.int("transB", 0) == 1 { (b.shape[1], b.shape[0]) } else { (b.shape[0], b.shape[1]) };
            if k != k2 {
                return err(format!("inner dimensions differ: A gives {k}, B gives {k2}"));
            }
            if let Some(c) = node.input(2) {
                broadcast(&g.ty(c)?.shape, &[m, n])
                    .map_err(|e| OnnxError::msg(format!("C cannot broadcast to [{m}, {n}]: {}", e.message)))?;
            }
            vec![TensorType { dtype: x.dtype, shape: vec![m, n] }]
        }
        "MatMul" => {
            let b = g.ty(&node.inputs[1])?;
            let (mut a_s, mut b_s) = (x.shape.clone(), b.shape.clone());
            let (a1, b1) = (a_s.len() == 1, b_s.len() == 1);
            if a1 {
                a_s.insert(0, 1);
            }
            if b1 {
                b_s.push(1);
            }
            if a_s.len() < 2 || b_s.len() < 2 {
                return err("MatMul operands must have rank >= 1");
            }
            let (m, k) = (a_s[a_s.len() - 2], a_s[a_s.len() - 1]);
            let (k2, n) = (b_s[b_s.len() - 2], b_s[b_s.len() - 1]);
            if k != k2 {
                return err(format!("inner dimensions differ: {:?} x {:?}", x.shape, b.shape));
            }
            let mut shape = broadcast(&a_s[..a_s.len() - 2], &b_s[..b_s.len() - 2])?;
            if !a1 {
                shape.push(m);
            }
            if !b1 {
                shape.push(n);
            }
            vec![TensorType { dtype: x.dtype, shape }]
        }
        "Conv" => {
            float_only()?;
            let w = g.ty(&node.inputs[1])?;
            if x.shape.len() < 3 || w.shape.len() != x.shape.len() {
                return err(format!(
                    "Conv needs N x C x spatial input and matching weights, got {:?} and {:?}",
                    x.shape, w.shape
                ));
            }
            let group = node.int("group", 1);
            if group < 1 {
                return err(format!("group must be at least 1, not {group}"));
            }
            let group = group as usize;
            if x.shape[1] != w.shape[1] * group || w.shape[0] % group != 0 {
                return err(format!(
                    "channels do not match: input {:?}, weights {:?}, group {group}",
                    x.shape, w.shape
                ));
            }
            if let Some(b) = node.input(2) {
                if g.ty(b)?.shape != [w.shape[0]] {
                    return Err(OnnxError::tensor(
                        b,
                        format!("the bias needs one value per output channel ({})", w.shape[0]),
                    ));
                }
            }
            let kernel = w.shape[2..].to_vec();
            let win = window(node, &x.shape[2..], kernel)?;
            let mut shape = vec![x.shape[0], w.shape[0]];
            shape.extend(win.out);
            vec![TensorType { dtype: x.dtype, shape }]
        }
        "MaxPool" | "AveragePool" => {
            // MaxPool also takes int8/uint8 tensors; averaging needs floats.
            if node.op == "AveragePool" || !matches!(x.dtype, DType::I8 | DType::U8) {
                float_only()?;
            }
            let kernel: Vec<usize> = node
                .ints("kernel_shape")
                .ok_or_else(|| OnnxError::msg("needs kernel_shape"))?
                .iter()
                .map(|&k| k as usize)
                .collect();
            let win = window(node, &x.shape[2..], kernel)?;
            let mut shape = x.shape[..2].to_vec();
            shape.extend(win.out);
            let mut out = vec![TensorType { dtype: x.dtype, shape: shape.clone() }];
            if node.outputs.len() > 1 {
                out.push(TensorType { dtype: DType::I64, shape });
            }
            out
        }
        "GlobalAveragePool" | "GlobalMaxPool" => {
            float_only()?;
            let mut shape = x.shape[..2].to_vec();
            shape.extend(std::iter::repeat_n(1, x.shape.len() - 2));
            vec![TensorType { dtype: x.dtype, shape }]
        }
        "Softmax" | "LogSoftmax" => {
            float_only()?;
            axis(node, node.int("axis", if node.opset >= 13 { -1 } else { 1 }), x.shape.len())?;
            vec![x.clone()]
        }
        "LayerNormalization" => {
            float_only()?;
            let a = axis(node, node.int("axis", -1), x.shape.len())?;
            // Mean and InvStdDev keep the leading dims and reduce the rest to 1 (stash type f32).
            let mut stat = x.shape[..a].to_vec();
            stat.extend(std::iter::repeat_n(1, x.shape.len() - a));
            let stat_t = TensorType { dtype: DType::F32, shape: stat };
            let mut out = vec![x.clone()];
            out.extend(node.outputs.iter().skip(1).map(|_| stat_t.clone()));
            out
        }
        "InstanceNormalization" => {
            float_only()?;
            vec![x.clone()]
        }
        "ConvTranspose" => {
            float_only()?;
            let w = g.ty(&node.inputs[1])?;
            let group = node.int("group", 1).max(1) as usize;
            if x.shape.len() < 3 || w.shape.len() != x.shape.len() || w.shape[0] != x.shape[1] {
                return err(format!(
                    "ConvTranspose needs N x C x spatial input and C x M/group x kernel weights, got {:?} and {:?}",
                    x.shape, w.shape
                ));
            }
            let g_ = transpose_geometry(node, &x.shape[2..], &w.shape[2..])?;
            let mut shape = vec![x.shape[0], w.shape[1] * group];
            shape.extend(g_.out);
            vec![TensorType { dtype: x.dtype, shape }]
        }
        "BatchNormalization" => {
            float_only()?;
            // Training mode also gives the running mean and variance, one value per channel.
            let stat = TensorType { dtype: x.dtype, shape: vec![x.shape.get(1).copied().unwrap_or(1)] };
            let mut out = vec![x.clone()];
            out.extend(node.outputs.iter().skip(1).take(2).map(|_| stat.clone()));
            out
        }
        op => return err(format!("no shape rule for {op}")),
    })
}

use crate::emit::LoopBuilder;
use crate::emit::{compute_type, Emitter};
use xcc_ir::{Attribute, Type, ValueId};

impl Emitter {
    fn fbin(&mut self, name: &str, a: ValueId, b: ValueId) -> ValueId {
        let t = self.m.ty(a).clone();
        self.value_op(name, &[a, b], t)
    }

    fn select_f(&mut self, c: ValueId, a: ValueId, b: ValueId) -> ValueId {
        let t = self.m.ty(a).clone();
        self.value_op("arith.select", &[c, a, b], t)
    }

    pub fn emit_nn(&mut self, node: &Node, g: &Graph) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?.clone();
        let out_t = g.ty(&node.outputs[0])?.clone();
        let ct = compute_type(x_t.dtype);
        let x = self.buf(&node.inputs[0])?;
        let out = self.buf(&node.outputs[0])?;
        match node.op.as_str() {
            "MaxPool" | "AveragePool" => self.emit_pool(node, x, out, &x_t, &out_t)?,
            "GlobalAveragePool" | "GlobalMaxPool" => {
                let (nb, ch) = (x_t.shape[0], x_t.shape[1]);
                let s: usize = x_t.shape[2..].iter().product();
                let x3 = self.reshaped(x, &[nb, ch, s]);
                let o2 = self.reshaped(out, &[nb, ch]);
                let avg = node.op == "GlobalAveragePool";
                let d = x_t.dtype;
                self.parallel(&[nb, ch], &mut |e, ivs| {
                    let init = e.const_of(if avg { 0.0 } else { f64::NEG_INFINITY }, d);
                    let r = e.for_acc(0, s, init, |e, q, acc| {
                        let v = e.load(x3, &[ivs[0], ivs[1], q]);
                        e.fbin(if avg { "arith.addf" } else { "arith.maximumf" }, acc, v)
                    });
                    let r = if avg {
                        let n = e.const_of(s as f64, d);
                        e.fbin("arith.divf", r, n)
                    } else {
                        r
                    };
                    e.store(r, o2, &[ivs[0], ivs[1]]);
                });
            }
            "Softmax" | "LogSoftmax" => {
                let rank = x_t.shape.len();
                let a = axis(node, node.int("axis", if node.opset >= 13 { -1 } else { 1 }), rank)?;
                let outer: usize = x_t.shape[..a].iter().product();
                let (dsz, inner) = if node.opset >= 13 {
                    (x_t.shape[a], x_t.shape[a + 1..].iter().product())
                } else {
                    (x_t.shape[a..].iter().product(), 1)
                };
                let x3 = self.reshaped(x, &[outer, dsz, inner]);
                let o3 = self.reshaped(out, &[outer, dsz, inner]);
                let log = node.op == "LogSoftmax";
                let d = x_t.dtype;
                self.parallel(&[outer, inner], &mut |e, ivs| {
                    let (o, i) = (ivs[0], ivs[1]);
                    let ninf = e.const_of(f64::NEG_INFINITY, d);
                    let mx = e.for_acc(0, dsz, ninf, |e, q, acc| {
                        let v = e.load(x3, &[o, q, i]);
                        e.fbin("arith.maximumf", acc, v)
                    });
                    let zero = e.const_of(0.0, d);
                    let sum = e.for_acc(0, dsz, zero, |e, q, acc| {
                        let v = e.load(x3, &[o, q, i]);
                        let s = e.fbin("arith.subf", v, mx);
                        let ex = e.value_op("math.exp", &[s], ct.clone());
                        e.fbin("arith.addf", acc, ex)
                    });
                    let lsum = if log { Some(e.value_op("math.log", &[sum], ct.clone())) } else { None };
                    let inv = if log {
                        None
                    } else {
                        let one = e.const_of(1.0, d);
                        Some(e.fbin("arith.divf", one, sum))
                    };
                    e.for_loop(0, dsz, |e, q| {
                        let v = e.load(x3, &[o, q, i]);
                        let s = e.fbin("arith.subf", v, mx);
                        let r = match (lsum, inv) {
                            (Some(l), _) => e.fbin("arith.subf", s, l),
                            (_, Some(inv)) => {
                                let ex = e.value_op("math.exp", &[s], ct.clone());
                                e.fbin("arith.mulf", ex, inv)
                            }
                            _ => unreachable!(),
                        };
                        e.store(r, o3, &[o, q, i]);
                    });
                });
            }
            "LayerNormalization" => {
                let rank = x_t.shape.len();
                let a = axis(node, node.int("axis", -1), rank)?;
                let outer: usize = x_t.shape[..a].iter().product();
                let dsz: usize = x_t.shape[a..].iter().product();
                let eps = node.float("epsilon", 1e-5) as f64;
                let x2 = self.reshaped(x, &[outer, dsz]);
                let o2 = self.reshaped(out, &[outer, dsz]);
                let scale = self.norm_param(node, g, 1, dsz)?;
                let bias = match node.input(2) {
                    Some(_) => Some(self.norm_param(node, g, 2, dsz)?),
                    None => None,
                };
                let d = x_t.dtype;
                let stats: Vec<Option<ValueId>> = (1..3)
                    .map(|i| match node.outputs.get(i).filter(|o| !o.is_empty()) {
                        Some(o) => self.buf(o).map(|b| Some(self.flat(b))),
                        None => Ok(None),
                    })
                    .collect::<OResult<_>>()?;
                self.parallel(&[outer], &mut |e, ivs| {
                    let o = ivs[0];
                    let zero = e.const_of(0.0, d);
                    let sum = e.for_acc(0, dsz, zero, |e, q, acc| {
                        let v = e.load(x2, &[o, q]);
                        e.fbin("arith.addf", acc, v)
                    });
                    let n = e.const_of(dsz as f64, d);
                    let mean = e.fbin("arith.divf", sum, n);
                    let sq = e.for_acc(0, dsz, zero, |e, q, acc| {
                        let v = e.load(x2, &[o, q]);
                        let c = e.fbin("arith.subf", v, mean);
                        e.fmuladd(c, c, acc)
                    });
                    let var = e.fbin("arith.divf", sq, n);
                    let epsv = e.const_of(eps, d);
                    let ve = e.fbin("arith.addf", var, epsv);
                    let sd = e.value_op("math.sqrt", &[ve], ct.clone());
                    let one = e.const_of(1.0, d);
                    let inv = e.fbin("arith.divf", one, sd);
                    for (stat, v) in stats.iter().zip([mean, inv]) {
                        if let Some(buf) = stat {
                            let v = e.convert(v, d, DType::F32);
                            e.store(v, *buf, &[o]);
                        }
                    }
                    e.for_loop(0, dsz, |e, q| {
                        let v = e.load(x2, &[o, q]);
                        let c = e.fbin("arith.subf", v, mean);
                        let nrm = e.fbin("arith.mulf", c, inv);
                        let s = e.load(scale, &[q]);
                        let mut r = e.fbin("arith.mulf", nrm, s);
                        if let Some(b) = bias {
                            let bv = e.load(b, &[q]);
                            r = e.fbin("arith.addf", r, bv);
                        }
                        e.store(r, o2, &[o, q]);
                    });
                });
            }
            "InstanceNormalization" => {
                let (nb, ch) = (x_t.shape[0], x_t.shape[1]);
                let s: usize = x_t.shape[2..].iter().product();
                let x3 = self.reshaped(x, &[nb, ch, s]);
                let o3 = self.reshaped(out, &[nb, ch, s]);
                let eps = node.float("epsilon", 1e-5) as f64;
                let scale = self.buf(&node.inputs[1])?;
                let bias = self.buf(&node.inputs[2])?;
                let d = x_t.dtype;
                self.parallel(&[nb, ch], &mut |e, ivs| {
                    let (n, c) = (ivs[0], ivs[1]);
                    let zero = e.const_of(0.0, d);
                    let sum = e.for_acc(0, s, zero, |e, q, acc| {
                        let v = e.load(x3, &[n, c, q]);
                        e.fbin("arith.addf", acc, v)
                    });
                    let cnt = e.const_of(s as f64, d);
                    let mean = e.fbin("arith.divf", sum, cnt);
                    let sq = e.for_acc(0, s, zero, |e, q, acc| {
                        let v = e.load(x3, &[n, c, q]);
                        let dv = e.fbin("arith.subf", v, mean);
                        e.fmuladd(dv, dv, acc)
                    });
                    let var = e.fbin("arith.divf", sq, cnt);
                    let epsv = e.const_of(eps, d);
                    let ve = e.fbin("arith.addf", var, epsv);
                    let sd = e.value_op("math.sqrt", &[ve], ct.clone());
                    let sc = e.load(scale, &[c]);
                    let k = e.fbin("arith.divf", sc, sd);
                    let bi = e.load(bias, &[c]);
                    e.for_loop(0, s, |e, q| {
                        let v = e.load(x3, &[n, c, q]);
                        let dv = e.fbin("arith.subf", v, mean);
                        let r = e.fmuladd(dv, k, bi);
                        e.store(r, o3, &[n, c, q]);
                    });
                });
            }
            "ConvTranspose" => self.emit_conv_transpose(node, g, x, out, &x_t, &out_t)?,
            "BatchNormalization" => {
                let (nb, ch) = (x_t.shape[0], x_t.shape.get(1).copied().unwrap_or(1));
                let s: usize = x_t.shape.iter().skip(2).product();
                let x3 = self.reshaped(x, &[nb, ch, s]);
                let o3 = self.reshaped(out, &[nb, ch, s]);
                let eps = node.float("epsilon", 1e-5) as f64;
                let p: Vec<ValueId> = (1..5).map(|i| self.buf(&node.inputs[i])).collect::<OResult<_>>()?;
                let d = x_t.dtype;
                if node.int("training_mode", 0) == 1 {
                    // Batch statistics per channel (population variance), the normalized output,
                    // and running stats: input * momentum + batch * (1 - momentum).
                    let momentum = node.float("momentum", 0.9) as f64;
                    let running: Vec<Option<ValueId>> = (1..3)
                        .map(|i| match node.outputs.get(i).filter(|o| !o.is_empty()) {
                            Some(o) => self.buf(o).map(Some),
                            None => Ok(None),
                        })
                        .collect::<OResult<_>>()?;
                    let count = (nb * s) as f64;
                    self.parallel(&[ch], &mut |e, ivs| {
                        let c = ivs[0];
                        let zero = e.const_of(0.0, d);
                        let sum = e.for_acc(0, nb, zero, |e, n, acc| {
                            e.for_acc(0, s, acc, |e, q, acc| {
                                let v = e.load(x3, &[n, c, q]);
                                e.fbin("arith.addf", acc, v)
                            })
                        });
                        let cnt = e.const_of(count, d);
                        let mean = e.fbin("arith.divf", sum, cnt);
                        let sq = e.for_acc(0, nb, zero, |e, n, acc| {
                            e.for_acc(0, s, acc, |e, q, acc| {
                                let v = e.load(x3, &[n, c, q]);
                                let dv = e.fbin("arith.subf", v, mean);
                                e.fmuladd(dv, dv, acc)
                            })
                        });
                        let var = e.fbin("arith.divf", sq, cnt);
                        let epsv = e.const_of(eps, d);
                        let ve = e.fbin("arith.addf", var, epsv);
                        let sd = e.value_op("math.sqrt", &[ve], ct.clone());
                        let sc = e.load(p[0], &[c]);
                        let k = e.fbin("arith.divf", sc, sd);
                        let bi = e.load(p[1], &[c]);
                        e.for_loop(0, nb, |e, n| {
                            e.for_loop(0, s, |e, q| {
                                let v = e.load(x3, &[n, c, q]);
                                let dv = e.fbin("arith.subf", v, mean);
                                let r = e.fmuladd(dv, k, bi);
                                e.store(r, o3, &[n, c, q]);
                            });
                        });
                        for (slot, (input, batch)) in running.iter().zip([(p[2], mean), (p[3], var)]) {
                            if let Some(buf) = slot {
                                let old = e.load(input, &[c]);
                                let m = e.const_of(momentum, d);
                                let m1 = e.const_of(1.0 - momentum, d);
                                let a = e.fbin("arith.mulf", old, m);
                                let r = e.fmuladd(batch, m1, a);
                                e.store(r, *buf, &[c]);
                            }
                        }
                    });
                    return Ok(());
                }
                self.parallel(&[nb, ch], &mut |e, ivs| {
                    let c = ivs[1];
                    let (sc, bi, mean, var) =
                        (e.load(p[0], &[c]), e.load(p[1], &[c]), e.load(p[2], &[c]), e.load(p[3], &[c]));
                    let epsv = e.const_of(eps, d);
                    let ve = e.fbin("arith.addf", var, epsv);
                    let sd = e.value_op("math.sqrt", &[ve], ct.clone());
                    let k = e.fbin("arith.divf", sc, sd);
                    e.for_loop(0, s, |e, q| {
                        let v = e.load(x3, &[ivs[0], c, q]);
                        let cdev = e.fbin("arith.subf", v, mean);
                        let r = e.fmuladd(cdev, k, bi);
                        e.store(r, o3, &[ivs[0], c, q]);
                    });
                });
            }
            op => return err(format!("no code generation for {op}")),
        }
        Ok(())
    }

    /// ConvTranspose as a gather: out[n, oc, o] = bias + sum over ic in the group and kernel
    /// taps k of x[n, ic, i] * W[ic, oc', k], where o = i * stride + k * dilation - pad, i.e.
    /// i = (o + pad - k * dilation) / stride when that divides exactly and lands in the input.
    fn emit_conv_transpose(
        &mut self,
        node: &Node,
        g: &Graph,
        x: ValueId,
        out: ValueId,
        x_t: &TensorType,
        out_t: &TensorType,
    ) -> OResult<()> {
        let w = self.buf(&node.inputs[1])?;
        let w_t = g.ty(&node.inputs[1])?.clone();
        let bias = match node.input(2) {
            Some(b) => Some(self.buf(b)?),
            None => None,
        };
        let geo = transpose_geometry(node, &x_t.shape[2..], &w_t.shape[2..])?;
        let group = node.int("group", 1).max(1) as usize;
        let icg = x_t.shape[1] / group;
        let ocg = w_t.shape[1];
        let kernel = w_t.shape[2..].to_vec();
        let in_sp = x_t.shape[2..].to_vec();
        let ns = kernel.len();
        let d = x_t.dtype;
        self.parallel(&out_t.shape, &mut |e, ivs| {
            let (n, oc) = (ivs[0], ivs[1]);
            let osp = ivs[2..].to_vec();
            let ocg_v = e.idx(ocg as i64);
            let gi = e.value_op("arith.divui", &[oc, ocg_v], Type::Index);
            let ocl = e.value_op("arith.remui", &[oc, ocg_v], Type::Index);
            let init = match bias {
                Some(b) => e.load(b, &[oc]),
                None => e.const_of(0.0, d),
            };
            let acc = e.for_acc(0, icg, init, |e, ic, acc| {
                let icg_v = e.idx(icg as i64);
                let ic_abs = e.value_op("arith.muli", &[gi, icg_v], Type::Index);
                let ic_abs = e.value_op("arith.addi", &[ic_abs, ic], Type::Index);
                let mut tap = |e: &mut Emitter, kidx: &[ValueId], st: &[ValueId]| -> Vec<ValueId> {
                    let mut ok: Option<ValueId> = None;
                    let mut pos = Vec::new();
                    for q in 0..ns {
                        // t = o + pad - k*dil; valid when t >= 0, t % stride == 0 and t / stride < in.
                        let t = e.affine(&[(osp[q], 1), (kidx[q], -(geo.dilations[q] as i64))], geo.pad_begin[q]);
                        let zero = e.idx(0);
                        let stv = e.idx(geo.strides[q] as i64);
                        let ge =
                            e.value_attr("arith.cmpi", &[t, zero], Type::i1(), vec![("predicate", Attribute::i64(5))]);
                        let rem = e.value_op("arith.remsi", &[t, stv], Type::Index);
                        let exact = e.value_attr(
                            "arith.cmpi",
                            &[rem, zero],
                            Type::i1(),
                            vec![("predicate", Attribute::i64(0))],
                        );
                        let b = e.value_op("arith.andi", &[ge, exact], Type::i1());
                        ok = Some(match ok {
                            None => b,
                            Some(a) => e.value_op("arith.andi", &[a, b], Type::i1()),
                        });
                        let i = e.value_op("arith.divsi", &[t, stv], Type::Index);
                        pos.push(e.clamp_tap(i, in_sp[q], &mut ok));
                    }
                    let xv = e.load(x, &[&[n, ic_abs][..], &pos].concat());
                    let wv = e.load(w, &[&[ic_abs, ocl][..], kidx].concat());
                    let z = e.const_of(0.0, d);
                    let xv = e.select_f(ok.expect("a spatial dim"), xv, z);
                    vec![e.fmuladd(xv, wv, st[0])]
                };
                e.nest_accs(&kernel, &[acc], &mut tap)[0]
            });
            e.store(acc, out, ivs);
        });
        Ok(())
    }

    /// LayerNormalization's scale/bias as a 1-D view of `n` elements.
    fn norm_param(&mut self, node: &Node, g: &Graph, i: usize, n: usize) -> OResult<ValueId> {
        let name = &node.inputs[i];
        let t = g.ty(name)?;
        if t.numel() != n {
            return err(format!(
                "'{name}' has {} elements, expected {n} (broadcast scale/bias is not supported)",
                t.numel()
            ));
        }
        let b = self.buf(name)?;
        Ok(if t.shape.len() == 1 { b } else { self.reshaped(b, &[n]) })
    }

    fn emit_pool(
        &mut self,
        node: &Node,
        x: ValueId,
        out: ValueId,
        x_t: &TensorType,
        out_t: &TensorType,
    ) -> OResult<()> {
        let kernel: Vec<usize> = node.ints("kernel_shape").unwrap_or_default().iter().map(|&k| k as usize).collect();
        let win = window(node, &x_t.shape[2..], kernel.clone())?;
        let is_max = node.op == "MaxPool";
        let include_pad = node.int("count_include_pad", 0) == 1;
        let d = x_t.dtype;
        let ns = kernel.len();
        let in_spatial = x_t.shape[2..].to_vec();
        // MaxPool's Indices: the flat position of the max in the input (row-major, or with
        // storage_order 1 the spatial dims column-major); the first max wins ties.
        let indices = match node.outputs.get(1).filter(|o| !o.is_empty() && is_max) {
            Some(o) => Some(self.buf(o)?),
            None => None,
        };
        let column_major = node.int("storage_order", 0) == 1;
        let channels = x_t.shape[1];
        self.parallel(&out_t.shape, &mut |e, ivs| {
            let lowest = match d {
                DType::U8 => 0.0,
                DType::I8 => i8::MIN as f64,
                _ => f64::NEG_INFINITY,
            };
            let init = e.const_of(if is_max { lowest } else { 0.0 }, d);
            let init_idx = e.const_int(0, Type::i64());
            let ivs_sp = ivs[2..].to_vec();
            // Taps outside the input are skipped by a select; the divisor comes from window_count.
            let mut tap = |e: &mut Emitter, k: &[ValueId], st: &[ValueId]| -> Vec<ValueId> {
                let (v, vi) = (st[0], st[1]);
                let mut ok: Option<ValueId> = None;
                let mut pos = Vec::new();
                for q in 0..ns {
                    let p = e.affine(
                        &[(ivs_sp[q], win.strides[q] as i64), (k[q], win.dilations[q] as i64)],
                        -(win.pads[q] as i64),
                    );
                    pos.push(e.clamp_tap(p, in_spatial[q], &mut ok));
                }
                let ok = ok.expect("a spatial dim");
                let xv = e.load(x, &[&ivs[..2], &pos[..]].concat());
                if !is_max {
                    let nv = e.fbin("arith.addf", v, xv);
                    return vec![e.select_f(ok, nv, v), vi];
                }
                let (cmp, pred) = match d {
                    DType::U8 => ("arith.cmpi", 8),
                    DType::I8 => ("arith.cmpi", 4),
                    _ => ("arith.cmpf", 2),
                };
                // Strictly greater: the first maximum keeps its index.
                let gt = e.value_attr(cmp, &[xv, v], Type::i1(), vec![("predicate", Attribute::i64(pred))]);
                let take = e.value_op("arith.andi", &[ok, gt], Type::i1());
                let nv = e.select_f(take, xv, v);
                let ni = if indices.is_some() {
                    let mut terms = vec![
                        (ivs[0], (channels * in_spatial.iter().product::<usize>()) as i64),
                        (ivs[1], in_spatial.iter().product::<usize>() as i64),
                    ];
                    let strides = if column_major {
                        let mut s = vec![1usize; ns];
                        for q in 1..ns {
                            s[q] = s[q - 1] * in_spatial[q - 1];
                        }
                        s
                    } else {
                        super::strides_of(&in_spatial)
                    };
                    terms.extend(pos.iter().zip(&strides).map(|(&p, &s)| (p, s as i64)));
                    let flat = e.affine(&terms, 0);
                    let flat = e.value_op("arith.index_cast", &[flat], Type::i64());
                    e.value_op("arith.select", &[take, flat, vi], Type::i64())
                } else {
                    vi
                };
                vec![nv, ni]
            };
            let st = e.nest_accs(&kernel, &[init, init_idx], &mut tap);
            let v = st[0];
            if let Some(ib) = indices {
                e.store(st[1], ib, ivs);
            }
            let r = if is_max {
                v
            } else {
                // The divisor counts the taps inside the input, or inside input and padding with
                // count_include_pad.
                let mut cnt = e.const_int(1, Type::i64());
                for q in 0..ns {
                    let c = if include_pad {
                        e.window_count(
                            ivs_sp[q],
                            &win,
                            q,
                            -(win.pads[q] as i64),
                            in_spatial[q] as i64 + win.pads[q + ns] as i64,
                        )
                    } else {
                        e.window_count(ivs_sp[q], &win, q, 0, in_spatial[q] as i64)
                    };
                    cnt = e.value_op("arith.muli", &[cnt, c], Type::i64());
                }
                let cf = e.value_op("arith.sitofp", &[cnt], compute_type(d));
                e.fbin("arith.divf", v, cf)
            };
            e.store(r, out, ivs);
        });
        Ok(())
    }

    /// How many of the window's taps along dim `q` at output position `o` fall in `[lo, hi)`.
    fn window_count(&mut self, o: ValueId, win: &Window, q: usize, lo: i64, hi: i64) -> ValueId {
        let kcount = win.kernel[q];
        let zero = self.const_int(0, Type::i64());
        let oi = self.value_op("arith.index_cast", &[o], Type::i64());
        let mut cnt = zero;
        for k in 0..kcount {
            // p = o*stride + k*dil - pad_begin, counted when lo <= p < hi.
            let s = self.const_int(win.strides[q] as i128, Type::i64());
            let base = self.value_op("arith.muli", &[oi, s], Type::i64());
            let off = self.const_int((k * win.dilations[q]) as i128 - win.pads[q] as i128, Type::i64());
            let p = self.value_op("arith.addi", &[base, off], Type::i64());
            let lov = self.const_int(lo as i128, Type::i64());
            let hiv = self.const_int(hi as i128, Type::i64());
            let ge = self.value_attr("arith.cmpi", &[p, lov], Type::i1(), vec![("predicate", Attribute::i64(5))]);
            let lt = self.value_attr("arith.cmpi", &[p, hiv], Type::i1(), vec![("predicate", Attribute::i64(2))]);
            let ok = self.value_op("arith.andi", &[ge, lt], Type::i1());
            let one = self.value_op("arith.extui", &[ok], Type::i64());
            cnt = self.value_op("arith.addi", &[cnt, one], Type::i64());
        }
        cnt
    }
}
