//! Col2Im: the inverse of im2col, adding each column entry back into the image. Parallel over
//! the image's points, each gathering (no two threads write one point) the entries of the
//! blocks that cover it: for each position in a block, the block whose origin puts it there, if
//! the strides land on one. image_shape and block_shape may be constants or read at run time
//! (then the image's dims are data dims, and each run checks that the input has one column per
//! block origin and a whole number of channels); the strides, dilations and pads are attributes.

use crate::emit::{compute_type, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::shape_data;
use xcc_ir::{Type, ValueId};

pub struct Col2Im;

/// The image and block sizes and the grid of block origins, per spatial dim, as values the run
/// knows before it starts (numbers when image_shape and block_shape are constants).
struct Geometry {
    image: Vec<DataExpr>,
    block: Vec<DataExpr>,
    strides: Vec<usize>,
    dilations: Vec<usize>,
    pads_begin: Vec<usize>,
    /// Block origins per spatial dim.
    grid: Vec<DataExpr>,
    /// The input's dim 1 divided by the block's size.
    channels: DataExpr,
}

fn geometry(node: &Node, g: &Graph) -> OResult<Geometry> {
    let t = super::float_input(node, g)?;
    let sizes = |i: usize, what: &str| -> OResult<Vec<DataExpr>> {
        let v = shape_data(g, node, i, what)?.unwrap_or_default();
        for x in &v {
            g.require(DataExpr::num(0).lt(x), format!("Col2Im's {what} must hold positive sizes"))?;
        }
        Ok(v)
    };
    let (image, block) = (sizes(1, "image_shape")?, sizes(2, "block_shape")?);
    let r = image.len();
    if r == 0 || block.len() != r || t.shape.len() != 3 {
        return err(format!("Col2Im takes [N, C * block, L] and as many block as image sizes, not {}", t.describe()));
    }
    let ints = |name: &str, default: usize, n: usize| -> Vec<usize> {
        node.ints(name).map(|v| v.iter().map(|&d| d.max(0) as usize).collect()).unwrap_or_else(|| vec![default; n])
    };
    let (strides, dilations, pads) = (ints("strides", 1, r), ints("dilations", 1, r), ints("pads", 0, 2 * r));
    if strides.len() != r || dilations.len() != r || pads.len() != 2 * r || strides.contains(&0) {
        return err(format!("Col2Im's strides, dilations and pads must have {r}, {r} and {} positive entries", 2 * r));
    }
    let num = |n: usize| DataExpr::num(n as i64);
    let mut grid = Vec::new();
    for d in 0..r {
        let span = num(dilations[d]).mul(&block[d].sub(&num(1))).add(&num(1));
        let padded = image[d].add(&num(pads[d] + pads[r + d]));
        g.require(span.lt(&padded.add(&num(1))), format!("the block does not fit in the padded image along dim {d}"))?;
        grid.push(padded.sub(&span).floor_div(&num(strides[d])).add(&num(1)));
    }
    let dims = t.dims();
    let (rows, columns) = (DataExpr::Dim(dims[1].clone()), DataExpr::Dim(dims[2].clone()));
    let block_size = DataExpr::product(block.iter().cloned());
    let channels = rows.floor_div(&block_size);
    g.require(channels.mul(&block_size).eq(&rows), "the input's dim 1 must be channels times the block's size")?;
    g.require(
        DataExpr::product(grid.iter().cloned()).eq(&columns),
        "the input's dim 2 must be the number of block origins in the padded image",
    )?;
    Ok(Geometry { channels, image, block, strides, dilations, pads_begin: pads[..r].to_vec(), grid })
}

impl OnnxOp for Col2Im {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let geo = geometry(node, g)?;
        let t = g.ty(&node.inputs[0])?;
        let out = &node.outputs[0];
        let mut dims = vec![t.dims()[0].clone(), g.data_dim(format!("{out}.1"), geo.channels)];
        for (k, x) in geo.image.into_iter().enumerate() {
            dims.push(g.data_dim(format!("{out}.{}", k + 2), x));
        }
        Ok(vec![TensorType::with_dims(t.dtype, dims)])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let geo = geometry(node, g)?;
        let d = g.ty(&node.inputs[0])?.dtype;
        let (input, out) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        let extents = e.dim_extents(&g.ty(&node.outputs[0])?.dims());
        let r = geo.image.len();
        let block: Vec<ValueId> = geo.block.iter().map(|x| e.data_value(x)).collect();
        let grid: Vec<ValueId> = geo.grid.iter().map(|x| e.data_value(x)).collect();
        let block_size = geo.block.iter().fold(e.idx(1), |acc, x| {
            let v = e.data_value(x);
            e.value_op("arith.muli", &[acc, v], Type::Index)
        });
        e.parallel_over(&extents, &mut |e, ivs| {
            let (n, c, at) = (ivs[0], ivs[1], &ivs[2..]);
            let zero = e.const_of(0.0, d);
            let (lb, ub) = (e.idx(0), block_size);
            let sum = e.for_accs_between(lb, ub, &[zero], |e, b, acc| {
                // The block position b, per dim (row-major), and the column of the block whose
                // origin puts that position at this point.
                let mut rest = b;
                let mut offsets = vec![b; r];
                for k in (0..r).rev() {
                    offsets[k] = e.value_op("arith.remui", &[rest, block[k]], Type::Index);
                    rest = e.value_op("arith.divui", &[rest, block[k]], Type::Index);
                }
                let (mut ok, mut column) = (e.const_int(1, Type::i1()), e.idx(0));
                for k in 0..r {
                    let (inside, step) = origin(e, &geo, k, at[k], offsets[k], grid[k]);
                    ok = e.value_op("arith.andi", &[ok, inside], Type::i1());
                    let scaled = e.value_op("arith.muli", &[column, grid[k]], Type::Index);
                    column = e.value_op("arith.addi", &[scaled, step], Type::Index);
                }
                let row = e.value_op("arith.muli", &[c, block_size], Type::Index);
                let row = e.value_op("arith.addi", &[row, b], Type::Index);
                let v = e.load(input, &[n, row, column]);
                let zero = e.const_of(0.0, d);
                let v = e.value_op("arith.select", &[ok, v, zero], compute_type(d));
                vec![e.fbin("arith.addf", acc[0], v)]
            })[0];
            e.store(sum, out, ivs);
        });
        Ok(())
    }
}

