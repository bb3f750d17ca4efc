//! The types ONNX gives attributes by name: the same name has the same type in every operator
//! schema that uses it (`strides` is always a list of integers, `epsilon` always a float). A
//! node whose attribute has another type is an error naming the node and the attribute; the
//! attribute accessors would otherwise read it as absent and take the default.

use crate::graph::{Attr, Node, OResult, OnnxError};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Int,
    Ints,
    /// A float (an integer is read as one too).
    Float,
    Floats,
    Str,
}

const TABLE: &[(Kind, &[&str])] = &[
    (
        Kind::Ints,
        &[
            "kernel_shape",
            "strides",
            "pads",
            "dilations",
            "perm",
            "output_padding",
            "output_shape",
            "axes",
            "split",
            "starts",
            "ends",
        ],
    ),
    (
        Kind::Int,
        &[
            "group",
            "axis",
            "keepdims",
            "transA",
            "transB",
            "ceil_mode",
            "count_include_pad",
            "storage_order",
            "fmod",
            "to",
            "select_last_index",
            "largest",
            "sorted",
            "upper",
            "exclusive",
            "reverse",
            "noop_with_empty_axes",
            "stash_type",
            "training_mode",
            "allowzero",
            "batch_dims",
            "blocksize",
            "k",
            "exclude_outside",
        ],
    ),
    (
        Kind::Float,
        &[
            "alpha",
            "beta",
            "epsilon",
            "gamma",
            "momentum",
            "ratio",
            "min",
            "max",
            "cubic_coeff_a",
            "extrapolation_value",
        ],
    ),
    (Kind::Floats, &["scales"]),
    (Kind::Str, &["auto_pad", "approximate", "coordinate_transformation_mode", "nearest_mode", "mode", "reduction"]),
];

fn kind_of(name: &str) -> Option<Kind> {
    TABLE.iter().find(|(_, names)| names.contains(&name)).map(|&(kind, _)| kind)
}

fn matches(kind: Kind, attr: &Attr) -> bool {
    matches!(
        (kind, attr),
        (Kind::Int, Attr::Int(_))
            | (Kind::Ints, Attr::Ints(_))
            | (Kind::Float, Attr::Float(_) | Attr::Int(_))
            | (Kind::Floats, Attr::Floats(_))
            | (Kind::Str, Attr::Str(_))
    )
}

fn describe(kind: Kind) -> &'static str {
    match kind {
        Kind::Int => "an integer",
        Kind::Ints => "a list of integers",
        Kind::Float => "a float",
        Kind::Floats => "a list of floats",
        Kind::Str => "a string",
    }
}

fn describe_attr(attr: &Attr) -> &'static str {
    match attr {
        Attr::Int(_) => "an integer",
        Attr::Float(_) => "a float",
        Attr::Ints(_) => "a list of integers",
        Attr::Floats(_) => "a list of floats",
        Attr::Str(_) => "a string",
        Attr::Strs(_) => "a list of strings",
        Attr::Tensor(_) => "a tensor",
        Attr::Graph(_) => "a graph",
    }
}

/// An error for the first attribute of `node` whose type is not the one ONNX gives its name.
pub fn check(node: &Node) -> OResult<()> {
    for (name, attr) in &node.attrs {
        let Some(kind) = kind_of(name) else { continue };
        if !matches(kind, attr) {
            let message = format!("attribute '{name}' must be {}, not {}", describe(kind), describe_attr(attr));
            return Err(OnnxError::msg(message).in_node(node));
        }
    }
    Ok(())
}
