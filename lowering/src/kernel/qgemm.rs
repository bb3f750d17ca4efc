//! Integer `kernel.matmul` to loops: `out[m, n] = sum_k A[m, k] * B[k, n]` over bytes (each
//! widened to i32, signed or unsigned as `a_unsigned`/`b_unsigned` say), exact in i32.
//!
//! With B packed in quads (`b_quads = 16`, `kernel-pack-weights`: `[ceil(N / 16), ceil(K / 4),
//! 16, 4]`, a panel's four k of each column side by side), a micro-kernel computes a tile of
//! [`ROWS`] rows by one panel of 16 columns in `vector<16xi32>` accumulators: per quad of k,
//! one 64-byte load of B, split into its four k by stride-4 shuffles and widened, and per row
//! four broadcast bytes of A, multiplied and added. The pairs of products that sum are
//! adjacent bytes of the same column, the form LLVM turns into `vpmaddwd` (16-bit products
//! summed in pairs; `vpdpwssd` with AVX-512 VNNI), twice the multiply-adds of an f32 FMA per
//! instruction, from a quarter of the weight bytes. Where the CPU has no byte dot products,
//! `kernel-pack-weights` widens B's quads to i16, and on CPUs with AVX2 ([`pair_tile`]) each
//! quad's four vectors of 16-bit pairs go straight to `vpmaddwd` against each row's four bytes
//! of A widened once, with no shuffles of B: a branch on the CPU's level, which `cpu-dispatch`
//! folds per copy of the code; in the portable build the tasks also go to its VNNI copy, where
//! each `vpmaddwd` and its add become one `vpdpwssd` ([`pairs_for_vnni`]). Tiles are
//! independent: one parallel loop over row tiles and panels; the rows past the last full tile make one-row tiles, and the last
//! panel, when N is not a multiple of 16, stores its columns under a mask. A K that is not a
//! multiple of 4 ends with a partial quad that reads only A's bytes inside K (B's are zeros).
//! Any other integer matmul (B not constant, batched B, a GPU) is a parallel loop over the
//! output with a widening dot product inside (`matmul::lower_general`).

use super::Cursor;
use crate::builder::{Extent, LoopBuilder};
use crate::ByteDots;
use xcc_ir::dialects::kernel::EpilogueOperands;
use xcc_ir::{Attribute, Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};
use xcc_targets::x86_64::{AVX2_LEVEL, VNNI_LEVEL};

/// The columns of a panel of B in quads, and the lanes of an accumulator.
pub const QUAD_COLUMNS: usize = 16;

/// The rows of a tile.
const ROWS: usize = 4;

/// `vector<len x elem>`.
pub(super) fn vector(len: usize, elem: Type) -> Type {
    Type::Vector { shape: vec![len as u64], elem: Box::new(elem) }
}

/// How the bytes of A and B widen (`arith.extui` or `arith.extsi`), the byte dot products
/// their quads multiply with (`ByteDots::None` where the CPU has none for these signs), and
/// whether the unsigned operand's bytes are shifted to signed ones for them ([`ByteDots::shifts`]).
#[derive(Clone, Copy)]
pub(super) struct Signs {
    pub a_ext: &'static str,
    pub b_ext: &'static str,
    pub dots: ByteDots,
    pub shift: bool,
}

impl Signs {
    /// `constant_b`: B is the constant operand (a matmul's weights), else A is (a convolution's).
    pub(super) fn new((a_unsigned, b_unsigned): (bool, bool), dots: ByteDots, constant_b: bool) -> Signs {
        let ext = |unsigned| if unsigned { "arith.extui" } else { "arith.extsi" };
        let (run_time, constant) = if constant_b { (a_unsigned, b_unsigned) } else { (b_unsigned, a_unsigned) };
        let dots = if dots.multiply(run_time, constant) { dots } else { ByteDots::None };
        Signs { a_ext: ext(a_unsigned), b_ext: ext(b_unsigned), dots, shift: dots.shifts(run_time, constant) }
    }

    /// Whether quads of bytes multiply with dot product instructions.
    pub(super) fn dot_bytes(self) -> bool {
        self.dots != ByteDots::None
    }
}

