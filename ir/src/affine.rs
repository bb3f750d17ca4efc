//! Affine expressions, maps and integer sets (`affine_map<(d0)[s0] -> (d0 + s0)>`,
//! `affine_set<(d0) : (d0 - 10 >= 0)>`), as used by loop bounds, `affine.apply` and memref layouts.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AffineExpr {
    Dim(u32),
    Symbol(u32),
    Const(i64),
    Add(Box<AffineExpr>, Box<AffineExpr>),
    Mul(Box<AffineExpr>, Box<AffineExpr>),
    FloorDiv(Box<AffineExpr>, Box<AffineExpr>),
    CeilDiv(Box<AffineExpr>, Box<AffineExpr>),
    Mod(Box<AffineExpr>, Box<AffineExpr>),
}

impl std::ops::Neg for AffineExpr {
    type Output = AffineExpr;

    fn neg(self) -> AffineExpr {
        match self {
            AffineExpr::Const(c) => AffineExpr::Const(-c),
            e => AffineExpr::Mul(Box::new(e), Box::new(AffineExpr::Const(-1))),
        }
    }
}

impl AffineExpr {
    /// Whether the expression reads dimension `d`.
    pub fn uses_dim(&self, d: u32) -> bool {
        match self {
            AffineExpr::Dim(i) => *i == d,
            AffineExpr::Symbol(_) | AffineExpr::Const(_) => false,
            AffineExpr::Add(a, b)
            | AffineExpr::Mul(a, b)
            | AffineExpr::FloorDiv(a, b)
            | AffineExpr::CeilDiv(a, b)
            | AffineExpr::Mod(a, b) => a.uses_dim(d) || b.uses_dim(d),
        }
    }

    /// Calls `f` with each dimension the expression reads (as often as it reads it): one walk,
    /// where asking [`AffineExpr::uses_dim`] of every dimension would cost the rank times more.
    pub fn for_each_dim(&self, f: &mut dyn FnMut(u32)) {
        match self {
            AffineExpr::Dim(i) => f(*i),
            AffineExpr::Symbol(_) | AffineExpr::Const(_) => {}
            AffineExpr::Add(a, b)
            | AffineExpr::Mul(a, b)
            | AffineExpr::FloorDiv(a, b)
            | AffineExpr::CeilDiv(a, b)
            | AffineExpr::Mod(a, b) => {
                a.for_each_dim(f);
                b.for_each_dim(f);
            }
        }
    }

    /// The expression with every dimension `d` replaced by `f(d)`.
    pub fn map_dims(&self, f: &dyn Fn(u32) -> AffineExpr) -> AffineExpr {
        type Make = fn(Box<AffineExpr>, Box<AffineExpr>) -> AffineExpr;
        let both = |make: Make, a: &AffineExpr, b: &AffineExpr| make(Box::new(a.map_dims(f)), Box::new(b.map_dims(f)));
        match self {
            AffineExpr::Dim(i) => f(*i),
            AffineExpr::Symbol(_) | AffineExpr::Const(_) => self.clone(),
            AffineExpr::Add(a, b) => both(AffineExpr::Add, a, b),
            AffineExpr::Mul(a, b) => both(AffineExpr::Mul, a, b),
            AffineExpr::FloorDiv(a, b) => both(AffineExpr::FloorDiv, a, b),
            AffineExpr::CeilDiv(a, b) => both(AffineExpr::CeilDiv, a, b),
            AffineExpr::Mod(a, b) => both(AffineExpr::Mod, a, b),
        }
    }

    /// Evaluates with concrete dims and symbols, `None` on division by zero.
    pub fn eval(&self, dims: &[i64], syms: &[i64]) -> Option<i64> {
        Some(match self {
            AffineExpr::Dim(i) => dims[*i as usize],
            AffineExpr::Symbol(i) => syms[*i as usize],
            AffineExpr::Const(c) => *c,
            AffineExpr::Add(a, b) => a.eval(dims, syms)?.wrapping_add(b.eval(dims, syms)?),
            AffineExpr::Mul(a, b) => a.eval(dims, syms)?.wrapping_mul(b.eval(dims, syms)?),
            AffineExpr::FloorDiv(a, b) => {
                let (a, b) = (a.eval(dims, syms)?, b.eval(dims, syms)?);
                if b == 0 {
                    return None;
                }
                a.div_euclid(b) - if b < 0 && a.rem_euclid(b) != 0 { 1 } else { 0 }
            }
            AffineExpr::CeilDiv(a, b) => {
                let (a, b) = (a.eval(dims, syms)?, b.eval(dims, syms)?);
                if b == 0 {
                    return None;
                }
                -((-a).div_euclid(b) - if b < 0 && (-a).rem_euclid(b) != 0 { 1 } else { 0 })
            }
            AffineExpr::Mod(a, b) => {
                let (a, b) = (a.eval(dims, syms)?, b.eval(dims, syms)?);
                if b == 0 {
                    return None;
                }
                a.rem_euclid(b)
            }
        })
    }

