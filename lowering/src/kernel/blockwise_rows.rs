//! `kernel.matmul_blockwise` in f32 over many rows (a prompt's prefill). Decode's kernel
//! (`blockwise.rs`) converts and scales each block per row, which a matrix-vector product can
//! afford (its cost is reading the weights) but a prompt cannot. Here each weight becomes f32
//! once per chunk of rows, `q * scale - zero * scale`, into a panel that the chunk's rows then
//! read as a GEMM reads packed weights: every row of a tile adds its products in 16-lane f32
//! vectors, reduced once at the end. With `int8_activations` a prompt goes through
//! `blockwise_int8_rows.rs` instead.
//!
//! The weights go through a panel: each stripe of groups of 8 columns (a parallel loop over
//! at most [`STRIPES`] of them) dequantizes a group's weights for a slice of K (at most
//! [`PANEL_BYTES`]) into its own panel in the workspace, once for the chunk's
//! [`ROW_CHUNK`] rows; tiles of [`ROWS`] rows by [`COLUMNS`] columns then read A and the panel
//! only, and the rows and columns left go one at a time. The sums of a slice after the first
//! add to the outputs the earlier slices stored.

use super::blockwise::{lanes_of, reduction, unpacked_run, Blockwise, GROUP};
use super::qgemm::vector;
use super::Cursor;
use crate::builder::{Extent, LoopBuilder};
use xcc_ir::dialects::kernel_blockwise::{BlockwiseShape, RUN};
use xcc_ir::{OpSpec, Span, Type, ValueId};

/// The rows and the columns of a tile: 16 accumulators, each row's A used by 4 columns and each
/// panel's vector by 4 rows.
const ROWS: usize = 4;
const COLUMNS: usize = 4;

/// The lanes of the f32 vectors (a run's two halves).
const LANES: usize = 16;

/// The rows of a prompt that share each panel (A's chunk in the workspace). Measured on the
/// benchmark's Llama at `accuracy_level` 1, 512 tokens: 1.9% faster than 64 rows; panels
/// dequantized in the tile itself for 4 rows (the kernel before panels) took 1.2-1.5x the time.
pub(super) const ROW_CHUNK: usize = 128;

/// A panel's size at most: a group's columns for a slice of K, in the L1 and L2 caches beside
/// the chunk's rows of A.
const PANEL_BYTES: usize = 32 * 1024;

/// The stripes of groups the threads share, each with a panel (more than enough to balance a
/// CPU's threads).
const STRIPES: usize = 64;

/// The blocks of K a panel holds.
fn slice_blocks(s: &BlockwiseShape) -> usize {
    let (block, blocks) = (s.block as usize, s.blocks as usize);
    (PANEL_BYTES / (4 * GROUP * block)).clamp(1, blocks)
}

fn panel_len(s: &BlockwiseShape) -> usize {
    slice_blocks(s) * GROUP * s.block as usize
}

fn stripes(s: &BlockwiseShape) -> usize {
    (s.n as usize / GROUP).clamp(1, STRIPES)
}

/// The workspace of the stripes' panels.
pub(super) fn panels(c: &mut Cursor, s: &BlockwiseShape) -> ValueId {
    super::aligned_buffer(c, Type::f32(), stripes(s) * panel_len(s))
}

/// The chunk's `count` rows from `r0`, prepared as f32 in `w.prepared`.
pub(super) fn every_group(c: &mut Cursor, w: &Blockwise, rows: (ValueId, ValueId)) {
    let n = w.s.n as usize;
    let whole = n / GROUP;
    let stripes = stripes(&w.s);
    let len = panel_len(&w.s) as i64;
    if whole > 0 {
        c.parallel_over(&[Extent::Fixed(stripes)], &mut |e, ivs| {
            let panel = e.affine(&[(ivs[0], len)], 0);
            let (first, last) = (stripe_start(e, ivs[0], whole, stripes), e.affine(&[(ivs[0], 1)], 1));
            let last = stripe_start(e, last, whole, stripes);
            e.for_step(first, last, 1, |e, g| group_columns(e, w, rows, (g, GROUP), panel));
        });
    }
    if !n.is_multiple_of(GROUP) {
        let (last, panel) = (c.idx(whole as i64), c.idx(0));
        group_columns(c, w, rows, (last, n % GROUP), panel);
    }
}

