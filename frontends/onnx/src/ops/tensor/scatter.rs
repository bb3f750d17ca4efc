//! ScatterElements (and the deprecated Scatter) and ScatterND: the data copied to the output,
//! then each update written at the position its index (or index tuple) names, combined with the
//! value there by the `reduction` (none, add, mul, max, min). The updates run in order on one
//! thread: with a reduction, two updates may name the same element. Each index is checked (one
//! out of range sets the run's status and writes inside the dimension instead).

use crate::dim::dims_text;
use crate::emit::{compute_type, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::axis;
use xcc_ir::ValueId;

/// ScatterElements: `out[i with i[axis] = indices[i]] = updates[i]`.
pub struct ScatterElements;

/// ScatterND: `out[indices[i..., :], r...] = updates[i..., r...]`.
pub struct ScatterNd;

#[derive(Clone, Copy)]
enum Reduction {
    None,
    Add,
    Mul,
    Max,
    Min,
}

impl Reduction {
    fn of(node: &Node) -> OResult<Reduction> {
        Ok(match node.string("reduction").unwrap_or("none") {
            "none" => Reduction::None,
            "add" => Reduction::Add,
            "mul" => Reduction::Mul,
            "max" => Reduction::Max,
            "min" => Reduction::Min,
            other => return err(format!("reduction '{other}' is not supported")),
        })
    }

    /// The op combining the old element with the update, by element type.
    fn op(self, dtype: DType) -> OResult<Option<&'static str>> {
        let float = dtype.is_float();
        if dtype == DType::Bool && !matches!(self, Reduction::None) {
            return err("a reduction over bool tensors is not supported");
        }
        if dtype == DType::Str && !matches!(self, Reduction::None) {
            return err("a reduction over strings is not supported");
        }
        let unsigned = dtype.is_unsigned();
        Ok(match self {
            Reduction::None => None,
            Reduction::Add => Some(if float { "arith.addf" } else { "arith.addi" }),
            Reduction::Mul => Some(if float { "arith.mulf" } else { "arith.muli" }),
            Reduction::Max if float => Some("arith.maximumf"),
            Reduction::Max => Some(if unsigned { "arith.maxui" } else { "arith.maxsi" }),
            Reduction::Min if float => Some("arith.minimumf"),
            Reduction::Min => Some(if unsigned { "arith.minui" } else { "arith.minsi" }),
        })
    }
}

/// Writes `v` at `at` in `out`, combined with the element there.
fn update(e: &mut Emitter, out: ValueId, at: &[ValueId], v: ValueId, combine: Option<&str>, dtype: DType) {
    let v = match combine {
        Some(op) => {
            let old = e.load(out, at);
            e.value_op(op, &[old, v], compute_type(dtype))
        }
        None => v,
    };
    e.store(v, out, at);
}

/// Shapes that must be one: equal, or checked equal by the run where the dims' ranges allow it
/// ([`crate::ops::shapes::same_dim_in`]).
fn same_shapes(g: &Graph, a: &[Dim], b: &[Dim], what: &str) -> OResult<()> {
    let mut same = a.len() == b.len();
    for (x, y) in a.iter().zip(b) {
        same = same && crate::ops::shapes::same_dim_in(g, x, y)?;
    }
    if !same {
        return err(format!("{what}: {} and {} differ", dims_text(a), dims_text(b)));
    }
    Ok(())
}

