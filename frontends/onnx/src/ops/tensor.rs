//! Data-movement and shape operators. Each one maps an output element to one input element
//! ([`source`]), which drives both constant folding and loop generation.

use super::{axis, broadcast, strides_of};
use crate::graph::*;

pub const OPS: &[&str] = &[
    "Constant",
    "ConstantOfShape",
    "Shape",
    "Size",
    "Range",
    "Gather",
    "Slice",
    "Concat",
    "Reshape",
    "Flatten",
    "Squeeze",
    "Unsqueeze",
    "Transpose",
    "Expand",
    "Tile",
    "Split",
    "Pad",
    "Trilu",
    "GatherElements",
];

/// Data movement: copies (Reshape, Flatten, Squeeze, Unsqueeze), `kernel.generic`s that read
/// through affine maps (Transpose, Slice, Concat, Split, Expand, Tile), and parallel loops for
/// the data-dependent rest.
struct DataMovement;

impl super::OnnxOp for DataMovement {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        infer(node, g)
    }
    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        fold(node, inputs)
    }
    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        e.emit_data_movement(node, g)
    }
}

pub fn register(r: &mut super::Registry) {
    r.register(OPS, &DataMovement);
}

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
                Some(n) => c
                    .get(i)
                    .copied()
                    .flatten()
                    .map(|t| Some(t.to_i64()))
                    .ok_or_else(|| OnnxError::msg(format!("Slice {what} '{n}' must be a constant"))),
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
        let count = if step > 0 {
            ((end - start).max(0) + step - 1) / step
        } else {
            ((start - end).max(0) + (-step) - 1) / (-step)
        };
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
            0 if !allowzero => out.push(
                *input
                    .get(i)
                    .ok_or_else(|| OnnxError::msg("Reshape copies a dimension that the input does not have"))?,
            ),
            s if s < 0 => return err(format!("invalid Reshape dimension {s}")),
            s => out.push(s as usize),
        }
    }
    let known: usize = out.iter().product();
    if let Some(i) = infer_at {
        if known == 0 || !total.is_multiple_of(known) {
            return err(format!("cannot reshape {input:?} into {spec:?}"));
        }
        out[i] = total / known;
    }
    if out.iter().product::<usize>() != total {
        return err(format!("cannot reshape {input:?} ({total} elements) into {out:?}"));
    }
    Ok(out)
}

/// Split sizes along the axis: the `split` attribute (before 13), the `split` input, or
/// `num_outputs` (18) / equal parts.
pub fn split_sizes(node: &Node, g: &Graph, dim: usize) -> OResult<Vec<usize>> {
    let explicit = match node.ints("split") {
        Some(s) => Some(s),
        None => match node.input(1) {
            Some(name) => Some(
                g.consts
                    .get(name)
                    .ok_or_else(|| OnnxError::msg(format!("split '{name}' must be a constant")))?
                    .to_i64(),
            ),
            None => None,
        },
    };
    let sizes: Vec<usize> = match explicit {
        Some(s) => s.iter().map(|&x| x.max(0) as usize).collect(),
        None => {
            let n = node.int("num_outputs", node.outputs.len() as i64).max(1) as usize;
            let chunk = dim.div_ceil(n);
            (0..n).map(|i| chunk.min(dim.saturating_sub(i * chunk))).collect()
        }
    };
    if sizes.iter().sum::<usize>() != dim || sizes.len() != node.outputs.len() {
        return err(format!("split sizes {sizes:?} do not cover dimension {dim} with {} outputs", node.outputs.len()));
    }
    Ok(sizes)
}

