//! Codegen units: a module is split into LLVM modules that LLVM optimizes and compiles apart, so
//! that a machine's cores share the work: one per CPU its functions are compiled for
//! (`cpu-dispatch`'s copies, each function marked with its `target_cpu`), and one for the
//! globals (the weights, whose bytes LLVM writes out while the code compiles). The split depends
//! on the module alone, never on the thread count, so the objects are the same bytes on any
//! machine.
//!
//! The first unit holds the functions without a `target_cpu` (the baseline copy and the
//! dispatchers), each next one a CPU's copies, the last the globals; a CPU's code of more than
//! [`UNIT_OPS`] operations is cut into as many units of about that size, its functions in
//! the module's order (a language model's 130,000 operations per CPU become 3 units, a
//! ResNet's 35,000 stay one), so that more cores than CPU copies still share the work. Every unit declares what it
//! does not define. A symbol one unit defines and another names is shared: where it was
//! internal, it becomes external with hidden visibility, renamed `SYMBOL.MODULE` so that two
//! libraries' internal names cannot meet when a program links both. A small constant global is
//! instead defined in each unit, internal, so that LLVM still folds its values where the code
//! reads them.

use crate::translate::globals::{scalar_bytes, scalar_count};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use xcc_ir::{Attribute, Module, OpId};

/// The largest constant global each unit defines for itself (a table of a few vectors).
pub const SMALL_CONSTANT_BYTES: u64 = 4096;

/// The name of the unit of the globals.
pub const GLOBALS: &str = "globals";

/// The operations (nested ones counted) above which a CPU's code is cut into several units:
/// about 2 s of LLVM's time at `-O3` on one core.
pub const UNIT_OPS: usize = 50_000;

/// The most units one CPU's code is cut into: each unit declares every symbol of the module, so
/// a huge module's units stay few enough for that to cost little beside their code.
pub const MAX_UNITS_PER_CPU: usize = 8;

/// One of the LLVM modules a module is split into.
#[derive(Clone, Debug, Default)]
pub struct Unit {
    /// What it holds: the CPU its functions are compiled for (`x86-64-v4`), [`GLOBALS`], or
    /// nothing for the first unit and for a module that is not split.
    pub name: String,
    /// The functions it defines; it declares the others.
    functions: HashSet<OpId>,
    /// Whether it defines the globals (the unit of the globals, or the only one).
    defines_globals: bool,
    /// The symbols several units name, with the name each has in the objects.
    shared: Arc<HashMap<String, String>>,
    /// The small constant globals every unit defines for itself.
    small_constants: Arc<HashSet<String>>,
}

impl Unit {
    /// Whether this unit defines the function or global `op` named `symbol` (with the linkage
    /// the module gives it, unless [`Unit::hidden`]); otherwise it declares it, external.
    pub fn defines(&self, m: &Module, op: OpId, symbol: &str) -> bool {
        if m.ops[op].name == "llvm.func" {
            self.functions.contains(&op)
        } else {
            self.defines_globals || self.small_constants.contains(symbol)
        }
    }

    /// The name `symbol` has in this unit's object.
    pub fn link_name<'a>(&'a self, symbol: &'a str) -> &'a str {
        self.shared.get(symbol).map_or(symbol, String::as_str)
    }

    /// Whether `symbol` was internal and is shared: hidden, defined or declared, so that the
    /// code reaches it directly rather than through the global offset table.
    pub fn hidden(&self, symbol: &str) -> bool {
        self.shared.get(symbol).is_some_and(|name| name != symbol)
    }
}

/// The units `m` splits into: one per `target_cpu` of its functions (the first, those without
/// one), in the order the module first names them, then one of the globals that are not small
/// constants, where there are any; a single unit where that is all there is. `module` is the
/// LLVM module's name, which renames the shared internal symbols.
pub fn split(m: &Module, module: &str) -> Vec<Unit> {
    let functions: Vec<OpId> =
        m.top_ops().iter().copied().filter(|&op| m.ops[op].name == "llvm.func" && has_body(m, op)).collect();
    let (cpus, unit_of) = code_units(m, &functions);
    let small_constants: HashSet<String> = m
        .top_ops()
        .iter()
        .filter(|&&g| is_small_constant(m, g))
        .filter_map(|&g| Some(m.sym_name(g)?.to_string()))
        .collect();
    let globals = m
        .top_ops()
        .iter()
        .any(|&g| m.ops[g].name == "llvm.mlir.global" && !small_constants.contains(m.sym_name(g).unwrap_or_default()));
    if cpus.len() == 1 && !globals {
        return vec![Unit { functions: functions.into_iter().collect(), defines_globals: true, ..Unit::default() }];
    }
    let globals_unit = globals.then_some(cpus.len());
    let shared = shared_symbols(m, &unit_of, (&small_constants, globals_unit), module);
    let (shared, small_constants) = (Arc::new(shared), Arc::new(small_constants));
    let unit = |name: String, functions: HashSet<OpId>, defines_globals: bool| Unit {
        name,
        functions,
        defines_globals,
        shared: shared.clone(),
        small_constants: small_constants.clone(),
    };
    let mut units: Vec<Unit> = cpus
        .into_iter()
        .enumerate()
        .map(|(i, cpu)| unit(cpu, unit_of.iter().filter(|&(_, &u)| u == i).map(|(&f, _)| f).collect(), false))
        .collect();
    if globals {
        units.push(unit(GLOBALS.to_string(), HashSet::new(), true));
    }
    units
}

