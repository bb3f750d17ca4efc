//! `memref`: buffers with a shape and a layout, their allocation, access, views and DMA
//! transfers (the original specification's `alloc`, `load`, `store`, `dim`, `memref_cast` and
//! `dma_*` parse into these).

use super::constraints::{operand_types, result_types};
use crate::attributes::Attribute;
use crate::diagnostics::Diagnostic;
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{optional, required, AttrKind, Count, OpDef, Segment, Syntax, Traits};
use crate::parser::forms::MixedList;
use crate::parser::forms::{
    i64_array, parse_fn_type, parse_index_list, parse_mixed_list, parse_opt_attr_dict, segment_sizes, with_attrs, CAST,
    DYNAMIC,
};
use crate::parser::lexer::Tok;
use crate::parser::{OperandRef, PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::{Layout, MemRefType, Type};

const ALLOC_SEGMENTS: &[Segment] = &[Segment::Variadic("dynamicSizes"), Segment::Variadic("symbolOperands")];
const SUBVIEW_SEGMENTS: &[Segment] =
    &[Segment::One("source"), Segment::Variadic("offsets"), Segment::Variadic("sizes"), Segment::Variadic("strides")];
const STATIC_LISTS: &[crate::op_def::AttrDef] = &[
    required("static_offsets", AttrKind::IntList),
    required("static_sizes", AttrKind::IntList),
    required("static_strides", AttrKind::IntList),
];

pub const OPS: &[OpDef] = &[
    OpDef::new("memref.alloc", "allocates a buffer on the heap (runtime-c's xcc_alloc)")
        .operand_count(Count::Segments(ALLOC_SEGMENTS))
        .results(1)
        .attrs(&[optional("alignment", AttrKind::Integer)])
        .traits(Traits::ALLOCATES)
        .verify(verify_alloc)
        .syntax(ALLOC),
    OpDef::new("memref.alloca", "allocates a buffer on the stack, freed on return")
        .operand_count(Count::Segments(ALLOC_SEGMENTS))
        .results(1)
        .attrs(&[optional("alignment", AttrKind::Integer)])
        .traits(Traits::ALLOCATES)
        .verify(verify_alloc)
        .syntax(ALLOC),
    OpDef::new("memref.dealloc", "frees a buffer from memref.alloc")
        .operands(1)
        .traits(Traits::ALLOCATES)
        .verify(verify_is_memref)
        .syntax(Syntax::custom(parse_dealloc, Some(print_dealloc))),
    OpDef::new("memref.load", "reads one element")
        .operand_count(Count::AtLeast(1))
        .results(1)
        .traits(Traits::READS)
        .verify(verify_load)
        .syntax(Syntax::custom(parse_load, Some(print_load))),
    OpDef::new("memref.store", "writes one element")
        .operand_count(Count::AtLeast(2))
        .traits(Traits::WRITES)
        .verify(verify_store)
        .syntax(Syntax::custom(parse_store, Some(print_store))),
    OpDef::new("memref.dim", "the size of one dimension")
        .operand_count(Count::Between(1, 2))
        .results(1)
        .attrs(&[optional("index", AttrKind::Integer)])
        .pure()
        .verify(verify_dim)
        .syntax(DIM),
    OpDef::new("memref.cast", "the same buffer with more or less static information")
        .operands(1)
        .results(1)
        .pure()
        .verify(verify_cast)
        .syntax(CAST),
    OpDef::new("memref.subview", "a strided window into a buffer")
        .operand_count(Count::Segments(SUBVIEW_SEGMENTS))
        .results(1)
        .attrs(STATIC_LISTS)
        .pure()
        .verify(verify_subview)
        .syntax(Syntax::custom(parse_subview, None)),
    OpDef::new("memref.view", "a typed view of a byte buffer at a byte offset")
        .operand_count(Count::AtLeast(2))
        .results(1)
        .pure()
        .verify(verify_view)
        .syntax(Syntax::custom(parse_view, Some(print_view))),
    OpDef::new("memref.reshape", "a contiguous buffer with another shape, read from a shape buffer")
        .operands(2)
        .results(1)
        .traits(Traits::READS)
        .verify(verify_reshape)
        .syntax(Syntax::custom(parse_reshape, None)),
    OpDef::new("memref.reinterpret_cast", "a buffer seen with a static offset, sizes and strides")
        .operand_count(Count::Segments(SUBVIEW_SEGMENTS))
        .results(1)
        .attrs(STATIC_LISTS)
        .pure()
        .verify(verify_reinterpret_cast)
        .syntax(Syntax::custom(parse_reinterpret_cast, None)),
    OpDef::new("memref.copy", "copies every element of one buffer into another of the same shape")
        .operands(2)
        .traits(Traits::READS.union(Traits::WRITES))
        .verify(verify_copy)
        .syntax(Syntax::custom(parse_copy, None)),
    OpDef::new("memref.extract_aligned_pointer_as_index", "the address of a buffer's data, as an index")
        .operands(1)
        .results(1)
        .pure()
        .verify(verify_is_memref),
    OpDef::new("memref.global", "a named buffer in static memory")
        .attrs(&[
            required("sym_name", AttrKind::String),
            required("type", AttrKind::Type),
            optional("initial_value", AttrKind::Any),
            optional("constant", AttrKind::Unit),
            optional("sym_visibility", AttrKind::String),
            optional("alignment", AttrKind::Integer),
        ])
        .traits(Traits::SYMBOL)
        .syntax(Syntax::custom(parse_global, None)),
    OpDef::new("memref.get_global", "a memref.global's buffer")
        .results(1)
        .attrs(&[required("name", AttrKind::Symbol)])
        .pure()
        .verify(verify_get_global)
        .syntax(Syntax::custom(parse_get_global, Some(print_get_global))),
    OpDef::new("memref.dma_start", "starts an asynchronous copy; completion is counted on a tag")
        .operand_count(Count::AtLeast(4))
        .traits(Traits::READS.union(Traits::WRITES))
        .verify(verify_dma_start)
        .syntax(Syntax::custom(parse_dma_start, None)),
    OpDef::new("memref.atomic_rmw", "combines a value into one element atomically; gives the old element")
        .operand_count(Count::AtLeast(2))
        .results(1)
        .attrs(&[required("kind", AttrKind::Integer)])
        .traits(Traits::READS.union(Traits::WRITES))
        .verify(verify_atomic_rmw)
        .syntax(Syntax::custom(parse_atomic_rmw, Some(print_atomic_rmw))),
    OpDef::new("memref.dma_wait", "waits until a tag's copies are complete")
        .operand_count(Count::AtLeast(2))
        .traits(Traits::READS.union(Traits::WRITES))
        .verify(verify_dma_wait)
        .syntax(Syntax::custom(parse_dma_wait, None)),
];

/// `memref.atomic_rmw`'s kinds, numbered as upstream's `arith::AtomicRMWKind`, with whether each
/// takes floats.
pub const ATOMIC_RMW_KINDS: &[(&str, bool)] = &[
    ("addf", true),
    ("addi", false),
    ("andi", false),
    ("assign", false),
    ("maximumf", true),
    ("maxnumf", true),
    ("maxs", false),
    ("maxu", false),
    ("minimumf", true),
    ("minnumf", true),
    ("mins", false),
    ("minu", false),
    ("mulf", true),
    ("muli", false),
    ("ori", false),
    ("xori", false),
];

fn verify_atomic_rmw(m: &Module, op: OpId) -> Result<(), String> {
    let mt = memref_operand(m, op, 1)?;
    check_indices(m, op, mt, 2)?;
    let (v, r) = (operand_types(m, op)[0], result_types(m, op)[0]);
    if v != &*mt.elem || r != &*mt.elem {
        return Err(format!("the value and the result must be the element type {}", mt.elem));
    }
    let kind = m.attr(op, "kind").and_then(Attribute::as_int).expect("checked by the table");
    let Some(&(name, float)) = usize::try_from(kind).ok().and_then(|k| ATOMIC_RMW_KINDS.get(k)) else {
        return Err(format!("kind {kind} is not an atomic_rmw kind (0 to {})", ATOMIC_RMW_KINDS.len() - 1));
    };
    let fits = if name == "assign" {
        v.is_integer() || v.is_float()
    } else if float {
        v.is_float()
    } else {
        v.is_integer()
    };
    if !fits {
        return Err(format!("atomic_rmw {name} cannot combine {v}"));
    }
    Ok(())
}

fn memref_operand(m: &Module, op: OpId, i: usize) -> Result<&MemRefType, String> {
    operand_types(m, op).get(i).and_then(|t| t.as_memref()).ok_or_else(|| "needs a ranked memref operand".into())
}

fn verify_is_memref(m: &Module, op: OpId) -> Result<(), String> {
    match operand_types(m, op)[0] {
        Type::MemRef(_) | Type::UnrankedMemRef { .. } => Ok(()),
        t => Err(format!("needs a memref operand, not {t}")),
    }
}

fn verify_alloc(m: &Module, op: OpId) -> Result<(), String> {
    let Some(mt) = result_types(m, op)[0].as_memref() else { return Err("the result must be a ranked memref".into()) };
    let dynamic = mt.shape.iter().filter(|d| d.is_none()).count();
    let given = m
        .attr(op, "operandSegmentSizes")
        .and_then(Attribute::as_int_list)
        .map(|s| s[0] as usize)
        .unwrap_or(m.ops[op].operands.len());
    if dynamic != given {
        return Err(format!(
            "{} has {dynamic} dynamic dimension(s), but {given} size(s) are given",
            Type::MemRef(mt.clone())
        ));
    }
    Ok(())
}

fn check_indices(m: &Module, op: OpId, mt: &MemRefType, first: usize) -> Result<(), String> {
    let ins = operand_types(m, op);
    let n = ins.len() - first;
    if n != mt.rank() {
        return Err(format!("{n} index(es) given for a memref of rank {}", mt.rank()));
    }
    if let Some(t) = ins[first..].iter().find(|t| !t.is_index()) {
        return Err(format!("indices must be index values, found {t}"));
    }
    Ok(())
}

fn verify_load(m: &Module, op: OpId) -> Result<(), String> {
    let mt = memref_operand(m, op, 0)?;
    check_indices(m, op, mt, 1)?;
    if result_types(m, op)[0] != &*mt.elem {
        return Err(format!("the result must be the element type {}", mt.elem));
    }
    Ok(())
}

fn verify_store(m: &Module, op: OpId) -> Result<(), String> {
    let mt = memref_operand(m, op, 1)?;
    check_indices(m, op, mt, 2)?;
    let v = operand_types(m, op)[0];
    if v != &*mt.elem {
        return Err(format!("stores a {v} into a memref of {}", mt.elem));
    }
    Ok(())
}

fn verify_dim(m: &Module, op: OpId) -> Result<(), String> {
    let rank = match operand_types(m, op)[0] {
        Type::MemRef(mt) => mt.rank(),
        Type::UnrankedMemRef { .. } => usize::MAX,
        _ => return Err("needs a memref operand".into()),
    };
    let d = &m.ops[op];
    match (m.attr(op, "index").and_then(Attribute::as_int), d.operands.len()) {
        (Some(i), 1) if i < 0 || i as usize >= rank => {
            Err(format!("dimension {i} is out of range for a memref of rank {rank}"))
        }
        (Some(_), 1) => Ok(()),
        (None, 2) if m.ty(d.operands[1]).is_index() => Ok(()),
        _ => Err("takes the dimension as an 'index' attribute or as one index operand".into()),
    }
}

/// The memory space a memref type names (`None`: the default one).
pub(super) fn memory_space(t: &Type) -> Option<&Attribute> {
    match t {
        Type::MemRef(m) => m.memory_space.as_deref(),
        Type::UnrankedMemRef { memory_space, .. } => memory_space.as_deref(),
        _ => None,
    }
}

/// A memory space as text without blanks, so that spellings of one space compare equal.
pub fn memory_space_text(space: Option<&Attribute>) -> Option<String> {
    space.map(|s| s.to_string().split_whitespace().collect())
}

/// A cast, view or reshape sees the same buffer, so it keeps the buffer's memory space.
pub(super) fn same_memory_space(from: &Type, to: &Type) -> Result<(), String> {
    if memory_space_text(memory_space(from)) != memory_space_text(memory_space(to)) {
        return Err(format!("the memory spaces differ: {from} and {to}"));
    }
    Ok(())
}

fn verify_cast(m: &Module, op: OpId) -> Result<(), String> {
    let (from, to) = (operand_types(m, op)[0], result_types(m, op)[0]);
    same_memory_space(from, to)?;
    let elem = |t: &Type| match t {
        Type::MemRef(m) => Some((*m.elem).clone()),
        Type::UnrankedMemRef { elem, .. } => Some((**elem).clone()),
        _ => None,
    };
    let (a, b) = (elem(from), elem(to));
    if a.is_none() || a != b {
        return Err(format!("cannot cast {from} to {to}"));
    }
    if let (Type::MemRef(x), Type::MemRef(y)) = (from, to) {
        if x.rank() != y.rank() || x.shape.iter().zip(&y.shape).any(|(p, q)| p.is_some() && q.is_some() && p != q) {
            return Err(format!("incompatible shapes: {from} to {to}"));
        }
    }
    Ok(())
}

fn static_lists(m: &Module, op: OpId) -> [Vec<i128>; 3] {
    ["static_offsets", "static_sizes", "static_strides"]
        .map(|k| m.attr(op, k).and_then(Attribute::as_int_list).unwrap_or_default())
}

/// The static lists of a subview or reinterpret_cast: one entry per dimension, dynamic entries
/// matching the operand groups.
fn check_mixed_lists(m: &Module, op: OpId, entries: usize) -> Result<(), String> {
    let seg = m.attr(op, "operandSegmentSizes").and_then(Attribute::as_int_list).unwrap_or_default();
    for (i, (key, list)) in
        ["static_offsets", "static_sizes", "static_strides"].iter().zip(static_lists(m, op)).enumerate()
    {
        let want = if *key == "static_offsets" && m.ops[op].name == "memref.reinterpret_cast" { 1 } else { entries };
        if list.len() != want {
            return Err(format!("'{key}' must have {want} entr(ies)"));
        }
        let dynamic = list.iter().filter(|&&x| x == DYNAMIC).count() as i128;
        if seg.get(i + 1).copied().unwrap_or(0) != dynamic {
            return Err(format!("'{key}' has {dynamic} dynamic entr(ies), but its operand group differs"));
        }
        if *key != "static_offsets" && list.iter().any(|&x| x != DYNAMIC && x < 0) {
            return Err(format!("'{key}' cannot hold negative values"));
        }
    }
    Ok(())
}

fn verify_subview(m: &Module, op: OpId) -> Result<(), String> {
    let (Type::MemRef(src), Type::MemRef(dst)) = (operand_types(m, op)[0], result_types(m, op)[0]) else {
        return Err("takes a ranked memref and gives one".into());
    };
    check_mixed_lists(m, op, src.rank())?;
    same_memory_space(operand_types(m, op)[0], result_types(m, op)[0])?;
    if src.elem != dst.elem || dst.rank() > src.rank() {
        return Err(format!(
            "cannot take a subview of type {} from {}",
            Type::MemRef(dst.clone()),
            Type::MemRef(src.clone())
        ));
    }
    Ok(())
}

fn verify_reinterpret_cast(m: &Module, op: OpId) -> Result<(), String> {
    let (src, Type::MemRef(dst)) = (operand_types(m, op)[0], result_types(m, op)[0]) else {
        return Err("gives a ranked memref".into());
    };
    let src_elem = match src {
        Type::MemRef(s) => &s.elem,
        Type::UnrankedMemRef { elem, .. } => elem,
        _ => return Err("takes a memref".into()),
    };
    if *src_elem != dst.elem {
        return Err("the element types must agree".into());
    }
    same_memory_space(src, result_types(m, op)[0])?;
    check_mixed_lists(m, op, dst.rank())
}

fn verify_view(m: &Module, op: OpId) -> Result<(), String> {
    let (Type::MemRef(src), Type::MemRef(dst)) = (operand_types(m, op)[0], result_types(m, op)[0]) else {
        return Err("takes a ranked memref and gives one".into());
    };
    if src.rank() != 1 || *src.elem != Type::i8() {
        return Err(format!("the source must be a 1-D memref of i8, not {}", Type::MemRef(src.clone())));
    }
    same_memory_space(operand_types(m, op)[0], result_types(m, op)[0])?;
    let dynamic = dst.shape.iter().filter(|d| d.is_none()).count();
    let given = m.ops[op].operands.len() - 2;
    if given != dynamic {
        return Err(format!(
            "{} has {dynamic} dynamic dimension(s), but {given} size(s) are given",
            Type::MemRef(dst.clone())
        ));
    }
    if dst.layout != Layout::Identity {
        return Err("the result must have the identity layout".into());
    }
    Ok(())
}

fn verify_reshape(m: &Module, op: OpId) -> Result<(), String> {
    let ins = operand_types(m, op);
    let (Type::MemRef(src), Type::MemRef(shape), Type::MemRef(dst)) = (ins[0], ins[1], result_types(m, op)[0]) else {
        return Err("takes a ranked source, a 1-D shape memref and gives a ranked memref".into());
    };
    if src.elem != dst.elem || shape.rank() != 1 || shape.shape[0] != Some(dst.rank() as u64) {
        return Err(format!("the shape memref must be 1-D with {} entries and element types must agree", dst.rank()));
    }
    same_memory_space(ins[0], result_types(m, op)[0])?;
    Ok(())
}

fn verify_copy(m: &Module, op: OpId) -> Result<(), String> {
    let ins = operand_types(m, op);
    let (Type::MemRef(a), Type::MemRef(b)) = (ins[0], ins[1]) else {
        return Err("copies between ranked memrefs".into());
    };
    if a.elem != b.elem || a.shape != b.shape {
        return Err(format!("source and target must have the same shape and element type: {} and {}", ins[0], ins[1]));
    }
    Ok(())
}

fn verify_get_global(m: &Module, op: OpId) -> Result<(), String> {
    let sym = m.attr(op, "name").and_then(Attribute::as_symbol).expect("checked by the table");
    let Some(g) = m.lookup_symbol(sym).filter(|&g| m.ops[g].name == "memref.global") else {
        return Err(format!("refers to undefined memref.global '@{sym}'"));
    };
    if m.attr(g, "type").and_then(Attribute::as_type) != Some(result_types(m, op)[0]) {
        return Err(format!("the result type does not match the type of '@{sym}'"));
    }
    Ok(())
}

/// The memref operands of a DMA: each followed by as many indices as its rank.
fn dma_memref(m: &Module, op: OpId, at: &mut usize, what: &str) -> Result<MemRefType, String> {
    let Some(Type::MemRef(mt)) = operand_types(m, op).get(*at).copied() else {
        return Err(format!("the {what} must be a memref"));
    };
    *at += 1 + mt.rank();
    Ok(mt.clone())
}

fn verify_dma_start(m: &Module, op: OpId) -> Result<(), String> {
    let mut i = 0;
    let src = dma_memref(m, op, &mut i, "source")?;
    let dst = dma_memref(m, op, &mut i, "destination")?;
    i += 1;
    let tag = dma_memref(m, op, &mut i, "tag")?;
    if src.elem != dst.elem {
        return Err(format!("source and destination element types differ: {} and {}", src.elem, dst.elem));
    }
    if !tag.elem.is_integer() {
        return Err("the tag memref must hold integers".into());
    }
    let n = m.ops[op].operands.len();
    if n != i && n != i + 2 {
        return Err("wrong number of operands for the memrefs' ranks".into());
    }
    if operand_types(m, op).iter().any(|t| !matches!(t, Type::MemRef(_) | Type::Index)) {
        return Err("indices, the element count and strides must be index values".into());
    }
    Ok(())
}

fn verify_dma_wait(m: &Module, op: OpId) -> Result<(), String> {
    let mt = memref_operand(m, op, 0)?;
    let n = m.ops[op].operands.len();
    if n != mt.rank() + 2 {
        return Err(format!("{} index(es) given for a tag of rank {}", n.saturating_sub(2), mt.rank()));
    }
    Ok(())
}

// ---- custom forms ---------------------------------------------------------------------------

/// `memref.alloc(%d0)[%s0] {alignment = 64} : memref<?x4xf32>`
pub const ALLOC: Syntax = Syntax::custom(parse_alloc, Some(print_alloc));

fn print_alloc(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    let seg =
        m.attr(op, "operandSegmentSizes").and_then(Attribute::as_int_list).unwrap_or(vec![d.operands.len() as i128, 0]);
    let n_dyn = usize::try_from(*seg.first()?).ok()?;
    p.word("(");
    p.values(&d.operands[..n_dyn]);
    p.word(")");
    if n_dyn < d.operands.len() {
        p.word("[");
        p.values(&d.operands[n_dyn..]);
        p.word("]");
    }
    p.attr_dict_except(op, &["operandSegmentSizes"]);
    p.word(" : ");
    p.ty(m.ty(d.results[0]));
    Some(())
}

fn parse_alloc(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let mut dyn_refs = Vec::new();
    let mut sym_refs = Vec::new();
    if p.eat_punct("(")? {
        dyn_refs = p.parse_operand_refs()?;
        p.expect_punct(")")?;
    }
    if p.eat_punct("[")? {
        sym_refs = p.parse_operand_refs()?;
        p.expect_punct("]")?;
    }
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let ty = p.parse_type()?;
    let mut ops = p.resolve_same(&dyn_refs, &Type::Index)?;
    ops.extend(p.resolve_same(&sym_refs, &Type::Index)?);
    let seg = segment_sizes(&[dyn_refs.len(), sym_refs.len()]);
    Ok(with_attrs(spec.operands(ops).results([ty]).attr("operandSegmentSizes", seg), attrs))
}

fn print_dealloc(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    if p.has_other_attrs(op, &[]) {
        return None;
    }
    let v = m.ops[op].operands[0];
    p.value(v);
    p.word(" : ");
    p.ty(m.ty(v));
    Some(())
}

fn parse_dealloc(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let r = p.parse_operand_ref()?;
    p.expect_punct(":")?;
    let ty = p.parse_type()?;
    Ok(spec.operands([p.resolve(&r, &ty)?]))
}

/// `memref.load %m[%i, %j] : memref<4x4xf32>`. The original `load` also reads vectors and
/// tensors, which upstream spells `vector.extractelement` and `tensor.extract`.
pub(crate) fn parse_load(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let m = p.parse_operand_ref()?;
    let idx = parse_index_list(p)?;
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let ty_span = p.peek_span();
    let ty = p.parse_type()?;
    let (name, elem) = match &ty {
        Type::MemRef(mt) => (spec.name.clone(), (*mt.elem).clone()),
        Type::Vector { elem, .. } => ("vector.extractelement".into(), (**elem).clone()),
        Type::Tensor { elem, .. } => ("tensor.extract".into(), (**elem).clone()),
        _ => {
            return Err(Diagnostic::new(
                ty_span,
                format!("'{}' needs a memref, vector or tensor type, not {ty}", spec.name),
            ))
        }
    };
    let m = p.resolve(&m, &ty)?;
    let idx = p.resolve_same(&idx, &Type::Index)?;
    let spec = OpSpec { name, ..spec };
    Ok(with_attrs(spec.operands([m]).operands(idx).results([elem]), attrs))
}

fn print_load(p: &mut OpPrinter, op: OpId) -> Option<()> {
    print_access(p, op, false, false)
}

/// `memref.atomic_rmw addf %v, %m[%i] : (f32, memref<10xf32>) -> f32`
fn parse_atomic_rmw(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let (word, span) = p.expect_ident("an atomic_rmw kind")?;
    let Some(kind) = ATOMIC_RMW_KINDS.iter().position(|(k, _)| *k == word) else {
        return Err(Diagnostic::new(span, format!("unknown atomic_rmw kind '{word}'")));
    };
    let (v, m, idx, attrs) = parse_value_into_element(p)?;
    let ft = parse_fn_type(p)?;
    if ft.inputs.len() != 2 || ft.results.len() != 1 {
        return Err(Diagnostic::new(spec.span, "memref.atomic_rmw's type is (value type, memref type) -> value type"));
    }
    let operands = [p.resolve(&v, &ft.inputs[0])?, p.resolve(&m, &ft.inputs[1])?];
    let idx = p.resolve_same(&idx, &Type::Index)?;
    let spec = spec.operands(operands).operands(idx).results(ft.results).attr("kind", Attribute::i64(kind as i64));
    Ok(with_attrs(spec, attrs))
}

fn print_atomic_rmw(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    let (name, _) = ATOMIC_RMW_KINDS.get(usize::try_from(m.attr(op, "kind").and_then(Attribute::as_int)?).ok()?)?;
    p.word(&format!("{name} "));
    p.value(d.operands[0]);
    p.word(", ");
    p.value(d.operands[1]);
    p.word("[");
    p.values(&d.operands[2..]);
    p.word("]");
    p.attr_dict_except(op, &["kind"]);
    p.word(" : (");
    p.types(&[m.ty(d.operands[0]), m.ty(d.operands[1])]);
    p.word(") -> ");
    p.ty(m.ty(d.results[0]));
    Some(())
}

/// `%v, %m[%i, ...] {attrs} :`, as stores and atomic updates begin.
type ValueIntoElement = (OperandRef, OperandRef, Vec<OperandRef>, Vec<(String, Attribute)>);

fn parse_value_into_element(p: &mut Parser) -> PResult<ValueIntoElement> {
    let v = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let m = p.parse_operand_ref()?;
    let idx = parse_index_list(p)?;
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    Ok((v, m, idx, attrs))
}

/// `memref.store %v, %m[%i] : memref<4xf32>`
fn parse_store(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let (v, m, idx, attrs) = parse_value_into_element(p)?;
    let ty_span = p.peek_span();
    let ty = p.parse_type()?;
    let Type::MemRef(mt) = &ty else {
        return Err(Diagnostic::new(ty_span, format!("'{}' needs a memref type, not {ty}", spec.name)));
    };
    let v = p.resolve(&v, &mt.elem)?;
    let m = p.resolve(&m, &ty)?;
    let idx = p.resolve_same(&idx, &Type::Index)?;
    Ok(with_attrs(spec.operands([v, m]).operands(idx), attrs))
}

fn print_store(p: &mut OpPrinter, op: OpId) -> Option<()> {
    print_access(p, op, true, false)
}

/// The custom form of the loads and stores of memref and vector:
/// `[%value, ]%m[%i, ...] : memref<...>[, vector<...>]`. `stores`: the first operand is the
/// stored value; `vector`: the vector type (stored or loaded) follows the memref's.
pub(crate) fn print_access(p: &mut OpPrinter, op: OpId, stores: bool, vector: bool) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    let base = usize::from(stores);
    if p.has_other_attrs(op, &[]) || d.operands.len() <= base {
        return None;
    }
    if stores {
        p.value(d.operands[0]);
        p.word(", ");
    }
    p.value(d.operands[base]);
    p.word("[");
    p.values(&d.operands[base + 1..]);
    p.word("] : ");
    p.ty(m.ty(d.operands[base]));
    if vector {
        p.word(", ");
        p.ty(if stores { m.ty(d.operands[0]) } else { m.ty(d.results[0]) });
    }
    Some(())
}

