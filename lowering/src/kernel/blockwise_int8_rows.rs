//! `kernel.matmul_blockwise` with int8 activations over many rows (a prompt's prefill): each
//! block's weights unpacked once and turned so that a vector's lanes are the group's 8 columns,
//! then used by every row of the chunk.
//!
//! Decode's kernel (`blockwise.rs`) keeps a run's 32 weights of one column in a vector, so each
//! row's products end in lanes that must be summed and scaled column by column: cheap beside
//! reading the weights once for one row, dear for a prompt whose rows share them. Here the
//! group's 8 unpacked runs (8 columns by 32 values, as 8 by 8 words of 4 bytes) are transposed
//! once per run, so that vector `q` holds values `4q..4q + 4` of each column: a row's 4 bytes
//! there, broadcast, give each column's dot product of 4 in its own lane (`vpdpbusd`, or
//! `vpmaddubsw` and `vpmaddwd` on AVX2). A block's products sum exactly in i32; the row's
//! output vector (the group's 8 columns) then takes them times the block's scales, and the zero
//! points' share, without a reduction across lanes.
//!
//! One parallel loop over the whole groups of columns; a last, partial group goes through the
//! decode kernel.

use super::blockwise::{
    run_products, unpacked_run, with_products, zero_point_scales, Blockwise, Products, GROUP, ROW_CHUNK,
};
use super::qgemm::vector;
use super::Cursor;
use crate::builder::{Extent, LoopBuilder};
use xcc_ir::dialects::kernel_blockwise::RUN;
use xcc_ir::{Attribute, OpSpec, Span, Type, ValueId};

/// Eight lanes: the group's columns, as i32 or f32.
const LANES: usize = GROUP;

/// The 4-byte words of a run: the dot products one instruction adds per lane.
const WORDS: usize = RUN as usize / 4;

/// The chunk's `count` rows from `r0`, prepared as int8 blocks in `w.prepared`.
pub(super) fn every_group(c: &mut Cursor, w: &Blockwise, rows: (ValueId, ValueId), products: Products) {
    let n = w.s.n as usize;
    let whole = n / GROUP;
    if whole > 0 {
        c.parallel_over(&[Extent::Fixed(whole)], &mut |e, ivs| {
            with_products(e, w, products, &|e, p| group_rows(e, w, rows, ivs[0], p))
        });
    }
    if !n.is_multiple_of(GROUP) {
        let last = c.idx(whole as i64);
        super::blockwise::group_outputs(c, w, rows, (last, n % GROUP), products);
    }
}

/// Group `g`'s 8 columns for every row of the chunk: the rows' output vectors zeroed, then block
/// by block, the block's turned weights (in registers, or where the compiler keeps them) used by
/// each row.
fn group_rows(e: &mut Cursor, w: &Blockwise, (r0, count): (ValueId, ValueId), g: ValueId, products: Products) {
    let f32v = vector(LANES, Type::f32());
    let zero = e.idx(0);
    let zeros = e.splat_const(0.0, f32v.clone());
    let sums = w.row_sums.expect("int8 activations over whole groups have row sums");
    e.for_step(zero, count, 1, |e, r| {
        let at = sums_at(e, g, r);
        e.op(OpSpec::new("vector.store", Span::UNKNOWN).operands([zeros, sums, at]));
    });
    e.for_loop(0, w.s.blocks as usize, |e, b| {
        let (scales, zero_scales) = block_scales(e, w, g, b, products);
        let turned: Vec<ValueId> =
            (0..w.s.block as usize / RUN as usize).flat_map(|run| turned_run(e, w, (g, b), run)).collect();
        e.for_step(zero, count, 1, |e, r| row_block(e, w, (r, b), g, &turned, (scales, zero_scales), products));
    });
    e.for_step(zero, count, 1, |e, r| {
        let at = sums_at(e, g, r);
        let total = e.value_op("vector.load", &[sums, at], f32v.clone());
        let at = e.affine(&[(r0, w.s.n as i64), (r, w.s.n as i64), (g, GROUP as i64)], 0);
        e.op(OpSpec::new("vector.store", Span::UNKNOWN).operands([total, w.out, at]));
    });
}

