//! `kernel.matmul_blockwise` in f32 over many rows (a prompt's prefill): the weights dequantized
//! once per run of 32 and used by a tile of rows. Decode's kernel (`blockwise.rs`) converts and
//! scales each block per row, which a matrix-vector product can afford (its cost is reading the
//! weights) but a prompt cannot. Here each weight becomes f32 once, `q * scale - zero * scale` in
//! registers, so no block is scaled per row, and every row of a tile adds its products in
//! 16-lane f32 vectors, reduced once at the end (measured on the benchmark's Llama, 128 tokens
//! at `accuracy_level` 1: 1.9x faster than row by row). With `int8_activations` a prompt goes
//! through `blockwise_int8_rows.rs` instead (the f32 tile dequantizes as much per block as the
//! integer products cost).
//!
//! One parallel loop over the groups of 8 columns; in each, tiles of [`ROWS`] rows by
//! [`COLUMNS`] columns, then the rows and columns left one at a time.

use super::blockwise::{lanes_of, reduction, unpacked_run, Blockwise, GROUP};
use super::qgemm::vector;
use super::Cursor;
use crate::builder::{Extent, LoopBuilder};
use xcc_ir::dialects::kernel_blockwise::RUN;
use xcc_ir::{Type, ValueId};

/// The rows and the columns of a tile: 16 accumulators, each row's A used by 4 columns and each
/// dequantized run by 4 rows.
const ROWS: usize = 4;
const COLUMNS: usize = 4;

/// The lanes of the f32 vectors (a run's two halves).
const LANES: usize = 16;

/// The chunk's `count` rows from `r0`, prepared as f32 in `w.prepared`.
pub(super) fn every_group(c: &mut Cursor, w: &Blockwise, rows: (ValueId, ValueId)) {
    let n = w.s.n as usize;
    let whole = n / GROUP;
    if whole > 0 {
        c.parallel_over(&[Extent::Fixed(whole)], &mut |e, ivs| group_columns(e, w, rows, (ivs[0], GROUP)));
    }
    if !n.is_multiple_of(GROUP) {
        let last = c.idx(whole as i64);
        group_columns(c, w, rows, (last, n % GROUP));
    }
}

/// Group `g`'s first `stored` columns for every row of the chunk: tiles of [`ROWS`] rows by
/// [`COLUMNS`] columns, then the rows and columns left over one at a time.
fn group_columns(e: &mut Cursor, w: &Blockwise, (r0, count): (ValueId, ValueId), (g, stored): (ValueId, usize)) {
    let whole = stored / COLUMNS * COLUMNS;
    let per = e.idx(ROWS as i64);
    let tiles = e.value_op("arith.divui", &[count, per], Type::Index);
    let full = e.value_op("arith.muli", &[tiles, per], Type::Index);
    let zero = e.idx(0);
    for (from, to, cols) in [(0, whole, COLUMNS), (whole, stored, 1)] {
        if from == to {
            continue;
        }
        let (lo, hi) = (e.idx(from as i64), e.idx(to as i64));
        e.for_step(lo, hi, cols, |e, j| {
            e.for_step(zero, full, ROWS, |e, rt| tile(e, w, (r0, rt), (g, j), (ROWS, cols)));
            e.for_step(full, count, 1, |e, rt| tile(e, w, (r0, rt), (g, j), (1, cols)));
        });
    }
}

/// Rows `rt..rt + rows` (of the chunk from `r0`) by columns `j..j + cols` of group `g`: an
/// accumulator of 16 lanes for each, every row's half-run of A loaded once for all the columns.
fn tile(
    e: &mut Cursor,
    w: &Blockwise,
    (r0, rt): (ValueId, ValueId),
    (g, j): (ValueId, ValueId),
    (rows, cols): (usize, usize),
) {
    let (block, blocks, kp) = (w.s.block as usize, w.s.blocks as usize, w.s.padded_k() as usize);
    let f32v = vector(LANES, Type::f32());
    let zeros = e.splat_const(0.0, f32v.clone());
    let bytes_per = |values: usize| (values * w.s.bits as usize / 8) as i64;
    let sums = e.for_accs(0, blocks, &vec![zeros; rows * cols], |e, b, accs| {
        let mut next = accs.to_vec();
        // Each column's scale and shifted zero point, and where its runs start.
        let columns: Vec<(ValueId, ValueId, ValueId)> = (0..cols)
            .map(|c| {
                let at = e.affine(&[(g, (blocks * GROUP) as i64), (b, GROUP as i64), (j, 1)], c as i64);
                let scale = e.load(w.scales, &[at]);
                let zero = e.load(w.zeros, &[at]);
                let zero = e.value_op("arith.extui", &[zero], Type::i32());
                let zero = e.value_op("arith.uitofp", &[zero], Type::f32());
                let shift = e.value_op("arith.mulf", &[zero, scale], Type::f32());
                let shift = e.value_op("arith.negf", &[shift], Type::f32());
                let terms = [(g, bytes_per(kp * GROUP)), (b, bytes_per(block * GROUP)), (j, bytes_per(block))];
                let start = e.affine(&terms, bytes_per(c * block));
                (splat(e, scale), splat(e, shift), start)
            })
            .collect();
        for run in 0..block / RUN as usize {
            let runs: Vec<ValueId> = columns
                .iter()
                .map(|&(_, _, start)| {
                    let q_at = e.affine(&[(start, 1)], bytes_per(run * RUN as usize));
                    match w.s.bits {
                        4 => unpacked_run(e, w.q, q_at),
                        _ => e.value_op("vector.load", &[w.q, q_at], vector(RUN as usize, Type::i8())),
                    }
                })
                .collect();
            for half in 0..2 {
                let weights: Vec<ValueId> = runs
                    .iter()
                    .zip(&columns)
                    .map(|(&q, &(scale, shift, _))| {
                        let part = lanes_of(e, q, half * LANES, LANES, Type::i8());
                        let wide = e.value_op("arith.extui", &[part], vector(LANES, Type::i32()));
                        let values = e.value_op("arith.uitofp", &[wide], f32v.clone());
                        e.fmuladd(values, scale, shift)
                    })
                    .collect();
                for r in 0..rows {
                    let offset = run * RUN as usize + half * LANES;
                    let a_at = e.affine(&[(rt, kp as i64), (b, block as i64)], (r * kp + offset) as i64);
                    let a = e.value_op("vector.load", &[w.prepared, a_at], f32v.clone());
                    for (c, &wv) in weights.iter().enumerate() {
                        next[r * cols + c] = e.fmuladd(a, wv, next[r * cols + c]);
                    }
                }
            }
        }
        next
    });
    for r in 0..rows {
        let row = e.affine(&[(r0, 1), (rt, 1)], r as i64);
        for c in 0..cols {
            let total = reduction(e, "add", sums[r * cols + c], Type::f32());
            let at = e.affine(&[(row, w.s.n as i64), (g, GROUP as i64), (j, 1)], c as i64);
            e.store(total, w.out, &[at]);
        }
    }
}

fn splat(e: &mut Cursor, v: ValueId) -> ValueId {
    e.value_op("vector.broadcast", &[v], vector(LANES, Type::f32()))
}
