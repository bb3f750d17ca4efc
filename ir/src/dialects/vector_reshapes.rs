//! The vector dialect's reshaping operations, as upstream spells them: `shape_cast` (same
//! elements, another shape), `bitcast` (same bits, another element type), and
//! `extract_strided_slice` / `insert_strided_slice` (a block of a vector at constant offsets).
//! Vectors lower to one-dimensional LLVM vectors in row-major order, where a shape cast is
//! nothing and a slice is a shuffle. (A second table of the vector dialect, beside `vector.rs`.)

use super::constraints::{operand_types, result_types};
use crate::attributes::Attribute;
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{optional, required, AttrKind, OpDef, Syntax};
use crate::parser::forms::{parse_opt_attr_dict, with_attrs, CAST};
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::Type;

pub const OPS: &[OpDef] = &[
    OpDef::new("vector.shape_cast", "the same elements in row-major order, in another shape")
        .operands(1)
        .results(1)
        .pure()
        .verify(verify_shape_cast)
        .syntax(CAST),
    OpDef::new("vector.bitcast", "the same bits with another element type (the last dim rescaled)")
        .operands(1)
        .results(1)
        .pure()
        .verify(verify_bitcast)
        .syntax(CAST),
    OpDef::new("vector.extract_strided_slice", "a block of a vector at constant offsets")
        .operands(1)
        .results(1)
        .attrs(&[
            required("offsets", AttrKind::IntList),
            required("sizes", AttrKind::IntList),
            optional("strides", AttrKind::IntList),
        ])
        .pure()
        .verify(verify_extract_slice)
        .syntax(Syntax::custom(parse_extract_slice, Some(print_slice))),
    OpDef::new("vector.insert_strided_slice", "a vector with a block replaced at constant offsets")
        .operands(2)
        .results(1)
        .attrs(&[required("offsets", AttrKind::IntList), optional("strides", AttrKind::IntList)])
        .pure()
        .verify(verify_insert_slice)
        .syntax(Syntax::custom(parse_insert_slice, Some(print_slice))),
];

fn vector(t: &Type) -> Option<(&[u64], &Type)> {
    match t {
        Type::Vector { shape, elem } => Some((shape, elem)),
        _ => None,
    }
}

fn bits(t: &Type) -> Option<u64> {
    match t {
        Type::Integer { width, .. } => Some(*width as u64),
        Type::Float(k) => Some(k.width() as u64),
        Type::Index => Some(64),
        _ => None,
    }
}

/// A vector's shape and element type.
type Shaped<'a> = (&'a [u64], &'a Type);

/// The operand's and the result's shapes and element types.
fn vectors(m: &Module, op: OpId) -> Result<(Shaped<'_>, Shaped<'_>), String> {
    match (vector(operand_types(m, op)[0]), vector(result_types(m, op)[0])) {
        (Some(s), Some(r)) => Ok((s, r)),
        _ => Err("takes and gives vectors".into()),
    }
}

fn verify_shape_cast(m: &Module, op: OpId) -> Result<(), String> {
    let ((s, se), (r, re)) = vectors(m, op)?;
    if se != re || s.iter().product::<u64>() != r.iter().product::<u64>() {
        return Err("keeps the element type and the number of elements".into());
    }
    Ok(())
}

fn verify_bitcast(m: &Module, op: OpId) -> Result<(), String> {
    let ((s, se), (r, re)) = vectors(m, op)?;
    let same_leading = s.len() == r.len() && s[..s.len().saturating_sub(1)] == r[..r.len().saturating_sub(1)];
    let last_bits = |shape: &[u64], e: &Type| bits(e).zip(shape.last()).map(|(b, n)| b * n);
    if s.is_empty() || !same_leading || last_bits(s, se).is_none() || last_bits(s, se) != last_bits(r, re) {
        return Err("keeps the leading dims and the bits of the last dim".into());
    }
    Ok(())
}

/// The slice's offsets, sizes (all the source's past those given) and unit strides.
pub fn slice_parts(m: &Module, op: OpId, source: &[u64]) -> Result<(Vec<u64>, Vec<u64>), String> {
    let list = |k: &str| m.attr(op, k).and_then(Attribute::as_int_list).unwrap_or_default();
    let (offsets, strides) = (list("offsets"), list("strides"));
    if strides.iter().any(|&s| s != 1) {
        return Err("strides other than 1 are not supported".into());
    }
    if offsets.len() > source.len() || offsets.iter().any(|&o| o < 0) {
        return Err("takes one non-negative offset per leading dim".into());
    }
    let mut off: Vec<u64> = offsets.iter().map(|&o| o as u64).collect();
    off.resize(source.len(), 0);
    let sizes = list("sizes");
    let mut size: Vec<u64> = sizes.iter().map(|&s| s.max(0) as u64).collect();
    size.extend(source[size.len().min(source.len())..].iter().copied());
    Ok((off, size))
}

fn verify_extract_slice(m: &Module, op: OpId) -> Result<(), String> {
    let ((s, se), (r, re)) = vectors(m, op)?;
    let (off, size) = slice_parts(m, op, s)?;
    if se != re || size != r || off.iter().zip(&size).zip(s).any(|((o, z), n)| o + z > *n) {
        return Err("the slice must fit the source and be the result's shape".into());
    }
    Ok(())
}

fn verify_insert_slice(m: &Module, op: OpId) -> Result<(), String> {
    let ins = operand_types(m, op);
    let (Some((src, se)), Some((dst, de))) = (vector(ins[0]), vector(ins[1])) else {
        return Err("inserts a vector into a vector".into());
    };
    if result_types(m, op)[0] != ins[1] || se != de || src.len() != dst.len() {
        return Err("inserts a vector of the destination's rank and element type, giving its type".into());
    }
    let (off, _) = slice_parts(m, op, dst)?;
    if off.iter().zip(src).zip(dst).any(|((o, z), n)| o + z > *n) {
        return Err("the slice must fit the destination".into());
    }
    Ok(())
}

/// `%v {offsets = [...], sizes = [...], strides = [...]} : T to U`
fn parse_extract_slice(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let v = p.parse_operand_ref()?;
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let from = p.parse_type()?;
    p.expect_ident_word("to")?;
    let to = p.parse_type()?;
    Ok(with_attrs(spec.operands([p.resolve(&v, &from)?]).results([to]), attrs))
}

/// `%src, %dst {offsets = [...], strides = [...]} : T into U`
fn parse_insert_slice(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let src = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let dst = p.parse_operand_ref()?;
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let st = p.parse_type()?;
    p.expect_ident_word("into")?;
    let dt = p.parse_type()?;
    let ops = [p.resolve(&src, &st)?, p.resolve(&dst, &dt)?];
    Ok(with_attrs(spec.operands(ops).results([dt]), attrs))
}

fn print_slice(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    p.values(&d.operands);
    p.attr_dict_except(op, &[]);
    let extract = d.name == "vector.extract_strided_slice";
    p.word(" : ");
    p.ty(m.ty(d.operands[0]));
    p.word(if extract { " to " } else { " into " });
    p.ty(m.ty(d.results[0]));
    Some(())
}
