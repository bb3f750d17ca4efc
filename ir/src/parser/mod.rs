//! The MLIR text parser.
//!
//! Accepts the MLIR language reference grammar (generic operation form, regions, blocks with
//! arguments, multi-result values, type and attribute aliases, `loc(...)`) and the custom forms
//! of the operations xcc knows, in both spellings: the original standard dialect of the first
//! MLIR specification (`addi`, `cond_br`, `alloc`, `for`, `func @f`) and today's upstream
//! (`arith.addi`, `cf.cond_br`, `memref.alloc`, `affine.for`, `func.func`). Both parse into the
//! same IR with upstream operation names. Each operation's custom form is its definition's
//! parse function ([`crate::op_def::Syntax`]), beside its table in [`crate::dialects`]; the forms
//! many operations share are in [`forms`].
//!
//! Errors carry the span of the offending token; the first error stops parsing.

pub(crate) mod affine_syntax;
pub mod forms;
pub mod lexer;

use crate::attributes::{Attribute, DenseValues};
use crate::diagnostics::{Diagnostic, Span};
use crate::entity::{BlockId, OpId, RegionId, ValueId};
use crate::module::{Module, OpSpec, Successor, ValueData, ValueDef};
use crate::types::{FloatKind, FunctionType, Layout, MemRefType, Signedness, Type};
use lexer::Tok;
use std::collections::HashMap;

pub type PResult<T> = Result<T, Diagnostic>;

/// Parses a whole MLIR module.
pub fn parse_module(src: &str) -> PResult<Module> {
    let mut p = Parser::new(src);
    p.parse_top_level()?;
    Ok(p.m)
}

/// Parses a single type (for command-line and test use).
pub fn parse_type(src: &str) -> PResult<Type> {
    let mut p = Parser::new(src);
    let t = p.parse_type()?;
    p.expect_eof()?;
    Ok(t)
}

/// A branch target as written: its label (and where), and its arguments with their types.
pub(crate) type SuccessorRef = ((String, Span), Vec<(OperandRef, Type)>);

/// A use of a value before its type is known: `%name` or `%name#index`.
#[derive(Clone, Debug)]
pub struct OperandRef {
    pub name: String,
    pub index: u32,
    pub span: Span,
}

struct BlockEntry {
    block: BlockId,
    defined: bool,
    first_use: Span,
}

#[derive(Default)]
struct Scope {
    /// An isolated scope (a function body) cannot see values of the scopes around it.
    isolated: bool,
    values: HashMap<String, Vec<ValueId>>,
    /// Only on isolated scopes: uses of names not yet defined, resolved when defined.
    forward: HashMap<(String, u32), (ValueId, Span)>,
    /// Only on isolated scopes: placeholder -> definition.
    resolved: HashMap<ValueId, ValueId>,
}

pub struct Parser<'a> {
    src: &'a str,
    pos: usize,
    pub(crate) m: Module,
    type_aliases: HashMap<String, Type>,
    attr_aliases: HashMap<String, Attribute>,
    scopes: Vec<Scope>,
    /// One label table per region being parsed.
    block_scopes: Vec<HashMap<String, BlockEntry>>,
    /// The type of the function being parsed, for checking `return` in custom forms.
    pub(crate) func_results: Vec<Vec<Type>>,
    /// How many regions, types, attributes and parenthesized expressions enclose the one being
    /// parsed; bounded by [`MAX_NESTING`].
    depth: usize,
    /// Binary operations in the affine map or set being parsed; bounded by [`MAX_AFFINE_OPS`].
    pub(crate) affine_ops: usize,
}

/// The deepest nesting the parser accepts. The parser and the passes after it recurse on
/// nesting (a type in a type, a region in a region), so hostile input such as 100,000 `(` would
/// overflow the stack; real programs nest a few levels.
pub const MAX_NESTING: usize = 200;

/// The most elements a vector type may have (all dimensions together).
pub const MAX_VECTOR_ELEMENTS: u64 = 16384;

