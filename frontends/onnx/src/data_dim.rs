//! Dims decided by input data: a Reshape whose shape, or a ReduceSum whose axes, is a graph
//! input rather than a constant. Such a dim is a symbol like `batch`, except that the run
//! computes its value from the inputs before anything else ([`DataExpr`], evaluated by
//! `emit`), checks it ([`DataDims::checks`]), and reports it (`NAME_output_dims`). Everything
//! after the prologue sees an ordinary run-time dim.
//!
//! A dim *found* by the run ([`DataDims::found`]: how many elements NonZero or Compress keep) is
//! known only once its operator has run. It has a capacity, a dim the prologue knows that it
//! never exceeds: its tensors are placed in the workspace at their capacity, the caller sizes
//! the outputs at it (`NAME_output_dims`), and the run writes the dims it found beside them.

use crate::dim::Dim;
use std::fmt;

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
    /// A measure that runtime-c takes of a graph input (its `count` elements, a dim the run
    /// knows before it starts; [`Measure`]): how StringSplit, StringNormalizer and ImageDecoder
    /// size their outputs.
    Measured {
        input: String,
        count: Dim,
        measure: Measure,
    },
}

/// What the run measures of an input's `count` elements.
#[derive(Clone, Debug, PartialEq)]
pub enum Measure {
    /// The most parts StringSplit cuts one of its strings into.
    MostParts { delimiter: Vec<u8>, maxsplit: i64 },
    /// How many of its strings StringNormalizer keeps (those not among `stopwords`).
    Kept { stopwords: Vec<Vec<u8>>, case_sensitive: bool },
    /// The height (`width` false) or width of the image its bytes encode (0 where they encode
    /// none ImageDecoder reads).
    ImageSide { width: bool },
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

    /// `op` over reals (`self`, then `b`); a number when every leaf is a number and so is the
    /// result (a whole real below 2^53, not -0; or a comparison), computed now as the run would
    /// compute it.
    pub fn real(&self, op: DataOp, b: &DataExpr) -> DataExpr {
        let x = DataExpr::Op(op, vec![self.clone(), b.clone()]);
        if op == DataOp::RealLt {
            if let (Some(a), Some(b)) = (self.real_const(), b.real_const()) {
                return DataExpr::num(i64::from(a < b));
            }
        }
        match x.real_const() {
            // -0 stays a real: a later division or comparison may see its sign.
            Some(r) if r.fract() == 0.0 && r.abs() < (1u64 << 53) as f64 && !(r == 0.0 && r.is_sign_negative()) => {
                DataExpr::num(r as i64)
            }
            _ => x,
        }
    }

    /// A real rounded by `op` (Floor, Ceil, Round) to an integer; a number when the real's
    /// leaves are numbers.
    pub fn rounded(&self, op: DataOp) -> DataExpr {
        match self.real_const() {
            Some(v) => DataExpr::num(round_real(op, v)),
            None => DataExpr::Op(op, vec![self.clone()]),
        }
    }

