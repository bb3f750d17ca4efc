//! ConvTranspose, as a gather over the input: parallel over the output points, each summing the
//! input taps that a forward convolution would have scattered onto it.

use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use xcc_ir::{Type, ValueId};

pub struct ConvTranspose;

impl crate::ops::onnx_op::OnnxOp for ConvTranspose {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = super::float_input(node, g)?;
        let w = g.ty(&node.inputs[1])?;
        let group = node.int("group", 1).max(1) as usize;
        if x.shape.len() < 3 || w.shape.len() != x.shape.len() || w.shape[0] != x.shape[1] {
            return err(format!(
                "ConvTranspose needs N x C x spatial input and C x M/group x kernel weights, got {:?} and {:?}",
                x.shape, w.shape
            ));
        }
        let geo = transpose_geometry(node, &x.shape[2..], &w.shape[2..])?;
        let mut shape = vec![x.shape[0], w.shape[1] * group];
        shape.extend(geo.out);
        Ok(vec![TensorType::new(x.dtype, shape)])
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?.clone();
        let out_t = g.ty(&node.outputs[0])?.clone();
        let x = e.buf(&node.inputs[0])?;
        let out = e.buf(&node.outputs[0])?;
        e.emit_conv_transpose(node, g, x, out, &x_t, &out_t)
    }
}

/// ConvTranspose's output size and begin pads per spatial dim, from `output_shape` or the pads.
pub struct TransposeGeometry {
    pub out: Vec<usize>,
    pub pad_begin: Vec<i64>,
    pub strides: Vec<usize>,
    pub dilations: Vec<usize>,
}

pub fn transpose_geometry(node: &Node, input: &[usize], kernel: &[usize]) -> OResult<TransposeGeometry> {
    let n = input.len();
    let get = |name: &str, d: i64| -> Vec<i64> { node.ints(name).unwrap_or(vec![d; n]) };
    let strides: Vec<usize> = get("strides", 1).iter().map(|&v| v.max(1) as usize).collect();
    let dilations: Vec<usize> = get("dilations", 1).iter().map(|&v| v.max(1) as usize).collect();
    let out_pad = get("output_padding", 0);
    let mut pads = node.ints("pads").unwrap_or(vec![0; 2 * n]);
    if strides.len() != n || dilations.len() != n || out_pad.len() != n || pads.len() != 2 * n {
        return err("strides, dilations, output_padding and pads do not match the spatial rank");
    }
    let full: Vec<i64> = (0..n)
        .map(|i| {
            strides[i] as i64 * (input[i] as i64 - 1) + out_pad[i] + ((kernel[i] as i64 - 1) * dilations[i] as i64 + 1)
        })
        .collect();
    let auto_pad = node.string("auto_pad").unwrap_or("NOTSET");
    let out: Vec<i64> = if let Some(shape) = node.ints("output_shape") {
        let shape = shape[shape.len() - n..].to_vec();
        for i in 0..n {
            // Floor division, as the spec's reference: a negative total extends the end.
            let total = full[i] - shape[i];
            if auto_pad == "SAME_UPPER" {
                pads[i] = total.div_euclid(2);
            } else {
                pads[i] = total - total.div_euclid(2);
            }
            pads[i + n] = total - pads[i];
        }
        shape
    } else if auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER" {
        (0..n)
            .map(|i| {
                let target = input[i] as i64 * strides[i] as i64;
                let total = full[i] - target;
                pads[i] = if auto_pad == "SAME_UPPER" { total / 2 } else { total - total / 2 };
                pads[i + n] = total - pads[i];
                target
            })
            .collect()
    } else {
        (0..n).map(|i| full[i] - pads[i] - pads[i + n]).collect()
    };
    if out.iter().any(|&o| o <= 0) {
        return err(format!("ConvTranspose output size {out:?} is not positive"));
    }
    Ok(TransposeGeometry {
        out: out.iter().map(|&o| o as usize).collect(),
        pad_begin: pads[..n].to_vec(),
        strides,
        dilations,
    })
}

