//! `index`: arithmetic on `index` values (the target's pointer-width integer), as upstream's
//! index dialect. Each operation means what the `arith` operation of the same kind means on
//! index operands; comparisons share arith's predicate encoding.

use super::arith::CMPI_PREDICATES;
use super::constraints::{operand_types, result_types};
use crate::attributes::Attribute;
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{required, AttrKind, OpDef, Syntax};
use crate::parser::lexer::Tok;
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::Type;

const fn binary(name: &'static str, summary: &'static str) -> OpDef {
    OpDef::new(name, summary).operands(2).results(1).pure().verify(all_index).syntax(BINARY)
}

/// `%a, %b`: both operands and the result are index.
const BINARY: Syntax = Syntax::custom(parse_binary, Some(print_binary));

pub const OPS: &[OpDef] = &[
    binary("index.add", "addition (wrapping)"),
    binary("index.sub", "subtraction (wrapping)"),
    binary("index.mul", "multiplication (wrapping)"),
    binary("index.divs", "signed division rounding towards zero"),
    binary("index.divu", "unsigned division"),
    binary("index.ceildivs", "signed division rounding up"),
    binary("index.ceildivu", "unsigned division rounding up"),
    binary("index.floordivs", "signed division rounding down"),
    binary("index.rems", "signed remainder"),
    binary("index.remu", "unsigned remainder"),
    binary("index.maxs", "signed maximum"),
    binary("index.maxu", "unsigned maximum"),
    binary("index.mins", "signed minimum"),
    binary("index.minu", "unsigned minimum"),
    binary("index.shl", "shift left"),
    binary("index.shrs", "arithmetic shift right"),
    binary("index.shru", "logical shift right"),
    binary("index.and", "bitwise and"),
    binary("index.or", "bitwise or"),
    binary("index.xor", "bitwise exclusive or"),
    OpDef::new("index.cmp", "compares two index values (arith.cmpi's predicates)")
        .operands(2)
        .results(1)
        .attrs(&[required("predicate", AttrKind::Integer)])
        .pure()
        .verify(verify_cmp)
        .syntax(Syntax::custom(parse_cmp, Some(print_cmp))),
    OpDef::new("index.constant", "an index constant")
        .results(1)
        .attrs(&[required("value", AttrKind::Integer)])
        .pure()
        .syntax(Syntax::custom(parse_constant, Some(print_constant))),
    OpDef::new("index.bool.constant", "an i1 constant")
        .results(1)
        .attrs(&[required("value", AttrKind::Any)])
        .pure()
        .syntax(Syntax::custom(parse_bool_constant, Some(print_bool_constant))),
    OpDef::new("index.casts", "between index and an integer, sign-extending or truncating")
        .operands(1)
        .results(1)
        .pure()
        .verify(verify_cast)
        .syntax(crate::parser::forms::CAST),
    OpDef::new("index.castu", "between index and an integer, zero-extending or truncating")
        .operands(1)
        .results(1)
        .pure()
        .verify(verify_cast)
        .syntax(crate::parser::forms::CAST),
    OpDef::new("index.sizeof", "the width of index in bits")
        .results(1)
        .pure()
        .syntax(Syntax::custom(parse_sizeof, Some(print_sizeof))),
];

fn all_index(m: &Module, op: OpId) -> Result<(), String> {
    let types = operand_types(m, op).into_iter().chain(result_types(m, op));
    match types.into_iter().find(|t| !t.is_index()) {
        Some(t) => Err(format!("works on index values, not {t}")),
        None => Ok(()),
    }
}

fn verify_cmp(m: &Module, op: OpId) -> Result<(), String> {
    if operand_types(m, op).iter().any(|t| !t.is_index()) || *result_types(m, op)[0] != Type::i1() {
        return Err("compares two index values into an i1".into());
    }
    Ok(())
}

/// One side index, the other an integer.
fn verify_cast(m: &Module, op: OpId) -> Result<(), String> {
    let (from, to) = (operand_types(m, op)[0], result_types(m, op)[0]);
    if from.is_index() == to.is_index() || !(from.is_integer() || to.is_integer()) {
        return Err(format!("casts between index and an integer, not {from} to {to}"));
    }
    Ok(())
}

/// `%a, %b`, both index.
fn index_pair(p: &mut Parser) -> PResult<[crate::ValueId; 2]> {
    let a = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let b = p.parse_operand_ref()?;
    Ok([p.resolve(&a, &Type::Index)?, p.resolve(&b, &Type::Index)?])
}

fn parse_binary(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    Ok(spec.operands(index_pair(p)?).results([Type::Index]))
}

fn print_binary(p: &mut OpPrinter, op: OpId) -> Option<()> {
    if p.has_other_attrs(op, &[]) {
        return None;
    }
    let ops = p.module().ops[op].operands.clone();
    p.values(&ops);
    Some(())
}

/// `index.cmp slt(%a, %b)`
fn parse_cmp(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let (word, span) = match p.next()? {
        (Tok::Ident(w), s) => (w, s),
        (_, s) => return Err(crate::Diagnostic::new(s, "expected a comparison predicate (eq, ne, slt, ...)")),
    };
    let Some(pred) = CMPI_PREDICATES.iter().position(|&w| w == word) else {
        return Err(crate::Diagnostic::new(span, format!("unknown predicate '{word}'")));
    };
    p.expect_punct("(")?;
    let ops = index_pair(p)?;
    p.expect_punct(")")?;
    Ok(spec.operands(ops).results([Type::i1()]).attr("predicate", Attribute::i64(pred as i64)))
}

fn print_cmp(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let pred = CMPI_PREDICATES.get(usize::try_from(m.attr(op, "predicate")?.as_int()?).ok()?)?;
    if p.has_other_attrs(op, &["predicate"]) {
        return None;
    }
    let ops = m.ops[op].operands.clone();
    p.word(&format!("{pred}("));
    p.values(&ops);
    p.word(")");
    Some(())
}

/// `index.constant 42`
fn parse_constant(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let (v, _) = p.parse_int("an integer")?;
    Ok(spec.results([Type::Index]).attr("value", Attribute::int(v, Type::Index)))
}

fn print_constant(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let v = p.module().attr(op, "value")?.as_int()?;
    if p.has_other_attrs(op, &["value"]) {
        return None;
    }
    p.word(&v.to_string());
    Some(())
}

/// `index.sizeof`
fn parse_sizeof(_: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    Ok(spec.results([Type::Index]))
}

fn print_sizeof(p: &mut OpPrinter, op: OpId) -> Option<()> {
    (!p.has_other_attrs(op, &[])).then_some(())
}

/// `index.bool.constant true`
fn parse_bool_constant(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let v = if p.eat_ident("true")? {
        true
    } else {
        p.expect_ident_word("false")?;
        false
    };
    Ok(spec.results([Type::i1()]).attr("value", Attribute::Bool(v)))
}

fn print_bool_constant(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let Some(Attribute::Bool(v)) = p.module().attr(op, "value") else { return None };
    let v = *v;
    if p.has_other_attrs(op, &["value"]) {
        return None;
    }
    p.word(if v { "true" } else { "false" });
    Some(())
}