/// `memref.dim %m, %c0 : memref<?xf32>` or the original `dim %m, 0 : memref<?xf32>`; on a
/// tensor it is `tensor.dim`.
pub const DIM: Syntax = Syntax::custom(parse_dim, None);

fn parse_dim(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let m = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let index = if let (Tok::Int(_), _) = p.peek()? { Some(p.parse_int("a dimension index")?.0) } else { None };
    let idx_ref = if index.is_none() { Some(p.parse_operand_ref()?) } else { None };
    p.expect_punct(":")?;
    let ty = p.parse_type()?;
    let name = if matches!(ty, Type::Tensor { .. }) { "tensor.dim" } else { "memref.dim" };
    let m = p.resolve(&m, &ty)?;
    let spec = OpSpec { name: name.into(), ..spec }.operands([m]).results([Type::Index]);
    Ok(match (index, idx_ref) {
        (Some(i), _) => spec.attr("index", Attribute::int(i, Type::Index)),
        (None, Some(r)) => spec.operands([p.resolve(&r, &Type::Index)?]),
        (None, None) => unreachable!("one of the two was parsed"),
    })
}

/// `memref.subview %src[offsets][sizes][strides] : T to U`, each entry `%v` or an integer.
fn parse_subview(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let src = p.parse_operand_ref()?;
    let mut lists = Vec::new();
    for _ in 0..3 {
        lists.push(parse_mixed_list(p)?);
    }
    strided_view_rest(p, spec, src, lists)
}

