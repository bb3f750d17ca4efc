//! Operation definitions as data: what every operation is, written once per dialect in
//! [`crate::dialects`] (the counterpart of MLIR's ODS records and Cranelift's meta crate).
//!
//! An [`OpDef`] gives an operation's operands and results (counts, optional and variadic
//! segments), regions and successors, its attributes and their kinds, its traits (terminator,
//! isolated from above, memory effects), the operations it may be nested in, its type rule, its
//! custom syntax and whether it is lowered. The parser, the printer, the verifier and
//! [`is_terminator`] read these tables and nothing else; a test walks them to check that every
//! operation has a lowering or says why not.

use crate::attributes::Attribute;
use crate::entity::OpId;
use crate::module::Module;
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::Type;
use bitflags::bitflags;

bitflags! {
    /// Properties passes may rely on.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Traits: u32 {
        /// Ends a block; must be its last operation.
        const TERMINATOR = 1;
        /// Its regions cannot use values defined outside them (functions, modules).
        const ISOLATED_FROM_ABOVE = 1 << 1;
        /// Defines a symbol (`sym_name`) other operations refer to.
        const SYMBOL = 1 << 2;
        /// No side effects: it may be removed when unused, reordered, duplicated or fused.
        const PURE = 1 << 3;
        /// Reads memory through an operand.
        const READS = 1 << 4;
        /// Writes memory through an operand.
        const WRITES = 1 << 5;
        /// Allocates or frees memory.
        const ALLOCATES = 1 << 6;
        /// Returns control (and values) to the parent operation.
        const RETURN_LIKE = 1 << 7;
        /// Its regions are graphs: blocks need no terminator (`builtin.module`).
        const NO_TERMINATOR = 1 << 8;
        /// A body may leave out an operand-less terminator in the custom form (`scf.for`).
        const IMPLICIT_TERMINATOR = 1 << 9;
        /// Its effects are those of the operations in its regions (loops, conditionals).
        const RECURSIVE_EFFECTS = 1 << 10;
        /// A loop whose iterations are independent (`scf.parallel`): the seam for threads and GPUs.
        const PARALLEL_LOOP = 1 << 11;
    }
}

