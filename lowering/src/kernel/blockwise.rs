//! `kernel.matmul_blockwise` to loops: float activations times 4-bit weights with a scale and a
//! zero point per block of K (`xcc_ir::dialects::kernel_blockwise` gives the layout).
//!
//! A language model's decode step is a matrix-vector product whose cost is reading the
//! weights, so the weights stay packed and are unpacked in registers: each run of 32 4-bit
//! values is 16 bytes, one shift and one mask from a 32-byte vector (8-bit runs are their
//! bytes). The rows go in chunks of
//! [`ROW_CHUNK`]: each chunk's rows of A are first prepared in the workspace (padded to whole
//! blocks with zeros; with `int8_activations`, quantized to int8 per block, with each block's
//! scale and scaled sum), then one parallel loop over groups of [`COLUMNS`] columns computes
//! the chunk's outputs, each group's weights read from memory once and from cache for the
//! chunk's other rows. Decode threads thus split the columns.
//!
//! Per block and column, the products of a run:
//! - float (`accuracy_level` 0 and 1): the weights less the block's zero point, as bytes, widened
//!   to f32 eight at a time and multiplied into eight lanes; the block's sums scaled once;
//! - int8: the unsigned weights times A's signed bytes, summed exactly in i32: VNNI's
//!   `vpdpbusd` where `byte_dots` records it, on CPUs of its level (tested in each parallel
//!   task, [`with_products`]; a last partial group of columns, outside any, keeps the pairs);
//!   NEON's `sdot` on AArch64 with dotprod (4-bit weights as signed bytes; 8-bit ones less
//!   128, with i8mm `usdot` as they are), for every row; else with AVX2 `vpmaddubsw` and `vpmaddwd` (the
//!   largest 4-bit pair, `2 * 15 * 127`, fits in 16 bits; 8-bit weights go less 128, their
//!   magnitudes times A's bytes given their signs, `2 * 128 * 127`), else widened portably
//!   (in 16 bits: `255 * 127` fits); each block's sum
//!   is scaled by A's and the weights' scales, and the zero point comes off at the end as
//!   `zero * scale * (A's scale * sum of A's bytes)`, which needs no work per weight.
//!
//! That is decode's kernel. A chunk of several rows (a prompt) goes elsewhere: in f32 through
//! the dequantized panels of `blockwise_rows.rs`, with int8 products (but bytes widened portably) through
//! the turned weights of `blockwise_int8_rows.rs`, which unpack each run once for the chunk and
//! sum a row's products with a lane per column.
//!
//! On a GPU every output is one thread's sum of dequantized products ([`lower_naive`]), which
//! is also the reference the kernels are tested against.

use super::qgemm::{by_avx2, by_level, vector};
use super::Cursor;
use crate::builder::{Extent, LoopBuilder};
use crate::{ByteDots, LoweringOptions};
use xcc_ir::attributes::DenseValues;
use xcc_ir::dialects::kernel_blockwise::{BlockwiseShape, RUN};
use xcc_ir::{Attribute, Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};
use xcc_targets::x86_64::VNNI_LEVEL;

/// The rows whose A is prepared at once (the weights are read from memory once per chunk).
pub(super) const ROW_CHUNK: usize = 16;

/// The columns stored together, whose sums one iteration of the parallel loop computes.
pub(super) const GROUP: usize = xcc_ir::dialects::kernel_blockwise::GROUP as usize;

/// Eight lanes: a 256-bit vector of f32 or i32.
const LANES: usize = 8;

/// How a run's products are computed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Products {
    /// f32 weights times f32 A.
    Float,
    /// Bytes widened by generic vector operations.
    PortableBytes,
    /// `vpmaddubsw` and `vpmaddwd` (a branch on the CPU level picks it on CPUs with AVX2).
    PairSums,
    /// The same for 8-bit weights, whose pairs of products could saturate 16 bits: the weights
    /// less 128 (signed), their magnitudes times A's bytes with their signs (`vpsignb`).
    SignedPairs,
    /// `vpdpbusd` on 256-bit vectors.
    Vnni,
    /// NEON's dot products on 128-bit halves: `sdot` for 4-bit weights (bytes below 16, signed
    /// as they are), `usdot` (i8mm) for unsigned bytes by A's signed ones.
    NeonSigned,
    NeonMixed,
    /// `sdot` for 8-bit weights without i8mm: the weights less 128 (their top bit flipped), and
    /// so are the zero points, as with [`Products::SignedPairs`].
    NeonShifted,
}

