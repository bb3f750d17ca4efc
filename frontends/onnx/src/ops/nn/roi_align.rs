//! RoiAlign: each region of interest `[x1, y1, x2, y2]` (scaled by `spatial_scale`) of batch
//! `batch_indices[r]` is cut into `output_height x output_width` bins, and each bin is the average
//! (or the maximum) of a grid of bilinear samples. The grid is `sampling_ratio` samples a side,
//! or, with 0, as many as the bin is pixels tall and wide: a number each region decides at run
//! time, so the sample loops are `scf.for`s over run-time bounds. Parallel over the outputs.
//!
//! As ONNX Runtime (and ONNX's reference) computes it:
//! - `half_pixel` shifts the region by half a pixel; `output_half_pixel` (opset 10's only mode)
//!   does not, and makes regions at least 1x1;
//! - a sample more than one pixel outside the image is 0; one inside is clamped to the edge;
//! - `max` mode takes, per sample, the largest of the four corners *times their weights*, not the
//!   interpolated value.
//!
//! A batch index outside `[0, N)` makes the run return `XCC_ERROR_INDEX_OUT_OF_RANGE`.

use crate::emit::{compute_type, Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use xcc_ir::{Type, ValueId};
use xcc_runtime_c::status;

pub struct RoiAlign;

struct Attrs {
    max: bool,
    half_pixel: bool,
    output: [usize; 2],
    sampling_ratio: i64,
    spatial_scale: f64,
}

fn attrs(node: &Node) -> OResult<Attrs> {
    let max = match node.string("mode").unwrap_or("avg") {
        "avg" => false,
        "max" => true,
        m => return err(format!("RoiAlign's mode must be avg or max, not {m}")),
    };
    let default_mode = if node.opset >= 16 { "half_pixel" } else { "output_half_pixel" };
    let half_pixel = match node.string("coordinate_transformation_mode").unwrap_or(default_mode) {
        "half_pixel" => true,
        "output_half_pixel" => false,
        m => {
            return err(format!(
                "RoiAlign's coordinate_transformation_mode must be half_pixel or output_half_pixel, not {m}"
            ))
        }
    };
    let (h, w) = (node.int("output_height", 1), node.int("output_width", 1));
    if h < 1 || w < 1 {
        return err(format!("RoiAlign's output_height and output_width must be positive, not {h} and {w}"));
    }
    Ok(Attrs {
        max,
        half_pixel,
        output: [h as usize, w as usize],
        sampling_ratio: node.int("sampling_ratio", 0),
        spatial_scale: node.float("spatial_scale", 1.0) as f64,
    })
}

/// The number of regions: the batch indices' dim, which the regions' first dim must equal.
pub(super) fn region_count(node: &Node, g: &Graph, rois: &TensorType, count: &Dim) -> OResult<()> {
    let n = &rois.dims()[0];
    if n == count {
        return Ok(());
    }
    if n.is_fixed() && count.is_fixed() {
        return err(format!("RoiAlign has {n} regions but {count} batch indices"));
    }
    g.require(
        DataExpr::Dim(n.clone()).eq(&DataExpr::Dim(count.clone())),
        format!("{}'s regions and batch indices differ in number", node.describe()),
    )
}

impl OnnxOp for RoiAlign {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let a = attrs(node)?;
        let x = super::float_input(node, g)?;
        let (rois, indices) = (g.ty(&node.inputs[1])?, g.ty(&node.inputs[2])?);
        let roi_dims = rois.dims();
        if x.shape.len() != 4 || roi_dims.len() != 2 || roi_dims[1] != Dim::fixed(4) || indices.shape.len() != 1 {
            return err(format!(
                "RoiAlign takes X [N, C, H, W], rois [R, 4] and batch_indices [R], not {}, {} and {}",
                x.describe(),
                rois.describe(),
                indices.describe()
            ));
        }
        let count = indices.dims()[0].clone();
        region_count(node, g, rois, &count)?;
        let [h, w] = a.output;
        let dims = vec![count, x.dims()[1].clone(), Dim::fixed(h), Dim::fixed(w)];
        Ok(vec![TensorType::with_dims(x.dtype, dims)])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let a = attrs(node)?;
        let xt = g.ty(&node.inputs[0])?;
        let d = xt.dtype;
        let (x, rois, indices) = (e.buf(&node.inputs[0])?, e.buf(&node.inputs[1])?, e.buf(&node.inputs[2])?);
        let out = e.buf(&node.outputs[0])?;
        let x_dims = e.dim_extents(&xt.dims());
        let extents = e.dim_extents(&g.ty(&node.outputs[0])?.dims());
        let image = Image::new(e, x, &x_dims, compute_type(d));
        e.parallel_over(&extents, &mut |e, ivs| {
            let (r, c) = (ivs[0], ivs[1]);
            let batch = batch_index(e, indices, r, x_dims[0]);
            let region = Region::of(e, &a, &image, rois, r);
            let pos = [ivs[2], ivs[3]];
            let v = region.pool(e, &a, &image, batch, c, pos);
            e.store(v, out, ivs);
        });
        Ok(())
    }
}

