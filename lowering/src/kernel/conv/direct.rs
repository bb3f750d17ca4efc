//! The direct strategy: a parallel loop over the output, each element's sum over its window
//! (taps outside the input read a clamped index masked to zero); for the element types the GEMM
//! does not take, and on a GPU a thread per output or per few output channels.

use super::*;

/// What a direct convolution's sums need: the operands, the window, the element type.
pub(super) struct DirectSums<'a> {
    pub(super) ops: &'a EpilogueOperands,
    pub(super) win: &'a Window,
    pub(super) compute: Type,
    pub(super) float: bool,
}

impl DirectSums<'_> {
    pub(super) fn zero(&self, e: &mut Cursor) -> ValueId {
        if self.float {
            e.const_float(0.0, self.compute.clone())
        } else {
            e.const_int(0, self.compute.clone())
        }
    }

    /// The sums over input channels `[first, first + count)` of the group (`group_ic0`, the
    /// group's first input channel) and the window, for the output channels `ocs` at image `n` and
    /// position `osp`, added to `inits`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn window_sums(
        &self,
        e: &mut Cursor,
        (n, group_ic0): (ValueId, ValueId),
        (first, count): (ValueId, usize),
        ocs: &[ValueId],
        osp: &[ValueId],
        inits: &[ValueId],
    ) -> Vec<ValueId> {
        let win = self.win;
        let padded = win.pads.iter().any(|&p| p > 0);
        let (lo, hi) = (e.idx(0), e.idx(count as i64));
        e.for_accs_between(lo, hi, inits, |e, i, accs| {
            let ic = e.value_op("arith.addi", &[first, i], Type::Index);
            let ic_abs = e.value_op("arith.addi", &[group_ic0, ic], Type::Index);
            let mut tap = |e: &mut Cursor, kidx: &[ValueId], st: &[ValueId]| -> Vec<ValueId> {
                let mut inb: Option<ValueId> = None;
                let mut pos = Vec::new();
                for q in 0..win.kernel.len() {
                    let p = e.affine(
                        &[(osp[q], win.strides[q] as i64), (kidx[q], win.dilations[q] as i64)],
                        -(win.pads[q] as i64),
                    );
                    pos.push(if padded { e.clamp_tap(p, win.input[q], &mut inb) } else { p });
                }
                let xv = e.load(self.ops.a, &[&[n, ic_abs][..], &pos].concat());
                let xv = match inb {
                    Some(ok) => {
                        let z = self.zero(e);
                        e.value_op("arith.select", &[ok, xv, z], self.compute.clone())
                    }
                    None => xv,
                };
                ocs.iter()
                    .zip(st)
                    .map(|(&oc, &acc)| {
                        let wv = e.load(self.ops.b, &[&[oc, ic][..], kidx].concat());
                        if self.float {
                            e.fmuladd(xv, wv, acc)
                        } else {
                            let p = e.value_op("arith.muli", &[xv, wv], self.compute.clone());
                            e.value_op("arith.addi", &[p, acc], self.compute.clone())
                        }
                    })
                    .collect()
            };
            e.nest_accs(&win.kernel, accs, &mut tap)
        })
    }

    /// The first input channel of output channel `oc`'s group.
    pub(super) fn group_ic0(&self, e: &mut Cursor, oc: ValueId, (oc_n, icg): (usize, usize)) -> ValueId {
        let ocg_v = e.idx((oc_n / self.win.group) as i64);
        let gi = e.value_op("arith.divui", &[oc, ocg_v], Type::Index);
        let icg_v = e.idx(icg as i64);
        e.value_op("arith.muli", &[gi, icg_v], Type::Index)
    }

    /// The residual, the activation and the store of a finished sum at `at`.
    pub(super) fn finish(&self, e: &mut Cursor, ep: &Epilogue, sum: ValueId, at: &[ValueId]) {
        let mut v = sum;
        if let Some(r) = self.ops.residual {
            let rv = e.load(r, at);
            v = e.value_op(if self.float { "arith.addf" } else { "arith.addi" }, &[v, rv], self.compute.clone());
        }
        if self.float {
            v = crate::kernel::matmul::apply_activation(e, v, Activation::of(e.m, ep));
        }
        e.store(v, self.ops.output, at);
    }
}

/// A direct convolution (any element type; f16 computes in f32). Each iteration of its parallel
/// loop computes `tile` output channels of one position (one a thread on GPUs, where `tile` is
/// the recorded `thread_tile`): each input element read serves them all.
#[allow(clippy::too_many_arguments)]
pub(super) fn direct(
    c: &mut Cursor,
    ops: &EpilogueOperands,
    ep: &Epilogue,
    (batch, _, w): Dims,
    win: &Window,
    elem: &Type,
    tile: usize,
) {
    let (oc_n, icg) = (w[0], w[1]);
    let half = matches!(elem, Type::Float(FloatKind::F16 | FloatKind::BF16));
    let compute = if half { Type::f32() } else { elem.clone() };
    let sums = DirectSums { ops, win, compute, float: elem.is_float() };
    let mut outer = vec![batch, Extent::Fixed(oc_n / tile)];
    outer.extend(&win.out);
    c.parallel_over(&outer, &mut |e, ivs| {
        let n = ivs[0];
        let osp = ivs[2..].to_vec();
        let ocs: Vec<ValueId> = if tile == 1 {
            vec![ivs[1]]
        } else {
            (0..tile).map(|t| e.affine(&[(ivs[1], tile as i64)], t as i64)).collect()
        };
        let inits: Vec<ValueId> = ocs
            .iter()
            .map(|&oc| match ops.bias {
                Some(b) => e.load(b, &[oc]),
                None => sums.zero(e),
            })
            .collect();
        let ic0 = sums.group_ic0(e, ocs[0], (oc_n, icg));
        let zero = e.idx(0);
        let accs = sums.window_sums(e, (n, ic0), (zero, icg), &ocs, &osp, &inits);
        for (&oc, &acc) in ocs.iter().zip(&accs) {
            sums.finish(e, ep, acc, &[&[n, oc][..], &osp].concat());
        }
    });
}
