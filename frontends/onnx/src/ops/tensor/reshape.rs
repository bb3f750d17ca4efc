//! Reshape, Flatten, Squeeze and Unsqueeze: the same elements in the same order under a new
//! shape. Each has its own shape rule; all fold to the input's data and lower to `kernel.copy`.

use super::{axes_of, consts_graph, dims_input};
use crate::dim::dims_text;
use crate::emit::Emitter;
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::{axis, data_axis_hits, data_dims_without, data_input, element_data};

pub struct Reshape;
pub struct Flatten;
pub struct Squeeze;
pub struct Unsqueeze;

/// The input's data under the output's shape.
fn fold_reshape(op: &dyn OnnxOp, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
    let data = inputs[0]?.data.clone();
    Some(op.infer(node, &consts_graph(node, inputs)).map(|mut types| vec![Tensor { ty: types.remove(0), data }]))
}

/// A shape value under its new shape (a scalar and a one-element vector, back and forth).
fn fold_reshape_shape(
    op: &dyn OnnxOp,
    node: &Node,
    g: &Graph,
    inputs: &[Option<ShapeValue>],
) -> Option<OResult<Vec<ShapeValue>>> {
    let v = inputs[0].as_ref()?;
    let shape = match op.infer(node, g) {
        Ok(mut types) => types.remove(0).shape,
        Err(e) => return Some(Err(e)),
    };
    (shape.len() <= 1).then(|| Ok(vec![ShapeValue { dtype: v.dtype, shape, values: v.values.clone() }]))
}

fn lower_reshape(node: &Node, e: &mut Emitter) -> OResult<()> {
    let (x, out) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
    e.copy(x, out);
    Ok(())
}

impl OnnxOp for Reshape {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        if let Some(spec) = element_data(g, node, 1)? {
            return Ok(vec![TensorType::with_dims(t.dtype, reshape_from_data(node, g, &t.dims(), &spec)?)]);
        }
        let spec = match node.ints("shape") {
            Some(s) => s.into_iter().map(Dim::constant).collect(),
            None => dims_input(g, node, 1, "shape")?.ok_or_else(|| OnnxError::msg("Reshape needs a shape"))?,
        };
        Ok(vec![TensorType::with_dims(t.dtype, reshape_target(node, g, &t.dims(), &spec)?)])
    }
    fn takes_run_time_dims(&self) -> bool {
        true
    }
    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        fold_reshape(self, node, inputs)
    }
    fn fold_shape(&self, node: &Node, g: &Graph, inputs: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        fold_reshape_shape(self, node, g, inputs)
    }
    fn lower(&self, node: &Node, _: &Graph, e: &mut Emitter) -> OResult<()> {
        lower_reshape(node, e)
    }
}

/// The target shape: `-1` takes what is left, `0` copies the input's dim (unless `allowzero`).
/// Over run-time dims, `-1` is what is left, an expression when that divides exactly
/// (`batch*seq*768 / 12*64`), else a dim the run computes and checks to divide (`seq*3 / 2`);
/// without a `-1` the element counts must be equal as expressions. The spec's entries are
/// numbers, or dims when the shape was computed from run-time dims.
fn reshape_target(node: &Node, g: &Graph, input: &[Dim], spec: &[Dim]) -> OResult<Vec<Dim>> {
    let allowzero = node.int("allowzero", 0) == 1;
    let total = Dim::product(input);
    let mut out = Vec::new();
    let mut infer_at = None;
    for (i, d) in spec.iter().enumerate() {
        let Some(s) = d.as_const() else {
            out.push(d.clone());
            continue;
        };
        match s {
            -1 if infer_at.is_none() => {
                infer_at = Some(i);
                out.push(Dim::fixed(1));
            }
            -1 => return err("Reshape shape has more than one -1"),
            0 if !allowzero => out.push(
                input
                    .get(i)
                    .cloned()
                    .ok_or_else(|| OnnxError::msg("Reshape copies a dimension that the input does not have"))?,
            ),
            s if s < 0 => return err(format!("invalid Reshape dimension {s}")),
            s => out.push(Dim::fixed(s as usize)),
        }
    }
    let at_run_time = if total.is_fixed() { "" } else { " for every value of the run-time dims" };
    let too_large = || OnnxError::msg(format!("the Reshape target {} is too large", dims_text(spec)));
    if let Some(i) = infer_at {
        let known = Dim::checked_product(&out).ok_or_else(too_large)?;
        match total.div_exact(&known) {
            Some(rest) => out[i] = rest,
            None if !at_run_time.is_empty() && known.as_const() != Some(0) => {
                let (total, known) = (DataExpr::Dim(total.clone()), DataExpr::Dim(known));
                let rest = total.floor_div(&known);
                let what =
                    format!("cannot reshape {} into {}: the sizes do not divide", dims_text(input), dims_text(spec));
                g.require(rest.mul(&known).eq(&total), what)?;
                out[i] = g.data_dim(format!("{}.{i}", node.outputs[0]), rest);
                return Ok(out);
            }
            None => return err(format!("cannot reshape {} into {}", dims_text(input), dims_text(spec))),
        }
    }
    if Dim::checked_product(&out).ok_or_else(too_large)? != total {
        return err(format!(
            "cannot reshape {} ({total} elements) into {}{at_run_time}",
            dims_text(input),
            dims_text(&out)
        ));
    }
    Ok(out)
}

