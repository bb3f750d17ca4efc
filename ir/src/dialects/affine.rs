//! `affine`: loops, conditionals and accesses whose bounds and indices are affine functions of
//! loop variables and symbols (the original specification's `for`, `if` and `affine_apply` parse
//! into these). `lower-affine` turns them into `scf` and `arith`.

use super::constraints::{operand_types, yields_parent_results};
use super::scf::{parse_iter_args, IterArgs};
use crate::affine::{AffineMap, IntegerSet};
use crate::attributes::Attribute;
use crate::diagnostics::{Diagnostic, Span};
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{required, AttrKind, Count, OpDef, ParseFn, Segment, Syntax, Traits, VerifyFn};
use crate::parser::forms::{ensure_terminator, parse_dims_and_symbols, segment_sizes, RETURN};
use crate::parser::lexer::Tok;
use crate::parser::{OperandRef, PResult, Parser};
use crate::types::Type;

const FOR_SEGMENTS: &[Segment] =
    &[Segment::Variadic("lowerBoundOperands"), Segment::Variadic("upperBoundOperands"), Segment::Variadic("inits")];

/// An op that evaluates its `map` on index operands and gives one index.
const fn map_op(name: &'static str, summary: &'static str, rule: VerifyFn, parse: ParseFn) -> OpDef {
    OpDef::new(name, summary)
        .operand_count(Count::AtLeast(0))
        .results(1)
        .attrs(MAP)
        .pure()
        .verify(rule)
        .syntax(Syntax::custom(parse, None))
}

const MAP: &[crate::op_def::AttrDef] = &[required("map", AttrKind::AffineMap)];

pub const OPS: &[OpDef] = &[
    map_op("affine.apply", "evaluates a one-result affine map", verify_apply, parse_apply),
    map_op("affine.min", "the least of an affine map's results", verify_min_max, parse_min_max),
    map_op("affine.max", "the greatest of an affine map's results", verify_min_max, parse_min_max),
    OpDef::new("affine.for", "a loop with affine bounds (max of lower, min of upper bound results)")
        .operand_count(Count::Segments(FOR_SEGMENTS))
        .result_count(Count::AtLeast(0))
        .regions(Count::Exactly(1))
        .attrs(&[
            required("lowerBoundMap", AttrKind::AffineMap),
            required("upperBoundMap", AttrKind::AffineMap),
            required("step", AttrKind::Integer),
        ])
        .traits(Traits::IMPLICIT_TERMINATOR.union(Traits::RECURSIVE_EFFECTS))
        .verify(verify_for)
        .syntax(Syntax::custom(parse_for, None)),
    OpDef::new("affine.if", "a conditional on an integer set")
        .operand_count(Count::AtLeast(0))
        .result_count(Count::AtLeast(0))
        .regions(Count::Exactly(2))
        .attrs(&[required("condition", AttrKind::IntegerSet)])
        .traits(Traits::IMPLICIT_TERMINATOR.union(Traits::RECURSIVE_EFFECTS))
        .verify(verify_if)
        .syntax(Syntax::custom(parse_if, None)),
    OpDef::new("affine.yield", "ends an affine.for or affine.if region")
        .operand_count(Count::AtLeast(0))
        .traits(Traits::TERMINATOR.union(Traits::RETURN_LIKE).union(Traits::PURE))
        .parents(&["affine.for", "affine.if"])
        .verify(yields_parent_results)
        .syntax(RETURN),
    OpDef::new("affine.load", "reads the element at an affine map of the indices")
        .operand_count(Count::AtLeast(1))
        .results(1)
        .attrs(&[required("map", AttrKind::AffineMap)])
        .traits(Traits::READS)
        .verify(verify_load)
        .syntax(Syntax::custom(parse_access, None)),
    OpDef::new("affine.store", "writes the element at an affine map of the indices")
        .operand_count(Count::AtLeast(2))
        .attrs(&[required("map", AttrKind::AffineMap)])
        .traits(Traits::WRITES)
        .verify(verify_store)
        .syntax(Syntax::custom(parse_access, None)),
];

