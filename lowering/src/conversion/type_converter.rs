//! Types in the llvm dialect for the types of the other dialects (MLIR's `LLVMTypeConverter`):
//! `index` is an integer of the target's pointer width, vectors flatten to one dimension, a
//! memref is its descriptor struct (see [`super::memref_descriptor`]), a function value is a
//! pointer. A function signature expands each memref parameter into the descriptor's fields, as
//! upstream's calling convention does. A warp's `!gpu.mma_matrix` fragment is the struct of a
//! thread's part of it.

use super::memref_descriptor::MemRefDescriptor;
use super::unsupported;
use crate::pass::LoweringOptions;
use xcc_ir::dialects::gpu::{MmaMatrix, MmaOperand};
use xcc_ir::types::FunctionType;
use xcc_ir::{Diagnostic, Span, Type};

#[derive(Clone, Debug)]
pub struct LlvmTypeConverter {
    /// The integer type `index` becomes.
    pub index: Type,
}

impl LlvmTypeConverter {
    pub fn new(options: &LoweringOptions) -> LlvmTypeConverter {
        LlvmTypeConverter { index: Type::int(options.target.pointer_bits()) }
    }

    pub fn convert(&self, t: &Type, span: Span) -> Result<Type, Diagnostic> {
        Ok(match t {
            Type::Index => self.index.clone(),
            Type::Integer { width, .. } => Type::int(*width),
            Type::Vector { shape, elem } => {
                Type::Vector { shape: vec![shape.iter().product()], elem: Box::new(self.convert(elem, span)?) }
            }
            Type::MemRef(m) => MemRefDescriptor::struct_type(m.rank()),
            Type::UnrankedMemRef { .. } => Type::LlvmStruct { packed: false, fields: vec![Type::i64(), Type::ptr()] },
            Type::Function(_) => Type::ptr(),
            Type::Float(_) | Type::LlvmPtr { .. } | Type::LlvmVoid | Type::LlvmFunc { .. } => t.clone(),
            Type::LlvmStruct { packed, fields } => Type::LlvmStruct {
                packed: *packed,
                fields: fields.iter().map(|f| self.convert(f, span)).collect::<Result<_, _>>()?,
            },
            Type::LlvmArray { len, elem } => Type::LlvmArray { len: *len, elem: Box::new(self.convert(elem, span)?) },
            Type::Opaque { .. } if MmaMatrix::from_type(t).is_some() => {
                let fragment = MmaMatrix::from_type(t).expect("an mma fragment");
                Self::fragment_struct(fragment)
            }
            Type::Tensor { .. } => {
                return Err(unsupported(
                    span,
                    format!("tensor value of type {t} (tensors must be bufferized to memrefs first)"),
                ))
            }
            _ => return Err(unsupported(span, format!("type {t}"))),
        })
    }

    /// A warp's fragment, as NVVM's `wmma` intrinsics hold a thread's part: A's and B's TF32
    /// elements as i32, C's as f32.
    pub fn fragment_struct(fragment: MmaMatrix) -> Type {
        let elem = if fragment.operand == MmaOperand::C { Type::f32() } else { Type::i32() };
        Type::LlvmStruct { packed: false, fields: vec![elem; fragment.per_thread() as usize] }
    }

    /// The types one parameter of type `t` becomes (a memref: its descriptor's 3 + 2 * rank fields).
    pub fn parameter(&self, t: &Type, span: Span) -> Result<Vec<Type>, Diagnostic> {
        Ok(match t {
            Type::MemRef(m) => MemRefDescriptor::field_types(m.rank()),
            _ => vec![self.convert(t, span)?],
        })
    }

    /// The single LLVM result of a function or call: nothing, the one result, or a struct of them.
    pub fn packed_results(&self, results: &[Type], span: Span) -> Result<Vec<Type>, Diagnostic> {
        Ok(match results.len() {
            0 => Vec::new(),
            1 => vec![self.convert(&results[0], span)?],
            _ => vec![Type::LlvmStruct {
                packed: false,
                fields: results.iter().map(|r| self.convert(r, span)).collect::<Result<_, _>>()?,
            }],
        })
    }

    /// A function type with expanded memref parameters and packed results.
    pub fn signature(&self, ft: &FunctionType, span: Span) -> Result<FunctionType, Diagnostic> {
        let mut inputs = Vec::new();
        for t in &ft.inputs {
            inputs.extend(self.parameter(t, span)?);
        }
        Ok(FunctionType { inputs, results: self.packed_results(&ft.results, span)? })
    }
}
