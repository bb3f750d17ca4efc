//! The original MLIR specification's standard dialect: its spellings, which the parser maps onto
//! today's operation names ([`canonical_name`]), and the operations upstream dropped or never
//! had: `view` and `reshape` through an affine layout map (`std.view`, `std.reshape`) and
//! `alloc_static` at a fixed address.

use super::constraints::{operand_types, result_types};
use crate::attributes::Attribute;
use crate::diagnostics::Diagnostic;
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{required, AttrKind, Count, OpDef, Segment, Syntax, Traits};
use crate::parser::forms::{parse_dims_and_symbols, segment_sizes};
use crate::parser::{PResult, Parser};
use crate::types::{Layout, Type};

/// Original spelling -> upstream name; names not listed are already upstream's.
const SPELLINGS: &[(&str, &str)] = &[
    ("func", "func.func"),
    ("addi", "arith.addi"),
    ("subi", "arith.subi"),
    ("muli", "arith.muli"),
    ("divis", "arith.divsi"),
    ("diviu", "arith.divui"),
    ("remis", "arith.remsi"),
    ("remiu", "arith.remui"),
    ("addf", "arith.addf"),
    ("subf", "arith.subf"),
    ("mulf", "arith.mulf"),
    ("divf", "arith.divf"),
    ("cmpi", "arith.cmpi"),
    ("cmpf", "arith.cmpf"),
    ("select", "arith.select"),
    ("constant", "arith.constant"),
    ("index_cast", "arith.index_cast"),
    ("br", "cf.br"),
    ("cond_br", "cf.cond_br"),
    ("br_cond", "cf.cond_br"),
    ("return", "func.return"),
    ("call", "func.call"),
    ("call_indirect", "func.call_indirect"),
    ("alloc", "memref.alloc"),
    ("alloc_static", "memref.alloc_static"),
    ("dealloc", "memref.dealloc"),
    ("load", "memref.load"),
    ("store", "memref.store"),
    ("dim", "memref.dim"),
    ("memref_cast", "memref.cast"),
    // The original view/reshape re-index a buffer through affine maps; upstream has no such
    // operations, so they keep the original dialect's name.
    ("view", "std.view"),
    ("reshape", "std.reshape"),
    ("dma_start", "memref.dma_start"),
    ("dma_wait", "memref.dma_wait"),
    ("extract_element", "vector.extractelement"),
    ("affine_apply", "affine.apply"),
    ("for", "affine.for"),
    ("if", "affine.if"),
];

/// Maps an operation name of either spelling (optionally `std.`-prefixed) to the upstream name.
pub fn canonical_name(name: &str) -> &str {
    let bare = name.strip_prefix("std.").unwrap_or(name);
    match SPELLINGS.iter().find(|(old, _)| *old == bare) {
        Some((_, new)) => new,
        None => name,
    }
}

const VIEW_SEGMENTS: &[Segment] = &[Segment::One("source"), Segment::Variadic("sizes"), Segment::Variadic("symbols")];

pub const OPS: &[OpDef] = &[
    OpDef::new("std.view", "the source's elements re-indexed through the result's layout map")
        .operand_count(Count::Segments(VIEW_SEGMENTS))
        .results(1)
        .pure()
        .verify(verify_view_or_reshape)
        .syntax(Syntax::custom(parse_view, None)),
    OpDef::new("std.reshape", "a view with another shape, indexed through the result's layout map")
        .operand_count(Count::Segments(VIEW_SEGMENTS))
        .results(1)
        .pure()
        .verify(verify_view_or_reshape)
        .syntax(Syntax::custom(parse_reshape, None)),
    OpDef::new("memref.alloc_static", "a buffer at a fixed address")
        .results(1)
        .attrs(&[required("base", AttrKind::Integer)])
        .traits(Traits::ALLOCATES)
        .verify(verify_alloc_static)
        .syntax(Syntax::custom(parse_alloc_static, None)),
];

