//! A memref in the llvm dialect (MLIR's LLVMCommon `MemRefDescriptor`): the struct
//! `{ptr allocated, ptr aligned, i64 offset, [rank x i64] sizes, [rank x i64] strides}`, built,
//! read and taken apart here and nowhere else. Element `(i, j, ..)` is at
//! `aligned + (offset + i * stride0 + j * stride1 + ..) * sizeof(elem)`.

use super::Builder;
use crate::types::MemRefType;
use crate::{Attribute, Diagnostic, Type, ValueId};

/// Field positions in the descriptor struct.
const ALLOCATED: i64 = 0;
const ALIGNED: i64 = 1;
const OFFSET: i64 = 2;
const SIZES: i64 = 3;
const STRIDES: i64 = 4;

/// A descriptor value and its rank.
#[derive(Clone, Copy, Debug)]
pub struct MemRefDescriptor {
    pub value: ValueId,
    pub rank: usize,
}

/// From this rank, a descriptor whose sizes and strides are all constants gets each as one
/// constant array: element by element, LLVM folds each insertion into a new constant aggregate of
/// the whole descriptor, time and memory that grow with the square of the rank (a rank-4,000
/// tensor took 0.7 GB).
const WHOLE_ARRAYS_FROM_RANK: usize = 64;

/// `values`, each an `llvm.mlir.constant` integer, as one constant `!llvm.array<N x i64>`.
fn constant_array(b: &mut Builder, values: &[ValueId]) -> Option<ValueId> {
    let ints = values
        .iter()
        .map(|&v| {
            let def = b.m.defining_op(v).filter(|&d| b.m.ops[d].name == "llvm.mlir.constant")?;
            b.m.attr(def, "value")?.as_int()
        })
        .collect::<Option<Vec<i128>>>()?;
    let len = ints.len() as u64;
    let ty = Type::LlvmArray { len, elem: Box::new(Type::i64()) };
    let dense = Attribute::Dense {
        values: crate::attributes::DenseValues::Int(ints),
        ty: Type::Tensor { shape: Some(vec![Some(len)]), elem: Box::new(Type::i64()) },
    };
    Some(b.value_with("llvm.mlir.constant", &[], ty, vec![("value".into(), dense)]))
}

/// `position = array<i64: ...>` for extractvalue/insertvalue.
pub fn position(p: &[i64]) -> Vec<(String, Attribute)> {
    vec![(
        "position".into(),
        Attribute::DenseArray { elem: Type::i64(), values: p.iter().map(|&x| x as i128).collect() },
    )]
}

impl MemRefDescriptor {
    pub fn struct_type(rank: usize) -> Type {
        let mut fields = vec![Type::ptr(), Type::ptr(), Type::i64()];
        if rank > 0 {
            let arr = Type::LlvmArray { len: rank as u64, elem: Box::new(Type::i64()) };
            fields.push(arr.clone());
            fields.push(arr);
        }
        Type::LlvmStruct { packed: false, fields }
    }

    /// The types of the expanded fields, as a function parameter list spells them.
    pub fn field_types(rank: usize) -> Vec<Type> {
        let mut t = vec![Type::ptr(), Type::ptr(), Type::i64()];
        t.extend(std::iter::repeat_n(Type::i64(), 2 * rank));
        t
    }

    /// Builds a descriptor from `allocated, aligned, offset, sizes.., strides..`.
    pub fn pack(b: &mut Builder, rank: usize, fields: &[ValueId]) -> MemRefDescriptor {
        let t = Self::struct_type(rank);
        let mut d = b.value("llvm.mlir.undef", &[], t.clone());
        for (i, &f) in fields[..3].iter().enumerate() {
            d = b.value_with("llvm.insertvalue", &[d, f], t.clone(), position(&[i as i64]));
        }
        let (sizes, strides) = fields[3..].split_at(rank);
        let whole = |b: &mut Builder, values: &[ValueId]| {
            (rank >= WHOLE_ARRAYS_FROM_RANK).then(|| constant_array(b, values)).flatten()
        };
        match (whole(b, sizes), whole(b, strides)) {
            (Some(sizes), Some(strides)) => {
                d = b.value_with("llvm.insertvalue", &[d, sizes], t.clone(), position(&[SIZES]));
                d = b.value_with("llvm.insertvalue", &[d, strides], t.clone(), position(&[STRIDES]));
            }
            _ => {
                for i in 0..rank {
                    d = b.value_with("llvm.insertvalue", &[d, sizes[i]], t.clone(), position(&[SIZES, i as i64]));
                    d = b.value_with("llvm.insertvalue", &[d, strides[i]], t.clone(), position(&[STRIDES, i as i64]));
                }
            }
        }
        MemRefDescriptor { value: d, rank }
    }

    /// A descriptor over `allocated`/`aligned` with `mt`'s static offset, sizes and strides
    /// (dynamic sizes from `dynamic_sizes`, in order; strides row-major over them).
    pub fn from_pointers(
        b: &mut Builder,
        allocated: ValueId,
        aligned: ValueId,
        mt: &MemRefType,
        dynamic_sizes: &[ValueId],
    ) -> MemRefDescriptor {
        let (sizes, strides) = Self::row_major(b, mt, dynamic_sizes);
        let offset = b.llvm_const(0, Type::i64());
        let mut fields = vec![allocated, aligned, offset];
        fields.extend(sizes);
        fields.extend(strides);
        Self::pack(b, mt.rank(), &fields)
    }

