//! `kernel.matmul` to loops, and the register-tiled GEMM micro-kernel behind it and behind
//! `kernel.conv`.
//!
//! `C[m, n] = epilogue(sum_k A[m, k] * B[k, n])`. The micro-kernel computes a tile of `mr` rows
//! by one or more vectors of `NR` columns, held in vector accumulators (`vector<NRxf32>`) across
//! the whole k loop: per k, one vector load of B's row segment per vector, `mr` scalar loads of A
//! broadcast to vectors, and an FMA per accumulator. The tiling follows the CPU, from the
//! target's table (`xcc_targets`, recorded on the op as `register_tiles`): on x86-64 8 x 32 with
//! AVX-512, else 6 x 16; the choice is a branch on `xcc_cpu_level()` that `cpu-dispatch` folds
//! in each CPU's copy of the code. Tiles
//! are independent (one parallel loop over column and row tiles); the rows that do not fill a
//! tile make one shorter tile; when the column count is not a multiple of `NR`, the last tile
//! overlaps the previous one (B in rows) or is a narrow tile of the zero-padded panel (B in
//! panels); fewer than `NR` columns in rows use dot products, and so do, with AVX-512, up to
//! three columns past a multiple of a vector (a 7 x 7 plane's 49), vectorized along k
//! ([`dot_columns`]). It needs f32 elements, static K and N, and B's rows contiguous or packed. Other f32 matmuls without transposes (K or N known
//! only at run time, alpha or beta, a full bias) go row by row with blocks of vector
//! accumulators ([`lower_rows`]); the rest (other element types, a transposed operand) are a
//! parallel loop over the output with a dot product inside. On GPUs, large f32 matmuls of static
//! shape are tiled through shared memory ([`super::gpu_gemm`]), the others that parallel loop.

use super::gpu_strategy::GpuStrategy;
use super::Cursor;
use crate::builder::{fixed, Extent, LoopBuilder};
use xcc_ir::dialects::kernel::{Epilogue, EpilogueOperands};
use xcc_ir::types::FloatKind;
use xcc_ir::{Attribute, Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};
use xcc_targets::LevelTiles;

pub use xcc_ir::builder::lanes::NR;

/// A matrix inside a flat buffer: element (r, c) is at `off + r * rs + c * cs`; the row stride
/// may be known only at run time (a convolution's output plane).
#[derive(Clone, Copy)]
pub struct Mat {
    pub buf: ValueId,
    pub off: ValueId,
    pub rs: Extent,
    pub cs: usize,
}

#[derive(Clone, Copy)]
pub enum Bias {
    None,
    /// One value per row, at `buf[off + row]`.
    Rows(ValueId, ValueId),
    /// One value per column, at `buf[off + col]`.
    Cols(ValueId, ValueId),
}

/// What the micro-kernel applies to each result before storing it.
#[derive(Clone, Copy)]
pub struct TileEpilogue {
    pub bias: Bias,
    /// A tensor laid out like C, added before the activation.
    pub residual: Option<Mat>,
    pub act: Activation,
}

/// What an epilogue applies last: a clamp (ReLU, ReLU6), then a function of one element (its
/// `epilogue_map`: SiLU, GELU...) whose body is copied in, on scalars or vectors.
#[derive(Clone, Copy, Debug, Default)]
pub struct Activation {
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// The `func.func` of the map.
    pub map: Option<OpId>,
}

impl Activation {
    pub fn of(m: &Module, ep: &Epilogue) -> Activation {
        let map = ep.map.as_deref().and_then(|name| m.lookup_symbol(name));
        Activation { min: ep.act_min, max: ep.act_max, map }
    }

    /// None: results are stored as they are.
    pub fn is_none(&self) -> bool {
        self.min.is_none() && self.max.is_none() && self.map.is_none()
    }
}

fn vec_ty() -> Type {
    super::lanes::of(Type::f32())
}

/// Clamps to the activation's bounds (scalar or vector).
pub fn apply_activation<B: LoopBuilder>(b: &mut B, v: ValueId, act: Activation) -> ValueId {
    let t = b.ty(v);
    let mut r = v;
    for (bound, op) in [(act.min, "arith.maximumf"), (act.max, "arith.minimumf")] {
        if let Some(x) = bound {
            let c = if matches!(t, Type::Vector { .. }) {
                b.splat_const(x, t.clone())
            } else {
                b.const_float(x, t.clone())
            };
            r = b.value_op(op, &[r, c], t.clone());
        }
    }
    match act.map {
        Some(func) => apply_map(b, r, func),
        None => r,
    }
}

/// The body of the one-element function `func` copied in on `v` (a scalar or a vector: each
/// operation then works on vectors of as many lanes, its constants broadcast).
fn apply_map<B: LoopBuilder>(b: &mut B, v: ValueId, func: OpId) -> ValueId {
    apply_map_all(b, &[v], func)[0]
}

/// [`apply_activation`] on several values of one type, the map's operations interleaved across
/// them (each operation for every value before the next): a tile's vectors are independent
/// chains, which the CPU then overlaps instead of waiting out one chain's latency after another.
pub fn apply_activation_all<B: LoopBuilder>(b: &mut B, vs: &[ValueId], act: Activation) -> Vec<ValueId> {
    let clamp = Activation { map: None, ..act };
    let clamped: Vec<ValueId> = vs.iter().map(|&v| apply_activation(b, v, clamp)).collect();
    match act.map {
        Some(func) => apply_map_all(b, &clamped, func),
        None => clamped,
    }
}

/// [`apply_map`] on every value of `vs` (all of one type), operation by operation.
fn apply_map_all<B: LoopBuilder>(b: &mut B, vs: &[ValueId], func: OpId) -> Vec<ValueId> {
    let calls: Vec<Vec<ValueId>> = vs.iter().map(|&v| vec![v]).collect();
    apply_function_all(b, &calls, func)
}

/// The body of `func` (arith and math, one result) copied in once per call, on that call's
/// arguments: scalars, or vectors of one shape in every call (each operation then works on
/// vectors of as many lanes, its constants broadcast once for all calls). The calls' operations
/// are interleaved, each for every call before the next.
pub(super) fn apply_function_all<B: LoopBuilder>(b: &mut B, calls: &[Vec<ValueId>], func: OpId) -> Vec<ValueId> {
    let Some(&first) = calls.first().and_then(|args| args.first()) else { return Vec::new() };
    let lanes = match b.ty(first) {
        Type::Vector { shape, .. } => Some(shape.clone()),
        _ => None,
    };
    let widen = |t: &Type| match &lanes {
        Some(shape) => Type::Vector { shape: shape.clone(), elem: Box::new(t.clone()) },
        None => t.clone(),
    };
    let m = b.module();
    let block = m.regions[m.ops[func].regions[0]].blocks[0];
    let params = m.blocks[block].args.clone();
    // Per call, what each of the function's values became.
    let mut values: Vec<std::collections::HashMap<ValueId, ValueId>> =
        calls.iter().map(|args| params.iter().copied().zip(args.iter().copied()).collect()).collect();
    for op in m.blocks[block].ops.clone() {
        let m = b.module();
        let (name, operands, results) = (m.ops[op].name.clone(), m.ops[op].operands.clone(), m.ops[op].results.clone());
        let attrs = m.ops[op].attrs.clone();
        if name == "func.return" {
            return values.iter().map(|map| map[&operands[0]]).collect();
        }
        let result_types: Vec<Type> = results.iter().map(|&r| b.ty(r)).collect();
        if name == "arith.constant" {
            // One constant (broadcast once) serves every value.
            let mut spec = OpSpec::new(&name, Span::UNKNOWN).results(result_types.clone());
            for (k, a) in attrs {
                spec = spec.attr(&k, a);
            }
            let c = b.op(spec);
            let c = b.module().result(c, 0);
            let c = match lanes {
                Some(_) => b.value_op("vector.broadcast", &[c], widen(&result_types[0])),
                None => c,
            };
            values.iter_mut().for_each(|map| {
                map.insert(results[0], c);
            });
            continue;
        }
        for map in values.iter_mut() {
            let mut spec = OpSpec::new(&name, Span::UNKNOWN).operands(operands.iter().map(|o| map[o]));
            for (k, a) in attrs.clone() {
                spec = spec.attr(&k, a);
            }
            let copy = b.op(spec.results(result_types.iter().map(&widen)));
            for (i, &r) in results.iter().enumerate() {
                let new = b.module().result(copy, i);
                map.insert(r, new);
            }
        }
    }
    unreachable!("a verified epilogue_map ends in func.return")
}

fn index_of<B: LoopBuilder>(b: &mut B, base: ValueId, terms: &[(ValueId, usize)], constant: usize) -> ValueId {
    let terms: Vec<(ValueId, Extent)> = terms.iter().map(|&(v, s)| (v, Extent::Fixed(s))).collect();
    index_over(b, base, &terms, constant)
}

/// [`index_of`] with strides that may be known only at run time.
fn index_over<B: LoopBuilder>(b: &mut B, base: ValueId, terms: &[(ValueId, Extent)], constant: usize) -> ValueId {
    let mut acc = base;
    if constant != 0 {
        let c = b.idx(constant as i64);
        acc = b.value_op("arith.addi", &[acc, c], Type::Index);
    }
    for &(v, s) in terms {
        let p = match s {
            Extent::Fixed(1) => v,
            Extent::Fixed(s) => {
                let sv = b.idx(s as i64);
                b.value_op("arith.muli", &[v, sv], Type::Index)
            }
            Extent::Value(sv) => b.value_op("arith.muli", &[v, sv], Type::Index),
        };
        acc = b.value_op("arith.addi", &[acc, p], Type::Index);
    }
    acc
}

