//! `kernel.conv` to loops. An f32 convolution is a GEMM per image and group,
//! `out[oc, p] = W[oc, k] * cols[k, p] + bias`, on the micro-kernel of [`super::matmul`]: a 1x1,
//! unit-stride, unpadded one reads its input directly; any other gathers its input windows into
//! im2col columns in a buffer of its own (`memref.alloc`, placed in the workspace by
//! `plan-workspace`), written directly in the micro-kernel's column panels
//! (`[ceil(P / NR), K, NR]`), so the GEMM streams each panel instead of reading K rows a whole
//! output plane apart. Other element types run a direct convolution: a parallel loop over the
//! output, whose taps outside the input read a clamped index masked to zero. A depthwise f32
//! convolution runs directly ([`super::depthwise`]).

use super::matmul::{gemm, BOperand, Bias, Mat, TileEpilogue, NR};
use super::Cursor;
use crate::builder::{Extent, LoopBuilder};
use xcc_ir::dialects::kernel::{Epilogue, EpilogueOperands};
use xcc_ir::types::{FloatKind, Layout, MemRefType};
use xcc_ir::{Attribute, Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};

/// A convolution's geometry.
struct Window {
    kernel: Vec<usize>,
    strides: Vec<usize>,
    dilations: Vec<usize>,
    /// Begin pads, then end pads.
    pads: Vec<usize>,
    out: Vec<usize>,
    group: usize,
}

/// A buffer's dims; the batch (dim 0), which may be known only at run time, as 0.
fn shape(m: &Module, v: ValueId) -> Vec<usize> {
    m.ty(v).as_memref().expect("verified memref").shape.iter().map(|d| d.unwrap_or(0) as usize).collect()
}

/// Which image of the batch a GEMM works on: one the compiler unrolls to, or a loop's index
/// (a batch known only at run time).
#[derive(Clone, Copy)]
enum Image {
    At(usize),
    Var(ValueId),
}

impl Image {
    /// `terms` plus this image times `stride`, as an index.
    fn offset(self, e: &mut Cursor, terms: &[(ValueId, i64)], stride: usize) -> ValueId {
        match self {
            Image::At(nb) => e.affine(terms, (nb * stride) as i64),
            Image::Var(nb) => e.affine(&[terms, &[(nb, stride as i64)]].concat(), 0),
        }
    }
}

fn window(m: &Module, op: OpId, w: &[usize], out: &[usize]) -> Window {
    let list = |k: &str| -> Vec<usize> {
        m.attr(op, k).and_then(Attribute::as_int_list).unwrap_or_default().iter().map(|&v| v as usize).collect()
    };
    Window {
        kernel: w[2..].to_vec(),
        strides: list("strides"),
        dilations: list("dilations"),
        pads: list("pads"),
        out: out[2..].to_vec(),
        group: m.attr(op, "group").and_then(Attribute::as_int).unwrap_or(1) as usize,
    }
}

