//! Elementwise operators on dims ([`super::ElementwiseOp::on_dims`]): what integer shape
//! arithmetic computes when its operands are expressions of the run-time dims. Sums, products
//! and exact quotients are expressions; a comparison, a minimum or an absolute value is decided
//! where the dims' ranges decide it (`past + 1 == 0` never holds, as no dim is negative) and left
//! to the run otherwise (`None`).

use crate::dim::Dim;

/// The values a symbol may take in a run ([`crate::graph::Graph::symbol_range`]).
pub type Ranges<'a> = dyn Fn(&str) -> (i128, i128) + 'a;

/// An element function on dims (`None`: not expressible as a dim).
pub type DimFn = fn(&[&Dim], &Ranges) -> Option<Dim>;

pub fn add(a: &[&Dim], _: &Ranges) -> Option<Dim> {
    Some(a[0].add(a[1]))
}

pub fn sub(a: &[&Dim], _: &Ranges) -> Option<Dim> {
    Some(a[0].sub(a[1]))
}

pub fn mul(a: &[&Dim], _: &Ranges) -> Option<Dim> {
    Some(a[0].mul(a[1]))
}

pub fn same(a: &[&Dim], _: &Ranges) -> Option<Dim> {
    Some(a[0].clone())
}

pub fn neg(a: &[&Dim], _: &Ranges) -> Option<Dim> {
    Some(Dim::constant(0).sub(a[0]))
}

/// Truncating division: of numbers, or exact for every value of the symbols.
pub fn div(a: &[&Dim], _: &Ranges) -> Option<Dim> {
    match (a[0].as_const(), a[1].as_const()?) {
        (_, 0) => None,
        (Some(x), y) => Some(Dim::constant(x / y)),
        (None, _) => a[0].div_exact(a[1]),
    }
}

/// The interval of `a - b` over every run.
fn difference(a: &Dim, b: &Dim, ranges: &Ranges) -> (i128, i128) {
    a.sub(b).interval(ranges)
}

fn truth(b: bool) -> Dim {
    Dim::constant(i64::from(b))
}

pub fn equal(a: &[&Dim], ranges: &Ranges) -> Option<Dim> {
    match difference(a[0], a[1], ranges) {
        (0, 0) => Some(truth(true)),
        (lo, hi) if lo > 0 || hi < 0 => Some(truth(false)),
        _ => None,
    }
}

pub fn less(a: &[&Dim], ranges: &Ranges) -> Option<Dim> {
    match difference(a[0], a[1], ranges) {
        (_, hi) if hi < 0 => Some(truth(true)),
        (lo, _) if lo >= 0 => Some(truth(false)),
        _ => None,
    }
}

pub fn less_or_equal(a: &[&Dim], ranges: &Ranges) -> Option<Dim> {
    match difference(a[0], a[1], ranges) {
        (_, hi) if hi <= 0 => Some(truth(true)),
        (lo, _) if lo > 0 => Some(truth(false)),
        _ => None,
    }
}

pub fn greater(a: &[&Dim], ranges: &Ranges) -> Option<Dim> {
    less(&[a[1], a[0]], ranges)
}

pub fn greater_or_equal(a: &[&Dim], ranges: &Ranges) -> Option<Dim> {
    less_or_equal(&[a[1], a[0]], ranges)
}

/// The variadic minimum, where one operand is never above the others.
pub fn min(a: &[&Dim], ranges: &Ranges) -> Option<Dim> {
    a.iter().find(|x| a.iter().all(|y| difference(x, y, ranges).1 <= 0)).map(|x| (*x).clone())
}

/// The variadic maximum, where one operand is never below the others.
pub fn max(a: &[&Dim], ranges: &Ranges) -> Option<Dim> {
    a.iter().find(|x| a.iter().all(|y| difference(x, y, ranges).0 >= 0)).map(|x| (*x).clone())
}

pub fn abs(a: &[&Dim], ranges: &Ranges) -> Option<Dim> {
    match a[0].interval(ranges) {
        (lo, _) if lo >= 0 => Some(a[0].clone()),
        (_, hi) if hi <= 0 => neg(a, ranges),
        _ => None,
    }
}

/// Where with a condition known at compile time.
pub fn select(a: &[&Dim], _: &Ranges) -> Option<Dim> {
    Some(if a[0].as_const()? != 0 { a[1].clone() } else { a[2].clone() })
}

/// Not of a truth known at compile time.
pub fn not(a: &[&Dim], _: &Ranges) -> Option<Dim> {
    Some(truth(a[0].as_const()? == 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_are_decided_by_the_ranges() {
        let ranges = |s: &str| if s == "past" { (0, 4096) } else { (1, 4096) };
        let (past, seq) = (Dim::symbol("past"), Dim::symbol("seq"));
        let minus_one = Dim::constant(-1);
        assert_eq!(equal(&[&past, &minus_one], &ranges), Some(truth(false)));
        assert_eq!(equal(&[&past, &Dim::constant(0)], &ranges), None);
        assert_eq!(less(&[&past, &past.add(&seq)], &ranges), Some(truth(true)));
        assert_eq!(greater_or_equal(&[&seq, &Dim::constant(1)], &ranges), Some(truth(true)));
        assert_eq!(greater(&[&seq, &Dim::constant(1)], &ranges), None);
        assert_eq!(max(&[&past, &past.add(&seq)], &ranges), Some(past.add(&seq)));
        assert_eq!(min(&[&seq, &past], &ranges), None);
        assert_eq!(abs(&[&Dim::constant(0).sub(&seq)], &ranges), Some(seq.clone()));
        assert_eq!(select(&[&truth(false), &past, &seq], &ranges), Some(seq));
    }
}
