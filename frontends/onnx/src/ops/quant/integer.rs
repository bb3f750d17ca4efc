//! The integer products: MatMulInteger and ConvInteger (`(a - a_zero) * (b - b_zero)` summed
//! in int32), and QLinearMatMul and QLinearConv, which requantize that sum (plus QLinearConv's
//! int32 bias) with `a_scale * b_scale / y_scale` and the output's zero point.

use super::round_to_integer;
use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};
use crate::ops::onnx_op::OnnxOp;

pub struct IntegerProduct;
pub struct QLinearProduct;
/// MatMulInteger: without zero points, over bytes, an integer `kernel.matmul` (its micro-kernel
/// widens the bytes and sums pairs of products in 32 bits); with zero points, that product
/// corrected by the operands' sums ([`IntegerProduct`]).
pub struct MatMulInteger;

/// xcc's own `MatMulIntegerQuads(A, B_quads)`: `A [M, K]` (bytes) times a B of `columns`
/// columns already laid out in quads of k (`[ceil(N / 16), ceil(K / 4), 16, 4]`, as
/// `kernel-pack-weights` lays out constant weights): an integer convolution's gathered windows,
/// arranged so by the graph, against its constant weights as A. Written by [`conv_as_matmul`].
pub struct MatMulIntegerQuads;

/// xcc's own `ConvIntegerPlanes(X_planes, W_taps)`: an integer convolution over an input the
/// graph has padded and laid out in channel quads of flattened planes, `[N, CQ, L, 4]`, with
/// weights `[M, T, K]` per tap (`tap_offsets`, `tap_quads`): `kernel.conv_planes`, whose doc
/// gives the sums. Written by [`conv_over_planes`]; the output is `[N, M, positions]`.
pub struct ConvIntegerPlanes;

impl OnnxOp for ConvIntegerPlanes {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let (x, w) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?);
        let q = node.int("positions", 0);
        let (&[n, _, _, 4], &[m, t, _]) = (x.shape.as_slice(), w.shape.as_slice()) else {
            return err(format!("X must be [N, CQ, L, 4] and W [M, T, K], not {} and {}", x.describe(), w.describe()));
        };
        let taps = |k: &str| node.ints(k).map(|v| v.len());
        if q <= 0 || x.is_dynamic() || w.is_dynamic() || taps("tap_offsets") != Some(t) || taps("tap_quads") != Some(t)
        {
            return err("ConvIntegerPlanes needs static operands, positions and one offset and quad per tap");
        }
        Ok(vec![TensorType::new(DType::I32, vec![n, m, q as usize])])
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let (x, w, out) = (e.buf(&node.inputs[0])?, e.buf(&node.inputs[1])?, e.buf(&node.outputs[0])?);
        let list = |k: &str| xcc_ir::Attribute::DenseArray {
            elem: xcc_ir::Type::i64(),
            values: node.ints(k).unwrap_or_default().into_iter().map(i128::from).collect(),
        };
        let mut spec = xcc_ir::OpSpec::new("kernel.conv_planes", xcc_ir::Span::UNKNOWN)
            .operands([x, w, out])
            .attr("tap_offsets", list("tap_offsets"))
            .attr("tap_quads", list("tap_quads"));
        for (i, key) in [(0, "input_unsigned"), (1, "weights_unsigned")] {
            if g.ty(&node.inputs[i])?.dtype == DType::U8 {
                spec = spec.attr(key, xcc_ir::Attribute::Unit);
            }
        }
        e.op(spec);
        Ok(())
    }
}