/// What every tile shares: the flat buffers, K and N, how bytes widen, and B's element type
/// (bytes, or i16 once `kernel-pack-weights` has widened them).
struct Quads {
    a: ValueId,
    b: ValueId,
    out: ValueId,
    k: usize,
    n: usize,
    signs: Signs,
    b_elem: Type,
    /// Where A's bytes are shifted ([`Signs::shift`]): each column's start, `[panels * 16]`.
    starts: Option<ValueId>,
    /// Whether the 16-bit pair tasks also go to the VNNI copy ([`pairs_for_vnni`]).
    fuse_pairs: bool,
}

/// The rows of a tile of 16-bit pair products: 2 rows by 4 vectors of 4 columns is 8
/// accumulators, with B's 4 vectors and a row of A, 13 of AVX2's 16 registers.
const PAIR_ROWS: usize = 2;

/// The byte dot products recorded on the op (`byte_dots`, `kernel-choose-strategies`): the CPU's (`vpdpbusd`, NEON's `sdot`/`udot`/`usdot`)
/// multiply each quad where they take A's and B's signs (`kernel-pack-weights` then leaves B in
/// bytes). With B widened to i16 and code for AVX2, 16-bit pairs (`vpmaddwd`) on the CPUs that
/// have it, chosen by a branch `cpu-dispatch` folds.
pub fn lower(m: &mut Module, op: OpId, options: &crate::LoweringOptions) -> Result<(), Diagnostic> {
    let span = m.ops[op].span;
    let ops = EpilogueOperands::of(m, op);
    let b_elem = (*m.ty(ops.b).as_memref().expect("verified memref").elem).clone();
    let byte_b = b_elem == Type::i8();
    let dots = if byte_b { super::strategy::recorded_byte_dots(m, op, options)? } else { ByteDots::None };
    let pairs = super::strategy::recorded_pair_products(m, op, options);
    let mut signs = Signs::new((m.attr(op, "a_unsigned").is_some(), m.attr(op, "b_unsigned").is_some()), dots, true);
    let a_dims = m.ty(ops.a).as_memref().expect("verified memref").shape.clone();
    let out_dims = m.ty(ops.output).as_memref().expect("verified memref").shape.clone();
    let (Some(k), Some(n)) = (a_dims[a_dims.len() - 1], out_dims[out_dims.len() - 1]) else {
        return Err(Diagnostic::new(span, "an integer matmul with b_quads needs static K and N"));
    };
    let starts = if signs.shift { column_starts(m, op, ops.b, k as usize) } else { None };
    if signs.shift && starts.is_none() {
        // No constant B to sum: the bytes widen instead.
        signs = Signs { dots: ByteDots::None, shift: false, ..signs };
    }
    let mut c = Cursor::new(m, span);
    let (a, b, out) = (c.flat(ops.a), c.flat(ops.b), c.flat(ops.output));
    let dims = c.extents(ops.output);
    let rows = c.extent_product(&dims[..dims.len() - 1]);
    let fuse_pairs = vnni_fuses_pairs(options);
    let q = Quads { a, b, out, k: k as usize, n: n as usize, signs, b_elem, starts, fuse_pairs };
    if !byte_b && pairs {
        by_avx2(&mut c, &|e, pairs| every_tile(e, &q, rows, pairs));
    } else {
        every_tile(&mut c, &q, rows, false);
    }
    c.finish(op);
    Ok(())
}

/// Where A's unsigned bytes are shifted to signed ones ([`Signs::shift`]): 128 times the sum of
/// each column of B's packed signed bytes, a constant `[panels * 16]` of i32 beside B, from which
/// each tile's sums start. `None` where B is no constant.
fn column_starts(m: &mut Module, op: OpId, b: ValueId, k: usize) -> Option<ValueId> {
    let (_, global, bytes) = super::pack::constant_global(m, b)?;
    let panel_bytes = k.div_ceil(4) * QUAD_COLUMNS * 4;
    if bytes.is_empty() || bytes.len() % panel_bytes != 0 {
        return None;
    }
    let mut starts = Vec::new();
    for panel in bytes.chunks(panel_bytes) {
        for j in 0..QUAD_COLUMNS {
            let column = panel.chunks(QUAD_COLUMNS * 4).flat_map(|quad| &quad[4 * j..4 * j + 4]);
            let sum: i32 = column.map(|&byte| byte as i8 as i32).sum();
            starts.extend((128 * sum).to_le_bytes());
        }
    }
    let shape = [starts.len() / 4];
    Some(super::pack::sibling_global(m, op, global, (starts, &Type::i32(), &shape), "column_starts"))
}

