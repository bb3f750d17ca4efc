//! The ONNX graph after import: named values with static shapes, constants with their data, and
//! nodes bound to an opset version. Shape inference and constant folding fill in `values` and
//! `consts`; loop generation reads them.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use xcc_ir::Type;

pub use crate::data_dim::{DataDims, DataExpr};
pub use crate::dim::Dim;

pub use crate::error::{err, OResult, OnnxError};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    F32,
    F64,
    F16,
    BF16,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    Bool,
    /// The 8-bit floats ([`crate::float8`]): bytes, cast, quantized, dequantized and moved.
    F8E4M3FN,
    F8E4M3FNUZ,
    F8E5M2,
    F8E5M2FNUZ,
    /// The sub-byte types, one element per byte inside xcc and at its C interface (ONNX packs
    /// them two or four to a byte in its files): integers wrapped to their width, and
    /// FLOAT4E2M1 ([`crate::float4`]).
    U4,
    I4,
    U2,
    I2,
    F4E2M1,
    /// FLOAT8E8M0 ([`crate::float8e8m0`]): cast to and from, and moved.
    F8E8M0,
    /// STRING: each element a `const char *` (NUL-terminated UTF-8) at the C interface, its
    /// address (an i64) inside xcc ([`crate::strings`]); a constant's element is its index in
    /// the compile-time string table.
    Str,
}

impl DType {
    /// From `TensorProto.DataType`.
    pub fn from_onnx(code: i32) -> Option<DType> {
        Some(match code {
            1 => DType::F32,
            2 => DType::U8,
            3 => DType::I8,
            4 => DType::U16,
            5 => DType::I16,
            6 => DType::I32,
            7 => DType::I64,
            9 => DType::Bool,
            10 => DType::F16,
            11 => DType::F64,
            12 => DType::U32,
            13 => DType::U64,
            16 => DType::BF16,
            17 => DType::F8E4M3FN,
            18 => DType::F8E4M3FNUZ,
            19 => DType::F8E5M2,
            20 => DType::F8E5M2FNUZ,
            21 => DType::U4,
            22 => DType::I4,
            23 => DType::F4E2M1,
            25 => DType::U2,
            26 => DType::I2,
            8 => DType::Str,
            24 => DType::F8E8M0,
            _ => return None,
        })
    }

    /// `TensorProto.DataType` (the inverse of [`DType::from_onnx`]).
    pub fn onnx_code(self) -> i32 {
        match self {
            DType::F32 => 1,
            DType::U8 => 2,
            DType::I8 => 3,
            DType::I16 => 5,
            DType::I32 => 6,
            DType::I64 => 7,
            DType::Bool => 9,
            DType::F16 => 10,
            DType::F64 => 11,
            DType::U16 => 4,
            DType::U32 => 12,
            DType::U64 => 13,
            DType::BF16 => 16,
            DType::F8E4M3FN => 17,
            DType::F8E4M3FNUZ => 18,
            DType::F8E5M2 => 19,
            DType::F8E5M2FNUZ => 20,
            DType::U4 => 21,
            DType::I4 => 22,
            DType::F4E2M1 => 23,
            DType::U2 => 25,
            DType::I2 => 26,
            DType::Str => 8,
            DType::F8E8M0 => 24,
        }
    }

