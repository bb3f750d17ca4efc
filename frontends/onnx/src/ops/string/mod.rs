//! Operators on STRING tensors: StringConcat, StringSplit, StringNormalizer, RegexFullMatch, the
//! casts between strings and numbers (and Equal and LabelEncoder on strings, in their own
//! families). A string is its address
//! inside xcc (an i64 element), and the operators call runtime-c's string functions, which make
//! new strings in the run's string arena. Their loops are serial: the arena belongs to the
//! thread running the model.

pub mod cast;
mod concat;
mod normalizer;
mod regex_full_match;
mod split;

use crate::data_dim::Measure;
use crate::emit::{runtime_call, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::schema::{Elements, Schema};
use xcc_ir::builder::Extent;
use xcc_ir::{Type, ValueId};

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    r.register(&["StringConcat"], &concat::StringConcat, Schema::exactly(2).elements(Elements::Strings));
    r.register(&["StringSplit"], &split::StringSplit, Schema::exactly(1).elements(Elements::Strings));
    r.register(&["StringNormalizer"], &normalizer::StringNormalizer, Schema::exactly(1).elements(Elements::Strings));
    r.register(&["RegexFullMatch"], &regex_full_match::RegexFullMatch, Schema::exactly(1).elements(Elements::Strings));
}

/// The address (an i64) of `bytes` placed in the library as a constant.
pub fn bytes_address(e: &mut Emitter, bytes: &[u8]) -> ValueId {
    let mut data = bytes.to_vec();
    if data.is_empty() {
        data.push(0);
    }
    let global = e.constant_buffer(&Tensor { ty: TensorType::new(DType::U8, vec![data.len()]), data });
    e.address_of(global)
}

/// The address of the constant C string `s` (NUL-terminated).
pub fn c_string(e: &mut Emitter, s: &[u8]) -> ValueId {
    bytes_address(e, &crate::strings::joined(&[s.to_vec()]))
}

/// A constant STRING tensor's buffer: its strings placed in the library one after the other, its
/// elements their addresses, written where the run first reads it.
pub fn constant(e: &mut Emitter, t: &Tensor) -> ValueId {
    let strings = crate::strings::values(t);
    let buf = e.alloc_tensor(&t.ty);
    if strings.is_empty() {
        return buf;
    }
    let base = bytes_address(e, &crate::strings::joined(&strings));
    let mut offsets = Vec::with_capacity(strings.len());
    let mut at = 0i64;
    for s in &strings {
        offsets.push(at);
        at += s.len() as i64 + 1;
    }
    if t.ty.shape.is_empty() {
        e.store(base, buf, &[]);
        return buf;
    }
    let table = e.constant_buffer(&Tensor::from_i64(vec![offsets.len()], &offsets));
    let flat = e.flat(buf);
    e.for_loop_over(Extent::Fixed(strings.len()), |e, i| {
        let offset = e.load(table, &[i]);
        let address = e.value_op("arith.addi", &[base, offset], Type::i64());
        e.store(address, flat, &[i]);
    });
    buf
}

/// `[index]` of a rank-0 or flat buffer.
pub fn at(rank: usize, i: ValueId) -> Vec<ValueId> {
    if rank == 0 {
        Vec::new()
    } else {
        vec![i]
    }
}

/// The value of a [`DataExpr::Measured`] measure in the prologue (an i64): runtime-c reads the
/// input's strings.
pub fn measure(e: &mut Emitter, input: &str, count: &Dim, measure: &Measure) -> OResult<ValueId> {
    let buf = e.buf(input)?;
    let x = e.address_of(buf);
    let n = e.dim_i64(count);
    Ok(match measure {
        Measure::MostParts { delimiter, maxsplit } => {
            let d = c_string(e, delimiter);
            let m = e.const_int(*maxsplit as i128, Type::i64());
            runtime_call(e, "xcc_strings_split_max", &[x, n, d, m], Type::i64())
        }
        Measure::Kept { stopwords, case_sensitive } => {
            let list = bytes_address(e, &crate::strings::joined(stopwords));
            let k = e.const_int(stopwords.len() as i128, Type::i64());
            let cs = e.const_int(*case_sensitive as i128, Type::i32());
            runtime_call(e, "xcc_strings_count_kept", &[x, n, list, k, cs], Type::i64())
        }
        Measure::ImageSide { .. } => unreachable!("an image's sides are ImageDecoder's measures"),
    })
}

/// An error unless `name` is a STRING tensor.
pub fn expect_strings(node: &Node, g: &Graph, name: &str) -> OResult<TensorType> {
    let t = g.ty(name)?;
    if t.dtype != DType::Str {
        return err(format!("{} takes strings, not {} like '{name}'", node.op, t.dtype.name()));
    }
    Ok(t.clone())
}

/// A STRING graph input, whose strings the prologue reads to size an output, and how many there
/// are (a dim: one of the input's own where it has run-time dims, for which it must be a vector,
/// or a row where `row` allows `[1, C]`).
pub fn measured_input(node: &Node, g: &Graph, name: &str, row: bool) -> OResult<(TensorType, Dim)> {
    let t = expect_strings(node, g, name)?;
    if !g.inputs.iter().any(|i| i == name) {
        return err(format!(
            "{}'s output dims depend on the strings of '{name}', which must be a graph input (xcc measures them before the run)",
            node.op
        ));
    }
    if !t.is_dynamic() {
        let n = t.numel();
        return Ok((t, Dim::fixed(n)));
    }
    let dims = t.dims();
    match dims.as_slice() {
        [n] => Ok((t.clone(), n.clone())),
        [one, n] if row && one.as_fixed() == Some(1) => Ok((t.clone(), n.clone())),
        _ => {
            let shapes = if row { "a vector of strings or a [1, C] row" } else { "a vector of strings" };
            err(format!("{} takes run-time dims only in {shapes}, not {}", node.op, t.describe()))
        }
    }
}