fn verify_view_or_reshape(m: &Module, op: OpId) -> Result<(), String> {
    let (Type::MemRef(src), Type::MemRef(dst)) = (operand_types(m, op)[0], result_types(m, op)[0]) else {
        return Err("takes a ranked memref and gives one".into());
    };
    if src.elem != dst.elem || src.memory_space != dst.memory_space {
        return Err(format!(
            "element type and memory space must match: {} and {}",
            Type::MemRef(src.clone()),
            Type::MemRef(dst.clone())
        ));
    }
    let seg = m.attr(op, "operandSegmentSizes").and_then(Attribute::as_int_list).unwrap_or_default();
    let dynamic = dst.shape.iter().filter(|d| d.is_none()).count();
    if seg.len() != 3 || seg[1] as usize != dynamic {
        return Err(format!(
            "{} has {dynamic} dynamic dimension(s), but {} size(s) are given",
            Type::MemRef(dst.clone()),
            seg.get(1).copied().unwrap_or(0)
        ));
    }
    match &dst.layout {
        Layout::Map(map) if map.num_symbols as i128 != seg[2] => {
            Err(format!("the result's layout map takes {} symbol(s), but {} are given", map.num_symbols, seg[2]))
        }
        Layout::Map(_) => Ok(()),
        _ if seg[2] != 0 => Err("symbols are given, but the result has no layout map".into()),
        _ => Ok(()),
    }
}

fn verify_alloc_static(m: &Module, op: OpId) -> Result<(), String> {
    match result_types(m, op)[0] {
        Type::MemRef(mt) if mt.shape.iter().all(Option::is_some) => Ok(()),
        t => Err(format!("the result must be a statically shaped memref, not {t}")),
    }
}

/// `view T1 -> T2 (dims) [syms] %src : T1`
fn parse_view(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let from = p.parse_type()?;
    p.expect_punct("->")?;
    let to = p.parse_type()?;
    let (dims, syms) = parse_dims_and_symbols(p)?;
    let src = p.parse_operand_ref()?;
    p.expect_punct(":")?;
    let ty_span = p.peek_span();
    let src_ty = p.parse_type()?;
    if src_ty != from {
        return Err(Diagnostic::new(
            ty_span,
            format!("the source has type {src_ty}, but the view is declared from {from}"),
        ));
    }
    let mut ops = vec![p.resolve(&src, &src_ty)?];
    ops.extend(p.resolve_same(&dims, &Type::Index)?);
    ops.extend(p.resolve_same(&syms, &Type::Index)?);
    let seg = segment_sizes(&[1, dims.len(), syms.len()]);
    Ok(spec.operands(ops).results([to]).attr("operandSegmentSizes", seg))
}

/// `reshape %src : T1 (dims)[syms] to (T1 -> T2)` (the spec's example) or `... : T2` (its grammar)
fn parse_reshape(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let src = p.parse_operand_ref()?;
    p.expect_punct(":")?;
    let from = p.parse_type()?;
    let (dims, syms) = parse_dims_and_symbols(p)?;
    let to = if p.eat_ident("to")? {
        p.expect_punct("(")?;
        let a_span = p.peek_span();
        let a = p.parse_type()?;
        if a != from {
            return Err(Diagnostic::new(
                a_span,
                format!("the reshape is declared from {a}, but the source has type {from}"),
            ));
        }
        p.expect_punct("->")?;
        let b = p.parse_type()?;
        p.expect_punct(")")?;
        b
    } else {
        p.expect_punct(":")?;
        p.parse_type()?
    };
    let mut ops = vec![p.resolve(&src, &from)?];
    ops.extend(p.resolve_same(&dims, &Type::Index)?);
    ops.extend(p.resolve_same(&syms, &Type::Index)?);
    let seg = segment_sizes(&[1, dims.len(), syms.len()]);
    Ok(spec.operands(ops).results([to]).attr("operandSegmentSizes", seg))
}

/// `alloc_static(0x1000) : memref<4xf32>`
fn parse_alloc_static(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    p.expect_punct("(")?;
    let (addr, _) = p.parse_int("a base address")?;
    p.expect_punct(")")?;
    p.expect_punct(":")?;
    let ty = p.parse_type()?;
    Ok(spec.results([ty]).attr("base", Attribute::i64(addr as i64)))
}
