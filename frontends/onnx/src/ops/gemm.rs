//! A register-tiled matrix multiply, generated in the IR, behind Conv, Gemm and MatMul.
//!
//! `C[m, n] = act(sum_k A[m, k] * B[k, n] + bias)`. The micro-kernel computes a tile of `MR` rows
//! by `NR` columns held in `MR` vector accumulators (`vector<NRxf32>`) across the whole k loop:
//! per k, one vector load of B's row segment, `MR` scalar loads of A broadcast to vectors, and
//! `MR` FMAs. Rows that do not fill a tile take one-row tiles; when the column count is not a
//! multiple of `NR`, the last tile overlaps the previous one (recomputing a few columns is cheaper
//! than a scalar loop); fewer than `NR` columns use a scalar loop. Conv becomes this GEMM per image and group, reading the input directly for 1x1
//! stride-1 kernels and otherwise through im2col columns in workspace scratch space.

use super::nn::window;
use crate::emit::Emitter;
use crate::emit::LoopBuilder;
use crate::fuse::{ACTIVATION, RESIDUAL};
use crate::graph::*;
use xcc_ir::{Attribute, OpSpec, Span, Type, ValueId};

const MR: usize = 4;
const NR: usize = 16;

/// A matrix inside a flat f32 buffer: element (r, c) is at `off + r * rs + c * cs`.
#[derive(Clone, Copy)]
pub struct Mat {
    pub buf: ValueId,
    pub off: ValueId,
    pub rs: usize,
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

/// Conv needs im2col scratch unless it is a pointwise, unit-stride, unpadded convolution.
pub fn scratch_bytes(node: &Node, g: &Graph) -> Option<usize> {
    if node.op != "Conv" || g.types.get(&node.inputs[0])?.dtype != DType::F32 {
        return None;
    }
    let x = g.types.get(&node.inputs[0])?;
    let w = g.types.get(&node.inputs[1])?;
    let win = window(node, &x.shape[2..], w.shape[2..].to_vec()).ok()?;
    if is_pointwise(&win) {
        return None;
    }
    let k: usize = w.shape[1..].iter().product();
    let p: usize = win.out.iter().product();
    Some(k * p * 4)
}

fn is_pointwise(win: &super::nn::Window) -> bool {
    win.kernel.iter().all(|&k| k == 1) && win.strides.iter().all(|&s| s == 1) && win.pads.iter().all(|&p| p == 0)
}

/// The fused residual's input index, if any.
pub fn residual_input(node: &Node) -> Option<usize> {
    match node.attrs.get(RESIDUAL) {
        Some(Attr::Int(i)) => Some(*i as usize),
        _ => None,
    }
}

/// What is applied to each result before it is stored.
#[derive(Clone, Copy)]
pub struct Epilogue {
    pub bias: Bias,
    /// A tensor laid out like C, added before the activation.
    pub residual: Option<Mat>,
    pub act: Option<(f32, f32)>,
}

pub fn activation(node: &Node) -> Option<(f32, f32)> {
    match node.attrs.get(ACTIVATION) {
        Some(Attr::Floats(v)) if v.len() == 2 => Some((v[0], v[1])),
        _ => None,
    }
}

impl Emitter {
    fn vec_ty() -> Type {
        Type::Vector { shape: vec![NR as u64], elem: Box::new(Type::f32()) }
    }

    fn splat(&mut self, v: f32) -> ValueId {
        let t = Self::vec_ty();
        self.value_attr(
            "arith.constant",
            &[],
            t.clone(),
            vec![("value", Attribute::Dense { values: xcc_ir::attributes::DenseValues::Float(vec![v as f64]), ty: t })],
        )
    }

    /// Clamps to the fused activation's bounds (scalar or vector).
    pub fn apply_activation(&mut self, v: ValueId, act: Option<(f32, f32)>) -> ValueId {
        let Some((lo, hi)) = act else { return v };
        let t = self.m.ty(v).clone();
        let mk = |e: &mut Self, c: f32| {
            if matches!(t, Type::Vector { .. }) {
                e.splat(c)
            } else {
                e.const_float(c as f64, Type::f32())
            }
        };
        let mut r = v;
        if lo > f32::NEG_INFINITY {
            let l = mk(self, lo);
            r = self.value_op("arith.maximumf", &[r, l], t.clone());
        }
        if hi < f32::INFINITY {
            let h = mk(self, hi);
            r = self.value_op("arith.minimumf", &[r, h], t.clone());
        }
        r
    }

