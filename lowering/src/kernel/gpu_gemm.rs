//! GEMMs on GPUs tiled through shared memory: the kernel-level lowering of a large f32 matmul
//! (and of a convolution as an implicit GEMM) for `--target=nvptx64`.
//!
//! The output is cut into [`TILE_M`] x [`TILE_N`] tiles, one GPU block each: a parallel loop
//! over the tiles marked [`BLOCKS_ATTR`], whose body stages a [`TILE_K`]-deep slice of A and of B
//! in the block's shared memory and holds a parallel loop over the block's [`THREADS`] threads
//! marked [`THREADS_ATTR`] (`convert-parallel-to-gpu` maps the two to blocks and threads):
//! ```text
//! scf.parallel (%batch, %ti, %tj) {xcc.gpu_blocks} {
//!   %shared = gpu.dynamic_shared_memory : memref<8320xi8>
//!   %a = memref.view %shared[0][] ... : memref<16x65xf32>     // a[k][i], a row padded
//!   %b = memref.view %shared[4160][] ... : memref<16x65xf32>  // b[k][j]
//!   scf.parallel (%t) = (0) to (256) {xcc.gpu_threads} {
//!     sums = 0 (4 x 4 a thread)
//!     scf.for %k0 = 0 to K step 16 {
//!       each thread copies 4 elements of A's and of B's slice (zeros past the edges)
//!       gpu.barrier
//!       sums += a[k][rows] * b[k][columns], for k < 16 (unrolled)
//!       gpu.barrier
//!     }
//!     the epilogue (bias, residual, activation) and the store, inside the output
//!   }
//! }
//! ```
//! A thread's rows are `ty + 16 r` and its columns `tx + 16 c` (r, c < 4), so that the 16
//! threads of a row of the block read 16 neighbouring words of shared memory (no bank
//! conflicts) and write 16 neighbouring outputs. Each element of A and B read from device memory
//! serves 64 products, where the direct lowering reads one per product.
//!
//! On a CPU the two loops would be serial; this lowering is for GPUs only.

use super::Cursor;
use crate::builder::{Extent, LoopBuilder};
use crate::conversion::parallel_to_gpu::{BLOCKS_ATTR, THREADS_ATTR};
use xcc_ir::types::{Layout, MemRefType};
use xcc_ir::{Attribute, Module, OpId, Type, ValueId};

/// Rows of the output a block computes.
pub const TILE_M: usize = 64;
/// Columns of the output a block computes.
pub const TILE_N: usize = 64;
/// The depth of the slices of A and B staged in shared memory at a time.
pub const TILE_K: usize = 16;
/// Threads per block: 16 x 16, each with 4 x 4 outputs.
pub const THREADS: usize = 256;
const SIDE: usize = 16;
const PER_THREAD: usize = 4;
/// A slice's row in shared memory: one word past the tile, so that the threads of a warp copying
/// a column of A (neighbours along K) store to different banks (at most two to a bank).
const ROW: usize = TILE_M + 1;

// The layout above: a 16 x 16 block of threads, 4 x 4 outputs each, covers the tile, and each
// thread copies a whole number of elements of each slice.
const _: () = assert!(THREADS == SIDE * SIDE && TILE_M == SIDE * PER_THREAD && TILE_N == TILE_M);
const _: () = assert!((TILE_K * TILE_M).is_multiple_of(THREADS));

/// The smallest GEMM (in tiles) worth tiling: fewer tiles leave most of a GPU's multiprocessors
/// idle, where the direct lowering (a thread per output, sums split over K) keeps them busy.
pub const MIN_TILES: usize = 128;

/// The sizes of a GEMM of `batch` products of an `m` x `k` by a `k` x `n` matrix.
#[derive(Clone, Debug)]
pub struct Gemm {
    pub batch: Vec<usize>,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// Whether A's neighbouring elements in memory are along K (else along M).
    pub a_along_k: bool,
    /// Whether B's neighbouring elements in memory are along N (else along K).
    pub b_along_n: bool,
}

impl Gemm {
    pub fn tiles(&self) -> usize {
        self.batch.iter().product::<usize>() * self.m.div_ceil(TILE_M) * self.n.div_ceil(TILE_N)
    }

    /// Whether the tiled lowering pays for this GEMM (see [`MIN_TILES`]; and rows and columns
    /// enough to fill half a tile, which a depthwise convolution's one row does not); `forced`
    /// tiles every GEMM (`--gpu-gemm=tiled`, which tests use to run small ones through it).
    pub fn worth_tiling(&self, forced: bool) -> bool {
        let large = self.tiles() >= MIN_TILES && self.k >= 4 * TILE_K && self.m >= TILE_M / 2 && self.n >= TILE_N / 2;
        self.m > 0 && self.n > 0 && self.k > 0 && (forced || large)
    }
}

