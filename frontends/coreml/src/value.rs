//! MIL values known when the program was written (`const` operations, inline arguments, blob
//! file values) as tensors of the graph's element types.
//!
//! Inside the graph, MIL's half floats (float16, bfloat16) are float32: "fp16 programs compute
//! in fp32" (only the model's inputs and outputs keep their declared type, see
//! [`crate::import`]). The sub-byte integers (uint1 to uint6, int4), packed low bits first in
//! MIL's files, are unpacked to one value per byte.

use crate::blob::BlobFiles;
use crate::proto::{self, data_type as mil, tensor_value, value, value::immediate_value};
use xcc_frontend_onnx::graph::{f16_bits_to_f32, DType, Tensor};

/// A compile-time value: a tensor, strings (a `pad_type`, a `classify`'s labels) or a list.
#[derive(Clone, Debug)]
pub enum Const {
    Tensor(Tensor),
    Strings(Vec<String>),
    List(Vec<Const>),
}

/// The graph's element type for a MIL element type inside the program (half floats computed in
/// float32, sub-byte integers one per byte).
pub fn compute_dtype(code: i32) -> Option<DType> {
    Some(match code {
        mil::BOOL => DType::Bool,
        mil::FLOAT16 | mil::BFLOAT16 | mil::FLOAT32 => DType::F32,
        mil::FLOAT64 => DType::F64,
        mil::INT8 | mil::INT4 => DType::I8,
        mil::INT16 => DType::I16,
        mil::INT32 => DType::I32,
        mil::INT64 => DType::I64,
        mil::UINT8 | mil::UINT1 | mil::UINT2 | mil::UINT3 | mil::UINT4 | mil::UINT6 => DType::U8,
        mil::UINT16 => DType::U16,
        mil::UINT32 => DType::U32,
        mil::UINT64 => DType::U64,
        _ => return None,
    })
}

/// MIL's name of an element type, for messages.
pub fn mil_type_name(code: i32) -> String {
    match code {
        mil::BOOL => "bool",
        mil::STRING => "string",
        mil::FLOAT16 => "fp16",
        mil::FLOAT32 => "fp32",
        mil::FLOAT64 => "fp64",
        mil::BFLOAT16 => "bf16",
        mil::INT8 => "int8",
        mil::INT16 => "int16",
        mil::INT32 => "int32",
        mil::INT64 => "int64",
        mil::INT4 => "int4",
        mil::UINT8 => "uint8",
        mil::UINT16 => "uint16",
        mil::UINT32 => "uint32",
        mil::UINT64 => "uint64",
        mil::UINT4 => "uint4",
        mil::UINT2 => "uint2",
        mil::UINT1 => "uint1",
        mil::UINT6 => "uint6",
        mil::UINT3 => "uint3",
        c => return format!("type {c}"),
    }
    .to_string()
}

/// Bits per element of a MIL element type as stored (in a blob or as inline bytes).
pub fn stored_bits(code: i32) -> Option<usize> {
    Some(match code {
        mil::BOOL | mil::INT8 | mil::UINT8 => 8,
        mil::FLOAT16 | mil::BFLOAT16 | mil::INT16 | mil::UINT16 => 16,
        mil::FLOAT32 | mil::INT32 | mil::UINT32 => 32,
        mil::FLOAT64 | mil::INT64 | mil::UINT64 => 64,
        mil::INT4 | mil::UINT4 => 4,
        mil::UINT1 => 1,
        mil::UINT2 => 2,
        mil::UINT3 => 3,
        mil::UINT6 => 6,
        _ => return None,
    })
}

/// The blob-storage type code that holds a MIL element type.
fn blob_code(code: i32) -> Option<u32> {
    Some(match code {
        mil::FLOAT16 => 1,
        mil::FLOAT32 => 2,
        mil::UINT8 => 3,
        mil::INT8 => 4,
        mil::BFLOAT16 => 5,
        mil::INT16 => 6,
        mil::UINT16 => 7,
        mil::INT4 => 8,
        mil::UINT1 => 9,
        mil::UINT2 => 10,
        mil::UINT4 => 11,
        mil::UINT3 => 12,
        mil::UINT6 => 13,
        mil::INT32 => 14,
        mil::UINT32 => 15,
        _ => return None,
    })
}

