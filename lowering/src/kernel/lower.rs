//! `kernel-to-loops`: kernel operations to loops over memrefs.
//!
//! A `kernel.generic` becomes one `scf.parallel` over its parallel loops (adjacent ones that
//! every operand reads as adjacent whole dimensions, or not at all, merged into one first:
//! [`collapse_loops`]); inside it the reduction loops, innermost, carry the outputs' elements as
//! values (loaded before, stored after). Operands are read and written at their maps' indices;
//! the body is copied in with its block arguments replaced by the elements, `kernel.index` by
//! the loop indices. On CPUs, a `kernel.copy` between contiguous buffers, and a generic that only
//! moves its input into one contiguous run of its output (a Concat's), are one `memref.copy`,
//! which `plan-workspace` elides where it can place the source in the destination; on GPUs they
//! are flat parallel loops; on CPUs a move that interleaves a few planes goes in vectors
//! ([`super::interleave`]). `kernel.matmul` and `kernel.conv` are lowered in [`super::matmul`]
//! and [`super::conv`].

use super::{ops_named, Cursor};
use crate::builder::{Extent, LoopBuilder};
use crate::pass::{LoweringOptions, Pass};
use std::collections::HashMap;
use xcc_ir::affine::AffineExpr;
use xcc_ir::dialects::kernel::{Generic, LoopSize};
use xcc_ir::types::Layout;
use xcc_ir::{Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};

pub struct KernelToLoops;

const LOWERED: &[&str] = &[
    "kernel.generic",
    "kernel.yield",
    "kernel.index",
    "kernel.copy",
    "kernel.matmul",
    "kernel.conv",
    "kernel.conv_planes",
    "kernel.matmul_blockwise",
    "kernel.attention",
];

/// [`super::gpu_strategy::recorded_matmul`] or [`super::gpu_strategy::recorded_conv`].
type GpuChoose = fn(
    &Module,
    OpId,
    crate::GpuGemm,
    &xcc_targets::GpuKernelChoice,
) -> Result<super::gpu_strategy::GpuStrategy, Diagnostic>;

impl Pass for KernelToLoops {
    fn name(&self) -> &'static str {
        "kernel-to-loops"
    }

    fn lowers(&self, op: &str) -> bool {
        LOWERED.contains(&op)
    }

    fn run(&self, mut m: Module, options: &LoweringOptions) -> Result<Module, Diagnostic> {
        // The epilogue maps' functions, copied into the stores and then gone.
        let maps: Vec<OpId> = ops_named(&m, &["kernel.matmul", "kernel.conv", "kernel.conv_planes"])
            .into_iter()
            .filter_map(|op| m.attr(op, "epilogue_map").and_then(xcc_ir::Attribute::as_symbol))
            .filter_map(|name| m.lookup_symbol(name))
            .collect();
        // The ops lowered whole (a generic's yield and index go with it).
        let top: Vec<&str> =
            LOWERED.iter().copied().filter(|n| !["kernel.yield", "kernel.index"].contains(n)).collect();
        // On a GPU, the strategies `kernel-choose-strategies` recorded (chosen now where it did not run).
        let gpu_choice = options.target.info().gpu.filter(|_| options.gpu()).map(|gpu| gpu.kernels);
        let on_gpu = |m: &Module, op, choose: GpuChoose| {
            gpu_choice.map(|choice| choose(m, op, options.gpu_gemm, &choice)).transpose()
        };
        let tiles = |m: &Module, op| super::strategy::register_tiles(m, op, options.target.info().matmul_tiles);
        for op in ops_named(&m, &top) {
            // An op nested in a generic being lowered was copied out and is gone.
            if m.ops[op].parent.is_none() {
                continue;
            }
            match m.ops[op].name.as_str() {
                "kernel.generic" => match slot_of_copy(&m, op).filter(|_| !options.gpu()) {
                    Some(slot) => copy_into_slot(&mut m, op, slot),
                    None if !options.gpu() && super::reduce::lower(&mut m, op) => {}
                    None => {
                        collapse_loops(&mut m, op);
                        if options.gpu() || !super::interleave::lower(&mut m, op) {
                            lower_generic(&mut m, op)?
                        }
                    }
                },
                "kernel.copy" => lower_copy(&mut m, op, options.gpu()),
                "kernel.matmul"
                    if xcc_ir::dialects::kernel::is_integer_matmul(&m, op) && m.attr(op, "b_quads").is_some() =>
                {
                    super::qgemm::lower(&mut m, op, options)?
                }
                "kernel.matmul" => {
                    let tiles = tiles(&m, op)?;
                    let gpu = on_gpu(&m, op, super::gpu_strategy::recorded_matmul)?;
                    super::matmul::lower(&mut m, op, gpu, &tiles)?
                }
                "kernel.conv_planes" => super::qconv::lower(&mut m, op, options)?,
                "kernel.matmul_blockwise" => super::blockwise::lower(&mut m, op, options)?,
                "kernel.attention" => super::attention::lower(&mut m, op)?,
                _ => {
                    let l2 = super::strategy::l2_cache_bytes(&m, op, options.target.info().caches.l2);
                    let cpu = super::conv::CpuGemm { tiles: tiles(&m, op)?, l2_bytes: l2 };
                    let gpu = on_gpu(&m, op, super::gpu_strategy::recorded_conv)?;
                    super::conv::lower(&mut m, op, gpu, &cpu)?
                }
            }
            m.erase_op(op);
        }
        for func in maps {
            if m.ops[func].parent.is_some() {
                m.erase_op(func);
            }
        }
        Ok(m)
    }
}

