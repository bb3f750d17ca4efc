//! Affine maps and integer sets in both spellings: `(d0, d1)[s0] -> (d0 + s0, d1 floordiv 2)` with
//! any dimension and symbol names (`(i, j)[M] -> (i + M)`), the original spec's
//! `floordiv(a, b)` call form and trailing `size (...)` clause, and sets `(d0)[s0] : (d0 - s0 >= 0)`.

use super::lexer::Tok;
use super::{PResult, Parser};
use crate::affine::{AffineConstraint, AffineExpr, AffineMap, IntegerSet};
use crate::attributes::Attribute;
use crate::diagnostics::{Diagnostic, Span};

pub(crate) enum MapOrSet {
    Map(AffineMap),
    Set(IntegerSet),
}

impl MapOrSet {
    pub(crate) fn into_attribute(self) -> Attribute {
        match self {
            MapOrSet::Map(m) => Attribute::AffineMap(m),
            MapOrSet::Set(s) => Attribute::IntegerSet(s),
        }
    }
    pub(crate) fn into_map(self, span: Span) -> PResult<AffineMap> {
        match self {
            MapOrSet::Map(m) => Ok(m),
            MapOrSet::Set(_) => Err(Diagnostic::new(span, "expected an affine map, found an integer set")),
        }
    }
}

struct Names {
    dims: Vec<String>,
    syms: Vec<String>,
    /// In an access like `affine.load %m[%i + 1]`, SSA values become the map's dimensions.
    ssa: Option<std::cell::RefCell<Vec<super::OperandRef>>>,
}

/// `[%i + 1, 7]`: a list of affine expressions over SSA values, as an affine map whose
/// dimensions are the distinct values in order of appearance.
pub(crate) fn parse_ssa_affine_list(p: &mut Parser) -> PResult<(AffineMap, Vec<super::OperandRef>)> {
    let names = Names { dims: Vec::new(), syms: Vec::new(), ssa: Some(Default::default()) };
    p.affine_ops = 0;
    p.expect_punct("[")?;
    let mut results = Vec::new();
    if !p.is_punct("]") {
        loop {
            results.push(parse_expr(p, &names)?);
            if !p.eat_punct(",")? {
                break;
            }
        }
    }
    p.expect_punct("]")?;
    let refs = names.ssa.expect("ssa").into_inner();
    Ok((AffineMap { num_dims: refs.len() as u32, num_symbols: 0, results }, refs))
}

pub(crate) fn parse_affine_map_or_set(p: &mut Parser) -> PResult<MapOrSet> {
    p.affine_ops = 0;
    let dims = parse_name_list(p, "(", ")")?;
    let syms = if p.is_punct("[") { parse_name_list(p, "[", "]")? } else { Vec::new() };
    let names = Names { dims, syms, ssa: None };
    let (num_dims, num_symbols) = (names.dims.len() as u32, names.syms.len() as u32);
    if p.eat_punct("->")? {
        p.expect_punct("(")?;
        let mut results = Vec::new();
        if !p.is_punct(")") {
            loop {
                results.push(parse_expr(p, &names)?);
                if !p.eat_punct(",")? {
                    break;
                }
            }
        }
        p.expect_punct(")")?;
        if p.eat_ident("size")? {
            // The original spec's size clause; it carries no semantics xcc uses.
            p.expect_punct("(")?;
            loop {
                parse_expr(p, &names)?;
                if !p.eat_punct(",")? {
                    break;
                }
            }
            p.expect_punct(")")?;
        }
        Ok(MapOrSet::Map(AffineMap { num_dims, num_symbols, results }))
    } else if p.eat_punct(":")? {
        p.expect_punct("(")?;
        let mut constraints = Vec::new();
        loop {
            let lhs = parse_expr(p, &names)?;
            let is_equality = if p.eat_punct(">")? {
                p.expect_punct("=")?;
                false
            } else if p.eat_punct("=")? {
                p.expect_punct("=")?;
                true
            } else {
                return p.err_here("expected '>= 0' or '== 0' in an integer set constraint");
            };
            let rhs = parse_expr(p, &names)?;
            let expr = if rhs == AffineExpr::Const(0) { lhs } else { AffineExpr::Add(Box::new(lhs), Box::new(-rhs)) };
            constraints.push(AffineConstraint { expr, is_equality });
            if !p.eat_punct(",")? {
                break;
            }
        }
        p.expect_punct(")")?;
        Ok(MapOrSet::Set(IntegerSet { num_dims, num_symbols, constraints }))
    } else {
        p.err_here("expected '->' (affine map) or ':' (integer set)")
    }
}

fn parse_name_list(p: &mut Parser, open: &str, close: &str) -> PResult<Vec<String>> {
    p.expect_punct(open)?;
    let mut names = Vec::new();
    if !p.is_punct(close) {
        loop {
            names.push(p.expect_ident("a dimension or symbol name")?.0);
            if !p.eat_punct(",")? {
                break;
            }
        }
    }
    p.expect_punct(close)?;
    Ok(names)
}

