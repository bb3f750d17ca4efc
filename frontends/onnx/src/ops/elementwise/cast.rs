//! Cast (with ONNX's conversion semantics; `round_mode` for FLOAT8E8M0), CastLike, Identity and
//! BitCast. Cast and CastLike between strings and numbers are [`crate::ops::string::cast`]'s.

use super::{on_dims, Element, ElementwiseOp as Op, Emit, Output};
use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::schema::{Elements, Schema};
use crate::ops::string::cast::{crosses_strings, lower as lower_string_cast};
use crate::ops::OnnxOp;
use xcc_ir::{Type, ValueId};

pub const OPS: &[Op] = &[
    IDENTITY,
    Op::new("BitCast", Emit::Custom(bit_cast), bit_cast_value)
        .schema(Schema::exactly(1).elements(Elements::Codes).checked_by(super::cast::bit_cast_sizes))
        .output(Output::CastTo)
        .mixed_types(),
];

/// Cast and CastLike: elementwise on numbers, a serial loop through runtime-c on strings.
pub static CASTS: [WithStrings; 2] = [
    WithStrings(
        Op::new("Cast", Emit::Custom(cast), |_, a| a[0])
            .schema(Schema::exactly(1).elements(Elements::Any))
            .output(Output::CastTo)
            .mixed_types()
            .on_dims(on_dims::same),
    ),
    WithStrings(
        Op::new("CastLike", Emit::Custom(cast), |_, a| a[0])
            .schema(Schema::exactly(2).elements(Elements::Any))
            .output(Output::Input(1))
            .one_data_input()
            .mixed_types(),
    ),
];

/// A cast whose numbers are the elementwise op's, and whose strings are parsed or written.
pub struct WithStrings(pub Op);

impl WithStrings {
    pub fn name(&self) -> &'static str {
        self.0.name
    }
}

impl OnnxOp for WithStrings {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        self.0.infer(node, g)
    }

    /// Strings are cast at run time only: the compile-time fold has no C library to agree with.
    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        let is_str = |t: &Option<&Tensor>| t.is_some_and(|t| t.ty.dtype == DType::Str);
        let to_str = node.int("to", 0) == DType::Str.onnx_code() as i64 || inputs.get(1).is_some_and(is_str);
        if to_str || inputs.first().is_some_and(is_str) {
            return None;
        }
        self.0.fold(node, inputs)
    }

    fn fold_shape(&self, node: &Node, g: &Graph, inputs: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        // The output's type is not recorded yet: it is what `to` (Cast) or the second input
        // (CastLike) names.
        // A dim cast to bool is whether it is not zero, which the element function (the
        // value itself) does not say.
        let to = match node.input(1) {
            Some(like) => g.ty(like).ok()?.dtype.onnx_code() as i64,
            None => node.int("to", 0),
        };
        if to == DType::Str.onnx_code() as i64 || to == DType::Bool.onnx_code() as i64 {
            return None;
        }
        self.0.fold_shape(node, g, inputs)
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let (from, to) = (g.ty(&node.inputs[0])?.dtype, g.ty(&node.outputs[0])?.dtype);
        if crosses_strings(from, to) {
            return lower_string_cast(node, g, e);
        }
        self.0.lower(node, g, e)
    }
}

/// Cast and CastLike: `saturate` (opset 19) decides a float8 result past its range.
fn cast(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    let saturate = el.node.int("saturate", 1) != 0;
    if el.out == DType::F8E8M0 && el.dtype != DType::F8E8M0 {
        // FLOAT8E8M0 rounds by `round_mode` (opset 24).
        let rounding = crate::float8e8m0::Rounding::of(el.node.string("round_mode")).map_err(OnnxError::msg)?;
        return Ok(e.convert_to_e8m0(a[0], el.dtype, saturate, rounding));
    }
    Ok(e.convert_saturating(a[0], el.dtype, el.out, saturate))
}

/// BitCast: the element's bits read as the target type, of the same size (checked before,
/// with the other type constraints).
/// BitCast reinterprets each element's bits: the two element types must have one size.
pub fn bit_cast_sizes(node: &Node, g: &Graph) -> OResult<()> {
    let (from, to) = (g.ty(&node.inputs[0])?.dtype, DType::from_onnx(node.int("to", 0) as i32));
    match to.filter(|to| to.size() != from.size()) {
        Some(to) => err(format!(
            "BitCast needs element types of one size, not {} ({} bytes) and {} ({})",
            from.name(),
            from.size(),
            to.name(),
            to.size()
        )),
        None => Ok(()),
    }
}

fn bit_cast(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    let (from, to) = (el.dtype, el.out);
    if from == DType::Bool || to == DType::Bool {
        // A bool is one byte holding 0 or 1.
        return Ok(e.convert(a[0], from, to));
    }
    // float16 and bfloat16 compute in f32: back to their 16 bits first, and from them after.
    let half = |d: DType| d.is_float() && d.size() == 2;
    let stored = if half(from) { e.value_op("arith.truncf", a, from.ir_type()) } else { a[0] };
    let bits = e.value_op("arith.bitcast", &[stored], to.ir_type());
    Ok(if half(to) { e.value_op("arith.extf", &[bits], Type::f32()) } else { bits })
}

fn bit_cast_value(el: &Element, a: &[f64]) -> f64 {
    let bits = Tensor::from_f64(el.dtype, vec![1], &[a[0]]).data;
    Tensor { ty: TensorType::new(el.out, vec![1]), data: bits }.to_f64()[0]
}

pub(super) const IDENTITY: Op = Op::new("Identity", Emit::Custom(|_, _, a| Ok(a[0])), |_, a| a[0])
    .schema(Schema::exactly(1).elements(Elements::Any))
    .one_data_input()
    .on_dims(on_dims::same);
