//! The direct depthwise convolution: an f32 2-d `kernel.conv` with one filter per channel
//! (`group` = input channels = output channels), which as GEMMs would be one row per group.
//!
//! A parallel loop over the (image, channel) planes. With static columns and a column stride of
//! 1 or 2, each output row goes in vectors of 16 columns, up to four at a time at constant
//! columns (independent sums; their masks fold), the rows every row tap reaches three at a time
//! (each input row they share loaded once) with a filter of up to 25 taps in registers: a vector
//! starts as the bias, adds
//! every tap inside the image in registers (a masked load of the input row per column tap, the
//! lanes outside the input off; with stride 2 the even elements of two loads), then takes the
//! residual and the activation and is stored once (`lower_in_vectors`). Otherwise every output
//! row starts as the bias and takes one pass per tap,
//! `out[oh, ow] += w[kh, kw] * x[ih, ow * s + kw * d - p]`, over the output columns whose input
//! column is inside the image: the interior columns in one loop, the border ones with the taps
//! they have (or, over a plane known only at run time, testing their taps), and a last pass
//! applies the residual and the activation.

use super::lanes;
use super::matmul::{Activation, NR};
use super::Cursor;
use crate::builder::{Extent, LoopBuilder};
use xcc_ir::dialects::kernel::{Epilogue, EpilogueOperands};
use xcc_ir::{Type, ValueId};

/// One spatial axis of the window: kernel size, stride, dilation, begin pad, input and output
/// extents (known at compile time, or only at run time).
#[derive(Clone, Copy)]
pub struct Axis {
    pub kernel: usize,
    pub stride: usize,
    pub dilation: usize,
    pub pad: usize,
    pub input: Extent,
    pub output: Extent,
}

impl Axis {
    /// The static input and output sizes.
    fn sizes(&self) -> Option<(usize, usize)> {
        self.input.fixed().zip(self.output.fixed())
    }

    /// The outputs for which every tap is inside (empty when none is), for static sizes.
    fn interior(&self) -> std::ops::Range<usize> {
        let (_, output) = self.sizes().expect("static sizes");
        let lo = (0..self.kernel).map(|t| self.valid_outputs(t).start).max().unwrap_or(0);
        let hi = (0..self.kernel).map(|t| self.valid_outputs(t).end).min().unwrap_or(output);
        lo..hi.max(lo)
    }

    /// The outputs `o` whose input `o * stride + tap * dilation - pad` is inside `[0, input)`,
    /// for static sizes.
    fn valid_outputs(&self, tap: usize) -> std::ops::Range<usize> {
        let (input, output) = self.sizes().expect("static sizes");
        let shift = (tap * self.dilation) as i64 - self.pad as i64;
        let (s, n) = (self.stride as i64, input as i64);
        // o * s + shift >= 0  and  o * s + shift <= n - 1
        let lo = if shift >= 0 { 0 } else { (-shift + s - 1) / s };
        let hi = if n - 1 - shift < 0 { 0 } else { (n - 1 - shift) / s + 1 };
        let (lo, hi) = (lo.clamp(0, output as i64) as usize, hi.clamp(0, output as i64) as usize);
        lo..hi.max(lo)
    }

    /// [`Axis::interior`] computed by the run, for sizes known only then: from the first output
    /// whose first tap is inside, `ceil(pad / stride)`, to the last whose last tap is,
    /// `floor((input - 1 + pad - (kernel - 1) * dilation) / stride) + 1`, within the output.
    fn interior_at_run_time(&self, e: &mut Cursor) -> (ValueId, ValueId) {
        let s = self.stride as i64;
        let output = e.extent(self.output);
        let lo = e.idx((self.pad as i64 + s - 1) / s);
        let lo = e.value_op("arith.minsi", &[lo, output], Type::Index);
        let input = e.extent(self.input);
        let reach = (self.pad as i64) - ((self.kernel - 1) * self.dilation) as i64 + s - 1;
        let zero = e.idx(0);
        let last = e.affine(&[(input, 1)], reach);
        let last = e.value_op("arith.maxsi", &[last, zero], Type::Index);
        let sv = e.idx(s);
        let hi = e.value_op("arith.divui", &[last, sv], Type::Index);
        let hi = e.value_op("arith.minsi", &[hi, output], Type::Index);
        let hi = e.value_op("arith.maxsi", &[hi, lo], Type::Index);
        (lo, hi)
    }
}