/// The most binary operations in one affine map or set: its expressions are trees that later
/// code walks recursively, and a chain of 100,000 `+` would be 100,000 levels deep.
pub const MAX_AFFINE_OPS: usize = 1000;

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Parser<'a> {
        Parser {
            src,
            pos: 0,
            m: Module::new(),
            type_aliases: HashMap::new(),
            attr_aliases: HashMap::new(),
            scopes: vec![Scope { isolated: true, ..Default::default() }],
            block_scopes: Vec::new(),
            func_results: Vec::new(),
            depth: 0,
            affine_ops: 0,
        }
    }

    /// Runs `f` one nesting level deeper: an error at the current token past [`MAX_NESTING`].
    pub(crate) fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_NESTING {
            return self.err_here(format!("nesting deeper than {MAX_NESTING} levels"));
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    // ---- token plumbing -------------------------------------------------------------------

    pub(crate) fn peek(&self) -> PResult<(Tok, Span)> {
        lexer::lex(self.src, self.pos)
    }

    pub(crate) fn next(&mut self) -> PResult<(Tok, Span)> {
        let (t, s) = self.peek()?;
        self.pos = s.end as usize;
        Ok((t, s))
    }

    pub(crate) fn peek_span(&self) -> Span {
        self.peek().map(|(_, s)| s).unwrap_or(Span::new(self.pos, self.pos))
    }

    pub(crate) fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Ok((Tok::Punct(q), _)) if q == p)
    }

    pub(crate) fn is_ident(&self, word: &str) -> bool {
        matches!(self.peek(), Ok((Tok::Ident(w), _)) if w == word)
    }

    pub(crate) fn eat_punct(&mut self, p: &str) -> PResult<bool> {
        if self.is_punct(p) {
            self.next()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    pub(crate) fn eat_ident(&mut self, word: &str) -> PResult<bool> {
        if self.is_ident(word) {
            self.next()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    pub(crate) fn err_here<T>(&self, msg: impl std::fmt::Display) -> PResult<T> {
        let (tok, span) = self.peek()?;
        Err(Diagnostic::new(span, format!("{msg}, found {}", tok.describe())))
    }

    pub(crate) fn expect_punct(&mut self, p: &str) -> PResult<Span> {
        match self.peek()? {
            (Tok::Punct(q), s) if q == p => {
                self.next()?;
                Ok(s)
            }
            _ => self.err_here(format!("expected '{p}'")),
        }
    }

    pub(crate) fn expect_ident_word(&mut self, word: &str) -> PResult<Span> {
        match self.peek()? {
            (Tok::Ident(w), s) if w == word => {
                self.next()?;
                Ok(s)
            }
            _ => self.err_here(format!("expected '{word}'")),
        }
    }

    pub(crate) fn expect_ident(&mut self, what: &str) -> PResult<(String, Span)> {
        match self.peek()? {
            (Tok::Ident(w), s) => {
                self.next()?;
                Ok((w, s))
            }
            _ => self.err_here(format!("expected {what}")),
        }
    }

    pub(crate) fn expect_string(&mut self, what: &str) -> PResult<(String, Span)> {
        match self.peek()? {
            (Tok::Str(w), s) => {
                self.next()?;
                Ok((w, s))
            }
            _ => self.err_here(format!("expected {what}")),
        }
    }

    pub(crate) fn expect_symbol(&mut self) -> PResult<(String, Span)> {
        match self.peek()? {
            (Tok::At(w), s) => {
                self.next()?;
                Ok((w, s))
            }
            _ => self.err_here("expected a symbol name ('@name')"),
        }
    }

    fn expect_eof(&self) -> PResult<()> {
        match self.peek()? {
            (Tok::Eof, _) => Ok(()),
            _ => self.err_here("expected end of input"),
        }
    }

    /// Parses `-`? integer literal.
    pub(crate) fn parse_int(&mut self, what: &str) -> PResult<(i128, Span)> {
        let neg_span = self.peek_span();
        let neg = self.eat_punct("-")?;
        match self.peek()? {
            (Tok::Int(v), s) => {
                self.next()?;
                let v = i128::try_from(v).map_err(|_| Diagnostic::new(s, "integer literal is too large"))?;
                Ok((if neg { -v } else { v }, if neg { neg_span.to(s) } else { s }))
            }
            _ => self.err_here(format!("expected {what}")),
        }
    }

    /// Runs `f`, restoring the position if it fails.
    pub(crate) fn try_parse<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> Option<T> {
        let saved = self.pos;
        let values = self.m.values.len();
        match f(self) {
            Ok(t) => Some(t),
            Err(_) => {
                self.pos = saved;
                debug_assert!(self.m.values.len() >= values);
                None
            }
        }
    }

    /// Skips a balanced `<...>`, `(...)`, `[...]` or `{...}` group starting at the current token and
    /// returns its text.
    pub(crate) fn skip_balanced(&mut self) -> PResult<String> {
        let (open, start) = self.next()?;
        let close = match open {
            Tok::Punct("<") => ">",
            Tok::Punct("(") => ")",
            Tok::Punct("[") => "]",
            Tok::Punct("{") => "}",
            _ => return Err(Diagnostic::new(start, "expected a bracketed group")),
        };
        let mut depth = 1;
        loop {
            let (t, s) = self.next()?;
            match t {
                Tok::Punct("<") | Tok::Punct("(") | Tok::Punct("[") | Tok::Punct("{") => depth += 1,
                Tok::Punct(">") | Tok::Punct(")") | Tok::Punct("]") | Tok::Punct("}") => {
                    depth -= 1;
                    if depth == 0 {
                        if t != Tok::Punct(close) {
                            return Err(Diagnostic::new(s, format!("expected '{close}'")));
                        }
                        return Ok(self.src[start.start as usize..s.end as usize].to_string());
                    }
                }
                Tok::Punct("->") => {}
                Tok::Eof => {
                    return Err(Diagnostic::new(
                        start,
                        format!("unclosed '{}'", &self.src[start.start as usize..start.end as usize]),
                    ))
                }
                _ => {}
            }
        }
    }

    /// Skips an optional trailing `loc(...)`.
    pub(crate) fn skip_loc(&mut self) -> PResult<()> {
        if self.is_ident("loc") {
            self.next()?;
            if !self.is_punct("(") {
                return self.err_here("expected '(' after 'loc'");
            }
            self.skip_balanced()?;
        }
        Ok(())
    }

    // ---- top level ------------------------------------------------------------------------

    fn parse_top_level(&mut self) -> PResult<()> {
        let body = self.m.body_block();
        let mut saw_module = false;
        loop {
            match self.peek()? {
                (Tok::Eof, _) => break,
                (Tok::Hash(name), span) => {
                    self.next()?;
                    self.expect_punct("=")?;
                    if self.attr_aliases.contains_key(&name) {
                        return Err(Diagnostic::new(span, format!("redefinition of attribute alias '#{name}'")));
                    }
                    let value = self.parse_attribute()?;
                    self.attr_aliases.insert(name, value);
                }
                (Tok::Bang(name), span) if !name.is_empty() => {
                    // `!t = type i32` (old) or `!t = i32`. A bare `!foo.bar` at top level is not valid.
                    self.next()?;
                    self.expect_punct("=")?;
                    self.eat_ident("type")?;
                    if self.type_aliases.contains_key(&name) {
                        return Err(Diagnostic::new(span, format!("redefinition of type alias '!{name}'")));
                    }
                    let t = self.parse_type()?;
                    self.type_aliases.insert(name, t);
                }
                (Tok::Ident(w), span) if w == "module" => {
                    if saw_module || !self.m.top_ops().is_empty() {
                        return Err(Diagnostic::new(span, "xcc compiles one module per file; found a second 'module'"));
                    }
                    saw_module = true;
                    self.next()?;
                    if let (Tok::At(name), _) = self.peek()? {
                        self.next()?;
                        self.m.name = Some(name);
                    }
                    if self.eat_ident("attributes")? {
                        self.m.attrs = self.parse_attr_dict()?;
                    }
                    self.expect_punct("{")?;
                    while !self.is_punct("}") {
                        if matches!(self.peek()?.0, Tok::Eof) {
                            return self.err_here("expected '}' to close the module");
                        }
                        self.parse_operation(body)?;
                    }
                    self.expect_punct("}")?;
                    self.skip_loc()?;
                }
                (_, span) => {
                    let op = self.parse_operation(body)?;
                    if self.m.ops[op].name == "builtin.module" {
                        if saw_module || self.m.top_ops().len() > 1 {
                            return Err(Diagnostic::new(
                                span,
                                "xcc compiles one module per file; found a second module",
                            ));
                        }
                        saw_module = true;
                        self.unwrap_generic_module(op);
                    }
                }
            }
        }
        self.finish_isolated_scope_check()
    }

    /// The generic form `"builtin.module"() ({ ... }) : () -> ()` (what `mlir-opt
    /// -mlir-print-op-generic` writes) is the module itself: its operations become the top level.
    fn unwrap_generic_module(&mut self, op: OpId) {
        let body = self.m.body_block();
        if let Some(crate::Attribute::String(name)) = self.m.attr(op, "sym_name") {
            self.m.name = Some(name.clone());
        }
        self.m.erase_op(op);
        let blocks: Vec<BlockId> =
            self.m.ops[op].regions.iter().flat_map(|&r| self.m.regions[r].blocks.clone()).collect();
        for b in blocks {
            for inner in std::mem::take(&mut self.m.blocks[b].ops) {
                self.m.append_op(body, inner);
            }
        }
    }

    fn finish_isolated_scope_check(&mut self) -> PResult<()> {
        let scope = self.scopes.last().expect("top scope");
        if let Some(((name, _), (_, span))) = scope.forward.iter().min_by_key(|(_, (_, s))| s.start) {
            return Err(Diagnostic::new(*span, format!("use of undefined value '%{name}'")));
        }
        Ok(())
    }

    // ---- values ---------------------------------------------------------------------------

    pub(crate) fn parse_operand_ref(&mut self) -> PResult<OperandRef> {
        match self.peek()? {
            (Tok::Percent(name), span) => {
                self.next()?;
                // `%x#1`: the lexer stops `%x` at '#', so the '#1' arrives as a Hash token.
                if let (Tok::Hash(idx), s2) = self.peek()? {
                    if s2.start == span.end {
                        let index: u32 = idx
                            .parse()
                            .map_err(|_| Diagnostic::new(s2, format!("expected a result number after '%{name}#'")))?;
                        self.next()?;
                        return Ok(OperandRef { name, index, span: span.to(s2) });
                    }
                }
                Ok(OperandRef { name, index: 0, span })
            }
            _ => self.err_here("expected an SSA value ('%name')"),
        }
    }

    /// `%a, %b, ...` (possibly empty when `allow_empty`).
    pub(crate) fn parse_operand_refs(&mut self) -> PResult<Vec<OperandRef>> {
        let mut refs = Vec::new();
        if !matches!(self.peek()?.0, Tok::Percent(_)) {
            return Ok(refs);
        }
        loop {
            refs.push(self.parse_operand_ref()?);
            if !self.eat_punct(",")? {
                return Ok(refs);
            }
            if !matches!(self.peek()?.0, Tok::Percent(_)) {
                return self.err_here("expected an SSA value after ','");
            }
        }
    }

    /// Resolves a use to a value of type `ty`, creating a forward-reference placeholder if the
    /// name is not defined yet.
    pub(crate) fn resolve(&mut self, r: &OperandRef, ty: &Type) -> PResult<ValueId> {
        for scope in self.scopes.iter().rev() {
            if let Some(vals) = scope.values.get(&r.name) {
                let Some(&v) = vals.get(r.index as usize) else {
                    return Err(Diagnostic::new(
                        r.span,
                        format!("'%{}' has only {} result(s); #{} is out of range", r.name, vals.len(), r.index),
                    ));
                };
                let actual = &self.m.values[v].ty;
                if actual != ty {
                    return Err(Diagnostic::new(
                        r.span,
                        format!("use of value '%{}' expects type {ty}, but it has type {actual}", r.name),
                    )
                    .with_note(self.m.values[v].span, format!("'%{}' is defined here", r.name)));
                }
                return Ok(v);
            }
            if scope.isolated {
                break;
            }
        }
        let iso = self.isolated_scope_index();
        let key = (r.name.clone(), r.index);
        if let Some(&(v, _)) = self.scopes[iso].forward.get(&key) {
            let actual = &self.m.values[v].ty;
            if actual != ty {
                return Err(Diagnostic::new(
                    r.span,
                    format!("use of value '%{}' expects type {ty}, but an earlier use gave it type {actual}", r.name),
                ));
            }
            return Ok(v);
        }
        let v = self.m.values.push(ValueData { ty: ty.clone(), def: ValueDef::Unresolved, span: r.span });
        self.scopes[iso].forward.insert(key, (v, r.span));
        Ok(v)
    }

    pub(crate) fn resolve_all(&mut self, refs: &[OperandRef], types: &[Type]) -> PResult<Vec<ValueId>> {
        refs.iter().zip(types).map(|(r, t)| self.resolve(r, t)).collect()
    }

    /// Resolves every ref to the same type.
    pub(crate) fn resolve_same(&mut self, refs: &[OperandRef], ty: &Type) -> PResult<Vec<ValueId>> {
        refs.iter().map(|r| self.resolve(r, ty)).collect()
    }

    fn isolated_scope_index(&self) -> usize {
        self.scopes.iter().rposition(|s| s.isolated).expect("an isolated scope")
    }

    /// Binds `%name` to values, resolving earlier forward uses.
    pub(crate) fn define(&mut self, name: &str, span: Span, values: Vec<ValueId>) -> PResult<()> {
        for scope in self.scopes.iter().rev() {
            if scope.values.contains_key(name) {
                let prev = scope.values[name][0];
                return Err(Diagnostic::new(span, format!("redefinition of value '%{name}'"))
                    .with_note(self.m.values[prev].span, "previously defined here"));
            }
            if scope.isolated {
                break;
            }
        }
        let iso = self.isolated_scope_index();
        for (i, &v) in values.iter().enumerate() {
            if let Some((placeholder, use_span)) = self.scopes[iso].forward.remove(&(name.to_string(), i as u32)) {
                let (want, have) = (&self.m.values[placeholder].ty, &self.m.values[v].ty);
                if want != have {
                    return Err(Diagnostic::new(
                        use_span,
                        format!("use of value '%{name}' expects type {want}, but it is defined with type {have}"),
                    )
                    .with_note(span, "defined here"));
                }
                self.scopes[iso].resolved.insert(placeholder, v);
            }
        }
        // Out-of-range forward uses of a result group.
        let stale: Vec<_> = self.scopes[iso]
            .forward
            .iter()
            .filter(|((n, i), _)| n == name && *i as usize >= values.len())
            .map(|((_, i), (_, s))| (*i, *s))
            .collect();
        if let Some((i, s)) = stale.first() {
            return Err(Diagnostic::new(
                *s,
                format!("'%{name}' has only {} result(s); #{i} is out of range", values.len()),
            ));
        }
        for &v in &values {
            self.m.values[v].span = span;
        }
        self.scopes.last_mut().expect("scope").values.insert(name.to_string(), values);
        Ok(())
    }

    /// Enters the body of a function: values outside are invisible.
    pub(crate) fn push_isolated_scope(&mut self) {
        self.scopes.push(Scope { isolated: true, ..Default::default() });
    }

    /// Leaves a function body: reports undefined values and rewrites forward uses.
    pub(crate) fn pop_isolated_scope(&mut self, regions: &[RegionId]) -> PResult<()> {
        let scope = self.scopes.pop().expect("isolated scope");
        if let Some(((name, _), (_, span))) = scope.forward.iter().min_by_key(|(_, (_, s))| s.start) {
            return Err(Diagnostic::new(*span, format!("use of undefined value '%{name}'")));
        }
        if !scope.resolved.is_empty() {
            for &r in regions {
                self.replace_in_region(r, &scope.resolved);
            }
        }
        Ok(())
    }

    fn replace_in_region(&mut self, r: RegionId, map: &HashMap<ValueId, ValueId>) {
        for b in self.m.regions[r].blocks.clone() {
            for op in self.m.blocks[b].ops.clone() {
                let data = &mut self.m.ops[op];
                for v in data.operands.iter_mut() {
                    if let Some(&n) = map.get(v) {
                        *v = n;
                    }
                }
                for s in data.successors.iter_mut() {
                    for v in s.args.iter_mut() {
                        if let Some(&n) = map.get(v) {
                            *v = n;
                        }
                    }
                }
                for inner in self.m.ops[op].regions.clone() {
                    self.replace_in_region(inner, map);
                }
            }
        }
    }

    pub(crate) fn push_scope(&mut self) {
        self.scopes.push(Scope::default());
    }

    pub(crate) fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    // ---- operations -----------------------------------------------------------------------

    /// Parses one operation (with its result names) and appends it to `block`.
    pub(crate) fn parse_operation(&mut self, block: BlockId) -> PResult<OpId> {
        let start = self.peek_span();
        let mut result_names: Vec<(String, u32, Span)> = Vec::new();
        if matches!(self.peek()?.0, Tok::Percent(_)) {
            loop {
                let (tok, span) = self.next()?;
                let Tok::Percent(name) = tok else {
                    return Err(Diagnostic::new(span, "expected a result name"));
                };
                let mut count = 1;
                if self.eat_punct(":")? {
                    let (n, s) = self.parse_int("a result count")?;
                    if n < 1 {
                        return Err(Diagnostic::new(s, "a result group must have at least one value"));
                    }
                    count = n as u32;
                }
                result_names.push((name, count, span));
                if !self.eat_punct(",")? {
                    break;
                }
            }
            self.expect_punct("=")?;
        }
        let expected: u32 = result_names.iter().map(|r| r.1).sum();
        let (tok, name_span) = self.peek()?;
        let spec = match tok {
            Tok::Str(name) => {
                self.next()?;
                self.parse_generic_op(name, name_span)?
            }
            Tok::Ident(name) => {
                self.next()?;
                self.parse_custom_op(&name, name_span)?
            }
            _ => return self.err_here("expected an operation"),
        };
        let span = start.to(name_span);
        let op = self.m.create_op(OpSpec { span, ..spec });
        self.skip_loc()?;
        let results = self.m.ops[op].results.clone();
        if results.len() as u32 != expected && expected != 0 {
            return Err(Diagnostic::new(
                start,
                format!(
                    "operation '{}' produces {} result(s), but {} name(s) are bound",
                    self.m.ops[op].name,
                    results.len(),
                    expected
                ),
            ));
        }
        let mut next = 0;
        for (name, count, s) in result_names {
            let vals = results[next..next + count as usize].to_vec();
            next += count as usize;
            self.define(&name, s, vals)?;
        }
        self.m.append_op(block, op);
        Ok(op)
    }

    /// The generic form: `"name"(operands) [successors] <{props}> (regions) {attrs} : fn-type`.
    fn parse_generic_op(&mut self, name: String, name_span: Span) -> PResult<OpSpec> {
        let name = crate::dialects::original::canonical_name(&name).to_string();
        self.expect_punct("(")?;
        let refs = self.parse_operand_refs()?;
        self.expect_punct(")")?;
        let mut succ_refs = Vec::new();
        if self.eat_punct("[")? {
            loop {
                succ_refs.push(self.parse_successor()?);
                if !self.eat_punct(",")? {
                    break;
                }
            }
            self.expect_punct("]")?;
        }
        let mut attrs = Vec::new();
        let mut property_names = Vec::new();
        if self.is_punct("<") {
            self.next()?;
            attrs = self.parse_attr_dict()?;
            self.expect_punct(">")?;
            property_names = attrs.iter().map(|(k, _)| k.clone()).collect();
        }
        let mut regions = Vec::new();
        if self.is_punct("(") {
            self.next()?;
            loop {
                regions.push(self.parse_region(&[], false)?);
                if !self.eat_punct(",")? {
                    break;
                }
            }
            self.expect_punct(")")?;
        }
        if self.is_punct("{") {
            attrs.extend(self.parse_attr_dict()?);
        }
        self.expect_punct(":")?;
        let ty_span = self.peek_span();
        let ty = self.parse_type()?;
        let Type::Function(ft) = ty else {
            return Err(Diagnostic::new(
                ty_span,
                "expected a function type '(inputs) -> results' for a generic operation",
            ));
        };
        if ft.inputs.len() != refs.len() {
            return Err(Diagnostic::new(
                ty_span,
                format!("the type lists {} operand(s), but the operation has {}", ft.inputs.len(), refs.len()),
            ));
        }
        let operands = self.resolve_all(&refs, &ft.inputs)?;
        // The original spelling's `dim`/`extract_element` apply to tensors as well as memrefs
        // and vectors; upstream splits them by operand type.
        let name = match (name.as_str(), ft.inputs.first()) {
            ("memref.dim", Some(Type::Tensor { .. })) => "tensor.dim".to_string(),
            ("vector.extractelement", Some(Type::Tensor { .. })) => "tensor.extract".to_string(),
            _ => name,
        };
        let indirect_call = name == "llvm.call" && !attrs.iter().any(|(k, _)| k == "callee" || k == "callee_type");
        if indirect_call && !ft.inputs.is_empty() {
            // Upstream's generic indirect call names no callee: the pointer is the first
            // operand, and the callee's type is what the call passes and returns.
            let callee_type = FunctionType { inputs: ft.inputs[1..].to_vec(), results: ft.results.clone() };
            attrs.push(("callee_type".into(), Attribute::Type(Type::Function(callee_type))));
        }
        let mut spec = OpSpec::new(name, name_span).operands(operands).results(ft.results);
        spec.attrs = attrs;
        spec.regions = regions;
        for (label, args) in succ_refs {
            spec.successors.push(self.finish_successor(label, args)?);
        }
        if !crate::dialects::is_registered_dialect(&spec.name) {
            spec.property_names = property_names;
        }
        normalize_generic_successors(&mut spec);
        normalize_generic_switch(&mut spec);
        normalize_generic_index_cmp(&mut spec);
        normalize_generic_llvm_symbol(&mut spec);
        Ok(spec)
    }

    /// The custom form, by the parse function of the operation's definition.
    fn parse_custom_op(&mut self, written: &str, span: Span) -> PResult<OpSpec> {
        let name = crate::dialects::original::canonical_name(written);
        let spec = OpSpec::new(name, span);
        if let Some(parse) = crate::dialects::lookup(name).and_then(|d| d.syntax.parse) {
            return parse(self, spec);
        }
        if name.starts_with("llvm.intr.") {
            return crate::dialects::llvm::parse_intrinsic(self, spec);
        }
        let known = crate::dialects::lookup(name).is_some();
        Err(Diagnostic::new(
            span,
            if known {
                format!("'{written}' has no custom form; write it in the generic form \"{name}\"(...) : (...) -> (...)")
            } else {
                format!(
                    "unknown operation '{written}' (use the generic form \"{written}\"(...) : (...) -> ... for operations without a custom form)"
                )
            },
        ))
    }

    /// `^bb(%a, %b : i32, i32)` (types written inline, old and new forms alike).
    pub(crate) fn parse_successor(&mut self) -> PResult<SuccessorRef> {
        let (tok, span) = self.next()?;
        let Tok::Caret(label) = tok else {
            return Err(Diagnostic::new(span, format!("expected a block label ('^bb'), found {}", tok.describe())));
        };
        let mut args = Vec::new();
        if self.eat_punct("(")? {
            let refs = self.parse_operand_refs()?;
            if !refs.is_empty() {
                self.expect_punct(":")?;
                let types = self.parse_type_list_no_parens()?;
                if types.len() != refs.len() {
                    return Err(Diagnostic::new(
                        span,
                        format!("branch to ^{label} passes {} value(s) but lists {} type(s)", refs.len(), types.len()),
                    ));
                }
                args = refs.into_iter().zip(types).collect();
            }
            self.expect_punct(")")?;
        }
        Ok(((label, span), args))
    }

    pub(crate) fn finish_successor(
        &mut self,
        (label, span): (String, Span),
        args: Vec<(OperandRef, Type)>,
    ) -> PResult<Successor> {
        let block = self.block_ref(&label, span)?;
        let args = args.iter().map(|(r, t)| self.resolve(r, t)).collect::<PResult<Vec<_>>>()?;
        Ok(Successor { block, args })
    }

    fn block_ref(&mut self, label: &str, span: Span) -> PResult<BlockId> {
        let Some(table) = self.block_scopes.last_mut() else {
            return Err(Diagnostic::new(span, "a branch outside of any region"));
        };
        if let Some(e) = table.get(label) {
            return Ok(e.block);
        }
        let block = self.m.blocks.push(Default::default());
        table.insert(label.to_string(), BlockEntry { block, defined: false, first_use: span });
        Ok(block)
    }

    // ---- regions and blocks ---------------------------------------------------------------

    /// Parses `{ blocks }`. `entry_args` become the entry block's arguments (function and loop
    /// bodies name them outside the braces). With `implicit_terminator`, a body without a
    /// terminator is left for the caller to complete.
    pub(crate) fn parse_region(
        &mut self,
        entry_args: &[(String, Type, Span)],
        _implicit_terminator: bool,
    ) -> PResult<RegionId> {
        self.nested(|p| p.parse_region_unbounded(entry_args))
    }

    fn parse_region_unbounded(&mut self, entry_args: &[(String, Type, Span)]) -> PResult<RegionId> {
        self.expect_punct("{")?;
        let region = self.m.new_region();
        self.block_scopes.push(HashMap::new());
        self.push_scope();
        let result = self.parse_region_body(region, entry_args);
        self.pop_scope();
        let table = self.block_scopes.pop().expect("block scope");
        result?;
        if let Some((label, e)) = table.iter().filter(|(_, e)| !e.defined).min_by_key(|(_, e)| e.first_use.start) {
            return Err(Diagnostic::new(e.first_use, format!("reference to an undefined block '^{label}'")));
        }
        Ok(region)
    }

    fn parse_region_body(&mut self, region: RegionId, entry_args: &[(String, Type, Span)]) -> PResult<()> {
        if self.eat_punct("}")? {
            if !entry_args.is_empty() {
                let b = self.m.append_block(region, Span::UNKNOWN);
                self.add_named_args(b, entry_args)?;
            }
            return Ok(());
        }
        let mut current: Option<BlockId> = None;
        if !matches!(self.peek()?.0, Tok::Caret(_)) || !entry_args.is_empty() {
            let b = self.m.append_block(region, self.peek_span());
            self.add_named_args(b, entry_args)?;
            current = Some(b);
        }
        loop {
            match self.peek()? {
                (Tok::Punct("}"), _) => {
                    self.next()?;
                    return Ok(());
                }
                (Tok::Eof, _) => return self.err_here("expected '}' to close the region"),
                (Tok::Caret(label), span) => {
                    self.next()?;
                    let block = self.define_block(&label, span)?;
                    self.m.blocks[block].parent = Some(region);
                    self.m.blocks[block].span = span;
                    self.m.regions[region].blocks.push(block);
                    if self.eat_punct("(")? {
                        if !self.is_punct(")") {
                            loop {
                                let r = self.parse_operand_ref()?;
                                self.expect_punct(":")?;
                                let ty = self.parse_type()?;
                                self.skip_loc()?;
                                let v = self.m.add_block_arg(block, ty, r.span);
                                self.define(&r.name, r.span, vec![v])?;
                                if !self.eat_punct(",")? {
                                    break;
                                }
                            }
                        }
                        self.expect_punct(")")?;
                    }
                    self.expect_punct(":")?;
                    current = Some(block);
                }
                _ => {
                    let block = current.expect("a current block");
                    self.parse_operation(block)?;
                }
            }
        }
    }

    fn add_named_args(&mut self, block: BlockId, args: &[(String, Type, Span)]) -> PResult<()> {
        for (name, ty, span) in args {
            let v = self.m.add_block_arg(block, ty.clone(), *span);
            if !name.is_empty() {
                self.define(name, *span, vec![v])?;
            }
        }
        Ok(())
    }

    fn define_block(&mut self, label: &str, span: Span) -> PResult<BlockId> {
        let table = self.block_scopes.last_mut().expect("block scope");
        match table.get_mut(label) {
            Some(e) if e.defined => Err(Diagnostic::new(span, format!("redefinition of block '^{label}'"))),
            Some(e) => {
                e.defined = true;
                Ok(e.block)
            }
            None => {
                let block = self.m.blocks.push(Default::default());
                table.insert(label.to_string(), BlockEntry { block, defined: true, first_use: span });
                Ok(block)
            }
        }
    }

    // ---- types ----------------------------------------------------------------------------

    pub(crate) fn parse_type(&mut self) -> PResult<Type> {
        self.nested(Self::parse_type_unbounded)
    }

    fn parse_type_unbounded(&mut self) -> PResult<Type> {
        let (tok, span) = self.peek()?;
        match tok {
            Tok::Punct("(") => {
                self.next()?;
                let inputs = if self.is_punct(")") { Vec::new() } else { self.parse_type_list_no_parens()? };
                self.expect_punct(")")?;
                self.expect_punct("->")?;
                let results = self.parse_function_result_types()?;
                Ok(Type::Function(FunctionType { inputs, results }))
            }
            Tok::Ident(word) => {
                self.next()?;
                self.parse_builtin_type(&word, span)
            }
            Tok::Bang(name) => {
                self.next()?;
                self.parse_dialect_type(&name, span)
            }
            _ => self.err_here("expected a type"),
        }
    }

    /// After `->`: a single type or a parenthesized list.
    pub(crate) fn parse_function_result_types(&mut self) -> PResult<Vec<Type>> {
        if self.is_punct("(") {
            // `(T, U)` or a function type `(T) -> U` as the single result.
            let saved = self.pos;
            self.next()?;
            let list = if self.is_punct(")") { Vec::new() } else { self.parse_type_list_no_parens()? };
            self.expect_punct(")")?;
            if self.is_punct("->") {
                self.pos = saved;
                return Ok(vec![self.parse_type()?]);
            }
            Ok(list)
        } else {
            Ok(vec![self.parse_type()?])
        }
    }

    pub(crate) fn parse_type_list_no_parens(&mut self) -> PResult<Vec<Type>> {
        let mut types = vec![self.parse_type()?];
        while self.eat_punct(",")? {
            types.push(self.parse_type()?);
        }
        Ok(types)
    }

    fn parse_builtin_type(&mut self, word: &str, span: Span) -> PResult<Type> {
        let int_width = |prefix: &str| -> Option<u32> {
            word.strip_prefix(prefix)
                .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|d| d.parse().ok())
        };
        if let Some(w) = int_width("i") {
            return self.check_width(w, span, Signedness::Signless);
        }
        if let Some(w) = int_width("si") {
            return self.check_width(w, span, Signedness::Signed);
        }
        if let Some(w) = int_width("ui") {
            return self.check_width(w, span, Signedness::Unsigned);
        }
        Ok(match word {
            "index" => Type::Index,
            "f16" => Type::Float(FloatKind::F16),
            "bf16" => Type::Float(FloatKind::BF16),
            "f32" => Type::Float(FloatKind::F32),
            "f64" => Type::Float(FloatKind::F64),
            "none" => Type::None,
            "vector" => {
                self.expect_punct("<")?;
                let (shape, _) = self.parse_dims(false, false)?;
                let elem = self.parse_type()?;
                self.expect_punct(">")?;
                let shape = shape
                    .ok_or_else(|| Diagnostic::new(span, "vector types cannot be unranked"))?
                    .into_iter()
                    .map(|d| d.ok_or_else(|| Diagnostic::new(span, "vector dimensions must be static")))
                    .collect::<PResult<Vec<u64>>>()?;
                let lanes = shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
                if lanes == Some(0) {
                    return Err(Diagnostic::new(span, "a vector dimension of 0: a vector holds at least one element"));
                }
                if lanes.is_none_or(|n| n > MAX_VECTOR_ELEMENTS) {
                    return Err(Diagnostic::new(
                        span,
                        format!(
                            "a vector of {} elements; xcc takes at most {MAX_VECTOR_ELEMENTS} (LLVM's code \
                             generator aborts at 65,536 and slows down long before)",
                            lanes.map_or("more than 2^64".to_string(), |n| n.to_string())
                        ),
                    ));
                }
                if !(elem.is_integer() || elem.is_float() || elem.is_index()) {
                    return Err(Diagnostic::new(
                        span,
                        format!("vector elements must be integers, index or floats, not {elem}"),
                    ));
                }
                Type::Vector { shape, elem: Box::new(elem) }
            }
            "tensor" => {
                self.expect_punct("<")?;
                let (shape, _) = self.parse_dims(true, true)?;
                let elem = self.parse_type()?;
                if self.eat_punct(",")? {
                    self.parse_attribute()?; // encoding
                }
                self.expect_punct(">")?;
                if let Some(dims) = &shape {
                    check_bytes(span, "tensor", dims, &elem)?;
                }
                Type::Tensor { shape, elem: Box::new(elem) }
            }
            "memref" => return self.parse_memref_body(span),
            "tuple" => {
                self.expect_punct("<")?;
                let types = if self.is_punct(">") { Vec::new() } else { self.parse_type_list_no_parens()? };
                self.expect_punct(">")?;
                Type::Tuple(types)
            }
            _ => return Err(Diagnostic::new(span, format!("unknown type '{word}'"))),
        })
    }

    fn check_width(&self, w: u32, span: Span, signedness: Signedness) -> PResult<Type> {
        if w == 0 || w > 1 << 16 {
            return Err(Diagnostic::new(span, format!("integer width {w} is out of range (1..=65536)")));
        }
        Ok(Type::Integer { width: w, signedness })
    }

    /// Scans `4x?x8x` (raw: dims are not token-separated). Returns `None` for `*x` (unranked).
    fn parse_dims(&mut self, allow_dynamic: bool, allow_unranked: bool) -> PResult<(Option<Vec<Option<u64>>>, Span)> {
        let b = self.src.as_bytes();
        let mut pos = lexer::skip_trivia(self.src, self.pos);
        let start = pos;
        let mut dims = Vec::new();
        let mut unranked = false;
        loop {
            let p = lexer::skip_trivia(self.src, pos);
            let dim_start = p;
            let dim = if p < b.len() && b[p].is_ascii_digit() {
                let mut e = p;
                while e < b.len() && b[e].is_ascii_digit() {
                    e += 1;
                }
                let v: u64 =
                    self.src[p..e].parse().map_err(|_| Diagnostic::new(Span::new(p, e), "dimension is too large"))?;
                pos = e;
                Some(Some(v))
            } else if p < b.len() && b[p] == b'?' {
                if !allow_dynamic {
                    return Err(Diagnostic::new(
                        Span::new(p, p + 1),
                        "dynamic dimensions are not allowed in this type",
                    ));
                }
                pos = p + 1;
                Some(None)
            } else if p < b.len() && b[p] == b'*' && dims.is_empty() && !unranked {
                if !allow_unranked {
                    return Err(Diagnostic::new(Span::new(p, p + 1), "unranked shapes are not allowed in this type"));
                }
                pos = p + 1;
                unranked = true;
                None
            } else {
                break;
            };
            let q = lexer::skip_trivia(self.src, pos);
            if q < b.len() && b[q] == b'x' {
                pos = q + 1;
            } else {
                return Err(Diagnostic::new(
                    Span::new(dim_start, q.max(dim_start + 1)),
                    "expected 'x' after a dimension",
                ));
            }
            if let Some(d) = dim {
                dims.push(d);
            }
        }
        self.pos = pos;
        Ok((if unranked { None } else { Some(dims) }, Span::new(start, pos)))
    }

    fn parse_memref_body(&mut self, span: Span) -> PResult<Type> {
        self.expect_punct("<")?;
        let (shape, _) = self.parse_dims(true, true)?;
        let elem = self.parse_type()?;
        let mut layout = Layout::Identity;
        let mut memory_space = None;
        while self.eat_punct(",")? {
            let (tok, s) = self.peek()?;
            match tok {
                Tok::Ident(w) if w == "strided" => {
                    self.next()?;
                    layout = self.parse_strided_layout()?;
                }
                Tok::Ident(w) if w == "affine_map" => {
                    let a = self.parse_attribute()?;
                    layout = Layout::Map(a.as_affine_map().cloned().expect("affine map"));
                }
                Tok::Punct("(") => {
                    layout = Layout::Map(affine_syntax::parse_affine_map_or_set(self)?.into_map(s)?);
                }
                // The original spec names memory spaces with bare words (`hbm`, `vmem`).
                Tok::Ident(w)
                    if !is_type_keyword(&w)
                        && !["dense", "array", "true", "false", "unit", "affine_set", "loc"].contains(&w.as_str()) =>
                {
                    self.next()?;
                    memory_space = Some(Box::new(Attribute::Opaque(w)));
                }
                _ => {
                    let a = self.parse_attribute()?;
                    match a {
                        Attribute::AffineMap(m) => layout = Layout::Map(m),
                        other => memory_space = Some(Box::new(other)),
                    }
                }
            }
        }
        self.expect_punct(">")?;
        let elem = Box::new(elem);
        match shape {
            None => Ok(Type::UnrankedMemRef { elem, memory_space }),
            Some(shape) => {
                check_bytes(span, "memref", &shape, &elem)?;
                if let Layout::Map(m) = &layout {
                    if m.num_dims as usize != shape.len() {
                        return Err(Diagnostic::new(
                            span,
                            format!(
                                "the layout map takes {} dimension(s), but the memref has rank {}",
                                m.num_dims,
                                shape.len()
                            ),
                        ));
                    }
                }
                if let Layout::Strided { strides, .. } = &layout {
                    if strides.len() != shape.len() {
                        return Err(Diagnostic::new(
                            span,
                            format!(
                                "the layout has {} stride(s), but the memref has rank {}",
                                strides.len(),
                                shape.len()
                            ),
                        ));
                    }
                }
                Ok(Type::MemRef(MemRefType { shape, elem, layout, memory_space }))
            }
        }
    }

    fn parse_strided_layout(&mut self) -> PResult<Layout> {
        self.expect_punct("<")?;
        self.expect_punct("[")?;
        let mut strides = Vec::new();
        if !self.is_punct("]") {
            loop {
                if self.eat_punct("?")? {
                    strides.push(None);
                } else {
                    strides.push(Some(self.parse_int("a stride")?.0 as i64));
                }
                if !self.eat_punct(",")? {
                    break;
                }
            }
        }
        self.expect_punct("]")?;
        let mut offset = Some(0);
        if self.eat_punct(",")? {
            self.expect_ident_word("offset")?;
            self.expect_punct(":")?;
            offset = if self.eat_punct("?")? { None } else { Some(self.parse_int("an offset")?.0 as i64) };
        }
        self.expect_punct(">")?;
        Ok(Layout::Strided { offset, strides })
    }

    /// A type inside an llvm dialect type (a struct's field, an array's element, a function
    /// type's result or parameter), where upstream writes llvm types without their prefix:
    /// `!llvm.struct<(ptr, array<2 x i64>)>`.
    fn parse_llvm_member_type(&mut self) -> PResult<Type> {
        let (tok, span) = self.peek()?;
        match tok {
            Tok::Ident(w) if matches!(w.as_str(), "ptr" | "struct" | "array" | "func" | "void") => {
                self.next()?;
                self.nested(|p| p.parse_dialect_type(&format!("llvm.{w}"), span))
            }
            _ => self.parse_type(),
        }
    }

    fn parse_dialect_type(&mut self, name: &str, span: Span) -> PResult<Type> {
        if let Some(t) = self.type_aliases.get(name) {
            return Ok(t.clone());
        }
        match name {
            "llvm.ptr" => {
                if self.eat_punct("<")? {
                    let (n, _) = self.parse_int("an address space")?;
                    self.expect_punct(">")?;
                    return Ok(Type::LlvmPtr { address_space: n as u32 });
                }
                Ok(Type::ptr())
            }
            "llvm.void" => Ok(Type::LlvmVoid),
            "llvm.struct" => {
                self.expect_punct("<")?;
                let packed = self.eat_ident("packed")?;
                self.expect_punct("(")?;
                let mut fields = Vec::new();
                if !self.is_punct(")") {
                    loop {
                        fields.push(self.parse_llvm_member_type()?);
                        if !self.eat_punct(",")? {
                            break;
                        }
                    }
                }
                self.expect_punct(")")?;
                self.expect_punct(">")?;
                Ok(Type::LlvmStruct { packed, fields })
            }
            "llvm.array" => {
                self.expect_punct("<")?;
                let (n, _) = self.parse_int("an array length")?;
                self.expect_ident_word("x")?;
                let elem = self.parse_llvm_member_type()?;
                self.expect_punct(">")?;
                Ok(Type::LlvmArray { len: n as u64, elem: Box::new(elem) })
            }
            "llvm.func" => {
                self.expect_punct("<")?;
                let result = self.parse_llvm_member_type()?;
                self.expect_punct("(")?;
                let mut params = Vec::new();
                let mut vararg = false;
                if !self.is_punct(")") {
                    loop {
                        if self.eat_punct("...")? {
                            vararg = true;
                            break;
                        }
                        params.push(self.parse_llvm_member_type()?);
                        if !self.eat_punct(",")? {
                            break;
                        }
                    }
                }
                self.expect_punct(")")?;
                self.expect_punct(">")?;
                Ok(Type::LlvmFunc { result: Box::new(result), params, vararg })
            }
            "llvm" if self.is_punct("<") => {
                // The original `!llvm<"i32*">` form: an LLVM IR type in a string.
                self.next()?;
                let (text, s) = self.expect_string("an LLVM type string")?;
                self.expect_punct(">")?;
                llvm_type_from_string(&text)
                    .ok_or_else(|| Diagnostic::new(s, format!("unsupported LLVM type \"{text}\"")))
            }
            _ if name.starts_with("llvm.") => Err(Diagnostic::new(
                span,
                format!("unknown llvm dialect type '!{name}' (xcc knows ptr, void, struct, array and func)"),
            )),
            _ if name.contains('.') || self.is_punct("<") => {
                let body = if self.is_punct("<") { self.skip_balanced()? } else { String::new() };
                let (dialect, rest) = match name.split_once('.') {
                    Some((d, r)) => (d.to_string(), format!(".{r}{body}")),
                    None => (name.to_string(), body),
                };
                if name == "gpu.mma_matrix" {
                    // Known to xcc: checked and spelled one way, so that equal types compare equal.
                    let fragment = crate::dialects::gpu::MmaMatrix::from_body(&rest);
                    return fragment.map(|f| f.to_type()).map_err(|e| Diagnostic::new(span, e));
                }
                Ok(Type::Opaque { dialect, body: rest })
            }
            _ => Err(Diagnostic::new(span, format!("undefined type alias '!{name}'"))),
        }
    }

    // ---- attributes -----------------------------------------------------------------------

    /// `{name = value, unit_name, name: value}` (the original spec used ':').
    pub(crate) fn parse_attr_dict(&mut self) -> PResult<Vec<(String, Attribute)>> {
        self.expect_punct("{")?;
        let mut entries: Vec<(String, Attribute)> = Vec::new();
        if !self.is_punct("}") {
            loop {
                let (tok, span) = self.next()?;
                let name = match tok {
                    Tok::Ident(n) | Tok::Str(n) => n,
                    _ => {
                        return Err(Diagnostic::new(
                            span,
                            format!("expected an attribute name, found {}", tok.describe()),
                        ))
                    }
                };
                let value = if self.eat_punct("=")? || self.eat_punct(":")? {
                    self.parse_attribute()?
                } else {
                    Attribute::Unit
                };
                if entries.iter().any(|(k, _)| *k == name) {
                    return Err(Diagnostic::new(span, format!("duplicate attribute '{name}'")));
                }
                entries.push((name, value));
                if !self.eat_punct(",")? {
                    break;
                }
            }
        }
        self.expect_punct("}")?;
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(entries)
    }

    pub(crate) fn parse_attribute(&mut self) -> PResult<Attribute> {
        self.nested(Self::parse_attribute_unbounded)
    }

    fn parse_attribute_unbounded(&mut self) -> PResult<Attribute> {
        let (tok, span) = self.peek()?;
        match tok {
            Tok::Ident(w) => match w.as_str() {
                "true" | "false" => {
                    self.next()?;
                    Ok(Attribute::Bool(w == "true"))
                }
                "unit" => {
                    self.next()?;
                    Ok(Attribute::Unit)
                }
                "dense" => {
                    self.next()?;
                    self.parse_dense()
                }
                "array" => {
                    self.next()?;
                    self.expect_punct("<")?;
                    let elem = self.parse_type()?;
                    let mut values = Vec::new();
                    if self.eat_punct(":")? {
                        loop {
                            values.push(self.parse_int("an integer")?.0);
                            if !self.eat_punct(",")? {
                                break;
                            }
                        }
                    }
                    self.expect_punct(">")?;
                    Ok(Attribute::DenseArray { elem, values })
                }
                "affine_map" | "affine_set" => {
                    self.next()?;
                    self.expect_punct("<")?;
                    let parsed = affine_syntax::parse_affine_map_or_set(self)?;
                    self.expect_punct(">")?;
                    Ok(parsed.into_attribute())
                }
                "loc" => {
                    self.next()?;
                    let body = self.skip_balanced()?;
                    Ok(Attribute::Opaque(format!("loc{body}")))
                }
                _ => Ok(Attribute::Type(self.parse_type()?)),
            },
            Tok::Int(_) | Tok::Float(_) | Tok::Punct("-") => self.parse_number_attr(),
            Tok::Str(s) => {
                self.next()?;
                if self.is_punct(":") {
                    self.next()?;
                    self.parse_type()?; // a typed string: the type carries nothing xcc uses
                }
                Ok(Attribute::String(s))
            }
            Tok::Punct("[") => {
                self.next()?;
                let mut items = Vec::new();
                if !self.is_punct("]") {
                    loop {
                        items.push(self.parse_attribute()?);
                        if !self.eat_punct(",")? {
                            break;
                        }
                    }
                }
                self.expect_punct("]")?;
                Ok(Attribute::Array(items))
            }
            Tok::Punct("{") => Ok(Attribute::Dict(self.parse_attr_dict()?)),
            Tok::At(root) => {
                self.next()?;
                let mut nested = Vec::new();
                while self.eat_punct("::")? {
                    nested.push(self.expect_symbol()?.0);
                }
                Ok(Attribute::SymbolRef { root, nested })
            }
            Tok::Hash(name) => {
                self.next()?;
                if let Some(a) = self.attr_aliases.get(&name) {
                    return Ok(a.clone());
                }
                if name.contains('.') || self.is_punct("<") {
                    // A dialect attribute (`#gpu<dim x>`, `#llvm.linkage<internal>`), kept as text.
                    let body = if self.is_punct("<") { self.skip_balanced()? } else { String::new() };
                    return Ok(Attribute::Opaque(format!("#{name}{body}")));
                }
                Err(Diagnostic::new(span, format!("undefined attribute alias '#{name}'")))
            }
            Tok::Punct("(") => {
                // Either an affine map/set in the original spelling, or a function type.
                if let Some(parsed) = self.try_parse(affine_syntax::parse_affine_map_or_set) {
                    return Ok(parsed.into_attribute());
                }
                Ok(Attribute::Type(self.parse_type()?))
            }
            Tok::Bang(_) => Ok(Attribute::Type(self.parse_type()?)),
            _ => self.err_here("expected an attribute value"),
        }
    }

    fn parse_number_attr(&mut self) -> PResult<Attribute> {
        let start = self.peek_span();
        let neg = self.eat_punct("-")?;
        let (tok, span) = self.next()?;
        enum N {
            I(i128),
            F(f64),
        }
        let n = match tok {
            Tok::Int(v) => {
                let v = i128::try_from(v).map_err(|_| Diagnostic::new(span, "integer literal is too large"))?;
                N::I(if neg { -v } else { v })
            }
            Tok::Float(f) => N::F(if neg { -f } else { f }),
            _ => return Err(Diagnostic::new(span, format!("expected a number, found {}", tok.describe()))),
        };
        let ty = if self.eat_punct(":")? { Some(self.parse_type()?) } else { None };
        let full = start.to(span);
        match (n, ty) {
            (N::I(v), None) => Ok(Attribute::Integer { value: v, ty: Type::i64() }),
            (N::F(v), None) => Ok(Attribute::Float { value: v, ty: Type::Float(FloatKind::F64) }),
            (N::I(v), Some(t @ Type::Float(_))) => {
                // An integer literal with a float type is the bit pattern in hex form (`0x7FC00000 : f32`)
                // only when written in hex; a decimal integer is its value.
                let text = &self.src[span.start as usize..span.end as usize];
                let value = if text.starts_with("0x") { float_from_bits(v as u128, &t) } else { v as f64 };
                Ok(Attribute::Float { value, ty: t })
            }
            (N::I(v), Some(t)) => {
                check_int_fits(v, &t, full)?;
                Ok(Attribute::Integer { value: v, ty: t })
            }
            (N::F(v), Some(t @ Type::Float(_))) => {
                let value = round_to(v, &t);
                if !value.is_finite() || rounds_past_largest(v, &t) {
                    return Err(Diagnostic::new(full, format!("float literal {v:e} is out of range for {t}")));
                }
                Ok(Attribute::Float { value, ty: t })
            }
            (N::F(_), Some(t)) => Err(Diagnostic::new(full, format!("a floating-point literal cannot have type {t}"))),
        }
    }

    fn parse_dense(&mut self) -> PResult<Attribute> {
        self.expect_punct("<")?;
        let body_span = self.peek_span();
        enum Raw {
            Hex(Vec<u8>),
            // value as float, as int, is_float, kind (0 a number, 1 a bool, 2 an integer in hex)
            Elems(Vec<(f64, i128, bool, u8)>),
        }
        let mut shape_seen: Vec<usize> = Vec::new();
        let raw = if let (Tok::Str(s), sp) = self.peek()? {
            self.next()?;
            let hex = s
                .strip_prefix("0x")
                .ok_or_else(|| Diagnostic::new(sp, "a dense string must be hexadecimal ('0x...')"))?;
            // Checked before slicing it in pairs: a non-ASCII character would split.
            if !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
                return Err(Diagnostic::new(sp, "invalid hex digit in dense literal"));
            }
            if hex.len() % 2 != 0 {
                return Err(Diagnostic::new(sp, "odd number of hex digits in dense literal"));
            }
            let bytes = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16))
                .collect::<Result<Vec<u8>, _>>()
                .map_err(|_| Diagnostic::new(sp, "invalid hex digit in dense literal"))?;
            Raw::Hex(bytes)
        } else if self.is_punct(">") {
            Raw::Elems(Vec::new())
        } else {
            let mut elems = Vec::new();
            self.parse_dense_elems(&mut elems, &mut shape_seen, 0)?;
            Raw::Elems(elems)
        };
        self.expect_punct(">")?;
        self.expect_punct(":")?;
        let ty_span = self.peek_span();
        let ty = self.parse_type()?;
        let (elem, count) = match &ty {
            Type::Vector { shape, elem } => ((**elem).clone(), shape.iter().product::<u64>()),
            Type::Tensor { shape: Some(shape), elem } if shape.iter().all(|d| d.is_some()) => {
                ((**elem).clone(), shape.iter().map(|d| d.unwrap()).product::<u64>())
            }
            _ => {
                return Err(Diagnostic::new(
                    ty_span,
                    format!("a dense attribute needs a static vector or tensor type, not {ty}"),
                ))
            }
        };
        let values = match raw {
            Raw::Hex(bytes) => DenseValues::Hex(bytes),
            Raw::Elems(elems) => {
                if elems.len() != 1 && elems.len() as u64 != count {
                    return Err(Diagnostic::new(
                        body_span,
                        format!("dense literal has {} element(s), but {ty} holds {count}", elems.len()),
                    ));
                }
                if elems.len() > 1 {
                    let ty_shape: Vec<usize> = match &ty {
                        Type::Vector { shape, .. } => shape.iter().map(|&d| d as usize).collect(),
                        Type::Tensor { shape: Some(s), .. } => s.iter().map(|d| d.unwrap() as usize).collect(),
                        _ => Vec::new(),
                    };
                    if shape_seen != ty_shape {
                        return Err(Diagnostic::new(
                            body_span,
                            format!("dense literal's nesting does not match the shape of {ty}"),
                        ));
                    }
                }
                match &elem {
                    Type::Float(_) => DenseValues::Float(
                        elems
                            .iter()
                            .map(|e| match e {
                                (_, bits, _, 2) => float_from_bits(*bits as u128, &elem),
                                (f, _, true, _) => round_to(*f, &elem),
                                (_, i, _, _) => round_to(*i as f64, &elem),
                            })
                            .collect(),
                    ),
                    Type::Integer { width: 1, .. } => DenseValues::Bool(elems.iter().map(|e| e.1 != 0).collect()),
                    Type::Integer { .. } | Type::Index => {
                        if let Some(e) = elems.iter().find(|e| e.2) {
                            return Err(Diagnostic::new(
                                body_span,
                                format!("float value {} in an integer dense literal", e.0),
                            ));
                        }
                        for e in &elems {
                            check_int_fits(e.1, &elem, body_span)?;
                        }
                        DenseValues::Int(elems.iter().map(|e| e.1).collect())
                    }
                    _ => return Err(Diagnostic::new(ty_span, format!("unsupported dense element type {elem}"))),
                }
            }
        };
        Ok(Attribute::Dense { values, ty })
    }

    fn parse_dense_elems(
        &mut self,
        out: &mut Vec<(f64, i128, bool, u8)>,
        shape: &mut Vec<usize>,
        depth: usize,
    ) -> PResult<()> {
        if self.eat_punct("[")? {
            let mut n = 0;
            if !self.is_punct("]") {
                loop {
                    self.nested(|p| p.parse_dense_elems(out, shape, depth + 1))?;
                    n += 1;
                    if !self.eat_punct(",")? {
                        break;
                    }
                }
            }
            self.expect_punct("]")?;
            if shape.len() <= depth {
                // Inner lists close first; outer depths are filled in as they close.
                shape.resize(depth + 1, usize::MAX);
            }
            if shape[depth] == usize::MAX {
                shape[depth] = n;
            } else if shape[depth] != n {
                return self.err_here("dense literal rows have different lengths");
            }
            return Ok(());
        }
        let (tok, span) = self.peek()?;
        match tok {
            Tok::Ident(w) if w == "true" || w == "false" => {
                self.next()?;
                out.push(((w == "true") as i32 as f64, (w == "true") as i128, false, 1));
            }
            _ => {
                let neg = self.eat_punct("-")?;
                let (tok, s) = self.next()?;
                match tok {
                    Tok::Int(v) => {
                        let v = i128::try_from(v).map_err(|_| Diagnostic::new(s, "integer literal is too large"))?;
                        let v = if neg { -v } else { v };
                        // In hex, a float element is its bit pattern, as upstream reads it.
                        let hex = self.src[s.start as usize..s.end as usize].starts_with("0x") && !neg;
                        out.push((v as f64, v, false, if hex { 2 } else { 0 }));
                    }
                    Tok::Float(f) => {
                        let f = if neg { -f } else { f };
                        out.push((f, f as i128, true, 0));
                    }
                    _ => {
                        return Err(Diagnostic::new(
                            span,
                            format!("expected a dense element, found {}", tok.describe()),
                        ))
                    }
                }
            }
        }
        Ok(())
    }
}

