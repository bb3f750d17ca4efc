//! Math that GPUs compute from exp, log, atan and sqrt (f32 or f64, [`F::exp_of`] and friends),
//! in forms that keep their relative accuracy where the naive formula cancels:
//!
//! - log1p(t): `log(u) t / (u - 1)` with `u = 1 + t` (the division undoes `u`'s rounding), `t`
//!   itself where `u` rounds to 1.
//! - expm1(x): `(u - 1) x / log(u)` with `u = exp(x)`, `x` where `u` rounds to 1, -1 where it is 0.
//! - sinh: `(e + e / (e + 1)) / 2` with `e = expm1(|x|)`; `exp(|x|/2)^2 / 2` past 20 (where `e`
//!   would overflow first). cosh: `(e + 1/e) / 2` with `e = exp(|x|)`, the same past 20. tanh (f64):
//!   `e / (e + 2)` with `e = expm1(2|x|)`, 1 past 22. All odd ones take x's sign back.
//! - asinh: `log1p(a + a^2 / (1 + sqrt(1 + a^2)))`, `log(a) + ln2` past 2^28. acosh:
//!   `log1p(t + sqrt(2t + t^2))` with `t = x - 1`, `log(x) + ln2` past 2^28, NaN below 1. atanh:
//!   `log1p(2a / (1 - a)) / 2`.
//! - asin: `atan(x / sqrt((1 - x)(1 + x)))`; acos: `2 atan(sqrt((1 - x) / (1 + x)))`.
//!
//! Arguments outside a function's domain give NaN through the square root or log1p of a
//! negative, as the C library's.

use super::polynomial_approximation::F;
use crate::builder::LoopBuilder;
use xcc_ir::types::FloatKind;
use xcc_ir::{Type, ValueId};

/// The ops rewritten here, for f32 and f64.
pub const NAMES: [&str; 9] = [
    "math.log1p",
    "math.expm1",
    "math.sinh",
    "math.cosh",
    "math.asinh",
    "math.acosh",
    "math.atanh",
    "math.asin",
    "math.acos",
];

impl F<'_, '_> {
    fn is_f64(&self) -> bool {
        *self.t.element_or_self() == Type::Float(FloatKind::F64)
    }

    /// exp of this precision.
    pub(super) fn exp_of(&mut self, x: ValueId) -> ValueId {
        if self.is_f64() {
            self.exp64(x)
        } else {
            self.exp(x)
        }
    }

    /// log of this precision.
    pub(super) fn log_of(&mut self, x: ValueId) -> ValueId {
        if self.is_f64() {
            self.log64(x)
        } else {
            self.log(x)
        }
    }

    /// The rewrite of `name` (one of [`NAMES`], or f64's tanh) of `x`.
    pub(super) fn derived(&mut self, name: &str, x: ValueId) -> ValueId {
        match name {
            "math.log1p" => self.log1p(x),
            "math.expm1" => self.expm1(x),
            "math.sinh" => self.sinh(x),
            "math.cosh" => self.cosh(x),
            "math.tanh" => self.tanh_from_expm1(x),
            "math.asinh" => self.asinh(x),
            "math.acosh" => self.acosh(x),
            "math.atanh" => self.atanh(x),
            "math.asin" => self.asin(x),
            _ => self.acos(x),
        }
    }

    fn log1p(&mut self, t: ValueId) -> ValueId {
        let one = self.k(1.0);
        let u = self.op("arith.addf", &[one, t]);
        let l = self.log_of(u);
        let d = self.op("arith.subf", &[u, one]);
        let q = self.op("arith.divf", &[t, d]);
        let y = self.op("arith.mulf", &[l, q]);
        let exact = self.c.cmpf("oeq", u, one);
        let y = self.select(exact, t, y);
        // log(u) for u = +inf (t / d is inf / inf there).
        let inf = self.k(f64::INFINITY);
        let infinite = self.c.cmpf("oeq", u, inf);
        self.select(infinite, l, y)
    }

    fn expm1(&mut self, x: ValueId) -> ValueId {
        let u = self.exp_of(x);
        let one = self.k(1.0);
        let d = self.op("arith.subf", &[u, one]);
        let l = self.log_of(u);
        let q = self.op("arith.divf", &[x, l]);
        let y = self.op("arith.mulf", &[d, q]);
        let exact = self.c.cmpf("oeq", u, one);
        let y = self.select(exact, x, y);
        // u = 0 (x far below 0) is -1 and u = +inf is +inf: u - 1 both.
        let (zero, inf) = (self.k(0.0), self.k(f64::INFINITY));
        let bottom = self.c.cmpf("oeq", u, zero);
        let y = self.select(bottom, d, y);
        let top = self.c.cmpf("oeq", u, inf);
        let y = self.select(top, d, y);
        self.keep_nan(x, y)
    }

    /// `exp(a) / 2` without overflowing first, as `(exp(a/2) / 2) exp(a/2)` (halving `a` is
    /// exact, where subtracting ln2 would round it).
    fn half_exp(&mut self, a: ValueId) -> ValueId {
        let half = self.k(0.5);
        let halved = self.op("arith.mulf", &[a, half]);
        let e = self.exp_of(halved);
        let half_e = self.op("arith.mulf", &[e, half]);
        self.op("arith.mulf", &[half_e, e])
    }

