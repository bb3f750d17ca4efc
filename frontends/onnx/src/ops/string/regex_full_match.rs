//! RegexFullMatch: whether each string matches `pattern` from its first byte to its last. The
//! pattern (RE2 syntax over UTF-8) is compiled here, at compile time, into a DFA over bytes by
//! `regex-automata`; its transition table goes into the library, and runtime-c's
//! `xcc_string_dfa_match` walks it over each string. No regex engine runs in the model. RE2's
//! Perl classes and word boundaries are ASCII's where the `regex` syntax's are Unicode's, so
//! they are rewritten as ASCII classes first ([`ascii_classes`]).

use super::{at, bytes_address, expect_strings};
use crate::emit::{runtime_call, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::OnnxOp;
use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind};
use std::collections::HashMap;
use xcc_ir::Type;

pub struct RegexFullMatch;

/// A DFA's table: 256 next states per state, whether the text may end in each, the start.
pub struct Table {
    pub next: Vec<i32>,
    pub accepts: Vec<u8>,
    pub start: i32,
}

/// The most DFA states a pattern may take (a table of 1 MiB per 1024).
const MAX_STATES: usize = 4096;

/// The DFA of `pattern` matched against a whole string.
pub fn compile(pattern: &str) -> OResult<Table> {
    let syntax = regex_automata::util::syntax::Config::new();
    let config = dense::Config::new().start_kind(StartKind::Anchored).match_kind(MatchKind::All);
    // `\z` ends every match at the end of the text; MatchKind::All keeps every way to get there.
    let dfa = dense::Builder::new()
        .syntax(syntax)
        .configure(config)
        .build(&format!("(?:{})\\z", ascii_classes(pattern).map_err(|why| unsupported(pattern, &why))?))
        .map_err(|e| unsupported(pattern, &e.to_string()))?;
    let first = dfa
        .start_state(&start::Config::new().anchored(Anchored::Yes))
        .map_err(|e| OnnxError::msg(format!("RegexFullMatch's pattern '{pattern}': {e}")))?;
    let mut ids = HashMap::from([(first, 0usize)]);
    let mut order = vec![first];
    let mut next = Vec::new();
    let mut k = 0;
    while k < order.len() {
        let s = order[k];
        for byte in 0..=255u8 {
            let t = dfa.next_state(s, byte);
            let id = *ids.entry(t).or_insert_with(|| {
                order.push(t);
                order.len() - 1
            });
            next.push(id as i32);
        }
        if order.len() > MAX_STATES {
            return err(format!("RegexFullMatch's pattern '{pattern}' needs more than {MAX_STATES} DFA states"));
        }
        k += 1;
    }
    let accepts = order.iter().map(|&s| dfa.is_match_state(dfa.next_eoi_state(s)) as u8).collect();
    Ok(Table { next, accepts, start: 0 })
}