fn map_attr<'m>(m: &'m Module, op: OpId, key: &str) -> &'m AffineMap {
    m.attr(op, key).and_then(Attribute::as_affine_map).expect("checked by the table")
}

fn check_map_inputs(map: &AffineMap, given: usize, what: &str) -> Result<(), String> {
    let want = (map.num_dims + map.num_symbols) as usize;
    if want != given {
        return Err(format!("{what}'s map takes {want} operand(s), but {given} are given"));
    }
    Ok(())
}

fn verify_index_operands(m: &Module, op: OpId, from: usize) -> Result<(), String> {
    match operand_types(m, op)[from..].iter().find(|t| !t.is_index()) {
        Some(t) => Err(format!("map operands must be index values, found {t}")),
        None => Ok(()),
    }
}

fn verify_apply(m: &Module, op: OpId) -> Result<(), String> {
    let map = map_attr(m, op, "map");
    if map.results.len() != 1 {
        return Err("needs a map with exactly one result".into());
    }
    check_map_inputs(map, m.ops[op].operands.len(), "the")?;
    verify_index_operands(m, op, 0)
}

fn verify_min_max(m: &Module, op: OpId) -> Result<(), String> {
    let map = map_attr(m, op, "map");
    if map.results.is_empty() {
        return Err("needs a map with at least one result".into());
    }
    check_map_inputs(map, m.ops[op].operands.len(), "the")?;
    verify_index_operands(m, op, 0)
}

fn verify_for(m: &Module, op: OpId) -> Result<(), String> {
    let seg = m.attr(op, "operandSegmentSizes").and_then(Attribute::as_int_list).expect("checked by the table");
    check_map_inputs(map_attr(m, op, "lowerBoundMap"), seg[0] as usize, "the lower bound")?;
    check_map_inputs(map_attr(m, op, "upperBoundMap"), seg[1] as usize, "the upper bound")?;
    if m.attr(op, "step").and_then(Attribute::as_int).is_some_and(|s| s <= 0) {
        return Err("the step must be positive".into());
    }
    let inits = &operand_types(m, op)[(seg[0] + seg[1]) as usize..];
    let results: Vec<&Type> = m.ops[op].results.iter().map(|&v| m.ty(v)).collect();
    if inits != results {
        return Err("the initial values and the results must have the same types".into());
    }
    Ok(())
}

fn verify_if(m: &Module, op: OpId) -> Result<(), String> {
    let Some(Attribute::IntegerSet(set)) = m.attr(op, "condition") else { unreachable!("checked by the table") };
    let want = (set.num_dims + set.num_symbols) as usize;
    if want != m.ops[op].operands.len() {
        return Err(format!("the condition takes {want} operand(s), but {} are given", m.ops[op].operands.len()));
    }
    verify_index_operands(m, op, 0)
}

fn verify_access(m: &Module, op: OpId, memref_at: usize) -> Result<(), String> {
    let Some(mt) = operand_types(m, op)[memref_at].as_memref() else { return Err("needs a memref operand".into()) };
    let map = map_attr(m, op, "map");
    if map.results.len() != mt.rank() {
        return Err(format!("the map gives {} index(es) for a memref of rank {}", map.results.len(), mt.rank()));
    }
    check_map_inputs(map, m.ops[op].operands.len() - memref_at - 1, "the access")?;
    verify_index_operands(m, op, memref_at + 1)?;
    Ok(())
}

fn verify_load(m: &Module, op: OpId) -> Result<(), String> {
    verify_access(m, op, 0)?;
    let elem = &operand_types(m, op)[0].as_memref().expect("checked").elem;
    if m.ty(m.ops[op].results[0]) != &**elem {
        return Err(format!("the result must be the element type {elem}"));
    }
    Ok(())
}

fn verify_store(m: &Module, op: OpId) -> Result<(), String> {
    verify_access(m, op, 1)?;
    let ins = operand_types(m, op);
    let elem = &ins[1].as_memref().expect("checked").elem;
    if ins[0] != &**elem {
        return Err(format!("stores a {} into a memref of {elem}", ins[0]));
    }
    Ok(())
}

