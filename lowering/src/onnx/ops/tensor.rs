//! Data-movement and shape operators. Each one maps an output element to one input element
//! ([`source`]), which drives both constant folding and loop generation.

use super::{axis, broadcast, strides_of};
use crate::onnx::graph::*;

pub const OPS: &[&str] = &[
    "Constant", "ConstantOfShape", "Shape", "Size", "Range", "Gather", "Slice", "Concat", "Reshape", "Flatten", "Squeeze", "Unsqueeze",
    "Transpose", "Expand", "Tile",
];

/// Squeeze/Unsqueeze/Reduce take `axes` as an attribute before opset 13 and as an input after.
fn axes_of(node: &Node, inputs_const: &[Option<&Tensor>], input_index: usize) -> OResult<Option<Vec<i64>>> {
    if let Some(a) = node.ints("axes") {
        return Ok(Some(a));
    }
    match node.input(input_index) {
        None => Ok(None),
        Some(name) => match inputs_const.get(input_index).copied().flatten() {
            Some(t) => Ok(Some(t.to_i64())),
            None => err(format!("'axes' input '{name}' must be a constant")),
        },
    }
}

fn const_input<'a>(g: &'a Graph, node: &Node, i: usize, what: &str) -> OResult<Option<&'a Tensor>> {
    match node.input(i) {
        None => Ok(None),
        Some(name) => match g.consts.get(name) {
            Some(t) => Ok(Some(t)),
            None => err(format!("{what} input '{name}' must be a compile-time constant")),
        },
    }
}

fn consts_of<'a>(g: &'a Graph, node: &Node) -> Vec<Option<&'a Tensor>> {
    node.inputs.iter().map(|i| g.consts.get(i)).collect()
}

/// Slice parameters: per-dimension (start, step, count) after clamping, as the spec defines.
pub fn slice_params(node: &Node, shape: &[usize], c: &[Option<&Tensor>]) -> OResult<Vec<(i64, i64, usize)>> {
    let rank = shape.len();
    let (starts, ends, axes, steps) = if node.opset < 10 {
        (node.ints("starts").unwrap_or_default(), node.ints("ends").unwrap_or_default(), node.ints("axes"), None)
    } else {
        let get = |i: usize, what: &str| -> OResult<Option<Vec<i64>>> {
            match node.input(i) {
                None => Ok(None),
                Some(n) => c.get(i).copied().flatten().map(|t| Some(t.to_i64())).ok_or_else(|| OnnxError(format!("Slice {what} '{n}' must be a constant"))),
            }
        };
        (get(1, "starts")?.unwrap_or_default(), get(2, "ends")?.unwrap_or_default(), get(3, "axes")?, get(4, "steps")?)
    };
    let axes: Vec<i64> = axes.unwrap_or_else(|| (0..starts.len() as i64).collect());
    let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
    if starts.len() != ends.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return err("starts, ends, axes and steps must have the same length");
    }
    let mut out: Vec<(i64, i64, usize)> = shape.iter().map(|&d| (0, 1, d)).collect();
    for k in 0..starts.len() {
        let a = axis(node, axes[k], rank)?;
        let d = shape[a] as i64;
        let step = steps[k];
        if step == 0 {
            return err("a Slice step cannot be 0");
        }
        let clamp = |v: i64, lo: i64, hi: i64| v.max(lo).min(hi);
        let norm = |v: i64| if v < 0 { v + d } else { v };
        let (start, end) = if step > 0 {
            (clamp(norm(starts[k]), 0, d), clamp(norm(ends[k]), 0, d))
        } else {
            (clamp(norm(starts[k]), -1, d - 1), clamp(norm(ends[k]), -1, d - 1))
        };
        let count = if step > 0 { ((end - start).max(0) + step - 1) / step } else { ((start - end).max(0) + (-step) - 1) / (-step) };
        out[a] = (start, step, count as usize);
    }
    Ok(out)
}

