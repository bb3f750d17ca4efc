//! NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, expanded
//! ([`crate::ops::expansion`]). For scores `[N, C, d1, ...]` and integer targets `[N, d1, ...]`:
//!
//! - each position's loss is `-input[n, target, d...]`, times `weight[target]` when a weight is
//!   given; a target equal to ignore_index contributes 0 and weighs 0 (it is replaced by class 0
//!   before any gather, as it may be out of range);
//! - reduction `none` keeps the losses, `sum` adds them, `mean` divides their sum by the sum of
//!   the weights (the count of positions not ignored, without a weight);
//! - SoftmaxCrossEntropyLoss is the same loss over `LogSoftmax(scores)` along the classes,
//!   which it also returns as its optional second output.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct NegativeLogLikelihoodLoss;
pub struct SoftmaxCrossEntropyLoss;

impl Expanded for NegativeLogLikelihoodLoss {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let loss = nll(node, g, x, &node.inputs[0])?;
        x.output(&loss, Some(&node.outputs[0]));
        Ok(())
    }
}

impl Expanded for SoftmaxCrossEntropyLoss {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let log_prob = x.op("LogSoftmax", &[&node.inputs[0]], &[("axis", Attr::Int(1))]);
        x.output(&log_prob, node.outputs.get(1).map(String::as_str));
        let loss = nll(node, g, x, &log_prob)?;
        x.output(&loss, Some(&node.outputs[0]));
        Ok(())
    }
}

/// The negative log-likelihood of `log_prob` (the node's input 0's type and dims) at the
/// node's targets (input 1), weighted (input 2) and reduced as its attributes say.
fn nll(node: &Node, g: &Graph, x: &mut Expansion, log_prob: &str) -> OResult<String> {
    let scores = g.ty(&node.inputs[0])?;
    let target = g.ty(&node.inputs[1])?;
    let d = scores.dtype;
    if !d.is_float() {
        return err(format!("the scores must be floating point, not {}", d.name()));
    }
    if !matches!(target.dtype, DType::I32 | DType::I64) {
        return err(format!("the targets must be int32 or int64, not {}", target.dtype.name()));
    }
    if scores.shape.len() < 2 || target.shape.len() + 1 != scores.shape.len() {
        return err(format!(
            "the scores must be [N, C, d1, ...] and the targets [N, d1, ...], not {} and {}",
            scores.describe(),
            target.describe()
        ));
    }
    let reduction = node.string("reduction").unwrap_or("mean");
    if !matches!(reduction, "none" | "sum" | "mean") {
        return err(format!("reduction must be 'none', 'sum' or 'mean', not '{reduction}'"));
    }
    let target_name = &node.inputs[1];
    let ignored = node.attrs.get("ignore_index").map(|_| {
        let index = x.constant(Tensor::from_f64(target.dtype, vec![], &[node.int("ignore_index", 0) as f64]));
        x.op("Equal", &[target_name, &index], &[])
    });
    let safe = match &ignored {
        Some(ignored) => {
            let class0 = x.constant(Tensor::from_f64(target.dtype, vec![], &[0.0]));
            x.op("Where", &[ignored, &class0, target_name], &[])
        }
        None => target_name.clone(),
    };
    let at = x.unsqueeze(&safe, &[1]);
    let picked = x.op("GatherElements", &[log_prob, &at], &[("axis", Attr::Int(1))]);
    let class_axis = x.ints(&[1]);
    let picked = x.op("Squeeze", &[&picked, &class_axis], &[]);
    let mut loss = x.op("Neg", &[&picked], &[]);
    let weight = node.input(2).map(|w| x.op("Gather", &[w, &safe], &[("axis", Attr::Int(0))]));
    let weight = match (&ignored, weight) {
        (Some(ignored), w) => {
            let zero = x.scalar(0.0, d);
            let w = w.unwrap_or_else(|| x.scalar(1.0, d));
            Some(x.op("Where", &[ignored, &zero, &w], &[]))
        }
        (None, w) => w,
    };
    if let Some(w) = &weight {
        loss = x.op("Mul", &[&loss, w], &[]);
    }
    let keep = [("keepdims", Attr::Int(0))];
    Ok(match (reduction, &weight) {
        ("none", _) => loss,
        ("sum", _) => x.op("ReduceSum", &[&loss], &keep),
        (_, None) => x.op("ReduceMean", &[&loss], &keep),
        (_, Some(w)) => {
            // One weight per position: the weight of its class, or 0 where ignored.
            let total = x.op("ReduceSum", &[&loss], &keep);
            let weights = x.op("ReduceSum", &[w], &keep);
            x.op("Div", &[&total, &weights], &[])
        }
    })
}
