//! The dialects xcc knows, one module each, every operation described once in its module's `OPS`
//! table (see [`crate::op_def`]). Custom syntax and type rules live beside the table.
//!
//! To add an operation: add an [`OpDef`] to its dialect's table, with a parse/print pair if it has
//! a custom form; the parser, printer and verifier pick it up. The completeness test in
//! `xcc-lowering` then asks for a lowering or a `not_lowered("why")` mark.

pub mod affine;
pub mod arith;
pub mod arith_extended;
pub mod builtin;
pub mod cf;
pub mod constraints;
pub mod func;
pub mod gpu;
pub mod index;
pub mod kernel;
pub mod kernel_attention;
pub mod kernel_blockwise;
pub mod llvm;
pub mod llvm_atomics;
pub mod math;
pub mod memref;
pub mod memref_reshapes;
pub mod original;
pub mod scf;
pub mod tensor;
pub mod vector;
pub mod vector_contract;
pub mod vector_reshapes;
pub mod vector_transfers;

use crate::op_def::OpDef;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Every dialect: its name and its operations.
pub const DIALECTS: &[(&str, &[OpDef])] = &[
    ("builtin", builtin::OPS),
    ("func", func::OPS),
    ("arith", arith::OPS),
    // The extended-precision operations, a second table (see the module).
    ("arith", arith_extended::OPS),
    ("index", index::OPS),
    ("math", math::OPS),
    ("cf", cf::OPS),
    ("memref", memref::OPS),
    // The memref dialect's reshaping views, a second table (see the module).
    ("memref", memref_reshapes::OPS),
    ("scf", scf::OPS),
    ("affine", affine::OPS),
    ("vector", vector::OPS),
    // The vector dialect's reshaping operations, a second table (see the module).
    ("vector", vector_reshapes::OPS),
    ("vector", vector_transfers::OPS),
    ("vector", vector_contract::OPS),
    ("gpu", gpu::OPS),
    ("llvm", llvm::OPS),
    // The llvm dialect's atomic operations, a second table (see the module).
    ("llvm", llvm_atomics::OPS),
    ("std", original::OPS),
    ("tensor", tensor::OPS),
    ("kernel", kernel::OPS),
    // The block-quantized matmul, a second table (see the module).
    ("kernel", kernel_blockwise::OPS),
    // Attention over grouped heads, a third table (see the module).
    ("kernel", kernel_attention::OPS),
];

/// Every registered operation.
pub fn all() -> impl Iterator<Item = &'static OpDef> {
    DIALECTS.iter().flat_map(|(_, ops)| ops.iter())
}

/// The definition of a registered operation.
pub fn lookup(name: &str) -> Option<&'static OpDef> {
    static TABLE: OnceLock<HashMap<&'static str, &'static OpDef>> = OnceLock::new();
    TABLE.get_or_init(|| all().map(|d| (d.name, d)).collect()).get(name).copied()
}

/// Whether the operation's dialect is one of xcc's (its unknown operations are errors; other
/// dialects' operations are opaque, as with upstream's `--allow-unregistered-dialect`).
pub fn is_registered_dialect(op_name: &str) -> bool {
    let dialect = op_name.split('.').next().unwrap_or("");
    DIALECTS.iter().any(|(d, _)| *d == dialect)
}

/// An `llvm.*` operation that is not in the llvm dialect's table calls the LLVM intrinsic of that
/// name (`llvm.intr.ctlz`, `"llvm.sadd.with.overflow.i32"`); LLVM's own table decides at
/// translation whether it exists.
pub fn is_intrinsic_call(op_name: &str) -> bool {
    op_name.starts_with("llvm.") && lookup(op_name).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op_def::Traits;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_and_carry_their_dialect() {
        let mut seen = HashSet::new();
        for (dialect, ops) in DIALECTS {
            for d in *ops {
                assert!(seen.insert(d.name), "{} is defined twice", d.name);
                let prefix = d.name.split('.').next().unwrap();
                // The original specification's ops keep the names upstream would give them.
                assert!(prefix == *dialect || *dialect == "std", "{} is in the {dialect} table", d.name);
            }
        }
    }

    #[test]
    fn traits_are_consistent() {
        for d in all() {
            if d.is_terminator() {
                assert!(matches!(d.results, crate::op_def::Count::Exactly(0)), "terminator {} has results", d.name);
            }
            if d.syntax.print.is_some() {
                assert!(d.syntax.parse.is_some(), "{} prints a custom form it cannot parse", d.name);
            }
            if d.traits.contains(Traits::PARALLEL_LOOP) {
                assert!(d.traits.contains(Traits::RECURSIVE_EFFECTS), "{}", d.name);
            }
            assert!(!d.summary.is_empty(), "{} has no summary", d.name);
        }
    }

    #[test]
    fn lookup_finds_every_op_and_nothing_else() {
        for d in all() {
            assert_eq!(lookup(d.name).map(|x| x.name), Some(d.name));
        }
        assert!(lookup("arith.frobnicate").is_none());
        assert!(is_intrinsic_call("llvm.intr.ctlz"));
        assert!(!is_intrinsic_call("llvm.add"));
        assert!(is_registered_dialect("arith.frobnicate"));
        assert!(!is_registered_dialect("test.op"));
    }

    #[test]
    fn original_spellings_map_to_registered_ops() {
        for old in ["addi", "cond_br", "alloc", "for", "if", "dma_start", "view", "reshape", "std.addi"] {
            let new = original::canonical_name(old);
            assert!(lookup(new).is_some(), "{old} -> {new} is not registered");
        }
        assert_eq!(original::canonical_name("arith.addi"), "arith.addi");
    }
}