/// `memref.reinterpret_cast %src to offset: [0], sizes: [2, %n], strides: [%n, 1] : T to U`
fn parse_reinterpret_cast(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let src = p.parse_operand_ref()?;
    p.expect_ident_word("to")?;
    let mut lists = Vec::new();
    for (i, word) in ["offset", "sizes", "strides"].iter().enumerate() {
        if i > 0 {
            p.expect_punct(",")?;
        }
        p.expect_ident_word(word)?;
        p.expect_punct(":")?;
        lists.push(parse_mixed_list(p)?);
    }
    strided_view_rest(p, spec, src, lists)
}

/// What follows the offsets, sizes and strides of `subview` and `reinterpret_cast`:
/// `{attrs} : T to U`; builds the operands, the three static lists and their segment sizes.
fn strided_view_rest(p: &mut Parser, spec: OpSpec, src: OperandRef, lists: Vec<MixedList>) -> PResult<OpSpec> {
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let from = p.parse_type()?;
    p.expect_ident_word("to")?;
    let to = p.parse_type()?;
    let mut ops = vec![p.resolve(&src, &from)?];
    let mut seg = vec![1];
    let mut spec = spec;
    for (key, (statics, dyns)) in ["static_offsets", "static_sizes", "static_strides"].iter().zip(lists) {
        seg.push(dyns.len());
        ops.extend(p.resolve_same(&dyns, &Type::Index)?);
        spec = spec.attr(*key, Attribute::DenseArray { elem: Type::i64(), values: statics });
    }
    Ok(with_attrs(spec.operands(ops).results([to]).attr("operandSegmentSizes", segment_sizes(&seg)), attrs))
}