    pub fn onnx_name(code: i32) -> &'static str {
        match code {
            0 => "UNDEFINED",
            1 => "FLOAT",
            2 => "UINT8",
            3 => "INT8",
            4 => "UINT16",
            5 => "INT16",
            6 => "INT32",
            7 => "INT64",
            8 => "STRING",
            9 => "BOOL",
            10 => "FLOAT16",
            11 => "DOUBLE",
            12 => "UINT32",
            13 => "UINT64",
            14 => "COMPLEX64",
            15 => "COMPLEX128",
            16 => "BFLOAT16",
            17..=20 => "FLOAT8",
            21 => "UINT4",
            22 => "INT4",
            23 => "FLOAT4E2M1",
            24 => "FLOAT8E8M0",
            _ => "unknown",
        }
    }

    pub fn size(self) -> usize {
        match self {
            DType::F64 | DType::I64 | DType::U64 | DType::Str => 8,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::I8 | DType::U8 | DType::Bool => 1,
            DType::F8E4M3FN | DType::F8E4M3FNUZ | DType::F8E5M2 | DType::F8E5M2FNUZ => 1,
            DType::U4 | DType::I4 | DType::U2 | DType::I2 | DType::F4E2M1 | DType::F8E8M0 => 1,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64 | DType::F16 | DType::BF16)
    }

    /// Whether its values are reals (not integers): the float types, and the 8- and 4-bit float
    /// formats xcc casts to and from.
    pub fn is_real(self) -> bool {
        self.is_float() || self.float8().is_some() || matches!(self, DType::F4E2M1 | DType::F8E8M0)
    }

    /// The 8-bit float format, for the float8 types.
    pub fn float8(self) -> Option<crate::float8::Float8> {
        use crate::float8::*;
        match self {
            DType::F8E4M3FN => Some(E4M3FN),
            DType::F8E4M3FNUZ => Some(E4M3FNUZ),
            DType::F8E5M2 => Some(E5M2),
            DType::F8E5M2FNUZ => Some(E5M2FNUZ),
            _ => None,
        }
    }

    /// The bits per element of a sub-byte type (as ONNX packs them in its files).
    pub fn packed_bits(self) -> Option<usize> {
        match self {
            DType::U4 | DType::I4 | DType::F4E2M1 => Some(4),
            DType::U2 | DType::I2 => Some(2),
            _ => None,
        }
    }

    /// Whether integer operations on it are unsigned (division, comparison, widening, min and
    /// max): the uint types, and bool.
    pub fn is_unsigned(self) -> bool {
        matches!(self, DType::U8 | DType::U16 | DType::U32 | DType::U64 | DType::Bool | DType::U4 | DType::U2)
    }

    /// The element type in xcc's IR. float16 and bfloat16 are stored as themselves but computed in f32.
    pub fn ir_type(self) -> Type {
        match self {
            DType::F32 => Type::f32(),
            DType::F64 => Type::Float(xcc_ir::types::FloatKind::F64),
            DType::F16 => Type::Float(xcc_ir::types::FloatKind::F16),
            DType::BF16 => Type::Float(xcc_ir::types::FloatKind::BF16),
            DType::I8 | DType::U8 => Type::i8(),
            DType::F8E4M3FN | DType::F8E4M3FNUZ | DType::F8E5M2 | DType::F8E5M2FNUZ => Type::i8(),
            DType::U4 | DType::I4 | DType::U2 | DType::I2 | DType::F4E2M1 | DType::F8E8M0 => Type::i8(),
            DType::I16 | DType::U16 => Type::int(16),
            DType::I32 | DType::U32 => Type::i32(),
            DType::I64 | DType::U64 | DType::Str => Type::i64(),
            DType::Bool => Type::i1(),
        }
    }

    pub fn c_type(self) -> &'static str {
        match self {
            DType::F32 => "float",
            DType::F64 => "double",
            DType::F16 | DType::BF16 => "uint16_t",
            DType::I8 => "int8_t",
            DType::U8 => "uint8_t",
            DType::F8E4M3FN | DType::F8E4M3FNUZ | DType::F8E5M2 | DType::F8E5M2FNUZ => "uint8_t",
            DType::U4 | DType::U2 | DType::F4E2M1 | DType::F8E8M0 => "uint8_t",
            DType::I4 | DType::I2 => "int8_t",
            DType::U16 => "uint16_t",
            DType::U32 => "uint32_t",
            DType::U64 => "uint64_t",
            DType::I16 => "int16_t",
            DType::I32 => "int32_t",
            DType::I64 => "int64_t",
            DType::Bool => "bool",
            DType::Str => "char *",
        }
    }

    /// The element as the model's C interface names it.
    pub fn abi(self) -> xcc_abi::Element {
        let kind = if self == DType::Str {
            xcc_abi::ElementKind::String
        } else if self.packed_bits().is_some() {
            xcc_abi::ElementKind::Packed
        } else if self.float8().is_some() {
            xcc_abi::ElementKind::Float8
        } else {
            xcc_abi::ElementKind::Plain
        };
        xcc_abi::Element { name: self.name(), c_type: self.c_type(), bytes: self.size(), kind }
    }

    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::I8 => "int8",
            DType::U8 => "uint8",
            DType::F8E4M3FN => "float8e4m3fn",
            DType::F8E4M3FNUZ => "float8e4m3fnuz",
            DType::F8E5M2 => "float8e5m2",
            DType::F8E5M2FNUZ => "float8e5m2fnuz",
            DType::U4 => "uint4",
            DType::I4 => "int4",
            DType::U2 => "uint2",
            DType::I2 => "int2",
            DType::F4E2M1 => "float4e2m1",
            DType::F8E8M0 => "float8e8m0",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::Bool => "bool",
            DType::Str => "string",
        }
    }
}