/// Whether some copy of the code is for a CPU with AVX2 (every copy's level known), so that its
/// 16-bit pair kernels are worth emitting.
pub(super) fn some_copy_has_avx2(options: &crate::LoweringOptions) -> bool {
    options.highest_cpu_level().is_some_and(|l| l >= AVX2_LEVEL)
}

/// `body(true)` on CPUs with AVX2, `body(false)` on the others: a branch on the CPU's level that
/// `cpu-dispatch` folds in each copy of the code, so each keeps one side.
pub(super) fn by_avx2(c: &mut Cursor, body: &dyn Fn(&mut Cursor, bool)) {
    by_level(c, AVX2_LEVEL, body)
}

/// `body(true)` on CPUs of level `min` or above, `body(false)` on the others (see [`by_avx2`]).
pub(super) fn by_level(c: &mut Cursor, min: u32, body: &dyn Fn(&mut Cursor, bool)) {
    let level = c.cpu_level();
    let min = c.const_int(min as i128, Type::i32());
    let at_least = c.cmpi("sge", level, min);
    let on = |above| {
        move |e: &mut Cursor| {
            body(e, above);
            vec![]
        }
    };
    c.if_else(at_least, vec![], on(true), on(false));
}

/// Whether a copy above the baseline has VNNI where the baseline has no byte dot products: the
/// integer kernels' 16-bit pairs then go to VNNI's copy too ([`pairs_for_vnni`]).
pub(super) fn vnni_fuses_pairs(options: &crate::LoweringOptions) -> bool {
    options.best_byte_dots() == ByteDots::Vnni && options.byte_dots() == ByteDots::None
}

/// `body`, a parallel task's 16-bit pair products, where `fuse` says twice under a test of VNNI's
/// level: the two sides are the same code, but `cpu-dispatch` compiles the VNNI copy's side with
/// the feature, where LLVM fuses each `vpmaddwd` and the add after it into one `vpdpwssd`.
pub(super) fn pairs_for_vnni(e: &mut Cursor, fuse: bool, body: &dyn Fn(&mut Cursor)) {
    if fuse {
        by_level(e, VNNI_LEVEL, &|e, _| body(e));
    } else {
        body(e);
    }
}

/// Every row's tiles: [`ROWS`] (or [`PAIR_ROWS`]) at a time, then one at a time.
fn every_tile(c: &mut Cursor, q: &Quads, rows: Extent, pairs: bool) {
    let tile_rows = if pairs { PAIR_ROWS } else { ROWS };
    let (tiles, full, rest) = super::matmul::row_tiles(c, rows, tile_rows);
    tiles_over(c, q, tiles, None, (tile_rows, pairs));
    let first = c.extent(full);
    tiles_over(c, q, rest, Some(first), (1, pairs));
}

/// `count` tiles of `rows` rows (from row `first`, or 0) by every panel: the full panels in one
/// parallel loop, the last partial one in another.
fn tiles_over(c: &mut Cursor, q: &Quads, count: Extent, first: Option<ValueId>, (rows, pairs): (usize, bool)) {
    if count == Extent::Fixed(0) {
        return;
    }
    let full_panels = q.n / QUAD_COLUMNS;
    let start = |e: &mut Cursor, t: ValueId| match first {
        Some(f) => e.affine(&[(t, rows as i64), (f, 1)], 0),
        None => e.affine(&[(t, rows as i64)], 0),
    };
    let sums = |e: &mut Cursor, i0: ValueId, p: ValueId| {
        if pairs {
            pair_tile(e, q, i0, p, rows)
        } else {
            tile(e, q, i0, p, rows)
        }
    };
    let fuse = pairs && q.fuse_pairs;
    if full_panels > 0 {
        c.parallel_over(&[count, Extent::Fixed(full_panels)], &mut |e, ivs| {
            pairs_for_vnni(e, fuse, &|e| {
                let i0 = start(e, ivs[0]);
                let accs = sums(e, i0, ivs[1]);
                store(e, q, &accs, (i0, ivs[1]), None);
            })
        });
    }
    let tail = q.n % QUAD_COLUMNS;
    if tail > 0 {
        c.parallel_over(&[count], &mut |e, ivs| {
            pairs_for_vnni(e, fuse, &|e| {
                let i0 = start(e, ivs[0]);
                let p = e.idx(full_panels as i64);
                let accs = sums(e, i0, p);
                let lanes = e.idx(tail as i64);
                let mask = e.value_op("vector.create_mask", &[lanes], vector(QUAD_COLUMNS, Type::i1()));
                store(e, q, &accs, (i0, p), Some(mask));
            })
        });
    }
}

