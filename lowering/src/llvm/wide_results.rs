//! `return-wide-results-in-memory`: an internal function that returns a struct of more than
//! [`WIDE_ABOVE_FIELDS`] fields writes them through a pointer instead: it takes one more
//! parameter, the address of a stack slot of the struct's type that each caller allocates, and
//! stores each field there; the caller loads each field where it used to take it out of the
//! returned struct.
//!
//! Why: LLVM's interprocedural constant propagation (IPSCCP, in every `-O2`/`-O3` pipeline)
//! tracks each field of an internal function's struct result, and each `insertvalue` that builds
//! it costs as many steps as the struct has fields, again each time any inserted value changes:
//! time grows with the cube of the fields. The parts `split-large-functions` makes of a large
//! model return every value later parts use (a 155M-parameter Llama's first parts return 265 to
//! 380 scalars): IPSCCP took 4 of the 11.6 s LLVM spent optimizing each CPU's copy of the code.
//! Memory is not tracked, so the fields cost nothing there.
//!
//! ```text
//! llvm.func internal @f(%a) -> !llvm.struct<(i64, ..., i64)> {     llvm.func internal @f(%a, %out: !llvm.ptr) {
//!   %s0 = llvm.insertvalue %x, %u[0]                                 llvm.store %x, (gep %out[0, 0])
//!   ...                                                     ->       ...
//!   llvm.return %sN                                                  llvm.return
//! %r = llvm.call @f(%a)                                            %p = llvm.alloca 1 x !llvm.struct<(...)>   (entry block)
//! %v = llvm.extractvalue %r[3]                                     llvm.call @f(%a, %p)
//!                                                                  %v = llvm.load (gep %p[0, 3])
//! ```

use super::cpu_dispatch::{is_definition, is_internal};
use super::wide_signatures::{addressed_symbols, field_position, i64_constant, insert_before, region_ops};
use crate::pass::{LoweringOptions, Pass};
use std::collections::{HashMap, HashSet};
use xcc_ir::types::FunctionType;
use xcc_ir::{Attribute, Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};

pub struct ReturnWideResultsInMemory;

/// Struct results of more fields than this are returned in memory. The parts of ordinary
/// functions return a few memref descriptors; IPSCCP's cost shows from about a hundred fields.
pub const WIDE_ABOVE_FIELDS: usize = 16;

impl Pass for ReturnWideResultsInMemory {
    fn name(&self) -> &'static str {
        "return-wide-results-in-memory"
    }

    fn run(&self, mut m: Module, options: &LoweringOptions) -> Result<Module, Diagnostic> {
        if options.gpu() {
            return Ok(m);
        }
        let addressed = addressed_symbols(&m);
        let wide: HashMap<String, Type> = m
            .top_ops()
            .iter()
            .filter_map(|&f| wide_result(&m, f, &addressed).map(|t| (m.sym_name(f).unwrap_or_default().to_string(), t)))
            .collect();
        if wide.is_empty() {
            return Ok(m);
        }
        let functions: Vec<OpId> = m.top_ops().iter().copied().filter(|&f| is_definition(&m, f)).collect();
        for f in functions {
            if m.sym_name(f).is_some_and(|n| wide.contains_key(n)) {
                store_results(&mut m, f);
            }
            load_results_of_calls(&mut m, f, &wide);
        }
        Ok(m)
    }
}

/// The struct type `f` returns, if `f` is an internal function, only ever called by name, whose
/// one result is a struct of more than [`WIDE_ABOVE_FIELDS`] fields.
fn wide_result(m: &Module, f: OpId, addressed: &HashSet<String>) -> Option<Type> {
    if !is_definition(m, f) || !is_internal(m, f) || m.sym_name(f).is_none_or(|n| addressed.contains(n)) {
        return None;
    }
    match m.function_type(f)?.results.as_slice() {
        [t @ Type::LlvmStruct { fields, .. }] if fields.len() > WIDE_ABOVE_FIELDS => Some(t.clone()),
        _ => None,
    }
}

