//! `cf`: unstructured control flow between the blocks of a region.

use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{OpDef, Syntax, Traits};
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::Type;

pub const OPS: &[OpDef] = &[
    OpDef::new("cf.br", "jumps to a block, passing values for its arguments")
        .successors(1)
        .traits(Traits::TERMINATOR.union(Traits::PURE))
        .syntax(BRANCH),
    OpDef::new("cf.cond_br", "jumps to one of two blocks on an i1")
        .operands(1)
        .successors(2)
        .traits(Traits::TERMINATOR.union(Traits::PURE))
        .verify(verify_cond_br)
        .syntax(COND_BRANCH),
];

fn verify_cond_br(m: &Module, op: OpId) -> Result<(), String> {
    let t = m.ty(m.ops[op].operands[0]);
    if *t != Type::i1() {
        return Err(format!("the condition must be i1, not {t}"));
    }
    Ok(())
}

/// `cf.br ^bb1(%a : i32)` (also `llvm.br`).
pub const BRANCH: Syntax = Syntax::custom(parse_br, Some(print_br));
/// `cf.cond_br %c, ^bb1(%a : i32), ^bb2` (also `llvm.cond_br`).
pub const COND_BRANCH: Syntax = Syntax::custom(parse_cond_br, Some(print_cond_br));

fn parse_br(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let (label, args) = p.parse_successor()?;
    let s = p.finish_successor(label, args)?;
    Ok(spec.successor(s.block, s.args))
}

fn parse_cond_br(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let c = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let (l1, a1) = p.parse_successor()?;
    p.expect_punct(",")?;
    let (l2, a2) = p.parse_successor()?;
    let c = p.resolve(&c, &Type::i1())?;
    let s1 = p.finish_successor(l1, a1)?;
    let s2 = p.finish_successor(l2, a2)?;
    Ok(spec.operands([c]).successor(s1.block, s1.args).successor(s2.block, s2.args))
}

fn print_br(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    if p.has_other_attrs(op, &[]) || d.successors.len() != 1 || !d.operands.is_empty() {
        return None;
    }
    p.successor(d.successors[0].block, &d.successors[0].args);
    Some(())
}

fn print_cond_br(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    if p.has_other_attrs(op, &[]) || d.successors.len() != 2 || d.operands.len() != 1 {
        return None;
    }
    p.value(d.operands[0]);
    p.word(", ");
    p.successor(d.successors[0].block, &d.successors[0].args);
    p.word(", ");
    p.successor(d.successors[1].block, &d.successors[1].args);
    Some(())
}
