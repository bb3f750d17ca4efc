//! The four 8-bit float formats of ONNX (`FLOAT8E4M3FN`, `FLOAT8E4M3FNUZ`, `FLOAT8E5M2`,
//! `FLOAT8E5M2FNUZ`): their bits to and from f32, once on Rust values (constants and folding)
//! and once as IR (a tensor of them is bytes; a cast decodes or encodes each element).
//!
//! The rules, from the ONNX specification of Cast: round to nearest, ties to even; a magnitude
//! past the largest finite value (after rounding), or an infinity, becomes that largest value
//! with `saturate` (the default), else infinity where the format has one (E5M2) and NaN where it
//! has none; NaN stays NaN; the FNUZ formats have no negative zero (0x80 is their NaN), and a
//! negative value that rounds to zero is +0 there.

use crate::emit::{Emitter, LoopBuilder};
use xcc_ir::{Type, ValueId};

/// One format's layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Float8 {
    pub mantissa_bits: u32,
    pub bias: i32,
    /// No negative zero and no infinity; 0x80 is NaN.
    pub fnuz: bool,
    /// The largest finite code (the sign bit clear).
    pub max: u32,
}

pub const E4M3FN: Float8 = Float8 { mantissa_bits: 3, bias: 7, fnuz: false, max: 0x7e };
pub const E4M3FNUZ: Float8 = Float8 { mantissa_bits: 3, bias: 8, fnuz: true, max: 0x7f };
pub const E5M2: Float8 = Float8 { mantissa_bits: 2, bias: 15, fnuz: false, max: 0x7b };
pub const E5M2FNUZ: Float8 = Float8 { mantissa_bits: 2, bias: 16, fnuz: true, max: 0x7f };

impl Float8 {
    fn exponent_mask(self) -> u32 {
        (1 << (7 - self.mantissa_bits)) - 1
    }

    /// E5M2's infinities: the exponent all ones and a zero mantissa (its NaNs have the same
    /// exponent). E4M3FN has no infinity and one NaN per sign, all ones.
    fn has_inf(self) -> bool {
        !self.fnuz && self.mantissa_bits == 2
    }

    fn inf_code(self) -> u32 {
        self.exponent_mask() << self.mantissa_bits
    }

    /// The NaN a conversion writes (positive; the FNUZ formats have only 0x80).
    fn nan_code(self) -> u32 {
        if self.fnuz {
            0x80
        } else {
            0x7f
        }
    }

    /// Whether `bits` is a NaN of this format.
    pub fn is_nan(self, bits: u8) -> bool {
        match (self.fnuz, self.has_inf()) {
            (true, _) => bits == 0x80,
            (false, true) => u32::from(bits & 0x7f) > self.inf_code(),
            (false, false) => bits & 0x7f == 0x7f,
        }
    }

    pub fn decode(self, bits: u8) -> f32 {
        if self.is_nan(bits) {
            return f32::NAN;
        }
        let b = u32::from(bits);
        let m = self.mantissa_bits;
        let (e, man) = ((b >> m) & self.exponent_mask(), b & ((1 << m) - 1));
        let magnitude = if self.has_inf() && b & 0x7f == self.inf_code() {
            f32::INFINITY
        } else if e == 0 {
            man as f32 * 2f32.powi(1 - self.bias - m as i32)
        } else {
            f32::from_bits(((e as i32 - self.bias + 127) as u32) << 23 | man << (23 - m))
        };
        if b & 0x80 != 0 {
            -magnitude
        } else {
            magnitude
        }
    }

    pub fn encode(self, x: f32, saturate: bool) -> u8 {
        if x.is_nan() {
            return self.nan_code() as u8;
        }
        let sign = (x.to_bits() >> 24) & 0x80;
        let a = x.abs();
        let m = self.mantissa_bits;
        let bits = a.to_bits();
        let exponent = (bits >> 23) as i32 - 127;
        let code = if a.is_infinite() {
            u32::MAX
        } else if exponent >= 1 - self.bias {
            let shift = 23 - m;
            let mut code = ((exponent + self.bias) as u32) << m | (bits & 0x7f_ffff) >> shift;
            let (rest, half) = (bits & ((1 << shift) - 1), 1 << (shift - 1));
            if rest > half || (rest == half && code & 1 == 1) {
                code += 1;
            }
            code
        } else {
            // Below the smallest normal: a count of the smallest subnormal, rounded to even (2^m
            // is the smallest normal, the right code too).
            (a as f64 * 2f64.powi(self.bias + m as i32 - 1)).round_ties_even() as u32
        };
        let code = match code {
            c if c <= self.max => c,
            _ if saturate => self.max,
            _ if self.has_inf() => self.inf_code(),
            _ => return self.nan_code() as u8,
        };
        if self.fnuz && code == 0 {
            return 0;
        }
        (code | sign) as u8
    }

