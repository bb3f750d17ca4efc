//! `llvm.mlir.global`: linkage, constness, alignment and the initializer (raw bytes, a scalar, a
//! string, or a dense value laid out over arrays and vectors of scalars).

use super::{cstr, unsupported, TranslateError, Translator};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMLinkage, LLVMVisibility};
use std::ffi::c_char;
use xcc_ir::attributes::DenseValues;
use xcc_ir::{Attribute, OpId, Span, Type};

/// LLVM's linkage for an `llvm.mlir.global`/`llvm.func` linkage word.
pub(super) fn linkage(word: &str) -> Option<LLVMLinkage> {
    Some(match word {
        "private" => LLVMLinkage::LLVMPrivateLinkage,
        "internal" => LLVMLinkage::LLVMInternalLinkage,
        "available_externally" => LLVMLinkage::LLVMAvailableExternallyLinkage,
        "linkonce" => LLVMLinkage::LLVMLinkOnceAnyLinkage,
        "weak" => LLVMLinkage::LLVMWeakAnyLinkage,
        "common" => LLVMLinkage::LLVMCommonLinkage,
        "appending" => LLVMLinkage::LLVMAppendingLinkage,
        "extern_weak" => LLVMLinkage::LLVMExternalWeakLinkage,
        "linkonce_odr" => LLVMLinkage::LLVMLinkOnceODRLinkage,
        "weak_odr" => LLVMLinkage::LLVMWeakODRLinkage,
        "external" => LLVMLinkage::LLVMExternalLinkage,
        _ => return None,
    })
}