/// Reads an element of A (`batch`, row, k) or of B (`batch`, k, column): the indices are inside
/// the matrix; the value is f32.
pub type Load<'a> = &'a dyn Fn(&mut Cursor, &[ValueId], ValueId, ValueId) -> ValueId;

/// Finishes and stores the output (`batch`, row, column) from its sum.
pub type Finish<'a> = &'a dyn Fn(&mut Cursor, &[ValueId], (ValueId, ValueId), ValueId);

/// The tiled GEMM's loops at the cursor.
pub fn emit(c: &mut Cursor, g: &Gemm, load_a: Load, load_b: Load, finish: Finish) {
    let mut tiles: Vec<Extent> = g.batch.iter().map(|&b| Extent::Fixed(b)).collect();
    tiles.extend([Extent::Fixed(g.m.div_ceil(TILE_M)), Extent::Fixed(g.n.div_ceil(TILE_N))]);
    let r = g.batch.len();
    marked_parallel(c, &tiles, BLOCKS_ATTR, &mut |c, ivs| {
        let (bivs, ti, tj) = (&ivs[..r], ivs[r], ivs[r + 1]);
        let (a_tile, b_tile) = shared_tiles(c);
        let row0 = c.affine(&[(ti, TILE_M as i64)], 0);
        let col0 = c.affine(&[(tj, TILE_N as i64)], 0);
        marked_parallel(c, &[Extent::Fixed(THREADS)], THREADS_ATTR, &mut |c, t| {
            let side = c.idx(SIDE as i64);
            let ty = c.value_op("arith.divui", &[t[0], side], Type::Index);
            let tx = c.value_op("arith.remui", &[t[0], side], Type::Index);
            let zero = c.const_float(0.0, Type::f32());
            let inits = vec![zero; PER_THREAD * PER_THREAD];
            let (first, depth) = (c.idx(0), c.idx(g.k as i64));
            let sums = c.for_accs_step(first, depth, TILE_K, &inits, |c, k0, sums| {
                let stage = Stage { g, bivs, t: t[0], k0, row0, col0 };
                stage.copy_a(c, a_tile, load_a);
                stage.copy_b(c, b_tile, load_b);
                c.op(xcc_ir::OpSpec::new("gpu.barrier", c.span));
                let next = multiply_slices(c, (a_tile, b_tile), (ty, tx), sums);
                c.op(xcc_ir::OpSpec::new("gpu.barrier", c.span));
                next
            });
            for rr in 0..PER_THREAD {
                let i = c.affine(&[(row0, 1), (ty, 1)], (SIDE * rr) as i64);
                for cc in 0..PER_THREAD {
                    let j = c.affine(&[(col0, 1), (tx, 1)], (SIDE * cc) as i64);
                    let inside = both(c, (i, g.m), (j, g.n));
                    let sum = sums[rr * PER_THREAD + cc];
                    c.if_then(inside, |c| finish(c, bivs, (i, j), sum));
                }
            }
        });
    });
}

/// `scf.parallel` over `shape` with `attr` set on it.
fn marked_parallel(c: &mut Cursor, shape: &[Extent], attr: &str, body: &mut dyn FnMut(&mut Cursor, &[ValueId])) {
    c.parallel_over(shape, body);
    let op = *c.m.blocks[c.block].ops.last().expect("the parallel loop");
    c.m.set_attr(op, attr, Attribute::Unit);
}

/// The block's shared memory as the two slices, `[TILE_K][ROW]` of A and of B (f32, the
/// tile's `TILE_M` columns used).
fn shared_tiles(c: &mut Cursor) -> (ValueId, ValueId) {
    let slice = 4 * TILE_K * ROW;
    let bytes_type = memref(vec![Some(2 * slice as u64)], Type::i8());
    let shared = c.value_op("gpu.dynamic_shared_memory", &[], bytes_type);
    let view = |c: &mut Cursor, at: usize| {
        let shift = c.idx(at as i64);
        c.value_op("memref.view", &[shared, shift], memref(vec![Some(TILE_K as u64), Some(ROW as u64)], Type::f32()))
    };
    (view(c, 0), view(c, slice))
}

/// Whether `op` is in its function's body, not in a loop or a conditional: only there does a
/// parallel loop become a kernel of its own, which the tiled loops need (a kernel run by one
/// thread would have no block to share memory with).
pub fn in_function_body(m: &Module, op: OpId) -> bool {
    let parent = m.ops[op].parent.and_then(|b| m.parent_op_of_block(b));
    parent.is_some_and(|p| m.ops[p].name == "func.func")
}

fn memref(shape: Vec<Option<u64>>, elem: Type) -> Type {
    Type::MemRef(MemRefType { shape, elem: Box::new(elem), layout: Layout::Identity, memory_space: None })
}

