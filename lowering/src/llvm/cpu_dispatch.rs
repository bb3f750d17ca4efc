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
//! its CPU (the outlined parallel tasks included).
//!
//! A partial copy (VNNI's, which only int8 kernels use) holds only the functions whose level
//! tests fold otherwise at its level than at the copy's below (a kernel's parallel task that
//! tests for VNNI), and the functions they name only on its side of those tests. The copy below
//! calls each of the first through a dispatcher of its own, which asks the level at run time;
//! the partial copy's other calls go to the copy below. A kernel that tests the level inside
//! its parallel tasks thus costs a copy of its tasks, not of the functions around them.
//!
//! ```text
//! llvm.func internal @task.x86_64_v4_vnni.dispatch(%c, %b, %e) {
//!   %l = llvm.call @xcc_cpu_level() : () -> i32
//!   %p = llvm.icmp sge %l, 5   ->  llvm.call @task.x86_64_v4_vnni(%c, %b, %e)
//!   otherwise                  ->  llvm.call @task.x86_64_v4(%c, %b, %e)
//! }
//! ```
//!
//! An internal function marked `xcc.dispatch_entry` (the body of a wide signature's wrapper)
//! dispatches as an exported one does; `optnone` functions (the wrappers) are left as they are.
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
        versions.sort_by_key(|v| v.level);
        let (held, dispatched) = held_functions(&m, &defined, &versions);
        let copies = Copies { versions, held, dispatched, exported };
        for i in (0..copies.versions.len()).rev() {
            let v = copies.versions[i];
            for &f in &defined {
                let Some(name) = m.sym_name(f).filter(|n| copies.held[i].contains(*n)).map(str::to_string) else {
                    continue;
                };
                let own = format!("{name}.{}", v.name);
                let copy = copy_function(&mut m, f, own, |n| names.contains(n).then(|| copies.symbol(Some(i), n)));
                m.set_attr(copy, "target_cpu", Attribute::String(v.cpu.to_string()));
                if !v.features.is_empty() {
                    m.set_attr(copy, "target_features", Attribute::String(v.features.to_string()));
                }
                fold_cpu_level(&mut m, copy, Some(v.level));
            }
        }
        for (i, names) in copies.dispatched.iter().enumerate().filter(|(_, names)| !names.is_empty()) {
            let (below, above) = (copies.versions[i], copies.versions[i + 1]);
            for &f in &defined {
                let Some(name) = m.sym_name(f).filter(|n| names.contains(*n)).map(str::to_string) else { continue };
                let dispatcher = empty_copy(&mut m, f, copies.symbol(Some(i), &name));
                let choices = [(above.level, format!("{name}.{}", above.name))];
                make_dispatcher(&mut m, dispatcher, &choices, &format!("{name}.{}", below.name));
            }
        }
        let exported = &copies.exported;
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
            let base =
                copy_function(&mut m, f, format!("{name}.base"), |n| exported.contains(n).then(|| format!("{n}.base")));
            add_optsize(&mut m, base);
            fold_cpu_level(&mut m, base, options.target.level);
            let choices: Vec<(u32, String)> = (0..copies.versions.len())
                .rev()
                .filter(|&i| copies.held[i].contains(&name))
                .map(|i| (copies.versions[i].level, format!("{name}.{}", copies.versions[i].name)))
                .collect();
            make_dispatcher(&mut m, f, &choices, &format!("{name}.base"));
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

/// The copies of the code: each CPU's (by level, lowest first) and the functions it holds.
struct Copies<'a> {
    versions: Vec<&'a CpuCopy>,
    held: Vec<HashSet<String>>,
    /// For each copy, the functions it calls through a dispatcher that asks the level at run
    /// time: those the partial copy above it holds a version of its own.
    dispatched: Vec<HashSet<String>>,
    /// The exported functions (and dispatch entries), whose baseline is `{name}.base`.
    exported: HashSet<String>,
}

impl Copies<'_> {
    /// The symbol of function `name` in copy `copy` (`None`: the baseline): its dispatcher where
    /// the copy above is partial and has a version of it, else its own version, else the nearest
    /// copy's below that holds one.
    fn symbol(&self, copy: Option<usize>, name: &str) -> String {
        let mut at = copy;
        while let Some(i) = at {
            if self.dispatched[i].contains(name) {
                return format!("{name}.{}.dispatch", self.versions[i + 1].name);
            }
            if self.held[i].contains(name) {
                return format!("{name}.{}", self.versions[i].name);
            }
            at = i.checked_sub(1);
        }
        if self.exported.contains(name) {
            format!("{name}.base")
        } else {
            name.to_string()
        }
    }
}