/// The sums of `rows` rows from `i0` by panel `p` from 16-bit pairs, one `vector<16xi32>` per
/// row. Per quad of k, B's 16 columns are four vectors of 16 i16 (4 columns by the quad's 4 k);
/// each row's 4 bytes of A widen to 16 bits and repeat to match, and `vpmaddwd` sums adjacent
/// products: 8 lanes, 4 columns by halves of the quad, summed in pairs at the end.
fn pair_tile(e: &mut Cursor, q: &Quads, i0: ValueId, p: ValueId, rows: usize) -> Vec<ValueId> {
    let zero = zero_vector(e, 8);
    let accs = over_quads(e, q, (i0, p, rows), vec![zero; rows * 4], pair_products);
    let lanes = Attribute::DenseArray { elem: Type::i64(), values: (0..16).collect() };
    accs.chunks(4)
        .map(|row| {
            // Each two vectors hold 4 columns each, by halves: 8 columns summed, then 16 joined.
            let [low, high] = [0, 2].map(|j| halves_summed(e, row[j], row[j + 1]));
            let t = vector(QUAD_COLUMNS, Type::i32());
            e.value_attr("vector.shuffle", &[low, high], t, vec![("mask", lanes.clone())])
        })
        .collect()
}

/// One quad of k's products added to a tile's accumulators (its first `used` k):
/// [`quad_products`] or [`pair_products`].
type QuadProducts = fn(&mut Cursor, &Quads, (ValueId, ValueId), &[ValueId], &[ValueId], usize) -> Vec<ValueId>;

/// `start` plus the products of `rows` rows from `i0` by panel `p` over every quad of k: a loop
/// over the whole quads, then the partial last one if K is not a multiple of 4.
fn over_quads(
    e: &mut Cursor,
    q: &Quads,
    (i0, p, rows): (ValueId, ValueId, usize),
    start: Vec<ValueId>,
    products: QuadProducts,
) -> Vec<ValueId> {
    let quads = q.k.div_ceil(4);
    let panel = e.affine(&[(p, (quads * QUAD_COLUMNS * 4) as i64)], 0);
    let a_rows: Vec<ValueId> = (0..rows).map(|r| e.affine(&[(i0, q.k as i64)], (r * q.k) as i64)).collect();
    let accs = e.for_accs(0, q.k / 4, &start, |e, quad, accs| products(e, q, (panel, quad), &a_rows, accs, 4));
    match q.k % 4 {
        0 => accs,
        tail => {
            let last = e.idx((q.k / 4) as i64);
            products(e, q, (panel, last), &a_rows, &accs, tail)
        }
    }
}

