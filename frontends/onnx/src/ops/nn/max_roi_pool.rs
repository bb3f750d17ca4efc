//! MaxRoiPool: each region of interest `[batch, x1, y1, x2, y2]` has its corners scaled by
//! `spatial_scale` and rounded (halves away from zero) to pixels, and is cut into `pooled_shape`
//! bins of whole pixels (`floor(i * size / bins)` to `ceil((i + 1) * size / bins)`, clipped to
//! the image), each the maximum of its pixels, or 0 when empty. A region is at least 1x1.
//! Parallel over the outputs; the bins' pixel loops are `scf.for`s over run-time bounds.
//!
//! ONNX Runtime starts each maximum at the smallest positive float rather than at the lowest,
//! so a bin of negative pixels gives it about 1e-38; xcc gives the bin's maximum, as the
//! operator is defined (and as Caffe and torchvision compute it). A batch outside `[0, N)` makes
//! the run return `XCC_ERROR_INDEX_OUT_OF_RANGE`.

use super::roi_align::{checked_batch, clamped_integer, index_to_real, Image};
use crate::emit::{compute_type, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use xcc_ir::{Type, ValueId};

pub struct MaxRoiPool;

fn pooled_shape(node: &Node) -> OResult<[usize; 2]> {
    match node.ints("pooled_shape").as_deref() {
        Some(&[h, w]) if h > 0 && w > 0 => Ok([h as usize, w as usize]),
        other => err(format!("MaxRoiPool's pooled_shape must be two positive sizes, not {other:?}")),
    }
}

impl OnnxOp for MaxRoiPool {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let [h, w] = pooled_shape(node)?;
        let x = super::float_input(node, g)?;
        let rois = g.ty(&node.inputs[1])?;
        let roi_dims = rois.dims();
        if x.shape.len() != 4 || roi_dims.len() != 2 || roi_dims[1] != Dim::fixed(5) {
            return err(format!(
                "MaxRoiPool takes X [N, C, H, W] and rois [R, 5], not {} and {}",
                x.describe(),
                rois.describe()
            ));
        }
        let dims = vec![roi_dims[0].clone(), x.dims()[1].clone(), Dim::fixed(h), Dim::fixed(w)];
        Ok(vec![TensorType::with_dims(x.dtype, dims)])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let pooled = pooled_shape(node)?;
        let scale = node.float("spatial_scale", 1.0) as f64;
        let xt = g.ty(&node.inputs[0])?;
        let (x, rois, out) = (e.buf(&node.inputs[0])?, e.buf(&node.inputs[1])?, e.buf(&node.outputs[0])?);
        let x_dims = e.dim_extents(&xt.dims());
        let extents = e.dim_extents(&g.ty(&node.outputs[0])?.dims());
        let image = Image::new(e, x, &x_dims, compute_type(xt.dtype));
        e.parallel_over(&extents, &mut |e, ivs| {
            let (r, c) = (ivs[0], ivs[1]);
            let batch = batch(e, rois, r, x_dims[0]);
            let ranges: Vec<[ValueId; 2]> =
                (0..2).map(|k| pixel_range(e, &image, rois, r, k, scale, pooled[k], ivs[2 + k])).collect();
            let ct = image.ct.clone();
            let lowest = e.const_float(f64::NEG_INFINITY, ct.clone());
            let m = e.for_accs_between(ranges[0][0], ranges[0][1], &[lowest], |e, y, acc| {
                e.for_accs_between(ranges[1][0], ranges[1][1], acc, |e, x, acc| {
                    let v = e.load(image.x, &[batch, c, y, x]);
                    vec![e.fbin("arith.maximumf", acc[0], v)]
                })
            })[0];
            let mut empty = e.const_int(0, Type::i1());
            for [start, end] in &ranges {
                let none = e.cmpi("sle", *end, *start);
                empty = e.value_op("arith.ori", &[empty, none], Type::i1());
            }
            let zero = e.const_float(0.0, ct.clone());
            let v = e.value_op("arith.select", &[empty, zero, m], ct);
            e.store(v, out, ivs);
        });
        Ok(())
    }
}

/// Region `r`'s batch: its first value, truncated, checked against the batch size.
fn batch(e: &mut Emitter, rois: ValueId, r: ValueId, batches: crate::emit::Extent) -> ValueId {
    let at = e.idx(0);
    let v = e.load(rois, &[r, at]);
    let ct = e.ty(v);
    let n = e.extent(batches);
    let n = index_to_real(e, n, &ct);
    let zero = e.const_float(0.0, ct.clone());
    // Truncated, a batch is in range exactly when the real is above -1 and below N.
    let minus_one = e.const_float(-1.0, ct.clone());
    let low = e.cmpf("ule", v, minus_one);
    let high = e.cmpf("uge", v, n);
    let outside = e.value_op("arith.ori", &[low, high], Type::i1());
    let safe = e.value_op("arith.select", &[outside, zero, v], ct.clone());
    let i = e.value_op("arith.fptosi", &[safe], Type::i64());
    checked_batch(e, i, outside)
}

/// The pixels `[start, end)` of bin `bin` along dim `k` (0: y, 1: x) of region `r`, clipped
/// to the image, as indices.
#[allow(clippy::too_many_arguments)]
fn pixel_range(
    e: &mut Emitter,
    image: &Image,
    rois: ValueId,
    r: ValueId,
    k: usize,
    scale: f64,
    bins: usize,
    bin: ValueId,
) -> [ValueId; 2] {
    let ct = image.ct.clone();
    // rois holds [batch, x1, y1, x2, y2]: dim k (y = 0, x = 1) starts at column 2 - k.
    let corner = |e: &mut Emitter, column: i64| {
        let at = e.idx(column);
        let v = e.load(rois, &[r, at]);
        let s = e.const_float(scale, ct.clone());
        let v = e.fbin("arith.mulf", v, s);
        let v = e.unary("math.round", v);
        clamped_integer(e, v, &ct)
    };
    let (start, end) = (corner(e, 2 - k as i64), corner(e, 4 - k as i64));
    let one = e.const_int(1, Type::i64());
    let size = e.value_op("arith.subi", &[end, start], Type::i64());
    let size = e.value_op("arith.addi", &[size, one], Type::i64());
    let size = e.value_op("arith.maxsi", &[size, one], Type::i64());
    let size = e.value_op("arith.sitofp", &[size], ct.clone());
    let bins = e.const_float(bins as f64, ct.clone());
    let bin_size = e.fbin("arith.divf", size, bins);
    let i = index_to_real(e, bin, &ct);
    let one_real = e.const_float(1.0, ct.clone());
    let next = e.fbin("arith.addf", i, one_real);
    let lo = e.fbin("arith.mulf", i, bin_size);
    let hi = e.fbin("arith.mulf", next, bin_size);
    let lo = e.unary("math.floor", lo);
    let hi = e.unary("math.ceil", hi);
    [lo, hi].map(|v| {
        let v = clamped_integer(e, v, &ct);
        let v = e.value_op("arith.addi", &[v, start], Type::i64());
        let zero = e.const_int(0, Type::i64());
        let size = e.value_op("arith.index_cast", &[image.size[k]], Type::i64());
        let v = e.value_op("arith.maxsi", &[v, zero], Type::i64());
        let v = e.value_op("arith.minsi", &[v, size], Type::i64());
        e.value_op("arith.index_cast", &[v], Type::Index)
    })
}
