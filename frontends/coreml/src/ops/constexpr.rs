//! `const` and the `constexpr_*` operators, which decompress weights when the program is
//! loaded: evaluated here, at compile time, into constants.
//!
//! - `constexpr_affine_dequantize` (iOS 16): `(quantized_data - zero_point) * scale`, with
//!   scalar or per-`axis` zero points and scales.
//! - `constexpr_blockwise_shift_scale` (iOS 18): `(data - offset) * scale`, with `scale` and
//!   `offset` of the data's rank, each element covering a block of the data.
//! - `constexpr_lut_to_dense`: palettized weights, indices into a look-up table. The iOS 16
//!   form packs the indices in bytes and takes a `shape`; the iOS 18 form has them as a tensor
//!   of the weight's shape and one table per block.
//! - `constexpr_sparse_to_dense`: the nonzero values in order and a bit mask of where they go
//!   (packed in bytes with a `shape` for iOS 16, a uint1 tensor for iOS 18).
//! - `constexpr_cast`: half floats are float32 inside xcc already.

use super::{Convert, OpContext};
use crate::value::{unpack_bits, Const};
use std::collections::HashMap;
use xcc_frontend_onnx::graph::{DType, Tensor};

pub fn register(r: &mut HashMap<&'static str, Convert>) {
    r.insert("const", constant);
    r.insert("constexpr_affine_dequantize", affine_dequantize);
    r.insert("constexpr_blockwise_shift_scale", blockwise_shift_scale);
    r.insert("constexpr_lut_to_dense", lut_to_dense);
    r.insert("constexpr_sparse_to_dense", sparse_to_dense);
    r.insert("constexpr_cast", |cx| {
        let v = cx.required("source_val")?;
        cx.define_const(0, v)
    });
}

fn constant(cx: &mut OpContext) -> Result<(), String> {
    let v = cx.op.attributes.get("val").ok_or("a const without 'val'")?;
    let name = cx.out(0)?;
    let c = crate::value::decode(v, cx.im.blobs, &format!("const '{name}'"))?;
    cx.define_const(0, c)
}

fn tensor(cx: &OpContext, param: &str) -> Result<Tensor, String> {
    match cx.required(param)? {
        Const::Tensor(t) => Ok(t),
        _ => Err(format!("the parameter '{param}' is not a tensor")),
    }
}

fn affine_dequantize(cx: &mut OpContext) -> Result<(), String> {
    let q = tensor(cx, "quantized_data")?;
    let zero = tensor(cx, "zero_point")?.to_f64();
    let scale = tensor(cx, "scale")?.to_f64();
    let shape = q.ty.shape.clone();
    let rank = shape.len() as i64;
    let axis = cx.int("axis", 0)?;
    let axis = if axis < 0 { axis + rank } else { axis };
    if !(0..rank.max(1)).contains(&axis) {
        return Err(format!("axis {axis} out of range for rank {rank}"));
    }
    let channels = shape.get(axis as usize).copied().unwrap_or(1);
    let inner: usize = shape[(axis as usize + 1).min(shape.len())..].iter().product();
    let pick = |v: &[f64], i: usize, what: &str| -> Result<f64, String> {
        match v.len() {
            1 => Ok(v[0]),
            n if n == channels => Ok(v[(i / inner) % channels]),
            n => Err(format!("'{what}' has {n} values for {channels} along axis {axis}")),
        }
    };
    let values = q.to_f64();
    let out = values
        .iter()
        .enumerate()
        .map(|(i, &v)| Ok((v - pick(&zero, i, "zero_point")?) * pick(&scale, i, "scale")?))
        .collect::<Result<Vec<f64>, String>>()?;
    cx.define_const(0, Const::Tensor(Tensor::from_f64(DType::F32, shape, &out)))
}

/// The index of the block (in a tensor of `blocks`' shape) that element `i` of a tensor of
/// `shape` falls in; each dim of `shape` is a whole number of blocks.
fn block_index(i: usize, shape: &[usize], blocks: &[usize]) -> usize {
    let (mut rest, mut index, mut stride) = (i, 0, 1);
    for d in (0..shape.len()).rev() {
        let coord = rest % shape[d];
        rest /= shape[d];
        index += coord / (shape[d] / blocks[d]) * stride;
        stride *= blocks[d];
    }
    index
}

fn check_blocks(shape: &[usize], blocks: &[usize], what: &str) -> Result<(), String> {
    if blocks.len() != shape.len() || shape.iter().zip(blocks).any(|(&s, &b)| b == 0 || s % b != 0) {
        return Err(format!("'{what}' of shape {blocks:?} does not divide the data's shape {shape:?} into blocks"));
    }
    Ok(())
}