/// The index value of an affine expression of the loop indices.
pub fn affine_index<B: LoopBuilder>(b: &mut B, e: &AffineExpr, ivs: &[ValueId]) -> ValueId {
    let bin = |b: &mut B, name: &str, x: &AffineExpr, y: &AffineExpr| {
        let l = affine_index(b, x, ivs);
        let r = affine_index(b, y, ivs);
        b.value_op(name, &[l, r], Type::Index)
    };
    match e {
        AffineExpr::Dim(d) => ivs[*d as usize],
        AffineExpr::Symbol(_) => unreachable!("kernel maps have no symbols"),
        AffineExpr::Const(c) => b.idx(*c),
        AffineExpr::Add(x, y) => bin(b, "arith.addi", x, y),
        AffineExpr::Mul(x, y) => bin(b, "arith.muli", x, y),
        AffineExpr::FloorDiv(x, y) => bin(b, "arith.floordivsi", x, y),
        AffineExpr::CeilDiv(x, y) => bin(b, "arith.ceildivsi", x, y),
        AffineExpr::Mod(x, y) => {
            // Affine `mod` is never negative.
            let r = bin(b, "arith.remsi", x, y);
            let d = affine_index(b, y, ivs);
            let zero = b.idx(0);
            let neg = b.cmpi("slt", r, zero);
            let up = b.value_op("arith.addi", &[r, d], Type::Index);
            b.value_op("arith.select", &[neg, up, r], Type::Index)
        }
    }
}

fn element_type(m: &Module, buffer: ValueId) -> Type {
    (*m.ty(buffer).as_memref().expect("verified memref").elem).clone()
}

/// Reads operand `v` at its map (the raw element: no widening).
pub(super) fn read<B: LoopBuilder>(b: &mut B, v: ValueId, map: &xcc_ir::affine::AffineMap, ivs: &[ValueId]) -> ValueId {
    let idx: Vec<ValueId> = map.results.iter().map(|e| affine_index(b, e, ivs)).collect();
    let t = element_type(b.module(), v);
    b.value_op("memref.load", &[&[v][..], &idx].concat(), t)
}