impl OnnxOp for MatMulIntegerQuads {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let (a, b) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?);
        let n = node.int("columns", 0) as usize;
        let [m, k] = <[usize; 2]>::try_from(a.shape.as_slice()).map_err(|_| OnnxError::msg("A must be [M, K]"))?;
        let want = [n.div_ceil(16), k.div_ceil(4), 16, 4];
        if b.shape != want || a.is_dynamic() || b.is_dynamic() {
            return err(format!("B must be {want:?} for A {} and {n} columns, not {}", a.describe(), b.describe()));
        }
        Ok(vec![TensorType::new(DType::I32, vec![m, n])])
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let mut attrs = vec![("b_quads", xcc_ir::Attribute::i64(16))];
        for (i, key) in [(0, "a_unsigned"), (1, "b_unsigned")] {
            if g.ty(&node.inputs[i])?.dtype == DType::U8 {
                attrs.push((key, xcc_ir::Attribute::Unit));
            }
        }
        let (a, b, out) = (e.buf(&node.inputs[0])?, e.buf(&node.inputs[1])?, e.buf(&node.outputs[0])?);
        let ops = xcc_ir::dialects::kernel::EpilogueOperands { a, b, bias: None, residual: None, output: out };
        let spec =
            attrs.into_iter().fold(ops.into_spec("kernel.matmul", xcc_ir::Span::UNKNOWN), |s, (k, v)| s.attr(k, v));
        e.op(spec);
        Ok(())
    }
}

impl OnnxOp for MatMulInteger {
    fn expand(&self, node: &Node, g: &Graph) -> Option<OResult<Vec<Node>>> {
        if node.input(2).is_none() && node.input(3).is_none() {
            return None;
        }
        let mut x = Expansion::new(node);
        Some(IntegerProduct.write(node, g, &mut x).map(|()| x.finish()))
    }

    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        for name in &node.inputs[..2] {
            let t = g.ty(name)?;
            if !matches!(t.dtype, DType::I8 | DType::U8) {
                return err(format!("'{name}' must be int8 or uint8, not {}", t.dtype.name()));
            }
        }
        let matmul = crate::ops::registry().get("MatMul").expect("MatMul is registered");
        let mut out = matmul.infer(node, g)?;
        out[0].dtype = DType::I32;
        Ok(out)
    }

    /// Two constant matrices: their exact product.
    fn fold(&self, _: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        let (a, b) = (inputs.first()?.as_ref()?, inputs.get(1)?.as_ref()?);
        let [m, k] = <[usize; 2]>::try_from(a.ty.shape.as_slice()).ok()?;
        let [k2, n] = <[usize; 2]>::try_from(b.ty.shape.as_slice()).ok()?;
        if k != k2 || inputs.len() > 2 {
            return None;
        }
        let (av, bv) = (a.to_f64(), b.to_f64());
        let sums: Vec<f64> =
            (0..m * n).map(|ij| (0..k).map(|kk| av[ij / n * k + kk] * bv[kk * n + ij % n]).sum()).collect();
        Some(Ok(vec![Tensor::from_f64(DType::I32, vec![m, n], &sums)]))
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let mut attrs = Vec::new();
        for (i, key) in [(0, "a_unsigned"), (1, "b_unsigned")] {
            if g.ty(&node.inputs[i])?.dtype == DType::U8 {
                attrs.push((key, xcc_ir::Attribute::Unit));
            }
        }
        e.emit_matmul_with(node, g, &attrs)
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }
}

/// The conv attributes an integer convolution passes on.
pub(crate) const CONV_ATTRIBUTES: &[&str] = &["auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"];

/// The operands of one product: the inputs and their zero points, by position.
struct Operands<'a> {
    conv: bool,
    lhs: &'a str,
    lhs_zero: Option<&'a str>,
    rhs: &'a str,
    rhs_zero: Option<&'a str>,
}

impl Expanded for IntegerProduct {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let operands = Operands {
            conv: node.op == "ConvInteger",
            lhs: &node.inputs[0],
            lhs_zero: node.input(2),
            rhs: &node.inputs[1],
            rhs_zero: node.input(3),
        };
        let sum = accumulate(node, g, x, &operands)?;
        x.output(&sum, Some(&node.outputs[0]));
        Ok(())
    }
}

