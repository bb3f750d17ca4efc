//! What an operator's ONNX schema says about a node before the operator's own rule reads it: how
//! many inputs it takes, which of them share one element type variable (`T` of Add's A and B, of
//! Conv's X, W and B), which carry indices, shapes or axes (integers) or conditions (bools), and
//! which element types it takes at all. Each operator's [`Schema`] is registered with the
//! operator, in its family's `register` ([`crate::ops::Registry::register`]); [`check`] reads it
//! for every node, so a node with too few inputs or mismatched types is an error naming the node
//! and the tensors, not an index out of bounds or a kernel that mixes types.
//!
//! The input counts are the fewest and the most over the opsets xcc reads (Slice took its starts
//! and ends as attributes before opset 10): [`Schema::required_from`] raises the fewest from an
//! opset on. Where xcc is stricter than ONNX's schema the operator says so: BatchNormalization
//! allows its scale and statistics in another float type than X, xcc computes in X's type.
//! Attribute types are ONNX's by attribute name, the same in every schema
//! ([`crate::ops::attr_types`]).

use crate::graph::{DType, Graph, Node, OResult, OnnxError};

/// "Any number of inputs" as [`Schema::inputs`]' most.
pub const ANY: usize = usize::MAX;

/// Which inputs share the element type of the first of them.
#[derive(Clone, Copy, Debug)]
pub enum Group {
    /// Every input.
    All,
    /// These inputs (by position; absent or empty ones are skipped).
    Inputs(&'static [usize]),
}

/// Which element types an operator's inputs may have.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Elements {
    /// Numbers and bools: no strings, and no float8 or sub-byte tensors.
    Numbers,
    /// Also float8 and sub-byte tensors, whose codes take a byte each: casts and quantization
    /// (any other operator would compute on the codes).
    Codes,
    /// Also strings, computed on by the runtime's string functions ([`crate::ops::string`]) or
    /// moved like addresses.
    Strings,
    /// Any element type: the operator moves elements without reading them (a string's address
    /// moves like an int64).
    Any,
}

/// One operator's input rules (see the module's documentation).
#[derive(Clone, Copy, Debug)]
pub struct Schema {
    /// The fewest inputs (each of them required: none may be left empty).
    pub min_inputs: usize,
    /// The most inputs ([`ANY`]: variadic).
    pub max_inputs: usize,
    /// From this opset on, at least this many inputs.
    required_from: Option<(i64, usize)>,
    /// Whether the operator checks its inputs' count itself (contrib operators whose inputs
    /// differ between ONNX Runtime's versions).
    counts_own_inputs: bool,
    /// Whether every output may be left unnamed (the recurrent operators: a model may keep only
    /// the last state); the others define their first output.
    outputs_optional: bool,
    same_type: Option<Group>,
    int64: &'static [usize],
    index: &'static [usize],
    bools: &'static [usize],
    elements: Elements,
    /// A rule of the operator's own, checked with these (BitCast's element sizes).
    extra: Option<fn(&Node, &Graph) -> OResult<()>>,
}

impl Schema {
    /// An operator of `min` to `max` inputs, of numbers.
    pub const fn inputs(min: usize, max: usize) -> Schema {
        Schema {
            min_inputs: min,
            max_inputs: max,
            required_from: None,
            counts_own_inputs: false,
            outputs_optional: false,
            same_type: None,
            int64: &[],
            index: &[],
            bools: &[],
            elements: Elements::Numbers,
            extra: None,
        }
    }

    /// An operator of exactly `n` inputs.
    pub const fn exactly(n: usize) -> Schema {
        Schema::inputs(n, n)
    }

    /// An operator that checks how many inputs it has itself.
    pub const fn counts_own_inputs() -> Schema {
        Schema { counts_own_inputs: true, ..Schema::inputs(0, ANY) }
    }

    /// From `opset` on, at least `min` inputs.
    pub const fn required_from(self, opset: i64, min: usize) -> Schema {
        Schema { required_from: Some((opset, min)), ..self }
    }

    /// Every output may be unnamed.
    pub const fn outputs_optional(self) -> Schema {
        Schema { outputs_optional: true, ..self }
    }

