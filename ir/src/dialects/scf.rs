//! `scf`: structured control flow. `scf.parallel` is the one seam for parallelism: a loop whose
//! iterations are independent, which becomes threads on CPUs or a grid on GPUs and, until then,
//! a serial loop nest.

use super::constraints::{operand_types, yields_parent_results};
use crate::entity::{OpId, RegionId};
use crate::module::{Module, OpSpec};
use crate::op_def::{required, AttrKind, Count, OpDef, Segment, Syntax, Traits};
use crate::parser::forms::{ensure_terminator, segment_sizes, RETURN};
use crate::parser::{OperandRef, PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::Type;
use crate::Span;

const PARALLEL_SEGMENTS: &[Segment] = &[
    Segment::Variadic("lowerBound"),
    Segment::Variadic("upperBound"),
    Segment::Variadic("step"),
    Segment::Variadic("initVals"),
];

const LOOP: Traits = Traits::IMPLICIT_TERMINATOR.union(Traits::RECURSIVE_EFFECTS);

pub const OPS: &[OpDef] = &[
    OpDef::new("scf.for", "a counted loop, optionally carrying values")
        .operand_count(Count::AtLeast(3))
        .result_count(Count::AtLeast(0))
        .regions(Count::Exactly(1))
        .traits(LOOP)
        .verify(verify_for)
        .syntax(Syntax::custom(parse_for, Some(print_for))),
    OpDef::new("scf.if", "a conditional with an optional else region")
        .operands(1)
        .result_count(Count::AtLeast(0))
        .regions(Count::Exactly(2))
        .traits(LOOP)
        .verify(verify_if)
        .syntax(Syntax::custom(parse_if, Some(print_if))),
    OpDef::new("scf.parallel", "a loop nest whose iterations are independent")
        .operand_count(Count::Segments(PARALLEL_SEGMENTS))
        .regions(Count::Exactly(1))
        .traits(LOOP.union(Traits::PARALLEL_LOOP))
        .verify(verify_parallel)
        .syntax(Syntax::custom(parse_parallel, Some(print_parallel))),
    OpDef::new("scf.while", "a loop that tests a condition before each iteration, carrying values")
        .operand_count(Count::AtLeast(0))
        .result_count(Count::AtLeast(0))
        .regions(Count::Exactly(2))
        .traits(Traits::RECURSIVE_EFFECTS)
        .verify(verify_while)
        .syntax(Syntax::custom(parse_while, Some(print_while))),
    OpDef::new("scf.index_switch", "runs the region of the case equal to an index, else the default region")
        .operands(1)
        .result_count(Count::AtLeast(0))
        .regions(Count::AtLeast(1))
        .attrs(&[required("cases", AttrKind::IntList)])
        .traits(LOOP)
        .verify(verify_index_switch)
        .syntax(Syntax::custom(parse_index_switch, Some(print_index_switch))),
    OpDef::new("scf.condition", "ends scf.while's test: continue with these values, or leave with them")
        .operand_count(Count::AtLeast(1))
        .traits(Traits::TERMINATOR.union(Traits::PURE))
        .parents(&["scf.while"])
        .verify(verify_condition)
        .syntax(Syntax::custom(parse_condition, Some(print_condition))),
    OpDef::new("scf.yield", "ends a region of scf.for or scf.if (the parent's results) or scf.while's body")
        .operand_count(Count::AtLeast(0))
        .traits(Traits::TERMINATOR.union(Traits::RETURN_LIKE).union(Traits::PURE))
        .parents(&["scf.for", "scf.if", "scf.while", "scf.index_switch"])
        .verify(yields_parent_results)
        .syntax(RETURN),
    OpDef::new("scf.reduce", "ends the body of scf.parallel (a loop without reductions)")
        .traits(Traits::TERMINATOR.union(Traits::RETURN_LIKE).union(Traits::PURE))
        .parents(&["scf.parallel"])
        .syntax(RETURN),
];

fn body_args(m: &Module, r: RegionId) -> Vec<&Type> {
    m.regions[r].blocks.first().map(|&b| m.blocks[b].args.iter().map(|&a| m.ty(a)).collect()).unwrap_or_default()
}

fn verify_for(m: &Module, op: OpId) -> Result<(), String> {
    let ins = operand_types(m, op);
    if ins[0] != ins[1] || ins[1] != ins[2] || !ins[0].is_signless_int_or_index() {
        return Err("lower bound, upper bound and step must share one integer or index type".into());
    }
    let results: Vec<&Type> = m.ops[op].results.iter().map(|&v| m.ty(v)).collect();
    if ins[3..] != results[..] {
        return Err("the initial values and the results must have the same types".into());
    }
    let mut want = vec![ins[0]];
    want.extend(&results);
    if body_args(m, m.ops[op].regions[0]) != want {
        return Err("the body takes the induction variable and one argument per carried value".into());
    }
    if constant_value(m, m.ops[op].operands[2]) == Some(0) {
        return Err("the step is 0: the loop would never end".into());
    }
    Ok(())
}

/// The value of an integer or index `arith.constant`.
fn constant_value(m: &Module, v: crate::ValueId) -> Option<i128> {
    let def = m.defining_op(v).filter(|&d| m.ops[d].name == "arith.constant")?;
    match m.attr(def, "value")? {
        crate::Attribute::Integer { value, .. } => Some(*value),
        _ => None,
    }
}

fn verify_if(m: &Module, op: OpId) -> Result<(), String> {
    if *operand_types(m, op)[0] != Type::i1() {
        return Err("the condition must be i1".into());
    }
    let else_empty = m.regions[m.ops[op].regions[1]].blocks.is_empty();
    if else_empty && !m.ops[op].results.is_empty() {
        return Err("an scf.if with results needs an else region".into());
    }
    Ok(())
}

/// The test region takes the operands' types and the body region the results' types.
fn verify_while(m: &Module, op: OpId) -> Result<(), String> {
    let d = &m.ops[op];
    let ins = operand_types(m, op);
    let results: Vec<&Type> = d.results.iter().map(|&v| m.ty(v)).collect();
    if body_args(m, d.regions[0]) != ins {
        return Err("the test region's arguments must have the initial values' types".into());
    }
    if body_args(m, d.regions[1]) != results {
        return Err("the body region's arguments must have the results' types".into());
    }
    Ok(())
}

/// The default region first, then one region per case value, the values distinct.
fn verify_index_switch(m: &Module, op: OpId) -> Result<(), String> {
    if !operand_types(m, op)[0].is_index() {
        return Err("switches on an index".into());
    }
    let cases = m.attr(op, "cases").and_then(crate::Attribute::as_int_list).unwrap_or_default();
    if cases.len() + 1 != m.ops[op].regions.len() {
        return Err(format!("{} case value(s) for {} case region(s)", cases.len(), m.ops[op].regions.len() - 1));
    }
    for (i, v) in cases.iter().enumerate() {
        if cases[..i].contains(v) {
            return Err(format!("case {v} appears twice"));
        }
    }
    Ok(())
}

fn verify_condition(m: &Module, op: OpId) -> Result<(), String> {
    let ins = operand_types(m, op);
    if *ins[0] != Type::i1() {
        return Err("the condition must be i1".into());
    }
    let Some(parent) = m.ops[op].parent.and_then(|b| m.parent_op_of_block(b)) else { return Ok(()) };
    let results: Vec<&Type> = m.ops[parent].results.iter().map(|&v| m.ty(v)).collect();
    if ins[1..] != results[..] {
        return Err("the values passed on must have the scf.while's result types".into());
    }
    Ok(())
}

fn verify_parallel(m: &Module, op: OpId) -> Result<(), String> {
    let seg = m.attr(op, "operandSegmentSizes").and_then(crate::Attribute::as_int_list).unwrap_or_default();
    if seg.len() != 4 || seg[0] != seg[1] || seg[1] != seg[2] || seg[0] == 0 {
        return Err("needs as many (at least one) lower bounds, upper bounds and steps".into());
    }
    if seg[3] != 0 {
        return Err("reductions (initial values) are not supported".into());
    }
    if operand_types(m, op).iter().any(|t| !t.is_index()) {
        return Err("bounds and steps must be index values".into());
    }
    if body_args(m, m.ops[op].regions[0]).len() != seg[0] as usize
        || body_args(m, m.ops[op].regions[0]).iter().any(|t| !t.is_index())
    {
        return Err("the body takes one index argument per loop".into());
    }
    let steps = &m.ops[op].operands[2 * seg[0] as usize..3 * seg[0] as usize];
    if steps.iter().any(|&s| constant_value(m, s) == Some(0)) {
        return Err("a step is 0: the loop would never end".into());
    }
    Ok(())
}

/// `iter_args(%a = %init, ...) -> (T, ...)`: the body's argument names, the initial values and
/// the carried types.
pub(crate) struct IterArgs {
    pub names: Vec<(String, Span)>,
    pub inits: Vec<OperandRef>,
    pub types: Vec<Type>,
}

pub(crate) fn parse_iter_args(p: &mut Parser) -> PResult<IterArgs> {
    let mut it = IterArgs { names: Vec::new(), inits: Vec::new(), types: Vec::new() };
    if p.eat_ident("iter_args")? {
        p.expect_punct("(")?;
        loop {
            let r = p.parse_operand_ref()?;
            p.expect_punct("=")?;
            it.inits.push(p.parse_operand_ref()?);
            it.names.push((r.name, r.span));
            if !p.eat_punct(",")? {
                break;
            }
        }
        p.expect_punct(")")?;
        p.expect_punct("->")?;
        it.types = p.parse_function_result_types()?;
        if it.types.len() != it.inits.len() {
            return p.err_here(format!(
                "iter_args has {} value(s) but {} result type(s)",
                it.inits.len(),
                it.types.len()
            ));
        }
    }
    Ok(it)
}

/// `scf.for %i = %lb to %ub step %s [iter_args(...) -> (...)] [: i32] { ... }`
fn parse_for(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let iv = p.parse_operand_ref()?;
    p.expect_punct("=")?;
    let lb = p.parse_operand_ref()?;
    p.expect_ident_word("to")?;
    let ub = p.parse_operand_ref()?;
    p.expect_ident_word("step")?;
    let step = p.parse_operand_ref()?;
    let IterArgs { names, inits, types } = parse_iter_args(p)?;
    let iv_ty = if p.eat_punct(":")? { p.parse_type()? } else { Type::Index };
    let mut ops = vec![p.resolve(&lb, &iv_ty)?, p.resolve(&ub, &iv_ty)?, p.resolve(&step, &iv_ty)?];
    ops.extend(p.resolve_all(&inits, &types)?);
    let mut entry = vec![(iv.name.clone(), iv_ty, iv.span)];
    entry.extend(names.iter().zip(&types).map(|((n, s), t)| (n.clone(), t.clone(), *s)));
    let region = p.parse_region(&entry, true)?;
    ensure_terminator(p, region, "scf.yield", spec.span);
    Ok(spec.operands(ops).results(types).region(region))
}

fn print_for(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    if p.has_other_attrs(op, &[]) {
        return None;
    }
    let body = d.regions[0];
    let entry = *m.regions[body].blocks.first()?;
    let args = m.blocks[entry].args.clone();
    let iv = p.name_value(args[0]);
    p.word(&format!("{iv} = "));
    p.value(d.operands[0]);
    p.word(" to ");
    p.value(d.operands[1]);
    p.word(" step ");
    p.value(d.operands[2]);
    if d.operands.len() > 3 {
        p.word(" iter_args(");
        for (i, (&a, &init)) in args[1..].iter().zip(&d.operands[3..]).enumerate() {
            if i > 0 {
                p.word(", ");
            }
            let n = p.name_value(a);
            p.word(&format!("{n} = "));
            p.value(init);
        }
        p.word(") -> (");
        let types: Vec<&Type> = d.results.iter().map(|&r| m.ty(r)).collect();
        p.types(&types);
        p.word(")");
    }
    let iv_ty = m.ty(args[0]);
    if !iv_ty.is_index() {
        p.word(" : ");
        p.ty(iv_ty);
    }
    p.word(" ");
    p.region_without_entry_args(body, true);
    Some(())
}

/// `scf.if %c [-> (T)] { ... } [else { ... }]`
fn parse_if(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let c = p.parse_operand_ref()?;
    let mut types = Vec::new();
    if p.eat_punct("->")? {
        types = p.parse_function_result_types()?;
    }
    let c = p.resolve(&c, &Type::i1())?;
    let then_region = p.parse_region(&[], true)?;
    ensure_terminator(p, then_region, "scf.yield", spec.span);
    let else_region = if p.eat_ident("else")? {
        let r = p.parse_region(&[], true)?;
        ensure_terminator(p, r, "scf.yield", spec.span);
        r
    } else {
        p.m.new_region()
    };
    Ok(spec.operands([c]).results(types).region(then_region).region(else_region))
}

fn print_if(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    if p.has_other_attrs(op, &[]) {
        return None;
    }
    p.value(d.operands[0]);
    if !d.results.is_empty() {
        p.word(" -> (");
        let types: Vec<&Type> = d.results.iter().map(|&r| m.ty(r)).collect();
        p.types(&types);
        p.word(")");
    }
    p.word(" ");
    p.region_without_entry_args(d.regions[0], true);
    if !m.regions[d.regions[1]].blocks.is_empty() {
        p.word(" else ");
        p.region_without_entry_args(d.regions[1], true);
    }
    Some(())
}

/// `scf.while (%a = %init, ...) : (T, ...) -> (R, ...) { test } do { ^bb0(%r: R, ...): body }`
fn parse_while(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    p.expect_punct("(")?;
    let mut names = Vec::new();
    let mut inits = Vec::new();
    if !p.is_punct(")") {
        loop {
            let r = p.parse_operand_ref()?;
            p.expect_punct("=")?;
            inits.push(p.parse_operand_ref()?);
            names.push((r.name, r.span));
            if !p.eat_punct(",")? {
                break;
            }
        }
    }
    p.expect_punct(")")?;
    p.expect_punct(":")?;
    let ft = crate::parser::forms::parse_fn_type(p)?;
    if ft.inputs.len() != inits.len() {
        return p.err_here(format!("scf.while has {} initial value(s) but {} type(s)", inits.len(), ft.inputs.len()));
    }
    let ops = p.resolve_all(&inits, &ft.inputs)?;
    let entry: Vec<_> = names.iter().zip(&ft.inputs).map(|((n, s), t)| (n.clone(), t.clone(), *s)).collect();
    let test = p.parse_region(&entry, false)?;
    p.expect_ident_word("do")?;
    let body = p.parse_region(&[], false)?;
    Ok(spec.operands(ops).results(ft.results).region(test).region(body))
}

fn print_while(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    if p.has_other_attrs(op, &[]) {
        return None;
    }
    let entry = *m.regions[d.regions[0]].blocks.first()?;
    let args = m.blocks[entry].args.clone();
    p.word("(");
    for (i, (&a, &init)) in args.iter().zip(&d.operands).enumerate() {
        if i > 0 {
            p.word(", ");
        }
        let n = p.name_value(a);
        p.word(&format!("{n} = "));
        p.value(init);
    }
    p.word(") : ");
    let ft = crate::types::FunctionType {
        inputs: d.operands.iter().map(|&v| m.ty(v).clone()).collect(),
        results: d.results.iter().map(|&v| m.ty(v).clone()).collect(),
    };
    p.ty(&Type::Function(ft));
    p.word(" ");
    p.region_without_entry_args(d.regions[0], false);
    p.word(" do ");
    p.region_with_entry_args(d.regions[1]);
    Some(())
}

/// `scf.index_switch %i [-> T, ...] case 2 { ... } ... default { ... }`
fn parse_index_switch(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let i = p.parse_operand_ref()?;
    let types = if p.eat_punct("->")? { p.parse_type_list_no_parens()? } else { Vec::new() };
    let flag = p.resolve(&i, &Type::Index)?;
    let mut cases = Vec::new();
    let mut case_regions = Vec::new();
    while p.eat_ident("case")? {
        cases.push(p.parse_int("a case value")?.0);
        let r = p.parse_region(&[], true)?;
        ensure_terminator(p, r, "scf.yield", spec.span);
        case_regions.push(r);
    }
    p.expect_ident_word("default")?;
    let default = p.parse_region(&[], true)?;
    ensure_terminator(p, default, "scf.yield", spec.span);
    let mut spec = spec.operands([flag]).results(types).region(default);
    for r in case_regions {
        spec = spec.region(r);
    }
    Ok(spec.attr("cases", crate::Attribute::DenseArray { elem: Type::i64(), values: cases }))
}

fn print_index_switch(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    let cases = m.attr(op, "cases")?.as_int_list()?;
    if p.has_other_attrs(op, &["cases"]) || cases.len() + 1 != d.regions.len() {
        return None;
    }
    p.value(d.operands[0]);
    if !d.results.is_empty() {
        p.word(" -> ");
        let types: Vec<&Type> = d.results.iter().map(|&r| m.ty(r)).collect();
        p.types(&types);
    }
    for (v, &r) in cases.iter().zip(&d.regions[1..]) {
        p.newline();
        p.word(&format!("case {v} "));
        // Upstream requires each region's yield written.
        p.region_without_entry_args(r, false);
    }
    p.newline();
    p.word("default ");
    p.region_without_entry_args(d.regions[0], false);
    Some(())
}

/// `scf.condition(%c) %a, %b : T, U`
fn parse_condition(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    p.expect_punct("(")?;
    let c = p.parse_operand_ref()?;
    p.expect_punct(")")?;
    let refs =
        if matches!(p.peek()?.0, crate::parser::lexer::Tok::Percent(_)) { p.parse_operand_refs()? } else { Vec::new() };
    let types = if p.eat_punct(":")? { p.parse_type_list_no_parens()? } else { Vec::new() };
    if types.len() != refs.len() {
        return p.err_here(format!("scf.condition passes {} value(s) but lists {} type(s)", refs.len(), types.len()));
    }
    let mut ops = vec![p.resolve(&c, &Type::i1())?];
    ops.extend(p.resolve_all(&refs, &types)?);
    Ok(spec.operands(ops))
}

fn print_condition(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let ops = m.ops[op].operands.clone();
    p.word("(");
    p.value(ops[0]);
    p.word(")");
    if ops.len() > 1 {
        p.word(" ");
        p.values(&ops[1..]);
        p.word(" : ");
        let types: Vec<&Type> = ops[1..].iter().map(|&v| m.ty(v)).collect();
        p.types(&types);
    }
    Some(())
}

/// `scf.parallel (%i, %j) = (%lb0, %lb1) to (%ub0, %ub1) step (%s0, %s1) { ... }`
fn parse_parallel(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let paren_list = |p: &mut Parser| -> PResult<Vec<OperandRef>> {
        p.expect_punct("(")?;
        let refs = p.parse_operand_refs()?;
        p.expect_punct(")")?;
        Ok(refs)
    };
    let ivs = paren_list(p)?;
    p.expect_punct("=")?;
    let lbs = paren_list(p)?;
    p.expect_ident_word("to")?;
    let ubs = paren_list(p)?;
    p.expect_ident_word("step")?;
    let steps = paren_list(p)?;
    let n = ivs.len();
    if lbs.len() != n || ubs.len() != n || steps.len() != n {
        return p.err_here(format!("scf.parallel has {n} induction variable(s); give as many bounds and steps"));
    }
    let mut ops = p.resolve_same(&lbs, &Type::Index)?;
    ops.extend(p.resolve_same(&ubs, &Type::Index)?);
    ops.extend(p.resolve_same(&steps, &Type::Index)?);
    let entry: Vec<_> = ivs.iter().map(|r| (r.name.clone(), Type::Index, r.span)).collect();
    let region = p.parse_region(&entry, true)?;
    ensure_terminator(p, region, "scf.reduce", spec.span);
    // Upstream's attribute dictionary after the body (a GPU mapping, xcc's block and thread marks).
    let attrs = if p.is_punct("{") { p.parse_attr_dict()? } else { Vec::new() };
    let mut spec = spec.operands(ops).region(region).attr("operandSegmentSizes", segment_sizes(&[n, n, n, 0]));
    for (k, v) in attrs {
        spec = spec.attr(k, v);
    }
    Ok(spec)
}

fn print_parallel(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    let body = d.regions[0];
    let entry = *m.regions[body].blocks.first()?;
    let ivs = m.blocks[entry].args.clone();
    let n = ivs.len();
    if d.operands.len() != 3 * n {
        return None;
    }
    let names: Vec<String> = ivs.iter().map(|&v| p.name_value(v)).collect();
    p.word(&format!("({}) = (", names.join(", ")));
    p.values(&d.operands[..n]);
    p.word(") to (");
    p.values(&d.operands[n..2 * n]);
    p.word(") step (");
    p.values(&d.operands[2 * n..]);
    p.word(") ");
    p.region_without_entry_args(body, false);
    p.attr_dict_except(op, &["operandSegmentSizes"]);
    Some(())
}

/// Builds an `scf.parallel` nest header: the region's entry block gets one index argument per
/// loop, and the body must end with `scf.reduce`.
pub fn parallel_spec(
    lbs: &[crate::ValueId],
    ubs: &[crate::ValueId],
    steps: &[crate::ValueId],
    body: RegionId,
    span: Span,
) -> OpSpec {
    OpSpec::new("scf.parallel", span)
        .operands(lbs.iter().chain(ubs).chain(steps).copied())
        .attr("operandSegmentSizes", segment_sizes(&[lbs.len(), ubs.len(), steps.len(), 0]))
        .region(body)
}
