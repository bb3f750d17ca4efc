//! STFT: the DFT of each frame of a signal `[batch, length, 1 or 2]` (real, or real and
//! imaginary parts), frames `frame_length` long starting every `frame_step` samples, each
//! weighted by `window` first. The output is `[batch, frames, bins, 2]`, with
//! `frames = (length - frame_length) / frame_step + 1` and `bins = frame_length / 2 + 1` when
//! `onesided` (the default), else `frame_length`:
//! `out[b, f, k] = sum_n window[n] x[b, f * step + n] e^{-2 pi i k n / frame_length}`.
//!
//! The frame length is `frame_length`, else the window's length, else the whole signal; the
//! step and the length may be read at run time (the frames and bins are then data dims, and each
//! run checks them). The run first fills a table of `e^{-2 pi i j / frame_length}` (in f64), then
//! computes every output bin in parallel, accumulating in f64, the table indexed by `k n` modulo
//! the frame length, which keeps each term's angle exact.

use crate::emit::{f64_type, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::shape_data;
use xcc_ir::{Type, ValueId};

pub struct Stft;

/// The frame length and step as values the run knows before it starts, and the output's dims.
struct Framing {
    length: DataExpr,
    step: DataExpr,
    /// The frame length as a dim (the twiddle table's).
    length_dim: Dim,
    dims: Vec<Dim>,
}

/// One integer input (a scalar or one element), as a value the run knows before it starts.
fn scalar(g: &Graph, node: &Node, i: usize, what: &str) -> OResult<Option<DataExpr>> {
    match shape_data(g, node, i, what)?.as_deref() {
        None => Ok(None),
        Some([v]) => Ok(Some(v.clone())),
        Some(v) => err(format!("STFT's {what} must be one integer, not {} values", v.len())),
    }
}

fn framing(node: &Node, g: &Graph) -> OResult<Framing> {
    let x = super::float_input(node, g)?;
    let dims = x.dims();
    if dims.len() != 3 || !(dims[2] == Dim::fixed(1) || dims[2] == Dim::fixed(2)) {
        return err(format!("STFT takes a signal [batch, length, 1 or 2], not {}", x.describe()));
    }
    let signal = DataExpr::Dim(dims[1].clone());
    let step = scalar(g, node, 1, "frame_step")?.ok_or_else(|| OnnxError::msg("STFT needs a frame_step"))?;
    g.require(DataExpr::num(0).lt(&step), "STFT's frame_step must be positive")?;
    let window = match node.input(2) {
        Some(w) => {
            let wt = g.ty(w)?;
            if wt.shape.len() != 1 || wt.dtype != x.dtype {
                return err(format!("STFT's window must be a vector of the signal's type, not {}", wt.describe()));
            }
            Some(DataExpr::Dim(wt.dims()[0].clone()))
        }
        None => None,
    };
    let length = match (scalar(g, node, 3, "frame_length")?, &window) {
        (Some(l), Some(w)) => {
            g.require(l.eq(w), "STFT's frame_length must be the window's length")?;
            l
        }
        (Some(l), None) => l,
        (None, Some(w)) => w.clone(),
        (None, None) => signal.clone(),
    };
    g.require(DataExpr::num(0).lt(&length), "STFT's frame_length must be positive")?;
    g.require(length.lt(&signal.add(&DataExpr::num(1))), "STFT's frame_length must not pass the signal's length")?;
    let out = &node.outputs[0];
    let frames = signal.sub(&length).floor_div(&step).add(&DataExpr::num(1));
    let onesided = node.int("onesided", 1) != 0;
    let bins = if onesided { length.floor_div(&DataExpr::num(2)).add(&DataExpr::num(1)) } else { length.clone() };
    let dims = vec![
        dims[0].clone(),
        g.data_dim(format!("{out}.1"), frames),
        g.data_dim(format!("{out}.2"), bins),
        Dim::fixed(2),
    ];
    let length_dim = g.data_dim(format!("{out}.frame_length"), length.clone());
    Ok(Framing { length, step, length_dim, dims })
}

impl OnnxOp for Stft {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let f = framing(node, g)?;
        Ok(vec![TensorType::with_dims(g.ty(&node.inputs[0])?.dtype, f.dims)])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let f = framing(node, g)?;
        let xt = g.ty(&node.inputs[0])?;
        let (d, complex) = (xt.dtype, xt.shape[2] == 2);
        let (x, out) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        let window = node.input(2).map(|w| e.buf(w)).transpose()?;
        let (length, step) = (e.data_value(&f.length), e.data_value(&f.step));
        let table = twiddles(e, &f, length);
        let extents = e.dim_extents(&f.dims[..3]);
        e.parallel_over(&extents, &mut |e, ivs| {
            let (b, frame, k) = (ivs[0], ivs[1], ivs[2]);
            let start = e.value_op("arith.muli", &[frame, step], Type::Index);
            let zero = e.const_float(0.0, f64_type());
            let lb = e.idx(0);
            // (re, im, j = k n mod length) carried along n.
            let init = [zero, zero, lb];
            let sums = e.for_accs_between(lb, length, &init, |e, n, acc| {
                let at = e.value_op("arith.addi", &[start, n], Type::Index);
                let part = |e: &mut Emitter, p: i64| {
                    let p = e.idx(p);
                    let v = e.load(x, &[b, at, p]);
                    let v = widen(e, v);
                    match window {
                        Some(w) => {
                            let wv = e.load(w, &[n]);
                            let wv = widen(e, wv);
                            e.fbin("arith.mulf", v, wv)
                        }
                        None => v,
                    }
                };
                let re = part(e, 0);
                let im = if complex { Some(part(e, 1)) } else { None };
                let one = e.idx(1);
                let (c, s) = (e.load(table, &[acc[2], lb]), e.load(table, &[acc[2], one]));
                // (re + i im)(c - i s) = re c + im s + i (im c - re s).
                let mut real = e.fbin("arith.mulf", re, c);
                let neg = e.fbin("arith.mulf", re, s);
                let mut imag = e.unary("arith.negf", neg);
                if let Some(im) = im {
                    let t = e.fbin("arith.mulf", im, s);
                    real = e.fbin("arith.addf", real, t);
                    let t = e.fbin("arith.mulf", im, c);
                    imag = e.fbin("arith.addf", imag, t);
                }
                let real = e.fbin("arith.addf", acc[0], real);
                let imag = e.fbin("arith.addf", acc[1], imag);
                // j + k, wrapped once: k < length.
                let next = e.value_op("arith.addi", &[acc[2], k], Type::Index);
                let past = e.cmpi("sge", next, length);
                let wrapped = e.value_op("arith.subi", &[next, length], Type::Index);
                let j = e.value_op("arith.select", &[past, wrapped, next], Type::Index);
                vec![real, imag, j]
            });
            for (p, &v) in sums[..2].iter().enumerate() {
                let v = narrow(e, v, d);
                let p = e.idx(p as i64);
                e.store(v, out, &[b, frame, k, p]);
            }
        });
        Ok(())
    }
}