/// `out[n, c] = act(bias[c] + sum of taps + residual[n, c])` for every plane.
pub fn lower(c: &mut Cursor, ops: &EpilogueOperands, ep: &Epilogue, planes: [Extent; 2], rows: Axis, cols: Axis) {
    if cols.stride <= 2 && cols.sizes().is_some() {
        return lower_in_vectors(c, ops, ep, planes, rows, cols);
    }
    let act = Activation::of(c.m, ep);
    c.parallel_over(&planes, &mut |e, nc| {
        let (n, ch) = (nc[0], nc[1]);
        let init = match ops.bias {
            Some(b) => e.load(b, &[ch]),
            None => e.const_float(0.0, Type::f32()),
        };
        e.for_loop_over(rows.output, |e, oh| output_row(e, ops, (n, ch, oh), init, rows, cols));
        if ops.residual.is_some() || !act.is_none() {
            e.for_loop_over(rows.output, |e, oh| {
                e.for_loop_over(cols.output, |e, ow| {
                    let at = [n, ch, oh, ow];
                    let mut v = e.load(ops.output, &at);
                    if let Some(r) = ops.residual {
                        let rv = e.load(r, &at);
                        v = e.value_op("arith.addf", &[v, rv], Type::f32());
                    }
                    v = super::matmul::apply_activation(e, v, act);
                    e.store(v, ops.output, &at);
                });
            });
        }
    });
}

/// A row of static width and column stride 1 or 2 in vectors of `NR` output columns: each vector
/// sums its taps in registers (per column tap, a masked load of the input row, its lanes outside
/// the input off; with stride 2, two loads and their even lanes) from the bias, then takes the
/// residual and the activation and is stored once, masked to the row.
fn lower_in_vectors(
    c: &mut Cursor,
    ops: &EpilogueOperands,
    ep: &Epilogue,
    planes: [Extent; 2],
    rows: Axis,
    cols: Axis,
) {
    let act = Activation::of(c.m, ep);
    let (input, width) = cols.sizes().expect("static columns");
    let vt = lanes::of(Type::f32());
    c.parallel_over(&planes, &mut |e, nc| {
        let (n, ch) = (nc[0], nc[1]);
        let bias = match ops.bias {
            Some(b) => {
                let v = e.load(b, &[ch]);
                e.value_op("vector.broadcast", &[v], vt.clone())
            }
            None => e.splat_const(0.0, vt.clone()),
        };
        let hoisted = rows.sizes().is_some() && rows.kernel * cols.kernel <= MAX_HOISTED_TAPS;
        let weights = hoisted.then(|| {
            let zero = e.idx(0);
            (0..rows.kernel)
                .map(|kh| {
                    let khv = e.idx(kh as i64);
                    (0..cols.kernel).map(|kw| filter_tap(e, ops, ch, zero, khv, kw)).collect()
                })
                .collect()
        });
        let plane = Plane { ops, n, ch, bias, input, width, rows, cols, act, weights };
        let Some(weights) = &plane.weights else {
            e.for_loop_over(rows.output, |e, oh| {
                let taps = row_taps(e, oh, rows);
                row(e, &plane, oh, RowTaps::Range(taps));
            });
            return;
        };
        // The rows every row tap reaches take the filter from registers, unrolled.
        let (_, output) = rows.sizes().expect("static rows");
        let inner = rows.interior();
        for range in [0..inner.start, inner.clone(), inner.end..output].into_iter().filter(|r| !r.is_empty()) {
            if range == inner {
                interior_rows(e, &plane, range, weights);
                continue;
            }
            e.for_loop(range.start, range.end, |e, oh| {
                let taps = row_taps(e, oh, rows);
                row(e, &plane, oh, RowTaps::Range(taps));
            });
        }
    });
}

