//! `cpu-dispatch`: one library, code for several CPUs, chosen at run time. Every function of the
//! llvm-dialect module is copied once per extra CPU of [`xcc_targets::Target::dispatch`] (its
//! `target_cpu` set, so LLVM compiles and vectorizes the copy for that CPU), and each exported
//! function becomes a dispatcher that asks runtime-c's `xcc_cpu_level()` once per call and calls
//! the copy for the best level the machine has, else the baseline copy (the module's own CPU,
//! optimized for size: `passthrough = ["optsize"]`).
//! Globals, the weights among them, exist once and are shared by every copy.
//!
//! ```text
//! llvm.func @m_run(%a) -> i32 {            // the dispatcher
//!   %l = llvm.call @xcc_cpu_level() : () -> i32
//!   %p = llvm.icmp sge %l, 4   ->  llvm.call @m_run.x86_64_v4(%a)
//!   %q = llvm.icmp sge %l, 3   ->  llvm.call @m_run.x86_64_v3(%a)
//!   otherwise                  ->  llvm.call @m_run.base(%a)
//! }
//! ```
//! Calls and addresses inside each copy are renamed to the same copy, so a version never leaves
//! its CPU (the outlined parallel tasks included). An internal function marked
//! `xcc.dispatch_entry` (the body of a wide signature's wrapper) dispatches as an exported one
//! does; `optnone` functions (the wrappers) are left as they are.
//!
//! Inside the code, a call to `xcc_cpu_level()` (the GEMM's choice of tile, see
//! `LoopBuilder::cpu_level`) folds to the level the copy is compiled for: a copy's own level, the
//! baseline's [`xcc_targets::Target::level`]; in a library built for one CPU, that CPU's level
//! when known, else the call stays and asks at run time.

use super::wide_signatures::{has_passthrough, DISPATCH_ENTRY};
use crate::pass::{CpuCopy, LoweringOptions, Pass};
use std::collections::HashSet;
use xcc_ir::types::FunctionType;
use xcc_ir::{Attribute, Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};

pub struct CpuDispatch;

/// The runtime entry point: `int32_t xcc_cpu_level(void)`.
pub use xcc_ir::builder::CPU_LEVEL;

impl Pass for CpuDispatch {
    fn name(&self) -> &'static str {
        "cpu-dispatch"
    }

    fn run(&self, mut m: Module, options: &LoweringOptions) -> Result<Module, Diagnostic> {
        // An `optnone` function (a wide signature's wrapper) has no code worth a CPU's own version.
        let defined: Vec<OpId> = m
            .top_ops()
            .iter()
            .copied()
            .filter(|&f| is_definition(&m, f) && !has_passthrough(&m, f, "optnone"))
            .collect();
        if options.target.dispatch.is_empty() {
            defined.into_iter().for_each(|f| fold_cpu_level(&mut m, f, options.target.level));
            drop_uncalled_functions(&mut m);
            return Ok(m);
        }
        let names: HashSet<String> = defined.iter().filter_map(|&f| m.sym_name(f).map(str::to_string)).collect();
        let exported: HashSet<String> = defined
            .iter()
            .filter(|&&f| !is_internal(&m, f) || m.attr(f, DISPATCH_ENTRY).is_some())
            .filter_map(|&f| m.sym_name(f).map(str::to_string))
            .collect();
        let mut versions: Vec<&CpuCopy> = options.target.dispatch.iter().collect();
        versions.sort_by_key(|v| std::cmp::Reverse(v.level));
        for v in &versions {
            let suffix = suffix_of(v.cpu);
            for &f in &defined {
                let copy = copy_function(&mut m, f, |name| names.contains(name).then(|| format!("{name}.{suffix}")));
                m.set_attr(copy, "target_cpu", Attribute::String(v.cpu.to_string()));
                if !v.features.is_empty() {
                    m.set_attr(copy, "target_features", Attribute::String(v.features.to_string()));
                }
                fold_cpu_level(&mut m, copy, Some(v.level));
            }
        }
        for &f in &defined {
            let name = m.sym_name(f).unwrap_or_default().to_string();
            if !exported.contains(&name) {
                // The original of an internal function is its baseline version, called by name from
                // the exported functions' baseline copies.
                rename_calls(&mut m, f, |n| exported.contains(n).then(|| format!("{n}.base")));
                add_optsize(&mut m, f);
                fold_cpu_level(&mut m, f, options.target.level);
                continue;
            }
            let base = copy_function(&mut m, f, |n| exported.contains(n).then(|| format!("{n}.base")));
            add_optsize(&mut m, base);
            fold_cpu_level(&mut m, base, options.target.level);
            make_dispatcher(&mut m, f, &name, &versions);
        }
        crate::builder::declare_function(&mut m, CPU_LEVEL, vec![], vec![Type::i32()]);
        drop_uncalled_functions(&mut m);
        Ok(m)
    }
}

