//! The llvm dialect's atomic operations (a second table of the dialect, as upstream keeps them in
//! their own section of LLVMOps.td): `llvm.atomicrmw`, `llvm.cmpxchg`, `llvm.fence`, and the
//! orderings that `llvm.load` and `llvm.store` take (`atomic acquire`). Orderings and operations
//! are stored as upstream's properties number them (`ordering = 6 : i64` is acq_rel, `bin_op = 11`
//! is fadd), which are LLVM's own enumerations, so the generic form mlir-opt-22 prints reads as is.

use super::constraints::{operand_types, result_types};
use crate::attributes::Attribute;
use crate::diagnostics::Diagnostic;
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{optional, required, AttrKind, OpDef, Syntax, Traits};
use crate::parser::forms::{parse_opt_attr_dict, with_attrs};
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::Type;

/// LLVM's atomic orderings by number (3, consume, is not used).
pub const ORDERINGS: &[(i64, &str)] = &[
    (0, "not_atomic"),
    (1, "unordered"),
    (2, "monotonic"),
    (4, "acquire"),
    (5, "release"),
    (6, "acq_rel"),
    (7, "seq_cst"),
];

/// `llvm.atomicrmw`'s operations by number.
pub const BIN_OPS: &[&str] = &[
    "xchg",
    "add",
    "sub",
    "_and",
    "nand",
    "_or",
    "_xor",
    "max",
    "min",
    "umax",
    "umin",
    "fadd",
    "fsub",
    "fmax",
    "fmin",
    "uinc_wrap",
    "udec_wrap",
    "usub_cond",
    "usub_sat",
    "fmaximum",
    "fminimum",
];

/// The atomicrmw operations on floats (the rest but xchg take integers).
const FLOAT_BIN_OPS: &[i64] = &[11, 12, 13, 14, 19, 20];

const MEMORY: Traits = Traits::READS.union(Traits::WRITES);

pub const OPS: &[OpDef] = &[
    OpDef::new("llvm.atomicrmw", "reads, combines and writes memory in one atomic step; gives the old value")
        .operands(2)
        .results(1)
        .attrs(&[
            required("bin_op", AttrKind::Integer),
            required("ordering", AttrKind::Integer),
            optional("alignment", AttrKind::Integer),
            optional("volatile_", AttrKind::Unit),
            optional("syncscope", AttrKind::String),
        ])
        .traits(MEMORY)
        .verify(verify_atomicrmw)
        .syntax(Syntax::custom(parse_atomicrmw, Some(print_atomicrmw)))
        .translated(),
    OpDef::new("llvm.cmpxchg", "stores a new value where memory holds the expected one, atomically")
        .operands(3)
        .results(1)
        .attrs(&[
            required("success_ordering", AttrKind::Integer),
            required("failure_ordering", AttrKind::Integer),
            optional("alignment", AttrKind::Integer),
            optional("weak", AttrKind::Unit),
            optional("volatile_", AttrKind::Unit),
            optional("syncscope", AttrKind::String),
        ])
        .traits(MEMORY)
        .verify(verify_cmpxchg)
        .syntax(Syntax::custom(parse_cmpxchg, Some(print_cmpxchg)))
        .translated(),
    OpDef::new("llvm.fence", "orders the memory accesses before it against those after it")
        .attrs(&[required("ordering", AttrKind::Integer), optional("syncscope", AttrKind::String)])
        .traits(MEMORY)
        .verify(verify_fence)
        .syntax(Syntax::custom(parse_fence, Some(print_fence)))
        .translated(),
];

fn ordering_name(n: i128) -> Option<&'static str> {
    ORDERINGS.iter().find(|(k, _)| i128::from(*k) == n).map(|(_, s)| *s)
}

/// The ordering attribute `name`, one of `allowed`.
fn check_ordering(m: &Module, op: OpId, name: &str, allowed: &[i64]) -> Result<(), String> {
    let Some(n) = m.attr(op, name).and_then(Attribute::as_int) else { return Ok(()) };
    if allowed.iter().any(|&a| i128::from(a) == n) {
        return Ok(());
    }
    let shown: Vec<&str> = allowed.iter().filter_map(|&a| ordering_name(a.into())).collect();
    Err(format!("{name} {} is not one of {}", ordering_name(n).unwrap_or("(unknown)"), shown.join(", ")))
}

fn is_ptr(t: &Type) -> bool {
    matches!(t, Type::LlvmPtr { .. })
}

/// A value an atomic access can move: an integer, a float or a pointer.
fn is_atomic_value(t: &Type) -> bool {
    t.is_integer() || t.is_float() || is_ptr(t)
}