    /// The value of a real expression whose leaves are numbers, in f64 as the run computes it
    /// (`emit`'s `data_real`: integers converted, min and max NaN-propagating).
    fn real_const(&self) -> Option<f64> {
        match self {
            DataExpr::Dim(d) => d.as_const().map(|c| c as f64),
            DataExpr::Op(op, args) if op.is_real() => {
                let (a, b) = (args[0].real_const()?, args[1].real_const()?);
                Some(match op {
                    DataOp::RealAdd => a + b,
                    DataOp::RealSub => a - b,
                    DataOp::RealMul => a * b,
                    DataOp::RealDiv => a / b,
                    DataOp::RealMin => minimum(a, b),
                    _ => -minimum(-a, -b),
                })
            }
            _ => None,
        }
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
            // A positive divisor of every coefficient divides exactly: `floor_div(6*w, 2)` is `3*w`.
            if let (DataExpr::Dim(a), Some(q @ 1..)) = (a, b.as_const()) {
                if let Some(exact) = a.div_exact(&Dim::constant(q)) {
                    return DataExpr::Dim(exact);
                }
            }
        }
        if let Some(x) = added_constant(op, &args) {
            return x;
        }
        if let (DataOp::Mul, [a, b]) = (op, args.as_slice()) {
            match (a.as_const(), b.as_const()) {
                (Some(0), _) | (_, Some(0)) => return DataExpr::num(0),
                (Some(1), _) => return b.clone(),
                (_, Some(1)) => return a.clone(),
                _ => {}
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
            [a, b] => a.interval(range).zip(b.interval(range)).map(|((a0, a1), (b0, b1))| (b0 - a1, b1 - a0)),
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

    /// Whether the run needs the inputs' elements to compute it; a dim that reads only dims
    /// (a floor division of dims, a minimum no range decides) is computed from the dims alone.
    pub fn reads_elements(&self) -> bool {
        match self {
            DataExpr::Dim(_) => false,
            DataExpr::Element { .. } | DataExpr::RealElement { .. } | DataExpr::Measured { .. } => true,
            DataExpr::Op(_, args) => args.iter().any(DataExpr::reads_elements),
        }
    }

    /// The graph inputs whose elements (or measures) the expression reads, added to `names`.
    pub fn inputs_read(&self, names: &mut std::collections::BTreeSet<String>) {
        match self {
            DataExpr::Dim(_) => {}
            DataExpr::Element { input, .. }
            | DataExpr::RealElement { input, .. }
            | DataExpr::Measured { input, .. } => {
                names.insert(input.clone());
            }
            DataExpr::Op(_, args) => args.iter().for_each(|a| a.inputs_read(names)),
        }
    }

    /// Whether the expression reads a dim for which `is` holds.
    pub fn reads_dim(&self, is: &dyn Fn(&Dim) -> bool) -> bool {
        match self {
            DataExpr::Dim(d) => is(d),
            DataExpr::Element { .. } | DataExpr::RealElement { .. } | DataExpr::Measured { .. } => false,
            DataExpr::Op(_, args) => args.iter().any(|a| a.reads_dim(is)),
        }
    }

    /// The integer value when every symbol has one (`value`) and no step overflows or divides
    /// by 0; `None` for reals and elements.
    pub fn eval(&self, value: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
        match self {
            DataExpr::Dim(d) => d.terms().try_fold(0i64, |sum, (c, syms)| {
                let term = syms.iter().try_fold(c, |t, s| t.checked_mul(value(s)?))?;
                sum.checked_add(term)
            }),
            DataExpr::Element { .. } | DataExpr::RealElement { .. } | DataExpr::Measured { .. } => None,
            DataExpr::Op(op, args) => {
                let v: Vec<i64> = args.iter().map(|a| a.eval(value)).collect::<Option<_>>()?;
                fold(*op, &v)
            }
        }
    }

    /// Whether the value never decreases as a symbol grows: dims whose terms with symbols have
    /// positive coefficients, combined by sums, products, minima, maxima and floor divisions by
    /// a positive number. What a workspace planned at the symbols' maxima needs of a computed
    /// dim.
    pub fn grows(&self) -> bool {
        match self {
            DataExpr::Dim(d) => d.terms().all(|(c, syms)| c >= 0 || syms.is_empty()),
            DataExpr::Op(DataOp::Add | DataOp::Min | DataOp::Max, args) => args.iter().all(DataExpr::grows),
            DataExpr::Op(DataOp::Mul, args) => {
                args.iter().all(|a| a.grows() && a.eval(&|_| Some(0)).is_some_and(|v| v >= 0))
            }
            DataExpr::Op(DataOp::Sub, args) => args[0].grows() && args[1].as_const().is_some(),
            DataExpr::Op(DataOp::FloorDiv, args) => args[0].grows() && args[1].as_const().is_some_and(|c| c > 0),
            _ => false,
        }
    }

    /// The least and the greatest value when each symbol `s` is within `range(s)` (interval
    /// arithmetic, saturating far past any size); `None` when an element is read.
    pub fn interval(&self, range: &dyn Fn(&str) -> (i128, i128)) -> Option<(i128, i128)> {
        let DataExpr::Op(op, args) = self else {
            return match self {
                DataExpr::Dim(d) => Some(d.interval(range)),
                _ => None,
            };
        };
        if matches!(op, DataOp::Eq | DataOp::Lt | DataOp::RealLt) {
            return Some((0, 1));
        }
        let v: Vec<(i128, i128)> = args.iter().map(|a| a.interval(range)).collect::<Option<_>>()?;
        let corners = |f: &dyn Fn(i128, i128) -> i128| {
            let c = [f(v[0].0, v[1].0), f(v[0].0, v[1].1), f(v[0].1, v[1].0), f(v[0].1, v[1].1)];
            Some((*c.iter().min()?, *c.iter().max()?))
        };
        match op {
            DataOp::Add => Some((v[0].0.saturating_add(v[1].0), v[0].1.saturating_add(v[1].1))),
            DataOp::Sub => Some((v[0].0.saturating_sub(v[1].1), v[0].1.saturating_sub(v[1].0))),
            DataOp::Mul => corners(&|a, b| a.saturating_mul(b)),
            DataOp::Min => Some((v[0].0.min(v[1].0), v[0].1.min(v[1].1))),
            DataOp::Max => Some((v[0].0.max(v[1].0), v[0].1.max(v[1].1))),
            DataOp::FloorDiv if v[1].0 > 0 => corners(&|a, b| a.div_euclid(b)),
            DataOp::Select => Some((v[1].0.min(v[2].0), v[1].1.max(v[2].1))),
            _ => None,
        }
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

/// `a + c` or `a - c` for a number `c` and an expression `a` that is not a dim (dims add
/// exactly), with the numbers gathered: `(x + 1) - 1` is `x`.
fn added_constant(op: DataOp, args: &[DataExpr]) -> Option<DataExpr> {
    let not_dim = |x: &DataExpr| !matches!(x, DataExpr::Dim(_));
    let (a, c) = match (op, args) {
        (DataOp::Add, [a, b]) if not_dim(a) => (a, b.as_const()?),
        (DataOp::Add, [b, a]) if not_dim(a) => (a, b.as_const()?),
        (DataOp::Sub, [a, b]) if not_dim(a) => (a, b.as_const()?.checked_neg()?),
        _ => return None,
    };
    let (base, k) = match a {
        DataExpr::Op(DataOp::Add, inner) => match inner.as_slice() {
            [x, y] => y.as_const().map_or((a, 0), |k| (x, k)),
            _ => (a, 0),
        },
        _ => (a, 0),
    };
    match k.checked_add(c)? {
        0 => Some(base.clone()),
        total => Some(DataExpr::Op(DataOp::Add, vec![base.clone(), DataExpr::num(total)])),
    }
}

/// C-like text for messages and the header: `min(seq, 3)`, `floor_div(h - 1, 2) + 1`.
impl fmt::Display for DataExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let wrapped = |x: &DataExpr| match x {
            DataExpr::Dim(d) if d.terms().count() > 1 => format!("({x})"),
            DataExpr::Op(op, _) if op.infix().is_some() => format!("({x})"),
            _ => x.to_string(),
        };
        match self {
            DataExpr::Dim(d) => write!(f, "{d}"),
            DataExpr::Element { input, index } | DataExpr::RealElement { input, index } => {
                write!(f, "{input}[{index}]")
            }
            DataExpr::Measured { input, measure: Measure::MostParts { .. }, .. } => {
                write!(f, "most_parts({input})")
            }
            DataExpr::Measured { input, measure: Measure::Kept { .. }, .. } => write!(f, "kept({input})"),
            DataExpr::Measured { input, measure: Measure::ImageSide { width }, .. } => {
                write!(f, "image_{}({input})", if *width { "width" } else { "height" })
            }
            DataExpr::Op(op, args) => match (op.infix(), args.as_slice()) {
                (Some(sign), [a, b]) => write!(f, "{} {sign} {}", wrapped(a), wrapped(b)),
                (_, [c, a, b]) if *op == DataOp::Select => {
                    write!(f, "{} ? {} : {}", wrapped(c), wrapped(a), wrapped(b))
                }
                _ => {
                    let args: Vec<String> = args.iter().map(ToString::to_string).collect();
                    write!(f, "{}({})", op.function_name(), args.join(", "))
                }
            },
        }
    }
}

impl DataOp {
    /// The C operator for the integer operations written infix.
    fn infix(self) -> Option<&'static str> {
        Some(match self {
            DataOp::Add | DataOp::RealAdd => "+",
            DataOp::Sub | DataOp::RealSub => "-",
            DataOp::Mul | DataOp::RealMul => "*",
            DataOp::RealDiv => "/",
            DataOp::Eq => "==",
            DataOp::Lt | DataOp::RealLt => "<",
            _ => return None,
        })
    }

    fn function_name(self) -> &'static str {
        match self {
            DataOp::Min | DataOp::RealMin => "min",
            DataOp::Max | DataOp::RealMax => "max",
            DataOp::Floor => "floor",
            DataOp::Ceil => "ceil",
            DataOp::Round => "round",
            DataOp::FloorDiv => "floor_div",
            _ => "op",
        }
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

/// The magnitude from which a rounded real is no dim (2^62): it becomes -1, which the checks on
/// sizes refuse.
pub const ROUNDED_LIMIT: f64 = 4.611_686_018_427_388e18;

/// `v` rounded by `op` (Floor, Ceil, Round: halves away from zero) as the run rounds it: NaN and
/// magnitudes from [`ROUNDED_LIMIT`] on give -1.
fn round_real(op: DataOp, v: f64) -> i64 {
    let r = match op {
        DataOp::Floor => v.floor(),
        DataOp::Ceil => v.ceil(),
        _ => v.round(),
    };
    if r.abs() < ROUNDED_LIMIT {
        r as i64
    } else {
        -1
    }
}

/// IEEE 754-2019's minimum, as the run's `arith.minimumf`: NaN if either is, -0 below +0.
fn minimum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_negative() {
            a
        } else {
            b
        }
    } else {
        a.min(b)
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
    /// Whether the condition itself reads input elements (then a failure is the input's fault,
    /// `XCC_ERROR_BAD_SHAPE_INPUT`, else the dims', `XCC_ERROR_BAD_DIM`); an If's condition that
    /// guards it does not count.
    pub reads_elements: bool,
}

/// The model's data dims, in the order the run computes them (a later one may read an earlier
/// one), and the conditions on its shape inputs.
#[derive(Clone, Debug, Default)]
pub struct DataDims {
    pub dims: Vec<(String, DataExpr)>,
    pub checks: Vec<DataCheck>,
    /// Dims found by the run, each with its capacity.
    pub found: Vec<(String, Dim)>,
    /// The node whose shape rule is running (`Attention node 'a'`), which a condition it adds
    /// names, so that a run's failed check says where it comes from.
    pub node: String,
    /// The condition under which that node runs, when it is in a branch of an If taken at run
    /// time ([`Node::guard`](crate::graph::Node)): its conditions hold where it runs, and the
    /// dims it defines are 0 where it does not (so that the other branch's tensors are empty,
    /// never negative).
    pub guard: Option<DataExpr>,
}

impl DataDims {
    /// A dim whose value is `x`: the dim itself when `x` is an expression of dims, else a new
    /// symbol `name` defined by it (or the one already so named: inference may run twice). Dims
    /// with the same definition share one symbol, so that tensors computed alike have equal
    /// dims: a residual block's strided branch and its strided shortcut.
    pub fn define(&mut self, name: String, x: DataExpr) -> Dim {
        if let DataExpr::Dim(d) = x {
            return d;
        }
        let x = match &self.guard {
            Some(runs) => runs.select(&x, &DataExpr::num(0)),
            None => x,
        };
        if let Some(slot) = self.dims.iter_mut().find(|(n, _)| *n == name) {
            slot.1 = x;
            return Dim::symbol(&name);
        }
        if let Some((same, _)) = self.dims.iter().find(|(_, y)| *y == x) {
            return Dim::symbol(same);
        }
        self.dims.push((name.clone(), x));
        Dim::symbol(&name)
    }

