//! `tensor`: the two tensor operations of the original specification (`dim` and `extract_element`
//! on a tensor value). xcc compiles buffers: tensors are parsed, verified and printed only.

use super::constraints::operand_types;
use crate::entity::OpId;
use crate::module::Module;
use crate::op_def::{optional, AttrKind, Count, OpDef};
use crate::types::Type;

const WHY: &str = "xcc compiles memrefs; tensors must be bufferized first";

pub const OPS: &[OpDef] = &[
    OpDef::new("tensor.dim", "the size of one dimension of a tensor")
        .operand_count(Count::Between(1, 2))
        .results(1)
        .attrs(&[optional("index", AttrKind::Integer)])
        .pure()
        .verify(verify_tensor_operand)
        .syntax(super::memref::DIM)
        .not_lowered(WHY),
    OpDef::new("tensor.extract", "one element of a tensor")
        .operand_count(Count::AtLeast(1))
        .results(1)
        .pure()
        .verify(verify_tensor_operand)
        .syntax(crate::op_def::Syntax::custom(super::memref::parse_load, None))
        .not_lowered(WHY),
];

fn verify_tensor_operand(m: &Module, op: OpId) -> Result<(), String> {
    match operand_types(m, op)[0] {
        Type::Tensor { .. } => Ok(()),
        t => Err(format!("needs a tensor operand, not {t}")),
    }
}
