//! f64 exp, log, sin, cos, atan and erf as arithmetic, for GPUs (NVPTX has no code for them without
//! NVIDIA's libdevice). exp, log, sin, cos and atan reduce their argument so that a truncated
//! Taylor series converges past f64's precision, with the reduction's constants split in two or
//! three parts; erf sums a series of positive terms or a continued fraction:
//!
//! - exp: `x = n ln2 + r`, `n = roundeven(x log2e)`, `|r| <= ln2/2`; `exp(r)` to `r^13/13!`
//!   (truncation 4e-18); times `2^n` as two powers of two built in the exponent field, so that
//!   results down to the subnormals and up to the largest double come out. Above 709.78 +inf,
//!   below -745.13 0, NaN through.
//! - log: `x = m 2^e` from the bits, `m` in `[sqrt(1/2), sqrt(2))` (subnormals scaled by 2^54);
//!   `log m = 2 atanh(s)` with `s = (m - 1) / (m + 1)`, `|s| <= 0.172`, to `s^23/23`
//!   (truncation 1e-19); plus `e ln2`. 0 gives -inf, negatives NaN, +inf +inf.
//! - sin, cos: `x = j pi/2 + r`, `j = roundeven(x 2/pi)`, pi/2 in three parts (the first two 33
//!   bits each, so `j p` is exact while `|j| < 2^20`); `sin r` to `r^17/17!` and `cos r` to
//!   `r^18/18!` (truncation below 1e-16 relative for `|r| <= pi/4`), chosen and signed by `j mod 4`.
//!   Accurate while `|x| < 2^20` or so; larger arguments lose digits.
//! - atan: the f32 reduction (`device_math`) with the series to `t^31/31` ([`atan_series`]).
//! - erf: odd, so on `a = |x|`. Below 2, `2/sqrt(pi) a exp(-a^2) P(a^2)` with `P(z) = sum 2^n
//!   z^n / (1 3 5 ... (2n+1))`, every term positive (no cancellation), to `z^33` (truncation
//!   below 1e-18 of the sum). From 2, `1 - erfc(a)` with `erfc(a) = exp(-a^2) / (sqrt(pi) (a +
//!   (1/2) / (a + 1 / (a + (3/2) / (a + ...)))))`, the continued fraction 50 deep from the
//!   bottom (erfc's error below 1e-17, against erf's 1e-16 steps there).

use super::polynomial_approximation::F;
use crate::builder::LoopBuilder;
use xcc_ir::{Type, ValueId};

/// The first `count` coefficients of a series, `term(k)` for `k = 0, 1, ...`.
fn series(count: usize, term: impl Fn(usize) -> f64) -> Vec<f64> {
    (0..count).map(term).collect()
}

/// `(-1)^k`.
fn alternating(k: usize) -> f64 {
    if k.is_multiple_of(2) {
        1.0
    } else {
        -1.0
    }
}

/// atan's series `1 - u/3 + u^2/5 - ...` in `u = t^2`, to `t^31/31`: for `t^2 <= 0.072`
/// (`|t| <= tan(pi/12)`), truncation 1e-19.
pub(super) fn atan_series() -> Vec<f64> {
    series(16, |k| alternating(k) / (2 * k + 1) as f64)
}

/// erf's series in `z = a^2` after its factor `2/sqrt(pi) a exp(-z)`: `2^n / (2n+1)!!`, to
/// `n = 33` (enough for `a` below [`ERF_SPLIT`]).
fn erf_series() -> Vec<f64> {
    let mut c = vec![1.0];
    for n in 1..34 {
        let last = c[n - 1];
        c.push(last * 2.0 / (2 * n + 1) as f64);
    }
    c
}

/// Where erf's series gives way to erfc's continued fraction.
const ERF_SPLIT: f64 = 2.0;

/// The depth of erfc's continued fraction: 50 levels give erfc to 4e-18 from [`ERF_SPLIT`] on.
const ERFC_DEPTH: usize = 50;