/// The rows every tap reaches, [`ROWS_AT_ONCE`] at a time (then one at a time for those left):
/// the rows of a group share most of their input rows, each loaded once for all of them.
fn interior_rows(e: &mut Cursor, plane: &Plane, range: std::ops::Range<usize>, weights: &[Vec<ValueId>]) {
    let together = (range.len() / ROWS_AT_ONCE) * ROWS_AT_ONCE;
    let (lo, mid) = (e.idx(range.start as i64), e.idx((range.start + together) as i64));
    e.for_step(lo, mid, ROWS_AT_ONCE, |e, oh| row_group(e, plane, oh, ROWS_AT_ONCE, weights));
    e.for_loop(range.start + together, range.end, |e, oh| row(e, plane, oh, RowTaps::All(weights)));
}

/// Output rows computed together where every tap is inside: with a 3-row filter at stride 1,
/// three rows load 5 input rows where one at a time they load 9 (5x5: 7 where 15). One at a
/// time, the kernel was bound by its loads (each of a vector's 9 taps one masked, mostly
/// unaligned load for one FMA: 42 GFLOP/s on MobileNet-V2's 144-channel 56x56 layer with
/// AVX-512); three at a time it runs 1.3-1.7x faster (two: 1.3x, four: slower than three).
const ROWS_AT_ONCE: usize = 3;

/// `count` rows from `oh`, every tap inside, in groups of vectors as [`row`]: half as many
/// vectors per row, so that the rows' sums and the filter fit in registers.
fn row_group(e: &mut Cursor, plane: &Plane, oh: ValueId, count: usize, weights: &[Vec<ValueId>]) {
    for_vector_groups(e, plane, GROUP_VECTORS / 2, &mut |e, starts| {
        rows_vectors(e, plane, (oh, count), weights, starts)
    });
}

/// `body` on the row's vectors by their first columns: `group` at a time at constant columns,
/// or, for a row of more than [`MAX_STATIC_VECTORS`], one at a time in a loop.
fn for_vector_groups(e: &mut Cursor, plane: &Plane, group: usize, body: &mut dyn FnMut(&mut Cursor, &[ValueId])) {
    let chunks = plane.width.div_ceil(NR);
    if chunks > MAX_STATIC_VECTORS {
        e.for_loop(0, chunks, |e, chunk| {
            let ow0 = e.affine(&[(chunk, NR as i64)], 0);
            body(e, &[ow0]);
        });
        return;
    }
    for vectors in (0..chunks).collect::<Vec<_>>().chunks(group) {
        let starts: Vec<ValueId> = vectors.iter().map(|&j| e.idx((j * NR) as i64)).collect();
        body(e, &starts);
    }
}

/// The vectors from columns `starts` of `count` rows from `oh`, every tap inside: each input row
/// any of them reads is loaded once (per column tap and vector) and added to every row's sums
/// that reads it.
fn rows_vectors(
    e: &mut Cursor,
    plane: &Plane,
    (oh, count): (ValueId, usize),
    weights: &[Vec<ValueId>],
    starts: &[ValueId],
) {
    let (ops, rows, cols) = (plane.ops, plane.rows, plane.cols);
    let (n, ch) = (plane.n, plane.ch);
    let (counts, columns) = vector_columns(e, plane, starts);
    let mut sums = vec![vec![plane.bias; starts.len()]; count];
    // Input row `oh * s + offset - pad` is row tap `(offset - r * s) / d` of output row `oh + r`.
    let mut offsets: Vec<usize> =
        (0..count).flat_map(|r| (0..rows.kernel).map(move |kh| r * rows.stride + kh * rows.dilation)).collect();
    offsets.sort_unstable();
    offsets.dedup();
    for offset in offsets {
        let ih = e.affine(&[(oh, rows.stride as i64)], offset as i64 - rows.pad as i64);
        let readers: Vec<(usize, usize)> = (0..count)
            .filter_map(|r| {
                let tap = offset.checked_sub(r * rows.stride)?;
                (tap % rows.dilation == 0 && tap / rows.dilation < rows.kernel).then_some((r, tap / rows.dilation))
            })
            .collect();
        for kw in 0..cols.kernel {
            for (v, vector_taps) in columns.iter().enumerate() {
                let (iw, masks) = &vector_taps[kw];
                let x = tap_vector(e, ops, (n, ch, ih, *iw), masks);
                for &(r, kh) in &readers {
                    sums[r][v] = e.fmuladd(x, weights[kh][kw], sums[r][v]);
                }
            }
        }
    }
    for (r, row_sums) in sums.into_iter().enumerate() {
        let oh_r = e.affine(&[(oh, 1)], r as i64);
        store_sums(e, plane, oh_r, (starts, &counts), row_sums);
    }
}