    fn sinh(&mut self, x: ValueId) -> ValueId {
        let a = self.op("math.absf", &[x]);
        let e = self.expm1(a);
        let one = self.k(1.0);
        let e1 = self.op("arith.addf", &[e, one]);
        let ratio = self.op("arith.divf", &[e, e1]);
        let y = self.hyperbolic(a, e, ratio);
        let y = self.op("math.copysign", &[y, x]);
        self.keep_nan(x, y)
    }

    fn cosh(&mut self, x: ValueId) -> ValueId {
        let a = self.op("math.absf", &[x]);
        let e = self.exp_of(a);
        let one = self.k(1.0);
        let inverse = self.op("arith.divf", &[one, e]);
        let y = self.hyperbolic(a, e, inverse);
        self.keep_nan(x, y)
    }

    /// `(p + q) / 2` for `a = |x|` up to 20, `exp(a) / 2` beyond (where `q` no longer counts).
    fn hyperbolic(&mut self, a: ValueId, p: ValueId, q: ValueId) -> ValueId {
        let sum = self.op("arith.addf", &[p, q]);
        let half = self.k(0.5);
        let small = self.op("arith.mulf", &[sum, half]);
        let large = self.half_exp(a);
        let twenty = self.k(20.0);
        let beyond = self.c.cmpf("ogt", a, twenty);
        self.select(beyond, large, small)
    }

    fn tanh_from_expm1(&mut self, x: ValueId) -> ValueId {
        let a = self.op("math.absf", &[x]);
        let two_a = self.op("arith.addf", &[a, a]);
        let e = self.expm1(two_a);
        let two = self.k(2.0);
        let d = self.op("arith.addf", &[e, two]);
        let y = self.op("arith.divf", &[e, d]);
        let (one, bound) = (self.k(1.0), self.k(22.0));
        let beyond = self.c.cmpf("ogt", a, bound);
        let y = self.select(beyond, one, y);
        let y = self.op("math.copysign", &[y, x]);
        self.keep_nan(x, y)
    }

    /// `log(v) + ln2`: the log of `2v`, for arguments whose squares would overflow.
    fn log_doubled(&mut self, v: ValueId) -> ValueId {
        let l = self.log_of(v);
        let ln2 = self.k(std::f64::consts::LN_2);
        self.op("arith.addf", &[l, ln2])
    }

    fn asinh(&mut self, x: ValueId) -> ValueId {
        let a = self.op("math.absf", &[x]);
        let a2 = self.op("arith.mulf", &[a, a]);
        let one = self.k(1.0);
        let r = self.op("arith.addf", &[a2, one]);
        let r = self.op("math.sqrt", &[r]);
        let r = self.op("arith.addf", &[r, one]);
        let q = self.op("arith.divf", &[a2, r]);
        let t = self.op("arith.addf", &[a, q]);
        let small = self.log1p(t);
        let large = self.log_doubled(a);
        let bound = self.k(268_435_456.0);
        let beyond = self.c.cmpf("ogt", a, bound);
        let y = self.select(beyond, large, small);
        let y = self.op("math.copysign", &[y, x]);
        self.keep_nan(x, y)
    }

    fn acosh(&mut self, x: ValueId) -> ValueId {
        let one = self.k(1.0);
        let t = self.op("arith.subf", &[x, one]);
        let t2 = self.op("arith.mulf", &[t, t]);
        let two_t = self.op("arith.addf", &[t, t]);
        let r = self.op("arith.addf", &[two_t, t2]);
        let r = self.op("math.sqrt", &[r]);
        let s = self.op("arith.addf", &[t, r]);
        let small = self.log1p(s);
        let large = self.log_doubled(x);
        let bound = self.k(268_435_456.0);
        let beyond = self.c.cmpf("ogt", x, bound);
        let y = self.select(beyond, large, small);
        // Below 1 (where t (t + 2) is positive again past -1): NaN.
        let nan = self.k(f64::NAN);
        let outside = self.c.cmpf("olt", x, one);
        let y = self.select(outside, nan, y);
        self.keep_nan(x, y)
    }

    fn atanh(&mut self, x: ValueId) -> ValueId {
        let a = self.op("math.absf", &[x]);
        let one = self.k(1.0);
        let d = self.op("arith.subf", &[one, a]);
        let two_a = self.op("arith.addf", &[a, a]);
        let q = self.op("arith.divf", &[two_a, d]);
        let l = self.log1p(q);
        let half = self.k(0.5);
        let y = self.op("arith.mulf", &[l, half]);
        let y = self.op("math.copysign", &[y, x]);
        self.keep_nan(x, y)
    }

    fn asin(&mut self, x: ValueId) -> ValueId {
        let one = self.k(1.0);
        let below = self.op("arith.subf", &[one, x]);
        let above = self.op("arith.addf", &[one, x]);
        let r = self.op("arith.mulf", &[below, above]);
        let r = self.op("math.sqrt", &[r]);
        let q = self.op("arith.divf", &[x, r]);
        let y = self.atan(q);
        self.keep_nan(x, y)
    }

    fn acos(&mut self, x: ValueId) -> ValueId {
        let one = self.k(1.0);
        let below = self.op("arith.subf", &[one, x]);
        let above = self.op("arith.addf", &[one, x]);
        let r = self.op("arith.divf", &[below, above]);
        let r = self.op("math.sqrt", &[r]);
        let a = self.atan(r);
        let y = self.op("arith.addf", &[a, a]);
        self.keep_nan(x, y)
    }
}
