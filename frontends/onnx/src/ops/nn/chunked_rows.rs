//! Softmax and LayerNormalization over contiguous f32 rows for targets whose threads are scalar
//! (GPUs, [`crate::OnnxOptions::vector_rows`] false). A row per thread would leave most of a GPU
//! idle and each thread a long serial loop (a batch of one sentence is 128 rows); instead every
//! row is cut into chunks of [`CHUNK`] elements:
//! 1. a parallel loop over (row, chunk) reduces each chunk (Softmax: its max and its sum of
//!    exponentials relative to that max; LayerNormalization: its mean and its sum of squared
//!    deviations from that mean);
//! 2. a parallel loop over rows merges the row's chunks into the row's statistics (the
//!    exponentials' sums rescaled to the row's max; the chunks' deviations combined with Chan's
//!    formula, which stays accurate where `E[x^2] - E[x]^2` would cancel);
//! 3. a parallel loop over every element finishes it from its row's statistics.
//!
//! Three loops of short bodies, each as parallel as its data.

use crate::emit::{Emitter, Extent, LoopBuilder};
use crate::graph::DType;
use xcc_ir::{Type, ValueId};

/// Elements per chunk.
pub(super) const CHUNK: usize = 16;

/// The chunks of a row of `row` elements (the last may be shorter).
fn chunks(row: usize) -> usize {
    row.div_ceil(CHUNK)
}

/// A fold's step: the accumulators and an element give the next accumulators.
type FoldStep<'a> = &'a mut dyn FnMut(&mut Emitter, &[ValueId], ValueId) -> Vec<ValueId>;

/// `f(accumulators, element)` folded over chunk `c` of row `r` of `x2` (`[rows, row]`).
fn chunk_fold(
    e: &mut Emitter,
    (x2, r, c): (ValueId, ValueId, ValueId),
    row: usize,
    inits: &[ValueId],
    f: FoldStep,
) -> Vec<ValueId> {
    let first = e.affine(&[(c, CHUNK as i64)], 0);
    let end = e.affine(&[(c, CHUNK as i64)], CHUNK as i64);
    let limit = e.idx(row as i64);
    let end = e.value_op("arith.minui", &[end, limit], Type::Index);
    e.for_accs_between(first, end, inits, |e, q, accs| {
        let v = e.load(x2, &[r, q]);
        f(e, accs, v)
    })
}

/// A `[rows, n]` f32 buffer of the workspace.
fn scratch(e: &mut Emitter, rows: usize, n: usize) -> ValueId {
    let t = xcc_ir::types::MemRefType {
        shape: vec![Some(rows as u64), Some(n as u64)],
        elem: Box::new(Type::f32()),
        layout: xcc_ir::types::Layout::Identity,
        memory_space: None,
    };
    e.alloc(Type::MemRef(t))
}

/// Softmax (or LogSoftmax) of each of the `rows` rows of `x2` into `o2`.
pub(super) fn softmax(e: &mut Emitter, (x2, o2): (ValueId, ValueId), rows: usize, row: usize, log: bool) {
    let n = chunks(row);
    let (maxes, sums) = (scratch(e, rows, n), scratch(e, rows, n));
    e.parallel_over(&[Extent::Fixed(rows), Extent::Fixed(n)], &mut |e, ivs| {
        let (r, c) = (ivs[0], ivs[1]);
        let ninf = e.const_of(f64::NEG_INFINITY, DType::F32);
        let mx = chunk_fold(e, (x2, r, c), row, &[ninf], &mut |e, acc, v| vec![e.fbin("arith.maximumf", acc[0], v)])[0];
        let zero = e.const_of(0.0, DType::F32);
        let sum = chunk_fold(e, (x2, r, c), row, &[zero], &mut |e, acc, v| {
            let s = e.fbin("arith.subf", v, mx);
            let ex = e.unary("math.exp", s);
            vec![e.fbin("arith.addf", acc[0], ex)]
        })[0];
        // A chunk all -inf (masked out) adds nothing (its exp(x - max) would be NaN).
        let masked = e.cmpf("oeq", mx, ninf);
        let sum = e.value_op("arith.select", &[masked, zero, sum], Type::f32());
        e.store(mx, maxes, &[r, c]);
        e.store(sum, sums, &[r, c]);
    });
    // Each row's max and the shift its elements finish with: Softmax `exp(x - max) / sum` keeps
    // (max, 1 / sum), LogSoftmax `x - max - log(sum)` keeps (max + log(sum), 0).
    e.parallel_over(&[Extent::Fixed(rows)], &mut |e, ivs| {
        let r = ivs[0];
        let ninf = e.const_of(f64::NEG_INFINITY, DType::F32);
        let mx = e.for_acc(0, n, ninf, |e, c, acc| {
            let m = e.load(maxes, &[r, c]);
            e.fbin("arith.maximumf", acc, m)
        });
        let zero = e.const_of(0.0, DType::F32);
        let sum = e.for_acc(0, n, zero, |e, c, acc| {
            let (m, s) = (e.load(maxes, &[r, c]), e.load(sums, &[r, c]));
            let d = e.fbin("arith.subf", m, mx);
            let scale = e.unary("math.exp", d);
            let s = e.fbin("arith.mulf", s, scale);
            e.fbin("arith.addf", acc, s)
        });
        let c0 = e.idx(0);
        if log {
            let ls = e.unary("math.log", sum);
            let shift = e.fbin("arith.addf", mx, ls);
            e.store(shift, maxes, &[r, c0]);
        } else {
            let one = e.const_of(1.0, DType::F32);
            let inv = e.fbin("arith.divf", one, sum);
            e.store(mx, maxes, &[r, c0]);
            e.store(inv, sums, &[r, c0]);
        }
    });
    e.parallel_over(&[Extent::Fixed(rows), Extent::Fixed(row)], &mut |e, ivs| {
        let (r, q) = (ivs[0], ivs[1]);
        let c0 = e.idx(0);
        let v = e.load(x2, &[r, q]);
        let shift = e.load(maxes, &[r, c0]);
        let s = e.fbin("arith.subf", v, shift);
        let y = if log {
            s
        } else {
            let ex = e.unary("math.exp", s);
            let inv = e.load(sums, &[r, c0]);
            e.fbin("arith.mulf", ex, inv)
        };
        e.store(y, o2, &[r, q]);
    });
}

