//! The im2col strategy: an f32 convolution as a GEMM per image and group on the micro-kernel of
//! [`crate::kernel::matmul`], its input windows gathered into column panels (or read in place for
//! a 1x1, unit-stride, unpadded convolution); see the module above for the blocking.

use super::*;

pub(super) fn conv_gemm(
    c: &mut Cursor,
    ops: &EpilogueOperands,
    ep: &Epilogue,
    (batch, x, w): Dims,
    win: &Window,
    cpu: &CpuGemm,
) {
    let kk: usize = w[1..].iter().product();
    let p = win.positions(c);
    let (x1, w1, o1) = (c.flat(ops.a), c.flat(ops.b), c.flat(ops.output));
    let residual = ops.residual.map(|v| c.flat(v));
    // A pointwise convolution reads its input in place, as a GEMM over static columns; a plane
    // known only at run time, or too large for the cache, goes through im2col a block of columns
    // at a time.
    let columns = match p {
        Extent::Fixed(_) if win.is_pointwise() => Columns::InPlace,
        Extent::Fixed(p) if 4 * kk * p <= cpu.static_plane_bytes() => Columns::Plane(im2col_buffer(c, kk, p)),
        Extent::Fixed(p) => {
            let width = block_columns(kk, Some(p), cpu.block_bytes());
            Columns::Blocks(im2col_buffer(c, kk, block_slots(p, width) * width))
        }
        _ => Columns::Blocks(im2col_buffer(c, kk, block_columns(kk, None, cpu.block_bytes()))),
    };
    let shifted = match columns {
        Columns::InPlace => None,
        _ => ShiftedPlane::of(win).map(|plane| {
            let phases = plane.is_strided().then(|| plane_buffer(c, x[1] / win.group * plane.phase_elements()));
            (plane, phases)
        }),
    };
    let flat =
        FlatConv { x1, w1, o1, residual, columns, shifted, tiles: cpu.tiles.clone(), block_bytes: cpu.block_bytes() };
    match batch {
        Extent::Fixed(n) => (0..n).for_each(|nb| conv_image(c, ops, ep, (x, w), win, &flat, Image::At(nb))),
        // Images one after the other: each GEMM is parallel inside.
        Extent::Value(n) => {
            let zero = c.idx(0);
            c.for_step(zero, n, 1, |c, nb| conv_image(c, ops, ep, (x, w), win, &flat, Image::Var(nb)));
        }
    }
    if let Columns::Plane(col) | Columns::Blocks(col) = columns {
        c.op(OpSpec::new("memref.dealloc", Span::UNKNOWN).operands([col]));
    }
    if let Some((_, Some(phases))) = flat.shifted {
        c.op(OpSpec::new("memref.dealloc", Span::UNKNOWN).operands([phases]));
    }
}

/// A buffer for the im2col columns of `p` output positions, `kk` rows each, in panels of NR
/// columns.
fn im2col_buffer(c: &mut Cursor, kk: usize, p: usize) -> ValueId {
    plane_buffer(c, kk * p.div_ceil(NR) * NR)
}

/// A 64-byte aligned f32 buffer of `elements` (placed in the workspace by `plan-workspace`).
pub fn plane_buffer(c: &mut Cursor, elements: usize) -> ValueId {
    super::super::aligned_buffer(c, Type::f32(), elements)
}

/// What a CPU convolution's GEMM takes from the target: its register tiles by CPU level and the
/// L2 cache its im2col blocks are sized for (the op's `register_tiles` and `l2_cache_bytes`,
/// recorded by `kernel-choose-strategies`).
pub struct CpuGemm {
    pub tiles: Vec<LevelTiles>,
    pub l2_bytes: usize,
}

impl CpuGemm {
    /// The im2col buffer a plane known only at run time is gathered through, in bytes: the
    /// plane goes a block of columns at a time, so the workspace stays static and the block's
    /// columns stay in the L2 cache (a quarter of it, beside the weights and the outputs) while
    /// the GEMM streams them.
    fn block_bytes(&self) -> usize {
        self.l2_bytes / 4
    }

    /// A static plane whose im2col columns would take more bytes than the L2 cache goes in
    /// blocks too.
    fn static_plane_bytes(&self) -> usize {
        self.l2_bytes
    }
}

/// How many blocks of a static plane of `p` positions are gathered and multiplied at once, each
/// by one thread in a region of its own: up to this many threads share a convolution's blocks.
const BLOCK_SLOTS: usize = 8;

/// The slots of a static plane of `p` positions in blocks of `width` (at least one, for its
/// last block).
fn block_slots(p: usize, width: usize) -> usize {
    (p / width).clamp(1, BLOCK_SLOTS)
}

/// The output positions of one block for `kk` rows: a whole number of the widest GEMM tiles (two
/// panels), 2 to 32 of them, so that only the plane's last block ends in a narrower tile. A
/// static plane of `p` positions too small for [`BLOCK_SLOTS`] such blocks takes narrower ones,
/// down to one tile, so that its blocks still spread over the cores.
fn block_columns(kk: usize, p: Option<usize>, block_bytes: usize) -> usize {
    let tile = 2 * NR;
    let width = (block_bytes / (4 * kk * tile)).clamp(2, 32) * tile;
    match p {
        Some(p) => width.min((p / BLOCK_SLOTS / tile).max(1) * tile),
        None => width,
    }
}

