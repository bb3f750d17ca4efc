//! `split-large-functions`: a function of more than [`SPLIT_ABOVE_OPS`] top-level operations has
//! runs of them moved into functions of their own (`FUNC_partK`, `noinline`), each about
//! [`PART_OPS`] operations (nested ones counted), called in order.
//!
//! Why: several of LLVM's passes cost more than linear time in the size of a function or of a
//! basic block (constraint elimination over every dominating condition, the SLP vectorizer's
//! trees, the machine scheduler's dependence graph, two-address rewriting over a value's uses).
//! A model of 500 small operators, or an MLIR function of 100,000 operations, is one such
//! function once small loops are unrolled: compile time grew with its square (a Sum of 1,000
//! inputs took 22 s, 1,000 Relus 138 s). Functions of bounded size keep the compile about linear.
//! Real models stay under the threshold, so their code is unchanged.
//!
//! ```text
//! func.func @f(%a) {             func.func @f(%a) {
//!   %x = op1 %a                    %x = func.call @f_part0(%a)
//!   ... 2,000 more                 %y = func.call @f_part1(%a, %x)
//!   %y = op2 %x, %a                use %y
//!   use %y                       }
//! }                              func.func private @f_part0(%a) -> ... attributes {passthrough = ["noinline"]}
//! ```
//! Values a run uses from before it become parameters (constants are defined again inside),
//! values used after it become results. Stack allocations stay in the function that owns the
//! frame (a part's frame ends with its call), so a part never spans one.

use crate::pass::{LoweringOptions, Pass};
use std::collections::{HashMap, HashSet};
use xcc_ir::types::FunctionType;
use xcc_ir::{Attribute, BlockId, Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};

pub struct SplitLargeFunctions;

/// Functions with more top-level operations than this are split.
pub const SPLIT_ABOVE_OPS: usize = 4_096;

/// About how many operations each part holds.
pub const PART_OPS: usize = 1_024;

/// The fewest operations of a part that ends because its inputs would pass too many scalars:
/// each operation of a function of many rank-2 memrefs uses a new one of 7 scalars, so such
/// parts hold about 70 memrefs' operations; smaller runs stay where they are.
const MIN_PART_OPS_BY_INPUTS: usize = PART_OPS / 16;

impl Pass for SplitLargeFunctions {
    fn name(&self) -> &'static str {
        "split-large-functions"
    }

    fn run(&self, mut m: Module, _options: &LoweringOptions) -> Result<Module, Diagnostic> {
        let funcs: Vec<OpId> = m.top_ops().iter().copied().filter(|&f| splittable(&m, f)).collect();
        for f in funcs {
            split(&mut m, f);
        }
        Ok(m)
    }
}

/// A `func.func` whose one-block body has more than [`SPLIT_ABOVE_OPS`] top-level operations.
/// Top-level operations, not nested ones: a model's kernels are loops, few at the top, which LLVM
/// handles in linear time; what grows a function beyond that is many small operations, each a
/// few top-level ones (500 inputs through a Relu each to an output are 12,000).
fn splittable(m: &Module, f: OpId) -> bool {
    if m.ops[f].name != "func.func" {
        return false;
    }
    let Some(&body) = m.ops[f].regions.first() else { return false };
    match m.regions[body].blocks[..] {
        [entry] => m.blocks[entry].ops.len() > SPLIT_ABOVE_OPS,
        _ => false,
    }
}

