//! `convert-parallel-to-threads`: the outermost `scf.parallel` worth sharing between threads
//! becomes a call to runtime-c's `xcc_parallel_for`, its body outlined into a function that runs
//! a range of the loop's iterations. The CPU half of the one seam threads and GPU grids share;
//! the GPU target leaves the loops to its own mapping (and this pass does nothing there).
//!
//! ```text
//! scf.parallel (%i, %j) = (0, 0) to (64, 3136) step (1, 1) { body(%i, %j, %buf) }
//! ```
//! becomes, with `%buf` (and every other value the body uses from outside) stored in a context
//! struct on the caller's stack:
//! ```text
//! llvm.store %buf_descriptor, (gep %ctx[0, 0]) ...
//! llvm.call @xcc_parallel_for(@f_parallel0, %ctx, 64)
//! func.func private @f_parallel0(%ctx: !llvm.ptr, %begin: index, %end: index) {
//!   %buf = load (gep %ctx[0, 0]) ...
//!   scf.for %i = %begin to %end step 1 { scf.parallel (%j) = (0) to (3136) step (1) { body } }
//! }
//! ```
//! Only the leading dimensions whose product reaches [`MIN_SPLIT`] are split between threads
//! (their index is delinearized once per iteration); the rest stay a parallel loop inside, which
//! `convert-scf-to-cf` makes serial. A loop whose upper bounds are known only at run time (from
//! 0, step 1: a buffer's dynamic dims) is split on all its dimensions, the trip counts passed
//! through the context and multiplied at run time, its work estimated at
//! [`REPRESENTATIVE_TRIPS`] per dynamic dimension to choose it; at run time its work is counted
//! again with the real trip counts, and below [`MIN_WORK`] the task runs on the calling thread.
//! Loops with other bounds not known at compile time, or too little work to pay for waking
//! threads ([`MIN_WORK`]), stay as they are.

use crate::builder::{declare_function, Builder};
use crate::pass::{LoweringOptions, Pass};
use std::collections::{HashMap, HashSet};
use xcc_ir::types::FunctionType;
use xcc_ir::{Attribute, BlockId, Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};

use super::type_converter::LlvmTypeConverter;

pub struct ParallelToThreads;

/// The runtime entry point: `void xcc_parallel_for(task, context, n)`.
pub const PARALLEL_FOR: &str = "xcc_parallel_for";

/// Estimated operations (loop trip counts times the operations they run) below which a parallel
/// loop runs on the calling thread: waking a worker costs about as much as this much work.
pub const MIN_WORK: u64 = 32_768;

/// The split dimensions' iteration count at least this (or every dimension): enough slices to
/// balance the threads.
pub const MIN_SPLIT: u64 = 64;

/// The slices an elementwise loop's leading dimensions must make for its innermost dimension to
/// stay whole in each slice (enough to share between a few threads).
pub const MIN_ROWS: u64 = 16;

const CAST: &str = "builtin.unrealized_conversion_cast";

/// The trip count a dimension known only at run time is taken to have when estimating work.
pub const REPRESENTATIVE_TRIPS: u64 = 256;

/// A parallel dimension's iteration count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Trips {
    Static(u64),
    /// From 0 to this value, step 1.
    Dynamic(ValueId),
}

impl Trips {
    fn estimate(self) -> u64 {
        match self {
            Trips::Static(n) => n,
            Trips::Dynamic(_) => REPRESENTATIVE_TRIPS,
        }
    }
}

impl Pass for ParallelToThreads {
    fn name(&self) -> &'static str {
        "convert-parallel-to-threads"
    }

    fn run(&self, mut m: Module, options: &LoweringOptions) -> Result<Module, Diagnostic> {
        if options.gpu() {
            return Ok(m);
        }
        let types = LlvmTypeConverter::new(options);
        let mut outlined = HashMap::new();
        for (op, trips) in loops_to_share(&m) {
            outline(&mut m, op, &trips, &types, &mut outlined)?;
        }
        if !outlined.is_empty() {
            declare_function(&mut m, PARALLEL_FOR, vec![Type::ptr(), Type::ptr(), Type::i64()], vec![]);
        }
        Ok(m)
    }
}

