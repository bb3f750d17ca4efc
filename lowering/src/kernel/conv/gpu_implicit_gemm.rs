//! A GPU convolution as an implicit GEMM tiled through shared memory ([`crate::kernel::gpu_gemm`]).

use super::*;

/// An f32 convolution as an implicit GEMM tiled through shared memory ([`crate::kernel::gpu_gemm`]):
/// per group, its weights (output channels by input channels x taps) times its windows (input
/// channels x taps by images x positions), the windows gathered from the input (zeros in the
/// padding) as the tiles are staged, never written out.
pub(super) fn implicit_gemm(
    c: &mut Cursor,
    ops: &EpilogueOperands,
    ep: &Epilogue,
    (oc_n, icg): (usize, usize),
    win: &Window,
    outs: &[usize],
    gemm: &crate::kernel::gpu_gemm::Gemm,
) {
    let sums = DirectSums { ops, win, compute: Type::f32(), float: true };
    let (ocg, k) = (oc_n / win.group, gemm.k);
    let weights = c.flat(ops.b);
    let mut taps = vec![icg];
    taps.extend(&win.kernel);
    let mut columns = vec![outs[0]];
    columns.extend(&outs[2..]);
    let channel = |e: &mut Cursor, g: ValueId, i: ValueId| e.affine(&[(g, ocg as i64), (i, 1)], 0);
    let load_a = |e: &mut Cursor, bivs: &[ValueId], i: ValueId, q: ValueId| {
        let oc = channel(e, bivs[0], i);
        let at = e.affine(&[(oc, k as i64), (q, 1)], 0);
        e.load(weights, &[at])
    };
    let load_b = |e: &mut Cursor, bivs: &[ValueId], q: ValueId, j: ValueId| {
        let tap = e.unflatten(q, &taps);
        let at = e.unflatten(j, &columns);
        let ic = e.affine(&[(bivs[0], icg as i64), (tap[0], 1)], 0);
        let mut inside = None;
        let mut position = vec![at[0], ic];
        for d in 0..win.kernel.len() {
            let p = e.affine(
                &[(at[d + 1], win.strides[d] as i64), (tap[d + 1], win.dilations[d] as i64)],
                -(win.pads[d] as i64),
            );
            position.push(e.clamp_tap(p, win.input[d], &mut inside));
        }
        let v = e.load(ops.a, &position);
        match inside {
            Some(ok) => {
                let zero = e.const_float(0.0, Type::f32());
                e.value_op("arith.select", &[ok, v, zero], Type::f32())
            }
            None => v,
        }
    };
    let finish = |e: &mut Cursor, bivs: &[ValueId], (i, j): (ValueId, ValueId), sum: ValueId| {
        let oc = channel(e, bivs[0], i);
        let at = e.unflatten(j, &columns);
        let sum = match ops.bias {
            Some(b) => {
                let bv = e.load(b, &[oc]);
                e.value_op("arith.addf", &[sum, bv], Type::f32())
            }
            None => sum,
        };
        let mut index = vec![at[0], oc];
        index.extend(&at[1..]);
        sums.finish(e, ep, sum, &index);
    };
    crate::kernel::gpu_gemm::emit(c, gemm, &load_a, &load_b, &finish);
}