/// Outlines the runs of `f`'s entry block, in time linear in `f`'s size: one walk finds where
/// each value is last used, each run's operations are walked once, and the block is rebuilt once.
fn split(m: &mut Module, f: OpId) {
    let entry = m.regions[m.ops[f].regions[0]].blocks[0];
    let ops = m.blocks[entry].ops.clone();
    let last_use = last_uses(m, &ops);
    let mut calls: HashMap<usize, OpId> = HashMap::new();
    let mut moved: HashSet<usize> = HashSet::new();
    let mut returned: HashMap<ValueId, ValueId> = HashMap::new();
    let mut numbering = 0;
    let mut recomputable = Recomputable::new(m, f);
    for run_at in runs_of(m, &ops, &mut recomputable) {
        let run: Vec<OpId> = run_at.iter().map(|&i| ops[i]).collect();
        let end = run_at.last().expect("a run is not empty") + 1;
        let boundary = boundary(m, &run, |v| last_use.get(&v).is_some_and(|&i| i >= end));
        let passed = boundary.used.iter().filter(|&&v| !recomputable.holds(m, v));
        if boundary.results.iter().chain(passed).map(|&v| scalars(m.ty(v))).sum::<u64>() > MAX_BOUNDARY_SCALARS {
            continue;
        }
        let call = outline_run(m, (f, &run), boundary, &mut recomputable, &mut numbering, &mut returned);
        calls.insert(run_at[0], call);
        moved.extend(run_at);
    }
    let mut rebuilt = Vec::with_capacity(ops.len());
    for (i, &op) in ops.iter().enumerate() {
        if let Some(&call) = calls.get(&i) {
            m.ops[call].parent = Some(entry);
            rebuilt.push(call);
        }
        if !moved.contains(&i) {
            rebuilt.push(op);
        }
    }
    m.blocks[entry].ops = rebuilt;
    m.replace_uses_by_map_in(f, &returned);
    remove_unused_definitions(m, f);
}

/// Erases the entry block's [`RECOMPUTED`] operations that nothing uses any more: those only the
/// moved runs used (their parts compute their own). Left in place they would be LLVM's to
/// delete, after `outline-wide-signatures` has loaded the parameters they read there: thousands
/// of loads at the top of the function, live across every call to a part.
fn remove_unused_definitions(m: &mut Module, f: OpId) {
    m.erase_unused(m.ops[f].regions[0], |m, op| {
        m.ops[op].regions.is_empty() && RECOMPUTED.contains(&m.ops[op].name.as_str())
    });
}

/// The most scalars (a memref descriptor of rank r is 3 + 2r) a run may use from before it and
/// give to after it: past that the call's arguments and results would cost LLVM more than the
/// run (a tensor of rank 1,000 is 2,003 scalars), so the run stays where it is.
const MAX_BOUNDARY_SCALARS: u64 = 1024;

/// How many scalars a value of type `t` passes as (an estimate for aggregates).
fn scalars(t: &Type) -> u64 {
    match t {
        Type::MemRef(m) => 3 + 2 * m.rank() as u64,
        Type::LlvmStruct { fields, .. } => fields.iter().map(scalars).sum(),
        Type::LlvmArray { len, elem } => len.saturating_mul(scalars(elem)),
        _ => 1,
    }
}

/// For each value used in `ops` (at any depth), the index of the last top-level op using it.
fn last_uses(m: &Module, ops: &[OpId]) -> HashMap<ValueId, usize> {
    let mut last = HashMap::new();
    for (i, &op) in ops.iter().enumerate() {
        let mut note = |o: OpId| {
            let d = &m.ops[o];
            for &v in d.operands.iter().chain(d.successors.iter().flat_map(|s| s.args.iter())) {
                last.insert(v, i);
            }
        };
        note(op);
        m.walk_nested(op, &mut note);
    }
    last
}

fn is_stack_allocation(m: &Module, op: OpId) -> bool {
    matches!(m.ops[op].name.as_str(), "memref.alloca" | "llvm.alloca" | "memref.alloca_scope")
}