/// Words that begin a builtin type.
fn is_type_keyword(w: &str) -> bool {
    let int = |p: &str| w.strip_prefix(p).is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
    int("i")
        || int("si")
        || int("ui")
        || matches!(w, "index" | "f16" | "bf16" | "f32" | "f64" | "none" | "vector" | "tensor" | "memref" | "tuple")
}

fn check_int_fits(v: i128, ty: &Type, span: Span) -> PResult<()> {
    let width = match ty {
        Type::Integer { width, .. } => *width,
        Type::Index => 64,
        _ => return Err(Diagnostic::new(span, format!("an integer literal cannot have type {ty}"))),
    };
    if width < 128 {
        let min = -(1i128 << (width - 1).min(126));
        let max = (1i128 << width.min(127)) - 1;
        if v < min || v > max {
            return Err(Diagnostic::new(span, format!("integer {v} does not fit in {ty}")));
        }
    }
    Ok(())
}

/// Rounds a literal to the precision of its float type, so printing and re-parsing agree.
/// Whether `v` rounds to infinity in a 16-bit float type (the first magnitude that does: halfway
/// past the largest finite value).
fn rounds_past_largest(v: f64, ty: &Type) -> bool {
    match ty {
        Type::Float(FloatKind::F16) => v.abs() >= 65520.0,
        Type::Float(FloatKind::BF16) => v.abs() >= f32::from_bits(0x7F7F_8000) as f64,
        _ => false,
    }
}