/// How the micro-kernel finds B.
#[derive(Clone, Copy)]
pub enum BOperand {
    /// A `k x n` matrix with contiguous rows.
    Rows(Mat),
    /// Column panels (`kernel-pack-weights`): element (kk, j) at
    /// `off + (j / NR) * k * NR + kk * NR + j % NR`.
    Panels { buf: ValueId, off: ValueId },
}

impl BOperand {
    fn buf(&self) -> ValueId {
        match *self {
            BOperand::Rows(m) => m.buf,
            BOperand::Panels { buf, .. } => buf,
        }
    }

    /// Where row 0 of the NR columns from `j0` starts, and the distance between rows.
    fn tile<B: LoopBuilder>(&self, b: &mut B, j0: ValueId, k: usize) -> (ValueId, Extent) {
        match *self {
            BOperand::Rows(m) => (index_of(b, m.off, &[(j0, 1)], 0), m.rs),
            BOperand::Panels { off, .. } => (index_of(b, off, &[(j0, k)], 0), Extent::Fixed(NR)),
        }
    }

    /// The index of element (kk, j) for a column `j` known at compile time.
    fn element<B: LoopBuilder>(&self, b: &mut B, kk: ValueId, j: usize, k: usize) -> ValueId {
        match *self {
            BOperand::Rows(m) => index_over(b, m.off, &[(kk, m.rs)], j * m.cs),
            BOperand::Panels { off, .. } => index_of(b, off, &[(kk, NR)], (j / NR) * k * NR + j % NR),
        }
    }
}

/// `C = epilogue(A x B)` for an `m x k` A and `k x n` B, all f32.
///
/// Full tiles first, as one parallel loop over (column tile, row tile) with the column outer:
/// the slices a thread takes in turn share a column tile, whose k x NR strip of B (per vector)
/// stays in cache while the rows of A stream past. Then the ragged columns, then the rows left
/// over.
#[allow(clippy::too_many_arguments)]
pub fn gemm<B: LoopBuilder>(
    b: &mut B,
    tiles: &[LevelTiles],
    m: usize,
    n: usize,
    k: usize,
    a: Mat,
    bm: BOperand,
    c: Mat,
    ep: TileEpilogue,
) {
    let g = Gemm { k, a, bm, c, ep };
    for_the_cpu(b, tiles, &|e, tiling| gemm_tiled(e, tiling, (m, n), &g));
}

/// [`gemm`] with the tiles of one CPU.
fn gemm_tiled<B: LoopBuilder>(b: &mut B, tiling: Tiling, (m, n): (usize, usize), g: &Gemm) {
    let mr = tiling.mr;
    if let Some(dots) = dot_tail(n, tiling, g) {
        let first = n - dots;
        gemm_tiled(b, tiling, (m, first), g);
        let m_full = m / mr * mr;
        if m_full > 0 {
            b.parallel(&[m_full / mr], &mut |e, t| {
                let i0 = e.affine(&[(t[0], mr as i64)], 0);
                dot_columns(e, i0, mr, (first, dots), g);
            });
        }
        if m > m_full {
            let i0 = b.idx(m_full as i64);
            dot_columns(b, i0, m - m_full, (first, dots), g);
        }
        return;
    }
    let (m_full, n_full) = (m / mr * mr, n / NR * NR);
    let tail = masked_tail(n, tiling).filter(|_| m_full > 0);
    if let Some((first, vectors)) = tail {
        let width = tiling.vectors * NR;
        if first > 0 {
            full_tiles(b, (mr, m_full), (Extent::Fixed(0), Extent::Fixed(first / width)), tiling.vectors, g);
        }
        b.parallel(&[m_full / mr], &mut |e, t| {
            let i0 = e.affine(&[(t[0], mr as i64)], 0);
            let j0 = e.idx(first as i64);
            masked_wide_tile(e, (i0, j0), (mr, vectors), n - first, g);
        });
    } else if m_full > 0 && n_full > 0 {
        full_tiles_of(b, tiling, m_full, n_full, g);
    }
    if m_full > 0 && n > n_full && tail.is_none() {
        b.parallel(&[m_full / mr], &mut |e, t| {
            let i0 = e.affine(&[(t[0], mr as i64)], 0);
            ragged_columns(e, i0, mr, n, g);
        });
    }
    let rest = m - m_full;
    if rest > 0 && n_full > 0 {
        rest_rows(b, (m_full, rest), n_full, g);
    }
    if rest > 0 && n > n_full {
        let i0 = b.idx(m_full as i64);
        ragged_columns(b, i0, rest, n, g);
    }
}

/// How many of the last columns go as dot products ([`dot_columns`]) rather than in a vector
/// tile: with AVX-512's wide tiles, up to [`MAX_DOT_COLUMNS`] columns past a multiple of a vector
/// (a 7 x 7 plane's 49 = 48 + 1), where the tile would compute 16 columns for them; B in rows
/// and A's rows contiguous, as a convolution's.
fn dot_tail(n: usize, tiling: Tiling, g: &Gemm) -> Option<usize> {
    let dots = n % NR;
    let fits = tiling.vectors >= 2 && (1..=MAX_DOT_COLUMNS).contains(&dots) && n - dots >= tiling.vectors * NR;
    (fits && g.k >= NR && g.a.cs == 1 && matches!(g.bm, BOperand::Rows(_))).then_some(dots)
}

/// The most columns [`dot_tail`] takes as dot products: each costs a gathered vector of B and a
/// row of A per 16 values of k, so past a few the masked vector is cheaper.
const MAX_DOT_COLUMNS: usize = 3;

/// Columns `[first, first + count)` of the `rows` rows from `i0`, as dot products along k in
/// vectors: per `NR` values of k, each column's B values gathered into a vector and one load of
/// each row of A, an FMA per (row, column); then the lanes summed, the k past the last whole
/// vector added one at a time, and the epilogue.
fn dot_columns<B: LoopBuilder>(e: &mut B, i0: ValueId, rows: usize, (first, count): (usize, usize), g: &Gemm) {
    let (k, a, bm) = (g.k, g.a, g.bm);
    let vt = vec_ty();
    let k_vec = k / NR * NR;
    let zero = e.splat_const(0.0, vt.clone());
    let a_rows: Vec<ValueId> = (0..rows)
        .map(|r| {
            let row = index_of(e, i0, &[], r);
            index_over(e, a.off, &[(row, a.rs)], 0)
        })
        .collect();
    let (lo, hi) = (e.idx(0), e.idx(k_vec as i64));
    let sums = e.for_accs_step(lo, hi, NR, &vec![zero; rows * count], |e, kk, accs| {
        let columns: Vec<ValueId> = (0..count).map(|c| gathered_column(e, bm, kk, first + c, k)).collect();
        let mut next = accs.to_vec();
        for (r, &a_row) in a_rows.iter().enumerate() {
            let ai = index_of(e, a_row, &[(kk, 1)], 0);
            let av = e.value_op("vector.load", &[a.buf, ai], vt.clone());
            for (c, &bv) in columns.iter().enumerate() {
                next[r * count + c] = e.fmuladd(av, bv, next[r * count + c]);
            }
        }
        next
    });
    for (r, &a_row) in a_rows.iter().enumerate() {
        for c in 0..count {
            let lanes = sums[r * count + c];
            let kind = Attribute::Opaque("#vector.kind<add>".into());
            let spec = OpSpec::new("vector.reduction", Span::UNKNOWN).operands([lanes]).results([Type::f32()]);
            let folded = e.op(spec.attr("kind", kind));
            let folded = e.module().result(folded, 0);
            let dot = e.for_acc(k_vec, k, folded, |e, kk, acc| {
                let ai = index_of(e, a_row, &[(kk, 1)], 0);
                let bi = bm.element(e, kk, first + c, k);
                let (av, bv) = (e.load(a.buf, &[ai]), e.load(bm.buf(), &[bi]));
                e.fmuladd(av, bv, acc)
            });
            let (row, col) = (index_of(e, i0, &[], r), e.idx((first + c) as i64));
            store_element(e, dot, row, col, g.c, g.ep);
        }
    }
}

/// Column `j` of B from row `kk` on, `NR` values gathered into a vector.
fn gathered_column<B: LoopBuilder>(e: &mut B, bm: BOperand, kk: ValueId, j: usize, k: usize) -> ValueId {
    let mut v = e.splat_const(0.0, vec_ty());
    for lane in 0..NR {
        let row = index_of(e, kk, &[], lane);
        let bi = bm.element(e, row, j, k);
        let x = e.load(bm.buf(), &[bi]);
        let at = e.idx(lane as i64);
        v = e.value_op("vector.insertelement", &[x, v, at], vec_ty());
    }
    v
}

/// The `rest` rows left over from `first` (fewer than a row tile: all of a GEMV's one row) over
/// the first `n_full` columns, in tiles `rest` rows by several vectors: each accumulator is a
/// chain of dependent FMAs as long as k, so a tile of one row and one vector would wait out the
/// FMA's latency at every step; `8 / rest` accumulators (at most four vectors) keep the FMA units
/// busy. The columns past the wide tiles go one vector at a time.
fn rest_rows<B: LoopBuilder>(b: &mut B, (first, rest): (usize, usize), n_full: usize, g: &Gemm) {
    let vectors = (8 / rest).clamp(1, 4);
    let width = vectors * NR;
    let wide = n_full / width * width;
    let tiles = |b: &mut B, j_lo: usize, count: usize, vectors: usize| {
        b.parallel(&[count], &mut |e, t| {
            let i0 = e.idx(first as i64);
            let j0 = e.affine(&[(t[0], (vectors * NR) as i64)], j_lo as i64);
            let accs = tile_vector_products(e, i0, j0, rest, vectors, g);
            store_vectors(e, &accs, (i0, j0), vectors, None, g);
        });
    };
    if wide > 0 {
        tiles(b, 0, wide / width, vectors);
    }
    if n_full > wide {
        tiles(b, wide, (n_full - wide) / NR, 1);
    }
}