/// A convolution's batch extent, and its input's and weights' dims (the batch and run-time
/// spatial dims as 0).
pub(super) type Dims<'a> = (Extent, &'a [usize], &'a [usize]);

/// The flat buffers a convolution's GEMMs read and write, and its im2col columns if any.
struct FlatConv {
    /// The GEMM's register tiles (the op's `register_tiles`).
    tiles: Vec<LevelTiles>,
    /// The bytes of one block of im2col columns ([`CpuGemm::block_bytes`]).
    block_bytes: usize,
    x1: ValueId,
    w1: ValueId,
    o1: ValueId,
    residual: Option<ValueId>,
    columns: Columns,
    /// How the columns are gathered as shifted copies of the input, when they can be, with the
    /// buffer for the input's phases when the convolution is strided.
    shifted: Option<(ShiftedPlane, Option<ValueId>)>,
}

/// Where a convolution's GEMM finds its columns.
#[derive(Clone, Copy)]
enum Columns {
    /// The input itself (a pointwise convolution).
    InPlace,
    /// The whole plane's im2col columns, in this buffer.
    Plane(ValueId),
    /// One block of columns at a time, through this buffer.
    Blocks(ValueId),
}

/// One image's GEMMs, one per group.
fn conv_image(
    c: &mut Cursor,
    ops: &EpilogueOperands,
    ep: &Epilogue,
    (x, w): (&[usize], &[usize]),
    win: &Window,
    f: &FlatConv,
    nb: Image,
) {
    let group = win.group;
    let (oc, icg) = (w[0], w[1]);
    let ocg = oc / group;
    let c_in = x[1];
    let kk: usize = w[1..].iter().product();
    let p = win.positions(c);
    let hw = c.extent_product(&win.input);
    let act = Activation::of(c.m, ep);
    let (group_in, image_in) = (c.extent_mul(hw, Extent::Fixed(icg)), c.extent_mul(hw, Extent::Fixed(c_in)));
    let (group_out, image_out) = (c.extent_mul(p, Extent::Fixed(ocg)), c.extent_mul(p, Extent::Fixed(oc)));
    c.for_loop(0, group, |e, gi| {
        let source = f.shifted.as_ref().map(|(plane, phases)| plane.source(e, (f.x1, *phases), nb, (c_in, gi, icg)));
        let b = match f.columns {
            Columns::Blocks(col) => {
                let plane = PlaneGemm { f, col, nb, c_in, icg, ocg, kk, bias: ops.bias, act };
                return plane.in_blocks(e, win, (gi, source), (p, group_out, image_out));
            }
            Columns::InPlace => {
                let off = nb.offset(e, &[(gi, group_in)], image_in);
                BOperand::Rows(Mat { buf: f.x1, off, rs: hw, cs: 1 })
            }
            Columns::Plane(col) => {
                let zero = e.idx(0);
                match (&f.shifted, source) {
                    (Some((plane, _)), Some(source)) => {
                        plane.gather(e, source, (col, zero), (zero, p.fixed().expect("a static plane")))
                    }
                    _ => im2col(e, (f.x1, col), nb, (c_in, gi), icg, win),
                }
                BOperand::Panels { buf: col, off: zero }
            }
        };
        let a_off = e.affine(&[(gi, (ocg * kk) as i64)], 0);
        let a = Mat { buf: f.w1, off: a_off, rs: Extent::Fixed(kk), cs: 1 };
        let c_off = nb.offset(e, &[(gi, group_out)], image_out);
        let cm = Mat { buf: f.o1, off: c_off, rs: p, cs: 1 };
        let bias = match ops.bias {
            Some(bb) => Bias::Rows(bb, e.affine(&[(gi, ocg as i64)], 0)),
            None => Bias::None,
        };
        let residual = f.residual.map(|r| Mat { buf: r, off: c_off, rs: p, cs: 1 });
        let ep = TileEpilogue { bias, residual, act };
        gemm(e, &f.tiles, ocg, p.fixed().expect("a static plane"), kk, a, b, cm, ep);
    });
}

/// One image's and group's GEMM over an output plane known only at run time.
struct PlaneGemm<'a> {
    f: &'a FlatConv,
    col: ValueId,
    nb: Image,
    c_in: usize,
    icg: usize,
    ocg: usize,
    kk: usize,
    bias: Option<ValueId>,
    act: Activation,
}

