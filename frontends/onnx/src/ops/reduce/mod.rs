//! Reductions: the Reduce* operators (a table of kinds, lowered to `kernel.generic` with
//! reduction loops), ArgMax/ArgMin and TopK (parallel loops over the kept dims carrying a value
//! and an index), CumSum and CumProd (serial along their axis). Axes come from the attribute (older opsets) or a constant input (ReduceSum
//! from 13, the rest from 18); empty axes reduce everything unless `noop_with_empty_axes`.

mod arg;
mod cumulative;
mod reduction;
mod topk;

use crate::graph::*;
use crate::ops::schema::Schema;
use crate::ops::shapes::{axis, data_input};

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    for kind in reduction::REDUCTIONS {
        // Axes are input 1 from ReduceSum's opset 13 and the others' 18 (before: an attribute).
        r.register(std::slice::from_ref(&kind.name), kind, Schema::inputs(1, 2).int64(&[1]));
    }
    r.register(&["ArgMax", "ArgMin"], &arg::ArgReduce, Schema::exactly(1));
    r.register(&["TopK"], &topk::TopK, Schema::inputs(1, 2).required_from(10, 2).int64(&[1]));
    r.register(&["CumSum", "CumProd"], &cumulative::Cumulative, Schema::exactly(2));
}

/// The reduced axes, sorted, or `None` for the identity (empty axes with `noop_with_empty_axes`).
fn reduced_axes(node: &Node, g: &Graph, rank: usize) -> OResult<Option<Vec<usize>>> {
    let axes = match node.ints("axes") {
        Some(a) => a,
        None => match node.input(1) {
            Some(name) => match (g.consts.get(name), data_axes(node, g)) {
                (Some(t), _) => t.to_i64(),
                (None, Some(a)) if a.is_empty() => Vec::new(),
                _ => return err(format!("axes '{name}' must be a constant or a graph input")),
            },
            None => Vec::new(),
        },
    };
    if axes.is_empty() {
        return Ok(if node.int("noop_with_empty_axes", 0) == 1 { None } else { Some((0..rank).collect()) });
    }
    let mut v: Vec<usize> = axes.iter().map(|&a| axis(node, a, rank)).collect::<OResult<_>>()?;
    v.sort();
    v.dedup();
    Ok(Some(v))
}

/// The axes when they are a graph input, read at run time.
fn data_axes(node: &Node, g: &Graph) -> Option<Vec<DataExpr>> {
    if node.ints("axes").is_some() {
        return None;
    }
    data_input(g, node, 1)
}

/// The dims after reducing `axes`: 1 there with `keepdims` (the default), else dropped.
fn reduced_dims(node: &Node, dims: &[Dim], axes: &[usize]) -> Vec<Dim> {
    let keep = node.int("keepdims", 1) == 1;
    let kept = |(i, d): (usize, &Dim)| if axes.contains(&i) { keep.then(|| Dim::fixed(1)) } else { Some(d.clone()) };
    dims.iter().enumerate().filter_map(kept).collect()
}

/// The smallest and largest value of an integer element type.
fn min_of(d: DType) -> f64 {
    match d {
        DType::I8 => i8::MIN as f64,
        DType::I16 => i16::MIN as f64,
        DType::I32 => i32::MIN as f64,
        d if d.is_unsigned() => 0.0,
        _ => i64::MIN as f64,
    }
}

fn max_of(d: DType) -> f64 {
    match d {
        DType::I8 => i8::MAX as f64,
        DType::I16 => i16::MAX as f64,
        DType::I32 => i32::MAX as f64,
        DType::U8 => u8::MAX as f64,
        DType::U16 => u16::MAX as f64,
        DType::U32 => u32::MAX as f64,
        DType::U64 => u64::MAX as f64,
        DType::Bool => 1.0,
        _ => i64::MAX as f64,
    }
}
