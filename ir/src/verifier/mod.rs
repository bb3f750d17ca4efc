//! The IR verifier. Runs after parsing, after every pass, and always before translation to LLVM
//! IR (so the translation never meets a malformed operation).
//!
//! Structural rules (this module): every block of a region ends in exactly one terminator and
//! has none elsewhere (graph regions excepted); successors are blocks of the same region and
//! receive as many values, of the same types, as they have arguments; the entry block of a
//! region has no predecessors; every use is dominated by its definition (definitions in
//! unreachable blocks are not checked, as upstream); values do not cross isolated-from-above
//! regions. Per-operation rules come from the operation's definition ([`crate::op_def::OpDef`]):
//! counts, segments, attributes, parent, then its type rule. An unknown operation of a
//! registered dialect is an error; other dialects' operations are opaque.

use crate::diagnostics::{Diagnostic, Span};
use crate::entity::{BlockId, OpId, RegionId, ValueId};
use crate::module::{Module, ValueDef};
use crate::op_def::{is_terminator, OpDef, Traits};
use std::collections::{HashMap, HashSet};

pub fn verify(m: &Module) -> Result<(), Diagnostic> {
    // Each operation's index in its block, so a use is checked against its definition's place
    // in constant time (a linear search made a long block's verification quadratic).
    let mut position = vec![0; m.ops.len()];
    for b in m.blocks.keys() {
        for (i, &op) in m.blocks[b].ops.iter().enumerate() {
            position[op.index()] = i;
        }
    }
    let mut v = Verifier { m, dom: HashMap::new(), position };
    unique_symbols(m, m.top_ops())?;
    for &op in m.top_ops() {
        v.verify_op(op)?;
    }
    Ok(())
}

/// The symbols a module defines have distinct names, as upstream requires: a call or
/// `addressof` must name one definition.
fn unique_symbols(m: &Module, ops: &[OpId]) -> Result<(), Diagnostic> {
    let mut seen: HashMap<&str, OpId> = HashMap::new();
    for &op in ops {
        if let Some(crate::Attribute::String(name)) = m.attr(op, "sym_name") {
            if let Some(&first) = seen.get(name.as_str()) {
                return Err(Diagnostic::new(op_span(m, op), format!("redefinition of symbol named '{name}'"))
                    .with_note(op_span(m, first), "the first definition is here"));
            }
            seen.insert(name, op);
        }
    }
    Ok(())
}

struct Verifier<'a> {
    m: &'a Module,
    /// Per region: reachable blocks and their immediate dominators.
    dom: HashMap<RegionId, Dominators>,
    /// Indexed by operation: its index in its block's list.
    position: Vec<usize>,
}

struct Dominators {
    reachable: HashSet<BlockId>,
    idom: HashMap<BlockId, BlockId>,
    entry: BlockId,
}

impl Dominators {
    fn dominates(&self, a: BlockId, mut b: BlockId) -> bool {
        loop {
            if a == b {
                return true;
            }
            if b == self.entry {
                return false;
            }
            match self.idom.get(&b) {
                Some(&p) => b = p,
                None => return false,
            }
        }
    }
}

fn op_span(m: &Module, op: OpId) -> Span {
    m.ops[op].span
}

