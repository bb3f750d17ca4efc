//! Shape inference over the whole graph, in topological order, with constant folding: a node
//! whose inputs are all constants is evaluated here (that is how `Shape -> Gather -> Concat ->
//! Reshape` chains disappear), and so is one that computes on shapes with run-time dims, into
//! [`ShapeValue`]s of dim expressions; every other node gets its output types.
//!
//! Unsupported operators are collected and reported together, each with its node name, domain
//! and opset.

use super::graph::*;
use super::ops;
use std::collections::{HashMap, HashSet, VecDeque};

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
    // A node with bodies (If, Loop, Scan) also reads what its bodies read from around it.
    let reads: Vec<Vec<String>> = g
        .nodes
        .iter()
        .map(|n| n.inputs.iter().filter(|i| !i.is_empty()).cloned().chain(n.implicit_inputs()).collect())
        .collect();
    for (n, reads) in g.nodes.iter().zip(&reads) {
        for i in reads {
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
    for (i, node_reads) in reads.iter().enumerate() {
        let deps: HashSet<usize> = node_reads.iter().filter_map(|x| producer.get(x.as_str()).copied()).collect();
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

/// The most bytes an output computed at compile time (folded from constants) may take: it becomes
/// data in the library, and computing it takes as much memory in the compiler.
pub(crate) const MAX_FOLDED_BYTES: usize = 1 << 31;

/// The bytes a node of constants would fold into, where inference gives every output's size
/// (`None` where it cannot), after refusing, with the output's name, one that would pass
/// [`MAX_FOLDED_BYTES`] (a ConstantOfShape of [2^20, 2^20], a Range to 2^40): folding it would
/// abort the compiler on the allocation. Where the shape rule cannot give the sizes, folding
/// goes ahead as before.
fn folded_bytes(op: &dyn ops::OnnxOp, node: &Node, g: &Graph) -> OResult<Option<usize>> {
    let Ok(types) = op.infer(node, g) else { return Ok(None) };
    let mut total = Some(0usize);
    for (name, t) in node.outputs.iter().zip(&types) {
        if t.is_dynamic() {
            total = None;
            continue;
        }
        let bytes = super::import::checked_bytes(name, t.dtype, &t.shape)?;
        if bytes > MAX_FOLDED_BYTES {
            let message = format!(
                "computed from constants, this output ({}) would take {bytes} bytes, more than the \
                 {MAX_FOLDED_BYTES} that xcc computes at compile time",
                t.describe()
            );
            return Err(OnnxError::tensor(name, message));
        }
        total = total.map(|sum| sum.saturating_add(bytes));
    }
    Ok(total)
}

/// The folded bytes a graph may make by default: [`FOLD_BUDGET_BASE`] plus four times its
/// initializers' bytes (dequantized or transposed weights are folded too).
pub fn default_fold_budget(g: &Graph) -> usize {
    let constant_nodes = g.nodes.iter().filter(|n| n.op == "Constant").flat_map(|n| n.attrs.values());
    let in_nodes: usize = constant_nodes.map(|a| if let Attr::Tensor(t) = a { t.data.len() } else { 0 }).sum();
    let initializers: usize = g.consts.values().map(|t| t.data.len()).sum();
    FOLD_BUDGET_BASE.saturating_add(initializers.saturating_add(in_nodes).saturating_mul(4))
}

/// The folded bytes every graph may make, whatever its weights.
pub const FOLD_BUDGET_BASE: usize = 64 << 20;

/// The outputs that always fold, whatever the budget: shape computations and small tables.
const ALWAYS_FOLDED_BYTES: usize = 1 << 20;

/// Infers every type, folds constant nodes away, and removes nodes nothing needs.
pub fn infer_and_fold(g: &mut Graph) -> OResult<()> {
    refuse_unsupported(g)?;
    // What constants may still become at compile time; past it, a large node is computed at
    // run time (a 100-byte model's Range of 83 million values stays a Range, not 671 MB of
    // library).
    let mut fold_budget = g.fold_budget.unwrap_or_else(|| default_fold_budget(g));
    // The nodes kept so far stay in the graph, so that a shape rule can follow an input back
    // to the nodes that compute it (ops::computed_data).
    // A node an operator expands into others gives way to them, in order, at the front.
    let mut pending: VecDeque<Node> = std::mem::take(&mut g.nodes).into();
    while let Some(node) = pending.pop_front() {
        let registry = ops::registry();
        let (Some(op), Some(schema)) =
            (registry.get_in(&node.domain, &node.op), registry.schema_in(&node.domain, &node.op))
        else {
            return Err(OnnxError::msg(format!("internal: an expansion wrote the unknown operator {}", node.op)));
        };
        {
            let mut data = g.data_dims.borrow_mut();
            data.node = node.describe();
            data.guard = node.guard.clone();
        }
        ops::schema::check(&node, g, &schema)?;
        if let Some(expansion) = op.expand(&node, g) {
            let nodes = expansion.map_err(|e| e.in_node(&node))?;
            // What a node runs under, the nodes it becomes run under (a branch's own nodes
            // already carry the If's condition with it).
            for mut n in nodes.into_iter().rev() {
                if n.guard.is_none() {
                    n.guard = node.guard.clone();
                }
                pending.push_front(n);
            }
            continue;
        }
        if let Some(result) = fold_shape_values(op, &node, g) {
            let values = result.map_err(|e| e.in_node(&node))?;
            for (name, v) in node.outputs.iter().zip(values) {
                g.types.insert(name.clone(), v.ty());
                if let Some(t) = v.as_const() {
                    g.consts.insert(name.clone(), t);
                } else {
                    g.shape_values.insert(name.clone(), v);
                }
            }
            continue;
        }
        if !op.takes_run_time_dims() {
            refuse_run_time_dims(&node, g)?;
        }
        // An optional graph input's presence is known only at run time.
        let optional = node.input(0).is_some_and(|x| g.optional_inputs.contains(x));
        if op.folds_from_types() && node.input(0).is_some() && !optional {
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
        let bytes = if all_const { folded_bytes(op, &node, g).map_err(|e| e.in_node(&node))? } else { None };
        // A node of no inputs (Constant) is the model's own data, outside the budget.
        let computed = node.inputs.iter().any(|i| !i.is_empty());
        let within_budget = !computed || bytes.is_none_or(|b| b <= ALWAYS_FOLDED_BYTES || b <= fold_budget);
        if all_const && within_budget {
            if computed {
                fold_budget = fold_budget.saturating_sub(bytes.unwrap_or(0));
            }
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
                super::import::checked_fixed_bytes(name, &t)?;
                g.types.insert(name.clone(), t);
            }
        }
        ops::schema::check_string_outputs(&node, g, &schema)?;
        g.nodes.push(node);
    }
    g.data_dims.borrow_mut().guard = None;
    // Dead-node removal: keep what the outputs need.
    let mut needed: HashSet<String> = g.outputs.iter().cloned().collect();
    let kept = std::mem::take(&mut g.nodes);
    let mut live = vec![false; kept.len()];
    // A node that finds a dim (NonZero's count) stays: a Shape or Range of its output may read the
    // dim without reading the output.
    let found: Vec<String> = g.data_dims.borrow().found.iter().map(|(s, _)| s.clone()).collect();
    let finds =
        |n: &Node| n.outputs.iter().any(|o| !o.is_empty() && found.iter().any(|s| s.starts_with(&format!("{o}."))));
    for (i, n) in kept.iter().enumerate().rev() {
        if n.outputs.iter().any(|o| needed.contains(o)) || finds(n) {
            live[i] = true;
            needed.extend(n.inputs.iter().filter(|x| !x.is_empty()).cloned());
            // A body lowered as it is (a Loop at run time) reads names from around it.
            for a in n.attrs.values() {
                if let Attr::Graph(body) = a {
                    needed.extend(body.free_names());
                }
            }
        }
    }
    g.nodes = kept.into_iter().zip(live).filter(|(_, l)| *l).map(|(n, _)| n).collect();
    Ok(())
}

/// The error for nodes of operators xcc lacks: one line per operator (its domain and opset,
/// how many nodes, the first few by name), as a model may have a hundred such nodes.
fn refuse_unsupported(g: &Graph) -> OResult<()> {
    let mut by_op: std::collections::BTreeMap<(&str, &str, i64), Vec<&str>> = Default::default();
    for n in g.nodes.iter().filter(|n| ops::registry().get_in(&n.domain, &n.op).is_none()) {
        let name = if n.name.is_empty() { n.outputs.first().map_or("<unnamed>", String::as_str) } else { &n.name };
        by_op.entry((&n.op, &n.domain, n.opset)).or_default().push(name);
    }
    if by_op.is_empty() {
        return Ok(());
    }
    const NAMED: usize = 3;
    let total: usize = by_op.values().map(Vec::len).sum();
    let lines: Vec<String> = by_op
        .iter()
        .map(|((op, domain, opset), nodes)| {
            let domain = if domain.is_empty() { "ai.onnx" } else { domain };
            let more = if nodes.len() > NAMED { format!(", and {} more", nodes.len() - NAMED) } else { String::new() };
            let shown = nodes[..nodes.len().min(NAMED)].join(", ");
            format!("  {op} (domain {domain}, opset {opset}): {} node(s): {shown}{more}", nodes.len())
        })
        .collect();
    err(format!("the model uses {total} unsupported node(s) of {} operator(s):\n{}", by_op.len(), lines.join("\n")))
}

/// Folds a node that computes on shapes with run-time dims: Shape or Size of a tensor that has
/// them, or a node whose inputs are all shape values or small integer constants, one at least a
/// shape value. `None` leaves the node to the usual path.
fn fold_shape_values(op: &dyn ops::onnx_op::OnnxOp, node: &Node, g: &Graph) -> Option<OResult<Vec<ShapeValue>>> {
    let reads_run_time_dims =
        op.folds_from_types() && node.inputs.first().and_then(|x| g.types.get(x)).is_some_and(TensorType::is_dynamic);
    // Most nodes read no shape value: they leave before any constant is converted.
    if !reads_run_time_dims && !node.inputs.iter().any(|x| g.shape_values.contains_key(x)) {
        return None;
    }
    let inputs: Vec<Option<ShapeValue>> = node
        .inputs
        .iter()
        .map(|x| g.shape_values.get(x).cloned().or_else(|| g.consts.get(x).and_then(ShapeValue::of_const)))
        .collect();
    let all_shape_values = node.inputs.iter().zip(&inputs).all(|(x, v)| x.is_empty() || v.is_some());
    if !reads_run_time_dims && !all_shape_values {
        return None;
    }
    op.fold_shape(node, g, &inputs)
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

#[cfg(test)]
mod tests {
    //! Shape values: `Shape -> Gather/Slice -> Concat -> Reshape` over run-time dims, checked
    //! against dims worked out by hand.

    use super::*;
    use std::collections::BTreeMap;

    fn node(op: &str, inputs: &[&str], output: &str, attrs: &[(&str, Attr)]) -> Node {
        Node {
            name: output.to_string(),
            op: op.into(),
            domain: String::new(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            outputs: vec![output.to_string()],
            attrs: attrs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<BTreeMap<_, _>>(),
            opset: 17,
            guard: None,
        }
    }

    /// A graph over `x[batch, seq, 64]` with integer constants `consts`.
    fn graph(nodes: Vec<Node>, consts: &[(&str, &[usize], &[i64])], output: &str) -> Graph {
        let (b, s) = (Dim::symbol("batch"), Dim::symbol("seq"));
        let mut g = Graph {
            inputs: vec!["x".into()],
            outputs: vec![output.into()],
            nodes,
            symbols: vec!["batch".into(), "seq".into()],
            ..Default::default()
        };
        g.types.insert("x".into(), TensorType::with_dims(DType::F32, vec![b, s, Dim::fixed(64)]));
        for (name, shape, values) in consts {
            let t = Tensor::from_i64(shape.to_vec(), values);
            g.types.insert(name.to_string(), t.ty.clone());
            g.consts.insert(name.to_string(), t);
        }
        g
    }

    #[test]
    fn a_reshape_target_built_from_shape_keeps_the_run_time_dims() {
        let nodes = vec![
            node("Shape", &["x"], "s", &[]),
            node("Slice", &["s", "zero", "two"], "lead", &[]),
            node("Concat", &["lead", "heads"], "target", &[("axis", Attr::Int(0))]),
            node("Reshape", &["x", "target"], "y", &[]),
        ];
        let consts: &[(&str, &[usize], &[i64])] =
            &[("zero", &[1], &[0]), ("two", &[1], &[2]), ("heads", &[2], &[4, 16])];
        let mut g = graph(nodes, consts, "y");
        infer_and_fold(&mut g).unwrap();
        assert_eq!(g.ty("y").unwrap().describe(), "float32 [batch, seq, 4, 16]");
        assert_eq!(g.nodes.len(), 1, "only the Reshape is left to lower");
        let target = &g.shape_values["target"];
        assert_eq!(crate::dim::dims_text(&target.values), "[batch, seq, 4, 16]");
    }

    #[test]
    fn integer_arithmetic_on_dims_folds_and_static_pieces_become_constants() {
        let nodes = vec![
            node("Shape", &["x"], "s", &[]),
            node("Gather", &["s", "one"], "n", &[]),
            node("Mul", &["n", "six"], "n6", &[]),
            node("Div", &["n6", "four"], "n6_4", &[]),
            node("Div", &["n6", "three"], "n2", &[]),
            node("Gather", &["s", "last"], "width", &[]),
        ];
        let consts: &[(&str, &[usize], &[i64])] =
            &[("one", &[], &[1]), ("six", &[], &[6]), ("four", &[], &[4]), ("three", &[], &[3]), ("last", &[], &[-1])];
        let mut g = graph(nodes, consts, "n2");
        infer_and_fold(&mut g).unwrap();
        assert_eq!(g.shape_values["n2"].values, vec![Dim::symbol("seq").mul(&Dim::fixed(2))]);
        // seq*6/4 is not a whole number for every seq: a dim the run computes, by its own name.
        assert_eq!(g.shape_values["n6_4"].values, vec![Dim::symbol("n6_4.0")]);
        assert_eq!(g.consts["width"].to_i64(), [64]);
    }
}