impl Expanded for QLinearProduct {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let operands = Operands {
            conv: node.op == "QLinearConv",
            lhs: &node.inputs[0],
            lhs_zero: node.input(2),
            rhs: &node.inputs[3],
            rhs_zero: node.input(5),
        };
        let out_rank = g.ty(operands.lhs)?.shape.len().max(g.ty(operands.rhs)?.shape.len());
        let mut sum = accumulate(node, g, x, &operands)?;
        if let Some(bias) = node.input(8).filter(|_| operands.conv) {
            let b = x.cast(bias, g.ty(bias)?.dtype, DType::I32);
            let b = per_channel(x, &b, g.ty(bias)?, out_rank);
            sum = x.op("Add", &[&sum, &b], &[]);
        }
        let c = DType::F32;
        let scale = |x: &mut Expansion, i: usize| -> OResult<String> {
            let t = g.ty(&node.inputs[i])?;
            let s = x.cast(&node.inputs[i], t.dtype, c);
            Ok(if operands.conv && i == 4 { per_channel(x, &s, t, out_rank) } else { s })
        };
        let (a_scale, b_scale, y_scale) = (scale(x, 1)?, scale(x, 4)?, scale(x, 6)?);
        let ab = x.op("Mul", &[&a_scale, &b_scale], &[]);
        let multiplier = x.op("Div", &[&ab, &y_scale], &[]);
        let wide = x.cast(&sum, DType::I32, c);
        let scaled = x.op("Mul", &[&wide, &multiplier], &[]);
        let (zero, to) = match node.input(7) {
            Some(z) => (Some(x.cast(z, g.ty(z)?.dtype, c)), g.ty(z)?.dtype),
            None => (None, g.ty(operands.lhs)?.dtype),
        };
        let y = round_to_integer(x, &scaled, zero.as_deref(), c, to)?;
        x.output(&y, Some(&node.outputs[0]));
        Ok(())
    }
}

/// `(lhs - lhs_zero) * (rhs - rhs_zero)` (MatMul or Conv) in int32.
fn accumulate(node: &Node, g: &Graph, x: &mut Expansion, o: &Operands) -> OResult<String> {
    let (lt, rt) = (g.ty(o.lhs)?, g.ty(o.rhs)?);
    for (name, t) in [(o.lhs, lt), (o.rhs, rt)] {
        if !matches!(t.dtype, DType::I8 | DType::U8) {
            return err(format!("'{name}' must be int8 or uint8, not {}", t.dtype.name()));
        }
    }
    if o.conv {
        // [batch, channels, spatial...] and [maps, channels / group, kernel...].
        for (name, what) in [(o.lhs, "x"), (o.rhs, "w")] {
            if g.ty(name)?.shape.len() < 3 {
                return err(format!(
                    "ConvInteger's {what} '{name}' must have rank 3 or more, not {}",
                    g.ty(name)?.describe()
                ));
            }
        }
        if let Some(sums) = conv_as_matmul(node, g, x, o)? {
            return Ok(sums);
        }
        return conv_in_floats(node, g, x, o);
    }
    Ok(integer_matmul(g, x, o))
}

/// `(lhs - lhs_zero) * (rhs - rhs_zero)` by the float convolution kernels. Each product of two
/// zero-shifted bytes is at most 255 * 255 in magnitude, so a sum over `K` taps (a depthwise
/// 3x3's 9) whose bound stays below 2^24 is exact in f32, every partial sum included, in any
/// order; others go in f64, exact for any int32 sum. The bytes are shifted in that type (exact
/// too): where they were requantized in floats just before, the round trip through the byte then
/// folds away in the producer's stores.
fn conv_in_floats(node: &Node, g: &Graph, x: &mut Expansion, o: &Operands) -> OResult<String> {
    let rt = g.ty(o.rhs)?;
    let taps: usize = rt.shape[1..].iter().product();
    let c = if taps * 255 * 255 < 1 << 24 { DType::F32 } else { DType::F64 };
    let shifted = |x: &mut Expansion, v: &str, zero: Option<&str>, per_channel: bool| -> OResult<String> {
        let real = x.cast(v, g.ty(v)?.dtype, c);
        let Some(z) = zero else { return Ok(real) };
        let zt = g.ty(z)?;
        let z = x.cast(z, zt.dtype, c);
        // One zero point per output channel, the weights' first dim.
        let z = if per_channel && zt.numel() > 1 { per_channel_of_weights(x, &z, rt.shape.len()) } else { z };
        Ok(x.op("Sub", &[&real, &z], &[]))
    };
    let l = shifted(x, o.lhs, o.lhs_zero, false)?;
    let r = shifted(x, o.rhs, o.rhs_zero, true)?;
    let attrs: Vec<(&str, Attr)> =
        CONV_ATTRIBUTES.iter().filter_map(|&k| node.attrs.get(k).map(|v| (k, v.clone()))).collect();
    let sum = x.op("Conv", &[&l, &r], &attrs);
    Ok(x.cast(&sum, c, DType::I32))
}

