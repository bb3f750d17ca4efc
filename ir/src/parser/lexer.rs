//! On-demand tokenizer for MLIR text. The parser asks for one token at a time at a byte offset,
//! because a few constructs (shapes like `4x?xf32`) are not token-separated and are scanned raw.

use crate::diagnostics::{Diagnostic, Span};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Eof,
    /// `foo`, `arith.addi`, `i32`, `f32`.
    Ident(String),
    /// `%name` (without the sigil).
    Percent(String),
    /// `^bb0`.
    Caret(String),
    /// `#map`.
    Hash(String),
    /// `!llvm.ptr`, `!t` (the name may be empty: `!llvm<"i32*">` lexes `!llvm` then `<`).
    Bang(String),
    /// `@name` or `@"quoted name"`.
    At(String),
    Str(String),
    Int(u128),
    Float(f64),
    Punct(&'static str),
}

impl Tok {
    pub fn describe(&self) -> String {
        match self {
            Tok::Eof => "end of file".into(),
            Tok::Ident(s) => format!("'{s}'"),
            Tok::Percent(s) => format!("'%{s}'"),
            Tok::Caret(s) => format!("'^{s}'"),
            Tok::Hash(s) => format!("'#{s}'"),
            Tok::Bang(s) => format!("'!{s}'"),
            Tok::At(s) => format!("'@{s}'"),
            Tok::Str(s) => format!("string \"{s}\""),
            Tok::Int(i) => format!("integer {i}"),
            Tok::Float(f) => format!("float {f}"),
            Tok::Punct(p) => format!("'{p}'"),
        }
    }
}

const PUNCTS: &[&str] =
    &["->", "::", "...", "(", ")", "[", "]", "{", "}", "<", ">", ",", ":", "=", "?", "*", "+", "-", "|"];

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.'
}

fn is_suffix_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"$._-".contains(&c)
}

/// Skips whitespace and `//` comments from `pos`.
pub fn skip_trivia(src: &str, mut pos: usize) -> usize {
    let b = src.as_bytes();
    loop {
        while pos < b.len() && (b[pos] as char).is_ascii_whitespace() {
            pos += 1;
        }
        if pos + 1 < b.len() && b[pos] == b'/' && b[pos + 1] == b'/' {
            while pos < b.len() && b[pos] != b'\n' {
                pos += 1;
            }
            continue;
        }
        return pos;
    }
}

/// Lexes the token starting at `pos` (after trivia). Returns the token and its span.
pub fn lex(src: &str, pos: usize) -> Result<(Tok, Span), Diagnostic> {
    let start = skip_trivia(src, pos);
    let b = src.as_bytes();
    if start >= b.len() {
        return Ok((Tok::Eof, Span::new(b.len(), b.len())));
    }
    let c = b[start];
    let end;
    let ident_run = |from: usize, pred: fn(u8) -> bool| {
        let mut e = from;
        while e < b.len() && pred(b[e]) {
            e += 1;
        }
        e
    };
    let tok = match c {
        b'%' | b'^' | b'#' | b'!' => {
            end = ident_run(start + 1, is_suffix_char);
            let name = src[start + 1..end].to_string();
            if name.is_empty() && c != b'!' {
                return Err(Diagnostic::new(
                    Span::new(start, start + 1),
                    format!("expected an identifier after '{}'", c as char),
                ));
            }
            match c {
                b'%' => Tok::Percent(name),
                b'^' => Tok::Caret(name),
                b'#' => Tok::Hash(name),
                _ => Tok::Bang(name),
            }
        }
        b'@' => {
            if b.get(start + 1) == Some(&b'"') {
                let (s, e) = lex_string(src, start + 1)?;
                end = e;
                Tok::At(s)
            } else {
                end = ident_run(start + 1, is_suffix_char);
                if end == start + 1 {
                    return Err(Diagnostic::new(Span::new(start, end), "expected a symbol name after '@'"));
                }
                Tok::At(src[start + 1..end].to_string())
            }
        }
        b'"' => {
            let (s, e) = lex_string(src, start)?;
            end = e;
            Tok::Str(s)
        }
        b'0'..=b'9' => return lex_number(src, start),
        _ if is_ident_start(c) => {
            end = ident_run(start, is_ident_char);
            Tok::Ident(src[start..end].to_string())
        }
        _ => {
            let rest = &src[start..];
            match PUNCTS.iter().find(|p| rest.starts_with(**p)) {
                Some(p) => {
                    end = start + p.len();
                    Tok::Punct(p)
                }
                None => {
                    let ch = rest.chars().next().unwrap_or('?');
                    return Err(Diagnostic::new(
                        Span::new(start, start + ch.len_utf8()),
                        format!("unexpected character '{ch}'"),
                    ));
                }
            }
        }
    };
    Ok((tok, Span::new(start, end)))
}

fn lex_number(src: &str, start: usize) -> Result<(Tok, Span), Diagnostic> {
    let b = src.as_bytes();
    let mut end = start;
    if b[start] == b'0' && b.get(start + 1) == Some(&b'x') && b.get(start + 2).is_some_and(|c| c.is_ascii_hexdigit()) {
        end = start + 2;
        while end < b.len() && b[end].is_ascii_hexdigit() {
            end += 1;
        }
        let text = &src[start + 2..end];
        let value = u128::from_str_radix(text, 16)
            .map_err(|_| Diagnostic::new(Span::new(start, end), "hexadecimal literal is too large"))?;
        return Ok((Tok::Int(value), Span::new(start, end)));
    }
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    let mut is_float = false;
    if end < b.len() && b[end] == b'.' {
        is_float = true;
        end += 1;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
        if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
            let mut e = end + 1;
            if e < b.len() && (b[e] == b'+' || b[e] == b'-') {
                e += 1;
            }
            if e < b.len() && b[e].is_ascii_digit() {
                while e < b.len() && b[e].is_ascii_digit() {
                    e += 1;
                }
                end = e;
            }
        }
    }
    let text = &src[start..end];
    let span = Span::new(start, end);
    if is_float {
        let v: f64 = text.parse().map_err(|_| Diagnostic::new(span, "malformed float literal"))?;
        if !v.is_finite() {
            // Infinities and NaNs are written as bit patterns (`0x7F800000 : f32`).
            return Err(Diagnostic::new(span, "float literal out of range (past f64's largest)"));
        }
        Ok((Tok::Float(v), span))
    } else {
        let v: u128 = text.parse().map_err(|_| Diagnostic::new(span, "integer literal is too large"))?;
        Ok((Tok::Int(v), span))
    }
}

/// Lexes a string literal starting at the opening quote; returns its value and the end offset.
pub fn lex_string(src: &str, start: usize) -> Result<(String, usize), Diagnostic> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'"' => return Ok((String::from_utf8_lossy(&out).into_owned(), i + 1)),
            b'\n' => break,
            b'\\' if i + 1 < b.len() => {
                let e = b[i + 1];
                match e {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'"' => out.push(b'"'),
                    b'\\' => out.push(b'\\'),
                    _ if i + 2 < b.len() && e.is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit() => {
                        out.push(u8::from_str_radix(&src[i + 1..i + 3], 16).unwrap_or(0));
                        i += 1;
                    }
                    _ => {
                        return Err(Diagnostic::new(Span::new(i, i + 2), "unknown escape in string literal"));
                    }
                }
                i += 2;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Err(Diagnostic::new(Span::new(start, i), "unterminated string literal"))
}
