//! `func`: functions, calls and returns (the original specification's `func @f`, `call`,
//! `call_indirect`, `constant @f` and `return` parse into these).

use super::constraints::{operand_types, result_types, returns_function_results};
use crate::attributes::Attribute;
use crate::diagnostics::{Diagnostic, Span};
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{optional, required, AttrKind, Count, OpDef, Syntax, Traits};
use crate::parser::forms::{expect_types, parse_flags_and_attrs, parse_fn_type, with_attrs, RETURN};
use crate::parser::lexer::Tok;
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::{FunctionType, Type};

/// The attributes a function's custom form shows in its header.
pub const FUNCTION_HEADER_ATTRS: &[&str] =
    &["sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs", "linkage", "vararg"];

const FUNC_ATTRS: &[crate::op_def::AttrDef] = &[
    required("sym_name", AttrKind::String),
    required("function_type", AttrKind::FunctionType),
    optional("sym_visibility", AttrKind::String),
    optional("arg_attrs", AttrKind::Array),
    optional("res_attrs", AttrKind::Array),
];

pub const OPS: &[OpDef] = &[
    OpDef::new("func.func", "a function: a symbol with a signature and an optional body")
        .regions(Count::Between(0, 1))
        .attrs(FUNC_ATTRS)
        .traits(Traits::ISOLATED_FROM_ABOVE.union(Traits::SYMBOL))
        .verify(verify_function)
        .syntax(FUNCTION),
    OpDef::new("func.return", "returns from the enclosing function")
        .operand_count(Count::AtLeast(0))
        .traits(Traits::TERMINATOR.union(Traits::RETURN_LIKE).union(Traits::PURE))
        .parents(&["func.func"])
        .verify(returns_function_results)
        .syntax(RETURN),
    OpDef::new("func.call", "calls a function by symbol")
        .operand_count(Count::AtLeast(0))
        .result_count(Count::AtLeast(0))
        .attrs(&[required("callee", AttrKind::Symbol)])
        .verify(verify_call)
        .syntax(CALL),
    OpDef::new("func.call_indirect", "calls a function value")
        .operand_count(Count::AtLeast(1))
        .result_count(Count::AtLeast(0))
        .verify(verify_call_indirect)
        .syntax(Syntax::custom(parse_call_indirect, None)),
    OpDef::new("func.constant", "a function as a value (`constant @f` in the original spelling)")
        .results(1)
        .attrs(&[required("value", AttrKind::Symbol)])
        .pure()
        .verify(verify_function_constant)
        .syntax(Syntax::custom(parse_function_constant, None)),
];

/// `func.func`/`llvm.func`'s custom form (shared with the llvm dialect).
pub const FUNCTION: Syntax = Syntax::custom(parse_function, Some(print_function));

fn verify_function(m: &Module, op: OpId) -> Result<(), String> {
    let ft = m.function_type(op).expect("checked by the table");
    let Some(&r) = m.ops[op].regions.first() else { return Ok(()) };
    let Some(&entry) = m.regions[r].blocks.first() else { return Ok(()) };
    let args: Vec<&Type> = m.blocks[entry].args.iter().map(|&a| m.ty(a)).collect();
    if args.len() != ft.inputs.len() || args.iter().zip(&ft.inputs).any(|(a, b)| *a != b) {
        return Err(format!("the entry block's arguments do not match the signature {}", Type::Function(ft.clone())));
    }
    Ok(())
}

fn verify_call(m: &Module, op: OpId) -> Result<(), String> {
    let callee = m.attr(op, "callee").and_then(Attribute::as_symbol).expect("checked by the table");
    let Some(f) = m.lookup_symbol(callee) else { return Err(format!("calls undefined function '@{callee}'")) };
    let Some(ft) = m.function_type(f) else { return Err(format!("'@{callee}' is not a function")) };
    check_call_types(m, op, ft, 0, callee)
}

fn verify_call_indirect(m: &Module, op: OpId) -> Result<(), String> {
    let Some(ft) = m.ty(m.ops[op].operands[0]).as_function() else {
        return Err(format!("the callee must be a function value, not {}", m.ty(m.ops[op].operands[0])));
    };
    check_call_types(m, op, ft, 1, "the callee")
}