impl Translator<'_> {
    /// Defines a global, stored in `functions` so that `llvm.mlir.addressof` finds it by name
    /// like a function. With no value: a declaration when its linkage is written `external` or
    /// `extern_weak` (upstream's meaning), zeroes otherwise.
    pub(super) fn define_global(&mut self, op: OpId) -> Result<(), TranslateError> {
        let m = self.m;
        let span = m.ops[op].span;
        let name = m.sym_name(op).unwrap_or_default().to_string();
        let ty = m
            .attr(op, "global_type")
            .and_then(Attribute::as_type)
            .ok_or_else(|| unsupported(span, "llvm.mlir.global needs global_type"))?;
        if m.ops[op].regions.iter().any(|&r| !m.regions[r].blocks.is_empty()) {
            return Err(unsupported(span, "a global with an initializer region (write its value as an attribute)"));
        }
        let word = m.attr(op, "linkage").and_then(Attribute::as_str);
        let link = match word {
            Some(w) => Some(linkage(w).ok_or_else(|| unsupported(span, format!("linkage '{w}'")))?),
            None => None,
        };
        let t = self.ty(ty, span)?;
        let defined = self.defines(op, &name);
        unsafe {
            // `addr_space`: where the global lives (3, shared memory, on NVPTX).
            let space = m.attr(op, "addr_space").and_then(Attribute::as_int).unwrap_or(0) as u32;
            let g = LLVMAddGlobalInAddressSpace(self.module, t, cstr(self.link_name(&name)).as_ptr(), space);
            let declaration = matches!(word, Some("external" | "extern_weak"));
            match m.attr(op, "value") {
                _ if !defined => {}
                Some(v) => LLVMSetInitializer(g, self.initializer(v, ty, span)?),
                None if declaration => {}
                None => LLVMSetInitializer(g, LLVMConstNull(t)),
            }
            if m.attr(op, "constant").is_some() {
                LLVMSetGlobalConstant(g, 1);
            }
            if let Some(a) = m.attr(op, "alignment").and_then(Attribute::as_int) {
                LLVMSetAlignment(g, a as u32);
            }
            match link {
                _ if self.hidden(&name) => LLVMSetVisibility(g, LLVMVisibility::LLVMHiddenVisibility),
                Some(l) if defined => LLVMSetLinkage(g, l),
                _ => {}
            }
            if m.attr(op, "thread_local_").is_some() {
                LLVMSetThreadLocal(g, 1);
            }
            self.functions.insert(name, (g, t));
        }
        Ok(())
    }

    /// The constant of type `ty` that `value` gives.
    pub(super) unsafe fn initializer(
        &self,
        value: &Attribute,
        ty: &Type,
        span: Span,
    ) -> Result<LLVMValueRef, TranslateError> {
        let bytes_of_i8_array = matches!(ty, Type::LlvmArray { elem, .. } if **elem == Type::i8());
        match value {
            // Raw bytes of an i8 array (xcc's own globals, strings): one LLVM data array.
            Attribute::Dense { values: DenseValues::Hex(bytes), .. } if bytes_of_i8_array => {
                self.byte_array(bytes, ty, span)
            }
            Attribute::String(s) if bytes_of_i8_array => self.byte_array(s.as_bytes(), ty, span),
            Attribute::Integer { .. } | Attribute::Float { .. } | Attribute::Bool(_) => {
                self.splat(ty, &Scalars::One(value), span)
            }
            Attribute::Dense { values, .. } => {
                let have = match values {
                    DenseValues::Hex(bytes) => bytes.len() / scalar_bytes(ty),
                    _ => values.len(),
                };
                let need = scalar_count(ty);
                if have != 1 && Some(have as u64) != need {
                    let need = need.map_or_else(|| "over 2^64".to_string(), |n| n.to_string());
                    return Err(unsupported(span, format!("an initializer of {have} elements for a global of {need}")));
                }
                if have == 1 {
                    return self.splat(ty, &Scalars::Dense(values), span);
                }
                self.laid_out(ty, &Scalars::Dense(values), &mut 0, span)
            }
            v => Err(unsupported(span, format!("global initializer {v} for a global of type {ty}"))),
        }
    }

    /// One scalar repeated over the whole of `ty`. Zero is LLVM's null constant (zero-filled
    /// storage, nothing materialized, whatever the size); any other value is written out element
    /// by element, so its bytes are bounded by the constant budget: a 240-byte file may declare a
    /// terabyte-sized global.
    unsafe fn splat(&self, ty: &Type, scalar: &Scalars, span: Span) -> Result<LLVMValueRef, TranslateError> {
        let t = self.ty(ty, span)?;
        if scalar.is_zero() {
            return Ok(LLVMConstNull(t));
        }
        let bytes = scalar_count(ty).and_then(|n| n.checked_mul(scalar_bytes(ty) as u64));
        let budget = self.options.constant_budget;
        if bytes.is_none_or(|b| b > budget) {
            let size = bytes.map_or_else(|| "over 2^64 bytes".to_string(), |b| format!("{b} bytes"));
            return Err(unsupported(
                span,
                format!(
                    "a global of {ty} filled with one non-zero value would be materialized as {size}, over the \
                     constant budget of {budget} bytes (--fold-budget BYTES raises it)"
                ),
            ));
        }
        self.laid_out(ty, scalar, &mut 0, span)
    }

    unsafe fn byte_array(&self, bytes: &[u8], ty: &Type, span: Span) -> Result<LLVMValueRef, TranslateError> {
        let Type::LlvmArray { len, .. } = ty else { unreachable!("an i8 array") };
        if bytes.len() as u64 != *len {
            return Err(unsupported(span, format!("an initializer of {} bytes for a global of {len}", bytes.len())));
        }
        Ok(LLVMConstStringInContext2(self.ctx, bytes.as_ptr() as *const c_char, bytes.len(), 1))
    }

    /// The scalars from `*next` on, laid out over arrays and vectors in row-major order (one
    /// value is a splat: every scalar is it).
    unsafe fn laid_out(
        &self,
        ty: &Type,
        scalars: &Scalars,
        next: &mut usize,
        span: Span,
    ) -> Result<LLVMValueRef, TranslateError> {
        let t = self.ty(ty, span)?;
        match ty {
            Type::LlvmArray { len, elem } => {
                let mut elems =
                    (0..*len).map(|_| self.laid_out(elem, scalars, next, span)).collect::<Result<Vec<_>, _>>()?;
                let et = self.ty(elem, span)?;
                Ok(LLVMConstArray2(et, elems.as_mut_ptr(), *len))
            }
            Type::Vector { shape, elem } => {
                let n = shape.iter().product::<u64>();
                let mut elems =
                    (0..n).map(|_| self.laid_out(elem, scalars, next, span)).collect::<Result<Vec<_>, _>>()?;
                Ok(LLVMConstVector(elems.as_mut_ptr(), n as u32))
            }
            Type::Integer { .. } | Type::Float(_) => {
                let i = *next;
                *next += 1;
                scalars.constant(ty, t, i).ok_or_else(|| unsupported(span, format!("an initializer element for {ty}")))
            }
            _ => Err(unsupported(span, format!("an initializer for a global of type {ty}"))),
        }
    }
}

