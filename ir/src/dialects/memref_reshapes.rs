//! The memref dialect's reshaping views, as upstream spells them: `collapse_shape` and
//! `expand_shape` (dims grouped by a reassociation), `transpose`, `rank`, and
//! `extract_strided_metadata`. They only reinterpret a buffer's descriptor; no data moves.
//! (A second table of the memref dialect, beside `memref.rs`, to keep that file readable.)

use super::constraints::{operand_types, result_types};
use crate::affine::AffineExpr;
use crate::attributes::Attribute;
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{required, AttrKind, Count, OpDef, Syntax};
use crate::parser::forms::{parse_mixed_list, parse_opt_attr_dict, with_attrs, DYNAMIC};
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::{identity_strides, MemRefType, Type};

pub const OPS: &[OpDef] = &[
    OpDef::new("memref.collapse_shape", "a contiguous buffer with groups of dims merged into one")
        .operands(1)
        .results(1)
        .attrs(&[required("reassociation", AttrKind::Any)])
        .pure()
        .verify(verify_collapse)
        .syntax(Syntax::custom(parse_collapse, Some(print_reshape))),
    OpDef::new("memref.expand_shape", "a buffer with dims split into groups of dims")
        .operand_count(Count::AtLeast(1))
        .results(1)
        .attrs(&[required("reassociation", AttrKind::Any), required("static_output_shape", AttrKind::IntList)])
        .pure()
        .verify(verify_expand)
        .syntax(Syntax::custom(parse_expand, Some(print_reshape))),
    OpDef::new("memref.transpose", "a buffer with its dims permuted (sizes and strides)")
        .operands(1)
        .results(1)
        .attrs(&[required("permutation", AttrKind::AffineMap)])
        .pure()
        .verify(verify_transpose)
        .syntax(Syntax::custom(parse_transpose, None)),
    OpDef::new("memref.rank", "the number of dims of a buffer")
        .operands(1)
        .results(1)
        .pure()
        .verify(verify_rank)
        .syntax(Syntax::custom(parse_rank, Some(print_rank))),
    OpDef::new("memref.extract_strided_metadata", "a buffer's base (rank 0), offset, sizes and strides")
        .operands(1)
        .result_count(Count::AtLeast(2))
        .pure()
        .verify(verify_extract_strided_metadata)
        .syntax(Syntax::custom(parse_extract_strided_metadata, None)),
];

/// The groups of a reassociation, `[[0, 1], [2]]`.
pub fn reassociation(m: &Module, op: OpId) -> Vec<Vec<usize>> {
    let Some(Attribute::Array(groups)) = m.attr(op, "reassociation") else { return Vec::new() };
    groups
        .iter()
        .map(|g| g.as_int_list().unwrap_or_default().into_iter().map(|i| i.max(0) as usize).collect())
        .collect()
}

fn memrefs(m: &Module, op: OpId) -> Result<(&MemRefType, &MemRefType), String> {
    match (operand_types(m, op)[0], result_types(m, op)[0]) {
        (Type::MemRef(a), Type::MemRef(b)) if a.elem == b.elem => {
            super::memref::same_memory_space(operand_types(m, op)[0], result_types(m, op)[0])?;
            Ok((a, b))
        }
        _ => Err("takes and gives ranked memrefs of one element type".into()),
    }
}

