//! `vector.transfer_read` and `vector.transfer_write`: a vector of k dims read from or written to
//! the k innermost dimensions of a memref at given indices, as upstream spells them. Lanes past a
//! dimension's end (unless that dim's `in_bounds` flag promises there are none) and lanes off in
//! the optional mask read the padding value and are not written. Only the minor identity
//! permutation map is supported (the vector's dims run along the memref's last ones, in order).
//! (A third table of the vector dialect.)

use super::constraints::{operand_types, result_types};
use crate::affine::{AffineExpr, AffineMap};
use crate::attributes::Attribute;
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{optional, AttrKind, Count, OpDef, Syntax};
use crate::parser::forms::{parse_index_list, parse_opt_attr_dict, segment_sizes, with_attrs};
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::Type;

const ATTRS: &[crate::op_def::AttrDef] =
    &[optional("permutation_map", AttrKind::AffineMap), optional("in_bounds", AttrKind::Any)];

pub const OPS: &[OpDef] = &[
    OpDef::new("vector.transfer_read", "a vector read along a memref's last dim, padded past its end")
        .operand_count(Count::AtLeast(2))
        .results(1)
        .attrs(ATTRS)
        .traits(crate::op_def::Traits::READS)
        .verify(verify_transfer)
        .syntax(Syntax::custom(parse_transfer, Some(print_transfer))),
    OpDef::new("vector.transfer_write", "a vector written along a memref's last dim, cut at its end")
        .operand_count(Count::AtLeast(2))
        .attrs(ATTRS)
        .traits(crate::op_def::Traits::WRITES)
        .verify(verify_transfer)
        .syntax(Syntax::custom(parse_transfer, Some(print_transfer))),
];

/// The parts of a transfer: its memref, indices, padding (reads), vector (writes) and mask.
pub struct Transfer {
    pub read: bool,
    pub memref: crate::ValueId,
    pub indices: Vec<crate::ValueId>,
    pub padding: Option<crate::ValueId>,
    pub vector: Option<crate::ValueId>,
    pub mask: Option<crate::ValueId>,
    /// Per vector dim, whether it surely stays inside its memref dimension.
    pub in_bounds: Vec<bool>,
}

impl Transfer {
    /// Read `(memref, indices.., padding[, mask])`, write `(vector, memref, indices..[, mask])`,
    /// the memref's rank deciding where the indices end.
    pub fn of(m: &Module, op: OpId) -> Option<Transfer> {
        let d = &m.ops[op];
        let read = d.name == "vector.transfer_read";
        let at = if read { 0 } else { 1 };
        let memref = *d.operands.get(at)?;
        let rank = m.ty(memref).as_memref()?.rank();
        let indices = d.operands.get(at + 1..at + 1 + rank)?.to_vec();
        let rest = &d.operands[at + 1 + rank..];
        let (padding, mask) = match (read, rest) {
            (true, [p]) => (Some(*p), None),
            (true, [p, k]) => (Some(*p), Some(*k)),
            (false, []) => (None, None),
            (false, [k]) => (None, Some(*k)),
            _ => return None,
        };
        let vector = (!read).then(|| d.operands[0]);
        let vt = if read { m.ty(*d.results.first()?) } else { m.ty(d.operands[0]) };
        let dims = match vt {
            Type::Vector { shape, .. } => shape.len(),
            _ => 1,
        };
        let in_bounds = match m.attr(op, "in_bounds") {
            Some(Attribute::Array(flags)) => flags.iter().map(|f| matches!(f, Attribute::Bool(true))).collect(),
            _ => vec![false; dims],
        };
        Some(Transfer { read, memref, indices, padding, vector, mask, in_bounds })
    }
}

/// `(d0, .., d{rank-1}) -> (d{rank-k}, .., d{rank-1})`: the vector's k dims along the memref's last.
fn minor_identity(rank: usize, k: usize) -> AffineMap {
    let results = (rank - k..rank).map(|d| AffineExpr::Dim(d as u32)).collect();
    AffineMap { num_dims: rank as u32, num_symbols: 0, results }
}