impl Products {
    /// NEON's dot products for weights of `bits` where `dots` are NEON's.
    fn neon(dots: ByteDots, bits: u64) -> Option<Products> {
        match dots {
            ByteDots::Neon { .. } if bits == 4 => Some(Products::NeonSigned),
            ByteDots::Neon { mixed: true } => Some(Products::NeonMixed),
            ByteDots::Neon { mixed: false } => Some(Products::NeonShifted),
            _ => None,
        }
    }

    /// Whether the weights (and the zero points) are taken 128 less.
    fn shifted(self) -> bool {
        matches!(self, Products::SignedPairs | Products::NeonShifted)
    }
}

/// The operands (flat views), the sizes and the workspace a lowering shares.
pub(super) struct Blockwise {
    pub a: ValueId,
    pub q: ValueId,
    pub scales: ValueId,
    pub zeros: ValueId,
    pub out: ValueId,
    pub s: BlockwiseShape,
    /// A's rows of the chunk, padded to whole blocks: f32, or i8 with `int8_activations`.
    pub prepared: ValueId,
    /// With `int8_activations`, each prepared block's scale.
    pub a_scales: Option<ValueId>,
    /// The sum of each prepared block (times its scale with `int8_activations`): the zero
    /// points' share of the products.
    pub a_sums: ValueId,
    /// With `int8_activations`, the chunk's sums for each whole group of columns, 8 per row,
    /// where `blockwise_int8_rows.rs` adds them up block by block (the output's rows lie a
    /// multiple of 4 KiB apart in a model's matmuls, where stores and loads alias).
    pub row_sums: Option<ValueId>,
    /// In f32, the dequantized weights of a K-slice of columns, one panel per stripe of groups
    /// (`blockwise_rows.rs`).
    pub panels: Option<ValueId>,
    /// Whether VNNI's products replace the 16-bit pairs on CPUs of its level ([`with_products`]).
    pub vnni: bool,
}

pub fn lower(m: &mut Module, op: OpId, options: &LoweringOptions) -> Result<(), Diagnostic> {
    if options.gpu() {
        lower_naive(m, op);
        return Ok(());
    }
    let span = m.ops[op].span;
    let s = BlockwiseShape::of(m, op);
    let int8 = m.attr(op, "int8_activations").is_some();
    let dots = if int8 { super::strategy::recorded_byte_dots(m, op, options)? } else { ByteDots::None };
    let pairs = int8 && super::strategy::recorded_pair_products(m, op, options);
    let operands = m.ops[op].operands.clone();
    let mut c = Cursor::new(m, span);
    let [a, q, scales, zeros, out] = [0, 1, 2, 3, 4].map(|i| c.flat(operands[i]));
    let dims = c.extents(operands[4]);
    let rows = c.extent_product(&dims[..dims.len() - 1]);
    let (kp, blocks) = (s.padded_k() as usize, s.blocks as usize);
    // A prompt in f32 shares each dequantized panel among more rows.
    let chunk_rows = if int8 { ROW_CHUNK } else { super::blockwise_rows::ROW_CHUNK };
    let prepared = super::aligned_buffer(&mut c, if int8 { Type::i8() } else { Type::f32() }, chunk_rows * kp);
    let a_scales = int8.then(|| super::aligned_buffer(&mut c, Type::f32(), ROW_CHUNK * blocks));
    let a_sums = super::aligned_buffer(&mut c, Type::f32(), chunk_rows * blocks);
    let whole_groups = s.n as usize / GROUP;
    let row_sums = (int8 && whole_groups > 0)
        .then(|| super::aligned_buffer(&mut c, Type::f32(), whole_groups * ROW_CHUNK * GROUP));
    let panels = (!int8).then(|| super::blockwise_rows::panels(&mut c, &s));
    let vnni = dots == ByteDots::Vnni;
    let neon = Products::neon(dots, s.bits);
    let w = Blockwise { a, q, scales, zeros, out, s, prepared, a_scales, a_sums, row_sums, panels, vnni };
    let zero = c.idx(0);
    let rows = c.extent(rows);
    c.for_step(zero, rows, chunk_rows, |c, r0| {
        let left = c.value_op("arith.subi", &[rows, r0], Type::Index);
        let chunk = c.idx(chunk_rows as i64);
        let count = c.value_op("arith.minsi", &[left, chunk], Type::Index);
        prepare_rows(c, &w, r0, count);
        match (int8, neon) {
            // f32 arithmetic: many rows (a prompt) dequantize each run once for a tile of rows
            // (`blockwise_rows.rs`); one row (a decode step) goes through the kernel below.
            (false, _) => {
                let two = c.idx(2);
                let many = c.cmpi("sge", count, two);
                let rows = |e: &mut Cursor| {
                    super::blockwise_rows::every_group(e, &w, (r0, count));
                    vec![]
                };
                let row = |e: &mut Cursor| {
                    every_group(e, &w, (r0, count), Products::Float);
                    vec![]
                };
                c.if_else(many, vec![], rows, row);
            }
            // NEON's dot products for every row (no kernel of turned weights for them yet).
            (true, Some(products)) => every_group(c, &w, (r0, count), products),
            // VNNI is a level above AVX2's: its products replace the pairs (`with_products`).
            (true, None) => byte_products(c, &w, (r0, count), pairs || vnni),
        }
    });
    for buf in [Some(prepared), a_scales, Some(a_sums), row_sums, panels].into_iter().flatten() {
        c.op(OpSpec::new("memref.dealloc", Span::UNKNOWN).operands([buf]));
    }
    c.finish(op);
    Ok(())
}