impl PlaneGemm<'_> {
    /// The plane's `p` positions in blocks of [`block_columns`]: each gathered into the panels,
    /// then multiplied into its columns of the output (the last block narrower). A static plane's
    /// blocks have static widths, so each runs the static GEMM.
    fn in_blocks(
        &self,
        e: &mut Cursor,
        win: &Window,
        (gi, source): (ValueId, Option<PlaneSource>),
        (p, group_out, image_out): (Extent, Extent, Extent),
    ) {
        let (f, kk, ocg) = (self.f, self.kk, self.ocg);
        let width = block_columns(kk, p.fixed(), f.block_bytes);
        let a_off = e.affine(&[(gi, (ocg * kk) as i64)], 0);
        let a = Mat { buf: f.w1, off: a_off, rs: Extent::Fixed(kk), cs: 1 };
        let plane_off = self.nb.offset(e, &[(gi, group_out)], image_out);
        let bias = match self.bias {
            Some(bb) => Bias::Rows(bb, e.affine(&[(gi, ocg as i64)], 0)),
            None => Bias::None,
        };
        let zero = e.idx(0);
        // One block: its columns from `first`, `count` of them, gathered into the panels at
        // `region` and multiplied.
        let block = |e: &mut Cursor, first: ValueId, count: Extent, region: ValueId| {
            let count_v = e.extent(count);
            let panels = BOperand::Panels { buf: self.col, off: region };
            match (&f.shifted, source, count) {
                (Some((plane, _)), Some(source), Extent::Fixed(n)) => {
                    plane.gather(e, source, (self.col, region), (first, n))
                }
                _ => {
                    let cols = (f.x1, self.col, region);
                    im2col_block(e, cols, self.nb, (self.c_in, gi, self.icg), win, (first, count_v))
                }
            }
            let off = e.affine(&[(plane_off, 1), (first, 1)], 0);
            let cm = Mat { buf: f.o1, off, rs: p, cs: 1 };
            let residual = f.residual.map(|r| Mat { buf: r, off, rs: p, cs: 1 });
            let ep = TileEpilogue { bias, residual, act: self.act };
            match count {
                Extent::Fixed(n) => gemm(e, &f.tiles, ocg, n, kk, a, panels, cm, ep),
                Extent::Value(n) => gemm_cols_at_run_time(e, &f.tiles, ocg, n, kk, a, panels, cm, ep),
            }
        };
        match p {
            // The full blocks dealt to slots, a parallel loop: slot `s` takes blocks s, s + slots,
            // ... in turn, in its own region of the buffer, so one thread gathers a block and
            // multiplies it while it is in that core's cache. Then the last, narrower block.
            Extent::Fixed(p) => {
                let (full, slots) = (p / width, block_slots(p, width));
                let full_v = e.idx(full as i64);
                e.parallel(&[slots], &mut |e, s| {
                    let region = e.affine(&[(s[0], (kk * width) as i64)], 0);
                    e.for_step(s[0], full_v, slots, |e, b| {
                        let first = e.affine(&[(b, width as i64)], 0);
                        block(e, first, Extent::Fixed(width), region);
                    });
                });
                if p % width > 0 {
                    let first = e.idx((full * width) as i64);
                    block(e, first, Extent::Fixed(p % width), zero);
                }
            }
            Extent::Value(p) => {
                let blocks = e.affine(&[(p, 1)], width as i64 - 1);
                let width_v = e.idx(width as i64);
                let blocks = e.value_op("arith.divui", &[blocks, width_v], Type::Index);
                e.for_step(zero, blocks, 1, |e, b| {
                    let first = e.affine(&[(b, width as i64)], 0);
                    let left = e.value_op("arith.subi", &[p, first], Type::Index);
                    let count = e.value_op("arith.minui", &[left, width_v], Type::Index);
                    block(e, first, Extent::Value(count), zero);
                });
            }
        }
    }
}

/// A convolution over a static input whose output has the extents of the input's phases past
/// the first spatial dim (a "same" padding): the input split by the strides into phases (phase
/// `f` of a dim holds its positions `f`, `f + stride`, ...; one phase, the input itself, without
/// strides), output position `pos` at kernel position `ks` reads one phase at `pos + shift(ks)`,
/// one offset for every position. So a panel of a tap row is one vector load from the input or
/// its phases, its lanes in the padding masked off.
struct ShiftedPlane {
    /// The output's extents and row-major strides; the input's extents; its phases' extents
    /// (`ceil(input / stride)`) and row-major strides.
    out: Vec<usize>,
    out_strides: Vec<usize>,
    input: Vec<usize>,
    phase: Vec<usize>,
    phase_strides: Vec<usize>,
    /// Per spatial dim: `kernel, dilation, begin pad, stride`.
    taps: Vec<(usize, usize, usize, usize)>,
}

/// Where the shifted copies come from: the group's `channels` channels, the first at `base` in
/// `buf`, each `channel` elements after the one before.
#[derive(Clone, Copy)]
struct PlaneSource {
    buf: ValueId,
    base: ValueId,
    channel: usize,
    channels: usize,
}

impl ShiftedPlane {
    fn of(win: &Window) -> Option<ShiftedPlane> {
        let statics = |v: &[Extent]| v.iter().map(|e| e.fixed()).collect::<Option<Vec<usize>>>();
        let (input, out) = (statics(&win.input)?, statics(&win.out)?);
        let phase: Vec<usize> = input.iter().zip(&win.strides).map(|(&n, &s)| n.div_ceil(s)).collect();
        let elements = input.iter().product::<usize>() * win.strides.iter().product::<usize>();
        (phase[1..] == out[1..] && elements < i32::MAX as usize / 2).then(|| ShiftedPlane {
            out_strides: strides_of(&out),
            out,
            input,
            phase_strides: strides_of(&phase),
            phase,
            taps: (0..win.kernel.len())
                .map(|q| (win.kernel[q], win.dilations[q], win.pads[q], win.strides[q]))
                .collect(),
        })
    }