/// Where row `r` of the chunk keeps group `g`'s 8 sums in `row_sums`.
fn sums_at(e: &mut Cursor, g: ValueId, r: ValueId) -> ValueId {
    e.affine(&[(g, (ROW_CHUNK * GROUP) as i64), (r, GROUP as i64)], 0)
}

/// Block `b`'s scales of group `g`'s columns, and their zero points times the scales.
fn block_scales(e: &mut Cursor, w: &Blockwise, g: ValueId, b: ValueId, products: Products) -> (ValueId, ValueId) {
    let at = e.affine(&[(g, (w.s.blocks as usize * GROUP) as i64), (b, GROUP as i64)], 0);
    let scales = e.value_op("vector.load", &[w.scales, at], vector(LANES, Type::f32()));
    (scales, zero_point_scales(e, w, at, scales, products))
}

/// Run `run` of block `b` of group `g`, unpacked and turned: vector `q` holds values
/// `4q..4q + 4` of each of the 8 columns, column j in word j.
fn turned_run(e: &mut Cursor, w: &Blockwise, (g, b): (ValueId, ValueId), run: usize) -> Vec<ValueId> {
    let (block, kp) = (w.s.block as usize, w.s.padded_k() as usize);
    let bytes_per = |values: usize| (values * w.s.bits as usize / 8) as i64;
    let words = vector(WORDS, Type::i32());
    let columns: Vec<ValueId> = (0..GROUP)
        .map(|j| {
            let offset = bytes_per(j * block) + run as i64 * w.s.run_bytes() as i64;
            let at = e.affine(&[(g, bytes_per(kp * GROUP)), (b, bytes_per(block * GROUP))], offset);
            let bytes = match w.s.bits {
                4 => unpacked_run(e, w.q, at),
                _ => e.value_op("vector.load", &[w.q, at], vector(RUN as usize, Type::i8())),
            };
            e.value_op("vector.bitcast", &[bytes], words.clone())
        })
        .collect();
    transposed(e, columns)
        .into_iter()
        .map(|v| e.value_op("vector.bitcast", &[v], vector(RUN as usize, Type::i8())))
        .collect()
}

/// The 8 by 8 words `rows` transposed: for each bit of the index, rows that differ in it swap
/// the words whose lane differs from the row in that bit (3 rounds of 8 shuffles).
fn transposed(e: &mut Cursor, mut rows: Vec<ValueId>) -> Vec<ValueId> {
    let words = vector(WORDS, Type::i32());
    let mut bit = 1;
    while bit < WORDS {
        let mut next = rows.clone();
        for j in (0..WORDS).filter(|j| j & bit == 0) {
            let (x, y) = (rows[j], rows[j | bit]);
            // Lane l of row j keeps its word where l has the bit clear and takes row j|bit's word
            // l^bit where it is set; row j|bit the other way round.
            let low = (0..WORDS).map(|l| if l & bit == 0 { l } else { WORDS + (l ^ bit) } as i128).collect();
            let high = (0..WORDS).map(|l| if l & bit == 0 { l ^ bit } else { WORDS + l } as i128).collect();
            for (to, mask) in [(j, low), (j | bit, high)] {
                let mask = Attribute::DenseArray { elem: Type::i64(), values: mask };
                next[to] = e.value_attr("vector.shuffle", &[x, y], words.clone(), vec![("mask", mask)]);
            }
        }
        rows = next;
        bit *= 2;
    }
    rows
}