    /// These inputs share one element type.
    pub const fn same_type(self, group: Group) -> Schema {
        Schema { same_type: Some(group), ..self }
    }

    /// These inputs are int64 (shapes, axes, counts, pads).
    pub const fn int64(self, positions: &'static [usize]) -> Schema {
        Schema { int64: positions, ..self }
    }

    /// These inputs are int32 or int64 (indices, slice bounds).
    pub const fn index(self, positions: &'static [usize]) -> Schema {
        Schema { index: positions, ..self }
    }

    /// These inputs are bools (conditions, logic).
    pub const fn bools(self, positions: &'static [usize]) -> Schema {
        Schema { bools: positions, ..self }
    }

    /// The element types the inputs may have.
    pub const fn elements(self, elements: Elements) -> Schema {
        Schema { elements, ..self }
    }

    /// A rule of the operator's own, checked with the others.
    pub const fn checked_by(self, rule: fn(&Node, &Graph) -> OResult<()>) -> Schema {
        Schema { extra: Some(rule), ..self }
    }

    /// The fewest inputs at `opset`.
    pub fn min_inputs_at(&self, opset: i64) -> usize {
        match self.required_from {
            Some((since, min)) if opset >= since => self.min_inputs.max(min),
            _ => self.min_inputs,
        }
    }

    /// Whether the operator takes STRING tensors.
    pub fn takes_strings(&self) -> bool {
        matches!(self.elements, Elements::Strings | Elements::Any)
    }
}

fn inputs(n: usize) -> &'static str {
    if n == 1 {
        "input"
    } else {
        "inputs"
    }
}

/// An error unless the node has between the fewest and the most inputs its operator takes, every
/// required one named, and the outputs it must define.
pub fn check_counts(node: &Node, schema: &Schema) -> OResult<()> {
    if schema.counts_own_inputs {
        return Ok(());
    }
    let (min, max) = (schema.min_inputs_at(node.opset), schema.max_inputs);
    let n = node.inputs.len();
    let range = match (min, max) {
        (a, b) if a == b => format!("{a} {}", inputs(a)),
        (a, ANY) => format!("{a} or more inputs"),
        (a, b) => format!("{a} to {b} inputs"),
    };
    if n < min || n > max {
        let message = format!("{} (opset {}) takes {range}, not {n}", node.op, node.opset);
        return Err(OnnxError::msg(message).in_node(node));
    }
    if schema.outputs_optional && node.outputs.iter().all(String::is_empty) {
        return Err(OnnxError::msg(format!("{} needs an output named", node.op)).in_node(node));
    }
    if !schema.outputs_optional && node.outputs.first().is_none_or(String::is_empty) {
        return Err(OnnxError::msg(format!("{} needs its first output named", node.op)).in_node(node));
    }
    if let Some(k) = node.inputs[..min].iter().position(String::is_empty) {
        return Err(OnnxError::msg(format!("{}'s input {k} is required but left empty", node.op)).in_node(node));
    }
    Ok(())
}

/// The node's present tensor inputs at `positions` with their element types (a sequence has
/// none: its operators check their elements).
fn typed<'a>(node: &'a Node, g: &Graph, positions: &[usize]) -> OResult<Vec<(&'a str, DType)>> {
    let mut out = Vec::new();
    for &i in positions {
        match node.inputs.get(i) {
            Some(name) if !name.is_empty() && !g.sequences.borrow().contains_key(name) => {
                out.push((name.as_str(), g.ty(name)?.dtype))
            }
            _ => {}
        }
    }
    Ok(out)
}

fn all_inputs(node: &Node) -> Vec<usize> {
    (0..node.inputs.len()).collect()
}

