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
pub(super) fn vector(len: usize, elem: Type) -> Type {
    Type::Vector { shape: vec![len as u64], elem: Box::new(elem) }
}

/// How the bytes of A and B widen (`arith.extui` or `arith.extsi`), and whether their quads
/// multiply with `vpdpbusd` (a CPU that has it, one operand unsigned and the other signed).
#[derive(Clone, Copy)]
pub(super) struct Signs {
    pub a_ext: &'static str,
    pub b_ext: &'static str,
    pub dot_bytes: bool,
}

impl Signs {
    pub(super) fn new(a_unsigned: bool, b_unsigned: bool, byte_dot_products: bool) -> Signs {
        let ext = |unsigned| if unsigned { "arith.extui" } else { "arith.extsi" };
        // vpdpbusd multiplies unsigned bytes by signed ones: A's by B's, or B's by A's.
        Signs {
            a_ext: ext(a_unsigned),
            b_ext: ext(b_unsigned),
            dot_bytes: byte_dot_products && a_unsigned != b_unsigned,
        }
    }
}

/// What every tile shares: the flat buffers, K and N, and how bytes widen.
struct Quads {
    a: ValueId,
    b: ValueId,
    out: ValueId,
    k: usize,
    n: usize,
    signs: Signs,
}

/// `byte_dot_products`: the CPU has `vpdpbusd` (AVX-512 VNNI); an unsigned A by a signed B then
/// multiplies each quad with it.
pub fn lower(m: &mut Module, op: OpId, byte_dot_products: bool) -> Result<(), Diagnostic> {
    let span = m.ops[op].span;
    let ops = EpilogueOperands::of(m, op);
    let signs = Signs::new(m.attr(op, "a_unsigned").is_some(), m.attr(op, "b_unsigned").is_some(), byte_dot_products);
    let a_dims = m.ty(ops.a).as_memref().expect("verified memref").shape.clone();
    let out_dims = m.ty(ops.output).as_memref().expect("verified memref").shape.clone();
    let (Some(k), Some(n)) = (a_dims[a_dims.len() - 1], out_dims[out_dims.len() - 1]) else {
        return Err(Diagnostic::new(span, "an integer matmul with b_quads needs static K and N"));
    };
    let mut c = Cursor::new(m, span);
    let (a, b, out) = (c.flat(ops.a), c.flat(ops.b), c.flat(ops.output));
    let dims = c.extents(ops.output);
    let rows = c.extent_product(&dims[..dims.len() - 1]);
    let q = Quads { a, b, out, k: k as usize, n: n as usize, signs };
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
    let bytes = e.value_op("vector.load", &[q.b, at], vector(QUAD_COLUMNS * 4, Type::i8()));
    let a_at: Vec<ValueId> = a_rows.iter().map(|&row| e.affine(&[(row, 1), (quad, 4)], 0)).collect();
    if q.signs.dot_bytes {
        return a_at
            .iter()
            .zip(accs)
            .map(|(&at, &acc)| {
                let word = a_word(e, q.a, at, used);
                dot(e, q.signs, acc, word, bytes)
            })
            .collect();
    }
    let columns = b_columns(e, q.signs, bytes, used);
    a_at.iter().zip(accs).map(|(&at, &acc)| row_products(e, q.signs, (q.a, at), &columns, acc)).collect()
}

/// B's 64 bytes (16 columns by a quad of k) split into its first `used` k, each a
/// `vector<16xi32>` of the 16 columns widened: stride-4 shuffles.
pub(super) fn b_columns(e: &mut Cursor, s: Signs, bytes: ValueId, used: usize) -> Vec<ValueId> {
    (0..used)
        .map(|j| {
            let lanes = (0..QUAD_COLUMNS).map(|l| (4 * l + j) as i128).collect();
            let mask = Attribute::DenseArray { elem: Type::i64(), values: lanes };
            let t = vector(QUAD_COLUMNS, Type::i8());
            let part = e.value_attr("vector.shuffle", &[bytes, bytes], t, vec![("mask", mask)]);
            e.value_op(s.b_ext, &[part], vector(QUAD_COLUMNS, Type::i32()))
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

/// `vpdpbusd`: each lane of `acc` plus the four products of A's quad (`word`, from [`a_word`])
/// by B's in that column, the unsigned bytes by the signed.
pub(super) fn dot(e: &mut Cursor, s: Signs, acc: ValueId, word: ValueId, bytes: ValueId) -> ValueId {
    let (unsigned, signed) = if s.a_ext == "arith.extui" { (word, bytes) } else { (bytes, word) };
    e.value_op("llvm.intr.x86.avx512.vpdpbusd.512", &[acc, unsigned, signed], vector(QUAD_COLUMNS, Type::i32()))
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