/// A GEMM's register tile: its full tiles are `mr` rows by `vectors` vectors of `NR` lanes.
#[derive(Clone, Copy)]
struct Tiling {
    mr: usize,
    vectors: usize,
}

impl Tiling {
    fn of(t: &LevelTiles) -> Tiling {
        Tiling { mr: t.rows, vectors: t.vectors }
    }
}

/// The tile of CPUs of every level (the target's table has one: `min_level` 0).
fn baseline(tiles: &[LevelTiles]) -> Tiling {
    tiles.iter().find(|t| t.min_level == 0).map_or(Tiling { mr: 6, vectors: 1 }, Tiling::of)
}

/// `body` with the tiling for the CPU the code runs on, from the target's table (`tiles`, whose
/// `register_tiles` the op records): a branch on [`LoopBuilder::cpu_level`] per level above the
/// baseline, which `cpu-dispatch` folds in each CPU's copy of the code.
fn for_the_cpu<B: LoopBuilder>(b: &mut B, tiles: &[LevelTiles], body: &dyn Fn(&mut B, Tiling)) {
    let mut above: Vec<&LevelTiles> = tiles.iter().filter(|t| t.min_level > 0).collect();
    above.sort_by_key(|t| std::cmp::Reverse(t.min_level));
    for_levels(b, &above, baseline(tiles), body);
}

fn for_levels<B: LoopBuilder>(b: &mut B, above: &[&LevelTiles], base: Tiling, body: &dyn Fn(&mut B, Tiling)) {
    let Some((first, rest)) = above.split_first() else { return body(b, base) };
    let level = b.cpu_level();
    let min = b.const_int(first.min_level.into(), Type::i32());
    let at_least = b.cmpi("sge", level, min);
    let this = |e: &mut B| {
        body(e, Tiling::of(first));
        vec![]
    };
    let below = |e: &mut B| {
        for_levels(e, rest, base, body);
        vec![]
    };
    b.if_else(at_least, vec![], this, below);
}

/// The full tiles of the first `m_full` rows and `n_full` columns: `tiling.vectors` wide, then
/// one vector wide for the columns left.
fn full_tiles_of<B: LoopBuilder>(b: &mut B, tiling: Tiling, m_full: usize, n_full: usize, g: &Gemm) {
    let width = tiling.vectors * NR;
    let wide = n_full / width * width;
    if wide > 0 {
        full_tiles(b, (tiling.mr, m_full), (Extent::Fixed(0), Extent::Fixed(wide / width)), tiling.vectors, g);
    }
    if n_full > wide {
        full_tiles(b, (tiling.mr, m_full), (Extent::Fixed(wide), Extent::Fixed((n_full - wide) / NR)), 1, g);
    }
}

/// `count` full tiles from column `j_lo` on, each `mr` rows by `vectors * NR` columns, over the
/// first `m_full` rows, as one parallel loop over (column tile, row tile) with the column outer
/// (see [`gemm`]).
fn full_tiles<B: LoopBuilder>(
    b: &mut B,
    (mr, m_full): (usize, usize),
    (j_lo, count): (Extent, Extent),
    vectors: usize,
    g: &Gemm,
) {
    let width = (vectors * NR) as i64;
    b.parallel_over(&[count, Extent::Fixed(m_full / mr)], &mut |e, t| {
        let j0 = match j_lo {
            Extent::Fixed(j) => e.affine(&[(t[0], width)], j as i64),
            Extent::Value(j) => e.affine(&[(t[0], width), (j, 1)], 0),
        };
        let i0 = e.affine(&[(t[1], mr as i64)], 0);
        let accs = tile_vector_products(e, i0, j0, mr, vectors, g);
        store_vectors(e, &accs, (i0, j0), vectors, None, g);
    });
}

/// Where the columns past the last wide tile go when the tiles are wider than a vector (AVX-512's
/// 8 x 32), as (first column, vectors) of one more tile per row tile whose last vector is masked:
/// more than a vector left over, one more wide tile from the last wide one's end; a vector or
/// less, the last wide tile one vector wider (24 accumulators). Either replaces a one-vector tile
/// and an overlapping one, which load a broadcast per FMA and run at half the speed. `None`: no
/// columns left, or no wide tile to widen.
fn masked_tail(n: usize, tiling: Tiling) -> Option<(usize, usize)> {
    let width = tiling.vectors * NR;
    let wide = n / width * width;
    match n - wide {
        _ if tiling.vectors < 2 => None,
        0 => None,
        left if left > NR => Some((wide, tiling.vectors)),
        _ if wide >= width => Some((wide - width, tiling.vectors + 1)),
        _ => None,
    }
}

/// A tile of `rows` by `vectors` vectors at (`i0`, `j0`) of which only the first `width`
/// columns exist: the last vector's B loads, epilogue and stores are masked to them.
fn masked_wide_tile<B: LoopBuilder>(
    e: &mut B,
    (i0, j0): (ValueId, ValueId),
    (rows, vectors): (usize, usize),
    width: usize,
    g: &Gemm,
) {
    let last = e.idx((width - (vectors - 1) * NR) as i64);
    let mask = super::lanes::first(e, last);
    let accs = masked_vector_products(e, (i0, j0), (rows, vectors), Some(mask), g);
    store_vectors(e, &accs, (i0, j0), vectors, Some(mask), g);
}

/// A tile's accumulators (row by row, `vectors` per row) stored a vector column at a time from
/// (`i0`, `j0`), with the epilogue; the last vector column only in the lanes of `last_mask` if
/// given.
fn store_vectors<B: LoopBuilder>(
    e: &mut B,
    accs: &[ValueId],
    (i0, j0): (ValueId, ValueId),
    vectors: usize,
    last_mask: Option<ValueId>,
    g: &Gemm,
) {
    for v in 0..vectors {
        let jv = index_of(e, j0, &[], v * NR);
        let column: Vec<ValueId> = accs.iter().skip(v).step_by(vectors).copied().collect();
        let lanes = last_mask.filter(|_| v + 1 == vectors);
        store_lanes(e, &column, (i0, jv), (g.c, g.ep), lanes);
    }
}

/// [`gemm`] with a number of rows `m` known only at run time: the full row tiles as there,
/// then the rows left over (fewer than a tile's, how many known at run time) one row at a time.
/// Its tiles are the target's baseline ones (`min_level` 0) on every CPU.
#[allow(clippy::too_many_arguments)]
pub fn gemm_rows_at_run_time<B: LoopBuilder>(
    b: &mut B,
    tiles: &[LevelTiles],
    m: ValueId,
    n: usize,
    k: usize,
    a: Mat,
    bm: BOperand,
    c: Mat,
    ep: TileEpilogue,
) {
    let n_full = n / NR * NR;
    let g = Gemm { k, a, bm, c, ep };
    let mr = baseline(tiles).mr;
    let (tiles, m_full, rest) = row_tiles(b, Extent::Value(m), mr);
    if n_full > 0 {
        b.parallel_over(&[Extent::Fixed(n_full / NR), tiles], &mut |e, t| {
            let j0 = e.affine(&[(t[0], NR as i64)], 0);
            let i0 = e.affine(&[(t[1], mr as i64)], 0);
            gemm_tile(e, i0, j0, mr, NR, &g);
        });
    }
    if n > n_full {
        b.parallel_over(&[tiles], &mut |e, t| {
            let i0 = e.affine(&[(t[0], mr as i64)], 0);
            ragged_columns(e, i0, mr, n, &g);
        });
    }
    rest_rows_at_run_time(b, (m_full, rest), n, &g);
}

/// The rows left over at run time after `m_full` (`rest` of them, fewer than a row tile: a
/// decode step's one row), each in tiles of one row by four vectors (see [`rest_rows`]), in
/// parallel over the rows and the tiles, so that the threads share a matrix-vector product's
/// columns; the columns past the wide tiles one vector at a time, then the ragged ones per row.
fn rest_rows_at_run_time<B: LoopBuilder>(b: &mut B, (m_full, rest): (Extent, Extent), n: usize, g: &Gemm) {
    const VECTORS: usize = 4;
    let n_full = n / NR * NR;
    let wide = n_full / (VECTORS * NR) * (VECTORS * NR);
    let row = |e: &mut B, t: ValueId| {
        let start = e.extent(m_full);
        e.value_op("arith.addi", &[start, t], Type::Index)
    };
    let tiles = |b: &mut B, j_lo: usize, count: usize, vectors: usize| {
        b.parallel_over(&[rest, Extent::Fixed(count)], &mut |e, t| {
            let i0 = row(e, t[0]);
            let j0 = e.affine(&[(t[1], (vectors * NR) as i64)], j_lo as i64);
            let accs = tile_vector_products(e, i0, j0, 1, vectors, g);
            store_vectors(e, &accs, (i0, j0), vectors, None, g);
        });
    };
    if wide > 0 {
        tiles(b, 0, wide / (VECTORS * NR), VECTORS);
    }
    if n_full > wide {
        tiles(b, wide, (n_full - wide) / NR, 1);
    }
    if n > n_full {
        b.parallel_over(&[rest], &mut |e, t| {
            let i0 = row(e, t[0]);
            ragged_columns(e, i0, 1, n, g);
        });
    }
}