/// `memref.view %buf[%byte_shift][%dyn_sizes] : memref<Nxi8> to memref<?x4xf32>`
fn parse_view(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let src = p.parse_operand_ref()?;
    let shift = parse_index_list(p)?;
    let sizes = parse_index_list(p)?;
    p.expect_punct(":")?;
    let from = p.parse_type()?;
    p.expect_ident_word("to")?;
    let to = p.parse_type()?;
    if shift.len() != 1 {
        return Err(Diagnostic::new(spec.span, "memref.view takes exactly one byte shift"));
    }
    let mut ops = vec![p.resolve(&src, &from)?];
    ops.extend(p.resolve_same(&shift, &Type::Index)?);
    ops.extend(p.resolve_same(&sizes, &Type::Index)?);
    Ok(spec.operands(ops).results([to]))
}

/// `memref.reshape %src(%shape) : (memref<4x1xf32>, memref<1xindex>) -> memref<4xf32>`
fn parse_reshape(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let src = p.parse_operand_ref()?;
    p.expect_punct("(")?;
    let shape = p.parse_operand_ref()?;
    p.expect_punct(")")?;
    p.expect_punct(":")?;
    let ft = parse_fn_type(p)?;
    if ft.inputs.len() != 2 || ft.results.len() != 1 {
        return Err(Diagnostic::new(spec.span, "memref.reshape's type is (source, shape) -> result"));
    }
    let ops = vec![p.resolve(&src, &ft.inputs[0])?, p.resolve(&shape, &ft.inputs[1])?];
    Ok(spec.operands(ops).results(ft.results))
}