/// [`reshape_target`] with the shape read at run time: `0` and `-1` are resolved by the run,
/// which checks that at most one entry is `-1` and that the element counts agree.
fn reshape_from_data(node: &Node, g: &Graph, input: &[Dim], spec: &[DataExpr]) -> OResult<Vec<Dim>> {
    let allowzero = node.int("allowzero", 0) == 1;
    let (zero, minus_one) = (DataExpr::num(0), DataExpr::num(-1));
    let total = DataExpr::Dim(Dim::product(input));
    let entries: Vec<DataExpr> = spec
        .iter()
        .enumerate()
        .map(|(j, s)| match input.get(j) {
            Some(d) if !allowzero => s.eq(&zero).select(&DataExpr::Dim(d.clone()), s),
            _ => s.clone(),
        })
        .collect();
    let inferred: Vec<DataExpr> = entries.iter().map(|v| v.eq(&minus_one)).collect();
    g.require(DataExpr::sum(inferred.clone()).lt(&DataExpr::num(2)), "Reshape's shape has more than one -1")?;
    let known = DataExpr::product(entries.iter().zip(&inferred).map(|(v, i)| i.select(&DataExpr::num(1), v)));
    let out: Vec<DataExpr> =
        entries.iter().zip(&inferred).map(|(v, i)| i.select(&total.floor_div(&known), v)).collect();
    g.require(DataExpr::product(out.clone()).eq(&total), "Reshape's shape holds another number of elements")?;
    let name = &node.outputs[0];
    Ok(out.into_iter().enumerate().map(|(j, x)| g.data_dim(format!("{name}.{j}"), x)).collect())
}

impl OnnxOp for Flatten {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        let a = node.int("axis", 1);
        let a = if a < 0 { a + t.shape.len() as i64 } else { a };
        if a < 0 || a as usize > t.shape.len() {
            return err(format!("axis {a} is out of range"));
        }
        let dims = t.dims();
        let (outer, inner) = dims.split_at(a as usize);
        Ok(vec![TensorType::with_dims(t.dtype, vec![Dim::product(outer), Dim::product(inner)])])
    }
    fn takes_run_time_dims(&self) -> bool {
        true
    }
    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        fold_reshape(self, node, inputs)
    }
    fn fold_shape(&self, node: &Node, g: &Graph, inputs: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        fold_reshape_shape(self, node, g, inputs)
    }
    fn lower(&self, node: &Node, _: &Graph, e: &mut Emitter) -> OResult<()> {
        lower_reshape(node, e)
    }
}