/// The functions each copy (of `versions`, lowest level first) holds, and those it dispatches to
/// the copy above: a full copy holds every one; a partial one above a full one, the functions
/// whose level tests fold otherwise at its level (the copy below calls them through a
/// dispatcher) and those they name only on its side of those tests (its features' code).
fn held_functions(m: &Module, defined: &[OpId], versions: &[&CpuCopy]) -> (Vec<HashSet<String>>, Vec<HashSet<String>>) {
    let every: HashSet<String> = defined.iter().filter_map(|&f| m.sym_name(f).map(str::to_string)).collect();
    let mut held = Vec::new();
    let mut dispatched = vec![HashSet::new(); versions.len()];
    for (i, v) in versions.iter().enumerate() {
        let below = i.checked_sub(1).map(|b| versions[b]).filter(|b| !b.partial);
        let Some(below) = below.filter(|_| v.partial) else {
            held.push(every.clone());
            continue;
        };
        let (differing, only_above) = partial_functions(m, defined, (below.level, v.level));
        held.push(differing.union(&only_above).cloned().collect());
        dispatched[i - 1] = differing;
    }
    (held, dispatched)
}

/// The functions whose level tests have another outcome at level `to` than at `from`, and the
/// functions these name only where the tests take `to`'s side (a kernel's code for the features
/// of `to`), with all those name.
fn partial_functions(m: &Module, defined: &[OpId], (from, to): (u32, u32)) -> (HashSet<String>, HashSet<String>) {
    let named = |f: OpId| m.sym_name(f).map(str::to_string);
    let testing: Vec<OpId> = defined.iter().copied().filter(|&f| level_tests_differ(m, f, (from, to))).collect();
    let references: Vec<(String, HashSet<String>)> =
        defined.iter().filter_map(|&f| Some((named(f)?, named_symbols(m, f)))).collect();
    let mut only_above: HashSet<String> = HashSet::new();
    for &f in &testing {
        let below = named_at_level(m, f, from);
        only_above.extend(named_at_level(m, f, to).into_iter().filter(|n| !below.contains(n)));
    }
    let defined_names: HashSet<&str> = references.iter().map(|(name, _)| name.as_str()).collect();
    only_above.retain(|n| defined_names.contains(n.as_str()));
    add_callees(&mut only_above, &references);
    (testing.iter().filter_map(|&f| named(f)).collect(), only_above)
}

/// Adds to `held` every function of `references` that one held names, until none is left.
fn add_callees(held: &mut HashSet<String>, references: &[(String, HashSet<String>)]) {
    let defined: HashSet<&str> = references.iter().map(|(n, _)| n.as_str()).collect();
    loop {
        let before = held.len();
        for (name, names) in references {
            if held.contains(name) {
                let new: Vec<String> =
                    names.iter().filter(|n| defined.contains(n.as_str()) && !held.contains(*n)).cloned().collect();
                held.extend(new);
            }
        }
        if held.len() == before {
            return;
        }
    }
}

/// The symbols `f` names in the blocks it reaches at `level`, each branch on a test of the level
/// taken as it folds there.
fn named_at_level(m: &Module, f: OpId, level: u32) -> HashSet<String> {
    let levels = level_values(m, f);
    let mut outcomes: std::collections::HashMap<ValueId, bool> = std::collections::HashMap::new();
    m.walk_nested(f, &mut |o| {
        if let Some(holds) = test_outcome(m, o, &levels, level) {
            outcomes.insert(m.result(o, 0), holds);
        }
    });
    let mut names = HashSet::new();
    let Some(&region) = m.ops[f].regions.first() else { return names };
    let Some(&entry) = m.regions[region].blocks.first() else { return names };
    let mut reached: HashSet<xcc_ir::BlockId> = HashSet::new();
    let mut work = vec![entry];
    while let Some(b) = work.pop() {
        if !reached.insert(b) {
            continue;
        }
        for &o in &m.blocks[b].ops {
            names.extend(symbols_of(m, o).chain(named_symbols(m, o)));
        }
        let Some(&last) = m.blocks[b].ops.last() else { continue };
        let successors = &m.ops[last].successors;
        let taken = match m.ops[last].operands.first().and_then(|c| outcomes.get(c)) {
            Some(&holds) if m.ops[last].name == "llvm.cond_br" => vec![successors[usize::from(!holds)].block],
            _ => successors.iter().map(|s| s.block).collect(),
        };
        work.extend(taken);
    }
    names
}

