//! Pad: per dim, `begin` elements before and `end` after (negative: cropped). Modes: constant
//! (a fill value), edge (clamp), reflect (mirror without repeating the edge) and wrap.

use crate::emit::{identity, Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::{axis, data_axis_hits, shape_data};
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
/// input, over every dim or only the `axes` input's (opset 18); numbers when these are
/// constants, else what the run reads from them (the axes then checked).
fn pad_amounts(node: &Node, g: &Graph, rank: usize) -> OResult<Vec<(DataExpr, DataExpr)>> {
    let pads = match node.ints("pads") {
        Some(p) => p.into_iter().map(DataExpr::num).collect(),
        None => shape_data(g, node, 1, "pads")?.ok_or_else(|| OnnxError::msg("Pad needs pads"))?,
    };
    let axes = match shape_data(g, node, 3, "axes")? {
        Some(a) => a,
        None => (0..rank as i64).map(DataExpr::num).collect(),
    };
    if pads.len() != 2 * axes.len() {
        return err(format!("pads has {} entries, expected {}", pads.len(), 2 * axes.len()));
    }
    let hits: Vec<Vec<DataExpr>> = if axes.iter().all(|a| a.as_const().is_some()) {
        let named = axes.iter().map(|a| axis(node, a.as_const().unwrap_or(0), rank)).collect::<OResult<Vec<_>>>()?;
        named.iter().map(|&a| (0..rank).map(|q| DataExpr::num(i64::from(q == a))).collect()).collect()
    } else {
        data_axis_hits(g, &axes, rank)?;
        axes.iter().map(|a| (0..rank).map(|q| a.axis(rank).eq(&DataExpr::num(q as i64))).collect()).collect()
    };
    let mut out = vec![(DataExpr::num(0), DataExpr::num(0)); rank];
    for (k, row) in hits.iter().enumerate() {
        for (q, hit) in row.iter().enumerate() {
            let (b, e) = (&pads[k], &pads[k + axes.len()]);
            out[q] = (hit.select(b, &out[q].0), hit.select(e, &out[q].1));
        }
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
        let mut dims = Vec::new();
        for (q, (d, (b, e))) in t.dims().into_iter().zip(pad_amounts(node, g, t.shape.len())?).enumerate() {
            let v = DataExpr::Dim(d).add(&b).add(&e);
            g.require(DataExpr::num(-1).lt(&v), "Pad crops a dimension below zero")?;
            dims.push(g.data_dim(format!("{}.{q}", node.outputs[0]), v));
        }
        Ok(vec![TensorType::with_dims(t.dtype, dims)])
    }

    /// Any dim may be known only at run time.
    fn takes_run_time_dims(&self) -> bool {
        true
    }

    /// Each output point reads the input at its position minus `begin`, mapped back into the
    /// input by the mode; in constant mode, points outside read the fill value instead.
    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let in_dims = g.ty(&node.inputs[0])?.dims();
        let in_shape = e.dim_extents(&in_dims);
        let out_t = g.ty(&node.outputs[0])?;
        // A begin read at run time is computed once, before the loop.
        let begins: Vec<Result<i64, ValueId>> = pad_amounts(node, g, in_dims.len())?
            .iter()
            .map(|(b, _)| b.as_const().ok_or_else(|| e.data_value(b)))
            .collect();
        let mode = Mode::of(node)?;
        let fill = fill_value(node, g, e)?;
        let (x, out) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        let dtype = out_t.dtype;
        let extents = e.dim_extents(&out_t.dims());
        if let (Mode::Constant, Fill::Constant(value)) = (mode, fill) {
            if let Some(shifts) = growth_only(&begins, &in_shape, &extents) {
                return fill_then_copy(e, (x, out), &shifts, value, dtype);
            }
        }
        e.parallel_over(&extents, &mut |e, ivs| {
            let mut inside: Option<ValueId> = None;
            let idx: Vec<ValueId> = begins
                .iter()
                .enumerate()
                .map(|(q, &begin)| {
                    let pos = match begin {
                        Ok(begin) => e.affine(&[(ivs[q], 1)], -begin),
                        Err(begin) => e.value_op("arith.subi", &[ivs[q], begin], Type::Index),
                    };
                    match in_shape[q] {
                        Extent::Fixed(n) => source_index(e, mode, pos, n as i64, &mut inside),
                        Extent::Value(n) => run_time_source_index(e, mode, pos, n, &mut inside),
                    }
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

/// The begins of a constant pad that only grows dims known at compile time (no crop): the
/// output is then the fill with the input copied in at those shifts.
fn growth_only(begins: &[Result<i64, ValueId>], input: &[Extent], output: &[Extent]) -> Option<Vec<i64>> {
    let shifts: Vec<i64> = begins.iter().map(|b| b.ok().filter(|&b| b >= 0)).collect::<Option<_>>()?;
    let fits = input.iter().zip(output).zip(&shifts).all(|((i, o), &b)| match (i.fixed(), o.fixed()) {
        (Some(i), Some(o)) => b as usize + i <= o,
        _ => false,
    });
    fits.then_some(shifts)
}

/// The whole output filled with `value` (unless the input covers it all), then the input
/// copied in at `shifts`: two loops over whole rows, which vectorize, instead of one that tests
/// every element's position (the interior is written twice; the copy is the cheap one).
fn fill_then_copy(
    e: &mut Emitter,
    (x, out): (ValueId, ValueId),
    shifts: &[i64],
    value: f64,
    dtype: DType,
) -> OResult<()> {
    let rank = shifts.len();
    let covered = e.m.ty(x) == e.m.ty(out);
    if !covered {
        let elem = (*e.m.ty(out).as_memref().expect("a buffer").elem).clone();
        // A 16-bit float is computed in f32 (`const_of`) and stored narrowed.
        e.generic(&[], &[(out, identity(rank))], vec![true; rank], |e, _| {
            let v = e.const_of(value, dtype);
            Ok(vec![e.narrow_to(v, &elem)])
        })?;
    }
    let shifted = super::map(rank, shifts.iter().enumerate().map(|(d, &b)| super::offset(super::dim(d), b)).collect());
    e.generic(&[(x, identity(rank))], &[(out, shifted)], vec![true; rank], |_, args| Ok(vec![args[0]]))
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

/// [`source_index`] along a dim known only at run time (`n`, an index).
fn run_time_source_index(
    e: &mut Emitter,
    mode: Mode,
    pos: ValueId,
    n: ValueId,
    inside: &mut Option<ValueId>,
) -> ValueId {
    let (zero, one) = (e.idx(0), e.idx(1));
    let last = e.value_op("arith.subi", &[n, one], Type::Index);
    let wrapped = |e: &mut Emitter, period: ValueId| {
        let k = e.idx(1024);
        let big = e.value_op("arith.muli", &[period, k], Type::Index);
        let shifted = e.value_op("arith.addi", &[pos, big], Type::Index);
        e.value_op("arith.remsi", &[shifted, period], Type::Index)
    };
    match mode {
        Mode::Reflect => {
            // A period of 1 when n is 1: every position reads the one element.
            let two = e.idx(2);
            let period = e.value_op("arith.muli", &[last, two], Type::Index);
            let period = e.value_op("arith.maxsi", &[period, one], Type::Index);
            let m = wrapped(e, period);
            let back = e.value_op("arith.subi", &[period, m], Type::Index);
            let over = e.cmpi("sgt", m, last);
            e.value_op("arith.select", &[over, back, m], Type::Index)
        }
        Mode::Wrap => wrapped(e, n),
        Mode::Constant => e.clamp_tap(pos, Extent::Value(n), inside),
        Mode::Edge => {
            let lo = e.value_op("arith.maxsi", &[pos, zero], Type::Index);
            e.value_op("arith.minsi", &[lo, last], Type::Index)
        }
    }
}
