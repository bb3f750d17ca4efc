//! DeformConv (opset 19, 2-D), expanded ([`crate::ops::expansion`]): a convolution whose
//! kernel taps are moved by `offset` (per offset group, per tap, per output point) and read
//! bilinearly (zero outside the image), optionally scaled by `mask`. The taps are sampled with
//! one GridSample per batch of offset groups into im2col's layout `[N, C * kH * kW, oH * oW]`,
//! and the weights multiply that per group.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct DeformConv;

/// The convolution's geometry, from the attributes and the shapes.
struct Geometry {
    n: usize,
    c: usize,
    h: usize,
    w: usize,
    out_c: usize,
    kernel: [usize; 2],
    out: [usize; 2],
    strides: [i64; 2],
    dilations: [i64; 2],
    pads: [i64; 2],
    group: usize,
    offset_group: usize,
}

impl Expanded for DeformConv {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let geo = geometry(node, g)?;
        let d = g.ty(&node.inputs[0])?.dtype;
        let Geometry { n, c, h, w, kernel: [kh, kw], out: [oh, ow], offset_group: og, .. } = geo;
        let (n_, og_, taps) = (n as i64, og as i64, (kh * kw) as i64);
        // offset: [N, og, kH, kW, 2 (y, x), oH, oW] -> the sampled points' coordinates.
        // The coordinates and the sampling in f64 (GridSample takes one type): a tap that should
        // land exactly on a pixel, or exactly off the image, then gives its neighbours no stray
        // weight from rounding.
        let offset = x.cast(&node.inputs[2], d, DType::F64);
        let offset = x.reshape(&offset, &[n_, og_, kh as i64, kw as i64, 2, oh as i64, ow as i64]);
        let d_grid = DType::F64;
        let coordinate = |x: &mut Expansion, part: i64, base: Tensor, size: usize| {
            let (s, e, a) = (x.ints(&[part]), x.ints(&[part + 1]), x.ints(&[4]));
            let moved = x.op("Slice", &[&offset, &s, &e, &a], &[]);
            let axis = x.ints(&[4]);
            let moved = x.op("Squeeze", &[&moved, &axis], &[]);
            let base = x.constant(base);
            let at = x.op("Add", &[&moved, &base], &[]);
            // GridSample's unnormalized coordinate (align_corners 0): (2 p + 1) / size - 1.
            let (two, one, size) = (x.scalar(2.0, d_grid), x.scalar(1.0, d_grid), x.scalar(size as f64, d_grid));
            let twice = x.op("Mul", &[&at, &two], &[]);
            let odd = x.op("Add", &[&twice, &one], &[]);
            let ratio = x.op("Div", &[&odd, &size], &[]);
            let g = x.op("Sub", &[&ratio, &one], &[]);
            x.reshape(&g, &[n_ * og_, taps * oh as i64, ow as i64, 1])
        };
        let gy = coordinate(x, 0, base(&geo, 0, d_grid), h);
        let gx = coordinate(x, 1, base(&geo, 1, d_grid), w);
        let grid = x.op("Concat", &[&gx, &gy], &[("axis", Attr::Int(-1))]);
        let image = x.cast(&node.inputs[0], d, d_grid);
        let image = x.reshape(&image, &[n_ * og_, (c / og) as i64, h as i64, w as i64]);
        let sampled = x.op(
            "GridSample",
            &[&image, &grid],
            &[("mode", Attr::Str("linear".into())), ("align_corners", Attr::Int(0))],
        );
        let sampled = match node.input(4) {
            Some(mask) => {
                let mask = x.cast(mask, d, d_grid);
                let mask = x.reshape(&mask, &[n_ * og_, 1, taps * oh as i64, ow as i64]);
                x.op("Mul", &[&sampled, &mask], &[])
            }
            None => sampled,
        };
        let sampled = x.cast(&sampled, d_grid, d);
        // [N * og, C / og, kH * kW * oH, oW] is [N, C * kH * kW, oH * oW] in im2col's order.
        let (gr, per_group) = (geo.group as i64, (c / geo.group) as i64 * taps);
        let columns = x.reshape(&sampled, &[n_, gr, per_group, (oh * ow) as i64]);
        let weights = x.reshape(&node.inputs[1], &[gr, (geo.out_c / geo.group) as i64, per_group]);
        let y = x.op("MatMul", &[&weights, &columns], &[]);
        let mut y = x.reshape(&y, &[n_, geo.out_c as i64, oh as i64, ow as i64]);
        if let Some(b) = node.input(3) {
            let b = x.reshape(b, &[1, geo.out_c as i64, 1, 1]);
            y = x.op("Add", &[&y, &b], &[]);
        }
        x.output(&y, Some(&node.outputs[0]));
        Ok(())
    }
}

