//! MaxPool and AveragePool: a parallel loop over the output, each point reducing its window's
//! taps (those in the padding skipped by a select). MaxPool can also give the flat index of
//! each maximum. An f32 MaxPool over static planes runs on vectors of output columns
//! ([`MaxPoolRows`]).

use super::window::{window_over, Window};
use crate::emit::{compute_type, Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::shapes::image_dims;
use xcc_ir::builder::lanes;
use xcc_ir::builder::lanes::NR;
use xcc_ir::{Attribute, Type, ValueId};

pub struct Pool;

impl crate::ops::onnx_op::OnnxOp for Pool {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = g.ty(&node.inputs[0])?;
        // MaxPool also takes int8/uint8 tensors; averaging needs floats.
        if node.op == "AveragePool" || !matches!(x.dtype, DType::I8 | DType::U8) {
            super::float_input(node, g)?;
        }
        let kernel = kernel_shape(node)?;
        if x.shape.len() < 3 {
            return err(format!("the input needs a batch, a channel and spatial dims, not {}", x.describe()));
        }
        let x_dims = image_dims(&node.inputs[0], x)?;
        let (_, spatial) = window_over(node, g, &x_dims[2..], kernel)?;
        let mut dims = x_dims[..2].to_vec();
        dims.extend(spatial);
        let mut out = vec![TensorType::with_dims(x.dtype, dims.clone())];
        if node.outputs.len() > 1 {
            out.push(TensorType::with_dims(DType::I64, dims));
        }
        Ok(out)
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?.clone();
        let out_t = g.ty(&node.outputs[0])?.clone();
        let x = e.buf(&node.inputs[0])?;
        let out = e.buf(&node.outputs[0])?;
        e.emit_pool(node, g, (x, out), &x_t, &out_t)
    }
}

/// The widest pooling window xcc compiles, per dim.
const MAX_WINDOW: i64 = 4096;

fn kernel_shape(node: &Node) -> OResult<Vec<usize>> {
    let k = node.ints("kernel_shape").ok_or_else(|| OnnxError::msg("needs kernel_shape"))?;
    // xcc's limit on top of the window's own checks (sizes of 0 and below are theirs): the
    // pooling lowering's size grows with the window (a window of 2 x 65536 taps over a padded
    // input took gigabytes to compile), and no model pools that wide.
    if let Some(wide) = k.iter().find(|&&k| k > MAX_WINDOW) {
        return err(format!("a pooling window of {wide} is wider than xcc compiles ({MAX_WINDOW})"));
    }
    Ok(k.iter().map(|&k| k as usize).collect())
}