    /// The IR of [`Float8::decode`]: an i8 of this format to f32.
    pub fn emit_decode(self, e: &mut Emitter, bits: ValueId) -> ValueId {
        let (i32t, f32t) = (Type::i32(), Type::f32());
        let m = self.mantissa_bits;
        let b = e.value_op("arith.extui", &[bits], i32t.clone());
        let k = |e: &mut Emitter, v: i64| e.const_int(v as i128, Type::i32());
        let (mbits, emask, mmask, low7, sign_bit) =
            (k(e, m as i64), k(e, self.exponent_mask() as i64), k(e, (1 << m) - 1), k(e, 0x7f), k(e, 0x80));
        let shifted = e.value_op("arith.shrui", &[b, mbits], i32t.clone());
        let exponent = e.value_op("arith.andi", &[shifted, emask], i32t.clone());
        let mantissa = e.value_op("arith.andi", &[b, mmask], i32t.clone());
        // Normal: the f32 with the exponent rebiased and the mantissa at the top.
        let rebias = k(e, (127 - self.bias) as i64);
        let e32 = e.value_op("arith.addi", &[exponent, rebias], i32t.clone());
        let (twenty_three, mshift) = (k(e, 23), k(e, (23 - m) as i64));
        let e32 = e.value_op("arith.shli", &[e32, twenty_three], i32t.clone());
        let m32 = e.value_op("arith.shli", &[mantissa, mshift], i32t.clone());
        let normal = e.value_op("arith.ori", &[e32, m32], i32t.clone());
        let normal = e.value_op("arith.bitcast", &[normal], f32t.clone());
        // Subnormal: the mantissa counts the smallest subnormal.
        let count = e.value_op("arith.uitofp", &[mantissa], f32t.clone());
        let unit = e.const_float(2f64.powi(1 - self.bias - m as i32), f32t.clone());
        let subnormal = e.value_op("arith.mulf", &[count, unit], f32t.clone());
        let zero = k(e, 0);
        let is_subnormal = e.cmpi("eq", exponent, zero);
        let mut magnitude = e.value_op("arith.select", &[is_subnormal, subnormal, normal], f32t.clone());
        let low = e.value_op("arith.andi", &[b, low7], i32t.clone());
        let nan = if self.fnuz {
            e.cmpi("eq", b, sign_bit)
        } else if self.has_inf() {
            let inf_code = k(e, self.inf_code() as i64);
            let inf = e.const_float(f64::INFINITY, f32t.clone());
            let is_inf = e.cmpi("eq", low, inf_code);
            magnitude = e.value_op("arith.select", &[is_inf, inf, magnitude], f32t.clone());
            e.cmpi("ugt", low, inf_code)
        } else {
            e.cmpi("eq", low, low7)
        };
        let negative = e.value_op("arith.andi", &[b, sign_bit], i32t.clone());
        let negative = e.cmpi("ne", negative, zero);
        let negated = e.value_op("arith.negf", &[magnitude], f32t.clone());
        let value = e.value_op("arith.select", &[negative, negated, magnitude], f32t.clone());
        let nan_value = e.const_float(f64::NAN, f32t.clone());
        e.value_op("arith.select", &[nan, nan_value, value], f32t)
    }

