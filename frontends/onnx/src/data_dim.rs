//! Dims decided by input data: a Reshape whose shape, or a ReduceSum whose axes, is a graph
//! input rather than a constant. Such a dim is a symbol like `batch`, except that the run
//! computes its value from the inputs before anything else ([`DataExpr`], evaluated by
//! `emit`), checks it ([`DataDims::checks`]), and reports it (`NAME_output_dims`). Everything
//! after the prologue sees an ordinary run-time dim.

use crate::dim::Dim;

/// How a run computes a value from its dims and its inputs: integer arithmetic over dim
/// expressions and elements of integer inputs. Comparisons are 1 or 0.
#[derive(Clone, Debug, PartialEq)]
pub enum DataExpr {
    /// An expression of the dim symbols (the model's, or data dims defined earlier).
    Dim(Dim),
    /// Element `index` of an integer graph input of static shape.
    Element {
        input: String,
        index: usize,
    },
    /// Element `index` of a floating-point graph input of static shape (Resize's scales): a real,
    /// usable only under the real operations.
    RealElement {
        input: String,
        index: usize,
    },
    Op(DataOp, Vec<DataExpr>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DataOp {
    Add,
    Sub,
    Mul,
    /// Rounds toward negative infinity; the divisor is checked to be non-zero first.
    FloorDiv,
    Min,
    Max,
    Eq,
    Lt,
    /// `args[0] != 0 ? args[1] : args[2]`.
    Select,
    /// Real (f64) arithmetic: integer arguments are converted, and the result is a real.
    RealAdd,
    RealSub,
    RealMul,
    RealDiv,
    RealMin,
    RealMax,
    /// A real rounded to an integer (`Round`: halves away from zero). A NaN or a magnitude past
    /// 2^62 becomes -1, which the checks on sizes refuse.
    Floor,
    Ceil,
    Round,
    /// 1 when the first real is less than the second (0 for NaN).
    RealLt,
}

impl DataOp {
    /// Whether the result is a real.
    pub fn is_real(self) -> bool {
        matches!(
            self,
            DataOp::RealAdd | DataOp::RealSub | DataOp::RealMul | DataOp::RealDiv | DataOp::RealMin | DataOp::RealMax
        )
    }
}

impl DataExpr {
    pub fn num(c: i64) -> DataExpr {
        DataExpr::Dim(Dim::constant(c))
    }

    pub fn element(input: &str, index: usize) -> DataExpr {
        DataExpr::Element { input: input.to_string(), index }
    }

    pub fn real_element(input: &str, index: usize) -> DataExpr {
        DataExpr::RealElement { input: input.to_string(), index }
    }

    /// `op` over reals (`self`, then `b`).
    pub fn real(&self, op: DataOp, b: &DataExpr) -> DataExpr {
        DataExpr::Op(op, vec![self.clone(), b.clone()])
    }

    /// A real rounded by `op` (Floor, Ceil, Round) to an integer.
    pub fn rounded(&self, op: DataOp) -> DataExpr {
        DataExpr::Op(op, vec![self.clone()])
    }

    /// The number, when the expression is one.
    pub fn as_const(&self) -> Option<i64> {
        match self {
            DataExpr::Dim(d) => d.as_const(),
            _ => None,
        }
    }

    /// `op` over `args`, computed now when every argument is a number (and for sums and
    /// products of dims, which stay dims).
    pub fn op(op: DataOp, args: Vec<DataExpr>) -> DataExpr {
        let nums: Option<Vec<i64>> = args.iter().map(DataExpr::as_const).collect();
        if let Some(v) = nums {
            // Overflow (Slice's end of i64::MAX, normalized) stays an expression: a select
            // with a known condition usually discards it.
            return match fold(op, &v) {
                Some(r) => DataExpr::num(r),
                None => DataExpr::Op(op, args),
            };
        }
        if let (DataOp::Select, Some(c)) = (op, args[0].as_const()) {
            let mut args = args;
            return args.swap_remove(if c != 0 { 1 } else { 2 });
        }
        if let (DataOp::FloorDiv, [a, b]) = (op, args.as_slice()) {
            if b.as_const() == Some(1) {
                return a.clone();
            }
        }
        if let [DataExpr::Dim(a), DataExpr::Dim(b)] = args.as_slice() {
            let exact = match op {
                DataOp::Add => a.checked_add(b),
                DataOp::Sub => a.checked_sub(b),
                DataOp::Mul => a.checked_mul(b),
                DataOp::Eq if a == b => Some(Dim::fixed(1)),
                _ => None,
            };
            if let Some(d) = exact {
                return DataExpr::Dim(d);
            }
        }
        DataExpr::Op(op, args)
    }

    pub fn add(&self, b: &DataExpr) -> DataExpr {
        DataExpr::op(DataOp::Add, vec![self.clone(), b.clone()])
    }
    pub fn sub(&self, b: &DataExpr) -> DataExpr {
        DataExpr::op(DataOp::Sub, vec![self.clone(), b.clone()])
    }
    pub fn mul(&self, b: &DataExpr) -> DataExpr {
        DataExpr::op(DataOp::Mul, vec![self.clone(), b.clone()])
    }
    pub fn floor_div(&self, b: &DataExpr) -> DataExpr {
        DataExpr::op(DataOp::FloorDiv, vec![self.clone(), b.clone()])
    }
    /// Integer division rounding toward zero (ONNX's Div on integers); the divisor is checked
    /// to be non-zero first.
    pub fn trunc_div(&self, b: &DataExpr) -> DataExpr {
        let zero = DataExpr::num(0);
        let q = self.floor_div(b);
        let inexact = self.sub(&q.mul(b)).eq(&zero).not();
        let signs_differ = self.lt(&zero).eq(&b.lt(&zero)).not();
        signs_differ.and(&inexact).select(&q.add(&DataExpr::num(1)), &q)
    }
    pub fn min(&self, b: &DataExpr) -> DataExpr {
        DataExpr::op(DataOp::Min, vec![self.clone(), b.clone()])
    }
    pub fn max(&self, b: &DataExpr) -> DataExpr {
        DataExpr::op(DataOp::Max, vec![self.clone(), b.clone()])
    }
    pub fn eq(&self, b: &DataExpr) -> DataExpr {
        DataExpr::op(DataOp::Eq, vec![self.clone(), b.clone()])
    }
    pub fn lt(&self, b: &DataExpr) -> DataExpr {
        DataExpr::op(DataOp::Lt, vec![self.clone(), b.clone()])
    }
    /// `self != 0 ? then : otherwise`.
    pub fn select(&self, then: &DataExpr, otherwise: &DataExpr) -> DataExpr {
        DataExpr::op(DataOp::Select, vec![self.clone(), then.clone(), otherwise.clone()])
    }
    /// 1 when both are non-zero.
    pub fn and(&self, b: &DataExpr) -> DataExpr {
        self.select(&b.select(&DataExpr::num(1), &DataExpr::num(0)), &DataExpr::num(0))
    }
    pub fn not(&self) -> DataExpr {
        self.eq(&DataExpr::num(0))
    }

    /// The sum of `items` (0 for none).
    pub fn sum(items: impl IntoIterator<Item = DataExpr>) -> DataExpr {
        items.into_iter().fold(DataExpr::num(0), |acc, x| acc.add(&x))
    }

    /// The product of `items` (1 for none).
    pub fn product(items: impl IntoIterator<Item = DataExpr>) -> DataExpr {
        items.into_iter().fold(DataExpr::num(1), |acc, x| acc.mul(&x))
    }

    /// The expression with comparisons, minima and maxima of dims decided where the symbols'
    /// ranges (`range(s)`, inclusive) decide them, so that a Slice of `seq` clamped to its bounds
    /// stays an expression of dims (`seq - 1`) rather than a value the run computes.
    pub fn simplify(&self, range: &dyn Fn(&str) -> (i128, i128)) -> DataExpr {
        let DataExpr::Op(op, args) = self else { return self.clone() };
        let args: Vec<DataExpr> = args.iter().map(|a| a.simplify(range)).collect();
        // The difference of two dims, `args[1] - args[0]`, and its interval.
        let gap = match args.as_slice() {
            [DataExpr::Dim(a), DataExpr::Dim(b)] => b.checked_sub(a).map(|d| d.interval(range)),
            _ => None,
        };
        let decided = match (op, gap) {
            (DataOp::Lt, Some((lo, hi))) if lo > 0 || hi <= 0 => Some(DataExpr::num(i64::from(lo > 0))),
            (DataOp::Eq, Some((lo, hi))) if lo > 0 || hi < 0 => Some(DataExpr::num(0)),
            (DataOp::Min | DataOp::Max, Some(gap)) => min_or_max(*op, gap, &args),
            _ => None,
        };
        decided.unwrap_or_else(|| DataExpr::op(*op, args))
    }

    /// An axis read from data, negative ones counted from the end of `rank`.
    pub fn axis(&self, rank: usize) -> DataExpr {
        let r = DataExpr::num(rank as i64);
        self.lt(&DataExpr::num(0)).select(&self.add(&r), self)
    }

    /// 1 when `self` is in `[lo, hi)`.
    pub fn in_range(&self, lo: i64, hi: i64) -> DataExpr {
        DataExpr::num(lo - 1).lt(self).and(&self.lt(&DataExpr::num(hi)))
    }
}

/// `min(a, b)` or `max(a, b)` of two dims when the interval of `b - a` orders them.
fn min_or_max(op: DataOp, (lo, hi): (i128, i128), args: &[DataExpr]) -> Option<DataExpr> {
    let (a, b) = (&args[0], &args[1]);
    match op {
        DataOp::Min if lo >= 0 => Some(a.clone()),
        DataOp::Min if hi <= 0 => Some(b.clone()),
        DataOp::Max if lo >= 0 => Some(b.clone()),
        DataOp::Max if hi <= 0 => Some(a.clone()),
        _ => None,
    }
}

fn fold(op: DataOp, v: &[i64]) -> Option<i64> {
    Some(match (op, v) {
        (DataOp::Add, [a, b]) => a.checked_add(*b)?,
        (DataOp::Sub, [a, b]) => a.checked_sub(*b)?,
        (DataOp::Mul, [a, b]) => a.checked_mul(*b)?,
        (DataOp::FloorDiv, [a, b]) if *b != 0 => a.div_euclid(*b) - i64::from(b < &0 && a.rem_euclid(*b) != 0),
        (DataOp::Min, [a, b]) => *a.min(b),
        (DataOp::Max, [a, b]) => *a.max(b),
        (DataOp::Eq, [a, b]) => i64::from(a == b),
        (DataOp::Lt, [a, b]) => i64::from(a < b),
        (DataOp::Select, [c, a, b]) => {
            if *c != 0 {
                *a
            } else {
                *b
            }
        }
        _ => return None,
    })
}

/// A condition the inputs must meet, with the operator's words for it.
#[derive(Clone, Debug)]
pub struct DataCheck {
    pub holds: DataExpr,
    pub what: String,
    /// A value valid in ONNX that the compiled model does not support (Dropout in training
    /// mode): `XCC_ERROR_UNSUPPORTED_INPUT`, where other failures are
    /// `XCC_ERROR_BAD_SHAPE_INPUT`.
    pub unsupported: bool,
}

/// The model's data dims, in the order the run computes them (a later one may read an earlier
/// one), and the conditions on its shape inputs.
#[derive(Clone, Debug, Default)]
pub struct DataDims {
    pub dims: Vec<(String, DataExpr)>,
    pub checks: Vec<DataCheck>,
}

impl DataDims {
    /// A dim whose value is `x`: the dim itself when `x` is an expression of dims, else a new
    /// symbol `name` defined by it (or the one already so named: inference may run twice).
    pub fn define(&mut self, name: String, x: DataExpr) -> Dim {
        if let DataExpr::Dim(d) = x {
            return d;
        }
        match self.dims.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = x,
            None => self.dims.push((name.clone(), x)),
        }
        Dim::symbol(&name)
    }

    /// Requires `holds` of every run; `Err` with `what` when it is false whatever the data.
    pub fn require(&mut self, holds: DataExpr, what: impl Into<String>) -> Result<(), String> {
        self.add_check(holds, what.into(), false)
    }

    /// [`DataDims::require`] for a limit of the compiled model rather than of the operator.
    pub fn require_supported(&mut self, holds: DataExpr, what: impl Into<String>) -> Result<(), String> {
        self.add_check(holds, what.into(), true)
    }

    fn add_check(&mut self, holds: DataExpr, what: String, unsupported: bool) -> Result<(), String> {
        match holds.as_const() {
            Some(0) => Err(what),
            Some(_) => Ok(()),
            None => {
                // Shape rules run more than once (inference, then lowering).
                if !self.checks.iter().any(|c| c.holds == holds && c.what == what) {
                    self.checks.push(DataCheck { holds, what, unsupported });
                }
                Ok(())
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.dims.is_empty() && self.checks.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_fold_and_data_stays() {
        let x = DataExpr::element("shape", 0);
        assert_eq!(DataExpr::num(7).floor_div(&DataExpr::num(-2)).as_const(), Some(-4));
        assert_eq!(DataExpr::num(-7).floor_div(&DataExpr::num(2)).as_const(), Some(-4));
        assert_eq!(DataExpr::num(6).floor_div(&DataExpr::num(3)).as_const(), Some(2));
        assert_eq!(DataExpr::num(0).select(&x, &DataExpr::num(5)).as_const(), Some(5));
        assert_eq!(DataExpr::num(1).select(&x, &DataExpr::num(5)), x);
        assert_eq!(DataExpr::num(-1).axis(3).as_const(), Some(2));
        for (a, b) in [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, -3), (-6, 3), (0, 5)] {
            assert_eq!(DataExpr::num(a).trunc_div(&DataExpr::num(b)).as_const(), Some(a / b), "{a} / {b}");
        }
        assert!(x.add(&DataExpr::num(1)).as_const().is_none());
        let huge = DataExpr::num(i64::MAX).add(&DataExpr::num(1));
        assert!(huge.as_const().is_none());
        assert_eq!(DataExpr::num(0).select(&huge, &DataExpr::num(3)).as_const(), Some(3));
        let seq = DataExpr::Dim(Dim::symbol("seq"));
        assert_eq!(seq.mul(&DataExpr::num(2)), DataExpr::Dim(Dim::symbol("seq").mul(&Dim::fixed(2))));
    }

    #[test]
    fn ranges_decide_comparisons_of_dims() {
        let range = |s: &str| if s == "past" { (0, 448) } else { (1, 64) };
        let (past, seq) = (DataExpr::Dim(Dim::symbol("past")), DataExpr::Dim(Dim::symbol("seq")));
        let end = past.add(&seq);
        let table = DataExpr::num(512);
        assert_eq!(end.min(&table).simplify(&range), end);
        assert_eq!(end.max(&table).simplify(&range), table);
        assert_eq!(past.lt(&DataExpr::num(0)).simplify(&range).as_const(), Some(0));
        assert_eq!(past.lt(&end).simplify(&range).as_const(), Some(1));
        assert_eq!(seq.eq(&DataExpr::num(0)).simplify(&range).as_const(), Some(0));
        // Not decided: past may be 0 or more than 1.
        assert!(past.min(&DataExpr::num(1)).simplify(&range).as_const().is_none());
        assert!(past.eq(&DataExpr::num(0)).simplify(&range).as_const().is_none());
        // Nested: the slice of rows past..past+seq of a 512-row table is seq long.
        let count = end.min(&table).sub(&past.max(&DataExpr::num(0)).min(&table)).max(&DataExpr::num(0));
        assert_eq!(count.simplify(&range), seq);
        assert_eq!(seq.floor_div(&DataExpr::num(1)), seq);
    }

    #[test]
    fn definitions_and_checks() {
        let mut d = DataDims::default();
        assert_eq!(d.define("a".into(), DataExpr::num(3)), Dim::fixed(3));
        assert_eq!(d.define("y.0".into(), DataExpr::element("s", 0)), Dim::symbol("y.0"));
        d.define("y.0".into(), DataExpr::element("s", 1));
        assert_eq!(d.dims.len(), 1);
        assert!(d.require(DataExpr::num(1), "fine").is_ok());
        assert_eq!(d.require(DataExpr::num(0), "never"), Err("never".to_string()));
        assert!(d.require(DataExpr::element("s", 0).lt(&DataExpr::num(4)), "small").is_ok());
        assert_eq!(d.checks.len(), 1);
    }
}