fn reshape_target(node: &Node, input: &[usize], spec: &[i64]) -> OResult<Vec<usize>> {
    let allowzero = node.int("allowzero", 0) == 1;
    let total: usize = input.iter().product();
    let mut out = Vec::new();
    let mut infer_at = None;
    for (i, &s) in spec.iter().enumerate() {
        match s {
            -1 if infer_at.is_none() => {
                infer_at = Some(i);
                out.push(1);
            }
            -1 => return err("Reshape shape has more than one -1"),
            0 if !allowzero => out.push(*input.get(i).ok_or_else(|| OnnxError("Reshape copies a dimension that the input does not have".into()))?),
            s if s < 0 => return err(format!("invalid Reshape dimension {s}")),
            s => out.push(s as usize),
        }
    }
    let known: usize = out.iter().product();
    if let Some(i) = infer_at {
        if known == 0 || total % known != 0 {
            return err(format!("cannot reshape {input:?} into {spec:?}"));
        }
        out[i] = total / known;
    }
    if out.iter().product::<usize>() != total {
        return err(format!("cannot reshape {input:?} ({total} elements) into {out:?}"));
    }
    Ok(out)
}

pub fn infer(node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
    let c = consts_of(g, node);
    let t0 = || g.ty(&node.inputs[0]);
    Ok(vec![match node.op.as_str() {
        "Shape" => TensorType { dtype: DType::I64, shape: vec![shape_range(node, t0()?.shape.len()).1] },
        "Size" => TensorType { dtype: DType::I64, shape: vec![] },
        "Reshape" => {
            let spec = match node.ints("shape") {
                Some(s) => s,
                None => const_input(g, node, 1, "shape")?.ok_or_else(|| OnnxError("Reshape needs a shape".into()))?.to_i64(),
            };
            TensorType { dtype: t0()?.dtype, shape: reshape_target(node, &t0()?.shape, &spec)? }
        }
        "Flatten" => {
            let t = t0()?;
            let a = node.int("axis", 1);
            let a = if a < 0 { a + t.shape.len() as i64 } else { a } as usize;
            if a > t.shape.len() {
                return err(format!("axis {a} is out of range"));
            }
            TensorType { dtype: t.dtype, shape: vec![t.shape[..a].iter().product(), t.shape[a..].iter().product()] }
        }
        "Squeeze" => {
            let t = t0()?;
            let axes = axes_of(node, &c, 1)?;
            let axes: Vec<usize> = match axes {
                Some(a) => a.iter().map(|&x| axis(node, x, t.shape.len())).collect::<OResult<_>>()?,
                None => (0..t.shape.len()).filter(|&i| t.shape[i] == 1).collect(),
            };
            for &a in &axes {
                if t.shape[a] != 1 {
                    return err(format!("cannot squeeze dimension {a} of size {}", t.shape[a]));
                }
            }
            TensorType { dtype: t.dtype, shape: t.shape.iter().enumerate().filter(|(i, _)| !axes.contains(i)).map(|(_, &d)| d).collect() }
        }
        "Unsqueeze" => {
            let t = t0()?;
            let axes = axes_of(node, &c, 1)?.ok_or_else(|| OnnxError("Unsqueeze needs axes".into()))?;
            let rank = t.shape.len() + axes.len();
            let mut axes: Vec<usize> = axes.iter().map(|&x| axis(node, x, rank)).collect::<OResult<_>>()?;
            axes.sort();
            let mut shape = t.shape.clone();
            for a in axes {
                shape.insert(a, 1);
            }
            TensorType { dtype: t.dtype, shape }
        }
        "Transpose" => {
            let t = t0()?;
            let perm = perm_of(node, t.shape.len())?;
            TensorType { dtype: t.dtype, shape: perm.iter().map(|&p| t.shape[p]).collect() }
        }
        "Concat" => {
            let first = g.ty(&node.inputs[0])?;
            let a = axis(node, node.int("axis", 0), first.shape.len())?;
            let mut shape = first.shape.clone();
            shape[a] = 0;
            for name in node.inputs.iter().filter(|s| !s.is_empty()) {
                let t = g.ty(name)?;
                if t.shape.len() != shape.len() || t.shape.iter().enumerate().any(|(i, &d)| i != a && d != first.shape[i]) {
                    return err(format!("input '{name}' has shape {:?}, which does not match {:?} outside axis {a}", t.shape, first.shape));
                }
                shape[a] += t.shape[a];
            }
            TensorType { dtype: first.dtype, shape }
        }
        "Slice" => {
            let t = t0()?;
            let p = slice_params(node, &t.shape, &c)?;
            TensorType { dtype: t.dtype, shape: p.iter().map(|x| x.2).collect() }
        }
        "Gather" => {
            let t = t0()?;
            let idx = g.ty(&node.inputs[1])?;
            let a = axis(node, node.int("axis", 0), t.shape.len())?;
            let mut shape = t.shape[..a].to_vec();
            shape.extend(&idx.shape);
            shape.extend(&t.shape[a + 1..]);
            TensorType { dtype: t.dtype, shape }
        }
        "Expand" => {
            let t = t0()?;
            let s = const_input(g, node, 1, "shape")?.ok_or_else(|| OnnxError("Expand needs a shape".into()))?.to_i64();
            let s: Vec<usize> = s.iter().map(|&x| x.max(0) as usize).collect();
            TensorType { dtype: t.dtype, shape: broadcast(&t.shape, &s)? }
        }
        "Tile" => {
            let t = t0()?;
            let r = const_input(g, node, 1, "repeats")?.ok_or_else(|| OnnxError("Tile needs repeats".into()))?.to_i64();
            if r.len() != t.shape.len() {
                return err("repeats must have one entry per dimension");
            }
            TensorType { dtype: t.dtype, shape: t.shape.iter().zip(&r).map(|(&d, &k)| d * k.max(0) as usize).collect() }
        }
        "Constant" | "ConstantOfShape" | "Range" => return err(format!("{} needs constant inputs", node.op)),
        op => return err(format!("no shape rule for {op}")),
    }])
}

