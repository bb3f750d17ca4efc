//! Static shape inference over the whole graph, in topological order, with constant folding:
//! a node whose inputs are all constants is evaluated here (that is how `Shape -> Gather ->
//! Concat -> Reshape` chains disappear), every other node gets its output types.
//!
//! Unsupported operators are collected and reported together, each with its node name, domain
//! and opset.

use super::graph::*;
use super::ops;
use std::collections::{HashMap, HashSet};

/// Orders nodes so each comes after its producers; reports cycles and undefined inputs.
pub fn topological_order(g: &mut Graph) -> OResult<()> {
    let mut producer: HashMap<&str, usize> = HashMap::new();
    for (i, n) in g.nodes.iter().enumerate() {
        for o in n.outputs.iter().filter(|o| !o.is_empty()) {
            if producer.insert(o, i).is_some() || g.inputs.contains(o) || g.consts.contains_key(o) {
                return err(format!("tensor '{o}' is defined more than once ({} defines it again)", n.describe()));
            }
        }
    }
    for n in &g.nodes {
        for i in n.inputs.iter().filter(|i| !i.is_empty()) {
            if !producer.contains_key(i.as_str()) && !g.consts.contains_key(i) && !g.inputs.contains(i) {
                return err(format!("{} uses tensor '{i}', which no node, input or initializer defines", n.describe()));
            }
        }
    }
    for o in &g.outputs {
        if !producer.contains_key(o.as_str()) && !g.consts.contains_key(o) && !g.inputs.contains(o) {
            return err(format!("graph output '{o}' is never defined"));
        }
    }
    // Kahn's algorithm, stable in the file's order.
    let n = g.nodes.len();
    let mut indegree = vec![0usize; n];
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, node) in g.nodes.iter().enumerate() {
        let deps: HashSet<usize> = node.inputs.iter().filter_map(|x| producer.get(x.as_str()).copied()).collect();
        indegree[i] = deps.len();
        for d in deps {
            users[d].push(i);
        }
    }
    let mut ready: std::collections::BTreeSet<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(i) = ready.pop_first() {
        order.push(i);
        for &u in &users[i] {
            indegree[u] -= 1;
            if indegree[u] == 0 {
                ready.insert(u);
            }
        }
    }
    if order.len() != n {
        let stuck: Vec<String> = (0..n).filter(|i| !order.contains(i)).take(5).map(|i| g.nodes[i].describe()).collect();
        return err(format!("the graph has a cycle through: {}", stuck.join(", ")));
    }
    let mut old: Vec<Option<Node>> = std::mem::take(&mut g.nodes).into_iter().map(Some).collect();
    g.nodes = order.into_iter().map(|i| old[i].take().expect("each node once")).collect();
    Ok(())
}

/// Infers every type, folds constant nodes away, and removes nodes nothing needs.
pub fn infer_and_fold(g: &mut Graph) -> OResult<()> {
    let unsupported: Vec<String> = g
        .nodes
        .iter()
        .filter(|n| !n.domain.is_empty() || ops::registry().get(&n.op).is_none())
        .map(|n| {
            let domain = if n.domain.is_empty() { "ai.onnx".to_string() } else { n.domain.clone() };
            format!(
                "  {} (op {}, domain {domain}, opset {})",
                if n.name.is_empty() { "<unnamed>" } else { &n.name },
                n.op,
                n.opset
            )
        })
        .collect();
    if !unsupported.is_empty() {
        return err(format!("the model uses {} unsupported node(s):\n{}", unsupported.len(), unsupported.join("\n")));
    }
    let nodes = std::mem::take(&mut g.nodes);
    let mut kept = Vec::new();
    for node in nodes {
        let op = ops::registry().get(&node.op).expect("checked above");
        if !op.takes_run_time_dims() {
            refuse_run_time_dims(&node, g)?;
        }
        if op.folds_from_types() {
            let t = g.ty(&node.inputs[0]).map_err(|e| e.in_node(&node))?.clone();
            let placeholder = Tensor { ty: t.clone(), data: Vec::new() };
            if let Some(result) = op.fold(&node, &[Some(&placeholder)]) {
                let outs = result.map_err(|e| e.in_node(&node))?;
                for (name, t) in node.outputs.iter().zip(outs) {
                    g.types.insert(name.clone(), t.ty.clone());
                    g.consts.insert(name.clone(), t);
                }
                continue;
            }
        }
        let inputs: Vec<Option<&Tensor>> =
            node.inputs.iter().map(|i| if i.is_empty() { None } else { g.consts.get(i) }).collect();
        let all_const = node.inputs.iter().zip(&inputs).all(|(name, t)| name.is_empty() || t.is_some());
        if all_const {
            if let Some(result) = op.fold(&node, &inputs) {
                let outs = result.map_err(|e| e.in_node(&node))?;
                for (name, t) in node.outputs.iter().zip(outs) {
                    g.types.insert(name.clone(), t.ty.clone());
                    g.consts.insert(name.clone(), t);
                }
                continue;
            }
        }
        let types = op.infer(&node, g).map_err(|e| e.in_node(&node))?;
        for (name, t) in node.outputs.iter().zip(types) {
            if !name.is_empty() {
                if !t.is_dynamic() {
                    super::import::checked_bytes(name, t.dtype, &t.shape)?;
                }
                g.types.insert(name.clone(), t);
            }
        }
        kept.push(node);
    }
    // Dead-node removal: keep what the outputs need.
    let mut needed: HashSet<String> = g.outputs.iter().cloned().collect();
    let mut live = vec![false; kept.len()];
    for (i, n) in kept.iter().enumerate().rev() {
        if n.outputs.iter().any(|o| needed.contains(o)) {
            live[i] = true;
            needed.extend(n.inputs.iter().filter(|x| !x.is_empty()).cloned());
        }
    }
    g.nodes = kept.into_iter().zip(live).filter(|(_, l)| *l).map(|(n, _)| n).collect();
    Ok(())
}

/// The error for an operator that does not take run-time dims given an input that has them.
fn refuse_run_time_dims(node: &Node, g: &Graph) -> OResult<()> {
    for x in node.inputs.iter().filter(|x| !x.is_empty()) {
        let t = g.ty(x).map_err(|e| e.in_node(node))?;
        let Some(dims) = &t.symbolic else { continue };
        let mut symbols: Vec<&str> = dims.iter().flat_map(|d| d.symbols()).collect();
        symbols.sort_unstable();
        symbols.dedup();
        let fix: Vec<String> = symbols.iter().map(|s| format!("--dim {s}=N")).collect();
        return Err(OnnxError::tensor(
            x,
            format!(
                "the operator does not take dims known only at run time yet, and this input is {}; fix them at \
                 compile time with {}",
                t.describe(),
                fix.join(" ")
            ),
        )
        .in_node(node));
    }
    Ok(())
}
