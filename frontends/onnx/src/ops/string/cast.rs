//! Cast and CastLike between strings and numbers, as ONNX Runtime runs them. runtime-c parses a
//! string with C's `strtod` for the real types (float8 and float4 through a double, with Cast's
//! `saturate`, where ONNX Runtime always saturates), `strtoll` for the signed ones and
//! `strtoull` for the unsigned ones and bool (nonzero is true), in base 10; a narrower integer
//! wraps, as Cast between integers does (int4 too, where ONNX Runtime reads an int32 first). A
//! string with no number at its start (after whitespace), a real outside the double's normal
//! range, or an integer past 64 bits makes the run return `XCC_ERROR_NOT_A_NUMBER`. A number
//! becomes eight significant digits (`%.8g`, for every real type), `NaN`, `INF` or `-INF`, or an
//! integer in decimal (bool as `1` and `0`).
//!
//! The loop is serial: the strings it makes go into the arena of the thread running the model.

use crate::emit::{compute_type, runtime_call, Emitter, LoopBuilder};
use crate::graph::*;
use xcc_ir::{Type, ValueId};

/// Whether a Cast from `from` to `to` reads or writes strings (and is not a copy of them).
pub fn crosses_strings(from: DType, to: DType) -> bool {
    (from == DType::Str) != (to == DType::Str)
}

/// The elements of the node's input 0, converted to or from strings into its output 0.
pub fn lower(node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
    let from = g.ty(&node.inputs[0])?.dtype;
    let out = g.ty(&node.outputs[0])?.clone();
    let saturate = node.int("saturate", 1) != 0;
    let (x, y) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
    let status = e.status_address();
    let extents = e.dim_extents(&out.dims());
    e.loop_nest_over(&extents, &mut |e, ivs| {
        let v = e.load(x, ivs);
        let converted =
            if from == DType::Str { from_string(e, v, out.dtype, saturate, status) } else { to_string(e, v, from) };
        e.store(converted, y, ivs);
    });
    Ok(())
}

/// String `s` (an address) parsed as a `to`, in its compute type.
fn from_string(e: &mut Emitter, s: ValueId, to: DType, saturate: bool, status: ValueId) -> ValueId {
    let (parse, parsed) = match to {
        t if t.is_real() => ("xcc_string_to_f64", DType::F64),
        t if t.is_unsigned() => ("xcc_string_to_u64", DType::U64),
        _ => ("xcc_string_to_i64", DType::I64),
    };
    let v = runtime_call(e, parse, &[s, status], compute_type(parsed));
    e.convert_saturating(v, parsed, to, saturate)
}

/// Element `v` of type `from` (in its compute type) written as a string in the run's arena.
fn to_string(e: &mut Emitter, v: ValueId, from: DType) -> ValueId {
    let (write, wide) = match from {
        f if f.is_real() => ("xcc_string_of_f64", DType::F64),
        f if f.is_unsigned() => ("xcc_string_of_u64", DType::U64),
        _ => ("xcc_string_of_i64", DType::I64),
    };
    let w = e.convert(v, from, wide);
    runtime_call(e, write, &[w], Type::i64())
}