    fn is_strided(&self) -> bool {
        self.taps.iter().any(|t| t.3 > 1)
    }

    /// The phases the strides split the input into.
    fn phases(&self) -> usize {
        self.taps.iter().map(|t| t.3).product()
    }

    /// The elements of one channel's phases.
    fn phase_elements(&self) -> usize {
        self.phases() * self.phase.iter().product::<usize>()
    }

    /// Where group `gi`'s channels are read from: the input, or (strided) its phases, split into
    /// `phases` first.
    fn source(
        &self,
        e: &mut Cursor,
        (x1, phases): (ValueId, Option<ValueId>),
        nb: Image,
        (c_in, gi, icg): (usize, ValueId, usize),
    ) -> PlaneSource {
        let plane: usize = self.input.iter().product();
        let first = e.affine(&[(gi, (icg * plane) as i64)], 0);
        let base = nb.offset(e, &[(first, Extent::Fixed(1))], Extent::Fixed(c_in * plane));
        match phases {
            None => PlaneSource { buf: x1, base, channel: plane, channels: icg },
            Some(buf) => {
                self.split_phases(e, (x1, base), buf, icg);
                let zero = e.idx(0);
                PlaneSource { buf, base: zero, channel: self.phase_elements(), channels: icg }
            }
        }
    }

    /// Copies `icg` channels of the input from `base` into their phases in `buf`: channel `ic`,
    /// phase `f` (row-major over the dims' phases), position `r` at
    /// `ic * phase_elements + f * phase plane + r`, from input position `r * stride + f` (0 past
    /// the input's end). A parallel loop over channels, phases and phase rows.
    fn split_phases(&self, e: &mut Cursor, (x1, base): (ValueId, ValueId), buf: ValueId, icg: usize) {
        let strides: Vec<usize> = self.taps.iter().map(|t| t.3).collect();
        let (phase_plane, rows) = (self.phase.iter().product::<usize>(), self.phase[0]);
        let plane: usize = self.input.iter().product();
        let in_strides = strides_of(&self.input);
        e.parallel(&[icg, self.phases(), rows], &mut |e, ivs| {
            let (ic, f, row) = (ivs[0], ivs[1], ivs[2]);
            let fs = e.unflatten_over(f, &fixed(&strides));
            let rest = &self.phase[1..];
            e.for_loop(0, phase_plane / rows, |e, t| {
                let mut r = vec![row];
                r.extend(e.unflatten_over(t, &fixed(rest)));
                let mut ok = None;
                let mut terms = vec![(base, 1), (ic, plane as i64)];
                for q in 0..r.len() {
                    let at = e.affine(&[(r[q], strides[q] as i64), (fs[q], 1)], 0);
                    let at = e.clamp_tap(at, self.input[q], &mut ok);
                    terms.push((at, in_strides[q] as i64));
                }
                let src = e.affine(&terms, 0);
                let v = e.load(x1, &[src]);
                let zero = e.const_float(0.0, Type::f32());
                let v = e.value_op("arith.select", &[ok.expect("one dim or more"), v, zero], Type::f32());
                let dst = e.affine(
                    &[
                        (ic, self.phase_elements() as i64),
                        (f, phase_plane as i64),
                        (row, (phase_plane / rows) as i64),
                        (t, 1),
                    ],
                    0,
                );
                e.store(v, buf, &[dst]);
            });
        });
    }

    /// The im2col panels of the `count` output positions from `first` at `region` of `col`: a
    /// parallel loop over (kernel position, panel), each computing its lanes' mask once and then
    /// copying one vector per input channel of the group.
    fn gather(
        &self,
        e: &mut Cursor,
        src: PlaneSource,
        (col, region): (ValueId, ValueId),
        (first, count): (ValueId, usize),
    ) {
        let kernel: Vec<usize> = self.taps.iter().map(|t| t.0).collect();
        let positions = kernel.iter().product::<usize>();
        let (channels, rows) = (src.channels, src.channels * positions);
        e.parallel(&[positions, count.div_ceil(NR)], &mut |e, ivs| {
            let (kp, panel) = (ivs[0], ivs[1]);
            let ks = e.unflatten_over(kp, &fixed(&kernel));
            let pos0 = e.affine(&[(first, 1), (panel, NR as i64)], 0);
            let left = e.affine(&[(panel, -(NR as i64))], count as i64);
            let mask = self.mask(e, pos0, left, &ks);
            let shift = self.shift(e, &ks);
            let src0 = e.affine(&[(src.base, 1), (pos0, 1), (shift, 1)], 0);
            let dst0 = e.affine(&[(region, 1), (panel, (rows * NR) as i64), (kp, NR as i64)], 0);
            let zeros = lanes::zeros(e);
            e.for_loop(0, channels, |e, ic| {
                let at = e.affine(&[(src0, 1), (ic, src.channel as i64)], 0);
                let v = lanes::load(e, src.buf, &[at], mask, zeros);
                let dst = e.affine(&[(dst0, 1), (ic, (positions * NR) as i64)], 0);
                e.op(OpSpec::new("vector.store", Span::UNKNOWN).operands([v, col, dst]));
            });
        });
    }

