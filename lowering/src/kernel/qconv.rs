//! `kernel.conv_planes` to loops: an integer convolution whose input the graph has padded and
//! laid out in channel quads of flattened planes, `X [N, CQ, L, 4]`, so that each tap of each
//! channel quad reads a contiguous run of positions: 16 positions are one 64-byte load, no
//! windows gathered (see `xcc_ir::dialects::kernel` for the op's sums).
//!
//! On a CPU, a micro-kernel computes a tile of [`ROWS`] output channels by `panels` groups of
//! 16 positions in `vector<16xi32>` accumulators. Per tap (unrolled: each has its own offset
//! and first quad) a loop over the tap's channel quads loads one 64-byte panel of X per group
//! and one 4-byte word of weights per row, and multiplies them as the integer matmul does
//! (`qgemm`: `vpdpbusd` where the CPU has it, [`DOT_PANELS`] groups for 16 accumulators; NEON's
//! `sdot`, `udot` or `usdot`, one group, its unsigned input bytes shifted to signed ones for
//! `sdot` where there is no `usdot` ([`channel_starts`]); else widened bytes, one group). Where
//! no byte dot product takes the weights' and input's signs (`ByteDots::multiply`),
//! `kernel-pack-weights` widens constant weights to i16, and a CPU with AVX2 multiplies 16-bit
//! pairs instead ([`pair_tile`]:
//! `vpmaddwd`, 16 exact multiply-adds per instruction, twice an f32 FMA's), chosen by a branch
//! on the CPU's level that `cpu-dispatch` folds in each copy of the code.
//!
//! Tiles are independent: one parallel loop over images, position blocks and row tiles, the
//! rows innermost, so a block's input stays in cache across every output channel; the last
//! block's last group stores under a mask. Elsewhere (a GPU) it is a parallel loop over the
//! output with the sum inside.

use super::matmul::apply_function_all;
use super::qgemm::{
    a_word, b_columns, by_avx2, dot, halves_summed, pair_products_added, pairs_for_vnni, repeat_quad, row_products,
    vector, zero_vector, Signs, QUAD_COLUMNS,
};
use super::Cursor;
use crate::builder::{Extent, LoopBuilder};
use xcc_ir::{Attribute, Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};

/// The output channels of a tile.
const ROWS: usize = 4;

/// The groups of 16 positions in a tile with `vpdpbusd`: 4 rows by 4 groups, 16 accumulators,
/// enough independent sums to cover the instruction's latency (NEON's tiles take one group: its
/// 16-lane accumulators are four registers each).
const DOT_PANELS: usize = 4;

/// One `kernel.conv_planes`: its flat buffers, sizes and taps.
struct Planes {
    x: ValueId,
    w: ValueId,
    out: ValueId,
    /// Input quads per image, plane length, taps, weight bytes per tap, output channels, positions.
    cq: usize,
    l: usize,
    t: usize,
    k: usize,
    m: usize,
    q: usize,
    /// Per tap: (first quad, offset).
    taps: Vec<(usize, usize)>,
    signs: Signs,
    /// Where the input's bytes are shifted ([`Signs::shift`]): each output channel's start, `[m]`.
    starts: Option<ValueId>,
    /// What is stored instead of each sum, with an `epilogue_map`.
    map: Option<StoredMap>,
    /// Whether the 16-bit pair tasks also go to the VNNI copy (`qgemm::pairs_for_vnni`).
    fuse_pairs: bool,
}

/// An `epilogue_map` and its other arguments: each operand's flat buffer and whether it holds
/// one element per output channel (else one for all).
struct StoredMap {
    func: OpId,
    args: Vec<(ValueId, bool)>,
}