fn widen(e: &mut Emitter, v: ValueId) -> ValueId {
    if e.ty(v) == f64_type() {
        v
    } else {
        e.value_op("arith.extf", &[v], f64_type())
    }
}

/// An f64 as the output's compute type.
fn narrow(e: &mut Emitter, v: ValueId, d: DType) -> ValueId {
    let t = crate::emit::compute_type(d);
    if t == f64_type() {
        v
    } else {
        e.value_op("arith.truncf", &[v], t)
    }
}

/// A `[length, 2]` f64 buffer of `cos` and `sin` of `2 pi j / length`, filled in parallel.
fn twiddles(e: &mut Emitter, f: &Framing, length: ValueId) -> ValueId {
    let t = TensorType::with_dims(DType::F64, vec![f.length_dim.clone(), Dim::fixed(2)]);
    let table = e.alloc_tensor(&t);
    let extents = e.dim_extents(std::slice::from_ref(&f.length_dim));
    e.parallel_over(&extents, &mut |e, ivs| {
        let j = super::roi_align::index_to_real(e, ivs[0], &f64_type());
        let n = super::roi_align::index_to_real(e, length, &f64_type());
        let tau = e.const_float(std::f64::consts::TAU, f64_type());
        let angle = e.fbin("arith.mulf", tau, j);
        let angle = e.fbin("arith.divf", angle, n);
        let (c, s) = (e.unary("math.cos", angle), e.unary("math.sin", angle));
        for (p, v) in [c, s].into_iter().enumerate() {
            let p = e.idx(p as i64);
            e.store(v, table, &[ivs[0], p]);
        }
    });
    table
}