/// Along dim `k`: whether a block origin puts block position `offset` at point `p`, and that
/// origin's index in the grid (clamped into it, for a safe read when there is none).
fn origin(
    e: &mut Emitter,
    geo: &Geometry,
    k: usize,
    p: ValueId,
    offset: ValueId,
    count: ValueId,
) -> (ValueId, ValueId) {
    let dilation = e.idx(geo.dilations[k] as i64);
    let reach = e.value_op("arith.muli", &[offset, dilation], Type::Index);
    let pad = e.idx(geo.pads_begin[k] as i64);
    let origin = e.value_op("arith.addi", &[p, pad], Type::Index);
    let origin = e.value_op("arith.subi", &[origin, reach], Type::Index);
    let (zero, stride) = (e.idx(0), e.idx(geo.strides[k] as i64));
    let rem = e.value_op("arith.remsi", &[origin, stride], Type::Index);
    let step = e.value_op("arith.divsi", &[origin, stride], Type::Index);
    let checks = [e.cmpi("sge", origin, zero), e.cmpi("eq", rem, zero), e.cmpi("slt", step, count)];
    let inside = checks.into_iter().reduce(|a, b| e.value_op("arith.andi", &[a, b], Type::i1())).expect("three");
    let one = e.idx(1);
    let last = e.value_op("arith.subi", &[count, one], Type::Index);
    let safe = e.value_op("arith.maxsi", &[step, zero], Type::Index);
    (inside, e.value_op("arith.minsi", &[safe, last], Type::Index))
}