/// `a < a_end && b < b_end`.
fn both(c: &mut Cursor, (a, a_end): (ValueId, usize), (b, b_end): (ValueId, usize)) -> ValueId {
    let (ae, be) = (c.idx(a_end as i64), c.idx(b_end as i64));
    let x = c.cmpi("ult", a, ae);
    let y = c.cmpi("ult", b, be);
    c.value_op("arith.andi", &[x, y], Type::i1())
}

/// One step of the K loop: where the block's threads copy slices of A and B from.
struct Stage<'a> {
    g: &'a Gemm,
    bivs: &'a [ValueId],
    t: ValueId,
    k0: ValueId,
    row0: ValueId,
    col0: ValueId,
}

impl Stage<'_> {
    /// `a[k][i] = A(row0 + i, k0 + k)`, 0 past the matrix. Neighbouring threads take
    /// neighbouring elements in memory (along K or along M, as A is laid out).
    fn copy_a(&self, c: &mut Cursor, a_tile: ValueId, load: Load) {
        self.copy(c, a_tile, TILE_M, self.g.a_along_k, (self.row0, self.g.m), &|c, i, k| load(c, self.bivs, i, k));
    }

    /// `b[k][j] = B(k0 + k, col0 + j)`, 0 past the matrix.
    fn copy_b(&self, c: &mut Cursor, b_tile: ValueId, load: Load) {
        self.copy(c, b_tile, TILE_N, !self.g.b_along_n, (self.col0, self.g.n), &|c, j, k| load(c, self.bivs, k, j));
    }

    /// Fills `tile[k][x]` (x < `width`) from `load(x0 + x, k0 + k)`, each thread
    /// `TILE_K * width / THREADS` elements; `along_k`: thread `t`'s neighbours take the next k.
    fn copy(
        &self,
        c: &mut Cursor,
        tile: ValueId,
        width: usize,
        along_k: bool,
        (x0, x_end): (ValueId, usize),
        load: &dyn Fn(&mut Cursor, ValueId, ValueId) -> ValueId,
    ) {
        for step in 0..TILE_K * width / THREADS {
            let e = c.affine(&[(self.t, 1)], (step * THREADS) as i64);
            let (k, x) = if along_k {
                let s = c.idx(TILE_K as i64);
                (c.value_op("arith.remui", &[e, s], Type::Index), c.value_op("arith.divui", &[e, s], Type::Index))
            } else {
                let s = c.idx(width as i64);
                (c.value_op("arith.divui", &[e, s], Type::Index), c.value_op("arith.remui", &[e, s], Type::Index))
            };
            let gx = c.affine(&[(x0, 1), (x, 1)], 0);
            let gk = c.affine(&[(self.k0, 1), (k, 1)], 0);
            let inside = both(c, (gx, x_end), (gk, self.g.k));
            // Clamped into the matrix, so the load is always in bounds; the value is then
            // replaced by 0 outside.
            let (last_x, last_k) = (c.idx(x_end as i64 - 1), c.idx(self.g.k as i64 - 1));
            let cx = c.value_op("arith.minui", &[gx, last_x], Type::Index);
            let ck = c.value_op("arith.minui", &[gk, last_k], Type::Index);
            let v = load(c, cx, ck);
            let zero = c.const_float(0.0, Type::f32());
            let v = c.value_op("arith.select", &[inside, v, zero], Type::f32());
            c.store(v, tile, &[k, x]);
        }
    }
}

/// `sums[r][c] += a[k][ty + 16 r] * b[k][tx + 16 c]` over the slice's k, unrolled: each k's
/// shared-memory addresses are then the thread's own plus a constant.
fn multiply_slices(
    c: &mut Cursor,
    (a_tile, b_tile): (ValueId, ValueId),
    (ty, tx): (ValueId, ValueId),
    sums: &[ValueId],
) -> Vec<ValueId> {
    let rows: Vec<ValueId> = (0..PER_THREAD).map(|r| c.affine(&[(ty, 1)], (SIDE * r) as i64)).collect();
    let columns: Vec<ValueId> = (0..PER_THREAD).map(|col| c.affine(&[(tx, 1)], (SIDE * col) as i64)).collect();
    let mut sums = sums.to_vec();
    for k in 0..TILE_K {
        let k = c.idx(k as i64);
        let a: Vec<ValueId> = rows.iter().map(|&i| c.load(a_tile, &[k, i])).collect();
        let b: Vec<ValueId> = columns.iter().map(|&j| c.load(b_tile, &[k, j])).collect();
        for (r, &av) in a.iter().enumerate() {
            for (col, &bv) in b.iter().enumerate() {
                let at = r * PER_THREAD + col;
                sums[at] = c.fmuladd(av, bv, sums[at]);
            }
        }
    }
    sums
}
