//! AffineGrid, expanded ([`crate::ops::expansion`]): the sampling grid of GridSample for affine
//! transforms `theta` (`[N, 2, 3]` or `[N, 3, 4]`) over an output of `size` (known at compile
//! time): the normalized coordinates of every output point (x first, in [-1, 1] at the pixels'
//! centres with align_corners, at their outer edges without), with a 1 appended, times
//! `theta^T`. With `size` read at run time, the coordinates are computed by the run
//! (Range over the sizes, which the run computes first) instead of being a constant.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct AffineGrid;

impl Expanded for AffineGrid {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let theta = g.ty(&node.inputs[0])?;
        let Some(size) = g.consts.get(&node.inputs[1]).map(Tensor::to_i64) else {
            return run_time_size(node, g, x);
        };
        let r = size.len().saturating_sub(2);
        if !(r == 2 || r == 3) || theta.shape != [size[0] as usize, r, r + 1] || size.iter().any(|&d| d <= 0) {
            return err(format!("theta must be [N, {r}, {}] for size {size:?}, not {}", r + 1, theta.describe()));
        }
        let align = node.int("align_corners", 0) != 0;
        let axis = |n: i64| -> Vec<f64> {
            (0..n)
                .map(|i| match (align, n) {
                    (true, 1) => 0.0,
                    (true, _) => -1.0 + 2.0 * i as f64 / (n - 1) as f64,
                    (false, _) => (2 * i + 1) as f64 / n as f64 - 1.0,
                })
                .collect()
        };
        // The points in row-major order of the spatial dims, each (x, y[, z], 1).
        let spatial = &size[2..];
        let count = spatial.iter().try_fold(1usize, |c, &n| c.checked_mul(n as usize));
        let what = format!("AffineGrid's coordinates of every point of size {size:?}");
        g.constant_fits(count.and_then(|c| c.checked_mul(r + 1)), theta.dtype, &what)?;
        let count = count.unwrap_or(0);
        let coords: Vec<Vec<f64>> = spatial.iter().map(|&n| axis(n)).collect();
        let mut base = Vec::with_capacity(count * (r + 1));
        for p in 0..count {
            let mut rest = p;
            let mut index = vec![0usize; r];
            for d in (0..r).rev() {
                index[d] = rest % spatial[d] as usize;
                rest /= spatial[d] as usize;
            }
            for d in (0..r).rev() {
                base.push(coords[d][index[d]]);
            }
            base.push(1.0);
        }
        let base = x.constant(Tensor::from_f64(theta.dtype, vec![count, r + 1], &base));
        let theta_t = x.transpose(&node.inputs[0], &[0, 2, 1]);
        let points = x.op("MatMul", &[&base, &theta_t], &[]);
        let mut shape = vec![size[0]];
        shape.extend(spatial);
        shape.push(r as i64);
        let shape = x.ints(&shape);
        x.op_to("Reshape", &[&points, &shape], &[], &[&node.outputs[0]]);
        Ok(())
    }
}

/// The grid for a `size` known only at run time: each spatial axis's coordinates from a Range
/// over its size, broadcast against the others into the points `(x, y[, z], 1)`.
fn run_time_size(node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
    let theta = g.ty(&node.inputs[0])?;
    let size = g.ty(&node.inputs[1])?;
    let r = size.numel().saturating_sub(2);
    if size.shape.len() != 1 || !(r == 2 || r == 3) || theta.shape.len() != 3 || theta.shape[1..] != [r, r + 1] {
        return err(format!(
            "size must hold 4 or 5 values and theta be [N, {r}, {}], not {} and {}",
            r + 1,
            size.describe(),
            theta.describe()
        ));
    }
    let t = theta.dtype;
    let align = node.int("align_corners", 0) != 0;
    // Spatial axis j's coordinates, shaped [1, .., n_j, .., 1] over the r spatial axes.
    let mut components = Vec::new();
    for j in 0..r {
        let index = x.constant(Tensor::from_i64(vec![], &[2 + j as i64]));
        let n = x.op("Gather", &[&node.inputs[1], &index], &[("axis", Attr::Int(0))]);
        let (zero, one) = (x.constant(Tensor::from_i64(vec![], &[0])), x.constant(Tensor::from_i64(vec![], &[1])));
        let i = x.op("Range", &[&zero, &n, &one], &[]);
        let (i, n) = (x.cast(&i, DType::I64, t), x.cast(&n, DType::I64, t));
        let c = normalized(x, &i, &n, t, align);
        let others: Vec<i64> = (0..r as i64).filter(|&k| k != j as i64).collect();
        components.push(x.unsqueeze(&c, &others));
    }
    // Zeros over the whole grid, to broadcast each component to it.
    let nothing = x.scalar(0.0, t);
    let mut zero = nothing.clone();
    for c in &components {
        let none = x.op("Mul", &[c, &nothing], &[]);
        zero = x.op("Add", &[&zero, &none], &[]);
    }
    let one = x.scalar(1.0, t);
    let ones = x.op("Add", &[&zero, &one], &[]);
    let mut point: Vec<String> = components.iter().rev().map(|c| x.op("Add", &[c, &zero], &[])).collect();
    point.push(ones);
    let point: Vec<String> = point.iter().map(|p| x.unsqueeze(p, &[-1])).collect();
    let refs: Vec<&str> = point.iter().map(String::as_str).collect();
    let grid = x.op("Concat", &refs, &[("axis", Attr::Int(-1))]);
    let base = x.reshape(&grid, &[-1, r as i64 + 1]);
    let theta_t = x.transpose(&node.inputs[0], &[0, 2, 1]);
    let points = x.op("MatMul", &[&base, &theta_t], &[]);
    let (first, spatial) = (slice(x, &node.inputs[1], 0, 1), slice(x, &node.inputs[1], 2, r as i64 + 2));
    let last = x.ints(&[r as i64]);
    let shape = x.op("Concat", &[&first, &spatial, &last], &[("axis", Attr::Int(0))]);
    x.op_to("Reshape", &[&points, &shape], &[], &[&node.outputs[0]]);
    Ok(())
}

/// Positions `i` of an axis of size `n` in [-1, 1]: pixel centres from -1 to 1 with
/// align_corners (0 for a single one), else `(2i + 1) / n - 1`.
fn normalized(x: &mut Expansion, i: &str, n: &str, t: DType, align: bool) -> String {
    let (one, two) = (x.scalar(1.0, t), x.scalar(2.0, t));
    let twice = x.op("Mul", &[i, &two], &[]);
    if !align {
        let odd = x.op("Add", &[&twice, &one], &[]);
        let ratio = x.op("Div", &[&odd, n], &[]);
        return x.op("Sub", &[&ratio, &one], &[]);
    }
    let gaps = x.op("Sub", &[n, &one], &[]);
    let gaps = x.op("Max", &[&gaps, &one], &[]);
    let ratio = x.op("Div", &[&twice, &gaps], &[]);
    let spread = x.op("Sub", &[&ratio, &one], &[]);
    let single = x.op("Equal", &[n, &one], &[]);
    let zero = x.scalar(0.0, t);
    x.op("Where", &[&single, &zero, &spread], &[])
}

/// Elements `start..end` of a vector.
fn slice(x: &mut Expansion, v: &str, start: i64, end: i64) -> String {
    let (s, e, axis) = (x.ints(&[start]), x.ints(&[end]), x.ints(&[0]));
    x.op("Slice", &[v, &s, &e, &axis], &[])
}