fn shape_range(node: &Node, rank: usize) -> (usize, usize) {
    let r = rank as i64;
    let norm = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
    let start = norm(node.int("start", 0));
    let end = norm(node.int("end", r));
    (start, end.saturating_sub(start))
}

pub fn perm_of(node: &Node, rank: usize) -> OResult<Vec<usize>> {
    let perm: Vec<usize> = match node.ints("perm") {
        Some(p) => p.iter().map(|&x| axis(node, x, rank)).collect::<OResult<_>>()?,
        None => (0..rank).rev().collect(),
    };
    let mut seen = perm.clone();
    seen.sort();
    if seen != (0..rank).collect::<Vec<_>>() {
        return err(format!("perm {perm:?} is not a permutation of 0..{rank}"));
    }
    Ok(perm)
}

/// For an output multi-index, the input number and the input's multi-index it copies from.
/// `ints` holds the constant integer inputs some ops need (Gather indices).
pub fn source(node: &Node, in_shapes: &[Vec<usize>], out: &[usize], c: &[Option<&Tensor>], gather_idx: &[i64]) -> OResult<(usize, Vec<usize>)> {
    let s0 = &in_shapes[0];
    Ok(match node.op.as_str() {
        "Reshape" | "Flatten" | "Squeeze" | "Unsqueeze" | "Identity" => {
            let out_shape: Vec<usize> = Vec::new();
            let _ = out_shape;
            unreachable!("reshapes are handled by flat copies")
        }
        "Transpose" => {
            let perm = perm_of(node, s0.len())?;
            let mut idx = vec![0; s0.len()];
            for (o, &p) in perm.iter().enumerate() {
                idx[p] = out[o];
            }
            (0, idx)
        }
        "Concat" => {
            let a = axis(node, node.int("axis", 0), s0.len())?;
            let mut pos = out[a];
            let mut k = 0;
            while pos >= in_shapes[k][a] {
                pos -= in_shapes[k][a];
                k += 1;
            }
            let mut idx = out.to_vec();
            idx[a] = pos;
            (k, idx)
        }
        "Slice" => {
            let p = slice_params(node, s0, c)?;
            (0, out.iter().zip(&p).map(|(&o, &(start, step, _))| (start + o as i64 * step) as usize).collect())
        }
        "Gather" => {
            let a = axis(node, node.int("axis", 0), s0.len())?;
            let idx_rank = out.len() + 1 - s0.len();
            let idx_shape = &in_shapes[1];
            let flat: usize = out[a..a + idx_rank].iter().zip(strides_of(idx_shape)).map(|(&i, s)| i * s).sum();
            let mut v = gather_idx[flat];
            if v < 0 {
                v += s0[a] as i64;
            }
            if v < 0 || v as usize >= s0[a] {
                return err(format!("Gather index {} is out of range for dimension {a} of size {}", gather_idx[flat], s0[a]));
            }
            let mut idx = out[..a].to_vec();
            idx.push(v as usize);
            idx.extend(&out[a + idx_rank..]);
            (0, idx)
        }
        "Expand" => {
            let off = out.len() - s0.len();
            (0, (0..s0.len()).map(|d| if s0[d] == 1 { 0 } else { out[d + off] }).collect())
        }
        "Tile" => (0, out.iter().zip(s0).map(|(&o, &d)| o % d).collect()),
        op => return err(format!("{op} is not a data-movement op")),
    })
}