/// A tensor type's element code and dims; an unknown dim is an error (`what` names the value).
pub fn tensor_shape(t: &proto::TensorType, what: &str) -> Result<Vec<usize>, String> {
    t.dimensions
        .iter()
        .map(|d| match &d.dimension {
            Some(proto::dimension::Dimension::Constant(c)) => {
                usize::try_from(c.size).map_err(|_| format!("{what}: a dim of {} is too large", c.size))
            }
            _ => Err(format!(
                "{what} has a dim known only at run time; xcc compiles Core ML programs with fixed shapes \
                 (convert with fixed input shapes)"
            )),
        })
        .collect()
}

/// A tensor type's dims as the program declares them, 0 for a dim known only at run time.
pub fn declared_shape(t: &proto::TensorType) -> Vec<usize> {
    t.dimensions
        .iter()
        .map(|d| match &d.dimension {
            Some(proto::dimension::Dimension::Constant(c)) => usize::try_from(c.size).unwrap_or(0),
            _ => 0,
        })
        .collect()
}

/// Decodes a value; `what` names it in messages.
pub fn decode(v: &proto::Value, blobs: &BlobFiles, what: &str) -> Result<Const, String> {
    let ty = v.r#type.as_ref().and_then(|t| t.r#type.as_ref());
    match (&v.value, ty) {
        (Some(value::Value::ImmediateValue(iv)), ty) => match (&iv.value, ty) {
            (Some(immediate_value::Value::Tensor(t)), Some(proto::value_type::Type::TensorType(tt))) => {
                immediate_tensor(t, tt, what)
            }
            (Some(immediate_value::Value::List(l)), _) => {
                Ok(Const::List(l.values.iter().map(|v| decode(v, blobs, what)).collect::<Result<_, _>>()?))
            }
            (Some(immediate_value::Value::Tuple(t)), _) => {
                Ok(Const::List(t.values.iter().map(|v| decode(v, blobs, what)).collect::<Result<_, _>>()?))
            }
            _ => Err(format!("{what}: a value xcc cannot read (not a tensor or a list)")),
        },
        (Some(value::Value::BlobFileValue(b)), Some(proto::value_type::Type::TensorType(tt))) => {
            let shape = tensor_shape(tt, what)?;
            let code = tt.data_type;
            let (Some(bits), Some(blob)) = (stored_bits(code), blob_code(code)) else {
                return Err(format!("{what}: a blob of {} xcc cannot read", mil_type_name(code)));
            };
            let n: usize = shape.iter().product();
            let bytes =
                blobs.read(&b.file_name, b.offset, blob, (n * bits).div_ceil(8)).map_err(|e| format!("{what}: {e}"))?;
            from_bytes(&bytes, code, shape, what)
        }
        _ => Err(format!("{what}: a value without data or type")),
    }
}

fn immediate_tensor(t: &proto::TensorValue, tt: &proto::TensorType, what: &str) -> Result<Const, String> {
    let shape = tensor_shape(tt, what)?;
    let n: usize = shape.iter().product();
    let code = tt.data_type;
    let count = |len: usize| {
        if len == n {
            Ok(())
        } else {
            Err(format!("{what}: {len} values for a tensor of {n} elements"))
        }
    };
    let dtype = || {
        compute_dtype(code).ok_or_else(|| format!("{what}: element type {} xcc does not compile", mil_type_name(code)))
    };
    match &t.value {
        Some(tensor_value::Value::Strings(s)) => {
            count(s.values.len())?;
            Ok(Const::Strings(s.values.clone()))
        }
        Some(tensor_value::Value::Bytes(b)) => from_bytes(&b.values, code, shape, what),
        Some(tensor_value::Value::Floats(f)) => {
            count(f.values.len())?;
            let v: Vec<f64> = f.values.iter().map(|&x| x as f64).collect();
            Ok(Const::Tensor(Tensor::from_f64(dtype()?, shape, &v)))
        }
        Some(tensor_value::Value::Doubles(f)) => {
            count(f.values.len())?;
            Ok(Const::Tensor(Tensor::from_f64(dtype()?, shape, &f.values)))
        }
        Some(tensor_value::Value::Ints(i)) => {
            count(i.values.len())?;
            Ok(Const::Tensor(integers(dtype()?, shape, i.values.iter().map(|&x| x as i64))))
        }
        Some(tensor_value::Value::LongInts(i)) => {
            count(i.values.len())?;
            Ok(Const::Tensor(integers(dtype()?, shape, i.values.iter().copied())))
        }
        Some(tensor_value::Value::Bools(b)) => {
            count(b.values.len())?;
            Ok(Const::Tensor(integers(DType::Bool, shape, b.values.iter().map(|&x| x as i64))))
        }
        None => Err(format!("{what}: a tensor value without data")),
    }
}

