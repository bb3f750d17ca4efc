//! The type system: builtin types (integers, index, floats, vectors, tensors, memrefs, functions,
//! tuples, none) and the llvm dialect's types (`!llvm.ptr`, `!llvm.struct<...>`, `!llvm.array<...>`).

use crate::affine::AffineMap;
use crate::attributes::Attribute;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Signedness {
    Signless,
    Signed,
    Unsigned,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatKind {
    F16,
    BF16,
    F32,
    F64,
}

impl FloatKind {
    pub fn width(self) -> u32 {
        match self {
            FloatKind::F16 | FloatKind::BF16 => 16,
            FloatKind::F32 => 32,
            FloatKind::F64 => 64,
        }
    }
}

/// A memref's mapping from indices to a linear position in its buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Row-major, contiguous.
    Identity,
    /// `strided<[s0, s1], offset: o>`; `None` is a dynamic (`?`) entry.
    Strided { offset: Option<i64>, strides: Vec<Option<i64>> },
    /// A general affine layout map.
    Map(AffineMap),
}

#[derive(Clone, Debug, PartialEq)]
pub struct MemRefType {
    /// `None` is a dynamic (`?`) dimension.
    pub shape: Vec<Option<u64>>,
    pub elem: Box<Type>,
    pub layout: Layout,
    pub memory_space: Option<Box<Attribute>>,
}

impl Eq for MemRefType {}

impl MemRefType {
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Static offset and strides in elements (`None` for dynamic entries), or `None` for a
    /// non-strided affine layout.
    pub fn strides_and_offset(&self) -> Option<(Vec<Option<i64>>, Option<i64>)> {
        match &self.layout {
            Layout::Identity => Some((identity_strides(&self.shape), Some(0))),
            Layout::Strided { offset, strides } => Some((strides.clone(), *offset)),
            Layout::Map(map) if map.is_identity() => Some((identity_strides(&self.shape), Some(0))),
            // A map with symbols (a view's window) is resolved when the view is made: its offset
            // and strides live in the descriptor, as for `strided<[?, ?], offset: ?>`.
            Layout::Map(map) if map.num_symbols > 0 => Some((vec![None; self.shape.len()], None)),
            Layout::Map(map) => strides_of_affine_map(map),
        }
    }
}

/// Row-major strides; an entry is dynamic once any dimension to its right is.
pub fn identity_strides(shape: &[Option<u64>]) -> Vec<Option<i64>> {
    let mut strides = vec![Some(1i64); shape.len()];
    let mut running = Some(1i64);
    for i in (0..shape.len()).rev() {
        strides[i] = running;
        running = match (running, shape[i]) {
            (Some(r), Some(d)) => r.checked_mul(d as i64),
            _ => None,
        };
    }
    strides
}

