//! `plan-workspace`: the buffers a function allocates become views into a workspace its caller
//! passes, so a run does no heap allocation and two threads with two workspaces can run at once.
//!
//! A function opts in with `xcc.workspace = N`: its argument N is the workspace pointer. Every
//! statically shaped `memref.alloc` in its body that runs once per call (at the top level, or in
//! an `scf.if` there: an If branch's tensors) is live from its first to its last use (uses
//! through views count; `memref.dealloc` does not), measured in the positions of the body's
//! top-level operations. Buffers are placed first-fit, in order of their first use, at offsets
//! aligned to 64 bytes, each followed by [`SKEW`] bytes, among the buffers live at the same time.
//! The total is the function's `xcc.workspace_bytes`, and the value of every
//! `kernel.workspace_size` naming it.
//!
//! A buffer copied whole into a contiguous run of another as its last use is placed in that run
//! and the copy erased ([`super::elide_copies`]): Concats and reshapes cost no copy.
//!
//! Buffers with sizes known only at run time (`memref.alloc(%n)`) are placed at run time: the
//! sizes must be computed from the function's arguments by pure arithmetic, which is copied to
//! the top of the body. The first-fit placement at [`REPRESENTATIVE_DIM`] for every dynamic dim
//! orders the buffers live at the same time (lower or higher), and at run time each starts
//! where the highest of those below it ends, so no two of them overlap at any size. The total is
//! then a value too: `kernel.workspace_size @f(%args...)` computes it from the arguments it is
//! given, and `xcc.workspace_bytes` records the size at the representative dims.

use super::elide_copies::{copies_into_slots, outermost, Placed, Slot};
use super::ops_named;
use crate::builder::{Builder, Extent};
use crate::conversion::memref_descriptor::MemRefDescriptor;
use crate::pass::{LoweringOptions, Pass};
use std::collections::{HashMap, HashSet};
use xcc_ir::types::{Layout, MemRefType};
use xcc_ir::{Attribute, Diagnostic, Module, OpId, OpSpec, Type, ValueId};

pub struct PlanWorkspace;

pub const ALIGN: u64 = 64;

/// Bytes each buffer's slot takes past its aligned size: five cache lines, so that buffers
/// placed one after the other start at different offsets modulo 4 KiB, and by other than a
/// multiple of 256 bytes. A kernel's input and output planes otherwise often sit at the same
/// offsets modulo 4 KiB (sizes of whole pages and KiBs: a 112x112 plane is 12 pages and 1 KiB),
/// where x86 CPUs, which compare loads with earlier stores by address bits 0-11, stall the
/// loads behind unrelated stores ("4K aliasing"): MobileNet-V2's 1x1 convolutions over 112x112
/// planes lost 11%, the whole model 8% (7.39 against 6.80 ms at one thread).
pub const SKEW: u64 = 5 * 64;

/// The bytes a buffer of `bytes` takes in the workspace: aligned, and [`SKEW`] after it.
fn slot_bytes(bytes: u64) -> u64 {
    bytes.div_ceil(ALIGN) * ALIGN + SKEW
}

impl Pass for PlanWorkspace {
    fn name(&self) -> &'static str {
        "plan-workspace"
    }

    fn lowers(&self, op: &str) -> bool {
        op == "kernel.workspace_size"
    }

    fn run(&self, mut m: Module, _: &LoweringOptions) -> Result<Module, Diagnostic> {
        let mut sizes = HashMap::new();
        for func in m.top_ops().to_vec() {
            let Some(arg) = m.attr(func, "xcc.workspace").and_then(Attribute::as_int) else { continue };
            let plan = plan_function(&mut m, func, arg as usize)?;
            m.set_attr(func, "xcc.workspace_bytes", Attribute::i64(plan.bytes as i64));
            if let Some(name) = m.sym_name(func) {
                sizes.insert(name.to_string(), (func, plan));
            }
        }
        for op in ops_named(&m, &["kernel.workspace_size"]) {
            let sym = m.attr(op, "function").and_then(Attribute::as_symbol).unwrap_or_default().to_string();
            let span = m.ops[op].span;
            let (func, plan) = sizes.get(&sym).ok_or_else(|| {
                Diagnostic::new(span, format!("'@{sym}' has no workspace (no xcc.workspace attribute)"))
            })?;
            let new = match plan.at_run_time {
                None => {
                    let c = m.build_before(
                        op,
                        OpSpec::new("arith.constant", span)
                            .results([Type::Index])
                            .attr("value", Attribute::int(plan.bytes as i128, Type::Index)),
                    );
                    m.result(c, 0)
                }
                Some(total) => {
                    let args = entry_args(&m, *func);
                    let mut subst: HashMap<ValueId, ValueId> =
                        args.iter().copied().zip(m.ops[op].operands.iter().copied()).collect();
                    clone_slice(&mut m, total, &mut subst, op).map_err(|why| {
                        Diagnostic::new(
                            span,
                            format!("kernel.workspace_size @{sym}: the size depends on {why}; pass the arguments it is computed from"),
                        )
                    })?
                }
            };
            let old = m.result(op, 0);
            m.replace_all_uses(old, new);
            m.erase_op(op);
        }
        Ok(m)
    }
}