/// The parallel loops to hand to threads, with their trip counts: those worth it (bounds known
/// at compile time or dynamic upper bounds, two iterations or more, [`MIN_WORK`]) with no such
/// loop around them. A loop of one iteration (a batch of one) passes the choice to the loops
/// inside it.
fn loops_to_share(m: &Module) -> Vec<(OpId, Vec<Trips>)> {
    let mut chosen: Vec<(OpId, Vec<Trips>)> = Vec::new();
    for &top in m.top_ops() {
        m.walk_nested(top, &mut |op| {
            if m.ops[op].name != "scf.parallel" || chosen.iter().any(|&(c, _)| encloses(m, c, op)) {
                return;
            }
            let Some(trips) = trip_counts(m, op) else { return };
            let total: u64 = trips.iter().map(|t| t.estimate()).product();
            if total >= 2 && total.saturating_mul(body_work(m, op)) >= MIN_WORK {
                chosen.push((op, trips));
            }
        });
    }
    chosen
}

/// Each dimension's trip count: static when every bound and step is a constant, dynamic when
/// only the upper bound is not (from 0, step 1).
fn trip_counts(m: &Module, op: OpId) -> Option<Vec<Trips>> {
    if let Some(t) = static_trip_counts(m, op) {
        return Some(t.into_iter().map(Trips::Static).collect());
    }
    let operands = &m.ops[op].operands;
    let n = m.blocks[m.regions[m.ops[op].regions[0]].blocks[0]].args.len();
    (0..n)
        .map(|d| {
            let (lb, ub, step) = (const_int(m, operands[d])?, operands[n + d], const_int(m, operands[2 * n + d])?);
            match const_int(m, ub) {
                Some(u) => trip_count(lb, u, step).map(Trips::Static),
                None => (lb == 0 && step == 1).then_some(Trips::Dynamic(ub)),
            }
        })
        .collect()
}

/// Whether `outer` is an ancestor of `op`.
fn encloses(m: &Module, outer: OpId, op: OpId) -> bool {
    let mut at = op;
    while let Some(b) = m.ops[at].parent {
        match m.parent_op_of_block(b) {
            Some(p) if p == outer => return true,
            Some(p) => at = p,
            None => return false,
        }
    }
    false
}

pub(super) fn const_int(m: &Module, v: ValueId) -> Option<i64> {
    let d = m.defining_op(v)?;
    if m.ops[d].name != "arith.constant" {
        return None;
    }
    m.attr(d, "value").and_then(Attribute::as_int).map(|x| x as i64)
}

/// Each dimension's iteration count, when every bound and step is a constant.
pub(super) fn static_trip_counts(m: &Module, op: OpId) -> Option<Vec<u64>> {
    let operands = &m.ops[op].operands;
    let n = m.blocks[m.regions[m.ops[op].regions[0]].blocks[0]].args.len();
    (0..n)
        .map(|d| {
            let (lb, ub, step) =
                (const_int(m, operands[d])?, const_int(m, operands[n + d])?, const_int(m, operands[2 * n + d])?);
            trip_count(lb, ub, step)
        })
        .collect()
}

fn trip_count(lb: i64, ub: i64, step: i64) -> Option<u64> {
    (step > 0).then(|| if ub <= lb { 0 } else { ((ub - lb) as u64).div_ceil(step as u64) })
}

/// Operations one iteration of `op`'s body runs, counting nested loops by their trip counts
/// (a loop from 0 to a bound known only at run time as [`REPRESENTATIVE_TRIPS`] elements, any
/// other unknown count as one).
fn body_work(m: &Module, op: OpId) -> u64 {
    m.ops[op].regions.iter().flat_map(|&r| m.regions[r].blocks.iter()).map(|&b| block_work(m, b)).sum()
}

fn block_work(m: &Module, b: BlockId) -> u64 {
    let mut total = 0u64;
    for &op in &m.blocks[b].ops {
        let inner = body_work(m, op);
        let trips: u64 = match m.ops[op].name.as_str() {
            "scf.for" => {
                let o = &m.ops[op].operands;
                match (const_int(m, o[0]), const_int(m, o[1]), const_int(m, o[2])) {
                    (Some(l), Some(u), Some(s)) => trip_count(l, u, s).unwrap_or(1),
                    // A row known only at run time (from 0, over a dim).
                    (Some(0), None, Some(s)) => REPRESENTATIVE_TRIPS / s.max(1) as u64,
                    _ => 1,
                }
            }
            "scf.parallel" => static_trip_counts(m, op).map_or(1, |t| t.iter().product()),
            _ => 1,
        };
        total = total.saturating_add(1 + trips.saturating_mul(inner));
    }
    total
}

