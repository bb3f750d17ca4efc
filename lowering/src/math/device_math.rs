//! f32 math that GPUs get as arithmetic, since NVPTX has no code for it without NVIDIA's
//! libdevice (which xcc does not ship): `math-polynomial-approximation` rewrites these on GPU
//! targets only (CPUs keep the C library's). On f64 the same ops take f64's exp, log, sin, cos
//! and atan ([`super::device_f64`]).
//!
//! - log: `x = m 2^e` with `m` in `[sqrt(1/2), sqrt(2))` from the bits (subnormals scaled by 2^23
//!   first), `log(1 + t) = t - t^2/2 + t^3 P(t)` for `t = m - 1` (degree 7, relative error
//!   3e-8 in double over the range), plus `e ln2` in two parts. 0 gives -inf, negatives NaN,
//!   +inf +inf. log2 and log10 scale it.
//! - pow: `exp(y log|x|)`, with the sign of a negative base to an odd integer power, NaN for a
//!   negative base to a non-integer power, and 1 for `y = 0` or `x = 1` (NaN included, as IEEE's
//!   pow has it). log's rounding grows by `|y log x|` through the exp: a few ulp for moderate
//!   results, hundreds of ulp near the largest ones (f64's too).
//! - sin, cos: `x = j pi/2 + r` with `j = round(x 2/pi)` (pi/2 in three parts) and `|r| <= pi/4`;
//!   `sin r = r + r^3 S(r^2)`, `cos r = 1 - r^2/2 + r^4 C(r^2)` (degree 3 each), chosen and
//!   signed by `j mod 4`. Accurate to a few ulp while `|x| < 2^13` or so, where `j pi/2` stays
//!   exact enough; larger arguments lose digits.
//!
//! - tan: sin / cos of the same reduction.
//! - atan: `|x| > 1` through `pi/2 - atan(1/|x|)`, then `t > tan(pi/12)` through
//!   `pi/6 + atan((t sqrt3 - 1) / (sqrt3 + t))`, so that the polynomial `t + t^3 P(t^2)` (degree
//!   4, relative error 3e-10 in double; f64's series, [`super::device_f64::atan_series`]) sees
//!   `|t| <= tan(pi/12)`; the sign of x restored. atan of an infinity is pi/2 with its sign.
//!
//! The coefficients are least-squares fits (reweighted towards minimax) made for xcc.

use super::polynomial_approximation::F;
use crate::builder::LoopBuilder;
use xcc_ir::{Type, ValueId};

/// The ops rewritten here.
pub const NAMES: [&str; 8] =
    ["math.log", "math.log2", "math.log10", "math.powf", "math.sin", "math.cos", "math.tan", "math.atan"];

const LOG_POLY: [f64; 8] = [
    0.33333402015987473,
    -0.2500066390072463,
    0.19996113176353564,
    -0.16625375741765386,
    0.14311283928083204,
    -0.13246981111458542,
    0.12042630098187537,
    -0.06509942131546903,
];
const SIN_POLY: [f64; 4] = [-0.16666666641773534, 0.008333329731542468, -0.00019839495792510833, 2.720108851210273e-06];
const ATAN_POLY: [f64; 4] = [-0.3333331886561682, 0.1999802391147134, -0.14201245279467042, 0.09664698270067813];
const COS_POLY: [f64; 4] = [0.0416666666384858, -0.0013888885068751033, 2.4799860652033193e-05, -2.723797407514308e-07];