/// Buffers derived from a value without copying it.
pub(crate) const VIEWS: &[&str] = &[
    "memref.reinterpret_cast",
    "memref.subview",
    "memref.cast",
    "memref.view",
    "memref.reshape",
    "std.view",
    "std.reshape",
];

/// The live range of every allocation of the body, in top-level positions.
#[derive(Clone)]
struct Buffer {
    alloc: OpId,
    /// The bytes, at [`REPRESENTATIVE_DIM`] for dynamic dims.
    bytes: u64,
    first: usize,
    last: usize,
    /// For a buffer of run-time size: the bytes of its static dims, and its dynamic sizes.
    dynamic: Option<(u64, Vec<ValueId>)>,
}

/// What a function's workspace needs: the bytes (at [`REPRESENTATIVE_DIM`] for dynamic dims),
/// and the value computing them at run time, from the function's arguments, when some buffer's
/// size is known only then.
struct Plan {
    bytes: u64,
    at_run_time: Option<ValueId>,
}

/// The size a dynamic dim is taken to have when ordering buffers (any size gives a correct
/// placement; this one only decides which buffers go lower).
pub const REPRESENTATIVE_DIM: u64 = 256;

fn element_bytes(mt: &MemRefType) -> Option<u64> {
    Some(match &*mt.elem {
        Type::Integer { width, .. } => (*width as u64).div_ceil(8),
        Type::Float(k) => k.width() as u64 / 8,
        Type::Index => 8,
        _ => return None,
    })
}

/// The bytes of the static dims (all of them for a static shape).
fn static_bytes(mt: &MemRefType) -> Option<u64> {
    Some(mt.shape.iter().flatten().product::<u64>() * element_bytes(mt)?)
}

fn entry_args(m: &Module, func: OpId) -> Vec<ValueId> {
    let entry = m.ops[func].regions.first().and_then(|&r| m.regions[r].blocks.first().copied());
    entry.map(|b| m.blocks[b].args.clone()).unwrap_or_default()
}

/// Copies the pure arithmetic computing `v` before `anchor`, with `subst` for the values
/// already available there (the function's arguments); returns the copy of `v`, or what it
/// depends on that cannot be copied.
fn clone_slice(
    m: &mut Module,
    v: ValueId,
    subst: &mut HashMap<ValueId, ValueId>,
    anchor: OpId,
) -> Result<ValueId, String> {
    if let Some(&w) = subst.get(&v) {
        return Ok(w);
    }
    let Some(def) = m.defining_op(v) else { return Err("a value that is not one of the function's arguments".into()) };
    let d = &m.ops[def];
    if !d.name.starts_with("arith.") || !d.regions.is_empty() || !d.successors.is_empty() {
        return Err(format!("a value computed by {}", d.name));
    }
    let (name, span, attrs, results) = (d.name.clone(), d.span, d.attrs.clone(), d.results.clone());
    let mut operands = Vec::new();
    for o in m.ops[def].operands.clone() {
        operands.push(clone_slice(m, o, subst, anchor)?);
    }
    let types: Vec<Type> = results.iter().map(|&r| m.ty(r).clone()).collect();
    let mut spec = OpSpec::new(&name, span).operands(operands).results(types);
    for (k, a) in attrs {
        spec = spec.attr(&k, a);
    }
    let copy = m.build_before(anchor, spec);
    for (i, &r) in results.iter().enumerate() {
        let c = m.result(copy, i);
        subst.insert(r, c);
    }
    Ok(subst[&v])
}

