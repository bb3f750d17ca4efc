//! Winograd's F(2x2, 3x3) for `kernel.conv`: a 3x3, unit-stride, undilated, ungrouped f32
//! convolution computes each 2x2 tile of its output from the 4x4 patch of input under it with
//! 16 multiplies per (filter, channel) instead of 36. Per tile and channel the patch `d` becomes
//! `V = Bᵀ d B`; per filter and channel the 3x3 weights `g` become `U = G g Gᵀ` (at compile time,
//! `kernel-pack-weights`, stored `[4, 4, K, C]`); then for each of the 16 positions `ξ` of a
//! transformed tile, `M[ξ] = U[ξ] x V[ξ]` is a GEMM over the channels (`K x C` by `C x tiles`) on
//! the micro-kernel of [`super::matmul`], and each output tile is `Aᵀ M A` plus the epilogue.
//!
//! The 2.25 times fewer multiplies make the 3x3 layers of a ResNet 1.4 to 2 times faster than
//! the im2col GEMM (`BENCHMARKS.md`). The transforms only add and subtract (the halves of `G` are
//! applied to the weights in f64), so the results differ from the direct sums by a few roundings
//! (against a float64 reference, fewer than the im2col GEMM's: its sums run over the channels,
//! not the channels times nine); `--no-winograd` keeps the im2col GEMM.
//!
//! A plane goes in blocks of whole tile rows, one after the other; each block's three steps are
//! parallel loops: the input transform over chunks of channels, the 16 GEMMs over `ξ`, the
//! output transform over chunks of filters. Blocks are large (the transformed weights are
//! streamed once per block, and the GEMMs are more efficient the more tiles they have): the
//! shared models' planes are one block each.
//!
//! The transforms run in vectors of [`NR`] tiles along a tile row: lane `l` of the patch column
//! `j` of tile `t0 + l` is input column `2 (t0 + l) + j - pad`, the even (`j` = 0, 2) or odd
//! (`j` = 1, 3) elements of a run of `2 NR` columns, read with masked loads where the patch
//! crosses the padding.

use super::lanes;
use super::matmul::{apply_activation, gemm, Activation, BOperand, Bias, Mat, TileEpilogue, NR};
use super::Cursor;
use crate::builder::{Extent, LoopBuilder};
use xcc_ir::dialects::kernel::{Epilogue, EpilogueOperands};
use xcc_ir::{Attribute, Module, OpId, OpSpec, Span, Type, ValueId};
use xcc_targets::LevelTiles;

/// The output tile's side (the `m` of F(m x m, 3 x 3)), the value of `kernel.conv`'s `winograd`.
pub const TILE: usize = 2;

/// The transformed tile's side, and the GEMMs per tile.
const SIDE: usize = TILE + 2;
const POSITIONS: usize = SIDE * SIDE;

/// Fewer input channels or filters than this keep the im2col GEMM: their products are too short
/// to pay for the transforms.
const MIN_CHANNELS: usize = 8;

/// A plane with fewer output positions than this per filter keeps the im2col GEMM: its transformed
/// weights, 16/9 the size of the originals, would be streamed for too little work. (A 7x7 plane,
/// 16 tiles, still gains 1.9x.)
const MIN_POSITIONS: usize = 36;

/// What a block's transformed input and products may take, in bytes: a 56x56 plane of 64
/// channels is one block (6.4 MB; in blocks of 0.5 MB it was 20% slower).
const BLOCK_BYTES: usize = 8 << 20;

/// `G` of F(2x2, 3x3): `U = G g Gᵀ`.
const G: [[f64; 3]; SIDE] = [[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]];

/// The geometry of a convolution F(2x2, 3x3) applies to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane {
    pub channels: usize,
    pub filters: usize,
    pub input: [usize; 2],
    pub out: [usize; 2],
    /// The begin pads (top, left).
    pub pad: [usize; 2],
}

