//! CumSum and CumProd: running sums and products along `axis` (input 1: a constant, or a graph
//! input read at run time, when each axis's scan is there to be chosen), each
//! element included (or, `exclusive`, only those before it), from the start or in `reverse`.
//! Parallel over the dims before and after the axis, serial along it.

use crate::emit::{compute_type, Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::{axis, data_input};

pub struct Cumulative;

/// Where the axis comes from: a constant, or a graph input read at run time.
enum ScanAxis {
    Fixed(usize),
    /// Already counted from the front: in `[0, rank)`, which every run checks.
    RunTime(DataExpr),
}

/// The axis (input 1): a constant holding one integer, or a graph input of one element.
fn scan_axis(node: &Node, g: &Graph, rank: usize) -> OResult<ScanAxis> {
    let name = &node.inputs[1];
    if let Some(t) = g.consts.get(name) {
        return match t.to_i64()[..] {
            [a] if matches!(t.ty.dtype, DType::I32 | DType::I64) => Ok(ScanAxis::Fixed(axis(node, a, rank)?)),
            _ => err(format!("{}'s axis '{name}' must be one int32 or int64, not {}", node.op, t.ty.describe())),
        };
    }
    match data_input(g, node, 1).as_deref() {
        Some([a]) => {
            let a = a.axis(rank);
            g.require(a.in_range(0, rank as i64), format!("{}'s axis is out of range for rank {rank}", node.op))?;
            Ok(ScanAxis::RunTime(a))
        }
        _ => err(format!("{}'s axis '{name}' must be a constant or a graph input holding one value", node.op)),
    }
}

impl OnnxOp for Cumulative {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = g.ty(&node.inputs[0])?;
        if x.dtype == DType::Bool {
            return err(format!("{} does not take bool tensors", node.op));
        }
        scan_axis(node, g, x.shape.len().max(1))?;
        Ok(vec![x.clone()])
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?;
        let shape = if x_t.shape.is_empty() { vec![1] } else { x_t.shape.clone() };
        match scan_axis(node, g, shape.len())? {
            ScanAxis::Fixed(a) => scan(node, e, x_t.dtype, &shape, a),
            // Each axis's scan, run when the axis read at run time is that one.
            ScanAxis::RunTime(at) => {
                for a in 0..shape.len() {
                    let hit = e.data_value(&at.eq(&DataExpr::num(a as i64)));
                    let zero = e.idx(0);
                    let hit = e.cmpi("ne", hit, zero);
                    let mut result = Ok(());
                    e.if_then(hit, |e| result = scan(node, e, x_t.dtype, &shape, a));
                    result?;
                }
                Ok(())
            }
        }
    }
}

/// The scan along axis `a` of a tensor of dims `shape`: parallel over `[outer, inner]`, serial
/// along the axis, carrying the running sum or product.
fn scan(node: &Node, e: &mut Emitter, d: DType, shape: &[usize], a: usize) -> OResult<()> {
    let (outer, n, inner) = (shape[..a].iter().product::<usize>(), shape[a], shape[a + 1..].iter().product::<usize>());
    let view = [Extent::Fixed(outer), Extent::Fixed(n), Extent::Fixed(inner)];
    let x3 = e.reshaped_over(e.buf(&node.inputs[0])?, &view);
    let o3 = e.reshaped_over(e.buf(&node.outputs[0])?, &view);
    let sum = node.op == "CumSum";
    let combine = match (sum, d.is_float()) {
        (true, true) => "arith.addf",
        (true, false) => "arith.addi",
        (false, true) => "arith.mulf",
        (false, false) => "arith.muli",
    };
    let (exclusive, reverse) = (node.int("exclusive", 0) != 0, node.int("reverse", 0) != 0);
    e.parallel_over(&[Extent::Fixed(outer), Extent::Fixed(inner)], &mut |e, ivs| {
        let start = e.const_of(if sum { 0.0 } else { 1.0 }, d);
        e.for_acc_over(Extent::Fixed(n), start, |e, k, acc| {
            let at = if reverse { e.affine(&[(k, -1)], n as i64 - 1) } else { k };
            let v = e.load(x3, &[ivs[0], at, ivs[1]]);
            let next = e.value_op(combine, &[acc, v], compute_type(d));
            e.store(if exclusive { acc } else { next }, o3, &[ivs[0], at, ivs[1]]);
            next
        });
    });
    Ok(())
}
