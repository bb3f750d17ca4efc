//! Scan, unrolled over the scan inputs' length, known at compile time: each step's body gets
//! the states and the scan inputs' slices along their axes (from the end with a reverse
//! direction); the scan outputs are the steps' values stacked along their axes.
//!
//! Scan before opset 9 has a batch dim first on every state, scan input and output, and scans
//! along dim 1: each batch entry is the opset-9 scan of its slices, and the results are stacked
//! back along dim 0. Its `sequence_lens` must be absent or a constant of the whole length
//! (shorter sequences would leave the later steps' outputs undefined per entry).

use super::{body, inline, MAX_UNROLL};
use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct Scan;

/// The scan's layout: how many states, and per scan input and output its axis and direction.
struct Layout {
    states: usize,
    in_axes: Vec<i64>,
    in_reversed: Vec<bool>,
    out_axes: Vec<i64>,
    out_reversed: Vec<bool>,
    length: usize,
}

impl Expanded for Scan {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        if node.opset < 9 {
            return batched(node, g, x);
        }
        let scan_inputs = node.int("num_scan_inputs", 0).max(0) as usize;
        let states = node
            .inputs
            .len()
            .checked_sub(scan_inputs)
            .ok_or_else(|| OnnxError::msg("num_scan_inputs is more than the inputs"))?;
        let list = |name: &str, n: usize| -> Vec<i64> { node.ints(name).unwrap_or_else(|| vec![0; n]) };
        let outputs = node.outputs.len().saturating_sub(states);
        let mut layout = Layout {
            states,
            in_axes: list("scan_input_axes", scan_inputs),
            in_reversed: list("scan_input_directions", scan_inputs).iter().map(|&d| d == 1).collect(),
            out_axes: list("scan_output_axes", outputs),
            out_reversed: list("scan_output_directions", outputs).iter().map(|&d| d == 1).collect(),
            length: 0,
        };
        let inputs: Vec<&str> = node.inputs.iter().map(String::as_str).collect();
        layout.length = scan_length(node, g, &inputs[states..], &mut layout.in_axes)?;
        let results = unrolled(node, x, &layout, &inputs, "")?;
        for (o, v) in node.outputs.iter().zip(results).filter(|(o, _)| !o.is_empty()) {
            x.output(&v, Some(o));
        }
        Ok(())
    }
}

/// The common length of the scan inputs along their axes (normalized in place).
fn scan_length(node: &Node, g: &Graph, inputs: &[&str], axes: &mut [i64]) -> OResult<usize> {
    let mut length = None;
    for (k, name) in inputs.iter().enumerate() {
        let t = g.ty(name)?;
        let axis = crate::ops::shapes::axis(node, axes.get(k).copied().unwrap_or(0), t.shape.len())?;
        let Some(n) = t.dims()[axis].as_fixed() else {
            return err(format!("scan input '{name}' must have its length known at compile time"));
        };
        if length.is_some_and(|l| l != n) {
            return err("the scan inputs have different lengths");
        }
        length = Some(n);
        if let Some(a) = axes.get_mut(k) {
            *a = axis as i64;
        }
    }
    let length = length.ok_or_else(|| OnnxError::msg("Scan needs a scan input"))?;
    if length > MAX_UNROLL || length == 0 {
        return err(format!("Scan's length {length} must be between 1 and {MAX_UNROLL} (xcc unrolls it)"));
    }
    Ok(length)
}

/// The scan of `inputs` (states, then scan inputs) unrolled: the final states, then the
/// stacked scan outputs ("" where the node leaves an output out).
fn unrolled(node: &Node, x: &mut Expansion, l: &Layout, inputs: &[&str], tag: &str) -> OResult<Vec<String>> {
    let b = body(node, "body")?;
    let mut state: Vec<String> = inputs[..l.states].iter().map(|s| s.to_string()).collect();
    let mut steps: Vec<Vec<String>> = Vec::new();
    for step in 0..l.length {
        let mut actuals = state.clone();
        for (k, name) in inputs[l.states..].iter().enumerate() {
            let at = if l.in_reversed.get(k) == Some(&true) { l.length - 1 - step } else { step };
            let index = x.constant(Tensor::from_i64(vec![], &[at as i64]));
            actuals.push(x.op("Gather", &[name, &index], &[("axis", Attr::Int(l.in_axes[k]))]));
        }
        let prefix = format!("{}#scan{tag}{step}.", node.outputs.first().map_or("", String::as_str));
        let outs = inline(x, b, &prefix, &actuals)?;
        state = outs[..l.states].to_vec();
        steps.push(outs[l.states..].to_vec());
    }
    let mut results = state;
    for (k, o) in node.outputs.iter().enumerate().skip(l.states) {
        let column = k - l.states;
        if o.is_empty() {
            results.push(String::new());
            continue;
        }
        let axis = l.out_axes.get(column).copied().unwrap_or(0);
        let mut order: Vec<&Vec<String>> = steps.iter().collect();
        if l.out_reversed.get(column) == Some(&true) {
            order.reverse();
        }
        let stacked: Vec<String> = order.iter().map(|s| x.unsqueeze(&s[column], &[axis])).collect();
        let refs: Vec<&str> = stacked.iter().map(String::as_str).collect();
        results.push(x.op("Concat", &refs, &[("axis", Attr::Int(axis))]));
    }
    Ok(results)
}

