//! NonMaxSuppression: per batch and class, the boxes above `score_threshold` taken in order of
//! score (the lower index first among equals), each kept unless its intersection over union
//! with a box already kept in its class is above `iou_threshold`, until
//! `max_output_boxes_per_class` are kept. The output, `[selected, 3]` rows of (batch, class,
//! box), is as long as the run finds: at most batches x classes x boxes
//! ([`crate::data_dim::DataDims::found`]).
//!
//! Serial: each class picks its best remaining box in a pass over its scores (a mask marks the
//! boxes taken or below the threshold), then compares it with the boxes kept in that class.
//! Rows are written to a scratch buffer of the capacity, and copied to the output once counted.

use crate::emit::{Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use xcc_ir::{Type, ValueId};

pub struct NonMaxSuppression;

/// `[boxes, classes]` and the dims of batches, classes and boxes.
fn dims(node: &Node, g: &Graph) -> OResult<[Dim; 3]> {
    let (boxes, scores) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?);
    let (b, s) = (boxes.dims(), scores.dims());
    if b.len() != 3 || s.len() != 3 || b[2] != Dim::fixed(4) || boxes.dtype != DType::F32 || scores.dtype != DType::F32
    {
        return err(format!(
            "NonMaxSuppression takes float boxes [batches, boxes, 4] and scores [batches, classes, boxes], not {} and {}",
            boxes.describe(),
            scores.describe()
        ));
    }
    if s[0] != b[0] || s[2] != b[1] {
        return err(format!(
            "NonMaxSuppression's scores must be [batches, classes, boxes] for boxes {}, not {}",
            boxes.describe(),
            scores.describe()
        ));
    }
    Ok([b[0].clone(), s[1].clone(), b[1].clone()])
}

impl OnnxOp for NonMaxSuppression {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let capacity = Dim::product(&dims(node, g)?);
        let selected = g.found_dim(&node.outputs[0], 0, capacity);
        Ok(vec![TensorType::with_dims(DType::I64, vec![selected, Dim::fixed(3)])])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let [batches, classes, boxes] = dims(node, g)?;
        let capacity = Dim::product([&batches, &classes, &boxes]);
        let [batches, classes, count] = [batches, classes, boxes.clone()].map(|d| e.dim_extent(&d));
        let rows = e.alloc_tensor(&TensorType::with_dims(DType::I64, vec![capacity, Dim::fixed(3)]));
        let taken = e.alloc_tensor(&TensorType::with_dims(DType::Bool, vec![boxes]));
        let p = Params::load(node, e, count)?;
        let zero = e.idx(0);
        let selected = e.for_acc_over(batches, zero, |e, b, k| {
            e.for_acc_over(classes, k, |e, c, k| class(e, &p, rows, taken, [b, c], k))
        });
        e.define_found(&found_dim_name(&node.outputs[0], 0), selected);
        let out = e.found_buffer(&node.outputs[0], g.ty(&node.outputs[0])?)?;
        e.loop_nest_over(&[Extent::Value(selected), Extent::Fixed(3)], &mut |e, ivs| {
            let v = e.load(rows, ivs);
            e.store(v, out, ivs);
        });
        Ok(())
    }
}

/// The inputs, loaded: the boxes and scores buffers and the scalars.
struct Params {
    boxes: ValueId,
    scores: ValueId,
    count: Extent,
    center_point_box: bool,
    /// An index: the input, 0 when absent or negative.
    max_per_class: ValueId,
    iou_threshold: ValueId,
    /// `None` when absent: every box is a candidate.
    score_threshold: Option<ValueId>,
}