impl Plane {
    /// The plane of a `kernel.conv` whose weights are still `[K, C, 3, 3]`, if F(2x2, 3x3)
    /// applies: f32, 2-d, 3x3, unit strides and dilations, one group, static planes.
    pub fn of_conv(m: &Module, op: OpId) -> Option<Plane> {
        let ops = EpilogueOperands::of(m, op);
        let dims = |v: ValueId| m.ty(v).as_memref().map(|t| t.shape.clone());
        let (x, w, o) = (dims(ops.a)?, dims(ops.b)?, dims(ops.output)?);
        let ints = |k: &str| m.attr(op, k).and_then(Attribute::as_int_list).unwrap_or_default();
        let f32 = m.ty(ops.output).as_memref().is_some_and(|t| *t.elem == Type::f32());
        let unit = |k: &str| ints(k) == [1, 1];
        let one_group = m.attr(op, "group").and_then(Attribute::as_int) == Some(1);
        if !f32 || x.len() != 4 || w[2..] != [Some(3), Some(3)] || !unit("strides") || !unit("dilations") || !one_group
        {
            return None;
        }
        let at = |s: &[Option<u64>], k: usize| s[k].map(|d| d as usize);
        let plane = Plane {
            channels: at(&x, 1)?,
            filters: at(&o, 1)?,
            input: [at(&x, 2)?, at(&x, 3)?],
            out: [at(&o, 2)?, at(&o, 3)?],
            pad: [*ints("pads").first()? as usize, *ints("pads").get(1)? as usize],
        };
        Some(plane)
    }

    /// Whether the transforms pay for themselves on this plane (what `kernel-choose-strategies`
    /// asks before choosing Winograd).
    pub fn pays(&self) -> bool {
        self.channels >= MIN_CHANNELS && self.filters >= MIN_CHANNELS && self.out[0] * self.out[1] >= MIN_POSITIONS
    }

    /// The plane of a `kernel.conv` whose weights `kernel-pack-weights` transformed.
    fn of_transformed(m: &Module, op: OpId) -> Plane {
        let ops = EpilogueOperands::of(m, op);
        let dims = |v: ValueId| -> Vec<usize> {
            m.ty(v).as_memref().expect("verified").shape.iter().map(|d| d.unwrap_or(0) as usize).collect()
        };
        let (x, o) = (dims(ops.a), dims(ops.output));
        let pads = m.attr(op, "pads").and_then(Attribute::as_int_list).expect("verified");
        Plane {
            channels: x[1],
            filters: o[1],
            input: [x[2], x[3]],
            out: [o[2], o[3]],
            pad: [pads[0] as usize, pads[1] as usize],
        }
    }

    /// The tiles down and across the output.
    fn tiles(&self) -> [usize; 2] {
        [self.out[0].div_ceil(TILE), self.out[1].div_ceil(TILE)]
    }

    /// The vectors of tiles across a tile row.
    fn vectors(&self) -> usize {
        self.tiles()[1].div_ceil(NR)
    }
}

/// `U = G g Gᵀ` of each filter `k` and channel `c` of `[K, C, 3, 3]` f32 weights, as
/// `[4, 4, K, C]` (computed in f64, rounded once).
pub fn transform_filters(weights: &[f32], filters: usize, channels: usize) -> Vec<f32> {
    let mut u = vec![0f32; POSITIONS * filters * channels];
    for k in 0..filters {
        for c in 0..channels {
            let g = &weights[(k * channels + c) * 9..][..9];
            // G g: 4 x 3.
            let mut gg = [[0f64; 3]; SIDE];
            for (a, row) in gg.iter_mut().enumerate() {
                for (j, v) in row.iter_mut().enumerate() {
                    *v = (0..3).map(|i| G[a][i] * g[i * 3 + j] as f64).sum();
                }
            }
            for a in 0..SIDE {
                for b in 0..SIDE {
                    let v: f64 = (0..3).map(|j| gg[a][j] * G[b][j]).sum();
                    u[((a * SIDE + b) * filters + k) * channels + c] = v as f32;
                }
            }
        }
    }
    u
}

/// How a plane's tile rows go in blocks.
struct Blocking {
    /// Tile rows per full block.
    rows: usize,
    /// Full blocks.
    full: usize,
    /// The tile rows of the last, shorter block (none: 0).
    last: usize,
}

impl Blocking {
    fn of(p: &Plane) -> Blocking {
        let [down, across] = p.tiles();
        let tile_bytes = POSITIONS * (p.channels + p.filters) * 4;
        let rows = (BLOCK_BYTES / tile_bytes / across).max(NR.div_ceil(across)).min(down);
        Blocking { rows, full: down / rows, last: down % rows }
    }