/// Per vector of a row, each column tap's first input column and masks ([`column_tap`]).
type VectorTaps = Vec<Vec<(ValueId, Vec<ValueId>)>>;

/// The vectors from columns `starts`: how many of each one's lanes are in the row (or more),
/// and their column taps.
fn vector_columns(e: &mut Cursor, plane: &Plane, starts: &[ValueId]) -> (Vec<ValueId>, VectorTaps) {
    let (cols, width) = (plane.cols, plane.width);
    let counts: Vec<ValueId> = starts.iter().map(|&ow0| e.affine(&[(ow0, -1)], width as i64)).collect();
    let columns = starts
        .iter()
        .zip(&counts)
        .map(|(&ow0, &count)| (0..cols.kernel).map(|kw| column_tap(e, (ow0, count), kw, (plane.input, cols))).collect())
        .collect();
    (counts, columns)
}

/// Row `oh`'s vectors from columns `starts` stored from their sums after the epilogue: a map
/// without a residual to add first runs on the row's vectors together (its operations
/// interleaved across them).
fn store_sums(
    e: &mut Cursor,
    plane: &Plane,
    oh: ValueId,
    (starts, counts): (&[ValueId], &[ValueId]),
    sums: Vec<ValueId>,
) {
    let (sums, act) = match (plane.ops.residual, plane.act.map) {
        (None, Some(_)) => (super::matmul::apply_activation_all(e, &sums, plane.act), Activation::default()),
        _ => (sums, plane.act),
    };
    for ((&ow0, &count), &sum) in starts.iter().zip(counts).zip(&sums) {
        store_row_vector(e, plane.ops, (plane.n, plane.ch, oh, ow0), count, sum, act);
    }
}

/// Filters of at most this many taps (5x5) are read once per plane into registers (or, where
/// they do not all fit, the compiler's spill slots): the rows every tap reaches then go
/// [`ROWS_AT_ONCE`] at a time. (A 5x5 filter read per row tap instead ran at half the speed.)
const MAX_HOISTED_TAPS: usize = 25;

/// Rows whose static vectors are more than this many take them one at a time in a loop.
const MAX_STATIC_VECTORS: usize = 16;

/// Vectors of a row summed together: enough independent chains to cover the FMA's latency
/// while their accumulators, and AVX2's pairs of registers for them, fit.
const GROUP_VECTORS: usize = 4;

/// What the rows of one plane share.
struct Plane<'a> {
    ops: &'a EpilogueOperands,
    n: ValueId,
    ch: ValueId,
    bias: ValueId,
    input: usize,
    width: usize,
    rows: Axis,
    cols: Axis,
    act: Activation,
    /// The filter's taps broadcast to vectors, by row then column, when read once per plane.
    weights: Option<Vec<Vec<ValueId>>>,
}

/// The row taps an output row adds: those in `[lo, hi)`, the filter read as it goes; or every
/// one, from the filter in registers (a row every tap reaches).
enum RowTaps<'a> {
    Range((ValueId, ValueId)),
    All(&'a [Vec<ValueId>]),
}

/// Filter tap (`kh`, `kw`) of channel `ch` broadcast to a vector.
fn filter_tap(e: &mut Cursor, ops: &EpilogueOperands, ch: ValueId, zero: ValueId, kh: ValueId, kw: usize) -> ValueId {
    let kwv = e.idx(kw as i64);
    let w = e.load(ops.b, &[ch, zero, kh, kwv]);
    e.value_op("vector.broadcast", &[w], lanes::of(Type::f32()))
}

