//! `math-polynomial-approximation`: `math.exp`, `math.erf` and `math.tanh` on f32 (scalars or
//! vectors) become arithmetic — polynomials, a floor, integer exponent arithmetic and selects —
//! instead of calls to the C library, so the loops around them vectorize (a libm call per
//! element cannot). On GPUs too, where NVPTX has no code of its own for them, with log, log2,
//! log10, pow, sin, cos, tan and atan besides ([`super::device_math`]), the functions derived
//! from those ([`super::device_derived`]: log1p, expm1, the hyperbolic functions and their
//! inverses, asin, acos), and all of them on f64 too ([`super::device_f64`]).
//!
//! - exp: `x = n ln2 + r` with `n = round(x log2e)` and `|r| <= ln2 / 2` (ln2 in two parts, so
//!   `r` is exact to f32), `exp(r)` by a degree-5 polynomial, and `2^n` added to the result's
//!   exponent field as an integer. `n` comes from adding `1.5 * 2^23`, whose sum holds `n` in its
//!   low mantissa bits: no float-to-integer conversion, no rounding instruction. Above 88.72 it is
//!   +inf, below -87.33 (where the result would be subnormal) 0; NaN passes through. About 17
//!   vector instructions; worst error 2.1 ulp.
//! - erf: odd, so on `|x|`: below 1, `x P(x^2)` (degree 6); from 1 to 4,
//!   `1 - exp(-x^2) Q(x)` with `Q` (degree 10) fitting the scaled complement
//!   `exp(x^2) erfc(x)`; beyond 4 (where erf rounds to 1 in f32), 1. NaN passes through.
//! - tanh: odd; below 0.625, `x P(x^2)` (degree 5); above, `1 - 2 / (exp(2|x|) + 1)`, which
//!   saturates to 1 for large inputs. NaN passes through.
//!
//! The coefficients are least-squares fits in relative error (weighted towards minimax) made for
//! xcc; `test-suite/run/approximations` measures the worst error over a dense sweep of f32
//! inputs against the C library in double precision (the bounds it asserts are documented there).

use crate::builder::LoopBuilder;
use crate::kernel::Cursor;
use crate::pass::{LoweringOptions, Pass};
use xcc_ir::types::FloatKind;
use xcc_ir::{Diagnostic, Module, Type, ValueId};

pub struct PolynomialApproximation;

const EXP_POLY: [f64; 6] =
    [1.0, 0.9999996888783216, 0.49999118055502995, 0.16667678363349833, 0.04190222805307294, 0.008289139721954563];
const ERF_SMALL: [f64; 7] = [
    1.128379165738619,
    -0.3761262585750237,
    0.11283585412431957,
    -0.026853820898128655,
    0.005188342500292403,
    -0.0008010311280512439,
    7.854221074012069e-05,
];
const ERFCX: [f64; 11] = [
    0.9924925319663989,
    -1.0832407109394446,
    0.8760997800698077,
    -0.5447276143334409,
    0.2598665357539522,
    -0.09362987812941259,
    0.024869254795617066,
    -0.004697806717028245,
    0.0005950696691963686,
    -4.520342886527029e-05,
    1.553842642554315e-06,
];
const TANH_SMALL: [f64; 6] = [
    0.9999999961086316,
    -0.3333326070012278,
    0.1333113003024469,
    -0.05372121416687704,
    0.020591362611699512,
    -0.005660337405865953,
];

impl Pass for PolynomialApproximation {
    fn name(&self) -> &'static str {
        "math-polynomial-approximation"
    }

    fn run(&self, mut m: Module, options: &LoweringOptions) -> Result<Module, Diagnostic> {
        // On GPUs too: NVPTX has no exp, erf or tanh of its own (LLVM would need libdevice),
        // so these are device code without a library.
        let mut names = vec!["math.exp", "math.erf", "math.tanh"];
        if options.gpu() {
            names.extend(super::device_math::NAMES);
            names.extend(super::device_derived::NAMES);
        }
        for op in crate::kernel::ops_named(&m, &names) {
            let t = m.ty(m.ops[op].results[0]).clone();
            let elem = t.element_or_self().clone();
            let rewritten = if options.gpu() {
                super::gpu_rewrites(&m.ops[op].name, &elem)
            } else {
                elem == Type::Float(FloatKind::F32)
            };
            if !rewritten {
                continue;
            }
            let f64 = elem == Type::Float(FloatKind::F64);
            let x = m.ops[op].operands[0];
            let span = m.ops[op].span;
            let mut c = Cursor::new(&mut m, span);
            let mut f = F { c: &mut c, t: t.clone() };
            let operands = f.c.m.ops[op].operands.clone();
            let name = f.c.m.ops[op].name.clone();
            let y = match (name.as_str(), f64) {
                ("math.exp", _) => f.exp_of(x),
                ("math.erf", false) => f.erf(x),
                ("math.erf", true) => f.erf64(x),
                ("math.tanh", false) => f.tanh(x),
                ("math.tanh", true) => f.derived("math.tanh", x),
                (name, _) if super::device_derived::NAMES.contains(&name) => f.derived(name, x),
                (name, _) => f.device_math(name, &operands),
            };
            c.finish(op);
            let r = m.ops[op].results[0];
            m.replace_all_uses(r, y);
            m.erase_op(op);
        }
        Ok(m)
    }
}

/// Builds f32 arithmetic of one type (a scalar or a vector of f32).
pub(super) struct F<'a, 'm> {
    pub(super) c: &'a mut Cursor<'m>,
    pub(super) t: Type,
}

