//! Custom assembly forms shared by many operations (MLIR's declarative assembly formats), each a
//! parse/print pair that op tables name: `%a, %b : T` for binary operations, `%a : T to U` for
//! casts, `%a, %b : T, U` for returns, and the helpers custom forms are built from.

use super::lexer::Tok;
use super::{OperandRef, PResult, Parser};
use crate::attributes::Attribute;
use crate::diagnostics::{Diagnostic, Span};
use crate::entity::OpId;
use crate::module::OpSpec;
use crate::op_def::Syntax;
use crate::printer::OpPrinter;
use crate::types::{FunctionType, Type};

/// `%a, %b [flags] [{attrs}] : T` -> `T`
pub const BINARY: Syntax = Syntax::custom(parse_binary, Some(print_same_type));
/// `%a [flags] [{attrs}] : T` -> `T`
pub const UNARY: Syntax = Syntax::custom(parse_unary, Some(print_same_type));
/// `%a, %b, %c : T` -> `T`
pub const TERNARY: Syntax = Syntax::custom(parse_ternary, Some(print_same_type));
/// `%a [{attrs}] : T to U`
pub const CAST: Syntax = Syntax::custom(parse_cast, Some(print_cast));
/// `[%a, %b : T, U]`
pub const RETURN: Syntax = Syntax::custom(parse_return, Some(print_return));

/// Flags upstream writes between operands and the type; kept as attributes.
const FLAG_ATTRS: &[&str] = &["overflowFlags", "fastmath"];

fn parse_n_same(p: &mut Parser, spec: OpSpec, n: usize) -> PResult<OpSpec> {
    let refs = p.parse_operand_refs()?;
    expect_count(&refs, n, &spec.name, spec.span)?;
    let attrs = parse_flags_and_attrs(p)?;
    p.expect_punct(":")?;
    let ty = p.parse_type()?;
    let ops = p.resolve_same(&refs, &ty)?;
    Ok(with_attrs(spec.operands(ops).results([ty]), attrs))
}

fn parse_binary(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    parse_n_same(p, spec, 2)
}

fn parse_unary(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    parse_n_same(p, spec, 1)
}

fn parse_ternary(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    parse_n_same(p, spec, 3)
}

fn print_same_type(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    if p.has_other_attrs(op, &[]) {
        return None;
    }
    let d = &m.ops[op];
    let (operands, ty) = (d.operands.clone(), m.ty(*d.results.first()?).clone());
    if operands.iter().any(|&v| *m.ty(v) != ty) {
        return None;
    }
    p.values(&operands);
    p.word(" : ");
    p.ty(&ty);
    Some(())
}

fn parse_cast(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let r = p.parse_operand_ref()?;
    let attrs = parse_flags_and_attrs(p)?;
    p.expect_punct(":")?;
    let from = p.parse_type()?;
    p.expect_ident_word("to")?;
    let to = p.parse_type()?;
    let v = p.resolve(&r, &from)?;
    Ok(with_attrs(spec.operands([v]).results([to]), attrs))
}

fn print_cast(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    if p.has_other_attrs(op, &[]) || d.operands.len() != 1 || d.results.len() != 1 {
        return None;
    }
    let (v, from, to) = (d.operands[0], m.ty(d.operands[0]).clone(), m.ty(d.results[0]).clone());
    p.value(v);
    p.word(" : ");
    p.ty(&from);
    p.word(" to ");
    p.ty(&to);
    Some(())
}

fn parse_return(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let refs = p.parse_operand_refs()?;
    let mut spec = spec;
    if !refs.is_empty() {
        p.expect_punct(":")?;
        let types = p.parse_type_list_no_parens()?;
        expect_types(&refs, &types, spec.span)?;
        spec = spec.operands(p.resolve_all(&refs, &types)?);
    }
    Ok(spec)
}

fn print_return(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    if p.has_other_attrs(op, &[]) {
        return None;
    }
    let operands = m.ops[op].operands.clone();
    if !operands.is_empty() {
        let types: Vec<Type> = operands.iter().map(|&v| m.ty(v).clone()).collect();
        p.values(&operands);
        p.word(" : ");
        p.types(&types.iter().collect::<Vec<_>>());
    }
    Some(())
}

// ---- helpers for custom forms --------------------------------------------------------------

pub(crate) fn with_attrs(mut spec: OpSpec, attrs: Vec<(String, Attribute)>) -> OpSpec {
    spec.attrs.extend(attrs);
    spec
}

pub(crate) fn expect_count(refs: &[OperandRef], n: usize, name: &str, span: Span) -> PResult<()> {
    if refs.len() != n {
        return Err(Diagnostic::new(span, format!("'{name}' takes {n} operand(s), found {}", refs.len())));
    }
    Ok(())
}

