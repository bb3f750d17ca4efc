//! The part of LLVM's FileCheck the golden tests use: `// CHECK:` lines matched in order against
//! xcc's output, with `CHECK-NEXT:`, `CHECK-SAME:`, `CHECK-NOT:`, `CHECK-LABEL:` and
//! `CHECK-COUNT-N:` (the pattern N times, each match after the last). A pattern
//! is literal text, except `{{regex}}` and the variables `[[NAME:regex]]` (define) and
//! `[[NAME]]` (use the text matched before); whitespace runs match any whitespace run. `[[[`
//! is a literal bracket followed by a variable (`%m[[[I]]]`).

use regex::Regex;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Check,
    Next,
    Same,
    Not,
    Label,
}

#[derive(Clone, Debug)]
pub struct Directive {
    pub line: usize,
    pub kind: Kind,
    pub pattern: String,
}

/// The `// CHECK*:` lines of a test file.
pub fn directives(text: &str) -> Vec<Directive> {
    let kinds = [
        ("CHECK-NEXT:", Kind::Next),
        ("CHECK-SAME:", Kind::Same),
        ("CHECK-NOT:", Kind::Not),
        ("CHECK-LABEL:", Kind::Label),
        ("CHECK:", Kind::Check),
    ];
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let Some(rest) = l.trim_start().strip_prefix("//") else { continue };
        let rest = rest.trim_start();
        if let Some((count, p)) = rest.strip_prefix("CHECK-COUNT-").and_then(|r| r.split_once(':')) {
            if let Ok(n) = count.parse::<usize>() {
                let d = Directive { line: i + 1, kind: Kind::Check, pattern: p.trim().to_string() };
                out.extend(std::iter::repeat_n(d, n));
                continue;
            }
        }
        for (tag, kind) in kinds {
            if let Some(p) = rest.strip_prefix(tag) {
                out.push(Directive { line: i + 1, kind, pattern: p.trim().to_string() });
                break;
            }
        }
    }
    out
}

/// The regex for a pattern, with the variables it defines (in group order).
fn compile(pattern: &str, vars: &HashMap<String, String>) -> Result<(Regex, Vec<String>), String> {
    let mut re = String::new();
    let mut defined = Vec::new();
    let mut rest = pattern;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("{{") {
            let end = r.find("}}").ok_or_else(|| format!("unclosed '{{{{' in `{pattern}`"))?;
            re.push_str(&format!("(?:{})", &r[..end]));
            rest = &r[end + 2..];
        } else if rest.starts_with("[[[") {
            // `%m[[[I]]]`: a literal bracket before a variable.
            re.push_str(r"\[");
            rest = &rest[1..];
        } else if let Some(r) = rest.strip_prefix("[[") {
            let end = r.find("]]").ok_or_else(|| format!("unclosed '[[' in `{pattern}`"))?;
            let body = &r[..end];
            match body.split_once(':') {
                Some((name, sub)) => {
                    re.push_str(&format!("({sub})"));
                    defined.push(name.to_string());
                }
                None => {
                    let v =
                        vars.get(body).ok_or_else(|| format!("variable [[{body}]] is used before it is defined"))?;
                    re.push_str(&regex::escape(v));
                }
            }
            rest = &r[end + 2..];
        } else {
            let next = rest.find(['{', '[']).map(|i| if i == 0 { 1 } else { i }).unwrap_or(rest.len());
            let mut in_space = false;
            for c in rest[..next].chars() {
                if c.is_whitespace() {
                    if !in_space {
                        re.push_str(r"\s+");
                    }
                    in_space = true;
                } else {
                    re.push_str(&regex::escape(&c.to_string()));
                    in_space = false;
                }
            }
            rest = &rest[next..];
        }
    }
    let compiled = Regex::new(&re).map_err(|e| format!("bad pattern `{pattern}`: {e}"))?;
    Ok((compiled, defined))
}

