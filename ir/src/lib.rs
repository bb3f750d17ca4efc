//! xcc's IR core, shared by every frontend, pass and backend.
//!
//! - [`module`]: the IR container (operations, blocks, regions, values in arenas, by typed id);
//! - [`types`], [`attributes`], [`affine`]: the type system and compile-time constants;
//! - [`op_def`] and [`dialects`]: every operation described once, as data, one module per dialect;
//! - [`parser`]: MLIR text (both the original standard-dialect spelling and upstream's) to IR;
//! - [`printer`]: IR to MLIR text in the upstream spelling;
//! - [`verifier`]: structural and per-operation rules, run after parsing and after every pass;
//! - [`diagnostics`]: user errors with spans, rendered as `file:line:col: error: ...`.
//!
//! It has no LLVM dependency, so tools and tests that only read or write IR build quickly.

pub mod affine;
pub mod attributes;
pub mod builder;
mod compact;
pub mod diagnostics;
pub mod dialects;
pub mod entity;
pub mod module;
pub mod op_def;
pub mod parser;
pub mod printer;
mod rewrite;
pub mod types;
pub mod verifier;

pub use attributes::Attribute;
pub use diagnostics::{Diagnostic, SourceFile, Span};
pub use entity::{BlockId, OpId, RegionId, ValueId};
pub use module::{Module, OpSpec, Successor};
pub use types::Type;