/// An error unless the node's inputs have the element types its operator's schema allows and
/// ties together.
pub fn check_types(node: &Node, g: &Graph, schema: &Schema) -> OResult<()> {
    let fail = |message: String| Err(OnnxError::msg(message).in_node(node));
    let reads_optional = !matches!(node.op.as_str(), "OptionalHasElement" | "OptionalGetElement");
    if let Some(x) = node.inputs.iter().find(|x| reads_optional && g.optional_inputs.contains(*x)) {
        return fail(format!(
            "{} reads the optional input '{x}', which only OptionalHasElement and OptionalGetElement may read",
            node.op
        ));
    }
    let inputs = typed(node, g, &all_inputs(node))?;
    if !schema.takes_strings() {
        if let Some((name, _)) = inputs.iter().find(|(_, t)| *t == DType::Str) {
            return fail(format!("{} does not take strings like '{name}'", node.op));
        }
    }
    if let Some(group) = schema.same_type {
        let positions = match group {
            Group::All => all_inputs(node),
            Group::Inputs(p) => p.to_vec(),
        };
        let tied = typed(node, g, &positions)?;
        if let Some(((first, t0), (other, t))) =
            tied.first().and_then(|a| tied.iter().find(|b| b.1 != a.1).map(|b| (a, b)))
        {
            return fail(format!(
                "{}'s inputs '{first}' ({}) and '{other}' ({}) must have one element type",
                node.op,
                t0.name(),
                t.name()
            ));
        }
    }
    let kinds = [
        (schema.int64, &[DType::I64][..], "int64"),
        (schema.index, &[DType::I32, DType::I64][..], "int32 or int64"),
        (schema.bools, &[DType::Bool][..], "bool"),
    ];
    for (positions, allowed, what) in kinds {
        if let Some((name, t)) = typed(node, g, positions)?.into_iter().find(|(_, t)| !allowed.contains(t)) {
            return fail(format!("{}'s input '{name}' must be {what}, not {}", node.op, t.name()));
        }
    }
    if matches!(schema.elements, Elements::Numbers | Elements::Strings) {
        let narrow = |t: &DType| t.float8().is_some() || t.packed_bits().is_some() || *t == DType::F8E8M0;
        if let Some((name, t)) = inputs.iter().find(|(_, t)| narrow(t)) {
            return fail(format!(
                "{} does not take {} tensors like '{name}' (xcc casts, quantizes and moves float8 and sub-byte tensors only)",
                node.op,
                t.name()
            ));
        }
    }
    match schema.extra {
        Some(rule) => rule(node, g).map_err(|e| e.in_node(node)),
        None => Ok(()),
    }
}

/// An error for a STRING output of an operator that would write numbers into it (ConstantOfShape
/// of a string, a random draw of dtype STRING): such a node is left to run only when its output
/// is no string.
pub fn check_string_outputs(node: &Node, g: &Graph, schema: &Schema) -> OResult<()> {
    if schema.takes_strings() {
        return Ok(());
    }
    for o in node.outputs.iter().filter(|o| !o.is_empty()) {
        if g.ty(o)?.dtype == DType::Str {
            return Err(OnnxError::msg(format!("{} does not make strings like '{o}'", node.op)).in_node(node));
        }
    }
    Ok(())
}

/// An error for a node whose operator's rules it breaks: its inputs' count and element types.
pub fn check(node: &Node, g: &Graph, schema: &Schema) -> OResult<()> {
    check_counts(node, schema)?;
    crate::ops::attr_types::check(node)?;
    check_types(node, g, schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every schema names inputs the operator can have: its positions below its most inputs, its
    /// fewest no more than its most, at every opset.
    #[test]
    fn every_schema_names_inputs_the_operator_has() {
        for (domain, op, s) in crate::ops::registry().schemas() {
            let name = format!("{domain}:{op}");
            assert!(s.min_inputs <= s.max_inputs, "{name}: fewest inputs above the most");
            if let Some((_, min)) = s.required_from {
                assert!(min > s.min_inputs && min <= s.max_inputs, "{name}: required_from out of range");
            }
            let grouped: &[usize] = match s.same_type {
                Some(Group::Inputs(p)) => p,
                _ => &[],
            };
            let positions = grouped.iter().chain(s.int64).chain(s.index).chain(s.bools);
            if s.max_inputs != ANY {
                for &p in positions {
                    assert!(p < s.max_inputs, "{name}: input {p} past its {} inputs", s.max_inputs);
                }
            }
            assert!(!(s.counts_own_inputs && s.outputs_optional), "{name}: an unchecked count with optional outputs");
        }
    }
}
