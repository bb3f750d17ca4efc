//! MaxUnpool and TensorScatter, expanded ([`crate::ops::expansion`]) into ScatterElements.
//!
//! MaxUnpool writes each value of X at its index from MaxPool (flat over MaxPool's input, whose
//! dims are the pooled ones inverted: `(in - 1) * stride + kernel - pads`) into zeros, padded at
//! the end up to output_shape when that is larger (output_shape may be read at run time: the
//! padding is then computed by the run, which checks that it is not negative). That is how
//! ONNX's reference and node-test data read it; ONNX Runtime instead reads the indices as
//! positions in output_shape's layout.
//!
//! TensorScatter (opset 24) writes a batch of updates into a cache along `axis` (default -2),
//! each batch entry from its write_indices position on (0 without them), wrapping around the
//! cache's length in circular mode.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};
use crate::ops::shapes::shape_data;

pub struct MaxUnpool;
pub struct TensorScatter;

impl Expanded for MaxUnpool {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = g.ty(&node.inputs[0])?;
        let rank = t.shape.len();
        let Some(kernel) = node.ints("kernel_shape") else { return err("MaxUnpool needs kernel_shape") };
        if rank < 3 || kernel.len() != rank - 2 || t.is_dynamic() {
            return err(format!("X must be [N, C, ...] with one kernel size per spatial dim, not {}", t.describe()));
        }
        let spatial = rank - 2;
        let strides = node.ints("strides").unwrap_or_else(|| vec![1; spatial]);
        let pads = node.ints("pads").unwrap_or_else(|| vec![0; 2 * spatial]);
        if strides.len() != spatial || pads.len() != 2 * spatial {
            return err(format!(
                "MaxUnpool needs {spatial} strides and {} pads (one per spatial dim and end), not {strides:?} and {pads:?}",
                2 * spatial
            ));
        }
        // The indices count positions of the unpooled dims (MaxPool's input); output_shape, when
        // larger, pads them at the end.
        let mut dims = vec![t.shape[0] as i64, t.shape[1] as i64];
        for d in 0..spatial {
            let unpooled = (t.shape[2 + d] as i64 - 1)
                .checked_mul(strides[d])
                .and_then(|v| v.checked_add(kernel[d]))
                .and_then(|v| v.checked_sub(pads[d]))
                .and_then(|v| v.checked_sub(pads[spatial + d]))
                .filter(|&v| v > 0 && strides[d] > 0 && kernel[d] > 0);
            match unpooled {
                Some(v) => dims.push(v),
                None => {
                    return err(format!(
                    "MaxUnpool's spatial dim {d} unpools to no size (input {}, stride {}, kernel {}, pads {} and {})",
                    t.shape[2 + d],
                    strides[d],
                    kernel[d],
                    pads[d],
                    pads[spatial + d]
                ))
                }
            }
        }
        let wanted = match node.input(2) {
            Some(s) if !g.consts.contains_key(s) => return run_time_output_shape(node, g, x, &dims, s),
            Some(s) => match g.consts.get(s).map(Tensor::to_i64) {
                Some(v) if v.len() == rank && v.iter().zip(&dims).all(|(w, d)| w >= d) => v,
                _ => return err(format!("output_shape '{s}' must hold at least {dims:?}")),
            },
            None => dims.clone(),
        };
        let unpooled = unpooled(node, g, x, &dims)?;
        if wanted == dims {
            x.output(&unpooled, Some(&node.outputs[0]));
        } else {
            let mut pad = vec![0i64; rank];
            pad.extend(wanted.iter().zip(&dims).map(|(w, d)| w - d));
            let pad = x.ints(&pad);
            x.op_to("Pad", &[&unpooled, &pad], &[], &[&node.outputs[0]]);
        }
        Ok(())
    }
}

/// X's values scattered at their indices into zeros of the unpooled `dims`.
fn unpooled(node: &Node, g: &Graph, x: &mut Expansion, dims: &[i64]) -> OResult<String> {
    let t = g.ty(&node.inputs[0])?;
    let shape = x.ints(dims);
    let zero =
        x.op("ConstantOfShape", &[&shape], &[("value", Attr::Tensor(Tensor::from_f64(t.dtype, vec![1], &[0.0])))]);
    let flat = x.ints(&[-1]);
    let (zeros, values, at) = (
        x.op("Reshape", &[&zero, &flat], &[]),
        x.op("Reshape", &[&node.inputs[0], &flat], &[]),
        x.op("Reshape", &[&node.inputs[1], &flat], &[]),
    );
    let scattered = x.op("ScatterElements", &[&zeros, &at, &values], &[("axis", Attr::Int(0))]);
    Ok(x.op("Reshape", &[&scattered, &shape], &[]))
}

/// An output_shape read at run time: the unpooled tensor padded at the end by
/// `output_shape - dims`, which every run checks is not negative.
fn run_time_output_shape(node: &Node, g: &Graph, x: &mut Expansion, dims: &[i64], name: &str) -> OResult<()> {
    let wanted = shape_data(g, node, 2, "output_shape")?.unwrap_or_default();
    if wanted.len() != dims.len() {
        return err(format!("output_shape '{name}' must hold {} dims, not {}", dims.len(), wanted.len()));
    }
    for (w, &d) in wanted.iter().zip(dims) {
        g.require(DataExpr::num(d - 1).lt(w), format!("output_shape must hold at least {dims:?}"))?;
    }
    let unpooled = unpooled(node, g, x, dims)?;
    let (begin, unpooled_dims) = (x.ints(&vec![0; dims.len()]), x.ints(dims));
    let end = x.op("Sub", &[name, &unpooled_dims], &[]);
    let pads = x.op("Concat", &[&begin, &end], &[("axis", Attr::Int(0))]);
    x.op_to("Pad", &[&unpooled, &pads], &[], &[&node.outputs[0]]);
    Ok(())
}

impl Expanded for TensorScatter {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let (cache, update) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?);
        let rank = cache.shape.len();
        if rank < 2 || update.shape.len() != rank || cache.is_dynamic() || update.is_dynamic() {
            return err(format!(
                "the cache and the update must have one rank of 2 or more, known at compile time: {} and {}",
                cache.describe(),
                update.describe()
            ));
        }
        let axis = crate::ops::shapes::axis(node, node.int("axis", -2), rank)?;
        if axis == 0 {
            return err("TensorScatter's axis cannot be the batch axis 0");
        }
        let circular = match node.string("mode").unwrap_or("linear") {
            "linear" => false,
            "circular" => true,
            m => return err(format!("mode must be linear or circular, not {m}")),
        };
        // Positions along the axis: the batch entry's start, plus the update's own positions.
        let steps = x.positions(&node.inputs[1], axis as i64, rank - axis - 1);
        let at = match node.input(2) {
            Some(w) => {
                let w = x.cast(w, g.ty(w)?.dtype, DType::I64);
                let trailing: Vec<i64> = (1..rank as i64).collect();
                let w = x.unsqueeze(&w, &trailing);
                x.op("Add", &[&steps, &w], &[])
            }
            None => steps,
        };
        let at = if circular {
            let length = x.constant(Tensor::from_i64(vec![], &[cache.shape[axis] as i64]));
            x.op("Mod", &[&at, &length], &[])
        } else {
            at
        };
        let shape = x.op("Shape", &[&node.inputs[1]], &[]);
        let at = x.op("Expand", &[&at, &shape], &[]);
        x.op_to(
            "ScatterElements",
            &[&node.inputs[0], &at, &node.inputs[1]],
            &[("axis", Attr::Int(axis as i64))],
            &[&node.outputs[0]],
        );
        Ok(())
    }
}