fn verify_atomicrmw(m: &Module, op: OpId) -> Result<(), String> {
    let (ins, out) = (operand_types(m, op), result_types(m, op)[0]);
    if !is_ptr(ins[0]) {
        return Err(format!("operates through a pointer, not {}", ins[0]));
    }
    if ins[1] != out {
        return Err(format!("the value ({}) and the result ({out}) must have one type", ins[1]));
    }
    let bin_op = m.attr(op, "bin_op").and_then(Attribute::as_int).expect("checked by the table");
    let Some(name) = usize::try_from(bin_op).ok().and_then(|i| BIN_OPS.get(i)) else {
        return Err(format!("bin_op {bin_op} is not an atomicrmw operation (0 to {})", BIN_OPS.len() - 1));
    };
    let wants = match bin_op as i64 {
        0 => is_atomic_value(out),
        b if FLOAT_BIN_OPS.contains(&b) => out.is_float(),
        _ => out.is_integer(),
    };
    if !wants {
        return Err(format!("atomicrmw {name} cannot operate on {out}"));
    }
    check_ordering(m, op, "ordering", &[2, 4, 5, 6, 7])
}

fn verify_cmpxchg(m: &Module, op: OpId) -> Result<(), String> {
    let (ins, out) = (operand_types(m, op), result_types(m, op)[0]);
    if !is_ptr(ins[0]) {
        return Err(format!("operates through a pointer, not {}", ins[0]));
    }
    if ins[1] != ins[2] || !(ins[1].is_integer() || is_ptr(ins[1])) {
        return Err(format!("compares and stores one integer or pointer type, not {} and {}", ins[1], ins[2]));
    }
    let want = Type::LlvmStruct { packed: false, fields: vec![ins[1].clone(), Type::i1()] };
    if *out != want {
        return Err(format!("the result must be {want}, not {out}"));
    }
    check_ordering(m, op, "success_ordering", &[2, 4, 5, 6, 7])?;
    // A failed exchange only reads: no release semantics.
    check_ordering(m, op, "failure_ordering", &[2, 4, 7])
}

fn verify_fence(m: &Module, op: OpId) -> Result<(), String> {
    check_ordering(m, op, "ordering", &[4, 5, 6, 7])
}

/// `llvm.load`'s and `llvm.store`'s `ordering`: a load cannot release, a store cannot acquire,
/// and the value must be one an atomic access moves.
pub fn verify_access_ordering(m: &Module, op: OpId, value: &Type, is_load: bool) -> Result<(), String> {
    if m.attr(op, "ordering").and_then(Attribute::as_int).is_none_or(|n| n == 0) {
        return Ok(());
    }
    if !is_atomic_value(value) {
        return Err(format!("an atomic access moves an integer, a float or a pointer, not {value}"));
    }
    check_ordering(m, op, "ordering", if is_load { &[1, 2, 4, 7] } else { &[1, 2, 5, 7] })
}

// ---- custom forms ----------------------------------------------------------------------------

/// An ordering keyword, as the attribute `name`.
fn parse_ordering(p: &mut Parser, spec: OpSpec, name: &str) -> PResult<OpSpec> {
    let (word, span) = p.expect_ident("an atomic ordering")?;
    match ORDERINGS.iter().find(|(_, s)| *s == word) {
        Some((n, _)) => Ok(spec.attr(name, Attribute::i64(*n))),
        None => Err(Diagnostic::new(span, format!("unknown atomic ordering '{word}'"))),
    }
}

/// `syncscope("agent")`, when present.
fn parse_syncscope(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    if !p.eat_ident("syncscope")? {
        return Ok(spec);
    }
    p.expect_punct("(")?;
    let (scope, _) = p.expect_string("a synchronization scope")?;
    p.expect_punct(")")?;
    Ok(spec.attr("syncscope", Attribute::String(scope)))
}

/// A unit attribute written as a leading keyword (`volatile`, `weak`).
fn parse_flag(p: &mut Parser, spec: OpSpec, word: &str, attr: &str) -> PResult<OpSpec> {
    Ok(if p.eat_ident(word)? { spec.attr(attr, Attribute::Unit) } else { spec })
}

/// `llvm.load`'s and `llvm.store`'s `atomic [syncscope("...")] ORDERING`, when present.
pub fn parse_atomic_suffix(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    if !p.eat_ident("atomic")? {
        return Ok(spec);
    }
    let spec = parse_syncscope(p, spec)?;
    parse_ordering(p, spec, "ordering")
}

/// `volatile`, before a load's or store's operands.
pub fn parse_volatile(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    parse_flag(p, spec, "volatile", "volatile_")
}

fn print_flag(p: &mut OpPrinter, op: OpId, attr: &str, word: &str) {
    if p.module().attr(op, attr).is_some() {
        p.word(word);
    }
}

/// `volatile `, before a load's or store's operands.
pub fn print_volatile(p: &mut OpPrinter, op: OpId) {
    print_flag(p, op, "volatile_", "volatile ");
}

fn print_syncscope(p: &mut OpPrinter, op: OpId) {
    if let Some(Attribute::String(s)) = p.module().attr(op, "syncscope").cloned() {
        p.word(&format!(" syncscope({})", Attribute::String(s)));
    }
}

