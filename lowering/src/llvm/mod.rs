//! Transforms of the llvm dialect itself, after every conversion: what a library needs beyond
//! the translation of one module (several CPUs in one library), and the shapes of code that
//! keep LLVM's cost linear (wide results and signatures through memory, repeated functions once).

pub mod cpu_dispatch;
pub mod merge_functions;
pub mod wide_results;
pub mod wide_signatures;