/// `f` takes the address its results go to as a last parameter, and each `llvm.return` stores
/// the fields there.
fn store_results(m: &mut Module, f: OpId) {
    let ft = m.function_type(f).expect("checked by wide_result").clone();
    let result = ft.results[0].clone();
    let region = m.ops[f].regions[0];
    let entry = m.regions[region].blocks[0];
    let out = m.add_block_arg(entry, Type::ptr(), m.ops[f].span);
    let inputs = ft.inputs.iter().cloned().chain([Type::ptr()]).collect();
    m.set_attr(f, "function_type", Attribute::Type(Type::Function(FunctionType { inputs, results: vec![] })));
    m.remove_attr(f, "res_attrs");
    if let Some(Attribute::Array(mut attrs)) = m.attr(f, "arg_attrs").cloned() {
        attrs.push(out_attrs());
        m.set_attr(f, "arg_attrs", Attribute::Array(attrs));
    }
    let mut before = HashMap::new();
    for b in m.regions[region].blocks.clone() {
        let Some(ret) = m.blocks[b].ops.last().copied().filter(|&op| m.ops[op].name == "llvm.return") else {
            continue;
        };
        let value = m.ops[ret].operands[0];
        let stores = store_fields(m, value, &result, out, m.ops[ret].span);
        m.ops[ret].operands.clear();
        before.insert(ret, stores);
    }
    for b in m.regions[region].blocks.clone() {
        insert_before(m, b, &mut before);
    }
    m.erase_unused(region, |m, op| {
        matches!(m.ops[op].name.as_str(), "llvm.insertvalue" | "llvm.mlir.undef" | "llvm.mlir.poison")
    });
}

/// The attributes of the results' address: nothing else reads or writes that slot during the
/// call.
fn out_attrs() -> Attribute {
    Attribute::Dict(vec![("llvm.noalias".into(), Attribute::Unit), ("llvm.nonnull".into(), Attribute::Unit)])
}

/// Stores of each field of `value` (a `ty`) to its place at `out`: the value inserted last at
/// that field where `value` ends a chain of `llvm.insertvalue`s, else the field taken out.
fn store_fields(m: &mut Module, value: ValueId, ty: &Type, out: ValueId, span: Span) -> Vec<OpId> {
    let Type::LlvmStruct { fields, .. } = ty else { unreachable!("checked by wide_result") };
    let inserted = inserted_fields(m, value, fields.len());
    let mut ops = Vec::new();
    for (i, field_ty) in fields.iter().enumerate() {
        let field = match inserted[i] {
            Some(v) => v,
            None => {
                let extract = m.create_op(
                    OpSpec::new("llvm.extractvalue", span)
                        .operands([value])
                        .results([field_ty.clone()])
                        .attr("position", position_attr(&[i as i128])),
                );
                ops.push(extract);
                m.result(extract, 0)
            }
        };
        let address = m.create_op(field_address(out, ty, &[0, i as i128], span));
        let at = m.result(address, 0);
        ops.push(address);
        ops.push(m.create_op(OpSpec::new("llvm.store", span).operands([field, at])));
    }
    ops
}

/// For each of the `count` fields of `aggregate`, the whole value the chain of
/// `llvm.insertvalue`s ending in it put there last, if one did; one walk up the chain.
fn inserted_fields(m: &Module, mut aggregate: ValueId, count: usize) -> Vec<Option<ValueId>> {
    let mut found = vec![None; count];
    let mut partly = vec![false; count];
    while let Some(d) = m.defining_op(aggregate).filter(|&d| m.ops[d].name == "llvm.insertvalue") {
        let at = field_position(m, d);
        if let Some(&i) = at.first() {
            let i = i as usize;
            if i < count && found[i].is_none() && !partly[i] {
                // A later insertion into part of the field hides this whole one.
                if at.len() == 1 {
                    found[i] = Some(m.ops[d].operands[1]);
                } else {
                    partly[i] = true;
                }
            }
        }
        aggregate = m.ops[d].operands[0];
    }
    found
}