/// The first group of stripe `i` of `stripes` over `groups`: `i * groups / stripes`.
fn stripe_start(e: &mut Cursor, i: ValueId, groups: usize, stripes: usize) -> ValueId {
    let scaled = e.affine(&[(i, groups as i64)], 0);
    let stripes = e.idx(stripes as i64);
    e.value_op("arith.divui", &[scaled, stripes], Type::Index)
}

/// Group `g`'s first `stored` columns for every row of the chunk, a slice of K at a time: the
/// slice's weights into the panel at `panel`, then tiles of [`ROWS`] rows by [`COLUMNS`]
/// columns, then the rows and columns left over one at a time.
fn group_columns(
    e: &mut Cursor,
    w: &Blockwise,
    (r0, count): (ValueId, ValueId),
    (g, stored): (ValueId, usize),
    panel: ValueId,
) {
    let whole = stored / COLUMNS * COLUMNS;
    let per = e.idx(ROWS as i64);
    let tiles = e.value_op("arith.divui", &[count, per], Type::Index);
    let full = e.value_op("arith.muli", &[tiles, per], Type::Index);
    let zero = e.idx(0);
    let (blocks, step) = (w.s.blocks as usize, slice_blocks(&w.s));
    for first in (0..blocks).step_by(step) {
        let slice = Slice { first, blocks: step.min(blocks - first), panel };
        dequantize(e, w, (g, stored), &slice);
        for (from, to, cols) in [(0, whole, COLUMNS), (whole, stored, 1)] {
            if from == to {
                continue;
            }
            let (lo, hi) = (e.idx(from as i64), e.idx(to as i64));
            e.for_step(lo, hi, cols, |e, j| {
                e.for_step(zero, full, ROWS, |e, rt| tile(e, w, (r0, rt), (g, j), (ROWS, cols), &slice));
                e.for_step(full, count, 1, |e, rt| tile(e, w, (r0, rt), (g, j), (1, cols), &slice));
            });
        }
    }
}

/// The blocks of K a panel holds: `blocks` from block `first`, at `panel` of the panels.
struct Slice {
    first: usize,
    blocks: usize,
    panel: ValueId,
}

/// Group `g`'s first `stored` columns over the slice's blocks into its panel, each weight
/// `q * scale - zero * scale` in f32: block by block, a column's block of values together.
fn dequantize(e: &mut Cursor, w: &Blockwise, (g, stored): (ValueId, usize), slice: &Slice) {
    let panels = w.panels.expect("the f32 prompt path has panels");
    let (block, blocks, kp) = (w.s.block as usize, w.s.blocks as usize, w.s.padded_k() as usize);
    let f32v = vector(LANES, Type::f32());
    let bytes_per = |values: usize| (values * w.s.bits as usize / 8) as i64;
    e.for_loop(0, slice.blocks, |e, b| {
        let kb = e.affine(&[(b, 1)], slice.first as i64);
        for c in 0..stored {
            let at = e.affine(&[(g, (blocks * GROUP) as i64), (kb, GROUP as i64)], c as i64);
            let (scale, shift) = scale_and_shift(e, w, at);
            let terms = [(g, bytes_per(kp * GROUP)), (kb, bytes_per(block * GROUP))];
            let start = e.affine(&terms, bytes_per(c * block));
            for run in 0..block / RUN as usize {
                let q_at = e.affine(&[(start, 1)], bytes_per(run * RUN as usize));
                let q = match w.s.bits {
                    4 => unpacked_run(e, w.q, q_at),
                    _ => e.value_op("vector.load", &[w.q, q_at], vector(RUN as usize, Type::i8())),
                };
                for half in 0..2 {
                    let part = lanes_of(e, q, half * LANES, LANES, Type::i8());
                    let wide = e.value_op("arith.extui", &[part], vector(LANES, Type::i32()));
                    let values = e.value_op("arith.uitofp", &[wide], f32v.clone());
                    let weights = e.fmuladd(values, scale, shift);
                    let offset = (c * block + run * RUN as usize + half * LANES) as i64;
                    let to = e.affine(&[(slice.panel, 1), (b, (GROUP * block) as i64)], offset);
                    e.op(OpSpec::new("vector.store", Span::UNKNOWN).operands([weights, panels, to]));
                }
            }
        }
    });
}

