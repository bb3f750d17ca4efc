//! How many inputs each operator takes, from the ONNX operator schemas: the fewest and the most
//! over the opsets xcc reads (where opsets differ, the widest range: Slice took its starts and
//! ends as attributes before opset 10, Clip its bounds before opset 11). Checked for every node
//! before its shape rule runs, so a node with too few inputs, or with a required input left
//! empty, is an error naming the node, not an index out of bounds in its rule.

use crate::graph::{Node, OResult, OnnxError};

/// The fewest inputs (all of them required: none may be empty) and the most (`usize::MAX`:
/// variadic).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arity {
    pub min: usize,
    pub max: usize,
}

const ANY: usize = usize::MAX;

/// (operators, fewest inputs, most inputs).
const TABLE: &[(&[&str], usize, usize)] = &[
    (&["Constant"], 0, 0),
    (
        &[
            "Abs",
            "Acos",
            "Acosh",
            "Asin",
            "Asinh",
            "Atan",
            "Atanh",
            "Ceil",
            "Cos",
            "Cosh",
            "Erf",
            "Exp",
            "Floor",
            "Log",
            "Neg",
            "Not",
            "Reciprocal",
            "Round",
            "Sign",
            "Sin",
            "Sinh",
            "Sqrt",
            "Tan",
            "Tanh",
            "IsNaN",
            "BitwiseNot",
        ],
        1,
        1,
    ),
    (
        &[
            "Relu",
            "Sigmoid",
            "Softplus",
            "Softsign",
            "HardSigmoid",
            "HardSwish",
            "Selu",
            "Elu",
            "LeakyRelu",
            "Gelu",
            "Celu",
            "Mish",
            "IsInf",
            "ThresholdedRelu",
            "Swish",
            "Shrink",
        ],
        1,
        1,
    ),
    (
        &[
            "Identity",
            "Cast",
            "BitCast",
            "Shape",
            "Size",
            "Flatten",
            "Transpose",
            "GlobalAveragePool",
            "GlobalMaxPool",
            "Softmax",
            "LogSoftmax",
            "Hardmax",
            "ArgMax",
            "ArgMin",
            "MaxPool",
            "AveragePool",
            "ConstantOfShape",
            "DepthToSpace",
            "SpaceToDepth",
            "LpNormalization",
        ],
        1,
        1,
    ),
    (
        &[
            "Add",
            "Sub",
            "Mul",
            "Div",
            "Pow",
            "Mod",
            "PRelu",
            "CastLike",
            "BitShift",
            "Equal",
            "Less",
            "Greater",
            "LessOrEqual",
            "GreaterOrEqual",
            "And",
            "Or",
            "Xor",
            "BitwiseAnd",
            "BitwiseOr",
            "BitwiseXor",
            "MatMul",
            "Expand",
            "Reshape",
            "Gather",
            "GatherElements",
            "GatherND",
        ],
        2,
        2,
    ),
    (&["Sum", "Mean", "Max", "Min", "Concat"], 1, ANY),
    (&["Where", "Range", "Scatter", "ScatterElements", "ScatterND", "InstanceNormalization"], 3, 3),
    (&["BatchNormalization"], 5, 5),
    (&["RMSNormalization", "CumSum", "CumProd", "SimplifiedLayerNormalization"], 2, 2),
    (&["QuantizeLinear", "DequantizeLinear"], 2, 3),
    (&["DynamicQuantizeLinear"], 1, 1),
    (&["MatMulInteger", "ConvInteger"], 2, 4),
    (&["QLinearMatMul"], 8, 8),
    (&["Einsum"], 1, ANY),
    (&["DFT"], 1, 3),
    (&["MaxUnpool", "TensorScatter"], 2, 3),
    (&["Col2Im", "RoiAlign"], 3, 3),
    (&["MaxRoiPool", "Compress", "StringConcat"], 2, 2),
    (&["StringSplit", "StringNormalizer", "RegexFullMatch", "ImageDecoder"], 1, 1),
    (&["NonZero", "Unique", "OptionalGetElement"], 1, 1),
    (&["Optional", "OptionalHasElement"], 0, 1),
    (&["SequenceEmpty"], 0, 0),
    (&["SequenceConstruct", "SequenceMap"], 1, ANY),
    (&["SequenceInsert"], 2, 3),
    (&["SequenceErase", "SequenceAt", "SplitToSequence"], 1, 2),
    (&["SequenceLength", "ConcatFromSequence"], 1, 1),
    (&["RandomUniform", "RandomNormal"], 0, 0),
    (&["RandomUniformLike", "RandomNormalLike", "Bernoulli", "Multinomial"], 1, 1),
    (&["NonMaxSuppression"], 2, 5),
    (&["STFT"], 2, 4),
    (&["MelWeightMatrix"], 5, 5),
    (&["SwiGLU"], 2, 2),
    (&["Det"], 1, 1),
    (&["GridSample", "CenterCropPad", "AffineGrid"], 2, 2),
    (&["ReverseSequence"], 2, 2),
    (&["HannWindow", "HammingWindow", "BlackmanWindow"], 1, 1),
    (&["If"], 1, 1),
    (&["Loop"], 0, ANY),
    (&["Scan"], 0, ANY),
    (&["RNN", "GRU"], 3, 6),
    (&["LSTM"], 3, 8),
    (&["QLinearConv"], 8, 9),
    (&["LpPool", "MeanVarianceNormalization", "LRN", "EyeLike"], 1, 1),
    (&["OneHot", "GroupNormalization"], 3, 3),
    (&["RotaryEmbedding"], 3, 4),
    (&["CausalConvWithState"], 2, 4),
    (&["LinearAttention"], 3, 6),
    (&["TfIdfVectorizer"], 1, 1),
    (&["DeformConv"], 3, 5),
    (&["Attention"], 3, 7),
    (&["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"], 2, 3),
    (&["Gemm", "Conv", "ConvTranspose", "LayerNormalization", "Tile"], 2, 3),
    (&["Clip", "Dropout"], 1, 3),
    (&["Slice"], 1, 5),
    (&["Pad", "Resize"], 1, 4),
    (&["Squeeze", "Unsqueeze", "Split", "TopK", "Trilu", "Upsample"], 1, 2),
    (
        &[
            "ReduceSum",
            "ReduceMean",
            "ReduceMax",
            "ReduceMin",
            "ReduceProd",
            "ReduceL1",
            "ReduceL2",
            "ReduceLogSum",
            "ReduceLogSumExp",
            "ReduceSumSquare",
        ],
        1,
        2,
    ),
];