fn round_to(v: f64, ty: &Type) -> f64 {
    match ty {
        Type::Float(FloatKind::F32) => v as f32 as f64,
        _ => v,
    }
}

fn float_from_bits(bits: u128, ty: &Type) -> f64 {
    match ty {
        Type::Float(FloatKind::F32) => f32::from_bits(bits as u32) as f64,
        Type::Float(FloatKind::F64) => f64::from_bits(bits as u64),
        Type::Float(FloatKind::BF16) => f32::from_bits((bits as u32 & 0xFFFF) << 16) as f64,
        Type::Float(FloatKind::F16) => half_to_f64(bits as u16),
        _ => bits as f64,
    }
}

/// An IEEE half-precision bit pattern's value.
fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (exp, mant) = (i32::from((h >> 10) & 0x1F), f64::from(h & 0x3FF));
    sign * match exp {
        0 => mant * 2f64.powi(-24),
        31 if mant == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1.0 + mant / 1024.0) * 2f64.powi(e - 15),
    }
}

/// Maps the original spelling's LLVM type strings (`"i32*"`, `"{i32, i1}"`, `"float"`) to types.
fn llvm_type_from_string(text: &str) -> Option<Type> {
    let t = text.trim();
    if t.ends_with('*') {
        return Some(Type::ptr());
    }
    if let Some(inner) = t.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        let fields = inner.split(',').map(llvm_type_from_string).collect::<Option<Vec<_>>>()?;
        return Some(Type::LlvmStruct { packed: false, fields });
    }
    match t {
        "float" => Some(Type::f32()),
        "double" => Some(Type::Float(FloatKind::F64)),
        "half" => Some(Type::Float(FloatKind::F16)),
        "void" => Some(Type::LlvmVoid),
        _ => t.strip_prefix('i').and_then(|w| w.parse().ok()).map(Type::int),
    }
}

