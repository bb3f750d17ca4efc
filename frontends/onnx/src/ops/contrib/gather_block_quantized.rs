//! GatherBlockQuantized (com.microsoft): Gather from blockwise-quantized data (an int4
//! embedding table, as ONNX Runtime GenAI's builder writes with `op_types_to_quantize` Gather),
//! dequantized after the gather: only the chosen rows are converted, not the table. `data` is
//! int4 or uint4 (or uint8 holding two 4-bit values per byte, low nibble first, with `bits` 4),
//! `scales` has one value per `block_size` elements along `quantize_axis`, `zero_points` (same
//! layout, packed like the data) defaults to 0 for signed data and 2^(bits-1) for unsigned.
//! The output is `(q - zero_point) * scale` in the scales' type.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct GatherBlockQuantized;

impl Expanded for GatherBlockQuantized {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let (data, indices, scales) = (&node.inputs[0], &node.inputs[1], node.input(2).unwrap_or_default());
        let (dt, st) = (g.ty(data)?, g.ty(scales)?);
        let rank = dt.shape.len() as i64;
        let gather_axis = normalized(node.int("gather_axis", 0), rank)?;
        let quantize_axis = normalized(node.int("quantize_axis", 1), rank)?;
        let block = node.int("block_size", 128);
        if quantize_axis != rank - 1 || block < 16 || block & (block - 1) != 0 {
            return err(format!(
                "GatherBlockQuantized needs quantize_axis to be the last ({quantize_axis} of rank {rank}) and a \
                 power-of-two block_size of 16 or more (not {block})"
            ));
        }
        let bits = node.int("bits", 4);
        let out_rank = (rank - 1) as usize + g.ty(indices)?.shape.len();
        let packed = dt.dtype == DType::U8 && bits == 4;
        let Some(&last) = dt.shape.last() else { return err("GatherBlockQuantized's data must have rank 1 or more") };
        let width = if packed { 2 * last } else { last } as i64;
        let unpacked = |x: &mut Expansion, t: &str, dtype: DType| -> OResult<String> {
            match (dtype, bits) {
                (DType::I4 | DType::U4, 4) | (DType::U8, 8) => Ok(t.to_string()),
                (DType::U8, 4) => Ok(nibbles(x, t, out_rank)),
                _ => err(format!("GatherBlockQuantized's {} data with bits {bits} is not supported", dtype.name())),
            }
        };
        let axis = [("axis", Attr::Int(gather_axis))];
        let rows = x.op("Gather", &[data, indices], &axis);
        let q = unpacked(x, &rows, dt.dtype)?;
        let values = x.cast(&q, dt.dtype, st.dtype);
        let per_block = |x: &mut Expansion, t: &str| -> String {
            // [..., blocks] to [..., width]: each value repeated over its block (the last block
            // cut where the width is not a whole number of blocks).
            let wide = x.unsqueeze(t, &[-1]);
            let ones = x.constant(Tensor::from_f64(st.dtype, vec![block as usize], &vec![1.0; block as usize]));
            let spread = x.op("Mul", &[&wide, &ones], &[]);
            let mut shape = vec![0; out_rank - 1];
            shape.push(-1);
            let flat = x.reshape(&spread, &shape);
            let (start, end, last) = (x.ints(&[0]), x.ints(&[width]), x.ints(&[-1]));
            x.op("Slice", &[&flat, &start, &end, &last], &[])
        };
        let centered = match node.input(3) {
            Some(zero) => {
                let zt = g.ty(zero)?;
                let z = x.op("Gather", &[zero, indices], &axis);
                let z = unpacked(x, &z, zt.dtype)?;
                // Packed two per byte, an odd count of blocks leaves a nibble over.
                let blocks = *st.shape.last().unwrap_or(&0) as i64;
                let (start, end, last) = (x.ints(&[0]), x.ints(&[blocks]), x.ints(&[-1]));
                let z = x.op("Slice", &[&z, &start, &end, &last], &[]);
                let z = x.cast(&z, zt.dtype, st.dtype);
                let z = per_block(x, &z);
                x.op("Sub", &[&values, &z], &[])
            }
            None if matches!(dt.dtype, DType::U4 | DType::U8) => {
                let middle = x.scalar(f64::from(1u32 << (bits - 1)), st.dtype);
                x.op("Sub", &[&values, &middle], &[])
            }
            None => values,
        };
        let s = x.op("Gather", &[scales, indices], &axis);
        let s = per_block(x, &s);
        x.op_to("Mul", &[&centered, &s], &[], &[&node.outputs[0]]);
        Ok(())
    }
}

fn normalized(axis: i64, rank: i64) -> OResult<i64> {
    let a = if axis < 0 { axis + rank } else { axis };
    if !(0..rank).contains(&a) {
        return err(format!("axis {axis} is outside rank {rank}"));
    }
    Ok(a)
}

/// Bytes holding two 4-bit values each (low nibble first) as one value per byte, the last dim
/// twice as long (`rank` dims).
fn nibbles(x: &mut Expansion, t: &str, rank: usize) -> String {
    let mask = x.constant(Tensor::from_f64(DType::U8, vec![], &[15.0]));
    let four = x.constant(Tensor::from_f64(DType::U8, vec![], &[4.0]));
    let low = x.op("BitwiseAnd", &[t, &mask], &[]);
    let high = x.op("BitShift", &[t, &four], &[("direction", Attr::Str("RIGHT".into()))]);
    let (low, high) = (x.unsqueeze(&low, &[-1]), x.unsqueeze(&high, &[-1]));
    let pairs = x.op("Concat", &[&low, &high], &[("axis", Attr::Int(-1))]);
    let mut shape = vec![0; rank - 1];
    shape.push(-1);
    x.reshape(&pairs, &shape)
}