    /// The IR of [`Float8::encode`]: an f32 to an i8 of this format.
    pub fn emit_encode(self, e: &mut Emitter, x: ValueId, saturate: bool) -> ValueId {
        let (i32t, f32t) = (Type::i32(), Type::f32());
        let m = self.mantissa_bits;
        let k = |e: &mut Emitter, v: i64| e.const_int(v as i128, Type::i32());
        let bits = e.value_op("arith.bitcast", &[x], i32t.clone());
        let (abs_mask, twenty_four, sign_bit) = (k(e, 0x7fff_ffff), k(e, 24), k(e, 0x80));
        let a = e.value_op("arith.andi", &[bits, abs_mask], i32t.clone());
        let sign = e.value_op("arith.shrui", &[bits, twenty_four], i32t.clone());
        let sign = e.value_op("arith.andi", &[sign, sign_bit], i32t.clone());
        // Normal in the format: the rebiased exponent and the mantissa's top bits, rounded to
        // even on the bits dropped (a carry moves into the exponent, as it should).
        let shift = 23 - m;
        let (s, rebias) = (k(e, shift as i64), k(e, ((127 - self.bias) as i64) << m));
        let truncated = e.value_op("arith.shrui", &[a, s], i32t.clone());
        let code = e.value_op("arith.subi", &[truncated, rebias], i32t.clone());
        let (rest_mask, half, one) = (k(e, (1 << shift) - 1), k(e, 1 << (shift - 1)), k(e, 1));
        let rest = e.value_op("arith.andi", &[a, rest_mask], i32t.clone());
        let above = e.cmpi("ugt", rest, half);
        let tie = e.cmpi("eq", rest, half);
        let odd = e.value_op("arith.andi", &[code, one], i32t.clone());
        let zero = k(e, 0);
        let odd = e.cmpi("ne", odd, zero);
        let tie_up = e.value_op("arith.andi", &[tie, odd], Type::i1());
        let up = e.value_op("arith.ori", &[above, tie_up], Type::i1());
        let bump = e.value_op("arith.extui", &[up], i32t.clone());
        let normal = e.value_op("arith.addi", &[code, bump], i32t.clone());
        // Below the smallest normal: a count of the smallest subnormal, rounded to even.
        let abs = e.value_op("math.absf", &[x], f32t.clone());
        let scale = e.const_float(2f64.powi(self.bias + m as i32 - 1), f32t.clone());
        let scaled = e.value_op("arith.mulf", &[abs, scale], f32t.clone());
        // Large values take the other path; kept small here so the conversion stays defined.
        let bound = e.const_float(1024.0, f32t.clone());
        let scaled = e.value_op("arith.minimumf", &[scaled, bound], f32t.clone());
        let rounded = e.value_op("math.roundeven", &[scaled], f32t.clone());
        let subnormal = e.value_op("arith.fptoui", &[rounded], i32t.clone());
        let smallest_normal = k(e, ((127 - self.bias + 1) as i64) << 23);
        let is_normal = e.cmpi("uge", a, smallest_normal);
        let code = e.value_op("arith.select", &[is_normal, normal, subnormal], i32t.clone());
        // Past the largest finite value (infinities too).
        let max = k(e, self.max as i64);
        let over = e.cmpi("ugt", code, max);
        let overflow = match (saturate, self.has_inf()) {
            (true, _) => max,
            (false, true) => k(e, self.inf_code() as i64),
            (false, false) => k(e, self.nan_code() as i64),
        };
        let code = e.value_op("arith.select", &[over, overflow, code], i32t.clone());
        let signed = e.value_op("arith.ori", &[code, sign], i32t.clone());
        let mut result = signed;
        if self.fnuz {
            // No negative zero; the NaN is unsigned.
            let zero = k(e, 0);
            let nan = k(e, 0x80);
            let is_zero = e.cmpi("eq", code, zero);
            let is_nan_code = e.cmpi("eq", code, nan);
            let unsigned = e.value_op("arith.ori", &[is_zero, is_nan_code], Type::i1());
            result = e.value_op("arith.select", &[unsigned, code, signed], i32t.clone());
        }
        let inf = k(e, 0x7f80_0000);
        let nan = e.cmpi("ugt", a, inf);
        let nan_code = k(e, self.nan_code() as i64);
        let result = e.value_op("arith.select", &[nan, nan_code, result], i32t);
        e.value_op("arith.trunci", &[result], Type::i8())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values from the formats' definitions (the OCP 8-bit floating point specification and
    /// the FNUZ variants' papers): largest finite values, smallest subnormals, specials.
    #[test]
    fn known_codes_decode_to_their_values() {
        assert_eq!(E4M3FN.decode(0x7e), 448.0);
        assert_eq!(E4M3FN.decode(0x01), 2f32.powi(-9));
        assert!(E4M3FN.decode(0x7f).is_nan() && E4M3FN.decode(0xff).is_nan());
        assert_eq!(E4M3FN.decode(0xb8), -1.0);
        assert_eq!(E4M3FNUZ.decode(0x7f), 240.0);
        assert_eq!(E4M3FNUZ.decode(0x01), 2f32.powi(-10));
        assert!(E4M3FNUZ.decode(0x80).is_nan());
        assert_eq!(E5M2.decode(0x7b), 57344.0);
        assert_eq!(E5M2.decode(0x7c), f32::INFINITY);
        assert_eq!(E5M2.decode(0xfc), f32::NEG_INFINITY);
        assert!(E5M2.decode(0x7d).is_nan());
        assert_eq!(E5M2.decode(0x01), 2f32.powi(-16));
        assert_eq!(E5M2FNUZ.decode(0x7f), 57344.0);
        assert_eq!(E5M2FNUZ.decode(0x01), 2f32.powi(-17));
    }

    /// Every code of every format encodes back to itself (NaNs to the format's NaN).
    #[test]
    fn every_code_round_trips() {
        for f in [E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ] {
            for b in 0..=255u8 {
                let v = f.decode(b);
                let back = f.encode(v, true);
                if f.is_nan(b) {
                    assert!(f.is_nan(back), "{f:?} {b:#x}");
                } else if f.has_inf() && v.is_infinite() {
                    assert_eq!(back & 0x7f, f.max as u8, "infinity saturates: {f:?} {b:#x}");
                } else {
                    assert_eq!(back, b, "{f:?} {b:#x} = {v}");
                }
            }
        }
    }

    #[test]
    fn rounding_ties_to_even_and_overflow() {
        // 1 + 1/16 is halfway between 1 and 1 + 1/8: to 1 (even mantissa).
        assert_eq!(E4M3FN.encode(1.0625, true), 0x38);
        // 1 + 3/16 is halfway between 1 + 1/8 and 1 + 2/8: to 1 + 2/8.
        assert_eq!(E4M3FN.encode(1.1875, true), 0x3a);
        assert_eq!(E4M3FN.encode(1e6, true), 0x7e);
        assert_eq!(E4M3FN.encode(1e6, false), 0x7f);
        assert_eq!(E5M2.encode(1e6, false), 0x7c);
        assert_eq!(E5M2.encode(-1e6, true), 0xfb);
        assert_eq!(E4M3FNUZ.encode(-1e-9, true), 0, "no negative zero");
        assert_eq!(E4M3FNUZ.encode(1e6, false), 0x80);
    }
}