/// Int8 products: as 16-bit pairs on CPUs with AVX2 where `pairs` (with VNNI's dot products
/// on CPUs of its level where `w.vnni`), else widened portably.
fn byte_products(c: &mut Cursor, w: &Blockwise, rows: (ValueId, ValueId), pairs: bool) {
    if !pairs {
        return every_group(c, w, rows, Products::PortableBytes);
    }
    by_avx2(c, &|e, avx2| match (avx2, w.s.bits) {
        (false, _) => every_group(e, w, rows, Products::PortableBytes),
        (true, 4) => rows_or_row(e, w, rows, Products::PairSums),
        (true, _) => rows_or_row(e, w, rows, Products::SignedPairs),
    })
}

/// `body` with `products`, or where `w.vnni` replaces the 16-bit pairs, a test of the CPU's level
/// around it: `body` with VNNI's products on CPUs of its level. Called inside each parallel
/// loop's body only, so that the test is in its task, and `cpu-dispatch`'s partial copy for VNNI
/// holds the kernel's tasks, not the code around them.
pub(super) fn with_products(e: &mut Cursor, w: &Blockwise, products: Products, body: &dyn Fn(&mut Cursor, Products)) {
    if !w.vnni || !matches!(products, Products::PairSums | Products::SignedPairs) {
        return body(e, products);
    }
    by_level(e, VNNI_LEVEL, &|e, vnni| body(e, if vnni { Products::Vnni } else { products }))
}

/// Int8 products over the chunk's rows: many rows (a prompt) through the turned weights of
/// `blockwise_int8_rows.rs`, one row (a decode step) through [`every_group`].
fn rows_or_row(c: &mut Cursor, w: &Blockwise, (r0, count): (ValueId, ValueId), products: Products) {
    let two = c.idx(2);
    let many = c.cmpi("sge", count, two);
    let rows = |e: &mut Cursor| {
        super::blockwise_int8_rows::every_group(e, w, (r0, count), products);
        vec![]
    };
    let row = |e: &mut Cursor| {
        every_group(e, w, (r0, count), products);
        vec![]
    };
    c.if_else(many, vec![], rows, row);
}

pub(super) fn reduction(c: &mut Cursor, kind: &str, v: ValueId, elem: Type) -> ValueId {
    let kind = Attribute::Opaque(format!("#vector.kind<{kind}>"));
    c.value_attr("vector.reduction", &[v], elem, vec![("kind", kind)])
}