/// A tensor's type: element type and dims.
///
/// Dims known at compile time are `shape`. A tensor with a dim known only at run time also has
/// `symbolic`, every dim as an expression of the model's dim symbols, and then `shape` holds 0
/// for each such dim: only operators that take run-time dims read such a type (the others are
/// refused before they see it, [`crate::ops::OnnxOp::takes_run_time_dims`]), and they read
/// [`TensorType::dims`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorType {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub symbolic: Option<Vec<Dim>>,
}

impl TensorType {
    /// A type with every dim known at compile time.
    pub fn new(dtype: DType, shape: Vec<usize>) -> TensorType {
        TensorType { dtype, shape, symbolic: None }
    }

    /// A type from dims that may be expressions of symbols (static when none is).
    pub fn with_dims(dtype: DType, dims: Vec<Dim>) -> TensorType {
        let shape: Vec<usize> = dims.iter().map(|d| d.as_fixed().unwrap_or(0)).collect();
        let symbolic = dims.iter().any(|d| !d.is_fixed()).then_some(dims);
        TensorType { dtype, shape, symbolic }
    }

    /// Every dim, as an expression (a number for the static ones).
    pub fn dims(&self) -> Vec<Dim> {
        match &self.symbolic {
            Some(d) => d.clone(),
            None => self.shape.iter().map(|&n| Dim::fixed(n)).collect(),
        }
    }

    /// Whether some dim is known only at run time.
    pub fn is_dynamic(&self) -> bool {
        self.symbolic.is_some()
    }

    /// `float32 [1, seq, 256]` for messages.
    pub fn describe(&self) -> String {
        format!("{} {}", self.dtype.name(), crate::dim::dims_text(&self.dims()))
    }

    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The tensor as the model's C interface describes it.
    pub fn abi(&self) -> xcc_abi::Tensor {
        let dim = |d: &Dim| xcc_abi::Dim {
            c: d.to_string(),
            symbols: d.symbols().iter().map(|s| s.to_string()).collect(),
            fixed: d.as_fixed(),
        };
        xcc_abi::Tensor { element: self.dtype.abi(), dims: self.dims().iter().map(dim).collect() }
    }
    pub fn bytes(&self) -> usize {
        self.numel() * self.dtype.size()
    }
}

/// Constant tensor data, little-endian, row-major. Bool is one byte per element.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub ty: TensorType,
    pub data: Vec<u8>,
}

impl Tensor {
    pub fn from_i64(shape: Vec<usize>, values: &[i64]) -> Tensor {
        Tensor { ty: TensorType::new(DType::I64, shape), data: values.iter().flat_map(|v| v.to_le_bytes()).collect() }
    }

    pub fn from_f64(dtype: DType, shape: Vec<usize>, values: &[f64]) -> Tensor {
        let mut data = Vec::with_capacity(values.len() * dtype.size());
        for &v in values {
            match dtype {
                DType::F32 => data.extend((v as f32).to_le_bytes()),
                DType::F64 => data.extend(v.to_le_bytes()),
                DType::F16 => data.extend(f32_to_f16_bits(v as f32).to_le_bytes()),
                DType::BF16 => data.extend(f32_to_bf16_bits(v as f32).to_le_bytes()),
                DType::I8 => data.push(v as i8 as u8),
                DType::U8 => data.push(v as u8),
                DType::U4 | DType::I4 | DType::U2 | DType::I2 => data.push(wrap_to_width(v, dtype)),
                DType::F4E2M1 => data.push(crate::float4::encode(v as f32)),
                DType::F8E8M0 => data.push(crate::float8e8m0::encode(v as f32, true, crate::float8e8m0::Rounding::Up)),
                d @ (DType::F8E4M3FN | DType::F8E4M3FNUZ | DType::F8E5M2 | DType::F8E5M2FNUZ) => {
                    data.push(d.float8().expect("a float8 type").encode(v as f32, true))
                }
                DType::U16 => data.extend((v as u16).to_le_bytes()),
                DType::U32 => data.extend((v as u32).to_le_bytes()),
                DType::U64 => data.extend((v as u64).to_le_bytes()),
                DType::Bool => data.push((v != 0.0) as u8),
                DType::I16 => data.extend((v as i16).to_le_bytes()),
                DType::I32 => data.extend((v as i32).to_le_bytes()),
                DType::I64 | DType::Str => data.extend((v as i64).to_le_bytes()),
            }
        }
        Tensor { ty: TensorType::new(dtype, shape), data }
    }

