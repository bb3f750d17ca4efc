//! FLOAT8E8M0 (opset 24), the scale type of the microscaling formats: 8 exponent bits and
//! nothing else, code `c` being 2^(c - 127) and 0xFF NaN (no sign, no zero, no infinity). One
//! byte per element inside xcc. A value becomes its float32 exponent, rounded by Cast's
//! `round_mode` ("up", the default: any fraction raises it; "down"; "nearest": at or past half
//! way, ties to even) and, with `saturate`, held at 0xFE rather than rounded into NaN; NaN and
//! infinities become 0xFF. Sign and subnormal bits are not read (ONNX's reference casts so).

use crate::emit::{Emitter, LoopBuilder};
use xcc_ir::{Type, ValueId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    Up,
    Down,
    Nearest,
}

impl Rounding {
    /// Cast's `round_mode` attribute.
    pub fn of(mode: Option<&str>) -> Result<Rounding, String> {
        match mode.unwrap_or("up") {
            "up" => Ok(Rounding::Up),
            "down" => Ok(Rounding::Down),
            "nearest" => Ok(Rounding::Nearest),
            other => Err(format!("Cast's round_mode is up, down or nearest, not '{other}'")),
        }
    }
}

pub fn decode(code: u8) -> f32 {
    match code {
        0xFF => f32::NAN,
        // 2^-127 is a float32 subnormal.
        0 => f32::from_bits(0x0040_0000),
        c => f32::from_bits(u32::from(c) << 23),
    }
}

pub fn encode(x: f32, saturate: bool, rounding: Rounding) -> u8 {
    let bits = x.to_bits();
    let exponent = (bits >> 23) & 0xFF;
    if exponent == 0xFF {
        return 0xFF;
    }
    let up = match rounding {
        Rounding::Down => false,
        Rounding::Up => bits & 0x7F_FFFF != 0,
        Rounding::Nearest => {
            let (guard, rest) = (bits & 0x40_0000 != 0, bits & 0x3F_FFFF != 0);
            guard && (rest || exponent > 0)
        }
    };
    let up = up && !(saturate && exponent == 0xFE);
    (exponent + u32::from(up)) as u8
}

/// The IR of [`decode`] (an i8 code to f32).
pub fn emit_decode(e: &mut Emitter, code: ValueId) -> ValueId {
    let wide = e.value_op("arith.extui", &[code], Type::i32());
    let shift = e.const_int(23, Type::i32());
    let bits = e.value_op("arith.shli", &[wide, shift], Type::i32());
    let zero = e.const_int(0, Type::i32());
    let smallest = e.const_int(0x0040_0000, Type::i32());
    let is_zero = e.cmpi("eq", wide, zero);
    let bits = e.value_op("arith.select", &[is_zero, smallest, bits], Type::i32());
    let value = e.value_op("arith.bitcast", &[bits], Type::f32());
    let all = e.const_int(0xFF, Type::i32());
    let nan = e.cmpi("eq", wide, all);
    let quiet = e.const_float(f64::NAN, Type::f32());
    e.value_op("arith.select", &[nan, quiet, value], Type::f32())
}

/// The IR of [`encode`] (an f32 to an i8 code).
pub fn emit_encode(e: &mut Emitter, x: ValueId, saturate: bool, rounding: Rounding) -> ValueId {
    let i32t = Type::i32();
    let c = |e: &mut Emitter, v: i64| e.const_int(v as i128, Type::i32());
    let bits = e.value_op("arith.bitcast", &[x], i32t.clone());
    let (shift, mask) = (c(e, 23), c(e, 0xFF));
    let shifted = e.value_op("arith.shrui", &[bits, shift], i32t.clone());
    let exponent = e.value_op("arith.andi", &[shifted, mask], i32t.clone());
    let zero = c(e, 0);
    let any = |e: &mut Emitter, m: i64| {
        let m = c(e, m);
        let v = e.value_op("arith.andi", &[bits, m], Type::i32());
        e.cmpi("ne", v, zero)
    };
    let up = match rounding {
        Rounding::Down => e.const_int(0, Type::i1()),
        Rounding::Up => any(e, 0x7F_FFFF),
        Rounding::Nearest => {
            let (guard, rest) = (any(e, 0x40_0000), any(e, 0x3F_FFFF));
            let normal = e.cmpi("ne", exponent, zero);
            let either = e.value_op("arith.ori", &[rest, normal], Type::i1());
            e.value_op("arith.andi", &[guard, either], Type::i1())
        }
    };
    let up = if saturate {
        let top = c(e, 0xFE);
        let at_top = e.cmpi("eq", exponent, top);
        let one = e.const_int(1, Type::i1());
        let below = e.value_op("arith.xori", &[at_top, one], Type::i1());
        e.value_op("arith.andi", &[up, below], Type::i1())
    } else {
        up
    };
    let step = e.value_op("arith.extui", &[up], i32t.clone());
    let rounded = e.value_op("arith.addi", &[exponent, step], i32t.clone());
    let special = e.cmpi("eq", exponent, mask);
    let code = e.value_op("arith.select", &[special, mask, rounded], i32t);
    e.value_op("arith.trunci", &[code], Type::i8())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ONNX's Cast node test inputs, worked out by hand from the format: 0.124 (2^-4 * 1.984)
    /// rounds up to 2^-3, down to 2^-4, to nearest 2^-3; 1.1 up to 2; 0 is code 0.
    #[test]
    fn exponents_round_by_mode() {
        let up = |x: f32| decode(encode(x, true, Rounding::Up));
        assert_eq!([up(0.124), up(0.25), up(1.1), up(8.0)], [0.125, 0.25, 2.0, 8.0]);
        assert_eq!(decode(encode(0.124, true, Rounding::Down)), 0.0625);
        assert_eq!(decode(encode(0.124, true, Rounding::Nearest)), 0.125);
        assert_eq!(decode(encode(1.4, true, Rounding::Nearest)), 1.0);
        assert_eq!(encode(0.0, true, Rounding::Up), 0);
        assert_eq!(encode(f32::INFINITY, true, Rounding::Up), 0xFF);
        assert_eq!(encode(f32::MAX, true, Rounding::Up), 0xFE);
        assert_eq!(encode(f32::MAX, false, Rounding::Up), 0xFF);
        assert!(decode(0xFF).is_nan());
        assert_eq!(decode(127), 1.0);
    }
}