/// Region `r`'s batch, read from `indices` and checked against the batch size.
fn batch_index(e: &mut Emitter, indices: ValueId, r: ValueId, batches: Extent) -> ValueId {
    let raw = e.load(indices, &[r]);
    let it = e.ty(raw);
    let zero = e.const_int(0, it.clone());
    let n = e.extent(batches);
    let n = e.value_op("arith.index_cast", &[n], it.clone());
    let negative = e.cmpi("slt", raw, zero);
    let past = e.cmpi("sge", raw, n);
    let outside = e.value_op("arith.ori", &[negative, past], Type::i1());
    checked_batch(e, raw, outside)
}

/// A batch index read at run time: when `outside` holds, the run returns
/// `XCC_ERROR_INDEX_OUT_OF_RANGE` and batch 0 is read instead.
pub(super) fn checked_batch(e: &mut Emitter, raw: ValueId, outside: ValueId) -> ValueId {
    e.fail_run_if(outside, status::INDEX_OUT_OF_RANGE);
    let it = e.ty(raw);
    let zero = e.const_int(0, it.clone());
    let safe = e.value_op("arith.select", &[outside, zero, raw], it);
    let safe = if e.ty(safe) == Type::i64() { safe } else { e.value_op("arith.extsi", &[safe], Type::i64()) };
    e.value_op("arith.index_cast", &[safe], Type::Index)
}

/// The input and its spatial dims, in the compute type.
pub(super) struct Image {
    pub x: ValueId,
    pub ct: Type,
    /// H and W as indices and as reals.
    pub size: [ValueId; 2],
    pub real: [ValueId; 2],
}

impl Image {
    pub fn new(e: &mut Emitter, x: ValueId, dims: &[Extent], ct: Type) -> Image {
        let size = [e.extent(dims[2]), e.extent(dims[3])];
        let real = size.map(|s| index_to_real(e, s, &ct));
        Image { x, ct, size, real }
    }
}

pub(super) fn index_to_real(e: &mut Emitter, v: ValueId, ct: &Type) -> ValueId {
    let i = e.value_op("arith.index_cast", &[v], Type::i64());
    e.value_op("arith.sitofp", &[i], ct.clone())
}

/// A region's origin, bin size and sample grid, per spatial dim (y, x).
struct Region {
    start: [ValueId; 2],
    bin: [ValueId; 2],
    /// Samples per bin side (may be 0 or negative for an empty region: then no samples).
    grid: [ValueId; 2],
}

