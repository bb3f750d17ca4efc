//! LpPool, expanded ([`crate::ops::expansion`]): `(sum |x|^p)^(1/p)` over each window, as an
//! AveragePool of `|x|^p` counting the padding (the window's sum over its size), times the
//! size. The pooling attributes pass through.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct LpPool;

impl Expanded for LpPool {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = super::float_input(node, g)?;
        let p = node.int("p", 2);
        if p < 1 {
            return err(format!("p must be at least 1, not {p}"));
        }
        let Some(kernel) = node.ints("kernel_shape") else { return err("LpPool needs kernel_shape") };
        // The window's size, as a float scale: a window past the input is refused by the
        // AveragePool it becomes, but the product must not overflow first.
        let Some(window) = kernel.iter().try_fold(1i64, |n, &k| (k > 0).then(|| n.checked_mul(k)).flatten()) else {
            return err(format!("kernel_shape must be positive and its product fit in 64 bits, not {kernel:?}"));
        };
        let powered = match p {
            1 => x.op("Abs", &[&node.inputs[0]], &[]),
            2 => x.op("Mul", &[&node.inputs[0], &node.inputs[0]], &[]),
            _ => {
                let abs = x.op("Abs", &[&node.inputs[0]], &[]);
                let e = x.scalar(p as f64, t.dtype);
                x.op("Pow", &[&abs, &e], &[])
            }
        };
        let mut attrs: Vec<(&str, Attr)> = ["kernel_shape", "strides", "pads", "dilations", "auto_pad", "ceil_mode"]
            .into_iter()
            .filter_map(|k| node.attrs.get(k).map(|v| (k, v.clone())))
            .collect();
        attrs.push(("count_include_pad", Attr::Int(1)));
        let mean = x.op("AveragePool", &[&powered], &attrs);
        let size = x.scalar(window as f64, t.dtype);
        let sum = x.op("Mul", &[&mean, &size], &[]);
        let root = match p {
            1 => sum,
            2 => x.op("Sqrt", &[&sum], &[]),
            _ => {
                let e = x.scalar(1.0 / p as f64, t.dtype);
                x.op("Pow", &[&sum, &e], &[])
            }
        };
        x.output(&root, Some(&node.outputs[0]));
        Ok(())
    }
}