/// [`gemm`] with a number of columns `n` known only at run time and B in column panels (the
/// lanes past `n` in the last panel are read but never stored): the full column tiles, then the
/// columns left over (fewer than NR, how many known at run time) as one tile per row tile whose
/// lanes are stored while below that count.
#[allow(clippy::too_many_arguments)]
pub fn gemm_cols_at_run_time<B: LoopBuilder>(
    b: &mut B,
    tiles: &[LevelTiles],
    m: usize,
    n: ValueId,
    k: usize,
    a: Mat,
    panels: BOperand,
    c: Mat,
    ep: TileEpilogue,
) {
    debug_assert!(matches!(panels, BOperand::Panels { .. }), "ragged columns need zero-padded panels");
    let g = Gemm { k, a, bm: panels, c, ep };
    for_the_cpu(b, tiles, &|e, tiling| gemm_cols_tiled(e, tiling, (m, n), &g));
}

/// [`gemm_cols_at_run_time`] with the tiles of one CPU.
fn gemm_cols_tiled<B: LoopBuilder>(b: &mut B, tiling: Tiling, (m, n): (usize, ValueId), g: &Gemm) {
    let (mr, c, ep) = (tiling.mr, g.c, g.ep);
    let m_full = m / mr * mr;
    let (tiles, n_full, rest) = row_tiles(b, Extent::Value(n), NR);
    if m_full > 0 {
        full_tiles_at_run_time(b, tiling, m_full, n, g);
    }
    // The rows left over make one shorter tile per column tile.
    if m > m_full {
        b.parallel_over(&[tiles], &mut |e, t| {
            let j0 = e.affine(&[(t[0], NR as i64)], 0);
            let i0 = e.idx(m_full as i64);
            gemm_tile(e, i0, j0, m - m_full, NR, g);
        });
    }
    // Row tiles of mr, then one of the rows left over: (first row, rows, how many such tiles).
    let row_groups = [(0, mr, m_full / mr), (m_full, m - m_full, usize::from(m > m_full))];
    let (j0, width) = (b.extent(n_full), b.extent(rest));
    let zero = b.idx(0);
    let ragged = b.cmpi("ugt", width, zero);
    for (first, rows, count) in row_groups.into_iter().filter(|g| g.1 > 0 && g.2 > 0) {
        // No tiles when no column is left over: the panel at `n_full` would be past the end.
        let count = b.idx(count as i64);
        let count = b.value_op("arith.select", &[ragged, count, zero], Type::Index);
        b.parallel_over(&[Extent::Value(count)], &mut |e, t| {
            let i0 = e.affine(&[(t[0], rows as i64)], first as i64);
            let accs = tile_products(e, i0, j0, rows, g);
            lane_epilogue(e, &accs, (i0, j0), Extent::Value(width), c, ep);
        });
    }
}

/// The full tiles of [`gemm_cols_at_run_time`]'s first `m_full` rows and `n / NR * NR`
/// columns: as [`full_tiles_of`], the wide tiles first, then at most one tile of one vector.
fn full_tiles_at_run_time<B: LoopBuilder>(b: &mut B, tiling: Tiling, m_full: usize, n: ValueId, g: &Gemm) {
    let tiles_between = |b: &mut B, (j_lo, j_hi): (ValueId, ValueId), vectors: usize| {
        let span = b.value_op("arith.subi", &[j_hi, j_lo], Type::Index);
        let width = b.idx((vectors * NR) as i64);
        let count = b.value_op("arith.divui", &[span, width], Type::Index);
        full_tiles(b, (tiling.mr, m_full), (Extent::Value(j_lo), Extent::Value(count)), vectors, g);
    };
    let zero = b.idx(0);
    let mut narrow_from = zero;
    if tiling.vectors > 1 {
        let (_, n_wide, _) = row_tiles(b, Extent::Value(n), tiling.vectors * NR);
        narrow_from = b.extent(n_wide);
        tiles_between(b, (zero, narrow_from), tiling.vectors);
    }
    tiles_between(b, (narrow_from, n), 1);
}

/// `rows` split into tiles of `tile` rows: the number of full tiles, the rows they cover, and
/// the rows left over (folded where `rows` is static).
pub(crate) fn row_tiles<B: LoopBuilder>(b: &mut B, rows: Extent, tile: usize) -> (Extent, Extent, Extent) {
    let tiles = match rows {
        Extent::Fixed(n) => Extent::Fixed(n / tile),
        Extent::Value(n) => {
            let t = b.idx(tile as i64);
            Extent::Value(b.value_op("arith.divui", &[n, t], Type::Index))
        }
    };
    let full = b.extent_mul(tiles, Extent::Fixed(tile));
    let rest = match (rows, full) {
        (Extent::Fixed(n), Extent::Fixed(f)) => Extent::Fixed(n - f),
        _ => {
            let (n, f) = (b.extent(rows), b.extent(full));
            Extent::Value(b.value_op("arith.subi", &[n, f], Type::Index))
        }
    };
    (tiles, full, rest)
}

/// What every tile of one GEMM shares.
struct Gemm {
    k: usize,
    a: Mat,
    bm: BOperand,
    c: Mat,
    ep: TileEpilogue,
}

/// The columns from `n / NR * NR` on, for the rows from `i0`: with B in rows, one tile
/// overlapping the one before it (recomputing a few columns is cheaper than a scalar loop);
/// with B in zero-padded panels, one narrow tile; with fewer than NR columns in rows, dot
/// products.
fn ragged_columns<B: LoopBuilder>(e: &mut B, i0: ValueId, rows: usize, n: usize, g: &Gemm) {
    let n_full = n / NR * NR;
    if n == n_full {
        return;
    }
    match g.bm {
        BOperand::Rows(_) if n_full > 0 => {
            let last = e.idx((n - NR) as i64);
            gemm_tile(e, i0, last, rows, NR, g);
        }
        BOperand::Panels { .. } => {
            let j0 = e.idx(n_full as i64);
            gemm_tile(e, i0, j0, rows, n - n_full, g);
        }
        BOperand::Rows(_) => {
            (0..n).for_each(|j| gemm_column(e, i0, j, rows, g.k, g.a, g.bm, g.c, g.ep));
        }
    }
}

/// Column `j` of a row tile, one dot product per row (the columns no vector tile covers).
#[allow(clippy::too_many_arguments)]
fn gemm_column<B: LoopBuilder>(
    e: &mut B,
    i0: ValueId,
    j: usize,
    rows: usize,
    k: usize,
    a: Mat,
    bm: BOperand,
    c: Mat,
    ep: TileEpilogue,
) {
    let jv = e.idx(j as i64);
    for r in 0..rows {
        let row = index_of(e, i0, &[], r);
        let a_row = index_over(e, a.off, &[(row, a.rs)], 0);
        let zero = e.const_float(0.0, Type::f32());
        let dot = e.for_acc(0, k, zero, |e, kk, acc| {
            let ai = index_of(e, a_row, &[(kk, a.cs)], 0);
            let bi = bm.element(e, kk, j, k);
            let av = e.load(a.buf, &[ai]);
            let bv = e.load(bm.buf(), &[bi]);
            e.fmuladd(av, bv, acc)
        });
        store_element(e, dot, row, jv, c, ep);
    }
}

/// One element of C at (`row`, `col`): `v` with the epilogue (bias, residual, activation) applied.
fn store_element<B: LoopBuilder>(b: &mut B, mut v: ValueId, row: ValueId, col: ValueId, c: Mat, ep: TileEpilogue) {
    let bias = match ep.bias {
        Bias::Rows(buf, off) => Some((buf, index_of(b, off, &[(row, 1)], 0))),
        Bias::Cols(buf, off) => Some((buf, index_of(b, off, &[(col, 1)], 0))),
        Bias::None => None,
    };
    if let Some((buf, bi)) = bias {
        let bv = b.load(buf, &[bi]);
        v = b.value_op("arith.addf", &[v, bv], Type::f32());
    }
    if let Some(r) = ep.residual {
        let ri = index_over(b, r.off, &[(row, r.rs), (col, Extent::Fixed(r.cs))], 0);
        let rv = b.load(r.buf, &[ri]);
        v = b.value_op("arith.addf", &[v, rv], Type::f32());
    }
    v = apply_activation(b, v, ep.act);
    let ci = index_over(b, c.off, &[(row, c.rs), (col, Extent::Fixed(c.cs))], 0);
    b.store(v, c.buf, &[ci]);
}

/// A `rows x NR` tile of C at (`i0`, `j0`) held in vector accumulators over the whole k loop;
/// only the first `width` columns are stored (fewer than NR at a ragged edge of panels).
fn gemm_tile<B: LoopBuilder>(b: &mut B, i0: ValueId, j0: ValueId, rows: usize, width: usize, g: &Gemm) {
    let accs = tile_products(b, i0, j0, rows, g);
    let (c, ep) = (g.c, g.ep);
    if width < NR {
        return lane_epilogue(b, &accs, (i0, j0), Extent::Fixed(width), c, ep);
    }
    store_tile(b, &accs, i0, j0, c, ep);
}

/// The `rows x NR` products of a tile of C at (`i0`, `j0`), in vector accumulators carried
/// over the whole k loop.
fn tile_products<B: LoopBuilder>(b: &mut B, i0: ValueId, j0: ValueId, rows: usize, g: &Gemm) -> Vec<ValueId> {
    tile_vector_products(b, i0, j0, rows, 1, g)
}

