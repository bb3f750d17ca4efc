//! Dimensions known only at run time, as expressions of the model's dim symbols (`batch`,
//! `seq`): a polynomial with integer coefficients in canonical form, so that two dims are equal
//! exactly when their expressions are (`seq*256` from a Reshape's `-1` equals `seq*4*64` from a
//! MatMul). Sums come from Concat, products from Reshape and Flatten, exact quotients from a
//! Reshape's `-1`; a dim that needs anything else (a floor division, a minimum) is not
//! expressible yet, and the operator that would make it says so.

use std::collections::BTreeMap;
use std::fmt;

/// One dim: `Σ coefficient · Π symbols`, terms keyed by their sorted symbol lists (a symbol
/// repeats for a power), no zero coefficients. A number is the term of no symbols.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dim {
    terms: BTreeMap<Vec<String>, i64>,
}

impl Dim {
    pub fn fixed(n: usize) -> Dim {
        Dim::constant(n as i64)
    }

    /// An integer, negative ones included (a Reshape's `-1` read from a shape value).
    pub fn constant(c: i64) -> Dim {
        let mut terms = BTreeMap::new();
        if c != 0 {
            terms.insert(Vec::new(), c);
        }
        Dim { terms }
    }

    /// The integer when no symbol is involved, negative ones included.
    pub fn as_const(&self) -> Option<i64> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).copied(),
            _ => None,
        }
    }

    pub fn symbol(name: &str) -> Dim {
        Dim { terms: BTreeMap::from([(vec![name.to_string()], 1)]) }
    }

    /// The value when no symbol is involved.
    pub fn as_fixed(&self) -> Option<usize> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).map(|&c| c.max(0) as usize),
            _ => None,
        }
    }

    pub fn is_fixed(&self) -> bool {
        self.as_fixed().is_some()
    }

    /// The symbols the dim reads, sorted, each once.
    pub fn symbols(&self) -> Vec<&str> {
        let mut s: Vec<&str> = self.terms.keys().flatten().map(String::as_str).collect();
        s.sort_unstable();
        s.dedup();
        s
    }

    /// `(coefficient, symbols)` per term, constant term first.
    pub fn terms(&self) -> impl Iterator<Item = (i64, &[String])> {
        self.terms.iter().map(|(k, &c)| (c, k.as_slice()))
    }

    fn add_term(&mut self, key: Vec<String>, c: i64) {
        let e = self.terms.entry(key.clone()).or_insert(0);
        *e += c;
        if *e == 0 {
            self.terms.remove(&key);
        }
    }

    /// `self + other`, `None` when a coefficient overflows (a Slice's end of `i64::MAX`).
    pub fn checked_add(&self, other: &Dim) -> Option<Dim> {
        let mut r = self.clone();
        for (k, &c) in &other.terms {
            let sum = r.terms.get(k).copied().unwrap_or(0).checked_add(c)?;
            r.terms.remove(k);
            if sum != 0 {
                r.terms.insert(k.clone(), sum);
            }
        }
        Some(r)
    }

    /// `self - other`, `None` when a coefficient overflows.
    pub fn checked_sub(&self, other: &Dim) -> Option<Dim> {
        self.checked_add(&other.checked_mul(&Dim::constant(-1))?)
    }

    /// `self * other`, `None` when a coefficient overflows.
    pub fn checked_mul(&self, other: &Dim) -> Option<Dim> {
        let mut r = Dim::fixed(0);
        for (a, &x) in &self.terms {
            for (b, &y) in &other.terms {
                let mut key: Vec<String> = a.iter().chain(b).cloned().collect();
                key.sort();
                r = r.checked_add(&Dim { terms: BTreeMap::from([(key, x.checked_mul(y)?)]) })?;
            }
        }
        Some(r)
    }

    pub fn add(&self, other: &Dim) -> Dim {
        let mut r = self.clone();
        for (k, &c) in &other.terms {
            r.add_term(k.clone(), c);
        }
        r
    }

    pub fn sub(&self, other: &Dim) -> Dim {
        self.add(&other.mul(&Dim::constant(-1)))
    }

    pub fn mul(&self, other: &Dim) -> Dim {
        let mut r = Dim::fixed(0);
        for (a, &x) in &self.terms {
            for (b, &y) in &other.terms {
                let mut key: Vec<String> = a.iter().chain(b).cloned().collect();
                key.sort();
                r.add_term(key, x * y);
            }
        }
        r
    }

    /// The dim with symbol `s` replaced by `by` everywhere.
    pub fn substitute(&self, s: &str, by: &Dim) -> Dim {
        let mut r = Dim::fixed(0);
        for (key, &c) in &self.terms {
            let mut term = Dim::constant(c);
            for k in key {
                term = term.mul(&if k == s { by.clone() } else { Dim::symbol(k) });
            }
            r = r.add(&term);
        }
        r
    }

    /// Whether the dim never shrinks as symbol `s` grows: every term that reads `s` has a
    /// positive coefficient (the other symbols are never negative).
    pub fn grows_with(&self, s: &str) -> bool {
        self.terms.iter().all(|(key, &c)| c > 0 || !key.iter().any(|k| k == s))
    }

    /// The product of `dims` (1 for none).
    pub fn product<'a>(dims: impl IntoIterator<Item = &'a Dim>) -> Dim {
        dims.into_iter().fold(Dim::fixed(1), |acc, d| acc.mul(d))
    }

    /// The product of `dims`, `None` where a coefficient overflows (dims read from a model's
    /// data, not yet bounded by a tensor's size).
    pub fn checked_product<'a>(dims: impl IntoIterator<Item = &'a Dim>) -> Option<Dim> {
        dims.into_iter().try_fold(Dim::fixed(1), |acc, d| acc.checked_mul(d))
    }

    /// The least and the greatest value the dim takes when each symbol `s` is within
    /// `range(s)` (inclusive, saturating far past any size).
    pub fn interval(&self, range: &dyn Fn(&str) -> (i128, i128)) -> (i128, i128) {
        let (mut lo, mut hi) = (0i128, 0i128);
        for (key, &c) in &self.terms {
            // A product of symbols, each at least 0, is least at the minima and greatest at the
            // maxima; the coefficient's sign decides which end each bound takes.
            let (mut least, mut most) = (1i128, 1i128);
            for s in key {
                let (a, b) = range(s);
                least = least.saturating_mul(a);
                most = most.saturating_mul(b);
            }
            let (x, y) = (least.saturating_mul(c as i128), most.saturating_mul(c as i128));
            lo = lo.saturating_add(x.min(y));
            hi = hi.saturating_add(x.max(y));
        }
        (lo, hi)
    }

    /// `self / divisor` when it divides exactly for every value of the symbols, as polynomials:
    /// `batch*64*past + batch*64*seq` by `16*past + 16*seq` is `batch*4` (a Reshape's `-1`
    /// beside a cache's length). Long division by the leading terms (highest degree first),
    /// which leaves no remainder exactly when the division is exact; `None` otherwise.
    pub fn div_exact(&self, divisor: &Dim) -> Option<Dim> {
        let leading = |d: &Dim| {
            d.terms.iter().max_by(|a, b| a.0.len().cmp(&b.0.len()).then(a.0.cmp(b.0))).map(|(k, &c)| (k.clone(), c))
        };
        let (dk, dc) = leading(divisor)?;
        let mut quotient = Dim::fixed(0);
        let mut rest = self.clone();
        // Each step removes the remainder's leading term, and no term of a higher degree comes
        // back: the loop ends within the dividend's term count times its degree.
        let bound =
            (self.terms.len() + 1) * (self.terms.keys().map(Vec::len).max().unwrap_or(0) + 1) * divisor.terms.len();
        for _ in 0..=bound {
            let Some((k, c)) = leading(&rest) else { return Some(quotient) };
            if c % dc != 0 {
                return None;
            }
            let mut factor = k.clone();
            for s in &dk {
                let at = factor.iter().position(|x| x == s)?;
                factor.remove(at);
            }
            let term = Dim { terms: BTreeMap::from([(factor, c / dc)]) };
            rest = rest.checked_sub(&divisor.checked_mul(&term)?)?;
            quotient = quotient.checked_add(&term)?;
        }
        None
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return write!(f, "0");
        }
        // Highest-degree terms first: `seq*4+1` rather than `1+4*seq`.
        let mut terms: Vec<(&Vec<String>, &i64)> = self.terms.iter().collect();
        terms.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(b.0)));
        for (i, (k, &c)) in terms.into_iter().enumerate() {
            let sign = if c < 0 {
                "-"
            } else if i > 0 {
                "+"
            } else {
                ""
            };
            write!(f, "{sign}")?;
            let mut factors: Vec<String> = k.clone();
            // unsigned_abs: i64::MIN has no i64 magnitude.
            if c.unsigned_abs() != 1 || k.is_empty() {
                factors.push(c.unsigned_abs().to_string());
            }
            write!(f, "{}", factors.join("*"))?;
        }
        Ok(())
    }
}