/// `(lhs - lhs_zero) x (rhs - rhs_zero)` as the bytes' own product (MatMulInteger without zero
/// points) corrected by sums: `- za * colsum(B) - zb * rowsum(A) + K * za * zb`, each term only
/// where its zero points are not constant zeros (the usual symmetric weights need none of
/// B's). A zero point of A may be one per row (`[M]`), of B one per column (`[N]`).
fn integer_matmul<'a>(g: &Graph, x: &mut Expansion, o: &Operands<'a>) -> String {
    let mut product = x.op("MatMulInteger", &[o.lhs, o.rhs], &[]);
    let nonzero = |z: Option<&'a str>| z.filter(|z| !all_zero(g, z));
    let widened = |x: &mut Expansion, v: &str| {
        let t = g.types[v].dtype;
        x.cast(v, t, DType::I32)
    };
    let (za, zb) = (nonzero(o.lhs_zero), nonzero(o.rhs_zero));
    let za = za.map(|z| {
        let z32 = widened(x, z);
        if g.types[z].numel() > 1 {
            x.unsqueeze(&z32, &[-1])
        } else {
            z32
        }
    });
    let zb = zb.map(|z| widened(x, z));
    if let Some(za) = &za {
        let columns = match g.consts.get(o.rhs) {
            // Constant weights (the usual case): their column sums, once, here.
            Some(b) => x.constant(column_sums(b)),
            None => {
                let b = widened(x, o.rhs);
                let axis = x.ints(&[-2]);
                x.op("ReduceSum", &[&b, &axis], &[("keepdims", Attr::Int(1))])
            }
        };
        let term = x.op("Mul", &[za, &columns], &[]);
        product = x.op("Sub", &[&product, &term], &[]);
    }
    if let Some(zb) = &zb {
        let a = widened(x, o.lhs);
        let axis = x.ints(&[-1]);
        let rows = x.op("ReduceSum", &[&a, &axis], &[("keepdims", Attr::Int(1))]);
        let term = x.op("Mul", &[zb, &rows], &[]);
        product = x.op("Sub", &[&product, &term], &[]);
    }
    if let (Some(za), Some(zb)) = (&za, &zb) {
        let k = *g.types[o.lhs].shape.last().unwrap_or(&0) as f64;
        let k = x.scalar(k, DType::I32);
        let both = x.op("Mul", &[za, zb], &[]);
        let term = x.op("Mul", &[&both, &k], &[]);
        product = x.op("Add", &[&product, &term], &[]);
    }
    product
}