    /// The tap offset of kernel position `ks` along each dim, `k * dilation - pad`, as the phase
    /// it falls in and the shift within that phase: `(offset mod stride, floor(offset / stride))`,
    /// taken on the offset made non-negative by whole strides.
    fn phase_and_shift(&self, e: &mut Cursor, q: usize, k: ValueId) -> (ValueId, ValueId) {
        let (_, d, pad, s) = self.taps[q];
        let lift = pad.div_ceil(s) * s;
        let offset = e.affine(&[(k, d as i64)], (lift - pad) as i64);
        let sv = e.idx(s as i64);
        let phase = e.value_op("arith.remui", &[offset, sv], Type::Index);
        let whole = e.value_op("arith.divui", &[offset, sv], Type::Index);
        (phase, e.affine(&[(whole, 1)], -((lift / s) as i64)))
    }

    /// Where kernel position `ks` reads relative to the output position, in the source: its
    /// phase's start plus the shifts within the phase along each dim.
    fn shift(&self, e: &mut Cursor, ks: &[ValueId]) -> ValueId {
        let phase_plane: usize = self.phase.iter().product();
        let mut terms = Vec::new();
        let mut phase_stride = phase_plane;
        for q in (0..self.taps.len()).rev() {
            let (phase, shift) = self.phase_and_shift(e, q, ks[q]);
            terms.push((phase, phase_stride as i64));
            terms.push((shift, self.phase_strides[q] as i64));
            phase_stride *= self.taps[q].3;
        }
        e.affine(&terms, 0)
    }

    /// The lanes of the panel from output position `pos0` that are below `count` and whose tap
    /// at `ks` is inside the input, as an i1 vector: each lane's spatial position from its flat
    /// one (i32 lanes), then one unsigned comparison per dim.
    fn mask(&self, e: &mut Cursor, pos0: ValueId, count: ValueId, ks: &[ValueId]) -> ValueId {
        let it = lanes::of(Type::i32());
        let splat = |e: &mut Cursor, v: ValueId| {
            let v = e.value_op("arith.index_cast", &[v], Type::i32());
            e.value_op("vector.broadcast", &[v], it.clone())
        };
        let numbers = Attribute::Dense { values: DenseValues::Int((0..NR as i128).collect()), ty: it.clone() };
        let numbers = e.value_attr("arith.constant", &[], it.clone(), vec![("value", numbers)]);
        let mut mask = lanes::first(e, count);
        let base = splat(e, pos0);
        let pos = e.value_op("arith.addi", &[base, numbers], it.clone());
        for (q, &(_, d, pad, s)) in self.taps.iter().enumerate() {
            let stride = e.splat_const(self.out_strides[q] as f64, it.clone());
            let mut o = e.value_op("arith.divui", &[pos, stride], it.clone());
            if q > 0 {
                let extent = e.splat_const(self.out[q] as f64, it.clone());
                o = e.value_op("arith.remui", &[o, extent], it.clone());
            }
            if s > 1 {
                let s = e.splat_const(s as f64, it.clone());
                o = e.value_op("arith.muli", &[o, s], it.clone());
            }
            let offset = e.affine(&[(ks[q], d as i64)], -(pad as i64));
            let offset = splat(e, offset);
            let at = e.value_op("arith.addi", &[o, offset], it.clone());
            let size = e.splat_const(self.input[q] as f64, it.clone());
            let inside = e.cmpi("ult", at, size);
            mask = e.value_op("arith.andi", &[mask, inside], lanes::of(Type::i1()));
        }
        mask
    }
}

/// Writes tap row `ic * K + kpos` of output position `opos` into column panels, at
/// `(opos / NR) * rows * NR + row * NR + opos % NR`, for one image and group; taps in the padding
/// are 0. The lanes past P in the last panel are left as they are: their columns are not stored.
fn im2col(
    c: &mut Cursor,
    (x1, col): (ValueId, ValueId),
    nb: Image,
    (c_in, gi): (usize, ValueId),
    icg: usize,
    win: &Window,
) {
    let ns = win.input.len();
    let taps = Taps::new(c, (x1, nb), (c_in, gi, icg), win);
    let o_strides = strides_over(c, &win.out);
    let mut shape = vec![Extent::Fixed(icg)];
    shape.extend(win.kernel.iter().map(|&k| Extent::Fixed(k)));
    shape.extend(&win.out);
    c.parallel_over(&shape, &mut |e, ivs| {
        let (ic, ks, os) = (ivs[0], &ivs[1..1 + ns], &ivs[1 + ns..]);
        let v = taps.value(e, ic, ks, os);
        let pos_terms: Vec<(ValueId, Extent)> = os.iter().zip(&o_strides).map(|(&o, &s)| (o, s)).collect();
        let opos = e.affine_over(&pos_terms, 0);
        store_in_panels(e, v, col, (ic, ks, opos), icg, win);
    });
}