impl F<'_, '_> {
    /// The rewrite of `name` (one of [`NAMES`]) of `operands`.
    /// f32's own code; f64's from [`super::device_f64`], as the element type says.
    pub(super) fn device_math(&mut self, name: &str, operands: &[ValueId]) -> ValueId {
        let x = operands[0];
        match name {
            "math.log" => self.log_of(x),
            "math.log2" => self.scaled_log(x, std::f64::consts::LOG2_E),
            "math.log10" => self.scaled_log(x, std::f64::consts::LOG10_E),
            "math.powf" => self.pow(x, operands[1]),
            "math.sin" => self.sin_cos_of(x, false),
            "math.tan" => {
                let (sin, cos) = (self.sin_cos_of(x, false), self.sin_cos_of(x, true));
                self.op("arith.divf", &[sin, cos])
            }
            "math.atan" => self.atan(x),
            _ => self.sin_cos_of(x, true),
        }
    }

    fn sin_cos_of(&mut self, x: ValueId, cos: bool) -> ValueId {
        if *self.t.element_or_self() == Type::f32() {
            self.sin_cos(x, cos)
        } else {
            self.sin_cos64(x, cos)
        }
    }

    fn bits(&mut self, x: ValueId) -> ValueId {
        let it = self.t.with_element(Type::i32());
        self.c.value_op("arith.bitcast", &[x], it)
    }

    /// `x = m 2^e` for a positive `x` (subnormals scaled into the normal range first, `e`
    /// corrected), with `m`'s biased exponent field `m_exponent`: `(m, e)`, both floats. f32's
    /// fields are 8 and 23 bits, f64's 11 and 52.
    pub(super) fn split_exponent(&mut self, x: ValueId, m_exponent: i64) -> (ValueId, ValueId) {
        let f32 = *self.t.element_or_self() == Type::f32();
        let (width, mantissa_bits, exponent_mask) = if f32 { (32, 23, 0xff) } else { (64, 52, 0x7ff) };
        // 2^23 (f32) or 2^54 (f64) lifts the smallest subnormal into the normal range.
        let lift = if f32 { 23 } else { 54 };
        let it = self.t.with_element(Type::int(width));
        let int = |f: &mut Self, name: &str, a: ValueId, b: ValueId| f.c.value_op(name, &[a, b], it.clone());
        let smallest = self.k(if f32 { f32::MIN_POSITIVE as f64 } else { f64::MIN_POSITIVE });
        let scale = self.k(2f64.powi(lift));
        let sub = self.c.cmpf("olt", x, smallest);
        let scaled = self.op("arith.mulf", &[x, scale]);
        let xs = self.select(sub, scaled, x);
        let bits = self.c.value_op("arith.bitcast", &[xs], it.clone());
        let (shift, mask) = (self.int(mantissa_bits, &it), self.int(exponent_mask, &it));
        let (mantissa, field) = (self.int((1 << mantissa_bits) - 1, &it), self.int(m_exponent << mantissa_bits, &it));
        let shifted = int(self, "arith.shrui", bits, shift);
        let biased = int(self, "arith.andi", shifted, mask);
        let m_bits = int(self, "arith.andi", bits, mantissa);
        let m_bits = int(self, "arith.ori", m_bits, field);
        let m = self.op("arith.bitcast", &[m_bits]);
        let e = self.op("arith.sitofp", &[biased]);
        let (bias, sub_bias) = (self.k(m_exponent as f64), self.k((m_exponent + lift as i64) as f64));
        let bias = self.select(sub, sub_bias, bias);
        let e = self.op("arith.subf", &[e, bias]);
        (m, e)
    }

    /// The value for log's special arguments, else `y`: 0 gives -inf, below 0 NaN, +inf +inf,
    /// NaN NaN.
    pub(super) fn log_special_values(&mut self, x: ValueId, y: ValueId) -> ValueId {
        let (zero, ninf, inf) = (self.k(0.0), self.k(f64::NEG_INFINITY), self.k(f64::INFINITY));
        let nan = self.k(f64::NAN);
        let is_zero = self.c.cmpf("oeq", x, zero);
        let y = self.select(is_zero, ninf, y);
        let negative = self.c.cmpf("olt", x, zero);
        let y = self.select(negative, nan, y);
        let is_inf = self.c.cmpf("oeq", x, inf);
        let y = self.select(is_inf, inf, y);
        self.keep_nan(x, y)
    }