/// The values `op`'s body uses from outside it, in first-use order: those to pass through the
/// context, and constants (and other operand-free definitions) to define again inside.
fn live_ins(m: &Module, op: OpId) -> (Vec<ValueId>, Vec<ValueId>) {
    let mut defined: HashSet<ValueId> = HashSet::new();
    let mut nested = Vec::new();
    m.walk_nested(op, &mut |o| nested.push(o));
    for &o in std::iter::once(&op).chain(&nested) {
        defined.extend(m.ops[o].results.iter().copied());
        for &r in &m.ops[o].regions {
            for &b in &m.regions[r].blocks {
                defined.extend(m.blocks[b].args.iter().copied());
            }
        }
    }
    let (mut seen, mut captured, mut rematerialized) = (HashSet::new(), Vec::new(), Vec::new());
    for &o in &nested {
        let d = &m.ops[o];
        for &v in d.operands.iter().chain(d.successors.iter().flat_map(|s| s.args.iter())) {
            if defined.contains(&v) || !seen.insert(v) {
                continue;
            }
            if m.defining_op(v).is_some_and(|def| rematerializable(m, def)) {
                rematerialized.push(v);
            } else {
                captured.push(v);
            }
        }
    }
    (captured, rematerialized)
}

fn rematerializable(m: &Module, op: OpId) -> bool {
    let d = &m.ops[op];
    d.operands.is_empty()
        && d.regions.is_empty()
        && matches!(
            d.name.as_str(),
            "arith.constant" | "memref.get_global" | "llvm.mlir.constant" | "llvm.mlir.addressof" | "llvm.mlir.zero"
        )
}

/// A pointer to field `i` of the context struct at `ctx`.
fn field(b: &mut Builder, ctx: ValueId, ctx_ty: &Type, i: usize) -> ValueId {
    let indices = Attribute::DenseArray { elem: Type::i32(), values: vec![0, i as i128] };
    let attrs = vec![("rawConstantIndices".into(), indices), ("elem_type".into(), Attribute::Type(ctx_ty.clone()))];
    b.value_with("llvm.getelementptr", &[ctx], Type::ptr(), attrs)
}

/// How many leading dimensions to split between threads: the fewest whose product reaches
/// [`MIN_SPLIT`], counting a dimension known only at run time as one (it may be a batch of one;
/// a run-time product that never reaches it splits every dimension). A loop with such a
/// dimension whose body is straight-line code (elementwise work) also keeps its innermost
/// dimension a loop inside the task: a row per slice keeps that loop whole (vectorizable),
/// where splitting it would delinearize every element's index with divisions. So does a static
/// one whose other dimensions make at least [`MIN_ROWS`] slices (a channel scale's planes).
fn split_dims(trips: &[Trips], straight_line: bool) -> usize {
    let n = trips.len();
    let mut reach = n;
    let mut product = 1;
    for (d, &t) in trips.iter().enumerate() {
        product *= match t {
            Trips::Static(s) => s,
            Trips::Dynamic(_) => 1,
        };
        if product >= MIN_SPLIT {
            reach = d + 1;
            break;
        }
    }
    let dynamic = trips.iter().any(|t| matches!(t, Trips::Dynamic(_)));
    let rows: u64 =
        trips[..n.saturating_sub(1)].iter().map(|t| if let Trips::Static(s) = t { *s } else { 1 }).product();
    if (dynamic || rows >= MIN_ROWS) && straight_line && n > 1 {
        reach.min(n - 1)
    } else {
        reach
    }
}

/// Whether `op`'s body runs no loop of its own.
fn is_straight_line(m: &Module, op: OpId) -> bool {
    let mut loops = false;
    m.walk_nested(op, &mut |o| loops |= matches!(m.ops[o].name.as_str(), "scf.for" | "scf.parallel" | "scf.while"));
    !loops
}

/// `FUNC_parallelK`, numbered per function in program order (skipping names already taken).
fn fresh_name(m: &Module, func: OpId, next: &mut HashMap<OpId, usize>) -> String {
    let base = m.sym_name(func).unwrap_or("fn").to_string();
    let k = next.entry(func).or_insert(0);
    loop {
        let name = format!("{base}_parallel{k}");
        *k += 1;
        if m.lookup_symbol(&name).is_none() {
            return name;
        }
    }
}