/// The groups cover `0..wide` in order, one per dim of the narrow side, and the static sizes
/// agree: a narrow dim is the product of its group's.
fn check_groups(m: &Module, op: OpId, narrow: &MemRefType, wide: &MemRefType) -> Result<(), String> {
    let groups = reassociation(m, op);
    let flat: Vec<usize> = groups.iter().flatten().copied().collect();
    if groups.len() != narrow.rank()
        || flat != (0..wide.rank()).collect::<Vec<_>>()
        || groups.iter().any(|g| g.is_empty())
    {
        return Err(format!(
            "the reassociation must group the {} dims in order into {} non-empty groups",
            wide.rank(),
            narrow.rank()
        ));
    }
    for (k, g) in groups.iter().enumerate() {
        let product = g.iter().try_fold(1u64, |acc, &i| wide.shape[i].map(|d| acc * d));
        if product.is_none() != narrow.shape[k].is_none() {
            return Err(format!("dim {k} must be dynamic exactly when a dim of its group is (as upstream)"));
        }
        if let (Some(p), Some(n)) = (product, narrow.shape[k]) {
            if p != n {
                return Err(format!("dim {k} is {n} but its group's dims multiply to {p}"));
            }
        }
    }
    let row_major = |t: &MemRefType| t.strides_and_offset() == Some((identity_strides(&t.shape), Some(0)));
    if !row_major(narrow) || !row_major(wide) {
        return Err("takes and gives buffers in row-major order (no layout)".into());
    }
    Ok(())
}

fn verify_collapse(m: &Module, op: OpId) -> Result<(), String> {
    let (src, dst) = memrefs(m, op)?;
    check_groups(m, op, dst, src)
}

fn verify_expand(m: &Module, op: OpId) -> Result<(), String> {
    let (src, dst) = memrefs(m, op)?;
    check_groups(m, op, src, dst)?;
    let shape = m.attr(op, "static_output_shape").and_then(Attribute::as_int_list).unwrap_or_default();
    let dynamic = shape.iter().filter(|&&d| d == DYNAMIC).count();
    if shape.len() != dst.rank() || dynamic + 1 != m.ops[op].operands.len() {
        return Err("output_shape must give every result dim, a value for each dynamic one".into());
    }
    for (i, (&s, d)) in shape.iter().zip(&dst.shape).enumerate() {
        if s != DYNAMIC && *d != Some(s as u64) {
            return Err(format!("output_shape's dim {i} is {s}, the result type's is not"));
        }
    }
    Ok(())
}

fn verify_transpose(m: &Module, op: OpId) -> Result<(), String> {
    let (src, dst) = memrefs(m, op)?;
    let perm = permutation(m, op).ok_or("the permutation must be a map of the dims to a reordering of them")?;
    if perm.len() != src.rank() || dst.rank() != src.rank() {
        return Err("the permutation must reorder all the source's dims".into());
    }
    for (i, &p) in perm.iter().enumerate() {
        if dst.shape[i] != src.shape[p] {
            return Err(format!("result dim {i} must have the size of source dim {p}"));
        }
    }
    Ok(())
}

