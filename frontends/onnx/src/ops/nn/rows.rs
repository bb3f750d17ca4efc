//! Vector loops over contiguous f32 rows, shared by Softmax, LayerNormalization and
//! GlobalAveragePool: a row's whole vectors of [`LANES`], then its last `row % LANES` elements
//! one at a time. A fold keeps one vector accumulator and reduces its lanes at the end, so its
//! sums are added in another order than a scalar loop's.

use crate::emit::{Emitter, Extent, LoopBuilder};
use xcc_ir::{Attribute, OpSpec, Span, Type, ValueId};

/// Lanes of the vector loops (one AVX2 register).
pub(super) const LANES: usize = 8;

pub(super) fn lanes() -> Type {
    Type::Vector { shape: vec![LANES as u64], elem: Box::new(Type::f32()) }
}

/// Where a row of `row` elements stops being whole vectors, and its end, as indices.
pub(super) fn split(e: &mut Emitter, row: Extent) -> (ValueId, ValueId) {
    let n = e.extent(row);
    let split = match row {
        Extent::Fixed(k) => e.idx((k - k % LANES) as i64),
        Extent::Value(v) => {
            let lanes = e.idx(LANES as i64);
            let tail = e.value_op("arith.remui", &[v, lanes], Type::Index);
            e.value_op("arith.subi", &[v, tail], Type::Index)
        }
    };
    (split, n)
}

/// Folds `f(element)` over row `r` of `x2` with `kind` (`maximumf` or `add`) from `init`: lanes
/// up to `split`, then the scalars up to `n`. `f` gets a vector or a scalar, and its index.
pub(super) fn row_fold(
    e: &mut Emitter,
    (x2, r): (ValueId, ValueId),
    (split, n): (ValueId, ValueId),
    init: ValueId,
    kind: &str,
    f: &mut dyn FnMut(&mut Emitter, ValueId, ValueId) -> ValueId,
) -> ValueId {
    let vt = lanes();
    let combine = if kind == "add" { "arith.addf" } else { "arith.maximumf" };
    let zero = e.idx(0);
    let vinit = e.value_op("vector.broadcast", &[init], vt.clone());
    let lanes = e.for_accs_step(zero, split, LANES, &[vinit], |e, q, acc| {
        let v = e.value_op("vector.load", &[x2, r, q], vt.clone());
        let y = f(e, v, q);
        vec![e.fbin(combine, acc[0], y)]
    })[0];
    let kind_attr = Attribute::Opaque(format!("#vector.kind<{kind}>"));
    let folded = e.value_attr("vector.reduction", &[lanes], Type::f32(), vec![("kind", kind_attr)]);
    e.for_accs_between(split, n, &[folded], |e, q, acc| {
        let v = e.load(x2, &[r, q]);
        let y = f(e, v, q);
        vec![e.fbin(combine, acc[0], y)]
    })[0]
}

/// `dst[r, q] = src[r, q] OP s` over the row, lanes then scalars.
pub(super) fn row_map(
    e: &mut Emitter,
    (src, dst, r): (ValueId, ValueId, ValueId),
    (split, n): (ValueId, ValueId),
    s: ValueId,
    op: &str,
) {
    let vt = lanes();
    let sv = e.value_op("vector.broadcast", &[s], vt.clone());
    let zero = e.idx(0);
    e.for_step(zero, split, LANES, |e, q| {
        let v = e.value_op("vector.load", &[src, r, q], vt.clone());
        let y = e.fbin(op, v, sv);
        row_store(e, y, dst, r, q);
    });
    e.for_step(split, n, 1, |e, q| {
        let v = e.load(src, &[r, q]);
        let y = e.fbin(op, v, s);
        row_store(e, y, dst, r, q);
    });
}

/// Stores a vector or a scalar at `[r, q]`.
pub(super) fn row_store(e: &mut Emitter, v: ValueId, dst: ValueId, r: ValueId, q: ValueId) {
    if e.m.ty(v).is_float() {
        e.store(v, dst, &[r, q]);
    } else {
        e.op(OpSpec::new("vector.store", Span::UNKNOWN).operands([v, dst, r, q]));
    }
}

/// `dst[dst_at.., q] = src[src_at.., q]` for `q` below `row`: whole vectors, then the last
/// elements one at a time, where both buffers' rows are contiguous; else a scalar loop.
/// Why vectors: LLVM unrolls a constant row of scalars completely (a head of 64), and its
/// vectorizer's dependence analysis of the loop around then costs as much as the pairs of its
/// 128 accesses (a Llama's cache writes took 0.4 s each of an 8-layer model's compile).
pub(crate) fn copy_row(
    e: &mut Emitter,
    (src, src_at): (ValueId, &[ValueId]),
    (dst, dst_at): (ValueId, &[ValueId]),
    row: Extent,
) {
    let contiguous = |e: &Emitter, b: ValueId| {
        e.m.ty(b).as_memref().and_then(|t| t.strides_and_offset()).is_some_and(|(s, _)| s.last() == Some(&Some(1)))
    };
    let at = |prefix: &[ValueId], q: ValueId| prefix.iter().copied().chain([q]).collect::<Vec<_>>();
    let scalars = |e: &mut Emitter, from: ValueId, to: ValueId| {
        e.for_step(from, to, 1, |e, q| {
            let v = e.load(src, &at(src_at, q));
            e.store(v, dst, &at(dst_at, q));
        });
    };
    if !(contiguous(e, src) && contiguous(e, dst)) {
        let (zero, n) = (e.idx(0), e.extent(row));
        return scalars(e, zero, n);
    }
    let elem = e.m.ty(src).as_memref().map(|t| (*t.elem).clone()).expect("checked contiguous");
    let vt = Type::Vector { shape: vec![LANES as u64], elem: Box::new(elem) };
    let (split, n) = split(e, row);
    let zero = e.idx(0);
    e.for_step(zero, split, LANES, |e, q| {
        let operands: Vec<ValueId> = std::iter::once(src).chain(at(src_at, q)).collect();
        let v = e.value_op("vector.load", &operands, vt.clone());
        let operands: Vec<ValueId> = [v, dst].into_iter().chain(at(dst_at, q)).collect();
        e.op(OpSpec::new("vector.store", Span::UNKNOWN).operands(operands));
    });
    scalars(e, split, n);
}
