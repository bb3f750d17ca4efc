//! Operators that are other operators: ONNX defines Attention, the losses and RMSNormalization
//! by function bodies, and xcc does the same, in Rust, once the node's input types are known
//! ([`OnnxOp::expand`](super::OnnxOp::expand)). Inference then infers, folds and lowers the new
//! nodes like any others, so the pieces that are constant for the model's dims (a causal mask,
//! a window) fold to data, and the rest becomes the usual kernels.
//!
//! An [`Expansion`] writes the nodes: fresh tensor names derived from the node's first output,
//! node names derived from its name (so an error inside points at the node the model has), and
//! one opset for all of them ([`OPSET`]), whatever the model imports, as the expansion is
//! written against that opset's operators.

use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use std::collections::BTreeMap;

/// An operator that is its expansion: `write` adds the nodes that compute `node` to `x`.
/// It is registered as `Expand(op)`, an [`OnnxOp`] whose shape rule and lowering are its
/// expansion's.
pub trait Expanded: Sync {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()>;
}

/// An [`Expanded`] operator as an [`OnnxOp`].
pub struct Expand<T>(pub T);

impl<T: Expanded> OnnxOp for Expand<T> {
    fn infer(&self, node: &Node, _: &Graph) -> OResult<Vec<TensorType>> {
        err(format!("internal: {} is expanded before its types are inferred", node.op))
    }

    fn expand(&self, node: &Node, g: &Graph) -> Option<OResult<Vec<Node>>> {
        let mut x = Expansion::new(node);
        Some(self.0.write(node, g, &mut x).map(|()| x.finish()))
    }

    fn lower(&self, node: &Node, _: &Graph, _: &mut crate::emit::Emitter) -> OResult<()> {
        err(format!("internal: {} is expanded before lowering", node.op))
    }
}

/// The opset of every node an expansion writes (Reduce* take their axes as an input, Pad its
/// axes too).
pub const OPSET: i64 = 21;

/// The nodes that compute one node, in order.
pub struct Expansion<'n> {
    node: &'n Node,
    nodes: Vec<Node>,
    fresh_count: usize,
}

