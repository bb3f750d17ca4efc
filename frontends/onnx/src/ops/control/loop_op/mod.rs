//! Loop. With a trip count known at compile time (at most [`MAX_UNROLL`]) and a condition
//! that cannot stop it early (absent or true, and passed through by the body), it is unrolled:
//! each iteration's body is copied into the graph with the iteration number, `true` and the
//! carried values, and the scan outputs are the iterations' values stacked.
//!
//! Otherwise it is a loop at run time ([`run_time`]): the trip count (and a condition given as
//! an input and passed through) read by the run before anything else, as a data dim, and the
//! body, inferred as a graph of its own, lowered once inside an `scf.for`.

use super::{body, constant_count, inline, MAX_UNROLL};
use crate::emit::Emitter;
use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};
use crate::ops::onnx_op::OnnxOp;

mod run_time;

pub struct Loop;

impl OnnxOp for Loop {
    fn expand(&self, node: &Node, g: &Graph) -> Option<OResult<Vec<Node>>> {
        // The trip count and the condition are optional, but their places are not.
        if node.inputs.len() < 2 {
            return Some(err(
                "Loop takes a trip count and a condition (either may be left empty), then the carried values",
            ));
        }
        if !unrolls(node, g) {
            return None;
        }
        let mut x = Expansion::new(node);
        Some(Unrolled.write(node, g, &mut x).map(|()| x.finish()))
    }

    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        run_time::output_types(node, g)
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        run_time::lower(node, g, e)
    }
}

/// Whether the loop unrolls: a constant trip count of at most [`MAX_UNROLL`], a condition absent
/// or constant true that the body passes through, and copies of the body (with the loops inside
/// it unrolled too) within what is left of the model's [`crate::graph::UnrollBudget`]: a Loop of
/// 4,096 iterations inside another would otherwise become 16.8 million nodes.
fn unrolls(node: &Node, g: &Graph) -> bool {
    let count = constant_count(node, g, 0).and_then(Result::ok);
    let cond_true =
        node.input(1).is_none_or(|c| g.consts.get(c).is_some_and(|t| t.to_f64().first().is_some_and(|&v| v != 0.0)));
    let Ok(b) = body(node, "body") else { return false };
    let paid = match node.attrs.get(PAID) {
        Some(Attr::Int(p)) => usize::try_from(*p).unwrap_or(0),
        _ => 0,
    };
    let fits =
        |n: usize| n <= MAX_UNROLL && g.unroll_budget.take(n.saturating_mul(unrolled_size(b, g)).saturating_sub(paid));
    cond_true && passes_condition_through(b) && count.is_some_and(fits)
}

/// On the Loops inside an unrolled Loop's body: the nodes of theirs that the outer Loop took from
/// the budget already (its estimate counted them), so that expanding them takes only the rest.
const PAID: &str = "xcc.unroll_paid";

/// `b` with each Loop node in it marked with its share of `b`'s [`unrolled_size`] ([`PAID`]).
fn with_paid_loops(b: &Subgraph, g: &Graph) -> Subgraph {
    let mut marked = b.clone();
    for n in marked.nodes.iter_mut().filter(|n| n.op == "Loop") {
        let trips = n.input(0).and_then(|t| constant_in(t, b, g)).unwrap_or(1).max(1);
        let share = body(n, "body").map_or(1, |inner| trips.saturating_mul(unrolled_size(inner, g)));
        n.attrs.insert(PAID.into(), Attr::Int(i64::try_from(share).unwrap_or(i64::MAX)));
    }
    marked
}

/// The nodes `b` becomes with its Loops of constant counts unrolled (at least one per node; a
/// Loop whose count is known only at run time counts its body once; an If both branches).
fn unrolled_size(b: &Subgraph, g: &Graph) -> usize {
    b.nodes.iter().fold(0usize, |total, n| {
        let size = match n.op.as_str() {
            "Loop" => {
                let trips = n.input(0).and_then(|t| constant_in(t, b, g)).unwrap_or(1).max(1);
                body(n, "body").map_or(1, |inner| trips.saturating_mul(unrolled_size(inner, g)))
            }
            "If" | "Scan" => n
                .attrs
                .values()
                .filter_map(|a| if let Attr::Graph(inner) = a { Some(unrolled_size(inner, g)) } else { None })
                .fold(1usize, usize::saturating_add),
            _ => 1,
        };
        total.saturating_add(size)
    })
}

