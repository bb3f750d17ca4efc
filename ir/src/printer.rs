//! Prints IR as MLIR text in the upstream spelling. An operation whose definition has a custom
//! printer (see [`crate::op_def::Syntax`]) prints in its custom form; every other operation,
//! and any instance the custom printer declines (say, one carrying extra attributes), prints in
//! the generic form. Both xcc and upstream `mlir-opt` read the output back, and
//! `parse(print(m))` reproduces `m`.

use crate::attributes::{fmt_dict, format_symbol, Attribute};
use crate::entity::{BlockId, OpId, RegionId, ValueId};
use crate::module::Module;
use crate::types::Type;
use std::collections::HashMap;
use std::fmt::{self, Write};

pub fn print_module(m: &Module) -> String {
    let mut p =
        Printer { m, out: String::new(), names: HashMap::new(), next_value: 0, block_names: HashMap::new(), indent: 0 };
    p.print_module();
    p.out
}

struct Printer<'a> {
    m: &'a Module,
    out: String,
    names: HashMap<ValueId, String>,
    next_value: usize,
    block_names: HashMap<BlockId, String>,
    indent: usize,
}

struct Dict<'a>(&'a [(String, Attribute)]);

impl fmt::Display for Dict<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_dict(f, self.0)
    }
}

/// What a custom printer ([`crate::op_def::PrintFn`]) writes with: operands by their names,
/// types, attributes, successors and regions, into the line after `NAME `.
pub struct OpPrinter<'p, 'a> {
    p: &'p mut Printer<'a>,
}

impl<'a> OpPrinter<'_, 'a> {
    pub fn module(&self) -> &'a Module {
        self.p.m
    }

    pub fn word(&mut self, s: &str) {
        self.p.out.push_str(s);
    }

    /// A line break, the next line indented as the operation's own.
    pub fn newline(&mut self) {
        self.p.out.push('\n');
        self.p.pad();
    }

    pub fn value(&mut self, v: ValueId) {
        let n = self.p.value_name(v);
        self.p.out.push_str(&n);
    }

    /// `%a, %b`
    pub fn values(&mut self, vs: &[ValueId]) {
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                self.word(", ");
            }
            self.value(v);
        }
    }

    pub fn ty(&mut self, t: &Type) {
        let _ = write!(self.p.out, "{t}");
    }

    /// `T, U`
    pub fn types(&mut self, ts: &[&Type]) {
        for (i, t) in ts.iter().enumerate() {
            if i > 0 {
                self.word(", ");
            }
            self.ty(t);
        }
    }

    pub fn attr(&mut self, a: &Attribute) {
        let _ = write!(self.p.out, "{a}");
    }

    /// ` {k = v, ...}` for the op's attributes other than `skip` (nothing when none are left).
    pub fn attr_dict_except(&mut self, op: OpId, skip: &[&str]) {
        let rest: Vec<(String, Attribute)> =
            self.p.m.ops[op].attrs.iter().filter(|(k, _)| !skip.contains(&k.as_str())).cloned().collect();
        if !rest.is_empty() {
            let _ = write!(self.p.out, " {}", Dict(&rest));
        }
    }

    /// Whether the op has attributes other than `known` (a custom form that cannot show them
    /// declines, and the op prints generically).
    pub fn has_other_attrs(&self, op: OpId, known: &[&str]) -> bool {
        self.p.m.ops[op].attrs.iter().any(|(k, _)| !known.contains(&k.as_str()))
    }

    /// `^bb1(%a, %b : i32, i32)`
    pub fn successor(&mut self, block: BlockId, args: &[ValueId]) {
        let label = self.p.block_label(block);
        self.word(&label);
        if !args.is_empty() {
            self.word("(");
            self.values(args);
            self.word(" : ");
            let types: Vec<&Type> = args.iter().map(|&a| self.p.m.ty(a)).collect();
            self.types(&types);
            self.word(")");
        }
    }

    /// A region whose entry block's arguments were named elsewhere (a function's signature, a
    /// loop's induction variable): the entry label is left out. With `elide_terminator`, an
    /// operand-less terminator ending a single-block region is left out too (the custom forms of
    /// `scf.for`, `scf.if` and `scf.parallel` add it back when parsed).
    pub fn region_without_entry_args(&mut self, r: RegionId, elide_terminator: bool) {
        self.p.print_region_with(r, false, elide_terminator);
    }

    /// A region in the generic form's spelling: the entry block's label and arguments shown.
    pub fn region_with_entry_args(&mut self, r: RegionId) {
        self.p.print_region(r, true);
    }

    /// Names a block argument before its region prints (for signatures and loop headers).
    pub fn name_value(&mut self, v: ValueId) -> String {
        self.p.value_name(v)
    }

    /// Gives a value a fixed name (a function's `%argN`).
    pub fn name_value_as(&mut self, v: ValueId, name: String) {
        self.p.names.insert(v, name);
    }

    /// Prints a function-like body: value numbering restarts at `%0` inside (the body is
    /// isolated from above), keeping the names already given to the entry block's arguments.
    pub fn isolated_region(&mut self, r: RegionId) {
        let p = &mut *self.p;
        let entry = p.m.regions[r].blocks.first().copied();
        let saved = (std::mem::take(&mut p.names), p.next_value, std::mem::take(&mut p.block_names));
        if let Some(b) = entry {
            for &a in &p.m.blocks[b].args {
                if let Some(n) = saved.0.get(&a) {
                    p.names.insert(a, n.clone());
                }
            }
        }
        p.next_value = 0;
        p.print_region(r, false);
        p.names = saved.0;
        p.next_value = saved.1;
        p.block_names = saved.2;
    }
}