/// The baseline runs only on CPUs without AVX2 (rare where speed matters): optimized for size,
/// which keeps LLVM from unrolling and versioning its loops and so bounds the compile time the
/// extra versions add.
fn add_optsize(m: &mut Module, f: OpId) {
    let mut attrs = match m.attr(f, "passthrough") {
        Some(Attribute::Array(items)) => items.clone(),
        _ => Vec::new(),
    };
    attrs.push(Attribute::String("optsize".into()));
    m.set_attr(f, "passthrough", Attribute::Array(attrs));
}

/// A defined `llvm.func` that takes a fixed number of arguments.
pub(super) fn is_definition(m: &Module, f: OpId) -> bool {
    m.ops[f].name == "llvm.func"
        && m.ops[f].regions.first().is_some_and(|&r| !m.regions[r].blocks.is_empty())
        && m.attr(f, "vararg").is_none()
}

/// A function only the module can call: internal or private.
pub(super) fn is_internal(m: &Module, f: OpId) -> bool {
    matches!(m.attr(f, "linkage").and_then(Attribute::as_str), Some("internal" | "private"))
        || m.attr(f, "sym_visibility").and_then(Attribute::as_str) == Some("private")
}

/// `x86-64-v3` -> `x86_64_v3`: a symbol suffix naming the CPU.
fn suffix_of(cpu: &str) -> String {
    cpu.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

/// An internal copy of `f` after it, named by `rename(f's name)`, with its calls and addresses
/// renamed by `rename` where it gives a name.
fn copy_function(m: &mut Module, f: OpId, rename: impl Fn(&str) -> Option<String>) -> OpId {
    let name = m.sym_name(f).unwrap_or_default().to_string();
    let mut map = std::collections::HashMap::new();
    let copy = m.clone_op(f, &mut map);
    m.set_attr(copy, "sym_name", Attribute::String(rename(&name).expect("the function itself is renamed")));
    m.remove_attr(copy, "sym_visibility");
    m.set_attr(copy, "linkage", Attribute::String("internal".into()));
    m.remove_attr(copy, "llvm.emit_c_interface");
    let top = m.body_block();
    m.append_op(top, copy);
    rename_calls(m, copy, rename);
    copy
}

/// Replaces every `xcc_cpu_level()` call in `f` by the constant `level`, when it is known.
fn fold_cpu_level(m: &mut Module, f: OpId, level: Option<u32>) {
    let Some(level) = level else { return };
    let mut calls = Vec::new();
    m.walk_nested(f, &mut |o| {
        if m.ops[o].name == "llvm.call" && m.attr(o, "callee").and_then(Attribute::as_symbol) == Some(CPU_LEVEL) {
            calls.push(o);
        }
    });
    if calls.is_empty() {
        return;
    }
    // One walk replaces every call's uses: a walk per call made this quadratic in the GEMMs.
    let mut constants = std::collections::HashMap::new();
    for call in calls {
        let span = m.ops[call].span;
        let constant = m.build_before(
            call,
            OpSpec::new("llvm.mlir.constant", span)
                .results([Type::i32()])
                .attr("value", Attribute::int(level as i128, Type::i32())),
        );
        constants.insert(m.result(call, 0), m.result(constant, 0));
        m.erase_op(call);
    }
    m.replace_uses_by_map_in(f, &constants);
    fold_level_branches(m, f);
}

/// The comparisons of two constants in `f` (the level against a kernel's threshold, once folded)
/// become constants, and the branches on them jumps, so each copy of the code keeps only its own
/// CPU's side reachable: at -O0 too, where LLVM would otherwise select the other side, whose
/// intrinsics (AVX2's `vpmaddwd`, say) a lesser CPU cannot.
fn fold_level_branches(m: &mut Module, f: OpId) {
    let constant = |m: &Module, v: ValueId| {
        let d = m.defining_op(v).filter(|&d| m.ops[d].name == "llvm.mlir.constant")?;
        m.attr(d, "value")?.as_int()
    };
    let mut compares = Vec::new();
    let mut branches = Vec::new();
    m.walk_nested(f, &mut |o| match m.ops[o].name.as_str() {
        "llvm.icmp" => compares.push(o),
        "llvm.cond_br" => branches.push(o),
        _ => {}
    });
    // One walk replaces every comparison's uses, as for the calls.
    let mut results = std::collections::HashMap::new();
    for cmp in compares {
        let operands = &m.ops[cmp].operands;
        let (Some(l), Some(r)) = (constant(m, operands[0]), constant(m, operands[1])) else { continue };
        let Some(holds) = m.attr(cmp, "predicate").and_then(Attribute::as_int).and_then(|p| compare(p, l, r)) else {
            continue;
        };
        let spec = OpSpec::new("llvm.mlir.constant", m.ops[cmp].span)
            .results([Type::i1()])
            .attr("value", Attribute::int(holds as i128, Type::i1()));
        let value = m.build_before(cmp, spec);
        results.insert(m.result(cmp, 0), m.result(value, 0));
        m.erase_op(cmp);
    }
    m.replace_uses_by_map_in(f, &results);
    let mut jumps = 0;
    for br in branches {
        let condition = m.ops[br].operands[0];
        let taken = match constant(m, condition) {
            Some(c) => usize::from(c == 0),
            None => continue,
        };
        let successor = m.ops[br].successors[taken].clone();
        let spec = OpSpec::new("llvm.br", m.ops[br].span).successor(successor.block, successor.args);
        m.build_before(br, spec);
        m.erase_op(br);
        jumps += 1;
    }
    if jumps > 0 {
        empty_unreachable_blocks(m, f);
    }
}

/// Leaves each block of `f` that its entry no longer reaches with only `llvm.unreachable`, so
/// the other CPU's side names nothing (its outlined parallel tasks then go, see
/// [`drop_uncalled_functions`]).
fn empty_unreachable_blocks(m: &mut Module, f: OpId) {
    let Some(&region) = m.ops[f].regions.first() else { return };
    let blocks = m.regions[region].blocks.clone();
    let mut reached: HashSet<xcc_ir::BlockId> = HashSet::new();
    let mut work = vec![blocks[0]];
    while let Some(b) = work.pop() {
        if reached.insert(b) {
            let last = m.blocks[b].ops.last().copied();
            work.extend(last.into_iter().flat_map(|t| m.ops[t].successors.iter().map(|s| s.block)));
        }
    }
    for b in blocks.into_iter().filter(|b| !reached.contains(b)) {
        let span = m.blocks[b].span;
        for op in m.blocks[b].ops.clone().into_iter().rev() {
            m.erase_op(op);
        }
        m.build(b, OpSpec::new("llvm.unreachable", span));
    }
}

/// Erases the internal functions that nothing names any more, until none is left: the parallel
/// tasks of a kernel's side for another CPU, which LLVM would still compile at -O0.
fn drop_uncalled_functions(m: &mut Module) {
    loop {
        let mut named: HashSet<String> = HashSet::new();
        for &top in m.top_ops() {
            m.walk_nested(top, &mut |o| {
                for key in ["callee", "global_name"] {
                    if let Some(sym) = m.attr(o, key).and_then(Attribute::as_symbol) {
                        named.insert(sym.to_string());
                    }
                }
            });
        }
        let uncalled: Vec<OpId> = m
            .top_ops()
            .iter()
            .copied()
            .filter(|&f| is_definition(m, f) && is_internal(m, f))
            .filter(|&f| m.sym_name(f).is_some_and(|n| !named.contains(n)))
            .collect();
        if uncalled.is_empty() {
            return;
        }
        uncalled.into_iter().for_each(|f| m.erase_op(f));
    }
}

/// `llvm.icmp`'s signed predicates (eq, ne, slt, sle, sgt, sge) on two constants; the unsigned
/// ones would need the constants' width, and no level test uses them.
fn compare(predicate: i128, l: i128, r: i128) -> Option<bool> {
    Some(match predicate {
        0 => l == r,
        1 => l != r,
        2 => l < r,
        3 => l <= r,
        4 => l > r,
        5 => l >= r,
        _ => return None,
    })
}

fn rename_calls(m: &mut Module, f: OpId, rename: impl Fn(&str) -> Option<String>) {
    let mut ops = Vec::new();
    m.walk_nested(f, &mut |o| ops.push(o));
    for o in ops {
        let key = match m.ops[o].name.as_str() {
            "llvm.call" => "callee",
            "llvm.mlir.addressof" => "global_name",
            _ => continue,
        };
        let Some(target) = m.attr(o, key).and_then(Attribute::as_symbol).map(str::to_string) else { continue };
        if let Some(new) = rename(&target) {
            m.set_attr(o, key, Attribute::symbol(new));
        }
    }
}

/// Replaces `f`'s body by the dispatch over `versions` (best level first), then the baseline.
fn make_dispatcher(m: &mut Module, f: OpId, name: &str, versions: &[&CpuCopy]) {
    let span = Span::UNKNOWN;
    let ft = m.function_type(f).expect("llvm.func has a type").clone();
    let region = m.new_region();
    let entry = m.append_block(region, span);
    let args: Vec<ValueId> = ft.inputs.iter().map(|t| m.add_block_arg(entry, t.clone(), span)).collect();
    let level = m.build(
        entry,
        OpSpec::new("llvm.call", span).results([Type::i32()]).attr("callee", Attribute::symbol(CPU_LEVEL)),
    );
    let level = m.result(level, 0);
    let mut at = entry;
    for v in versions {
        let threshold = m.build(
            at,
            OpSpec::new("llvm.mlir.constant", span)
                .results([Type::i32()])
                .attr("value", Attribute::int(v.level as i128, Type::i32())),
        );
        let threshold = m.result(threshold, 0);
        let ok = m.build(
            at,
            OpSpec::new("llvm.icmp", span)
                .operands([level, threshold])
                .results([Type::i1()])
                .attr("predicate", Attribute::i64(5)),
        );
        let ok = m.result(ok, 0);
        let run = m.append_block(region, span);
        let next = m.append_block(region, span);
        m.build(at, OpSpec::new("llvm.cond_br", span).operands([ok]).successor(run, vec![]).successor(next, vec![]));
        tail_call(m, run, &format!("{name}.{}", suffix_of(v.cpu)), &args, &ft);
        at = next;
    }
    tail_call(m, at, &format!("{name}.base"), &args, &ft);
    // The old body stays with the copies made from it; `f` takes the dispatch.
    m.ops[f].regions = vec![region];
    m.regions[region].parent = Some(f);
}

fn tail_call(m: &mut Module, block: xcc_ir::BlockId, callee: &str, args: &[ValueId], ft: &FunctionType) {
    let span = Span::UNKNOWN;
    let call = m.build(
        block,
        OpSpec::new("llvm.call", span)
            .operands(args.iter().copied())
            .results(ft.results.clone())
            .attr("callee", Attribute::symbol(callee)),
    );
    let results = m.ops[call].results.clone();
    m.build(block, OpSpec::new("llvm.return", span).operands(results));
}