/// Result dim `i` is source dim `permutation[i]`.
pub fn permutation(m: &Module, op: OpId) -> Option<Vec<usize>> {
    let Some(Attribute::AffineMap(map)) = m.attr(op, "permutation") else { return None };
    let perm: Vec<usize> = map
        .results
        .iter()
        .map(|e| match e {
            AffineExpr::Dim(d) => Some(*d as usize),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let mut sorted = perm.clone();
    sorted.sort_unstable();
    (sorted == (0..map.num_dims as usize).collect::<Vec<_>>()).then_some(perm)
}

fn verify_rank(m: &Module, op: OpId) -> Result<(), String> {
    match (operand_types(m, op)[0], result_types(m, op)[0]) {
        (Type::MemRef(_), Type::Index) => Ok(()),
        _ => Err("takes a ranked memref and gives an index".into()),
    }
}

fn verify_extract_strided_metadata(m: &Module, op: OpId) -> Result<(), String> {
    let Type::MemRef(src) = operand_types(m, op)[0] else { return Err("takes a ranked memref".into()) };
    let results = result_types(m, op);
    let base_ok = matches!(results[0], Type::MemRef(b) if b.rank() == 0 && b.elem == src.elem);
    if !base_ok || results.len() != 2 + 2 * src.rank() || results[1..].iter().any(|t| !t.is_index()) {
        return Err(format!(
            "gives the base (a rank-0 memref of the element type), then {} index values: the offset, sizes and strides",
            1 + 2 * src.rank()
        ));
    }
    Ok(())
}

/// `[[0, 1], [2]]`
fn parse_reassociation(p: &mut Parser) -> PResult<Attribute> {
    let attr = p.parse_attribute()?;
    let ok = matches!(&attr, Attribute::Array(gs) if gs.iter().all(|g| g.as_int_list().is_some()));
    if !ok {
        return p.err_here("expected a reassociation such as [[0, 1], [2]]");
    }
    Ok(attr)
}

/// `%src [[0, 1], [2]] [output_shape [...]] {attrs} : T into U`
fn parse_reshape_common(p: &mut Parser, spec: OpSpec, expand: bool) -> PResult<OpSpec> {
    let src = p.parse_operand_ref()?;
    let groups = parse_reassociation(p)?;
    let mut output = None;
    if expand {
        p.expect_ident_word("output_shape")?;
        output = Some(parse_mixed_list(p)?);
    }
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let from = p.parse_type()?;
    p.expect_ident_word("into")?;
    let to = p.parse_type()?;
    let mut spec = spec.operands([p.resolve(&src, &from)?]).results([to]).attr("reassociation", groups);
    if let Some((statics, dyns)) = output {
        spec = spec.operands(p.resolve_same(&dyns, &Type::Index)?);
        spec = spec.attr("static_output_shape", Attribute::DenseArray { elem: Type::i64(), values: statics });
    }
    Ok(with_attrs(spec, attrs))
}

fn parse_collapse(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    parse_reshape_common(p, spec, false)
}

fn parse_expand(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    parse_reshape_common(p, spec, true)
}

fn print_reshape(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    if p.has_other_attrs(op, &["reassociation", "static_output_shape"]) {
        return None;
    }
    p.value(d.operands[0]);
    p.word(" ");
    p.attr(m.attr(op, "reassociation")?);
    if d.name == "memref.expand_shape" {
        let shape = m.attr(op, "static_output_shape")?.as_int_list()?;
        let mut dynamic = d.operands[1..].iter();
        p.word(" output_shape [");
        for (i, &s) in shape.iter().enumerate() {
            if i > 0 {
                p.word(", ");
            }
            match s == DYNAMIC {
                true => p.value(*dynamic.next()?),
                false => p.word(&s.to_string()),
            }
        }
        p.word("]");
    }
    p.word(" : ");
    p.ty(m.ty(d.operands[0]));
    p.word(" into ");
    p.ty(m.ty(d.results[0]));
    Some(())
}

/// `%src (d0, d1) -> (d1, d0) : T to U`
fn parse_transpose(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let src = p.parse_operand_ref()?;
    let map = match crate::parser::affine_syntax::parse_affine_map_or_set(p)? {
        crate::parser::affine_syntax::MapOrSet::Map(map) => map,
        _ => return p.err_here("expected a permutation map such as (d0, d1) -> (d1, d0)"),
    };
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let from = p.parse_type()?;
    p.expect_ident_word("to")?;
    let to = p.parse_type()?;
    let spec = spec.operands([p.resolve(&src, &from)?]).results([to]).attr("permutation", Attribute::AffineMap(map));
    Ok(with_attrs(spec, attrs))
}

/// `%src : memref<2x3xf32>`
fn parse_rank(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let src = p.parse_operand_ref()?;
    p.expect_punct(":")?;
    let t = p.parse_type()?;
    Ok(spec.operands([p.resolve(&src, &t)?]).results([Type::Index]))
}

fn print_rank(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let src = m.ops[op].operands[0];
    p.value(src);
    p.word(" : ");
    p.ty(m.ty(src));
    Some(())
}

/// `%src : memref<2x3xf32> -> memref<f32>, index, index, index, index, index`
fn parse_extract_strided_metadata(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let src = p.parse_operand_ref()?;
    p.expect_punct(":")?;
    let t = p.parse_type()?;
    p.expect_punct("->")?;
    let results = p.parse_type_list_no_parens()?;
    Ok(spec.operands([p.resolve(&src, &t)?]).results(results))
}
