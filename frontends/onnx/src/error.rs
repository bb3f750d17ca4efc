//! The ONNX frontend's user-facing error: it names what it is about, a node (by name, op and
//! the tensor it produces) and a tensor, as fields, and renders them before its message:
//! `Conv node 'conv1': tensor 'w': ...`.

use crate::graph::Node;
use std::fmt;

/// The node an error is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRef {
    /// The node's name in the model ('' when unnamed).
    pub name: String,
    pub op: String,
    /// The node's first output, which names an unnamed node.
    pub output: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct OnnxError {
    pub node: Option<NodeRef>,
    pub tensor: Option<String>,
    pub message: String,
}

impl OnnxError {
    pub fn msg(message: impl Into<String>) -> OnnxError {
        OnnxError { node: None, tensor: None, message: message.into() }
    }

    /// An error about tensor `name`.
    pub fn tensor(name: &str, message: impl Into<String>) -> OnnxError {
        OnnxError { node: None, tensor: Some(name.to_string()), message: message.into() }
    }

    /// The node this error happened in, unless it already names one.
    pub fn in_node(mut self, node: &Node) -> OnnxError {
        if self.node.is_none() {
            self.node = Some(NodeRef {
                name: node.name.clone(),
                op: node.op.clone(),
                output: node.outputs.first().cloned().unwrap_or_default(),
            });
        }
        self
    }

    /// The tensor this error is about, unless it already names one.
    pub fn for_tensor(mut self, name: &str) -> OnnxError {
        if self.tensor.is_none() {
            self.tensor = Some(name.to_string());
        }
        self
    }
}

impl fmt::Display for NodeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.name.is_empty() {
            write!(f, "{} node producing '{}'", self.op, self.output)
        } else {
            write!(f, "{} node '{}'", self.op, self.name)
        }
    }
}

impl fmt::Display for OnnxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = &self.node {
            write!(f, "{n}: ")?;
        }
        if let Some(t) = &self.tensor {
            write!(f, "tensor '{t}': ")?;
        }
        f.write_str(&self.message)
    }
}

pub type OResult<T> = Result<T, OnnxError>;

pub fn err<T>(msg: impl Into<String>) -> OResult<T> {
    Err(OnnxError::msg(msg))
}