/// A 2-D convolution of one group with constant weights as an integer matmul of its input
/// windows: the input padded with its zero point (a padded tap then adds nothing), each tap's
/// strided window cut (`[N, C, oH, oW]`), the taps gathered into rows of `C * kH * kW` bytes per
/// output point (`[N * oH * oW, C * kH * kW]`, a 1x1 unstrided one is the input transposed), times
/// the weights `[C * kH * kW, M]` (transposed at compile time), the sums back to `[N, M, oH, oW]`.
/// `None` where it does not apply (the convolution in float then).
fn conv_as_matmul(node: &Node, g: &Graph, x: &mut Expansion, o: &Operands) -> OResult<Option<String>> {
    let (xt, w) = (g.ty(o.lhs)?, g.consts.get(o.rhs));
    let Some(w) = w.filter(|w| w.ty.shape.len() == 4) else { return Ok(None) };
    // One zero point for the whole input (DynamicQuantizeLinear's is computed by the run).
    let constant_zero = o.lhs_zero.is_none_or(|z| g.types.get(z).is_some_and(|t| t.numel() == 1 && !t.is_dynamic()));
    let auto_pad = node.string("auto_pad").unwrap_or("NOTSET");
    if xt.shape.len() != 4
        || xt.is_dynamic()
        || node.int("group", 1) != 1
        || !constant_zero
        || !matches!(auto_pad, "NOTSET" | "VALID")
    {
        return Ok(None);
    }
    let two = |k: &str, d: i64| node.ints(k).filter(|v| v.len() == 2).unwrap_or(vec![d, d]);
    let (strides, dilations) = (two("strides", 1), two("dilations", 1));
    let pads = node.ints("pads").filter(|p| p.len() == 4 && auto_pad == "NOTSET").unwrap_or(vec![0; 4]);
    let [n, c, h, wd] = [xt.shape[0], xt.shape[1], xt.shape[2], xt.shape[3]].map(|d| d as i64);
    let [m, wc, kh, kw] = [w.ty.shape[0], w.ty.shape[1], w.ty.shape[2], w.ty.shape[3]].map(|d| d as i64);
    let out = |size: i64, k: i64, axis: usize| {
        (size + pads[axis] + pads[axis + 2] - ((k - 1) * dilations[axis] + 1)) / strides[axis] + 1
    };
    let (oh, ow) = (out(h, kh, 0), out(wd, kw, 1));
    if wc != c || oh <= 0 || ow <= 0 || strides.iter().chain(&dilations).any(|&v| v <= 0) || pads.iter().any(|&p| p < 0)
    {
        return Ok(None);
    }
    let taps = kh * kw;
    let geometry = Window { kernel: (kh, kw), pads: &pads, strides: &strides, dilations: &dilations, out: (oh, ow) };
    if let Some(sums) = conv_over_planes(g, x, o, &geometry, [n, c, h, wd])? {
        return Ok(Some(sums));
    }
    let gathered = taps_of(x, o, &geometry);
    if n == 1 {
        // [1, C, T, oH, oW], or the input itself: [C * T, oH * oW].
        let cols = x.reshape(gathered.as_deref().unwrap_or(o.lhs), &[c * taps, oh * ow]);
        return Ok(Some(weights_first(g, x, o, (m, c * taps, oh, ow), &cols)?));
    }
    let rows = match gathered {
        None => {
            let moved = x.transpose(o.lhs, &[0, 2, 3, 1]);
            x.reshape(&moved, &[n * h * wd, c])
        }
        Some(gathered) => {
            let moved = x.transpose(&gathered, &[0, 3, 4, 1, 2]);
            x.reshape(&moved, &[n * oh * ow, c * taps])
        }
    };
    let flat = x.reshape(o.rhs, &[m, c * taps]);
    let weights = x.transpose(&flat, &[1, 0]);
    let mut inputs = vec![rows.as_str(), weights.as_str(), o.lhs_zero.unwrap_or(""), o.rhs_zero.unwrap_or("")];
    while inputs.last().is_some_and(|s| s.is_empty()) {
        inputs.pop();
    }
    let sums = x.op("MatMulInteger", &inputs, &[]);
    let sums = x.reshape(&sums, &[n, oh, ow, m]);
    Ok(Some(x.transpose(&sums, &[0, 3, 1, 2])))
}

