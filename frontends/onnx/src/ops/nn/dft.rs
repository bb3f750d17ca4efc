//! DFT (opsets 17 to 20), expanded ([`crate::ops::expansion`]) into products with constant
//! cosine and sine matrices along the signal axis (the last dim holds the real part, or the
//! real and imaginary parts). Forward: `X_k = sum x_n e^{-2 pi i n k / N}`; inverse: the
//! conjugate kernel over N. `onesided` keeps the first N/2 + 1 bins of a forward transform; an
//! inverse one-sided transform reads N/2 + 1 bins as a Hermitian spectrum and gives the real
//! signal. `dft_length` pads with zeros or truncates the signal and must be known at compile
//! time; so must the axis, unless every axis gives the same output dims (then the transform
//! along each is selected by the axis the run reads).

use crate::graph::*;
use crate::ops::computed_data::computed_data;
use crate::ops::expansion::{Expanded, Expansion};
use std::f64::consts::PI;

pub struct Dft;

impl Expanded for Dft {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = super::float_input(node, g)?;
        let rank = t.shape.len();
        let parts = *t.shape.last().unwrap_or(&0);
        if rank < 2 || !(parts == 1 || parts == 2) || t.is_dynamic() {
            return err(format!("the input must be [..., N, 1 or 2], known at compile time, not {}", t.describe()));
        }
        let axis_input = if node.opset >= 20 { node.input(2) } else { None };
        if let Some(name) = axis_input.filter(|n| !g.consts.contains_key(*n)) {
            return run_time_axis(node, g, x, name);
        }
        let axis = if node.opset >= 20 { constant(node, g, 2)?.unwrap_or(-2) } else { node.int("axis", 1) };
        let axis = if axis < 0 { axis + rank as i64 } else { axis };
        if axis < 0 || axis as usize >= rank - 1 {
            return err(format!("axis {axis} is not a signal axis of {}", t.describe()));
        }
        let y = along(node, g, x, axis as usize)?;
        x.output(&y, Some(&node.outputs[0]));
        Ok(())
    }
}

/// Input `i` as one number known at compile time, if the node has it.
fn constant(node: &Node, g: &Graph, i: usize) -> OResult<Option<i64>> {
    match node.input(i) {
        None => Ok(None),
        Some(name) => match g.consts.get(name).map(Tensor::to_i64).as_deref() {
            Some([v]) => Ok(Some(*v)),
            _ => err(format!("DFT's input '{name}' must be one value known at compile time")),
        },
    }
}

/// The transform along an axis read at run time: the transform along every signal axis,
/// selected by the axis the run is given (checked to be a signal axis). Every candidate must
/// give the same output dims (not so for a one-sided transform, or a dft_length, over axes of
/// different lengths).
fn run_time_axis(node: &Node, g: &Graph, x: &mut Expansion, name: &str) -> OResult<()> {
    let t = g.ty(&node.inputs[0])?;
    let rank = t.shape.len();
    let Some([axis]) = computed_data(g, name)?.and_then(|v| <[DataExpr; 1]>::try_from(v).ok()) else {
        return err(format!("DFT's axis '{name}' must be one integer known at compile time or read from an input"));
    };
    let n = constant(node, g, 1)?;
    let onesided = node.int("onesided", 0) != 0;
    let dims_along = |a: usize| -> Vec<usize> {
        let mut d = t.shape.clone();
        d[a] = n.map_or(d[a], |n| n as usize);
        d
    };
    if onesided || (0..rank - 1).any(|a| dims_along(a) != dims_along(0)) {
        return err(format!(
            "DFT's axis '{name}' decides the output dims of this transform over {}: it must be known at compile time",
            t.describe()
        ));
    }
    let normalized = axis.axis(rank);
    g.require(normalized.in_range(0, rank as i64 - 1), format!("DFT's axis '{name}' must be a signal axis"))?;
    let a = x.cast(name, g.ty(name)?.dtype, DType::I64);
    let a = x.reshape(&a, &[]);
    let (zero, r) = (x.constant(Tensor::from_i64(vec![], &[0])), x.constant(Tensor::from_i64(vec![], &[rank as i64])));
    let negative = x.op("Less", &[&a, &zero], &[]);
    let wrapped = x.op("Add", &[&a, &r], &[]);
    let a = x.op("Where", &[&negative, &wrapped, &a], &[]);
    let mut y = along(node, g, x, rank - 2)?;
    for candidate in (0..rank - 2).rev() {
        let this = along(node, g, x, candidate)?;
        let c = x.constant(Tensor::from_i64(vec![], &[candidate as i64]));
        let chosen = x.op("Equal", &[&a, &c], &[]);
        y = x.op("Where", &[&chosen, &this, &y], &[]);
    }
    x.output(&y, Some(&node.outputs[0]));
    Ok(())
}

