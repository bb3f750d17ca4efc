//! Einsum, expanded ([`crate::ops::expansion`]): each operand's repeated labels reduced to
//! their diagonal, its dims transposed and unsqueezed into one order of every label (the
//! output's first, then the summed ones), the operands multiplied with broadcasting, and the
//! summed labels reduced. `...` stands for the same leading dims in every operand (aligned on
//! the right); without `->` the output is the ellipsis dims, then the labels used once, sorted.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct Einsum;

/// The labels of each operand and of the output, `...` made into labels of its own (digits).
struct Equation {
    operands: Vec<Vec<char>>,
    output: Vec<char>,
}

fn parse(equation: &str, ranks: &[usize]) -> OResult<Equation> {
    let text: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match text.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (text.as_str(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != ranks.len() {
        return err(format!("the equation '{equation}' names {} operands, the node has {}", terms.len(), ranks.len()));
    }
    let letters = |t: &str| t.replace("...", "").chars().collect::<Vec<char>>();
    for t in terms.iter().chain(rhs.iter()) {
        if let Some(c) = letters(t).into_iter().find(|c| !c.is_ascii_alphabetic()) {
            return err(format!("the equation '{equation}' has the character '{c}', not a letter"));
        }
    }
    // The ellipsis dims, aligned on the right across operands.
    let ellipsis_rank = terms
        .iter()
        .zip(ranks)
        .filter(|(t, _)| t.contains("..."))
        .map(|(t, &r)| r.saturating_sub(letters(t).len()))
        .max()
        .unwrap_or(0);
    let dots: Vec<char> = (0..ellipsis_rank).map(|k| char::from(b'0' + k as u8)).collect();
    let expand = |t: &str, rank: Option<usize>| -> Vec<char> {
        let Some((before, after)) = t.split_once("...") else { return t.chars().collect() };
        let k = rank.map_or(ellipsis_rank, |r| r.saturating_sub(before.len() + after.len()));
        before.chars().chain(dots[ellipsis_rank - k..].iter().copied()).chain(after.chars()).collect()
    };
    let operands: Vec<Vec<char>> = terms.iter().zip(ranks).map(|(t, &r)| expand(t, Some(r))).collect();
    for (labels, &rank) in operands.iter().zip(ranks) {
        if labels.len() != rank {
            return err(format!(
                "the equation '{equation}' gives an operand {} labels, its rank is {rank}",
                labels.len()
            ));
        }
    }
    let output = match rhs {
        Some(r) => expand(r, None),
        None => {
            let all: Vec<char> = operands.iter().flatten().copied().collect();
            let mut once: Vec<char> = all
                .iter()
                .copied()
                .filter(|c| c.is_ascii_alphabetic() && all.iter().filter(|d| *d == c).count() == 1)
                .collect();
            once.sort_unstable();
            dots.iter().copied().chain(once).collect()
        }
    };
    Ok(Equation { operands, output })
}

impl Expanded for Einsum {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let types: Vec<&TensorType> = node.inputs.iter().map(|i| g.ty(i)).collect::<OResult<_>>()?;
        let ranks: Vec<usize> = types.iter().map(|t| t.shape.len()).collect();
        let eq = parse(node.string("equation").unwrap_or(""), &ranks)?;
        // Every label, the output's first.
        let mut order = eq.output.clone();
        for &c in eq.operands.iter().flatten() {
            if !order.contains(&c) {
                order.push(c);
            }
        }
        let mut product: Option<String> = None;
        for (k, labels) in eq.operands.iter().enumerate() {
            let (v, labels) = diagonals(x, &node.inputs[k], labels.clone());
            // Transposed into `order`, then the labels it lacks inserted as dims of size 1.
            let mut perm: Vec<usize> = (0..labels.len()).collect();
            perm.sort_by_key(|&i| order.iter().position(|&c| c == labels[i]));
            let v = if perm.iter().enumerate().all(|(i, &p)| i == p) {
                v
            } else {
                x.transpose(&v, &perm.iter().map(|&p| p as i64).collect::<Vec<_>>())
            };
            let missing: Vec<i64> =
                order.iter().enumerate().filter(|(_, c)| !labels.contains(c)).map(|(i, _)| i as i64).collect();
            let v = if missing.is_empty() { v } else { x.unsqueeze(&v, &missing) };
            product = Some(match product {
                Some(p) => x.op("Mul", &[&p, &v], &[]),
                None => v,
            });
        }
        let product = product.ok_or_else(|| OnnxError::msg("Einsum needs an operand"))?;
        let summed: Vec<i64> = (eq.output.len()..order.len()).map(|i| i as i64).collect();
        let y = if summed.is_empty() {
            product
        } else {
            let axes = x.ints(&summed);
            x.op("ReduceSum", &[&product, &axes], &[("keepdims", Attr::Int(0))])
        };
        x.output(&y, Some(&node.outputs[0]));
        Ok(())
    }
}

/// `v` (with `labels`) with each label repeated in it reduced to its diagonal: the dims
/// multiplied by "the two positions are equal" and the second summed away.
fn diagonals(x: &mut Expansion, v: &str, mut labels: Vec<char>) -> (String, Vec<char>) {
    let mut v = v.to_string();
    while let Some((p, q)) =
        (0..labels.len()).find_map(|p| labels[p + 1..].iter().position(|&c| c == labels[p]).map(|d| (p, p + 1 + d)))
    {
        let rank = labels.len();
        let rows = x.positions(&v, p as i64, rank - p - 1);
        let cols = x.positions(&v, q as i64, rank - q - 1);
        let same = x.op("Equal", &[&rows, &cols], &[]);
        let zero = x.op("Sub", &[&v, &v], &[]);
        let masked = x.op("Where", &[&same, &v, &zero], &[]);
        let axis = x.ints(&[q as i64]);
        v = x.op("ReduceSum", &[&masked, &axis], &[("keepdims", Attr::Int(0))]);
        labels.remove(q);
    }
    (v, labels)
}
