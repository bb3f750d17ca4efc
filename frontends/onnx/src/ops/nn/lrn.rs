//! LRN (local response normalization across channels), expanded ([`crate::ops::expansion`]):
//! `x / (bias + alpha / size * sum of x^2 over the size channels around)^beta`. The sum is an
//! AveragePool (counting the zero padding) over a channel window, on `x^2` with a dim of 1
//! inserted before the channels.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct Lrn;

impl Expanded for Lrn {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = super::float_input(node, g)?;
        let rank = t.shape.len();
        let size = node.int("size", 0);
        if size <= 0 || rank < 3 {
            return err(format!(
                "LRN needs a positive size and an input [N, C, ...], not size {size} and {}",
                t.describe()
            ));
        }
        let (alpha, beta, bias) =
            (node.float("alpha", 1e-4) as f64, node.float("beta", 0.75) as f64, node.float("bias", 1.0) as f64);
        let v = &node.inputs[0];
        let squares = x.op("Mul", &[v, v], &[]);
        let stacked = x.unsqueeze(&squares, &[1]);
        let spatial = rank - 2;
        let mut kernel = vec![size];
        kernel.extend(std::iter::repeat_n(1, spatial));
        let (before, after) = ((size - 1) / 2, size - 1 - (size - 1) / 2);
        let mut pads = vec![before];
        pads.extend(std::iter::repeat_n(0, spatial));
        pads.push(after);
        pads.extend(std::iter::repeat_n(0, spatial));
        let attrs =
            [("kernel_shape", Attr::Ints(kernel)), ("pads", Attr::Ints(pads)), ("count_include_pad", Attr::Int(1))];
        let mean = x.op("AveragePool", &[&stacked], &attrs);
        let stack_axis = x.ints(&[1]);
        let mean = x.op("Squeeze", &[&mean, &stack_axis], &[]);
        let a = x.scalar(alpha, t.dtype);
        let scaled = x.op("Mul", &[&mean, &a], &[]);
        let b = x.scalar(bias, t.dtype);
        let base = x.op("Add", &[&scaled, &b], &[]);
        let e = x.scalar(beta, t.dtype);
        let denominator = x.op("Pow", &[&base, &e], &[]);
        x.op_to("Div", &[v, &denominator], &[], &[&node.outputs[0]]);
        Ok(())
    }
}