impl Emitter {
    fn emit_pool(
        &mut self,
        node: &Node,
        g: &Graph,
        (x, out): (ValueId, ValueId),
        x_t: &TensorType,
        out_t: &TensorType,
    ) -> OResult<()> {
        let kernel = kernel_shape(node)?;
        let (win, _) = window_over(node, g, &x_t.dims()[2..], kernel.clone())?;
        let is_max = node.op == "MaxPool";
        let include_pad = node.int("count_include_pad", 0) == 1;
        let d = x_t.dtype;
        let ns = kernel.len();
        let in_spatial = self.dim_extents(&x_t.dims()[2..]);
        // MaxPool's Indices: the flat position of the max in the input (row-major, or with
        // storage_order 1 the spatial dims column-major); the first max wins ties.
        let indices = match node.outputs.get(1).filter(|o| !o.is_empty() && is_max) {
            Some(o) => Some(self.buf(o)?),
            None => None,
        };
        let column_major = node.int("storage_order", 0) == 1;
        let channels = x_t.shape[1];
        let vectors = self.vector_rows && is_max && indices.is_none() && d == DType::F32;
        if let Some(rows) = MaxPoolRows::of(vectors, &win, x_t, out_t) {
            let planes = self.dim_extent(&Dim::product(&x_t.dims()[..2]));
            let (x1, o1) = (self.flat(x), self.flat(out));
            rows.emit(self, (x1, o1), planes);
            return Ok(());
        }
        let out_extents = self.dim_extents(&out_t.dims());
        self.parallel_over(&out_extents, &mut |e, ivs| {
            let lowest = match d {
                DType::U8 => 0.0,
                DType::I8 => i8::MIN as f64,
                _ => f64::NEG_INFINITY,
            };
            let init = e.const_of(if is_max { lowest } else { 0.0 }, d);
            let init_idx = e.const_int(0, Type::i64());
            let ivs_sp = ivs[2..].to_vec();
            // Taps outside the input are skipped by a select; the divisor comes from window_count.
            let mut tap = |e: &mut Emitter, k: &[ValueId], st: &[ValueId]| -> Vec<ValueId> {
                let (v, vi) = (st[0], st[1]);
                let mut ok: Option<ValueId> = None;
                let mut pos = Vec::new();
                for q in 0..ns {
                    let p = e.affine(
                        &[(ivs_sp[q], win.strides[q] as i64), (k[q], win.dilations[q] as i64)],
                        -(win.pads[q] as i64),
                    );
                    pos.push(e.clamp_tap(p, in_spatial[q], &mut ok));
                }
                let ok = ok.expect("a spatial dim");
                let xv = e.load(x, &[&ivs[..2], &pos[..]].concat());
                if !is_max {
                    let nv = e.fbin("arith.addf", v, xv);
                    return vec![e.select_f(ok, nv, v), vi];
                }
                let (cmp, pred) = match d {
                    DType::U8 => ("arith.cmpi", 8),
                    DType::I8 => ("arith.cmpi", 4),
                    _ => ("arith.cmpf", 2),
                };
                // Strictly greater: the first maximum keeps its index.
                let gt = e.value_attr(cmp, &[xv, v], Type::i1(), vec![("predicate", Attribute::i64(pred))]);
                let take = e.value_op("arith.andi", &[ok, gt], Type::i1());
                let nv = e.select_f(take, xv, v);
                let ni = if indices.is_some() {
                    let flat = flat_input_index(e, &ivs[..2], &pos, channels, &in_spatial, column_major);
                    e.value_op("arith.select", &[take, flat, vi], Type::i64())
                } else {
                    vi
                };
                vec![nv, ni]
            };
            let st = e.nest_accs(&kernel, &[init, init_idx], &mut tap);
            let v = st[0];
            if let Some(ib) = indices {
                e.store(st[1], ib, ivs);
            }
            let r = if is_max {
                v
            } else {
                let divisor = e.average_divisor(&ivs[2..], &win, &in_spatial, include_pad, d);
                e.fbin("arith.divf", v, divisor)
            };
            e.store(r, out, ivs);
        });
        Ok(())
    }

    /// AveragePool's divisor: the taps inside the input, or inside input and padding with
    /// `count_include_pad`.
    fn average_divisor(
        &mut self,
        out_pos: &[ValueId],
        win: &Window,
        input: &[Extent],
        include_pad: bool,
        d: DType,
    ) -> ValueId {
        let ns = input.len();
        let mut count = self.const_int(1, Type::i64());
        for q in 0..ns {
            let end_pad = if include_pad { win.pads[q + ns] } else { 0 };
            let lo = if include_pad { -(win.pads[q] as i64) } else { 0 };
            let hi = match input[q] {
                Extent::Fixed(n) => Extent::Fixed(n + end_pad),
                Extent::Value(n) => Extent::Value(self.affine(&[(n, 1)], end_pad as i64)),
            };
            let c = self.window_count(out_pos[q], win, q, lo, hi);
            count = self.value_op("arith.muli", &[count, c], Type::i64());
        }
        self.value_op("arith.sitofp", &[count], compute_type(d))
    }

    /// How many of the window's taps along dim `q` at output position `o` fall in `[lo, hi)`.
    fn window_count(&mut self, o: ValueId, win: &Window, q: usize, lo: i64, hi: Extent) -> ValueId {
        let kcount = win.kernel[q];
        let zero = self.const_int(0, Type::i64());
        let oi = self.value_op("arith.index_cast", &[o], Type::i64());
        let mut cnt = zero;
        for k in 0..kcount {
            // p = o*stride + k*dil - pad_begin, counted when lo <= p < hi.
            let s = self.const_int(win.strides[q] as i128, Type::i64());
            let base = self.value_op("arith.muli", &[oi, s], Type::i64());
            let off = self.const_int((k * win.dilations[q]) as i128 - win.pads[q] as i128, Type::i64());
            let p = self.value_op("arith.addi", &[base, off], Type::i64());
            let lov = self.const_int(lo as i128, Type::i64());
            let hiv = match hi {
                Extent::Fixed(hi) => self.const_int(hi as i128, Type::i64()),
                Extent::Value(hi) => self.value_op("arith.index_cast", &[hi], Type::i64()),
            };
            let ge = self.cmpi("sge", p, lov);
            let lt = self.cmpi("slt", p, hiv);
            let ok = self.value_op("arith.andi", &[ge, lt], Type::i1());
            let one = self.value_op("arith.extui", &[ok], Type::i64());
            cnt = self.value_op("arith.addi", &[cnt, one], Type::i64());
        }
        cnt
    }
}