/// The results of `f`'s calls to `xcc_cpu_level()`.
fn level_values(m: &Module, f: OpId) -> HashSet<ValueId> {
    let mut levels = HashSet::new();
    m.walk_nested(f, &mut |o| {
        if m.ops[o].name == "llvm.call" && m.attr(o, "callee").and_then(Attribute::as_symbol) == Some(CPU_LEVEL) {
            levels.extend(m.ops[o].results.iter().copied());
        }
    });
    levels
}

/// Whether `op`, an `llvm.icmp` of a level (one of `levels`) and a constant, holds at `level`.
fn test_outcome(m: &Module, op: OpId, levels: &HashSet<ValueId>, level: u32) -> Option<bool> {
    let operands = &m.ops[op].operands;
    if m.ops[op].name != "llvm.icmp" || operands.len() != 2 {
        return None;
    }
    let k = operands.iter().position(|v| levels.contains(v))?;
    let c = constant(m, operands[1 - k])?;
    let predicate = m.attr(op, "predicate")?.as_int()?;
    let (l, r) = if k == 0 { (level as i128, c) } else { (c, level as i128) };
    compare(predicate, l, r)
}

/// Whether `f` uses `xcc_cpu_level()` otherwise at level `to` than at `from`: a test of it with
/// another outcome, or any other use.
fn level_tests_differ(m: &Module, f: OpId, (from, to): (u32, u32)) -> bool {
    let levels = level_values(m, f);
    if levels.is_empty() {
        return false;
    }
    let mut differs = false;
    m.walk_nested(f, &mut |o| {
        if !m.ops[o].operands.iter().any(|v| levels.contains(v)) {
            return;
        }
        let (below, at) = (test_outcome(m, o, &levels, from), test_outcome(m, o, &levels, to));
        differs |= below.is_none() || below != at;
    });
    differs
}

/// The symbols the operations nested in `f` call or take the address of.
fn named_symbols(m: &Module, f: OpId) -> HashSet<String> {
    let mut names = HashSet::new();
    m.walk_nested(f, &mut |o| names.extend(symbols_of(m, o)));
    names
}

/// The symbol `op` itself calls or takes the address of.
fn symbols_of(m: &Module, op: OpId) -> impl Iterator<Item = String> + '_ {
    ["callee", "global_name"].into_iter().filter_map(move |key| Some(m.attr(op, key)?.as_symbol()?.to_string()))
}

/// The value of an `llvm.mlir.constant` integer.
fn constant(m: &Module, v: ValueId) -> Option<i128> {
    let d = m.defining_op(v).filter(|&d| m.ops[d].name == "llvm.mlir.constant")?;
    m.attr(d, "value")?.as_int()
}

/// An internal copy of `f` after it, named `own`, with its calls and addresses renamed by
/// `rename` where it gives a name.
fn copy_function(m: &mut Module, f: OpId, own: String, rename: impl Fn(&str) -> Option<String>) -> OpId {
    let mut map = std::collections::HashMap::new();
    let copy = m.clone_op(f, &mut map);
    make_internal(m, copy, own);
    rename_calls(m, copy, rename);
    copy
}

/// An internal function of `f`'s type after it, named `name`, without a body.
fn empty_copy(m: &mut Module, f: OpId, name: String) -> OpId {
    let body = std::mem::take(&mut m.ops[f].regions);
    let copy = m.clone_op(f, &mut std::collections::HashMap::new());
    m.ops[f].regions = body;
    m.remove_attr(copy, DISPATCH_ENTRY);
    make_internal(m, copy, name);
    copy
}

fn make_internal(m: &mut Module, f: OpId, name: String) {
    m.set_attr(f, "sym_name", Attribute::String(name));
    m.remove_attr(f, "sym_visibility");
    m.set_attr(f, "linkage", Attribute::String("internal".into()));
    m.remove_attr(f, "llvm.emit_c_interface");
    let top = m.body_block();
    m.append_op(top, f);
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
        let named: HashSet<String> = m.top_ops().iter().flat_map(|&top| named_symbols(m, top)).collect();
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

/// Replaces `f`'s body by a dispatch on `xcc_cpu_level()`: the first of `choices` (a least level
/// and the function to call there, best first) whose level the CPU has, else `otherwise`.
fn make_dispatcher(m: &mut Module, f: OpId, choices: &[(u32, String)], otherwise: &str) {
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
    for (least, callee) in choices {
        let threshold = m.build(
            at,
            OpSpec::new("llvm.mlir.constant", span)
                .results([Type::i32()])
                .attr("value", Attribute::int(*least as i128, Type::i32())),
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
        tail_call(m, run, callee, &args, &ft);
        at = next;
    }
    tail_call(m, at, otherwise, &args, &ft);
    // The old body (if any) stays with the copies made from it; `f` takes the dispatch.
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