/// A named group of operands or results, for operations with optional or variadic parts.
#[derive(Clone, Copy, Debug)]
pub enum Segment {
    One(&'static str),
    Optional(&'static str),
    Variadic(&'static str),
}

impl Segment {
    pub fn name(self) -> &'static str {
        match self {
            Segment::One(n) | Segment::Optional(n) | Segment::Variadic(n) => n,
        }
    }
}

/// How many operands, results, regions or successors an operation has.
#[derive(Clone, Copy, Debug)]
pub enum Count {
    Exactly(usize),
    AtLeast(usize),
    Between(usize, usize),
    /// Groups whose sizes the `operandSegmentSizes` attribute gives, in order.
    Segments(&'static [Segment]),
}

impl Count {
    /// Checks `n` against the count; `segments` is the op's `operandSegmentSizes`, if any.
    pub fn check(self, n: usize, segments: Option<&[i128]>) -> Result<(), String> {
        let ok = match self {
            Count::Exactly(k) => n == k,
            Count::AtLeast(k) => n >= k,
            Count::Between(lo, hi) => (lo..=hi).contains(&n),
            Count::Segments(segs) => return check_segments(segs, n, segments),
        };
        if ok {
            Ok(())
        } else {
            Err(format!("expects {}, found {n}", self.describe()))
        }
    }

    pub fn describe(self) -> String {
        match self {
            Count::Exactly(k) => format!("{k}"),
            Count::AtLeast(k) => format!("at least {k}"),
            Count::Between(lo, hi) => format!("{lo} to {hi}"),
            Count::Segments(segs) => {
                let parts: Vec<String> = segs
                    .iter()
                    .map(|s| match s {
                        Segment::One(n) => n.to_string(),
                        Segment::Optional(n) => format!("[{n}]"),
                        Segment::Variadic(n) => format!("{n}..."),
                    })
                    .collect();
                format!("({})", parts.join(", "))
            }
        }
    }
}

fn check_segments(segs: &'static [Segment], n: usize, sizes: Option<&[i128]>) -> Result<(), String> {
    let Some(sizes) = sizes else {
        // Without sizes only a single variadic group (or none) is unambiguous.
        let fixed = segs.iter().filter(|s| matches!(s, Segment::One(_))).count();
        let open = segs.len() - fixed;
        return match open {
            0 if n == fixed => Ok(()),
            1 if n >= fixed => Ok(()),
            _ => Err(format!(
                "needs an 'operandSegmentSizes' attribute for its groups {}",
                Count::Segments(segs).describe()
            )),
        };
    };
    if sizes.len() != segs.len() {
        return Err(format!(
            "'operandSegmentSizes' has {} entries, but the operation has {} groups",
            sizes.len(),
            segs.len()
        ));
    }
    for (s, &k) in segs.iter().zip(sizes) {
        let fits = match s {
            Segment::One(_) => k == 1,
            Segment::Optional(_) => (0..=1).contains(&k),
            Segment::Variadic(_) => k >= 0,
        };
        if !fits {
            return Err(format!("group '{}' cannot hold {k} value(s)", s.name()));
        }
    }
    let total: i128 = sizes.iter().sum();
    if total != n as i128 {
        return Err(format!("'operandSegmentSizes' adds up to {total}, but there are {n} operand(s)"));
    }
    Ok(())
}

/// What an attribute must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrKind {
    Any,
    Unit,
    Integer,
    Float,
    String,
    Type,
    FunctionType,
    Symbol,
    /// `array<i64: ...>` or an array of integers.
    IntList,
    Array,
    AffineMap,
    IntegerSet,
    /// An integer, float, bool or dense value (constants).
    TypedValue,
}

impl AttrKind {
    pub fn accepts(self, a: &Attribute) -> bool {
        match self {
            AttrKind::Any => true,
            AttrKind::Unit => matches!(a, Attribute::Unit),
            AttrKind::Integer => matches!(a, Attribute::Integer { .. } | Attribute::Bool(_)),
            AttrKind::Float => matches!(a, Attribute::Float { .. } | Attribute::Integer { .. }),
            AttrKind::String => matches!(a, Attribute::String(_)),
            AttrKind::Type => matches!(a, Attribute::Type(_)),
            AttrKind::FunctionType => matches!(a, Attribute::Type(Type::Function(_))),
            AttrKind::Symbol => a.as_symbol().is_some(),
            AttrKind::IntList => a.as_int_list().is_some(),
            AttrKind::Array => matches!(a, Attribute::Array(_)),
            AttrKind::AffineMap => matches!(a, Attribute::AffineMap(_)),
            AttrKind::IntegerSet => matches!(a, Attribute::IntegerSet(_)),
            AttrKind::TypedValue => {
                matches!(
                    a,
                    Attribute::Integer { .. } | Attribute::Float { .. } | Attribute::Bool(_) | Attribute::Dense { .. }
                )
            }
        }
    }

    fn describe(self) -> &'static str {
        match self {
            AttrKind::Any => "any attribute",
            AttrKind::Unit => "a unit attribute",
            AttrKind::Integer => "an integer",
            AttrKind::Float => "a float",
            AttrKind::String => "a string",
            AttrKind::Type => "a type",
            AttrKind::FunctionType => "a function type",
            AttrKind::Symbol => "a symbol reference",
            AttrKind::IntList => "a list of integers",
            AttrKind::Array => "an array",
            AttrKind::AffineMap => "an affine map",
            AttrKind::IntegerSet => "an integer set",
            AttrKind::TypedValue => "a typed constant",
        }
    }
}

/// An attribute the operation defines (an inherent attribute, printed among the properties).
#[derive(Clone, Copy, Debug)]
pub struct AttrDef {
    pub name: &'static str,
    pub kind: AttrKind,
    pub required: bool,
}

/// `required("predicate", AttrKind::Integer)`.
pub const fn required(name: &'static str, kind: AttrKind) -> AttrDef {
    AttrDef { name, kind, required: true }
}

/// `optional("alignment", AttrKind::Integer)`.
pub const fn optional(name: &'static str, kind: AttrKind) -> AttrDef {
    AttrDef { name, kind, required: false }
}

/// Parses the custom form after the operation's name into a spec (name, span and result count
/// already set).
pub type ParseFn = fn(&mut Parser, crate::module::OpSpec) -> PResult<crate::module::OpSpec>;
/// Prints the custom form after `NAME `; `None` when this instance needs the generic form.
pub type PrintFn = fn(&mut OpPrinter, OpId) -> Option<()>;
/// A type rule beyond counts and attribute kinds; the message is prefixed with the op's name.
pub type VerifyFn = fn(&Module, OpId) -> Result<(), String>;

/// The custom assembly form.
#[derive(Clone, Copy)]
pub struct Syntax {
    pub parse: Option<ParseFn>,
    pub print: Option<PrintFn>,
}

impl Syntax {
    /// Only the generic form `"name"(...) : (...) -> (...)`.
    pub const GENERIC: Syntax = Syntax { parse: None, print: None };