    /// Elements widened to f64 (exact for every integer a shape can hold).
    pub fn to_f64(&self) -> Vec<f64> {
        let d = &self.data;
        let n = self.ty.numel();
        (0..n)
            .map(|i| match self.ty.dtype {
                DType::F32 => f32::from_le_bytes(d[i * 4..i * 4 + 4].try_into().unwrap()) as f64,
                DType::F64 => f64::from_le_bytes(d[i * 8..i * 8 + 8].try_into().unwrap()),
                DType::F16 => f16_bits_to_f32(u16::from_le_bytes(d[i * 2..i * 2 + 2].try_into().unwrap())) as f64,
                DType::BF16 => {
                    f32::from_bits((u16::from_le_bytes(d[i * 2..i * 2 + 2].try_into().unwrap()) as u32) << 16) as f64
                }
                DType::I8 => d[i] as i8 as f64,
                DType::U8 | DType::Bool | DType::U4 | DType::U2 => d[i] as f64,
                DType::I4 | DType::I2 => d[i] as i8 as f64,
                DType::F4E2M1 => crate::float4::decode(d[i]) as f64,
                DType::F8E8M0 => crate::float8e8m0::decode(d[i]) as f64,
                t @ (DType::F8E4M3FN | DType::F8E4M3FNUZ | DType::F8E5M2 | DType::F8E5M2FNUZ) => {
                    t.float8().expect("a float8 type").decode(d[i]) as f64
                }
                DType::U16 => u16::from_le_bytes(d[i * 2..i * 2 + 2].try_into().unwrap()) as f64,
                DType::U32 => u32::from_le_bytes(d[i * 4..i * 4 + 4].try_into().unwrap()) as f64,
                DType::U64 => u64::from_le_bytes(d[i * 8..i * 8 + 8].try_into().unwrap()) as f64,
                DType::I16 => i16::from_le_bytes(d[i * 2..i * 2 + 2].try_into().unwrap()) as f64,
                DType::I32 => i32::from_le_bytes(d[i * 4..i * 4 + 4].try_into().unwrap()) as f64,
                DType::I64 | DType::Str => i64::from_le_bytes(d[i * 8..i * 8 + 8].try_into().unwrap()) as f64,
            })
            .collect()
    }

    pub fn to_i64(&self) -> Vec<i64> {
        if self.ty.dtype == DType::I64 {
            return self.data.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
        }
        self.to_f64().into_iter().map(|v| v as i64).collect()
    }
}

/// An integer value of a sub-byte type, wrapped to its width as a cast does (int4: -9 is 7),
/// as the byte xcc keeps it in (sign-extended for the signed ones).
pub fn wrap_to_width(v: f64, dtype: DType) -> u8 {
    let bits = dtype.packed_bits().unwrap_or(8) as u32;
    let low = (v as i64 as u64 & ((1 << bits) - 1)) as u8;
    if dtype.is_unsigned() {
        low
    } else {
        ((low << (8 - bits)) as i8 >> (8 - bits)) as u8
    }
}

pub fn f16_bits_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let frac = (h & 0x3ff) as u32;
    let bits = match exp {
        0 if frac == 0 => sign,
        0 => {
            // Subnormal: normalize.
            let mut e = 127 - 15 + 1;
            let mut f = frac;
            while f & 0x400 == 0 {
                f <<= 1;
                e -= 1;
            }
            sign | ((e as u32) << 23) | ((f & 0x3ff) << 13)
        }
        31 => sign | 0x7f80_0000 | (frac << 13),
        _ => sign | ((exp + 127 - 15) << 23) | (frac << 13),
    };
    f32::from_bits(bits)
}

/// The bfloat16 nearest `v` (ties to even; a NaN stays a quiet NaN).
pub fn f32_to_bf16_bits(v: f32) -> u16 {
    let b = v.to_bits();
    if v.is_nan() {
        return ((b >> 16) | 0x40) as u16;
    }
    let round = 0x7fff + ((b >> 16) & 1);
    (b.wrapping_add(round) >> 16) as u16
}