/// [`im2col`] for the `count` output positions from `first` (a block of a plane known only at
/// run time), written as columns 0 to `count` of the panels. A parallel loop over the tap rows;
/// each walks the output rows the block touches. In a row, the leading spatial taps are tested
/// once, and the last dim's columns split into those whose tap is inside the input, copied with
/// no test, and those in the padding, zeroed; each range goes a panel at a time, so that loads
/// and stores are unit-stride (for stride 1), each panel's run one masked vector.
fn im2col_block(
    c: &mut Cursor,
    (x1, col, region): (ValueId, ValueId, ValueId),
    nb: Image,
    (c_in, gi, icg): (usize, ValueId, usize),
    win: &Window,
    (first, count): (ValueId, ValueId),
) {
    let ns = win.input.len();
    let taps = Taps::new(c, (x1, nb), (c_in, gi, icg), win);
    let width = c.extent(win.out[ns - 1]);
    let last = c.affine(&[(first, 1), (count, 1)], -1);
    let row_first = c.value_op("arith.divui", &[first, width], Type::Index);
    let col_first = c.value_op("arith.remui", &[first, width], Type::Index);
    let row_last = c.value_op("arith.divui", &[last, width], Type::Index);
    let col_end = c.value_op("arith.remui", &[last, width], Type::Index);
    let col_end = c.affine(&[(col_end, 1)], 1);
    let rows_end = c.affine(&[(row_last, 1)], 1);
    let mut shape = vec![icg];
    shape.extend(&win.kernel);
    c.parallel(&shape, &mut |e, ivs| {
        let (ic, ks) = (ivs[0], &ivs[1..1 + ns]);
        let tap_row = tap_row(e, ic, ks, win);
        e.for_step(row_first, rows_end, 1, |e, row| {
            let zero = e.idx(0);
            let is_first = e.cmpi("eq", row, row_first);
            let lo = e.value_op("arith.select", &[is_first, col_first, zero], Type::Index);
            let is_last = e.cmpi("eq", row, row_last);
            let hi = e.value_op("arith.select", &[is_last, col_end, width], Type::Index);
            let lead = leading_position(e, row, &win.out[..ns - 1]);
            let (src_row, inside) = taps.row_start(e, ic, ks, &lead);
            let (a, b) = taps.inside_columns(e, ks[ns - 1], inside, (lo, hi));
            let start = e.value_op("arith.muli", &[row, width], Type::Index);
            let base = e.value_op("arith.subi", &[start, first], Type::Index);
            let panels = Panels { col, region, tap_row, base, rows: icg * win.kernel.iter().product::<usize>() };
            let (stride, shift) = (win.strides[ns - 1] as i64, taps.column_shift(e, ks[ns - 1]));
            panels.fill(e, (lo, a), Fill::Zero);
            panels.fill(e, (a, b), Fill::Input { x1, row: src_row, shift, stride });
            panels.fill(e, (b, hi), Fill::Zero);
        });
    });
}

/// The leading spatial position of output row `row` (a flat index over `lead`, the output's
/// dims but the last), with no remainder for the first dim, which the row cannot pass: a 2-d
/// convolution's row is its position, with no division.
fn leading_position(e: &mut Cursor, row: ValueId, lead: &[Extent]) -> Vec<ValueId> {
    let mut position = e.unflatten_over(row, lead);
    if let Some(first) = position.first_mut() {
        let stride = e.extent_product(&lead[1..]);
        *first = match stride {
            Extent::Fixed(1) => row,
            stride => {
                let stride = e.extent(stride);
                e.value_op("arith.divui", &[row, stride], Type::Index)
            }
        };
    }
    position
}

/// The tap row of input channel `ic` of the group and kernel position `ks`: `ic * K + kpos`.
fn tap_row(e: &mut Cursor, ic: ValueId, ks: &[ValueId], win: &Window) -> ValueId {
    let ksp: usize = win.kernel.iter().product();
    let k_strides = strides_of(&win.kernel);
    let mut terms: Vec<(ValueId, i64)> = vec![(ic, ksp as i64)];
    terms.extend(ks.iter().zip(&k_strides).map(|(&k, &s)| (k, s as i64)));
    e.affine(&terms, 0)
}

/// One tap row of a block's column panels, its column `base + ow` for the output column `ow` of
/// the row being gathered.
struct Panels {
    col: ValueId,
    /// Where the block's panels start in `col`.
    region: ValueId,
    tap_row: ValueId,
    base: ValueId,
    /// The tap rows, K.
    rows: usize,
}

/// What a run of columns of a tap row holds.
#[derive(Clone, Copy)]
enum Fill {
    /// Zeros: taps in the padding.
    Zero,
    /// Output column `ow` reads the input at `row + ow * stride + shift`.
    Input { x1: ValueId, row: ValueId, shift: ValueId, stride: i64 },
}