fn check_call_types(m: &Module, op: OpId, ft: &FunctionType, skip: usize, what: &str) -> Result<(), String> {
    let ins: Vec<Type> = operand_types(m, op)[skip..].iter().map(|t| (*t).clone()).collect();
    let outs: Vec<Type> = result_types(m, op).into_iter().cloned().collect();
    if ft.inputs != ins || ft.results != outs {
        let show = |ts: &[Type]| ts.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
        return Err(format!(
            "the call's type ({}) -> ({}) does not match {} of type {}",
            show(&ins),
            show(&outs),
            if skip == 0 { format!("'@{what}'") } else { what.to_string() },
            Type::Function(ft.clone())
        ));
    }
    Ok(())
}

fn verify_function_constant(m: &Module, op: OpId) -> Result<(), String> {
    let sym = m.attr(op, "value").and_then(Attribute::as_symbol).expect("checked by the table");
    let Some(f) = m.lookup_symbol(sym) else { return Err(format!("refers to undefined function '@{sym}'")) };
    if m.function_type(f).map(|ft| Type::Function(ft.clone())).as_ref() != Some(m.ty(m.ops[op].results[0])) {
        return Err(format!("the result type does not match the type of '@{sym}'"));
    }
    Ok(())
}

/// `func.call @f(%a) : (i32) -> i32`, also `llvm.call` (direct calls).
pub const CALL: Syntax = Syntax::custom(parse_call, Some(print_call));

fn print_call(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    if d.name == "llvm.call" && m.attr(op, "callee").is_none() {
        return print_indirect_llvm_call(p, op);
    }
    let callee = m.attr(op, "callee").and_then(Attribute::as_symbol)?;
    if p.has_other_attrs(op, &["callee"]) {
        return None;
    }
    let ft = FunctionType {
        inputs: d.operands.iter().map(|&v| m.ty(v).clone()).collect(),
        results: d.results.iter().map(|&v| m.ty(v).clone()).collect(),
    };
    p.word(&crate::attributes::format_symbol(callee));
    p.word("(");
    p.values(&d.operands);
    p.word(") : ");
    p.ty(&Type::Function(ft));
    Some(())
}

fn parse_call(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    if spec.name == "llvm.call" && matches!(p.peek()?.0, Tok::Percent(_)) {
        return parse_indirect_llvm_call(p, spec);
    }
    let (callee, _) = p.expect_symbol()?;
    p.expect_punct("(")?;
    let refs = p.parse_operand_refs()?;
    p.expect_punct(")")?;
    let attrs = parse_flags_and_attrs(p)?;
    p.expect_punct(":")?;
    let ft = parse_fn_type(p)?;
    expect_types(&refs, &ft.inputs, spec.span)?;
    let ops = p.resolve_all(&refs, &ft.inputs)?;
    let results: Vec<Type> = ft.results.into_iter().filter(|t| *t != Type::LlvmVoid).collect();
    Ok(with_attrs(spec.operands(ops).results(results).attr("callee", Attribute::symbol(callee)), attrs))
}

fn print_indirect_llvm_call(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    let Some(Attribute::Type(callee_type)) = m.attr(op, "callee_type") else { return None };
    if p.has_other_attrs(op, &["callee_type"]) || d.operands.is_empty() {
        return None;
    }
    p.value(d.operands[0]);
    p.word("(");
    p.values(&d.operands[1..]);
    p.word(") : ");
    p.ty(m.ty(d.operands[0]));
    p.word(", ");
    p.ty(callee_type);
    Some(())
}

/// `llvm.call %f(%a) : !llvm.ptr, (i32) -> i32`: a call through a function pointer.
fn parse_indirect_llvm_call(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let callee = p.parse_operand_ref()?;
    p.expect_punct("(")?;
    let refs = p.parse_operand_refs()?;
    p.expect_punct(")")?;
    let attrs = parse_flags_and_attrs(p)?;
    p.expect_punct(":")?;
    let pointer = p.parse_type()?;
    p.expect_punct(",")?;
    let ft = parse_fn_type(p)?;
    expect_types(&refs, &ft.inputs, spec.span)?;
    let f = p.resolve(&callee, &pointer)?;
    let ops = p.resolve_all(&refs, &ft.inputs)?;
    let results: Vec<Type> = ft.results.iter().filter(|t| **t != Type::LlvmVoid).cloned().collect();
    let callee_type = FunctionType { inputs: ft.inputs, results: results.clone() };
    let spec = spec
        .operands([f])
        .operands(ops)
        .results(results)
        .attr("callee_type", Attribute::Type(Type::Function(callee_type)));
    Ok(with_attrs(spec, attrs))
}

