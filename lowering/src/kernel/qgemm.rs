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
//! instruction, from a quarter of the weight bytes. Tiles are independent: one parallel loop
//! over row tiles and panels; the rows past the last full tile make one-row tiles, and the last
//! panel, when N is not a multiple of 16, stores its columns under a mask. A K that is not a
//! multiple of 4 ends with a partial quad that reads only A's bytes inside K (B's are zeros).
//! Any other integer matmul (B not constant, batched B, a GPU) is a parallel loop over the
//! output with a widening dot product inside (`matmul::lower_general`).

use super::Cursor;
use crate::builder::{Extent, LoopBuilder};
use xcc_ir::dialects::kernel::EpilogueOperands;
use xcc_ir::{Attribute, Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};

/// The columns of a panel of B in quads, and the lanes of an accumulator.
pub const QUAD_COLUMNS: usize = 16;

/// The rows of a tile.
const ROWS: usize = 4;

/// `vector<len x elem>`.
fn vector(len: usize, elem: Type) -> Type {
    Type::Vector { shape: vec![len as u64], elem: Box::new(elem) }
}

/// What every tile shares: the flat buffers, K and N, and how bytes widen.
struct Quads {
    a: ValueId,
    b: ValueId,
    out: ValueId,
    k: usize,
    n: usize,
    a_ext: &'static str,
    b_ext: &'static str,
    /// Unsigned A by signed B on a CPU with `vpdpbusd` ([`dot_quads`]).
    dot_bytes: bool,
}

/// `byte_dot_products`: the CPU has `vpdpbusd` (AVX-512 VNNI); an unsigned A by a signed B then
/// multiplies each quad with it.
pub fn lower(m: &mut Module, op: OpId, byte_dot_products: bool) -> Result<(), Diagnostic> {
    let span = m.ops[op].span;
    let ops = EpilogueOperands::of(m, op);
    let ext = |key: &str| if m.attr(op, key).is_some() { "arith.extui" } else { "arith.extsi" };
    let (a_ext, b_ext) = (ext("a_unsigned"), ext("b_unsigned"));
    let a_dims = m.ty(ops.a).as_memref().expect("verified memref").shape.clone();
    let out_dims = m.ty(ops.output).as_memref().expect("verified memref").shape.clone();
    let (Some(k), Some(n)) = (a_dims[a_dims.len() - 1], out_dims[out_dims.len() - 1]) else {
        return Err(Diagnostic::new(span, "an integer matmul with b_quads needs static K and N"));
    };
    let mut c = Cursor::new(m, span);
    let (a, b, out) = (c.flat(ops.a), c.flat(ops.b), c.flat(ops.output));
    let dims = c.extents(ops.output);
    let rows = c.extent_product(&dims[..dims.len() - 1]);
    // vpdpbusd multiplies unsigned bytes by signed ones: A's by B's, or B's by A's.
    let dot_bytes = byte_dot_products && a_ext != b_ext;
    let q = Quads { a, b, out, k: k as usize, n: n as usize, a_ext, b_ext, dot_bytes };
    let (tiles, full, rest) = super::matmul::row_tiles(&mut c, rows, ROWS);
    tiles_over(&mut c, &q, tiles, None, ROWS);
    let first = c.extent(full);
    tiles_over(&mut c, &q, rest, Some(first), 1);
    c.finish(op);
    Ok(())
}

/// `count` tiles of `rows` rows (from row `first`, or 0) by every panel: the full panels in one
/// parallel loop, the last partial one in another.
fn tiles_over(c: &mut Cursor, q: &Quads, count: Extent, first: Option<ValueId>, rows: usize) {
    if count == Extent::Fixed(0) {
        return;
    }
    let full_panels = q.n / QUAD_COLUMNS;
    let start = |e: &mut Cursor, t: ValueId| match first {
        Some(f) => e.affine(&[(t, rows as i64), (f, 1)], 0),
        None => e.affine(&[(t, rows as i64)], 0),
    };
    if full_panels > 0 {
        c.parallel_over(&[count, Extent::Fixed(full_panels)], &mut |e, ivs| {
            let i0 = start(e, ivs[0]);
            let accs = tile(e, q, i0, ivs[1], rows);
            store(e, q, &accs, (i0, ivs[1]), None);
        });
    }
    let tail = q.n % QUAD_COLUMNS;
    if tail > 0 {
        c.parallel_over(&[count], &mut |e, ivs| {
            let i0 = start(e, ivs[0]);
            let p = e.idx(full_panels as i64);
            let accs = tile(e, q, i0, p, rows);
            let lanes = e.idx(tail as i64);
            let mask = e.value_op("vector.create_mask", &[lanes], vector(QUAD_COLUMNS, Type::i1()));
            store(e, q, &accs, (i0, p), Some(mask));
        });
    }
}