    pub const fn custom(parse: ParseFn, print: Option<PrintFn>) -> Syntax {
        Syntax { parse: Some(parse), print }
    }
}

/// How an operation leaves the IR on the way to LLVM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lowering {
    /// By a conversion pattern or pass (the completeness test checks one exists).
    Converted,
    /// Part of the llvm dialect: translated to LLVM IR directly.
    Translated,
    /// Not lowered, with the reason (parsed, verified and printed only).
    NotLowered(&'static str),
}

/// One operation's definition.
#[derive(Clone, Copy)]
pub struct OpDef {
    pub name: &'static str,
    pub summary: &'static str,
    pub operands: Count,
    pub results: Count,
    pub regions: Count,
    pub successors: Count,
    pub attrs: &'static [AttrDef],
    pub traits: Traits,
    /// Operations this one must be directly nested in (empty: anywhere).
    pub parents: &'static [&'static str],
    pub verify: Option<VerifyFn>,
    pub syntax: Syntax,
    pub lowering: Lowering,
}

impl OpDef {
    pub const fn new(name: &'static str, summary: &'static str) -> OpDef {
        OpDef {
            name,
            summary,
            operands: Count::Exactly(0),
            results: Count::Exactly(0),
            regions: Count::Exactly(0),
            successors: Count::Exactly(0),
            attrs: &[],
            traits: Traits::empty(),
            parents: &[],
            verify: None,
            syntax: Syntax::GENERIC,
            lowering: Lowering::Converted,
        }
    }
    pub const fn operands(mut self, n: usize) -> Self {
        self.operands = Count::Exactly(n);
        self
    }
    pub const fn operand_count(mut self, c: Count) -> Self {
        self.operands = c;
        self
    }
    pub const fn results(mut self, n: usize) -> Self {
        self.results = Count::Exactly(n);
        self
    }
    pub const fn result_count(mut self, c: Count) -> Self {
        self.results = c;
        self
    }
    pub const fn regions(mut self, c: Count) -> Self {
        self.regions = c;
        self
    }
    pub const fn successors(mut self, n: usize) -> Self {
        self.successors = Count::Exactly(n);
        self
    }
    pub const fn successor_count(mut self, c: Count) -> Self {
        self.successors = c;
        self
    }
    pub const fn attrs(mut self, attrs: &'static [AttrDef]) -> Self {
        self.attrs = attrs;
        self
    }
    pub const fn traits(mut self, t: Traits) -> Self {
        self.traits = self.traits.union(t);
        self
    }
    pub const fn pure(self) -> Self {
        self.traits(Traits::PURE)
    }
    pub const fn parents(mut self, p: &'static [&'static str]) -> Self {
        self.parents = p;
        self
    }
    pub const fn verify(mut self, f: VerifyFn) -> Self {
        self.verify = Some(f);
        self
    }
    pub const fn syntax(mut self, s: Syntax) -> Self {
        self.syntax = s;
        self
    }
    pub const fn translated(mut self) -> Self {
        self.lowering = Lowering::Translated;
        self
    }
    pub const fn not_lowered(mut self, why: &'static str) -> Self {
        self.lowering = Lowering::NotLowered(why);
        self
    }

    pub fn is_terminator(&self) -> bool {
        self.traits.contains(Traits::TERMINATOR)
    }

    pub fn attr_def(&self, name: &str) -> Option<&AttrDef> {
        self.attrs.iter().find(|a| a.name == name)
    }

    /// The declarative checks: counts, segments, attributes and the parent.
    pub fn verify_structure(&self, m: &Module, op: OpId) -> Result<(), String> {
        let d = &m.ops[op];
        let segments = m.attr(op, "operandSegmentSizes").and_then(Attribute::as_int_list);
        self.operands.check(d.operands.len(), segments.as_deref()).map_err(|e| format!("operands: {e}"))?;
        self.results.check(d.results.len(), None).map_err(|e| format!("results: {e}"))?;
        self.regions.check(d.regions.len(), None).map_err(|e| format!("regions: {e}"))?;
        self.successors.check(d.successors.len(), None).map_err(|e| format!("successors: {e}"))?;
        for a in self.attrs {
            match m.attr(op, a.name) {
                None if a.required => return Err(format!("needs the attribute '{}' ({})", a.name, a.kind.describe())),
                Some(v) if !a.kind.accepts(v) => {
                    return Err(format!("attribute '{}' must be {}, found {v}", a.name, a.kind.describe()))
                }
                _ => {}
            }
        }
        let parent = d.parent.and_then(|b| m.parent_op_of_block(b)).map(|p| m.ops[p].name.as_str());
        if self.traits.contains(Traits::SYMBOL) && parent.is_some_and(|p| p != "builtin.module") {
            return Err(format!("a symbol must be at a module's top level, not inside '{}'", parent.unwrap_or("")));
        }
        if !self.parents.is_empty() {
            // The module's top level is a 'builtin.module' too.
            if !self.parents.contains(&parent.unwrap_or("builtin.module")) {
                return Err(format!(
                    "must be directly inside {}, not {}",
                    self.parents.iter().map(|p| format!("'{p}'")).collect::<Vec<_>>().join(" or "),
                    parent.map(|p| format!("'{p}'")).unwrap_or_else(|| "the module".into())
                ));
            }
        }
        Ok(())
    }
}