impl Region {
    fn of(e: &mut Emitter, a: &Attrs, image: &Image, rois: ValueId, r: ValueId) -> Region {
        let ct = image.ct.clone();
        let scale = e.const_float(a.spatial_scale, ct.clone());
        let offset = e.const_float(if a.half_pixel { 0.5 } else { 0.0 }, ct.clone());
        let one = e.const_float(1.0, ct.clone());
        // rois holds [x1, y1, x2, y2]: dim k (y = 0, x = 1) starts at column 1 - k.
        let corner = |e: &mut Emitter, column: i64| {
            let at = e.idx(column);
            let v = e.load(rois, &[r, at]);
            let v = e.fbin("arith.mulf", v, scale);
            e.fbin("arith.subf", v, offset)
        };
        let mut dims = (0..2).map(|k| {
            let start = corner(e, 1 - k as i64);
            let end = corner(e, 3 - k as i64);
            let mut extent = e.fbin("arith.subf", end, start);
            if !a.half_pixel {
                extent = e.fbin("arith.maximumf", extent, one);
            }
            let bins = e.const_float(a.output[k] as f64, ct.clone());
            let bin = e.fbin("arith.divf", extent, bins);
            let grid = if a.sampling_ratio > 0 {
                e.const_int(a.sampling_ratio as i128, Type::i64())
            } else {
                let up = e.unary("math.ceil", bin);
                clamped_integer(e, up, &ct)
            };
            (start, bin, grid)
        });
        let (y, x) = (dims.next().expect("y"), dims.next().expect("x"));
        Region { start: [y.0, x.0], bin: [y.1, x.1], grid: [y.2, x.2] }
    }

    /// Bin `pos` of channel `c`: the mean (or maximum) of its samples.
    fn pool(
        &self,
        e: &mut Emitter,
        a: &Attrs,
        image: &Image,
        batch: ValueId,
        c: ValueId,
        pos: [ValueId; 2],
    ) -> ValueId {
        let ct = image.ct.clone();
        let init = e.const_float(if a.max { f64::NEG_INFINITY } else { 0.0 }, ct.clone());
        let bounds = self.grid.map(|g| e.value_op("arith.index_cast", &[g], Type::Index));
        let zero = e.idx(0);
        let bin_start: Vec<ValueId> = (0..2)
            .map(|k| {
                let p = index_to_real(e, pos[k], &ct);
                let p = e.fbin("arith.mulf", p, self.bin[k]);
                e.fbin("arith.addf", self.start[k], p)
            })
            .collect();
        let grid = self.grid.map(|g| e.value_op("arith.sitofp", &[g], ct.clone()));
        let acc = e.for_accs_between(zero, bounds[0], &[init], |e, iy, acc| {
            let y = self.sample(e, &ct, bin_start[0], 0, grid[0], iy);
            e.for_accs_between(zero, bounds[1], acc, |e, ix, acc| {
                let x = self.sample(e, &ct, bin_start[1], 1, grid[1], ix);
                let v = bilinear(e, a.max, image, batch, c, [y, x]);
                let op = if a.max { "arith.maximumf" } else { "arith.addf" };
                vec![e.fbin(op, acc[0], v)]
            })
        })[0];
        if a.max {
            // No samples (an empty grid) is 0, as ONNX Runtime leaves it.
            let none = self.no_samples(e);
            let zero = e.const_float(0.0, ct.clone());
            return e.value_op("arith.select", &[none, zero, acc], ct);
        }
        let count = e.value_op("arith.muli", &[self.grid[0], self.grid[1]], Type::i64());
        let one = e.const_int(1, Type::i64());
        let count = e.value_op("arith.maxsi", &[count, one], Type::i64());
        let count = e.value_op("arith.sitofp", &[count], ct);
        e.fbin("arith.divf", acc, count)
    }

    fn no_samples(&self, e: &mut Emitter) -> ValueId {
        let zero = e.const_int(0, Type::i64());
        let [a, b] = self.grid.map(|g| e.cmpi("sle", g, zero));
        e.value_op("arith.ori", &[a, b], Type::i1())
    }

    /// Sample `i`'s coordinate along dim `k`: `bin_start + (i + 0.5) * bin / grid`, in the
    /// order ONNX Runtime rounds it.
    fn sample(&self, e: &mut Emitter, ct: &Type, bin_start: ValueId, k: usize, grid: ValueId, i: ValueId) -> ValueId {
        let i = index_to_real(e, i, ct);
        let half = e.const_float(0.5, ct.clone());
        let i = e.fbin("arith.addf", i, half);
        let v = e.fbin("arith.mulf", i, self.bin[k]);
        let v = e.fbin("arith.divf", v, grid);
        e.fbin("arith.addf", bin_start, v)
    }
}