pub fn lower(m: &mut Module, op: OpId, options: &crate::LoweringOptions) -> Result<(), Diagnostic> {
    let span = m.ops[op].span;
    let operands = m.ops[op].operands.clone();
    let shape = |v: ValueId| -> Vec<usize> {
        let t = m.ty(v).as_memref().expect("verified memref");
        t.shape.iter().map(|d| d.expect("verified static") as usize).collect()
    };
    let (xs, ws, os) = (shape(operands[0]), shape(operands[1]), shape(operands[2]));
    let byte_weights = m.ty(operands[1]).as_memref().is_some_and(|t| *t.elem == Type::i8());
    let list = |key: &str| m.attr(op, key).and_then(Attribute::as_int_list).unwrap_or_default();
    let taps: Vec<(usize, usize)> =
        list("tap_quads").into_iter().zip(list("tap_offsets")).map(|(b, o)| (b as usize, o as usize)).collect();
    let unsigned = |key: &str| m.attr(op, key).is_some();
    let recorded = super::strategy::recorded_byte_dots(m, op, options)?;
    let pairs = super::strategy::recorded_pair_products(m, op, options);
    let dots = if byte_weights { recorded } else { crate::ByteDots::None };
    let mut signs = Signs::new((unsigned("weights_unsigned"), unsigned("input_unsigned")), dots, false);
    let func = m.attr(op, "epilogue_map").and_then(Attribute::as_symbol).and_then(|name| m.lookup_symbol(name));
    let per_channel: Vec<bool> = operands[3..].iter().map(|&v| shape(v).iter().product::<usize>() > 1).collect();
    let starts = if signs.shift { channel_starts(m, op, operands[1]) } else { None };
    if signs.shift && starts.is_none() {
        // No constant weights to sum: the bytes widen instead.
        signs = Signs { dots: crate::ByteDots::None, shift: false, ..signs };
    }
    let mut c = Cursor::new(m, span);
    let (x, w, out) = (c.flat(operands[0]), c.flat(operands[1]), c.flat(operands[2]));
    let map = func.map(|func| {
        let args = operands[3..].iter().zip(per_channel).map(|(&v, per)| (c.flat(v), per)).collect();
        StoredMap { func, args }
    });
    let fuse_pairs = super::qgemm::vnni_fuses_pairs(options);
    let p = Planes {
        x,
        w,
        out,
        cq: xs[1],
        l: xs[2],
        t: ws[1],
        k: ws[2],
        m: ws[0],
        q: os[2],
        taps,
        signs,
        starts,
        map,
        fuse_pairs,
    };
    let images = xs[0];
    if options.gpu() {
        direct(&mut c, &p, images);
    } else if !byte_weights && pairs {
        by_avx2(&mut c, &|e, avx2| every_tile(e, &p, images, if avx2 { Products::Pairs } else { Products::Widened }));
    } else {
        let products = match signs.dots {
            crate::ByteDots::None => Products::Widened,
            crate::ByteDots::Vnni => Products::Dot(DOT_PANELS),
            // 4 rows by one group is 16 of NEON's 32 registers, each 16 lanes four of them.
            crate::ByteDots::Neon { .. } => Products::Dot(1),
        };
        every_tile(&mut c, &p, images, products);
    }
    c.finish(op);
    Ok(())
}

/// Where the input's unsigned bytes are shifted to signed ones ([`Signs::shift`]): 128 times the
/// sum of each output channel's signed weights (`[M, T, K]`), a constant `[M]` of i32 beside
/// them, from which the channel's sums start. `None` where the weights are no constant.
fn channel_starts(m: &mut Module, op: OpId, w: ValueId) -> Option<ValueId> {
    let (_, global, bytes) = super::pack::constant_global(m, w)?;
    let shape = m.ty(w).as_memref()?.shape.clone();
    let channels = shape.first().copied()?? as usize;
    let elements = shape.iter().map(|d| d.map(|d| d as usize)).product::<Option<usize>>()?;
    if channels == 0 || bytes.len() != elements {
        return None;
    }
    let starts: Vec<u8> = bytes
        .chunks(bytes.len() / channels)
        .flat_map(|channel| (128 * channel.iter().map(|&b| b as i8 as i32).sum::<i32>()).to_le_bytes())
        .collect();
    Some(super::pack::sibling_global(m, op, global, (starts, &Type::i32(), &[channels]), "channel_starts"))
}

/// How a CPU tile multiplies.
#[derive(Clone, Copy)]
enum Products {
    /// Bytes by bytes in quads, with dot product instructions: this many groups of 16 positions
    /// ([`DOT_PANELS`] with `vpdpbusd`).
    Dot(usize),
    /// Each input byte and weight widened to 32 bits: one group of 16 positions.
    Widened,
    /// 16-bit weights by input bytes widened to 16 bits, summed in pairs (`vpmaddwd`, AVX2):
    /// [`PAIR_POSITIONS`] positions.
    Pairs,
}

impl Products {
    /// The positions of a tile.
    fn positions(self) -> usize {
        match self {
            Products::Dot(groups) => groups * QUAD_COLUMNS,
            Products::Widened => QUAD_COLUMNS,
            Products::Pairs => PAIR_POSITIONS,
        }
    }
}

