//! `arith`: integer and floating-point arithmetic, comparisons, casts and constants.

use super::constraints as c;
use crate::attributes::Attribute;
use crate::diagnostics::Diagnostic;
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{required, AttrKind, OpDef, Syntax, VerifyFn};
use crate::parser::forms::{expect_count, parse_flags_and_attrs, with_attrs, BINARY, CAST, UNARY};
use crate::parser::lexer::Tok;
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::Type;

/// `arith.cmpi`/`llvm.icmp` predicates, indexed by their upstream integer encoding.
pub const CMPI_PREDICATES: &[&str] = &["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"];

/// `arith.cmpf`/`llvm.fcmp` predicates, indexed by their upstream integer encoding.
pub const CMPF_PREDICATES: &[&str] = &[
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true",
];

const fn binary(name: &'static str, summary: &'static str, rule: VerifyFn) -> OpDef {
    OpDef::new(name, summary).operands(2).results(1).pure().verify(rule).syntax(BINARY)
}

const fn int_binary(name: &'static str, summary: &'static str) -> OpDef {
    binary(name, summary, c::same_int_like)
}

const fn float_binary(name: &'static str, summary: &'static str) -> OpDef {
    binary(name, summary, c::same_float_like)
}

const fn cast(name: &'static str, summary: &'static str, rule: VerifyFn) -> OpDef {
    OpDef::new(name, summary).operands(1).results(1).pure().verify(rule).syntax(CAST)
}

const PREDICATE: &[crate::op_def::AttrDef] = &[required("predicate", AttrKind::Integer)];

pub const OPS: &[OpDef] = &[
    int_binary("arith.addi", "integer addition (wrapping)"),
    int_binary("arith.subi", "integer subtraction (wrapping)"),
    int_binary("arith.muli", "integer multiplication (wrapping)"),
    int_binary("arith.divsi", "signed division rounding towards zero"),
    int_binary("arith.divui", "unsigned division"),
    int_binary("arith.remsi", "signed remainder (the dividend's sign)"),
    int_binary("arith.remui", "unsigned remainder"),
    int_binary("arith.ceildivsi", "signed division rounding up"),
    int_binary("arith.floordivsi", "signed division rounding down"),
    int_binary("arith.ceildivui", "unsigned division rounding up"),
    int_binary("arith.andi", "bitwise and"),
    int_binary("arith.ori", "bitwise or"),
    int_binary("arith.xori", "bitwise exclusive or"),
    int_binary("arith.shli", "shift left"),
    int_binary("arith.shrsi", "arithmetic shift right"),
    int_binary("arith.shrui", "logical shift right"),
    int_binary("arith.maxsi", "signed maximum"),
    int_binary("arith.minsi", "signed minimum"),
    int_binary("arith.maxui", "unsigned maximum"),
    int_binary("arith.minui", "unsigned minimum"),
    float_binary("arith.addf", "floating-point addition"),
    float_binary("arith.subf", "floating-point subtraction"),
    float_binary("arith.mulf", "floating-point multiplication"),
    float_binary("arith.divf", "floating-point division"),
    float_binary("arith.remf", "floating-point remainder (C's fmod)"),
    float_binary("arith.maximumf", "maximum, NaN if either is NaN"),
    float_binary("arith.minimumf", "minimum, NaN if either is NaN"),
    float_binary("arith.maxnumf", "maximum, the other operand if one is NaN"),
    float_binary("arith.minnumf", "minimum, the other operand if one is NaN"),
    OpDef::new("arith.negf", "floating-point negation")
        .operands(1)
        .results(1)
        .pure()
        .verify(c::same_float_like)
        .syntax(UNARY),
    OpDef::new("arith.cmpi", "integer comparison")
        .operands(2)
        .results(1)
        .attrs(PREDICATE)
        .pure()
        .verify(verify_cmpi)
        .syntax(COMPARISON),
    OpDef::new("arith.cmpf", "floating-point comparison")
        .operands(2)
        .results(1)
        .attrs(PREDICATE)
        .pure()
        .verify(verify_cmpf)
        .syntax(COMPARISON),
    OpDef::new("arith.select", "a choice between two values")
        .operands(3)
        .results(1)
        .pure()
        .verify(c::select)
        .syntax(SELECT),
    OpDef::new("arith.constant", "a constant scalar or vector")
        .results(1)
        .attrs(&[required("value", AttrKind::TypedValue)])
        .pure()
        .verify(c::constant)
        .syntax(CONSTANT),
    cast("arith.extsi", "sign extension", c::int_extension),
    cast("arith.extui", "zero extension", c::int_extension),
    cast("arith.trunci", "integer truncation", c::int_truncation),
    cast("arith.extf", "float extension", c::float_extension),
    cast("arith.truncf", "float truncation (round to nearest even)", c::float_truncation),
    cast("arith.sitofp", "signed integer to float", c::int_to_float),
    cast("arith.uitofp", "unsigned integer to float", c::int_to_float),
    cast("arith.fptosi", "float to signed integer (towards zero)", c::float_to_int),
    cast("arith.fptoui", "float to unsigned integer (towards zero)", c::float_to_int),
    cast("arith.index_cast", "between index and integers (sign-extending)", c::index_cast),
    cast("arith.index_castui", "between index and integers (zero-extending)", c::index_cast),
    cast("arith.bitcast", "the same bits as another type", c::same_bit_width),
];