/// Row `r` of the chunk times block `b`'s turned weights: the block's exact sums, one lane per
/// column, scaled by the block's scales and the row's, less the zero points' share, added to
/// the row's sums.
fn row_block(
    e: &mut Cursor,
    w: &Blockwise,
    (r, b): (ValueId, ValueId),
    g: ValueId,
    turned: &[ValueId],
    (scales, zero_scales): (ValueId, ValueId),
    products: Products,
) {
    let (block, blocks, kp) = (w.s.block as usize, w.s.blocks as usize, w.s.padded_k() as usize);
    let (i32v, f32v) = (vector(LANES, Type::i32()), vector(LANES, Type::f32()));
    let a_at = e.affine(&[(r, kp as i64), (b, block as i64)], 0);
    let words: Vec<(ValueId, ValueId)> = turned
        .iter()
        .enumerate()
        .map(|(word, &weights)| (weights, broadcast_word(e, w.prepared, a_at, word)))
        .collect();
    let sum = match products {
        Products::PairSums => pair_sums(e, &words),
        _ => {
            // Two chains of sums, so that one product need not wait for the one before.
            let mut sums = [e.splat_const(0.0, i32v.clone()), e.splat_const(0.0, i32v.clone())];
            for (word, &(weights, a)) in words.iter().enumerate() {
                sums[word % 2] = run_products(e, products, sums[word % 2], weights, &[a]);
            }
            e.value_op("arith.addi", &[sums[0], sums[1]], i32v)
        }
    };
    let sum = e.value_op("arith.sitofp", &[sum], f32v.clone());
    let a_block = e.affine(&[(r, blocks as i64), (b, 1)], 0);
    let a_scale = e.load(w.a_scales.expect("int8 activations have scales"), &[a_block]);
    let a_scale = e.value_op("vector.broadcast", &[a_scale], f32v.clone());
    let row_scales = e.value_op("arith.mulf", &[scales, a_scale], f32v.clone());
    let a_sum = e.load(w.a_sums, &[a_block]);
    let a_sum = e.value_op("arith.negf", &[a_sum], Type::f32());
    let a_sum = e.value_op("vector.broadcast", &[a_sum], f32v.clone());
    let sums = w.row_sums.expect("int8 activations over whole groups have row sums");
    let at = sums_at(e, g, r);
    let total = e.value_op("vector.load", &[sums, at], f32v);
    let total = e.fmuladd(sum, row_scales, total);
    let total = e.fmuladd(zero_scales, a_sum, total);
    e.op(OpSpec::new("vector.store", Span::UNKNOWN).operands([total, sums, at]));
}

/// The dot products of 4-bit weights and A's bytes, word by word, with `vpmaddubsw`: its pairs
/// (at most `2 * 15 * 127` each) added in 16 bits for [`PAIRS_IN_16_BITS`] words, which cannot
/// overflow, before `vpmaddwd` widens them; one widening per 8 words instead of one per word.
fn pair_sums(e: &mut Cursor, words: &[(ValueId, ValueId)]) -> ValueId {
    let (i16v, i32v) = (vector(RUN as usize / 2, Type::i16()), vector(LANES, Type::i32()));
    let ones = e.splat_const(1.0, i16v.clone());
    let mut sum = e.splat_const(0.0, i32v.clone());
    for chunk in words.chunks(PAIRS_IN_16_BITS) {
        let mut pairs: [Option<ValueId>; 2] = [None, None];
        for (i, &(weights, a)) in chunk.iter().enumerate() {
            let product = e.value_op("llvm.intr.x86.avx2.pmadd.ub.sw", &[weights, a], i16v.clone());
            pairs[i % 2] = Some(match pairs[i % 2] {
                None => product,
                Some(p) => e.value_op("arith.addi", &[p, product], i16v.clone()),
            });
        }
        let pairs = match pairs {
            [Some(x), Some(y)] => e.value_op("arith.addi", &[x, y], i16v.clone()),
            [Some(x), None] => x,
            _ => unreachable!("a chunk has a word"),
        };
        let quads = e.value_op("llvm.intr.x86.avx2.pmadd.wd", &[pairs, ones], i32v.clone());
        sum = e.value_op("arith.addi", &[sum, quads], i32v.clone());
    }
    sum
}

/// The words whose 4-bit pair sums add up in 16 bits: `8 * 2 * 15 * 127 = 30480` fits.
const PAIRS_IN_16_BITS: usize = 8;

/// Word `word` (4 bytes) of the prepared row's block at `at`, in all 8 lanes, as 32 bytes.
fn broadcast_word(e: &mut Cursor, prepared: ValueId, at: ValueId, word: usize) -> ValueId {
    let at = e.affine(&[(at, 1)], 4 * word as i64);
    let bytes = e.value_op("vector.load", &[prepared, at], vector(4, Type::i8()));
    let one = e.value_op("vector.bitcast", &[bytes], vector(1, Type::i32()));
    let position = Attribute::DenseArray { elem: Type::i64(), values: vec![0] };
    let value = e.value_attr("vector.extract", &[one], Type::i32(), vec![("static_position", position)]);
    let all = e.value_op("vector.broadcast", &[value], vector(LANES, Type::i32()));
    e.value_op("vector.bitcast", &[all], vector(RUN as usize, Type::i8()))
}
