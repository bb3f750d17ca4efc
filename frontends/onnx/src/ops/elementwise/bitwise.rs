//! Bitwise operators on integers: BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot and BitShift
//! (on signed types too since opset 28: a right shift is arithmetic). A shift by the type's
//! width or more (or by a negative amount) gives 0, or the sign for a signed right shift, where
//! LLVM's would be poison.

use super::{c, op, Element, ElementwiseOp as Op, Emit};
use crate::emit::{compute_type, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::schema::Schema;
use xcc_ir::{Type, ValueId};

const fn bitwise(name: &'static str, op: &'static str, eval: fn(&Element, &[f64]) -> f64) -> Op {
    Op::new(name, Emit::Fold { float: None, signed: Some(op), unsigned: Some(op) }, eval)
}

pub const OPS: &[Op] = &[
    bitwise("BitwiseAnd", "arith.andi", |el, a| wrap(el, bits(a[0]) & bits(a[1]))).schema(Schema::exactly(2)),
    bitwise("BitwiseOr", "arith.ori", |el, a| wrap(el, bits(a[0]) | bits(a[1]))).schema(Schema::exactly(2)),
    bitwise("BitwiseXor", "arith.xori", |el, a| wrap(el, bits(a[0]) ^ bits(a[1]))).schema(Schema::exactly(2)),
    Op::new("BitwiseNot", Emit::Custom(not), |el, a| wrap(el, !bits(a[0]))),
    Op::new("BitShift", Emit::Custom(shift), |el, a| {
        let w = width(el.dtype) as u64;
        // The amount as the type's unsigned value: a negative one is past the width.
        let by = if w == 64 { bits(a[1]) } else { bits(a[1]) & ((1 << w) - 1) };
        let fills_with_sign = !left(el.node) && !el.dtype.is_unsigned();
        if fills_with_sign {
            ((a[0] as i64) >> by.min(63)) as f64
        } else if by >= w {
            0.0
        } else if left(el.node) {
            wrap(el, bits(a[0]) << by)
        } else {
            wrap(el, bits(a[0]) >> by)
        }
    })
    .schema(Schema::exactly(2)),
];

/// An element's bits (the fold carries integers as f64; every value of the types up to 32 bits,
/// and int64 and uint64 values up to 2^53, are exact).
fn bits(x: f64) -> u64 {
    if x < 0.0 {
        x as i64 as u64
    } else {
        x as u64
    }
}

/// `v` truncated to the element type's width and read back with its signedness.
fn wrap(el: &Element, v: u64) -> f64 {
    let w = width(el.dtype);
    let v = if w == 64 { v } else { v & ((1u64 << w) - 1) };
    if el.dtype.is_unsigned() || w == 64 && v < (1 << 63) {
        return if el.dtype == DType::I64 { v as i64 as f64 } else { v as f64 };
    }
    // Signed: sign-extend from the width.
    let shift = 64 - w;
    (((v << shift) as i64) >> shift) as f64
}

fn width(d: DType) -> u32 {
    match compute_type(d) {
        Type::Integer { width, .. } => width,
        _ => 64,
    }
}

fn left(node: &Node) -> bool {
    node.string("direction") == Some("LEFT")
}

fn not(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    if el.float() || el.dtype == DType::Bool {
        return el.unsupported();
    }
    let ones = e.const_int(-1, compute_type(el.dtype));
    Ok(op(e, el, "arith.xori", &[a[0], ones]))
}

/// Left: `shli`, 0 past the width. Right: `shrui` (0 past the width) for unsigned types,
/// `shrsi` for signed ones, where a shift past the width fills with the sign (opset 28).
fn shift(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    if el.float() || el.dtype == DType::Bool {
        return el.unsupported();
    }
    let direction = el.node.string("direction").unwrap_or("");
    let unsigned = el.dtype.is_unsigned();
    let name = match (direction, unsigned) {
        ("LEFT", _) => "arith.shli",
        ("RIGHT", true) => "arith.shrui",
        ("RIGHT", false) => "arith.shrsi",
        _ => return err(format!("BitShift's direction must be \"LEFT\" or \"RIGHT\", not \"{direction}\"")),
    };
    let w = width(el.dtype) as f64;
    let (width, zero) = (c(e, el, w), c(e, el, 0.0));
    let too_far = e.cmpi("uge", a[1], width);
    if name == "arith.shrsi" {
        let last = c(e, el, w - 1.0);
        let by = op(e, el, "arith.select", &[too_far, last, a[1]]);
        return Ok(op(e, el, name, &[a[0], by]));
    }
    let shifted = op(e, el, name, a);
    Ok(op(e, el, "arith.select", &[too_far, zero, shifted]))
}

#[cfg(test)]
mod tests {
    //! The folds against values from ONNX's BitShift node tests (opset 28).

    use crate::graph::*;
    use std::collections::BTreeMap;

    fn shift(direction: &str, dtype: DType, x: &[f64], by: &[f64]) -> Vec<f64> {
        let node = Node {
            name: "s".into(),
            op: "BitShift".into(),
            domain: String::new(),
            inputs: vec!["x".into(), "by".into()],
            outputs: vec!["y".into()],
            attrs: BTreeMap::from([("direction".to_string(), Attr::Str(direction.into()))]),
            opset: 28,
            guard: None,
        };
        let (x, by) = (Tensor::from_f64(dtype, vec![x.len()], x), Tensor::from_f64(dtype, vec![by.len()], by));
        let op = crate::ops::registry().get("BitShift").unwrap();
        op.fold(&node, &[Some(&x), Some(&by)]).unwrap().unwrap()[0].to_f64()
    }

    #[test]
    fn shifts_wrap_and_fill_as_onnx_defines() {
        let i8 = DType::I8;
        assert_eq!(shift("LEFT", i8, &[64.0, 1.0, -64.0], &[1.0, 7.0, 1.0]), [-128.0; 3], "overflow wraps");
        assert_eq!(shift("LEFT", i8, &[-8.0, 4.0, -1.0], &[-1.0, -8.0, -16.0]), [0.0; 3], "negative amounts");
        assert_eq!(shift("RIGHT", i8, &[-8.0, 4.0, -1.0], &[8.0, 9.0, 127.0]), [-1.0, 0.0, -1.0], "sign fill");
        assert_eq!(shift("RIGHT", i8, &[-8.0, -1.0, -128.0], &[1.0, 1.0, 1.0]), [-4.0, -1.0, -64.0]);
        assert_eq!(shift("RIGHT", DType::U8, &[16.0, 4.0, 1.0], &[1.0, 2.0, 3.0]), [8.0, 1.0, 0.0]);
        assert_eq!(shift("LEFT", DType::U8, &[255.0, 1.0], &[1.0, 8.0]), [254.0, 0.0]);
    }
}