impl Verifier<'_> {
    fn verify_op(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let m = self.m;
        let data = &m.ops[op];
        for (i, &v) in data.operands.iter().enumerate() {
            self.check_use(op, v, i)?;
        }
        for s in &data.successors {
            for (i, &v) in s.args.iter().enumerate() {
                self.check_use(op, v, i)?;
            }
        }
        verify_definition(m, op)?;
        for &r in &data.regions {
            self.verify_region(op, r)?;
        }
        Ok(())
    }

    fn verify_region(&mut self, owner: OpId, r: RegionId) -> Result<(), Diagnostic> {
        let m = self.m;
        let blocks = &m.regions[r].blocks;
        let Some(&entry) = blocks.first() else { return Ok(()) };
        let owner_name = m.ops[owner].name.as_str();
        for &b in blocks {
            let ops = &m.blocks[b].ops;
            let Some(&last) = ops.last() else {
                return Err(Diagnostic::new(
                    if m.blocks[b].span.is_known() { m.blocks[b].span } else { op_span(m, owner) },
                    format!("block in '{owner_name}' is empty: every block must end with a terminator"),
                ));
            };
            for &op in &ops[..ops.len() - 1] {
                if is_terminator(&m.ops[op].name) {
                    return Err(Diagnostic::new(
                        op_span(m, op),
                        format!("'{}' is a terminator and must be the last operation of its block", m.ops[op].name),
                    ));
                }
            }
            if !is_terminator(&m.ops[last].name)
                && !is_graph_like(owner_name)
                && crate::dialects::is_registered_dialect(&m.ops[last].name)
                && !crate::dialects::is_intrinsic_call(&m.ops[last].name)
            {
                return Err(Diagnostic::new(
                    op_span(m, last),
                    format!(
                        "block does not end with a terminator: '{}' is not one (add a 'return' or a branch)",
                        m.ops[last].name
                    ),
                ));
            }
            for s in &m.ops[last].successors {
                if m.blocks[s.block].parent != Some(r) {
                    return Err(Diagnostic::new(op_span(m, last), "a branch can only target blocks of its own region"));
                }
                if s.block == entry {
                    return Err(Diagnostic::new(
                        op_span(m, last),
                        "the entry block of a region cannot be a branch target",
                    ));
                }
                let params = &m.blocks[s.block].args;
                if params.len() != s.args.len() {
                    return Err(Diagnostic::new(
                        op_span(m, last),
                        format!("branch passes {} value(s), but the target block takes {}", s.args.len(), params.len()),
                    ));
                }
                for (i, (&a, &p)) in s.args.iter().zip(params).enumerate() {
                    if m.ty(a) != m.ty(p) {
                        return Err(Diagnostic::new(
                            op_span(m, last),
                            format!(
                                "branch operand #{i} has type {}, but the target block's argument has type {}",
                                m.ty(a),
                                m.ty(p)
                            ),
                        ));
                    }
                }
            }
        }
        self.dom.insert(r, compute_dominators(m, r, entry));
        for &b in blocks {
            for &op in &m.blocks[b].ops {
                self.verify_op(op)?;
            }
        }
        Ok(())
    }

    /// Checks that `v`, used by `user`, is defined in a place that dominates the use.
    fn check_use(&self, user: OpId, v: ValueId, index: usize) -> Result<(), Diagnostic> {
        let m = self.m;
        let undefined = || {
            Diagnostic::new(op_span(m, user), format!("operand #{index} of '{}' is not visible here", m.ops[user].name))
        };
        let (def_block, def_op) = match m.values[v].def {
            ValueDef::OpResult { op, .. } => match m.ops[op].parent {
                Some(b) => (b, Some(op)),
                None => return Err(undefined()),
            },
            // A value that names a block but is not (any more) among its arguments.
            ValueDef::BlockArg { block, index } if m.blocks[block].args.get(index as usize) != Some(&v) => {
                return Err(undefined())
            }
            ValueDef::BlockArg { block, .. } => (block, None),
            ValueDef::Unresolved => return Err(undefined()),
        };
        let Some(def_region) = m.blocks[def_block].parent else { return Err(undefined()) };
        // Walk up from the user until we reach an operation directly in the defining region.
        let mut at = user;
        loop {
            let Some(block) = m.ops[at].parent else { return Err(undefined()) };
            let Some(region) = m.blocks[block].parent else { return Err(undefined()) };
            if region == def_region {
                break;
            }
            let Some(parent) = m.regions[region].parent else { return Err(undefined()) };
            if is_isolated_from_above(&m.ops[parent].name) {
                return Err(Diagnostic::new(
                    op_span(m, user),
                    format!("'{}' uses a value defined outside its enclosing function", m.ops[user].name),
                )
                .with_note(m.values[v].span, "the value is defined here"));
            }
            at = parent;
        }
        let at_block = m.ops[at].parent.expect("parent");
        let not_dominating = || {
            Diagnostic::new(
                op_span(m, user),
                format!("operand #{index} of '{}' does not dominate this use", m.ops[user].name),
            )
            .with_note(m.values[v].span, "the value is defined here")
        };
        if at_block == def_block {
            if let Some(def_op) = def_op {
                if self.position[def_op.index()] >= self.position[at.index()] {
                    return Err(not_dominating());
                }
            }
            return Ok(());
        }
        let Some(dom) = self.dom.get(&def_region) else { return Ok(()) };
        if !dom.reachable.contains(&at_block) {
            return Ok(());
        }
        if !dom.dominates(def_block, at_block) {
            return Err(not_dominating());
        }
        Ok(())
    }
}