fn verify_cmpi(m: &Module, op: OpId) -> Result<(), String> {
    c::comparison(m, op, CMPI_PREDICATES, false)
}

fn verify_cmpf(m: &Module, op: OpId) -> Result<(), String> {
    c::comparison(m, op, CMPF_PREDICATES, true)
}

/// `arith.cmpi slt, %a, %b : i32`, the original `cmpi "slt", %a, %b : i32`, and `llvm.icmp "slt"
/// %a, %b : i32`.
pub const COMPARISON: Syntax = Syntax::custom(parse_comparison, Some(print_comparison));

fn predicates_of(name: &str) -> &'static [&'static str] {
    if name.ends_with("cmpf") || name == "llvm.fcmp" {
        CMPF_PREDICATES
    } else {
        CMPI_PREDICATES
    }
}

fn parse_comparison(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let table = predicates_of(&spec.name);
    let (tok, pspan) = p.next()?;
    let pred_name = match tok {
        Tok::Ident(s) | Tok::Str(s) => s,
        _ => return Err(Diagnostic::new(pspan, format!("expected a comparison predicate, found {}", tok.describe()))),
    };
    let kind = if table.len() == CMPF_PREDICATES.len() { "cmpf" } else { "cmpi" };
    let pred = table.iter().position(|p| *p == pred_name).ok_or_else(|| {
        Diagnostic::new(
            pspan,
            format!("unknown {kind} predicate '{pred_name}' (expected one of: {})", table.join(", ")),
        )
    })?;
    p.eat_punct(",")?;
    let refs = p.parse_operand_refs()?;
    expect_count(&refs, 2, &spec.name, spec.span)?;
    let attrs = parse_flags_and_attrs(p)?;
    p.expect_punct(":")?;
    let ty = p.parse_type()?;
    let ops = p.resolve_same(&refs, &ty)?;
    let result = ty.with_element(Type::i1());
    Ok(with_attrs(spec.operands(ops).results([result]).attr("predicate", Attribute::i64(pred as i64)), attrs))
}

fn print_comparison(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    if p.has_other_attrs(op, &["predicate"]) {
        return None;
    }
    let pred = predicates_of(&d.name).get(usize::try_from(m.attr(op, "predicate")?.as_int()?).ok()?)?;
    let ty = m.ty(d.operands[0]).clone();
    // llvm.icmp quotes the predicate and has no comma after it.
    p.word(&if d.name.starts_with("llvm.") { format!("\"{pred}\" ") } else { format!("{pred}, ") });
    p.values(&d.operands);
    p.word(" : ");
    p.ty(&ty);
    Some(())
}

/// `arith.select %c, %a, %b : T` or `: i1, T` / `: vector<4xi1>, vector<4xT>`.
pub const SELECT: Syntax = Syntax::custom(parse_select, Some(print_select));

