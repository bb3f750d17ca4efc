//! GEMMs on GPUs tiled through shared memory: the kernel-level lowering of a large f32 matmul
//! (and of a convolution as an implicit GEMM) for `--target=nvptx64`.
//!
//! The output is cut into [`TILE_M`] x [`TILE_N`] tiles, one GPU block each: a parallel loop
//! over the tiles marked [`BLOCKS_ATTR`], whose body stages a [`TILE_K`]-deep slice of A and of B
//! in the block's shared memory and holds a parallel loop over the block's [`THREADS`] threads
//! marked [`THREADS_ATTR`] (`convert-parallel-to-gpu` maps the two to blocks and threads):
//! ```text
//! scf.parallel (%batch, %ti, %tj) {xcc.gpu_blocks} {
//!   %shared = gpu.dynamic_shared_memory : memref<8320xi8, #gpu.address_space<workgroup>>
//!   %a = memref.view %shared[0][] ... : memref<16x65xf32, #gpu...>     // a[k][i], a row padded
//!   %b = memref.view %shared[4160][] ... : memref<16x65xf32, #gpu...>  // b[k][j]
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
//! With `--tf32` the products are on tensor cores: each warp multiplies 16 x 8 by 8 x 16
//! fragments of the staged slices (`gpu.subgroup_mma_compute`, TF32: A's and B's elements
//! rounded to 10 bits of mantissa, sums in f32), and the warps' sums reach the threads that
//! finish the outputs through shared memory.
//!
//! On a CPU the two loops would be serial; this lowering is for GPUs only.

use super::Cursor;
use crate::builder::{Extent, LoopBuilder};
use crate::conversion::parallel_to_gpu::{BLOCKS_ATTR, THREADS_ATTR};
use xcc_ir::dialects::gpu::{MmaMatrix, MmaOperand, WARP};
use xcc_ir::types::{Layout, MemRefType};
use xcc_ir::{Attribute, Module, OpId, OpSpec, Type, ValueId};

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

// The layout above: a 16 x 16 block of threads, 4 x 4 outputs each, covers the tile, and each
// thread copies a whole number of elements of each slice.
const _: () = assert!(THREADS == SIDE * SIDE && TILE_M == SIDE * PER_THREAD && TILE_N == TILE_M);
const _: () = assert!((TILE_K * TILE_M).is_multiple_of(THREADS));

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
    /// Whether the products are on tensor cores, in TF32 (`--tf32`).
    pub tensor_cores: bool,
}

impl Gemm {
    pub fn tiles(&self) -> usize {
        self.batch.iter().product::<usize>() * self.m.div_ceil(TILE_M) * self.n.div_ceil(TILE_N)
    }