/// Output row `oh`: its vectors at constant columns, a group at a time (their masks fold, the
/// interior ones load unmasked, and a group's sums are independent chains); a row of more than
/// [`MAX_STATIC_VECTORS`] in a loop, one vector at a time.
fn row(e: &mut Cursor, plane: &Plane, oh: ValueId, taps: RowTaps) {
    for_vector_groups(e, plane, GROUP_VECTORS, &mut |e, starts| row_vectors(e, plane, oh, &taps, starts));
}

/// The output vectors of row `oh` starting at columns `starts`: each starts as the bias, adds
/// its row taps (all column taps of each), and is stored after the epilogue.
fn row_vectors(e: &mut Cursor, plane: &Plane, oh: ValueId, taps: &RowTaps, starts: &[ValueId]) {
    let (ops, rows, cols) = (plane.ops, plane.rows, plane.cols);
    let (n, ch) = (plane.n, plane.ch);
    let (counts, columns) = vector_columns(e, plane, starts);
    // One row tap added to every vector's sum.
    let add_row = |e: &mut Cursor, kh: ValueId, weights: &[ValueId], acc: &mut [ValueId]| {
        let ih = e.affine(&[(oh, rows.stride as i64), (kh, rows.dilation as i64)], -(rows.pad as i64));
        for (kw, &w) in weights.iter().enumerate() {
            for (sum, vector_taps) in acc.iter_mut().zip(&columns) {
                let (iw, masks) = &vector_taps[kw];
                let x = tap_vector(e, ops, (n, ch, ih, *iw), masks);
                *sum = e.fmuladd(x, w, *sum);
            }
        }
    };
    let inits = vec![plane.bias; starts.len()];
    let sums = match taps {
        RowTaps::Range((lo, hi)) => e.for_accs_step(*lo, *hi, 1, &inits, |e, kh, acc| {
            let zero = e.idx(0);
            let weights: Vec<ValueId> = (0..cols.kernel).map(|kw| filter_tap(e, ops, ch, zero, kh, kw)).collect();
            let mut acc = acc.to_vec();
            add_row(e, kh, &weights, &mut acc);
            acc
        }),
        RowTaps::All(weights) => {
            let mut acc = inits;
            for (kh, row_weights) in weights.iter().enumerate() {
                let khv = e.idx(kh as i64);
                add_row(e, khv, row_weights, &mut acc);
            }
            acc
        }
    };
    store_sums(e, plane, oh, (starts, &counts), sums);
}

/// Column tap `kw` of the vector of output columns from `ow0` (`count` of them, or more): the
/// input column its first lane reads, `iw`, and the masks of the `stride` vectors of the input
/// row from there that its lanes read: elements `[lo, hi)` of that span, those inside the input
/// and up to the last lane's, each vector's taken as its first `hi` elements less its first `lo`.
fn column_tap(
    e: &mut Cursor,
    (ow0, count): (ValueId, ValueId),
    kw: usize,
    (input, cols): (usize, Axis),
) -> (ValueId, Vec<ValueId>) {
    let s = cols.stride as i64;
    let iw = e.affine(&[(ow0, s)], (kw * cols.dilation) as i64 - cols.pad as i64);
    let zero = e.idx(0);
    // Elements j with 0 <= iw + j < input and j <= s * (count - 1).
    let lo = e.affine(&[(iw, -1)], 0);
    let lo = e.value_op("arith.maxsi", &[lo, zero], Type::Index);
    let hi = e.affine(&[(iw, -1)], input as i64);
    let reach = e.affine(&[(count, s)], 1 - s);
    let hi = e.value_op("arith.minsi", &[hi, reach], Type::Index);
    let hi = e.value_op("arith.maxsi", &[hi, zero], Type::Index);
    let lo = e.value_op("arith.minsi", &[lo, hi], Type::Index);
    let masks = (0..cols.stride)
        .map(|v| {
            let (hi, lo) = (e.affine(&[(hi, 1)], -((v * NR) as i64)), e.affine(&[(lo, 1)], -((v * NR) as i64)));
            lanes::between(e, lo, hi)
        })
        .collect();
    (iw, masks)
}