/// MaxPool's Indices entry: the flat position in the input of batch and channel `nc` and spatial
/// position `pos`, row-major, or with `storage_order` 1 the spatial dims column-major.
fn flat_input_index(
    e: &mut Emitter,
    nc: &[ValueId],
    pos: &[ValueId],
    channels: usize,
    input: &[Extent],
    column_major: bool,
) -> ValueId {
    let plane = e.extent_product(input);
    let image = e.extent_mul(plane, Extent::Fixed(channels));
    let mut terms = vec![(nc[0], image), (nc[1], plane)];
    let strides: Vec<Extent> = if column_major {
        (0..input.len()).map(|q| e.extent_product(&input[..q])).collect()
    } else {
        (0..input.len()).map(|q| e.extent_product(&input[q + 1..])).collect()
    };
    terms.extend(pos.iter().zip(strides).map(|(&p, s)| (p, s)));
    let flat = e.affine_over(&terms, 0);
    e.value_op("arith.index_cast", &[flat], Type::i64())
}

/// An f32 MaxPool over static 2-d planes with unit dilations and column strides of 1 or 2, run
/// on vectors of [`NR`] output columns: each tap is a masked vector load of its input row (the
/// even or odd elements of two at stride 2), the lanes outside the input reading -inf, and the
/// maximum ignores NaN as the scalar loop does. A parallel loop over planes, each walking down
/// its output rows with up to four column vectors at a time, at constant columns (their masks
/// fold, and their maxima are independent chains); a row of more than 16 vectors walks down one
/// vector's column at a time.
struct MaxPoolRows {
    kernel: [usize; 2],
    strides: [usize; 2],
    pads: [usize; 2],
    input: [usize; 2],
    out: [usize; 2],
}

impl MaxPoolRows {
    fn of(applies: bool, win: &Window, x_t: &TensorType, out_t: &TensorType) -> Option<MaxPoolRows> {
        let static2 = |t: &TensorType| -> Option<[usize; 2]> {
            let d = t.dims();
            (d.len() == 4).then_some(())?;
            Some([d[2].as_fixed()?, d[3].as_fixed()?])
        };
        let (input, out) = (static2(x_t)?, static2(out_t)?);
        // Every window overlaps the input (its first and last ones along each dim): the row
        // clamping below relies on it, and an all-padding window has no maximum to agree on.
        let overlaps = (0..2).all(|q| {
            out[q] > 0 && win.pads[q] < win.kernel[q] && (out[q] - 1) * win.strides[q] < input[q] + win.pads[q]
        });
        let plain = win.dilations.iter().all(|&d| d == 1) && matches!(win.strides[1], 1 | 2) && overlaps;
        (applies && plain).then(|| MaxPoolRows {
            kernel: [win.kernel[0], win.kernel[1]],
            strides: [win.strides[0], win.strides[1]],
            pads: [win.pads[0], win.pads[1]],
            input,
            out,
        })
    }

    fn emit(&self, e: &mut Emitter, (x1, o1): (ValueId, ValueId), planes: Extent) {
        let ([h, w], [oh, ow]) = (self.input, self.out);
        e.parallel_over(&[planes], &mut |e, plane| {
            let x_at = e.affine(&[(plane[0], (h * w) as i64)], 0);
            let o_at = e.affine(&[(plane[0], (oh * ow) as i64)], 0);
            let vectors = ow.div_ceil(NR);
            if vectors > MAX_STATIC_VECTORS {
                e.for_loop(0, vectors, |e, q| {
                    let columns = [self.column_vector(e, q)];
                    e.for_loop(0, oh, |e, oy| self.row(e, (x1, o1), (x_at, o_at), &columns, oy));
                });
                return;
            }
            // Vectors at constant columns, a group of them per output row: their masks fold and
            // their maxima are independent chains.
            for group in (0..vectors).collect::<Vec<_>>().chunks(GROUP_VECTORS) {
                let columns: Vec<ColumnVector> = group
                    .iter()
                    .map(|&q| {
                        let q = e.idx(q as i64);
                        self.column_vector(e, q)
                    })
                    .collect();
                e.for_loop(0, oh, |e, oy| self.row(e, (x1, o1), (x_at, o_at), &columns, oy));
            }
        });
    }