/// Upstream's generic `index.cmp` names its predicate `pred = #index<cmp_predicate slt>`; xcc
/// keeps arith's `predicate` number.
fn normalize_generic_index_cmp(spec: &mut OpSpec) {
    if spec.name != "index.cmp" {
        return;
    }
    for (k, v) in spec.attrs.iter_mut() {
        let Attribute::Opaque(text) = &*v else { continue };
        let word = text.trim_start_matches('#').strip_prefix("index<cmp_predicate").and_then(|t| t.strip_suffix('>'));
        let number = word.and_then(|w| crate::dialects::arith::CMPI_PREDICATES.iter().position(|p| *p == w.trim()));
        if let (true, Some(n)) = (k == "pred", number) {
            *k = "predicate".into();
            *v = Attribute::i64(n as i64);
        }
    }
}

/// Upstream's generic `cf.switch`/`llvm.switch` list the flag, the default's operands and the
/// cases' operands in one operand list (`operandSegmentSizes`, `case_operand_segments`) and the
/// case values as a dense vector; xcc keeps the operands on the successors and the values as a
/// list. Segments that do not add up leave the op as written, for the verifier to refuse.
fn normalize_generic_switch(spec: &mut OpSpec) {
    if !matches!(spec.name.as_str(), "cf.switch" | "llvm.switch") || spec.successors.iter().any(|s| !s.args.is_empty())
    {
        return;
    }
    let get = |spec: &OpSpec, k: &str| spec.attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let segments = get(spec, "operandSegmentSizes").and_then(|a| a.as_int_list());
    let cases = get(spec, "case_operand_segments").and_then(|a| a.as_int_list()).unwrap_or_default();
    if let Some(seg) = segments {
        let fits = seg.len() == 3
            && seg[0] == 1
            && cases.len() + 1 == spec.successors.len()
            && seg.iter().chain(&cases).all(|&n| n >= 0)
            && cases.iter().sum::<i128>() == seg[2]
            && (seg.iter().sum::<i128>()) as usize == spec.operands.len();
        if !fits {
            return;
        }
        let mut rest = spec.operands.split_off(1).into_iter();
        let counts = std::iter::once(seg[1]).chain(cases.iter().copied());
        for (s, n) in spec.successors.iter_mut().zip(counts) {
            s.args = rest.by_ref().take(n as usize).collect();
        }
        spec.attrs.retain(|(k, _)| k != "operandSegmentSizes" && k != "case_operand_segments");
    }
    for (k, v) in spec.attrs.iter_mut() {
        if let (true, Attribute::Dense { values: DenseValues::Int(values), .. }) = (k == "case_values", &*v) {
            *v = Attribute::DenseArray { elem: Type::i64(), values: values.clone() };
        }
    }
}