fn is_graph_like(name: &str) -> bool {
    crate::dialects::lookup(name).is_some_and(|d| d.traits.contains(Traits::NO_TERMINATOR))
}

fn is_isolated_from_above(name: &str) -> bool {
    crate::dialects::lookup(name).is_some_and(|d| d.traits.contains(Traits::ISOLATED_FROM_ABOVE))
}

/// The checks an operation's definition asks for; unknown operations of xcc's dialects are
/// errors (an `llvm.*` name outside the table is an intrinsic call, checked at translation).
fn verify_definition(m: &Module, op: OpId) -> Result<(), Diagnostic> {
    let d = &m.ops[op];
    let name = d.name.as_str();
    let Some(def) = crate::dialects::lookup(name) else {
        if crate::dialects::is_registered_dialect(name) && !crate::dialects::is_intrinsic_call(name) {
            return Err(Diagnostic::new(d.span, format!("unknown operation '{name}'")));
        }
        return Ok(());
    };
    let rule = |def: &OpDef| -> Result<(), String> {
        def.verify_structure(m, op)?;
        match def.verify {
            Some(f) => f(m, op),
            None => Ok(()),
        }
    };
    rule(def).map_err(|msg| Diagnostic::new(d.span, format!("'{name}': {msg}")))
}

/// Cooper-Harvey-Kennedy iterative dominators over the blocks of one region.
fn compute_dominators(m: &Module, r: RegionId, entry: BlockId) -> Dominators {
    let blocks = &m.regions[r].blocks;
    let succs = |b: BlockId| -> Vec<BlockId> {
        m.blocks[b].ops.last().map(|&t| m.ops[t].successors.iter().map(|s| s.block).collect()).unwrap_or_default()
    };
    let (all, reachable) = m.reverse_post_order(r);
    let order: Vec<BlockId> = all[..reachable].to_vec();
    let seen: HashSet<BlockId> = order.iter().copied().collect();
    let rpo: HashMap<BlockId, usize> = order.iter().enumerate().map(|(i, &b)| (b, i)).collect();
    let mut preds: HashMap<BlockId, Vec<BlockId>> = HashMap::new();
    for &b in blocks {
        if rpo.contains_key(&b) {
            for s in succs(b) {
                preds.entry(s).or_default().push(b);
            }
        }
    }
    let mut idom: HashMap<BlockId, BlockId> = HashMap::new();
    idom.insert(entry, entry);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new: Option<BlockId> = None;
            for &p in preds.get(&b).map(|v| v.as_slice()).unwrap_or(&[]) {
                if !idom.contains_key(&p) {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(mut a) => {
                        let mut c = p;
                        while a != c {
                            while rpo[&a] > rpo[&c] {
                                a = idom[&a];
                            }
                            while rpo[&c] > rpo[&a] {
                                c = idom[&c];
                            }
                        }
                        a
                    }
                });
            }
            if let Some(n) = new {
                if idom.get(&b) != Some(&n) {
                    idom.insert(b, n);
                    changed = true;
                }
            }
        }
    }
    idom.remove(&entry);
    Dominators { reachable: seen, idom, entry }
}