    /// The columns of a block's GEMMs, and its buffers' leading dimension: its tiles, at least
    /// [`NR`] (the lanes past its tiles are never read).
    fn lead(&self, across: usize) -> usize {
        (self.rows * across).max(NR)
    }

    /// The elements from one position `ξ`'s `V` (`count` = C rows) or `M` (K rows) to the next:
    /// a cache line more than the rows, so the 16 planes a tile is stored to or read from fall in
    /// different cache sets (a power-of-two distance puts them all in one set).
    fn plane(&self, across: usize, count: usize) -> usize {
        count * self.lead(across) + NR
    }
}

/// The flat buffers of a convolution, and its epilogue.
#[derive(Clone, Copy)]
struct Operands {
    x: ValueId,
    u: ValueId,
    out: ValueId,
    residual: Option<ValueId>,
    bias: Option<ValueId>,
    act: Activation,
}

/// A block's buffers: its transformed input `V` (16 planes of `[C, lead]`, `v_plane` apart) and
/// products `M` (16 planes of `[K, lead]`, `m_plane` apart).
#[derive(Clone, Copy)]
struct Scratch {
    v: ValueId,
    m: ValueId,
    lead: usize,
    v_plane: usize,
    m_plane: usize,
}

/// Lowers a `kernel.conv` with `winograd` (its weights `[4, 4, K, C]`).
pub fn lower(c: &mut Cursor, op: OpId, batch: Extent, tiles: &[LevelTiles]) {
    let p = Plane::of_transformed(c.m, op);
    let ops = EpilogueOperands::of(c.m, op);
    let ep = Epilogue::of(c.m, op);
    let f = Operands {
        x: c.flat(ops.a),
        u: c.flat(ops.b),
        out: c.flat(ops.output),
        residual: ops.residual.map(|r| c.flat(r)),
        bias: ops.bias,
        act: Activation::of(c.m, &ep),
    };
    let blocks = Blocking::of(&p);
    let across = p.tiles()[1];
    let v = super::conv::plane_buffer(c, POSITIONS * blocks.plane(across, p.channels));
    let m = super::conv::plane_buffer(c, POSITIONS * blocks.plane(across, p.filters));
    c.for_loop_over(batch, |c, nb| image(c, (&p, tiles), &blocks, f, (v, m, nb)));
    for buf in [v, m] {
        c.op(OpSpec::new("memref.dealloc", Span::UNKNOWN).operands([buf]));
    }
}

/// One image, a block of tile rows after the other.
fn image(
    e: &mut Cursor,
    (p, tiles): (&Plane, &[LevelTiles]),
    blocks: &Blocking,
    f: Operands,
    (v, m, nb): (ValueId, ValueId, ValueId),
) {
    let across = p.tiles()[1];
    let (v_plane, m_plane) = (blocks.plane(across, p.channels), blocks.plane(across, p.filters));
    let scratch = Scratch { v, m, lead: blocks.lead(across), v_plane, m_plane };
    let x_at = e.affine(&[(nb, (p.channels * p.input[0] * p.input[1]) as i64)], 0);
    let o_at = e.affine(&[(nb, (p.filters * p.out[0] * p.out[1]) as i64)], 0);
    let step = Step { p, tiles, f, x_at, o_at };
    e.for_loop(0, blocks.full, |e, b| {
        let top = e.affine(&[(b, blocks.rows as i64)], 0);
        step.block(e, scratch, (top, blocks.rows));
    });
    if blocks.last > 0 {
        let top = e.idx((blocks.full * blocks.rows) as i64);
        step.block(e, scratch, (top, blocks.last));
    }
}

/// One image's convolution, a block of tile rows at a time.
struct Step<'a> {
    p: &'a Plane,
    tiles: &'a [LevelTiles],
    f: Operands,
    x_at: ValueId,
    o_at: ValueId,
}