/// `memref.copy %src, %dst : memref<4xf32> to memref<4xf32>`
fn parse_copy(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let a = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let b = p.parse_operand_ref()?;
    p.expect_punct(":")?;
    let from = p.parse_type()?;
    p.expect_ident_word("to")?;
    let to = p.parse_type()?;
    let ops = vec![p.resolve(&a, &from)?, p.resolve(&b, &to)?];
    Ok(spec.operands(ops))
}

fn print_get_global(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    if p.has_other_attrs(op, &["name"]) {
        return None;
    }
    p.word(&crate::attributes::format_symbol(m.attr(op, "name")?.as_symbol()?));
    p.word(" : ");
    p.ty(m.ty(m.ops[op].results[0]));
    Some(())
}

/// `memref.view %buf[%shift][%sizes] : memref<Nxi8> to memref<...>`
fn print_view(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    if p.has_other_attrs(op, &[]) || d.operands.len() < 2 {
        return None;
    }
    p.value(d.operands[0]);
    p.word("[");
    p.value(d.operands[1]);
    p.word("][");
    p.values(&d.operands[2..]);
    p.word("] : ");
    p.ty(m.ty(d.operands[0]));
    p.word(" to ");
    p.ty(m.ty(d.results[0]));
    Some(())
}

fn parse_get_global(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let (sym, _) = p.expect_symbol()?;
    p.expect_punct(":")?;
    let ty = p.parse_type()?;
    Ok(spec.results([ty]).attr("name", Attribute::symbol(sym)))
}

