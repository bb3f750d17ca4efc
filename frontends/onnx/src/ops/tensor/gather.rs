//! Gather: slices of the data along `axis`, chosen by an index tensor (negative indices count
//! from the end). A parallel loop over the outer dims and the indices reads and checks each index
//! once, then copies the block it selects; folded when data and indices are constants (shape
//! arithmetic).

use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::axis;

pub struct Gather;

impl OnnxOp for Gather {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        let idx = g.ty(&node.inputs[1])?;
        if t.shape.is_empty() {
            return err("Gather's data must have rank 1 or more, not a scalar");
        }
        let a = axis(node, node.int("axis", 0), t.shape.len())?;
        let (data, indices) = (t.dims(), idx.dims());
        if data[a].is_fixed() {
            check_constant_indices(g, &node.inputs[1], &t.shape[a..=a], a)?;
        }
        let mut dims = data[..a].to_vec();
        dims.extend(indices);
        dims.extend_from_slice(&data[a + 1..]);
        Ok(vec![TensorType::with_dims(t.dtype, dims)])
    }

    /// Any dim may be known only at run time, the gathered one too (the run checks every index
    /// against it, constant ones included).
    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        let (data, indices) = (inputs[0]?, inputs[1]?);
        Some(fold_gather(node, data, indices))
    }

    /// Dims picked from a shape by constant indices.
    fn fold_shape(&self, node: &Node, g: &Graph, inputs: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        let data = inputs[0].as_ref().filter(|v| v.shape.len() == 1)?;
        let indices = g.consts.get(&node.inputs[1])?;
        let n = data.values.len() as i64;
        let mut values = Vec::new();
        for i in indices.to_i64() {
            let at = if i < 0 { i + n } else { i };
            if !(0..n).contains(&at) {
                return Some(err(format!("index {i} is out of range for a shape of {n} dims")));
            }
            values.push(data.values[at as usize].clone());
        }
        Some(Ok(vec![ShapeValue { dtype: data.dtype, shape: indices.ty.shape.clone(), values }]))
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let in_dims = g.ty(&node.inputs[0])?.dims();
        let out_dims = g.ty(&node.outputs[0])?.dims();
        let a = axis(node, node.int("axis", 0), in_dims.len())?;
        let (x, indices, out) = (e.buf(&node.inputs[0])?, e.buf(&node.inputs[1])?, e.buf(&node.outputs[0])?);
        let r = g.ty(&node.inputs[1])?.shape.len();
        let dim = e.dim_extent(&in_dims[a]);
        // In parallel over the outer dims and the indices; each index is read and checked once,
        // then the block of inner elements it selects is copied.
        let out_extents = e.dim_extents(&out_dims);
        let (outer, inner) = out_extents.split_at(a + r);
        if outer.is_empty() {
            // One index (a scalar, on axis 0): read and checked once; the block it selects is
            // copied in parallel.
            let raw = e.load(indices, &[]);
            let i = e.run_time_index_over(raw, dim);
            e.parallel_over(inner, &mut |e, rest| {
                let v = e.load(x, &[&[i][..], rest].concat());
                e.store(v, out, rest);
            });
            return Ok(());
        }
        e.parallel_over(outer, &mut |e, ivs| {
            let raw = e.load(indices, &ivs[a..a + r]);
            let i = e.run_time_index_over(raw, dim);
            let ivs = ivs.to_vec();
            e.nest_accs_over(inner, &[], &mut |e, rest, _| {
                let mut from = ivs[..a].to_vec();
                from.push(i);
                from.extend(rest);
                let v = e.load(x, &from);
                e.store(v, out, &[&ivs[..], rest].concat());
                Vec::new()
            });
        });
        Ok(())
    }
}

/// Constant indices are checked when the model compiles: a bad one is the model's error, found
/// before any run (run-time indices are checked by the run). Consecutive elements of `indices`
/// address `dims` in turn, the axes from `first_axis` on: one dim for Gather's indices, a
/// tuple's dims for GatherND's and ScatterND's.
pub fn check_constant_indices(g: &Graph, indices: &str, dims: &[usize], first_axis: usize) -> OResult<()> {
    let Some(t) = g.consts.get(indices) else { return Ok(()) };
    for (n, i) in t.to_i64().into_iter().enumerate() {
        let j = n % dims.len();
        let dim = dims[j] as i64;
        if i < -dim || i >= dim {
            return Err(OnnxError::tensor(
                indices,
                format!(
                    "constant index {i} is out of range for axis {} of size {dim} (valid: -{dim} to {})",
                    first_axis + j,
                    dim - 1
                ),
            ));
        }
    }
    Ok(())
}

/// For each outer position and each index, the contiguous block of inner elements it selects.
fn fold_gather(node: &Node, data: &Tensor, indices: &Tensor) -> OResult<Vec<Tensor>> {
    let s = &data.ty.shape;
    let a = axis(node, node.int("axis", 0), s.len())?;
    let outer: usize = s[..a].iter().product();
    let block = s[a + 1..].iter().product::<usize>() * data.ty.dtype.size();
    let idx = indices.to_i64();
    let mut out = Vec::with_capacity(outer * idx.len() * block);
    for o in 0..outer {
        for &raw in &idx {
            let v = if raw < 0 { raw + s[a] as i64 } else { raw };
            if v < 0 || v as usize >= s[a] {
                return err(format!("Gather index {raw} is out of range for dimension {a} of size {}", s[a]));
            }
            let from = (o * s[a] + v as usize) * block;
            out.extend_from_slice(&data.data[from..from + block]);
        }
    }
    let mut shape = s[..a].to_vec();
    shape.extend(&indices.ty.shape);
    shape.extend(&s[a + 1..]);
    Ok(vec![Tensor { ty: TensorType::new(data.ty.dtype, shape), data: out }])
}
