//! Prints IR as MLIR text in the upstream spelling. Functions print in their custom form; other
//! operations print in the generic form, which both xcc and upstream `mlir-opt` read back, so
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

    fn print_op(&mut self, op: OpId) {
        let data = &self.m.ops[op];
        if (data.name == "func.func" || data.name == "llvm.func") && self.m.function_type(op).is_some() {
            return self.print_func(op);
        }
        self.pad();
        if !data.results.is_empty() {
            let first = self.value_name(data.results[0]);
            for &r in &data.results[1..] {
                self.names.insert(r, String::new());
            }
            if data.results.len() == 1 {
                let _ = write!(self.out, "{first} = ");
            } else {
                // A result group `%3:2`; uses print as `%3#1`.
                for (i, &r) in data.results.iter().enumerate() {
                    self.names.insert(r, format!("{first}#{i}"));
                }
                self.names.insert(data.results[0], format!("{first}#0"));
                let _ = write!(self.out, "{first}:{} = ", data.results.len());
            }
        }
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
            let direct = self.m.attr(op, "callee").is_some();
            let n = data.operands.len() as i128;
            props.push(("op_bundle_sizes".into(), Attribute::DenseArray { elem: Type::i32(), values: vec![] }));
            props.push((
                "operandSegmentSizes".into(),
                Attribute::DenseArray { elem: Type::i32(), values: vec![if direct { n } else { n }, 0] },
            ));
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

    fn print_func(&mut self, op: OpId) {
        let data = &self.m.ops[op];
        let ft = self.m.function_type(op).expect("function type").clone();
        self.pad();
        let _ = write!(self.out, "{} ", data.name);
        if let Some(v) = self.m.attr(op, "sym_visibility").and_then(Attribute::as_str) {
            let _ = write!(self.out, "{v} ");
        }
        if let Some(l) = self.m.attr(op, "linkage").and_then(Attribute::as_str) {
            let _ = write!(self.out, "{l} ");
        }
        let name = self.m.sym_name(op).unwrap_or("").to_string();
        let _ = write!(self.out, "{}(", format_symbol(&name));
        let entry = data.regions.first().and_then(|&r| self.m.regions[r].blocks.first().copied());
        let arg_attrs = self.m.attr(op, "arg_attrs").and_then(Attribute::as_array).map(|a| a.to_vec());
        for (i, t) in ft.inputs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            if let Some(b) = entry {
                let v = self.m.blocks[b].args[i];
                let n = self.value_name(v);
                let _ = write!(self.out, "{n}: ");
            }
            let _ = write!(self.out, "{t}");
            if let Some(Attribute::Dict(d)) = arg_attrs.as_ref().and_then(|a| a.get(i)) {
                if !d.is_empty() {
                    let _ = write!(self.out, " {}", Dict(d));
                }
            }
        }
        if self.m.attr(op, "vararg").is_some() {
            self.out.push_str(if ft.inputs.is_empty() { "..." } else { ", ..." });
        }
        self.out.push(')');
        let res_attrs = self.m.attr(op, "res_attrs").and_then(Attribute::as_array).map(|a| a.to_vec());
        if !ft.results.is_empty() {
            self.out.push_str(" -> (");
            for (i, t) in ft.results.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                let _ = write!(self.out, "{t}");
                if let Some(Attribute::Dict(d)) = res_attrs.as_ref().and_then(|a| a.get(i)) {
                    if !d.is_empty() {
                        let _ = write!(self.out, " {}", Dict(d));
                    }
                }
            }
            self.out.push(')');
        }
        let extra: Vec<(String, Attribute)> = data
            .attrs
            .iter()
            .filter(|(k, _)| {
                !["sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs", "linkage", "vararg"]
                    .contains(&k.as_str())
            })
            .cloned()
            .collect();
        if !extra.is_empty() {
            let _ = write!(self.out, " attributes {}", Dict(&extra));
        }
        if let Some(&r) = data.regions.first() {
            if !self.m.regions[r].blocks.is_empty() {
                self.out.push(' ');
                let saved = (std::mem::take(&mut self.names), self.next_value, std::mem::take(&mut self.block_names));
                // Keep the argument names assigned above.
                if let Some(b) = entry {
                    for &a in &self.m.blocks[b].args {
                        if let Some(n) = saved.0.get(&a) {
                            self.names.insert(a, n.clone());
                        }
                    }
                }
                self.next_value = saved.1;
                self.print_region(r, false);
                self.names = saved.0;
                self.block_names = saved.2;
            }
        }
        self.out.push('\n');
    }

    /// With `print_entry_args`, the entry block prints its label and arguments (generic form);
    /// function bodies name their arguments in the signature instead.
    fn print_region(&mut self, r: RegionId, print_entry_args: bool) {
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
            for op in self.m.blocks[b].ops.clone() {
                self.print_op(op);
            }
        }
        self.indent -= 1;
        self.pad();
        self.out.push('}');
    }
}