/// LayerNormalization of each row of `x2` into `o2`: `(x - mean) / sqrt(var + eps) * scale +
/// bias`; `stats` (Mean and InvStdDev, flat over rows) are written when given.
pub(super) fn layer_norm(
    e: &mut Emitter,
    (x2, o2): (ValueId, ValueId),
    (rows, row): (usize, usize),
    (scale, bias): (ValueId, Option<ValueId>),
    eps: f64,
    stats: [Option<ValueId>; 2],
) {
    let n = chunks(row);
    let (means, squares) = (scratch(e, rows, n), scratch(e, rows, n));
    e.parallel_over(&[Extent::Fixed(rows), Extent::Fixed(n)], &mut |e, ivs| {
        let (r, c) = (ivs[0], ivs[1]);
        let zero = e.const_of(0.0, DType::F32);
        let sum = chunk_fold(e, (x2, r, c), row, &[zero], &mut |e, acc, v| vec![e.fbin("arith.addf", acc[0], v)])[0];
        let count = chunk_len(e, c, row);
        let mean = e.fbin("arith.divf", sum, count);
        let sq = chunk_fold(e, (x2, r, c), row, &[zero], &mut |e, acc, v| {
            let d = e.fbin("arith.subf", v, mean);
            let d2 = e.fbin("arith.mulf", d, d);
            vec![e.fbin("arith.addf", acc[0], d2)]
        })[0];
        e.store(mean, means, &[r, c]);
        e.store(sq, squares, &[r, c]);
    });
    // Chan's merge, chunk by chunk: with `m` elements so far (mean `ma`, squares `qa`) and a
    // chunk of `k` (mean `mb`, squares `qb`): d = mb - ma; mean += d * k / (m + k);
    // squares += qb + d^2 * m * k / (m + k).
    e.parallel_over(&[Extent::Fixed(rows)], &mut |e, ivs| {
        let r = ivs[0];
        let zero = e.const_of(0.0, DType::F32);
        let merged = e.for_accs(0, n, &[zero, zero, zero], |e, c, acc| {
            let (m, ma, qa) = (acc[0], acc[1], acc[2]);
            let (mb, qb) = (e.load(means, &[r, c]), e.load(squares, &[r, c]));
            let k = chunk_len(e, c, row);
            let total = e.fbin("arith.addf", m, k);
            let d = e.fbin("arith.subf", mb, ma);
            let w = e.fbin("arith.divf", k, total);
            let step = e.fbin("arith.mulf", d, w);
            let mean = e.fbin("arith.addf", ma, step);
            let mk = e.fbin("arith.mulf", m, w);
            let d2 = e.fbin("arith.mulf", d, d);
            let extra = e.fbin("arith.mulf", d2, mk);
            let q = e.fbin("arith.addf", qa, qb);
            let q = e.fbin("arith.addf", q, extra);
            vec![total, mean, q]
        });
        let count = e.const_of(row as f64, DType::F32);
        let var = e.fbin("arith.divf", merged[2], count);
        let sd = e.std_dev(var, eps, DType::F32);
        let one = e.const_of(1.0, DType::F32);
        let inv = e.fbin("arith.divf", one, sd);
        let c0 = e.idx(0);
        e.store(merged[1], means, &[r, c0]);
        e.store(inv, squares, &[r, c0]);
        for (stat, v) in stats.iter().zip([merged[1], inv]) {
            if let Some(buf) = stat {
                e.store(v, *buf, &[r]);
            }
        }
    });
    e.parallel_over(&[Extent::Fixed(rows), Extent::Fixed(row)], &mut |e, ivs| {
        let (r, q) = (ivs[0], ivs[1]);
        let c0 = e.idx(0);
        let (v, mean, inv) = (e.load(x2, &[r, q]), e.load(means, &[r, c0]), e.load(squares, &[r, c0]));
        let centered = e.fbin("arith.subf", v, mean);
        let nrm = e.fbin("arith.mulf", centered, inv);
        let s = e.load(scale, &[q]);
        let mut y = e.fbin("arith.mulf", nrm, s);
        if let Some(b) = bias {
            let bv = e.load(b, &[q]);
            y = e.fbin("arith.addf", y, bv);
        }
        e.store(y, o2, &[r, q]);
    });
}

/// Chunk `c`'s element count, as an f32.
fn chunk_len(e: &mut Emitter, c: ValueId, row: usize) -> ValueId {
    let first = e.affine(&[(c, CHUNK as i64)], 0);
    let limit = e.idx(row as i64);
    let left = e.value_op("arith.subi", &[limit, first], Type::Index);
    let chunk = e.idx(CHUNK as i64);
    let k = e.value_op("arith.minui", &[left, chunk], Type::Index);
    let k = e.value_op("arith.index_cast", &[k], Type::i64());
    e.value_op("arith.uitofp", &[k], Type::f32())
}