    /// Whether the tiled lowering pays for this GEMM: `min_tiles` tiles at least (the target's
    /// [`xcc_targets::GpuKernelChoice::min_gemm_tiles`]) and rows and columns enough to fill half
    /// a tile, which a depthwise convolution's one row does not; `forced` tiles every GEMM
    /// (`--gpu-gemm=tiled`, which tests use to run small ones through it).
    pub fn worth_tiling(&self, forced: bool, min_tiles: usize) -> bool {
        let large = self.tiles() >= min_tiles && self.k >= 4 * TILE_K && self.m >= TILE_M / 2 && self.n >= TILE_N / 2;
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
        let shared = SharedTiles::new(c, g.tensor_cores);
        let row0 = c.affine(&[(ti, TILE_M as i64)], 0);
        let col0 = c.affine(&[(tj, TILE_N as i64)], 0);
        marked_parallel(c, &[Extent::Fixed(THREADS)], THREADS_ATTR, &mut |c, t| {
            let side = c.idx(SIDE as i64);
            let ty = c.value_op("arith.divui", &[t[0], side], Type::Index);
            let tx = c.value_op("arith.remui", &[t[0], side], Type::Index);
            let at = Tile { g, bivs, t: t[0], row0, col0 };
            let sums = if g.tensor_cores {
                tensor_core_sums(c, &at, &shared, (ty, tx), (load_a, load_b))
            } else {
                fma_sums(c, &at, &shared, (ty, tx), (load_a, load_b))
            };
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

/// The thread's 4 x 4 sums by FMAs: per 16-deep step of K, each thread multiplies its rows of
/// A's slice by its columns of B's.
fn fma_sums(
    c: &mut Cursor,
    at: &Tile,
    shared: &SharedTiles,
    (ty, tx): (ValueId, ValueId),
    loads: (Load, Load),
) -> Vec<ValueId> {
    let zero = c.const_float(0.0, Type::f32());
    let inits = vec![zero; PER_THREAD * PER_THREAD];
    over_slices(c, at, shared, loads, &inits, &mut |c, sums| multiply_slices(c, (shared.a, shared.b), (ty, tx), sums))
}

/// The K loop, 16 deep a step, carrying `inits`: the block stages the slices of A and B in shared
/// memory (a barrier), `multiply` reads them, and a barrier lets the next step overwrite them.
fn over_slices(
    c: &mut Cursor,
    at: &Tile,
    shared: &SharedTiles,
    (load_a, load_b): (Load, Load),
    inits: &[ValueId],
    multiply: &mut dyn FnMut(&mut Cursor, &[ValueId]) -> Vec<ValueId>,
) -> Vec<ValueId> {
    let (first, depth) = (c.idx(0), c.idx(at.g.k as i64));
    c.for_accs_step(first, depth, TILE_K, inits, |c, k0, carried| {
        at.copy_a(c, k0, shared.a, load_a);
        at.copy_b(c, k0, shared.b, load_b);
        barrier(c);
        let next = multiply(c, carried);
        barrier(c);
        next
    })
}

/// The thread's 4 x 4 sums by tensor cores (TF32): each of the block's 8 warps holds a 16 x 32
/// part of the tile as two 16 x 16 fragments (warp `w`: rows `16 (w / 2)`, columns
/// `32 (w % 2)`); per 16-deep step of K, the block stages the slices and each warp multiplies
/// two 8-deep fragments of them. The fragments then go through shared memory (the C tile, over
/// the slices) to the threads that finish the outputs as [`fma_sums`]'s would.
fn tensor_core_sums(
    c: &mut Cursor,
    at: &Tile,
    shared: &SharedTiles,
    (ty, tx): (ValueId, ValueId),
    loads: (Load, Load),
) -> Vec<ValueId> {
    let a_type = MmaMatrix::new(MmaOperand::A).to_type();
    let b_type = MmaMatrix::new(MmaOperand::B).to_type();
    let c_type = MmaMatrix::new(MmaOperand::C).to_type();
    let warp = c.idx(WARP as i64);
    let w = c.value_op("arith.divui", &[at.t, warp], Type::Index);
    let two = c.idx(2);
    let wm = c.value_op("arith.divui", &[w, two], Type::Index);
    let wn = c.value_op("arith.remui", &[w, two], Type::Index);
    let row = c.affine(&[(wm, MmaMatrix::M as i64)], 0);
    let columns: Vec<ValueId> = (0..WARP_FRAGMENTS)
        .map(|f| c.affine(&[(wn, (WARP_FRAGMENTS * MmaMatrix::N) as i64)], (f * MmaMatrix::N) as i64))
        .collect();
    let zero = c.const_float(0.0, Type::f32());
    let init = c.value_op("gpu.subgroup_mma_constant_matrix", &[zero], c_type.clone());
    let inits = vec![init; WARP_FRAGMENTS as usize];
    let ld = shared.row as i64;
    let fragments = over_slices(c, at, shared, loads, &inits, &mut |c, accs| {
        let mut accs = accs.to_vec();
        for kk in (0..TILE_K as u64).step_by(MmaMatrix::K as usize) {
            let kk = c.idx(kk as i64);
            // A's slice is a[k][i]: a fragment's (i, k) is read transposed.
            let a = mma_load(c, shared.a, [kk, row], ld, true, a_type.clone());
            for (acc, &column) in accs.iter_mut().zip(&columns) {
                let b = mma_load(c, shared.b, [kk, column], ld, false, b_type.clone());
                *acc = c.value_op("gpu.subgroup_mma_compute", &[a, b, *acc], c_type.clone());
                let op = c.m.defining_op(*acc).expect("the product");
                c.m.set_attr(op, "a_transpose", Attribute::Unit);
            }
        }
        accs
    });
    let c_tile = shared.c.expect("the C tile of a tensor-core GEMM");
    for (&fragment, &column) in fragments.iter().zip(&columns) {
        let spec = OpSpec::new("gpu.subgroup_mma_store_matrix", c.span)
            .operands([fragment, c_tile, row, column])
            .attr("leadDimension", Attribute::int(ld as i128, Type::Index));
        c.op(spec);
    }
    barrier(c);
    let mut sums = Vec::new();
    for rr in 0..PER_THREAD {
        let i = c.affine(&[(ty, 1)], (SIDE * rr) as i64);
        for cc in 0..PER_THREAD {
            let j = c.affine(&[(tx, 1)], (SIDE * cc) as i64);
            sums.push(c.load(c_tile, &[i, j]));
        }
    }
    // A block with more tiles than the grid has blocks goes on to its next tile, whose slices
    // lie over the C tile: every thread reads its sums first.
    barrier(c);
    sums
}

/// The C fragments of a warp, side by side along N.
const WARP_FRAGMENTS: u64 = TILE_N as u64 / 2 / MmaMatrix::N;

// 8 warps of 16 x 32 cover the 64 x 64 tile, and two 8-deep fragments a slice.
const _: () = assert!(
    (THREADS as u64 / WARP) * MmaMatrix::M * WARP_FRAGMENTS * MmaMatrix::N == (TILE_M * TILE_N) as u64
        && TILE_M as u64 == 4 * MmaMatrix::M
        && (TILE_K as u64).is_multiple_of(MmaMatrix::K)
);

/// A tensor-core row of the slices and the C tile, in bytes: fragments start every 8 rows of a
/// slice (K), every 16 rows of the C tile and every 16 columns, all 32-byte aligned (`wmma`'s
/// need) from the shared memory's start (aligned to 128), and B's slice starts 16 rows in.
const TENSOR_CORE_ROW_BYTES: usize = 4 * (TILE_M + 4);
const _: () = assert!(
    (MmaMatrix::K as usize * TENSOR_CORE_ROW_BYTES).is_multiple_of(32)
        && (4 * MmaMatrix::N as usize).is_multiple_of(32)
        && (TILE_K * TENSOR_CORE_ROW_BYTES).is_multiple_of(32)
);

/// `gpu.subgroup_mma_load_matrix %tile[at] {leadDimension = ld[, transpose]}`
fn mma_load(c: &mut Cursor, tile: ValueId, at: [ValueId; 2], ld: i64, transpose: bool, t: Type) -> ValueId {
    let v = c.value_op("gpu.subgroup_mma_load_matrix", &[tile, at[0], at[1]], t);
    let op = c.m.defining_op(v).expect("the load");
    c.m.set_attr(op, "leadDimension", Attribute::int(ld as i128, Type::Index));
    if transpose {
        c.m.set_attr(op, "transpose", Attribute::Unit);
    }
    v
}

fn barrier(c: &mut Cursor) {
    c.op(OpSpec::new("gpu.barrier", c.span));
}

/// `scf.parallel` over `shape` with `attr` set on it.
fn marked_parallel(c: &mut Cursor, shape: &[Extent], attr: &str, body: &mut dyn FnMut(&mut Cursor, &[ValueId])) {
    c.parallel_over(shape, body);
    let op = *c.m.blocks[c.block].ops.last().expect("the parallel loop");
    c.m.set_attr(op, attr, Attribute::Unit);
}

/// The block's shared memory: the slices of A and B, `[TILE_K][row]` of f32 each (the tile's
/// `TILE_M` columns used), and for tensor cores the C tile, `[TILE_M][row]` over them.
struct SharedTiles {
    a: ValueId,
    b: ValueId,
    c: Option<ValueId>,
    /// A row's length: one word past the tile, so that the threads of a warp copying a column
    /// of A (neighbours along K) store to different banks (at most two to a bank); for tensor
    /// cores four words past (`wmma`'s stride is a multiple of 16 bytes, and each fragment's
    /// first element 32-byte aligned: see the assertion below).
    row: usize,
}

impl SharedTiles {
    fn new(c: &mut Cursor, tensor_cores: bool) -> SharedTiles {
        let row = if tensor_cores { TENSOR_CORE_ROW_BYTES / 4 } else { TILE_M + 1 };
        let slice = 4 * TILE_K * row;
        let c_tile = 4 * TILE_M * row;
        let bytes = if tensor_cores { (2 * slice).max(c_tile) } else { 2 * slice };
        let shared = c.value_op("gpu.dynamic_shared_memory", &[], shared_memref(vec![Some(bytes as u64)], Type::i8()));
        let mut view = |at: usize, rows: usize| {
            let shift = c.idx(at as i64);
            let t = shared_memref(vec![Some(rows as u64), Some(row as u64)], Type::f32());
            c.value_op("memref.view", &[shared, shift], t)
        };
        let (a, b) = (view(0, TILE_K), view(slice, TILE_K));
        let c_tile = tensor_cores.then(|| view(0, TILE_M));
        SharedTiles { a, b, c: c_tile, row }
    }
}

/// Whether `op` is in its function's body, not in a loop or a conditional: only there does a
/// parallel loop become a kernel of its own, which the tiled loops need (a kernel run by one
/// thread would have no block to share memory with).
pub fn in_function_body(m: &Module, op: OpId) -> bool {
    let parent = m.ops[op].parent.and_then(|b| m.parent_op_of_block(b));
    parent.is_some_and(|p| m.ops[p].name == "func.func")
}

/// A buffer in the block's shared memory (`#gpu.address_space<workgroup>`).
fn shared_memref(shape: Vec<Option<u64>>, elem: Type) -> Type {
    let memory_space = Some(Box::new(xcc_ir::dialects::gpu::workgroup_space()));
    Type::MemRef(MemRefType { shape, elem: Box::new(elem), layout: Layout::Identity, memory_space })
}

/// `a < a_end && b < b_end`.
fn both(c: &mut Cursor, (a, a_end): (ValueId, usize), (b, b_end): (ValueId, usize)) -> ValueId {
    let (ae, be) = (c.idx(a_end as i64), c.idx(b_end as i64));
    let x = c.cmpi("ult", a, ae);
    let y = c.cmpi("ult", b, be);
    c.value_op("arith.andi", &[x, y], Type::i1())
}

/// A block's tile of the output and one of its threads: where the thread copies slices of A and
/// B from.
#[derive(Clone, Copy)]
struct Tile<'a> {
    g: &'a Gemm,
    bivs: &'a [ValueId],
    t: ValueId,
    row0: ValueId,
    col0: ValueId,
}

impl Tile<'_> {
    /// `a[k][i] = A(row0 + i, k0 + k)`, 0 past the matrix. Neighbouring threads take
    /// neighbouring elements in memory (along K or along M, as A is laid out).
    fn copy_a(&self, c: &mut Cursor, k0: ValueId, a_tile: ValueId, load: Load) {
        let (x, end) = (self.row0, self.g.m);
        self.copy(c, (k0, a_tile), TILE_M, self.g.a_along_k, (x, end), &|c, i, k| load(c, self.bivs, i, k));
    }

    /// `b[k][j] = B(k0 + k, col0 + j)`, 0 past the matrix.
    fn copy_b(&self, c: &mut Cursor, k0: ValueId, b_tile: ValueId, load: Load) {
        let (x, end) = (self.col0, self.g.n);
        self.copy(c, (k0, b_tile), TILE_N, !self.g.b_along_n, (x, end), &|c, j, k| load(c, self.bivs, k, j));
    }

    /// Fills `tile[k][x]` (x < `width`) from `load(x0 + x, k0 + k)`, each thread
    /// `TILE_K * width / THREADS` elements; `along_k`: thread `t`'s neighbours take the next k.
    fn copy(
        &self,
        c: &mut Cursor,
        (k0, tile): (ValueId, ValueId),
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
            let gk = c.affine(&[(k0, 1), (k, 1)], 0);
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