/// Upstream's generic `llvm.func` and `llvm.mlir.global` spell the function type as an llvm
/// function type (`!llvm.func<f32 (i64)>`) and the linkage as `#llvm.linkage<private>`; xcc
/// keeps a builtin function type (with `vararg`) and the linkage's name, as the custom forms
/// give them.
fn normalize_generic_llvm_symbol(spec: &mut OpSpec) {
    if !matches!(spec.name.as_str(), "llvm.func" | "llvm.mlir.global") {
        return;
    }
    let mut vararg = false;
    for (k, v) in spec.attrs.iter_mut() {
        match (k.as_str(), &*v) {
            ("function_type", Attribute::Type(Type::LlvmFunc { result, params, vararg: va })) => {
                vararg = *va;
                let results = if **result == Type::LlvmVoid { Vec::new() } else { vec![(**result).clone()] };
                *v = Attribute::Type(Type::Function(FunctionType { inputs: params.clone(), results }));
            }
            ("linkage", Attribute::Opaque(text)) => {
                let name = text.trim_start_matches('#').strip_prefix("llvm.linkage<").and_then(|t| t.strip_suffix('>'));
                if let Some(name) = name {
                    *v = Attribute::String(name.trim().to_string());
                }
            }
            _ => {}
        }
    }
    if vararg {
        spec.attrs.push(("vararg".into(), Attribute::Unit));
    }
}