/// The taps' undisplaced coordinates along spatial axis `axis` (0: rows, 1: columns), shaped
/// to broadcast against `[N, og, kH, kW, oH, oW]`: `out * stride - pad + tap * dilation`.
fn base(geo: &Geometry, axis: usize, d: DType) -> Tensor {
    let (k, o) = (geo.kernel[axis], geo.out[axis]);
    let mut values = Vec::with_capacity(k * o);
    for tap in 0..k as i64 {
        for p in 0..o as i64 {
            values.push((p * geo.strides[axis] - geo.pads[axis] + tap * geo.dilations[axis]) as f64);
        }
    }
    let shape = if axis == 0 { vec![1, 1, k, 1, o, 1] } else { vec![1, 1, 1, k, 1, o] };
    Tensor::from_f64(d, shape, &values)
}

fn geometry(node: &Node, g: &Graph) -> OResult<Geometry> {
    let (xt, wt, ot) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?, g.ty(&node.inputs[2])?);
    if !xt.dtype.is_float() || xt.shape.len() != 4 || wt.shape.len() != 4 || ot.shape.len() != 4 {
        return err(format!(
            "DeformConv takes a 2-D floating-point convolution (rank-4 X, W and offset), not {}, {} and {}",
            xt.describe(),
            wt.describe(),
            ot.describe()
        ));
    }
    let two = |name: &str, default: i64| -> OResult<[i64; 2]> {
        match node.ints(name) {
            None => Ok([default; 2]),
            Some(v) if v.len() == 2 => Ok([v[0], v[1]]),
            Some(v) => err(format!("DeformConv's {name} must hold 2 values, not {v:?}")),
        }
    };
    let pads = node.ints("pads").unwrap_or(vec![0; 4]);
    if pads.len() != 4 || pads.iter().any(|&p| p < 0) {
        return err(format!("DeformConv's pads must be 4 values not below 0, not {pads:?}"));
    }
    let kernel = two("kernel_shape", 0)?;
    let kernel = if node.ints("kernel_shape").is_some() { kernel } else { [wt.shape[2] as i64, wt.shape[3] as i64] };
    let (strides, dilations) = (two("strides", 1)?, two("dilations", 1)?);
    let (group, og) = (node.int("group", 1), node.int("offset_group", 1));
    let [n, c, h, w] = [xt.shape[0], xt.shape[1], xt.shape[2], xt.shape[3]];
    let geo = Geometry {
        n,
        c,
        h,
        w,
        out_c: wt.shape[0],
        kernel: [kernel[0].max(0) as usize, kernel[1].max(0) as usize],
        out: [ot.shape[2], ot.shape[3]],
        strides,
        dilations,
        pads: [pads[0], pads[1]],
        group: group.max(1) as usize,
        offset_group: og.max(1) as usize,
    };
    // In i128: attributes near i64's limits must not overflow the check they fail.
    let expected = |axis: usize, size: usize| -> i128 {
        let span = (geo.kernel[axis] as i128 - 1) * dilations[axis] as i128 + 1;
        (size as i128 + pads[axis] as i128 + pads[axis + 2] as i128 - span) / strides[axis].max(1) as i128 + 1
    };
    let consistent = group > 0
        && og > 0
        && strides.iter().chain(&dilations).all(|&v| v > 0)
        && [wt.shape[2], wt.shape[3]] == geo.kernel
        && c == wt.shape[1] * geo.group
        && geo.out_c.is_multiple_of(geo.group)
        && c.is_multiple_of(geo.offset_group)
        && ot.shape[0] == n
        && ot.shape[1] == geo.offset_group * geo.kernel[0] * geo.kernel[1] * 2
        && expected(0, h) == geo.out[0] as i128
        && expected(1, w) == geo.out[1] as i128;
    if !consistent {
        return err(format!(
            "DeformConv's X {}, W {} and offset {} do not fit its kernel, strides, pads, dilations, group and offset_group",
            xt.describe(),
            wt.describe(),
            ot.describe()
        ));
    }
    Ok(geo)
}