impl Emitter {
    /// ConvTranspose as a gather: out[n, oc, o] = bias + sum over ic in the group and kernel
    /// taps k of x[n, ic, i] * W[ic, oc', k], where o = i * stride + k * dilation - pad, i.e.
    /// i = (o + pad - k * dilation) / stride when that divides exactly and lands in the input.
    fn emit_conv_transpose(
        &mut self,
        node: &Node,
        g: &Graph,
        x: ValueId,
        out: ValueId,
        x_t: &TensorType,
        out_t: &TensorType,
    ) -> OResult<()> {
        let w = self.buf(&node.inputs[1])?;
        let w_t = g.ty(&node.inputs[1])?.clone();
        let bias = match node.input(2) {
            Some(b) => Some(self.buf(b)?),
            None => None,
        };
        let geo = transpose_geometry(node, &x_t.shape[2..], &w_t.shape[2..])?;
        let group = node.int("group", 1).max(1) as usize;
        let icg = x_t.shape[1] / group;
        let ocg = w_t.shape[1];
        let kernel = w_t.shape[2..].to_vec();
        let in_sp = x_t.shape[2..].to_vec();
        let ns = kernel.len();
        let d = x_t.dtype;
        self.parallel(&out_t.shape, &mut |e, ivs| {
            let (n, oc) = (ivs[0], ivs[1]);
            let osp = ivs[2..].to_vec();
            let ocg_v = e.idx(ocg as i64);
            let gi = e.value_op("arith.divui", &[oc, ocg_v], Type::Index);
            let ocl = e.value_op("arith.remui", &[oc, ocg_v], Type::Index);
            let init = match bias {
                Some(b) => e.load(b, &[oc]),
                None => e.const_of(0.0, d),
            };
            let acc = e.for_acc(0, icg, init, |e, ic, acc| {
                let icg_v = e.idx(icg as i64);
                let ic_abs = e.value_op("arith.muli", &[gi, icg_v], Type::Index);
                let ic_abs = e.value_op("arith.addi", &[ic_abs, ic], Type::Index);
                let mut tap = |e: &mut Emitter, kidx: &[ValueId], st: &[ValueId]| -> Vec<ValueId> {
                    let mut ok: Option<ValueId> = None;
                    let mut pos = Vec::new();
                    for q in 0..ns {
                        // t = o + pad - k*dil; valid when t >= 0, t % stride == 0 and t / stride < in.
                        let t = e.affine(&[(osp[q], 1), (kidx[q], -(geo.dilations[q] as i64))], geo.pad_begin[q]);
                        let zero = e.idx(0);
                        let stv = e.idx(geo.strides[q] as i64);
                        let ge = e.cmpi("sge", t, zero);
                        let rem = e.value_op("arith.remsi", &[t, stv], Type::Index);
                        let exact = e.cmpi("eq", rem, zero);
                        let b = e.value_op("arith.andi", &[ge, exact], Type::i1());
                        ok = Some(match ok {
                            None => b,
                            Some(a) => e.value_op("arith.andi", &[a, b], Type::i1()),
                        });
                        let i = e.value_op("arith.divsi", &[t, stv], Type::Index);
                        pos.push(e.clamp_tap(i, in_sp[q], &mut ok));
                    }
                    let xv = e.load(x, &[&[n, ic_abs][..], &pos].concat());
                    let wv = e.load(w, &[&[ic_abs, ocl][..], kidx].concat());
                    let z = e.const_of(0.0, d);
                    let xv = e.select_f(ok.expect("a spatial dim"), xv, z);
                    vec![e.fmuladd(xv, wv, st[0])]
                };
                e.nest_accs(&kernel, &[acc], &mut tap)[0]
            });
            e.store(acc, out, ivs);
        });
        Ok(())
    }
}