pub(super) fn write<B: LoopBuilder>(
    b: &mut B,
    value: ValueId,
    v: ValueId,
    map: &xcc_ir::affine::AffineMap,
    ivs: &[ValueId],
) {
    let idx: Vec<ValueId> = map.results.iter().map(|e| affine_index(b, e, ivs)).collect();
    b.op(OpSpec::new("memref.store", Span::UNKNOWN).operands([&[value, v][..], &idx].concat()));
}

/// Copies the body's operations (not its yield) at the cursor, with `args` for its block
/// arguments and `ivs` for `kernel.index`; returns the yielded values.
fn inline_body(c: &mut Cursor, g: &Generic, args: &[ValueId], ivs: &[ValueId]) -> Vec<ValueId> {
    let entry = c.m.regions[g.body].blocks[0];
    let mut map: HashMap<ValueId, ValueId> = c.m.blocks[entry].args.iter().copied().zip(args.iter().copied()).collect();
    let ops = c.m.blocks[entry].ops.clone();
    let (last, body) = ops.split_last().expect("a terminated body");
    for &op in body {
        if c.m.ops[op].name == "kernel.index" {
            let d = c.m.attr(op, "dim").and_then(xcc_ir::Attribute::as_int).expect("verified") as usize;
            map.insert(c.m.ops[op].results[0], ivs[d]);
            continue;
        }
        let copy = c.m.clone_op(op, &mut map);
        let block = c.block;
        c.m.append_op(block, copy);
    }
    c.m.ops[*last].operands.iter().map(|v| *map.get(v).unwrap_or(v)).collect()
}

pub fn lower_generic(m: &mut Module, op: OpId) -> Result<(), Diagnostic> {
    let span = m.ops[op].span;
    let g = Generic::of(m, op).ok_or_else(|| Diagnostic::new(span, "internal: a malformed kernel.generic"))?;
    let sizes = g.loop_sizes(m).map_err(|e| Diagnostic::new(span, format!("kernel.generic: {e}")))?;
    let entry = m.regions[g.body].blocks[0];
    let used = values_used_in(m, op);
    let args_used: Vec<bool> = m.blocks[entry].args.iter().map(|a| used.contains(a)).collect();
    let (par, red): (Vec<usize>, Vec<usize>) = (0..sizes.len()).partition(|&d| g.parallel[d]);
    let n_in = g.inputs.len();
    let mut c = Cursor::new(m, span);
    let sizes: Vec<Extent> = sizes.iter().map(|&s| loop_extent(&mut c, s)).collect();
    let par_sizes: Vec<Extent> = par.iter().map(|&d| sizes[d]).collect();
    let red_sizes: Vec<Extent> = red.iter().map(|&d| sizes[d]).collect();
    c.parallel_over(&par_sizes, &mut |c, pivs| {
        let mut ivs = vec![ValueId::from_index(0); sizes.len()];
        for (&d, &iv) in par.iter().zip(pivs) {
            ivs[d] = iv;
        }
        // Outputs' elements: their current values (the accumulators' start for reductions).
        let outs: Vec<ValueId> = g
            .outputs
            .iter()
            .enumerate()
            .map(|(k, &v)| {
                if red.is_empty() && !args_used[n_in + k] {
                    ValueId::from_index(0)
                } else {
                    read(c, v, &g.maps[n_in + k], &ivs)
                }
            })
            .collect();
        let step = |c: &mut Cursor, ivs: &[ValueId], outs: &[ValueId]| -> Vec<ValueId> {
            let mut args: Vec<ValueId> = g
                .inputs
                .iter()
                .enumerate()
                .map(|(k, &v)| if args_used[k] { read(c, v, &g.maps[k], ivs) } else { ValueId::from_index(0) })
                .collect();
            args.extend(outs);
            inline_body(c, &g, &args, ivs)
        };
        let results = if red.is_empty() {
            step(c, &ivs, &outs)
        } else {
            c.nest_accs_over(&red_sizes, &outs, &mut |c, rivs, accs| {
                let mut ivs = ivs.clone();
                for (&d, &iv) in red.iter().zip(rivs) {
                    ivs[d] = iv;
                }
                step(c, &ivs, accs)
            })
        };
        for (k, (&out, &value)) in g.outputs.iter().zip(&results).enumerate() {
            write(c, value, out, &g.maps[n_in + k], &ivs);
        }
    });
    c.finish(op);
    Ok(())
}