pub(crate) fn expect_types(refs: &[OperandRef], types: &[Type], span: Span) -> PResult<()> {
    if refs.len() != types.len() {
        return Err(Diagnostic::new(span, format!("{} operand(s) but {} type(s)", refs.len(), types.len())));
    }
    Ok(())
}

pub(crate) fn parse_fn_type(p: &mut Parser) -> PResult<FunctionType> {
    let span = p.peek_span();
    match p.parse_type()? {
        Type::Function(ft) => Ok(ft),
        t => Err(Diagnostic::new(span, format!("expected a function type, found {t}"))),
    }
}

/// Optional `overflow<nsw>`, `fastmath<fast>` and an attribute dictionary.
pub(crate) fn parse_flags_and_attrs(p: &mut Parser) -> PResult<Vec<(String, Attribute)>> {
    let mut attrs = Vec::new();
    loop {
        if p.is_ident("overflow") || p.is_ident("fastmath") {
            let (w, _) = p.next()?;
            let body = p.skip_balanced()?;
            if let Tok::Ident(w) = w {
                let key = if w == "overflow" { FLAG_ATTRS[0] } else { FLAG_ATTRS[1] };
                attrs.push((key.to_string(), Attribute::Opaque(format!("#arith.{w}{body}"))));
            }
        } else if p.is_punct("{") {
            attrs.extend(p.parse_attr_dict()?);
        } else {
            return Ok(attrs);
        }
    }
}

/// An optional attribute dictionary.
pub(crate) fn parse_opt_attr_dict(p: &mut Parser) -> PResult<Vec<(String, Attribute)>> {
    if p.is_punct("{") {
        p.parse_attr_dict()
    } else {
        Ok(Vec::new())
    }
}

/// `[%a, %b]`
pub(crate) fn parse_index_list(p: &mut Parser) -> PResult<Vec<OperandRef>> {
    p.expect_punct("[")?;
    let refs = p.parse_operand_refs()?;
    p.expect_punct("]")?;
    Ok(refs)
}

/// The marker of a dynamic entry in a mixed static/dynamic list (upstream's `ShapedType::kDynamic`).
pub const DYNAMIC: i128 = i64::MIN as i128;

/// `[%a, 4, %b]`: static entries are integers, dynamic ones [`DYNAMIC`] with an operand.
/// A list of integers and SSA values: the integers (`DYNAMIC` where a value stands) and the values.
pub(crate) type MixedList = (Vec<i128>, Vec<OperandRef>);

pub(crate) fn parse_mixed_list(p: &mut Parser) -> PResult<MixedList> {
    p.expect_punct("[")?;
    let mut statics = Vec::new();
    let mut dyns = Vec::new();
    if !p.is_punct("]") {
        loop {
            if let (Tok::Percent(_), _) = p.peek()? {
                dyns.push(p.parse_operand_ref()?);
                statics.push(DYNAMIC);
            } else {
                statics.push(p.parse_int("an integer or an SSA value")?.0);
            }
            if !p.eat_punct(",")? {
                break;
            }
        }
    }
    p.expect_punct("]")?;
    Ok((statics, dyns))
}

/// `(%d0, %d1)[%s0]`, both parts optional.
pub(crate) fn parse_dims_and_symbols(p: &mut Parser) -> PResult<(Vec<OperandRef>, Vec<OperandRef>)> {
    let mut dims = Vec::new();
    let mut syms = Vec::new();
    if p.eat_punct("(")? {
        dims = p.parse_operand_refs()?;
        p.expect_punct(")")?;
    }
    if p.eat_punct("[")? {
        syms = p.parse_operand_refs()?;
        p.expect_punct("]")?;
    }
    Ok((dims, syms))
}

/// `array<i32: a, b, ...>`, as `operandSegmentSizes` is written.
pub fn segment_sizes(sizes: &[usize]) -> Attribute {
    Attribute::DenseArray { elem: Type::i32(), values: sizes.iter().map(|&s| s as i128).collect() }
}

/// `array<i64: ...>`
pub fn i64_array(values: &[i64]) -> Attribute {
    Attribute::DenseArray { elem: Type::i64(), values: values.iter().map(|&v| v as i128).collect() }
}

/// Loop and conditional bodies may leave out an operand-less terminator; adds it back.
pub(crate) fn ensure_terminator(p: &mut Parser, region: crate::entity::RegionId, terminator: &str, span: Span) {
    let blocks = p.m.regions[region].blocks.clone();
    let block = match blocks.last() {
        Some(&b) => b,
        None => p.m.append_block(region, span),
    };
    let needs = match p.m.terminator(block) {
        Some(op) => !crate::op_def::is_terminator(&p.m.ops[op].name),
        None => true,
    };
    if needs {
        p.m.build(block, OpSpec::new(terminator, Span::UNKNOWN));
    }
}