/// The tiles of every output channel: [`ROWS`] at a time, then one at a time.
fn every_tile(c: &mut Cursor, p: &Planes, images: usize, products: Products) {
    let full = p.m / ROWS;
    tiles(c, p, images, (full, ROWS, 0), products);
    tiles(c, p, images, (p.m % ROWS, 1, full * ROWS), products);
}

/// `count` row tiles of `rows` rows from row `first`, by every block of positions of every
/// image: the full blocks in one parallel loop, the rest (its last group masked) in another.
fn tiles(c: &mut Cursor, p: &Planes, images: usize, (count, rows, first): (usize, usize, usize), products: Products) {
    if count == 0 {
        return;
    }
    let block = products.positions();
    let (blocks, rest) = (p.q / block, p.q % block);
    let tile_at = |e: &mut Cursor, ivs: &[ValueId], q0: ValueId, width: usize| {
        let m0 = e.affine(&[(ivs[2], rows as i64)], first as i64);
        let at = (ivs[0], q0, m0);
        if let Products::Pairs = products {
            return pairs_for_vnni(e, p.fuse_pairs, &|e| {
                let sums = pair_tile(e, p, at, rows);
                store_pairs(e, p, &sums, at, width)
            });
        }
        let panels = width.div_ceil(QUAD_COLUMNS);
        let accs = tile(e, p, at, rows, panels);
        let lanes = width % QUAD_COLUMNS;
        store(e, p, &accs, at, (panels, (lanes > 0).then_some(lanes)));
    };
    if blocks > 0 {
        let shape = [Extent::Fixed(images), Extent::Fixed(blocks), Extent::Fixed(count)];
        c.parallel_over(&shape, &mut |e, ivs| {
            let q0 = e.affine(&[(ivs[1], block as i64)], 0);
            tile_at(e, ivs, q0, block)
        });
    }
    if rest > 0 {
        let shape = [Extent::Fixed(images), Extent::Fixed(1), Extent::Fixed(count)];
        c.parallel_over(&shape, &mut |e, ivs| {
            let q0 = e.idx((blocks * block) as i64);
            tile_at(e, ivs, q0, rest)
        });
    }
}

/// The groups of 4 positions of a [`Products::Pairs`] tile: two, so that each row's two
/// accumulators reduce to one vector of 8 positions.
const PAIR_GROUPS: usize = 2;

/// The positions of a [`Products::Pairs`] tile.
const PAIR_POSITIONS: usize = 4 * PAIR_GROUPS;

/// The sums of `rows` output channels from `m0` at the [`PAIR_POSITIONS`] positions from `q0`,
/// one `vector<8xi32>` per row. Per tap and channel quad, each group's 16 input bytes (4
/// positions by 4 channels) widen to 16-bit lanes, each row's four 16-bit weights are broadcast
/// to match, and `vpmaddwd` sums adjacent products into 8 lanes: positions by halves of the quad.
/// Four rows by two groups is 8 accumulators, 2 inputs and a weight of AVX2's 16 registers.
fn pair_tile(e: &mut Cursor, p: &Planes, (n, q0, m0): (ValueId, ValueId, ValueId), rows: usize) -> Vec<ValueId> {
    let zero = zero_vector(e, 8);
    let mut accs = vec![zero; rows * PAIR_GROUPS];
    for (t, &(first, offset)) in p.taps.iter().enumerate() {
        accs = e.for_accs(0, p.k / 4, &accs, |e, cq, accs| {
            let inputs: Vec<ValueId> = (0..PAIR_GROUPS)
                .map(|g| {
                    let lead = (first * p.l + offset + 4 * g) * 4;
                    let terms = [(n, (p.cq * p.l * 4) as i64), (cq, (p.l * 4) as i64), (q0, 4)];
                    let at = e.affine(&terms, lead as i64);
                    let bytes = e.value_op("vector.load", &[p.x, at], vector(16, Type::i8()));
                    e.value_op(p.signs.b_ext, &[bytes], vector(16, Type::i16()))
                })
                .collect();
            let mut next = accs.to_vec();
            for r in 0..rows {
                let at = e.affine(&[(m0, (p.t * p.k) as i64), (cq, 4)], (r * p.t * p.k + t * p.k) as i64);
                let quad = e.value_op("vector.load", &[p.w, at], vector(4, Type::i16()));
                let weights = repeat_quad(e, quad);
                for (g, &input) in inputs.iter().enumerate() {
                    let i = r * PAIR_GROUPS + g;
                    next[i] = pair_products_added(e, accs[i], input, weights);
                }
            }
            next
        });
    }
    // Each row's two accumulators: positions by halves of the channel quad.
    accs.chunks(PAIR_GROUPS).map(|pair| halves_summed(e, pair[0], pair[1])).collect()
}