/// `memref.global "private" constant @w : memref<4xf32> = dense<...>`
fn parse_global(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let mut spec = spec;
    if let (Tok::Str(vis), _) = p.peek()? {
        p.next()?;
        spec = spec.attr("sym_visibility", Attribute::String(vis));
    }
    if p.eat_ident("constant")? {
        spec = spec.attr("constant", Attribute::Unit);
    }
    let (sym, _) = p.expect_symbol()?;
    p.expect_punct(":")?;
    let ty = p.parse_type()?;
    spec = spec.attr("sym_name", Attribute::String(sym)).attr("type", Attribute::Type(ty));
    if p.eat_punct("=")? {
        spec = spec.attr("initial_value", p.parse_attribute()?);
    }
    Ok(spec)
}

/// `memref.dma_start %src[%i], %dst[%j], %n, %tag[%k] [, %stride, %per] : T1, T2, T3`
fn parse_dma_start(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let src = p.parse_operand_ref()?;
    let src_idx = parse_index_list(p)?;
    p.expect_punct(",")?;
    let dst = p.parse_operand_ref()?;
    let dst_idx = parse_index_list(p)?;
    p.expect_punct(",")?;
    let num = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let tag = p.parse_operand_ref()?;
    let tag_idx = parse_index_list(p)?;
    let mut stride = Vec::new();
    if p.eat_punct(",")? {
        stride = p.parse_operand_refs()?;
    }
    p.expect_punct(":")?;
    let types = p.parse_type_list_no_parens()?;
    if types.len() != 3 {
        return Err(Diagnostic::new(spec.span, "dma_start lists three memref types: source, destination and tag"));
    }
    let mut ops = vec![p.resolve(&src, &types[0])?];
    ops.extend(p.resolve_same(&src_idx, &Type::Index)?);
    ops.push(p.resolve(&dst, &types[1])?);
    ops.extend(p.resolve_same(&dst_idx, &Type::Index)?);
    ops.push(p.resolve(&num, &Type::Index)?);
    ops.push(p.resolve(&tag, &types[2])?);
    ops.extend(p.resolve_same(&tag_idx, &Type::Index)?);
    ops.extend(p.resolve_same(&stride, &Type::Index)?);
    Ok(spec.operands(ops))
}

