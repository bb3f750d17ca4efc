//! Pad: per dim, `begin` elements before and `end` after (negative: cropped). Modes: constant
//! (a fill value), edge (clamp), reflect (mirror without repeating the edge) and wrap.

use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::axis;
use xcc_ir::{Type, ValueId};

pub struct Pad;

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Constant,
    Edge,
    Reflect,
    Wrap,
}

impl Mode {
    fn of(node: &Node) -> OResult<Mode> {
        Ok(match node.string("mode").unwrap_or("constant") {
            "constant" => Mode::Constant,
            "edge" => Mode::Edge,
            "reflect" => Mode::Reflect,
            "wrap" => Mode::Wrap,
            other => return err(format!("Pad mode '{other}' is not supported")),
        })
    }
}

/// Per-dimension (begin, end) amounts, from the `pads` attribute (before opset 11) or the `pads`
/// input, over every dim or only the `axes` input's (opset 18).
fn pad_amounts(node: &Node, g: &Graph, rank: usize) -> OResult<Vec<(i64, i64)>> {
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

/// The constant mode's fill value: the `value` attribute (before opset 11) or the optional
/// `constant_value` input, else 0.
#[derive(Clone, Copy)]
enum Fill {
    Constant(f64),
    /// An input read at run time: its buffer and rank (one element).
    Buffer(ValueId, usize),
}

fn fill_value(node: &Node, g: &Graph, e: &Emitter) -> OResult<Fill> {
    Ok(match (node.attrs.get("value"), node.input(2)) {
        (Some(Attr::Float(v)), _) => Fill::Constant(*v as f64),
        (_, Some(name)) => match g.consts.get(name) {
            Some(t) => Fill::Constant(t.to_f64().first().copied().unwrap_or(0.0)),
            None => {
                let t = g.ty(name)?;
                if t.numel() != 1 {
                    return Err(OnnxError::tensor(name, "Pad's constant_value must hold one element"));
                }
                Fill::Buffer(e.buf(name)?, t.shape.len())
            }
        },
        _ => Fill::Constant(0.0),
    })
}

impl OnnxOp for Pad {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = g.ty(&node.inputs[0])?;
        let mut shape = Vec::new();
        for (d, (b, e)) in t.shape.iter().zip(pad_amounts(node, g, t.shape.len())?) {
            let v = *d as i64 + b + e;
            if v < 0 {
                return err("Pad crops a dimension below zero");
            }
            shape.push(v as usize);
        }
        Ok(vec![TensorType::new(t.dtype, shape)])
    }

    /// Each output point reads the input at its position minus `begin`, mapped back into the
    /// input by the mode; in constant mode, points outside read the fill value instead.
    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let in_shape = g.ty(&node.inputs[0])?.shape.clone();
        let out_t = g.ty(&node.outputs[0])?;
        let pads = pad_amounts(node, g, in_shape.len())?;
        let mode = Mode::of(node)?;
        let fill = fill_value(node, g, e)?;
        let (x, out) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        let dtype = out_t.dtype;
        e.parallel(&out_t.shape, &mut |e, ivs| {
            let mut inside: Option<ValueId> = None;
            let idx: Vec<ValueId> = pads
                .iter()
                .enumerate()
                .map(|(q, &(begin, _))| {
                    let pos = e.affine(&[(ivs[q], 1)], -begin);
                    source_index(e, mode, pos, in_shape[q] as i64, &mut inside)
                })
                .collect();
            let mut v = e.load(x, &idx);
            if let Some(ok) = inside {
                let f = match fill {
                    Fill::Constant(v) => e.const_of(v, dtype),
                    Fill::Buffer(buf, rank) => {
                        let at = vec![e.idx(0); rank];
                        e.load(buf, &at)
                    }
                };
                let t = e.m.ty(v).clone();
                v = e.value_op("arith.select", &[ok, v, f], t);
            }
            e.store(v, out, ivs);
        });
        Ok(())
    }
}

/// The input index for position `pos` (which may lie outside `0..n`) along one dim. In constant
/// mode, `inside` accumulates whether every dim's position is inside the input.
fn source_index(e: &mut Emitter, mode: Mode, pos: ValueId, n: i64, inside: &mut Option<ValueId>) -> ValueId {
    let zero = e.idx(0);
    let last = e.idx(n - 1);
    match mode {
        Mode::Reflect if n > 1 => {
            // Mirror without repeating the edge: period 2(n-1); a large multiple of the period
            // keeps the remainder's operand positive.
            let period = e.idx(2 * (n - 1));
            let big = e.idx(2 * (n - 1) * 1024);
            let shifted = e.value_op("arith.addi", &[pos, big], Type::Index);
            let m = e.value_op("arith.remsi", &[shifted, period], Type::Index);
            let back = e.value_op("arith.subi", &[period, m], Type::Index);
            let over = e.cmpi("sgt", m, last);
            e.value_op("arith.select", &[over, back, m], Type::Index)
        }
        Mode::Wrap => {
            let nn = e.idx(n);
            let big = e.idx(n * 1024);
            let shifted = e.value_op("arith.addi", &[pos, big], Type::Index);
            e.value_op("arith.remsi", &[shifted, nn], Type::Index)
        }
        Mode::Constant => e.clamp_tap(pos, n as usize, inside),
        _ => {
            let lo = e.value_op("arith.maxsi", &[pos, zero], Type::Index);
            e.value_op("arith.minsi", &[lo, last], Type::Index)
        }
    }
}