pub fn f32_to_f16_bits(v: f32) -> u16 {
    let b = v.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let frac = b & 0x7f_ffff;
    if exp == 255 {
        return sign | 0x7c00 | if frac != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 31 {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = (frac | 0x80_0000) >> (1 - e);
        let round = (m >> 12) & 1;
        return sign | ((m >> 13) + round) as u16;
    }
    let mut h = sign as u32 | ((e as u32) << 10) | (frac >> 13);
    let rest = frac & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && (h & 1) == 1) {
        h += 1;
    }
    h as u16
}

#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    Int(i64),
    Float(f32),
    Ints(Vec<i64>),
    Floats(Vec<f32>),
    Str(String),
    Strs(Vec<String>),
    Tensor(Tensor),
    /// A control-flow body (If's branches, Loop's and Scan's bodies).
    Graph(Box<Subgraph>),
}

/// A graph attribute: its formal inputs and outputs by name, its nodes, and its initializers.
/// Names it reads and does not define come from the enclosing graphs.
#[derive(Clone, Debug, PartialEq)]
pub struct Subgraph {
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    pub nodes: Vec<Node>,
    pub consts: Vec<(String, Tensor)>,
}

impl Subgraph {
    /// The names the body reads from enclosing graphs (also those its own bodies read), in the
    /// order first met.
    pub fn free_names(&self) -> Vec<String> {
        let mut defined: std::collections::HashSet<&str> = self.inputs.iter().map(String::as_str).collect();
        defined.extend(self.consts.iter().map(|(n, _)| n.as_str()));
        for n in &self.nodes {
            defined.extend(n.outputs.iter().map(String::as_str));
        }
        let mut free: Vec<String> = Vec::new();
        let add = |name: &str, free: &mut Vec<String>| {
            if !name.is_empty() && !defined.contains(name) && !free.iter().any(|f| f == name) {
                free.push(name.to_string());
            }
        };
        for n in &self.nodes {
            for i in &n.inputs {
                add(i, &mut free);
            }
            for name in n.implicit_inputs() {
                add(&name, &mut free);
            }
        }
        for o in &self.outputs {
            add(o, &mut free);
        }
        free
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub name: String,
    pub op: String,
    pub domain: String,
    /// Empty strings are absent optional inputs.
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    pub attrs: BTreeMap<String, Attr>,
    /// The opset version the node binds to (the model's import for its domain).
    pub opset: i64,
    /// Where the node runs only on a condition (it is in a branch of an If whose condition the
    /// run computes before the kernels): that condition, nonzero when the node runs. Its shape
    /// rules' conditions hold only then, and its dims are 0 otherwise ([`DataDims::guard`]).
    pub guard: Option<DataExpr>,
}

impl Node {
    /// `node 'NAME' (Op)` for messages.
    pub fn describe(&self) -> String {
        if self.name.is_empty() {
            format!("{} node producing '{}'", self.op, self.outputs.first().map(String::as_str).unwrap_or("?"))
        } else {
            format!("{} node '{}'", self.op, self.name)
        }
    }
    pub fn int(&self, name: &str, default: i64) -> i64 {
        match self.attrs.get(name) {
            Some(Attr::Int(v)) => *v,
            _ => default,
        }
    }
    pub fn float(&self, name: &str, default: f32) -> f32 {
        match self.attrs.get(name) {
            Some(Attr::Float(v)) => *v,
            Some(Attr::Int(v)) => *v as f32,
            _ => default,
        }
    }
    pub fn ints(&self, name: &str) -> Option<Vec<i64>> {
        match self.attrs.get(name) {
            Some(Attr::Ints(v)) => Some(v.clone()),
            _ => None,
        }
    }
    pub fn string(&self, name: &str) -> Option<&str> {
        match self.attrs.get(name) {
            Some(Attr::Str(s)) => Some(s),
            _ => None,
        }
    }
    /// The names a node's bodies read from the graph around it: its inputs that are not listed.
    pub fn implicit_inputs(&self) -> Vec<String> {
        let mut names = Vec::new();
        for a in self.attrs.values() {
            if let Attr::Graph(body) = a {
                for name in body.free_names() {
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
            }
        }
        names
    }

    pub fn input(&self, i: usize) -> Option<&str> {
        self.inputs.get(i).map(String::as_str).filter(|s| !s.is_empty())
    }
}

#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub name: String,
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    pub nodes: Vec<Node>,
    /// Initializers, `Constant` outputs and folded values.
    pub consts: HashMap<String, Tensor>,
    /// The type of every value (inputs, node outputs, constants).
    pub types: HashMap<String, TensorType>,
    /// Integer tensors whose elements are dims known only at run time: shapes and pieces of
    /// them (`Shape -> Gather -> Concat`), folded like constants ([`ShapeValue`]).
    pub shape_values: HashMap<String, ShapeValue>,
    /// The dim symbols left to run time, in the order the run functions take them.
    pub symbols: Vec<String>,
    /// The model's name for each symbol that is not its C name (`a-b` for `a_b_2`).
    pub symbol_sources: HashMap<String, String>,
    /// `(min, max)` of the symbols given a range (`--dim seq=1..2048`); the others are at least 0.
    pub bounds: HashMap<String, (usize, usize)>,
    /// Dims decided by input data, defined by the shape rules that meet them (inference reads
    /// the graph shared, hence the cell).
    pub data_dims: RefCell<DataDims>,
    /// The sequences built in the graph, each as its elements' tensor names
    /// ([`crate::ops::sequence`]).
    pub sequences: RefCell<HashMap<String, Vec<String>>>,
    /// The graph inputs of optional type, which a run may be given as NULL: read only by
    /// OptionalHasElement and OptionalGetElement ([`crate::ops::control::optional`]).
    pub optional_inputs: std::collections::BTreeSet<String>,
    /// `--fold-budget`: the bytes that nodes of constants may fold into at compile time (by
    /// default [`crate::infer::default_fold_budget`]); past it, large ones run at run time.
    pub fold_budget: Option<usize>,
    /// The nodes unrolled Loops may still make, shared by the graph and every body inside it.
    pub unroll_budget: UnrollBudget,
    /// The body graphs of the Loops lowered at run time, inferred once each (by the Loop's
    /// outputs and its inputs' types): inferring a body again for each question asked of it
    /// made nested Loops cost exponentially in their depth.
    pub loop_bodies: RefCell<HashMap<String, std::rc::Rc<Graph>>>,
}

/// The nodes that unrolling Loops may add to a model in all (bodies of Loops inside Loops
/// included, however often they are inferred): past it, a Loop runs as a loop at run time. A
/// budget per Loop let 21 nested Loops of 2 iterations run for over ten minutes.
#[derive(Clone, Debug)]
pub struct UnrollBudget(pub std::rc::Rc<std::cell::Cell<usize>>);

/// [`UnrollBudget`]'s nodes: a Loop of 4,096 iterations over a body of 4 nodes (about 2 s of
/// compile).
pub const UNROLLED_NODES: usize = 1 << 14;

impl Default for UnrollBudget {
    fn default() -> Self {
        UnrollBudget(std::rc::Rc::new(std::cell::Cell::new(UNROLLED_NODES)))
    }
}

impl UnrollBudget {
    /// Takes `nodes` from the budget when it has them.
    pub fn take(&self, nodes: usize) -> bool {
        let left = self.0.get();
        if nodes > left {
            return false;
        }
        self.0.set(left - nodes);
        true
    }
}

/// The largest value of a symbol without a range: a run refuses more (`XCC_ERROR_BAD_DIM`), as
/// any tensor with such a dim would pass the 2^44 bytes a run accepts.
pub const MAX_DIM: usize = 1 << 44;

/// An integer tensor of rank 0 or 1 whose elements are dim expressions: what Shape returns for
/// a tensor with run-time dims, and what Gather, Slice, Concat, Cast and integer arithmetic make
/// of it. Operators that take a shape (Reshape, Expand, ConstantOfShape, Range) read it as
/// dims; any other reader gets a buffer filled at run time.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeValue {
    pub dtype: DType,
    /// `[]` for a scalar, `[n]` for a vector.
    pub shape: Vec<usize>,
    pub values: Vec<Dim>,
}