pub fn fold(node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
    let r = (|| -> OResult<Vec<Tensor>> {
        let op = node.op.as_str();
        Ok(vec![match op {
            "Constant" => {
                if let Some(Attr::Tensor(t)) = node.attrs.get("value") {
                    t.clone()
                } else if let Some(Attr::Float(f)) = node.attrs.get("value_float") {
                    Tensor::from_f64(DType::F32, vec![], &[*f as f64])
                } else if let Some(Attr::Floats(f)) = node.attrs.get("value_floats") {
                    Tensor::from_f64(DType::F32, vec![f.len()], &f.iter().map(|&x| x as f64).collect::<Vec<_>>())
                } else if let Some(Attr::Int(i)) = node.attrs.get("value_int") {
                    Tensor::from_i64(vec![], &[*i])
                } else if let Some(Attr::Ints(i)) = node.attrs.get("value_ints") {
                    Tensor::from_i64(vec![i.len()], i)
                } else {
                    return err("Constant without a supported value attribute (sparse and string constants are not supported)");
                }
            }
            "ConstantOfShape" => {
                let shape: Vec<usize> = inputs[0].expect("const").to_i64().iter().map(|&d| d.max(0) as usize).collect();
                let value = match node.attrs.get("value") {
                    Some(Attr::Tensor(t)) => t.clone(),
                    _ => Tensor::from_f64(DType::F32, vec![1], &[0.0]),
                };
                let n: usize = shape.iter().product();
                let mut data = Vec::with_capacity(n * value.data.len());
                for _ in 0..n {
                    data.extend(&value.data);
                }
                Tensor { ty: TensorType { dtype: value.ty.dtype, shape }, data }
            }
            "Shape" => {
                let s = &inputs[0].expect("const").ty.shape;
                let (start, len) = shape_range(node, s.len());
                Tensor::from_i64(vec![len], &s[start..start + len].iter().map(|&d| d as i64).collect::<Vec<_>>())
            }
            "Size" => Tensor::from_i64(vec![], &[inputs[0].expect("const").ty.numel() as i64]),
            "Range" => {
                let v: Vec<f64> = inputs.iter().map(|t| t.expect("const").to_f64()[0]).collect();
                let (start, limit, delta) = (v[0], v[1], v[2]);
                if delta == 0.0 {
                    return err("Range delta cannot be 0");
                }
                let n = ((limit - start) / delta).ceil().max(0.0) as usize;
                let dtype = inputs[0].expect("const").ty.dtype;
                Tensor::from_f64(dtype, vec![n], &(0..n).map(|i| start + i as f64 * delta).collect::<Vec<_>>())
            }
            "Reshape" | "Flatten" | "Squeeze" | "Unsqueeze" => {
                let t = inputs[0].expect("const");
                let mut g = Graph::default();
                for (name, x) in node.inputs.iter().zip(inputs) {
                    if let Some(x) = x {
                        g.types.insert(name.clone(), x.ty.clone());
                        g.consts.insert(name.clone(), (*x).clone());
                    }
                }
                let ty = infer(node, &g)?.remove(0);
                Tensor { ty, data: t.data.clone() }
            }
            _ => {
                let present: Vec<&Tensor> = inputs.iter().flatten().copied().collect();
                let mut g = Graph::default();
                for (name, x) in node.inputs.iter().zip(inputs) {
                    if let Some(x) = x {
                        g.types.insert(name.clone(), x.ty.clone());
                        g.consts.insert(name.clone(), (*x).clone());
                    }
                }
                let ty = infer(node, &g)?.remove(0);
                let shapes: Vec<Vec<usize>> = present.iter().map(|t| t.ty.shape.clone()).collect();
                let gather_idx = if op == "Gather" { present[1].to_i64() } else { Vec::new() };
                let esize = ty.dtype.size();
                let mut data = Vec::with_capacity(ty.bytes());
                let out_strides = strides_of(&ty.shape);
                for flat in 0..ty.numel() {
                    let out: Vec<usize> = out_strides.iter().zip(&ty.shape).map(|(&s, &d)| (flat / s) % d.max(1)).collect();
                    let (k, idx) = source(node, &shapes, &out, inputs, &gather_idx)?;
                    let src = if op == "Concat" { present[k] } else { present[0] };
                    let pos: usize = idx.iter().zip(strides_of(&src.ty.shape)).map(|(&i, s)| i * s).sum();
                    data.extend_from_slice(&src.data[pos * esize..(pos + 1) * esize]);
                }
                Tensor { ty, data }
            }
        }])
    })();
    Some(r)
}