/// The scalars of an initializer.
enum Scalars<'a> {
    /// One scalar attribute, a splat.
    One(&'a Attribute),
    Dense(&'a DenseValues),
}

impl Scalars<'_> {
    /// Whether every scalar is zero (integer 0, false, or +0.0: a negative zero has a sign bit).
    fn is_zero(&self) -> bool {
        let one = match self {
            Scalars::One(a) => a,
            Scalars::Dense(values) if values.len() == 1 => {
                return match values {
                    DenseValues::Int(v) => v[0] == 0,
                    DenseValues::Bool(v) => !v[0],
                    DenseValues::Float(v) => v[0].to_bits() == 0,
                    DenseValues::Hex(bytes) => bytes.iter().all(|&b| b == 0),
                }
            }
            Scalars::Dense(_) => return false,
        };
        match one {
            Attribute::Integer { value, .. } => *value == 0,
            Attribute::Bool(b) => !b,
            Attribute::Float { value, .. } => value.to_bits() == 0,
            _ => false,
        }
    }

    /// The LLVM constant of scalar type `ty` for element `i` (element 0 of a splat).
    unsafe fn constant(&self, ty: &Type, t: LLVMTypeRef, i: usize) -> Option<LLVMValueRef> {
        let (int, float) = match self {
            Scalars::One(Attribute::Integer { value, .. }) => (Some(*value), None),
            Scalars::One(Attribute::Bool(b)) => (Some(*b as i128), None),
            Scalars::One(Attribute::Float { value, .. }) => (None, Some(*value)),
            Scalars::One(_) => return None,
            Scalars::Dense(values) => {
                let j = if values.len() == 1 { 0 } else { i };
                match values {
                    DenseValues::Int(v) => (Some(v[j]), None),
                    DenseValues::Bool(v) => (Some(v[j] as i128), None),
                    DenseValues::Float(v) => (None, Some(v[j])),
                    DenseValues::Hex(bytes) => return hex_scalar(bytes, ty, t, i),
                }
            }
        };
        Some(scalar(ty, t, int, float))
    }
}

/// The LLVM constant of scalar type `ty` (`t`) from an integer or a float (whichever is given,
/// converted to the type).
pub(super) unsafe fn scalar(ty: &Type, t: LLVMTypeRef, int: Option<i128>, float: Option<f64>) -> LLVMValueRef {
    if ty.is_float() {
        LLVMConstReal(t, float.unwrap_or(int.unwrap_or(0) as f64))
    } else {
        let v = int.unwrap_or(float.unwrap_or(0.0) as i128);
        let words = [v as u64, (v >> 64) as u64];
        LLVMConstIntOfArbitraryPrecision(t, 2, words.as_ptr())
    }
}

/// Element `i` of raw little-endian bytes, read as `ty` (a splat if they hold one element).
unsafe fn hex_scalar(bytes: &[u8], ty: &Type, t: LLVMTypeRef, i: usize) -> Option<LLVMValueRef> {
    let w = scalar_bytes(ty);
    let i = if bytes.len() == w { 0 } else { i };
    let raw = bytes.get(i * w..(i + 1) * w)?;
    let mut word = [0u8; 16];
    word[..w].copy_from_slice(raw);
    let bits = u128::from_le_bytes(word);
    Some(match ty {
        Type::Float(xcc_ir::types::FloatKind::F32) => scalar(ty, t, None, Some(f32::from_bits(bits as u32) as f64)),
        Type::Float(xcc_ir::types::FloatKind::F64) => scalar(ty, t, None, Some(f64::from_bits(bits as u64))),
        Type::Float(_) => return None,
        _ => {
            // Sign-extend from the element's width (two's complement; LLVM truncates).
            let shift = 128 - 8 * w as u32;
            scalar(ty, t, Some(((bits << shift) as i128) >> shift), None)
        }
    })
}

/// Bytes per scalar of a type's innermost element (an i1 takes one).
pub(crate) fn scalar_bytes(ty: &Type) -> usize {
    match ty {
        Type::LlvmArray { elem, .. } | Type::Vector { elem, .. } => scalar_bytes(elem),
        Type::Integer { width, .. } => (*width as usize).div_ceil(8),
        Type::Float(k) => (k.width() as usize) / 8,
        _ => 1,
    }
}

/// How many scalars a type holds (`None` past `u64`).
pub(crate) fn scalar_count(ty: &Type) -> Option<u64> {
    match ty {
        Type::LlvmArray { len, elem } => len.checked_mul(scalar_count(elem)?),
        Type::Vector { shape, elem } => shape.iter().try_fold(scalar_count(elem)?, |n, &d| n.checked_mul(d)),
        _ => Some(1),
    }
}