/// A column's block's scale and `-zero * scale`, each splat to [`LANES`], from flat `at` of the
/// scales and zero points.
fn scale_and_shift(e: &mut Cursor, w: &Blockwise, at: ValueId) -> (ValueId, ValueId) {
    let scale = e.load(w.scales, &[at]);
    let zero = e.load(w.zeros, &[at]);
    let zero = e.value_op("arith.extui", &[zero], Type::i32());
    let zero = e.value_op("arith.uitofp", &[zero], Type::f32());
    let shift = e.value_op("arith.mulf", &[zero, scale], Type::f32());
    let shift = e.value_op("arith.negf", &[shift], Type::f32());
    (splat(e, scale), splat(e, shift))
}

/// Rows `rt..rt + rows` (of the chunk from `r0`) by columns `j..j + cols` of group `g`, over the
/// slice's blocks: an accumulator of 16 lanes for each, every row's half-run of A loaded once
/// for all the columns and every panel vector once for all the rows.
fn tile(
    e: &mut Cursor,
    w: &Blockwise,
    (r0, rt): (ValueId, ValueId),
    (g, j): (ValueId, ValueId),
    (rows, cols): (usize, usize),
    slice: &Slice,
) {
    let panels = w.panels.expect("the f32 prompt path has panels");
    let (block, kp) = (w.s.block as usize, w.s.padded_k() as usize);
    let f32v = vector(LANES, Type::f32());
    let zeros = e.splat_const(0.0, f32v.clone());
    let sums = e.for_accs(0, slice.blocks, &vec![zeros; rows * cols], |e, b, accs| {
        let mut next = accs.to_vec();
        let kb = e.affine(&[(b, 1)], slice.first as i64);
        for offset in (0..block).step_by(LANES) {
            let weights: Vec<ValueId> = (0..cols)
                .map(|c| {
                    let terms = [(slice.panel, 1), (b, (GROUP * block) as i64), (j, block as i64)];
                    let at = e.affine(&terms, (c * block + offset) as i64);
                    e.value_op("vector.load", &[panels, at], f32v.clone())
                })
                .collect();
            for r in 0..rows {
                let a_at = e.affine(&[(rt, kp as i64), (kb, block as i64)], (r * kp + offset) as i64);
                let a = e.value_op("vector.load", &[w.prepared, a_at], f32v.clone());
                for (c, &wv) in weights.iter().enumerate() {
                    next[r * cols + c] = e.fmuladd(a, wv, next[r * cols + c]);
                }
            }
        }
        next
    });
    for r in 0..rows {
        let row = e.affine(&[(r0, 1), (rt, 1)], r as i64);
        for c in 0..cols {
            let mut total = reduction(e, "add", sums[r * cols + c], Type::f32());
            let at = e.affine(&[(row, w.s.n as i64), (g, GROUP as i64), (j, 1)], c as i64);
            if slice.first > 0 {
                let earlier = e.load(w.out, &[at]);
                total = e.value_op("arith.addf", &[earlier, total], Type::f32());
            }
            e.store(total, w.out, &[at]);
        }
    }
}

fn splat(e: &mut Cursor, v: ValueId) -> ValueId {
    e.value_op("vector.broadcast", &[v], vector(LANES, Type::f32()))
}