/// A whole real as an i64, clamped to +-2^31 first (NaN is the lower bound): never out of
/// range, and sums and products of two stay exact.
pub(super) fn clamped_integer(e: &mut Emitter, v: ValueId, ct: &Type) -> ValueId {
    let (lo, hi) = (e.const_float(-2147483648.0, ct.clone()), e.const_float(2147483648.0, ct.clone()));
    let v = e.fbin("arith.maxnumf", v, lo);
    let v = e.fbin("arith.minnumf", v, hi);
    e.value_op("arith.fptosi", &[v], Type::i64())
}

/// The sample at real `[y, x]` of image `(batch, c)`: the four corners' weighted sum, or with
/// `max` the largest weighted corner. Outside `[-1, H] x [-1, W]` (or NaN) it is 0.
fn bilinear(e: &mut Emitter, max: bool, image: &Image, batch: ValueId, c: ValueId, at: [ValueId; 2]) -> ValueId {
    let ct = image.ct.clone();
    let (zero, one, minus_one) =
        (e.const_float(0.0, ct.clone()), e.const_float(1.0, ct.clone()), e.const_float(-1.0, ct.clone()));
    let mut outside = e.const_int(0, Type::i1());
    let mut low = [zero; 2];
    let mut high = [zero; 2];
    let mut frac = [zero; 2];
    for k in 0..2 {
        let below = e.cmpf("ult", at[k], minus_one);
        let above = e.cmpf("ugt", at[k], image.real[k]);
        let out_k = e.value_op("arith.ori", &[below, above], Type::i1());
        outside = e.value_op("arith.ori", &[outside, out_k], Type::i1());
        // Safe for any value: NaN and negatives become 0, and the index is at most H - 1.
        let v = e.fbin("arith.maxnumf", at[k], zero);
        let v = e.fbin("arith.minnumf", v, image.real[k]);
        let i = e.value_op("arith.fptosi", &[v], Type::i64());
        let i = e.value_op("arith.index_cast", &[i], Type::Index);
        let last = e.idx(1);
        let last = e.value_op("arith.subi", &[image.size[k], last], Type::Index);
        let at_edge = e.cmpi("sge", i, last);
        let i = e.value_op("arith.minsi", &[i, last], Type::Index);
        let step = e.idx(1);
        let next = e.value_op("arith.addi", &[i, step], Type::Index);
        high[k] = e.value_op("arith.select", &[at_edge, i, next], Type::Index);
        low[k] = i;
        let lr = index_to_real(e, i, &ct);
        let v = e.value_op("arith.select", &[at_edge, lr, v], ct.clone());
        frac[k] = e.fbin("arith.subf", v, lr);
    }
    let zero_i = e.idx(0);
    for k in 0..2 {
        low[k] = e.value_op("arith.select", &[outside, zero_i, low[k]], Type::Index);
        high[k] = e.value_op("arith.select", &[outside, zero_i, high[k]], Type::Index);
        frac[k] = e.value_op("arith.select", &[outside, zero, frac[k]], ct.clone());
    }
    let rest: Vec<ValueId> = (0..2).map(|k| e.fbin("arith.subf", one, frac[k])).collect();
    // Corners in ONNX Runtime's order: (low, low), (low, high), (high, low), (high, high).
    let mut result = None;
    for (ys, xs) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        let (y, wy) = if ys == 0 { (low[0], rest[0]) } else { (high[0], frac[0]) };
        let (x, wx) = if xs == 0 { (low[1], rest[1]) } else { (high[1], frac[1]) };
        let w = e.fbin("arith.mulf", wy, wx);
        let w = e.value_op("arith.select", &[outside, zero, w], ct.clone());
        let v = e.load(image.x, &[batch, c, y, x]);
        let term = e.fbin("arith.mulf", w, v);
        result = Some(match result {
            None => term,
            Some(acc) => e.fbin(if max { "arith.maximumf" } else { "arith.addf" }, acc, term),
        });
    }
    result.expect("four corners")
}