fn blockwise_shift_scale(cx: &mut OpContext) -> Result<(), String> {
    let data = tensor(cx, "data")?;
    let scale = tensor(cx, "scale")?;
    let shape = data.ty.shape.clone();
    check_blocks(&shape, &scale.ty.shape, "scale")?;
    let offset = match cx.known("offset")? {
        Some(Const::Tensor(t)) => {
            check_blocks(&shape, &t.ty.shape, "offset")?;
            Some(t.to_f64())
        }
        _ => None,
    };
    let (s, values) = (scale.to_f64(), data.to_f64());
    let out: Vec<f64> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let b = block_index(i, &shape, &scale.ty.shape);
            (v - offset.as_ref().map_or(0.0, |o| o[b])) * s[b]
        })
        .collect();
    cx.define_const(0, Const::Tensor(Tensor::from_f64(DType::F32, shape, &out)))
}

fn lut_to_dense(cx: &mut OpContext) -> Result<(), String> {
    let lut = tensor(cx, "lut")?;
    let indices = tensor(cx, "indices")?;
    let table = lut.to_f64();
    if let Some(shape) = cx.ints("shape")? {
        // iOS 16: one table, the indices packed in bytes.
        let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
        let n: usize = shape.iter().product();
        let bits = table.len().trailing_zeros() as usize;
        if !table.len().is_power_of_two() || !(1..=8).contains(&bits) || indices.data.len() != (n * bits).div_ceil(8) {
            return Err(format!(
                "a table of {} entries and {} index bytes for {n} elements",
                table.len(),
                indices.data.len()
            ));
        }
        let out: Vec<f64> = unpack_bits(&indices.data, bits, n).map(|k| table[k as usize]).collect();
        return cx.define_const(0, Const::Tensor(Tensor::from_f64(DType::F32, shape, &out)));
    }
    // iOS 18: lut is [blocks of each dim..., entries, vector size 1].
    let shape = indices.ty.shape.clone();
    let lut_shape = &lut.ty.shape;
    if lut_shape.len() != shape.len() + 2 || lut_shape[lut_shape.len() - 1] != 1 {
        return Err(format!(
            "a table of shape {lut_shape:?} for indices of shape {shape:?} (vector tables are not supported)"
        ));
    }
    let blocks = &lut_shape[..shape.len()];
    check_blocks(&shape, blocks, "lut")?;
    let entries = lut_shape[shape.len()];
    let out = indices
        .to_i64()
        .iter()
        .enumerate()
        .map(|(i, &k)| {
            let k = usize::try_from(k)
                .ok()
                .filter(|&k| k < entries)
                .ok_or(format!("index {k} past the table's {entries} entries"))?;
            Ok(table[block_index(i, &shape, blocks) * entries + k])
        })
        .collect::<Result<Vec<f64>, String>>()?;
    cx.define_const(0, Const::Tensor(Tensor::from_f64(DType::F32, shape, &out)))
}

fn sparse_to_dense(cx: &mut OpContext) -> Result<(), String> {
    let nonzero = tensor(cx, "nonzero_data")?;
    let mask = tensor(cx, "mask")?;
    let (shape, bits): (Vec<usize>, Vec<bool>) = match cx.ints("shape")? {
        Some(shape) => {
            // iOS 16: the mask packed in bytes.
            let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
            let n: usize = shape.iter().product();
            if mask.data.len() != n.div_ceil(8) {
                return Err(format!("a mask of {} bytes for {n} elements", mask.data.len()));
            }
            let bits = unpack_bits(&mask.data, 1, n).map(|b| b == 1).collect();
            (shape, bits)
        }
        None => (mask.ty.shape.clone(), mask.to_i64().iter().map(|&b| b != 0).collect()),
    };
    let values = nonzero.to_f64();
    let set = bits.iter().filter(|&&b| b).count();
    if set != values.len() {
        return Err(format!("the mask sets {set} elements but there are {} nonzero values", values.len()));
    }
    let mut next = values.iter();
    let out: Vec<f64> = bits.iter().map(|&b| if b { *next.next().expect("counted") } else { 0.0 }).collect();
    cx.define_const(0, Const::Tensor(Tensor::from_f64(nonzero.ty.dtype, shape, &out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_the_data_row_major() {
        // A 4x6 tensor in 2x3 blocks of 2x2: element (3, 5) is in block (1, 2).
        assert_eq!(block_index(3 * 6 + 5, &[4, 6], &[2, 3]), 5);
        assert_eq!(block_index(0, &[4, 6], &[2, 3]), 0);
        assert_eq!(block_index(6 + 1, &[4, 6], &[2, 3]), 0);
        assert_eq!(block_index(2 * 6 + 2, &[4, 6], &[2, 3]), 4);
    }
}