/// The chunk's `count` rows from `r0` of A, padded with zeros to whole blocks, into the
/// workspace with each block's sum: as they are, or quantized to int8 per block with the
/// block's scale (`max |a| / 127`) and the sum of its bytes times that scale.
fn prepare_rows(c: &mut Cursor, w: &Blockwise, r0: ValueId, count: ValueId) {
    let (k, block, blocks) = (w.s.k as usize, w.s.block as usize, w.s.blocks as usize);
    let runs = block / RUN as usize;
    let f32x = vector(RUN as usize, Type::f32());
    let zero = c.idx(0);
    c.for_step(zero, count, 1, |c, r| {
        let row = c.value_op("arith.addi", &[r0, r], Type::Index);
        c.for_loop(0, blocks, |c, b| {
            // The runs of the block as f32 vectors (zeros past K), and where each goes.
            let values: Vec<(ValueId, ValueId)> = (0..runs)
                .map(|j| {
                    let from = c.affine(&[(b, block as i64)], (j * RUN as usize) as i64);
                    let at = c.affine(&[(row, k as i64), (from, 1)], 0);
                    let v = if k.is_multiple_of(block) {
                        c.value_op("vector.load", &[w.a, at], f32x.clone())
                    } else {
                        a_run_masked(c, w.a, at, (from, k))
                    };
                    let to = c.affine(&[(r, (blocks * block) as i64), (from, 1)], 0);
                    (v, to)
                })
                .collect();
            let at = c.affine(&[(r, blocks as i64), (b, 1)], 0);
            match w.a_scales {
                None => {
                    let mut sum = c.const_float(0.0, Type::f32());
                    for &(v, to) in &values {
                        c.op(OpSpec::new("vector.store", Span::UNKNOWN).operands([v, w.prepared, to]));
                        let run_sum = reduction(c, "add", v, Type::f32());
                        sum = c.value_op("arith.addf", &[sum, run_sum], Type::f32());
                    }
                    c.store(sum, w.a_sums, &[at]);
                }
                Some(scales) => quantize_block(c, w.prepared, &values, (scales, w.a_sums, at)),
            }
        });
    });
}

/// The run of A at flat `at` whose first value is K index `from`: the values before K, zeros
/// after.
fn a_run_masked(c: &mut Cursor, a: ValueId, at: ValueId, (from, k): (ValueId, usize)) -> ValueId {
    let kv = c.idx(k as i64);
    let zero = c.idx(0);
    let run = c.idx(RUN as i64);
    let left = c.value_op("arith.subi", &[kv, from], Type::Index);
    let left = c.value_op("arith.maxsi", &[left, zero], Type::Index);
    let lanes = c.value_op("arith.minsi", &[left, run], Type::Index);
    let mask = c.value_op("vector.create_mask", &[lanes], vector(RUN as usize, Type::i1()));
    let zeros = c.splat_const(0.0, vector(RUN as usize, Type::f32()));
    c.value_op("vector.maskedload", &[a, at, mask, zeros], vector(RUN as usize, Type::f32()))
}

/// One block of A (its runs, with where each goes) as int8 `round(a * 127 / max |a|)`, its
/// scale and its scale times the sum of its bytes stored at `at` of `scales` and `sums`.
fn quantize_block(
    c: &mut Cursor,
    prepared: ValueId,
    runs: &[(ValueId, ValueId)],
    (scales, sums, at): (ValueId, ValueId, ValueId),
) {
    let f32x = vector(RUN as usize, Type::f32());
    let mut largest = None;
    for &(v, _) in runs {
        let abs = c.value_op("math.absf", &[v], f32x.clone());
        largest = Some(match largest {
            None => abs,
            Some(m) => c.value_op("arith.maximumf", &[m, abs], f32x.clone()),
        });
    }
    let amax = reduction(c, "maxnumf", largest.expect("a block has runs"), Type::f32());
    let (zero, top) = (c.const_float(0.0, Type::f32()), c.const_float(127.0, Type::f32()));
    let scale = c.value_op("arith.divf", &[amax, top], Type::f32());
    let inverse = c.value_op("arith.divf", &[top, amax], Type::f32());
    let positive = c.cmpf("ogt", amax, zero);
    let inverse = c.value_op("arith.select", &[positive, inverse, zero], Type::f32());
    let inverse = c.value_op("vector.broadcast", &[inverse], f32x.clone());
    let i32x = vector(RUN as usize, Type::i32());
    let mut sum = c.const_int(0, Type::i32());
    for &(v, to) in runs {
        let scaled = c.value_op("arith.mulf", &[v, inverse], f32x.clone());
        let rounded = c.value_op("math.roundeven", &[scaled], f32x.clone());
        let ints = c.value_op("arith.fptosi", &[rounded], i32x.clone());
        let run_sum = reduction(c, "add", ints, Type::i32());
        sum = c.value_op("arith.addi", &[sum, run_sum], Type::i32());
        let bytes = c.value_op("arith.trunci", &[ints], vector(RUN as usize, Type::i8()));
        c.op(OpSpec::new("vector.store", Span::UNKNOWN).operands([bytes, prepared, to]));
    }
    let sum = c.value_op("arith.sitofp", &[sum], Type::f32());
    let scaled_sum = c.value_op("arith.mulf", &[scale, sum], Type::f32());
    c.store(scale, scales, &[at]);
    c.store(scaled_sum, sums, &[at]);
}

