//! A Loop at run time. Its trip count, at least 0, or 0 where a condition given as an input is
//! false, is read from the inputs (or computed from them by integer arithmetic) before anything
//! else, as a data dim. A body that passes its condition through runs that many times, which
//! sizes the scan outputs. A body that computes its condition stops the loop where it is false:
//! then the number of iterations is found by the run ([`crate::data_dim::DataDims::found`], the
//! trip count its capacity), and the scan outputs are written at their capacity and seen at
//! their found length after the loop. The body must keep the carried values' types; it is
//! inferred as a graph of its own (its inputs typed as the iteration number, the condition and
//! the carried values; names from around it as they are), and its dims may not be read from
//! data.
//!
//! Lowered as one `scf.for`: the carried values live in the Loop's outputs (their initial values
//! copied in first); every tensor of the body has its buffer before the loop, so the workspace
//! plan sees them all; each iteration stores its number, runs the body's nodes, writes its scan
//! values at their row of the scan outputs, and copies the new carried values over the old ones
//! (through a copy where the body passes one of its inputs on, so that a swap works). Buffers an
//! operator allocates inside the body are moved before the loop.

use super::super::body;
use super::super::regions::{copy_elements, hoist_allocations};
use super::passes_condition_through;
use crate::emit::{Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::computed_data::computed_data;
use std::cell::RefCell;
use std::collections::HashMap;
use xcc_ir::{OpSpec, Span, Type, ValueId};

/// The types of the Loop's outputs: the carried values', then each scan value's with the
/// iterations first.
pub fn output_types(node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
    let b = body(node, "body")?;
    let bg = body_graph(node, g)?;
    let carried = node.inputs.len() - 2;
    let n = iterations(node, g)?.dim();
    let mut types = Vec::new();
    for k in 0..carried {
        let before = g.ty(&node.inputs[2 + k])?;
        let after = bg.ty(&b.outputs[1 + k])?;
        if after.dtype != before.dtype || after.dims() != before.dims() {
            return err(format!(
                "the loop-carried value '{}' is {} before the loop and {} after an iteration, but a loop at run \
                 time keeps its carried values' types",
                node.inputs[2 + k],
                before.describe(),
                after.describe()
            ));
        }
        types.push(before.clone());
    }
    for o in &b.outputs[1 + carried..] {
        let t = bg.ty(o)?;
        types.push(TensorType::with_dims(t.dtype, std::iter::once(n.clone()).chain(t.dims()).collect()));
    }
    Ok(types)
}

/// How many times the body runs.
enum Iterations {
    /// The trip count (a data dim when read from the inputs).
    Counted(Dim),
    /// Until the body's condition is false, at most the trip count: a dim the run finds, named
    /// `name`.
    UntilFalse { trips: Dim, name: String },
}

impl Iterations {
    fn dim(&self) -> Dim {
        match self {
            Iterations::Counted(n) => n.clone(),
            Iterations::UntilFalse { name, .. } => Dim::symbol(name),
        }
    }

    fn trips(&self) -> &Dim {
        match self {
            Iterations::Counted(n) | Iterations::UntilFalse { trips: n, .. } => n,
        }
    }
}

fn iterations(node: &Node, g: &Graph) -> OResult<Iterations> {
    let Some(trip) = node.input(0) else {
        return err("a Loop without a trip count (one that runs until its condition) is not supported");
    };
    let read = |name: &str, what: &str| -> OResult<DataExpr> {
        match computed_data(g, name)?.as_deref() {
            Some([x]) => Ok(x.clone()),
            _ => err(format!(
                "Loop's {what} '{name}' must be a constant, an input, or computed from them by integer or float32 arithmetic"
            )),
        }
    };
    let mut n = read(trip, "trip count")?.max(&DataExpr::num(0));
    if let Some(c) = node.input(1) {
        // A bool reads as 0 or -1.
        n = read(c, "condition")?.eq(&DataExpr::num(0)).select(&DataExpr::num(0), &n);
    }
    let out = node.outputs.iter().find(|o| !o.is_empty()).map_or("loop", String::as_str);
    let trips = g.data_dim(format!("{out}.trips"), n);
    if passes_condition_through(body(node, "body")?) {
        return Ok(Iterations::Counted(trips));
    }
    let name = format!("{out}.iterations");
    g.data_dims.borrow_mut().find(name.clone(), trips.clone());
    Ok(Iterations::UntilFalse { trips, name })
}

/// The body as a graph of its own, inferred: its inputs typed as the iteration number (int64),
/// the condition (bool) and the carried values, and every name from around it visible.
fn body_graph(node: &Node, g: &Graph) -> OResult<std::rc::Rc<Graph>> {
    let inputs: Vec<Option<&TensorType>> = node.inputs.iter().map(|i| g.types.get(i)).collect();
    let key = format!("{:?} {inputs:?}", node.outputs);
    if let Some(bg) = g.loop_bodies.borrow().get(&key) {
        return Ok(bg.clone());
    }
    let bg = std::rc::Rc::new(infer_body_graph(node, g)?);
    g.loop_bodies.borrow_mut().insert(key, bg.clone());
    Ok(bg)
}

fn infer_body_graph(node: &Node, g: &Graph) -> OResult<Graph> {
    let b = body(node, "body")?;
    let carried = &node.inputs[2..];
    if b.inputs.len() != 2 + carried.len() || b.outputs.len() < 1 + carried.len() {
        return err(format!(
            "Loop's body takes {} inputs and gives {} outputs for {} carried values",
            b.inputs.len(),
            b.outputs.len(),
            carried.len()
        ));
    }
    // Of the graph around it, the body sees the names it reads (not every weight).
    let free = b.free_names();
    let mut bg = Graph {
        name: format!("{} body", node.outputs.first().map_or("loop", String::as_str)),
        inputs: b.inputs.clone(),
        outputs: b.outputs.clone(),
        nodes: b.nodes.clone(),
        consts: only(&g.consts, &free),
        types: only(&g.types, &free),
        shape_values: only(&g.shape_values, &free),
        symbols: g.symbols.clone(),
        symbol_sources: g.symbol_sources.clone(),
        bounds: g.bounds.clone(),
        data_dims: RefCell::new(g.data_dims.borrow().clone()),
        sequences: RefCell::new(g.sequences.borrow().clone()),
        optional_inputs: Default::default(),
        fold_budget: g.fold_budget,
        unroll_budget: g.unroll_budget.clone(),
        loop_bodies: Default::default(),
    };
    let mut input_types = vec![TensorType::new(DType::I64, vec![]), TensorType::new(DType::Bool, vec![])];
    for c in carried {
        input_types.push(g.ty(c)?.clone());
    }
    for (name, t) in b.inputs.iter().zip(input_types) {
        bg.consts.remove(name);
        bg.shape_values.remove(name);
        bg.types.insert(name.clone(), t);
    }
    for (name, t) in &b.consts {
        bg.types.insert(name.clone(), t.ty.clone());
        bg.consts.insert(name.clone(), t.clone());
    }
    crate::infer::infer_and_fold(&mut bg)?;
    let (before, after) = (g.data_dims.borrow(), bg.data_dims.borrow());
    if after.dims.len() != before.dims.len()
        || after.checks.len() != before.checks.len()
        || after.found.len() != before.found.len()
    {
        return err(
            "a Loop body whose dims are read from data (the iteration number, a carried value) is not supported at run \
             time; give the trip count as a constant to unroll it",
        );
    }
    drop((before, after));
    Ok(bg)
}

/// The entries of `map` named in `names`.
fn only<T: Clone>(map: &HashMap<String, T>, names: &[String]) -> HashMap<String, T> {
    names.iter().filter_map(|n| map.get(n).map(|v| (n.clone(), v.clone()))).collect()
}

pub fn lower(node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
    let b = body(node, "body")?;
    let bg = body_graph(node, g)?;
    let carried = node.inputs.len() - 2;
    let iterations = iterations(node, g)?;
    let trips = e.dim_extent(iterations.trips());
    let mut state = Vec::new();
    for k in 0..carried {
        let t = g.ty(&node.inputs[2 + k])?;
        let s = match node.outputs.get(k).filter(|o| !o.is_empty()) {
            Some(o) => e.buf(o)?,
            None => e.alloc_tensor(t),
        };
        let initial = e.buf(&node.inputs[2 + k])?;
        copy_elements(e, initial, s, &[]);
        state.push(s);
    }
    // The scan outputs, at their capacity when the run finds how many rows they have.
    let mut scans = Vec::new();
    for o in node.outputs.iter().skip(carried) {
        scans.push(match (o.is_empty(), &iterations) {
            (true, _) => None,
            (false, Iterations::Counted(_)) => Some(e.buf(o)?),
            (false, Iterations::UntilFalse { .. }) => Some(e.capacity_view(o, g.ty(o)?)?),
        });
    }
    let iteration = e.alloc_tensor(&TensorType::new(DType::I64, vec![]));
    let running = e.alloc_tensor(&TensorType::new(DType::Bool, vec![]));
    let yes = e.const_int(1, Type::i1());
    e.store(yes, running, &[]);
    e.buffers.insert(b.inputs[0].clone(), iteration);
    e.buffers.insert(b.inputs[1].clone(), running);
    for (name, &s) in b.inputs[2..].iter().zip(&state) {
        e.buffers.insert(name.clone(), s);
    }
    body_buffers(e, &bg, b)?;
    // A carried value the body passes on from its inputs goes through a copy.
    let mut staged = Vec::new();
    for k in 0..carried {
        let from_input = b.inputs.contains(&b.outputs[1 + k]);
        staged.push(if from_input { Some(e.alloc_tensor(g.ty(&node.inputs[2 + k])?)) } else { None });
    }
    let outer = e.block;
    let mut lowered = Ok(());
    let mut run = |e: &mut Emitter, i: ValueId| {
        lowered = iteration_body(e, &bg, b, i, iteration, &scans, &state, &staged);
    };
    let ran = match &iterations {
        Iterations::Counted(_) => {
            e.for_loop_over(trips, |e, i| run(e, i));
            None
        }
        Iterations::UntilFalse { .. } => Some(while_running(e, trips, running, |e, i| {
            run(e, i);
            let cond = e.load(e.buffers[&b.outputs[0]], &[]);
            e.store(cond, running, &[]);
        })),
    };
    lowered?;
    let the_loop = *e.m.blocks[outer].ops.last().expect("the loop just emitted");
    hoist_allocations(
        &mut e.m,
        the_loop,
        "a Loop body makes a tensor whose size changes from one iteration to the next",
    )?;
    if let (Iterations::UntilFalse { name, .. }, Some(ran)) = (&iterations, ran) {
        e.define_found(name, ran);
        for o in node.outputs.iter().skip(carried).filter(|o| !o.is_empty()) {
            e.found_buffer(o, g.ty(o)?)?;
        }
    }
    Ok(())
}

/// One iteration `i`: its number stored, the body's nodes, its scan values at row `i`, and
/// the new carried values over the old.
#[allow(clippy::too_many_arguments)]
fn iteration_body(
    e: &mut Emitter,
    bg: &Graph,
    b: &Subgraph,
    i: ValueId,
    iteration: ValueId,
    scans: &[Option<ValueId>],
    state: &[ValueId],
    staged: &[Option<ValueId>],
) -> OResult<()> {
    let number = e.value_op("arith.index_cast", &[i], Type::i64());
    e.store(number, iteration, &[]);
    for bn in &bg.nodes {
        match crate::ops::registry().get_in(&bn.domain, &bn.op) {
            Some(op) => op.lower(bn, bg, e).map_err(|err| err.in_node(bn))?,
            None => return Err(OnnxError::msg("internal: an unregistered operator").in_node(bn)),
        }
    }
    let carried = state.len();
    for (o, out) in b.outputs[1 + carried..].iter().zip(scans) {
        if let Some(&out) = out.as_ref() {
            let v = e.buffers[o];
            copy_elements(e, v, out, &[i]);
        }
    }
    let results: Vec<ValueId> = (0..carried).map(|k| e.buffers[&b.outputs[1 + k]]).collect();
    for (&r, s) in results.iter().zip(staged) {
        if let Some(s) = *s {
            copy_elements(e, r, s, &[]);
        }
    }
    for k in 0..carried {
        let from = staged[k].unwrap_or(results[k]);
        if from != state[k] {
            copy_elements(e, from, state[k], &[]);
        }
    }
    Ok(())
}

/// `scf.while` over `i` from 0 while `i < trips` and `running` holds, `body` each time; returns
/// how many times it ran.
fn while_running(
    e: &mut Emitter,
    trips: Extent,
    running: ValueId,
    body: impl FnOnce(&mut Emitter, ValueId),
) -> ValueId {
    let (zero, limit) = (e.idx(0), e.extent(trips));
    let (before, after) = (e.m.new_region(), e.m.new_region());
    let test = e.m.append_block(before, Span::UNKNOWN);
    let i = e.m.add_block_arg(test, Type::Index, Span::UNKNOWN);
    let step = e.m.append_block(after, Span::UNKNOWN);
    let j = e.m.add_block_arg(step, Type::Index, Span::UNKNOWN);
    let the_loop = e.op(OpSpec::new("scf.while", Span::UNKNOWN)
        .operands([zero])
        .results([Type::Index])
        .region(before)
        .region(after));
    let saved = e.set_block(test);
    let within = e.cmpi("ult", i, limit);
    let go = e.load(running, &[]);
    let both = e.value_op("arith.andi", &[within, go], Type::i1());
    e.op(OpSpec::new("scf.condition", Span::UNKNOWN).operands([both, i]));
    e.set_block(step);
    body(e, j);
    let one = e.idx(1);
    let next = e.value_op("arith.addi", &[j, one], Type::Index);
    e.op(OpSpec::new("scf.yield", Span::UNKNOWN).operands([next]));
    e.set_block(saved);
    e.m.result(the_loop, 0)
}

/// The buffers of every tensor the body reads or writes that has none yet: its constants
/// and folded values, and its nodes' outputs.
fn body_buffers(e: &mut Emitter, bg: &Graph, b: &Subgraph) -> OResult<()> {
    let reads = bg.nodes.iter().flat_map(|n| n.inputs.iter()).chain(b.outputs.iter());
    for x in reads.filter(|x| !x.is_empty()).cloned().collect::<Vec<_>>() {
        if !e.buffers.contains_key(&x) && !bg.nodes.iter().any(|n| n.outputs.contains(&x)) {
            let v =
                e.folded_buffer(bg, &x).ok_or_else(|| OnnxError::tensor(&x, "internal: the tensor has no buffer"))?;
            e.buffers.insert(x, v);
        }
    }
    for bn in &bg.nodes {
        for o in bn.outputs.iter().filter(|o| !o.is_empty()) {
            let v = e.alloc_tensor(bg.ty(o)?);
            e.buffers.insert(o.clone(), v);
        }
    }
    Ok(())
}