/// Pad's per-dimension (begin, end) amounts, which may be negative (cropping).
pub fn pad_amounts(node: &Node, g: &Graph, rank: usize) -> OResult<Vec<(i64, i64)>> {
    let pads = match node.ints("pads") {
        Some(p) => p,
        None => g
            .consts
            .get(node.input(1).unwrap_or(""))
            .ok_or_else(|| OnnxError::msg("Pad's pads must be a constant"))?
            .to_i64(),
    };
    let axes: Vec<usize> = match node.input(3) {
        Some(name) => g
            .consts
            .get(name)
            .ok_or_else(|| OnnxError::msg(format!("axes '{name}' must be a constant")))?
            .to_i64()
            .iter()
            .map(|&a| axis(node, a, rank))
            .collect::<OResult<_>>()?,
        None => (0..rank).collect(),
    };
    if pads.len() != 2 * axes.len() {
        return err(format!("pads has {} entries, expected {}", pads.len(), 2 * axes.len()));
    }
    let mut out = vec![(0, 0); rank];
    for (k, &a) in axes.iter().enumerate() {
        out[a] = (pads[k], pads[k + axes.len()]);
    }
    Ok(out)
}

pub fn infer(node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
    let c = consts_of(g, node);
    let t0 = || g.ty(&node.inputs[0]);
    if node.op == "Split" {
        let t = t0()?;
        let a = axis(node, node.int("axis", 0), t.shape.len())?;
        return Ok(split_sizes(node, g, t.shape[a])?
            .into_iter()
            .map(|s| {
                let mut shape = t.shape.clone();
                shape[a] = s;
                TensorType { dtype: t.dtype, shape }
            })
            .collect());
    }
    if node.op == "Trilu" {
        let t = t0()?;
        if t.shape.len() < 2 {
            return err("Trilu needs a tensor of rank >= 2");
        }
        return Ok(vec![t.clone()]);
    }
    if node.op == "GatherElements" {
        let t = t0()?;
        let idx = g.ty(&node.inputs[1])?;
        if idx.shape.len() != t.shape.len() {
            return err("indices must have the data's rank");
        }
        axis(node, node.int("axis", 0), t.shape.len())?;
        return Ok(vec![TensorType { dtype: t.dtype, shape: idx.shape.clone() }]);
    }
    if node.op == "Pad" {
        let t = t0()?;
        let p = pad_amounts(node, g, t.shape.len())?;
        let mut shape = Vec::new();
        for (d, (b, e)) in t.shape.iter().zip(p) {
            let v = *d as i64 + b + e;
            if v < 0 {
                return err("Pad crops a dimension below zero");
            }
            shape.push(v as usize);
        }
        return Ok(vec![TensorType { dtype: t.dtype, shape }]);
    }
    Ok(vec![match node.op.as_str() {
        "Shape" => TensorType { dtype: DType::I64, shape: vec![shape_range(node, t0()?.shape.len()).1] },
        "Size" => TensorType { dtype: DType::I64, shape: vec![] },
        "Reshape" => {
            let spec = match node.ints("shape") {
                Some(s) => s,
                None => {
                    const_input(g, node, 1, "shape")?.ok_or_else(|| OnnxError::msg("Reshape needs a shape"))?.to_i64()
                }
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
            TensorType {
                dtype: t.dtype,
                shape: t.shape.iter().enumerate().filter(|(i, _)| !axes.contains(i)).map(|(_, &d)| d).collect(),
            }
        }
        "Unsqueeze" => {
            let t = t0()?;
            let axes = axes_of(node, &c, 1)?.ok_or_else(|| OnnxError::msg("Unsqueeze needs axes"))?;
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
                if t.shape.len() != shape.len()
                    || t.shape.iter().enumerate().any(|(i, &d)| i != a && d != first.shape[i])
                {
                    return err(format!(
                        "input '{name}' has shape {:?}, which does not match {:?} outside axis {a}",
                        t.shape, first.shape
                    ));
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
            let s = const_input(g, node, 1, "shape")?.ok_or_else(|| OnnxError::msg("Expand needs a shape"))?.to_i64();
            let s: Vec<usize> = s.iter().map(|&x| x.max(0) as usize).collect();
            TensorType { dtype: t.dtype, shape: broadcast(&t.shape, &s)? }
        }
        "Tile" => {
            let t = t0()?;
            let r = const_input(g, node, 1, "repeats")?.ok_or_else(|| OnnxError::msg("Tile needs repeats"))?.to_i64();
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
pub fn source(
    node: &Node,
    in_shapes: &[Vec<usize>],
    out: &[usize],
    c: &[Option<&Tensor>],
    gather_idx: &[i64],
) -> OResult<(usize, Vec<usize>)> {
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
                return err(format!(
                    "Gather index {} is out of range for dimension {a} of size {}",
                    gather_idx[flat], s0[a]
                ));
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
    if matches!(node.op.as_str(), "Split" | "Pad" | "Trilu" | "GatherElements") {
        return None;
    }
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
                    return err(
                        "Constant without a supported value attribute (sparse and string constants are not supported)",
                    );
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
                    let out: Vec<usize> =
                        out_strides.iter().zip(&ty.shape).map(|(&s, &d)| (flat / s) % d.max(1)).collect();
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

use crate::emit::{broadcast_map, identity, Emitter, LoopBuilder};
use xcc_ir::affine::{AffineExpr, AffineMap};
use xcc_ir::{Type, ValueId};

fn dim(d: usize) -> AffineExpr {
    AffineExpr::Dim(d as u32)
}

fn offset(e: AffineExpr, c: i64) -> AffineExpr {
    if c == 0 {
        e
    } else {
        AffineExpr::Add(Box::new(e), Box::new(AffineExpr::Const(c)))
    }
}

fn map(rank: usize, results: Vec<AffineExpr>) -> AffineMap {
    AffineMap { num_dims: rank as u32, num_symbols: 0, results }
}

impl Emitter {
    pub fn emit_data_movement(&mut self, node: &Node, g: &Graph) -> OResult<()> {
        let out_t = g.ty(&node.outputs[0])?.clone();
        let out = self.buf(&node.outputs[0])?;
        let x = self.buf(&node.inputs[0])?;
        let in_shape = g.ty(&node.inputs[0])?.shape.clone();
        let c = consts_of(g, node);
        match node.op.as_str() {
            "Reshape" | "Flatten" | "Squeeze" | "Unsqueeze" => self.copy(x, out),
            "Transpose" => {
                let perm = perm_of(node, in_shape.len())?;
                let rank = perm.len();
                let mut results = vec![dim(0); rank];
                for (o, &p) in perm.iter().enumerate() {
                    results[p] = dim(o);
                }
                self.move_elements(x, map(rank, results), out, identity(rank))?;
            }
            "Concat" => {
                let a = axis(node, node.int("axis", 0), in_shape.len())?;
                let rank = in_shape.len();
                let mut base = 0;
                for name in node.inputs.iter().filter(|s| !s.is_empty()) {
                    let src = self.buf(name)?;
                    let size = g.ty(name)?.shape[a];
                    let results =
                        (0..rank).map(|d| if d == a { offset(dim(d), base as i64) } else { dim(d) }).collect();
                    self.move_elements(src, identity(rank), out, map(rank, results))?;
                    base += size;
                }
            }
            "Slice" => {
                let p = slice_params(node, &in_shape, &c)?;
                let rank = p.len();
                let results = p
                    .iter()
                    .enumerate()
                    .map(|(d, &(start, step, _))| {
                        let scaled = if step == 1 {
                            dim(d)
                        } else {
                            AffineExpr::Mul(Box::new(dim(d)), Box::new(AffineExpr::Const(step)))
                        };
                        offset(scaled, start)
                    })
                    .collect();
                self.move_elements(x, map(rank, results), out, identity(rank))?;
            }
            "Gather" => {
                let a = axis(node, node.int("axis", 0), in_shape.len())?;
                let indices = self.buf(&node.inputs[1])?;
                let idx_t = g.ty(&node.inputs[1])?.clone();
                let r = idx_t.shape.len();
                let dim = in_shape[a];
                self.parallel(&out_t.shape, &mut |e, ivs| {
                    let raw = e.load(indices, &ivs[a..a + r]);
                    let i = e.wrapped_index(raw, dim);
                    let mut idx = ivs[..a].to_vec();
                    idx.push(i);
                    idx.extend(&ivs[a + r..]);
                    let v = e.load(x, &idx);
                    e.store(v, out, ivs);
                });
            }
            "Expand" => {
                let rank = out_t.shape.len();
                self.move_elements(x, broadcast_map(&in_shape, &out_t.shape), out, identity(rank))?;
            }
            "Tile" => {
                let rank = out_t.shape.len();
                let results = (0..rank)
                    .map(|d| match in_shape[d] {
                        1 => AffineExpr::Const(0),
                        n => AffineExpr::Mod(Box::new(dim(d)), Box::new(AffineExpr::Const(n as i64))),
                    })
                    .collect();
                self.move_elements(x, map(rank, results), out, identity(rank))?;
            }
            "Split" => {
                let a = axis(node, node.int("axis", 0), in_shape.len())?;
                let rank = in_shape.len();
                let sizes = split_sizes(node, g, in_shape[a])?;
                let mut base = 0;
                for (k, size) in sizes.into_iter().enumerate() {
                    if !node.outputs[k].is_empty() {
                        let dst = self.buf(&node.outputs[k])?;
                        let results =
                            (0..rank).map(|d| if d == a { offset(dim(d), base as i64) } else { dim(d) }).collect();
                        self.move_elements(x, map(rank, results), dst, identity(rank))?;
                    }
                    base += size;
                }
            }
            "Pad" => {
                let p = pad_amounts(node, g, in_shape.len())?;
                let mode = node.string("mode").unwrap_or("constant").to_string();
                let dtype = out_t.dtype;
                let fill = match (node.attrs.get("value"), node.input(2)) {
                    (Some(Attr::Float(v)), _) => *v as f64,
                    (_, Some(name)) => g
                        .consts
                        .get(name)
                        .ok_or_else(|| OnnxError::msg(format!("constant_value '{name}' must be a constant")))?
                        .to_f64()
                        .first()
                        .copied()
                        .unwrap_or(0.0),
                    _ => 0.0,
                };
                if !matches!(mode.as_str(), "constant" | "edge" | "reflect" | "wrap") {
                    return err(format!("Pad mode '{mode}' is not supported"));
                }
                self.parallel(&out_t.shape, &mut |e, ivs| {
                    let mut ok: Option<ValueId> = None;
                    let mut idx = Vec::new();
                    for (q, &(begin, _)) in p.iter().enumerate() {
                        let n = in_shape[q] as i64;
                        let pos = e.affine(&[(ivs[q], 1)], -begin);
                        let zero = e.idx(0);
                        let last = e.idx(n - 1);
                        let src = match mode.as_str() {
                            "reflect" if n > 1 => {
                                // Mirror without repeating the edge: period 2(n-1).
                                let period = e.idx(2 * (n - 1));
                                let big = e.idx(2 * (n - 1) * 1024);
                                let shifted = e.value_op("arith.addi", &[pos, big], Type::Index);
                                let m = e.value_op("arith.remsi", &[shifted, period], Type::Index);
                                let back = e.value_op("arith.subi", &[period, m], Type::Index);
                                let over = e.value_attr(
                                    "arith.cmpi",
                                    &[m, last],
                                    Type::i1(),
                                    vec![("predicate", xcc_ir::Attribute::i64(4))],
                                );
                                e.value_op("arith.select", &[over, back, m], Type::Index)
                            }
                            "wrap" => {
                                let nn = e.idx(n);
                                let big = e.idx(n * 1024);
                                let shifted = e.value_op("arith.addi", &[pos, big], Type::Index);
                                e.value_op("arith.remsi", &[shifted, nn], Type::Index)
                            }
                            _ => {
                                if mode == "constant" {
                                    let hi = e.idx(n);
                                    let ge = e.value_attr(
                                        "arith.cmpi",
                                        &[pos, zero],
                                        Type::i1(),
                                        vec![("predicate", xcc_ir::Attribute::i64(5))],
                                    );
                                    let lt = e.value_attr(
                                        "arith.cmpi",
                                        &[pos, hi],
                                        Type::i1(),
                                        vec![("predicate", xcc_ir::Attribute::i64(2))],
                                    );
                                    let b = e.value_op("arith.andi", &[ge, lt], Type::i1());
                                    ok = Some(match ok {
                                        None => b,
                                        Some(a) => e.value_op("arith.andi", &[a, b], Type::i1()),
                                    });
                                }
                                let lo = e.value_op("arith.maxsi", &[pos, zero], Type::Index);
                                e.value_op("arith.minsi", &[lo, last], Type::Index)
                            }
                        };
                        idx.push(src);
                    }
                    let mut v = e.load(x, &idx);
                    if let Some(ok) = ok {
                        let f = e.const_of(fill, dtype);
                        let t = e.m.ty(v).clone();
                        v = e.value_op("arith.select", &[ok, v, f], t);
                    }
                    e.store(v, out, ivs);
                });
            }
            "Trilu" => {
                // k is a scalar input, read at run time (0 without it).
                let kv = match node.input(1) {
                    Some(name) => {
                        let kb = self.buf(name)?;
                        let zeros: Vec<ValueId> = (0..g.ty(name)?.shape.len()).map(|_| self.idx(0)).collect();
                        let raw = self.load(kb, &zeros);
                        self.value_op("arith.index_cast", &[raw], Type::Index)
                    }
                    None => self.idx(0),
                };
                let upper = node.int("upper", 1) == 1;
                let r = out_t.shape.len();
                let dtype = out_t.dtype;
                self.parallel(&out_t.shape, &mut |e, ivs| {
                    // Keep when j - i >= k (upper) or j - i <= k (lower).
                    let diff = e.value_op("arith.subi", &[ivs[r - 1], ivs[r - 2]], Type::Index);
                    let keep = e.value_attr(
                        "arith.cmpi",
                        &[diff, kv],
                        Type::i1(),
                        vec![("predicate", xcc_ir::Attribute::i64(if upper { 5 } else { 3 }))],
                    );
                    let v = e.load(x, ivs);
                    let z = e.const_of(0.0, dtype);
                    let t = e.m.ty(v).clone();
                    let r = e.value_op("arith.select", &[keep, v, z], t);
                    e.store(r, out, ivs);
                });
            }
            "GatherElements" => {
                let a = axis(node, node.int("axis", 0), in_shape.len())?;
                let indices = self.buf(&node.inputs[1])?;
                let dim = in_shape[a];
                self.parallel(&out_t.shape, &mut |e, ivs| {
                    let raw = e.load(indices, ivs);
                    let i = e.wrapped_index(raw, dim);
                    let mut idx = ivs.to_vec();
                    idx[a] = i;
                    let v = e.load(x, &idx);
                    e.store(v, out, ivs);
                });
            }
            op => return err(format!("{op} with non-constant inputs is not supported")),
        }
        Ok(())
    }

    /// A `kernel.generic` copying elements: the iteration space is the shape of the operand read
    /// at the identity (the target's, or the source's for a piece of a concatenation).
    fn move_elements(&mut self, src: ValueId, src_map: AffineMap, dst: ValueId, dst_map: AffineMap) -> OResult<()> {
        let rank = src_map.num_dims as usize;
        self.generic(&[(src, src_map)], &[(dst, dst_map)], vec![true; rank], |_, args| Ok(vec![args[0]]))
    }
}
