//! The graph's nodes lowered in order, each after its buffers are bound; a node guarded by an
//! If's condition ([`Node::guard`]) inside an `scf.if`, so that the run executes only the taken
//! branch's kernels.

use super::{reads_found, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::control::regions::copy_elements;
use std::collections::HashMap;
use xcc_ir::ValueId;

/// What lowers one node (the frontend's operator table, or the GPU's).
pub type LowerNode<'a> = dyn Fn(&Node, &Graph, &mut Emitter) -> OResult<()> + 'a;

pub(super) fn lower_nodes(e: &mut Emitter, g: &Graph, lower: &LowerNode) -> OResult<()> {
    // A guarded node has an `scf.if` of its own. One around a branch's consecutive nodes would
    // let epilogues fuse across them, but LLVM's loop strength reduction then takes about twice
    // as long (31 s against 17 s to compile a two-layer merged decoder).
    let last_read = last_reads(g);
    for (k, node) in g.nodes.iter().enumerate() {
        match &node.guard {
            None => {
                bind_buffers(e, g, node)?;
                if !writes_nothing(e, g, node) {
                    lower(node, g, e).map_err(|err| err.in_node(node))?;
                }
            }
            Some(runs) => {
                let read_later = |o: &str| last_read.get(o).is_some_and(|&at| at > k);
                lower_guarded(e, g, runs, node, &read_later, lower)?;
            }
        }
    }
    Ok(())
}

/// Whether every output of `node` has no elements (a dim of 0 known at compile time) and a
/// buffer already: there is nothing to compute, and kernels need not take empty shapes (a Conv
/// over a width of 0 padded to SAME has fewer padded inputs than its kernel).
fn writes_nothing(e: &Emitter, g: &Graph, node: &Node) -> bool {
    let empty = |o: &String| {
        e.buffers.contains_key(o) && g.ty(o).is_ok_and(|t| t.dims().iter().any(|d| d.as_fixed() == Some(0)))
    };
    let outputs: Vec<&String> = node.outputs.iter().filter(|o| !o.is_empty()).collect();
    !outputs.is_empty() && outputs.into_iter().all(empty)
}

/// For every tensor a node reads (its bodies' free names too), the last node that does; a graph
/// output's is past the last node.
fn last_reads(g: &Graph) -> HashMap<String, usize> {
    let mut last = HashMap::new();
    for (k, n) in g.nodes.iter().enumerate() {
        for x in n.inputs.iter().filter(|x| !x.is_empty()).cloned().chain(n.implicit_inputs()) {
            last.insert(x, k);
        }
    }
    for o in &g.outputs {
        last.insert(o.clone(), usize::MAX);
    }
    last
}

/// Binds the buffers of the node's inputs that have none yet (folded values) and of its
/// outputs.
fn bind_buffers(e: &mut Emitter, g: &Graph, node: &Node) -> OResult<()> {
    for x in node.inputs.iter().filter(|x| !x.is_empty()) {
        if !e.buffers.contains_key(x) {
            let v = e.folded_buffer(g, x).ok_or_else(|| OnnxError::tensor(x, "internal: the tensor has no buffer"))?;
            e.buffers.insert(x.clone(), v);
        }
    }
    let fresh: Vec<&String> = node.outputs.iter().filter(|o| !o.is_empty() && !e.buffers.contains_key(*o)).collect();
    for o in fresh {
        if let Some(v) = e.output_buffer(o, g.ty(o)?) {
            e.buffers.insert(o.clone(), v);
        }
    }
    Ok(())
}

/// `node`, which runs where `runs` is nonzero, in an `scf.if`. Every buffer read after it is
/// defined before it: its folded inputs, and the outputs read later, which a node that rebinds
/// its output (a view) copies in. The allocations inside stay there (near their use, which keeps
/// the code's live values few); the workspace plan places them.
fn lower_guarded(
    e: &mut Emitter,
    g: &Graph,
    runs: &DataExpr,
    node: &Node,
    read_later: &dyn Fn(&str) -> bool,
    lower: &LowerNode,
) -> OResult<()> {
    for x in node.inputs.iter().filter(|x| !x.is_empty()) {
        if !e.buffers.contains_key(x) {
            let v = e.folded_buffer(g, x).ok_or_else(|| OnnxError::tensor(x, "internal: the tensor has no buffer"))?;
            e.buffers.insert(x.clone(), v);
        }
    }
    let mut escaping: Vec<(String, ValueId)> = Vec::new();
    for o in node.outputs.iter().filter(|o| !o.is_empty()) {
        if reads_found(&e.data, g.ty(o)?) {
            return Err(OnnxError::tensor(
                o,
                "a tensor whose dims its operator finds is not supported in an If branch that the run chooses",
            ));
        }
        if read_later(o) {
            let v = e
                .output_buffer(o, g.ty(o)?)
                .ok_or_else(|| OnnxError::tensor(o, "internal: an If branch's output has no buffer"))?;
            e.buffers.insert(o.clone(), v);
            escaping.push((o.clone(), v));
        }
    }
    let flag = e.data_value(runs);
    let zero = e.idx(0);
    let cond = e.cmpi("ne", flag, zero);
    let mut lowered = Ok(());
    e.if_then(cond, |e| {
        lowered = (|| {
            bind_buffers(e, g, node)?;
            lower(node, g, e).map_err(|err| err.in_node(node))?;
            for (o, v) in &escaping {
                let now = e.buffers[o];
                if now != *v {
                    copy_elements(e, now, *v, &[]);
                }
            }
            Ok(())
        })();
    });
    lowered?;
    for (o, v) in escaping {
        e.buffers.insert(o, v);
    }
    Ok(())
}