fn parse_expr(p: &mut Parser, names: &Names) -> PResult<AffineExpr> {
    let mut lhs = parse_term(p, names)?;
    loop {
        if p.eat_punct("+")? {
            count_op(p)?;
            let rhs = parse_term(p, names)?;
            lhs = AffineExpr::Add(Box::new(lhs), Box::new(rhs));
        } else if p.is_punct("-") {
            count_op(p)?;
            p.next()?;
            let rhs = parse_term(p, names)?;
            lhs = AffineExpr::Add(Box::new(lhs), Box::new(-rhs));
        } else {
            return Ok(lhs);
        }
    }
}

fn parse_term(p: &mut Parser, names: &Names) -> PResult<AffineExpr> {
    let mut lhs = parse_factor(p, names)?;
    loop {
        let op = if p.eat_punct("*")? {
            "*"
        } else if p.eat_ident("floordiv")? {
            "floordiv"
        } else if p.eat_ident("ceildiv")? {
            "ceildiv"
        } else if p.eat_ident("mod")? {
            "mod"
        } else {
            return Ok(lhs);
        };
        count_op(p)?;
        let (_, at) = p.peek()?;
        let rhs = parse_factor(p, names)?;
        lhs = combine_checked(op, lhs, rhs, at)?;
    }
}

/// [`combine`], refusing a division or modulo by a constant 0 (every index would be undefined).
fn combine_checked(op: &str, a: AffineExpr, b: AffineExpr, at: Span) -> PResult<AffineExpr> {
    if op != "*" && constant(&b) == Some(0) {
        return Err(Diagnostic::new(at, format!("'{op}' by 0 in an affine map")));
    }
    Ok(combine(op, a, b))
}

/// The value of an expression of constants alone.
fn constant(e: &AffineExpr) -> Option<i64> {
    let mut reads_index = false;
    fn walk(e: &AffineExpr, reads: &mut bool) {
        match e {
            AffineExpr::Dim(_) | AffineExpr::Symbol(_) => *reads = true,
            AffineExpr::Const(_) => {}
            AffineExpr::Add(a, b)
            | AffineExpr::Mul(a, b)
            | AffineExpr::FloorDiv(a, b)
            | AffineExpr::CeilDiv(a, b)
            | AffineExpr::Mod(a, b) => {
                walk(a, reads);
                walk(b, reads);
            }
        }
    }
    walk(e, &mut reads_index);
    if reads_index {
        return None;
    }
    e.eval(&[], &[])
}

/// One more binary operation in the map being parsed: an error past [`MAX_AFFINE_OPS`].
fn count_op(p: &mut Parser) -> PResult<()> {
    p.affine_ops += 1;
    if p.affine_ops > super::MAX_AFFINE_OPS {
        return p.err_here(format!("an affine map with more than {} operations", super::MAX_AFFINE_OPS));
    }
    Ok(())
}

fn combine(op: &str, a: AffineExpr, b: AffineExpr) -> AffineExpr {
    let (a, b) = (Box::new(a), Box::new(b));
    match op {
        "*" => AffineExpr::Mul(a, b),
        "floordiv" => AffineExpr::FloorDiv(a, b),
        "ceildiv" => AffineExpr::CeilDiv(a, b),
        _ => AffineExpr::Mod(a, b),
    }
}

fn parse_factor(p: &mut Parser, names: &Names) -> PResult<AffineExpr> {
    let (tok, span) = p.peek()?;
    match tok {
        Tok::Punct("-") => {
            p.next()?;
            Ok(-p.nested(|p| parse_factor(p, names))?)
        }
        Tok::Punct("(") => {
            p.next()?;
            let e = p.nested(|p| parse_expr(p, names))?;
            p.expect_punct(")")?;
            Ok(e)
        }
        Tok::Int(v) => {
            p.next()?;
            Ok(AffineExpr::Const(v as i64))
        }
        Tok::Percent(_) if names.ssa.is_some() => {
            let r = p.parse_operand_ref()?;
            let mut list = names.ssa.as_ref().expect("ssa").borrow_mut();
            let i = match list.iter().position(|x| x.name == r.name && x.index == r.index) {
                Some(i) => i,
                None => {
                    list.push(r);
                    list.len() - 1
                }
            };
            Ok(AffineExpr::Dim(i as u32))
        }
        Tok::Ident(name) => {
            p.next()?;
            if ["floordiv", "ceildiv", "mod"].contains(&name.as_str()) && p.is_punct("(") {
                // The original spec's call form `floordiv(d0, 8)`.
                p.next()?;
                let a = parse_expr(p, names)?;
                p.expect_punct(",")?;
                let (_, at) = p.peek()?;
                let b = parse_expr(p, names)?;
                p.expect_punct(")")?;
                return combine_checked(&name, a, b, at);
            }
            if let Some(i) = names.dims.iter().position(|d| *d == name) {
                return Ok(AffineExpr::Dim(i as u32));
            }
            if let Some(i) = names.syms.iter().position(|d| *d == name) {
                return Ok(AffineExpr::Symbol(i as u32));
            }
            Err(Diagnostic::new(span, format!("'{name}' is not a dimension or symbol of this affine map")))
        }
        _ => p.err_here("expected an affine expression"),
    }
}