fn print_select(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    if p.has_other_attrs(op, &[]) {
        return None;
    }
    let (c, t) = (m.ty(d.operands[0]).clone(), m.ty(d.results[0]).clone());
    p.values(&d.operands);
    p.word(" : ");
    // One type means an i1 condition upstream but a same-shaped one in the original spelling,
    // so a vector result always spells both.
    let scalar_choice = c == Type::i1() && !matches!(t, Type::Vector { .. } | Type::Tensor { .. });
    if d.name.starts_with("llvm.") || !scalar_choice {
        p.ty(&c);
        p.word(", ");
    }
    p.ty(&t);
    Some(())
}

fn parse_select(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let refs = p.parse_operand_refs()?;
    expect_count(&refs, 3, &spec.name, spec.span)?;
    let attrs = parse_flags_and_attrs(p)?;
    p.expect_punct(":")?;
    let first = p.parse_type()?;
    let (cond_ty, ty) =
        if p.eat_punct(",")? { (first, p.parse_type()?) } else { (first.with_element(Type::i1()), first) };
    let c = p.resolve(&refs[0], &cond_ty)?;
    let ops = p.resolve_same(&refs[1..], &ty)?;
    Ok(with_attrs(spec.operands([c]).operands(ops).results([ty]), attrs))
}

/// `arith.constant 42 : i32`, `llvm.mlir.constant(42 : i32) : i32`, and the original
/// `constant @f : (i32) -> i32`, which names a function (it becomes `func.constant`).
pub const CONSTANT: Syntax = Syntax::custom(parse_constant, Some(print_constant));

pub(crate) fn parse_constant(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let is_llvm = spec.name == "llvm.mlir.constant";
    if is_llvm {
        p.expect_punct("(")?;
    }
    let span = p.peek_span();
    if let (Tok::At(sym), _) = p.peek()? {
        p.next()?;
        p.expect_punct(":")?;
        let ty = p.parse_type()?;
        return Ok(OpSpec::new("func.constant", spec.span).results([ty]).attr("value", Attribute::symbol(sym)));
    }
    let value = p.parse_attribute()?;
    if is_llvm {
        p.expect_punct(")")?;
    }
    let ty = match &value {
        Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } | Attribute::Dense { ty, .. } => ty.clone(),
        Attribute::Bool(_) => Type::i1(),
        _ => return Err(Diagnostic::new(span, format!("unsupported constant value {value}"))),
    };
    let ty = if p.eat_punct(":")? { p.parse_type()? } else { ty };
    let value = match value {
        Attribute::Bool(b) => Attribute::Integer { value: b as i128, ty: Type::i1() },
        v => v,
    };
    Ok(spec.results([ty]).attr("value", value))
}

fn print_constant(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    if p.has_other_attrs(op, &["value"]) {
        return None;
    }
    let ty = m.ty(m.ops[op].results[0]).clone();
    if m.ops[op].name == "llvm.mlir.constant" {
        // `llvm.mlir.constant(42 : i32) : i32`
        let value = match m.attr(op, "value")? {
            Attribute::Integer { value, ty: vt } => format!("{value} : {vt}"),
            Attribute::Float { value, ty: vt } => format!("{} : {vt}", crate::attributes::format_float(*value, vt)),
            a @ Attribute::Dense { .. } => a.to_string(),
            _ => return None,
        };
        p.word(&format!("({value}) : {ty}"));
        return Some(());
    }
    match m.attr(op, "value")? {
        Attribute::Integer { value, ty: vt } if *vt == ty && ty == Type::i1() => {
            p.word(if *value != 0 { "true" } else { "false" })
        }
        Attribute::Integer { value, ty: vt } if *vt == ty => p.word(&format!("{value} : {ty}")),
        Attribute::Float { value, ty: vt } if *vt == ty => {
            p.word(&format!("{} : {ty}", crate::attributes::format_float(*value, &ty)))
        }
        a @ Attribute::Dense { ty: vt, .. } if *vt == ty => p.attr(a),
        _ => return None,
    }
    Some(())
}
