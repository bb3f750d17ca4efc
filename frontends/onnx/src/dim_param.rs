//! `dim_param`s that are expressions of other dims, as torch's dynamo exporter writes them: an
//! attention mask of `sequence + past`, a present cache of `past + sequence`. Such a dim is that
//! sum of the symbols named plainly elsewhere in the inputs (the caller passes `sequence` and
//! `past`, not a third dim that must agree with them); one that is not an expression, or names a
//! symbol no input declares plainly, stays a symbol of its own.

use crate::dim::Dim;

const MAX_LEN: usize = 256;

/// The dim that `text` spells with `+`, `-`, `*`, parentheses, integers and names, each name
/// read by `symbol` (`None` for one that is not a plain dim). `None` for a plain name or for
/// anything else (`//`, functions such as `Min`, a name `symbol` does not know).
pub fn parse(text: &str, symbol: &dyn Fn(&str) -> Option<Dim>) -> Option<Dim> {
    // Longer texts are not an exporter's; the bound keeps the parser's recursion shallow.
    if text.len() > MAX_LEN {
        return None;
    }
    let tokens = tokenize(text)?;
    if !tokens.iter().any(|t| matches!(t, Token::Op(_))) {
        return None;
    }
    let mut p = Parser { tokens: &tokens, at: 0, symbol };
    let d = p.sum()?;
    (p.at == tokens.len()).then_some(d)
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Name(String),
    Int(i64),
    Op(char),
    Open,
    Close,
}

fn tokenize(text: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_ascii_digit() {
            let mut n: i64 = 0;
            while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                n = n.checked_mul(10)?.checked_add(i64::from(d))?;
                chars.next();
            }
            tokens.push(Token::Int(n));
        } else if c.is_alphabetic() || c == '_' {
            let mut s = String::new();
            while let Some(&c) = chars.peek().filter(|c| c.is_alphanumeric() || **c == '_') {
                s.push(c);
                chars.next();
            }
            tokens.push(Token::Name(s));
        } else {
            tokens.push(match c {
                '+' | '-' | '*' => Token::Op(c),
                '(' => Token::Open,
                ')' => Token::Close,
                _ => return None,
            });
            chars.next();
        }
    }
    Some(tokens)
}

struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
    symbol: &'a dyn Fn(&str) -> Option<Dim>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    /// `term (('+' | '-') term)*`
    fn sum(&mut self) -> Option<Dim> {
        let mut d = self.product()?;
        while let Some(Token::Op(op @ ('+' | '-'))) = self.peek().cloned() {
            self.at += 1;
            let rhs = self.product()?;
            d = if op == '+' { d.checked_add(&rhs)? } else { d.checked_sub(&rhs)? };
        }
        Some(d)
    }

    /// `factor ('*' factor)*`
    fn product(&mut self) -> Option<Dim> {
        let mut d = self.factor()?;
        while self.peek() == Some(&Token::Op('*')) {
            self.at += 1;
            d = d.checked_mul(&self.factor()?)?;
        }
        Some(d)
    }

    /// A name, an integer, a negated factor, or a parenthesized sum. Recursion is bounded by
    /// the text's length, which a `dim_param` keeps short.
    fn factor(&mut self) -> Option<Dim> {
        let t = self.peek()?.clone();
        self.at += 1;
        match t {
            Token::Name(n) => (self.symbol)(&n),
            Token::Int(n) => Some(Dim::constant(n)),
            Token::Op('-') => Dim::constant(0).checked_sub(&self.factor()?),
            Token::Open => {
                let d = self.sum()?;
                (self.peek() == Some(&Token::Close)).then(|| self.at += 1)?;
                Some(d)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(n: &str) -> Option<Dim> {
        ["sequence", "past", "s0"].contains(&n).then(|| Dim::symbol(n))
    }

    #[test]
    fn sums_and_products_of_plain_dims() {
        let (seq, past) = (Dim::symbol("sequence"), Dim::symbol("past"));
        assert_eq!(parse("sequence + past", &known), Some(seq.add(&past)));
        assert_eq!(parse("past+sequence", &known), Some(seq.add(&past)));
        assert_eq!(parse("2*s0 - 1", &known), Some(Dim::symbol("s0").mul(&Dim::fixed(2)).sub(&Dim::fixed(1))));
        assert_eq!(parse("(past + 1) * sequence", &known), Some(past.add(&Dim::fixed(1)).mul(&seq)));
    }

    #[test]
    fn anything_else_stays_a_symbol() {
        for text in ["sequence", "batch + 1", "s0 // 2", "Min(s0, 4)", "past +", "(past", "past sequence", ""] {
            assert_eq!(parse(text, &known), None, "{text}");
        }
    }
}