/// The products of a tile of `rows` by `vectors` vectors (accumulators row by row) over the
/// whole k loop: per k, one vector load of B per vector and one broadcast of A per row.
fn tile_vector_products<B: LoopBuilder>(
    b: &mut B,
    i0: ValueId,
    j0: ValueId,
    rows: usize,
    vectors: usize,
    g: &Gemm,
) -> Vec<ValueId> {
    masked_vector_products(b, (i0, j0), (rows, vectors), None, g)
}

/// [`tile_vector_products`], the last vector's B loads masked by `last` if given (its lanes off
/// read 0).
fn masked_vector_products<B: LoopBuilder>(
    b: &mut B,
    (i0, j0): (ValueId, ValueId),
    (rows, vectors): (usize, usize),
    last: Option<ValueId>,
    g: &Gemm,
) -> Vec<ValueId> {
    let (k, a, bm) = (g.k, g.a, g.bm);
    let vt = vec_ty();
    let zero = b.splat_const(0.0, vt.clone());
    let inits = vec![zero; rows * vectors];
    let a_rows: Vec<ValueId> = (0..rows)
        .map(|r| {
            let row = index_of(b, i0, &[], r);
            index_over(b, a.off, &[(row, a.rs)], 0)
        })
        .collect();
    let b_tiles: Vec<(ValueId, Extent)> = (0..vectors)
        .map(|v| {
            let jv = index_of(b, j0, &[], v * NR);
            bm.tile(b, jv, k)
        })
        .collect();
    b.for_accs(0, k, &inits, |e, kk, accs| {
        let bvs: Vec<ValueId> = b_tiles
            .iter()
            .enumerate()
            .map(|(v, &(b_col, b_rs))| {
                let bi = index_over(e, b_col, &[(kk, b_rs)], 0);
                match last.filter(|_| v + 1 == vectors) {
                    Some(mask) => super::lanes::load(e, bm.buf(), &[bi], mask, zero),
                    None => e.value_op("vector.load", &[bm.buf(), bi], vt.clone()),
                }
            })
            .collect();
        let mut next = Vec::with_capacity(accs.len());
        for (r, row_accs) in accs.chunks(vectors).enumerate() {
            let ai = index_of(e, a_rows[r], &[(kk, a.cs)], 0);
            let av = e.load(a.buf, &[ai]);
            let ab = e.value_op("vector.broadcast", &[av], vt.clone());
            next.extend(row_accs.iter().zip(&bvs).map(|(&acc, &bv)| e.fmuladd(ab, bv, acc)));
        }
        next
    })
}

/// A full tile's accumulators with the epilogue applied, stored as vectors.
fn store_tile<B: LoopBuilder>(b: &mut B, accs: &[ValueId], i0: ValueId, j0: ValueId, c: Mat, ep: TileEpilogue) {
    store_lanes(b, accs, (i0, j0), (c, ep), None);
}

/// A vector column of a tile's accumulators (one per row, from (`i0`, `j0`)) with the epilogue
/// applied, stored; with `mask`, only its lanes (the bias and residual read under it too).
fn store_lanes<B: LoopBuilder>(
    b: &mut B,
    accs: &[ValueId],
    (i0, j0): (ValueId, ValueId),
    (c, ep): (Mat, TileEpilogue),
    mask: Option<ValueId>,
) {
    let vt = vec_ty();
    let zero = mask.map(|_| super::lanes::zeros(b));
    let load = |b: &mut B, buf: ValueId, at: ValueId| match (mask, zero) {
        (Some(mask), Some(zero)) => super::lanes::load(b, buf, &[at], mask, zero),
        _ => b.value_op("vector.load", &[buf, at], vt.clone()),
    };
    let store = |b: &mut B, r: usize, v: ValueId| {
        let row = index_of(b, i0, &[], r);
        let ci = index_over(b, c.off, &[(row, c.rs), (j0, Extent::Fixed(1))], 0);
        match mask {
            Some(mask) => super::lanes::store(b, v, c.buf, &[ci], mask),
            None => {
                b.op(OpSpec::new("vector.store", Span::UNKNOWN).operands([v, c.buf, ci]));
            }
        }
    };
    // With a map, the rows are stored after it has run on all of them (interleaved).
    let clamp = Activation { map: None, ..ep.act };
    let mut clamped = Vec::with_capacity(accs.len());
    for (r, &acc) in accs.iter().enumerate() {
        let row = index_of(b, i0, &[], r);
        let mut v = acc;
        match ep.bias {
            Bias::Rows(buf, off) => {
                let bi = index_of(b, off, &[(row, 1)], 0);
                let s = b.load(buf, &[bi]);
                let bv = b.value_op("vector.broadcast", &[s], vt.clone());
                v = b.value_op("arith.addf", &[v, bv], vt.clone());
            }
            Bias::Cols(buf, off) => {
                let bi = index_of(b, off, &[(j0, 1)], 0);
                let bv = load(b, buf, bi);
                v = b.value_op("arith.addf", &[v, bv], vt.clone());
            }
            Bias::None => {}
        }
        if let Some(res) = ep.residual {
            let ri = index_over(b, res.off, &[(row, res.rs), (j0, Extent::Fixed(1))], 0);
            let rv = load(b, res.buf, ri);
            v = b.value_op("arith.addf", &[v, rv], vt.clone());
        }
        v = apply_activation(b, v, clamp);
        match ep.act.map {
            Some(_) => clamped.push(v),
            None => store(b, r, v),
        }
    }
    if let Some(func) = ep.act.map {
        for (r, v) in apply_map_all(b, &clamped, func).into_iter().enumerate() {
            store(b, r, v);
        }
    }
}

/// The epilogue lane by lane for the first `width` columns of a tile (vector loads of a bias or
/// residual row could read past its end); with a width known only at run time, each of the NR
/// lanes is stored only while below it.
fn lane_epilogue<B: LoopBuilder>(
    b: &mut B,
    accs: &[ValueId],
    (i0, j0): (ValueId, ValueId),
    width: Extent,
    c: Mat,
    ep: TileEpilogue,
) {
    for (r, &acc) in accs.iter().enumerate() {
        let row = index_of(b, i0, &[], r);
        for lane in 0..width.fixed().unwrap_or(NR) {
            let store = |b: &mut B| {
                let position = Attribute::DenseArray { elem: Type::i64(), values: vec![lane as i128] };
                let v = b.value_attr("vector.extract", &[acc], Type::f32(), vec![("static_position", position)]);
                let col = index_of(b, j0, &[], lane);
                store_element(b, v, row, col, c, ep);
            };
            match width {
                Extent::Fixed(_) => store(b),
                Extent::Value(w) => {
                    let lane_index = b.idx(lane as i64);
                    let inside = b.cmpi("ult", lane_index, w);
                    b.if_then(inside, store);
                }
            }
        }
    }
}

fn shape(m: &Module, v: ValueId) -> Vec<usize> {
    m.ty(v).as_memref().expect("verified memref").shape.iter().map(|d| d.expect("static") as usize).collect()
}

/// The flat offset of a broadcast operand's matrix for the batch indices `ivs`.
fn batch_offset<B: LoopBuilder>(
    b: &mut B,
    lead: &[Extent],
    batch: &[Extent],
    ivs: &[ValueId],
    matrix: Extent,
) -> ValueId {
    let off = batch.len() - lead.len();
    let mut terms = Vec::new();
    for q in (0..lead.len()).filter(|&q| lead[q] != Extent::Fixed(1)) {
        let inner = b.extent_product(&lead[q + 1..]);
        let stride = b.extent_mul(inner, matrix);
        terms.push((ivs[q + off], stride));
    }
    b.affine_over(&terms, 0)
}

/// `Some(None)` without a bias, `Some(Some(rows))` for a bias per row (`[M, 1]`) or per column
/// (`[1, N]`), `None` for a bias the micro-kernel does not take (a full `[M, N]` one).
fn bias_kind(bias: Option<&[usize]>, mm: usize, nn: usize) -> Option<Option<bool>> {
    match bias {
        None => Some(None),
        Some([1, n]) if *n == nn && nn > 1 => Some(Some(false)),
        Some([mr, 1]) if *mr == mm => Some(Some(true)),
        _ => None,
    }
}

/// Whether a matmul runs on the GEMM micro-kernel: f32, B not transposed, alpha and beta 1, and
/// a bias per row or per column if any (`kernel-pack-weights` lays B out for it).
pub fn micro_kernel_applies(m: &Module, op: OpId) -> bool {
    let ops = EpilogueOperands::of(m, op);
    let ep = Epilogue::of(m, op);
    let dims = |v: ValueId| m.ty(v).as_memref().expect("verified memref").shape.clone();
    let (a, out) = (dims(ops.a), dims(ops.output));
    let (r, ta) = (out.len() - 2, m.attr(op, "transpose_a").is_some());
    let k = if ta { a[a.len() - 2] } else { a[a.len() - 1] };
    // The micro-kernel's tiles are static in K and N; M may be known only at run time (rows
    // of a batch or a sequence), unless A is read transposed or the bias is per row.
    let (Some(n), Some(_)) = (out[r + 1], k) else { return false };
    let bias = ops.bias.map(|v| dims(v).into_iter().collect::<Option<Vec<u64>>>());
    let bias: Option<Vec<usize>> = match bias {
        Some(Some(b)) => Some(b.iter().map(|&d| d as usize).collect()),
        Some(None) => return false,
        None => None,
    };
    let elem = (*m.ty(ops.output).as_memref().expect("verified").elem).clone();
    let kind = bias_kind(bias.as_deref(), out[r].map_or(0, |d| d as usize), n as usize);
    elem == Type::f32()
        && m.attr(op, "transpose_b").is_none()
        && ep.alpha == 1.0
        && ep.beta == 1.0
        && (out[r].is_some() || (!ta && kind != Some(Some(true))))
        && kind.is_some()
}

