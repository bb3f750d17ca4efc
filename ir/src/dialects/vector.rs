//! `vector`: fixed-size vectors, their loads and stores (masked too), element access, broadcasts and
//! reductions (the original specification's `extract_element` on a vector parses into
//! `vector.extractelement`).

use super::constraints::{self as c, operand_types, result_types};
use crate::attributes::Attribute;
use crate::diagnostics::Diagnostic;
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{optional, required, AttrKind, Count, OpDef, Syntax, Traits};
use crate::parser::forms::{parse_index_list, parse_mixed_list, parse_opt_attr_dict, with_attrs, DYNAMIC, TERNARY};
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::Type;

/// The reduction kinds `vector.reduction` accepts.
pub const REDUCTION_KINDS: &[&str] = &[
    "add", "mul", "maxnumf", "minnumf", "maximumf", "minimumf", "maxsi", "minsi", "maxui", "minui", "and", "or", "xor",
];

pub const OPS: &[OpDef] = &[
    OpDef::new("vector.broadcast", "a scalar (or vector) repeated to fill a vector")
        .operands(1)
        .results(1)
        .pure()
        .verify(verify_broadcast)
        .syntax(crate::parser::forms::CAST),
    OpDef::new("vector.splat", "a scalar repeated to fill a vector (MLIR 21's spelling; read as vector.broadcast)")
        .operands(1)
        .results(1)
        .pure()
        .verify(verify_splat)
        .syntax(Syntax::custom(parse_splat, Some(print_splat))),
    OpDef::new("vector.extract", "an element at a static or dynamic position")
        .operand_count(Count::AtLeast(1))
        .results(1)
        .attrs(&[required("static_position", AttrKind::IntList)])
        .pure()
        .verify(verify_extract)
        .syntax(Syntax::custom(parse_extract_insert, None)),
    OpDef::new("vector.insert", "a vector with one element replaced")
        .operand_count(Count::AtLeast(2))
        .results(1)
        .attrs(&[required("static_position", AttrKind::IntList)])
        .pure()
        .verify(verify_insert)
        .syntax(Syntax::custom(parse_extract_insert, None)),
    OpDef::new("vector.extractelement", "an element at a dynamic position (one index per dimension)")
        .operand_count(Count::AtLeast(1))
        .results(1)
        .pure()
        .verify(verify_extractelement)
        .syntax(Syntax::custom(parse_extractelement, None)),
    OpDef::new("vector.insertelement", "a 1-D vector with the element at a dynamic position replaced")
        .operand_count(Count::Between(2, 3))
        .results(1)
        .pure()
        .verify(verify_insertelement)
        .syntax(Syntax::custom(parse_insertelement, None)),
    OpDef::new("vector.load", "a vector read from consecutive elements of a memref")
        .operand_count(Count::AtLeast(1))
        .results(1)
        .traits(Traits::READS)
        .verify(verify_load)
        .syntax(Syntax::custom(parse_load, Some(print_load))),
    OpDef::new("vector.store", "a vector written to consecutive elements of a memref")
        .operand_count(Count::AtLeast(2))
        .traits(Traits::WRITES)
        .verify(verify_store)
        .syntax(Syntax::custom(parse_store, Some(print_store))),
    OpDef::new("vector.create_mask", "a mask whose lanes below the operands (one per dimension) are set")
        .operand_count(Count::AtLeast(1))
        .results(1)
        .pure()
        .verify(verify_create_mask)
        .syntax(Syntax::custom(parse_create_mask, None)),
    OpDef::new(
        "vector.maskedload",
        "a vector read from consecutive elements where the mask is set, else the pass-through lane",
    )
    .operand_count(Count::AtLeast(3))
    .results(1)
    .traits(Traits::READS)
    .verify(verify_maskedload)
    .syntax(Syntax::custom(parse_masked, None)),
    OpDef::new("vector.maskedstore", "a vector written to consecutive elements where the mask is set")
        .operand_count(Count::AtLeast(3))
        .traits(Traits::WRITES)
        .verify(verify_maskedstore)
        .syntax(Syntax::custom(parse_masked, None)),
    OpDef::new("vector.shuffle", "lanes picked from two 1-D vectors by a constant mask")
        .operands(2)
        .results(1)
        .attrs(&[required("mask", AttrKind::IntList)])
        .pure()
        .verify(c::shuffle)
        .syntax(Syntax::custom(parse_shuffle, None)),
    OpDef::new("vector.fma", "a * b + c per lane, fused where the target can")
        .operands(3)
        .results(1)
        .pure()
        .verify(c::same_float_like)
        .syntax(TERNARY),
    OpDef::new("vector.reduction", "combines the lanes of a vector")
        .operands(1)
        .results(1)
        .attrs(&[required("kind", AttrKind::Any), optional("fastmath", AttrKind::Any)])
        .pure()
        .verify(verify_reduction)
        .syntax(Syntax::custom(parse_reduction, None)),
];

