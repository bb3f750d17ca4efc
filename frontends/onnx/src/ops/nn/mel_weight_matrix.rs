//! MelWeightMatrix: the `[dft_length / 2 + 1, num_mel_bins]` matrix that maps a one-sided
//! spectrum onto triangular mel-scale filters between `lower_edge_hertz` and `upper_edge_hertz`.
//! The `num_mel_bins + 2` filter edges are spaced evenly in mels (`2595 log10(1 + f / 700)`),
//! mapped back to hertz and onto spectrum bins (`floor((dft_length + 1) f / sample_rate)`);
//! filter `i` rises from edge `i` to edge `i + 1` and falls to edge `i + 2`, as ONNX's reference
//! defines it (a filter whose rising edge is empty is 1 at its centre). Every input may be read
//! at run time (the dims are then data dims); the values are computed in f64, each element in
//! parallel, and stored as `output_datatype`.

use crate::emit::{f64_type, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::{real_input, shape_data};
use xcc_ir::{Type, ValueId};

pub struct MelWeightMatrix;

/// The integer inputs (num_mel_bins, dft_length, sample_rate) as values the run knows first.
fn integers(node: &Node, g: &Graph) -> OResult<[DataExpr; 3]> {
    let mut v = Vec::new();
    for (i, what) in ["num_mel_bins", "dft_length", "sample_rate"].iter().enumerate() {
        match shape_data(g, node, i, what)?.as_deref() {
            Some([x]) => {
                g.require(DataExpr::num(0).lt(x), format!("MelWeightMatrix's {what} must be positive"))?;
                v.push(x.clone());
            }
            _ => return err(format!("MelWeightMatrix's {what} must be one integer")),
        }
    }
    Ok(v.try_into().expect("three inputs"))
}

fn output_type(node: &Node) -> OResult<DType> {
    let code = node.int("output_datatype", 1) as i32;
    match DType::from_onnx(code) {
        Some(d) if d.is_float() && d.float8().is_none() => Ok(d),
        _ => err(format!("MelWeightMatrix's output_datatype {} is not supported", DType::onnx_name(code))),
    }
}

impl OnnxOp for MelWeightMatrix {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let [mels, dft, _] = integers(node, g)?;
        let out = &node.outputs[0];
        let bins = dft.floor_div(&DataExpr::num(2)).add(&DataExpr::num(1));
        let dims = vec![g.data_dim(format!("{out}.0"), bins), g.data_dim(format!("{out}.1"), mels)];
        Ok(vec![TensorType::with_dims(output_type(node)?, dims)])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let [mels, dft, rate] = integers(node, g)?;
        let out = e.buf(&node.outputs[0])?;
        let extents = e.dim_extents(&g.ty(&node.outputs[0])?.dims());
        let [mels, dft, rate] = [mels, dft, rate].map(|x| {
            let v = e.data_value(&x);
            super::roi_align::index_to_real(e, v, &f64_type())
        });
        let low = edge(node, g, e, 3)?;
        let high = edge(node, g, e, 4)?;
        let (low, high) = (to_mel(e, low), to_mel(e, high));
        // (high - low) / (num_mel_bins + 2): the spacing of the edges in mels.
        let two = e.const_float(2.0, f64_type());
        let count = e.fbin("arith.addf", mels, two);
        let span = e.fbin("arith.subf", high, low);
        let step = e.fbin("arith.divf", span, count);
        let one = e.const_float(1.0, f64_type());
        let scale = e.fbin("arith.addf", dft, one);
        let edges = Edges { low, step, scale, rate };
        let stored = crate::emit::compute_type(output_type(node)?);
        e.parallel_over(&extents, &mut |e, ivs| {
            let j = super::roi_align::index_to_real(e, ivs[0], &f64_type());
            let i = super::roi_align::index_to_real(e, ivs[1], &f64_type());
            let one = e.const_float(1.0, f64_type());
            let left = edges.bin(e, i);
            let i1 = e.fbin("arith.addf", i, one);
            let center = edges.bin(e, i1);
            let i2 = e.fbin("arith.addf", i1, one);
            let right = edges.bin(e, i2);
            let v = weight(e, j, [left, center, right]);
            let v = if stored == f64_type() { v } else { e.value_op("arith.truncf", &[v], stored.clone()) };
            e.store(v, out, ivs);
        });
        Ok(())
    }
}