    fn is_atom(&self) -> bool {
        matches!(self, AffineExpr::Dim(_) | AffineExpr::Symbol(_) | AffineExpr::Const(_))
    }

    fn fmt_with(&self, f: &mut fmt::Formatter<'_>, parens: bool) -> fmt::Result {
        if parens && !self.is_atom() {
            write!(f, "(")?;
            self.fmt_with(f, false)?;
            return write!(f, ")");
        }
        match self {
            AffineExpr::Dim(i) => write!(f, "d{i}"),
            AffineExpr::Symbol(i) => write!(f, "s{i}"),
            AffineExpr::Const(c) => write!(f, "{c}"),
            AffineExpr::Add(a, b) => {
                a.fmt_with(f, !matches!(**a, AffineExpr::Add(..)))?;
                match &**b {
                    AffineExpr::Mul(x, c) if **c == AffineExpr::Const(-1) => {
                        write!(f, " - ")?;
                        x.fmt_with(f, true)
                    }
                    _ => {
                        write!(f, " + ")?;
                        b.fmt_with(f, true)
                    }
                }
            }
            AffineExpr::Mul(a, b) => Self::binary(f, a, " * ", b),
            AffineExpr::FloorDiv(a, b) => Self::binary(f, a, " floordiv ", b),
            AffineExpr::CeilDiv(a, b) => Self::binary(f, a, " ceildiv ", b),
            AffineExpr::Mod(a, b) => Self::binary(f, a, " mod ", b),
        }
    }

    fn binary(f: &mut fmt::Formatter<'_>, a: &AffineExpr, op: &str, b: &AffineExpr) -> fmt::Result {
        a.fmt_with(f, true)?;
        f.write_str(op)?;
        b.fmt_with(f, true)
    }
}

impl fmt::Display for AffineExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_with(f, false)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AffineMap {
    pub num_dims: u32,
    pub num_symbols: u32,
    pub results: Vec<AffineExpr>,
}

impl AffineMap {
    pub fn identity(rank: u32) -> AffineMap {
        AffineMap { num_dims: rank, num_symbols: 0, results: (0..rank).map(AffineExpr::Dim).collect() }
    }

    pub fn constant(c: i64) -> AffineMap {
        AffineMap { num_dims: 0, num_symbols: 0, results: vec![AffineExpr::Const(c)] }
    }

    /// `()[s0] -> (s0)`: the shorthand bound `%N`.
    pub fn single_symbol() -> AffineMap {
        AffineMap { num_dims: 0, num_symbols: 1, results: vec![AffineExpr::Symbol(0)] }
    }

    pub fn is_identity(&self) -> bool {
        self.num_symbols == 0
            && self.results.len() == self.num_dims as usize
            && self.results.iter().enumerate().all(|(i, e)| *e == AffineExpr::Dim(i as u32))
    }

    fn fmt_header(f: &mut fmt::Formatter<'_>, dims: u32, syms: u32) -> fmt::Result {
        write!(f, "(")?;
        for i in 0..dims {
            write!(f, "{}d{i}", if i > 0 { ", " } else { "" })?;
        }
        write!(f, ")")?;
        if syms > 0 {
            write!(f, "[")?;
            for i in 0..syms {
                write!(f, "{}s{i}", if i > 0 { ", " } else { "" })?;
            }
            write!(f, "]")?;
        }
        Ok(())
    }
}

impl fmt::Display for AffineMap {
    /// The body without the `affine_map<...>` wrapper.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Self::fmt_header(f, self.num_dims, self.num_symbols)?;
        write!(f, " -> (")?;
        for (i, e) in self.results.iter().enumerate() {
            write!(f, "{}{e}", if i > 0 { ", " } else { "" })?;
        }
        write!(f, ")")
    }
}

/// One constraint of an integer set: `expr == 0` or `expr >= 0`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AffineConstraint {
    pub expr: AffineExpr,
    pub is_equality: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IntegerSet {
    pub num_dims: u32,
    pub num_symbols: u32,
    pub constraints: Vec<AffineConstraint>,
}

impl fmt::Display for IntegerSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        AffineMap::fmt_header(f, self.num_dims, self.num_symbols)?;
        write!(f, " : (")?;
        for (i, c) in self.constraints.iter().enumerate() {
            write!(f, "{}{} {} 0", if i > 0 { ", " } else { "" }, c.expr, if c.is_equality { "==" } else { ">=" })?;
        }
        write!(f, ")")
    }
}
