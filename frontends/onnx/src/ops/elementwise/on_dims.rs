//! Elementwise operators on dims ([`super::ElementwiseOp::on_dims`]): what integer shape
//! arithmetic computes when its operands are expressions of the run-time dims. Sums, products
//! and exact quotients are dims; a comparison, a minimum, a select or a remainder is decided
//! where the dims' ranges decide it (`past + 1 == 0` never holds, as no dim is negative), and
//! is otherwise the expression the run evaluates before the kernels need it (a run-time dim of
//! its own, [`crate::graph::Graph::data_dim`]), as ONNX Runtime computes such shapes when the
//! nodes run.

use crate::data_dim::DataExpr;
use crate::dim::Dim;

/// The values a symbol may take in a run ([`crate::graph::Graph::symbol_range`]).
pub type Ranges<'a> = dyn Fn(&str) -> (i128, i128) + 'a;

/// An element function on dims: a dim where it is one, else what the run computes.
pub type DimFn = fn(&[&Dim], &Ranges) -> DataExpr;

fn dim(d: &Dim) -> DataExpr {
    DataExpr::Dim(d.clone())
}

pub fn add(a: &[&Dim], _: &Ranges) -> DataExpr {
    dim(&a[0].add(a[1]))
}

pub fn sub(a: &[&Dim], _: &Ranges) -> DataExpr {
    dim(&a[0].sub(a[1]))
}

pub fn mul(a: &[&Dim], _: &Ranges) -> DataExpr {
    dim(&a[0].mul(a[1]))
}

pub fn same(a: &[&Dim], _: &Ranges) -> DataExpr {
    dim(a[0])
}

pub fn neg(a: &[&Dim], _: &Ranges) -> DataExpr {
    dim(&Dim::constant(0).sub(a[0]))
}

/// Truncating division: of numbers, exact for every value of the symbols, or by the run (whose
/// divisor is checked non-zero first).
pub fn div(a: &[&Dim], _: &Ranges) -> DataExpr {
    match (a[0].as_const(), a[1].as_const()) {
        (Some(x), Some(y)) if y != 0 => DataExpr::num(x / y),
        (_, Some(y)) if y != 0 => match a[0].div_exact(a[1]) {
            Some(q) => dim(&q),
            None => dim(a[0]).trunc_div(&dim(a[1])),
        },
        _ => dim(a[0]).trunc_div(&dim(a[1])),
    }
}

/// Mod with `fmod = 0` (the remainder takes the divisor's sign): `a - b * floor(a / b)`.
pub fn modulo(a: &[&Dim], _: &Ranges) -> DataExpr {
    let (x, y) = (dim(a[0]), dim(a[1]));
    x.sub(&y.mul(&x.floor_div(&y)))
}

/// The interval of `a - b` over every run.
fn difference(a: &Dim, b: &Dim, ranges: &Ranges) -> (i128, i128) {
    a.sub(b).interval(ranges)
}

fn truth(b: bool) -> DataExpr {
    DataExpr::num(i64::from(b))
}

pub fn equal(a: &[&Dim], ranges: &Ranges) -> DataExpr {
    match difference(a[0], a[1], ranges) {
        (0, 0) => truth(true),
        (lo, hi) if lo > 0 || hi < 0 => truth(false),
        _ => dim(a[0]).eq(&dim(a[1])),
    }
}

pub fn less(a: &[&Dim], ranges: &Ranges) -> DataExpr {
    match difference(a[0], a[1], ranges) {
        (_, hi) if hi < 0 => truth(true),
        (lo, _) if lo >= 0 => truth(false),
        _ => dim(a[0]).lt(&dim(a[1])),
    }
}

pub fn less_or_equal(a: &[&Dim], ranges: &Ranges) -> DataExpr {
    match difference(a[0], a[1], ranges) {
        (_, hi) if hi <= 0 => truth(true),
        (lo, _) if lo > 0 => truth(false),
        _ => dim(a[1]).lt(&dim(a[0])).not(),
    }
}