/// `memref.dma_wait %tag[%i], %n : memref<1xi32>`
fn parse_dma_wait(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let tag = p.parse_operand_ref()?;
    let tag_idx = parse_index_list(p)?;
    p.expect_punct(",")?;
    let num = p.parse_operand_ref()?;
    p.expect_punct(":")?;
    let ty = p.parse_type()?;
    let mut ops = vec![p.resolve(&tag, &ty)?];
    ops.extend(p.resolve_same(&tag_idx, &Type::Index)?);
    ops.push(p.resolve(&num, &Type::Index)?);
    Ok(spec.operands(ops))
}

/// A static `memref.reinterpret_cast` (offset 0) as the ONNX frontend and the kernel lowering
/// build it: the same buffer seen with `shape` and row-major strides.
pub fn reinterpret_spec(source: crate::ValueId, to: &MemRefType, span: crate::Span) -> OpSpec {
    let sizes: Vec<i64> = to.shape.iter().map(|d| d.map(|d| d as i64).unwrap_or(i64::MIN)).collect();
    let (strides, offset) = to.strides_and_offset().unwrap_or_default();
    let strides: Vec<i64> = strides.iter().map(|s| s.unwrap_or(i64::MIN)).collect();
    OpSpec::new("memref.reinterpret_cast", span)
        .operands([source])
        .results([Type::MemRef(to.clone())])
        .attr("static_offsets", i64_array(&[offset.unwrap_or(0)]))
        .attr("static_sizes", i64_array(&sizes))
        .attr("static_strides", i64_array(&strides))
        .attr("operandSegmentSizes", segment_sizes(&[1, 0, 0, 0]))
}