/// The code units' names and each function's unit: the functions of each CPU (in the order the
/// module first names the CPUs, those without one first) cut into runs of about [`UNIT_OPS`]
/// operations, in module order; a CPU's first unit is named for the CPU, its next ones
/// `CPU.K`.
fn code_units(m: &Module, functions: &[OpId]) -> (Vec<String>, HashMap<OpId, usize>) {
    let cpu_of = |f: OpId| m.attr(f, "target_cpu").and_then(Attribute::as_str).unwrap_or_default().to_string();
    let mut cpus: Vec<String> = vec![String::new()];
    for &f in functions {
        if !cpus.contains(&cpu_of(f)) {
            cpus.push(cpu_of(f));
        }
    }
    let size = |f: OpId| {
        let mut ops = 0usize;
        m.walk_nested(f, &mut |_| ops += 1);
        ops.max(1)
    };
    let (mut names, mut unit_of) = (Vec::new(), HashMap::new());
    for cpu in cpus {
        let own: Vec<(OpId, usize)> = functions.iter().filter(|&&f| cpu_of(f) == cpu).map(|&f| (f, size(f))).collect();
        if own.is_empty() {
            // The first unit stays first (the dispatchers' and the baseline's), if empty.
            names.push(cpu);
            continue;
        }
        let total: usize = own.iter().map(|&(_, n)| n).sum();
        let parts = total.div_ceil(UNIT_OPS).min(MAX_UNITS_PER_CPU);
        let stem = if cpu.is_empty() { "base".to_string() } else { cpu.clone() };
        // The run each function starts in; a run that a large function spans gets no unit.
        let (mut before, mut run, mut k) = (0, None, 0);
        for (f, n) in own {
            let this = before * parts / total;
            if run != Some(this) {
                names.push(if k == 0 { cpu.clone() } else { format!("{stem}.{k}") });
                (run, k) = (Some(this), k + 1);
            }
            unit_of.insert(f, names.len() - 1);
            before += n;
        }
    }
    (names, unit_of)
}

/// The symbols a unit names but another defines, with their names in the objects: an internal
/// one gets `.MODULE` added.
fn shared_symbols(
    m: &Module,
    unit_of: &HashMap<OpId, usize>,
    (small_constants, globals_unit): (&HashSet<String>, Option<usize>),
    module: &str,
) -> HashMap<String, String> {
    // Where each symbol is defined: functions in their unit, the other globals in theirs.
    let mut home: HashMap<&str, (usize, OpId)> = HashMap::new();
    for &op in m.top_ops() {
        let Some(name) = m.sym_name(op) else { continue };
        match (unit_of.get(&op), globals_unit) {
            (Some(&u), _) => home.insert(name, (u, op)),
            (None, Some(g)) if m.ops[op].name == "llvm.mlir.global" && !small_constants.contains(name) => {
                home.insert(name, (g, op))
            }
            _ => None,
        };
    }
    let mut shared = HashMap::new();
    for (&f, &unit) in unit_of {
        m.walk_nested(f, &mut |o| {
            for symbol in m.ops[o].attrs.iter().filter_map(|(_, a)| a.as_symbol()) {
                let Some(&(defined_in, def)) = home.get(symbol) else { continue };
                if defined_in != unit && !shared.contains_key(symbol) {
                    let name = if is_internal(m, def) { format!("{symbol}.{module}") } else { symbol.to_string() };
                    shared.insert(symbol.to_string(), name);
                }
            }
        });
    }
    shared
}

fn has_body(m: &Module, f: OpId) -> bool {
    m.ops[f].regions.first().is_some_and(|&r| !m.regions[r].blocks.is_empty())
}

/// Whether the symbol is local to its object, as the translation links it: its linkage says so,
/// or it is a function defined with private visibility.
fn is_internal(m: &Module, op: OpId) -> bool {
    matches!(m.attr(op, "linkage").and_then(Attribute::as_str), Some("internal" | "private"))
        || (m.ops[op].name == "llvm.func"
            && m.attr(op, "sym_visibility").and_then(Attribute::as_str) == Some("private")
            && has_body(m, op))
}

/// An internal constant global with a value of at most [`SMALL_CONSTANT_BYTES`], not thread-local.
fn is_small_constant(m: &Module, g: OpId) -> bool {
    let op = &m.ops[g];
    if op.name != "llvm.mlir.global" || m.attr(g, "constant").is_none() || m.attr(g, "value").is_none() {
        return false;
    }
    // An exported constant keeps one definition: a program may name it.
    if !is_internal(m, g) {
        return false;
    }
    if m.attr(g, "thread_local_").is_some() {
        return false;
    }
    let Some(ty) = m.attr(g, "global_type").and_then(Attribute::as_type) else { return false };
    if matches!(ty, xcc_ir::Type::LlvmStruct { .. }) {
        return false;
    }
    scalar_count(ty).and_then(|n| n.checked_mul(scalar_bytes(ty) as u64)).is_some_and(|b| b <= SMALL_CONSTANT_BYTES)
}