fn print_ordering(p: &mut OpPrinter, op: OpId, name: &str) -> Option<()> {
    let n = p.module().attr(op, name).and_then(Attribute::as_int)?;
    p.word(&format!(" {}", ordering_name(n)?));
    Some(())
}

/// The printed form of [`parse_atomic_suffix`]; nothing for a plain access.
pub fn print_atomic_suffix(p: &mut OpPrinter, op: OpId) -> Option<()> {
    if p.module().attr(op, "ordering").and_then(Attribute::as_int).is_none_or(|n| n == 0) {
        return Some(());
    }
    p.word(" atomic");
    print_syncscope(p, op);
    print_ordering(p, op, "ordering")
}

/// The attributes the custom forms of accesses spell as keywords.
pub const ACCESS_KEYWORDS: &[&str] = &["volatile_", "ordering", "syncscope"];

/// `llvm.atomicrmw [volatile] OP %ptr, %val [syncscope("...")] ORDERING {attrs} : !llvm.ptr, T`
fn parse_atomicrmw(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let spec = parse_flag(p, spec, "volatile", "volatile_")?;
    let (word, span) = p.expect_ident("an atomicrmw operation")?;
    let Some(bin_op) = BIN_OPS.iter().position(|&b| b == word) else {
        return Err(Diagnostic::new(span, format!("unknown atomicrmw operation '{word}'")));
    };
    let ptr = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let val = p.parse_operand_ref()?;
    let spec = parse_syncscope(p, spec.attr("bin_op", Attribute::i64(bin_op as i64)))?;
    let spec = parse_ordering(p, spec, "ordering")?;
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let pt = p.parse_type()?;
    p.expect_punct(",")?;
    let vt = p.parse_type()?;
    let spec = spec.operands([p.resolve(&ptr, &pt)?, p.resolve(&val, &vt)?]).results([vt]);
    Ok(with_attrs(spec, attrs))
}

fn print_atomicrmw(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    let name = BIN_OPS.get(usize::try_from(m.attr(op, "bin_op").and_then(Attribute::as_int)?).ok()?)?;
    print_flag(p, op, "volatile_", "volatile ");
    p.word(&format!("{name} "));
    p.values(&d.operands);
    print_syncscope(p, op);
    print_ordering(p, op, "ordering")?;
    p.attr_dict_except(op, &["bin_op", "ordering", "volatile_", "syncscope"]);
    p.word(" : ");
    p.types(&[m.ty(d.operands[0]), m.ty(d.operands[1])]);
    Some(())
}

/// `llvm.cmpxchg [weak] [volatile] %ptr, %cmp, %new [syncscope("...")] SUCCESS FAILURE {attrs}
/// : !llvm.ptr, T`
fn parse_cmpxchg(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let spec = parse_flag(p, spec, "weak", "weak")?;
    let spec = parse_flag(p, spec, "volatile", "volatile_")?;
    let ptr = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let cmp = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let new = p.parse_operand_ref()?;
    let spec = parse_syncscope(p, spec)?;
    let spec = parse_ordering(p, spec, "success_ordering")?;
    let spec = parse_ordering(p, spec, "failure_ordering")?;
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let pt = p.parse_type()?;
    p.expect_punct(",")?;
    let vt = p.parse_type()?;
    let result = Type::LlvmStruct { packed: false, fields: vec![vt.clone(), Type::i1()] };
    let operands = [p.resolve(&ptr, &pt)?, p.resolve(&cmp, &vt)?, p.resolve(&new, &vt)?];
    Ok(with_attrs(spec.operands(operands).results([result]), attrs))
}

fn print_cmpxchg(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    print_flag(p, op, "weak", "weak ");
    print_flag(p, op, "volatile_", "volatile ");
    p.values(&d.operands);
    print_syncscope(p, op);
    print_ordering(p, op, "success_ordering")?;
    print_ordering(p, op, "failure_ordering")?;
    p.attr_dict_except(op, &["success_ordering", "failure_ordering", "weak", "volatile_", "syncscope"]);
    p.word(" : ");
    p.types(&[m.ty(d.operands[0]), m.ty(d.operands[1])]);
    Some(())
}

/// `llvm.fence [syncscope("...")] ORDERING {attrs}`
fn parse_fence(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let spec = parse_syncscope(p, spec)?;
    let spec = parse_ordering(p, spec, "ordering")?;
    let attrs = parse_opt_attr_dict(p)?;
    Ok(with_attrs(spec, attrs))
}

fn print_fence(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let n = p.module().attr(op, "ordering").and_then(Attribute::as_int)?;
    if let Some(Attribute::String(s)) = p.module().attr(op, "syncscope").cloned() {
        p.word(&format!("syncscope({}) ", Attribute::String(s)));
    }
    p.word(ordering_name(n)?);
    p.attr_dict_except(op, &["ordering", "syncscope"]);
    Some(())
}
