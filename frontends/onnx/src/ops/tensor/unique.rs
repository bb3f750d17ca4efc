//! Unique: the distinct elements of the flattened input, or the distinct slices along `axis`,
//! sorted (ascending; slices compared element by element in row-major order) or in the order
//! they first appear; with each one's first index, each input unit's index in the result, and
//! each one's count. How many there are is found by the run (at most the number of units:
//! [`crate::data_dim::DataDims::found`]).
//!
//! Serial and quadratic in the units: each unit finds the first unit equal to it; each first
//! one counts the first ones before it (smaller, or earlier) for its place in the result.

use super::non_zero::{count_if, layout};
use crate::emit::{Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use xcc_ir::{Type, ValueId};

pub struct Unique;

impl OnnxOp for Unique {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = g.ty(&node.inputs[0])?;
        let u = layout(node, x)?;
        let distinct = g.found_dim(&node.outputs[0], u.found, u.along.clone());
        let y: Vec<Dim> = u.outer.iter().cloned().chain([distinct.clone()]).chain(u.inner.iter().cloned()).collect();
        Ok(vec![
            TensorType::with_dims(x.dtype, y),
            TensorType::with_dims(DType::I64, vec![distinct.clone()]),
            TensorType::with_dims(DType::I64, vec![u.along]),
            TensorType::with_dims(DType::I64, vec![distinct]),
        ])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let xt = g.ty(&node.inputs[0])?;
        let u = layout(node, xt)?;
        let sorted = node.int("sorted", 1) != 0;
        let outer = e.dim_extents(&u.outer);
        let inner = e.dim_extents(&u.inner);
        let (outer, inner) = (e.extent_product(&outer), e.extent_product(&inner));
        let count = e.dim_extent(&u.along);
        let x = e.buf(&node.inputs[0])?;
        let x = Slices { x: e.reshaped_over(x, &[outer, count, inner]), outer, inner, dtype: xt.dtype };
        let scratch = |e: &mut Emitter| e.alloc_tensor(&TensorType::with_dims(DType::I64, vec![u.along.clone()]));
        let (first_of, place) = (scratch(e), scratch(e));
        first_units(e, &x, count, first_of);
        let zero = e.idx(0);
        let distinct = e.for_acc_over(count, zero, |e, i, n| {
            let first = is_first(e, first_of, i);
            count_if(e, n, first)
        });
        places(e, &x, count, first_of, place, sorted);
        e.define_found(&found_dim_name(&node.outputs[0], u.found), distinct);
        let mut out = |k: usize| -> OResult<Option<ValueId>> {
            match node.outputs.get(k).filter(|o| !o.is_empty()) {
                Some(o) => Ok(Some(e.found_buffer(o, g.ty(o)?)?)),
                None => Ok(None),
            }
        };
        let (y, indices, inverse, counts) = (out(0)?, out(1)?, out(2)?, out(3)?);
        let y = y.map(|y| e.reshaped_over(y, &[outer, Extent::Value(distinct), inner]));
        if let Some(counts) = counts {
            e.loop_nest_over(&[Extent::Value(distinct)], &mut |e, ivs| {
                let zero = e.const_int(0, Type::i64());
                e.store(zero, counts, ivs);
            });
        }
        e.loop_nest_over(&[count], &mut |e, ivs| {
            let i = ivs[0];
            let first = e.load(first_of, &[i]);
            let first = e.value_op("arith.index_cast", &[first], Type::Index);
            let p = e.load(place, &[first]);
            if let Some(inverse) = inverse {
                e.store(p, inverse, &[i]);
            }
            let p = e.value_op("arith.index_cast", &[p], Type::Index);
            if let Some(counts) = counts {
                let c = e.load(counts, &[p]);
                let one = e.const_int(1, Type::i64());
                let c = e.value_op("arith.addi", &[c, one], Type::i64());
                e.store(c, counts, &[p]);
            }
            let is_first = e.cmpi("eq", first, i);
            e.if_then(is_first, |e| {
                if let Some(indices) = indices {
                    let v = e.value_op("arith.index_cast", &[i], Type::i64());
                    e.store(v, indices, &[p]);
                }
                if let Some(y) = y {
                    e.loop_nest_over(&[x.outer, x.inner], &mut |e, oi| {
                        let v = e.load(x.x, &[oi[0], i, oi[1]]);
                        e.store(v, y, &[oi[0], p, oi[1]]);
                    });
                }
            });
        });
        Ok(())
    }
}