fn vector_parts(t: &Type) -> Option<(&[u64], &Type)> {
    match t {
        Type::Vector { shape, elem } => Some((shape, elem)),
        _ => None,
    }
}

fn verify_broadcast(m: &Module, op: OpId) -> Result<(), String> {
    let (from, to) = (operand_types(m, op)[0], result_types(m, op)[0]);
    let Some((_, elem)) = vector_parts(to) else { return Err(format!("the result must be a vector, not {to}")) };
    if from.element_or_self() != elem {
        return Err(format!("cannot broadcast {from} to {to}"));
    }
    Ok(())
}

/// The static position against the vector's shape: in range, dynamic entries matching operands.
fn check_position(m: &Module, op: OpId, vector: &Type, dynamic_operands: usize) -> Result<Type, String> {
    let Some((shape, elem)) = vector_parts(vector) else { return Err(format!("needs a vector, not {vector}")) };
    let pos = m.attr(op, "static_position").and_then(Attribute::as_int_list).expect("checked by the table");
    if pos.len() > shape.len() {
        return Err(format!("position of {} entries for a vector of rank {}", pos.len(), shape.len()));
    }
    for (&p, &d) in pos.iter().zip(shape) {
        if p != DYNAMIC && (p < 0 || p >= d as i128) {
            return Err(format!("position {p} is out of range for a dimension of size {d}"));
        }
    }
    if pos.iter().filter(|&&p| p == DYNAMIC).count() != dynamic_operands {
        return Err("the dynamic positions do not match the index operands".into());
    }
    Ok(if pos.len() == shape.len() {
        elem.clone()
    } else {
        Type::Vector { shape: shape[pos.len()..].to_vec(), elem: Box::new(elem.clone()) }
    })
}

fn verify_extract(m: &Module, op: OpId) -> Result<(), String> {
    let ins = operand_types(m, op);
    let want = check_position(m, op, ins[0], ins.len() - 1)?;
    if result_types(m, op)[0] != &want {
        return Err(format!("the result must be {want}"));
    }
    Ok(())
}

fn verify_insert(m: &Module, op: OpId) -> Result<(), String> {
    let ins = operand_types(m, op);
    let want = check_position(m, op, ins[1], ins.len() - 2)?;
    if ins[0] != &want || result_types(m, op)[0] != ins[1] {
        return Err(format!("inserts a {want} into {} giving the same type", ins[1]));
    }
    Ok(())
}

fn verify_extractelement(m: &Module, op: OpId) -> Result<(), String> {
    let ins = operand_types(m, op);
    let Some((_, elem)) = vector_parts(ins[0]) else { return Err(format!("needs a vector, not {}", ins[0])) };
    if result_types(m, op)[0] != elem {
        return Err(format!("the result must be {elem}"));
    }
    Ok(())
}

fn verify_insertelement(m: &Module, op: OpId) -> Result<(), String> {
    let ins = operand_types(m, op);
    let Some((_, elem)) = vector_parts(ins[1]) else { return Err(format!("needs a vector, not {}", ins[1])) };
    if ins[0] != elem || result_types(m, op)[0] != ins[1] {
        return Err(format!("inserts a {elem} into {}", ins[1]));
    }
    Ok(())
}