    pub(super) fn log(&mut self, x: ValueId) -> ValueId {
        // x = m 2^e, m in [1/2, 1).
        let (m, e) = self.split_exponent(x, 126);
        // m below sqrt(1/2): 2m and e - 1, so that t = m - 1 lies in [sqrt(1/2) - 1, sqrt(2) - 1).
        let sqrt_half = self.k(std::f64::consts::FRAC_1_SQRT_2);
        let low = self.c.cmpf("olt", m, sqrt_half);
        let doubled = self.op("arith.addf", &[m, m]);
        let m = self.select(low, doubled, m);
        let one = self.k(1.0);
        let e_less = self.op("arith.subf", &[e, one]);
        let e = self.select(low, e_less, e);
        let t = self.op("arith.subf", &[m, one]);
        let z = self.op("arith.mulf", &[t, t]);
        let p = self.poly(&LOG_POLY, t);
        let tz = self.op("arith.mulf", &[t, z]);
        let minus_half = self.k(-0.5);
        let y = self.c.fmuladd(minus_half, z, t);
        let y = self.c.fmuladd(tz, p, y);
        // + e ln2, ln2 = 0.693359375 (exact in few bits) - 2.12194440e-4.
        let (hi, lo) = (self.k(0.693359375), self.k(-2.121_944_4e-4));
        let y = self.c.fmuladd(e, lo, y);
        let y = self.c.fmuladd(e, hi, y);
        self.log_special_values(x, y)
    }

    fn scaled_log(&mut self, x: ValueId, scale: f64) -> ValueId {
        let l = self.log_of(x);
        let s = self.k(scale);
        self.op("arith.mulf", &[l, s])
    }

    fn pow(&mut self, x: ValueId, y: ValueId) -> ValueId {
        let a = self.op("math.absf", &[x]);
        let l = self.log_of(a);
        let yl = self.op("arith.mulf", &[y, l]);
        let r = self.exp_of(yl);
        // A negative base: an odd integer power is negative, a non-integer one NaN.
        let zero = self.k(0.0);
        let negative = self.c.cmpf("olt", x, zero);
        let floor = self.op("math.floor", &[y]);
        let integer = self.c.cmpf("oeq", floor, y);
        let half = self.k(0.5);
        let y_half = self.op("arith.mulf", &[y, half]);
        let half_floor = self.op("math.floor", &[y_half]);
        let even = self.c.cmpf("oeq", half_floor, y_half);
        let neg_r = self.op("arith.negf", &[r]);
        let signed = self.select(even, r, neg_r);
        let nan = self.k(f64::NAN);
        let r_negative = self.select(integer, signed, nan);
        let r = self.select(negative, r_negative, r);
        // y = 0 or x = 1: 1, NaN operands included.
        let one = self.k(1.0);
        let y_zero = self.c.cmpf("oeq", y, zero);
        let r = self.select(y_zero, one, r);
        let x_one = self.c.cmpf("oeq", x, one);
        self.select(x_one, one, r)
    }