/// Whether `name` ends a block (a registered terminator).
pub fn is_terminator(name: &str) -> bool {
    crate::dialects::lookup(name).is_some_and(OpDef::is_terminator)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GROUPS: &[Segment] = &[Segment::One("a"), Segment::Optional("b"), Segment::Variadic("c")];

    #[test]
    fn fixed_and_open_counts() {
        assert!(Count::Exactly(2).check(2, None).is_ok());
        assert_eq!(Count::Exactly(2).check(1, None).unwrap_err(), "expects 2, found 1");
        assert!(Count::AtLeast(1).check(3, None).is_ok());
        assert!(Count::AtLeast(1).check(0, None).is_err());
        assert!(Count::Between(1, 2).check(2, None).is_ok());
        assert!(Count::Between(1, 2).check(3, None).is_err());
    }

    #[test]
    fn segments_must_add_up_and_fit_their_groups() {
        let c = Count::Segments(GROUPS);
        assert!(c.check(4, Some(&[1, 1, 2])).is_ok());
        assert!(c.check(1, Some(&[1, 0, 0])).is_ok());
        assert!(c.check(4, Some(&[1, 2, 1])).unwrap_err().contains("group 'b'"));
        assert!(c.check(4, Some(&[0, 1, 3])).unwrap_err().contains("group 'a'"));
        assert!(c.check(5, Some(&[1, 1, 2])).unwrap_err().contains("adds up to 4"));
        assert!(c.check(4, Some(&[1, 3])).unwrap_err().contains("2 entries"));
        assert!(c.check(4, None).unwrap_err().contains("operandSegmentSizes"));
    }

    #[test]
    fn attribute_kinds() {
        assert!(AttrKind::Integer.accepts(&Attribute::i64(3)));
        assert!(!AttrKind::Integer.accepts(&Attribute::String("3".into())));
        assert!(AttrKind::Symbol.accepts(&Attribute::symbol("f")));
        assert!(AttrKind::IntList.accepts(&Attribute::DenseArray { elem: Type::i64(), values: vec![1] }));
        assert!(!AttrKind::AffineMap.accepts(&Attribute::Unit));
    }

    #[test]
    fn terminators_come_from_the_tables() {
        for t in ["func.return", "cf.br", "cf.cond_br", "scf.yield", "scf.reduce", "llvm.return", "llvm.unreachable"] {
            assert!(is_terminator(t), "{t}");
        }
        for t in ["arith.addi", "scf.for", "test.terminator", "llvm.intr.trap"] {
            assert!(!is_terminator(t), "{t}");
        }
    }
}