/// The input values of a column tap's lanes, from input column `iw` on: one masked load, or with
/// stride 2 the even elements of two.
fn tap_vector(
    e: &mut Cursor,
    ops: &EpilogueOperands,
    (n, ch, ih, iw): (ValueId, ValueId, ValueId, ValueId),
    masks: &[ValueId],
) -> ValueId {
    let zeros = lanes::zeros(e);
    match *masks {
        [mask] => lanes::load(e, ops.a, &[n, ch, ih, iw], mask, zeros),
        [a, b] => lanes::evens(e, ops.a, &[n, ch, ih, iw], [a, b], zeros),
        _ => unreachable!("column strides 1 and 2"),
    }
}

/// Stores the vector of output columns from `ow0` (its first `count`) after adding the residual
/// and applying the activation.
fn store_row_vector(
    e: &mut Cursor,
    ops: &EpilogueOperands,
    (n, ch, oh, ow0): (ValueId, ValueId, ValueId, ValueId),
    count: ValueId,
    acc: ValueId,
    act: Activation,
) {
    let mask = lanes::first(e, count);
    let mut v = acc;
    if let Some(r) = ops.residual {
        let zeros = lanes::zeros(e);
        let rv = lanes::load(e, r, &[n, ch, oh, ow0], mask, zeros);
        v = e.value_op("arith.addf", &[v, rv], lanes::of(Type::f32()));
    }
    let v = super::matmul::apply_activation(e, v, act);
    lanes::store(e, v, ops.output, &[n, ch, oh, ow0], mask);
}

/// The row taps `[lo, hi)` whose input row `oh * s + kh * d - pad` is inside `[0, input)`:
/// `lo = ceil(max(pad - oh s, 0) / d)`, `hi = min(kernel, floor((input - 1 + pad - oh s) / d) + 1)`,
/// the latter as `max(input - 1 + pad - oh s + d, 0) / d` so that no division sees a negative.
fn row_taps(e: &mut Cursor, oh: ValueId, rows: Axis) -> (ValueId, ValueId) {
    let (s, d) = (rows.stride as i64, rows.dilation as i64);
    let zero = e.idx(0);
    let above = e.affine(&[(oh, -s)], rows.pad as i64);
    let above = e.value_op("arith.maxsi", &[above, zero], Type::Index);
    let above = e.affine(&[(above, 1)], d - 1);
    let dv = e.idx(d);
    let lo = e.value_op("arith.divui", &[above, dv], Type::Index);
    let below = match rows.input {
        Extent::Fixed(n) => e.affine(&[(oh, -s)], n as i64 - 1 + rows.pad as i64 + d),
        Extent::Value(n) => e.affine(&[(oh, -s), (n, 1)], rows.pad as i64 + d - 1),
    };
    let below = e.value_op("arith.maxsi", &[below, zero], Type::Index);
    let hi = e.value_op("arith.divui", &[below, dv], Type::Index);
    let kernel = e.idx(rows.kernel as i64);
    let hi = e.value_op("arith.minsi", &[hi, kernel], Type::Index);
    let lo = e.value_op("arith.minsi", &[lo, hi], Type::Index);
    (lo, hi)
}

/// Output row `oh` of plane (`n`, `ch`): for each row tap inside the image, the interior columns
/// (where every column tap is inside) in one loop adding all column taps, and each border column
/// with the taps it has.
fn output_row(
    e: &mut Cursor,
    ops: &EpilogueOperands,
    (n, ch, oh): (ValueId, ValueId, ValueId),
    init: ValueId,
    rows: Axis,
    cols: Axis,
) {
    e.for_loop_over(cols.output, |e, ow| e.store(init, ops.output, &[n, ch, oh, ow]));
    let (lo, hi) = row_taps(e, oh, rows);
    let Some((_, out_cols)) = cols.sizes() else {
        return output_row_at_run_time(e, ops, (n, ch, oh), (lo, hi), rows, cols);
    };
    let interior = cols.interior();
    e.for_step(lo, hi, 1, |e, kh| {
        let (ih, weights) = input_row(e, ops, (ch, oh, kh), rows, cols);
        let taps: Vec<usize> = (0..cols.kernel).collect();
        e.for_loop(interior.start, interior.end, |e, ow| {
            accumulate(e, ops, (n, ch, oh, ih), ow, &taps, &weights, cols)
        });
        for ow in (0..interior.start).chain(interior.end.max(interior.start)..out_cols) {
            let taps: Vec<usize> = (0..cols.kernel).filter(|&kw| cols.valid_outputs(kw).contains(&ow)).collect();
            let owv = e.idx(ow as i64);
            accumulate(e, ops, (n, ch, oh, ih), owv, &taps, &weights, cols);
        }
    });
}