    /// Sizes from the type's static dims and the dynamic-size values, and row-major strides.
    pub fn row_major(b: &mut Builder, mt: &MemRefType, dynamic_sizes: &[ValueId]) -> (Vec<ValueId>, Vec<ValueId>) {
        let mut next = dynamic_sizes.iter();
        let sizes: Vec<ValueId> = mt
            .shape
            .iter()
            .map(|d| match d {
                Some(s) => b.llvm_const(*s as i64, Type::i64()),
                None => *next.next().expect("one value per dynamic size"),
            })
            .collect();
        let mut strides = vec![ValueId::from_index(0); sizes.len()];
        // The stride so far, and its value while every size after it is static.
        let mut running: Option<(ValueId, Option<i64>)> = None;
        for i in (0..sizes.len()).rev() {
            let (s, known) = running.unwrap_or_else(|| (b.llvm_const(1, Type::i64()), Some(1)));
            strides[i] = s;
            if i == 0 {
                break;
            }
            let product = known.zip(mt.shape[i]).and_then(|(k, n)| k.checked_mul(i64::try_from(n).ok()?));
            running = Some(match product {
                Some(p) => (b.llvm_const(p, Type::i64()), Some(p)),
                None => (b.value("llvm.mul", &[s, sizes[i]], Type::i64()), None),
            });
        }
        (sizes, strides)
    }

    fn field(&self, b: &mut Builder, pos: &[i64], ty: Type) -> ValueId {
        b.value_with("llvm.extractvalue", &[self.value], ty, position(pos))
    }

    pub fn allocated_ptr(&self, b: &mut Builder) -> ValueId {
        self.field(b, &[ALLOCATED], Type::ptr())
    }

    pub fn aligned_ptr(&self, b: &mut Builder) -> ValueId {
        self.field(b, &[ALIGNED], Type::ptr())
    }

    pub fn offset(&self, b: &mut Builder) -> ValueId {
        self.field(b, &[OFFSET], Type::i64())
    }

    pub fn size(&self, b: &mut Builder, i: usize) -> ValueId {
        self.field(b, &[SIZES, i as i64], Type::i64())
    }

    pub fn stride(&self, b: &mut Builder, i: usize) -> ValueId {
        self.field(b, &[STRIDES, i as i64], Type::i64())
    }

    /// The offset, as a constant when the type knows it.
    pub fn offset_or_static(&self, b: &mut Builder, known: Option<i64>) -> ValueId {
        match known {
            Some(o) => b.llvm_const(o, Type::i64()),
            None => self.offset(b),
        }
    }

    /// Stride `i`, as a constant when the type knows it.
    pub fn stride_or_static(&self, b: &mut Builder, i: usize, known: Option<i64>) -> ValueId {
        match known {
            Some(s) => b.llvm_const(s, Type::i64()),
            None => self.stride(b, i),
        }
    }

    /// The fields in parameter order (for calls that expand memref arguments).
    pub fn explode(&self, b: &mut Builder) -> Vec<ValueId> {
        let mut out = vec![self.allocated_ptr(b), self.aligned_ptr(b), self.offset(b)];
        for i in 0..self.rank {
            out.push(self.size(b, i));
        }
        for i in 0..self.rank {
            out.push(self.stride(b, i));
        }
        out
    }

    /// The address of the element at `idx`; static strides and offset from the type become
    /// constants.
    pub fn element_address(
        &self,
        b: &mut Builder,
        mt: &MemRefType,
        elem: &Type,
        idx: &[ValueId],
    ) -> Result<ValueId, Diagnostic> {
        self.address(b, mt, elem, idx, true)
    }

    /// [`Self::element_address`], its `getelementptr` `inbounds` or not: a masked access's first
    /// lane may be off and outside the buffer, where an `inbounds` address would be poison.
    pub fn address(
        &self,
        b: &mut Builder,
        mt: &MemRefType,
        elem: &Type,
        idx: &[ValueId],
        inbounds: bool,
    ) -> Result<ValueId, Diagnostic> {
        let Some((strides, offset)) = mt.strides_and_offset() else {
            let what = format!("unsupported in lowering to LLVM: the layout of {}", Type::MemRef(mt.clone()));
            return Err(Diagnostic::new(b.span, what));
        };
        let aligned = self.aligned_ptr(b);
        let mut linear = self.offset_or_static(b, offset);
        for (i, &x) in idx.iter().enumerate() {
            let s = self.stride_or_static(b, i, strides.get(i).copied().flatten());
            let m = b.value("llvm.mul", &[x, s], Type::i64());
            linear = b.value("llvm.add", &[linear, m], Type::i64());
        }
        Ok(gep(b, aligned, linear, elem, inbounds))
    }
}

/// `getelementptr [inbounds] elem, base, index`
pub fn gep(b: &mut Builder, base: ValueId, index: ValueId, elem: &Type, inbounds: bool) -> ValueId {
    let mut attrs = vec![
        ("rawConstantIndices".into(), Attribute::DenseArray { elem: Type::i32(), values: vec![i32::MIN as i128] }),
        ("elem_type".into(), Attribute::Type(elem.clone())),
    ];
    if inbounds {
        attrs.push(("inbounds".into(), Attribute::Unit));
    }
    b.value_with("llvm.getelementptr", &[base, index], Type::ptr(), attrs)
}