fn outline(
    m: &mut Module,
    op: OpId,
    trips: &[Trips],
    types: &LlvmTypeConverter,
    count: &mut HashMap<OpId, usize>,
) -> Result<(), Diagnostic> {
    let span = m.ops[op].span;
    let func = m.top_level_ancestor(op);
    let name = fresh_name(m, func, count);
    let (mut captured, rematerialized) = live_ins(m, op);
    // The task splits its slice index by the dynamic trip counts too.
    for &t in trips {
        if let Trips::Dynamic(v) = t {
            if !captured.contains(&v) {
                captured.push(v);
            }
        }
    }
    let fields: Vec<Type> = captured.iter().map(|&v| types.convert(m.ty(v), span)).collect::<Result<_, _>>()?;
    let ctx_ty = Type::LlvmStruct { packed: false, fields: fields.clone() };
    let split = split_dims(trips, is_straight_line(m, op));
    let work = Work { trips: trips.to_vec(), per_point: body_work(m, op) };
    call_site(m, op, func, &name, (&captured, &ctx_ty), &trips[..split], &work);
    let task = task_function(m, func, &name, span);
    if work.counted_at_run_time() {
        // Called directly too (a small run's work): one copy of the task, not one inlined at
        // the call as well (a Llama's library was 30% more code, its compile 4 s longer).
        m.set_attr(task, "passthrough", Attribute::Array(vec![Attribute::String("noinline".into())]));
    }
    let entry = m.regions[m.ops[task].regions[0]].blocks[0];
    let (ctx, begin, end) = (m.blocks[entry].args[0], m.blocks[entry].args[1], m.blocks[entry].args[2]);
    let mut map = HashMap::new();
    for &v in &rematerialized {
        let def = m.defining_op(v).expect("rematerialized values are op results");
        let copy = m.clone_op(def, &mut map);
        m.append_op(entry, copy);
    }
    let mut b = Builder::at_end(m, entry, span);
    for (i, (&v, t)) in captured.iter().zip(&fields).enumerate() {
        let slot = field(&mut b, ctx, &ctx_ty, i);
        let raw = b.value("llvm.load", &[slot], t.clone());
        let orig = b.m.ty(v).clone();
        let value = if orig == *t { raw } else { b.value(CAST, &[raw], orig) };
        map.insert(v, value);
    }
    let body = slice_loop(m, entry, begin, end, span);
    move_body(m, op, body, trips, split);
    m.build(entry, OpSpec::new("func.return", span));
    for (from, to) in map {
        m.replace_uses_in(task, from, to);
    }
    Ok(())
}

/// A loop's work: its trip counts and the operations of one point of it.
struct Work {
    trips: Vec<Trips>,
    per_point: u64,
}

impl Work {
    /// Whether some trip count is known only at run time, where the work is counted again.
    fn counted_at_run_time(&self) -> bool {
        self.trips.iter().any(|t| matches!(t, Trips::Dynamic(_)))
    }
}