impl<'n> Expansion<'n> {
    pub fn new(node: &'n Node) -> Expansion<'n> {
        Expansion { node, nodes: Vec::new(), fresh_count: 0 }
    }

    /// A new tensor name, for a node written with [`Expansion::op_to`] (several outputs).
    pub fn fresh(&mut self) -> String {
        self.fresh_count += 1;
        format!("{}#{}.out{}", self.node.outputs.first().map_or("", String::as_str), self.node.op, self.fresh_count)
    }

    /// A node of `op` writing one new tensor, whose name it returns.
    pub fn op(&mut self, op: &str, inputs: &[&str], attrs: &[(&str, Attr)]) -> String {
        let name = format!("{}#{}.{}", self.node.outputs[0], self.node.op, self.nodes.len());
        self.op_to(op, inputs, attrs, &[&name]);
        name
    }

    /// A node of `op` writing `outputs` (the expanded node's own, or empty ones).
    pub fn op_to(&mut self, op: &str, inputs: &[&str], attrs: &[(&str, Attr)], outputs: &[&str]) {
        self.op_in("", op, inputs, attrs, outputs);
    }

    /// [`Expansion::op_to`] for an operator of `domain` (xcc's own: [`crate::ops::contrib`]).
    pub fn op_in(&mut self, domain: &str, op: &str, inputs: &[&str], attrs: &[(&str, Attr)], outputs: &[&str]) {
        let base = if self.node.name.is_empty() { &self.node.outputs[0] } else { &self.node.name };
        self.nodes.push(Node {
            name: format!("{base}/{op}.{}", self.nodes.len()),
            op: op.to_string(),
            domain: domain.to_string(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            outputs: outputs.iter().map(|s| s.to_string()).collect(),
            attrs: attrs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<BTreeMap<_, _>>(),
            opset: OPSET,
            guard: None,
        });
    }

    /// A node as it is (a copy of a control-flow body's node keeps its own opset and domain).
    pub fn push(&mut self, node: Node) {
        self.nodes.push(node);
    }

    /// How many nodes the expansion has written.
    pub fn written(&self) -> usize {
        self.nodes.len()
    }

    /// Makes the nodes written from the `start`th on run only where `runs` is nonzero (an If's
    /// branch: [`Node::guard`]).
    pub fn guard_since(&mut self, start: usize, runs: &DataExpr) {
        for n in &mut self.nodes[start..] {
            n.guard = Some(runs.clone());
        }
    }

    /// `value` as a new constant tensor.
    pub fn constant(&mut self, value: Tensor) -> String {
        self.op("Constant", &[], &[("value", Attr::Tensor(value))])
    }

    /// A vector of int64s (shapes, axes, pads).
    pub fn ints(&mut self, values: &[i64]) -> String {
        self.constant(Tensor::from_i64(vec![values.len()], values))
    }

    /// A scalar of element type `dtype`.
    pub fn scalar(&mut self, value: f64, dtype: DType) -> String {
        self.constant(Tensor::from_f64(dtype, vec![], &[value]))
    }

    /// Dim `axis` of `x`, as an int64 scalar (a constant where the dim is known at compile time).
    pub fn dim(&mut self, x: &str, axis: i64) -> String {
        let mut range = vec![("start", Attr::Int(axis))];
        if axis != -1 {
            range.push(("end", Attr::Int(axis + 1)));
        }
        let dims = self.op("Shape", &[x], &range);
        let zero = self.ints(&[0]);
        self.op("Squeeze", &[&dims, &zero], &[])
    }

    /// `0, 1, ..., n - 1` for an int64 scalar `n`.
    pub fn range(&mut self, n: &str) -> String {
        let (zero, one) =
            (self.constant(Tensor::from_i64(vec![], &[0])), self.constant(Tensor::from_i64(vec![], &[1])));
        self.op("Range", &[&zero, n, &one], &[])
    }

    /// `0, 1, ..., n - 1` for dim `axis` of `x` (int64), with `trailing` dims of size 1 after,
    /// to broadcast against `x`'s later dims.
    pub fn positions(&mut self, x: &str, axis: i64, trailing: usize) -> String {
        let n = self.dim(x, axis);
        let range = self.range(&n);
        if trailing == 0 {
            return range;
        }
        let axes: Vec<i64> = (1..=trailing as i64).collect();
        self.unsqueeze(&range, &axes)
    }

    /// `x` with dims of size 1 inserted at `axes`.
    pub fn unsqueeze(&mut self, x: &str, axes: &[i64]) -> String {
        let axes = self.ints(axes);
        self.op("Unsqueeze", &[x, &axes], &[])
    }

    pub fn transpose(&mut self, x: &str, perm: &[i64]) -> String {
        self.op("Transpose", &[x], &[("perm", Attr::Ints(perm.to_vec()))])
    }

    pub fn reshape(&mut self, x: &str, shape: &[i64]) -> String {
        let shape = self.ints(shape);
        self.op("Reshape", &[x, &shape], &[])
    }

    /// `x` converted to `dtype` (`x` itself where it has that type already).
    pub fn cast(&mut self, x: &str, from: DType, to: DType) -> String {
        if from == to {
            return x.to_string();
        }
        self.op("Cast", &[x], &[("to", Attr::Int(to.onnx_code() as i64))])
    }

    /// Writes `x` into the expanded node's output `name` (nothing when the output is unnamed).
    pub fn output(&mut self, x: &str, name: Option<&str>) {
        if let Some(name) = name.filter(|n| !n.is_empty()) {
            self.op_to("Identity", &[x], &[], &[name]);
        }
    }

    pub fn finish(self) -> Vec<Node> {
        self.nodes
    }
}
