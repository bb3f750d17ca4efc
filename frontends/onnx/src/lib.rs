//! The ONNX frontend: the protobuf schema ([`proto`]) -> [`import`] into a [`graph::Graph`] ->
//! shape inference and constant folding ([`infer`]) -> graph rewrites ([`fuse`]) -> each node
//! lowered by its operator ([`ops`]) into a module at the kernel level ([`emit`]), plus the C
//! header that describes the result ([`header`]).

pub mod data_dim;
pub mod dim;
pub mod emit;
pub mod error;
pub mod fuse;
pub mod graph;
pub mod header;
pub mod import;
pub mod infer;
pub mod ops;
pub mod proto;

use std::collections::HashMap;
use std::path::Path;

pub use emit::ModelInterface;
pub use error::OnnxError;

pub struct OnnxOptions<'a> {
    /// Prefix of every exported symbol (`NAME_run`, `NAME_workspace_size`).
    pub name: &'a str,
    /// Shapes for inputs with symbolic dims (`--shape NAME=1x3x224x224`, `NAME=1x1..2048`).
    pub shapes: HashMap<String, Vec<dim::DimSize>>,
    /// Inputs frozen to constants (`--bind NAME=...`).
    pub binds: HashMap<String, import::Binding>,
    /// Sizes or ranges of symbolic dims by name (`--dim batch=1`, `--dim seq=1..2048`).
    pub dims: HashMap<String, dim::DimSize>,
}

/// Compiles an ONNX model (its bytes and path) into a module at the kernel level.
pub fn compile(
    bytes: &[u8],
    path: &Path,
    options: &OnnxOptions,
) -> Result<(xcc_ir::Module, ModelInterface), OnnxError> {
    let mut g = import::import(
        bytes,
        &import::ImportOptions { path, shapes: &options.shapes, binds: &options.binds, dims: &options.dims },
    )?;
    infer::topological_order(&mut g)?;
    infer::infer_and_fold(&mut g)?;
    fuse::fuse(&mut g);
    emit::generate(&g, options.name, |node, g, e| match ops::registry().get(&node.op) {
        Some(op) => op.lower(node, g, e),
        None => Err(OnnxError::msg("internal: an unregistered operator")),
    })
}

/// A C identifier from a model or tensor name.
pub fn c_identifier(name: &str) -> String {
    let mut s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}
