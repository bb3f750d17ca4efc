//! TreeEnsemble (`ai.onnx.ml` 5), expanded: every tree is flattened into its leaves, each leaf
//! reached where all the comparisons on its path go its way (one boolean vector per interior
//! node, shared by the leaves below it). The leaves' indicators, as 0 or 1, times a
//! `[leaves, targets]` matrix of their weights give the sum over the trees (SUM, AVERAGE); MIN
//! and MAX take each target's extreme over the leaves reached (0 for a target none of them
//! feeds, as ONNX Runtime has it; ONNX's reference leaves the type's extreme). Post transforms:
//! NONE, SOFTMAX and LOGISTIC.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};
use std::collections::HashMap;

pub struct TreeEnsemble;

/// The node attributes, read once.
struct Forest {
    modes: Vec<i64>,
    splits: Vec<f64>,
    features: Vec<i64>,
    true_ids: Vec<i64>,
    false_ids: Vec<i64>,
    true_leaf: Vec<i64>,
    false_leaf: Vec<i64>,
    missing_true: Vec<i64>,
    members: HashMap<usize, Vec<f64>>,
    leaf_targets: Vec<i64>,
    leaf_weights: Vec<f64>,
}

const MEMBER: i64 = 6;

/// The leaves and where each is reached (`[N]` booleans), as the aggregations read them.
#[derive(Clone, Copy)]
struct Reach<'a> {
    forest: &'a Forest,
    leaves: &'a [Reached],
    indicators: &'a [String],
    targets: usize,
    dtype: DType,
}

/// A leaf reached by a path: the interior nodes and the branch taken at each.
struct Reached {
    leaf: usize,
    path: Vec<(usize, bool)>,
}

impl Expanded for TreeEnsemble {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = g.ty(&node.inputs[0])?;
        if !t.dtype.is_float() || t.shape.len() != 2 || t.is_dynamic() {
            return err(format!(
                "TreeEnsemble takes a [N, F] floating-point input known at compile time, not {}",
                t.describe()
            ));
        }
        let (rows, features) = (t.shape[0], t.shape[1]);
        let forest = Forest::read(node, features)?;
        let targets = node.int("n_targets", 0);
        if targets <= 0 || forest.leaf_targets.iter().any(|&id| id < 0 || id >= targets) {
            return err(format!("n_targets ({targets}) must be positive and cover every leaf_targetids entry"));
        }
        let roots = node.ints("tree_roots").unwrap_or_default();
        let mut leaves = Vec::new();
        for &root in &roots {
            leaves.extend(forest.leaves_of(root)?);
        }
        let mut conditions: HashMap<usize, String> = HashMap::new();
        let mut indicators = Vec::new();
        for reached in &leaves {
            let mut acc: Option<String> = None;
            for &(n, branch) in &reached.path {
                let c = match conditions.get(&n) {
                    Some(c) => c.clone(),
                    None => {
                        let c = forest.condition(x, &node.inputs[0], n, t.dtype);
                        conditions.insert(n, c.clone());
                        c
                    }
                };
                let taken = if branch { c } else { x.op("Not", &[&c], &[]) };
                acc = Some(match acc {
                    None => taken,
                    Some(a) => x.op("And", &[&a, &taken], &[]),
                });
            }
            let all = || Tensor::from_f64(DType::Bool, vec![rows], &vec![1.0; rows]);
            indicators.push(acc.unwrap_or_else(|| x.constant(all())));
        }
        let (targets, trees) = (targets as usize, roots.len());
        // Each leaf's weights are a dense row over the targets.
        let what = format!("{} leaves' weights over n_targets {targets}", leaves.len());
        g.constant_fits(leaves.len().checked_mul(targets), t.dtype, &what)?;
        let reach = Reach { forest: &forest, leaves: &leaves, indicators: &indicators, targets, dtype: t.dtype };
        let y = match node.int("aggregate_function", 1) {
            a @ (0 | 1) => sum(x, &reach, if a == 0 { trees } else { 1 }),
            a @ (2 | 3) => extreme(x, &reach, a == 3),
            a => return err(format!("aggregate_function {a} is not one of AVERAGE, SUM, MIN, MAX (0 to 3)")),
        };
        let y = match node.int("post_transform", 0) {
            0 => y,
            1 => x.op("Softmax", &[&y], &[("axis", Attr::Int(-1))]),
            2 => x.op("Sigmoid", &[&y], &[]),
            p => return err(format!("post_transform {p} is not supported (NONE, SOFTMAX and LOGISTIC are)")),
        };
        x.output(&y, Some(&node.outputs[0]));
        Ok(())
    }
}