    pub(super) fn atan(&mut self, x: ValueId) -> ValueId {
        let a = self.op("math.absf", &[x]);
        let one = self.k(1.0);
        let big = self.c.cmpf("ogt", a, one);
        let inverse = self.op("arith.divf", &[one, a]);
        let t = self.select(big, inverse, a);
        // t in (tan(pi/12), 1]: atan t = pi/6 + atan((t sqrt3 - 1) / (sqrt3 + t)).
        let (sqrt3, tan_pi_12) = (self.k(3f64.sqrt()), self.k((std::f64::consts::PI / 12.0).tan()));
        let mid = self.c.cmpf("ogt", t, tan_pi_12);
        let minus_one = self.k(-1.0);
        let num = self.c.fmuladd(t, sqrt3, minus_one);
        let den = self.op("arith.addf", &[sqrt3, t]);
        let shifted = self.op("arith.divf", &[num, den]);
        let u = self.select(mid, shifted, t);
        let u2 = self.op("arith.mulf", &[u, u]);
        let r = if *self.t.element_or_self() == Type::f32() {
            let u3 = self.op("arith.mulf", &[u2, u]);
            let p = self.poly(&ATAN_POLY, u2);
            self.c.fmuladd(u3, p, u)
        } else {
            let p = self.poly(&super::device_f64::atan_series(), u2);
            self.op("arith.mulf", &[u, p])
        };
        let (zero, sixth) = (self.k(0.0), self.k(std::f64::consts::FRAC_PI_6));
        let base = self.select(mid, sixth, zero);
        let r = self.op("arith.addf", &[r, base]);
        let half_pi = self.k(std::f64::consts::FRAC_PI_2);
        let reflected = self.op("arith.subf", &[half_pi, r]);
        let r = self.select(big, reflected, r);
        let r = self.op("math.copysign", &[r, x]);
        self.keep_nan(x, r)
    }

    fn sin_cos(&mut self, x: ValueId, cos: bool) -> ValueId {
        // j = round(x 2/pi) by adding 1.5 2^23 (see exp): the sum's low bits are j mod 4.
        let (two_over_pi, magic) = (self.k(std::f64::consts::FRAC_2_PI), self.k(12582912.0));
        let biased = self.c.fmuladd(x, two_over_pi, magic);
        let j = self.op("arith.subf", &[biased, magic]);
        // pi/2 = p1 + p2 + p3, p1 exact in 8 bits (j p1 exact for the j that matter).
        let p1 = 1.5703125;
        let p2 = (std::f64::consts::FRAC_PI_2 - p1) as f32 as f64;
        let p3 = std::f64::consts::FRAC_PI_2 - p1 - p2;
        let mut r = x;
        for p in [p1, p2, p3] {
            let minus = self.k(-p);
            r = self.c.fmuladd(j, minus, r);
        }
        let r2 = self.op("arith.mulf", &[r, r]);
        let s = self.poly(&SIN_POLY, r2);
        let r3 = self.op("arith.mulf", &[r2, r]);
        let sin = self.c.fmuladd(r3, s, r);
        let c = self.poly(&COS_POLY, r2);
        let r4 = self.op("arith.mulf", &[r2, r2]);
        let (one, minus_half) = (self.k(1.0), self.k(-0.5));
        let cos_r = self.c.fmuladd(minus_half, r2, one);
        let cos_r = self.c.fmuladd(r4, c, cos_r);
        let q = self.bits(biased);
        self.by_quadrant(q, cos, (sin, cos_r))
    }

    /// sin x (or cos x, `cos`) from `sin r` and `cos r` for `x = j pi/2 + r`, `q` an integer whose
    /// low bits are `j mod 4`: quadrant `q` (+1 for cos); odd quadrants take the other function,
    /// quadrants 2 and 3 the negation.
    pub(super) fn by_quadrant(&mut self, q: ValueId, cos: bool, (sin, cos_r): (ValueId, ValueId)) -> ValueId {
        let it = self.c.ty(q).clone();
        let int = |f: &mut Self, name: &str, a: ValueId, b: ValueId| f.c.value_op(name, &[a, b], it.clone());
        let (one_i, two_i, zero_i) = (self.int(1, &it), self.int(2, &it), self.int(0, &it));
        let q = if cos { int(self, "arith.addi", q, one_i) } else { q };
        let odd = int(self, "arith.andi", q, one_i);
        let odd = self.c.cmpi("ne", odd, zero_i);
        let v = self.select(odd, cos_r, sin);
        let upper = int(self, "arith.andi", q, two_i);
        let upper = self.c.cmpi("ne", upper, zero_i);
        let neg_v = self.op("arith.negf", &[v]);
        self.select(upper, neg_v, v)
    }
}
