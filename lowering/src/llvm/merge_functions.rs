//! `merge-identical-functions`: internal functions whose bodies are the same operation for
//! operation (names of values and blocks aside) become one; calls and addresses of the others
//! name the first.
//!
//! Why: a model repeats its blocks (a decoder's layers, a ResNet's stages), and the parallel
//! tasks `convert-parallel-to-threads` outlines from each read their buffers through the task's
//! context, so the tasks of every layer are one function eight times over. LLVM would optimize
//! and compile each copy, and `cpu-dispatch` copies each again per CPU: in a 155M-parameter
//! Llama of 8 layers, 432 tasks were 83 different functions, and half of the code LLVM
//! compiled.
//!
//! Two functions are compared by a fingerprint of their bodies: each operation's name,
//! attributes, result types, regions and successors, and its operands numbered in the order
//! the body defines them. A hash of it groups the candidates; the fingerprints themselves decide.

use super::cpu_dispatch::{is_definition, is_internal};
use crate::pass::{LoweringOptions, Pass};
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::fmt::{self, Write};
use std::hash::Hasher;
use xcc_ir::{Attribute, BlockId, Diagnostic, Module, OpId, ValueId};

pub struct MergeIdenticalFunctions;

impl Pass for MergeIdenticalFunctions {
    fn name(&self) -> &'static str {
        "merge-identical-functions"
    }

    fn run(&self, mut m: Module, options: &LoweringOptions) -> Result<Module, Diagnostic> {
        if options.gpu() {
            return Ok(m);
        }
        let renamed = duplicates(&m);
        if renamed.is_empty() {
            return Ok(m);
        }
        rename_references(&mut m, &renamed);
        let top = m.body_block();
        let kept: Vec<OpId> = m.blocks[top]
            .ops
            .iter()
            .copied()
            .filter(|&f| m.sym_name(f).is_none_or(|n| !renamed.contains_key(n)))
            .collect();
        m.blocks[top].ops = kept;
        Ok(m)
    }
}

/// Each internal function that repeats an earlier one, by name, with the earlier one's name.
fn duplicates(m: &Module) -> HashMap<String, String> {
    let mut groups: HashMap<u64, Vec<OpId>> = HashMap::new();
    let mut renamed = HashMap::new();
    for &f in m.top_ops() {
        if !is_definition(m, f) || !is_internal(m, f) || m.sym_name(f).is_none() {
            continue;
        }
        let mut hash = HashSink(DefaultHasher::new());
        fingerprint(m, f, &mut hash);
        let group = groups.entry(hash.0.finish()).or_default();
        match group.iter().find(|&&g| same_body(m, g, f)) {
            Some(&first) => {
                let name = m.sym_name(first).expect("grouped functions are named").to_string();
                renamed.insert(m.sym_name(f).expect("checked above").to_string(), name);
            }
            None => group.push(f),
        }
    }
    renamed
}

fn same_body(m: &Module, a: OpId, b: OpId) -> bool {
    let (mut x, mut y) = (String::new(), String::new());
    fingerprint(m, a, &mut x);
    fingerprint(m, b, &mut y);
    x == y
}

/// Feeds what is written to a hasher.
struct HashSink(DefaultHasher);

impl Write for HashSink {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.write(s.as_bytes());
        Ok(())
    }
}

/// Writes function `f` to `out` without its name: its other attributes, then its body with
/// values and blocks numbered in order of definition.
fn fingerprint(m: &Module, f: OpId, out: &mut impl Write) {
    let mut numbers = Numbering::default();
    for &r in &m.ops[f].regions {
        numbers.define_region(m, r);
    }
    let _ = write_attrs(m, f, out);
    for &r in &m.ops[f].regions {
        let _ = write_region(m, r, &numbers, out);
    }
}

#[derive(Default)]
struct Numbering {
    values: HashMap<ValueId, usize>,
    blocks: HashMap<BlockId, usize>,
}

impl Numbering {
    /// Numbers the blocks, block arguments and results of region `r`, nested ones included, in
    /// order: a value may be used in a block before the one that defines it.
    fn define_region(&mut self, m: &Module, r: xcc_ir::RegionId) {
        for &b in &m.regions[r].blocks {
            self.block(b);
            m.blocks[b].args.iter().for_each(|&a| self.define(a));
            for &op in &m.blocks[b].ops {
                m.ops[op].results.iter().for_each(|&v| self.define(v));
                m.ops[op].regions.iter().for_each(|&nested| self.define_region(m, nested));
            }
        }
    }

    fn define(&mut self, v: ValueId) {
        let n = self.values.len();
        self.values.insert(v, n);
    }

    /// A value's number, or (for one defined outside the function, which no copy shares) its id.
    fn value(&self, v: ValueId, out: &mut impl Write) -> fmt::Result {
        match self.values.get(&v) {
            Some(n) => write!(out, "%{n} "),
            None => write!(out, "%outside{} ", v.index()),
        }
    }

    fn block(&mut self, b: BlockId) -> usize {
        let n = self.blocks.len();
        *self.blocks.entry(b).or_insert(n)
    }

    /// A block's number (one outside the function, which no copy shares, by its id).
    fn block_name(&self, b: BlockId, out: &mut impl Write) -> fmt::Result {
        match self.blocks.get(&b) {
            Some(n) => write!(out, "^{n}"),
            None => write!(out, "^outside{}", b.index()),
        }
    }
}

fn write_region(m: &Module, r: xcc_ir::RegionId, numbers: &Numbering, out: &mut impl Write) -> fmt::Result {
    out.write_str("{")?;
    for &b in &m.regions[r].blocks {
        numbers.block_name(b, out)?;
        out.write_str("(")?;
        for &a in &m.blocks[b].args {
            write!(out, "{} ", m.ty(a))?;
        }
        out.write_str(")")?;
        for &op in &m.blocks[b].ops {
            write_op(m, op, numbers, out)?;
        }
    }
    out.write_str("}")
}

fn write_op(m: &Module, op: OpId, numbers: &Numbering, out: &mut impl Write) -> fmt::Result {
    let d = &m.ops[op];
    write!(out, "\n{} ", d.name)?;
    for &v in &d.operands {
        numbers.value(v, out)?;
    }
    write_attrs(m, op, out)?;
    for s in &d.successors {
        numbers.block_name(s.block, out)?;
        out.write_str("(")?;
        for &v in &s.args {
            numbers.value(v, out)?;
        }
        out.write_str(")")?;
    }
    for &r in &d.regions {
        write_region(m, r, numbers, out)?;
    }
    out.write_str("->")?;
    for &v in &d.results {
        write!(out, " {}", m.ty(v))?;
    }
    Ok(())
}

/// The attributes of `op` but its symbol name.
fn write_attrs(m: &Module, op: OpId, out: &mut impl Write) -> fmt::Result {
    for (key, value) in m.ops[op].attrs.iter().filter(|(k, _)| k != "sym_name") {
        write!(out, " {key}={value}")?;
    }
    Ok(())
}

/// Calls and addresses of a renamed function name its replacement.
fn rename_references(m: &mut Module, renamed: &HashMap<String, String>) {
    let mut ops = Vec::new();
    for &top in m.top_ops() {
        m.walk_nested(top, &mut |op| ops.push(op));
    }
    for op in ops {
        for key in ["callee", "global_name"] {
            let target = m.attr(op, key).and_then(Attribute::as_symbol).and_then(|n| renamed.get(n)).cloned();
            if let Some(name) = target {
                m.set_attr(op, key, Attribute::symbol(&name));
            }
        }
    }
}