fn factorial(n: usize) -> f64 {
    (1..=n).map(|k| k as f64).product()
}

impl F<'_, '_> {
    fn int64_op(&mut self, name: &str, a: ValueId, b: ValueId) -> ValueId {
        let it = self.t.with_element(Type::i64());
        self.c.value_op(name, &[a, b], it)
    }

    /// `2^n` for a whole `n` (an f64) in `[-1022, 1023]`, from the exponent field.
    fn power_of_two(&mut self, n: ValueId) -> ValueId {
        let it = self.t.with_element(Type::i64());
        let ni = self.c.value_op("arith.fptosi", &[n], it.clone());
        let (bias, shift) = (self.int(1023, &it), self.int(52, &it));
        let biased = self.int64_op("arith.addi", ni, bias);
        let field = self.int64_op("arith.shli", biased, shift);
        self.op("arith.bitcast", &[field])
    }

    pub(super) fn exp64(&mut self, x: ValueId) -> ValueId {
        // Clamped so that n stays where two powers of two make 2^n; the ends are selected below.
        let (low, high) = (self.k(-746.0), self.k(710.0));
        let xc = self.op("arith.maximumf", &[x, low]);
        let xc = self.op("arith.minimumf", &[xc, high]);
        let log2e = self.k(std::f64::consts::LOG2_E);
        let scaled = self.op("arith.mulf", &[xc, log2e]);
        let n = self.op("math.roundeven", &[scaled]);
        // ln2 = hi + lo, hi with its low 32 bits zero: n hi is exact.
        let (hi, lo) = (self.k(-6.931_471_803_691_238e-1), self.k(-1.908_214_929_270_587_7e-10));
        let r = self.c.fmuladd(n, hi, xc);
        let r = self.c.fmuladd(n, lo, r);
        let p = self.poly(&series(14, |k| 1.0 / factorial(k)), r);
        // 2^n as 2^(n - n/2) 2^(n/2): each factor a normal double.
        let half = self.k(0.5);
        let halved = self.op("arith.mulf", &[n, half]);
        let n1 = self.op("math.floor", &[halved]);
        let n2 = self.op("arith.subf", &[n, n1]);
        let (s1, s2) = (self.power_of_two(n1), self.power_of_two(n2));
        let y = self.op("arith.mulf", &[p, s1]);
        let y = self.op("arith.mulf", &[y, s2]);
        let (top, bottom) = (self.k(709.782_712_893_384), self.k(-745.133_219_101_941_2));
        let (zero, inf) = (self.k(0.0), self.k(f64::INFINITY));
        let under = self.c.cmpf("olt", x, bottom);
        let y = self.select(under, zero, y);
        let over = self.c.cmpf("ogt", x, top);
        let y = self.select(over, inf, y);
        self.keep_nan(x, y)
    }

    pub(super) fn log64(&mut self, x: ValueId) -> ValueId {
        // x = m 2^e with m in [1, 2).
        let (m, e) = self.split_exponent(x, 1023);
        // m above sqrt(2): m/2 and e + 1.
        let (sqrt2, half, one) = (self.k(std::f64::consts::SQRT_2), self.k(0.5), self.k(1.0));
        let high = self.c.cmpf("ogt", m, sqrt2);
        let halved = self.op("arith.mulf", &[m, half]);
        let m = self.select(high, halved, m);
        let e_more = self.op("arith.addf", &[e, one]);
        let e = self.select(high, e_more, e);
        // log m = 2 (s + s^3/3 + s^5/5 + ...), s = (m - 1) / (m + 1).
        let num = self.op("arith.subf", &[m, one]);
        let den = self.op("arith.addf", &[m, one]);
        let s = self.op("arith.divf", &[num, den]);
        let z = self.op("arith.mulf", &[s, s]);
        let p = self.poly(&series(12, |k| 2.0 / (2 * k + 1) as f64), z);
        let y = self.op("arith.mulf", &[s, p]);
        let (hi, lo) = (self.k(6.931_471_803_691_238e-1), self.k(1.908_214_929_270_587_7e-10));
        let y = self.c.fmuladd(e, lo, y);
        let y = self.c.fmuladd(e, hi, y);
        self.log_special_values(x, y)
    }

