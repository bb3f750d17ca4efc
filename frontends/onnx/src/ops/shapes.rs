//! Shape arithmetic the operators share: broadcasting, axes, strides.

use crate::graph::*;
use crate::ops::computed_data::computed_data;

/// Numpy-style multidirectional broadcasting.
pub fn broadcast(a: &[usize], b: &[usize]) -> OResult<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let x = if i + a.len() >= n { a[i + a.len() - n] } else { 1 };
        let y = if i + b.len() >= n { b[i + b.len() - n] } else { 1 };
        out[i] = match (x, y) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return err(format!("shapes {a:?} and {b:?} cannot be broadcast together")),
        };
    }
    Ok(out)
}

/// [`broadcast`] over dims that may be known only at run time: equal dims, or one of them 1.
/// Two different expressions could be equal or 1 at run time, but the code is generated for
/// one rule, so they are an error (fix one of them with `--dim`).
pub fn broadcast_dims(a: &[Dim], b: &[Dim]) -> OResult<Vec<Dim>> {
    broadcast_with(a, b, &mut |_, _| Ok(None))
}

/// [`broadcast_dims`], except that two different dims where one is computed by the run (a data
/// dim, like `size.1` read from an input) are required equal: every run checks it before it
/// starts, and refuses other values. Expanded functions compute one size in two ways (AffineGrid's
/// `Range(0, H)` against `ConstantOfShape([H, W])`), which only the run can compare.
pub fn broadcast_dims_in(g: &Graph, a: &[Dim], b: &[Dim]) -> OResult<Vec<Dim>> {
    broadcast_with(a, b, &mut |x, y| Ok(same_dim_in(g, x, y)?.then(|| plainer(x, y).clone())))
}

/// Of two dims checked equal, a number where one is (a head size that a dim_param names and the
/// weights fix), else the one the run does not compute (`past+sequence` rather than the length
/// of a slice of a constant mask), so that what follows keeps the model's own dims.
pub fn plainer<'a>(x: &'a Dim, y: &'a Dim) -> &'a Dim {
    let computed = |d: &Dim| d.symbols().iter().any(|s| s.contains('.'));
    if (y.is_fixed() && !x.is_fixed()) || (computed(x) && !computed(y)) {
        y
    } else {
        x
    }
}

/// Whether dims `x` and `y` are one: equal expressions, or different ones that the ranges of
/// their symbols do not tell apart (`total` and `past+sequence`: an attention mask and the
/// cache it covers), which every run then checks are equal before it starts, as ONNX Runtime
/// checks them when it runs the node (`XCC_ERROR_BAD_DIM` where they differ). A dim of 1 at run
/// time is not broadcast there: the kernels' broadcasting is decided at compile time.
pub fn same_dim_in(g: &Graph, x: &Dim, y: &Dim) -> OResult<bool> {
    if x == y {
        return Ok(true);
    }
    let (lo, hi) = x.sub(y).interval(&|s| g.symbol_range(s));
    if lo > 0 || hi < 0 {
        return Ok(false);
    }
    g.require(DataExpr::Dim(x.clone()).eq(&DataExpr::Dim(y.clone())), format!("dims {x} and {y} are equal"))?;
    Ok(true)
}

/// Broadcasting where `differ` decides two different dims, neither 1 (`None`: an error).
fn broadcast_with(
    a: &[Dim],
    b: &[Dim],
    differ: &mut dyn FnMut(&Dim, &Dim) -> OResult<Option<Dim>>,
) -> OResult<Vec<Dim>> {
    let n = a.len().max(b.len());
    let one = Dim::fixed(1);
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let x = if i + a.len() >= n { &a[i + a.len() - n] } else { &one };
        let y = if i + b.len() >= n { &b[i + b.len() - n] } else { &one };
        out.push(match (x, y) {
            (x, y) if x == y => x.clone(),
            (x, y) if *x == one => y.clone(),
            (x, y) if *y == one => x.clone(),
            (x, y) if x.is_fixed() && y.is_fixed() => return err(broadcast_error(a, b, String::new())),
            (x, y) => match differ(x, y)? {
                Some(d) => d,
                None => return err(broadcast_error(a, b, format!(": dims {x} and {y} differ in every run"))),
            },
        });
    }
    Ok(out)
}

