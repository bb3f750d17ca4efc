//! The operators whose output size is their input's data: NonZero (the coordinates of the
//! non-zero elements, `[rank, count]`) and Compress (the slices a condition selects along an
//! axis, or the elements of the flattened input). Each counts first, defines the count as a
//! dim found by the run ([`crate::data_dim::DataDims::found`]), then writes the kept elements
//! in order: two serial passes, since each position depends on the count before it.

use crate::emit::{Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::axis;
use xcc_ir::{Type, ValueId};

pub struct NonZero;

/// True (an i1) when element `v` of type `dtype` is not zero (NaN is not zero).
fn is_nonzero(e: &mut Emitter, v: ValueId, dtype: DType) -> ValueId {
    match dtype {
        DType::Bool => v,
        DType::F32 | DType::F64 => {
            let zero = e.const_float(0.0, dtype.ir_type());
            e.cmpf("une", v, zero)
        }
        d if d.is_float() => {
            let wide = e.convert(v, d, DType::F32);
            let zero = e.const_float(0.0, Type::f32());
            e.cmpf("une", wide, zero)
        }
        d => {
            let zero = e.const_int(0, d.ir_type());
            e.cmpi("ne", v, zero)
        }
    }
}

/// `count + 1` when `hit`, else `count` (indices).
pub(super) fn count_if(e: &mut Emitter, count: ValueId, hit: ValueId) -> ValueId {
    let (one, zero) = (e.idx(1), e.idx(0));
    let step = e.value_op("arith.select", &[hit, one, zero], Type::Index);
    e.value_op("arith.addi", &[count, step], Type::Index)
}

impl OnnxOp for NonZero {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = g.ty(&node.inputs[0])?;
        let numel = Dim::product(&x.dims());
        let count = g.found_dim(&node.outputs[0], 1, numel);
        // A scalar is seen as one element of a vector, as ONNX Runtime and ONNX's reference do.
        Ok(vec![TensorType::with_dims(DType::I64, vec![Dim::fixed(x.shape.len().max(1)), count])])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let xt = g.ty(&node.inputs[0])?;
        let x = e.buf(&node.inputs[0])?;
        let mut dims = e.dim_extents(&xt.dims());
        if dims.is_empty() {
            dims.push(Extent::Fixed(1));
        }
        let total = e.extent_product(&dims);
        let flat = e.reshaped_over(x, &[total]);
        let zero = e.idx(0);
        let count = e.for_acc_over(total, zero, |e, i, n| {
            let v = e.load(flat, &[i]);
            let hit = is_nonzero(e, v, xt.dtype);
            count_if(e, n, hit)
        });
        e.define_found(&found_dim_name(&node.outputs[0], 1), count);
        let out = e.found_buffer(&node.outputs[0], g.ty(&node.outputs[0])?)?;
        e.for_acc_over(total, zero, |e, i, k| {
            let v = e.load(flat, &[i]);
            let hit = is_nonzero(e, v, xt.dtype);
            e.if_then(hit, |e| {
                let at = e.unflatten_over(i, &dims);
                for (a, &c) in at.iter().enumerate() {
                    let c = e.value_op("arith.index_cast", &[c], Type::i64());
                    let row = e.idx(a as i64);
                    e.store(c, out, &[row, k]);
                }
            });
            count_if(e, k, hit)
        });
        Ok(())
    }
}

pub struct Compress;

/// An input seen as `[outer, along, inner]`: slices along `axis`, or, without the attribute,
/// the flattened elements (Compress, Unique); and the output's dim that the count replaces.
pub(super) struct Layout {
    pub outer: Vec<Dim>,
    pub along: Dim,
    pub inner: Vec<Dim>,
    /// The output dim the count is (its index).
    pub found: usize,
}

pub(super) fn layout(node: &Node, x: &TensorType) -> OResult<Layout> {
    let dims = x.dims();
    match node.attrs.get("axis") {
        None => Ok(Layout { outer: Vec::new(), along: Dim::product(&dims), inner: Vec::new(), found: 0 }),
        Some(_) => {
            let a = axis(node, node.int("axis", 0), dims.len())?;
            Ok(Layout { outer: dims[..a].to_vec(), along: dims[a].clone(), inner: dims[a + 1..].to_vec(), found: a })
        }
    }
}

impl OnnxOp for Compress {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = g.ty(&node.inputs[0])?;
        let c = g.ty(&node.inputs[1])?;
        if c.shape.len() != 1 || c.dtype != DType::Bool {
            return err(format!("Compress's condition must be a 1-D bool tensor, not {}", c.describe()));
        }
        let l = layout(node, x)?;
        let count = g.found_dim(&node.outputs[0], l.found, l.along.clone());
        let dims: Vec<Dim> = l.outer.iter().cloned().chain([count]).chain(l.inner.iter().cloned()).collect();
        Ok(vec![TensorType::with_dims(x.dtype, dims)])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let xt = g.ty(&node.inputs[0])?;
        let l = layout(node, xt)?;
        let (x, cond) = (e.buf(&node.inputs[0])?, e.buf(&node.inputs[1])?);
        let outer = e.dim_extents(&l.outer);
        let inner = e.dim_extents(&l.inner);
        let (outer, inner) = (e.extent_product(&outer), e.extent_product(&inner));
        let along = e.dim_extent(&l.along);
        let x = e.reshaped_over(x, &[outer, along, inner]);
        // Only the first min(len(condition), along) slices are looked at.
        let len = e.extent_of(cond, 0);
        let (len, along_v) = (e.extent(len), e.extent(along));
        let looked = e.value_op("arith.minui", &[len, along_v], Type::Index);
        let zero = e.idx(0);
        let count = e.for_accs_between(zero, looked, &[zero], |e, i, n| {
            let hit = e.load(cond, &[i]);
            vec![count_if(e, n[0], hit)]
        })[0];
        e.define_found(&found_dim_name(&node.outputs[0], l.found), count);
        let out = e.found_buffer(&node.outputs[0], g.ty(&node.outputs[0])?)?;
        let out = e.reshaped_over(out, &[outer, Extent::Value(count), inner]);
        e.for_accs_between(zero, looked, &[zero], |e, i, k| {
            let hit = e.load(cond, &[i]);
            e.if_then(hit, |e| {
                e.loop_nest_over(&[outer, inner], &mut |e, ivs| {
                    let v = e.load(x, &[ivs[0], i, ivs[1]]);
                    e.store(v, out, &[ivs[0], k[0], ivs[1]]);
                });
            });
            vec![count_if(e, k[0], hit)]
        });
        Ok(())
    }
}