    pub(super) fn erf64(&mut self, x: ValueId) -> ValueId {
        let a = self.op("math.absf", &[x]);
        let split = self.k(ERF_SPLIT);
        // Each side on an argument clamped to its own range, so the other side's values stay
        // finite; the select takes one.
        let low = self.op("arith.minimumf", &[a, split]);
        let z = self.op("arith.mulf", &[low, low]);
        let minus = self.op("arith.negf", &[z]);
        let e = self.exp64(minus);
        let p = self.poly(&erf_series(), z);
        let scale = self.k(std::f64::consts::FRAC_2_SQRT_PI);
        let series = self.op("arith.mulf", &[low, scale]);
        let series = self.op("arith.mulf", &[series, e]);
        let series = self.op("arith.mulf", &[series, p]);
        let high = self.op("arith.maximumf", &[a, split]);
        let mut t = high;
        for k in (1..=ERFC_DEPTH).rev() {
            let half_k = self.k(k as f64 / 2.0);
            let q = self.op("arith.divf", &[half_k, t]);
            t = self.op("arith.addf", &[high, q]);
        }
        let z = self.op("arith.mulf", &[high, high]);
        let minus = self.op("arith.negf", &[z]);
        let e = self.exp64(minus);
        let root_pi = self.k(std::f64::consts::PI.sqrt());
        let d = self.op("arith.mulf", &[root_pi, t]);
        let erfc = self.op("arith.divf", &[e, d]);
        let one = self.k(1.0);
        let fraction = self.op("arith.subf", &[one, erfc]);
        let below = self.c.cmpf("olt", a, split);
        let y = self.select(below, series, fraction);
        self.op("math.copysign", &[y, x])
    }

    pub(super) fn sin_cos64(&mut self, x: ValueId, cos: bool) -> ValueId {
        let two_over_pi = self.k(std::f64::consts::FRAC_2_PI);
        let scaled = self.op("arith.mulf", &[x, two_over_pi]);
        let j = self.op("math.roundeven", &[scaled]);
        let mut r = x;
        for p in [1.570_796_326_734_125_6, 6.077_100_506_303_966e-11, 2.022_266_248_711_166_5e-21] {
            let minus = self.k(-p);
            r = self.c.fmuladd(j, minus, r);
        }
        let r2 = self.op("arith.mulf", &[r, r]);
        // sin r = r (1 - r^2/3! + r^4/5! ...), cos r = 1 - r^2/2! + r^4/4! ...
        let s = self.poly(&series(9, |k| alternating(k) / factorial(2 * k + 1)), r2);
        let sin = self.op("arith.mulf", &[r, s]);
        let cos_r = self.poly(&series(10, |k| alternating(k) / factorial(2 * k)), r2);
        // j as an integer for its quadrant, clamped first: past 2^52 the quadrant is lost anyway,
        // and fptosi must not overflow.
        let it = self.t.with_element(Type::i64());
        let (low, high) = (self.k(-4_503_599_627_370_496.0), self.k(4_503_599_627_370_496.0));
        let j_low = self.op("arith.maximumf", &[j, low]);
        let jc = self.op("arith.minimumf", &[j_low, high]);
        let q = self.c.value_op("arith.fptosi", &[jc], it);
        let v = self.by_quadrant(q, cos, (sin, cos_r));
        // Infinities give NaN, as the C library's; sin keeps a zero's sign (-0 too).
        let inf = self.k(f64::INFINITY);
        let a = self.op("math.absf", &[x]);
        let infinite = self.c.cmpf("oeq", a, inf);
        let nan = self.k(f64::NAN);
        let v = self.select(infinite, nan, v);
        if cos {
            return v;
        }
        let zero = self.k(0.0);
        let is_zero = self.c.cmpf("oeq", x, zero);
        self.select(is_zero, x, v)
    }
}
