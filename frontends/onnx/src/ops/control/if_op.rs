//! If. With a condition known at compile time, its branch is copied into the graph. With one the
//! run computes before the kernels (a graph input, or arithmetic on inputs and dims: optimum's
//! `use_cache_branch`, a shape predicate), both branches are copied in, each node guarded by the
//! condition under which its branch runs ([`Node::guard`]): the run executes only the taken
//! branch's kernels, checks only its shape conditions, and sizes the other's tensors at 0. Each
//! output is a [`TakenBranch`] of the two branches' values, whose dims are the taken branch's
//! (the branches may differ: a merged decoder's cached branch gives `past + seq` rows, the other
//! `seq`). Otherwise (a condition computed by a kernel) both branches run and each output is
//! selected by a Where, so the branches' outputs must broadcast together.

use super::regions::copy_elements;
use super::{body, inline};
use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::computed_data::computed_data;
use crate::ops::expansion::{Expanded, Expansion};
use crate::ops::onnx_op::OnnxOp;
use xcc_ir::ValueId;

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
        let taken = condition(g, cond)?;
        let runs = |branch: DataExpr| match &node.guard {
            Some(outer) => outer.and(&branch),
            None => branch,
        };
        let start = x.written();
        let then_outs = inline(x, then_branch, &prefix("then"), &[])?;
        if let Some(taken) = &taken {
            x.guard_since(start, &runs(taken.not().not()));
        }
        let start = x.written();
        let else_outs = inline(x, else_branch, &prefix("else"), &[])?;
        if let Some(taken) = &taken {
            x.guard_since(start, &runs(taken.not()));
        }
        if then_outs.len() != else_outs.len() || then_outs.len() < node.outputs.len() {
            return err("If's branches have different numbers of outputs");
        }
        let scalar = if taken.is_some() { cond.clone() } else { x.reshape(cond, &[]) };
        for ((o, t), e) in node.outputs.iter().zip(&then_outs).zip(&else_outs) {
            match (o.is_empty(), &taken) {
                (true, _) => {}
                (false, Some(_)) => x.op_in(crate::ops::XCC_DOMAIN, "TakenBranch", &[&scalar, t, e], &[], &[o]),
                (false, None) => x.op_to("Where", &[&scalar, t, e], &[], &[o]),
            }
        }
        Ok(())
    }
}

/// The If's condition as the run computes it before the kernels (nonzero: the then branch), or
/// `None` where a kernel computes it.
fn condition(g: &Graph, cond: &str) -> OResult<Option<DataExpr>> {
    if g.ty(cond)?.dims().iter().any(|d| d.as_const() != Some(1)) {
        return Ok(None);
    }
    Ok(match computed_data(g, cond)?.as_deref() {
        Some([c]) => Some(c.clone()),
        _ => None,
    })
}

/// TakenBranch (xcc's own domain, written by the If expansion): inputs `cond` (one element,
/// computed before the kernels), `then` and `else`; the output is `then`'s value where `cond`
/// is nonzero, else `else`'s, with that branch's dims.
pub struct TakenBranch;

fn taken_condition(node: &Node, g: &Graph) -> OResult<DataExpr> {
    condition(g, &node.inputs[0])?.ok_or_else(|| OnnxError::msg("internal: TakenBranch's condition is not computed"))
}

impl OnnxOp for TakenBranch {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let taken = taken_condition(node, g)?;
        let (t, e) = (g.ty(&node.inputs[1])?, g.ty(&node.inputs[2])?);
        if t.dtype != e.dtype || t.dims().len() != e.dims().len() {
            return err(format!(
                "If's branches give its output '{}' as {} and as {}: xcc needs one type and rank",
                node.outputs[0],
                t.describe(),
                e.describe()
            ));
        }
        let mut dims = Vec::new();
        for (k, (a, b)) in t.dims().iter().zip(e.dims()).enumerate() {
            // Equal dims stay; others are the taken branch's, chosen by the run (no check that they
            // agree: they need not).
            dims.push(if *a == b {
                a.clone()
            } else {
                let name = format!("{}.dim{k}", node.outputs[0]);
                g.dim_of(&taken.select(&DataExpr::Dim(a.clone()), &DataExpr::Dim(b.clone())), name)
            });
        }
        Ok(vec![TensorType::with_dims(t.dtype, dims)])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let taken = taken_condition(node, g)?;
        let flag = e.data_value(&taken);
        let zero = e.idx(0);
        let then = e.cmpi("ne", flag, zero);
        let (out, t, f) = (e.buf(&node.outputs[0])?, e.buf(&node.inputs[1])?, e.buf(&node.inputs[2])?);
        e.if_else(
            then,
            Vec::new(),
            |e| {
                copy_branch(e, t, out);
                Vec::new()
            },
            |e| {
                copy_branch(e, f, out);
                Vec::new()
            },
        );
        Ok(())
    }
}

/// A branch's value into the If's output: a `kernel.copy` (a block copy) where their types are
/// one, else element by element (a dim fixed in one, computed in the other).
fn copy_branch(e: &mut Emitter, src: ValueId, out: ValueId) {
    if e.ty(src) == e.ty(out) {
        e.copy(src, out);
    } else {
        copy_elements(e, src, out, &[]);
    }
}