/// A convolution of weights with no zero point (or zeros: the usual symmetric int8 weights) as
/// `ConvIntegerPlanes`, no windows gathered. The input, padded with its zero point (a padded
/// tap adds nothing once `x_zero * rowsum(W)` is subtracted), is split into the phases of its
/// strides (`[N, C, H', sH, W', sW]`: a strided convolution is a unit-stride one per phase)
/// and laid out in quads of channels per phase, planes flattened to rows of `W'`: output point
/// `(oh, ow)` is position `oh * W' + ow`, and tap `(i, j)` reads its phase's quads at offset
/// `(i dH / sH) * W' + j dW / sW`. Rows are added at the bottom so every panel reads whole; the
/// columns past the output's are dropped. Channels are padded to quads with zero weights.
fn conv_over_planes(
    g: &Graph,
    x: &mut Expansion,
    o: &Operands,
    geo: &Window,
    [n, c, h, wd]: [i64; 4],
) -> OResult<Option<String>> {
    let w = g.consts.get(o.rhs).expect("constant weights");
    if o.rhs_zero.is_some_and(|z| !all_zero(g, z)) || w.ty.numel() == 0 {
        return Ok(None);
    }
    let ((kh, kw), (oh, ow), pads) = (geo.kernel, geo.out, geo.pads);
    let (s, d) = (geo.strides, geo.dilations);
    let m = w.ty.shape[0] as i64;
    let cp = (c + 3) / 4 * 4;
    let wq = (wd + pads[1] + pads[3] + s[1] - 1) / s[1];
    let positions = oh * wq;
    let mut tap_offsets = Vec::new();
    let mut tap_quads = Vec::new();
    for i in 0..kh {
        for j in 0..kw {
            let (ph, pw) = ((i * d[0]) % s[0], (j * d[1]) % s[1]);
            tap_quads.push((ph * s[1] + pw) * cp / 4);
            tap_offsets.push((i * d[0] / s[0]) * wq + j * d[1] / s[1]);
        }
    }
    let panel = xcc_ir::dialects::kernel::PLANE_PANEL as i64;
    let reach = (positions + panel - 1) / panel * panel + tap_offsets.iter().max().copied().unwrap_or(0);
    let hq = ((h + pads[0] + pads[2] + s[0] - 1) / s[0]).max((reach + wq - 1) / wq);
    let (bottom, right) = (hq * s[0] - h - pads[0], wq * s[1] - wd - pads[1]);
    let amounts = [0, 0, pads[0], pads[1], 0, cp - c, bottom, right];
    // A pointwise convolution over whole quads and panels pads nothing: no pass over its input.
    let padded = if amounts.iter().all(|&a| a == 0) {
        o.lhs.to_string()
    } else {
        let p = x.ints(&amounts);
        match o.lhs_zero {
            Some(z) => x.op("Pad", &[o.lhs, &p, z], &[]),
            None => x.op("Pad", &[o.lhs, &p], &[]),
        }
    };
    let planes = if s[0] == 1 && s[1] == 1 {
        // One phase: the quads interleave whole planes (one loop along each plane's row).
        let split = x.reshape(&padded, &[n, cp / 4, 4, hq * wq]);
        x.transpose(&split, &[0, 1, 3, 2])
    } else {
        let split = x.reshape(&padded, &[n, cp / 4, 4, hq, s[0], wq, s[1]]);
        let phases = x.transpose(&split, &[0, 4, 6, 1, 3, 5, 2]);
        x.reshape(&phases, &[n, s[0] * s[1] * cp / 4, hq * wq, 4])
    };
    let weights = x.constant(weights_per_tap(w, cp as usize));
    let attrs = vec![
        ("positions", Attr::Int(positions)),
        ("tap_offsets", Attr::Ints(tap_offsets)),
        ("tap_quads", Attr::Ints(tap_quads)),
    ];
    let sums = xcc_node(x, "ConvIntegerPlanes", vec![planes, weights], attrs);
    let rows = x.reshape(&sums, &[n, m, oh, wq]);
    let mut out = if ow == wq {
        rows
    } else {
        let (starts, ends, axes) = (x.ints(&[0]), x.ints(&[ow]), x.ints(&[3]));
        x.op("Slice", &[&rows, &starts, &ends, &axes], &[])
    };
    if let Some(za) = o.lhs_zero.filter(|z| !all_zero(g, z)) {
        let za = x.cast(za, g.ty(za)?.dtype, DType::I32);
        let sums = x.constant(channel_sums(w, 3));
        let term = x.op("Mul", &[&za, &sums], &[]);
        out = x.op("Sub", &[&out, &term], &[]);
    }
    Ok(Some(out))
}

/// Whether `z` is a constant of zeros (a zero point that changes nothing).
fn all_zero(g: &Graph, z: &str) -> bool {
    g.consts.get(z).is_some_and(|t| t.to_f64().iter().all(|&v| v == 0.0))
}

