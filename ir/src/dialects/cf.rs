//! `cf`: unstructured control flow between the blocks of a region.

use crate::attributes::Attribute;
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{optional, AttrKind, Count, OpDef, Syntax, Traits};
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
    OpDef::new("cf.switch", "jumps to the block of the case equal to an integer, else to the default")
        .operands(1)
        .successor_count(Count::AtLeast(1))
        .attrs(&[optional("case_values", AttrKind::IntList)])
        .traits(Traits::TERMINATOR.union(Traits::PURE))
        .verify(verify_switch)
        .syntax(SWITCH),
];

/// `cf.switch` and `llvm.switch`: an integer flag, the default first among the successors, then
/// one per case value, the values distinct.
pub(crate) fn verify_switch(m: &Module, op: OpId) -> Result<(), String> {
    let t = m.ty(m.ops[op].operands[0]);
    if !t.is_integer() {
        return Err(format!("the flag must be an integer, not {t}"));
    }
    let values = case_values(m, op);
    if values.len() + 1 != m.ops[op].successors.len() {
        return Err(format!("{} case value(s) for {} case block(s)", values.len(), m.ops[op].successors.len() - 1));
    }
    for (i, v) in values.iter().enumerate() {
        if values[..i].contains(v) {
            return Err(format!("case value {v} appears twice"));
        }
    }
    Ok(())
}

/// A switch's case values (none without the attribute).
pub fn case_values(m: &Module, op: OpId) -> Vec<i128> {
    m.attr(op, "case_values").and_then(Attribute::as_int_list).unwrap_or_default()
}

/// `cf.switch %flag : i32, [default: ^bb1(%a : i32), 42: ^bb2]`, and `llvm.switch %flag : i32,
/// ^bb1(%a : i32) [42: ^bb2]` (the default outside the brackets).
pub const SWITCH: Syntax = Syntax::custom(parse_switch, Some(print_switch));

fn parse_switch(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let llvm = spec.name == "llvm.switch";
    let flag = p.parse_operand_ref()?;
    p.expect_punct(":")?;
    let t = p.parse_type()?;
    p.expect_punct(",")?;
    let mut spec = spec.operands([p.resolve(&flag, &t)?]);
    if llvm {
        let (label, args) = p.parse_successor()?;
        let s = p.finish_successor(label, args)?;
        spec = spec.successor(s.block, s.args);
    }
    p.expect_punct("[")?;
    if !llvm {
        p.expect_ident_word("default")?;
        p.expect_punct(":")?;
        let (label, args) = p.parse_successor()?;
        let s = p.finish_successor(label, args)?;
        spec = spec.successor(s.block, s.args);
    }
    let mut values = Vec::new();
    while !p.is_punct("]") {
        // Cases are separated by commas, and cf.switch's first follows its default.
        if (!values.is_empty() || !llvm) && !p.eat_punct(",")? {
            break;
        }
        values.push(p.parse_int("a case value")?.0);
        p.expect_punct(":")?;
        let (label, args) = p.parse_successor()?;
        let s = p.finish_successor(label, args)?;
        spec = spec.successor(s.block, s.args);
    }
    p.expect_punct("]")?;
    let elem = if t.is_integer() { t } else { Type::i64() };
    Ok(spec.attr("case_values", Attribute::DenseArray { elem, values }))
}

fn print_switch(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    let values = case_values(m, op);
    if p.has_other_attrs(op, &["case_values"]) || values.len() + 1 != d.successors.len() {
        return None;
    }
    let llvm = d.name == "llvm.switch";
    p.value(d.operands[0]);
    p.word(" : ");
    p.ty(m.ty(d.operands[0]));
    p.word(", ");
    let default = &d.successors[0];
    if llvm {
        p.successor(default.block, &default.args);
        p.word(" [");
    } else {
        p.word("[default: ");
        p.successor(default.block, &default.args);
    }
    for (i, (v, s)) in values.iter().zip(&d.successors[1..]).enumerate() {
        if i > 0 || !llvm {
            p.word(", ");
        }
        p.word(&format!("{v}: "));
        p.successor(s.block, &s.args);
    }
    p.word("]");
    Some(())
}

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