impl Step<'_> {
    /// The `rows` tile rows from `top`: transform the input, multiply, transform the products.
    fn block(&self, e: &mut Cursor, s: Scratch, (top, rows): (ValueId, usize)) {
        let p = self.p;
        self.transform_input(e, s, (top, rows));
        let n = (rows * p.tiles()[1]).max(NR);
        let (k, c) = (p.filters, p.channels);
        e.parallel(&[POSITIONS], &mut |e, xi| {
            let a = Mat { buf: self.f.u, off: e.affine(&[(xi[0], (k * c) as i64)], 0), rs: Extent::Fixed(c), cs: 1 };
            let b_at = e.affine(&[(xi[0], s.v_plane as i64)], 0);
            let b = BOperand::Rows(Mat { buf: s.v, off: b_at, rs: Extent::Fixed(s.lead), cs: 1 });
            let c_at = e.affine(&[(xi[0], s.m_plane as i64)], 0);
            let cm = Mat { buf: s.m, off: c_at, rs: Extent::Fixed(s.lead), cs: 1 };
            let plain = TileEpilogue { bias: Bias::None, residual: None, act: Activation::default() };
            gemm(e, self.tiles, k, n, c, a, b, cm, plain);
        });
        self.transform_output(e, s, (top, rows));
    }

    /// `V = Bᵀ d B` of every channel's patches of the block's tiles, tile `t` of the block at
    /// `V[ξ][c][t]`, over chunks of channels ([`over_chunks`]).
    fn transform_input(&self, e: &mut Cursor, s: Scratch, (top, rows): (ValueId, usize)) {
        let p = self.p;
        let [h, w] = p.input;
        let across = p.tiles()[1];
        let zeros = lanes::zeros(e);
        over_chunks(e, p.channels, [rows, p.vectors()], &mut |e, (r, q), (first, end)| {
            let row0 = e.affine(&[(top, TILE as i64), (r, TILE as i64)], -(p.pad[0] as i64));
            let col0 = e.affine(&[(q, (TILE * NR) as i64)], -(p.pad[1] as i64));
            // Per patch row, the masks of the two runs' halves (columns from col0, col0 + NR,
            // col0 + 2, col0 + NR + 2).
            let halves = [0, NR, 2, NR + 2];
            let masks: Vec<Vec<ValueId>> = (0..SIDE)
                .map(|i| {
                    let row = e.affine(&[(row0, 1)], i as i64);
                    let h = e.idx(h as i64);
                    let inside = e.cmpi("ult", row, h);
                    halves
                        .iter()
                        .map(|&d| {
                            let start = e.affine(&[(col0, 1)], d as i64);
                            lanes::within(e, start, w, inside)
                        })
                        .collect()
                })
                .collect();
            let left = e.affine(&[(q, -(NR as i64))], across as i64);
            let tiles = lanes::first(e, left);
            let t0 = e.affine(&[(r, across as i64), (q, NR as i64)], 0);
            e.for_step(first, end, 1, |e, ch| {
                let plane = e.affine(&[(self.x_at, 1), (ch, (h * w) as i64), (row0, w as i64), (col0, 1)], 0);
                let d: Vec<[ValueId; SIDE]> = (0..SIDE)
                    .map(|i| {
                        let v: Vec<ValueId> = halves
                            .iter()
                            .enumerate()
                            .map(|(k, &dc)| {
                                let at = e.affine(&[(plane, 1)], (i * w + dc) as i64);
                                lanes::load(e, self.f.x, &[at], masks[i][k], zeros)
                            })
                            .collect();
                        let (even_a, odd_a) = (lanes::even_odd(e, v[0], v[1], 0), lanes::even_odd(e, v[0], v[1], 1));
                        let (even_b, odd_b) = (lanes::even_odd(e, v[2], v[3], 0), lanes::even_odd(e, v[2], v[3], 1));
                        [even_a, odd_a, even_b, odd_b]
                    })
                    .collect();
                let v = input_tile(e, &d);
                for (xi, &value) in v.iter().enumerate() {
                    let at = e.affine(&[(t0, 1), (ch, s.lead as i64)], (xi * s.v_plane) as i64);
                    lanes::store(e, value, s.v, &[at], tiles);
                }
            });
        });
    }

    /// Each output tile `Aᵀ M A` with the epilogue (bias, residual, activation), its two rows'
    /// lanes interleaved into runs of output columns, over chunks of filters ([`over_chunks`]).
    fn transform_output(&self, e: &mut Cursor, s: Scratch, (top, rows): (ValueId, usize)) {
        let p = self.p;
        let [oh, ow] = p.out;
        let across = p.tiles()[1];
        let f = self.f;
        let zeros = lanes::zeros(e);
        over_chunks(e, p.filters, [rows, p.vectors()], &mut |e, (r, q), (first, end)| {
            let left = e.affine(&[(q, -(NR as i64))], across as i64);
            let tiles = lanes::first(e, left);
            let t0 = e.affine(&[(r, across as i64), (q, NR as i64)], 0);
            let row0 = e.affine(&[(top, TILE as i64), (r, TILE as i64)], 0);
            let col0 = e.affine(&[(q, (TILE * NR) as i64)], 0);
            // Per output row of the tile, the masks of the two halves of its run of columns.
            let masks: Vec<[ValueId; 2]> = (0..TILE)
                .map(|i| {
                    let row = e.affine(&[(row0, 1)], i as i64);
                    let (oh, none) = (e.idx(oh as i64), e.idx(0));
                    let inside = e.cmpi("ult", row, oh);
                    [0, NR].map(|h| {
                        let count = e.affine(&[(col0, -1)], ow as i64 - h as i64);
                        let count = e.value_op("arith.select", &[inside, count, none], Type::Index);
                        lanes::first(e, count)
                    })
                })
                .collect();
            let plane0 = e.affine(&[(self.o_at, 1), (row0, ow as i64), (col0, 1)], 0);
            e.for_step(first, end, 1, |e, k| {
                let m: Vec<ValueId> = (0..POSITIONS)
                    .map(|xi| {
                        let at = e.affine(&[(t0, 1), (k, s.lead as i64)], (xi * s.m_plane) as i64);
                        lanes::load(e, s.m, &[at], tiles, zeros)
                    })
                    .collect();
                let mut y = output_tile(e, &m);
                if let Some(bias) = f.bias {
                    let b = e.load(bias, &[k]);
                    let b = e.value_op("vector.broadcast", &[b], lanes::of(Type::f32()));
                    y = y.map(|v| e.value_op("arith.addf", &[v, b], lanes::of(Type::f32())));
                }
                let plane = e.affine(&[(plane0, 1), (k, (oh * ow) as i64)], 0);
                for i in 0..TILE {
                    for (h, run) in lanes::interleave(e, y[i * TILE], y[i * TILE + 1]).into_iter().enumerate() {
                        let at = e.affine(&[(plane, 1)], (i * ow + h * NR) as i64);
                        let mut v = run;
                        if let Some(res) = f.residual {
                            let rv = lanes::load(e, res, &[at], masks[i][h], zeros);
                            v = e.value_op("arith.addf", &[v, rv], lanes::of(Type::f32()));
                        }
                        let v = apply_activation(e, v, f.act);
                        lanes::store(e, v, f.out, &[at], masks[i][h]);
                    }
                }
            });
        });
    }
}