impl ShapeValue {
    pub fn vector(dtype: DType, values: Vec<Dim>) -> ShapeValue {
        ShapeValue { dtype, shape: vec![values.len()], values }
    }

    /// A constant integer tensor of rank 0 or 1 as a shape value; `None` for anything else.
    pub fn of_const(t: &Tensor) -> Option<ShapeValue> {
        let int = matches!(t.ty.dtype, DType::I64 | DType::I32 | DType::I16 | DType::I8 | DType::U8 | DType::Bool);
        (int && t.ty.shape.len() <= 1).then(|| ShapeValue {
            dtype: t.ty.dtype,
            shape: t.ty.shape.clone(),
            values: t.to_i64().into_iter().map(Dim::constant).collect(),
        })
    }

    /// The constant tensor, when every element is a number.
    pub fn as_const(&self) -> Option<Tensor> {
        let v: Vec<i64> = self.values.iter().map(Dim::as_const).collect::<Option<_>>()?;
        Some(match self.dtype {
            DType::I64 => Tensor::from_i64(self.shape.clone(), &v),
            d => Tensor::from_f64(d, self.shape.clone(), &v.iter().map(|&x| x as f64).collect::<Vec<_>>()),
        })
    }

    pub fn ty(&self) -> TensorType {
        TensorType::new(self.dtype, self.shape.clone())
    }
}