/// Scan before opset 9: `[sequence_lens], states..., scan inputs...`, every one batched along
/// dim 0, scanned along dim 1.
fn batched(node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
    let scan_inputs = node.int("num_scan_inputs", 0).max(0) as usize;
    let inputs = &node.inputs[1.min(node.inputs.len())..];
    let states = inputs
        .len()
        .checked_sub(scan_inputs)
        .ok_or_else(|| OnnxError::msg("num_scan_inputs is more than the inputs"))?;
    let Some(first) = inputs.get(states) else { return err("Scan needs a scan input") };
    let ft = g.ty(first)?;
    let (Some(batch), Some(length)) =
        (ft.dims().first().and_then(Dim::as_fixed), ft.dims().get(1).and_then(Dim::as_fixed))
    else {
        return err(format!(
            "Scan's inputs must be [batch, length, ...], known at compile time, not {}",
            ft.describe()
        ));
    };
    if let Some(lens) = node.input(0) {
        let whole = g.consts.get(lens).map(Tensor::to_i64).is_some_and(|v| v.iter().all(|&n| n == length as i64));
        if !whole {
            return err("Scan's sequence_lens must be absent or a constant of the whole length (shorter sequences are not supported)");
        }
    }
    let directions = node.ints("directions").unwrap_or_else(|| vec![0; scan_inputs]);
    let outputs = node.outputs.len().saturating_sub(states);
    let mut layout = Layout {
        states,
        in_axes: vec![0; scan_inputs],
        in_reversed: directions.iter().map(|&d| d == 1).collect(),
        out_axes: vec![0; outputs],
        out_reversed: vec![false; outputs],
        length: 0,
    };
    // The scan inputs' length along dim 1, their slices' dim 0.
    let originals: Vec<&str> = inputs[states..].iter().map(String::as_str).collect();
    layout.length = scan_length(node, g, &originals, &mut vec![1; scan_inputs])?;
    if length != layout.length {
        return err("the scan inputs have different lengths");
    }
    // Every batch entry is unrolled too: the entries' steps together are bounded as one scan's
    // (a batch of 2^31 ran out of memory).
    if batch.saturating_mul(length) > MAX_UNROLL {
        return err(format!(
            "Scan's batch of {batch} and length {length} unroll into more than {MAX_UNROLL} steps (xcc unrolls it)"
        ));
    }
    let per_entry: Vec<String> = inputs.to_vec();
    let mut columns: Vec<Vec<String>> = vec![Vec::new(); node.outputs.len()];
    for b in 0..batch {
        let index = x.constant(Tensor::from_i64(vec![], &[b as i64]));
        let slices: Vec<String> =
            per_entry.iter().map(|name| x.op("Gather", &[name, &index], &[("axis", Attr::Int(0))])).collect();
        let refs: Vec<&str> = slices.iter().map(String::as_str).collect();
        let results = unrolled(node, x, &layout, &refs, &format!("b{b}."))?;
        for (column, v) in columns.iter_mut().zip(results) {
            column.push(v);
        }
    }
    for (o, column) in node.outputs.iter().zip(columns).filter(|(o, _)| !o.is_empty()) {
        let stacked: Vec<String> = column.iter().map(|v| x.unsqueeze(v, &[0])).collect();
        let refs: Vec<&str> = stacked.iter().map(String::as_str).collect();
        x.op_to("Concat", &refs, &[("axis", Attr::Int(0))], &[o]);
    }
    Ok(())
}
