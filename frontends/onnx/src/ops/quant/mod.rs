//! Quantization: QuantizeLinear and DequantizeLinear (per tensor, per axis and blocked, to and
//! from the integer and float8 types), DynamicQuantizeLinear, and the integer products
//! MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv. Each is an expansion
//! ([`crate::ops::expansion`]): casts, the arithmetic in f32 (f64 where 32-bit integers would
//! lose digits), rounding half to even and clipping to the type's range, as ONNX defines them;
//! the products accumulate in int32.

mod dequantize;
mod dynamic;
pub(crate) mod integer;
mod quantize;

use crate::graph::*;
use crate::ops::expansion::{Expand, Expansion};
use crate::ops::schema::{Elements, Schema};

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    r.register(&["QuantizeLinear"], &Expand(quantize::QuantizeLinear), Schema::inputs(2, 3).elements(Elements::Codes));
    r.register(
        &["DequantizeLinear"],
        &Expand(dequantize::DequantizeLinear),
        Schema::inputs(2, 3).elements(Elements::Codes),
    );
    r.register(&["DynamicQuantizeLinear"], &Expand(dynamic::DynamicQuantizeLinear), Schema::exactly(1));
    r.register(&["MatMulInteger"], &integer::MatMulInteger, Schema::inputs(2, 4));
    r.register(&["ConvInteger"], &Expand(integer::IntegerProduct), Schema::inputs(2, 4));
    r.register_in(
        crate::ops::XCC_DOMAIN,
        &["MatMulIntegerQuads"],
        &integer::MatMulIntegerQuads,
        Schema::exactly(2).elements(Elements::Codes),
    );
    r.register_in(
        crate::ops::XCC_DOMAIN,
        &["ConvIntegerPlanes"],
        &integer::ConvIntegerPlanes,
        Schema::exactly(2).elements(Elements::Codes),
    );
    r.register(&["QLinearMatMul"], &Expand(integer::QLinearProduct), Schema::exactly(8));
    r.register(&["QLinearConv"], &Expand(integer::QLinearProduct), Schema::inputs(8, 9));
}

/// The type the arithmetic runs in: f64 for f64 data or 32-bit integers (an f32 holds 24
/// bits), else f32.
fn compute_type(types: &[DType]) -> DType {
    let wide = types.iter().any(|d| matches!(d, DType::F64 | DType::I32 | DType::U32 | DType::I64 | DType::U64));
    if wide {
        DType::F64
    } else {
        DType::F32
    }
}

/// The smallest and largest value of an integer type, as quantization clips to them.
fn integer_range(d: DType) -> OResult<(f64, f64)> {
    Ok(match d {
        DType::I8 => (i8::MIN as f64, i8::MAX as f64),
        DType::U8 => (0.0, u8::MAX as f64),
        DType::I16 => (i16::MIN as f64, i16::MAX as f64),
        DType::U16 => (0.0, u16::MAX as f64),
        DType::I32 => (i32::MIN as f64, i32::MAX as f64),
        DType::I4 => (-8.0, 7.0),
        DType::U4 => (0.0, 15.0),
        DType::I2 => (-2.0, 1.0),
        DType::U2 => (0.0, 3.0),
        DType::U32 => (0.0, u32::MAX as f64),
        d => return err(format!("quantization to {} is not supported", d.name())),
    })
}

/// A scale or zero point `p` (of type `t`, cast to `to`) shaped to broadcast against a tensor
/// of dims `dims`: a single value as it is; one value per index of the node's `axis` as
/// `[n, 1, ...]`; with `block_size`, one value per block of that many indices along `axis`,
/// repeated over its block (the last block may be short).
fn aligned(x: &mut Expansion, node: &Node, p: &str, t: &TensorType, dims: &[usize], to: DType) -> OResult<String> {
    let block = node.int("block_size", 0);
    if block < 0 {
        return err(format!("block_size must not be negative, not {block}"));
    }
    let block = block as usize;
    let p = x.cast(p, t.dtype, to);
    if t.numel() == 1 && block == 0 {
        return Ok(p);
    }
    let rank = dims.len();
    let axis = crate::ops::shapes::axis(node, node.int("axis", 1), rank)?;
    if block == 0 {
        if t.shape != [dims[axis]] {
            return err(format!("a per-axis scale or zero point must be [{}], not {}", dims[axis], t.describe()));
        }
        let trailing: Vec<i64> = (1..(rank - axis) as i64).collect();
        return Ok(if trailing.is_empty() { p } else { x.unsqueeze(&p, &trailing) });
    }
    let blocks = dims[axis].div_ceil(block);
    let mut want = dims.to_vec();
    want[axis] = blocks;
    if t.shape != want {
        return err(format!("a blocked scale or zero point must be {want:?}, not {}", t.describe()));
    }
    let spread = x.unsqueeze(&p, &[axis as i64 + 1]);
    let mut reps = vec![1i64; rank + 1];
    reps[axis + 1] = block as i64;
    let reps = x.ints(&reps);
    let tiled = x.op("Tile", &[&spread, &reps], &[]);
    let mut merged: Vec<i64> = want.iter().map(|&d| d as i64).collect();
    merged[axis] = (blocks * block) as i64;
    let merged = x.reshape(&tiled, &merged);
    if blocks * block == dims[axis] {
        return Ok(merged);
    }
    let (start, end, along) = (x.ints(&[0]), x.ints(&[dims[axis] as i64]), x.ints(&[axis as i64]));
    Ok(x.op("Slice", &[&merged, &start, &end, &along], &[]))
}

/// The dims a quantization's scale and zero point (`params`) align to: any, run-time ones too,
/// when each is a single value; else they must be known at compile time (a per-axis or blocked
/// parameter is shaped against them).
fn aligned_dims(node: &Node, t: &TensorType, params: &[&TensorType]) -> OResult<Vec<usize>> {
    let per_tensor = node.int("block_size", 0) == 0 && params.iter().all(|p| p.numel() == 1 && !p.is_dynamic());
    if t.is_dynamic() && !per_tensor {
        return err(format!(
            "the input's dims must be known at compile time with a scale or zero point per axis or block, not {}",
            t.describe()
        ));
    }
    Ok(t.shape.clone())
}

/// `v` rounded half to even, plus the zero point (already aligned, in the compute type),
/// clipped to `to`'s range and cast to it.
fn round_to_integer(x: &mut Expansion, v: &str, zero_point: Option<&str>, c: DType, to: DType) -> OResult<String> {
    let (lo, hi) = integer_range(to)?;
    let mut r = x.op("Round", &[v], &[]);
    if let Some(z) = zero_point {
        r = x.op("Add", &[&r, z], &[]);
    }
    let (lo, hi) = (x.scalar(lo, c), x.scalar(hi, c));
    let clipped = x.op("Clip", &[&r, &lo, &hi], &[]);
    Ok(x.cast(&clipped, c, to))
}
