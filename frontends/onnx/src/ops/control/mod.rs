//! Control flow: If, Loop and Scan, whose bodies are graphs. If and Scan are expansions
//! ([`crate::ops::expansion`]) that copy their bodies into the graph: If with a condition known at
//! compile time takes its branch, with one the run computes first runs only the taken one
//! (`if_op.rs`), else computes both and selects; Scan is unrolled over a sequence
//! length known at compile time. Loop is unrolled the same way over a constant trip count, and
//! otherwise lowered as a loop at run time (`loop_op/run_time.rs`). A body reads names from the
//! graphs around it as they are; the names it defines are renamed for each copy. An optional is
//! the tensor it holds (`optional.rs`).

mod if_op;
mod loop_op;
mod optional;
pub(crate) mod regions;
mod scan;

use crate::graph::*;
use crate::ops::expansion::{Expand, Expansion};
use crate::ops::schema::{Elements, Schema, ANY};
use std::collections::HashMap;

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    r.register(&["If"], &Expand(if_op::If), Schema::exactly(1).elements(Elements::Strings));
    r.register_in(
        crate::ops::XCC_DOMAIN,
        &["TakenBranch"],
        &if_op::TakenBranch,
        Schema::exactly(3).elements(Elements::Codes),
    );
    r.register(&["Loop"], &loop_op::Loop, Schema::inputs(0, ANY).elements(Elements::Strings));
    r.register(&["Scan"], &Expand(scan::Scan), Schema::inputs(0, ANY).elements(Elements::Strings));
    r.register(&["OptionalHasElement"], &optional::HasElement, Schema::inputs(0, 1));
    r.register(&["Optional"], &Expand(optional::Held), Schema::inputs(0, 1));
    r.register(&["OptionalGetElement"], &optional::GetElement, Schema::exactly(1));
}

/// The most copies of a body an unrolled Loop or Scan makes.
const MAX_UNROLL: usize = 4096;

/// The body attribute `name` of a node.
pub(crate) fn body<'n>(node: &'n Node, name: &str) -> OResult<&'n Subgraph> {
    match node.attrs.get(name) {
        Some(Attr::Graph(g)) => Ok(g),
        _ => err(format!("{} needs the graph attribute {name}", node.op)),
    }
}

/// Copies `body` into the expansion once: its formal inputs are the tensors `actuals` (in order),
/// every name it defines gets `prefix`, and the names it reads from around it stay. Returns its
/// outputs as names in the graph.
pub(crate) fn inline(x: &mut Expansion, body: &Subgraph, prefix: &str, actuals: &[String]) -> OResult<Vec<String>> {
    if actuals.len() != body.inputs.len() {
        return err(format!("a body takes {} inputs, given {}", body.inputs.len(), actuals.len()));
    }
    let mut names: HashMap<String, String> = body.inputs.iter().cloned().zip(actuals.iter().cloned()).collect();
    for (name, value) in &body.consts {
        let renamed = format!("{prefix}{name}");
        x.op_to("Constant", &[], &[("value", Attr::Tensor(value.clone()))], &[&renamed]);
        names.insert(name.clone(), renamed);
    }
    for n in &body.nodes {
        for o in n.outputs.iter().filter(|o| !o.is_empty()) {
            names.insert(o.clone(), format!("{prefix}{o}"));
        }
    }
    for n in &body.nodes {
        x.push(renamed(n, &names));
    }
    Ok(body.outputs.iter().map(|o| names.get(o).cloned().unwrap_or_else(|| o.clone())).collect())
}

/// `n` with the names in `names` replaced, in its bodies too (ONNX names are unique across
/// nested graphs, so a body's own names are never among them).
fn renamed(n: &Node, names: &HashMap<String, String>) -> Node {
    let map = |s: &String| names.get(s).cloned().unwrap_or_else(|| s.clone());
    let mut copy = n.clone();
    copy.inputs = n.inputs.iter().map(map).collect();
    copy.outputs = n.outputs.iter().map(map).collect();
    for a in copy.attrs.values_mut() {
        if let Attr::Graph(g) = a {
            g.nodes = g.nodes.iter().map(|inner| renamed(inner, names)).collect();
            g.outputs = g.outputs.iter().map(map).collect();
        }
    }
    copy
}

/// A constant count from input `i` of the node (a trip count, a length), if it has one.
fn constant_count(node: &Node, g: &Graph, i: usize) -> Option<OResult<usize>> {
    let name = node.input(i)?;
    Some(match g.consts.get(name).map(|t| t.to_i64()) {
        Some(v) if v.len() == 1 && v[0] >= 0 => Ok(v[0] as usize),
        Some(v) => err(format!("{}'s input '{name}' must hold one count, not {v:?}", node.op)),
        None if g.inputs.iter().any(|i| i == name) => err(format!(
            "{}'s input '{name}' must be known at compile time (--bind {name}=VALUE): xcc unrolls it",
            node.op
        )),
        None => err(format!("{}'s input '{name}' must be known at compile time: xcc unrolls it", node.op)),
    })
}