/// `[N, targets]`: each leaf's weight at its target where it is reached, summed, over `divisor`.
fn sum(x: &mut Expansion, r: &Reach, divisor: usize) -> String {
    let Reach { forest: f, leaves, indicators: ind, targets, dtype: d } = *r;
    let mut weights = vec![0.0; leaves.len() * targets];
    for (k, r) in leaves.iter().enumerate() {
        weights[k * targets + f.leaf_targets[r.leaf] as usize] = f.leaf_weights[r.leaf] / divisor as f64;
    }
    let columns: Vec<String> = ind.iter().map(|i| x.unsqueeze(i, &[1])).collect();
    let refs: Vec<&str> = columns.iter().map(String::as_str).collect();
    let reached = if refs.len() == 1 { refs[0].to_string() } else { x.op("Concat", &refs, &[("axis", Attr::Int(1))]) };
    let reached = x.cast(&reached, DType::Bool, d);
    let weights = x.constant(Tensor::from_f64(d, vec![leaves.len(), targets], &weights));
    x.op("MatMul", &[&reached, &weights], &[])
}

/// `[N, targets]`: the largest (or smallest) weight among the leaves reached for each target,
/// or 0 where none is.
fn extreme(x: &mut Expansion, r: &Reach, max: bool) -> String {
    let Reach { forest: f, leaves, indicators: ind, targets, dtype: d } = *r;
    let bound = match (d, max) {
        (DType::F64, true) => f64::MIN,
        (DType::F64, false) => f64::MAX,
        (_, true) => f32::MIN as f64,
        (_, false) => f32::MAX as f64,
    };
    let none = x.scalar(bound, d);
    let (mut acc, mut any): (Option<String>, Option<String>) = (None, None);
    for (r, i) in leaves.iter().zip(ind) {
        let mut row = vec![0.0; targets];
        row[f.leaf_targets[r.leaf] as usize] = 1.0;
        let at = x.constant(Tensor::from_f64(DType::Bool, vec![1, targets], &row));
        let column = x.unsqueeze(i, &[1]);
        let hit = x.op("And", &[&column, &at], &[]);
        let w = x.scalar(f.leaf_weights[r.leaf], d);
        let v = x.op("Where", &[&hit, &w, &none], &[]);
        acc = Some(match acc {
            None => v,
            Some(a) => x.op(if max { "Max" } else { "Min" }, &[&a, &v], &[]),
        });
        any = Some(match any {
            None => hit,
            Some(a) => x.op("Or", &[&a, &hit], &[]),
        });
    }
    let (Some(acc), Some(any)) = (acc, any) else { return none };
    // A target no reached leaf feeds is 0, as ONNX Runtime gives it.
    let zero = x.scalar(0.0, d);
    x.op("Where", &[&any, &acc, &zero], &[])
}

impl Forest {
    fn read(node: &Node, features: usize) -> OResult<Forest> {
        let ints = |name: &str| node.ints(name).unwrap_or_default();
        let values = |name: &str| -> Vec<f64> {
            match node.attrs.get(name) {
                Some(Attr::Tensor(t)) => t.to_f64(),
                Some(Attr::Floats(v)) => v.iter().map(|&f| f as f64).collect(),
                _ => Vec::new(),
            }
        };
        let modes: Vec<i64> = values("nodes_modes").iter().map(|&m| m as i64).collect();
        let n = modes.len();
        let forest = Forest {
            splits: values("nodes_splits"),
            features: ints("nodes_featureids"),
            true_ids: ints("nodes_truenodeids"),
            false_ids: ints("nodes_falsenodeids"),
            true_leaf: ints("nodes_trueleafs"),
            false_leaf: ints("nodes_falseleafs"),
            missing_true: node.ints("nodes_missing_value_tracks_true").unwrap_or_else(|| vec![0; n]),
            members: members(&modes, &values("membership_values"))?,
            leaf_targets: ints("leaf_targetids"),
            leaf_weights: values("leaf_weights"),
            modes,
        };
        let lengths = [
            forest.splits.len(),
            forest.features.len(),
            forest.true_ids.len(),
            forest.false_ids.len(),
            forest.true_leaf.len(),
            forest.false_leaf.len(),
            forest.missing_true.len(),
        ];
        if lengths.iter().any(|&l| l != n) || forest.leaf_targets.len() != forest.leaf_weights.len() {
            return err("TreeEnsemble's nodes_* attributes must have one length, and so must its leaf_* attributes");
        }
        if let Some(&m) = forest.modes.iter().find(|&&m| !(0..=MEMBER).contains(&m)) {
            return err(format!("nodes_modes holds {m}, not a comparison (0 to 6)"));
        }
        if let Some(&f) = forest.features.iter().find(|&&f| f < 0 || f as usize >= features) {
            return err(format!("nodes_featureids holds {f}, not a feature of the {features}"));
        }
        Ok(forest)
    }