/// The symbol of dim `k` of tensor `out` when its operator finds it.
pub fn found_dim_name(out: &str, k: usize) -> String {
    format!("{out}.{k}")
}

impl Graph {
    /// A dim whose value the run computes from its inputs ([`DataDims::define`]).
    pub fn data_dim(&self, name: String, x: DataExpr) -> Dim {
        let x = self.simplify(&x);
        self.data_dims.borrow_mut().define(name, x)
    }

    /// `x` as a dim: itself where the ranges make it one, else a dim named `name` that the run
    /// computes before the kernels need it.
    pub fn dim_of(&self, x: &DataExpr, name: String) -> Dim {
        match self.simplify(x) {
            DataExpr::Dim(d) => d,
            x => self.data_dim(name, x),
        }
    }

    /// Dim `k` of tensor `out`, which its operator finds when it runs, at most `capacity`
    /// ([`DataDims::find`]); the operator defines it under [`found_dim_name`].
    pub fn found_dim(&self, out: &str, k: usize, capacity: Dim) -> Dim {
        self.data_dims.borrow_mut().find(found_dim_name(out, k), capacity)
    }

    /// A condition every run checks of its shape inputs ([`DataDims::require`]).
    pub fn require(&self, holds: DataExpr, what: impl Into<String>) -> OResult<()> {
        let holds = self.simplify(&holds);
        self.data_dims.borrow_mut().require(holds, what).map_err(OnnxError::msg)
    }

    /// A condition every run checks of values the compiled model does not support
    /// ([`DataDims::require_supported`]).
    pub fn require_supported(&self, holds: DataExpr, what: impl Into<String>) -> OResult<()> {
        let holds = self.simplify(&holds);
        self.data_dims.borrow_mut().require_supported(holds, what).map_err(OnnxError::msg)
    }

    /// The values symbol `s` may take in a run: its range (`--dim seq=1..2048`), else 1 to
    /// [`MAX_DIM`] (the run refuses others), 0 included: an empty cache, batch or sequence; a
    /// data dim, 0 or more.
    pub fn symbol_range(&self, s: &str) -> (i128, i128) {
        match self.bounds.get(s) {
            Some(&(lo, hi)) => (lo as i128, hi as i128),
            None if self.symbols.iter().any(|x| x == s) => (0, MAX_DIM as i128),
            None => (0, i64::MAX as i128),
        }
    }

    /// `x` with what the symbols' ranges decide decided ([`DataExpr::simplify`]).
    pub fn simplify(&self, x: &DataExpr) -> DataExpr {
        x.simplify(&|s| self.symbol_range(s))
    }

    /// Refuses dense constants of `elements` values of `dtype` (`None`: a count that overflows)
    /// past the bytes constants may take (`--fold-budget`), saying what they were for: an
    /// expansion that sizes a constant by an attribute's value must not let one value ask for
    /// terabytes.
    pub fn constant_fits(&self, elements: Option<usize>, dtype: DType, what: &str) -> OResult<()> {
        let budget = self.fold_budget.unwrap_or(crate::FOLD_BUDGET_BASE);
        match elements.and_then(|e| e.checked_mul(dtype.size().max(1))) {
            Some(bytes) if bytes <= budget => Ok(()),
            _ => err(format!(
                "{what} would take more than the {budget} bytes constants may take (raise it with --fold-budget)"
            )),
        }
    }

    pub fn ty(&self, name: &str) -> OResult<&TensorType> {
        match self.types.get(name) {
            Some(t) => Ok(t),
            None => err(format!("tensor '{name}' has no known type")),
        }
    }
}