/// Before `op`: the context filled with the captured values, and the call handing the loop's
/// `slices` iterations to the runtime; then `op` goes. The context's slot is allocated once, in
/// the function's entry block (a loop around `op` must not grow the stack). A loop whose trip
/// counts are known only at run time calls its task directly where the run's `work` is below
/// [`MIN_WORK`]: a decode step's elementwise loops over one token (a rotary embedding's halves,
/// a head's row of the cache) would otherwise wake the threads for a few hundred operations.
fn call_site(
    m: &mut Module,
    op: OpId,
    func: OpId,
    task: &str,
    (captured, ctx_ty): (&[ValueId], &Type),
    split: &[Trips],
    work: &Work,
) {
    let func_entry = m.regions[m.ops[func].regions[0]].blocks[0];
    let first = m.blocks[func_entry].ops[0];
    let mut b = Builder::before(m, first);
    let one = b.arith_const(1, Type::i64());
    let attrs = vec![("elem_type".into(), Attribute::Type(ctx_ty.clone())), ("alignment".into(), Attribute::i64(16))];
    let ctx = b.value_with("llvm.alloca", &[one], Type::ptr(), attrs);
    let Type::LlvmStruct { fields, .. } = ctx_ty else { unreachable!("the context is a struct") };
    let mut b = Builder::before(m, op);
    for (i, (&v, t)) in captured.iter().zip(fields).enumerate() {
        let value = if b.m.ty(v) == t { v } else { b.value(CAST, &[v], t.clone()) };
        let slot = field(&mut b, ctx, ctx_ty, i);
        let spec = b.spec("llvm.store").operands([value, slot]);
        b.insert(spec);
    }
    let addr = vec![("global_name".into(), Attribute::symbol(task))];
    let task_addr = b.value_with("llvm.mlir.addressof", &[], Type::ptr(), addr);
    let n = run_time_product(&mut b, split, 1);
    let parallel_for = |b: &mut Builder| {
        let spec = b.spec("llvm.call").operands([task_addr, ctx, n]).attr("callee", Attribute::symbol(PARALLEL_FOR));
        b.insert(spec);
    };
    if work.counted_at_run_time() {
        let total = run_time_product(&mut b, &work.trips, work.per_point);
        let least = b.arith_const(MIN_WORK as i64, Type::i64());
        let ult = xcc_ir::dialects::arith::CMPI_PREDICATES.iter().position(|&p| p == "ult").expect("ult") as i64;
        let small =
            b.value_with("arith.cmpi", &[total, least], Type::i1(), vec![("predicate".into(), Attribute::i64(ult))]);
        let run_here = |b: &mut Builder| {
            let (zero, count) = (b.index_const(0), b.value("arith.index_cast", &[n], Type::Index));
            let spec = b.spec("func.call").operands([ctx, zero, count]).attr("callee", Attribute::symbol(task));
            b.insert(spec);
        };
        if_else(&mut b, small, run_here, parallel_for);
    } else {
        parallel_for(&mut b);
    }
    m.erase_op(op);
}

/// `scf.if cond { then } else { otherwise }` (no results) where `b` builds.
fn if_else(b: &mut Builder, cond: ValueId, then: impl FnOnce(&mut Builder), otherwise: impl FnOnce(&mut Builder)) {
    let regions = [b.m.new_region(), b.m.new_region()];
    let blocks = regions.map(|r| b.m.append_block(r, Span::UNKNOWN));
    let spec = b.spec("scf.if").operands([cond]).region(regions[0]).region(regions[1]);
    let branch = b.insert(spec);
    let span = b.m.ops[branch].span;
    let mut inside = Builder::at_end(b.m, blocks[0], span);
    then(&mut inside);
    inside.insert(inside.spec("scf.yield"));
    let mut inside = Builder::at_end(b.m, blocks[1], span);
    otherwise(&mut inside);
    inside.insert(inside.spec("scf.yield"));
}

/// `factor` times the trip counts, as an i64 computed at run time.
fn run_time_product(b: &mut Builder, trips: &[Trips], factor: u64) -> ValueId {
    let fixed: u64 = trips.iter().filter_map(|t| if let Trips::Static(n) = t { Some(*n) } else { None }).product();
    let mut n = b.arith_const(fixed.saturating_mul(factor).min(i64::MAX as u64) as i64, Type::i64());
    for &t in trips {
        if let Trips::Dynamic(v) = t {
            let v = b.value("arith.index_cast", &[v], Type::i64());
            n = b.value("arith.muli", &[n, v], Type::i64());
        }
    }
    n
}

/// `func.func private @name(%ctx: !llvm.ptr, %begin: index, %end: index)`, right after `func`.
fn task_function(m: &mut Module, func: OpId, name: &str, span: Span) -> OpId {
    let inputs = vec![Type::ptr(), Type::Index, Type::Index];
    let visibility = ("sym_visibility", Attribute::String("private".into()));
    outlined_function(m, func, (name, "_parallel"), inputs, visibility, span)
}

/// An empty `func.func @name(inputs) attributes {attr}` outlined from `func`: placed right after
/// it and the functions already outlined from it (named `FUNC{infix}...`), so that they print
/// in program order.
pub(super) fn outlined_function(
    m: &mut Module,
    func: OpId,
    (name, infix): (&str, &str),
    inputs: Vec<Type>,
    (attr, value): (&str, Attribute),
    span: Span,
) -> OpId {
    let region = m.new_region();
    let entry = m.append_block(region, span);
    for t in &inputs {
        m.add_block_arg(entry, t.clone(), span);
    }
    let f = m.create_op(
        OpSpec::new("func.func", span)
            .attr("sym_name", Attribute::String(name.to_string()))
            .attr("function_type", Attribute::Type(Type::Function(FunctionType { inputs, results: vec![] })))
            .attr(attr, value)
            .region(region),
    );
    let top = m.body_block();
    let at = m.blocks[top].ops.iter().position(|&o| o == func).expect("a top-level function");
    let prefix = format!("{}{infix}", m.sym_name(func).unwrap_or_default());
    let earlier =
        m.blocks[top].ops[at + 1..].iter().take_while(|&&o| m.sym_name(o).is_some_and(|s| s.starts_with(&prefix)));
    let pos = at + 1 + earlier.count();
    m.ops[f].parent = Some(top);
    m.blocks[top].ops.insert(pos, f);
    f
}

