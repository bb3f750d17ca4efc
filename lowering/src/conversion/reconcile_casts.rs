//! `reconcile-unrealized-casts`: removes the casts a partial conversion left between two type
//! systems once both sides are converted. A cast of a cast back to the original type is the
//! original value; a cast to the same type is its operand; an unused cast goes. Any cast still
//! needed afterwards means a conversion is missing, and is reported.

use crate::pass::{LoweringOptions, Pass};
use xcc_ir::{Diagnostic, Module, OpId, ValueId};

pub struct ReconcileUnrealizedCasts;

const CAST: &str = "builtin.unrealized_conversion_cast";

impl Pass for ReconcileUnrealizedCasts {
    fn name(&self) -> &'static str {
        "reconcile-unrealized-casts"
    }

    fn lowers(&self, op: &str) -> bool {
        op == CAST
    }

    fn run(&self, mut m: Module, _: &LoweringOptions) -> Result<Module, Diagnostic> {
        loop {
            let casts = all_casts(&m);
            let mut changed = false;
            for op in casts {
                if m.ops[op].parent.is_none() {
                    continue;
                }
                changed |= fold_cast(&mut m, op);
            }
            if !changed {
                break;
            }
        }
        if let Some(&op) = all_casts(&m).first() {
            let d = &m.ops[op];
            return Err(Diagnostic::new(
                d.span,
                format!(
                    "unsupported in lowering to LLVM: a value of type {} is used as {} (a conversion between them is missing)",
                    m.ty(d.operands[0]),
                    m.ty(d.results[0])
                ),
            ));
        }
        Ok(m)
    }
}

fn all_casts(m: &Module) -> Vec<OpId> {
    let mut out = Vec::new();
    for &top in m.top_ops() {
        m.walk_nested(top, &mut |op| {
            if m.ops[op].name == CAST && m.ops[op].operands.len() == 1 && m.ops[op].results.len() == 1 {
                out.push(op);
            }
        });
    }
    out
}

/// Replaces a cast by the value it stands for when one exists; removes it when unused.
fn fold_cast(m: &mut Module, op: OpId) -> bool {
    let input = m.ops[op].operands[0];
    let result = m.ops[op].results[0];
    let root = m.top_level_ancestor(op);
    let replacement: Option<ValueId> = if m.ty(input) == m.ty(result) {
        Some(input)
    } else {
        m.defining_op(input)
            .filter(|&p| m.ops[p].name == CAST && m.ops[p].operands.len() == 1)
            .map(|p| m.ops[p].operands[0])
            .filter(|&v| m.ty(v) == m.ty(result))
    };
    match replacement {
        Some(v) => {
            m.replace_uses_in(root, result, v);
            m.erase_op(op);
            true
        }
        None if !has_uses(m, root, result) => {
            m.erase_op(op);
            true
        }
        None => false,
    }
}

fn has_uses(m: &Module, root: OpId, v: ValueId) -> bool {
    let mut used = false;
    m.walk_nested(root, &mut |op| {
        let d = &m.ops[op];
        used |= d.operands.contains(&v) || d.successors.iter().any(|s| s.args.contains(&v));
    });
    used
}
