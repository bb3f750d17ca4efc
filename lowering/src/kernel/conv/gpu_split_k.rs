//! A GPU convolution whose sums are split over runs of input channels.

use super::*;

/// A direct f32 convolution of static shape whose outputs are too few to fill a GPU, its sum
/// split over `splits` runs of input channels: one parallel loop writes each run's partial sums
/// to a buffer of their own (`splits` times the outputs, in the workspace), a second adds them up
/// with the bias and finishes each output. More threads, each a `splits`-th of the sum.
pub(super) fn direct_split(
    c: &mut Cursor,
    ops: &EpilogueOperands,
    ep: &Epilogue,
    (oc_n, icg): (usize, usize),
    win: &Window,
    outs: &[usize],
    splits: usize,
) {
    let sums = DirectSums { ops, win, compute: Type::f32(), float: true };
    let total: usize = outs.iter().product();
    let partial = plane_buffer(c, splits * total);
    let chunk = icg / splits;
    // Row-major strides of [splits, outs...], for the partials' flat index.
    let mut dims = vec![splits];
    dims.extend(outs);
    let strides: Vec<i64> = (0..dims.len()).map(|d| dims[d + 1..].iter().product::<usize>() as i64).collect();
    let flat = |e: &mut Cursor, ivs: &[ValueId], skip: usize| {
        let terms: Vec<(ValueId, i64)> = ivs.iter().zip(&strides[skip..]).map(|(&v, &s)| (v, s)).collect();
        e.affine(&terms, 0)
    };
    c.parallel_over(&dims.iter().map(|&d| Extent::Fixed(d)).collect::<Vec<_>>(), &mut |e, ivs| {
        let (s, n, oc) = (ivs[0], ivs[1], ivs[2]);
        let ic0 = sums.group_ic0(e, oc, (oc_n, icg));
        let first = e.affine(&[(s, chunk as i64)], 0);
        let zero = sums.zero(e);
        let sum = sums.window_sums(e, (n, ic0), (first, chunk), &[oc], &ivs[3..], &[zero])[0];
        let at = flat(e, ivs, 0);
        e.store(sum, partial, &[at]);
    });
    c.parallel_over(&outs.iter().map(|&d| Extent::Fixed(d)).collect::<Vec<_>>(), &mut |e, ivs| {
        let init = match ops.bias {
            Some(b) => e.load(b, &[ivs[1]]),
            None => sums.zero(e),
        };
        let at = flat(e, ivs, 1);
        let sum = e.for_acc(0, splits, init, |e, s, acc| {
            let i = e.affine(&[(s, total as i64), (at, 1)], 0);
            let p = e.load(partial, &[i]);
            e.value_op("arith.addf", &[acc, p], Type::f32())
        });
        sums.finish(e, ep, sum, ivs);
    });
}