/// The chunk's outputs: the whole groups of columns in one parallel loop, then the last,
/// partial one.
fn every_group(c: &mut Cursor, w: &Blockwise, rows: (ValueId, ValueId), products: Products) {
    let n = w.s.n as usize;
    let whole = n / GROUP;
    if whole > 0 {
        c.parallel_over(&[Extent::Fixed(whole)], &mut |e, ivs| {
            with_products(e, w, products, &|e, p| group_outputs(e, w, rows, (ivs[0], GROUP), p))
        });
    }
    if !n.is_multiple_of(GROUP) {
        let last = c.idx(whole as i64);
        // Outside any task: the products below VNNI's (as exact), so that the function around it
        // needs no copy for VNNI.
        group_outputs(c, w, rows, (last, n % GROUP), products);
    }
}

/// The outputs of group `g`'s first `stored` columns for each of the chunk's rows: per column,
/// eight lanes of sums scaled block by block, reduced at the end; the zero points' share for
/// the group's columns in one vector.
pub(super) fn group_outputs(
    e: &mut Cursor,
    w: &Blockwise,
    (r0, count): (ValueId, ValueId),
    (g, stored): (ValueId, usize),
    products: Products,
) {
    let zero = e.idx(0);
    e.for_step(zero, count, 1, |e, r| {
        let lanes_zero = e.splat_const(0.0, vector(LANES, Type::f32()));
        let inits = vec![lanes_zero; GROUP + 1];
        let sums = e.for_accs(0, w.s.blocks as usize, &inits, |e, b, accs| block_sums(e, w, (r, b), g, accs, products));
        let row = e.value_op("arith.addi", &[r0, r], Type::Index);
        for j in 0..stored {
            let total = reduction(e, "add", sums[j], Type::f32());
            let position = Attribute::DenseArray { elem: Type::i64(), values: vec![j as i128] };
            let share =
                e.value_attr("vector.extract", &[sums[GROUP]], Type::f32(), vec![("static_position", position)]);
            let total = e.value_op("arith.subf", &[total, share], Type::f32());
            let at = e.affine(&[(row, w.s.n as i64), (g, GROUP as i64)], j as i64);
            e.store(total, w.out, &[at]);
        }
    });
}

/// The accumulators (a vector of eight f32 per column of group `g`, then the zero points'
/// share, one lane per column) after block `b` of row `r` (of the chunk).
fn block_sums(
    e: &mut Cursor,
    w: &Blockwise,
    (r, b): (ValueId, ValueId),
    g: ValueId,
    accs: &[ValueId],
    products: Products,
) -> Vec<ValueId> {
    let (block, blocks, kp) = (w.s.block as usize, w.s.blocks as usize, w.s.padded_k() as usize);
    let lanes_f32 = vector(LANES, Type::f32());
    let per_block = e.affine(&[(g, (blocks * GROUP) as i64), (b, GROUP as i64)], 0);
    let scales = e.value_op("vector.load", &[w.scales, per_block], lanes_f32.clone());
    let a_block = e.affine(&[(r, blocks as i64), (b, 1)], 0);
    let run_scales = match w.a_scales {
        Some(a_scales) => {
            let a_scale = e.load(a_scales, &[a_block]);
            let a_scale = e.value_op("vector.broadcast", &[a_scale], lanes_f32.clone());
            e.value_op("arith.mulf", &[scales, a_scale], lanes_f32.clone())
        }
        None => scales,
    };
    let run_bytes = w.s.run_bytes() as usize;
    let bytes_per = |values: usize| (values * w.s.bits as usize / 8) as i64;
    let group_at = e.affine(&[(g, bytes_per(kp * GROUP)), (b, bytes_per(block * GROUP))], 0);
    let a_at = e.affine(&[(r, kp as i64), (b, block as i64)], 0);
    let mut next = accs.to_vec();
    for (j, acc) in next.iter_mut().take(GROUP).enumerate() {
        let start = e
            .splat_const(0.0, if products == Products::Float { lanes_f32.clone() } else { vector(LANES, Type::i32()) });
        let mut sum = start;
        for run in 0..block / RUN as usize {
            let a_run = a_operand(e, w.prepared, (a_at, run * RUN as usize), products);
            let at = e.affine(&[(group_at, 1)], bytes_per(j * block) + (run * run_bytes) as i64);
            let q = match w.s.bits {
                4 => unpacked_run(e, w.q, at),
                _ => e.value_op("vector.load", &[w.q, at], vector(RUN as usize, Type::i8())),
            };
            sum = run_products(e, products, sum, q, &a_run);
        }
        if products != Products::Float {
            sum = e.value_op("arith.sitofp", &[sum], lanes_f32.clone());
        }
        let lane = Attribute::DenseArray { elem: Type::i64(), values: vec![j as i128; LANES] };
        let scale = e.value_attr("vector.shuffle", &[run_scales, run_scales], lanes_f32.clone(), vec![("mask", lane)]);
        *acc = e.fmuladd(sum, scale, *acc);
    }
    // The zero points' share: zero * scale * (the block's sum of A).
    let zero_scales = zero_point_scales(e, w, per_block, scales, products);
    let a_sum = e.load(w.a_sums, &[a_block]);
    let a_sum = e.value_op("vector.broadcast", &[a_sum], lanes_f32);
    next[GROUP] = e.fmuladd(zero_scales, a_sum, accs[GROUP]);
    next
}