/// Runs of top-level operations (their indices) of about [`PART_OPS`] operations each; shorter
/// leftovers stay where they are. The terminator stays, and so do stack allocations (a run ends
/// at one) and what parts compute again (the function keeps its own, for what stays). A run also
/// ends before the values it uses from outside pass more than half of [`MAX_BOUNDARY_SCALARS`]
/// (a function of thousands of memref parameters, each used once, gives each part its own few
/// hundred rather than no part at all).
fn runs_of(m: &Module, ops: &[OpId], recomputable: &mut Recomputable) -> Vec<Vec<usize>> {
    let body = ops.len().saturating_sub(1);
    let mut runs = Vec::new();
    let mut run = RunInProgress::default();
    for (i, &op) in ops[..body].iter().enumerate() {
        if is_stack_allocation(m, op) {
            run.end(&mut runs);
            continue;
        }
        let results = &m.ops[op].results;
        if !results.is_empty() && results.iter().all(|&v| recomputable.holds(m, v)) {
            continue;
        }
        let (weight, inputs) = run.inputs_of(m, op, recomputable);
        if !run.indices.is_empty()
            && run.scalars + inputs.iter().map(|&v| scalars(m.ty(v))).sum::<u64>() > MAX_BOUNDARY_SCALARS / 2
        {
            run.end_at(&mut runs, MIN_PART_OPS_BY_INPUTS);
        }
        run.add(m, i, op, weight, inputs);
        if run.size >= PART_OPS {
            run.end(&mut runs);
        }
    }
    run.end(&mut runs);
    runs
}

/// The run being grown: its operations, their weight, what they define and the scalars of what
/// they use from outside it.
#[derive(Default)]
struct RunInProgress {
    indices: Vec<usize>,
    size: usize,
    defined: HashSet<ValueId>,
    used: HashSet<ValueId>,
    scalars: u64,
}

impl RunInProgress {
    /// `op`'s weight (nested operations counted) and the values it uses that neither the run nor
    /// `op` defines and that a part would receive as parameters.
    fn inputs_of(&self, m: &Module, op: OpId, recomputable: &mut Recomputable) -> (usize, Vec<ValueId>) {
        let mut nested = vec![op];
        m.walk_nested(op, &mut |o| nested.push(o));
        let mut inner: HashSet<ValueId> = HashSet::new();
        for &o in &nested {
            inner.extend(m.ops[o].results.iter().copied());
            for &r in &m.ops[o].regions {
                m.regions[r].blocks.iter().for_each(|&b| inner.extend(m.blocks[b].args.iter().copied()));
            }
        }
        let (mut inputs, mut seen) = (Vec::new(), HashSet::new());
        for &o in &nested {
            let d = &m.ops[o];
            for &v in d.operands.iter().chain(d.successors.iter().flat_map(|s| s.args.iter())) {
                let outside = !inner.contains(&v) && !self.defined.contains(&v) && !self.used.contains(&v);
                if outside && seen.insert(v) && !recomputable.holds(m, v) {
                    inputs.push(v);
                }
            }
        }
        (nested.len(), inputs)
    }

    fn add(&mut self, m: &Module, i: usize, op: OpId, weight: usize, inputs: Vec<ValueId>) {
        self.indices.push(i);
        self.size += weight;
        self.scalars += inputs.iter().map(|&v| scalars(m.ty(v))).sum::<u64>();
        self.used.extend(inputs);
        self.defined.extend(m.ops[op].results.iter().copied());
    }

    /// Closes the run: kept when it is worth a call, else its operations stay where they are.
    fn end(&mut self, runs: &mut Vec<Vec<usize>>) {
        self.end_at(runs, PART_OPS / 4);
    }

    /// [`RunInProgress::end`] for a run of at least `min` operations.
    fn end_at(&mut self, runs: &mut Vec<Vec<usize>>, min: usize) {
        let run = std::mem::take(self);
        if run.size >= min {
            runs.push(run.indices);
        }
    }
}

/// Operations without effects that a part computes again from the function's parameters
/// rather than receive: constants, and the memref descriptors the function builds from its
/// pointers (a model's prologue builds one per tensor; passing them would make calls of
/// thousands of fields, whose instruction selection is superlinear).
const RECOMPUTED: &[&str] = &[
    "arith.constant",
    "arith.index_cast",
    "builtin.unrealized_conversion_cast",
    "llvm.extractvalue",
    "llvm.insertvalue",
    "llvm.mlir.addressof",
    "llvm.mlir.constant",
    "llvm.mlir.poison",
    "llvm.mlir.undef",
    "llvm.mlir.zero",
    "memref.get_global",
];