/// `pattern` with RE2's meaning of `\w`, `\d`, `\s` (ASCII classes; their negations any other
/// character) and `\b` (an ASCII word boundary) written out for the `regex` syntax. Inside a
/// bracket class the positive ones are spliced in as ranges; a negated one there is refused.
fn ascii_classes(pattern: &str) -> Result<String, String> {
    let ranges = |c: char| match c {
        'w' => Some("0-9A-Za-z_"),
        'd' => Some("0-9"),
        's' => Some("\\t\\n\\x0C\\r "),
        _ => None,
    };
    let mut out = String::new();
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    let mut class_start = false;
    while let Some(c) = chars.next() {
        let first = std::mem::take(&mut class_start);
        match c {
            '\\' => {
                let Some(n) = chars.next() else {
                    out.push(c);
                    break;
                };
                match (in_class, ranges(n.to_ascii_lowercase()), n.is_ascii_uppercase()) {
                    (true, Some(r), false) => out.push_str(r),
                    (true, Some(_), true) => return Err(format!("\\{n} inside a bracket class")),
                    (false, Some(r), false) => out.push_str(&format!("[{r}]")),
                    (false, Some(r), true) => out.push_str(&format!("[^{r}]")),
                    _ if !in_class && (n == 'b' || n == 'B') => out.push_str(&format!("(?-u:\\{n})")),
                    _ => {
                        out.push(c);
                        out.push(n);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                class_start = true;
                out.push(c);
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().expect("peeked"));
                }
            }
            ']' if in_class && !first => {
                in_class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

fn unsupported(pattern: &str, why: &str) -> OnnxError {
    OnnxError::msg(format!("RegexFullMatch's pattern '{pattern}' is not one xcc compiles: {why}"))
}

fn pattern(node: &Node) -> OResult<&str> {
    node.string("pattern").ok_or_else(|| OnnxError::msg("RegexFullMatch needs its 'pattern' attribute"))
}

impl OnnxOp for RegexFullMatch {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = expect_strings(node, g, &node.inputs[0])?;
        compile(pattern(node)?)?;
        Ok(vec![TensorType::with_dims(DType::Bool, x.dims())])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let xt = g.ty(&node.inputs[0])?.clone();
        let table = compile(pattern(node)?)?;
        let next_bytes: Vec<u8> = table.next.iter().flat_map(|v| v.to_le_bytes()).collect();
        let next =
            e.constant_buffer(&Tensor { ty: TensorType::new(DType::I32, vec![table.next.len()]), data: next_bytes });
        let next = e.address_of(next);
        let accepts = bytes_address(e, &table.accepts);
        let start = e.const_int(table.start as i128, Type::i32());
        let (x, y) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        let rank = xt.shape.len().min(1);
        let (x, y) = if xt.shape.len() > 1 { (e.flat(x), e.flat(y)) } else { (x, y) };
        let n = e.dim_extent(&Dim::product(&xt.dims()));
        e.for_loop_over(n, |e, i| {
            let s = e.load(x, &at(rank, i));
            let matched = runtime_call(e, "xcc_string_dfa_match", &[s, next, accepts, start], Type::i32());
            let zero = e.const_int(0, Type::i32());
            let matched = e.cmpi("ne", matched, zero);
            e.store(matched, y, &at(rank, i));
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full_match(t: &Table, s: &str) -> bool {
        let mut state = t.start as usize;
        for &b in s.as_bytes() {
            state = t.next[state * 256 + b as usize] as usize;
        }
        t.accepts[state] != 0
    }

    /// Against hand-worked answers: anchoring at both ends, alternatives of which the first
    /// matches a prefix, ASCII word boundaries and classes.
    #[test]
    fn whole_strings_match() {
        let t = compile(r"www\.[\w.-]+\.\bcom\b").unwrap();
        assert!(full_match(&t, "www.google.com"));
        assert!(!full_match(&t, "www.bbc.co.uk"));
        assert!(!full_match(&t, "www.google.comx"));
        let t = compile("a|ab").unwrap();
        assert!(full_match(&t, "ab") && full_match(&t, "a") && !full_match(&t, "abb") && !full_match(&t, ""));
        let t = compile(r"(\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$)").unwrap();
        assert!(full_match(&t, "account@gmail.com"));
        assert!(!full_match(&t, "account@hotmail.com"));
        assert!(full_match(&t, " x@yahoo.com!"));
        assert!(compile("(").is_err());
        // UTF-8 characters are single characters; `\w` is ASCII's, `\W` any other character.
        let t = compile(r"[a-zß]+\W\w").unwrap();
        assert!(full_match(&t, "straße-x") && full_match(&t, "ß\u{e9}x") && !full_match(&t, "ab\u{e9}\u{e9}"));
        assert!(!full_match(&t, "ab-\u{e9}"));
        assert_eq!(ascii_classes(r"[\w.\-]\D[]\d]").unwrap(), r"[0-9A-Za-z_.\-][^0-9][]0-9]");
        assert!(compile(r"[\W]").is_err());
    }
}