/// On GPUs by `gpu`, the strategy recorded on the op ([`super::gpu_strategy::recorded_matmul`]):
/// tiled through shared memory ([`super::gpu_gemm`]), or the parallel loop over the output with a
/// dot product per element (one thread each, or a few rows, once the loop is mapped to the grid).
pub fn lower(m: &mut Module, op: OpId, gpu: Option<GpuStrategy>, tiles: &[LevelTiles]) -> Result<(), Diagnostic> {
    if gpu.is_some() && m.attr(op, "b_panels").is_none() {
        lower_general(m, op, gpu)
    } else if micro_kernel_applies(m, op) {
        lower_on_micro_kernel(m, op, tiles)
    } else if rows_apply(m, op) {
        lower_rows(m, op)
    } else if m.attr(op, "b_panels").is_none() {
        lower_general(m, op, None)
    } else {
        Err(Diagnostic::new(
            m.ops[op].span,
            "kernel.matmul with b_panels needs f32, alpha = beta = 1, a row or column bias, and static K and N",
        ))
    }
}

/// The micro-kernel's GEMMs, one per batch (or one for all, when B is shared and A's matrices
/// follow one another).
fn lower_on_micro_kernel(m: &mut Module, op: OpId, tiles: &[LevelTiles]) -> Result<(), Diagnostic> {
    let span = m.ops[op].span;
    let ops = EpilogueOperands::of(m, op);
    let ep = Epilogue::of(m, op);
    let panels = m.attr(op, "b_panels").is_some();
    let mut c = Cursor::new(m, span);
    let (a_shape, b_shape, out_shape) = (c.extents(ops.a), c.extents(ops.b), c.extents(ops.output));
    let r = out_shape.len() - 2;
    let ta = c.m.attr(op, "transpose_a").is_some();
    let k_dim = if ta { a_shape[a_shape.len() - 2] } else { a_shape[a_shape.len() - 1] };
    let (mm, nn, kk) = (out_shape[r], fixed_dim(out_shape[r + 1]), fixed_dim(k_dim));
    // Panels carry no batch dims of B.
    let b_shape = if panels { fixed(&[kk, nn]) } else { b_shape };
    let batch = out_shape[..r].to_vec();
    let rows_bias = ops.bias.and_then(|v| bias_kind(Some(&shape(c.m, v)), mm.fixed().unwrap_or(0), nn).flatten());
    let (a1, b1, o1) = (c.flat(ops.a), c.flat(ops.b), c.flat(ops.output));
    let residual = ops.residual.map(|v| c.flat(v));
    let bias_buf = ops.bias.map(|v| c.flat(v));
    let (a_lead, b_lead) = (a_shape[..a_shape.len() - 2].to_vec(), b_shape[..b_shape.len() - 2].to_vec());
    let act = Activation::of(c.m, &ep);
    // B shared by every batch and A's matrices one after the other: the batches are one GEMM of
    // batch x M rows (a [B, 1, K] input is one GEMM, not B GEMMs of one row).
    let folds = !ta
        && batch.iter().any(|&d| d != Extent::Fixed(1))
        && same_dims(&a_lead, &batch)
        && b_lead.iter().all(|&d| d == Extent::Fixed(1))
        && rows_bias != Some(true);
    let (mm, batch, a_lead, b_lead) = if folds {
        let rows = c.extent_product(&[&batch[..], &[mm]].concat());
        (rows, vec![], vec![], vec![])
    } else {
        (mm, batch, a_lead, b_lead)
    };
    let a_matrix = c.extent_mul(mm, Extent::Fixed(kk));
    let o_matrix = c.extent_mul(mm, Extent::Fixed(nn));
    c.parallel_over(&batch, &mut |e, ivs| {
        let ao = batch_offset(e, &a_lead, &batch, ivs, a_matrix);
        let bo = batch_offset(e, &b_lead, &batch, ivs, Extent::Fixed(kk * nn));
        let co = batch_offset(e, &batch, &batch, ivs, o_matrix);
        let zero = e.idx(0);
        let a = if ta {
            Mat { buf: a1, off: ao, rs: Extent::Fixed(1), cs: mm.fixed().expect("static M with a transposed A") }
        } else {
            Mat { buf: a1, off: ao, rs: Extent::Fixed(kk), cs: 1 }
        };
        let bias = match (bias_buf, rows_bias) {
            (Some(buf), Some(true)) => Bias::Rows(buf, zero),
            (Some(buf), Some(false)) => Bias::Cols(buf, zero),
            _ => Bias::None,
        };
        let ep = TileEpilogue {
            bias,
            residual: residual.map(|r| Mat { buf: r, off: co, rs: Extent::Fixed(nn), cs: 1 }),
            act,
        };
        let bm = if panels {
            BOperand::Panels { buf: b1, off: bo }
        } else {
            BOperand::Rows(Mat { buf: b1, off: bo, rs: Extent::Fixed(nn), cs: 1 })
        };
        let out = Mat { buf: o1, off: co, rs: Extent::Fixed(nn), cs: 1 };
        match mm {
            Extent::Fixed(mm) => gemm(e, tiles, mm, nn, kk, a, bm, out, ep),
            Extent::Value(mm) => gemm_rows_at_run_time(e, tiles, mm, nn, kk, a, bm, out, ep),
        }
    });
    c.finish(op);
    Ok(())
}

/// Whether two lists of dims are the same: equal static dims, and dynamic ones where the other
/// is dynamic (the kernel level does not broadcast dims known only at run time: a dynamic batch
/// dim of A is the output's).
fn same_dims(a: &[Extent], b: &[Extent]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Extent::Fixed(x), Extent::Fixed(y)) => x == y,
            (Extent::Value(_), Extent::Value(_)) => true,
            _ => false,
        })
}

fn fixed_dim(e: Extent) -> usize {
    e.fixed().expect("the micro-kernel's K and N are static")
}

/// One dot product per output element, for every element type, transposes, alpha and beta,
/// and dims known only at run time.
/// Whether [`lower_rows`] takes a matmul the micro-kernel does not: f32, neither operand read
/// transposed, no packed panels (what attention's `Q·Kᵀ` and `P·V` are when the sequence is
/// known only at run time).
fn rows_apply(m: &Module, op: OpId) -> bool {
    let ops = EpilogueOperands::of(m, op);
    let elem = m.ty(ops.output).as_memref().expect("verified").elem.as_ref().clone();
    elem == Type::f32()
        && m.attr(op, "transpose_a").is_none()
        && m.attr(op, "transpose_b").is_none()
        && m.attr(op, "b_panels").is_none()
}

/// Tiles of [`ROW_TILE`] output rows, in parallel over the batches and the tiles, then the
/// rows left over one at a time. Columns go in blocks of vectors whose accumulators (rows times
/// vectors of them) are carried over K, one broadcast of `A[i, k]` per row and one vector load
/// of B's row per vector and k, whatever N is at run time; the columns left over are dot
/// products. Then the epilogue (alpha, bias, residual, activation) runs over each row. Each
/// output element sums its products in order of `k`, as the dot products of [`lower_general`]
/// do.
fn lower_rows(m: &mut Module, op: OpId) -> Result<(), Diagnostic> {
    let span = m.ops[op].span;
    let ops = EpilogueOperands::of(m, op);
    let ep = Epilogue::of(m, op);
    let mut c = Cursor::new(m, span);
    let f = FlatOperands::of(&mut c, &ops, false);
    let r = f.r;
    let (tiles, full, rest) = row_tiles(&mut c, f.mm, ROW_TILE);
    let matrices = [c.extent_mul(f.mm, f.kk), c.extent_mul(f.kk, f.nn), c.extent_mul(f.mm, f.nn)];
    for (count, rows_in_tile) in [(tiles, ROW_TILE), (rest, 1)] {
        if count == Extent::Fixed(0) {
            continue;
        }
        let mut space = f.batch.clone();
        space.push(count);
        c.parallel_over(&space, &mut |e, ivs| {
            let i0 = if rows_in_tile == 1 {
                let start = e.extent(full);
                e.value_op("arith.addi", &[start, ivs[r]], Type::Index)
            } else {
                e.affine(&[(ivs[r], ROW_TILE as i64)], 0)
            };
            row_tile(e, (&f, matrices), &ep, &ivs[..r], i0, rows_in_tile);
        });
    }
    c.finish(op);
    Ok(())
}