/// `func.call_indirect %f(%a) : (i32) -> i32`
fn parse_call_indirect(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let callee = p.parse_operand_ref()?;
    p.expect_punct("(")?;
    let refs = p.parse_operand_refs()?;
    p.expect_punct(")")?;
    p.expect_punct(":")?;
    let ft = parse_fn_type(p)?;
    expect_types(&refs, &ft.inputs, spec.span)?;
    let f = p.resolve(&callee, &Type::Function(ft.clone()))?;
    let ops = p.resolve_all(&refs, &ft.inputs)?;
    Ok(spec.operands([f]).operands(ops).results(ft.results))
}

/// `func.constant @f : (i32) -> i32`
fn parse_function_constant(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let (sym, _) = p.expect_symbol()?;
    p.expect_punct(":")?;
    let ty = p.parse_type()?;
    Ok(spec.results([ty]).attr("value", Attribute::symbol(sym)))
}

/// A function's argument list: `(%a: i32 {attrs}, ...)` or unnamed `(i32, ...)`, maybe ending in
/// `...` (llvm varargs).
struct Arguments {
    args: Vec<(String, Type, Span)>,
    attrs: Vec<Attribute>,
    named: Option<bool>,
    vararg: bool,
}

fn parse_arguments(p: &mut Parser) -> PResult<Arguments> {
    let mut a = Arguments { args: Vec::new(), attrs: Vec::new(), named: None, vararg: false };
    p.expect_punct("(")?;
    if !p.is_punct(")") {
        loop {
            if p.eat_punct("...")? {
                a.vararg = true;
                break;
            }
            let (tok, s) = p.peek()?;
            let this_named = matches!(tok, Tok::Percent(_));
            if *a.named.get_or_insert(this_named) != this_named {
                return Err(Diagnostic::new(s, "function arguments must be all named or all unnamed"));
            }
            let arg_name = if let Tok::Percent(n) = tok {
                p.next()?;
                p.expect_punct(":")?;
                n
            } else {
                String::new()
            };
            let ty = p.parse_type()?;
            a.attrs.push(Attribute::Dict(if p.is_punct("{") { p.parse_attr_dict()? } else { Vec::new() }));
            p.skip_loc()?;
            a.args.push((arg_name, ty, s));
            if !p.eat_punct(",")? {
                break;
            }
        }
    }
    p.expect_punct(")")?;
    Ok(a)
}

/// `-> T`, `-> (T {attrs}, U)` or nothing.
fn parse_results(p: &mut Parser) -> PResult<(Vec<Type>, Vec<Attribute>)> {
    let mut results = Vec::new();
    let mut attrs = Vec::new();
    if !p.eat_punct("->")? {
        return Ok((results, attrs));
    }
    if p.eat_punct("(")? {
        if !p.is_punct(")") {
            loop {
                results.push(p.parse_type()?);
                attrs.push(Attribute::Dict(if p.is_punct("{") { p.parse_attr_dict()? } else { Vec::new() }));
                if !p.eat_punct(",")? {
                    break;
                }
            }
        }
        p.expect_punct(")")?;
    } else {
        // Without parentheses a '{' after the type is the body, not result attributes.
        results.push(p.parse_type()?);
        attrs.push(Attribute::Dict(Vec::new()));
    }
    Ok((results, attrs))
}