/// `accs` (4 per row) plus one quad of k's 16-bit pair products (its first `used` k; A's others
/// read as 0, B's are 0).
fn pair_products(
    e: &mut Cursor,
    q: &Quads,
    (panel, quad): (ValueId, ValueId),
    a_rows: &[ValueId],
    accs: &[ValueId],
    used: usize,
) -> Vec<ValueId> {
    let at = e.affine(&[(panel, 1), (quad, (QUAD_COLUMNS * 4) as i64)], 0);
    let columns: Vec<ValueId> = (0..4)
        .map(|j| {
            let at = e.affine(&[(at, 1)], 16 * j);
            e.value_op("vector.load", &[q.b, at], vector(16, Type::i16()))
        })
        .collect();
    let mut next = accs.to_vec();
    for (r, &row) in a_rows.iter().enumerate() {
        let at = e.affine(&[(row, 1), (quad, 4)], 0);
        let bytes = if used == 4 {
            e.value_op("vector.load", &[q.a, at], vector(4, Type::i8()))
        } else {
            let lanes = e.idx(used as i64);
            let mask = e.value_op("vector.create_mask", &[lanes], vector(4, Type::i1()));
            let zero = e.const_int(0, Type::i8());
            let zeros = e.value_op("vector.broadcast", &[zero], vector(4, Type::i8()));
            e.value_op("vector.maskedload", &[q.a, at, mask, zeros], vector(4, Type::i8()))
        };
        let wide = e.value_op(q.signs.a_ext, &[bytes], vector(4, Type::i16()));
        let a = repeat_quad(e, wide);
        for (j, &column) in columns.iter().enumerate() {
            next[r * 4 + j] = pair_products_added(e, accs[r * 4 + j], column, a);
        }
    }
    next
}

/// The sums of `rows` rows from `i0` by panel `p`, one `vector<16xi32>` per row.
fn tile(e: &mut Cursor, q: &Quads, i0: ValueId, p: ValueId, rows: usize) -> Vec<ValueId> {
    let start = match q.starts {
        Some(starts) => {
            let at = e.affine(&[(p, QUAD_COLUMNS as i64)], 0);
            e.value_op("vector.load", &[starts, at], vector(QUAD_COLUMNS, Type::i32()))
        }
        None => zero_vector(e, QUAD_COLUMNS),
    };
    over_quads(e, q, (i0, p, rows), vec![start; rows], quad_products)
}

/// `accs` plus one quad of k (its first `used` k; B's others are zeros): B's 64 bytes times
/// the bytes of every row of A at this quad.
fn quad_products(
    e: &mut Cursor,
    q: &Quads,
    (panel, quad): (ValueId, ValueId),
    a_rows: &[ValueId],
    accs: &[ValueId],
    used: usize,
) -> Vec<ValueId> {
    let at = e.affine(&[(panel, 1), (quad, (QUAD_COLUMNS * 4) as i64)], 0);
    let bytes = e.value_op("vector.load", &[q.b, at], vector(QUAD_COLUMNS * 4, q.b_elem.clone()));
    let a_at: Vec<ValueId> = a_rows.iter().map(|&row| e.affine(&[(row, 1), (quad, 4)], 0)).collect();
    if q.signs.dot_bytes() {
        return a_at
            .iter()
            .zip(accs)
            .map(|(&at, &acc)| {
                let word = a_word(e, q.a, at, used);
                dot(e, q.signs, acc, word, bytes)
            })
            .collect();
    }
    let columns = b_columns(e, (q.signs.b_ext, &q.b_elem), bytes, used);
    a_at.iter().zip(accs).map(|(&at, &acc)| row_products(e, q.signs, (q.a, at), &columns, acc)).collect()
}

/// B's 64 elements (16 columns by a quad of k; bytes, or i16 widened by `kernel-pack-weights`)
/// split into its first `used` k, each a `vector<16xi32>` of the 16 columns widened by `ext`:
/// stride-4 shuffles.
pub(super) fn b_columns(e: &mut Cursor, (ext, elem): (&str, &Type), values: ValueId, used: usize) -> Vec<ValueId> {
    (0..used)
        .map(|j| {
            let lanes = (0..QUAD_COLUMNS).map(|l| (4 * l + j) as i128).collect();
            let mask = Attribute::DenseArray { elem: Type::i64(), values: lanes };
            let t = vector(QUAD_COLUMNS, elem.clone());
            let part = e.value_attr("vector.shuffle", &[values, values], t, vec![("mask", mask)]);
            e.value_op(ext, &[part], vector(QUAD_COLUMNS, Type::i32()))
        })
        .collect()
}