impl Panels {
    /// Writes `fill` at the columns of `ow` in `[from, to)`, panel by panel: within a panel the
    /// columns are consecutive lanes, written by one masked vector store, of zeros, of one
    /// masked load for unit stride, or of the even elements of two for stride 2; a wider stride
    /// goes lane by lane.
    fn fill(&self, e: &mut Cursor, (from, to): (ValueId, ValueId), fill: Fill) {
        let nr = e.idx(NR as i64);
        let first = e.affine(&[(self.base, 1), (from, 1)], 0);
        let end = e.affine(&[(self.base, 1), (to, 1)], NR as i64 - 1);
        let (p0, p1) =
            (e.value_op("arith.divui", &[first, nr], Type::Index), e.value_op("arith.divui", &[end, nr], Type::Index));
        let nonempty = e.cmpi("slt", from, to);
        let p1 = e.value_op("arith.select", &[nonempty, p1, p0], Type::Index);
        e.for_step(p0, p1, 1, |e, p| {
            // The output columns in panel p: [p * NR - base, p * NR + NR - base) within [from, to).
            let lo = e.affine(&[(p, NR as i64), (self.base, -1)], 0);
            let lo = e.value_op("arith.maxsi", &[lo, from], Type::Index);
            let hi = e.affine(&[(p, NR as i64), (self.base, -1)], NR as i64);
            let hi = e.value_op("arith.minsi", &[hi, to], Type::Index);
            // Lane of ow: base + ow - p * NR; the panel's row starts at p * K * NR + row * NR.
            let origin = e.affine(
                &[(p, ((self.rows - 1) * NR) as i64), (self.tap_row, NR as i64), (self.base, 1), (self.region, 1)],
                0,
            );
            match fill {
                Fill::Input { x1, row, shift, stride } if stride > 2 => e.for_step(lo, hi, 1, |e, ow| {
                    let at = e.affine(&[(row, 1), (ow, stride), (shift, 1)], 0);
                    let v = e.load(x1, &[at]);
                    let dst = e.affine(&[(origin, 1), (ow, 1)], 0);
                    e.store(v, self.col, &[dst]);
                }),
                _ => self.store_lanes(e, fill, (origin, lo, hi)),
            }
        });
    }

    /// Columns `[lo, hi)` of one panel (at most NR, at least one), as one masked vector: the lanes
    /// from `origin + lo` on.
    fn store_lanes(&self, e: &mut Cursor, fill: Fill, (origin, lo, hi): (ValueId, ValueId, ValueId)) {
        let count = e.value_op("arith.subi", &[hi, lo], Type::Index);
        let mask = lanes::first(e, count);
        let zeros = lanes::zeros(e);
        let v = match fill {
            Fill::Zero => zeros,
            Fill::Input { x1, row, shift, stride: 1 } => {
                let at = e.affine(&[(row, 1), (lo, 1), (shift, 1)], 0);
                lanes::load(e, x1, &[at], mask, zeros)
            }
            // Stride 2: the even elements of the 2 x count - 1 from the first column's tap.
            Fill::Input { x1, row, shift, .. } => {
                let at = e.affine(&[(row, 1), (lo, 2), (shift, 1)], 0);
                let halves = [0, 1].map(|h| {
                    let span = e.affine(&[(count, 2)], -1 - (h * NR) as i64);
                    lanes::first(e, span)
                });
                lanes::evens(e, x1, &[at], halves, zeros)
            }
        };
        let dst = e.affine(&[(origin, 1), (lo, 1)], 0);
        lanes::store(e, v, self.col, &[dst], mask);
    }
}

/// Where im2col reads its taps: one image's and group's input channels, flat.
struct Taps<'a> {
    x1: ValueId,
    nb: Image,
    gi: ValueId,
    icg: usize,
    win: &'a Window,
    /// The input plane, its row-major strides, and one image's elements.
    plane: Extent,
    strides: Vec<Extent>,
    image: Extent,
}

impl<'a> Taps<'a> {
    fn new(
        c: &mut Cursor,
        (x1, nb): (ValueId, Image),
        (c_in, gi, icg): (usize, ValueId, usize),
        win: &'a Window,
    ) -> Self {
        let plane = c.extent_product(&win.input);
        let strides = strides_over(c, &win.input);
        let image = c.extent_mul(plane, Extent::Fixed(c_in));
        Taps { x1, nb, gi, icg, win, plane, strides, image }
    }

    /// Where the input row read by output row `lead` (the leading spatial positions) at
    /// kernel position `ks` starts, in channel `ic` of the group, and whether that row is inside
    /// the input (clamped into it when not).
    fn row_start(&self, e: &mut Cursor, ic: ValueId, ks: &[ValueId], lead: &[ValueId]) -> (ValueId, ValueId) {
        let win = self.win;
        let mut ok: Option<ValueId> = None;
        let mut terms = Vec::new();
        for (q, &o) in lead.iter().enumerate() {
            let pos = e.affine(&[(o, win.strides[q] as i64), (ks[q], win.dilations[q] as i64)], -(win.pads[q] as i64));
            let pos = e.clamp_tap(pos, win.input[q], &mut ok);
            terms.push((pos, self.strides[q]));
        }
        let ch = e.affine(&[(self.gi, self.icg as i64), (ic, 1)], 0);
        terms.push((ch, self.plane));
        let start = self.nb.offset(e, &terms, self.image);
        let inside = ok.unwrap_or_else(|| e.const_int(1, Type::i1()));
        (start, inside)
    }