/// Stores a [`pair_tile`]'s rows at positions `q0..`, the first `width` of them.
fn store_pairs(e: &mut Cursor, p: &Planes, sums: &[ValueId], (n, q0, m0): (ValueId, ValueId, ValueId), width: usize) {
    let mask = (width < PAIR_POSITIONS).then(|| {
        let lanes = e.idx(width as i64);
        e.value_op("vector.create_mask", &[lanes], vector(PAIR_POSITIONS, Type::i1()))
    });
    let sums = stored(e, p, sums, m0, 1);
    for (r, &sum) in sums.iter().enumerate() {
        let terms = [(n, (p.m * p.q) as i64), (m0, p.q as i64), (q0, 1)];
        let at = e.affine(&terms, (r * p.q) as i64);
        let spec = match mask {
            Some(mask) => OpSpec::new("vector.maskedstore", Span::UNKNOWN).operands([p.out, at, mask, sum]),
            None => OpSpec::new("vector.store", Span::UNKNOWN).operands([sum, p.out, at]),
        };
        e.op(spec);
    }
}

/// The sums of `rows` output channels from `m0` at `panels` groups of 16 positions from `q0`
/// of image `n`: `accs[r * panels + g]`.
fn tile(
    e: &mut Cursor,
    p: &Planes,
    (n, q0, m0): (ValueId, ValueId, ValueId),
    rows: usize,
    panels: usize,
) -> Vec<ValueId> {
    let zero = zero_vector(e, QUAD_COLUMNS);
    let mut accs = vec![zero; rows * panels];
    if let Some(starts) = p.starts {
        for r in 0..rows {
            let channel = e.affine(&[(m0, 1)], r as i64);
            let start = e.load(starts, &[channel]);
            let lanes = e.value_op("vector.broadcast", &[start], vector(QUAD_COLUMNS, Type::i32()));
            accs[r * panels..(r + 1) * panels].fill(lanes);
        }
    }
    let quads = p.k / 4;
    for (t, &(first, offset)) in p.taps.iter().enumerate() {
        accs = e.for_accs(0, quads, &accs, |e, cq, accs| {
            let bytes: Vec<ValueId> = (0..panels)
                .map(|g| {
                    let lead = (first * p.l + offset + g * QUAD_COLUMNS) * 4;
                    let terms = [(n, (p.cq * p.l * 4) as i64), (cq, (p.l * 4) as i64), (q0, 4)];
                    let at = e.affine(&terms, lead as i64);
                    e.value_op("vector.load", &[p.x, at], vector(QUAD_COLUMNS * 4, Type::i8()))
                })
                .collect();
            let words: Vec<ValueId> = (0..rows)
                .map(|r| e.affine(&[(m0, (p.t * p.k) as i64), (cq, 4)], (r * p.t * p.k + t * p.k) as i64))
                .collect();
            multiply(e, p, &words, &bytes, accs)
        });
    }
    accs
}

/// `accs` plus the products of each row's weight quad (at `words[r]`) by each group's input
/// bytes.
fn multiply(e: &mut Cursor, p: &Planes, words: &[ValueId], bytes: &[ValueId], accs: &[ValueId]) -> Vec<ValueId> {
    let panels = bytes.len();
    let mut next = accs.to_vec();
    if p.signs.dot_bytes() {
        for (r, &at) in words.iter().enumerate() {
            let word = a_word(e, p.w, at, 4);
            for (g, &b) in bytes.iter().enumerate() {
                next[r * panels + g] = dot(e, p.signs, accs[r * panels + g], word, b);
            }
        }
        return next;
    }
    for (g, &b) in bytes.iter().enumerate() {
        let columns = b_columns(e, (p.signs.b_ext, &Type::i8()), b, 4);
        for (r, &at) in words.iter().enumerate() {
            next[r * panels + g] = row_products(e, p.signs, (p.w, at), &columns, accs[r * panels + g]);
        }
    }
    next
}

