//! FLOAT4E2M1, ONNX's 4-bit float (a sign, 2 exponent bits, 1 mantissa bit: ±0, 0.5, 1, 1.5,
//! 2, 3, 4, 6; no infinity, no NaN), in one byte per element inside xcc: its bits to and from
//! f32, on Rust values and as IR. Casting to it rounds to nearest, ties to even, and saturates
//! at ±6 (infinities too); a NaN becomes -0 (code 0x8), as ONNX's reference does.

use crate::emit::{Emitter, LoopBuilder};
use xcc_ir::{Type, ValueId};

/// The magnitudes of codes 0 to 7.
const MAGNITUDES: [f32; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];

pub fn decode(code: u8) -> f32 {
    let m = MAGNITUDES[usize::from(code & 7)];
    if code & 8 != 0 {
        -m
    } else {
        m
    }
}

pub fn encode(x: f32) -> u8 {
    if x.is_nan() {
        return 0x8;
    }
    let sign = if x.is_sign_negative() { 8 } else { 0 };
    (magnitude_code(x.abs()) | sign) as u8
}

/// The code of the nearest magnitude, ties to the even code, 6 past it.
fn magnitude_code(a: f32) -> u32 {
    let mut code = 0u32;
    for k in 1..8 {
        let midpoint = (MAGNITUDES[k - 1] + MAGNITUDES[k]) / 2.0;
        // Past the midpoint, or on it with the upper code even.
        if a > midpoint || (a == midpoint && k % 2 == 0) {
            code = k as u32;
        }
    }
    code
}

/// The IR of [`decode`]: the code's magnitude by a chain of selects, then the sign.
pub fn emit_decode(e: &mut Emitter, code: ValueId) -> ValueId {
    let (i8t, f32t) = (Type::i8(), Type::f32());
    let seven = e.const_int(7, i8t.clone());
    let low = e.value_op("arith.andi", &[code, seven], i8t.clone());
    let mut magnitude = e.const_float(0.0, f32t.clone());
    for (k, &m) in MAGNITUDES.iter().enumerate().skip(1) {
        let at = e.const_int(k as i128, i8t.clone());
        let hit = e.cmpi("eq", low, at);
        let value = e.const_float(m as f64, f32t.clone());
        magnitude = e.value_op("arith.select", &[hit, value, magnitude], f32t.clone());
    }
    let eight = e.const_int(8, i8t.clone());
    let sign = e.value_op("arith.andi", &[code, eight], i8t.clone());
    let zero = e.const_int(0, i8t);
    let negative = e.cmpi("ne", sign, zero);
    let negated = e.value_op("arith.negf", &[magnitude], f32t.clone());
    e.value_op("arith.select", &[negative, negated, magnitude], f32t)
}

/// The IR of [`encode`]: a count of the midpoints the magnitude passes (a tie counts toward the
/// even code), the sign, and NaN as 0x8.
pub fn emit_encode(e: &mut Emitter, x: ValueId) -> ValueId {
    let (i8t, f32t) = (Type::i8(), Type::f32());
    let a = e.value_op("math.absf", &[x], f32t.clone());
    let mut code = e.const_int(0, i8t.clone());
    for k in 1..8 {
        let midpoint = e.const_float(((MAGNITUDES[k - 1] + MAGNITUDES[k]) / 2.0) as f64, f32t.clone());
        let past = e.cmpf(if k % 2 == 0 { "oge" } else { "ogt" }, a, midpoint);
        let at = e.const_int(k as i128, i8t.clone());
        code = e.value_op("arith.select", &[past, at, code], i8t.clone());
    }
    let bits = e.value_op("arith.bitcast", &[x], Type::i32());
    let zero = e.const_int(0, Type::i32());
    let negative = e.cmpi("slt", bits, zero);
    let eight = e.const_int(8, i8t.clone());
    let signed = e.value_op("arith.ori", &[code, eight], i8t.clone());
    let code = e.value_op("arith.select", &[negative, signed, code], i8t.clone());
    let nan = e.cmpf("uno", x, x);
    e.value_op("arith.select", &[nan, eight, code], i8t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values of ONNX's Cast node test (float to FLOAT4E2M1), worked out from the format.
    #[test]
    fn rounds_to_even_and_saturates() {
        let cases = [
            (0.48, 0.5),
            (0.25, 0.0),
            (1.05, 1.0),
            (-3.5, -4.0),
            (-8.0, -6.0),
            (9.0, 6.0),
            (1e6, 6.0),
            (2.5, 2.0),
            (5.0, 4.0),
        ];
        for (x, want) in cases {
            assert_eq!(decode(encode(x)), want, "{x}");
        }
        assert_eq!(encode(f32::NAN), 0x8);
        assert_eq!(decode(encode(f32::NEG_INFINITY)), -6.0);
        for code in 0..16u8 {
            assert_eq!(encode(decode(code)), if code == 8 { 8 } else { code }, "{code}");
        }
    }
}
