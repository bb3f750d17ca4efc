//! Shape arithmetic the operators share: broadcasting, axes, strides.

use crate::graph::*;

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
            _ => {
                let why = if x.is_fixed() && y.is_fixed() {
                    String::new()
                } else {
                    format!(": dims {x} and {y} may differ at run time")
                };
                return err(format!(
                    "shapes {} and {} cannot be broadcast together{why}",
                    crate::dim::dims_text(a),
                    crate::dim::dims_text(b)
                ));
            }
        });
    }
    Ok(out)
}

/// The dims of an input whose batch (dim 0) alone may be known only at run time (a CNN's
/// operators: convolutions, pooling, normalizations).
pub fn batch_dims(name: &str, t: &TensorType) -> OResult<Vec<Dim>> {
    let dims = t.dims();
    if dims.iter().skip(1).any(|d| !d.is_fixed()) {
        return Err(OnnxError::tensor(
            name,
            format!("only the batch (dim 0) may be known only at run time here, and this input is {}", t.describe()),
        ));
    }
    Ok(dims)
}

/// Normalizes a possibly negative axis against `rank`.
pub fn axis(node: &Node, a: i64, rank: usize) -> OResult<usize> {
    let r = rank as i64;
    let v = if a < 0 { a + r } else { a };
    if v < 0 || v >= r.max(1) {
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
