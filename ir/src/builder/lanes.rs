//! Vectors of [`NR`] lanes as the convolution kernels and the pooling of f32 rows gather them: their types, masks of a run of
//! lanes, masked loads and stores (the lanes off read as the pass-through and are left alone),
//! and shuffles: the even or odd elements of a run two vectors long (a row read at stride 2), two
//! vectors interleaved.

use super::LoopBuilder;
use crate::{Attribute, OpSpec, Span, Type, ValueId};

/// The lanes of the kernels' f32 vectors: the GEMM's register tiles are rows of vectors this
/// wide, and the convolutions and pooling gather their rows in them.
pub const NR: usize = 16;

/// `vector<NR x elem>`.
pub fn of(elem: Type) -> Type {
    Type::Vector { shape: vec![NR as u64], elem: Box::new(elem) }
}

/// The first `count` lanes (every lane from `NR` on, none at 0 or below).
pub fn first<B: LoopBuilder>(e: &mut B, count: ValueId) -> ValueId {
    e.value_op("vector.create_mask", &[count], of(Type::i1()))
}

/// Lanes `[lo, hi)`, for `lo <= hi`: the first `hi` less the first `lo`.
pub fn between<B: LoopBuilder>(e: &mut B, lo: ValueId, hi: ValueId) -> ValueId {
    let (below_hi, below_lo) = (first(e, hi), first(e, lo));
    e.value_op("arith.xori", &[below_hi, below_lo], of(Type::i1()))
}

/// f32 zeros in every lane: the pass-through of the gathers' loads. Callers make it once, outside
/// their loops (the work estimate of a parallel loop counts it where it stands).
pub fn zeros<B: LoopBuilder>(e: &mut B) -> ValueId {
    e.splat_const(0.0, of(Type::f32()))
}

/// The f32 elements from `buf[idx]` on in the lanes `mask` takes, `pass`'s in the others.
pub fn load<B: LoopBuilder>(e: &mut B, buf: ValueId, idx: &[ValueId], mask: ValueId, pass: ValueId) -> ValueId {
    let operands = [&[buf][..], idx, &[mask, pass]].concat();
    e.value_op("vector.maskedload", &operands, of(Type::f32()))
}

/// Stores the lanes of `v` that `mask` takes from `buf[idx]` on.
pub fn store<B: LoopBuilder>(e: &mut B, v: ValueId, buf: ValueId, idx: &[ValueId], mask: ValueId) {
    let operands = [&[buf][..], idx, &[mask, v]].concat();
    e.op(OpSpec::new("vector.maskedstore", Span::UNKNOWN).operands(operands));
}

/// The even elements of the `2 NR` from `buf[idx]` on (the last index moving), each half loaded
/// with its mask (the elements off read as `pass`'s): lane `l` is element `2 l`.
pub fn evens<B: LoopBuilder>(e: &mut B, buf: ValueId, idx: &[ValueId], masks: [ValueId; 2], pass: ValueId) -> ValueId {
    let (lead, last) = idx.split_at(idx.len() - 1);
    let halves: Vec<ValueId> = (0..2)
        .map(|h| {
            let at = e.affine(&[(last[0], 1)], (h * NR) as i64);
            load(e, buf, &[lead, &[at]].concat(), masks[h], pass)
        })
        .collect();
    even_odd(e, halves[0], halves[1], 0)
}

/// Lanes `(a, b)` shuffled by `indices` (`a`'s lanes first, then `b`'s).
fn shuffle<B: LoopBuilder>(e: &mut B, (a, b): (ValueId, ValueId), indices: impl Iterator<Item = usize>) -> ValueId {
    let mask = Attribute::DenseArray { elem: Type::i64(), values: indices.map(|l| l as i128).collect() };
    e.value_attr("vector.shuffle", &[a, b], of(Type::f32()), vec![("mask", mask)])
}

/// The elements `2 l + parity` of the run of `2 NR` that `a` then `b` hold: its even elements
/// (parity 0) or its odd ones (1).
pub fn even_odd<B: LoopBuilder>(e: &mut B, a: ValueId, b: ValueId, parity: usize) -> ValueId {
    shuffle(e, (a, b), (0..NR).map(|l| 2 * l + parity))
}

/// `a` and `b` interleaved (`a0, b0, a1, b1, ...`), a run of `2 NR` in two vectors.
pub fn interleave<B: LoopBuilder>(e: &mut B, a: ValueId, b: ValueId) -> [ValueId; 2] {
    [0, NR / 2].map(|h| shuffle(e, (a, b), (h..h + NR / 2).flat_map(|l| [l, l + NR])))
}

/// The lanes whose element `start + l` is inside `[0, width)`, none when `inside` (the row the
/// run is in) is false.
pub fn within<B: LoopBuilder>(e: &mut B, start: ValueId, width: usize, inside: ValueId) -> ValueId {
    let (zero, minus) = (e.idx(0), e.affine(&[(start, -1)], 0));
    let lo = e.value_op("arith.maxsi", &[minus, zero], Type::Index);
    let hi = e.affine(&[(start, -1)], width as i64);
    let hi = e.value_op("arith.select", &[inside, hi, lo], Type::Index);
    between(e, lo, hi)
}
