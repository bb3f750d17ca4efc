//! ConvTranspose, as a gather over the input: parallel over the output points, each summing the
//! input taps that a forward convolution would have scattered onto it. The batch and the spatial
//! dims may be known only at run time: the output's are then `stride * (in - 1) + ...`,
//! expressions of the dims, and the pads stay static (with `auto_pad` SAME too).

use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::shapes::image_dims;
use xcc_ir::{Type, ValueId};

pub struct ConvTranspose;

impl crate::ops::onnx_op::OnnxOp for ConvTranspose {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = super::float_input(node, g)?;
        let w = g.ty(&node.inputs[1])?;
        let group = node.int("group", 1);
        if !(1..=x.shape.get(1).copied().unwrap_or(1).max(1) as i64).contains(&group) {
            return err(format!("group must be between 1 and the input channels, not {group}"));
        }
        let group = group as usize;
        if x.shape.len() < 3 || w.shape.len() != x.shape.len() || w.shape[0] != x.shape[1] {
            return err(format!(
                "ConvTranspose needs N x C x spatial input and C x M/group x kernel weights, got {:?} and {:?}",
                x.shape, w.shape
            ));
        }
        if w.is_dynamic() {
            return Err(OnnxError::tensor(
                &node.inputs[1],
                format!("the weights' dims must be static, not {}", w.describe()),
            ));
        }
        if x.shape[1] % group != 0 {
            return err(format!("the input channels ({}) do not divide into {group} groups", x.shape[1]));
        }
        super::per_channel(node, g, &[2], w.shape[1] * group)?;
        let x_dims = image_dims(&node.inputs[0], x)?;
        let geo = transpose_geometry(node, &x_dims[2..], &w.shape[2..])?;
        for (q, out) in geo.out.iter().enumerate() {
            if !out.is_fixed() {
                let positive = DataExpr::num(0).lt(&DataExpr::Dim(out.clone()));
                g.require(positive, format!("ConvTranspose's output spatial dim {} ({out}) is not positive", q + 2))?;
            }
        }
        let mut dims = vec![x_dims[0].clone(), Dim::fixed(w.shape[1] * group)];
        dims.extend(geo.out);
        Ok(vec![TensorType::with_dims(x.dtype, dims)])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
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
    pub out: Vec<Dim>,
    pub pad_begin: Vec<i64>,
    pub strides: Vec<usize>,
    pub dilations: Vec<usize>,
}

pub fn transpose_geometry(node: &Node, input: &[Dim], kernel: &[usize]) -> OResult<TransposeGeometry> {
    let n = input.len();
    use super::window::window_ints;
    let signed = |v: Vec<usize>| -> Vec<i64> { v.into_iter().map(|x| x as i64).collect() };
    let strides = window_ints(node, "strides", vec![1; n], 1)?;
    let dilations = window_ints(node, "dilations", vec![1; n], 1)?;
    let out_pad = signed(window_ints(node, "output_padding", vec![0; n], 0)?);
    let mut pads = signed(window_ints(node, "pads", vec![0; 2 * n], 0)?);
    if strides.len() != n || dilations.len() != n || out_pad.len() != n || pads.len() != 2 * n {
        return err("strides, dilations, output_padding and pads do not match the spatial rank");
    }
    // stride * (in - 1) + output_padding + the dilated kernel.
    let full: Vec<Dim> = (0..n)
        .map(|i| {
            let rest = out_pad[i] + (kernel[i] as i64 - 1) * dilations[i] as i64 + 1 - strides[i] as i64;
            input[i].mul(&Dim::fixed(strides[i])).add(&Dim::constant(rest))
        })
        .collect();
    let auto_pad = node.string("auto_pad").unwrap_or("NOTSET");
    // A total padding that the dims would decide is refused: the loops take static pads.
    let constant = |d: Dim, what: &str| {
        d.as_const().ok_or_else(|| {
            OnnxError::msg(format!("{what} over spatial dims known only at run time (fix them with --dim)"))
        })
    };
    let out: Vec<Dim> = if node.ints("output_shape").is_some() {
        let shape = window_ints(node, "output_shape", vec![], 1)?;
        if shape.len() < n {
            return err(format!("output_shape has {} values for {n} spatial dims", shape.len()));
        }
        let shape = signed(shape[shape.len() - n..].to_vec());
        for i in 0..n {
            let full = constant(full[i].clone(), "output_shape")?;
            // Floor division, as the spec's reference: a negative total extends the end.
            let total = full - shape[i];
            if auto_pad == "SAME_UPPER" {
                pads[i] = total.div_euclid(2);
            } else {
                pads[i] = total - total.div_euclid(2);
            }
            pads[i + n] = total - pads[i];
        }
        shape.into_iter().map(Dim::constant).collect()
    } else if auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER" {
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            // The output is in * stride; the total padding, output_padding + the dilated
            // kernel - stride, does not depend on the input.
            let target = input[i].mul(&Dim::fixed(strides[i]));
            let total = constant(full[i].sub(&target), "auto_pad SAME")?;
            pads[i] = if auto_pad == "SAME_UPPER" { total / 2 } else { total - total / 2 };
            pads[i + n] = total - pads[i];
            out.push(target);
        }
        out
    } else {
        (0..n).map(|i| full[i].sub(&Dim::constant(pads[i] + pads[i + n]))).collect()
    };
    if let Some(o) = out.iter().find(|o| o.as_const().is_some_and(|o| o <= 0)) {
        return err(format!("ConvTranspose output size {o} is not positive"));
    }
    Ok(TransposeGeometry { out, pad_begin: pads[..n].to_vec(), strides, dilations })
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
        let geo = transpose_geometry(node, &x_t.dims()[2..], &w_t.shape[2..])?;
        let group = node.int("group", 1).max(1) as usize;
        let icg = x_t.shape[1] / group;
        let ocg = w_t.shape[1];
        let kernel = w_t.shape[2..].to_vec();
        let in_sp = self.dim_extents(&x_t.dims()[2..]);
        let ns = kernel.len();
        let d = x_t.dtype;
        let out_extents = self.dim_extents(&out_t.dims());
        self.parallel_over(&out_extents, &mut |e, ivs| {
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