impl OnnxOp for Squeeze {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        // A run-time dim is never squeezed: without axes it stays, named it is an error.
        let dims = t.dims();
        if let Some(axes) = data_input(g, node, 1).filter(|_| node.ints("axes").is_none()) {
            let hits = data_axis_hits(g, &axes, dims.len())?;
            for (d, h) in dims.iter().zip(&hits) {
                let squeezable = h.not().select(&DataExpr::num(1), &DataExpr::Dim(d.clone()).eq(&DataExpr::num(1)));
                g.require(squeezable, "Squeeze names a dim whose size is not 1")?;
            }
            let kept = dims.len().checked_sub(axes.len()).ok_or_else(|| OnnxError::msg("more axes than dims"))?;
            // Only a dim of 1 or a run-time dim may be named: with fewer such dims than axes,
            // every run would fail, and the result's type would not hold the input's elements.
            let candidates = dims.iter().filter(|d| d.as_fixed().is_none_or(|n| n == 1)).count();
            if candidates < axes.len() {
                return err(format!(
                    "Squeeze's {} axes cannot all name dims of size 1 in {}",
                    axes.len(),
                    t.describe()
                ));
            }
            return Ok(vec![TensorType::with_dims(
                t.dtype,
                data_dims_without(g, &node.outputs[0], &dims, &hits, kept),
            )]);
        }
        let one = Dim::fixed(1);
        let axes: Vec<usize> = match axes_of(node, g, 1)? {
            Some(a) => a.iter().map(|&x| axis(node, x, t.shape.len())).collect::<OResult<_>>()?,
            None => (0..dims.len()).filter(|&i| dims[i] == one).collect(),
        };
        if let Some(&a) = axes.iter().find(|&&a| dims[a] != one) {
            return err(format!("cannot squeeze dimension {a} of size {}", dims[a]));
        }
        let dims = dims.into_iter().enumerate().filter(|(i, _)| !axes.contains(i)).map(|(_, d)| d).collect();
        Ok(vec![TensorType::with_dims(t.dtype, dims)])
    }
    fn takes_run_time_dims(&self) -> bool {
        true
    }
    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        fold_reshape(self, node, inputs)
    }
    fn fold_shape(&self, node: &Node, g: &Graph, inputs: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        fold_reshape_shape(self, node, g, inputs)
    }
    fn lower(&self, node: &Node, _: &Graph, e: &mut Emitter) -> OResult<()> {
        lower_reshape(node, e)
    }
}

impl OnnxOp for Unsqueeze {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        if let Some(axes) = data_input(g, node, 1).filter(|_| node.ints("axes").is_none()) {
            return Ok(vec![TensorType::with_dims(t.dtype, unsqueeze_from_data(node, g, &t.dims(), &axes)?)]);
        }
        let axes = axes_of(node, g, 1)?.ok_or_else(|| OnnxError::msg("Unsqueeze needs axes"))?;
        let rank = t.shape.len() + axes.len();
        let mut axes: Vec<usize> = axes.iter().map(|&x| axis(node, x, rank)).collect::<OResult<_>>()?;
        axes.sort();
        if axes.windows(2).any(|w| w[0] == w[1]) {
            return err("Unsqueeze names an axis twice");
        }
        let mut dims = t.dims();
        for a in axes {
            dims.insert(a, Dim::fixed(1));
        }
        Ok(vec![TensorType::with_dims(t.dtype, dims)])
    }
    fn takes_run_time_dims(&self) -> bool {
        true
    }
    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        fold_reshape(self, node, inputs)
    }
    fn fold_shape(&self, node: &Node, g: &Graph, inputs: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        fold_reshape_shape(self, node, g, inputs)
    }
    fn lower(&self, node: &Node, _: &Graph, e: &mut Emitter) -> OResult<()> {
        lower_reshape(node, e)
    }
}

/// Unsqueeze's dims with the axes read at run time: dim `p` of the result is 1 where an axis
/// names it, else the next input dim.
fn unsqueeze_from_data(node: &Node, g: &Graph, input: &[Dim], axes: &[DataExpr]) -> OResult<Vec<Dim>> {
    let rank = input.len() + axes.len();
    let hits = data_axis_hits(g, axes, rank)?;
    let mut inserted = DataExpr::num(0);
    let mut out = Vec::new();
    for (p, h) in hits.iter().enumerate() {
        let from = DataExpr::num(p as i64).sub(&inserted);
        let picks =
            input.iter().enumerate().map(|(i, d)| from.eq(&DataExpr::num(i as i64)).mul(&DataExpr::Dim(d.clone())));
        let x = h.select(&DataExpr::num(1), &DataExpr::sum(picks));
        out.push(g.data_dim(format!("{}.{p}", node.outputs[0]), x));
        // A dim of its own, which the later ones name (see `data_dims_without`).
        inserted = DataExpr::Dim(g.dim_of(&inserted.add(h), format!("{}.inserted_before_{}", node.outputs[0], p + 1)));
    }
    Ok(out)
}