/// The input row of output row `oh` at row tap `kh`, `oh * s + kh * d - pad`, and the row's
/// weights, one per column tap.
fn input_row(
    e: &mut Cursor,
    ops: &EpilogueOperands,
    (ch, oh, kh): (ValueId, ValueId, ValueId),
    rows: Axis,
    cols: Axis,
) -> (ValueId, Vec<ValueId>) {
    let ih = e.affine(&[(oh, rows.stride as i64), (kh, rows.dilation as i64)], -(rows.pad as i64));
    let zero = e.idx(0);
    let weights = (0..cols.kernel)
        .map(|kw| {
            let kwv = e.idx(kw as i64);
            e.load(ops.b, &[ch, zero, kh, kwv])
        })
        .collect();
    (ih, weights)
}

/// [`output_row`]'s row taps for columns known only at run time: the interior columns in one
/// loop adding all column taps, the border columns testing each tap.
fn output_row_at_run_time(
    e: &mut Cursor,
    ops: &EpilogueOperands,
    (n, ch, oh): (ValueId, ValueId, ValueId),
    (lo, hi): (ValueId, ValueId),
    rows: Axis,
    cols: Axis,
) {
    let (first, end) = cols.interior_at_run_time(e);
    let output = e.extent(cols.output);
    e.for_step(lo, hi, 1, |e, kh| {
        let (ih, weights) = input_row(e, ops, (ch, oh, kh), rows, cols);
        let zero = e.idx(0);
        let taps: Vec<usize> = (0..cols.kernel).collect();
        let at = (n, ch, oh, ih);
        e.for_step(first, end, 1, |e, ow| accumulate(e, ops, at, ow, &taps, &weights, cols));
        e.for_step(zero, first, 1, |e, ow| accumulate_tested(e, ops, at, ow, &weights, cols));
        e.for_step(end, output, 1, |e, ow| accumulate_tested(e, ops, at, ow, &weights, cols));
    });
}

/// [`accumulate`] over every column tap, each tested: a tap outside the input adds 0.
fn accumulate_tested(
    e: &mut Cursor,
    ops: &EpilogueOperands,
    (n, ch, oh, ih): (ValueId, ValueId, ValueId, ValueId),
    ow: ValueId,
    weights: &[ValueId],
    cols: Axis,
) {
    let at = [n, ch, oh, ow];
    let mut acc = e.load(ops.output, &at);
    for (kw, &weight) in weights.iter().enumerate() {
        let iw = e.affine(&[(ow, cols.stride as i64)], (kw * cols.dilation) as i64 - cols.pad as i64);
        let mut inside = None;
        let iw = e.clamp_tap(iw, cols.input, &mut inside);
        let xv = e.load(ops.a, &[n, ch, ih, iw]);
        let zero = e.const_float(0.0, Type::f32());
        let xv = e.value_op("arith.select", &[inside.expect("one test"), xv, zero], Type::f32());
        acc = e.fmuladd(xv, weight, acc);
    }
    e.store(acc, ops.output, &at);
}

/// `out[n, ch, oh, ow] += sum over taps of w[kw] * x[n, ch, ih, ow * s + kw * d - pad]`.
fn accumulate(
    e: &mut Cursor,
    ops: &EpilogueOperands,
    (n, ch, oh, ih): (ValueId, ValueId, ValueId, ValueId),
    ow: ValueId,
    taps: &[usize],
    weights: &[ValueId],
    cols: Axis,
) {
    let at = [n, ch, oh, ow];
    let mut acc = e.load(ops.output, &at);
    for &kw in taps {
        let iw = e.affine(&[(ow, cols.stride as i64)], (kw * cols.dilation) as i64 - cols.pad as i64);
        let xv = e.load(ops.a, &[n, ch, ih, iw]);
        acc = e.fmuladd(xv, weights[kw], acc);
    }
    e.store(acc, ops.output, &at);
}