fn plan_function(m: &mut Module, func: OpId, ws_arg: usize) -> Result<Plan, Diagnostic> {
    let span = m.ops[func].span;
    let body = m.ops[func].regions.first().and_then(|&r| m.regions[r].blocks.first().copied());
    let Some(entry) = body else { return Err(Diagnostic::new(span, "xcc.workspace on a function without a body")) };
    let ws_ptr =
        *m.blocks[entry].args.get(ws_arg).ok_or_else(|| Diagnostic::new(span, "xcc.workspace names no argument"))?;
    if *m.ty(ws_ptr) != Type::ptr() {
        return Err(Diagnostic::new(
            span,
            format!("xcc.workspace names argument {ws_arg}, of type {}, not the workspace's !llvm.ptr", m.ty(ws_ptr)),
        ));
    }
    let top: Vec<OpId> = m.blocks[entry].ops.clone();
    // The top-level operation each nested operation belongs to.
    let mut owner: HashMap<OpId, usize> = HashMap::new();
    for (i, &o) in top.iter().enumerate() {
        owner.insert(o, i);
        m.walk_nested(o, &mut |inner| {
            owner.insert(inner, i);
        });
    }
    let mut users: HashMap<ValueId, Vec<OpId>> = HashMap::new();
    for &o in owner.keys() {
        for &v in &m.ops[o].operands {
            users.entry(v).or_default().push(o);
        }
    }
    let mut buffers = Vec::new();
    let mut uses = Vec::new();
    let mut deallocs = Vec::new();
    for o in allocations_run_once(m, &top) {
        let Some(mt) = m.ty(m.ops[o].results[0]).as_memref().cloned() else { continue };
        let (Some(fixed), Layout::Identity) = (static_bytes(&mt), &mt.layout) else { continue };
        let sizes = m.ops[o].operands.clone();
        // Only sizes: an alloc with symbol operands (a layout map's) is not planned.
        if sizes.len() != mt.shape.iter().filter(|d| d.is_none()).count() {
            continue;
        }
        let bytes = fixed * REPRESENTATIVE_DIM.pow(sizes.len() as u32);
        let dynamic = (!sizes.is_empty()).then_some((fixed, sizes));
        let (mut first, mut last) = (owner[&o], owner[&o]);
        let mut pending = vec![m.ops[o].results[0]];
        let mut seen = HashSet::new();
        let mut direct = Vec::new();
        while let Some(v) = pending.pop() {
            if !seen.insert(v) {
                continue;
            }
            for &u in users.get(&v).map(Vec::as_slice).unwrap_or(&[]) {
                if m.ops[u].name == "memref.dealloc" {
                    deallocs.push(u);
                    continue;
                }
                let at = owner[&u];
                first = first.min(at);
                last = last.max(at);
                if VIEWS.contains(&m.ops[u].name.as_str()) {
                    pending.extend(m.ops[u].results.iter().copied());
                } else {
                    direct.push((at, u));
                }
            }
        }
        buffers.push(Buffer { alloc: o, bytes, first, last, dynamic });
        uses.push(direct);
    }
    let elided = elide_copies(m, &top, &buffers, &uses);
    let (roots, within) = nest(&buffers, &elided);
    let (offsets, total) = place(&roots);
    for slot in &elided {
        erase_with_dead_views(m, slot.copy, &users);
    }
    if buffers.iter().any(|b| b.dynamic.is_some()) {
        let (at_run_time, ws, starts) = place_at_run_time(m, func, ws_ptr, &roots, &offsets)?;
        let mut views = HashMap::new();
        for (buf, &(root, offset)) in buffers.iter().zip(&within) {
            let start = match offset {
                0 => starts[root],
                o => {
                    let mut b = Builder::before(m, buf.alloc);
                    let o = b.index_const(o as i64);
                    b.value("arith.addi", &[starts[root], o], Type::Index)
                }
            };
            replace_with_view(m, buf.alloc, ws, start, &mut views);
        }
        m.replace_uses_by_map_in(func, &views);
        for d in deallocs {
            m.erase_op(d);
        }
        return Ok(Plan { bytes: total, at_run_time: Some(at_run_time) });
    }
    let ws_type = MemRefType {
        shape: vec![Some(total.max(1))],
        elem: Box::new(Type::i8()),
        layout: Layout::Identity,
        memory_space: None,
    };
    let Some(&first_op) = top.first() else { return Ok(Plan { bytes: total, at_run_time: None }) };
    let ws = {
        let mut b = Builder::before(m, first_op);
        let d = MemRefDescriptor::from_pointers(&mut b, ws_ptr, ws_ptr, &ws_type, &[]);
        b.value("builtin.unrealized_conversion_cast", &[d.value], Type::MemRef(ws_type))
    };
    let mut views = HashMap::new();
    for (buf, &(root, offset)) in buffers.iter().zip(&within) {
        let alloc = buf.alloc;
        let s = m.ops[alloc].span;
        let off = m.build_before(
            alloc,
            OpSpec::new("arith.constant", s)
                .results([Type::Index])
                .attr("value", Attribute::int((offsets[root] + offset) as i128, Type::Index)),
        );
        let off = m.result(off, 0);
        replace_with_view(m, alloc, ws, off, &mut views);
    }
    m.replace_uses_by_map_in(func, &views);
    for d in deallocs {
        m.erase_op(d);
    }
    Ok(Plan { bytes: total, at_run_time: None })
}