/// Input `i` (a frequency in hertz, one float) as an f64: a constant, or read by the run.
fn edge(node: &Node, g: &Graph, e: &mut Emitter, i: usize) -> OResult<ValueId> {
    let name = node.input(i).ok_or_else(|| OnnxError::msg("MelWeightMatrix needs five inputs"))?;
    if let Some(t) = g.consts.get(name) {
        return match t.to_f64().as_slice() {
            [v] => Ok(e.const_float(*v, f64_type())),
            _ => err(format!("MelWeightMatrix's input '{name}' must be one value")),
        };
    }
    match real_input(g, node, i).as_deref() {
        Some([x]) => Ok(e.data_real(x)),
        _ => err(format!("MelWeightMatrix's input '{name}' must be a constant or a graph input holding one float")),
    }
}

/// `2595 log10(1 + f / 700)`.
fn to_mel(e: &mut Emitter, hertz: ValueId) -> ValueId {
    let c700 = e.const_float(700.0, f64_type());
    let r = e.fbin("arith.divf", hertz, c700);
    let l = e.unary("math.log1p", r);
    let c = e.const_float(2595.0 / std::f64::consts::LN_10, f64_type());
    e.fbin("arith.mulf", l, c)
}

struct Edges {
    low: ValueId,
    step: ValueId,
    scale: ValueId,
    rate: ValueId,
}

impl Edges {
    /// Edge `i`'s spectrum bin: `floor((dft_length + 1) * 700 (10^(mel / 2595) - 1) / rate)`.
    fn bin(&self, e: &mut Emitter, i: ValueId) -> ValueId {
        let mel = e.fbin("arith.mulf", i, self.step);
        let mel = e.fbin("arith.addf", mel, self.low);
        let c = e.const_float(std::f64::consts::LN_10 / 2595.0, f64_type());
        let x = e.fbin("arith.mulf", mel, c);
        let x = e.unary("math.expm1", x);
        let c700 = e.const_float(700.0, f64_type());
        let hertz = e.fbin("arith.mulf", x, c700);
        let v = e.fbin("arith.mulf", self.scale, hertz);
        let v = e.fbin("arith.divf", v, self.rate);
        e.unary("math.floor", v)
    }
}

/// Filter `[left, center, right]`'s weight at spectrum bin `j` (all whole reals).
fn weight(e: &mut Emitter, j: ValueId, [left, center, right]: [ValueId; 3]) -> ValueId {
    let (zero, one) = (e.const_float(0.0, f64_type()), e.const_float(1.0, f64_type()));
    let rise = e.fbin("arith.subf", center, left);
    let fall = e.fbin("arith.subf", right, center);
    // Rising: (j - left) / rise over [left, center]; a peak of 1 where rise is 0.
    let up = e.fbin("arith.subf", j, left);
    let up = e.fbin("arith.divf", up, rise);
    let on_rise = within(e, j, left, "oge", center, "ole");
    let flat = e.cmpf("oeq", rise, zero);
    let at_center = e.cmpf("oeq", j, center);
    let peak = e.value_op("arith.andi", &[flat, at_center], Type::i1());
    let v = e.value_op("arith.select", &[on_rise, up, zero], f64_type());
    let v = e.value_op("arith.select", &[flat, zero, v], f64_type());
    let v = e.value_op("arith.select", &[peak, one, v], f64_type());
    // Falling: (right - j) / fall over [center, right), written after (over) the rise.
    let down = e.fbin("arith.subf", right, j);
    let down = e.fbin("arith.divf", down, fall);
    let on_fall = within(e, j, center, "oge", right, "olt");
    let falls = e.cmpf("ogt", fall, zero);
    let on_fall = e.value_op("arith.andi", &[on_fall, falls], Type::i1());
    e.value_op("arith.select", &[on_fall, down, v], f64_type())
}

/// Whether `j` lies between `lo` and `hi`, by the comparisons `after` (j against lo) and
/// `before` (j against hi).
fn within(e: &mut Emitter, j: ValueId, lo: ValueId, after: &str, hi: ValueId, before: &str) -> ValueId {
    let a = e.cmpf(after, j, lo);
    let b = e.cmpf(before, j, hi);
    e.value_op("arith.andi", &[a, b], Type::i1())
}
