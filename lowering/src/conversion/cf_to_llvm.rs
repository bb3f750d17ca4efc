//! `convert-cf-to-llvm`: branches to `llvm.br` and `llvm.cond_br`, their values cast to the
//! target blocks' argument types.

use super::{ConversionSet, Rewriter};
use xcc_ir::{Diagnostic, OpId, ValueId};

pub const CONVERSION: ConversionSet =
    ConversionSet { name: "cf", one_to_one: &[], patterns: &[("cf.br", branch), ("cf.cond_br", branch)] };

fn branch(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let ops = rw.operands(op)?;
    let span = rw.old.ops[op].span;
    let name = if rw.old.ops[op].name == "cf.br" { "llvm.br" } else { "llvm.cond_br" };
    let mut spec = rw.builder(span).spec(name).operands(ops);
    for i in 0..rw.old.ops[op].successors.len() {
        let (block, args) = rw.successor(op, i)?;
        spec = spec.successor(block, args);
    }
    rw.builder(span).insert(spec);
    Ok(vec![])
}