/// `acc` plus the bytes of A at `at..` (one per widened column of B), each broadcast and
/// multiplied by its column.
pub(super) fn row_products(
    e: &mut Cursor,
    s: Signs,
    (a, at): (ValueId, ValueId),
    columns: &[ValueId],
    acc: ValueId,
) -> ValueId {
    let acc_t = vector(QUAD_COLUMNS, Type::i32());
    let mut acc = acc;
    for (j, &column) in columns.iter().enumerate() {
        let ai = e.affine(&[(at, 1)], j as i64);
        let byte = e.load(a, &[ai]);
        let wide = e.value_op(s.a_ext, &[byte], Type::i32());
        let splat = e.value_op("vector.broadcast", &[wide], acc_t.clone());
        let product = e.value_op("arith.muli", &[splat, column], acc_t.clone());
        acc = e.value_op("arith.addi", &[acc, product], acc_t.clone());
    }
    acc
}

/// The quad of A's bytes at `at..` (its first `used`; the rest 0) as one 32-bit word broadcast
/// to 16 lanes and seen as 64 bytes, for [`dot`].
pub(super) fn a_word(e: &mut Cursor, a: ValueId, at: ValueId, used: usize) -> ValueId {
    let word = if used == 4 {
        let four = e.value_op("vector.load", &[a, at], vector(4, Type::i8()));
        let one = e.value_op("vector.bitcast", &[four], vector(1, Type::i32()));
        let position = Attribute::DenseArray { elem: Type::i64(), values: vec![0] };
        e.value_attr("vector.extract", &[one], Type::i32(), vec![("static_position", position)])
    } else {
        // Little-endian: byte j is bits 8j..8j+8 of the word.
        let mut word = e.const_int(0, Type::i32());
        for j in 0..used {
            let ai = e.affine(&[(at, 1)], j as i64);
            let byte = e.load(a, &[ai]);
            // The bytes as they are (a signed A's too): the word is their bits.
            let wide = e.value_op("arith.extui", &[byte], Type::i32());
            let shift = e.const_int(8 * j as i128, Type::i32());
            let placed = e.value_op("arith.shli", &[wide, shift], Type::i32());
            word = e.value_op("arith.ori", &[word, placed], Type::i32());
        }
        word
    };
    let splat = e.value_op("vector.broadcast", &[word], vector(QUAD_COLUMNS, Type::i32()));
    e.value_op("vector.bitcast", &[splat], vector(QUAD_COLUMNS * 4, Type::i8()))
}

/// Each lane of `acc` plus the four products of A's quad (`word`, from [`a_word`]) by B's in
/// that column: `vpdpbusd` (the unsigned bytes by the signed), or NEON's dot products.
pub(super) fn dot(e: &mut Cursor, s: Signs, acc: ValueId, word: ValueId, bytes: ValueId) -> ValueId {
    let a_unsigned = s.a_ext == "arith.extui";
    if s.shift {
        // The unsigned operand less 128 (its top bit flipped); the sums started at 128 times the
        // signed operand's sums.
        let flipped = |e: &mut Cursor, v: ValueId| {
            let top = e.const_int(0x80, Type::i8());
            let tops = e.value_op("vector.broadcast", &[top], vector(QUAD_COLUMNS * 4, Type::i8()));
            e.value_op("arith.xori", &[v, tops], vector(QUAD_COLUMNS * 4, Type::i8()))
        };
        let (word, bytes) = if a_unsigned { (flipped(e, word), bytes) } else { (word, flipped(e, bytes)) };
        return neon_dot(e, (false, false), acc, word, bytes);
    }
    if let ByteDots::Neon { .. } = s.dots {
        return neon_dot(e, (a_unsigned, s.b_ext == "arith.extui"), acc, word, bytes);
    }
    let (unsigned, signed) = if a_unsigned { (word, bytes) } else { (bytes, word) };
    e.value_op("llvm.intr.x86.avx512.vpdpbusd.512", &[acc, unsigned, signed], vector(QUAD_COLUMNS, Type::i32()))
}