/// `#alias`, `affine_map<...>` or an inline map in the original spelling.
fn parse_map_operand(p: &mut Parser) -> PResult<AffineMap> {
    let span = p.peek_span();
    match p.parse_attribute()? {
        Attribute::AffineMap(m) => Ok(m),
        _ => Err(Diagnostic::new(span, "expected an affine map")),
    }
}

fn check_map_arity(map: &AffineMap, dims: usize, syms: usize, span: Span) -> PResult<()> {
    check_arity("affine map", (map.num_dims, map.num_symbols), dims, syms, span)
}

fn check_set_arity(set: &IntegerSet, dims: usize, syms: usize, span: Span) -> PResult<()> {
    check_arity("integer set", (set.num_dims, set.num_symbols), dims, syms, span)
}

/// The map's or set's dimension and symbol counts against the operands given for them.
fn check_arity(what: &str, (num_dims, num_symbols): (u32, u32), dims: usize, syms: usize, span: Span) -> PResult<()> {
    if num_dims as usize != dims || num_symbols as usize != syms {
        return Err(Diagnostic::new(
            span,
            format!(
                "the {what} takes {num_dims} dimension(s) and {num_symbols} symbol(s), but {dims} and {syms} are given"
            ),
        ));
    }
    Ok(())
}

/// `affine.apply #map(%d)[%s]`
fn parse_apply(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let span = spec.span;
    let spec = parse_min_max(p, spec)?;
    if spec.attrs.iter().any(|(k, v)| k == "map" && v.as_affine_map().is_some_and(|m| m.results.len() != 1)) {
        return Err(Diagnostic::new(span, "affine.apply needs a map with exactly one result"));
    }
    Ok(spec)
}

/// `affine.min #map(%d)[%s]` and `affine.max`, over all the map's results (and `affine.apply`,
/// whose map has one).
fn parse_min_max(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let map = parse_map_operand(p)?;
    let (dims, syms) = parse_dims_and_symbols(p)?;
    check_map_arity(&map, dims.len(), syms.len(), spec.span)?;
    let mut ops = p.resolve_same(&dims, &Type::Index)?;
    ops.extend(p.resolve_same(&syms, &Type::Index)?);
    Ok(spec.operands(ops).results([Type::Index]).attr("map", Attribute::AffineMap(map)))
}

/// A bound of `affine.for`: `%N`, `-42`, `#map(%a)[%b]`, `max #map(...)`, or an inline map.
fn parse_bound(p: &mut Parser, keyword: &str) -> PResult<(AffineMap, Vec<OperandRef>, Vec<OperandRef>)> {
    let span = p.peek_span();
    p.eat_ident(keyword)?;
    match p.peek()? {
        (Tok::Percent(_), _) => {
            let r = p.parse_operand_ref()?;
            Ok((AffineMap::single_symbol(), Vec::new(), vec![r]))
        }
        (Tok::Int(_), _) | (Tok::Punct("-"), _) => {
            let (v, _) = p.parse_int("a loop bound")?;
            Ok((AffineMap::constant(v as i64), Vec::new(), Vec::new()))
        }
        _ => {
            let map = parse_map_operand(p)?;
            let (d, s) = parse_dims_and_symbols(p)?;
            check_map_arity(&map, d.len(), s.len(), span)?;
            Ok((map, d, s))
        }
    }
}