/// A node of xcc's own domain computing one fresh output from `inputs`; its name.
fn xcc_node(x: &mut Expansion, op: &str, inputs: Vec<String>, attrs: Vec<(&str, Attr)>) -> String {
    let out = format!("{}#{op}", x.fresh());
    x.push(Node {
        name: format!("{out}/{op}"),
        op: op.into(),
        domain: crate::ops::XCC_DOMAIN.into(),
        inputs,
        outputs: vec![out.clone()],
        attrs: attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        opset: 1,
        guard: None,
    });
    out
}

/// Weights `[M, C, kH, kW]` as `[M, kH * kW, cp]`: per output channel, per tap, the channels,
/// zeros past `C`.
fn weights_per_tap(w: &Tensor, cp: usize) -> Tensor {
    let [m, c, kh, kw] = [w.ty.shape[0], w.ty.shape[1], w.ty.shape[2], w.ty.shape[3]];
    let taps = kh * kw;
    let mut data = vec![0u8; m * taps * cp];
    for o in 0..m {
        for ch in 0..c {
            for t in 0..taps {
                data[(o * taps + t) * cp + ch] = w.data[(o * c + ch) * taps + t];
            }
        }
    }
    Tensor { ty: TensorType::new(w.ty.dtype, vec![m, taps, cp]), data }
}

/// A convolution's geometry, as the window gathering reads it.
struct Window<'a> {
    kernel: (i64, i64),
    pads: &'a [i64],
    strides: &'a [i64],
    dilations: &'a [i64],
    out: (i64, i64),
}

/// The input windows `[N, C, kH * kW, oH, oW]` (bytes), the input padded with its zero point: one
/// strided slice per tap. `None` for a 1x1 unstrided, unpadded convolution, whose one window is
/// the input itself.
fn taps_of(x: &mut Expansion, o: &Operands, w: &Window) -> Option<String> {
    let ((kh, kw), (oh, ow), pads) = (w.kernel, w.out, w.pads);
    if kh * kw == 1 && w.strides == [1, 1] && pads == [0; 4] {
        return None;
    }
    let padded = if pads.iter().any(|&p| p != 0) {
        let p = x.ints(&[0, 0, pads[0], pads[1], 0, 0, pads[2], pads[3]]);
        match o.lhs_zero {
            Some(z) => x.op("Pad", &[o.lhs, &p, z], &[]),
            None => x.op("Pad", &[o.lhs, &p], &[]),
        }
    } else {
        o.lhs.to_string()
    };
    let mut taps = Vec::new();
    for i in 0..kh {
        for j in 0..kw {
            let (r0, c0) = (i * w.dilations[0], j * w.dilations[1]);
            let starts = x.ints(&[r0, c0]);
            let ends = x.ints(&[r0 + (oh - 1) * w.strides[0] + 1, c0 + (ow - 1) * w.strides[1] + 1]);
            let (axes, steps) = (x.ints(&[2, 3]), x.ints(w.strides));
            let window = x.op("Slice", &[&padded, &starts, &ends, &axes, &steps], &[]);
            taps.push(x.unsqueeze(&window, &[2]));
        }
    }
    let refs: Vec<&str> = taps.iter().map(String::as_str).collect();
    Some(if refs.len() == 1 { refs[0].to_string() } else { x.op("Concat", &refs, &[("axis", Attr::Int(2))]) })
}