/// [`dot`] with NEON's 128-bit instructions, four columns each: `udot` or `sdot` for bytes of one
/// sign, `usdot` (the unsigned by the signed) for mixed ones. The pieces are lanes of the 16-lane
/// values, which LLVM keeps in four registers each.
fn neon_dot(
    e: &mut Cursor,
    (a_unsigned, b_unsigned): (bool, bool),
    acc: ValueId,
    word: ValueId,
    bytes: ValueId,
) -> ValueId {
    let lanes = |from: usize, count: usize| Attribute::DenseArray {
        elem: Type::i64(),
        values: (from..from + count).map(|l| l as i128).collect(),
    };
    let piece = |e: &mut Cursor, v: ValueId, (from, count): (usize, usize), elem: Type| {
        e.value_attr("vector.shuffle", &[v, v], vector(count, elem), vec![("mask", lanes(from, count))])
    };
    let a = piece(e, word, (0, 16), Type::i8());
    let sums: Vec<ValueId> = (0..QUAD_COLUMNS / 4)
        .map(|g| {
            let acc = piece(e, acc, (4 * g, 4), Type::i32());
            let b = piece(e, bytes, (16 * g, 16), Type::i8());
            let (name, x, y) = match (a_unsigned, b_unsigned) {
                (true, true) => ("llvm.intr.aarch64.neon.udot", a, b),
                (false, false) => ("llvm.intr.aarch64.neon.sdot", a, b),
                (true, false) => ("llvm.intr.aarch64.neon.usdot", a, b),
                (false, true) => ("llvm.intr.aarch64.neon.usdot", b, a),
            };
            e.value_op(name, &[acc, x, y], vector(4, Type::i32()))
        })
        .collect();
    let joined = |e: &mut Cursor, x: ValueId, y: ValueId, count: usize| {
        e.value_attr("vector.shuffle", &[x, y], vector(2 * count, Type::i32()), vec![("mask", lanes(0, 2 * count))])
    };
    let low = joined(e, sums[0], sums[1], 4);
    let high = joined(e, sums[2], sums[3], 4);
    joined(e, low, high, 8)
}

/// A `vector<lanes x i32>` of zeros: accumulators' start.
pub(super) fn zero_vector(e: &mut Cursor, lanes: usize) -> ValueId {
    let zero = e.const_int(0, Type::i32());
    e.value_op("vector.broadcast", &[zero], vector(lanes, Type::i32()))
}

/// A quad of 16-bit values repeated to 16 lanes, to meet four quads of the other operand.
pub(super) fn repeat_quad(e: &mut Cursor, quad: ValueId) -> ValueId {
    let repeat = Attribute::DenseArray { elem: Type::i64(), values: (0..16).map(|i| i % 4).collect() };
    e.value_attr("vector.shuffle", &[quad, quad], vector(16, Type::i16()), vec![("mask", repeat)])
}

/// `acc` (8 x i32) plus `vpmaddwd` of two vectors of 16 x i16: each lane the sum of two adjacent
/// products, exact.
pub(super) fn pair_products_added(e: &mut Cursor, acc: ValueId, x: ValueId, y: ValueId) -> ValueId {
    let t = vector(8, Type::i32());
    let pairs = e.value_op("llvm.intr.x86.avx2.pmadd.wd", &[x, y], t.clone());
    e.value_op("arith.addi", &[acc, pairs], t)
}

/// Two accumulators whose lanes 2j and 2j + 1 are halves of one sum (of a quad of k, or of
/// channels), as the 8 sums: even lanes of both plus odd lanes of both.
pub(super) fn halves_summed(e: &mut Cursor, a: ValueId, b: ValueId) -> ValueId {
    let t = vector(8, Type::i32());
    let lanes =
        |first: i128| Attribute::DenseArray { elem: Type::i64(), values: (0..8).map(|j| 2 * j + first).collect() };
    let [even, odd] = [0, 1].map(|h| e.value_attr("vector.shuffle", &[a, b], t.clone(), vec![("mask", lanes(h))]));
    e.value_op("arith.addi", &[even, odd], t)
}

/// Stores a tile's rows at columns `16 p ..`, the lanes `mask` takes if given.
fn store(e: &mut Cursor, q: &Quads, accs: &[ValueId], (i0, p): (ValueId, ValueId), mask: Option<ValueId>) {
    for (r, &acc) in accs.iter().enumerate() {
        let at = e.affine(&[(i0, q.n as i64), (p, QUAD_COLUMNS as i64)], (r * q.n) as i64);
        let spec = match mask {
            Some(mask) => OpSpec::new("vector.maskedstore", Span::UNKNOWN).operands([q.out, at, mask, acc]),
            None => OpSpec::new("vector.store", Span::UNKNOWN).operands([acc, q.out, at]),
        };
        e.op(spec);
    }
}