/// The operators of other domains that xcc adds, by domain: (domain, operators, fewest inputs,
/// most inputs). (Those of `com.microsoft` that came first check their own inputs.)
const OTHER_DOMAINS: &[(&str, &[&str], usize, usize)] = &[
    ("ai.onnx.preview", &["FlexAttention"], 3, 3),
    ("ai.onnx.preview.training", &["Adagrad", "Adam", "Momentum"], 3, ANY),
    ("ai.onnx.ml", &["Binarizer", "TreeEnsemble", "LabelEncoder"], 1, 1),
    ("ai.onnx.ml", &["ArrayFeatureExtractor"], 2, 2),
    ("com.microsoft", &["GroupQueryAttention"], 1, 12),
    ("com.microsoft", &["Attention"], 2, 7),
    ("com.microsoft", &["QLinearSoftmax"], 1, 5),
    ("xcc", &["MatMulIntegerQuads", "ConvIntegerPlanes"], 2, 2),
    ("xcc", &["TakenBranch"], 3, 3),
    ("xcc", &["CacheWrite"], 4, 4),
];

/// Inputs that became required at an opset: (operator, from opset, fewest inputs from then on).
const REQUIRED_FROM: &[(&str, i64, usize)] =
    &[("Slice", 10, 3), ("Pad", 11, 2), ("TopK", 10, 2), ("Upsample", 9, 2), ("Unsqueeze", 13, 2)];

/// The operator's input counts at any opset, if the table has it.
pub fn of(op: &str) -> Option<Arity> {
    TABLE.iter().find(|(ops, _, _)| ops.contains(&op)).map(|&(_, min, max)| Arity { min, max })
}

/// The operator's input counts at `opset`.
pub fn at_opset(op: &str, opset: i64) -> Option<Arity> {
    let mut arity = of(op)?;
    for &(name, since, min) in REQUIRED_FROM {
        if name == op && opset >= since {
            arity.min = arity.min.max(min);
        }
    }
    Some(arity)
}

fn inputs(n: usize) -> &'static str {
    if n == 1 {
        "input"
    } else {
        "inputs"
    }
}

/// An error unless the node has between the fewest and the most inputs its operator takes, and
/// every required one named.
pub fn check(node: &Node) -> OResult<()> {
    // The table is the default domain's (a contrib operator of the same name differs).
    let arity = if node.domain.is_empty() {
        at_opset(&node.op, node.opset)
    } else {
        OTHER_DOMAINS
            .iter()
            .find(|(d, ops, _, _)| *d == node.domain && ops.contains(&node.op.as_str()))
            .map(|&(_, _, min, max)| Arity { min, max })
    };
    let Some(Arity { min, max }) = arity else { return Ok(()) };
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
    // Every operator xcc has defines its first output (later ones may be optional), except the
    // recurrent ones, whose every output is optional (a model may keep only the last state).
    let all_optional = matches!(node.op.as_str(), "RNN" | "GRU" | "LSTM");
    if all_optional && node.outputs.iter().all(String::is_empty) {
        return Err(OnnxError::msg(format!("{} needs an output named", node.op)).in_node(node));
    }
    if !all_optional && node.outputs.first().is_none_or(String::is_empty) {
        return Err(OnnxError::msg(format!("{} needs its first output named", node.op)).in_node(node));
    }
    if let Some(k) = node.inputs[..min].iter().position(String::is_empty) {
        return Err(OnnxError::msg(format!("{}'s input {k} is required but left empty", node.op)).in_node(node));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operator xcc registers has its input counts here (the table cannot fall behind the
    /// registry), and none is listed twice.
    #[test]
    fn every_registered_operator_has_an_arity() {
        let missing: Vec<&str> = crate::ops::registry().names().into_iter().filter(|n| of(n).is_none()).collect();
        assert!(missing.is_empty(), "operators without an arity: {missing:?}");
        let mut all: Vec<&str> = TABLE.iter().flat_map(|(ops, _, _)| ops.iter().copied()).collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "an operator is listed twice");
    }
}