    /// The leaves under `root`, each with its path; an error for an index out of range or a
    /// cycle.
    fn leaves_of(&self, root: i64) -> OResult<Vec<Reached>> {
        let n = self.modes.len();
        let check = |i: i64, leaf: bool| -> OResult<usize> {
            let limit = if leaf { self.leaf_weights.len() } else { n };
            usize::try_from(i).ok().filter(|&i| i < limit).ok_or_else(|| {
                OnnxError::msg(format!(
                    "TreeEnsemble refers to {} {i}, past the {limit}",
                    if leaf { "leaf" } else { "node" }
                ))
            })
        };
        let r = check(root, false)?;
        if self.true_leaf[r] != 0 && self.false_leaf[r] != 0 && self.true_ids[r] == self.false_ids[r] {
            return Ok(vec![Reached { leaf: check(self.true_ids[r], true)?, path: Vec::new() }]);
        }
        let (mut out, mut stack) = (Vec::new(), vec![(r, Vec::<(usize, bool)>::new())]);
        while let Some((at, path)) = stack.pop() {
            if path.len() > n {
                return err("TreeEnsemble's nodes form a cycle");
            }
            for (branch, id, leaf) in
                [(false, self.false_ids[at], self.false_leaf[at]), (true, self.true_ids[at], self.true_leaf[at])]
            {
                let mut p = path.clone();
                p.push((at, branch));
                if leaf != 0 {
                    out.push(Reached { leaf: check(id, true)?, path: p });
                } else {
                    stack.push((check(id, false)?, p));
                }
            }
        }
        Ok(out)
    }

    /// `[N]` booleans: whether node `n`'s comparison holds (or its feature is NaN and NaN goes
    /// the true way).
    fn condition(&self, x: &mut Expansion, input: &str, n: usize, d: DType) -> String {
        let index = x.constant(Tensor::from_i64(vec![], &[self.features[n]]));
        let v = x.op("Gather", &[input, &index], &[("axis", Attr::Int(1))]);
        let mut c = if self.modes[n] == MEMBER {
            let set = self.members.get(&n).cloned().unwrap_or_default();
            let set_len = set.len();
            let set = x.constant(Tensor::from_f64(d, vec![1, set_len], &set));
            let column = x.unsqueeze(&v, &[1]);
            let equal = x.op("Equal", &[&column, &set], &[]);
            let equal = x.cast(&equal, DType::Bool, d);
            let axis = x.ints(&[1]);
            let hits = x.op("ReduceMax", &[&equal, &axis], &[("keepdims", Attr::Int(0))]);
            let zero = x.scalar(0.0, d);
            x.op("Greater", &[&hits, &zero], &[])
        } else {
            let split = x.scalar(self.splits[n], d);
            let op = ["LessOrEqual", "Less", "GreaterOrEqual", "Greater", "Equal", "Equal"][self.modes[n] as usize];
            let c = x.op(op, &[&v, &split], &[]);
            if self.modes[n] == 5 {
                x.op("Not", &[&c], &[])
            } else {
                c
            }
        };
        if self.missing_true[n] != 0 {
            let nan = x.op("IsNaN", &[&v], &[]);
            c = x.op("Or", &[&c, &nan], &[]);
        } else if self.modes[n] == 5 {
            // NEQ: NaN != s holds, but a NaN goes the false way unless it tracks true.
            let nan = x.op("IsNaN", &[&v], &[]);
            let not_nan = x.op("Not", &[&nan], &[]);
            c = x.op("And", &[&c, &not_nan], &[]);
        }
        c
    }
}

/// The sets of the BRANCH_MEMBER nodes, in node order, from `membership_values` (NaN-delimited).
fn members(modes: &[i64], values: &[f64]) -> OResult<HashMap<usize, Vec<f64>>> {
    let member_nodes: Vec<usize> = (0..modes.len()).filter(|&k| modes[k] == MEMBER).collect();
    let sets: Vec<Vec<f64>> = values.split(|v| v.is_nan()).map(<[f64]>::to_vec).collect();
    let sets = &sets[..sets.len().min(member_nodes.len())];
    if sets.len() != member_nodes.len() {
        return err(format!(
            "membership_values holds {} sets for {} BRANCH_MEMBER nodes",
            sets.len(),
            member_nodes.len()
        ));
    }
    Ok(member_nodes.into_iter().zip(sets.iter().cloned()).collect())
}