/// What `--dim` or one place of `--shape` gives a dim the model leaves open: a size, which
/// specializes the code, or a range, which keeps the dim symbolic and bounds it (the run refuses
/// sizes outside it, and the workspace can be sized once for the largest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimSize {
    Fixed(usize),
    Range { min: usize, max: usize },
}

impl DimSize {
    /// `N`, `MIN..MAX` or `..MAX` (from 1); `None` for anything else or an empty range. A range
    /// from 0 allows an empty dim (a KV cache before the first token).
    pub fn parse(text: &str) -> Option<DimSize> {
        let Some((lo, hi)) = text.split_once("..") else {
            return text.parse().ok().map(DimSize::Fixed);
        };
        let min = if lo.is_empty() { 1 } else { lo.parse().ok()? };
        let max: usize = hi.parse().ok()?;
        (min <= max).then_some(DimSize::Range { min, max })
    }
}

impl fmt::Display for DimSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DimSize::Fixed(n) => write!(f, "{n}"),
            DimSize::Range { min, max } => write!(f, "{min}..{max}"),
        }
    }
}

/// `[1, seq, 256]`-style text of dims.
pub fn dims_text(dims: &[Dim]) -> String {
    format!("[{}]", dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "))
}

#[cfg(test)]
mod tests {
    use super::Dim;

    #[test]
    fn products_and_sums_are_canonical() {
        let (s, b) = (Dim::symbol("seq"), Dim::symbol("batch"));
        let x = s.mul(&Dim::fixed(4)).mul(&b).mul(&Dim::fixed(64));
        let y = b.mul(&s).mul(&Dim::fixed(256));
        assert_eq!(x, y);
        assert_eq!(x.to_string(), "batch*seq*256");
        assert_eq!(s.add(&Dim::fixed(1)).add(&s).to_string(), "seq*2+1");
        assert_eq!(Dim::product([&Dim::fixed(3), &Dim::fixed(5)]).as_fixed(), Some(15));
        assert!(!s.is_fixed());
    }

    #[test]
    fn exact_division_by_a_sum() {
        let (batch, past, seq) = (Dim::symbol("batch"), Dim::symbol("past"), Dim::symbol("seq"));
        let len = past.add(&seq).mul(&Dim::fixed(16));
        let numel = batch.mul(&Dim::fixed(4)).mul(&len);
        assert_eq!(numel.div_exact(&len), Some(batch.mul(&Dim::fixed(4))));
        assert_eq!(numel.div_exact(&batch), Some(len.mul(&Dim::fixed(4))));
        assert_eq!(numel.add(&Dim::fixed(1)).div_exact(&len), None);
        assert_eq!(len.div_exact(&Dim::fixed(32)), None);
        assert_eq!(Dim::fixed(0).div_exact(&len), Some(Dim::fixed(0)));
    }

    #[test]
    fn intervals_over_symbol_ranges() {
        let range = |s: &str| if s == "past" { (0, 448) } else { (1, 64) };
        let (past, seq) = (Dim::symbol("past"), Dim::symbol("seq"));
        assert_eq!(past.add(&seq).interval(&range), (1, 512));
        assert_eq!(Dim::fixed(512).sub(&past.add(&seq)).interval(&range), (0, 511));
        assert_eq!(past.mul(&seq).sub(&Dim::fixed(3)).interval(&range), (-3, 448 * 64 - 3));
        let huge = |_: &str| (1, i128::MAX);
        assert_eq!(seq.mul(&seq).mul(&seq).interval(&huge).1, i128::MAX);
    }

    #[test]
    fn sizes_and_ranges_parse() {
        use super::DimSize::{self, *};
        assert_eq!(DimSize::parse("8"), Some(Fixed(8)));
        assert_eq!(DimSize::parse("2..512"), Some(Range { min: 2, max: 512 }));
        assert_eq!(DimSize::parse("..512"), Some(Range { min: 1, max: 512 }));
        assert_eq!(DimSize::parse("0..4"), Some(Range { min: 0, max: 4 }));
        for bad in ["", "x", "5..4", "1..", "..", "-1..4", "1...4"] {
            assert_eq!(DimSize::parse(bad), None, "{bad}");
        }
        assert_eq!(Range { min: 1, max: 64 }.to_string(), "1..64");
    }

    #[test]
    fn exact_division() {
        let (s, b) = (Dim::symbol("seq"), Dim::symbol("batch"));
        let total = b.mul(&s).mul(&Dim::fixed(768));
        assert_eq!(total.div_exact(&Dim::fixed(64).mul(&Dim::fixed(12))), Some(b.mul(&s)));
        assert_eq!(total.div_exact(&b.mul(&Dim::fixed(12))), Some(s.mul(&Dim::fixed(64))));
        assert_eq!(total.div_exact(&Dim::fixed(7)), None);
        assert_eq!(s.add(&Dim::fixed(1)).div_exact(&s), None);
        assert_eq!(s.div_exact(&s.add(&Dim::fixed(1))), None);
    }
}