fn verify_access(m: &Module, op: OpId, memref_at: usize, vector: &Type) -> Result<(), String> {
    verify_access_with(m, op, memref_at, vector, 0)
}

/// The memref at `memref_at`, then its indices, then `trailing` other operands.
fn verify_access_with(m: &Module, op: OpId, memref_at: usize, vector: &Type, trailing: usize) -> Result<(), String> {
    let ins = operand_types(m, op);
    let Some(mt) = ins[memref_at].as_memref() else { return Err("needs a memref operand".into()) };
    let Some((_, elem)) = vector_parts(vector) else { return Err("needs a vector type".into()) };
    if *elem != *mt.elem {
        return Err(format!("vector elements {elem} differ from memref elements {}", mt.elem));
    }
    if ins.len() < memref_at + 1 + trailing || ins.len() - memref_at - 1 - trailing != mt.rank() {
        return Err("index count does not match the memref's rank".into());
    }
    Ok(())
}

fn verify_load(m: &Module, op: OpId) -> Result<(), String> {
    verify_access(m, op, 0, result_types(m, op)[0])
}

fn verify_store(m: &Module, op: OpId) -> Result<(), String> {
    verify_access(m, op, 1, operand_types(m, op)[0])
}

fn verify_create_mask(m: &Module, op: OpId) -> Result<(), String> {
    let r = result_types(m, op)[0];
    match vector_parts(r) {
        Some((shape, elem)) if *elem == Type::i1() && shape.len() == m.ops[op].operands.len() => {}
        _ => return Err(format!("the result must be a vector of i1 with one operand per dimension, not {r}")),
    }
    if operand_types(m, op).iter().any(|t| **t != Type::Index) {
        return Err("the lane counts must be indices".into());
    }
    Ok(())
}

/// A masked access's mask and value against its memref: the mask is `i1` in the value's shape.
fn verify_masked(m: &Module, op: OpId, value: &Type) -> Result<(), String> {
    verify_access_with(m, op, 0, value, 2)?;
    let ins = operand_types(m, op);
    let mask = ins[ins.len() - 2];
    let (Some((ms, me)), Some((vs, _))) = (vector_parts(mask), vector_parts(value)) else {
        return Err("needs a vector mask".into());
    };
    if *me != Type::i1() || ms != vs {
        return Err(format!("the mask must be i1 in the shape of {value}, not {mask}"));
    }
    Ok(())
}

fn verify_maskedload(m: &Module, op: OpId) -> Result<(), String> {
    let r = result_types(m, op)[0];
    verify_masked(m, op, r)?;
    let pass = *operand_types(m, op).last().expect("three or more operands");
    if pass != r {
        return Err(format!("the pass-through {pass} must have the result's type {r}"));
    }
    Ok(())
}

fn verify_maskedstore(m: &Module, op: OpId) -> Result<(), String> {
    let value = *operand_types(m, op).last().expect("three or more operands");
    verify_masked(m, op, value)
}

fn verify_reduction(m: &Module, op: OpId) -> Result<(), String> {
    let kind = reduction_kind(m, op).ok_or("needs a reduction kind")?;
    if !REDUCTION_KINDS.contains(&kind.as_str()) {
        return Err(format!("unknown reduction kind '{kind}'"));
    }
    let (v, r) = (operand_types(m, op)[0], result_types(m, op)[0]);
    match vector_parts(v) {
        Some((_, elem)) if elem == r => Ok(()),
        _ => Err(format!("reduces a vector to its element type, not {v} to {r}")),
    }
}

