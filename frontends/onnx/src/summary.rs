//! What `xcc inspect` reports of a model: the producer and operator sets, every operator with
//! its node count and whether xcc implements it, the parameters, and after shape inference the
//! inputs and outputs (symbolic dims named) and the multiply-accumulates of its convolutions and
//! matrix products. The parts read from the file are there even when inference fails.

use crate::graph::*;
use crate::{import, infer, ops, proto, OnnxOptions};
use prost::Message;
use std::collections::BTreeMap;
use std::path::Path;

pub struct Summary {
    /// The file's format and version: `ONNX` and its IR version, or `Core ML` and its
    /// specification version ([`Format`]).
    pub format: Format,
    pub version: i64,
    /// `name version`, or empty.
    pub producer: String,
    /// `(domain, version)`; the default domain as `ai.onnx`.
    pub opsets: Vec<(String, i64)>,
    /// Per operator (`domain:op` outside the default domain): its nodes and whether xcc
    /// implements it, by name.
    pub ops: Vec<(String, usize, bool)>,
    /// Initializers' elements and bytes.
    pub parameters: (u64, u64),
    /// What shape inference finds, or why it fails.
    pub shapes: OResult<Shapes>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Onnx,
    CoreMl,
}

impl Format {
    /// How `xcc inspect` names the format and its version (in text, and as JSON keys).
    /// The text's title, the JSON `format`, and the JSON key of the version.
    pub fn names(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Format::Onnx => ("ONNX IR", "onnx", "ir_version"),
            Format::CoreMl => ("Core ML specification", "coreml", "specification_version"),
        }
    }
}

pub struct Shapes {
    pub inputs: Vec<(String, TensorType)>,
    pub outputs: Vec<(String, TensorType)>,
    /// The dims left to run time, in the order the run functions take them.
    pub symbols: Vec<String>,
    /// Multiply-accumulates of Conv, ConvTranspose, Gemm and MatMul: `output elements x the
    /// products summed into each`; an expression of the symbols where dims are.
    pub macs: Dim,
}

pub fn summarize(bytes: &[u8], path: &Path, options: &OnnxOptions) -> OResult<Summary> {
    let model = proto::ModelProto::decode(bytes)
        .map_err(|e| OnnxError::msg(format!("not a valid ONNX model: protobuf decoding failed ({e})")))?;
    let producer = [model.producer_name.clone(), model.producer_version.clone()]
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let opsets = model
        .opset_import
        .iter()
        .map(|o| {
            let domain = o.domain.clone().filter(|d| !d.is_empty()).unwrap_or_else(|| "ai.onnx".into());
            (domain, o.version.unwrap_or(0))
        })
        .collect();
    let graph = model.graph.clone().unwrap_or_default();
    Ok(Summary {
        format: Format::Onnx,
        version: model.ir_version.unwrap_or(0),
        producer,
        opsets,
        ops: histogram(&graph),
        parameters: parameters(&graph),
        shapes: shapes(bytes, path, options),
    })
}

fn histogram(graph: &proto::GraphProto) -> Vec<(String, usize, bool)> {
    let mut counts: BTreeMap<(String, bool), usize> = BTreeMap::new();
    for n in &graph.node {
        let op = n.op_type.clone().unwrap_or_default();
        let domain = n.domain.clone().unwrap_or_default();
        let default = domain.is_empty() || domain == "ai.onnx";
        let key = if default { op.clone() } else { format!("{domain}:{op}") };
        *counts.entry((key, ops::registry().get_in(&domain, &op).is_some())).or_default() += 1;
    }
    counts.into_iter().map(|((op, supported), n)| (op, n, supported)).collect()
}

fn parameters(graph: &proto::GraphProto) -> (u64, u64) {
    let mut total = (0, 0);
    for t in &graph.initializer {
        let elements: u64 = t.dims.iter().map(|&d| d.max(0) as u64).product();
        total.0 += elements;
        total.1 += elements * element_bytes(t.data_type.unwrap_or(0));
    }
    total
}

/// Bytes per element of a `TensorProto.DataType` (0 for strings and unknown types).
fn element_bytes(code: i32) -> u64 {
    match code {
        1 | 6 | 12 => 4,
        7 | 11 | 13 | 14 => 8,
        4 | 5 | 10 | 16 => 2,
        2 | 3 | 9 | 17..=20 => 1,
        15 => 16,
        _ => 0,
    }
}

fn shapes(bytes: &[u8], path: &Path, options: &OnnxOptions) -> OResult<Shapes> {
    let import_options =
        import::ImportOptions { path, shapes: &options.shapes, binds: &options.binds, dims: &options.dims };
    graph_shapes(import::import(bytes, &import_options)?)
}

/// The interface and multiply-accumulates of an imported graph, after inference (any frontend's:
/// the Core ML frontend's inspection ends here too).
pub fn graph_shapes(mut g: Graph) -> OResult<Shapes> {
    infer::topological_order(&mut g)?;
    infer::infer_and_fold(&mut g)?;
    let typed = |names: &[String]| -> OResult<Vec<(String, TensorType)>> {
        names.iter().map(|n| Ok((n.clone(), g.ty(n)?.clone()))).collect()
    };
    let macs = g.nodes.iter().map(|n| node_macs(n, &g)).fold(Dim::fixed(0), |a, b| a.add(&b));
    Ok(Shapes { inputs: typed(&g.inputs)?, outputs: typed(&g.outputs)?, symbols: g.symbols.clone(), macs })
}

/// A node's multiply-accumulates (0 for the operators that do none to speak of).
fn node_macs(n: &Node, g: &Graph) -> Dim {
    let dims = |i: usize, outputs: bool| {
        let name = if outputs { n.outputs.get(i).map(String::as_str) } else { n.input(i) };
        name.and_then(|name| g.types.get(name)).map(TensorType::dims)
    };
    let product = |d: &[Dim]| Dim::product(d);
    match n.op.as_str() {
        "Conv" => match (dims(0, true), dims(1, false)) {
            (Some(out), Some(w)) if w.len() > 1 => product(&out).mul(&product(&w[1..])),
            _ => Dim::fixed(0),
        },
        "ConvTranspose" => match (dims(0, false), dims(1, false)) {
            (Some(x), Some(w)) if w.len() > 1 => product(&x).mul(&product(&w[1..])),
            _ => Dim::fixed(0),
        },
        "Gemm" | "MatMul" => match (dims(0, false), dims(0, true)) {
            (Some(a), Some(out)) if !a.is_empty() => {
                let transposed = n.op == "Gemm" && n.int("transA", 0) == 1;
                let k = if transposed { &a[0] } else { &a[a.len() - 1] };
                product(&out).mul(k)
            }
            _ => Dim::fixed(0),
        },
        _ => Dim::fixed(0),
    }
}