impl Params {
    fn load(node: &Node, e: &mut Emitter, count: Extent) -> OResult<Params> {
        let scalar = |e: &mut Emitter, k: usize| -> OResult<Option<ValueId>> {
            let Some(name) = node.input(k) else { return Ok(None) };
            let buf = e.buf(name)?;
            let rank = e.ty(buf).as_memref().map_or(0, |m| m.rank());
            let at: Vec<ValueId> = (0..rank).map(|_| e.idx(0)).collect();
            Ok(Some(e.load(buf, &at)))
        };
        let max_per_class = match scalar(e, 2)? {
            Some(v) => {
                let zero = e.const_int(0, Type::i64());
                let v = e.value_op("arith.maxsi", &[v, zero], Type::i64());
                e.value_op("arith.index_cast", &[v], Type::Index)
            }
            None => e.idx(0),
        };
        let iou_threshold = match scalar(e, 3)? {
            Some(v) => v,
            None => e.const_float(0.0, Type::f32()),
        };
        Ok(Params {
            boxes: e.buf(&node.inputs[0])?,
            scores: e.buf(&node.inputs[1])?,
            count,
            center_point_box: node.int("center_point_box", 0) != 0,
            max_per_class,
            iou_threshold,
            score_threshold: scalar(e, 4)?,
        })
    }
}

/// Suppression within class `c` of batch `b`: appends its kept boxes to `rows` from row `k`;
/// returns the next free row.
fn class(e: &mut Emitter, p: &Params, rows: ValueId, taken: ValueId, [b, c]: [ValueId; 2], k: ValueId) -> ValueId {
    e.loop_nest_over(&[p.count], &mut |e, ivs| {
        let not_candidate = match p.score_threshold {
            Some(t) => {
                let s = e.load(p.scores, &[b, c, ivs[0]]);
                let above = e.cmpf("ogt", s, t);
                let yes = e.const_int(1, Type::i1());
                e.value_op("arith.xori", &[above, yes], Type::i1())
            }
            None => e.const_int(0, Type::i1()),
        };
        e.store(not_candidate, taken, ivs);
    });
    let first = k;
    let (lo, hi) = (e.idx(0), e.extent(p.count));
    let zero = e.idx(0);
    e.for_accs_between(lo, hi, &[k, zero], |e, _, acc| {
        let (k, kept) = (acc[0], acc[1]);
        let best = best_remaining(e, p, taken, b, c);
        let none = e.extent(p.count);
        let exists = e.cmpi("ne", best, none);
        let room = e.cmpi("ult", kept, p.max_per_class);
        let go = e.value_op("arith.andi", &[exists, room], Type::i1());
        e.if_else(
            go,
            vec![Type::Index, Type::Index],
            |e| {
                let yes = e.const_int(1, Type::i1());
                e.store(yes, taken, &[best]);
                let no = e.const_int(0, Type::i1());
                let suppressed = e.for_accs_between(first, k, &[no], |e, r, acc| {
                    let two = e.idx(2);
                    let other = e.load(rows, &[r, two]);
                    let other = e.value_op("arith.index_cast", &[other], Type::Index);
                    let s = suppresses(e, p, b, best, other);
                    vec![e.value_op("arith.ori", &[acc[0], s], Type::i1())]
                })[0];
                e.if_else(
                    suppressed,
                    vec![Type::Index, Type::Index],
                    |_| vec![k, kept],
                    |e| {
                        for (col, v) in [b, c, best].into_iter().enumerate() {
                            let v = e.value_op("arith.index_cast", &[v], Type::i64());
                            let at = e.idx(col as i64);
                            e.store(v, rows, &[k, at]);
                        }
                        let one = e.idx(1);
                        vec![
                            e.value_op("arith.addi", &[k, one], Type::Index),
                            e.value_op("arith.addi", &[kept, one], Type::Index),
                        ]
                    },
                )
            },
            |_| vec![k, kept],
        )
    })[0]
}