/// Rows `i0 .. i0 + rows` of the output of batch `bivs`: the column blocks, the columns left
/// over, then the epilogue of each row. `matrices` are the elements of one matrix of A, B and
/// the output.
fn row_tile<B: LoopBuilder>(
    e: &mut B,
    (f, matrices): (&FlatOperands, [Extent; 3]),
    ep: &Epilogue,
    bivs: &[ValueId],
    i0: ValueId,
    rows: usize,
) {
    let (nn, kk) = (f.nn, f.kk);
    let [a_matrix, b_matrix, o_matrix] = matrices;
    let ao = batch_offset(e, &f.a_lead, &f.batch, bivs, a_matrix);
    let bo = batch_offset(e, &f.b_lead, &f.batch, bivs, b_matrix);
    let co = batch_offset(e, &f.batch, &f.batch, bivs, o_matrix);
    let mut starts = Vec::with_capacity(rows);
    for t in 0..rows {
        let i = e.affine(&[(i0, 1)], t as i64);
        let row_a = e.affine_over(&[(i, kk)], 0);
        let row_a = e.value_op("arith.addi", &[ao, row_a], Type::Index);
        let row_o = e.affine_over(&[(i, nn)], 0);
        let row_o = e.value_op("arith.addi", &[co, row_o], Type::Index);
        starts.push((i, row_a, row_o));
    }
    let (zero_i, n_end) = (e.idx(0), e.extent(nn));
    let tile = RowOperands {
        a: f.a1,
        b: f.b1,
        out: f.o1,
        rows: starts.iter().map(|&(_, a, o)| (a, o)).collect(),
        b_start: bo,
        k: kk,
        n: nn,
    };
    // Blocks of vectors of columns while they last, then single vectors, then columns.
    let n_wide = round_down(e, n_end, ROW_BLOCK * ROW_LANES);
    e.for_step(zero_i, n_wide, ROW_BLOCK * ROW_LANES, |e, j0| row_block(e, &tile, j0, ROW_BLOCK));
    let n_vectors = round_down(e, n_end, ROW_LANES);
    e.for_step(n_wide, n_vectors, ROW_LANES, |e, j0| row_block(e, &tile, j0, 1));
    e.for_step(n_vectors, n_end, 1, |e, j| row_column(e, &tile, j));
    for (i, _, row_o) in starts {
        row_epilogue(e, f, ep, i, row_o);
    }
}

/// Alpha, the bias, the residual and the activation over one output row, in place.
fn row_epilogue<B: LoopBuilder>(e: &mut B, f: &FlatOperands, ep: &Epilogue, i: ValueId, row_o: ValueId) {
    let one = Extent::Fixed(1);
    let act = Activation::of(e.module(), ep);
    let epilogue = ep.alpha != 1.0 || f.bias_buf.is_some() || f.residual.is_some() || !act.is_none();
    if !epilogue {
        return;
    }
    let (zero_i, n_end) = (e.idx(0), e.extent(f.nn));
    e.for_step(zero_i, n_end, 1, |e, j| {
        let oi = e.value_op("arith.addi", &[row_o, j], Type::Index);
        let mut v = e.load(f.o1, &[oi]);
        if ep.alpha != 1.0 {
            let s = e.const_float(ep.alpha, Type::f32());
            v = e.value_op("arith.mulf", &[v, s], Type::f32());
        }
        if let (Some(buf), Some(bs)) = (f.bias_buf, &f.bias_shape) {
            let zero = Extent::Fixed(0);
            let row_stride = if bs[0] == one { zero } else { bs[1] };
            let col_stride = if bs[1] == one { zero } else { one };
            let bi = e.affine_over(&[(i, row_stride), (j, col_stride)], 0);
            let mut bv = e.load(buf, &[bi]);
            if ep.beta != 1.0 {
                let s = e.const_float(ep.beta, Type::f32());
                bv = e.value_op("arith.mulf", &[bv, s], Type::f32());
            }
            v = e.value_op("arith.addf", &[v, bv], Type::f32());
        }
        if let Some(res) = f.residual {
            let rv = e.load(res, &[oi]);
            v = e.value_op("arith.addf", &[v, rv], Type::f32());
        }
        v = apply_activation(e, v, act);
        e.store(v, f.o1, &[oi]);
    });
}

/// A matmul's operands as the loop lowerings read them: flat buffers, the batch dims, and the
/// M, N and K extents (`r` is the output's batch rank).
struct FlatOperands {
    r: usize,
    mm: Extent,
    nn: Extent,
    kk: Extent,
    batch: Vec<Extent>,
    bias_shape: Option<Vec<Extent>>,
    a1: ValueId,
    b1: ValueId,
    o1: ValueId,
    residual: Option<ValueId>,
    bias_buf: Option<ValueId>,
    a_lead: Vec<Extent>,
    b_lead: Vec<Extent>,
}

impl FlatOperands {
    /// `transpose_a`: A is read as its transpose (K is then its second-to-last dim).
    fn of(c: &mut Cursor, ops: &EpilogueOperands, transpose_a: bool) -> FlatOperands {
        let (a_shape, b_shape, out_shape) = (c.extents(ops.a), c.extents(ops.b), c.extents(ops.output));
        let r = out_shape.len() - 2;
        let kk = if transpose_a { a_shape[a_shape.len() - 2] } else { a_shape[a_shape.len() - 1] };
        let bias_shape = ops.bias.map(|v| c.extents(v));
        let (a1, b1, o1) = (c.flat(ops.a), c.flat(ops.b), c.flat(ops.output));
        let residual = ops.residual.map(|v| c.flat(v));
        let bias_buf = ops.bias.map(|v| c.flat(v));
        FlatOperands {
            r,
            mm: out_shape[r],
            nn: out_shape[r + 1],
            kk,
            batch: out_shape[..r].to_vec(),
            bias_shape,
            a1,
            b1,
            o1,
            residual,
            bias_buf,
            a_lead: a_shape[..a_shape.len() - 2].to_vec(),
            b_lead: b_shape[..b_shape.len() - 2].to_vec(),
        }
    }
}

/// The lanes of [`lower_rows`]' vectors, how many of them one block of columns carries, and how
/// many rows one tile has: 4 x 2 accumulators, with the broadcasts and B's vectors, fit in
/// AVX2's sixteen registers.
const ROW_LANES: usize = 8;
const ROW_BLOCK: usize = 2;
const ROW_TILE: usize = 4;

/// What [`lower_rows`] reads and writes for one tile of output rows: flat buffers, each row's
/// start in A and in the output, B's matrix start, and the K and N extents.
struct RowOperands {
    a: ValueId,
    b: ValueId,
    out: ValueId,
    rows: Vec<(ValueId, ValueId)>,
    b_start: ValueId,
    k: Extent,
    n: Extent,
}

/// `n` rounded down to a multiple of `step`.
fn round_down<B: LoopBuilder>(e: &mut B, n: ValueId, step: usize) -> ValueId {
    let s = e.idx(step as i64);
    let q = e.value_op("arith.divui", &[n, s], Type::Index);
    e.value_op("arith.muli", &[q, s], Type::Index)
}

/// Output columns `j0 ..` of the tile's rows, `vectors` vectors of them: accumulators carried
/// over K, per k one broadcast of `A[i, k]` per row and one vector load of B's row per vector.
fn row_block<B: LoopBuilder>(e: &mut B, tile: &RowOperands, j0: ValueId, vectors: usize) {
    let vt = Type::Vector { shape: vec![ROW_LANES as u64], elem: Box::new(Type::f32()) };
    let zero = e.splat_const(0.0, vt.clone());
    let (l, u) = (e.idx(0), e.extent(tile.k));
    let rows = tile.rows.len();
    let accs = e.for_accs_between(l, u, &vec![zero; rows * vectors], |e, k, accs| {
        let b_row = e.affine_over(&[(k, tile.n)], 0);
        let b_row = e.value_op("arith.addi", &[tile.b_start, b_row], Type::Index);
        let b_at = e.value_op("arith.addi", &[b_row, j0], Type::Index);
        let bvs: Vec<ValueId> = (0..vectors)
            .map(|v| {
                let bi = e.affine_over(&[(b_at, Extent::Fixed(1))], (v * ROW_LANES) as i64);
                e.value_op("vector.load", &[tile.b, bi], vt.clone())
            })
            .collect();
        let mut next = Vec::with_capacity(rows * vectors);
        for (t, &(row_a, _)) in tile.rows.iter().enumerate() {
            let at = e.value_op("arith.addi", &[row_a, k], Type::Index);
            let av = e.load(tile.a, &[at]);
            let ab = e.value_op("vector.broadcast", &[av], vt.clone());
            for (v, &bv) in bvs.iter().enumerate() {
                next.push(e.fmuladd(ab, bv, accs[t * vectors + v]));
            }
        }
        next
    });
    for (t, &(_, row_o)) in tile.rows.iter().enumerate() {
        let o_at = e.value_op("arith.addi", &[row_o, j0], Type::Index);
        for v in 0..vectors {
            let oi = e.affine_over(&[(o_at, Extent::Fixed(1))], (v * ROW_LANES) as i64);
            e.op(OpSpec::new("vector.store", Span::UNKNOWN).operands([accs[t * vectors + v], tile.out, oi]));
        }
    }
}

/// One output column of each of the tile's rows: a dot product over K.
fn row_column<B: LoopBuilder>(e: &mut B, tile: &RowOperands, j: ValueId) {
    for &(row_a, row_o) in &tile.rows {
        let zero = e.const_float(0.0, Type::f32());
        let (l, u) = (e.idx(0), e.extent(tile.k));
        let dot = e.for_accs_between(l, u, &[zero], |e, k, acc| {
            let at = e.value_op("arith.addi", &[row_a, k], Type::Index);
            let av = e.load(tile.a, &[at]);
            let bi = e.affine_over(&[(k, tile.n), (j, Extent::Fixed(1))], 0);
            let bi = e.value_op("arith.addi", &[tile.b_start, bi], Type::Index);
            let bv = e.load(tile.b, &[bi]);
            vec![e.fmuladd(av, bv, acc[0])]
        })[0];
        let oi = e.value_op("arith.addi", &[row_o, j], Type::Index);
        e.store(dot, tile.out, &[oi]);
    }
}