/// A loop's trip count: a constant, or the operand dim it comes from read at run time.
fn loop_extent(c: &mut Cursor, size: LoopSize) -> Extent {
    match size {
        LoopSize::Static(n) => Extent::Fixed(n as usize),
        LoopSize::Dynamic { operand, dim } => c.extent_of(operand, dim),
    }
}

/// The values the operations nested in `op` use.
pub(crate) fn values_used_in(m: &Module, op: OpId) -> std::collections::HashSet<ValueId> {
    let mut used = std::collections::HashSet::new();
    m.walk_nested(op, &mut |o| used.extend(m.ops[o].operands.iter().copied()));
    used
}

fn is_contiguous(m: &Module, v: ValueId) -> bool {
    m.ty(v).as_memref().is_some_and(|mt| mt.layout == Layout::Identity)
}

/// Adjacent parallel loops that every operand reads either as adjacent dimensions of itself
/// (the inner one whole, the outer one whole or in part: [`reads_together`]) or not at all
/// become one loop over their product, the operands seen through views with
/// those dimensions merged: an elementwise op over a 14 x 14 plane gets one innermost loop of
/// 196, which vectorizes, instead of rows of 14. Needs static loop sizes and no `kernel.index`.
fn collapse_loops(m: &mut Module, op: OpId) {
    let Some(g) = Generic::of(m, op) else { return };
    let Some(sizes) = static_loop_sizes(m, &g) else { return };
    let mut uses_index = false;
    m.walk_nested(op, &mut |o| uses_index |= m.ops[o].name == "kernel.index");
    let operands: Vec<ValueId> = g.inputs.iter().chain(&g.outputs).copied().collect();
    let static_shapes =
        operands.iter().all(|&v| m.ty(v).as_memref().is_some_and(|t| t.shape.iter().all(Option::is_some)));
    let uses: Vec<Vec<Vec<usize>>> = g.maps.iter().map(|map| positions_of_dims(map, sizes.len())).collect();
    let mergeable = |d: usize| {
        g.parallel[d]
            && g.parallel[d + 1]
            && operands
                .iter()
                .zip(&g.maps)
                .zip(&uses)
                .all(|((&v, map), uses)| reads_together(m, v, (map, uses), (d, &sizes)))
    };
    // `group[d]`: the new loop of old loop `d`.
    let mut group = vec![0u32; sizes.len()];
    for d in 1..sizes.len() {
        group[d] = group[d - 1] + u32::from(!mergeable(d - 1));
    }
    let loops = group.last().map_or(0, |&g| g as usize + 1);
    if uses_index || !static_shapes || loops == sizes.len() {
        return;
    }
    let span = m.ops[op].span;
    let mut maps = Vec::new();
    for (k, (&v, map)) in operands.iter().zip(&g.maps).enumerate() {
        let (shape, results) = merged_positions(m.ty(v).as_memref().expect("verified"), map, &group);
        if shape.len() != map.results.len() {
            let mut t = m.ty(v).as_memref().expect("verified").clone();
            t.shape = shape.into_iter().map(Some).collect();
            let view = m.build_before(op, xcc_ir::dialects::memref::reinterpret_spec(v, &t, span));
            let view = m.result(view, 0);
            m.ops[op].operands[k] = view;
        }
        maps.push(xcc_ir::Attribute::AffineMap(xcc_ir::affine::AffineMap {
            num_dims: loops as u32,
            num_symbols: 0,
            results,
        }));
    }
    let iterators = (0..loops).map(|_| xcc_ir::Attribute::String("parallel".into()));
    let mut iterators: Vec<xcc_ir::Attribute> = iterators.collect();
    for (d, &p) in g.parallel.iter().enumerate() {
        if !p {
            iterators[group[d] as usize] = xcc_ir::Attribute::String("reduction".into());
        }
    }
    m.set_attr(op, "indexing_maps", xcc_ir::Attribute::Array(maps));
    m.set_attr(op, "iterator_types", xcc_ir::Attribute::Array(iterators));
}

