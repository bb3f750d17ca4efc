//! Reshape, Flatten, Squeeze and Unsqueeze: the same elements in the same order under a new
//! shape. Each has its own shape rule; all fold to the input's data and lower to `kernel.copy`.

use super::{axes_of, const_input, consts_graph};
use crate::emit::Emitter;
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::axis;

pub struct Reshape;
pub struct Flatten;
pub struct Squeeze;
pub struct Unsqueeze;

/// The input's data under the output's shape.
fn fold_reshape(op: &dyn OnnxOp, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
    let data = inputs[0]?.data.clone();
    Some(op.infer(node, &consts_graph(node, inputs)).map(|mut types| vec![Tensor { ty: types.remove(0), data }]))
}

fn lower_reshape(node: &Node, e: &mut Emitter) -> OResult<()> {
    let (x, out) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
    e.copy(x, out);
    Ok(())
}

impl OnnxOp for Reshape {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        let spec = match node.ints("shape") {
            Some(s) => s,
            None => const_input(g, node, 1, "shape")?.ok_or_else(|| OnnxError::msg("Reshape needs a shape"))?.to_i64(),
        };
        Ok(vec![TensorType::new(t.dtype, reshape_target(node, &t.shape, &spec)?)])
    }
    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        fold_reshape(self, node, inputs)
    }
    fn lower(&self, node: &Node, _: &Graph, e: &mut Emitter) -> OResult<()> {
        lower_reshape(node, e)
    }
}

/// The target shape: `-1` takes what is left, `0` copies the input's dim (unless `allowzero`).
fn reshape_target(node: &Node, input: &[usize], spec: &[i64]) -> OResult<Vec<usize>> {
    let allowzero = node.int("allowzero", 0) == 1;
    let total: usize = input.iter().product();
    let mut out = Vec::new();
    let mut infer_at = None;
    for (i, &s) in spec.iter().enumerate() {
        match s {
            -1 if infer_at.is_none() => {
                infer_at = Some(i);
                out.push(1);
            }
            -1 => return err("Reshape shape has more than one -1"),
            0 if !allowzero => out.push(
                *input
                    .get(i)
                    .ok_or_else(|| OnnxError::msg("Reshape copies a dimension that the input does not have"))?,
            ),
            s if s < 0 => return err(format!("invalid Reshape dimension {s}")),
            s => out.push(s as usize),
        }
    }
    let known: usize = out.iter().product();
    if let Some(i) = infer_at {
        if known == 0 || !total.is_multiple_of(known) {
            return err(format!("cannot reshape {input:?} into {spec:?}"));
        }
        out[i] = total / known;
    }
    if out.iter().product::<usize>() != total {
        return err(format!("cannot reshape {input:?} ({total} elements) into {out:?}"));
    }
    Ok(out)
}

impl OnnxOp for Flatten {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        let a = node.int("axis", 1);
        let a = if a < 0 { a + t.shape.len() as i64 } else { a };
        if a < 0 || a as usize > t.shape.len() {
            return err(format!("axis {a} is out of range"));
        }
        let (outer, inner) = t.shape.split_at(a as usize);
        Ok(vec![TensorType::new(t.dtype, vec![outer.iter().product(), inner.iter().product()])])
    }
    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        fold_reshape(self, node, inputs)
    }
    fn lower(&self, node: &Node, _: &Graph, e: &mut Emitter) -> OResult<()> {
        lower_reshape(node, e)
    }
}

impl OnnxOp for Squeeze {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        let axes: Vec<usize> = match axes_of(node, g, 1)? {
            Some(a) => a.iter().map(|&x| axis(node, x, t.shape.len())).collect::<OResult<_>>()?,
            None => (0..t.shape.len()).filter(|&i| t.shape[i] == 1).collect(),
        };
        if let Some(&a) = axes.iter().find(|&&a| t.shape[a] != 1) {
            return err(format!("cannot squeeze dimension {a} of size {}", t.shape[a]));
        }
        let shape = t.shape.iter().enumerate().filter(|(i, _)| !axes.contains(i)).map(|(_, &d)| d).collect();
        Ok(vec![TensorType::new(t.dtype, shape)])
    }
    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        fold_reshape(self, node, inputs)
    }
    fn lower(&self, node: &Node, _: &Graph, e: &mut Emitter) -> OResult<()> {
        lower_reshape(node, e)
    }
}

impl OnnxOp for Unsqueeze {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        let axes = axes_of(node, g, 1)?.ok_or_else(|| OnnxError::msg("Unsqueeze needs axes"))?;
        let rank = t.shape.len() + axes.len();
        let mut axes: Vec<usize> = axes.iter().map(|&x| axis(node, x, rank)).collect::<OResult<_>>()?;
        axes.sort();
        let mut shape = t.shape.clone();
        for a in axes {
            shape.insert(a, 1);
        }
        Ok(vec![TensorType::new(t.dtype, shape)])
    }
    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        fold_reshape(self, node, inputs)
    }
    fn lower(&self, node: &Node, _: &Graph, e: &mut Emitter) -> OResult<()> {
        lower_reshape(node, e)
    }
}
