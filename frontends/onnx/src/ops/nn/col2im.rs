//! Col2Im: the inverse of im2col, adding each column entry back into the image. Parallel over
//! the image's points, each gathering (no two threads write one point) the entries of the
//! blocks that cover it: for each position in a block, the block whose origin puts it there, if
//! the strides land on one. image_shape and block_shape must be known at compile time.

use crate::emit::{compute_type, Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use xcc_ir::{Type, ValueId};

pub struct Col2Im;

/// The image and block dims, the convolution attributes, and the grid of block origins.
struct Geometry {
    image: Vec<usize>,
    block: Vec<usize>,
    strides: Vec<usize>,
    dilations: Vec<usize>,
    pads_begin: Vec<usize>,
    /// Block origins per spatial dim.
    grid: Vec<usize>,
    channels: usize,
}

fn geometry(node: &Node, g: &Graph) -> OResult<Geometry> {
    let t = super::float_input(node, g)?;
    let constant = |i: usize| -> OResult<Vec<usize>> {
        match g.consts.get(&node.inputs[i]).map(Tensor::to_i64) {
            Some(v) if v.iter().all(|&d| d > 0) => Ok(v.iter().map(|&d| d as usize).collect()),
            _ => err(format!("Col2Im's input '{}' must hold positive sizes known at compile time", node.inputs[i])),
        }
    };
    let (image, block) = (constant(1)?, constant(2)?);
    let r = image.len();
    if block.len() != r || t.shape.len() != 3 || t.is_dynamic() {
        return err(format!("Col2Im takes [N, C * block, L] and as many block as image sizes, not {}", t.describe()));
    }
    let ints = |name: &str, default: usize, n: usize| -> Vec<usize> {
        node.ints(name).map(|v| v.iter().map(|&d| d.max(0) as usize).collect()).unwrap_or_else(|| vec![default; n])
    };
    let (strides, dilations, pads) = (ints("strides", 1, r), ints("dilations", 1, r), ints("pads", 0, 2 * r));
    let mut grid = Vec::new();
    for d in 0..r {
        let span = dilations[d] * (block[d] - 1) + 1;
        let padded = image[d] + pads[d] + pads[r + d];
        if padded < span {
            return err(format!("the block does not fit in the padded image along dim {d}"));
        }
        grid.push((padded - span) / strides[d] + 1);
    }
    let block_size: usize = block.iter().product();
    if t.shape[1] % block_size != 0 || t.shape[2] != grid.iter().product::<usize>() {
        return err(format!(
            "the input must be [N, C * {block_size}, {}], not {}",
            grid.iter().product::<usize>(),
            t.describe()
        ));
    }
    Ok(Geometry {
        channels: t.shape[1] / block_size,
        image,
        block,
        strides,
        dilations,
        pads_begin: pads[..r].to_vec(),
        grid,
    })
}

impl OnnxOp for Col2Im {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let geo = geometry(node, g)?;
        let t = g.ty(&node.inputs[0])?;
        let mut shape = vec![t.shape[0], geo.channels];
        shape.extend(&geo.image);
        Ok(vec![TensorType::new(t.dtype, shape)])
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let geo = geometry(node, g)?;
        let d = g.ty(&node.inputs[0])?.dtype;
        let (input, out) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        let out_t = g.ty(&node.outputs[0])?;
        let extents: Vec<Extent> = out_t.shape.iter().map(|&n| Extent::Fixed(n)).collect();
        let r = geo.image.len();
        let block_size: usize = geo.block.iter().product();
        e.parallel_over(&extents, &mut |e, ivs| {
            let (n, c, at) = (ivs[0], ivs[1], &ivs[2..]);
            let mut sum = e.const_of(0.0, d);
            for b in 0..block_size {
                // The block position b, per dim (row-major).
                let mut rest = b;
                let mut offsets = vec![0usize; r];
                for k in (0..r).rev() {
                    offsets[k] = rest % geo.block[k];
                    rest /= geo.block[k];
                }
                let (mut ok, mut column) = (e.const_int(1, Type::i1()), e.const_int(0, Type::i64()));
                for k in 0..r {
                    // The origin that puts block position offsets[k] at this point, in strides.
                    let p = e.value_op("arith.index_cast", &[at[k]], Type::i64());
                    let shift = geo.pads_begin[k] as i128 - (offsets[k] * geo.dilations[k]) as i128;
                    let shift = e.const_int(shift, Type::i64());
                    let origin = e.value_op("arith.addi", &[p, shift], Type::i64());
                    let stride = e.const_int(geo.strides[k] as i128, Type::i64());
                    let zero = e.const_int(0, Type::i64());
                    let rem = e.value_op("arith.remsi", &[origin, stride], Type::i64());
                    let step = e.value_op("arith.divsi", &[origin, stride], Type::i64());
                    let count = e.const_int(geo.grid[k] as i128, Type::i64());
                    let checks = [e.cmpi("sge", origin, zero), e.cmpi("eq", rem, zero), e.cmpi("slt", step, count)];
                    for check in checks {
                        ok = e.value_op("arith.andi", &[ok, check], Type::i1());
                    }
                    let scaled = e.value_op("arith.muli", &[column, count], Type::i64());
                    let safe = e.value_op("arith.maxsi", &[step, zero], Type::i64());
                    let last = e.const_int(geo.grid[k] as i128 - 1, Type::i64());
                    let safe = e.value_op("arith.minsi", &[safe, last], Type::i64());
                    column = e.value_op("arith.addi", &[scaled, safe], Type::i64());
                }
                let row = e.affine(&[(c, block_size as i64)], b as i64);
                let column = e.value_op("arith.index_cast", &[column], Type::Index);
                let v = e.load(input, &[n, row, column]);
                let zero = e.const_of(0.0, d);
                let v = e.value_op("arith.select", &[ok, v, zero], compute_type(d));
                sum = e.value_op("arith.addf", &[sum, v], compute_type(d));
            }
            let mut index: Vec<ValueId> = vec![n, c];
            index.extend_from_slice(at);
            e.store(sum, out, &index);
        });
        Ok(())
    }
}