/// The channels (or filters) a thread takes at a time in the transforms.
const CHUNK: usize = 8;

/// What [`over_chunks`] runs per (tile row, vector of tiles): given them and the chunk's
/// channels `[first, end)`.
type ChunkBody<'a> = dyn FnMut(&mut Cursor, (ValueId, ValueId), (ValueId, ValueId)) + 'a;

/// A parallel loop over chunks of [`CHUNK`] of `count` channels (or filters), each walking the
/// block's (tile row, vector of tiles) and calling `body` with them and its chunk's channels
/// `[first, end)`: `body` computes the masks of a (tile row, vector) once for the chunk. A thread
/// owns whole rows of `V` and whole output planes: split by tile rows, threads would write
/// the same cache lines (a tile row of `V` is a few tiles long).
fn over_chunks(e: &mut Cursor, count: usize, [rows, vectors]: [usize; 2], body: &mut ChunkBody) {
    e.parallel(&[count.div_ceil(CHUNK)], &mut |e, chunk| {
        let first = e.affine(&[(chunk[0], CHUNK as i64)], 0);
        let end = e.affine(&[(first, 1)], CHUNK as i64);
        let end = match count % CHUNK {
            0 => end,
            _ => {
                let count = e.idx(count as i64);
                e.value_op("arith.minui", &[end, count], Type::Index)
            }
        };
        e.for_loop(0, rows, |e, r| e.for_loop(0, vectors, |e, q| body(e, (r, q), (first, end))));
    });
}

