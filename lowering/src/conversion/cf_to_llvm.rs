//! `convert-cf-to-llvm`: branches to `llvm.br`, `llvm.cond_br` and `llvm.switch`, their values
//! cast to the target blocks' argument types.

use super::{ConversionSet, Rewriter};
use xcc_ir::{Diagnostic, OpId, ValueId};

pub const CONVERSION: ConversionSet = ConversionSet {
    name: "cf",
    one_to_one: &[],
    patterns: &[("cf.br", branch), ("cf.cond_br", branch), ("cf.switch", branch)],
};

fn branch(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let ops = rw.operands(op)?;
    let span = rw.old.ops[op].span;
    let name = match rw.old.ops[op].name.as_str() {
        "cf.br" => "llvm.br",
        "cf.cond_br" => "llvm.cond_br",
        _ => "llvm.switch",
    };
    let mut spec = rw.builder(span).spec(name).operands(ops);
    if let Some(values) = rw.old.attr(op, "case_values") {
        spec = spec.attr("case_values", values.clone());
    }
    for i in 0..rw.old.ops[op].successors.len() {
        let (block, args) = rw.successor(op, i)?;
        spec = spec.successor(block, args);
    }
    rw.builder(span).insert(spec);
    Ok(vec![])
}