/// `scf.for %slice = %begin to %end step 1` at the end of `block`; returns its body block (not
/// yet terminated) and the slice index.
fn slice_loop(m: &mut Module, block: BlockId, begin: ValueId, end: ValueId, span: Span) -> (BlockId, ValueId) {
    let one = Builder::at_end(m, block, span).index_const(1);
    let region = m.new_region();
    let body = m.append_block(region, span);
    let iv = m.add_block_arg(body, Type::Index, span);
    m.build(block, OpSpec::new("scf.for", span).operands([begin, end, one]).region(region));
    (body, iv)
}

/// Moves `op`'s body under the slice loop: the first `split` induction variables come from the
/// slice index; the others stay a (serial from here on) parallel loop around the body.
pub(super) fn move_body(m: &mut Module, op: OpId, (body, slice): (BlockId, ValueId), trips: &[Trips], split: usize) {
    let span = m.ops[op].span;
    let operands = m.ops[op].operands.clone();
    let n = trips.len();
    let region = m.ops[op].regions[0];
    let entry = m.regions[region].blocks[0];
    let args = m.blocks[entry].args.clone();
    let mut b = Builder::at_end(m, body, span);
    let mut rest = slice;
    let mut ivs = vec![slice; split];
    for d in (0..split).rev() {
        let index = if d == 0 {
            rest
        } else {
            let t = match trips[d] {
                Trips::Static(n) => b.index_const(n as i64),
                // The loaded copy replaces it once the task is built.
                Trips::Dynamic(v) => v,
            };
            let r = b.value("arith.remui", &[rest, t], Type::Index);
            rest = b.value("arith.divui", &[rest, t], Type::Index);
            r
        };
        let (lb, step) = (const_int(b.m, operands[d]), const_int(b.m, operands[2 * n + d]));
        ivs[d] = iv_of(&mut b, index, lb, step);
    }
    for d in 0..split {
        m.replace_uses_in(op, args[d], ivs[d]);
    }
    if split == n {
        let ops = m.blocks[entry].ops.clone();
        for &o in &ops[..ops.len() - 1] {
            m.append_op(body, o);
        }
        m.blocks[entry].ops.clear();
    } else {
        let mut b = Builder::at_end(m, body, span);
        let mut bounds: Vec<Vec<ValueId>> = vec![Vec::new(); 3];
        for (k, list) in bounds.iter_mut().enumerate() {
            for d in split..n {
                list.push(match const_int(b.m, operands[k * n + d]) {
                    Some(c) => b.index_const(c),
                    // A run-time upper bound: the loaded copy replaces it once the task is built.
                    None => operands[k * n + d],
                });
            }
        }
        m.blocks[entry].args = args[split..].to_vec();
        for (i, &a) in args[split..].iter().enumerate() {
            m.values[a].def = xcc_ir::module::ValueDef::BlockArg { block: entry, index: i as u32 };
        }
        m.ops[op].regions.clear();
        let spec = xcc_ir::dialects::scf::parallel_spec(&bounds[0], &bounds[1], &bounds[2], region, span);
        m.build(body, spec);
    }
    m.build(body, OpSpec::new("scf.yield", span));
}

/// `lb + index * step`, folded where `lb` is 0 or `step` is 1.
fn iv_of(b: &mut Builder, index: ValueId, lb: Option<i64>, step: Option<i64>) -> ValueId {
    let (lb, step) = (lb.expect("static bounds"), step.expect("static bounds"));
    let mut v = index;
    if step != 1 {
        let s = b.index_const(step);
        v = b.value("arith.muli", &[v, s], Type::Index);
    }
    if lb != 0 {
        let l = b.index_const(lb);
        v = b.value("arith.addi", &[v, l], Type::Index);
    }
    v
}