    /// Output column vector `q`: its first tap column, the masks of the runs its taps read, and
    /// the mask of the lanes it stores.
    fn column_vector(&self, e: &mut Emitter, q: ValueId) -> ColumnVector {
        let w = self.input[1];
        let col0 = e.affine(&[(q, (NR * self.strides[1]) as i64)], -(self.pads[1] as i64));
        let all = e.const_int(1, Type::i1());
        let runs = self
            .runs()
            .into_iter()
            .map(|off| {
                let start = e.affine(&[(col0, 1)], off);
                (off, lanes::within(e, start, w, all))
            })
            .collect();
        let left = e.affine(&[(q, -(NR as i64))], self.out[1] as i64);
        ColumnVector { q, col0, runs, stored: lanes::first(e, left) }
    }

    /// Output row `oy` of the column vectors `columns`: each the maximum of its window's taps.
    fn row(
        &self,
        e: &mut Emitter,
        (x1, o1): (ValueId, ValueId),
        (x_at, o_at): (ValueId, ValueId),
        columns: &[ColumnVector],
        oy: ValueId,
    ) {
        let ([h, w], ow) = (self.input, self.out[1]);
        let vt = lanes::of(Type::f32());
        let ninf = e.splat_const(f64::NEG_INFINITY, vt.clone());
        let mut accs = vec![ninf; columns.len()];
        for ky in 0..self.kernel[0] {
            let row = e.affine(&[(oy, self.strides[0] as i64)], ky as i64 - self.pads[0] as i64);
            let row = clamp_row(e, row, h);
            for (acc, c) in accs.iter_mut().zip(columns) {
                let at = e.affine(&[(x_at, 1), (row, w as i64), (c.col0, 1)], 0);
                let v: Vec<ValueId> = c
                    .runs
                    .iter()
                    .map(|&(off, mask)| {
                        let i = e.affine(&[(at, 1)], off);
                        lanes::load(e, x1, &[i], mask, ninf)
                    })
                    .collect();
                for kx in 0..self.kernel[1] {
                    let tap = match self.strides[1] {
                        1 => v[kx],
                        _ => lanes::even_odd(e, v[kx / 2 * 2], v[kx / 2 * 2 + 1], kx % 2),
                    };
                    *acc = e.value_op("arith.maxnumf", &[*acc, tap], vt.clone());
                }
            }
        }
        for (acc, c) in accs.into_iter().zip(columns) {
            let out = e.affine(&[(o_at, 1), (oy, ow as i64), (c.q, NR as i64)], 0);
            lanes::store(e, acc, o1, &[out], c.stored);
        }
    }

    /// The offsets from a vector's first tap column of the runs its taps read: one vector per
    /// kernel column at stride 1; at stride 2, two halves per pair of kernel columns (the even
    /// and odd elements of `2 NR` columns from `2 * (kx / 2)`).
    fn runs(&self) -> Vec<i64> {
        match self.strides[1] {
            1 => (0..self.kernel[1] as i64).collect(),
            _ => (0..self.kernel[1].div_ceil(2) as i64).flat_map(|p| [2 * p, 2 * p + NR as i64]).collect(),
        }
    }
}

/// Rows of more vectors than this take them one at a time in a loop.
const MAX_STATIC_VECTORS: usize = 16;

/// The vectors of a row computed together: enough independent chains of maxima to cover their
/// latency.
const GROUP_VECTORS: usize = 4;

/// One output column vector of [`MaxPoolRows`] (see [`MaxPoolRows::column_vector`]).
struct ColumnVector {
    q: ValueId,
    col0: ValueId,
    runs: Vec<(i64, ValueId)>,
    stored: ValueId,
}

/// A window row clamped into `[0, rows)`: a row in the padding reads its nearest input row
/// instead, which is in the same window (a window always overlaps the input), so the maximum is
/// unchanged.
fn clamp_row(e: &mut Emitter, row: ValueId, rows: usize) -> ValueId {
    let (zero, last) = (e.idx(0), e.idx(rows as i64 - 1));
    let row = e.value_op("arith.maxsi", &[row, zero], Type::Index);
    e.value_op("arith.minsi", &[row, last], Type::Index)
}