    /// A dim the run finds when an operator runs, at most `capacity` (an expression of the
    /// dims the prologue knows): the symbol `name`, defined again when inference runs again.
    pub fn find(&mut self, name: String, capacity: Dim) -> Dim {
        match self.found.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = capacity,
            None => self.found.push((name.clone(), capacity)),
        }
        Dim::symbol(&name)
    }

    /// The found dim `s`'s capacity, when `s` is one.
    pub fn capacity(&self, s: &str) -> Option<&Dim> {
        self.found.iter().find(|(n, _)| n == s).map(|(_, c)| c)
    }

    /// Whether `d` reads a found dim.
    pub fn reads_found(&self, d: &Dim) -> bool {
        d.symbols().iter().any(|s| self.capacity(s).is_some())
    }

    /// `d` at its largest: each found dim at its capacity. `None` when `d` may shrink as a found
    /// dim grows (a capacity would then bound nothing).
    pub fn at_capacity(&self, d: &Dim) -> Option<Dim> {
        let mut r = d.clone();
        for (s, capacity) in self.found.iter().rev() {
            if !r.grows_with(s) {
                return None;
            }
            r = r.substitute(s, capacity);
        }
        Some(r)
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
        let reads_elements = holds.reads_elements();
        let holds = match &self.guard {
            Some(runs) => runs.select(&holds, &DataExpr::num(1)),
            None => holds,
        };
        match holds.as_const() {
            Some(0) => Err(what),
            Some(_) => Ok(()),
            None => {
                // Shape rules run more than once (inference, then lowering), and several nodes
                // may need one condition: the first to add it names it.
                if !self.checks.iter().any(|c| c.holds == holds) {
                    let mut what = if self.node.is_empty() { what } else { format!("{}: {what}", self.node) };
                    if self.guard.is_some() {
                        what.push_str(" (where its If branch runs)");
                    }
                    self.checks.push(DataCheck { holds, what, unsupported, reads_elements });
                }
                Ok(())
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.dims.is_empty() && self.checks.is_empty() && self.found.is_empty()
    }

    /// Whether computing the dims or checking the conditions reads the inputs' elements (else
    /// the dims alone decide them).
    pub fn reads_inputs(&self) -> bool {
        !self.inputs_read().is_empty()
    }

    /// The graph inputs whose elements the dims or the conditions read, by name.
    pub fn inputs_read(&self) -> Vec<String> {
        let mut names = std::collections::BTreeSet::new();
        self.dims.iter().for_each(|(_, x)| x.inputs_read(&mut names));
        self.checks.iter().for_each(|c| c.holds.inputs_read(&mut names));
        names.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reals over numbers fold as the run computes them (f64, then rounded with NaN and huge
    /// values as -1); a real over an element stays for the run.
    #[test]
    fn reals_over_numbers_fold() {
        let n = DataExpr::num;
        let range_count = n(5).real(DataOp::RealSub, &n(1)).real(DataOp::RealDiv, &n(2));
        assert_eq!(range_count, n(2), "a whole real is a number");
        let third = n(4).real(DataOp::RealDiv, &n(3));
        assert!(matches!(third, DataExpr::Op(DataOp::RealDiv, _)), "4/3 stays a real");
        assert_eq!(third.rounded(DataOp::Ceil), n(2));
        assert_eq!(third.rounded(DataOp::Floor), n(1));
        assert_eq!(n(-5).real(DataOp::RealDiv, &n(2)).rounded(DataOp::Round), n(-3), "halves away from zero");
        assert_eq!(n(0).real(DataOp::RealDiv, &n(0)).rounded(DataOp::Floor), n(-1), "NaN");
        assert_eq!(n(1).real(DataOp::RealDiv, &n(0)).rounded(DataOp::Floor), n(-1), "infinity");
        let nan = n(0).real(DataOp::RealDiv, &n(0));
        assert_eq!(nan.real(DataOp::RealMax, &n(3)).rounded(DataOp::Floor), n(-1), "max keeps NaN");
        assert_eq!(third.real(DataOp::RealLt, &n(2)), n(1));
        assert_eq!(nan.real(DataOp::RealLt, &n(2)), n(0));
        let minus_zero = n(0).real(DataOp::RealDiv, &n(-1));
        assert!(matches!(minus_zero, DataExpr::Op(..)), "-0 stays a real");
        assert_eq!(n(1).real(DataOp::RealDiv, &minus_zero).real(DataOp::RealLt, &n(0)), n(1), "1 / -0 is -inf");
        let least = minus_zero.real(DataOp::RealMin, &n(0));
        assert_eq!(n(1).real(DataOp::RealDiv, &least).real(DataOp::RealLt, &n(0)), n(1), "min(-0, 0) is -0");
        let most = minus_zero.real(DataOp::RealMax, &n(0));
        assert_eq!(n(1).real(DataOp::RealDiv, &most).real(DataOp::RealLt, &n(0)), n(0), "max(-0, 0) is +0");
        let x = DataExpr::real_element("scales", 0);
        assert!(matches!(x.real(DataOp::RealMul, &n(2)).rounded(DataOp::Floor), DataExpr::Op(DataOp::Floor, _)));
    }

    #[test]
    fn numbers_fold_and_data_stays() {
        let x = DataExpr::element("shape", 0);
        assert_eq!(DataExpr::num(7).floor_div(&DataExpr::num(-2)).as_const(), Some(-4));
        assert_eq!(DataExpr::num(-7).floor_div(&DataExpr::num(2)).as_const(), Some(-4));
        assert_eq!(DataExpr::num(6).floor_div(&DataExpr::num(3)).as_const(), Some(2));
        let w = Dim::symbol("w");
        let six_w = DataExpr::Dim(w.mul(&Dim::fixed(6)));
        assert_eq!(six_w.floor_div(&DataExpr::num(2)), DataExpr::Dim(w.mul(&Dim::fixed(3))));
        assert!(matches!(six_w.add(&DataExpr::num(1)).floor_div(&DataExpr::num(2)), DataExpr::Op(..)), "6w + 1 is odd");
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
    fn dims_defined_alike_are_one_dim() {
        let h = DataExpr::Dim(Dim::symbol("height"));
        let rows = |pads: i64| h.add(&DataExpr::num(pads - 3)).floor_div(&DataExpr::num(2)).add(&DataExpr::num(1));
        let mut dims = DataDims::default();
        let branch = dims.define("conv_1.2".into(), rows(2));
        let shortcut = dims.define("conv_2.2".into(), rows(2));
        assert_eq!(branch, Dim::symbol("conv_1.2"));
        assert_eq!(shortcut, branch, "the same definition is the same dim");
        assert_ne!(dims.define("conv_3.2".into(), rows(0)), branch, "other pads give another dim");
        // Inference runs twice: a name already defined keeps its own symbol.
        assert_eq!(dims.define("conv_1.2".into(), rows(2)), branch);
        assert_eq!(dims.dims.len(), 2);
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
    fn dims_computed_from_dims() {
        let range = |_: &str| (1, 64);
        let seq = DataExpr::Dim(Dim::symbol("seq"));
        let (one, two, three) = (DataExpr::num(1), DataExpr::num(2), DataExpr::num(3));
        // Slice :3 of seq: max(min(3, seq) - 0, 0), then (+1 -1) by a unit step.
        let count = three.min(&seq).sub(&DataExpr::num(0)).max(&DataExpr::num(0)).add(&one).sub(&one);
        let count = count.simplify(&range);
        assert_eq!(count.to_string(), "min(3, seq)");
        assert!(!count.reads_elements() && count.grows());
        assert_eq!(count.interval(&range), Some((1, 3)));
        let at = |v: i64| move |_: &str| Some(v);
        assert_eq!((count.eval(&at(2)), count.eval(&at(9))), (Some(2), Some(3)));
        // Split in two: ceil(seq / 2), then the rest, which does not grow structurally.
        let half = seq.add(&one).floor_div(&two);
        let rest = seq.sub(&half.mul(&one));
        assert_eq!(rest.to_string(), "seq - floor_div(seq+1, 2)");
        assert!(half.grows() && !rest.grows());
        for v in [1, 2, 7, 8] {
            assert_eq!((half.eval(&at(v)), rest.eval(&at(v))), (Some((v + 1) / 2), Some(v / 2)));
        }
        assert!(seq.sub(&seq.mul(&DataExpr::element("s", 0))).reads_elements());
        assert!(!seq.floor_div(&seq).grows(), "a divisor that grows");
        assert_eq!(seq.mul(&DataExpr::num(0)).add(&DataExpr::element("s", 0)).mul(&one), DataExpr::element("s", 0));
    }

    #[test]
    fn found_dims_take_their_capacity() {
        let mut d = DataDims::default();
        let n = Dim::symbol("n");
        let count = d.find("i.1".into(), n.mul(&Dim::fixed(3)));
        // A Compress of NonZero's output: at most the first count.
        let kept = d.find("k.0".into(), count.clone());
        assert_eq!(d.find("i.1".into(), n.mul(&Dim::fixed(3))), count, "inference may run twice");
        assert_eq!(d.found.len(), 2);
        assert!(d.reads_found(&kept.add(&Dim::fixed(1))) && !d.reads_found(&n));
        let rows = kept.mul(&Dim::fixed(2)).add(&Dim::fixed(1));
        assert_eq!(d.at_capacity(&rows), Some(n.mul(&Dim::fixed(6)).add(&Dim::fixed(1))));
        assert_eq!(d.at_capacity(&n.sub(&count)), None, "a dim that shrinks as the count grows");
        assert!(!d.is_empty());
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

    /// Under an If's guard, a condition holds where the branch does not run (even one that
    /// never holds), and a dim the branch defines is 0 there; neither reads as the input's fault
    /// for the guard alone.
    #[test]
    fn guarded_definitions_and_checks() {
        let sym = |n: &str| DataExpr::Dim(Dim::symbol(n));
        let mut d = DataDims { guard: Some(sym("c")), ..Default::default() };
        let at = |c: i64, s: i64| move |name: &str| Some(if name == "c" { c } else { s });
        let len = d.define("len".into(), sym("s").max(&DataExpr::num(2)).sub(&DataExpr::num(2)));
        assert_eq!(len, Dim::symbol("len"));
        assert_eq!(d.dims[0].1.eval(&at(0, 9)), Some(0), "0 where the branch does not run");
        assert_eq!(d.dims[0].1.eval(&at(1, 9)), Some(7));
        assert!(d.require(DataExpr::num(0), "never").is_ok(), "checked only where the branch runs");
        assert!(d.require(DataExpr::element("e", 0).eq(&DataExpr::num(4)), "e is 4").is_ok());
        assert!(d.require(sym("s").eq(&DataExpr::num(4)), "s is 4").is_ok());
        assert_eq!(d.checks.len(), 3);
        assert_eq!(d.checks[0].holds.eval(&at(0, 9)), Some(1));
        assert_eq!(d.checks[0].holds.eval(&at(1, 9)), Some(0));
        assert!(d.checks.iter().all(|c| c.what.ends_with("(where its If branch runs)")));
        assert!(d.checks[1].reads_elements && !d.checks[2].reads_elements, "the guard is not the input's fault");
    }
}