/// `func.func [visibility] @name(args) [-> results] [attributes {...}] [{ body }]`, and
/// `llvm.func [linkage] @name(...)`.
fn parse_function(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let mut spec = spec;
    let is_llvm = spec.name == "llvm.func";
    if let (Tok::Ident(v), _) = p.peek()? {
        if ["private", "public", "nested"].contains(&v.as_str()) {
            p.next()?;
            spec = spec.attr("sym_visibility", Attribute::String(v.clone()));
        }
        if is_llvm && ["internal", "external", "linkonce_odr", "weak"].contains(&v.as_str()) {
            p.next()?;
            spec = spec.attr("linkage", Attribute::String(v));
        }
    }
    let (name, _) = p.expect_symbol()?;
    let args = parse_arguments(p)?;
    let (mut results, mut res_attrs) = parse_results(p)?;
    if is_llvm && results == [Type::LlvmVoid] {
        results.clear();
        res_attrs.clear();
    }
    let extra = if p.eat_ident("attributes")? { p.parse_attr_dict()? } else { Vec::new() };
    let ft = FunctionType { inputs: args.args.iter().map(|a| a.1.clone()).collect(), results: results.clone() };
    spec = spec.attr("sym_name", Attribute::String(name)).attr("function_type", Attribute::Type(Type::Function(ft)));
    if args.vararg {
        spec = spec.attr("vararg", Attribute::Unit);
    }
    let empty = Attribute::Dict(Vec::new());
    if args.attrs.iter().any(|a| *a != empty) {
        spec = spec.attr("arg_attrs", Attribute::Array(args.attrs));
    }
    if res_attrs.iter().any(|a| *a != empty) {
        spec = spec.attr("res_attrs", Attribute::Array(res_attrs));
    }
    spec = with_attrs(spec, extra);
    if p.is_punct("{") {
        p.push_isolated_scope();
        // Unnamed arguments (`func @simple(i64, i1)`) are named by the entry block's label.
        let entry: Vec<_> = if args.named == Some(true) { args.args } else { Vec::new() };
        p.func_results.push(results);
        let region = p.parse_region(&entry, false);
        p.func_results.pop();
        let region = region?;
        p.pop_isolated_scope(&[region])?;
        spec = spec.region(region);
    }
    Ok(spec)
}

fn print_function(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let ft = m.function_type(op)?.clone();
    if let Some(v) = m.attr(op, "sym_visibility").and_then(Attribute::as_str) {
        p.word(&format!("{v} "));
    }
    if let Some(l) = m.attr(op, "linkage").and_then(Attribute::as_str) {
        p.word(&format!("{l} "));
    }
    p.word(&crate::attributes::format_symbol(m.sym_name(op).unwrap_or("")));
    p.word("(");
    let body = m.ops[op].regions.first().copied().filter(|&r| !m.regions[r].blocks.is_empty());
    let entry = body.map(|r| m.regions[r].blocks[0]);
    let arg_attrs = m.attr(op, "arg_attrs").and_then(Attribute::as_array);
    for (i, t) in ft.inputs.iter().enumerate() {
        if i > 0 {
            p.word(", ");
        }
        if let Some(b) = entry {
            p.name_value_as(m.blocks[b].args[i], format!("%arg{i}"));
            p.word(&format!("%arg{i}: "));
        }
        p.ty(t);
        print_dict_entry(p, arg_attrs, i);
    }
    if m.attr(op, "vararg").is_some() {
        p.word(if ft.inputs.is_empty() { "..." } else { ", ..." });
    }
    p.word(")");
    let res_attrs = m.attr(op, "res_attrs").and_then(Attribute::as_array);
    if !ft.results.is_empty() {
        p.word(" -> (");
        for (i, t) in ft.results.iter().enumerate() {
            if i > 0 {
                p.word(", ");
            }
            p.ty(t);
            print_dict_entry(p, res_attrs, i);
        }
        p.word(")");
    }
    if p.has_other_attrs(op, FUNCTION_HEADER_ATTRS) {
        p.word(" attributes");
        p.attr_dict_except(op, FUNCTION_HEADER_ATTRS);
    }
    if let Some(r) = body {
        p.word(" ");
        p.isolated_region(r);
    }
    Some(())
}

fn print_dict_entry(p: &mut OpPrinter, dicts: Option<&[Attribute]>, i: usize) {
    if let Some(Attribute::Dict(d)) = dicts.and_then(|a| a.get(i)) {
        if !d.is_empty() {
            p.word(" ");
            p.attr(&Attribute::Dict(d.clone()));
        }
    }
}
