//! Attributes: compile-time constant data attached to operations.

use crate::affine::{AffineMap, IntegerSet};
use crate::types::Type;
use std::fmt;

/// The element values of a `dense<...>` attribute, flattened in row-major order.
/// A single value with a shaped type is a splat.
#[derive(Clone, Debug, PartialEq)]
pub enum DenseValues {
    Int(Vec<i128>),
    Float(Vec<f64>),
    Bool(Vec<bool>),
    /// `dense<"0x...">`: the raw little-endian bytes.
    Hex(Vec<u8>),
}

impl DenseValues {
    pub fn len(&self) -> usize {
        match self {
            DenseValues::Int(v) => v.len(),
            DenseValues::Float(v) => v.len(),
            DenseValues::Bool(v) => v.len(),
            DenseValues::Hex(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Attribute {
    Unit,
    Bool(bool),
    /// `42 : i32`; a bare integer literal has type i64.
    Integer {
        value: i128,
        ty: Type,
    },
    /// `1.5 : f32`; a bare float literal has type f64.
    Float {
        value: f64,
        ty: Type,
    },
    String(String),
    Type(Type),
    Array(Vec<Attribute>),
    Dict(Vec<(String, Attribute)>),
    Dense {
        values: DenseValues,
        ty: Type,
    },
    /// `array<i64: 1, 2>`.
    DenseArray {
        elem: Type,
        values: Vec<i128>,
    },
    /// `@root::@nested`.
    SymbolRef {
        root: String,
        nested: Vec<String>,
    },
    AffineMap(AffineMap),
    IntegerSet(IntegerSet),
    /// A bare keyword used as an enum value (e.g. a memory space `hbm`), or any dialect attribute
    /// kept as its text (`#llvm.linkage<internal>`).
    Opaque(String),
}

impl Attribute {
    pub fn int(value: i128, ty: Type) -> Attribute {
        Attribute::Integer { value, ty }
    }
    pub fn i64(value: i64) -> Attribute {
        Attribute::Integer { value: value as i128, ty: Type::i64() }
    }
    pub fn symbol(name: impl Into<String>) -> Attribute {
        Attribute::SymbolRef { root: name.into(), nested: Vec::new() }
    }
    pub fn as_int(&self) -> Option<i128> {
        match self {
            Attribute::Integer { value, .. } => Some(*value),
            Attribute::Bool(b) => Some(*b as i128),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Attribute::String(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_type(&self) -> Option<&Type> {
        match self {
            Attribute::Type(t) => Some(t),
            _ => None,
        }
    }
    pub fn as_symbol(&self) -> Option<&str> {
        match self {
            Attribute::SymbolRef { root, nested } if nested.is_empty() => Some(root),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<&[Attribute]> {
        match self {
            Attribute::Array(a) => Some(a),
            _ => None,
        }
    }
    pub fn as_affine_map(&self) -> Option<&AffineMap> {
        match self {
            Attribute::AffineMap(m) => Some(m),
            _ => None,
        }
    }
    /// The values of `array<i64: ...>` or of an array of integers.
    pub fn as_int_list(&self) -> Option<Vec<i128>> {
        match self {
            Attribute::DenseArray { values, .. } => Some(values.clone()),
            Attribute::Array(items) => items.iter().map(|a| a.as_int()).collect(),
            _ => None,
        }
    }
}

/// Formats a float of type `ty` (or of `ty`'s elements) so that parsing it back gives the same
/// bits: a NaN or an infinity as its bit pattern in `ty`'s width, as upstream prints them.
pub fn format_float(value: f64, ty: &Type) -> String {
    use crate::types::FloatKind;
    if value.is_finite() {
        let s = format!("{value:?}");
        return if s.contains(['.', 'e', 'E']) { s } else { format!("{s}.0") };
    }
    let negative = value.is_sign_negative();
    match ty.element_or_self() {
        Type::Float(FloatKind::F32) => format!("0x{:08X}", (value as f32).to_bits()),
        Type::Float(FloatKind::F16) => {
            let bits: u16 = if value.is_nan() { 0x7E00 } else { 0x7C00 };
            format!("0x{:04X}", bits | if negative { 0x8000 } else { 0 })
        }
        Type::Float(FloatKind::BF16) => {
            let bits: u16 = if value.is_nan() { 0x7FC0 } else { 0x7F80 };
            format!("0x{:04X}", bits | if negative { 0x8000 } else { 0 })
        }
        _ => format!("0x{:016X}", value.to_bits()),
    }
}

pub fn quote_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:02X}")),
        }
    }
    out.push('"');
    out
}

/// Symbol names print bare when they are valid identifiers, else quoted.
pub fn format_symbol(name: &str) -> String {
    let bare = !name.is_empty()
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "_$.".contains(c));
    if bare {
        format!("@{name}")
    } else {
        format!("@{}", quote_string(name))
    }
}

fn dense_shape(ty: &Type) -> Vec<u64> {
    match ty {
        Type::Vector { shape, .. } => shape.clone(),
        Type::Tensor { shape: Some(shape), .. } => shape.iter().map(|d| d.unwrap_or(0)).collect(),
        _ => Vec::new(),
    }
}

fn fmt_dense(f: &mut fmt::Formatter<'_>, values: &DenseValues, shape: &[u64], elem: &Type) -> fmt::Result {
    let fmt_one = |f: &mut fmt::Formatter<'_>, i: usize| -> fmt::Result {
        match values {
            DenseValues::Int(v) => write!(f, "{}", v[i]),
            DenseValues::Float(v) => write!(f, "{}", format_float(v[i], elem)),
            DenseValues::Bool(v) => write!(f, "{}", v[i]),
            DenseValues::Hex(_) => unreachable!("hex dense values print as a string"),
        }
    };
    if values.len() == 1 {
        return fmt_one(f, 0);
    }
    fn rec(
        f: &mut fmt::Formatter<'_>,
        shape: &[u64],
        start: usize,
        fmt_one: &dyn Fn(&mut fmt::Formatter<'_>, usize) -> fmt::Result,
    ) -> fmt::Result {
        if shape.is_empty() {
            return fmt_one(f, start);
        }
        let inner: u64 = shape[1..].iter().product();
        write!(f, "[")?;
        for i in 0..shape[0] {
            if i > 0 {
                write!(f, ", ")?;
            }
            rec(f, &shape[1..], start + (i * inner) as usize, fmt_one)?;
        }
        write!(f, "]")
    }
    rec(f, shape, 0, &fmt_one)
}

impl fmt::Display for Attribute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Attribute::Unit => f.write_str("unit"),
            Attribute::Bool(b) => write!(f, "{b}"),
            Attribute::Integer { value, ty } => {
                if *ty == Type::i64() {
                    write!(f, "{value}")
                } else if *ty == Type::i1() {
                    write!(f, "{}", *value != 0)
                } else {
                    write!(f, "{value} : {ty}")
                }
            }
            Attribute::Float { value, ty } => {
                if *ty == Type::Float(crate::types::FloatKind::F64) {
                    write!(f, "{}", format_float(*value, ty))
                } else {
                    write!(f, "{} : {ty}", format_float(*value, ty))
                }
            }
            Attribute::String(s) => f.write_str(&quote_string(s)),
            Attribute::Type(t) => write!(f, "{t}"),
            Attribute::Array(items) => {
                write!(f, "[")?;
                for (i, a) in items.iter().enumerate() {
                    write!(f, "{}{a}", if i > 0 { ", " } else { "" })?;
                }
                write!(f, "]")
            }
            Attribute::Dict(entries) => fmt_dict(f, entries),
            Attribute::Dense { values: DenseValues::Hex(bytes), ty } => {
                write!(f, "dense<\"0x")?;
                for b in bytes {
                    write!(f, "{b:02X}")?;
                }
                write!(f, "\"> : {ty}")
            }
            Attribute::Dense { values, ty } => {
                write!(f, "dense<")?;
                fmt_dense(f, values, &dense_shape(ty), ty)?;
                write!(f, "> : {ty}")
            }
            Attribute::DenseArray { elem, values } => {
                write!(f, "array<{elem}")?;
                for (i, v) in values.iter().enumerate() {
                    write!(f, "{}{v}", if i > 0 { ", " } else { ": " })?;
                }
                write!(f, ">")
            }
            Attribute::SymbolRef { root, nested } => {
                f.write_str(&format_symbol(root))?;
                for n in nested {
                    write!(f, "::{}", format_symbol(n))?;
                }
                Ok(())
            }
            Attribute::AffineMap(m) => write!(f, "affine_map<{m}>"),
            Attribute::IntegerSet(s) => write!(f, "affine_set<{s}>"),
            Attribute::Opaque(s) => f.write_str(s),
        }
    }
}

/// `{a = 1, b}`: a unit attribute prints as its bare name.
pub fn fmt_dict(f: &mut fmt::Formatter<'_>, entries: &[(String, Attribute)]) -> fmt::Result {
    write!(f, "{{")?;
    for (i, (k, v)) in entries.iter().enumerate() {
        if i > 0 {
            write!(f, ", ")?;
        }
        write_attr_name(f, k)?;
        if *v != Attribute::Unit {
            write!(f, " = {v}")?;
        }
    }
    write!(f, "}}")
}

fn write_attr_name(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    let bare = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "_$.".contains(c));
    if bare {
        f.write_str(name)
    } else {
        f.write_str(&quote_string(name))
    }
}