pub(super) fn static_loop_sizes(m: &Module, g: &Generic) -> Option<Vec<u64>> {
    let sizes = g.loop_sizes(m).ok()?;
    sizes.iter().map(|s| if let LoopSize::Static(n) = s { Some(*n) } else { None }).collect()
}

/// For each loop, the positions of `map`'s results that read it, in order (one walk of the map,
/// so that asking about every loop costs the map's size once, not once per loop).
fn positions_of_dims(map: &xcc_ir::affine::AffineMap, loops: usize) -> Vec<Vec<usize>> {
    let mut positions = vec![Vec::new(); loops];
    for (pos, e) in map.results.iter().enumerate() {
        e.for_each_dim(&mut |d| {
            if let Some(list) = positions.get_mut(d as usize) {
                if list.last() != Some(&pos) {
                    list.push(pos);
                }
            }
        });
    }
    positions
}

/// Whether operand `v` (read at `map`, whose results read loops at `uses`) reads loops `d` and
/// `d + 1` as adjacent dimensions of its contiguous static shape, the inner one whole and the
/// outer one whole or in part, possibly shifted by a constant (a pad's interior: its rows are
/// still one run per plane), or neither.
fn reads_together(
    m: &Module,
    v: ValueId,
    (map, uses): (&xcc_ir::affine::AffineMap, &[Vec<usize>]),
    (d, sizes): (usize, &[u64]),
) -> bool {
    let (outer_uses, inner_uses) = (&uses[d], &uses[d + 1]);
    if outer_uses.is_empty() && inner_uses.is_empty() {
        return true;
    }
    let Some(mt) = m.ty(v).as_memref().filter(|t| t.layout == Layout::Identity) else { return false };
    let Some(q) = inner_uses.iter().copied().find(|&p| map.results[p] == AffineExpr::Dim(d as u32 + 1)) else {
        return false;
    };
    let Some(p) = q.checked_sub(1) else { return false };
    let outer = dim_and_shift(&map.results[p]).filter(|&(dim, _)| dim == d as u32);
    let mut reading: Vec<usize> = outer_uses.iter().chain(inner_uses).copied().take(5).collect();
    reading.sort_unstable();
    reading.dedup();
    let plain_only = reading.len() == 2;
    let fits = outer.is_some_and(|(_, shift)| mt.shape[p].is_some_and(|n| shift as u64 + sizes[d] <= n));
    plain_only && fits && mt.shape[q] == Some(sizes[d + 1])
}

/// `(i, c)` for `d_i + c` with `c >= 0` (or `d_i`: `c` is 0).
fn dim_and_shift(e: &AffineExpr) -> Option<(u32, i64)> {
    match e {
        AffineExpr::Dim(d) => Some((*d, 0)),
        AffineExpr::Add(x, y) => match (&**x, &**y) {
            (AffineExpr::Dim(d), AffineExpr::Const(c)) | (AffineExpr::Const(c), AffineExpr::Dim(d)) if *c >= 0 => {
                Some((*d, *c))
            }
            _ => None,
        },
        _ => None,
    }
}