    /// `kw * dilation - pad` along the last dim: the input column of output column `ow` is
    /// `ow * stride` plus this.
    fn column_shift(&self, e: &mut Cursor, kw: ValueId) -> ValueId {
        let q = self.win.input.len() - 1;
        e.affine(&[(kw, self.win.dilations[q] as i64)], -(self.win.pads[q] as i64))
    }

    /// The output columns of `[lo, hi)` whose tap at `kw` is inside the input, `[a, b)` (empty,
    /// at `lo`, when the row is outside): `a = ceil(-shift / stride)` when the shift is negative,
    /// `b = floor((input - 1 - shift) / stride) + 1`.
    fn inside_columns(
        &self,
        e: &mut Cursor,
        kw: ValueId,
        row_inside: ValueId,
        (lo, hi): (ValueId, ValueId),
    ) -> (ValueId, ValueId) {
        let q = self.win.input.len() - 1;
        let s = self.win.strides[q] as i64;
        let shift = self.column_shift(e, kw);
        let zero = e.idx(0);
        // ceil(max(-shift, 0) / s)
        let before = e.affine(&[(shift, -1)], 0);
        let before = e.value_op("arith.maxsi", &[before, zero], Type::Index);
        let before = e.affine(&[(before, 1)], s - 1);
        let sv = e.idx(s);
        let a = e.value_op("arith.divui", &[before, sv], Type::Index);
        // floor(max(input - 1 - shift + s, 0) / s), the same as floor((input - 1 - shift) / s) + 1 when that is positive.
        let input = e.extent(self.win.input[q]);
        let after = e.affine(&[(input, 1), (shift, -1)], s - 1);
        let after = e.value_op("arith.maxsi", &[after, zero], Type::Index);
        let b = e.value_op("arith.divui", &[after, sv], Type::Index);
        let a = e.value_op("arith.maxsi", &[a, lo], Type::Index);
        let a = e.value_op("arith.minsi", &[a, hi], Type::Index);
        let b = e.value_op("arith.minsi", &[b, hi], Type::Index);
        let b = e.value_op("arith.maxsi", &[b, a], Type::Index);
        // A row outside the input has no column inside: a = b = hi, and the first fill zeroes it.
        let a = e.value_op("arith.select", &[row_inside, a, hi], Type::Index);
        let b = e.value_op("arith.select", &[row_inside, b, hi], Type::Index);
        (a, b)
    }

    /// Input channel `ic` of the group at kernel position `ks` for output position `os`; 0 in
    /// the padding.
    fn value(&self, e: &mut Cursor, ic: ValueId, ks: &[ValueId], os: &[ValueId]) -> ValueId {
        let win = self.win;
        let padded = win.pads.iter().any(|&q| q > 0);
        let mut ok: Option<ValueId> = None;
        let mut terms = Vec::new();
        for q in 0..win.input.len() {
            let pos =
                e.affine(&[(os[q], win.strides[q] as i64), (ks[q], win.dilations[q] as i64)], -(win.pads[q] as i64));
            let pos = if padded { e.clamp_tap(pos, win.input[q], &mut ok) } else { pos };
            terms.push((pos, self.strides[q]));
        }
        let ch = e.affine(&[(self.gi, self.icg as i64), (ic, 1)], 0);
        terms.push((ch, self.plane));
        let src = self.nb.offset(e, &terms, self.image);
        let mut v = e.load(self.x1, &[src]);
        if let Some(ok) = ok {
            let z = e.const_float(0.0, Type::f32());
            v = e.value_op("arith.select", &[ok, v, z], Type::f32());
        }
        v
    }
}

/// Stores `v` as tap row `row` (input channel `ic`, kernel position `ks`) of column `column` in
/// the micro-kernel's column panels: at `(column / NR) * K * NR + row * NR + column % NR`.
fn store_in_panels(
    e: &mut Cursor,
    v: ValueId,
    col: ValueId,
    (ic, ks, column): (ValueId, &[ValueId], ValueId),
    icg: usize,
    win: &Window,
) {
    let ksp: usize = win.kernel.iter().product();
    let k_strides = strides_of(&win.kernel);
    let mut row_terms: Vec<(ValueId, i64)> = vec![(ic, (ksp * NR) as i64)];
    row_terms.extend(ks.iter().zip(&k_strides).map(|(&k, &s)| (k, (s * NR) as i64)));
    let nr = e.idx(NR as i64);
    let panel = e.value_op("arith.divui", &[column, nr], Type::Index);
    let lane = e.value_op("arith.remui", &[column, nr], Type::Index);
    row_terms.extend([(panel, (icg * ksp * NR) as i64), (lane, 1)]);
    let dst = e.affine(&row_terms, 0);
    e.store(v, col, &[dst]);
}