/// `affine.for %i = lb to ub [step N] [iter_args(...) -> (...)] { ... }` (`for` in the original).
fn parse_for(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let iv = p.parse_operand_ref()?;
    p.expect_punct("=")?;
    let (lb_map, lb_d, lb_s) = parse_bound(p, "max")?;
    p.expect_ident_word("to")?;
    let (ub_map, ub_d, ub_s) = parse_bound(p, "min")?;
    let mut step = 1;
    if p.eat_ident("step")? {
        let (s, sspan) = p.parse_int("a step")?;
        if s <= 0 {
            return Err(Diagnostic::new(sspan, "the step of a loop must be positive"));
        }
        step = s;
    }
    let IterArgs { names, inits, types } = parse_iter_args(p)?;
    let mut ops = p.resolve_same(&lb_d, &Type::Index)?;
    ops.extend(p.resolve_same(&lb_s, &Type::Index)?);
    ops.extend(p.resolve_same(&ub_d, &Type::Index)?);
    ops.extend(p.resolve_same(&ub_s, &Type::Index)?);
    ops.extend(p.resolve_all(&inits, &types)?);
    let mut entry = vec![(iv.name.clone(), Type::Index, iv.span)];
    entry.extend(names.iter().zip(&types).map(|((n, s), t)| (n.clone(), t.clone(), *s)));
    let region = p.parse_region(&entry, true)?;
    ensure_terminator(p, region, "affine.yield", spec.span);
    let seg = segment_sizes(&[lb_d.len() + lb_s.len(), ub_d.len() + ub_s.len(), types.len()]);
    Ok(spec
        .operands(ops)
        .results(types)
        .attr("lowerBoundMap", Attribute::AffineMap(lb_map))
        .attr("upperBoundMap", Attribute::AffineMap(ub_map))
        .attr("step", Attribute::int(step, Type::Index))
        .attr("operandSegmentSizes", seg)
        .region(region))
}

/// `affine.if #set(%d)[%s] [-> (T)] { ... } [else { ... } | else if ...]`
fn parse_if(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let span = p.peek_span();
    let set = match p.parse_attribute()? {
        Attribute::IntegerSet(s) => s,
        _ => return Err(Diagnostic::new(span, "expected an integer set")),
    };
    let (d, s) = parse_dims_and_symbols(p)?;
    check_set_arity(&set, d.len(), s.len(), span)?;
    let mut ops = p.resolve_same(&d, &Type::Index)?;
    ops.extend(p.resolve_same(&s, &Type::Index)?);
    let mut types = Vec::new();
    if p.eat_punct("->")? {
        types = p.parse_function_result_types()?;
    }
    let then_region = p.parse_region(&[], true)?;
    ensure_terminator(p, then_region, "affine.yield", spec.span);
    let else_region = p.m.new_region();
    if p.eat_ident("else")? {
        if p.is_ident("if") {
            // `else if` in the original spelling nests another `affine.if` in the else region.
            let (_, ispan) = p.next()?;
            let nested = parse_if(p, OpSpec::new("affine.if", ispan))?;
            let block = p.m.append_block(else_region, ispan);
            let op = p.m.create_op(nested);
            p.m.append_op(block, op);
            p.m.build(block, OpSpec::new("affine.yield", ispan));
        } else {
            let r = p.parse_region(&[], true)?;
            let blocks = std::mem::take(&mut p.m.regions[r].blocks);
            for &b in &blocks {
                p.m.blocks[b].parent = Some(else_region);
            }
            p.m.regions[else_region].blocks = blocks;
            ensure_terminator(p, else_region, "affine.yield", spec.span);
        }
    }
    Ok(spec
        .operands(ops)
        .results(types)
        .attr("condition", Attribute::IntegerSet(set))
        .region(then_region)
        .region(else_region))
}

/// `affine.load %m[%i + 1, %j] : memref<...>`, `affine.store %v, %m[...] : memref<...>`
fn parse_access(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let is_store = spec.name == "affine.store";
    let v = if is_store {
        let v = p.parse_operand_ref()?;
        p.expect_punct(",")?;
        Some(v)
    } else {
        None
    };
    let m = p.parse_operand_ref()?;
    let (map, refs) = crate::parser::affine_syntax::parse_ssa_affine_list(p)?;
    p.expect_punct(":")?;
    let ty = p.parse_type()?;
    let Type::MemRef(mt) = &ty else {
        return Err(Diagnostic::new(spec.span, format!("'{}' needs a memref type, not {ty}", spec.name)));
    };
    let mut ops = Vec::new();
    if let Some(v) = &v {
        ops.push(p.resolve(v, &mt.elem)?);
    }
    ops.push(p.resolve(&m, &ty)?);
    ops.extend(p.resolve_same(&refs, &Type::Index)?);
    let elem = (*mt.elem).clone();
    let spec = spec.operands(ops).attr("map", Attribute::AffineMap(map));
    Ok(if is_store { spec } else { spec.results([elem]) })
}