/// The 8 zero points of a group's block at `at` times its `scales`; with signed pairs, the
/// weights were 128 less, and so are the zero points.
pub(super) fn zero_point_scales(
    e: &mut Cursor,
    w: &Blockwise,
    at: ValueId,
    scales: ValueId,
    products: Products,
) -> ValueId {
    let f32v = vector(LANES, Type::f32());
    let zeros = e.value_op("vector.load", &[w.zeros, at], vector(LANES, Type::i8()));
    let zeros = e.value_op("arith.extui", &[zeros], vector(LANES, Type::i32()));
    let mut zeros = e.value_op("arith.uitofp", &[zeros], f32v.clone());
    if products.shifted() {
        let offset = e.splat_const(128.0, f32v.clone());
        zeros = e.value_op("arith.subf", &[zeros, offset], f32v.clone());
    }
    e.value_op("arith.mulf", &[zeros, scales], f32v)
}

/// A's prepared run at `at + offset`: four vectors of eight f32, or one of 32 bytes.
fn a_operand(e: &mut Cursor, prepared: ValueId, (at, offset): (ValueId, usize), products: Products) -> Vec<ValueId> {
    if products != Products::Float {
        let at = e.affine(&[(at, 1)], offset as i64);
        return vec![e.value_op("vector.load", &[prepared, at], vector(RUN as usize, Type::i8()))];
    }
    (0..RUN as usize / LANES)
        .map(|p| {
            let at = e.affine(&[(at, 1)], (offset + p * LANES) as i64);
            e.value_op("vector.load", &[prepared, at], vector(LANES, Type::f32()))
        })
        .collect()
}

/// The 32 weights of the run whose 16 bytes start at `at` of `q`, as unsigned bytes: the low
/// halves of the bytes, then the high halves. The bytes are loaded into both halves of a
/// 32-byte vector and the upper half shifted right by 4 (as 32-bit words: the bits shifted in
/// from the next byte are masked off), one mask for both.
pub(super) fn unpacked_run(e: &mut Cursor, q: ValueId, at: ValueId) -> ValueId {
    let half = vector(RUN as usize / 2, Type::i8());
    let bytes32 = vector(RUN as usize, Type::i8());
    let words = vector(LANES, Type::i32());
    let bytes = e.value_op("vector.load", &[q, at], half);
    let twice = Attribute::DenseArray { elem: Type::i64(), values: (0..RUN as i128).map(|l| l % 16).collect() };
    let both = e.value_attr("vector.shuffle", &[bytes, bytes], bytes32.clone(), vec![("mask", twice)]);
    let as_words = e.value_op("vector.bitcast", &[both], words.clone());
    let shifts = DenseValues::Int((0..LANES as i128).map(|l| if l < 4 { 0 } else { 4 }).collect());
    let shifts = e.value_attr(
        "arith.constant",
        &[],
        words.clone(),
        vec![("value", Attribute::Dense { values: shifts, ty: words.clone() })],
    );
    let shifted = e.value_op("arith.shrui", &[as_words, shifts], words);
    let shifted = e.value_op("vector.bitcast", &[shifted], bytes32.clone());
    let mask = e.splat_const(15.0, bytes32.clone());
    e.value_op("arith.andi", &[shifted, mask], bytes32)
}