/// The most operations a value's definition may take to be computed again in a part.
const MAX_RECOMPUTED_OPS: usize = 64;

/// Which values defined outside a run a part computes again: those whose definitions are
/// [`RECOMPUTED`] operations, of at most [`MAX_RECOMPUTED_OPS`] in all, over the function's
/// parameters. Memoized over the function, so deciding costs linear time in all.
struct Recomputable {
    params: HashSet<ValueId>,
    /// The operands of the entry block's [`RECOMPUTED`] operations as they were before any run
    /// moved (a definition moved into an earlier part has its operands renamed to that part's).
    original_operands: HashMap<OpId, Vec<ValueId>>,
    /// A value's definition's operation count, capped at [`MAX_RECOMPUTED_OPS`] + 1.
    cost: HashMap<ValueId, usize>,
}

impl Recomputable {
    fn new(m: &Module, f: OpId) -> Self {
        let entry = m.regions[m.ops[f].regions[0]].blocks[0];
        let recomputed = |&&op: &&OpId| m.ops[op].regions.is_empty() && RECOMPUTED.contains(&m.ops[op].name.as_str());
        let original_operands =
            m.blocks[entry].ops.iter().filter(recomputed).map(|&op| (op, m.ops[op].operands.clone())).collect();
        Recomputable { params: m.blocks[entry].args.iter().copied().collect(), original_operands, cost: HashMap::new() }
    }

    fn holds(&mut self, m: &Module, v: ValueId) -> bool {
        !self.params.contains(&v) && self.cost(m, v) <= MAX_RECOMPUTED_OPS
    }

    /// The operands `v`'s definition had, where it is one the parts may compute again.
    fn definition(&self, m: &Module, v: ValueId) -> Option<&[ValueId]> {
        m.defining_op(v).and_then(|def| self.original_operands.get(&def)).map(Vec::as_slice)
    }

    fn cost(&mut self, m: &Module, v: ValueId) -> usize {
        const TOO_MANY: usize = MAX_RECOMPUTED_OPS + 1;
        if self.params.contains(&v) {
            return 0;
        }
        if let Some(&c) = self.cost.get(&v) {
            return c;
        }
        let c = match self.definition(m, v).map(<[ValueId]>::to_vec) {
            Some(operands) => {
                // Operand lists are short; a long chain stops at the cap before recursing deep.
                self.cost.insert(v, TOO_MANY);
                let mut total = 1;
                for o in operands {
                    total += self.cost(m, o);
                    if total > MAX_RECOMPUTED_OPS {
                        break;
                    }
                }
                total.min(TOO_MANY)
            }
            _ => TOO_MANY,
        };
        self.cost.insert(v, c);
        c
    }
}

/// What a run uses from before it and defines for after it.
struct Boundary {
    /// Values defined before the run and used in it, in first-use order.
    used: Vec<ValueId>,
    /// Results of the run's top-level operations used after it.
    results: Vec<ValueId>,
}

fn boundary(m: &Module, run: &[OpId], used_after: impl Fn(ValueId) -> bool) -> Boundary {
    let mut defined: HashSet<ValueId> = HashSet::new();
    let mut nested = Vec::new();
    for &op in run {
        nested.push(op);
        m.walk_nested(op, &mut |o| nested.push(o));
    }
    for &o in &nested {
        defined.extend(m.ops[o].results.iter().copied());
        for &r in &m.ops[o].regions {
            for &b in &m.regions[r].blocks {
                defined.extend(m.blocks[b].args.iter().copied());
            }
        }
    }
    let (mut seen, mut used) = (HashSet::new(), Vec::new());
    for &o in &nested {
        let d = &m.ops[o];
        for &v in d.operands.iter().chain(d.successors.iter().flat_map(|s| s.args.iter())) {
            if !defined.contains(&v) && seen.insert(v) {
                used.push(v);
            }
        }
    }
    let results = run.iter().flat_map(|&op| m.ops[op].results.iter().copied()).filter(|&v| used_after(v)).collect();
    Boundary { used, results }
}