fn strides_of(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

impl Window {
    /// 2-d, one filter per channel (`group` = input channels = output channels).
    fn is_depthwise(&self, x: &[usize], w: &[usize]) -> bool {
        self.kernel.len() == 2 && self.group > 1 && self.group == x[1] && w[0] == self.group && w[1] == 1
    }

    fn is_pointwise(&self) -> bool {
        self.kernel.iter().all(|&k| k == 1) && self.strides.iter().all(|&s| s == 1) && self.pads.iter().all(|&p| p == 0)
    }
}

pub fn lower(m: &mut Module, op: OpId) -> Result<(), Diagnostic> {
    let span = m.ops[op].span;
    let ops = EpilogueOperands::of(m, op);
    let ep = Epilogue::of(m, op);
    // The verifier takes only a run-time batch too; this keeps an unverified module
    // (`--no-verify-each`) from being lowered with a wrong size.
    let run_time = |v: ValueId| m.ty(v).as_memref().map_or(0, |t| t.shape[1..].iter().filter(|d| d.is_none()).count());
    if run_time(ops.a) + run_time(ops.b) + run_time(ops.output) > 0
        || m.ty(ops.b).as_memref().is_some_and(|t| t.shape[0].is_none())
    {
        return Err(Diagnostic::new(span, "kernel.conv takes only its batch at run time"));
    }
    let (x, w, out) = (shape(m, ops.a), shape(m, ops.b), shape(m, ops.output));
    let win = window(m, op, &w, &out);
    let elem = (*m.ty(ops.output).as_memref().expect("verified").elem).clone();
    let mut c = Cursor::new(m, span);
    let batch = c.extent_of(ops.a, 0);
    if elem == Type::f32() && win.is_depthwise(&x, &w) {
        let axis = |q: usize| super::depthwise::Axis {
            kernel: win.kernel[q],
            stride: win.strides[q],
            dilation: win.dilations[q],
            pad: win.pads[q],
            input: x[2 + q],
            output: win.out[q],
        };
        super::depthwise::lower(&mut c, &ops, &ep, [batch, Extent::Fixed(x[1])], axis(0), axis(1));
    } else if elem == Type::f32() {
        conv_gemm(&mut c, &ops, &ep, (batch, &x, &w), &win);
    } else {
        direct(&mut c, &ops, &ep, (batch, &x, &w), &win, &elem);
    }
    c.finish(op);
    Ok(())
}

fn conv_gemm(c: &mut Cursor, ops: &EpilogueOperands, ep: &Epilogue, (batch, x, w): Dims, win: &Window) {
    let kk: usize = w[1..].iter().product();
    let p: usize = win.out.iter().product();
    let (x1, w1, o1) = (c.flat(ops.a), c.flat(ops.b), c.flat(ops.output));
    let residual = ops.residual.map(|v| c.flat(v));
    let scratch = if win.is_pointwise() {
        None
    } else {
        let t = MemRefType {
            shape: vec![Some((kk * p.div_ceil(NR) * NR) as u64)],
            elem: Box::new(Type::f32()),
            layout: Layout::Identity,
            memory_space: None,
        };
        let alloc = c.op(OpSpec::new("memref.alloc", Span::UNKNOWN)
            .results([Type::MemRef(t)])
            .attr("alignment", Attribute::i64(64))
            .attr("operandSegmentSizes", xcc_ir::parser::forms::segment_sizes(&[0, 0])));
        Some(c.m.result(alloc, 0))
    };
    let flat = FlatConv { x1, w1, o1, residual, scratch };
    match batch {
        Extent::Fixed(n) => (0..n).for_each(|nb| conv_image(c, ops, ep, (x, w), win, &flat, Image::At(nb))),
        // Images one after the other: each GEMM is parallel inside.
        Extent::Value(n) => {
            let zero = c.idx(0);
            c.for_step(zero, n, 1, |c, nb| conv_image(c, ops, ep, (x, w), win, &flat, Image::Var(nb)));
        }
    }
    if let Some(col) = scratch {
        c.op(OpSpec::new("memref.dealloc", Span::UNKNOWN).operands([col]));
    }
}

/// A convolution's batch extent, and its input's and weights' dims (the batch as 0).
type Dims<'a> = (Extent, &'a [usize], &'a [usize]);

/// The flat buffers a convolution's GEMMs read and write, and its im2col columns if any.
struct FlatConv {
    x1: ValueId,
    w1: ValueId,
    o1: ValueId,
    residual: Option<ValueId>,
    scratch: Option<ValueId>,
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
    let p: usize = win.out.iter().product();
    let hw: usize = x[2..].iter().product();
    let act = (ep.act_min, ep.act_max);
    let in_sp = x[2..].to_vec();
    c.for_loop(0, group, |e, gi| {
        let b = match f.scratch {
            None => {
                let off = nb.offset(e, &[(gi, (icg * hw) as i64)], c_in * hw);
                BOperand::Rows(Mat { buf: f.x1, off, rs: hw, cs: 1 })
            }
            Some(col) => {
                im2col(e, f.x1, col, nb, c_in, &in_sp, gi, icg, win);
                let zero = e.idx(0);
                BOperand::Panels { buf: col, off: zero }
            }
        };
        let a_off = e.affine(&[(gi, (ocg * kk) as i64)], 0);
        let a = Mat { buf: f.w1, off: a_off, rs: kk, cs: 1 };
        let c_off = nb.offset(e, &[(gi, (ocg * p) as i64)], oc * p);
        let cm = Mat { buf: f.o1, off: c_off, rs: p, cs: 1 };
        let bias = match ops.bias {
            Some(bb) => Bias::Rows(bb, e.affine(&[(gi, ocg as i64)], 0)),
            None => Bias::None,
        };
        let residual = f.residual.map(|r| Mat { buf: r, off: c_off, rs: p, cs: 1 });
        gemm(e, ocg, p, kk, a, b, cm, TileEpilogue { bias, residual, act });
    });
}

/// Writes tap row `ic * K + kpos` of output position `opos` into column panels, at
/// `(opos / NR) * rows * NR + row * NR + opos % NR`, for one image and group; taps in the padding
/// are 0. The lanes past P in the last panel are left as they are: their columns are not stored.
#[allow(clippy::too_many_arguments)]
fn im2col(
    c: &mut Cursor,
    x1: ValueId,
    col: ValueId,
    nb: Image,
    c_in: usize,
    in_sp: &[usize],
    gi: ValueId,
    icg: usize,
    win: &Window,
) {
    let ns = in_sp.len();
    let ksp: usize = win.kernel.iter().product();
    let hw: usize = in_sp.iter().product();
    let in_strides = strides_of(in_sp);
    let k_strides = strides_of(&win.kernel);
    let o_strides = strides_of(&win.out);
    let mut shape = vec![icg];
    shape.extend(&win.kernel);
    shape.extend(&win.out);
    let padded = win.pads.iter().any(|&q| q > 0);
    c.parallel(&shape, &mut |e, ivs| {
        let ic = ivs[0];
        let (ks, os) = (&ivs[1..1 + ns], &ivs[1 + ns..]);
        let mut ok: Option<ValueId> = None;
        let mut terms = Vec::new();
        for q in 0..ns {
            let pos =
                e.affine(&[(os[q], win.strides[q] as i64), (ks[q], win.dilations[q] as i64)], -(win.pads[q] as i64));
            let pos = if padded { e.clamp_tap(pos, in_sp[q], &mut ok) } else { pos };
            terms.push((pos, in_strides[q] as i64));
        }
        let ch = e.affine(&[(gi, icg as i64), (ic, 1)], 0);
        terms.push((ch, hw as i64));
        let src = nb.offset(e, &terms, c_in * hw);
        let mut v = e.load(x1, &[src]);
        if let Some(ok) = ok {
            let z = e.const_float(0.0, Type::f32());
            v = e.value_op("arith.select", &[ok, v, z], Type::f32());
        }
        // Column panels for the micro-kernel: tap row `row` of output position `opos` at
        // (opos / NR) * K * NR + row * NR + opos % NR.
        let mut row_terms: Vec<(ValueId, i64)> = vec![(ic, (ksp * NR) as i64)];
        let mut pos_terms: Vec<(ValueId, i64)> = Vec::new();
        for q in 0..ns {
            row_terms.push((ks[q], (k_strides[q] * NR) as i64));
            pos_terms.push((os[q], o_strides[q] as i64));
        }
        let opos = e.affine(&pos_terms, 0);
        let nr = e.idx(NR as i64);
        let panel = e.value_op("arith.divui", &[opos, nr], Type::Index);
        let lane = e.value_op("arith.remui", &[opos, nr], Type::Index);
        row_terms.extend([(panel, (icg * ksp * NR) as i64), (lane, 1)]);
        let dst = e.affine(&row_terms, 0);
        e.store(v, col, &[dst]);
    });
}

/// A direct convolution (any element type; f16 computes in f32).
#[allow(clippy::too_many_arguments)]
fn direct(c: &mut Cursor, ops: &EpilogueOperands, ep: &Epilogue, (batch, x, w): Dims, win: &Window, elem: &Type) {
    let (oc_n, icg) = (w[0], w[1]);
    let ocg = oc_n / win.group;
    let padded = win.pads.iter().any(|&p| p > 0);
    let ns = win.kernel.len();
    let float = elem.is_float();
    let compute = if *elem == Type::Float(FloatKind::F16) { Type::f32() } else { elem.clone() };
    let in_spatial = x[2..].to_vec();
    let mut outer = vec![batch, Extent::Fixed(oc_n)];
    outer.extend(win.out.iter().map(|&d| Extent::Fixed(d)));
    let zero_of =
        |e: &mut Cursor| if float { e.const_float(0.0, compute.clone()) } else { e.const_int(0, compute.clone()) };
    c.parallel_over(&outer, &mut |e, ivs| {
        let (n, oc) = (ivs[0], ivs[1]);
        let osp = ivs[2..].to_vec();
        let init = match ops.bias {
            Some(b) => e.load(b, &[oc]),
            None => zero_of(e),
        };
        let ocg_v = e.idx(ocg as i64);
        let gi = e.value_op("arith.divui", &[oc, ocg_v], Type::Index);
        let icg_v = e.idx(icg as i64);
        let ic0 = e.value_op("arith.muli", &[gi, icg_v], Type::Index);
        let acc = e.for_acc(0, icg, init, |e, ic, acc| {
            let ic_abs = e.value_op("arith.addi", &[ic0, ic], Type::Index);
            let mut tap = |e: &mut Cursor, kidx: &[ValueId], st: &[ValueId]| -> Vec<ValueId> {
                let mut inb: Option<ValueId> = None;
                let mut pos = Vec::new();
                for q in 0..ns {
                    let p = e.affine(
                        &[(osp[q], win.strides[q] as i64), (kidx[q], win.dilations[q] as i64)],
                        -(win.pads[q] as i64),
                    );
                    pos.push(if padded { e.clamp_tap(p, in_spatial[q], &mut inb) } else { p });
                }
                let xv = e.load(ops.a, &[&[n, ic_abs][..], &pos].concat());
                let wv = e.load(ops.b, &[&[oc, ic][..], kidx].concat());
                let xv = match inb {
                    Some(ok) => {
                        let z = zero_of(e);
                        e.value_op("arith.select", &[ok, xv, z], compute.clone())
                    }
                    None => xv,
                };
                vec![if float {
                    e.fmuladd(xv, wv, st[0])
                } else {
                    let p = e.value_op("arith.muli", &[xv, wv], compute.clone());
                    e.value_op("arith.addi", &[p, st[0]], compute.clone())
                }]
            };
            e.nest_accs(&win.kernel, &[acc], &mut tap)[0]
        });
        let mut v = acc;
        if let Some(r) = ops.residual {
            let rv = e.load(r, ivs);
            v = e.value_op(if float { "arith.addf" } else { "arith.addi" }, &[v, rv], compute.clone());
        }
        if float {
            v = super::matmul::apply_activation(e, v, (ep.act_min, ep.act_max));
        }
        e.store(v, ops.output, ivs);
    });
}