impl F<'_, '_> {
    pub(super) fn k(&mut self, v: f64) -> ValueId {
        let f64 = *self.t.element_or_self() == Type::Float(FloatKind::F64);
        match self.t {
            Type::Vector { .. } => self.c.splat_const(if f64 { v } else { v as f32 as f64 }, self.t.clone()),
            _ => self.c.const_float(v, self.t.clone()),
        }
    }

    pub(super) fn op(&mut self, name: &str, args: &[ValueId]) -> ValueId {
        let t = self.t.clone();
        self.c.value_op(name, args, t)
    }

    pub(super) fn poly(&mut self, coefficients: &[f64], u: ValueId) -> ValueId {
        let mut r = self.k(coefficients[coefficients.len() - 1]);
        for &c in coefficients[..coefficients.len() - 1].iter().rev() {
            let ck = self.k(c);
            r = self.c.fmuladd(r, u, ck);
        }
        r
    }

    pub(super) fn select(&mut self, cond: ValueId, a: ValueId, b: ValueId) -> ValueId {
        self.op("arith.select", &[cond, a, b])
    }

    pub(super) fn exp(&mut self, x: ValueId) -> ValueId {
        // n = round(x log2e), by adding 1.5 * 2^23: the sum's low mantissa bits are n, so its
        // bit pattern shifted left by 23 is n in the exponent field (the constant's own bits
        // shift out), and subtracting the constant back gives n as a float.
        let (log2e, magic) = (self.k(std::f64::consts::LOG2_E), self.k(12582912.0));
        let biased = self.c.fmuladd(x, log2e, magic);
        let n = self.op("arith.subf", &[biased, magic]);
        // ln2 = 0.693359375 (exact in few bits) - 2.12194440e-4: n * hi is exact.
        let (hi, lo) = (self.k(-0.693359375), self.k(2.121_944_4e-4));
        let r = self.c.fmuladd(n, hi, x);
        let r = self.c.fmuladd(n, lo, r);
        let p = self.poly(&EXP_POLY, r);
        // p * 2^n by adding n to p's exponent field: p is in [0.70, 1.42] and n in [-126, 128]
        // between the thresholds below, where the sum stays a normal f32 (n = 128 only with
        // r < 0, so p < 1).
        let it = self.t.with_element(Type::i32());
        let shift = self.int(23, &it);
        let biased_bits = self.c.value_op("arith.bitcast", &[biased], it.clone());
        let exponent = self.c.value_op("arith.shli", &[biased_bits, shift], it.clone());
        let p_bits = self.c.value_op("arith.bitcast", &[p], it.clone());
        let y_bits = self.c.value_op("arith.addi", &[p_bits, exponent], it.clone());
        let y = self.op("arith.bitcast", &[y_bits]);
        let (top, bottom) = (self.k(88.72283), self.k(-87.33654));
        let zero = self.k(0.0);
        let under = self.c.cmpf("olt", x, bottom);
        let y = self.select(under, zero, y);
        // Above the top and for NaN, x + inf: inf, or NaN.
        let inf = self.k(f64::INFINITY);
        let x_inf = self.op("arith.addf", &[x, inf]);
        let over_or_nan = self.c.cmpf("ugt", x, top);
        self.select(over_or_nan, x_inf, y)
    }

    pub(super) fn int(&mut self, v: i64, t: &Type) -> ValueId {
        match t {
            Type::Vector { .. } => self.c.splat_const(v as f64, t.clone()),
            _ => self.c.const_int(v as i128, t.clone()),
        }
    }

    /// `y`, or `x` where `x` is NaN.
    pub(super) fn keep_nan(&mut self, x: ValueId, y: ValueId) -> ValueId {
        let nan = self.c.cmpf("uno", x, x);
        self.select(nan, x, y)
    }

    fn erf(&mut self, x: ValueId) -> ValueId {
        let a = self.op("math.absf", &[x]);
        let a2 = self.op("arith.mulf", &[a, a]);
        let small = self.poly(&ERF_SMALL, a2);
        let small = self.op("arith.mulf", &[small, a]);
        let neg = self.op("arith.negf", &[a2]);
        let e = self.exp(neg);
        let q = self.poly(&ERFCX, a);
        let tail = self.op("arith.mulf", &[e, q]);
        let one = self.k(1.0);
        let large = self.op("arith.subf", &[one, tail]);
        let (b1, b4) = (self.k(1.0), self.k(4.0));
        let is_small = self.c.cmpf("olt", a, b1);
        let y = self.select(is_small, small, large);
        let beyond = self.c.cmpf("ogt", a, b4);
        let y = self.select(beyond, one, y);
        let y = self.op("math.copysign", &[y, x]);
        self.keep_nan(x, y)
    }

    fn tanh(&mut self, x: ValueId) -> ValueId {
        let a = self.op("math.absf", &[x]);
        let a2 = self.op("arith.mulf", &[a, a]);
        let small = self.poly(&TANH_SMALL, a2);
        let small = self.op("arith.mulf", &[small, a]);
        let two_a = self.op("arith.addf", &[a, a]);
        let e = self.exp(two_a);
        let one = self.k(1.0);
        let two = self.k(2.0);
        let d = self.op("arith.addf", &[e, one]);
        let q = self.op("arith.divf", &[two, d]);
        let large = self.op("arith.subf", &[one, q]);
        let bound = self.k(0.625);
        let is_small = self.c.cmpf("olt", a, bound);
        let y = self.select(is_small, small, large);
        let y = self.op("math.copysign", &[y, x]);
        self.keep_nan(x, y)
    }
}
