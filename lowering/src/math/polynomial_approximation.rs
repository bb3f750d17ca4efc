//! `math-polynomial-approximation`: `math.exp`, `math.erf` and `math.tanh` on f32 (scalars or
//! vectors) become arithmetic — polynomials, a floor, integer exponent arithmetic and selects —
//! instead of calls to the C library, so the loops around them vectorize (a libm call per
//! element cannot). CPU targets only.
//!
//! - exp: `x = n ln2 + r` with `n = floor(x log2e + 1/2)` and `|r| <= ln2 / 2` (ln2 in two parts,
//!   so `r` is exact to f32), `exp(r)` by a degree-6 polynomial, times `2^n` built in the exponent
//!   bits (as two factors). Above 88.72 it is +inf, below -87.33 (where the result would be subnormal) 0; NaN
//!   passes through.
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

const EXP_POLY: [f64; 7] = [
    1.0000000005545855,
    1.000000036339217,
    0.49999992074939015,
    0.16666420096645784,
    0.041668226328964456,
    0.008374822003478975,
    0.0013836822108853003,
];
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
        if options.gpu {
            return Ok(m);
        }
        for op in crate::kernel::ops_named(&m, &["math.exp", "math.erf", "math.tanh"]) {
            let t = m.ty(m.ops[op].results[0]).clone();
            if *t.element_or_self() != Type::Float(FloatKind::F32) {
                continue;
            }
            let x = m.ops[op].operands[0];
            let span = m.ops[op].span;
            let mut c = Cursor::new(&mut m, span);
            let mut f = F { c: &mut c, t: t.clone() };
            let y = match f.c.m.ops[op].name.as_str() {
                "math.exp" => f.exp(x),
                "math.erf" => f.erf(x),
                _ => f.tanh(x),
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
struct F<'a, 'm> {
    c: &'a mut Cursor<'m>,
    t: Type,
}

impl F<'_, '_> {
    fn k(&mut self, v: f64) -> ValueId {
        match self.t {
            Type::Vector { .. } => self.c.splat_const(v as f32 as f64, self.t.clone()),
            _ => self.c.const_float(v, self.t.clone()),
        }
    }

    fn op(&mut self, name: &str, args: &[ValueId]) -> ValueId {
        let t = self.t.clone();
        self.c.value_op(name, args, t)
    }

    fn poly(&mut self, coefficients: &[f64], u: ValueId) -> ValueId {
        let mut r = self.k(coefficients[coefficients.len() - 1]);
        for &c in coefficients[..coefficients.len() - 1].iter().rev() {
            let ck = self.k(c);
            r = self.c.fmuladd(r, u, ck);
        }
        r
    }

    fn select(&mut self, cond: ValueId, a: ValueId, b: ValueId) -> ValueId {
        self.op("arith.select", &[cond, a, b])
    }

    fn exp(&mut self, x: ValueId) -> ValueId {
        let (log2e, half) = (self.k(std::f64::consts::LOG2_E), self.k(0.5));
        let scaled = self.c.fmuladd(x, log2e, half);
        let n = self.op("math.floor", &[scaled]);
        // ln2 = 0.693359375 (exact in few bits) - 2.12194440e-4: n * hi is exact.
        let (hi, lo) = (self.k(-0.693359375), self.k(2.121_944_4e-4));
        let r = self.c.fmuladd(n, hi, x);
        let r = self.c.fmuladd(n, lo, r);
        let p = self.poly(&EXP_POLY, r);
        let it = self.t.with_element(Type::i32());
        let ni = self.c.value_op("arith.fptosi", &[n], it.clone());
        // 2^n as 2^(n >> 1) * 2^(n - (n >> 1)): each factor a normal f32 for every n in
        // [-126, 128] (one factor alone overflows the exponent at n = 128).
        let one = self.int(1, &it);
        let n1 = self.c.value_op("arith.shrsi", &[ni, one], it.clone());
        let n2 = self.c.value_op("arith.subi", &[ni, n1], it.clone());
        let s1 = self.pow2(n1, &it);
        let s2 = self.pow2(n2, &it);
        let y = self.op("arith.mulf", &[p, s1]);
        let y = self.op("arith.mulf", &[y, s2]);
        let (top, bottom) = (self.k(88.72283), self.k(-87.33654));
        let (inf, zero) = (self.k(f64::INFINITY), self.k(0.0));
        let over = self.c.cmpf("ogt", x, top);
        let y = self.select(over, inf, y);
        let under = self.c.cmpf("olt", x, bottom);
        let y = self.select(under, zero, y);
        self.keep_nan(x, y)
    }

    /// `2^n` for an i32 `n` in [-126, 127], from the exponent bits.
    fn pow2(&mut self, n: ValueId, it: &Type) -> ValueId {
        let (bias, shift) = (self.int(127, it), self.int(23, it));
        let e = self.c.value_op("arith.addi", &[n, bias], it.clone());
        let e = self.c.value_op("arith.shli", &[e, shift], it.clone());
        self.op("arith.bitcast", &[e])
    }

    fn int(&mut self, v: i64, t: &Type) -> ValueId {
        match t {
            Type::Vector { .. } => self.c.splat_const(v as f64, t.clone()),
            _ => self.c.const_int(v as i128, t.clone()),
        }
    }

    /// `y`, or `x` where `x` is NaN.
    fn keep_nan(&mut self, x: ValueId, y: ValueId) -> ValueId {
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
