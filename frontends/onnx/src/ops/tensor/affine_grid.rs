//! AffineGrid, expanded ([`crate::ops::expansion`]): the sampling grid of GridSample for affine
//! transforms `theta` (`[N, 2, 3]` or `[N, 3, 4]`) over an output of `size` (known at compile
//! time): the normalized coordinates of every output point (x first, in [-1, 1] at the pixels'
//! centres with align_corners, at their outer edges without), with a 1 appended, times
//! `theta^T`.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct AffineGrid;

impl Expanded for AffineGrid {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let theta = g.ty(&node.inputs[0])?;
        let Some(size) = g.consts.get(&node.inputs[1]).map(Tensor::to_i64) else {
            return err(format!("size '{}' must be known at compile time", node.inputs[1]));
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
        let coords: Vec<Vec<f64>> = spatial.iter().map(|&n| axis(n)).collect();
        let count: usize = spatial.iter().product::<i64>() as usize;
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