    fn index_of(&mut self, base: ValueId, terms: &[(ValueId, usize)], constant: usize) -> ValueId {
        let mut acc = base;
        if constant != 0 {
            let c = self.idx(constant as i64);
            acc = self.value_op("arith.addi", &[acc, c], Type::Index);
        }
        for &(v, s) in terms {
            let p = if s == 1 {
                v
            } else {
                let sv = self.idx(s as i64);
                self.value_op("arith.muli", &[v, sv], Type::Index)
            };
            acc = self.value_op("arith.addi", &[acc, p], Type::Index);
        }
        acc
    }

    pub fn gemm(&mut self, m: usize, n: usize, k: usize, a: Mat, b: Mat, c: Mat, ep: Epilogue) {
        let m_full = m / MR * MR;
        self.gemm_rows(0, m_full, MR, n, k, a, b, c, ep);
        self.gemm_rows(m_full, m, 1, n, k, a, b, c, ep);
    }

    #[allow(clippy::too_many_arguments)]
    fn gemm_rows(
        &mut self,
        start: usize,
        end: usize,
        rows: usize,
        n: usize,
        k: usize,
        a: Mat,
        b: Mat,
        c: Mat,
        ep: Epilogue,
    ) {
        if start >= end {
            return;
        }
        let n_full = n / NR * NR;
        let (s, e_) = (self.idx(start as i64), self.idx(end as i64));
        self.for_step(s, e_, rows, |e, i0| {
            if n_full > 0 {
                let (z, nf) = (e.idx(0), e.idx(n_full as i64));
                e.for_step(z, nf, NR, |e, j0| e.gemm_tile(i0, j0, rows, k, a, b, c, ep));
                if n > n_full {
                    let last = e.idx((n - NR) as i64);
                    e.gemm_tile(i0, last, rows, k, a, b, c, ep);
                }
                return;
            }
            for j in 0..n {
                for r in 0..rows {
                    let jv = e.idx(j as i64);
                    let row = e.index_of(i0, &[], r);
                    let a_row = e.index_of(a.off, &[(row, a.rs)], 0);
                    let b_col = e.index_of(b.off, &[(jv, b.cs)], 0);
                    let zero = e.const_float(0.0, Type::f32());
                    let dot = e.for_acc(0, k, zero, |e, kk, acc| {
                        let ai = e.index_of(a_row, &[(kk, a.cs)], 0);
                        let bi = e.index_of(b_col, &[(kk, b.rs)], 0);
                        let av = e.load(a.buf, &[ai]);
                        let bv = e.load(b.buf, &[bi]);
                        e.fmuladd(av, bv, acc)
                    });
                    let mut v = dot;
                    match ep.bias {
                        Bias::Rows(buf, off) => {
                            let bi = e.index_of(off, &[(row, 1)], 0);
                            let bv = e.load(buf, &[bi]);
                            v = e.value_op("arith.addf", &[v, bv], Type::f32());
                        }
                        Bias::Cols(buf, off) => {
                            let bi = e.index_of(off, &[(jv, 1)], 0);
                            let bv = e.load(buf, &[bi]);
                            v = e.value_op("arith.addf", &[v, bv], Type::f32());
                        }
                        Bias::None => {}
                    }
                    if let Some(r) = ep.residual {
                        let ri = e.index_of(r.off, &[(row, r.rs), (jv, r.cs)], 0);
                        let rv = e.load(r.buf, &[ri]);
                        v = e.value_op("arith.addf", &[v, rv], Type::f32());
                    }
                    v = e.apply_activation(v, ep.act);
                    let ci = e.index_of(c.off, &[(row, c.rs), (jv, c.cs)], 0);
                    e.store(v, c.buf, &[ci]);
                }
            }
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn gemm_tile(&mut self, i0: ValueId, j0: ValueId, rows: usize, k: usize, a: Mat, b: Mat, c: Mat, ep: Epilogue) {
        let vt = Self::vec_ty();
        let zero = self.splat(0.0);
        let a_rows: Vec<ValueId> = (0..rows)
            .map(|r| {
                let row = self.index_of(i0, &[], r);
                self.index_of(a.off, &[(row, a.rs)], 0)
            })
            .collect();
        let b_col = self.index_of(b.off, &[(j0, 1)], 0);
        let inits = vec![zero; rows];
        let accs = self.for_accs(0, k, &inits, |e, kk, accs| {
            let bi = e.index_of(b_col, &[(kk, b.rs)], 0);
            let bv = e.value_op("vector.load", &[b.buf, bi], vt.clone());
            let mut next = Vec::with_capacity(rows);
            for (r, &acc) in accs.iter().enumerate() {
                let ai = e.index_of(a_rows[r], &[(kk, a.cs)], 0);
                let av = e.load(a.buf, &[ai]);
                let ab = e.value_op("vector.broadcast", &[av], vt.clone());
                next.push(e.fmuladd(ab, bv, acc));
            }
            next
        });
        for (r, &acc) in accs.iter().enumerate() {
            let row = self.index_of(i0, &[], r);
            let mut v = acc;
            match ep.bias {
                Bias::Rows(buf, off) => {
                    let bi = self.index_of(off, &[(row, 1)], 0);
                    let s = self.load(buf, &[bi]);
                    let bv = self.value_op("vector.broadcast", &[s], vt.clone());
                    v = self.value_op("arith.addf", &[v, bv], vt.clone());
                }
                Bias::Cols(buf, off) => {
                    let bi = self.index_of(off, &[(j0, 1)], 0);
                    let bv = self.value_op("vector.load", &[buf, bi], vt.clone());
                    v = self.value_op("arith.addf", &[v, bv], vt.clone());
                }
                Bias::None => {}
            }
            if let Some(res) = ep.residual {
                let ri = self.index_of(res.off, &[(row, res.rs), (j0, 1)], 0);
                let rv = self.value_op("vector.load", &[res.buf, ri], vt.clone());
                v = self.value_op("arith.addf", &[v, rv], vt.clone());
            }
            v = self.apply_activation(v, ep.act);
            let ci = self.index_of(c.off, &[(row, c.rs), (j0, 1)], 0);
            self.op(OpSpec::new("vector.store", Span::UNKNOWN).operands([v, c.buf, ci]));
        }
    }

    /// Conv as GEMM: for each image and group, `out[oc, p] = W[oc, k] * cols[k, p] + bias`.
    pub fn emit_conv_gemm(
        &mut self,
        node: &Node,
        g: &Graph,
        x: ValueId,
        out: ValueId,
        x_t: &TensorType,
        out_t: &TensorType,
    ) -> OResult<()> {
        let w_t = g.ty(&node.inputs[1])?.clone();
        let win = window(node, &x_t.shape[2..], w_t.shape[2..].to_vec())?;
        let group = node.int("group", 1).max(1) as usize;
        let (oc, icg) = (w_t.shape[0], w_t.shape[1]);
        let ocg = oc / group;
        let c_in = x_t.shape[1];
        let kk: usize = w_t.shape[1..].iter().product();
        let ksp: usize = win.kernel.iter().product();
        let p: usize = win.out.iter().product();
        let hw: usize = x_t.shape[2..].iter().product();
        let act = activation(node);
        let x1 = self.flat(x);
        let w1 = self.flat(self.buf(&node.inputs[1])?);
        let o1 = self.flat(out);
        let bias = match node.input(2) {
            Some(b) => Some(self.buf(b)?),
            None => None,
        };
        let direct = is_pointwise(&win);
        let scratch = if direct { None } else { Some(self.buf(&crate::emit::scratch_name(node))?) };
        let residual = match residual_input(node) {
            Some(i) => Some(self.flat(self.buf(&node.inputs[i])?)),
            None => None,
        };
        let in_sp = x_t.shape[2..].to_vec();
        let _ = out_t;
        for nb in 0..x_t.shape[0] {
            self.for_loop(0, group, |e, gi| {
                let b = match scratch {
                    None => {
                        let off = e.affine(&[(gi, (icg * hw) as i64)], (nb * c_in * hw) as i64);
                        Mat { buf: x1, off, rs: hw, cs: 1 }
                    }
                    Some(col) => {
                        e.im2col(x1, col, nb, c_in, &in_sp, gi, icg, &win);
                        let zero = e.idx(0);
                        Mat { buf: col, off: zero, rs: p, cs: 1 }
                    }
                };
                let a_off = e.affine(&[(gi, (ocg * kk) as i64)], 0);
                let a = Mat { buf: w1, off: a_off, rs: kk, cs: 1 };
                let c_off = e.affine(&[(gi, (ocg * p) as i64)], (nb * oc * p) as i64);
                let c = Mat { buf: o1, off: c_off, rs: p, cs: 1 };
                let bias = match bias {
                    Some(bb) => {
                        let off = e.affine(&[(gi, ocg as i64)], 0);
                        Bias::Rows(bb, off)
                    }
                    None => Bias::None,
                };
                let residual = residual.map(|r| Mat { buf: r, off: c_off, rs: p, cs: 1 });
                e.gemm(ocg, p, kk, a, b, c, Epilogue { bias, residual, act });
            });
        }
        let _ = ksp;
        Ok(())
    }

    /// Writes `cols[(ic * K + kpos) * P + opos]` for one image and group; taps in the padding are 0.
    #[allow(clippy::too_many_arguments)]
    fn im2col(
        &mut self,
        x1: ValueId,
        col: ValueId,
        nb: usize,
        c_in: usize,
        in_sp: &[usize],
        gi: ValueId,
        icg: usize,
        win: &super::nn::Window,
    ) {
        let ns = in_sp.len();
        let ksp: usize = win.kernel.iter().product();
        let p: usize = win.out.iter().product();
        let hw: usize = in_sp.iter().product();
        let in_strides = super::strides_of(in_sp);
        let k_strides = super::strides_of(&win.kernel);
        let o_strides = super::strides_of(&win.out);
        let mut shape = vec![icg];
        shape.extend(&win.kernel);
        shape.extend(&win.out);
        let padded = win.pads.iter().any(|&q| q > 0);
        self.loop_nest(&shape, &mut |e, ivs| {
            let ic = ivs[0];
            let (ks, os) = (&ivs[1..1 + ns], &ivs[1 + ns..]);
            let mut ok: Option<ValueId> = None;
            let mut terms = Vec::new();
            for q in 0..ns {
                let pos = e
                    .affine(&[(os[q], win.strides[q] as i64), (ks[q], win.dilations[q] as i64)], -(win.pads[q] as i64));
                let pos = if padded { e.clamp_tap(pos, in_sp[q], &mut ok) } else { pos };
                terms.push((pos, in_strides[q] as i64));
            }
            let ch = e.affine(&[(gi, icg as i64), (ic, 1)], 0);
            terms.push((ch, hw as i64));
            let src = e.affine(&terms, (nb * c_in * hw) as i64);
            let mut v = e.load(x1, &[src]);
            if let Some(ok) = ok {
                let z = e.const_float(0.0, Type::f32());
                v = e.value_op("arith.select", &[ok, v, z], Type::f32());
            }
            let mut dst_terms: Vec<(ValueId, i64)> = vec![(ic, (ksp * p) as i64)];
            for q in 0..ns {
                dst_terms.push((ks[q], (k_strides[q] * p) as i64));
                dst_terms.push((os[q], o_strides[q] as i64));
            }
            let dst = e.affine(&dst_terms, 0);
            e.store(v, col, &[dst]);
        });
    }

    /// Gemm with a constant B: B is laid out as [K, N] at compile time (transposed if transB).
    pub fn emit_gemm_fast(
        &mut self,
        node: &Node,
        g: &Graph,
        x: ValueId,
        out: ValueId,
        x_t: &TensorType,
        out_t: &TensorType,
    ) -> OResult<bool> {
        let Some(bconst) = g.consts.get(&node.inputs[1]) else { return Ok(false) };
        if x_t.dtype != DType::F32 || node.float("alpha", 1.0) != 1.0 || node.float("beta", 1.0) != 1.0 {
            return Ok(false);
        }
        let (m, n) = (out_t.shape[0], out_t.shape[1]);
        let ta = node.int("transA", 0) == 1;
        let k = if ta { x_t.shape[0] } else { x_t.shape[1] };
        let c_shape = match node.input(2) {
            Some(c) => Some(g.ty(c)?.shape.clone()),
            None => None,
        };
        let bias_kind = match &c_shape {
            None => 0,
            Some(s) if s.iter().product::<usize>() == n && s.last() == Some(&n) => 1,
            _ => return Ok(false),
        };
        let vals = bconst.to_f64();
        let tb = node.int("transB", 0) == 1;
        let mut kn = vec![0.0f64; k * n];
        for kk in 0..k {
            for j in 0..n {
                kn[kk * n + j] = if tb { vals[j * k + kk] } else { vals[kk * n + j] };
            }
        }
        let packed = Tensor::from_f64(DType::F32, vec![k * n], &kn);
        let b1 = self.constant_buffer(&packed);
        let x1 = self.flat(x);
        let o1 = self.flat(out);
        let zero = self.idx(0);
        let a = if ta { Mat { buf: x1, off: zero, rs: 1, cs: m } } else { Mat { buf: x1, off: zero, rs: k, cs: 1 } };
        let b = Mat { buf: b1, off: zero, rs: n, cs: 1 };
        let c = Mat { buf: o1, off: zero, rs: n, cs: 1 };
        let bias = if bias_kind == 1 {
            let cb = self.buf(node.input(2).expect("C"))?;
            let cb = self.flat(cb);
            Bias::Cols(cb, zero)
        } else {
            Bias::None
        };
        self.gemm(m, n, k, a, b, c, Epilogue { bias, residual: None, act: activation(node) });
        Ok(true)
    }

    /// MatMul of f32 operands of rank >= 2 with broadcast batch dims.
    pub fn emit_matmul_fast(&mut self, node: &Node, g: &Graph, out: ValueId, out_t: &TensorType) -> OResult<bool> {
        let a_t = g.ty(&node.inputs[0])?.clone();
        let b_t = g.ty(&node.inputs[1])?.clone();
        if a_t.dtype != DType::F32 || a_t.shape.len() < 2 || b_t.shape.len() < 2 {
            return Ok(false);
        }
        let (m, k, n) =
            (a_t.shape[a_t.shape.len() - 2], a_t.shape[a_t.shape.len() - 1], b_t.shape[b_t.shape.len() - 1]);
        let batch: Vec<usize> = out_t.shape[..out_t.shape.len() - 2].to_vec();
        let a1 = self.buf(&node.inputs[0])?;
        let a1 = self.flat(a1);
        let b1 = self.buf(&node.inputs[1])?;
        let b1 = self.flat(b1);
        let o1 = self.flat(out);
        let act = activation(node);
        let residual = match residual_input(node) {
            Some(i) => Some(self.flat(self.buf(&node.inputs[i])?)),
            None => None,
        };
        let a_lead = a_t.shape[..a_t.shape.len() - 2].to_vec();
        let b_lead = b_t.shape[..b_t.shape.len() - 2].to_vec();
        self.loop_nest(&batch, &mut |e, ivs| {
            let off_of = |e: &mut Emitter, lead: &[usize], mat: usize| {
                let off = batch.len() - lead.len();
                let strides = super::strides_of(lead);
                let terms: Vec<(ValueId, i64)> = (0..lead.len())
                    .filter(|&q| lead[q] != 1)
                    .map(|q| (ivs[q + off], (strides[q] * mat) as i64))
                    .collect();
                e.affine(&terms, 0)
            };
            let ao = off_of(e, &a_lead, m * k);
            let bo = off_of(e, &b_lead, k * n);
            let co = off_of(e, &batch, m * n);
            let ep =
                Epilogue { bias: Bias::None, residual: residual.map(|r| Mat { buf: r, off: co, rs: n, cs: 1 }), act };
            e.gemm(
                m,
                n,
                k,
                Mat { buf: a1, off: ao, rs: k, cs: 1 },
                Mat { buf: b1, off: bo, rs: n, cs: 1 },
                Mat { buf: o1, off: co, rs: n, cs: 1 },
                ep,
            );
        });
        Ok(true)
    }
}