fn broadcast_error(a: &[Dim], b: &[Dim], why: String) -> String {
    format!("shapes {} and {} cannot be broadcast together{why}", crate::dim::dims_text(a), crate::dim::dims_text(b))
}

/// The dims of an image-like input `N x C x spatial...` whose batch and spatial dims may be known
/// only at run time, but not its channels (weights and statistics are per channel).
pub fn image_dims(name: &str, t: &TensorType) -> OResult<Vec<Dim>> {
    let dims = t.dims();
    if dims.get(1).is_some_and(|c| !c.is_fixed()) {
        return Err(OnnxError::tensor(
            name,
            format!("the channels (dim 1) must be known at compile time, and this input is {}", t.describe()),
        ));
    }
    Ok(dims)
}

/// Normalizes a possibly negative axis against `rank`.
pub fn axis(node: &Node, a: i64, rank: usize) -> OResult<usize> {
    let r = rank as i64;
    let v = if a < 0 { a + r } else { a };
    if rank == 0 {
        return err(format!("axis {a} names no dim of a scalar ({})", node.describe()));
    }
    if v < 0 || v >= r {
        return err(format!("axis {a} is out of range for rank {rank} ({})", node.describe()));
    }
    Ok(v as usize)
}

pub fn strides_of(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// The flat index in a broadcast input for a flat index in the output.
pub fn broadcast_index(out_shape: &[usize], in_shape: &[usize], mut flat: usize) -> usize {
    let off = out_shape.len() - in_shape.len();
    let in_strides = strides_of(in_shape);
    let mut idx = 0;
    for d in (0..out_shape.len()).rev() {
        let c = flat % out_shape[d];
        flat /= out_shape[d];
        if d >= off && in_shape[d - off] != 1 {
            idx += c * in_strides[d - off];
        }
    }
    idx
}

/// Input `i` when it is a graph input of static shape holding integers (a shape, axes or a count
/// given at run time): its elements, which the run reads before anything else. `None` for any
/// other input (a constant, or a tensor some node computes).
pub fn data_input(g: &Graph, node: &Node, i: usize) -> Option<Vec<DataExpr>> {
    input_elements(g, node.input(i)?)
}

/// Input `i` when its values are read from graph inputs' elements at run time: such an input
/// itself ([`data_input`]), or integers computed from one by other nodes
/// ([`computed_data`]: AffineGrid's output shape from its `size`). `None` for a constant, dims
/// alone, or a tensor the run computes otherwise.
pub fn element_data(g: &Graph, node: &Node, i: usize) -> OResult<Option<Vec<DataExpr>>> {
    let Some(name) = node.input(i) else { return Ok(None) };
    if g.consts.contains_key(name) {
        return Ok(None);
    }
    Ok(computed_data(g, name)?.filter(|v| v.iter().any(DataExpr::reads_elements)))
}

/// The elements of graph input `name` ([`data_input`]).
/// The most elements of a graph input read as run-time values (a shape, axes, pads, scales: a
/// handful; a longer one is not such an input, and would only make every expression long).
const MAX_INPUT_ELEMENTS: usize = 256;

pub fn input_elements(g: &Graph, name: &str) -> Option<Vec<DataExpr>> {
    if !g.inputs.iter().any(|x| x == name) || g.consts.contains_key(name) {
        return None;
    }
    let t = g.types.get(name)?;
    // A bool reads as 0 or -1 (sign-extended): compare it with 0. Strings and the real formats
    // (float8, float4) are no integers.
    let int = !t.dtype.is_real() && t.dtype != DType::Str;
    if !int || t.is_dynamic() || t.shape.len() > 1 || t.numel() > MAX_INPUT_ELEMENTS {
        return None;
    }
    Some((0..t.numel()).map(|k| DataExpr::element(name, k)).collect())
}

/// Input `i` when it is a graph input of static shape holding floats (Resize's scales given at
/// run time): its elements as reals. `None` for any other input.
pub fn real_input(g: &Graph, node: &Node, i: usize) -> Option<Vec<DataExpr>> {
    let name = node.input(i)?;
    if !g.inputs.iter().any(|x| x == name) || g.consts.contains_key(name) {
        return None;
    }
    let t = g.types.get(name)?;
    if !t.dtype.is_float() || t.is_dynamic() || t.shape.len() > 1 || t.numel() > MAX_INPUT_ELEMENTS {
        return None;
    }
    Some((0..t.numel()).map(|k| DataExpr::real_element(name, k)).collect())
}

/// Input `i` if the node has it, as values the run knows before anything else: a constant's
/// numbers, a shape value's dims (a shape computed from run-time dims), a graph input's
/// elements ([`data_input`]), or integers computed from those by other nodes
/// ([`computed_data`]). `what` names it in the error for any other tensor.
pub fn shape_data(g: &Graph, node: &Node, i: usize, what: &str) -> OResult<Option<Vec<DataExpr>>> {
    let Some(name) = node.input(i) else { return Ok(None) };
    computed_data(g, name)?.map(Some).ok_or_else(|| {
        OnnxError::tensor(
            name,
            format!(
                "{}'s {what} must be a constant, a graph input holding integers, or integers computed from those \
                 and from dims (Shape, Gather, Concat, Add, Sub, Mul, Div, Max, Min, ...)",
                node.op
            ),
        )
    })
}

/// Each of `rank` axes as a count (0 or 1 when the axes are distinct) of the `axes` naming it,
/// negative ones counted from the end; every run checks that the axes are in range and
/// distinct.
pub fn data_axis_hits(g: &Graph, axes: &[DataExpr], rank: usize) -> OResult<Vec<DataExpr>> {
    // Each dim's expression grows with the axes (Unsqueeze's with their square): a bound keeps
    // compile time in seconds. Constant axes have no such limit.
    if axes.len() > MAX_RUN_TIME_AXES {
        return err(format!("{} axes read at run time; xcc takes at most {MAX_RUN_TIME_AXES}", axes.len()));
    }
    for a in axes {
        g.require(a.axis(rank).in_range(0, rank as i64), format!("an axis is out of range for rank {rank}"))?;
    }
    let hits = axis_hits(axes, rank);
    for h in &hits {
        g.require(h.lt(&DataExpr::num(2)), "an axis is named twice")?;
    }
    Ok(hits)
}

/// The most axes an operator reads at run time.
const MAX_RUN_TIME_AXES: usize = 8;

/// [`data_axis_hits`] without the checks (a lowering's view of what inference checked).
pub fn axis_hits(axes: &[DataExpr], rank: usize) -> Vec<DataExpr> {
    let axes: Vec<DataExpr> = axes.iter().map(|a| a.axis(rank)).collect();
    (0..rank).map(|i| DataExpr::sum(axes.iter().map(|a| a.eq(&DataExpr::num(i as i64))))).collect()
}

/// The dims left when the axes `hits` marks are dropped: dim `q` of the result is the `q`-th
/// unmarked one, as data dims named `{name}.{q}`.
pub fn data_dims_without(g: &Graph, name: &str, dims: &[Dim], hits: &[DataExpr], kept: usize) -> Vec<Dim> {
    // Each position a dim of its own, which the later ones name: as one expression it would
    // grow with every axis before it, and be repeated for each dim it picks.
    let mut position = DataExpr::num(0);
    let mut at = Vec::new();
    for (i, h) in hits.iter().enumerate() {
        at.push(position.clone());
        position = DataExpr::Dim(g.dim_of(&position.add(&h.not()), format!("{name}.kept_before_{}", i + 1)));
    }
    (0..kept)
        .map(|q| {
            let picks = dims.iter().zip(hits).zip(&at).map(|((d, h), p)| {
                let here = h.not().and(&p.eq(&DataExpr::num(q as i64)));
                here.mul(&DataExpr::Dim(d.clone()))
            });
            g.data_dim(format!("{name}.{q}"), DataExpr::sum(picks))
        })
        .collect()
}