/// A tensor of `dtype` from integers (wrapped to the type's width, as MIL's writers store them).
fn integers(dtype: DType, shape: Vec<usize>, values: impl Iterator<Item = i64>) -> Tensor {
    let size = dtype.size();
    let data = values.flat_map(|v| v.to_le_bytes().into_iter().take(size)).collect();
    Tensor { ty: xcc_frontend_onnx::graph::TensorType::new(dtype, shape), data }
}

/// A tensor from its stored bytes: half floats widened, sub-byte integers unpacked.
fn from_bytes(bytes: &[u8], code: i32, shape: Vec<usize>, what: &str) -> Result<Const, String> {
    let n: usize = shape.iter().product();
    let bits = stored_bits(code)
        .ok_or_else(|| format!("{what}: element type {} xcc does not compile", mil_type_name(code)))?;
    if bytes.len() != (n * bits).div_ceil(8) {
        return Err(format!("{what}: {} bytes for {n} elements of {}", bytes.len(), mil_type_name(code)));
    }
    let dtype = compute_dtype(code).expect("every stored type has a compute type");
    let tensor = match code {
        mil::FLOAT16 | mil::BFLOAT16 => {
            let v: Vec<f64> = bytes
                .chunks_exact(2)
                .map(|c| {
                    let h = u16::from_le_bytes([c[0], c[1]]);
                    if code == mil::FLOAT16 {
                        f16_bits_to_f32(h) as f64
                    } else {
                        f32::from_bits((h as u32) << 16) as f64
                    }
                })
                .collect();
            Tensor::from_f64(DType::F32, shape, &v)
        }
        _ if bits < 8 => {
            let signed = code == mil::INT4;
            integers(dtype, shape, unpack_bits(bytes, bits, n).map(|u| if signed && u >= 8 { u - 16 } else { u }))
        }
        _ => Tensor { ty: xcc_frontend_onnx::graph::TensorType::new(dtype, shape), data: bytes.to_vec() },
    };
    Ok(Const::Tensor(tensor))
}

/// `n` unsigned `bits`-wide values packed low bits first (the first value in the first byte's
/// lowest bits), as MIL stores its sub-byte types.
pub fn unpack_bits(bytes: &[u8], bits: usize, n: usize) -> impl Iterator<Item = i64> + '_ {
    (0..n).map(move |i| {
        let mut v = 0i64;
        for b in 0..bits {
            let at = i * bits + b;
            if bytes.get(at / 8).is_some_and(|byte| byte >> (at % 8) & 1 == 1) {
                v |= 1 << b;
            }
        }
        v
    })
}

impl Const {
    pub fn tensor(&self) -> Option<&Tensor> {
        match self {
            Const::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// Integer values (a scalar is one); `None` for strings and lists.
    pub fn ints(&self) -> Option<Vec<i64>> {
        self.tensor().map(|t| t.to_i64())
    }

    pub fn floats(&self) -> Option<Vec<f64>> {
        self.tensor().map(|t| t.to_f64())
    }

    /// The string of a scalar string value.
    pub fn string(&self) -> Option<&str> {
        match self {
            Const::Strings(s) if s.len() == 1 => Some(&s[0]),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_byte_values_unpack_low_bits_first() {
        // 2-bit values 1, 2, 3, 0 then 3: 0b00_11_10_01 = 0x39, then 0b11.
        let v: Vec<i64> = unpack_bits(&[0x39, 0x03], 2, 5).collect();
        assert_eq!(v, [1, 2, 3, 0, 3]);
        // 3-bit values cross byte boundaries: 5, 6, 7 = 101 110 111 -> bits 0..9 = 1,0,1, 0,1,1, 1,1,1.
        let v: Vec<i64> = unpack_bits(&[0b1111_0101, 0b0000_0001], 3, 3).collect();
        assert_eq!(v, [5, 6, 7]);
    }
}