/// Upstream's generic form puts branch operands in the operand list with `operandSegmentSizes`;
/// xcc keeps them on the successors.
fn normalize_generic_successors(spec: &mut OpSpec) {
    if spec.name == "llvm.call" {
        // Upstream's generic llvm.call carries segment sizes for operand bundles, which xcc
        // does not model.
        spec.attrs.retain(|(k, _)| k != "operandSegmentSizes" && k != "op_bundle_sizes");
    }
    if spec.successors.iter().any(|s| !s.args.is_empty()) {
        return;
    }
    match spec.name.as_str() {
        "cf.br" | "llvm.br" if spec.successors.len() == 1 => {
            spec.successors[0].args = std::mem::take(&mut spec.operands);
        }
        "cf.cond_br" | "llvm.cond_br" if spec.successors.len() == 2 => {
            let seg = spec.attrs.iter().position(|(k, _)| k == "operandSegmentSizes");
            let sizes = seg.and_then(|i| spec.attrs[i].1.as_int_list());
            if let (Some(i), Some(sizes)) = (seg, sizes) {
                if sizes.len() == 3 && sizes[0] == 1 && sizes[1] >= 0 && (1 + sizes[1] as usize) <= spec.operands.len()
                {
                    let mut rest = spec.operands.split_off(1);
                    let second = rest.split_off(sizes[1] as usize);
                    spec.successors[0].args = rest;
                    spec.successors[1].args = second;
                    spec.attrs.remove(i);
                }
            }
        }
        _ => {}
    }
}

/// An error for a shaped type whose static dims hold more than 2^63 - 1 bytes: its sizes and
/// offsets would wrap in the i64 arithmetic that addresses it.
fn check_bytes(span: Span, kind: &str, shape: &[Option<u64>], elem: &Type) -> PResult<()> {
    let element_bytes = crate::dialects::constraints::bit_width(elem).map_or(8, |bits| bits.div_ceil(8).max(1));
    let bytes = shape.iter().flatten().try_fold(element_bytes, |n, &d| n.checked_mul(d));
    match bytes {
        Some(b) if b <= i64::MAX as u64 => Ok(()),
        _ => Err(Diagnostic::new(span, format!("a {kind} of more than 2^63 bytes: its sizes would not fit in i64"))),
    }
}