/// An operand's shape and map results with the positions read at loops of one group merged
/// (`group[d]`: the new loop of old loop `d`; other results renumbered).
fn merged_positions(
    mt: &xcc_ir::types::MemRefType,
    map: &xcc_ir::affine::AffineMap,
    group: &[u32],
) -> (Vec<u64>, Vec<AffineExpr>) {
    let (mut shape, mut results): (Vec<u64>, Vec<AffineExpr>) = (Vec::new(), Vec::new());
    for (pos, e) in map.results.iter().enumerate() {
        let extent = mt.shape[pos].unwrap_or(1);
        let prev = pos.checked_sub(1).and_then(|p| dim_and_shift(&map.results[p]));
        if let (AffineExpr::Dim(d), Some((prev, _))) = (e, prev) {
            // Consecutive loops of one group (not one loop read twice, a diagonal); the group's
            // first may be shifted, by whole runs of the dims merged after it.
            if *d == prev + 1 && group[*d as usize] == group[prev as usize] {
                *shape.last_mut().expect("a previous position") *= extent;
                let last = results.last_mut().expect("a previous position");
                if let Some((g, shift)) = dim_and_shift(last).filter(|&(_, c)| c > 0) {
                    *last = AffineExpr::Add(
                        Box::new(AffineExpr::Dim(g)),
                        Box::new(AffineExpr::Const(shift * extent as i64)),
                    );
                }
                continue;
            }
        }
        shape.push(extent);
        results.push(e.map_dims(&|d| AffineExpr::Dim(group[d as usize])));
    }
    (shape, results)
}

/// Where a `kernel.generic` that only moves its input's elements puts them in its output, when
/// that is one contiguous run (a Concat's input along the first axis that is not 1): the run's
/// first element in the output, and its length. Both buffers are static and contiguous.
#[derive(Clone, Copy)]
struct Slot {
    offset: u64,
    len: u64,
}

/// The input and output of a generic that only moves its one input's elements into its one
/// output, every loop parallel.
pub(super) fn moved(m: &Module, g: &Generic) -> Option<(ValueId, ValueId)> {
    let ([src], [dst]) = (g.inputs.as_slice(), g.outputs.as_slice()) else { return None };
    let entry = m.regions[g.body].blocks[0];
    let [yield_op] = m.blocks[entry].ops.as_slice() else { return None };
    let moves = m.ops[*yield_op].operands == [m.blocks[entry].args[0]] && g.parallel.iter().all(|&p| p);
    moves.then_some((*src, *dst))
}

fn slot_of_copy(m: &Module, op: OpId) -> Option<Slot> {
    let g = Generic::of(m, op)?;
    let (src, dst) = moved(m, &g)?;
    let (from, to) = (m.ty(src).as_memref()?, m.ty(dst).as_memref()?);
    let static_shape = |t: &xcc_ir::types::MemRefType| t.shape.iter().copied().collect::<Option<Vec<u64>>>();
    let (s, d) = (static_shape(from)?, static_shape(to)?);
    if from.layout != Layout::Identity || to.layout != Layout::Identity || from.elem != to.elem || s.len() != d.len() {
        return None;
    }
    let rank = s.len();
    if g.maps[0].results != (0..rank as u32).map(AffineExpr::Dim).collect::<Vec<_>>() {
        return None;
    }
    let sizes = g.loop_sizes(m).ok()?;
    if sizes.iter().zip(&s).any(|(size, &n)| !matches!(size, LoopSize::Static(k) if *k == n)) {
        return None;
    }
    let shift: Vec<u64> =
        g.maps[1].results.iter().enumerate().map(|(i, e)| shift_of(e, i as u32)).collect::<Option<_>>()?;
    if shift.len() != rank || (0..rank).any(|i| shift[i] + s[i] > d[i]) {
        return None;
    }
    // Contiguous: ones before the first axis that is not 1, whole rows after it.
    let first = s.iter().position(|&n| n != 1).unwrap_or(0);
    if (first + 1..rank).any(|i| s[i] != d[i] || shift[i] != 0) {
        return None;
    }
    let mut stride = 1;
    let mut offset = 0;
    for i in (0..rank).rev() {
        offset += shift[i] * stride;
        stride *= d[i];
    }
    Some(Slot { offset, len: s.iter().product() })
}