/// One image's convolution as `W [M, K] x windows [K, P]`: the windows padded to whole quads and
/// panels and laid out in quads of k by a transpose of bytes, the constant weights as A; the
/// sums come out `[M, P]`, the output's own layout. The zero points: `- x_zero * rowsum(W)` (a
/// constant), `- W_zero * colsum(windows) + K * x_zero * W_zero` where W's is not zero.
fn weights_first(
    g: &Graph,
    x: &mut Expansion,
    o: &Operands,
    (m, k, oh, ow): (i64, i64, i64, i64),
    windows: &str,
) -> OResult<String> {
    let p = oh * ow;
    let (k4, p16) = ((k + 3) / 4 * 4, (p + 15) / 16 * 16);
    let pads = x.ints(&[0, 0, k4 - k, p16 - p]);
    let padded = x.op("Pad", &[windows, &pads], &[]);
    let split = x.reshape(&padded, &[k4 / 4, 4, p16 / 16, 16]);
    let quads = x.transpose(&split, &[2, 0, 3, 1]);
    let weights = x.reshape(o.rhs, &[m, k]);
    let mut sums = xcc_node(x, "MatMulIntegerQuads", vec![weights, quads], vec![("columns", Attr::Int(p))]);
    let (za, zw) = (o.lhs_zero.filter(|z| !all_zero(g, z)), o.rhs_zero.filter(|z| !all_zero(g, z)));
    let widened = |x: &mut Expansion, v: &str| {
        let t = g.types[v].dtype;
        x.cast(v, t, DType::I32)
    };
    // W's zero point, one per output channel, as a column [M, 1].
    let zw = zw.map(|z| {
        let z32 = widened(x, z);
        if g.types[z].numel() > 1 {
            x.unsqueeze(&z32, &[1])
        } else {
            z32
        }
    });
    if let Some(za) = za {
        let za = widened(x, za);
        let w = g.consts.get(o.rhs).expect("constant weights");
        let rows = x.constant(channel_sums(w, 2));
        let term = x.op("Mul", &[&za, &rows], &[]);
        sums = x.op("Sub", &[&sums, &term], &[]);
        if let Some(zw) = &zw {
            let kk = x.scalar(k as f64, DType::I32);
            let both = x.op("Mul", &[&za, zw], &[]);
            let term = x.op("Mul", &[&both, &kk], &[]);
            sums = x.op("Add", &[&sums, &term], &[]);
        }
    }
    if let Some(zw) = &zw {
        // The windows hold the input's bytes (a tensor of this expansion: not in g's types).
        let cols = x.cast(windows, g.ty(o.lhs)?.dtype, DType::I32);
        let axis = x.ints(&[0]);
        let columns = x.op("ReduceSum", &[&cols, &axis], &[("keepdims", Attr::Int(1))]);
        let term = x.op("Mul", &[zw, &columns], &[]);
        sums = x.op("Sub", &[&sums, &term], &[]);
    }
    Ok(x.reshape(&sums, &[1, m, oh, ow]))
}

/// The sums of constant weights per output channel (their first dim, `M`) as an int32 `[M, 1,
/// ...]` of rank `rank`: what a zero point of the input multiplies.
fn channel_sums(w: &Tensor, rank: usize) -> Tensor {
    let m = w.ty.shape[0];
    let per_channel = w.ty.numel() / m.max(1);
    let sums: Vec<f64> = w.to_f64().chunks(per_channel.max(1)).map(|r| r.iter().sum()).collect();
    let mut shape = vec![1; rank];
    shape[0] = m;
    Tensor::from_f64(DType::I32, shape, &sums)
}

/// The sums over K of a constant `[.., K, N]` as an int32 `[.., 1, N]`.
fn column_sums(b: &Tensor) -> Tensor {
    let r = b.ty.shape.len();
    let (k, n) = (b.ty.shape[r - 2], b.ty.shape[r - 1]);
    let values = b.to_f64();
    let sums: Vec<f64> =
        values.chunks(k * n).flat_map(|m| (0..n).map(move |j| (0..k).map(|i| m[i * n + j]).sum::<f64>())).collect();
    let mut shape = b.ty.shape.clone();
    shape[r - 2] = 1;
    Tensor::from_f64(DType::I32, shape, &sums)
}

/// A per-output-channel vector `[M]` shaped `[M, 1, ...]` against weights of rank `rank`.
fn per_channel_of_weights(x: &mut Expansion, v: &str, rank: usize) -> String {
    let trailing: Vec<i64> = (1..rank as i64).collect();
    x.unsqueeze(v, &trailing)
}

/// A per-channel vector (of type `t`) shaped `[C, 1, ...]` against an `[N, C, ...]` result of
/// rank `rank`; a single value as it is.
fn per_channel(x: &mut Expansion, v: &str, t: &TensorType, rank: usize) -> String {
    if t.numel() == 1 || rank < 3 {
        return v.to_string();
    }
    let trailing: Vec<i64> = (1..rank as i64 - 1).collect();
    x.unsqueeze(v, &trailing)
}