/// The one value of the integer tensor `name` where it is a constant of body `b` (an
/// initializer or a Constant node) or of the graph around it.
fn constant_in(name: &str, b: &Subgraph, g: &Graph) -> Option<usize> {
    let from_node = || {
        let producer = b.nodes.iter().find(|n| n.op == "Constant" && n.outputs.iter().any(|o| o == name))?;
        match producer.attrs.get("value") {
            Some(Attr::Tensor(t)) => Some(t.clone()),
            _ => None,
        }
    };
    let t = b.consts.iter().find(|(n, _)| n == name).map(|(_, t)| t.clone()).or_else(|| g.consts.get(name).cloned());
    match t.or_else(from_node)?.to_i64().as_slice() {
        [v] => usize::try_from(*v).ok(),
        _ => None,
    }
}

/// The unrolled form.
struct Unrolled;

impl Expanded for Unrolled {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let b = body(node, "body")?;
        let Some(trips) = constant_count(node, g, 0) else {
            return err("Loop without a trip count (a loop until its condition) is not supported");
        };
        let trips = trips?;
        if trips > MAX_UNROLL {
            return err(format!("Loop's trip count {trips} is more than the {MAX_UNROLL} iterations xcc unrolls"));
        }
        if let Some(c) = node.input(1) {
            let always = g.consts.get(c).is_some_and(|t| t.to_f64().first().is_some_and(|&v| v != 0.0));
            if !always {
                return err("Loop's condition must be absent or a constant true (xcc unrolls a fixed count)");
            }
        }
        if !passes_condition_through(b) {
            return err("a Loop whose body computes its condition is not supported (xcc unrolls a fixed count)");
        }
        let b = &with_paid_loops(b, g);
        let carried_count = node.inputs.len().saturating_sub(2);
        let mut carried: Vec<String> = node.inputs[2..].to_vec();
        let mut scans: Vec<Vec<String>> = Vec::new();
        let truth = x.constant(Tensor::from_f64(DType::Bool, vec![], &[1.0]));
        for i in 0..trips {
            let iteration = x.constant(Tensor::from_i64(vec![], &[i as i64]));
            let mut actuals = vec![iteration, truth.clone()];
            actuals.extend(carried.iter().cloned());
            let prefix = format!("{}#loop{i}.", node.outputs.first().map_or("", String::as_str));
            let outs = inline(x, b, &prefix, &actuals)?;
            carried = outs[1..1 + carried_count].to_vec();
            scans.push(outs[1 + carried_count..].to_vec());
        }
        for (o, v) in node.outputs.iter().zip(&carried) {
            x.output(v, Some(o));
        }
        for (k, o) in node.outputs.iter().enumerate().skip(carried_count).filter(|(_, o)| !o.is_empty()) {
            if trips == 0 {
                return err("a Loop of zero iterations with scan outputs is not supported");
            }
            let column = k - carried_count;
            let stacked: Vec<String> = scans.iter().map(|s| x.unsqueeze(&s[column], &[0])).collect();
            let refs: Vec<&str> = stacked.iter().map(String::as_str).collect();
            x.op_to("Concat", &refs, &[("axis", Attr::Int(0))], &[o]);
        }
        Ok(())
    }
}

/// Whether the body's condition output is its condition input (directly or through Identity)
/// or a constant true.
pub(super) fn passes_condition_through(b: &Subgraph) -> bool {
    let (Some(cond_in), Some(mut name)) = (b.inputs.get(1), b.outputs.first().cloned()) else { return false };
    loop {
        if &name == cond_in {
            return true;
        }
        if let Some((_, t)) = b.consts.iter().find(|(n, _)| *n == name) {
            return t.to_f64().first().is_some_and(|&v| v != 0.0);
        }
        let Some(producer) = b.nodes.iter().find(|n| n.outputs.contains(&name)) else { return false };
        match producer.op.as_str() {
            "Identity" => name = producer.inputs[0].clone(),
            "Constant" => {
                return matches!(producer.attrs.get("value"), Some(Attr::Tensor(t)) if t.to_f64().first().is_some_and(|&v| v != 0.0))
            }
            _ => return false,
        }
    }
}