impl OnnxOp for ScatterElements {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let (t, idx, upd) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?, g.ty(&node.inputs[2])?);
        let (data, space) = (t.dims(), idx.dims());
        same_shapes(g, &space, &upd.dims(), "the shapes of indices and updates")?;
        if space.len() != data.len() {
            return err("indices must have the data's rank");
        }
        let a = axis(node, node.int("axis", 0), data.len())?;
        for (d, (i, s)) in space.iter().zip(&data).enumerate().filter(|(d, (i, s))| *d != a && i != s) {
            // Outside the axis the indices may not be longer than the data: checked now where
            // both dims are numbers, by the run where either is known only then.
            let longer = DataExpr::Dim(s.clone()).lt(&DataExpr::Dim(i.clone()));
            let what = format!("indices {} exceed the data {} along dim {d}", dims_text(&space), dims_text(&data));
            g.require(longer.not(), what)?;
        }
        if data[a].is_fixed() {
            super::gather::check_constant_indices(g, &node.inputs[1], &t.shape[a..=a], a)?;
        }
        Ok(vec![t.clone()])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let t = g.ty(&node.inputs[0])?;
        let a = axis(node, node.int("axis", 0), t.shape.len())?;
        let combine = Reduction::of(node)?.op(t.dtype)?;
        let space = e.dim_extents(&g.ty(&node.inputs[1])?.dims());
        let (dim, dtype) = (e.dim_extent(&t.dims()[a]), t.dtype);
        let (x, indices, updates, out) =
            (e.buf(&node.inputs[0])?, e.buf(&node.inputs[1])?, e.buf(&node.inputs[2])?, e.buf(&node.outputs[0])?);
        e.copy(x, out);
        e.loop_nest_over(&space, &mut |e, ivs| {
            let raw = e.load(indices, ivs);
            let mut at = ivs.to_vec();
            at[a] = e.run_time_index_over(raw, dim);
            let v = e.load(updates, ivs);
            update(e, out, &at, v, combine, dtype);
        });
        Ok(())
    }
}

impl OnnxOp for ScatterNd {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let (t, idx, upd) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?, g.ty(&node.inputs[2])?);
        let (data, idx_dims) = (t.dims(), idx.dims());
        let q = idx_dims.len();
        let Some(k) = idx_dims.last().map_or(Some(0), Dim::as_fixed) else {
            return err(format!(
                "the index tuples' length (the indices' last dim, {}) must be known at compile time",
                idx_dims[q - 1]
            ));
        };
        if q == 0 || k == 0 || k > data.len() {
            return err(format!("index tuples of length {k} do not fit data of rank {}", data.len()));
        }
        let mut want = idx_dims[..q - 1].to_vec();
        want.extend_from_slice(&data[k..]);
        same_shapes(g, &upd.dims(), &want, "updates must have indices.shape[:-1] + data.shape[k:]: the shapes")?;
        if data[..k].iter().all(Dim::is_fixed) {
            super::gather::check_constant_indices(g, &node.inputs[1], &t.shape[..k], 0)?;
        }
        Ok(vec![t.clone()])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let t = g.ty(&node.inputs[0])?;
        let combine = Reduction::of(node)?.op(t.dtype)?;
        let (data, dtype) = (e.dim_extents(&t.dims()), t.dtype);
        let idx_dims = e.dim_extents(&g.ty(&node.inputs[1])?.dims());
        let k = g.ty(&node.inputs[1])?.shape[idx_dims.len() - 1];
        let (x, indices, updates, out) =
            (e.buf(&node.inputs[0])?, e.buf(&node.inputs[1])?, e.buf(&node.inputs[2])?, e.buf(&node.outputs[0])?);
        e.copy(x, out);
        e.loop_nest_over(&idx_dims[..idx_dims.len() - 1], &mut |e, ivs| {
            let mut to = Vec::with_capacity(data.len());
            for (j, &dim) in data[..k].iter().enumerate() {
                let at = e.idx(j as i64);
                let raw = e.load(indices, &[ivs, &[at]].concat());
                to.push(e.run_time_index_over(raw, dim));
            }
            let ivs = ivs.to_vec();
            e.loop_nest_over(&data[k..], &mut |e, rest| {
                let v = e.load(updates, &[&ivs[..], rest].concat());
                update(e, out, &[&to[..], rest].concat(), v, combine, dtype);
            });
        });
        Ok(())
    }
}