/// The box not yet taken with the highest score (the lowest index among equals), or the box
/// count when none is left.
fn best_remaining(e: &mut Emitter, p: &Params, taken: ValueId, b: ValueId, c: ValueId) -> ValueId {
    let none = e.extent(p.count);
    let lowest = e.const_float(f64::NEG_INFINITY, Type::f32());
    let (lo, hi) = (e.idx(0), e.extent(p.count));
    e.for_accs_between(lo, hi, &[none, lowest], |e, j, acc| {
        let t = e.load(taken, &[j]);
        let s = e.load(p.scores, &[b, c, j]);
        let first = e.cmpi("eq", acc[0], none);
        let higher = e.cmpf("ogt", s, acc[1]);
        let better = e.value_op("arith.ori", &[first, higher], Type::i1());
        let yes = e.const_int(1, Type::i1());
        let free = e.value_op("arith.xori", &[t, yes], Type::i1());
        let better = e.value_op("arith.andi", &[free, better], Type::i1());
        vec![
            e.value_op("arith.select", &[better, j, acc[0]], Type::Index),
            e.value_op("arith.select", &[better, s, acc[1]], Type::f32()),
        ]
    })[0]
}

/// Box `i`'s `[y_min, x_min, y_max, x_max]`: corners in either order, or a center and a size.
fn corners(e: &mut Emitter, p: &Params, b: ValueId, i: ValueId) -> [ValueId; 4] {
    let v: Vec<ValueId> = (0..4)
        .map(|k| {
            let at = e.idx(k);
            e.load(p.boxes, &[b, i, at])
        })
        .collect();
    if p.center_point_box {
        // [x_center, y_center, width, height].
        let half = e.const_float(0.5, Type::f32());
        let (hw, hh) = (e.fbin("arith.mulf", v[2], half), e.fbin("arith.mulf", v[3], half));
        return [
            e.fbin("arith.subf", v[1], hh),
            e.fbin("arith.subf", v[0], hw),
            e.fbin("arith.addf", v[1], hh),
            e.fbin("arith.addf", v[0], hw),
        ];
    }
    [
        e.fbin("arith.minimumf", v[0], v[2]),
        e.fbin("arith.minimumf", v[1], v[3]),
        e.fbin("arith.maximumf", v[0], v[2]),
        e.fbin("arith.maximumf", v[1], v[3]),
    ]
}

/// True (an i1) when box `i` overlaps box `j` by more than the threshold: an intersection of
/// positive area, both areas positive, and intersection / union above it.
fn suppresses(e: &mut Emitter, p: &Params, b: ValueId, i: ValueId, j: ValueId) -> ValueId {
    let [a, o] = [corners(e, p, b, i), corners(e, p, b, j)];
    let zero = e.const_float(0.0, Type::f32());
    let mut valid = e.const_int(1, Type::i1());
    let side = |e: &mut Emitter, lo: usize, hi: usize, valid: &mut ValueId| {
        let start = e.fbin("arith.maximumf", a[lo], o[lo]);
        let end = e.fbin("arith.minimumf", a[hi], o[hi]);
        let overlaps = e.cmpf("ogt", end, start);
        *valid = e.value_op("arith.andi", &[*valid, overlaps], Type::i1());
        e.fbin("arith.subf", end, start)
    };
    let (h, w) = (side(e, 0, 2, &mut valid), side(e, 1, 3, &mut valid));
    let inter = e.fbin("arith.mulf", h, w);
    let area = |e: &mut Emitter, q: &[ValueId; 4]| {
        let h = e.fbin("arith.subf", q[2], q[0]);
        let w = e.fbin("arith.subf", q[3], q[1]);
        e.fbin("arith.mulf", h, w)
    };
    let (area_a, area_o) = (area(e, &a), area(e, &o));
    let sum = e.fbin("arith.addf", area_a, area_o);
    let union = e.fbin("arith.subf", sum, inter);
    for v in [inter, area_a, area_o, union] {
        let positive = e.cmpf("ogt", v, zero);
        valid = e.value_op("arith.andi", &[valid, positive], Type::i1());
    }
    let iou = e.fbin("arith.divf", inter, union);
    let above = e.cmpf("ogt", iou, p.iou_threshold);
    e.value_op("arith.andi", &[valid, above], Type::i1())
}