/// Each call in `f` to a function of `wide` passes the address of a stack slot of its result's
/// type, and each use of the call's result reads the slot instead.
fn load_results_of_calls(m: &mut Module, f: OpId, wide: &HashMap<String, Type>) {
    let region = m.ops[f].regions[0];
    let ops = region_ops(m, region);
    let calls: Vec<(OpId, Type)> = ops
        .iter()
        .filter(|&&op| m.ops[op].name == "llvm.call" && m.ops[op].results.len() == 1)
        .filter_map(|&op| {
            let callee = m.attr(op, "callee").and_then(Attribute::as_symbol)?;
            wide.get(callee).map(|t| (op, t.clone()))
        })
        .collect();
    if calls.is_empty() {
        return;
    }
    let users = users_in(m, &ops);
    let mut before: HashMap<OpId, Vec<OpId>> = HashMap::new();
    let mut after: HashMap<OpId, Vec<OpId>> = HashMap::new();
    let mut slots = Vec::new();
    let mut replaced = HashMap::new();
    for (call, ty) in calls {
        let span = m.ops[call].span;
        let one = m.create_op(i64_constant(1, span));
        let one_value = m.result(one, 0);
        let slot = m.create_op(
            OpSpec::new("llvm.alloca", span)
                .operands([one_value])
                .results([Type::ptr()])
                .attr("elem_type", Attribute::Type(ty.clone())),
        );
        let out = m.result(slot, 0);
        slots.extend([one, slot]);
        let result = m.ops[call].results[0];
        m.ops[call].results.clear();
        m.ops[call].operands.push(out);
        let mut whole = None;
        for &user in users.get(&result).map_or(&[][..], Vec::as_slice) {
            if m.ops[user].name == "llvm.extractvalue" && m.ops[user].operands[0] == result {
                let position = field_position(m, user);
                let loaded_ty = m.ty(m.ops[user].results[0]).clone();
                let path: Vec<i128> = std::iter::once(0).chain(position).collect();
                let (address, load) = load_at(m, out, &ty, &path, loaded_ty, m.ops[user].span);
                before.entry(user).or_default().extend([address, load]);
                replaced.insert(m.ops[user].results[0], m.result(load, 0));
            } else if whole.is_none() {
                let load = m.create_op(OpSpec::new("llvm.load", span).operands([out]).results([ty.clone()]));
                after.entry(call).or_default().push(load);
                whole = Some(m.result(load, 0));
            }
        }
        if let Some(w) = whole {
            replaced.insert(result, w);
        }
    }
    for (op, list) in after {
        let next = next_op(m, op).expect("a call is not a block's terminator");
        before.entry(next).or_default().splice(0..0, list);
    }
    for b in m.regions[region].blocks.clone() {
        insert_before(m, b, &mut before);
    }
    let entry = m.regions[region].blocks[0];
    for &op in &slots {
        m.ops[op].parent = Some(entry);
    }
    let old = std::mem::take(&mut m.blocks[entry].ops);
    m.blocks[entry].ops = slots.into_iter().chain(old).collect();
    m.replace_uses_by_map_in(f, &replaced);
    m.erase_unused(region, |m, op| m.ops[op].name == "llvm.extractvalue");
}

/// The users of each value among `ops`' operands.
fn users_in(m: &Module, ops: &[OpId]) -> HashMap<ValueId, Vec<OpId>> {
    let mut users: HashMap<ValueId, Vec<OpId>> = HashMap::new();
    for &op in ops {
        let d = &m.ops[op];
        for &v in d.operands.iter().chain(d.successors.iter().flat_map(|s| s.args.iter())) {
            users.entry(v).or_default().push(op);
        }
    }
    users
}

/// The operation after `op` in its block.
fn next_op(m: &Module, op: OpId) -> Option<OpId> {
    let block = m.ops[op].parent?;
    let ops = &m.blocks[block].ops;
    ops.iter().position(|&o| o == op).and_then(|i| ops.get(i + 1).copied())
}

/// The address of the field at `path` of a `ty` at `base`, and a load of a `loaded` from it.
fn load_at(m: &mut Module, base: ValueId, ty: &Type, path: &[i128], loaded: Type, span: Span) -> (OpId, OpId) {
    let address = m.create_op(field_address(base, ty, path, span));
    let at = m.result(address, 0);
    (address, m.create_op(OpSpec::new("llvm.load", span).operands([at]).results([loaded])))
}

/// `llvm.getelementptr` of the field at constant `path` of a `ty` at `base`.
fn field_address(base: ValueId, ty: &Type, path: &[i128], span: Span) -> OpSpec {
    OpSpec::new("llvm.getelementptr", span)
        .operands([base])
        .results([Type::ptr()])
        .attr("rawConstantIndices", Attribute::DenseArray { elem: Type::i32(), values: path.to_vec() })
        .attr("elem_type", Attribute::Type(ty.clone()))
}

fn position_attr(position: &[i128]) -> Attribute {
    Attribute::DenseArray { elem: Type::i64(), values: position.to_vec() }
}