/// Stores a tile at positions `q0..`, its last group's first `mask` lanes only if given.
fn store(
    e: &mut Cursor,
    p: &Planes,
    accs: &[ValueId],
    (n, q0, m0): (ValueId, ValueId, ValueId),
    (panels, mask): (usize, Option<usize>),
) {
    let last_mask = mask.map(|lanes| {
        let lanes = e.idx(lanes as i64);
        e.value_op("vector.create_mask", &[lanes], vector(QUAD_COLUMNS, Type::i1()))
    });
    let accs = stored(e, p, accs, m0, panels);
    for (i, &acc) in accs.iter().enumerate() {
        let (r, g) = (i / panels, i % panels);
        let terms = [(n, (p.m * p.q) as i64), (m0, p.q as i64), (q0, 1)];
        let at = e.affine(&terms, (r * p.q + g * QUAD_COLUMNS) as i64);
        let spec = match last_mask.filter(|_| g + 1 == panels) {
            Some(mask) => OpSpec::new("vector.maskedstore", Span::UNKNOWN).operands([p.out, at, mask, acc]),
            None => OpSpec::new("vector.store", Span::UNKNOWN).operands([acc, p.out, at]),
        };
        e.op(spec);
    }
}

/// One parallel loop over every output element, its sum over taps and channels inside.
fn direct(c: &mut Cursor, p: &Planes, images: usize) {
    let (x_ext, w_ext) = (p.signs.b_ext, p.signs.a_ext);
    c.parallel(&[images, p.m, p.q], &mut |e, ivs| {
        let (n, m, q) = (ivs[0], ivs[1], ivs[2]);
        let mut sum = e.const_int(0, Type::i32());
        for (t, &(first, offset)) in p.taps.iter().enumerate() {
            sum = e.nest_accs(&[p.k / 4, 4], &[sum], &mut |e, ks, accs| {
                let (cq, j) = (ks[0], ks[1]);
                let wi = e.affine(&[(m, (p.t * p.k) as i64), (cq, 4), (j, 1)], (t * p.k) as i64);
                let terms = [(n, (p.cq * p.l * 4) as i64), (cq, (p.l * 4) as i64), (q, 4), (j, 1)];
                let xi = e.affine(&terms, ((first * p.l + offset) * 4) as i64);
                let (wv, xv) = (e.load(p.w, &[wi]), e.load(p.x, &[xi]));
                let (wv, xv) = (e.value_op(w_ext, &[wv], Type::i32()), e.value_op(x_ext, &[xv], Type::i32()));
                let product = e.value_op("arith.muli", &[wv, xv], Type::i32());
                vec![e.value_op("arith.addi", &[accs[0], product], Type::i32())]
            })[0];
        }
        let sum = stored(e, p, &[sum], m, 1)[0];
        let at = e.affine(&[(n, (p.m * p.q) as i64), (m, p.q as i64), (q, 1)], 0);
        e.store(sum, p.out, &[at]);
    });
}

/// What a tile stores for its sums (`per_row` of them per row, the rows from channel `m0`):
/// the sums themselves, or the `epilogue_map` of each with its other arguments, read at the row's
/// channel (or the one element) and broadcast to the sums' lanes.
fn stored(e: &mut Cursor, p: &Planes, sums: &[ValueId], m0: ValueId, per_row: usize) -> Vec<ValueId> {
    let Some(map) = &p.map else { return sums.to_vec() };
    let lanes = match e.ty(sums[0]) {
        Type::Vector { shape, .. } => Some(shape[0] as usize),
        _ => None,
    };
    let at_lanes = |e: &mut Cursor, buffer: ValueId, index: ValueId| {
        let value = e.load(buffer, &[index]);
        match lanes {
            Some(n) => {
                let elem = e.ty(value);
                e.value_op("vector.broadcast", &[value], vector(n, elem))
            }
            None => value,
        }
    };
    // The single elements once for the tile, then each row's channel's.
    let first = e.idx(0);
    let shared: Vec<Option<ValueId>> =
        map.args.iter().map(|&(buffer, per_channel)| (!per_channel).then(|| at_lanes(e, buffer, first))).collect();
    let mut calls = Vec::new();
    for (r, row) in sums.chunks(per_row).enumerate() {
        let channel = e.affine(&[(m0, 1)], r as i64);
        let args: Vec<ValueId> = map
            .args
            .iter()
            .zip(&shared)
            .map(|(&(buffer, _), one)| one.unwrap_or_else(|| at_lanes(e, buffer, channel)))
            .collect();
        calls.extend(row.iter().map(|&sum| [vec![sum], args.clone()].concat()));
    }
    apply_function_all(e, &calls, map.func)
}
