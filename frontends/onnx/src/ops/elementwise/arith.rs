//! Arithmetic with broadcasting: Add, Sub, Mul, Div, Pow, Mod, and the variadic Sum, Mean, Max
//! and Min (folded over their inputs from the left).

use super::{arith, c, on_dims, op, Element, ElementwiseOp as Op, Emit};
use crate::emit::{compute_type, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::schema::{Group, Schema, ANY};
use xcc_ir::{Type, ValueId};

pub const OPS: &[Op] = &[
    Op::new("Add", arith("arith.addf", "arith.addi"), |_, a| a.iter().sum())
        .schema(Schema::exactly(2).same_type(Group::All))
        .on_dims(on_dims::add),
    Op::new("Sum", arith("arith.addf", "arith.addi"), |_, a| a.iter().sum())
        .schema(Schema::inputs(1, ANY).same_type(Group::All)),
    Op::new("Sub", arith("arith.subf", "arith.subi"), |_, a| a[0] - a[1])
        .schema(Schema::exactly(2).same_type(Group::All))
        .on_dims(on_dims::sub),
    Op::new("Mul", arith("arith.mulf", "arith.muli"), |_, a| a[0] * a[1])
        .schema(Schema::exactly(2).same_type(Group::All))
        .on_dims(on_dims::mul),
    Op::new("Div", Emit::Custom(divide), div)
        .schema(Schema::exactly(2).same_type(Group::All))
        .on_dims(on_dims::div)
        .divides_by(1),
    Op::new("Pow", Emit::Custom(pow), |_, a| a[0].powf(a[1])).schema(Schema::exactly(2)).mixed_types(),
    Op::new("Mod", Emit::Custom(modulo), modulo_value)
        .schema(Schema::exactly(2).same_type(Group::All))
        .on_dims(on_dims::modulo)
        .divides_by(1),
    Op::new("Mean", Emit::Custom(mean), |_, a| a.iter().sum::<f64>() / a.len() as f64)
        .schema(Schema::inputs(1, ANY).same_type(Group::All)),
    Op::new(
        "Max",
        Emit::Fold { float: Some("arith.maximumf"), signed: Some("arith.maxsi"), unsigned: Some("arith.maxui") },
        |_, a| a.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    )
    .schema(Schema::inputs(1, ANY).same_type(Group::All))
    .on_dims(on_dims::max),
    Op::new(
        "Min",
        Emit::Fold { float: Some("arith.minimumf"), signed: Some("arith.minsi"), unsigned: Some("arith.minui") },
        |_, a| a.iter().copied().fold(f64::INFINITY, f64::min),
    )
    .schema(Schema::inputs(1, ANY).same_type(Group::All))
    .on_dims(on_dims::min),
];

/// Integer division truncates (0 for a zero divisor, where the lowering's result is undefined).
/// An integer division by zero is NaN, which folding refuses (no integer result is right).
fn div(el: &Element, a: &[f64]) -> f64 {
    match (el.float(), a[1]) {
        (true, _) => a[0] / a[1],
        (false, 0.0) => f64::NAN,
        (false, b) => (a[0] / b).trunc(),
    }
}

/// Integer division truncates. The divisor is made safe first ([`safe_divisor`]).
fn divide(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    if el.float() {
        return Ok(op(e, el, "arith.divf", a));
    }
    let b = safe_divisor(e, el, a[0], a[1]);
    let name = if unsigned(el.dtype) { "arith.divui" } else { "arith.divsi" };
    Ok(op(e, el, name, &[a[0], b]))
}

fn unsigned(d: DType) -> bool {
    d.is_unsigned()
}

/// An integer divisor that cannot trap: 1 where it is 0 (the run has already failed with
/// `XCC_ERROR_DIVISION_BY_ZERO`, see `check_divisor`) and where the dividend is the type's
/// minimum and the divisor -1, whose quotient wraps to the minimum (as in two's complement
/// arithmetic, numpy's), which is the dividend divided by 1; the remainder is 0 either way.
fn safe_divisor(e: &mut Emitter, el: &Element, x: ValueId, b: ValueId) -> ValueId {
    let (zero, one) = (c(e, el, 0.0), c(e, el, 1.0));
    let mut bad = e.cmpi("eq", b, zero);
    if !unsigned(el.dtype) {
        let width = match compute_type(el.dtype) {
            Type::Integer { width, .. } => width,
            t => unreachable!("an integer type, not {t}"),
        };
        let min = e.const_int(-(1i128 << (width - 1)), compute_type(el.dtype));
        let minus_one = c(e, el, -1.0);
        let (by_minus_one, from_min) = (e.cmpi("eq", b, minus_one), e.cmpi("eq", x, min));
        let wraps = e.value_op("arith.andi", &[by_minus_one, from_min], Type::i1());
        bad = e.value_op("arith.ori", &[bad, wraps], Type::i1());
    }
    op(e, el, "arith.select", &[bad, one, b])
}

/// Dims divide when the quotient is exact for every value of the symbols; numbers truncate.
/// The exponent may have another element type (Pow-15 allows integer exponents); integer powers
/// go through f64, exact for every result an integer type can hold.
fn pow(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    let (base, exponent) = (a[0], a[1]);
    let exponent_dtype = dtype_of(&e.ty(exponent));
    if el.float() {
        let b = e.convert(exponent, exponent_dtype, el.dtype);
        return Ok(op(e, el, "math.powf", &[base, b]));
    }
    let f64t = DType::F64.ir_type();
    let (bf, xf) = (e.convert(base, el.dtype, DType::F64), e.convert(exponent, exponent_dtype, DType::F64));
    let p = e.value_op("math.powf", &[bf, xf], f64t);
    Ok(e.convert(p, DType::F64, el.dtype))
}

/// The element type of an element value, from its IR type (float16 has been widened).
fn dtype_of(t: &Type) -> DType {
    match t {
        t if *t == DType::F64.ir_type() => DType::F64,
        Type::Float(_) => DType::F32,
        Type::Integer { width: 8, .. } => DType::I8,
        Type::Integer { width: 16, .. } => DType::I16,
        Type::Integer { width: 32, .. } => DType::I32,
        _ => DType::I64,
    }
}

/// With `fmod`, the remainder takes the dividend's sign; without, the divisor's:
/// `r = a rem b; r != 0 && sign(r) != sign(b) ? r + b : r`.
fn modulo(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    let float = el.float();
    let (rem, add) = if float { ("arith.remf", "arith.addf") } else { ("arith.remsi", "arith.addi") };
    let divisor = if float { a[1] } else { safe_divisor(e, el, a[0], a[1]) };
    let r = op(e, el, rem, &[a[0], divisor]);
    if el.node.int("fmod", 0) == 1 {
        return Ok(r);
    }
    let zero = c(e, el, 0.0);
    let (nonzero, r_negative, b_negative) = if float {
        (e.cmpf("une", r, zero), e.cmpf("olt", r, zero), e.cmpf("olt", a[1], zero))
    } else {
        (e.cmpi("ne", r, zero), e.cmpi("slt", r, zero), e.cmpi("slt", a[1], zero))
    };
    let differ = e.value_op("arith.xori", &[r_negative, b_negative], Type::i1());
    let fix = e.value_op("arith.andi", &[nonzero, differ], Type::i1());
    let shifted = op(e, el, add, &[r, a[1]]);
    Ok(op(e, el, "arith.select", &[fix, shifted, r]))
}

fn modulo_value(el: &Element, a: &[f64]) -> f64 {
    let (x, y) = (a[0], a[1]);
    if el.node.int("fmod", 0) == 1 {
        return x % y;
    }
    if y == 0.0 {
        // Integers: refused by folding, as Div's; floats: NaN, as fmod's.
        return f64::NAN;
    }
    let r = x % y;
    if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
        r + y
    } else {
        r
    }
}

fn mean(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    if !el.float() {
        return el.unsupported();
    }
    let sum = a[1..].iter().fold(a[0], |acc, &x| op(e, el, "arith.addf", &[acc, x]));
    let n = c(e, el, a.len() as f64);
    Ok(op(e, el, "arith.divf", &[sum, n]))
}