/// The input as `[outer, units, inner]`.
struct Slices {
    x: ValueId,
    outer: Extent,
    inner: Extent,
    dtype: DType,
}

/// Whether unit `i` is the first of its kind (`first_of[i] == i`).
fn is_first(e: &mut Emitter, first_of: ValueId, i: ValueId) -> ValueId {
    let f = e.load(first_of, &[i]);
    let i64_i = e.value_op("arith.index_cast", &[i], Type::i64());
    e.cmpi("eq", f, i64_i)
}

/// `first_of[i]`: the first unit equal to unit `i`.
fn first_units(e: &mut Emitter, x: &Slices, count: Extent, first_of: ValueId) {
    e.loop_nest_over(&[count], &mut |e, ivs| {
        let i = ivs[0];
        let zero = e.idx(0);
        let first = e.for_accs_between(zero, i, &[i], |e, j, acc| {
            let unset = e.cmpi("eq", acc[0], i);
            let (differs, _) = compare(e, x, j, i);
            let yes = e.const_int(1, Type::i1());
            let equal = e.value_op("arith.xori", &[differs, yes], Type::i1());
            let take = e.value_op("arith.andi", &[unset, equal], Type::i1());
            vec![e.value_op("arith.select", &[take, j, acc[0]], Type::Index)]
        })[0];
        let first = e.value_op("arith.index_cast", &[first], Type::i64());
        e.store(first, first_of, &[i]);
    });
}

/// `place[i]` for each first unit `i`: how many first units come before it (are smaller when
/// `sorted`, else earlier).
fn places(e: &mut Emitter, x: &Slices, count: Extent, first_of: ValueId, place: ValueId, sorted: bool) {
    e.loop_nest_over(&[count], &mut |e, ivs| {
        let i = ivs[0];
        let first = is_first(e, first_of, i);
        e.if_then(first, |e| {
            let before = if sorted {
                let zero = e.idx(0);
                e.for_acc_over(count, zero, |e, j, n| {
                    let other = is_first(e, first_of, j);
                    let (_, less) = compare(e, x, j, i);
                    let hit = e.value_op("arith.andi", &[other, less], Type::i1());
                    count_if(e, n, hit)
                })
            } else {
                let zero = e.idx(0);
                e.for_accs_between(zero, i, &[zero], |e, j, acc| {
                    let other = is_first(e, first_of, j);
                    vec![count_if(e, acc[0], other)]
                })[0]
            };
            let before = e.value_op("arith.index_cast", &[before], Type::i64());
            e.store(before, place, &[i]);
        });
    });
}

/// Units `a` and `b` compared element by element: (whether they differ, whether `a` is
/// smaller at the first element where they do).
fn compare(e: &mut Emitter, x: &Slices, a: ValueId, b: ValueId) -> (ValueId, ValueId) {
    let n = e.extent_mul(x.outer, x.inner);
    let no = e.const_int(0, Type::i1());
    let (lo, hi) = (e.idx(0), e.extent(n));
    let r = e.for_accs_between(lo, hi, &[no, no], |e, k, acc| {
        let at = e.unflatten_over(k, &[x.outer, x.inner]);
        let va = e.load(x.x, &[at[0], a, at[1]]);
        let vb = e.load(x.x, &[at[0], b, at[1]]);
        let (ne, lt) = element_order(e, va, vb, x.dtype);
        let yes = e.const_int(1, Type::i1());
        let open = e.value_op("arith.xori", &[acc[0], yes], Type::i1());
        let decides = e.value_op("arith.andi", &[open, ne], Type::i1());
        vec![
            e.value_op("arith.ori", &[acc[0], ne], Type::i1()),
            e.value_op("arith.select", &[decides, lt, acc[1]], Type::i1()),
        ]
    });
    (r[0], r[1])
}

/// (`a != b`, `a < b`) for two elements of type `dtype`.
fn element_order(e: &mut Emitter, a: ValueId, b: ValueId, dtype: DType) -> (ValueId, ValueId) {
    match dtype {
        DType::F32 | DType::F64 => (e.cmpf("une", a, b), e.cmpf("olt", a, b)),
        d if d.is_float() => {
            let (a, b) = (e.convert(a, d, DType::F32), e.convert(b, d, DType::F32));
            (e.cmpf("une", a, b), e.cmpf("olt", a, b))
        }
        d => {
            let lt = if d.is_unsigned() || d == DType::Bool { "ult" } else { "slt" };
            (e.cmpi("ne", a, b), e.cmpi(lt, a, b))
        }
    }
}