fn verify_transfer(m: &Module, op: OpId) -> Result<(), String> {
    let t = Transfer::of(m, op).ok_or("takes a memref, one index per dim, a padding value (reads) and a mask")?;
    let Type::MemRef(mt) = m.ty(t.memref) else { return Err("transfers to or from a memref".into()) };
    let vt = if t.read { result_types(m, op)[0] } else { operand_types(m, op)[0] };
    let Type::Vector { shape, elem } = vt else { return Err("transfers a vector".into()) };
    if shape.is_empty() || shape.len() > mt.rank() || *elem != mt.elem {
        return Err(format!(
            "transfers a vector of the memref's element type with at most its {} dims, not {vt}",
            mt.rank()
        ));
    }
    if t.in_bounds.len() != shape.len() {
        return Err(format!("in_bounds needs one flag per vector dim ({})", shape.len()));
    }
    if t.indices.iter().any(|&i| !m.ty(i).is_index()) {
        return Err("the indices must be index values".into());
    }
    if t.padding.is_some_and(|p| *m.ty(p) != *mt.elem) {
        return Err("the padding value must have the element type".into());
    }
    let mask_t = Type::Vector { shape: shape.clone(), elem: Box::new(Type::i1()) };
    if t.mask.is_some_and(|k| *m.ty(k) != mask_t) {
        return Err(format!("the mask must be a {mask_t}"));
    }
    match m.attr(op, "permutation_map") {
        Some(Attribute::AffineMap(map)) if *map != minor_identity(mt.rank(), shape.len()) => {
            Err(format!("only the minor identity permutation map is supported, not {map}"))
        }
        _ => Ok(()),
    }
}

/// `%A[%i, %j], %pad[, %mask] {attrs} : memref<...>, vector<...>` (read) and
/// `%v, %A[%i, %j][, %mask] {attrs} : vector<...>, memref<...>` (write).
fn parse_transfer(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let read = spec.name == "vector.transfer_read";
    let vector = if read { None } else { Some((p.parse_operand_ref()?, p.expect_punct(",")?).0) };
    let memref = p.parse_operand_ref()?;
    let indices = parse_index_list(p)?;
    let padding = if read { Some((p.expect_punct(",")?, p.parse_operand_ref()?).1) } else { None };
    // Only a mask can follow here after a comma.
    let mask = if p.eat_punct(",")? { Some(p.parse_operand_ref()?) } else { None };
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let first = p.parse_type()?;
    p.expect_punct(",")?;
    let second = p.parse_type()?;
    let (mt, vt) = if read { (first, second) } else { (second, first) };
    let Type::Vector { shape, elem } = &vt else { return p.err_here(format!("expected a vector type, not {vt}")) };
    let mask_t = Type::Vector { shape: shape.clone(), elem: Box::new(Type::i1()) };
    let mut ops = Vec::new();
    if let Some(v) = &vector {
        ops.push(p.resolve(v, &vt)?);
    }
    ops.push(p.resolve(&memref, &mt)?);
    ops.extend(p.resolve_same(&indices, &Type::Index)?);
    if let Some(pad) = &padding {
        ops.push(p.resolve(pad, elem)?);
    }
    if let Some(k) = &mask {
        ops.push(p.resolve(k, &mask_t)?);
    }
    let n = indices.len();
    let segments = if read {
        segment_sizes(&[1, n, 1, mask.is_some() as usize])
    } else {
        segment_sizes(&[1, 1, n, mask.is_some() as usize])
    };
    let results = if read { vec![vt.clone()] } else { Vec::new() };
    let spec = spec.operands(ops).results(results).attr("operandSegmentSizes", segments);
    Ok(with_attrs(spec, attrs))
}

fn print_transfer(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let t = Transfer::of(m, op)?;
    let rank = m.ty(t.memref).as_memref()?.rank();
    let k = t.in_bounds.len();
    if matches!(m.attr(op, "permutation_map"), Some(Attribute::AffineMap(map)) if k > rank || *map != minor_identity(rank, k))
    {
        return None;
    }
    if let Some(v) = t.vector {
        p.value(v);
        p.word(", ");
    }
    p.value(t.memref);
    p.word("[");
    p.values(&t.indices);
    p.word("]");
    if let Some(pad) = t.padding {
        p.word(", ");
        p.value(pad);
    }
    if let Some(k) = t.mask {
        p.word(", ");
        p.value(k);
    }
    if t.in_bounds.iter().any(|&f| f) {
        let flags: Vec<&str> = t.in_bounds.iter().map(|&f| if f { "true" } else { "false" }).collect();
        p.word(&format!(" {{in_bounds = [{}]}}", flags.join(", ")));
    }
    p.word(" : ");
    let vt = if t.read { m.ty(m.ops[op].results[0]) } else { m.ty(t.vector?) };
    let (first, second) = if t.read { (m.ty(t.memref), vt) } else { (vt, m.ty(t.memref)) };
    p.ty(first);
    p.word(", ");
    p.ty(second);
    Some(())
}
