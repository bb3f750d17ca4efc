//! The arith dialect's extended-precision operations (a second table of the dialect, beside
//! `arith.rs`): `addui_extended` gives the sum and whether it carried, `mulsi_extended` and
//! `mului_extended` the low and the high half of the double-width product.

use super::constraints::{operand_types, result_types};
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{OpDef, Syntax};
use crate::parser::forms::{parse_opt_attr_dict, with_attrs};
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::Type;

pub const OPS: &[OpDef] = &[
    OpDef::new("arith.addui_extended", "the sum and its unsigned carry")
        .operands(2)
        .results(2)
        .pure()
        .verify(verify_add)
        .syntax(Syntax::custom(parse_add, Some(print_extended))),
    OpDef::new("arith.mulsi_extended", "the low and high halves of the signed double-width product")
        .operands(2)
        .results(2)
        .pure()
        .verify(verify_mul)
        .syntax(Syntax::custom(parse_mul, Some(print_extended))),
    OpDef::new("arith.mului_extended", "the low and high halves of the unsigned double-width product")
        .operands(2)
        .results(2)
        .pure()
        .verify(verify_mul)
        .syntax(Syntax::custom(parse_mul, Some(print_extended))),
];

/// The operands and the first result: one integer type (or a vector of one).
fn check_operands(m: &Module, op: OpId) -> Result<&Type, String> {
    let (ins, outs) = (operand_types(m, op), result_types(m, op));
    if !ins[0].element_or_self().is_integer() || ins[1] != ins[0] || outs[0] != ins[0] {
        return Err(format!("takes and gives one integer type, not {}, {} -> {}", ins[0], ins[1], outs[0]));
    }
    Ok(ins[0])
}

fn verify_add(m: &Module, op: OpId) -> Result<(), String> {
    let t = check_operands(m, op)?;
    let carry = result_types(m, op)[1];
    if *carry != t.with_element(Type::i1()) {
        return Err(format!("the carry must be {}, not {carry}", t.with_element(Type::i1())));
    }
    Ok(())
}

fn verify_mul(m: &Module, op: OpId) -> Result<(), String> {
    let t = check_operands(m, op)?;
    if result_types(m, op)[1] != t {
        return Err(format!("the high half must be {t}"));
    }
    Ok(())
}

/// `%a, %b {attrs} : T` with the results' types from T (and the carry's for addui_extended).
fn parse_operands(p: &mut Parser, spec: OpSpec, carry_type: bool) -> PResult<OpSpec> {
    let a = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let b = p.parse_operand_ref()?;
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let t = p.parse_type()?;
    let second = if carry_type {
        p.expect_punct(",")?;
        p.parse_type()?
    } else {
        t.clone()
    };
    let spec = spec.operands([p.resolve(&a, &t)?, p.resolve(&b, &t)?]).results([t, second]);
    Ok(with_attrs(spec, attrs))
}

/// `arith.addui_extended %a, %b : i32, i1`
fn parse_add(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    parse_operands(p, spec, true)
}

/// `arith.mulsi_extended %a, %b : i32`
fn parse_mul(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    parse_operands(p, spec, false)
}

fn print_extended(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    p.values(&d.operands);
    p.attr_dict_except(op, &[]);
    p.word(" : ");
    p.ty(m.ty(d.results[0]));
    if d.name == "arith.addui_extended" {
        p.word(", ");
        p.ty(m.ty(d.results[1]));
    }
    Some(())
}
