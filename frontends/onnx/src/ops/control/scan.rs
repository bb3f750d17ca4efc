//! Scan (opset 9 on), unrolled over the scan inputs' length, known at compile time: each step's
//! body gets the states and the scan inputs' slices along their axes (from the end with a
//! reverse direction); the scan outputs are the steps' values stacked along their axes.

use super::{body, inline, MAX_UNROLL};
use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct Scan;

impl Expanded for Scan {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        if node.opset < 9 {
            return err("Scan before opset 9 (with a batch dim and sequence_lens) is not supported");
        }
        let b = body(node, "body")?;
        let scan_inputs = node.int("num_scan_inputs", 0).max(0) as usize;
        let states = node
            .inputs
            .len()
            .checked_sub(scan_inputs)
            .ok_or_else(|| OnnxError::msg("num_scan_inputs is more than the inputs"))?;
        let list = |name: &str, n: usize| -> Vec<i64> { node.ints(name).unwrap_or_else(|| vec![0; n]) };
        let (in_axes, in_directions) =
            (list("scan_input_axes", scan_inputs), list("scan_input_directions", scan_inputs));
        let outputs = node.outputs.len() - states;
        let (out_axes, out_directions) = (list("scan_output_axes", outputs), list("scan_output_directions", outputs));
        let mut length = None;
        let mut axes = Vec::new();
        for (k, name) in node.inputs[states..].iter().enumerate() {
            let t = g.ty(name)?;
            let axis = crate::ops::shapes::axis(node, in_axes.get(k).copied().unwrap_or(0), t.shape.len())?;
            let Some(n) = t.dims()[axis].as_fixed() else {
                return err(format!("scan input '{name}' must have its length known at compile time"));
            };
            if length.is_some_and(|l| l != n) {
                return err("the scan inputs have different lengths");
            }
            length = Some(n);
            axes.push(axis as i64);
        }
        let length = length.ok_or_else(|| OnnxError::msg("Scan needs a scan input"))?;
        if length > MAX_UNROLL || length == 0 {
            return err(format!("Scan's length {length} must be between 1 and {MAX_UNROLL} (xcc unrolls it)"));
        }
        let mut state: Vec<String> = node.inputs[..states].to_vec();
        let mut steps: Vec<Vec<String>> = Vec::new();
        for step in 0..length {
            let mut actuals = state.clone();
            for (k, name) in node.inputs[states..].iter().enumerate() {
                let at = if in_directions.get(k) == Some(&1) { length - 1 - step } else { step };
                let index = x.constant(Tensor::from_i64(vec![], &[at as i64]));
                actuals.push(x.op("Gather", &[name, &index], &[("axis", Attr::Int(axes[k]))]));
            }
            let prefix = format!("{}#scan{step}.", node.outputs.first().map_or("", String::as_str));
            let outs = inline(x, b, &prefix, &actuals)?;
            state = outs[..states].to_vec();
            steps.push(outs[states..].to_vec());
        }
        for (o, v) in node.outputs.iter().zip(&state) {
            x.output(v, Some(o));
        }
        for (k, o) in node.outputs.iter().enumerate().skip(states).filter(|(_, o)| !o.is_empty()) {
            let column = k - states;
            let axis = out_axes.get(column).copied().unwrap_or(0);
            let mut order: Vec<&Vec<String>> = steps.iter().collect();
            if out_directions.get(column) == Some(&1) {
                order.reverse();
            }
            let stacked: Vec<String> = order.iter().map(|s| x.unsqueeze(&s[column], &[axis])).collect();
            let refs: Vec<&str> = stacked.iter().map(String::as_str).collect();
            x.op_to("Concat", &refs, &[("axis", Attr::Int(axis))], &[o]);
        }
        Ok(())
    }
}