/// `#vector.kind<add>`, or a plain string in hand-written generic form.
pub fn reduction_kind(m: &Module, op: OpId) -> Option<String> {
    match m.attr(op, "kind")? {
        Attribute::Opaque(s) => Some(s.trim_start_matches("#vector.kind<").trim_end_matches('>').to_string()),
        Attribute::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// `vector.extract %v[1, %i] : f32 from vector<2x4xf32>`, `vector.insert %s, %v[2] : f32 into vector<4xf32>`
fn parse_extract_insert(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let is_insert = spec.name == "vector.insert";
    let s = if is_insert {
        let s = p.parse_operand_ref()?;
        p.expect_punct(",")?;
        Some(s)
    } else {
        None
    };
    let v = p.parse_operand_ref()?;
    let (statics, dyns) = parse_mixed_list(p)?;
    p.expect_punct(":")?;
    let et = p.parse_type()?;
    p.expect_ident_word(if is_insert { "into" } else { "from" })?;
    let vt = p.parse_type()?;
    let mut ops = Vec::new();
    if let Some(s) = &s {
        ops.push(p.resolve(s, &et)?);
    }
    ops.push(p.resolve(&v, &vt)?);
    ops.extend(p.resolve_same(&dyns, &Type::Index)?);
    let result = if is_insert { vt } else { et };
    Ok(spec
        .operands(ops)
        .results([result])
        .attr("static_position", Attribute::DenseArray { elem: Type::i64(), values: statics }))
}

/// `vector.extractelement %v[%i : index] : vector<4xf32>`, or the original spelling's
/// `extract_element %v[%i] : vector<4xf32>`.
fn parse_extractelement(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let v = p.parse_operand_ref()?;
    p.expect_punct("[")?;
    let idx = p.parse_operand_refs()?;
    let it = if p.eat_punct(":")? { p.parse_type()? } else { Type::Index };
    p.expect_punct("]")?;
    p.expect_punct(":")?;
    let vt = p.parse_type()?;
    let elem = vt.element_or_self().clone();
    let name = if matches!(vt, Type::Tensor { .. }) { "tensor.extract" } else { "vector.extractelement" };
    let mut ops = vec![p.resolve(&v, &vt)?];
    ops.extend(p.resolve_same(&idx, &it)?);
    Ok(OpSpec { name: name.into(), ..spec }.operands(ops).results([elem]))
}

/// `vector.insertelement %s, %v[%i : index] : vector<4xf32>`
fn parse_insertelement(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let s = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let v = p.parse_operand_ref()?;
    p.expect_punct("[")?;
    let i = p.parse_operand_ref()?;
    p.expect_punct(":")?;
    let it = p.parse_type()?;
    p.expect_punct("]")?;
    p.expect_punct(":")?;
    let vt = p.parse_type()?;
    let elem = vt.element_or_self().clone();
    let ops = vec![p.resolve(&s, &elem)?, p.resolve(&v, &vt)?, p.resolve(&i, &it)?];
    Ok(spec.operands(ops).results([vt]))
}

fn print_load(p: &mut OpPrinter, op: OpId) -> Option<()> {
    super::memref::print_access(p, op, false, true)
}

fn print_store(p: &mut OpPrinter, op: OpId) -> Option<()> {
    super::memref::print_access(p, op, true, true)
}

/// `vector.load %m[%i] : memref<8xf32>, vector<4xf32>`
fn parse_load(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let m = p.parse_operand_ref()?;
    let idx = parse_index_list(p)?;
    p.expect_punct(":")?;
    let mt = p.parse_type()?;
    p.expect_punct(",")?;
    let vt = p.parse_type()?;
    let mut ops = vec![p.resolve(&m, &mt)?];
    ops.extend(p.resolve_same(&idx, &Type::Index)?);
    Ok(spec.operands(ops).results([vt]))
}

/// `vector.store %v, %m[%i] : memref<8xf32>, vector<4xf32>`
fn parse_store(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let v = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let m = p.parse_operand_ref()?;
    let idx = parse_index_list(p)?;
    p.expect_punct(":")?;
    let mt = p.parse_type()?;
    p.expect_punct(",")?;
    let vt = p.parse_type()?;
    let mut ops = vec![p.resolve(&v, &vt)?, p.resolve(&m, &mt)?];
    ops.extend(p.resolve_same(&idx, &Type::Index)?);
    Ok(spec.operands(ops))
}

/// `vector.shuffle %a, %b [0, 2, 4] : vector<4xf32>, vector<4xf32>`
fn parse_shuffle(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let a = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let b = p.parse_operand_ref()?;
    // The mask: constant lane numbers, `[0, 2, ...]`.
    p.expect_punct("[")?;
    let mut mask = Vec::new();
    while !p.eat_punct("]")? {
        if !mask.is_empty() {
            p.expect_punct(",")?;
        }
        mask.push(p.parse_int("a constant lane number")?.0);
    }
    p.expect_punct(":")?;
    let at = p.parse_type()?;
    p.expect_punct(",")?;
    let bt = p.parse_type()?;
    let elem = at.element_or_self().clone();
    let rt = Type::Vector { shape: vec![mask.len() as u64], elem: Box::new(elem) };
    Ok(spec
        .operands([p.resolve(&a, &at)?, p.resolve(&b, &bt)?])
        .results([rt])
        .attr("mask", Attribute::DenseArray { elem: Type::i64(), values: mask }))
}

/// `vector.create_mask %n : vector<16xi1>`
fn parse_create_mask(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let counts = p.parse_operand_refs()?;
    p.expect_punct(":")?;
    let vt = p.parse_type()?;
    Ok(spec.operands(p.resolve_same(&counts, &Type::Index)?).results([vt]))
}

/// `vector.maskedload %m[%i], %mask, %pass : memref<?xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>`,
/// `vector.maskedstore %m[%i], %mask, %v : memref<?xf32>, vector<16xi1>, vector<16xf32>`
fn parse_masked(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let m = p.parse_operand_ref()?;
    let idx = parse_index_list(p)?;
    p.expect_punct(",")?;
    let mask = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let value = p.parse_operand_ref()?;
    p.expect_punct(":")?;
    let mt = p.parse_type()?;
    p.expect_punct(",")?;
    let mask_t = p.parse_type()?;
    p.expect_punct(",")?;
    let vt = p.parse_type()?;
    let mut ops = vec![p.resolve(&m, &mt)?];
    ops.extend(p.resolve_same(&idx, &Type::Index)?);
    ops.push(p.resolve(&mask, &mask_t)?);
    ops.push(p.resolve(&value, &vt)?);
    if spec.name == "vector.maskedload" {
        p.expect_ident_word("into")?;
        let rt = p.parse_type()?;
        return Ok(spec.operands(ops).results([rt]));
    }
    Ok(spec.operands(ops))
}

/// `vector.reduction <add>, %v : vector<4xf32> into f32`
fn parse_reduction(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    p.expect_punct("<")?;
    let (kind, _) = p.expect_ident("a reduction kind")?;
    p.expect_punct(">")?;
    p.expect_punct(",")?;
    let v = p.parse_operand_ref()?;
    p.expect_punct(":")?;
    let vt = p.parse_type()?;
    p.expect_ident_word("into")?;
    let rt = p.parse_type()?;
    Ok(spec
        .operands([p.resolve(&v, &vt)?])
        .results([rt])
        .attr("kind", Attribute::Opaque(format!("#vector.kind<{kind}>"))))
}

fn verify_splat(m: &Module, op: OpId) -> Result<(), String> {
    let (x, r) = (operand_types(m, op)[0], result_types(m, op)[0]);
    match r {
        Type::Vector { elem, .. } if **elem == *x => Ok(()),
        _ => Err(format!("fills a vector of {x}, not {r}")),
    }
}

/// `vector.splat %x : vector<4xf32>`, read as `vector.broadcast %x : f32 to vector<4xf32>`.
fn parse_splat(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let x = p.parse_operand_ref()?;
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let span = p.peek_span();
    let t = p.parse_type()?;
    let Type::Vector { elem, .. } = &t else {
        return Err(Diagnostic::new(span, format!("vector.splat gives a vector, not {t}")));
    };
    // MLIR 22 spells it vector.broadcast (and no longer reads vector.splat): read as that.
    let spec = OpSpec { name: "vector.broadcast".into(), ..spec };
    let spec = spec.operands([p.resolve(&x, elem)?]).results([t.clone()]);
    Ok(with_attrs(spec, attrs))
}

fn print_splat(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    p.value(d.operands[0]);
    p.attr_dict_except(op, &[]);
    p.word(" : ");
    p.ty(m.ty(d.results[0]));
    Some(())
}