/// Matches the directives against `output` in order; the error names the directive's line.
pub fn check(directives: &[Directive], output: &str) -> Result<(), String> {
    let lines: Vec<&str> = output.lines().collect();
    let mut vars: HashMap<String, String> = HashMap::new();
    // Position after the last match: (line index, byte offset in it).
    let mut at = (0usize, 0usize);
    let mut nots: Vec<&Directive> = Vec::new();
    let mut matched_any = false;
    for d in directives {
        if d.kind == Kind::Not {
            nots.push(d);
            continue;
        }
        let (re, defined) = compile(&d.pattern, &vars).map_err(|e| format!("line {}: {e}", d.line))?;
        let found = match d.kind {
            Kind::Same => find_in_line(&re, &lines, at.0, at.1),
            Kind::Next => {
                let next = if matched_any { at.0 + 1 } else { at.0 };
                find_in_line(&re, &lines, next, 0)
            }
            _ => (at.0..lines.len()).find_map(|i| find_in_line(&re, &lines, i, if i == at.0 { at.1 } else { 0 })),
        };
        let Some((li, start, end, caps)) = found else {
            let from = lines.get(at.0).copied().unwrap_or("<end of output>");
            return Err(format!(
                "line {}: `{}` ({:?}) not found after output line {} (`{}`)",
                d.line,
                d.pattern,
                d.kind,
                at.0 + 1,
                from.trim()
            ));
        };
        for n in nots.drain(..) {
            let (nre, _) = compile(&n.pattern, &vars).map_err(|e| format!("line {}: {e}", n.line))?;
            let region = region_text(&lines, at, (li, start));
            if nre.is_match(&region) {
                return Err(format!(
                    "line {}: `{}` (CHECK-NOT) occurs before line {}'s match",
                    n.line, n.pattern, d.line
                ));
            }
        }
        for (name, value) in defined.into_iter().zip(caps) {
            vars.insert(name, value);
        }
        at = (li, end);
        matched_any = true;
    }
    for n in nots {
        let (nre, _) = compile(&n.pattern, &vars).map_err(|e| format!("line {}: {e}", n.line))?;
        if nre.is_match(&region_text(&lines, at, (lines.len(), 0))) {
            return Err(format!("line {}: `{}` (CHECK-NOT) occurs after the last match", n.line, n.pattern));
        }
    }
    Ok(())
}

type Found = (usize, usize, usize, Vec<String>);

fn find_in_line(re: &Regex, lines: &[&str], li: usize, from: usize) -> Option<Found> {
    let line = lines.get(li)?;
    let from = from.min(line.len());
    let caps = re.captures(&line[from..])?;
    let m = caps.get(0)?;
    let groups = (1..caps.len()).map(|i| caps.get(i).map(|g| g.as_str().to_string()).unwrap_or_default()).collect();
    Some((li, from + m.start(), from + m.end(), groups))
}

/// The output between two positions, lines joined by newlines.
fn region_text(lines: &[&str], from: (usize, usize), to: (usize, usize)) -> String {
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate().take(to.0.min(lines.len()).saturating_add(1)).skip(from.0) {
        let start = if i == from.0 { from.1.min(line.len()) } else { 0 };
        let end = if i == to.0 { to.1.min(line.len()) } else { line.len() };
        if start <= end {
            out.push_str(&line[start..end]);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(checks: &str, output: &str) -> Result<(), String> {
        check(&directives(checks), output)
    }

    #[test]
    fn in_order_next_same_and_not() {
        let out = "a = 1\nb = 2\nc = 3 : i32\n";
        assert!(run("// CHECK: a = 1\n// CHECK-NEXT: b\n// CHECK: c\n// CHECK-SAME: i32", out).is_ok());
        assert!(run("// CHECK: b\n// CHECK: a", out).is_err());
        assert!(run("// CHECK: a\n// CHECK-NEXT: c", out).is_err());
        assert!(run("// CHECK-COUNT-2: {{[a-z]}}", "a\nb").is_ok());
        assert!(run("// CHECK-COUNT-3: {{[a-z]}}", "a\nb").is_err());
        assert!(run("// CHECK: a\n// CHECK-NOT: b\n// CHECK: c", out).is_err());
        assert!(run("// CHECK: a\n// CHECK-NOT: z\n// CHECK: c", out).is_ok());
        assert!(run("// CHECK: c\n// CHECK-NOT: a", out).is_ok());
    }

    #[test]
    fn regexes_and_variables() {
        let out = "%7 = llvm.add %arg0, %arg1 : i32\nllvm.return %7 : i32\n";
        assert!(run("// CHECK: [[V:%[0-9]+]] = llvm.add\n// CHECK: llvm.return [[V]] : i32", out).is_ok());
        assert!(run("// CHECK: [[V:%[0-9]+]] = llvm.add\n// CHECK: llvm.return [[V]] : i64", out).is_err());
        assert!(run("// CHECK: llvm.{{add|sub}} %arg0", out).is_ok());
        assert!(run("// CHECK: llvm.add   %arg0,  %arg1", out).is_ok());
    }
}