/// The transform along `axis` (a signal axis), as a new tensor.
fn along(node: &Node, g: &Graph, x: &mut Expansion, axis: usize) -> OResult<String> {
    let t = g.ty(&node.inputs[0])?;
    let rank = t.shape.len();
    let parts = *t.shape.last().unwrap_or(&0);
    let (inverse, onesided) = (node.int("inverse", 0) != 0, node.int("onesided", 0) != 0);
    let have = t.shape[axis];
    // The signal axis moved next to the last: [..., N, parts].
    let mut perm: Vec<i64> = (0..rank as i64).filter(|&d| d != axis as i64 && d != rank as i64 - 1).collect();
    perm.push(axis as i64);
    perm.push(rank as i64 - 1);
    let moved = x.transpose(&node.inputs[0], &perm);
    let part = |x: &mut Expansion, p: i64| {
        let (s, e, a) = (x.ints(&[p]), x.ints(&[p + 1]), x.ints(&[-1]));
        let sliced = x.op("Slice", &[&moved, &s, &e, &a], &[]);
        let last = x.ints(&[-1]);
        x.op("Squeeze", &[&sliced, &last], &[])
    };
    let re = part(x, 0);
    let im = (parts == 2).then(|| part(x, 1));
    let hermitian = inverse && onesided;
    let n = match constant(node, g, 1)? {
        Some(l) if l > 0 => l as usize,
        Some(l) => return err(format!("dft_length must be positive, not {l}")),
        None if hermitian && have > 0 => 2 * (have - 1),
        None => have,
    };
    // The input's length along the axis, as the matrices read it.
    let rows = if hermitian { have } else { n };
    let (re, im) = (fit(x, &re, have, rows), im.map(|v| fit(x, &v, have, rows)));
    let bins = if onesided && !inverse { n / 2 + 1 } else { n };
    within_matrix_budget(g, rows, bins, t.dtype)?;
    let (c, s) = matrices(rows, bins, n, inverse, hermitian);
    let d = t.dtype;
    let (c, s) =
        (x.constant(Tensor::from_f64(d, vec![rows, bins], &c)), x.constant(Tensor::from_f64(d, vec![rows, bins], &s)));
    let (rc, rs) = (x.op("MatMul", &[&re, &c], &[]), x.op("MatMul", &[&re, &s], &[]));
    let (ic, is) = match &im {
        Some(im) => (Some(x.op("MatMul", &[im, &c], &[])), Some(x.op("MatMul", &[im, &s], &[]))),
        None => (None, None),
    };
    // Forward: re C + im S, im C - re S. Inverse: re C - im S, im C + re S (1/N in C, S).
    let sign = if inverse { "Sub" } else { "Add" };
    let out_re = match &is {
        Some(is) => x.op(sign, &[&rc, is], &[]),
        None => rc,
    };
    let outputs = if hermitian {
        vec![out_re]
    } else {
        let out_im = match (&ic, inverse) {
            (Some(ic), false) => x.op("Sub", &[ic, &rs], &[]),
            (Some(ic), true) => x.op("Add", &[ic, &rs], &[]),
            (None, false) => x.op("Neg", &[&rs], &[]),
            (None, true) => rs,
        };
        vec![out_re, out_im]
    };
    let stacked: Vec<String> = outputs.iter().map(|v| x.unsqueeze(v, &[-1])).collect();
    let refs: Vec<&str> = stacked.iter().map(String::as_str).collect();
    let joined = if refs.len() == 1 { refs[0].to_string() } else { x.op("Concat", &refs, &[("axis", Attr::Int(-1))]) };
    // Back to the input's order.
    let mut back = vec![0i64; rank];
    for (to, &from) in perm.iter().enumerate() {
        back[from as usize] = to as i64;
    }
    Ok(x.op("Transpose", &[&joined], &[("perm", Attr::Ints(back))]))
}

/// Refuses a transform whose two `[rows, bins]` matrices would pass the bytes constants may be
/// made of (`--fold-budget`, 64 MiB by default: an f32 transform of about 2,900 points): the
/// expansion is dense, so a long signal axis would otherwise cost memory in its square.
fn within_matrix_budget(g: &Graph, rows: usize, bins: usize, dtype: DType) -> OResult<()> {
    let what = format!("a transform of {rows} points into {bins} bins, two dense {rows}x{bins} {dtype:?} matrices,");
    g.constant_fits(rows.checked_mul(bins).and_then(|e| e.checked_mul(2)), dtype, &what)
}

/// `v` (its last dim `have` long) cut or zero-padded to `want`.
fn fit(x: &mut Expansion, v: &str, have: usize, want: usize) -> String {
    if have == want {
        return v.to_string();
    }
    if have > want {
        let (s, e, a) = (x.ints(&[0]), x.ints(&[want as i64]), x.ints(&[-1]));
        return x.op("Slice", &[v, &s, &e, &a], &[]);
    }
    let (pads, axes) = (x.ints(&[0, (want - have) as i64]), x.ints(&[-1]));
    x.op("Pad", &[v, &pads, "", &axes], &[])
}

/// The `[rows, bins]` cosine and sine matrices of an N-point transform: `cos(2 pi r k / N)` and
/// `sin(...)`, over N for the inverse; a Hermitian input's rows past the first and before the
/// Nyquist bin count twice (they stand for their conjugates too).
fn matrices(rows: usize, bins: usize, n: usize, inverse: bool, hermitian: bool) -> (Vec<f64>, Vec<f64>) {
    let scale = if inverse { 1.0 / n as f64 } else { 1.0 };
    let (mut c, mut s) = (Vec::with_capacity(rows * bins), Vec::with_capacity(rows * bins));
    for r in 0..rows {
        let twice = hermitian && r > 0 && 2 * r != n;
        let weight = scale * if twice { 2.0 } else { 1.0 };
        for k in 0..bins {
            let angle = 2.0 * PI * ((r * k) % n) as f64 / n as f64;
            c.push(weight * angle.cos());
            s.push(weight * angle.sin());
        }
    }
    (c, s)
}
