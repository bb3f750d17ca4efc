//! The element types the ONNX operator schemas tie together: inputs that share one type
//! variable (`T` of Add's A and B, of Conv's X, W and B) must have one element type, and the
//! inputs that carry indices, shapes or axes must be integers, conditions bools. Checked for every node once its
//! inputs' types are known, so a mismatch is an error naming the node and the tensors, never a
//! kernel that mixes types. Where xcc is stricter than the schema it says so: BatchNormalization
//! allows its scale and statistics in another float type than X, xcc computes in X's type.

use crate::graph::{err, DType, Graph, Node, OResult, OnnxError};

/// Which inputs share the element type of the first of them.
#[derive(Clone, Copy)]
enum Group {
    /// Every input.
    All,
    /// These inputs (by position; absent or empty ones are skipped).
    Inputs(&'static [usize]),
}

/// (operators, the group of inputs of one type).
const SAME_TYPE: &[(&[&str], Group)] = &[
    (
        &[
            "Add",
            "Sub",
            "Mul",
            "Div",
            "Mod",
            "Max",
            "Min",
            "Mean",
            "Sum",
            "Equal",
            "Less",
            "LessOrEqual",
            "Greater",
            "GreaterOrEqual",
            "And",
            "Or",
            "Xor",
            "Concat",
            "MatMul",
            "Gemm",
            "PRelu",
            "Clip",
            "Conv",
            "ConvTranspose",
            "InstanceNormalization",
            "LayerNormalization",
            "BatchNormalization",
            "Range",
        ],
        Group::All,
    ),
    (&["Where"], Group::Inputs(&[1, 2])),
    // X, W, R, B, initial_h, initial_c and P (sequence_lens, input 4, is an integer).
    (&["RNN", "GRU", "LSTM"], Group::Inputs(&[0, 1, 2, 3, 5, 6, 7])),
    (&["GridSample", "MaxRoiPool"], Group::All),
    (&["RoiAlign"], Group::Inputs(&[0, 1])),
    (&["Scatter", "ScatterElements", "ScatterND"], Group::Inputs(&[0, 2])),
    (&["Pad"], Group::Inputs(&[0, 2])),
];

/// (operators, inputs that must be int64: shapes, axes, counts, pads).
const INT64: &[(&[&str], &[usize])] = &[
    (&["Expand", "Reshape", "Tile", "Squeeze", "Unsqueeze", "Split", "Pad", "TopK", "Trilu"], &[1]),
    (&["ConstantOfShape"], &[0]),
    (&["GatherND", "ScatterND"], &[1]),
    (&["RoiAlign"], &[2]),
    (&["Resize"], &[3]),
    // max_output_boxes_per_class (its thresholds are float).
    (&["NonMaxSuppression"], &[2]),
    (
        &[
            "ReduceL1",
            "ReduceL2",
            "ReduceLogSum",
            "ReduceLogSumExp",
            "ReduceMax",
            "ReduceMean",
            "ReduceMin",
            "ReduceProd",
            "ReduceSum",
            "ReduceSumSquare",
        ],
        &[1],
    ),
];

/// (operators, inputs that must be bool: conditions and logic).
const BOOL: &[(&[&str], &[usize])] = &[(&["Where", "Not"], &[0]), (&["And", "Or", "Xor"], &[0, 1])];

/// (operators, inputs that must be int32 or int64: indices, slice bounds).
const INDEX: &[(&[&str], &[usize])] = &[
    (&["Gather", "GatherElements", "Scatter", "ScatterElements"], &[1]),
    (&["Slice"], &[1, 2, 3, 4]),
    (&["RNN", "GRU", "LSTM"], &[4]),
];

/// The operators that take float8 and sub-byte tensors besides [`MOVES`]: casts and quantization
/// (such a tensor is its codes, a byte each; any other operator would compute on them).
const FLOAT8: &[&str] = &["Cast", "CastLike", "BitCast", "QuantizeLinear", "DequantizeLinear"];

/// The operators that move elements without reading them, which take any element type.
const MOVES: &[&str] = &[
    "Identity",
    "Reshape",
    "Flatten",
    "Squeeze",
    "Unsqueeze",
    "Transpose",
    "Shape",
    "Size",
    "Concat",
    "Slice",
    "Split",
    "Gather",
    "Expand",
    "Tile",
];

fn entries<'a, T>(table: &'a [(&[&str], T)], op: &'a str) -> impl Iterator<Item = &'a T> {
    table.iter().filter(move |(ops, _)| ops.contains(&op)).map(|(_, t)| t)
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

/// The operators that take STRING tensors besides [`MOVES`] (a string's address moves like an
/// int64): more that move, and those that compute on strings through the runtime's string
/// functions ([`crate::ops::string`]).
const STRINGS: &[&str] = &[
    "GatherElements",
    "GatherND",
    "ScatterElements",
    "ScatterND",
    "Where",
    "Compress",
    "ReverseSequence",
    "If",
    "Loop",
    "Scan",
    "Equal",
    "StringConcat",
    "StringSplit",
    "StringNormalizer",
    "RegexFullMatch",
    "LabelEncoder",
    "Cast",
    "CastLike",
];

/// Whether `op` takes STRING tensors ([`STRINGS`], [`MOVES`]).
fn takes_strings(op: &str) -> bool {
    STRINGS.contains(&op) || MOVES.contains(&op)
}

/// An error for a STRING input to an operator that would compute on its elements as numbers.
fn check_strings(node: &Node, g: &Graph) -> OResult<()> {
    if takes_strings(&node.op) {
        return Ok(());
    }
    let all: Vec<usize> = (0..node.inputs.len()).collect();
    if let Some((name, _)) = typed(node, g, &all)?.into_iter().find(|(_, t)| *t == DType::Str) {
        return err(format!("{} does not take strings like '{name}'", node.op));
    }
    Ok(())
}

/// An error for a STRING output of an operator that would write numbers into it (ConstantOfShape
/// of a string, a random draw of dtype STRING): such a node is left to run only when its output
/// is no string.
pub fn check_string_outputs(node: &Node, g: &Graph) -> OResult<()> {
    if takes_strings(&node.op) {
        return Ok(());
    }
    for o in node.outputs.iter().filter(|o| !o.is_empty()) {
        if g.ty(o)?.dtype == DType::Str {
            return Err(OnnxError::msg(format!("{} does not make strings like '{o}'", node.op)).in_node(node));
        }
    }
    Ok(())
}

/// An error unless the node's inputs have the element types its operator ties together.
pub fn check(node: &Node, g: &Graph) -> OResult<()> {
    let fail = |message: String| Err(OnnxError::msg(message).in_node(node));
    let reads_optional = !matches!(node.op.as_str(), "OptionalHasElement" | "OptionalGetElement");
    if let Some(x) = node.inputs.iter().find(|x| reads_optional && g.optional_inputs.contains(*x)) {
        return fail(format!(
            "{} reads the optional input '{x}', which only OptionalHasElement and OptionalGetElement may read",
            node.op
        ));
    }
    check_strings(node, g).map_err(|e| e.in_node(node))?;
    // The tables are the default domain's; a contrib operator checks its inputs itself.
    if !node.domain.is_empty() {
        return Ok(());
    }
    for group in entries(SAME_TYPE, &node.op) {
        let positions: Vec<usize> = match group {
            Group::All => (0..node.inputs.len()).collect(),
            Group::Inputs(p) => p.to_vec(),
        };
        let inputs = typed(node, g, &positions)?;
        if let Some(((first, t0), (other, t))) =
            inputs.first().and_then(|a| inputs.iter().find(|b| b.1 != a.1).map(|b| (a, b)))
        {
            return fail(format!(
                "{}'s inputs '{first}' ({}) and '{other}' ({}) must have one element type",
                node.op,
                t0.name(),
                t.name()
            ));
        }
    }
    for (positions, allowed, what) in entries(INT64, &node.op)
        .map(|p| (*p, &[DType::I64][..], "int64"))
        .chain(entries(INDEX, &node.op).map(|p| (*p, &[DType::I32, DType::I64][..], "int32 or int64")))
        .chain(entries(BOOL, &node.op).map(|p| (*p, &[DType::Bool][..], "bool")))
    {
        if let Some((name, t)) = typed(node, g, positions)?.into_iter().find(|(_, t)| !allowed.contains(t)) {
            return fail(format!("{}'s input '{name}' must be {what}, not {}", node.op, t.name()));
        }
    }
    if !FLOAT8.contains(&node.op.as_str()) && !MOVES.contains(&node.op.as_str()) {
        let all: Vec<usize> = (0..node.inputs.len()).collect();
        let narrow = |t: &DType| t.float8().is_some() || t.packed_bits().is_some() || *t == DType::F8E8M0;
        if let Some((name, t)) = typed(node, g, &all)?.into_iter().find(|(_, t)| narrow(t)) {
            return fail(format!(
                "{} does not take {} tensors like '{name}' (xcc casts, quantizes and moves float8 and sub-byte tensors only)",
                node.op,
                t.name()
            ));
        }
    }
    if node.op == "BitCast" {
        let (from, to) = (g.ty(&node.inputs[0])?.dtype, DType::from_onnx(node.int("to", 0) as i32));
        if let Some(to) = to.filter(|to| to.size() != from.size()) {
            return fail(format!(
                "BitCast needs element types of one size, not {} ({} bytes) and {} ({})",
                from.name(),
                from.size(),
                to.name(),
                to.size()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operator named here is one xcc registers (a misspelt name would check nothing).
    #[test]
    fn every_operator_named_is_registered() {
        let registered = crate::ops::registry().names();
        let named = SAME_TYPE
            .iter()
            .flat_map(|(ops, _)| ops.iter())
            .chain(INT64.iter().flat_map(|(ops, _)| ops.iter()))
            .chain(INDEX.iter().flat_map(|(ops, _)| ops.iter()))
            .chain(BOOL.iter().flat_map(|(ops, _)| ops.iter()))
            .chain(FLOAT8.iter())
            .chain(MOVES.iter())
            // LabelEncoder is ai.onnx.ml's.
            .chain(STRINGS.iter().filter(|op| **op != "LabelEncoder"));
        for op in named {
            assert!(registered.contains(op), "{op} is not a registered operator");
        }
    }
}