/// `sum` plus the products of one run: the weights `q` (unsigned bytes) by A's run.
pub(super) fn run_products(e: &mut Cursor, products: Products, sum: ValueId, q: ValueId, a: &[ValueId]) -> ValueId {
    let i32x = vector(LANES, Type::i32());
    match products {
        Products::Float => {
            let mut sum = sum;
            for (p, &a) in a.iter().enumerate() {
                let part = lanes_of(e, q, p * LANES, LANES, Type::i8());
                let wide = e.value_op("arith.extui", &[part], i32x.clone());
                let weights = e.value_op("arith.sitofp", &[wide], vector(LANES, Type::f32()));
                sum = e.fmuladd(a, weights, sum);
            }
            sum
        }
        Products::Vnni => e.value_op("llvm.intr.x86.avx512.vpdpbusd.256", &[sum, q, a[0]], i32x),
        Products::NeonSigned => neon_dots(e, "llvm.intr.aarch64.neon.sdot", sum, q, a[0]),
        Products::NeonMixed => neon_dots(e, "llvm.intr.aarch64.neon.usdot", sum, q, a[0]),
        Products::NeonShifted => {
            let bytes = vector(RUN as usize, Type::i8());
            let top = e.splat_const(-128.0, bytes.clone());
            let signed = e.value_op("arith.xori", &[q, top], bytes);
            neon_dots(e, "llvm.intr.aarch64.neon.sdot", sum, signed, a[0])
        }
        Products::PairSums | Products::SignedPairs => {
            let (q, a) = if products == Products::SignedPairs {
                let bytes = vector(RUN as usize, Type::i8());
                let top = e.splat_const(-128.0, bytes.clone());
                let signed = e.value_op("arith.xori", &[q, top], bytes.clone());
                let magnitude = e.value_op("math.absi", &[signed], bytes.clone());
                (magnitude, e.value_op("llvm.intr.x86.avx2.psign.b", &[a[0], signed], bytes))
            } else {
                (q, a[0])
            };
            let i16x = vector(RUN as usize / 2, Type::i16());
            let pairs = e.value_op("llvm.intr.x86.avx2.pmadd.ub.sw", &[q, a], i16x.clone());
            let ones = e.splat_const(1.0, i16x);
            let quads = e.value_op("llvm.intr.x86.avx2.pmadd.wd", &[pairs, ones], i32x.clone());
            e.value_op("arith.addi", &[sum, quads], i32x)
        }
        Products::PortableBytes => {
            let i16x = vector(RUN as usize, Type::i16());
            let qw = e.value_op("arith.extui", &[q], i16x.clone());
            let aw = e.value_op("arith.extsi", &[a[0]], i16x.clone());
            let products = e.value_op("arith.muli", &[qw, aw], i16x);
            let mut sum = sum;
            for p in 0..RUN as usize / LANES {
                let part = lanes_of(e, products, p * LANES, LANES, Type::i16());
                let wide = e.value_op("arith.extsi", &[part], i32x.clone());
                sum = e.value_op("arith.addi", &[sum, wide], i32x.clone());
            }
            sum
        }
    }
}

/// `sum` plus a run's dot products with NEON's `instruction` (`sdot`, or `usdot` with the
/// unsigned operand first) on the 16-byte halves: lanes 0-3 of the sums from the first, 4-7
/// from the second, as `vpdpbusd` sums them.
fn neon_dots(e: &mut Cursor, instruction: &str, sum: ValueId, q: ValueId, a: ValueId) -> ValueId {
    let halves: Vec<ValueId> = (0..2)
        .map(|h| {
            let acc = lanes_of(e, sum, 4 * h, 4, Type::i32());
            let (q, a) = (lanes_of(e, q, 16 * h, 16, Type::i8()), lanes_of(e, a, 16 * h, 16, Type::i8()));
            e.value_op(instruction, &[acc, q, a], vector(4, Type::i32()))
        })
        .collect();
    let lanes = Attribute::DenseArray { elem: Type::i64(), values: (0..LANES as i128).collect() };
    e.value_attr("vector.shuffle", &[halves[0], halves[1]], vector(LANES, Type::i32()), vec![("mask", lanes)])
}

