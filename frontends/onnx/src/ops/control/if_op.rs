//! If: with a condition known at compile time, its branch; else both branches computed and each
//! output selected by the condition (so the branches' outputs must broadcast together).

use super::{body, inline};
use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct If;

impl Expanded for If {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let cond = &node.inputs[0];
        let (then_branch, else_branch) = (body(node, "then_branch")?, body(node, "else_branch")?);
        let prefix = |which: &str| format!("{}#if.{which}.", node.outputs.first().map_or("", String::as_str));
        if let Some(c) = g.consts.get(cond) {
            let taken = c.to_f64().first().is_some_and(|&v| v != 0.0);
            let (branch, which) = if taken { (then_branch, "then") } else { (else_branch, "else") };
            let outs = inline(x, branch, &prefix(which), &[])?;
            for (o, v) in node.outputs.iter().zip(outs) {
                x.output(&v, Some(o));
            }
            return Ok(());
        }
        let then_outs = inline(x, then_branch, &prefix("then"), &[])?;
        let else_outs = inline(x, else_branch, &prefix("else"), &[])?;
        if then_outs.len() != else_outs.len() || then_outs.len() < node.outputs.len() {
            return err("If's branches have different numbers of outputs");
        }
        let scalar = x.reshape(cond, &[]);
        for ((o, t), e) in node.outputs.iter().zip(&then_outs).zip(&else_outs) {
            if !o.is_empty() {
                x.op_to("Where", &[&scalar, t, e], &[], &[o]);
            }
        }
        Ok(())
    }
}