pub fn greater(a: &[&Dim], ranges: &Ranges) -> DataExpr {
    less(&[a[1], a[0]], ranges)
}

pub fn greater_or_equal(a: &[&Dim], ranges: &Ranges) -> DataExpr {
    less_or_equal(&[a[1], a[0]], ranges)
}

/// The variadic minimum: the operand never above the others, where one is.
pub fn min(a: &[&Dim], ranges: &Ranges) -> DataExpr {
    match a.iter().find(|x| a.iter().all(|y| difference(x, y, ranges).1 <= 0)) {
        Some(x) => dim(x),
        None => a[1..].iter().fold(dim(a[0]), |m, x| m.min(&dim(x))),
    }
}

/// The variadic maximum: the operand never below the others, where one is.
pub fn max(a: &[&Dim], ranges: &Ranges) -> DataExpr {
    match a.iter().find(|x| a.iter().all(|y| difference(x, y, ranges).0 >= 0)) {
        Some(x) => dim(x),
        None => a[1..].iter().fold(dim(a[0]), |m, x| m.max(&dim(x))),
    }
}

pub fn abs(a: &[&Dim], ranges: &Ranges) -> DataExpr {
    match a[0].interval(ranges) {
        (lo, _) if lo >= 0 => dim(a[0]),
        (_, hi) if hi <= 0 => neg(a, ranges),
        _ => dim(a[0]).lt(&DataExpr::num(0)).select(&neg(a, ranges), &dim(a[0])),
    }
}

/// Where: the branch a known condition picks, else the run's choice.
pub fn select(a: &[&Dim], _: &Ranges) -> DataExpr {
    match a[0].as_const() {
        Some(c) if c != 0 => dim(a[1]),
        Some(_) => dim(a[2]),
        None => dim(a[0]).select(&dim(a[1]), &dim(a[2])),
    }
}

pub fn not(a: &[&Dim], _: &Ranges) -> DataExpr {
    dim(a[0]).not()
}

pub fn and(a: &[&Dim], _: &Ranges) -> DataExpr {
    dim(a[0]).and(&dim(a[1]))
}

pub fn or(a: &[&Dim], _: &Ranges) -> DataExpr {
    dim(a[0]).not().and(&dim(a[1]).not()).not()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_are_decided_by_the_ranges() {
        let ranges = |s: &str| if s == "past" { (0, 4096) } else { (1, 4096) };
        let (past, seq) = (Dim::symbol("past"), Dim::symbol("seq"));
        let minus_one = Dim::constant(-1);
        assert_eq!(equal(&[&past, &minus_one], &ranges), truth(false));
        assert_eq!(less(&[&past, &past.add(&seq)], &ranges), truth(true));
        assert_eq!(greater_or_equal(&[&seq, &Dim::constant(1)], &ranges), truth(true));
        assert_eq!(max(&[&past, &past.add(&seq)], &ranges), dim(&past.add(&seq)));
        assert_eq!(abs(&[&Dim::constant(0).sub(&seq)], &ranges), dim(&seq));
        assert_eq!(select(&[&Dim::constant(0), &past, &seq], &ranges), dim(&seq));
        assert_eq!(div(&[&seq.mul(&Dim::constant(6)), &Dim::constant(3)], &ranges), dim(&seq.mul(&Dim::constant(2))));
    }

    #[test]
    fn what_the_ranges_leave_open_is_computed_by_the_run() {
        let ranges = |_: &str| (0, 4096);
        let (past, seq) = (Dim::symbol("past"), Dim::symbol("seq"));
        for x in [
            equal(&[&past, &Dim::constant(0)], &ranges),
            greater(&[&seq, &Dim::constant(1)], &ranges),
            min(&[&seq, &past], &ranges),
            max(&[&seq, &past], &ranges),
            div(&[&seq, &Dim::constant(2)], &ranges),
            modulo(&[&seq, &Dim::constant(4)], &ranges),
        ] {
            assert!(!matches!(x, DataExpr::Dim(_)), "{x:?} is not a dim");
        }
    }
}