/// Recognizes `(d0, .., dn) -> (sum_i d_i * c_i + c)`-shaped single-result maps and per-dim maps
/// `(d0, d1) -> (d0 * a + o0, d1 * b)` as strided layouts over a contiguous buffer.
fn strides_of_affine_map(map: &AffineMap) -> Option<(Vec<Option<i64>>, Option<i64>)> {
    use crate::affine::AffineExpr as E;
    fn linear(e: &E, coeffs: &mut [i64], constant: &mut i64, scale: i64) -> Option<()> {
        match e {
            E::Dim(i) => coeffs[*i as usize] += scale,
            E::Const(c) => *constant += c * scale,
            E::Add(a, b) => {
                linear(a, coeffs, constant, scale)?;
                linear(b, coeffs, constant, scale)?;
            }
            E::Mul(a, b) => match (&**a, &**b) {
                (x, E::Const(c)) | (E::Const(c), x) => linear(x, coeffs, constant, scale * c)?,
                _ => return None,
            },
            _ => return None,
        }
        Some(())
    }
    if map.num_symbols != 0 {
        return None;
    }
    let n = map.num_dims as usize;
    if map.results.len() == 1 {
        let mut coeffs = vec![0; n];
        let mut constant = 0;
        linear(&map.results[0], &mut coeffs, &mut constant, 1)?;
        return Some((coeffs.into_iter().map(Some).collect(), Some(constant)));
    }
    None
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionType {
    pub inputs: Vec<Type>,
    pub results: Vec<Type>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    Integer {
        width: u32,
        signedness: Signedness,
    },
    Index,
    Float(FloatKind),
    Vector {
        shape: Vec<u64>,
        elem: Box<Type>,
    },
    /// `shape: None` is an unranked tensor (`tensor<*xf32>`).
    Tensor {
        shape: Option<Vec<Option<u64>>>,
        elem: Box<Type>,
    },
    MemRef(MemRefType),
    UnrankedMemRef {
        elem: Box<Type>,
        memory_space: Option<Box<Attribute>>,
    },
    Function(FunctionType),
    Tuple(Vec<Type>),
    None,
    /// `!llvm.ptr` / `!llvm.ptr<1>`.
    LlvmPtr {
        address_space: u32,
    },
    LlvmVoid,
    LlvmStruct {
        packed: bool,
        fields: Vec<Type>,
    },
    LlvmArray {
        len: u64,
        elem: Box<Type>,
    },
    LlvmFunc {
        result: Box<Type>,
        params: Vec<Type>,
        vararg: bool,
    },
    /// Any other dialect type, kept as its text (`!tf<"string">`, `!foo.bar`).
    Opaque {
        dialect: String,
        body: String,
    },
}

impl Eq for Type {}

impl Type {
    pub fn int(width: u32) -> Type {
        Type::Integer { width, signedness: Signedness::Signless }
    }
    pub fn i1() -> Type {
        Type::int(1)
    }
    pub fn i8() -> Type {
        Type::int(8)
    }
    pub fn i16() -> Type {
        Type::int(16)
    }
    pub fn i32() -> Type {
        Type::int(32)
    }
    pub fn i64() -> Type {
        Type::int(64)
    }
    pub fn f32() -> Type {
        Type::Float(FloatKind::F32)
    }
    pub fn ptr() -> Type {
        Type::LlvmPtr { address_space: 0 }
    }

    pub fn is_integer(&self) -> bool {
        matches!(self, Type::Integer { .. })
    }
    pub fn is_index(&self) -> bool {
        matches!(self, Type::Index)
    }
    pub fn is_float(&self) -> bool {
        matches!(self, Type::Float(_))
    }
    pub fn is_signless_int_or_index(&self) -> bool {
        matches!(self, Type::Integer { signedness: Signedness::Signless, .. } | Type::Index)
    }
    pub fn int_width(&self) -> Option<u32> {
        match self {
            Type::Integer { width, .. } => Some(*width),
            _ => None,
        }
    }

    /// The element type of a vector or tensor, or the type itself for a scalar.
    pub fn element_or_self(&self) -> &Type {
        match self {
            Type::Vector { elem, .. } | Type::Tensor { elem, .. } => elem,
            t => t,
        }
    }

    /// The shape of a vector or tensor (`Some(vec![])` for a scalar); used to check that
    /// elementwise operands agree.
    pub fn container_shape(&self) -> Option<Vec<Option<u64>>> {
        match self {
            Type::Vector { shape, .. } => Some(shape.iter().map(|&d| Some(d)).collect()),
            Type::Tensor { shape, .. } => shape.clone(),
            _ => Some(Vec::new()),
        }
    }

    /// The same container with another element type (`vector<4xi32>` -> `vector<4xi1>`).
    pub fn with_element(&self, elem: Type) -> Type {
        match self {
            Type::Vector { shape, .. } => Type::Vector { shape: shape.clone(), elem: Box::new(elem) },
            Type::Tensor { shape, .. } => Type::Tensor { shape: shape.clone(), elem: Box::new(elem) },
            _ => elem,
        }
    }

    pub fn as_memref(&self) -> Option<&MemRefType> {
        match self {
            Type::MemRef(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_function(&self) -> Option<&FunctionType> {
        match self {
            Type::Function(f) => Some(f),
            _ => None,
        }
    }
}

fn fmt_list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, t) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{t}")?;
    }
    Ok(())
}

fn fmt_dims(f: &mut fmt::Formatter<'_>, shape: &[Option<u64>]) -> fmt::Result {
    for d in shape {
        match d {
            Some(d) => write!(f, "{d}x")?,
            None => write!(f, "?x")?,
        }
    }
    Ok(())
}

impl fmt::Display for FunctionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(")?;
        fmt_list(f, &self.inputs)?;
        write!(f, ") -> ")?;
        if self.results.len() == 1 && !matches!(self.results[0], Type::Function(_)) {
            write!(f, "{}", self.results[0])
        } else {
            write!(f, "(")?;
            fmt_list(f, &self.results)?;
            write!(f, ")")
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Integer { width, signedness } => match signedness {
                Signedness::Signless => write!(f, "i{width}"),
                Signedness::Signed => write!(f, "si{width}"),
                Signedness::Unsigned => write!(f, "ui{width}"),
            },
            Type::Index => f.write_str("index"),
            Type::Float(k) => f.write_str(match k {
                FloatKind::F16 => "f16",
                FloatKind::BF16 => "bf16",
                FloatKind::F32 => "f32",
                FloatKind::F64 => "f64",
            }),
            Type::Vector { shape, elem } => {
                write!(f, "vector<")?;
                for d in shape {
                    write!(f, "{d}x")?;
                }
                write!(f, "{elem}>")
            }
            Type::Tensor { shape: None, elem } => write!(f, "tensor<*x{elem}>"),
            Type::Tensor { shape: Some(shape), elem } => {
                write!(f, "tensor<")?;
                fmt_dims(f, shape)?;
                write!(f, "{elem}>")
            }
            Type::MemRef(m) => {
                write!(f, "memref<")?;
                fmt_dims(f, &m.shape)?;
                write!(f, "{}", m.elem)?;
                match &m.layout {
                    Layout::Identity => {}
                    Layout::Strided { offset, strides } => {
                        write!(f, ", strided<[")?;
                        for (i, s) in strides.iter().enumerate() {
                            if i > 0 {
                                write!(f, ", ")?;
                            }
                            match s {
                                Some(s) => write!(f, "{s}")?,
                                None => write!(f, "?")?,
                            }
                        }
                        write!(f, "]")?;
                        match offset {
                            Some(0) => {}
                            Some(o) => write!(f, ", offset: {o}")?,
                            None => write!(f, ", offset: ?")?,
                        }
                        write!(f, ">")?;
                    }
                    Layout::Map(map) => write!(f, ", affine_map<{map}>")?,
                }
                if let Some(space) = &m.memory_space {
                    write!(f, ", {space}")?;
                }
                write!(f, ">")
            }
            Type::UnrankedMemRef { elem, memory_space } => {
                write!(f, "memref<*x{elem}")?;
                if let Some(space) = memory_space {
                    write!(f, ", {space}")?;
                }
                write!(f, ">")
            }
            Type::Function(ft) => write!(f, "{ft}"),
            Type::Tuple(ts) => {
                write!(f, "tuple<")?;
                fmt_list(f, ts)?;
                write!(f, ">")
            }
            Type::None => f.write_str("none"),
            Type::LlvmPtr { address_space: 0 } => f.write_str("!llvm.ptr"),
            Type::LlvmPtr { address_space } => write!(f, "!llvm.ptr<{address_space}>"),
            Type::LlvmVoid => f.write_str("!llvm.void"),
            Type::LlvmStruct { packed, fields } => {
                write!(f, "!llvm.struct<{}(", if *packed { "packed " } else { "" })?;
                fmt_list(f, fields)?;
                write!(f, ")>")
            }
            Type::LlvmArray { len, elem } => write!(f, "!llvm.array<{len} x {elem}>"),
            Type::LlvmFunc { result, params, vararg } => {
                write!(f, "!llvm.func<{result} (")?;
                fmt_list(f, params)?;
                if *vararg {
                    write!(f, "{}...", if params.is_empty() { "" } else { ", " })?;
                }
                write!(f, ")>")
            }
            Type::Opaque { dialect, body } => write!(f, "!{dialect}{body}"),
        }
    }
}