/// A matmul's flat operands, for [`emit_tiled`]: each buffer with its leading (batch) dims, its
/// matrices' size and its rows' length.
struct TiledOperands<'a> {
    a: (ValueId, &'a [Extent], Extent, Extent),
    b: (ValueId, &'a [Extent], Extent, Extent),
    batch: &'a [Extent],
}

/// The matmul as a GEMM tiled through shared memory, `finish` its epilogue.
fn emit_tiled(
    c: &mut Cursor,
    gemm: &super::gpu_gemm::Gemm,
    ops: &TiledOperands,
    (ta, tb): (bool, bool),
    finish: super::gpu_gemm::Finish,
) {
    let one = Extent::Fixed(1);
    let load = |e: &mut Cursor,
                (buf, lead, matrix, cols): (ValueId, &[Extent], Extent, Extent),
                bivs: &[ValueId],
                (row, col)| {
        let at = batch_offset(e, lead, ops.batch, bivs, matrix);
        let within = e.affine_over(&[(row, cols), (col, one)], 0);
        let at = e.value_op("arith.addi", &[at, within], Type::Index);
        e.load(buf, &[at])
    };
    let load_a = |e: &mut Cursor, bivs: &[ValueId], i, k| load(e, ops.a, bivs, if ta { (k, i) } else { (i, k) });
    let load_b = |e: &mut Cursor, bivs: &[ValueId], k, j| load(e, ops.b, bivs, if tb { (j, k) } else { (k, j) });
    super::gpu_gemm::emit(c, gemm, &load_a, &load_b, finish);
}

/// A parallel loop over the output with a dot product per element; on a GPU by `strategy`, the
/// strategy recorded on the op (a GEMM tiled through shared memory, sums split over K, or a
/// thread per `thread_tile` rows).
fn lower_general(m: &mut Module, op: OpId, strategy: Option<GpuStrategy>) -> Result<(), Diagnostic> {
    let span = m.ops[op].span;
    let ops = EpilogueOperands::of(m, op);
    let ep = Epilogue::of(m, op);
    let (ta, tb) = (m.attr(op, "transpose_a").is_some(), m.attr(op, "transpose_b").is_some());
    let elem = (*m.ty(ops.output).as_memref().expect("verified").elem).clone();
    let (tiled, tile, splits) = match strategy {
        Some(GpuStrategy::TiledGemm { tensor_cores }) => (super::gpu_strategy::matmul_gemm(m, op, tensor_cores), 1, 1),
        Some(GpuStrategy::SplitK { splits }) => (None, 1, splits),
        Some(GpuStrategy::Direct { thread_tile }) => (None, thread_tile, 1),
        None => (None, 1, 1),
    };
    let mut c = Cursor::new(m, span);
    let FlatOperands { r, mm, nn, kk, batch, bias_shape, a1, b1, o1, residual, bias_buf, a_lead, b_lead } =
        FlatOperands::of(&mut c, &ops, ta);
    let act = Activation::of(c.m, &ep);
    let float = elem.is_float();
    let half = matches!(elem, Type::Float(FloatKind::F16 | FloatKind::BF16));
    let compute = if half { Type::f32() } else { elem.clone() };
    let outputs = [mm, nn].iter().chain(&batch).map(|e| e.fixed().unwrap_or(1)).product::<usize>();
    let partial = (splits > 1).then(|| super::conv::plane_buffer(&mut c, splits * outputs));
    let chunk = kk.fixed().unwrap_or(0) / splits;
    let mut full = batch.clone();
    full.extend([if tile == 1 { mm } else { Extent::Fixed(fixed_dim(mm) / tile) }, nn]);
    if splits > 1 {
        full.insert(0, Extent::Fixed(splits));
    }
    let (a_matrix, b_matrix, o_matrix) = (c.extent_mul(mm, kk), c.extent_mul(kk, nn), c.extent_mul(mm, nn));
    let (a_cols, b_cols) = (if ta { mm } else { kk }, if tb { kk } else { nn });
    let one = Extent::Fixed(1);
    let flat_out = |e: &mut Cursor, bivs: &[ValueId], i: ValueId, j: ValueId| {
        let co = batch_offset(e, &batch, &batch, bivs, o_matrix);
        let ij = e.affine_over(&[(i, nn), (j, one)], 0);
        e.value_op("arith.addi", &[co, ij], Type::Index)
    };
    let (add, mul) = if float { ("arith.addf", "arith.mulf") } else { ("arith.addi", "arith.muli") };
    // An integer matmul's bytes widen to the i32 sums.
    let integer = xcc_ir::dialects::kernel::is_integer_matmul(c.m, op);
    let widen = |key: &str| integer.then(|| if c.m.attr(op, key).is_some() { "arith.extui" } else { "arith.extsi" });
    let (a_widen, b_widen) = (widen("a_unsigned"), widen("b_unsigned"));
    // alpha, the bias (times beta), the residual and the activation; then the store.
    let finish = |e: &mut Cursor, bivs: &[ValueId], (i, j): (ValueId, ValueId), dot: ValueId| {
        let scale = |e: &mut Cursor, v: ValueId, s: f64| {
            if s == 1.0 {
                return v;
            }
            let sv = if float { e.const_float(s, compute.clone()) } else { e.const_int(s as i128, compute.clone()) };
            e.value_op(mul, &[v, sv], compute.clone())
        };
        let mut v = scale(e, dot, ep.alpha);
        if let (Some(buf), Some(bs)) = (bias_buf, &bias_shape) {
            // A bias dim of 1 broadcasts: its index does not move.
            let zero = Extent::Fixed(0);
            let row_stride = if bs[0] == one { zero } else { bs[1] };
            let col_stride = if bs[1] == one { zero } else { one };
            let bi = e.affine_over(&[(i, row_stride), (j, col_stride)], 0);
            let bv = e.load(buf, &[bi]);
            let bv = scale(e, bv, ep.beta);
            v = e.value_op(add, &[v, bv], compute.clone());
        }
        let at = flat_out(e, bivs, i, j);
        if let Some(res) = residual {
            let rv = e.load(res, &[at]);
            v = e.value_op(add, &[v, rv], compute.clone());
        }
        if float {
            v = apply_activation(e, v, act);
        }
        e.store(v, o1, &[at]);
    };
    if let Some(gemm) = tiled {
        let operands =
            TiledOperands { a: (a1, &a_lead, a_matrix, a_cols), b: (b1, &b_lead, b_matrix, b_cols), batch: &batch };
        emit_tiled(&mut c, &gemm, &operands, (ta, tb), &finish);
        c.finish(op);
        return Ok(());
    }
    c.parallel_over(&full, &mut |e, ivs| {
        let (split, ivs) = if splits > 1 { (Some(ivs[0]), &ivs[1..]) } else { (None, ivs) };
        let (bivs, j) = (&ivs[..r], ivs[r + 1]);
        let rows: Vec<ValueId> = if tile == 1 {
            vec![ivs[r]]
        } else {
            (0..tile).map(|t| e.affine(&[(ivs[r], tile as i64)], t as i64)).collect()
        };
        let ao = batch_offset(e, &a_lead, &batch, bivs, a_matrix);
        let bo = batch_offset(e, &b_lead, &batch, bivs, b_matrix);
        let zero = if float { e.const_float(0.0, compute.clone()) } else { e.const_int(0, compute.clone()) };
        let (l, u) = match split {
            Some(s) => (e.affine(&[(s, chunk as i64)], 0), e.affine(&[(s, chunk as i64)], chunk as i64)),
            None => (e.idx(0), e.extent(kk)),
        };
        let dots = e.for_accs_between(l, u, &vec![zero; tile], |e, k, accs| {
            let (br, bc) = if tb { (j, k) } else { (k, j) };
            let bi = e.affine_over(&[(br, b_cols), (bc, one)], 0);
            let bi = e.value_op("arith.addi", &[bo, bi], Type::Index);
            let bv = e.load(b1, &[bi]);
            let bv = b_widen.map_or(bv, |w| e.value_op(w, &[bv], compute.clone()));
            rows.iter()
                .zip(accs)
                .map(|(&i, &acc)| {
                    let (ar, ac) = if ta { (k, i) } else { (i, k) };
                    let ai = e.affine_over(&[(ar, a_cols), (ac, one)], 0);
                    let ai = e.value_op("arith.addi", &[ao, ai], Type::Index);
                    let av = e.load(a1, &[ai]);
                    let av = a_widen.map_or(av, |w| e.value_op(w, &[av], compute.clone()));
                    if float {
                        e.fmuladd(av, bv, acc)
                    } else {
                        let p = e.value_op("arith.muli", &[av, bv], compute.clone());
                        e.value_op("arith.addi", &[p, acc], compute.clone())
                    }
                })
                .collect()
        });
        match (split, partial) {
            (Some(s), Some(p)) => {
                let at = flat_out(e, bivs, rows[0], j);
                let at = e.affine(&[(s, outputs as i64), (at, 1)], 0);
                e.store(dots[0], p, &[at]);
            }
            _ => {
                for (&i, &dot) in rows.iter().zip(&dots) {
                    finish(e, bivs, (i, j), dot);
                }
            }
        }
    });
    if let Some(p) = partial {
        let mut outs = batch.clone();
        outs.extend([mm, nn]);
        c.parallel_over(&outs, &mut |e, ivs| {
            let (bivs, i, j) = (&ivs[..r], ivs[r], ivs[r + 1]);
            let at = flat_out(e, bivs, i, j);
            let zero = e.const_float(0.0, Type::f32());
            let dot = e.for_acc(0, splits, zero, |e, s, acc| {
                let k = e.affine(&[(s, outputs as i64), (at, 1)], 0);
                let v = e.load(p, &[k]);
                e.value_op("arith.addf", &[acc, v], Type::f32())
            });
            finish(e, bivs, (i, j), dot);
        });
    }
    c.finish(op);
    Ok(())
}