/// The sums of `rows` rows from `i0` by panel `p`, one `vector<16xi32>` per row.
fn tile(e: &mut Cursor, q: &Quads, i0: ValueId, p: ValueId, rows: usize) -> Vec<ValueId> {
    let acc_t = vector(QUAD_COLUMNS, Type::i32());
    let zero = e.const_int(0, Type::i32());
    let zero = e.value_op("vector.broadcast", &[zero], acc_t.clone());
    let quads = q.k.div_ceil(4);
    let panel = e.affine(&[(p, (quads * QUAD_COLUMNS * 4) as i64)], 0);
    let a_rows: Vec<ValueId> = (0..rows).map(|r| e.affine(&[(i0, q.k as i64)], (r * q.k) as i64)).collect();
    let accs =
        e.for_accs(0, q.k / 4, &vec![zero; rows], |e, quad, accs| quad_products(e, q, (panel, quad), &a_rows, accs, 4));
    match q.k % 4 {
        0 => accs,
        tail => {
            let last = e.idx((q.k / 4) as i64);
            quad_products(e, q, (panel, last), &a_rows, &accs, tail)
        }
    }
}

/// `accs` plus one quad of k (its first `used` k; B's others are zeros): B's 64 bytes split
/// into four vectors of 16 columns, each times a broadcast byte of every row of A.
fn quad_products(
    e: &mut Cursor,
    q: &Quads,
    (panel, quad): (ValueId, ValueId),
    a_rows: &[ValueId],
    accs: &[ValueId],
    used: usize,
) -> Vec<ValueId> {
    let acc_t = vector(QUAD_COLUMNS, Type::i32());
    let at = e.affine(&[(panel, 1), (quad, (QUAD_COLUMNS * 4) as i64)], 0);
    let bytes = e.value_op("vector.load", &[q.b, at], vector(QUAD_COLUMNS * 4, Type::i8()));
    if q.dot_bytes {
        return dot_quads(e, q, (bytes, quad), a_rows, accs, used);
    }
    let columns: Vec<ValueId> = (0..used)
        .map(|j| {
            let lanes = (0..QUAD_COLUMNS).map(|l| (4 * l + j) as i128).collect();
            let mask = Attribute::DenseArray { elem: Type::i64(), values: lanes };
            let t = vector(QUAD_COLUMNS, Type::i8());
            let part = e.value_attr("vector.shuffle", &[bytes, bytes], t, vec![("mask", mask)]);
            e.value_op(q.b_ext, &[part], acc_t.clone())
        })
        .collect();
    a_rows
        .iter()
        .zip(accs)
        .map(|(&row, &acc)| {
            let mut acc = acc;
            for (j, &column) in columns.iter().enumerate() {
                let ai = e.affine(&[(row, 1), (quad, 4)], j as i64);
                let byte = e.load(q.a, &[ai]);
                let wide = e.value_op(q.a_ext, &[byte], Type::i32());
                let splat = e.value_op("vector.broadcast", &[wide], acc_t.clone());
                let product = e.value_op("arith.muli", &[splat, column], acc_t.clone());
                acc = e.value_op("arith.addi", &[acc, product], acc_t.clone());
            }
            acc
        })
        .collect()
}

/// [`quad_products`] with `vpdpbusd`: each lane of `accs` plus the four products of A's bytes
/// (one 32-bit word per row, broadcast) by B's in that column, the unsigned ones by the signed.
/// A partial last quad reads only the bytes inside K (the rest are 0).
fn dot_quads(
    e: &mut Cursor,
    q: &Quads,
    (bytes, quad): (ValueId, ValueId),
    a_rows: &[ValueId],
    accs: &[ValueId],
    used: usize,
) -> Vec<ValueId> {
    let acc_t = vector(QUAD_COLUMNS, Type::i32());
    let bytes_t = vector(QUAD_COLUMNS * 4, Type::i8());
    a_rows
        .iter()
        .zip(accs)
        .map(|(&row, &acc)| {
            let word = if used == 4 {
                let at = e.affine(&[(row, 1), (quad, 4)], 0);
                let four = e.value_op("vector.load", &[q.a, at], vector(4, Type::i8()));
                let one = e.value_op("vector.bitcast", &[four], vector(1, Type::i32()));
                let position = Attribute::DenseArray { elem: Type::i64(), values: vec![0] };
                e.value_attr("vector.extract", &[one], Type::i32(), vec![("static_position", position)])
            } else {
                // Little-endian: byte j is bits 8j..8j+8 of the word.
                let mut word = e.const_int(0, Type::i32());
                for j in 0..used {
                    let at = e.affine(&[(row, 1), (quad, 4)], j as i64);
                    let byte = e.load(q.a, &[at]);
                    // The bytes as they are (a signed A's too): the word is their bits.
                    let wide = e.value_op("arith.extui", &[byte], Type::i32());
                    let shift = e.const_int(8 * j as i128, Type::i32());
                    let placed = e.value_op("arith.shli", &[wide, shift], Type::i32());
                    word = e.value_op("arith.ori", &[word, placed], Type::i32());
                }
                word
            };
            let splat = e.value_op("vector.broadcast", &[word], acc_t.clone());
            let splat = e.value_op("vector.bitcast", &[splat], bytes_t.clone());
            let (unsigned, signed) = if q.a_ext == "arith.extui" { (splat, bytes) } else { (bytes, splat) };
            e.value_op("llvm.intr.x86.avx512.vpdpbusd.512", &[acc, unsigned, signed], acc_t.clone())
        })
        .collect()
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