/// Lanes `from..from + count` of `v`.
pub(super) fn lanes_of(e: &mut Cursor, v: ValueId, from: usize, count: usize, elem: Type) -> ValueId {
    let lanes = Attribute::DenseArray { elem: Type::i64(), values: (from..from + count).map(|l| l as i128).collect() };
    e.value_attr("vector.shuffle", &[v, v], vector(count, elem), vec![("mask", lanes)])
}

/// Each output the sum of A's row times the dequantized column, in f32 (the arithmetic of
/// `accuracy_level` 0): a parallel loop over rows and columns.
pub fn lower_naive(m: &mut Module, op: OpId) {
    let span = m.ops[op].span;
    let s = BlockwiseShape::of(m, op);
    let operands = m.ops[op].operands.clone();
    let mut c = Cursor::new(m, span);
    let [a, q, scales, zeros, out] = [0, 1, 2, 3, 4].map(|i| c.flat(operands[i]));
    let dims = c.extents(operands[4]);
    let rows = c.extent_product(&dims[..dims.len() - 1]);
    let (k, n) = (s.k as usize, s.n as usize);
    c.parallel_over(&[rows, Extent::Fixed(n)], &mut |e, ivs| {
        let (row, col) = (ivs[0], ivs[1]);
        let init = e.const_float(0.0, Type::f32());
        let total = e.for_acc(0, k, init, |e, kk, acc| {
            let weight = dequantized(e, (q, scales, zeros), (col, kk), &s);
            let a_at = e.affine(&[(row, k as i64), (kk, 1)], 0);
            let av = e.load(a, &[a_at]);
            e.fmuladd(av, weight, acc)
        });
        let at = e.affine(&[(row, n as i64), (col, 1)], 0);
        e.store(total, out, &[at]);
    });
    c.finish(op);
}

/// `(v / d, v % d)` of an index.
fn div_rem(e: &mut Cursor, v: ValueId, d: usize) -> (ValueId, ValueId) {
    let d = e.idx(d as i64);
    (e.value_op("arith.divui", &[v, d], Type::Index), e.value_op("arith.remui", &[v, d], Type::Index))
}

/// The weight of column `col` at K index `kk`: `(q - zero) * scale`, found in the layout.
fn dequantized(
    e: &mut Cursor,
    (q, scales, zeros): (ValueId, ValueId, ValueId),
    (col, kk): (ValueId, ValueId),
    s: &BlockwiseShape,
) -> ValueId {
    let (kp, block, blocks) = (s.padded_k() as i64, s.block as usize, s.blocks as i64);
    let (g, j) = div_rem(e, col, GROUP);
    let (b, within) = div_rem(e, kk, block);
    let (run, in_run) = div_rem(e, within, RUN as usize);
    let group = GROUP as i64;
    let bytes_per = |values: i64| values * s.bits as i64 / 8;
    let value = if s.bits == 8 {
        let terms = [(g, kp * group), (b, block as i64 * group), (j, block as i64), (run, RUN as i64), (in_run, 1)];
        let at = e.affine(&terms, 0);
        let byte = e.load(q, &[at]);
        e.value_op("arith.extui", &[byte], Type::i32())
    } else {
        let (high, byte) = div_rem(e, in_run, RUN as usize / 2);
        let terms = [
            (g, bytes_per(kp * group)),
            (b, bytes_per(block as i64 * group)),
            (j, bytes_per(block as i64)),
            (run, bytes_per(RUN as i64)),
            (byte, 1),
        ];
        let at = e.affine(&terms, 0);
        let byte = e.load(q, &[at]);
        let byte = e.value_op("arith.extui", &[byte], Type::i32());
        let high = e.value_op("arith.index_cast", &[high], Type::i32());
        let four = e.const_int(4, Type::i32());
        let shift = e.value_op("arith.muli", &[high, four], Type::i32());
        let shifted = e.value_op("arith.shrui", &[byte, shift], Type::i32());
        let fifteen = e.const_int(15, Type::i32());
        e.value_op("arith.andi", &[shifted, fifteen], Type::i32())
    };
    let block_at = e.affine(&[(g, blocks * group), (b, group), (j, 1)], 0);
    let zero = e.load(zeros, &[block_at]);
    let zero = e.value_op("arith.extui", &[zero], Type::i32());
    let centered = e.value_op("arith.subi", &[value, zero], Type::i32());
    let centered = e.value_op("arith.sitofp", &[centered], Type::f32());
    let scale = e.load(scales, &[block_at]);
    e.value_op("arith.mulf", &[centered, scale], Type::f32())
}