/// The allocations of the body that run at most once per call: those at its top level, and
/// those inside `scf.if`s there (an If branch's tensors, which a run makes or not), not those in
/// a loop (a parallel loop's scratch is made per thread). An allocation inside an `scf.if` is
/// live for the whole of it; its view is made where it was, with its start computed at the top.
fn allocations_run_once(m: &Module, top: &[OpId]) -> Vec<OpId> {
    fn visit(m: &Module, ops: &[OpId], out: &mut Vec<OpId>) {
        for &o in ops {
            match m.ops[o].name.as_str() {
                "memref.alloc" => out.push(o),
                "scf.if" => {
                    for &r in &m.ops[o].regions {
                        for &b in &m.regions[r].blocks {
                            visit(m, &m.blocks[b].ops, out);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    visit(m, top, &mut out);
    out
}

/// The allocation `alloc` becomes a view of the workspace `ws` at byte `start`: the view is built
/// and `alloc` erased; `views` maps its result to the view's, for the caller to replace all uses
/// in one walk (one walk per allocation is quadratic in a long graph).
fn replace_with_view(m: &mut Module, alloc: OpId, ws: ValueId, start: ValueId, views: &mut HashMap<ValueId, ValueId>) {
    let result = m.result(alloc, 0);
    let t = m.ty(result).clone();
    let s = m.ops[alloc].span;
    let dims = m.ops[alloc].operands.clone();
    let view = m.build_before(alloc, OpSpec::new("memref.view", s).operands([ws, start]).operands(dims).results([t]));
    let view = m.result(view, 0);
    views.insert(result, view);
    m.erase_op(alloc);
}

/// The copies [`elide_copies`](super::elide_copies) finds free in this body.
fn elide_copies(m: &Module, top: &[OpId], buffers: &[Buffer], uses: &[Vec<(usize, OpId)>]) -> Vec<Slot> {
    let placed: Vec<Placed> = buffers
        .iter()
        .map(|b| {
            let value = m.ops[b.alloc].results[0];
            let elem_bytes = m.ty(value).as_memref().and_then(element_bytes).unwrap_or(0);
            Placed { value, bytes: b.bytes, elem_bytes, last: b.last, is_static: b.dynamic.is_none() }
        })
        .collect();
    copies_into_slots(m, top, &placed, uses)
}

/// The buffers the workspace places (those no copy was elided from), each live for its own and
/// its nested buffers' lifetimes; and for every buffer, the one of those it lies in and its byte
/// offset there.
fn nest(buffers: &[Buffer], slots: &[Slot]) -> (Vec<Buffer>, Vec<(usize, u64)>) {
    let within = outermost(buffers.len(), slots);
    let mut index = HashMap::new();
    let mut roots: Vec<Buffer> = Vec::new();
    for (k, buf) in buffers.iter().enumerate() {
        if within[k].0 == k {
            index.insert(k, roots.len());
            roots.push(buf.clone());
        }
    }
    for (buf, &(root, _)) in buffers.iter().zip(&within) {
        let r = &mut roots[index[&root]];
        r.first = r.first.min(buf.first);
        r.last = r.last.max(buf.last);
    }
    (roots, within.into_iter().map(|(root, offset)| (index[&root], offset)).collect())
}

/// Erases an elided copy, and the views made only for it (`users`: every value's users).
fn erase_with_dead_views(m: &mut Module, copy: OpId, users: &HashMap<ValueId, Vec<OpId>>) {
    let operands = m.ops[copy].operands.clone();
    m.erase_op(copy);
    for v in operands {
        let Some(def) = m.defining_op(v) else { continue };
        if VIEWS.contains(&m.ops[def].name.as_str()) && users.get(&v).is_some_and(|u| u == &[copy]) {
            m.erase_op(def);
        }
    }
}

/// Places buffers some of whose sizes are known only at run time (see the module's comment):
/// the offsets and the total are computed at the top of the body. Returns the total, the
/// workspace and each buffer's start.
fn place_at_run_time(
    m: &mut Module,
    func: OpId,
    ws_ptr: ValueId,
    buffers: &[Buffer],
    offsets: &[u64],
) -> Result<(ValueId, ValueId, Vec<ValueId>), Diagnostic> {
    let anchor = m.blocks[m.ops[buffers[0].alloc].parent.expect("in the body")].ops[0];
    let mut subst: HashMap<ValueId, ValueId> = entry_args(m, func).into_iter().map(|a| (a, a)).collect();
    let mut sizes = Vec::with_capacity(buffers.len());
    for buf in buffers {
        let size = match &buf.dynamic {
            None => Extent::Fixed(slot_bytes(buf.bytes) as usize),
            Some((fixed, dims)) => {
                let mut values = Vec::new();
                for &d in dims {
                    values.push(clone_slice(m, d, &mut subst, anchor).map_err(|why| {
                        Diagnostic::new(
                            m.ops[buf.alloc].span,
                            format!("plan-workspace: a buffer's size depends on {why}, not only on the function's arguments"),
                        )
                    })?);
                }
                let mut b = Builder::before(m, anchor);
                let mut bytes = b.index_const(*fixed as i64);
                for v in values {
                    bytes = b.value("arith.muli", &[bytes, v], Type::Index);
                }
                let (mask, low) = (b.index_const(ALIGN as i64 - 1), b.index_const(-(ALIGN as i64)));
                let up = b.value("arith.addi", &[bytes, mask], Type::Index);
                let aligned = b.value("arith.andi", &[up, low], Type::Index);
                let skew = b.index_const(SKEW as i64);
                Extent::Value(b.value("arith.addi", &[aligned, skew], Type::Index))
            }
        };
        sizes.push(size);
    }
    // Lower buffers first; each starts where the highest of the earlier ones it meets ends.
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by_key(|&i| (offsets[i], buffers[i].first, i));
    let mut b = Builder::before(m, anchor);
    let zero = b.index_const(0);
    let mut starts = vec![zero; buffers.len()];
    let mut ends: Vec<ValueId> = vec![zero; buffers.len()];
    let mut total = zero;
    for (k, &i) in order.iter().enumerate() {
        let mut start = zero;
        for &j in &order[..k] {
            if buffers[j].first <= buffers[i].last && buffers[i].first <= buffers[j].last {
                start = b.value("arith.maxui", &[start, ends[j]], Type::Index);
            }
        }
        let size = match sizes[i] {
            Extent::Fixed(n) => b.index_const(n as i64),
            Extent::Value(v) => v,
        };
        starts[i] = start;
        ends[i] = b.value("arith.addi", &[start, size], Type::Index);
        total = b.value("arith.maxui", &[total, ends[i]], Type::Index);
    }
    let ws_type =
        MemRefType { shape: vec![None], elem: Box::new(Type::i8()), layout: Layout::Identity, memory_space: None };
    let n = b.value("arith.index_cast", &[total], Type::i64());
    let d = MemRefDescriptor::from_pointers(&mut b, ws_ptr, ws_ptr, &ws_type, &[n]);
    let ws = b.value("builtin.unrealized_conversion_cast", &[d.value], Type::MemRef(ws_type));
    Ok((total, ws, starts))
}

/// First-fit offsets for buffers in order of their first use, and the total size.
fn place(buffers: &[Buffer]) -> (Vec<u64>, u64) {
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by_key(|&i| (buffers[i].first, i));
    let mut offsets = vec![0; buffers.len()];
    let mut placed: Vec<(u64, u64, usize, usize)> = Vec::new(); // offset, size, first, last
    let mut total = 0;
    for i in order {
        let b = &buffers[i];
        let size = slot_bytes(b.bytes);
        let live: Vec<(u64, u64)> =
            placed.iter().filter(|p| p.2 <= b.last && b.first <= p.3).map(|p| (p.0, p.0 + p.1)).collect();
        let mut candidates: Vec<u64> = std::iter::once(0).chain(live.iter().map(|l| l.1)).collect();
        candidates.sort();
        let offset = candidates.into_iter().find(|&o| live.iter().all(|&(s, e)| o + size <= s || o >= e)).unwrap_or(0);
        placed.push((offset, size, b.first, b.last));
        offsets[i] = offset;
        total = total.max(offset + size);
    }
    (offsets, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(first: usize, last: usize, bytes: u64) -> Buffer {
        Buffer { alloc: OpId::from_index(0), bytes, first, last, dynamic: None }
    }

    #[test]
    fn disjoint_lifetimes_share_memory_and_overlapping_ones_do_not() {
        let (offsets, total) = place(&[buf(0, 1, 100), buf(2, 3, 100), buf(1, 2, 10)]);
        let slot = 128 + SKEW;
        assert_eq!(offsets[0], 0);
        assert_eq!(offsets[1], 0, "the second buffer starts after the first is dead");
        assert_eq!(offsets[2], slot, "the third overlaps both in time");
        assert_eq!(total, slot + 64 + SKEW);
    }
}
