//! The llvm dialect of xcc's IR and its translation to LLVM IR.
//!
//! The llvm dialect's operations (`llvm.add`, `llvm.getelementptr`, `llvm.call`, ...) live in the
//! shared IR as ordinary operations; [`translate`] turns a module made only of them into an LLVM
//! module. Any operation named `llvm.NAME` that is not one of the dialect's own, and every
//! `llvm.intr.NAME`, is a call of the LLVM intrinsic `llvm.NAME`, resolved through LLVM's
//! intrinsic table (overloads are picked by matching the operand and result types).

pub mod translate;
pub mod units;

pub use translate::{sm_version, translate_module, translates, TranslateError, TranslateOptions};
pub use units::Unit;