use crate::onnx::codegen::Emitter;
use xcc_ir::{Type, ValueId};

impl Emitter {
    pub fn emit_data_movement(&mut self, node: &Node, g: &Graph) -> OResult<()> {
        let out_t = g.ty(&node.outputs[0])?.clone();
        let out = self.buf(&node.outputs[0])?;
        let x = self.buf(&node.inputs[0])?;
        let in_shape = g.ty(&node.inputs[0])?.shape.clone();
        let c = consts_of(g, node);
        match node.op.as_str() {
            "Reshape" | "Flatten" | "Squeeze" | "Unsqueeze" => self.copy(x, out, &out_t),
            "Transpose" => {
                let perm = perm_of(node, in_shape.len())?;
                self.loop_nest(&out_t.shape, &mut |e, ivs| {
                    let mut idx = vec![ivs[0]; ivs.len()];
                    for (o, &p) in perm.iter().enumerate() {
                        idx[p] = ivs[o];
                    }
                    let v = e.load(x, &idx);
                    e.store(v, out, ivs);
                });
            }
            "Concat" => {
                let a = axis(node, node.int("axis", 0), in_shape.len())?;
                let mut base = 0;
                for name in node.inputs.iter().filter(|s| !s.is_empty()) {
                    let src = self.buf(name)?;
                    let shape = g.ty(name)?.shape.clone();
                    self.loop_nest(&shape, &mut |e, ivs| {
                        let v = e.load(src, ivs);
                        let mut idx = ivs.to_vec();
                        idx[a] = e.affine(&[(ivs[a], 1)], base as i64);
                        e.store(v, out, &idx);
                    });
                    base += shape[a];
                }
            }
            "Slice" => {
                let p = slice_params(node, &in_shape, &c)?;
                self.loop_nest(&out_t.shape, &mut |e, ivs| {
                    let idx: Vec<ValueId> = ivs.iter().zip(&p).map(|(&iv, &(start, step, _))| e.affine(&[(iv, step)], start)).collect();
                    let v = e.load(x, &idx);
                    e.store(v, out, ivs);
                });
            }
            "Gather" => {
                let a = axis(node, node.int("axis", 0), in_shape.len())?;
                let indices = self.buf(&node.inputs[1])?;
                let idx_t = g.ty(&node.inputs[1])?.clone();
                let r = idx_t.shape.len();
                let dim = in_shape[a] as i128;
                self.loop_nest(&out_t.shape, &mut |e, ivs| {
                    let raw = e.load(indices, &ivs[a..a + r]);
                    let it = e.m.ty(raw).clone();
                    // Negative indices count from the end.
                    let zero = e.const_int(0, it.clone());
                    let dimv = e.const_int(dim, it.clone());
                    let neg = e.value_attr("arith.cmpi", &[raw, zero], Type::i1(), vec![("predicate", xcc_ir::Attribute::i64(2))]);
                    let wrapped = e.value_op("arith.addi", &[raw, dimv], it.clone());
                    let fixed = e.value_op("arith.select", &[neg, wrapped, raw], it);
                    let i = e.value_op("arith.index_cast", &[fixed], Type::Index);
                    let mut idx = ivs[..a].to_vec();
                    idx.push(i);
                    idx.extend(&ivs[a + r..]);
                    let v = e.load(x, &idx);
                    e.store(v, out, ivs);
                });
            }
            "Expand" | "Tile" => {
                let tile = node.op == "Tile";
                self.loop_nest(&out_t.shape, &mut |e, ivs| {
                    let off = ivs.len() - in_shape.len();
                    let idx: Vec<ValueId> = (0..in_shape.len())
                        .map(|d| {
                            if in_shape[d] == 1 {
                                e.idx(0)
                            } else if tile {
                                let m = e.idx(in_shape[d] as i64);
                                e.value_op("arith.remui", &[ivs[d + off], m], Type::Index)
                            } else {
                                ivs[d + off]
                            }
                        })
                        .collect();
                    let v = e.load(x, &idx);
                    e.store(v, out, ivs);
                });
            }
            op => return err(format!("{op} with non-constant inputs is not supported")),
        }
        Ok(())
    }
}