impl Printer<'_> {
    fn print_module(&mut self) {
        self.out.push_str("module");
        if let Some(n) = &self.m.name {
            let _ = write!(self.out, " {}", format_symbol(n));
        }
        if !self.m.attrs.is_empty() {
            let _ = write!(self.out, " attributes {}", Dict(&self.m.attrs));
        }
        self.out.push_str(" {\n");
        self.indent = 1;
        for &op in self.m.top_ops() {
            self.print_op(op);
        }
        self.out.push_str("}\n");
    }

    fn pad(&mut self) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    fn value_name(&mut self, v: ValueId) -> String {
        if let Some(n) = self.names.get(&v) {
            return n.clone();
        }
        let n = format!("%{}", self.next_value);
        self.next_value += 1;
        self.names.insert(v, n.clone());
        n
    }

    /// `%0 = `, `%3:2 = ` (uses of a group print as `%3#1`), or nothing.
    fn print_result_names(&mut self, op: OpId) {
        let results = &self.m.ops[op].results;
        if results.is_empty() {
            return;
        }
        let first = self.value_name(results[0]);
        if results.len() == 1 {
            let _ = write!(self.out, "{first} = ");
            return;
        }
        for (i, &r) in results.iter().enumerate() {
            self.names.insert(r, format!("{first}#{i}"));
        }
        let _ = write!(self.out, "{first}:{} = ", results.len());
    }

    fn print_op(&mut self, op: OpId) {
        let name = self.m.ops[op].name.as_str();
        // Intrinsic calls print generically: upstream gives many of them custom forms of their own.
        let custom = crate::dialects::lookup(name).and_then(|d| d.syntax.print);
        self.pad();
        self.print_result_names(op);
        if let Some(print) = custom {
            let mark = self.out.len();
            let _ = write!(self.out, "{name} ");
            if print(&mut OpPrinter { p: self }, op).is_some() {
                // `llvm.mlir.constant(...)`, `memref.alloc()`: no space before a parenthesis.
                let after_name = mark + name.len();
                let tight = name.starts_with("llvm.") || name.starts_with("memref.alloc");
                if tight && self.out[after_name..].starts_with(" (") {
                    self.out.remove(after_name);
                }
                let trimmed = self.out.trim_end_matches(' ').len();
                self.out.truncate(trimmed);
                self.out.push('\n');
                return;
            }
            self.out.truncate(mark);
        }
        self.print_generic(op);
    }

    fn print_generic(&mut self, op: OpId) {
        let data = &self.m.ops[op];
        // Upstream's generic form: successor operands follow the op's own operands, split by
        // `operandSegmentSizes` when several successors take values.
        let mut all_operands = data.operands.clone();
        for s in &data.successors {
            all_operands.extend(s.args.iter().copied());
        }
        let _ = write!(self.out, "{}(", crate::attributes::quote_string(&data.name));
        let operands: Vec<String> = all_operands.iter().map(|&v| self.value_name(v)).collect();
        self.out.push_str(&operands.join(", "));
        self.out.push(')');
        if !data.successors.is_empty() {
            self.out.push('[');
            for (i, s) in data.successors.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                let label = self.block_label(s.block);
                self.out.push_str(&label);
            }
            self.out.push(']');
            if data.successors.len() > 1 {
                let mut sizes = vec![data.operands.len().to_string()];
                sizes.extend(data.successors.iter().map(|s| s.args.len().to_string()));
                let _ = write!(self.out, " <{{operandSegmentSizes = array<i32: {}>}}>", sizes.join(", "));
            }
        }
        let mut attrs: Vec<(String, Attribute)> = data.attrs.clone();
        let mut props: Vec<(String, Attribute)> = Vec::new();
        attrs.retain(|(k, v)| {
            let is_prop = data.property_names.contains(k);
            if is_prop {
                props.push((k.clone(), v.clone()));
            }
            !is_prop
        });
        if data.name == "llvm.call" && data.successors.is_empty() {
            // MLIR 22's generic llvm.call needs its operand-bundle segments spelled out.
            let n = data.operands.len() as i128;
            props.push(("op_bundle_sizes".into(), Attribute::DenseArray { elem: Type::i32(), values: vec![] }));
            props.push(("operandSegmentSizes".into(), Attribute::DenseArray { elem: Type::i32(), values: vec![n, 0] }));
            props.sort_by(|a, b| a.0.cmp(&b.0));
        }
        if !props.is_empty() {
            let _ = write!(self.out, " <{}>", Dict(&props));
        }
        if !data.regions.is_empty() {
            self.out.push_str(" (");
            let regions = data.regions.clone();
            for (i, &r) in regions.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.print_region(r, true);
            }
            self.out.push(')');
        }
        if !attrs.is_empty() {
            let _ = write!(self.out, " {}", Dict(&attrs));
        }
        let inputs: Vec<String> = all_operands.iter().map(|&v| self.m.ty(v).to_string()).collect();
        let results: Vec<String> = data.results.iter().map(|&v| self.m.ty(v).to_string()).collect();
        let _ = write!(self.out, " : ({}) -> ", inputs.join(", "));
        if results.len() == 1 && !matches!(self.m.ty(data.results[0]), Type::Function(_)) {
            self.out.push_str(&results[0]);
        } else {
            let _ = write!(self.out, "({})", results.join(", "));
        }
        self.out.push('\n');
    }

    fn block_label(&mut self, b: BlockId) -> String {
        if let Some(n) = self.block_names.get(&b) {
            return n.clone();
        }
        let n = format!("^bb{}", self.block_names.len());
        self.block_names.insert(b, n.clone());
        n
    }

    /// With `print_entry_args`, the entry block prints its label and arguments (generic form);
    /// function and loop bodies name their arguments in the header instead.
    fn print_region(&mut self, r: RegionId, print_entry_args: bool) {
        self.print_region_with(r, print_entry_args, false);
    }

    fn print_region_with(&mut self, r: RegionId, print_entry_args: bool, elide_terminator: bool) {
        self.out.push_str("{\n");
        let blocks = self.m.regions[r].blocks.clone();
        for &b in &blocks {
            self.block_label(b);
        }
        self.indent += 1;
        for (i, &b) in blocks.iter().enumerate() {
            let show_label = i > 0 || (print_entry_args && !self.m.blocks[b].args.is_empty());
            if show_label {
                self.indent -= 1;
                self.pad();
                self.indent += 1;
                let label = self.block_label(b);
                self.out.push_str(&label);
                let args = self.m.blocks[b].args.clone();
                if !args.is_empty() {
                    let parts: Vec<String> =
                        args.iter().map(|&a| format!("{}: {}", self.value_name(a), self.m.ty(a))).collect();
                    let _ = write!(self.out, "({})", parts.join(", "));
                }
                self.out.push_str(":\n");
            }
            let mut ops = self.m.blocks[b].ops.clone();
            if elide_terminator && blocks.len() == 1 {
                if let Some(&last) = ops.last() {
                    let d = &self.m.ops[last];
                    if d.operands.is_empty() && d.attrs.is_empty() && crate::op_def::is_terminator(&d.name) {
                        ops.pop();
                    }
                }
            }
            for op in ops {
                self.print_op(op);
            }
        }
        self.indent -= 1;
        self.pad();
        self.out.push('}');
    }
}