/// A part under construction: its entry block, its parameters (the caller's values, in order)
/// and what each outside value is inside it.
struct Part {
    body: BlockId,
    params: Vec<ValueId>,
    inside: HashMap<ValueId, ValueId>,
}

impl Part {
    /// `v` (defined outside) inside the part: recomputed where [`Recomputable`] says so, else a
    /// new parameter.
    fn import(&mut self, m: &mut Module, recomputable: &mut Recomputable, v: ValueId) -> ValueId {
        if let Some(&x) = self.inside.get(&v) {
            return x;
        }
        let x = if recomputable.holds(m, v) {
            let def = m.defining_op(v).expect("recomputed values are op results");
            let original = recomputable.definition(m, v).expect("a recomputed definition").to_vec();
            let operands: Vec<ValueId> = original.into_iter().map(|o| self.import(m, recomputable, o)).collect();
            let copy = m.clone_op(def, &mut HashMap::new());
            m.ops[copy].operands = operands;
            m.append_op(self.body, copy);
            let i = m.ops[def].results.iter().position(|&r| r == v).expect("a result of its definition");
            m.ops[copy].results[i]
        } else {
            let span = m.values[v].span;
            let t = m.ty(v).clone();
            self.params.push(v);
            m.add_block_arg(self.body, t, span)
        };
        self.inside.insert(v, x);
        x
    }
}

/// Moves `run` into a new function and returns the (detached) call that replaces it; the run's
/// results map to the call's in `returned`.
fn outline_run(
    m: &mut Module,
    (f, run): (OpId, &[OpId]),
    Boundary { used, results }: Boundary,
    recomputable: &mut Recomputable,
    numbering: &mut usize,
    returned: &mut HashMap<ValueId, ValueId>,
) -> OpId {
    let span = m.ops[run[0]].span;
    let name = fresh_name(m, f, numbering);
    let outputs: Vec<Type> = results.iter().map(|&v| m.ty(v).clone()).collect();
    let part_op = new_part(m, f, &name, span);
    let body = m.regions[m.ops[part_op].regions[0]].blocks[0];
    let mut part = Part { body, params: Vec::new(), inside: HashMap::new() };
    for v in used {
        part.import(m, recomputable, v);
    }
    for &op in run {
        m.ops[op].parent = None;
        m.append_op(body, op);
    }
    m.build(body, OpSpec::new("func.return", span).operands(results.clone()));
    m.replace_uses_by_map_in(part_op, &part.inside);
    let inputs: Vec<Type> = part.params.iter().map(|&v| m.ty(v).clone()).collect();
    let signature = FunctionType { inputs, results: outputs.clone() };
    m.set_attr(part_op, "function_type", Attribute::Type(Type::Function(signature)));
    let call = m.create_op(
        OpSpec::new("func.call", span).operands(part.params).attr("callee", Attribute::symbol(&name)).results(outputs),
    );
    returned.extend(results.iter().enumerate().map(|(i, &v)| (v, m.result(call, i))));
    call
}

/// `FUNC_partK`, skipping names already taken.
fn fresh_name(m: &Module, f: OpId, next: &mut usize) -> String {
    let base = m.sym_name(f).unwrap_or("fn").to_string();
    loop {
        let name = format!("{base}_part{next}");
        *next += 1;
        if m.lookup_symbol(&name).is_none() {
            return name;
        }
    }
}

/// A private, never-inlined `func.func @name` placed after `f`, its signature set once its body is.
fn new_part(m: &mut Module, f: OpId, name: &str, span: Span) -> OpId {
    let private = ("sym_visibility", Attribute::String("private".into()));
    let part = super::parallel_to_threads::outlined_function(m, f, (name, "_part"), vec![], private, span);
    m.set_attr(part, "passthrough", Attribute::Array(vec![Attribute::String("noinline".into())]));
    part
}
