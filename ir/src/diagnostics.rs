//! User-facing errors with source locations.
//!
//! Every error a user can cause (bad MLIR text, an op the verifier rejects, a feature xcc does not
//! lower) is a [`Diagnostic`] carrying a [`Span`] into the source text. Rendering follows rustc's
//! shape: `file:line:col: error: message`, then the offending line and a caret.

use std::fmt;

/// A byte range in the one source file of a compilation. `Span::UNKNOWN` marks IR that passes built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const UNKNOWN: Span = Span { start: u32::MAX, end: u32::MAX };

    pub fn new(start: usize, end: usize) -> Span {
        Span { start: start as u32, end: end.max(start) as u32 }
    }

    pub fn is_known(self) -> bool {
        self.start != u32::MAX
    }

    /// The smallest span covering both; an unknown side is ignored.
    pub fn to(self, other: Span) -> Span {
        match (self.is_known(), other.is_known()) {
            (true, true) => Span { start: self.start.min(other.start), end: self.end.max(other.end) },
            (true, false) => self,
            _ => other,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub span: Span,
    pub message: String,
    /// Secondary remarks, e.g. where a value was defined.
    pub notes: Vec<(Span, String)>,
}

impl Diagnostic {
    pub fn new(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { span, message: message.into(), notes: Vec::new() }
    }

    pub fn with_note(mut self, span: Span, note: impl Into<String>) -> Diagnostic {
        self.notes.push((span, note.into()));
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnostic {}

/// A source file, with the line table needed to turn byte offsets into line:col.
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile { name: name.into(), text, line_starts }
    }

    /// One-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let col = self.text[self.line_starts[line]..offset].chars().count();
        (line + 1, col + 1)
    }

    fn line_text(&self, line: usize) -> &str {
        let start = self.line_starts[line - 1];
        let end = self.line_starts.get(line).copied().unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    /// Renders `file:line:col: error: message`, the source line and a caret under the span.
    pub fn render(&self, diag: &Diagnostic) -> String {
        let mut out = String::new();
        self.render_one(&mut out, diag.span, "error", &diag.message);
        for (span, note) in &diag.notes {
            self.render_one(&mut out, *span, "note", note);
        }
        out
    }

    fn render_one(&self, out: &mut String, span: Span, level: &str, message: &str) {
        use std::fmt::Write;
        if !span.is_known() {
            let _ = writeln!(out, "{}: {level}: {message}", self.name);
            return;
        }
        let (line, col) = self.line_col(span.start as usize);
        let _ = writeln!(out, "{}:{line}:{col}: {level}: {message}", self.name);
        let text = self.line_text(line);
        let gutter = line.to_string().len();
        let _ = writeln!(out, "{:gutter$} |", "");
        let _ = writeln!(out, "{line} | {text}");
        let line_end = self.line_starts.get(line).copied().unwrap_or(self.text.len());
        let width = self.text[span.start as usize..(span.end as usize).min(line_end).max(span.start as usize)]
            .trim_end_matches(['\n', '\r'])
            .chars()
            .count()
            .max(1);
        let indent: String = text.chars().take(col - 1).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
        let _ = writeln!(out, "{:gutter$} | {indent}{}", "", "^".repeat(width));
    }
}