/// `c` for `d_i + c` (or `d_i`), the output index of loop `i` shifted by a constant.
fn shift_of(e: &AffineExpr, i: u32) -> Option<u64> {
    dim_and_shift(e).filter(|&(d, _)| d == i).map(|(_, c)| c as u64)
}

/// A contiguous copy is one `memref.copy` (a `memcpy`), which `plan-workspace` can elide by
/// placing the source where it is copied to: a Concat's inputs are then computed in place.
fn copy_into_slot(m: &mut Module, op: OpId, slot: Slot) {
    let span = m.ops[op].span;
    let (src, dst) = (m.ops[op].operands[0], m.ops[op].operands[1]);
    let elem = (*m.ty(src).as_memref().expect("a memref").elem).clone();
    let mut c = Cursor::new(m, span);
    let n = Extent::Fixed(slot.len as usize);
    let flat_src = c.reshaped_over(src, &[n]);
    let window = xcc_ir::types::MemRefType {
        shape: vec![Some(slot.len)],
        elem: Box::new(elem),
        layout: match slot.offset {
            0 => Layout::Identity,
            o => Layout::Strided { offset: Some(o as i64), strides: vec![Some(1)] },
        },
        memory_space: None,
    };
    let spec = xcc_ir::dialects::memref::reinterpret_spec(dst, &window, span);
    let slot_view = c.op(spec);
    let slot_view = c.m.result(slot_view, 0);
    c.op(OpSpec::new("memref.copy", span).operands([flat_src, slot_view]));
    c.finish(op);
}

/// Row-major element order. Between contiguous buffers (a reshape): on CPUs one `memref.copy`
/// of flat views, which `plan-workspace` can elide as in [`copy_into_slot`]; on GPUs one flat
/// parallel loop. Otherwise a loop over the target's shape that recomputes the source's indices.
fn lower_copy(m: &mut Module, op: OpId, gpu: bool) {
    let span = m.ops[op].span;
    let (src, dst) = (m.ops[op].operands[0], m.ops[op].operands[1]);
    let contiguous = is_contiguous(m, src) && is_contiguous(m, dst);
    let mut c = Cursor::new(m, span);
    if contiguous {
        let dst_shape = c.extents(dst);
        let n = c.extent_product(&dst_shape);
        let (s, d) = (c.reshaped_over(src, &[n]), c.reshaped_over(dst, &[n]));
        if gpu {
            c.parallel_over(&[n], &mut |c, ivs| {
                let t = element_type(c.m, s);
                let v = c.value_op("memref.load", &[s, ivs[0]], t);
                c.op(OpSpec::new("memref.store", Span::UNKNOWN).operands([v, d, ivs[0]]));
            });
        } else {
            c.op(OpSpec::new("memref.copy", span).operands([s, d]));
        }
    } else {
        let (src_shape, dst_shape) = (c.extents(src), c.extents(dst));
        c.parallel_over(&dst_shape, &mut |c, ivs| {
            let mut flat = c.idx(0);
            for (i, &iv) in ivs.iter().enumerate().rev() {
                let stride = c.extent_product(&dst_shape[i + 1..]);
                let s = c.extent(stride);
                let t = c.value_op("arith.muli", &[iv, s], Type::Index);
                flat = c.value_op("arith.addi", &[flat, t], Type::Index);
            }
            let sidx = c.unflatten_over(flat, &src_shape);
            let t = element_type(c.m, src);
            let v = c.value_op("memref.load", &[&[src][..], &sidx].concat(), t);
            c.op(OpSpec::new("memref.store", Span::UNKNOWN).operands([&[v, dst][..], ivs].concat()));
        });
    }
    c.finish(op);
}