/// `Bᵀ d B` of a 4x4 patch `d[row][column]` (vectors of tiles), as `V[4 a + b]`. `Bᵀ` takes rows
/// (d0 - d2, d1 + d2, d2 - d1, d1 - d3).
fn input_tile(e: &mut Cursor, d: &[[ValueId; SIDE]]) -> Vec<ValueId> {
    let combine = |e: &mut Cursor, x: [ValueId; SIDE]| -> [ValueId; SIDE] {
        let vt = lanes::of(Type::f32());
        [
            e.value_op("arith.subf", &[x[0], x[2]], vt.clone()),
            e.value_op("arith.addf", &[x[1], x[2]], vt.clone()),
            e.value_op("arith.subf", &[x[2], x[1]], vt.clone()),
            e.value_op("arith.subf", &[x[1], x[3]], vt),
        ]
    };
    // Bᵀ d, column by column; then each row of that times B.
    let columns: Vec<[ValueId; SIDE]> = (0..SIDE).map(|j| combine(e, [d[0][j], d[1][j], d[2][j], d[3][j]])).collect();
    (0..SIDE).flat_map(|a| combine(e, [columns[0][a], columns[1][a], columns[2][a], columns[3][a]])).collect()
}

/// `Aᵀ M A` of a 4x4 tile of products `m[4 a + b]`, as the 2x2 output `y[2 i + j]`. `Aᵀ` takes
/// rows (m0 + m1 + m2, m1 - m2 - m3).
fn output_tile(e: &mut Cursor, m: &[ValueId]) -> [ValueId; TILE * TILE] {
    let combine = |e: &mut Cursor, x: [ValueId; SIDE]| -> [ValueId; TILE] {
        let vt = lanes::of(Type::f32());
        let s = e.value_op("arith.addf", &[x[0], x[1]], vt.clone());
        let d = e.value_op("arith.subf", &[x[1], x[2]], vt.clone());
        [e.value_op("arith.addf", &[s, x[2]], vt.clone()), e.value_op("arith.subf", &[d, x[3]], vt)]
    };
    let columns: Vec<[ValueId; TILE]> = (0..SIDE).map(|b| combine(e, [m[b], m[4 + b], m[8 + b], m[12 + b]])).collect();
    let rows: Vec<[ValueId; TILE]> =
        (0..TILE).map(|i| combine(e, [columns[0][i], columns[1][i], columns[2][i], columns[3][i]])).collect();
    [rows[0][0], rows[0][1], rows[1][0], rows[1][1]]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// F(2, 3) in one dimension through the same matrices: `Aᵀ [(G g) ⊙ (Bᵀ d)]` is the
    /// correlation of d with g, for every d and g (hand-computed against the direct sums).
    #[test]
    fn filter_transform_gives_the_correlation() {
        let g = [0.5f32, -1.25, 2.0, 0.75, 1.5, -0.5, 3.0, 0.25, -2.0];
        let u = transform_filters(&g, 1, 1);
        let d: Vec<f64> = (0..16).map(|i| ((i * 7 % 11) as f64) - 4.5).collect();
        // V = Bᵀ d B.
        let bt = [[1.0, 0.0, -1.0, 0.0], [0.0, 1.0, 1.0, 0.0], [0.0, -1.0, 1.0, 0.0], [0.0, 1.0, 0.0, -1.0]];
        let at = [[1.0, 1.0, 1.0, 0.0], [0.0, 1.0, -1.0, -1.0]];
        let mut v = [[0f64; 4]; 4];
        for (a, row) in v.iter_mut().enumerate() {
            for (b, x) in row.iter_mut().enumerate() {
                *x = (0..4)
                    .flat_map(|i| (0..4).map(move |j| (i, j)))
                    .map(|(i, j)| bt[a][i] * d[i * 4 + j] * bt[b][j])
                    .sum();
            }
        }
        for oi in 0..2 {
            for oj in 0..2 {
                let y: f64 = (0..4)
                    .flat_map(|a| (0..4).map(move |b| (a, b)))
                    .map(|(a, b)| at[oi][a] * (u[a * 4 + b] as f64 * v[a][b]) * at[oj][b])
                    .sum();
                let direct: f64 = (0..3)
                    .flat_map(|i| (0..3).map(move |j| (i, j)))
                    .map(|(i, j)| d[(oi + i) * 4 + oj + j] * g[i * 3 + j] as f64)
                    .sum();
                assert!((y - direct).abs() < 1e-5, "output ({oi}, {oj}): {y} against {direct}");
            }
        }
    }
}
